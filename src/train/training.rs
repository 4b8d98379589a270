//! The training loop.
//!
//! A run is a sequence of *iterations*: self-play until `positions_per_iteration` new samples are
//! in the replay buffer, then `steps_per_iteration` gradient steps on minibatches drawn uniformly
//! from the buffer (none until it holds `min_replay` samples). Every `eval.every` iterations the
//! network plays the built-in agents; every `checkpoint.every` iterations (and at the end) a
//! checkpoint is written. Losses: policy cross-entropy against the search's policy, value mean
//! squared error against the game result (optionally mixed with the search value), and the
//! auxiliary score-difference mean squared error; AdamW with decoupled weight decay; the learning
//! rate follows [`TrainConfig::lr_at`] (warm-up, then constant, cosine or step).
//!
//! Everything random derives from the config's seed and everything the next iterations depend
//! on is in the checkpoint (network, optimiser moments, replay buffer, games in progress with
//! their generators, the trainer's generator, counters), so a resumed run takes the same steps,
//! bit for bit, as one that was never stopped.

use std::path::{Path, PathBuf};
use std::time::Instant;

use burn::module::Module;
use burn::optim::{AdamWConfig, GradientsParams, ModuleOptimizer};
use burn::tensor::activation::{log_softmax, softmax};
use burn::tensor::{Device, Tensor, TensorData};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::checkpoint::{Checkpoint, Counters, RngState};
use super::data::{ByteReader, ByteWriter, ReplayBuffer};
use super::inference::{load_model, NetCore, NnAgent};
use super::logging::Logger;
use super::model::{encode_batch, input_scale, value_outputs, NetShape, PolicyValueNet};
use super::search::SearchSettings;
use super::selfplay::{SelfPlay, SelfPlaySettings, SelfPlayStats};
use super::{CheckpointError, TrainConfig, TrainError, TrainResult};
use crate::agents::{derive_seed, Agent};
use crate::az::network::NetworkEvaluator;
use crate::az::remote::{self, RemoteSelfPlay};
use crate::batch::ObsEncoding;
use crate::endgame::{endgame_accuracy, endgame_positions};
use crate::rules::Rules;
use crate::tablebase::Tablebase;
use crate::tournament::{self, Entrant, Format, GameResult, TournamentConfig};

/// Mean losses and diagnostics of some gradient steps.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct LossStats {
    /// Total loss.
    pub loss: f64,
    /// Policy cross-entropy.
    pub policy: f64,
    /// Value mean squared error.
    pub value: f64,
    /// Score-difference mean squared error.
    pub score: f64,
    /// Entropy of the network's policy (nats).
    pub entropy: f64,
    /// Mean absolute error of the mover's value.
    pub value_error: f64,
    /// Learning rate of the last step.
    pub lr: f64,
    /// Steps averaged.
    pub steps: u64,
}

impl LossStats {
    fn add(&mut self, o: &LossStats) {
        self.loss += o.loss;
        self.policy += o.policy;
        self.value += o.value;
        self.score += o.score;
        self.entropy += o.entropy;
        self.value_error += o.value_error;
        self.lr = o.lr;
        self.steps += o.steps;
    }
    fn mean(mut self) -> LossStats {
        let n = self.steps.max(1) as f64;
        self.loss /= n;
        self.policy /= n;
        self.value /= n;
        self.score /= n;
        self.entropy /= n;
        self.value_error /= n;
        self
    }
}

/// What one iteration did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct IterationStats {
    /// The iteration number (1-based).
    pub iteration: u64,
    /// Self-play counts.
    pub selfplay: SelfPlayStats,
    /// Seconds of self-play.
    pub selfplay_secs: f64,
    /// Seconds of gradient steps.
    pub train_secs: f64,
    /// Mean losses (none when the buffer was too small to train).
    pub losses: Option<LossStats>,
    /// Samples in the replay buffer.
    pub buffer: usize,
}

/// A training run in memory: network, optimiser, replay buffer, self-play games, generator.
pub struct Trainer {
    cfg: TrainConfig,
    rules: Rules,
    encoding: ObsEncoding,
    scale: Vec<f32>,
    device: Device,
    model: PolicyValueNet,
    optim: ModuleOptimizer,
    buffer: ReplayBuffer,
    selfplay: SelfPlay,
    rng: ChaCha8Rng,
    counters: Counters,
    extra: Extra,
    /// The weights version of remote self-play submitted and not yet collected.
    in_flight: Option<u64>,
}

impl std::fmt::Debug for Trainer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Trainer")
            .field("config", &self.cfg.name)
            .field("counters", &self.counters)
            .finish_non_exhaustive()
    }
}

/// Notes kept in checkpoints: the evaluation history (the Elo curve).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Extra {
    /// Every evaluation so far.
    pub evals: Vec<EvalReport>,
    /// The opponents' reference ratings.
    pub calibration: Option<Vec<(String, f64)>>,
}

/// One evaluation of the network against the built-in agents.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EvalReport {
    /// Iteration evaluated.
    pub iteration: u64,
    /// Games per opponent.
    pub games: usize,
    /// Per opponent: (name, score of the network in [0, 1], wins, draws, losses).
    pub results: Vec<(String, f64, u32, u32, u32)>,
    /// The network's Elo against the opponents' reference ratings (none when an opponent has no
    /// reference rating, e.g. the final opponents outside the calibration).
    pub elo: Option<f64>,
    /// Seconds the evaluation took.
    pub secs: f64,
    /// The endgame accuracy (`eval.endgame_tables`), when measured.
    #[serde(default)]
    pub endgame: Option<EndgameEval>,
}

/// The network's endgame accuracy against the tables ([`crate::endgame`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct EndgameEval {
    /// Positions scored.
    pub positions: usize,
    /// Most seeds on their boards (the tables' limit).
    pub max_seeds: usize,
    /// Share of optimal moves (0 to 1).
    pub optimal_share: f64,
    /// Mean seeds lost per move against perfect play.
    pub mean_loss: f64,
    /// Share of moves that keep the game's result (0 to 1).
    #[serde(default)]
    pub result_share: f64,
}

impl EvalReport {
    /// A table of the results.
    pub fn table(&self) -> String {
        let elo = match self.elo {
            Some(e) => format!(", Elo {e:.0}"),
            None => String::new(),
        };
        let mut s = format!(
            "evaluation at iteration {} ({} games per opponent{elo}):\n",
            self.iteration, self.games
        );
        for (name, score, w, d, l) in &self.results {
            s.push_str(&format!(
                "  vs {name:<24} score {:>5.1}%  (+{w} ={d} -{l})\n",
                100.0 * score
            ));
        }
        if let Some(e) = &self.endgame {
            s.push_str(&format!(
                "  endgame (<= {} seeds, {} positions): {:.1}% optimal, {:.3} seeds lost per move, \
                 {:.1}% keep the result\n",
                e.max_seeds,
                e.positions,
                100.0 * e.optimal_share,
                e.mean_loss,
                100.0 * e.result_share
            ));
        }
        s
    }
}

fn optimizer(cfg: &TrainConfig) -> ModuleOptimizer {
    AdamWConfig::new()
        .with_weight_decay(cfg.training.weight_decay)
        .with_epsilon(1e-8)
        .init()
}

impl Trainer {
    /// A fresh run of `cfg`.
    pub fn new(cfg: TrainConfig) -> TrainResult<Trainer> {
        cfg.validate()?;
        let rules = cfg.rules()?;
        let encoding = cfg.observation()?;
        let device = super::train_device();
        let shape = NetShape::new(&rules, encoding, &cfg.network.hidden);
        let model = PolicyValueNet::new(&shape, derive_seed(cfg.seed, 0x6e6e), &device);
        let selfplay = SelfPlay::with_threads(
            rules,
            SelfPlaySettings::from_config(&cfg),
            cfg.selfplay.concurrent_games,
            cfg.selfplay.resolved_threads(),
        );
        Ok(Trainer {
            scale: input_scale(&rules, encoding),
            rules,
            encoding,
            device,
            model,
            optim: optimizer(&cfg),
            buffer: ReplayBuffer::new(cfg.training.replay_capacity),
            selfplay,
            rng: ChaCha8Rng::seed_from_u64(derive_seed(cfg.seed, 0x7472)),
            counters: Counters::default(),
            extra: Extra::default(),
            in_flight: None,
            cfg,
        })
    }

    /// A run resumed from a checkpoint. `cfg` must have the checkpoint's fingerprint; its other
    /// settings (iterations, evaluation, ...) replace the checkpoint's.
    pub fn from_checkpoint(ckpt: &Checkpoint, cfg: TrainConfig) -> TrainResult<Trainer> {
        ckpt.check_config(&cfg)?;
        let mut t = Trainer::new(cfg)?;
        t.model = load_model(&t.cfg, &ckpt.model, &t.device)?;
        t.optim = optimizer(&t.cfg)
            .from_bytes(burn::tensor::Bytes::from_bytes_vec(ckpt.optimizer.clone()))
            .map_err(|e| CheckpointError::Corrupt(format!("optimiser state: {e}")))?;
        t.buffer = ReplayBuffer::decode(&t.rules, &mut ByteReader::new(&ckpt.replay))?;
        // The games in progress go on when the number of games is the same and the thread
        // count is the checkpoint's (or not set: the run then keeps the checkpoint's count, so
        // it continues exactly as if it had never stopped); otherwise fresh games start.
        let saved = SelfPlay::encoded_threads(&ckpt.selfplay);
        let threads_fit = t.cfg.selfplay.threads == 0 || saved == Some(t.selfplay.threads());
        if t.cfg.selfplay.concurrent_games == ckpt.config.selfplay.concurrent_games && threads_fit {
            t.selfplay.decode(&mut ByteReader::new(&ckpt.selfplay))?;
        }
        t.rng = ckpt.rng.restore();
        t.counters = ckpt.counters;
        t.extra = serde_json::from_str(&ckpt.extra).unwrap_or_default();
        Ok(t)
    }

    /// The checkpoint of the run as it stands.
    pub fn checkpoint(&self, elapsed: f64) -> TrainResult<Checkpoint> {
        let model = self.weights()?;
        let optimizer = self
            .optim
            .into_bytes()
            .map_err(|e| TrainError::Model(format!("saving the optimiser: {e}")))?;
        let mut replay = ByteWriter::new();
        self.buffer.encode(&self.rules, &mut replay);
        let mut selfplay = ByteWriter::new();
        self.selfplay.encode(&mut selfplay);
        let mut counters = self.counters;
        counters.elapsed = elapsed;
        Ok(Checkpoint {
            config: self.cfg.clone(),
            counters,
            rng: RngState::of(&self.rng),
            model,
            optimizer: optimizer.to_vec(),
            replay: replay.buf,
            selfplay: selfplay.buf,
            extra: serde_json::to_string(&self.extra).unwrap_or_default(),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &TrainConfig {
        &self.cfg
    }

    /// The counters.
    pub fn counters(&self) -> &Counters {
        &self.counters
    }

    /// The network.
    pub fn model(&self) -> &PolicyValueNet {
        &self.model
    }

    /// The replay buffer.
    pub fn buffer(&self) -> &ReplayBuffer {
        &self.buffer
    }

    /// The evaluation history.
    pub fn extra(&self) -> &Extra {
        &self.extra
    }

    /// The network ready for inference.
    pub fn core(&self) -> TrainResult<NetCore> {
        NetCore::new(&self.model, &self.cfg)
    }

    fn total_steps(&self) -> u64 {
        self.cfg.training.iterations * self.cfg.training.steps_per_iteration as u64
    }

    /// One iteration: self-play, then gradient steps.
    pub fn iteration(&mut self) -> TrainResult<IterationStats> {
        let t0 = Instant::now();
        let core = self.core()?;
        let sp = self.selfplay.run(
            || NetworkEvaluator::new(&core),
            self.cfg.selfplay.positions_per_iteration,
            &mut self.buffer,
        );
        Ok(self.learn(sp, t0.elapsed().as_secs_f64()))
    }

    /// The network's weights as checkpoints hold them (what [`Trainer::iteration_remote`] sends
    /// its workers; `awale::train::worker::SelfPlayWorker` loads them).
    pub fn weights(&self) -> TrainResult<Vec<u8>> {
        Ok(self
            .model
            .clone()
            .into_record()
            .into_bytes()
            .map_err(|e| TrainError::Model(format!("saving the network: {e}")))?
            .to_vec())
    }

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

    /// The second half of an iteration: counts the self-play `sp` (its samples are in the
    /// buffer), then the gradient steps once the buffer holds `min_replay` samples.
    fn learn(&mut self, sp: SelfPlayStats, selfplay_secs: f64) -> IterationStats {
        self.counters.games += sp.games;
        self.counters.positions += sp.positions;
        self.counters.moves += sp.moves;
        let t1 = Instant::now();
        let mut losses = None;
        if self.buffer.len()
            >= self
                .cfg
                .training
                .min_replay
                .max(self.cfg.training.batch_size)
        {
            let mut sum = LossStats::default();
            for _ in 0..self.cfg.training.steps_per_iteration {
                let s = self.train_step();
                sum.add(&s);
            }
            losses = Some(sum.mean());
        }
        self.counters.iteration += 1;
        IterationStats {
            iteration: self.counters.iteration,
            selfplay: sp,
            selfplay_secs,
            train_secs: t1.elapsed().as_secs_f64(),
            losses,
            buffer: self.buffer.len(),
        }
    }

    /// One gradient step on a minibatch from the replay buffer.
    pub fn train_step(&mut self) -> LossStats {
        let b = self.cfg.training.batch_size;
        let h = self.rules.houses as usize;
        let nv = value_outputs(&self.rules);
        let idx = self.buffer.sample_indices(&mut self.rng, b);
        let states: Vec<_> = idx.iter().map(|&i| self.buffer.get(i).state).collect();
        let mut x = Vec::new();
        encode_batch(&self.rules, self.encoding, &self.scale, &states, &mut x);
        let mut pt = Vec::with_capacity(b * h);
        let mut mask = Vec::with_capacity(b * h);
        let mut vt = Vec::with_capacity(b * nv);
        let mut st = Vec::with_capacity(b);
        for &i in &idx {
            let s = self.buffer.get(i);
            let legal = s.state.legal_mask(&self.rules);
            for a in 0..h {
                pt.push(s.policy[a]);
                mask.push(if legal >> a & 1 == 1 { 0.0 } else { -1.0e4 });
            }
            vt.extend_from_slice(&s.value[..nv]);
            st.push(s.score);
        }
        let d = &self.device;
        let dim = self.scale.len();
        let x = Tensor::<2>::from_data(TensorData::new(x, [b, dim]), d);
        let pt = Tensor::<2>::from_data(TensorData::new(pt, [b, h]), d);
        let mask = Tensor::<2>::from_data(TensorData::new(mask, [b, h]), d);
        let vt = Tensor::<2>::from_data(TensorData::new(vt, [b, nv]), d);
        let st = Tensor::<2>::from_data(TensorData::new(st, [b, 1]), d);
        let out = self.model.forward(x);
        let logits = out.policy + mask;
        let logp = log_softmax(logits.clone(), 1);
        let policy_loss = (pt * logp.clone()).sum_dim(1).mean().neg();
        let value_loss = (out.value.clone() - vt.clone()).powi_scalar(2).mean();
        let score_loss = (out.score - st).powi_scalar(2).mean();
        let tw = &self.cfg.training;
        let loss = policy_loss.clone()
            + value_loss.clone().mul_scalar(tw.value_weight)
            + score_loss.clone().mul_scalar(tw.score_weight);
        let entropy = (softmax(logits.detach(), 1) * logp.detach())
            .sum_dim(1)
            .mean()
            .neg();
        let value_error = (out.value.detach().slice([0..b, 0..1]) - vt.slice([0..b, 0..1]))
            .abs()
            .mean();
        let lr = self
            .cfg
            .lr_at(self.counters.train_steps, self.total_steps());
        let grads = loss.backward();
        let grads = GradientsParams::from_grads(grads, &self.model);
        self.model = self.optim.step(lr, self.model.clone(), grads);
        self.counters.train_steps += 1;
        let f = |t: Tensor<1>| t.into_scalar::<f32>() as f64;
        LossStats {
            loss: f(loss.detach()),
            policy: f(policy_loss.detach()),
            value: f(value_loss.detach()),
            score: f(score_loss.detach()),
            entropy: f(entropy),
            value_error: f(value_error),
            lr,
            steps: 1,
        }
    }

    /// Plays the network (`sims` simulations per move) against each opponent, `games` games
    /// each (paired openings, seats swapped), on all cores; rates it against `reference`
    /// ratings of the opponents (0 for all when none; no rating when an opponent has none).
    pub fn evaluate(
        &self,
        opponents: &[String],
        games: usize,
        sims: u32,
        reference: Option<&[(String, f64)]>,
        seed: u64,
        progress: bool,
    ) -> TrainResult<EvalReport> {
        evaluate_core(
            std::sync::Arc::new(self.core()?),
            &self.cfg,
            self.counters.iteration,
            opponents,
            games,
            sims,
            reference,
            seed,
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
    games: usize,
    sims: u32,
    reference: Option<&[(String, f64)]>,
    seed: u64,
    progress: bool,
) -> TrainResult<EvalReport> {
    let t0 = Instant::now();
    let rules = core.rules;
    let name = "network".to_string();
    let settings = SearchSettings::from_config(&cfg.search);
    let core2 = core.clone();
    let n2 = name.clone();
    let mut entrants = vec![Entrant::new(name.clone(), move || {
        Ok(Box::new(NnAgent::new(core2.clone(), n2.clone(), sims, settings)) as Box<dyn Agent>)
    })];
    for o in opponents {
        entrants.push(Entrant::from_spec_text(o, &rules)?);
    }
    let mut tc = TournamentConfig::new(rules);
    tc.format = Format::Gauntlet(name);
    tc.games = games.max(rules.players as usize);
    tc.openings = cfg.eval.openings;
    tc.seed = seed;
    let report = tournament::run_observed(&tc, &entrants, &tournament::ProgressBar::new(progress))?;
    let mut results = Vec::new();
    let mut fit = Vec::new();
    for (j, e) in entrants.iter().enumerate().skip(1) {
        let g = report.matchups.games(0, j);
        let pts = report.matchups.points(0, j);
        let (w, d, l) = wdl(&report.games, e.name());
        let score = if g > 0 { pts / g as f64 } else { 0.0 };
        results.push((e.name().to_string(), score, w, d, l));
        let r = match reference {
            None => Some(0.0),
            Some(r) => r.iter().find(|(n, _)| n == e.name()).map(|x| x.1),
        };
        fit.push(r.map(|r| (r, pts, g as f64)));
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
        games: tc.games,
        results,
        elo: fit
            .into_iter()
            .collect::<Option<Vec<_>>>()
            .map(|f| elo_against(&f)),
        secs: t0.elapsed().as_secs_f64(),
        endgame,
    })
}

/// Wins, draws and losses of the network against `opponent` in the games.
fn wdl(games: &[GameResult], opponent: &str) -> (u32, u32, u32) {
    let (mut w, mut d, mut l) = (0, 0, 0);
    for g in games {
        let Some(me) = g.seats.iter().position(|s| s == "network") else {
            continue;
        };
        if !g.seats.iter().any(|s| s == opponent) {
            continue;
        }
        match g.points[me] {
            p if p > 0.5 => w += 1,
            p if p < 0.5 => l += 1,
            _ => d += 1,
        }
    }
    (w, d, l)
}

/// The maximum-likelihood Elo of a player who scored `points` in `games` against opponents of
/// fixed ratings (one virtual draw against each keeps it finite).
///
/// ```
/// use awale::train::training::elo_against;
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

/// Options of [`run`].
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The run's folder (checkpoint, logs, reports).
    pub out: PathBuf,
    /// Start over even when the folder has a checkpoint (otherwise the run resumes from it).
    pub fresh: bool,
    /// Show a progress bar.
    pub progress: bool,
    /// Play the final evaluation.
    pub final_eval: bool,
}

/// What a run did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunSummary {
    /// Iterations done (all sessions).
    pub iterations: u64,
    /// Gradient steps done.
    pub train_steps: u64,
    /// Self-play games finished.
    pub games: u64,
    /// Training positions.
    pub positions: u64,
    /// Seconds of this session.
    pub secs: f64,
    /// Self-play moves per second in this session (every search, full or fast).
    pub moves_per_sec: f64,
    /// Network evaluations per second in self-play in this session.
    pub evals_per_sec: f64,
    /// The largest network batch seen in self-play.
    pub max_batch: usize,
    /// Mean network batch in self-play.
    pub mean_batch: f64,
    /// The last losses.
    pub losses: Option<LossStats>,
    /// The final evaluation.
    pub final_eval: Option<EvalReport>,
    /// The checkpoint written.
    pub checkpoint: PathBuf,
    /// The run resumed from a checkpoint.
    pub resumed: bool,
}

/// The checkpoint file of a run folder.
pub fn checkpoint_path(out: &Path) -> PathBuf {
    out.join("checkpoint.ckpt")
}

/// Runs (or resumes) a training run in `opts.out` (see the [module docs](self)).
pub fn run(cfg: TrainConfig, opts: &RunOptions) -> TrainResult<RunSummary> {
    run_with(cfg, opts, None)
}

/// [`run`], with the self-play played by `remote`'s workers when given (a distributed run, see
/// [`crate::az::remote`]; `selfplay.threads` is then the number of shards and must be set). The
/// run folder, logs, evaluations and checkpoints are those of [`run`], and so is every step.
pub fn run_with(
    cfg: TrainConfig,
    opts: &RunOptions,
    mut remote: Option<&mut dyn RemoteSelfPlay>,
) -> TrainResult<RunSummary> {
    let start = Instant::now();
    if remote.is_some() {
        remote::shard_count(&cfg)?;
    }
    std::fs::create_dir_all(&opts.out).map_err(|e| TrainError::io(&opts.out, e))?;
    let ckpt_path = checkpoint_path(&opts.out);
    let resumed = !opts.fresh && ckpt_path.exists();
    let mut trainer = if resumed {
        let ckpt = Checkpoint::read(&ckpt_path)?;
        Trainer::from_checkpoint(&ckpt, cfg.clone())?
    } else {
        Trainer::new(cfg.clone())?
    };
    let elapsed_before = trainer.counters.elapsed;
    if let Some(r) = remote.as_deref_mut() {
        trainer.start_remote(r)?;
    }
    super::checkpoint::write_atomic(&opts.out.join("config.toml"), cfg.to_toml().as_bytes())?;
    let mut log = Logger::new(&opts.out)?;
    if trainer.extra.calibration.is_none() && !cfg.eval.opponents.is_empty() {
        trainer.extra.calibration = Some(calibrate(&cfg, opts.progress)?);
    }
    let bar = if opts.progress {
        let b = indicatif::ProgressBar::new(cfg.training.iterations);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} it  {msg}",
            )
            .expect("a valid template"),
        );
        b.set_position(trainer.counters.iteration);
        b
    } else {
        indicatif::ProgressBar::hidden()
    };
    let mut summary = RunSummary {
        resumed,
        checkpoint: ckpt_path.clone(),
        ..Default::default()
    };
    let (mut evals, mut batches, mut moves, mut sp_secs) = (0u64, 0u64, 0u64, 0f64);
    let deadline = cfg.training.max_minutes * 60.0;
    let past_deadline =
        || deadline > 0.0 && elapsed_before + start.elapsed().as_secs_f64() >= deadline;
    while trainer.counters.iteration < cfg.training.iterations {
        // Self-play already submitted (`selfplay.overlap`) is collected and trained on first.
        if past_deadline() && trainer.in_flight().is_none() {
            break;
        }
        let it = match remote.as_deref_mut() {
            Some(r) => {
                // The pipeline drains before each checkpoint and at the end, so checkpoints
                // hold every game in progress and a resumed run is the run that never stopped.
                let step = trainer.counters.iteration + 1;
                let checkpoint_now = cfg.checkpoint.every > 0 && step % cfg.checkpoint.every == 0;
                let overlap_next = cfg.selfplay.overlap
                    && step < cfg.training.iterations
                    && !checkpoint_now
                    && !past_deadline();
                trainer.iteration_remote(r, overlap_next)?
            }
            None => trainer.iteration()?,
        };
        evals += it.selfplay.evaluations;
        batches += it.selfplay.batches;
        moves += it.selfplay.moves;
        sp_secs += it.selfplay_secs;
        summary.max_batch = summary.max_batch.max(it.selfplay.max_batch);
        let step = trainer.counters.iteration;
        let sp = &it.selfplay;
        let mut scalars = vec![
            (
                "selfplay/games_per_sec",
                sp.games as f64 / it.selfplay_secs.max(1e-9),
            ),
            (
                "selfplay/positions_per_sec",
                sp.positions as f64 / it.selfplay_secs.max(1e-9),
            ),
            (
                "selfplay/moves_per_sec",
                sp.moves as f64 / it.selfplay_secs.max(1e-9),
            ),
            (
                "selfplay/evals_per_sec",
                sp.evaluations as f64 / it.selfplay_secs.max(1e-9),
            ),
            (
                "selfplay/mean_batch",
                sp.evaluations as f64 / sp.batches.max(1) as f64,
            ),
            (
                "selfplay/mean_game_plies",
                sp.plies as f64 / sp.games.max(1) as f64,
            ),
            (
                "selfplay/first_player_win_rate",
                sp.first_player_wins as f64 / sp.games.max(1) as f64,
            ),
            (
                "selfplay/draw_rate",
                sp.draws as f64 / sp.games.max(1) as f64,
            ),
            ("selfplay/total_games", trainer.counters.games as f64),
            ("replay/size", it.buffer as f64),
        ];
        if let Some(l) = &it.losses {
            scalars.extend([
                ("loss/total", l.loss),
                ("loss/policy", l.policy),
                ("loss/value", l.value),
                ("loss/score", l.score),
                ("policy/entropy", l.entropy),
                ("value/abs_error", l.value_error),
                ("train/lr", l.lr),
                ("train/steps", trainer.counters.train_steps as f64),
            ]);
            summary.losses = Some(*l);
        }
        log.scalars(step, &scalars);
        bar.set_position(step);
        bar.set_message(match &it.losses {
            Some(l) => format!(
                "loss {:.3} (p {:.3} v {:.3})  {:.0} pos/s  batch {}",
                l.loss,
                l.policy,
                l.value,
                sp.positions as f64 / it.selfplay_secs.max(1e-9),
                sp.max_batch
            ),
            None => format!("filling replay {}/{}", it.buffer, cfg.training.min_replay),
        });
        let last = step >= cfg.training.iterations;
        if cfg.eval.every > 0
            && step % cfg.eval.every == 0
            && !last
            && !cfg.eval.opponents.is_empty()
        {
            let r = periodic_eval(&mut trainer, &cfg, false)?;
            log_eval(&mut log, &r);
            if opts.progress {
                bar.println(r.table());
            } else {
                eprint!("{}", r.table());
            }
        }
        if cfg.checkpoint.every > 0 && step % cfg.checkpoint.every == 0 {
            if let Some(r) = remote.as_deref_mut() {
                trainer.gather_remote(r)?;
            }
            let elapsed = elapsed_before + start.elapsed().as_secs_f64();
            trainer.checkpoint(elapsed)?.write(&ckpt_path)?;
            if !opts.progress {
                eprintln!(
                    "iteration {step}: {} games, {} positions, {} steps, {:.0} s; checkpoint written",
                    trainer.counters.games, trainer.counters.positions, trainer.counters.train_steps, elapsed
                );
            }
        }
        log.flush();
    }
    bar.finish_and_clear();
    if let Some(r) = remote {
        trainer.gather_remote(r)?;
    }
    let elapsed = elapsed_before + start.elapsed().as_secs_f64();
    trainer.checkpoint(elapsed)?.write(&ckpt_path)?;
    if opts.final_eval && !(cfg.eval.opponents.is_empty() && cfg.eval.final_opponents.is_empty()) {
        let r = periodic_eval(&mut trainer, &cfg, true)?;
        log_eval(&mut log, &r);
        std::fs::write(
            opts.out.join("final_eval.json"),
            serde_json::to_string_pretty(&r).unwrap_or_default(),
        )
        .map_err(|e| TrainError::io(&opts.out.join("final_eval.json"), e))?;
        trainer.checkpoint(elapsed)?.write(&ckpt_path)?;
        summary.final_eval = Some(r);
    }
    log.flush();
    summary.iterations = trainer.counters.iteration;
    summary.train_steps = trainer.counters.train_steps;
    summary.games = trainer.counters.games;
    summary.positions = trainer.counters.positions;
    summary.secs = start.elapsed().as_secs_f64();
    summary.moves_per_sec = moves as f64 / sp_secs.max(1e-9);
    summary.evals_per_sec = evals as f64 / sp_secs.max(1e-9);
    summary.mean_batch = evals as f64 / batches.max(1) as f64;
    Ok(summary)
}

fn periodic_eval(trainer: &mut Trainer, cfg: &TrainConfig, last: bool) -> TrainResult<EvalReport> {
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
    let r = trainer.evaluate(
        opponents,
        games,
        cfg.eval.simulations,
        reference.as_deref(),
        derive_seed(cfg.seed, 0xe7a1),
        last,
    )?;
    trainer.extra.evals.push(r.clone());
    Ok(r)
}

fn log_eval(log: &mut Logger, r: &EvalReport) {
    let mut tags: Vec<(String, f64)> = r
        .results
        .iter()
        .map(|(n, s, ..)| (format!("eval/score_vs_{n}"), *s))
        .collect();
    if let Some(e) = r.elo {
        tags.push(("eval/elo".into(), e));
    }
    if let Some(e) = &r.endgame {
        tags.push(("eval/endgame_optimal".into(), e.optimal_share));
        tags.push(("eval/endgame_seeds_lost".into(), e.mean_loss));
        tags.push(("eval/endgame_result_kept".into(), e.result_share));
    }
    let refs: Vec<(&str, f64)> = tags.iter().map(|(t, v)| (t.as_str(), *v)).collect();
    log.scalars(r.iteration, &refs);
}

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
    tc.games = cfg.eval.calibration_games;
    tc.openings = cfg.eval.openings;
    tc.seed = derive_seed(cfg.seed, 0xca1b);
    let report = tournament::run_observed(&tc, &entrants, &tournament::ProgressBar::new(progress))?;
    Ok(report
        .standings
        .iter()
        .map(|s| (s.name.clone(), s.elo.unwrap_or(0.0)))
        .collect())
}
