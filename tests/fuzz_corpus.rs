//! The fuzz targets of `fuzz/` (cargo-fuzz, libFuzzer) run as ordinary tests over their kept
//! corpus (`fuzz/corpus/<target>/`) and crash inputs (`fuzz/regressions/<target>/`), so every
//! input the fuzzers kept, and every bug they found, is checked by `cargo test`.
//! See docs/reliability.md for how to fuzz further.

use std::fs;
use std::path::{Path, PathBuf};

#[path = "../fuzz/targets/batch_snapshot.rs"]
mod batch_snapshot;
#[path = "../fuzz/targets/checkpoint.rs"]
mod checkpoint;
#[cfg(feature = "train")]
#[path = "../fuzz/targets/checkpoint_records.rs"]
mod checkpoint_records;
#[path = "../fuzz/targets/engine.rs"]
mod engine;
#[path = "../fuzz/targets/game_record.rs"]
mod game_record;
#[path = "../fuzz/targets/move_notation.rs"]
mod move_notation;
#[path = "../fuzz/targets/position.rs"]
mod position;
#[path = "../fuzz/targets/rules_spec.rs"]
mod rules_spec;
#[path = "../fuzz/targets/selfplay_report.rs"]
mod selfplay_report;
#[path = "../fuzz/targets/tablebase_file.rs"]
mod tablebase_file;
#[path = "../fuzz/targets/tournament_resume.rs"]
mod tournament_resume;

/// The inputs kept for `target`: its corpus and its regressions.
fn inputs(target: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut files = Vec::new();
    for dir in ["corpus", "regressions"] {
        if let Ok(entries) = fs::read_dir(root.join(dir).join(target)) {
            files.extend(
                entries
                    .filter_map(|e| e.ok())
                    .map(|e| e.path())
                    .filter(|p| p.is_file()),
            );
        }
    }
    files.sort();
    files
}

/// Runs `run` on every kept input of `target` (at least `min` of them), naming the input that
/// fails.
fn replay(target: &str, min: usize, run: fn(&[u8])) {
    let files = inputs(target);
    assert!(
        files.len() >= min,
        "{target}: {} inputs kept, expected at least {min}",
        files.len()
    );
    for f in files {
        let data = fs::read(&f).unwrap();
        let outcome = std::panic::catch_unwind(|| run(&data));
        assert!(outcome.is_ok(), "{target}: input {} fails", f.display());
    }
}

#[test]
fn rules_spec_corpus() {
    replay("rules_spec", 5, rules_spec::run);
}

#[test]
fn position_corpus() {
    replay("position", 5, position::run);
}

#[test]
fn move_notation_corpus() {
    replay("move_notation", 5, move_notation::run);
}

#[test]
fn game_record_corpus() {
    replay("game_record", 5, game_record::run);
}

#[test]
fn tournament_resume_corpus() {
    replay("tournament_resume", 3, tournament_resume::run);
}

#[test]
fn batch_snapshot_corpus() {
    replay("batch_snapshot", 3, batch_snapshot::run);
}

#[test]
fn selfplay_report_corpus() {
    replay("selfplay_report", 6, selfplay_report::run);
}

/// The self-play report target reaches the decoders: real reports and games are accepted (the
/// whole-range report joins as an iteration), and the framed mode (bit 1) starts after a valid
/// header.
#[test]
fn selfplay_report_target_reaches_the_decoders() {
    use awale::az::remote::{join_games, join_reports, PartReport};
    let cfg = selfplay_report::config();
    let samples = selfplay_report::samples();
    for s in &samples {
        selfplay_report::run(s);
    }
    let whole = &samples[4][1..];
    let report = PartReport::decode(&cfg, whole).unwrap();
    assert_eq!((report.shards, report.version), (0..2, 7));
    assert!(join_reports(&cfg, 7, &[whole.to_vec()]).is_ok());
    let mut sp = selfplay_report::learner_games(&cfg);
    assert!(join_games(&cfg, &mut sp, &[samples[5][1..].to_vec()]).is_ok());
    // Framed: the same report after its header (magic 8 bytes, digest 8) with bit 1 set.
    let mut framed = vec![2u8];
    framed.extend(&whole[16..]);
    selfplay_report::run(&framed);
}

#[test]
fn checkpoint_corpus() {
    replay("checkpoint", 3, checkpoint::run);
}

/// The checkpoint target reaches the decoders: a real checkpoint reads back, a framed payload
/// too, and damaged self-play states are refused rather than played.
#[test]
fn checkpoint_target_reaches_the_decoders() {
    use awale::az::checkpoint::Checkpoint;
    let ck = checkpoint::sample_checkpoint();
    let bytes = ck.to_bytes();
    assert_eq!(Checkpoint::from_bytes(&bytes).unwrap(), ck);
    let mut raw = vec![0u8];
    raw.extend(&bytes);
    checkpoint::run(&raw);
    let payload = checkpoint::payload_after_config(&ck);
    let framed = checkpoint::frame(&checkpoint::config(), &payload);
    assert_eq!(Checkpoint::from_bytes(&framed).unwrap(), ck);
    let mut odd = vec![1u8];
    odd.extend(&payload);
    checkpoint::run(&odd);
    // A game in progress whose position breaks the rules (to_move = 5) is refused.
    let text = String::from_utf8_lossy(&ck.selfplay).into_owned();
    assert!(
        text.contains("\"to_move\":"),
        "positions are JSON in the encoding"
    );
    let broken = text.replacen("\"to_move\":0", "\"to_move\":5", 1).replacen(
        "\"to_move\":1",
        "\"to_move\":5",
        1,
    );
    let cfg = checkpoint::config();
    let mut sp = awale::az::selfplay::SelfPlay::with_threads(
        cfg.rules().unwrap(),
        awale::az::selfplay::SelfPlaySettings::from_config(&cfg),
        4,
        1,
    );
    if broken.len() == ck.selfplay.len() && broken != text {
        let err = sp
            .decode(&mut awale::az::data::ByteReader::new(broken.as_bytes()))
            .unwrap_err();
        assert!(err.to_string().contains("does not fit"), "{err}");
    }
}

/// Writes the seed corpus of the checkpoint target (`cargo test --test fuzz_corpus --
/// --ignored write_checkpoint_seeds`).
#[test]
#[ignore]
fn write_checkpoint_seeds() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/checkpoint");
    fs::create_dir_all(&dir).unwrap();
    let ck = checkpoint::sample_checkpoint();
    let mut raw = vec![0u8];
    raw.extend(ck.to_bytes());
    fs::write(dir.join("seed-file"), raw).unwrap();
    let mut framed = vec![1u8];
    framed.extend(checkpoint::payload_after_config(&ck));
    fs::write(dir.join("seed-payload"), framed).unwrap();
    let mut empty = ck.clone();
    empty.selfplay.clear();
    empty.replay.clear();
    let mut short = vec![1u8];
    short.extend(checkpoint::payload_after_config(&empty));
    fs::write(dir.join("seed-no-games"), short).unwrap();
}

#[cfg(feature = "train")]
#[test]
fn checkpoint_records_corpus() {
    replay("checkpoint_records", 2, checkpoint_records::run);
}

/// The records target reaches burn's decoders: the real records load, and damaged ones (cut,
/// or with bytes flipped in their headers) are refused with an error, not a panic.
#[cfg(feature = "train")]
#[test]
fn checkpoint_records_target_reaches_the_records() {
    use awale::network::model::load_model;
    use awale::train::trainer::load_optimizer;
    let cfg = checkpoint_records::config();
    let device = awale::train::train_device();
    let seeds = checkpoint_records::seeds();
    let net = load_model(&cfg, &seeds[0][1..], &device).unwrap();
    assert!(load_optimizer(&cfg, &seeds[1][1..], &net).is_ok());
    for seed in &seeds {
        checkpoint_records::run(seed);
        let cut = &seed[..seed.len() / 2];
        checkpoint_records::run(cut);
        let body = &cut[1..];
        if seed[0] == 0 {
            assert!(load_model(&cfg, body, &device).is_err());
        } else {
            assert!(load_optimizer(&cfg, body, &net).is_err());
        }
        for at in [1, 8, 16, 32, 64] {
            let mut flipped = seed.clone();
            if at < flipped.len() {
                flipped[at] ^= 0xff;
                checkpoint_records::run(&flipped);
            }
        }
    }
    // An optimiser record of another network (another shape) is refused, with its reason.
    let mut wider = cfg.clone();
    wider.network.hidden = vec![16];
    let other = awale::network::model::PolicyValueNet::from_config(&wider, &device).unwrap();
    let Err(err) = load_optimizer(&wider, &seeds[1][1..], &other) else {
        panic!("an optimiser record of another network was accepted");
    };
    assert!(err.to_string().contains("its parameter f32"), "{err}");
    // A network record loaded into a network of another shape is refused.
    let mut bigger = cfg.clone();
    bigger.network.hidden = vec![48, 48, 48];
    let err = load_model(&bigger, &seeds[0][1..], &device).unwrap_err();
    assert!(err.to_string().contains("does not fit"), "{err}");
}

/// Writes the seed corpus of the records target (`cargo test --features train --test
/// fuzz_corpus -- --ignored write_checkpoint_records_seeds`).
#[cfg(feature = "train")]
#[test]
#[ignore]
fn write_checkpoint_records_seeds() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/checkpoint_records");
    fs::create_dir_all(&dir).unwrap();
    let seeds = checkpoint_records::seeds();
    fs::write(dir.join("seed-model"), &seeds[0]).unwrap();
    fs::write(dir.join("seed-optimizer"), &seeds[1]).unwrap();
}

#[test]
fn tablebase_file_corpus() {
    replay("tablebase_file", 4, tablebase_file::run);
}

/// The table-file target reaches the reader's checks: the valid file opens; framed values open
/// when in range and are refused when one exceeds the seeds.
#[test]
fn tablebase_file_target_reaches_the_checks() {
    use awale::tablebase::Tablebase;
    let file = tablebase_file::valid_file();
    let mut raw = vec![0u8];
    raw.extend(&file);
    tablebase_file::run(&raw);
    let dir = std::env::temp_dir().join(format!("awale-fuzz-tb-check-{}", std::process::id()));
    Tablebase::build(&awale::Rules::abapa(), 2, 1, &|_| {})
        .unwrap()
        .save(&dir)
        .unwrap();
    let open = |bytes: &[u8]| {
        fs::write(dir.join("abapa-02.awtb"), bytes).unwrap();
        Tablebase::open(&dir, &awale::Rules::abapa(), Some(2)).map(|_| ())
    };
    assert!(open(&file).is_ok());
    let values = &file[file.len() - 78..];
    assert!(open(&tablebase_file::framed(values)).is_ok());
    let mut bad = values.to_vec();
    bad[5] = 3;
    let e = open(&tablebase_file::framed(&bad)).unwrap_err().to_string();
    assert!(e.contains("above its 2 seeds"), "{e}");
    assert!(open(&file[..file.len() - 1]).is_err());
    let _ = fs::remove_dir_all(&dir);
}

/// Writes the seed inputs of the table-file target into its corpus (run by hand:
/// `cargo test --test fuzz_corpus -- --ignored write_tablebase_file_seeds`).
#[test]
#[ignore]
fn write_tablebase_file_seeds() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/tablebase_file");
    fs::create_dir_all(&dir).unwrap();
    let file = tablebase_file::valid_file();
    let values = file[file.len() - 78..].to_vec();
    let with = |kind: u8, body: &[u8]| [&[kind][..], body].concat();
    fs::write(dir.join("seed-file"), with(0, &file)).unwrap();
    fs::write(dir.join("seed-values"), with(1, &values)).unwrap();
    fs::write(dir.join("seed-truncated"), with(0, &file[..50])).unwrap();
    let mut high = values.clone();
    high[0] = 0x83;
    fs::write(dir.join("seed-cycle-flag"), with(1, &high)).unwrap();
}

#[test]
fn engine_corpus() {
    replay("engine", 5, engine::run);
}

/// The targets reject or accept hand-made inputs as documented (so that a target that checks
/// nothing is noticed).
#[test]
fn targets_accept_valid_inputs() {
    use awale::notation::{parse_move, parse_position, GameRecord};
    use awale::Rules;
    assert!("abapa:max_plies=200".parse::<Rules>().is_ok());
    rules_spec::run(b"abapa:max_plies=200");
    let (rules, _) = parse_position("abapa 4,4,4,4,4,4/4,4,4,4,4,4 0,0 0").unwrap();
    position::run(b"abapa 4,4,4,4,4,4/4,4,4,4,4,4 0,0 0");
    assert_eq!(parse_move(&rules, 0, "C").unwrap(), 2);
    move_notation::run(b"\x00C");
    let record = "[Rules \"abapa\"]\nC f A c\n";
    assert_eq!(record.parse::<GameRecord>().unwrap().moves.len(), 4);
    game_record::run(record.as_bytes());
    let games = tournament_resume::complete_games_file();
    assert_eq!(games.lines().count(), 2);
    let report = tournament_resume::resume(games.as_bytes()).unwrap();
    assert!(report.complete);
    // A bad line before good ones is refused (a bad last line is dropped as cut off).
    let bad = format!("{{\"index\": 99}}\n{games}");
    assert!(tournament_resume::resume(bad.as_bytes()).is_err());
    assert_eq!(
        tournament_resume::resume(b"{\"index\": 99}\n")
            .unwrap()
            .games_played,
        0
    );
    tournament_resume::run(games.as_bytes());
    engine::run(&[
        0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0, 0, 1, 2, 3, 4, 5, 6,
    ]);
}

/// Writes the seed corpus of every target (run by hand before fuzzing from scratch:
/// `cargo test --test fuzz_corpus -- --ignored write_seed_corpus`); cargo fuzz cmin then keeps
/// the inputs that add coverage.
#[test]
#[ignore]
fn write_seed_corpus() {
    use awale::batch::{Batch, BatchConfig, StepBuffers};
    use awale::notation::{format_position, GameRecord};
    use awale::rules::PRESET_SPECS;
    use awale::{Game, Rules};
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus");
    let put = |target: &str, name: &str, data: &[u8]| {
        let dir = root.join(target);
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join(format!("seed-{name}")), data).unwrap();
    };
    let specs = [
        "abapa:max_plies=200",
        "oware:players=3,seeds=3",
        "awale:houses=5",
        "wari:first=random",
        "oware4",
        "abapa:grand_slam=forbidden",
    ];
    for (i, s) in PRESET_SPECS.iter().chain(&specs).enumerate() {
        put("rules_spec", &i.to_string(), s.as_bytes());
    }
    for (i, spec) in PRESET_SPECS.iter().enumerate() {
        let rules: Rules = spec.parse().unwrap();
        let mut game = Game::with_seed(rules, i as u64);
        for k in 0..20 {
            let m = game.legal_moves();
            if m.is_empty() {
                break;
            }
            game.apply(m[k % m.len()]).unwrap();
        }
        put(
            "position",
            spec,
            format_position(&rules, game.state()).as_bytes(),
        );
        let record = GameRecord::from_game(&game);
        put("game_record", spec, record.to_string().as_bytes());
        let mut json = vec![0u8];
        json.extend(serde_json::to_vec(&record).unwrap());
        put("game_record", &format!("{spec}-json"), &json);
        for (k, text) in record.move_texts().iter().take(3).enumerate() {
            let mut data = vec![i as u8];
            data.extend(text.as_bytes());
            put("move_notation", &format!("{spec}-{k}"), &data);
        }
        let mut engine = vec![i as u8, 0];
        engine.extend(std::iter::repeat_n(4u8, rules.pits()));
        engine.extend(std::iter::repeat_n(0u8, rules.players as usize));
        engine.extend((0..60u8).map(|k| k.wrapping_mul(7) % 17));
        put("engine", spec, &engine);
        let mut batch = Batch::new(BatchConfig::new(rules, 3).with_seed(i as u64)).unwrap();
        let mut buf = StepBuffers::<f32>::for_batch(&batch);
        for _ in 0..10 {
            let actions: Vec<u32> = batch
                .states()
                .iter()
                .map(|s| s.legal_mask(&rules).trailing_zeros() % 16)
                .collect();
            batch.step(&actions, &mut buf.output()).unwrap();
        }
        put(
            "batch_snapshot",
            spec,
            &serde_json::to_vec(&batch.snapshot()).unwrap(),
        );
    }
    for (i, s) in selfplay_report::samples().iter().enumerate() {
        put("selfplay_report", &i.to_string(), s);
    }
    let games = tournament_resume::complete_games_file();
    put("tournament_resume", "complete", games.as_bytes());
    let first = games.lines().next().unwrap();
    put("tournament_resume", "one", format!("{first}\n").as_bytes());
    put(
        "tournament_resume",
        "cut",
        &games.as_bytes()[..games.len() - 40],
    );
}
