//! Perft: counting the leaves of the game tree to a fixed depth, the standard correctness check
//! for move generators.
//!
//! Repetitions are detected exactly as in [`crate::Game`] (see [`crate::History`]): a position
//! (board and player to move) that occurred since the last capture on the path from the start
//! ends the game by the rules' cycle rule. A game that ends before `depth` plies contributes
//! nothing below its end. The counts for the presets' start positions are in `docs/rules.md`;
//! those of `abapa` agree with OpenSpiel's `oware` (checked by `tests/perft.rs`).
//!
//! The search is exact and allocation-free per node: the path's position keys live in one stack,
//! the last ply is counted in bulk from the legal-move mask, and the top of the tree is split
//! across threads with rayon when the search is deep enough to pay for it.
//!
//! ```
//! use awale::{perft, Rules, State};
//! let rules = Rules::abapa();
//! let start = State::initial(&rules, 0);
//! assert_eq!(perft::perft(&rules, &start, 1), 6);
//! assert_eq!(perft::perft(&rules, &start, 2), 36);
//! assert_eq!(perft::perft(&rules, &start, 5), 5219);
//! let divide = perft::perft_divide(&rules, &start, 5);
//! assert_eq!(divide.len(), 6);
//! assert_eq!(divide.iter().map(|&(_, n)| n).sum::<u64>(), 5219);
//! ```

use rayon::prelude::*;

use crate::rules::{CycleRule, Rules};
use crate::state::{MoveInfo, PositionKey, State, Status};

/// Remaining depth from which a subtree is worth splitting across threads.
const PAR_MIN_DEPTH: u32 = 7;
/// How many plies at the top of the tree are split across threads.
const PAR_LEVELS: u32 = 2;

/// Number of positions reached after exactly `depth` plies from `state` (games that end earlier
/// count nothing below their end). Depth 0 counts the position itself.
pub fn perft(rules: &Rules, state: &State, depth: u32) -> u64 {
    let keys = vec![state.key()];
    walk_top(rules, state, depth, keys, 0, PAR_LEVELS)
}

/// Perft split by first move: `(house, count)` for each legal move of `state`, in house order.
/// The counts add up to [`perft`] at the same depth. Empty when `depth` is 0 or the game is over.
pub fn perft_divide(rules: &Rules, state: &State, depth: u32) -> Vec<(usize, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    let mask = state.legal_mask(rules);
    let moves: Vec<usize> = (0..rules.houses as usize)
        .filter(|h| mask & (1 << h) != 0)
        .collect();
    let count = |&h: &usize| {
        let mut keys = vec![state.key()];
        let mut next = *state;
        let info = next.apply_unchecked(rules, h);
        let floor = after_move(rules, &mut next, &info, &mut keys, 0);
        (
            h,
            walk_top(rules, &next, depth - 1, keys, floor, PAR_LEVELS - 1),
        )
    };
    if depth >= PAR_MIN_DEPTH {
        moves.par_iter().map(count).collect()
    } else {
        moves.iter().map(count).collect()
    }
}

/// The top of the tree: splits the children across threads while `levels` remain and the
/// subtree is deep enough, then hands over to the serial [`walk`].
fn walk_top(
    rules: &Rules,
    state: &State,
    depth: u32,
    keys: Vec<PositionKey>,
    floor: usize,
    levels: u32,
) -> u64 {
    if levels == 0 || depth < PAR_MIN_DEPTH {
        let mut keys = keys;
        return walk(rules, state, depth, &mut keys, floor);
    }
    let mask = state.legal_mask(rules);
    (0..rules.houses as usize)
        .into_par_iter()
        .filter(|h| mask & (1 << h) != 0)
        .map(|h| {
            let mut keys = keys.clone();
            let mut next = *state;
            let info = next.apply_unchecked(rules, h);
            let floor = after_move(rules, &mut next, &info, &mut keys, floor);
            walk_top(rules, &next, depth - 1, keys, floor, levels - 1)
        })
        .sum()
}

/// Serial perft below `state`. `keys[floor..]` are the positions of the path since its last
/// capture (the only ones a later position can repeat).
fn walk(
    rules: &Rules,
    state: &State,
    depth: u32,
    keys: &mut Vec<PositionKey>,
    floor: usize,
) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mask = state.legal_mask(rules);
    if depth == 1 {
        // Every legal move reaches exactly one leaf, whatever it leads to.
        return mask.count_ones() as u64;
    }
    let mut total = 0;
    let mut rest = mask;
    while rest != 0 {
        let h = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        let mut next = *state;
        let info = next.apply_unchecked(rules, h);
        let saved = keys.len();
        let child_floor = after_move(rules, &mut next, &info, keys, floor);
        total += walk(rules, &next, depth - 1, keys, child_floor);
        keys.truncate(saved);
    }
    total
}

/// Applies the repetition rule to the position `next` just reached by a move that did `info`,
/// as [`crate::History::record`] does, pushing its key on the path. Returns the new floor of
/// the path (a capture makes every earlier position unreachable).
#[inline]
fn after_move(
    rules: &Rules,
    next: &mut State,
    info: &MoveInfo,
    keys: &mut Vec<PositionKey>,
    floor: usize,
) -> usize {
    let floor = if info.any_captured > 0 {
        keys.len()
    } else {
        floor
    };
    if rules.cycle != CycleRule::Ignore && !matches!(next.status(), Status::Ended(_)) {
        let key = next.key();
        if keys[floor..].contains(&key) {
            next.end_by_repetition(rules);
        } else {
            keys.push(key);
        }
    }
    floor
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Game;

    /// Reference perft through [`Game`] itself (clone and apply), to check the fast one.
    fn slow(game: &Game, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        game.legal_moves()
            .into_iter()
            .map(|m| {
                let mut g = game.clone();
                g.apply(m).unwrap();
                slow(&g, depth - 1)
            })
            .sum()
    }

    #[test]
    fn fast_perft_matches_game_replay() {
        for spec in ["abapa", "awale", "wari", "oware3"] {
            let rules: Rules = spec.parse().unwrap();
            let game = Game::new(rules);
            for depth in 0..=4 {
                assert_eq!(
                    perft(&rules, game.state(), depth),
                    slow(&game, depth),
                    "{spec} depth {depth}"
                );
            }
        }
    }

    #[test]
    fn repetition_inside_the_tree_ends_the_game() {
        // One seed each, nothing can ever be captured: south's seed walks into north's row,
        // north must feed it back, and the start position recurs after 12 plies, where the
        // game must end.
        let rules = Rules::abapa();
        let mut pits = [0u8; 12];
        pits[5] = 1;
        pits[11] = 1;
        let start = State::from_parts(&rules, &pits, &[23, 23], 0, 0).unwrap();
        let game = Game::from_state(rules, start);
        for depth in 0..=14 {
            assert_eq!(
                perft(&rules, &start, depth),
                slow(&game, depth),
                "depth {depth}"
            );
        }
    }
}
