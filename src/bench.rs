//! Throughput measurement of the single-board engine: uniformly random play under the full rules.
//!
//! [`random_play`] is what `awale bench engine` and the criterion benches (`cargo bench --bench
//! engine`) run. It drives a [`State`] and a [`History`] directly, which is exactly what
//! [`crate::Game`] does minus the growing list of moves, so every rule is applied (repetitions
//! and every end condition included) and the loop allocates nothing once the history buffer is
//! warm.
//!
//! Randomness: a [`ChaCha8Rng`] seeded with `seed` draws the 64-bit seed of a small
//! multiply-xorshift generator ([`FastRng`], "wyrand"), which then picks every move. The same
//! `seed` always plays the same games.
//!
//! ```
//! use awale::{bench, Rules};
//! let report = bench::random_play(&Rules::abapa(), 10_000, 1);
//! assert!(report.moves >= 10_000);
//! assert!(report.games > 0);
//! assert!(report.moves_per_second() > 0.0);
//! // Fixed seed, fixed games.
//! assert_eq!(report.moves, bench::random_play(&Rules::abapa(), 10_000, 1).moves);
//! ```

use std::time::Instant;

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::history::History;
use crate::rules::Rules;
use crate::state::State;

/// The outcome of a throughput run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BenchReport {
    /// Moves (plies) played.
    pub moves: u64,
    /// Games played to their end (every game is played out, so the last one may overshoot the
    /// requested move count).
    pub games: u64,
    /// Wall-clock seconds the run took.
    pub seconds: f64,
}

impl BenchReport {
    /// Moves played per second of wall-clock time.
    pub fn moves_per_second(&self) -> f64 {
        if self.seconds > 0.0 {
            self.moves as f64 / self.seconds
        } else {
            0.0
        }
    }

    /// Average game length in plies.
    pub fn plies_per_game(&self) -> f64 {
        if self.games > 0 {
            self.moves as f64 / self.games as f64
        } else {
            0.0
        }
    }
}

/// `n` positions of games played at random from the start of `rules`, each stopped after up to
/// `max_plies` plies (games not over): the inputs a benchmark or a test feeds a network.
///
/// ```
/// use awale::{bench::random_positions, Rules};
/// let rules = Rules::abapa();
/// let states = random_positions(&rules, 10, 60, 1);
/// assert_eq!(states.len(), 10);
/// assert!(states.iter().all(|s| !s.is_over()));
/// assert_eq!(states, random_positions(&rules, 10, 60, 1));
/// ```
pub fn random_positions(rules: &Rules, n: usize, max_plies: u64, seed: u64) -> Vec<State> {
    let mut rng = FastRng::from_seed(seed);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut s = State::initial(rules, 0);
        for _ in 0..rng.next_u64() % (max_plies + 1) {
            if s.is_over() {
                break;
            }
            let house = rng.pick(s.legal_mask(rules));
            let _ = s.apply_unchecked(rules, house);
        }
        if !s.is_over() {
            out.push(s);
        }
    }
    out
}

/// A small, fast pseudo-random generator (wyrand: a Weyl sequence mixed by one 64×64→128-bit
/// multiply). Good enough to pick random moves, not for anything cryptographic.
#[derive(Debug, Clone)]
pub struct FastRng(u64);

impl FastRng {
    /// A generator whose 64-bit state is drawn from a ChaCha8 stream seeded with `seed`.
    pub fn from_seed(seed: u64) -> FastRng {
        FastRng(ChaCha8Rng::seed_from_u64(seed).next_u64())
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0xa076_1d64_78bd_642f);
        let t = (self.0 as u128).wrapping_mul((self.0 ^ 0xe703_7ed1_a0b4_28db) as u128);
        (t >> 64) as u64 ^ t as u64
    }

    /// A uniformly random set bit of `mask` (which must not be zero), as its index. Uses the
    /// multiply-shift reduction of the top 32 bits (bias below 2^-28 for masks of 16 bits),
    /// and a table for masks of up to 8 houses (no loop: its length would be unpredictable).
    #[inline]
    pub fn pick(&mut self, mask: u16) -> usize {
        debug_assert!(mask != 0);
        let k = ((self.next_u64() >> 32) * mask.count_ones() as u64) >> 32;
        if mask < 256 {
            return SELECT[mask as usize][k as usize] as usize;
        }
        let mut m = mask;
        for _ in 0..k {
            m &= m - 1;
        }
        m.trailing_zeros() as usize
    }
}

/// `SELECT[m][k]`: the index of the `k`-th lowest set bit of the 8-bit mask `m` (0 past the
/// last one).
const SELECT: [[u8; 8]; 256] = {
    let mut table = [[0u8; 8]; 256];
    let mut m = 0;
    while m < 256 {
        let (mut bit, mut k) = (0, 0);
        while bit < 8 {
            if m & (1 << bit) != 0 {
                table[m][k] = bit as u8;
                k += 1;
            }
            bit += 1;
        }
        m += 1;
    }
    table
};

/// Plays uniformly random games under `rules` on one thread until at least `moves` moves were
/// played (the last game is finished), and reports the throughput.
///
/// Each game starts from [`State::initial`]; when the rules draw the first player at random, it
/// is drawn from the same generator. Repetitions are detected with a [`History`], as in
/// [`crate::Game`].
pub fn random_play(rules: &Rules, moves: u64, seed: u64) -> BenchReport {
    let rules = *rules;
    let mut rng = FastRng::from_seed(seed);
    let mut history = History::with_capacity(256);
    let mut played = 0u64;
    let mut games = 0u64;
    let t0 = Instant::now();
    while played < moves {
        let first = rules.first_player.pick(rules.players as usize, |n| {
            (rng.next_u64() % n as u64) as usize
        });
        let mut state = State::initial(&rules, first);
        history.reset(&state);
        while !state.is_over() {
            let mv = rng.pick(state.legal_mask(&rules));
            let info = state.apply_unchecked(&rules, mv);
            history.record(&rules, &mut state, &info);
            played += 1;
        }
        games += 1;
    }
    BenchReport {
        moves: played,
        games,
        seconds: t0.elapsed().as_secs_f64(),
    }
}
