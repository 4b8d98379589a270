//! Protocols in one wing: how this crate plays programs in other processes, and is played by
//! them, over a text protocol of one command a line.
//!
//! | part | what it is |
//! |------|------------|
//! | [`uci`] | the messages: the UCI dialect of Aalina (commands, replies, FEN, moves) |
//! | [`referee`] | the referee side: `engine:`, a program in another process as an agent ([`referee::ProgramAgent`]) |
//! | [`server`] | the serving side: any agent as a program a referee plays ([`server::serve`], behind `awale engine SPEC`) |
//!
//! The seam between the parts is the messages: the referee writes [`uci::Command`]s and reads
//! [`uci::Reply`]s, the server reads the commands and answers the replies, and both write
//! positions and moves with [`uci::position`]. What is not the dialect's — starting, bounding
//! and killing a program ([`referee`]'s `process` and `tree`), the server's threads and bounds —
//! is written once, here, for any dialect that comes beside [`uci`].

pub mod referee;
pub mod server;
pub mod uci;
