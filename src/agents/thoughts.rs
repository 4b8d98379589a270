//! [`Thoughts`]: what an agent's last search found, for people watching a game (`awale serve`,
//! `awale play`'s hint): its evaluation, the search's size and, for tree searches, the visits of
//! each root move.

use serde::Serialize;

/// What an agent found while choosing its last move ([`super::Agent::thoughts`]).
///
/// ```
/// use awale::agents::{Agent, AlphaBeta, AlphaBetaSettings, Turn};
/// use awale::Game;
/// let game = Game::new(awale::Rules::abapa());
/// let mut ab = AlphaBeta::new(AlphaBetaSettings { depth: 4, ..Default::default() });
/// ab.select(&Turn::from_game(&game)).unwrap();
/// let t = ab.thoughts().unwrap();
/// assert_eq!(t.depth, Some(4));
/// assert!(t.summary.starts_with("alpha-beta depth 4"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Thoughts {
    /// One line for people, e.g. `alpha-beta depth 8: +1.25 seeds for the mover, 84,211 nodes`.
    pub summary: String,
    /// The mover's value: seeds ahead (alpha-beta), seeds of those on the board the mover gets
    /// under perfect play (endgame tables) or the mean return in [-1, 1] (Monte Carlo searches,
    /// networks).
    pub value: Option<f64>,
    /// The unit of `value`: `"seeds"`, `"seeds of the board"` or `"return"`.
    pub unit: &'static str,
    /// `"win"` or `"loss"` when the search proved the result.
    pub proven: Option<&'static str>,
    /// The deepest completed iteration (alpha-beta).
    pub depth: Option<u32>,
    /// Positions searched, or simulations run.
    pub nodes: Option<u64>,
    /// For tree searches: each legal root move with its visits and mean return for the mover.
    pub moves: Vec<MoveThought>,
}

/// One root move of a tree search ([`Thoughts::moves`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MoveThought {
    /// The house (0-based in the mover's row).
    pub house: usize,
    /// Simulations through it.
    pub visits: u32,
    /// Their mean return for the mover, in [-1, 1], where the search keeps it.
    pub value: Option<f32>,
}
