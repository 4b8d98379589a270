//! The network's evaluation: games against the built-in agents (a gauntlet), its Elo against
//! their reference ratings ([`crate::ratings::calibration`]), and optionally its endgame accuracy against
//! the tables ([`EvalReport`]; [`super::metrics::Extra`] keeps their history in checkpoints).

use std::time::Instant;

use super::metrics::{EndgameEval, EvalReport};
use super::trainer::Trainer;
use super::{TrainConfig, TrainResult};
use crate::agents::{derive_seed, Agent, AgentSpec, Registry};
use crate::network::{NetCore, NnAgent};
use crate::ratings::endgame::{endgame_accuracy, endgame_positions};
use crate::tablebase::Tablebase;
use crate::tournament::{self, Entrant, Format, GameRunConfig, TournamentConfig};

impl Trainer {
    /// Plays the network (`sims` simulations per move) against each opponent, `run.games`
    /// games each (paired openings of `run.openings` plies, seats swapped, seed `run.seed`, on
    /// `run.threads` threads); rates it against `reference` ratings of the opponents (0 for all
    /// when none; no rating when an opponent has none).
    pub fn evaluate(
        &self,
        opponents: &[String],
        sims: u32,
        reference: Option<&[(String, f64)]>,
        run: &GameRunConfig,
        progress: bool,
    ) -> TrainResult<EvalReport> {
        evaluate_core(
            std::sync::Arc::new(self.core()?),
            self.config(),
            self.counters().iteration,
            opponents,
            sims,
            reference,
            run,
            progress,
        )
    }
}

/// Plays `core` against the opponents (see [`Trainer::evaluate`]).
#[allow(clippy::too_many_arguments)]
pub fn evaluate_core(
    core: std::sync::Arc<NetCore>,
    cfg: &TrainConfig,
    iteration: u64,
    opponents: &[String],
    sims: u32,
    reference: Option<&[(String, f64)]>,
    run: &GameRunConfig,
    progress: bool,
) -> TrainResult<EvalReport> {
    let t0 = Instant::now();
    let rules = core.rules;
    let name = "network".to_string();
    let settings = cfg.search.play_settings();
    let network = || {
        let (core, name) = (core.clone(), name.clone());
        Entrant::new(name.clone(), move || {
            Ok(
                Box::new(NnAgent::new(core.clone(), name.clone(), sims, settings))
                    as Box<dyn Agent>,
            )
        })
    };
    let mut tc = TournamentConfig::new(rules);
    tc.format = Format::Gauntlet(name.clone());
    tc.run = run.clone();
    tc.run.games = run.games.max(rules.players as usize);
    let seats = rules.players as usize;
    // Who sits at the boards: in a 2-player game one gauntlet of the network against every
    // opponent; with more players, one per opponent with a copy of it in every other seat (so
    // that a 6-player game needs no 5 different opponents, and each opponent is measured on
    // its own). Each group's results are the network's pairwise ones inside the games,
    // summed over the copies.
    let mut groups: Vec<Vec<Entrant>> = Vec::new();
    for (i, o) in opponents.iter().enumerate() {
        let spec: AgentSpec = o.parse()?;
        let copies = if seats == 2 { 1 } else { seats - 1 };
        if seats > 2 || i == 0 {
            groups.push(vec![network()]);
        }
        let group = groups.last_mut().expect("a group");
        for k in 1..=copies {
            let mut copy = spec.clone();
            if k > 1 {
                copy.options.retain(|(key, _)| key != "name");
                copy.options
                    .push(("name".into(), format!("{}#{k}", spec.display_name())));
            }
            group.push(Entrant::from_spec(&Registry::builtin(), &copy, &rules)?);
        }
    }
    let mut results = Vec::new();
    let mut fit = Vec::new();
    for entrants in &groups {
        let report =
            tournament::run_observed(&tc, entrants, &tournament::ProgressBar::new(progress))?;
        let m = &report.matchups;
        // One opponent per entrant (2 players), or one for the whole group (its copies).
        let per: Vec<Vec<usize>> = if seats == 2 {
            (1..entrants.len()).map(|j| vec![j]).collect()
        } else {
            vec![(1..entrants.len()).collect()]
        };
        for js in per {
            let (mut g, mut pts, mut w, mut d, mut l) = (0, 0.0, 0, 0, 0);
            for &j in &js {
                g += m.games(0, j);
                pts += m.points(0, j);
                (w, d, l) = (w + m.wins[0][j], d + m.draws[0][j], l + m.wins[j][0]);
            }
            let score = if g > 0 { pts / g as f64 } else { 0.0 };
            let opponent = entrants[js[0]].name().to_string();
            let r = match reference {
                None => Some(0.0),
                Some(r) => r.iter().find(|(n, _)| *n == opponent).map(|x| x.1),
            };
            results.push((opponent, score, w, d, l));
            fit.push(r.map(|r| (r, pts, g as f64)));
        }
    }
    let endgame = if cfg.eval.endgame_tables.is_empty() {
        None
    } else {
        let table = Tablebase::open_shared(std::path::Path::new(&cfg.eval.endgame_tables), &rules)?;
        let positions = endgame_positions(
            &rules,
            table.max_seeds(),
            cfg.eval.endgame_positions,
            derive_seed(cfg.seed, 0xe9d),
        )?;
        let mut agent = NnAgent::new(core.clone(), "network", sims, settings);
        let score = endgame_accuracy(&table, &rules, &positions, &mut agent)?;
        Some(EndgameEval {
            positions: score.positions,
            max_seeds: table.max_seeds(),
            optimal_share: score.optimal_share(),
            mean_loss: score.mean_loss(),
            result_share: score.result_share(),
        })
    };
    Ok(EvalReport {
        iteration,
        games: tc.run.games,
        results,
        elo: fit
            .into_iter()
            .collect::<Option<Vec<_>>>()
            .map(|f| elo_against(&f)),
        secs: t0.elapsed().as_secs_f64(),
        endgame,
    })
}

/// The maximum-likelihood Elo of a player who scored `points` in `games` against opponents of
/// fixed ratings (one virtual draw against each keeps it finite).
///
/// ```
/// use awale::train::evaluation::elo_against;
/// assert!(elo_against(&[(0.0, 5.0, 10.0)]).abs() < 1e-6);
/// assert!(elo_against(&[(100.0, 9.0, 10.0)]) > 300.0);
/// ```
pub fn elo_against(results: &[(f64, f64, f64)]) -> f64 {
    if results.is_empty() {
        return 0.0;
    }
    let grad = |r: f64| -> f64 {
        results
            .iter()
            .map(|&(ro, pts, n)| {
                let e = 1.0 / (1.0 + 10f64.powf((ro - r) / 400.0));
                (pts + 0.5) - (n + 1.0) * e
            })
            .sum()
    };
    let (mut lo, mut hi) = (-4000.0, 6000.0);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if grad(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// The evaluation of the run's loop (`last`: the final one), added to the trainer's history.
pub(super) fn periodic_eval(
    trainer: &mut Trainer,
    cfg: &TrainConfig,
    last: bool,
) -> TrainResult<EvalReport> {
    let games = if last && cfg.eval.final_games > 0 {
        cfg.eval.final_games
    } else {
        cfg.eval.games
    };
    let opponents = if last && !cfg.eval.final_opponents.is_empty() {
        &cfg.eval.final_opponents
    } else {
        &cfg.eval.opponents
    };
    let reference = trainer.extra.calibration.clone();
    let mut run = GameRunConfig::new(games);
    run.openings = cfg.eval.openings;
    run.seed = derive_seed(cfg.seed, 0xe7a1);
    let r = trainer.evaluate(opponents, cfg.eval.sims, reference.as_deref(), &run, last)?;
    trainer.extra.evals.push(r.clone());
    Ok(r)
}
