//! `/api/replay`: game records and tournament files as frames to step through.

use axum::http::StatusCode;
use axum::Json;
use serde_json::{json, Value};

use awale::notation::{format_move, player_name, result_text, GameRecord};

use super::api::REPLAY_GAMES;
use super::error::{ApiError, ApiResult};

/// Parses a game record (text or JSON), or a tournament's `games.jsonl` (one game per line).
fn read_records(text: &str) -> ApiResult<Vec<(GameRecord, Vec<String>)>> {
    let t = text.trim_start();
    if t.is_empty() {
        return Err(ApiError::bad(
            "the body is empty: send a game record or games.jsonl",
        ));
    }
    if !t.starts_with('{') {
        let record: GameRecord = t
            .parse()
            .map_err(|e| ApiError::bad(format!("game record: {e}")))?;
        return Ok(vec![(record, Vec::new())]);
    }
    let mut out = Vec::new();
    for (i, line) in t.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        if out.len() == REPLAY_GAMES {
            return Err(ApiError(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("more than {REPLAY_GAMES} games in one replay"),
            ));
        }
        let v: ApiResult<Value> = serde_json::from_str(line).map_err(|e| {
            // A record in pretty-printed JSON spans several lines: try the whole body.
            ApiError::bad(format!("line {}: {e}", i + 1))
        });
        let v = match v {
            Ok(v) => v,
            Err(e) if i == 0 => match serde_json::from_str::<Value>(t) {
                Ok(v) => {
                    out.push(record_of(&v, 1)?);
                    return Ok(out);
                }
                Err(_) => return Err(e),
            },
            Err(e) => return Err(e),
        };
        out.push(record_of(&v, i + 1)?);
    }
    Ok(out)
}

/// The record in a `games.jsonl` line (`{"record": …, "seats": […]}`) or a bare record's JSON.
fn record_of(v: &Value, line: usize) -> ApiResult<(GameRecord, Vec<String>)> {
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
        None => (v, Vec::new()),
    };
    let record: GameRecord = serde_json::from_value(rec.clone())
        .map_err(|e| ApiError::bad(format!("line {line}: not a game record: {e}")))?;
    Ok((record, seats))
}

pub(super) async fn replay(body: String) -> ApiResult<Json<Value>> {
    let records = tokio::task::spawn_blocking(move || -> ApiResult<Vec<Value>> {
        let mut games = Vec::new();
        for (k, (record, seats)) in read_records(&body)?.into_iter().enumerate() {
            let game = record
                .replay()
                .map_err(|e| ApiError::bad(format!("game {}: {e}", k + 1)))?;
            let rules = *game.rules();
            let players = rules.players as usize;
            let houses = rules.houses as usize;
            let mut st = *game.start();
            let frame = |st: &awale::State, label: Option<String>, house: Option<usize>| {
                json!({
                    "pits": &st.pits()[..players * houses],
                    "stores": &st.scores()[..players],
                    "to_move": st.to_move(),
                    "move": label,
                    "house": house,
                })
            };
            let mut frames = vec![frame(&st, None, None)];
            for &m in game.moves() {
                let label = format_move(&rules, st.to_move(), m as usize);
                st.apply_unchecked(&rules, m as usize);
                frames.push(frame(&st, Some(label), Some(m as usize)));
            }
            games.push(json!({
                "rules": rules.to_string(),
                "players": players,
                "houses": houses,
                "names": (0..players).map(|p| player_name(&rules, p)).collect::<Vec<_>>(),
                "seats": seats,
                "result": result_text(&rules, game.state()),
                "frames": frames,
            }));
        }
        Ok(games)
    })
    .await
    .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))??;
    Ok(Json(json!({ "games": records })))
}
