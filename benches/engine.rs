//! Criterion benchmarks of the single-board engine: `cargo bench --bench engine`.
//!
//! - `random_play/<preset>`: [`awale::bench::random_play`], full rules (repetitions and every end
//!   included), one thread; throughput in moves (each sample plays whole games of at least
//!   `MOVES` moves, so the count is exact to within one game, under 0.1 %).
//! - `legal_mask/<preset>` and `apply/<preset>`: one call on each of a fixed set of positions
//!   met in random games (the set fits in L1), throughput in calls.
//!
//! Filter with criterion's usual argument, e.g. `cargo bench --bench engine -- random_play/abapa`.

use std::hint::black_box;
use std::time::Duration;

use awale::bench::{random_play, FastRng};
use awale::{History, Rules, State};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

/// Moves per `random_play` sample.
const MOVES: u64 = 200_000;

/// The presets measured.
const PRESETS: [&str; 4] = ["abapa", "awale", "wari", "oware4"];

/// Up to `n` ongoing positions met in random games of `rules`.
fn positions(rules: &Rules, n: usize) -> Vec<State> {
    let mut rng = FastRng::from_seed(1);
    let mut history = History::new();
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut s = State::initial(rules, 0);
        history.reset(&s);
        while !s.is_over() && out.len() < n {
            out.push(s);
            let info = s.apply_unchecked(rules, rng.pick(s.legal_mask(rules)));
            history.record(rules, &mut s, &info);
        }
    }
    out
}

fn bench_random_play(c: &mut Criterion) {
    let mut group = c.benchmark_group("random_play");
    group.throughput(Throughput::Elements(MOVES));
    for spec in PRESETS {
        let rules: Rules = spec.parse().unwrap();
        let mut seed = 0;
        group.bench_function(spec, |b| {
            b.iter(|| {
                seed += 1;
                black_box(random_play(&rules, MOVES, seed))
            })
        });
    }
    group.finish();
}

fn bench_micro(c: &mut Criterion) {
    for spec in PRESETS {
        let rules: Rules = spec.parse().unwrap();
        let states = positions(&rules, 1024);
        let mut rng = FastRng::from_seed(2);
        let moves: Vec<usize> = states
            .iter()
            .map(|s| rng.pick(s.legal_mask(&rules)))
            .collect();

        let mut group = c.benchmark_group("legal_mask");
        group.throughput(Throughput::Elements(states.len() as u64));
        group.bench_function(spec, |b| {
            b.iter(|| {
                let mut acc = 0u16;
                for s in &states {
                    acc ^= black_box(s).legal_mask(&rules);
                }
                acc
            })
        });
        group.finish();

        let mut group = c.benchmark_group("apply");
        group.throughput(Throughput::Elements(states.len() as u64));
        group.bench_function(spec, |b| {
            b.iter(|| {
                let mut acc = 0u8;
                for (s, &m) in states.iter().zip(&moves) {
                    let mut next = *black_box(s);
                    acc ^= next.apply_unchecked(&rules, m).captured ^ next.pits()[0];
                }
                acc
            })
        });
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(20);
    targets = bench_random_play, bench_micro
}
criterion_main!(benches);
