//! [`BatchSnapshot`]: the whole mutable content of a batch (positions, repetition histories,
//! random streams, episode counters), serializable, for [`super::Batch::restore`].

use serde::{Deserialize, Serialize};

use super::rng::RngSnapshot;
use crate::error::{AwaleError, Result};
use crate::rules::Rules;
use crate::state::{PositionKey, State};

/// One board of a snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct BoardSnapshot {
    pub(crate) state: State,
    /// Repetition keys since the last capture, as (pits low 64 bits, pits high 64 bits, mover).
    pub(crate) history: Vec<(u64, u64, u8)>,
    pub(crate) rng: RngSnapshot,
    pub(crate) done: bool,
    pub(crate) length: u32,
    /// The league member of the board's episode (absent, 0, in snapshots before leagues).
    #[serde(default)]
    pub(crate) member: u8,
}

impl BoardSnapshot {
    pub(crate) fn keys(&self) -> impl Iterator<Item = PositionKey> + '_ {
        self.history
            .iter()
            .map(|&(lo, hi, m)| (lo as u128 | (hi as u128) << 64, m))
    }

    pub(crate) fn pack_keys(keys: &[PositionKey]) -> Vec<(u64, u64, u8)> {
        keys.iter()
            .map(|&(k, m)| (k as u64, (k >> 64) as u64, m))
            .collect()
    }
}

/// Everything a batch needs to continue bit for bit: each board's position, repetition history,
/// random stream, reset flag and episode length, plus the rules they play. `Clone` and serde
/// (e.g. JSON through `serde_json`); restore it into a batch built from the same
/// [`super::BatchConfig`].
///
/// ```
/// use awale::batch::{Batch, BatchConfig, StepBuffers};
/// use awale::Rules;
/// let mut batch = Batch::new(BatchConfig::new(Rules::abapa(), 2).with_seed(3)).unwrap();
/// let mut buf = StepBuffers::<f32>::for_batch(&batch);
/// let snap = batch.snapshot();
/// batch.step(&[0u32, 1], &mut buf.output()).unwrap();
/// let after = buf.obs.clone();
/// let json = serde_json::to_string(&snap).unwrap();
/// batch.restore(&serde_json::from_str(&json).unwrap()).unwrap();
/// batch.step(&[0u32, 1], &mut buf.output()).unwrap();
/// assert_eq!(buf.obs, after);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchSnapshot {
    pub(crate) rules: Rules,
    pub(crate) boards: Vec<BoardSnapshot>,
}

impl BatchSnapshot {
    /// The rules the boards play.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Number of boards.
    pub fn num_boards(&self) -> usize {
        self.boards.len()
    }

    /// Board `i`'s position.
    pub fn state(&self, i: usize) -> Option<&State> {
        self.boards.get(i).map(|b| &b.state)
    }

    /// Checks that the snapshot fits `rules` and `boards` boards and that every position is
    /// possible under the rules (so a hand-edited or corrupted snapshot is refused, not played).
    pub(crate) fn check(&self, rules: &Rules, boards: usize) -> Result<()> {
        let bad = |m: String| Err(AwaleError::BadBatchInput(m));
        if self.rules != *rules {
            return bad(format!(
                "snapshot plays {}, this batch plays {rules}",
                self.rules
            ));
        }
        if self.boards.len() != boards {
            return bad(format!(
                "snapshot holds {} boards, this batch {boards}",
                self.boards.len()
            ));
        }
        for (i, b) in self.boards.iter().enumerate() {
            let s = &b.state;
            // `fits` first: `legal_mask` assumes a player to move that exists.
            if !s.fits(rules) || (!b.done && !s.is_over() && s.legal_mask(rules) == 0) {
                return bad(format!(
                    "snapshot board {i} holds a position that is impossible under {rules}"
                ));
            }
            if !b.keys().all(|k| super::repetition::key_fits(rules, k)) {
                return bad(format!(
                    "snapshot board {i} has a corrupt repetition history"
                ));
            }
        }
        Ok(())
    }
}
