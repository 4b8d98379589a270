//! Sizing a run to a machine (`awale train --machine`): the rule of docs/training.md ("Sizing a
//! run to a machine"), measured on 2 cores at equal self-play positions.
//!
//! A recipe is written for the machine it was measured on: its `selfplay.threads` self-play
//! threads, each playing `concurrent_games / threads` games at once (one network batch per
//! round). [`scale_to`] resizes the *shape* of the run for another machine and keeps what decides
//! the strength bought by each self-play position:
//!
//! - **games in flight per thread** stay the same on a CPU (each thread's batch); a GPU takes
//!   [`GPU_GAMES_FACTOR`] times more per thread (large batches for the device);
//! - **positions per iteration** grow with the games in flight, so that a game spans as many
//!   network versions as in the recipe (too many games in flight for an iteration's positions
//!   trains on games played by stale networks);
//! - **the batch** grows with the positions, so that each new position is sampled as often
//!   (the replay ratio, `steps × batch / positions`), while the **gradient steps per
//!   iteration** stay the recipe's: at equal positions, bigger batches beat more steps of the
//!   recipe's batch (docs/training.md: 4× the positions per iteration with 4× the steps scored
//!   80.8% against alpha-beta depth 6, with 4× the batch 90.5%), and a big batch is what many
//!   cores or a GPU compute fastest;
//! - the replay buffer and `min_replay` grow with the positions (the buffer holds as many
//!   iterations);
//! - the network, the search, the number of iterations, the learning rate and its schedule and
//!   the evaluation stay the recipe's.
//!
//! A bigger machine then runs as many iterations as the recipe, each `k` times bigger, in about
//! the recipe's time when self-play and gradient steps scale with it.
//!
//! ```
//! use awale::az::machine::{scale_to, Machine};
//! use awale::az::TrainConfig;
//! let mut recipe = TrainConfig::tiny();
//! recipe.selfplay.threads = 2;
//! let big = scale_to(&recipe, "cpu:16".parse::<Machine>().unwrap()).unwrap();
//! assert_eq!(big.selfplay.threads, 16);
//! assert_eq!(big.selfplay.concurrent_games, recipe.selfplay.concurrent_games * 8);
//! assert_eq!(big.selfplay.positions_per_iteration, recipe.selfplay.positions_per_iteration * 8);
//! assert_eq!(big.training.batch_size, recipe.training.batch_size * 8);
//! assert_eq!(big.training.steps_per_iteration, recipe.training.steps_per_iteration);
//! ```

use std::fmt;
use std::str::FromStr;

use super::config::TrainConfig;
use super::{TrainError, TrainResult};

/// Games in flight per self-play thread on a GPU, relative to the recipe's per-thread games
/// (the GPU's batches of 512 leaves beat smaller ones: docs/performance.md, "On a GPU").
pub const GPU_GAMES_FACTOR: usize = 4;

/// Self-play threads of a GPU machine when `gpu` names none (on the 16-core H100 machine, 8
/// threads with large batches beat 16 with small ones).
pub const GPU_THREADS: usize = 8;

/// The most threads a machine may name (a typo such as `cpu:1600` is refused, not obeyed).
pub const MAX_THREADS: usize = 1024;

/// The machine a run is sized for (`--machine`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Machine {
    /// Self-play and gradient steps on `threads` CPU cores.
    Cpu {
        /// CPU cores for self-play and gradient steps.
        threads: usize,
    },
    /// Network inference and gradient steps on a GPU, the search on `threads` CPU threads.
    Gpu {
        /// CPU threads for the search.
        threads: usize,
    },
}

impl Machine {
    /// This machine: every core, and the GPU when the build trains on one (`train-cuda` or
    /// `train-wgpu`).
    pub fn detect() -> Machine {
        if cfg!(any(feature = "train-cuda", feature = "train-wgpu")) {
            Machine::Gpu {
                threads: GPU_THREADS,
            }
        } else {
            Machine::Cpu {
                threads: crate::batch::threads_or_cores(0),
            }
        }
    }

    /// Self-play threads.
    pub fn threads(&self) -> usize {
        match *self {
            Machine::Cpu { threads } | Machine::Gpu { threads } => threads,
        }
    }
}

impl fmt::Display for Machine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Machine::Cpu { threads } => write!(f, "cpu:{threads}"),
            Machine::Gpu { threads } => write!(f, "gpu:{threads}"),
        }
    }
}

impl FromStr for Machine {
    type Err = TrainError;

    /// `auto` (this machine), `cpu` (every core), `cpu:N`, `gpu` ([`GPU_THREADS`] threads) or
    /// `gpu:N`.
    fn from_str(s: &str) -> TrainResult<Machine> {
        let bad = |why: &str| {
            TrainError::Config(format!(
                "--machine '{s}': {why}; expected auto, cpu, cpu:N, gpu or gpu:N (N threads, 1 to {MAX_THREADS})"
            ))
        };
        let (kind, threads) = match s.trim().split_once(':') {
            Some((k, n)) => {
                let n: usize = n.trim().parse().map_err(|_| bad("N is not a number"))?;
                if n == 0 || n > MAX_THREADS {
                    return Err(bad("N out of range"));
                }
                (k.trim(), Some(n))
            }
            None => (s.trim(), None),
        };
        match (kind, threads) {
            ("auto", None) => Ok(Machine::detect()),
            ("cpu", n) => Ok(Machine::Cpu {
                threads: n.unwrap_or_else(|| crate::batch::threads_or_cores(0)),
            }),
            ("gpu", n) => Ok(Machine::Gpu {
                threads: n.unwrap_or(GPU_THREADS),
            }),
            _ => Err(bad("unknown machine")),
        }
    }
}

/// `recipe` resized for `machine` (see the module docs for the rule). The recipe's
/// `selfplay.threads` is the machine it was written for and must be set (not 0). The result
/// validates like any config.
pub fn scale_to(recipe: &TrainConfig, machine: Machine) -> TrainResult<TrainConfig> {
    let base_threads = recipe.selfplay.threads;
    if base_threads == 0 {
        return Err(TrainError::Config(
            "--machine needs a recipe written for a thread count (selfplay.threads = N, not 0): \
             the rule scales from it"
                .into(),
        ));
    }
    recipe.validate()?;
    let per_thread = recipe
        .selfplay
        .concurrent_games
        .div_ceil(base_threads)
        .max(1);
    let (threads, per_thread) = match machine {
        Machine::Cpu { threads } => (threads, per_thread),
        Machine::Gpu { threads } => (threads, per_thread * GPU_GAMES_FACTOR),
    };
    let games = threads * per_thread;
    // k = the machine's games in flight over the recipe's; every size below scales by it.
    let scale = |x: usize| -> usize {
        let v = (x as u128 * games as u128).div_ceil(recipe.selfplay.concurrent_games as u128);
        v.max(1).min(usize::MAX as u128) as usize
    };
    let mut cfg = recipe.clone();
    cfg.selfplay.threads = threads;
    cfg.selfplay.concurrent_games = games;
    cfg.selfplay.positions_per_iteration = scale(recipe.selfplay.positions_per_iteration);
    cfg.training.batch_size = scale(recipe.training.batch_size);
    cfg.training.replay_capacity = scale(recipe.training.replay_capacity);
    cfg.training.min_replay = scale(recipe.training.min_replay);
    cfg.validate()?;
    Ok(cfg)
}

/// The replay ratio of a config: how many times each new position is sampled by the gradient
/// steps, on average (`steps × batch / positions` per iteration).
pub fn replay_ratio(cfg: &TrainConfig) -> f64 {
    (cfg.training.steps_per_iteration * cfg.training.batch_size) as f64
        / cfg.selfplay.positions_per_iteration.max(1) as f64
}

/// Games in flight per new position of an iteration: a game of `L` recorded positions spans
/// about `L × this` iterations, each played with another network.
pub fn games_per_position(cfg: &TrainConfig) -> f64 {
    cfg.selfplay.concurrent_games as f64 / cfg.selfplay.positions_per_iteration.max(1) as f64
}
