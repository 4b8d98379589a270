//! `awale.search`, `awale.SelfPlay` and `awale.SearchAgent`: the guided search of the Rust
//! trainer ([`crate::search`]) around any evaluator, a Python callable included (see
//! [`super::evaluator`]). The trees live in Rust ([`BatchSearch`], [`SelfPlay`]); the leaves of
//! every tree go to the evaluator in one batch per call; the GIL is released except while the
//! callable runs. Settings are the keys of the trainer's `[search]` (and, for self-play,
//! `[selfplay]`) config sections, read and checked by [`TrainConfig`] itself.

use std::time::{Duration, Instant};

use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyString};

use super::batch::PyBatch;
use super::evaluator::{EvaluatorArg, Failure};
use super::game::PyState;
use super::{exceptions, rules_arg, seed_arg, type_name};
use crate::az::config::{SearchConfig, SelfPlayConfig, TrainConfig};
use crate::az::network::encode_batch;
use crate::az::selfplay::{SelfPlay, SelfPlaySettings};
use crate::batch::ObsEncoding;
use crate::rules::Rules;
use crate::search::BatchSearch;
use crate::search::{
    check_sims, Evaluation, GuidedSearchResult, LeafEvaluator, SearchSettings, MAX_SIMS,
};
use crate::state::State;

/// Keys of `[search]` that belong to self-play only (`awale.search` takes `sims=`).
const SELF_PLAY_ONLY: [&str; 3] = ["sims", "fast_sims", "full_search_prob"];
/// Keys of `[selfplay]` that `awale.SelfPlay` takes.
const SELF_PLAY_KEYS: [&str; 6] = [
    "eval_batch",
    "max_plies",
    "temperature",
    "temperature_plies",
    "temperature_final",
    "random_opening_plies",
];
/// How often a long call checks for Ctrl-C.
const SIGNAL_CHECK: Duration = Duration::from_millis(200);

/// The keys of a config section, from its serialised defaults (one list, the config's own).
fn keys_of<T: serde::Serialize>(section: &T) -> Vec<String> {
    match serde_json::to_value(section) {
        Ok(serde_json::Value::Object(m)) => m.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

/// A Python value as a TOML value (bool, int, finite float or str), for a config key.
fn toml_value(key: &str, v: &Bound<'_, PyAny>) -> PyResult<toml::Value> {
    if v.is_instance_of::<PyBool>() {
        return Ok(toml::Value::Boolean(v.is_truthy()?));
    }
    if v.is_instance_of::<PyInt>() || (v.hasattr("__index__")? && !v.is_instance_of::<PyFloat>()) {
        let i: i64 = v.extract().map_err(|_| {
            PyValueError::new_err(format!(
                "{key}: {} is out of range",
                v.repr().map(|r| r.to_string()).unwrap_or_default()
            ))
        })?;
        return Ok(toml::Value::Integer(i));
    }
    if v.is_instance_of::<PyFloat>() {
        let f: f64 = v.extract()?;
        if !f.is_finite() {
            return Err(PyValueError::new_err(format!(
                "{key}: {f} is not a finite number"
            )));
        }
        return Ok(toml::Value::Float(f));
    }
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(toml::Value::String(s.to_cow()?.into_owned()));
    }
    Err(PyTypeError::new_err(format!(
        "{key} must be a bool, an int, a float or a str, got {}",
        type_name(v)
    )))
}

/// A training config with `options` (keyword arguments named as the keys of its `[search]`
/// section, and of `[selfplay]` and `search_value_mix` when `self_play`) set and checked.
fn config_with(
    rules: &Rules,
    options: Option<&Bound<'_, PyDict>>,
    self_play: bool,
) -> PyResult<TrainConfig> {
    let mut cfg = TrainConfig {
        rules: rules.to_string(),
        ..TrainConfig::default()
    };
    if !self_play {
        // The positions come with their rules: no ply limit of self-play's.
        cfg.selfplay.max_plies = 0;
    }
    let search_keys = keys_of(&SearchConfig::default());
    let selfplay_keys = keys_of(&SelfPlayConfig::default());
    let config_error = |m: String| exceptions::ConfigError::new_err(m);
    // The options go straight into the config's own tree of values, which is then deserialised
    // once: no text, so an error names the key and the reason, not a line of a TOML file.
    let mut doc = toml::Table::try_from(&cfg)
        .map_err(|e| config_error(format!("internal: the config as values: {e}")))?;
    let mut given: Vec<String> = Vec::new();
    if let Some(options) = options {
        for (k, v) in options.iter() {
            let key: String = k.extract()?;
            let section = if search_keys.contains(&key) {
                if !self_play && SELF_PLAY_ONLY.contains(&key.as_str()) {
                    return Err(config_error(format!(
                        "{key} is a self-play setting (awale.SelfPlay); awale.search takes sims="
                    )));
                }
                "search"
            } else if self_play && SELF_PLAY_KEYS.contains(&key.as_str()) {
                debug_assert!(selfplay_keys.contains(&key));
                "selfplay"
            } else if self_play && key == "search_value_mix" {
                "training"
            } else {
                let mut known: Vec<&str> = search_keys
                    .iter()
                    .map(String::as_str)
                    .filter(|k| self_play || !SELF_PLAY_ONLY.contains(k))
                    .collect();
                if self_play {
                    known.extend(SELF_PLAY_KEYS);
                    known.push("search_value_mix");
                }
                if let Some(new) = crate::az::config::renamed_key(&format!("search.{key}")) {
                    let new = new.trim_start_matches("search.");
                    return Err(config_error(format!("{key} is now called {new}")));
                }
                return Err(config_error(format!(
                    "unknown search option '{key}' (known: {})",
                    known.join(", ")
                )));
            };
            let value = toml_value(&key, &v)?;
            doc.entry(section)
                .or_insert_with(|| toml::Value::Table(toml::Table::new()))
                .as_table_mut()
                .ok_or_else(|| config_error(format!("internal: '{section}' is not a section")))?
                .insert(key.clone(), value);
            given.push(key);
        }
    }
    let cfg: TrainConfig = toml::Value::Table(doc)
        .try_into()
        .map_err(|e: toml::de::Error| {
            config_error(format!(
                "{} ({})",
                e.message().trim(),
                if given.len() == 1 {
                    format!("option {}", given[0])
                } else {
                    format!("options {}", given.join(", "))
                }
            ))
        })?;
    cfg.validate().map_err(|e| config_error(e.to_string()))?;
    Ok(cfg)
}

/// Reads positions: a State, a sequence of States, a `Batch` or a vector env (its boards).
fn states_arg(obj: &Bound<'_, PyAny>) -> PyResult<(Rules, Vec<State>)> {
    let wrong = |o: &Bound<'_, PyAny>| {
        PyTypeError::new_err(format!(
            "states must be an awale.State, a sequence of States, an awale.Batch or a vector env; \
             got {}",
            type_name(o)
        ))
    };
    if let Ok(s) = obj.cast::<PyState>() {
        let s = s.borrow();
        return Ok((s.rules, vec![s.state]));
    }
    let batch = if let Ok(b) = obj.cast::<PyBatch>() {
        Some(b.clone())
    } else if !obj.is_instance_of::<PyString>() && obj.hasattr("batch")? {
        obj.getattr("batch")?.cast_into::<PyBatch>().ok()
    } else {
        None
    };
    if let Some(b) = batch {
        let b = b.borrow();
        return Ok((b.board_rules(), b.board_states()));
    }
    if obj.is_instance_of::<PyString>() {
        return Err(wrong(obj));
    }
    let items = obj.try_iter().map_err(|_| wrong(obj))?;
    let mut rules = None;
    let mut out = Vec::new();
    for (i, item) in items.enumerate() {
        let item = item?;
        let s = item.cast::<PyState>().map_err(|_| {
            PyTypeError::new_err(format!(
                "states[{i}] must be an awale.State, got {}",
                type_name(&item)
            ))
        })?;
        let s = s.borrow();
        match rules {
            None => rules = Some(s.rules),
            Some(r) if r != s.rules => {
                return Err(PyValueError::new_err(format!(
                    "states[{i}] is a position of {}, states[0] of {r}: one rule set per call",
                    s.rules
                )))
            }
            Some(_) => {}
        }
        out.push(s.state);
    }
    let rules = rules.ok_or_else(|| PyValueError::new_err("states is empty: nothing to search"))?;
    Ok((rules, out))
}

/// The `sims` argument, checked as every simulation count is ([`check_sims`]).
fn sims_arg(sims: i64) -> PyResult<u32> {
    u64::try_from(sims)
        .ok()
        .and_then(|n| check_sims(n).ok())
        .ok_or_else(|| {
            PyValueError::new_err(format!("sims must be from 1 to {MAX_SIMS}, got {sims}"))
        })
}

/// A count argument: an int from `min` to `max`.
fn count_arg(name: &str, v: i64, min: i64, max: i64) -> PyResult<i64> {
    if !(min..=max).contains(&v) {
        return Err(PyValueError::new_err(format!(
            "{name} must be from {min} to {max}, got {v}"
        )));
    }
    Ok(v)
}

/// An evaluator that also checks for Ctrl-C every [`SIGNAL_CHECK`] (taking the GIL back for it)
/// and reports its own or the inner evaluator's failure as stopped.
pub(crate) struct Interruptible {
    inner: Box<dyn LeafEvaluator + Send>,
    failure: Failure,
    last_check: Instant,
}

impl Interruptible {
    pub(crate) fn new(inner: Box<dyn LeafEvaluator + Send>, failure: &Failure) -> Interruptible {
        Interruptible {
            inner,
            failure: failure.clone(),
            last_check: Instant::now(),
        }
    }
}

impl LeafEvaluator for Interruptible {
    fn evaluate(&mut self, states: &[State], out: &mut Vec<Evaluation>) {
        self.inner.evaluate(states, out);
        if self.last_check.elapsed() >= SIGNAL_CHECK {
            self.last_check = Instant::now();
            if let Err(e) = Python::attach(|py| py.check_signals()) {
                self.failure.set(e);
            }
        }
    }

    fn stopped(&self) -> bool {
        self.inner.stopped() || self.failure.is_set()
    }
}

/// Runs searches from `roots` with `arg`; the results, the evaluations and the batches.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_search(
    py: Python<'_>,
    rules: Rules,
    settings: SearchSettings,
    roots: &[State],
    sims: u32,
    noise: bool,
    temperature: f32,
    seed: u64,
    arg: &EvaluatorArg,
    batch_size: usize,
) -> PyResult<(Vec<GuidedSearchResult>, u64, u64)> {
    let mut bs = BatchSearch::new(
        rules,
        settings,
        roots,
        sims,
        noise.then_some(temperature),
        seed,
    )
    .map_err(super::value_error)?;
    let failure = Failure::default();
    let mut ev = Interruptible::new(arg.make(&rules, seed, &failure), &failure);
    py.detach(|| bs.run(&mut ev, batch_size));
    if let Some(e) = failure.take() {
        return Err(e);
    }
    Ok((bs.results(), bs.evaluations(), bs.batches()))
}

/// What `awale.search` found for a batch of positions: NumPy arrays, one row per position.
#[pyclass(name = "SearchResult", module = "awale._core", frozen)]
pub struct PySearchResult {
    /// `int32[N, A]`: visits of each root action.
    #[pyo3(get)]
    visits: Py<PyAny>,
    /// `float32[N, A]`: the policy target (Gumbel's improved policy, PUCT's and UCT's visit
    /// distribution), 0 at illegal actions.
    #[pyo3(get)]
    policy: Py<PyAny>,
    /// `int64[N]`: the action the search chose.
    #[pyo3(get)]
    action: Py<PyAny>,
    /// `float32[N]`: the root's mean value for the player to move.
    #[pyo3(get)]
    value: Py<PyAny>,
    /// `float32[N, players]`: the root's mean value of every player, the mover first.
    #[pyo3(get)]
    values: Py<PyAny>,
    /// `bool[N, A]`: the legal actions.
    #[pyo3(get)]
    legal: Py<PyAny>,
    /// Positions evaluated (every tree's leaves and roots).
    #[pyo3(get)]
    evaluations: u64,
    /// Evaluator calls.
    #[pyo3(get)]
    batches: u64,
    len: usize,
}

#[pymethods]
impl PySearchResult {
    fn __len__(&self) -> usize {
        self.len
    }

    fn __repr__(&self) -> String {
        format!(
            "SearchResult({} positions, {} evaluations in {} calls)",
            self.len, self.evaluations, self.batches
        )
    }
}

impl PySearchResult {
    fn new(
        py: Python<'_>,
        rules: &Rules,
        roots: &[State],
        results: &[GuidedSearchResult],
        evaluations: u64,
        batches: u64,
    ) -> PyResult<PySearchResult> {
        let (n, h, p) = (results.len(), rules.houses as usize, rules.players as usize);
        let mut visits = Vec::with_capacity(n * h);
        let mut policy = Vec::with_capacity(n * h);
        let mut legal = Vec::with_capacity(n * h);
        let mut values = Vec::with_capacity(n * p);
        for (r, root) in results.iter().zip(roots) {
            visits.extend(r.visits[..h].iter().map(|&v| v as i32));
            policy.extend_from_slice(&r.policy[..h]);
            legal.extend((0..h).map(|a| r.legal >> a & 1 == 1));
            let m = root.to_move();
            values.extend((0..p).map(|k| r.value[(m + k) % p]));
        }
        let value: Vec<f32> = values.chunks_exact(p).map(|v| v[0]).collect();
        let action: Vec<i64> = results.iter().map(|r| r.action as i64).collect();
        Ok(PySearchResult {
            visits: PyArray1::from_vec(py, visits)
                .reshape([n, h])?
                .into_any()
                .unbind(),
            policy: PyArray1::from_vec(py, policy)
                .reshape([n, h])?
                .into_any()
                .unbind(),
            action: PyArray1::from_vec(py, action).into_any().unbind(),
            value: PyArray1::from_vec(py, value).into_any().unbind(),
            values: PyArray1::from_vec(py, values)
                .reshape([n, p])?
                .into_any()
                .unbind(),
            legal: PyArray1::from_vec(py, legal)
                .reshape([n, h])?
                .into_any()
                .unbind(),
            evaluations,
            batches,
            len: n,
        })
    }
}

/// Searches a batch of positions at once, every tree's leaves evaluated together: see
/// `awale.search` in `python/awale/_core.pyi`.
#[pyfunction]
#[pyo3(signature = (states, evaluate, sims = 64, *, seed = None, noise = false, temperature = 1.0, eval_batch = None, encoding = None, obs_scale = "network", batch_size = None, **options))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn search(
    py: Python<'_>,
    states: &Bound<'_, PyAny>,
    evaluate: &Bound<'_, PyAny>,
    sims: i64,
    seed: Option<&Bound<'_, PyAny>>,
    noise: bool,
    temperature: f64,
    eval_batch: Option<i64>,
    encoding: Option<&str>,
    obs_scale: &str,
    batch_size: Option<i64>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<PySearchResult> {
    let batch_size = match (eval_batch, batch_size) {
        (Some(_), Some(_)) => {
            return Err(PyTypeError::new_err(
                "eval_batch and batch_size are one setting: give eval_batch only",
            ))
        }
        (None, Some(b)) => {
            let warnings = py.import("warnings")?;
            warnings.call_method1(
                "warn",
                (
                    "awale.search: batch_size is now called eval_batch (the same setting as \
                     SelfPlay's and the trainer's selfplay.eval_batch)",
                    py.get_type::<pyo3::exceptions::PyDeprecationWarning>(),
                    2,
                ),
            )?;
            Some(b)
        }
        (e, None) => e,
    };
    let (rules, roots) = states_arg(states)?;
    let sims = sims_arg(sims)?;
    let seed = seed.map(seed_arg).transpose()?.unwrap_or(0);
    if !(temperature.is_finite() && temperature >= 0.0) {
        return Err(PyValueError::new_err(format!(
            "temperature must be a finite number >= 0, got {temperature}"
        )));
    }
    let batch_size = match batch_size {
        None => roots.len().max(1),
        Some(b) => count_arg("eval_batch", b, 1, 1 << 24)? as usize,
    };
    let cfg = config_with(&rules, options, false)?;
    let arg = EvaluatorArg::read(evaluate, Some(&rules), encoding, obs_scale)?;
    let settings = cfg.search.settings();
    let (results, evaluations, batches) = run_search(
        py,
        rules,
        settings,
        &roots,
        sims,
        noise,
        temperature as f32,
        seed,
        &arg,
        batch_size,
    )?;
    PySearchResult::new(py, &rules, &roots, &results, evaluations, batches)
}

/// The arguments a `SelfPlay` was built with (its pickle).
struct SelfPlayArgs {
    rules: Rules,
    evaluate: Py<PyAny>,
    games: i64,
    threads: i64,
    encoding: Option<String>,
    obs_scale: String,
    options: Option<Py<PyDict>>,
}

/// Self-play games kept in flight with the guided search and an evaluator: see
/// `awale.SelfPlay` in `python/awale/_core.pyi`.
#[pyclass(name = "SelfPlay", module = "awale._core")]
pub struct PySelfPlay {
    rules: Rules,
    /// What it was built from, for pickling: the rules as given, the evaluator, the keywords.
    made_from: SelfPlayArgs,
    selfplay: SelfPlay,
    arg: EvaluatorArg,
    encoding: ObsEncoding,
    scale: Vec<f32>,
    config: TrainConfig,
    seed: u64,
    calls: u64,
}

#[pymethods]
impl PySelfPlay {
    #[new]
    #[pyo3(signature = (rules, evaluate, *, games = 128, threads = 1, seed = None, encoding = None, obs_scale = "network", **options))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        rules: &Bound<'_, PyAny>,
        evaluate: &Bound<'_, PyAny>,
        games: i64,
        threads: i64,
        seed: Option<&Bound<'_, PyAny>>,
        encoding: Option<&str>,
        obs_scale: &str,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<PySelfPlay> {
        let rules = rules_arg(rules)?;
        let made_from = SelfPlayArgs {
            rules,
            evaluate: evaluate.clone().unbind(),
            games,
            threads,
            encoding: encoding.map(str::to_string),
            obs_scale: obs_scale.to_string(),
            options: options.map(|o| o.clone().unbind()),
        };
        let games = count_arg("games", games, 1, 1 << 20)? as usize;
        let threads = count_arg("threads", threads, 1, 256)? as usize;
        let seed = seed.map(seed_arg).transpose()?.unwrap_or(0);
        let mut cfg = config_with(&rules, options, true)?;
        cfg.seed = seed;
        let play_rules = cfg
            .rules()
            .map_err(|e| exceptions::ConfigError::new_err(e.to_string()))?;
        let arg = EvaluatorArg::read(evaluate, Some(&play_rules), encoding, obs_scale)?;
        let (encoding, scale) = arg.input(&play_rules);
        let settings = SelfPlaySettings::from_config(&cfg);
        Ok(PySelfPlay {
            rules: play_rules,
            made_from,
            selfplay: SelfPlay::with_threads(play_rules, settings, games, threads),
            arg,
            encoding,
            scale,
            config: cfg,
            seed,
            calls: 0,
        })
    }

    /// Pickled as its settings (rules, evaluator, keywords, seed): the copy starts its games
    /// afresh, and with the same seed plays the same games. The evaluator must pickle too (an
    /// `awale.Network`, `"playout"`, a module-level function).
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, pyo3::types::PyTuple>)> {
        let py = slf.py();
        let me = slf.borrow();
        let a = &me.made_from;
        let kwargs = match &a.options {
            Some(o) => o.bind(py).copy()?,
            None => PyDict::new(py),
        };
        kwargs.set_item("games", a.games)?;
        kwargs.set_item("threads", a.threads)?;
        kwargs.set_item("seed", me.seed)?;
        kwargs.set_item("encoding", &a.encoding)?;
        kwargs.set_item("obs_scale", &a.obs_scale)?;
        let partial = py.import("functools")?.getattr("partial")?;
        let make = partial.call(
            (slf.get_type(), a.rules.to_string(), a.evaluate.bind(py)),
            Some(&kwargs),
        )?;
        Ok((make, pyo3::types::PyTuple::empty(py)))
    }

    /// The rules of the games (with self-play's ply limit).
    #[getter]
    fn rules(&self) -> super::PyRules {
        super::PyRules { inner: self.rules }
    }

    /// The encoding of the samples' observations (the evaluator's input).
    #[getter]
    fn encoding(&self) -> String {
        self.encoding.to_string()
    }

    /// Worker threads (shards of games).
    #[getter]
    fn threads(&self) -> usize {
        self.selfplay.threads()
    }

    /// Games started so far.
    #[getter]
    fn games_started(&self) -> u64 {
        self.selfplay.games_started()
    }

    /// The settings as the trainer's config (TOML): `[search]`, `[selfplay]`, `search_value_mix`.
    #[getter]
    fn config(&self) -> String {
        self.config.to_toml()
    }

    /// Plays until at least `positions` new training samples are made; returns them as a dict
    /// of NumPy arrays (`obs`, `mask`, `policy`, `value`, `score`) and `stats`.
    fn play<'py>(&mut self, py: Python<'py>, positions: i64) -> PyResult<Bound<'py, PyDict>> {
        let positions = count_arg("positions", positions, 1, 1 << 24)? as usize;
        let failure = Failure::default();
        let rules = self.rules;
        let seed = crate::agents::derive_seed(self.seed, self.calls);
        self.calls += 1;
        let t = self.selfplay.threads();
        let eval_batch = self.config.selfplay.eval_batch;
        let (arg, selfplay) = (&self.arg, &mut self.selfplay);
        let (stats, samples, load) = py.detach(|| {
            let make = || Interruptible::new(arg.make(&rules, seed, &failure), &failure);
            if eval_batch == 0 {
                let (stats, samples) = selfplay.run_shards(0..t, make, positions);
                (stats, samples, None)
            } else {
                // A thread-safe callable gets up to four evaluator threads, calls of different
                // groups at once (one's GPU work or sleep beside another's); else one.
                let evaluators = if arg.thread_safe() { 4 } else { 1 };
                let (stats, samples, load) =
                    selfplay.run_gathered(make, evaluators, eval_batch, positions);
                (stats, samples, Some(load))
            }
        });
        if let Some(e) = failure.take() {
            return Err(e);
        }
        let (m, h, p) = (samples.len(), rules.houses as usize, rules.players as usize);
        let states: Vec<State> = samples.iter().map(|s| s.state).collect();
        let mut obs = Vec::new();
        encode_batch(&rules, self.encoding, &self.scale, &states, &mut obs);
        let mut mask = Vec::with_capacity(m * h);
        let mut policy = Vec::with_capacity(m * h);
        let mut value = Vec::with_capacity(m * p);
        let mut score = Vec::with_capacity(m);
        for s in &samples {
            let legal = s.state.legal_mask(&rules);
            mask.extend((0..h).map(|a| legal >> a & 1 == 1));
            policy.extend_from_slice(&s.policy[..h]);
            value.extend_from_slice(&s.value[..p]);
            score.push(s.score);
        }
        let d = PyDict::new(py);
        let dim = self.scale.len();
        d.set_item("obs", PyArray1::from_vec(py, obs).reshape([m, dim])?)?;
        d.set_item("mask", PyArray1::from_vec(py, mask).reshape([m, h])?)?;
        d.set_item("policy", PyArray1::from_vec(py, policy).reshape([m, h])?)?;
        d.set_item("value", PyArray1::from_vec(py, value).reshape([m, p])?)?;
        d.set_item("score", PyArray1::from_vec(py, score))?;
        let st = PyDict::new(py);
        st.set_item("games", stats.games)?;
        st.set_item("positions", stats.positions)?;
        st.set_item("moves", stats.moves)?;
        st.set_item("evaluations", stats.evaluations)?;
        st.set_item("batches", stats.batches)?;
        st.set_item("max_batch", stats.max_batch)?;
        st.set_item("plies", stats.plies)?;
        st.set_item("first_player_wins", stats.first_player_wins)?;
        st.set_item("draws", stats.draws)?;
        st.set_item("truncated", stats.truncated)?;
        st.set_item("mean_batch", stats.mean_batch())?;
        if let Some(load) = load {
            st.set_item("evaluator_secs", load.busy_secs)?;
            st.set_item("evaluator_busy", load.busy_share())?;
        }
        d.set_item("stats", st)?;
        Ok(d)
    }

    /// Leaves per evaluator call at most, the leaves of every thread gathered (0: each thread
    /// calls the evaluator with its own games' leaves).
    #[getter]
    fn eval_batch(&self) -> usize {
        self.config.selfplay.eval_batch
    }

    fn __repr__(&self) -> String {
        format!(
            "SelfPlay('{}', games={}, threads={}, eval_batch={}, encoding='{}')",
            self.rules,
            self.config.selfplay.concurrent_games,
            self.selfplay.threads(),
            self.config.selfplay.eval_batch,
            self.encoding
        )
    }
}

/// An agent that plays the guided search's move with an evaluator (a Python callable, an
/// `awale.Network`, `"playout"`): see `awale.SearchAgent` in `python/awale/_core.pyi`.
#[pyclass(name = "SearchAgent", module = "awale._core", frozen)]
pub struct PySearchAgent {
    pub(crate) evaluate: Py<PyAny>,
    pub(crate) sims: u32,
    pub(crate) seed: u64,
    pub(crate) batch_size: usize,
    pub(crate) encoding: Option<String>,
    pub(crate) obs_scale: String,
    pub(crate) settings: SearchSettings,
    pub(crate) config: TrainConfig,
    pub(crate) name: String,
    /// The search options it was made with (`**options`), to make it again when unpickled.
    options: Option<Py<PyDict>>,
}

impl PySearchAgent {
    /// The evaluator for games of `rules`.
    pub(crate) fn evaluator(&self, py: Python<'_>, rules: &Rules) -> PyResult<EvaluatorArg> {
        EvaluatorArg::read(
            self.evaluate.bind(py),
            Some(rules),
            self.encoding.as_deref(),
            &self.obs_scale,
        )
    }
}

#[pymethods]
impl PySearchAgent {
    #[new]
    #[pyo3(signature = (evaluate, sims = 64, *, name = None, seed = None, encoding = None, obs_scale = "network", **options))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        evaluate: &Bound<'_, PyAny>,
        sims: i64,
        name: Option<String>,
        seed: Option<&Bound<'_, PyAny>>,
        encoding: Option<String>,
        obs_scale: &str,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<PySearchAgent> {
        let sims = sims_arg(sims)?;
        let seed = seed.map(seed_arg).transpose()?.unwrap_or(0);
        let cfg = config_with(&Rules::default(), options, false)?;
        // Read now for its errors; a network's rules are checked when it plays.
        let arg = EvaluatorArg::read(evaluate, None, encoding.as_deref(), obs_scale)?;
        let name = match name {
            Some(n) if n.trim().is_empty() => {
                return Err(PyValueError::new_err("name must not be empty"))
            }
            Some(n) => n,
            None => format!("search:{},sims={sims}", arg.name(py)),
        };
        Ok(PySearchAgent {
            evaluate: evaluate.clone().unbind(),
            sims,
            seed,
            batch_size: 1,
            encoding,
            obs_scale: obs_scale.to_string(),
            settings: cfg.search.settings(),
            config: cfg,
            name,
            options: options.map(|o| o.copy()).transpose()?.map(Bound::unbind),
        })
    }

    /// Pickled as the call that makes it (`functools.partial(SearchAgent, evaluate, sims,
    /// name=…, seed=…, **options)`): it goes to Ray's workers in `awale.tournament(...,
    /// backend="ray")` when its evaluator pickles (a module-level function, `"playout"`, an
    /// `awale.Network`, which pickles by its path).
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, pyo3::types::PyTuple>)> {
        let py = slf.py();
        let me = slf.get();
        let kwargs = match &me.options {
            Some(o) => o.bind(py).copy()?,
            None => PyDict::new(py),
        };
        kwargs.set_item("name", &me.name)?;
        kwargs.set_item("seed", me.seed)?;
        kwargs.set_item("encoding", &me.encoding)?;
        kwargs.set_item("obs_scale", &me.obs_scale)?;
        let partial = py.import("functools")?.getattr("partial")?;
        let make = partial.call(
            (slf.get_type(), me.evaluate.bind(py), me.sims),
            Some(&kwargs),
        )?;
        Ok((make, pyo3::types::PyTuple::empty(py)))
    }

    /// The agent's name in tournaments.
    #[getter]
    fn name(&self) -> String {
        self.name.clone()
    }

    /// Simulations per move.
    #[getter]
    fn sims(&self) -> u32 {
        self.sims
    }

    /// The search's settings as the trainer's `[search]` section (TOML).
    #[getter]
    fn config(&self) -> String {
        self.config.to_toml()
    }

    /// The search of `state` (a `SearchResult` of one row).
    fn analyse(&self, py: Python<'_>, state: &Bound<'_, PyAny>) -> PyResult<PySearchResult> {
        let s = state.cast::<PyState>().map_err(|_| {
            PyTypeError::new_err(format!(
                "state must be an awale.State, got {}",
                type_name(state)
            ))
        })?;
        let (rules, root) = {
            let s = s.borrow();
            (s.rules, s.state)
        };
        let arg = self.evaluator(py, &rules)?;
        let (results, ev, b) = run_search(
            py,
            rules,
            self.settings,
            &[root],
            self.sims,
            false,
            0.0,
            self.seed,
            &arg,
            self.batch_size,
        )?;
        PySearchResult::new(py, &rules, &[root], &results, ev, b)
    }

    /// The move the search chooses at `state` (a house index).
    fn select(&self, py: Python<'_>, state: &Bound<'_, PyAny>) -> PyResult<i64> {
        let r = self.analyse(py, state)?;
        let a = r.action.bind(py).get_item(0)?.extract::<i64>()?;
        Ok(a)
    }

    fn __repr__(&self) -> String {
        format!("SearchAgent('{}', sims={})", self.name, self.sims)
    }
}
