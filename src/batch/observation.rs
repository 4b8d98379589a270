//! Observation encodings, chosen by name, the element types an observation buffer may have,
//! and the observation and action specs ([`ObsSpec`], [`ActionSpec`]: shape, element type and
//! bounds of every value) that the Python spaces are built from.
//!
//! Every encoding sees the board from the point of view of the player to move `m`: with `P`
//! players of `H` houses and `n = P·H` pits, "rotated pit `j`" is pit `(m·H + j) mod n`, so the
//! mover's own houses come first (house 0 first), then the next player's row in sowing order,
//! and so on; "rotated store `k`" is the store of player `(m + k) mod P`. Then come `P` values
//! naming the mover's absolute seat (one-hot), which OpenSpiel's `oware` tensor leaves out.
//!
//! | name | layout | size (abapa) |
//! |---|---|---|
//! | `compact` | `n` rotated pit counts, `P` rotated stores, `P` seat one-hot | `n + 2P` (16) |
//! | `onehot:L` | for each rotated pit, `L` slots with slot `min(count, L-1)` set; then `P` rotated stores, `P` seat one-hot | `n·L + 2P` (196 for L = 16) |
//! | `thermometer:L` | for each rotated pit, `L` slots with slot `k` set when `count > k`; then stores and seat as above | `n·L + 2P` (196) |
//!
//! Counts and stores are raw seed counts (not scaled), so the same layout fits a `u8` buffer
//! exactly; `L` defaults to 16 when the name has no `:L`.
//!
//! ```
//! use awale::batch::{encode_state, ObsEncoding};
//! use awale::{Rules, State};
//! let rules = Rules::abapa();
//! let mut s = State::initial(&rules, 0);
//! s.apply(&rules, 2).unwrap(); // now player 1 moves
//! let enc: ObsEncoding = "compact".parse().unwrap();
//! let mut obs = vec![0u8; enc.dim(&rules)];
//! encode_state(enc, &rules, &s, &mut obs).unwrap();
//! // Player 1's row first (its house a got a seed), then player 0's row.
//! assert_eq!(&obs[..12], &[5, 4, 4, 4, 4, 4, 4, 4, 0, 5, 5, 5]);
//! assert_eq!(&obs[12..], &[0, 0, 0, 1]); // stores (mover first), then seat one-hot: seat 1
//! ```

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::{AwaleError, Result};
use crate::rules::{Rules, MAX_PITS, MAX_PLAYERS};
use crate::state::State;

/// Default number of slots per pit of the one-hot and thermometer encodings.
pub const DEFAULT_LEVELS: u8 = 16;

/// How a position becomes a vector of numbers (layouts in the [module docs](self)).
///
/// ```
/// use awale::batch::ObsEncoding;
/// use awale::Rules;
/// let e: ObsEncoding = "thermometer:8".parse().unwrap();
/// assert_eq!(e, ObsEncoding::Thermometer { levels: 8 });
/// assert_eq!(e.dim(&Rules::abapa()), 12 * 8 + 4);
/// assert_eq!(e.to_string(), "thermometer:8");
/// assert_eq!("onehot".parse::<ObsEncoding>().unwrap().dim(&Rules::abapa()), 196);
/// assert!("pixels".parse::<ObsEncoding>().is_err());
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ObsEncoding {
    /// Rotated pit counts, rotated stores, seat one-hot.
    #[default]
    Compact,
    /// One-hot pit counts with `levels` slots per pit (the last slot means "`levels-1` or more").
    OneHot {
        /// Slots per pit (1 to 255).
        levels: u8,
    },
    /// Thermometer pit counts with `levels` slots per pit (slot `k` is set when count > `k`).
    Thermometer {
        /// Slots per pit (1 to 255).
        levels: u8,
    },
}

impl ObsEncoding {
    /// Every encoding name, with default levels.
    pub const ALL: [ObsEncoding; 3] = [
        ObsEncoding::Compact,
        ObsEncoding::OneHot {
            levels: DEFAULT_LEVELS,
        },
        ObsEncoding::Thermometer {
            levels: DEFAULT_LEVELS,
        },
    ];

    /// The encoding's base name (`compact`, `onehot`, `thermometer`).
    pub fn name(self) -> &'static str {
        match self {
            ObsEncoding::Compact => "compact",
            ObsEncoding::OneHot { .. } => "onehot",
            ObsEncoding::Thermometer { .. } => "thermometer",
        }
    }

    /// Slots per pit: 1 for the compact encoding.
    pub fn levels(self) -> usize {
        match self {
            ObsEncoding::Compact => 1,
            ObsEncoding::OneHot { levels } | ObsEncoding::Thermometer { levels } => levels as usize,
        }
    }

    /// Values per board under `rules`.
    pub fn dim(self, rules: &Rules) -> usize {
        rules.pits() * self.levels() + 2 * rules.players as usize
    }

    /// Checks the parameters (levels at least 1).
    pub fn validate(self) -> Result<()> {
        if self.levels() == 0 {
            return Err(AwaleError::BadBatchInput(format!(
                "{} encoding needs at least 1 level per pit",
                self.name()
            )));
        }
        Ok(())
    }
}

impl fmt::Display for ObsEncoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ObsEncoding::Compact => f.write_str("compact"),
            ObsEncoding::OneHot { levels } => write!(f, "onehot:{levels}"),
            ObsEncoding::Thermometer { levels } => write!(f, "thermometer:{levels}"),
        }
    }
}

impl FromStr for ObsEncoding {
    type Err = AwaleError;

    /// Parses `compact`, `onehot[:L]` or `thermometer[:L]`.
    fn from_str(s: &str) -> Result<ObsEncoding> {
        let s = s.trim();
        let (name, levels) = match s.split_once(':') {
            Some((n, l)) => {
                let l: u8 = l.trim().parse().map_err(|_| {
                    AwaleError::BadBatchInput(format!(
                        "observation '{s}': levels must be a whole number from 1 to 255"
                    ))
                })?;
                (n.trim(), Some(l))
            }
            None => (s, None),
        };
        let enc = match (name.to_ascii_lowercase().as_str(), levels) {
            ("compact", None) => ObsEncoding::Compact,
            ("onehot" | "one_hot" | "one-hot", l) => ObsEncoding::OneHot {
                levels: l.unwrap_or(DEFAULT_LEVELS),
            },
            ("thermometer" | "thermo", l) => ObsEncoding::Thermometer {
                levels: l.unwrap_or(DEFAULT_LEVELS),
            },
            ("compact", Some(_)) => {
                return Err(AwaleError::BadBatchInput(
                    "the compact observation takes no levels".into(),
                ))
            }
            _ => {
                return Err(AwaleError::BadBatchInput(format!(
                "unknown observation encoding '{s}' (known: compact, onehot[:L], thermometer[:L])"
            )))
            }
        };
        enc.validate()?;
        Ok(enc)
    }
}

/// The element type of observation arrays: the Python `obs_dtype` (`"float32"` or `"uint8"`);
/// Rust callers pick it with the type of their buffers ([`ObsValue::DTYPE`]).
///
/// ```
/// use awale::batch::ObsDtype;
/// assert_eq!("u1".parse::<ObsDtype>().unwrap(), ObsDtype::Uint8);
/// assert_eq!(ObsDtype::default().name(), "float32");
/// assert!("int16".parse::<ObsDtype>().is_err());
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum ObsDtype {
    /// `float32`.
    #[default]
    Float32,
    /// `uint8`.
    Uint8,
}

impl ObsDtype {
    /// The NumPy name: `"float32"` or `"uint8"`.
    pub fn name(self) -> &'static str {
        match self {
            ObsDtype::Float32 => "float32",
            ObsDtype::Uint8 => "uint8",
        }
    }
}

impl fmt::Display for ObsDtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ObsDtype {
    type Err = AwaleError;

    /// The NumPy names and type codes: `float32` (`f4`, `<f4`) or `uint8` (`u1`, `|u1`).
    fn from_str(s: &str) -> Result<ObsDtype> {
        match s {
            "float32" | "f4" | "<f4" => Ok(ObsDtype::Float32),
            "uint8" | "u1" | "|u1" => Ok(ObsDtype::Uint8),
            _ => Err(AwaleError::BadBatchInput(format!(
                "observation dtype must be 'float32' or 'uint8', got '{s}'"
            ))),
        }
    }
}

/// An element type an observation buffer may hold: `f32` or `u8`.
pub trait ObsValue: Copy + Send + Sync + PartialEq + fmt::Debug + 'static {
    /// Zero.
    const ZERO: Self;
    /// One (a set slot).
    const ONE: Self;
    /// The type's [`ObsDtype`] ([`ObsScale::check_dtype`] says which scale it can hold).
    const DTYPE: ObsDtype;
    /// A seed count (at most 255).
    fn from_count(count: u8) -> Self;
    /// Multiplies a row by per-feature scales (only called for a dtype that
    /// [`ObsScale::check_dtype`] lets hold scaled values).
    fn scale_row(row: &mut [Self], scale: &[f32]);
}

impl ObsValue for f32 {
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
    const DTYPE: ObsDtype = ObsDtype::Float32;
    #[inline(always)]
    fn from_count(count: u8) -> f32 {
        count as f32
    }
    #[inline(always)]
    fn scale_row(row: &mut [f32], scale: &[f32]) {
        for (x, k) in row.iter_mut().zip(scale) {
            *x *= k;
        }
    }
}

impl ObsValue for u8 {
    const ZERO: u8 = 0;
    const ONE: u8 = 1;
    const DTYPE: ObsDtype = ObsDtype::Uint8;
    #[inline(always)]
    fn from_count(count: u8) -> u8 {
        count
    }
    fn scale_row(_row: &mut [u8], _scale: &[f32]) {
        unreachable!("the batch refuses scaled observations in u8 buffers")
    }
}

/// Whether observations are the encoding's raw values or the trained network's input.
///
/// ```
/// use awale::batch::{input_scale, ObsEncoding, ObsScale};
/// use awale::Rules;
/// assert_eq!("network".parse::<ObsScale>().unwrap(), ObsScale::Network);
/// assert!("unit".parse::<ObsScale>().is_err());
/// let s = input_scale(&Rules::abapa(), ObsEncoding::Compact);
/// assert_eq!(s[0], 1.0 / 8.0); // pits: over twice the seeds per house
/// assert_eq!(s[12], 2.0 / 48.0); // stores: over a player's equal share
/// assert_eq!(s[14], 1.0); // the seat one-hot as it is
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum ObsScale {
    /// Raw seed counts and 0/1 slots, as the encoding writes them.
    #[default]
    Raw,
    /// The raw values times [`input_scale`]: the input of the trainer's networks (`float32`
    /// only).
    Network,
}

impl ObsScale {
    /// `raw` or `network`.
    pub fn name(self) -> &'static str {
        match self {
            ObsScale::Raw => "raw",
            ObsScale::Network => "network",
        }
    }

    /// The one rule of scales and element types: [`ObsScale::Network`] writes fractions, so it
    /// needs [`ObsDtype::Float32`]; raw values fit either type. The batch, `State.observation`
    /// and the option table all ask here.
    ///
    /// ```
    /// use awale::batch::{ObsDtype, ObsScale};
    /// assert!(ObsScale::Raw.check_dtype(ObsDtype::Uint8).is_ok());
    /// assert!(ObsScale::Network.check_dtype(ObsDtype::Uint8).is_err());
    /// ```
    pub fn check_dtype(self, dtype: ObsDtype) -> Result<()> {
        if self == ObsScale::Network && dtype != ObsDtype::Float32 {
            return Err(AwaleError::BadBatchInput(format!(
                "obs_scale 'network' writes fractions: it needs obs_dtype 'float32', not '{dtype}'"
            )));
        }
        Ok(())
    }
}

impl fmt::Display for ObsScale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ObsScale {
    type Err = AwaleError;
    fn from_str(s: &str) -> Result<ObsScale> {
        match s.trim() {
            "raw" => Ok(ObsScale::Raw),
            "network" => Ok(ObsScale::Network),
            _ => Err(AwaleError::BadBatchInput(format!(
                "obs_scale must be 'raw' or 'network', got '{s}'"
            ))),
        }
    }
}

/// Per-feature scales from `enc`'s raw values to a trained network's input: compact pit
/// counts over twice the seeds per house (about [0, 1]), one-hot and thermometer slots as they
/// are, stores over a player's equal share of the seeds, the seat one-hot as it is. The
/// trainer (`awale::az::network`) and the batch's [`ObsScale::Network`] both use this.
pub fn input_scale(rules: &Rules, enc: ObsEncoding) -> Vec<f32> {
    let n = rules.pits();
    let p = rules.players as usize;
    let pits = n * enc.levels();
    let pit_scale = match enc {
        ObsEncoding::Compact => 1.0 / (2.0 * rules.seeds.max(1) as f32),
        _ => 1.0,
    };
    let store_scale = p as f32 / rules.total_seeds().max(1) as f32;
    let mut s = vec![pit_scale; pits];
    s.extend(std::iter::repeat_n(store_scale, p));
    s.extend(std::iter::repeat_n(1.0, p));
    s
}

/// One board's observation, as a space: its length, element type and the bounds of every value
/// (`low[i] <= obs[i] <= high[i]`), derived from the rules, the encoding and the scale. Seed
/// counts (compact pits and every store) lie in `0..=total_seeds` (seeds are never made or
/// lost), one-hot and thermometer slots and the seat one-hot in `0..=1`; under
/// [`ObsScale::Network`] each bound is multiplied by its [`input_scale`] the way the batch
/// multiplies the value (in `f32`, so the bound holds exactly).
///
/// ```
/// use awale::batch::{ObsDtype, ObsEncoding, ObsScale, ObsSpec};
/// use awale::Rules;
/// let rules = Rules::abapa();
/// let s = ObsSpec::new(&rules, ObsEncoding::Compact, ObsScale::Raw, ObsDtype::Uint8).unwrap();
/// assert_eq!((s.dim(), s.dtype), (16, ObsDtype::Uint8));
/// assert_eq!((s.high[0], s.high[12], s.high[15]), (48.0, 48.0, 1.0)); // pit, store, seat
/// let n = ObsSpec::new(&rules, ObsEncoding::Compact, ObsScale::Network, ObsDtype::Float32);
/// assert_eq!(n.unwrap().high[0], 6.0); // 48 seeds over twice the 4 of a house
/// assert!(ObsSpec::new(&rules, ObsEncoding::Compact, ObsScale::Network, ObsDtype::Uint8).is_err());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ObsSpec {
    /// The encoding.
    pub encoding: ObsEncoding,
    /// The scale.
    pub scale: ObsScale,
    /// The element type.
    pub dtype: ObsDtype,
    /// The least value of each element ([`ObsEncoding::dim`] of them).
    pub low: Vec<f32>,
    /// The greatest value of each element.
    pub high: Vec<f32>,
}

impl ObsSpec {
    /// The spec of `enc` under `rules`, `scale` and `dtype`; an error for a bad encoding or for a
    /// scale that the element type cannot hold ([`ObsScale::check_dtype`]).
    pub fn new(
        rules: &Rules,
        enc: ObsEncoding,
        scale: ObsScale,
        dtype: ObsDtype,
    ) -> Result<ObsSpec> {
        enc.validate()?;
        scale.check_dtype(dtype)?;
        let (pits, p) = (rules.pits() * enc.levels(), rules.players as usize);
        let seeds = rules.total_seeds() as f32;
        let pit_high = match enc {
            ObsEncoding::Compact => seeds,
            ObsEncoding::OneHot { .. } | ObsEncoding::Thermometer { .. } => 1.0,
        };
        let mut high = vec![pit_high; pits];
        high.extend(std::iter::repeat_n(seeds, p));
        high.extend(std::iter::repeat_n(1.0, p));
        if scale == ObsScale::Network {
            // The batch's own product (`ObsValue::scale_row`): rounding is monotone, so a
            // value at most its raw bound stays at most the bound's product.
            f32::scale_row(&mut high, &input_scale(rules, enc));
        }
        Ok(ObsSpec {
            encoding: enc,
            scale,
            dtype,
            low: vec![0.0; high.len()],
            high,
        })
    }

    /// Values per board: the shape is `(dim,)`.
    pub fn dim(&self) -> usize {
        self.high.len()
    }

    /// The first element of `row` outside the spec (its index), or `None` when the row has
    /// the spec's length and every value lies within its bounds.
    pub fn outside<O: ObsValue + Into<f32>>(&self, row: &[O]) -> Option<usize> {
        if row.len() != self.dim() {
            return Some(row.len().min(self.dim()));
        }
        (0..row.len()).find(|&i| {
            let v: f32 = row[i].into();
            !(self.low[i] <= v && v <= self.high[i])
        })
    }
}

/// One board's action: a house of the mover's row, `0..n`, and the legal-action mask of `n`
/// zeros and ones that the batch writes beside the observation.
///
/// ```
/// use awale::batch::ActionSpec;
/// assert_eq!(ActionSpec::new(&awale::Rules::abapa()).n, 6);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ActionSpec {
    /// The number of actions (the houses of a row).
    pub n: usize,
}

impl ActionSpec {
    /// The actions of `rules`.
    pub fn new(rules: &Rules) -> ActionSpec {
        ActionSpec {
            n: rules.houses as usize,
        }
    }
}

/// Writes the observation of `state` under `enc` into `out`, which must hold exactly
/// [`ObsEncoding::dim`] values.
pub fn encode_state<O: ObsValue>(
    enc: ObsEncoding,
    rules: &Rules,
    state: &State,
    out: &mut [O],
) -> Result<()> {
    enc.validate()?;
    if out.len() != enc.dim(rules) {
        return Err(AwaleError::BadBatchInput(format!(
            "observation buffer has {} values; the {enc} encoding of {rules} needs {}",
            out.len(),
            enc.dim(rules)
        )));
    }
    encode(enc, rules, state, out);
    Ok(())
}

/// The unchecked encoder of the hot loop; `out.len()` must be `enc.dim(rules)`.
#[inline]
pub(crate) fn encode<O: ObsValue>(enc: ObsEncoding, rules: &Rules, state: &State, out: &mut [O]) {
    let n = rules.pits();
    let players = rules.players as usize;
    let mover = state.to_move();
    let pits = rotate_pits(state.pits(), n, mover * rules.houses as usize);
    let scores = state.scores();
    match enc {
        // Every preset has 12 pits: fixed-size code for those layouts.
        ObsEncoding::Compact => match (n, players) {
            (12, 2) => compact_fixed::<O, 12, 2>(&pits, scores, mover, out),
            (12, 3) => compact_fixed::<O, 12, 3>(&pits, scores, mover, out),
            (12, 4) => compact_fixed::<O, 12, 4>(&pits, scores, mover, out),
            (12, 6) => compact_fixed::<O, 12, 6>(&pits, scores, mover, out),
            _ => {
                for (o, &c) in out[..n].iter_mut().zip(&pits) {
                    *o = O::from_count(c);
                }
                stores_and_seat(scores, players, mover, &mut out[n..]);
            }
        },
        ObsEncoding::OneHot { levels } => {
            let levels = levels as usize;
            let (board, tail) = out.split_at_mut(n * levels);
            if levels == DEFAULT_LEVELS as usize {
                rows16(board, &pits[..n], false);
            } else {
                for (slots, &c) in board.chunks_exact_mut(levels).zip(&pits) {
                    let hot = (c as usize).min(levels - 1);
                    for (k, o) in slots.iter_mut().enumerate() {
                        *o = if k == hot { O::ONE } else { O::ZERO };
                    }
                }
            }
            stores_and_seat(scores, players, mover, tail);
        }
        ObsEncoding::Thermometer { levels } => {
            let levels = levels as usize;
            let (board, tail) = out.split_at_mut(n * levels);
            if levels == DEFAULT_LEVELS as usize {
                rows16(board, &pits[..n], true);
            } else {
                for (slots, &c) in board.chunks_exact_mut(levels).zip(&pits) {
                    for (k, o) in slots.iter_mut().enumerate() {
                        *o = if k < c as usize { O::ONE } else { O::ZERO };
                    }
                }
            }
            stores_and_seat(scores, players, mover, tail);
        }
    }
}

/// The one-hot (`thermometer = false`) or thermometer rows of the default 16 levels: each row
/// is a 16-value window of a fixed ramp (ones then zeros, or a single one), copied whole.
#[inline(always)]
fn rows16<O: ObsValue>(board: &mut [O], pits: &[u8], thermometer: bool) {
    const L: usize = DEFAULT_LEVELS as usize;
    let mut ramp = [O::ZERO; 2 * L];
    if thermometer {
        ramp[..L].fill(O::ONE);
    } else {
        ramp[L - 1] = O::ONE;
    }
    for (slots, &c) in board.chunks_exact_mut(L).zip(pits) {
        // Thermometer: `c` ones then zeros; one-hot: the one at slot min(c, L-1).
        let start = if thermometer {
            L - (c as usize).min(L)
        } else {
            L - 1 - (c as usize).min(L - 1)
        };
        slots.copy_from_slice(&ramp[start..start + L]);
    }
}

/// The first `n` pits rotated left by `split` (pits `split..n`, then `0..split`); pits `n..` of
/// the input are zero and stay zero.
#[inline(always)]
fn rotate_pits(pits: &[u8; MAX_PITS], n: usize, split: usize) -> [u8; MAX_PITS] {
    if split == 0 || split >= n {
        return *pits;
    }
    let x = u128::from_le_bytes(*pits);
    let r = (x >> (8 * split)) | (x << (8 * (n - split)));
    let keep = if n >= MAX_PITS {
        u128::MAX
    } else {
        (1u128 << (8 * n)) - 1
    };
    (r & keep).to_le_bytes()
}

/// Rotated stores then the seat one-hot: `2 × players` values.
#[inline(always)]
fn stores_and_seat<O: ObsValue>(
    scores: &[u8; MAX_PLAYERS],
    players: usize,
    mover: usize,
    out: &mut [O],
) {
    let (stores, seat) = out[..2 * players].split_at_mut(players);
    for (k, o) in stores.iter_mut().enumerate() {
        let p = mover + k;
        *o = O::from_count(scores[if p >= players { p - players } else { p }]);
    }
    for (k, o) in seat.iter_mut().enumerate() {
        *o = if k == mover { O::ONE } else { O::ZERO };
    }
}

/// The compact encoding of `state` for `N` pits and `P` players (which must be its rules'
/// shape), with every bound known at compile time.
#[inline(always)]
pub(crate) fn encode_compact_fixed<O: ObsValue, const N: usize, const P: usize>(
    state: &State,
    out: &mut [O],
) {
    let mover = state.to_move();
    let pits = rotate_pits(state.pits(), N, mover * (N / if P == 0 { 1 } else { P }));
    compact_fixed::<O, N, P>(&pits, state.scores(), mover, out);
}

/// The compact encoding for `N` pits and `P` players, with every bound known at compile time.
#[inline(always)]
fn compact_fixed<O: ObsValue, const N: usize, const P: usize>(
    pits: &[u8; MAX_PITS],
    scores: &[u8; MAX_PLAYERS],
    mover: usize,
    out: &mut [O],
) {
    let out = &mut out[..N + 2 * P];
    // Whole-array conversions vectorise; the copies have fixed sizes.
    let board: [O; MAX_PITS] = pits.map(O::from_count);
    out[..N].copy_from_slice(&board[..N]);
    let mut doubled = [0u8; 2 * MAX_PLAYERS];
    doubled[..P].copy_from_slice(&scores[..P]);
    doubled[P..2 * P].copy_from_slice(&scores[..P]);
    let stores: [O; 2 * MAX_PLAYERS] = doubled.map(O::from_count);
    out[N..N + P].copy_from_slice(&stores[mover..mover + P]);
    for k in 0..P {
        out[N + P + k] = if k == mover { O::ONE } else { O::ZERO };
    }
}

/// A legal-action bit mask as one byte (0 or 1) per house, for up to 16 houses.
#[inline(always)]
pub(crate) fn mask_bytes(bits: u16) -> [u8; 16] {
    #[inline(always)]
    fn spread(b: u8) -> u64 {
        // Byte k of x is bit k of b (as 0 or 1 << k); adding 0x7f carries it into bit 7.
        let x = (b as u64).wrapping_mul(0x0101_0101_0101_0101) & 0x8040_2010_0804_0201;
        ((x + 0x7f7f_7f7f_7f7f_7f7f) >> 7) & 0x0101_0101_0101_0101
    }
    (spread(bits as u8) as u128 | (spread((bits >> 8) as u8) as u128) << 64).to_le_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_of_a_known_position() {
        let rules = Rules::abapa();
        let pits = [0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3];
        let s = State::from_parts(&rules, &pits, &[10, 4], 1, 0).unwrap();
        let mut c = vec![0u8; 16];
        encode_state(ObsEncoding::Compact, &rules, &s, &mut c).unwrap();
        assert_eq!(c, [6, 7, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 4, 10, 0, 1]);

        let enc = ObsEncoding::OneHot { levels: 4 };
        let mut o = vec![9.0f32; enc.dim(&rules)];
        encode_state(enc, &rules, &s, &mut o).unwrap();
        // Pit 6 holds 6 seeds: saturates to the last slot; pit 8 holds 0.
        assert_eq!(&o[..4], &[0.0, 0.0, 0.0, 1.0]);
        assert_eq!(&o[8..12], &[1.0, 0.0, 0.0, 0.0]);
        assert_eq!(&o[20..24], &[0.0, 0.0, 0.0, 1.0]); // pit 11 = 3 seeds
        assert_eq!(&o[48..], &[4.0, 10.0, 0.0, 1.0]);

        let enc = ObsEncoding::Thermometer { levels: 4 };
        let mut t = vec![9u8; enc.dim(&rules)];
        encode_state(enc, &rules, &s, &mut t).unwrap();
        assert_eq!(&t[..4], &[1, 1, 1, 1]);
        assert_eq!(&t[8..12], &[0, 0, 0, 0]);
        assert_eq!(&t[12..16], &[1, 0, 0, 0]);
        assert_eq!(&t[20..24], &[1, 1, 1, 0]);
    }

    /// The layouts of the module docs, written the plain way.
    fn reference(enc: ObsEncoding, rules: &Rules, s: &State) -> Vec<f32> {
        let (n, h, p) = (rules.pits(), rules.houses as usize, rules.players as usize);
        let m = s.to_move();
        let levels = enc.levels();
        let mut v = Vec::new();
        for j in 0..n {
            let c = s.pits()[(m * h + j) % n] as usize;
            match enc {
                ObsEncoding::Compact => v.push(c as f32),
                ObsEncoding::OneHot { .. } => {
                    v.extend((0..levels).map(|k| f32::from(u8::from(k == c.min(levels - 1)))))
                }
                ObsEncoding::Thermometer { .. } => {
                    v.extend((0..levels).map(|k| f32::from(u8::from(k < c))))
                }
            }
        }
        v.extend((0..p).map(|k| s.scores()[(m + k) % p] as f32));
        v.extend((0..p).map(|k| f32::from(u8::from(k == m))));
        v
    }

    #[test]
    fn every_encoding_matches_the_documented_layout() {
        for spec in [
            "abapa",
            "oware3",
            "oware6",
            "abapa:houses=8,seeds=3",
            "oware:players=4,houses=2",
        ] {
            let rules: Rules = spec.parse().unwrap();
            let mut s = State::initial(&rules, 0);
            let mut k = 7usize;
            for _ in 0..60 {
                if s.is_over() {
                    s = State::initial(&rules, 1);
                }
                for enc in [
                    ObsEncoding::Compact,
                    ObsEncoding::OneHot { levels: 16 },
                    ObsEncoding::OneHot { levels: 3 },
                    ObsEncoding::Thermometer { levels: 16 },
                    ObsEncoding::Thermometer { levels: 7 },
                ] {
                    let mut f = vec![-1f32; enc.dim(&rules)];
                    encode_state(enc, &rules, &s, &mut f).unwrap();
                    assert_eq!(f, reference(enc, &rules, &s), "{spec} {enc}");
                    let mut u = vec![9u8; enc.dim(&rules)];
                    encode_state(enc, &rules, &s, &mut u).unwrap();
                    assert_eq!(u.iter().map(|&x| x as f32).collect::<Vec<_>>(), f);
                }
                let moves = s.legal_moves(&rules);
                k = k.wrapping_mul(6364136223846793005).wrapping_add(1);
                s.apply(&rules, moves[(k >> 33) % moves.len()]).unwrap();
            }
        }
    }

    #[test]
    fn masks_spread_to_bytes_and_pits_rotate() {
        for bits in [0u16, 1, 0b101101, 0x8001, 0xffff, 0x1234] {
            let want: Vec<u8> = (0..16).map(|h| ((bits >> h) & 1) as u8).collect();
            assert_eq!(mask_bytes(bits).to_vec(), want);
        }
        let mut pits = [0u8; MAX_PITS];
        for (i, p) in pits.iter_mut().enumerate() {
            *p = i as u8 + 1;
        }
        for n in [2, 12, 16] {
            let mut short = [0u8; MAX_PITS];
            short[..n].copy_from_slice(&pits[..n]);
            for split in 0..n {
                let mut want = [0u8; MAX_PITS];
                for j in 0..n {
                    want[j] = short[(split + j) % n];
                }
                assert_eq!(rotate_pits(&short, n, split), want, "n {n} split {split}");
            }
        }
    }

    #[test]
    fn names_round_trip_and_bad_ones_fail() {
        for e in ObsEncoding::ALL {
            assert_eq!(e.to_string().parse::<ObsEncoding>().unwrap(), e);
        }
        assert!("onehot:0".parse::<ObsEncoding>().is_err());
        assert!("onehot:x".parse::<ObsEncoding>().is_err());
        assert!("compact:3".parse::<ObsEncoding>().is_err());
        let rules = Rules::abapa();
        let s = State::initial(&rules, 0);
        let mut short = vec![0f32; 3];
        let e = encode_state(ObsEncoding::Compact, &rules, &s, &mut short).unwrap_err();
        assert!(e.to_string().contains("needs 16"));
    }
}
