//! Fuzz target `rules_spec`: the rules spec parser (`"abapa:max_plies=200".parse::<Rules>()`).
//!
//! Any text either fails with a typed error or gives rules that validate, print back to a spec
//! that parses to the same rules, and have a start position that fits them and can be played.

use awale::{Rules, State};

/// Checks one input (see the module docs); panics on a violated property.
pub fn run(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(rules) = text.parse::<Rules>() else {
        return;
    };
    rules
        .validate()
        .unwrap_or_else(|e| panic!("{text:?} parsed to rules that do not validate: {e}"));
    let spec = rules.to_string();
    let again: Rules = spec
        .parse()
        .unwrap_or_else(|e| panic!("{text:?} printed as {spec:?}, which does not parse: {e}"));
    assert_eq!(again, rules, "{text:?} -> {spec:?} does not round-trip");
    for first in 0..rules.players as usize {
        let mut s = State::initial(&rules, first);
        assert!(
            s.fits(&rules),
            "the start position of {spec} does not fit it"
        );
        // A few plies: the first legal move each time.
        for _ in 0..8 {
            let mask = s.legal_mask(&rules);
            if mask == 0 {
                break;
            }
            let house = mask.trailing_zeros() as usize;
            s.apply(&rules, house)
                .unwrap_or_else(|e| panic!("{spec}: legal house {house} refused: {e}"));
            assert!(s.fits(&rules), "{spec}: seeds not conserved");
        }
    }
}
