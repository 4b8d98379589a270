//! `awale bench protocol`: what the engine protocol costs. The same agent chooses the moves of
//! the same positions in this process and behind `awale engine` (an `engine:` agent running
//! this binary), each move timed where the referee sees it; then a round-robin of the agents,
//! in process and as engines, timed whole.

use std::time::{Duration, Instant};

use awale::agents::{Agent, AgentSpec, Turn};
use awale::tournament::{run, Entrant, TournamentConfig};
use awale::{Game, Rules};
use clap::Args as ClapArgs;

/// Arguments of `awale bench protocol`.
#[derive(Debug, ClapArgs)]
pub struct ProtocolArgs {
    /// The agents: the first is timed move by move, all play the round-robin.
    #[arg(
        long,
        default_value = "greedy,random,alphabeta:depth=1",
        value_name = "SPECS"
    )]
    agents: String,
    /// Moves timed (in process and through the protocol, the same positions).
    #[arg(long, default_value_t = 5000)]
    moves: usize,
    /// Games per pairing of the round-robin (0: none).
    #[arg(long, default_value_t = 40)]
    games: usize,
    /// The rules.
    #[arg(long, default_value = "abapa", value_name = "SPEC")]
    rules: String,
    /// The engines' move time in milliseconds, sent as `go movetime N` (0: answer at once).
    #[arg(long, default_value_t = 0, value_name = "MS")]
    move_time_ms: u64,
}

/// The spec of `spec` served by this binary's `awale engine`, under the same name.
fn served(spec: &AgentSpec, move_time_ms: u64) -> Result<AgentSpec, Box<dyn std::error::Error>> {
    let exe = std::env::current_exe()?;
    let mut inner = spec.clone();
    inner.options.retain(|(k, _)| k != "name");
    let mut e = AgentSpec::new("engine");
    for (k, v) in [
        ("cmd", exe.display().to_string()),
        ("args", format!("engine {inner}")),
        ("move_time_ms", move_time_ms.to_string()),
        ("name", spec.display_name()),
    ] {
        e.options.push((k.into(), v));
    }
    Ok(e)
}

fn quantile(sorted: &[Duration], q: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted[i.min(sorted.len() - 1)].as_secs_f64() * 1e6
}

fn line(label: &str, mut times: Vec<Duration>) {
    times.sort();
    let mean = times.iter().sum::<Duration>().as_secs_f64() * 1e6 / times.len() as f64;
    println!(
        "  {label:<22} mean {mean:>8.1} µs   p50 {:>8.1}   p99 {:>8.1}   max {:>8.1}",
        quantile(&times, 0.5),
        quantile(&times, 0.99),
        quantile(&times, 1.0)
    );
}

/// Runs `awale bench protocol`.
pub fn run_protocol(a: ProtocolArgs) -> Result<(), Box<dyn std::error::Error>> {
    let rules: Rules = a.rules.parse()?;
    let specs = awale::agents::parse_agent_list(&a.agents)?;
    let registry = awale::agent_kinds::available();
    let first = &specs[0];
    let mut inside = registry.build(first, &rules)?;
    let mut outside = registry.build(&served(first, a.move_time_ms)?, &rules)?;
    inside.reset(1);
    outside.reset(1);
    let (mut t_in, mut t_out) = (Vec::with_capacity(a.moves), Vec::with_capacity(a.moves));
    let mut game = Game::new(rules);
    let mut games = 1;
    while t_in.len() < a.moves {
        if game.is_over() {
            game = Game::new(rules);
            games += 1;
            inside.reset(games);
            outside.reset(games);
        }
        let turn = Turn::from_game(&game);
        let t0 = Instant::now();
        let mv = inside.select(&turn)?;
        t_in.push(t0.elapsed());
        let t0 = Instant::now();
        outside.select(&turn)?;
        t_out.push(t0.elapsed());
        game.apply(mv)?;
    }
    drop(outside);
    println!(
        "{} per move, {} moves of {games} games ({}), engine move time {} ms:",
        first.display_name(),
        a.moves,
        rules,
        a.move_time_ms
    );
    let overhead: Vec<Duration> = t_out
        .iter()
        .zip(&t_in)
        .map(|(o, i)| o.saturating_sub(*i))
        .collect();
    line("in process", t_in);
    line("through the protocol", t_out);
    line("difference", overhead);
    if a.games == 0 {
        return Ok(());
    }
    let mut cfg = TournamentConfig::new(rules);
    cfg.run.games = a.games;
    cfg.run.threads = 1;
    let timed = |entrants: Vec<Entrant>| -> Result<(f64, usize), Box<dyn std::error::Error>> {
        let t0 = Instant::now();
        let report = run(&cfg, &entrants)?;
        let moves: u64 = report.clock.iter().map(|c| c.moves).sum();
        Ok((t0.elapsed().as_secs_f64(), moves as usize))
    };
    let in_process = specs
        .iter()
        .map(|s| Entrant::from_spec(&registry, s, &rules))
        .collect::<awale::Result<Vec<_>>>()?;
    let engines = specs
        .iter()
        .map(|s| {
            Entrant::from_spec(&registry, &served(s, a.move_time_ms)?, &rules).map_err(Into::into)
        })
        .collect::<Result<Vec<_>, Box<dyn std::error::Error>>>()?;
    let (t1, m1) = timed(in_process)?;
    let (t2, m2) = timed(engines)?;
    println!(
        "round-robin of {} agents, {} games a pairing, one thread:\n  in process            {t1:>8.3} s  ({m1} moves)\n  as engines            {t2:>8.3} s  ({m2} moves, processes started included)\n  ratio                 {:>8.2}x   ({:+.1} µs a move)",
        specs.len(),
        a.games,
        t2 / t1,
        (t2 - t1) * 1e6 / m2.max(1) as f64
    );
    Ok(())
}
