//! Network generations: the snapshots a run keeps every `checkpoint.generations_every`
//! iterations, so that its history of networks outlives the checkpoint that is overwritten.
//!
//! A generation is a [`Checkpoint`] file holding only the network, the config and the counters
//! (iteration, games, self-play positions, gradient steps, wall time); the optimiser state, the
//! replay buffer and the games in progress are left empty, so a generation of the abapa recipe's
//! 256 → 256 network is 476 KB where its checkpoint was 18.7 MB at iteration 420. It plays wherever a
//! checkpoint does (`nn:path=RUN/generations/gen-000100.ckpt`), with the same moves as the
//! checkpoint written at the same iteration, and `awale ladder` rates them.
//!
//! ```
//! use awale::az::generations::{generation_path, list};
//! let dir = std::env::temp_dir().join(format!("awale-gen-doc-{}", std::process::id()));
//! assert_eq!(generation_path(&dir, 120), dir.join("generations").join("gen-000120.ckpt"));
//! // A folder without generations is an error that says so.
//! assert!(list(&dir).unwrap_err().to_string().contains("no generations"));
//! ```

use std::path::{Path, PathBuf};

use super::checkpoint::{Checkpoint, Counters};
use super::{TrainError, TrainResult};

/// The folder of a run's generations.
pub fn generations_dir(run: &Path) -> PathBuf {
    run.join("generations")
}

/// The file of the generation at `iteration` in run folder `run`.
pub fn generation_path(run: &Path, iteration: u64) -> PathBuf {
    generations_dir(run).join(format!("gen-{iteration:06}.ckpt"))
}

/// One generation of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Generation {
    /// Its file.
    pub path: PathBuf,
    /// Its counters when it was written: iteration, games, positions, gradient steps, wall
    /// time (seconds of training, every session of the run).
    pub counters: Counters,
    /// The rules it was trained for (a rules spec).
    pub rules: String,
    /// Its size in bytes.
    pub bytes: u64,
}

/// The generations of run folder `run`, by iteration. A folder that is not a run, or a run that
/// kept no generations (`checkpoint.generations_every = 0`), is an error that says so; so is a
/// generation file that cannot be read.
pub fn list(run: &Path) -> TrainResult<Vec<Generation>> {
    let dir = generations_dir(run);
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(_) => {
            return Err(TrainError::Config(format!(
                "{}: no generations (no folder {}; train with checkpoint.generations_every = K \
                 to keep one every K iterations)",
                run.display(),
                dir.display()
            )))
        }
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("gen-") && n.ends_with(".ckpt"))
        })
        .collect();
    paths.sort();
    if paths.is_empty() {
        return Err(TrainError::Config(format!(
            "{}: no generations in {}",
            run.display(),
            dir.display()
        )));
    }
    let mut out = Vec::with_capacity(paths.len());
    for path in paths {
        let bytes = std::fs::metadata(&path)
            .map_err(|e| TrainError::io(&path, e))?
            .len();
        let ckpt = Checkpoint::read(&path)?;
        out.push(Generation {
            rules: ckpt
                .config
                .rules()
                .map(|r| r.to_string())
                .unwrap_or(ckpt.config.rules.clone()),
            counters: ckpt.counters,
            path,
            bytes,
        });
    }
    out.sort_by_key(|g| g.counters.iteration);
    Ok(out)
}
