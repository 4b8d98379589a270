//! Perft counts from the start positions of every preset (see `docs/rules.md`, "Perft").
//!
//! The `abapa` counts for depths 1 to 12 were computed independently with OpenSpiel's `oware`
//! (`tests/openspiel/trace.py --perft 12`, clone-and-apply recursion in pyspiel) and agree with
//! ours; the other presets' counts are our engine's only. Debug builds check the depths that take
//! well under a second; release builds (`cargo test --release --test perft`) go deeper. If
//! `AWALE_OPENSPIEL_PYTHON` names a Python with pyspiel, OpenSpiel's perft is also recomputed live.

use awale::perft::{perft, perft_divide};
use awale::{Game, Rules, State};

/// Perft of `abapa` from the start, depths 1..=12, agreed with OpenSpiel's `oware`.
const ABAPA: [u64; 12] = [
    6, 36, 190, 1014, 5219, 27332, 139157, 711414, 3592872, 18137964, 91558687, 460005710,
];

/// Our counts for the multi-player owaré presets, depths 1..=12.
const OWARE2: [u64; 12] = [
    6, 32, 140, 639, 2939, 12834, 51949, 204523, 772233, 2829658, 10137512, 35585401,
];
const OWARE3: [u64; 12] = [
    4, 16, 45, 153, 440, 1259, 3322, 8508, 21324, 53716, 130320, 313265,
];
const OWARE4: [u64; 12] = [3, 9, 20, 47, 94, 209, 409, 810, 1567, 3010, 5657, 10536];
const OWARE6: [u64; 12] = [2, 4, 6, 7, 9, 15, 24, 40, 60, 75, 107, 137];

/// Deepest depth checked: cheap in debug builds, deeper with optimisations.
fn max_depth(debug: u32, release: u32) -> u32 {
    if cfg!(debug_assertions) {
        debug
    } else {
        release
    }
}

fn check(spec: &str, expected: &[u64], debug: u32, release: u32) {
    let rules: Rules = spec.parse().unwrap();
    let start = State::initial(&rules, 0);
    assert_eq!(perft(&rules, &start, 0), 1, "{spec} depth 0");
    for depth in 1..=max_depth(debug, release).min(expected.len() as u32) {
        assert_eq!(
            perft(&rules, &start, depth),
            expected[depth as usize - 1],
            "{spec} perft({depth})"
        );
    }
}

#[test]
fn abapa_matches_openspiel() {
    check("abapa", &ABAPA, 9, 11);
}

#[test]
fn openspiel_preset_has_the_same_tree() {
    // The sweep at the end changes scores, never which moves are legal.
    check("openspiel", &ABAPA, 9, 10);
}

#[test]
fn awale_and_wari_agree_with_abapa_near_the_start() {
    // No grand slam, empty row or repetition can occur this early, so the rule differences of
    // awale (forbidden grand slam, indetermination) and wari (optional feeding) do not show yet.
    check("awale", &ABAPA, 8, 10);
    check("wari", &ABAPA, 9, 10);
}

#[test]
fn oware_presets() {
    check("oware2", &OWARE2, 9, 12);
    check("oware3", &OWARE3, 12, 12);
    check("oware4", &OWARE4, 12, 12);
    check("oware6", &OWARE6, 12, 12);
}

#[test]
fn oware_first_player_is_whoever_the_start_says() {
    // With a random first player the count depends only on the position: player 2 starting
    // an owaré-3 game sees the same tree as player 0 (the board is symmetric).
    let rules = Rules::oware(3).unwrap();
    let start = State::initial(&rules, 2);
    assert_eq!(start.to_move(), 2);
    assert_eq!(perft(&rules, &start, 6), OWARE3[5]);
}

#[test]
fn divide_adds_up_and_matches_each_subtree() {
    for spec in ["abapa", "wari", "oware3"] {
        let rules: Rules = spec.parse().unwrap();
        let start = State::initial(&rules, 0);
        for depth in 1..=6 {
            let divide = perft_divide(&rules, &start, depth);
            assert_eq!(
                divide.iter().map(|&(_, n)| n).sum::<u64>(),
                perft(&rules, &start, depth),
                "{spec} depth {depth}"
            );
            assert_eq!(
                divide.iter().map(|&(h, _)| h).collect::<Vec<_>>(),
                start.legal_moves(&rules),
                "{spec}: one entry per legal move, in house order"
            );
            for &(house, n) in &divide {
                let mut game = Game::new(rules);
                game.apply(house).unwrap();
                assert_eq!(perft(&rules, game.state(), depth - 1), n, "{spec} {house}");
            }
        }
        assert!(perft_divide(&rules, &start, 0).is_empty());
    }
}

#[test]
fn parallel_split_changes_nothing() {
    // Depths from 7 on are split across threads; the divide at depth 8 runs its subtrees at
    // depth 7 (split) and the counts must still add up to the serial depth-by-depth numbers.
    let rules = Rules::abapa();
    let start = State::initial(&rules, 0);
    let divide = perft_divide(&rules, &start, 8);
    assert_eq!(divide.iter().map(|&(_, n)| n).sum::<u64>(), ABAPA[7]);
    // By symmetry of the opening, no first move is special: every one has a subtree.
    assert!(divide.iter().all(|&(_, n)| n > 0));
}

#[test]
fn repetition_ends_count_as_ends() {
    // Two lone seeds that can never capture: the board cycles with period 12 plies, and at the
    // repetition the game ends, so the tree stops growing there.
    let rules = Rules::abapa();
    let mut pits = [0u8; 12];
    pits[0] = 1;
    pits[6] = 1;
    let start = State::from_parts(&rules, &pits, &[23, 23], 0, 0).unwrap();
    // Each side has exactly one move at every ply until the seeds reach the end of a row.
    let mut game = Game::from_state(rules, start);
    let mut plies = 0;
    while !game.is_over() {
        let moves = game.legal_moves();
        assert_eq!(moves.len(), 1, "ply {plies}: {moves:?}");
        game.apply(moves[0]).unwrap();
        plies += 1;
    }
    assert_eq!(
        game.status(),
        awale::Status::Ended(awale::EndReason::Repetition)
    );
    for depth in 0..=plies {
        assert_eq!(perft(&rules, &start, depth), 1, "depth {depth}");
    }
    assert_eq!(perft(&rules, &start, plies + 1), 0);
    assert_eq!(perft(&rules, &start, plies + 5), 0);
}

#[test]
fn openspiel_live_cross_check() {
    let Ok(python) = std::env::var("AWALE_OPENSPIEL_PYTHON") else {
        eprintln!("perft: OpenSpiel cross-check skipped (set AWALE_OPENSPIEL_PYTHON to run it)");
        return;
    };
    let depth = max_depth(7, 9);
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/openspiel/trace.py");
    let out = std::process::Command::new(&python)
        .args([script, "--perft", &depth.to_string()])
        .output()
        .unwrap_or_else(|e| panic!("cannot run {python}: {e}"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs: Vec<u64> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.split_whitespace().nth(1).unwrap().parse().unwrap())
        .collect();
    let rules = Rules::abapa();
    let start = State::initial(&rules, 0);
    let ours: Vec<u64> = (1..=depth).map(|d| perft(&rules, &start, d)).collect();
    assert_eq!(ours, theirs);
    assert_eq!(ours, ABAPA[..depth as usize]);
}
