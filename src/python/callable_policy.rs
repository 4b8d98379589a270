//! A Python agent as the opponent of a batch (and so of the envs): `opponent=lambda state: …`
//! or any object with `select(state)` ([`super::py_agent`]).
//!
//! The batch asks for opponent moves from its worker threads with the GIL released; each call
//! takes the GIL back, one call at a time (an agent that releases the GIL inside, as torch
//! does, is never re-entered). The agent gets an `awale.State` and returns a house. When it
//! raises, returns something other than an int, or returns an illegal house, the board plays its
//! lowest legal house instead, no more calls are made in that operation, and the batch call
//! (`step`, `reset`, …) raises: the callable's exception, or a `TypeError`/`ValueError` naming
//! what it returned. Reset the boards before going on.

use std::sync::Mutex;

use pyo3::prelude::*;
use rand_chacha::ChaCha8Rng;

use super::py_agent::{self, Form};
use super::type_name;
use crate::batch::{ObsEncoding, OpponentPolicy};
use crate::rules::Rules;
use crate::state::State;

/// A Python agent playing the opponent seats.
pub(crate) struct CallablePolicy {
    name: String,
    callable: Py<PyAny>,
    form: Form,
    /// One call at a time; taken before the GIL (never the other way round).
    serial: Mutex<()>,
    /// The first failure of the current operation.
    error: Mutex<Option<PyErr>>,
}

impl std::fmt::Debug for CallablePolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CallablePolicy({})", self.name)
    }
}

impl CallablePolicy {
    /// `agent` (played as `form`) as an opponent, named `python:<its name>` (its `name`
    /// attribute, else its `__qualname__`, else its type).
    pub(crate) fn new(agent: &Bound<'_, PyAny>, form: Form) -> CallablePolicy {
        let name = py_agent::own_name(agent).unwrap_or_else(|| {
            agent
                .getattr("__qualname__")
                .and_then(|q| q.extract::<String>())
                .unwrap_or_else(|_| type_name(agent))
        });
        CallablePolicy {
            name: format!("python:{name}"),
            callable: agent.clone().unbind(),
            form,
            serial: Mutex::new(()),
            error: Mutex::new(None),
        }
    }

    /// The failure of the last operation, if any (and forgets it).
    pub(crate) fn take_error(&self) -> Option<PyErr> {
        self.error.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    fn call(&self, py: Python<'_>, rules: &Rules, state: &State) -> PyResult<usize> {
        let agent = self.callable.bind(py);
        let ret = py_agent::ask(agent, self.form, rules, state, ObsEncoding::Compact)?;
        py_agent::house_of(&ret, rules, state)
            .map_err(|bad| bad.into_err(&format!("opponent {} ", self.name)))
    }
}

impl OpponentPolicy for CallablePolicy {
    fn name(&self) -> &str {
        &self.name
    }

    fn choose(&self, rules: &Rules, state: &State, legal: u16, _rng: &mut ChaCha8Rng) -> usize {
        let fallback = legal.trailing_zeros() as usize;
        let _one_at_a_time = self.serial.lock().unwrap_or_else(|e| e.into_inner());
        let mut error = self.error.lock().unwrap_or_else(|e| e.into_inner());
        if error.is_some() {
            return fallback;
        }
        match Python::attach(|py| self.call(py, rules, state)) {
            Ok(h) => h,
            Err(e) => {
                *error = Some(e);
                fallback
            }
        }
    }
}
