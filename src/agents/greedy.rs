//! The greedy agent: the move with the best immediate gain.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::kind::AgentKind;
use super::{no_move, Agent, Turn};
use crate::choice;
use crate::error::Result;

/// Plays the move that gains most at once ([`crate::choice::greedy`], the one meaning of
/// `greedy` in the crate): the seeds the mover's store gains by the move
/// (captures, and seeds awarded when the move ends the game) minus the most any other player
/// gains during it (out-of-turn captures of the relay game). Ties are broken at random from the
/// agent's seed. Every preset.
///
/// ```
/// use awale::agents::{Agent, GreedyAgent, Turn};
/// use awale::{Rules, State};
/// let rules = Rules::abapa();
/// // House F (2 seeds) lands in b: a and b become 2 and 3, a capture of 5.
/// let s = State::from_parts(&rules, &[1, 0, 0, 0, 0, 2, 1, 2, 5, 0, 0, 0], &[20, 17], 0, 0).unwrap();
/// assert_eq!(GreedyAgent::new(0).select(&Turn::new(&rules, &s)).unwrap(), 5);
/// ```
#[derive(Debug, Clone)]
pub struct GreedyAgent {
    rng: ChaCha8Rng,
}

impl GreedyAgent {
    /// A greedy agent whose ties are broken with `seed`.
    pub fn new(seed: u64) -> GreedyAgent {
        GreedyAgent {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// The immediate gain of each legal move, as `(house, gain)` ([`crate::choice::greedy_gain`]).
    pub fn gains(turn: &Turn<'_>) -> Vec<(usize, i32)> {
        let rules = turn.rules;
        let s = turn.state;
        let mask = s.legal_mask(rules);
        (0..rules.houses as usize)
            .filter(|h| mask & (1 << h) != 0)
            .map(|h| {
                let mut next = *s;
                next.apply_unchecked(rules, h);
                (h, choice::greedy_gain(rules, s, &next))
            })
            .collect()
    }
}

impl Agent for GreedyAgent {
    fn name(&self) -> String {
        "greedy".into()
    }

    fn select(&mut self, turn: &Turn<'_>) -> Result<usize> {
        let legal = turn.state.legal_mask(turn.rules);
        if legal == 0 {
            return Err(no_move("greedy", turn.state));
        }
        Ok(choice::greedy(turn.rules, turn.state, legal, &mut self.rng))
    }

    fn reset(&mut self, seed: u64) {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
    }
}

/// The `greedy` kind: no options of its own (see [`super::kind`]).
pub static KIND: AgentKind<()> = AgentKind {
    kind: "greedy",
    summary: "the move with the best immediate gain, ties at random (every preset)",
    options: &[],
    defaults: || (),
    instant: true,
    memory: |()| 0,
    shared: None,
    build: |(), _, _, _| Ok(Box::new(GreedyAgent::new(0))),
};
