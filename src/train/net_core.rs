//! [`NetCore`]: a trained network ready for inference (the burn network without autodiff,
//! on the inference device) with what is needed to feed it (rules, encoding, input scales),
//! and the [`Network`] the batched searches call. Reading one from a file is
//! [`NetCore::load`] (`src/train/export.rs`, which knows both file formats).

use burn::module::Module;
use burn::tensor::{Device, Tensor, TensorData};

use super::model::{encode_batch, input_scale, PolicyValueNet};
use super::{TrainConfig, TrainResult};
use crate::az::network::{evaluations_from_outputs, Network};
use crate::batch::ObsEncoding;
use crate::rules::Rules;
use crate::search::Evaluation;
use crate::state::State;

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
        })
    }

    /// A freshly initialised network of `config`'s shape (seeded by the config), e.g. to
    /// measure speed before any training.
    pub fn fresh(config: &TrainConfig) -> TrainResult<NetCore> {
        let net = PolicyValueNet::from_config(config, &super::inference_device())?;
        NetCore::new(&net, config)
    }

    /// Bytes its parameters hold in memory (32-bit floats).
    pub fn memory_bytes(&self) -> u64 {
        self.net.num_params() as u64 * 4
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
