//! Engines in other processes (`engine:` agents, `awale engine`): the transcript of
//! `awale engine` as a referee drives it, the same games in process and behind the protocol,
//! every misbehaving test engine of `tests/engines/misbehave.sh` losing its game by forfeit
//! while the run goes on, engines refused before a game, and no process left behind after each test (the
//! process table is read).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use awale::agents::{AgentSpec, Turn};
use awale::notation::RecordedMove;
use awale::tournament::{run, Entrant, TournamentConfig, TournamentReport};
use awale::{Game, Rules};

/// The tests start processes and then check that none is left: one test at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn misbehave() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/engines/misbehave.sh")
}

fn awale_bin() -> &'static str {
    env!("CARGO_BIN_EXE_awale")
}

/// The processes whose command line names a test engine, its helper or what it started.
fn leftovers() -> Vec<String> {
    let mut found = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in dir.flatten() {
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if text.contains("tests/engines/")
            || text.contains("awale-test-grandchild")
            || text.contains("awale-test-helper")
        {
            found.push(format!("{}: {text}", entry.file_name().to_string_lossy()));
        }
    }
    found
}

/// Runs `body` alone, then checks that no test engine process is left (a killed process may
/// take a moment to go).
fn alone(body: impl FnOnce()) {
    let _guard = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    body();
    let until = Instant::now() + Duration::from_secs(5);
    loop {
        let left = leftovers();
        if left.is_empty() {
            return;
        }
        assert!(Instant::now() < until, "processes left behind: {left:#?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn entrant(spec: &AgentSpec, rules: &Rules) -> awale::Result<Entrant> {
    Entrant::from_spec(&awale::agent_kinds::available(), spec, rules)
}

/// An `engine:` spec for the test engine of `mode` (`tests/engines/misbehave.sh`), with short
/// times.
fn bot(mode: &str, name: &str) -> AgentSpec {
    let mut spec = AgentSpec::new("engine");
    let cmd = if mode == "no-such-engine" {
        mode.to_string()
    } else {
        misbehave().display().to_string()
    };
    for (k, v) in [
        ("cmd", cmd),
        ("args", mode.to_string()),
        ("move_time_ms", "20".into()),
        ("margin", "200".into()),
        ("init", "2000".into()),
        ("name", name.into()),
    ] {
        spec.options.push((k.into(), v));
    }
    spec
}

/// `awale engine SPEC` as an engine spec.
fn served(agent: &str, name: &str) -> AgentSpec {
    let mut spec = AgentSpec::new("engine");
    spec.options.push(("cmd".into(), awale_bin().into()));
    spec.options
        .push(("args".into(), format!("engine {agent}")));
    spec.options.push(("move_time_ms".into(), "5000".into()));
    spec.options.push(("name".into(), name.into()));
    spec
}

/// `awale engine --protocol jsonl SPEC` as an engine spec speaking JSON lines.
fn served_jsonl(agent: &str, name: &str) -> AgentSpec {
    let mut spec = served(agent, name);
    spec.options.retain(|(k, _)| k != "args");
    spec.options
        .push(("args".into(), format!("engine --protocol jsonl {agent}")));
    spec.options.push(("protocol".into(), "jsonl".into()));
    spec
}

/// An `engine:` spec for the JSON-lines test program of `mode`
/// (`tests/engines/misbehave_jsonl.py`), with short times.
fn jsonl_bot(mode: &str) -> AgentSpec {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/engines/misbehave_jsonl.py");
    let mut spec = AgentSpec::new("engine");
    for (k, v) in [
        ("cmd", "python3".to_string()),
        ("args", format!("{} {mode}", script.display())),
        ("protocol", "jsonl".into()),
        ("move_time_ms", "20".into()),
        ("margin", "1000".into()),
        ("init", "5000".into()),
        ("name", "bot".into()),
    ] {
        spec.options.push((k.into(), v));
    }
    spec
}

fn tournament(rules: Rules, games: usize, threads: usize, out: Option<&Path>) -> TournamentConfig {
    let mut cfg = TournamentConfig::new(rules);
    cfg.run.games = games;
    cfg.run.threads = threads;
    cfg.run.max_plies = 120;
    cfg.out = out.map(Path::to_path_buf);
    cfg
}

/// Plays `bot` against greedy, 2 games on 2 threads into a folder, and checks that every game
/// was lost by the bot by forfeit with `why` in the reason; then resumes the run (nothing to
/// play) and returns the report.
fn forfeits(file: &str, why: &str) -> TournamentReport {
    forfeits_of(&bot(file, "bot"), file, why)
}

/// [`forfeits`] for any engine spec named `bot`, its run in the folder `file`.
fn forfeits_of(spec: &AgentSpec, file: &str, why: &str) -> TournamentReport {
    std::env::set_var("AWALE_BIN", awale_bin());
    let rules = Rules::abapa();
    let dir = tempdir(file);
    let cfg = tournament(rules, 2, 2, Some(&dir));
    let make = || {
        vec![
            entrant(spec, &rules).unwrap(),
            Entrant::from_spec_text("greedy", &rules).unwrap(),
        ]
    };
    let report = run(&cfg, &make()).unwrap();
    assert_eq!(report.games_played, 2);
    for g in &report.games {
        let f = g
            .forfeit
            .as_ref()
            .unwrap_or_else(|| panic!("{file}: no forfeit in {g:?}"));
        assert_eq!(g.seats[f.seat], "bot");
        assert_eq!(g.end, "forfeit");
        assert!(
            f.reason.contains(why),
            "{file}: '{}' lacks '{why}'",
            f.reason
        );
        assert_eq!(g.points[f.seat], 0.0);
        assert_eq!(g.points[1 - f.seat], 1.0);
        assert!(
            g.record
                .tags
                .iter()
                .any(|(k, v)| k == "Termination" && v.contains("forfeits")),
            "{:?}",
            g.record.tags
        );
    }
    assert!(report.table().contains("forfeit"), "{}", report.table());
    // Resumed: the forfeits were saved like any game.
    let again = run(&cfg, &make()).unwrap();
    assert_eq!(again.games, report.games);
    report
}

/// A fresh folder for a test's run.
fn tempdir(name: &str) -> PathBuf {
    let dir = run_dir(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn run_dir(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("awale-engines-{}-{name}", std::process::id()))
}

#[test]
fn a_crash_loses_the_game_and_the_next_game_starts_a_new_process() {
    alone(|| {
        let report = forfeits("crash", "closed its output");
        let reason = &report.games[0].forfeit.as_ref().unwrap().reason;
        assert!(reason.contains("exit status: 3"), "{reason}");
        assert!(
            reason.contains("out of cheese"),
            "the stderr's tail: {reason}"
        );
    });
    // Its stderr is kept in the run folder.
    let log = run_dir("crash").join("engines/bot.stderr.log");
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.matches("out of cheese").count() >= 2, "{text}");
}

#[test]
fn a_hang_loses_on_time() {
    alone(|| {
        forfeits("hang", "lost on time: no bestmove within 20 + 200 ms");
    });
}

#[test]
fn an_illegal_move_loses() {
    alone(|| {
        let report = forfeits("illegal", "answered a bad move");
        let reasons: Vec<&str> = report
            .games
            .iter()
            .map(|g| g.forfeit.as_ref().unwrap().reason.as_str())
            .collect();
        assert!(reasons.iter().any(|r| r.contains("South")), "{reasons:?}");
    });
}

#[test]
fn an_unparsable_move_loses() {
    alone(|| {
        forfeits("garbage", "'@@'");
    });
}

#[test]
fn a_flood_loses() {
    alone(|| {
        // Past MAX_LINES lines it is a fault at once; a slower flood loses on time. Either way
        // the referee reads on without holding the lines (a bounded queue).
        let report = forfeits("flood", "ply");
        for g in &report.games {
            let r = &g.forfeit.as_ref().unwrap().reason;
            assert!(
                r.contains("floods its output") || r.contains("lost on time"),
                "{r}"
            );
        }
    });
}

#[test]
fn an_endless_line_loses() {
    alone(|| {
        forfeits("longline", "longer than 65536 bytes");
    });
}

#[test]
fn a_line_of_exactly_the_limit_is_read() {
    alone(|| {
        // 65,536 bytes before the newline: the longest line taken, not a fault.
        std::env::set_var("AWALE_BIN", awale_bin());
        let rules = Rules::abapa();
        let cfg = tournament(rules, 2, 1, None);
        let entrants = vec![
            entrant(&bot("exactline", "bot"), &rules).unwrap(),
            Entrant::from_spec_text("greedy", &rules).unwrap(),
        ];
        let report = run(&cfg, &entrants).unwrap();
        let forfeits: Vec<_> = report
            .games
            .iter()
            .filter_map(|g| g.forfeit.as_ref())
            .collect();
        assert!(forfeits.is_empty(), "{forfeits:?}");
        assert_eq!(report.games.len(), 2);
    });
}

#[test]
fn a_closed_output_loses() {
    alone(|| {
        forfeits("closes", "closed its output");
    });
}

#[test]
fn an_engine_that_stops_answering_isready_loses_the_next_game() {
    alone(|| {
        // The handshake's `isready` is answered; the next one (sent before every `go`) gets no
        // answer (one thread, so that both games use the same process).
        std::env::set_var("AWALE_BIN", awale_bin());
        let rules = Rules::abapa();
        let cfg = tournament(rules, 2, 1, None);
        let entrants = vec![
            entrant(&bot("forgetful", "bot"), &rules).unwrap(),
            Entrant::from_spec_text("greedy", &rules).unwrap(),
        ];
        let report = run(&cfg, &entrants).unwrap();
        let ends: Vec<&str> = report.games.iter().map(|g| g.end.as_str()).collect();
        assert!(ends.contains(&"forfeit"), "{ends:?}");
        let f = report
            .games
            .iter()
            .find_map(|g| g.forfeit.as_ref())
            .unwrap();
        assert!(f.reason.contains("did not answer isready"), "{}", f.reason);
    });
}

#[test]
fn what_an_engine_started_goes_with_it() {
    alone(|| {
        forfeits("spawner", "lost on time");
    });
}

#[test]
fn engines_that_cannot_play_are_refused_before_a_game() {
    alone(|| {
        let rules = Rules::abapa();
        let e = entrant(&bot("wari", "w"), &rules).unwrap_err().to_string();
        assert!(
            e.contains("plays wari but the game's rules are 'abapa'"),
            "{e}"
        );
        assert!(entrant(&bot("wari", "w"), &Rules::wari()).is_ok());
        let mut mute = bot("mute", "m");
        mute.options.retain(|(k, _)| k != "init");
        mute.options.push(("init".into(), "300".into()));
        let e = entrant(&mute, &rules).unwrap_err().to_string();
        assert!(e.contains("did not answer uci within 300ms"), "{e}");
        let e = entrant(&bot("no-such-engine", "n"), &rules)
            .unwrap_err()
            .to_string();
        assert!(e.contains("cannot start"), "{e}");
        let e = entrant(&bot("crash", "c"), &Rules::oware(3).unwrap())
            .unwrap_err()
            .to_string();
        assert!(e.contains("2 players"), "{e}");
        let e = entrant(&"engine:move_time_ms=5".parse().unwrap(), &rules)
            .unwrap_err()
            .to_string();
        assert!(e.contains("cmd="), "{e}");
        let e = entrant(
            &"engine:cmd=x,move_time_ms=99999999".parse().unwrap(),
            &rules,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("more than an hour"), "{e}");
        // The old key is refused with its new name, never read silently.
        let e = entrant(&"engine:cmd=x,movetime=100".parse().unwrap(), &rules)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("unknown option 'movetime' for engine: it was renamed 'move_time_ms'"),
            "{e}"
        );
    });
}

/// The games `first` plays against `alphabeta:depth=2` (4 games, 2 threads), none forfeited:
/// each game's index, moves and scores.
fn games_against_depth_2(
    rules: Rules,
    first: Entrant,
) -> Vec<(usize, Vec<RecordedMove>, Vec<u32>)> {
    let entrants = vec![
        first,
        Entrant::from_spec_text("alphabeta:depth=2", &rules).unwrap(),
    ];
    let report = run(&tournament(rules, 4, 2, None), &entrants).unwrap();
    assert!(report.games.iter().all(|g| g.forfeit.is_none()));
    report
        .games
        .iter()
        .map(|g| (g.index, g.record.moves.clone(), g.scores.clone()))
        .collect()
}

#[test]
fn an_agent_behind_the_protocol_plays_the_games_it_plays_in_process() {
    alone(|| {
        let rules = Rules::abapa();
        let games = |first: Entrant| games_against_depth_2(rules, first);
        let inside = games(Entrant::from_spec_text("alphabeta:depth=4,name=ab4", &rules).unwrap());
        let outside = games(entrant(&served("alphabeta:depth=4", "ab4"), &rules).unwrap());
        assert_eq!(inside, outside);
    });
}

#[test]
fn an_agent_behind_json_lines_plays_the_games_it_plays_in_process() {
    alone(|| {
        let rules = Rules::abapa();
        let games = |first: Entrant| games_against_depth_2(rules, first);
        let inside = games(Entrant::from_spec_text("alphabeta:depth=4,name=ab4", &rules).unwrap());
        let jsonl = games(entrant(&served_jsonl("alphabeta:depth=4", "ab4"), &rules).unwrap());
        assert_eq!(inside, jsonl);
        // Its thoughts come through too.
        let mut agent = awale::agent_kinds::available()
            .build(&served_jsonl("alphabeta:depth=5", "ab5"), &rules)
            .unwrap();
        agent.select(&Turn::from_game(&Game::new(rules))).unwrap();
        let t = agent.thoughts().unwrap();
        assert_eq!(t.depth, Some(5), "{t:?}");
    });
}

#[test]
fn random_over_json_lines_plays_a_match_to_its_end() {
    alone(|| {
        let rules = Rules::abapa();
        let entrants = vec![
            entrant(&served_jsonl("random", "random-jsonl"), &rules).unwrap(),
            Entrant::from_spec_text("greedy", &rules).unwrap(),
        ];
        let report = run(&tournament(rules, 6, 2, None), &entrants).unwrap();
        assert_eq!(report.games_played, 6);
        for g in &report.games {
            assert!(g.forfeit.is_none(), "{g:?}");
            assert!(g.record.moves.len() > 4, "{g:?}");
        }
    });
}

#[test]
fn a_json_lines_program_that_misbehaves_forfeits_with_the_reason() {
    for (mode, why) in [
        (
            "garbage",
            "wrote a line that is not a reply (expected value",
        ),
        ("badmove", "answered a bad move"),
        ("illegal", "answered a bad move"),
        ("unknown", "unknown field `ponder`"),
        ("hang", "lost on time: no bestmove within 20 + 1000 ms"),
    ] {
        alone(|| {
            let report = forfeits_of(&jsonl_bot(mode), &format!("jsonl-{mode}"), why);
            if mode == "garbage" {
                let reason = &report.games[0].forfeit.as_ref().unwrap().reason;
                assert!(reason.contains("'bestmove C'"), "{reason}");
            }
        });
    }
    alone(|| {
        // The same program, well behaved, plays its games; over UCI it is refused at once
        // (its first line is no UCI reply: it never answers uciok).
        let rules = Rules::abapa();
        let entrants = vec![
            entrant(&jsonl_bot("good"), &rules).unwrap(),
            Entrant::from_spec_text("greedy", &rules).unwrap(),
        ];
        let report = run(&tournament(rules, 2, 1, None), &entrants).unwrap();
        assert!(report.games.iter().all(|g| g.forfeit.is_none()));
        let mut uci = jsonl_bot("good");
        uci.options.retain(|(k, _)| k != "protocol" && k != "init");
        uci.options.push(("init".into(), "500".into()));
        let e = entrant(&uci, &rules).unwrap_err().to_string();
        assert!(
            e.contains("did not answer uci within") || e.contains("closed"),
            "{e}"
        );
        let mut bad = jsonl_bot("good");
        bad.options.retain(|(k, _)| k != "protocol");
        bad.options.push(("protocol".into(), "xml".into()));
        let e = entrant(&bad, &rules).unwrap_err().to_string();
        assert!(
            e.contains("unknown protocol 'xml' (known: uci, jsonl)"),
            "{e}"
        );
    });
}

/// The example bot of `python/awale/examples/jsonl_bot.py` (Python's standard library only)
/// plays its games through the referee.
#[test]
fn the_python_json_lines_bot_plays_its_games() {
    alone(|| {
        let rules = Rules::abapa();
        let bot = Path::new(env!("CARGO_MANIFEST_DIR")).join("python/awale/examples/jsonl_bot.py");
        let spec: AgentSpec = format!(
            "engine:cmd=python3,args={},protocol=jsonl,move_time_ms=20,margin=2000,init=5000,name=bot",
            bot.display()
        )
        .parse()
        .unwrap();
        let entrants = vec![
            entrant(&spec, &rules).unwrap(),
            Entrant::from_spec_text("greedy", &rules).unwrap(),
        ];
        let report = run(&tournament(rules, 4, 2, None), &entrants).unwrap();
        assert_eq!(report.games_played, 4);
        assert!(
            report.games.iter().all(|g| g.forfeit.is_none()),
            "{report:?}"
        );
        // Under wari too: it plays the legal moves it is sent, whatever the rules.
        let wari = Rules::wari();
        let entrants = vec![
            entrant(&spec, &wari).unwrap(),
            Entrant::from_spec_text("greedy", &wari).unwrap(),
        ];
        let report = run(&tournament(wari, 2, 1, None), &entrants).unwrap();
        assert!(report.games.iter().all(|g| g.forfeit.is_none()));
    });
}

#[test]
fn an_engine_agent_plays_outside_a_tournament_and_reports_what_it_found() {
    alone(|| {
        let rules = Rules::abapa();
        let registry = awale::agent_kinds::available();
        let mut agent = registry
            .build(&served("alphabeta:depth=6", "ab6"), &rules)
            .unwrap();
        let mut game = Game::new(rules);
        for _ in 0..6 {
            let house = agent.select(&Turn::from_game(&game)).unwrap();
            game.apply(house).unwrap();
        }
        let t = agent.thoughts().unwrap();
        assert_eq!(t.depth, Some(6));
        assert!(t.value.is_some() && t.nodes.unwrap() > 0, "{t:?}");
        assert!(agent.forfeits());
    });
}

/// An engine that writes only `info string …` (no depth, no score) while it searches: its
/// thoughts are that text, escaped as an answer quotes it.
#[test]
fn an_engine_that_only_says_text_has_that_text_for_thoughts() {
    alone(|| {
        let rules = Rules::abapa();
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/engines/strings.py");
        let mut spec = AgentSpec::new("engine");
        for (k, v) in [
            ("cmd", "python3".to_string()),
            ("args", script.display().to_string()),
            ("move_time_ms", "20".into()),
            ("margin", "2000".into()),
            ("init", "5000".into()),
            ("name", "strings".into()),
        ] {
            spec.options.push((k.into(), v));
        }
        let mut agent = awale::agent_kinds::available()
            .build(&spec, &rules)
            .unwrap();
        let game = Game::new(rules);
        assert_eq!(agent.select(&Turn::from_game(&game)).unwrap(), 0);
        let t = agent.thoughts().expect("thoughts from an info string");
        assert_eq!(t.summary, "engine: hello from strings.py", "{t:?}");
        assert_eq!((t.value, t.depth, t.nodes), (None, None, None), "{t:?}");
    });
}

/// The transcript of `awale engine` driven as a referee drives it (docs/engines.md shows it).
#[test]
fn awale_engine_speaks_the_protocol() {
    let mut child = Command::new(awale_bin())
        .args(["engine", "alphabeta:depth=4"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let script = "uci\nisready\nucinewgame\nposition startpos moves Cd\ngo movetime 1000\n\
                  position fen 0-0-0-0-0-1-1-0-0-0-0-0-23-23-S\ngo movetime 50\n\
                  position startpos moves CC\ngo movetime 50\n";
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(script.as_bytes()).unwrap();
    // `quit` ends every search still to come: it is sent once the three have answered.
    let stdout = child.stdout.take().unwrap();
    let (send, answers) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(|l| l.ok())
        {
            let _ = send.send(line);
        }
    });
    let mut text = String::new();
    while text.matches("bestmove").count() < 3 {
        let Ok(line) = answers.recv_timeout(Duration::from_secs(60)) else {
            let _ = child.kill();
            panic!("no third bestmove within 60 s: {text}");
        };
        text += &line;
        text.push('\n');
    }
    stdin.write_all(b"quit\n").unwrap();
    assert!(child.wait().unwrap().success());
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "id name awale alphabeta:depth=4");
    assert!(lines[2].starts_with("option name UCI_Variant type combo default abapa var abapa"));
    assert_eq!(lines[3], "uciok");
    assert_eq!(lines[4], "readyok");
    assert!(lines[5].starts_with("info depth 4 score cp "), "{text}");
    // South to move after C, d: a legal South house.
    let best: Vec<&str> = lines
        .iter()
        .filter(|l| l.starts_with("bestmove"))
        .copied()
        .collect();
    assert_eq!(best.len(), 3, "{text}");
    let mv = best[0].trim_start_matches("bestmove ");
    let mut game = Game::new(Rules::abapa());
    game.apply(2).unwrap();
    game.apply(3).unwrap();
    awale::protocol::position::read_move(&Rules::abapa(), game.state(), mv).unwrap();
    // The one legal move of the FEN (F), and nothing after an illegal list (C twice).
    assert_eq!(best[1], "bestmove F");
    assert!(text.contains("info string error:"), "{text}");
    assert_eq!(best[2], "bestmove 0000");
}

/// `awale play` against the test engine of `mode`, the moves `input` on stdin, the record saved
/// to `record`.
fn play_against(mode: &str, rules: &str, input: &str, record: &Path) -> std::process::Output {
    let opponent = format!(
        "engine:cmd={},args={mode},move_time_ms=20,margin=200,init=2000,name=bot",
        misbehave().display()
    );
    let mut child = Command::new(awale_bin())
        .args(["play", "--seed", "1", "--rules", rules, "--opponent"])
        .arg(&opponent)
        .arg("--record")
        .arg(record)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// Whether `bytes` hold a control character a terminal acts on (all but a line end).
fn has_control(bytes: &[u8]) -> bool {
    String::from_utf8_lossy(bytes)
        .chars()
        .any(|c| c.is_control() && c != '\n')
}

#[test]
fn an_engine_that_crashes_in_awale_play_forfeits_and_the_person_keeps_the_game() {
    alone(|| {
        let dir = tempdir("play-crash");
        std::fs::create_dir_all(&dir).unwrap();
        let record = dir.join("game.txt");
        let o = play_against("crash", "abapa", "A\nB\nC\nD\nE\nF\n", &record);
        let out = String::from_utf8_lossy(&o.stdout);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{:?}\n{out}\n{err}", o.status);
        assert!(out.contains("North (bot) failed and forfeits: "), "{out}");
        assert!(
            out.contains("exit status: 3") && out.contains("out of cheese"),
            "{out}"
        );
        assert!(out.contains("result: North forfeits at "), "{out}");
        assert!(out.contains(": you win"), "{out}");
        let saved = std::fs::read_to_string(&record).unwrap();
        assert!(
            saved.contains("[Termination \"North forfeits: ") && saved.contains("out of cheese"),
            "{saved}"
        );
        let parsed: awale::notation::GameRecord = saved.parse().unwrap();
        assert!(parsed.tags.iter().any(|(k, _)| k == "Termination"));
    });
}

/// `awale match` (the binary, a subreaper) with the test engine of `mode` against greedy, 2
/// games on one thread into a fresh folder; returns the folder.
fn binary_match(mode: &str) -> PathBuf {
    let dir = tempdir(mode);
    let spec = format!(
        "engine:cmd={},args={mode},move_time_ms=20,margin=200,init=2000,name=bot",
        misbehave().display()
    );
    let out = Command::new(awale_bin())
        .args(["match", &spec, "greedy", "--games", "2", "--threads", "1"])
        .arg("--no-progress")
        .arg("--out")
        .arg(&dir)
        .env("AWALE_BIN", awale_bin())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

#[test]
fn what_an_engine_started_in_a_session_of_its_own_goes_with_it() {
    // A `setsid` child and a double-forked one: in their own sessions and process groups, out of
    // reach of the engine's group. The referee (here the test process, no subreaper) kills the
    // engine's whole tree while the engine holds it.
    alone(|| {
        forfeits("setsid", "lost on time");
    });
    alone(|| {
        binary_match("setsid");
    });
}

#[test]
fn what_a_hostile_engine_writes_reaches_the_terminal_escaped() {
    alone(|| {
        let dir = tempdir("play-hostile");
        std::fs::create_dir_all(&dir).unwrap();
        let record = dir.join("game.txt");
        // Its stderr (a title change, a screen clear) in the forfeit reason, on the terminal and
        // in the record.
        let o = play_against("hostile", "abapa", "A\nB\nC\nD\nE\nF\n", &record);
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{out}");
        assert!(!has_control(&o.stdout), "raw control characters: {out:?}");
        assert!(out.contains("\\x1b]0;pwned\\x07\\x1b[2J"), "{out}");
        let saved = std::fs::read(&record).unwrap();
        assert!(
            !has_control(&saved),
            "{:?}",
            String::from_utf8_lossy(&saved)
        );
        // Its UCI_Variant values, in the error that refuses it for rules it does not play.
        let o = play_against("hostile", "wari", "", &record);
        assert_eq!(o.status.code(), Some(2));
        assert!(
            !has_control(&o.stderr),
            "{:?}",
            String::from_utf8_lossy(&o.stderr)
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("plays abapa, \\x1b]0;pwned\\x07\\x1b[2J but"),
            "{err}"
        );
    });
}

#[test]
fn what_a_crashed_engine_left_behind_is_reaped_by_the_awale_binary() {
    // The engine double-forks a process into a session of its own, then exits: the orphan is
    // re-parented to `awale` (a subreaper), which kills and reaps it.
    alone(|| {
        let dir = binary_match("setsidcrash");
        let games = std::fs::read_to_string(dir.join("games.jsonl")).unwrap();
        assert_eq!(games.matches("\"end\":\"forfeit\"").count(), 2, "{games}");
    });
}

#[test]
fn a_second_answer_to_a_go_is_a_fault_not_the_next_move() {
    alone(|| {
        forfeits("twice", "when no move was asked for");
    });
}

#[test]
fn an_answer_before_go_is_a_fault() {
    alone(|| {
        forfeits("early", "when no move was asked for");
    });
}

#[test]
fn an_engines_stderr_log_stops_at_16_mib() {
    alone(|| {
        // 2 MiB of stderr before every move (one thread: one process, one writer of the log).
        std::env::set_var("AWALE_BIN", awale_bin());
        let rules = Rules::abapa();
        let dir = tempdir("stderrflood");
        let cfg = tournament(rules, 2, 1, Some(&dir));
        let entrants = vec![
            entrant(&bot("stderrflood", "bot"), &rules).unwrap(),
            Entrant::from_spec_text("greedy", &rules).unwrap(),
        ];
        let report = run(&cfg, &entrants).unwrap();
        assert!(report.games.iter().all(|g| g.forfeit.is_none()));
        drop(entrants);
        let log = dir.join("engines/bot.stderr.log");
        let len = std::fs::metadata(&log).unwrap().len();
        let cap = awale::protocol::referee::MAX_LOG;
        let note = awale::protocol::referee::LOG_FULL;
        assert_eq!(len, cap + note.len() as u64);
        let mut tail = vec![0; note.len()];
        let mut f = std::fs::File::open(&log).unwrap();
        use std::io::{Read, Seek, SeekFrom};
        f.seek(SeekFrom::End(-(note.len() as i64))).unwrap();
        f.read_exact(&mut tail).unwrap();
        assert_eq!(tail, note.as_bytes());
    });
}

#[cfg(unix)]
#[test]
fn a_fifo_or_a_link_at_the_log_path_is_refused_at_once() {
    alone(|| {
        let dir = tempdir("logpath");
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("bot.log");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid C string; mkfifo reads it only.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let victim = dir.join("victim");
        std::fs::write(&victim, "precious").unwrap();
        let link = dir.join("link.log");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        for (path, why) in [(fifo, "FIFO"), (link, "symbolic link")] {
            let mut spec = bot("hang", "bot");
            spec.options
                .push(("log".into(), path.display().to_string()));
            // A hang guard: until 2026-11 the open of a FIFO waited for a reader for ever.
            let (send, answer) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                let _ = send.send(entrant(&spec, &Rules::abapa()).map(|_| ()));
            });
            let e = answer
                .recv_timeout(Duration::from_secs(20))
                .expect("the log's open hangs")
                .unwrap_err()
                .to_string();
            assert!(e.contains(why), "{e}");
        }
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    });
}
