//! The random agent: a uniformly random legal move.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::kind::AgentKind;
use super::{no_move, random_bit, Agent, Turn};
use crate::error::Result;

/// Plays a uniformly random legal move, drawn with ChaCha8 from its seed. Every preset.
///
/// ```
/// use awale::agents::{Agent, RandomAgent, Turn};
/// use awale::{Game, Rules};
/// let game = Game::new(Rules::oware(3).unwrap());
/// let mut a = RandomAgent::new(7);
/// let mut b = RandomAgent::new(7);
/// let turn = Turn::from_game(&game);
/// assert_eq!(a.select(&turn).unwrap(), b.select(&turn).unwrap());
/// ```
#[derive(Debug, Clone)]
pub struct RandomAgent {
    rng: ChaCha8Rng,
}

impl RandomAgent {
    /// A random agent seeded with `seed`.
    pub fn new(seed: u64) -> RandomAgent {
        RandomAgent {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

impl Agent for RandomAgent {
    fn name(&self) -> String {
        "random".into()
    }

    fn select(&mut self, turn: &Turn<'_>) -> Result<usize> {
        let mask = turn.state.legal_mask(turn.rules);
        if mask == 0 {
            return Err(no_move("random", turn.state));
        }
        Ok(random_bit(&mut self.rng, mask))
    }

    fn reset(&mut self, seed: u64) {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
    }
}

/// The `random` kind: no options of its own (see [`super::kind`]).
pub static KIND: AgentKind<()> = AgentKind {
    kind: "random",
    summary: "a uniformly random legal move (every preset)",
    options: &[],
    defaults: || (),
    instant: true,
    memory: |()| 0,
    shared: None,
    build: |(), _, _, _| Ok(Box::new(RandomAgent::new(0))),
};
