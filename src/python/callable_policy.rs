//! A Python callable as the opponent of a batch (and so of the envs): `opponent=lambda state: …`.
//!
//! The batch asks for opponent moves from its worker threads with the GIL released; each call
//! takes the GIL back, one call at a time (a callable that releases the GIL inside, as torch
//! does, is never re-entered). The callable gets an `awale.State` and returns a house. When it
//! raises, returns something other than an int, or returns an illegal house, the board plays its
//! lowest legal house instead, no more calls are made in that operation, and the batch call
//! (`step`, `reset`, …) raises: the callable's exception, or a `TypeError`/`ValueError` naming
//! what it returned. Reset the boards before going on.

use std::sync::Mutex;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use rand_chacha::ChaCha8Rng;

use super::game::PyState;
use super::type_name;
use crate::batch::Policy;
use crate::notation::format_move;
use crate::rules::Rules;
use crate::state::State;

/// A Python callable playing the opponent seats.
pub(crate) struct CallablePolicy {
    name: String,
    callable: Py<PyAny>,
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
    /// `callable` as an opponent, named `python:<its __qualname__>`.
    pub(crate) fn new(callable: &Bound<'_, PyAny>) -> CallablePolicy {
        let qualname = callable
            .getattr("__qualname__")
            .and_then(|q| q.extract::<String>())
            .unwrap_or_else(|_| type_name(callable));
        CallablePolicy {
            name: format!("python:{qualname}"),
            callable: callable.clone().unbind(),
            serial: Mutex::new(()),
            error: Mutex::new(None),
        }
    }

    /// The failure of the last operation, if any (and forgets it).
    pub(crate) fn take_error(&self) -> Option<PyErr> {
        self.error.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    fn call(&self, py: Python<'_>, rules: &Rules, state: &State, legal: u16) -> PyResult<usize> {
        let arg = Bound::new(py, PyState::new_from(*rules, *state))?;
        let v = self.callable.bind(py).call1((arg,))?;
        if v.is_instance_of::<pyo3::types::PyBool>() {
            return Err(PyTypeError::new_err(format!(
                "opponent {} returned a bool, not a house",
                self.name
            )));
        }
        let h: i64 = v.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "opponent {} must return a house (int), got {}",
                self.name,
                type_name(&v)
            ))
        })?;
        if !(0..16).contains(&h) || legal & (1 << h) == 0 {
            let legal_text: Vec<String> = (0..16)
                .filter(|i| legal & (1 << i) != 0)
                .map(|i| format!("{i} ({})", format_move(rules, state.to_move(), i)))
                .collect();
            return Err(PyValueError::new_err(format!(
                "opponent {} returned house {h}, which is not a legal move (legal: {})",
                self.name,
                legal_text.join(", ")
            )));
        }
        Ok(h as usize)
    }
}

impl Policy for CallablePolicy {
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
        match Python::attach(|py| self.call(py, rules, state, legal)) {
            Ok(h) => h,
            Err(e) => {
                *error = Some(e);
                fallback
            }
        }
    }
}
