//! `awale.Agent`: any agent spec as a Python object — built-in, `nn:`, a baseline, `engine:` —
//! asked for its move in any position, with what it found.

use std::sync::Mutex;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use super::game::{PyGame, PyState};
use super::{rules_or_default, seed_arg, value_error};
use crate::agents::{Agent, AgentSpec, Thoughts, Turn};
use crate::game::Game;
use crate::rules::Rules;

/// An agent built from a spec (`"alphabeta:depth=8"`, `"nn:baseline=abapa"`,
/// `"engine:cmd=/opt/aalina/aalina"`), for games under one rule set.
#[pyclass(name = "Agent", module = "awale._core", frozen)]
pub struct PyAgent {
    pub(crate) spec: AgentSpec,
    pub(crate) rules: Rules,
    name: String,
    /// `None` once closed.
    agent: Mutex<Option<Box<dyn Agent>>>,
}

impl PyAgent {
    fn closed(&self) -> PyErr {
        PyValueError::new_err(format!("agent '{}' is closed", self.name))
    }

    fn with_agent<T>(&self, f: impl FnOnce(&mut Box<dyn Agent>) -> T) -> PyResult<T> {
        let mut slot = self.agent.lock().unwrap_or_else(|e| e.into_inner());
        slot.as_mut().map(f).ok_or_else(|| self.closed())
    }
}

fn thoughts_dict<'py>(py: Python<'py>, t: &Thoughts) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("summary", &t.summary)?;
    d.set_item("value", t.value)?;
    d.set_item("unit", t.unit)?;
    d.set_item("proven", t.proven)?;
    d.set_item("depth", t.depth)?;
    d.set_item("nodes", t.nodes)?;
    let moves = PyList::empty(py);
    for m in &t.moves {
        let e = PyDict::new(py);
        e.set_item("house", m.house)?;
        e.set_item("visits", m.visits)?;
        e.set_item("value", m.value)?;
        moves.append(e)?;
    }
    d.set_item("moves", moves)?;
    Ok(d)
}

#[pymethods]
impl PyAgent {
    /// Builds the agent `spec` describes for games under `rules` (a spec or a `Rules`; abapa by
    /// default). An `engine:` spec starts its program now and checks it plays these rules.
    #[new]
    #[pyo3(signature = (spec, rules = None, *, seed = None))]
    fn new(
        py: Python<'_>,
        spec: &str,
        rules: Option<&Bound<'_, PyAny>>,
        seed: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyAgent> {
        let rules = rules_or_default(rules)?;
        let spec: AgentSpec = spec.parse().map_err(value_error)?;
        let seed = match seed {
            Some(s) if !s.is_none() => Some(seed_arg(s)?),
            _ => None,
        };
        let built = {
            let spec = spec.clone();
            py.detach(move || crate::agent_kinds::available().build(&spec, &rules))
        };
        let mut agent = built.map_err(value_error)?;
        if let Some(seed) = seed {
            agent.reset(seed);
        }
        Ok(PyAgent {
            name: agent.name(),
            spec,
            rules,
            agent: Mutex::new(Some(agent)),
        })
    }

    /// Its display name.
    #[getter]
    fn name(&self) -> String {
        self.name.clone()
    }

    /// Its spec, as written back.
    #[getter]
    fn spec(&self) -> String {
        self.spec.to_string()
    }

    /// The rules it plays.
    #[getter]
    fn rules(&self) -> super::PyRules {
        super::PyRules { inner: self.rules }
    }

    /// Whether a failure of it loses a game by forfeit (a program in another process).
    #[getter]
    fn forfeits(&self) -> PyResult<bool> {
        self.with_agent(|a| a.forfeits())
    }

    /// The house (0-based in the mover's row) it plays in `position`: an `awale.Game` (its
    /// repetition history is seen too) or an `awale.State`. The GIL is released while it
    /// thinks. A finished game or other rules are a `ValueError`; an agent that fails (an
    /// engine that crashes or answers an illegal move) raises `awale.AgentError`.
    fn select(&self, py: Python<'_>, position: &Bound<'_, PyAny>) -> PyResult<usize> {
        let game = if let Ok(g) = position.cast::<PyGame>() {
            g.borrow().game.clone()
        } else if let Ok(s) = position.cast::<PyState>() {
            let s = s.borrow();
            Game::from_state(s.rules, s.state)
        } else {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "select takes an awale.Game or an awale.State, got {}",
                position.get_type().name()?
            )));
        };
        if *game.rules() != self.rules {
            return Err(PyValueError::new_err(format!(
                "agent '{}' plays '{}', the position is under '{}'",
                self.name,
                self.rules,
                game.rules()
            )));
        }
        if game.is_over() {
            return Err(PyValueError::new_err(format!(
                "the game is over ({}): there is no move to choose",
                game.status()
            )));
        }
        let mut slot = self.agent.lock().unwrap_or_else(|e| e.into_inner());
        let agent = slot.as_mut().ok_or_else(|| self.closed())?;
        let chosen = py.detach(|| agent.select(&Turn::from_game(&game)));
        let house = chosen.map_err(value_error)?;
        if game.legal_mask() & (1 << house) == 0 {
            return Err(PyRuntimeError::new_err(format!(
                "agent '{}' chose house {house}, which is not legal",
                self.name
            )));
        }
        Ok(house)
    }

    /// What its last `select` found (`summary`, `value`, `unit`, `proven`, `depth`, `nodes`,
    /// `moves`: each root move's `house`, `visits`, `value`), or `None` for agents that do
    /// not search and before the first move.
    #[getter]
    fn thoughts<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let t = self.with_agent(|a| a.thoughts())?;
        t.map(|t| thoughts_dict(py, &t)).transpose()
    }

    /// Starts a new game: forgets per-game state and reseeds its random generator.
    fn reset(&self, seed: &Bound<'_, PyAny>) -> PyResult<()> {
        let seed = seed_arg(seed)?;
        self.with_agent(|a| a.reset(seed))
    }

    /// Lets the agent go now (an engine's program quits); later calls raise `ValueError`.
    fn close(&self, py: Python<'_>) {
        let agent = self.agent.lock().unwrap_or_else(|e| e.into_inner()).take();
        py.detach(move || drop(agent));
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __exit__(
        &self,
        py: Python<'_>,
        _t: &Bound<'_, PyAny>,
        _v: &Bound<'_, PyAny>,
        _tb: &Bound<'_, PyAny>,
    ) -> bool {
        self.close(py);
        false
    }

    fn __repr__(&self) -> String {
        format!("Agent('{}', rules='{}')", self.spec, self.rules)
    }

    /// Pickled as its spec and rules (a new agent is built where it is unpickled).
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String, String))> {
        let me = slf.get();
        Ok((
            slf.get_type().into_any(),
            (me.spec.to_string(), me.rules.to_string()),
        ))
    }
}
