//! The text protocol that lets programs in other processes play: the UCI dialect of Aalina
//! (joansalasoler/oware, `UCIService.java`), which its GUI Aualé speaks to engines.
//!
//! One command a line, both ways, UTF-8, each line flushed:
//!
//! | referee → engine | engine → referee |
//! |------------------|------------------|
//! | `uci` | `id name …`, `id author …`, `option name … type …`, then `uciok` |
//! | `setoption name UCI_Variant value wari` | (nothing) |
//! | `isready` | `readyok` |
//! | `ucinewgame` | (nothing) |
//! | `position startpos moves FaBf` or `position fen 4-4-4-4-4-4-4-4-4-4-4-4-0-0-S moves …` | (nothing) |
//! | `go movetime 100` (or `depth N`, `wtime/btime/winc/binc`, `infinite`) | `info …` lines, then `bestmove C` |
//! | `stop` | `bestmove …` at once |
//! | `quit` | (exits) |
//!
//! Moves are one letter: `A`–`F` South's houses, `a`–`f` North's, in sowing order (`a` faces
//! `F`), South first from `startpos` — this project's own move notation. Aalina writes a move list
//! as one word (`FaBf`); both forms are read here. Scores (`info score cp N`) are in hundredths
//! of a seed for the side to move.
//!
//! Aalina knows one rule set (abapa). An engine that plays several lists a combo option
//! `UCI_Variant` (as Fairy-Stockfish does for chess variants) whose values are rules specs; the
//! referee sets it before a game and refuses an engine that does not list the game's rules.
//!
//! The parts: [`position`] (FEN and moves), [`message`] (commands and replies). The client (an
//! engine as an agent) is [`crate::agents::engine`]; the server (any agent as an engine) is
//! [`crate::uci_server`], behind `awale engine SPEC`. The protocol with a transcript:
//! `docs/engines.md`.

pub mod message;
pub mod position;

pub use message::{Command, Go, Info, Reply, Start};
pub use position::{
    format_fen, legal_text, parse_fen, read_move, split_moves, unfit_rules, write_move,
};

/// The option through which an engine says which rule sets it plays, and is told which one.
pub const VARIANT_OPTION: &str = "UCI_Variant";

/// The rule set an engine plays when it lists no [`VARIANT_OPTION`]: Aalina's.
pub const DEFAULT_VARIANT: &str = "abapa";
