//! The seam between the protocols and the two sides that speak them: a [`Dialect`] reads and
//! writes the neutral messages ([`super::message`]) as lines. The referee
//! ([`super::referee`]) and the server ([`super::server`]) take one and never read or write a
//! line themselves; a dialect is one file beside [`super::uci`] and one line in
//! [`super::DIALECTS`].

use std::fmt;

use super::message::{Command, Reply};

/// How a protocol writes the messages as lines of text: one message a line, no line end in it.
/// Writing then reading gives the message back (`parse_command(&write_command(c)) == Ok(c)`,
/// the same for replies), for every message the dialect can say.
pub trait Dialect: Send + Sync {
    /// Its name, as `protocol=NAME` and `awale engine --protocol NAME` give it.
    fn name(&self) -> &'static str;

    /// The option through which a program says which rule sets it plays (a combo of rules
    /// specs), and is told which one.
    fn variant_option(&self) -> &'static str;

    /// A command as one line.
    fn write_command(&self, command: &Command) -> String;

    /// A command read from one line; an error says why the line is none (quoting it with
    /// [`super::message::excerpt`]).
    fn parse_command(&self, line: &str) -> Result<Command, String>;

    /// A reply as one line.
    fn write_reply(&self, reply: &Reply) -> String;

    /// A reply read from one line: `Ok(None)` for a line the dialect lets a program say freely
    /// (ignored), an error for a line it forbids (a fault of the program, with the reason).
    fn parse_reply(&self, line: &str) -> Result<Option<Reply>, String>;
}

impl fmt::Debug for dyn Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl PartialEq for dyn Dialect {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl Eq for dyn Dialect {}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use crate::protocol::message::{Command, Go, Info, Reply, Start};
    use crate::protocol::{jsonl::JsonLines, uci::Uci, Dialect, DIALECTS};

    /// One to three words that no UCI line takes for a keyword.
    fn words() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop::sample::select(vec!["Hash", "UCI_Variant", "Clear", "abapa", "wari", "x1"]),
            1..4,
        )
        .prop_map(|w| w.join(" "))
    }

    fn moves() -> impl Strategy<Value = Vec<String>> {
        prop::collection::vec(
            prop::sample::select(vec![
                "A", "B", "C", "D", "E", "F", "a", "b", "c", "d", "e", "f",
            ]),
            0..12,
        )
        .prop_map(|m| m.into_iter().map(String::from).collect())
    }

    fn command() -> impl Strategy<Value = Command> {
        let start = prop_oneof![
            Just(Start::StartPos),
            Just(Start::Fen("4-4-4-4-4-4-4-4-4-4-4-4-0-0-S".into())),
            Just(Start::Fen("0-0-0-0-0-1-1-0-0-0-0-0-23-23-N".into())),
        ];
        let go = (
            any::<Option<u64>>(),
            any::<Option<u32>>(),
            any::<[Option<u64>; 2]>(),
            any::<[Option<u64>; 2]>(),
            any::<bool>(),
        )
            .prop_map(|(movetime, depth, time_left, increment, infinite)| Go {
                movetime,
                depth,
                time_left,
                increment,
                infinite,
            });
        prop_oneof![
            Just(Command::Uci),
            Just(Command::IsReady),
            Just(Command::NewGame),
            Just(Command::Stop),
            Just(Command::Quit),
            (words(), prop::option::of(words()))
                .prop_map(|(name, value)| Command::SetOption { name, value }),
            (start, moves(), prop::option::of(moves())).prop_map(|(start, moves, legal)| {
                Command::Position {
                    start,
                    moves,
                    legal,
                }
            }),
            go.prop_map(Command::Go),
        ]
    }

    fn reply() -> impl Strategy<Value = Reply> {
        let info = (
            any::<Option<u32>>(),
            any::<Option<i64>>(),
            prop::option::of(0..=i64::MAX as u64),
            moves(),
            prop::option::of(words()),
        )
            .prop_map(|(depth, score_cp, nodes, pv, string)| Info {
                depth,
                score_cp,
                nodes,
                pv,
                string,
            });
        prop_oneof![
            Just(Reply::UciOk),
            Just(Reply::ReadyOk),
            prop::sample::select(vec!["C", "d", "0000", ""])
                .prop_map(|m| Reply::BestMove(m.into())),
            (prop::sample::select(vec!["name", "author"]), words()).prop_map(|(key, value)| {
                Reply::Id {
                    key: key.into(),
                    value,
                }
            }),
            (
                words(),
                prop::sample::select(vec!["combo", "spin", "check"]),
                prop::option::of(words()),
                prop::collection::vec(words(), 0..4),
            )
                .prop_map(|(name, kind, default, vars)| Reply::Option {
                    name,
                    kind: kind.into(),
                    default,
                    vars,
                }),
            info.prop_map(Reply::Info),
        ]
    }

    proptest! {
        /// Every dialect reads back what it wrote, as one line; UCI drops a position's legal
        /// moves (it has no place for them), JSON lines keeps them.
        #[test]
        fn every_message_round_trips_in_every_dialect(c in command(), r in reply()) {
            for dialect in DIALECTS {
                let line = dialect.write_command(&c);
                prop_assert!(!line.contains('\n'), "{line}");
                let mut expected = c.clone();
                if let (Command::Position { legal, .. }, "uci") = (&mut expected, dialect.name()) {
                    *legal = None;
                }
                prop_assert_eq!(dialect.parse_command(&line), Ok(expected), "{}", line);
                let line = dialect.write_reply(&r);
                prop_assert!(!line.contains('\n'), "{line}");
                prop_assert_eq!(dialect.parse_reply(&line), Ok(Some(r.clone())), "{}", line);
            }
        }
    }

    #[test]
    fn the_same_message_in_both_dialects() {
        let c = Command::Position {
            start: Start::StartPos,
            moves: vec!["F".into(), "a".into()],
            legal: Some(vec!["A".into(), "C".into()]),
        };
        assert_eq!(Uci.write_command(&c), "position startpos moves Fa");
        assert_eq!(
            JsonLines.write_command(&c),
            r#"{"cmd":"position","start":"startpos","moves":["F","a"],"legal":["A","C"]}"#
        );
        let go = Command::Go(Go {
            movetime: Some(100),
            ..Go::default()
        });
        assert_eq!(Uci.write_command(&go), "go movetime 100");
        assert_eq!(
            JsonLines.write_command(&go),
            r#"{"cmd":"go","movetime":100}"#
        );
        assert_eq!(JsonLines.write_command(&Command::Uci), r#"{"cmd":"hello"}"#);
        let info = Reply::Info(Info {
            depth: Some(3),
            score_cp: Some(12),
            pv: vec!["C".into(), "d".into()],
            ..Info::default()
        });
        assert_eq!(Uci.write_reply(&info), "info depth 3 score cp 12 pv Cd");
        assert_eq!(
            JsonLines.write_reply(&info),
            r#"{"reply":"info","depth":3,"score_cp":12,"pv":["C","d"]}"#
        );
        let none = Reply::BestMove("0000".into());
        assert_eq!(
            JsonLines.write_reply(&none),
            r#"{"reply":"bestmove","move":null}"#
        );
        let id = Reply::Id {
            key: "name".into(),
            value: "bot".into(),
        };
        assert_eq!(JsonLines.write_reply(&id), r#"{"reply":"id","name":"bot"}"#);
        assert_eq!(
            JsonLines.write_reply(&Reply::UciOk),
            r#"{"reply":"hellook"}"#
        );
    }
}
