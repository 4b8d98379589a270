//! A training iteration with its self-play played in other processes ([`crate::az::remote`]):
//! the trainer sends its weights out, collects the workers' reports, checks them and takes its
//! gradient steps as [`Trainer::iteration`] would; with `selfplay.overlap` the next iteration's
//! self-play is already under way during these steps. The positions are those of the local run,
//! so a distributed run is the local run, bit for bit.

use std::time::Instant;

use super::metrics::IterationStats;
use super::trainer::Trainer;
use super::{TrainError, TrainResult};
use crate::az::data::ByteWriter;
use crate::az::remote::{self, RemoteSelfPlay};

impl Trainer {
    /// One iteration with the self-play played by `remote`'s workers (see
    /// [`crate::az::remote`]): the weights go out with their version (the iterations done), the
    /// reports come back and are checked, then the gradient steps of [`Trainer::iteration`].
    /// The positions are those [`Trainer::iteration`] would have played with
    /// `selfplay.threads` threads, so the run is the local run, bit for bit.
    ///
    /// With `overlap_next`, the next iteration's self-play is submitted, with the weights of
    /// before these gradient steps, before taking them (`selfplay.overlap`); the next call
    /// collects it.
    pub fn iteration_remote(
        &mut self,
        remote: &mut dyn RemoteSelfPlay,
        overlap_next: bool,
    ) -> TrainResult<IterationStats> {
        let t0 = Instant::now();
        if self.in_flight.is_none() {
            self.submit_remote(remote)?;
        }
        let version = self.in_flight.take().expect("submitted above");
        let reports = remote.collect()?;
        let (sp, samples) = remote::join_reports(&self.cfg, version, &reports)?;
        for s in samples {
            self.buffer.push(s);
        }
        if overlap_next {
            self.submit_remote(remote)?;
        }
        Ok(self.learn(sp, t0.elapsed().as_secs_f64()))
    }

    /// Submits an iteration's self-play with the current weights.
    fn submit_remote(&mut self, remote: &mut dyn RemoteSelfPlay) -> TrainResult<()> {
        let version = self.counters.iteration;
        let weights = self.weights()?;
        remote.submit(&weights, version, self.cfg.selfplay.positions_per_iteration)?;
        self.in_flight = Some(version);
        Ok(())
    }

    /// The weights version of the remote self-play submitted and not yet collected.
    pub fn in_flight(&self) -> Option<u64> {
        self.in_flight
    }

    /// Hands `remote`'s workers the games in progress (at the start of a session).
    pub fn start_remote(&self, remote: &mut dyn RemoteSelfPlay) -> TrainResult<()> {
        let mut games = ByteWriter::new();
        self.selfplay.encode(&mut games);
        remote.start(&games.buf)
    }

    /// Gathers `remote`'s workers' games in progress into the run (before a checkpoint; not
    /// while self-play is in flight).
    pub fn gather_remote(&mut self, remote: &mut dyn RemoteSelfPlay) -> TrainResult<()> {
        if let Some(v) = self.in_flight {
            return Err(TrainError::Remote(format!(
                "the self-play of weights version {v} is still in flight"
            )));
        }
        let parts = remote.games()?;
        remote::join_games(&self.cfg, &mut self.selfplay, &parts)
    }
}
