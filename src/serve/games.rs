//! The games' routes: create, read, delete, a person's move, undo and hint.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::rejection::JsonRejection;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::StatusCode;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use awale::agents::parse_agent_list;
use awale::notation::{format_move, parse_move, player_name, result_text};
use awale::{AwaleError, Game, Rules};

use super::admission::Admitted;
use super::conn::client_of;
use super::error::{ApiError, ApiResult};
use super::session::{lock, AppState, LastMove, Seat, Session};
use super::view::view;

/// `POST /api/games` body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct NewGame {
    /// A rules spec (`abapa`, `oware:players=3`) or a position to start from.
    #[serde(default = "default_rules")]
    rules: String,
    /// Start from this position (position notation) instead; its rules replace `rules`.
    position: Option<String>,
    /// One entry per seat: `"human"` (or `"person"`) or an agent spec.
    seats: Vec<String>,
    /// Seed of the agents' random choices and of a random first player: a whole number,
    /// written `7` or `7.0` (JSON Schema's integers).
    #[serde(default, deserialize_with = "whole_number")]
    seed: Option<u64>,
}

/// An optional whole number from 0 to 2^64 - 1: JSON's `7` or `7.0` (a number with no
/// fraction is an integer to JSON Schema, hence to the OpenAPI document); `7.5`, `-1` and
/// `1e30` are refused.
fn whole_number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    let v = Option::<serde_json::Number>::deserialize(d)?;
    let Some(n) = v else {
        return Ok(None);
    };
    if let Some(u) = n.as_u64() {
        return Ok(Some(u));
    }
    match n.as_f64() {
        Some(f) if f.fract() == 0.0 && (0.0..18446744073709551616.0).contains(&f) => {
            Ok(Some(f as u64))
        }
        _ => Err(serde::de::Error::custom(format!(
            "seed: {n} is not a whole number from 0 to 18446744073709551615"
        ))),
    }
}

fn default_rules() -> String {
    "abapa".into()
}

pub(super) async fn new_game(
    State(app): State<Arc<AppState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    body: Result<Json<NewGame>, JsonRejection>,
) -> ApiResult<(StatusCode, Json<Value>)> {
    let Json(req) = body?;
    let seed = req.seed.unwrap_or_else(rand::random);
    let game = match &req.position {
        Some(text) => {
            let (rules, state) = awale::notation::parse_position(text)
                .map_err(|e| ApiError::bad(format!("position: {e}")))?;
            let rules = app.admission.admit_rules(rules)?;
            if state.ply() >= rules.max_plies {
                return Err(ApiError::bad(format!(
                    "position: ply {} is at or past the game's limit of {} plies",
                    state.ply(),
                    rules.max_plies
                )));
            }
            Game::from_state(rules, state)
        }
        None => {
            let rules: Rules = req
                .rules
                .parse()
                .map_err(|e| ApiError::bad(format!("rules: {e}")))?;
            Game::with_seed(app.admission.admit_rules(rules)?, seed)
        }
    };
    let rules = *game.rules();
    let players = rules.players as usize;
    if req.seats.len() != players {
        return Err(ApiError::bad(format!(
            "seats: {} entries for a {players}-player game (one per seat: \"human\" or an agent spec)",
            req.seats.len()
        )));
    }
    // Each seat's spec, admitted and planned (on a worker thread, under a build permit: a
    // network is read from its file by its kind's plan).
    let permit = app.build_permit().await;
    let texts = req.seats.clone();
    let admitter = app.clone();
    let admitted = tokio::task::spawn_blocking(move || admit_seats(&admitter, &texts))
        .await
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))??;
    // Tables are opened (and counted against --memory-mb) by the server, once for every game
    // whose rules they answer for; the agents then share them.
    for (i, seat) in admitted.iter().enumerate() {
        let Some((_, a)) = seat else { continue };
        if a.plan.uses_tables() && app.table(&rules).await.is_none() {
            return Err(ApiError::forbidden(format!(
                "seat {i}: this server has no endgame tables for '{rules}' (or no room for them within --memory-mb)"
            )));
        }
    }
    // The table's values in the view, when the server has one for these rules.
    app.table(&rules).await;
    // Built from their plans on a worker thread; each agent's memory is what its kind declared
    // (checked at admission, counted at insertion).
    let memory_mb = admitted.iter().flatten().map(|(_, a)| a.memory_mb).sum();
    let builder = app.clone();
    let seats = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        build_seats(&builder, admitted, &rules, seed)
    })
    .await
    .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))??;
    let session = Session {
        game,
        seats,
        thinking: false,
        last: None,
        error: None,
        stop: None,
        memory_mb,
    };
    let view = view(&app, "", &session);
    let id = app.insert(session, client_of(peer.ip()))?;
    let mut view = view;
    view["id"] = json!(id);
    Ok((StatusCode::CREATED, Json(view)))
}

/// A seat's spec as written and as admitted; `None` for a person.
type AdmittedSeat = Option<(String, Admitted)>;

/// Each seat of a new game as the server lets it run ([`super::admission::Admission::admit`]):
/// a person, or an agent spec admitted and planned; the memory the plans declare is checked
/// together before any agent is built.
fn admit_seats(app: &AppState, texts: &[String]) -> ApiResult<Vec<AdmittedSeat>> {
    let mut admitted = Vec::with_capacity(texts.len());
    let mut asked_mb = 0;
    for (i, text) in texts.iter().enumerate() {
        let text = text.trim();
        if text.eq_ignore_ascii_case("human") || text.eq_ignore_ascii_case("person") {
            admitted.push(None);
            continue;
        }
        let seat = |e: ApiError| ApiError(e.0, format!("seat {i}: {}", e.1));
        let specs = parse_agent_list(text).map_err(|e| ApiError::bad(format!("seat {i}: {e}")))?;
        let [spec] = specs.as_slice() else {
            return Err(ApiError::bad(format!(
                "seat {i}: one agent spec per seat, got {}",
                specs.len()
            )));
        };
        let a = app
            .admission
            .admit(&app.registry, spec, text)
            .map_err(seat)?;
        asked_mb += a.memory_mb;
        check_memory(app, asked_mb)?;
        admitted.push(Some((text.to_string(), a)));
    }
    Ok(admitted)
}

/// The seats of a new game, its agents built from their plans.
fn build_seats(
    app: &AppState,
    admitted: Vec<AdmittedSeat>,
    rules: &Rules,
    seed: u64,
) -> ApiResult<Vec<Seat>> {
    let mut seats = Vec::with_capacity(admitted.len());
    for (i, seat) in admitted.into_iter().enumerate() {
        let Some((text, a)) = seat else {
            seats.push(Seat::Person);
            continue;
        };
        let mut agent = (a.plan.factory())(&a.spec, rules).map_err(|e| {
            // The reason, about the client's spec: never the server's folders.
            let reason = match e {
                AwaleError::BadAgentSpec { reason, .. } => reason,
                e => e.to_string(),
            };
            ApiError::bad(format!(
                "seat {i}: {text}: {}",
                app.admission.scrub(&reason)
            ))
        })?;
        agent.reset(awale::agents::derive_seed(seed, i as u64));
        seats.push(Seat::Agent {
            spec: text,
            agent: Some(agent),
            costly: !a.plan.instant,
        });
    }
    Ok(seats)
}

/// Refuses a game whose agents (so far) need more than the server's memory for all games
/// (`--memory-mb`): the admission's one memory check; the insertion reserves it
/// ([`super::ledger`]).
fn check_memory(app: &AppState, memory_mb: u64) -> ApiResult<()> {
    let limit = app.admission.limits.memory_mb;
    if memory_mb > limit {
        return Err(ApiError::forbidden(format!(
            "this game's agents need {memory_mb} MiB, more than this server's {limit} MiB for all games (--memory-mb)"
        )));
    }
    Ok(())
}

pub(super) async fn get_game(
    State(app): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    let s = app.session(&id)?;
    let s = lock(&s);
    Ok(Json(view(&app, &id, &s)))
}

pub(super) async fn delete_game(
    State(app): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> ApiResult<StatusCode> {
    if !app.remove(&id) {
        return Err(ApiError(StatusCode::NOT_FOUND, "no such game".into()));
    }
    Ok(StatusCode::NO_CONTENT)
}

/// `POST /api/games/ID/move` body: a house, 0-based in the mover's row, or in move notation.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct MoveRequest {
    house: Value,
}

fn read_house(rules: &Rules, player: usize, v: &Value) -> ApiResult<usize> {
    match v {
        Value::Number(n) => {
            let h = n
                .as_u64()
                .filter(|&h| h < rules.houses as u64)
                .ok_or_else(|| {
                    ApiError::bad(format!(
                        "house {n} is out of range: 0 to {} (0-based in the mover's row)",
                        rules.houses - 1
                    ))
                })?;
            Ok(h as usize)
        }
        Value::String(t) => parse_move(rules, player, t).map_err(|e| ApiError::bad(e.to_string())),
        _ => Err(ApiError::bad(
            "house must be a number (0-based) or a move in notation such as \"C\"",
        )),
    }
}

pub(super) async fn person_move(
    State(app): State<Arc<AppState>>,
    Path(id): Path<String>,
    body: Result<Json<MoveRequest>, JsonRejection>,
) -> ApiResult<Json<Value>> {
    let Json(req) = body?;
    let s = app.session(&id)?;
    let mut s = lock(&s);
    if s.game.is_over() {
        return Err(ApiError::conflict(format!(
            "the game is over: {}",
            result_text(s.game.rules(), s.game.state())
        )));
    }
    if s.thinking {
        return Err(ApiError::conflict("an agent is thinking"));
    }
    let rules = *s.game.rules();
    let mover = s.game.to_move();
    if !matches!(s.seats[mover], Seat::Person) {
        return Err(ApiError::conflict(format!(
            "it is {}'s turn, an agent's: ask /api/games/{id}/agent-move",
            player_name(&rules, mover)
        )));
    }
    let house = read_house(&rules, mover, &req.house)?;
    let info = s.game.apply(house).map_err(|e| {
        // The move named in notation, as the page names moves (not a 0-based house).
        let why = match e {
            AwaleError::IllegalMove { reason, .. } => reason.to_string(),
            e => e.to_string(),
        };
        ApiError(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!(
                "{} is not possible: {why} (legal: {})",
                format_move(&rules, mover, house),
                s.game
                    .legal_moves()
                    .iter()
                    .map(|&h| format_move(&rules, mover, h))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
        )
    })?;
    s.last = Some(LastMove {
        player: mover,
        house,
        label: format_move(&rules, mover, house),
        captured: info.captured,
        by: "person".into(),
        thoughts: None,
    });
    s.error = None;
    Ok(Json(view(&app, &id, &s)))
}

pub(super) async fn undo(
    State(app): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    let s = app.session(&id)?;
    let mut s = lock(&s);
    if s.thinking {
        return Err(ApiError::conflict("an agent is thinking"));
    }
    let persons: Vec<bool> = s.seats.iter().map(|x| matches!(x, Seat::Person)).collect();
    let back = s
        .game
        .taken_back(|seat| persons[seat])
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    match back {
        None => Err(ApiError::conflict(
            "nothing to undo: no person has moved yet",
        )),
        Some((game, _)) => {
            s.game = game;
            s.last = None;
            s.error = None;
            Ok(Json(view(&app, &id, &s)))
        }
    }
}

pub(super) async fn hint(
    State(app): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    let game = {
        let s = app.session(&id)?;
        let s = lock(&s);
        if s.game.is_over() {
            return Err(ApiError::conflict("the game is over"));
        }
        s.game.clone()
    };
    let rules = *game.rules();
    let mover = game.to_move();
    let permit = app.permit().await?;
    let move_time_ms = app.admission.limits.move_time_ms;
    let advice = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        awale::agents::hint(&game, move_time_ms)
    })
    .await
    .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?
    .map_err(|e| ApiError(StatusCode::UNPROCESSABLE_ENTITY, e.to_string()))?;
    Ok(Json(json!({
        "house": advice.0,
        "label": format_move(&rules, mover, advice.0),
        "thoughts": advice.1,
    })))
}
