//! Text formats: positions, moves, game records and the ASCII board. Every format round-trips
//! (parse what was written, get the same thing back), and every parser answers bad text with a
//! typed error ([`AwaleError::BadPosition`], [`AwaleError::BadMoveNotation`],
//! [`AwaleError::BadRecord`]) that names the problem.
//!
//! # Position notation
//!
//! `RULES ROWS STORES TO_MOVE [PLY]`, fields separated by spaces:
//!
//! - `RULES`: a rules spec such as `abapa` or `wari:max_plies=200` (see [`Rules`]; a spec never
//!   contains spaces);
//! - `ROWS`: each player's houses in sowing order (house `A` first), comma separated, players
//!   separated by `/` (player 0 first);
//! - `STORES`: each player's captured seeds, comma separated;
//! - `TO_MOVE`: the player to move, 0-based;
//! - `PLY`: plies played so far, optional (default 0, and left out when 0).
//!
//! Two shorthands give the start position: a lone rules spec (`oware3`), and the keyword `start`
//! in place of `ROWS STORES` optionally followed by the player to move (`oware3 start 2`). With no
//! player given, the rules' fixed first player moves (player 0 when the rules draw the first player
//! at random).
//!
//! ```
//! use awale::notation::{format_position, parse_position};
//! let (rules, state) = parse_position("abapa 4,4,4,4,4,4/4,4,4,4,4,4 0,0 0").unwrap();
//! assert_eq!(state.legal_moves(&rules).len(), 6);
//! assert_eq!(format_position(&rules, &state), "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0,0 0");
//! let (_, same) = parse_position("abapa").unwrap();
//! assert_eq!(same, state);
//! ```
//!
//! # Move notation
//!
//! As in the common Awalé notation (`001_*`): in a 2-player game `A`–`F` are South's (player 0's)
//! houses in sowing order and `a`–`f` North's (player 1's), so the letter's case tells who played.
//! With 3 or more players a move is the player's digit and the house letter: `2C`.
//!
//! # Game records
//!
//! See [`GameRecord`]: tag lines such as `[Rules "abapa"]` followed by the moves.
//!
//! # Board
//!
//! [`render_board`] draws a position for the terminal.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::{AwaleError, Result};
use crate::game::Game;
use crate::rules::Rules;
use crate::state::{State, Status};

fn bad_position(text: &str, reason: impl Into<String>) -> AwaleError {
    AwaleError::BadPosition {
        text: text.to_string(),
        reason: reason.into(),
    }
}

fn bad_move(text: &str, reason: impl Into<String>) -> AwaleError {
    AwaleError::BadMoveNotation {
        text: text.to_string(),
        reason: reason.into(),
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

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

/// Parses a position in position notation (see the [module documentation](self)).
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

/// Writes a position in position notation (see the [module documentation](self)); the ply count
/// is left out when it is 0. [`parse_position`] reads it back to the same board, stores, player
/// to move and ply.
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

/// A player's name for messages: `South`/`North` in a 2-player game, `player N` otherwise.
///
/// ```
/// use awale::notation::player_name;
/// use awale::Rules;
/// assert_eq!(player_name(&Rules::abapa(), 1), "North");
/// assert_eq!(player_name(&Rules::oware(4).unwrap(), 3), "player 3");
/// ```
pub fn player_name(rules: &Rules, player: usize) -> String {
    match (rules.players, player) {
        (2, 0) => "South".to_string(),
        (2, 1) => "North".to_string(),
        _ => format!("player {player}"),
    }
}

/// The house letters of `player`'s row, e.g. `A-F` or `a-f` (2 players) or `2A-2D`.
///
/// ```
/// use awale::notation::house_range;
/// use awale::Rules;
/// assert_eq!(house_range(&Rules::abapa(), 1), "a-f");
/// assert_eq!(house_range(&Rules::oware(3).unwrap(), 2), "2A-2D");
/// ```
pub fn house_range(rules: &Rules, player: usize) -> String {
    let last = rules.houses.saturating_sub(1) as usize;
    format!(
        "{}-{}",
        format_move(rules, player, 0),
        format_move(rules, player, last)
    )
}

fn house_letter(house: usize, lower: bool) -> char {
    let base = if lower { b'a' } else { b'A' };
    // Houses are at most MAX_PITS (16), so the letter stays within the alphabet.
    (base + (house.min(25)) as u8) as char
}

/// Writes a move: `A`–`F` for South's houses and `a`–`f` for North's in a 2-player game, the
/// player's digit and the house letter (`2C`) with 3 or more players.
///
/// ```
/// use awale::notation::format_move;
/// use awale::Rules;
/// assert_eq!(format_move(&Rules::abapa(), 0, 2), "C");
/// assert_eq!(format_move(&Rules::abapa(), 1, 5), "f");
/// assert_eq!(format_move(&Rules::oware(3).unwrap(), 2, 2), "2C");
/// ```
pub fn format_move(rules: &Rules, player: usize, house: usize) -> String {
    if rules.players == 2 {
        house_letter(house, player == 1).to_string()
    } else {
        format!("{player}{}", house_letter(house, false))
    }
}

/// Reads a move token into `(player named by the token if any, house)`, checking the house.
fn read_move(rules: &Rules, text: &str) -> Result<(Option<usize>, usize)> {
    let t = text.trim();
    if t.is_empty() {
        return Err(bad_move(text, "empty move"));
    }
    let houses = rules.houses as usize;
    let players = rules.players as usize;
    let mut chars = t.chars();
    let (digit, letter) = match (chars.next(), chars.next(), chars.next()) {
        (Some(l), None, None) => (None, l),
        (Some(d), Some(l), None) if d.is_ascii_digit() => (Some(d), l),
        _ => {
            let expected = if players == 2 {
                "a single house letter such as C (South) or c (North)".to_string()
            } else {
                "a player digit and a house letter such as 2C".to_string()
            };
            return Err(bad_move(text, format!("expected {expected}")));
        }
    };
    if !letter.is_ascii_alphabetic() {
        return Err(bad_move(
            text,
            format!(
                "'{letter}' is not a house letter (houses are {})",
                house_range(rules, 0)
            ),
        ));
    }
    let house = (letter.to_ascii_uppercase() as u8 - b'A') as usize;
    let player = match digit {
        Some(d) => {
            let p = d.to_digit(10).unwrap_or(0) as usize;
            if players == 2 {
                return Err(bad_move(
                    text,
                    "2-player moves are a single letter: A-F for South, a-f for North",
                ));
            }
            if p >= players {
                return Err(bad_move(
                    text,
                    format!(
                        "player {p} does not exist in a {players}-player game (players are 0 to {})",
                        players - 1
                    ),
                ));
            }
            Some(p)
        }
        None if players == 2 => Some(usize::from(letter.is_ascii_lowercase())),
        None => None,
    };
    if house >= houses {
        let range = match player {
            Some(p) => house_range(rules, p),
            None => format!("A-{}", house_letter(houses - 1, false)),
        };
        return Err(bad_move(
            text,
            format!("there is no house '{letter}': houses run {range}"),
        ));
    }
    Ok((player, house))
}

/// Parses a move by `to_move` and returns its house index (0-based in the mover's row).
///
/// In a 2-player game the letter's case must be the mover's (`A`–`F` for South, `a`–`f` for
/// North). With 3 or more players the digit, when given, must be the mover's; a bare letter (in
/// either case) means the mover's house. The move's legality in a position is not checked here
/// (see [`State::apply`]).
///
/// ```
/// use awale::notation::parse_move;
/// use awale::Rules;
/// let rules = Rules::abapa();
/// assert_eq!(parse_move(&rules, 1, "f").unwrap(), 5);
/// let err = parse_move(&rules, 0, "f").unwrap_err();
/// assert!(err.to_string().contains("North"));
/// assert!(parse_move(&rules, 0, "G").is_err());
/// assert_eq!(parse_move(&Rules::oware(3).unwrap(), 2, "2C").unwrap(), 2);
/// ```
pub fn parse_move(rules: &Rules, to_move: usize, text: &str) -> Result<usize> {
    let (player, house) = read_move(rules, text)?;
    if let Some(p) = player {
        if p != to_move {
            return Err(bad_move(
                text,
                format!(
                    "that is a house of {} but {} is to move (playing {})",
                    player_name(rules, p),
                    player_name(rules, to_move),
                    house_range(rules, to_move)
                ),
            ));
        }
    }
    Ok(house)
}

/// Parses a move that names its player on its own (a letter's case in a 2-player game, the
/// digit prefix otherwise) and returns `(player, house)`. Game records use this form.
///
/// ```
/// use awale::notation::parse_move_token;
/// use awale::Rules;
/// assert_eq!(parse_move_token(&Rules::abapa(), "b").unwrap(), (1, 1));
/// assert_eq!(parse_move_token(&Rules::oware(4).unwrap(), "3A").unwrap(), (3, 0));
/// assert!(parse_move_token(&Rules::oware(4).unwrap(), "A").is_err());
/// ```
pub fn parse_move_token(rules: &Rules, text: &str) -> Result<(usize, usize)> {
    match read_move(rules, text)? {
        (Some(p), h) => Ok((p, h)),
        (None, _) => Err(bad_move(
            text,
            "with 3 or more players a recorded move names its player, e.g. 2C",
        )),
    }
}

/// The outcome of a position as text: the stores joined by `-`, then the status, e.g.
/// `25-19 ended by threshold`, `0-0 ongoing` or `0-0-0 truncated at the ply limit`. Game records
/// write it in their `Result` tag.
///
/// ```
/// use awale::notation::result_text;
/// use awale::{Rules, State};
/// let rules = Rules::abapa();
/// assert_eq!(result_text(&rules, &State::initial(&rules, 0)), "0-0 ongoing");
/// ```
pub fn result_text(rules: &Rules, state: &State) -> String {
    let scores: Vec<String> = state.scores()[..rules.players as usize]
        .iter()
        .map(|s| s.to_string())
        .collect();
    format!("{} {}", scores.join("-"), state.status())
}

/// Draws a position as an ASCII board.
///
/// With 2 players North's row is on top, right to left (`f e d c b a`), South's at the bottom,
/// left to right (`A B C D E F`), so the seeds travel counter-clockwise; each row's store is at
/// its right and an arrow marks the player to move. With more players each player has a line,
/// in sowing order. The first line names the rules, the ply and the status.
///
/// ```
/// use awale::notation::render_board;
/// use awale::{Rules, State};
/// let rules = Rules::abapa();
/// let board = render_board(&rules, &State::initial(&rules, 0));
/// assert!(board.contains(" f    e    d    c    b    a"));
/// assert!(board.contains("|  4 |  4 |  4 |  4 |  4 |  4 |"));
/// assert!(board.contains("South (A-F) to move"));
/// ```
pub fn render_board(rules: &Rules, state: &State) -> String {
    let players = rules.players as usize;
    let houses = rules.houses as usize;
    let pits = &state.pits()[..rules.pits()];
    let scores = &state.scores()[..players];
    let width = pits
        .iter()
        .chain(scores)
        .map(|x| x.to_string().len())
        .max()
        .unwrap_or(1)
        .max(2);
    let name_width = (0..players)
        .map(|p| player_name(rules, p).len())
        .max()
        .unwrap_or(0);
    let indent = " ".repeat(name_width + 1);
    let cell = |x: u8| format!(" {x:>width$} |");
    let rule = format!(
        "{indent}+{}",
        format!("{}+", "-".repeat(width + 2)).repeat(houses)
    );

    let mut out = String::new();
    let status = match state.status() {
        Status::Ongoing => format!(
            "{} ({}) to move",
            player_name(rules, state.to_move()),
            house_range(rules, state.to_move())
        ),
        st => {
            let winners = state.winners(rules);
            let outcome = match winners.len() {
                0 => String::new(),
                1 => format!(": {} wins", player_name(rules, winners[0])),
                n if n == players => ": draw".to_string(),
                _ => {
                    let names: Vec<String> =
                        winners.iter().map(|&p| player_name(rules, p)).collect();
                    format!(": {} share the win", names.join(" and "))
                }
            };
            format!("game over, {st}{outcome}")
        }
    };
    out.push_str(&format!("{rules}  ply {}  {status}\n", state.ply()));
    let row_line = |p: usize, order: &[usize]| {
        let cells: String = order.iter().map(|&h| cell(pits[p * houses + h])).collect();
        let arrow = if !state.is_over() && state.to_move() == p {
            "  <- to move"
        } else {
            ""
        };
        format!(
            "{:<name_width$} |{cells}  store {:>width$}{arrow}\n",
            player_name(rules, p),
            scores[p]
        )
    };
    let labels = |p: usize, order: &[usize]| -> String {
        let ls: String = order
            .iter()
            .map(|&h| {
                let m = format_move(rules, p, h);
                // In multi-player games the row already names the player: show the letter only.
                let letter = m.chars().last().unwrap_or(' ');
                format!("{letter:>w$}  ", w = width + 1)
            })
            .collect();
        format!("{indent} {}\n", ls.trim_end())
    };
    let fwd: Vec<usize> = (0..houses).collect();
    let rev: Vec<usize> = fwd.iter().rev().copied().collect();
    if players == 2 {
        out.push_str(&labels(1, &rev));
        out.push_str(&rule);
        out.push('\n');
        out.push_str(&row_line(1, &rev));
        out.push_str(&row_line(0, &fwd));
        out.push_str(&rule);
        out.push('\n');
        out.push_str(&labels(0, &fwd));
    } else {
        out.push_str(&labels(0, &fwd));
        out.push_str(&rule);
        out.push('\n');
        for p in 0..players {
            out.push_str(&row_line(p, &fwd));
        }
        out.push_str(&rule);
        out.push('\n');
    }
    out
}

/// One move of a game record: who played it and which house of their row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RecordedMove {
    /// The player who moved (0-based).
    pub player: usize,
    /// The house played, 0-based in the player's own row.
    pub house: usize,
}

/// A game as text: the rules, the start position, the moves, and optionally the result and the
/// final position, which [`GameRecord::replay`] checks.
///
/// The text form has tag lines `[Key "value"]` and then the moves in move notation, separated by
/// spaces or newlines (move numbers such as `12.` and lines starting with `#` are ignored):
///
/// ```text
/// [Rules "abapa"]
/// [Start "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0,0 0"]
/// [Result "0-0 ongoing"]
/// [Final "abapa 1,6,2,7,6,6/5,4,0,5,5,1 0,0 0 4"]
/// C f A c
/// ```
///
/// `Rules` is required unless `Start` is given (then its rules are used); without `Start` the
/// game starts from the start position with the rules' fixed first player (player 0 when the
/// rules draw one at random). `Result` (see [`result_text`]) and `Final` are optional; other tags
/// are kept in [`GameRecord::tags`]. The JSON form (serde) has the same fields as strings.
///
/// ```
/// use awale::notation::GameRecord;
/// use awale::{Game, Rules};
/// let mut game = Game::new(Rules::abapa());
/// for house in [2, 5, 0, 2] {
///     game.apply(house).unwrap();
/// }
/// let text = GameRecord::from_game(&game).to_string();
/// assert!(text.contains("C f A c"));
/// let record: GameRecord = text.parse().unwrap();
/// let again = record.replay().unwrap();
/// assert_eq!(again.state(), game.state());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RawRecord", into = "RawRecord")]
pub struct GameRecord {
    /// The rules.
    pub rules: Rules,
    /// The position the game started from.
    pub start: State,
    /// The moves, in order.
    pub moves: Vec<RecordedMove>,
    /// The result as [`result_text`] writes it, if recorded.
    pub result: Option<String>,
    /// The final position, if recorded. It is compared with the replay in position notation
    /// (board, stores, player to move, ply).
    pub final_position: Option<State>,
    /// Other tags, in order (for example players' names).
    pub tags: Vec<(String, String)>,
}

/// The serialized form of a [`GameRecord`]: everything in text notation.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct RawRecord {
    rules: String,
    start: String,
    moves: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    result: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    final_position: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    tags: Vec<(String, String)>,
}

impl From<GameRecord> for RawRecord {
    fn from(r: GameRecord) -> RawRecord {
        RawRecord {
            rules: r.rules.to_string(),
            start: format_position(&r.rules, &r.start),
            moves: r.move_texts(),
            result: r.result.clone(),
            final_position: r.final_position.map(|s| format_position(&r.rules, &s)),
            tags: r.tags,
        }
    }
}

impl TryFrom<RawRecord> for GameRecord {
    type Error = AwaleError;

    fn try_from(raw: RawRecord) -> Result<GameRecord> {
        let rules: Rules = raw
            .rules
            .parse()
            .map_err(|e| AwaleError::BadRecord(format!("rules '{}': {e}", raw.rules)))?;
        let start = record_position(&rules, "start", &raw.start)?;
        let final_position = raw
            .final_position
            .as_deref()
            .map(|f| record_position(&rules, "final", f))
            .transpose()?;
        let moves = raw
            .moves
            .iter()
            .enumerate()
            .map(|(i, m)| record_move(&rules, i, m))
            .collect::<Result<Vec<_>>>()?;
        Ok(GameRecord {
            rules,
            start,
            moves,
            result: raw.result,
            final_position,
            tags: raw.tags,
        })
    }
}

/// Parses a position of a record and checks it is played under the record's rules.
fn record_position(rules: &Rules, what: &str, text: &str) -> Result<State> {
    let (r, s) = parse_position(text).map_err(|e| AwaleError::BadRecord(format!("{what}: {e}")))?;
    if r != *rules {
        return Err(AwaleError::BadRecord(format!(
            "the {what} position is played under '{r}' but the record's rules are '{rules}'"
        )));
    }
    Ok(s)
}

fn record_move(rules: &Rules, index: usize, text: &str) -> Result<RecordedMove> {
    let (player, house) = parse_move_token(rules, text)
        .map_err(|e| AwaleError::BadRecord(format!("move {}: {e}", index + 1)))?;
    Ok(RecordedMove { player, house })
}

fn quote(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Parses a tag line `[Key "value"]` (line number `n` for errors).
fn parse_tag(line: &str, n: usize) -> Result<(String, String)> {
    let bad = |why: &str| AwaleError::BadRecord(format!("line {n}: {why}: {line}"));
    let inner = line
        .strip_prefix('[')
        .and_then(|l| l.strip_suffix(']'))
        .ok_or_else(|| bad("a tag line must look like [Key \"value\"]"))?
        .trim();
    let (key, rest) = inner
        .split_once(char::is_whitespace)
        .ok_or_else(|| bad("a tag needs a key and a quoted value"))?;
    let rest = rest.trim();
    let body = rest
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .ok_or_else(|| bad("the tag value must be in double quotes"))?;
    let mut value = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('n') => value.push('\n'),
                Some(c @ ('"' | '\\')) => value.push(c),
                _ => return Err(bad("bad escape in the tag value (use \\\" \\\\ or \\n)")),
            },
            '"' => {
                return Err(bad(
                    "a double quote inside a tag value must be escaped as \\\"",
                ))
            }
            c => value.push(c),
        }
    }
    Ok((key.to_string(), value))
}

impl GameRecord {
    /// The record of a game: its rules, start position, moves, result and final position.
    pub fn from_game(game: &Game) -> GameRecord {
        let rules = *game.rules();
        let mut s = *game.start();
        let mut moves = Vec::with_capacity(game.moves().len());
        for &h in game.moves() {
            moves.push(RecordedMove {
                player: s.to_move(),
                house: h as usize,
            });
            s.apply_unchecked(&rules, h as usize);
        }
        GameRecord {
            rules,
            start: *game.start(),
            moves,
            result: Some(result_text(&rules, game.state())),
            final_position: Some(*game.state()),
            tags: Vec::new(),
        }
    }

    /// The moves in move notation.
    pub fn move_texts(&self) -> Vec<String> {
        self.moves
            .iter()
            .map(|m| format_move(&self.rules, m.player, m.house))
            .collect()
    }

    /// The value of tag `key` (among [`GameRecord::tags`]), if present.
    pub fn tag(&self, key: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Replays the moves from the start position. Fails with [`AwaleError::BadRecord`] naming
    /// the move when a move is illegal or recorded for a player who is not to move, and when the
    /// replay does not reach the recorded final position or result.
    ///
    /// ```
    /// use awale::notation::GameRecord;
    /// let text = "[Rules \"abapa\"]\n[Final \"abapa 4,4,0,5,5,5/5,4,4,4,4,4 0,0 1 1\"]\nC\n";
    /// let record: GameRecord = text.parse().unwrap();
    /// assert_eq!(record.replay().unwrap().moves(), &[2]);
    /// let wrong: GameRecord = text.replace("\nC\n", "\nD\n").parse().unwrap();
    /// assert!(wrong.replay().unwrap_err().to_string().contains("final position"));
    /// ```
    pub fn replay(&self) -> Result<Game> {
        let rules = self.rules;
        let mut game = Game::from_state(rules, self.start);
        for (i, m) in self.moves.iter().enumerate() {
            let text = format_move(&rules, m.player, m.house);
            if game.is_over() {
                return Err(AwaleError::BadRecord(format!(
                    "move {} ({text}): the game is already over ({})",
                    i + 1,
                    game.status()
                )));
            }
            if m.player != game.to_move() {
                return Err(AwaleError::BadRecord(format!(
                    "move {} ({text}) is by {} but {} is to move",
                    i + 1,
                    player_name(&rules, m.player),
                    player_name(&rules, game.to_move())
                )));
            }
            game.apply(m.house)
                .map_err(|e| AwaleError::BadRecord(format!("move {} ({text}): {e}", i + 1)))?;
        }
        if let Some(fin) = &self.final_position {
            let want = format_position(&rules, fin);
            let got = format_position(&rules, game.state());
            if want != got {
                return Err(AwaleError::BadRecord(format!(
                    "the moves reach the final position '{got}', not the recorded '{want}'"
                )));
            }
        }
        if let Some(want) = &self.result {
            let got = result_text(&rules, game.state());
            if want.trim() != got {
                return Err(AwaleError::BadRecord(format!(
                    "the moves give the result '{got}', not the recorded '{want}'"
                )));
            }
        }
        Ok(game)
    }
}

impl fmt::Display for GameRecord {
    /// Writes the text form: tags, then the moves, 20 to a line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "[Rules {}]", quote(&self.rules.to_string()))?;
        writeln!(
            f,
            "[Start {}]",
            quote(&format_position(&self.rules, &self.start))
        )?;
        for (k, v) in &self.tags {
            writeln!(f, "[{k} {}]", quote(v))?;
        }
        if let Some(r) = &self.result {
            writeln!(f, "[Result {}]", quote(r))?;
        }
        if let Some(s) = &self.final_position {
            writeln!(f, "[Final {}]", quote(&format_position(&self.rules, s)))?;
        }
        for line in self.move_texts().chunks(20) {
            writeln!(f, "{}", line.join(" "))?;
        }
        Ok(())
    }
}

impl FromStr for GameRecord {
    type Err = AwaleError;

    /// Parses the text form (see [`GameRecord`]). Moves are checked for form and for naming an
    /// existing player and house; their legality is checked by [`GameRecord::replay`].
    fn from_str(text: &str) -> Result<GameRecord> {
        let mut rules_tag: Option<String> = None;
        let mut start: Option<String> = None;
        let mut result = None;
        let mut final_position = None;
        let mut tags = Vec::new();
        let mut move_tokens: Vec<String> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if line.starts_with('[') {
                let (key, value) = parse_tag(line, i + 1)?;
                let slot = match key.as_str() {
                    "Rules" => &mut rules_tag,
                    "Start" => &mut start,
                    "Result" => &mut result,
                    "Final" => &mut final_position,
                    _ => {
                        tags.push((key, value));
                        continue;
                    }
                };
                if slot.is_some() {
                    return Err(AwaleError::BadRecord(format!(
                        "line {}: the {key} tag is given twice",
                        i + 1
                    )));
                }
                *slot = Some(value);
                continue;
            }
            for tok in line.split_whitespace() {
                let is_number = tok
                    .strip_suffix('.')
                    .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()));
                if !is_number {
                    move_tokens.push(tok.to_string());
                }
            }
        }
        let rules_spec = match (&rules_tag, &start) {
            (Some(r), _) => r.clone(),
            (None, Some(s)) => s.split_whitespace().next().unwrap_or("").to_string(),
            (None, None) => {
                return Err(AwaleError::BadRecord(
                    "missing the [Rules \"...\"] tag (or a [Start \"...\"] position)".into(),
                ))
            }
        };
        let start = match start {
            Some(s) => s,
            None => {
                let rules: Rules = rules_spec
                    .parse()
                    .map_err(|e| AwaleError::BadRecord(format!("rules '{rules_spec}': {e}")))?;
                let first = rules.first_player.pick(rules.players as usize, |_| 0);
                format_position(&rules, &State::initial(&rules, first))
            }
        };
        GameRecord::try_from(RawRecord {
            rules: rules_spec,
            start,
            moves: move_tokens,
            result,
            final_position,
            tags,
        })
    }
}
