//! Repetition detection: the positions seen since the last capture.
//!
//! A capture removes seeds for good, so no position before it can come back; only the positions
//! since the last capture are kept. The buffer keeps its capacity between games, so a long run
//! allocates nothing once warm.

use crate::rules::{CycleRule, Rules};
use crate::state::{MoveInfo, PositionKey, State, Status};

/// Positions seen since the last capture, for the rules' cycle rule.
///
/// ```
/// use awale::{History, Rules, State};
/// let rules = Rules::abapa();
/// let mut s = State::initial(&rules, 0);
/// let mut h = History::new();
/// h.reset(&s);
/// let info = s.apply(&rules, 0).unwrap();
/// assert!(!h.record(&rules, &mut s, &info)); // no repetition yet
/// ```
#[derive(Debug, Clone, Default)]
pub struct History {
    keys: Vec<PositionKey>,
    /// A 256-bit Bloom filter (one hash) over `keys`: a position whose bit is clear was
    /// certainly not seen, so most moves skip the scan of `keys`.
    filter: [u64; 4],
}

/// The filter word and bit of a position key.
#[inline(always)]
fn filter_slot(key: &PositionKey) -> (usize, u64) {
    let folded = (key.0 as u64) ^ ((key.0 >> 64) as u64).rotate_left(32) ^ key.1 as u64;
    let h = folded.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 56;
    ((h >> 6) as usize, 1 << (h & 63))
}

impl History {
    /// An empty history.
    pub fn new() -> History {
        History::default()
    }

    /// An empty history with room for `n` positions.
    pub fn with_capacity(n: usize) -> History {
        History {
            keys: Vec::with_capacity(n),
            filter: [0; 4],
        }
    }

    /// Forgets everything.
    #[inline]
    fn clear(&mut self) {
        self.keys.clear();
        self.filter = [0; 4];
    }

    /// Remembers `key` (not checked for repetition).
    #[inline]
    fn push(&mut self, key: PositionKey) {
        let (word, bit) = filter_slot(&key);
        self.filter[word] |= bit;
        self.keys.push(key);
    }

    /// Starts over from `start`.
    pub fn reset(&mut self, start: &State) {
        self.clear();
        self.push(start.key());
    }

    /// Positions remembered (since the last capture).
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// True when nothing is remembered.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The remembered positions, oldest first (for snapshots).
    pub fn keys(&self) -> &[PositionKey] {
        &self.keys
    }

    /// Replaces the remembered positions with `keys` (oldest first), keeping the buffer's
    /// capacity; the inverse of [`History::keys`].
    pub fn set_keys(&mut self, keys: &[PositionKey]) {
        self.clear();
        for &key in keys {
            self.push(key);
        }
    }

    /// Records the position reached by a move (`info` is what the move returned). If it repeats
    /// an earlier one and [`State::repetition_ends`] says so, the game is ended by the rules'
    /// cycle rule and `true` is returned; a repetition that does not end the game (an empty row
    /// under `cycle_if_seeded`) lets play go on.
    #[inline]
    pub fn record(&mut self, rules: &Rules, state: &mut State, info: &MoveInfo) -> bool {
        if info.any_captured > 0 {
            self.clear();
        }
        if rules.cycle == CycleRule::Ignore || matches!(state.status(), Status::Ended(_)) {
            return false;
        }
        let key = state.key();
        let (word, bit) = filter_slot(&key);
        if self.filter[word] & bit != 0 && self.keys.contains(&key) {
            // A repeated position that does not end the game (a player's row is empty under
            // `cycle_if_seeded`) is already remembered: play goes on.
            if !state.repetition_ends(rules) {
                return false;
            }
            state.end_by_repetition(rules);
            return true;
        }
        self.filter[word] |= bit;
        self.keys.push(key);
        false
    }
}
