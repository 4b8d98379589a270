//! Fuzz target `game_record`: game records, text and JSON (`notation::GameRecord`), parsed and
//! replayed.
//!
//! A first byte below 32 reads the rest as JSON, otherwise the whole input is the text form. A
//! record that parses prints back to one that parses to the same record; its replay either
//! fails with a typed error or reaches a position that fits the rules.

use awale::notation::GameRecord;

/// Checks one input (see the module docs); panics on a violated property.
pub fn run(data: &[u8]) {
    let record: GameRecord = match data.first() {
        Some(&b) if b < 32 => match serde_json::from_slice(&data[1..]) {
            Ok(r) => r,
            Err(_) => return,
        },
        _ => {
            let Ok(text) = std::str::from_utf8(data) else {
                return;
            };
            match text.parse() {
                Ok(r) => r,
                Err(_) => return,
            }
        }
    };
    let printed = record.to_string();
    let again: GameRecord = printed
        .parse()
        .unwrap_or_else(|e| panic!("a record printed as {printed:?} does not parse: {e}"));
    assert_eq!(again, record, "text form {printed:?} does not round-trip");
    let json = serde_json::to_string(&record).expect("a record serializes");
    let from_json: GameRecord = serde_json::from_str(&json)
        .unwrap_or_else(|e| panic!("a record written as {json} does not read back: {e}"));
    assert_eq!(from_json, record, "JSON form does not round-trip");
    if let Ok(game) = record.replay() {
        assert!(
            game.state().fits(game.rules()),
            "replay leaves a broken position"
        );
        assert_eq!(game.moves().len(), record.moves.len());
        let back = GameRecord::from_game(&game);
        assert!(
            back.replay().is_ok(),
            "the record of a replayed game does not replay"
        );
    }
}
