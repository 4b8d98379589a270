//! Training logs: TensorBoard event files (through `tensorboard-rs`) in `OUT/tb/`, and the same
//! scalars as JSON lines in `OUT/metrics.jsonl` (easy to read back without TensorBoard).

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use tensorboard_rs::summary_writer::SummaryWriter;

use super::{TrainError, TrainResult};

/// Writes scalars to TensorBoard and to `metrics.jsonl`.
pub struct Logger {
    tb: Option<SummaryWriter>,
    jsonl: Option<File>,
    dir: PathBuf,
}

impl std::fmt::Debug for Logger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Logger")
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

impl Logger {
    /// A logger writing under `dir` (`dir/tb/` for TensorBoard, `dir/metrics.jsonl`).
    pub fn new(dir: &Path) -> TrainResult<Logger> {
        let tb_dir = dir.join("tb");
        fs::create_dir_all(&tb_dir).map_err(|e| TrainError::io(&tb_dir, e))?;
        let path = dir.join("metrics.jsonl");
        let jsonl = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| TrainError::io(&path, e))?;
        Ok(Logger {
            tb: Some(SummaryWriter::new(&tb_dir)),
            jsonl: Some(jsonl),
            dir: dir.to_path_buf(),
        })
    }

    /// A logger that writes nothing.
    pub fn disabled() -> Logger {
        Logger {
            tb: None,
            jsonl: None,
            dir: PathBuf::new(),
        }
    }

    /// Logs the scalars `values` (tag, value) at `step`.
    pub fn scalars(&mut self, step: u64, values: &[(&str, f64)]) {
        if let Some(tb) = &mut self.tb {
            for (tag, v) in values {
                if v.is_finite() {
                    tb.add_scalar(tag, *v as f32, step as usize);
                }
            }
        }
        if let Some(f) = &mut self.jsonl {
            let mut m = serde_json::Map::new();
            m.insert("step".into(), step.into());
            for (tag, v) in values {
                m.insert((*tag).to_string(), serde_json::json!(v));
            }
            let _ = writeln!(f, "{}", serde_json::Value::Object(m));
        }
    }

    /// Flushes everything to disk.
    pub fn flush(&mut self) {
        if let Some(tb) = &mut self.tb {
            tb.flush();
        }
        if let Some(f) = &mut self.jsonl {
            let _ = f.flush();
        }
    }
}
