//! The AlphaZero family without a tensor library: search, self-play, replay data, configuration
//! and checkpoints. Built in every configuration of the crate (no cargo feature); the network is
//! anything that implements [`Network`], so these pieces are tested with a uniform or a
//! hand-written evaluator. The burn model, its optimisation and the `nn` agent are in
//! `awale::train` (cargo feature `train`), which builds on this module.
//!
//! The training configuration ([`TrainConfig`]) and the trainer's error ([`TrainError`]) live
//! here, not in `awale::train`, although they are the trainer's: the pieces that use them without
//! burn need them too: the self-play of a distributed run ([`remote`]), the checkpoint reader,
//! `awale bench selfplay` and the Python package read the config and return these errors in
//! builds without the `train` feature. `awale::train` re-exports them.
//!
//! One module each:
//!
//! - [`config`]: the training configuration ([`TrainConfig`], read from TOML), with the
//!   fingerprint that ties a checkpoint to the settings it was made under, and the search settings
//!   of its `[search]` section (`SearchConfig::settings`).
//! - [`network`]: the [`Network`] trait (a batch of encoded observations in, policy logits and
//!   values out), the input encoding ([`encode_batch`], [`input_scale`]) and [`NetworkEvaluator`],
//!   which turns a network into a [`LeafEvaluator`] of positions.
//! - [`crate::search`] (below this module): MCTS guided by an evaluator, one tree per game, with
//!   leaves of many games evaluated in one batch: Gumbel, PUCT or UCT.
//! - [`selfplay`]: many concurrent self-play games sharded over worker threads, each shard feeding
//!   its own batched evaluator, with playout-cap randomisation and a temperature schedule.
//!   Its byte codec (the games in progress that checkpoints and workers hold) is `selfplay/codec.rs`.
//! - [`selfplay_tables`]: endgame tables in self-play (`selfplay.tablebase`): games end where the
//!   tables take over, with the exact result.
//! - [`machine`]: sizing a run to a machine (`awale train --machine`): the recipe's shape
//!   scaled from its thread count to another machine's, by the rule of docs/training.md.
//! - [`data`]: training samples, the replay buffer and the byte reader and writer of checkpoints.
//! - [`selfplay_bench`]: self-play speed for a network and a thread count (`awale bench selfplay`).
//! - [`remote`]: self-play in other processes (Ray actors): a worker plays some of the run's
//!   shards with the weights it is sent; the learner joins the reports into the local trainer's
//!   positions.
//! - [`checkpoint`]: atomic, checksummed, fingerprinted checkpoint files (the network and the
//!   optimiser are opaque byte records here).
//!
//! ```
//! use awale::search::{Search, SearchSettings, UniformEvaluator};
//! use awale::az::selfplay::play_out;
//! use awale::{Rules, State};
//! let rules = Rules::abapa();
//! let end = play_out(&rules, SearchSettings::default(), &mut UniformEvaluator, State::initial(&rules, 0), 16);
//! assert!(end.is_over());
//! ```

use std::path::Path;

use thiserror::Error;

use crate::error::AwaleError;

pub mod checkpoint;
pub mod config;
pub mod data;
pub mod generations;
pub mod machine;
pub mod network;
pub mod remote;
pub mod selfplay;
pub mod selfplay_bench;
pub mod selfplay_tables;

pub use crate::search::{
    Evaluation, GuidedSearchResult, LeafEvaluator, Search, SearchKind, SearchSettings,
};
pub use checkpoint::Checkpoint;
pub use config::TrainConfig;
pub use network::{encode_batch, input_scale, Network, NetworkEvaluator};
pub use selfplay::{SelfPlay, SelfPlaySettings, SelfPlayStats};

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
    /// A self-play worker's message that the learner cannot use (see [`remote`]).
    #[error("distributed self-play: {0}")]
    Remote(String),
    /// A name that no shipped baseline network has (the message lists the names).
    #[error("{0}")]
    Baseline(String),
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

/// Why a checkpoint was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CheckpointError {
    /// The file does not start with the checkpoint magic.
    #[error("not an awale checkpoint (bad magic bytes)")]
    NotACheckpoint,
    /// A format version this build cannot read.
    #[error(
        "checkpoint format version {found} is not supported (this build reads version {supported})"
    )]
    UnsupportedVersion {
        /// The file's version.
        found: u32,
        /// The version this build reads.
        supported: u32,
    },
    /// The checksum does not match: the file is damaged.
    #[error(
        "checkpoint is corrupt: checksum {computed:08x} does not match the stored {stored:08x}"
    )]
    Checksum {
        /// The stored CRC-32.
        stored: u32,
        /// The CRC-32 of the bytes read.
        computed: u32,
    },
    /// The file ends early.
    #[error("checkpoint is truncated")]
    Truncated,
    /// The checkpoint was made under different settings.
    #[error("checkpoint was made under a different config (fingerprint {checkpoint:016x}: {checkpoint_text}; this config {config:016x}: {config_text})")]
    ConfigMismatch {
        /// The checkpoint's fingerprint.
        checkpoint: u64,
        /// What it was computed from.
        checkpoint_text: String,
        /// The config's fingerprint.
        config: u64,
        /// What it was computed from.
        config_text: String,
    },
    /// A part of the payload cannot be decoded.
    #[error("checkpoint is corrupt: {0}")]
    Corrupt(String),
}

/// Shorthand for results of the trainer.
pub type TrainResult<T> = std::result::Result<T, TrainError>;
