//! A perfect index of the boards of one layer: every way to put exactly `n` seeds into the pits
//! of a board, numbered `0..count(n)` in lexicographic order (pit 0 most significant). The
//! endgame tables (boards read from the mover's side) and the indetermination table of the
//! engine number their boards with it.
//!
//! ```
//! use awale::tablebase::LayerIndex;
//! let index = LayerIndex::new(12, 3);
//! assert_eq!(index.count(), 364); // C(3 + 11, 11)
//! let mut board = [0u8; 12];
//! board[11] = 3; // the first board in the order
//! assert_eq!(index.rank(&board), 0);
//! assert_eq!(index.unrank(363)[..12], [3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
//! ```

/// Ways to put `seeds` seeds into `pits` pits: C(seeds + pits − 1, pits − 1).
pub fn ways(pits: usize, seeds: usize) -> u64 {
    if pits == 0 {
        return u64::from(seeds == 0);
    }
    (1..=seeds as u64).fold(1u64, |acc, k| acc * (pits as u64 - 1 + k) / k)
}

/// The numbering of the boards of `pits` pits holding exactly `seeds` seeds.
#[derive(Debug, Clone)]
pub struct LayerIndex {
    pits: usize,
    seeds: usize,
    /// `below[(i * w + r) * w + c]` (`w = seeds + 1`): how many boards whose pits `i..` hold `r`
    /// seeds give pit `i` fewer than `c`.
    below: Vec<u64>,
    count: u64,
}

impl LayerIndex {
    /// Bytes this index holds (its table of counts).
    pub fn memory_bytes(&self) -> usize {
        self.below.len() * std::mem::size_of::<u64>()
    }

    /// The index of the boards of `pits` pits (at most 16) holding exactly `seeds` seeds.
    pub fn new(pits: usize, seeds: usize) -> LayerIndex {
        assert!((1..=16).contains(&pits), "1 to 16 pits");
        let w = seeds + 1;
        let mut below = vec![0u64; pits * w * w];
        for i in 0..pits {
            for r in 0..=seeds {
                let mut acc = 0u64;
                for c in 0..=r {
                    below[(i * w + r) * w + c] = acc;
                    acc += ways(pits - i - 1, r - c);
                }
            }
        }
        LayerIndex {
            pits,
            seeds,
            below,
            count: ways(pits, seeds),
        }
    }

    /// Number of boards in the layer.
    #[inline]
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Seeds on every board of the layer.
    #[inline]
    pub fn seeds(&self) -> usize {
        self.seeds
    }

    /// The number of `board` (its first `pits` entries must hold exactly `seeds` seeds).
    #[inline]
    pub fn rank(&self, board: &[u8]) -> u64 {
        let w = self.seeds + 1;
        let mut left = self.seeds;
        let mut number = 0u64;
        for (i, &c) in board[..self.pits - 1].iter().enumerate() {
            if left == 0 {
                break;
            }
            number += self.below[(i * w + left) * w + c as usize];
            left -= c as usize;
        }
        number
    }

    /// The board numbered `number` (`< count()`); entries past `pits` are zero.
    pub fn unrank(&self, mut number: u64) -> [u8; 16] {
        let w = self.seeds + 1;
        let mut board = [0u8; 16];
        let mut left = self.seeds;
        for (i, pit) in board[..self.pits - 1].iter_mut().enumerate() {
            // The largest c with below[i][left][c] <= number.
            let row = &self.below[(i * w + left) * w..(i * w + left) * w + left + 1];
            let c = row.partition_point(|&b| b <= number) - 1;
            number -= row[c];
            *pit = c as u8;
            left -= c;
        }
        board[self.pits - 1] = left as u8;
        board
    }

    /// Moves `board` to the next board of the layer in the numbering; false after the last.
    #[inline]
    pub fn next(&self, board: &mut [u8]) -> bool {
        let k = self.pits;
        if k == 1 {
            return false;
        }
        let last = board[k - 1];
        if last > 0 {
            board[k - 2] += 1;
            board[k - 1] = last - 1;
            return true;
        }
        // The last non-empty pit j < k - 1: its seeds move one step up, the rest to the end.
        let Some(j) = (0..k - 1).rev().find(|&j| board[j] > 0) else {
            return false;
        };
        if j == 0 {
            return false;
        }
        board[j - 1] += 1;
        board[k - 1] = board[j] - 1;
        board[j] = 0;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_rank_and_unrank_agree_on_whole_layers() {
        for (pits, seeds) in [(12, 0), (12, 1), (12, 5), (4, 7), (1, 3), (16, 3)] {
            let index = LayerIndex::new(pits, seeds);
            let mut board = [0u8; 16];
            board[pits - 1] = seeds as u8;
            let mut n = 0u64;
            loop {
                assert_eq!(index.rank(&board), n, "{board:?}");
                assert_eq!(index.unrank(n), board);
                assert_eq!(board.iter().map(|&c| c as usize).sum::<usize>(), seeds);
                n += 1;
                if !index.next(&mut board[..pits]) {
                    break;
                }
            }
            assert_eq!(n, index.count());
        }
    }

    #[test]
    fn counts_are_binomials() {
        assert_eq!(LayerIndex::new(12, 20).count(), 84_672_315);
        assert_eq!((0..=20).map(|n| ways(12, n)).sum::<u64>(), 225_792_840);
    }
}
