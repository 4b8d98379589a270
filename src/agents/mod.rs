//! Agents: anything that chooses moves. One trait, [`Agent`], and the built-in players:
//!
//! | spec | agent | games |
//! |------|-------|-------|
//! | `random` | [`RandomAgent`]: a uniformly random legal move | all |
//! | `greedy` | [`GreedyAgent`]: the best immediate gain, ties broken at random | all |
//! | `alphabeta:depth=8` | [`AlphaBeta`]: negamax with iterative deepening and a transposition table | 2 players |
//! | `mcts:sims=2000` | [`Mcts`]: UCT with random playouts, per-player returns (max^n) | all |
//! | `engine:cmd=PATH` | [`ProgramAgent`](crate::protocol::referee::ProgramAgent): a program in another process, over UCI or JSON lines | 2 players, 6 houses |
//!
//! Agents are built from text specs ([`spec`]) by the [`Registry`] ([`registry`]); each kind
//! declares its options once, next to its agent, as an [`AgentKind`] ([`kind`]). Trained networks
//! (`nn`) join through the same interface. [`agent_policy`] makes any of them a batch opponent. Every agent is reproducible: after
//! [`Agent::reset`] with a seed it plays the same moves in the same positions (time limits aside).
//!
//! ```
//! use awale::agents::{build_agent, Turn};
//! use awale::{Game, Rules};
//! let rules = Rules::abapa();
//! let mut game = Game::new(rules);
//! let mut agents = [build_agent("greedy", &rules).unwrap(), build_agent("alphabeta:depth=3", &rules).unwrap()];
//! while !game.is_over() && game.moves().len() < 40 {
//!     let mv = agents[game.to_move()].select(&Turn::from_game(&game)).unwrap();
//!     game.apply(mv).unwrap();
//! }
//! ```

use rand::Rng;

use crate::error::Result;
use crate::game::Game;
use crate::rules::Rules;
use crate::state::{PositionKey, State};

pub mod agent_policy;
pub mod alphabeta;
pub mod eval;
pub mod greedy;
pub mod hint;
pub mod kind;
pub mod mcts;
pub mod perfect;
pub mod playout;
pub mod random;
pub mod registry;
pub mod spec;
pub mod stop;
pub mod thoughts;

pub use agent_policy::{opponent_from_spec, AgentPolicy};
pub use alphabeta::{AlphaBeta, AlphaBetaSettings, SearchResult};
pub use eval::Evaluator;
pub use greedy::GreedyAgent;
pub use hint::{hint, HINT_TT_MB};
pub use kind::{
    AgentFactory, AgentKind, AgentOption, Cost, Demand, Kind, OptionInfo, Plan, Shared,
};
pub use mcts::{Mcts, MctsConfig, MctsResult};
pub use perfect::PerfectAgent;
pub use playout::PlayoutEvaluator;
pub use random::RandomAgent;
pub use registry::{build_agent, Registry, RegistryEntry};
pub use spec::{parse_agent_list, AgentSpec};
pub use stop::{search_limit, StopSignal};
pub use thoughts::{MoveThought, Thoughts};

/// What an agent sees when it is asked to move: the rules, the position, and the positions seen
/// since the last capture (for the rules' repetition ending; may be empty).
#[derive(Debug, Clone, Copy)]
pub struct Turn<'a> {
    /// The rules of the game.
    pub rules: &'a Rules,
    /// The position; its player to move is the one the agent plays for.
    pub state: &'a State,
    /// Positions seen since the last capture, oldest first, the current one included when known
    /// (see [`crate::History::keys`]).
    pub history: &'a [PositionKey],
}

impl<'a> Turn<'a> {
    /// A turn without history (repetitions before this position are unknown to the agent).
    pub fn new(rules: &'a Rules, state: &'a State) -> Turn<'a> {
        Turn {
            rules,
            state,
            history: &[],
        }
    }

    /// The current turn of a game, with its repetition history.
    pub fn from_game(game: &'a Game) -> Turn<'a> {
        Turn {
            rules: game.rules(),
            state: game.state(),
            history: game.history().keys(),
        }
    }
}

/// A player: given a [`Turn`], chooses a house of the player to move.
///
/// Agents are `Send` so that tournaments can play games on several threads; each game gets its
/// own agent instances (see [`crate::tournament::Entrant`]). An agent written in another
/// language (a Python callable) is wrapped by implementing this trait.
///
/// ```
/// use awale::agents::{Agent, Turn};
/// use awale::{Game, Result, Rules};
/// /// Always plays the leftmost legal house.
/// struct Leftmost;
/// impl Agent for Leftmost {
///     fn name(&self) -> String { "leftmost".into() }
///     fn select(&mut self, turn: &Turn<'_>) -> Result<usize> {
///         Ok(turn.state.legal_mask(turn.rules).trailing_zeros() as usize)
///     }
///     fn reset(&mut self, _seed: u64) {}
/// }
/// let game = Game::new(Rules::abapa());
/// assert_eq!(Leftmost.select(&Turn::from_game(&game)).unwrap(), 0);
/// ```
pub trait Agent: Send {
    /// The agent's display name (its spec, for built-in agents).
    fn name(&self) -> String;

    /// Chooses a legal house (0-based in the mover's row) for the player to move. Called only
    /// while the game goes on. An error stops the game that asked.
    fn select(&mut self, turn: &Turn<'_>) -> Result<usize>;

    /// Prepares for a new game: forgets per-game state and reseeds the agent's random
    /// generator, so that the same seed gives the same play.
    fn reset(&mut self, seed: u64);

    /// What the last [`Agent::select`] found (its evaluation, search size, root visits), for
    /// people watching; `None` for agents that do not search (and before the first move).
    fn thoughts(&self) -> Option<Thoughts> {
        None
    }

    /// Hands the agent a [`StopSignal`] to read while it thinks. From now on, each
    /// [`Agent::select`] ends soon (well under 10 ms) after `stop.stop()` and plays its best
    /// move found so far, exactly as when its own clock (`move_time_ms`) runs out; with the signal
    /// already raised, `select` still plays a legal move (the search's first candidate: one
    /// simulation, depth 1), never an error. The default does nothing: for agents that do not
    /// think (random, greedy).
    fn set_stop(&mut self, stop: StopSignal) {
        let _ = stop;
    }

    /// Limits how many plies the next searches look ahead: at most `depth` (and never more than
    /// the agent's own depth); `None` lifts the limit. Returns whether the agent searches by
    /// depth and so honours it (a UCI `go depth N`); the default ignores it and returns false:
    /// for agents without a depth (random, greedy, mcts, networks).
    fn set_depth_limit(&mut self, depth: Option<u32>) -> bool {
        let _ = depth;
        false
    }

    /// The most memory, in bytes, the agent holds while it plays games under `rules`, beyond
    /// its few fields: its transposition table, its search tree at its whole simulation budget,
    /// its network (endgame tables are shared between agents and not counted). A server counts
    /// it against its budget (`awale serve --memory-mb`). The default, 0, is for agents that
    /// hold next to nothing (random, greedy).
    ///
    /// ```
    /// use awale::agents::{Agent, AlphaBeta, AlphaBetaSettings, RandomAgent};
    /// use awale::Rules;
    /// let ab = AlphaBeta::new(AlphaBetaSettings { tt_mb: 4, ..Default::default() });
    /// assert!(ab.memory_bytes(&Rules::abapa()) <= 4 << 20);
    /// assert_eq!(RandomAgent::new(0).memory_bytes(&Rules::abapa()), 0);
    /// ```
    fn memory_bytes(&self, rules: &Rules) -> u64 {
        let _ = rules;
        0
    }

    /// Whether a failure of this agent loses its game (by forfeit) instead of stopping the run:
    /// true for programs in other processes ([`crate::protocol::referee`]), which may crash, hang or answer an
    /// illegal move; false (the default) for agents of this process, whose failures are bugs.
    /// A tournament records such a game as lost by the failing seat, with the reason.
    fn forfeits(&self) -> bool {
        false
    }

    /// Keeps what the agent writes for people (an engine's stderr) in the run folder `dir`,
    /// from now on. The default does nothing.
    fn log_to(&mut self, dir: &std::path::Path) {
        let _ = dir;
    }
}

impl std::fmt::Debug for dyn Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Agent({})", self.name())
    }
}

impl<A: Agent + ?Sized> Agent for Box<A> {
    fn name(&self) -> String {
        (**self).name()
    }
    fn select(&mut self, turn: &Turn<'_>) -> Result<usize> {
        (**self).select(turn)
    }
    fn reset(&mut self, seed: u64) {
        (**self).reset(seed)
    }
    fn thoughts(&self) -> Option<Thoughts> {
        (**self).thoughts()
    }
    fn set_stop(&mut self, stop: StopSignal) {
        (**self).set_stop(stop)
    }
    fn set_depth_limit(&mut self, depth: Option<u32>) -> bool {
        (**self).set_depth_limit(depth)
    }
    fn memory_bytes(&self, rules: &Rules) -> u64 {
        (**self).memory_bytes(rules)
    }
    fn forfeits(&self) -> bool {
        (**self).forfeits()
    }
    fn log_to(&mut self, dir: &std::path::Path) {
        (**self).log_to(dir)
    }
}

// The seed mixers live with the random streams (`src/batch/rng.rs`); agents, tournaments and
// searches name them here.
pub use crate::batch::derive_seed;
pub(crate) use crate::batch::splitmix;

/// A uniformly random set bit of `mask` (which must not be zero), as its index.
#[inline]
pub(crate) fn random_bit<R: Rng>(rng: &mut R, mask: u16) -> usize {
    let n = mask.count_ones();
    debug_assert!(n > 0);
    let mut k = if n == 1 { 0 } else { rng.random_range(0..n) };
    let mut m = mask;
    while k > 0 {
        m &= m - 1;
        k -= 1;
    }
    m.trailing_zeros() as usize
}

/// The error an agent returns when asked to move in a finished game.
pub(crate) fn no_move(agent: &str, state: &State) -> crate::error::AwaleError {
    crate::error::AwaleError::AgentFailed {
        agent: agent.to_string(),
        reason: format!("asked to move but the game is over ({})", state.status()),
    }
}
