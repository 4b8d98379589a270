//! Who plays the seats the caller does not: nobody (self-play) or a built-in policy, so that a
//! single-agent learner can train inside the batch.
//!
//! [`Opponent`] names the built-in choices; anything else (e.g. the search agents of
//! [`crate::agents`]) plugs in through the [`OpponentPolicy`] trait as [`Opponent::Policy`].
//!
//! ```
//! use awale::batch::Opponent;
//! use awale::{Rules, State};
//! use rand::SeedableRng;
//! let rules = Rules::abapa();
//! // South's F (2 seeds) reaches b and takes a=2, b=3.
//! let s = State::from_parts(&rules, &[1, 0, 0, 0, 0, 2, 1, 2, 8, 0, 0, 0], &[20, 14], 0, 0).unwrap();
//! let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
//! assert_eq!(Opponent::Capture.choose(&rules, &s, &mut rng), Some(5));
//! assert_eq!(Opponent::Greedy.choose(&rules, &s, &mut rng), Some(5));
//! assert_eq!(Opponent::SelfPlay.choose(&rules, &s, &mut rng), None);
//! ```

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use crate::choice;
use crate::error::{AwaleError, Result};
use crate::rules::Rules;
use crate::state::State;

/// A move-picking policy that can play the opponent seats of a batch. Implementations must be
/// deterministic given the `rng` stream (it is the board's own), so that batches stay
/// reproducible.
pub trait OpponentPolicy: Send + Sync + fmt::Debug {
    /// A short name, for display.
    fn name(&self) -> &str;

    /// Picks a house of the player to move of `state`: one whose bit is set in `legal` (never
    /// zero). A house outside `legal` is replaced by the lowest legal one.
    fn choose(&self, rules: &Rules, state: &State, legal: u16, rng: &mut ChaCha8Rng) -> usize;
}

/// Who plays the seats other than the caller's.
///
/// ```
/// use awale::batch::Opponent;
/// assert!("self".parse::<Opponent>().unwrap().is_self_play());
/// assert_eq!("greedy".parse::<Opponent>().unwrap().name(), "greedy");
/// assert_eq!("capture".parse::<Opponent>().unwrap().name(), "capture");
/// assert!("alphazero".parse::<Opponent>().is_err());
/// ```
#[derive(Debug, Clone, Default)]
pub enum Opponent {
    /// The caller plays every seat; each step moves the player to move, and rewards are given
    /// from every player's point of view.
    #[default]
    SelfPlay,
    /// Uniformly random legal moves.
    Random,
    /// The move that captures the most seeds at once ([`crate::choice::capture`]); ties broken
    /// uniformly at random. (Before 0.2 this rule was named `greedy`.)
    Capture,
    /// The tournament's `greedy` agent's rule ([`crate::choice::greedy`]): the largest store
    /// gain net of the best rival's gain during the move; ties broken uniformly at random.
    Greedy,
    /// Any other policy.
    Policy(Arc<dyn OpponentPolicy>),
    /// A league: each board draws one member per episode (uniformly, from its own random
    /// stream, when the episode starts), which plays every opponent move of that episode.
    League(Arc<League>),
}

/// The members of an [`Opponent::League`].
///
/// ```
/// use awale::batch::{League, Opponent};
/// let league = League::new(vec![Opponent::Random, Opponent::Greedy]).unwrap();
/// assert_eq!(league.name(), "league:random|greedy");
/// assert!(League::new(vec![Opponent::SelfPlay]).is_err());
/// ```
#[derive(Debug)]
pub struct League {
    name: String,
    members: Vec<Opponent>,
}

impl League {
    /// The most members a league holds.
    pub const MAX_MEMBERS: usize = 255;

    /// A league of `members` (1 to [`League::MAX_MEMBERS`], none of them self-play or a league).
    pub fn new(members: Vec<Opponent>) -> Result<League> {
        if members.is_empty() || members.len() > League::MAX_MEMBERS {
            return Err(AwaleError::BadBatchInput(format!(
                "a league needs 1 to {} members, got {}",
                League::MAX_MEMBERS,
                members.len()
            )));
        }
        if let Some(m) = members
            .iter()
            .find(|m| m.is_self_play() || matches!(m, Opponent::League(_)))
        {
            return Err(AwaleError::BadBatchInput(format!(
                "a league's members are opponents, not '{}'",
                m.name()
            )));
        }
        let names: Vec<&str> = members.iter().map(Opponent::name).collect();
        Ok(League {
            name: format!("league:{}", names.join("|")),
            members,
        })
    }

    /// `league:` and the members' names joined by `|`, as
    /// [`crate::agents::opponent_from_spec`] reads it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The members, in order (a board's member index points here).
    pub fn members(&self) -> &[Opponent] {
        &self.members
    }
}

impl Opponent {
    /// The names of the built-in opponents, as [`str::parse`] accepts them.
    pub const NAMES: [&'static str; 4] = ["self", "random", "capture", "greedy"];

    /// True for [`Opponent::SelfPlay`].
    pub fn is_self_play(&self) -> bool {
        matches!(self, Opponent::SelfPlay)
    }

    /// The opponent's name.
    pub fn name(&self) -> &str {
        match self {
            Opponent::SelfPlay => "self",
            Opponent::Random => "random",
            Opponent::Capture => "capture",
            Opponent::Greedy => "greedy",
            Opponent::Policy(p) => p.name(),
            Opponent::League(l) => l.name(),
        }
    }

    /// The number of members of a league, 0 for any other opponent.
    pub fn league_size(&self) -> usize {
        match self {
            Opponent::League(l) => l.members.len(),
            _ => 0,
        }
    }

    /// The house this opponent plays for the player to move of `state`, or `None` for
    /// self-play or when no move is legal. A league draws a member from `rng` for this move
    /// (in a batch a board keeps its member for the whole episode).
    pub fn choose(&self, rules: &Rules, state: &State, rng: &mut ChaCha8Rng) -> Option<usize> {
        let legal = state.legal_mask(rules);
        if legal == 0 || self.is_self_play() {
            return None;
        }
        let member = match self.league_size() {
            0 => 0,
            k => rng.random_range(0..k),
        };
        Some(self.pick(rules, state, legal, member, rng))
    }

    /// [`Opponent::choose`] for a known non-zero `legal` mask and a non-self-play opponent;
    /// `member` is the league member that plays (ignored by other opponents).
    #[inline]
    pub(crate) fn pick(
        &self,
        rules: &Rules,
        state: &State,
        legal: u16,
        member: usize,
        rng: &mut ChaCha8Rng,
    ) -> usize {
        match self {
            Opponent::League(l) => {
                l.members[member.min(l.members.len() - 1)].pick(rules, state, legal, 0, rng)
            }
            Opponent::SelfPlay | Opponent::Random => random_legal(legal, rng),
            Opponent::Capture => choice::capture(rules, state, legal, rng),
            Opponent::Greedy => choice::greedy(rules, state, legal, rng),
            Opponent::Policy(p) => {
                let h = p.choose(rules, state, legal, rng);
                if h < 16 && legal & (1 << h) != 0 {
                    h
                } else {
                    legal.trailing_zeros() as usize
                }
            }
        }
    }
}

impl fmt::Display for Opponent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Opponent {
    type Err = AwaleError;

    /// Parses `self` (also `selfplay`, `self-play`, `none`), `random`, `capture` or `greedy`.
    fn from_str(s: &str) -> Result<Opponent> {
        match s.trim().to_ascii_lowercase().as_str() {
            "self" | "selfplay" | "self-play" | "self_play" | "none" => Ok(Opponent::SelfPlay),
            "random" => Ok(Opponent::Random),
            "capture" => Ok(Opponent::Capture),
            "greedy" => Ok(Opponent::Greedy),
            _ => Err(AwaleError::BadBatchInput(format!(
                "unknown opponent '{s}' (known: {})",
                Opponent::NAMES.join(", ")
            ))),
        }
    }
}

/// A uniformly random set bit of `legal` (non-zero), drawn from `rng`.
#[inline]
pub(crate) fn random_legal(legal: u16, rng: &mut ChaCha8Rng) -> usize {
    debug_assert!(legal != 0);
    let k = rng.random_range(0..legal.count_ones());
    let mut m = legal;
    for _ in 0..k {
        m &= m - 1;
    }
    m.trailing_zeros() as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[derive(Debug)]
    struct Lowest;
    impl OpponentPolicy for Lowest {
        fn name(&self) -> &str {
            "lowest"
        }
        fn choose(&self, _: &Rules, _: &State, legal: u16, _: &mut ChaCha8Rng) -> usize {
            legal.trailing_zeros() as usize
        }
    }

    #[derive(Debug)]
    struct Broken;
    impl OpponentPolicy for Broken {
        fn name(&self) -> &str {
            "broken"
        }
        fn choose(&self, _: &Rules, _: &State, _: u16, _: &mut ChaCha8Rng) -> usize {
            99
        }
    }

    #[test]
    fn random_is_uniform_over_legal_moves() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut counts = [0u32; 16];
        for _ in 0..6000 {
            counts[random_legal(0b101001, &mut rng)] += 1;
        }
        for (h, &c) in counts.iter().enumerate() {
            if [0, 3, 5].contains(&h) {
                assert!((1800..2200).contains(&c), "house {h}: {c}");
            } else {
                assert_eq!(c, 0);
            }
        }
    }

    #[test]
    fn custom_policies_plug_in_and_illegal_picks_are_replaced() {
        let rules = Rules::abapa();
        let s = State::initial(&rules, 0);
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        let lowest = Opponent::Policy(Arc::new(Lowest));
        assert_eq!(lowest.name(), "lowest");
        assert_eq!(lowest.choose(&rules, &s, &mut rng), Some(0));
        let broken = Opponent::Policy(Arc::new(Broken));
        assert_eq!(broken.choose(&rules, &s, &mut rng), Some(0));
    }

    #[test]
    fn names_round_trip() {
        for name in Opponent::NAMES {
            assert_eq!(name.parse::<Opponent>().unwrap().name(), name);
        }
        let e = "alphazero".parse::<Opponent>().unwrap_err().to_string();
        assert!(e.contains("self, random, capture, greedy"), "{e}");
    }

    #[test]
    fn greedy_is_the_agents_rule() {
        use crate::agents::{Agent, GreedyAgent, Turn};
        // The agent and the opponent make the same choice from the same random stream.
        for spec in ["abapa", "oware4"] {
            let rules: Rules = spec.parse().unwrap();
            let mut st = State::initial(&rules, 0);
            let mut walk = ChaCha8Rng::seed_from_u64(2);
            for k in 0..300u64 {
                if st.is_over() {
                    st = State::initial(&rules, 0);
                }
                let mut agent = GreedyAgent::new(k);
                let mut rng = ChaCha8Rng::seed_from_u64(k);
                let a = agent.select(&Turn::new(&rules, &st)).unwrap();
                assert_eq!(Opponent::Greedy.choose(&rules, &st, &mut rng), Some(a));
                let legal = st.legal_mask(&rules);
                st.apply_unchecked(&rules, random_legal(legal, &mut walk));
            }
        }
    }

    #[test]
    fn greedy_breaks_ties_at_random() {
        let rules = Rules::abapa();
        let s = State::initial(&rules, 0);
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut seen = 0u16;
        for _ in 0..200 {
            seen |= 1 << Opponent::Greedy.choose(&rules, &s, &mut rng).unwrap();
            seen |= 1 << (Opponent::Capture.choose(&rules, &s, &mut rng).unwrap() + 8);
        }
        assert_eq!(seen, 0b11_1111_0011_1111); // no capture anywhere: every move is a tie
    }
}
