//! `awale tablebase build|probe`: endgame tables (perfect play with few seeds left).

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Instant;

use awale::notation::{format_move, format_position, parse_position, player_name};
use awale::tablebase::{ways, BuildEvent, Tablebase, DEFAULT_DIR};
use awale::Rules;
use indicatif::{ProgressBar, ProgressStyle};

const AFTER_HELP: &str = "\
An endgame table holds, for every position with at most N seeds on the board, how many of
those seeds the player to move gets under perfect play by both sides. `build` computes it by
retrograde analysis (one file per seed count, checksummed); `probe` looks a position up.

Examples:
  awale tablebase build --max-seeds 12                 abapa, into ./tablebases
  awale tablebase build --rules wari --max-seeds 16 --threads 2
  awale tablebase probe 'abapa 0,0,0,0,1,2/3,0,0,0,0,0 20,22 0'

The win threshold (25) and the history are set aside: a position whose seeds can go round
forever is valued as the cycle rule would end the game there (see docs/rules.md, Tablebases).
Sizes: one byte per position; 12 seeds: 2.7 M positions, 16: 30 M, 20: 226 M (all layers).";

/// Arguments of `awale tablebase`.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    #[command(subcommand)]
    pub command: Command,
}

/// What to do with tables.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Build the table of every position with at most --max-seeds seeds on the board.
    Build(BuildArgs),
    /// Look a position up: its value and the value of every legal move.
    Probe(ProbeArgs),
    /// Endgame accuracy of agents: their moves on a fixed, seeded set of positions with few
    /// seeds, against the table.
    Accuracy(AccuracyArgs),
}

/// Arguments of `awale tablebase accuracy`.
#[derive(Debug, clap::Args)]
pub struct AccuracyArgs {
    /// Agents to score (specs, comma separated: `random,greedy,alphabeta:depth=8`).
    #[arg(
        long,
        default_value = "random,greedy,alphabeta:depth=4",
        value_name = "LIST"
    )]
    pub agents: String,
    /// The rules.
    #[arg(long, default_value = "abapa", value_name = "SPEC")]
    pub rules: String,
    /// Most seeds on the board of the positions (the table must cover them).
    #[arg(long, default_value_t = 12, value_name = "N")]
    pub max_seeds: usize,
    /// Number of positions.
    #[arg(long, default_value_t = 1000, value_name = "K")]
    pub positions: usize,
    /// Seed of the positions' games.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Folder holding the tables.
    #[arg(long, default_value = DEFAULT_DIR, value_name = "DIR")]
    pub dir: PathBuf,
}

/// Arguments of `awale analyze`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Replays a game record (the text `awale play` prints at the end of a game, or its JSON) and, for each
move played in a position the endgame table covers, prints the value of the move played, the
best value and the seeds lost against perfect play. Build the table first:
`awale tablebase build --rules RULES --max-seeds N`.")]
pub struct AnalyzeArgs {
    /// The record file (`-` reads standard input).
    #[arg(value_name = "RECORD")]
    pub record: PathBuf,
    /// Folder holding the tables.
    #[arg(long, default_value = DEFAULT_DIR, value_name = "DIR")]
    pub dir: PathBuf,
}

/// Arguments of `awale tablebase build`.
#[derive(Debug, clap::Args)]
pub struct BuildArgs {
    /// The rules (2 players, single sowing: abapa, awale, wari, openspiel, with options).
    #[arg(long, default_value = "abapa", value_name = "SPEC")]
    pub rules: String,
    /// Most seeds on the board of a position in the table.
    #[arg(long, default_value_t = 12, value_name = "N")]
    pub max_seeds: usize,
    /// Folder the layer files are written to.
    #[arg(long, default_value = DEFAULT_DIR, value_name = "DIR")]
    pub out: PathBuf,
    /// Worker threads (0: every core).
    #[arg(long, default_value_t = 0, value_name = "T")]
    pub threads: usize,
}

/// Arguments of `awale tablebase probe`.
#[derive(Debug, clap::Args)]
pub struct ProbeArgs {
    /// The position (position notation, see `awale show --help`).
    #[arg(required = true, num_args = 1.., value_name = "POSITION")]
    pub position: Vec<String>,
    /// Folder holding the tables.
    #[arg(long, default_value = DEFAULT_DIR, value_name = "DIR")]
    pub dir: PathBuf,
}

/// Runs `awale tablebase`.
pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    match args.command {
        Command::Build(a) => build(a),
        Command::Probe(a) => probe(a),
        Command::Accuracy(a) => accuracy(a),
    }
}

fn accuracy(args: AccuracyArgs) -> Result<(), Box<dyn std::error::Error>> {
    let rules: Rules = args.rules.parse()?;
    let table = Tablebase::open(&args.dir, &rules, Some(args.max_seeds))?;
    let specs = awale::agents::parse_agent_list(&args.agents)?;
    let registry = awale::agent_kinds::available();
    let mut agents = Vec::new();
    for spec in &specs {
        agents.push(registry.build(spec, &rules)?);
    }
    errln!(
        "drawing {} positions with at most {} seeds from games between {} (seed {})",
        args.positions,
        args.max_seeds,
        awale::ratings::endgame::SOURCE_AGENTS.join(", "),
        args.seed
    );
    let positions = awale::ratings::endgame::endgame_positions(
        &rules,
        args.max_seeds,
        args.positions,
        args.seed,
    )?;
    outln!(
        "{:<36}  {:>8}  {:>10}  {:>11}",
        "agent",
        "optimal",
        "seeds lost",
        "result kept"
    );
    for agent in &mut agents {
        let score =
            awale::ratings::endgame::endgame_accuracy(&table, &rules, &positions, agent.as_mut())?;
        outln!(
            "{:<36}  {:>7.1}%  {:>10.3}  {:>10.1}%",
            agent.name(),
            100.0 * score.optimal_share(),
            score.mean_loss(),
            100.0 * score.result_share()
        );
    }
    Ok(())
}

/// Runs `awale analyze`.
pub fn analyze(args: AnalyzeArgs) -> Result<(), Box<dyn std::error::Error>> {
    use awale::notation::GameRecord;
    let text = if args.record.as_os_str() == "-" {
        std::io::read_to_string(std::io::stdin())?
    } else {
        std::fs::read_to_string(&args.record)
            .map_err(|e| format!("{}: {e}", args.record.display()))?
    };
    let record: GameRecord = if text.trim_start().starts_with('{') {
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", args.record.display()))?
    } else {
        text.parse()?
    };
    let table = Tablebase::open(&args.dir, &record.rules, None)?;
    let moves = table.analyze(&record)?;
    if moves.is_empty() {
        outln!(
            "no move of this game was played with {} seeds or fewer on the board",
            table.max_seeds()
        );
        return Ok(());
    }
    let rules = record.rules;
    outln!(
        "{:>4}  {:<6}  {:>4}  {:>5}  {:>5}  {:>4}  best",
        "ply",
        "player",
        "move",
        "seeds",
        "value",
        "loss"
    );
    let mut lost = [0u32; 2];
    let mut counted = [0u32; 2];
    for m in &moves {
        let best: Vec<String> = m
            .best_moves
            .iter()
            .map(|&h| format_move(&rules, m.player, h))
            .collect();
        outln!(
            "{:>4}  {:<6}  {:>4}  {:>5}  {:>2}/{:<2}  {:>4}  {}{}",
            m.index + 1,
            player_name(&rules, m.player),
            format_move(&rules, m.player, m.house),
            m.seeds,
            m.value,
            m.best_value,
            m.loss(),
            best.join(" "),
            if m.cycle { "  (cycle rule)" } else { "" }
        );
        lost[m.player] += m.loss() as u32;
        counted[m.player] += 1;
    }
    for p in 0..2 {
        if counted[p] > 0 {
            outln!(
                "{}: {} moves in the table, {} seeds lost against perfect play",
                player_name(&rules, p),
                counted[p],
                lost[p]
            );
        }
    }
    Ok(())
}

fn build(args: BuildArgs) -> Result<(), Box<dyn std::error::Error>> {
    let rules: Rules = args.rules.parse()?;
    let total: u64 = (0..=args.max_seeds).map(|n| ways(rules.pits(), n)).sum();
    errln!(
        "building {} up to {} seeds: {total} positions ({:.1} MiB on disk)",
        rules.base_name(),
        args.max_seeds,
        total as f64 / (1 << 20) as f64
    );
    let bar = ProgressBar::new(total).with_style(
        ProgressStyle::with_template(
            "{bar:40} {percent:>3}% {pos}/{len} positions, layer {msg}, {elapsed} (eta {eta})",
        )
        .expect("a valid template"),
    );
    let lines = Mutex::new(Vec::new());
    let started = Instant::now();
    let layer_start = Mutex::new(Instant::now());
    let (table, _) =
        Tablebase::build_with_report(&rules, args.max_seeds, args.threads, &|event| match event {
            BuildEvent::LayerStarted { seeds, .. } => {
                bar.set_message(seeds.to_string());
                *layer_start.lock().unwrap() = Instant::now();
            }
            BuildEvent::LayerDone(r) => {
                bar.inc(r.positions);
                let secs = layer_start.lock().unwrap().elapsed().as_secs_f64();
                lines.lock().unwrap().push(format!(
                    "{:>5}  {:>12}  {:>8}  {:>6}  {:>12}  {secs:>8.2}",
                    r.seeds, r.positions, r.terminal, r.sweeps, r.cycle_valued
                ));
            }
        })?;
    bar.finish_and_clear();
    let build_secs = started.elapsed().as_secs_f64();
    let paths = table.save(&args.out)?;
    outln!(
        "{:>5}  {:>12}  {:>8}  {:>6}  {:>12}  {:>8}",
        "seeds",
        "positions",
        "terminal",
        "sweeps",
        "cycle-valued",
        "seconds"
    );
    for line in lines.into_inner().unwrap() {
        outln!("{line}");
    }
    outln!(
        "built {total} positions in {build_secs:.1} s on {} threads{}; wrote {} files to {}",
        if args.threads == 0 {
            rayon::current_num_threads()
        } else {
            args.threads
        },
        peak_memory()
            .map(|m| format!(", peak memory {m}"))
            .unwrap_or_default(),
        paths.len(),
        args.out.display()
    );
    Ok(())
}

/// The process's peak resident memory, where the system says it (Linux).
fn peak_memory() -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(format!("{:.0} MiB", kib / 1024.0))
}

fn probe(args: ProbeArgs) -> Result<(), Box<dyn std::error::Error>> {
    let (rules, state) = parse_position(&args.position.join(" "))?;
    let table = Tablebase::open(&args.dir, &rules, None)?;
    let probe = table.probe(&state)?;
    let me = state.to_move();
    let other = 1 - me;
    outln!("position: {}", format_position(&rules, &state));
    outln!(
        "value:    {} of the {} seeds on the board to {} ({} to {}){}",
        probe.value,
        probe.seeds,
        player_name(&rules, me),
        probe.seeds - probe.value,
        player_name(&rules, other),
        if probe.cycle {
            ", by the cycle rule (neither side can force the seeds off their round)"
        } else {
            ""
        }
    );
    let (mine, theirs) = (
        state.scores()[me] as u32 + probe.value as u32,
        state.scores()[other] as u32 + (probe.seeds - probe.value) as u32,
    );
    outln!(
        "final:    {} {mine} - {theirs} {} under perfect play",
        player_name(&rules, me),
        player_name(&rules, other)
    );
    outln!("{:>5}  {:>5}  {:>4}", "move", "value", "loss");
    for m in &probe.moves {
        outln!(
            "{:>5}  {:>5}  {:>4}{}",
            format_move(&rules, me, m.house),
            m.value,
            probe.best_value() - m.value,
            if m.value == probe.best_value() {
                "  best"
            } else {
                ""
            }
        );
    }
    Ok(())
}
