//! The batch simulator against the single-board engine, across threads, snapshots, reset modes
//! and bad input.

use awale::batch::{
    board_rng, encode_state, Batch, BatchConfig, BatchSnapshot, IllegalActionPolicy, ObsDtype,
    ObsEncoding, ObsScale, ObsSpec, ObsValue, Opening, Opponent, ResetMode, StepBuffers,
};
use awale::{Game, Rules, State, Status};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Counts heap allocations made by the current thread while `COUNTING` is set, to check that a
/// warm batch steps without allocating.
mod alloc_count {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    thread_local! {
        pub static COUNTING: Cell<bool> = const { Cell::new(false) };
        pub static COUNT: Cell<u64> = const { Cell::new(0) };
    }

    pub struct Counting;

    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            let _ = COUNTING.try_with(|c| {
                if c.get() {
                    COUNT.with(|n| n.set(n.get() + 1));
                }
            });
            unsafe { System.alloc(layout) }
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            unsafe { System.dealloc(ptr, layout) }
        }
    }

    /// Allocations made by `f` on this thread.
    pub fn count(f: impl FnOnce()) -> u64 {
        COUNT.with(|n| n.set(0));
        COUNTING.with(|c| c.set(true));
        f();
        COUNTING.with(|c| c.set(false));
        COUNT.with(|n| n.get())
    }
}

#[global_allocator]
static ALLOC: alloc_count::Counting = alloc_count::Counting;

const PRESETS: [&str; 8] = awale::rules::PRESET_SPECS;

/// The compact observation, written independently of the crate's encoder.
fn expected_compact(rules: &Rules, s: &State) -> Vec<f32> {
    let (n, h, p) = (rules.pits(), rules.houses as usize, rules.players as usize);
    let m = s.to_move();
    let mut v: Vec<f32> = (0..n).map(|j| s.pits()[(m * h + j) % n] as f32).collect();
    v.extend((0..p).map(|k| s.scores()[(m + k) % p] as f32));
    v.extend((0..p).map(|k| if k == m { 1.0 } else { 0.0 }));
    v
}

fn mask_vec(rules: &Rules, bits: u16) -> Vec<u8> {
    (0..rules.houses as usize)
        .map(|h| ((bits >> h) & 1) as u8)
        .collect()
}

/// A uniformly random legal action per board from the returned masks (0 where none is legal).
fn random_actions<O: awale::batch::ObsValue>(
    buf: &StepBuffers<O>,
    n: usize,
    rng: &mut ChaCha8Rng,
) -> Vec<i64> {
    (0..n)
        .map(|i| {
            let legal: Vec<usize> = buf
                .mask_of(i)
                .iter()
                .enumerate()
                .filter(|(_, &m)| m == 1)
                .map(|(h, _)| h)
                .collect();
            if legal.is_empty() {
                0
            } else {
                legal[rng.random_range(0..legal.len())] as i64
            }
        })
        .collect()
}

/// Every board of a self-play batch follows a `Game` fed the same moves, output by output.
fn check_against_engine(spec: &str, mode: ResetMode, boards: usize, steps: usize, seed: u64) {
    let rules: Rules = spec.parse().unwrap();
    let cfg = BatchConfig::new(rules, boards)
        .with_reset_mode(mode)
        .with_seed(seed)
        .with_threads(2);
    let mut batch = Batch::new(cfg).unwrap();
    let mut buf = StepBuffers::<f32>::for_batch(&batch);
    batch.reset(None, &mut buf.output()).unwrap();
    let p = rules.players as usize;
    let fresh = |s: &State| {
        assert_eq!(
            *s,
            State::initial(&rules, s.to_move()),
            "{spec}: a reset starts afresh"
        );
        Game::from_state(rules, *s)
    };
    let mut games: Vec<Game> = (0..boards)
        .map(|i| fresh(batch.state(i).unwrap()))
        .collect();
    let mut pending = vec![false; boards];
    let mut lengths = vec![0u32; boards];
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 99);
    let mut ended = 0;
    for (i, g) in games.iter().enumerate() {
        assert_eq!(buf.obs_of(i), expected_compact(&rules, g.state()));
    }
    for step in 0..steps {
        let actions: Vec<i64> = (0..boards)
            .map(|i| {
                if pending[i] {
                    return 99; // ignored: the board resets
                }
                assert_eq!(buf.mask_of(i), mask_vec(&rules, games[i].legal_mask()));
                let legal = games[i].legal_moves();
                legal[rng.random_range(0..legal.len())] as i64
            })
            .collect();
        // Self-play: the caller's reward is that of the seat that moved.
        let movers: Vec<usize> = games.iter().map(|g| g.to_move()).collect();
        batch.step(&actions, &mut buf.output()).unwrap();
        for i in 0..boards {
            let ctx = format!("{spec} {mode} step {step} board {i}");
            assert_eq!(buf.reward[i], buf.rewards_of(i)[movers[i]], "{ctx}");
            if pending[i] {
                pending[i] = false;
                assert!(!buf.terminated[i] && !buf.truncated[i], "{ctx}");
                assert!(buf.rewards_of(i).iter().all(|&r| r == 0.0), "{ctx}");
                assert_eq!(buf.episode_length[i], 0, "{ctx}");
                games[i] = fresh(batch.state(i).unwrap());
                lengths[i] = 0;
            } else {
                games[i].apply(actions[i] as usize).unwrap();
                lengths[i] += 1;
                let g = &games[i];
                if g.is_over() {
                    ended += 1;
                    assert_eq!(
                        buf.terminated[i],
                        matches!(g.status(), Status::Ended(_)),
                        "{ctx}"
                    );
                    assert_eq!(buf.truncated[i], g.status() == Status::Truncated, "{ctx}");
                    assert_eq!(buf.rewards_of(i), &g.returns()[..p], "{ctx}");
                    assert_eq!(buf.episode_length[i], lengths[i], "{ctx}");
                    let scores: Vec<u8> = g.scores().iter().map(|&x| x as u8).collect();
                    assert_eq!(buf.episode_scores_of(i), scores, "{ctx}");
                    if mode == ResetMode::SameStep {
                        assert_eq!(
                            buf.final_obs_of(i),
                            expected_compact(&rules, g.state()),
                            "{ctx}"
                        );
                        games[i] = fresh(batch.state(i).unwrap());
                        lengths[i] = 0;
                    } else {
                        assert_eq!(batch.state(i).unwrap(), g.state(), "{ctx}");
                        // The next step ignores the action: every house is accepted.
                        assert!(buf.mask_of(i).iter().all(|&m| m == 1), "{ctx}");
                        pending[i] = true;
                    }
                } else {
                    assert!(!buf.terminated[i] && !buf.truncated[i], "{ctx}");
                    assert!(buf.rewards_of(i).iter().all(|&r| r == 0.0), "{ctx}");
                    assert_eq!(buf.episode_length[i], 0, "{ctx}");
                }
            }
            let g = &games[i];
            assert_eq!(batch.state(i).unwrap(), g.state(), "{ctx}");
            assert_eq!(buf.obs_of(i), expected_compact(&rules, g.state()), "{ctx}");
            assert_eq!(buf.to_move[i] as usize, g.to_move(), "{ctx}");
            if !pending[i] {
                assert_eq!(buf.mask_of(i), mask_vec(&rules, g.legal_mask()), "{ctx}");
            }
        }
    }
    assert!(ended > boards, "{spec}: only {ended} episodes ended");
}

#[test]
fn every_preset_matches_the_engine_with_next_step_resets() {
    for spec in PRESETS {
        check_against_engine(spec, ResetMode::NextStep, 16, 3000, 1);
    }
}

#[test]
fn every_preset_matches_the_engine_with_same_step_resets() {
    for spec in PRESETS {
        check_against_engine(spec, ResetMode::SameStep, 16, 3000, 2);
    }
    // Truncation by the ply limit, and a cycle-ignoring variant.
    check_against_engine("abapa:max_plies=30", ResetMode::SameStep, 8, 400, 3);
    check_against_engine(
        "wari:cycle=ignore,max_plies=90",
        ResetMode::NextStep,
        8,
        400,
        4,
    );
}

/// Every output of `steps` steps with random legal actions, concatenated.
fn run_digest(cfg: BatchConfig, steps: usize) -> (Vec<u8>, BatchSnapshot) {
    let mut batch = Batch::new(cfg).unwrap();
    let n = batch.num_boards();
    let mut buf = StepBuffers::<f32>::for_batch(&batch);
    batch.reset(None, &mut buf.output()).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(1234);
    let mut digest = Vec::new();
    for _ in 0..steps {
        let actions = random_actions(&buf, n, &mut rng);
        batch.step(&actions, &mut buf.output()).unwrap();
        digest.extend(buf.obs.iter().flat_map(|x| x.to_le_bytes()));
        digest.extend(buf.final_obs.iter().flat_map(|x| x.to_le_bytes()));
        digest.extend(&buf.mask);
        digest.extend(buf.rewards.iter().flat_map(|x| x.to_le_bytes()));
        digest.extend(buf.reward.iter().flat_map(|x| x.to_le_bytes()));
        digest.extend(
            buf.terminated
                .iter()
                .chain(&buf.truncated)
                .map(|&b| b as u8),
        );
        digest.extend(&buf.to_move);
        digest.extend(buf.episode_length.iter().flat_map(|x| x.to_le_bytes()));
        digest.extend(&buf.episode_scores);
    }
    (digest, batch.snapshot())
}

#[test]
fn thread_count_does_not_change_anything() {
    for (spec, opp, mode) in [
        ("abapa", Opponent::Random, ResetMode::SameStep),
        ("oware3", Opponent::Greedy, ResetMode::NextStep),
        ("oware4", Opponent::Capture, ResetMode::NextStep),
        ("wari", Opponent::SelfPlay, ResetMode::SameStep),
    ] {
        let cfg = BatchConfig::new(spec.parse().unwrap(), 1001)
            .with_opponent(opp)
            .with_learner_seat(1)
            .with_reset_mode(mode)
            .with_opening(Opening::between(0, 6))
            .with_seed(77);
        let one = run_digest(cfg.clone().with_threads(1), 60);
        for t in [2, 8] {
            let other = run_digest(cfg.clone().with_threads(t), 60);
            assert!(one.0 == other.0, "{spec}: {t} threads differ from 1");
            assert_eq!(one.1, other.1, "{spec}: {t} threads end elsewhere");
        }
    }
}

#[test]
fn a_board_does_not_depend_on_the_rest_of_the_batch() {
    // Board i plays the same games in a batch of 5 and in a batch of 40 given the same actions.
    let rules = Rules::oware(4).unwrap();
    let cfg = |n| {
        BatchConfig::new(rules, n)
            .with_opponent(Opponent::Random)
            .with_opening(Opening::plies(3))
            .with_reset_mode(ResetMode::SameStep)
            .with_seed(5)
    };
    let mut small = Batch::new(cfg(5)).unwrap();
    let mut big = Batch::new(cfg(40).with_threads(2)).unwrap();
    let mut bs = StepBuffers::<u8>::for_batch(&small);
    let mut bb = StepBuffers::<u8>::for_batch(&big);
    small.observe(&mut bs.output()).unwrap();
    big.observe(&mut bb.output()).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    for _ in 0..300 {
        let actions = random_actions(&bb, 40, &mut rng);
        small.step(&actions[..5], &mut bs.output()).unwrap();
        big.step(&actions, &mut bb.output()).unwrap();
        assert_eq!(bs.obs[..], bb.obs[..bs.obs.len()]);
        assert_eq!(bs.rewards[..], bb.rewards[..bs.rewards.len()]);
        assert_eq!(small.states()[..], big.states()[..5]);
    }
}

#[test]
fn snapshot_and_restore_replay_identically() {
    let cfg = BatchConfig::new(Rules::oware(3).unwrap(), 33)
        .with_opponent(Opponent::Random)
        .with_learner_seat(2)
        .with_opening(Opening::between(1, 5))
        .with_reset_mode(ResetMode::NextStep)
        .with_threads(2)
        .with_seed(11);
    let mut batch = Batch::new(cfg.clone()).unwrap();
    let mut buf = StepBuffers::<f32>::for_batch(&batch);
    batch.reset(None, &mut buf.output()).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for _ in 0..60 {
        let a = random_actions(&buf, 33, &mut rng);
        batch.step(&a, &mut buf.output()).unwrap();
    }
    let snap = batch.snapshot();
    let json = serde_json::to_string(&snap).unwrap();
    let buf_at_snap = buf.clone();
    let mut actions = Vec::new();
    let mut outputs = Vec::new();
    for _ in 0..200 {
        let a = random_actions(&buf, 33, &mut rng);
        batch.step(&a, &mut buf.output()).unwrap();
        actions.push(a);
        outputs.push(buf.clone());
    }
    let end = batch.snapshot();

    // Restore into the same batch, and into a fresh batch with another seed, from JSON.
    let from_json: BatchSnapshot = serde_json::from_str(&json).unwrap();
    assert_eq!(from_json, snap);
    let mut other = Batch::new(cfg.with_seed(999)).unwrap();
    for (b, restored) in [(&mut batch, &snap), (&mut other, &from_json)] {
        b.restore(restored).unwrap();
        let mut out = buf_at_snap.clone();
        for (a, expected) in actions.iter().zip(&outputs) {
            b.step(a, &mut out.output()).unwrap();
            assert_eq!(&out, expected);
        }
        assert_eq!(b.snapshot(), end);
    }
    // observe() rebuilds the observations after a restore.
    other.restore(&snap).unwrap();
    let mut fresh = StepBuffers::<f32>::for_batch(&other);
    other.observe(&mut fresh.output()).unwrap();
    assert_eq!(fresh.obs, buf_at_snap.obs);
    assert_eq!(fresh.mask, buf_at_snap.mask);
    assert_eq!(fresh.to_move, buf_at_snap.to_move);
}

#[test]
fn restore_refuses_foreign_or_corrupt_snapshots() {
    let mut a = Batch::new(BatchConfig::new(Rules::abapa(), 4)).unwrap();
    let b = Batch::new(BatchConfig::new(Rules::abapa(), 5)).unwrap();
    let c = Batch::new(BatchConfig::new(Rules::wari(), 4)).unwrap();
    let before = a.snapshot();
    let e = a.restore(&b.snapshot()).unwrap_err();
    assert!(e.to_string().contains("5 boards"), "{e}");
    let e = a.restore(&c.snapshot()).unwrap_err();
    assert!(e.to_string().contains("wari"), "{e}");
    // A position with a seed too many.
    let mut json: serde_json::Value = serde_json::to_value(a.snapshot()).unwrap();
    json["boards"][2]["state"]["pits"][0] = serde_json::json!(5);
    let bad: BatchSnapshot = serde_json::from_value(json).unwrap();
    let e = a.restore(&bad).unwrap_err();
    assert!(e.to_string().contains("board 2"), "{e}");
    // A game said to go on where the player to move has no move.
    let mut json: serde_json::Value = serde_json::to_value(a.snapshot()).unwrap();
    let state = &mut json["boards"][1]["state"];
    state["pits"] = serde_json::json!([0, 0, 0, 0, 0, 0, 8, 8, 8, 8, 8, 8, 0, 0, 0, 0]);
    state["scores"] = serde_json::json!([0, 0, 0, 0, 0, 0]);
    state["to_move"] = serde_json::json!(0);
    let bad: BatchSnapshot = serde_json::from_value(json).unwrap();
    let e = a.restore(&bad).unwrap_err();
    assert!(e.to_string().contains("board 1"), "{e}");
    // Repetition histories with impossible positions: seeds in pit 13, past the board (byte 5
    // of the high word), a player who does not exist, more seeds than the game has.
    for (lo, hi, mover) in [(0u64, 1u64 << 40, 0u8), (0, 0, 2), (u64::MAX, 0, 0)] {
        let mut json: serde_json::Value = serde_json::to_value(a.snapshot()).unwrap();
        json["boards"][3]["history"] = serde_json::json!([[lo, hi, mover]]);
        let bad: BatchSnapshot = serde_json::from_value(json).unwrap();
        let e = a.restore(&bad).unwrap_err();
        assert!(
            e.to_string()
                .contains("board 3 has a corrupt repetition history"),
            "{e}"
        );
    }
    assert_eq!(a.snapshot(), before);
}

#[test]
fn reset_with_a_seed_equals_a_new_batch_and_streams_continue_without_one() {
    let cfg = BatchConfig::new(Rules::oware(6).unwrap(), 16).with_opening(Opening::plies(4));
    let mut a = Batch::new(cfg.clone().with_seed(3)).unwrap();
    let mut b = Batch::new(cfg.clone().with_seed(4)).unwrap();
    let mut buf = StepBuffers::<u8>::for_batch(&a);
    b.reset(Some(3), &mut buf.output()).unwrap();
    assert_eq!(a.snapshot(), b.snapshot());
    assert_eq!(b.config().seed, 3);
    let first = a.snapshot();
    a.reset(None, &mut buf.output()).unwrap();
    assert_ne!(a.snapshot(), first);
    // Openings differ from board to board, and have 4 plies.
    let distinct: std::collections::HashSet<_> = a.states().iter().map(|s| s.key()).collect();
    assert!(distinct.len() > 8);
    assert!(a.states().iter().all(|s| s.ply() == 4));
}

fn truncating(mode: ResetMode) -> (Batch, StepBuffers<f32>) {
    // Every game is truncated after 4 plies.
    let cfg = BatchConfig::new("abapa:max_plies=4".parse().unwrap(), 3)
        .with_reset_mode(mode)
        .with_seed(1);
    let mut batch = Batch::new(cfg).unwrap();
    let mut buf = StepBuffers::for_batch(&batch);
    batch.reset(None, &mut buf.output()).unwrap();
    for actions in [[0u8, 1, 2], [0, 1, 2], [3, 4, 5]] {
        batch.step(&actions, &mut buf.output()).unwrap();
        assert!(!buf.truncated.iter().any(|&t| t));
    }
    (batch, buf)
}

#[test]
fn next_step_reset_returns_final_then_first_observation() {
    let (mut batch, mut buf) = truncating(ResetMode::NextStep);
    batch.step(&[3u8, 4, 5], &mut buf.output()).unwrap();
    assert_eq!(buf.truncated, [true; 3]);
    assert_eq!(buf.terminated, [false; 3]);
    assert_eq!(buf.episode_length, [4; 3]);
    assert!(buf.mask.iter().all(|&m| m == 1)); // any action is accepted next
                                               // `observe` shows the same masks.
    let shown = buf.clone();
    batch.observe(&mut buf.output()).unwrap();
    assert_eq!(buf.mask, shown.mask);
    let rules = *batch.rules();
    for i in 0..3 {
        assert_eq!(batch.state(i).unwrap().ply(), 4);
        assert_eq!(
            buf.obs_of(i),
            expected_compact(&rules, batch.state(i).unwrap())
        );
    }
    assert_eq!(batch.done(), [true; 3]);
    // The next step ignores the actions, whatever they are.
    batch.step(&[-7i64, 100, 0], &mut buf.output()).unwrap();
    assert_eq!(buf.truncated, [false; 3]);
    assert_eq!(buf.episode_length, [0; 3]);
    let start = State::initial(&rules, 0);
    for i in 0..3 {
        assert_eq!(*batch.state(i).unwrap(), start);
        assert_eq!(buf.obs_of(i), expected_compact(&rules, &start));
        assert_eq!(buf.mask_of(i), [1; 6]);
    }
}

#[test]
fn same_step_reset_keeps_the_final_observation() {
    let (mut batch, mut buf) = truncating(ResetMode::SameStep);
    let rules = *batch.rules();
    let mut before = batch.states().to_vec();
    let actions = [3u8, 4, 5];
    for (s, &a) in before.iter_mut().zip(&actions) {
        s.apply(&rules, a as usize).unwrap();
    }
    batch.step(&actions, &mut buf.output()).unwrap();
    assert_eq!(buf.truncated, [true; 3]);
    let start = State::initial(&rules, 0);
    for (i, last) in before.iter().enumerate() {
        assert_eq!(last.status(), Status::Truncated);
        assert_eq!(buf.final_obs_of(i), expected_compact(&rules, last));
        assert_eq!(buf.obs_of(i), expected_compact(&rules, &start));
        assert_eq!(buf.mask_of(i), [1; 6]);
        assert_eq!(*batch.state(i).unwrap(), start);
    }
    // Without a final_obs buffer the step still works.
    let mut out = buf.output();
    out.final_obs = None;
    batch.step(&[0u8, 0, 0], &mut out).unwrap();
}

#[test]
fn disabled_reset_waits_for_a_partial_reset() {
    let (mut batch, mut buf) = truncating(ResetMode::Disabled);
    batch.step(&[3u8, 4, 5], &mut buf.output()).unwrap();
    assert_eq!(buf.truncated, [true; 3]);
    assert!(buf.mask.iter().all(|&m| m == 0)); // no move until a reset
    let snap = batch.snapshot();
    let e = batch.step(&[0u8, 0, 0], &mut buf.output()).unwrap_err();
    assert_eq!(e, awale::AwaleError::EpisodeOver { board: 0 });
    assert!(
        e.to_string().contains("board 0: its episode is over"),
        "{e}"
    );
    assert_eq!(batch.snapshot(), snap);

    let kept = buf.clone();
    batch.reset_boards(&[1, 1], &mut buf.output()).unwrap();
    let rules = *batch.rules();
    let start = State::initial(&rules, 0);
    assert_eq!(*batch.state(1).unwrap(), start);
    assert_eq!(batch.done(), [true, false, true]);
    assert_eq!(buf.obs_of(0), kept.obs_of(0)); // other rows untouched
    assert_eq!(buf.obs_of(1), expected_compact(&rules, &start));
    assert_eq!(buf.truncated, [true, false, true]);
    assert_eq!(batch.state(0).unwrap().ply(), 4);
    let e = batch.step(&[0u8, 0, 0], &mut buf.output()).unwrap_err();
    assert!(e.to_string().contains("board 0"), "{e}");

    let e = batch.reset_boards(&[0, 3], &mut buf.output()).unwrap_err();
    assert!(e.to_string().contains("board 3"), "{e}");
    assert_eq!(batch.done(), [true, false, true]);
    assert!(batch.reset_where(&[true], &mut buf.output()).is_err());
    batch
        .reset_where(&[true, false, true], &mut buf.output())
        .unwrap();
    assert_eq!(batch.done(), [false; 3]);
    batch.step(&[0u8, 0, 0], &mut buf.output()).unwrap();
}

/// A batch of 4 abapa boards where South's house 2 is empty and South is to move.
fn with_empty_house(illegal: IllegalActionPolicy) -> (Batch, StepBuffers<f32>) {
    let cfg = BatchConfig::new(Rules::abapa(), 4).with_illegal(illegal);
    let mut batch = Batch::new(cfg).unwrap();
    let mut buf = StepBuffers::for_batch(&batch);
    batch.reset(None, &mut buf.output()).unwrap();
    batch.step(&[2u32; 4], &mut buf.output()).unwrap();
    batch.step(&[0u32; 4], &mut buf.output()).unwrap();
    (batch, buf)
}

#[test]
fn illegal_actions_are_refused_with_nothing_changed() {
    let (mut batch, mut buf) = with_empty_house(IllegalActionPolicy::Error);
    let snap = batch.snapshot();
    let kept = buf.clone();
    let e = batch.step(&[0u32, 0, 0, 2], &mut buf.output()).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("board 3: action 2 is not legal"), "{msg}");
    assert!(msg.contains("empty"), "{msg}");
    assert!(
        matches!(&e, awale::AwaleError::IllegalAction { board: 3, action: 2, reason }
            if reason == "is not legal: the house is empty"),
        "{e:?}"
    );
    for (bad, board, action) in [
        ([0i64, -1, 0, 0], 1, -1i128),
        ([0, 0, 6, 0], 2, 6),
        ([0, 0, 0, i64::MAX], 3, i64::MAX as i128),
    ] {
        let e = batch.step(&bad, &mut buf.output()).unwrap_err();
        assert!(e.to_string().contains("out of range 0..5"), "{e}");
        assert!(
            matches!(e, awale::AwaleError::IllegalAction { board: b, action: a, .. }
                if b == board && a == action),
            "{e:?}"
        );
    }
    assert!(batch
        .step(&[0u32; 3], &mut buf.output())
        .unwrap_err()
        .to_string()
        .contains("3 actions for 4 boards"));
    assert_eq!(batch.snapshot(), snap);
    assert_eq!(buf, kept);
}

#[test]
fn parallel_validation_names_the_first_bad_board() {
    let mut batch = Batch::new(BatchConfig::new(Rules::abapa(), 3000).with_threads(2)).unwrap();
    let mut buf = StepBuffers::<u8>::for_batch(&batch);
    let snap = batch.snapshot();
    let mut actions = vec![0i32; 3000];
    actions[2999] = 9;
    actions[1777] = -2;
    let e = batch.step(&actions, &mut buf.output()).unwrap_err();
    assert!(
        e.to_string()
            .contains("board 1777: action -2 is out of range"),
        "{e}"
    );
    assert_eq!(batch.snapshot(), snap);
    actions[1777] = 0;
    let e = batch.step(&actions, &mut buf.output()).unwrap_err();
    assert!(e.to_string().contains("board 2999: action 9"), "{e}");
    actions[2999] = 5;
    batch.step(&actions, &mut buf.output()).unwrap();
}

#[test]
fn wrong_buffer_lengths_are_refused() {
    let mut batch = Batch::new(BatchConfig::new(Rules::oware(3).unwrap(), 5)).unwrap();
    let snap = batch.snapshot();
    let fields = [
        "obs",
        "mask",
        "rewards",
        "reward",
        "terminated",
        "truncated",
        "to_move",
        "episode_length",
        "episode_scores",
        "final_obs",
    ];
    for field in fields {
        let mut buf = StepBuffers::<u8>::for_batch(&batch);
        match field {
            "obs" => drop(buf.obs.pop()),
            "mask" => buf.mask.push(0),
            "rewards" => drop(buf.rewards.pop()),
            "reward" => buf.reward.push(0.0),
            "terminated" => drop(buf.terminated.pop()),
            "truncated" => buf.truncated.push(false),
            "to_move" => drop(buf.to_move.pop()),
            "episode_length" => drop(buf.episode_length.pop()),
            "episode_scores" => drop(buf.episode_scores.pop()),
            _ => buf.final_obs.push(0),
        }
        let e = batch.step(&[0u8; 5], &mut buf.output()).unwrap_err();
        assert!(
            e.to_string().contains(&format!("{field} buffer")),
            "{field}: {e}"
        );
        assert!(batch.reset(None, &mut buf.output()).is_err());
        assert!(batch.reset_boards(&[0], &mut buf.output()).is_err());
        assert!(batch.observe(&mut buf.output()).is_err());
    }
    assert_eq!(batch.snapshot(), snap);
}

#[test]
fn illegal_actions_can_lose_the_game() {
    let (mut batch, mut buf) = with_empty_house(IllegalActionPolicy::Loss);
    let before = *batch.state(3).unwrap();
    batch.step(&[0u32, 0, 0, 2], &mut buf.output()).unwrap();
    assert_eq!(buf.terminated, [false, false, false, true]);
    assert_eq!(buf.rewards_of(3), &[-1.0, 0.0]);
    assert_eq!(buf.rewards_of(0), &[0.0, 0.0]);
    assert_eq!(buf.episode_length[3], 3);
    assert_eq!(*batch.state(3).unwrap(), before); // the illegal move was not played
    assert_eq!(buf.reward, [0.0, 0.0, 0.0, -1.0]); // South chose the illegal action
    assert_eq!(buf.mask_of(3), [1; 6]); // next-step reset: any action is accepted
                                        // Out-of-range actions are still errors.
    assert!(batch.step(&[7u32, 0, 0, 0], &mut buf.output()).is_err());
    // ... but board 3's action is ignored: it starts again.
    batch.step(&[1u32, 1, 1, 0], &mut buf.output()).unwrap();
    assert_eq!(*batch.state(3).unwrap(), State::initial(&Rules::abapa(), 0));
}

/// A batch with a built-in opponent against a hand-made mirror: a state per board, the board's
/// own random stream, and the opponent's `choose`.
fn check_opponent(spec: &str, opponent: Opponent, seat: u8) {
    let rules: Rules = spec.parse().unwrap();
    let n = 10;
    let cfg = BatchConfig::new(rules, n)
        .with_opponent(opponent.clone())
        .with_learner_seat(seat)
        .with_reset_mode(ResetMode::SameStep)
        .with_threads(2)
        .with_seed(21);
    let mut batch = Batch::new(cfg).unwrap();
    let mut buf = StepBuffers::<f32>::for_batch(&batch);
    let mut rngs: Vec<ChaCha8Rng> = (0..n).map(|i| board_rng(21, i)).collect();
    let p = rules.players as usize;
    let seat = seat as usize;
    let reply = |g: &mut Game, rng: &mut ChaCha8Rng| {
        while !g.is_over() && g.to_move() != seat {
            let h = opponent.choose(&rules, g.state(), rng).unwrap();
            g.apply(h).unwrap();
        }
    };
    // A reset redraws (up to 64 times) when the opponent ends the game before the learner moves.
    let start = |rng: &mut ChaCha8Rng| {
        let mut g = Game::new(rules);
        for _ in 0..64 {
            let first = match rules.first_player {
                awale::FirstPlayer::Random => rng.random_range(0..p),
                awale::FirstPlayer::Fixed(f) => f as usize,
            };
            g = Game::from_state(rules, State::initial(&rules, first));
            reply(&mut g, rng);
            if !g.is_over() {
                break;
            }
        }
        g
    };
    let mut games: Vec<Game> = rngs.iter_mut().map(start).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let mut ended = 0;
    batch.observe(&mut buf.output()).unwrap();
    for step in 0..400 {
        let actions = random_actions(&buf, n, &mut rng);
        batch.step(&actions, &mut buf.output()).unwrap();
        for i in 0..n {
            let ctx = format!("{spec} {} step {step} board {i}", opponent.name());
            let g = &mut games[i];
            g.apply(actions[i] as usize).unwrap();
            reply(g, &mut rngs[i]);
            if g.is_over() {
                ended += 1;
                assert!(buf.terminated[i] || buf.truncated[i], "{ctx}");
                assert_eq!(buf.rewards_of(i), &g.returns()[..p], "{ctx}");
                assert_eq!(
                    buf.final_obs_of(i),
                    expected_compact(&rules, g.state()),
                    "{ctx}"
                );
                *g = start(&mut rngs[i]);
            } else {
                assert!(buf.rewards_of(i).iter().all(|&r| r == 0.0), "{ctx}");
            }
            assert_eq!(batch.state(i).unwrap(), g.state(), "{ctx}");
            assert_eq!(buf.reward[i], buf.rewards_of(i)[seat], "{ctx}");
            assert_eq!(buf.to_move[i] as usize, seat, "{ctx}");
            assert_eq!(buf.obs_of(i), expected_compact(&rules, g.state()), "{ctx}");
        }
    }
    assert!(ended >= n, "{spec}: {ended} episodes");
}

#[test]
fn built_in_opponents_play_the_other_seats() {
    check_opponent("abapa", Opponent::Random, 1);
    check_opponent("abapa", Opponent::Greedy, 0);
    check_opponent("oware3", Opponent::Greedy, 2);
    check_opponent("abapa", Opponent::Capture, 1);
    check_opponent("oware4", Opponent::Capture, 3);
    check_opponent("oware6", Opponent::Random, 0);
}

#[test]
fn every_encoding_and_element_type_writes_its_layout() {
    for spec in PRESETS {
        let rules: Rules = spec.parse().unwrap();
        for enc in [
            ObsEncoding::Compact,
            ObsEncoding::OneHot { levels: 16 },
            ObsEncoding::Thermometer { levels: 5 },
        ] {
            let cfg = BatchConfig::new(rules, 6)
                .with_obs(enc)
                .with_opening(Opening::between(0, 30))
                .with_seed(9);
            let mut a = Batch::new(cfg.clone()).unwrap();
            let mut b = Batch::new(cfg).unwrap();
            assert_eq!(a.obs_dim(), enc.dim(&rules));
            let mut fa = StepBuffers::<f32>::for_batch(&a);
            let mut ub = StepBuffers::<u8>::for_batch(&b);
            let mut rng = ChaCha8Rng::seed_from_u64(4);
            a.observe(&mut fa.output()).unwrap();
            b.observe(&mut ub.output()).unwrap();
            for _ in 0..50 {
                let actions = random_actions(&fa, 6, &mut rng);
                a.step(&actions, &mut fa.output()).unwrap();
                b.step(&actions, &mut ub.output()).unwrap();
                let as_f32: Vec<f32> = ub.obs.iter().map(|&x| x as f32).collect();
                assert_eq!(fa.obs, as_f32, "{spec} {enc}");
                for i in 0..6 {
                    let mut want = vec![0f32; a.obs_dim()];
                    encode_state(enc, &rules, a.state(i).unwrap(), &mut want).unwrap();
                    assert_eq!(fa.obs_of(i), want, "{spec} {enc}");
                }
            }
        }
    }
}

/// Steps `batch` with random legal actions and checks that every observation (and every final
/// observation of a same-step reset) has the spec's length and lies within its bounds.
fn check_within_spec<O: ObsValue + Into<f32>>(
    batch: &mut Batch,
    spec: &ObsSpec,
    steps: usize,
    rng: &mut ChaCha8Rng,
) -> Result<(), String> {
    let n = batch.num_boards();
    let mut buf = StepBuffers::<O>::for_batch(batch);
    batch.observe(&mut buf.output()).unwrap();
    for step in 0..=steps {
        if step > 0 {
            let actions = random_actions(&buf, n, rng);
            batch.step(&actions, &mut buf.output()).unwrap();
        }
        for i in 0..n {
            let ended = buf.terminated[i] || buf.truncated[i];
            let rows = [Some(buf.obs_of(i)), ended.then(|| buf.final_obs_of(i))];
            for row in rows.into_iter().flatten() {
                if let Some(k) = spec.outside(row) {
                    return Err(format!(
                        "step {step}, board {i}: value {k} = {:?} outside [{}, {}]",
                        row.get(k),
                        spec.low.get(k).copied().unwrap_or(f32::NAN),
                        spec.high.get(k).copied().unwrap_or(f32::NAN)
                    ));
                }
            }
        }
    }
    Ok(())
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

    /// For random options and random play, every observation has the declared length and lies
    /// within the declared bounds, in both element types, raw and scaled.
    #[test]
    fn observations_lie_within_their_spec(
        preset in 0usize..PRESETS.len() + 2,
        encoding in 0usize..3,
        levels in 1u8..20,
        network in proptest::bool::ANY,
        opponent in proptest::bool::ANY,
        same_step in proptest::bool::ANY,
        opening in 0u32..12,
        seed in proptest::num::u64::ANY,
    ) {
        let spec = match preset.checked_sub(PRESETS.len()) {
            None => PRESETS[preset],
            Some(0) => "abapa:houses=8,seeds=3",
            Some(_) => "oware:players=4,houses=2",
        };
        let rules: Rules = spec.parse().unwrap();
        let enc = match encoding {
            0 => ObsEncoding::Compact,
            1 => ObsEncoding::OneHot { levels },
            _ => ObsEncoding::Thermometer { levels },
        };
        let scale = if network { ObsScale::Network } else { ObsScale::Raw };
        let mut cfg = BatchConfig::new(rules, 5)
            .with_obs(enc)
            .with_opening(Opening::between(0, opening))
            .with_seed(seed);
        cfg.obs_scale = scale;
        if same_step {
            cfg = cfg.with_reset_mode(ResetMode::SameStep);
        }
        if opponent {
            cfg = cfg.with_opponent(Opponent::Random);
        }
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut batch = Batch::new(cfg.clone()).unwrap();
        let f = batch.obs_spec(ObsDtype::Float32).unwrap();
        proptest::prop_assert_eq!(f.dim(), batch.obs_dim());
        proptest::prop_assert_eq!(batch.action_spec().n, rules.houses as usize);
        let r = check_within_spec::<f32>(&mut batch, &f, 40, &mut rng);
        proptest::prop_assert!(r.is_ok(), "{} {} {}: {:?}", spec, enc, scale, r);
        match batch.obs_spec(ObsDtype::Uint8) {
            Ok(u) => {
                proptest::prop_assert!(!network);
                let mut batch = Batch::new(cfg).unwrap();
                let r = check_within_spec::<u8>(&mut batch, &u, 40, &mut rng);
                proptest::prop_assert!(r.is_ok(), "{} {} uint8: {:?}", spec, enc, r);
            }
            Err(e) => {
                proptest::prop_assert!(network);
                proptest::prop_assert!(e.to_string().contains("float32"), "{}", e);
            }
        }
    }
}

#[test]
fn bad_configurations_are_refused() {
    let abapa = Rules::abapa();
    let cases: Vec<(BatchConfig, &str)> = vec![
        (BatchConfig::new(abapa, 0), "num_boards"),
        (
            BatchConfig::new(abapa, awale::batch::MAX_BOARDS + 1),
            "num_boards",
        ),
        (BatchConfig::new(abapa, 4).with_threads(100_000), "threads"),
        (
            BatchConfig::new(abapa, 4)
                .with_opponent(Opponent::Random)
                .with_learner_seat(2),
            "learner seat 2",
        ),
        (
            BatchConfig::new(abapa, 4).with_opening(Opening::between(5, 2)),
            "opening",
        ),
        (
            BatchConfig::new(abapa, 4).with_obs(ObsEncoding::OneHot { levels: 0 }),
            "level",
        ),
        (
            BatchConfig::new("abapa:max_plies=3".parse().unwrap(), 4)
                .with_opponent(Opponent::Greedy)
                .with_opening(Opening::plies(2)),
            "max_plies",
        ),
    ];
    for (cfg, needle) in cases {
        let e = Batch::new(cfg).unwrap_err();
        assert!(e.to_string().contains(needle), "{needle}: {e}");
    }
    // The learner may be seat 1 of 2 when it gets a move.
    Batch::new(
        BatchConfig::new("abapa:max_plies=3".parse().unwrap(), 4)
            .with_opponent(Opponent::Greedy)
            .with_learner_seat(1),
    )
    .unwrap();
    assert!("sideways".parse::<ResetMode>().is_err());
    assert!("maybe".parse::<IllegalActionPolicy>().is_err());
}

#[test]
fn a_large_batch_steps_on_many_threads() {
    let cfg = BatchConfig::new(Rules::abapa(), 65_536)
        .with_threads(2)
        .with_reset_mode(ResetMode::SameStep);
    let mut batch = Batch::new(cfg).unwrap();
    let mut buf = StepBuffers::<u8>::for_batch(&batch);
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    for _ in 0..3 {
        let a = random_actions(&buf, 65_536, &mut rng);
        batch.step(&a, &mut buf.output()).unwrap();
    }
    assert!(batch.states().iter().all(|s| s.ply() == 3));
}

#[test]
fn a_warm_batch_steps_without_allocating() {
    // The last configuration shares each step with a helper thread (pieces of 512 boards).
    for (spec, opponent, n, threads) in [
        ("abapa", Opponent::SelfPlay, 64, 1),
        ("awale", Opponent::SelfPlay, 64, 1),
        ("wari", Opponent::Greedy, 64, 1),
        ("oware4", Opponent::Random, 64, 1),
        ("oware6", Opponent::SelfPlay, 64, 1),
        ("abapa", Opponent::SelfPlay, 1024, 2),
    ] {
        let cfg = BatchConfig::new(spec.parse().unwrap(), n)
            .with_threads(threads)
            .with_opponent(opponent)
            .with_opening(Opening::between(0, 4))
            .with_reset_mode(ResetMode::SameStep);
        let mut batch = Batch::new(cfg).unwrap();
        let mut buf = StepBuffers::<f32>::for_batch(&batch);
        batch.observe(&mut buf.output()).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(6);
        let mut plan: Vec<Vec<i64>> = Vec::new();
        // Warm up: the repetition histories grow to the longest capture-free stretch met.
        for _ in 0..1000 {
            let a = random_actions(&buf, n, &mut rng);
            batch.step(&a, &mut buf.output()).unwrap();
        }
        // A first pass may still grow a history past its longest stretch so far; replaying the
        // same steps from a snapshot must not allocate at all.
        let snap = batch.snapshot();
        for _ in 0..300 {
            let a = random_actions(&buf, n, &mut rng);
            batch.step(&a, &mut buf.output()).unwrap();
            plan.push(a);
        }
        batch.restore(&snap).unwrap();
        let mut step_allocs = 0;
        for a in &plan {
            step_allocs += alloc_count::count(|| batch.step(a, &mut buf.output()).unwrap());
        }
        assert_eq!(
            step_allocs, 0,
            "{spec} ({n} boards, {threads} threads): steps allocated"
        );
    }
}

/// FNV-1a, 64 bits: a digest that the Python tests compute the same way.
fn fnv1a(hash: &mut u64, bytes: &[u8]) {
    for &b in bytes {
        *hash ^= u64::from(b);
        *hash = hash.wrapping_mul(0x100_0000_01b3);
    }
}

/// What a caller sees over `steps` steps of lowest-legal-house actions: observations, masks,
/// the caller's reward and the flags, digested. `tests/python/test_vector.py` computes the
/// same digest from `AwaleVectorEnv` with the same settings and expects the same values.
fn caller_view_digest(opponent: Opponent, seat: u8, steps: usize) -> u64 {
    let cfg = BatchConfig::new(Rules::abapa(), 8)
        .with_opponent(opponent)
        .with_learner_seat(seat)
        .with_opening(Opening::between(0, 4))
        .with_seed(7);
    let mut batch = Batch::new(cfg).unwrap();
    let mut buf = StepBuffers::<f32>::for_batch(&batch);
    batch.reset(Some(7), &mut buf.output()).unwrap();
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for _ in 0..steps {
        let actions: Vec<i64> = (0..8)
            .map(|i| match buf.mask_bits(i) {
                0 => 0,
                bits => i64::from(bits.trailing_zeros()),
            })
            .collect();
        batch.step(&actions, &mut buf.output()).unwrap();
        for x in &buf.obs {
            fnv1a(&mut hash, &x.to_le_bytes());
        }
        fnv1a(&mut hash, &buf.mask);
        for r in &buf.reward {
            fnv1a(&mut hash, &r.to_le_bytes());
        }
        let flags: Vec<u8> = (0..8)
            .map(|i| u8::from(buf.terminated[i]) | u8::from(buf.truncated[i]) << 1)
            .collect();
        fnv1a(&mut hash, &flags);
    }
    hash
}

/// The digests of [`caller_view_digest`] that the Python vector environment must reproduce.
const CALLER_VIEW_DIGESTS: [(&str, u8, u64); 2] = [
    ("random", 1, 0x2f02_c0f0_9bb9_f51b),
    ("self", 0, 0xa769_b736_4e44_ab81),
];

#[test]
fn the_caller_view_matches_the_python_vector_env() {
    for (opponent, seat, expected) in CALLER_VIEW_DIGESTS {
        let got = caller_view_digest(opponent.parse().unwrap(), seat, 300);
        assert_eq!(got, expected, "{opponent}: digest {got:#x}");
    }
}

/// A league member that always plays its lowest (or highest) legal house.
#[derive(Debug)]
struct Extreme(bool);

impl awale::batch::OpponentPolicy for Extreme {
    fn name(&self) -> &str {
        if self.0 {
            "highest"
        } else {
            "lowest"
        }
    }
    fn choose(&self, _: &Rules, _: &State, legal: u16, _: &mut ChaCha8Rng) -> usize {
        if self.0 {
            15 - legal.leading_zeros() as usize
        } else {
            legal.trailing_zeros() as usize
        }
    }
}

fn extremes_league() -> Opponent {
    let members = vec![
        Opponent::Policy(std::sync::Arc::new(Extreme(false))),
        Opponent::Policy(std::sync::Arc::new(Extreme(true))),
    ];
    Opponent::League(std::sync::Arc::new(
        awale::batch::League::new(members).unwrap(),
    ))
}

#[test]
fn a_league_member_plays_a_whole_episode_and_members_are_drawn_evenly() {
    let rules = Rules::abapa();
    let n = 2000;
    let cfg = BatchConfig::new(rules, n)
        .with_opponent(extremes_league())
        .with_learner_seat(0)
        .with_reset_mode(ResetMode::SameStep)
        .with_seed(3)
        .with_threads(2);
    let mut batch = Batch::new(cfg).unwrap();
    let mut buf = StepBuffers::<f32>::for_batch(&batch);
    batch.reset(None, &mut buf.output()).unwrap();
    let highest = batch.opponent_members().iter().filter(|&&m| m == 1).count();
    assert!(
        (850..=1150).contains(&highest),
        "{highest} of {n} boards drew member 1"
    );
    assert!(batch.opponent_members().iter().all(|&m| m < 2));
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let mut checked = 0;
    for _ in 0..200 {
        let before: Vec<State> = batch.states().to_vec();
        let members = batch.opponent_members().to_vec();
        let actions = random_actions(&buf, n, &mut rng);
        batch.step(&actions, &mut buf.output()).unwrap();
        for i in 0..n {
            if buf.terminated[i] || buf.truncated[i] {
                continue;
            }
            // The caller's move, then every opponent move by the episode's member.
            let mut st = before[i];
            st.apply_unchecked(&rules, actions[i] as usize);
            while !st.is_over() && st.to_move() != 0 {
                let legal = st.legal_mask(&rules);
                let h = if members[i] == 1 {
                    15 - legal.leading_zeros() as usize
                } else {
                    legal.trailing_zeros() as usize
                };
                st.apply_unchecked(&rules, h);
                checked += 1;
            }
            assert_eq!(st.pits(), batch.states()[i].pits(), "board {i}");
            assert_eq!(
                batch.opponent_members()[i],
                members[i],
                "board {i} changed member mid-episode"
            );
        }
    }
    assert!(checked > 100_000, "{checked}");
}

#[test]
fn a_league_is_reproducible_whatever_the_thread_count_and_survives_a_snapshot() {
    let registry = awale::agents::Registry::builtin();
    let rules = Rules::abapa();
    let league = awale::agents::opponent_from_spec(
        "league:random|greedy|alphabeta:depth=1",
        &rules,
        &registry,
    )
    .unwrap();
    assert_eq!(league.name(), "league:random|greedy|alphabeta:depth=1");
    let cfg = BatchConfig::new(rules, 301)
        .with_opponent(league)
        .with_reset_mode(ResetMode::SameStep)
        .with_opening(Opening::between(0, 4))
        .with_seed(11);
    let one = run_digest(cfg.clone().with_threads(1), 40);
    for t in [2, 5] {
        let other = run_digest(cfg.clone().with_threads(t), 40);
        assert!(one.0 == other.0, "{t} threads differ from 1");
        assert_eq!(one.1, other.1);
    }
    // A snapshot keeps each board's member: the restored batch continues identically.
    let mut a = Batch::new(cfg.clone().with_threads(2)).unwrap();
    let mut buf = StepBuffers::<f32>::for_batch(&a);
    a.reset(None, &mut buf.output()).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    for _ in 0..30 {
        let acts = random_actions(&buf, 301, &mut rng);
        a.step(&acts, &mut buf.output()).unwrap();
    }
    let snap = a.snapshot();
    let mut b = Batch::new(cfg.with_threads(3)).unwrap();
    b.restore(&snap).unwrap();
    assert_eq!(a.opponent_members(), b.opponent_members());
    let mut buf_b = StepBuffers::<f32>::for_batch(&b);
    for _ in 0..30 {
        let acts = random_actions(&buf, 301, &mut rng);
        a.step(&acts, &mut buf.output()).unwrap();
        b.step(&acts, &mut buf_b.output()).unwrap();
        assert_eq!(buf.obs, buf_b.obs);
        assert_eq!(a.opponent_members(), b.opponent_members());
    }
}

#[test]
fn bad_leagues_are_refused_with_the_reason() {
    let registry = awale::agents::Registry::builtin();
    let rules = Rules::abapa();
    for (text, reason) in [
        ("league:", "empty league member"),
        ("league:random||greedy", "empty league member"),
        ("league:random|self", "not 'self'"),
        ("league:random|league:greedy", "not 'league:greedy'"),
        ("league:random|wizard", "wizard"),
    ] {
        let e = awale::agents::opponent_from_spec(text, &rules, &registry).unwrap_err();
        assert!(e.to_string().contains(reason), "{text}: {e}");
    }
}

/// `obs_scale = network`: every observation (after steps, resets of every kind, same-step final
/// observations, and `observe`) is the raw encoding times `input_scale`, the trained network's
/// input; `u8` buffers are refused, and the game play is the same as unscaled.
#[test]
fn scaled_observations_are_the_raw_ones_times_the_input_scale() {
    use awale::batch::{input_scale, ObsScale};
    for (spec, enc) in [
        ("abapa", ObsEncoding::Compact),
        ("abapa", ObsEncoding::OneHot { levels: 16 }),
        ("oware3", ObsEncoding::Thermometer { levels: 8 }),
        ("wari", ObsEncoding::Compact),
    ] {
        let rules: Rules = spec.parse().unwrap();
        let mut raw_cfg = BatchConfig::new(rules, 37).with_obs(enc);
        raw_cfg.reset_mode = ResetMode::SameStep;
        raw_cfg.seed = 9;
        let mut scaled_cfg = raw_cfg.clone();
        scaled_cfg.obs_scale = ObsScale::Network;
        let mut raw = Batch::new(raw_cfg).unwrap();
        let mut scaled = Batch::new(scaled_cfg.with_threads(2)).unwrap();
        let scale = input_scale(&rules, enc);
        let mut rb = StepBuffers::<f32>::for_batch(&raw);
        let mut sb = StepBuffers::<f32>::for_batch(&scaled);
        let same = |r: &[f32], s: &[f32]| {
            for (row_r, row_s) in r.chunks_exact(scale.len()).zip(s.chunks_exact(scale.len())) {
                for ((a, b), k) in row_r.iter().zip(row_s).zip(&scale) {
                    assert_eq!(a * k, *b);
                }
            }
        };
        raw.reset(Some(4), &mut rb.output()).unwrap();
        scaled.reset(Some(4), &mut sb.output()).unwrap();
        same(&rb.obs, &sb.obs);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for step in 0..300 {
            let acts = random_actions(&rb, 37, &mut rng);
            raw.step(&acts, &mut rb.output()).unwrap();
            scaled.step(&acts, &mut sb.output()).unwrap();
            assert_eq!(rb.rewards, sb.rewards);
            same(&rb.obs, &sb.obs);
            for i in 0..37 {
                if rb.terminated[i] || rb.truncated[i] {
                    same(rb.final_obs_of(i), sb.final_obs_of(i));
                }
            }
            if step % 50 == 49 {
                let pick = [true, false, true].repeat(13)[..37].to_vec();
                raw.reset_where(&pick, &mut rb.output()).unwrap();
                scaled.reset_where(&pick, &mut sb.output()).unwrap();
                same(&rb.obs, &sb.obs);
                scaled.observe(&mut sb.output()).unwrap();
                same(&rb.obs, &sb.obs); // observing again does not scale twice
            }
        }
        let mut u8_buf = StepBuffers::<u8>::for_batch(&scaled);
        let e = scaled.reset(None, &mut u8_buf.output()).unwrap_err();
        assert!(e.to_string().contains("float32"), "{e}");
    }
}
