//! `awale bench`: simulation speed of the single-board engine (`awale bench [engine]`), of
//! the batch simulator (`awale bench batch`), of self-play (`awale bench selfplay`) or of the
//! engine protocol (`awale bench protocol`, in `bench_protocol.rs`) or of a network's forward
//! pass (`awale bench network`, in `bench_network.rs`).
//!
//! ```text
//! awale bench --rules wari --moves 5000000
//! awale bench batch --rules abapa --boards 1,64,4096,65536 --threads 1,2 --obs compact,onehot
//! awale bench selfplay --config training/abapa.toml --threads 1,2,4
//! ```
//!
//! The batch mode plays uniformly random legal actions (picked from the returned masks by a
//! fast generator) and times only the `step` calls; it prints board-steps per second for every
//! combination of boards, threads and observation encoding.

use std::time::{Duration, Instant};

use awale::batch::{Batch, BatchConfig, ObsEncoding, Opponent, ResetMode, StepBuffers};
use awale::bench::FastRng;
use awale::Rules;
use clap::{Args as ClapArgs, Subcommand};

/// Arguments of `awale bench`.
#[derive(Debug, ClapArgs)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    /// What to measure (the engine when omitted).
    #[command(subcommand)]
    mode: Option<Mode>,
    #[command(flatten)]
    engine: EngineArgs,
}

/// The benchmark modes.
#[derive(Debug, Subcommand)]
enum Mode {
    /// Single-board random play through the full rules (moves per second).
    Engine(EngineArgs),
    /// The vectorised batch simulator (board-steps per second).
    Batch(BatchArgs),
    /// Self-play of a training config (moves, network evaluations and positions per second,
    /// mean network batch) for each thread count.
    Selfplay(SelfplayArgs),
    /// Endgame-table probes (`value` and full `probe`) per second on random positions.
    Tablebase(TablebaseArgs),
    /// A network's forward pass per call, burn's and the plain one play uses, for each batch
    /// size (feature `train`).
    #[cfg(feature = "train")]
    Network(super::bench_network::NetworkArgs),
    /// What the engine protocol costs: an agent's moves in process and behind `awale engine`
    /// (per move: mean, p50, p99), and a round-robin of agents both ways.
    Protocol(super::bench_protocol::ProtocolArgs),
}

/// Arguments of `awale bench tablebase`.
#[derive(Debug, ClapArgs)]
struct TablebaseArgs {
    /// The rules of the tables.
    #[arg(long, default_value = "abapa", value_name = "SPEC")]
    rules: String,
    /// Folder holding the tables (`awale tablebase build`).
    #[arg(long, default_value = awale::tablebase::DEFAULT_DIR, value_name = "DIR")]
    dir: std::path::PathBuf,
    /// Number of random positions probed.
    #[arg(long, default_value_t = 1_000_000)]
    probes: usize,
    /// Seed of the positions.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Probes random positions of every layer of the tables (a seed count drawn uniformly, then a
/// board of that count uniformly).
fn run_tablebase(a: TablebaseArgs) -> Result<(), Box<dyn std::error::Error>> {
    use awale::tablebase::{LayerIndex, Tablebase};
    use rand::{Rng, SeedableRng};
    let rules: awale::Rules = a.rules.parse()?;
    let table = Tablebase::open(&a.dir, &rules, None)?;
    let play = *table.rules();
    let indexes: Vec<LayerIndex> = (0..=table.max_seeds())
        .map(|n| LayerIndex::new(play.pits(), n))
        .collect();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(a.seed);
    let mut states = Vec::with_capacity(a.probes);
    while states.len() < a.probes {
        let n = rng.random_range(1..=table.max_seeds());
        let board = indexes[n].unrank(rng.random_range(0..indexes[n].count()));
        let left = (play.total_seeds() as usize - n) as u8;
        let s = awale::State::from_parts(&play, &board[..play.pits()], &[left, 0], 0, 0)?;
        if !s.is_over() {
            states.push(s);
        }
    }
    let t = std::time::Instant::now();
    let mut sum = 0u64;
    for s in &states {
        sum += table.value(s).unwrap_or(0) as u64;
    }
    let value_secs = t.elapsed().as_secs_f64();
    let t = std::time::Instant::now();
    let mut moves = 0usize;
    for s in &states {
        moves += table.probe(s)?.moves.len();
    }
    let probe_secs = t.elapsed().as_secs_f64();
    outln!(
        "{} random positions of 1 to {} seeds ({}): value {:.2} M/s, probe (value and every move) {:.2} M/s, {:.1} moves per position (checksum {sum})",
        states.len(),
        table.max_seeds(),
        rules.base_name(),
        states.len() as f64 / value_secs / 1e6,
        states.len() as f64 / probe_secs / 1e6,
        moves as f64 / states.len() as f64
    );
    Ok(())
}

/// Arguments of `awale bench selfplay`.
#[derive(Debug, ClapArgs)]
struct SelfplayArgs {
    /// The training config (TOML) whose rules, network, search and concurrent games are used;
    /// default: the built-in tiny config.
    #[arg(long, value_name = "FILE")]
    config: Option<std::path::PathBuf>,
    /// Override a config key, e.g. --set selfplay.concurrent_games=512 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Worker threads (0: one per core); a comma-separated list measures each.
    #[arg(long, value_delimiter = ',', default_value = "1,0")]
    threads: Vec<usize>,
    /// Training positions per measurement (0: the config's positions_per_iteration).
    #[arg(long, default_value_t = 0)]
    positions: usize,
    /// Measure with a uniform network (no tensor work: the search and game machinery alone).
    /// Without the `train` feature this is the only network.
    #[arg(long)]
    uniform: bool,
    /// Measurements per thread count; the table shows the median and the range.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    repeat: u32,
    /// Print one JSON object per measurement instead of a table row.
    #[arg(long)]
    json: bool,
}

/// Arguments of `awale bench engine`.
#[derive(Debug, ClapArgs)]
struct EngineArgs {
    /// Rules spec, e.g. `abapa` or `oware:players=3`.
    #[arg(long, default_value = "abapa")]
    rules: String,
    /// Moves to play (the last game is finished).
    #[arg(long, default_value_t = 2_000_000)]
    moves: u64,
    /// Random seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

/// Arguments of `awale bench batch`.
#[derive(Debug, ClapArgs)]
struct BatchArgs {
    /// Rules spec, e.g. `abapa` or `oware:players=3`.
    #[arg(long, default_value = "abapa")]
    rules: String,
    /// Boards per batch; a comma-separated list measures each.
    #[arg(long, value_delimiter = ',', default_value = "4096")]
    boards: Vec<usize>,
    /// Worker threads (0: one per core); a comma-separated list measures each.
    #[arg(long, value_delimiter = ',', default_value = "2")]
    threads: Vec<usize>,
    /// Observation encodings (compact, onehot[:L], thermometer[:L]); a list measures each.
    #[arg(long, value_delimiter = ',', default_value = "compact")]
    obs: Vec<String>,
    /// Batch steps per measurement (0: about 20 million board-steps, at least 20 steps).
    #[arg(long, default_value_t = 0)]
    steps: u64,
    /// Opponent: self (every seat played by the caller), random, capture
    /// (the largest capture) or greedy (the greedy agent's rule).
    #[arg(long, default_value = "self")]
    opponent: String,
    /// Reset mode: next_step, same_step (disabled cannot run unattended).
    #[arg(long, default_value = "same_step")]
    reset: String,
    /// Master seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Measurements per configuration; the table shows their median rate and the range
    /// (shared or virtual machines vary by tens of percent from run to run).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    repeat: u32,
    /// Print one JSON object per measurement instead of a table row.
    #[arg(long)]
    json: bool,
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    match args.mode {
        None => run_engine(args.engine),
        Some(Mode::Engine(a)) => run_engine(a),
        Some(Mode::Batch(a)) => run_batch(a),
        Some(Mode::Selfplay(a)) => run_selfplay(a),
        Some(Mode::Tablebase(a)) => run_tablebase(a),
        #[cfg(feature = "train")]
        Some(Mode::Network(a)) => super::bench_network::run_network(a),
        Some(Mode::Protocol(a)) => super::bench_protocol::run_protocol(a),
    }
}

fn run_selfplay(a: SelfplayArgs) -> Result<(), Box<dyn std::error::Error>> {
    use awale::az::network::{Network, UniformNetwork};
    use awale::az::selfplay_bench::measure_selfplay;
    use awale::az::TrainConfig;
    let mut cfg = match &a.config {
        Some(path) => TrainConfig::from_file(path)?,
        None => TrainConfig::tiny(),
    };
    for s in &a.set {
        cfg.set(s)?;
    }
    cfg.validate()?;
    let rules = cfg.rules()?;
    let positions = if a.positions > 0 {
        a.positions
    } else {
        cfg.selfplay.positions_per_iteration
    };
    let uniform = UniformNetwork { rules };
    #[cfg(feature = "train")]
    let burn_net = if a.uniform {
        None
    } else {
        Some(awale::network::NetCore::fresh(&cfg)?)
    };
    #[cfg(feature = "train")]
    let (net, label): (&dyn Network, String) = match &burn_net {
        Some(n) => (
            n,
            format!(
                "network {:?} ({} parameters, untrained)",
                cfg.network.hidden,
                n.net.param_values().len()
            ),
        ),
        None => (&uniform, "uniform network".to_string()),
    };
    #[cfg(not(feature = "train"))]
    let (net, label): (&dyn Network, String) = {
        if !a.uniform {
            errln!("note: built without the `train` feature: measuring with a uniform network");
        }
        (&uniform, "uniform network".to_string())
    };
    if !a.json {
        outln!(
            "self-play '{}' on {rules}, {label}, {} concurrent games, {} simulations ({} fast, full search p = {})",
            cfg.name,
            cfg.selfplay.concurrent_games,
            cfg.search.sims,
            cfg.search.fast_sims,
            cfg.search.full_search_prob
        );
        outln!(
            "{:>7} {:>9} {:>10} {:>12} {:>16} {:>12} {:>11} {:>8} {:>21}",
            "threads",
            "positions",
            "seconds",
            "moves/s",
            "evaluations/s",
            "positions/s",
            "mean batch",
            "speedup",
            "moves/s range"
        );
    }
    let mut base = None;
    for &t in &a.threads {
        let threads = awale::batch::threads_or_cores(t);
        let mut runs = Vec::with_capacity(a.repeat as usize);
        for _ in 0..a.repeat {
            let m = measure_selfplay(net, &cfg, threads, positions)?;
            if a.json {
                outln!(
                    "{}",
                    serde_json::json!({
                        "config": cfg.name,
                        "rules": rules.to_string(),
                        "network": label,
                        "threads": m.threads,
                        "seconds": m.seconds,
                        "moves": m.stats.moves,
                        "evaluations": m.stats.evaluations,
                        "positions": m.stats.positions,
                        "batches": m.stats.batches,
                        "moves_per_second": m.moves_per_sec(),
                        "evaluations_per_second": m.evals_per_sec(),
                        "positions_per_second": m.positions_per_sec(),
                        "mean_batch": m.stats.mean_batch(),
                    })
                );
            }
            runs.push(m);
        }
        if !a.json {
            runs.sort_by(|x, y| x.moves_per_sec().total_cmp(&y.moves_per_sec()));
            let m = &runs[runs.len() / 2];
            let rate = m.moves_per_sec();
            let speedup = rate / *base.get_or_insert(rate);
            let range = if runs.len() > 1 {
                format!(
                    "{} - {}",
                    group_thousands(runs[0].moves_per_sec() as u64),
                    group_thousands(runs[runs.len() - 1].moves_per_sec() as u64)
                )
            } else {
                String::new()
            };
            outln!(
                "{:>7} {:>9} {:>10.2} {:>12} {:>16} {:>12} {:>11.1} {:>7.2}x {range:>21}",
                m.threads,
                m.stats.positions,
                m.seconds,
                group_thousands(rate as u64),
                group_thousands(m.evals_per_sec() as u64),
                group_thousands(m.positions_per_sec() as u64),
                m.stats.mean_batch(),
                speedup
            );
        }
    }
    Ok(())
}

fn run_engine(a: EngineArgs) -> Result<(), Box<dyn std::error::Error>> {
    let rules: Rules = a.rules.parse()?;
    let r = awale::bench::random_play(&rules, a.moves, a.seed);
    outln!(
        "engine {rules}: {} moves in {} games, {:.3} s: {:.2} M moves/s ({:.1} plies per game)",
        r.moves,
        r.games,
        r.seconds,
        r.moves_per_second() / 1e6,
        r.plies_per_game()
    );
    Ok(())
}

/// One measurement's result.
struct Measured {
    board_steps: u64,
    step_time: Duration,
    episodes: u64,
}

fn measure(cfg: BatchConfig, steps: u64) -> Result<Measured, Box<dyn std::error::Error>> {
    let n = cfg.num_boards;
    let seed = cfg.seed;
    let mut batch = Batch::new(cfg)?;
    let mut buf = StepBuffers::<f32>::for_batch(&batch);
    let houses = batch.action_dim();
    batch.reset(None, &mut buf.output())?;
    let mut rng = FastRng::from_seed(seed ^ 0x5eed);
    let mut actions = vec![0u32; n];
    let mut step_time = Duration::ZERO;
    let mut episodes = 0u64;
    // One untimed warm-up step.
    for s in 0..=steps {
        for (i, a) in actions.iter_mut().enumerate() {
            let mut bits = 0u16;
            for (h, &m) in buf.mask[i * houses..(i + 1) * houses].iter().enumerate() {
                bits |= u16::from(m) << h;
            }
            *a = if bits == 0 { 0 } else { rng.pick(bits) as u32 };
        }
        let t = Instant::now();
        batch.step(&actions, &mut buf.output())?;
        if s > 0 {
            step_time += t.elapsed();
            episodes += buf
                .terminated
                .iter()
                .zip(&buf.truncated)
                .filter(|(a, b)| **a || **b)
                .count() as u64;
        }
    }
    Ok(Measured {
        board_steps: steps * n as u64,
        step_time,
        episodes,
    })
}

fn run_batch(a: BatchArgs) -> Result<(), Box<dyn std::error::Error>> {
    let rules: Rules = a.rules.parse()?;
    let opponent: Opponent = a.opponent.parse()?;
    let reset: ResetMode = a.reset.parse()?;
    if reset == ResetMode::Disabled {
        return Err("the benchmark needs automatic resets: use next_step or same_step".into());
    }
    let encodings = a
        .obs
        .iter()
        .map(|s| s.parse::<ObsEncoding>())
        .collect::<Result<Vec<_>, _>>()?;
    if !a.json {
        outln!(
            "batch {rules}, opponent {opponent}, reset {reset}: random legal actions, step time only"
        );
        outln!(
            "{:>8} {:>7} {:>16} {:>9} {:>12} {:>16} {:>25}",
            "boards",
            "threads",
            "obs",
            "steps",
            "seconds",
            "board-steps/s",
            "range"
        );
    }
    for &enc in &encodings {
        for &threads in &a.threads {
            for &boards in &a.boards {
                let steps = if a.steps > 0 {
                    a.steps
                } else {
                    (20_000_000 / boards.max(1) as u64).max(20)
                };
                let cfg = BatchConfig::new(rules, boards)
                    .with_threads(threads)
                    .with_obs(enc)
                    .with_opponent(opponent.clone())
                    .with_reset_mode(reset)
                    .with_seed(a.seed);
                let mut runs = Vec::with_capacity(a.repeat as usize);
                for _ in 0..a.repeat {
                    let m = measure(cfg.clone(), steps)?;
                    let secs = m.step_time.as_secs_f64();
                    let rate = if secs > 0.0 {
                        m.board_steps as f64 / secs
                    } else {
                        0.0
                    };
                    if a.json {
                        outln!(
                            "{}",
                            serde_json::json!({
                                "rules": rules.to_string(),
                                "boards": boards,
                                "threads": threads,
                                "obs": enc.to_string(),
                                "opponent": opponent.name(),
                                "steps": steps,
                                "board_steps": m.board_steps,
                                "episodes": m.episodes,
                                "seconds": secs,
                                "board_steps_per_second": rate,
                            })
                        );
                    }
                    runs.push((rate, secs));
                }
                if !a.json {
                    runs.sort_by(|x, y| x.0.total_cmp(&y.0));
                    let (rate, secs) = runs[runs.len() / 2];
                    let range = if runs.len() > 1 {
                        format!(
                            "{} - {}",
                            group_thousands(runs[0].0 as u64),
                            group_thousands(runs[runs.len() - 1].0 as u64)
                        )
                    } else {
                        String::new()
                    };
                    outln!(
                        "{boards:>8} {threads:>7} {:>16} {steps:>9} {secs:>12.3} {:>16} {range:>25}",
                        enc.to_string(),
                        group_thousands(rate as u64)
                    );
                }
            }
        }
    }
    Ok(())
}

/// `12345678` as `12,345,678`.
fn group_thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
