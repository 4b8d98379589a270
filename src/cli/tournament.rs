//! `awale tournament`: a round-robin or gauntlet tournament between agents, rated by Elo.

use std::path::PathBuf;

use awale::agents::parse_agent_list;
use awale::tournament::{run_observed, Entrant, Format, ProgressBar, TournamentConfig};
use awale::{AwaleError, Rules};

const AFTER_HELP: &str = "\
Plays every pairing of agents (round-robin) or the gauntlet agent against every other, each
pairing GAMES games: random openings of K plies, each played with the seats swapped (with 3
or more players: rotated through every seat in both seating orders, 2 x players games per
opening, so no one always sits after the same entrant; best a multiple of that). Games run in
parallel; results do not depend on
the number of threads. A game is won by the player with more seeds in store; a game cut off at
the ply limit is adjudicated the same way. With 3 or more players the Elo ratings come from
the pairwise results inside each game, and a table of first places gives each agent's share of
the games it won against its fair share (1/players); the network of `training/oware3.toml` is
measured that way against mcts:sims=2000 in the other seats (docs/recipes.md).

With --out, each finished game is appended to DIR/games.jsonl at once; running the same
command again resumes, playing only the missing games. On resume every saved game is replayed
from its record: a line whose moves do not give its stated stores, points or end (an edited
file) is refused with its line and the reason (delete the line to play that game again). The
results go to DIR/results.json, ratings.csv, crosstable.csv, los.csv and games.csv, each by
temporary file and rename (a link planted there is replaced, never written through); every
game is saved as a replayable record in games.jsonl.

Agents (a comma-separated list; options continue a spec, e.g.
`random,alphabeta:depth=4,nodes=5000,mcts`):
";

const EXAMPLES: &str = "
Examples:
  awale tournament --agents random,greedy,alphabeta:depth=4 --games 20 --rules abapa --out runs/t1
  awale tournament --agents random,greedy,mcts:sims=500 --rules oware3 --games 6 --out runs/t3
  awale tournament --agents greedy,mcts:sims=200 --gauntlet alphabeta:depth=6 --games 40";

/// Arguments of `awale tournament`.
#[derive(Debug, clap::Args)]
#[command(after_help = after_help())]
pub struct Args {
    /// The agents, as specs separated by commas (e.g. random,greedy,alphabeta:depth=4).
    #[arg(long, required = true, value_name = "LIST")]
    pub agents: String,
    /// Games per pairing.
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub games: usize,
    /// The rules (a rules spec, see `awale rules`).
    #[arg(long, default_value = "abapa", value_name = "SPEC")]
    pub rules: String,
    /// Folder for the games (resumable) and the result files.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Play a gauntlet: this agent against each of the others (added to the list if missing).
    #[arg(long, value_name = "AGENT")]
    pub gauntlet: Option<String>,
    /// The agent whose rating is fixed (default: random if it plays, else the first agent).
    #[arg(long, value_name = "NAME")]
    pub anchor: Option<String>,
    /// The anchor's rating.
    #[arg(
        long,
        default_value_t = 0.0,
        value_name = "ELO",
        allow_negative_numbers = true
    )]
    pub anchor_rating: f64,
    /// Also score each agent's endgame play against the endgame tables in DIR (`awale
    /// tablebase build`): the share of optimal moves and the seeds lost per move on a fixed,
    /// seeded set of positions the tables cover.
    #[arg(long, value_name = "DIR")]
    pub endgame: Option<PathBuf>,
    /// Positions of the endgame score (with --endgame).
    #[arg(long, default_value_t = 200, value_name = "K", requires = "endgame")]
    pub endgame_positions: usize,
    /// Openings, ply limit, seed, threads, resume in parts, shards, progress bar.
    #[command(flatten)]
    pub play: super::game_args::GameArgs,
}

fn after_help() -> String {
    format!(
        "{AFTER_HELP}{}{EXAMPLES}",
        awale::agent_kinds::available().help()
    )
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let rules: Rules = args.rules.parse()?;
    let registry = awale::agent_kinds::available();
    let mut specs = parse_agent_list(&args.agents)?;
    let format = match &args.gauntlet {
        None => Format::RoundRobin,
        Some(g) => {
            let g = parse_agent_list(g)?;
            if g.len() != 1 {
                return Err(AwaleError::BadAgentSpec {
                    spec: args.gauntlet.clone().unwrap_or_default(),
                    reason: "--gauntlet takes one agent".into(),
                }
                .into());
            }
            let name = g[0].display_name();
            if !specs.iter().any(|s| s.display_name() == name) {
                specs.insert(0, g[0].clone());
            }
            Format::Gauntlet(name)
        }
    };
    let entrants = specs
        .iter()
        .map(|s| Entrant::from_spec(&registry, s, &rules))
        .collect::<awale::Result<Vec<_>>>()?;
    let mut cfg = TournamentConfig::new(rules);
    cfg.format = format;
    cfg.run = args.play.run(args.games);
    cfg.anchor = args.anchor;
    cfg.anchor_rating = args.anchor_rating;
    cfg.out = args.out.clone();
    // Open the tables first: a bad folder is refused before any game is played.
    let endgame = match &args.endgame {
        Some(dir) => Some(awale::tablebase::Tablebase::open_shared(dir, &rules)?),
        None => None,
    };
    let report = run_observed(&cfg, &entrants, &ProgressBar::new(!args.play.no_progress))?;
    out!("{}", report.table());
    out!("{}", report.clock_table());
    if let Some(table) = endgame {
        let positions = awale::ratings::endgame::endgame_positions(
            &rules,
            table.max_seeds(),
            args.endgame_positions,
            args.play.seed,
        )?;
        outln!(
            "\nendgame accuracy ({} positions with at most {} seeds, seed {}):",
            positions.len(),
            table.max_seeds(),
            args.play.seed
        );
        outln!(
            "{:<36}  {:>8}  {:>10}  {:>11}",
            "agent",
            "optimal",
            "seeds lost",
            "result kept"
        );
        for e in &entrants {
            let mut agent = e.make()?;
            let score =
                awale::ratings::endgame::endgame_accuracy(&table, &rules, &positions, &mut agent)?;
            outln!(
                "{:<36}  {:>7.1}%  {:>10.3}  {:>10.1}%",
                e.name(),
                100.0 * score.optimal_share(),
                score.mean_loss(),
                100.0 * score.result_share()
            );
        }
    }
    if let Some(dir) = &args.out {
        outln!(
            "\nresults in {} (games.jsonl, results.json, ratings.csv, crosstable.csv, los.csv, games.csv)",
            dir.display()
        );
        if !report.complete {
            outln!(
                "{} games left: run the same command again to resume",
                report.games_scheduled - report.games_played
            );
        }
    }
    Ok(())
}
