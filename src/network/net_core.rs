//! [`NetCore`]: a trained network ready for inference (the burn network without autodiff,
//! on the inference device) with what is needed to feed it (rules, encoding, input scales),
//! and the [`Network`] the batched searches call. Reading one from a file is
//! [`NetCore::load`] (`src/network/export.rs`, which knows both file formats). A network may carry
//! its [`PlayDefaults`]: how the `nn` agent searches with it unless the spec says otherwise.

use std::sync::OnceLock;

use burn::module::Module;
use burn::tensor::{Device, Tensor, TensorData};
use serde::{Deserialize, Serialize};

use super::dense::DenseNet;
use super::model::{encode_batch, input_scale, PolicyValueNet};
use crate::az::network::{evaluations_from_outputs, Network};
use crate::az::{TrainConfig, TrainResult};
use crate::batch::ObsEncoding;
use crate::rules::Rules;
use crate::search::{Evaluation, SearchKind};
use crate::state::State;

/// How the `nn` agent searches with a network unless its spec says otherwise (each key
/// overridden by the spec's own): a baseline's manifest (`[play]`) and the `play` entry of a
/// safetensors file exported from one. A network without them plays with
/// [`PlayDefaults::DEFAULT_SIMS`] simulations and its training config's `play_kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayDefaults {
    /// Search simulations per move.
    pub sims: u32,
    /// The search rule at play (`gumbel`, `puct` or `uct`).
    pub search: SearchKind,
    /// Whether the search keeps its tree from move to move (PUCT only;
    /// [`crate::search::Search::start_keeping`]); absent, false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reuse_tree: bool,
}

impl PlayDefaults {
    /// The simulations per move of a network that carries no play settings.
    pub const DEFAULT_SIMS: u32 = 64;

    /// The settings in words: `puct search, 384 simulations, the tree kept from move to move`.
    pub fn describe(&self) -> String {
        let kept = if self.reuse_tree {
            ", the tree kept from move to move"
        } else {
            ""
        };
        format!("{} search, {} simulations{kept}", self.search, self.sims)
    }
}

/// A network ready for inference, with what is needed to feed it.
#[derive(Debug, Clone)]
pub struct NetCore {
    /// The network (no autodiff).
    pub net: PolicyValueNet,
    /// The rules it was trained for.
    pub rules: Rules,
    /// Its observation encoding.
    pub encoding: ObsEncoding,
    /// Its input scales.
    pub scale: Vec<f32>,
    /// The device it runs on.
    pub device: Device,
    /// The configuration it was trained under.
    pub config: TrainConfig,
    /// How it plays by default, when its file says ([`PlayDefaults`]; see [`NetCore::play`]).
    pub play_settings: Option<PlayDefaults>,
    /// The forward pass in plain Rust that play uses, made on first use ([`NetCore::dense`]).
    dense: OnceLock<DenseNet>,
}

impl NetCore {
    /// Wraps a network for inference (moved to the inference device, autodiff off).
    pub fn new(net: &PolicyValueNet, config: &TrainConfig) -> TrainResult<NetCore> {
        let rules = config.rules()?;
        let encoding = config.observation()?;
        Ok(NetCore {
            net: net.valid(),
            rules,
            encoding,
            scale: input_scale(&rules, encoding),
            device: super::inference_device(),
            config: config.clone(),
            play_settings: None,
            dense: OnceLock::new(),
        })
    }

    /// The network with play settings `play` (None: none).
    pub fn with_play(mut self, play: Option<PlayDefaults>) -> NetCore {
        self.play_settings = play;
        self
    }

    /// How the `nn` agent searches with this network unless the spec says otherwise: its own
    /// play settings, else [`PlayDefaults::DEFAULT_SIMS`] simulations with its training config's
    /// `play_kind` (else its self-play `kind`).
    pub fn play(&self) -> PlayDefaults {
        self.play_settings.unwrap_or(PlayDefaults {
            sims: PlayDefaults::DEFAULT_SIMS,
            search: self
                .config
                .search
                .play_kind
                .unwrap_or(self.config.search.kind),
            reuse_tree: false,
        })
    }

    /// A freshly initialised network of `config`'s shape (seeded by the config), e.g. to
    /// measure speed before any training.
    pub fn fresh(config: &TrainConfig) -> TrainResult<NetCore> {
        let net = PolicyValueNet::from_config(config, &super::inference_device())?;
        NetCore::new(&net, config)
    }

    /// The network's forward pass in plain Rust ([`DenseNet`]: equal to burn's within float
    /// rounding, several times faster for the one position at a time of a search at play),
    /// copied from the weights on first use. The `nn` agent searches with it.
    pub fn dense(&self) -> &DenseNet {
        self.dense
            .get_or_init(|| DenseNet::new(&self.net, self.rules, self.encoding))
    }

    /// Bytes its parameters hold in memory (32-bit floats), twice: burn's copy and the plain
    /// one play searches with ([`NetCore::dense`]).
    pub fn memory_bytes(&self) -> u64 {
        self.net.num_params() as u64 * 4 * 2
    }

    /// Whether the network plays positions of `rules`: the same game (base rules and player
    /// count); options that do not change the board, such as `max_plies`, may differ.
    pub fn plays(&self, rules: &Rules) -> bool {
        self.rules.base_name() == rules.base_name() && self.rules.players == rules.players
    }

    /// Evaluates a batch of positions (logits and per-player values, absolute seats).
    pub fn evaluate(&self, states: &[State], features: &mut Vec<f32>, out: &mut Vec<Evaluation>) {
        out.clear();
        if states.is_empty() {
            return;
        }
        encode_batch(&self.rules, self.encoding, &self.scale, states, features);
        let (mut logits, mut values) = (Vec::new(), Vec::new());
        self.infer(features, states.len(), &mut logits, &mut values);
        evaluations_from_outputs(&self.rules, states, &logits, &values, out);
    }
}

impl Network for NetCore {
    fn rules(&self) -> Rules {
        self.rules
    }

    fn encoding(&self) -> ObsEncoding {
        self.encoding
    }

    fn infer(&self, features: &[f32], batch: usize, logits: &mut Vec<f32>, values: &mut Vec<f32>) {
        let dim = self.scale.len();
        let x = Tensor::<2>::from_data(
            TensorData::new(features[..batch * dim].to_vec(), [batch, dim]),
            &self.device,
        );
        let y = self.net.forward(x);
        let houses = y.policy.dims()[1];
        // One device-to-host transfer (one synchronisation on a GPU) for both heads.
        let both = Tensor::cat(vec![y.policy, y.value], 1)
            .into_data()
            .try_into_vec::<f32>()
            .expect("the network's outputs are f32");
        let width = both.len() / batch.max(1);
        logits.clear();
        values.clear();
        for row in both.chunks_exact(width) {
            logits.extend_from_slice(&row[..houses]);
            values.extend_from_slice(&row[houses..]);
        }
    }
}
