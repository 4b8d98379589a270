//! Criterion benchmarks of the batch simulator: `cargo bench --bench batch`.
//!
//! `step/<obs>/t<threads>/<boards>`: one [`Batch::step`] of `boards` abapa boards in self-play
//! with same-step resets, with 1 and 2 worker threads, for N = 1, 64, 4,096 and 65,536 and each
//! observation encoding (`compact`, `onehot:16`, `thermometer:16`), `f32` observations.
//! Throughput is in board-steps. Actions are uniformly random legal moves drawn from the masks
//! the previous step returned; drawing them is not timed (`iter_custom` times the step only).
//!
//! Filter as usual, e.g. `cargo bench --bench batch -- step/compact/t2/4096`.

use std::time::{Duration, Instant};

use awale::batch::{Batch, BatchConfig, ObsEncoding, ResetMode, StepBuffers};
use awale::bench::FastRng;
use awale::Rules;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

/// Batch sizes measured.
const BOARDS: [usize; 4] = [1, 64, 4096, 65_536];

/// Thread counts measured.
const THREADS: [usize; 2] = [1, 2];

/// Writes a uniformly random legal action per board (0 where no move is legal).
fn pick_actions(buf: &StepBuffers<f32>, houses: usize, rng: &mut FastRng, actions: &mut [u32]) {
    for (a, row) in actions.iter_mut().zip(buf.mask.chunks_exact(houses)) {
        let bits = row
            .iter()
            .enumerate()
            .fold(0u16, |m, (h, &v)| m | (u16::from(v) << h));
        *a = if bits == 0 { 0 } else { rng.pick(bits) as u32 };
    }
}

fn bench_step(c: &mut Criterion) {
    let rules = Rules::abapa();
    for enc in ObsEncoding::ALL {
        let mut group = c.benchmark_group(format!("step/{}", enc.name()));
        group
            .sample_size(10)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2));
        for threads in THREADS {
            for boards in BOARDS {
                let cfg = BatchConfig::new(rules, boards)
                    .with_threads(threads)
                    .with_obs(enc)
                    .with_reset_mode(ResetMode::SameStep)
                    .with_seed(1);
                let mut batch = Batch::new(cfg).expect("valid configuration");
                let mut buf = StepBuffers::<f32>::for_batch(&batch);
                batch.reset(None, &mut buf.output()).expect("buffers fit");
                let houses = batch.action_dim();
                let mut actions = vec![0u32; boards];
                let mut rng = FastRng::from_seed(7);
                group.throughput(Throughput::Elements(boards as u64));
                group.bench_function(BenchmarkId::new(format!("t{threads}"), boards), |b| {
                    b.iter_custom(|iters| {
                        let mut spent = Duration::ZERO;
                        for _ in 0..iters {
                            pick_actions(&buf, houses, &mut rng, &mut actions);
                            let t = Instant::now();
                            batch
                                .step(&actions, &mut buf.output())
                                .expect("legal actions");
                            spent += t.elapsed();
                        }
                        spent
                    })
                });
            }
        }
        group.finish();
    }
}

criterion_group!(benches, bench_step);
criterion_main!(benches);
