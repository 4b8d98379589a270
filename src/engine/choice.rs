//! Rules of choice: how the simple built-in players pick a move, defined once at engine level so
//! that every layer (the batch's opponents, the tournament's agents) plays the same rule under
//! the same name.
//!
//! - [`greedy`]: the move whose immediate gain is largest: the mover's store gain minus the
//!   largest store gain of another player during the move ([`greedy_gain`]).
//! - [`capture`]: the move that captures the most seeds at once for the mover.
//!
//! Both take the legal moves as a bit mask (bit `h` = house `h`, as [`State::legal_mask`]) and
//! break ties uniformly at random with one draw from the caller's random stream (none when a
//! single move is best). Neither allocates.
//!
//! ```
//! use awale::{choice, Rules, State};
//! use rand::SeedableRng;
//! let rules = Rules::abapa();
//! // South's F (2 seeds) reaches b and takes a=2, b=3.
//! let s = State::from_parts(&rules, &[1, 0, 0, 0, 0, 2, 1, 2, 8, 0, 0, 0], &[20, 14], 0, 0).unwrap();
//! let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
//! let legal = s.legal_mask(&rules);
//! assert_eq!(choice::capture(&rules, &s, legal, &mut rng), 5);
//! assert_eq!(choice::greedy(&rules, &s, legal, &mut rng), 5);
//! ```

use rand::Rng;

use crate::rules::Rules;
use crate::state::State;

/// Most houses a player has (the width of a legal mask).
const MAX_HOUSES: usize = 16;

/// The greedy rule's gain of a move from `before` to `after`: the mover's store gain (captures,
/// and seeds awarded when the move ends the game) minus the largest store gain of any other
/// player (out-of-turn captures of the relay game).
pub fn greedy_gain(rules: &Rules, before: &State, after: &State) -> i32 {
    let me = before.to_move();
    let delta = |p: usize| i32::from(after.scores()[p]) - i32::from(before.scores()[p]);
    let others = (0..rules.players as usize)
        .filter(|&p| p != me)
        .map(delta)
        .max()
        .unwrap_or(0);
    delta(me) - others
}

/// The greedy choice: the legal move of `legal` (non-zero) with the largest [`greedy_gain`],
/// ties broken uniformly at random from `rng`.
pub fn greedy<R: Rng + ?Sized>(rules: &Rules, state: &State, legal: u16, rng: &mut R) -> usize {
    best_of(legal, rng, |h| {
        let mut next = *state;
        next.apply_unchecked(rules, h);
        greedy_gain(rules, state, &next)
    })
}

/// The capture choice: the legal move of `legal` (non-zero) that captures the most seeds for
/// the mover at once, ties broken uniformly at random from `rng`.
pub fn capture<R: Rng + ?Sized>(rules: &Rules, state: &State, legal: u16, rng: &mut R) -> usize {
    best_of(legal, rng, |h| {
        let mut next = *state;
        i32::from(next.apply_unchecked(rules, h).captured)
    })
}

/// The set bit of `legal` with the largest `score`, ties broken by one uniform draw from `rng`
/// (no draw when one bit is best). `legal` must be non-zero.
#[inline]
fn best_of<R: Rng + ?Sized>(legal: u16, rng: &mut R, mut score: impl FnMut(usize) -> i32) -> usize {
    debug_assert!(legal != 0, "no legal move to choose from");
    let mut scores = [i32::MIN; MAX_HOUSES];
    let mut best = i32::MIN;
    let mut ties = 0u32;
    let mut m = legal;
    while m != 0 {
        let h = m.trailing_zeros() as usize;
        m &= m - 1;
        let s = score(h);
        scores[h] = s;
        if s > best {
            best = s;
            ties = 1;
        } else if s == best {
            ties += 1;
        }
    }
    let mut k = if ties > 1 {
        rng.random_range(0..ties)
    } else {
        0
    };
    let mut m = legal;
    loop {
        let h = m.trailing_zeros() as usize;
        m &= m - 1;
        if scores[h] == best {
            if k == 0 || m == 0 {
                return h;
            }
            k -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn ties_are_broken_uniformly() {
        let rules = Rules::abapa();
        let s = State::initial(&rules, 0);
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut counts = [0u32; 6];
        for _ in 0..6000 {
            counts[greedy(&rules, &s, 0b111111, &mut rng)] += 1;
            counts[capture(&rules, &s, 0b111111, &mut rng)] += 1;
        }
        for c in counts {
            assert!((1800..2200).contains(&c), "{counts:?}");
        }
    }

    #[test]
    fn only_legal_houses_are_chosen() {
        let rules = Rules::abapa();
        let s = State::initial(&rules, 0);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for _ in 0..200 {
            let h = greedy(&rules, &s, 0b100100, &mut rng);
            assert!(h == 2 || h == 5);
            assert_eq!(capture(&rules, &s, 0b000010, &mut rng), 1);
        }
    }

    #[test]
    fn greedy_nets_out_and_capture_does_not() {
        // Four players, relay sowing: a move may feed another player's capture. Compare the two
        // rules with a naive reference over random positions of every preset.
        for spec in ["abapa", "awale", "wari", "oware3", "oware4", "oware6"] {
            let rules: Rules = spec.parse().unwrap();
            let mut rng = ChaCha8Rng::seed_from_u64(9);
            let mut st = State::initial(&rules, 0);
            for _ in 0..400 {
                if st.is_over() {
                    st = State::initial(&rules, 0);
                }
                let legal = st.legal_mask(&rules);
                let gains: Vec<(usize, i32, i32)> = (0..rules.houses as usize)
                    .filter(|h| legal >> h & 1 == 1)
                    .map(|h| {
                        let mut next = st;
                        let info = next.apply_unchecked(&rules, h);
                        let me = st.to_move();
                        let d = |p: usize| next.scores()[p] as i32 - st.scores()[p] as i32;
                        let other = (0..rules.players as usize)
                            .filter(|&p| p != me)
                            .map(d)
                            .max()
                            .unwrap();
                        (h, d(me) - other, info.captured as i32)
                    })
                    .collect();
                let g = greedy(&rules, &st, legal, &mut rng);
                let c = capture(&rules, &st, legal, &mut rng);
                let best_g = gains.iter().map(|x| x.1).max().unwrap();
                let best_c = gains.iter().map(|x| x.2).max().unwrap();
                assert_eq!(gains.iter().find(|x| x.0 == g).unwrap().1, best_g, "{spec}");
                assert_eq!(gains.iter().find(|x| x.0 == c).unwrap().2, best_c, "{spec}");
                let h = gains[rng.random_range(0..gains.len())].0;
                st.apply_unchecked(&rules, h);
            }
        }
    }
}
