//! An AlphaZero-family self-play trainer on [burn](https://burn.dev) (cargo feature `train`).
//!
//! The search, self-play, replay data, configuration and checkpoints do not need burn: they are in
//! [`crate::az`] (and the search in [`crate::search`]). The network itself, its files, the shipped
//! baselines and the `nn` agent that plays with it are in [`crate::network`]. This module holds
//! the training:
//!
//! - [`loss`]: the loss terms of the heads and their targets ([`loss::LossStats`]).
//! - [`trainer`]: [`Trainer`], a run in memory (network, optimiser, replay buffer, self-play
//!   games) and its gradient step; [`distributed`]: its iterations with remote self-play.
//! - [`evaluation`]: games against the built-in agents, Elo (against the opponents' reference
//!   ratings, [`crate::ratings::calibration`]) and endgame accuracy.
//! - [`metrics`]: what an iteration did and the scalars logged of it.
//! - [`run`]: the loop ([`run::run`], [`run::run_with`]: parallel self-play,
//!   gradient steps, evaluation, checkpoints, logs).
//! - [`worker`]: a self-play worker of a distributed run ([`crate::az::remote`]): plays some
//!   shards with the weights the learner sends.
//! - [`logging`]: TensorBoard event files.
//!
//! The backend is burn's pure-Rust CPU backend (flex) with autodiff; the cargo features
//! `train-wgpu` / `train-cuda` switch [`train_device`] (and [`crate::network::inference_device`])
//! to a GPU. See `docs/training.md`.

pub mod distributed;
pub mod evaluation;
pub mod logging;
pub mod loss;
pub mod metrics;
pub mod run;
pub mod trainer;
pub mod worker;

// The burn-free pieces live in `crate::az` (and the search in `crate::search`); the types a
// trainer's user needs are named here too.
pub use crate::az::{Checkpoint, CheckpointError, TrainConfig};
pub use crate::search::{
    Evaluation, GuidedSearchResult, LeafEvaluator, Search, SearchKind, SearchSettings,
};
pub use run::{RunOptions, RunSummary};
pub use trainer::Trainer;

/// The device training runs on: [`crate::network::inference_device`] (burn's flex CPU backend by
/// default; the first CUDA GPU under the cargo feature `train-cuda`, the default wgpu adapter
/// under `train-wgpu`) with autodiff.
pub fn train_device() -> burn::tensor::Device {
    crate::network::inference_device().autodiff()
}

pub use crate::az::{TrainError, TrainResult};
