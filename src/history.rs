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
}

impl History {
    /// An empty history.
    pub fn new() -> History {
        History { keys: Vec::new() }
    }

    /// An empty history with room for `n` positions.
    pub fn with_capacity(n: usize) -> History {
        History {
            keys: Vec::with_capacity(n),
        }
    }

    /// Starts over from `start`.
    pub fn reset(&mut self, start: &State) {
        self.keys.clear();
        self.keys.push(start.key());
    }

    /// Positions remembered (since the last capture).
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// True when nothing is remembered.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Records the position reached by a move (`info` is what the move returned). If it repeats
    /// an earlier one, the game is ended by the rules' cycle rule and `true` is returned.
    #[inline]
    pub fn record(&mut self, rules: &Rules, state: &mut State, info: &MoveInfo) -> bool {
        if info.any_captured > 0 {
            self.keys.clear();
        }
        if rules.cycle == CycleRule::Ignore || matches!(state.status(), Status::Ended(_)) {
            return false;
        }
        let key = state.key();
        if self.keys.contains(&key) {
            state.end_by_repetition(rules);
            return true;
        }
        self.keys.push(key);
        false
    }
}
