//! Retrograde analysis of one layer (every board holding `n` seeds, mover's row first), given
//! the solved layers below it.
//!
//! A move either leaves the layer (it captures, so the board then holds fewer seeds, or it ends
//! the game) and its value is exact, or it stays in the layer (no capture), and its value is
//! `n − v(child)`. Inside a layer the moves form a graph with cycles. Each position gets two
//! bounds, `lo` (what the mover can force in finite play) and `hi` (what the opponent can hold
//! him to in finite play), iterated from `lo = best exit, hi = n` to their common fixed point:
//!
//! - `lo(p) = max(best exit, max over inside children c of n − hi(c))`
//! - `hi(p) = max(best exit, max over inside children c of n − lo(c))`
//!
//! Where they meet the value is forced. Where they stay apart, either player can keep the game
//! inside the layer: the seeds just go round, and the game ends by its cycle rule; the position
//! is valued as that rule would end the game at it, clamped to `lo..=hi` (see `docs/rules.md`,
//! "Tablebases"). The fixed point does not depend on the order of the updates, so the result is
//! the same whatever the thread count.

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering::Relaxed};

use rayon::prelude::*;

use crate::board_index::LayerIndex;
use crate::rules::{Rules, MAX_PITS};
use crate::state::{State, Status};

/// Positions per unit of parallel work.
const CHUNK: u64 = 1 << 14;

/// The value of a position or a move for the mover: a number of seeds, `0..=n`.
pub(crate) type Value = u8;

/// In a stored byte: set when the cycle rule decided the value (the bounds stayed apart).
pub(crate) const CYCLE_FLAG: u8 = 0x80;

/// A move of a layer's position: where it leads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Edge {
    /// The move leaves the layer (a capture or an end): its exact value for the mover.
    Exit(Value),
    /// The move stays in the layer: the child's number there (opponent to move).
    Inside(u64),
}

/// Reads the solved layers below the one being built (and the layer itself once built).
pub(crate) trait Layers: Sync {
    /// The stored byte of board number `number` of layer `seeds` (value and [`CYCLE_FLAG`]).
    fn byte(&self, seeds: usize, number: u64) -> u8;
    /// The value of board number `number` of layer `seeds`.
    #[inline]
    fn value(&self, seeds: usize, number: u64) -> Value {
        self.byte(seeds, number) & !CYCLE_FLAG
    }
    /// The index of layer `seeds`.
    fn index(&self, seeds: usize) -> &LayerIndex;
}

/// The board of `state` read from the side of `player`: his row first.
#[inline]
pub(crate) fn board_from(rules: &Rules, state: &State, player: usize) -> [u8; MAX_PITS] {
    let n = rules.pits();
    let h = rules.houses as usize;
    let mut b = [0u8; MAX_PITS];
    let pits = state.pits();
    let start = player * h;
    b[..n - start].copy_from_slice(&pits[start..n]);
    b[n - start..n].copy_from_slice(&pits[..start]);
    b
}

/// The position of `board` (mover's row first) with player 0 to move, the ends of the start of
/// a turn checked.
#[inline]
pub(crate) fn position(rules: &Rules, board: &[u8; MAX_PITS]) -> State {
    State::search_position(rules, *board, 0)
}

/// Where house `house` of `pos` (player 0 to move, ongoing, the move legal) leads. `n` is the
/// seeds on the board; `layers` must hold every layer below `n` (and `n` itself only for
/// [`Edge::Inside`] children, which are not looked up here).
#[inline]
pub(crate) fn edge<L: Layers + ?Sized>(
    rules: &Rules,
    layers: &L,
    pos: &State,
    house: usize,
    n: usize,
) -> Edge {
    let mut child = *pos;
    child.apply_unchecked(rules, house);
    let mine = child.scores()[0];
    if child.status() != Status::Ongoing {
        // The game ended: the stores hold the seeds each player got from here.
        return Edge::Exit(mine);
    }
    let board = board_from(rules, &child, 1);
    let left = n - mine as usize;
    let number = layers.index(left).rank(&board[..rules.pits()]);
    if mine == 0 {
        Edge::Inside(number)
    } else {
        Edge::Exit(n as Value - layers.value(left, number))
    }
}

/// What the cycle rule gives the mover at `pos` if the game ended there by repetition, or
/// `None` when a repetition of `pos` does not end the game (`cycle_if_seeded`).
fn cycle_value(rules: &Rules, pos: &State) -> Option<Value> {
    if !pos.repetition_ends(rules) {
        return None;
    }
    let mut end = *pos;
    end.end_by_repetition(rules);
    Some(end.scores()[0])
}

/// What one layer's build found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LayerReport {
    /// Seeds on the board.
    pub seeds: usize,
    /// Positions in the layer.
    pub positions: u64,
    /// Positions over at the start of the turn (no move to play).
    pub terminal: u64,
    /// Sweeps over the layer until the bounds stopped moving.
    pub sweeps: u32,
    /// Positions whose value the cycle rule decided (the bounds stayed apart).
    pub cycle_valued: u64,
}

/// Builds layer `n`; `layers` holds every layer below. Runs on the current rayon pool.
pub(crate) fn build_layer<L: Layers + ?Sized>(
    rules: &Rules,
    layers: &L,
    index: &LayerIndex,
) -> (Vec<Value>, LayerReport) {
    let n = index.seeds();
    let pits = rules.pits();
    let count = index.count();
    let chunks = count.div_ceil(CHUNK);
    let lo: Vec<AtomicU8> = (0..count).map(|_| AtomicU8::new(0)).collect();
    let hi: Vec<AtomicU8> = (0..count).map(|_| AtomicU8::new(0)).collect();
    let base: Vec<AtomicU8> = (0..count).map(|_| AtomicU8::new(0)).collect();
    let terminal = std::sync::atomic::AtomicU64::new(0);
    let for_each_chunk = |f: &(dyn Fn(u64, &mut [u8; MAX_PITS]) + Sync)| {
        (0..chunks).into_par_iter().for_each(|c| {
            let start = c * CHUNK;
            let end = (start + CHUNK).min(count);
            let mut board = index.unrank(start);
            for number in start..end {
                f(number, &mut board);
                index.next(&mut board[..pits]);
            }
        });
    };
    // Pass 1: terminal positions and the best exit of every position.
    for_each_chunk(&|number, board| {
        let i = number as usize;
        let pos = position(rules, board);
        if pos.status() != Status::Ongoing {
            let v = pos.scores()[0];
            lo[i].store(v, Relaxed);
            hi[i].store(v, Relaxed);
            base[i].store(v, Relaxed);
            terminal.fetch_add(1, Relaxed);
            return;
        }
        let mask = pos.legal_mask(rules);
        let mut best: Option<Value> = None;
        let mut inside = false;
        for house in 0..rules.houses as usize {
            if mask & (1 << house) == 0 {
                continue;
            }
            match edge(rules, layers, &pos, house, n) {
                Edge::Exit(v) => best = Some(best.map_or(v, |b| b.max(v))),
                Edge::Inside(_) => inside = true,
            }
        }
        let b = best.unwrap_or(0);
        base[i].store(b, Relaxed);
        lo[i].store(b, Relaxed);
        hi[i].store(if inside { n as Value } else { b }, Relaxed);
    });
    // Sweeps until the bounds stop moving.
    let mut sweeps = 0u32;
    loop {
        sweeps += 1;
        let changed = AtomicBool::new(false);
        for_each_chunk(&|number, board| {
            let i = number as usize;
            let (l, h) = (lo[i].load(Relaxed), hi[i].load(Relaxed));
            if l == h {
                return;
            }
            let pos = position(rules, board);
            let mask = pos.legal_mask(rules);
            let b = base[i].load(Relaxed);
            let (mut nl, mut nh) = (b, b);
            for house in 0..rules.houses as usize {
                if mask & (1 << house) == 0 {
                    continue;
                }
                if let Edge::Inside(c) = edge(rules, layers, &pos, house, n) {
                    let c = c as usize;
                    nl = nl.max(n as Value - hi[c].load(Relaxed));
                    nh = nh.max(n as Value - lo[c].load(Relaxed));
                }
            }
            if nl != l || nh != h {
                lo[i].store(nl.max(l), Relaxed);
                hi[i].store(nh.min(h), Relaxed);
                changed.store(true, Relaxed);
            }
        });
        if !changed.load(Relaxed) {
            break;
        }
    }
    // Values: forced where the bounds met; the cycle rule, clamped, where they did not.
    const UNSET: Value = Value::MAX;
    let values: Vec<AtomicU8> = (0..count).map(|_| AtomicU8::new(UNSET)).collect();
    let cycle_valued = std::sync::atomic::AtomicU64::new(0);
    for_each_chunk(&|number, board| {
        let i = number as usize;
        let (l, h) = (lo[i].load(Relaxed), hi[i].load(Relaxed));
        if l == h {
            values[i].store(l, Relaxed);
            return;
        }
        cycle_valued.fetch_add(1, Relaxed);
        if let Some(v) = cycle_value(rules, &position(rules, board)) {
            values[i].store(v.clamp(l, h) | CYCLE_FLAG, Relaxed);
        }
    });
    // A position whose repetition would not end the game (a row is empty) takes the best of
    // its moves once its children are valued; such positions never follow one another for
    // long (see docs/rules.md), so a few passes settle them. Each pass reads only the values
    // of the pass before (in the order of the board numbers within a pass, whatever the
    // threads): two buffers.
    for pass in 0..4 {
        let settled: Vec<(usize, Value)> = (0..chunks)
            .into_par_iter()
            .flat_map_iter(|c| {
                let start = c * CHUNK;
                let end = (start + CHUNK).min(count);
                let mut board = index.unrank(start);
                let mut out = Vec::new();
                for number in start..end {
                    let i = number as usize;
                    if values[i].load(Relaxed) == UNSET {
                        let pos = position(rules, &board);
                        let mask = pos.legal_mask(rules);
                        let mut v = Some(base[i].load(Relaxed));
                        for house in 0..rules.houses as usize {
                            if mask & (1 << house) == 0 {
                                continue;
                            }
                            if let Edge::Inside(c) = edge(rules, layers, &pos, house, n) {
                                let cv = values[c as usize].load(Relaxed);
                                v = match (v, cv) {
                                    (_, UNSET) => None,
                                    (Some(v), cv) => Some(v.max(n as Value - (cv & !CYCLE_FLAG))),
                                    (None, _) => None,
                                };
                            }
                        }
                        let (l, h) = (lo[i].load(Relaxed), hi[i].load(Relaxed));
                        match v {
                            Some(v) => out.push((i, v.clamp(l, h))),
                            // Last resort: each player takes his row.
                            None if pass == 3 => out.push((i, own_row(rules, &board).clamp(l, h))),
                            None => {}
                        }
                    }
                    index.next(&mut board[..pits]);
                }
                out
            })
            .collect();
        if settled.is_empty() {
            break;
        }
        for (i, v) in settled {
            values[i].store(v | CYCLE_FLAG, Relaxed);
        }
    }
    let values: Vec<Value> = values.into_iter().map(AtomicU8::into_inner).collect();
    debug_assert!(values.iter().all(|&v| (v & !CYCLE_FLAG) as usize <= n));
    let report = LayerReport {
        seeds: n,
        positions: count,
        terminal: terminal.into_inner(),
        sweeps,
        cycle_valued: cycle_valued.into_inner(),
    };
    (values, report)
}

/// The seeds in the mover's row (the first `houses` pits of `board`).
fn own_row(rules: &Rules, board: &[u8; MAX_PITS]) -> Value {
    board[..rules.houses as usize].iter().sum()
}
