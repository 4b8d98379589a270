//! The preset table: a preset added with one table entry works everywhere a built-in one does.

use awale::agents::build_agent;
use awale::agents::Turn;
use awale::batch::{Batch, BatchConfig, StepBuffers};
use awale::notation::{format_position, parse_position};
use awale::presets::{find_preset, presets, register_preset, PresetDef};
use awale::{AwaleError, Game, Rules, PRESET_SPECS};

/// A trial preset: a copy of `abapa` under another name, added with one table entry.
fn trial() -> &'static PresetDef {
    static ONCE: std::sync::OnceLock<&'static PresetDef> = std::sync::OnceLock::new();
    ONCE.get_or_init(|| {
        register_preset(PresetDef {
            spec: "trial",
            aliases: &["trial-alias"],
            family: "trial",
            title: "Trial",
            summary: "a copy of abapa under another name (test)",
            document: "000",
            build: Rules::abapa,
        })
        .expect("the trial preset registers")
    })
}

#[test]
fn one_entry_makes_a_preset_that_parses_prints_and_lists() {
    let def = trial();
    let rules: Rules = "trial".parse().unwrap();
    assert_eq!(rules.to_string(), "trial");
    assert_eq!(rules.preset.spec(), "trial");
    assert_eq!("trial-alias".parse::<Rules>().unwrap(), rules);
    let spec = "trial:grand_slam=forbidden,max_plies=120";
    let with_options: Rules = spec.parse().unwrap();
    assert_eq!(with_options.to_string(), spec);
    assert!(presets().iter().any(|p| p.spec == "trial"));
    assert_eq!(find_preset("trial").unwrap().title, def.title);
    // The unknown-preset error lists it too.
    let err = "nope".parse::<Rules>().unwrap_err();
    assert!(matches!(err, AwaleError::UnknownPreset { .. }));
    assert!(err.to_string().contains("trial"), "{err}");
    // Serialised rules name it and read back.
    let json = serde_json::to_string(&rules).unwrap();
    assert_eq!(serde_json::from_str::<Rules>(&json).unwrap(), rules);
}

#[test]
fn the_trial_preset_plays_exactly_like_its_source() {
    trial();
    let trial: Rules = "trial".parse().unwrap();
    let abapa: Rules = "abapa".parse().unwrap();
    // Same rules but the name.
    assert_eq!(trial.options(), abapa.options());
    for seed in 0..20u64 {
        let mut a = Game::new(abapa);
        let mut t = Game::new(trial);
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        while !a.is_over() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let moves = a.legal_moves();
            let mv = moves[(x % moves.len() as u64) as usize];
            a.apply(mv).unwrap();
            t.apply(mv).unwrap();
            assert_eq!(a.state(), t.state());
        }
        assert!(t.is_over());
        assert_eq!(a.status(), t.status());
    }
    // Positions are written and read with the new name.
    let game = Game::new(trial);
    let text = format_position(&trial, game.state());
    assert!(text.starts_with("trial "), "{text}");
    let (rules, state) = parse_position(&text).unwrap();
    assert_eq!((rules, state), (trial, *game.state()));
}

#[test]
fn the_trial_preset_runs_in_the_batch_and_with_agents() {
    trial();
    let rules: Rules = "trial".parse().unwrap();
    let mut batch = Batch::new(BatchConfig::new(rules, 8)).unwrap();
    let mut twin = Batch::new(BatchConfig::new("abapa".parse().unwrap(), 8)).unwrap();
    let mut out = StepBuffers::<f32>::for_batch(&batch);
    let mut twin_out = StepBuffers::<f32>::for_batch(&twin);
    batch.reset(Some(7), &mut out.output()).unwrap();
    twin.reset(Some(7), &mut twin_out.output()).unwrap();
    assert_eq!(out, twin_out);
    let mut agent = build_agent("alphabeta:depth=2", &rules).unwrap();
    let game = Game::new(rules);
    let mv = agent.select(&Turn::from_game(&game)).unwrap();
    assert!(game.legal_moves().contains(&mv));
}

#[test]
fn built_in_specs_come_from_the_table() {
    let table: Vec<&str> = presets().iter().map(|p| p.spec).collect();
    assert_eq!(&table[..PRESET_SPECS.len()], &PRESET_SPECS[..]);
    // Every built-in preset is documented in docs/rules.md and the README's rules list.
    let docs =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/rules.md")).unwrap();
    for spec in PRESET_SPECS {
        assert!(
            docs.contains(&format!("`{spec}`")),
            "docs/rules.md lacks `{spec}`"
        );
    }
}

/// The rules option table: every option has its help, and every value it lists parses.
#[test]
fn every_rules_option_is_documented_and_its_listed_values_parse() {
    use awale::rules::{find_option, OPTION_KEYS, RULES_OPTIONS};
    let keys: Vec<&str> = RULES_OPTIONS.iter().map(|def| def.key).collect();
    assert_eq!(keys, OPTION_KEYS);
    let listed: Vec<&str> = Rules::abapa().options().iter().map(|(k, _)| *k).collect();
    assert_eq!(listed, OPTION_KEYS);
    for def in RULES_OPTIONS {
        assert!(!def.help.trim().is_empty(), "{} has no help", def.key);
        assert!(!def.values.trim().is_empty(), "{} lists no values", def.key);
        assert!(std::ptr::eq(find_option(def.key).unwrap(), def));
        // The words it lists (not the placeholders N, MIN-MAX, ranges) are accepted.
        for value in def.values.split('|') {
            if value.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
                let mut rules = Rules::abapa();
                rules
                    .set_option(def.key, value)
                    .unwrap_or_else(|e| panic!("{}={value}: {e}", def.key));
                assert_eq!((def.get)(&rules), value, "{}", def.key);
            }
        }
    }
    assert_eq!(
        keys.iter().collect::<std::collections::HashSet<_>>().len(),
        keys.len()
    );
}

/// Every preset's options, written out in full as a spec, parse back to the same rules.
#[test]
fn every_presets_options_written_as_a_spec_parse_back() {
    for def in presets() {
        let rules = def.rules();
        let pairs: Vec<String> = rules
            .options()
            .into_iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let spec = format!("{}:{}", def.spec, pairs.join(","));
        let parsed: Rules = spec.parse().unwrap_or_else(|e| panic!("{spec}: {e}"));
        assert_eq!(parsed, rules, "{spec}");
        assert_eq!(parsed.to_string(), def.spec);
    }
}

/// An unknown rules option is refused with the list of the known ones.
#[test]
fn an_unknown_rules_option_lists_the_known_ones() {
    let err = "abapa:colour=red".parse::<Rules>().unwrap_err();
    assert!(matches!(err, AwaleError::BadOption { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.contains("unknown option 'colour'"), "{text}");
    for key in awale::rules::OPTION_KEYS {
        assert!(text.contains(key), "{text} lacks {key}");
    }
    // A bad value names the option and says what is expected.
    let err = "abapa:sowing=double"
        .parse::<Rules>()
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("sowing=double") && err.contains("expected single or relay"),
        "{err}"
    );
}
