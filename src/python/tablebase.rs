//! `awale.Tablebase`: endgame tables from Python (open, build, probe, the endgame yardstick).
//! Conversions only: every rule and every number comes from [`crate::tablebase`] and
//! [`crate::ratings::endgame`].

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use super::game::PyState;
use super::py_agent;
use super::{rules_or_default, type_name, value_error, PyRules};
use crate::batch::ObsEncoding;
use crate::error::AwaleError;
use crate::notation;
use crate::ratings::endgame::{endgame_accuracy_of, endgame_positions};
use crate::rules::Rules;
use crate::state::State;
use crate::tablebase::{Tablebase, DEFAULT_DIR};

/// An endgame table: for every position with at most `max_seeds` seeds on the board, the seeds
/// the player to move gets under perfect play.
#[pyclass(name = "Tablebase", module = "awale._core", frozen)]
pub struct PyTablebase {
    table: Arc<Tablebase>,
}

/// A position argument: a `State` or a position string, checked against the table's rules.
fn position_arg(table: &Tablebase, obj: &Bound<'_, PyAny>) -> PyResult<State> {
    let (rules, state) = if let Ok(s) = obj.cast::<PyState>() {
        let s = s.borrow();
        (s.rules, s.state)
    } else if let Ok(text) = obj.cast::<PyString>() {
        notation::parse_position(&text.to_cow()?).map_err(value_error)?
    } else {
        return Err(PyTypeError::new_err(format!(
            "expected a State or a position string, got {}",
            type_name(obj)
        )));
    };
    if !table.covers(&rules) {
        return Err(value_error(AwaleError::Tablebase(format!(
            "the position is played under '{rules}'; the table was built for '{}'",
            table.rules()
        ))));
    }
    Ok(state)
}

#[pymethods]
impl PyTablebase {
    /// Opens the tables of `rules` saved in `dir` (default `tablebases`; every layer found, or
    /// `0..=max_seeds`).
    #[new]
    #[pyo3(signature = (dir = None, rules = None, max_seeds = None))]
    fn new(
        py: Python<'_>,
        dir: Option<PathBuf>,
        rules: Option<&Bound<'_, PyAny>>,
        max_seeds: Option<usize>,
    ) -> PyResult<PyTablebase> {
        let rules = rules_or_default(rules)?;
        let dir = dir.unwrap_or_else(|| PathBuf::from(DEFAULT_DIR));
        let table = py
            .detach(|| Tablebase::open(&dir, &rules, max_seeds))
            .map_err(value_error)?;
        Ok(PyTablebase {
            table: Arc::new(table),
        })
    }

    /// Builds the table of every position with at most `max_seeds` seeds (on `threads`
    /// threads, 0 = every core), and saves it into `out` when given.
    #[staticmethod]
    #[pyo3(signature = (rules = None, max_seeds = 12, threads = 0, out = None))]
    fn build(
        py: Python<'_>,
        rules: Option<&Bound<'_, PyAny>>,
        max_seeds: usize,
        threads: usize,
        out: Option<PathBuf>,
    ) -> PyResult<PyTablebase> {
        let rules = rules_or_default(rules)?;
        let table = py
            .detach(|| -> crate::Result<Tablebase> {
                let t = Tablebase::build(&rules, max_seeds, threads, &|_| {})?;
                if let Some(dir) = &out {
                    t.save(dir)?;
                }
                Ok(t)
            })
            .map_err(value_error)?;
        Ok(PyTablebase {
            table: Arc::new(table),
        })
    }

    /// The rules the table was built for (without the win threshold).
    #[getter]
    fn rules(&self) -> PyRules {
        PyRules {
            inner: *self.table.rules(),
        }
    }

    /// Most seeds on the board of a position in the table.
    #[getter]
    fn max_seeds(&self) -> usize {
        self.table.max_seeds()
    }

    /// The seeds the player to move gets under perfect play, or None when the game is over or
    /// the position is outside the table.
    fn value(&self, position: &Bound<'_, PyAny>) -> PyResult<Option<u8>> {
        let s = position_arg(&self.table, position)?;
        Ok(self.table.value(&s))
    }

    /// `{"seeds", "value", "cycle", "moves": {house: value}, "best_moves": [house, ...]}`;
    /// ValueError when the game is over or the position is outside the table.
    fn probe<'py>(
        &self,
        py: Python<'py>,
        position: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let s = position_arg(&self.table, position)?;
        let p = self.table.probe(&s).map_err(value_error)?;
        let d = PyDict::new(py);
        d.set_item("seeds", p.seeds)?;
        d.set_item("value", p.value)?;
        d.set_item("cycle", p.cycle)?;
        let moves = PyDict::new(py);
        for m in &p.moves {
            moves.set_item(m.house, m.value)?;
        }
        d.set_item("moves", moves)?;
        d.set_item("best_moves", p.best_moves())?;
        Ok(d)
    }

    /// A fixed, seeded list of `count` positions with at most `max_seeds` seeds (default: the
    /// table's) drawn from games between built-in agents (`awale.endgame`'s yardstick).
    #[pyo3(signature = (count = 1000, seed = 1, max_seeds = None))]
    fn endgame_positions(
        &self,
        py: Python<'_>,
        count: usize,
        seed: u64,
        max_seeds: Option<usize>,
    ) -> PyResult<Vec<PyState>> {
        let max = max_seeds.unwrap_or(self.table.max_seeds());
        if max > self.table.max_seeds() {
            return Err(PyValueError::new_err(format!(
                "max_seeds {max} is above the table's {}",
                self.table.max_seeds()
            )));
        }
        let rules = Rules {
            win_threshold: self.table.rules().preset.def().rules().win_threshold,
            ..*self.table.rules()
        };
        let positions = py
            .detach(|| endgame_positions(&rules, max, count, seed))
            .map_err(value_error)?;
        Ok(positions
            .into_iter()
            .map(|s| PyState::new_from(rules, s))
            .collect())
    }

    /// The endgame accuracy of the agent `choose` (a function of a `State` returning a house,
    /// or an object with `select(state)`, as everywhere in awale) on `positions` (from
    /// `endgame_positions`): `{"positions", "optimal", "optimal_share", "mean_loss",
    /// "result_share"}`.
    fn accuracy<'py>(
        &self,
        py: Python<'py>,
        choose: &Bound<'py, PyAny>,
        positions: Vec<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let Some(form) = py_agent::form_of(choose)? else {
            return Err(PyTypeError::new_err(format!(
                "choose must be an agent: a function of a State returning a house, or an object \
                 with select(state); got {}",
                type_name(choose)
            )));
        };
        let mut states = Vec::with_capacity(positions.len());
        for p in &positions {
            states.push(position_arg(&self.table, p)?);
        }
        let rules = *self.table.rules();
        let call = |_i: usize, s: &State| -> PyResult<usize> {
            let ret = py_agent::ask(choose, form, &rules, s, ObsEncoding::Compact)?;
            py_agent::house_of(&ret, &rules, s).map_err(|bad| bad.into_err("choose "))
        };
        let mut raised: Option<PyErr> = None;
        let result = endgame_accuracy_of(&self.table, &states, |i, s| {
            call(i, s).map_err(|e| {
                raised = Some(e);
                AwaleError::AgentFailed {
                    agent: "choose".into(),
                    reason: "raised".into(),
                }
            })
        });
        if let Some(e) = raised {
            return Err(e);
        }
        let score = result.map_err(value_error)?;
        let d = PyDict::new(py);
        d.set_item("positions", score.positions)?;
        d.set_item("optimal", score.optimal)?;
        d.set_item("optimal_share", score.optimal_share())?;
        d.set_item("mean_loss", score.mean_loss())?;
        d.set_item("result_share", score.result_share())?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        format!(
            "Tablebase(rules='{}', max_seeds={})",
            self.table.rules(),
            self.table.max_seeds()
        )
    }
}
