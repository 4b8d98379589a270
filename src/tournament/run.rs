//! Playing the games: a team of worker threads takes the pending games in index order, plays
//! each with fresh agents and reports every finished game to the [`TournamentObserver`].

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use super::clock::AgentClock;
use super::game_result::{Forfeit, GameResult};
use super::report::TournamentReport;
use super::schedule::{opening, schedule, ScheduledGame};
use super::{store, Entrant, TournamentConfig};
use crate::agents::{derive_seed, Turn};
use crate::error::{AwaleError, Result};
use crate::rules::Rules;

/// How far a tournament is: games finished (all runs, those loaded from the output folder
/// included) out of the games scheduled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Games finished.
    pub done: usize,
    /// Games in the schedule.
    pub scheduled: usize,
}

/// Watches a running tournament and may stop it. Every method has a default that does nothing,
/// so an observer implements only what it needs; `()` is the observer that watches nothing.
///
/// [`run_observed`] calls [`started`](Self::started) once, then
/// [`game_finished`](Self::game_finished) once per game finished in this run, after the game is
/// saved (one call at a time, `done` counting up by one each time, from whichever worker thread
/// finished the game). It polls [`should_stop`](Self::should_stop) from the workers before each
/// game and between moves.
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use awale::tournament::{run_observed, Entrant, GameResult, Progress, TournamentConfig,
///     TournamentObserver};
/// use awale::Rules;
///
/// /// Stops after three games.
/// struct Three(AtomicUsize);
/// impl TournamentObserver for Three {
///     fn game_finished(&self, _game: &GameResult, _progress: Progress) {
///         self.0.fetch_add(1, Ordering::SeqCst);
///     }
///     fn should_stop(&self) -> bool {
///         self.0.load(Ordering::SeqCst) >= 3
///     }
/// }
///
/// let rules = Rules::abapa();
/// let entrants = ["random", "greedy"].map(|s| Entrant::from_spec_text(s, &rules).unwrap());
/// let mut cfg = TournamentConfig::new(rules);
/// cfg.run.threads = 1;
/// let report = run_observed(&cfg, &entrants, &Three(AtomicUsize::new(0))).unwrap();
/// assert!(report.stopped && !report.complete);
/// assert_eq!(report.games_played, 3);
/// ```
pub trait TournamentObserver: Sync {
    /// The run starts: `progress.done` games were already played (loaded from the output
    /// folder, for a resumed run).
    fn started(&self, progress: Progress) {
        let _ = progress;
    }

    /// The games already played, loaded from the output folder (a resumed run; called once,
    /// before [`started`](Self::started), with no games for a fresh run).
    fn resumed(&self, games: &[GameResult]) {
        let _ = games;
    }

    /// `game` has finished (and is saved in the output folder, if any); `progress.done` counts
    /// it.
    fn game_finished(&self, game: &GameResult, progress: Progress) {
        let _ = (game, progress);
    }

    /// Whether to stop now. Once it returns true, no new game starts and games in play are
    /// abandoned at their next move (not saved: a later run with the same output folder plays
    /// them); the run returns a report of the finished games with
    /// [`TournamentReport::stopped`] set.
    fn should_stop(&self) -> bool {
        false
    }
}

/// The observer that watches nothing.
impl TournamentObserver for () {}

/// Plays scheduled game `g`, adding each seat's thinking time to `clock` (by entrant); `None`
/// when `halt` said to stop before it ended.
fn play(
    cfg: &TournamentConfig,
    rules: &Rules,
    entrants: &[Entrant],
    names: &[String],
    g: &ScheduledGame,
    halt: &dyn Fn() -> bool,
    clock: &Mutex<Vec<AgentClock>>,
) -> Result<Option<GameResult>> {
    let mut game = opening(rules, cfg.run.seed, g.opening, cfg.run.openings);
    let opening_plies = game.moves().len();
    let game_seed = derive_seed(cfg.run.seed, g.index as u64);
    let mut agents = Vec::with_capacity(g.seats.len());
    for (s, &e) in g.seats.iter().enumerate() {
        let mut a = entrants[e].make()?;
        if let Some(dir) = &cfg.out {
            a.log_to(dir);
        }
        a.reset(derive_seed(game_seed, s as u64));
        agents.push(a);
    }
    let mut thought = vec![(std::time::Duration::ZERO, 0u64); g.seats.len()];
    let mut forfeit = None;
    while !game.is_over() {
        if halt() {
            return Ok(None);
        }
        let p = game.to_move();
        let ply = game.moves().len() + 1;
        let fail = |reason: String| AwaleError::AgentFailed {
            agent: names[g.seats[p]].clone(),
            reason: format!("game {}, ply {ply}: {reason}", g.index),
        };
        let t0 = std::time::Instant::now();
        let chosen = agents[p].select(&Turn::from_game(&game));
        thought[p].0 += t0.elapsed();
        thought[p].1 += 1;
        let played = chosen.and_then(|mv| game.apply(mv).map(|_| ()));
        match played {
            Ok(()) => {}
            Err(e) if agents[p].forfeits() => {
                let reason = match e {
                    AwaleError::AgentFailed { reason, .. } => reason,
                    other => other.to_string(),
                };
                forfeit = Some(Forfeit {
                    seat: p,
                    reason: format!("ply {ply}: {reason}"),
                });
                break;
            }
            Err(e) => return Err(fail(e.to_string())),
        }
    }
    let mut clock = clock.lock().unwrap_or_else(|e| e.into_inner());
    for (&e, &(time, moves)) in g.seats.iter().zip(&thought) {
        clock[e].add(time, moves);
    }
    Ok(Some(GameResult::ended(
        g,
        names,
        &game,
        opening_plies,
        forfeit,
    )))
}

/// Plays (or resumes) a tournament and returns its report; with an output folder, also writes
/// the result files there. The same as [`run_observed`] with no observer.
pub fn run(cfg: &TournamentConfig, entrants: &[Entrant]) -> Result<TournamentReport> {
    run_observed(cfg, entrants, &())
}

/// Plays (or resumes) a tournament, reporting to `observer` (progress, stop; see
/// [`TournamentObserver`]), and returns its report; with an output folder, also writes the
/// result files there (a stopped run too: its report covers the games finished so far).
///
/// The games run on `cfg.run.threads` worker threads (0: one per core; 1 plays on the calling
/// thread), which take the pending games in index order. When games fail (an agent returns an
/// error or an illegal move), the error returned is that of the failing game with the lowest
/// index: games after it stop, games before it (already started) play on, so that the error does
/// not depend on the number of threads or on timing (for agents whose failures depend only on
/// their game).
pub fn run_observed(
    cfg: &TournamentConfig,
    entrants: &[Entrant],
    observer: &dyn TournamentObserver,
) -> Result<TournamentReport> {
    let rules = cfg.game_rules()?;
    let names: Vec<String> = entrants.iter().map(|e| e.name().to_string()).collect();
    let mut seen = HashSet::new();
    for n in &names {
        if n.is_empty() || !seen.insert(n.as_str()) {
            return Err(AwaleError::Tournament(format!(
                "agent names must be unique and not empty; '{n}' is not (give one a name=... option)"
            )));
        }
    }
    if let Some(a) = &cfg.anchor {
        if !names.contains(a) {
            return Err(AwaleError::Tournament(format!(
                "the anchor '{a}' is not among the agents"
            )));
        }
    }
    let sched = schedule(cfg, &names)?;
    let (mut done, writer) = store::open(cfg, &rules, entrants, &names, &sched)?;
    let finished: HashSet<usize> = done.iter().map(|g| g.index).collect();
    let in_shard = |g: &ScheduledGame| cfg.run.shard.is_none_or(|(k, n)| g.index % n == k);
    let mut pending: Vec<&ScheduledGame> = sched
        .iter()
        .filter(|g| !finished.contains(&g.index) && in_shard(g))
        .collect();
    if let Some(limit) = cfg.run.game_limit {
        pending.truncate(limit);
    }
    observer.resumed(&done);
    observer.started(Progress {
        done: done.len(),
        scheduled: sched.len(),
    });

    // Workers take the pending games in order; `first_failure` is the lowest position in
    // `pending` of a game that failed (games after it are not started or are abandoned).
    let next = AtomicUsize::new(0);
    let first_failure = AtomicUsize::new(usize::MAX);
    let stopped = AtomicBool::new(false);
    let count = Mutex::new(done.len());
    let new_games: Mutex<Vec<GameResult>> = Mutex::new(Vec::new());
    let clock = Mutex::new(names.iter().map(AgentClock::new).collect::<Vec<_>>());
    let failures: Mutex<Vec<(usize, AwaleError)>> = Mutex::new(Vec::new());
    let worker = || loop {
        if observer.should_stop() {
            stopped.store(true, Ordering::SeqCst);
            return;
        }
        let i = next.fetch_add(1, Ordering::SeqCst);
        if i >= pending.len() || i > first_failure.load(Ordering::SeqCst) {
            return;
        }
        let halt = || {
            if observer.should_stop() {
                stopped.store(true, Ordering::SeqCst);
                return true;
            }
            i > first_failure.load(Ordering::SeqCst)
        };
        let played = play(cfg, &rules, entrants, &names, pending[i], &halt, &clock).and_then(|r| {
            if let (Some(g), Some(w)) = (&r, &writer) {
                w.append(g)?;
            }
            Ok(r)
        });
        match played {
            Ok(Some(g)) => {
                {
                    let mut n = count.lock().unwrap_or_else(|e| e.into_inner());
                    *n += 1;
                    observer.game_finished(
                        &g,
                        Progress {
                            done: *n,
                            scheduled: sched.len(),
                        },
                    );
                }
                new_games.lock().unwrap_or_else(|e| e.into_inner()).push(g);
            }
            Ok(None) => {}
            Err(e) => {
                first_failure.fetch_min(i, Ordering::SeqCst);
                failures
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push((i, e));
            }
        }
    };
    let threads = crate::batch::threads_or_cores(cfg.run.threads)
        .min(pending.len())
        .max(1);
    std::thread::scope(|s| -> Result<()> {
        for t in 1..threads {
            std::thread::Builder::new()
                .name(format!("awale-tournament-{t}"))
                .spawn_scoped(s, worker)
                .map_err(|e| {
                    // Stop the workers already started before reporting.
                    first_failure.store(0, Ordering::SeqCst);
                    AwaleError::Tournament(format!("cannot start {threads} threads: {e}"))
                })?;
        }
        worker();
        Ok(())
    })?;
    let mut failures = failures.into_inner().unwrap_or_else(|e| e.into_inner());
    if let Some(pos) = failures.iter().map(|f| f.0).min() {
        let k = failures.iter().position(|f| f.0 == pos).unwrap_or(0);
        return Err(failures.swap_remove(k).1);
    }
    let new_games = new_games.into_inner().unwrap_or_else(|e| e.into_inner());
    let stopped = stopped.load(Ordering::SeqCst) && new_games.len() < pending.len();
    done.extend(new_games);
    let mut report = TournamentReport::compute(cfg, &names, sched.len(), done)?;
    report.stopped = stopped;
    report.clock = clock.into_inner().unwrap_or_else(|e| e.into_inner());
    if let Some(dir) = &cfg.out {
        report.write(dir)?;
    }
    Ok(report)
}
