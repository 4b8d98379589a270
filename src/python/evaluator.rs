//! What guides a search from Python: a Python callable `evaluate(obs, mask) -> (logits, values)`
//! as a [`LeafEvaluator`], or one of the built-in evaluators (`awale.Network`, `"uniform"`,
//! `"playout"`), read from the `evaluate` argument of `awale.search`, `awale.SelfPlay` and
//! `awale.SearchAgent`.
//!
//! The callable gets the leaves of a batch as `obs: float32[N, D]` (the encoding seen by the
//! player to move, times the network's input scales unless `obs_scale="raw"`) and `mask:
//! bool[N, A]` (the legal houses), and returns `logits: float[N, A]` (illegal entries are ignored;
//! they may be `-inf`) and `values: float[N]` (two players: the mover's), `float[N, 1]` or
//! `float[N, players]` (every player's, the mover first, then the next players in turn order),
//! in [-1, 1]. NumPy arrays, or anything `numpy.asarray` reads (a CPU tensor). A wrong shape
//! or dtype, a NaN or an infinity where it counts, or a value outside [-1, 1] is a
//! `ValueError`/`TypeError` naming the array and what was expected; an exception of the
//! callable goes through as it is. After a failure the evaluator says it has stopped
//! ([`LeafEvaluator::stopped`]) and is never called again; the driving loop then raises.
//! Ctrl-C is checked before each call.

use std::sync::{Arc, Mutex};

use numpy::{PyArray1, PyArrayDescrMethods, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;

use super::type_name;
use crate::az::network::{encode_batch, evaluations_from_outputs, value_outputs};
use crate::batch::{input_scale, ObsEncoding, ObsScale};
use crate::rules::Rules;
use crate::search::{Evaluation, LeafEvaluator, UniformEvaluator};
use crate::state::State;

/// The `evaluate` argument, read.
pub(crate) enum EvaluatorArg {
    /// A Python callable `(obs, mask) -> (logits, values)`.
    Python {
        func: Arc<Py<PyAny>>,
        encoding: ObsEncoding,
        scale: ObsScale,
        /// Held around each call unless the callable declares `thread_safe = True`.
        serial: Option<Arc<Mutex<()>>>,
    },
    /// A trained network, run in Rust.
    #[cfg(feature = "train")]
    Network(Arc<crate::network::NetCore>),
    /// Equal logits, values 0.
    Uniform,
    /// Equal logits, the value of one random playout.
    Playout { plies: u32 },
}

impl EvaluatorArg {
    /// Reads `evaluate` for positions of `rules` (None: any rules, a network's checked later):
    /// a callable, an `awale.Network`, `"uniform"` or `"playout"`. `encoding` and `obs_scale`
    /// are the callable's input (a network refuses an `encoding` other than its own).
    #[cfg_attr(not(feature = "train"), allow(unused_variables))]
    pub(crate) fn read(
        obj: &Bound<'_, PyAny>,
        rules: Option<&Rules>,
        encoding: Option<&str>,
        obs_scale: &str,
    ) -> PyResult<EvaluatorArg> {
        let scale: ObsScale = obs_scale
            .parse()
            .map_err(|e: crate::AwaleError| PyValueError::new_err(format!("obs_scale: {e}")))?;
        #[cfg(feature = "train")]
        if let Ok(net) = obj.cast::<super::network::PyNetwork>() {
            let core = net.get().core();
            if let Some(rules) = rules.filter(|r| !core.plays(r)) {
                return Err(PyValueError::new_err(format!(
                    "the network plays {}, not {rules}",
                    core.rules
                )));
            }
            if let Some(e) = encoding {
                if e.parse::<ObsEncoding>().ok() != Some(core.encoding) {
                    return Err(PyValueError::new_err(format!(
                        "encoding '{e}' given with a network whose input is '{}' (leave it out)",
                        core.encoding
                    )));
                }
            }
            return Ok(EvaluatorArg::Network(core));
        }
        if let Ok(s) = obj.cast::<PyString>() {
            let s = s.to_cow()?;
            return match s.as_ref() {
                "uniform" => Ok(EvaluatorArg::Uniform),
                "playout" => Ok(EvaluatorArg::Playout { plies: 300 }),
                other => Err(PyValueError::new_err(format!(
                    "evaluate '{other}' is not a built-in evaluator ('uniform', 'playout'); pass \
                     a callable (obs, mask) -> (logits, values) or an awale.Network"
                ))),
            };
        }
        if !obj.is_callable() {
            return Err(PyTypeError::new_err(format!(
                "evaluate must be a callable (obs, mask) -> (logits, values), an awale.Network, \
                 'uniform' or 'playout'; got {}",
                type_name(obj)
            )));
        }
        let encoding: ObsEncoding = encoding
            .unwrap_or("compact")
            .parse()
            .map_err(|e: crate::AwaleError| PyValueError::new_err(format!("encoding: {e}")))?;
        let serial = (!thread_safe(obj)?).then(|| Arc::new(Mutex::new(())));
        Ok(EvaluatorArg::Python {
            func: Arc::new(obj.clone().unbind()),
            encoding,
            scale,
            serial,
        })
    }

    /// The encoding and scales of the positions a sample's observation is written in: the
    /// callable's or the network's input (compact, network scale, for the built-in ones).
    pub(crate) fn input(&self, rules: &Rules) -> (ObsEncoding, Vec<f32>) {
        match self {
            EvaluatorArg::Python {
                encoding, scale, ..
            } => (*encoding, scales(rules, *encoding, *scale)),
            #[cfg(feature = "train")]
            EvaluatorArg::Network(core) => (core.encoding, core.scale.clone()),
            _ => (
                ObsEncoding::Compact,
                input_scale(rules, ObsEncoding::Compact),
            ),
        }
    }

    /// A fresh evaluator for positions of `rules` (one per thread), seeded by `seed` where it
    /// draws; every evaluator made from one argument shares `failure`.
    pub(crate) fn make(
        &self,
        rules: &Rules,
        seed: u64,
        failure: &Failure,
    ) -> Box<dyn LeafEvaluator + Send> {
        match self {
            EvaluatorArg::Python {
                func,
                encoding,
                scale,
                serial,
            } => Box::new(PyEvaluator {
                func: func.clone(),
                serial: serial.clone(),
                rules: *rules,
                encoding: *encoding,
                scale: scales(rules, *encoding, *scale),
                features: Vec::new(),
                legal: Vec::new(),
                failure: failure.clone(),
            }),
            #[cfg(feature = "train")]
            EvaluatorArg::Network(core) => Box::new(OwnedNetwork {
                core: core.clone(),
                features: Vec::new(),
            }),
            EvaluatorArg::Uniform => Box::new(UniformEvaluator),
            EvaluatorArg::Playout { plies } => {
                Box::new(crate::agents::PlayoutEvaluator::new(*rules, *plies, seed))
            }
        }
    }

    /// Whether several threads may evaluate at once: a callable that declares itself
    /// `thread_safe`, and every built-in evaluator.
    pub(crate) fn thread_safe(&self) -> bool {
        match self {
            EvaluatorArg::Python { serial, .. } => serial.is_none(),
            _ => true,
        }
    }

    /// A name for messages and agent names.
    pub(crate) fn name(&self, py: Python<'_>) -> String {
        match self {
            EvaluatorArg::Python { func, .. } => func
                .bind(py)
                .getattr("__qualname__")
                .and_then(|q| q.extract::<String>())
                .unwrap_or_else(|_| type_name(func.bind(py))),
            #[cfg(feature = "train")]
            EvaluatorArg::Network(_) => "network".into(),
            EvaluatorArg::Uniform => "uniform".into(),
            EvaluatorArg::Playout { .. } => "playout".into(),
        }
    }
}

/// Whether a callable declares itself safe to call from several threads at once (an attribute
/// `thread_safe` that is `True`).
pub(crate) fn thread_safe(func: &Bound<'_, PyAny>) -> PyResult<bool> {
    if !func.hasattr("thread_safe")? {
        return Ok(false);
    }
    let v = func.getattr("thread_safe")?;
    if !v.is_instance_of::<pyo3::types::PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "evaluate's thread_safe attribute must be True or False, got {}",
            type_name(&v)
        )));
    }
    v.is_truthy()
}

/// The scales of an encoding: the network's input scales, or ones for raw values.
fn scales(rules: &Rules, encoding: ObsEncoding, scale: ObsScale) -> Vec<f32> {
    let s = input_scale(rules, encoding);
    match scale {
        ObsScale::Network => s,
        ObsScale::Raw => vec![1.0; s.len()],
    }
}

/// The first failure of the evaluators of one call, shared by them (one per thread).
#[derive(Clone, Default)]
pub(crate) struct Failure(Arc<Mutex<Option<PyErr>>>);

impl Failure {
    pub(crate) fn set(&self, e: PyErr) {
        let mut f = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if f.is_none() {
            *f = Some(e);
        }
    }

    pub(crate) fn is_set(&self) -> bool {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).is_some()
    }

    /// The failure, if any (and forgets it).
    pub(crate) fn take(&self) -> Option<PyErr> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

/// A network of the trainer as an evaluator that owns its reference (for threads).
#[cfg(feature = "train")]
struct OwnedNetwork {
    core: Arc<crate::network::NetCore>,
    features: Vec<f32>,
}

#[cfg(feature = "train")]
impl LeafEvaluator for OwnedNetwork {
    fn evaluate(&mut self, states: &[State], out: &mut Vec<Evaluation>) {
        self.core.evaluate(states, &mut self.features, out);
    }
}

/// A Python callable as a [`LeafEvaluator`] (see the [module docs](self)).
pub(crate) struct PyEvaluator {
    func: Arc<Py<PyAny>>,
    serial: Option<Arc<Mutex<()>>>,
    rules: Rules,
    encoding: ObsEncoding,
    scale: Vec<f32>,
    features: Vec<f32>,
    /// The legal moves of the leaves of a call.
    legal: Vec<u16>,
    failure: Failure,
}

impl LeafEvaluator for PyEvaluator {
    fn evaluate(&mut self, states: &[State], out: &mut Vec<Evaluation>) {
        out.clear();
        if states.is_empty() {
            return;
        }
        if !self.failure.is_set() {
            // Taken before the GIL (never the other way round).
            let serial = self.serial.clone();
            let _one_at_a_time = serial
                .as_ref()
                .map(|m| m.lock().unwrap_or_else(|e| e.into_inner()));
            let r = Python::attach(|py| self.call(py, states, out));
            if let Err(e) = r {
                self.failure.set(e);
            }
        }
        if out.len() != states.len() {
            out.clear();
            out.resize(states.len(), Evaluation::default());
        }
    }

    fn stopped(&self) -> bool {
        self.failure.is_set()
    }
}

impl PyEvaluator {
    fn call(
        &mut self,
        py: Python<'_>,
        states: &[State],
        out: &mut Vec<Evaluation>,
    ) -> PyResult<()> {
        py.check_signals()?;
        let (n, h) = (states.len(), self.rules.houses as usize);
        let dim = self.scale.len();
        encode_batch(
            &self.rules,
            self.encoding,
            &self.scale,
            states,
            &mut self.features,
        );
        let obs = PyArray1::from_slice(py, &self.features).reshape([n, dim])?;
        // Each leaf's legal moves once, for the mask and for the outputs' check.
        self.legal.clear();
        self.legal
            .extend(states.iter().map(|s| s.legal_mask(&self.rules)));
        let mut mask = Vec::with_capacity(n * h);
        for &legal in &self.legal {
            mask.extend((0..h).map(|a| legal >> a & 1 == 1));
        }
        let mask = PyArray1::from_vec(py, mask).reshape([n, h])?;
        let ret = self.func.bind(py).call1((obs, mask))?;
        let (logits, values) = read_outputs(py, &ret, &self.rules, &self.legal)?;
        evaluations_from_outputs(&self.rules, states, &logits, &values, out);
        Ok(())
    }
}

/// Reads the callable's `(logits, values)` for positions whose legal moves are `legal` (one
/// mask a position): checked, as flat float32 rows (`values` one per row for two players, else
/// one per player).
pub(crate) fn read_outputs(
    py: Python<'_>,
    ret: &Bound<'_, PyAny>,
    rules: &Rules,
    legal: &[u16],
) -> PyResult<(Vec<f32>, Vec<f32>)> {
    let (n, h, p) = (legal.len(), rules.houses as usize, rules.players as usize);
    let pair: Vec<Bound<'_, PyAny>> = match ret.cast::<pyo3::types::PyTuple>() {
        Ok(t) if t.len() == 2 => t.iter().collect(),
        _ => match ret.cast::<pyo3::types::PyList>() {
            Ok(l) if l.len() == 2 => l.iter().collect(),
            _ => {
                return Err(PyTypeError::new_err(format!(
                    "evaluate must return a pair (logits, values), got {}",
                    type_name(ret)
                )))
            }
        },
    };
    let logits = float_array(py, &pair[0], "logits", &format!("({n}, {h})"))?;
    let values = float_array(py, &pair[1], "values", &values_shapes(n, p))?;
    let ls = logits.shape().to_vec();
    if ls != [n, h] {
        return Err(PyValueError::new_err(format!(
            "evaluate returned logits of shape {}: expected ({n}, {h}) for {n} positions of \
             {h} houses",
            shape_text(&ls)
        )));
    }
    let vs = values.shape().to_vec();
    let two = p == 2;
    let ok = (two && (vs == [n] || vs == [n, 1])) || vs == [n, p];
    if !ok {
        return Err(PyValueError::new_err(format!(
            "evaluate returned values of shape {}: expected {}",
            shape_text(&vs),
            values_shapes(n, p)
        )));
    }
    let mut logits = flat(&logits)?;
    let mut values = flat(&values)?;
    // Legal entries must be finite; illegal ones are ignored whatever they hold (NaN, ±inf),
    // and set to -inf so that nothing downstream reads them.
    for (i, &legal) in legal.iter().enumerate() {
        for a in 0..h {
            let x = &mut logits[i * h + a];
            if legal >> a & 1 == 0 {
                *x = f32::NEG_INFINITY;
            } else if !x.is_finite() {
                let moves: Vec<usize> = (0..h).filter(|m| legal >> m & 1 == 1).collect();
                return Err(PyValueError::new_err(format!(
                    "evaluate returned logits[{i}, {a}] = {x}: logits must be finite at legal \
                     actions (position {i}'s legal actions: {moves:?}; illegal entries are \
                     ignored)"
                )));
            }
        }
    }
    if let Some(k) = values.iter().position(|v| !(-1.0..=1.0).contains(v)) {
        let nv = values.len() / n.max(1);
        return Err(PyValueError::new_err(format!(
            "evaluate returned values[{}{}] = {}: values must be finite and in [-1, 1]",
            k / nv.max(1),
            if vs.len() == 2 {
                format!(", {}", k % nv.max(1))
            } else {
                String::new()
            },
            values[k]
        )));
    }
    // Two players with every player's value: the mover's column is the network's one output.
    if two && vs == [n, 2] {
        values = values.chunks_exact(2).map(|r| r[0]).collect();
    }
    debug_assert_eq!(values.len(), n * value_outputs(rules));
    Ok((logits, values))
}

fn values_shapes(n: usize, p: usize) -> String {
    if p == 2 {
        format!("({n},), ({n}, 1) or ({n}, 2) (the mover's value first)")
    } else {
        format!("({n}, {p}) (every player's value, the mover first)")
    }
}

fn shape_text(s: &[usize]) -> String {
    match s {
        [a] => format!("({a},)"),
        _ => format!(
            "({})",
            s.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// `obj` as a NumPy array of a floating dtype (read by `numpy.asarray`), or a `TypeError`
/// naming `what` and the `expected` shape.
fn float_array<'py>(
    py: Python<'py>,
    obj: &Bound<'py, PyAny>,
    what: &str,
    expected: &str,
) -> PyResult<Bound<'py, PyUntypedArray>> {
    let np = py.import("numpy")?;
    let arr = np.call_method1("asarray", (obj,))?;
    let arr = arr.cast_into::<PyUntypedArray>().map_err(|_| {
        PyTypeError::new_err(format!(
            "evaluate returned {what} that numpy.asarray does not make an array of; expected a \
             float array of shape {expected}"
        ))
    })?;
    let kind = arr.dtype().kind();
    if kind != b'f' {
        return Err(PyTypeError::new_err(format!(
            "evaluate returned {what} of dtype {}: expected a float array (float32 or float64) \
             of shape {expected}",
            arr.dtype().str()?
        )));
    }
    Ok(arr)
}

/// The values of a float array, in C order, as f32.
fn flat(arr: &Bound<'_, PyUntypedArray>) -> PyResult<Vec<f32>> {
    // A C-contiguous float32 array (a network's usual output) is read as it is.
    if let Ok(f) = arr.cast::<numpy::PyArrayDyn<f32>>() {
        let ro = f.readonly();
        if let Ok(s) = ro.as_slice() {
            return Ok(s.to_vec());
        }
    }
    let f = arr.call_method1("astype", ("float32",))?;
    let f = f.cast_into::<numpy::PyArrayDyn<f32>>().map_err(|_| {
        PyTypeError::new_err("internal: astype('float32') did not give a float32 array")
    })?;
    let ro = f.readonly();
    Ok(match ro.as_slice() {
        Ok(s) => s.to_vec(),
        Err(_) => ro.as_array().iter().copied().collect(),
    })
}
