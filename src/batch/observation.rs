//! Observation encodings, chosen by name, and the element types an observation buffer may have.
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
use crate::rules::Rules;
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

/// An element type an observation buffer may hold: `f32` or `u8`.
pub trait ObsValue: Copy + Send + Sync + PartialEq + fmt::Debug + 'static {
    /// Zero.
    const ZERO: Self;
    /// One (a set slot).
    const ONE: Self;
    /// A seed count (at most 255).
    fn from_count(count: u8) -> Self;
}

impl ObsValue for f32 {
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
    #[inline(always)]
    fn from_count(count: u8) -> f32 {
        count as f32
    }
}

impl ObsValue for u8 {
    const ZERO: u8 = 0;
    const ONE: u8 = 1;
    #[inline(always)]
    fn from_count(count: u8) -> u8 {
        count
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
    let split = mover * rules.houses as usize;
    let pits = &state.pits()[..n];
    let levels = enc.levels();
    let (board, tail) = out.split_at_mut(n * levels);
    // Rotated pit order: pits[split..n] then pits[..split].
    let (own, rest) = (&pits[split..], &pits[..split]);
    match enc {
        ObsEncoding::Compact => {
            let (a, b) = board.split_at_mut(own.len());
            for (o, &c) in a.iter_mut().zip(own) {
                *o = O::from_count(c);
            }
            for (o, &c) in b.iter_mut().zip(rest) {
                *o = O::from_count(c);
            }
        }
        ObsEncoding::OneHot { .. } => {
            for (slots, &c) in board.chunks_exact_mut(levels).zip(own.iter().chain(rest)) {
                for (k, o) in slots.iter_mut().enumerate() {
                    *o = O::ZERO;
                    if k == (c as usize).min(levels - 1) {
                        *o = O::ONE;
                    }
                }
            }
        }
        ObsEncoding::Thermometer { .. } => {
            for (slots, &c) in board.chunks_exact_mut(levels).zip(own.iter().chain(rest)) {
                for (k, o) in slots.iter_mut().enumerate() {
                    *o = if k < c as usize { O::ONE } else { O::ZERO };
                }
            }
        }
    }
    let (stores, seat) = tail.split_at_mut(players);
    let scores = &state.scores()[..players];
    for (k, o) in stores.iter_mut().enumerate() {
        let p = mover + k;
        *o = O::from_count(scores[if p >= players { p - players } else { p }]);
    }
    for (k, o) in seat.iter_mut().enumerate() {
        *o = if k == mover { O::ONE } else { O::ZERO };
    }
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
