//! An AlphaZero-family self-play trainer on [burn](https://burn.dev) (cargo feature `train`).
//!
//! The search, self-play, replay data, configuration and checkpoints do not need burn: they are in
//! [`crate::az`] (and the search in [`crate::search`]). This module holds what does:
//!
//! - [`baseline`]: the networks shipped inside the crate (`nn:baseline=abapa`), with their
//!   manifests.
//! - [`model`]: the policy/value network ([`PolicyValueNet`]): an MLP trunk over an observation
//!   encoding of [`crate::batch::ObsEncoding`], a policy head (one logit per house), a value head
//!   (one value, or one per player in the multi-player game) and an auxiliary score-difference head.
//! - [`net_core`]: [`NetCore`], a trained network ready for inference (an [`crate::az::Network`]).
//! - [`inference`]: [`NnAgent`], a trained network as an [`crate::agents::Agent`] (`nn:path=...`), registered by
//!   [`register_agents`].
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
//! `train-wgpu` / `train-cuda` switch [`train_device`] to a GPU. See `docs/training.md`.

pub mod baseline;
pub mod dense;
pub mod distributed;
pub mod evaluation;
pub mod export;
pub mod inference;
pub mod logging;
pub mod loss;
pub mod metrics;
pub mod model;
pub mod net_core;
pub mod run;
pub mod trainer;
pub mod worker;

// The burn-free pieces live in `crate::az` (and the search in `crate::search`); the types a
// trainer's user needs are named here too.
pub use crate::az::{Checkpoint, CheckpointError, TrainConfig};
pub use crate::search::{
    Evaluation, GuidedSearchResult, LeafEvaluator, Search, SearchKind, SearchSettings,
};
pub use inference::{register_agents, registry, NnAgent};
pub use model::PolicyValueNet;
pub use net_core::NetCore;
pub use run::{RunOptions, RunSummary};
pub use trainer::Trainer;

/// The device training runs on: burn's flex CPU backend with autodiff by default; the first CUDA
/// GPU under the cargo feature `train-cuda`, the default wgpu adapter under `train-wgpu`.
pub fn train_device() -> burn::tensor::Device {
    #[cfg(feature = "train-cuda")]
    let device = burn::tensor::Device::cuda(0);
    #[cfg(all(feature = "train-wgpu", not(feature = "train-cuda")))]
    let device = burn::tensor::Device::wgpu(Default::default());
    #[cfg(not(any(feature = "train-wgpu", feature = "train-cuda")))]
    let device = burn::tensor::Device::flex();
    device.autodiff()
}

/// The device inference (self-play, agents) runs on: [`train_device`] without autodiff.
pub fn inference_device() -> burn::tensor::Device {
    train_device().without_autodiff()
}

pub use crate::az::{TrainError, TrainResult};
