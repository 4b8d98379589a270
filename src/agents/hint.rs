//! The hint: the strongest built-in search's move for the player to move and what it found,
//! within a time. One definition for every place that gives hints: `awale play`'s `hint`, the
//! `hint` route of `awale serve`, and `Game.hint()` in Python.

use super::alphabeta::{AlphaBeta, AlphaBetaSettings};
use super::mcts::{Mcts, MctsConfig};
use super::{Thoughts, Turn};
use crate::error::Result;
use crate::game::Game;

/// The hint's transposition table (MiB): plenty for depth 8, and a server's hints (one per
/// thinking turn) hold little.
pub const HINT_TT_MB: usize = 4;

/// The hint for the player to move in `game`: alpha-beta to depth 8 with two players, MCTS
/// with 2,000 simulations otherwise, within `move_time_ms` milliseconds (0: no limit); its move (a
/// house, 0-based in the mover's row) and its thoughts. An error when the game is over.
///
/// ```
/// use awale::agents::hint;
/// use awale::{Game, Rules};
/// let game = Game::new(Rules::abapa());
/// let (house, thoughts) = hint(&game, 0).unwrap();
/// assert!(game.legal_moves().contains(&house));
/// assert!(thoughts.summary.contains("depth"));
/// ```
pub fn hint(game: &Game, move_time_ms: u64) -> Result<(usize, Thoughts)> {
    let turn = Turn::from_game(game);
    if game.rules().players == 2 {
        let mut ab = AlphaBeta::new(AlphaBetaSettings {
            depth: 8,
            move_time_ms,
            tt_mb: HINT_TT_MB,
            ..Default::default()
        });
        let r = ab.search(&turn)?;
        Ok((r.best, r.thoughts()))
    } else {
        let mut mcts = Mcts::new(
            MctsConfig {
                sims: 2000,
                move_time_ms,
                ..Default::default()
            },
            game.moves().len() as u64,
        );
        let r = mcts.search(&turn)?;
        Ok((r.best, r.thoughts()))
    }
}
