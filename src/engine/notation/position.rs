//! Position notation: `RULES ROWS STORES TO_MOVE [PLY]` (see the [module docs](super)).

use super::{bad_position, plural};
use crate::error::Result;
use crate::rules::Rules;
use crate::state::State;

/// Parses one comma-separated list of seed counts (`what` names the field in errors).
fn parse_counts(text: &str, field: &str, what: &str) -> Result<Vec<u8>> {
    field
        .split(',')
        .enumerate()
        .map(|(i, v)| {
            let v = v.trim();
            v.parse::<u8>().map_err(|_| {
                bad_position(
                    text,
                    if v.is_empty() {
                        format!("{what}: entry {} is empty", i + 1)
                    } else {
                        format!("{what}: '{v}' is not a seed count (a whole number 0 to 255)")
                    },
                )
            })
        })
        .collect()
}

/// Parses a position in position notation (see the [module documentation](crate::notation)).
///
/// The position is checked: the number of rows and houses must fit the rules, the seeds on the
/// board and in the stores must add up to the rules' total, and the player to move must exist.
/// Its status is computed as at the start of a turn (a position where the mover has no seeds,
/// for instance, is an ended game). In the relay game a player to move whose row is empty passes,
/// as in play.
///
/// ```
/// use awale::notation::parse_position;
/// use awale::AwaleError;
/// let (rules, state) = parse_position("oware3 4,4,4,4/4,4,4,4/4,4,4,4 0,0,0 2").unwrap();
/// assert_eq!((rules.players, state.to_move()), (3, 2));
/// let err = parse_position("abapa 4,4,4,4,4,4/4,4,4,4,4,5 0,0 0").unwrap_err();
/// assert!(matches!(err, AwaleError::BadPosition { .. }));
/// assert!(err.to_string().contains("49 seeds"));
/// ```
pub fn parse_position(text: &str) -> Result<(Rules, State)> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    let Some(spec) = fields.first() else {
        return Err(bad_position(
            text,
            "empty; expected RULES ROWS STORES TO_MOVE [PLY]",
        ));
    };
    let rules: Rules = spec
        .parse()
        .map_err(|e| bad_position(text, format!("rules '{spec}': {e}")))?;
    let players = rules.players as usize;
    let houses = rules.houses as usize;
    let parse_player = |field: &str| -> Result<usize> {
        let p: usize = field.parse().map_err(|_| {
            bad_position(
                text,
                format!(
                    "player to move '{field}' is not a number (0 to {})",
                    players - 1
                ),
            )
        })?;
        if p >= players {
            return Err(bad_position(
                text,
                format!(
                    "player to move {p} does not exist in a {players}-player game (players are 0 to {})",
                    players - 1
                ),
            ));
        }
        Ok(p)
    };
    let start_player = || rules.first_player.pick(rules.players as usize, |_| 0);
    let (pits, stores, to_move, ply) = match fields.get(1).copied() {
        None | Some("start") => {
            if fields.len() > 3 {
                return Err(bad_position(
                    text,
                    format!(
                        "unexpected '{}' after 'start [TO_MOVE]'",
                        fields[3..].join(" ")
                    ),
                ));
            }
            let to_move = match fields.get(2) {
                Some(f) => parse_player(f)?,
                None => start_player(),
            };
            (
                vec![rules.seeds; rules.pits()],
                vec![0u8; players],
                to_move,
                0,
            )
        }
        Some(rows) => {
            if fields.len() < 4 {
                return Err(bad_position(
                    text,
                    "expected RULES ROWS STORES TO_MOVE [PLY] (or RULES start)",
                ));
            }
            if fields.len() > 5 {
                return Err(bad_position(
                    text,
                    format!("unexpected '{}' after the ply count", fields[5..].join(" ")),
                ));
            }
            let row_list: Vec<&str> = rows.split('/').collect();
            if row_list.len() != players {
                return Err(bad_position(
                    text,
                    format!(
                        "{} given but {} has {players} players (rows are separated by '/')",
                        plural(row_list.len(), "row"),
                        rules.base_name()
                    ),
                ));
            }
            let mut pits = Vec::with_capacity(rules.pits());
            for (p, row) in row_list.iter().enumerate() {
                let what = format!("row {}", p + 1);
                let counts = parse_counts(text, row, &what)?;
                if counts.len() != houses {
                    return Err(bad_position(
                        text,
                        format!(
                            "row {} (player {p}) has {} but {} has {houses} per player",
                            p + 1,
                            plural(counts.len(), "house"),
                            rules.base_name()
                        ),
                    ));
                }
                pits.extend(counts);
            }
            let stores = parse_counts(text, fields[2], "stores")?;
            if stores.len() != players {
                return Err(bad_position(
                    text,
                    format!(
                        "{} given but the game has {players} players",
                        plural(stores.len(), "store")
                    ),
                ));
            }
            let to_move = parse_player(fields[3])?;
            let ply = match fields.get(4) {
                Some(f) => f.parse::<u32>().map_err(|_| {
                    bad_position(text, format!("ply count '{f}' is not a whole number"))
                })?,
                None => 0,
            };
            (pits, stores, to_move, ply)
        }
    };
    let state = State::from_parts(&rules, &pits, &stores, to_move, ply)
        .map_err(|reason| bad_position(text, reason))?;
    Ok((rules, state))
}

/// Writes a position in position notation (see the [module documentation](crate::notation)); the
/// ply count is left out when it is 0. [`parse_position`] reads it back to the same board,
/// stores, player to move and ply.
///
/// ```
/// use awale::notation::format_position;
/// use awale::{Rules, State};
/// let rules = Rules::abapa();
/// let mut s = State::initial(&rules, 0);
/// s.apply(&rules, 2).unwrap();
/// assert_eq!(format_position(&rules, &s), "abapa 4,4,0,5,5,5/5,4,4,4,4,4 0,0 1 1");
/// ```
pub fn format_position(rules: &Rules, state: &State) -> String {
    let houses = rules.houses as usize;
    let join = |xs: &[u8]| {
        xs.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let rows: Vec<String> = state.pits()[..rules.pits()]
        .chunks(houses)
        .map(join)
        .collect();
    let mut out = format!(
        "{rules} {} {} {}",
        rows.join("/"),
        join(&state.scores()[..rules.players as usize]),
        state.to_move()
    );
    if state.ply() > 0 {
        out.push(' ');
        out.push_str(&state.ply().to_string());
    }
    out
}
