//! The network behind a small trait: a batch of encoded observations in, policy logits and values
//! out. [`NetworkEvaluator`] turns any [`Network`] into a [`LeafEvaluator`] of positions (encoding,
//! batching, the mover's values back to absolute seats), so search and self-play never see the
//! tensor library. The burn network implements [`Network`] in `awale::train`; tests use
//! hand-written ones.
//!
//! ```
//! use awale::az::network::{Network, NetworkEvaluator};
//! use awale::search::LeafEvaluator;
//! use awale::batch::ObsEncoding;
//! use awale::{Rules, State};
//!
//! /// Prefers the rightmost house; thinks the mover is slightly ahead.
//! struct Rightmost(Rules);
//! impl Network for Rightmost {
//!     fn rules(&self) -> Rules { self.0 }
//!     fn encoding(&self) -> ObsEncoding { ObsEncoding::Compact }
//!     fn infer(&self, _features: &[f32], batch: usize, logits: &mut Vec<f32>, values: &mut Vec<f32>) {
//!         let h = self.0.houses as usize;
//!         logits.clear();
//!         values.clear();
//!         for _ in 0..batch {
//!             logits.extend((0..h).map(|a| a as f32));
//!             values.push(0.1);
//!         }
//!     }
//! }
//!
//! let rules = Rules::abapa();
//! let net = Rightmost(rules);
//! let mut eval = NetworkEvaluator::new(&net);
//! let mut out = Vec::new();
//! let mut s = State::initial(&rules, 0);
//! s.apply(&rules, 2).unwrap(); // now player 1 moves
//! eval.evaluate(&[s], &mut out);
//! assert_eq!(out[0].logits[5], 5.0);
//! assert_eq!((out[0].values[1], out[0].values[0]), (0.1, -0.1)); // player 1 to move
//! ```

use crate::batch::{encode_state, ObsEncoding};
use crate::rules::Rules;
use crate::search::{Evaluation, LeafEvaluator};
use crate::state::State;

/// A policy/value network: evaluates a batch of encoded positions.
///
/// Inputs are `batch` rows of [`input_scale`]`(rules, encoding).len()` features, as written by
/// [`encode_batch`]. Outputs: `batch × houses` policy logits (the mover's houses, in order) and
/// `batch × value_outputs` values from the mover's point of view (`value_outputs` is 1 for
/// two players: the mover's value, the opponent's is its negative; otherwise one per player,
/// the mover first, then the next players in turn order). `Sync`, so worker threads share one.
pub trait Network: Sync {
    /// The rules the network plays.
    fn rules(&self) -> Rules;
    /// The observation encoding of its input.
    fn encoding(&self) -> ObsEncoding;
    /// Evaluates `batch` rows of `features` into `logits` and `values` (both cleared first).
    fn infer(&self, features: &[f32], batch: usize, logits: &mut Vec<f32>, values: &mut Vec<f32>);
}

/// Value outputs of a network for `rules`: one for two players (zero-sum), else one per player.
pub fn value_outputs(rules: &Rules) -> usize {
    if rules.players == 2 {
        1
    } else {
        rules.players as usize
    }
}

/// Per-feature input scales (the batch's definition, shared with the envs' `obs_scale =
/// "network"`).
pub use crate::batch::input_scale;

/// Encodes positions into a flat `[states.len() * dim]` buffer of scaled features.
pub fn encode_batch(
    rules: &Rules,
    enc: ObsEncoding,
    scale: &[f32],
    states: &[State],
    out: &mut Vec<f32>,
) {
    let dim = scale.len();
    out.clear();
    out.resize(states.len() * dim, 0.0);
    for (s, row) in states.iter().zip(out.chunks_exact_mut(dim)) {
        encode_state(enc, rules, s, row).expect("buffer sized for the encoding");
        for (x, k) in row.iter_mut().zip(scale) {
            *x *= k;
        }
    }
}

/// Turns the network's outputs for `states` into [`Evaluation`]s (absolute seats) in `out`.
pub fn evaluations_from_outputs(
    rules: &Rules,
    states: &[State],
    logits: &[f32],
    values: &[f32],
    out: &mut Vec<Evaluation>,
) {
    out.clear();
    let b = states.len();
    if b == 0 {
        return;
    }
    let h = rules.houses as usize;
    let p = rules.players as usize;
    let nv = values.len() / b;
    for (i, s) in states.iter().enumerate() {
        let mut e = Evaluation::default();
        e.logits[..h].copy_from_slice(&logits[i * h..(i + 1) * h]);
        let m = s.to_move();
        if nv == 1 {
            let v = values[i];
            e.values[m] = v;
            e.values[1 - m] = -v;
        } else {
            for k in 0..p {
                e.values[(m + k) % p] = values[i * nv + k];
            }
        }
        out.push(e);
    }
}

/// A [`LeafEvaluator`] over a shared [`Network`]: encodes the positions, calls the network once per
/// batch, and keeps its buffers between calls (one per worker thread).
#[derive(Debug)]
pub struct NetworkEvaluator<'a, N: Network + ?Sized> {
    net: &'a N,
    rules: Rules,
    encoding: ObsEncoding,
    scale: Vec<f32>,
    features: Vec<f32>,
    logits: Vec<f32>,
    values: Vec<f32>,
}

impl<'a, N: Network + ?Sized> NetworkEvaluator<'a, N> {
    /// An evaluator over `net`.
    pub fn new(net: &'a N) -> NetworkEvaluator<'a, N> {
        let rules = net.rules();
        let encoding = net.encoding();
        NetworkEvaluator {
            net,
            rules,
            encoding,
            scale: input_scale(&rules, encoding),
            features: Vec::new(),
            logits: Vec::new(),
            values: Vec::new(),
        }
    }
}

impl<N: Network + ?Sized> LeafEvaluator for NetworkEvaluator<'_, N> {
    fn evaluate(&mut self, states: &[State], out: &mut Vec<Evaluation>) {
        out.clear();
        if states.is_empty() {
            return;
        }
        encode_batch(
            &self.rules,
            self.encoding,
            &self.scale,
            states,
            &mut self.features,
        );
        self.net.infer(
            &self.features,
            states.len(),
            &mut self.logits,
            &mut self.values,
        );
        evaluations_from_outputs(&self.rules, states, &self.logits, &self.values, out);
    }
}

/// A network with equal logits and every value 0: [`crate::search::UniformEvaluator`] behind the
/// [`Network`] trait (plain MCTS with exact terminal values), for tests and benchmarks of the
/// machinery without a trained network.
#[derive(Debug, Clone, Copy)]
pub struct UniformNetwork {
    /// The rules it plays.
    pub rules: Rules,
}

impl Network for UniformNetwork {
    fn rules(&self) -> Rules {
        self.rules
    }
    fn encoding(&self) -> ObsEncoding {
        ObsEncoding::Compact
    }
    fn infer(&self, _features: &[f32], batch: usize, logits: &mut Vec<f32>, values: &mut Vec<f32>) {
        logits.clear();
        logits.resize(batch * self.rules.houses as usize, 0.0);
        values.clear();
        values.resize(batch * value_outputs(&self.rules), 0.0);
    }
}
