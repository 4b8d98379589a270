//! `/api/replay`: game records and tournament files as frames to step through. Every cost is
//! bounded by the server's limits: a game has at most `--max-plies` moves (a longer line is
//! refused before it is parsed) and rules the server would play (the caps of a new game), the
//! games are replayed one at a time, and the answer is written as it goes into a buffer of at
//! most [`REPLAY_ANSWER`] bytes: a replay that would write more stops there with 413. The
//! buffers of all answers being written or sent count against [`REPLAY_ANSWERS`] (and those of
//! one client address against [`REPLAY_CLIENT_ANSWERS`]) until their last byte is sent (or
//! their connection dropped): over either, a 503.

use std::io::Write;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::Value;

use awale::notation::{format_move, player_name, result_text, GameRecord};

use super::admission::{Admission, REPLAY_ANSWER, REPLAY_ANSWERS, REPLAY_CLIENT_ANSWERS};
use super::conn::client_of;
use super::error::{ApiError, ApiResult};
use super::ledger::{Ledger, Reservation, Short};
use super::session::AppState;

/// The answer goes to the connection in parts of this size.
const SENT_PART: usize = 64 * 1024;
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

/// A writer into memory that refuses to grow past its limit, or past what the answers' budget
/// ([`REPLAY_ANSWERS`], [`REPLAY_CLIENT_ANSWERS`] of it for its client) grants it: its buffer is
/// counted (in KiB) as it grows.
struct Capped {
    out: Vec<u8>,
    limit: usize,
    share: Reservation,
    /// Set when the budget had no room (a 503, not a 413): which one.
    busy: Option<Short>,
}

impl Capped {
    fn new(limit: usize, share: Reservation) -> Capped {
        Capped {
            out: Vec::new(),
            limit,
            share,
            busy: None,
        }
    }
}

impl Write for Capped {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let len = self.out.len() + buf.len();
        if len > self.limit {
            return Err(std::io::Error::other("the answer is over its limit"));
        }
        if len > self.out.capacity() {
            let want = (self.out.capacity() * 2).clamp(len.max(SENT_PART), self.limit);
            if let Err(short) = self.share.grow_to(want.div_ceil(1024) as u64) {
                self.busy = Some(short);
                return Err(std::io::Error::other("the answers' budget is spent"));
            }
            self.out.reserve_exact(want - self.out.len());
        }
        self.out.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// An answer sent in parts of [`SENT_PART`] bytes, holding its share of [`REPLAY_ANSWERS`] until
/// it is dropped (sent whole, or its connection gone). Each part is a copy: the whole buffer
/// is freed with the share.
struct HeldAnswer {
    out: Vec<u8>,
    sent: usize,
    _share: Reservation,
}

impl http_body::Body for HeldAnswer {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, Self::Error>>> {
        let from = self.sent;
        let to = (from + SENT_PART).min(self.out.len());
        if from == to {
            return Poll::Ready(None);
        }
        self.sent = to;
        let part = Bytes::copy_from_slice(&self.out[from..to]);
        Poll::Ready(Some(Ok(http_body::Frame::data(part))))
    }

    fn is_end_stream(&self) -> bool {
        self.sent == self.out.len()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        http_body::SizeHint::with_exact((self.out.len() - self.sent) as u64)
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
fn write_replay(body: &str, admission: &Admission, w: &mut Capped) -> ApiResult<()> {
    let over = |_: std::io::Error| {
        ApiError::too_large(format!(
            "the replay's answer would be over this server's limit of {} MiB: send fewer games",
            REPLAY_ANSWER >> 20
        ))
    };
    let plies = admission.limits.plies;
    let games = read_records(body, plies)?;
    w.write_all(b"{\"games\":[").map_err(over)?;
    for (k, &(line, text)) in games.iter().enumerate() {
        let (record, seats) = parse_game(text, line)?;
        admission
            .admit_rules(record.rules)
            .map_err(|e| ApiError(e.0, format!("game {}: {}", k + 1, e.1)))?;
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

/// The 503 of a replay whose answer found no room in `short`'s budget.
fn no_room(short: Short) -> ApiError {
    ApiError::busy(match short {
        Short::All => format!(
            "the server holds {} MiB of replay answers, its limit for all clients (slow readers included); ask again shortly",
            REPLAY_ANSWERS >> 20
        ),
        Short::Client => format!(
            "this client holds {} MiB of replay answers, its share of the server's (answers its connections have not read yet included); read them, then ask again",
            REPLAY_CLIENT_ANSWERS >> 20
        ),
    })
}

pub(super) async fn replay(
    State(app): State<Arc<AppState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    body: String,
) -> ApiResult<Response> {
    // Replays are CPU work: they take a thinking permit like agents (`--max-thinking`).
    let permit = app.permit().await?;
    let admission = app.admission.clone();
    let budget: Arc<Ledger> = app.replay_answers.clone();
    let client = client_of(peer.ip());
    let answer = tokio::task::spawn_blocking(move || -> ApiResult<HeldAnswer> {
        let _permit = permit;
        let mut w = Capped::new(REPLAY_ANSWER, budget.empty(Some(client)));
        let written = write_replay(&body, &admission, &mut w);
        match (written, w.busy) {
            (Err(_), Some(short)) => Err(no_room(short)),
            (Err(e), None) => Err(e),
            (Ok(()), _) => Ok(HeldAnswer {
                out: w.out,
                sent: 0,
                _share: w.share,
            }),
        }
    })
    .await
    .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))??;
    Ok((
        [(header::CONTENT_TYPE, "application/json")],
        Body::new(answer),
    )
        .into_response())
}
