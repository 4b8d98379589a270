//! Helpers shared by the rule tests: building hand-made positions and games from them.
//!
//! Pits are numbered in sowing (counter-clockwise) order. In a 2-player game South (player 0)
//! owns pits 0..6 (houses A..F) and North (player 1) owns pits 6..12 (houses a..f); a move is
//! a house index 0..houses in the mover's own row.

#![allow(dead_code)]

use awale::{Game, Rules, State};

/// Rules from a spec such as `"abapa:max_plies=20"`; panics on a bad spec.
pub fn rules(spec: &str) -> Rules {
    spec.parse()
        .unwrap_or_else(|e| panic!("bad rules spec {spec:?}: {e}"))
}

/// A position from its pits, stores and player to move (ply 0); panics when the parts do not
/// fit the rules (wrong length, wrong seed total).
pub fn pos(rules: &Rules, pits: &[u8], scores: &[u8], to_move: usize) -> State {
    State::from_parts(rules, pits, scores, to_move, 0)
        .unwrap_or_else(|e| panic!("bad test position {pits:?} {scores:?}: {e}"))
}

/// A game starting from a hand-made position, so that its History sees every later position.
pub fn game(rules: &Rules, pits: &[u8], scores: &[u8], to_move: usize) -> Game {
    Game::from_state(*rules, pos(rules, pits, scores, to_move))
}

/// The board of a position: the first `rules.pits()` pits.
pub fn board(rules: &Rules, s: &State) -> Vec<u8> {
    s.pits()[..rules.pits()].to_vec()
}

/// The stores of a position: the first `rules.players` scores.
pub fn scores(rules: &Rules, s: &State) -> Vec<u8> {
    s.scores()[..rules.players as usize].to_vec()
}

/// Seeds on the board plus seeds in every store.
pub fn total(rules: &Rules, s: &State) -> u32 {
    s.board_seeds(rules) + scores(rules, s).iter().map(|&x| x as u32).sum::<u32>()
}

/// Plays the moves in order on a game, panicking with the move's index if one is refused.
pub fn play(g: &mut Game, moves: &[usize]) {
    for (i, &m) in moves.iter().enumerate() {
        g.apply(m)
            .unwrap_or_else(|e| panic!("move #{i} (house {m}) refused: {e}"));
    }
}

/// Asserts that `house` is refused with `AwaleError::IllegalMove` and that the state is untouched.
pub fn assert_illegal(rules: &Rules, s: &State, house: usize) -> awale::AwaleError {
    let mut t = *s;
    let err = t
        .apply(rules, house)
        .expect_err("the move should have been refused");
    assert!(
        matches!(err, awale::AwaleError::IllegalMove { house: h, player, .. }
            if h == house && player == s.to_move()),
        "unexpected error {err:?}"
    );
    assert_eq!(t, *s, "a refused move must leave the state unchanged");
    err
}
