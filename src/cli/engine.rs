//! `awale engine SPEC`: any agent served as an engine over the UCI dialect (or JSON lines,
//! `--protocol jsonl`) on stdin/stdout ([`awale::protocol::server`]), for Aualé, Aalina's match
//! tools or any referee.

use std::io;

use awale::agents::AgentSpec;
use awale::Rules;

const AFTER_HELP: &str = "\
Serves an agent as an engine: it reads the protocol's commands on stdin and answers on stdout,
one line each (Aalina's UCI dialect: uci, isready, ucinewgame, setoption name UCI_Variant value
RULES, position startpos|fen F [moves FaBf], go movetime N|depth N|infinite, stop, quit). Input
is read on its own thread: isready is answered and stop obeyed during a search; a command
during go infinite ends that search first; lines over 64 KiB or not UTF-8 are skipped with an
info string error. Anything that speaks it
can play the agent: Aualé, Aalina's tools, another referee, or awale itself through an engine:
spec. --protocol jsonl speaks the same messages as JSON lines ({\"cmd\":\"go\",\"movetime\":100} …
{\"reply\":\"bestmove\",\"move\":\"C\"}; an engine: spec then says protocol=jsonl). The protocol, with
a transcript: docs/engines.md.

Examples:
  awale engine alphabeta:depth=8
  awale engine nn:baseline=abapa                 the shipped network (feature train)
  awale engine mcts:sims=2000 --rules wari       starts under wari (a referee may set another)
  printf 'uci\\nposition startpos moves C\\ngo movetime 100\\nquit\\n' | awale engine greedy
  echo '{\"cmd\":\"go\",\"movetime\":100}' | awale engine --protocol jsonl greedy

From awale's own tournaments, with a file engines.toml holding
  [ab8]
  cmd = \"awale\"
  args = [\"engine\", \"alphabeta:depth=8\"]
run: awale tournament --agents engine:file=engines.toml,id=ab8,name=ab8-uci,alphabeta:depth=8";

/// Arguments of `awale engine`.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// The agent to serve: any spec (`alphabeta:depth=8`, `mcts:sims=2000`, `nn:baseline=abapa`).
    #[arg(value_name = "SPEC")]
    pub spec: String,
    /// The rules it starts with (2 players, 6 houses each; the referee may set others through
    /// the UCI_Variant option).
    #[arg(long, default_value = "abapa", value_name = "SPEC")]
    pub rules: String,
    /// The seed the agent is reset with at every new game (the same games give the same moves).
    #[arg(long, default_value_t = 0, value_name = "S")]
    pub seed: u64,
    /// The protocol it speaks: uci (Aalina's UCI dialect) or jsonl (JSON lines).
    #[arg(long, default_value = "uci", value_name = "NAME")]
    pub protocol: String,
}

/// Runs `awale engine`.
pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let dialect = awale::protocol::dialect(&args.protocol)?;
    let rules: Rules = args.rules.parse()?;
    let spec: AgentSpec = args.spec.parse()?;
    // `serve` builds the agent before it reads a command: a bad spec fails there, with its reason.
    let factory = awale::agent_kinds::available().factory(&spec)?;
    let make = move |rules: &Rules| factory(&spec, rules);
    let input = io::BufReader::with_capacity(64 * 1024, io::stdin());
    awale::protocol::server::serve(dialect, &make, rules, args.seed, input, io::stdout())?;
    Ok(())
}
