//! Fuzz target `engine`: the engine API driven by arbitrary move sequences from arbitrary valid
//! positions of every preset (`awale::rules::PRESET_SPECS`).
//!
//! Input: byte 0 picks the preset, byte 1 the player to move, the next bytes share the rules'
//! seeds out over the pits and stores (each byte a weight), and every later byte is a move
//! (its value modulo 17, so houses past the row are tried too). At every ply: the seeds are
//! conserved, a house is legal (in `legal_mask`) if and only if `apply` accepts it, a refused
//! move changes nothing, and the game with repetition history (`Game`) agrees with the bare
//! position (`State`) until the history ends the game.

use awale::rules::PRESET_SPECS;
use awale::{Game, Rules, State};

/// A valid position of `rules` built from `weights` (one per pit, then one per store).
fn position(rules: &Rules, to_move: usize, weights: &[u8]) -> Option<State> {
    let (n, p) = (rules.pits(), rules.players as usize);
    let total = rules.total_seeds();
    let w: Vec<u32> = (0..n + p)
        .map(|i| u32::from(*weights.get(i).unwrap_or(&0)))
        .collect();
    let sum: u32 = w.iter().sum();
    let mut counts: Vec<u32> = if sum == 0 {
        let mut c = vec![0; n + p];
        c[..n].fill(total / n as u32);
        c[0] += total % n as u32;
        c
    } else {
        w.iter().map(|&x| x * total / sum).collect()
    };
    // Rounding down leaves a few seeds: give them to the heaviest pit.
    let left = total - counts.iter().sum::<u32>();
    let heaviest = (0..n + p).max_by_key(|&i| w[i]).unwrap_or(0);
    counts[heaviest] += left;
    if counts.iter().any(|&c| c > 255) {
        return None;
    }
    let bytes: Vec<u8> = counts.iter().map(|&c| c as u8).collect();
    State::from_parts(rules, &bytes[..n], &bytes[n..], to_move % p, 0).ok()
}

/// Checks that `mask` agrees with `apply` on every house 0..16 of `state`.
fn check_mask(rules: &Rules, state: &State) {
    let mask = state.legal_mask(rules);
    for house in 0..16 {
        let mut s = *state;
        let ok = s.apply(rules, house).is_ok();
        assert_eq!(
            ok,
            mask & (1 << house) != 0,
            "house {house}, mask {mask:#b}, {state:?}"
        );
        if !ok {
            assert_eq!(s, *state, "a refused move changed the position");
        } else {
            assert!(s.fits(rules), "seeds not conserved after house {house}");
        }
    }
}

/// Checks one input (see the module docs); panics on a violated property.
pub fn run(data: &[u8]) {
    if data.len() < 2 {
        return;
    }
    let rules: Rules = PRESET_SPECS[data[0] as usize % PRESET_SPECS.len()]
        .parse()
        .expect("presets parse");
    let slots = rules.pits() + rules.players as usize;
    let weights = &data[2..data.len().min(2 + slots)];
    let moves = data.get(2 + slots..).unwrap_or(&[]);
    let Some(start) = position(&rules, data[1] as usize, weights) else {
        return;
    };
    assert!(start.fits(&rules));
    let mut state = start;
    let mut game = Game::from_state(rules, start);
    let mut game_alive = true;
    for &b in moves {
        check_mask(&rules, &state);
        if game_alive {
            assert_eq!(
                game.legal_mask(),
                state.legal_mask(&rules),
                "Game and State disagree"
            );
        }
        let house = usize::from(b) % 17;
        let before = state;
        match state.apply(&rules, house) {
            Ok(_) => assert!(state.fits(&rules), "seeds not conserved"),
            Err(_) => assert_eq!(state, before, "a refused move changed the position"),
        }
        if game_alive {
            let g_before = *game.state();
            match game.apply(house) {
                Ok(_) => {
                    assert!(game.state().fits(&rules));
                    // The history may end the game (repetition); the position is otherwise
                    // the bare engine's.
                    if game.is_over() && !state.is_over() {
                        game_alive = false;
                    } else {
                        assert_eq!(game.state(), &state, "Game and State diverge");
                    }
                }
                Err(_) => assert_eq!(game.state(), &g_before, "a refused move changed the game"),
            }
        }
        if state.is_over() {
            break;
        }
    }
    check_mask(&rules, &state);
}
