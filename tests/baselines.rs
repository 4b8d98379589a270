//! The baseline networks shipped inside the crate: each loads, plays a legal game as
//! `nn:baseline=NAME`, matches its manifest's hash, and one recipe's first iterations replay to
//! the parameters its manifest records (the run that made it wrote them as a generation).
#![cfg(feature = "train")]

use awale::agents::{AgentSpec, Turn};
use awale::train::baseline::{self, params_sha256, sha256_hex};
use awale::{Game, Rules};

#[test]
fn every_baseline_plays_a_legal_game_as_an_agent() {
    let registry = awale::train::registry();
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
    let registry = awale::train::registry();
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
    let registry = awale::train::registry();
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

/// The first iterations of the oware6 recipe, replayed (a few seconds): the network's
/// parameters come out bit for bit as the generation the baseline's run wrote.
#[test]
fn the_oware6_recipe_replays_its_first_iterations_bit_for_bit() {
    let b = baseline::find("oware6-v1").unwrap();
    let r = &b.manifest.replay;
    let got = baseline::replay(&b.recipe().unwrap(), r.iterations).unwrap();
    assert_eq!(
        got, r.params_sha256,
        "the trainer no longer reproduces the baseline's run"
    );
}
