//! Self-play speed: moves, network evaluations and positions per second of [`SelfPlay`] with a
//! given network and thread count (`awale bench selfplay`).
//!
//! ```
//! use awale::az::selfplay_bench::measure_selfplay;
//! use awale::az::network::UniformNetwork;
//! use awale::az::TrainConfig;
//! let mut cfg = TrainConfig::tiny();
//! cfg.selfplay.concurrent_games = 8;
//! let net = UniformNetwork { rules: cfg.rules().unwrap() };
//! let m = measure_selfplay(&net, &cfg, 2, 40).unwrap();
//! assert!(m.stats.positions >= 40 && m.moves_per_sec() > 0.0);
//! ```

use std::time::Instant;

use super::data::ReplayBuffer;
use super::network::{Network, NetworkEvaluator};
use super::selfplay::{SelfPlay, SelfPlaySettings, SelfPlayStats};
use super::{TrainConfig, TrainError, TrainResult};

/// One measurement of self-play.
#[derive(Debug, Clone, PartialEq)]
pub struct SelfPlayMeasurement {
    /// Worker threads.
    pub threads: usize,
    /// Wall-clock seconds of the timed part.
    pub seconds: f64,
    /// What the timed part did.
    pub stats: SelfPlayStats,
}

impl SelfPlayMeasurement {
    /// Moves played per second (full and fast searches).
    pub fn moves_per_sec(&self) -> f64 {
        self.stats.moves as f64 / self.seconds.max(1e-9)
    }

    /// Positions evaluated by the network per second.
    pub fn evals_per_sec(&self) -> f64 {
        self.stats.evaluations as f64 / self.seconds.max(1e-9)
    }

    /// Training positions produced per second.
    pub fn positions_per_sec(&self) -> f64 {
        self.stats.positions as f64 / self.seconds.max(1e-9)
    }
}

/// Runs self-play of `cfg` (its rules, search and concurrent games) with `net` on `threads`
/// worker threads: an untimed warm-up of a tenth of `positions`, then `positions` training
/// positions timed.
pub fn measure_selfplay(
    net: &dyn Network,
    cfg: &TrainConfig,
    threads: usize,
    positions: usize,
) -> TrainResult<SelfPlayMeasurement> {
    cfg.validate()?;
    let rules = cfg.rules()?;
    if net.rules() != rules {
        return Err(TrainError::Config(format!(
            "the network plays {} and the config {rules}",
            net.rules()
        )));
    }
    if threads == 0 || positions == 0 {
        return Err(TrainError::Config(
            "threads and positions must be at least 1".into(),
        ));
    }
    let mut sp = SelfPlay::with_threads(
        rules,
        SelfPlaySettings::from_config(cfg),
        cfg.selfplay.concurrent_games,
        threads,
    );
    let mut buffer = ReplayBuffer::new(positions.max(1));
    let make = || NetworkEvaluator::new(net);
    let eval_batch = cfg.selfplay.eval_batch;
    sp.run_with(make, eval_batch, (positions / 10).max(1), &mut buffer);
    let t = Instant::now();
    let stats = sp.run_with(make, eval_batch, positions, &mut buffer);
    Ok(SelfPlayMeasurement {
        threads: sp.threads(),
        seconds: t.elapsed().as_secs_f64(),
        stats,
    })
}
