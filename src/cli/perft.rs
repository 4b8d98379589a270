//! `awale perft DEPTH`: leaf counts of the game tree, the standard check of a move generator.

use std::time::Instant;

use awale::notation::{format_move, format_position, parse_position};
use awale::perft::{perft, perft_divide};

const AFTER_HELP: &str = "\
Counts the positions reached after exactly 1, 2, ... DEPTH plies (perft), with the time
taken and nodes per second: the standard check that a move generator follows the rules.
With --divide, the count at DEPTH is split by the first move.

Examples:
  awale perft 6                          abapa from the start, depths 1 to 6
  awale perft 8 --rules oware3           three-player Owaré
  awale perft 5 --divide                 depth 5 split by first move
  awale perft 4 'abapa 0,0,0,0,1,2/3,0,0,0,0,0 20,22 0'

From the abapa start the counts are 6, 36, 190, 1014: not 6^3 at depth 3, because a house
emptied by South's first move stays empty unless North's reply reaches it. A game that ends
before DEPTH counts nothing below its end; repetitions end games as in play.";

/// Arguments of `awale perft`.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// How many plies deep to count.
    #[arg(value_name = "DEPTH")]
    pub depth: u32,
    /// The rules spec, counted from its start position (see `awale rules`).
    #[arg(long, value_name = "SPEC", conflicts_with = "position")]
    pub rules: Option<String>,
    /// Count from this position (position notation, see `awale show --help`) instead.
    #[arg(num_args = 0.., value_name = "POSITION")]
    pub position: Vec<String>,
    /// Split the count at DEPTH by first move.
    #[arg(long)]
    pub divide: bool,
}

/// Runs `awale perft`.
pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let text = match (&args.rules, args.position.is_empty()) {
        (Some(spec), _) => spec.clone(),
        (None, false) => args.position.join(" "),
        (None, true) => "abapa".to_string(),
    };
    let (rules, state) = parse_position(&text)?;
    outln!("perft from {}", format_position(&rules, &state));
    if args.divide {
        let started = Instant::now();
        let split = perft_divide(&rules, &state, args.depth);
        let total: u64 = split.iter().map(|(_, n)| n).sum();
        for (house, n) in &split {
            outln!("{:>4}  {n}", format_move(&rules, state.to_move(), *house));
        }
        outln!("total {total} at depth {}", args.depth);
        print_speed(total, started)?;
        return Ok(());
    }
    outln!(
        "{:>5}  {:>16}  {:>10}  {:>14}",
        "depth",
        "nodes",
        "seconds",
        "nodes/s"
    );
    for depth in 1..=args.depth {
        let started = Instant::now();
        let n = perft(&rules, &state, depth);
        let secs = started.elapsed().as_secs_f64();
        let rate = if secs > 0.0 { n as f64 / secs } else { 0.0 };
        outln!("{depth:>5}  {n:>16}  {secs:>10.3}  {rate:>14.0}");
    }
    Ok(())
}

fn print_speed(nodes: u64, started: Instant) -> std::io::Result<()> {
    let secs = started.elapsed().as_secs_f64();
    if secs > 0.0 {
        outln!("{secs:.3} s, {:.0} nodes/s", nodes as f64 / secs);
    }
    Ok(())
}
