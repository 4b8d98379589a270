//! Positions and moves as every protocol's messages carry them: the FEN
//! `4-4-4-4-4-4-4-4-4-4-4-4-0-0-S` (South's houses `A`–`F`, North's `a`–`f`, both in sowing
//! order, South's store, North's store, the side to move `S` or `N`) and moves of one letter
//! (`C`, `d`), whatever the dialect writes around them.

use crate::error::{AwaleError, Result};
use crate::notation::{format_move, parse_move};
use crate::rules::Rules;
use crate::state::State;

/// Why these rules cannot be written in the messages: only two players with six houses each
/// (twelve houses and two stores) fit its FEN. `None` when they fit.
///
/// ```
/// use awale::protocol::position::unfit_rules;
/// use awale::Rules;
/// assert!(unfit_rules(&Rules::abapa()).is_none());
/// assert!(unfit_rules(&Rules::oware(3).unwrap()).unwrap().contains("2 players"));
/// ```
pub fn unfit_rules(rules: &Rules) -> Option<String> {
    (rules.players != 2 || rules.houses != 6).then(|| {
        format!(
            "the engine protocol plays 2 players with 6 houses each; '{rules}' has {} players \
             with {} houses",
            rules.players, rules.houses
        )
    })
}

fn bad(text: &str, reason: impl Into<String>) -> AwaleError {
    AwaleError::BadPosition {
        text: text.to_string(),
        reason: reason.into(),
    }
}

/// Writes `state` as a FEN: twelve houses, two stores, the side to move.
///
/// ```
/// use awale::protocol::position::{format_fen, parse_fen};
/// use awale::{Rules, State};
/// let rules = Rules::abapa();
/// let start = State::initial(&rules, 0);
/// assert_eq!(format_fen(&rules, &start), "4-4-4-4-4-4-4-4-4-4-4-4-0-0-S");
/// assert_eq!(parse_fen(&rules, "4-4-4-4-4-4-4-4-4-4-4-4-0-0-S").unwrap(), start);
/// ```
pub fn format_fen(rules: &Rules, state: &State) -> String {
    let mut out = String::new();
    for &seeds in &state.pits()[..rules.pits()] {
        out.push_str(&seeds.to_string());
        out.push('-');
    }
    for &store in &state.scores()[..rules.players as usize] {
        out.push_str(&store.to_string());
        out.push('-');
    }
    out.push(if state.to_move() == 0 { 'S' } else { 'N' });
    out
}

/// Parses a FEN under `rules` (2 players, 6 houses each), checked as any position is: the seeds
/// must add up to the rules' total.
pub fn parse_fen(rules: &Rules, text: &str) -> Result<State> {
    if let Some(reason) = unfit_rules(rules) {
        return Err(bad(text, reason));
    }
    let fields: Vec<&str> = text.trim().split('-').collect();
    let n = rules.pits() + 2;
    if fields.len() != n + 1 {
        return Err(bad(
            text,
            format!(
                "a FEN has {n} seed counts and the side to move, separated by '-'; got {} fields",
                fields.len()
            ),
        ));
    }
    let mut counts = Vec::with_capacity(n);
    for f in &fields[..n] {
        counts.push(
            f.parse::<u8>()
                .map_err(|_| bad(text, format!("'{f}' is not a seed count")))?,
        );
    }
    let to_move = match fields[n] {
        "S" => 0,
        "N" => 1,
        other => {
            return Err(bad(
                text,
                format!("the side to move is S or N, not '{other}'"),
            ))
        }
    };
    let (pits, stores) = counts.split_at(rules.pits());
    State::from_parts(rules, pits, stores, to_move, 0).map_err(|reason| bad(text, reason))
}

/// Plays a move as the messages write it (`C`, `d`) from `state`: the mover's house, checked
/// legal. Returns the house (0-based in the mover's row).
pub fn read_move(rules: &Rules, state: &State, text: &str) -> Result<usize> {
    let house = parse_move(rules, state.to_move(), text)?;
    if state.legal_mask(rules) & (1 << house) == 0 {
        return Err(AwaleError::BadMoveNotation {
            text: text.to_string(),
            reason: format!(
                "house {text} is not a legal move here (legal: {})",
                legal_text(rules, state)
            ),
        });
    }
    Ok(house)
}

/// The legal moves of `state` as the messages write them, e.g. `ABDF`.
pub fn legal_text(rules: &Rules, state: &State) -> String {
    legal_moves(rules, state).concat()
}

/// The legal moves of `state` as the messages write them, one letter each (`A`, `B`, `D`, `F`).
pub fn legal_moves(rules: &Rules, state: &State) -> Vec<String> {
    state
        .legal_moves(rules)
        .iter()
        .map(|&h| write_move(rules, state, h))
        .collect()
}

/// Writes house `house` of the player to move as the messages do.
pub fn write_move(rules: &Rules, state: &State, house: usize) -> String {
    format_move(rules, state.to_move(), house)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fens_round_trip_and_bad_ones_name_the_problem() {
        let rules = Rules::abapa();
        let mut game = crate::Game::new(rules);
        for mv in [2, 3, 5, 0] {
            game.apply(mv).unwrap();
            let fen = format_fen(&rules, game.state());
            let back = parse_fen(&rules, &fen).unwrap();
            assert_eq!(back.pits(), game.state().pits());
            assert_eq!(back.scores(), game.state().scores());
            assert_eq!(back.to_move(), game.state().to_move());
        }
        for (text, why) in [
            ("4-4-4-4-4-4-4-4-4-4-4-4-0-0", "fields"),
            ("4-4-4-4-4-4-4-4-4-4-4-4-0-0-X", "S or N"),
            ("4-4-4-4-4-4-4-4-4-4-4-5-0-0-S", "49 seeds"),
            ("4-4-4-4-4-4-4-x-4-4-4-4-0-0-S", "'x'"),
        ] {
            let e = parse_fen(&rules, text).unwrap_err().to_string();
            assert!(e.contains(why), "{text}: {e}");
        }
        let e = parse_fen(&Rules::oware(3).unwrap(), "4")
            .unwrap_err()
            .to_string();
        assert!(e.contains("2 players"), "{e}");
    }

    #[test]
    fn moves_are_read_for_the_mover_and_checked_legal() {
        let rules = Rules::abapa();
        let s = State::initial(&rules, 0);
        assert_eq!(read_move(&rules, &s, "C").unwrap(), 2);
        assert!(read_move(&rules, &s, "c").is_err()); // North's house, South to move
        assert!(read_move(&rules, &s, "Q").is_err());
        assert_eq!(legal_text(&rules, &s), "ABCDEF");
    }
}
