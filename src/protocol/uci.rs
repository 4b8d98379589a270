//! The UCI dialect of Aalina (joansalasoler/oware, `UCIService.java`), which its GUI Aualé
//! speaks to engines: the protocol's messages as words, the default dialect.
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
//! [`Uci`] is the [`Dialect`]: it reads and writes the neutral messages of
//! [`crate::protocol::message`] as these lines, for the referee (an engine as an agent,
//! [`crate::protocol::referee`]) and the server (any agent as an engine,
//! [`crate::protocol::server`], behind `awale engine SPEC`). Positions and moves are those of
//! [`crate::protocol::position`]. The protocol with a transcript: `docs/engines.md`.

use std::fmt::{self, Write as _};

use super::message::{quote, Command, Go, Info, Reply, Start};
use super::Dialect;

/// The option through which an engine says which rule sets it plays, and is told which one.
pub const VARIANT_OPTION: &str = "UCI_Variant";

/// The UCI dialect (see the [module docs](self)).
#[derive(Debug, Clone, Copy, Default)]
pub struct Uci;

impl Dialect for Uci {
    fn name(&self) -> &'static str {
        "uci"
    }

    fn variant_option(&self) -> &'static str {
        VARIANT_OPTION
    }

    fn write_command(&self, command: &Command) -> String {
        CommandLine(command).to_string()
    }

    fn parse_command(&self, line: &str) -> Result<Command, String> {
        parse_command(line)
    }

    fn write_reply(&self, reply: &Reply) -> String {
        write_reply(reply)
    }

    /// Never an error: a line UCI does not know is an engine's free talk.
    fn parse_reply(&self, line: &str) -> Result<Option<Reply>, String> {
        Ok(parse_reply(line))
    }
}

/// Splits a move list into moves: `FaBf`, `F a B f` and `Fa Bf` all give `F`, `a`, `B`, `f`.
///
/// ```
/// assert_eq!(awale::protocol::uci::split_moves(&["Fa", "B", "f"]), ["F", "a", "B", "f"]);
/// ```
pub fn split_moves(words: &[&str]) -> Vec<String> {
    words
        .iter()
        .flat_map(|w| w.chars())
        .map(|c| c.to_string())
        .collect()
}

/// Parses one line. Unknown commands are an error naming them (an engine ignores them).
///
/// ```
/// use awale::protocol::{uci::Uci, Command, Dialect, Start};
/// assert_eq!(Uci.parse_command("uci").unwrap(), Command::Uci);
/// let c = Uci.parse_command("position startpos moves FaBf").unwrap();
/// assert_eq!(c, Command::Position { start: Start::StartPos, moves: vec!["F".into(), "a".into(), "B".into(), "f".into()], legal: None });
/// assert!(Uci.parse_command("go movetime x").is_err());
/// ```
fn parse_command(line: &str) -> Result<Command, String> {
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
        ["moves", moves @ ..] => split_moves(moves),
        _ => return Err(format!("'{}' where 'moves' was expected", quote(rest[0]))),
    };
    Ok(Command::Position {
        start,
        moves,
        legal: None,
    })
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

/// A command as its line (`legal` is not written: UCI has no place for it).
struct CommandLine<'a>(&'a Command);

impl fmt::Display for CommandLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Command::Uci => write!(f, "uci"),
            Command::IsReady => write!(f, "isready"),
            Command::NewGame => write!(f, "ucinewgame"),
            Command::Stop => write!(f, "stop"),
            Command::Quit => write!(f, "quit"),
            Command::SetOption { name, value } => match value {
                Some(v) => write!(f, "setoption name {name} value {v}"),
                None => write!(f, "setoption name {name}"),
            },
            Command::Position { start, moves, .. } => {
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

/// Parses one line of an engine's output; `None` for lines the dialect does not know (an
/// engine's free talk, which a referee ignores).
///
/// ```
/// use awale::protocol::{uci::Uci, Dialect, Reply};
/// assert_eq!(Uci.parse_reply("bestmove C ponder d"), Ok(Some(Reply::BestMove("C".into()))));
/// let Ok(Some(Reply::Info(info))) = Uci.parse_reply("info depth 9 score cp -150 nodes 4000 pv CdA") else { panic!() };
/// assert_eq!((info.depth, info.score_cp, info.pv.len()), (Some(9), Some(-150), 3));
/// assert_eq!(Uci.parse_reply("hello"), Ok(None));
/// ```
fn parse_reply(line: &str) -> Option<Reply> {
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

/// A reply as its line.
fn write_reply(reply: &Reply) -> String {
    match reply {
        Reply::Id { key, value } => format!("id {key} {value}"),
        Reply::Option {
            name,
            kind,
            default,
            vars,
        } => {
            let mut line = format!("option name {name} type {kind}");
            if let Some(d) = default {
                let _ = write!(line, " default {d}");
            }
            for v in vars {
                let _ = write!(line, " var {v}");
            }
            line
        }
        Reply::UciOk => "uciok".into(),
        Reply::ReadyOk => "readyok".into(),
        Reply::BestMove(mv) if mv.is_empty() => "bestmove".into(),
        Reply::BestMove(mv) => format!("bestmove {mv}"),
        Reply::Info(info) => InfoLine(info).to_string(),
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
                // Moves up to the next word that is not letters, or is a field's name.
                let end = words[i + 1..]
                    .iter()
                    .position(|w| {
                        !w.chars().all(|c| c.is_ascii_alphabetic()) || INFO_FIELDS.contains(w)
                    })
                    .map_or(words.len(), |k| i + 1 + k);
                info.pv = split_moves(&words[i + 1..end]);
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

/// The fields of an `info` line (UCI's), which end a `pv`'s moves.
const INFO_FIELDS: [&str; 17] = [
    "depth",
    "seldepth",
    "time",
    "nodes",
    "pv",
    "multipv",
    "score",
    "currmove",
    "currmovenumber",
    "hashfull",
    "nps",
    "tbhits",
    "sbhits",
    "cpuload",
    "string",
    "refutation",
    "currline",
];

/// An `info` line.
struct InfoLine<'a>(&'a Info);

impl fmt::Display for InfoLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let info = self.0;
        write!(f, "info")?;
        if let Some(d) = info.depth {
            write!(f, " depth {d}")?;
        }
        if let Some(cp) = info.score_cp {
            write!(f, " score cp {cp}")?;
        }
        if let Some(n) = info.nodes {
            write!(f, " nodes {n}")?;
        }
        if !info.pv.is_empty() {
            write!(f, " pv {}", info.pv.concat())?;
        }
        if let Some(s) = &info.string {
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
            let c = parse_command(line).unwrap();
            assert_eq!(Uci.write_command(&c), line);
        }
        assert_eq!(
            Uci.write_command(&parse_command("position startpos moves F a B").unwrap()),
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
            assert!(parse_command(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn replies_are_read() {
        assert_eq!(
            parse_reply("option name UCI_Variant type combo default abapa var abapa var wari"),
            Some(Reply::Option {
                name: "UCI_Variant".into(),
                kind: "combo".into(),
                default: Some("abapa".into()),
                vars: vec!["abapa".into(), "wari".into()],
            })
        );
        assert_eq!(
            parse_reply("id name Aalina 3.0"),
            Some(Reply::Id {
                key: "name".into(),
                value: "Aalina 3.0".into()
            })
        );
        assert_eq!(
            parse_reply("bestmove"),
            Some(Reply::BestMove(String::new()))
        );
        let Some(Reply::Info(i)) = parse_reply("info string hello world") else {
            panic!()
        };
        assert_eq!(i.string.as_deref(), Some("hello world"));
        assert_eq!(write_reply(&Reply::Info(i)), "info string hello world");
        // A pv's moves end at the next field, letters though its name is.
        let Some(Reply::Info(i)) = parse_reply("info pv A string Hash") else {
            panic!()
        };
        assert_eq!(
            (i.pv, i.string.as_deref()),
            (vec!["A".into()], Some("Hash"))
        );
    }
}
