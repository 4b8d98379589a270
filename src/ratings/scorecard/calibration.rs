//! The protocol's anchors rated among themselves (`awale scorecard --calibrate`): how the
//! ratings the protocol pins were made.

use std::path::PathBuf;

use super::protocol::{err, Protocol};
use crate::agents::Registry;
use crate::error::Result;
use crate::rules::Rules;
use crate::tournament::{run_observed, Entrant, Format, TournamentConfig, TournamentObserver};

/// The anchors' ratings, computed: with 2 players each anchor against the next three (`games`
/// per pair; the anchors are listed weakest first), with more a round-robin of tables, the protocol's
/// openings and a seed derived from its own, rated with the first anchor at 0. This is how the
/// protocol's ratings were made (`awale scorecard --calibrate`); the returned protocol carries
/// the new ratings and their 95% half-widths.
pub fn calibrate(
    protocol: &Protocol,
    registry: &Registry,
    games: usize,
    threads: usize,
    out: Option<PathBuf>,
    observer: &dyn TournamentObserver,
) -> Result<Protocol> {
    protocol.check()?;
    let rules: Rules = protocol.rules.parse()?;
    let entrants = protocol
        .anchors
        .iter()
        .map(|a| Entrant::from_spec(registry, &a.spec.parse()?, &rules))
        .collect::<Result<Vec<_>>>()?;
    let mut cfg = TournamentConfig::new(rules);
    if rules.players == 2 {
        // Each anchor with the next three above it: the pairs that inform (random against the
        // strongest anchor teaches nothing), and enough of them that an anchor's rating rests
        // on most of the anchors its card would meet.
        let names: Vec<String> = entrants.iter().map(|e| e.name().to_string()).collect();
        let pairs = (0..names.len())
            .flat_map(|i| (i + 1..names.len().min(i + 4)).map(move |j| (i, j)))
            .map(|(i, j)| (names[i].clone(), names[j].clone()))
            .collect();
        cfg.format = Format::Pairings(pairs);
    }
    cfg.run.games = games;
    cfg.run.openings = protocol.openings;
    cfg.run.seed = protocol.seed ^ 0xca11_b4a7e;
    cfg.run.threads = threads;
    cfg.anchor = Some(entrants[0].name().to_string());
    cfg.prior_draws = protocol.prior_draws;
    cfg.out = out;
    let report = run_observed(&cfg, &entrants, observer)?;
    let fit = report.elo.ok_or_else(|| {
        err(format!(
            "the calibration could not rate the anchors: {}",
            report.elo_error.unwrap_or_default()
        ))
    })?;
    let mut p = protocol.clone();
    for (a, e) in p.anchors.iter_mut().zip(&entrants) {
        let i = fit
            .names
            .iter()
            .position(|n| n == e.name())
            .expect("every anchor is rated");
        a.rating = (fit.ratings[i] * 10.0).round() / 10.0;
        a.calibration_halfwidth = ((fit.upper[i] - fit.ratings[i]) * 10.0).round() / 10.0;
    }
    Ok(p)
}
