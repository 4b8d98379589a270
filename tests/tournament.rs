//! Tournaments: resume, thread independence, files, formats, strength ordering.

use std::fs;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use awale::agents::{derive_seed, Agent, Turn};
use awale::ratings::matchplay::{run_match, MatchConfig};
use awale::tournament::{
    run, run_observed, Entrant, Format, GameResult, GameRunConfig, GameRunError, Progress,
    TournamentConfig, TournamentObserver, TournamentReport,
};
use awale::{AwaleError, Result, Rules};

/// A fresh, empty folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("awale-test-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    dir
}

fn entrants(specs: &[&str], rules: &Rules) -> Vec<Entrant> {
    specs
        .iter()
        .map(|s| Entrant::from_spec_text(s, rules).unwrap())
        .collect()
}

fn config(rules: Rules, games: usize) -> TournamentConfig {
    let mut cfg = TournamentConfig::new(rules);
    cfg.run.games = games;
    cfg.run.openings = 2;
    cfg.run.max_plies = 200;
    cfg.run.seed = 42;
    cfg
}

#[test]
fn a_resumed_tournament_gives_the_same_results_as_one_run_through() {
    let rules = Rules::abapa();
    let players = entrants(&["random", "greedy", "alphabeta:depth=2"], &rules);
    let (one, two) = (scratch("resume-one"), scratch("resume-two"));

    let mut cfg = config(rules, 6);
    cfg.run.threads = 2;
    cfg.out = Some(one.clone());
    let straight = run(&cfg, &players).unwrap();
    assert!(straight.complete);
    assert_eq!(straight.games_played, 18);

    // Interrupted after 7 games...
    let mut cfg = config(rules, 6);
    cfg.run.threads = 1;
    cfg.out = Some(two.clone());
    cfg.run.game_limit = Some(7);
    let partial = run(&cfg, &players).unwrap();
    assert!(!partial.complete);
    assert_eq!(partial.games_played, 7);
    assert!(partial.table().contains("incomplete"));
    // ...in the middle of writing a line.
    let jsonl = two.join("games.jsonl");
    let mut text = fs::read_to_string(&jsonl).unwrap();
    assert_eq!(text.lines().count(), 7);
    text.push_str("{\"index\":7,\"pairing\":1,\"ope");
    fs::write(&jsonl, text).unwrap();
    // Resumed: only the 11 missing games are played.
    cfg.run.game_limit = None;
    cfg.run.threads = 2;
    let resumed = run(&cfg, &players).unwrap();
    assert!(resumed.complete);
    assert_eq!(fs::read_to_string(&jsonl).unwrap().lines().count(), 18);

    assert_eq!(resumed.table(), straight.table());
    assert_eq!(resumed.matchups, straight.matchups);
    assert_eq!(resumed.standings, straight.standings);
    assert_eq!(resumed.elo, straight.elo);
    assert_eq!(resumed.games, straight.games);
    assert_eq!(
        fs::read_to_string(one.join("results.json")).unwrap(),
        fs::read_to_string(two.join("results.json")).unwrap()
    );
    // Resuming a finished tournament plays nothing and changes nothing.
    let again = run(&cfg, &players).unwrap();
    assert_eq!(again.games, straight.games);

    // Other settings in the same folder are refused.
    cfg.run.seed = 43;
    let e = run(&cfg, &players).unwrap_err();
    assert!(
        matches!(e, AwaleError::Tournament(_)) && e.to_string().contains("seed"),
        "{e}"
    );
    let _ = fs::remove_dir_all(&one);
    let _ = fs::remove_dir_all(&two);
}

#[test]
fn shards_joined_in_one_folder_give_the_whole_tournament() {
    let rules = Rules::abapa();
    let players = entrants(&["random", "greedy", "alphabeta:depth=2"], &rules);
    let whole = scratch("shard-whole");
    let mut cfg = config(rules, 6);
    cfg.out = Some(whole.clone());
    let straight = run(&cfg, &players).unwrap();
    // Three shards, each in its own folder (as on three machines).
    let joined = scratch("shard-joined");
    fs::create_dir_all(&joined).unwrap();
    let mut lines = String::new();
    for k in 0..3 {
        let dir = scratch(&format!("shard-{k}"));
        let mut c = config(rules, 6);
        c.out = Some(dir.clone());
        c.run.shard = Some((k, 3));
        let part = run(&c, &players).unwrap();
        assert_eq!(part.games_played, 6, "shard {k}");
        assert!(part.games.iter().all(|g| g.index % 3 == k));
        lines.push_str(&fs::read_to_string(dir.join("games.jsonl")).unwrap());
        let _ = fs::remove_dir_all(&dir);
    }
    fs::write(joined.join("games.jsonl"), lines).unwrap();
    fs::copy(
        whole.join("tournament.json"),
        joined.join("tournament.json"),
    )
    .unwrap();
    let mut c = config(rules, 6);
    c.out = Some(joined.clone());
    let merged = run(&c, &players).unwrap();
    assert_eq!(merged.games, straight.games);
    assert_eq!(merged.table(), straight.table());
    assert_eq!(
        fs::read_to_string(whole.join("results.json")).unwrap(),
        fs::read_to_string(joined.join("results.json")).unwrap()
    );
    let mut bad = config(rules, 6);
    bad.run.shard = Some((3, 3));
    assert!(run(&bad, &players)
        .unwrap_err()
        .to_string()
        .contains("shard 3 of 3"));
    let _ = fs::remove_dir_all(&whole);
    let _ = fs::remove_dir_all(&joined);
}

#[test]
fn results_do_not_depend_on_the_number_of_threads() {
    let rules = Rules::awale();
    let players = entrants(&["random", "greedy", "mcts:sims=16"], &rules);
    let reports: Vec<TournamentReport> = [1, 3]
        .iter()
        .map(|&t| {
            let mut cfg = config(rules, 4);
            cfg.run.threads = t;
            run(&cfg, &players).unwrap()
        })
        .collect();
    assert_eq!(reports[0].games, reports[1].games);
    assert_eq!(reports[0].table(), reports[1].table());
}

#[test]
fn files_hold_replayable_games_and_the_tables() {
    let rules = Rules::abapa();
    let players = entrants(&["random", "greedy"], &rules);
    let dir = scratch("files");
    let mut cfg = config(rules, 4);
    cfg.out = Some(dir.clone());
    let report = run(&cfg, &players).unwrap();
    for name in [
        "tournament.json",
        "games.jsonl",
        "results.json",
        "ratings.csv",
        "crosstable.csv",
        "los.csv",
        "games.csv",
    ] {
        assert!(dir.join(name).is_file(), "{name}");
    }
    let json: TournamentReport =
        serde_json::from_str(&fs::read_to_string(dir.join("results.json")).unwrap()).unwrap();
    assert_eq!(json.standings, report.standings);
    let lines = fs::read_to_string(dir.join("games.jsonl")).unwrap();
    for line in lines.lines() {
        let g: GameResult = serde_json::from_str(line).unwrap();
        let replayed = g.record.replay().unwrap();
        assert!(replayed.is_over());
        assert_eq!(replayed.scores(), g.scores);
        assert_eq!(g.record.tag("South"), Some(g.seats[0].as_str()));
        assert_eq!(g.opening_plies, 2);
    }
    let ratings = fs::read_to_string(dir.join("ratings.csv")).unwrap();
    assert!(ratings
        .starts_with("rank,agent,elo,lower95,upper95,stderr,games,wins,draws,losses,score\n"));
    assert_eq!(ratings.lines().count(), 3);
    let cross = fs::read_to_string(dir.join("crosstable.csv")).unwrap();
    assert!(cross.starts_with("agent,random,greedy\n"));
    let games = fs::read_to_string(dir.join("games.csv")).unwrap();
    assert!(games.starts_with("index,pairing,opening,seat0,score0,seat1,score1,end,plies\n"));
    assert_eq!(games.lines().count(), 5);
    let _ = fs::remove_dir_all(&dir);
}

/// The fast strength check (debug CI): alpha-beta at depth 4 beats random in every game, and
/// their rating intervals do not overlap.
#[test]
fn alphabeta_beats_random_decisively() {
    let rules = Rules::abapa();
    let players = entrants(&["random", "alphabeta:depth=4"], &rules);
    let mut cfg = config(rules, 10);
    cfg.run.openings = 4;
    let r = run(&cfg, &players).unwrap();
    assert_eq!(r.matchups.wins[1][0], 10, "{}", r.table());
    let elo = r.elo.as_ref().unwrap();
    assert_eq!((elo.lower[0], elo.upper[0]), (0.0, 0.0));
    assert!(elo.lower[1] > elo.upper[0], "{}", r.table());
    assert_eq!(r.standings[0].name, "alphabeta:depth=4");
    // The crosstable numbers the agents as the standings do: #1 is the winner, listed first,
    // although it was entered second.
    let table = r.table();
    let cross = &table[table.find("crosstable").unwrap()..];
    let rows: Vec<&str> = cross.lines().skip(2).take(2).collect();
    assert!(
        rows[0].trim_start().starts_with("#1  alphabeta:depth=4"),
        "{table}"
    );
    assert!(rows[1].trim_start().starts_with("#2  random"), "{table}");
    assert!(rows[0].trim_end().ends_with("10-0-0"), "{table}");
}

/// The full ordering random < greedy < alphabeta:depth=2 < alphabeta:depth=6 with
/// non-overlapping 95% intervals. Too slow for debug builds: run with
/// `cargo test --release --test tournament -- --ignored`.
#[test]
#[ignore]
fn strength_ordering_with_non_overlapping_intervals() {
    let rules = Rules::abapa();
    let names = ["random", "greedy", "alphabeta:depth=2", "alphabeta:depth=6"];
    let players = entrants(&names, &rules);
    // Openings of 16 random plies give the weaker agents some wins: perfect scores carry little
    // information, and the intervals would stay wide however many games were played.
    let mut cfg = config(rules, 200);
    cfg.run.openings = 16;
    cfg.run.max_plies = 300;
    let r = run(&cfg, &players).unwrap();
    println!("{}", r.table());
    let elo = r.elo.as_ref().unwrap();
    for i in 1..names.len() {
        assert!(
            elo.lower[i] > elo.upper[i - 1],
            "{} [{:.0}, {:.0}] should be above {} [{:.0}, {:.0}]",
            names[i],
            elo.lower[i],
            elo.upper[i],
            names[i - 1],
            elo.lower[i - 1],
            elo.upper[i - 1]
        );
    }
}

#[test]
fn three_player_games_rotate_every_entrant_through_every_seat() {
    let rules = Rules::oware(3).unwrap();
    let players = entrants(&["random", "greedy", "mcts:sims=20"], &rules);
    let mut cfg = config(rules, 6);
    cfg.run.max_plies = 150;
    let r = run(&cfg, &players).unwrap();
    assert_eq!(r.games_played, 6);
    for name in ["random", "greedy", "mcts:sims=20"] {
        for seat in 0..3 {
            let n = r.games.iter().filter(|g| g.seats[seat] == name).count();
            assert_eq!(n, 2, "{name} at seat {seat}");
        }
    }
    // The six games share one opening, played in both seating orders: each entrant sits
    // right after each other one three times (the player after receives the mover's seeds).
    let moves = |i: usize, n: usize| r.games[i].record.moves[..n].to_vec();
    let k = r.games[0].opening_plies;
    assert!((1..6).all(|i| moves(i, k) == moves(0, k)));
    for a in ["random", "greedy", "mcts:sims=20"] {
        for b in ["random", "greedy", "mcts:sims=20"]
            .into_iter()
            .filter(|&b| b != a)
        {
            let after = |g: &awale::tournament::GameResult| {
                let s = g.seats.iter().position(|x| x == a).unwrap();
                g.seats[(s + 1) % 3] == b
            };
            assert_eq!(
                r.games.iter().filter(|g| after(g)).count(),
                3,
                "{b} after {a}"
            );
        }
    }
    for g in &r.games {
        let replayed = g.record.replay().unwrap();
        assert_eq!(replayed.scores(), g.scores);
        assert!(
            (g.points.iter().sum::<f64>() - 1.5).abs() < 1e-9,
            "3 pairs, 1 point each, over 2 opponents"
        );
    }
    // Each game is three pairwise results.
    for (i, j) in [(0, 1), (0, 2), (1, 2)] {
        assert_eq!(r.matchups.games(i, j), 6);
    }
    assert_eq!(r.standings.len(), 3);
}

#[test]
fn gauntlet_plays_only_the_gauntlet_agent() {
    let rules = Rules::wari();
    let players = entrants(&["random", "greedy", "mcts:sims=10"], &rules);
    let mut cfg = config(rules, 2);
    cfg.format = Format::Gauntlet("greedy".into());
    let r = run(&cfg, &players).unwrap();
    assert_eq!(r.games_played, 4);
    assert!(r
        .games
        .iter()
        .all(|g| g.seats.contains(&"greedy".to_string())));
    assert_eq!(r.matchups.games(0, 2), 0);
    cfg.format = Format::Gauntlet("minimax".into());
    assert!(run(&cfg, &players)
        .unwrap_err()
        .to_string()
        .contains("minimax"));
}

/// Always plays the leftmost legal house.
struct Leftmost;

impl Agent for Leftmost {
    fn name(&self) -> String {
        "leftmost".into()
    }
    fn select(&mut self, turn: &Turn<'_>) -> Result<usize> {
        Ok(turn.state.legal_mask(turn.rules).trailing_zeros() as usize)
    }
    fn reset(&mut self, _seed: u64) {}
}

/// Plays an empty house.
struct Cheater;

impl Agent for Cheater {
    fn name(&self) -> String {
        "cheater".into()
    }
    fn select(&mut self, turn: &Turn<'_>) -> Result<usize> {
        Ok((!turn.state.legal_mask(turn.rules)).trailing_zeros() as usize)
    }
    fn reset(&mut self, _seed: u64) {}
}

#[test]
fn custom_agents_take_part_and_illegal_moves_are_errors() {
    let rules = Rules::abapa();
    let mut players = entrants(&["random"], &rules);
    players.push(Entrant::new("leftmost", || {
        Ok(Box::new(Leftmost) as Box<dyn Agent>)
    }));
    let r = run(&config(rules, 2), &players).unwrap();
    assert_eq!(r.games_played, 2);
    assert!(r.agents.contains(&"leftmost".to_string()));

    players[1] = Entrant::new("cheater", || Ok(Box::new(Cheater) as Box<dyn Agent>));
    let e = run(&config(rules, 2), &players).unwrap_err();
    assert!(
        matches!(&e, AwaleError::AgentFailed { agent, .. } if agent == "cheater"),
        "{e:?}"
    );

    let twice = entrants(&["random", "random"], &rules);
    assert!(run(&config(rules, 2), &twice)
        .unwrap_err()
        .to_string()
        .contains("unique"));
    let mut cfg = config(rules, 2);
    cfg.anchor = Some("nobody".into());
    assert!(run(&cfg, &entrants(&["random", "greedy"], &rules)).is_err());
    assert!(run(&config(rules, 2), &entrants(&["random"], &rules)).is_err());
}

/// Records what the tournament tells it; stops once `stop_after` games are finished (if set).
#[derive(Default)]
struct Recorder {
    started: Mutex<Vec<Progress>>,
    finished: Mutex<Vec<(usize, Progress)>>,
    stop_after: Option<usize>,
    polls: AtomicUsize,
}

impl TournamentObserver for Recorder {
    fn started(&self, progress: Progress) {
        self.started.lock().unwrap().push(progress);
    }
    fn game_finished(&self, game: &GameResult, progress: Progress) {
        self.finished.lock().unwrap().push((game.index, progress));
    }
    fn should_stop(&self) -> bool {
        self.polls.fetch_add(1, Ordering::Relaxed);
        self.stop_after
            .is_some_and(|n| self.finished.lock().unwrap().len() >= n)
    }
}

#[test]
fn the_observer_sees_every_finished_game_once_in_counting_order() {
    let rules = Rules::abapa();
    let players = entrants(&["random", "greedy", "alphabeta:depth=1"], &rules);
    let dir = scratch("observer-counts");
    let mut cfg = config(rules, 4);
    cfg.run.threads = 3;
    cfg.out = Some(dir.clone());
    cfg.run.game_limit = Some(5);
    let rec = Recorder::default();
    let first = run_observed(&cfg, &players, &rec).unwrap();
    assert_eq!(first.games_played, 5);
    assert!(!first.stopped && !first.complete);
    assert_eq!(
        *rec.started.lock().unwrap(),
        vec![Progress {
            done: 0,
            scheduled: 12
        }]
    );
    assert!(rec.polls.load(Ordering::Relaxed) > 0);

    // The rest, resumed: `started` counts the saved games, every new game comes once.
    cfg.run.game_limit = None;
    let rec2 = Recorder::default();
    let full = run_observed(&cfg, &players, &rec2).unwrap();
    assert!(full.complete);
    assert_eq!(
        *rec2.started.lock().unwrap(),
        vec![Progress {
            done: 5,
            scheduled: 12
        }]
    );
    let mut seen: Vec<usize> = rec.finished.lock().unwrap().iter().map(|f| f.0).collect();
    let later = rec2.finished.lock().unwrap().clone();
    // `done` counts up by one per call, whatever thread finished the game.
    let dones: Vec<usize> = later.iter().map(|f| f.1.done).collect();
    assert_eq!(dones, (6..=12).collect::<Vec<_>>());
    assert!(later.iter().all(|f| f.1.scheduled == 12));
    seen.extend(later.iter().map(|f| f.0));
    seen.sort_unstable();
    assert_eq!(seen, (0..12).collect::<Vec<_>>());
    assert_eq!(full.games, run(&config(rules, 4), &players).unwrap().games);
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn should_stop_stops_the_run_and_it_resumes_to_the_same_result() {
    let rules = Rules::abapa();
    let players = entrants(&["random", "greedy", "alphabeta:depth=2"], &rules);
    let straight = run(&config(rules, 6), &players).unwrap();
    for threads in [1, 2] {
        let dir = scratch(&format!("observer-stop-{threads}"));
        let mut cfg = config(rules, 6);
        cfg.run.threads = threads;
        cfg.out = Some(dir.clone());
        let rec = Recorder {
            stop_after: Some(4),
            ..Recorder::default()
        };
        let stopped = run_observed(&cfg, &players, &rec).unwrap();
        assert!(stopped.stopped && !stopped.complete, "{threads} threads");
        // Games in play when the stop came are abandoned at their next move, not counted (one
        // whose last move was under way may still finish).
        let n = stopped.games_played;
        assert!(
            (4..=3 + threads).contains(&n),
            "{threads} threads: {n} games"
        );
        assert_eq!(rec.finished.lock().unwrap().len(), n);
        let saved = fs::read_to_string(dir.join("games.jsonl")).unwrap();
        assert_eq!(saved.lines().count(), n);
        assert!(dir.join("results.json").exists());
        assert!(stopped
            .table()
            .contains(&format!("{n} of 18 games (incomplete)")));

        let resumed = run(&cfg, &players).unwrap();
        assert!(resumed.complete && !resumed.stopped);
        assert_eq!(resumed.table(), straight.table());
        assert_eq!(resumed.standings, straight.standings);
        assert_eq!(resumed.games, straight.games);
        let _ = fs::remove_dir_all(&dir);
    }
    // A stop asked before any game: nothing is played.
    let rec = Recorder {
        stop_after: Some(0),
        ..Recorder::default()
    };
    let none = run_observed(&config(rules, 2), &players, &rec).unwrap();
    assert!(none.stopped && none.games_played == 0);
}

/// Fails at its first move of every game; in game 0, only after a wait, so that later games
/// fail first in time.
struct SlowInGameZero {
    game_zero_seeds: Vec<u64>,
    slow: bool,
}

impl Agent for SlowInGameZero {
    fn name(&self) -> String {
        "failer".into()
    }
    fn select(&mut self, _turn: &Turn<'_>) -> Result<usize> {
        if self.slow {
            std::thread::sleep(Duration::from_millis(300));
        }
        Err(AwaleError::Tournament("out of order".into()))
    }
    fn reset(&mut self, seed: u64) {
        self.slow = self.game_zero_seeds.contains(&seed);
    }
}

/// One game run, checked in one place: a tournament and a match (and the CLI, Python and the
/// ladder, tested where they live) refuse the same bad settings with the same message, before
/// a file is written.
#[test]
fn a_bad_game_run_is_refused_alike_by_a_tournament_and_a_match() {
    let rules = Rules::abapa();
    let players = entrants(&["random", "greedy"], &rules);
    let dir = scratch("bad-run");
    let mut bad = GameRunConfig::new(4);
    bad.shard = Some((3, 3));
    let want = bad.validate().unwrap_err();
    assert_eq!(want, GameRunError::BadShard { k: 3, n: 3 });
    let mut t = TournamentConfig::new(rules);
    t.run = bad.clone();
    t.out = Some(dir.clone());
    assert_eq!(
        run(&t, &players).unwrap_err(),
        AwaleError::Tournament(want.to_string())
    );
    assert!(!dir.join("tournament.json").exists(), "nothing written");
    let mut m = MatchConfig::new(rules);
    m.run = bad;
    m.out = Some(dir.clone());
    assert_eq!(
        run_match(&m, &players[0], &players[1]).unwrap_err(),
        AwaleError::Match(want.to_string())
    );
    assert!(!dir.join("tournament.json").exists(), "nothing written");
    // An odd number of games: a tournament plays them, a match (paired games) refuses them.
    let mut odd = GameRunConfig::new(3);
    odd.max_plies = 60;
    t.run = odd.clone();
    t.out = None;
    assert_eq!(run(&t, &players).unwrap().games_played, 3);
    m.run = odd;
    assert_eq!(
        run_match(&m, &players[0], &players[1]).unwrap_err(),
        AwaleError::Match(GameRunError::OddGames(3).to_string())
    );
    t.run.games = 0;
    assert_eq!(
        run(&t, &players).unwrap_err(),
        AwaleError::Tournament(GameRunError::NoGames.to_string())
    );
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn the_error_is_that_of_the_lowest_failing_game_whatever_the_threads() {
    let rules = Rules::abapa();
    let mut cfg = config(rules, 8);
    // Game 0's agents are reset with these seeds (one per seat).
    let zero = derive_seed(cfg.run.seed, 0);
    let seeds = vec![derive_seed(zero, 0), derive_seed(zero, 1)];
    let mut players = entrants(&["random"], &rules);
    let called = std::sync::Arc::new(AtomicBool::new(false));
    let flag = called.clone();
    players.push(Entrant::new("failer", move || {
        flag.store(true, Ordering::SeqCst);
        Ok(Box::new(SlowInGameZero {
            game_zero_seeds: seeds.clone(),
            slow: false,
        }) as Box<dyn Agent>)
    }));
    let mut errors = Vec::new();
    for threads in [1, 4, 4, 2] {
        cfg.run.threads = threads;
        let e = run(&cfg, &players).unwrap_err();
        match &e {
            AwaleError::AgentFailed { agent, reason } => {
                assert_eq!(agent, "failer");
                assert!(
                    reason.starts_with("game 0, ply "),
                    "{threads} threads: {reason}"
                );
            }
            other => panic!("{other:?}"),
        }
        errors.push(e.to_string());
    }
    assert!(called.load(Ordering::SeqCst));
    assert!(errors.windows(2).all(|w| w[0] == w[1]), "{errors:?}");
}

#[test]
fn first_places_count_the_winners_of_multi_player_games() {
    let rules: Rules = "oware3".parse().unwrap();
    let mut cfg = config(rules, 6);
    cfg.format = Format::Gauntlet("greedy".into());
    let players = entrants(&["random", "random:name=r2", "greedy"], &rules);
    let report = run(&cfg, &players).unwrap();
    assert_eq!(report.first_places.len(), 3);
    let total: f64 = report
        .first_places
        .iter()
        .map(|f| f.share * f.games as f64)
        .sum();
    // Every game has exactly one win to share out.
    assert!((total - report.games_played as f64).abs() < 1e-9, "{total}");
    for f in &report.first_places {
        assert!((f.fair_share - 1.0 / 3.0).abs() < 1e-12);
        assert!(f.lower <= f.share && f.share <= f.upper);
        assert!(f.won + f.shared <= f.games);
    }
    assert!(report.table().contains("first places"));
    // Two-player games have none.
    let two = run(
        &config(Rules::abapa(), 2),
        &entrants(&["random", "greedy"], &Rules::abapa()),
    );
    assert!(two.unwrap().first_places.is_empty());
}

#[test]
fn multi_player_tournaments_rate_placings_and_time_the_agents() {
    let rules: Rules = "oware3".parse().unwrap();
    let mut cfg = config(rules, 12);
    let players = entrants(
        &["random", "random:name=r2", "greedy", "greedy:name=g2"],
        &rules,
    );
    // Chosen tables: any number of them, each filling the board.
    cfg.format = Format::Tables(vec![
        vec!["random".into(), "r2".into(), "greedy".into()],
        vec!["r2".into(), "greedy".into(), "g2".into()],
    ]);
    let report = run(&cfg, &players).unwrap();
    assert_eq!(report.games_played, 24);
    // The placing rating (awale::ratings::placing) of the finishing orders: every agent rated, the
    // anchor (random) at 0, intervals around the others.
    let elo = report.elo.as_ref().expect("a placing rating");
    assert_eq!(elo.ratings[0], 0.0);
    for i in 1..4 {
        assert!(elo.lower[i] < elo.ratings[i] && elo.ratings[i] < elo.upper[i]);
    }
    // Thinking time of every agent in this run, beside the results (not in results.json).
    assert_eq!(report.clock.len(), 4);
    assert!(report
        .clock
        .iter()
        .all(|c| c.moves > 0 && c.ms_per_move().is_some()));
    assert!(report.clock_table().contains("time per move"));
    // Bad tables are refused with the reason.
    for (tables, why) in [
        (
            vec![vec!["random".to_string(), "r2".to_string()]],
            "cannot fill a 3-player board",
        ),
        (
            vec![vec!["random".into(), "random".into(), "greedy".into()]],
            "sits twice",
        ),
        (
            vec![vec!["random".into(), "r2".into(), "nobody".into()]],
            "'nobody' is not among the agents",
        ),
    ] {
        cfg.format = Format::Tables(tables);
        let e = run(&cfg, &players).unwrap_err().to_string();
        assert!(e.contains(why), "{e}");
    }
}

/// Issue 60, item 1: a resumed run replays every game of `games.jsonl` and refuses one whose
/// line does not hold (its line, index and the reason named); the honest file resumes.
#[test]
fn a_resumed_run_refuses_a_game_its_record_does_not_give() {
    let rules = Rules::abapa();
    let players = entrants(&["random", "greedy"], &rules);
    let dir = scratch("tampered");
    let mut cfg = config(rules, 4);
    cfg.run.threads = 1;
    cfg.out = Some(dir.clone());
    let honest = run(&cfg, &players).unwrap();
    let jsonl = dir.join("games.jsonl");
    let original = fs::read_to_string(&jsonl).unwrap();
    let games: Vec<GameResult> = original
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // The game random lost (greedy wins them all at this seed), and its line.
    let lost = games.iter().position(|g| g.points[0] == 0.0).unwrap();
    let g = &games[lost];

    // Rewrites the line of game `lost` as `edit` makes it and resumes: refused with `why`.
    let refused = |edit: &dyn Fn(&mut GameResult), why: &str| {
        let mut bad = g.clone();
        edit(&mut bad);
        let text: String = games
            .iter()
            .enumerate()
            .map(|(i, x)| {
                let x = if i == lost { &bad } else { x };
                serde_json::to_string(x).unwrap() + "\n"
            })
            .collect();
        fs::write(&jsonl, text).unwrap();
        let e = run(&cfg, &players).unwrap_err();
        let m = e.to_string();
        assert!(matches!(e, AwaleError::Tournament(_)), "{m}");
        assert!(
            m.contains(&format!("line {}: game {} is refused", lost + 1, g.index)),
            "{m}"
        );
        assert!(m.contains(why), "'{why}' not in: {m}");
    };
    let unrecorded = |x: &mut GameResult| {
        x.record.result = None;
        x.record.final_position = None;
    };
    // The stores and the points swapped: random "won".
    refused(
        &|x| {
            x.scores.reverse();
            x.points.reverse();
        },
        "stores",
    );
    // The points alone.
    refused(&|x| x.points = vec![1.0, 0.0], "points");
    // A forfeit claimed in a game that ended on the board.
    refused(
        &|x| {
            x.forfeit = Some(awale::tournament::Forfeit {
                seat: 1,
                reason: "ply 9: lost on time".into(),
            });
            x.end = "forfeit".into();
            x.points = vec![1.0, 0.0];
        },
        "but its moves end the game",
    );
    // Moves cut short, stated as a forfeit by the seat to move (greedy cannot forfeit).
    refused(
        &|x| {
            unrecorded(x);
            x.record.moves.truncate(x.opening_plies + 3);
            let cut = x.record.replay().unwrap();
            let seat = cut.to_move();
            x.forfeit = Some(awale::tournament::Forfeit {
                seat,
                reason: "ply 6: crashed".into(),
            });
            x.end = "forfeit".into();
            x.plies = cut.moves().len();
            x.scores = cut.scores();
            x.points = (0..2).map(|s| if s == seat { 0.0 } else { 1.0 }).collect();
        },
        "cannot forfeit",
    );
    // Moves cut short, no forfeit: an unfinished game.
    refused(
        &|x| {
            unrecorded(x);
            x.record.moves.truncate(x.opening_plies + 3);
            let cut = x.record.replay().unwrap();
            x.plies = cut.moves().len();
            x.scores = cut.scores();
        },
        "unfinished",
    );
    // A move by the player not to move (an illegal move list).
    refused(
        &|x| {
            unrecorded(x);
            let i = x.opening_plies + 1;
            x.record.moves[i].player = 1 - x.record.moves[i].player;
        },
        "is to move",
    );
    // Another ply limit in the record's rules.
    refused(
        &|x| x.record.rules = "abapa:max_plies=30".parse().unwrap(),
        "not the run's rules",
    );
    // Another game's record (another opening) under this game's line.
    let other = games
        .iter()
        .find(|o| o.opening != g.opening && o.seats == g.seats)
        .unwrap()
        .clone();
    refused(
        &move |x| x.record = other.record.clone(),
        "does not start with its opening",
    );
    // The honest file resumes to the same results.
    fs::write(&jsonl, &original).unwrap();
    let again = run(&cfg, &players).unwrap();
    assert_eq!(again.games, honest.games);
    assert_eq!(again.standings, honest.standings);
    let _ = fs::remove_dir_all(&dir);
}

/// Runs `f` on a thread and waits for it at most a minute (a guard against a hang: a
/// regression fails the test instead of holding the suite).
fn within_a_minute<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(60))
        .expect("the run hung (a FIFO waited on?)")
}

#[cfg(unix)]
fn mkfifo(path: &std::path::Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid C string; mkfifo only reads it.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// Issue 60, item 3: a FIFO where `games.jsonl` or `tournament.json` should be is refused at
/// once, not waited on for ever.
#[cfg(unix)]
#[test]
fn a_fifo_in_the_run_folder_is_refused_at_once() {
    let rules = Rules::abapa();
    for file in ["games.jsonl", "tournament.json"] {
        let dir = scratch(&format!("fifo-{file}"));
        let mut cfg = config(rules, 2);
        cfg.out = Some(dir.clone());
        cfg.run.game_limit = Some(0);
        run(&cfg, &entrants(&["random", "greedy"], &rules)).unwrap();
        let _ = fs::remove_file(dir.join(file));
        mkfifo(&dir.join(file));
        let e = within_a_minute(move || {
            run(&cfg, &entrants(&["random", "greedy"], &rules))
                .unwrap_err()
                .to_string()
        });
        assert!(e.contains(file) && e.contains("FIFO"), "{e}");
        let _ = fs::remove_dir_all(&dir);
    }
}

/// Issue 60, item 2: result files are written by temporary file and rename, so a link planted
/// at a result's path is replaced and its target untouched; a link at `games.jsonl` or at the
/// run folder is refused.
#[cfg(unix)]
#[test]
fn links_planted_in_the_run_folder_are_never_written_through() {
    use std::os::unix::fs::symlink;
    let rules = Rules::abapa();
    let players = entrants(&["random", "greedy"], &rules);
    let dir = scratch("links");
    let victim = scratch("links-victim");
    fs::create_dir_all(&victim).unwrap();
    let mut cfg = config(rules, 2);
    cfg.out = Some(dir.clone());
    cfg.run.game_limit = Some(0);
    run(&cfg, &players).unwrap();
    let results = [
        "results.json",
        "ratings.csv",
        "crosstable.csv",
        "los.csv",
        "games.csv",
    ];
    for name in results {
        fs::write(victim.join(name), "precious").unwrap();
        let _ = fs::remove_file(dir.join(name));
        symlink(victim.join(name), dir.join(name)).unwrap();
    }
    cfg.run.game_limit = None;
    let report = run(&cfg, &players).unwrap();
    assert!(report.complete);
    for name in results {
        assert_eq!(fs::read_to_string(victim.join(name)).unwrap(), "precious");
        let meta = fs::symlink_metadata(dir.join(name)).unwrap();
        assert!(meta.is_file(), "{name} is not a plain file");
    }
    // A link at games.jsonl: refused, its target untouched.
    fs::write(victim.join("games.jsonl"), "").unwrap();
    fs::remove_file(dir.join("games.jsonl")).unwrap();
    symlink(victim.join("games.jsonl"), dir.join("games.jsonl")).unwrap();
    let e = run(&cfg, &players).unwrap_err().to_string();
    assert!(e.contains("symbolic link"), "{e}");
    assert_eq!(fs::read_to_string(victim.join("games.jsonl")).unwrap(), "");
    // The run folder itself a link (the user's `--out`, say to a bigger disk): followed, the
    // run lands in its target.
    let linked = scratch("links-folder");
    let target = scratch("links-target");
    fs::create_dir_all(&target).unwrap();
    symlink(&target, &linked).unwrap();
    cfg.out = Some(linked.clone());
    run(&cfg, &players).unwrap();
    assert!(target.join("tournament.json").is_file());
    assert!(target.join("games.jsonl").is_file());
    let _ = fs::remove_dir_all(&target);
    let _ = fs::remove_file(&linked);
    let _ = fs::remove_dir_all(&dir);
    let _ = fs::remove_dir_all(&victim);
}
