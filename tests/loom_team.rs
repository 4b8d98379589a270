//! The batch's thread team (`src/batch/team.rs`) under the loom model checker: every
//! interleaving of its hand-off protocol (within loom's bounds) with 2 and 3 threads.
//!
//! Run with `RUSTFLAGS="--cfg loom" cargo test --release --test loom_team`
//! (`LOOM_MAX_PREEMPTIONS` bounds the search; see docs/reliability.md).
#![cfg(loom)]

use std::sync::atomic::Ordering::SeqCst;

use awale::batch::team::Team;
use loom::cell::UnsafeCell;
use loom::sync::atomic::AtomicUsize;
use loom::sync::Arc;

/// Runs `f` under loom with a bound on preemptions (3 unless `LOOM_MAX_PREEMPTIONS` says
/// otherwise, so the 3-thread model finishes in about 15 s) and prints how many executions were
/// explored.
fn model(name: &str, f: impl Fn() + Sync + Send + 'static) {
    let mut b = loom::model::Builder::new();
    if b.preemption_bound.is_none() {
        b.preemption_bound = Some(3);
    }
    let bound = b.preemption_bound;
    let runs = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = std::sync::Arc::clone(&runs);
    let start = std::time::Instant::now();
    b.check(move || {
        counter.fetch_add(1, SeqCst);
        f();
    });
    eprintln!(
        "loom {name}: {} executions explored (preemption bound {bound:?}) in {:.1} s",
        runs.load(SeqCst),
        start.elapsed().as_secs_f64()
    );
}

/// Plain cells, one per piece, each written by the one call that runs its piece.
struct Cells(Vec<UnsafeCell<usize>>);

impl Cells {
    /// Cell `k` (a method, so that closures capture the `Sync` wrapper, not its field).
    fn cell(&self, k: usize) -> &UnsafeCell<usize> {
        &self.0[k]
    }
}

// SAFETY: piece `k` is run once per job (what the test checks), so cell `k` has one writer,
// and the caller reads the cells only after `run_pieces` returned; loom checks both.
unsafe impl Sync for Cells {}

/// Two jobs of `pieces` pieces on a team of `threads`: every piece runs exactly once per job,
/// and its effect is visible to the caller when `run_pieces` returns.
fn pieces_run_once(threads: usize, pieces: usize) {
    model(&format!("{threads} threads, {pieces} pieces"), move || {
        let mut team = Team::new(threads).unwrap();
        for _job in 0..2 {
            let hits: Vec<AtomicUsize> = (0..pieces).map(|_| AtomicUsize::new(0)).collect();
            let out = Cells((0..pieces).map(|_| UnsafeCell::new(0)).collect());
            team.run_pieces(0..pieces, &|k| {
                hits[k].fetch_add(1, SeqCst);
                // A plain write: loom reports a data race unless the caller's read below
                // happens after it.
                out.cell(k).with_mut(|x| unsafe { *x += k + 1 });
            });
            for (k, h) in hits.iter().enumerate() {
                assert_eq!(h.load(SeqCst), 1, "piece {k} ran {} times", h.load(SeqCst));
            }
            let got: Vec<usize> = (0..pieces)
                .map(|k| out.cell(k).with(|x| unsafe { *x }))
                .collect();
            assert_eq!(got, (1..=pieces).collect::<Vec<_>>());
        }
        // Dropping the team must not block; loom fails the model if a helper never exits
        // (deadlock) or if the shared state leaks.
        drop(team);
    });
}

#[test]
fn two_threads_two_pieces() {
    pieces_run_once(2, 2);
}

#[test]
fn two_threads_three_pieces() {
    pieces_run_once(2, 3);
}

#[test]
fn three_threads_three_pieces() {
    pieces_run_once(3, 3);
}

/// `run` with plain (non-atomic) writes through the job: what a helper wrote is visible to the
/// caller after `run` returns, and no helper calls the job after that (loom's `UnsafeCell`
/// tracking in the team catches a job read after `run` has moved on to the next one).
#[test]
fn results_of_helpers_are_visible_after_run() {
    model("run, 2 threads", || {
        let mut team = Team::new(2).unwrap();
        let seen = Arc::new(AtomicUsize::new(0));
        for round in 1..=2usize {
            let calls = AtomicUsize::new(0);
            team.run(&|t| {
                calls.fetch_add(1, SeqCst);
                if t == 1 {
                    seen.store(round, SeqCst);
                }
            });
            // The caller's call, plus any helper calls (a helper that woke for the previous
            // job but joined this one may call it twice: `run` promises no count, and
            // `run_pieces` hands each piece out once whatever the calls).
            let c = calls.load(SeqCst);
            assert!(c >= 1, "{c} calls");
            // A helper that joined this round finished before `run` returned.
            if c >= 2 {
                assert_eq!(seen.load(SeqCst), round);
            }
        }
        drop(team);
    });
}
