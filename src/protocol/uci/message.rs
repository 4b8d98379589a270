//! The dialect's lines, both ways: [`Command`] (what a referee or GUI sends an engine) and
//! [`Reply`] (what an engine answers), each parsed from one line and written back as one.

use std::fmt;

/// The most characters of a referee's own text an error message quotes.
pub const QUOTED_CHARS: usize = 200;

/// `text` as an answer quotes it: its first `max_chars` characters, then `…` when it is
/// longer, every control or invisible character escaped by [`super::printable`] (`\x0a`,
/// `\x1b`, `\u{202e}`: the one escaping of every text that reaches a terminal), so that an
/// error stays one short printable line whatever it quotes. Escaping twice changes nothing more
/// (a backslash is kept as it is).
///
/// ```
/// use awale::protocol::uci::message::excerpt;
/// assert_eq!(excerpt("go\u{1b}[2J\n", 200), "go\\x1b[2J\\x0a");
/// assert_eq!(excerpt(&"A".repeat(500), 3), "AAA…");
/// assert_eq!(excerpt(&excerpt("a\tb", 9), 9), "a\\x09b");
/// ```
pub fn excerpt(text: &str, max_chars: usize) -> String {
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(max_chars).collect();
    let mut out = super::printable(&head).into_owned();
    if chars.next().is_some() {
        out.push('…');
    }
    out
}

/// A piece of a command as an error quotes it ([`excerpt`] at [`QUOTED_CHARS`]).
fn quote(text: &str) -> String {
    excerpt(text, QUOTED_CHARS)
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
    /// use awale::protocol::uci::Command;
    /// let Command::Go(go) = Command::parse("go wtime 2000 btime 4000 binc 50").unwrap() else { panic!() };
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

/// A line sent to an engine.
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
    },
    /// `go …`: think and answer `bestmove`.
    Go(Go),
    /// `stop`: answer `bestmove` now.
    Stop,
    /// `quit`.
    Quit,
}

impl Command {
    /// Parses one line. Unknown commands are an error naming them (an engine ignores them).
    ///
    /// ```
    /// use awale::protocol::uci::{Command, Start};
    /// assert_eq!(Command::parse("uci").unwrap(), Command::Uci);
    /// let c = Command::parse("position startpos moves FaBf").unwrap();
    /// assert_eq!(c, Command::Position { start: Start::StartPos, moves: vec!["F".into(), "a".into(), "B".into(), "f".into()] });
    /// assert!(Command::parse("go movetime x").is_err());
    /// ```
    pub fn parse(line: &str) -> Result<Command, String> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&head, rest)) = words.split_first() else {
            return Err("an empty line".into());
        };
        Ok(match head {
            "uci" => Command::Uci,
            "isready" => Command::IsReady,
            "ucinewgame" => Command::NewGame,
            "stop" => Command::Stop,
            "quit" => Command::Quit,
            "setoption" => parse_setoption(rest)?,
            "position" => parse_position(rest)?,
            "go" => Command::Go(parse_go(rest)?),
            other => return Err(format!("unknown command '{}'", quote(other))),
        })
    }
}

fn parse_setoption(words: &[&str]) -> Result<Command, String> {
    if words.first() != Some(&"name") {
        return Err("setoption needs 'name NAME [value VALUE]'".into());
    }
    let rest = &words[1..];
    let at = rest.iter().position(|w| *w == "value");
    let (name, value) = match at {
        Some(i) => (rest[..i].join(" "), Some(rest[i + 1..].join(" "))),
        None => (rest.join(" "), None),
    };
    if name.is_empty() {
        return Err("setoption names no option".into());
    }
    Ok(Command::SetOption { name, value })
}

fn parse_position(words: &[&str]) -> Result<Command, String> {
    let (start, rest) = match words {
        ["startpos", rest @ ..] => (Start::StartPos, rest),
        ["fen", fen, rest @ ..] => (Start::Fen(fen.to_string()), rest),
        _ => return Err("position needs 'startpos' or 'fen FEN'".into()),
    };
    let moves = match rest {
        [] => Vec::new(),
        ["moves", moves @ ..] => super::split_moves(moves),
        _ => return Err(format!("'{}' where 'moves' was expected", quote(rest[0]))),
    };
    Ok(Command::Position { start, moves })
}

fn parse_go(words: &[&str]) -> Result<Go, String> {
    let mut go = Go::default();
    let mut i = 0;
    while i < words.len() {
        let key = words[i];
        if key == "infinite" || key == "ponder" {
            go.infinite |= key == "infinite";
            i += 1;
            continue;
        }
        let value = words
            .get(i + 1)
            .ok_or_else(|| format!("go {} needs a number", quote(key)))?;
        let n: u64 = value.parse().map_err(|_| {
            format!(
                "go {}: '{}' is not a whole number",
                quote(key),
                quote(value)
            )
        })?;
        match key {
            "movetime" => go.movetime = Some(n),
            "depth" => go.depth = Some(u32::try_from(n).unwrap_or(u32::MAX)),
            "wtime" => go.time_left[0] = Some(n),
            "btime" => go.time_left[1] = Some(n),
            "winc" => go.increment[0] = Some(n),
            "binc" => go.increment[1] = Some(n),
            "nodes" | "movestogo" | "mate" => {}
            other => return Err(format!("go: unknown limit '{}'", quote(other))),
        }
        i += 2;
    }
    Ok(go)
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Uci => write!(f, "uci"),
            Command::IsReady => write!(f, "isready"),
            Command::NewGame => write!(f, "ucinewgame"),
            Command::Stop => write!(f, "stop"),
            Command::Quit => write!(f, "quit"),
            Command::SetOption { name, value } => match value {
                Some(v) => write!(f, "setoption name {name} value {v}"),
                None => write!(f, "setoption name {name}"),
            },
            Command::Position { start, moves } => {
                match start {
                    Start::StartPos => write!(f, "position startpos")?,
                    Start::Fen(fen) => write!(f, "position fen {fen}")?,
                }
                if !moves.is_empty() {
                    write!(f, " moves {}", moves.concat())?;
                }
                Ok(())
            }
            Command::Go(go) => {
                write!(f, "go")?;
                if go.infinite {
                    write!(f, " infinite")?;
                }
                if let Some(ms) = go.movetime {
                    write!(f, " movetime {ms}")?;
                }
                if let Some(d) = go.depth {
                    write!(f, " depth {d}")?;
                }
                for (key, v) in [
                    ("wtime", go.time_left[0]),
                    ("btime", go.time_left[1]),
                    ("winc", go.increment[0]),
                    ("binc", go.increment[1]),
                ] {
                    if let Some(v) = v {
                        write!(f, " {key} {v}")?;
                    }
                }
                Ok(())
            }
        }
    }
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

/// A line an engine answers with.
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

impl Reply {
    /// Parses one line of an engine's output; `None` for lines the dialect does not know (an
    /// engine's free talk, which a referee ignores).
    ///
    /// ```
    /// use awale::protocol::uci::Reply;
    /// assert_eq!(Reply::parse("bestmove C ponder d"), Some(Reply::BestMove("C".into())));
    /// let Some(Reply::Info(info)) = Reply::parse("info depth 9 score cp -150 nodes 4000 pv CdA") else { panic!() };
    /// assert_eq!((info.depth, info.score_cp, info.pv.len()), (Some(9), Some(-150), 3));
    /// assert_eq!(Reply::parse("hello"), None);
    /// ```
    pub fn parse(line: &str) -> Option<Reply> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let (&head, rest) = words.split_first()?;
        Some(match head {
            "uciok" => Reply::UciOk,
            "readyok" => Reply::ReadyOk,
            "bestmove" => Reply::BestMove(rest.first().map_or(String::new(), |m| m.to_string())),
            "id" => {
                let (&key, value) = rest.split_first()?;
                Reply::Id {
                    key: key.to_string(),
                    value: value.join(" "),
                }
            }
            "option" => parse_option(rest)?,
            "info" => Reply::Info(parse_info(rest)),
            _ => return None,
        })
    }
}

fn parse_option(words: &[&str]) -> Option<Reply> {
    // option name NAME… type TYPE [default D…] [min …] [max …] [var V…]…
    let keys = ["name", "type", "default", "min", "max", "var"];
    let mut fields: Vec<(&str, String)> = Vec::new();
    for &w in words {
        if keys.contains(&w) {
            fields.push((w, String::new()));
        } else if let Some((_, v)) = fields.last_mut() {
            if !v.is_empty() {
                v.push(' ');
            }
            v.push_str(w);
        }
    }
    let get = |k: &str| {
        fields
            .iter()
            .find(|(key, _)| *key == k)
            .map(|(_, v)| v.clone())
    };
    Some(Reply::Option {
        name: get("name")?,
        kind: get("type").unwrap_or_default(),
        default: get("default"),
        vars: fields
            .iter()
            .filter(|(k, _)| *k == "var")
            .map(|(_, v)| v.clone())
            .collect(),
    })
}

fn parse_info(words: &[&str]) -> Info {
    let mut info = Info::default();
    let mut i = 0;
    let number = |i: usize| words.get(i + 1).and_then(|w| w.parse::<i64>().ok());
    while i < words.len() {
        match words[i] {
            "depth" => info.depth = number(i).and_then(|n| u32::try_from(n).ok()),
            "nodes" => info.nodes = number(i).and_then(|n| u64::try_from(n).ok()),
            "score" if words.get(i + 1) == Some(&"cp") => {
                info.score_cp = number(i + 1);
                i += 1;
            }
            "pv" => {
                let end = words[i + 1..]
                    .iter()
                    .position(|w| !w.chars().all(|c| c.is_ascii_alphabetic()))
                    .map_or(words.len(), |k| i + 1 + k);
                info.pv = super::split_moves(&words[i + 1..end]);
                i = end;
                continue;
            }
            "string" => {
                info.string = Some(words[i + 1..].join(" "));
                break;
            }
            _ => {}
        }
        i += 1;
    }
    info
}

impl fmt::Display for Info {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "info")?;
        if let Some(d) = self.depth {
            write!(f, " depth {d}")?;
        }
        if let Some(cp) = self.score_cp {
            write!(f, " score cp {cp}")?;
        }
        if let Some(n) = self.nodes {
            write!(f, " nodes {n}")?;
        }
        if !self.pv.is_empty() {
            write!(f, " pv {}", self.pv.concat())?;
        }
        if let Some(s) = &self.string {
            write!(f, " string {s}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_round_trip() {
        for line in [
            "uci",
            "isready",
            "ucinewgame",
            "setoption name UCI_Variant value wari",
            "setoption name Clear Hash",
            "position startpos",
            "position fen 4-4-4-4-4-4-4-4-4-4-4-4-0-0-N moves aB",
            "go movetime 100",
            "go infinite",
            "go wtime 1000 btime 900 winc 10 binc 10",
            "stop",
            "quit",
        ] {
            let c = Command::parse(line).unwrap();
            assert_eq!(c.to_string(), line);
        }
        assert_eq!(
            Command::parse("position startpos moves F a B")
                .unwrap()
                .to_string(),
            "position startpos moves FaB"
        );
        for bad in [
            "",
            "go movetime",
            "position",
            "position fen",
            "setoption",
            "jump",
        ] {
            assert!(Command::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn replies_are_read() {
        assert_eq!(
            Reply::parse("option name UCI_Variant type combo default abapa var abapa var wari"),
            Some(Reply::Option {
                name: "UCI_Variant".into(),
                kind: "combo".into(),
                default: Some("abapa".into()),
                vars: vec!["abapa".into(), "wari".into()],
            })
        );
        assert_eq!(
            Reply::parse("id name Aalina 3.0"),
            Some(Reply::Id {
                key: "name".into(),
                value: "Aalina 3.0".into()
            })
        );
        assert_eq!(
            Reply::parse("bestmove"),
            Some(Reply::BestMove(String::new()))
        );
        let Some(Reply::Info(i)) = Reply::parse("info string hello world") else {
            panic!()
        };
        assert_eq!(i.string.as_deref(), Some("hello world"));
        assert_eq!(i.to_string(), "info string hello world");
    }
}
