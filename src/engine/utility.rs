//! What a finished game is worth to each player: its *utility*, the number a search maximises
//! and a value head learns. With two players every utility but `seeds` is the game's result
//! (+1 win, 0 draw, -1 loss); with three or more they differ in how they pay ties and the
//! places below the first, and only `outcome` does not sum to the same total in every game.
//!
//! | utility | a player's value, for the stores `s` of `P` players | sum over players |
//! |---|---|---|
//! | `outcome` | +1 sole leader, 0 each of the players tied for the lead, -1 the others ([`crate::outcome_from_scores`], [`crate::State::returns`]) | varies: -1 to 0 with 3 players |
//! | `first` | `2/k - 1` for each of `k` players tied for the lead (+1 alone), -1 the others: twice the share of the first place, less 1 | `2 - P` |
//! | `rank` | `1 - 2(r - 1)/(P - 1)` for the mean rank `r` (1 = most seeds; tied players share their ranks) | 0 |
//! | `seeds` | `2 s_i / Σ s - 1`: twice the share of the seeds captured, less 1 (`2/P - 1` each while nothing is captured) | `2 - P` |
//!
//! `outcome` is the rules' returns; the others are constant-sum, so that no two players gain
//! together at a third's expense (a self-play network that learns `outcome` in owaré for 3
//! learns that a shared first place is worth as much as a lone one: docs/training-experiments.md).
//!
//! ```
//! use awale::Utility;
//! let stores = [16, 16, 16];
//! assert_eq!(&Utility::Outcome.values(&stores)[..3], &[0.0, 0.0, 0.0]);
//! let third = 2.0 / 3.0 - 1.0;
//! assert_eq!(&Utility::First.values(&stores)[..3], &[third, third, third]);
//! assert_eq!(&Utility::Rank.values(&[24, 16, 8])[..3], &[1.0, 0.0, -1.0]);
//! assert_eq!(&Utility::Seeds.values(&[24, 24, 0])[..3], &[0.0, 0.0, -1.0]);
//! ```

use serde::{Deserialize, Serialize};

use super::rules::MAX_PLAYERS;
use super::state::outcome_from_scores;

/// What a finished (or adjudicated) game is worth to each player (module documentation).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Utility {
    /// The rules' returns: +1 sole leader, 0 shared lead, -1 the others.
    #[default]
    Outcome,
    /// Twice the share of the first place, less 1.
    First,
    /// Linear in the (mean) rank: +1 first, -1 last.
    Rank,
    /// Twice the share of the captured seeds, less 1.
    Seeds,
}

impl Utility {
    /// Every utility, in the order of the table above.
    pub const ALL: [Utility; 4] = [
        Utility::Outcome,
        Utility::First,
        Utility::Rank,
        Utility::Seeds,
    ];

    /// The name used by configs and agent specs.
    pub fn name(self) -> &'static str {
        match self {
            Utility::Outcome => "outcome",
            Utility::First => "first",
            Utility::Rank => "rank",
            Utility::Seeds => "seeds",
        }
    }

    /// Each player's value for the stores `scores` (one per player, in [-1, 1]); entries past
    /// `scores.len()` are 0.
    pub fn values(self, scores: &[u8]) -> [f32; MAX_PLAYERS] {
        let p = scores.len();
        let mut r = [0f32; MAX_PLAYERS];
        match self {
            Utility::Outcome => return outcome_from_scores(scores),
            Utility::First => {
                let best = scores.iter().copied().max().unwrap_or(0);
                let leaders = scores.iter().filter(|&&s| s == best).count().max(1);
                for (x, &s) in r.iter_mut().zip(scores) {
                    *x = if s == best {
                        2.0 / leaders as f32 - 1.0
                    } else {
                        -1.0
                    };
                }
            }
            Utility::Rank => {
                if p < 2 {
                    return r;
                }
                for (x, &s) in r.iter_mut().zip(scores) {
                    let above = scores.iter().filter(|&&o| o > s).count();
                    let level = scores.iter().filter(|&&o| o == s).count() - 1;
                    let rank = above as f32 + level as f32 / 2.0; // 0 = first
                    *x = 1.0 - 2.0 * rank / (p - 1) as f32;
                }
            }
            Utility::Seeds => {
                let total: u32 = scores.iter().map(|&s| u32::from(s)).sum();
                for (x, &s) in r.iter_mut().zip(scores) {
                    *x = if total == 0 {
                        2.0 / p as f32 - 1.0
                    } else {
                        2.0 * f32::from(s) / total as f32 - 1.0
                    };
                }
            }
        }
        r
    }
}

impl std::fmt::Display for Utility {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Utility {
    type Err = String;
    fn from_str(s: &str) -> Result<Utility, String> {
        Utility::ALL
            .into_iter()
            .find(|u| u.name() == s)
            .ok_or_else(|| format!("'{s}' is not a utility (outcome, first, rank, seeds)"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn two_players_agree_but_seeds() {
        for scores in [[25u8, 23], [24, 24], [0, 48], [30, 0]] {
            let o = Utility::Outcome.values(&scores);
            assert_eq!(Utility::First.values(&scores), o);
            assert_eq!(Utility::Rank.values(&scores), o);
        }
        assert_eq!(&Utility::Seeds.values(&[36, 12])[..2], &[0.5, -0.5]);
    }

    #[test]
    fn ties_and_places() {
        // Two tied for the lead: `first` pays each half a first place.
        assert_eq!(&Utility::First.values(&[20, 20, 8])[..3], &[0.0, 0.0, -1.0]);
        // Ranks 1.5, 1.5, 3 of 3.
        assert_eq!(&Utility::Rank.values(&[20, 20, 8])[..3], &[0.5, 0.5, -1.0]);
        // Four players, two tied second.
        assert_eq!(
            &Utility::Rank.values(&[20, 12, 12, 4])[..4],
            &[1.0, 0.0, 0.0, -1.0]
        );
        let even = Utility::Seeds.values(&[0, 0, 0]);
        assert!(even[..3].iter().all(|v| (v + 1.0 / 3.0).abs() < 1e-6));
        assert_eq!("rank".parse::<Utility>(), Ok(Utility::Rank));
        assert!("best"
            .parse::<Utility>()
            .unwrap_err()
            .contains("outcome, first"));
    }

    proptest! {
        /// Every utility lies in [-1, 1], orders players as their stores do, and all but
        /// `outcome` sum to the same total whatever the stores.
        #[test]
        fn bounded_monotone_constant_sum(scores in prop::collection::vec(0u8..49, 2..=6)) {
            let p = scores.len();
            for u in Utility::ALL {
                let v = u.values(&scores);
                for i in 0..p {
                    prop_assert!((-1.0..=1.0).contains(&v[i]));
                    for j in 0..p {
                        if scores[i] > scores[j] {
                            prop_assert!(v[i] >= v[j]);
                        }
                    }
                }
                let sum: f32 = v[..p].iter().sum();
                let expected = match u {
                    Utility::Outcome => continue,
                    Utility::Rank => 0.0,
                    Utility::First | Utility::Seeds => 2.0 - p as f32,
                };
                prop_assert!((sum - expected).abs() < 1e-4, "{u}: {sum} for {scores:?}");
            }
        }
    }
}
