//! Fuzz target `position`: the position notation (`notation::parse_position`).
//!
//! Any text either fails with a typed error or gives a position that fits its rules, prints
//! back to text that parses to the same rules and position, and can be drawn and played.

use awale::notation::{format_position, parse_position, render_board, result_text};

/// Checks one input (see the module docs); panics on a violated property.
pub fn run(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok((rules, state)) = parse_position(text) else {
        return;
    };
    assert!(
        state.fits(&rules),
        "{text:?} parsed to a position that does not fit its rules"
    );
    let printed = format_position(&rules, &state);
    let (rules2, state2) = parse_position(&printed)
        .unwrap_or_else(|e| panic!("{text:?} printed as {printed:?}, which does not parse: {e}"));
    assert_eq!(rules2, rules, "{text:?} -> {printed:?}: rules differ");
    assert_eq!(
        format_position(&rules2, &state2),
        printed,
        "{text:?} -> {printed:?} does not round-trip"
    );
    let _ = render_board(&rules, &state);
    let _ = result_text(&rules, &state);
    let mask = state.legal_mask(&rules);
    for house in 0..16 {
        let mut s = state;
        let ok = s.apply(&rules, house).is_ok();
        assert_eq!(ok, mask & (1 << house) != 0, "{printed}: house {house}");
    }
}
