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
//! engine as an agent) is [`crate::protocol::referee`]; the server (any agent as an engine) is
//! [`crate::protocol::server`], behind `awale engine SPEC`. The protocol with a transcript:
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

/// `text` an engine wrote (a line, its stderr, an option's values) made safe to print on a
/// terminal or in a record: every control character (C0, DEL, C1: an escape sequence, a bell, a
/// carriage return) and every bidirectional override is written as an escape (`\x1b`,
/// `\u{202e}`), the rest as it is. The same characters `games.jsonl` (JSON) escapes, and the C1
/// and bidirectional ones JSON leaves raw. Escaping escaped text changes nothing.
///
/// ```
/// assert_eq!(awale::protocol::uci::printable("a\x1b]0;owned\x07b"), "a\\x1b]0;owned\\x07b");
/// assert_eq!(awale::protocol::uci::printable("plain: ok"), "plain: ok");
/// ```
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    let unsafe_char =
        |c: char| c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
    if !text.chars().any(unsafe_char) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            c if !unsafe_char(c) => out.push(c),
            c if (c as u32) < 0x100 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::printable;

    #[test]
    fn engine_text_loses_every_control_character() {
        let hostile = "\x1b]0;pwned\x07\x1b[2J\r\n\0\u{9b}31m\u{202e}evil\t";
        let shown = printable(hostile);
        assert!(!shown.chars().any(|c| c.is_control()), "{shown}");
        assert_eq!(
            shown,
            "\\x1b]0;pwned\\x07\\x1b[2J\\x0d\\x0a\\x00\\x9b31m\\u{202e}evil\\x09"
        );
        assert_eq!(printable(&shown), shown, "escaping twice changes nothing");
        assert!(matches!(
            printable("é, ü: fine"),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
