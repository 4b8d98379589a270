//! What every selection rule shares: the one tie-break rule ([`Best`]: the first action on
//! ties, so the lower house) and the state of the root they read ([`Root`]: simulations, budget,
//! Gumbel's considered actions and noise).

use super::MAX_ACTIONS;

/// The state of the root during a search: what the policies read there.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Root {
    /// Simulations done.
    pub(super) sims: u32,
    /// The simulation budget.
    pub(super) budget: u32,
    /// Gumbel: the actions considered (`m`).
    pub(super) considered: usize,
    /// Gumbel: the root noise by action.
    pub(super) noise: [f32; MAX_ACTIONS],
}

/// The best-scoring action seen so far (the first one on ties).
pub(super) struct Best {
    pub(super) action: usize,
    score: f32,
}

impl Default for Best {
    fn default() -> Self {
        Best {
            action: usize::MAX,
            score: f32::NEG_INFINITY,
        }
    }
}

impl Best {
    pub(super) fn consider(&mut self, action: usize, score: f32) {
        if self.action == usize::MAX || score > self.score {
            self.action = action;
            self.score = score;
        }
    }
}
