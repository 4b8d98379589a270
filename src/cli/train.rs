//! `awale train`: AlphaZero-family self-play training of a policy/value network (cargo feature
//! `train`), then an evaluation tournament against the built-in agents.

use std::path::PathBuf;
use std::time::Instant;

use awale::az::machine::{scale_to, Machine};
use awale::az::selfplay_tables::{self, Prepared};
use awale::tablebase::BuildEvent;
use awale::train::run::{run as run_training, RunOptions};
use awale::train::TrainConfig;
use indicatif::{ProgressBar, ProgressStyle};

const AFTER_HELP: &str = "\
Runs iterations of self-play (batched MCTS guided by the network over many concurrent games,
sharded over --threads worker threads, one per core by default) and gradient steps on a
replay buffer, evaluates against the built-in agents every eval.every iterations, writes an
atomic checkpoint every checkpoint.every iterations, and finishes with an evaluation tournament. Running the same command again resumes the run from
OUT/checkpoint.ckpt exactly where it stopped (use --fresh to start over).

Without --config the built-in quick config (training/quick.toml) runs: the abapa recipe cut to
about 3 minutes on 2 cores, ending with a network that beats greedy and alpha-beta depth 2.
Every recipe of the repository's training/ folder is built in, by name (an installed awale has
no training/ folder): abapa (the full recipe), abapa-16core, abapa-gpu, abapa-raised, awale,
wari, oware3, oware4, oware6, quick, tiny (seconds, for CI); --config also takes a path to a
TOML file, which wins over a built-in name (see docs/training.md); `--config NAME
--print-config > my.toml` gives a recipe to edit. Logs: OUT/tb (TensorBoard: `tensorboard --logdir
OUT/tb`) and OUT/metrics.jsonl. The trained network plays as an agent: nn:path=OUT/checkpoint.ckpt,sims=64.

Endgame tables in self-play: with selfplay.tablebase = \"DIR\" a game that reaches a position
of at most selfplay.tablebase_seeds seeds ends there with the tables' exact result; missing
tables are built into DIR first (once; the time is printed beside the run's).

Another machine: --machine sizes the recipe's run for it by the rule of docs/training.md
(\"Sizing a run to a machine\"): games in flight per thread kept (4x on a GPU); positions per
iteration, the batch and the replay buffer scaled with the games in flight, so that a game
spans as many network versions and each position is sampled as often as in the recipe; the
gradient steps per iteration, network, search, iterations and schedule stay the recipe's.
--set applies after it.

Examples:
  awale train
  awale train --config abapa --out runs/abapa
  awale train --config abapa --threads 2
  awale train --config abapa --machine cpu:16 --print-config
  awale train --config abapa --machine auto
  awale train --config abapa --set training.max_minutes=30 --set search.kind=puct
  awale train --config abapa --set selfplay.tablebase=tablebases --set selfplay.tablebase_seeds=16
  awale train --config my-recipe.toml --out runs/mine
  awale tournament --agents nn:path=runs/abapa/checkpoint.ckpt,sims=128,alphabeta:depth=6";

/// Arguments of `awale train`.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// The training config: a TOML file, or a built-in recipe by name (every
    /// training/NAME.toml: abapa, wari, oware3, ..., quick (the default), tiny; listed below)
    #[arg(long, value_name = "FILE|NAME")]
    pub config: Option<PathBuf>,
    /// The run's folder (default: runs/NAME, NAME from the config).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Override a config key, e.g. --set training.iterations=10 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Start over even if OUT has a checkpoint (default: resume from it).
    #[arg(long)]
    pub fresh: bool,
    /// Skip the final evaluation tournament.
    #[arg(long)]
    pub no_eval: bool,
    /// No progress bar.
    #[arg(long)]
    pub no_progress: bool,
    /// Self-play worker threads (0: one per core); sets selfplay.threads. A run reproduces
    /// itself for a given seed and thread count; resuming keeps the checkpoint's count unless
    /// this is given.
    #[arg(long, value_name = "T")]
    pub threads: Option<usize>,
    /// Size the run for a machine: auto (this one), cpu, cpu:N (N threads), gpu or gpu:N; the
    /// recipe's shape is scaled from its selfplay.threads (see below). Not with --threads.
    #[arg(long, value_name = "MACHINE")]
    pub machine: Option<String>,
    /// Print the effective config and exit.
    #[arg(long)]
    pub print_config: bool,
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let start = Instant::now();
    let mut cfg = match &args.config {
        Some(path) => TrainConfig::load(path)?,
        None => TrainConfig::quick(),
    };
    if let Some(m) = &args.machine {
        if args.threads.is_some() {
            return Err(
                "give --machine or --threads, not both (--machine sets the threads)".into(),
            );
        }
        let machine: Machine = m.parse()?;
        let from = cfg.selfplay.threads;
        cfg = scale_to(&cfg, machine)?;
        errln!(
            "sized for {machine} from the recipe's {from} threads: {} games in flight, {} positions \
             and {} gradient steps of {} per iteration, replay buffer {}",
            cfg.selfplay.concurrent_games,
            cfg.selfplay.positions_per_iteration,
            cfg.training.steps_per_iteration,
            cfg.training.batch_size,
            cfg.training.replay_capacity
        );
    }
    for s in &args.set {
        cfg.set(s)?;
    }
    if let Some(t) = args.threads {
        cfg.selfplay.threads = t;
    }
    if args.print_config {
        out!("{}", cfg.to_toml());
        return Ok(());
    }
    let out = args.out.clone().unwrap_or_else(|| cfg.default_out());
    let opts = RunOptions {
        out: out.clone(),
        fresh: args.fresh,
        progress: !args.no_progress,
        final_eval: !args.no_eval,
    };
    errln!(
        "training '{}' on {} ({} iterations{}, self-play on {}) in {}",
        cfg.name,
        cfg.rules,
        cfg.training.iterations,
        if cfg.training.max_minutes > 0.0 {
            format!(", at most {} minutes", cfg.training.max_minutes)
        } else {
            String::new()
        },
        match cfg.selfplay.threads {
            0 => format!("{} threads (one per core)", cfg.selfplay.resolved_threads()),
            t => format!("{t} threads"),
        },
        out.display()
    );
    let tables_secs = prepare_tables(&cfg, !args.no_progress)?;
    let rules_spec = cfg.rules.clone();
    let keeps_generations = cfg.checkpoint.generations_every > 0;
    let s = run_training(cfg, &opts)?;
    if s.resumed {
        outln!("resumed from {}", s.checkpoint.display());
    }
    outln!(
        "{} iterations, {} gradient steps, {} self-play games, {} training positions",
        s.iterations,
        s.train_steps,
        s.games,
        s.positions
    );
    outln!(
        "self-play: {:.0} moves/s, {:.0} network evaluations/s, network batch mean {:.1} (max {})",
        s.moves_per_sec,
        s.evals_per_sec,
        s.mean_batch,
        s.max_batch
    );
    if let Some(l) = &s.losses {
        outln!(
            "last losses: total {:.4}, policy {:.4}, value {:.4}, score {:.4}; policy entropy {:.3}",
            l.loss, l.policy, l.value, l.score, l.entropy
        );
    }
    if let Some(r) = &s.final_eval {
        out!("{}", r.table());
    }
    outln!("checkpoint: {}", s.checkpoint.display());
    let wall = start.elapsed().as_secs_f64();
    match tables_secs {
        Some(t) => outln!(
            "wall time: {wall:.1} s (building the endgame tables {t:.1} s, the run {:.1} s)",
            wall - t
        ),
        None => outln!("wall time: {wall:.1} s"),
    }
    outln!(
        "play against it:    awale play --rules {} --opponent nn:path={},sims=64",
        rules_spec,
        s.checkpoint.display()
    );
    if keeps_generations {
        outln!(
            "its generations:    awale ladder {} --anchors greedy,alphabeta:depth=2,alphabeta:depth=4  \
             (into {})",
            out.display(),
            out.join("ladder").display()
        );
    }
    if args.config.is_none() {
        outln!(
            "the full recipe:    awale train --config abapa --out runs/abapa  \
             (about 20 minutes on 2 cores; see docs/training.md)"
        );
    }
    Ok(())
}

/// Builds the endgame tables self-play uses (`selfplay.tablebase`) when they are missing, with
/// a progress bar, and returns the seconds it took (`None` when nothing was built).
fn prepare_tables(
    cfg: &TrainConfig,
    progress: bool,
) -> Result<Option<f64>, Box<dyn std::error::Error>> {
    let p = &cfg.selfplay;
    if p.tablebase.is_empty() {
        return Ok(None);
    }
    let rules = cfg.rules()?;
    let total: u64 = (0..=p.tablebase_seeds)
        .map(|n| awale::tablebase::ways(rules.pits(), n))
        .sum();
    let bar = if progress {
        ProgressBar::new(total)
    } else {
        ProgressBar::hidden()
    }
    .with_style(
        ProgressStyle::with_template(
            "endgame tables {bar:40} {percent:>3}% {pos}/{len} positions, layer {msg}, {elapsed} (eta {eta})",
        )
        .expect("a valid template"),
    );
    let event = |e: BuildEvent| match e {
        BuildEvent::LayerStarted { seeds, .. } => bar.set_message(seeds.to_string()),
        BuildEvent::LayerDone(r) => bar.inc(r.positions),
    };
    match selfplay_tables::prepare(cfg, cfg.selfplay.threads, &event)? {
        Prepared::Built(t) => {
            bar.finish_and_clear();
            errln!(
                "built the endgame tables of {} up to {} seeds ({total} positions) in {:.1} s into {} \
                 (kept for later runs)",
                rules.base_name(),
                p.tablebase_seeds,
                t.as_secs_f64(),
                p.tablebase
            );
            Ok(Some(t.as_secs_f64()))
        }
        _ => {
            bar.finish_and_clear();
            Ok(None)
        }
    }
}
