//! `awale.Network`: a trained network from Python. Loads a checkpoint, a generation or a
//! safetensors network; `predict` runs the Rust inference on a NumPy batch with the GIL
//! released; `encode` writes positions in the network's own input (encoding × input scales);
//! `export_safetensors` writes the weights for PyTorch (`awale.torch.network`). Types are
//! converted here; the network is `awale::network::NetCore` and the file format
//! `awale::network::export`.

use std::path::PathBuf;

#[cfg(feature = "train")]
use numpy::{PyArray1, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
#[cfg(feature = "train")]
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

#[cfg(feature = "train")]
use super::{game::PyState, type_name, PyRules};

/// A trained policy/value network (needs the extension's trainer, cargo feature `train`).
#[pyclass(name = "Network", module = "awale._core", frozen)]
#[cfg_attr(not(feature = "train"), allow(dead_code))]
pub struct PyNetwork {
    #[cfg(feature = "train")]
    core: std::sync::Arc<crate::network::NetCore>,
    path: PathBuf,
}

#[cfg(feature = "train")]
/// Reads `obs` as a `float32` array (any memory layout) of 1 or 2 dimensions whose last dimension is
/// `dim`: its values and the number of rows (None for a single 1-D row).
fn features(obs: &Bound<'_, PyAny>, dim: usize) -> PyResult<(Vec<f32>, Option<usize>)> {
    let arr = obs.cast::<PyUntypedArray>().map_err(|_| {
        PyTypeError::new_err(format!(
            "observations must be a NumPy float32 array of shape (batch, {dim}) or ({dim},), got {}",
            type_name(obs)
        ))
    })?;
    let dtype = arr.dtype().str()?.to_string();
    let arr = arr.cast::<numpy::PyArrayDyn<f32>>().map_err(|_| {
        PyTypeError::new_err(format!(
            "observations must be float32 (the network's input, e.g. from Network.encode or an env \
             with obs_scale='network'), got dtype {dtype}; convert with .astype(numpy.float32)"
        ))
    })?;
    let shape = arr.shape().to_vec();
    let rows = match shape.as_slice() {
        [d] if *d == dim => None,
        [b, d] if *d == dim => Some(*b),
        _ => {
            return Err(PyValueError::new_err(format!(
                "observations of shape {shape:?}: the network takes (batch, {dim}) or ({dim},)"
            )))
        }
    };
    let ro = arr.readonly();
    let v = ro.as_slice().map(|s| s.to_vec()).or_else(|_| {
        // A non-contiguous view: copied in order.
        Ok::<_, PyErr>(ro.as_array().iter().copied().collect())
    })?;
    if let Some(i) = v.iter().position(|x| !x.is_finite()) {
        return Err(PyValueError::new_err(format!(
            "observations hold a non-finite value ({}) at flat index {i}",
            v[i]
        )));
    }
    Ok((v, rows))
}

/// Reads a State or a sequence of States: their rules and positions, and whether it was one.
#[cfg(feature = "train")]
fn states_arg(obj: &Bound<'_, PyAny>) -> PyResult<(Vec<(crate::Rules, crate::State)>, bool)> {
    let one = |o: &Bound<'_, PyAny>| -> PyResult<(crate::Rules, crate::State)> {
        let s = o.cast::<PyState>().map_err(|_| {
            PyTypeError::new_err(format!(
                "states must be an awale.State or a sequence of them, got {}",
                type_name(o)
            ))
        })?;
        let s = s.borrow();
        Ok((s.rules, s.state))
    };
    if obj.cast::<PyState>().is_ok() {
        return Ok((vec![one(obj)?], true));
    }
    if obj.is_instance_of::<pyo3::types::PyString>() {
        return Err(PyTypeError::new_err(
            "states must be an awale.State or a sequence of them, got str",
        ));
    }
    let items = obj.try_iter().map_err(|_| {
        PyTypeError::new_err(format!(
            "states must be an awale.State or a sequence of them, got {}",
            type_name(obj)
        ))
    })?;
    let mut out = Vec::new();
    for item in items {
        out.push(one(&item?)?);
    }
    Ok((out, false))
}

/// Why a network file could not be loaded, naming the file: a missing file is a
/// `FileNotFoundError` (errno, message and `.filename` set), another read error an `OSError`, a
/// file that is no network (bad magic bytes, a cut-off or corrupt checkpoint) a `TrainingError`,
/// a bad config inside it a `ConfigError`.
#[cfg(feature = "train")]
fn load_error(path: &std::path::Path, e: crate::az::TrainError) -> PyErr {
    use crate::az::TrainError;
    let name = path.display().to_string();
    match e {
        TrainError::Io { .. } if !path.exists() => {
            pyo3::exceptions::PyFileNotFoundError::new_err((
                2, // ENOENT
                "no such network file (awale.Network reads a checkpoint, a generation or a \
                 safetensors file)",
                name,
            ))
        }
        e @ (TrainError::Io { .. } | TrainError::Game(_)) => super::trainer::train_error(e),
        TrainError::Config(m) => with_path(
            super::trainer::train_error(TrainError::Config(format!("{name}: {m}"))),
            name,
        ),
        other => {
            let message = format!(
                "{name}: {other} (awale.Network reads a checkpoint, a generation or a \
                 safetensors network)"
            );
            with_path(super::exceptions::TrainingError::new_err(message), name)
        }
    }
}

/// `err` with its `.path` (an `AwaleError`'s file attribute) set.
#[cfg(feature = "train")]
fn with_path(err: PyErr, path: String) -> PyErr {
    Python::attach(|py| {
        let _ = err.value(py).setattr("path", path);
    });
    err
}

#[cfg(feature = "train")]
impl PyNetwork {
    /// The network (shared).
    pub(crate) fn core(&self) -> std::sync::Arc<crate::network::NetCore> {
        self.core.clone()
    }
}

#[cfg(feature = "train")]
#[pymethods]
impl PyNetwork {
    /// Loads a network: a checkpoint of `awale train`, a generation
    /// (`RUN/generations/gen-NNNNNN.ckpt`) or a safetensors network (`export_safetensors`).
    #[new]
    fn new(py: Python<'_>, path: PathBuf) -> PyResult<PyNetwork> {
        let p = path.clone();
        let core = py
            .detach(move || crate::network::NetCore::load(&p))
            .map_err(|e| load_error(&path, e))?;
        Ok(PyNetwork {
            core: std::sync::Arc::new(core),
            path,
        })
    }

    /// A network shipped with awale, by name: a family (`"abapa"`: its latest version) or a
    /// version (`"abapa-v1"`). Its `path` is `baseline:NAME`; `awale.baselines()` lists them
    /// with their manifests. An unknown name raises ValueError listing the names.
    #[staticmethod]
    fn baseline(name: &str) -> PyResult<PyNetwork> {
        let b = crate::network::baseline::find(name)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let core = b.core().map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(PyNetwork {
            core,
            path: PathBuf::from(format!("baseline:{}", b.manifest.name)),
        })
    }

    /// The file it was loaded from.
    #[getter]
    fn path(&self) -> String {
        self.path.display().to_string()
    }

    /// Pickled by its path (a baseline by its name): unpickling loads the file again, which
    /// must be there (the same machine, or a shared folder for Ray's workers).
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let path = slf.get().path.display().to_string();
        match path.strip_prefix("baseline:") {
            Some(name) => Ok((slf.get_type().getattr("baseline")?, (name.to_string(),))),
            None => Ok((slf.get_type().into_any(), (path,))),
        }
    }

    /// The rules it plays.
    #[getter]
    fn rules(&self) -> PyRules {
        PyRules {
            inner: self.core.rules,
        }
    }

    /// Its observation encoding (`"compact"`, `"onehot:16"`, `"thermometer:16"`).
    #[getter]
    fn encoding(&self) -> String {
        self.core.encoding.to_string()
    }

    /// Input features per position.
    #[getter]
    fn input_dim(&self) -> usize {
        self.core.scale.len()
    }

    /// Hidden widths of its ReLU trunk.
    #[getter]
    fn hidden(&self) -> Vec<usize> {
        self.core.config.network.hidden.clone()
    }

    /// Policy logits per position: the mover's houses.
    #[getter]
    fn actions(&self) -> usize {
        self.core.rules.houses as usize
    }

    /// Value outputs per position: 1 for two players (the mover's), else one per player,
    /// mover first.
    #[getter]
    fn values(&self) -> usize {
        crate::az::network::value_outputs(&self.core.rules)
    }

    /// The per-feature scales between the raw encoding and the network's input.
    #[getter]
    fn input_scale<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f32>> {
        PyArray1::from_vec(py, self.core.scale.clone())
    }

    /// The training config it was trained under (TOML).
    #[getter]
    fn config(&self) -> String {
        self.core.config.to_toml()
    }

    /// How the network plays as an agent (`nn:path=FILE`, `nn:baseline=NAME`) unless the spec
    /// says otherwise: `{"sims": N, "search": "gumbel"|"puct"|"uct", "reuse_tree": bool,
    /// "from_file": bool}` (`reuse_tree`: the search keeps its tree from move to move). A
    /// baseline, or a file exported from one, carries its manifest's settings (`from_file`
    /// True); another network plays 64 simulations with its training config's `play_kind`.
    #[getter]
    fn play<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        let play = self.core.play();
        let d = pyo3::types::PyDict::new(py);
        d.set_item("sims", play.sims)?;
        d.set_item("search", play.search.name())?;
        d.set_item("reuse_tree", play.reuse_tree)?;
        d.set_item("from_file", self.core.play_settings.is_some())?;
        Ok(d)
    }

    /// The header a safetensors export carries (format, version, rules, encoding, shape,
    /// input scales) as a dict.
    fn header<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let text = serde_json::to_string(&crate::network::export::header(&self.core))
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        py.import("json")?.call_method1("loads", (text,))
    }

    /// Policy logits and values of a batch of network inputs.
    ///
    /// `observations`: `float32`, shape `(batch, input_dim)` (or `(input_dim,)` for one),
    /// as written by `encode` or an env with `obs=<encoding>, obs_scale="network"`. Returns
    /// `(logits, values)`: `(batch, actions)` raw logits over the mover's houses (illegal
    /// ones are not masked) and `(batch, values)` in (-1, 1), from the mover's point of view;
    /// 1-D for a 1-D input. The GIL is released while the network runs.
    fn predict<'py>(
        &self,
        py: Python<'py>,
        observations: &Bound<'py, PyAny>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        use crate::az::Network;
        let dim = self.core.scale.len();
        let (x, rows) = features(observations, dim)?;
        let batch = rows.unwrap_or(1);
        let (a, nv) = (self.actions(), self.values());
        let (mut logits, mut values) = (Vec::new(), Vec::new());
        if batch > 0 {
            let core = &self.core;
            py.detach(|| core.infer(&x, batch, &mut logits, &mut values));
        }
        if rows.is_none() {
            return Ok((
                PyArray1::from_vec(py, logits).into_any(),
                PyArray1::from_vec(py, values).into_any(),
            ));
        }
        let l = PyArray1::from_vec(py, logits).reshape([batch, a])?;
        let v = PyArray1::from_vec(py, values).reshape([batch, nv])?;
        Ok((l.into_any(), v.into_any()))
    }

    /// The network's input for positions: a State gives `(input_dim,)`, a sequence of States
    /// `(len, input_dim)` (`float32`: the encoding, seen by the mover, times `input_scale`).
    /// States of another game are refused (options such as `max_plies` may differ).
    fn encode<'py>(
        &self,
        py: Python<'py>,
        states: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (states, single) = states_arg(states)?;
        let rules = self.core.rules;
        if let Some((r, _)) = states.iter().find(|(r, _)| !self.core.plays(r)) {
            return Err(PyValueError::new_err(format!(
                "a position of {r} given to a network of {rules}"
            )));
        }
        let plain: Vec<crate::State> = states.iter().map(|(_, s)| *s).collect();
        let mut out = Vec::new();
        crate::az::network::encode_batch(
            &rules,
            self.core.encoding,
            &self.core.scale,
            &plain,
            &mut out,
        );
        let arr = PyArray1::from_vec(py, out);
        if single {
            return Ok(arr.into_any());
        }
        Ok(arr
            .reshape([plain.len(), self.core.scale.len()])?
            .into_any())
    }

    /// Writes the network to `path` as safetensors: PyTorch's `nn.Linear` layout
    /// (`trunk.K.weight`, `policy.*`, `value.*`, `score.*`) with the header, the training
    /// config and its play settings (a baseline's: `play`) in its metadata. `awale.torch.network(path)` builds the module; the file plays as
    /// `nn:path=FILE` and loads back with `Network(path)`.
    fn export_safetensors(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let core = &self.core;
        py.detach(|| crate::network::export::write_safetensors(core, &path))
            .map_err(super::trainer::train_error)
    }

    fn __repr__(&self) -> String {
        format!(
            "Network('{}', rules='{}', encoding='{}', shape={}->{:?}->{}+{})",
            self.path.display(),
            self.core.rules,
            self.core.encoding,
            self.core.scale.len(),
            self.core.config.network.hidden,
            self.actions(),
            self.values()
        )
    }
}

#[cfg(not(feature = "train"))]
#[pymethods]
impl PyNetwork {
    /// Loads a network (this build has no trainer: raises NotImplementedError).
    #[new]
    fn new(path: PathBuf) -> PyResult<PyNetwork> {
        let _ = path;
        Err(super::trainer::no_trainer())
    }

    /// A shipped network (this build has no trainer: raises NotImplementedError).
    #[staticmethod]
    fn baseline(name: &str) -> PyResult<PyNetwork> {
        let _ = name;
        Err(super::trainer::no_trainer())
    }
}

/// The manifests of the shipped baseline networks, as JSON text (`awale.baselines`).
#[cfg(feature = "train")]
#[pyfunction]
pub(crate) fn baseline_manifests() -> PyResult<String> {
    let all: Vec<&crate::network::baseline::Manifest> = crate::network::baseline::all()
        .iter()
        .map(|b| &b.manifest)
        .collect();
    serde_json::to_string(&all).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The manifests of the shipped baselines (this build has no trainer: raises
/// NotImplementedError).
#[cfg(not(feature = "train"))]
#[pyfunction]
pub(crate) fn baseline_manifests() -> PyResult<String> {
    Err(super::trainer::no_trainer())
}

/// The header (JSON) and the training config (TOML) of a new network: `rules`, `encoding`,
/// `hidden` widths, on the trainer's defaults otherwise (`awale.torch.new_network` writes them
/// into the file, so the network it trains plays as `nn:path=FILE`).
#[cfg(feature = "train")]
#[pyfunction]
#[pyo3(signature = (rules, encoding = "onehot:16", hidden = vec![128, 128]))]
pub(crate) fn network_template(
    rules: &Bound<'_, PyAny>,
    encoding: &str,
    hidden: Vec<usize>,
) -> PyResult<(String, String)> {
    let rules = super::rules_arg(rules)?;
    let mut cfg = crate::az::TrainConfig {
        rules: rules.to_string(),
        ..Default::default()
    };
    cfg.network.observation = encoding.to_string();
    cfg.network.hidden = hidden;
    let (header, config) = crate::network::export::template(&cfg)
        .map_err(|e| super::exceptions::ConfigError::new_err(e.to_string()))?;
    let header =
        serde_json::to_string(&header).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok((header, config))
}

/// The header and config of a new network (this build has no trainer: raises
/// NotImplementedError).
#[cfg(not(feature = "train"))]
#[pyfunction]
#[pyo3(signature = (rules, encoding = "onehot:16", hidden = vec![128, 128]))]
pub(crate) fn network_template(
    rules: &Bound<'_, PyAny>,
    encoding: &str,
    hidden: Vec<usize>,
) -> PyResult<(String, String)> {
    let _ = (rules, encoding, hidden);
    Err(super::trainer::no_trainer())
}
