//! `Batch`: the vectorised simulator over NumPy arrays that the object owns.
//!
//! The output arrays are allocated once, at construction, and every call (`step`, `reset`,
//! `reset_where`, `reset_boards`, `observe`) overwrites them in place: one Rust call for all
//! boards, run with the GIL released. Python reads them through the properties (`obs`, `mask`,
//! `rewards`, ...), which return the arrays themselves; callers that keep results across steps
//! copy them (the Python envs do so unless built with `copy=False`). Its keywords, pickles and
//! spaces come from the env spec (`crate::env_spec`, read by `super::env_options`).

use std::sync::Arc;

use numpy::ndarray::Dimension;
use numpy::{
    Element, PyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadwriteArray,
    PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use super::callable_policy::CallablePolicy;
use super::env_options::{dict_pairs, kinds, read_options, PyEnvSpaces};
use super::game::PyState;
use super::{seed_arg, type_name, value_error, PyRules};
use crate::batch::{Batch, BatchConfig, ObsDtype, ObsValue, StepOutput};
use crate::env_spec::{EnvConfig, OPTIONS};
use crate::notation;

/// The observation arrays, of the chosen element type.
enum ObsBufs {
    F32 {
        obs: Py<PyArray2<f32>>,
        fin: Py<PyArray2<f32>>,
    },
    U8 {
        obs: Py<PyArray2<u8>>,
        fin: Py<PyArray2<u8>>,
    },
}

/// Every other output array.
struct Common {
    mask: Py<PyArray2<i8>>,
    rewards: Py<PyArray2<f32>>,
    reward: Py<PyArray1<f32>>,
    terminated: Py<PyArray1<bool>>,
    truncated: Py<PyArray1<bool>>,
    to_move: Py<PyArray1<u8>>,
    episode_length: Py<PyArray1<u32>>,
    episode_scores: Py<PyArray2<u8>>,
}

/// Actions as the caller gave them, borrowed when they are a contiguous NumPy integer array.
enum ActionsArg<'py> {
    I8(PyReadonlyArray1<'py, i8>),
    I16(PyReadonlyArray1<'py, i16>),
    I32(PyReadonlyArray1<'py, i32>),
    I64(PyReadonlyArray1<'py, i64>),
    U8(PyReadonlyArray1<'py, u8>),
    U16(PyReadonlyArray1<'py, u16>),
    U32(PyReadonlyArray1<'py, u32>),
    U64(PyReadonlyArray1<'py, u64>),
    Owned(Vec<i64>),
}

/// The actions as a slice of their own integer type (`Send`, for the GIL-free step).
enum Acts<'a> {
    I8(&'a [i8]),
    I16(&'a [i16]),
    I32(&'a [i32]),
    I64(&'a [i64]),
    U8(&'a [u8]),
    U16(&'a [u16]),
    U32(&'a [u32]),
    U64(&'a [u64]),
}

impl ActionsArg<'_> {
    fn slice(&self) -> PyResult<Acts<'_>> {
        let nc = |_| PyValueError::new_err("actions array is not contiguous");
        Ok(match self {
            ActionsArg::I8(a) => Acts::I8(a.as_slice().map_err(nc)?),
            ActionsArg::I16(a) => Acts::I16(a.as_slice().map_err(nc)?),
            ActionsArg::I32(a) => Acts::I32(a.as_slice().map_err(nc)?),
            ActionsArg::I64(a) => Acts::I64(a.as_slice().map_err(nc)?),
            ActionsArg::U8(a) => Acts::U8(a.as_slice().map_err(nc)?),
            ActionsArg::U16(a) => Acts::U16(a.as_slice().map_err(nc)?),
            ActionsArg::U32(a) => Acts::U32(a.as_slice().map_err(nc)?),
            ActionsArg::U64(a) => Acts::U64(a.as_slice().map_err(nc)?),
            ActionsArg::Owned(v) => Acts::I64(v),
        })
    }
}

/// Reads the actions of a step: a 1-D integer array (any integer dtype) or a sequence of ints,
/// one per board.
fn actions_arg<'py>(obj: &Bound<'py, PyAny>, n: usize) -> PyResult<ActionsArg<'py>> {
    let Ok(arr) = obj.cast::<PyUntypedArray>() else {
        if obj.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err(
                "actions must be an integer array with one action per board, got str",
            ));
        }
        let v: Vec<i64> = obj.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "actions must be a 1-D integer array (or a sequence of ints) with one action \
                 per board, got {}",
                type_name(obj)
            ))
        })?;
        if v.len() != n {
            return Err(PyValueError::new_err(format!(
                "got {} actions for {n} boards",
                v.len()
            )));
        }
        return Ok(ActionsArg::Owned(v));
    };
    if arr.ndim() != 1 || arr.len() != n {
        return Err(PyValueError::new_err(format!(
            "actions must have shape ({n},), one per board; got shape {:?}",
            arr.shape()
        )));
    }
    macro_rules! typed {
        ($t:ty, $v:ident) => {
            if let Ok(a) = arr.cast::<PyArray1<$t>>() {
                let ro = a.try_readonly().map_err(|e| {
                    PyValueError::new_err(format!("cannot read the actions array: {e}"))
                })?;
                if ro.as_slice().is_ok() {
                    return Ok(ActionsArg::$v(ro));
                }
                #[allow(clippy::unnecessary_cast)]
                let v: Vec<i64> = ro
                    .as_array()
                    .iter()
                    .map(|&x| i64::try_from(x).unwrap_or(i64::MAX))
                    .collect();
                return Ok(ActionsArg::Owned(v));
            }
        };
    }
    typed!(i64, I64);
    typed!(i32, I32);
    typed!(u8, U8);
    typed!(i8, I8);
    typed!(i16, I16);
    typed!(u16, U16);
    typed!(u32, U32);
    typed!(u64, U64);
    let dtype = arr.dtype();
    Err(PyTypeError::new_err(format!(
        "actions must be integers (any integer dtype), got a {} array",
        dtype.str()?
    )))
}

/// What one call to the batch does.
enum Op<'a> {
    Step(Acts<'a>),
    Reset(Option<u64>),
    ResetWhere(&'a [bool]),
    ResetBoards(&'a [usize]),
    Observe,
}

fn writable<'py, T: Element, D: Dimension>(
    a: &Bound<'py, PyArray<T, D>>,
    name: &str,
) -> PyResult<PyReadwriteArray<'py, T, D>> {
    a.try_readwrite().map_err(|e| {
        PyValueError::new_err(format!(
            "the batch's {name} array cannot be written ({e}); was it made read-only?"
        ))
    })
}

fn slice_mut<'a, T: Element, D: Dimension>(
    g: &'a mut PyReadwriteArray<'_, T, D>,
    name: &str,
) -> PyResult<&'a mut [T]> {
    g.as_slice_mut().map_err(|e| {
        PyValueError::new_err(format!("the batch's {name} array is not contiguous: {e}"))
    })
}

/// Runs `op` on the batch, writing into the NumPy arrays, with the GIL released; returns the
/// number of boards whose episode ended (terminated or truncated flag set).
#[allow(clippy::too_many_arguments)]
fn run_with<O: ObsValue + Element>(
    py: Python<'_>,
    batch: &mut Batch,
    c: &Common,
    obs: &Py<PyArray2<O>>,
    fin: &Py<PyArray2<O>>,
    op: Op<'_>,
) -> PyResult<usize> {
    let (obs, fin) = (obs.bind(py), fin.bind(py));
    let (mask, rewards, reward) = (c.mask.bind(py), c.rewards.bind(py), c.reward.bind(py));
    let (term, trunc, to_move) = (
        c.terminated.bind(py),
        c.truncated.bind(py),
        c.to_move.bind(py),
    );
    let (len, scores) = (c.episode_length.bind(py), c.episode_scores.bind(py));
    let mut g_obs = writable(obs, "obs")?;
    let mut g_fin = writable(fin, "final_obs")?;
    let mut g_mask = writable(mask, "mask")?;
    let mut g_rewards = writable(rewards, "rewards")?;
    let mut g_reward = writable(reward, "reward")?;
    let mut g_term = writable(term, "terminated")?;
    let mut g_trunc = writable(trunc, "truncated")?;
    let mut g_to_move = writable(to_move, "to_move")?;
    let mut g_len = writable(len, "episode_length")?;
    let mut g_scores = writable(scores, "episode_scores")?;
    let mask_i8 = slice_mut(&mut g_mask, "mask")?;
    // SAFETY: i8 and u8 have the same size and alignment; the batch writes only 0 and 1.
    let mask_u8: &mut [u8] =
        unsafe { std::slice::from_raw_parts_mut(mask_i8.as_mut_ptr().cast::<u8>(), mask_i8.len()) };
    let mut out = StepOutput {
        obs: slice_mut(&mut g_obs, "obs")?,
        mask: mask_u8,
        rewards: slice_mut(&mut g_rewards, "rewards")?,
        reward: slice_mut(&mut g_reward, "reward")?,
        terminated: slice_mut(&mut g_term, "terminated")?,
        truncated: slice_mut(&mut g_trunc, "truncated")?,
        to_move: slice_mut(&mut g_to_move, "to_move")?,
        episode_length: slice_mut(&mut g_len, "episode_length")?,
        episode_scores: slice_mut(&mut g_scores, "episode_scores")?,
        final_obs: Some(slice_mut(&mut g_fin, "final_obs")?),
    };
    py.detach(move || -> crate::Result<usize> {
        match op {
            Op::Step(acts) => match acts {
                Acts::I8(a) => batch.step(a, &mut out)?,
                Acts::I16(a) => batch.step(a, &mut out)?,
                Acts::I32(a) => batch.step(a, &mut out)?,
                Acts::I64(a) => batch.step(a, &mut out)?,
                Acts::U8(a) => batch.step(a, &mut out)?,
                Acts::U16(a) => batch.step(a, &mut out)?,
                Acts::U32(a) => batch.step(a, &mut out)?,
                Acts::U64(a) => batch.step(a, &mut out)?,
            },
            Op::Reset(seed) => batch.reset(seed, &mut out)?,
            Op::ResetWhere(which) => batch.reset_where(which, &mut out)?,
            Op::ResetBoards(idx) => batch.reset_boards(idx, &mut out)?,
            Op::Observe => batch.observe(&mut out)?,
        }
        Ok(out
            .terminated
            .iter()
            .zip(out.truncated.iter())
            .filter(|(&a, &b)| a | b)
            .count())
    })
    .map_err(value_error)
}

/// `N` boards of one rule set stepped by one call; outputs live in NumPy arrays owned by this
/// object and are overwritten by every call.
#[pyclass(name = "Batch", module = "awale._core")]
pub struct PyBatch {
    batch: Batch,
    obs: ObsBufs,
    common: Common,
    dtype: ObsDtype,
    /// The opponent when it is a Python callable (its failures are raised after each call).
    callable: Option<Arc<CallablePolicy>>,
}

impl PyBatch {
    fn run(&mut self, py: Python<'_>, op: Op<'_>) -> PyResult<usize> {
        let PyBatch {
            batch,
            obs,
            common,
            callable,
            ..
        } = self;
        let out = match obs {
            ObsBufs::F32 { obs, fin } => run_with(py, batch, common, obs, fin, op),
            ObsBufs::U8 { obs, fin } => run_with(py, batch, common, obs, fin, op),
        };
        match callable.as_ref().and_then(|c| c.take_error()) {
            Some(e) => Err(e),
            None => out,
        }
    }

    fn build(
        py: Python<'_>,
        config: BatchConfig,
        dtype: ObsDtype,
        callable: Option<Arc<CallablePolicy>>,
    ) -> PyResult<PyBatch> {
        // The GIL is released: a callable opponent may move on the batch's worker threads.
        let batch = py.detach(|| Batch::new(config)).map_err(value_error)?;
        if let Some(e) = callable.as_ref().and_then(|c| c.take_error()) {
            return Err(e);
        }
        let (n, od) = (batch.num_boards(), batch.obs_dim());
        let (h, p) = (batch.action_dim(), batch.players());
        let obs = match dtype {
            ObsDtype::Float32 => ObsBufs::F32 {
                obs: PyArray2::zeros(py, [n, od], false).unbind(),
                fin: PyArray2::zeros(py, [n, od], false).unbind(),
            },
            ObsDtype::Uint8 => ObsBufs::U8 {
                obs: PyArray2::zeros(py, [n, od], false).unbind(),
                fin: PyArray2::zeros(py, [n, od], false).unbind(),
            },
        };
        let common = Common {
            mask: PyArray2::zeros(py, [n, h], false).unbind(),
            rewards: PyArray2::zeros(py, [n, p], false).unbind(),
            reward: PyArray1::zeros(py, n, false).unbind(),
            terminated: PyArray1::zeros(py, n, false).unbind(),
            truncated: PyArray1::zeros(py, n, false).unbind(),
            to_move: PyArray1::zeros(py, n, false).unbind(),
            episode_length: PyArray1::zeros(py, n, false).unbind(),
            episode_scores: PyArray2::zeros(py, [n, p], false).unbind(),
        };
        let mut b = PyBatch {
            batch,
            obs,
            common,
            dtype,
            callable,
        };
        // Batch::new started every episode: show them (without drawing again).
        b.run(py, Op::Observe)?;
        Ok(b)
    }

    /// The batch's options, as the table reads and writes them.
    fn options(&self) -> EnvConfig {
        EnvConfig {
            batch: self.batch.config().clone(),
            obs_dtype: self.dtype,
            ..EnvConfig::default()
        }
    }

    fn obs_any<'py>(&self, py: Python<'py>, final_obs: bool) -> Bound<'py, PyAny> {
        match (&self.obs, final_obs) {
            (ObsBufs::F32 { obs, .. }, false) => obs.bind(py).clone().into_any(),
            (ObsBufs::F32 { fin, .. }, true) => fin.bind(py).clone().into_any(),
            (ObsBufs::U8 { obs, .. }, false) => obs.bind(py).clone().into_any(),
            (ObsBufs::U8 { fin, .. }, true) => fin.bind(py).clone().into_any(),
        }
    }

    fn board(&self, i: i64) -> PyResult<usize> {
        let n = self.batch.num_boards();
        if i < 0 || i as u64 >= n as u64 {
            return Err(PyValueError::new_err(format!(
                "board {i} does not exist; the batch has boards 0..{}",
                n - 1
            )));
        }
        Ok(i as usize)
    }
}

impl PyBatch {
    /// The rules of the boards.
    pub(crate) fn board_rules(&self) -> crate::rules::Rules {
        *self.batch.rules()
    }

    /// Every board's current position.
    pub(crate) fn board_states(&self) -> Vec<crate::state::State> {
        (0..self.batch.num_boards())
            .map(|i| *self.batch.state(i).expect("a board of the batch"))
            .collect()
    }
}

#[pymethods]
impl PyBatch {
    /// See `awale/_core.pyi` for the arguments: `rules` and `num_boards`, then every option
    /// of the table (`env_options()`) whose flavours include `"batch"`, by keyword.
    #[new]
    #[pyo3(signature = (rules = None, num_boards = None, **options))]
    fn new(
        py: Python<'_>,
        rules: Option<&Bound<'_, PyAny>>,
        num_boards: Option<&Bound<'_, PyAny>>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<PyBatch> {
        let mut given = dict_pairs(options)?;
        for (key, v) in [("rules", rules), ("num_boards", num_boards)] {
            if let Some(v) = v {
                given.push((key.to_string(), v.clone()));
            }
        }
        let (cfg, callable) = read_options("batch", "Batch", &given)?;
        cfg.validate().map_err(value_error)?;
        PyBatch::build(py, cfg.batch, cfg.obs_dtype, callable)
    }

    /// Plays one action per board (see the module docs of the crate's batch for rewards, flags
    /// and resets) and returns how many episodes ended. Raises `IllegalActionError` (a
    /// `ValueError`, with `.board`, `.action`, `.reason`) for an out-of-range or illegal action,
    /// `GameOverError` for a board that waits for a reset, and `TypeError` for non-integer
    /// actions; nothing changes then.
    fn step(&mut self, py: Python<'_>, actions: &Bound<'_, PyAny>) -> PyResult<usize> {
        let arg = actions_arg(actions, self.batch.num_boards())?;
        let acts = arg.slice()?;
        self.run(py, Op::Step(acts))
    }

    /// Starts a new episode on every board; with a seed, re-seeds every board's stream first
    /// (the batch is then identical to a new one built with that seed).
    #[pyo3(signature = (seed = None))]
    fn reset(&mut self, py: Python<'_>, seed: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let seed = match seed {
            Some(s) if !s.is_none() => Some(seed_arg(s)?),
            _ => None,
        };
        self.run(py, Op::Reset(seed)).map(|_| ())
    }

    /// Starts a new episode on the boards where `mask` is true (a bool array of one value per
    /// board); other rows of the arrays are left as they are.
    fn reset_where(&mut self, py: Python<'_>, mask: &Bound<'_, PyAny>) -> PyResult<()> {
        let n = self.batch.num_boards();
        let owned: Vec<bool>;
        let ro;
        let which: &[bool] = if let Ok(a) = mask.cast::<PyArray1<bool>>() {
            ro = a
                .try_readonly()
                .map_err(|e| PyValueError::new_err(format!("cannot read the reset mask: {e}")))?;
            match ro.as_slice() {
                Ok(s) => s,
                Err(_) => {
                    owned = ro.as_array().to_vec();
                    &owned
                }
            }
        } else if mask.cast::<PyUntypedArray>().is_ok() {
            let a = mask.cast::<PyUntypedArray>()?;
            return Err(if a.ndim() != 1 {
                PyValueError::new_err(format!(
                    "reset mask must have shape ({n},), got shape {:?}",
                    a.shape()
                ))
            } else {
                PyTypeError::new_err(format!(
                    "reset mask must be a bool array, got a {} array",
                    a.dtype().str()?
                ))
            });
        } else {
            owned = mask.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "reset mask must be a bool array or a sequence of bools, got {}",
                    type_name(mask)
                ))
            })?;
            &owned
        };
        if which.len() != n {
            return Err(PyValueError::new_err(format!(
                "reset mask must have shape ({n},), got {} values",
                which.len()
            )));
        }
        self.run(py, Op::ResetWhere(which)).map(|_| ())
    }

    /// Starts a new episode on the listed boards only.
    fn reset_boards(&mut self, py: Python<'_>, indices: &Bound<'_, PyAny>) -> PyResult<()> {
        let v: Vec<i64> = indices.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "board indices must be a sequence of ints, got {}",
                type_name(indices)
            ))
        })?;
        let n = self.batch.num_boards();
        let idx = v
            .iter()
            .map(|&i| {
                if i < 0 || i as u64 >= n as u64 {
                    Err(PyValueError::new_err(format!(
                        "cannot reset board {i}: the batch has boards 0..{}",
                        n - 1
                    )))
                } else {
                    Ok(i as usize)
                }
            })
            .collect::<PyResult<Vec<usize>>>()?;
        self.run(py, Op::ResetBoards(&idx)).map(|_| ())
    }

    /// Rewrites the observations, masks and seats to move of every board (e.g. after
    /// `restore`); the other arrays are left as they are.
    fn observe(&mut self, py: Python<'_>) -> PyResult<()> {
        self.run(py, Op::Observe).map(|_| ())
    }

    /// Every board's position, repetition history and random stream, as a JSON string for
    /// `restore`.
    fn snapshot(&self) -> PyResult<String> {
        serde_json::to_string(&self.batch.snapshot())
            .map_err(|e| PyValueError::new_err(format!("cannot write the snapshot: {e}")))
    }

    /// Puts every board back as `snapshot` captured it and rewrites the observations; the
    /// batch then replays exactly what followed the snapshot.
    fn restore(&mut self, py: Python<'_>, snapshot: &str) -> PyResult<()> {
        let snap = serde_json::from_str(snapshot)
            .map_err(|e| PyValueError::new_err(format!("not a batch snapshot: {e}")))?;
        self.batch.restore(&snap).map_err(value_error)?;
        self.run(py, Op::Observe)?;
        Ok(())
    }

    /// Board `i`'s current position.
    fn state(&self, i: i64) -> PyResult<PyState> {
        let i = self.board(i)?;
        Ok(PyState::new_from(
            *self.batch.rules(),
            *self.batch.state(i).expect("index checked"),
        ))
    }

    /// Board `i` as an ASCII board.
    fn render(&self, i: i64) -> PyResult<String> {
        let i = self.board(i)?;
        Ok(notation::render_board(
            self.batch.rules(),
            self.batch.state(i).expect("index checked"),
        ))
    }

    /// Observations, `(N, obs_dim)` (`float32` or `uint8`), overwritten by every call.
    #[getter]
    fn obs<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.obs_any(py, false)
    }

    /// Same-step resets: the final observation of each board whose episode ended on the last
    /// step (other rows hold older values).
    #[getter]
    fn final_obs<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.obs_any(py, true)
    }

    /// Legal-action masks, `(N, houses)` `int8`.
    #[getter]
    fn mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<i8>> {
        self.common.mask.bind(py).clone()
    }

    /// Rewards of every player, `(N, players)` `float32`.
    #[getter]
    fn rewards<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f32>> {
        self.common.rewards.bind(py).clone()
    }

    /// The caller's reward, `(N,)` `float32`: the learner seat's with an opponent, the seat
    /// that moved in self-play.
    #[getter]
    fn reward<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f32>> {
        self.common.reward.bind(py).clone()
    }

    #[getter]
    fn terminated<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        self.common.terminated.bind(py).clone()
    }

    #[getter]
    fn truncated<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        self.common.truncated.bind(py).clone()
    }

    #[getter]
    fn to_move<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u8>> {
        self.common.to_move.bind(py).clone()
    }

    #[getter]
    fn episode_length<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u32>> {
        self.common.episode_length.bind(py).clone()
    }

    #[getter]
    fn episode_scores<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<u8>> {
        self.common.episode_scores.bind(py).clone()
    }

    /// For each board: its episode ended and it waits for a reset (a new array).
    #[getter]
    fn done<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        PyArray1::from_slice(py, self.batch.done())
    }

    #[getter]
    fn num_boards(&self) -> usize {
        self.batch.num_boards()
    }

    #[getter]
    fn obs_dim(&self) -> usize {
        self.batch.obs_dim()
    }

    #[getter]
    fn action_dim(&self) -> usize {
        self.batch.action_dim()
    }

    #[getter]
    fn players(&self) -> usize {
        self.batch.players()
    }

    #[getter]
    fn rules(&self) -> PyRules {
        PyRules {
            inner: *self.batch.rules(),
        }
    }

    #[getter]
    fn obs_encoding(&self) -> String {
        self.batch.config().obs.to_string()
    }

    #[getter]
    fn obs_dtype(&self) -> &'static str {
        self.dtype.name()
    }

    /// One board's spaces (observation shape, dtype and bounds; the number of actions), as
    /// `env_spaces()` gives them for this batch's options.
    #[getter]
    fn spaces(&self, py: Python<'_>) -> PyResult<PyEnvSpaces> {
        PyEnvSpaces::of(py, &self.options())
    }

    /// `"raw"` or `"network"` (observations scaled as a trained network's input).
    #[getter]
    fn obs_scale(&self) -> &'static str {
        self.batch.config().obs_scale.name()
    }

    #[getter]
    fn reset_mode(&self) -> &'static str {
        self.batch.config().reset_mode.name()
    }

    #[getter]
    fn opponent(&self) -> String {
        self.batch.config().opponent.name().to_string()
    }

    /// With a league opponent, the member (an index into the league's list) each board plays
    /// in its current episode, `(N,)` `uint8`; all zeros for any other opponent.
    #[getter]
    fn opponent_members<'py>(&self, py: Python<'py>) -> Bound<'py, numpy::PyArray1<u8>> {
        numpy::PyArray1::from_slice(py, self.batch.opponent_members())
    }

    /// The seat the caller plays against an opponent; None in self-play.
    #[getter]
    fn learner_seat(&self) -> Option<usize> {
        self.batch.learner_seat()
    }

    #[getter]
    fn opening(&self) -> (u32, u32) {
        let o = self.batch.config().opening;
        (o.min_plies, o.max_plies)
    }

    #[getter]
    fn illegal(&self) -> &'static str {
        self.batch.config().illegal.name()
    }

    /// The last seed given to the constructor or to `reset`.
    #[getter]
    fn seed(&self) -> u64 {
        self.batch.config().seed
    }

    #[getter]
    fn threads(&self) -> usize {
        self.batch.threads()
    }

    fn __repr__(&self) -> String {
        let c = self.batch.config();
        format!(
            "Batch('{}', {}, obs='{}', obs_dtype='{}', reset_mode='{}', opponent='{}')",
            c.rules,
            c.num_boards,
            c.obs,
            self.dtype.name(),
            c.reset_mode,
            c.opponent
        )
    }

    fn __getstate__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        if let Some(c) = &self.callable {
            return Err(PyTypeError::new_err(format!(
                "a Batch whose opponent is a Python callable ({}) cannot be pickled",
                crate::batch::OpponentPolicy::name(c.as_ref())
            )));
        }
        let cfg = self.options();
        let d = PyDict::new(py);
        for opt in OPTIONS.iter().filter(|o| o.takes("batch")) {
            d.set_item(opt.key, kinds::value_of(py, opt.kind, &(opt.print)(&cfg))?)?;
        }
        d.set_item("snapshot", self.snapshot()?)?;
        Ok(d)
    }

    /// Rebuilds the batch from `__getstate__`'s dict: every option of the table (an option
    /// that a pickle made before it existed lacks takes its default), then the snapshot.
    fn __setstate__(&mut self, py: Python<'_>, state: &Bound<'_, PyDict>) -> PyResult<()> {
        let mut given = Vec::new();
        for opt in OPTIONS.iter().filter(|o| o.takes("batch")) {
            if let Some(v) = state.get_item(opt.key)? {
                given.push((opt.key.to_string(), v));
            }
        }
        let (cfg, _) = read_options("batch", "Batch.__setstate__", &given)?;
        let snapshot: String = state
            .get_item("snapshot")?
            .ok_or_else(|| PyValueError::new_err("pickled Batch lacks 'snapshot'"))?
            .extract()?;
        let mut fresh = PyBatch::build(py, cfg.batch, cfg.obs_dtype, None)?;
        fresh.restore(py, &snapshot)?;
        *self = fresh;
        Ok(())
    }
}
