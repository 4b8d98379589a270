//! # awale
//!
//! A rules engine, batch simulator and training toolkit for the Awalé family of mancala games:
//! Oware/Abapa (international rules), Awalé, Wari and the multi-player Owaré.
//!
//! - [`Rules`]: a rule set as data, from named presets and options (`"abapa"`, `"oware:players=4"`).
//! - [`State`]: a position and the engine's transition functions (`Copy`, allocation-free).
//! - [`Game`]: a position with its repetition history and move list.
//! - [`notation`]: positions, moves, game records and the ASCII board as text.
//!
//! ```
//! use awale::{Game, Rules};
//! let mut game = Game::new("abapa".parse::<Rules>().unwrap());
//! game.apply(2).unwrap();
//! assert_eq!(game.to_move(), 1);
//! ```

// Every public item is documented (`cargo clippy` and the reference's `cargo doc` fail on one
// that is not; see docs/reference.sh).
#![warn(missing_docs)]

// Lets the command-line modules (`src/cli/`) name this crate `awale::...` from inside it.
extern crate self as awale;

pub mod engine;
pub use engine::{
    board_index, choice, error, game, history, notation, perft, presets, rules, state, utility,
};

pub use error::{AwaleError, Result};
pub use game::Game;
pub use history::History;
pub use presets::{PresetDef, PRESET_SPECS};
pub use rules::{
    CycleRule, Feeding, FirstPlayer, GrandSlam, Preset, Rules, Sowing, Starvation, MAX_PITS,
    MAX_PLAYERS,
};
pub use state::{outcome_from_scores, EndReason, MoveInfo, PositionKey, State, Status};
pub use utility::Utility;

pub mod agent_kinds;
pub mod agents;
pub mod az;
pub mod batch;
pub mod bench;
pub mod digest;
pub mod env_spec;
pub mod files;
pub mod protocol;
pub mod ratings;
pub mod search;
pub mod tablebase;
pub mod tournament;

#[cfg(feature = "train")]
pub mod network;
#[cfg(feature = "train")]
pub mod train;

/// The `awale` command line (cargo feature `cli`): used by the binary (`src/main.rs`) and by the
/// Python extension's `awale._core.main` (the `awale` console script of the wheel). Not a
/// stable API.
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod cli;

/// `awale serve`: the local web page and its JSON API (cargo feature `serve`), a server of its
/// own that the command line starts. Not a stable API.
#[cfg(feature = "serve")]
#[doc(hidden)]
pub mod serve;

#[cfg(feature = "python")]
pub mod python;
