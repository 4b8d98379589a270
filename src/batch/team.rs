//! [`Team`]: helper threads that share a step with the calling thread, handing work over in
//! about a microsecond.
//!
//! A batch step at a few thousand boards takes about 100 µs, so the hand-over matters: with a
//! rayon pool (whose workers sleep between steps, and whose caller sleeps while they work) two
//! threads stepped 4,096 abapa boards at 14–16 M board-steps/s, slower than one thread; this
//! team does 27–38 M on the same machine in the same runs. The calling thread works too, so a
//! step never waits for a helper to wake; helpers spin for a while after each job ([`SPIN`])
//! so that the next step finds them awake, then park. Work comes in pieces that each thread
//! claims, its own share first (so a board's data stays in one core's cache from step to step),
//! then whatever the others have not started.
//! Which thread steps which board never changes the result.

/// The worker threads a request for `requested` threads means: `requested`, or one per core
/// (as the operating system reports them; 1 if it cannot tell) when it is 0. The one reading
/// of "0 threads" for the batch, self-play, tournaments and the benchmarks.
///
/// ```
/// use awale::batch::threads_or_cores;
/// assert_eq!(threads_or_cores(3), 3);
/// assert!(threads_or_cores(0) >= 1);
/// ```
pub fn threads_or_cores(requested: usize) -> usize {
    match requested {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::Ordering::SeqCst;
use std::time::{Duration, Instant};

use super::sync::thread::{self, JoinHandle};
use super::sync::{
    fence, hint, should_park, Arc, AtomicBool, AtomicU64, AtomicUsize, Mutex, UnsafeCell,
};

/// How long a helper spins, waiting for the next job, before it parks.
pub const SPIN: Duration = Duration::from_micros(200);

/// Most pieces one job is cut into.
pub const MAX_PIECES: usize = 32;

/// The job in flight, with its lifetime erased (see [`Team::run`]).
type JobRef = *const (dyn Fn(usize) + Sync);

/// What the calling thread and the helpers share.
struct Shared {
    /// Bumped for every job (and on shutdown); helpers wait for it to change.
    generation: AtomicU64,
    /// The job may be started: set before `generation` is bumped, cleared when the caller has
    /// finished its own part.
    open: AtomicBool,
    /// Helpers inside (or about to enter) the job.
    running: AtomicUsize,
    /// The job; written by the caller only while no helper can read it.
    job: UnsafeCell<Option<JobRef>>,
    /// The first panic of a helper during the current job.
    panic: Mutex<Option<Box<dyn std::any::Any + Send>>>,
    /// Helpers stop.
    quit: AtomicBool,
}

// SAFETY: `job` is written only by `Team::run` (which holds `&mut Team`) while `open` is false
// and `running` is zero, and read only by helpers that have raised `running` and then seen
// `open` set; the sequentially consistent accesses to `open` and `running` order the two (see
// `Team::run`). Everything else is atomic or locked.
unsafe impl Sync for Shared {}
// SAFETY: as above; the pointer in `job` is only dereferenced under that protocol.
unsafe impl Send for Shared {}

/// Helper threads for [`Team::run`].
pub struct Team {
    shared: Arc<Shared>,
    helpers: Vec<JoinHandle<()>>,
}

impl std::fmt::Debug for Team {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Team")
            .field("threads", &self.threads())
            .finish()
    }
}

impl Team {
    /// A team of `threads` (at least 2): the calling thread and `threads - 1` helpers.
    pub fn new(threads: usize) -> std::io::Result<Team> {
        let shared = Arc::new(Shared {
            generation: AtomicU64::new(0),
            open: AtomicBool::new(false),
            running: AtomicUsize::new(0),
            job: UnsafeCell::new(None),
            panic: Mutex::new(None),
            quit: AtomicBool::new(false),
        });
        let mut team = Team {
            shared,
            helpers: Vec::new(),
        };
        for t in 1..threads.max(2) {
            let shared = Arc::clone(&team.shared);
            let handle = thread::Builder::new()
                .name(format!("awale-batch-{t}"))
                .spawn(move || helper(&shared, t))?;
            team.helpers.push(handle);
        }
        Ok(team)
    }

    /// Threads working on a job, the caller included.
    pub fn threads(&self) -> usize {
        self.helpers.len() + 1
    }

    /// Calls `job(0)` on this thread and `job(t)` on each helper `t` that picks the job up
    /// before this thread's call returns (a helper that woke for the previous job and joins
    /// this one late may call it twice); returns when every started call has returned. The
    /// job must therefore get everything done from whichever calls happen (see
    /// [`Team::run_pieces`]). A panic in any call is raised here.
    pub fn run(&mut self, job: &(dyn Fn(usize) + Sync)) {
        let s = &*self.shared;
        // SAFETY: erasing the lifetime is sound because no helper calls the job after this
        // function returns or unwinds: `Closing` (below) clears `open` and waits until
        // `running` is zero, and a helper only calls the job after raising `running` and then
        // seeing `open` set (both sequentially consistent, so either the helper sees `open`
        // cleared or `Closing` sees it running and waits).
        let erased: JobRef = unsafe { std::mem::transmute::<_, JobRef>(job as *const _) };
        // SAFETY: `&mut self` makes this the only `run`, and the previous one ended with `open`
        // false and no helper running, so no helper reads `job` now (see `Shared`).
        s.job.with_mut(|job| unsafe { *job = Some(erased) });
        s.open.store(true, SeqCst);
        s.generation.fetch_add(1, SeqCst);
        for h in &self.helpers {
            h.thread().unpark();
        }
        let closing = Closing(s);
        job(0);
        drop(closing);
        if let Some(p) = s.panic.lock().unwrap_or_else(|e| e.into_inner()).take() {
            panic::resume_unwind(p);
        }
    }

    /// Runs `work` once on every piece, the pieces shared out over the team: thread `t` takes
    /// its own consecutive share of the pieces first, then any piece nobody has started,
    /// taken from the end of another thread's share.
    /// At most [`MAX_PIECES`] pieces.
    pub fn run_pieces<P: Send>(
        &mut self,
        pieces: impl IntoIterator<Item = P>,
        work: &(dyn Fn(P) + Sync),
    ) {
        let slots = empty_slots::<P>();
        let mut count = 0;
        for (slot, piece) in slots.iter().zip(pieces) {
            *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(piece);
            count += 1;
        }
        let threads = self.threads();
        let claim = |k: usize| {
            let taken = match slots[k].try_lock() {
                Ok(mut slot) => slot.take(),
                Err(_) => None,
            };
            if let Some(piece) = taken {
                work(piece);
            }
        };
        self.run(&|t| {
            // Its own share in order, then the others' shares from their ends (where their
            // owners will get last), so that each board usually stays with one thread.
            let (first, end) = (t * count / threads, (t + 1) * count / threads);
            for k in (first..end)
                .chain((end..count).rev())
                .chain((0..first).rev())
            {
                claim(k);
            }
        });
    }
}

/// The slots of [`Team::run_pieces`], all empty.
#[cfg(not(loom))]
fn empty_slots<P>() -> [Mutex<Option<P>>; MAX_PIECES] {
    [const { Mutex::new(None) }; MAX_PIECES]
}

/// See the std version (loom's `Mutex::new` is not `const`).
#[cfg(loom)]
fn empty_slots<P>() -> [Mutex<Option<P>>; MAX_PIECES] {
    std::array::from_fn(|_| Mutex::new(None))
}

/// Ends a job on the calling thread, also when it unwinds: closes the job to helpers that have
/// not started it and waits for those that have.
struct Closing<'a>(&'a Shared);

impl Drop for Closing<'_> {
    fn drop(&mut self) {
        let s = self.0;
        s.open.store(false, SeqCst);
        // With the helper's fence (see `helper`): either the helper sees `open` cleared or this
        // thread sees it running. SeqCst accesses alone give this in the C++ model; the fences
        // make it hold in loom's model too (which treats SeqCst accesses as AcqRel), at the
        // cost of one fence per job.
        fence(SeqCst);
        let mut spins = 0u32;
        while s.running.load(SeqCst) != 0 {
            spins += 1;
            if spins < 1 << 12 {
                hint::spin_loop();
            } else {
                thread::yield_now();
            }
        }
    }
}

impl Drop for Team {
    /// Tells the helpers to stop and wakes them, without waiting for them to exit: they only
    /// touch what they share with the team (kept alive by their own handle on it), and a team
    /// copied into a forked child process has no helpers to wait for.
    fn drop(&mut self) {
        self.shared.quit.store(true, SeqCst);
        self.shared.generation.fetch_add(1, SeqCst);
        for h in &self.helpers {
            h.thread().unpark();
        }
    }
}

/// A helper's life: wait for each new job (spinning, then parked), call it if it is still
/// open.
fn helper(s: &Shared, t: usize) {
    // The generation when the team was made (not when this thread got going, which may be
    // after the first jobs, or the shutdown).
    let mut seen = 0;
    loop {
        let start = Instant::now();
        let mut spins = 0u32;
        while s.generation.load(SeqCst) == seen {
            spins = spins.wrapping_add(1);
            if should_park(spins, start, SPIN) {
                thread::park();
            } else {
                hint::spin_loop();
            }
        }
        seen = s.generation.load(SeqCst);
        if s.quit.load(SeqCst) {
            return;
        }
        s.running.fetch_add(1, SeqCst);
        // Pairs with the fence in `Closing::drop`.
        fence(SeqCst);
        if s.open.load(SeqCst) {
            // SAFETY: `open` was seen set after `running` was raised, so the caller is still
            // inside `run` (it waits for `running` to drop before returning) and the job it
            // stored before opening is alive and no longer written (see `Shared`).
            let job = s
                .job
                .with(|job| unsafe { *job })
                .expect("an open job is stored");
            // SAFETY: as above: the job outlives this call.
            let call = || unsafe { (*job)(t) };
            if let Err(p) = panic::catch_unwind(AssertUnwindSafe(call)) {
                let mut first = s.panic.lock().unwrap_or_else(|e| e.into_inner());
                first.get_or_insert(p);
            }
        }
        s.running.fetch_sub(1, SeqCst);
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn every_piece_runs_once_whatever_the_timing() {
        for threads in [2, 3, 8] {
            let mut team = Team::new(threads).unwrap();
            assert_eq!(team.threads(), threads);
            for round in 0..2000usize {
                let pieces = 1 + round % MAX_PIECES;
                let hits: Vec<AtomicUsize> = (0..pieces).map(|_| AtomicUsize::new(0)).collect();
                team.run_pieces(0..pieces, &|k| {
                    hits[k].fetch_add(1, SeqCst);
                });
                assert!(hits.iter().all(|h| h.load(SeqCst) == 1), "round {round}");
                if round % 500 == 0 {
                    // Let the helpers fall asleep.
                    thread::sleep(SPIN * 3);
                }
            }
        }
    }

    #[test]
    fn helpers_exit_after_the_team_is_dropped() {
        for threads in [2, 4] {
            let mut team = Team::new(threads).unwrap();
            team.run_pieces(0..threads, &|_| {});
            let shared = Arc::downgrade(&team.shared);
            drop(team);
            // Each helper holds the shared state until it returns.
            let start = Instant::now();
            while shared.upgrade().is_some() {
                assert!(
                    start.elapsed() < Duration::from_secs(10),
                    "helpers still running"
                );
                thread::sleep(Duration::from_millis(1));
            }
        }
    }

    #[test]
    fn pieces_borrow_the_callers_data() {
        let mut team = Team::new(2).unwrap();
        let mut data = vec![0u32; 1000];
        let chunks = data.chunks_mut(100);
        team.run_pieces(chunks, &|c: &mut [u32]| c.iter_mut().for_each(|x| *x += 1));
        assert!(data.iter().all(|&x| x == 1));
    }

    #[test]
    fn a_helper_panic_reaches_the_caller_and_the_team_goes_on() {
        let mut team = Team::new(2).unwrap();
        let caught = panic::catch_unwind(AssertUnwindSafe(|| {
            for _ in 0..1000 {
                team.run(&|t| {
                    if t == 1 {
                        panic!("helper failed");
                    }
                    // Give the helper time to join in.
                    thread::sleep(Duration::from_micros(50));
                });
            }
        }));
        assert!(caught.is_err());
        let mut n = AtomicUsize::new(0);
        team.run_pieces(0..4, &|_| {
            n.fetch_add(1, SeqCst);
        });
        assert_eq!(*n.get_mut(), 4);
    }
}
