//! The Python side of the env spec (`crate::env_spec`): how each kind of option value looks to
//! Python and is read from it (one arm per `OptionKind`, never one per option), the reading of
//! keywords through the table, and `awale._core.env_options()`, `check_env_options()` and
//! `env_spaces()`.

use std::sync::Arc;

use numpy::PyArray1;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

use super::callable_policy::CallablePolicy;
use super::py_agent;
use super::{rules_arg, seed_arg, type_name, value_error, PyRules};
use crate::batch::{ObsDtype, Opponent};
use crate::env_spec::{find_option, EnvConfig, OptionDef, OptionKind, OPTIONS, SPACE_OPTIONS};

/// Reads an integer argument that must lie in `lo..=hi`.
fn int_in(obj: &Bound<'_, PyAny>, name: &str, lo: i64, hi: i64) -> PyResult<i64> {
    if obj.is_instance_of::<pyo3::types::PyBool>() || !obj.hasattr("__index__")? {
        return Err(PyTypeError::new_err(format!(
            "{name} must be an int, got {}",
            type_name(obj)
        )));
    }
    match obj.extract::<i64>() {
        Ok(v) if (lo..=hi).contains(&v) => Ok(v),
        _ => Err(PyValueError::new_err(format!(
            "{name} must be {lo} to {hi}, got {}",
            obj.repr()?
        ))),
    }
}

/// How an option's value looks to Python and how it is read: the whole Python side of the
/// option table ([`OPTIONS`]), one arm per [`OptionKind`], never one per option.
pub(crate) mod kinds {
    use super::*;

    /// The text form of a Python value of option `opt` (`None` for the flavour's default);
    /// `TypeError` for a value of the wrong type. Rules and callables are not text: see
    /// [`read_options`].
    pub(super) fn text_of(
        opt: &OptionDef,
        obj: &Bound<'_, PyAny>,
        flavour: &str,
    ) -> PyResult<String> {
        let key = opt.key;
        let default = || opt.default_for(flavour).to_string();
        Ok(match opt.kind {
            OptionKind::Rules | OptionKind::Int { .. } if obj.is_none() => default(),
            OptionKind::Rules => rules_arg(obj)?.to_string(),
            OptionKind::Int { min, max } => int_in(obj, key, min, max)?.to_string(),
            OptionKind::Seed if obj.is_none() => default(),
            OptionKind::Seed => seed_arg(obj)?.to_string(),
            OptionKind::Str => match obj.cast::<PyString>() {
                Ok(s) => s.to_cow()?.into_owned(),
                Err(_) => {
                    return Err(PyTypeError::new_err(format!(
                        "{key} must be a str, got {}",
                        type_name(obj)
                    )))
                }
            },
            OptionKind::OptStr if obj.is_none() => "none".into(),
            OptionKind::OptStr => match obj.cast::<PyString>() {
                Ok(s) if &*s.to_cow()? != "none" => s.to_cow()?.into_owned(),
                _ => {
                    return Err(PyTypeError::new_err(format!(
                        "{key} must be a str or None, got {}",
                        obj.repr()?
                    )))
                }
            },
            // A bool (Python's or NumPy's), never any truthy object: `copy="no"` is an error,
            // not `True`.
            OptionKind::Bool
                if obj.is_instance_of::<pyo3::types::PyBool>()
                    || matches!(type_name(obj).as_str(), "bool_" | "bool") =>
            {
                obj.is_truthy()?.to_string()
            }
            OptionKind::Bool => {
                return Err(PyTypeError::new_err(format!(
                    "{key} must be a bool, got {} ({})",
                    obj.repr()?,
                    type_name(obj)
                )))
            }
            OptionKind::Opening if obj.is_none() => default(),
            OptionKind::Opening => opening_text(obj)?,
            OptionKind::Opponent if obj.is_none() => "self".into(),
            OptionKind::Opponent => opponent_text(obj)?,
            OptionKind::Dtype => dtype_text(obj)?,
        })
    }

    /// The Python value of an option's text form (what `Batch` pickles, `EnvSpec` holds and
    /// `env_options()` reports as defaults).
    pub(crate) fn value_of<'py>(
        py: Python<'py>,
        kind: OptionKind,
        text: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let int = |t: &str| -> PyResult<Bound<'py, PyAny>> {
            let v: u64 = t
                .parse()
                .map_err(|_| PyValueError::new_err(format!("not an integer: '{t}'")))?;
            Ok(v.into_pyobject(py)?.into_any())
        };
        Ok(match kind {
            OptionKind::Int { .. } | OptionKind::Seed => int(text)?,
            OptionKind::OptStr if text == "none" => py.None().into_bound(py),
            OptionKind::Bool => pyo3::types::PyBool::new(py, text == "true")
                .to_owned()
                .into_any(),
            OptionKind::Opening => match text.split_once("..") {
                Some((lo, hi)) => PyTuple::new(py, [int(lo)?, int(hi)?])?.into_any(),
                None => int(text)?,
            },
            _ => PyString::new(py, text).into_any(),
        })
    }

    /// The Python type an option takes, for the generated docs and signatures.
    pub(super) fn annotation(opt: &OptionDef) -> String {
        let literal = || {
            let c: Vec<String> = opt.choices.iter().map(|c| format!("'{c}'")).collect();
            format!("Literal[{}]", c.join(", "))
        };
        match opt.kind {
            OptionKind::Rules => "Union[str, Rules]".into(),
            OptionKind::Int { .. } | OptionKind::Seed => "Optional[int]".into(),
            OptionKind::Str if !opt.choices.is_empty() => literal(),
            OptionKind::Str => "str".into(),
            OptionKind::OptStr if !opt.choices.is_empty() => format!("Optional[{}]", literal()),
            OptionKind::OptStr => "Optional[str]".into(),
            OptionKind::Bool => "bool".into(),
            OptionKind::Opening => "Union[int, tuple[int, int], None]".into(),
            OptionKind::Opponent => {
                "Union[str, Sequence[str], Callable[[State], int], None]".into()
            }
            OptionKind::Dtype => "Union[Literal['float32', 'uint8'], numpy.dtype]".into(),
        }
    }

    fn opening_text(obj: &Bound<'_, PyAny>) -> PyResult<String> {
        if let Ok(t) = obj.cast::<PyTuple>() {
            if t.len() == 2 {
                let lo = int_in(&t.get_item(0)?, "opening min plies", 0, u32::MAX as i64)?;
                let hi = int_in(&t.get_item(1)?, "opening max plies", 0, u32::MAX as i64)?;
                return Ok(format!("{lo}..{hi}"));
            }
            return Err(PyValueError::new_err(
                "opening must be a number of plies or a (min, max) pair",
            ));
        }
        Ok(int_in(obj, "opening", 0, u32::MAX as i64)?.to_string())
    }

    fn dtype_text(obj: &Bound<'_, PyAny>) -> PyResult<String> {
        let bad = || {
            Ok::<_, PyErr>(PyValueError::new_err(format!(
                "observation dtype must be 'float32' or 'uint8', got {}",
                obj.repr()?
            )))
        };
        if let Ok(s) = obj.cast::<PyString>() {
            let s = s.to_cow()?;
            if s.parse::<ObsDtype>().is_ok() {
                return Ok(s.into_owned());
            }
        }
        // Any NumPy dtype-like (np.uint8, np.dtype("f4"), "single").
        let numpy = obj.py().import("numpy")?;
        match numpy.getattr("dtype")?.call1((obj,)) {
            Ok(d) => Ok(d.getattr("name")?.extract::<String>()?),
            Err(_) => Err(bad()?),
        }
    }

    /// A string, a league (a list or tuple of strings, as `league:a|b`), or an error; callables
    /// are taken before.
    fn opponent_text(o: &Bound<'_, PyAny>) -> PyResult<String> {
        if let Ok(text) = o.cast::<PyString>() {
            return Ok(text.to_cow()?.into_owned());
        }
        if o.cast::<PyList>().is_ok() || o.cast::<PyTuple>().is_ok() {
            // A league: one member drawn per episode.
            let mut names = Vec::new();
            for (i, m) in o.try_iter()?.enumerate() {
                let m = m?;
                match m.cast::<PyString>() {
                    Ok(t) => names.push(t.to_cow()?.into_owned()),
                    Err(_) => {
                        return Err(PyTypeError::new_err(format!(
                            "a league's members are names or agent specs (strings); member {i} \
                             is {}",
                            type_name(&m)
                        )))
                    }
                }
            }
            if names.is_empty() {
                return Err(PyValueError::new_err(
                    "a league needs 1 to 255 members, got an empty list",
                ));
            }
            if names.iter().any(|n| n.contains('|')) {
                return Err(PyValueError::new_err(
                    "a league member's spec cannot contain '|'",
                ));
            }
            return Ok(format!("league:{}", names.join("|")));
        }
        Err(PyTypeError::new_err(format!(
            "opponent must be a name ('self', 'random', 'capture', 'greedy'), an agent spec such \
             as 'alphabeta:depth=2', a list of those (a league: one drawn per episode), or an \
             agent (a function of a State returning a house, or an object with select(state)); \
             got {}",
            type_name(o)
        )))
    }
}

/// Reads options given by keyword through the table: every option `flavour` takes starts at
/// the flavour's default and is read, in table order (rules before the opponent), from
/// `given`; a key the flavour does not take is a `TypeError` naming it, as Python's own.
/// Returns the configuration and the opponent when it is a Python agent.
pub(crate) fn read_options(
    flavour: &str,
    owner: &str,
    given: &[(String, Bound<'_, PyAny>)],
) -> PyResult<(EnvConfig, Option<Arc<CallablePolicy>>)> {
    for (key, _) in given {
        if !find_option(key).is_some_and(|o| o.takes(flavour)) {
            return Err(PyTypeError::new_err(format!(
                "{owner}() got an unexpected keyword argument '{key}'"
            )));
        }
    }
    let registry = crate::agent_kinds::available();
    let mut cfg = EnvConfig::default();
    let mut callable = None;
    for opt in OPTIONS.iter().filter(|o| o.takes(flavour)) {
        let value = given.iter().find(|(k, _)| k == opt.key).map(|(_, v)| v);
        match (opt.kind, value) {
            (OptionKind::Rules, Some(v)) if !v.is_none() => cfg.batch.rules = rules_arg(v)?,
            // An `awale.Agent` plays as its spec (in Rust, no GIL); any other Python agent
            // through the GIL.
            (OptionKind::Opponent, Some(v)) if v.cast::<super::agent::PyAgent>().is_ok() => {
                let spec = v.cast::<super::agent::PyAgent>()?.get().spec.to_string();
                (opt.parse)(&mut cfg, &spec, &registry).map_err(value_error)?;
            }
            (OptionKind::Opponent, Some(v)) if !v.is_none() => match py_agent::form_of(v)? {
                Some(form) => {
                    let policy = Arc::new(CallablePolicy::new(v, form));
                    cfg.batch.opponent = Opponent::Policy(policy.clone());
                    callable = Some(policy);
                }
                None => {
                    let text = kinds::text_of(opt, v, flavour)?;
                    (opt.parse)(&mut cfg, &text, &registry).map_err(value_error)?;
                }
            },
            (_, Some(v)) => {
                let text = kinds::text_of(opt, v, flavour)?;
                (opt.parse)(&mut cfg, &text, &registry).map_err(value_error)?;
            }
            (_, None) if opt.default_for(flavour) != opt.default => {
                (opt.parse)(&mut cfg, opt.default_for(flavour), &registry).map_err(value_error)?;
            }
            (_, None) => {}
        }
    }
    Ok((cfg, callable))
}

/// The `(key, value)` pairs of a dict with string keys.
pub(crate) fn dict_pairs<'py>(
    d: Option<&Bound<'py, PyDict>>,
) -> PyResult<Vec<(String, Bound<'py, PyAny>)>> {
    let mut out = Vec::new();
    if let Some(d) = d {
        for (k, v) in d.iter() {
            let key = k.cast::<PyString>().map_err(|_| {
                PyTypeError::new_err(format!("option names are str, got {}", type_name(&k)))
            })?;
            out.push((key.to_cow()?.into_owned(), v));
        }
    }
    Ok(out)
}

/// One option of the table, as Python sees it (`awale._core.env_options()`).
#[pyclass(name = "EnvOption", module = "awale._core", frozen, get_all)]
pub struct PyEnvOption {
    /// The keyword.
    key: &'static str,
    /// Its kind of value (`"int"`, `"str"`, `"opening"`, ...).
    kind: &'static str,
    /// The Python type it takes, as text (for docs and signatures).
    annotation: String,
    /// `Batch`'s default.
    default: Py<PyAny>,
    /// The environments' default.
    env_default: Py<PyAny>,
    /// The values it takes when they are a closed set.
    choices: Vec<&'static str>,
    /// The API flavours that take it: `"batch"`, `"env"`, `"vector"`, `"sb3"`, `"pettingzoo"`,
    /// `"rllib"`.
    flavours: Vec<&'static str>,
    /// One line for the docs.
    help: &'static str,
}

#[pymethods]
impl PyEnvOption {
    /// The default of `flavour`.
    fn default_for(&self, py: Python<'_>, flavour: &str) -> Py<PyAny> {
        if flavour == "batch" {
            self.default.clone_ref(py)
        } else {
            self.env_default.clone_ref(py)
        }
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "EnvOption('{}', {}, default={})",
            self.key,
            self.kind,
            self.default.bind(py).repr()?
        ))
    }
}

/// The option table: every option of `Batch` and of the environments, in table order.
#[pyfunction]
pub(crate) fn env_options(py: Python<'_>) -> PyResult<Vec<PyEnvOption>> {
    OPTIONS
        .iter()
        .map(|o| {
            Ok(PyEnvOption {
                key: o.key,
                kind: o.kind.name(),
                annotation: kinds::annotation(o),
                default: kinds::value_of(py, o.kind, o.default)?.unbind(),
                env_default: kinds::value_of(py, o.kind, o.default_for("env"))?.unbind(),
                choices: o.choices.to_vec(),
                flavours: o.flavours.to_vec(),
                help: o.help,
            })
        })
        .collect()
}

/// Checks environment settings through the table (types, values, and what the batch checks
/// across them) and returns them normalised: `rules` a `Rules`, the other values as the table
/// writes them, the opponent as given (a list as a tuple). `TypeError` for a value of the wrong
/// type or an unknown key, `ValueError` for a bad value.
#[pyfunction]
#[pyo3(signature = (values, flavour = "spec"))]
pub(crate) fn check_env_options<'py>(
    py: Python<'py>,
    values: &Bound<'py, PyDict>,
    flavour: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let given = dict_pairs(Some(values))?;
    let (cfg, _callable) = read_options(flavour, "EnvSpec", &given)?;
    cfg.validate().map_err(value_error)?;
    let out = PyDict::new(py);
    for (key, v) in &given {
        let opt = find_option(key).expect("read_options checked the keys");
        let value = match opt.kind {
            OptionKind::Rules => PyRules {
                inner: cfg.batch.rules,
            }
            .into_pyobject(py)?
            .into_any(),
            OptionKind::Opponent if v.cast::<PyList>().is_ok() => {
                PyTuple::new(py, v.try_iter()?.collect::<PyResult<Vec<_>>>()?)?.into_any()
            }
            OptionKind::Opponent => v.clone(),
            kind => kinds::value_of(py, kind, &(opt.print)(&cfg))?,
        };
        out.set_item(key, value)?;
    }
    Ok(out)
}

/// One board's spaces, as the Python layer builds its Gymnasium spaces from them
/// (`awale._core.env_spaces()`, `Batch.spaces`): the observation spec
/// ([`crate::batch::ObsSpec`]: shape, element type, every value's bounds) and the action spec
/// (the number of actions; the legal-action mask has one `int8` 0/1 per action).
#[pyclass(name = "EnvSpaces", module = "awale._core", frozen, get_all)]
pub struct PyEnvSpaces {
    /// `(dim,)`.
    obs_shape: (usize,),
    /// `"float32"` or `"uint8"`.
    obs_dtype: &'static str,
    /// The least value of each element, an array of `obs_dtype`.
    obs_low: Py<PyAny>,
    /// The greatest value of each element, an array of `obs_dtype`.
    obs_high: Py<PyAny>,
    /// The number of actions (houses of a row).
    n_actions: usize,
}

impl PyEnvSpaces {
    /// The spaces of `cfg` (an error where they do not exist: see [`EnvConfig::spaces`]).
    pub(crate) fn of(py: Python<'_>, cfg: &EnvConfig) -> PyResult<PyEnvSpaces> {
        let (obs, act) = cfg.spaces().map_err(value_error)?;
        let array = |v: &[f32]| -> Py<PyAny> {
            match obs.dtype {
                ObsDtype::Float32 => PyArray1::from_slice(py, v).into_any().unbind(),
                ObsDtype::Uint8 => {
                    // Raw counts and slots: whole numbers up to 255 (`Rules::validate`).
                    let u: Vec<u8> = v.iter().map(|&x| x as u8).collect();
                    PyArray1::from_vec(py, u).into_any().unbind()
                }
            }
        };
        Ok(PyEnvSpaces {
            obs_shape: (obs.dim(),),
            obs_dtype: obs.dtype.name(),
            obs_low: array(&obs.low),
            obs_high: array(&obs.high),
            n_actions: act.n,
        })
    }
}

#[pymethods]
impl PyEnvSpaces {
    fn __repr__(&self) -> String {
        format!(
            "EnvSpaces(obs_shape={:?}, obs_dtype='{}', n_actions={})",
            self.obs_shape, self.obs_dtype, self.n_actions
        )
    }
}

/// One board's spaces under the options that shape them (`rules`, `obs`, `obs_scale`,
/// `obs_dtype`, read through the table with `Batch`'s defaults): `TypeError` for another key or
/// a value of the wrong type, `ValueError` for a bad value (`obs_scale="network"` with
/// `obs_dtype="uint8"`).
#[pyfunction]
#[pyo3(signature = (**options))]
pub(crate) fn env_spaces(
    py: Python<'_>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<PyEnvSpaces> {
    let given = dict_pairs(options)?;
    for (key, _) in &given {
        if !SPACE_OPTIONS.contains(&key.as_str()) {
            return Err(PyTypeError::new_err(format!(
                "env_spaces() got an unexpected keyword argument '{key}' (it takes {})",
                SPACE_OPTIONS.join(", ")
            )));
        }
    }
    let (cfg, _) = read_options("batch", "env_spaces", &given)?;
    cfg.validate().map_err(value_error)?;
    PyEnvSpaces::of(py, &cfg)
}

/// Adds the option table's class and functions to `awale._core`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyEnvOption>()?;
    m.add_function(wrap_pyfunction!(env_options, m)?)?;
    m.add_function(wrap_pyfunction!(check_env_options, m)?)?;
    m.add_class::<PyEnvSpaces>()?;
    m.add_function(wrap_pyfunction!(env_spaces, m)?)?;
    Ok(())
}
