//! The Python extension module `awale._core` (cargo feature `python`, built by maturin; see
//! `pyproject.toml` and the package in `python/awale/`).
//!
//! It exposes four classes, documented in the hand-written stubs `python/awale/_core.pyi`:
//!
//! - `Rules`: a rule set from a spec string (`"abapa"`, `"oware:players=3"`).
//! - `State`: a position (parse, apply, legal moves, observation, render).
//! - `Game`: a game with its repetition history and moves, as the batch plays it.
//! - `Batch`: the vectorised simulator ([`crate::batch::Batch`]) writing into NumPy arrays it
//!   owns, one call per step for every board, with the GIL released while it runs.
//!
//! and `run_tournament`, the engine of `awale.tournament` (built-in agents and Python callables,
//! see `tournament.rs`).
//!
//! Every error of the crate becomes a typed exception built by one function (`value_error`):
//! `AwaleError` (a `ValueError`) and its subclasses `RulesError`, `IllegalActionError`,
//! `GameOverError`, `ParseError`, `ConfigError`, `AgentError` and `TournamentError`, carrying
//! the crate's message and the error's fields (`.board`, `.action`, `.reason`, ...). Arguments
//! of the wrong type become `TypeError`s. Nothing panics across the boundary on bad input.

mod agent;
mod batch;
mod callable_policy;
mod cli;
mod env_options;
mod evaluator;
mod game;
mod game_run;
mod network;
mod py_agent;
mod search;
mod tablebase;
mod tournament;
mod trainer;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyString};

use crate::batch::ObsEncoding;
use crate::error::AwaleError;
use crate::rules::{Preset, Rules};

/// The named rule sets that `Rules(...)` accepts without options, in display order.
pub use crate::rules::PRESET_SPECS as PRESET_NAMES;

/// The exception classes of `awale._core`, one per family of [`AwaleError`] variants, all
/// subclasses of `AwaleError`, itself a `ValueError`.
pub(crate) mod exceptions {
    use pyo3::exceptions::PyValueError;

    pyo3::create_exception!(
        awale._core,
        AwaleError,
        PyValueError,
        "Base class of every error the awale engine reports (a ValueError)."
    );
    pyo3::create_exception!(
        awale._core,
        RulesError,
        AwaleError,
        "Unknown preset, bad rules option or unplayable rules (`.option`, `.reason` when known)."
    );
    pyo3::create_exception!(
        awale._core,
        IllegalActionError,
        AwaleError,
        "An action that is not a legal move: `.action` (the house), `.reason`, `.board` (the \
         batch board, or None) and `.player` (the mover, or None)."
    );
    pyo3::create_exception!(
        awale._core,
        GameOverError,
        AwaleError,
        "A move on a game (or batch board, `.board`) whose episode is over."
    );
    pyo3::create_exception!(
        awale._core,
        ParseError,
        AwaleError,
        "A position, move or game record that cannot be parsed (`.text`, `.reason`)."
    );
    pyo3::create_exception!(
        awale._core,
        ConfigError,
        AwaleError,
        "A bad setting: batch configuration, buffers, or an agent spec (`.spec`, `.reason`)."
    );
    pyo3::create_exception!(
        awale._core,
        AgentError,
        AwaleError,
        "An agent failed to choose a move (`.agent`, `.reason`)."
    );
    pyo3::create_exception!(
        awale._core,
        TrainingError,
        AwaleError,
        "A training checkpoint, network or self-play worker message that cannot be used."
    );
    pyo3::create_exception!(
        awale._core,
        TournamentError,
        AwaleError,
        "A tournament that cannot be set up, resumed or rated."
    );

    /// Every attribute some class sets, with its default (None) on the base class.
    pub(super) const ATTRIBUTES: [&str; 9] = [
        "board", "action", "player", "reason", "option", "text", "spec", "agent", "path",
    ];
}

/// A crate error as the matching typed Python exception (see [`exceptions`]): the one
/// conversion of every engine error, with the crate's message and the variant's fields as
/// attributes.
pub(crate) fn value_error(e: AwaleError) -> PyErr {
    use exceptions as x;
    Python::attach(|py| {
        let none = || py.None();
        let text = |t: &str| {
            t.into_pyobject(py)
                .map(|o| o.into_any().unbind())
                .unwrap_or(none())
        };
        let int = |v: i128| {
            v.into_pyobject(py)
                .map(|o| o.into_any().unbind())
                .unwrap_or(none())
        };
        let message = match &e {
            AwaleError::BadBatchInput(m) => m.clone(),
            other => other.to_string(),
        };
        let (err, attrs): (PyErr, Vec<(&str, Py<PyAny>)>) = match &e {
            AwaleError::UnknownPreset { .. } | AwaleError::InvalidRules(_) => {
                (x::RulesError::new_err(message), vec![])
            }
            AwaleError::BadOption { option, reason } => (
                x::RulesError::new_err(message),
                vec![("option", text(option)), ("reason", text(reason))],
            ),
            AwaleError::IllegalMove {
                player,
                house,
                reason,
            } => (
                x::IllegalActionError::new_err(message),
                vec![
                    ("player", int(*player as i128)),
                    ("action", int(*house as i128)),
                    ("reason", text(reason)),
                ],
            ),
            AwaleError::IllegalAction {
                board,
                action,
                reason,
            } => (
                x::IllegalActionError::new_err(message),
                vec![
                    ("board", int(*board as i128)),
                    ("action", int(*action)),
                    ("reason", text(reason)),
                ],
            ),
            AwaleError::GameOver(_) => (x::GameOverError::new_err(message), vec![]),
            AwaleError::EpisodeOver { board } => (
                x::GameOverError::new_err(message),
                vec![("board", int(*board as i128))],
            ),
            AwaleError::BadPosition { text: t, reason }
            | AwaleError::BadMoveNotation { text: t, reason } => (
                x::ParseError::new_err(message),
                vec![("text", text(t)), ("reason", text(reason))],
            ),
            AwaleError::BadRecord(reason) => (
                x::ParseError::new_err(message),
                vec![("reason", text(reason))],
            ),
            AwaleError::BadBatchInput(_) => (x::ConfigError::new_err(message), vec![]),
            AwaleError::BadAgentSpec { spec, reason } => (
                x::ConfigError::new_err(message),
                vec![("spec", text(spec)), ("reason", text(reason))],
            ),
            AwaleError::AgentFailed { agent, reason } => (
                x::AgentError::new_err(message),
                vec![("agent", text(agent)), ("reason", text(reason))],
            ),
            AwaleError::Tournament(_) | AwaleError::Match(_) => {
                (x::TournamentError::new_err(message), vec![])
            }
            AwaleError::Tablebase(_) => (x::ConfigError::new_err(message), vec![]),
            AwaleError::Io { path, reason } => (
                x::AwaleError::new_err(message),
                vec![("path", text(path)), ("reason", text(reason))],
            ),
        };
        let value = err.value(py);
        for (k, v) in attrs {
            // Setting an attribute on a fresh exception instance cannot fail in practice; if it
            // did, the exception would still carry its message.
            let _ = value.setattr(k, v);
        }
        err
    })
}

/// Registers the exception classes in the module, with their attributes' defaults.
fn add_exceptions(m: &Bound<'_, PyModule>) -> PyResult<()> {
    use exceptions as x;
    let py = m.py();
    let base = py.get_type::<x::AwaleError>();
    for attr in x::ATTRIBUTES {
        base.setattr(attr, py.None())?;
    }
    m.add("AwaleError", base)?;
    m.add("RulesError", py.get_type::<x::RulesError>())?;
    m.add("IllegalActionError", py.get_type::<x::IllegalActionError>())?;
    m.add("GameOverError", py.get_type::<x::GameOverError>())?;
    m.add("ParseError", py.get_type::<x::ParseError>())?;
    m.add("ConfigError", py.get_type::<x::ConfigError>())?;
    m.add("AgentError", py.get_type::<x::AgentError>())?;
    m.add("TournamentError", py.get_type::<x::TournamentError>())?;
    m.add("TrainingError", py.get_type::<x::TrainingError>())?;
    Ok(())
}

/// Reads an optional rules argument: abapa (the default preset, `Rules::default()`) when absent.
pub(crate) fn rules_or_default(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Rules> {
    obj.map_or_else(|| Ok(Rules::default()), rules_arg)
}

/// Reads a rules argument: a `Rules` object or a spec string.
pub(crate) fn rules_arg(obj: &Bound<'_, PyAny>) -> PyResult<Rules> {
    if let Ok(r) = obj.cast::<PyRules>() {
        return Ok(r.get().inner);
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return s.to_cow()?.parse::<Rules>().map_err(value_error);
    }
    Err(PyTypeError::new_err(format!(
        "rules must be a spec string such as 'abapa' or 'oware:players=3', or a Rules object; \
         got {}",
        type_name(obj)
    )))
}

/// Reads a seed: a non-negative integer below 2**64 (Python int or NumPy integer).
pub(crate) fn seed_arg(obj: &Bound<'_, PyAny>) -> PyResult<u64> {
    if obj.is_instance_of::<pyo3::types::PyBool>() {
        return Err(PyTypeError::new_err(
            "seed must be an int or None, got bool",
        ));
    }
    match obj.extract::<u64>() {
        Ok(s) => Ok(s),
        Err(_) if obj.is_instance_of::<PyInt>() || obj.hasattr("__index__")? => {
            Err(PyValueError::new_err(format!(
                "seed must be an integer from 0 to 2**64-1, got {}",
                obj.repr()?
            )))
        }
        Err(_) => Err(PyTypeError::new_err(format!(
            "seed must be an int or None, got {}",
            type_name(obj)
        ))),
    }
}

/// Reads a house index for a single move: a non-negative integer (range checked by the engine).
pub(crate) fn house_arg(obj: &Bound<'_, PyAny>, houses: usize) -> PyResult<usize> {
    if obj.is_instance_of::<pyo3::types::PyBool>() || !obj.hasattr("__index__")? {
        return Err(PyTypeError::new_err(format!(
            "a move must be an int house index, got {}",
            type_name(obj)
        )));
    }
    match obj.extract::<i64>() {
        Ok(h) if (0..houses as i64).contains(&h) => Ok(h as usize),
        _ => Err(PyValueError::new_err(format!(
            "house {} is out of range 0..{}",
            obj.repr()?,
            houses.saturating_sub(1)
        ))),
    }
}

/// The name of an object's type, for error messages.
pub(crate) fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into())
}

/// A rule set.
#[pyclass(name = "Rules", module = "awale._core", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PyRules {
    pub(crate) inner: Rules,
}

#[pymethods]
impl PyRules {
    #[new]
    #[pyo3(signature = (spec = "abapa"))]
    fn new(spec: &str) -> PyResult<PyRules> {
        Ok(PyRules {
            inner: spec.parse().map_err(value_error)?,
        })
    }

    /// The shortest spec that parses back to these rules.
    #[getter]
    fn spec(&self) -> String {
        self.inner.to_string()
    }

    /// The base name: the preset, with the player count for owaré (`oware3`).
    #[getter]
    fn name(&self) -> String {
        self.inner.base_name()
    }

    /// The preset these rules start from.
    #[getter]
    fn preset(&self) -> &'static str {
        self.inner.preset.name()
    }

    #[getter]
    fn players(&self) -> usize {
        self.inner.players as usize
    }

    #[getter]
    fn houses(&self) -> usize {
        self.inner.houses as usize
    }

    #[getter]
    fn pits(&self) -> usize {
        self.inner.pits()
    }

    #[getter]
    fn seeds(&self) -> usize {
        self.inner.seeds as usize
    }

    #[getter]
    fn total_seeds(&self) -> u32 {
        self.inner.total_seeds()
    }

    #[getter]
    fn max_plies(&self) -> u32 {
        self.inner.max_plies
    }

    #[getter]
    fn win_threshold(&self) -> u32 {
        self.inner.win_threshold as u32
    }

    /// Every option as `{key: value}` spec strings, in a fixed order.
    fn options<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (k, v) in self.inner.options() {
            d.set_item(k, v)?;
        }
        Ok(d)
    }

    /// Observation values per board under an encoding (`compact`, `onehot[:L]`,
    /// `thermometer[:L]`).
    #[pyo3(signature = (encoding = "compact"))]
    fn obs_dim(&self, encoding: &str) -> PyResult<usize> {
        let enc: ObsEncoding = encoding.parse().map_err(value_error)?;
        Ok(enc.dim(&self.inner))
    }

    fn __str__(&self) -> String {
        self.inner.to_string()
    }

    fn __repr__(&self) -> String {
        format!("Rules('{}')", self.inner)
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        Ok((slf.get_type().into_any(), (slf.get().inner.to_string(),)))
    }
}

/// The engine's preset table ([`crate::rules::presets`]) as `(spec, title, summary)`: the spec
/// `Rules(...)` accepts, the title of the Gymnasium id (`awale/<title>-v0`) and a one-line
/// description. Every list of presets of the Python package (Gymnasium ids, PettingZoo modules)
/// iterates this table.
fn preset_table() -> Vec<(&'static str, &'static str, &'static str)> {
    crate::rules::presets()
        .into_iter()
        .map(|p| (p.spec, p.title, p.summary))
        .collect()
}

/// Every preset as `(spec, title, summary)`, in display order (see [`preset_table`]).
#[pyfunction]
fn presets() -> Vec<(&'static str, &'static str, &'static str)> {
    preset_table()
}

/// A one-line description of a preset (its source and main rules).
#[pyfunction]
fn preset_summary(name: &str) -> PyResult<&'static str> {
    let rules: Rules = name.parse().map_err(value_error)?;
    let p: Preset = rules.preset;
    Ok(p.summary())
}

/// The per-feature scales from the raw observation of `encoding` to a trained network's input
/// (`obs_scale="network"` multiplies by them): a float32 array of the encoding's size.
#[pyfunction]
#[pyo3(signature = (rules, encoding = "compact"))]
fn input_scale<'py>(
    py: Python<'py>,
    rules: &Bound<'py, PyAny>,
    encoding: &str,
) -> PyResult<Bound<'py, numpy::PyArray1<f32>>> {
    let rules = rules_arg(rules)?;
    let enc: crate::batch::ObsEncoding = encoding.parse().map_err(value_error)?;
    Ok(numpy::PyArray1::from_vec(
        py,
        crate::batch::input_scale(&rules, enc),
    ))
}

/// The module `awale._core`.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add(
        "PRESETS",
        preset_table().iter().map(|p| p.0).collect::<Vec<_>>(),
    )?;
    m.add("MAX_BOARDS", crate::batch::MAX_BOARDS)?;
    m.add("MAX_THREADS", crate::batch::MAX_THREADS)?;
    add_exceptions(m)?;
    m.add_class::<PyRules>()?;
    m.add_class::<game::PyState>()?;
    m.add_class::<game::PyGame>()?;
    m.add_class::<batch::PyBatch>()?;
    env_options::register(m)?;
    m.add_class::<tablebase::PyTablebase>()?;
    m.add_class::<network::PyNetwork>()?;
    m.add_class::<search::PySearchResult>()?;
    m.add_class::<search::PySelfPlay>()?;
    m.add_class::<search::PySearchAgent>()?;
    m.add_class::<agent::PyAgent>()?;
    m.add_function(wrap_pyfunction!(search::search, m)?)?;
    m.add_function(wrap_pyfunction!(network::network_template, m)?)?;
    m.add_function(wrap_pyfunction!(presets, m)?)?;
    m.add_function(wrap_pyfunction!(preset_summary, m)?)?;
    m.add_function(wrap_pyfunction!(input_scale, m)?)?;
    m.add_function(wrap_pyfunction!(game::parse_position, m)?)?;
    m.add_function(wrap_pyfunction!(tournament::run_tournament, m)?)?;
    m.add_function(wrap_pyfunction!(py_agent::agent_form, m)?)?;
    m.add_function(wrap_pyfunction!(py_agent::agent_move, m)?)?;
    m.add_function(wrap_pyfunction!(tournament::run_match, m)?)?;
    m.add_function(wrap_pyfunction!(tournament::run_scorecard, m)?)?;
    m.add_function(wrap_pyfunction!(tournament::scorecard_markdown, m)?)?;
    m.add_function(wrap_pyfunction!(network::baseline_manifests, m)?)?;
    m.add("HAS_TRAINER", trainer::HAS_TRAINER)?;
    m.add_class::<trainer::PySelfPlayWorker>()?;
    m.add_function(wrap_pyfunction!(trainer::train, m)?)?;
    m.add_function(wrap_pyfunction!(trainer::train_config, m)?)?;
    m.add_function(wrap_pyfunction!(trainer::default_run_folder, m)?)?;
    m.add_function(wrap_pyfunction!(trainer::worker_shards, m)?)?;
    m.add_function(wrap_pyfunction!(trainer::checkpoint_info, m)?)?;
    m.add_function(wrap_pyfunction!(tournament::run_ladder, m)?)?;
    cli::register(m)?;
    Ok(())
}
