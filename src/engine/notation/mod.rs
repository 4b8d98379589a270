//! Text formats: positions, moves, game records and the ASCII board. Every format round-trips
//! (parse what was written, get the same thing back), and every parser answers bad text with a
//! typed error ([`AwaleError::BadPosition`], [`AwaleError::BadMoveNotation`],
//! [`AwaleError::BadRecord`]) that names the problem.
//!
//! # Position notation
//!
//! `RULES ROWS STORES TO_MOVE [PLY]`, fields separated by spaces:
//!
//! - `RULES`: a rules spec such as `abapa` or `wari:max_plies=200` (see
//!   [`Rules`](crate::Rules); a spec never contains spaces);
//! - `ROWS`: each player's houses in sowing order (house `A` first), comma separated, players
//!   separated by `/` (player 0 first);
//! - `STORES`: each player's captured seeds, comma separated;
//! - `TO_MOVE`: the player to move, 0-based;
//! - `PLY`: plies played so far, optional (default 0, and left out when 0).
//!
//! Two shorthands give the start position: a lone rules spec (`oware3`), and the keyword `start`
//! in place of `ROWS STORES` optionally followed by the player to move (`oware3 start 2`). With no
//! player given, the rules' fixed first player moves (player 0 when the rules draw the first player
//! at random).
//!
//! ```
//! use awale::notation::{format_position, parse_position};
//! let (rules, state) = parse_position("abapa 4,4,4,4,4,4/4,4,4,4,4,4 0,0 0").unwrap();
//! assert_eq!(state.legal_moves(&rules).len(), 6);
//! assert_eq!(format_position(&rules, &state), "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0,0 0");
//! let (_, same) = parse_position("abapa").unwrap();
//! assert_eq!(same, state);
//! ```
//!
//! # Move notation
//!
//! As in the common Awalé notation (`001_*`): in a 2-player game `A`–`F` are South's (player 0's)
//! houses in sowing order and `a`–`f` North's (player 1's), so the letter's case tells who played.
//! With 3 or more players a move is the player's digit and the house letter: `2C`.
//!
//! # Game records
//!
//! See [`GameRecord`]: tag lines such as `[Rules "abapa"]` followed by the moves.
//!
//! # Board
//!
//! [`render_board`] draws a position for the terminal.

mod board;
mod moves;
mod position;
mod record;

pub use board::{render_board, result_text};
pub use moves::{format_move, house_range, parse_move, parse_move_token, player_name};
pub use position::{format_position, parse_position};
pub use record::{GameRecord, RecordedMove};

use crate::error::AwaleError;

fn bad_position(text: &str, reason: impl Into<String>) -> AwaleError {
    AwaleError::BadPosition {
        text: text.to_string(),
        reason: reason.into(),
    }
}

fn bad_move(text: &str, reason: impl Into<String>) -> AwaleError {
    AwaleError::BadMoveNotation {
        text: text.to_string(),
        reason: reason.into(),
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}
