//! The struct-of-arrays board storage ([`Boards`]) and [`Lanes`], a mutable view of a range of
//! boards together with the matching rows of the caller's buffers, which splits in two for
//! pieces for the threads of a step without allocating.

use rand_chacha::ChaCha8Rng;

use super::buffers::StepOutput;
use super::observation::ObsValue;
use super::repetition::{RepLanes, Repetitions};
use crate::state::State;

/// Every board's mutable content, one array per field.
#[derive(Debug, Clone)]
pub(crate) struct Boards {
    /// Positions.
    pub(crate) states: Vec<State>,
    /// Repetition logs (positions since each board's last capture).
    pub(crate) reps: Repetitions,
    /// Random streams.
    pub(crate) rngs: Vec<ChaCha8Rng>,
    /// Legal-action masks of the current positions; 0 when the board cannot be stepped.
    pub(crate) masks: Vec<u16>,
    /// The episode ended and awaits a reset (next-step or disabled resets).
    pub(crate) done: Vec<bool>,
    /// Caller steps taken in the current episode.
    pub(crate) lengths: Vec<u32>,
    /// The league member each board plays in its current episode (0 without a league).
    pub(crate) members: Vec<u8>,
}

/// A contiguous range of boards with the matching rows of the output buffers.
pub(crate) struct Lanes<'a, O: ObsValue> {
    pub(crate) states: &'a mut [State],
    pub(crate) reps: RepLanes<'a>,
    pub(crate) rngs: &'a mut [ChaCha8Rng],
    pub(crate) masks: &'a mut [u16],
    pub(crate) done: &'a mut [bool],
    pub(crate) lengths: &'a mut [u32],
    pub(crate) members: &'a mut [u8],
    /// Per-board instruction decoded before stepping (see `kernel`).
    pub(crate) codes: &'a [u8],
    pub(crate) obs: &'a mut [O],
    pub(crate) mask: &'a mut [u8],
    pub(crate) rewards: &'a mut [f32],
    pub(crate) reward: &'a mut [f32],
    pub(crate) terminated: &'a mut [bool],
    pub(crate) truncated: &'a mut [bool],
    pub(crate) to_move: &'a mut [u8],
    pub(crate) episode_length: &'a mut [u32],
    pub(crate) episode_scores: &'a mut [u8],
    pub(crate) final_obs: Option<&'a mut [O]>,
    pub(crate) obs_dim: usize,
    pub(crate) houses: usize,
    pub(crate) players: usize,
}

fn split<T>(s: &mut [T], at: usize) -> (&mut [T], &mut [T]) {
    s.split_at_mut(at)
}

impl<'a, O: ObsValue> Lanes<'a, O> {
    /// All boards with the whole of `out` (whose lengths were checked).
    pub(crate) fn new(
        boards: &'a mut Boards,
        codes: &'a [u8],
        out: &'a mut StepOutput<'_, O>,
        obs_dim: usize,
        houses: usize,
        players: usize,
    ) -> Lanes<'a, O> {
        Lanes {
            states: &mut boards.states,
            reps: boards.reps.lanes(),
            rngs: &mut boards.rngs,
            masks: &mut boards.masks,
            done: &mut boards.done,
            lengths: &mut boards.lengths,
            members: &mut boards.members,
            codes,
            obs: out.obs,
            mask: out.mask,
            rewards: out.rewards,
            reward: out.reward,
            terminated: out.terminated,
            truncated: out.truncated,
            to_move: out.to_move,
            episode_length: out.episode_length,
            episode_scores: out.episode_scores,
            final_obs: out.final_obs.as_deref_mut(),
            obs_dim,
            houses,
            players,
        }
    }

    /// Number of boards in the view.
    pub(crate) fn len(&self) -> usize {
        self.states.len()
    }

    /// Boards `..mid` and `mid..`.
    pub(crate) fn split_at(self, mid: usize) -> (Lanes<'a, O>, Lanes<'a, O>) {
        let (od, h, p) = (self.obs_dim, self.houses, self.players);
        let (states_a, states_b) = split(self.states, mid);
        let (hist_a, hist_b) = self.reps.split_at(mid);
        let (rngs_a, rngs_b) = split(self.rngs, mid);
        let (masks_a, masks_b) = split(self.masks, mid);
        let (done_a, done_b) = split(self.done, mid);
        let (len_a, len_b) = split(self.lengths, mid);
        let (mem_a, mem_b) = split(self.members, mid);
        let (codes_a, codes_b) = self.codes.split_at(mid);
        let (obs_a, obs_b) = split(self.obs, mid * od);
        let (mask_a, mask_b) = split(self.mask, mid * h);
        let (rew_a, rew_b) = split(self.rewards, mid * p);
        let (r1_a, r1_b) = split(self.reward, mid);
        let (term_a, term_b) = split(self.terminated, mid);
        let (trunc_a, trunc_b) = split(self.truncated, mid);
        let (tm_a, tm_b) = split(self.to_move, mid);
        let (el_a, el_b) = split(self.episode_length, mid);
        let (es_a, es_b) = split(self.episode_scores, mid * p);
        let (fo_a, fo_b) = match self.final_obs {
            Some(f) => {
                let (a, b) = split(f, mid * od);
                (Some(a), Some(b))
            }
            None => (None, None),
        };
        (
            Lanes {
                states: states_a,
                reps: hist_a,
                rngs: rngs_a,
                masks: masks_a,
                done: done_a,
                lengths: len_a,
                members: mem_a,
                codes: codes_a,
                obs: obs_a,
                mask: mask_a,
                rewards: rew_a,
                reward: r1_a,
                terminated: term_a,
                truncated: trunc_a,
                to_move: tm_a,
                episode_length: el_a,
                episode_scores: es_a,
                final_obs: fo_a,
                obs_dim: od,
                houses: h,
                players: p,
            },
            Lanes {
                states: states_b,
                reps: hist_b,
                rngs: rngs_b,
                masks: masks_b,
                done: done_b,
                lengths: len_b,
                members: mem_b,
                codes: codes_b,
                obs: obs_b,
                mask: mask_b,
                rewards: rew_b,
                reward: r1_b,
                terminated: term_b,
                truncated: trunc_b,
                to_move: tm_b,
                episode_length: el_b,
                episode_scores: es_b,
                final_obs: fo_b,
                obs_dim: od,
                houses: h,
                players: p,
            },
        )
    }

    /// The boards cut into `k` consecutive pieces of nearly equal size.
    pub(crate) fn split_even(self, k: usize) -> impl Iterator<Item = Lanes<'a, O>> {
        let mut rest = Some(self);
        let mut left = k.max(1);
        std::iter::from_fn(move || {
            let lanes = rest.take()?;
            if left == 1 {
                return Some(lanes);
            }
            let mid = lanes.len() / left;
            let (piece, more) = lanes.split_at(mid);
            left -= 1;
            rest = Some(more);
            Some(piece)
        })
    }
}
