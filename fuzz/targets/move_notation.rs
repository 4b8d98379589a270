//! Fuzz target `move_notation`: the move notation (`notation::parse_move`,
//! `notation::parse_move_token`) under every preset.
//!
//! The first byte picks the preset and the player to move; the rest is the move text. A parsed
//! move names an existing house, and its printed form parses back to the same move.

use awale::notation::{format_move, parse_move, parse_move_token};
use awale::rules::PRESET_SPECS;
use awale::Rules;

/// Checks one input (see the module docs); panics on a violated property.
pub fn run(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let rules: Rules = PRESET_SPECS[pick as usize % PRESET_SPECS.len()]
        .parse()
        .expect("presets parse");
    let players = rules.players as usize;
    let houses = rules.houses as usize;
    let to_move = (pick as usize / PRESET_SPECS.len()) % players;
    if let Ok(house) = parse_move(&rules, to_move, text) {
        assert!(house < houses, "{text:?}: house {house} of {houses}");
        let printed = format_move(&rules, to_move, house);
        assert_eq!(
            parse_move(&rules, to_move, &printed).ok(),
            Some(house),
            "{printed:?}"
        );
    }
    if let Ok((player, house)) = parse_move_token(&rules, text) {
        assert!(
            player < players && house < houses,
            "{text:?}: ({player}, {house})"
        );
        let printed = format_move(&rules, player, house);
        assert_eq!(
            parse_move_token(&rules, &printed).ok(),
            Some((player, house)),
            "{printed:?}"
        );
    }
}
