//! The end "by indetermination" (`001`): can any sequence of legal moves from a position still
//! lead to a capture? An exact search over the positions reachable without a capture.
//!
//! A move without a capture keeps the number of seeds on the board, so the positions reachable
//! from a position without a capture all hold as many seeds as it does: the search is finite.
//! Its answer depends only on the board, the player to move and the rules of play (the win
//! threshold, the ply limit and the indetermination threshold are set aside, see [`Probe`]).
//!
//! Two ways to answer, both exact:
//! - a table of every position with at most `rules.indetermination` seeds (single sowing, when
//!   it has at most 2^20 positions), built once per set of rules of play and shared by every
//!   thread; at most [`MAX_TABLES`] tables are kept (the least recently used is dropped);
//! - otherwise a depth-first walk with per-thread buffers and a per-thread memo of answers.

use std::sync::{Arc, Mutex};

use super::{PositionKey, State, Status};
use crate::board_index::{ways, LayerIndex};
use crate::rules::{GrandSlam, Rules, Sowing, MAX_PITS};

/// Whether any sequence of legal moves from `state` can lead to a capture (false once the game
/// is over). See [`State::capture_reachable`].
pub(crate) fn capture_reachable(state: &State, rules: &Rules) -> bool {
    if state.status() != Status::Ongoing {
        return false;
    }
    REACH.with(|search| match search.try_borrow_mut() {
        Ok(mut search) => search.run(state, rules),
        // Not reachable from the search itself (its rules have no indetermination); kept
        // for safety.
        Err(_) => ReachSearch::default().run(state, rules),
    })
}

thread_local! {
    /// The buffers of [`capture_reachable`], one set per thread.
    static REACH: std::cell::RefCell<ReachSearch> = std::cell::RefCell::new(ReachSearch::default());
}

/// A hash of a position key for the search's tables (use the top bits).
#[inline(always)]
fn key_hash(key: PositionKey) -> u64 {
    let x = (key.0 as u64) ^ ((key.0 >> 64) as u64).rotate_left(32) ^ ((key.1 as u64) << 56);
    (x ^ (x >> 31)).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// One slot of [`KeySet`].
#[derive(Clone, Copy, Default)]
struct Slot {
    pits: u128,
    generation: u32,
    to_move: u8,
}

/// A set of position keys (open addressing, linear probing) that is emptied in O(1) by bumping
/// a generation number, and grows (doubling) when more than half full.
struct KeySet {
    slots: Vec<Slot>,
    bits: u32,
    generation: u32,
    len: usize,
}

impl Default for KeySet {
    fn default() -> KeySet {
        KeySet {
            slots: vec![Slot::default(); 1 << 8],
            bits: 8,
            generation: 1,
            len: 0,
        }
    }
}

impl KeySet {
    /// Empties the set.
    fn clear(&mut self) {
        self.len = 0;
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.slots.fill(Slot::default());
            self.generation = 1;
        }
    }

    /// Adds `key`; false if it was already there.
    fn insert(&mut self, key: PositionKey) -> bool {
        if 2 * (self.len + 1) > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = (key_hash(key) >> (64 - self.bits)) as usize;
        loop {
            let slot = &mut self.slots[i];
            if slot.generation != self.generation {
                *slot = Slot {
                    pits: key.0,
                    generation: self.generation,
                    to_move: key.1,
                };
                self.len += 1;
                return true;
            }
            if slot.pits == key.0 && slot.to_move == key.1 {
                return false;
            }
            i = (i + 1) & mask;
        }
    }

    /// The keys in the set.
    fn keys(&self) -> impl Iterator<Item = PositionKey> + '_ {
        let generation = self.generation;
        self.slots
            .iter()
            .filter(move |s| s.generation == generation)
            .map(|s| (s.pits, s.to_move))
    }

    /// Doubles the table.
    fn grow(&mut self) {
        let old = std::mem::replace(&mut self.slots, vec![Slot::default(); 2 << self.bits]);
        self.bits += 1;
        self.len = 0;
        for s in old {
            if s.generation == self.generation {
                self.insert((s.pits, s.to_move));
            }
        }
    }
}

/// Number of positions [`Memo`] remembers (a power of two).
const MEMO_BITS: u32 = 14;

/// Answers of earlier searches under the same rules: a direct-mapped table of position keys;
/// `tags[i]` is 0 for an empty slot, else `1 + 2 * to_move + answer`.
#[derive(Default)]
struct Memo {
    rules: Option<Rules>,
    pits: Vec<u128>,
    tags: Vec<u8>,
}

impl Memo {
    /// Forgets everything unless it was built for `rules`.
    fn use_rules(&mut self, rules: &Rules) {
        if self.rules.as_ref() != Some(rules) {
            self.rules = Some(*rules);
            self.pits.clear();
            self.pits.resize(1 << MEMO_BITS, 0);
            self.tags.clear();
            self.tags.resize(1 << MEMO_BITS, 0);
        }
    }

    #[inline]
    fn get(&self, key: PositionKey) -> Option<bool> {
        let i = (key_hash(key) >> (64 - MEMO_BITS)) as usize;
        let tag = self.tags[i];
        if tag != 0 && (tag - 1) >> 1 == key.1 && self.pits[i] == key.0 {
            Some((tag - 1) & 1 == 1)
        } else {
            None
        }
    }

    #[inline]
    fn put(&mut self, key: PositionKey, answer: bool) {
        let i = (key_hash(key) >> (64 - MEMO_BITS)) as usize;
        self.pits[i] = key.0;
        self.tags[i] = 1 + 2 * key.1 + u8::from(answer);
    }
}

/// The rules of the capture search and its one step.
struct Probe {
    /// `rules` with every end that does not depend on the board alone turned off (threshold,
    /// ply limit, indetermination itself), so that positions are keyed by board and mover.
    rules: Rules,
    /// `rules` with grand slams not filtered by [`State::legal_mask`] (see [`Probe::expand`]).
    unfiltered: Rules,
    /// Grand slams are forbidden unless every move is one.
    forbidden: bool,
}

impl Probe {
    fn new(rules: &Rules) -> Probe {
        let rules = Rules {
            indetermination: 0,
            win_threshold: 0,
            max_plies: 0,
            sweep_on_end: false,
            ..*rules
        };
        // A grand slam captures nothing under `Forbidden`, exactly as under `NoCapture`; the
        // search tells forbidden grand slams apart itself from the moves it plays anyway,
        // rather than through `legal_mask`, which would sow every move twice.
        let forbidden = rules.grand_slam == GrandSlam::Forbidden && rules.sowing == Sowing::Single;
        let unfiltered = Rules {
            grand_slam: if forbidden {
                GrandSlam::NoCapture
            } else {
                rules.grand_slam
            },
            ..rules
        };
        Probe {
            rules,
            unfiltered,
            forbidden,
        }
    }

    /// Plays every legal move of `s` (ongoing): true as soon as one captures; otherwise
    /// `children` receives the positions reached that are still ongoing.
    fn expand(&self, s: &State, children: &mut Vec<State>) -> bool {
        children.clear();
        let mask = s.legal_mask(&self.unfiltered);
        let mut slams = 0u16;
        for i in 0..self.rules.houses as usize {
            if mask & (1 << i) == 0 {
                continue;
            }
            let mut next = *s;
            let info = next.apply_unchecked(&self.rules, i);
            // A capturing move is legal: only a grand slam can be forbidden, and under
            // `Forbidden` a grand slam captures nothing.
            if info.any_captured > 0 {
                return true;
            }
            if info.grand_slam {
                slams |= 1 << i;
            }
            children.push(next);
        }
        if self.forbidden && slams != 0 && slams != mask {
            // Grand slams are forbidden, as another move exists: drop them. `children` holds
            // the moves of `mask` in house order.
            let mut k = 0;
            children.retain(|_| {
                while mask & (1 << k) == 0 {
                    k += 1;
                }
                let keep = slams & (1 << k) == 0;
                k += 1;
                keep
            });
        }
        children.retain(|c| c.status() == Status::Ongoing);
        false
    }
}

/// Largest number of positions (boards × players) for which a [`ReachTable`] is built; with
/// more, [`ReachSearch`] searches at each call instead.
const REACH_TABLE_MAX: usize = 1 << 20;

/// The answer of [`State::capture_reachable`] for every position of single-sowing rules with at
/// most `limit` seeds on the board (the rules' indetermination threshold): computed once per
/// rules as a fixed point, then one lookup per call.
///
/// Boards are numbered by seed count, then by their number in their layer
/// ([`LayerIndex`], lexicographic).
struct ReachTable {
    /// The search rules the table was built for ([`Probe::rules`]).
    rules: Rules,
    limit: usize,
    /// `first[s]`: number of the first board holding `s` seeds.
    first: Vec<u64>,
    /// The numbering of the boards of each seed count `0..=limit`.
    layers: Vec<LayerIndex>,
    /// One bit per position (board number × players + player to move).
    reach: Vec<u64>,
}

impl ReachTable {
    /// Builds the table for positions with at most `limit` seeds on the board, or `None` when
    /// the rules are not single sowing or have too many positions.
    ///
    /// When the positions with up to `limit` seeds are too many, the table covers the largest
    /// seed count below it that fits ([`REACH_TABLE_MAX`]); the search answers above it.
    fn build(rules: &Rules, limit: usize) -> Option<ReachTable> {
        let probe = Probe::new(rules);
        let n = rules.pits();
        let h = rules.houses as usize;
        let players = rules.players as usize;
        if rules.sowing != Sowing::Single {
            return None;
        }
        let positions =
            |limit: usize| (0..=limit).map(|s| ways(n, s)).sum::<u64>() * players as u64;
        let mut limit = limit;
        while limit > 0 && positions(limit) > REACH_TABLE_MAX as u64 {
            limit -= 1;
        }
        if limit == 0 {
            return None;
        }
        let layers: Vec<LayerIndex> = (0..=limit).map(|s| LayerIndex::new(n, s)).collect();
        let boards: u64 = layers.iter().map(LayerIndex::count).sum();
        let mut first = vec![0u64; limit + 1];
        for s in 1..=limit {
            first[s] = first[s - 1] + layers[s - 1].count();
        }
        let total = boards as usize * players;
        let mut table = ReachTable {
            rules: probe.rules,
            limit,
            first,
            layers,
            reach: vec![0u64; total.div_ceil(64)],
        };
        // One pass plays every move once: captures are found, other moves are recorded.
        let mut edges = vec![u32::MAX; total * h];
        let mut children = Vec::with_capacity(h);
        let mut pits = [0u8; MAX_PITS];
        let mut seeds = 0usize;
        loop {
            let board = table.board_number(&pits, seeds);
            for p in 0..players {
                let idx = board * players + p;
                let s = State::search_position(&probe.rules, pits, p);
                if s.status() != Status::Ongoing {
                    continue;
                }
                if probe.expand(&s, &mut children) {
                    table.reach[idx / 64] |= 1 << (idx % 64);
                    continue;
                }
                for (k, c) in children.iter().enumerate() {
                    let b = table.board_number(c.pits(), seeds);
                    edges[idx * h + k] = (b * players + c.to_move()) as u32;
                }
            }
            // Next board with at most `limit` seeds (an odometer, last pit fastest).
            let mut i = n;
            loop {
                if i == 0 {
                    break;
                }
                i -= 1;
                if seeds < limit {
                    pits[i] += 1;
                    seeds += 1;
                    break;
                }
                seeds -= pits[i] as usize;
                pits[i] = 0;
                if i == 0 {
                    i = usize::MAX;
                    break;
                }
            }
            if i == usize::MAX {
                break;
            }
        }
        // Reachability: a position reaches a capture if one of its successors does.
        loop {
            let mut changed = false;
            for idx in 0..total {
                if table.reach[idx / 64] & (1 << (idx % 64)) != 0 {
                    continue;
                }
                for &e in &edges[idx * h..(idx + 1) * h] {
                    if e == u32::MAX {
                        break;
                    }
                    if table.reach[e as usize / 64] & (1 << (e % 64)) != 0 {
                        table.reach[idx / 64] |= 1 << (idx % 64);
                        changed = true;
                        break;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        Some(table)
    }

    /// The number of a board holding `seeds <= limit` seeds in all.
    #[inline]
    fn board_number(&self, pits: &[u8; MAX_PITS], seeds: usize) -> usize {
        (self.first[seeds] + self.layers[seeds].rank(&pits[..self.rules.pits()])) as usize
    }

    /// The answer for `s` (ongoing), or `None` if it holds too many seeds.
    #[inline]
    fn lookup(&self, s: &State) -> Option<bool> {
        let seeds = s.board_seeds(&self.rules) as usize;
        if seeds > self.limit || s.to_move() >= self.rules.players as usize {
            return None;
        }
        let idx = self.board_number(s.pits(), seeds) * self.rules.players as usize + s.to_move();
        Some(self.reach[idx / 64] & (1 << (idx % 64)) != 0)
    }
}

/// Most tables kept at once by [`reach_table`] (the least recently used is dropped first).
pub(crate) const MAX_TABLES: usize = 4;

/// What a table depends on: the rules of play of the search ([`Probe::rules`]) and the most
/// seeds it covers. The ply limit, the win threshold and the like are not part of it.
type TableKey = (Rules, usize);

/// A table for some rules of play, if they have one.
type TableEntry = (TableKey, Option<Arc<ReachTable>>);

/// The tables built so far, most recently used last, shared by every thread (`None`: the rules
/// have none). At most [`MAX_TABLES`] entries.
static REACH_TABLES: Mutex<Vec<TableEntry>> = Mutex::new(Vec::new());

/// The key of the table for `rules`.
fn table_key(rules: &Rules) -> TableKey {
    (Probe::new(rules).rules, rules.indetermination as usize)
}

/// The table for `rules` (their indetermination threshold bounds the seeds), built on first
/// use by any thread.
fn reach_table(rules: &Rules) -> Option<Arc<ReachTable>> {
    let key = table_key(rules);
    let mut tables = REACH_TABLES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(i) = tables.iter().position(|(k, _)| *k == key) {
        let entry = tables.remove(i);
        let table = entry.1.clone();
        tables.push(entry);
        return table;
    }
    let table = ReachTable::build(rules, key.1).map(Arc::new);
    if tables.len() >= MAX_TABLES {
        tables.remove(0);
    }
    tables.push((key, table.clone()));
    table
}

/// How many tables [`reach_table`] holds now (for tests).
#[cfg(test)]
fn tables_held() -> usize {
    REACH_TABLES.lock().unwrap_or_else(|e| e.into_inner()).len()
}

/// The reusable state of [`capture_reachable`].
#[derive(Default)]
struct ReachSearch {
    /// The table for the rules of the last call, if they have one.
    table: Option<TableEntry>,
    stack: Vec<State>,
    seen: KeySet,
    children: Vec<State>,
    memo: Memo,
}

impl ReachSearch {
    /// Whether a capture is reachable from `root` (which is ongoing) under `rules`.
    fn run(&mut self, root: &State, rules: &Rules) -> bool {
        let key = table_key(rules);
        if self.table.as_ref().map(|(k, _)| k) != Some(&key) {
            self.table = Some((key, reach_table(rules)));
        }
        if let Some((_, Some(table))) = &self.table {
            if let Some(answer) = table.lookup(root) {
                return answer;
            }
        }
        // No table (or too many seeds for it): a depth-first search, with the memo.
        let probe = Probe::new(rules);
        self.memo.use_rules(&probe.rules);
        let root_key = root.key();
        if let Some(answer) = self.memo.get(root_key) {
            return answer;
        }
        self.stack.clear();
        self.seen.clear();
        self.seen.insert(root_key);
        self.stack.push(*root);
        let found = 'search: loop {
            let Some(s) = self.stack.pop() else {
                break false;
            };
            if probe.expand(&s, &mut self.children) {
                break true;
            }
            for next in &self.children {
                let key = next.key();
                match self.memo.get(key) {
                    Some(true) => break 'search true,
                    Some(false) => {}
                    None => {
                        if self.seen.insert(key) {
                            self.stack.push(*next);
                        }
                    }
                }
            }
        };
        if !found {
            // Nothing reachable from the root captures, so nothing reachable from any position
            // seen on the way does either.
            for key in self.seen.keys() {
                self.memo.put(key, false);
            }
        }
        self.memo.put(root_key, found);
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(spec: &str) -> Rules {
        spec.parse().unwrap()
    }

    #[test]
    fn tables_are_keyed_by_the_rules_of_play_only() {
        let awale = rules("awale");
        for spec in [
            "awale:max_plies=300",
            "awale:max_plies=301",
            "awale:win=none",
        ] {
            assert_eq!(table_key(&rules(spec)), table_key(&awale), "{spec}");
        }
        assert_ne!(
            table_key(&rules("awale:indetermination=6")),
            table_key(&awale)
        );
        assert_ne!(table_key(&rules("awale:capture=1-3")), table_key(&awale));
    }

    #[test]
    fn the_table_cache_is_bounded() {
        // Many ply limits share one table; many rules of play keep at most MAX_TABLES.
        let mut answers = Vec::new();
        for (k, capture) in ["2-3", "1-2", "2-4", "3-4", "1-3", "2-2"]
            .iter()
            .enumerate()
        {
            for max_plies in [0, 100 + k] {
                let r = rules(&format!(
                    "abapa:indetermination=3,capture={capture},max_plies={max_plies}"
                ));
                let s =
                    State::from_parts(&r, &[0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1], &[23, 23], 0, 0)
                        .unwrap();
                answers.push(capture_reachable(&s, &r));
                assert!(tables_held() <= MAX_TABLES);
            }
        }
        // The two chasing seeds never land on 1 or 2 with capture 2-3; with 1-2 they can.
        assert!(!answers[0] && !answers[1]);
        assert!(answers[2] && answers[3]);
    }
}
