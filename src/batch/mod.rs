//! The vectorised simulator: `N` boards of one rule set stepped by one call, reproducible bit for
//! bit from one seed, for reinforcement learning.
//!
//! A [`Batch`] keeps its boards as parallel arrays (positions, repetition histories, random
//! streams, masks, episode counters). [`Batch::step`] takes one action per board and writes into
//! buffers the caller owns ([`StepOutput`]): it allocates nothing and can run on several threads
//! ([`BatchConfig::threads`]); the outputs never depend on the thread count.
//!
//! ```
//! use awale::batch::{Batch, BatchConfig, ResetMode, StepBuffers};
//! use awale::Rules;
//! let cfg = BatchConfig::new(Rules::abapa(), 8).with_reset_mode(ResetMode::SameStep).with_seed(1);
//! let mut batch = Batch::new(cfg).unwrap();
//! let mut buf = StepBuffers::<f32>::for_batch(&batch);
//! batch.reset(None, &mut buf.output()).unwrap();
//! let mut finished = 0;
//! for _ in 0..500 {
//!     // Play the lowest legal house on every board.
//!     let actions: Vec<u32> = (0..8).map(|i| buf.mask_bits(i).trailing_zeros()).collect();
//!     batch.step(&actions, &mut buf.output()).unwrap();
//!     finished += buf.terminated.iter().chain(&buf.truncated).filter(|&&d| d).count();
//! }
//! assert!(finished > 0);
//! ```
//!
//! # Actions and buffers
//!
//! An action is a house index `0..houses` of the player to move (any integer type, see
//! [`BatchAction`]); [`Batch::action_dim`] is the number of houses. The buffers are board-major;
//! their lengths are in the table of [`StepOutput`]. Observation layouts (`compact`, `onehot:L`,
//! `thermometer:L`) are described in [`observation`]; [`Batch::obs_dim`] gives the size.
//!
//! Before any board moves, every action is checked: an action out of `0..houses` (or negative)
//! is always an error; an in-range illegal action is an error naming the board, the action and
//! the reason ([`IllegalActionPolicy::Error`], the default) or a loss for the player who chose
//! it ([`IllegalActionPolicy::Loss`]). On error no board has changed.
//!
//! # Rewards
//!
//! `rewards` holds one value per player (seat order) and board; it is zero except on the step
//! that ends an episode by the rules, where it is each player's return: +1 for the sole winner,
//! 0 for players tied for first, -1 for the others (as [`crate::State::returns`]). A truncated
//! episode (the rules' `max_plies`) gets zeros. An illegal action under
//! [`IllegalActionPolicy::Loss`] gives the offender -1 and everyone else 0.
//!
//! - Self-play ([`Opponent::SelfPlay`]): each step plays the action for the player to move
//!   (`to_move`); `rewards[b × players + p]` is from player `p`'s point of view.
//! - Built-in opponent ([`Opponent::Random`], [`Opponent::Capture`], [`Opponent::Greedy`],
//!   [`Opponent::Policy`]): the caller plays [`BatchConfig::learner_seat`]; after its action
//!   the opponent plays every other seat until the learner is to move again or the game ends, and the rewards of that whole
//!   exchange are reported. The learner's reward is `rewards[b × players + learner_seat]`.
//!   Observations then always show the learner to move (except final observations).
//!
//! [`StepOutput::reward`] holds the caller's reward, one per board, so that a single-agent
//! learner reads it directly: the learner seat's against an opponent, and in self-play the
//! reward of the seat that chose the step's action (the seat to move before the step). Every
//! binding reports this same value.
//!
//! # Reset modes
//!
//! Exactly Gymnasium 1.x's `AutoresetMode` ([`ResetMode`]):
//!
//! - `NextStep` (default): the step that ends an episode returns the final observation, the
//!   rewards and a set `terminated` or `truncated` flag, with a mask of all ones: the next step
//!   ignores that board's action (any house is accepted, so a sampler never sees an empty
//!   mask), starts a new episode and returns its first observation with zero rewards and both
//!   flags false.
//! - `SameStep`: the step that ends an episode returns the rewards and flags of the ended
//!   episode together with the first observation and mask of the next; the final observation
//!   goes to [`StepOutput::final_obs`] (when given).
//! - `Disabled`: the step that ends an episode returns the final observation and a zero mask;
//!   the board stays over and stepping it is an error until [`Batch::reset_boards`],
//!   [`Batch::reset_where`] or [`Batch::reset`] starts a new episode.
//!
//! Episode statistics (`episode_length`: caller steps; `episode_scores`: final stores) are
//! written on the step that ends the episode and are zero elsewhere. A reset writes the
//! observations, masks and seats of the boards it resets, and zeroes their rewards, flags and
//! statistics. Every reset starts from the rules' start position (a random first player when
//! the rules draw one), then plays the random [`Opening`] plies, then, with a built-in opponent,
//! its moves until the learner's seat is to move. Should the opponent end the game before the
//! learner's first move, the reset is drawn again (up to 64 times; [`Batch::new`] refuses rules
//! where that keeps happening; if it still happens later, the board's next step reports the
//! episode as over whatever its action).
//!
//! # Threads
//!
//! With `threads` above 1 the batch starts `threads - 1` helper threads, and each step is cut
//! into pieces of at least 256 boards (one per thread, at most 32) shared between the calling thread
//! and the helpers; smaller batches, and every batch with `threads = 1`, step on the calling
//! thread alone. Between steps the helpers spin for 200 µs before they sleep, so that stepping
//! in a loop never waits for a thread to wake: expect them to use a core while you step.
//!
//! # Reproducibility
//!
//! Board `i` draws every random number (first player, opening, opponent moves) from its own
//! ChaCha8 stream ([`board_rng`]`(seed, i)`), so outputs are bit-identical for any thread count
//! and any batch split. [`Batch::reset`] with `Some(seed)` re-seeds every stream;
//! [`Batch::snapshot`] / [`Batch::restore`] capture and restore everything, random streams
//! included.

mod buffers;
mod config;
mod kernel;
mod lanes;
pub mod observation;
mod opponent;
mod repetition;
mod rng;
mod snapshot;
mod sync;
#[cfg(not(loom))]
mod team;
/// The thread team, public only to the loom model test (`tests/loom_team.rs`, `--cfg loom`).
#[cfg(loom)]
#[doc(hidden)]
pub mod team;

pub use buffers::{BatchAction, StepBuffers, StepOutput};
pub use config::{BatchConfig, IllegalActionPolicy, Opening, ResetMode, MAX_BOARDS, MAX_THREADS};
pub use observation::{
    encode_state, input_scale, ActionSpec, ObsDtype, ObsEncoding, ObsScale, ObsSpec, ObsValue,
};
pub use opponent::{League, Opponent, OpponentPolicy};
pub(crate) use rng::splitmix;
pub use rng::{board_rng, derive_seed, RngSnapshot};
pub use snapshot::BatchSnapshot;
pub use team::threads_or_cores;

use kernel::{Ctx, IGNORE, KEEP, LOSS, RESET};
use lanes::{Boards, Lanes};
use repetition::Repetitions;
use snapshot::BoardSnapshot;
use team::{Team, MAX_PIECES};

use crate::error::{AwaleError, Result};
use crate::rules::Rules;
use crate::state::State;

use std::sync::atomic::{AtomicUsize, Ordering};

/// Fewest boards worth handing to another thread (about 10 µs of work): smaller batches step
/// on the calling thread.
const MIN_GRAIN: usize = 256;

/// `N` boards stepped together (see the [module docs](self) for the conventions).
pub struct Batch {
    config: BatchConfig,
    obs_dim: usize,
    /// [`input_scale`] under [`ObsScale::Network`], else empty.
    scale: Vec<f32>,
    team: Option<Team>,
    boards: Boards,
    codes: Vec<u8>,
}

impl std::fmt::Debug for Batch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Batch")
            .field("config", &self.config)
            .field("obs_dim", &self.obs_dim)
            .field("threads", &self.threads())
            .finish_non_exhaustive()
    }
}

impl Batch {
    /// Builds a batch and starts an episode on every board (drawing from the seed's streams).
    ///
    /// Fails with [`AwaleError::BadBatchInput`] (or the rules' own error) when the
    /// configuration is invalid, the helper threads cannot start, or, with a built-in opponent,
    /// the rules end a game before the learner's first move.
    pub fn new(config: BatchConfig) -> Result<Batch> {
        config.validate()?;
        let n = config.num_boards;
        let threads = config.resolved_threads();
        let team = if threads > 1 {
            Some(Team::new(threads).map_err(|e| {
                AwaleError::BadBatchInput(format!("cannot start {threads} worker threads: {e}"))
            })?)
        } else {
            None
        };
        let rules = config.rules;
        let start = State::initial(&rules, 0);
        let boards = Boards {
            states: vec![start; n],
            reps: Repetitions::new(&rules, n),
            rngs: (0..n).map(|i| board_rng(config.seed, i)).collect(),
            masks: vec![0; n],
            done: vec![false; n],
            lengths: vec![0; n],
            members: vec![0; n],
        };
        let scale = match config.obs_scale {
            ObsScale::Raw => Vec::new(),
            ObsScale::Network => input_scale(&rules, config.obs),
        };
        let mut batch = Batch {
            obs_dim: config.obs.dim(&rules),
            scale,
            config,
            team,
            boards,
            codes: vec![RESET; n],
        };
        let mut scratch = StepBuffers::<f32>::for_batch(&batch);
        batch.reset(None, &mut scratch.output())?;
        if let Some(i) = batch.boards.states.iter().position(|s| s.is_over()) {
            return Err(AwaleError::BadBatchInput(format!(
                "board {i}: under {rules} the game ended before the learner's first move in \
                 every try; these rules leave seat {} no game to play",
                batch.config.learner_seat
            )));
        }
        Ok(batch)
    }

    /// The configuration (its `seed` is the last one given to [`Batch::reset`]).
    pub fn config(&self) -> &BatchConfig {
        &self.config
    }

    /// The rules every board plays.
    pub fn rules(&self) -> &Rules {
        &self.config.rules
    }

    /// Number of boards `N`.
    pub fn num_boards(&self) -> usize {
        self.config.num_boards
    }

    /// Observation values per board.
    pub fn obs_dim(&self) -> usize {
        self.obs_dim
    }

    /// Actions per board: the number of houses per player ([`ActionSpec::n`]).
    pub fn action_dim(&self) -> usize {
        self.action_spec().n
    }

    /// One board's observation space when the buffers hold `dtype` (an error when they cannot
    /// hold this batch's scale): shape, element type and every value's bounds.
    pub fn obs_spec(&self, dtype: ObsDtype) -> Result<ObsSpec> {
        self.config.obs_spec(dtype)
    }

    /// One board's action space.
    pub fn action_spec(&self) -> ActionSpec {
        ActionSpec::new(&self.config.rules)
    }

    /// Players per game (the reward and score width).
    pub fn players(&self) -> usize {
        self.config.rules.players as usize
    }

    /// Worker threads in use.
    pub fn threads(&self) -> usize {
        self.team.as_ref().map_or(1, Team::threads)
    }

    /// The seat the caller plays against a built-in opponent; `None` in self-play.
    pub fn learner_seat(&self) -> Option<usize> {
        (!self.config.opponent.is_self_play()).then_some(self.config.learner_seat as usize)
    }

    /// Board `i`'s current position.
    pub fn state(&self, i: usize) -> Option<&State> {
        self.boards.states.get(i)
    }

    /// Every board's current position.
    pub fn states(&self) -> &[State] {
        &self.boards.states
    }

    /// For each board: its episode ended and it waits for a reset (next-step or disabled modes).
    pub fn done(&self) -> &[bool] {
        &self.boards.done
    }

    fn check_output<O: ObsValue>(&self, out: &StepOutput<'_, O>) -> Result<()> {
        self.config.obs_scale.check_dtype(O::DTYPE)?;
        out.check(
            self.num_boards(),
            self.obs_dim,
            self.action_dim(),
            self.players(),
        )
    }

    /// How many pieces a job on `n` boards is cut into (1: the calling thread does it all): one
    /// per thread (finer pieces, stolen back and forth, moved boards between the cores' caches
    /// and measured slower), none smaller than [`MIN_GRAIN`] boards.
    fn pieces(&self, n: usize) -> usize {
        self.team.as_ref().map_or(1, |team| {
            (n / MIN_GRAIN).min(team.threads()).clamp(1, MAX_PIECES)
        })
    }

    /// Runs `work` over every board, with the helper threads when there are any.
    fn run<O: ObsValue>(&mut self, out: &mut StepOutput<'_, O>, work: fn(&Ctx<'_>, Lanes<'_, O>)) {
        let ctx = make_ctx(&self.config, &self.scale);
        let (od, h, p) = (
            self.obs_dim,
            self.config.rules.houses as usize,
            self.config.rules.players as usize,
        );
        let k = self.pieces(self.num_boards());
        let lanes = Lanes::new(&mut self.boards, &self.codes, out, od, h, p);
        match &mut self.team {
            Some(team) if k > 1 => {
                team.run_pieces(lanes.split_even(k), &|l| work(&ctx, l));
            }
            _ => work(&ctx, lanes),
        }
    }

    /// Plays one action per board and writes the results into `out` (see the
    /// [module docs](self) for rewards, flags and resets).
    ///
    /// Every action and buffer is checked first; on error nothing has changed. Errors name the
    /// first bad board: an action out of `0..houses`, an illegal move (under
    /// [`IllegalActionPolicy::Error`]), or, with [`ResetMode::Disabled`], a board whose episode
    /// is over.
    ///
    /// ```
    /// use awale::batch::{Batch, BatchConfig, StepBuffers};
    /// use awale::Rules;
    /// let mut batch = Batch::new(BatchConfig::new(Rules::abapa(), 2)).unwrap();
    /// let mut buf = StepBuffers::<u8>::for_batch(&batch);
    /// batch.step(&[2i64, 5], &mut buf.output()).unwrap();
    /// assert_eq!(buf.to_move, [1, 1]);
    /// assert_eq!(&buf.obs_of(0)[6..12], &[4, 4, 0, 5, 5, 5]); // the mover's row comes first
    /// let err = batch.step(&[0i64, 9], &mut buf.output()).unwrap_err();
    /// assert!(err.to_string().contains("board 1: action 9"));
    /// ```
    pub fn step<A: BatchAction, O: ObsValue>(
        &mut self,
        actions: &[A],
        out: &mut StepOutput<'_, O>,
    ) -> Result<()> {
        self.check_output(out)?;
        self.decode_actions(actions)?;
        self.run(out, |ctx, lanes| ctx.step_lanes(lanes));
        Ok(())
    }

    /// Checks `actions` and turns them into per-board codes, without changing any board. Large
    /// batches are checked in parallel; the error names the first bad board either way.
    fn decode_actions<A: BatchAction>(&mut self, actions: &[A]) -> Result<()> {
        let n = self.num_boards();
        if actions.len() != n {
            return Err(AwaleError::BadBatchInput(format!(
                "got {} actions for {n} boards",
                actions.len()
            )));
        }
        let d = Decoder {
            houses: self.action_dim(),
            loss: self.config.illegal == IllegalActionPolicy::Loss,
            disabled: self.config.reset_mode == ResetMode::Disabled,
        };
        let k = self.pieces(n);
        let b = &self.boards;
        let first_bad = match &mut self.team {
            Some(team) if k > 1 => {
                let size = n.div_ceil(k);
                let first = AtomicUsize::new(usize::MAX);
                let chunks = self
                    .codes
                    .chunks_mut(size)
                    .zip(actions.chunks(size))
                    .zip(b.masks.chunks(size).zip(b.done.chunks(size)))
                    .enumerate();
                team.run_pieces(chunks, &|(k, ((c, a), (m, d_)))| {
                    if let Some(i) = d.decode(c, a, m, d_) {
                        first.fetch_min(k * size + i, Ordering::Relaxed);
                    }
                });
                Some(first.into_inner()).filter(|&i| i != usize::MAX)
            }
            _ => d.decode(&mut self.codes, actions, &b.masks, &b.done),
        };
        match first_bad {
            None => Ok(()),
            Some(i) => Err(self.explain(i, actions[i], &d)),
        }
    }

    /// Why board `i`'s action was refused by [`Decoder::decode`].
    fn explain<A: BatchAction>(&self, i: usize, a: A, d: &Decoder) -> AwaleError {
        let b = &self.boards;
        let houses = d.houses;
        if b.masks[i] == 0 {
            return AwaleError::EpisodeOver { board: i };
        }
        let reason = match a.house() {
            Some(h) if h < houses => {
                let mut probe = b.states[i];
                match probe.apply(&self.config.rules, h) {
                    Err(AwaleError::IllegalMove { reason, .. }) => {
                        format!("is not legal: {reason}")
                    }
                    Err(e) => format!("is not legal: {e}"),
                    Ok(_) => "is not legal here".to_string(),
                }
            }
            _ => format!("is out of range 0..{}", houses - 1),
        };
        AwaleError::IllegalAction {
            board: i,
            action: a.wide(),
            reason,
        }
    }

    /// Starts a new episode on every board and writes their first observations. With
    /// `Some(seed)`, every board's random stream is re-seeded first (board `i` gets
    /// [`board_rng`]`(seed, i)`), which makes the batch identical to a new one built with that
    /// seed; with `None` the streams continue.
    ///
    /// ```
    /// use awale::batch::{Batch, BatchConfig, StepBuffers};
    /// use awale::Rules;
    /// let cfg = BatchConfig::new("oware3".parse::<Rules>().unwrap(), 3);
    /// let mut a = Batch::new(cfg.clone().with_seed(5)).unwrap();
    /// let mut b = Batch::new(cfg).unwrap();
    /// let mut buf = StepBuffers::<f32>::for_batch(&b);
    /// b.reset(Some(5), &mut buf.output()).unwrap();
    /// assert_eq!(a.snapshot(), b.snapshot());
    /// ```
    pub fn reset<O: ObsValue>(
        &mut self,
        seed: Option<u64>,
        out: &mut StepOutput<'_, O>,
    ) -> Result<()> {
        self.check_output(out)?;
        if let Some(seed) = seed {
            self.config.seed = seed;
            for (i, rng) in self.boards.rngs.iter_mut().enumerate() {
                *rng = board_rng(seed, i);
            }
        }
        self.codes.fill(RESET);
        self.run(out, |ctx, lanes| ctx.reset_lanes(lanes));
        Ok(())
    }

    /// Starts a new episode on the listed boards only (a partial reset, e.g. for
    /// [`ResetMode::Disabled`]); their rows of `out` are written, other rows are left as they
    /// are. A board listed twice is reset once. An index out of range is an error and resets
    /// nothing.
    pub fn reset_boards<O: ObsValue>(
        &mut self,
        indices: &[usize],
        out: &mut StepOutput<'_, O>,
    ) -> Result<()> {
        self.check_output(out)?;
        let n = self.num_boards();
        if let Some(&i) = indices.iter().find(|&&i| i >= n) {
            return Err(AwaleError::BadBatchInput(format!(
                "cannot reset board {i}: the batch has boards 0..{}",
                n - 1
            )));
        }
        self.codes.fill(KEEP);
        for &i in indices {
            self.codes[i] = RESET;
        }
        self.run(out, |ctx, lanes| ctx.reset_lanes(lanes));
        Ok(())
    }

    /// Starts a new episode on the boards where `which` is true (Gymnasium's `reset_mask`);
    /// other rows of `out` are left as they are.
    pub fn reset_where<O: ObsValue>(
        &mut self,
        which: &[bool],
        out: &mut StepOutput<'_, O>,
    ) -> Result<()> {
        self.check_output(out)?;
        if which.len() != self.num_boards() {
            return Err(AwaleError::BadBatchInput(format!(
                "reset mask has {} values for {} boards",
                which.len(),
                self.num_boards()
            )));
        }
        for (c, &w) in self.codes.iter_mut().zip(which) {
            *c = if w { RESET } else { KEEP };
        }
        self.run(out, |ctx, lanes| ctx.reset_lanes(lanes));
        Ok(())
    }

    /// Writes the current observation, mask and seat to move of every board (e.g. after
    /// [`Batch::restore`]); the other buffers of `out` (rewards and the caller's `reward`
    /// included) are left as they are.
    pub fn observe<O: ObsValue>(&self, out: &mut StepOutput<'_, O>) -> Result<()> {
        self.check_output(out)?;
        let (od, h) = (self.obs_dim, self.action_dim());
        let ctx = make_ctx(&self.config, &self.scale);
        for (i, st) in self.boards.states.iter().enumerate() {
            ctx.write_obs(st, &mut out.obs[i * od..(i + 1) * od]);
            let bits = if self.boards.done[i] && self.config.reset_mode == ResetMode::NextStep {
                u16::MAX // the next step ignores the action: any house is accepted
            } else {
                self.boards.masks[i]
            };
            for (k, m) in out.mask[i * h..(i + 1) * h].iter_mut().enumerate() {
                *m = ((bits >> k) & 1) as u8;
            }
            out.to_move[i] = st.to_move() as u8;
        }
        Ok(())
    }

    /// The league member (an index into [`League::members`]) each board's opponent is in its
    /// current episode; all 0 when the opponent is not a league.
    pub fn opponent_members(&self) -> &[u8] {
        &self.boards.members
    }

    /// Captures every board (position, repetition history, random stream, reset flag, episode
    /// length, league member).
    pub fn snapshot(&self) -> BatchSnapshot {
        let b = &self.boards;
        BatchSnapshot {
            rules: self.config.rules,
            boards: (0..self.num_boards())
                .map(|i| BoardSnapshot {
                    state: b.states[i],
                    history: BoardSnapshot::pack_keys(&b.reps.keys(i)),
                    rng: RngSnapshot::of(&b.rngs[i]),
                    done: b.done[i],
                    length: b.lengths[i],
                    member: b.members[i],
                })
                .collect(),
        }
    }

    /// Puts every board back as `snap` captured it; the batch then replays exactly what
    /// followed the snapshot. The snapshot must come from a batch with the same rules and
    /// number of boards (and should come from the same configuration); otherwise, or if it
    /// holds an impossible position, it is refused and nothing changes.
    pub fn restore(&mut self, snap: &BatchSnapshot) -> Result<()> {
        snap.check(&self.config.rules, self.num_boards())?;
        let rules = self.config.rules;
        let b = &mut self.boards;
        for (i, s) in snap.boards.iter().enumerate() {
            b.states[i] = s.state;
            b.reps.set_keys(i, s.keys());
            b.rngs[i] = s.rng.restore();
            b.done[i] = s.done;
            b.lengths[i] = s.length;
            b.members[i] = s.member;
            b.masks[i] = if s.done {
                0
            } else {
                s.state.legal_mask(&rules)
            };
        }
        Ok(())
    }
}

/// The read-only settings of the kernel, from the configuration.
fn make_ctx<'a>(config: &'a BatchConfig, scale: &'a [f32]) -> Ctx<'a> {
    Ctx {
        rules: config.rules,
        enc: config.obs,
        scale,
        mode: config.reset_mode,
        opponent: &config.opponent,
        self_play: config.opponent.is_self_play(),
        learner: if config.opponent.is_self_play() {
            usize::MAX
        } else {
            config.learner_seat as usize
        },
        opening: config.opening,
        league: config.opponent.league_size(),
    }
}

/// The action check of [`Batch::step`].
struct Decoder {
    houses: usize,
    loss: bool,
    disabled: bool,
}

impl Decoder {
    /// Writes the code of each board of a range (a house, [`IGNORE`] or [`LOSS`]); returns the
    /// index (in the range) of the first refused action, if any.
    #[inline]
    fn decode<A: BatchAction>(
        &self,
        codes: &mut [u8],
        actions: &[A],
        masks: &[u16],
        done: &[bool],
    ) -> Option<usize> {
        for (i, ((code, &a), (&mask, &done))) in codes
            .iter_mut()
            .zip(actions)
            .zip(masks.iter().zip(done))
            .enumerate()
        {
            if mask == 0 {
                if done && self.disabled {
                    return Some(i);
                }
                *code = IGNORE;
                continue;
            }
            match a.house() {
                Some(h) if h < self.houses && mask & (1 << h) != 0 => *code = h as u8,
                Some(h) if h < self.houses && self.loss => *code = LOSS,
                _ => return Some(i),
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_can_move_between_threads() {
        // The Python bindings hand a batch to whichever thread holds the GIL.
        fn send_sync<T: Send + Sync>() {}
        send_sync::<Batch>();
        send_sync::<BatchConfig>();
        send_sync::<BatchSnapshot>();
    }

    #[test]
    fn debug_output_names_the_configuration() {
        let batch = Batch::new(BatchConfig::new(Rules::wari(), 3)).unwrap();
        let text = format!("{batch:?}");
        assert!(text.contains("num_boards: 3"), "{text}");
        assert_eq!(batch.threads(), 1);
        assert_eq!(batch.learner_seat(), None);
    }
}
