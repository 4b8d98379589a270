//! The games in memory: who sits at each seat, the last move, the server's state and its
//! endgame tables.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::http::StatusCode;
use serde::Serialize;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use awale::agents::{Agent, Registry, Thoughts};
use awale::tablebase::Tablebase;
use awale::{Game, Rules};

use super::error::{ApiError, ApiResult};
use super::policy::Policy;

/// Who sits at a seat.
pub(super) enum Seat {
    /// A person, who moves through `/move`.
    Person,
    /// An agent; `None` while it thinks on a worker thread.
    Agent {
        spec: String,
        agent: Option<Box<dyn Agent>>,
        /// Whether its moves take one of the `--max-thinking` permits (every kind but the
        /// instant ones, `random` and `greedy`).
        costly: bool,
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
    /// Memory its agents hold (MiB, their transposition tables), counted against
    /// `--memory-mb`.
    pub(super) memory_mb: u64,
}

/// Games by id, least recently used first.
pub(super) struct Games {
    pub(super) map: HashMap<String, (Arc<Mutex<Session>>, u64)>,
    pub(super) order: VecDeque<String>,
    /// Memory held by the games' agents (MiB).
    pub(super) memory_mb: u64,
}

/// The server's state.
pub struct AppState {
    pub(super) registry: Registry,
    /// What clients may ask for (caps, folders).
    pub(super) policy: Policy,
    /// Tables opened so far, by rules (None: the folder has none for those rules).
    pub(super) tables: Mutex<HashMap<String, Option<Arc<Tablebase>>>>,
    pub(super) move_time: Duration,
    pub(super) max_games: usize,
    pub(super) games: Mutex<Games>,
    /// One permit per agent (or hint) thinking (`--max-thinking`).
    pub(super) thinking: Arc<Semaphore>,
}

pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panicking agent thread must not take the server down with it.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl AppState {
    /// A server with no games.
    pub fn new(registry: Registry, policy: Policy, max_games: usize) -> AppState {
        AppState {
            registry,
            move_time: Duration::from_millis(policy.limits.time_ms),
            thinking: Arc::new(Semaphore::new(policy.limits.thinking)),
            policy,
            tables: Mutex::new(HashMap::new()),
            max_games,
            games: Mutex::new(Games {
                map: HashMap::new(),
                order: VecDeque::new(),
                memory_mb: 0,
            }),
        }
    }

    pub(super) fn session(&self, id: &str) -> ApiResult<Arc<Mutex<Session>>> {
        let mut g = lock(&self.games);
        let s = g.map.get(id).map(|x| x.0.clone()).ok_or_else(|| {
            ApiError(
                StatusCode::NOT_FOUND,
                "no such game (games are kept in memory; the server may have restarted or dropped it)".into(),
            )
        })?;
        g.order.retain(|x| x != id);
        g.order.push_back(id.to_string());
        Ok(s)
    }

    /// Keeps a new game under an unguessable id (128 random bits): no client can reach
    /// another's game without being given its id. The least recently used games are dropped
    /// beyond `--max-games` games or `--memory-mb` of agents' memory.
    pub(super) fn insert(&self, s: Session) -> String {
        let mut g = lock(&self.games);
        let id = format!("{:032x}", rand::random::<u128>());
        let mb = s.memory_mb;
        g.map.insert(id.clone(), (Arc::new(Mutex::new(s)), mb));
        g.order.push_back(id.clone());
        g.memory_mb += mb;
        while g.map.len() > self.max_games {
            let Some(old) = g.order.pop_front() else {
                break;
            };
            if let Some((_, mb)) = g.map.remove(&old) {
                g.memory_mb -= mb;
            }
        }
        // Over the memory budget, only games that hold memory go (the least recently used
        // first): a game of cheap agents is never dropped to make room.
        while g.memory_mb > self.policy.limits.memory_mb {
            let Some(k) = g
                .order
                .iter()
                .position(|x| g.map.get(x).is_some_and(|e| e.1 > 0))
            else {
                break;
            };
            let old = g.order.remove(k).expect("an index of the order");
            if let Some((_, mb)) = g.map.remove(&old) {
                g.memory_mb -= mb;
            }
        }
        id
    }

    /// Forgets game `id`; false when there is none.
    pub(super) fn remove(&self, id: &str) -> bool {
        let mut g = lock(&self.games);
        let Some((_, mb)) = g.map.remove(id) else {
            return false;
        };
        g.memory_mb -= mb;
        g.order.retain(|x| x != id);
        true
    }

    /// A thinking permit: waits up to the move time for one of the `--max-thinking`, then
    /// answers 503.
    pub(super) async fn permit(&self) -> ApiResult<OwnedSemaphorePermit> {
        let wait = tokio::time::timeout(self.move_time, self.thinking.clone().acquire_owned());
        wait.await.ok().and_then(|p| p.ok()).ok_or_else(|| {
            ApiError(
                StatusCode::SERVICE_UNAVAILABLE,
                format!(
                    "the server is busy: {} agents are thinking (--max-thinking); ask again shortly",
                    self.policy.limits.thinking
                ),
            )
        })
    }

    /// The endgame table for `rules`, if `--tablebase` has one.
    pub(super) fn table(&self, rules: &Rules) -> Option<Arc<Tablebase>> {
        let dir = self.policy.tablebase.as_ref()?;
        let key = rules.to_string();
        let mut t = lock(&self.tables);
        t.entry(key)
            .or_insert_with(|| Tablebase::open(dir, rules, None).ok().map(Arc::new))
            .clone()
    }
}
