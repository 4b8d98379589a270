//! The policy/value network: an MLP trunk with three heads.
//!
//! Input: the observation of the position under the configured [`ObsEncoding`] (seen from the
//! player to move), with seed counts scaled to about 1 (pit counts divided by twice the seeds per
//! house, stores by the seeds per player at the start). Outputs, for a batch of `B` positions:
//!
//! - `policy`: `[B, houses]` logits over the mover's houses (illegal ones are masked by callers);
//! - `value`: `[B, V]` in (-1, 1) by tanh: `V = 1` in 2-player games (the mover's expected
//!   result), `V = players` in the multi-player game (each player's expected result, mover first);
//! - `score`: `[B, 1]` in (-1, 1): the mover's final store minus the others' mean, over the seeds
//!   in play (an auxiliary target that speeds up learning).
//!
//! The network of a run is built here only: [`PolicyValueNet::from_config`] (fresh weights from
//! the config's seed) and [`load_model`] (weights from a checkpoint). The heads are declared here
//! ([`PolicyValueNet`], [`NetOutput`]); their targets and loss terms are in
//! [`crate::train::loss`]. A new head touches these two files.

use burn::module::{Module, Param, ParamId};
use burn::nn::Linear;
use burn::tensor::activation::{relu, tanh};
use burn::tensor::{Device, Tensor, TensorData};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::agents::derive_seed;
pub use crate::az::network::{encode_batch, input_scale, value_outputs};
use crate::az::{TrainConfig, TrainError, TrainResult};
use crate::batch::ObsEncoding;
use crate::rules::Rules;

/// What the run's seed is mixed with to seed the initial weights
/// ([`PolicyValueNet::from_config`]).
const INIT_SEED_TAG: u64 = 0x6e6e;

/// The network (a burn [`Module`]).
#[derive(Module, Debug)]
pub struct PolicyValueNet {
    trunk: Vec<Linear>,
    policy: Linear,
    value: Linear,
    score: Linear,
}

/// The three outputs of a forward pass.
#[derive(Debug, Clone)]
pub struct NetOutput {
    /// `[B, houses]` policy logits.
    pub policy: Tensor<2>,
    /// `[B, V]` values in (-1, 1).
    pub value: Tensor<2>,
    /// `[B, 1]` score difference in (-1, 1).
    pub score: Tensor<2>,
}

/// The sizes of a network for a game and encoding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetShape {
    /// Input features.
    pub input: usize,
    /// Hidden widths.
    pub hidden: Vec<usize>,
    /// Policy outputs (houses).
    pub actions: usize,
    /// Value outputs (1 in 2-player games, else one per player).
    pub values: usize,
}

impl NetShape {
    /// The shape for `rules` under `enc` with hidden widths `hidden`.
    pub fn new(rules: &Rules, enc: ObsEncoding, hidden: &[usize]) -> NetShape {
        NetShape {
            input: enc.dim(rules),
            hidden: hidden.to_vec(),
            actions: rules.houses as usize,
            values: value_outputs(rules),
        }
    }
}

fn param<const D: usize>(ids: &mut u64, t: Tensor<D>) -> Param<Tensor<D>> {
    let mut p = Param::from_tensor(t);
    p.id = ParamId::from(crate::agents::derive_seed(0x7061_7261_6d73, *ids));
    *ids += 1;
    p
}

fn linear(
    rng: &mut ChaCha8Rng,
    ids: &mut u64,
    d_in: usize,
    d_out: usize,
    gain: f32,
    device: &Device,
) -> Linear {
    let k = gain * (1.0 / d_in as f32).sqrt();
    let w: Vec<f32> = (0..d_in * d_out).map(|_| rng.random_range(-k..k)).collect();
    let weight = param(
        ids,
        Tensor::<2>::from_data(TensorData::new(w, [d_in, d_out]), device),
    );
    let bias = Tensor::<1>::from_data(TensorData::new(vec![0f32; d_out], [d_out]), device);
    Linear {
        weight,
        bias: Some(param(ids, bias)),
    }
}

impl PolicyValueNet {
    /// The network of `config` (its rules, observation and hidden widths) on `device`, freshly
    /// initialised from the config's seed: the network a run starts with.
    pub fn from_config(config: &TrainConfig, device: &Device) -> TrainResult<PolicyValueNet> {
        let rules = config.rules()?;
        let shape = NetShape::new(&rules, config.observation()?, &config.network.hidden);
        let seed = derive_seed(config.seed, INIT_SEED_TAG);
        Ok(PolicyValueNet::new(&shape, seed, device))
    }

    /// A freshly initialised network on `device`; the weights are a pure function of `seed`.
    pub fn new(shape: &NetShape, seed: u64, device: &Device) -> PolicyValueNet {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut ids = 0u64;
        let mut trunk = Vec::new();
        let mut d = shape.input;
        for &h in &shape.hidden {
            trunk.push(linear(&mut rng, &mut ids, d, h, 6f32.sqrt(), device));
            d = h;
        }
        PolicyValueNet {
            trunk,
            policy: linear(&mut rng, &mut ids, d, shape.actions, 0.5, device),
            value: linear(&mut rng, &mut ids, d, shape.values, 0.5, device),
            score: linear(&mut rng, &mut ids, d, 1, 0.5, device),
        }
    }

    /// The forward pass on a `[B, input]` batch.
    pub fn forward(&self, input: Tensor<2>) -> NetOutput {
        let mut x = input;
        for layer in &self.trunk {
            x = relu(layer.forward(x));
        }
        NetOutput {
            policy: self.policy.forward(x.clone()),
            value: tanh(self.value.forward(x.clone())),
            score: tanh(self.score.forward(x)),
        }
    }

    /// Every parameter's values, in a fixed order (for tests and fingerprints).
    pub fn param_values(&self) -> Vec<f32> {
        let mut out = Vec::new();
        let layers = self
            .trunk
            .iter()
            .chain([&self.policy, &self.value, &self.score]); // the heads, in the order of `new`
        for l in layers {
            out.extend(
                l.weight
                    .val()
                    .into_data()
                    .try_to_vec::<f32>()
                    .unwrap_or_default(),
            );
            if let Some(b) = &l.bias {
                out.extend(b.val().into_data().try_to_vec::<f32>().unwrap_or_default());
            }
        }
        out
    }
}

impl PolicyValueNet {
    /// Each linear layer's weight (`[d_input, d_output]`, row-major), bias and dims: the trunk's
    /// in order, then the policy, value and score heads (for [`super::dense::DenseNet`]).
    pub(crate) fn layers(&self) -> Vec<(Vec<f32>, Vec<f32>, [usize; 2])> {
        self.trunk
            .iter()
            .chain([&self.policy, &self.value, &self.score])
            .map(|l| {
                let d = l.weight.val().dims();
                let dims = [d[0], d[1]];
                let weight = l
                    .weight
                    .val()
                    .into_data()
                    .try_to_vec::<f32>()
                    .expect("f32 weights");
                let bias = l
                    .bias
                    .as_ref()
                    .map(|b| b.val().into_data().try_to_vec::<f32>().expect("f32 bias"))
                    .unwrap_or_default();
                (weight, bias, dims)
            })
            .collect()
    }
}

/// Builds a network of `config`'s shape on `device` and loads burnpack `bytes` (the weights of a
/// checkpoint or of a learner's message) into it.
pub fn load_model(
    config: &TrainConfig,
    bytes: &[u8],
    device: &Device,
) -> TrainResult<PolicyValueNet> {
    let net = PolicyValueNet::from_config(config, device)?;
    let record =
        burn::store::ModuleRecord::from_bytes(burn::tensor::Bytes::from_bytes_vec(bytes.to_vec()))
            .map_err(|e| TrainError::Model(format!("reading the network: {e}")))?;
    net.try_load_record(record)
        .map_err(|e| TrainError::Model(format!("the network does not fit its config: {e}")))
}
