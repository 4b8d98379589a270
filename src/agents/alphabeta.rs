//! Alpha-beta search for the 2-player games: negamax with iterative deepening, a transposition
//! table, move ordering, and depth / node / time limits.
//!
//! - **Values** are in hundredths of a seed for the player to move. A position that ends the
//!   game is worth `±(WIN - 64·ply) + margin`: any win beats any non-terminal value, a faster
//!   win beats a slower one and, at equal length, a larger final margin a smaller one; a drawn
//!   end is worth 0. A position cut off by the rules' ply limit is worth its store difference.
//!   Below the search horizon the [`Evaluator`] estimates the position.
//! - **Rules** come only from the engine: the search plays moves with
//!   [`State::apply_unchecked`] on copies, so grand slams, feeding, starvation and every other
//!   rule are exactly the game's. Repetitions are detected like [`crate::History`]: a position
//!   seen since the last capture, on the game's history or the search path, ends the game by the
//!   rules' cycle rule (when [`State::repetition_ends`] says it does).
//! - **Transposition table**: an entry is keyed by everything its value depends on: the
//!   position and stores, the ply when the rules have a ply limit, and the positions of the
//!   repetition window when they have a cycle rule (see `AlphaBeta::tt_key`), so that a value
//!   found near the ply limit or next to a repetition is never reused where it does not hold.
//! - **Move ordering**: the transposition-table move, then captures by size, killer moves and the
//!   history heuristic.
//! - **Limits**: `depth` always; `nodes`, `move_time_ms` and the stop signal ([`Agent::set_stop`])
//!   stop the search between nodes (read every [`CHECK_NODES`] nodes, well under a millisecond),
//!   and the move of the last completed iteration is played (depth 1 always completes). Node
//!   limits are reproducible, time limits are not.
//! - **Endgame tables** (optional, [`AlphaBeta::with_tablebase`], spec option `tb=DIR`): a
//!   position the table covers is scored as the end it leads to under perfect play, exactly
//!   (the table sets the game's history aside, see [`crate::tablebase`]).
//! - **Games**: 2 players (any 2-player preset, relay sowing included: a player who cannot move
//!   is skipped and the same player moves again, which the search follows).
//!
//! ```
//! use awale::agents::{AlphaBeta, AlphaBetaSettings, Turn};
//! use awale::{Rules, State};
//! let rules = Rules::abapa();
//! let mut ab = AlphaBeta::new(AlphaBetaSettings { depth: 4, ..Default::default() });
//! // House F (2 seeds) captures a=1+1 and b=2+1; it is also the best move at depth 4.
//! let s = State::from_parts(&rules, &[1, 0, 0, 0, 0, 2, 1, 2, 5, 0, 0, 0], &[20, 17], 0, 0).unwrap();
//! let r = ab.search(&Turn::new(&rules, &s)).unwrap();
//! assert_eq!(r.best, 5);
//! assert!(r.value > 0);
//! ```

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::eval::Evaluator;
use super::kind::{self, AgentKind, AgentOption, Cost};
use super::stop::{stopped, StopSignal};
use super::{no_move, splitmix, Agent, Thoughts, Turn};
use crate::error::{AwaleError, Result};
use crate::rules::{CycleRule, Rules, MAX_PITS};
use crate::state::{PositionKey, State, Status};
use crate::tablebase::Tablebase;

/// The value of a won end, before the distance and margin adjustments.
pub const WIN: i32 = 1_000_000;
/// Values beyond this (in absolute value) are proven game ends.
pub const WIN_BOUND: i32 = WIN / 2;
const PLY_COST: i32 = 64;
const INF: i32 = i32::MAX / 2;
const MAX_PLY: usize = 256;
/// How often, in nodes, the search reads its clock and stop signal: some tens of microseconds
/// of search.
pub const CHECK_NODES: u64 = 1024;

/// Settings of an [`AlphaBeta`] search (spec `alphabeta:depth=8,nodes=..,move_time_ms=..,tt_mb=..,eval=..`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AlphaBetaSettings {
    /// Deepest iteration, in plies (at least 1).
    pub depth: u32,
    /// Stop after about this many nodes per move; 0 for no limit.
    pub nodes: u64,
    /// Stop after about this many milliseconds per move; 0 for no limit.
    pub move_time_ms: u64,
    /// Size of the transposition table in MiB; 0 turns it off.
    pub tt_mb: usize,
    /// The evaluation below the horizon.
    pub eval: Evaluator,
}

impl Default for AlphaBetaSettings {
    fn default() -> Self {
        AlphaBetaSettings {
            depth: 6,
            nodes: 0,
            move_time_ms: 0,
            tt_mb: 16,
            eval: Evaluator::default(),
        }
    }
}

/// What a search found.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchResult {
    /// The move to play (house index in the mover's row).
    pub best: usize,
    /// Its value for the player to move (hundredths of a seed; beyond [`WIN_BOUND`], a proven
    /// end).
    pub value: i32,
    /// The deepest completed iteration (0 when there was a single legal move).
    pub depth: u32,
    /// Nodes visited (positions reached by a move).
    pub nodes: u64,
    /// Time spent.
    pub elapsed: Duration,
}

impl SearchResult {
    /// The search as [`Thoughts`]: the value in seeds (or a proven result), depth and nodes.
    pub fn thoughts(&self) -> Thoughts {
        let proven = if self.value > WIN_BOUND {
            Some("win")
        } else if self.value < -WIN_BOUND {
            Some("loss")
        } else {
            None
        };
        let eval = match proven {
            Some("win") => "a win by force".to_string(),
            Some(_) => "a loss against best play".to_string(),
            None => format!("{:+.2} seeds for the mover", self.value as f64 / 100.0),
        };
        Thoughts {
            summary: format!(
                "alpha-beta depth {}: {eval}, {} nodes",
                self.depth, self.nodes
            ),
            value: proven.is_none().then_some(self.value as f64 / 100.0),
            unit: "seeds",
            proven,
            depth: Some(self.depth),
            nodes: Some(self.nodes),
            moves: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct TtEntry {
    key: u64,
    value: i32,
    depth: u8,
    flag: u8,
    best: u8,
}

const EXACT: u8 = 1;
const LOWER: u8 = 2;
const UPPER: u8 = 3;

/// A child of a node, with its ordering score.
#[derive(Clone, Copy)]
struct Child {
    state: State,
    house: u8,
    captured: bool,
    order: i32,
}

/// The alpha-beta agent. See the [module](self) documentation.
#[derive(Debug, Clone)]
pub struct AlphaBeta {
    cfg: AlphaBetaSettings,
    name: String,
    /// The transposition table: allocated by the first search, of [`AlphaBeta::tt_entries`]
    /// entries (an agent built and never asked costs nothing).
    tt: Vec<TtEntry>,
    tt_entries: usize,
    tt_used: bool,
    killers: Vec<[u8; 2]>,
    history: [[u32; MAX_PITS]; 2],
    path: Vec<PositionKey>,
    /// `sums[i]`: the wrapping sum of [`key_hash`] over `path[..=i]`, so that the repetition
    /// window `path[floor..]` hashes in O(1) for the transposition table.
    sums: Vec<u64>,
    nodes: u64,
    next_check: u64,
    deadline: Option<Instant>,
    stop: bool,
    /// Read with the clock ([`Agent::set_stop`]).
    signal: Option<StopSignal>,
    can_stop: bool,
    /// The most plies a search looks ahead, below `cfg.depth` ([`Agent::set_depth_limit`]).
    depth_limit: Option<u32>,
    horizon_hit: bool,
    /// Endgame tables probed at positions they cover (exact leaves), if any.
    tablebase: Option<Arc<Tablebase>>,
    /// The last search of [`Agent::select`], for [`Agent::thoughts`].
    last: Option<SearchResult>,
}

impl AlphaBeta {
    /// The entries of the transposition table of `tt_mb` MiB.
    fn tt_entries_of(tt_mb: usize) -> usize {
        let entries = (tt_mb << 20) / std::mem::size_of::<TtEntry>();
        if entries == 0 {
            0
        } else {
            entries.next_power_of_two() / 2
        }
    }

    /// The memory (bytes) an agent of these settings holds once it has searched: what
    /// [`Agent::memory_bytes`] says of it, known before it is built.
    ///
    /// ```
    /// use awale::agents::{Agent, AlphaBeta, AlphaBetaSettings};
    /// let cfg = AlphaBetaSettings { tt_mb: 4, ..Default::default() };
    /// assert_eq!(AlphaBeta::memory_of(&cfg), AlphaBeta::new(cfg).memory_bytes(&awale::Rules::abapa()));
    /// ```
    pub fn memory_of(cfg: &AlphaBetaSettings) -> u64 {
        (Self::tt_entries_of(cfg.tt_mb) * std::mem::size_of::<TtEntry>() + MAX_PLY * 2) as u64
    }

    /// An alpha-beta agent with these settings (a depth of 0 is taken as 1).
    pub fn new(cfg: AlphaBetaSettings) -> AlphaBeta {
        let mut cfg = cfg;
        cfg.depth = cfg.depth.clamp(1, MAX_PLY as u32 - 1);
        let entries = Self::tt_entries_of(cfg.tt_mb);
        AlphaBeta {
            name: format!("alphabeta:depth={}", cfg.depth),
            cfg,
            tt: Vec::new(),
            tt_entries: entries,
            tt_used: false,
            killers: vec![[u8::MAX; 2]; MAX_PLY],
            history: [[0; MAX_PITS]; 2],
            path: Vec::with_capacity(256),
            sums: Vec::with_capacity(256),
            nodes: 0,
            next_check: 0,
            deadline: None,
            stop: false,
            signal: None,
            can_stop: false,
            depth_limit: None,
            horizon_hit: false,
            tablebase: None,
            last: None,
        }
    }

    /// Probes `table` at every position it covers: their values are exact (the seeds each
    /// side ends with under perfect play), so the search stops there. Refused when the table
    /// was built for other rules of play than `rules`.
    pub fn with_tablebase(mut self, table: Arc<Tablebase>, rules: &Rules) -> Result<AlphaBeta> {
        if !table.covers(rules) {
            return Err(AwaleError::Tablebase(format!(
                "the table was built for '{}', not for '{rules}'",
                table.rules()
            )));
        }
        self.tablebase = Some(table);
        Ok(self)
    }

    /// Checks that the search can play `rules` (2 players).
    pub fn check_rules(rules: &Rules) -> Result<()> {
        if rules.players != 2 {
            return Err(AwaleError::BadAgentSpec {
                spec: "alphabeta".into(),
                reason: format!(
                    "alpha-beta plays 2-player games; these rules have {} players (use mcts)",
                    rules.players
                ),
            });
        }
        Ok(())
    }

    /// Sets the display name.
    pub fn with_name(mut self, name: impl Into<String>) -> AlphaBeta {
        self.name = name.into();
        self
    }

    /// The search's settings.
    pub fn settings(&self) -> &AlphaBetaSettings {
        &self.cfg
    }

    /// Searches the turn's position and returns the best move found with its value.
    pub fn search(&mut self, turn: &Turn<'_>) -> Result<SearchResult> {
        let rules = turn.rules;
        let root = turn.state;
        let t0 = Instant::now();
        if turn.rules.players != 2 {
            return Err(AwaleError::AgentFailed {
                agent: self.name.clone(),
                reason: format!(
                    "alpha-beta plays 2-player games, not {}-player ones",
                    rules.players
                ),
            });
        }
        if self.tt.len() != self.tt_entries {
            self.tt = vec![TtEntry::default(); self.tt_entries];
        }
        let mask = root.legal_mask(rules);
        if mask == 0 {
            return Err(no_move(&self.name, root));
        }
        self.nodes = 0;
        self.next_check = 0;
        self.stop = false;
        self.deadline =
            (self.cfg.move_time_ms > 0).then(|| t0 + Duration::from_millis(self.cfg.move_time_ms));
        for h in self.history.iter_mut().flatten() {
            *h /= 8;
        }
        if mask.count_ones() == 1 {
            return Ok(SearchResult {
                best: mask.trailing_zeros() as usize,
                value: self.cfg.eval.evaluate(rules, root),
                depth: 0,
                nodes: 0,
                elapsed: t0.elapsed(),
            });
        }
        // The repetition window: the game's positions since its last capture, then the path.
        self.path.clear();
        self.sums.clear();
        if rules.cycle != CycleRule::Ignore {
            for &key in turn.history {
                self.push_path(key);
            }
            if self.path.last() != Some(&root.key()) {
                self.push_path(root.key());
            }
        }
        let mut best = (mask.trailing_zeros() as usize, 0);
        let mut depth_done = 0;
        let max_depth = self
            .depth_limit
            .map_or(self.cfg.depth, |d| d.clamp(1, self.cfg.depth));
        for depth in 1..=max_depth {
            self.can_stop = depth > 1;
            self.horizon_hit = false;
            let (mv, value) = self.root(rules, root, depth as i32, best.0);
            if self.stop {
                break;
            }
            best = (mv, value);
            depth_done = depth;
            if value.abs() > WIN_BOUND || !self.horizon_hit {
                break; // a proven end, or the whole tree was searched
            }
        }
        Ok(SearchResult {
            best: best.0,
            value: best.1,
            depth: depth_done,
            nodes: self.nodes,
            elapsed: t0.elapsed(),
        })
    }

    /// One iteration at the root: every move searched with a full window, `first` first.
    fn root(&mut self, rules: &Rules, s: &State, depth: i32, first: usize) -> (usize, i32) {
        let (mut children, n) = self.children(rules, s, 0, first as u8, 0);
        children[..n].sort_by_key(|c| -c.order);
        let mut alpha = -INF;
        let mut best = children[0].house as usize;
        for c in &children[..n] {
            let v = self.child_value(rules, s, c, depth, 1, alpha, INF, 0);
            if self.stop {
                break;
            }
            if v > alpha {
                alpha = v;
                best = c.house as usize;
            }
        }
        if !self.stop {
            let key = self.tt_key(rules, s, 0);
            self.store_key(key, depth, alpha, EXACT, best as u8, 0);
        }
        (best, alpha)
    }

    /// Appends `key` to the search path.
    #[inline]
    fn push_path(&mut self, key: PositionKey) {
        let sum = self.sums.last().copied().unwrap_or(0);
        self.sums.push(sum.wrapping_add(key_hash(key)));
        self.path.push(key);
    }

    /// Removes the last key of the search path.
    #[inline]
    fn pop_path(&mut self) {
        self.path.pop();
        self.sums.pop();
    }

    /// The transposition-table key of `s`, last on the path with its repetition window
    /// starting at `floor`: the position and stores, plus whatever else its value depends on.
    /// - With a ply limit, the ply: the same position nearer the limit has another value.
    /// - With a cycle rule, the positions of the repetition window (a sum of their hashes, a
    ///   multiset): which positions of the subtree end by repetition depends on them. Entries
    ///   are then shared only between searches of the same position with the same window (the
    ///   iterations of iterative deepening, and positions reached through a capture).
    #[inline]
    fn tt_key(&self, rules: &Rules, s: &State, floor: usize) -> u64 {
        let mut key = hash(s);
        if rules.max_plies > 0 {
            key ^= splitmix(u64::from(s.ply()) ^ 0x6a09_e667_f3bc_c909);
        }
        if rules.cycle != CycleRule::Ignore && !self.sums.is_empty() {
            let end = self.sums[self.sums.len() - 1];
            let start = if floor == 0 || floor > self.sums.len() {
                0
            } else {
                self.sums[floor - 1]
            };
            key ^= splitmix(end.wrapping_sub(start) ^ 0xbb67_ae85_84ca_a73b);
        }
        key | 1
    }

    /// The value of child `c` of `s` for the player to move in `s`.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn child_value(
        &mut self,
        rules: &Rules,
        s: &State,
        c: &Child,
        depth: i32,
        ply: usize,
        alpha: i32,
        beta: i32,
        floor: usize,
    ) -> i32 {
        let floor = if c.captured { self.path.len() } else { floor };
        self.push_path(c.state.key());
        let v = if c.state.to_move() == s.to_move() {
            self.negamax(rules, &c.state, depth - 1, ply, alpha, beta, floor)
        } else {
            -self.negamax(rules, &c.state, depth - 1, ply, -beta, -alpha, floor)
        };
        self.pop_path();
        v
    }

    /// The children of `s` with their ordering scores (`tt_move` first), repetition ends
    /// applied. `floor` is where the repetition window starts on the path.
    fn children(
        &mut self,
        rules: &Rules,
        s: &State,
        ply: usize,
        tt_move: u8,
        floor: usize,
    ) -> ([Child; MAX_PITS], usize) {
        let mask = s.legal_mask(rules);
        let me = s.to_move() & 1;
        let mut out = [Child {
            state: *s,
            house: 0,
            captured: false,
            order: 0,
        }; MAX_PITS];
        let mut n = 0;
        let killers = if ply < MAX_PLY {
            self.killers[ply]
        } else {
            [u8::MAX; 2]
        };
        let check_cycles = rules.cycle != CycleRule::Ignore;
        for h in 0..rules.houses as usize {
            if mask & (1 << h) == 0 {
                continue;
            }
            let mut child = *s;
            let info = child.apply_unchecked(rules, h);
            self.nodes += 1;
            if check_cycles
                && info.any_captured == 0
                && child.status() == Status::Ongoing
                && self.path[floor.min(self.path.len())..].contains(&child.key())
            {
                child.end_by_repetition(rules);
            }
            let order = if h as u8 == tt_move {
                1 << 28
            } else {
                (info.captured as i32) * (1 << 20)
                    + if killers[0] == h as u8 {
                        1 << 19
                    } else if killers[1] == h as u8 {
                        1 << 18
                    } else {
                        0
                    }
                    + (self.history[me][h].min(1 << 17)) as i32
            };
            out[n] = Child {
                state: child,
                house: h as u8,
                captured: info.any_captured > 0,
                order,
            };
            n += 1;
        }
        (out, n)
    }

    #[allow(clippy::too_many_arguments)]
    fn negamax(
        &mut self,
        rules: &Rules,
        s: &State,
        depth: i32,
        ply: usize,
        mut alpha: i32,
        beta: i32,
        floor: usize,
    ) -> i32 {
        if s.is_over() {
            return self.terminal(s, ply);
        }
        if let Some(v) = self.table_value(s, ply) {
            return v;
        }
        if depth <= 0 || ply >= MAX_PLY - 1 {
            self.horizon_hit = true;
            return self.cfg.eval.evaluate(rules, s);
        }
        if self.can_stop && self.nodes >= self.next_check {
            if self.out_of_budget() {
                self.stop = true;
            } else {
                self.next_check = self.nodes + CHECK_NODES;
                if self.cfg.nodes > 0 {
                    self.next_check = self.next_check.min(self.cfg.nodes);
                }
            }
        }
        if self.stop {
            return 0;
        }
        let alpha0 = alpha;
        let key = self.tt_key(rules, s, floor);
        let mut tt_move = u8::MAX;
        if let Some(e) = self.probe(key) {
            tt_move = e.best;
            if e.depth as i32 >= depth {
                let v = from_tt(e.value, ply);
                let hit = match e.flag {
                    EXACT => true,
                    LOWER => v >= beta,
                    UPPER => v <= alpha,
                    _ => false,
                };
                if hit {
                    // A bound from a deeper search does not tell whether the horizon was hit.
                    self.horizon_hit = true;
                    return v;
                }
            }
        }
        let (mut children, n) = self.children(rules, s, ply, tt_move, floor);
        let children = &mut children[..n];
        // Insertion sort: at most 16 children.
        for i in 1..children.len() {
            let mut j = i;
            while j > 0 && children[j - 1].order < children[j].order {
                children.swap(j - 1, j);
                j -= 1;
            }
        }
        let mut best = -INF;
        let mut best_move = children[0].house;
        for c in children.iter() {
            let v = self.child_value(rules, s, c, depth, ply + 1, alpha, beta, floor);
            if self.stop {
                return 0;
            }
            if v > best {
                best = v;
                best_move = c.house;
            }
            if v > alpha {
                alpha = v;
            }
            if alpha >= beta {
                if !c.captured && ply < MAX_PLY {
                    let k = &mut self.killers[ply];
                    if k[0] != c.house {
                        k[1] = k[0];
                        k[0] = c.house;
                    }
                }
                self.history[s.to_move() & 1][c.house as usize] += (depth * depth) as u32;
                break;
            }
        }
        let flag = if best <= alpha0 {
            UPPER
        } else if best >= beta {
            LOWER
        } else {
            EXACT
        };
        self.store_key(key, depth, best, flag, best_move, ply);
        best
    }

    /// The exact value of `s` from the endgame table, scored as the end it leads to, when the
    /// table covers it.
    #[inline]
    fn table_value(&self, s: &State, ply: usize) -> Option<i32> {
        let table = self.tablebase.as_ref()?;
        let v = table.value(s)? as i32;
        let me = s.to_move();
        let n = s.board_seeds(table.rules()) as i32;
        let diff = s.scores()[me] as i32 + v - (s.scores()[1 - me] as i32 + n - v);
        Some(match diff.signum() {
            1 => WIN - PLY_COST * ply as i32 + diff,
            -1 => -WIN + PLY_COST * ply as i32 + diff,
            _ => 0,
        })
    }

    /// The value of a finished position for its player to move.
    #[inline]
    fn terminal(&self, s: &State, ply: usize) -> i32 {
        let me = s.to_move();
        let diff = s.scores()[me] as i32 - s.scores()[1 - me] as i32;
        match s.status() {
            Status::Ended(_) => match diff.signum() {
                1 => WIN - PLY_COST * ply as i32 + diff,
                -1 => -WIN + PLY_COST * ply as i32 + diff,
                _ => 0,
            },
            _ => self.cfg.eval.store * diff,
        }
    }

    fn out_of_budget(&self) -> bool {
        (self.cfg.nodes > 0 && self.nodes >= self.cfg.nodes)
            || stopped(self.signal.as_ref())
            || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Sets the move time (`move_time_ms`; 0 for none), for agents that search with
    /// alpha-beta (`perfect`'s fallback).
    pub(crate) fn set_move_time_ms(&mut self, move_time_ms: u64) {
        self.cfg.move_time_ms = move_time_ms;
    }

    #[inline]
    fn probe(&self, key: u64) -> Option<TtEntry> {
        if self.tt.is_empty() {
            return None;
        }
        let e = self.tt[(key as usize) & (self.tt.len() - 1)];
        (e.flag != 0 && e.key == key).then_some(e)
    }

    #[inline]
    fn store_key(&mut self, key: u64, depth: i32, value: i32, flag: u8, best: u8, ply: usize) {
        if self.tt.is_empty() {
            return;
        }
        self.tt_used = true;
        let i = (key as usize) & (self.tt.len() - 1);
        let e = &mut self.tt[i];
        if e.key != key || depth as u8 >= e.depth || e.flag == 0 {
            *e = TtEntry {
                key,
                value: to_tt(value, ply),
                depth: depth.clamp(0, 255) as u8,
                flag,
                best,
            };
        }
    }
}

/// A win value is stored as its distance from the node, not from the root.
#[inline]
fn to_tt(v: i32, ply: usize) -> i32 {
    if v > WIN_BOUND {
        v + PLY_COST * ply as i32
    } else if v < -WIN_BOUND {
        v - PLY_COST * ply as i32
    } else {
        v
    }
}

#[inline]
fn from_tt(v: i32, ply: usize) -> i32 {
    if v > WIN_BOUND {
        v - PLY_COST * ply as i32
    } else if v < -WIN_BOUND {
        v + PLY_COST * ply as i32
    } else {
        v
    }
}

/// A 64-bit hash of the board, the stores and the player to move.
#[inline]
fn hash(s: &State) -> u64 {
    let (pits, to_move) = s.key();
    let sc = s.scores();
    let extra = (sc[0] as u64) | (sc[1] as u64) << 8 | (to_move as u64) << 16;
    let mut z = (pits as u64) ^ splitmix((pits >> 64) as u64 ^ splitmix(extra));
    z = splitmix(z);
    z | 1 // 0 never appears as a key
}

/// A 64-bit hash of a repetition key (for the window sums of [`AlphaBeta::tt_key`]).
#[inline]
fn key_hash(key: PositionKey) -> u64 {
    splitmix(key.0 as u64 ^ splitmix((key.0 >> 64) as u64 ^ u64::from(key.1)))
}

impl Agent for AlphaBeta {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn select(&mut self, turn: &Turn<'_>) -> Result<usize> {
        let r = self.search(turn)?;
        let best = r.best;
        self.last = Some(r);
        Ok(best)
    }

    fn thoughts(&self) -> Option<Thoughts> {
        self.last.as_ref().map(SearchResult::thoughts)
    }

    fn reset(&mut self, _seed: u64) {
        self.last = None;
        if self.tt_used {
            self.tt.iter_mut().for_each(|e| *e = TtEntry::default());
            self.tt_used = false;
        }
        self.killers.iter_mut().for_each(|k| *k = [u8::MAX; 2]);
        self.history = [[0; MAX_PITS]; 2];
    }

    fn set_stop(&mut self, stop: StopSignal) {
        self.signal = Some(stop);
    }

    /// Searches at most `depth` plies (at least 1), never more than its own `depth`.
    fn set_depth_limit(&mut self, depth: Option<u32>) -> bool {
        self.depth_limit = depth;
        true
    }

    /// Its transposition table (at most `tt_mb` MiB, allocated by its first search) and its
    /// killer moves.
    fn memory_bytes(&self, _rules: &Rules) -> u64 {
        (self.tt_entries * std::mem::size_of::<TtEntry>() + self.killers.len() * 2) as u64
    }
}

/// What an `alphabeta` spec sets: the search settings and the endgame tables to probe.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AlphaBetaConfig {
    /// The search settings (defaults: [`AlphaBetaSettings::default`]).
    pub search: AlphaBetaSettings,
    /// Folder of endgame tables to probe (`tb=DIR`); none by default.
    pub tb: Option<String>,
}

/// A weight of the evaluation, within ±1 000 000.
fn weight(value: &str) -> std::result::Result<i32, String> {
    let w = kind::signed(value)?;
    i32::try_from(w)
        .ok()
        .filter(|w| w.abs() <= 1_000_000)
        .ok_or_else(|| format!("{w} is out of range (|w| <= 1000000)"))
}

/// The `alphabeta` kind: its options and its factory (see [`kind`]).
pub static KIND: AgentKind<AlphaBetaConfig> = AgentKind {
    kind: "alphabeta",
    summary: "negamax alpha-beta, iterative deepening, transposition table (2-player games)",
    options: &[
        AgentOption {
            key: "depth",
            cost: Cost::Depth,
            help: "deepest iteration in plies",
            set: |s, v| {
                let depth = kind::whole(v)?;
                if !(1..=64).contains(&depth) {
                    return Err(format!("{depth} is not between 1 and 64"));
                }
                s.search.depth = depth as u32;
                Ok(())
            },
            show: |s| Some(s.search.depth.to_string()),
        },
        AgentOption {
            key: "nodes",
            cost: Cost::Free,
            help: "node budget per move, 0 = none",
            set: |s, v| {
                s.search.nodes = kind::whole(v)?;
                Ok(())
            },
            show: |s| Some(s.search.nodes.to_string()),
        },
        AgentOption {
            key: "move_time_ms",
            cost: Cost::MoveTimeMs,
            help: "the move time in milliseconds, 0 = none",
            set: |s, v| {
                s.search.move_time_ms = kind::whole(v)?;
                Ok(())
            },
            show: |s| Some(s.search.move_time_ms.to_string()),
        },
        AgentOption {
            key: "tt_mb",
            cost: Cost::MemoryMb,
            help: "transposition table size in MiB, 0 = off",
            set: |s, v| {
                let tt_mb = kind::whole(v)?;
                if tt_mb > 4096 {
                    return Err(format!("{tt_mb} MiB is more than 4096"));
                }
                s.search.tt_mb = tt_mb as usize;
                Ok(())
            },
            show: |s| Some(s.search.tt_mb.to_string()),
        },
        // Before the weights: they replace the chosen evaluation's.
        AgentOption {
            key: "eval",
            cost: Cost::Free,
            help: "strategic (stores, greniers, potential, threats) or material",
            set: |s, v| {
                s.search.eval = Evaluator::named(v)
                    .ok_or_else(|| format!("'{v}' is not an evaluation (strategic, material)"))?;
                Ok(())
            },
            show: |s| {
                ["strategic", "material"]
                    .into_iter()
                    .find(|name| Evaluator::named(name) == Some(s.search.eval))
                    .map(str::to_string)
            },
        },
        AgentOption {
            key: "w_store",
            cost: Cost::Free,
            help: "weight per seed of store difference, replacing eval's",
            set: |s, v| {
                s.search.eval.store = weight(v)?;
                Ok(())
            },
            show: |s| Some(s.search.eval.store.to_string()),
        },
        AgentOption {
            key: "w_board",
            cost: Cost::Free,
            help: "weight per seed of board-side difference, replacing eval's",
            set: |s, v| {
                s.search.eval.board = weight(v)?;
                Ok(())
            },
            show: |s| Some(s.search.eval.board.to_string()),
        },
        AgentOption {
            key: "w_mobility",
            cost: Cost::Free,
            help: "weight per non-empty house of difference, replacing eval's",
            set: |s, v| {
                s.search.eval.mobility = weight(v)?;
                Ok(())
            },
            show: |s| Some(s.search.eval.mobility.to_string()),
        },
        AgentOption {
            key: "w_grenier",
            cost: Cost::Free,
            help: "weight per grenier in reach, replacing eval's",
            set: |s, v| {
                s.search.eval.grenier = weight(v)?;
                Ok(())
            },
            show: |s| Some(s.search.eval.grenier.to_string()),
        },
        AgentOption {
            key: "w_threat",
            cost: Cost::Free,
            help: "weight per seed of the best direct threat, replacing eval's",
            set: |s, v| {
                s.search.eval.threat = weight(v)?;
                Ok(())
            },
            show: |s| Some(s.search.eval.threat.to_string()),
        },
        AgentOption {
            key: "tb",
            cost: Cost::Tables,
            help: "folder of endgame tables to probe at positions they cover",
            set: |s, v| {
                s.tb = Some(v.to_string());
                Ok(())
            },
            show: |s| s.tb.clone(),
        },
    ],
    defaults: AlphaBetaConfig::default,
    instant: false,
    // Its table and killer moves, counted at least at the `tt_mb` asked for.
    memory: |s| AlphaBeta::memory_of(&s.search).max((s.search.tt_mb as u64) << 20),
    shared: None,
    build: |settings, spec, rules, _| {
        AlphaBeta::check_rules(rules).map_err(|e| match e {
            AwaleError::BadAgentSpec { reason, .. } => spec.error(reason),
            e => e,
        })?;
        let mut agent = AlphaBeta::new(settings.search).with_name(spec.display_name());
        if let Some(dir) = &settings.tb {
            let table = Tablebase::open_shared(Path::new(dir), rules)
                .map_err(|e| spec.error(format!("tb: {e}")))?;
            agent = agent
                .with_tablebase(table, rules)
                .map_err(|e| spec.error(format!("tb: {e}")))?;
        }
        Ok(Box::new(agent))
    },
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tt_values_round_trip_and_hash_sees_scores() {
        for v in [0, 123, -5000, WIN - 640 + 3, -WIN + 64 - 2] {
            assert_eq!(from_tt(to_tt(v, 7), 7), v);
        }
        let rules = Rules::abapa();
        let a = State::from_parts(&rules, &[4; 12], &[0, 0], 0, 0).unwrap();
        let mut pits = [4u8; 12];
        pits[0] = 2;
        let b = State::from_parts(&rules, &pits, &[2, 0], 0, 0).unwrap();
        let c = State::from_parts(&rules, &pits, &[0, 2], 0, 0).unwrap();
        assert_ne!(hash(&a), hash(&b));
        assert_ne!(hash(&b), hash(&c));
    }

    #[test]
    fn node_limit_stops_the_search_after_depth_one() {
        let rules = Rules::abapa();
        let s = State::initial(&rules, 0);
        let mut ab = AlphaBeta::new(AlphaBetaSettings {
            depth: 20,
            nodes: 2000,
            ..Default::default()
        });
        let r = ab.search(&Turn::new(&rules, &s)).unwrap();
        assert!(r.depth >= 1 && r.depth < 20);
        assert!(r.nodes < 4000, "{} nodes", r.nodes);
    }

    #[test]
    fn search_is_deterministic_and_tt_agrees_with_plain_search() {
        let rules = Rules::abapa();
        let mut g = crate::Game::new(rules);
        for h in [2, 3, 0, 5] {
            g.apply(h).unwrap();
        }
        let turn = Turn::from_game(&g);
        let cfg = AlphaBetaSettings {
            depth: 5,
            eval: Evaluator::material(),
            ..Default::default()
        };
        let with_tt = AlphaBeta::new(cfg).search(&turn).unwrap();
        let again = AlphaBeta::new(cfg).search(&turn).unwrap();
        let no_tt = AlphaBeta::new(AlphaBetaSettings { tt_mb: 0, ..cfg })
            .search(&turn)
            .unwrap();
        assert_eq!(
            with_tt,
            SearchResult {
                elapsed: with_tt.elapsed,
                ..again
            }
        );
        assert_eq!(with_tt.value, no_tt.value);
    }
}
