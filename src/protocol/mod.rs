//! Protocols in one wing: how this crate plays programs in other processes, and is played by
//! them, over a protocol of one message a line.
//!
//! | part | what it is |
//! |------|------------|
//! | [`message`] | the neutral messages: [`Command`]s (referee → program), [`Reply`]s (program → referee) |
//! | [`position`] | positions (FEN) and moves (one letter) as the messages carry them |
//! | [`dialect`](mod@dialect) | the seam: a [`Dialect`] reads and writes the messages as lines |
//! | [`uci`] | a dialect: Aalina's UCI text (`position startpos moves FaBf`) |
//! | [`jsonl`] | a dialect: JSON lines (`{"cmd":"position","start":"startpos","moves":["F","a"]}`), for bots in Python |
//! | [`referee`] | the referee side: `engine:`, a program in another process as an agent ([`referee::ProgramAgent`]) |
//! | [`server`] | the serving side: any agent as a program a referee plays ([`server::serve`], behind `awale engine SPEC`) |
//!
//! The seam between the parts is the [`Dialect`]: the referee writes [`Command`]s and reads
//! [`Reply`]s through one, the server reads the commands and writes the replies through one, and
//! neither reads or writes a line itself. What is not the dialect's — starting, bounding and
//! killing a program ([`referee`]'s `process` and `tree`), the pool, the server's threads and
//! bounds — is written once, here, for every dialect. A new dialect is one file beside [`uci`]
//! implementing [`Dialect`] and one line in [`DIALECTS`]; `engine:…,protocol=NAME` and
//! `awale engine --protocol NAME` then speak it.

pub mod dialect;
pub mod jsonl;
pub mod message;
pub mod position;
pub mod referee;
pub mod server;
pub mod uci;

pub use dialect::Dialect;
pub use message::{excerpt, printable, Command, Go, Info, Reply, Start};

/// Every dialect, by name; the first is the default (`protocol=` of `engine:`, `awale engine
/// --protocol`).
pub const DIALECTS: &[&'static dyn Dialect] = &[&uci::Uci, &jsonl::JsonLines];

/// The dialect named `name`; an unknown name is refused with the list.
///
/// ```
/// assert_eq!(awale::protocol::dialect("jsonl").unwrap().name(), "jsonl");
/// assert!(awale::protocol::dialect("xml").unwrap_err().contains("uci, jsonl"));
/// ```
pub fn dialect(name: &str) -> Result<&'static dyn Dialect, String> {
    DIALECTS
        .iter()
        .find(|d| d.name() == name)
        .copied()
        .ok_or_else(|| {
            let known: Vec<&str> = DIALECTS.iter().map(|d| d.name()).collect();
            format!(
                "unknown protocol '{}' (known: {})",
                excerpt(name, message::QUOTED_CHARS),
                known.join(", ")
            )
        })
}
