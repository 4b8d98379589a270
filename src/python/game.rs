//! `State` and `Game`: one position and one game, for replays, tests and the PettingZoo env.

use numpy::PyArray1;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use super::{house_arg, rules_or_default, seed_arg, type_name, value_error, PyRules};
use crate::batch::{encode_state, input_scale, ObsDtype, ObsEncoding, ObsScale, ObsValue};
use crate::game::Game;
use crate::notation::{self, GameRecord};
use crate::rules::Rules;
use crate::state::{State, Status};

/// Writes the observation of `state` as seen by `perspective` (the layout of
/// [`crate::batch::observation`] with `perspective` in place of the player to move: that player's
/// row and store first, and the seat one-hot names that player).
fn encode_for<O: ObsValue>(
    enc: ObsEncoding,
    rules: &Rules,
    state: &State,
    perspective: usize,
    out: &mut [O],
) {
    let n = rules.pits();
    let players = rules.players as usize;
    let levels = enc.levels();
    let split = perspective * rules.houses as usize;
    let pits = &state.pits()[..n];
    let (board, tail) = out.split_at_mut(n * levels);
    let rotated = pits[split..].iter().chain(&pits[..split]);
    for (slots, &c) in board.chunks_exact_mut(levels).zip(rotated) {
        match enc {
            ObsEncoding::Compact => slots[0] = O::from_count(c),
            ObsEncoding::OneHot { .. } => {
                for (k, o) in slots.iter_mut().enumerate() {
                    *o = if k == (c as usize).min(levels - 1) {
                        O::ONE
                    } else {
                        O::ZERO
                    };
                }
            }
            ObsEncoding::Thermometer { .. } => {
                for (k, o) in slots.iter_mut().enumerate() {
                    *o = if k < c as usize { O::ONE } else { O::ZERO };
                }
            }
        }
    }
    let (stores, seat) = tail.split_at_mut(players);
    for (k, o) in stores.iter_mut().enumerate() {
        *o = O::from_count(state.scores()[(perspective + k) % players]);
    }
    for (k, o) in seat.iter_mut().enumerate() {
        *o = if k == perspective { O::ONE } else { O::ZERO };
    }
}

/// The observation of a position as a new NumPy array (`float32` or `uint8`).
fn observation<'py>(
    py: Python<'py>,
    rules: &Rules,
    state: &State,
    encoding: &str,
    perspective: Option<usize>,
    dtype: &str,
    scale: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let enc: ObsEncoding = encoding.parse().map_err(value_error)?;
    let scale: ObsScale = scale.parse().map_err(value_error)?;
    let players = rules.players as usize;
    if let Some(p) = perspective {
        if p >= players {
            return Err(PyValueError::new_err(format!(
                "perspective {p} does not exist in a {players}-player game"
            )));
        }
    }
    fn fill<'py, O: ObsValue + numpy::Element>(
        py: Python<'py>,
        enc: ObsEncoding,
        rules: &Rules,
        state: &State,
        perspective: Option<usize>,
        scale: ObsScale,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mut v = vec![O::ZERO; enc.dim(rules)];
        match perspective {
            None => encode_state(enc, rules, state, &mut v).map_err(value_error)?,
            Some(p) => encode_for(enc, rules, state, p, &mut v),
        }
        if scale == ObsScale::Network {
            O::scale_row(&mut v, &input_scale(rules, enc));
        }
        Ok(PyArray1::from_vec(py, v).into_any())
    }
    let dtype: ObsDtype = dtype.parse().map_err(value_error)?;
    scale.check_dtype(dtype).map_err(value_error)?;
    match dtype {
        ObsDtype::Float32 => fill::<f32>(py, enc, rules, state, perspective, scale),
        ObsDtype::Uint8 => fill::<u8>(py, enc, rules, state, perspective, scale),
    }
}

/// The legal-action mask of a position as an `int8` array of `houses` zeros and ones.
fn action_mask<'py>(py: Python<'py>, rules: &Rules, state: &State) -> Bound<'py, PyArray1<i8>> {
    let bits = if state.is_over() {
        0
    } else {
        state.legal_mask(rules)
    };
    let v: Vec<i8> = (0..rules.houses as usize)
        .map(|h| ((bits >> h) & 1) as i8)
        .collect();
    PyArray1::from_vec(py, v)
}

fn status_name(s: Status) -> &'static str {
    match s {
        Status::Ongoing => "ongoing",
        Status::Ended(_) => "ended",
        Status::Truncated => "truncated",
    }
}

fn end_reason(s: Status) -> Option<&'static str> {
    match s {
        Status::Ended(r) => Some(r.name()),
        _ => None,
    }
}

/// Checks a deserialized position against its rules (seed total, unused slots, seat).
fn check_state(rules: &Rules, s: &State) -> PyResult<()> {
    if !s.fits(rules) {
        return Err(PyValueError::new_err(format!(
            "the pickled position is impossible under {rules}"
        )));
    }
    Ok(())
}

/// A position under a rule set: pits, stores, player to move, ply and status.
#[pyclass(name = "State", module = "awale._core", eq)]
#[derive(Clone, PartialEq)]
pub struct PyState {
    pub(crate) rules: Rules,
    pub(crate) state: State,
}

impl PyState {
    pub(crate) fn new_from(rules: Rules, state: State) -> PyState {
        PyState { rules, state }
    }
}

/// Parses a position in position notation, e.g. `"abapa 4,4,4,4,4,4/4,4,4,4,4,4 0,0 0"` (a
/// lone rules spec gives the start position).
#[pyfunction]
pub(crate) fn parse_position(text: &str) -> PyResult<PyState> {
    let (rules, state) = notation::parse_position(text).map_err(value_error)?;
    Ok(PyState { rules, state })
}

#[pymethods]
impl PyState {
    #[new]
    #[pyo3(signature = (position = "abapa"))]
    fn new(position: &str) -> PyResult<PyState> {
        parse_position(position)
    }

    /// The start position of a rule set with `first` to move (used only when the rules draw the
    /// first player at random).
    #[staticmethod]
    #[pyo3(signature = (rules = None, first = 0))]
    fn initial(rules: Option<&Bound<'_, PyAny>>, first: usize) -> PyResult<PyState> {
        let rules = rules_or_default(rules)?;
        if first >= rules.players as usize {
            return Err(PyValueError::new_err(format!(
                "player {first} does not exist in a {}-player game",
                rules.players
            )));
        }
        Ok(PyState {
            rules,
            state: State::initial(&rules, first),
        })
    }

    #[getter]
    fn rules(&self) -> PyRules {
        PyRules { inner: self.rules }
    }

    /// Seeds in each pit, pit 0 first (player `p` owns pits `p*houses .. (p+1)*houses`).
    #[getter]
    fn pits(&self) -> Vec<u32> {
        self.state.pits()[..self.rules.pits()]
            .iter()
            .map(|&x| x as u32)
            .collect()
    }

    /// Each player's store.
    #[getter]
    fn scores(&self) -> Vec<u32> {
        self.state.scores()[..self.rules.players as usize]
            .iter()
            .map(|&x| x as u32)
            .collect()
    }

    #[getter]
    fn to_move(&self) -> usize {
        self.state.to_move()
    }

    #[getter]
    fn ply(&self) -> u32 {
        self.state.ply()
    }

    /// `"ongoing"`, `"ended"` or `"truncated"`.
    #[getter]
    fn status(&self) -> &'static str {
        status_name(self.state.status())
    }

    /// Why the game ended (`"threshold"`, `"repetition"`, ...), or None.
    #[getter]
    fn end_reason(&self) -> Option<&'static str> {
        end_reason(self.state.status())
    }

    #[getter]
    fn is_over(&self) -> bool {
        self.state.is_over()
    }

    /// Legal moves of the player to move, as house indices of its row.
    fn legal_moves(&self) -> Vec<usize> {
        if self.state.is_over() {
            return Vec::new();
        }
        self.state.legal_moves(&self.rules)
    }

    /// Legal moves as bits (bit `h` = house `h`).
    fn legal_mask(&self) -> u16 {
        if self.state.is_over() {
            return 0;
        }
        self.state.legal_mask(&self.rules)
    }

    /// Legal moves as an `int8` array of `houses` zeros and ones.
    fn action_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i8>> {
        action_mask(py, &self.rules, &self.state)
    }

    /// Plays `house` for the player to move, in place, and returns the seeds the mover
    /// captured. A position alone keeps no history, so repetitions are not detected: use `Game`
    /// for that.
    fn apply(&mut self, house: &Bound<'_, PyAny>) -> PyResult<u32> {
        let h = house_arg(house, self.rules.houses as usize)?;
        let info = self.state.apply(&self.rules, h).map_err(value_error)?;
        Ok(info.captured as u32)
    }

    /// Per-player returns once the game ended: +1 sole winner, 0 tied for first, -1 others.
    fn returns(&self) -> Vec<f32> {
        self.state.returns(&self.rules)[..self.rules.players as usize].to_vec()
    }

    /// The players with the highest score once the game ended (empty before).
    fn winners(&self) -> Vec<usize> {
        self.state.winners(&self.rules)
    }

    /// The observation as the batch encodes it: seen by the player to move, or by
    /// `perspective` (that player's row and store first); `scale="network"` multiplies it by
    /// the input scales of a trained network (float32 only; docs/observations.md).
    #[pyo3(signature = (encoding = "compact", perspective = None, dtype = "float32", scale = "raw"))]
    fn observation<'py>(
        &self,
        py: Python<'py>,
        encoding: &str,
        perspective: Option<usize>,
        dtype: &str,
        scale: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        observation(
            py,
            &self.rules,
            &self.state,
            encoding,
            perspective,
            dtype,
            scale,
        )
    }

    /// The ASCII board.
    fn render(&self) -> String {
        notation::render_board(&self.rules, &self.state)
    }

    /// The position in position notation.
    fn to_text(&self) -> String {
        notation::format_position(&self.rules, &self.state)
    }

    /// A move in move notation (`C`, `f`, `2C`) for `player` (default: the player to move).
    #[pyo3(signature = (house, player = None))]
    fn move_text(&self, house: &Bound<'_, PyAny>, player: Option<usize>) -> PyResult<String> {
        let h = house_arg(house, self.rules.houses as usize)?;
        let p = player.unwrap_or(self.state.to_move());
        if p >= self.rules.players as usize {
            return Err(PyValueError::new_err(format!("player {p} does not exist")));
        }
        Ok(notation::format_move(&self.rules, p, h))
    }

    fn copy(&self) -> PyState {
        self.clone()
    }

    fn __copy__(&self) -> PyState {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> PyState {
        self.clone()
    }

    fn __str__(&self) -> String {
        self.to_text()
    }

    fn __repr__(&self) -> String {
        format!("State('{}')", self.to_text())
    }

    fn __getstate__(&self) -> PyResult<(String, String)> {
        let json = serde_json::to_string(&self.state)
            .map_err(|e| PyValueError::new_err(format!("cannot pickle the position: {e}")))?;
        Ok((self.rules.to_string(), json))
    }

    fn __setstate__(&mut self, state: (String, String)) -> PyResult<()> {
        let rules: Rules = state.0.parse().map_err(value_error)?;
        let s: State = serde_json::from_str(&state.1)
            .map_err(|e| PyValueError::new_err(format!("cannot unpickle the position: {e}")))?;
        check_state(&rules, &s)?;
        self.rules = rules;
        self.state = s;
        Ok(())
    }
}

/// A game: rules, position, repetition history and the moves played (as the batch plays it).
#[pyclass(name = "Game", module = "awale._core")]
#[derive(Clone)]
pub struct PyGame {
    pub(crate) game: Game,
}

#[pymethods]
impl PyGame {
    /// A new game. `rules` is a spec or a `Rules`; `seed` draws the first player when the rules
    /// draw one; `position` (position notation) starts from a given position instead (its
    /// rules are used, so `rules` must then be left out).
    #[new]
    #[pyo3(signature = (rules = None, *, seed = None, position = None))]
    fn new(
        rules: Option<&Bound<'_, PyAny>>,
        seed: Option<&Bound<'_, PyAny>>,
        position: Option<&str>,
    ) -> PyResult<PyGame> {
        if let Some(text) = position {
            if rules.is_some() || seed.is_some() {
                return Err(PyTypeError::new_err(
                    "give either a position or rules (and a seed), not both",
                ));
            }
            let (rules, state) = notation::parse_position(text).map_err(value_error)?;
            return Ok(PyGame {
                game: Game::from_state(rules, state),
            });
        }
        let rules = rules_or_default(rules)?;
        let seed = match seed {
            Some(s) if !s.is_none() => seed_arg(s)?,
            _ => 0,
        };
        Ok(PyGame {
            game: Game::with_seed(rules, seed),
        })
    }

    /// Replays a game record (tag lines and moves in move notation).
    #[staticmethod]
    fn from_record(text: &str) -> PyResult<PyGame> {
        let record: GameRecord = text.parse().map_err(value_error)?;
        Ok(PyGame {
            game: record.replay().map_err(value_error)?,
        })
    }

    #[getter]
    fn rules(&self) -> PyRules {
        PyRules {
            inner: *self.game.rules(),
        }
    }

    /// The current position (a copy).
    #[getter]
    fn state(&self) -> PyState {
        PyState::new_from(*self.game.rules(), *self.game.state())
    }

    /// The position the game started from.
    #[getter]
    fn start(&self) -> PyState {
        PyState::new_from(*self.game.rules(), *self.game.start())
    }

    #[getter]
    fn players(&self) -> usize {
        self.game.rules().players as usize
    }

    #[getter]
    fn houses(&self) -> usize {
        self.game.rules().houses as usize
    }

    #[getter]
    fn pits(&self) -> Vec<u32> {
        let n = self.game.rules().pits();
        self.game.state().pits()[..n]
            .iter()
            .map(|&x| x as u32)
            .collect()
    }

    #[getter]
    fn scores(&self) -> Vec<u32> {
        self.game.scores()
    }

    #[getter]
    fn to_move(&self) -> usize {
        self.game.to_move()
    }

    #[getter]
    fn ply(&self) -> u32 {
        self.game.state().ply()
    }

    #[getter]
    fn status(&self) -> &'static str {
        status_name(self.game.status())
    }

    #[getter]
    fn end_reason(&self) -> Option<&'static str> {
        end_reason(self.game.status())
    }

    #[getter]
    fn is_over(&self) -> bool {
        self.game.is_over()
    }

    /// The moves played, as house indices of the mover's row.
    #[getter]
    fn moves(&self) -> Vec<u32> {
        self.game.moves().iter().map(|&m| m as u32).collect()
    }

    fn legal_moves(&self) -> Vec<usize> {
        if self.game.is_over() {
            return Vec::new();
        }
        self.game.legal_moves()
    }

    fn legal_mask(&self) -> u16 {
        if self.game.is_over() {
            return 0;
        }
        self.game.legal_mask()
    }

    fn action_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i8>> {
        action_mask(py, self.game.rules(), self.game.state())
    }

    /// Plays `house` for the player to move and returns the seeds the mover captured; an
    /// illegal move raises `ValueError` and changes nothing.
    fn apply(&mut self, house: &Bound<'_, PyAny>) -> PyResult<u32> {
        let h = house_arg(house, self.game.rules().houses as usize)?;
        let info = self.game.apply(h).map_err(value_error)?;
        Ok(info.captured as u32)
    }

    /// Plays a move written in move notation (`C`, `f`, `2C`) and returns its house index.
    fn apply_move(&mut self, text: &str) -> PyResult<usize> {
        let h = notation::parse_move(self.game.rules(), self.game.to_move(), text)
            .map_err(value_error)?;
        self.game.apply(h).map_err(value_error)?;
        Ok(h)
    }

    /// Takes back the last `plies` moves (1 by default); a ValueError when fewer were played.
    #[pyo3(signature = (plies = 1))]
    fn undo(&mut self, plies: usize) -> PyResult<()> {
        let moves: Vec<usize> = self.game.moves().iter().map(|&m| m as usize).collect();
        if plies > moves.len() {
            return Err(PyValueError::new_err(format!(
                "cannot take back {plies} moves: {} played",
                moves.len()
            )));
        }
        let (rules, start) = (*self.game.rules(), *self.game.start());
        self.game =
            Game::replay(rules, start, &moves[..moves.len() - plies]).map_err(value_error)?;
        Ok(())
    }

    /// The hint for the player to move (`awale play`'s `hint`): alpha-beta to depth 8 with two
    /// players, MCTS with 2,000 simulations otherwise, within `move_time_ms` (0: no limit). A dict:
    /// `house`, `move` (in notation), `summary` (what the search found, one line), `value`
    /// (the mover's, in `unit`), `unit`. The GIL is released while it searches.
    #[pyo3(signature = (move_time_ms = 1000))]
    fn hint<'py>(
        &self,
        py: Python<'py>,
        move_time_ms: u64,
    ) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        let game = self.game.clone();
        let (house, thoughts) = py
            .detach(move || crate::agents::hint(&game, move_time_ms))
            .map_err(value_error)?;
        let d = pyo3::types::PyDict::new(py);
        d.set_item("house", house)?;
        d.set_item(
            "move",
            notation::format_move(self.game.rules(), self.game.to_move(), house),
        )?;
        d.set_item("summary", thoughts.summary)?;
        d.set_item("value", thoughts.value)?;
        d.set_item("unit", thoughts.unit)?;
        Ok(d)
    }

    fn returns(&self) -> Vec<f32> {
        self.game.returns()[..self.game.rules().players as usize].to_vec()
    }

    fn winners(&self) -> Vec<usize> {
        self.game.state().winners(self.game.rules())
    }

    /// The observation as the batch encodes it (see `State.observation`).
    #[pyo3(signature = (encoding = "compact", perspective = None, dtype = "float32", scale = "raw"))]
    fn observation<'py>(
        &self,
        py: Python<'py>,
        encoding: &str,
        perspective: Option<usize>,
        dtype: &str,
        scale: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        observation(
            py,
            self.game.rules(),
            self.game.state(),
            encoding,
            perspective,
            dtype,
            scale,
        )
    }

    fn render(&self) -> String {
        notation::render_board(self.game.rules(), self.game.state())
    }

    /// The current position in position notation.
    fn position(&self) -> String {
        notation::format_position(self.game.rules(), self.game.state())
    }

    /// The game record (tags and moves), which `Game.from_record` reads back.
    fn record(&self) -> String {
        GameRecord::from_game(&self.game).to_string()
    }

    fn copy(&self) -> PyGame {
        self.clone()
    }

    fn __copy__(&self) -> PyGame {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> PyGame {
        self.clone()
    }

    fn __repr__(&self) -> String {
        format!(
            "Game('{}', ply={}, {})",
            self.game.rules(),
            self.game.state().ply(),
            self.game.status()
        )
    }

    fn __getstate__(&self) -> String {
        self.record()
    }

    fn __setstate__(&mut self, record: &Bound<'_, PyAny>) -> PyResult<()> {
        let text: String = record.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "a pickled Game is a record string, got {}",
                type_name(record)
            ))
        })?;
        *self = PyGame::from_record(&text)?;
        Ok(())
    }
}
