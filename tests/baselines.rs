//! The baseline networks shipped inside the crate: each loads, plays a legal game as
//! `nn:baseline=NAME`, matches its manifest's hash, and one recipe's first iterations replay to
//! the parameters its manifest records (the run that made it wrote them as a generation).
#![cfg(feature = "train")]

use awale::agents::{AgentSpec, Turn};
use awale::network::baseline::{self, params_sha256, sha256_hex};
use awale::{Game, Rules};

#[test]
fn every_baseline_plays_a_legal_game_as_an_agent() {
    let registry = awale::network::registry();
    for b in baseline::all() {
        let m = &b.manifest;
        let rules: Rules = m.rules.parse().unwrap();
        // Few simulations: the test is about loading and legality, not strength.
        let spec: AgentSpec = format!("nn:baseline={},sims=4", m.name).parse().unwrap();
        let mut agent = registry.build(&spec, &rules).unwrap();
        let mut short = rules;
        short.max_plies = 60;
        let mut game = Game::new(short);
        while !game.is_over() {
            let house = agent.select(&Turn::from_game(&game)).unwrap();
            assert!(
                game.legal_mask() >> house & 1 == 1,
                "{}: illegal {house}",
                m.name
            );
            game.apply(house).unwrap();
        }
        assert_eq!(
            sha256_hex(b.weights),
            m.sha256,
            "{}: weights differ from the manifest",
            m.name
        );
        assert_eq!(b.core().unwrap().rules.base_name(), rules.base_name());
    }
}

#[test]
fn a_family_name_and_a_version_name_load_the_same_network() {
    for b in baseline::all() {
        let by_family = baseline::find(b.family()).unwrap();
        if by_family.manifest.name == b.manifest.name {
            assert_eq!(
                params_sha256(&by_family.core().unwrap()),
                params_sha256(&b.core().unwrap())
            );
        }
    }
}

#[test]
fn bad_baseline_specs_are_refused_with_the_reason() {
    let registry = awale::network::registry();
    let abapa = Rules::abapa();
    let err = |text: &str, rules: &Rules| {
        let spec: AgentSpec = text.parse().unwrap();
        match registry.build(&spec, rules) {
            Ok(_) => panic!("{text} was accepted"),
            Err(e) => e.to_string(),
        }
    };
    let e = err("nn:baseline=chess", &abapa);
    assert!(
        e.contains("no baseline named 'chess'") && e.contains("abapa-v1"),
        "{e}"
    );
    let e = err("nn:baseline=abapa,path=x.ckpt", &abapa);
    assert!(e.contains("not both"), "{e}");
    let e = err("nn:baseline=wari", &abapa);
    assert!(e.contains("trained for wari"), "{e}");
    let e = err("nn:baseline=abapa,sims=0", &abapa);
    assert!(e.contains("sims"), "{e}");
    let e = err("nn", &abapa);
    assert!(e.contains("baseline=NAME"), "{e}");
}

#[test]
fn a_baseline_plays_with_its_manifest_search_unless_the_spec_says() {
    let registry = awale::network::registry();
    let b = baseline::find("abapa").unwrap();
    let rules = Rules::abapa();
    let mut agent = registry
        .build(&"nn:baseline=abapa".parse().unwrap(), &rules)
        .unwrap();
    let game = Game::new(rules);
    agent.select(&Turn::from_game(&game)).unwrap();
    let t = agent.thoughts().unwrap();
    assert_eq!(
        t.nodes,
        Some(u64::from(b.manifest.play.sims)),
        "{}",
        t.summary
    );
    let mut agent = registry
        .build(&"nn:baseline=abapa,sims=3".parse().unwrap(), &rules)
        .unwrap();
    agent.select(&Turn::from_game(&game)).unwrap();
    assert_eq!(agent.thoughts().unwrap().nodes, Some(3));
}

#[test]
fn a_baseline_that_keeps_its_tree_adds_its_simulations_to_the_kept_ones() {
    let registry = awale::network::registry();
    let rules = Rules::abapa();
    let v2 = baseline::find("abapa-v2").unwrap();
    assert!(
        v2.manifest.play.reuse_tree
            && !baseline::find("abapa-v1").unwrap().manifest.play.reuse_tree
    );
    let play = |spec: &str| {
        let mut agent = registry.build(&spec.parse().unwrap(), &rules).unwrap();
        let mut game = Game::new(rules);
        let mut summaries = Vec::new();
        for _ in 0..6 {
            let house = agent.select(&Turn::from_game(&game)).unwrap();
            summaries.push(agent.thoughts().unwrap().summary);
            game.apply(house).unwrap();
        }
        (game.moves().to_vec(), summaries, agent)
    };
    // Playing both seats, each search finds the last one's child: kept after the first.
    let (moves, summaries, mut agent) = play("nn:baseline=abapa-v2,sims=48");
    assert!(!summaries[0].contains("kept"), "{}", summaries[0]);
    for s in &summaries[1..] {
        assert!(
            s.contains("48 simulations (and ") && s.contains("kept from the last move"),
            "{s}"
        );
    }
    // A new game forgets the tree: the same game again, move for move.
    agent.reset(0);
    let mut game = Game::new(rules);
    for &m in &moves {
        let m = usize::from(m);
        assert_eq!(agent.select(&Turn::from_game(&game)).unwrap(), m);
        game.apply(m).unwrap();
    }
    // reuse_tree=false, or another search, plays afresh each move.
    for spec in [
        "nn:baseline=abapa-v2,sims=48,reuse_tree=false",
        "nn:baseline=abapa-v2,sims=48,search=gumbel",
    ] {
        let (_, summaries, _) = play(spec);
        assert!(
            summaries.iter().all(|s| !s.contains("kept")),
            "{spec}: {summaries:?}"
        );
    }
    let (_, summaries, _) = play("nn:baseline=abapa-v1,sims=48,reuse_tree=true");
    assert!(summaries[1].contains("kept"), "{}", summaries[1]);
    // Asked of a search that cannot keep it, or not a switch: refused with the reason.
    for (spec, reason) in [
        (
            "nn:baseline=abapa-v1,reuse_tree=true,search=gumbel",
            "reuse_tree=true needs search=puct, not gumbel",
        ),
        (
            "nn:baseline=abapa-v1,reuse_tree=yes",
            "'yes' is not true or false",
        ),
    ] {
        let e = registry
            .build(&spec.parse().unwrap(), &rules)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains(reason), "{spec}: {e}");
    }
}

/// The first iterations of the oware6 recipe, replayed (a few seconds): the network's
/// parameters come out bit for bit as the generation the baseline's run wrote.
#[test]
fn the_oware6_recipe_replays_its_first_iterations_bit_for_bit() {
    let b = baseline::find("oware6-v1").unwrap();
    let r = &b.manifest.replay;
    let got = awale::train::trainer::replay(&b.recipe().unwrap(), r.iterations).unwrap();
    assert_eq!(
        got, r.params_sha256,
        "the trainer no longer reproduces the baseline's run"
    );
}

/// `awale` with `args`: whether it succeeded, and its stdout and stderr.
fn awale_cli(args: &[&str]) -> (bool, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_awale"))
        .args(args)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

/// The moves and thoughts of `spec` over the first `plies` plies of a game of `rules`.
fn line_of(spec: &str, rules: Rules, plies: usize) -> Vec<(usize, String, Option<u64>)> {
    let registry = awale::network::registry();
    let mut agent = registry.build(&spec.parse().unwrap(), &rules).unwrap();
    agent.reset(11);
    let mut game = Game::new(rules);
    let mut out = Vec::new();
    while out.len() < plies && !game.is_over() {
        let house = agent.select(&Turn::from_game(&game)).unwrap();
        let t = agent.thoughts().unwrap_or_default();
        out.push((house, t.summary, t.nodes));
        game.apply(house).unwrap();
    }
    out
}

/// `awale baseline export abapa` writes the manifest's play settings into the file: the file
/// plays as `nn:path=FILE` move for move (and thought for thought) as `nn:baseline=abapa`,
/// `awale network info` says how, the spec's own keys still win, and a file without play
/// settings keeps the defaults (64 simulations, the config's play_kind).
#[test]
fn an_exported_baseline_plays_move_for_move_as_the_baseline() {
    let dir = std::env::temp_dir().join(format!("awale-baseline-export-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("abapa.safetensors");
    let path = file.to_str().unwrap();
    let b = baseline::find("abapa").unwrap();
    let play = b.manifest.play;
    let (ok, text) = awale_cli(&["baseline", "export", "abapa", "--out", path]);
    assert!(ok, "{text}");
    assert!(text.contains(&play.describe()), "{text}");
    let (ok, text) = awale_cli(&["network", "info", path]);
    assert!(ok, "{text}");
    assert!(
        text.contains(&format!(
            "play      {} (the file's play settings)",
            play.describe()
        )),
        "{text}"
    );
    let (ok, text) = awale_cli(&["network", "info", "--json", path]);
    assert!(ok, "{text}");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["play"]["sims"], u64::from(play.sims));
    assert_eq!(v["play"]["search"], play.search.to_string());
    assert_eq!(v["play"]["reuse_tree"], play.reuse_tree);
    assert_eq!(v["play"]["from_file"], true);

    let rules = Rules::abapa();
    let baseline_line = line_of("nn:baseline=abapa", rules, 10);
    assert_eq!(baseline_line[0].2, Some(u64::from(play.sims)));
    assert_eq!(
        line_of(&format!("nn:path={path}"), rules, 10),
        baseline_line
    );
    // The spec's keys override the file's.
    let short = line_of(&format!("nn:path={path},sims=5,search=gumbel"), rules, 1);
    assert_eq!(short[0].2, Some(5));
    // Exported again (`awale network export`), the file keeps them.
    let again = dir.join("again.safetensors");
    let (ok, text) = awale_cli(&["network", "export", path, "--out", again.to_str().unwrap()]);
    assert!(ok, "{text}");
    let line = line_of(&format!("nn:path={}", again.display()), rules, 4);
    assert_eq!(line[..], baseline_line[..4]);

    // A file without play settings: the defaults.
    let bare = dir.join("bare.safetensors");
    let core = b.core().unwrap().as_ref().clone().with_play(None);
    awale::network::export::write_safetensors(&core, &bare).unwrap();
    let (ok, text) = awale_cli(&["network", "info", bare.to_str().unwrap()]);
    let kind = core
        .config
        .search
        .play_kind
        .unwrap_or(core.config.search.kind);
    assert!(
        ok && text.contains(&format!(
            "play      {kind} search, 64 simulations (defaults: the file has no play settings)"
        )),
        "{text}"
    );
    let line = line_of(&format!("nn:path={}", bare.display()), rules, 1);
    assert_eq!(line[0].2, Some(64));
    std::fs::remove_dir_all(&dir).ok();
}

/// A damaged `play` entry is refused with the reason.
#[test]
fn a_bad_play_entry_is_refused_with_the_reason() {
    let b = baseline::find("abapa").unwrap();
    let good = awale::network::export::to_safetensors(&b.core().unwrap()).unwrap();
    // The entry as the header (JSON) quotes it; replaced by text of the same length, so that
    // the offsets stay right.
    let replace = |from: &str, to: &str| -> Vec<u8> {
        assert_eq!(from.len(), to.len());
        let at = good
            .windows(from.len())
            .position(|w| w == from.as_bytes())
            .unwrap_or_else(|| panic!("no {from} in the file"));
        let mut bad = good.clone();
        bad[at..at + to.len()].copy_from_slice(to.as_bytes());
        bad
    };
    // The manifest's settings are in the file.
    let entry = r#"{\"sims\":384,\"search\":\"puct\",\"reuse_tree\":true}"#;
    assert_eq!(replace(entry, entry), good);
    for (from, to, why) in [
        (r#"\"sims\":384"#, r#"\"sims\":  0"#, "sims: 0"),
        (r#"\"puct\""#, r#"\"pucx\""#, "pucx"),
        (
            r#"\"reuse_tree\":true"#,
            r#"\"reuse_tree\":null"#,
            "boolean",
        ),
    ] {
        let e = awale::network::export::from_safetensors(&replace(from, to))
            .expect_err("accepted")
            .to_string();
        assert!(e.contains("play settings") && e.contains(why), "{e}");
    }
}

/// The network's search gives each visited root move the mean return of the simulations
/// through it, for the mover, as MCTS does: every value in [-1, 1], the visits and values add
/// up to the root's value (the root's own evaluation and one value per simulation), and a move
/// that wins the game at once is worth +1 to its mover.
#[test]
fn the_network_search_gives_each_root_move_its_value_for_the_mover() {
    let registry = awale::network::registry();
    let rules = Rules::abapa();
    // South to move, 22 in its store: house F (one seed) sows into North's first house (two
    // seeds) and captures three, 25 of 48, a win.
    let win =
        awale::protocol::position::parse_fen(&rules, "3-3-3-3-3-1-2-2-2-2-1-1-22-0-S").unwrap();
    let mut after = win;
    after.apply(&rules, 5).unwrap();
    assert!(after.is_over() && after.winners(&rules) == vec![0]);
    let mut positions = vec![win];
    let mut game = Game::new(rules);
    for h in [2, 3, 1, 4] {
        positions.push(*game.state());
        game.apply(h).unwrap();
    }
    for spec in [
        "nn:baseline=abapa",
        "nn:baseline=abapa,search=gumbel,sims=64",
    ] {
        let mut agent = registry.build(&spec.parse().unwrap(), &rules).unwrap();
        for s in &positions {
            agent.select(&Turn::new(&rules, s)).unwrap();
            let t = agent.thoughts().unwrap();
            let value = t.value.unwrap();
            let sims = t.nodes.unwrap() as f64;
            let mut sum = 0.0;
            for m in &t.moves {
                match m.value {
                    Some(q) => {
                        assert!(m.visits > 0 && (-1.0..=1.0).contains(&q), "{spec}: {m:?}");
                        sum += f64::from(m.visits) * f64::from(q);
                    }
                    None => assert_eq!(m.visits, 0, "{spec}: {m:?}"),
                }
            }
            let visits: u32 = t.moves.iter().map(|m| m.visits).sum();
            // A kept tree adds the move's simulations to those kept.
            let visits = f64::from(visits);
            let kept = t.summary.contains("kept from the last move");
            assert!(
                visits == sims || kept && visits > sims,
                "{spec}: {}",
                t.summary
            );
            // The root's value is (its own evaluation + the simulations' values) / (visits + 1).
            assert!(
                (value * (visits + 1.0) - sum).abs() <= 1.0 + 1e-3,
                "{spec}: value {value}, moves {:?}",
                t.moves
            );
            if s == &win {
                let f = t.moves.iter().find(|m| m.house == 5).unwrap();
                assert_eq!(f.value, Some(1.0), "{spec}: {:?}", t.moves);
            }
        }
    }
}

/// `awale bench network` times both forward passes of a baseline for each batch size, and
/// refuses what it cannot measure with the reason.
#[test]
fn bench_network_times_both_forwards_and_refuses_bad_input() {
    let (ok, text) = awale_cli(&[
        "bench",
        "network",
        "--network",
        "abapa-v1",
        "--batch",
        "1,3",
        "--seconds",
        "0.01",
    ]);
    assert!(ok, "{text}");
    assert!(
        text.contains("burn µs/call") && text.contains("plain µs/call"),
        "{text}"
    );
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with(['1', '3']) && l.ends_with('x'))
        .collect();
    assert_eq!(rows.len(), 2, "{text}");
    for (args, reason) in [
        (vec!["--batch", "0"], "at least 1"),
        (
            vec!["--batch", "1,100000000"],
            "100000000 is more than the 65536",
        ),
        (vec!["--seconds", "0"], "between 0 and 600"),
        (vec!["--network", "no-such-net"], "no-such-net"),
    ] {
        let mut all = vec!["bench", "network"];
        all.extend(args);
        let (ok, text) = awale_cli(&all);
        assert!(!ok && text.contains(reason), "{all:?}: {text}");
    }
}
