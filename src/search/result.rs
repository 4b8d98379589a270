//! [`GuidedSearchResult`]: what a finished search found at its root.

use super::MAX_ACTIONS;
use crate::rules::MAX_PLAYERS;

/// The outcome of a finished search guided by a [`super::LeafEvaluator`] ([`super::Search::result`]; not to be
/// confused with the alpha-beta agent's `SearchResult` or the plain MCTS agent's `MctsResult`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GuidedSearchResult {
    /// Visits of each root action.
    pub visits: [u32; MAX_ACTIONS],
    /// The policy target: the improved policy (Gumbel) or the visit distribution (PUCT, UCT).
    pub policy: [f32; MAX_ACTIONS],
    /// The root's mean value for every player (absolute seats).
    pub value: [f32; MAX_PLAYERS],
    /// The action the search chose: the sequential-halving survivor (Gumbel), the most visited
    /// action (PUCT, UCT).
    pub action: usize,
    /// The mean value of each root action for the player to move at the root (0 where
    /// unvisited).
    pub q: [f32; MAX_ACTIONS],
    /// The legal actions at the root.
    pub legal: u16,
}
