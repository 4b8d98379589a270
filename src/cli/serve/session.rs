//! The games in memory: who sits at each seat, the last move, the server's state and its
//! endgame tables.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::http::StatusCode;
use serde::Serialize;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use awale::agents::{Agent, Registry, StopSignal, Thoughts};
use awale::tablebase::Tablebase;
use awale::{Game, Rules};

use super::admission::Admission;
use super::error::{ApiError, ApiResult};

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
    /// The stop signal of the move being thought, if an agent thinks: raised when the game is
    /// deleted or dropped, and at the move time.
    pub(super) stop: Option<StopSignal>,
    /// Memory its agents hold (MiB, their transposition tables), counted against
    /// `--memory-mb`.
    pub(super) memory_mb: u64,
}

/// A game in the server's list: the game, the memory its agents hold (MiB) and the client
/// address that created it.
pub(super) struct Entry {
    pub(super) session: Arc<Mutex<Session>>,
    pub(super) memory_mb: u64,
    pub(super) client: IpAddr,
}

/// Games by id, least recently used first.
pub(super) struct Games {
    pub(super) map: HashMap<String, Entry>,
    pub(super) order: VecDeque<String>,
    /// Memory held by the games' agents (MiB).
    pub(super) memory_mb: u64,
}

impl Games {
    /// Drops game `id`; returns it, for the caller to stop its thinking once the list is
    /// unlocked (a game's lock is never taken under the list's).
    fn drop_game(&mut self, id: &str) -> Option<Arc<Mutex<Session>>> {
        let e = self.map.remove(id)?;
        self.memory_mb -= e.memory_mb;
        self.order.retain(|x| x != id);
        Some(e.session)
    }

    /// The least recently used game that `pick` accepts.
    fn oldest(&self, pick: impl Fn(&Entry) -> bool) -> Option<String> {
        self.order
            .iter()
            .find(|id| self.map.get(*id).is_some_and(&pick))
            .cloned()
    }

    /// Games and memory of each client.
    fn holders(&self) -> HashMap<IpAddr, (usize, u64)> {
        let mut out: HashMap<IpAddr, (usize, u64)> = HashMap::new();
        for e in self.map.values() {
            let h = out.entry(e.client).or_default();
            h.0 += 1;
            h.1 += e.memory_mb;
        }
        out
    }
}

/// The server's state.
pub struct AppState {
    pub(super) registry: Registry,
    /// What clients may ask for (caps, folders).
    pub(super) admission: Admission,
    /// Tables opened so far, by the rules of play they answer for (None: the folder has none,
    /// or the memory budget had no room).
    pub(super) tables: Mutex<HashMap<Rules, Option<Arc<Tablebase>>>>,
    /// Memory of the open tables (MiB), counted against `--memory-mb`.
    tables_mb: AtomicU64,
    /// `games.memory_mb`, readable without the games' lock.
    games_mb: AtomicU64,
    pub(super) move_time: Duration,
    pub(super) max_games: usize,
    pub(super) games: Mutex<Games>,
    /// One permit per agent (or hint) thinking (`--max-thinking`).
    pub(super) thinking: Arc<Semaphore>,
}

impl Session {
    /// Tells the agent thinking in this game, if any, to stop now (it plays its best so far).
    pub(super) fn stop_thinking(&self) {
        if let Some(stop) = &self.stop {
            stop.stop();
        }
    }
}

/// Rules remembered in the table list at most (those with tables always are).
const TABLE_KEYS: usize = 256;

pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panicking agent thread must not take the server down with it.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl AppState {
    /// A server with no games.
    pub fn new(registry: Registry, admission: Admission, max_games: usize) -> AppState {
        AppState {
            registry,
            move_time: Duration::from_millis(admission.limits.time_ms),
            thinking: Arc::new(Semaphore::new(admission.limits.thinking)),
            admission,
            tables: Mutex::new(HashMap::new()),
            tables_mb: AtomicU64::new(0),
            games_mb: AtomicU64::new(0),
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
        let s = g.map.get(id).map(|e| e.session.clone()).ok_or_else(|| {
            ApiError(
                StatusCode::NOT_FOUND,
                "no such game (games are kept in memory; the server may have restarted or dropped it)".into(),
            )
        })?;
        g.order.retain(|x| x != id);
        g.order.push_back(id.to_string());
        Ok(s)
    }

    /// Keeps a new game of `client` under an unguessable id (128 random bits): no client can
    /// reach another's game without being given its id. Beyond `--max-client-games` games of
    /// this client, its own least recently used game goes. Beyond `--max-games` games or
    /// `--memory-mb` of agents' memory, the least recently used game of the client that holds
    /// the most goes (of games or of memory): a client never loses a game to make room for
    /// another that holds more than it does.
    pub(super) fn insert(&self, s: Session, client: IpAddr) -> String {
        let mut g = lock(&self.games);
        let id = format!("{:032x}", rand::random::<u128>());
        let mb = s.memory_mb;
        g.map.insert(
            id.clone(),
            Entry {
                session: Arc::new(Mutex::new(s)),
                memory_mb: mb,
                client,
            },
        );
        g.order.push_back(id.clone());
        g.memory_mb += mb;
        let mut dropped = Vec::new();
        let client_games = self.admission.limits.client_games;
        while g.map.values().filter(|e| e.client == client).count() > client_games {
            let Some(old) = g.oldest(|e| e.client == client) else {
                break;
            };
            dropped.extend(g.drop_game(&old));
        }
        while g.map.len() > self.max_games {
            let holders = g.holders();
            let most = holders.values().map(|h| h.0).max().unwrap_or(0);
            let Some(old) = g.oldest(|e| holders.get(&e.client).is_some_and(|h| h.0 == most))
            else {
                break;
            };
            dropped.extend(g.drop_game(&old));
        }
        // Over the memory budget, only games that hold memory go (of the client holding the
        // most): a game of cheap agents is never dropped to make room.
        while g.memory_mb + self.tables_mb() > self.admission.limits.memory_mb {
            let holders = g.holders();
            let most = holders.values().map(|h| h.1).max().unwrap_or(0);
            let Some(old) = g
                .oldest(|e| e.memory_mb > 0 && holders.get(&e.client).is_some_and(|h| h.1 == most))
            else {
                break;
            };
            dropped.extend(g.drop_game(&old));
        }
        self.games_mb.store(g.memory_mb, Ordering::Relaxed);
        drop(g);
        // The dropped games' thinking stops now, outside the list's lock.
        for s in dropped {
            lock(&s).stop_thinking();
        }
        id
    }

    /// Forgets game `id` and stops its thinking; false when there is none.
    pub(super) fn remove(&self, id: &str) -> bool {
        let mut g = lock(&self.games);
        let dropped = g.drop_game(id);
        self.games_mb.store(g.memory_mb, Ordering::Relaxed);
        drop(g);
        match dropped {
            Some(s) => {
                lock(&s).stop_thinking();
                true
            }
            None => false,
        }
    }

    /// A thinking permit: waits up to the move time for one of the `--max-thinking`, then
    /// answers 503.
    pub(super) async fn permit(&self) -> ApiResult<OwnedSemaphorePermit> {
        let wait = tokio::time::timeout(self.move_time, self.thinking.clone().acquire_owned());
        wait.await.ok().and_then(|p| p.ok()).ok_or_else(|| {
            ApiError::busy(format!(
                "the server is busy: {} agents are thinking (--max-thinking); ask again shortly",
                self.admission.limits.thinking
            ))
        })
    }

    /// The endgame table for `rules`, if `--tablebase` has one and the memory budget has
    /// room for it. Tables are opened once for all the rules specs they answer for (the same
    /// rules of play: [`awale::tablebase::table_rules`]) and kept; their memory counts against
    /// `--memory-mb`.
    pub(super) fn table(&self, rules: &Rules) -> Option<Arc<Tablebase>> {
        let dir = self.admission.tablebase.as_ref()?;
        let key = awale::tablebase::table_rules(rules).ok()?;
        let mut t = lock(&self.tables);
        if let Some(found) = t.get(&key) {
            return found.clone();
        }
        // Rules without tables are remembered too (a file system look per view is avoided),
        // up to a bound: a client cannot grow this list by inventing rules.
        if t.len() >= TABLE_KEYS {
            t.retain(|_, v| v.is_some());
        }
        let table = Tablebase::open_shared(dir, rules).ok().filter(|table| {
            let mb = table.memory_bytes().div_ceil(1 << 20) as u64;
            let used = self.games_mb.load(Ordering::Relaxed) + self.tables_mb();
            if used + mb > self.admission.limits.memory_mb {
                return false;
            }
            self.tables_mb.fetch_add(mb, Ordering::Relaxed);
            true
        });
        if t.len() < TABLE_KEYS || table.is_some() {
            t.insert(key, table.clone());
        }
        table
    }

    /// Memory held by the live games' agents (MiB).
    pub(super) fn games_mb(&self) -> u64 {
        self.games_mb.load(Ordering::Relaxed)
    }

    /// Memory held by the open endgame tables (MiB).
    pub(super) fn tables_mb(&self) -> u64 {
        self.tables_mb.load(Ordering::Relaxed)
    }
}
