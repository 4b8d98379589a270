//! Protocols in one wing: how this crate plays programs in other processes, and is played by
//! them, over a text protocol of one command a line.
//!
//! | part | what it is |
//! |------|------------|
//! | [`uci`] | the messages: the UCI dialect of Aalina (commands, replies, FEN, moves) |
//! | [`referee`] | the referee side: `engine:`, a program in another process as an agent ([`referee::ProgramAgent`]) |
//! | [`server`] | the serving side: any agent as a program a referee plays ([`server::serve`], behind `awale engine SPEC`) |
//!
//! The referee writes [`uci::Command`]s and reads [`uci::Reply`]s; the server reads the
//! commands and writes the replies; both write positions and moves with [`uci::position`].
//! A second dialect is a module beside [`uci`] with the same messages' text; the two sides name
//! the dialect in their `use` lines only.

pub mod referee;
pub mod server;
pub mod uci;
