//! Self-play in other processes (Ray actors, other machines): the learner sends network weights,
//! workers send back training positions.
//!
//! The unit of distribution is the *shard* of [`SelfPlay`]: a run's self-play is
//! `selfplay.threads` shards, and a worker plays a contiguous range of them with the weights it
//! is sent ([`SelfPlayPart`]). Each shard plays the share of the iteration's positions it would
//! play in a local run, so the learner, joining the workers' [`PartReport`]s in shard order
//! ([`join_reports`]), gets exactly the positions that `awale train` would have produced with as
//! many threads as there are shards. A distributed run is therefore reproducible for a given seed
//! and shard count, whatever the number of workers or their timing, and its checkpoints are
//! ordinary trainer checkpoints: the games in progress of every worker are gathered into them
//! ([`join_games`]), so the run resumes with `awale train` (or distributed again) as if it had
//! never left one machine.
//!
//! The same games make lost workers cheap: a shard's games depend only on its games in
//! progress and the weights, so the learner keeps each part's games after every iteration
//! ([`SelfPlayPart::games`], its own shards only), and a part started from them
//! ([`SelfPlayPart::start`]) plays exactly what a lost worker would have played.
//!
//! The learner drives the workers through [`RemoteSelfPlay`] (the Python module implements it
//! over Ray actors); every message is a byte string, checked when read: a report of another
//! configuration, of other weights, or that does not cover the shards exactly once is refused
//! with [`TrainError::Remote`] before anything is added to the replay buffer.
//!
//! ```
//! use awale::az::remote::{join_reports, worker_shards, SelfPlayPart};
//! use awale::search::UniformEvaluator;
//! use awale::az::TrainConfig;
//!
//! let mut cfg = TrainConfig::tiny();
//! cfg.selfplay.threads = 2; // two shards, one per worker
//! let rules = cfg.rules().unwrap();
//! let mut reports = Vec::new();
//! for w in 0..2 {
//!     let mut part = SelfPlayPart::new(&cfg, worker_shards(w, 2, 2)).unwrap();
//!     reports.push(part.play(|| UniformEvaluator, 0, 64));
//! }
//! let (stats, samples) = join_reports(&cfg, 0, &reports).unwrap();
//! assert!(samples.len() >= 64 && stats.positions as usize == samples.len());
//! # let _ = rules;
//! ```

use std::ops::Range;

use super::config::fnv1a;
use super::data::{decode_sample, encode_sample, sample_bytes, ByteReader, ByteWriter, Sample};
use super::selfplay::{SelfPlay, SelfPlaySettings, SelfPlayStats};
use super::{TrainConfig, TrainError, TrainResult};
use crate::search::LeafEvaluator;

/// The first bytes of a [`PartReport`].
const REPORT_MAGIC: &[u8; 8] = b"AWSPREP1";
/// The first bytes of a worker's games in progress ([`SelfPlayPart::games`]).
///
/// Version 2 holds the part's own shards only (version 1 held every shard of the run).
const GAMES_MAGIC: &[u8; 8] = b"AWSPGAM2";

/// What a learner needs from its self-play workers, wherever they run.
///
/// The learner submits one iteration's self-play at a time and collects it before submitting
/// the next (with `selfplay.overlap` it submits the next before taking its gradient steps, so
/// the workers play while it trains). What comes back is one byte string per worker, in shard
/// order; the learner checks them ([`join_reports`], [`join_games`]).
pub trait RemoteSelfPlay {
    /// Hands the workers the run's games in progress (a [`SelfPlay::encode`] of every shard),
    /// before the first [`RemoteSelfPlay::submit`] of a session.
    fn start(&mut self, games: &[u8]) -> TrainResult<()>;
    /// Starts one iteration's self-play with `weights` (the network's record, as in
    /// checkpoints) of weights version `version`: each worker plays its shards' share of
    /// `positions` ([`SelfPlayPart::play`]). It may return before they are done.
    fn submit(&mut self, weights: &[u8], version: u64, positions: usize) -> TrainResult<()>;
    /// Waits for the submitted self-play and returns the workers' reports.
    fn collect(&mut self) -> TrainResult<Vec<Vec<u8>>>;
    /// The workers' games in progress ([`SelfPlayPart::games`]) as they stood after the last
    /// iteration collected (or the session's start), for a checkpoint: never those of an
    /// iteration submitted and not collected. Called at checkpoints, and after a failed
    /// iteration to save the run as it stood before it (the learner keeps a copy: each report
    /// comes with its part's games, so this needs no worker, and a lost worker's shards are
    /// replayed from it).
    fn games(&mut self) -> TrainResult<Vec<Vec<u8>>>;
}

/// The shards of worker `worker` of `workers` when a run has `shards` shards: contiguous, the
/// first `shards % workers` workers one more.
///
/// ```
/// use awale::az::remote::worker_shards;
/// assert_eq!((0..3).map(|w| worker_shards(w, 3, 8)).collect::<Vec<_>>(), vec![0..3, 3..6, 6..8]);
/// ```
pub fn worker_shards(worker: usize, workers: usize, shards: usize) -> Range<usize> {
    let workers = workers.max(1);
    let size = |w: usize| shards / workers + usize::from(w < shards % workers);
    let start: usize = (0..worker).map(size).sum();
    start..start + size(worker)
}

/// The number of shards of a distributed run of `cfg`: `selfplay.threads` (at most
/// `selfplay.concurrent_games`), which must be set: 0, one per core, would differ from one
/// machine to the next.
pub fn shard_count(cfg: &TrainConfig) -> TrainResult<usize> {
    if cfg.selfplay.threads == 0 {
        return Err(TrainError::Config(
            "selfplay.threads: a distributed run needs the number of shards (0 means one per \
             core, which differs between machines)"
                .into(),
        ));
    }
    Ok(cfg.selfplay.resolved_threads())
}

/// A digest of everything in a configuration that self-play depends on (rules, seed, network,
/// search, self-play settings): a worker's report made under another configuration is refused.
/// The learner's own settings (training but its search-value mix, evaluation, checkpoints, the
/// name) are left out, so a run may go on with more iterations or other evaluations.
pub fn config_digest(cfg: &TrainConfig) -> u64 {
    let mut c = cfg.clone();
    c.name = String::new();
    c.training = super::config::TrainingConfig {
        search_value_mix: cfg.training.search_value_mix,
        ..Default::default()
    };
    c.eval = Default::default();
    c.checkpoint = Default::default();
    fnv1a(c.to_toml().as_bytes())
}

/// A worker's part of a run's self-play: every shard's games, of which it plays `shards`.
#[derive(Debug, Clone)]
pub struct SelfPlayPart {
    cfg: TrainConfig,
    digest: u64,
    selfplay: SelfPlay,
    shards: Range<usize>,
}

impl SelfPlayPart {
    /// The part of `cfg`'s self-play made of `shards` (of `cfg.selfplay.threads` shards, which
    /// must be set: 0, one per core, would differ from one machine to the next).
    pub fn new(cfg: &TrainConfig, shards: Range<usize>) -> TrainResult<SelfPlayPart> {
        cfg.validate()?;
        let total = shard_count(cfg)?;
        if shards.is_empty() || shards.end > total {
            return Err(TrainError::Config(format!(
                "shards {shards:?}: the run has {total} shards (selfplay.threads, at most \
                 selfplay.concurrent_games)"
            )));
        }
        let selfplay = SelfPlay::with_threads(
            cfg.rules()?,
            SelfPlaySettings::for_run(cfg)?,
            cfg.selfplay.concurrent_games,
            total,
        );
        Ok(SelfPlayPart {
            digest: config_digest(cfg),
            cfg: cfg.clone(),
            selfplay,
            shards,
        })
    }

    /// The shards this part plays.
    pub fn shards(&self) -> Range<usize> {
        self.shards.clone()
    }

    /// Takes the games in progress to play on from: the run's (as [`SelfPlay::encode`] writes
    /// them, e.g. from a checkpoint; a shard count other than the run's is refused), or the
    /// games of a part of the same shards ([`SelfPlayPart::games`], e.g. those the learner holds
    /// from a worker that died: the replacement then plays exactly what it would have played).
    /// A refused input leaves the part as it was.
    pub fn start(&mut self, games: &[u8]) -> TrainResult<()> {
        if games.starts_with(GAMES_MAGIC) {
            let (shards, mut r) = part_games_header(&self.cfg, self.selfplay.threads(), games)?;
            if shards != self.shards {
                return Err(TrainError::Remote(format!(
                    "the games in progress are of shards {shards:?}, this part plays {:?}",
                    self.shards
                )));
            }
            // Decoded in place: a refused input leaves the set as it was.
            return self.selfplay.decode_shards(shards, &mut r);
        }
        let mut fresh = self.selfplay.clone();
        fresh.decode(&mut ByteReader::new(games))?;
        if fresh.threads() != self.selfplay.threads() {
            return Err(TrainError::Remote(format!(
                "the games in progress have {} shards, the run has {}",
                fresh.threads(),
                self.selfplay.threads()
            )));
        }
        self.selfplay = fresh;
        Ok(())
    }

    /// Plays this part's shards' share of `positions` (one thread per shard, an evaluator each
    /// from `make_evaluator`) and returns the report for the learner: the shards, the weights
    /// version it was played with, the counts and the samples in shard order.
    pub fn play<E, F>(&mut self, make_evaluator: F, version: u64, positions: usize) -> Vec<u8>
    where
        E: LeafEvaluator,
        F: Fn() -> E + Sync,
    {
        let (stats, samples) =
            self.selfplay
                .run_shards(self.shards.clone(), make_evaluator, positions);
        PartReport {
            shards: self.shards.clone(),
            total: self.selfplay.threads(),
            digest: self.digest,
            version,
            stats,
            samples,
        }
        .encode(&self.cfg)
    }

    /// This part's games in progress, for the learner's checkpoint ([`join_games`]).
    pub fn games(&self) -> Vec<u8> {
        let mut w = ByteWriter::new();
        w.bytes_raw(GAMES_MAGIC);
        w.u64(self.digest);
        w.u64(self.shards.start as u64);
        w.u64(self.shards.end as u64);
        self.selfplay.encode_shards(self.shards.clone(), &mut w);
        w.buf
    }
}

/// What a worker played: see [`SelfPlayPart::play`].
#[derive(Debug, Clone, PartialEq)]
pub struct PartReport {
    /// The shards played.
    pub shards: Range<usize>,
    /// The run's shard count.
    pub total: usize,
    /// The [`config_digest`] of the worker's configuration.
    pub digest: u64,
    /// The weights version played with.
    pub version: u64,
    /// The counts.
    pub stats: SelfPlayStats,
    /// The training positions, in shard order.
    pub samples: Vec<Sample>,
}

impl PartReport {
    /// The report as bytes.
    pub fn encode(&self, cfg: &TrainConfig) -> Vec<u8> {
        let rules = cfg.rules().expect("a validated configuration");
        let mut w = ByteWriter::new();
        w.bytes_raw(REPORT_MAGIC);
        w.u64(self.digest);
        w.u64(self.version);
        w.u64(self.shards.start as u64);
        w.u64(self.shards.end as u64);
        w.u64(self.total as u64);
        let s = &self.stats;
        for x in [
            s.games,
            s.positions,
            s.moves,
            s.evaluations,
            s.batches,
            s.max_batch as u64,
            s.plies,
            s.first_player_wins,
            s.draws,
            s.truncated,
            s.tablebase_ends,
        ] {
            w.u64(x);
        }
        w.u64(self.samples.len() as u64);
        for x in &self.samples {
            encode_sample(&rules, x, &mut w);
        }
        w.buf
    }

    /// Reads a report written by [`PartReport::encode`] under `cfg` (a report of another
    /// configuration is refused).
    pub fn decode(cfg: &TrainConfig, bytes: &[u8]) -> TrainResult<PartReport> {
        let rules = cfg.rules()?;
        let bad = |m: String| TrainError::Remote(format!("self-play report: {m}"));
        let mut r = ByteReader::new(bytes);
        if r.bytes_raw(REPORT_MAGIC.len()).ok() != Some(&REPORT_MAGIC[..]) {
            return Err(bad("not a self-play report (bad magic bytes)".into()));
        }
        let digest = r.u64()?;
        if digest != config_digest(cfg) {
            return Err(bad(
                "played under another configuration than the learner's (the workers and the \
                 learner must be given the same config)"
                    .into(),
            ));
        }
        let version = r.u64()?;
        let (start, end, total) = (r.u64()? as usize, r.u64()? as usize, r.u64()? as usize);
        if start >= end || end > total {
            return Err(bad(format!("shards {start}..{end} of {total}")));
        }
        let mut c = [0u64; 11];
        for x in &mut c {
            *x = r.u64()?;
        }
        let stats = SelfPlayStats {
            games: c[0],
            positions: c[1],
            moves: c[2],
            evaluations: c[3],
            batches: c[4],
            max_batch: c[5] as usize,
            plies: c[6],
            first_player_wins: c[7],
            draws: c[8],
            truncated: c[9],
            tablebase_ends: c[10],
        };
        let len = r.u64()? as usize;
        if len as u64 != stats.positions || len > r.remaining() / sample_bytes(&rules) {
            return Err(bad(format!(
                "{len} samples for {} positions in {} bytes",
                stats.positions,
                r.remaining()
            )));
        }
        let mut samples = Vec::with_capacity(len);
        for _ in 0..len {
            samples.push(decode_sample(&rules, &mut r)?);
        }
        if r.remaining() != 0 {
            return Err(bad(format!("{} bytes after the samples", r.remaining())));
        }
        Ok(PartReport {
            shards: start..end,
            total,
            digest,
            version,
            stats,
            samples,
        })
    }
}

/// Joins the workers' reports of one iteration (in shard order) played with weights `version`:
/// the merged counts and the samples in shard order, the positions of a local run with
/// `cfg.selfplay.threads` threads. Refused, before anything is returned, when a report cannot be
/// read, was played under another configuration or other weights, or the reports do not cover
/// every shard exactly once in order.
pub fn join_reports(
    cfg: &TrainConfig,
    version: u64,
    reports: &[Vec<u8>],
) -> TrainResult<(SelfPlayStats, Vec<Sample>)> {
    let total = cfg.selfplay.resolved_threads();
    let mut stats = SelfPlayStats::default();
    let mut samples = Vec::new();
    let mut next = 0;
    for bytes in reports {
        let rep = PartReport::decode(cfg, bytes)?;
        if rep.version != version {
            return Err(TrainError::Remote(format!(
                "a worker played with weights version {}, the learner sent {version}",
                rep.version
            )));
        }
        if rep.total != total || rep.shards.start != next {
            return Err(TrainError::Remote(format!(
                "a worker reported shards {:?} of {}; expected the shards from {next} of {total} \
                 (each shard once, in order)",
                rep.shards, rep.total
            )));
        }
        next = rep.shards.end;
        stats.merge(&rep.stats);
        samples.extend(rep.samples);
    }
    if next != total {
        return Err(TrainError::Remote(format!(
            "the workers played shards 0..{next} of {total}"
        )));
    }
    Ok((stats, samples))
}

/// Reads the header of a part's games in progress ([`SelfPlayPart::games`]) under `cfg`, for a
/// run of `total` shards: the part's shards, and the reader at their games (for
/// [`SelfPlay::decode_shards`]).
fn part_games_header<'a>(
    cfg: &TrainConfig,
    total: usize,
    bytes: &'a [u8],
) -> TrainResult<(Range<usize>, ByteReader<'a>)> {
    let mut r = ByteReader::new(bytes);
    if r.bytes_raw(GAMES_MAGIC.len()).ok() != Some(&GAMES_MAGIC[..]) {
        return Err(TrainError::Remote(
            "a worker's games in progress: bad magic bytes".into(),
        ));
    }
    if r.u64()? != config_digest(cfg) {
        return Err(TrainError::Remote(
            "a worker's games in progress are of another configuration".into(),
        ));
    }
    let (start, end) = (r.u64()? as usize, r.u64()? as usize);
    if start >= end || end > total {
        return Err(TrainError::Remote(format!(
            "a worker's games in progress are of shards {start}..{end} (of {total}, each once)"
        )));
    }
    Ok((start..end, r))
}

/// Gathers the workers' games in progress ([`SelfPlayPart::games`], in any order) into the
/// learner's `selfplay` (the run's every shard), for a checkpoint. Refused, leaving `selfplay`
/// as it was, when a part cannot be read, is of another configuration, or the parts do not cover
/// every shard exactly once.
pub fn join_games(
    cfg: &TrainConfig,
    selfplay: &mut SelfPlay,
    parts: &[Vec<u8>],
) -> TrainResult<()> {
    let total = selfplay.threads();
    let mut joined = selfplay.clone();
    let mut covered = vec![false; total];
    for bytes in parts {
        let (shards, mut r) = part_games_header(cfg, total, bytes)?;
        let (start, end) = (shards.start, shards.end);
        if covered[start..end].iter().any(|&c| c) {
            return Err(TrainError::Remote(format!(
                "a worker's games in progress are of shards {start}..{end} (of {total}, each \
                 once)"
            )));
        }
        joined.decode_shards(shards, &mut r)?;
        covered[start..end].iter_mut().for_each(|c| *c = true);
    }
    if let Some(k) = covered.iter().position(|&c| !c) {
        return Err(TrainError::Remote(format!(
            "no worker sent the games of shard {k} (of {total})"
        )));
    }
    *selfplay = joined;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::az::data::ReplayBuffer;
    use crate::search::UniformEvaluator;

    fn config(shards: usize) -> TrainConfig {
        let mut cfg = TrainConfig::tiny();
        cfg.selfplay.threads = shards;
        cfg.selfplay.concurrent_games = 8;
        cfg
    }

    fn parts(cfg: &TrainConfig, workers: usize) -> Vec<SelfPlayPart> {
        (0..workers)
            .map(|w| {
                SelfPlayPart::new(cfg, worker_shards(w, workers, cfg.selfplay.threads)).unwrap()
            })
            .collect()
    }

    #[test]
    fn parts_joined_in_shard_order_are_the_local_self_play() {
        let cfg = config(4);
        let rules = cfg.rules().unwrap();
        let mut local = SelfPlay::with_threads(rules, SelfPlaySettings::from_config(&cfg), 8, 4);
        for workers in [1, 2, 3, 4] {
            let mut local = local.clone();
            let mut ps = parts(&cfg, workers);
            for (version, positions) in [(0, 50), (1, 37)] {
                let mut buffer = ReplayBuffer::new(10_000);
                let want = local.run(|| UniformEvaluator, positions, &mut buffer);
                let reports: Vec<_> = ps
                    .iter_mut()
                    .map(|p| p.play(|| UniformEvaluator, version, positions))
                    .collect();
                let (stats, samples) = join_reports(&cfg, version, &reports).unwrap();
                assert_eq!(stats.positions, want.positions);
                assert_eq!(stats.moves, want.moves);
                let want: Vec<_> = (0..buffer.len()).map(|i| *buffer.get(i)).collect();
                assert_eq!(samples, want, "{workers} workers");
            }
            // The gathered games in progress are the local run's.
            let mut joined =
                SelfPlay::with_threads(rules, SelfPlaySettings::from_config(&cfg), 8, 4);
            let games: Vec<_> = ps.iter().rev().map(|p| p.games()).collect();
            join_games(&cfg, &mut joined, &games).unwrap();
            let (mut a, mut b) = (ByteWriter::new(), ByteWriter::new());
            joined.encode(&mut a);
            local.encode(&mut b);
            assert_eq!(a.buf, b.buf, "{workers} workers");
        }
        // And a worker started from those games goes on like the local run.
        let mut buffer = ReplayBuffer::new(10_000);
        local.run(|| UniformEvaluator, 20, &mut buffer);
        let mut w = ByteWriter::new();
        local.encode(&mut w);
        let mut part = SelfPlayPart::new(&cfg, 0..4).unwrap();
        part.start(&w.buf).unwrap();
        let rep = part.play(|| UniformEvaluator, 5, 30);
        let mut buffer = ReplayBuffer::new(10_000);
        local.run(|| UniformEvaluator, 30, &mut buffer);
        let (_, samples) = join_reports(&cfg, 5, &[rep]).unwrap();
        assert_eq!(
            samples,
            (0..buffer.len())
                .map(|i| *buffer.get(i))
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn bad_reports_are_refused_with_the_reason() {
        let cfg = config(2);
        let mut ps = parts(&cfg, 2);
        let a = ps[0].play(|| UniformEvaluator, 3, 20);
        let b = ps[1].play(|| UniformEvaluator, 3, 20);
        let err = |reports: &[Vec<u8>], version| {
            join_reports(&cfg, version, reports)
                .unwrap_err()
                .to_string()
        };
        assert!(err(std::slice::from_ref(&a), 3).contains("shards 0..1 of 2"));
        assert!(err(&[b.clone(), a.clone()], 3).contains("expected the shards from 0"));
        assert!(err(&[a.clone(), a.clone()], 3).contains("expected the shards from 1"));
        assert!(err(&[a.clone(), b.clone()], 4).contains("weights version 3"));
        assert!(err(&[b"junk".to_vec(), b.clone()], 3).contains("bad magic"));
        let mut cut = a.clone();
        cut.truncate(a.len() - 3);
        assert!(join_reports(&cfg, 3, &[cut, b.clone()]).is_err());
        let mut long = a.clone();
        long.push(0);
        assert!(err(&[long, b.clone()], 3).contains("bytes after"));
        let mut other = cfg.clone();
        other.seed += 1;
        assert!(join_reports(&other, 3, &[a.clone(), b.clone()])
            .unwrap_err()
            .to_string()
            .contains("another configuration"));
        assert!(join_reports(&cfg, 3, &[a.clone(), b.clone()]).is_ok());
        // The learner's own settings may differ; what self-play depends on may not.
        let mut more = cfg.clone();
        more.training.iterations += 10;
        more.eval.games += 1;
        assert!(join_reports(&more, 3, &[a.clone(), b.clone()]).is_ok());
        more.search.sims += 1;
        assert!(join_reports(&more, 3, &[a, b]).is_err());

        // Games in progress: every shard exactly once.
        let rules = cfg.rules().unwrap();
        let fresh = SelfPlay::with_threads(rules, SelfPlaySettings::from_config(&cfg), 8, 2);
        let mut sp = fresh.clone();
        let g0 = ps[0].games();
        let e = join_games(&cfg, &mut sp, std::slice::from_ref(&g0)).unwrap_err();
        assert!(e.to_string().contains("shard 1"), "{e}");
        let e = join_games(&cfg, &mut sp, &[g0.clone(), g0]).unwrap_err();
        assert!(e.to_string().contains("each once"), "{e}");
        let (mut a, mut b) = (ByteWriter::new(), ByteWriter::new());
        sp.encode(&mut a);
        fresh.encode(&mut b);
        assert_eq!(a.buf, b.buf, "a refused join leaves the games as they were");
    }

    #[test]
    fn a_part_started_from_a_lost_parts_games_replays_it_exactly() {
        // What the learner does when a worker dies: it holds the worker's games after the last
        // iteration it collected, starts a new part of the same shards from them and replays
        // the iteration: the report is the one the dead worker would have sent.
        let cfg = config(4);
        let mut ps = parts(&cfg, 2);
        ps[1].play(|| UniformEvaluator, 0, 40);
        let held = ps[1].games();
        let want = ps[1].play(|| UniformEvaluator, 1, 40);
        let after = ps[1].games();
        let mut new = SelfPlayPart::new(&cfg, worker_shards(1, 2, 4)).unwrap();
        new.start(&held).unwrap();
        assert_eq!(new.play(|| UniformEvaluator, 1, 40), want);
        assert_eq!(new.games(), after);
        // Games of other shards, or of another configuration, are refused and change nothing.
        let mut other = SelfPlayPart::new(&cfg, worker_shards(0, 2, 4)).unwrap();
        let before = other.games();
        let e = other.start(&held).unwrap_err().to_string();
        assert!(e.contains("shards 2..4") && e.contains("0..2"), "{e}");
        let mut seed = cfg.clone();
        seed.seed += 1;
        let mut foreign = SelfPlayPart::new(&seed, worker_shards(1, 2, 4)).unwrap();
        assert!(foreign
            .start(&held)
            .unwrap_err()
            .to_string()
            .contains("another configuration"));
        let mut cut = held.clone();
        cut.truncate(held.len() / 2);
        assert!(other.start(&cut).is_err());
        assert_eq!(other.games(), before);
        let mut long = held.clone();
        long.push(0);
        let e = new.start(&long).unwrap_err().to_string();
        assert!(e.contains("bytes after"), "{e}");
        assert_eq!(
            new.games(),
            after,
            "a refused start leaves the part as it was"
        );
        // A part sends its own shards' games only: one shard of four here.
        let fresh = SelfPlayPart::new(&cfg, 0..1).unwrap();
        let mut whole = ByteWriter::new();
        fresh.selfplay.encode(&mut whole);
        let own = fresh.games().len();
        assert!(own < whole.buf.len() / 2, "{own} of {}", whole.buf.len());
    }

    #[test]
    fn a_part_needs_a_fixed_shard_count_and_a_range_inside_it() {
        let mut cfg = config(0);
        assert!(SelfPlayPart::new(&cfg, 0..1)
            .unwrap_err()
            .to_string()
            .contains("shards"));
        cfg.selfplay.threads = 2;
        assert!(SelfPlayPart::new(&cfg, 1..3).is_err());
        assert!(SelfPlayPart::new(&cfg, 1..1).is_err());
        let mut p = SelfPlayPart::new(&cfg, 1..2).unwrap();
        assert!(p.start(b"junk").is_err());
    }
}
