//! The greedy agent: the move with the best immediate gain.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{no_move, Agent, Turn};
use crate::error::Result;
use crate::state::State;

/// Plays the move that gains most at once: the seeds the mover's store gains by the move
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

    /// The immediate gain of each legal move, as `(house, gain)`.
    pub fn gains(turn: &Turn<'_>) -> Vec<(usize, i32)> {
        let rules = turn.rules;
        let s = turn.state;
        let mask = s.legal_mask(rules);
        let me = s.to_move();
        (0..rules.houses as usize)
            .filter(|h| mask & (1 << h) != 0)
            .map(|h| {
                let mut next = *s;
                next.apply_unchecked(rules, h);
                (h, gain(rules.players as usize, me, s, &next))
            })
            .collect()
    }
}

/// The mover's store gain minus the largest gain of another player.
fn gain(players: usize, me: usize, before: &State, after: &State) -> i32 {
    let delta = |p: usize| after.scores()[p] as i32 - before.scores()[p] as i32;
    let others = (0..players)
        .filter(|&p| p != me)
        .map(delta)
        .max()
        .unwrap_or(0);
    delta(me) - others
}

impl Agent for GreedyAgent {
    fn name(&self) -> String {
        "greedy".into()
    }

    fn select(&mut self, turn: &Turn<'_>) -> Result<usize> {
        let gains = GreedyAgent::gains(turn);
        let best = match gains.iter().map(|&(_, g)| g).max() {
            Some(b) => b,
            None => return Err(no_move("greedy", turn.state)),
        };
        let ties: Vec<usize> = gains
            .iter()
            .filter(|&&(_, g)| g == best)
            .map(|&(h, _)| h)
            .collect();
        Ok(ties[self.rng.random_range(0..ties.len())])
    }

    fn reset(&mut self, seed: u64) {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
    }
}
