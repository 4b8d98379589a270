//! [`BatchConfig`]: everything that shapes a batch, checked once by [`BatchConfig::validate`],
//! and the types of its settings ([`ResetMode`], [`IllegalActionPolicy`], [`Opening`]). The
//! option table of the Python `Batch` and environments, with the settings only the Python layer
//! uses, is the env spec's (`src/env_spec.rs`).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::observation::{ObsDtype, ObsEncoding, ObsScale, ObsSpec};
use super::opponent::Opponent;
use crate::error::{AwaleError, Result};
use crate::rules::Rules;

/// Most boards one batch may hold.
pub const MAX_BOARDS: usize = 1 << 20;

/// Most worker threads one batch may use.
pub const MAX_THREADS: usize = 256;

/// When a board whose episode ended starts its next one. The three modes are those of
/// Gymnasium 1.x's `AutoresetMode`.
///
/// ```
/// use awale::batch::ResetMode;
/// assert_eq!("same_step".parse::<ResetMode>().unwrap(), ResetMode::SameStep);
/// assert_eq!(ResetMode::default(), ResetMode::NextStep);
/// assert_eq!(ResetMode::Disabled.to_string(), "disabled");
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ResetMode {
    /// `NEXT_STEP`: the step that ends an episode returns its final observation; the board's
    /// next step ignores its action, resets the board and returns the first observation of the
    /// new episode with zero rewards and both flags false.
    #[default]
    NextStep,
    /// `SAME_STEP`: the step that ends an episode resets the board at once and returns the new
    /// episode's first observation, with the final rewards and flags of the ended one; the final
    /// observation is written to [`super::StepOutput::final_obs`].
    SameStep,
    /// `DISABLED`: no automatic reset. A board whose episode ended must be reset with
    /// [`super::Batch::reset_boards`] (or a full reset) before it is stepped again; stepping it
    /// is an error.
    Disabled,
}

impl ResetMode {
    /// The mode's name as accepted by [`str::parse`].
    pub fn name(self) -> &'static str {
        match self {
            ResetMode::NextStep => "next_step",
            ResetMode::SameStep => "same_step",
            ResetMode::Disabled => "disabled",
        }
    }
}

impl fmt::Display for ResetMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ResetMode {
    type Err = AwaleError;

    fn from_str(s: &str) -> Result<ResetMode> {
        match s.trim().to_ascii_lowercase().replace('-', "_").as_str() {
            "next_step" | "next" => Ok(ResetMode::NextStep),
            "same_step" | "same" => Ok(ResetMode::SameStep),
            "disabled" | "none" | "off" => Ok(ResetMode::Disabled),
            _ => Err(AwaleError::BadBatchInput(format!(
                "unknown reset mode '{s}' (known: next_step, same_step, disabled)"
            ))),
        }
    }
}

/// What an in-range action that is not a legal move does.
///
/// ```
/// use awale::batch::IllegalActionPolicy;
/// assert_eq!("loss".parse::<IllegalActionPolicy>().unwrap(), IllegalActionPolicy::Loss);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum IllegalActionPolicy {
    /// The whole step is refused with an error naming the first bad board and its action; no
    /// board is changed.
    #[default]
    Error,
    /// The offender loses at once, as PettingZoo's `TerminateIllegalWrapper` does: the episode
    /// is terminated, the offender's reward is -1 and every other player's 0; the board is left
    /// as it was before the illegal action.
    Loss,
}

impl IllegalActionPolicy {
    /// The policy's name as accepted by [`str::parse`]: `error` or `loss`.
    pub fn name(self) -> &'static str {
        match self {
            IllegalActionPolicy::Error => "error",
            IllegalActionPolicy::Loss => "loss",
        }
    }
}

impl fmt::Display for IllegalActionPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for IllegalActionPolicy {
    type Err = AwaleError;

    fn from_str(s: &str) -> Result<IllegalActionPolicy> {
        match s.trim().to_ascii_lowercase().as_str() {
            "error" => Ok(IllegalActionPolicy::Error),
            "loss" | "lose" => Ok(IllegalActionPolicy::Loss),
            _ => Err(AwaleError::BadBatchInput(format!(
                "unknown illegal-action policy '{s}' (known: error, loss)"
            ))),
        }
    }
}

/// Random opening plies played at every reset, for diversity: a number drawn uniformly from
/// `min_plies..=max_plies`, each ply a uniformly random legal move (either seat). An opening
/// stops early rather than play a ply that would end the game.
///
/// ```
/// use awale::batch::Opening;
/// assert!(Opening::none().is_none());
/// assert_eq!(Opening::plies(4), Opening { min_plies: 4, max_plies: 4 });
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Opening {
    /// Fewest random plies.
    pub min_plies: u32,
    /// Most random plies.
    pub max_plies: u32,
}

impl Opening {
    /// No random opening: every episode starts from the initial position.
    pub fn none() -> Opening {
        Opening::default()
    }

    /// Exactly `n` random plies.
    pub fn plies(n: u32) -> Opening {
        Opening {
            min_plies: n,
            max_plies: n,
        }
    }

    /// Between `min` and `max` random plies (inclusive).
    pub fn between(min: u32, max: u32) -> Opening {
        Opening {
            min_plies: min,
            max_plies: max,
        }
    }

    /// True when no random plies are played.
    pub fn is_none(&self) -> bool {
        self.max_plies == 0
    }
}

/// Everything that shapes a [`super::Batch`]. Build it with [`BatchConfig::new`] and the
/// `with_*` methods (or a struct literal with `..Default::default()`); [`super::Batch::new`]
/// validates it.
///
/// ```
/// use awale::batch::{BatchConfig, ObsEncoding, Opponent, ResetMode};
/// use awale::Rules;
/// let cfg = BatchConfig::new(Rules::abapa(), 1024)
///     .with_threads(2)
///     .with_obs(ObsEncoding::Compact)
///     .with_reset_mode(ResetMode::SameStep)
///     .with_opponent(Opponent::Random)
///     .with_seed(7);
/// cfg.validate().unwrap();
/// assert!(BatchConfig::new(Rules::abapa(), 0).validate().is_err());
/// ```
#[derive(Debug, Clone)]
pub struct BatchConfig {
    /// The rules every board plays.
    pub rules: Rules,
    /// Number of boards (1 to [`MAX_BOARDS`]).
    pub num_boards: usize,
    /// Worker threads: 1 steps on the calling thread, 0 uses one per available core. Outputs do
    /// not depend on it.
    pub threads: usize,
    /// The observation encoding.
    pub obs: ObsEncoding,
    /// Raw observations, or scaled as the trainer's network input (`f32` buffers only).
    pub obs_scale: ObsScale,
    /// When ended episodes restart.
    pub reset_mode: ResetMode,
    /// Who plays the seats the caller does not: nobody ([`Opponent::SelfPlay`]) or a policy.
    pub opponent: Opponent,
    /// With a policy opponent, the seat the caller plays (0-based).
    pub learner_seat: u8,
    /// Random opening plies at each reset.
    pub opening: Opening,
    /// What an illegal (in-range) action does.
    pub illegal: IllegalActionPolicy,
    /// The master seed: board `i` draws from its own ChaCha8 stream `i` of this seed.
    pub seed: u64,
}

impl Default for BatchConfig {
    fn default() -> Self {
        BatchConfig::new(Rules::abapa(), 1)
    }
}

impl BatchConfig {
    /// `num_boards` boards of `rules`, one thread, compact observations, next-step resets,
    /// self-play, no opening, errors on illegal actions, seed 0.
    pub fn new(rules: Rules, num_boards: usize) -> BatchConfig {
        BatchConfig {
            rules,
            num_boards,
            threads: 1,
            obs: ObsEncoding::Compact,
            obs_scale: ObsScale::Raw,
            reset_mode: ResetMode::NextStep,
            opponent: Opponent::SelfPlay,
            learner_seat: 0,
            opening: Opening::none(),
            illegal: IllegalActionPolicy::Error,
            seed: 0,
        }
    }

    /// Sets the number of worker threads (0: one per core).
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// Sets the observation encoding.
    pub fn with_obs(mut self, obs: ObsEncoding) -> Self {
        self.obs = obs;
        self
    }

    /// Sets the reset mode.
    pub fn with_reset_mode(mut self, mode: ResetMode) -> Self {
        self.reset_mode = mode;
        self
    }

    /// Sets the opponent.
    pub fn with_opponent(mut self, opponent: Opponent) -> Self {
        self.opponent = opponent;
        self
    }

    /// Sets the seat the caller plays against a policy opponent.
    pub fn with_learner_seat(mut self, seat: u8) -> Self {
        self.learner_seat = seat;
        self
    }

    /// Sets the random opening.
    pub fn with_opening(mut self, opening: Opening) -> Self {
        self.opening = opening;
        self
    }

    /// Sets what illegal actions do.
    pub fn with_illegal(mut self, illegal: IllegalActionPolicy) -> Self {
        self.illegal = illegal;
        self
    }

    /// Sets the master seed.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The worker-thread count this configuration resolves to (0 becomes the number of cores).
    pub fn resolved_threads(&self) -> usize {
        if self.threads == 0 {
            super::threads_or_cores(0).min(MAX_THREADS)
        } else {
            self.threads
        }
    }

    /// One board's observation space when the buffers hold `dtype`: [`ObsSpec::new`] of these
    /// rules, encoding and scale (an error when `dtype` cannot hold the scale).
    pub fn obs_spec(&self, dtype: ObsDtype) -> Result<ObsSpec> {
        ObsSpec::new(&self.rules, self.obs, self.obs_scale, dtype)
    }

    /// Checks the configuration; every problem gets an [`AwaleError`] that names it.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(AwaleError::BadBatchInput(m));
        self.rules.validate()?;
        if !(1..=MAX_BOARDS).contains(&self.num_boards) {
            return bad(format!(
                "num_boards must be 1 to {MAX_BOARDS}, got {}",
                self.num_boards
            ));
        }
        if self.threads > MAX_THREADS {
            return bad(format!(
                "threads must be 0 (one per core) to {MAX_THREADS}, got {}",
                self.threads
            ));
        }
        self.obs.validate()?;
        if self.opening.min_plies > self.opening.max_plies {
            return bad(format!(
                "opening plies: min {} is above max {}",
                self.opening.min_plies, self.opening.max_plies
            ));
        }
        if !self.opponent.is_self_play() {
            let players = self.rules.players as u32;
            if self.learner_seat as u32 >= players {
                return bad(format!(
                    "learner seat {} does not exist in a {players}-player game",
                    self.learner_seat
                ));
            }
            let max = self.rules.max_plies;
            if max > 0 && max < self.opening.max_plies + players {
                return bad(format!(
                    "max_plies={max} leaves the learner no move after up to {} opening plies and \
                     {} opponent plies",
                    self.opening.max_plies,
                    players - 1
                ));
            }
        }
        Ok(())
    }
}
