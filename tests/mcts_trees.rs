//! The `mcts` agent's classic tree (`tree=classic`) against results computed with the agent's
//! code before the guided tree replaced it (commit 1d76ab2), on positions with a repetition
//! window (`Turn::from_game`) in three presets.

use awale::agents::{build_agent, Mcts, MctsConfig, MctsTree, Turn};
use awale::{Game, Rules};

/// The fixed searches: (preset, random plies from the start, seed, simulations).
const CASES: [(&str, usize, u64, u32); 5] = [
    ("abapa", 0, 1, 300),
    ("abapa", 24, 2, 500),
    ("oware3", 0, 9, 200),
    ("oware3", 17, 4, 300),
    ("awale", 31, 5, 400),
];

/// A game of `plies` random moves (the random agent seeded with `seed`).
fn game(preset: &str, plies: usize, seed: u64) -> Game {
    let rules: Rules = preset.parse().unwrap();
    let mut g = Game::with_seed(rules, seed);
    let mut a = build_agent("random", &rules).unwrap();
    a.reset(seed);
    while !g.is_over() && g.moves().len() < plies {
        let mv = a.select(&Turn::from_game(&g)).unwrap();
        g.apply(mv).unwrap();
    }
    assert!(!g.is_over());
    g
}

#[test]
fn the_classic_tree_plays_as_the_old_mcts_agent() {
    // (best, sims, children) of the old `Mcts::search`, printed by it at commit 1d76ab2.
    type Old = (usize, u32, Vec<(usize, u32, f32)>);
    let old: [Old; 5] = [
        (
            2,
            300,
            vec![
                (0, 37, -0.10810811),
                (1, 34, -0.14705883),
                (2, 104, 0.10576923),
                (3, 41, -0.09756097),
                (4, 42, 0.11904762),
                (5, 42, -0.0952381),
            ],
        ),
        (
            4,
            500,
            vec![(3, 153, -1.0), (4, 180, -0.9777778), (5, 167, -0.98802394)],
        ),
        (
            0,
            200,
            vec![
                (0, 72, -0.33333334),
                (1, 60, -0.36666667),
                (2, 27, -0.5925926),
                (3, 41, -0.46341464),
            ],
        ),
        (
            0,
            300,
            vec![
                (0, 114, -0.5350877),
                (1, 82, -0.6097561),
                (3, 104, -0.5673077),
            ],
        ),
        (
            4,
            400,
            vec![
                (0, 122, 0.04918033),
                (2, 60, 0.033333335),
                (4, 218, 0.12844037),
            ],
        ),
    ];
    for ((preset, plies, seed, sims), want) in CASES.into_iter().zip(old) {
        let g = game(preset, plies, seed);
        let cfg = MctsConfig {
            sims,
            tree: MctsTree::Classic,
            ..Default::default()
        };
        let r = Mcts::new(cfg, seed).search(&Turn::from_game(&g)).unwrap();
        assert_eq!(
            (r.best, r.sims, r.children),
            want,
            "{preset} after {plies} plies"
        );
        // The spec reaches the same tree; `reset` reseeds it.
        let mut agent = build_agent(&format!("mcts:sims={sims},tree=classic"), g.rules()).unwrap();
        agent.reset(seed);
        let _ = agent.select(&Turn::from_game(&g)).unwrap();
        agent.reset(seed);
        assert_eq!(
            agent.select(&Turn::from_game(&g)).unwrap(),
            want.0,
            "{preset}"
        );
    }
}

#[test]
fn the_guided_tree_is_reproducible_on_the_same_positions() {
    for (preset, plies, seed, sims) in CASES {
        let g = game(preset, plies, seed);
        let cfg = MctsConfig {
            sims,
            ..Default::default()
        };
        let a = Mcts::new(cfg, seed).search(&Turn::from_game(&g)).unwrap();
        let b = Mcts::new(cfg, seed).search(&Turn::from_game(&g)).unwrap();
        assert_eq!(
            (a.best, a.sims, &a.children),
            (b.best, b.sims, &b.children),
            "{preset}"
        );
        assert_eq!(a.sims, sims);
        assert_eq!(
            a.children.iter().map(|c| c.1).sum::<u32>(),
            sims,
            "{preset}"
        );
        assert!(
            a.children.iter().all(|c| (-1.0..=1.0).contains(&c.2)),
            "{a:?}"
        );
        let legal = g.state().legal_mask(g.rules());
        assert!(legal >> a.best & 1 == 1);
    }
}

/// A random game of `preset` (seeded with `seed`) played on until at most `seeds` seeds are left
/// on the board with a choice of move.
fn endgame(preset: &str, seed: u64, seeds: u32) -> Game {
    let rules: Rules = preset.parse().unwrap();
    let mut g = Game::with_seed(rules, seed);
    let mut a = build_agent("random", &rules).unwrap();
    a.reset(seed);
    loop {
        let s = g.state();
        if s.is_over() || s.board_seeds(&rules) <= seeds && s.legal_mask(&rules).count_ones() >= 2 {
            break;
        }
        let mv = a.select(&Turn::from_game(&g)).unwrap();
        g.apply(mv).unwrap();
    }
    assert!(!g.is_over());
    g
}

#[test]
fn the_guided_tree_keeps_to_its_time_in_a_solved_endgame() {
    // Simulations that end in a finished game inside the tree run in `Search::next_leaf`
    // without a leaf for the playouts. Both of South's moves here capture 2 and reach 25: a tree
    // of two finished games, where every simulation after the root's is one of those. Before the
    // clock was read before each simulation, `sims=1000000000,time_ms=50` ran all of them (53 s
    // on the 2-core dev machine, 2026-11-26).
    let rules = Rules::abapa();
    let pits = [0, 0, 0, 0, 2, 1, 1, 0, 0, 0, 0, 1];
    let s = awale::State::from_parts(&rules, &pits, &[23, 20], 0, 0).unwrap();
    assert_eq!(s.legal_mask(&rules), 0b110000);
    for h in [4, 5] {
        let mut t = s;
        t.apply(&rules, h).unwrap();
        assert!(t.is_over() && t.scores()[0] == 25);
    }
    let short = Game::from_state(rules, s);
    // A 3-player endgame that the tree all but solves: new leaves grow rare (before: 0.3 to
    // 0.5 s for `time_ms=50`).
    let long = endgame("oware3", 8, 12);
    for (g, tree) in [
        (&short, MctsTree::Guided),
        (&short, MctsTree::Classic),
        (&long, MctsTree::Guided),
        (&long, MctsTree::Classic),
    ] {
        let cfg = MctsConfig {
            sims: 1_000_000_000,
            time_ms: 50,
            tree,
            ..Default::default()
        };
        let r = Mcts::new(cfg, 8).search(&Turn::from_game(g)).unwrap();
        assert!(r.sims > 1_000 && r.sims < 1_000_000_000, "{tree:?}: {r:?}");
        assert!(
            r.elapsed.as_millis() < 500,
            "{tree:?}: {} sims in {:?}",
            r.sims,
            r.elapsed
        );
    }
}

#[test]
fn a_clock_that_does_not_run_out_changes_nothing() {
    // Against a clock the guided search runs one simulation per step; the tree is the same.
    for (preset, plies, seed, sims) in CASES {
        let g = game(preset, plies, seed);
        let plain = MctsConfig {
            sims,
            ..Default::default()
        };
        let clocked = MctsConfig {
            time_ms: 3_600_000,
            ..plain
        };
        let a = Mcts::new(plain, seed).search(&Turn::from_game(&g)).unwrap();
        let b = Mcts::new(clocked, seed)
            .search(&Turn::from_game(&g))
            .unwrap();
        assert_eq!(
            (a.best, a.sims, a.children),
            (b.best, b.sims, b.children),
            "{preset}"
        );
    }
    let g = endgame("oware3", 8, 12);
    let plain = MctsConfig {
        sims: 20_000,
        ..Default::default()
    };
    let clocked = MctsConfig {
        time_ms: 3_600_000,
        ..plain
    };
    let a = Mcts::new(plain, 8).search(&Turn::from_game(&g)).unwrap();
    let b = Mcts::new(clocked, 8).search(&Turn::from_game(&g)).unwrap();
    assert_eq!((a.best, a.sims, a.children), (b.best, b.sims, b.children));
}
