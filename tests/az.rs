//! Search and self-play without burn (no `train` feature): parallel self-play is reproducible
//! for a given thread count, resumes exactly from its encoding, and the network trait works with
//! hand-written networks.

use awale::az::config::TableSamples;
use awale::az::data::{ByteReader, ByteWriter, ReplayBuffer};
use awale::az::network::{NetworkEvaluator, UniformNetwork};
use awale::az::selfplay::{SelfPlay, SelfPlaySettings, SelfPlayStats};
use awale::az::TrainConfig;
use awale::search::{LeafEvaluator, UniformEvaluator};
use awale::Rules;
use hand_networks::SeedCounter;

mod hand_networks;

fn settings(seed: u64) -> SelfPlaySettings {
    let mut cfg = TrainConfig::tiny();
    cfg.seed = seed;
    cfg.search.sims = 12;
    cfg.search.fast_sims = 4;
    let mut s = SelfPlaySettings::from_config(&cfg);
    s.seed = seed;
    s
}

/// Plays `calls` calls of `positions` positions each with `threads` shards.
fn play(threads: usize, calls: usize, positions: usize) -> (SelfPlay, ReplayBuffer, SelfPlayStats) {
    let rules = Rules::abapa();
    let net = SeedCounter(rules);
    let mut sp = SelfPlay::with_threads(rules, settings(5), 12, threads);
    let mut buf = ReplayBuffer::new(10_000);
    let mut stats = SelfPlayStats::default();
    for _ in 0..calls {
        stats.merge(&sp.run(|| NetworkEvaluator::new(&net), positions, &mut buf));
    }
    (sp, buf, stats)
}

fn encoded(sp: &SelfPlay) -> Vec<u8> {
    let mut w = ByteWriter::new();
    sp.encode(&mut w);
    w.buf
}

#[test]
fn two_threads_reproduce_themselves_bit_for_bit() {
    let (a, buf_a, stats_a) = play(2, 3, 60);
    let (b, buf_b, stats_b) = play(2, 3, 60);
    assert_eq!(a.threads(), 2);
    assert!(stats_a.games > 0 && stats_a.positions >= 180, "{stats_a:?}");
    assert_eq!(stats_a, stats_b);
    assert_eq!(buf_a, buf_b);
    assert_eq!(encoded(&a), encoded(&b));
    // Each shard's batch is its share of the games.
    assert_eq!(stats_a.max_batch, 6);
}

#[test]
fn every_thread_count_plays_valid_games_of_its_own() {
    let rules = Rules::abapa();
    let mut seen = Vec::new();
    for t in [1, 2, 3, 5] {
        let (sp, buf, stats) = play(t, 2, 40);
        assert_eq!(sp.threads(), t);
        assert!(stats.positions >= 80, "{t} threads: {stats:?}");
        assert!(buf.len() as u64 == stats.positions);
        for i in 0..buf.len() {
            let s = buf.get(i);
            assert!(s.state.fits(&rules));
            let total: f32 = s.policy[..6].iter().sum();
            assert!((total - 1.0).abs() < 1e-4, "policy sums to {total}");
            assert!(s.value[0].abs() <= 1.0 && s.score.abs() <= 1.0);
        }
        seen.push(encoded(&sp));
    }
    // Another thread count deals other games: the runs differ.
    assert_ne!(seen[0], seen[1]);
}

#[test]
fn more_threads_than_games_are_capped() {
    let rules = Rules::abapa();
    let sp = SelfPlay::with_threads(rules, settings(1), 3, 8);
    assert_eq!(sp.threads(), 3);
    let sp = SelfPlay::with_threads(rules, settings(1), 3, 0);
    assert_eq!(sp.threads(), 1);
}

#[test]
fn a_decoded_self_play_continues_exactly() {
    let rules = Rules::abapa();
    let net = SeedCounter(rules);
    // Uninterrupted: 4 calls with 3 threads.
    let (full, buf_full, _) = play(3, 4, 30);
    // Interrupted after 2 calls: encode, decode into a fresh set made with 1 thread (the
    // encoding's shards win), go on.
    let (half, mut buf, _) = play(3, 2, 30);
    let bytes = encoded(&half);
    assert_eq!(SelfPlay::encoded_threads(&bytes), Some(3));
    let mut resumed = SelfPlay::with_threads(rules, settings(5), 12, 1);
    resumed.decode(&mut ByteReader::new(&bytes)).unwrap();
    assert_eq!(resumed.threads(), 3);
    assert_eq!(resumed.games_started(), half.games_started());
    for _ in 0..2 {
        resumed.run(|| NetworkEvaluator::new(&net), 30, &mut buf);
    }
    assert_eq!(buf, buf_full);
    assert_eq!(encoded(&resumed), encoded(&full));
}

#[test]
fn bad_encodings_are_refused_with_a_reason() {
    let rules = Rules::abapa();
    let (sp, _, _) = play(2, 1, 20);
    let bytes = encoded(&sp);
    let fresh = || SelfPlay::with_threads(rules, settings(5), 12, 2);
    // Cut off anywhere.
    for cut in [0, 8, 16, bytes.len() / 2, bytes.len() - 1] {
        assert!(
            fresh().decode(&mut ByteReader::new(&bytes[..cut])).is_err(),
            "cut at {cut}"
        );
    }
    // Another number of games.
    let mut other = SelfPlay::with_threads(rules, settings(5), 10, 2);
    let err = other.decode(&mut ByteReader::new(&bytes)).unwrap_err();
    assert!(err.to_string().contains("games in progress"), "{err}");
    // Zero shards.
    let mut zero = ByteWriter::new();
    zero.u64(u64::MAX);
    zero.u64(0);
    assert!(fresh().decode(&mut ByteReader::new(&zero.buf)).is_err());
    let one = SelfPlay::with_threads(rules, settings(5), 12, 1);
    let single = encoded(&one);
    // A single-shard (0.1.0) encoding is read as one shard.
    assert_eq!(SelfPlay::encoded_threads(&single), Some(1));
    let mut legacy = fresh();
    legacy.decode(&mut ByteReader::new(&single)).unwrap();
    assert_eq!(legacy.threads(), 1);
}

#[test]
fn uniform_network_and_uniform_evaluator_agree() {
    let rules = Rules::oware(3).unwrap();
    let net = UniformNetwork { rules };
    let states: Vec<_> = (0..3).map(|p| awale::State::initial(&rules, p)).collect();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    NetworkEvaluator::new(&net).evaluate(&states, &mut a);
    UniformEvaluator.evaluate(&states, &mut b);
    assert_eq!(a, b);
}

#[test]
fn self_play_runs_with_a_plain_evaluator_factory() {
    let rules = Rules::wari();
    let mut sp = SelfPlay::with_threads(rules, settings(9), 4, 2);
    let mut buf = ReplayBuffer::new(100);
    let stats = sp.run(|| UniformEvaluator, 10, &mut buf);
    assert!(stats.positions >= 10 && buf.len() >= 10);
    assert!((stats.mean_batch() - 2.0).abs() < 1e-9, "{stats:?}");
}

#[test]
fn every_shipped_training_config_is_valid() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("training");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            let cfg = TrainConfig::from_file(&path).unwrap();
            cfg.validate()
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(cfg.selfplay.resolved_threads() >= 1);
            n += 1;
        }
    }
    assert!(n >= 7, "{n} configs");
}

#[test]
fn threads_are_a_validated_config_key() {
    let mut cfg = TrainConfig::tiny();
    cfg.set("selfplay.threads=3").unwrap();
    assert_eq!(cfg.selfplay.threads, 3);
    assert_eq!(cfg.selfplay.resolved_threads(), 3);
    assert!(cfg.set("selfplay.threads=100000").is_err());
    // The thread count is not part of the fingerprint: a run may resume on another machine.
    assert_eq!(cfg.fingerprint(), TrainConfig::tiny().fingerprint());
}

/// A small board (4 houses, 3 seeds each: 24 seeds) whose tables of 10 seeds build at once.
fn small_board_tables(seeds: usize) -> (Rules, std::sync::Arc<awale::tablebase::Tablebase>) {
    let rules: Rules = "abapa:houses=4,seeds=3,win=13".parse().unwrap();
    let table = awale::tablebase::Tablebase::build(&rules, seeds, 1, &|_| {}).unwrap();
    (rules, std::sync::Arc::new(table))
}

/// Plays self-play games on the small board with tables of 10 seeds adding `samples`, and
/// checks every game the tables ended: no move was searched in the tables, every sample has the
/// exact result of the entry position as its value, and the samples in the tables have the
/// tables' best moves as their policy. Returns the games the tables ended and the fewest seeds
/// on the board of a sample.
fn check_table_games(samples: TableSamples) -> (usize, usize) {
    use awale::az::selfplay_tables::SelfPlayTables;
    let (rules, table) = small_board_tables(10);
    let mut s = settings(3);
    s.full_search_prob = 1.0;
    s.endgame = Some(SelfPlayTables::new(table.clone(), 10, samples, &rules).unwrap());
    // One game at a time: the buffer holds the games one after the other.
    let mut sp = SelfPlay::with_threads(rules, s, 1, 1);
    let mut buf = ReplayBuffer::new(100_000);
    let net = SeedCounter(rules);
    let stats = sp.run(|| NetworkEvaluator::new(&net), 600, &mut buf);
    assert!(stats.games >= 5, "{stats:?}");
    assert!(stats.tablebase_ends >= 1, "{stats:?}");
    let all: Vec<_> = (0..buf.len()).map(|i| *buf.get(i)).collect();
    // Games are split where the ply stops growing.
    let mut games: Vec<Vec<awale::az::data::Sample>> = Vec::new();
    for x in all {
        match games.last_mut() {
            Some(g) if g.last().unwrap().state.ply() < x.state.ply() => g.push(x),
            _ => games.push(vec![x]),
        }
    }
    let (mut entered, mut fewest) = (0, usize::MAX);
    for g in &games {
        let seeds = |x: &awale::az::data::Sample| x.state.board_seeds(&rules) as usize;
        let Some(k) = g.iter().position(|x| seeds(x) <= 10) else {
            continue; // ended by the rules
        };
        entered += 1;
        // The entry position: the first in the tables; self-play searched none after it.
        let entry = &g[k];
        let probe = table.probe(&entry.state).unwrap();
        let m = entry.state.to_move();
        let n = seeds(entry) as i32;
        let mine = entry.state.scores()[m] as i32 + probe.value as i32;
        let theirs = entry.state.scores()[1 - m] as i32 + (n - probe.value as i32);
        let z = (mine - theirs).signum() as f32;
        assert_eq!(entry.score, (mine - theirs) as f32 / 24.0);
        // Every position of the game gets the same exact result, from its mover's side.
        for x in g {
            let sign = if x.state.to_move() == m { 1.0 } else { -1.0 };
            assert_eq!(x.value[0], sign * z, "value at ply {}", x.state.ply());
        }
        for x in &g[k..] {
            fewest = fewest.min(seeds(x));
            let best = table.probe(&x.state).unwrap().best_moves();
            for h in 0..4 {
                let want = if best.contains(&h) {
                    1.0 / best.len() as f32
                } else {
                    0.0
                };
                assert_eq!(x.policy[h], want, "policy of house {h}");
            }
        }
        match samples {
            TableSamples::None => panic!("no sample in the tables"),
            TableSamples::Entry => assert_eq!(k + 1, g.len(), "only the entry"),
            TableSamples::Playout => {}
        }
    }
    if samples != TableSamples::None {
        assert_eq!(entered as u64, stats.tablebase_ends.min(games.len() as u64));
    }
    (entered, fewest)
}

#[test]
fn a_self_play_game_that_enters_the_tables_ends_with_their_value() {
    let (entered, fewest) = check_table_games(TableSamples::Entry);
    assert!(
        entered >= 1 && (5..=10).contains(&fewest),
        "{entered} {fewest}"
    );
    assert_eq!(check_table_games(TableSamples::None).0, 0);
    // Perfect play from the entry position goes on to the end of the game.
    let (entered, fewest) = check_table_games(TableSamples::Playout);
    assert!(entered >= 1 && fewest <= 4, "{entered} {fewest}");
}

/// `selfplay.tablebase_random`: positions drawn from the tables, beside each game's own, with
/// the tables' best moves as their policy and the exact result of perfect play as their value.
#[test]
fn positions_drawn_from_the_tables_have_exact_targets() {
    use awale::az::selfplay_tables::SelfPlayTables;
    let (rules, table) = small_board_tables(10);
    let tables = SelfPlayTables::new(table.clone(), 10, TableSamples::None, &rules).unwrap();
    let rng = &mut <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(7);
    let drawn = tables.random_samples(&rules, 400, rng);
    assert_eq!(drawn.len(), 400);
    let mut layers = std::collections::BTreeSet::new();
    for (state, policy, finals) in &drawn {
        let n = state.board_seeds(&rules);
        layers.insert(n);
        assert!((1..=10).contains(&n) && !state.is_over());
        assert!(
            state.scores()[..2].iter().all(|&x| x <= 12),
            "no winner yet"
        );
        let probe = table.probe(state).unwrap();
        assert_eq!(finals[0], state.scores()[0] + probe.value);
        assert_eq!(finals[1], state.scores()[1] + (n as u8 - probe.value));
        let best = probe.best_moves();
        for (h, &p) in policy.iter().enumerate().take(4) {
            let want = if best.contains(&h) {
                1.0 / best.len() as f32
            } else {
                0.0
            };
            assert_eq!(p, want, "policy of house {h}");
        }
    }
    assert!(layers.len() >= 8, "seed counts drawn: {layers:?}");

    // In self-play: each game adds them, their value the exact result from their mover's side.
    let play = |random: usize| {
        let mut s = settings(3);
        let t = SelfPlayTables::new(table.clone(), 10, TableSamples::Entry, &rules).unwrap();
        s.endgame = Some(t.with_random(random));
        let mut sp = SelfPlay::with_threads(rules, s, 4, 1);
        let mut buf = ReplayBuffer::new(100_000);
        let net = SeedCounter(rules);
        let stats = sp.run(|| NetworkEvaluator::new(&net), 300, &mut buf);
        (
            stats,
            (0..buf.len()).map(|i| *buf.get(i)).collect::<Vec<_>>(),
        )
    };
    let (stats, samples) = play(5);
    let (_, plain) = play(0);
    let is_drawn =
        |x: &&awale::az::data::Sample| x.state.ply() == 0 && x.state.board_seeds(&rules) <= 10;
    let drawn: Vec<_> = samples.iter().filter(is_drawn).collect();
    assert!(plain.iter().filter(is_drawn).count() == 0);
    assert_eq!(drawn.len() as u64, 5 * stats.games, "{stats:?}");
    assert_eq!(stats.positions, samples.len() as u64);
    for x in drawn {
        let probe = table.probe(&x.state).unwrap();
        let n = x.state.board_seeds(&rules) as i32;
        let mine = x.state.scores()[0] as i32 + probe.value as i32;
        let theirs = x.state.scores()[1] as i32 + n - probe.value as i32;
        assert_eq!(x.value[0], (mine - theirs).signum() as f32);
        assert_eq!(x.value[1], -x.value[0]);
        assert_eq!(x.score, (mine - theirs) as f32 / 24.0);
    }
    // Asked for without tables: a clear error.
    let mut cfg = TrainConfig::tiny();
    cfg.selfplay.tablebase_random = 4;
    let e = cfg.validate().unwrap_err();
    assert!(e.to_string().contains("selfplay.tablebase_random"), "{e}");
}

#[test]
fn self_play_tables_must_fit_the_rules_and_the_seeds() {
    use awale::az::selfplay_tables::SelfPlayTables;
    let (rules, table) = small_board_tables(6);
    let e = SelfPlayTables::new(table.clone(), 8, TableSamples::Entry, &rules).unwrap_err();
    assert!(e.to_string().contains("at most 6 seeds"), "{e}");
    let e = SelfPlayTables::new(table, 6, TableSamples::Entry, &Rules::abapa()).unwrap_err();
    assert!(e.to_string().contains("the run plays"), "{e}");
    let mut cfg = TrainConfig::tiny();
    cfg.set("selfplay.tablebase=some/dir").unwrap();
    cfg.validate().unwrap(); // not opened before the run: `awale train` builds them
    assert!(cfg.set("selfplay.tablebase_seeds=0").is_err());
    assert!(cfg.set("selfplay.tablebase_seeds=49").is_err());
    let mut three = TrainConfig::tiny();
    three.rules = "oware3".into();
    three.selfplay.tablebase = "some/dir".into();
    let e = three.validate().unwrap_err();
    assert!(e.to_string().contains("2-player"), "{e}");
}

#[test]
fn prepare_builds_missing_tables_once() {
    use awale::az::selfplay_tables::{prepare, Prepared, SelfPlayTables};
    let dir = std::env::temp_dir().join(format!("awale-az-tables-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut cfg = TrainConfig::tiny();
    cfg.rules = "abapa:houses=4,seeds=3,win=13".into();
    assert_eq!(prepare(&cfg, 1, &|_| {}).unwrap(), Prepared::Unused);
    cfg.selfplay.tablebase = dir.display().to_string();
    cfg.selfplay.tablebase_seeds = 8;
    assert!(SelfPlayTables::open(&cfg).is_err(), "no tables yet");
    assert!(matches!(
        prepare(&cfg, 1, &|_| {}).unwrap(),
        Prepared::Built(_)
    ));
    assert_eq!(prepare(&cfg, 1, &|_| {}).unwrap(), Prepared::Found);
    let t = SelfPlayTables::open(&cfg).unwrap().unwrap();
    assert_eq!((t.max_seeds(), t.samples()), (8, TableSamples::Entry));
    // Fewer seeds than built open the same folder.
    cfg.selfplay.tablebase_seeds = 5;
    assert_eq!(prepare(&cfg, 1, &|_| {}).unwrap(), Prepared::Found);
    assert_eq!(
        SelfPlaySettings::for_run(&cfg)
            .unwrap()
            .endgame
            .unwrap()
            .max_seeds(),
        5
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn self_play_with_tables_reproduces_itself() {
    use awale::az::selfplay_tables::SelfPlayTables;
    let (rules, table) = small_board_tables(10);
    let play = || {
        let mut s = settings(4);
        s.endgame =
            Some(SelfPlayTables::new(table.clone(), 10, TableSamples::Playout, &rules).unwrap());
        let mut sp = SelfPlay::with_threads(rules, s, 6, 2);
        let mut buf = ReplayBuffer::new(100_000);
        let net = SeedCounter(rules);
        let stats = sp.run(|| NetworkEvaluator::new(&net), 300, &mut buf);
        (buf, stats, encoded(&sp))
    };
    let (a, b) = (play(), play());
    assert!(a.1.tablebase_ends > 0);
    assert_eq!(a, b);
}

/// Every recipe of `training/` is built in by its name (`awale train --config abapa` from a
/// wheel, which has no `training/` folder), equal to the file; an unknown name lists them.
#[test]
fn every_training_recipe_is_built_in_by_name_and_equals_its_file() {
    use awale::az::config::BUILTIN_CONFIGS;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("training");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|p| p.file_stem().unwrap().to_str().unwrap().to_string())
        .collect();
    files.sort();
    let mut names = TrainConfig::builtin_names();
    names.sort();
    assert_eq!(names, files, "BUILTIN_CONFIGS and training/*.toml differ");
    for (name, text) in BUILTIN_CONFIGS {
        let path = dir.join(format!("{name}.toml"));
        assert_eq!(*text, std::fs::read_to_string(&path).unwrap(), "{name}");
        let built_in = TrainConfig::builtin(name).unwrap();
        assert_eq!(
            built_in.to_toml(),
            TrainConfig::from_file(&path).unwrap().to_toml(),
            "{name}"
        );
        // --config NAME and --config PATH load the same config.
        let by_name = TrainConfig::load(std::path::Path::new(name)).unwrap();
        assert_eq!(by_name.to_toml(), built_in.to_toml(), "{name}");
        assert_eq!(
            TrainConfig::load(&path).unwrap().to_toml(),
            built_in.to_toml()
        );
    }
    for bad in ["abapx", "training/abapx.toml"] {
        let e = TrainConfig::load(std::path::Path::new(bad))
            .unwrap_err()
            .to_string();
        assert!(e.contains(bad), "{e}");
        for name in &names {
            assert!(e.contains(name), "{name} missing from: {e}");
        }
        assert!(e.contains("a path to a TOML file is also accepted"), "{e}");
    }
}

/// The value targets of owaré for 3 are the config's utility: the rules' returns (+1, 0 for a
/// shared first place, -1) or each player's share of the first place (`first`: 2/k - 1 for a
/// first place shared by k, -1 below it), which sums to 2 - 3 = -1 in every game.
#[test]
fn self_play_learns_the_configs_utility() {
    let rules: Rules = "oware3".parse().unwrap();
    for (utility, allowed) in [
        ("outcome", vec![1.0f32, 0.0, -1.0]),
        ("first", vec![1.0, 0.0, -1.0 / 3.0, -1.0]),
    ] {
        let mut cfg = TrainConfig::tiny();
        cfg.rules = "oware3".into();
        cfg.search.sims = 8;
        cfg.search.fast_sims = 2;
        cfg.set(&format!("search.utility={utility}")).unwrap();
        let s = SelfPlaySettings::from_config(&cfg);
        let mut sp = SelfPlay::with_threads(rules, s, 6, 1);
        let mut buf = ReplayBuffer::new(10_000);
        let stats = sp.run(|| UniformEvaluator, 300, &mut buf);
        assert!(stats.games > 0);
        let mut shared = false;
        for i in 0..buf.len() {
            let v = &buf.get(i).value[..3];
            assert!(
                v.iter()
                    .all(|x| allowed.iter().any(|a| (a - x).abs() < 1e-6)),
                "{utility}: {v:?}"
            );
            if utility == "first" {
                let sum: f32 = v.iter().sum();
                assert!((sum + 1.0).abs() < 1e-5, "{v:?}");
            }
            shared |= v.iter().any(|x| x.abs() < 0.99);
        }
        assert!(
            shared,
            "{utility}: no shared first place in {} games",
            stats.games
        );
    }
    let mut cfg = TrainConfig::tiny();
    let e = cfg.set("search.utility=best").unwrap_err().to_string();
    assert!(e.contains("best"), "{e}");
}

#[test]
fn renamed_config_keys_still_read_and_every_simulation_count_is_checked_once() {
    let cfg = TrainConfig::from_toml_str(
        "rules = \"abapa\"\n[search]\nsimulations = 12\nfast_simulations = 3\n[eval]\nsimulations = 5\n",
    )
    .unwrap();
    assert_eq!(
        (cfg.search.sims, cfg.search.fast_sims, cfg.eval.sims),
        (12, 3, 5)
    );
    let mut cfg = TrainConfig::tiny();
    cfg.set("search.simulations=9").unwrap();
    assert_eq!(cfg.search.sims, 9);
    for (assignment, want) in [
        (
            "search.sims=0",
            "search.sims: 0 is not between 1 and 1000000000",
        ),
        ("search.fast_sims=0", "search.fast_sims: 0 is not between 1"),
        (
            "eval.sims=2000000000",
            "eval.sims: 2000000000 is not between 1",
        ),
    ] {
        let e = cfg.clone().set(assignment).unwrap_err().to_string();
        assert!(e.contains(want), "{assignment}: {e}");
    }
    // The same bound for an agent spec's count.
    let e = awale::agents::build_agent("mcts:sims=2000000000", &Rules::abapa()).unwrap_err();
    assert!(
        e.to_string()
            .contains("2000000000 is not between 1 and 1000000000"),
        "{e}"
    );
}

/// Self-play with every thread's leaves gathered into calls of one evaluator (`eval_batch` ≥ 1,
/// two batches in flight per thread) plays the same games whatever the size of the calls:
/// samples, counts and the state a checkpoint keeps, call after call.
#[test]
fn gathered_leaves_play_the_same_games_whatever_the_call_size() {
    let rules = Rules::abapa();
    let net = SeedCounter(rules);
    for threads in [1, 3] {
        let mut runs = Vec::new();
        for eval_batch in [1, 4, 7, 10_000] {
            let mut sp = SelfPlay::with_threads(rules, settings(5), 13, threads);
            let mut got = ReplayBuffer::new(10_000);
            let mut counts = Vec::new();
            // One evaluator thread for both halves, or two side by side: the same games.
            let evaluators = 1 + eval_batch % 2;
            for _ in 0..2 {
                let make = || NetworkEvaluator::new(&net);
                let (stats, samples, load) = sp.run_gathered(make, evaluators, eval_batch, 40);
                assert!(stats.positions >= 40 && stats.positions == samples.len() as u64);
                assert_eq!(stats.evaluations, load.leaves);
                assert!(load.max_call <= eval_batch, "{load:?}");
                counts.push((
                    stats.games,
                    stats.positions,
                    stats.moves,
                    stats.plies,
                    load.leaves,
                ));
                for x in samples {
                    got.push(x);
                }
            }
            runs.push((eval_batch, got, counts, encoded(&sp)));
        }
        for r in &runs[1..] {
            assert_eq!(
                r.1, runs[0].1,
                "threads {threads}: eval_batch {} against 1",
                r.0
            );
            assert_eq!(
                r.2, runs[0].2,
                "threads {threads}: eval_batch {} against 1",
                r.0
            );
            assert_eq!(
                r.3, runs[0].3,
                "threads {threads}: eval_batch {} against 1",
                r.0
            );
        }
        // The games go on from the decoded state as from the live one.
        let mut sp = SelfPlay::with_threads(rules, settings(5), 13, threads);
        sp.run_gathered(|| NetworkEvaluator::new(&net), 2, 5, 40);
        let mut copy = SelfPlay::with_threads(rules, settings(5), 13, threads);
        copy.decode(&mut ByteReader::new(&encoded(&sp))).unwrap();
        let a = sp.run_gathered(|| NetworkEvaluator::new(&net), 2, 5, 40).1;
        let b = copy
            .run_gathered(|| NetworkEvaluator::new(&net), 1, 5, 40)
            .1;
        assert_eq!(a, b);
    }
}

/// The leaves of every thread meet in one call: with 8 threads and 512 games, each half-round
/// holds 256 leaves, every call of `eval_batch = 256` is full.
#[test]
fn gathered_calls_hold_the_leaves_of_every_thread() {
    let rules = Rules::abapa();
    let mut sp = SelfPlay::with_threads(rules, settings(3), 512, 8);
    let (stats, _, load) = sp.run_gathered(|| UniformEvaluator, 2, 256, 64);
    assert!(stats.positions >= 64);
    // Every shard plays until all are done: no call is left to the slowest alone.
    assert_eq!(load.mean_call(), 256.0, "{load:?}");
    assert_eq!(load.max_call, 256);
    // Per thread, each call would hold 64.
    let mut sp = SelfPlay::with_threads(rules, settings(3), 512, 8);
    let stats = sp.run(|| UniformEvaluator, 64, &mut ReplayBuffer::new(10_000));
    assert_eq!(stats.mean_batch(), 64.0);
    assert!(load.busy_share() >= 0.0 && load.busy_share() <= 1.0);
}

/// An evaluator that stops (a Python callable that raised, Ctrl-C) ends gathered self-play at
/// once: no thread waits for it.
#[test]
fn a_stopped_evaluator_ends_gathered_self_play() {
    struct StopsAfter(u32);
    impl LeafEvaluator for StopsAfter {
        fn evaluate(&mut self, states: &[awale::State], out: &mut Vec<awale::search::Evaluation>) {
            self.0 = self.0.saturating_sub(1);
            UniformEvaluator.evaluate(states, out);
        }
        fn stopped(&self) -> bool {
            self.0 == 0
        }
    }
    let rules = Rules::abapa();
    for threads in [1, 4] {
        let mut sp = SelfPlay::with_threads(rules, settings(3), 64, threads);
        let (stats, _, load) = sp.run_gathered(|| StopsAfter(5), 1, 8, 1_000_000);
        assert_eq!(load.calls, 5, "threads {threads}");
        assert!(stats.positions < 1_000_000);
        // Two evaluator threads: the first that stops ends it all.
        let (stats, _, load) = sp.run_gathered(|| StopsAfter(5), 2, 8, 1_000_000);
        assert!(
            (5..=10).contains(&load.calls),
            "threads {threads}: {load:?}"
        );
        assert!(stats.positions < 1_000_000);
    }
}
