//! `awale ladder`: the network generations of training runs and anchor agents on one Elo scale.

use std::path::PathBuf;

use awale::ratings::ladder::{run_ladder, LadderConfig};
use awale::tournament::ProgressBar;

const AFTER_HELP: &str = "\
Rates the generations that `awale train` keeps every checkpoint.generations_every iterations
(RUN/generations/gen-NNNNNN.ckpt) of one or more runs, or that a PyTorch run keeps
(RUN/generations/gen-NNNNNN.safetensors, awale.recipes.az_torch), and the anchor agents, on one
Elo scale: maximum likelihood with 95% intervals, the first anchor at 0 (else the first
generation).

Pairings grow linearly with the generations: each generation plays the next two of its run and
every anchor, and the anchors play each other (without anchors, generation i of each run also
plays generation i of the next run). Each pairing plays GAMES games, every opening from both
seats. The games run on every core and go to OUT/games.jsonl as they end: the same command
resumes a killed ladder, with the same result as one run whole.

OUT is --out, by default RUN/ladder for one run (beside its generations) and ./ladder for
several. Writes OUT/ladder.csv and ladder.json (run, iteration, self-play games and positions, gradient
steps, wall time, Elo, interval), OUT/ladder.svg (Elo against iteration, wall time and
self-play positions, one line per run, the anchors as dashed lines) and TensorBoard scalars in
OUT/tb (tensorboard --logdir OUT/tb). From Python: awale.ladder(...), with backend=\"ray\".

Examples:
  awale ladder runs/abapa --anchors alphabeta:depth=2,alphabeta:depth=4,alphabeta:depth=6
  awale ladder runs/abapa --anchors greedy,alphabeta:depth=4 --out runs/abapa-ladder
  awale ladder runs/gumbel runs/puct --anchors greedy,alphabeta:depth=4 --games 20 --sims 64 --out runs/ladder2";

/// Arguments of `awale ladder`.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// Run folders of `awale train` (trained with checkpoint.generations_every > 0).
    #[arg(value_name = "RUN", required = true)]
    pub runs: Vec<PathBuf>,
    /// Anchor agents, as specs separated by commas (e.g. greedy,alphabeta:depth=4).
    #[arg(long, value_name = "SPECS")]
    pub anchors: Option<String>,
    /// Output folder (games, results, table, picture); resumable. Default: RUN/ladder for one
    /// run, ./ladder for several.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Games per pairing (even).
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub games: usize,
    /// Simulations per move of the generations (nn:…,sims=N).
    #[arg(long, default_value_t = 64, value_name = "N")]
    pub sims: u32,
    /// Openings, ply limit, seed, threads, resume in parts, shards, progress bar.
    #[command(flatten)]
    pub play: super::game_args::GameArgs,
}

/// The folder of a ladder without --out: `RUN/ladder` beside one run's generations, `ladder`
/// in the current folder for several runs.
fn default_out(runs: &[PathBuf]) -> PathBuf {
    match runs {
        [run] => run.join("ladder"),
        _ => PathBuf::from("ladder"),
    }
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let out = args.out.clone().unwrap_or_else(|| default_out(&args.runs));
    let mut cfg = LadderConfig::new(args.runs, out.clone());
    if let Some(a) = &args.anchors {
        cfg.anchors = vec![a.clone()];
    }
    cfg.sims = args.sims;
    cfg.run = args.play.run(args.games);
    let report = run_ladder(
        &cfg,
        &awale::network::registry(),
        &ProgressBar::new(!args.play.no_progress),
    )?;
    out!("{}", report.table());
    outln!(
        "\n{} players, {} {}, {} of {} games played; results in {} (ladder.csv, ladder.svg, tb/)",
        report.entries.len(),
        report.pairings,
        if matches!(
            report.tournament.format,
            awale::tournament::Format::Tables(_)
        ) {
            "tables"
        } else {
            "pairings"
        },
        report.tournament.games_played,
        report.tournament.games_scheduled,
        out.display()
    );
    if !report.tournament.complete {
        outln!("not finished: run the same command again to resume");
    }
    Ok(())
}
