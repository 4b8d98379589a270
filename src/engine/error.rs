//! The one error type of the crate: every bad input gets a variant that names the problem.

use thiserror::Error;

/// Everything that can go wrong when building rules, parsing text or playing moves.
///
/// ```
/// use awale::{Game, Rules, AwaleError};
/// let mut game = Game::new(Rules::abapa());
/// let err = game.apply(9).unwrap_err();
/// assert!(matches!(err, AwaleError::IllegalMove { .. }));
/// assert!(err.to_string().contains("house 9"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AwaleError {
    /// A rules preset name that does not exist.
    #[error("unknown rules preset '{name}' (known: {known})")]
    UnknownPreset {
        /// The name as written.
        name: String,
        /// The known presets, comma-separated (from the preset table).
        known: String,
    },
    /// A rules option that does not exist or has a bad value.
    #[error("bad rules option '{option}': {reason}")]
    BadOption {
        /// The option as written.
        option: String,
        /// Why it was refused.
        reason: String,
    },
    /// A rules combination that cannot be played (e.g. too many pits, too many seeds).
    #[error("invalid rules: {0}")]
    InvalidRules(String),
    /// A move that is not legal in the current position.
    #[error("illegal move: house {house} for player {player}: {reason}")]
    IllegalMove {
        /// The player who tried to move.
        player: usize,
        /// The house index (0-based, in the player's own row).
        house: usize,
        /// Why it is illegal.
        reason: &'static str,
    },
    /// A move attempted after the game ended.
    #[error("the game is over ({0}); no more moves can be played")]
    GameOver(String),
    /// A position string that cannot be parsed or describes an impossible position.
    #[error("bad position '{text}': {reason}")]
    BadPosition {
        /// The text as given.
        text: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A move written in a notation that cannot be parsed.
    #[error("bad move notation '{text}': {reason}")]
    BadMoveNotation {
        /// The text as given.
        text: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A game record that cannot be parsed or does not replay.
    #[error("bad game record: {0}")]
    BadRecord(String),
    /// A batch call given buffers or actions of the wrong size or content.
    #[error("bad batch input: {0}")]
    BadBatchInput(String),
    /// A batch step's action that is not a legal move of its board: out of the houses `0..h-1`
    /// (`reason` says so) or in range but not legal in the board's position.
    #[error("board {board}: action {action} {reason}")]
    IllegalAction {
        /// The board (0-based) whose action was refused.
        board: usize,
        /// The action as given (any integer type, widened).
        action: i128,
        /// Why: `is out of range 0..5` or `is not legal: the house is empty`.
        reason: String,
    },
    /// A batch step on a board whose episode is over and that waits for a reset (disabled
    /// resets).
    #[error("board {board}: its episode is over; reset it before stepping it again")]
    EpisodeOver {
        /// The board (0-based).
        board: usize,
    },
    /// An agent spec (`alphabeta:depth=8`) that cannot be parsed or built for the rules.
    #[error("bad agent spec '{spec}': {reason}")]
    BadAgentSpec {
        /// The spec as given.
        spec: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An agent failed to choose a move (or chose an illegal one).
    #[error("agent '{agent}' failed: {reason}")]
    AgentFailed {
        /// The agent's name.
        agent: String,
        /// What went wrong.
        reason: String,
    },
    /// A tournament that cannot be set up, resumed or rated.
    #[error("tournament: {0}")]
    Tournament(String),
    /// A match or sequential test that cannot be set up (bad SPRT bounds, an odd number of
    /// games, rules for more than two players).
    #[error("match: {0}")]
    Match(String),
    /// An endgame table that cannot be built, opened or probed (a corrupt or foreign file, a
    /// position it does not cover).
    #[error("tablebase: {0}")]
    Tablebase(String),
    /// A file could not be read or written.
    #[error("{path}: {reason}")]
    Io {
        /// The file or folder.
        path: String,
        /// The system's message.
        reason: String,
    },
}

/// Shorthand for results of this crate.
pub type Result<T> = std::result::Result<T, AwaleError>;
