//! The tables against a second, naive solver (hash maps, whole-layer passes over lists of
//! moves, no index, no threads) on every position of up to 8 seeds, and against an exact
//! search that keeps the game's history on small seed counts.

#![allow(clippy::needless_range_loop)] // boards are rotated by index, as the rules describe

use std::collections::HashMap;

use super::*;
use crate::rules::MAX_PITS;

type Board = [u8; MAX_PITS];

/// Every board of `pits` pits with exactly `n` seeds (recursive enumeration).
fn boards(pits: usize, n: usize) -> Vec<Board> {
    fn go(b: &mut Board, i: usize, pits: usize, left: usize, out: &mut Vec<Board>) {
        if i == pits - 1 {
            b[i] = left as u8;
            out.push(*b);
            return;
        }
        for c in 0..=left {
            b[i] = c as u8;
            go(b, i + 1, pits, left - c, out);
        }
        b[i] = 0;
    }
    let mut out = Vec::new();
    go(&mut [0; MAX_PITS], 0, pits, n, &mut out);
    out
}

/// The child of a move, read from the new mover's side, and the seeds the move captured; or
/// the mover's final share when the move ends the game.
enum NaiveMove {
    End(u8),
    Child(Board),
}

fn naive_moves(rules: &Rules, pos: &State) -> Vec<NaiveMove> {
    let h = rules.houses as usize;
    let pits = rules.pits();
    (0..h)
        .filter(|&i| pos.legal_mask(rules) & (1 << i) != 0)
        .map(|i| {
            let mut c = *pos;
            c.apply(rules, i).unwrap();
            if c.is_over() {
                NaiveMove::End(c.scores()[0])
            } else {
                let mut b = [0u8; MAX_PITS];
                for k in 0..pits {
                    b[k] = c.pits()[(k + h) % pits];
                }
                NaiveMove::Child(b)
            }
        })
        .collect()
}

/// The naive solver: the same definition as the tables (`solve.rs`), written plainly. Values
/// carry bit 7 when the cycle rule decided them.
fn naive_solve(rules: &Rules, max: usize) -> HashMap<Board, u8> {
    let pits = rules.pits();
    let mut solved: HashMap<Board, u8> = HashMap::new();
    let seeds = |b: &Board| b.iter().map(|&c| c as usize).sum::<usize>();
    for n in 0..=max {
        let layer = boards(pits, n);
        let states: Vec<State> = layer
            .iter()
            .map(|b| State::search_position(rules, *b, 0))
            .collect();
        let moves: Vec<Vec<NaiveMove>> = states
            .iter()
            .map(|s| {
                if s.is_over() {
                    Vec::new()
                } else {
                    naive_moves(rules, s)
                }
            })
            .collect();
        let mut lo: HashMap<Board, u8> = HashMap::new();
        let mut hi: HashMap<Board, u8> = HashMap::new();
        for (b, s) in layer.iter().zip(&states) {
            let (l, h) = if s.is_over() {
                (s.scores()[0], s.scores()[0])
            } else {
                (0, n as u8)
            };
            lo.insert(*b, l);
            hi.insert(*b, h);
        }
        // Jacobi passes over the whole layer until nothing moves.
        loop {
            let mut next_lo = lo.clone();
            let mut next_hi = hi.clone();
            for ((b, s), ms) in layer.iter().zip(&states).zip(&moves) {
                if s.is_over() {
                    continue;
                }
                let (mut l, mut h) = (0u8, 0u8);
                for m in ms {
                    let (ml, mh) = match m {
                        NaiveMove::End(v) => (*v, *v),
                        NaiveMove::Child(c) if seeds(c) < n => {
                            let v = n as u8 - (solved[c] & 0x7f);
                            (v, v)
                        }
                        NaiveMove::Child(c) => (n as u8 - hi[c], n as u8 - lo[c]),
                    };
                    l = l.max(ml);
                    h = h.max(mh);
                }
                next_lo.insert(*b, l);
                next_hi.insert(*b, h);
            }
            if next_lo == lo && next_hi == hi {
                break;
            }
            (lo, hi) = (next_lo, next_hi);
        }
        let mut value: HashMap<Board, u8> = HashMap::new();
        for (b, s) in layer.iter().zip(&states) {
            let (l, h) = (lo[b], hi[b]);
            if l == h {
                value.insert(*b, l);
            } else if s.repetition_ends(rules) {
                let mut e = *s;
                e.end_by_repetition(rules);
                value.insert(*b, e.scores()[0].clamp(l, h) | 0x80);
            }
        }
        for pass in 0..4 {
            let mut settled = Vec::new();
            for ((b, _), ms) in layer.iter().zip(&states).zip(&moves) {
                if value.contains_key(b) {
                    continue;
                }
                let mut v = Some(0u8);
                for m in ms {
                    let mv = match m {
                        NaiveMove::End(v) => Some(*v),
                        NaiveMove::Child(c) if seeds(c) < n => Some(n as u8 - (solved[c] & 0x7f)),
                        NaiveMove::Child(c) => value.get(c).map(|cv| n as u8 - (cv & 0x7f)),
                    };
                    v = match (v, mv) {
                        (Some(a), Some(b)) => Some(a.max(b)),
                        _ => None,
                    };
                }
                let own: u8 = b[..rules.houses as usize].iter().sum();
                match v {
                    Some(v) => settled.push((*b, v.clamp(lo[b], hi[b]) | 0x80)),
                    None if pass == 3 => settled.push((*b, own.clamp(lo[b], hi[b]) | 0x80)),
                    None => {}
                }
            }
            value.extend(settled);
        }
        assert_eq!(value.len(), layer.len());
        solved.extend(value);
    }
    solved
}

fn presets() -> Vec<Rules> {
    ["abapa", "openspiel", "awale", "wari"]
        .iter()
        .map(|s| s.parse().unwrap())
        .collect()
}

#[test]
fn tables_equal_the_naive_solver_up_to_8_seeds() {
    let max = if cfg!(debug_assertions) { 6 } else { 8 };
    for rules in presets() {
        let table = Tablebase::build(&rules, max, 2, &|_| {}).unwrap();
        let naive = naive_solve(table.rules(), max);
        for (b, v) in &naive {
            let s = State::search_position(table.rules(), *b, 0);
            if s.is_over() {
                continue;
            }
            let probe = table.probe(&s).unwrap();
            assert_eq!(probe.value, v & 0x7f, "{rules}: board {b:?}");
            assert_eq!(probe.cycle, v & 0x80 != 0, "{rules}: board {b:?}");
        }
    }
}

#[test]
fn thread_counts_give_the_same_bytes() {
    let rules = Rules::abapa();
    let one = Tablebase::build(&rules, 7, 1, &|_| {}).unwrap();
    let three = Tablebase::build(&rules, 7, 3, &|_| {}).unwrap();
    for n in 0..=7 {
        assert_eq!(one.layers[n].bytes(), three.layers[n].bytes(), "layer {n}");
    }
}

/// Every position of a table: its best moves keep its value, no move is worth more, and the
/// mirrored position (the same board, the other player to move) has the same value.
#[test]
fn best_moves_keep_the_value_and_mirrors_agree() {
    for rules in presets() {
        let table = Tablebase::build(&rules, 6, 2, &|_| {}).unwrap();
        for n in 1..=6 {
            for b in boards(rules.pits(), n) {
                let south = State::search_position(table.rules(), b, 0);
                if south.is_over() {
                    continue;
                }
                let probe = table.probe(&south).unwrap();
                assert!(!probe.best_moves().is_empty());
                if !probe.cycle {
                    assert_eq!(probe.best_value(), probe.value, "{rules}: {b:?}");
                }
                let h = rules.houses as usize;
                let mut mirror = [0u8; MAX_PITS];
                for k in 0..rules.pits() {
                    mirror[(k + h) % rules.pits()] = b[k];
                }
                let north = State::search_position(table.rules(), mirror, 1);
                assert_eq!(table.probe(&north).unwrap(), probe, "{rules}: {b:?}");
            }
        }
    }
}

#[test]
fn files_round_trip_and_bad_files_are_refused() {
    let dir = std::env::temp_dir().join(format!("awale-tb-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let rules = Rules::abapa();
    let table = Tablebase::build(&rules, 5, 2, &|_| {}).unwrap();
    let paths = table.save(&dir).unwrap();
    assert_eq!(paths.len(), 6);
    assert!(paths[5].ends_with("abapa-05.awtb"));
    let opened = Tablebase::open(&dir, &rules, None).unwrap();
    assert_eq!(opened.max_seeds(), 5);
    for n in 0..=5 {
        assert_eq!(opened.layers[n].bytes(), table.layers[n].bytes());
    }
    // The same rules with another win threshold use the same files.
    let no_win: Rules = "abapa:win=none".parse().unwrap();
    assert!(Tablebase::open(&dir, &no_win, Some(5)).is_ok());
    // Missing layers and other rules.
    let e = Tablebase::open(&dir, &rules, Some(6))
        .unwrap_err()
        .to_string();
    assert!(e.contains("abapa-06.awtb: missing"), "{e}");
    let e = Tablebase::open(&dir, &Rules::wari(), Some(2))
        .unwrap_err()
        .to_string();
    assert!(e.contains("missing"), "{e}");
    let oware = Rules::oware(2).unwrap();
    assert!(Tablebase::open(&dir, &oware, None)
        .unwrap_err()
        .to_string()
        .contains("single-sowing"));
    // A foreign file under the right name.
    let wari = Tablebase::build(&Rules::wari(), 3, 1, &|_| {}).unwrap();
    let other = dir.join("other");
    let wari_paths = wari.save(&other).unwrap();
    std::fs::copy(&wari_paths[3], &paths[3]).unwrap();
    let e = Tablebase::open(&dir, &rules, None).unwrap_err().to_string();
    assert!(e.contains("built for the rules 'wari"), "{e}");
    table.save(&dir).unwrap();
    // Corruption, truncation, another version, not a table at all.
    let good = std::fs::read(&paths[4]).unwrap();
    let mut flipped = good.clone();
    *flipped.last_mut().unwrap() ^= 1;
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (flipped, "checksum mismatch"),
        (good[..good.len() - 7].to_vec(), "truncated or padded"),
        ([&good[..], &[0u8; 3]].concat(), "truncated or padded"),
        (
            [&good[..8], &2u32.to_le_bytes()[..], &good[12..]].concat(),
            "format version 2",
        ),
        (b"PK\x03\x04 not a table at all, nope".to_vec(), "bad magic"),
        (good[..20].to_vec(), "truncated header"),
        (good[..38].to_vec(), "truncated header"),
    ];
    for (bytes, reason) in cases {
        std::fs::write(&paths[4], &bytes).unwrap();
        let e = Tablebase::open(&dir, &rules, None).unwrap_err();
        assert!(matches!(e, AwaleError::Tablebase(_)), "{e}");
        assert!(e.to_string().contains(reason), "{reason}: {e}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Tables in use are the bytes read when they were opened: files truncated, rewritten or
/// deleted afterwards change nothing (a memory map would have raised SIGBUS on the truncated
/// file and killed the process).
#[test]
fn files_changed_on_disk_while_open_change_nothing() {
    let dir = std::env::temp_dir().join(format!("awale-tb-open-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let rules = Rules::abapa();
    let table = Tablebase::build(&rules, 6, 2, &|_| {}).unwrap();
    let paths = table.save(&dir).unwrap();
    let opened = Tablebase::open(&dir, &rules, None).unwrap();
    for (n, path) in paths.iter().enumerate() {
        match n % 3 {
            0 => std::fs::File::options()
                .write(true)
                .open(path)
                .unwrap()
                .set_len(0)
                .unwrap(),
            1 => std::fs::write(path, vec![0xffu8; 4096]).unwrap(),
            _ => std::fs::remove_file(path).unwrap(),
        }
    }
    for n in 0..=6 {
        assert_eq!(opened.layers[n].bytes(), table.layers[n].bytes());
    }
    let mut b: Board = [0; MAX_PITS];
    (b[0], b[3], b[7], b[10]) = (1, 2, 1, 2);
    let position = State::search_position(&rules, b, 0);
    assert!(opened.value(&position).is_some());
    assert_eq!(opened.value(&position), table.value(&position));
    assert_eq!(
        opened.probe(&position).unwrap().value,
        table.probe(&position).unwrap().value
    );
    assert!(Tablebase::open(&dir, &rules, None).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn probes_refuse_what_the_table_does_not_cover() {
    let rules = Rules::abapa();
    let table = Tablebase::build(&rules, 4, 1, &|_| {}).unwrap();
    let start = State::initial(&rules, 0);
    assert_eq!(table.value(&start), None);
    let e = table.probe(&start).unwrap_err().to_string();
    assert!(e.contains("48 seeds") && e.contains("at most 4"), "{e}");
    assert!(table.covers(&"abapa:win=none,max_plies=300".parse().unwrap()));
    assert!(!table.covers(&Rules::wari()));
    assert!(Tablebase::build(&rules, 49, 1, &|_| {})
        .unwrap_err()
        .to_string()
        .contains("above the 48 seeds"));
}

/// The exact value with the game's history: the mover of `b` (his row first) is player
/// `parity`; `history` holds the positions since the last capture (board read from the mover's
/// side, player to move), `b` included. A capture starts a new history (`fresh`, memoized).
/// `None` when the search visits more than `budget` positions.
fn exact(
    rules: &Rules,
    b: Board,
    parity: bool,
    history: &mut Vec<(Board, bool)>,
    fresh: &mut HashMap<Board, Option<u8>>,
    budget: &mut u64,
) -> Option<u8> {
    *budget = budget.checked_sub(1)?;
    let pos = State::search_position(rules, b, 0);
    if pos.is_over() {
        return Some(pos.scores()[0]);
    }
    let n: u8 = b.iter().sum();
    let h = rules.houses as usize;
    let mut best = 0u8;
    for i in (0..h).filter(|&i| pos.legal_mask(rules) & (1 << i) != 0) {
        let mut c = pos;
        c.apply(rules, i).unwrap();
        let v = if c.is_over() {
            c.scores()[0]
        } else {
            let mut cb = [0u8; MAX_PITS];
            for k in 0..rules.pits() {
                cb[k] = c.pits()[(k + h) % rules.pits()];
            }
            if c.scores()[0] > 0 {
                let v = match fresh.get(&cb) {
                    Some(v) => *v,
                    None => {
                        let mut own = EXACT_BUDGET;
                        let v = exact(rules, cb, false, &mut vec![(cb, false)], fresh, &mut own);
                        fresh.insert(cb, v);
                        v
                    }
                };
                n - v?
            } else {
                let child = State::search_position(rules, cb, 0);
                if history.contains(&(cb, !parity)) && child.repetition_ends(rules) {
                    let mut e = child;
                    e.end_by_repetition(rules);
                    n - e.scores()[0]
                } else {
                    history.push((cb, !parity));
                    let v = exact(rules, cb, !parity, history, fresh, budget);
                    history.pop();
                    n - v?
                }
            }
        };
        best = best.max(v);
    }
    Some(best)
}

/// Positions the history-aware search may visit from one root.
const EXACT_BUDGET: u64 = 20_000;

/// The tables against the exact search with history on every position of up to 3 seeds
/// (`AWALE_TB_EXACT_SEEDS` for more) whose search stays within [`EXACT_BUDGET`]: they agree
/// wherever the value is forced; the cycle-valued positions where they differ are counted
/// (figures in `docs/rules.md`).
#[test]
fn tables_agree_with_the_history_aware_search_where_the_value_is_forced() {
    let max: usize = std::env::var("AWALE_TB_EXACT_SEEDS").map_or(3, |v| v.parse().unwrap());
    for rules in presets() {
        let table = Tablebase::build(&rules, max, 2, &|_| {}).unwrap();
        let t = *table.rules();
        let start = std::time::Instant::now();
        let mut fresh = HashMap::new();
        let (mut positions, mut cycle, mut differ, mut unsettled) = (0, 0, 0, 0);
        for n in 1..=max {
            for b in boards(t.pits(), n) {
                let s = State::search_position(&t, b, 0);
                if s.is_over() {
                    continue;
                }
                let probe = table.probe(&s).unwrap();
                let mut budget = EXACT_BUDGET;
                let Some(v) = exact(&t, b, false, &mut vec![(b, false)], &mut fresh, &mut budget)
                else {
                    unsettled += 1;
                    continue;
                };
                positions += 1;
                cycle += usize::from(probe.cycle);
                if v != probe.value {
                    assert!(
                        probe.cycle,
                        "{rules}: {b:?}: table {} exact {v}",
                        probe.value
                    );
                    differ += 1;
                }
            }
        }
        eprintln!(
            "{rules}: {positions} positions checked, {cycle} of them cycle-valued, {differ} \
             differ; {unsettled} over the search budget ({:?})",
            start.elapsed()
        );
        assert!(positions >= 50, "{rules}: too few positions checked");
    }
}
