//! Random playouts as a [`LeafEvaluator`]: equal logits, and for the value the outcome of one
//! game played on from the leaf with uniformly random moves. With [`Uct`] this
//! makes the guided search plain MCTS (the `mcts` agent); with PUCT or Gumbel, MCTS with
//! uniform priors.
//!
//! A playout is cut off after `playout_plies` plies (or by the rules' ply limit) and adjudicated
//! by the stores like a finished game ([`crate::State::outcome_by_stores`]: +1 for the sole leader, 0 for a shared lead,
//! -1 for the others). Under a cycle rule a position repeated within the playout ends it as the
//! rules say (the window starts at the leaf and restarts at each capture).
//!
//! [`Uct`]: crate::search::Uct
//!
//! ```
//! use awale::agents::PlayoutEvaluator;
//! use awale::search::LeafEvaluator;
//! use awale::{Rules, State};
//!
//! let rules = Rules::abapa();
//! // House F captures 5 and reaches 25 seeds: an immediate win.
//! let s = State::from_parts(&rules, &[1, 0, 0, 0, 0, 2, 1, 2, 5, 0, 0, 0], &[20, 17], 0, 0).unwrap();
//! let mut eval = PlayoutEvaluator::new(rules, 300, 1);
//! let mut out = Vec::new();
//! eval.evaluate(&[s], &mut out);
//! assert!(out[0].values[..2].iter().all(|v| (-1.0..=1.0).contains(v)));
//! ```

use std::time::Instant;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::random_bit;
use super::stop::{stopped, StopSignal};
use crate::rules::{CycleRule, Rules};
use crate::search::{Evaluation, LeafEvaluator};
use crate::state::{PositionKey, State};
use crate::utility::Utility;

/// Random playouts as an evaluator (see the [module docs](self)).
#[derive(Debug, Clone)]
pub struct PlayoutEvaluator {
    rules: Rules,
    playout_plies: u32,
    rng: ChaCha8Rng,
    keys: Vec<PositionKey>,
    deadline: Option<Instant>,
    stop: Option<StopSignal>,
    utility: Utility,
}

impl PlayoutEvaluator {
    /// Playouts of at most `playout_plies` plies under `rules`, drawn from a generator seeded
    /// with `seed`.
    pub fn new(rules: Rules, playout_plies: u32, seed: u64) -> PlayoutEvaluator {
        PlayoutEvaluator {
            rules,
            playout_plies,
            rng: ChaCha8Rng::seed_from_u64(seed),
            keys: Vec::with_capacity(256),
            deadline: None,
            stop: None,
            utility: Utility::Outcome,
        }
    }

    /// Scores the playouts' ends by `utility` instead of the rules' returns
    /// ([`Utility::Outcome`], the default).
    pub fn with_utility(mut self, utility: Utility) -> PlayoutEvaluator {
        self.utility = utility;
        self
    }

    /// Cuts the playouts from now on at `deadline` and once `stop` is raised (read every
    /// [`CHECK_PLIES`] plies): a cut playout is adjudicated like one that reached
    /// `playout_plies`. `None`, `None` (the default) for no limit.
    pub fn set_limits(&mut self, deadline: Option<Instant>, stop: Option<StopSignal>) {
        self.deadline = deadline;
        self.stop = stop;
    }

    /// Reseeds the generator.
    pub fn reseed(&mut self, seed: u64) {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
    }

    /// The final position of one random playout from `state`.
    pub fn playout(&mut self, state: &State) -> State {
        self.keys.clear();
        if self.rules.cycle != CycleRule::Ignore {
            self.keys.push(state.key());
        }
        random_playout_until(
            &self.rules,
            *state,
            self.playout_plies,
            &mut self.rng,
            &mut self.keys,
            self.deadline,
            self.stop.as_ref(),
        )
    }
}

/// How often (in plies) a playout with a deadline or a stop signal reads them
/// ([`random_playout_until`]): a few microseconds of play, one clock read.
pub const CHECK_PLIES: u32 = 256;

/// Plays `state` on with uniformly random moves, at most `plies` of them, and returns the final
/// position: finished by the rules, ended by a repetition (under a cycle rule: a position of
/// `window`, the repetition window so far, which the playout keeps: cleared at each capture,
/// each new position pushed), or cut off. The one playout of the crate: the evaluator's and the
/// classic `mcts` tree's.
pub fn random_playout<R: rand::Rng>(
    rules: &Rules,
    s: State,
    plies: u32,
    rng: &mut R,
    window: &mut Vec<PositionKey>,
) -> State {
    random_playout_until(rules, s, plies, rng, window, None, None)
}

/// [`random_playout`], also cut off at `deadline` or once `stop` is raised, both read every
/// [`CHECK_PLIES`] plies (never before the first): the position reached is returned as if the
/// ply limit had been reached there. Without either it plays exactly as [`random_playout`]
/// (the same moves from the same generator).
pub fn random_playout_until<R: rand::Rng>(
    rules: &Rules,
    mut s: State,
    plies: u32,
    rng: &mut R,
    window: &mut Vec<PositionKey>,
    deadline: Option<Instant>,
    stop: Option<&StopSignal>,
) -> State {
    let cycles = rules.cycle != CycleRule::Ignore;
    let limited = deadline.is_some() || stop.is_some();
    let mut played = 0;
    while !s.is_over() && played < plies {
        if limited
            && played % CHECK_PLIES == 0
            && played > 0
            && (stopped(stop) || deadline.is_some_and(|d| Instant::now() >= d))
        {
            break;
        }
        let h = random_bit(rng, s.legal_mask(rules));
        let info = s.apply_unchecked(rules, h);
        played += 1;
        if cycles && !s.is_over() {
            if info.any_captured > 0 {
                window.clear();
            } else if window.contains(&s.key()) && s.repetition_ends(rules) {
                s.end_by_repetition(rules);
                break;
            }
            window.push(s.key());
        }
    }
    s
}

impl LeafEvaluator for PlayoutEvaluator {
    fn evaluate(&mut self, states: &[State], out: &mut Vec<Evaluation>) {
        out.clear();
        for s in states {
            let end = self.playout(s);
            out.push(Evaluation {
                values: self
                    .utility
                    .values(&end.scores()[..self.rules.players as usize]),
                ..Evaluation::default()
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finished_game_is_scored_exactly_and_values_stay_in_range() {
        let rules = Rules::abapa();
        let won = State::from_parts(&rules, &[0; 12], &[30, 18], 0, 0).unwrap();
        let mut e = PlayoutEvaluator::new(rules, 300, 0);
        let mut out = Vec::new();
        e.evaluate(&[won], &mut out);
        assert_eq!(&out[0].values[..2], &[1.0, -1.0]);
        let mut s = State::initial(&rules, 0);
        s.apply(&rules, 2).unwrap();
        e.evaluate(&[s; 50], &mut out);
        assert_eq!(out.len(), 50);
        assert!(out
            .iter()
            .all(|x| x.values[..2].iter().all(|v| (-1.0..=1.0).contains(v))));
        // Zero-sum between two players.
        assert!(out.iter().all(|x| x.values[0] == -x.values[1]));
    }

    #[test]
    fn the_same_seed_plays_the_same_playouts() {
        let rules = Rules::oware(3).unwrap();
        let s = State::initial(&rules, 0);
        let mut a = PlayoutEvaluator::new(rules, 50, 9);
        let mut b = PlayoutEvaluator::new(rules, 50, 9);
        for _ in 0..10 {
            assert_eq!(a.playout(&s), b.playout(&s));
        }
    }
}
