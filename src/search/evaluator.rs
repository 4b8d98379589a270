//! What guides a search: an [`Evaluation`] of a position (policy logits and every player's
//! value), the [`LeafEvaluator`] trait that writes them in batches, the [`UniformEvaluator`],
//! and [`Mix`], the weighted mix of two evaluators' values (AlphaGo's network and playouts).

use crate::rules::MAX_PLAYERS;
use crate::state::State;

use super::MAX_ACTIONS;

/// What the network says about a position: policy logits over the mover's houses and the value
/// of every player (absolute seats, in [-1, 1]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Evaluation {
    /// Policy logits by house (entries past the rules' houses are ignored).
    pub logits: [f32; MAX_ACTIONS],
    /// Expected result of each player (absolute seat).
    pub values: [f32; MAX_PLAYERS],
}

impl Default for Evaluation {
    fn default() -> Self {
        Evaluation {
            logits: [0.0; MAX_ACTIONS],
            values: [0.0; MAX_PLAYERS],
        }
    }
}

/// Evaluates the leaves of searches in batches: what guides a [`super::Search`] (a network
/// through [`crate::az::network::NetworkEvaluator`], random playouts, [`UniformEvaluator`]).
pub trait LeafEvaluator {
    /// Writes one evaluation per state into `out` (cleared first).
    fn evaluate(&mut self, states: &[State], out: &mut Vec<Evaluation>);

    /// True once the evaluator has failed or been interrupted (a Python callable that raised,
    /// Ctrl-C): the loops that drive searches stop at their next round. The evaluations it
    /// wrote since are not to be used.
    fn stopped(&self) -> bool {
        false
    }
}

impl<E: LeafEvaluator + ?Sized> LeafEvaluator for &mut E {
    fn evaluate(&mut self, states: &[State], out: &mut Vec<Evaluation>) {
        (**self).evaluate(states, out);
    }
    fn stopped(&self) -> bool {
        (**self).stopped()
    }
}

/// The uniform evaluator: equal logits, every value 0 (plain MCTS with exact terminal values).
#[derive(Debug, Clone, Copy, Default)]
pub struct UniformEvaluator;

impl LeafEvaluator for UniformEvaluator {
    fn evaluate(&mut self, states: &[State], out: &mut Vec<Evaluation>) {
        out.clear();
        out.resize(states.len(), Evaluation::default());
    }
}

/// Two evaluators in one: the logits of `first`, the values `(1 - λ)·first + λ·second`.
/// AlphaGo's leaf evaluation is a network mixed with one random playout
/// ([`crate::agents::PlayoutEvaluator`]) at λ = 0.5; the `nn` agent's `rollouts=λ`.
///
/// ```
/// use awale::search::{Evaluation, LeafEvaluator, Mix, UniformEvaluator};
/// use awale::{Rules, State};
/// struct Wins;
/// impl LeafEvaluator for Wins {
///     fn evaluate(&mut self, states: &[State], out: &mut Vec<Evaluation>) {
///         out.clear();
///         out.extend(states.iter().map(|_| Evaluation { values: [1.0; 6], ..Default::default() }));
///     }
/// }
/// let mut mix = Mix::new(UniformEvaluator, Wins, 0.25);
/// let mut out = Vec::new();
/// mix.evaluate(&[State::initial(&Rules::abapa(), 0)], &mut out);
/// assert_eq!(out[0].values[0], 0.25);
/// ```
#[derive(Debug, Clone)]
pub struct Mix<A, B> {
    first: A,
    second: B,
    lambda: f32,
    buffer: Vec<Evaluation>,
}

impl<A, B> Mix<A, B> {
    /// `first`'s logits, and each value weighted `1 - lambda` for `first`, `lambda` for `second`.
    pub fn new(first: A, second: B, lambda: f32) -> Mix<A, B> {
        Mix {
            first,
            second,
            lambda,
            buffer: Vec::new(),
        }
    }

    /// The second evaluator (to reseed a playout evaluator, say).
    pub fn second_mut(&mut self) -> &mut B {
        &mut self.second
    }

    /// The two evaluators back.
    pub fn into_parts(self) -> (A, B) {
        (self.first, self.second)
    }
}

impl<A: LeafEvaluator, B: LeafEvaluator> LeafEvaluator for Mix<A, B> {
    fn evaluate(&mut self, states: &[State], out: &mut Vec<Evaluation>) {
        self.first.evaluate(states, out);
        self.second.evaluate(states, &mut self.buffer);
        let l = self.lambda;
        for (e, z) in out.iter_mut().zip(&self.buffer) {
            for (v, z) in e.values.iter_mut().zip(z.values) {
                *v = (1.0 - l) * *v + l * z;
            }
        }
    }

    fn stopped(&self) -> bool {
        self.first.stopped() || self.second.stopped()
    }
}
