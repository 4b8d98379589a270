//! A run of games from Python (a tournament, a match, a ladder): its settings as the Python
//! wrappers pass them ([`game_run_arg`]), its own thread with progress and Ctrl-C
//! ([`run_in_background`]), and what its agents share with the waiting thread, the failures of
//! Python callables included ([`Shared`]), raised in the end as the callable's own error.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pyo3::exceptions::{PyException, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict};

use super::{seed_arg, value_error};
use crate::error::{AwaleError, Result};
use crate::tournament::{GameResult, GameRunConfig, Progress, TournamentObserver};

/// How a Python callable failed, for the exception raised in the end.
pub(crate) enum FailKind {
    /// It raised this exception.
    Raised(PyErr),
    /// It returned something other than an int.
    Type,
    /// It returned an int that is not a legal house.
    Value,
}

/// One failure of a Python callable.
pub(crate) struct Failure {
    agent: String,
    ply: u32,
    reason: String,
    /// The error's text as the agent returned it to the tournament.
    display: String,
    kind: FailKind,
}

/// What every agent of one tournament shares with the waiting thread; the tournament's
/// observer.
#[derive(Default)]
pub(crate) struct Shared {
    /// Set on Ctrl-C or when the progress callback stops the run.
    pub(crate) stop: AtomicBool,
    /// The last `done` shown to the progress callback (`usize::MAX`: none).
    pub(crate) shown: AtomicUsize,
    /// Games finished (all runs).
    done: AtomicUsize,
    /// Games scheduled (0 until the run starts).
    scheduled: AtomicUsize,
    /// Every failure of a Python callable (the tournament picks the one it reports).
    failures: Mutex<Vec<Failure>>,
}

impl Shared {
    pub(crate) fn fail(&self, agent: &str, ply: u32, reason: String, kind: FailKind) -> AwaleError {
        let err = AwaleError::AgentFailed {
            agent: agent.to_string(),
            reason: reason.clone(),
        };
        if let Ok(mut f) = self.failures.lock() {
            f.push(Failure {
                agent: agent.to_string(),
                ply,
                reason,
                display: err.to_string(),
                kind,
            });
        }
        err
    }

    /// The failure behind the tournament's error `err` (`game N, ply M: ` and the agent's own
    /// error), taken out of the list.
    fn take_failure(&self, err: &AwaleError) -> Option<Failure> {
        let AwaleError::AgentFailed { agent, reason } = err else {
            return None;
        };
        let mut list = self.failures.lock().ok()?;
        let matches = |f: &Failure, ply_too: bool| {
            &f.agent == agent
                && reason.ends_with(&f.display)
                && (!ply_too || reason.contains(&format!("ply {}: ", f.ply)))
        };
        let i = list
            .iter()
            .position(|f| matches(f, true))
            .or_else(|| list.iter().position(|f| matches(f, false)))?;
        Some(list.swap_remove(i))
    }
}

impl TournamentObserver for Shared {
    fn started(&self, progress: Progress) {
        self.done.store(progress.done, Ordering::SeqCst);
        self.scheduled.store(progress.scheduled, Ordering::SeqCst);
    }

    fn game_finished(&self, _game: &GameResult, progress: Progress) {
        self.done.store(progress.done, Ordering::SeqCst);
    }

    fn should_stop(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// `TypeName: message` of a Python exception.
pub(crate) fn describe(py: Python<'_>, e: &PyErr) -> String {
    let ty = e
        .get_type(py)
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "exception".into());
    match e.value(py).str() {
        Ok(s) if !s.to_string_lossy().is_empty() => format!("{ty}: {}", s.to_string_lossy()),
        _ => ty,
    }
}

/// The exception for a failed run.
fn run_error(py: Python<'_>, err: AwaleError, failure: Option<Failure>) -> PyErr {
    let Some(f) = failure else {
        return value_error(err);
    };
    // The tournament's message names the game and ply: "agent 'x' failed: game 3, ply 7: " and
    // then the agent's own error, which already names the agent; keep the reason only.
    let msg = match &err {
        AwaleError::AgentFailed { agent, reason } if reason.ends_with(&f.display) => format!(
            "agent '{agent}' failed: {}{}",
            &reason[..reason.len() - f.display.len()],
            f.reason
        ),
        _ => format!("agent '{}' failed: ply {}: {}", f.agent, f.ply, f.reason),
    };
    match f.kind {
        FailKind::Raised(e) => {
            if !e.is_instance_of::<PyException>(py) {
                // KeyboardInterrupt, SystemExit: let them through as they are.
                return e;
            }
            let new = PyRuntimeError::new_err(msg);
            new.set_cause(py, Some(e));
            new
        }
        FailKind::Type => PyTypeError::new_err(msg),
        FailKind::Value => PyValueError::new_err(msg),
    }
}

/// The game run of `awale.tournament`, `awale.match` and `awale.ladder`: their keywords
/// `games`, `openings`, `seed`, `threads`, `max_plies`, `limit` and `shard` in one dict `run`
/// (`_game_run` in `python/awale/tournament.py`), read once here for the three; the values are
/// checked by [`GameRunConfig::validate`] where the run starts, as on the command line.
pub(crate) fn game_run_arg(run: &Bound<'_, PyDict>) -> PyResult<GameRunConfig> {
    let get = |key: &str| -> PyResult<Bound<'_, PyAny>> {
        run.get_item(key)?
            .ok_or_else(|| PyTypeError::new_err(format!("run: '{key}' is missing")))
    };
    Ok(GameRunConfig {
        games: get("games")?.extract()?,
        openings: get("openings")?.extract()?,
        max_plies: get("max_plies")?.extract()?,
        seed: seed_arg(&get("seed")?)?,
        threads: get("threads")?.extract()?,
        game_limit: get("limit")?.extract()?,
        shard: get("shard")?.extract()?,
    })
}

/// Runs `job` (a tournament, a match, a ladder) on a thread of its own with `shared` as its
/// observer, while this thread waits with the GIL released, waking up every 100 ms to report
/// progress to `progress(done, scheduled)` and to check for Ctrl-C. Both stop the run through
/// the observer: Ctrl-C or an exception in the callback is raised once the run has stopped, the
/// callback returning `False` ends it cleanly with its result. A callable's failure is raised
/// as the callable's own error (see the module docs).
pub(crate) fn run_in_background<T: Send + 'static>(
    py: Python<'_>,
    shared: Arc<Shared>,
    progress: Option<&Bound<'_, PyAny>>,
    what: &str,
    job: impl FnOnce(&Shared) -> Result<T> + Send + 'static,
) -> PyResult<T> {
    let (tx, rx) = mpsc::channel();
    let shared2 = shared.clone();
    let handle = std::thread::Builder::new()
        .name(format!("awale-{what}"))
        .spawn(move || {
            let r = job(&shared2);
            let _ = tx.send(r);
        })
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start the {what}: {e}")))?;
    let mut rx = rx;
    // An exception to raise once the run has stopped (Ctrl-C, or raised by the callback).
    let mut stop: Option<PyErr> = None;
    let mut shown = usize::MAX;
    let result = loop {
        let (back, got) = py.detach(move || {
            let got = rx.recv_timeout(Duration::from_millis(100));
            (rx, got)
        });
        rx = back;
        match got {
            Ok(r) => break Some(r),
            Err(RecvTimeoutError::Disconnected) => break None,
            Err(RecvTimeoutError::Timeout) => {}
        }
        if shared.stop.load(Ordering::SeqCst) {
            continue;
        }
        let mut check = py.check_signals();
        let scheduled = shared.scheduled.load(Ordering::SeqCst);
        if let (Ok(()), Some(cb), true) = (&check, progress, scheduled > 0) {
            let done = shared.done.load(Ordering::SeqCst);
            if done != shown {
                shown = done;
                match cb.call1((done, scheduled)) {
                    // `False` asks to stop: the run ends cleanly and returns its result.
                    Ok(r) if r.is_instance_of::<PyBool>() && !r.is_truthy()? => {
                        shared.stop.store(true, Ordering::SeqCst);
                    }
                    Ok(_) => {}
                    Err(e) => check = Err(e),
                }
            }
        }
        if let Err(e) = check {
            shared.stop.store(true, Ordering::SeqCst);
            stop = Some(e);
        }
    };
    shared.shown.store(shown, Ordering::SeqCst);
    let joined = py.detach(move || handle.join());
    if let Some(e) = stop {
        return Err(e);
    }
    match (result, joined) {
        (Some(Ok(report)), _) => Ok(report),
        (Some(Err(err)), _) => {
            let failure = shared.take_failure(&err);
            Err(run_error(py, err, failure))
        }
        (None, Err(panic)) => {
            let what_failed = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown error".into());
            Err(PyRuntimeError::new_err(format!(
                "the {what} stopped on an internal error: {what_failed}"
            )))
        }
        (None, Ok(())) => Err(PyRuntimeError::new_err(format!(
            "the {what} stopped without a result"
        ))),
    }
}
