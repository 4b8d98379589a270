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
//! see [`tournament`]).
//!
//! Every error of the crate becomes a `ValueError` carrying the crate's message; arguments of
//! the wrong type become `TypeError`s. Nothing panics across the boundary on bad input.

mod batch;
mod cli;
mod game;
mod tournament;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyString};

use crate::batch::ObsEncoding;
use crate::error::AwaleError;
use crate::rules::{Preset, Rules};

/// The named rule sets that `Rules(...)` accepts without options, in display order.
pub use crate::rules::PRESET_SPECS as PRESET_NAMES;

/// A crate error as a Python `ValueError` with the crate's message.
pub(crate) fn value_error(e: AwaleError) -> PyErr {
    PyValueError::new_err(e.to_string())
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
            "house {} is out of range 0..{houses}",
            obj.repr()?
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

/// The preset names (`abapa`, ..., `oware6`).
#[pyfunction]
fn presets() -> Vec<&'static str> {
    PRESET_NAMES.to_vec()
}

/// A one-line description of a preset (its source and main rules).
#[pyfunction]
fn preset_summary(name: &str) -> PyResult<&'static str> {
    let rules: Rules = name.parse().map_err(value_error)?;
    let p: Preset = rules.preset;
    Ok(p.summary())
}

/// The module `awale._core`.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("PRESETS", PRESET_NAMES.to_vec())?;
    m.add("MAX_BOARDS", crate::batch::MAX_BOARDS)?;
    m.add("MAX_THREADS", crate::batch::MAX_THREADS)?;
    m.add_class::<PyRules>()?;
    m.add_class::<game::PyState>()?;
    m.add_class::<game::PyGame>()?;
    m.add_class::<batch::PyBatch>()?;
    m.add_function(wrap_pyfunction!(presets, m)?)?;
    m.add_function(wrap_pyfunction!(preset_summary, m)?)?;
    m.add_function(wrap_pyfunction!(game::parse_position, m)?)?;
    m.add_function(wrap_pyfunction!(tournament::run_tournament, m)?)?;
    cli::register(m)?;
    Ok(())
}
