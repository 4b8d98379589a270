//! Checkpoints: one file with everything a run needs to go on exactly where it stopped.
//!
//! Layout (little-endian):
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `AWALECKP` |
//! | 4 | format version ([`VERSION`]) |
//! | 8 | config fingerprint ([`crate::train::TrainConfig::fingerprint`]) |
//! | 8 | payload length |
//! | … | payload: config (TOML), counters, trainer RNG, network (burnpack), optimiser (burnpack), replay buffer, self-play games, evaluation history (JSON) |
//! | 4 | CRC-32 (IEEE) of everything before it |
//!
//! [`Checkpoint::write`] is atomic: the bytes go to a temporary file in the same folder, which is
//! flushed to disk (`fsync`) and renamed over the target, then the folder is synced; a kill at
//! any moment leaves either the old checkpoint or the new one, never a torn file. [`Checkpoint::read`]
//! refuses a file with a bad magic, an unknown version, a bad checksum or a cut-off payload, and
//! [`Checkpoint::check_config`] one made under a different fingerprint, each with a typed
//! [`CheckpointError`].

use std::fs::{self, File};
use std::io::Write;
use std::path::Path;

use super::config::TrainConfig;
use super::data::{ByteReader, ByteWriter};
pub use super::CheckpointError;
use super::{TrainError, TrainResult};

/// The file's first bytes.
pub const MAGIC: &[u8; 8] = b"AWALECKP";
/// The format version this build writes and reads.
pub const VERSION: u32 = 1;

/// Step counters of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Counters {
    /// Iterations done.
    pub iteration: u64,
    /// Gradient steps done.
    pub train_steps: u64,
    /// Self-play games finished.
    pub games: u64,
    /// Training positions produced.
    pub positions: u64,
    /// Moves played in self-play.
    pub moves: u64,
    /// Seconds spent in earlier sessions of the run.
    pub elapsed: f64,
}

/// The state of a ChaCha random generator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RngState {
    /// Its seed.
    pub seed: [u8; 32],
    /// Its stream.
    pub stream: u64,
    /// Its position in the stream.
    pub word_pos: u128,
}

impl RngState {
    /// The state of `rng`.
    pub fn of(rng: &rand_chacha::ChaCha8Rng) -> RngState {
        RngState {
            seed: rng.get_seed(),
            stream: rng.get_stream(),
            word_pos: rng.get_word_pos(),
        }
    }

    /// A generator in this state.
    pub fn restore(&self) -> rand_chacha::ChaCha8Rng {
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::from_seed(self.seed);
        rng.set_stream(self.stream);
        rng.set_word_pos(self.word_pos);
        rng
    }
}

/// Everything in a checkpoint file.
#[derive(Debug, Clone, PartialEq)]
pub struct Checkpoint {
    /// The configuration of the run.
    pub config: TrainConfig,
    /// Counters.
    pub counters: Counters,
    /// The trainer's random generator (minibatch sampling).
    pub rng: RngState,
    /// The network, as a burnpack record.
    pub model: Vec<u8>,
    /// The optimiser state, as a burnpack record (empty in a model-only file).
    pub optimizer: Vec<u8>,
    /// The replay buffer ([`super::data::ReplayBuffer::encode`]; empty in a model-only file).
    pub replay: Vec<u8>,
    /// The self-play games in progress ([`super::selfplay::SelfPlay::encode`]).
    pub selfplay: Vec<u8>,
    /// Evaluation history and other notes (JSON).
    pub extra: String,
}

/// CRC-32 (IEEE 802.3, reflected, as zlib's `crc32`), by `crc32fast` (the checksum of the
/// endgame tables too).
///
/// ```
/// assert_eq!(awale::az::checkpoint::crc32(b"123456789"), 0xcbf4_3926);
/// ```
pub fn crc32(bytes: &[u8]) -> u32 {
    crc32fast::hash(bytes)
}

impl Checkpoint {
    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut p = ByteWriter::new();
        p.bytes(self.config.to_toml().as_bytes());
        let c = &self.counters;
        p.u64(c.iteration);
        p.u64(c.train_steps);
        p.u64(c.games);
        p.u64(c.positions);
        p.u64(c.moves);
        p.f64(c.elapsed);
        p.bytes_raw(&self.rng.seed);
        p.u64(self.rng.stream);
        p.u64(self.rng.word_pos as u64);
        p.u64((self.rng.word_pos >> 64) as u64);
        p.bytes(&self.model);
        p.bytes(&self.optimizer);
        p.bytes(&self.replay);
        p.bytes(&self.selfplay);
        p.bytes(self.extra.as_bytes());
        let mut out = ByteWriter::new();
        out.bytes_raw(MAGIC);
        out.u32(VERSION);
        out.u64(self.config.fingerprint());
        out.bytes(&p.buf);
        let crc = crc32(&out.buf);
        out.u32(crc);
        out.buf
    }

    /// Parses and checks a file's bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Checkpoint, CheckpointError> {
        if bytes.len() < 8 || &bytes[..8] != MAGIC {
            return Err(CheckpointError::NotACheckpoint);
        }
        let mut r = ByteReader::new(&bytes[8..]);
        let version = r.u32()?;
        if version != VERSION {
            return Err(CheckpointError::UnsupportedVersion {
                found: version,
                supported: VERSION,
            });
        }
        let fingerprint = r.u64()?;
        let payload = r.bytes()?;
        let body_len = bytes.len() - r.remaining();
        let stored = r.u32()?;
        let computed = crc32(&bytes[..body_len]);
        if stored != computed {
            return Err(CheckpointError::Checksum { stored, computed });
        }
        if r.remaining() != 0 {
            return Err(CheckpointError::Corrupt("bytes after the checksum".into()));
        }
        let mut p = ByteReader::new(payload);
        let text = std::str::from_utf8(p.bytes()?)
            .map_err(|_| CheckpointError::Corrupt("config is not UTF-8".into()))?;
        let config = TrainConfig::from_toml_str(text)
            .map_err(|e| CheckpointError::Corrupt(format!("config: {e}")))?;
        if config.fingerprint() != fingerprint {
            return Err(CheckpointError::Corrupt(
                "the stored config does not match the stored fingerprint".into(),
            ));
        }
        let counters = Counters {
            iteration: p.u64()?,
            train_steps: p.u64()?,
            games: p.u64()?,
            positions: p.u64()?,
            moves: p.u64()?,
            elapsed: p.f64()?,
        };
        if !(counters.elapsed.is_finite() && counters.elapsed >= 0.0) {
            return Err(CheckpointError::Corrupt(format!(
                "elapsed time {} is not a number of seconds",
                counters.elapsed
            )));
        }
        let seed: [u8; 32] = p.bytes_raw(32)?.try_into().expect("32 bytes");
        let stream = p.u64()?;
        let lo = p.u64()? as u128;
        let hi = p.u64()? as u128;
        let rng = RngState {
            seed,
            stream,
            word_pos: lo | hi << 64,
        };
        let model = p.bytes()?.to_vec();
        let optimizer = p.bytes()?.to_vec();
        let replay = p.bytes()?.to_vec();
        let selfplay = p.bytes()?.to_vec();
        let extra = String::from_utf8(p.bytes()?.to_vec())
            .map_err(|_| CheckpointError::Corrupt("notes are not UTF-8".into()))?;
        Ok(Checkpoint {
            config,
            counters,
            rng,
            model,
            optimizer,
            replay,
            selfplay,
            extra,
        })
    }

    /// Reads and checks a checkpoint file (a refused file gives [`TrainError::Checkpoint`]).
    pub fn read(path: &Path) -> TrainResult<Checkpoint> {
        let bytes = fs::read(path).map_err(|e| TrainError::io(path, e))?;
        Ok(Checkpoint::from_bytes(&bytes)?)
    }

    /// Refuses a checkpoint made under a config with another fingerprint.
    pub fn check_config(&self, config: &TrainConfig) -> Result<(), CheckpointError> {
        if self.config.fingerprint() != config.fingerprint() {
            return Err(CheckpointError::ConfigMismatch {
                checkpoint: self.config.fingerprint(),
                checkpoint_text: self.config.fingerprint_text(),
                config: config.fingerprint(),
                config_text: config.fingerprint_text(),
            });
        }
        Ok(())
    }

    /// Writes the checkpoint atomically (temporary file, fsync, rename, folder fsync).
    pub fn write(&self, path: &Path) -> TrainResult<()> {
        write_atomic(path, &self.to_bytes())
    }
}

/// Writes `bytes` to `path` atomically: a temporary file in the same folder, flushed to disk,
/// renamed over `path`, then the folder synced.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> TrainResult<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    fs::create_dir_all(&dir).map_err(|e| TrainError::io(&dir, e))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "checkpoint".into());
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| -> std::io::Result<()> {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, path)?;
        // The rename is durable once the folder is synced (not possible on every platform).
        if let Ok(d) = File::open(&dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(TrainError::io(path, e));
    }
    Ok(())
}
