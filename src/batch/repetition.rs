//! Every board's repetition log (the positions seen since its last capture), laid out for the
//! batch: one slab holding a fixed row of keys per board, a length and a 128-bit Bloom filter per
//! board in their own arrays, and a spill buffer per board for long capture-free stretches.
//!
//! It answers exactly what [`crate::History`] answers, move for move; only the layout differs.
//! The engine's `History` keeps one heap buffer of 32-byte keys per board: in a batch of
//! thousands those buffers are scattered over the heap and their tails alone outgrow the core's
//! cache. Here a key is two 64-bit words whenever the rules allow (every preset does, see
//! [`key_width`]), and a step touches the lengths and filters in order and one line of the slab;
//! the row holds 32 keys, which covers 96% of the moves of random abapa games (13.6% of them
//! follow more than 16 capture-free moves, 3.5% more than 32).
//!
//! # Keys
//!
//! A key is the engine's [`PositionKey`] in words: with at most 15 pits (every preset has 12)
//! the pit bytes fill 15 bytes of a `u128` and the player to move takes the 16th, two words;
//! a 16-pit board needs a third word for the player to move.

use crate::rules::{CycleRule, Rules, MAX_PITS};

use crate::state::{MoveInfo, PositionKey, State, Status};

/// Keys a board keeps in its slab row before it spills into its own buffer.
pub(crate) const ROW_KEYS: usize = 32;

/// Words per key under `rules`: 2 when the player to move fits in the pits' last byte, else 3.
pub(crate) fn key_width(rules: &Rules) -> usize {
    if rules.pits() < MAX_PITS {
        2
    } else {
        3
    }
}

/// The repetition logs of every board of a batch.
#[derive(Debug, Clone)]
pub(crate) struct Repetitions {
    /// Words per key (2 or 3, see [`key_width`]).
    width: usize,
    /// Keys remembered per board.
    lens: Vec<u32>,
    /// Bloom filter per board: one bit per remembered key.
    blooms: Vec<u128>,
    /// `ROW_KEYS` keys per board, board-major.
    slab: Vec<u64>,
    /// Keys past the first `ROW_KEYS` of a board (capacity kept once grown).
    spill: Vec<Vec<u64>>,
}

impl Repetitions {
    /// Empty logs for `boards` boards under `rules`.
    pub(crate) fn new(rules: &Rules, boards: usize) -> Repetitions {
        let width = key_width(rules);
        Repetitions {
            width,
            lens: vec![0; boards],
            blooms: vec![0; boards],
            slab: vec![0; boards * ROW_KEYS * width],
            spill: vec![Vec::new(); boards],
        }
    }

    /// A mutable view of every board's log, to split between threads.
    pub(crate) fn lanes(&mut self) -> RepLanes<'_> {
        RepLanes {
            width: self.width,
            lens: &mut self.lens,
            blooms: &mut self.blooms,
            slab: &mut self.slab,
            spill: &mut self.spill,
        }
    }

    /// Board `i`'s remembered positions, oldest first, as the engine keys them.
    pub(crate) fn keys(&self, i: usize) -> Vec<PositionKey> {
        let w = self.width;
        let len = self.lens[i] as usize;
        let row = &self.slab[i * ROW_KEYS * w..(i + 1) * ROW_KEYS * w];
        row[..len.min(ROW_KEYS) * w]
            .chunks_exact(w)
            .chain(self.spill[i].chunks_exact(w))
            .map(decode)
            .collect()
    }

    /// Replaces board `i`'s remembered positions with `keys`, oldest first (the inverse of
    /// [`Repetitions::keys`]; the keys must be valid under the batch's rules, as
    /// [`key_fits`] checks).
    pub(crate) fn set_keys(&mut self, i: usize, keys: impl IntoIterator<Item = PositionKey>) {
        let w = self.width;
        let mut lanes = self.lanes();
        let mut log = lanes.raw_board(i);
        log.clear();
        for key in keys {
            let mut words = [0u64; 3];
            encode(key, &mut words[..w]);
            log.push_words(&words[..w]);
        }
    }
}

/// Whether `key` is a position of `rules` that the batch's logs can hold: no seeds in pits past
/// the board, no more seeds than the game has, a player of the game to move.
pub(crate) fn key_fits(rules: &Rules, key: PositionKey) -> bool {
    let pits = key.0.to_le_bytes();
    let n = rules.pits();
    let seeds: u32 = pits[..n].iter().map(|&c| u32::from(c)).sum();
    pits[n..].iter().all(|&c| c == 0)
        && seeds <= rules.total_seeds()
        && u32::from(key.1) < u32::from(rules.players)
}

/// A range of boards' logs, split like the other lanes.
pub(crate) struct RepLanes<'a> {
    width: usize,
    lens: &'a mut [u32],
    blooms: &'a mut [u128],
    slab: &'a mut [u64],
    spill: &'a mut [Vec<u64>],
}

impl<'a> RepLanes<'a> {
    /// Words per key.
    pub(crate) fn width(&self) -> usize {
        self.width
    }

    /// Boards `..mid` and `mid..`.
    pub(crate) fn split_at(self, mid: usize) -> (RepLanes<'a>, RepLanes<'a>) {
        let w = self.width;
        let (lens_a, lens_b) = self.lens.split_at_mut(mid);
        let (blooms_a, blooms_b) = self.blooms.split_at_mut(mid);
        let (slab_a, slab_b) = self.slab.split_at_mut(mid * ROW_KEYS * w);
        let (spill_a, spill_b) = self.spill.split_at_mut(mid);
        let half = |lens, blooms, slab, spill| RepLanes {
            width: w,
            lens,
            blooms,
            slab,
            spill,
        };
        (
            half(lens_a, blooms_a, slab_a, spill_a),
            half(lens_b, blooms_b, slab_b, spill_b),
        )
    }

    /// Board `i`'s log with keys of `W` words (`W` must be [`RepLanes::width`]).
    #[inline(always)]
    pub(crate) fn board<const W: usize>(&mut self, i: usize) -> Log<'_, W> {
        debug_assert_eq!(W, self.width);
        Log {
            raw: self.raw_board(i),
        }
    }

    #[inline(always)]
    fn raw_board(&mut self, i: usize) -> RawLog<'_> {
        let row = ROW_KEYS * self.width;
        RawLog {
            len: &mut self.lens[i],
            bloom: &mut self.blooms[i],
            row: &mut self.slab[i * row..(i + 1) * row],
            spill: &mut self.spill[i],
        }
    }

    /// Asks the CPU to fetch the slab line where board `i` (if it exists) records its next
    /// key, a few boards before the step loop gets there.
    #[inline(always)]
    pub(crate) fn prefetch<const W: usize>(&self, i: usize) {
        #[cfg(target_arch = "x86_64")]
        if let Some(&len) = self.lens.get(i) {
            let at = i * ROW_KEYS * W + (len as usize).min(ROW_KEYS - 1) * W;
            let p = self.slab.as_ptr().wrapping_add(at) as *const i8;
            // SAFETY: a prefetch is only a hint; it never faults and reads nothing the program
            // sees (here the address is inside the slab anyway).
            unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = i;
    }
}

/// One board's log, keys of any width.
struct RawLog<'a> {
    len: &'a mut u32,
    bloom: &'a mut u128,
    row: &'a mut [u64],
    spill: &'a mut Vec<u64>,
}

impl RawLog<'_> {
    /// Forgets everything (keeping the spill buffer's capacity).
    #[inline(always)]
    fn clear(&mut self) {
        *self.len = 0;
        *self.bloom = 0;
        self.spill.clear();
    }

    /// Remembers `key` (not checked for repetition).
    #[inline(always)]
    fn push_words(&mut self, key: &[u64]) {
        self.push_with_bit(key, bloom_bit(key));
    }

    /// Remembers `key`, whose Bloom filter bit is `bit`.
    #[inline(always)]
    fn push_with_bit(&mut self, key: &[u64], bit: u128) {
        *self.bloom |= bit;
        let len = *self.len as usize;
        if len < ROW_KEYS {
            self.row[len * key.len()..(len + 1) * key.len()].copy_from_slice(key);
        } else {
            self.spill.extend_from_slice(key);
        }
        *self.len += 1;
    }
}

/// One board's log with keys of `W` words: the batch's stand-in for [`crate::History`].
pub(crate) struct Log<'a, const W: usize> {
    raw: RawLog<'a>,
}

impl<const W: usize> Log<'_, W> {
    /// The key of `st`.
    #[inline(always)]
    fn key(&self, st: &State) -> [u64; W] {
        let mut key = [0u64; W];
        encode(st.key(), &mut key);
        key
    }

    /// Starts over from `start` (as [`crate::History::reset`]).
    #[inline]
    pub(crate) fn reset(&mut self, start: &State) {
        self.raw.clear();
        let key = self.key(start);
        self.raw.push_words(&key);
    }

    /// Records the position reached by a move, as [`crate::History::record`]: if it repeats
    /// an earlier one, the game is ended by the rules' cycle rule and `true` is returned.
    #[inline(always)]
    pub(crate) fn record(&mut self, rules: &Rules, state: &mut State, info: &MoveInfo) -> bool {
        if info.any_captured > 0 {
            self.raw.clear();
        }
        if rules.cycle == CycleRule::Ignore || matches!(state.status(), Status::Ended(_)) {
            return false;
        }
        let key = self.key(state);
        let bit = bloom_bit(&key);
        if *self.raw.bloom & bit != 0 && self.contains(&key) {
            // As the engine's history: the same engine condition decides.
            if !state.repetition_ends(rules) {
                return false;
            }
            state.end_by_repetition(rules);
            return true;
        }
        self.raw.push_with_bit(&key, bit);
        false
    }

    /// Whether `key` is remembered.
    #[inline(always)]
    fn contains(&self, key: &[u64; W]) -> bool {
        let len = (*self.raw.len as usize).min(ROW_KEYS);
        let (row, _) = self.raw.row.as_chunks::<W>();
        row[..len].contains(key) || self.raw.spill.as_chunks::<W>().0.contains(key)
    }
}

/// The Bloom filter bit of a key.
#[inline(always)]
fn bloom_bit(key: &[u64]) -> u128 {
    let h = key
        .iter()
        .fold(0u64, |h, &w| (h ^ w).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    1 << (h >> 57)
}

/// Writes `key` in `out.len()` words: 2 (the player to move in the last pit byte, which a
/// board of at most 15 pits leaves empty) or 3.
#[inline(always)]
fn encode(key: PositionKey, out: &mut [u64]) {
    let (pits, to_move) = key;
    if let [lo, hi] = out {
        *lo = pits as u64;
        *hi = (pits >> 64) as u64 | u64::from(to_move) << 56;
    } else {
        out.copy_from_slice(&[pits as u64, (pits >> 64) as u64, u64::from(to_move)]);
    }
}

/// The engine key of a batch key.
fn decode(key: &[u64]) -> PositionKey {
    match *key {
        [lo, hi] => (
            lo as u128 | ((hi & !(0xff << 56)) as u128) << 64,
            (hi >> 56) as u8,
        ),
        _ => (key[0] as u128 | (key[1] as u128) << 64, key[2] as u8),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::History;

    fn rules(spec: &str) -> Rules {
        spec.parse().unwrap()
    }

    #[test]
    fn keys_take_two_words_up_to_fifteen_pits() {
        for spec in crate::rules::PRESET_SPECS {
            assert_eq!(key_width(&rules(spec)), 2, "{spec}");
        }
        assert_eq!(key_width(&rules("abapa:houses=8")), 3);
    }

    #[test]
    fn keys_decode_to_the_engine_key() {
        let mut x = 12345u64;
        for _ in 0..2000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let pits = u128::from(x) | u128::from(x.rotate_left(17)) << 64;
            for (width, key) in [(2, (pits >> 8, 5)), (3, (pits, 3))] {
                let mut words = [0u64; 3];
                encode(key, &mut words[..width]);
                assert_eq!(decode(&words[..width]), key);
            }
        }
    }

    /// The logs answer as the engine's `History` over long random games, in both key widths
    /// (stretches longer than a slab row included).
    #[test]
    fn logs_answer_as_the_engine_history() {
        let extra = [
            "abapa:houses=8",
            "abapa:cycle=split",
            "abapa:cycle_if_seeded=false",
            "wari:cycle_if_seeded=true",
            "oware2:cycle_if_seeded=true,max_plies=400",
        ];
        for spec in crate::rules::PRESET_SPECS.into_iter().chain(extra) {
            let r = rules(spec);
            let mut reps = Repetitions::new(&r, 3);
            let mut longest = 0;
            for seed in 0..40u64 {
                let mut st = State::initial(&r, 0);
                let mut hist = History::new();
                hist.reset(&st);
                let mut lanes = reps.lanes();
                let w = lanes.width();
                let board = (seed % 3) as usize;
                let mut x = seed;
                let mut twin = st;
                macro_rules! play {
                    ($W:literal) => {{
                        let mut log = lanes.board::<$W>(board);
                        log.reset(&st);
                        while !st.is_over() {
                            let legal = st.legal_mask(&r);
                            x = x
                                .wrapping_mul(6364136223846793005)
                                .wrapping_add(1442695040888963407);
                            let mut bits = legal;
                            for _ in 0..(x >> 33) as u32 % legal.count_ones() {
                                bits &= bits - 1;
                            }
                            let h = bits.trailing_zeros() as usize;
                            let info = st.apply_unchecked(&r, h);
                            twin.apply_unchecked(&r, h);
                            let a = hist.record(&r, &mut st, &info);
                            let b = log.record(&r, &mut twin, &info);
                            assert_eq!(a, b, "{spec} seed {seed}");
                            assert_eq!(st, twin, "{spec} seed {seed}");
                            longest = longest.max(hist.len());
                        }
                    }};
                }
                if w == 2 {
                    play!(2)
                } else {
                    play!(3)
                }
                assert_eq!(reps.keys(board), hist.keys(), "{spec} seed {seed}");
                let keys = reps.keys(board);
                reps.set_keys(board, keys.iter().copied());
                assert_eq!(reps.keys(board), keys);
            }
            assert!(longest > ROW_KEYS, "{spec}: no stretch spilled ({longest})");
        }
    }

    /// The repetition with an empty row of the example: both logs let play go on at the
    /// first repetition (South's row is empty) and end the game at the next one.
    #[test]
    fn logs_and_history_skip_a_repetition_with_an_empty_row() {
        for (spec, plies, ended) in [("abapa", 13, [24, 24]), ("openspiel", 12, [23, 25])] {
            let r = rules(spec);
            let pits = [0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
            let st = State::from_parts(&r, &pits, &[23, 23], 1, 0).unwrap();
            let mut reps = Repetitions::new(&r, 1);
            let mut lanes = reps.lanes();
            let mut log = lanes.board::<2>(0);
            let mut hist = History::new();
            let (mut a, mut b) = (st, st);
            hist.reset(&a);
            log.reset(&b);
            let moves = [5, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5];
            for (i, &h) in moves[..plies].iter().enumerate() {
                let info = a.apply(&r, h).unwrap();
                b.apply(&r, h).unwrap();
                let ended_a = hist.record(&r, &mut a, &info);
                let ended_b = log.record(&r, &mut b, &info);
                assert_eq!(ended_a, ended_b, "{spec} ply {i}");
                assert_eq!(ended_a, i + 1 == plies, "{spec} ply {i}");
                assert_eq!(a, b);
            }
            assert_eq!(a.status(), Status::Ended(crate::EndReason::Repetition));
            assert_eq!(&a.scores()[..2], &ended);
        }
    }
}
