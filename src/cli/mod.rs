//! Subcommands of the `awale` binary, one file each.

use clap::{Parser, Subcommand};

#[macro_use]
mod output;

#[cfg(feature = "train")]
mod baseline;
mod bench;
#[cfg(feature = "train")]
mod bench_network;
mod bench_protocol;
mod engine;
mod game_args;
#[cfg(feature = "train")]
mod ladder;
mod matchplay;
#[cfg(feature = "train")]
mod network;
mod perft;
pub(crate) mod play;
mod rules;
mod scorecard;
mod show;
mod tablebase;
mod tournament;
#[cfg(feature = "train")]
mod train;

/// awale: rules engine, simulator and tools for the Awalé family of mancala games.
///
/// Rules are named by a spec: a preset (`awale rules` lists them) optionally followed by options,
/// e.g. `abapa:max_plies=200` or `oware:players=3`.
#[derive(Debug, Parser)]
#[command(name = "awale", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the rule presets and every option, with the choices each preset makes.
    Rules(rules::Args),
    /// Print a position as an ASCII board, with its legal moves and status.
    Show(show::Args),
    /// Play a game at the terminal against any agents (hint, undo, a saved record).
    Play(play::Args),
    /// Count the leaf nodes of the game tree to a depth (a correctness check).
    Perft(perft::Args),
    /// Measure simulation speed: single-board random play, or the batch simulator.
    Bench(bench::Args),
    /// Run a round-robin or gauntlet tournament between agents and rate them (Elo).
    Tournament(tournament::Args),
    /// Play two agents against each other: a fixed number of games (Elo, interval, LOS) or a
    /// sequential probability ratio test that stops when it knows (fishtest's SPRT).
    Match(matchplay::Args),
    /// Rate an agent on the published scale of a fixed protocol (anchors with fixed ratings):
    /// a rating with its 95% interval that anyone can compare.
    Scorecard(scorecard::Args),
    /// Endgame tables: build them (retrograde analysis) and probe positions (perfect play).
    Tablebase(tablebase::Args),
    /// Score each move of a game record that the endgame table covers against perfect play.
    Analyze(tablebase::AnalyzeArgs),
    /// Serve any agent as an engine over the UCI dialect on stdin/stdout (Aalina's, for Aualé
    /// and other referees; or JSON lines, --protocol jsonl).
    Engine(engine::Args),
    /// A local web page to play against any agent, watch agents play and replay games (and
    /// its JSON API).
    #[cfg(feature = "serve")]
    Serve(crate::serve::Args),
    /// Rate the network generations of training runs and anchor agents on one Elo scale.
    #[cfg(feature = "train")]
    Ladder(ladder::Args),
    /// Train a policy/value network by self-play (AlphaZero family), then evaluate it.
    #[cfg(feature = "train")]
    Train(train::Args),
    /// A trained network file: its rules, encoding and shape; export to safetensors (PyTorch).
    #[cfg(feature = "train")]
    Network(network::Args),
    /// The trained networks shipped with awale (nn:baseline=NAME): list, manifest, export, replay.
    #[cfg(feature = "train")]
    Baseline(baseline::Args),
}

pub use output::{exit_status, main, BROKEN_PIPE_STATUS, FAILURE_STATUS};

/// Runs the parsed command line.
pub fn run(cli: Cli) -> Result<(), Box<dyn std::error::Error>> {
    match cli.command {
        Command::Rules(a) => rules::run(a),
        Command::Show(a) => show::run(a),
        Command::Play(a) => play::run(a),
        Command::Perft(a) => perft::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Tournament(a) => tournament::run(a),
        Command::Scorecard(a) => scorecard::run(a),
        Command::Tablebase(a) => tablebase::run(a),
        Command::Analyze(a) => tablebase::analyze(a),
        Command::Match(a) => matchplay::run(a),
        Command::Engine(a) => engine::run(a),
        #[cfg(feature = "train")]
        Command::Ladder(a) => ladder::run(a),
        #[cfg(feature = "serve")]
        Command::Serve(a) => crate::serve::run(a),
        #[cfg(feature = "train")]
        Command::Train(a) => train::run(a),
        #[cfg(feature = "train")]
        Command::Network(a) => network::run(a),
        #[cfg(feature = "train")]
        Command::Baseline(a) => baseline::run(a),
    }
}
