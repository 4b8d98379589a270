//! A self-play worker of a distributed run: a [`SelfPlayPart`] that plays with the burn network
//! whose weights the learner sends (see [`crate::az::remote`]; the Python module's
//! `awale._core.SelfPlayWorker`, run as a Ray actor, wraps it).
//!
//! ```
//! use awale::az::remote::{join_reports, worker_shards};
//! use awale::train::worker::SelfPlayWorker;
//! use awale::train::{TrainConfig, Trainer};
//!
//! let mut cfg = TrainConfig::tiny();
//! cfg.selfplay.threads = 2;
//! let trainer = Trainer::new(cfg.clone()).unwrap();
//! let weights = trainer.weights().unwrap();
//! let mut worker = SelfPlayWorker::new(&cfg, worker_shards(1, 2, 2)).unwrap();
//! let report = worker.play(&weights, 0, 16).unwrap();
//! // Alone, shard 1 is not a whole iteration: the learner wants every shard.
//! assert!(join_reports(&cfg, 0, &[report]).is_err());
//! ```

use std::ops::Range;

use super::{TrainConfig, TrainResult};
use crate::az::network::NetworkEvaluator;
use crate::az::remote::SelfPlayPart;
use crate::network::model::load_model;
use crate::network::net_core::NetCore;

/// Plays some shards of a run's self-play with the weights it is sent.
#[derive(Debug)]
pub struct SelfPlayWorker {
    cfg: TrainConfig,
    part: SelfPlayPart,
    /// The network of the last weights, with their length and checksum.
    net: Option<(usize, u32, NetCore)>,
}

impl SelfPlayWorker {
    /// The worker of `shards` of `cfg`'s self-play (`selfplay.threads` shards, which must be
    /// set); it plays one thread per shard.
    pub fn new(cfg: &TrainConfig, shards: Range<usize>) -> TrainResult<SelfPlayWorker> {
        Ok(SelfPlayWorker {
            part: SelfPlayPart::new(cfg, shards)?,
            cfg: cfg.clone(),
            net: None,
        })
    }

    /// The shards it plays.
    pub fn shards(&self) -> Range<usize> {
        self.part.shards()
    }

    /// Takes the games in progress to play on from (see [`SelfPlayPart::start`]).
    pub fn start(&mut self, games: &[u8]) -> TrainResult<()> {
        self.part.start(games)
    }

    /// Plays its shards' share of `positions` with `weights` (a network record as checkpoints
    /// hold it, of weights version `version`; loaded again only when they change) and returns
    /// the report for the learner. Weights that do not load are refused and nothing is played.
    pub fn play(&mut self, weights: &[u8], version: u64, positions: usize) -> TrainResult<Vec<u8>> {
        let key = (weights.len(), crc32fast::hash(weights));
        let fresh = !matches!(&self.net, Some((l, c, _)) if (*l, *c) == key);
        if fresh {
            let device = crate::network::inference_device();
            let net = load_model(&self.cfg, weights, &device)?;
            self.net = Some((key.0, key.1, NetCore::new(&net, &self.cfg)?));
        }
        let (_, _, core) = self.net.as_ref().expect("loaded above");
        Ok(self
            .part
            .play(|| NetworkEvaluator::new(core), version, positions))
    }

    /// Its shards' games in progress (the learner keeps them: checkpoints, replays).
    pub fn games(&self) -> Vec<u8> {
        self.part.games()
    }
}
