//! [`DenseNet`]: the policy/value network's forward pass in plain Rust over `f32` slices, for
//! play on a CPU. The `nn` agent's search asks for one position at a time; burn's CPU backend
//! pays a fixed cost on each of a forward's operations (allocations, dispatch) that costs more
//! than the arithmetic of a few hundred thousand multiply-adds, so a move of 256 simulations
//! spent most of its time there. This copy runs the same layers ([`PolicyValueNet::forward`]:
//! linear and ReLU for the trunk, linear for the policy logits, linear and tanh for the values)
//! over the same weights, read once from the burn network, skipping the inputs that are zero
//! (a one-hot observation is mostly zeros).
//!
//! It is a second copy of the forward pass, allowed because a test holds it equal to burn's:
//! `dense_forward_equals_burn` below compares both on random networks and inputs of every
//! encoding, and on each shipped baseline. The trainer's self-play keeps burn (a run is
//! reproducible on its own backend); only play uses this copy ([`super::NnAgent`]).

use super::model::PolicyValueNet;
use crate::az::network::Network;
use crate::batch::ObsEncoding;
use crate::rules::Rules;

/// One linear layer: `y = x · W + b`, `W` stored as `inputs` rows of `outputs` values (burn's
/// `[d_input, d_output]` layout).
#[derive(Debug, Clone)]
struct Layer {
    weight: Vec<f32>,
    bias: Vec<f32>,
    inputs: usize,
    outputs: usize,
}

impl Layer {
    fn of(weight: Vec<f32>, bias: Vec<f32>, dims: [usize; 2]) -> Layer {
        let [inputs, outputs] = dims;
        debug_assert_eq!(weight.len(), inputs * outputs);
        let bias = if bias.is_empty() {
            vec![0.0; outputs]
        } else {
            bias
        };
        Layer {
            weight,
            bias,
            inputs,
            outputs,
        }
    }

    /// `out = x · W + b` for one row `x` (`out` is overwritten): with 8-lane vectors where the
    /// processor has them (AVX2, asked at run time; std caches the answer), else the
    /// baseline's 4. The sums are the same either way, bit for bit: each output adds its terms
    /// in the same order, and Rust never fuses a multiply and an add on its own.
    fn apply(&self, x: &[f32], out: &mut [f32]) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2 (checked above); `apply_avx2` is `apply_plain`
            // compiled for it.
            unsafe { self.apply_avx2(x, out) };
            return;
        }
        self.apply_plain(x, out);
    }

    /// [`Layer::apply_plain`] compiled with AVX2 enabled, so its loop runs 8 lanes at a time.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn apply_avx2(&self, x: &[f32], out: &mut [f32]) {
        self.apply_plain(x, out);
    }

    /// The loop itself, inlined into each caller so that each compiles it for its own target.
    #[inline(always)]
    fn apply_plain(&self, x: &[f32], out: &mut [f32]) {
        out.copy_from_slice(&self.bias);
        for (i, &xi) in x.iter().enumerate().take(self.inputs) {
            if xi == 0.0 {
                continue;
            }
            let row = &self.weight[i * self.outputs..(i + 1) * self.outputs];
            for (o, &w) in out.iter_mut().zip(row) {
                *o += xi * w;
            }
        }
    }
}

/// The network's forward pass in plain Rust (see the module docs), with the rules and
/// encoding of its [`super::NetCore`]: a [`Network`] the searches call like the burn one.
#[derive(Debug, Clone)]
pub struct DenseNet {
    trunk: Vec<Layer>,
    policy: Layer,
    value: Layer,
    rules: Rules,
    encoding: ObsEncoding,
}

impl DenseNet {
    /// The forward pass of `net` (a network for `rules` under `encoding`), its weights copied
    /// out of burn once.
    pub fn new(net: &PolicyValueNet, rules: Rules, encoding: ObsEncoding) -> DenseNet {
        let layers = net.layers();
        let mut layers: Vec<Layer> = layers
            .into_iter()
            .map(|(w, b, dims)| Layer::of(w, b, dims))
            .collect();
        // `PolicyValueNet::layers`: the trunk, then policy, value and score.
        layers.pop(); // the score head: not asked for at play
        let value = layers.pop().expect("a value head");
        let policy = layers.pop().expect("a policy head");
        DenseNet {
            trunk: layers,
            policy,
            value,
            rules,
            encoding,
        }
    }

    /// The policy logits and values of one row of features (appended to `logits` and
    /// `values`); `rows` are scratch rows for the trunk's activations.
    fn row(
        &self,
        x: &[f32],
        rows: &mut [Vec<f32>; 2],
        logits: &mut Vec<f32>,
        values: &mut Vec<f32>,
    ) {
        // Which scratch row holds the last layer's output (None: the input itself).
        let mut last: Option<usize> = None;
        for (k, layer) in self.trunk.iter().enumerate() {
            let (first, second) = rows.split_at_mut(1);
            let (out, other) = if k % 2 == 0 {
                (&mut first[0], &second[0])
            } else {
                (&mut second[0], &first[0])
            };
            out.resize(layer.outputs, 0.0);
            layer.apply(if last.is_some() { &other[..] } else { x }, out);
            for v in out.iter_mut() {
                *v = v.max(0.0);
            }
            last = Some(k % 2);
        }
        let input: &[f32] = match last {
            Some(i) => &rows[i],
            None => x,
        };
        let start = logits.len();
        logits.resize(start + self.policy.outputs, 0.0);
        self.policy.apply(input, &mut logits[start..]);
        let start = values.len();
        values.resize(start + self.value.outputs, 0.0);
        self.value.apply(input, &mut values[start..]);
        for v in &mut values[start..] {
            *v = v.tanh();
        }
    }
}

impl Network for DenseNet {
    fn rules(&self) -> Rules {
        self.rules
    }

    fn encoding(&self) -> ObsEncoding {
        self.encoding
    }

    fn infer(&self, features: &[f32], batch: usize, logits: &mut Vec<f32>, values: &mut Vec<f32>) {
        logits.clear();
        values.clear();
        if batch == 0 {
            return;
        }
        let dim = features.len() / batch;
        let mut rows = [Vec::new(), Vec::new()];
        for x in features.chunks_exact(dim).take(batch) {
            self.row(x, &mut rows, logits, values);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::az::network::encode_batch;
    use crate::az::TrainConfig;
    use crate::bench::random_positions;
    use crate::state::State;

    /// The largest difference between the two forwards' outputs on `states`.
    fn gap(core: &crate::network::NetCore, states: &[State]) -> f32 {
        let dense = core.dense();
        let mut features = Vec::new();
        encode_batch(
            &core.rules,
            core.encoding,
            &core.scale,
            states,
            &mut features,
        );
        let (mut l1, mut v1, mut l2, mut v2) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        core.infer(&features, states.len(), &mut l1, &mut v1);
        dense.infer(&features, states.len(), &mut l2, &mut v2);
        assert_eq!((l1.len(), v1.len()), (l2.len(), v2.len()));
        l1.iter()
            .zip(&l2)
            .chain(v1.iter().zip(&v2))
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f32::max)
    }

    #[test]
    fn dense_forward_equals_burn() {
        for (rules, obs, hidden) in [
            ("abapa", "onehot:16", vec![64, 32]),
            ("abapa", "thermometer:12", vec![48]),
            ("wari", "compact", vec![40, 24]),
            ("oware3", "onehot:16", vec![32, 32, 16]),
        ] {
            let mut config = TrainConfig {
                rules: rules.into(),
                ..TrainConfig::default()
            };
            config.network.observation = obs.into();
            config.network.hidden = hidden;
            let core = crate::network::NetCore::fresh(&config).unwrap();
            let states = random_positions(&core.rules, 40, 60, 7);
            let gap = gap(&core, &states);
            assert!(gap < 1e-5, "{rules} {obs}: outputs differ by {gap}");
        }
        for baseline in crate::network::baseline::all() {
            let core = baseline.core().unwrap();
            let gap = gap(&core, &random_positions(&core.rules, 64, 60, 11));
            assert!(
                gap < 1e-4,
                "{}: outputs differ by {gap}",
                baseline.manifest.name
            );
        }
    }
}
