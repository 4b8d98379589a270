//! Agents: legal and reproducible play in every preset, the specs, and alpha-beta on hand-made
//! tactical positions checked against an independent exhaustive search.

use awale::agents::alphabeta::{WIN, WIN_BOUND};
use awale::agents::{
    build_agent, parse_agent_list, Agent, AlphaBeta, AlphaBetaSettings, Evaluator, GreedyAgent,
    Mcts, MctsConfig, Turn,
};
use awale::search::Expansion;
use awale::{AwaleError, Game, Rules, State, Status};

/// A position with South (player 0) to move.
fn pos(rules: &Rules, south: [u8; 6], north: [u8; 6], scores: [u8; 2]) -> State {
    let mut pits = south.to_vec();
    pits.extend_from_slice(&north);
    State::from_parts(rules, &pits, &scores, 0, 0).unwrap()
}

/// The value of a finished position for its player to move, as alpha-beta defines it.
fn terminal(s: &State, ply: i32) -> i32 {
    let me = s.to_move();
    let d = s.scores()[me] as i32 - s.scores()[1 - me] as i32;
    match s.status() {
        Status::Ended(_) => match d.signum() {
            1 => WIN - 64 * ply + d,
            -1 => -WIN + 64 * ply + d,
            _ => 0,
        },
        _ => 100 * d,
    }
}

/// Plain minimax to `depth` plies, without pruning, tables or ordering: an independent check.
fn solve(rules: &Rules, s: &State, depth: i32, ply: i32) -> i32 {
    if s.is_over() {
        return terminal(s, ply);
    }
    if depth == 0 {
        return Evaluator::material().evaluate(rules, s);
    }
    let mut best = i32::MIN;
    for h in s.legal_moves(rules) {
        let mut c = *s;
        c.apply_unchecked(rules, h);
        let v = solve(rules, &c, depth - 1, ply + 1);
        best = best.max(if c.to_move() == s.to_move() { v } else { -v });
    }
    best
}

/// Every legal move with its exact minimax value to `depth`.
fn move_values(rules: &Rules, s: &State, depth: i32) -> Vec<(usize, i32)> {
    s.legal_moves(rules)
        .into_iter()
        .map(|h| {
            let mut c = *s;
            c.apply_unchecked(rules, h);
            let v = solve(rules, &c, depth - 1, 1);
            (h, if c.to_move() == s.to_move() { v } else { -v })
        })
        .collect()
}

/// The moves of best value and that value.
fn best_moves(values: &[(usize, i32)]) -> (Vec<usize>, i32) {
    let best = values.iter().map(|v| v.1).max().unwrap();
    (
        values.iter().filter(|v| v.1 == best).map(|v| v.0).collect(),
        best,
    )
}

fn alphabeta(depth: u32) -> AlphaBeta {
    AlphaBeta::new(AlphaBetaSettings {
        depth,
        ..Default::default()
    })
}

/// Plays a game between `specs` (seat `i` gets `specs[i % len]`), each agent reset with a seed
/// derived from `seed`; returns the moves.
fn play(rules: &Rules, specs: &[&str], seed: u64) -> Game {
    let mut game = Game::with_seed(*rules, seed);
    let mut agents: Vec<Box<dyn Agent>> = (0..rules.players as usize)
        .map(|p| build_agent(specs[p % specs.len()], rules).unwrap())
        .collect();
    for (p, a) in agents.iter_mut().enumerate() {
        a.reset(seed * 10 + p as u64);
    }
    while !game.is_over() {
        let mv = agents[game.to_move()]
            .select(&Turn::from_game(&game))
            .unwrap();
        game.apply(mv).expect("agents play legal moves");
    }
    game
}

#[test]
fn every_agent_plays_legal_reproducible_games_in_every_preset() {
    for preset in awale::rules::PRESET_SPECS {
        let rules: Rules = format!("{preset}:max_plies=150").parse().unwrap();
        let mut specs = vec!["random", "greedy", "mcts:sims=24"];
        if rules.players == 2 {
            specs.push("alphabeta:depth=2");
        }
        // Every agent meets every other at least once across the rotations.
        for shift in 0..specs.len() {
            let lineup: Vec<&str> = (0..specs.len())
                .map(|i| specs[(i + shift) % specs.len()])
                .collect();
            let a = play(&rules, &lineup, shift as u64);
            let b = play(&rules, &lineup, shift as u64);
            assert!(a.is_over(), "{preset}");
            assert_eq!(
                a.moves(),
                b.moves(),
                "{preset} {lineup:?}: same seeds, same game"
            );
            let total: u32 = a.scores().iter().sum::<u32>() + a.state().board_seeds(&rules);
            assert_eq!(total, rules.total_seeds());
        }
    }
}

#[test]
fn different_seeds_give_different_random_games() {
    let rules = Rules::abapa();
    let a = play(&rules, &["random"], 1);
    let b = play(&rules, &["random"], 2);
    assert_ne!(a.moves(), b.moves());
}

#[test]
fn alphabeta_is_for_two_players_only() {
    let e = build_agent("alphabeta:depth=3", &Rules::oware(3).unwrap())
        .err()
        .unwrap();
    assert!(matches!(e, AwaleError::BadAgentSpec { .. }));
    assert!(e.to_string().contains("2-player"), "{e}");
    // The relay game for two players is fine.
    assert!(build_agent("alphabeta:depth=3", &Rules::oware(2).unwrap()).is_ok());
    // Asked directly on a 3-player position, it refuses with an error, not a panic.
    let rules = Rules::oware(3).unwrap();
    let game = Game::new(rules);
    assert!(alphabeta(2).select(&Turn::from_game(&game)).is_err());
}

#[test]
fn agent_list_and_spec_errors() {
    let specs =
        parse_agent_list("random, greedy;alphabeta:depth=4,nodes=500 mcts:sims=10,c=0.5").unwrap();
    let texts: Vec<String> = specs.iter().map(|s| s.to_string()).collect();
    assert_eq!(
        texts,
        [
            "random",
            "greedy",
            "alphabeta:depth=4,nodes=500",
            "mcts:sims=10,c=0.5"
        ]
    );
    assert!(parse_agent_list("").is_err());
    assert!(parse_agent_list("depth=3,random").is_err());
    let rules = Rules::abapa();
    for (spec, needle) in [
        ("alphabeta:depth=-1", "depth"),
        ("alphabeta:tt_mb=1000000", "tt_mb"),
        ("mcts:c=abc", "c: 'abc'"),
        ("mcts:sims=", "KEY=VALUE"),
        ("greedy:depth=2", "unknown option 'depth' for greedy"),
        ("neural:path=x.onnx", "unknown agent 'neural'"),
        (":depth=2", "kind is missing"),
    ] {
        let e = build_agent(spec, &rules)
            .err()
            .unwrap_or_else(|| panic!("{spec} should fail"));
        assert!(
            matches!(e, AwaleError::BadAgentSpec { .. }),
            "{spec}: {e:?}"
        );
        assert!(e.to_string().contains(needle), "{spec}: {e}");
    }
    let named = build_agent("greedy:name=gourmand,seed=4", &rules).unwrap();
    assert_eq!(named.name(), "gourmand");
}

/// Forced multi-hole capture. South (21 seeds) to move: F takes a (2+1) at once, which is what
/// greedy plays, but D is the only move that wins: whatever North answers, South's next move
/// captures two holes or more and passes 25.
#[test]
fn alphabeta_finds_the_forced_multi_hole_capture() {
    let rules = Rules::abapa();
    let s = pos(&rules, [0, 0, 0, 2, 4, 1], [2, 1, 0, 1, 0, 0], [21, 16]);
    let values = move_values(&rules, &s, 5);
    let (best, value) = best_moves(&values);
    assert_eq!(best, vec![3], "{values:?}");
    assert!(value > WIN_BOUND);
    // Every North reply to D allows a capture of two or more holes that wins.
    let mut after = s;
    after.apply(&rules, 3).unwrap();
    for reply in after.legal_moves(&rules) {
        let mut t = after;
        t.apply(&rules, reply).unwrap();
        let wins = t.legal_moves(&rules).into_iter().any(|h| {
            let before = *t.pits();
            let mut u = t;
            let info = u.apply(&rules, h).unwrap();
            let holes = (6..12)
                .filter(|&p| before[p] > 0 && u.pits()[p] == 0)
                .count();
            info.captured > 0 && holes >= 2 && u.scores()[0] >= 25
        });
        assert!(wins, "reply {reply}");
    }
    for depth in [3, 4, 6, 8] {
        let r = alphabeta(depth).search(&Turn::new(&rules, &s)).unwrap();
        assert_eq!((r.best, r.value), (3, value), "depth {depth}");
    }
    assert_eq!(
        GreedyAgent::new(0).select(&Turn::new(&rules, &s)).unwrap(),
        5
    );
}

/// A grand slam must not be counted as a gain. South (21) to move, North holds a=1, b=1 only:
/// F (2 seeds) brings both to 2, which would take all of North's seeds, so under the
/// international rules it captures nothing. E takes a (2) and wins; D loses.
#[test]
fn alphabeta_does_not_count_a_grand_slam_as_a_gain() {
    let rules = Rules::abapa();
    let s = pos(&rules, [0, 0, 0, 1, 2, 2], [1, 1, 0, 0, 0, 0], [21, 20]);
    let mut slam = s;
    let info = slam.apply(&rules, 5).unwrap();
    assert!(info.grand_slam && info.captured == 0);
    let values = move_values(&rules, &s, 7);
    let (best, value) = best_moves(&values);
    assert_eq!(best, vec![4], "{values:?}");
    assert!(value > WIN_BOUND);
    let slam_value = values.iter().find(|v| v.0 == 5).unwrap().1;
    assert!(
        slam_value < WIN_BOUND,
        "the grand slam does not win: {values:?}"
    );
    for depth in [2, 4, 7] {
        let r = alphabeta(depth).search(&Turn::new(&rules, &s)).unwrap();
        assert_eq!(r.best, 4, "depth {depth}");
    }
    let r = alphabeta(7).search(&Turn::new(&rules, &s)).unwrap();
    assert_eq!(r.value, value);
    // Where the rules let a grand slam capture everything, F wins at once.
    let capture_all: Rules = "abapa:grand_slam=capture_all".parse().unwrap();
    let s2 = pos(
        &capture_all,
        [0, 0, 0, 1, 2, 2],
        [1, 1, 0, 0, 0, 0],
        [21, 20],
    );
    let r = alphabeta(4).search(&Turn::new(&capture_all, &s2)).unwrap();
    assert_eq!(r.best, 5);
    assert_eq!(r.value, WIN - 64 + (25 - 20));
}

/// A starvation finish (`001`: "gagner les graines restantes en affamant son adversaire").
/// North has one seed, in f, which it must play into South's row. If South keeps every seed
/// out of reach of North's row (A, B or C), South cannot feed North on the next turn and, under
/// the international rules, takes the 7 seeds left: a win. E puts a seed in F, which could feed,
/// and the game goes on. Under Wari's rules the starved player takes the seeds instead (the
/// feeder holding more than 3), so A, B and C lose there and E is the move.
#[test]
fn alphabeta_plays_the_starvation_finish() {
    let south = [3, 2, 1, 0, 1, 0];
    let north = [0, 0, 0, 0, 0, 1];
    let rules = Rules::abapa();
    let s = pos(&rules, south, north, [22, 18]);
    let values = move_values(&rules, &s, 6);
    let (best, value) = best_moves(&values);
    assert_eq!(best, vec![0, 1, 2], "{values:?}");
    assert_eq!(value, WIN - 2 * 64 + (22 + 8 - 18));
    let r = alphabeta(6).search(&Turn::new(&rules, &s)).unwrap();
    assert!(best.contains(&r.best), "{r:?}");
    assert_eq!(r.value, value);
    // Check the finish itself.
    let mut g = Game::from_state(rules, s);
    g.apply(r.best).unwrap();
    g.apply(5).unwrap();
    assert_eq!(g.status(), Status::Ended(awale::EndReason::CannotFeed));
    assert_eq!(g.scores(), vec![30, 18]);

    let wari = Rules::wari();
    let s = pos(&wari, south, north, [22, 18]);
    let values = move_values(&wari, &s, 6);
    let (best, _) = best_moves(&values);
    assert_eq!(best, vec![4], "{values:?}");
    assert_eq!(alphabeta(6).search(&Turn::new(&wari, &s)).unwrap().best, 4);
}

/// The game's history counts: a move that repeats a position seen since the last capture ends
/// the game at once (each player takes his own row), and here that wins sooner than starvation.
#[test]
fn alphabeta_uses_the_history_for_repetitions() {
    let rules = Rules::abapa();
    let s = pos(&rules, [3, 2, 1, 0, 1, 0], [0, 0, 0, 0, 0, 1], [22, 18]);
    let mut after_e = s;
    after_e.apply(&rules, 4).unwrap();
    let history = [after_e.key(), s.key()];
    let turn = Turn {
        rules: &rules,
        state: &s,
        history: &history,
    };
    let r = alphabeta(4).search(&turn).unwrap();
    assert_eq!(r.best, 4);
    // South takes 22 + 7 on his side, North 18 + 1.
    assert_eq!(r.value, WIN - 64 + (29 - 19));
    // Without the history, E is no longer a win at once.
    assert_ne!(alphabeta(4).search(&Turn::new(&rules, &s)).unwrap().best, 4);
    // With the cycle rule off it is an ordinary move again.
    let ignore: Rules = "abapa:cycle=ignore,max_plies=300".parse().unwrap();
    let turn = Turn {
        rules: &ignore,
        state: &s,
        history: &history,
    };
    assert_ne!(alphabeta(4).search(&turn).unwrap().best, 4);
}

#[test]
fn alphabeta_plays_sparse_endgames_to_the_end() {
    // Few seeds far apart: long manoeuvres, repetitions and the ply limit.
    for spec in [
        "abapa",
        "wari",
        "awale",
        "abapa:cycle=ignore,max_plies=120",
        "oware2",
    ] {
        let rules: Rules = spec.parse().unwrap();
        let board = [1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1];
        let s = State::from_parts(&rules, &board, &[22, 22], 0, 0).unwrap();
        let mut g = Game::from_state(rules, s);
        let mut agents = [alphabeta(5), alphabeta(3)];
        while !g.is_over() && g.moves().len() < 1000 {
            let mv = agents[g.to_move()].select(&Turn::from_game(&g)).unwrap();
            g.apply(mv).unwrap();
        }
        assert!(g.is_over(), "{spec}");
    }
}

#[test]
fn search_limits_are_respected() {
    let rules = Rules::abapa();
    let s = State::initial(&rules, 0);
    let turn = Turn::new(&rules, &s);
    let mut ab = AlphaBeta::new(AlphaBetaSettings {
        depth: 30,
        nodes: 5_000,
        ..Default::default()
    });
    let r = ab.search(&turn).unwrap();
    assert!(
        r.depth >= 1 && r.depth < 30 && r.nodes <= 5_000 + 1_100,
        "{r:?}"
    );
    // A node limit is reproducible.
    let again = AlphaBeta::new(*ab.settings()).search(&turn).unwrap();
    assert_eq!(
        (r.best, r.value, r.depth, r.nodes),
        (again.best, again.value, again.depth, again.nodes)
    );
    // A tiny move time still returns a legal move (depth 1 always completes).
    let mut quick = AlphaBeta::new(AlphaBetaSettings {
        depth: 40,
        move_time_ms: 1,
        ..Default::default()
    });
    let r = quick.search(&turn).unwrap();
    assert!(s.legal_mask(&rules) & (1 << r.best) != 0 && r.depth >= 1);
    let mut m = Mcts::new(
        MctsConfig {
            sims: 1_000_000,
            move_time_ms: 1,
            ..Default::default()
        },
        0,
    );
    let r = m.search(&turn).unwrap();
    assert!(r.sims < 1_000_000 && s.legal_mask(&rules) & (1 << r.best) != 0);
}

#[test]
fn agents_refuse_a_finished_game() {
    let rules = Rules::abapa();
    let s = State::from_parts(&rules, &[0; 12], &[25, 23], 0, 0).unwrap();
    assert!(s.is_over());
    for spec in ["random", "greedy", "alphabeta:depth=2", "mcts:sims=5"] {
        let e = build_agent(spec, &rules)
            .unwrap()
            .select(&Turn::new(&rules, &s))
            .unwrap_err();
        assert!(matches!(e, AwaleError::AgentFailed { .. }), "{spec}: {e:?}");
    }
}

#[test]
fn mcts_finds_wins_in_two_and_three_player_games() {
    // The grand-slam position under capture_all: F wins at once.
    let rules: Rules = "abapa:grand_slam=capture_all".parse().unwrap();
    let s = pos(&rules, [0, 0, 0, 1, 2, 2], [1, 1, 0, 0, 0, 0], [21, 20]);
    let mut m = Mcts::new(
        MctsConfig {
            sims: 400,
            ..Default::default()
        },
        5,
    );
    let r = m.search(&Turn::new(&rules, &s)).unwrap();
    assert_eq!(r.best, 5, "{r:?}");
    // Three-player owaré: player 0 can bring a hole to 4 and end the game in the lead.
    let rules = Rules::oware(3).unwrap();
    let pits = [0, 0, 1, 1, 3, 0, 0, 0, 1, 0, 0, 1];
    let s = State::from_parts(&rules, &pits, &[15, 14, 12], 0, 0).unwrap();
    assert_eq!(s.legal_moves(&rules).len(), 2);
    let win = s
        .legal_moves(&rules)
        .into_iter()
        .find(|&h| {
            let mut t = s;
            t.apply(&rules, h).unwrap();
            t.is_over() && t.winners(&rules) == vec![0]
        })
        .expect("the position has a winning move");
    let r = m.search(&Turn::new(&rules, &s)).unwrap();
    assert_eq!(r.best, win, "{r:?}");
}

#[test]
fn both_mcts_expansions_find_the_same_wins() {
    let rules: Rules = "abapa:grand_slam=capture_all".parse().unwrap();
    let s = pos(&rules, [0, 0, 0, 1, 2, 2], [1, 1, 0, 0, 0, 0], [21, 20]);
    let doc = State::from_parts(
        &Rules::abapa(),
        &[1, 0, 0, 0, 0, 2, 1, 2, 5, 0, 0, 0],
        &[20, 17],
        0,
        0,
    )
    .unwrap();
    for expansion in [Expansion::Child, Expansion::Node] {
        let cfg = MctsConfig {
            sims: 400,
            expansion,
            ..Default::default()
        };
        let r = Mcts::new(cfg, 5).search(&Turn::new(&rules, &s)).unwrap();
        assert_eq!(r.best, 5, "{expansion:?}: {r:?}");
        let r = Mcts::new(cfg, 1)
            .search(&Turn::new(&Rules::abapa(), &doc))
            .unwrap();
        assert_eq!(r.best, 5, "{expansion:?}: {r:?}");
        // Every simulation is a visit of one root child.
        assert_eq!(r.children.iter().map(|c| c.1).sum::<u32>(), r.sims);
        assert_eq!(r.sims, 400);
    }
    // The spec reaches the tree.
    let a = build_agent("mcts:sims=300,expand=child", &rules).unwrap();
    assert!(a.name().contains("expand=child"));
    // Two nodes a simulation, against one, and the root.
    let node = build_agent("mcts:sims=300", &rules).unwrap();
    assert_eq!(a.memory_bytes(&rules), 2 * node.memory_bytes(&rules) - 284);
    let e = build_agent("mcts:expand=oak", &rules).err().unwrap();
    assert!(
        e.to_string().contains("not an expansion (node, child)"),
        "{e}"
    );
}

#[test]
fn the_guided_mcts_is_reproducible_and_keeps_to_its_time() {
    let rules = Rules::oware(4).unwrap();
    let game = Game::with_seed(rules, 2);
    let cfg = MctsConfig {
        sims: 300,
        ..Default::default()
    };
    let a = Mcts::new(cfg, 9).search(&Turn::from_game(&game)).unwrap();
    let b = Mcts::new(cfg, 9).search(&Turn::from_game(&game)).unwrap();
    assert_eq!((a.best, &a.children), (b.best, &b.children));
    // A move-time cap binds, checked before each simulation (a loose bound: a shared machine).
    let rules: Rules = "abapa:capture=200-200,cycle=ignore,max_plies=4000000000"
        .parse()
        .unwrap();
    let mut m = Mcts::new(
        MctsConfig {
            sims: u32::MAX,
            move_time_ms: 50,
            playout_plies: 100_000,
            ..Default::default()
        },
        0,
    );
    let s = State::initial(&rules, 0);
    let t = std::time::Instant::now();
    let r = m.search(&Turn::new(&rules, &s)).unwrap();
    assert!(r.sims >= 1);
    assert!(
        t.elapsed() < std::time::Duration::from_millis(1000),
        "{:?}",
        t.elapsed()
    );
}

/// Speed figures (provisional; machine-dependent): alpha-beta nodes per second, MCTS
/// simulations per second. Run with
/// `cargo test --release --test agents -- --ignored --nocapture speed`.
#[test]
#[ignore]
fn speed_figures() {
    let rules = Rules::abapa();
    let mut positions = vec![State::initial(&rules, 0)];
    let mut g = Game::new(rules);
    let mut a = build_agent("random", &rules).unwrap();
    a.reset(3);
    while !g.is_over() && g.moves().len() < 30 {
        let mv = a.select(&Turn::from_game(&g)).unwrap();
        g.apply(mv).unwrap();
        if g.moves().len().is_multiple_of(10) {
            positions.push(*g.state());
        }
    }
    for eval in ["material", "strategic"] {
        let (mut nodes, mut secs) = (0u64, 0f64);
        for s in &positions {
            let mut ab = AlphaBeta::new(AlphaBetaSettings {
                depth: 12,
                eval: Evaluator::named(eval).unwrap(),
                ..Default::default()
            });
            let r = ab.search(&Turn::new(&rules, s)).unwrap();
            nodes += r.nodes;
            secs += r.elapsed.as_secs_f64();
        }
        println!(
            "alphabeta depth 12, eval {eval}: {nodes} nodes in {secs:.2} s = {:.2} M nodes/s",
            nodes as f64 / secs / 1e6
        );
    }
    for (preset, expansion) in [
        ("abapa", Expansion::Child),
        ("abapa", Expansion::Node),
        ("oware3", Expansion::Child),
        ("oware3", Expansion::Node),
    ] {
        let rules: Rules = preset.parse().unwrap();
        let s = State::initial(&rules, 0);
        let mut m = Mcts::new(
            MctsConfig {
                sims: 20_000,
                expansion,
                ..Default::default()
            },
            1,
        );
        let r = m.search(&Turn::new(&rules, &s)).unwrap();
        println!(
            "mcts {preset} (expand={}): {} simulations in {:.2} s = {:.0} sims/s",
            expansion.name(),
            r.sims,
            r.elapsed.as_secs_f64(),
            r.sims as f64 / r.elapsed.as_secs_f64()
        );
    }
}

/// Plain minimax to the end of the game, with the repetition window (the positions since the
/// last capture, the game's included), no pruning and no tables: the reference for the
/// transposition-table checks below. The tree must be finite (a ply limit close enough).
fn solve_with_window(rules: &Rules, s: &State, window: &[awale::PositionKey], ply: i32) -> i32 {
    if s.is_over() {
        return terminal(s, ply);
    }
    let mask = s.legal_mask(rules);
    let mut best = i32::MIN;
    for h in (0..rules.houses as usize).filter(|h| mask & (1 << h) != 0) {
        let mut c = *s;
        let info = c.apply_unchecked(rules, h);
        let mut next: Vec<awale::PositionKey> = if info.any_captured > 0 {
            Vec::new()
        } else {
            window.to_vec()
        };
        if info.any_captured == 0 && !c.is_over() && window.contains(&c.key()) {
            c.end_by_repetition(rules);
        }
        next.push(c.key());
        let v = if c.to_move() == s.to_move() {
            solve_with_window(rules, &c, &next, ply + 1)
        } else {
            -solve_with_window(rules, &c, &next, ply + 1)
        };
        best = best.max(v);
    }
    best
}

/// The transposition table keeps the ply limit and the repetition window apart: on small
/// positions a few plies from the limit, with and without a history of capture-free moves,
/// alpha-beta with its table, without it, and plain minimax give the same value. (Before the
/// table keyed entries by them, a value found at one distance from the limit, or next to a
/// repetition on the path, was reused at another: this test found 10 wrong values.)
#[test]
fn transposition_table_respects_ply_limit_and_repetitions() {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    let mut checked = [0usize; 2];
    for spec in [
        "abapa:max_plies=42",
        "abapa:cycle=split,max_plies=42",
        "wari:max_plies=42",
    ] {
        let rules: Rules = spec.parse().unwrap();
        for _ in 0..100 {
            // 4 to 7 seeds spread over the board, stores just under the threshold.
            let mut pits = [0u8; 12];
            for _ in 0..4 + next(4) {
                pits[next(12) as usize] += 1;
            }
            let board: u8 = pits.iter().sum();
            let south = 24 - next(3) as u8;
            let scores = [south, 48 - board - south];
            if scores[1] >= 25 {
                continue;
            }
            let start = match State::from_parts(&rules, &pits, &scores, next(2) as usize, 30) {
                Ok(s) if !s.is_over() => s,
                _ => continue,
            };
            // Some capture-free history first, so that the window is not empty.
            let mut g = Game::from_state(rules, start);
            for _ in 0..next(4) {
                let moves = g.legal_moves();
                if g.is_over() || moves.is_empty() {
                    break;
                }
                let m = moves[next(moves.len() as u64) as usize];
                g.apply(m).unwrap();
            }
            if g.is_over() || g.legal_moves().len() < 2 {
                continue;
            }
            let turn = Turn::from_game(&g);
            let left = (rules.max_plies - g.state().ply()) as i32;
            let exact = solve_with_window(&rules, g.state(), g.history().keys(), 0);
            let cfg = AlphaBetaSettings {
                depth: left as u32 + 2,
                tt_mb: 1,
                eval: Evaluator::material(),
                ..Default::default()
            };
            let with_tt = AlphaBeta::new(cfg).search(&turn).unwrap().value;
            let no_tt = AlphaBeta::new(AlphaBetaSettings { tt_mb: 0, ..cfg })
                .search(&turn)
                .unwrap()
                .value;
            assert_eq!(no_tt, exact, "{spec} {:?}", g.state());
            assert_eq!(with_tt, exact, "{spec} {:?}", g.state());
            checked[usize::from(g.history().len() > 1)] += 1;
        }
    }
    assert!(checked[0] > 10 && checked[1] > 10, "{checked:?}");
}

/// Each kind declares its options once: every listed option has help and a default, and the
/// default it shows, written in a spec, gives the settings of a spec without options.
#[test]
fn agent_options_come_from_one_declaration_per_kind() {
    use awale::agents::{alphabeta, mcts, perfect, AgentKind, AgentSpec};
    fn defaults_read_back<S: PartialEq + std::fmt::Debug>(kind: &'static AgentKind<S>) {
        let defaults = (kind.defaults)();
        let bare: AgentSpec = kind.kind.parse().unwrap();
        assert_eq!(kind.settings(&bare).unwrap(), defaults);
        for option in kind.options {
            assert!(!option.help.is_empty(), "{}:{}", kind.kind, option.key);
            if let Some(v) = (option.show)(&defaults) {
                let spec: AgentSpec = format!("{}:{}={v}", kind.kind, option.key).parse().unwrap();
                assert_eq!(kind.settings(&spec).unwrap(), defaults, "{spec}");
            }
        }
    }
    defaults_read_back(&alphabeta::KIND);
    defaults_read_back(&mcts::KIND);
    defaults_read_back(&perfect::KIND);
    let registry = awale::agents::Registry::builtin();
    for entry in registry.entries() {
        for (key, help) in &entry.options {
            assert!(help.contains("(default"), "{}:{key}: {help}", entry.kind);
        }
    }
    let help = registry.help();
    for line in [
        "deepest iteration in plies (default 6)",
        "transposition table size in MiB, 0 = off (default 16)",
        "strategic (stores, greniers, potential, threats) or material (default strategic)",
        "folder of endgame tables to probe at positions they cover (default: none)",
        "folder of the tables (default tablebases)",
        "exploration constant (default 1.4)",
        "longest playout before adjudication by stores (default 300)",
    ] {
        assert!(help.contains(line), "{help}");
    }
    // Options apply in the kind's order whatever the spec's: the weights replace the chosen
    // evaluation's even when written before it.
    let spec: AgentSpec = "alphabeta:w_store=5,eval=material".parse().unwrap();
    let settings = alphabeta::KIND.settings(&spec).unwrap();
    assert_eq!(settings.search.eval.store, 5);
    assert_eq!(settings.search.eval.board, 0);
}

/// Each kind's plan says the memory its agent holds before the agent is built: never less than
/// what the agent built says of itself ([`Agent::memory_bytes`]), and for the searches of a tree
/// or a network exactly that; the costs it declares come from its options, every default
/// resolved.
#[test]
fn a_kinds_plan_knows_its_agents_memory_and_costs() {
    use awale::agents::{AgentSpec, Cost};
    let registry = awale::agent_kinds::available();
    let rules = Rules::abapa();
    let mut specs = vec![
        ("random", true),
        ("greedy", true),
        ("alphabeta", false),
        ("alphabeta:tt_mb=0,depth=3", false),
        ("alphabeta:tt_mb=3", false),
        ("mcts:sims=700", true),
        ("mcts:sims=50,expand=child", true),
    ];
    if cfg!(feature = "train") {
        specs.extend([
            ("nn:baseline=abapa,sims=40", true),
            ("nn:baseline=abapa-v1", true),
        ]);
    }
    for (text, exact) in specs {
        let spec: AgentSpec = text.parse().unwrap();
        let plan = registry.plan(&spec).unwrap();
        let agent = (plan.factory())(&spec, &rules).unwrap();
        let built = agent.memory_bytes(&rules);
        assert!(
            plan.memory_bytes >= built,
            "{text}: {} < {built}",
            plan.memory_bytes
        );
        if exact {
            assert_eq!(plan.memory_bytes, built, "{text}");
        }
        assert_eq!(
            plan.instant,
            matches!(spec.kind.as_str(), "random" | "greedy"),
            "{text}"
        );
    }
    // A baseline's simulations are resolved by the plan (its manifest's play settings).
    if cfg!(feature = "train") {
        let plan = registry
            .plan(&"nn:baseline=abapa-v1".parse().unwrap())
            .unwrap();
        let sims = plan.demand(Cost::Simulations).unwrap();
        assert!(!sims.given && sims.amount.unwrap() > 64, "{sims:?}");
    }
    let plan = registry
        .plan(&"alphabeta:tt_mb=3".parse().unwrap())
        .unwrap();
    assert_eq!(plan.memory_bytes, 3 << 20);
    assert_eq!(plan.demand(Cost::Depth).unwrap().amount, Some(6));
    assert!(!plan.uses_tables());
    // Only the kind that runs programs says so.
    for entry in registry.entries() {
        assert_eq!(
            entry.runs_programs(),
            entry.kind == "engine",
            "{}",
            entry.kind
        );
    }
}
