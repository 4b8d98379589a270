//! `awale match`: two agents, paired openings, a fixed number of games or a sequential test.

use std::path::PathBuf;

use awale::agents::{parse_agent_list, Registry};
use awale::ratings::matchplay::{run_match_observed, MatchConfig};
use awale::ratings::sprt::SprtConfig;
use awale::tournament::Entrant;
use awale::{AwaleError, Rules};

const AFTER_HELP: &str = "\
Plays A against B on random openings of K plies, each opening twice with the seats swapped (a
pair); the statistics are A's, on pentanomial counts of pairs (0, 1/2, 1, 3/2 or 2 points),
which are independent where single games are not.

Without --sprt, plays GAMES games and reports A's Elo difference, its 95% interval and the
likelihood of superiority (LOS). With --sprt, runs the sequential probability ratio test of
Stockfish's fishtest (H0: Elo = elo0 against H1: Elo = elo1, error rates alpha and beta) and
stops as soon as it decides, or at GAMES (inconclusive). The LLR and its bounds are shown with
the progress bar. Pairs are counted in order, so the decision does not depend on the number of
threads.

With --out, every game is appended to DIR/games.jsonl as it ends: the same command resumes a
killed match. --shard K/N plays a share of the games, e.g. one per machine; joined folders
resume into the whole match (awale.match(..., backend=\"ray\") does that on Ray).

--sprt elo0=E0,elo1=E1[,alpha=0.05][,beta=0.05][,model=logistic|normalized]: logistic Elo is
the scale of the tournament ratings; normalized Elo (fishtest's default) does not depend on
the draw rate.
";

const EXAMPLES: &str = "
Examples:
  awale match alphabeta:depth=4 alphabeta:depth=3 --games 200 --out runs/m1
  awale match mcts:sims=400 mcts:sims=200 --sprt elo0=0,elo1=50 --games 2000 --out runs/sprt1
  awale match nn:path=runs/abapa/checkpoint.ckpt,sims=128 nn:path=runs/abapa/checkpoint.ckpt,sims=64,name=net64 --sprt elo0=0,elo1=20";

/// Arguments of `awale match`.
#[derive(Debug, clap::Args)]
#[command(after_help = after_help())]
pub struct Args {
    /// Agent A, whose Elo difference is measured (a spec, e.g. alphabeta:depth=4).
    #[arg(value_name = "A")]
    pub a: String,
    /// Agent B, the baseline.
    #[arg(value_name = "B")]
    pub b: String,
    /// A sequential probability ratio test: elo0=E0,elo1=E1[,alpha=A][,beta=B][,model=M].
    #[arg(long, value_name = "BOUNDS")]
    pub sprt: Option<String>,
    /// Games at most (even; with --sprt, an undecided test stops here as inconclusive).
    #[arg(long, default_value_t = 1000, value_name = "N")]
    pub games: usize,
    /// The rules (a 2-player rules spec, see `awale rules`).
    #[arg(long, default_value = "abapa", value_name = "SPEC")]
    pub rules: String,
    /// Folder for the games (resumable) and the result files (match.json and the tournament's).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Openings, ply limit, seed, threads, resume in parts, shards, progress bar.
    #[command(flatten)]
    pub play: super::game_args::GameArgs,
}

fn after_help() -> String {
    format!(
        "{AFTER_HELP}\n{}{EXAMPLES}",
        awale::agent_kinds::available().help()
    )
}

/// One agent from a spec argument.
fn entrant(registry: &Registry, text: &str, rules: &Rules) -> Result<Entrant, AwaleError> {
    let specs = parse_agent_list(text)?;
    if specs.len() != 1 {
        return Err(AwaleError::BadAgentSpec {
            spec: text.to_string(),
            reason: format!("one agent expected, found {}", specs.len()),
        });
    }
    Entrant::from_spec(registry, &specs[0], rules)
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let rules: Rules = args.rules.parse()?;
    let registry = awale::agent_kinds::available();
    let a = entrant(&registry, &args.a, &rules)?;
    let b = entrant(&registry, &args.b, &rules)?;
    let mut cfg = MatchConfig::new(rules);
    cfg.run = args.play.run(args.games);
    cfg.sprt = args
        .sprt
        .as_deref()
        .map(str::parse::<SprtConfig>)
        .transpose()?;
    cfg.out = args.out.clone();
    let bar = if args.play.no_progress {
        indicatif::ProgressBar::hidden()
    } else {
        let b = indicatif::ProgressBar::new(0);
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{elapsed_precise} [{bar:30}] {pos}/{len} games  {msg}",
        ) {
            b.set_style(style.progress_chars("=> "));
        }
        b
    };
    let report = run_match_observed(&cfg, &a, &b, &(), &|status| {
        bar.set_length(status.games_scheduled as u64);
        bar.set_position(status.games_done as u64);
        bar.set_message(status.line());
    });
    bar.finish_and_clear();
    let report = report?;
    out!("{}", report.text());
    if let Some(dir) = &args.out {
        outln!(
            "results in {} (match.json, games.jsonl, ...)",
            dir.display()
        );
        if report.verdict == "in progress" {
            outln!("not finished: run the same command again to resume");
        }
    }
    Ok(())
}
