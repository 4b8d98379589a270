//! Sizing a run to a machine (`awale::az::machine`, `awale train --machine`): the rule keeps
//! games in flight per thread, network versions per game, the replay ratio and the buffer's
//! iterations; the 16-core and GPU recipes are the 2-core recipe sized by it; bad machines and
//! recipes without a thread count are refused.

use std::path::Path;

use awale::az::machine::{
    games_per_position, replay_ratio, scale_to, Machine, GPU_GAMES_FACTOR, GPU_THREADS,
};
use awale::az::TrainConfig;

fn recipe(name: &str) -> TrainConfig {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("training")
        .join(name);
    TrainConfig::from_file(&path).unwrap()
}

/// What the rule keeps, between a recipe and its scaled run.
fn assert_shape_kept(base: &TrainConfig, scaled: &TrainConfig, per_thread_factor: usize) {
    let per_thread = |c: &TrainConfig| c.selfplay.concurrent_games / c.selfplay.threads;
    assert_eq!(per_thread(scaled), per_thread(base) * per_thread_factor);
    assert!((games_per_position(scaled) - games_per_position(base)).abs() < 1e-9);
    assert!((replay_ratio(scaled) - replay_ratio(base)).abs() < 1e-9);
    let buffer_iterations = |c: &TrainConfig| {
        c.training.replay_capacity as f64 / c.selfplay.positions_per_iteration as f64
    };
    assert!((buffer_iterations(scaled) - buffer_iterations(base)).abs() < 1e-6);
    // What the rule leaves alone.
    assert_eq!(scaled.network, base.network);
    assert_eq!(scaled.search, base.search);
    assert_eq!(scaled.training.iterations, base.training.iterations);
    assert_eq!(
        scaled.training.steps_per_iteration,
        base.training.steps_per_iteration
    );
    assert_eq!(scaled.training.lr, base.training.lr);
    assert_eq!(scaled.eval, base.eval);
    assert!(scaled.validate().is_ok());
}

#[test]
fn the_rule_keeps_the_shape_of_every_recipe() {
    for name in [
        "abapa.toml",
        "awale.toml",
        "wari.toml",
        "oware3.toml",
        "tiny.toml",
    ] {
        let base = recipe(name);
        if base.selfplay.threads == 0 {
            continue;
        }
        for threads in [1, 2, 3, 16, 64] {
            let scaled = scale_to(&base, Machine::Cpu { threads }).unwrap();
            assert_eq!(scaled.selfplay.threads, threads, "{name}");
            let k = threads as f64 / base.selfplay.threads as f64;
            let games = base.selfplay.concurrent_games as f64 * k;
            assert!((scaled.selfplay.concurrent_games as f64 - games).abs() < threads as f64);
            if base
                .selfplay
                .concurrent_games
                .is_multiple_of(base.selfplay.threads)
            {
                assert_shape_kept(&base, &scaled, 1);
            }
        }
        let gpu = scale_to(&base, Machine::Gpu { threads: 8 }).unwrap();
        if base
            .selfplay
            .concurrent_games
            .is_multiple_of(base.selfplay.threads)
        {
            assert_shape_kept(&base, &gpu, GPU_GAMES_FACTOR);
        }
    }
}

#[test]
fn the_same_machine_changes_nothing() {
    let base = recipe("abapa.toml");
    let same = scale_to(&base, Machine::Cpu { threads: 2 }).unwrap();
    assert_eq!(same, base);
}

/// `training/abapa-16core.toml` and `training/abapa-gpu.toml` are the 2-core recipe sized by
/// the rule (their iterations, time cap, evaluation and generations are their own).
#[test]
fn the_16_core_and_gpu_recipes_follow_the_rule() {
    let base = recipe("abapa.toml");
    for (file, machine) in [
        ("abapa-16core.toml", Machine::Cpu { threads: 16 }),
        (
            "abapa-gpu.toml",
            Machine::Gpu {
                threads: GPU_THREADS,
            },
        ),
    ] {
        let written = recipe(file);
        let mut derived = scale_to(&base, machine).unwrap();
        derived.name = written.name.clone();
        derived.training.iterations = written.training.iterations;
        derived.training.max_minutes = written.training.max_minutes;
        derived.eval = written.eval.clone();
        derived.checkpoint = written.checkpoint.clone();
        assert_eq!(
            written.to_toml(),
            derived.to_toml(),
            "{file} is not training/abapa.toml sized for {machine}"
        );
    }
}

#[test]
fn machines_parse_and_bad_ones_are_refused() {
    assert_eq!(
        "cpu:16".parse::<Machine>().unwrap(),
        Machine::Cpu { threads: 16 }
    );
    assert_eq!(
        "gpu".parse::<Machine>().unwrap(),
        Machine::Gpu {
            threads: GPU_THREADS
        }
    );
    assert_eq!(
        " gpu:4 ".parse::<Machine>().unwrap(),
        Machine::Gpu { threads: 4 }
    );
    assert!("cpu".parse::<Machine>().unwrap().threads() >= 1);
    assert!("auto".parse::<Machine>().unwrap().threads() >= 1);
    for bad in [
        "",
        "tpu",
        "cpu:0",
        "cpu:x",
        "cpu:100000",
        "gpu:-1",
        "auto:3",
        "cpu:16:2",
    ] {
        let e = bad.parse::<Machine>().unwrap_err().to_string();
        assert!(
            e.contains("expected auto, cpu, cpu:N, gpu or gpu:N"),
            "{bad}: {e}"
        );
    }
    assert_eq!(Machine::Cpu { threads: 16 }.to_string(), "cpu:16");
    let round: Machine = Machine::Gpu { threads: 8 }.to_string().parse().unwrap();
    assert_eq!(round, Machine::Gpu { threads: 8 });
}

#[test]
fn a_recipe_without_a_thread_count_is_refused() {
    let mut base = recipe("abapa.toml");
    base.selfplay.threads = 0;
    let e = scale_to(&base, Machine::Cpu { threads: 16 })
        .unwrap_err()
        .to_string();
    assert!(e.contains("selfplay.threads"), "{e}");
    // An invalid recipe is refused before it is scaled.
    let mut bad = recipe("abapa.toml");
    bad.training.batch_size = 0;
    assert!(scale_to(&bad, Machine::Cpu { threads: 16 }).is_err());
}

/// `awale train --machine`: the printed config is the recipe sized by the rule, `--set` applies
/// after it, and bad requests are refused with their reason.
#[cfg(feature = "train")]
#[test]
fn awale_train_sizes_a_recipe_for_a_machine() {
    use std::process::Command;
    let awale = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_awale"))
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap()
    };
    let base = ["train", "--config", "training/abapa.toml", "--print-config"];
    let out = awale(&[&base[..], &["--machine", "cpu:16"]].concat());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed = TrainConfig::from_toml_str(&String::from_utf8_lossy(&out.stdout)).unwrap();
    let expected = scale_to(&recipe("abapa.toml"), Machine::Cpu { threads: 16 }).unwrap();
    assert_eq!(printed, expected);
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("sized for cpu:16 from the recipe's 2 threads"));
    let out = awale(
        &[
            &base[..],
            &["--machine", "gpu", "--set", "selfplay.concurrent_games=100"],
        ]
        .concat(),
    );
    let printed = TrainConfig::from_toml_str(&String::from_utf8_lossy(&out.stdout)).unwrap();
    assert_eq!(printed.selfplay.concurrent_games, 100);
    assert_eq!(printed.selfplay.threads, GPU_THREADS);
    for (extra, reason) in [
        (&["--machine", "cpu:16", "--threads", "4"][..], "not both"),
        (&["--machine", "tpu"][..], "unknown machine"),
    ] {
        let out = awale(&[&base[..], extra].concat());
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(reason), "{err}");
    }
}

/// A tiny config sized for twice its threads trains: one iteration plays the scaled positions
/// on the scaled games and takes the recipe's gradient steps on the scaled batch.
#[cfg(feature = "train")]
#[test]
fn a_tiny_config_sized_for_another_machine_trains() {
    let mut tiny = TrainConfig::tiny();
    tiny.selfplay.threads = 1;
    tiny.training.min_replay = 256;
    let sized = scale_to(&tiny, Machine::Cpu { threads: 2 }).unwrap();
    assert_eq!(
        sized.selfplay.concurrent_games,
        2 * tiny.selfplay.concurrent_games
    );
    assert_eq!(sized.training.batch_size, 2 * tiny.training.batch_size);
    let mut trainer = awale::train::Trainer::new(sized.clone()).unwrap();
    trainer.iteration().unwrap();
    let c = trainer.counters();
    assert!(c.positions >= sized.selfplay.positions_per_iteration as u64);
    assert_eq!(c.train_steps as usize, sized.training.steps_per_iteration);
}
