//! Caller-owned output buffers ([`StepOutput`]), an owned set of them ([`StepBuffers`]) and the
//! integer types accepted as actions ([`BatchAction`]).

use std::fmt;

use super::observation::ObsValue;
use crate::error::{AwaleError, Result};

/// The buffers one [`super::Batch::step`] or reset writes, all borrowed from the caller and
/// laid out board-major (`N` boards):
///
/// | field | length | content |
/// |---|---|---|
/// | `obs` | `N × obs_dim` | observation of each board (see [`super::ObsEncoding`]) |
/// | `mask` | `N × houses` | 1 where the house may be played by the player to move, else 0 (see [`super::ResetMode`] for boards whose episode ended) |
/// | `rewards` | `N × players` | reward of each player (seat order) |
/// | `reward` | `N` | the caller's reward: the learner seat's against an opponent, the seat that moved in self-play |
/// | `terminated` | `N` | the episode ended by the rules (or an illegal action under `Loss`) |
/// | `truncated` | `N` | the episode was cut off by the rules' `max_plies` |
/// | `to_move` | `N` | the seat to move in the position `obs` shows |
/// | `episode_length` | `N` | caller steps of the episode that ended, 0 where none did |
/// | `episode_scores` | `N × players` | final stores of the episode that ended, 0 where none did |
/// | `final_obs` | `N × obs_dim`, optional | [`super::ResetMode::SameStep`]: the final observation of each board whose episode ended (other rows are left untouched) |
///
/// `O` is the observation element type: `f32` or `u8`.
#[derive(Debug)]
pub struct StepOutput<'a, O: ObsValue = f32> {
    /// Observations, `N × obs_dim`.
    pub obs: &'a mut [O],
    /// Legal-action masks, `N × houses`.
    pub mask: &'a mut [u8],
    /// Rewards, `N × players`.
    pub rewards: &'a mut [f32],
    /// The caller's reward, `N`: `rewards` of the learner's seat against an opponent, of the
    /// seat that moved in self-play.
    pub reward: &'a mut [f32],
    /// Terminated flags, `N`.
    pub terminated: &'a mut [bool],
    /// Truncated flags, `N`.
    pub truncated: &'a mut [bool],
    /// Seat to move, `N`.
    pub to_move: &'a mut [u8],
    /// Length of the episodes that ended, `N`.
    pub episode_length: &'a mut [u32],
    /// Final stores of the episodes that ended, `N × players`.
    pub episode_scores: &'a mut [u8],
    /// Final observations under same-step resets, `N × obs_dim` (optional).
    pub final_obs: Option<&'a mut [O]>,
}

fn check_len(name: &str, len: usize, boards: usize, per: usize, what: &str) -> Result<()> {
    if len != boards * per {
        return Err(AwaleError::BadBatchInput(if per == 1 {
            format!("{name} buffer has {len} values; expected one per board: {boards}")
        } else {
            format!(
                "{name} buffer has {len} values; expected {boards} boards x {per} {what} = {}",
                boards * per
            )
        }));
    }
    Ok(())
}

impl<O: ObsValue> StepOutput<'_, O> {
    /// Checks every buffer's length for `boards` boards.
    pub fn check(
        &self,
        boards: usize,
        obs_dim: usize,
        houses: usize,
        players: usize,
    ) -> Result<()> {
        check_len("obs", self.obs.len(), boards, obs_dim, "values")?;
        check_len("mask", self.mask.len(), boards, houses, "houses")?;
        check_len("rewards", self.rewards.len(), boards, players, "players")?;
        check_len("reward", self.reward.len(), boards, 1, "")?;
        check_len("terminated", self.terminated.len(), boards, 1, "")?;
        check_len("truncated", self.truncated.len(), boards, 1, "")?;
        check_len("to_move", self.to_move.len(), boards, 1, "")?;
        check_len("episode_length", self.episode_length.len(), boards, 1, "")?;
        check_len(
            "episode_scores",
            self.episode_scores.len(),
            boards,
            players,
            "players",
        )?;
        if let Some(f) = &self.final_obs {
            check_len("final_obs", f.len(), boards, obs_dim, "values")?;
        }
        Ok(())
    }
}

/// Owned buffers of the right sizes for a batch, for Rust callers, tests and benchmarks.
///
/// ```
/// use awale::batch::{Batch, BatchConfig, StepBuffers};
/// use awale::Rules;
/// let mut batch = Batch::new(BatchConfig::new(Rules::abapa(), 4)).unwrap();
/// let mut buf = StepBuffers::<f32>::for_batch(&batch);
/// batch.reset(Some(1), &mut buf.output()).unwrap();
/// assert_eq!(buf.obs.len(), 4 * batch.obs_dim());
/// assert_eq!(buf.mask_of(0), &[1, 1, 1, 1, 1, 1]);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct StepBuffers<O: ObsValue = f32> {
    /// Observations, `N × obs_dim`.
    pub obs: Vec<O>,
    /// Legal-action masks, `N × houses`.
    pub mask: Vec<u8>,
    /// Rewards, `N × players`.
    pub rewards: Vec<f32>,
    /// The caller's reward, `N`.
    pub reward: Vec<f32>,
    /// Terminated flags.
    pub terminated: Vec<bool>,
    /// Truncated flags.
    pub truncated: Vec<bool>,
    /// Seat to move.
    pub to_move: Vec<u8>,
    /// Length of the episodes that ended.
    pub episode_length: Vec<u32>,
    /// Final stores of the episodes that ended.
    pub episode_scores: Vec<u8>,
    /// Final observations (same-step resets).
    pub final_obs: Vec<O>,
    obs_dim: usize,
    houses: usize,
    players: usize,
}

impl<O: ObsValue> StepBuffers<O> {
    /// Zeroed buffers for `boards` boards.
    pub fn new(boards: usize, obs_dim: usize, houses: usize, players: usize) -> StepBuffers<O> {
        StepBuffers {
            obs: vec![O::ZERO; boards * obs_dim],
            mask: vec![0; boards * houses],
            rewards: vec![0.0; boards * players],
            reward: vec![0.0; boards],
            terminated: vec![false; boards],
            truncated: vec![false; boards],
            to_move: vec![0; boards],
            episode_length: vec![0; boards],
            episode_scores: vec![0; boards * players],
            final_obs: vec![O::ZERO; boards * obs_dim],
            obs_dim,
            houses,
            players,
        }
    }

    /// Zeroed buffers sized for `batch`.
    pub fn for_batch(batch: &super::Batch) -> StepBuffers<O> {
        StepBuffers::new(
            batch.num_boards(),
            batch.obs_dim(),
            batch.action_dim(),
            batch.players(),
        )
    }

    /// The borrowed view that [`super::Batch::step`] writes into (with `final_obs`).
    pub fn output(&mut self) -> StepOutput<'_, O> {
        StepOutput {
            obs: &mut self.obs,
            mask: &mut self.mask,
            rewards: &mut self.rewards,
            reward: &mut self.reward,
            terminated: &mut self.terminated,
            truncated: &mut self.truncated,
            to_move: &mut self.to_move,
            episode_length: &mut self.episode_length,
            episode_scores: &mut self.episode_scores,
            final_obs: Some(&mut self.final_obs),
        }
    }

    /// Board `i`'s observation.
    pub fn obs_of(&self, i: usize) -> &[O] {
        &self.obs[i * self.obs_dim..(i + 1) * self.obs_dim]
    }

    /// Board `i`'s final observation (valid after a same-step reset of that board).
    pub fn final_obs_of(&self, i: usize) -> &[O] {
        &self.final_obs[i * self.obs_dim..(i + 1) * self.obs_dim]
    }

    /// Board `i`'s legal-action mask.
    pub fn mask_of(&self, i: usize) -> &[u8] {
        &self.mask[i * self.houses..(i + 1) * self.houses]
    }

    /// Board `i`'s legal-action mask as bits (bit `h` = house `h`).
    pub fn mask_bits(&self, i: usize) -> u16 {
        self.mask_of(i)
            .iter()
            .enumerate()
            .fold(0, |m, (h, &v)| m | (u16::from(v != 0) << h))
    }

    /// Board `i`'s rewards, one per player.
    pub fn rewards_of(&self, i: usize) -> &[f32] {
        &self.rewards[i * self.players..(i + 1) * self.players]
    }

    /// Board `i`'s final scores (valid where its episode ended).
    pub fn episode_scores_of(&self, i: usize) -> &[u8] {
        &self.episode_scores[i * self.players..(i + 1) * self.players]
    }
}

/// An integer type accepted as an action (a house index of the player to move): every
/// primitive integer, so bindings can pass `int64` or `uint8` arrays as they are.
pub trait BatchAction: Copy + Send + Sync + fmt::Display {
    /// The action as a house index, or `None` when it is negative or too large for `usize`.
    fn house(self) -> Option<usize>;

    /// The action as given, widened (for error reports).
    fn wide(self) -> i128;
}

macro_rules! batch_action {
    ($($t:ty),*) => {$(
        impl BatchAction for $t {
            #[inline(always)]
            fn house(self) -> Option<usize> {
                usize::try_from(self).ok()
            }

            #[inline]
            fn wide(self) -> i128 {
                self as i128
            }
        }
    )*};
}

batch_action!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);
