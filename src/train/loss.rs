//! The training loss: one term per head of the network ([`crate::network::model`]), with the targets a
//! minibatch of replay samples gives each head.
//!
//! - policy: cross-entropy against the search's policy, illegal moves masked out;
//! - value: mean squared error against the game result (optionally mixed with the search value
//!   when the sample was made), weighted by `training.value_weight`;
//! - score: mean squared error against the final score difference, weighted by
//!   `training.score_weight`.
//!
//! [`LossStats`] carries the means (and two diagnostics: the policy's entropy and the value's
//! mean absolute error) to the logs.

use burn::tensor::activation::{log_softmax, softmax};
use burn::tensor::{Device, Tensor, TensorData};
use serde::{Deserialize, Serialize};

use crate::az::config::TrainingConfig;
use crate::az::data::Sample;
use crate::batch::ObsEncoding;
use crate::network::model::{encode_batch, value_outputs, NetOutput};
use crate::rules::Rules;

/// A minibatch on the device: the network's input and each head's target.
#[derive(Debug, Clone)]
pub struct Minibatch {
    /// `[B, input]` encoded positions.
    pub input: Tensor<2>,
    /// `[B, houses]` policy targets.
    pub policy: Tensor<2>,
    /// `[B, houses]` 0 for a legal move, -10⁴ for an illegal one (added to the logits).
    pub mask: Tensor<2>,
    /// `[B, V]` value targets (mover first).
    pub value: Tensor<2>,
    /// `[B, 1]` score-difference targets.
    pub score: Tensor<2>,
}

impl Minibatch {
    /// The batch of `samples` under `rules`, encoded with `encoding` and `scale`.
    pub fn new(
        rules: &Rules,
        encoding: ObsEncoding,
        scale: &[f32],
        samples: &[&Sample],
        device: &Device,
    ) -> Minibatch {
        let b = samples.len();
        let h = rules.houses as usize;
        let nv = value_outputs(rules);
        let states: Vec<_> = samples.iter().map(|s| s.state).collect();
        let mut x = Vec::new();
        encode_batch(rules, encoding, scale, &states, &mut x);
        let mut pt = Vec::with_capacity(b * h);
        let mut mask = Vec::with_capacity(b * h);
        let mut vt = Vec::with_capacity(b * nv);
        let mut st = Vec::with_capacity(b);
        for s in samples {
            let legal = s.state.legal_mask(rules);
            for a in 0..h {
                pt.push(s.policy[a]);
                mask.push(if legal >> a & 1 == 1 { 0.0 } else { -1.0e4 });
            }
            vt.extend_from_slice(&s.value[..nv]);
            st.push(s.score);
        }
        let d = device;
        let dim = scale.len();
        Minibatch {
            input: Tensor::<2>::from_data(TensorData::new(x, [b, dim]), d),
            policy: Tensor::<2>::from_data(TensorData::new(pt, [b, h]), d),
            mask: Tensor::<2>::from_data(TensorData::new(mask, [b, h]), d),
            value: Tensor::<2>::from_data(TensorData::new(vt, [b, nv]), d),
            score: Tensor::<2>::from_data(TensorData::new(st, [b, 1]), d),
        }
    }
}

/// The loss of a forward pass: `total` (what the gradient step differentiates) and its parts.
#[derive(Debug, Clone)]
pub struct Loss {
    /// The weighted sum of the terms.
    pub total: Tensor<1>,
    /// Policy cross-entropy.
    pub policy: Tensor<1>,
    /// Value mean squared error.
    pub value: Tensor<1>,
    /// Score-difference mean squared error.
    pub score: Tensor<1>,
    /// Entropy of the network's policy (a diagnostic, no gradient).
    pub entropy: Tensor<1>,
    /// Mean absolute error of the mover's value (a diagnostic, no gradient).
    pub value_error: Tensor<1>,
}

impl Loss {
    /// The loss of the network's outputs `out` on `batch`, the terms weighted by `weights`.
    pub fn new(out: NetOutput, batch: Minibatch, weights: &TrainingConfig) -> Loss {
        let b = out.policy.dims()[0];
        let logits = out.policy + batch.mask;
        let logp = log_softmax(logits.clone(), 1);
        let policy = (batch.policy * logp.clone()).sum_dim(1).mean().neg();
        let value = (out.value.clone() - batch.value.clone())
            .powi_scalar(2)
            .mean();
        let score = (out.score - batch.score).powi_scalar(2).mean();
        let total = policy.clone()
            + value.clone().mul_scalar(weights.value_weight)
            + score.clone().mul_scalar(weights.score_weight);
        let entropy = (softmax(logits.detach(), 1) * logp.detach())
            .sum_dim(1)
            .mean()
            .neg();
        let value_error = (out.value.detach().slice([0..b, 0..1])
            - batch.value.slice([0..b, 0..1]))
        .abs()
        .mean();
        Loss {
            total,
            policy,
            value,
            score,
            entropy,
            value_error,
        }
    }

    /// The values of one step at learning rate `lr`.
    pub fn stats(self, lr: f64) -> LossStats {
        let f = |t: Tensor<1>| t.into_scalar::<f32>() as f64;
        LossStats {
            loss: f(self.total.detach()),
            policy: f(self.policy.detach()),
            value: f(self.value.detach()),
            score: f(self.score.detach()),
            entropy: f(self.entropy),
            value_error: f(self.value_error),
            lr,
            steps: 1,
        }
    }
}

/// Mean losses and diagnostics of some gradient steps.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct LossStats {
    /// Total loss.
    pub loss: f64,
    /// Policy cross-entropy.
    pub policy: f64,
    /// Value mean squared error.
    pub value: f64,
    /// Score-difference mean squared error.
    pub score: f64,
    /// Entropy of the network's policy (nats).
    pub entropy: f64,
    /// Mean absolute error of the mover's value.
    pub value_error: f64,
    /// Learning rate of the last step.
    pub lr: f64,
    /// Steps averaged.
    pub steps: u64,
}

impl LossStats {
    pub(super) fn add(&mut self, o: &LossStats) {
        self.loss += o.loss;
        self.policy += o.policy;
        self.value += o.value;
        self.score += o.score;
        self.entropy += o.entropy;
        self.value_error += o.value_error;
        self.lr = o.lr;
        self.steps += o.steps;
    }

    pub(super) fn mean(mut self) -> LossStats {
        let n = self.steps.max(1) as f64;
        self.loss /= n;
        self.policy /= n;
        self.value /= n;
        self.score /= n;
        self.entropy /= n;
        self.value_error /= n;
        self
    }

    /// The TensorBoard scalars of these losses, by tag.
    pub fn scalars(&self) -> [(&'static str, f64); 7] {
        [
            ("loss/total", self.loss),
            ("loss/policy", self.policy),
            ("loss/value", self.value),
            ("loss/score", self.score),
            ("policy/entropy", self.entropy),
            ("value/abs_error", self.value_error),
            ("train/lr", self.lr),
        ]
    }
}
