//! An AlphaZero-family self-play trainer on [burn](https://burn.dev) (cargo feature `train`).
//!
//! The pieces, one module each:
//!
//! - [`config`]: the training configuration ([`TrainConfig`], read from TOML), with the
//!   fingerprint that ties a checkpoint to the settings it was made under.
//! - [`model`]: the policy/value network ([`PolicyValueNet`]): an MLP trunk over an observation
//!   encoding of [`crate::batch::ObsEncoding`], a policy head (one logit per house), a value head
//!   (one value, or one per player in the multi-player game) and an auxiliary score-difference head.
//! - [`search`]: MCTS guided by a network, one tree per game, with leaves of many games evaluated
//!   in one batch: PUCT with Dirichlet root noise, or Gumbel root search with sequential halving.
//! - [`selfplay`]: many concurrent self-play games feeding one batched network, with playout-cap
//!   randomisation and a temperature schedule.
//! - [`data`]: training samples and the replay buffer.
//! - [`training`]: the loop (self-play, gradient steps, evaluation, checkpoints, logs).
//! - [`checkpoint`]: atomic, checksummed, fingerprinted checkpoints that resume exactly.
//! - [`inference`]: [`NnAgent`], a trained network as an [`crate::agents::Agent`] (`nn:path=...`).
//! - [`logging`]: TensorBoard event files.
//!
//! The backend is burn's pure-Rust CPU backend (flex) with autodiff; the cargo features
//! `train-wgpu` / `train-cuda` switch [`train_device`] to a GPU. See `docs/training.md`.

use std::path::Path;

use thiserror::Error;

use crate::error::AwaleError;

pub mod checkpoint;
pub mod config;
pub mod data;
pub mod inference;
pub mod logging;
pub mod model;
pub mod search;
pub mod selfplay;
pub mod training;

pub use checkpoint::{Checkpoint, CheckpointError};
pub use config::TrainConfig;
pub use inference::NnAgent;
pub use model::PolicyValueNet;
pub use search::{Evaluation, Evaluator, Search, SearchKind, SearchResult, SearchSettings};
pub use training::{RunOptions, RunSummary, Trainer};

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

/// Everything that can go wrong while training or loading a trained network.
#[derive(Debug, Error)]
pub enum TrainError {
    /// A configuration that cannot be parsed or makes no sense.
    #[error("training config: {0}")]
    Config(String),
    /// A file or folder could not be read or written.
    #[error("{path}: {reason}")]
    Io {
        /// The file or folder.
        path: String,
        /// The system's message.
        reason: String,
    },
    /// A checkpoint that cannot be used.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// The network could not be built, saved or loaded.
    #[error("network: {0}")]
    Model(String),
    /// An error of the game engine, agents or tournaments.
    #[error(transparent)]
    Game(#[from] AwaleError),
}

impl TrainError {
    /// An I/O error about `path`.
    pub fn io(path: &Path, err: impl std::fmt::Display) -> TrainError {
        TrainError::Io {
            path: path.display().to_string(),
            reason: err.to_string(),
        }
    }
}

/// Shorthand for results of the trainer.
pub type TrainResult<T> = std::result::Result<T, TrainError>;
