//! The scorecard's gauntlet: the rated agent against every anchor of the protocol (paired
//! openings, resumable), its rating with the anchors pinned, its time per move and the endgame
//! yardstick.

use std::path::PathBuf;

use super::card::{write, AnchorScore, EndgameCard, Scorecard, FORMAT};
use super::protocol::{err, Protocol};
use crate::agents::{AgentSpec, Registry};
use crate::error::Result;
use crate::ratings::elo::{rate_against, AnchoredResult, Z95};
use crate::ratings::endgame::{endgame_accuracy, endgame_positions};
use crate::rules::Rules;
use crate::tablebase::Tablebase;
use crate::tournament::{
    run_observed, Entrant, Format, GameResult, TournamentConfig, TournamentObserver,
};

/// How to run a scorecard.
#[derive(Debug, Clone, Default)]
pub struct ScorecardOptions {
    /// A folder for `scorecard.json`, `scorecard.md` and the games (`games/`, for resuming).
    pub out: Option<PathBuf>,
    /// Game threads (0: one per core).
    pub threads: usize,
    /// Endgame tables for the yardstick (2-player rule sets); none skips it.
    pub tables: Option<PathBuf>,
}

/// Rates `agent` with `protocol`: the gauntlet against the anchors (built by `registry`), the
/// rating with the anchors pinned, the time per move, and the yardstick where the tables are
/// given. With an output folder the games are kept there and a second call resumes; a
/// scorecard of another protocol version or part found there is refused.
pub fn run(
    protocol: &Protocol,
    agent: Entrant,
    registry: &Registry,
    opts: &ScorecardOptions,
    observer: &dyn TournamentObserver,
) -> Result<Scorecard> {
    protocol.check()?;
    let rules: Rules = protocol.rules.parse()?;
    // A card already in the folder: the same protocol's (else refused); its times per move stand
    // for the games it timed, which a resumed run loads without timing them again.
    let mut previous: Option<Scorecard> = None;
    if let Some(dir) = &opts.out {
        // The card's folder (the user's: a link to a folder is followed), and the games under
        // it, never through a link.
        crate::files::user_dir(dir).map_err(|e| err(format!("{}: {e}", dir.display())))?;
        let games = dir.join("games");
        crate::files::real_dir(&games).map_err(|e| err(format!("{}: {e}", games.display())))?;
        let old = dir.join("scorecard.json");
        if std::fs::symlink_metadata(&old).is_ok() {
            let card = Scorecard::read(&old)?;
            if card.protocol_sha256 != protocol.sha256() {
                return Err(err(format!(
                    "{} was made with protocol {}, not {}: give another folder",
                    old.display(),
                    card.protocol_id,
                    protocol.id()
                )));
            }
            previous = Some(card);
        }
    }
    let mut entrants = Vec::with_capacity(protocol.anchors.len() + 1);
    for a in &protocol.anchors {
        let spec: AgentSpec = a.spec.parse()?;
        let e = Entrant::from_spec(registry, &spec, &rules).map_err(|e| {
            err(format!(
                "the anchor {} cannot be built in this build: {e}",
                a.spec
            ))
        })?;
        entrants.push(e);
    }
    let mut name = agent.name().to_string();
    if entrants.iter().any(|e| e.name() == name) {
        name = format!("{name} (rated)");
    }
    let agent = agent.renamed(name.clone());
    let spec = agent.spec().map(str::to_string);
    entrants.push(agent.clone());

    let mut cfg = TournamentConfig::new(rules);
    cfg.format = Format::Gauntlet(name.clone());
    cfg.run.games = protocol.games;
    cfg.run.openings = protocol.openings;
    cfg.run.seed = protocol.seed;
    cfg.run.threads = opts.threads;
    cfg.anchor = Some(entrants[0].name().to_string());
    cfg.prior_draws = protocol.prior_draws;
    cfg.out = opts.out.as_ref().map(|d| d.join("games"));
    let report = run_observed(&cfg, &entrants, observer)?;

    let mut results = Vec::new();
    let mut scores: Vec<AnchorScore> = protocol
        .anchors
        .iter()
        .map(|a| AnchorScore {
            spec: a.spec.clone(),
            rating: a.rating,
            games: 0,
            wins: 0,
            draws: 0,
            losses: 0,
            score: 0.0,
            ms_per_move: None,
        })
        .collect();
    for g in &report.games {
        add_comparisons(g, &name, &entrants, protocol, &mut scores, &mut results);
    }
    let timed = |name: &str| {
        report
            .clock
            .iter()
            .find(|c| c.name == name)
            .and_then(|c| c.ms_per_move())
    };
    for (i, (a, e)) in scores.iter_mut().zip(&entrants).enumerate() {
        a.score = (f64::from(a.wins) + 0.5 * f64::from(a.draws)) / f64::from(a.games.max(1));
        a.ms_per_move = timed(e.name()).or_else(|| {
            previous
                .as_ref()
                .and_then(|p| p.anchors.get(i))
                .and_then(|x| x.ms_per_move)
        });
    }
    let (rating, stderr) = if results.is_empty() {
        (f64::NAN, f64::NAN)
    } else {
        rate_against(&results, protocol.prior_draws)?
    };
    let endgame = match (&opts.tables, &protocol.yardstick) {
        (Some(dir), Some(y)) if rules.players == 2 => {
            let table = Tablebase::open(dir, &rules, Some(y.max_seeds))
                .map_err(|e| err(format!("the yardstick's tables: {e}")))?;
            let positions = endgame_positions(&rules, y.max_seeds, y.positions, y.seed)?;
            let mut a = agent.make()?;
            let score = endgame_accuracy(&table, &rules, &positions, a.as_mut())?;
            Some(EndgameCard {
                max_seeds: y.max_seeds,
                positions: score.positions,
                optimal_share: score.optimal_share(),
                mean_loss: score.mean_loss(),
            })
        }
        _ => None,
    };
    let card = Scorecard {
        format: FORMAT.into(),
        protocol_version: protocol.version,
        protocol_id: protocol.id(),
        protocol_sha256: protocol.sha256(),
        rules: protocol.rules.clone(),
        agent: name.clone(),
        spec,
        rating,
        lower: rating - Z95 * stderr,
        upper: rating + Z95 * stderr,
        stderr,
        games: report.games_played,
        games_scheduled: report.games_scheduled,
        complete: report.complete && !report.stopped,
        ms_per_move: timed(&name).or_else(|| previous.as_ref().and_then(|p| p.ms_per_move)),
        anchors: scores,
        endgame,
    };
    if let Some(dir) = &opts.out {
        write(dir, &card)?;
    }
    Ok(card)
}

/// The comparisons of game `g` between the rated agent and each anchor at its table.
fn add_comparisons(
    g: &GameResult,
    name: &str,
    entrants: &[Entrant],
    protocol: &Protocol,
    scores: &mut [AnchorScore],
    out: &mut Vec<AnchoredResult>,
) {
    let Some(me) = g.seats.iter().position(|s| s == name) else {
        return;
    };
    for (seat, other) in g.seats.iter().enumerate() {
        if seat == me {
            continue;
        }
        let Some(a) = entrants.iter().position(|e| e.name() == other) else {
            continue;
        };
        if a >= protocol.anchors.len() {
            continue;
        }
        let points = g.result_between(me, seat);
        match points {
            x if x > 0.5 => scores[a].wins += 1,
            x if x < 0.5 => scores[a].losses += 1,
            _ => scores[a].draws += 1,
        }
        scores[a].games += 1;
        out.push(AnchoredResult {
            anchor_rating: protocol.anchors[a].rating,
            points,
            cluster: g.index,
        });
    }
}
