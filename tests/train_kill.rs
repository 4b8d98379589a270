//! `awale train` killed with SIGKILL in the middle of a run, then run again, ends with exactly
//! the checkpoint of a run that was never stopped, with 2 self-play threads.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use awale::az::checkpoint::Checkpoint;
use awale::az::selfplay::SelfPlay;

fn tempdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("awale-kill-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The `awale train` command of the test: a small network, a checkpoint every iteration.
fn train(out: &Path, iterations: u64) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_awale"));
    c.args([
        "train",
        "--config",
        concat!(env!("CARGO_MANIFEST_DIR"), "/training/tiny.toml"),
        "--no-eval",
        "--no-progress",
        "--threads",
        "2",
        "--out",
    ])
    .arg(out);
    for set in [
        format!("training.iterations={iterations}"),
        "network.hidden=[32]".into(),
        "selfplay.concurrent_games=8".into(),
        "selfplay.positions_per_iteration=48".into(),
        "selfplay.max_plies=120".into(),
        "search.sims=8".into(),
        "search.fast_sims=2".into(),
        "training.batch_size=16".into(),
        "training.steps_per_iteration=3".into(),
        "training.min_replay=16".into(),
        "eval.every=0".into(),
        "eval.calibration_games=0".into(),
        "checkpoint.every=1".into(),
    ] {
        c.arg("--set").arg(set);
    }
    c.stdout(Stdio::null()).stderr(Stdio::null());
    c
}

fn iteration_of(path: &Path) -> Option<u64> {
    Checkpoint::read(path).ok().map(|c| c.counters.iteration)
}

#[test]
fn a_killed_run_resumes_to_the_same_checkpoint() {
    let mut iterations = 12;
    for attempt in 0..4 {
        let whole = tempdir(&format!("whole-{attempt}"));
        let status = train(&whole, iterations).status().unwrap();
        assert!(status.success());
        let reference = Checkpoint::read(&whole.join("checkpoint.ckpt")).unwrap();
        assert_eq!(reference.counters.iteration, iterations);

        let cut = tempdir(&format!("cut-{attempt}"));
        let ckpt = cut.join("checkpoint.ckpt");
        let mut child = train(&cut, iterations).spawn().unwrap();
        let t0 = Instant::now();
        let mut killed = false;
        while t0.elapsed() < Duration::from_secs(120) {
            if let Some(i) = iteration_of(&ckpt) {
                if i >= 2 && i < iterations && child.try_wait().unwrap().is_none() {
                    child.kill().unwrap();
                    killed = true;
                    break;
                }
            }
            if child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        let _ = child.wait();
        if !killed {
            // The run was too fast to catch: try a longer one.
            iterations *= 3;
            continue;
        }
        let at = iteration_of(&ckpt).unwrap();
        assert!(at < iterations, "killed at {at}");
        eprintln!("killed at iteration {at} of {iterations} (attempt {attempt})");
        assert!(train(&cut, iterations).status().unwrap().success());
        let resumed = Checkpoint::read(&ckpt).unwrap();
        assert_eq!(resumed.counters.iteration, iterations);
        // The network after the resumed steps equals the uninterrupted one, so the optimiser
        // moments were restored exactly too (their record's bytes are not compared: burn
        // writes its map of parameters in a per-process order).
        assert!(
            resumed.model == reference.model,
            "network differs (killed at {at})"
        );
        assert!(
            resumed.replay == reference.replay,
            "replay differs (killed at {at})"
        );
        assert!(
            resumed.selfplay == reference.selfplay,
            "games differ (killed at {at})"
        );
        assert_eq!(SelfPlay::encoded_threads(&resumed.selfplay), Some(2));
        assert_eq!(resumed.rng, reference.rng);
        let (mut a, mut b) = (resumed.counters, reference.counters);
        (a.elapsed, b.elapsed) = (0.0, 0.0);
        assert_eq!(a, b);
        let _ = std::fs::remove_dir_all(&whole);
        let _ = std::fs::remove_dir_all(&cut);
        return;
    }
    panic!("every run finished before it could be killed");
}

#[test]
fn awale_train_builds_missing_tables_once_and_reports_the_time() {
    let dir = tempdir("tables");
    let tb = dir.join("tb");
    let run = |out: &str| {
        let mut c = train(&dir.join(out), 2);
        for set in [
            "rules=abapa:houses=4,seeds=3,win=13".to_string(),
            format!("selfplay.tablebase={}", tb.display()),
            "selfplay.tablebase_seeds=6".into(),
        ] {
            c.arg("--set").arg(set);
        }
        let o = c
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        (
            String::from_utf8_lossy(&o.stdout).to_string(),
            String::from_utf8_lossy(&o.stderr).to_string(),
        )
    };
    let (out, err) = run("a");
    assert!(
        err.contains("built the endgame tables of abapa up to 6 seeds"),
        "{err}"
    );
    assert!(out.contains("building the endgame tables"), "{out}");
    assert_eq!(tb.read_dir().unwrap().count(), 7, "layers 0 to 6");
    // A second run finds them.
    let (out, err) = run("b");
    assert!(!err.contains("built the endgame tables"), "{err}");
    assert!(!out.contains("building the endgame tables"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}
