//! The JSON API of `awale serve` and its games in memory. Handlers convert JSON to engine calls
//! and back; the rules, the agents and their thoughts come from the library.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::extract::rejection::JsonRejection;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use awale::agents::{parse_agent_list, Agent, AgentSpec, Registry, Thoughts, Turn};
use awale::notation::{
    format_move, format_position, parse_move, player_name, result_text, GameRecord,
};
use awale::tablebase::Tablebase;
use awale::{Game, Rules};

/// The page, compiled in.
const PAGE: &str = include_str!("page.html");
/// Largest JSON request body (a game record for `/api/replay` may be larger).
const BODY_LIMIT: usize = 64 * 1024;
/// Largest `/api/replay` body: a tournament file of a few thousand games.
const REPLAY_LIMIT: usize = 16 * 1024 * 1024;
/// Games of one `/api/replay` answer at most.
const REPLAY_GAMES: usize = 2000;

/// An error answer: a 4xx (or 5xx) status and `{"error": reason}`.
#[derive(Debug)]
pub struct ApiError(StatusCode, String);

impl ApiError {
    fn bad(reason: impl Into<String>) -> ApiError {
        ApiError(StatusCode::BAD_REQUEST, reason.into())
    }
    fn conflict(reason: impl Into<String>) -> ApiError {
        ApiError(StatusCode::CONFLICT, reason.into())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, Json(json!({ "error": self.1 }))).into_response()
    }
}

impl From<JsonRejection> for ApiError {
    fn from(r: JsonRejection) -> ApiError {
        ApiError(r.status(), format!("bad JSON body: {}", r.body_text()))
    }
}

type ApiResult<T> = Result<T, ApiError>;

/// Who sits at a seat.
enum Seat {
    /// A person, who moves through `/move`.
    Person,
    /// An agent; `None` while it thinks on a worker thread.
    Agent {
        spec: String,
        agent: Option<Box<dyn Agent>>,
    },
}

/// What the last move was, for the page.
#[derive(Debug, Clone, Serialize)]
struct LastMove {
    player: usize,
    house: usize,
    label: String,
    captured: u8,
    by: String,
    thoughts: Option<Thoughts>,
}

/// One game in memory.
struct Session {
    game: Game,
    seats: Vec<Seat>,
    thinking: bool,
    last: Option<LastMove>,
    /// The last agent failure (cleared by the next move).
    error: Option<String>,
}

/// Games by id, least recently used first.
struct Games {
    next: u64,
    map: HashMap<u64, Arc<Mutex<Session>>>,
    order: VecDeque<u64>,
}

/// The server's state.
pub struct AppState {
    registry: Registry,
    tablebase: Option<PathBuf>,
    /// Tables opened so far, by rules (None: the folder has none for those rules).
    tables: Mutex<HashMap<String, Option<Arc<Tablebase>>>>,
    move_time: Duration,
    max_games: usize,
    games: Mutex<Games>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panicking agent thread must not take the server down with it.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl AppState {
    /// A server with no games.
    pub fn new(
        registry: Registry,
        tablebase: Option<PathBuf>,
        move_time: Duration,
        max_games: usize,
    ) -> AppState {
        AppState {
            registry,
            tablebase,
            tables: Mutex::new(HashMap::new()),
            move_time,
            max_games,
            games: Mutex::new(Games {
                next: 1,
                map: HashMap::new(),
                order: VecDeque::new(),
            }),
        }
    }

    fn session(&self, id: u64) -> ApiResult<Arc<Mutex<Session>>> {
        let mut g = lock(&self.games);
        let s = g.map.get(&id).cloned().ok_or_else(|| {
            ApiError(
                StatusCode::NOT_FOUND,
                format!("no game {id} (games are kept in memory; the server may have restarted)"),
            )
        })?;
        g.order.retain(|&x| x != id);
        g.order.push_back(id);
        Ok(s)
    }

    fn insert(&self, s: Session) -> u64 {
        let mut g = lock(&self.games);
        let id = g.next;
        g.next += 1;
        g.map.insert(id, Arc::new(Mutex::new(s)));
        g.order.push_back(id);
        while g.map.len() > self.max_games {
            if let Some(old) = g.order.pop_front() {
                g.map.remove(&old);
            }
        }
        id
    }

    /// The endgame table for `rules`, if `--tablebase` has one.
    fn table(&self, rules: &Rules) -> Option<Arc<Tablebase>> {
        let dir = self.tablebase.as_ref()?;
        let key = rules.to_string();
        let mut t = lock(&self.tables);
        t.entry(key)
            .or_insert_with(|| Tablebase::open(dir, rules, None).ok().map(Arc::new))
            .clone()
    }
}

/// The routes.
pub fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/", get(page))
        .route("/api/presets", get(presets))
        .route("/api/agents", get(agents))
        .route("/api/games", post(new_game))
        .route("/api/games/{id}", get(get_game).delete(delete_game))
        .route("/api/games/{id}/move", post(person_move))
        .route("/api/games/{id}/agent-move", post(agent_move))
        .route("/api/games/{id}/undo", post(undo))
        .route("/api/games/{id}/hint", get(hint))
        .route(
            "/api/replay",
            post(replay).layer(DefaultBodyLimit::max(REPLAY_LIMIT)),
        )
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(state)
}

async fn page() -> impl IntoResponse {
    ([(header::CACHE_CONTROL, "no-store")], Html(PAGE))
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
    let kinds: Vec<Value> = app
        .registry
        .entries()
        .iter()
        .map(|e| {
            json!({
                "kind": e.kind,
                "summary": e.summary,
                "options": e.options.iter().map(|(k, h)| json!({"key": k, "help": h})).collect::<Vec<_>>(),
            })
        })
        .collect();
    Json(json!({
        "kinds": kinds,
        "examples": ["random", "greedy", "alphabeta:depth=2", "alphabeta:depth=8", "mcts:sims=2000", "perfect"],
        "tablebase": app.tablebase.as_ref().map(|p| p.display().to_string()),
        "move_time_ms": app.move_time.as_millis() as u64,
    }))
}

/// `POST /api/games` body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NewGame {
    /// A rules spec (`abapa`, `oware:players=3`) or a position to start from.
    #[serde(default = "default_rules")]
    rules: String,
    /// Start from this position (position notation) instead; its rules replace `rules`.
    position: Option<String>,
    /// One entry per seat: `"human"` (or `"person"`) or an agent spec.
    seats: Vec<String>,
    /// Seed of the agents' random choices and of a random first player.
    seed: Option<u64>,
}

fn default_rules() -> String {
    "abapa".into()
}

/// An agent spec with the server's time limit added where the kind takes one, and the
/// server's tables where `perfect` names none.
fn with_server_defaults(app: &AppState, spec: &AgentSpec) -> AgentSpec {
    let mut spec = spec.clone();
    let takes = |key: &str| {
        app.registry
            .entries()
            .iter()
            .find(|e| e.kind == spec.kind)
            .is_some_and(|e| e.options.iter().any(|(k, _)| k == key))
    };
    if takes("time_ms") && spec.get("time_ms").is_none() {
        spec.options
            .push(("time_ms".into(), app.move_time.as_millis().to_string()));
    }
    if let Some(dir) = &app.tablebase {
        if takes("dir") && spec.kind == "perfect" && spec.get("dir").is_none() {
            spec.options.push(("dir".into(), dir.display().to_string()));
        }
    }
    spec
}

async fn new_game(
    State(app): State<Arc<AppState>>,
    body: Result<Json<NewGame>, JsonRejection>,
) -> ApiResult<(StatusCode, Json<Value>)> {
    let Json(req) = body?;
    let seed = req.seed.unwrap_or_else(rand::random);
    let game = match &req.position {
        Some(text) => {
            let (rules, state) = awale::notation::parse_position(text)
                .map_err(|e| ApiError::bad(format!("position: {e}")))?;
            Game::from_state(rules, state)
        }
        None => {
            let rules: Rules = req
                .rules
                .parse()
                .map_err(|e| ApiError::bad(format!("rules: {e}")))?;
            Game::with_seed(rules, seed)
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
    let mut seats = Vec::with_capacity(players);
    for (i, text) in req.seats.iter().enumerate() {
        let text = text.trim();
        if text.eq_ignore_ascii_case("human") || text.eq_ignore_ascii_case("person") {
            seats.push(Seat::Person);
            continue;
        }
        let specs = parse_agent_list(text).map_err(|e| ApiError::bad(format!("seat {i}: {e}")))?;
        let [spec] = specs.as_slice() else {
            return Err(ApiError::bad(format!(
                "seat {i}: one agent spec per seat, got {}",
                specs.len()
            )));
        };
        let spec = with_server_defaults(&app, spec);
        let mut agent = app
            .registry
            .build(&spec, &rules)
            .map_err(|e| ApiError::bad(format!("seat {i}: {e}")))?;
        agent.reset(awale::agents::derive_seed(seed, i as u64));
        seats.push(Seat::Agent {
            spec: text.to_string(),
            agent: Some(agent),
        });
    }
    let session = Session {
        game,
        seats,
        thinking: false,
        last: None,
        error: None,
    };
    let view = view(&app, 0, &session);
    let id = app.insert(session);
    let mut view = view;
    view["id"] = json!(id);
    Ok((StatusCode::CREATED, Json(view)))
}

/// The game as JSON: everything the page draws.
fn view(app: &AppState, id: u64, s: &Session) -> Value {
    let game = &s.game;
    let rules = *game.rules();
    let state = game.state();
    let players = rules.players as usize;
    let houses = rules.houses as usize;
    let mut labels = Vec::with_capacity(game.moves().len());
    let mut st = *game.start();
    for &m in game.moves() {
        labels.push(format_move(&rules, st.to_move(), m as usize));
        st.apply_unchecked(&rules, m as usize);
    }
    let mover = state.to_move();
    let legal = if game.is_over() {
        Vec::new()
    } else {
        game.legal_moves()
    };
    let table = app
        .table(&rules)
        .filter(|t| state.board_seeds(&rules) as usize <= t.max_seeds());
    let table_view = table.and_then(|t| t.probe(state).ok()).map(|p| {
        json!({
            "seeds": p.seeds,
            "value": p.value,
            "cycle": p.cycle,
            "best": p.best_moves(),
            "moves": p.moves.iter().map(|m| json!({"house": m.house, "value": m.value})).collect::<Vec<_>>(),
        })
    });
    json!({
        "id": id,
        "rules": rules.to_string(),
        "players": players,
        "houses": houses,
        "pits": &state.pits()[..players * houses],
        "stores": &state.scores()[..players],
        "to_move": mover,
        "names": (0..players).map(|p| player_name(&rules, p)).collect::<Vec<_>>(),
        "house_labels": (0..players).map(|p| (0..houses).map(|h| format_move(&rules, p, h)).collect::<Vec<_>>()).collect::<Vec<_>>(),
        "legal": legal,
        "over": game.is_over(),
        "result": result_text(&rules, state),
        "winners": if game.is_over() { state.winners(&rules) } else { Vec::new() },
        "moves": labels,
        "position": format_position(&rules, state),
        "seats": s.seats.iter().map(|seat| match seat {
            Seat::Person => json!({"person": true, "name": "person"}),
            Seat::Agent { spec, .. } => json!({"person": false, "name": spec}),
        }).collect::<Vec<_>>(),
        "person_to_move": !game.is_over() && matches!(s.seats[mover], Seat::Person),
        "thinking": s.thinking,
        "last": s.last,
        "error": s.error,
        "table": table_view,
    })
}

fn game_id(text: &str) -> ApiResult<u64> {
    text.parse()
        .map_err(|_| ApiError::bad(format!("game id {text:?} is not a number")))
}

async fn get_game(
    State(app): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    let id = game_id(&id)?;
    let s = app.session(id)?;
    let s = lock(&s);
    Ok(Json(view(&app, id, &s)))
}

async fn delete_game(
    State(app): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> ApiResult<StatusCode> {
    let id = game_id(&id)?;
    let mut g = lock(&app.games);
    if g.map.remove(&id).is_none() {
        return Err(ApiError(StatusCode::NOT_FOUND, format!("no game {id}")));
    }
    g.order.retain(|&x| x != id);
    Ok(StatusCode::NO_CONTENT)
}

/// `POST /api/games/ID/move` body: a house, 0-based in the mover's row, or in move notation.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveRequest {
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

async fn person_move(
    State(app): State<Arc<AppState>>,
    Path(id): Path<String>,
    body: Result<Json<MoveRequest>, JsonRejection>,
) -> ApiResult<Json<Value>> {
    let id = game_id(&id)?;
    let Json(req) = body?;
    let s = app.session(id)?;
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
        ApiError(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!(
                "{e} (legal: {})",
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
    Ok(Json(view(&app, id, &s)))
}

async fn agent_move(
    State(app): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let id = game_id(&id)?;
    let session = app.session(id)?;
    let (mut agent, game, spec) = {
        let mut s = lock(&session);
        if s.thinking {
            return Ok((StatusCode::ACCEPTED, Json(view(&app, id, &s))).into_response());
        }
        if s.game.is_over() {
            return Err(ApiError::conflict("the game is over"));
        }
        let mover = s.game.to_move();
        let rules = *s.game.rules();
        let game = s.game.clone();
        match &mut s.seats[mover] {
            Seat::Person => {
                return Err(ApiError::conflict(format!(
                    "it is {}'s turn, a person's: send /api/games/{id}/move",
                    player_name(&rules, mover)
                )))
            }
            Seat::Agent { spec, agent } => {
                let spec = spec.clone();
                let agent = agent
                    .take()
                    .expect("an agent that is not thinking is in its seat");
                s.thinking = true;
                (agent, game, spec)
            }
        }
    };
    let worker = {
        let session = session.clone();
        tokio::task::spawn_blocking(move || {
            let mover = game.to_move();
            let rules = *game.rules();
            // A panicking agent must not leave the game "thinking" with its seat empty: the
            // panic becomes this move's error and the agent goes back to its seat.
            let choice = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                agent.select(&Turn::from_game(&game))
            }))
            .unwrap_or_else(|_| {
                Err(awale::AwaleError::AgentFailed {
                    agent: spec.clone(),
                    reason: "the agent panicked".into(),
                })
            });
            let thoughts = agent.thoughts();
            let mut s = lock(&session);
            s.thinking = false;
            if let Seat::Agent { agent: slot, .. } = &mut s.seats[mover] {
                *slot = Some(agent);
            }
            match choice.and_then(|house| Ok((house, s.game.apply(house)?))) {
                Ok((house, info)) => {
                    s.last = Some(LastMove {
                        player: mover,
                        house,
                        label: format_move(&rules, mover, house),
                        captured: info.captured,
                        by: spec,
                        thoughts,
                    });
                    s.error = None;
                }
                Err(e) => s.error = Some(format!("{spec}: {e}")),
            }
        })
    };
    let wait = app.move_time + Duration::from_secs(1);
    match tokio::time::timeout(wait, worker).await {
        Err(_) => {
            let s = lock(&session);
            Ok((StatusCode::ACCEPTED, Json(view(&app, id, &s))).into_response())
        }
        Ok(joined) => {
            let s = lock(&session);
            if let Err(e) = joined {
                return Err(ApiError(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    format!("the agent failed: {e}"),
                ));
            }
            match &s.error {
                Some(e) => Err(ApiError(StatusCode::UNPROCESSABLE_ENTITY, e.clone())),
                None => Ok(Json(view(&app, id, &s)).into_response()),
            }
        }
    }
}

async fn undo(State(app): State<Arc<AppState>>, Path(id): Path<String>) -> ApiResult<Json<Value>> {
    let id = game_id(&id)?;
    let s = app.session(id)?;
    let mut s = lock(&s);
    if s.thinking {
        return Err(ApiError::conflict("an agent is thinking"));
    }
    let persons: Vec<bool> = s.seats.iter().map(|x| matches!(x, Seat::Person)).collect();
    let back = super::super::play::take_back(&s.game, |seat| persons[seat])
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    match back {
        None => Err(ApiError::conflict(
            "nothing to undo: no person has moved yet",
        )),
        Some((game, _)) => {
            s.game = game;
            s.last = None;
            s.error = None;
            Ok(Json(view(&app, id, &s)))
        }
    }
}

async fn hint(State(app): State<Arc<AppState>>, Path(id): Path<String>) -> ApiResult<Json<Value>> {
    let id = game_id(&id)?;
    let game = {
        let s = app.session(id)?;
        let s = lock(&s);
        if s.game.is_over() {
            return Err(ApiError::conflict("the game is over"));
        }
        s.game.clone()
    };
    let rules = *game.rules();
    let mover = game.to_move();
    let advice = tokio::task::spawn_blocking(move || super::super::play::advice(&game))
        .await
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?
        .map_err(|e| ApiError(StatusCode::UNPROCESSABLE_ENTITY, e.to_string()))?;
    Ok(Json(json!({
        "house": advice.0,
        "label": format_move(&rules, mover, advice.0),
        "thoughts": advice.1,
    })))
}

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

async fn replay(body: String) -> ApiResult<Json<Value>> {
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
