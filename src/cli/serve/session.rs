//! The games in memory: who sits at each seat, the last move, the server's state and its
//! endgame tables.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::http::StatusCode;
use serde::Serialize;

use awale::agents::{Agent, Registry, Thoughts};
use awale::tablebase::Tablebase;
use awale::{Game, Rules};

use super::error::{ApiError, ApiResult};

/// Who sits at a seat.
pub(super) enum Seat {
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
pub(super) struct LastMove {
    pub(super) player: usize,
    pub(super) house: usize,
    pub(super) label: String,
    pub(super) captured: u8,
    pub(super) by: String,
    pub(super) thoughts: Option<Thoughts>,
}

/// One game in memory.
pub(super) struct Session {
    pub(super) game: Game,
    pub(super) seats: Vec<Seat>,
    pub(super) thinking: bool,
    pub(super) last: Option<LastMove>,
    /// The last agent failure (cleared by the next move).
    pub(super) error: Option<String>,
}

/// Games by id, least recently used first.
pub(super) struct Games {
    pub(super) next: u64,
    pub(super) map: HashMap<u64, Arc<Mutex<Session>>>,
    pub(super) order: VecDeque<u64>,
}

/// The server's state.
pub struct AppState {
    pub(super) registry: Registry,
    pub(super) tablebase: Option<PathBuf>,
    /// Tables opened so far, by rules (None: the folder has none for those rules).
    pub(super) tables: Mutex<HashMap<String, Option<Arc<Tablebase>>>>,
    pub(super) move_time: Duration,
    pub(super) max_games: usize,
    pub(super) games: Mutex<Games>,
}

pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
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

    pub(super) fn session(&self, id: u64) -> ApiResult<Arc<Mutex<Session>>> {
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

    pub(super) fn insert(&self, s: Session) -> u64 {
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
    pub(super) fn table(&self, rules: &Rules) -> Option<Arc<Tablebase>> {
        let dir = self.tablebase.as_ref()?;
        let key = rules.to_string();
        let mut t = lock(&self.tables);
        t.entry(key)
            .or_insert_with(|| Tablebase::open(dir, rules, None).ok().map(Arc::new))
            .clone()
    }
}
