//! Reference ratings of the evaluation opponents, measured once per run (before its first
//! evaluation; kept in checkpoints): the network's Elo is fitted against them
//! (`awale::train::evaluation::elo_against`, cargo feature `train`).

use crate::agents::derive_seed;
use crate::az::{TrainConfig, TrainResult};
use crate::tournament::{self, Entrant, TournamentConfig};

/// Reference ratings of the evaluation opponents: a round-robin between them, rated by
/// maximum-likelihood Elo (anchor `random` = 0 when it plays).
pub fn calibrate(cfg: &TrainConfig, progress: bool) -> TrainResult<Vec<(String, f64)>> {
    let rules = cfg.rules()?;
    let entrants: Vec<Entrant> = cfg
        .eval
        .opponents
        .iter()
        .map(|o| Entrant::from_spec_text(o, &rules))
        .collect::<crate::Result<_>>()?;
    if entrants.len() < rules.players as usize || cfg.eval.calibration_games == 0 {
        return Ok(entrants
            .iter()
            .map(|e| (e.name().to_string(), 0.0))
            .collect());
    }
    let mut tc = TournamentConfig::new(rules);
    tc.run.games = cfg.eval.calibration_games;
    tc.run.openings = cfg.eval.openings;
    tc.run.seed = derive_seed(cfg.seed, 0xca1b);
    let report = tournament::run_observed(&tc, &entrants, &tournament::ProgressBar::new(progress))?;
    Ok(report
        .standings
        .iter()
        .map(|s| (s.name.clone(), s.elo.unwrap_or(0.0)))
        .collect())
}
