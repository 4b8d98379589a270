//! The state of the root during a search, what the selection rules read there ([`Root`]:
//! simulations spent, budget, Gumbel's considered actions and noise).

use super::MAX_ACTIONS;

/// The state of the root during a search: what the policies read there.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Root {
    /// Simulations spent so far.
    pub(super) spent: u32,
    /// The simulation budget.
    pub(super) budget: u32,
    /// Gumbel: the actions considered (`m`).
    pub(super) considered: usize,
    /// Gumbel: the root noise by action.
    pub(super) noise: [f32; MAX_ACTIONS],
}
