//! The messages of every protocol, whatever its dialect: [`Command`] (what a referee sends a
//! program) and [`Reply`] (what a program answers), with the helpers both sides quote a
//! program's text with ([`printable`], [`excerpt`]). A dialect ([`super::Dialect`]) reads and
//! writes them as lines: [`super::uci`] as Aalina's UCI text, [`super::jsonl`] as JSON objects.

/// The most characters of a referee's own text an error message quotes.
pub const QUOTED_CHARS: usize = 200;

/// `text` as an answer quotes it: its first `max_chars` characters, then `…` when it is
/// longer, every control or invisible character escaped by [`printable`] (`\x0a`,
/// `\x1b`, `\u{202e}`: the one escaping of every text that reaches a terminal), so that an
/// error stays one short printable line whatever it quotes. Escaping twice changes nothing more
/// (a backslash is kept as it is).
///
/// ```
/// use awale::protocol::message::excerpt;
/// assert_eq!(excerpt("go\u{1b}[2J\n", 200), "go\\x1b[2J\\x0a");
/// assert_eq!(excerpt(&"A".repeat(500), 3), "AAA…");
/// assert_eq!(excerpt(&excerpt("a\tb", 9), 9), "a\\x09b");
/// ```
pub fn excerpt(text: &str, max_chars: usize) -> String {
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(max_chars).collect();
    let mut out = printable(&head).into_owned();
    if chars.next().is_some() {
        out.push('…');
    }
    out
}

/// A piece of a line as an error quotes it ([`excerpt`] at [`QUOTED_CHARS`]).
pub fn quote(text: &str) -> String {
    excerpt(text, QUOTED_CHARS)
}

/// The rule set a program plays when it lists no variant option ([`super::Dialect::variant_option`]):
/// Aalina's.
pub const DEFAULT_VARIANT: &str = "abapa";

/// `text` a program wrote (a line, its stderr, an option's values) made safe to print on a
/// terminal or in a record: every control character (C0, DEL, C1: an escape sequence, a bell, a
/// carriage return) and every bidirectional override is written as an escape (`\x1b`,
/// `\u{202e}`), the rest as it is. The same characters `games.jsonl` (JSON) escapes, and the C1
/// and bidirectional ones JSON leaves raw. Escaping escaped text changes nothing.
///
/// ```
/// assert_eq!(awale::protocol::printable("a\x1b]0;owned\x07b"), "a\\x1b]0;owned\\x07b");
/// assert_eq!(awale::protocol::printable("plain: ok"), "plain: ok");
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

/// Where a `position` command starts: the start position or a FEN.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Start {
    /// `startpos`.
    StartPos,
    /// `fen 4-4-4-4-4-4-4-4-4-4-4-4-0-0-S`.
    Fen(String),
}

/// The limits of a `go` command; what is not given is `None`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Go {
    /// `movetime N`: think N milliseconds. The protocol's own word, kept as the wire writes it;
    /// elsewhere the project calls this the move time (`move_time_ms`).
    pub movetime: Option<u64>,
    /// `depth N`.
    pub depth: Option<u32>,
    /// `wtime`/`btime`: South's and North's time left (ms).
    pub time_left: [Option<u64>; 2],
    /// `winc`/`binc`: South's and North's increment per move (ms).
    pub increment: [Option<u64>; 2],
    /// `infinite`: think until `stop`.
    pub infinite: bool,
}

impl Go {
    /// The move time in milliseconds of the side `to_move` (0 South): `movetime`, else a twentieth
    /// of its time left plus its increment, else `None` (think until `stop` or the agent's own
    /// limit).
    ///
    /// ```
    /// use awale::protocol::{uci::Uci, Command, Dialect};
    /// let Command::Go(go) = Uci.parse_command("go wtime 2000 btime 4000 binc 50").unwrap() else { panic!() };
    /// assert_eq!((go.move_time_ms(0), go.move_time_ms(1)), (Some(100), Some(250)));
    /// ```
    pub fn move_time_ms(&self, to_move: usize) -> Option<u64> {
        if self.infinite {
            return None;
        }
        if let Some(ms) = self.movetime {
            return Some(ms);
        }
        let side = to_move.min(1);
        self.time_left[side].map(|t| t / 20 + self.increment[side].unwrap_or(0))
    }
}

/// A message sent to a program (each variant's doc shows it as UCI writes it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `uci`: say who you are and your options, then `uciok`.
    Uci,
    /// `isready`: answer `readyok` when ready.
    IsReady,
    /// `ucinewgame`: the next position belongs to a new game.
    NewGame,
    /// `setoption name NAME [value VALUE]`.
    SetOption {
        /// The option's name.
        name: String,
        /// Its value (absent for buttons).
        value: Option<String>,
    },
    /// `position startpos|fen FEN [moves M…]`.
    Position {
        /// Where the game starts.
        start: Start,
        /// The moves played since, one letter each.
        moves: Vec<String>,
        /// The legal moves of the position reached, when the dialect carries them (JSON lines
        /// does, for programs that know no rules; UCI does not: `None` when read).
        legal: Option<Vec<String>>,
    },
    /// `go …`: think and answer `bestmove`.
    Go(Go),
    /// `stop`: answer `bestmove` now.
    Stop,
    /// `quit`.
    Quit,
}

/// What a search reports in an `info` line (the fields this project reads or writes).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Info {
    /// `depth N`.
    pub depth: Option<u32>,
    /// `score cp N`: hundredths of a seed for the side to move (Aalina: ±2500 a proven result).
    pub score_cp: Option<i64>,
    /// `nodes N`.
    pub nodes: Option<u64>,
    /// `pv M…`: the expected line, one letter a move.
    pub pv: Vec<String>,
    /// `string …`: free text (the rest of the line).
    pub string: Option<String>,
}

/// A message a program answers with (each variant's doc shows it as UCI writes it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// `id name …` or `id author …`.
    Id {
        /// `name` or `author`.
        key: String,
        /// The rest of the line.
        value: String,
    },
    /// `option name NAME type TYPE [default D] [var V]…`.
    Option {
        /// The option's name.
        name: String,
        /// Its type (`spin`, `check`, `combo`, `string`, `button`).
        kind: String,
        /// Its default, as written.
        default: Option<String>,
        /// A combo's values.
        vars: Vec<String>,
    },
    /// `uciok`.
    UciOk,
    /// `readyok`.
    ReadyOk,
    /// `bestmove M [ponder P]`; `0000` when the engine sees no move.
    BestMove(String),
    /// `info …`.
    Info(Info),
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
