//! Per-board random streams: one master seed gives board `i` the ChaCha8 stream `i` of the key
//! derived from that seed, so no board's randomness depends on another board, on the thread
//! count or on how the batch is split. [`derive_seed`] mixes two values into a seed: the one
//! way every layer derives the seeds of games, agents and searches from one.
//!
//! ```
//! use awale::batch::{board_rng, RngSnapshot};
//! use rand::RngCore;
//! let mut a = board_rng(42, 7);
//! let first = a.next_u64();
//! assert_ne!(first, board_rng(42, 8).next_u64()); // another board, another stream
//! let snap = RngSnapshot::of(&a);
//! let x = a.next_u64();
//! assert_eq!(snap.restore().next_u64(), x);
//! ```

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// The random stream of board `board` under master seed `master`: the ChaCha8 key expanded from
/// `master` by [`SeedableRng::seed_from_u64`], with stream number `board`.
pub fn board_rng(master: u64, board: usize) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(master);
    rng.set_stream(board as u64);
    rng
}

/// Mixes two 64-bit values into a well-spread seed (SplitMix64 finalizer); used to derive the
/// seeds of games, agents and searches from one seed (a tournament's, a run's).
///
/// ```
/// use awale::batch::derive_seed;
/// assert_eq!(derive_seed(1, 2), derive_seed(1, 2));
/// assert_ne!(derive_seed(1, 2), derive_seed(2, 1));
/// ```
pub fn derive_seed(a: u64, b: u64) -> u64 {
    splitmix(splitmix(a) ^ b)
}

/// The SplitMix64 output function: a bijection on 64-bit values.
#[inline]
pub(crate) fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The exact position of a ChaCha8 generator: key, stream and word position. Serializable;
/// [`RngSnapshot::restore`] gives a generator that continues bit for bit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RngSnapshot {
    seed: [u8; 32],
    stream: u64,
    /// The 128-bit word position as (low, high) 64-bit halves.
    word_pos: [u64; 2],
}

impl RngSnapshot {
    /// Captures `rng`'s position.
    pub fn of(rng: &ChaCha8Rng) -> RngSnapshot {
        let pos = rng.get_word_pos();
        RngSnapshot {
            seed: rng.get_seed(),
            stream: rng.get_stream(),
            word_pos: [pos as u64, (pos >> 64) as u64],
        }
    }

    /// A generator at the captured position.
    pub fn restore(&self) -> ChaCha8Rng {
        let mut rng = ChaCha8Rng::from_seed(self.seed);
        rng.set_stream(self.stream);
        rng.set_word_pos(self.word_pos[0] as u128 | (self.word_pos[1] as u128) << 64);
        rng
    }

    /// The stream number (the board index for batch generators).
    pub fn stream(&self) -> u64 {
        self.stream
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngCore;

    #[test]
    fn snapshot_resumes_mid_block() {
        let mut rng = board_rng(1, 3);
        for k in 0..200 {
            let snap = RngSnapshot::of(&rng);
            let mut copy = snap.restore();
            assert_eq!(copy.next_u32(), rng.next_u32(), "after {k} draws");
        }
        assert_eq!(RngSnapshot::of(&rng).stream(), 3);
    }

    #[test]
    fn streams_are_independent_of_board_order() {
        let a: Vec<u64> = (0..4).map(|i| board_rng(9, i).next_u64()).collect();
        let b: Vec<u64> = (0..4).rev().map(|i| board_rng(9, i).next_u64()).collect();
        assert_eq!(a, b.into_iter().rev().collect::<Vec<_>>());
        assert_ne!(a[0], a[1]);
    }
}
