//! The self-play trainer from Python: `train` (a run, local or with its self-play played by
//! workers the caller provides, e.g. Ray actors), `SelfPlayWorker` (a worker's shards), and the
//! burn-free helpers `train_config`, `checkpoint_info` and `worker_shards`.
//!
//! `train` and `SelfPlayWorker` need the extension built with the cargo feature `train`
//! (`HAS_TRAINER`; the wheel has it); a build without it raises `NotImplementedError` with
//! the command that builds one. Types are converted here; what they do is in
//! `awale::train::run::run_with`, `awale::train::worker` and `awale::az::remote`.

use std::path::PathBuf;

use pyo3::exceptions::{PyNotImplementedError, PyOSError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use super::exceptions as x;
use super::value_error;
use crate::az::{Checkpoint, TrainConfig, TrainError};

/// Whether this build of the extension has the trainer (cargo feature `train`).
pub(crate) const HAS_TRAINER: bool = cfg!(feature = "train");

/// What `train` and `SelfPlayWorker` raise in a build without the trainer.
#[cfg_attr(feature = "train", allow(dead_code))]
pub(crate) fn no_trainer() -> PyErr {
    PyNotImplementedError::new_err(
        "this build of awale has no trainer (burn): build the extension with the `train` \
         feature, e.g. `maturin build --release --features python,cli,train` in the source tree, and \
         install that wheel (see docs/scaling.md)",
    )
}

/// A trainer error as a typed Python exception: a bad config is a `ConfigError`, a file that
/// cannot be read or written an `OSError`, a checkpoint, network or worker message that cannot
/// be used a `TrainingError` (both are `AwaleError`s, so `ValueError`s).
pub(crate) fn train_error(e: TrainError) -> PyErr {
    match e {
        TrainError::Config(m) => {
            let err = x::ConfigError::new_err(format!("training config: {m}"));
            Python::attach(|py| {
                let _ = err.value(py).setattr("reason", m);
            });
            err
        }
        TrainError::Io { path, reason } => PyOSError::new_err(format!("{path}: {reason}")),
        TrainError::Game(e) => value_error(e),
        other => x::TrainingError::new_err(other.to_string()),
    }
}

/// Reads a config: the TOML text itself (a string with a newline or an `=`), else a file path.
fn config_arg(config: &str) -> PyResult<TrainConfig> {
    let cfg = if config.contains('\n') || config.contains('=') {
        TrainConfig::from_toml_str(config)
    } else {
        TrainConfig::from_file(std::path::Path::new(config))
    }
    .map_err(train_error)?;
    cfg.validate().map_err(train_error)?;
    Ok(cfg)
}

/// The effective training config as TOML text: `path` (a file or a built-in recipe's name,
/// default the built-in tiny config) with `overrides` (`"section.key=value"`, as `awale train --set`) applied, checked.
#[pyfunction]
#[pyo3(signature = (path = None, overrides = Vec::new()))]
pub(crate) fn train_config(path: Option<PathBuf>, overrides: Vec<String>) -> PyResult<String> {
    let mut cfg = match path {
        // A built-in recipe by name (`"abapa"`) when no such file exists, as `awale train --config`.
        Some(p) => match p
            .to_str()
            .filter(|_| !p.exists())
            .and_then(TrainConfig::builtin)
        {
            Some(cfg) => cfg,
            None => TrainConfig::from_file(&p).map_err(train_error)?,
        },
        None => TrainConfig::tiny(),
    };
    for o in &overrides {
        cfg.set(o).map_err(train_error)?;
    }
    cfg.validate().map_err(train_error)?;
    Ok(cfg.to_toml())
}

/// The folder a run of `config` (TOML text or a path) goes to by default: `runs/NAME`, as for
/// `awale train`.
#[pyfunction]
pub(crate) fn default_run_folder(config: &str) -> PyResult<String> {
    Ok(config_arg(config)?
        .default_out()
        .to_string_lossy()
        .into_owned())
}

/// The shards of worker `worker` of `workers` when a run has `shards` shards, as
/// `(start, end)`.
#[pyfunction]
pub(crate) fn worker_shards(
    worker: usize,
    workers: usize,
    shards: usize,
) -> PyResult<(usize, usize)> {
    if workers == 0 || worker >= workers || shards < workers {
        return Err(x::ConfigError::new_err(format!(
            "worker {worker} of {workers} with {shards} shards: needs 0 <= worker < workers <= \
             shards"
        )));
    }
    let r = crate::az::remote::worker_shards(worker, workers, shards);
    Ok((r.start, r.end))
}

/// What a checkpoint file holds: the config's name, rules and fingerprint, the counters, and a
/// CRC-32 of each part (network, optimiser, replay buffer, games in progress, generator), so
/// two runs can be compared without burn (the optimiser's over its contents in name order: its
/// bytes are written in hash order).
#[pyfunction]
pub(crate) fn checkpoint_info<'py>(py: Python<'py>, path: PathBuf) -> PyResult<Bound<'py, PyDict>> {
    let ck = py.detach(|| Checkpoint::read(&path)).map_err(train_error)?;
    let d = PyDict::new(py);
    let c = &ck.counters;
    d.set_item("name", &ck.config.name)?;
    d.set_item("rules", &ck.config.rules)?;
    d.set_item("fingerprint", ck.config.fingerprint())?;
    d.set_item("iteration", c.iteration)?;
    d.set_item("train_steps", c.train_steps)?;
    d.set_item("games", c.games)?;
    d.set_item("positions", c.positions)?;
    d.set_item("moves", c.moves)?;
    d.set_item("elapsed", c.elapsed)?;
    d.set_item("selfplay_threads", ck.config.selfplay.threads)?;
    d.set_item("model_crc32", crc32fast::hash(&ck.model))?;
    // Over the record's contents with the trainer (which reads burn's records), else over its
    // bytes (a build without the trainer: no run of its own to compare).
    #[cfg(feature = "train")]
    let optimizer = crate::train::trainer::optimizer_crc32(&ck.optimizer);
    #[cfg(not(feature = "train"))]
    let optimizer = crc32fast::hash(&ck.optimizer);
    d.set_item("optimizer_crc32", optimizer)?;
    d.set_item("replay_crc32", crc32fast::hash(&ck.replay))?;
    d.set_item("selfplay_crc32", crc32fast::hash(&ck.selfplay))?;
    let rng = format!("{:?}", ck.rng);
    d.set_item("rng_crc32", crc32fast::hash(rng.as_bytes()))?;
    Ok(d)
}

/// A worker of a distributed self-play run: plays the shards `shards` (`(start, end)`) of the
/// run's `config` (TOML text or a path; `selfplay.threads` is the run's shard count) with the
/// weights the learner sends. One thread per shard; the GIL is released while it plays.
#[pyclass(name = "SelfPlayWorker", module = "awale._core")]
pub(crate) struct PySelfPlayWorker {
    #[cfg(feature = "train")]
    inner: crate::train::worker::SelfPlayWorker,
    shards: (usize, usize),
}

#[pymethods]
impl PySelfPlayWorker {
    #[new]
    fn new(config: &str, shards: (usize, usize)) -> PyResult<PySelfPlayWorker> {
        let cfg = config_arg(config)?;
        #[cfg(feature = "train")]
        {
            let inner = crate::train::worker::SelfPlayWorker::new(&cfg, shards.0..shards.1)
                .map_err(train_error)?;
            Ok(PySelfPlayWorker { inner, shards })
        }
        #[cfg(not(feature = "train"))]
        {
            let _ = (cfg, shards);
            Err(no_trainer())
        }
    }

    /// The shards it plays, `(start, end)`.
    #[getter]
    fn shards(&self) -> (usize, usize) {
        self.shards
    }

    /// Takes the games in progress to play on from: the run's (the learner sends them when a
    /// session starts), or those of a part of the same shards (`games()`, e.g. of a worker
    /// that died).
    fn start(&mut self, py: Python<'_>, games: &[u8]) -> PyResult<()> {
        #[cfg(feature = "train")]
        return py.detach(|| self.inner.start(games)).map_err(train_error);
        #[cfg(not(feature = "train"))]
        {
            let _ = (py, games);
            Err(no_trainer())
        }
    }

    /// Plays its shards' share of `positions` with `weights` (version `version`) and returns
    /// the report for the learner.
    fn play<'py>(
        &mut self,
        py: Python<'py>,
        weights: &[u8],
        version: u64,
        positions: usize,
    ) -> PyResult<Bound<'py, PyBytes>> {
        #[cfg(feature = "train")]
        {
            let report = py
                .detach(|| self.inner.play(weights, version, positions))
                .map_err(train_error)?;
            Ok(PyBytes::new(py, &report))
        }
        #[cfg(not(feature = "train"))]
        {
            let _ = (py, weights, version, positions);
            Err(no_trainer())
        }
    }

    /// Its shards' games in progress: the learner keeps them for its checkpoints and to replay
    /// the shards elsewhere if this worker is lost.
    fn games<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        #[cfg(feature = "train")]
        return Ok(PyBytes::new(py, &self.inner.games()));
        #[cfg(not(feature = "train"))]
        {
            let _ = py;
            Err(no_trainer())
        }
    }

    fn __repr__(&self) -> String {
        format!("SelfPlayWorker(shards={:?})", self.shards)
    }
}

/// The workers a Python object drives (`start`, `submit`, `collect`, `games`; see
/// `awale.ray_selfplay`),
/// seen from the learner. A Python exception is kept and raised again when the run stops.
#[cfg(feature = "train")]
struct PyRemote {
    obj: Py<PyAny>,
    error: Option<PyErr>,
}

#[cfg(feature = "train")]
impl PyRemote {
    fn call(
        &mut self,
        method: &str,
        args: impl for<'py> FnOnce(Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyTuple>>,
        want_list: bool,
    ) -> crate::az::TrainResult<Vec<Vec<u8>>> {
        let result = Python::attach(|py| -> PyResult<Vec<Vec<u8>>> {
            py.check_signals()?;
            let out = self.obj.bind(py).call_method1(method, args(py)?)?;
            if !want_list {
                return Ok(Vec::new());
            }
            let items: Vec<Bound<'_, PyAny>> = out.try_iter()?.collect::<PyResult<_>>()?;
            items
                .iter()
                .map(|b| {
                    b.cast::<PyBytes>()
                        .map(|b| b.as_bytes().to_vec())
                        .map_err(|_| {
                            pyo3::exceptions::PyTypeError::new_err(format!(
                                "selfplay.{method}() must return a list of bytes, one per worker; \
                                 got an item of type {}",
                                super::type_name(b)
                            ))
                        })
                })
                .collect()
        });
        result.map_err(|e| {
            let msg = Python::attach(|py| format!("selfplay.{method}(): {}", e.value(py)));
            // The first error is the cause (a later one comes from saving after it).
            self.error.get_or_insert(e);
            TrainError::Remote(msg)
        })
    }
}

#[cfg(feature = "train")]
impl crate::az::remote::RemoteSelfPlay for PyRemote {
    fn start(&mut self, games: &[u8]) -> crate::az::TrainResult<()> {
        self.call(
            "start",
            |py| (PyBytes::new(py, games),).into_pyobject(py),
            false,
        )?;
        Ok(())
    }

    fn submit(
        &mut self,
        weights: &[u8],
        version: u64,
        positions: usize,
    ) -> crate::az::TrainResult<()> {
        self.call(
            "submit",
            |py| (PyBytes::new(py, weights), version, positions).into_pyobject(py),
            false,
        )?;
        Ok(())
    }

    fn collect(&mut self) -> crate::az::TrainResult<Vec<Vec<u8>>> {
        self.call("collect", |py| Ok(pyo3::types::PyTuple::empty(py)), true)
    }

    fn games(&mut self) -> crate::az::TrainResult<Vec<Vec<u8>>> {
        self.call("games", |py| Ok(pyo3::types::PyTuple::empty(py)), true)
    }
}

/// Runs (or resumes) a training run in `out` (default `runs/NAME`), as `awale train` does, and
/// returns its summary.
/// `config`: TOML text or a path. `selfplay`: an object whose `start(games)`, `submit(weights,
/// version, positions)`, `collect()` and `games()` drive self-play workers (the last two
/// returning a list of bytes, one per worker, in shard order; see
/// `awale.ray_selfplay.RaySelfPlay`); none plays self-play here. The GIL is released while it trains.
#[pyfunction]
#[pyo3(signature = (config, out, *, fresh = false, progress = false, final_eval = true, selfplay = None))]
pub(crate) fn train<'py>(
    py: Python<'py>,
    config: &str,
    out: Option<PathBuf>,
    fresh: bool,
    progress: bool,
    final_eval: bool,
    selfplay: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let cfg = config_arg(config)?;
    #[cfg(feature = "train")]
    {
        use crate::train::run::{run_with, RunOptions};
        let opts = RunOptions {
            out: out.unwrap_or_else(|| cfg.default_out()),
            fresh,
            progress,
            final_eval,
        };
        let mut remote = selfplay.map(|obj| PyRemote { obj, error: None });
        let result = py.detach(|| {
            run_with(
                cfg,
                &opts,
                remote
                    .as_mut()
                    .map(|r| r as &mut dyn crate::az::remote::RemoteSelfPlay),
            )
        });
        if let Some(e) = remote.and_then(|r| r.error) {
            return Err(e);
        }
        let s = result.map_err(train_error)?;
        let d = PyDict::new(py);
        d.set_item("iterations", s.iterations)?;
        d.set_item("train_steps", s.train_steps)?;
        d.set_item("games", s.games)?;
        d.set_item("positions", s.positions)?;
        d.set_item("secs", s.secs)?;
        d.set_item("moves_per_sec", s.moves_per_sec)?;
        d.set_item("evals_per_sec", s.evals_per_sec)?;
        d.set_item("mean_batch", s.mean_batch)?;
        d.set_item("checkpoint", s.checkpoint)?;
        d.set_item("resumed", s.resumed)?;
        let final_eval = match &s.final_eval {
            Some(r) => {
                let text = serde_json::to_string(r).unwrap_or_default();
                Some(py.import("json")?.call_method1("loads", (text,))?)
            }
            None => None,
        };
        d.set_item("final_eval", final_eval)?;
        Ok(d)
    }
    #[cfg(not(feature = "train"))]
    {
        let _ = (py, cfg, out, fresh, progress, final_eval, selfplay);
        Err(no_trainer())
    }
}
