//! The endgame yardstick: how close to perfect an agent plays positions with few seeds left.
//!
//! [`endgame_positions`] draws a fixed, seeded set of positions with at most `N` seeds on the
//! board from real games between built-in agents; [`endgame_accuracy`] asks a chooser (an
//! [`Agent`], a network, a Python callable) for a move in each and scores it against the
//! endgame table: the share of optimal moves, the mean seeds lost per move, and the share of
//! moves that keep the game's result (a search that only plays to win may give up seeds that
//! do not change the result).
//!
//! ```
//! use awale::agents::build_agent;
//! use awale::ratings::endgame::{endgame_accuracy, endgame_positions};
//! use awale::tablebase::Tablebase;
//! use awale::Rules;
//! let rules = Rules::abapa();
//! let table = Tablebase::build(&rules, 6, 1, &|_| {}).unwrap();
//! let positions = endgame_positions(&rules, 6, 20, 7).unwrap();
//! assert_eq!(positions.len(), 20);
//! let mut greedy = build_agent("greedy", &rules).unwrap();
//! let score = endgame_accuracy(&table, &rules, &positions, &mut greedy).unwrap();
//! assert_eq!(score.positions, 20);
//! assert!(score.optimal_share() <= 1.0);
//! ```

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::agents::{build_agent, derive_seed, Agent, Turn};
use crate::error::{AwaleError, Result};
use crate::game::Game;
use crate::rules::Rules;
use crate::state::State;
use crate::tablebase::Tablebase;

/// The built-in agents whose games the positions are drawn from (in turn, both seats).
pub const SOURCE_AGENTS: [&str; 3] = ["greedy", "alphabeta:depth=2", "alphabeta:depth=4"];

/// Most games played to find the positions, per position asked.
const GAMES_PER_POSITION: usize = 20;

/// `count` positions with at most `max_seeds` seeds on the board (and at least two legal moves),
/// one per game, each drawn at random among the positions of its game, from games between
/// [`SOURCE_AGENTS`] (a random opening of 2 to 9 plies, then the agents). The same arguments
/// give the same positions.
pub fn endgame_positions(
    rules: &Rules,
    max_seeds: usize,
    count: usize,
    seed: u64,
) -> Result<Vec<State>> {
    let mut out = Vec::with_capacity(count);
    let mut game_no = 0u64;
    while out.len() < count {
        if game_no as usize >= count * GAMES_PER_POSITION + 100 {
            return Err(AwaleError::Tablebase(format!(
                "only {} of {count} positions with at most {max_seeds} seeds found in {game_no} \
                 games: ask for more seeds",
                out.len()
            )));
        }
        let game_seed = derive_seed(seed, game_no);
        let mut rng = ChaCha8Rng::seed_from_u64(game_seed);
        let south = SOURCE_AGENTS[(game_no % 3) as usize];
        let north = SOURCE_AGENTS[((game_no / 3) % 3) as usize];
        game_no += 1;
        let mut agents = [build_agent(south, rules)?, build_agent(north, rules)?];
        agents[0].reset(derive_seed(game_seed, 0));
        agents[1].reset(derive_seed(game_seed, 1));
        let mut game = Game::new(*rules);
        let opening = rng.random_range(2..10);
        let mut candidates = Vec::new();
        while !game.is_over() && game.state().ply() < 400 {
            let s = *game.state();
            if s.board_seeds(rules) as usize <= max_seeds && s.legal_mask(rules).count_ones() >= 2 {
                candidates.push(s);
            }
            let house = if game.state().ply() < opening {
                let legal = s.legal_moves(rules);
                legal[rng.random_range(0..legal.len())]
            } else {
                agents[s.to_move()].select(&Turn::from_game(&game))?
            };
            game.apply(house)?;
        }
        if !candidates.is_empty() {
            out.push(candidates[rng.random_range(0..candidates.len())]);
        }
    }
    Ok(out)
}

/// How a chooser played a set of endgame positions.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct EndgameScore {
    /// Positions scored.
    pub positions: usize,
    /// Moves of the best value.
    pub optimal: usize,
    /// Seeds lost against perfect play, over every position.
    pub seeds_lost: u64,
    /// Moves that keep the game's result under perfect play (win, draw or loss, from the
    /// stores and the value), whether or not they keep every seed.
    pub result_kept: usize,
}

impl EndgameScore {
    /// The share of optimal moves (0 to 1).
    pub fn optimal_share(&self) -> f64 {
        self.optimal as f64 / self.positions.max(1) as f64
    }

    /// Mean seeds lost per move against perfect play.
    pub fn mean_loss(&self) -> f64 {
        self.seeds_lost as f64 / self.positions.max(1) as f64
    }

    /// The share of moves that keep the game's result (0 to 1).
    pub fn result_share(&self) -> f64 {
        self.result_kept as f64 / self.positions.max(1) as f64
    }
}

/// Scores `agent`'s move in each position against `table` (each position seen without history,
/// the agent reset with the position's number first).
pub fn endgame_accuracy(
    table: &Tablebase,
    rules: &Rules,
    positions: &[State],
    agent: &mut dyn Agent,
) -> Result<EndgameScore> {
    endgame_accuracy_of(table, positions, |i, s| {
        agent.reset(i as u64);
        agent.select(&Turn::new(rules, s))
    })
}

/// Scores the move `choose(index, position)` returns in each position against `table`.
pub fn endgame_accuracy_of(
    table: &Tablebase,
    positions: &[State],
    mut choose: impl FnMut(usize, &State) -> Result<usize>,
) -> Result<EndgameScore> {
    let mut score = EndgameScore::default();
    for (i, s) in positions.iter().enumerate() {
        let probe = table.probe(s)?;
        let house = choose(i, s)?;
        let loss = probe.loss(house).ok_or_else(|| AwaleError::IllegalMove {
            player: s.to_move(),
            house,
            reason: "not a legal move of the endgame position",
        })?;
        let me = s.to_move();
        let result = |value: u8| {
            let mine = i32::from(s.scores()[me]) + i32::from(value);
            let theirs = i32::from(s.scores()[1 - me]) + i32::from(probe.seeds - value);
            mine.cmp(&theirs)
        };
        score.positions += 1;
        score.optimal += usize::from(loss == 0);
        score.seeds_lost += loss as u64;
        score.result_kept +=
            usize::from(result(probe.best_value() - loss) == result(probe.best_value()));
    }
    Ok(score)
}
