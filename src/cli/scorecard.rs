//! `awale scorecard`: an agent's rating on the published scale of a fixed protocol.

use std::path::PathBuf;

use awale::ratings::scorecard::{self, ProtocolFile, ScorecardOptions};
use awale::tournament::{Entrant, ProgressBar};

const AFTER_HELP: &str = "\
Rates AGENT on a published scale that does not move from one run to the next: a fixed protocol
(version 1, compiled in: scorecard/v1.toml) gives each rule set its anchor agents with fixed
ratings (random = 0, greedy, alpha-beta depths 2 to 10, the shipped baseline network...), a seed,
random openings and the games against each anchor. The agent plays them all (a gauntlet, each
opening from both seats), and its rating is fitted with the anchors' ratings pinned: a number
with a 95% interval that anyone can compare with another scorecard of the same protocol
identifier. Printed and written: the rating, the score against each anchor, the time per move,
and with --tables the endgame yardstick (share of perfect moves on 1,000 positions of at most
12 seeds).

AGENT is an agent spec (`awale tournament --help` lists the kinds) or a network file (a
checkpoint, generation or safetensors: rated as nn:path=FILE). With --out the games are kept
and running the same command again resumes; DIR/scorecard.json and DIR/scorecard.md hold the
card. A deterministic agent gets the same card every time.

Examples:
  awale scorecard alphabeta:depth=5 --rules abapa
  awale scorecard runs/abapa/checkpoint.ckpt --rules abapa --out runs/abapa-card
  awale scorecard nn:baseline=wari,sims=64 --rules wari --tables tablebases
  awale scorecard mcts:sims=1000 --rules oware3";

/// Arguments of `awale scorecard`.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// The agent to rate: a spec, or a network file (rated as nn:path=FILE).
    #[arg(value_name = "AGENT", required_unless_present = "calibrate")]
    pub agent: Option<String>,
    /// The rule set (one of the protocol's: abapa, awale, wari, oware3, oware4, oware6).
    #[arg(long, default_value = "abapa")]
    pub rules: String,
    /// A folder for scorecard.json, scorecard.md and the games (resume).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Endgame tables for the yardstick (`awale tablebase build --max-seeds 12`); none skips it.
    #[arg(long, value_name = "DIR")]
    pub tables: Option<PathBuf>,
    /// Game threads (0: one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Another protocol file (TOML, the layout of scorecard/v1.toml), e.g. a small one for a
    /// test; its cards carry its own identifier.
    #[arg(long, value_name = "FILE")]
    pub protocol: Option<PathBuf>,
    /// Print the card as JSON.
    #[arg(long)]
    pub json: bool,
    /// No progress bar.
    #[arg(long)]
    pub no_progress: bool,
    /// For the protocol's maintainers: compute the anchors' ratings (each anchor against the
    /// next three with 2 players, a round-robin of tables with more; --games per pairing) and
    /// print the protocol part with them.
    #[arg(long)]
    pub calibrate: bool,
    /// Games per pairing of the calibration.
    #[arg(long, default_value_t = 400, requires = "calibrate")]
    pub games: usize,
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let protocol = match &args.protocol {
        None => scorecard::protocol(&args.rules)?,
        Some(path) => {
            let text = awale::files::read_regular_string(path, scorecard::CARD_LIMIT)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            ProtocolFile::parse(&text)
                .and_then(|f| f.part(&args.rules))
                .map_err(|e| format!("{}: {e}", path.display()))?
        }
    };
    let registry = awale::agent_kinds::available();
    let bar = ProgressBar::new(!args.no_progress);
    if args.calibrate {
        let p = scorecard::calibrate(
            &protocol,
            &registry,
            args.games,
            args.threads,
            args.out.clone(),
            &bar,
        )?;
        drop(bar);
        outln!("# calibrated: {} games per pairing", args.games);
        outln!("anchors = [");
        for a in &p.anchors {
            outln!(
                "  {{ spec = \"{}\", rating = {:.1}, calibration_halfwidth = {:.1} }},",
                a.spec,
                a.rating,
                a.calibration_halfwidth
            );
        }
        outln!("]");
        return Ok(());
    }
    let text = args.agent.as_deref().unwrap_or_default();
    let spec_text = if std::path::Path::new(text).is_file() {
        format!("nn:path={text}")
    } else {
        text.to_string()
    };
    let rules = protocol.rules.parse()?;
    let agent = Entrant::from_spec(&registry, &spec_text.parse()?, &rules)?;
    errln!(
        "scorecard protocol {} ({} games)",
        protocol.id(),
        protocol.games * tables(&protocol)?
    );
    let opts = ScorecardOptions {
        out: args.out.clone(),
        threads: args.threads,
        tables: args.tables.clone(),
    };
    let card = scorecard::run(&protocol, agent, &registry, &opts, &bar)?;
    drop(bar);
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&card)?);
    } else {
        out!("{}", card.to_markdown());
        outln!();
        outln!("{}", card.summary());
        if let Some(dir) = &args.out {
            outln!("written: {}/scorecard.json, scorecard.md", dir.display());
        }
    }
    Ok(())
}

/// The tables of the protocol's gauntlet: one per set of anchors that fills a board with the agent.
fn tables(p: &scorecard::Protocol) -> Result<usize, Box<dyn std::error::Error>> {
    let rules: awale::Rules = p.rules.parse()?;
    let (n, k) = (p.anchors.len(), rules.players as usize - 1);
    // n choose k
    let mut c = 1usize;
    for i in 0..k {
        c = c * (n - i) / (i + 1);
    }
    Ok(c)
}
