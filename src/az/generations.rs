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
//! A run trained elsewhere (`awale.recipes.az_torch`, PyTorch) keeps its generations as
//! safetensors networks, `gen-NNNNNN.safetensors`, whose metadata holds the counters
//! (`awale.torch.save(model, path, counters=...)`); they are listed and rated the same way.
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
use super::{TrainConfig, TrainError, TrainResult};

/// The largest metadata header of a safetensors generation read here.
const MAX_SAFETENSORS_HEADER: u64 = 1 << 24;

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
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n.starts_with("gen-") && (n.ends_with(".ckpt") || n.ends_with(".safetensors"))
            })
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
        let (config, counters) = if path.extension().is_some_and(|e| e == "safetensors") {
            safetensors_generation(&path)?
        } else {
            let ckpt = Checkpoint::read(&path)?;
            (ckpt.config, ckpt.counters)
        };
        out.push(Generation {
            rules: config
                .rules()
                .map(|r| r.to_string())
                .unwrap_or(config.rules.clone()),
            counters,
            path,
            bytes,
        });
    }
    out.sort_by_key(|g| g.counters.iteration);
    Ok(out)
}

/// The config and counters in the metadata of a safetensors generation (its `config` and
/// `counters` entries; see the [module docs](self)). Only the header is read: the network
/// itself is checked when it plays.
fn safetensors_generation(path: &Path) -> TrainResult<(TrainConfig, Counters)> {
    use std::io::Read;
    let bad = |m: String| TrainError::Config(format!("{}: {m}", path.display()));
    let mut f = std::fs::File::open(path).map_err(|e| TrainError::io(path, e))?;
    let mut len = [0u8; 8];
    f.read_exact(&mut len)
        .map_err(|_| bad("shorter than a safetensors header".into()))?;
    let n = u64::from_le_bytes(len);
    if n > MAX_SAFETENSORS_HEADER {
        return Err(bad(format!("a safetensors header of {n} bytes")));
    }
    let mut head = vec![0u8; n as usize];
    f.read_exact(&mut head)
        .map_err(|_| bad("its safetensors header is cut short".into()))?;
    let head: serde_json::Value =
        serde_json::from_slice(&head).map_err(|e| bad(format!("its safetensors header: {e}")))?;
    let meta = &head["__metadata__"];
    let config = meta["config"]
        .as_str()
        .ok_or_else(|| bad("not an awale network (no config in its metadata)".into()))?;
    let config = TrainConfig::from_toml_str(config)?;
    let counters = meta["counters"].as_str().ok_or_else(|| {
        bad("no counters in its metadata (save it with awale.torch.save(..., counters=...))".into())
    })?;
    let c: serde_json::Value =
        serde_json::from_str(counters).map_err(|e| bad(format!("its counters: {e}")))?;
    let whole = |k: &str| {
        c[k].as_u64()
            .ok_or_else(|| bad(format!("its counters lack a whole '{k}'")))
    };
    let counters = Counters {
        iteration: whole("iteration")?,
        train_steps: whole("train_steps")?,
        games: whole("games")?,
        positions: whole("positions")?,
        moves: c["moves"].as_u64().unwrap_or(0),
        elapsed: c["elapsed"].as_f64().unwrap_or(0.0),
    };
    Ok((config, counters))
}
