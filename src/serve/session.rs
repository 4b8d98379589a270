//! The games in memory: who sits at each seat, the last move, the server's state and its
//! endgame tables.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use serde::Serialize;
use tokio::sync::{OnceCell, OwnedSemaphorePermit, Semaphore};

use awale::agents::{Agent, Registry, StopSignal, Thoughts};
use awale::tablebase::Tablebase;
use awale::{Game, Rules};

use super::admission::{
    Admission, REPLAY_ANSWERS, REPLAY_BODIES, REPLAY_CLIENT_ANSWERS, REPLAY_CLIENT_BODIES,
};
use super::error::{ApiError, ApiResult};
use super::ledger::{Ledger, Reservation};

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

/// A game in the server's list: the game, the memory its agents hold (MiB: what their kinds
/// declared, and its reservation in the server's memory ledger once it fits) and the client
/// address that created it.
pub(super) struct Entry {
    pub(super) session: Arc<Mutex<Session>>,
    pub(super) memory_mb: u64,
    /// Released when the game goes.
    memory: Reservation,
    pub(super) client: IpAddr,
}

/// Games by id, least recently used first.
pub(super) struct Games {
    pub(super) map: HashMap<String, Entry>,
    pub(super) order: VecDeque<String>,
}

impl Games {
    /// Drops game `id`; returns it, for the caller to stop its thinking once the list is
    /// unlocked (a game's lock is never taken under the list's).
    fn drop_game(&mut self, id: &str) -> Option<Arc<Mutex<Session>>> {
        let e = self.map.remove(id)?;
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

/// A table being opened or opened: `None` when the folder has none for its rules, or the
/// memory ledger had no room for it.
type TableCell = Arc<OnceCell<Option<OpenTable>>>;

/// An open endgame table and its memory in the server's ledger (held as long as the server).
#[derive(Clone)]
struct OpenTable {
    table: Arc<Tablebase>,
    _memory: Arc<Reservation>,
}

/// The server's state.
pub struct AppState {
    pub(super) registry: Registry,
    /// What clients may ask for (caps, folders).
    pub(super) admission: Admission,
    /// Tables opened (or being opened) so far, by the rules of play they answer for.
    tables: Mutex<HashMap<Rules, TableCell>>,
    /// The memory of the games' agents and of the open tables (MiB, `--memory-mb`): the games'
    /// reservations are their clients', the tables' the server's.
    memory: Arc<Ledger>,
    pub(super) move_time: Duration,
    pub(super) max_games: usize,
    pub(super) games: Mutex<Games>,
    /// One permit per agent (or hint) thinking (`--max-thinking`).
    pub(super) thinking: Arc<Semaphore>,
    /// One permit per agent being built at once ([`BUILDS`]: a network read from its file each).
    builds: Arc<Semaphore>,
    /// The most time a request body may pause (`--idle-timeout-ms`).
    pub(super) body_idle: Duration,
    /// KiB of replay bodies being read or replayed, past their first [`super::admission::BODY_LIMIT`] bytes
    /// ([`REPLAY_BODIES`] in all, [`REPLAY_CLIENT_BODIES`] a client).
    pub(super) replay_bodies: Arc<Ledger>,
    /// KiB of replay answers being written or sent ([`REPLAY_ANSWERS`] in all,
    /// [`REPLAY_CLIENT_ANSWERS`] a client).
    pub(super) replay_answers: Arc<Ledger>,
    /// The networks of `--networks` as last listed, and when.
    network_list: tokio::sync::Mutex<Option<(Instant, Arc<Vec<String>>)>>,
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
/// New games admitted and built at once at most: what one holds before its game is counted (a
/// network its kind's plan read from its file, kept until the agent is built; transposition
/// tables and trees are allocated by the first move).
pub(super) const BUILDS: usize = 2;
/// How long a listing of `--networks` is served before the folder is listed again.
const NETWORK_LIST_AGE: Duration = Duration::from_secs(1);

pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panicking agent thread must not take the server down with it.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl AppState {
    /// A server with no games; request bodies may pause `body_idle` at most.
    pub fn new(
        registry: Registry,
        admission: Admission,
        max_games: usize,
        body_idle: Duration,
    ) -> AppState {
        AppState {
            registry,
            move_time: Duration::from_millis(admission.limits.move_time_ms),
            thinking: Arc::new(Semaphore::new(admission.limits.thinking)),
            builds: Arc::new(Semaphore::new(BUILDS)),
            body_idle,
            replay_bodies: Ledger::new(
                (REPLAY_BODIES >> 10) as u64,
                (REPLAY_CLIENT_BODIES >> 10) as u64,
            ),
            replay_answers: Ledger::new(
                (REPLAY_ANSWERS >> 10) as u64,
                (REPLAY_CLIENT_ANSWERS >> 10) as u64,
            ),
            // No share a client: the games of the client holding the most go first instead.
            memory: Ledger::new(admission.limits.memory_mb, admission.limits.memory_mb),
            network_list: tokio::sync::Mutex::new(None),
            admission,
            tables: Mutex::new(HashMap::new()),
            max_games,
            games: Mutex::new(Games {
                map: HashMap::new(),
                order: VecDeque::new(),
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
    /// another that holds more than it does. When the new game's memory fits only by dropping
    /// games of clients that hold less than its own client, it is refused (503).
    pub(super) fn insert(&self, s: Session, client: IpAddr) -> ApiResult<String> {
        let mut g = lock(&self.games);
        let id = format!("{:032x}", rand::random::<u128>());
        let mb = s.memory_mb;
        g.map.insert(
            id.clone(),
            Entry {
                session: Arc::new(Mutex::new(s)),
                memory_mb: mb,
                memory: self.memory.empty(Some(client)),
                client,
            },
        );
        g.order.push_back(id.clone());
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
        // The new game's memory is reserved in the ledger; while it does not fit, only games
        // that hold memory go (of the client holding the most, the new game counted): a game of
        // cheap agents is never dropped to make room. The new game itself is not: when the
        // client holding the most is its own and it has no older game holding memory, the new
        // game does not fit fairly and is refused.
        let mut refused = false;
        loop {
            let entry = g.map.get_mut(&id).expect("the new game is kept");
            if entry.memory.grow_to(mb).is_ok() {
                break;
            }
            let holders = g.holders();
            let most = holders.values().map(|h| h.1).max().unwrap_or(0);
            let Some(old) = g
                .oldest(|e| e.memory_mb > 0 && holders.get(&e.client).is_some_and(|h| h.1 == most))
            else {
                refused = true;
                g.drop_game(&id);
                break;
            };
            if old == id {
                refused = true;
                g.drop_game(&id);
                break;
            }
            dropped.extend(g.drop_game(&old));
        }
        drop(g);
        // The dropped games' thinking stops now, outside the list's lock.
        for s in dropped {
            lock(&s).stop_thinking();
        }
        if refused {
            return Err(ApiError::busy(format!(
                "no room for this game's {mb} MiB: the server's memory for games (--memory-mb {}) is held by endgame tables and by the games of clients that hold less than yours would; delete games of yours, ask for a smaller agent, or try later",
                self.admission.limits.memory_mb
            )));
        }
        Ok(id)
    }

    /// Forgets game `id` and stops its thinking; false when there is none.
    pub(super) fn remove(&self, id: &str) -> bool {
        let mut g = lock(&self.games);
        let dropped = g.drop_game(id);
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
    /// `--memory-mb`, and is checked from the files' sizes before they are read. The files are
    /// read on a blocking thread, under no lock that another request waits on (requests for
    /// the same table wait for that one reading, asynchronously); anything but a regular file
    /// is refused without waiting.
    pub(super) async fn table(self: &Arc<Self>, rules: &Rules) -> Option<Arc<Tablebase>> {
        let dir = self.admission.tablebase.clone()?;
        let key = awale::tablebase::table_rules(rules).ok()?;
        let cell = {
            let mut t = lock(&self.tables);
            match t.get(&key) {
                Some(cell) => cell.clone(),
                None => {
                    // Rules without tables are remembered too (a file system look per game
                    // is avoided), up to a bound: a client cannot grow this list by inventing
                    // rules. Tables opened, or being opened, always stay.
                    if t.len() >= TABLE_KEYS {
                        t.retain(|_, c| c.get().is_none_or(Option::is_some));
                    }
                    let cell = TableCell::default();
                    if t.len() < TABLE_KEYS {
                        t.insert(key, cell.clone());
                    }
                    cell
                }
            }
        };
        let app = self.clone();
        cell.get_or_init(|| async move {
            tokio::task::spawn_blocking(move || app.open_table(&dir, &key))
                .await
                .ok()
                .flatten()
        })
        .await
        .as_ref()
        .map(|t| t.table.clone())
    }

    /// Opens the table of `rules` in `dir` if the memory budget has room for it (told from the
    /// files' sizes, before any is read); its memory is counted from then on.
    fn open_table(&self, dir: &std::path::Path, rules: &Rules) -> Option<OpenTable> {
        let bytes = Tablebase::open_bytes(dir, rules).ok()?;
        let memory = self.memory.reserve(None, bytes.div_ceil(1 << 20)).ok()?;
        // A table that fails to open releases its reservation (dropped here).
        let table = Tablebase::open_shared(dir, rules).ok()?;
        Some(OpenTable {
            table,
            _memory: Arc::new(memory),
        })
    }

    /// The endgame table for `rules` if it is open already (never opens one: for the views).
    pub(super) fn open_table_for(&self, rules: &Rules) -> Option<Arc<Tablebase>> {
        let key = awale::tablebase::table_rules(rules).ok()?;
        let cell = lock(&self.tables).get(&key)?.clone();
        cell.get()?.as_ref().map(|t| t.table.clone())
    }

    /// A permit to admit and build a new game's agents ([`BUILDS`] at once): what their plans
    /// hold before the game is counted (a network read from its file) is bounded by it.
    pub(super) async fn build_permit(&self) -> OwnedSemaphorePermit {
        self.builds
            .clone()
            .acquire_owned()
            .await
            .expect("the builds' semaphore is never closed")
    }

    /// The networks clients may name (`GET /api/agents`): the folder is listed at most once a
    /// second, on a blocking thread (it opens up to 4,096 files to tell networks by their
    /// first bytes).
    pub(super) async fn network_names(self: &Arc<Self>) -> Arc<Vec<String>> {
        let mut list = self.network_list.lock().await;
        if let Some((at, names)) = list.as_ref() {
            if at.elapsed() < NETWORK_LIST_AGE {
                return names.clone();
            }
        }
        let app = self.clone();
        let names = tokio::task::spawn_blocking(move || app.admission.network_names())
            .await
            .unwrap_or_default();
        let names = Arc::new(names);
        *list = Some((Instant::now(), names.clone()));
        names
    }

    /// Memory held by the live games' agents (MiB).
    pub(super) fn games_mb(&self) -> u64 {
        self.memory.held() - self.tables_mb()
    }

    /// Memory held by the open endgame tables (MiB).
    pub(super) fn tables_mb(&self) -> u64 {
        self.memory.held_by(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A server with these limits and no tables.
    fn server(max_games: usize, client_games: usize, memory_mb: u64) -> AppState {
        let mut admission = Admission::default();
        admission.limits.client_games = client_games;
        admission.limits.memory_mb = memory_mb;
        AppState::new(
            Registry::builtin(),
            admission,
            max_games,
            Duration::from_secs(1),
        )
    }

    /// A game of people whose agents hold `memory_mb` (as counted at its creation).
    fn session(memory_mb: u64) -> Session {
        Session {
            game: Game::new(Rules::abapa()),
            seats: vec![Seat::Person, Seat::Person],
            thinking: false,
            last: None,
            error: None,
            stop: None,
            memory_mb,
        }
    }

    proptest! {
        /// For any limits and any mix of games (their clients, the memory they hold, deletes),
        /// the counted memory never exceeds `--memory-mb`, the games `--max-games`, a client's
        /// games `--max-client-games`; the counts are the sums of the games kept; and a new
        /// game is never dropped to make room for older ones.
        #[test]
        fn the_counts_stay_within_the_limits(
            max_games in 1usize..24,
            client_games in 1usize..8,
            memory_mb in 1u64..512,
            requests in prop::collection::vec((0u8..6, 0u64..600, any::<bool>()), 1..120),
        ) {
            let app = server(max_games, client_games, memory_mb);
            let mut ids = Vec::new();
            for (client, mb, delete) in requests {
                if delete && !ids.is_empty() {
                    let id: String = ids.remove(mb as usize % ids.len());
                    app.remove(&id);
                    continue;
                }
                // What the routes admit: a game whose agents alone fit the budget.
                if mb > memory_mb {
                    continue;
                }
                let Ok(id) = app.insert(session(mb), IpAddr::from([10, 0, 0, client])) else {
                    continue;
                };
                prop_assert!(lock(&app.games).map.contains_key(&id), "the new game was dropped");
                ids.push(id);
                let g = lock(&app.games);
                let held = app.games_mb();
                prop_assert!(held <= memory_mb, "{held} MiB over {memory_mb}");
                prop_assert!(g.map.len() <= max_games);
                let sum: u64 = g.map.values().map(|e| e.memory_mb).sum();
                prop_assert_eq!(sum, held);
                let reserved: u64 = g.map.values().map(|e| e.memory.amount()).sum();
                prop_assert_eq!(reserved, held);
                prop_assert_eq!(g.order.len(), g.map.len());
                for (n, _) in g.holders().values() {
                    prop_assert!(*n <= client_games);
                }
            }
        }
    }
}
