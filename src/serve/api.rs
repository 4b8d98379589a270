//! The JSON API of `awale serve`: its routes and the catalogue answers (presets, agent kinds).
//! Handlers convert JSON to engine calls and back; the rules, the agents and their thoughts
//! come from the library.

use std::sync::Arc;

use axum::extract::{DefaultBodyLimit, State};
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse};
use axum::routing::{get, post};
use axum::{middleware, Json, Router};
use serde_json::{json, Value};

use super::admission::REPLAY_LIMIT;
use super::body::read_body;
use super::error::{json_errors, ApiError, Scrub};
use super::games::{delete_game, get_game, hint, new_game, person_move, undo};
use super::guard::{guard, security_headers, Access};
use super::replay::replay;
use super::session::AppState;
use super::thinking::agent_move;

/// The page, compiled in: its HTML, script and style (three files, so that the page's
/// Content-Security-Policy allows no inline code).
pub(super) const PAGE: &str = include_str!("page.html");
pub(super) const PAGE_JS: &str = include_str!("page.js");
pub(super) const PAGE_CSS: &str = include_str!("page.css");
/// The API's OpenAPI document (`GET /api/openapi.json`), compiled in; `tests/serve.rs` checks
/// it against the routes and schemathesis checks the answers against it.
pub(super) const OPENAPI: &str = include_str!("openapi.json");

/// The routes, behind the access checks of [`super::guard`].
pub fn router(state: Arc<AppState>, access: Arc<Access>) -> Router {
    let scrub: Scrub = {
        let state = state.clone();
        Arc::new(move |text| state.admission.scrub(text))
    };
    Router::new()
        .route("/", get(page))
        .route("/page.js", get(page_js))
        .route("/page.css", get(page_css))
        .route("/api/openapi.json", get(openapi))
        .route("/api/presets", get(presets))
        .route("/api/agents", get(agents))
        .route(
            "/api/games",
            post(new_game).layer(middleware::from_fn_with_state(state.clone(), read_body)),
        )
        .route("/api/games/{id}", get(get_game).delete(delete_game))
        .route(
            "/api/games/{id}/move",
            post(person_move).layer(middleware::from_fn_with_state(state.clone(), read_body)),
        )
        .route("/api/games/{id}/agent-move", post(agent_move))
        .route("/api/games/{id}/undo", post(undo))
        .route("/api/games/{id}/hint", get(hint))
        .route(
            "/api/replay",
            post(replay).layer(middleware::from_fn_with_state(state.clone(), read_body)),
        )
        .fallback(not_found)
        .method_not_allowed_fallback(wrong_method)
        // The routes that take a body read it whole (within its limit and time) in
        // `read_body`, after the access checks; the others never read one.
        .layer(DefaultBodyLimit::max(REPLAY_LIMIT))
        .layer(middleware::from_fn_with_state(access, guard))
        .layer(middleware::map_response_with_state(scrub, json_errors))
        .layer(middleware::map_response(security_headers))
        .with_state(state)
}

async fn wrong_method() -> ApiError {
    ApiError(
        StatusCode::METHOD_NOT_ALLOWED,
        "this route does not take that method (see `awale serve --help` for the API)".into(),
    )
}

async fn page() -> impl IntoResponse {
    ([(header::CACHE_CONTROL, "no-store")], Html(PAGE))
}

async fn page_js() -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        PAGE_JS,
    )
}

async fn page_css() -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "text/css; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        PAGE_CSS,
    )
}

async fn openapi() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "application/json")], OPENAPI)
}

async fn not_found() -> ApiError {
    ApiError(
        StatusCode::NOT_FOUND,
        "no such route (see `awale serve --help` for the API)".into(),
    )
}

async fn presets() -> Json<Value> {
    let list: Vec<Value> = awale::presets::presets()
        .iter()
        .map(|p| {
            let rules = p.rules();
            json!({
                "name": p.spec,
                "title": p.title,
                "summary": p.summary,
                "players": rules.players,
                "houses": rules.houses,
            })
        })
        .collect();
    Json(json!({ "presets": list }))
}

async fn agents(State(app): State<Arc<AppState>>) -> Json<Value> {
    let lim = &app.admission.limits;
    let kinds: Vec<Value> = super::admission::Admission::offered(&app.registry)
        .map(|e| {
            json!({
                "kind": e.kind,
                "summary": e.summary,
                "options": e.options.iter().map(|(k, h)| json!({"key": k, "help": h})).collect::<Vec<_>>(),
            })
        })
        .collect();
    let networks = app.network_names().await;
    Json(json!({
        "kinds": kinds,
        "examples": awale::agent_kinds::EXAMPLES,
        "tablebase": app.admission.tablebase.is_some(),
        "networks": networks.as_slice(),
        "move_time_ms": app.move_time.as_millis() as u64,
        "memory_used_mb": {
            "games": app.games_mb(),
            "tables": app.tables_mb(),
        },
        "limits": {
            "move_time_ms": lim.move_time_ms,
            "depth": lim.depth,
            "sims": lim.sims,
            "tt_mb": lim.tt_mb,
            "memory_mb": lim.memory_mb,
            "thinking": lim.thinking,
            "plies": lim.plies,
            "client_games": lim.client_games,
            "relay_cap": super::admission::MAX_RELAY_CAP,
        },
    }))
}
