//! The self-play trainer (cargo feature `train`): search, Gumbel policy improvement, exact resume
//! from checkpoints, refused checkpoints, and a tiny end-to-end run.
#![cfg(feature = "train")]

use std::path::PathBuf;

use awale::agents::Turn;
use awale::az::checkpoint::{Checkpoint, CheckpointError};
use awale::search::{
    completed_sigma, considered_visit_sequence, gumbel_improved_policy, Search, SearchKind,
    SearchSettings, UniformEvaluator, MAX_ACTIONS,
};
use awale::tournament::GameRunConfig;
use awale::train::run::{run, RunOptions};
use awale::train::{TrainConfig, TrainError, Trainer};
use awale::{Game, Rules, State};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn settings(kind: SearchKind) -> SearchSettings {
    SearchSettings::of_kind(kind)
}

/// Runs one search with the uniform network and returns its result.
fn search_uniform(
    rules: &Rules,
    state: State,
    kind: SearchKind,
    sims: u32,
) -> awale::train::GuidedSearchResult {
    let mut search = Search::new(*rules, settings(kind));
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    search.start(state, sims, None);
    search.run(&mut UniformEvaluator, &mut rng, None);
    assert!(search.is_done());
    search.result()
}

/// South (23 in store) wins at once by capturing 2 with house F; house A does nothing.
fn win_in_one_f() -> (Rules, State) {
    let rules = Rules::abapa();
    let pits = [1, 0, 0, 0, 0, 1, 1, 5, 0, 0, 0, 0];
    (
        rules,
        State::from_parts(&rules, &pits, &[23, 17], 0, 10).unwrap(),
    )
}

/// South wins at once with house E (2 seeds: F, then a 1 -> 2 captured); house B does not.
fn win_in_one_e() -> (Rules, State) {
    let rules = Rules::abapa();
    let pits = [0, 1, 0, 0, 2, 0, 1, 0, 4, 0, 0, 1];
    (
        rules,
        State::from_parts(&rules, &pits, &[23, 16], 0, 10).unwrap(),
    )
}

#[test]
fn search_finds_the_winning_move_with_a_uniform_network() {
    for (rules, state, want) in [
        (win_in_one_f().0, win_in_one_f().1, 5),
        (win_in_one_e().0, win_in_one_e().1, 4),
    ] {
        // The winning move really wins.
        let mut s = state;
        s.apply(&rules, want).unwrap();
        assert!(s.is_over() && s.scores()[0] >= 25, "{:?}", s);
        for kind in [SearchKind::Puct, SearchKind::Gumbel] {
            let r = search_uniform(&rules, state, kind, 32);
            assert_eq!(r.action, want, "{kind:?}: {r:?}");
            assert!(r.value[0] > 0.3, "{kind:?}: root value {:?}", r.value);
            assert!(
                r.policy[want] > 0.5,
                "{kind:?}: policy target {:?}",
                &r.policy[..6]
            );
        }
    }
}

#[test]
fn search_plays_a_whole_game_and_counts_simulations() {
    let rules = Rules::abapa();
    let end = awale::az::selfplay::play_out(
        &rules,
        settings(SearchKind::Gumbel),
        &mut UniformEvaluator,
        State::initial(&rules, 0),
        8,
    );
    assert!(end.is_over());
    let r = search_uniform(&rules, State::initial(&rules, 0), SearchKind::Puct, 50);
    assert_eq!(r.visits.iter().sum::<u32>(), 50);
    assert!((r.policy.iter().sum::<f32>() - 1.0).abs() < 1e-5);
}

#[test]
fn gumbel_improved_policy_matches_a_hand_computed_case() {
    // Actions 0, 1, 3 legal (2 illegal), logits (1, 0, [2], 0.5); action 0 visited 3 times with
    // mean value 0.5, action 1 once with -0.5; network value 0.2; c_visit 50, c_scale 0.1.
    let logits = [1.0f32, 0.0, 2.0, 0.5];
    let legal = 0b1011;
    let q = [0.5f32, -0.5, 0.0, 0.0];
    let n = [3u32, 1, 0, 0];
    let p = gumbel_improved_policy(&logits, legal, &q, &n, 0.2, 50.0, 0.1);
    // By hand: prior = softmax(1, 0, 0.5) over the legal actions.
    let z = 1f64.exp() + 1.0 + 0.5f64.exp();
    let prior = [1f64.exp() / z, 1.0 / z, 0.5f64.exp() / z];
    // v_mix = (0.2 + 4 * (p0 * 0.5 + p1 * -0.5) / (p0 + p1)) / 5
    let wq = (prior[0] * 0.5 - prior[1] * 0.5) / (prior[0] + prior[1]);
    let v_mix = (0.2 + 4.0 * wq) / 5.0;
    // Completed q = (0.5, -0.5, v_mix), min-max to (1, 0, (v_mix + 0.5) / 1).
    let qhat3 = v_mix + 0.5;
    // sigma = (50 + 3) * 0.1 * qhat
    let s = 5.3;
    let a = [1.0 + s * 1.0, 0.0, 0.5 + s * qhat3];
    let za: f64 = a.iter().map(|x| x.exp()).sum();
    let want = [a[0].exp() / za, a[1].exp() / za, 0.0, a[2].exp() / za];
    for (k, w) in want.iter().enumerate() {
        assert!(
            (p[k] as f64 - w).abs() < 1e-5,
            "action {k}: {} vs {w} ({p:?})",
            p[k]
        );
    }
    // The numbers themselves (computed by hand to 4 places).
    assert!((v_mix - 0.22485).abs() < 1e-4, "{v_mix}");
    assert!(
        (p[0] - 0.87494).abs() < 1e-3 && (p[3] - 0.12345).abs() < 1e-3,
        "{p:?}"
    );
    // sigma of the unvisited legal action is the rescaled mixed value.
    let mut prior32 = [0f32; MAX_ACTIONS];
    prior32[0] = prior[0] as f32;
    prior32[1] = prior[1] as f32;
    prior32[3] = prior[2] as f32;
    let sig = completed_sigma(&prior32, legal, &q, &n, 0.2, 50.0, 0.1);
    assert!((sig[0] - 5.3).abs() < 1e-5 && sig[1].abs() < 1e-6 && sig[2] == 0.0);
    assert!((sig[3] as f64 - s * qhat3).abs() < 1e-4);
    // Sequential halving schedule (mctx): 6 actions, 16 simulations.
    assert_eq!(
        considered_visit_sequence(6, 16),
        [0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5]
    );
}

/// A very small config for the loop tests.
fn micro_config() -> TrainConfig {
    let mut cfg = TrainConfig::tiny();
    cfg.name = "micro".into();
    cfg.network.hidden = vec![32];
    cfg.network.observation = "compact".into();
    cfg.search.sims = 8;
    cfg.search.fast_sims = 2;
    cfg.selfplay.concurrent_games = 8;
    cfg.selfplay.threads = 2;
    cfg.selfplay.positions_per_iteration = 48;
    cfg.selfplay.max_plies = 120;
    cfg.training.iterations = 4;
    cfg.training.batch_size = 16;
    cfg.training.steps_per_iteration = 3;
    cfg.training.min_replay = 16;
    cfg.training.warmup_steps = 2;
    cfg.eval.opponents = vec!["random".into()];
    cfg.eval.games = 2;
    cfg.eval.sims = 4;
    cfg.eval.calibration_games = 0;
    cfg
}

#[test]
fn a_resumed_checkpoint_takes_the_same_steps_bit_for_bit() {
    for (kind, threads) in [("gumbel", 2), ("puct", 3)] {
        let mut cfg = micro_config();
        cfg.set(&format!("search.kind={kind}")).unwrap();
        cfg.selfplay.threads = threads;
        // Uninterrupted: 4 iterations.
        let mut a = Trainer::new(cfg.clone()).unwrap();
        let mut losses_a = Vec::new();
        for _ in 0..4 {
            losses_a.push(a.iteration().unwrap().losses);
        }
        // Interrupted after 2, through a file.
        let mut b = Trainer::new(cfg.clone()).unwrap();
        let mut losses_b = Vec::new();
        for _ in 0..2 {
            losses_b.push(b.iteration().unwrap().losses);
        }
        let dir = tempdir(&format!("resume-{kind}"));
        let path = dir.join("ck.ckpt");
        b.checkpoint(1.0).unwrap().write(&path).unwrap();
        drop(b);
        let ck = Checkpoint::read(&path).unwrap();
        let mut c = Trainer::from_checkpoint(&ck, cfg.clone()).unwrap();
        assert_eq!(c.counters().iteration, 2);
        for _ in 0..2 {
            losses_b.push(c.iteration().unwrap().losses);
        }
        assert!(losses_a.iter().skip(1).all(|l| l.is_some()), "{losses_a:?}");
        assert_eq!(losses_a, losses_b, "{kind}: losses differ after resuming");
        let (pa, pc) = (a.model().param_values(), c.model().param_values());
        assert_eq!(pa.len(), pc.len());
        assert!(
            pa.iter().zip(&pc).all(|(x, y)| x.to_bits() == y.to_bits()),
            "{kind}: parameters differ after resuming"
        );
        let (mut ca, mut cc) = (*a.counters(), *c.counters());
        assert_eq!(cc.elapsed, 1.0); // carried over from the first session
        (ca.elapsed, cc.elapsed) = (0.0, 0.0);
        assert_eq!(ca, cc);
        assert_eq!(a.buffer(), c.buffer());
        // And the next checkpoints hold the same state.
        let (ka, kc) = (a.checkpoint(0.0).unwrap(), c.checkpoint(0.0).unwrap());
        assert_eq!(ka.model, kc.model, "{kind}: network records differ");
        assert_eq!(ka.rng, kc.rng);
        assert_eq!(ka.replay, kc.replay);
        assert_eq!(ka.selfplay, kc.selfplay, "{kind}: games in progress differ");
    }
}

/// With endgame tables in self-play (a small board whose tables build at once): the trainer
/// builds the missing tables itself, the tables end games, and a resumed run is still the
/// uninterrupted one bit for bit.
#[test]
fn a_run_with_tables_builds_them_ends_games_on_them_and_resumes_exactly() {
    let dir = tempdir("tables");
    let mut cfg = micro_config();
    cfg.rules = "abapa:houses=4,seeds=3,win=13".into();
    cfg.selfplay.tablebase = dir.join("tb").display().to_string();
    cfg.selfplay.tablebase_seeds = 8;
    cfg.set("selfplay.tablebase_samples=playout").unwrap();
    cfg.set("selfplay.tablebase_random=3").unwrap();
    let mut a = Trainer::new(cfg.clone()).unwrap();
    assert!(
        dir.join("tb").read_dir().unwrap().count() >= 9,
        "layers 0 to 8 saved"
    );
    let mut ends = 0;
    for _ in 0..4 {
        ends += a.iteration().unwrap().selfplay.tablebase_ends;
    }
    assert!(ends > 0, "no game ended on the tables");
    let mut b = Trainer::new(cfg.clone()).unwrap();
    for _ in 0..2 {
        b.iteration().unwrap();
    }
    let path = dir.join("ck.ckpt");
    b.checkpoint(1.0).unwrap().write(&path).unwrap();
    let mut c = Trainer::from_checkpoint(&Checkpoint::read(&path).unwrap(), cfg).unwrap();
    for _ in 0..2 {
        c.iteration().unwrap();
    }
    assert_eq!(a.buffer(), c.buffer());
    let (ka, kc) = (a.checkpoint(0.0).unwrap(), c.checkpoint(0.0).unwrap());
    assert_eq!(ka.model, kc.model);
    assert_eq!(ka.selfplay, kc.selfplay);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn corrupt_or_mismatched_checkpoints_are_refused() {
    let cfg = micro_config();
    let t = Trainer::new(cfg.clone()).unwrap();
    let bytes = t.checkpoint(0.0).unwrap().to_bytes();
    assert!(Checkpoint::from_bytes(&bytes).is_ok());

    let mut flipped = bytes.clone();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 0x40;
    assert!(matches!(
        Checkpoint::from_bytes(&flipped),
        Err(CheckpointError::Checksum { .. })
    ));
    assert!(matches!(
        Checkpoint::from_bytes(&bytes[..bytes.len() - 10]),
        Err(CheckpointError::Truncated) | Err(CheckpointError::Checksum { .. })
    ));
    assert_eq!(
        Checkpoint::from_bytes(b"PK\x03\x04 not a checkpoint"),
        Err(CheckpointError::NotACheckpoint)
    );
    let mut future = bytes.clone();
    future[8] = 99;
    assert!(matches!(
        Checkpoint::from_bytes(&future),
        Err(CheckpointError::UnsupportedVersion { found: 99, .. })
    ));

    let ck = Checkpoint::from_bytes(&bytes).unwrap();
    let mut other = cfg.clone();
    other.network.hidden = vec![48];
    let err = Trainer::from_checkpoint(&ck, other).unwrap_err();
    assert!(
        matches!(
            err,
            TrainError::Checkpoint(CheckpointError::ConfigMismatch { .. })
        ),
        "{err}"
    );
    assert!(err.to_string().contains("hidden=[32]"), "{err}");

    // Through files: the message names the problem; a stray temporary file is harmless.
    let dir = tempdir("refuse");
    let path = dir.join("bad.ckpt");
    std::fs::write(&path, &flipped).unwrap();
    let err = Checkpoint::read(&path).unwrap_err().to_string();
    assert!(err.contains("checksum"), "{err}");
    let good = dir.join("good.ckpt");
    ck.write(&good).unwrap();
    std::fs::write(dir.join(".good.ckpt.tmp-1"), &bytes[..100]).unwrap();
    assert_eq!(Checkpoint::read(&good).unwrap(), ck);
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names
        .iter()
        .any(|n| n.contains(&format!("tmp-{}", std::process::id()))));

    // A network from a mismatched file is refused by the agent registry with a clear error.
    let spec = format!("nn:path={}", path.display()).parse().unwrap();
    let e = awale::network::registry()
        .build(&spec, &Rules::abapa())
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("checksum"), "{e}");
}

#[test]
fn the_training_loop_runs_end_to_end_and_the_network_plays() {
    let mut cfg = micro_config();
    cfg.training.iterations = 3;
    cfg.checkpoint.every = 1;
    cfg.eval.every = 2;
    let dir = tempdir("e2e");
    let opts = RunOptions {
        out: dir.clone(),
        fresh: true,
        progress: false,
        final_eval: true,
    };
    let s = run(cfg.clone(), &opts).unwrap();
    assert_eq!((s.iterations, s.train_steps), (3, 9));
    assert!(s.games > 0 && s.positions >= 3 * 48);
    assert!(s.max_batch >= 2 && s.max_batch <= 8, "{}", s.max_batch);
    let eval = s.final_eval.expect("a final evaluation");
    assert_eq!(eval.results.len(), 1);
    assert!(dir.join("checkpoint.ckpt").exists());
    assert!(dir.join("final_eval.json").exists());
    let metrics = std::fs::read_to_string(dir.join("metrics.jsonl")).unwrap();
    assert!(metrics.contains("loss/policy") && metrics.contains("eval/elo"));
    let tb: Vec<_> = std::fs::read_dir(dir.join("tb")).unwrap().collect();
    assert!(!tb.is_empty(), "no TensorBoard event file");

    // Resuming a finished run does nothing more; more iterations continue it.
    let mut more = cfg.clone();
    more.training.iterations = 4;
    let s2 = run(
        more,
        &RunOptions {
            final_eval: false,
            fresh: false,
            ..opts
        },
    )
    .unwrap();
    assert!(s2.resumed);
    assert_eq!(s2.iterations, 4);

    // The network plays as an agent through the registry.
    let spec = format!("nn:path={},sims=8", dir.join("checkpoint.ckpt").display());
    let rules = Rules::abapa();
    let mut agent = awale::network::registry()
        .build(&spec.parse().unwrap(), &rules)
        .unwrap();
    let mut game = Game::new(rules);
    let mut other = awale::agents::build_agent("random", &rules).unwrap();
    while !game.is_over() && game.moves().len() < 400 {
        let mv = if game.to_move() == 0 {
            agent.select(&Turn::from_game(&game)).unwrap()
        } else {
            other.select(&Turn::from_game(&game)).unwrap()
        };
        game.apply(mv).unwrap();
    }
    let e = awale::network::registry()
        .build(&spec.parse().unwrap(), &Rules::oware(3).unwrap())
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("trained for"), "{e}");
}

#[test]
fn the_multiplayer_game_trains_with_per_player_values() {
    let mut cfg = micro_config();
    cfg.rules = "oware3".into();
    cfg.eval.opponents = vec!["random".into(), "greedy".into()];
    cfg.training.iterations = 2;
    let mut t = Trainer::new(cfg).unwrap();
    for _ in 0..2 {
        t.iteration().unwrap();
    }
    assert!(t.buffer().len() >= 96);
    // Every sample's values are per player, in range.
    for i in 0..t.buffer().len() {
        let s = t.buffer().get(i);
        assert!(s.value[..3].iter().all(|v| (-1.0..=1.0).contains(v)));
    }
    let r = t
        .evaluate(
            &["random".into(), "greedy".into()],
            4,
            None,
            &eval_run(3),
            false,
        )
        .unwrap();
    assert_eq!(r.results.len(), 2);
    // Each opponent fills every other seat: 3 games, 2 copies, 6 pairwise results.
    for (name, score, w, d, l) in &r.results {
        assert_eq!(w + d + l, 6, "{name}");
        assert!((0.0..=1.0).contains(score));
    }
    assert_eq!(r.results[0].0, "random");
}

#[test]
fn six_players_are_evaluated_against_one_opponent_in_every_other_seat() {
    let mut cfg = micro_config();
    cfg.rules = "oware6".into();
    cfg.training.iterations = 1;
    let mut t = Trainer::new(cfg).unwrap();
    t.iteration().unwrap();
    // One opponent for six seats: five copies of it (this failed: "2 agents cannot fill a
    // 6-player board").
    let r = t
        .evaluate(&["greedy".into()], 2, None, &eval_run(6), false)
        .unwrap();
    assert_eq!(r.results.len(), 1);
    let (name, _, w, d, l) = &r.results[0];
    assert_eq!((name.as_str(), w + d + l), ("greedy", 6 * 5));
}

/// An evaluation of `games` games per opponent, seed 1 (4-ply openings, as the config's).
fn eval_run(games: usize) -> GameRunConfig {
    let mut run = GameRunConfig::new(games);
    run.seed = 1;
    run
}

fn tempdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("awale-train-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Self-play workers in this process, behind the trait a Ray pool implements in Python: they
/// play when self-play is submitted and keep the reports until it is collected. `versions` are
/// the weights versions submitted.
struct InProcess {
    workers: Vec<awale::train::worker::SelfPlayWorker>,
    reports: Option<Vec<Vec<u8>>>,
    versions: Vec<u64>,
    /// The weights version whose self-play is lost for good (the workers give up), if any.
    fail_at: Option<u64>,
    /// The workers' games in progress after the last iteration collected (the learner's copy).
    held: Vec<Vec<u8>>,
}

impl awale::az::remote::RemoteSelfPlay for InProcess {
    fn start(&mut self, games: &[u8]) -> awale::train::TrainResult<()> {
        self.workers.iter_mut().try_for_each(|w| w.start(games))?;
        self.held = self.workers.iter().map(|w| w.games()).collect();
        Ok(())
    }
    fn submit(
        &mut self,
        weights: &[u8],
        version: u64,
        positions: usize,
    ) -> awale::train::TrainResult<()> {
        assert!(self.reports.is_none(), "submitted twice");
        self.versions.push(version);
        let reports = self
            .workers
            .iter_mut()
            .map(|w| w.play(weights, version, positions))
            .collect::<awale::train::TrainResult<_>>()?;
        self.reports = Some(reports);
        Ok(())
    }
    fn collect(&mut self) -> awale::train::TrainResult<Vec<Vec<u8>>> {
        let reports = self
            .reports
            .take()
            .expect("collected what was not submitted");
        if self.fail_at == self.versions.last().copied() {
            return Err(TrainError::Remote(
                "every worker of shard 1 was lost".into(),
            ));
        }
        self.held = self.workers.iter().map(|w| w.games()).collect();
        Ok(reports)
    }
    fn games(&mut self) -> awale::train::TrainResult<Vec<Vec<u8>>> {
        assert!(
            self.reports.is_none(),
            "games asked while self-play is in flight"
        );
        Ok(self.held.clone())
    }
}

/// A run into `dir` with no progress bar and no final evaluation (`fresh`: ignore a checkpoint
/// already there).
fn quiet_run(dir: &std::path::Path, fresh: bool) -> RunOptions {
    RunOptions {
        out: dir.to_path_buf(),
        fresh,
        progress: false,
        final_eval: false,
    }
}

fn in_process(cfg: &TrainConfig, workers: usize) -> InProcess {
    use awale::az::remote::worker_shards;
    InProcess {
        workers: (0..workers)
            .map(|w| {
                awale::train::worker::SelfPlayWorker::new(
                    cfg,
                    worker_shards(w, workers, cfg.selfplay.threads),
                )
                .unwrap()
            })
            .collect(),
        reports: None,
        versions: Vec::new(),
        fail_at: None,
        held: Vec::new(),
    }
}

#[test]
fn distributed_self_play_is_the_local_run_bit_for_bit() {
    let mut cfg = micro_config();
    cfg.selfplay.threads = 3; // three shards
    let mut local = Trainer::new(cfg.clone()).unwrap();
    let losses: Vec<_> = (0..3).map(|_| local.iteration().unwrap().losses).collect();
    let want = local.checkpoint(0.0).unwrap();
    for workers in [1, 2, 3] {
        let mut remote = in_process(&cfg, workers);
        let mut t = Trainer::new(cfg.clone()).unwrap();
        t.start_remote(&mut remote).unwrap();
        let got: Vec<_> = (0..3)
            .map(|_| t.iteration_remote(&mut remote, false).unwrap().losses)
            .collect();
        assert_eq!(got, losses, "{workers} workers");
        t.gather_remote(&mut remote).unwrap();
        let ck = t.checkpoint(0.0).unwrap();
        assert!(
            ck.model == want.model,
            "{workers} workers: network records differ"
        );
        assert!(
            ck.replay == want.replay,
            "{workers} workers: replay buffers differ"
        );
        assert!(
            ck.selfplay == want.selfplay,
            "{workers} workers: games in progress differ"
        );
        assert_eq!(ck.rng, want.rng);
        assert_eq!(ck.counters, want.counters);
    }
}

#[test]
fn a_distributed_run_writes_a_checkpoint_that_plays_and_resumes_locally() {
    use awale::network::NetCore;
    use awale::train::run::run_with;
    let mut cfg = micro_config();
    cfg.training.iterations = 2;
    let dir = tempdir("distributed");
    let opts = quiet_run(&dir, true);
    let mut remote = in_process(&cfg, 2);
    let s = run_with(cfg.clone(), &opts, Some(&mut remote)).unwrap();
    assert_eq!((s.iterations, s.positions > 0), (2, true));
    let path = dir.join("checkpoint.ckpt");
    let core = NetCore::load(&path).unwrap();
    assert_eq!(core.rules, cfg.rules().unwrap());
    // `awale train` goes on from it as from a local run's checkpoint: the same run as two
    // local iterations, then one more.
    let mut cfg3 = cfg.clone();
    cfg3.training.iterations = 3;
    let opts = RunOptions {
        fresh: false,
        ..opts
    };
    let s = run(cfg3.clone(), &opts).unwrap();
    assert!(s.resumed);
    assert_eq!(s.iterations, 3);
    let local_dir = tempdir("distributed-local");
    let local_opts = RunOptions {
        out: local_dir.clone(),
        ..opts.clone()
    };
    run(cfg.clone(), &local_opts).unwrap();
    run(cfg3.clone(), &local_opts).unwrap();
    let resumed = Checkpoint::read(&path).unwrap();
    let want = Checkpoint::read(&local_dir.join("checkpoint.ckpt")).unwrap();
    assert!(resumed.model == want.model, "network records differ");
    assert!(resumed.replay == want.replay, "replay buffers differ");
    assert!(
        resumed.selfplay == want.selfplay,
        "games in progress differ"
    );
    // A distributed run needs a fixed shard count; weights that do not load are refused.
    let mut zero = cfg.clone();
    zero.selfplay.threads = 0;
    let e = run_with(zero, &opts, Some(&mut in_process(&cfg, 1))).unwrap_err();
    assert!(e.to_string().contains("selfplay.threads"), "{e}");
    let mut w = awale::train::worker::SelfPlayWorker::new(&cfg, 0..1).unwrap();
    assert!(w.play(b"not a network", 0, 8).is_err());
}

#[test]
fn a_distributed_run_that_fails_is_saved_after_its_last_complete_iteration() {
    // The workers give up on iteration 3 (weights version 2): the run stops with that error,
    // and although `checkpoint.every = 0` would write nothing before the end, the folder has
    // the run after iteration 2 (the games in progress from the workers); resumed, the run is
    // the local one.
    use awale::train::run::run_with;
    let mut cfg = micro_config();
    cfg.training.iterations = 4;
    cfg.checkpoint.every = 0;
    let dir = tempdir("fails");
    let mut remote = in_process(&cfg, 2);
    remote.fail_at = Some(2);
    let e = run_with(cfg.clone(), &quiet_run(&dir, true), Some(&mut remote)).unwrap_err();
    assert!(e.to_string().contains("shard 1 was lost"), "{e}");
    let saved = Checkpoint::read(&dir.join("checkpoint.ckpt")).unwrap();
    assert_eq!(saved.counters.iteration, 2);
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !names.iter().any(|n| n.starts_with("checkpoint.ckpt.")),
        "a temporary file was left: {names:?}"
    );
    let s = run_with(
        cfg.clone(),
        &quiet_run(&dir, false),
        Some(&mut in_process(&cfg, 2)),
    )
    .unwrap();
    assert!(s.resumed && s.iterations == 4);
    let local = tempdir("fails-local");
    run(cfg.clone(), &quiet_run(&local, true)).unwrap();
    let (a, b) = (
        Checkpoint::read(&dir.join("checkpoint.ckpt")).unwrap(),
        Checkpoint::read(&local.join("checkpoint.ckpt")).unwrap(),
    );
    let count = |c: &awale::az::checkpoint::Counters| {
        (c.iteration, c.train_steps, c.games, c.positions, c.moves)
    };
    assert_eq!(count(&a.counters), count(&b.counters));
    assert!(a.selfplay == b.selfplay, "games in progress differ");
    assert!(a.replay == b.replay, "replay buffers differ");
    assert!(a.model == b.model, "network records differ");
    // The optimiser's state too, by its contents (its bytes are written in hash order).
    use awale::train::trainer::optimizer_crc32;
    assert_eq!(
        optimizer_crc32(&a.optimizer),
        optimizer_crc32(&b.optimizer),
        "optimiser states differ"
    );
}

#[test]
fn overlapped_distributed_self_play_drains_at_checkpoints_and_resumes_exactly() {
    use awale::train::run::run_with;
    let mut cfg = micro_config();
    cfg.selfplay.overlap = true;
    cfg.training.lr_schedule = "constant".into();
    cfg.training.warmup_steps = 0;
    cfg.training.iterations = 6;
    cfg.checkpoint.every = 3;
    // Straight through: the workers play iteration k+1 with the weights of before iteration
    // k's steps, except after a checkpoint (3) and at the start, where the pipeline refills.
    let a = tempdir("overlap-a");
    let mut remote = in_process(&cfg, 2);
    run_with(cfg.clone(), &quiet_run(&a, true), Some(&mut remote)).unwrap();
    assert_eq!(remote.versions, vec![0, 0, 1, 3, 3, 4]);
    // Stopped at the checkpoint of iteration 3, resumed with new workers: the same run.
    let b = tempdir("overlap-b");
    let mut half = cfg.clone();
    half.training.iterations = 3;
    run_with(half, &quiet_run(&b, true), Some(&mut in_process(&cfg, 2))).unwrap();
    let mut remote = in_process(&cfg, 1);
    let s = run_with(cfg.clone(), &quiet_run(&b, false), Some(&mut remote)).unwrap();
    assert!(s.resumed);
    assert_eq!(remote.versions, vec![3, 3, 4]);
    let (ka, kb) = (
        Checkpoint::read(&a.join("checkpoint.ckpt")).unwrap(),
        Checkpoint::read(&b.join("checkpoint.ckpt")).unwrap(),
    );
    assert!(ka.model == kb.model, "network records differ");
    assert!(ka.replay == kb.replay, "replay buffers differ");
    assert!(ka.selfplay == kb.selfplay, "games in progress differ");
    assert_eq!(
        awale::train::trainer::optimizer_crc32(&ka.optimizer),
        awale::train::trainer::optimizer_crc32(&kb.optimizer),
        "optimiser states differ"
    );
    // Without overlap every iteration plays with the newest weights.
    let c = tempdir("overlap-c");
    cfg.selfplay.overlap = false;
    let mut remote = in_process(&cfg, 2);
    run_with(cfg.clone(), &quiet_run(&c, true), Some(&mut remote)).unwrap();
    assert_eq!(remote.versions, vec![0, 1, 2, 3, 4, 5]);
}

/// `awale train --config tiny` (a built-in config by name, for installs without `training/`),
/// `awale network info/export`, and the exported safetensors file playing as `nn:path=FILE`
/// with the checkpoint's moves.
#[test]
fn a_network_exported_to_safetensors_plays_as_the_checkpoint() {
    use std::process::Command;
    let dir = tempdir("export-cli");
    let run = dir.join("run");
    let awale = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_awale"))
            .args(args)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        (out.status.success(), text)
    };
    let (ok, text) = awale(&[
        "train",
        "--config",
        "tiny",
        "--out",
        run.to_str().unwrap(),
        "--no-eval",
        "--no-progress",
    ]);
    assert!(ok, "{text}");
    let ckpt = run.join("checkpoint.ckpt");
    let st = dir.join("net.safetensors");
    let (ok, text) = awale(&["network", "info", ckpt.to_str().unwrap()]);
    assert!(
        ok && text.contains("encoding") && text.contains("abapa"),
        "{text}"
    );
    let (ok, text) = awale(&[
        "network",
        "export",
        ckpt.to_str().unwrap(),
        "--out",
        st.to_str().unwrap(),
    ]);
    assert!(ok, "{text}");
    let (ok, text) = awale(&["network", "info", "--json", st.to_str().unwrap()]);
    assert!(
        ok && text.contains("\"format\": \"awale-network\""),
        "{text}"
    );
    // Junk is refused with the reason, not a panic.
    std::fs::write(
        dir.join("junk.safetensors"),
        b"\x10\0\0\0\0\0\0\0{\"a\":1}        ",
    )
    .unwrap();
    let (ok, text) = awale(&[
        "network",
        "info",
        dir.join("junk.safetensors").to_str().unwrap(),
    ]);
    assert!(!ok && text.contains("not an awale network"), "{text}");
    // The same moves from both files.
    let reg = awale::network::registry();
    let rules = Rules::abapa();
    let moves: Vec<Vec<usize>> = [&ckpt, &st]
        .iter()
        .map(|path| {
            let spec = format!("nn:path={},sims=8", path.display());
            let mut agent = reg.build(&spec.parse().unwrap(), &rules).unwrap();
            agent.reset(3);
            let mut g = Game::new(rules);
            let mut moves = Vec::new();
            while moves.len() < 12 && !g.state().is_over() {
                let m = agent.select(&Turn::from_game(&g)).unwrap();
                moves.push(m);
                g.apply(m).unwrap();
            }
            moves
        })
        .collect();
    assert_eq!(moves[0], moves[1]);
    assert!(!moves[0].is_empty());
}

#[test]
fn the_network_agent_keeps_to_its_move_time_and_stops_on_its_signal() {
    use awale::agents::{Agent, StopSignal};
    use awale::network::NetCore;
    use awale::network::NnAgent;
    use std::sync::Arc;
    use std::time::{Duration, Instant};
    // A game that never ends on its own, and far more simulations than the time allows.
    let rules: Rules = "abapa:capture=200-200,cycle=ignore,max_plies=4294967295"
        .parse()
        .unwrap();
    let core = Arc::new(NetCore::fresh(&TrainConfig::tiny()).unwrap());
    let s = State::initial(&rules, 0);
    let legal = |mv: usize| s.legal_mask(&rules) >> mv & 1 == 1;
    for kind in [SearchKind::Gumbel, SearchKind::Puct] {
        let mut agent =
            NnAgent::new(core.clone(), "nn", 1_000_000, settings(kind)).with_move_time_ms(200);
        let t = Instant::now();
        let mv = agent.select(&Turn::new(&rules, &s)).unwrap();
        assert!(
            legal(mv) && t.elapsed() < Duration::from_millis(450),
            "{kind:?}: {:?}",
            t.elapsed()
        );

        // Raised from another thread.
        let mut agent = NnAgent::new(core.clone(), "nn", 1_000_000, settings(kind));
        let stop = StopSignal::new();
        agent.set_stop(stop.clone());
        let thinker = std::thread::spawn(move || {
            let mv = agent.select(&Turn::new(&rules, &s)).unwrap();
            (mv, Instant::now())
        });
        std::thread::sleep(Duration::from_millis(100));
        let stopped_at = Instant::now();
        stop.stop();
        let (mv, done) = thinker.join().unwrap();
        let late = done.saturating_duration_since(stopped_at);
        assert!(
            legal(mv) && late < Duration::from_millis(150),
            "{kind:?}: {late:?}"
        );

        // Raised before the move: one simulation, a legal move.
        let mut agent = NnAgent::new(core.clone(), "nn", 1_000_000, settings(kind));
        agent.set_stop(stop.clone());
        assert!(legal(agent.select(&Turn::new(&rules, &s)).unwrap()));
        assert_eq!(agent.thoughts().unwrap().nodes, Some(1), "{kind:?}");
    }
    // The option through the registry is known.
    let e = awale::network::registry()
        .build(
            &"nn:path=/nonexistent.ckpt,move_time_ms=100"
                .parse()
                .unwrap(),
            &rules,
        )
        .err()
        .unwrap()
        .to_string();
    assert!(!e.contains("unknown option"), "{e}");
}
