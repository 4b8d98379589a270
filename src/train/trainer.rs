//! The trainer's state and its gradient step: [`Trainer`] holds a run in memory (network,
//! optimiser, replay buffer, self-play games, generator, counters) and takes its iterations:
//! self-play, then gradient steps on minibatches of the replay buffer ([`Trainer::train_step`];
//! the loss is in [`super::loss`]). A trainer turns into a [`Checkpoint`] and back, bit for bit.
//! Its self-play played by remote workers is in [`super::distributed`], its evaluation in
//! [`super::evaluation`]. A shipped baseline's recipe is replayed here too ([`replay`]).

use std::collections::HashMap;
use std::time::Instant;

use burn::module::{Module, ModuleVisitor, Param};
use burn::optim::{AdamWConfig, GradientsParams, ModuleOptimizer};
use burn::tensor::Device;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::loss::{Loss, LossStats, Minibatch};
use super::metrics::{Extra, IterationStats};
use super::{CheckpointError, TrainConfig, TrainError, TrainResult};
use crate::agents::derive_seed;
use crate::az::checkpoint::{Checkpoint, Counters, RngState};
use crate::az::data::{ByteReader, ByteWriter, ReplayBuffer, Sample};
use crate::az::network::NetworkEvaluator;
use crate::az::selfplay::{SelfPlay, SelfPlaySettings, SelfPlayStats};
use crate::batch::ObsEncoding;
use crate::network::baseline::params_sha256;
use crate::network::model::{input_scale, load_model, PolicyValueNet};
use crate::network::net_core::NetCore;
use crate::rules::Rules;

/// A training run in memory: network, optimiser, replay buffer, self-play games, generator.
pub struct Trainer {
    pub(super) cfg: TrainConfig,
    pub(super) rules: Rules,
    pub(super) encoding: ObsEncoding,
    pub(super) scale: Vec<f32>,
    pub(super) device: Device,
    pub(super) model: PolicyValueNet,
    pub(super) optim: ModuleOptimizer,
    pub(super) buffer: ReplayBuffer,
    pub(super) selfplay: SelfPlay,
    pub(super) rng: ChaCha8Rng,
    pub(super) counters: Counters,
    pub(super) extra: Extra,
    /// The weights version of remote self-play submitted and not yet collected.
    pub(super) in_flight: Option<u64>,
}

impl std::fmt::Debug for Trainer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Trainer")
            .field("config", &self.cfg.name)
            .field("counters", &self.counters)
            .finish_non_exhaustive()
    }
}

fn optimizer(cfg: &TrainConfig) -> ModuleOptimizer {
    AdamWConfig::new()
        .with_weight_decay(cfg.training.weight_decay)
        .with_epsilon(1e-8)
        .init()
}

/// The optimiser of `cfg` with the state of a checkpoint's record `bytes` (burn's record of
/// AdamW's moments) for the parameters of `model` (the network of the same checkpoint); a
/// record that is not one, or not one of this network, is a [`CheckpointError::Corrupt`].
pub fn load_optimizer(
    cfg: &TrainConfig,
    bytes: &[u8],
    model: &PolicyValueNet,
) -> TrainResult<ModuleOptimizer> {
    let corrupt = |e: String| CheckpointError::Corrupt(format!("optimiser state: {e}"));
    // The record is read twice (here, then by burn): burn's `OptimizerRecord` cannot be built
    // from outside it, and a resume reads it once per run.
    check_optimizer_record(bytes, &param_shapes(model)).map_err(corrupt)?;
    optimizer(cfg)
        .from_bytes(burn::tensor::Bytes::from_bytes_vec(bytes.to_vec()))
        .map_err(|e| corrupt(e.to_string()).into())
}

/// A CRC-32 of an optimiser record's contents (every scalar and tensor by name, in name
/// order: its name, type, shape and values), the same for the same state whatever order the
/// record was written in (burn writes its map in hash order, so the bytes of two identical runs
/// differ). A record that cannot be read: the CRC-32 of its bytes.
pub fn optimizer_crc32(bytes: &[u8]) -> u32 {
    let Ok(reader) =
        burn_pack::Reader::from_bytes(burn::tensor::Bytes::from_bytes_vec(bytes.to_vec()))
    else {
        return crc32fast::hash(bytes);
    };
    let mut crc = crc32fast::Hasher::new();
    for (name, value) in reader.scalars() {
        crc.update(format!("{name}={value:?};").as_bytes());
    }
    for name in reader.tensor_names() {
        let Ok(data) = reader.tensor_data(name) else {
            return crc32fast::hash(bytes);
        };
        crc.update(name.as_bytes());
        crc.update(&(data.len() as u64).to_le_bytes());
        crc.update(&data);
    }
    if let Ok(tensors) = reader.into_tensors() {
        for t in tensors {
            crc.update(format!("{}:{:?}{:?}", t.name, t.dtype, t.shape.as_slice()).as_bytes());
        }
    }
    crc.finalize()
}

/// The shape of every parameter of `model`, by parameter id.
fn param_shapes(model: &PolicyValueNet) -> HashMap<u64, Vec<usize>> {
    struct Shapes(HashMap<u64, Vec<usize>>);
    impl ModuleVisitor for Shapes {
        fn visit_float<const D: usize>(&mut self, param: &Param<burn::tensor::Tensor<D>>) {
            self.0.insert(param.id.val(), param.val().dims().to_vec());
        }
    }
    let mut shapes = Shapes(HashMap::new());
    model.visit(&mut shapes);
    shapes.0
}

/// What burn's optimiser loader and its first step take on trust, checked first (found by the
/// `checkpoint_records` fuzz target: burn 0.22 panics on a tensor without a parameter id, and
/// on a state whose rank differs from the one its record declares): every state tensor belongs
/// to a parameter of the network (`ID.…`, parameter id `ID`), as f32 of that parameter's shape,
/// and every declared rank is its parameter's. Sizes and byte ranges are checked by burn's
/// reader.
fn check_optimizer_record(bytes: &[u8], params: &HashMap<u64, Vec<usize>>) -> Result<(), String> {
    let reader = burn_pack::Reader::from_bytes(burn::tensor::Bytes::from_bytes_vec(bytes.to_vec()))
        .map_err(|e| e.to_string())?;
    let rank_suffix = ".__rank";
    for (name, value) in reader.scalars() {
        if let Some(id) = name
            .strip_suffix(rank_suffix)
            .and_then(|i| i.parse::<u64>().ok())
        {
            let rank = params
                .get(&id)
                .map(|s| s.len())
                .ok_or_else(|| format!("'{name}' names no parameter of the network"))?;
            if usize::try_from(*value).ok() != Some(rank) {
                return Err(format!("'{name}' is not {rank}"));
            }
        }
    }
    for tensor in reader.into_tensors().map_err(|e| e.to_string())? {
        let name = &tensor.name;
        let id = tensor
            .param_id
            .ok_or_else(|| format!("tensor '{name}' names no parameter"))?;
        let shape = params
            .get(&id)
            .ok_or_else(|| format!("tensor '{name}' belongs to no parameter of the network"))?;
        if name.split('.').next() != Some(id.to_string().as_str()) {
            return Err(format!("tensor '{name}' is filed under parameter {id}"));
        }
        if tensor.dtype != burn::tensor::DType::F32 || tensor.shape.as_slice() != shape.as_slice() {
            return Err(format!(
                "tensor '{name}' is {:?} {:?}, its parameter f32 {shape:?}",
                tensor.dtype,
                tensor.shape.as_slice()
            ));
        }
    }
    Ok(())
}

impl Trainer {
    /// A fresh run of `cfg`.
    pub fn new(cfg: TrainConfig) -> TrainResult<Trainer> {
        cfg.validate()?;
        let rules = cfg.rules()?;
        let encoding = cfg.observation()?;
        let device = super::train_device();
        let model = PolicyValueNet::from_config(&cfg, &device)?;
        // Missing endgame tables are built here (once, into their folder) unless the caller
        // built them first to report it (`awale train` does).
        crate::az::selfplay_tables::prepare(&cfg, cfg.selfplay.threads, &|_| {})?;
        let selfplay = SelfPlay::with_threads(
            rules,
            SelfPlaySettings::for_run(&cfg)?,
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
        t.optim = load_optimizer(&t.cfg, &ckpt.optimizer, &t.model)?;
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

    /// The network as it stands as a generation: a checkpoint with the network, the config and
    /// the counters only ([`crate::az::generations`]).
    pub fn generation(&self, elapsed: f64) -> TrainResult<Checkpoint> {
        let mut counters = self.counters;
        counters.elapsed = elapsed;
        Ok(Checkpoint {
            config: self.cfg.clone(),
            counters,
            rng: RngState::of(&self.rng),
            model: self.weights()?,
            optimizer: Vec::new(),
            replay: Vec::new(),
            selfplay: Vec::new(),
            extra: String::new(),
        })
    }

    /// The checkpoint of the run as it stands: the generation's network, config and counters,
    /// with the optimiser state, the replay buffer, the games in progress and the notes.
    pub fn checkpoint(&self, elapsed: f64) -> TrainResult<Checkpoint> {
        let mut ckpt = self.generation(elapsed)?;
        ckpt.optimizer = self
            .optim
            .into_bytes()
            .map_err(|e| TrainError::Model(format!("saving the optimiser: {e}")))?
            .to_vec();
        let mut replay = ByteWriter::new();
        self.buffer.encode(&self.rules, &mut replay);
        ckpt.replay = replay.buf;
        let mut selfplay = ByteWriter::new();
        self.selfplay.encode(&mut selfplay);
        ckpt.selfplay = selfplay.buf;
        ckpt.extra = serde_json::to_string(&self.extra).unwrap_or_default();
        Ok(ckpt)
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

    pub(super) fn total_steps(&self) -> u64 {
        self.cfg.training.iterations * self.cfg.training.steps_per_iteration as u64
    }

    /// One iteration: self-play, then gradient steps.
    pub fn iteration(&mut self) -> TrainResult<IterationStats> {
        let t0 = Instant::now();
        let core = self.core()?;
        let sp = self.selfplay.run_with(
            || NetworkEvaluator::new(&core),
            self.cfg.selfplay.eval_batch,
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

    /// The second half of an iteration: counts the self-play `sp` (its samples are in the
    /// buffer), then the gradient steps once the buffer holds `min_replay` samples.
    pub(super) fn learn(&mut self, sp: SelfPlayStats, selfplay_secs: f64) -> IterationStats {
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
        let idx = self.buffer.sample_indices(&mut self.rng, b);
        let samples: Vec<&Sample> = idx.iter().map(|&i| self.buffer.get(i)).collect();
        let batch = Minibatch::new(
            &self.rules,
            self.encoding,
            &self.scale,
            &samples,
            &self.device,
        );
        let out = self.model.forward(batch.input.clone());
        let loss = Loss::new(out, batch, &self.cfg.training);
        let lr = self
            .cfg
            .lr_at(self.counters.train_steps, self.total_steps());
        let grads = loss.total.backward();
        let grads = GradientsParams::from_grads(grads, &self.model);
        self.model = self.optim.step(lr, self.model.clone(), grads);
        self.counters.train_steps += 1;
        loss.stats(lr)
    }
}

/// Replays the first `iterations` iterations of `cfg` (self-play and gradient steps, as the
/// run did them; no evaluation) and returns [`params_sha256`] of the network after them (a
/// shipped baseline's [`crate::network::baseline::Replay`]).
pub fn replay(cfg: &TrainConfig, iterations: u64) -> TrainResult<String> {
    if iterations > cfg.training.iterations {
        return Err(TrainError::Config(format!(
            "cannot replay {iterations} iterations of a recipe of {}",
            cfg.training.iterations
        )));
    }
    let mut trainer = Trainer::new(cfg.clone())?;
    for _ in 0..iterations {
        trainer.iteration()?;
    }
    Ok(params_sha256(&trainer.core()?))
}
