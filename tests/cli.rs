//! The `awale` binary: rules, show, play, perft and tournament, run as a user would.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use awale::notation::{parse_position, GameRecord};
use awale::tournament::GameRunError;

/// Runs the binary with `args`, feeding `input` on stdin (closed afterwards).
fn awale(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_awale"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the awale binary runs");
    let mut stdin = child.stdin.take().unwrap();
    // The program may exit before reading everything (e.g. on a bad argument).
    let _ = stdin.write_all(input.as_bytes());
    drop(stdin);
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// Asserts a clean failure: exit code 2, a message naming `want`, no panic.
fn assert_fails(o: &Output, want: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "stderr: {err}");
    assert!(err.contains(want), "stderr {err:?} lacks {want:?}");
    assert!(!err.contains("panicked"), "{err}");
}

/// The game record printed at the end of `awale play`.
fn printed_record(out: &str) -> GameRecord {
    let (_, text) = out
        .split_once("game record:\n")
        .expect("a game record is printed");
    text.parse().unwrap()
}

#[test]
fn show_the_start_position() {
    let o = awale(&["show", "abapa"], "");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("North |  4 |  4 |  4 |  4 |  4 |  4 |  store  0\n"),
        "{out}"
    );
    assert!(out.contains("South |  4 |  4 |  4 |  4 |  4 |  4 |  store  0  <- to move\n"));
    assert!(out.contains("         f    e    d    c    b    a\n"));
    assert!(out.contains("         A    B    C    D    E    F\n"));
    assert!(out.contains("position:    abapa 4,4,4,4,4,4/4,4,4,4,4,4 0,0 0\n"));
    assert!(out.contains("legal moves: A B C D E F\n"));
    assert!(out.contains("status:      ongoing\n"));
}

#[test]
fn show_a_position_given_as_words_or_one_argument() {
    let words = awale(
        &[
            "show",
            "abapa",
            "0,0,0,0,1,2/3,0,0,0,0,0",
            "20,22",
            "1",
            "80",
        ],
        "",
    );
    let quoted = awale(&["show", "abapa 0,0,0,0,1,2/3,0,0,0,0,0 20,22 1 80"], "");
    assert!(words.status.success(), "{}", stderr(&words));
    assert_eq!(stdout(&words), stdout(&quoted));
    let out = stdout(&words);
    assert!(out.contains("abapa  ply 80  North (a-f) to move"), "{out}");
    assert!(out.contains("legal moves: a\n"));
    assert!(out.contains("stores:      20-22\n"));
}

#[test]
fn show_multi_player_and_ended_positions() {
    let o = awale(&["show", "oware4", "start", "3"], "");
    let out = stdout(&o);
    assert!(
        out.contains("player 3 |  4 |  4 |  4 |  store  0  <- to move"),
        "{out}"
    );
    assert!(out.contains("legal moves: 3A 3B 3C\n"));

    let o = awale(&["show", "abapa 0,0,0,0,0,0/1,0,0,0,0,0 26,21 0 60"], "");
    let out = stdout(&o);
    assert!(
        out.contains("game over, ended by threshold: South wins"),
        "{out}"
    );
    assert!(out.contains("legal moves: none\n"));
    assert!(out.contains("status:      ended by threshold\n"));
}

#[test]
fn show_refuses_bad_positions_cleanly() {
    let cases: &[(&[&str], &str)] = &[
        (&["show", "abapa 4,4,4,4,4,4/4,4,4,4,4,5 0,0 0"], "49 seeds"),
        (
            &["show", "abapa", "4,4,4/4,4,4", "0,0", "0"],
            "row 1 (player 0) has 3 houses",
        ),
        (
            &["show", "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0,0 5"],
            "player to move 5 does not exist",
        ),
        (
            &["show", "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0,0"],
            "expected RULES ROWS STORES TO_MOVE",
        ),
        (&["show", "chess"], "unknown rules preset 'chess'"),
        (&["show", "abapa:houses=99"], "bad rules option"),
        (
            &["show", "abapa ☃,4,4,4,4,4/4,4,4,4,4,4 0,0 0"],
            "'☃' is not a seed count",
        ),
    ];
    for (args, want) in cases {
        let o = awale(args, "");
        assert_fails(&o, want);
        assert!(
            stderr(&o).starts_with("error: bad position"),
            "{}",
            stderr(&o)
        );
    }
    // No position at all is a usage error.
    let o = awale(&["show"], "");
    assert_fails(&o, "POSITION");
}

#[test]
fn play_rejects_garbage_and_stops_at_the_end_of_input() {
    let input = "zz\nf\n9\nG\n\nmoves\n0\nC\n\u{7f}\u{1b}[A\n";
    let o = awale(&["play", "--seed", "3"], input);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("abapa: you are South (A-F)"), "{out}");
    assert!(out.contains("cannot read that move: bad move notation 'zz'"));
    assert!(out.contains("'f': that is a house of North but South is to move"));
    assert!(out.contains("house number 9 is out of range: your houses are 1 to 6 (A-F)"));
    assert!(out.contains("house number 0 is out of range"));
    assert!(out.contains("there is no house 'G'"));
    assert!(out.contains("legal moves: A B C D E F (or their numbers"));
    assert!(out.contains("you play C\n"));
    assert!(out.contains("North plays "));
    assert!(out.contains("game stopped (the input ended) at 0-0 ongoing"));
    // The record of the unfinished game replays: South's C, then North's reply.
    let record = printed_record(&out);
    assert_eq!(record.moves.len(), 2);
    assert_eq!(record.move_texts()[0], "C");
    assert_eq!(record.tag("Seed"), Some("3"));
    assert_eq!(record.replay().unwrap().state().ply(), 2);
}

#[test]
fn play_refuses_illegal_moves_and_re_prompts() {
    // South's A is empty.
    let o = awale(
        &[
            "play",
            "--seed",
            "0",
            "--from",
            "abapa 0,4,4,4,4,4/4,4,4,4,4,8 0,0 0",
        ],
        "1\nA\nquit\n",
    );
    let out = stdout(&o);
    assert_eq!(
        out.matches("A is not possible: the house is empty").count(),
        2,
        "{out}"
    );
    assert!(out.contains("Legal moves: B C D E F"));
    assert!(out.contains("game stopped (you quit)"));
    assert!(printed_record(&out).moves.is_empty());

    // North is empty: South must feed, so A (one seed into B) is refused and F is played.
    let o = awale(
        &[
            "play",
            "--seed",
            "0",
            "--from",
            "abapa 1,0,0,0,0,5/0,0,0,0,0,0 20,22 0",
        ],
        "A\nF\n",
    );
    let out = stdout(&o);
    assert!(out.contains("South to move [F]> "), "{out}");
    assert!(out
        .contains("A is not possible: the opponent has no seeds and this move does not feed him"));
    assert!(out.contains("you play F\n"));
    assert_eq!(printed_record(&out).move_texts()[0], "F");
}

#[test]
fn play_a_whole_game_from_a_pipe() {
    // Numbers 1..6 over and over: the illegal ones are refused, the others played.
    let input = "1\n2\n3\n4\n5\n6\n".repeat(200);
    let o = awale(&["play", "--seed", "5", "--rules", "abapa"], &input);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("result: "), "{out}");
    assert!(out.contains("ended by"));
    let record = printed_record(&out);
    let game = record.replay().unwrap();
    assert!(game.is_over());
    let verdict = out.lines().find(|l| l.starts_with("result: ")).unwrap();
    assert!(verdict.contains(&record.result.clone().unwrap()));
    assert!(
        verdict.ends_with("you win")
            || verdict.ends_with("you lose")
            || verdict.ends_with("you share the win"),
        "{verdict}"
    );
}

#[test]
fn play_the_multi_player_game_in_one_seat() {
    let input = "a\n2B\n3\nD\n0A\nb\n".repeat(100);
    let o = awale(
        &["play", "--rules", "oware3", "--seat", "2", "--seed", "11"],
        &input,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("oware3: you are player 2 (2A-2D)"), "{out}");
    assert!(out.contains("player 2 |"));
    assert!(out.contains("player 0 plays 0"));
    assert!(out.contains("a house of player 0 but player 2 is to move"));
    let record = printed_record(&out);
    assert_eq!(record.rules.players, 3);
    assert!(record.moves.iter().any(|m| m.player == 2));
    assert!(record.replay().unwrap().is_over());
}

#[test]
fn play_from_a_position_and_bad_arguments() {
    let o = awale(
        &[
            "play",
            "--seed",
            "1",
            "--from",
            "abapa 0,0,0,0,1,2/3,0,0,0,0,0 20,22 0 80",
        ],
        "F\n",
    );
    let out = stdout(&o);
    assert!(out.contains("you play F"), "{out}");
    let record = printed_record(&out);
    let (_, start) = parse_position("abapa 0,0,0,0,1,2/3,0,0,0,0,0 20,22 0 80").unwrap();
    assert_eq!(record.start, start);

    assert_fails(
        &awale(&["play", "--seat", "2"], ""),
        "seat 2 does not exist",
    );
    assert_fails(
        &awale(&["play", "--rules", "oware5"], ""),
        "unknown rules preset 'oware5'",
    );
    assert_fails(&awale(&["play", "--seed", "x"], ""), "invalid value 'x'");
    assert_fails(
        &awale(&["play", "--from", "abapa 1 0,0 0"], ""),
        "bad position",
    );
}

#[test]
fn play_with_nothing_on_stdin() {
    let o = awale(&["play", "--seat", "1", "--seed", "2"], "");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    // South (random) moved first, then the input ended at North's first prompt.
    assert!(out.contains("South plays "), "{out}");
    assert!(out.contains("North to move [a b c d e f]> "));
    assert!(out.contains("game stopped (the input ended)"));
    assert_eq!(printed_record(&out).moves.len(), 1);
}

#[test]
fn perft_counts_from_the_start() {
    let o = awale(&["perft", "4"], "");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let counts: Vec<(u32, u64)> = out
        .lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            Some((w.next()?.parse().ok()?, w.next()?.parse().ok()?))
        })
        .collect();
    // Depth 3 is not 6^3: a house emptied by South's first move stays empty unless North's
    // reply reaches it.
    assert_eq!(counts, vec![(1, 6), (2, 36), (3, 190), (4, 1014)], "{out}");
}

#[test]
fn perft_divide_and_positions() {
    let o = awale(&["perft", "3", "--divide"], "");
    let out = stdout(&o);
    for line in [
        "   A  34", "   B  33", "   C  32", "   D  31", "   E  30", "   F  30",
    ] {
        assert!(out.contains(line), "{out}");
    }
    assert!(out.contains("total 190 at depth 3"));

    let o = awale(&["perft", "2", "--rules", "oware3"], "");
    assert!(stdout(&o).contains("perft from oware3 4,4,4,4/4,4,4,4/4,4,4,4 0,0,0 0"));

    let o = awale(
        &[
            "perft",
            "1",
            "abapa",
            "0,0,0,0,1,2/3,0,0,0,0,0",
            "20,22",
            "0",
        ],
        "",
    );
    let out = stdout(&o);
    assert!(
        out.lines()
            .any(|l| l.split_whitespace().take(2).eq(["1", "2"])),
        "{out}"
    );

    assert_fails(&awale(&["perft", "two"], ""), "invalid value 'two'");
    assert_fails(&awale(&["perft", "2", "abapa 4 0,0 0"], ""), "bad position");
    assert_fails(
        &awale(&["perft", "2", "--rules", "abapa", "wari"], ""),
        "cannot be used with",
    );
}

#[test]
fn rules_lists_presets_and_options() {
    let o = awale(&["rules"], "");
    assert!(o.status.success());
    let out = stdout(&o);
    for p in awale::presets::presets() {
        assert!(
            out.contains(&format!("  {:<10} {}", p.spec, p.summary)),
            "{out}"
        );
    }
    for (key, _) in awale::Rules::abapa().options() {
        assert!(
            out.lines().any(|l| l.trim_start().starts_with(key)),
            "{key}"
        );
    }
    let grand_slam = out
        .lines()
        .find(|l| l.trim_start().starts_with("grand_slam "))
        .unwrap();
    let values: Vec<&str> = grand_slam.split_whitespace().collect();
    assert_eq!(
        values,
        [
            "grand_slam",
            "no_capture",
            "forbidden",
            "no_capture",
            "no_capture",
            "no_capture"
        ]
    );
    assert!(out.contains("PRESET[:KEY=VALUE,...]"));

    let o = awale(&["rules", "oware3"], "");
    let out = stdout(&o);
    assert!(out.starts_with("oware3: multi-player"), "{out}");
    assert!(out.contains("  players          3 "));
    assert!(out.contains("  houses           4 "));
    assert!(out.contains("3 players x 4 houses, 48 seeds in play"));

    let o = awale(&["rules", "wari:max_plies=300"], "");
    assert!(stdout(&o).contains("  max_plies        300 "));

    assert_fails(
        &awale(&["rules", "abapa:feeding=sometimes"], ""),
        "feeding=sometimes",
    );
}

#[test]
fn help_teaches_with_examples() {
    for cmd in ["rules", "show", "play", "perft"] {
        let o = awale(&[cmd, "--help"], "");
        assert!(o.status.success());
        let out = stdout(&o);
        assert!(out.contains("Examples:"), "{cmd}: {out}");
        assert!(out.contains(&format!("awale {cmd}")), "{cmd}: {out}");
    }
}

#[test]
fn tournament_runs_in_parts_and_resumes() {
    let dir = std::env::temp_dir().join(format!("awale-cli-tournament-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();
    let args = [
        "tournament",
        "--agents",
        "random,greedy",
        "--games",
        "4",
        "--max-plies",
        "100",
        "--threads",
        "2",
        "--out",
        d,
    ];
    let part = awale(&[&args[..], &["--limit", "3"]].concat(), "");
    assert!(part.status.success(), "{}", stderr(&part));
    let out = stdout(&part);
    assert!(out.contains("3 of 4 games (incomplete)"), "{out}");
    assert!(out.contains("1 games left"), "{out}");
    // The progress bar is drawn on stderr, or not at all when it is not a terminal.
    assert!(!stderr(&part).contains("panicked"));
    let rest = awale(&[&args[..], &["--no-progress"]].concat(), "");
    assert!(rest.status.success(), "{}", stderr(&rest));
    let out = stdout(&rest);
    assert!(out.contains("4 of 4 games,"), "{out}");
    assert!(!out.contains("games left"), "{out}");
    let lines = std::fs::read_to_string(dir.join("games.jsonl")).unwrap();
    assert_eq!(lines.lines().count(), 4);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A game of random moves under `rules` to its end, as a record.
fn random_record(rules: &str, seed: u64) -> GameRecord {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut game = awale::Game::new(rules.parse().unwrap());
    while !game.is_over() {
        let legal = game.state().legal_moves(game.rules());
        game.apply(legal[rng.random_range(0..legal.len())]).unwrap();
    }
    GameRecord::from_game(&game)
}

#[test]
fn tablebase_build_probe_analyze_and_the_perfect_agent() {
    let dir = std::env::temp_dir().join(format!("awale-cli-tb-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();
    let o = awale(
        &[
            "tablebase",
            "build",
            "--max-seeds",
            "12",
            "--threads",
            "2",
            "--out",
            d,
        ],
        "",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("built 2704156 positions"), "{out}");
    assert!(out.contains("   12       1352078"), "{out}");
    assert!(dir.join("abapa-12.awtb").exists());

    // Probe: South E = 1, F = 1; North a = 1, b = 1.
    let o = awale(
        &[
            "tablebase",
            "probe",
            "--dir",
            d,
            "abapa 0,0,0,0,1,1/1,1,0,0,0,0 22,22 0",
        ],
        "",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("value:") && out.contains("of the 4 seeds"),
        "{out}"
    );
    assert!(out.contains("best"), "{out}");
    let o = awale(&["tablebase", "probe", "--dir", d, "abapa"], "");
    assert_fails(&o, "the board holds 48 seeds");
    // The same position at the terminal: `hint` adds the table's values.
    let o = awale(
        &[
            "play",
            "--tablebase",
            d,
            "--from",
            "abapa 0,0,0,0,1,1/1,1,0,0,0,0 22,22 0",
        ],
        "hint\nquit\n",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("perfect play: ") && out.contains("of the 4 seeds on the board for you"),
        "{out}"
    );
    let o = awale(&["tablebase", "probe", "--dir", d, "oware2"], "");
    assert_fails(&o, "single-sowing");

    // Analyze a game played to its end without the threshold (the same tables).
    let record = random_record("abapa:win=none", 11);
    let path = dir.join("game.txt");
    std::fs::write(&path, record.to_string()).unwrap();
    let o = awale(&["analyze", "--dir", d, path.to_str().unwrap()], "");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("moves in the table"), "{out}");
    let o = awale(
        &[
            "analyze",
            "--dir",
            d,
            dir.join("none.txt").to_str().unwrap(),
        ],
        "",
    );
    assert_fails(&o, "none.txt");

    // The yardstick and the agents that use the table.
    let o = awale(
        &[
            "tablebase",
            "accuracy",
            "--dir",
            d,
            "--max-seeds",
            "8",
            "--positions",
            "40",
            "--agents",
            &format!("random,perfect:dir={d},alphabeta:depth=2,tb={d}"),
        ],
        "",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let perfect = out.lines().find(|l| l.starts_with("perfect")).unwrap();
    assert!(
        perfect.contains("100.0%") && perfect.contains(" 0.000 "),
        "{out}"
    );
    let o = awale(
        &[
            "tournament",
            "--agents",
            &format!("perfect:dir={d},fallback_depth=2 random"),
            "--games",
            "4",
            "--no-progress",
            "--endgame",
            d,
            "--endgame-positions",
            "20",
        ],
        "",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("endgame accuracy (20 positions with at most 12 seeds"),
        "{out}"
    );
    let line = out.lines().find(|l| l.starts_with("perfect:")).unwrap();
    assert!(line.contains("100.0%"), "{out}");
    let o = awale(
        &[
            "tournament",
            "--agents",
            "random greedy",
            "--endgame",
            "/nonexistent",
        ],
        "",
    );
    assert_fails(&o, "missing");
    let o = awale(
        &[
            "tournament",
            "--agents",
            &format!("perfect:dir={d} random"),
            "--games",
            "2",
        ],
        "",
    );
    assert!(!o.status.success());
    assert!(stderr(&o).contains("fallback_depth"), "{}", stderr(&o));
    let o = awale(
        &[
            "tournament",
            "--agents",
            "perfect:dir=/nonexistent random",
            "--games",
            "2",
        ],
        "",
    );
    assert_fails(&o, "missing");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn play_against_agents_with_hint_undo_and_a_saved_record() {
    let dir = std::env::temp_dir().join(format!("awale-cli-play-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let record = dir.join("game.txt");
    // Undo before any move, a hint, two moves, an undo back to the first, then quit.
    let o = awale(
        &[
            "play",
            "--seed",
            "3",
            "--opponent",
            "alphabeta:depth=2",
            "--record",
            record.to_str().unwrap(),
        ],
        "undo\nhint\nC\nB\nundo\nquit\n",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("against alphabeta:depth=2"), "{out}");
    assert!(
        out.contains("nothing to undo: you have not moved yet"),
        "{out}"
    );
    assert!(
        out.contains("hint: ") && out.contains("(alpha-beta depth 8: "),
        "{out}"
    );
    assert!(out.contains("took back 2 moves"), "{out}");
    let printed = printed_record(&out);
    assert_eq!(printed.move_texts().len(), 2, "{out}"); // C and North's reply
    assert_eq!(printed.move_texts()[0], "C");
    assert_eq!(printed.tag("Opponents"), Some("alphabeta:depth=2"));
    let saved: GameRecord = std::fs::read_to_string(&record).unwrap().parse().unwrap();
    assert_eq!(saved, printed);

    // Three players, one agent per other seat, and a hint by MCTS.
    let o = awale(
        &[
            "play",
            "--rules",
            "oware3",
            "--seat",
            "1",
            "--seed",
            "2",
            "--opponent",
            "mcts:sims=50,random",
        ],
        "hint\nquit\n",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("against mcts:sims=50, random"), "{out}");
    assert!(out.contains("(MCTS 2000 simulations: "), "{out}");

    // Bad opponents are refused before the game starts.
    let o = awale(&["play", "--opponent", "alphabeta:depht=3"], "");
    assert_fails(&o, "unknown option 'depht'");
    let o = awale(
        &["play", "--rules", "oware4", "--opponent", "random,random"],
        "",
    );
    assert_fails(&o, "one per seat (3 here)");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn tournament_shards_join_into_the_whole_tournament() {
    let base = std::env::temp_dir().join(format!("awale-cli-shards-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let args = |out: &std::path::Path| -> Vec<String> {
        [
            "tournament",
            "--agents",
            "random,greedy",
            "--games",
            "6",
            "--seed",
            "4",
            "--no-progress",
            "--out",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([out.to_str().unwrap().to_string()])
        .collect()
    };
    let run = |extra: &[&str], out: &std::path::Path| {
        let mut a = args(out);
        a.extend(extra.iter().map(|s| s.to_string()));
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        awale(&a, "")
    };
    let whole = base.join("whole");
    assert!(run(&[], &whole).status.success());
    let all = base.join("all");
    std::fs::create_dir_all(&all).unwrap();
    let mut lines = String::new();
    for k in 0..2 {
        let part = base.join(format!("part-{k}"));
        let shard = format!("{k}/2");
        let o = run(&["--shard", &shard], &part);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        lines.push_str(&std::fs::read_to_string(part.join("games.jsonl")).unwrap());
        std::fs::copy(part.join("tournament.json"), all.join("tournament.json")).unwrap();
    }
    std::fs::write(all.join("games.jsonl"), lines).unwrap();
    let o = run(&[], &all);
    assert!(o.status.success());
    assert_eq!(
        std::fs::read_to_string(all.join("results.json")).unwrap(),
        std::fs::read_to_string(whole.join("results.json")).unwrap()
    );
    for bad in ["2/2", "1", "a/2", "0/0"] {
        let o = run(&["--shard", bad], &base.join("bad"));
        assert!(!o.status.success(), "{bad}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("--shard"),
            "{bad}"
        );
    }
    let _ = std::fs::remove_dir_all(&base);
}

/// The fields of `match.json` that the decision fixes (not `games_played`: a killed run may
/// have finished games past the decision).
fn match_decision(dir: &std::path::Path) -> serde_json::Value {
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("match.json")).unwrap()).unwrap();
    serde_json::json!([
        v["verdict"],
        v["pairs"],
        v["pentanomial"],
        v["llr"],
        v["elo"]
    ])
}

#[test]
fn match_runs_an_sprt_and_resumes_after_a_kill_to_the_same_decision() {
    let root = std::env::temp_dir().join(format!("awale-cli-match-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let args = |out: &std::path::Path| -> Vec<String> {
        [
            "match",
            "alphabeta:depth=5",
            "alphabeta:depth=3",
            "--sprt",
            "elo0=0,elo1=60",
            "--threads",
            "1",
            "--games",
            "600",
            "--max-plies",
            "150",
            "--no-progress",
            "--out",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([out.display().to_string()])
        .collect()
    };
    let whole = root.join("whole");
    let a = args(&whole);
    let o = awale(&a.iter().map(String::as_str).collect::<Vec<_>>(), "");
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("verdict: H1 accepted") || text.contains("verdict: H0 accepted"),
        "{text}"
    );
    assert!(
        text.contains("LLR") && text.contains("pentanomial"),
        "{text}"
    );

    // Killed (SIGKILL) once games are on disk, then run again.
    let killed = root.join("killed");
    let a = args(&killed);
    let mut child = Command::new(env!("CARGO_BIN_EXE_awale"))
        .args(&a)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while std::fs::read_to_string(killed.join("games.jsonl"))
        .map(|t| t.lines().count() < 6)
        .unwrap_or(true)
        && start.elapsed().as_secs() < 60
    {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let _ = child.kill();
    let _ = child.wait();
    let lines = |d: &std::path::Path| {
        std::fs::read_to_string(d.join("games.jsonl"))
            .map(|t| t.lines().count())
            .unwrap_or(0)
    };
    assert!(
        lines(&killed) < lines(&whole),
        "the kill came after the end"
    );
    assert!(!killed.join("match.json").exists());
    let o = awale(&a.iter().map(String::as_str).collect::<Vec<_>>(), "");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(match_decision(&killed), match_decision(&whole));
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn match_refuses_bad_bounds_and_odd_games() {
    assert_fails(
        &awale(
            &["match", "greedy", "random", "--sprt", "elo0=5,elo1=1"],
            "",
        ),
        "below elo1",
    );
    assert_fails(
        &awale(&["match", "greedy", "random", "--sprt", "elo1=5"], ""),
        "elo0 is required",
    );
    assert_fails(
        &awale(&["match", "greedy", "random", "--games", "5"], ""),
        "even",
    );
    assert_fails(
        &awale(&["match", "greedy", "random", "--rules", "oware4"], ""),
        "2-player",
    );
}

/// The Elo interval is asymmetric: printed as its two ends, never as `± half-width`.
#[test]
fn match_prints_the_elo_interval_as_its_two_ends() {
    let o = awale(
        &[
            "match",
            "greedy",
            "random",
            "--games",
            "20",
            "--no-progress",
        ],
        "",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let line = out.lines().find(|l| l.starts_with("Elo ")).expect(&out);
    assert!(!line.contains('±'), "{line}");
    // "Elo +510.8 (95%: +310.5 to +1199.8), LOS 100.0%": the estimate lies inside its ends.
    let nums: Vec<f64> = line
        .split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+'))
        .filter_map(|w| w.parse().ok())
        .collect();
    assert!(
        line.contains("(95%: ") && nums.len() == 5,
        "{line}: {nums:?}"
    );
    assert!(nums[2] <= nums[0] && nums[0] <= nums[3], "{line}");
}

/// The shared game flags fill the library's one game run: its checks, and their messages, are
/// the command's.
#[test]
fn the_game_flags_are_checked_by_the_library_game_run() {
    let odd = GameRunError::OddGames(7).to_string();
    assert_fails(
        &awale(&["match", "greedy", "random", "--games", "7"], ""),
        &odd,
    );
    assert_fails(
        &awale(
            &["tournament", "--agents", "random,greedy", "--games", "0"],
            "",
        ),
        &GameRunError::NoGames.to_string(),
    );
    if cfg!(feature = "train") {
        let out = std::env::temp_dir().join(format!("awale-cli-odd-{}", std::process::id()));
        let out = out.to_string_lossy().into_owned();
        assert_fails(
            &awale(&["ladder", "nothing", "--out", &out, "--games", "7"], ""),
            &odd,
        );
        let _ = std::fs::remove_dir_all(&out);
    }
}

/// A reader that went away (`awale rules | head -1`, `| grep -q`) ends the command quietly with
/// status 141, as it ends `cat` or `git`: no panic, no backtrace, nothing on stderr. The pipe's
/// read end is closed before the command starts, so its first line already fails.
#[test]
fn a_closed_stdout_ends_the_command_quietly() {
    for args in [
        &["rules"][..],
        &["show", "abapa"],
        &["perft", "3"],
        &[
            "tournament",
            "--agents",
            "random,greedy",
            "--games",
            "2",
            "--no-progress",
        ],
    ] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = Command::new(env!("CARGO_BIN_EXE_awale"))
            .args(args)
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(awale::cli::BROKEN_PIPE_STATUS),
            "{args:?}"
        );
        assert_eq!(stderr(&out), "", "{args:?}");
    }
}

#[test]
fn scorecard_rates_with_a_protocol_file_and_refuses_unknown_rules() {
    let dir = std::env::temp_dir().join(format!("awale-cli-scorecard-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let proto = dir.join("tiny.toml");
    std::fs::write(
        &proto,
        "version = 1\n[[rules]]\nrules = \"abapa\"\nseed = 3\nopenings = 4\ngames = 4\nprior_draws = 1.0\n\
         anchors = [{ spec = \"random\", rating = 0.0 }, { spec = \"greedy\", rating = 300.0 }]\n",
    )
    .unwrap();
    let out = dir.join("card");
    let args = [
        "scorecard",
        "alphabeta:depth=2",
        "--protocol",
        proto.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--no-progress",
    ];
    let o = awale(&args, "");
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("Elo on scorecard v1/abapa/"), "{text}");
    let card: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("scorecard.json")).unwrap())
            .unwrap();
    assert_eq!(card["games"], 8);
    // Again: resumed from the folder, the same rating.
    let again = awale(&args, "");
    let card2: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("scorecard.json")).unwrap())
            .unwrap();
    assert!(again.status.success());
    assert_eq!(card["rating"], card2["rating"]);
    assert_fails(
        &awale(
            &["scorecard", "greedy", "--rules", "chess", "--no-progress"],
            "",
        ),
        "no part for 'chess'",
    );
    assert_fails(
        &awale(&["scorecard", "nosuchkind", "--no-progress"], ""),
        "nosuchkind",
    );
    let _ = std::fs::remove_dir_all(&dir);
}
