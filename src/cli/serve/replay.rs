//! `/api/replay`: game records and tournament files as frames to step through. Every cost is
//! bounded by the server's limits: a game has at most `--max-plies` moves (a longer line is
//! refused before it is parsed), the games are replayed one at a time, and the answer is
//! written as it goes into a buffer of at most [`REPLAY_ANSWER`] bytes: a replay that would
//! write more stops there with 413.

use std::io::Write;
use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::Value;

use awale::notation::{format_move, player_name, result_text, GameRecord};

use super::error::{ApiError, ApiResult};
use super::session::AppState;

/// Largest `/api/replay` answer (its JSON): a replay that would write more is refused with 413.
pub(super) const REPLAY_ANSWER: usize = 32 * 1024 * 1024;
/// Games of one `/api/replay` answer at most.
pub(super) const REPLAY_GAMES: usize = 2000;

/// Bytes a game's text (a record, or a `games.jsonl` line) may take besides its moves (tags,
/// seats, the start position).
const TEXT_BESIDES_MOVES: usize = 64 * 1024;
/// Bytes a move may take in a record at most, counted for the bound above (`"A",` is 4).
const TEXT_PER_MOVE: usize = 16;

/// The games of a body: a game record (text or JSON), or a tournament's `games.jsonl` (one
/// game per line), each with its seats.
fn read_records(text: &str, plies: u32) -> ApiResult<Vec<(usize, &str)>> {
    let t = text.trim_start();
    if t.is_empty() {
        return Err(ApiError::bad(
            "the body is empty: send a game record or games.jsonl",
        ));
    }
    let longest = plies as usize * TEXT_PER_MOVE + TEXT_BESIDES_MOVES;
    let too_long = |what: String| {
        ApiError::too_large(format!(
            "{what} is longer than a game of this server's {plies} plies at most (--max-plies) can be"
        ))
    };
    if !t.starts_with('{') {
        if t.len() > longest {
            return Err(too_long("the record".into()));
        }
        return Ok(vec![(1, t)]);
    }
    // A record in pretty-printed JSON spans several lines: its first line is no JSON.
    let first = t.lines().next().unwrap_or("");
    if serde_json::from_str::<serde::de::IgnoredAny>(first).is_err()
        && serde_json::from_str::<serde::de::IgnoredAny>(t).is_ok()
    {
        if t.len() > longest {
            return Err(too_long("the record".into()));
        }
        return Ok(vec![(1, t)]);
    }
    let mut out = Vec::new();
    for (i, line) in t.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        if out.len() == REPLAY_GAMES {
            return Err(ApiError::too_large(format!(
                "more than {REPLAY_GAMES} games in one replay"
            )));
        }
        if line.len() > longest {
            return Err(too_long(format!("line {}", i + 1)));
        }
        out.push((i + 1, line));
    }
    Ok(out)
}

/// The record of one game's text (`line` names it in errors): a record in text notation, a
/// `games.jsonl` line (`{"record": …, "seats": […]}`) or a bare record's JSON.
fn parse_game(text: &str, line: usize) -> ApiResult<(GameRecord, Vec<String>)> {
    if !text.starts_with('{') {
        let record: GameRecord = text
            .parse()
            .map_err(|e| ApiError::bad(format!("game record: {e}")))?;
        return Ok((record, Vec::new()));
    }
    let v: Value =
        serde_json::from_str(text).map_err(|e| ApiError::bad(format!("line {line}: {e}")))?;
    let (rec, seats) = match v.get("record") {
        Some(r) => (
            r,
            v.get("seats")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|x| x.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default(),
        ),
        None => (&v, Vec::new()),
    };
    let record: GameRecord = serde_json::from_value(rec.clone())
        .map_err(|e| ApiError::bad(format!("line {line}: not a game record: {e}")))?;
    Ok((record, seats))
}

/// A writer into memory that refuses to grow past its limit.
struct Capped {
    out: Vec<u8>,
    limit: usize,
}

impl Write for Capped {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.out.len() + buf.len() > self.limit {
            return Err(std::io::Error::other("the answer is over its limit"));
        }
        self.out.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// One position of a replay.
#[derive(Serialize)]
struct Frame<'a> {
    pits: &'a [u8],
    stores: &'a [u8],
    to_move: usize,
    #[serde(rename = "move")]
    label: Option<String>,
    house: Option<usize>,
}

/// A replayed game, its frames written apart.
#[derive(Serialize)]
struct Head<'a> {
    rules: String,
    players: usize,
    houses: usize,
    names: Vec<String>,
    seats: &'a [String],
    result: String,
}

/// Writes the answer of `body` into `w`: `{"games": [...]}`, each game with its frames.
fn write_replay(body: &str, plies: u32, w: &mut Capped) -> ApiResult<()> {
    let over = |_: std::io::Error| {
        ApiError::too_large(format!(
            "the replay's answer would be over this server's limit of {} MiB: send fewer games",
            REPLAY_ANSWER >> 20
        ))
    };
    let games = read_records(body, plies)?;
    w.write_all(b"{\"games\":[").map_err(over)?;
    for (k, &(line, text)) in games.iter().enumerate() {
        let (record, seats) = parse_game(text, line)?;
        if record.moves.len() > plies as usize {
            return Err(ApiError::too_large(format!(
                "game {}: {} plies, more than this server's {plies} (--max-plies)",
                k + 1,
                record.moves.len()
            )));
        }
        let game = record
            .replay()
            .map_err(|e| ApiError::bad(format!("game {}: {e}", k + 1)))?;
        let rules = *game.rules();
        let players = rules.players as usize;
        let houses = rules.houses as usize;
        let head = Head {
            rules: rules.to_string(),
            players,
            houses,
            names: (0..players).map(|p| player_name(&rules, p)).collect(),
            seats: &seats,
            result: result_text(&rules, game.state()),
        };
        if k > 0 {
            w.write_all(b",").map_err(over)?;
        }
        // The head's object, left open for its frames.
        let head = serde_json::to_vec(&head).map_err(|e| ApiError::bad(e.to_string()))?;
        w.write_all(&head[..head.len() - 1]).map_err(over)?;
        w.write_all(b",\"frames\":[").map_err(over)?;
        let mut st = *game.start();
        let frame =
            |st: &awale::State, label: Option<String>, house: Option<usize>, w: &mut Capped| {
                serde_json::to_writer(
                    &mut *w,
                    &Frame {
                        pits: &st.pits()[..players * houses],
                        stores: &st.scores()[..players],
                        to_move: st.to_move(),
                        label,
                        house,
                    },
                )
            };
        frame(&st, None, None, w).map_err(|e| over(std::io::Error::other(e)))?;
        for &m in game.moves() {
            let label = format_move(&rules, st.to_move(), m as usize);
            st.apply_unchecked(&rules, m as usize);
            w.write_all(b",").map_err(over)?;
            frame(&st, Some(label), Some(m as usize), w)
                .map_err(|e| over(std::io::Error::other(e)))?;
        }
        w.write_all(b"]}").map_err(over)?;
    }
    w.write_all(b"]}").map_err(over)?;
    Ok(())
}

pub(super) async fn replay(State(app): State<Arc<AppState>>, body: String) -> ApiResult<Response> {
    // Replays are CPU work: they take a thinking permit like agents (`--max-thinking`).
    let permit = app.permit().await?;
    let plies = app.admission.limits.plies;
    let answer = tokio::task::spawn_blocking(move || -> ApiResult<Vec<u8>> {
        let _permit = permit;
        let mut w = Capped {
            out: Vec::new(),
            limit: REPLAY_ANSWER,
        };
        write_replay(&body, plies, &mut w)?;
        Ok(w.out)
    })
    .await
    .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))??;
    Ok(([(header::CONTENT_TYPE, "application/json")], answer).into_response())
}
