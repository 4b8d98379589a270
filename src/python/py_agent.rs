//! One Python agent everywhere: how a Python object plays a move, for every place that takes
//! one (tournament, match, scorecard, an env's opponent, `Tablebase.accuracy`, `awale.play`).
//!
//! A Python agent is an object with `select(state) -> house` (an `awale.Agent`, an
//! `awale.SearchAgent`, an `awale.ObservationAgent`, or any object of the caller's; its
//! optional `reset(seed)` is called before each game of a tournament) or a function of an
//! `awale.State` returning a house. The older form, a function
//! `(observation, mask) -> house`, still plays (told apart by its two required positional
//! parameters) with a `DeprecationWarning` that names the new way. Spec strings stay with each
//! caller (they build Rust agents, not Python ones).

use numpy::PyArray1;
use pyo3::exceptions::{PyDeprecationWarning, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyString};

use super::game::PyState;
use super::type_name;
use crate::batch::{encode_state, ObsEncoding};
use crate::notation::format_move;
use crate::rules::Rules;
use crate::state::State;

/// How a Python agent is asked for its move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// `agent.select(state)`.
    Select,
    /// `agent(state)`.
    State,
    /// `agent(observation, mask)`: the deprecated form.
    ObsMask,
}

impl Form {
    /// Its name, as `_core._agent_form` returns it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Form::Select => "select",
            Form::State => "state",
            Form::ObsMask => "obs_mask",
        }
    }
}

/// The text of the deprecation warning of an `(observation, mask)` callable.
pub(crate) const DEPRECATED: &str = "an agent called as (observation, mask) -> house is \
     deprecated and will stop working in the next release: give a function of an awale.State \
     (state -> house), an object with select(state), or wrap an observation-based policy in \
     awale.ObservationAgent(policy, obs=...) (awale.sb3.agent(model) for an SB3 model); see \
     'Agents' in python/README.md";

/// The number of required positional parameters of `func` (`None` when its signature cannot
/// be read, as for some built-ins).
fn required_positional(func: &Bound<'_, PyAny>) -> Option<usize> {
    let py = func.py();
    let sig = py
        .import("inspect")
        .ok()?
        .call_method1("signature", (func,))
        .ok()?;
    let params = sig
        .getattr("parameters")
        .ok()?
        .call_method0("values")
        .ok()?;
    let mut n = 0;
    for p in params.try_iter().ok()? {
        let p = p.ok()?;
        let kind: String = p
            .getattr("kind")
            .ok()?
            .getattr("name")
            .ok()?
            .extract()
            .ok()?;
        let empty = p.getattr("default").ok()?.is(&p.getattr("empty").ok()?);
        if empty && (kind == "POSITIONAL_ONLY" || kind == "POSITIONAL_OR_KEYWORD") {
            n += 1;
        }
    }
    Some(n)
}

/// How `obj` plays, or `None` when it is not a Python agent (neither an object with a
/// callable `select` nor a callable). An `(observation, mask)` callable raises its
/// `DeprecationWarning` here, once per argument (an error when warnings are errors).
pub(crate) fn form_of(obj: &Bound<'_, PyAny>) -> PyResult<Option<Form>> {
    if obj.is_instance_of::<PyString>() {
        return Ok(None);
    }
    if obj.hasattr("select")? && obj.getattr("select")?.is_callable() {
        return Ok(Some(Form::Select));
    }
    if !obj.is_callable() {
        return Ok(None);
    }
    if required_positional(obj) == Some(2) {
        let py = obj.py();
        PyErr::warn(
            py,
            &py.get_type::<PyDeprecationWarning>(),
            &std::ffi::CString::new(DEPRECATED).expect("no NUL"),
            2,
        )?;
        return Ok(Some(Form::ObsMask));
    }
    Ok(Some(Form::State))
}

/// The display name an agent object gives itself: its `name` attribute when that is a
/// non-empty str.
pub(crate) fn own_name(obj: &Bound<'_, PyAny>) -> Option<String> {
    let n = obj.getattr("name").ok()?;
    let s = n.cast::<PyString>().ok()?.to_cow().ok()?.into_owned();
    (!s.trim().is_empty()).then_some(s)
}

/// Asks `agent` (played as `form`) for its move at `state`: what it returned, unchecked. The
/// deprecated form gets the observation in encoding `enc`, seen by the player to move.
pub(crate) fn ask<'py>(
    agent: &Bound<'py, PyAny>,
    form: Form,
    rules: &Rules,
    state: &State,
    enc: ObsEncoding,
) -> PyResult<Bound<'py, PyAny>> {
    let py = agent.py();
    match form {
        Form::Select => {
            let s = Bound::new(py, PyState::new_from(*rules, *state))?;
            agent.call_method1("select", (s,))
        }
        Form::State => agent.call1((Bound::new(py, PyState::new_from(*rules, *state))?,)),
        Form::ObsMask => {
            let mut obs = vec![0f32; enc.dim(rules)];
            encode_state(enc, rules, state, &mut obs).map_err(super::value_error)?;
            let legal = legal_of(rules, state);
            let mask: Vec<i8> = (0..rules.houses)
                .map(|h| ((legal >> h) & 1) as i8)
                .collect();
            agent.call1((PyArray1::from_vec(py, obs), PyArray1::from_vec(py, mask)))
        }
    }
}

/// The legal houses of `state` as bits (none once it is over).
fn legal_of(rules: &Rules, state: &State) -> u16 {
    if state.is_over() {
        0
    } else {
        state.legal_mask(rules)
    }
}

/// Why an agent's answer is not a move.
pub(crate) enum BadMove {
    /// Not an int (a bool, a float, `None`, ...): a `TypeError`.
    Type(String),
    /// An int that is not a legal house: an `awale.IllegalActionError` (a `ValueError`).
    Value(String),
}

impl BadMove {
    /// The reason, for a message that names the agent before it.
    pub(crate) fn reason(&self) -> &str {
        match self {
            BadMove::Type(r) | BadMove::Value(r) => r,
        }
    }

    /// As a Python exception, the message prefixed with `who` (e.g. "agent 'x' ").
    pub(crate) fn into_err(self, who: &str) -> PyErr {
        match self {
            BadMove::Type(r) => PyTypeError::new_err(format!("{who}{r}")),
            BadMove::Value(r) => {
                super::exceptions::IllegalActionError::new_err(format!("{who}{r}"))
            }
        }
    }
}

/// The house an agent returned, checked: an int (not a bool) that is a legal move at `state`.
pub(crate) fn house_of(
    ret: &Bound<'_, PyAny>,
    rules: &Rules,
    state: &State,
) -> Result<usize, BadMove> {
    let house = if ret.is_instance_of::<PyBool>() || !ret.hasattr("__index__").unwrap_or(false) {
        None
    } else {
        ret.extract::<i64>().ok()
    };
    let Some(h) = house else {
        let what = ret
            .repr()
            .map(|r| r.to_string())
            .unwrap_or_else(|_| "?".into());
        let what = if ret.is_instance_of::<PyBool>() {
            format!("a bool, {what}")
        } else {
            format!("{what} ({})", type_name(ret))
        };
        return Err(BadMove::Type(format!(
            "returned {what}; it must return a house (an int index)"
        )));
    };
    let legal = legal_of(rules, state);
    if !(0..16).contains(&h) || legal >> h & 1 == 0 {
        let text: Vec<String> = (0..16)
            .filter(|i| legal >> i & 1 != 0)
            .map(|i| format!("{i} ({})", format_move(rules, state.to_move(), i)))
            .collect();
        return Err(BadMove::Value(format!(
            "returned house {h}, which is not a legal move (legal: {})",
            text.join(", ")
        )));
    }
    Ok(h as usize)
}

/// How `agent` plays (`"select"`, `"state"` or `"obs_mask"`, the deprecated form, which
/// warns): what `awale.play` asks once per game. A `TypeError` when it is not an agent.
#[pyfunction]
#[pyo3(name = "_agent_form")]
pub(crate) fn agent_form(agent: &Bound<'_, PyAny>, what: &str) -> PyResult<&'static str> {
    match form_of(agent)? {
        Some(f) => Ok(f.as_str()),
        None => Err(PyTypeError::new_err(format!(
            "{what} must be an agent: an object with select(state) -> house (such as \
             awale.Agent or awale.SearchAgent) or a function of an awale.State returning a \
             house; got {}",
            type_name(agent)
        ))),
    }
}

/// The move of `agent` (played as `form`, from `_agent_form`) at `state`, checked legal
/// (`TypeError` / `awale.IllegalActionError` naming `what` otherwise).
#[pyfunction]
#[pyo3(name = "_agent_move")]
pub(crate) fn agent_move(
    agent: &Bound<'_, PyAny>,
    form: &str,
    state: PyRef<'_, PyState>,
    what: &str,
) -> PyResult<usize> {
    let form = match form {
        "select" => Form::Select,
        "state" => Form::State,
        "obs_mask" => Form::ObsMask,
        other => {
            return Err(PyValueError::new_err(format!(
                "form must be 'select', 'state' or 'obs_mask', got '{other}'"
            )))
        }
    };
    let (rules, st) = (state.rules, state.state);
    drop(state);
    let ret = ask(agent, form, &rules, &st, ObsEncoding::Compact)?;
    house_of(&ret, &rules, &st).map_err(|b| b.into_err(&format!("{what} ")))
}
