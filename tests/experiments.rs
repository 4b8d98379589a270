//! Experiments on tiny runs (cargo feature `train`): network generations written and playable,
//! the rating ladder (resumed equals whole, errors), a match between two generations.
#![cfg(feature = "train")]

use std::path::{Path, PathBuf};

use awale::agents::Turn;
use awale::az::generations;
use awale::ratings::ladder::{run_ladder, LadderConfig};
use awale::ratings::matchplay::{run_match, MatchConfig};
use awale::ratings::sprt::SprtConfig;
use awale::tournament::Entrant;
use awale::train::run::{run, RunOptions};
use awale::train::{Checkpoint, TrainConfig};
use awale::{Game, Rules};

fn tempdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("awale-exp-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A run of a few seconds keeping a generation every 2 iterations.
fn tiny_run(dir: &Path, rules: &str, seed: u64) {
    let mut cfg = TrainConfig::tiny();
    cfg.rules = rules.into();
    cfg.seed = seed;
    cfg.network.hidden = vec![32];
    cfg.network.observation = "compact".into();
    cfg.search.sims = 8;
    cfg.search.fast_sims = 2;
    cfg.selfplay.concurrent_games = 8;
    cfg.selfplay.threads = 1;
    cfg.selfplay.positions_per_iteration = 48;
    cfg.selfplay.max_plies = 120;
    cfg.training.iterations = 5;
    cfg.training.batch_size = 16;
    cfg.training.steps_per_iteration = 3;
    cfg.training.min_replay = 16;
    cfg.training.warmup_steps = 2;
    cfg.eval.opponents = vec![];
    cfg.checkpoint.every = 5;
    cfg.checkpoint.generations_every = 2;
    let opts = RunOptions {
        out: dir.to_path_buf(),
        fresh: true,
        progress: false,
        final_eval: false,
    };
    run(cfg, &opts).unwrap();
}

#[test]
fn generations_are_small_playable_and_play_as_their_checkpoint() {
    let dir = tempdir("gens");
    tiny_run(&dir, "abapa", 3);
    let gens = generations::list(&dir).unwrap();
    // At the start, every 2 iterations, and the last iteration (5).
    let its: Vec<u64> = gens.iter().map(|g| g.counters.iteration).collect();
    assert_eq!(its, vec![0, 2, 4, 5]);
    assert!(gens.windows(2).all(|w| {
        w[0].counters.positions <= w[1].counters.positions
            && w[0].counters.train_steps <= w[1].counters.train_steps
            && w[0].counters.elapsed <= w[1].counters.elapsed
    }));
    assert_eq!(gens[0].counters.positions, 0);
    assert_eq!(gens[3].counters.train_steps, 15);
    let ckpt_path = dir.join("checkpoint.ckpt");
    let ckpt_bytes = std::fs::metadata(&ckpt_path).unwrap().len();
    assert!(
        gens[3].bytes * 4 < ckpt_bytes,
        "a generation ({} B) is a small part of the checkpoint ({ckpt_bytes} B)",
        gens[3].bytes
    );
    // The last generation holds the checkpoint's network, and plays the same moves.
    let last = Checkpoint::read(&gens[3].path).unwrap();
    let full = Checkpoint::read(&ckpt_path).unwrap();
    assert_eq!(last.model, full.model);
    assert_eq!(last.counters, full.counters);
    assert!(last.optimizer.is_empty() && last.replay.is_empty() && last.selfplay.is_empty());
    let rules = Rules::abapa();
    let registry = awale::network::registry();
    let agent = |path: &Path| {
        let spec = format!("nn:path={},sims=16", path.display())
            .parse()
            .unwrap();
        registry.build(&spec, &rules).unwrap()
    };
    let (mut g, mut c) = (agent(&gens[3].path), agent(&ckpt_path));
    let mut game = Game::new(rules);
    while !game.is_over() && game.moves().len() < 60 {
        let turn = Turn::from_game(&game);
        let (a, b) = (g.select(&turn).unwrap(), c.select(&turn).unwrap());
        assert_eq!(a, b, "ply {}", game.moves().len());
        game.apply(a).unwrap();
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_ladder_rates_two_runs_and_anchors_and_resumes_to_the_same_result() {
    let root = tempdir("ladder");
    let (a, b) = (root.join("alpha"), root.join("beta"));
    tiny_run(&a, "abapa", 1);
    tiny_run(&b, "abapa", 2);
    let registry = awale::network::registry();
    let mut cfg = LadderConfig::new(vec![a.clone(), b.clone()], root.join("whole"));
    cfg.anchors = vec!["random,greedy".into()];
    cfg.run.games = 2;
    cfg.sims = 4;
    cfg.run.max_plies = 80;
    let whole = run_ladder(&cfg, &registry, &()).unwrap();
    // 4 generations a run: 5 neighbour pairings each, 8 x 2 against the anchors, 1 between them.
    assert_eq!(whole.pairings, 2 * 5 + 16 + 1);
    assert_eq!(whole.entries.len(), 10);
    assert!(whole.tournament.complete);
    assert!(whole.entries.iter().all(|e| e.elo.is_some() && e.games > 0));
    let random = whole.entries.iter().find(|e| e.name == "random").unwrap();
    assert_eq!(random.elo, Some(0.0));
    for f in ["ladder.csv", "ladder.json", "ladder.svg", "games.jsonl"] {
        assert!(root.join("whole").join(f).exists(), "{f}");
    }
    let svg = std::fs::read_to_string(root.join("whole/ladder.svg")).unwrap();
    assert!(svg.contains("<svg") && svg.contains("alpha") && svg.contains("iteration"));
    assert!(std::fs::read_dir(root.join("whole/tb")).unwrap().count() > 0);

    // The same ladder played 7 games at a time (a kill and a resume each time).
    cfg.out = root.join("resumed");
    cfg.run.game_limit = Some(7);
    let mut runs = 0;
    let resumed = loop {
        let r = run_ladder(&cfg, &registry, &()).unwrap();
        runs += 1;
        if r.tournament.complete {
            break r;
        }
    };
    assert!(runs > 3);
    assert_eq!(resumed.entries, whole.entries);
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn the_ladder_rates_networks_of_three_players_by_their_placings() {
    let root = tempdir("ladder3");
    let (a, b) = (root.join("alpha"), root.join("beta"));
    tiny_run(&a, "oware3", 1);
    tiny_run(&b, "oware3", 2);
    let registry = awale::network::registry();
    let mut cfg = LadderConfig::new(vec![a.clone(), b.clone()], root.join("out"));
    cfg.anchors = vec!["random,mcts:sims=20".into()];
    cfg.run.games = 6; // each opening in the 6 seatings of 3 players
    cfg.sims = 4;
    cfg.run.max_plies = 80;
    let r = run_ladder(&cfg, &registry, &()).unwrap();
    // 4 generations a run: 2 windows of 3 each, 8 boards with the two anchors, none of
    // anchors alone (2 < 3).
    assert_eq!(r.pairings, 2 * 2 + 8);
    assert!(matches!(
        r.tournament.format,
        awale::tournament::Format::Tables(_)
    ));
    assert!(r.tournament.complete);
    assert!(r.entries.iter().all(|e| e.elo.is_some() && e.games > 0));
    assert_eq!(r.tournament.first_places.len(), 10);
    // The placing rating: intervals around every rating but the anchor's.
    for e in r.entries.iter().filter(|e| e.name != "random") {
        let (lo, elo, hi) = (e.low.unwrap(), e.elo.unwrap(), e.high.unwrap());
        assert!(lo < elo && elo < hi, "{}: {lo} {elo} {hi}", e.name);
    }
    // Two runs need at least 2 anchors to fill the boards and join the runs.
    cfg.anchors = vec!["random".into()];
    cfg.out = root.join("one-anchor");
    let e = run_ladder(&cfg, &registry, &()).unwrap_err().to_string();
    assert!(e.contains("at least 2 anchors"), "{e}");
    // The network's search options at play: checked, then played.
    let rules: Rules = "oware3".parse().unwrap();
    let gen = generations::generation_path(&a, 2);
    let build = |opts: &str| {
        let spec = format!("nn:path={},{opts}", gen.display());
        Entrant::from_spec(&registry, &spec.parse().unwrap(), &rules)
    };
    for (opts, why) in [
        ("rollouts=1.5", "rollouts: 1.5 is not in [0, 1]"),
        ("backup=sideways", "'sideways' is not a backup"),
        ("c_puct=-1", "c_puct"),
        ("search=best", "not a search kind"),
    ] {
        let e = build(opts).unwrap_err().to_string();
        assert!(e.contains(why), "{opts}: {e}");
    }
    let game = Game::with_seed(rules, 1);
    for opts in [
        "sims=16,search=puct,rollouts=0.5",
        "sims=16,search=puct,backup=paranoid",
    ] {
        let mut agent = build(opts).unwrap().make().unwrap();
        agent.reset(3);
        let mv = agent.select(&Turn::from_game(&game)).unwrap();
        assert!(game.legal_mask() >> mv & 1 == 1, "{opts}: {mv}");
    }
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn ladder_errors_say_what_is_wrong() {
    let root = tempdir("ladder-errors");
    let registry = awale::network::registry();
    let (a, w) = (root.join("abapa"), root.join("wari"));
    tiny_run(&a, "abapa", 1);
    tiny_run(&w, "wari", 1);
    let err = |runs: Vec<PathBuf>, anchors: &str| {
        let mut cfg = LadderConfig::new(runs, root.join("out"));
        cfg.anchors = vec![anchors.into()];
        run_ladder(&cfg, &registry, &()).unwrap_err().to_string()
    };
    let e = err(vec![root.join("nothing")], "random");
    assert!(e.contains("no generations"), "{e}");
    let e = err(vec![a.clone(), w.clone()], "random");
    assert!(e.contains("one rule set"), "{e}");
    let e = err(vec![a.clone()], "nosuchagent");
    assert!(e.contains("nosuchagent"), "{e}");
    let mut cfg = LadderConfig::new(vec![a.clone()], root.join("odd"));
    cfg.run.games = 3;
    let e = run_ladder(&cfg, &registry, &()).unwrap_err().to_string();
    assert!(e.contains("even"), "{e}");
    // A generation of other rules is refused as an agent of these rules.
    let spec = format!("nn:path={}", generations::generation_path(&w, 2).display());
    let e = Entrant::from_spec(&registry, &spec.parse().unwrap(), &Rules::abapa())
        .unwrap_err()
        .to_string();
    assert!(e.contains("wari") || e.contains("rules"), "{e}");
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn an_sprt_match_between_generations_decides() {
    let dir = tempdir("match");
    tiny_run(&dir, "abapa", 4);
    let rules = Rules::abapa();
    let registry = awale::network::registry();
    let last = format!(
        "nn:path={},sims=16,name=last",
        generations::generation_path(&dir, 5).display()
    );
    let a = Entrant::from_spec(&registry, &last.parse().unwrap(), &rules).unwrap();
    let b = Entrant::from_spec_text("random", &rules).unwrap();
    let mut cfg = MatchConfig::new(rules);
    cfg.run.games = 400;
    cfg.run.max_plies = 120;
    cfg.sprt = Some(SprtConfig::new(0.0, 200.0));
    let r = run_match(&cfg, &a, &b).unwrap();
    assert!(r.verdict.ends_with("accepted"), "{}", r.verdict);
    assert!(r.games < 400);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn nn_with_tables_plays_their_best_moves_and_refuses_tables_of_other_rules() {
    use awale::tablebase::Tablebase;
    let dir = tempdir("nn-tb");
    tiny_run(&dir.join("run"), "abapa", 6);
    let rules = Rules::abapa();
    let table = Tablebase::build(&rules, 6, 0, &|_| {}).unwrap();
    table.save(&dir.join("tb")).unwrap();
    let wari: Rules = "wari".parse().unwrap();
    Tablebase::build(&wari, 4, 0, &|_| {})
        .unwrap()
        .save(&dir.join("tb-wari"))
        .unwrap();
    let registry = awale::network::registry();
    let gen = generations::generation_path(&dir.join("run"), 5);
    let spec = |tb: &str| {
        format!(
            "nn:path={},sims=8,tb={}",
            gen.display(),
            dir.join(tb).display()
        )
        .parse()
        .unwrap()
    };
    let mut agent = registry.build(&spec("tb"), &rules).unwrap();
    // Positions of at most 6 seeds from real play: the agent plays one of the table's best moves.
    let mut checked = 0;
    for seed in 0..40u64 {
        let mut game = Game::with_seed(rules, seed);
        let mut rng = seed;
        while !game.is_over() && game.state().board_seeds(&rules) > 6 {
            let legal = game.legal_moves();
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            game.apply(legal[(rng >> 33) as usize % legal.len()])
                .unwrap();
        }
        if game.is_over() || game.legal_moves().len() < 2 {
            continue;
        }
        let best = table.probe(game.state()).unwrap().best_moves();
        let mv = agent.select(&Turn::from_game(&game)).unwrap();
        assert!(best.contains(&mv), "{mv} not in {best:?}");
        checked += 1;
    }
    assert!(checked > 5, "{checked} positions checked");
    // Tables of other rules are refused, with the reason.
    let e = match registry.build(&spec("tb-wari"), &rules) {
        Ok(_) => panic!("tables of wari accepted for an abapa network"),
        Err(e) => e.to_string(),
    };
    assert!(e.contains("tb:"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every config in `training/` parses, validates and runs one (shrunken) iteration with its own
/// rules, network shape and search.
#[test]
fn every_training_config_parses_and_runs_one_iteration() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("training");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("toml") {
            continue;
        }
        let mut cfg = TrainConfig::from_file(&path).unwrap();
        cfg.validate().unwrap();
        for set in [
            "training.iterations=1",
            "training.max_minutes=0",
            "training.batch_size=16",
            "training.steps_per_iteration=1",
            "training.min_replay=16",
            "training.warmup_steps=1",
            "selfplay.concurrent_games=4",
            "selfplay.threads=1",
            "selfplay.positions_per_iteration=24",
            "selfplay.max_plies=60",
            "search.fast_sims=2",
            "search.sims=4",
            "eval.opponents=[]",
            "eval.final_opponents=[]",
        ] {
            cfg.set(set).unwrap();
        }
        let out = tempdir(&format!(
            "config-{}",
            path.file_stem().unwrap().to_string_lossy()
        ));
        // A recipe with endgame tables builds tiny ones (4 seeds) beside the run.
        let tables = out.with_extension("tables");
        if !cfg.selfplay.tablebase.is_empty() {
            cfg.set(&format!("selfplay.tablebase={}", tables.display()))
                .unwrap();
            cfg.set("selfplay.tablebase_seeds=4").unwrap();
        }
        let opts = RunOptions {
            out: out.clone(),
            fresh: true,
            progress: false,
            final_eval: false,
        };
        let s = run(cfg, &opts).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(s.iterations, 1, "{}", path.display());
        let _ = std::fs::remove_dir_all(&out);
        let _ = std::fs::remove_dir_all(&tables);
        seen += 1;
    }
    assert!(seen >= 8, "{seen} configs");
}
