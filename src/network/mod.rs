//! A trained network and what plays with it (cargo feature `train`, burn): the policy/value
//! network, its plain-Rust forward, its files, the networks shipped in the crate and the `nn`
//! agent. Training one is [`crate::train`], which sits above this room and builds on it.
//!
//! - [`model`]: the policy/value network ([`PolicyValueNet`]): an MLP trunk over an observation
//!   encoding of [`crate::batch::ObsEncoding`], a policy head (one logit per house), a value head
//!   (one value, or one per player in the multi-player game) and an auxiliary score-difference
//!   head; [`load_model`] reads one from a checkpoint.
//! - [`net_core`]: [`NetCore`], a trained network ready for inference (an
//!   [`crate::az::Network`]), with its [`PlayDefaults`].
//! - [`dense`]: [`DenseNet`], the network's forward pass in plain Rust, which the `nn` agent
//!   plays with on a CPU.
//! - [`export`]: network files: a network written to safetensors and read back.
//! - [`baseline`]: the networks shipped inside the crate (`nn:baseline=abapa`), with their
//!   manifests.
//! - [`agent`]: [`NnAgent`], a trained network as an [`crate::agents::Agent`] (`nn:path=...`):
//!   its kind [`agent::KIND`], added to a registry by [`register_agents`]; [`NetEvaluator`],
//!   a network as a search's leaf evaluator.
//! - [`device`]: [`inference_device`], where play (and the trainer's self-play) runs.

pub mod agent;
pub mod baseline;
pub mod dense;
pub mod device;
pub mod export;
pub mod model;
pub mod net_core;

pub use agent::{register_agents, registry, NetEvaluator, NnAgent, NnSettings};
pub use dense::DenseNet;
pub use device::inference_device;
pub use model::{load_model, PolicyValueNet};
pub use net_core::{NetCore, PlayDefaults};
