//! JSON lines: the messages as one JSON object a line, for programs that would rather read JSON
//! than UCI's words (a bot in Python: `python/awale/examples/jsonl_bot.py`). The same messages,
//! in the same order, as [`super::uci`]; a `position` also carries the legal moves, so that a bot
//! needs no rules to play.
//!
//! | referee → program | program → referee |
//! |-------------------|-------------------|
//! | `{"cmd":"hello"}` | `{"reply":"id","name":"…"}`, `{"reply":"id","author":"…"}`, `{"reply":"option","name":"variant","type":"combo","default":"abapa","vars":["abapa","wari"]}`, then `{"reply":"hellook"}` |
//! | `{"cmd":"setoption","name":"variant","value":"wari"}` | (nothing) |
//! | `{"cmd":"isready"}` | `{"reply":"readyok"}` |
//! | `{"cmd":"newgame"}` | (nothing) |
//! | `{"cmd":"position","start":"startpos","moves":["F","a"],"legal":["A","B","C"]}` (`start`: `"startpos"` or a FEN) | (nothing) |
//! | `{"cmd":"go","movetime":100}` (or `depth`, `wtime`/`btime`/`winc`/`binc`, `"infinite":true`) | `{"reply":"info","depth":3,"score_cp":12,"nodes":40,"pv":["C","d"],"string":"…"}` lines (every field optional), then `{"reply":"bestmove","move":"C"}` (`null`: no move) |
//! | `{"cmd":"stop"}` | `{"reply":"bestmove",…}` at once |
//! | `{"cmd":"quit"}` | (exits) |
//!
//! Stricter than UCI: a line that is not JSON, or names an unknown message or field, is an error
//! (a program that writes one forfeits; the server answers it with an `info` whose `string` is
//! `error: …`), where UCI lets an engine talk freely. A blank line is skipped.

use serde::{Deserialize, Serialize};

use super::message::{excerpt, quote, Command, Go, Info, Reply, Start, QUOTED_CHARS};
use super::Dialect;

/// The option through which a program lists the rule sets it plays, and is told which one.
pub const VARIANT_OPTION: &str = "variant";

/// The JSON-lines dialect (see the [module docs](self)).
#[derive(Debug, Clone, Copy, Default)]
pub struct JsonLines;

/// A command on the wire.
#[derive(Serialize, Deserialize)]
#[serde(tag = "cmd", rename_all = "lowercase", deny_unknown_fields)]
enum WireCommand {
    // Unit variants as empty structs: `deny_unknown_fields` refuses `{"cmd":"isready","x":1}`.
    Hello {},
    IsReady {},
    NewGame {},
    SetOption {
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        value: Option<String>,
    },
    Position {
        start: String,
        #[serde(default)]
        moves: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        legal: Option<Vec<String>>,
    },
    Go {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        movetime: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        depth: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        wtime: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        btime: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        winc: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        binc: Option<u64>,
        #[serde(default, skip_serializing_if = "is_false")]
        infinite: bool,
    },
    Stop {},
    Quit {},
}

/// A reply on the wire (`id`, whose one field is named by its key, is read and written apart).
#[derive(Serialize, Deserialize)]
#[serde(tag = "reply", rename_all = "lowercase", deny_unknown_fields)]
enum WireReply {
    Option {
        name: String,
        #[serde(rename = "type")]
        kind: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        default: Option<String>,
        #[serde(default)]
        vars: Vec<String>,
    },
    HelloOk {},
    ReadyOk {},
    BestMove {
        /// `null` (or absent): no move, UCI's `0000`.
        #[serde(rename = "move", default)]
        mv: Option<String>,
    },
    Info {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        depth: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        score_cp: Option<i64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        nodes: Option<u64>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pv: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        string: Option<String>,
    },
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// The move a `bestmove` carries when there is none.
const NO_MOVE: &str = "0000";

/// Why `line` is no message: serde's reason, then the line, both quoted.
fn unreadable(what: &str, reason: &serde_json::Error, line: &str) -> String {
    format!(
        "not a {what} ({}): '{}'",
        excerpt(&reason.to_string(), QUOTED_CHARS),
        quote(line)
    )
}

/// One line as JSON; a message always serializes (strings, numbers and lists only).
fn to_line(value: &impl Serialize) -> String {
    serde_json::to_string(value).expect("a message serializes to JSON")
}

impl Dialect for JsonLines {
    fn name(&self) -> &'static str {
        "jsonl"
    }

    fn variant_option(&self) -> &'static str {
        VARIANT_OPTION
    }

    fn write_command(&self, command: &Command) -> String {
        let wire = match command.clone() {
            Command::Uci => WireCommand::Hello {},
            Command::IsReady => WireCommand::IsReady {},
            Command::NewGame => WireCommand::NewGame {},
            Command::SetOption { name, value } => WireCommand::SetOption { name, value },
            Command::Position {
                start,
                moves,
                legal,
            } => WireCommand::Position {
                start: match start {
                    Start::StartPos => "startpos".into(),
                    Start::Fen(fen) => fen,
                },
                moves,
                legal,
            },
            Command::Go(go) => WireCommand::Go {
                movetime: go.movetime,
                depth: go.depth,
                wtime: go.time_left[0],
                btime: go.time_left[1],
                winc: go.increment[0],
                binc: go.increment[1],
                infinite: go.infinite,
            },
            Command::Stop => WireCommand::Stop {},
            Command::Quit => WireCommand::Quit {},
        };
        to_line(&wire)
    }

    /// ```
    /// use awale::protocol::{jsonl::JsonLines, Command, Dialect, Start};
    /// let c = JsonLines.parse_command(r#"{"cmd":"position","start":"startpos","moves":["F","a"]}"#).unwrap();
    /// assert_eq!(c, Command::Position { start: Start::StartPos, moves: vec!["F".into(), "a".into()], legal: None });
    /// assert!(JsonLines.parse_command(r#"{"cmd":"jump"}"#).unwrap_err().contains("jump"));
    /// ```
    fn parse_command(&self, line: &str) -> Result<Command, String> {
        if line.trim().is_empty() {
            return Err("an empty line".into());
        }
        let wire: WireCommand =
            serde_json::from_str(line).map_err(|e| unreadable("command", &e, line))?;
        Ok(match wire {
            WireCommand::Hello {} => Command::Uci,
            WireCommand::IsReady {} => Command::IsReady,
            WireCommand::NewGame {} => Command::NewGame,
            WireCommand::SetOption { name, value } => Command::SetOption { name, value },
            WireCommand::Position {
                start,
                moves,
                legal,
            } => Command::Position {
                start: if start == "startpos" {
                    Start::StartPos
                } else {
                    Start::Fen(start)
                },
                moves,
                legal,
            },
            WireCommand::Go {
                movetime,
                depth,
                wtime,
                btime,
                winc,
                binc,
                infinite,
            } => Command::Go(Go {
                movetime,
                depth,
                time_left: [wtime, btime],
                increment: [winc, binc],
                infinite,
            }),
            WireCommand::Stop {} => Command::Stop,
            WireCommand::Quit {} => Command::Quit,
        })
    }

    fn write_reply(&self, reply: &Reply) -> String {
        let wire = match reply.clone() {
            // By hand: the reply first, then the one field its key names.
            Reply::Id { key, value } => {
                return format!(r#"{{"reply":"id",{}:{}}}"#, to_line(&key), to_line(&value));
            }
            Reply::Option {
                name,
                kind,
                default,
                vars,
            } => WireReply::Option {
                name,
                kind,
                default,
                vars,
            },
            Reply::UciOk => WireReply::HelloOk {},
            Reply::ReadyOk => WireReply::ReadyOk {},
            Reply::BestMove(mv) => WireReply::BestMove {
                mv: (mv != NO_MOVE).then_some(mv),
            },
            Reply::Info(info) => WireReply::Info {
                depth: info.depth,
                score_cp: info.score_cp,
                nodes: info.nodes,
                pv: info.pv,
                string: info.string,
            },
        };
        to_line(&wire)
    }

    /// ```
    /// use awale::protocol::{jsonl::JsonLines, Dialect, Reply};
    /// assert_eq!(JsonLines.parse_reply(r#"{"reply":"bestmove","move":"C"}"#), Ok(Some(Reply::BestMove("C".into()))));
    /// assert!(JsonLines.parse_reply("bestmove C").unwrap_err().contains("not a reply"));
    /// assert_eq!(JsonLines.parse_reply("  "), Ok(None));
    /// ```
    fn parse_reply(&self, line: &str) -> Result<Option<Reply>, String> {
        if line.trim().is_empty() {
            return Ok(None);
        }
        let value: serde_json::Value =
            serde_json::from_str(line).map_err(|e| unreadable("reply", &e, line))?;
        if let Some(object) = value.as_object().filter(|o| o["reply"] == "id") {
            let mut fields = object.iter().filter(|(k, _)| *k != "reply");
            return match (fields.next(), fields.next()) {
                (Some((key, serde_json::Value::String(value))), None) => Ok(Some(Reply::Id {
                    key: key.clone(),
                    value: value.clone(),
                })),
                _ => Err(format!(
                    "not a reply (an id has one text field, its key name or author): '{}'",
                    quote(line)
                )),
            };
        }
        let wire: WireReply =
            serde_json::from_value(value).map_err(|e| unreadable("reply", &e, line))?;
        Ok(Some(match wire {
            WireReply::Option {
                name,
                kind,
                default,
                vars,
            } => Reply::Option {
                name,
                kind,
                default,
                vars,
            },
            WireReply::HelloOk {} => Reply::UciOk,
            WireReply::ReadyOk {} => Reply::ReadyOk,
            WireReply::BestMove { mv } => Reply::BestMove(mv.unwrap_or_else(|| NO_MOVE.into())),
            WireReply::Info {
                depth,
                score_cp,
                nodes,
                pv,
                string,
            } => Reply::Info(Info {
                depth,
                score_cp,
                nodes,
                pv,
                string,
            }),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_lines_are_errors_that_say_why_and_quote_them_escaped() {
        for (line, why) in [
            ("go movetime 100", "not a command (expected value"),
            (r#"{"cmd":"jump"}"#, "unknown variant `jump`"),
            (r#"{"cmd":"go","movetime":-5}"#, "invalid value"),
            (r#"{"cmd":"go","time":5}"#, "unknown field `time`"),
            (r#"{"cmd":"position","moves":[]}"#, "missing field `start`"),
            (r#"{"cmd":"isready","x":1}"#, "unknown field `x`"),
            (r#"{"go":1}"#, "missing field `cmd`"),
            ("[1,2]", "not a command"),
        ] {
            let e = JsonLines.parse_command(line).unwrap_err();
            assert!(e.contains(why), "{line}: {e}");
        }
        for (line, why) in [
            ("bestmove C", "not a reply (expected value"),
            (
                r#"{"reply":"bestmove","move":"C","ponder":"d"}"#,
                "unknown field `ponder`",
            ),
            (
                r#"{"reply":"id","name":"a","author":"b"}"#,
                "an id has one text field",
            ),
            (r#"{"reply":"shout"}"#, "unknown variant `shout`"),
            (r#"{"reply":"info","depth":"deep"}"#, "invalid type"),
        ] {
            let e = JsonLines.parse_reply(line).unwrap_err();
            assert!(e.contains(why), "{line}: {e}");
        }
        // What a program wrote comes back escaped and cut, however long or hostile.
        let e = JsonLines
            .parse_reply(&format!("\u{1b}]0;pwned\u{7}{}", "x".repeat(500)))
            .unwrap_err();
        assert!(e.contains("\\x1b]0;pwned\\x07") && e.ends_with("…'"), "{e}");
        assert!(!e.chars().any(char::is_control), "{e:?}");
        let e = JsonLines
            .parse_command(r#"{"cmd":"\u001b[2J"}"#)
            .unwrap_err();
        assert!(!e.chars().any(char::is_control), "{e:?}");
    }

    #[test]
    fn a_move_of_null_is_no_move_and_blank_lines_are_skipped() {
        assert_eq!(
            JsonLines.parse_reply(r#"{"reply":"bestmove","move":null}"#),
            Ok(Some(Reply::BestMove("0000".into())))
        );
        assert_eq!(JsonLines.parse_reply(""), Ok(None));
        assert!(JsonLines.parse_command(" ").is_err());
        let c = JsonLines
            .parse_command(r#"{"cmd":"position","start":"0-0-0-0-0-1-1-0-0-0-0-0-23-23-S"}"#)
            .unwrap();
        assert_eq!(
            c,
            Command::Position {
                start: Start::Fen("0-0-0-0-0-1-1-0-0-0-0-0-23-23-S".into()),
                moves: Vec::new(),
                legal: None
            }
        );
    }
}
