//! The engine: the rules of every preset as data, positions and their transitions, repetition
//! histories, games, text notations and perft. Everything above it (the batch, the agents, the
//! tables, the trainer, the bindings) calls these definitions; nothing here knows of them.
//!
//! Each module is re-exported at the crate's root (`awale::rules`, `awale::state`, …), which
//! is the path the rest of the crate and its users name.

pub mod board_index;
pub mod choice;
pub mod error;
pub mod game;
pub mod history;
pub mod notation;
pub mod perft;
pub mod rules;
pub use rules::presets;
pub mod state;
pub mod utility;
