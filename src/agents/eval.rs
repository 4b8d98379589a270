//! Position evaluation for the searching agents, and the outcome of a game by its stores.
//!
//! [`Evaluator`] scores a 2-player position from the point of view of the player to move, in
//! hundredths of a seed. Besides the difference of the stores it can use the strategy notes of
//! the Awalé rule document (`001_*`, "éléments de stratégie"):
//!
//! - **greniers**: a house holding more seeds than the board has pits (12 or more on the
//!   standard board) is a *grenier*, a store built up to be sown around the board. It is only
//!   worth its cost when its last seed lands in the opponent's row, where it can capture: the
//!   note's table of "domains of activity" (A: 6-11 or 17-22 seeds, ..., F: 1-6 or 12-17). A
//!   grenier whose last seed lands there counts `grenier`;
//! - **potential**: the player with more seeds on his side has more moves and more initiative,
//!   and under the international rules keeps them at the end (`board` per seed, `mobility` per
//!   non-empty house);
//! - **threats**: a direct capture that a player could make if it were his turn (a last seed
//!   bringing holes of the opponent to 2 or 3), counted at `threat` hundredths per seed for the
//!   player to move and half that for the other.
//!
//! ```
//! use awale::agents::Evaluator;
//! use awale::{Rules, State};
//! let rules = Rules::abapa();
//! let start = State::initial(&rules, 0);
//! assert_eq!(Evaluator::material().evaluate(&rules, &start), 0);
//! // South to move, 8 seeds ahead in store.
//! let ahead = State::from_parts(&rules, &[4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 0, 0], &[8, 0], 0, 0).unwrap();
//! assert_eq!(Evaluator::material().evaluate(&rules, &ahead), 800);
//! assert!(Evaluator::strategic().evaluate(&rules, &ahead) > 800);
//! ```

use crate::rules::{GrandSlam, Rules, Sowing};
use crate::state::State;

/// Weights of the evaluation, in hundredths of a seed. See the [module](self) documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Evaluator {
    /// Per seed of store difference (captured seeds): the material.
    pub store: i32,
    /// Per seed of difference in the seeds on each side of the board.
    pub board: i32,
    /// Per non-empty house of difference.
    pub mobility: i32,
    /// Per grenier (a house with at least as many seeds as the board has pits) whose last seed
    /// lands in the opponent's row.
    pub grenier: i32,
    /// Per seed of the best direct capture threat of the player to move (half for the other).
    pub threat: i32,
}

impl Default for Evaluator {
    /// The strategic evaluation (`eval=strategic`).
    fn default() -> Self {
        Evaluator::strategic()
    }
}

impl Evaluator {
    /// The stores only (`eval=material`).
    pub fn material() -> Evaluator {
        Evaluator {
            store: 100,
            board: 0,
            mobility: 0,
            grenier: 0,
            threat: 0,
        }
    }

    /// Stores plus the strategy notes of `001_*`: greniers in reach, potential, threats
    /// (`eval=strategic`, the default).
    pub fn strategic() -> Evaluator {
        Evaluator {
            store: 100,
            board: 10,
            mobility: 5,
            grenier: 60,
            threat: 40,
        }
    }

    /// The named evaluation: `material` or `strategic`.
    pub fn named(name: &str) -> Option<Evaluator> {
        match name {
            "material" => Some(Evaluator::material()),
            "strategic" => Some(Evaluator::strategic()),
            _ => None,
        }
    }

    /// The value of a position that goes on, for the player to move, against the next player
    /// (2-player games; in a game of more players only the stores of these two count).
    pub fn evaluate(&self, rules: &Rules, state: &State) -> i32 {
        let me = state.to_move();
        let opp = (me + 1) % rules.players as usize;
        let scores = state.scores();
        let mut v = self.store * (scores[me] as i32 - scores[opp] as i32);
        if self.board != 0 || self.mobility != 0 {
            let h = rules.houses as usize;
            let row = |p: usize| &state.pits()[p * h..(p + 1) * h];
            if self.board != 0 {
                let seeds = |p: usize| row(p).iter().map(|&x| x as i32).sum::<i32>();
                v += self.board * (seeds(me) - seeds(opp));
            }
            if self.mobility != 0 {
                let houses = |p: usize| row(p).iter().filter(|&&x| x > 0).count() as i32;
                v += self.mobility * (houses(me) - houses(opp));
            }
        }
        if rules.sowing == Sowing::Single
            && rules.players == 2
            && (self.grenier != 0 || self.threat != 0)
        {
            let (g_me, t_me) = features(rules, state, me);
            let (g_opp, t_opp) = features(rules, state, opp);
            v += self.grenier * (g_me - g_opp);
            v += self.threat * t_me - self.threat / 2 * t_opp;
        }
        v
    }
}

/// For `player`: the number of greniers in reach, and the seeds of his best direct capture
/// (single sowing, two players).
fn features(rules: &Rules, state: &State, player: usize) -> (i32, i32) {
    let n = rules.pits();
    let h = rules.houses as usize;
    let pits = state.pits();
    let ring = if rules.skip_origin { n - 1 } else { n };
    let opp_lo = ((player + 1) % 2) * h;
    let mut greniers = 0;
    let mut best = 0i32;
    for i in 0..h {
        let origin = player * h + i;
        let seeds = pits[origin] as usize;
        if seeds == 0 {
            continue;
        }
        let (laps, rem) = (seeds / ring, seeds % ring);
        let last = if rem == 0 {
            if rules.skip_origin {
                (origin + n - 1) % n
            } else {
                origin
            }
        } else {
            let mut p = origin;
            for _ in 0..rem {
                p = (p + 1) % n;
                if rules.skip_origin && p == origin {
                    p = (p + 1) % n;
                }
            }
            p
        };
        let lands_opp = last >= opp_lo && last < opp_lo + h;
        if seeds >= n && lands_opp {
            greniers += 1;
        }
        if !lands_opp {
            continue;
        }
        // Seeds added to an opponent pit `j` (at or before `last` in that row) by the sowing.
        let added = |j: usize| -> u32 {
            let step = (j + n - origin) % n;
            laps as u32 + u32::from(rem > 0 && step >= 1 && step <= rem)
        };
        let mut taken = 0u32;
        let mut j = last;
        loop {
            let c = pits[j] as u32 + added(j);
            if c < rules.capture_min as u32 || c > rules.capture_max as u32 {
                break;
            }
            taken += c;
            if j == opp_lo {
                break;
            }
            j -= 1;
        }
        if taken > 0 && rules.grand_slam != GrandSlam::CaptureAll {
            let row: u32 = (opp_lo..opp_lo + h)
                .map(|j| pits[j] as u32 + added(j))
                .sum();
            if taken == row {
                taken = 0;
            }
        }
        best = best.max(taken as i32);
    }
    (greniers, best)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grenier_in_reach_follows_the_domain_table() {
        let rules = Rules::abapa();
        // House A with 17 seeds: 11 around, 6 more land in pit 6 (the opponent's a).
        let mut pits = [0u8; 12];
        pits[0] = 17;
        pits[6] = 31;
        let s = State::from_parts(&rules, &pits, &[0, 0], 0, 0).unwrap();
        assert_eq!(features(&rules, &s, 0).0, 1);
        // 23 seeds: 22 go round twice, the last lands in B, its own row: out of reach.
        pits[0] = 23;
        pits[6] = 25;
        let s = State::from_parts(&rules, &pits, &[0, 0], 0, 0).unwrap();
        assert_eq!(features(&rules, &s, 0).0, 0);
    }

    #[test]
    fn threat_counts_a_chain_and_not_a_grand_slam() {
        let rules = Rules::abapa();
        // F (2 seeds) reaches a=1, b=2 -> 2 and 3: a threat of 5 while c keeps seeds.
        let s = State::from_parts(
            &rules,
            &[1, 0, 0, 0, 0, 2, 1, 2, 5, 0, 0, 0],
            &[20, 17],
            0,
            0,
        )
        .unwrap();
        assert_eq!(features(&rules, &s, 0).1, 5);
        // Without c's seeds it would take the whole row: a grand slam takes nothing.
        let s = State::from_parts(
            &rules,
            &[1, 0, 0, 0, 0, 2, 1, 2, 0, 0, 0, 0],
            &[20, 22],
            0,
            0,
        )
        .unwrap();
        assert_eq!(features(&rules, &s, 0).1, 0);
    }

    #[test]
    fn outcome_matches_returns_at_the_end() {
        let rules = Rules::abapa();
        let s = State::from_parts(&rules, &[0; 12], &[25, 23], 0, 0).unwrap();
        assert!(s.is_over());
        assert_eq!(s.outcome_by_stores(&rules), s.returns(&rules));
    }
}
