//! The training loop: [`run`] (and [`run_with`], its self-play played by remote workers) takes a
//! run folder from its config to its last checkpoint, with the logs, evaluations and reports on
//! the way. One file per job beside it: [`crate::network::model`] (the network), [`super::loss`],
//! [`super::trainer`] (the state and the gradient step), [`super::distributed`],
//! [`super::evaluation`], [`crate::ratings::calibration`], [`super::metrics`] and
//! [`crate::network::agent`].
//!
//! A run is a sequence of *iterations*: self-play until `positions_per_iteration` new samples are
//! in the replay buffer, then `steps_per_iteration` gradient steps on minibatches drawn uniformly
//! from the buffer (none until it holds `min_replay` samples). Every `eval.every` iterations the
//! network plays the built-in agents; every `checkpoint.every` iterations (and at the end) a
//! checkpoint is written; every `checkpoint.generations_every` iterations (and at the start and
//! the end) a network-only *generation* ([`crate::az::generations`]). Losses: policy cross-entropy against the search's policy, value mean
//! squared error against the game result (optionally mixed with the search value), and the
//! auxiliary score-difference mean squared error; AdamW with decoupled weight decay; the learning
//! rate follows [`TrainConfig::lr_at`] (warm-up, then constant, cosine or step).
//!
//! Everything random derives from the config's seed and everything the next iterations depend
//! on is in the checkpoint (network, optimiser moments, replay buffer, games in progress with
//! their generators, the trainer's generator, counters), so a resumed run takes the same steps,
//! bit for bit, as one that was never stopped.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::evaluation::periodic_eval;
use super::logging::Logger;
use super::loss::LossStats;
use super::metrics::{log_eval, EvalReport};
use super::trainer::Trainer;
use super::{TrainConfig, TrainError, TrainResult};
use crate::az::checkpoint::Checkpoint;
use crate::az::generations;
use crate::az::remote::{self, RemoteSelfPlay};
use crate::ratings::calibration::calibrate;

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

/// Writes the network as it stands as a generation of run folder `out`
/// ([`crate::az::generations`]).
fn write_generation(trainer: &Trainer, out: &Path, elapsed: f64) -> TrainResult<()> {
    let ckpt = trainer.generation(elapsed)?;
    ckpt.write(&generations::generation_path(out, ckpt.counters.iteration))
}

/// When a distributed iteration fails for good (the workers gave up, a report was refused):
/// saves what the learner holds, the run as it stood after the last iteration it completed, with
/// the games in progress the learner keeps for every shard (`RemoteSelfPlay::games`), so that
/// the same command resumes there. The iteration that failed is all that is lost. Nothing is
/// written if the games cannot be had (the last checkpoint then stands); the file is replaced
/// atomically, never half-written.
fn save_after_failure(
    trainer: &mut Trainer,
    remote: &mut dyn RemoteSelfPlay,
    path: &Path,
    elapsed: f64,
) {
    if trainer.in_flight().is_some() || trainer.gather_remote(remote).is_err() {
        return;
    }
    if let Ok(ckpt) = trainer.checkpoint(elapsed) {
        if ckpt.write(path).is_ok() {
            let _ = writeln!(
                std::io::stderr(),
                "the run stopped after iteration {}: saved in {} (the same command resumes it)",
                trainer.counters.iteration,
                path.display()
            );
        }
    }
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
    crate::az::checkpoint::write_atomic(&opts.out.join("config.toml"), cfg.to_toml().as_bytes())?;
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
    let generations = cfg.checkpoint.generations_every;
    if generations > 0 && trainer.counters.iteration == 0 {
        write_generation(&trainer, &opts.out, elapsed_before)?;
    }
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
                match trainer.iteration_remote(r, overlap_next) {
                    Ok(it) => it,
                    Err(e) => {
                        let elapsed = elapsed_before + start.elapsed().as_secs_f64();
                        save_after_failure(&mut trainer, r, &ckpt_path, elapsed);
                        return Err(e);
                    }
                }
            }
            None => trainer.iteration()?,
        };
        evals += it.selfplay.evaluations;
        batches += it.selfplay.batches;
        moves += it.selfplay.moves;
        sp_secs += it.selfplay_secs;
        summary.max_batch = summary.max_batch.max(it.selfplay.max_batch);
        let step = trainer.counters.iteration;
        if let Some(l) = &it.losses {
            summary.losses = Some(*l);
        }
        log.scalars(step, &it.scalars(&trainer.counters));
        bar.set_position(step);
        bar.set_message(it.progress(cfg.training.min_replay));
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
                let _ = write!(std::io::stderr(), "{}", r.table());
            }
        }
        if generations > 0 && step % generations == 0 {
            write_generation(
                &trainer,
                &opts.out,
                elapsed_before + start.elapsed().as_secs_f64(),
            )?;
        }
        if cfg.checkpoint.every > 0 && step % cfg.checkpoint.every == 0 {
            if let Some(r) = remote.as_deref_mut() {
                trainer.gather_remote(r)?;
            }
            let elapsed = elapsed_before + start.elapsed().as_secs_f64();
            trainer.checkpoint(elapsed)?.write(&ckpt_path)?;
            if !opts.progress {
                let _ = writeln!(
                    std::io::stderr(),
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
    let last_generation = generations::generation_path(&opts.out, trainer.counters.iteration);
    if generations > 0 && !last_generation.exists() {
        write_generation(&trainer, &opts.out, elapsed)?;
    }
    trainer.checkpoint(elapsed)?.write(&ckpt_path)?;
    if opts.final_eval && !(cfg.eval.opponents.is_empty() && cfg.eval.final_opponents.is_empty()) {
        let r = periodic_eval(&mut trainer, &cfg, true)?;
        log_eval(&mut log, &r);
        let path = opts.out.join("final_eval.json");
        crate::files::write_replacing(
            &path,
            serde_json::to_string_pretty(&r)
                .unwrap_or_default()
                .as_bytes(),
        )
        .map_err(|e| TrainError::io(&path, e))?;
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
