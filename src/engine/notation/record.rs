//! Game records: tag lines such as `[Rules "abapa"]` followed by the moves, in text and
//! JSON.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::board::result_text;
use super::moves::{format_move, parse_move_token, player_name};
use super::position::{format_position, parse_position};
use crate::error::{AwaleError, Result};
use crate::game::Game;
use crate::rules::Rules;
use crate::state::State;

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
            // The move's text only for an error: a replay of a long record allocates nothing.
            let text = || format_move(&rules, m.player, m.house);
            if game.is_over() {
                return Err(AwaleError::BadRecord(format!(
                    "move {} ({}): the game is already over ({})",
                    i + 1,
                    text(),
                    game.status()
                )));
            }
            if m.player != game.to_move() {
                return Err(AwaleError::BadRecord(format!(
                    "move {} ({}) is by {} but {} is to move",
                    i + 1,
                    text(),
                    player_name(&rules, m.player),
                    player_name(&rules, game.to_move())
                )));
            }
            game.apply(m.house)
                .map_err(|e| AwaleError::BadRecord(format!("move {} ({}): {e}", i + 1, text())))?;
        }
        if let Some(fin) = &self.final_position {
            // Equal states print alike: the texts are compared only when the states differ.
            if fin != game.state() {
                let want = format_position(&rules, fin);
                let got = format_position(&rules, game.state());
                if want != got {
                    return Err(AwaleError::BadRecord(format!(
                        "the moves reach the final position '{got}', not the recorded '{want}'"
                    )));
                }
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
