//! `awale serve` against a hostile token holder and an idle peer: each reproduction of the
//! issue "every cost bounded" as a short request to the binary, checked refused or bounded,
//! with the process alive afterwards, its memory under `--memory-mb` plus [`RSS_MARGIN_MB`],
//! every move within the move time + 100 ms, and cheap requests answered quickly throughout
//! (p99 under 50 ms, measured by a probe that runs beside each attack).
//!
//! The tests run one at a time (they measure time and memory), each in a few seconds. Linux
//! only: the memory is read from `/proc`.
#![cfg(target_os = "linux")]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

mod serve_common;
use serve_common::attack::*;
use serve_common::{tiny_tables, Server};

const ENDLESS: &str = "abapa:capture=200-200,cycle=ignore,max_plies=2000000";

#[test]
fn replays_are_bounded_in_plies_and_answer_size() {
    let _one = serial();
    let mut srv = Server::start(&["--memory-mb", "64"]);
    let probe = Probe::start(srv.addr);
    // The record: a game of 200,000 plies (1 MB of JSON) under endless rules.
    let record = long_record(ENDLESS, 200_000, 1);
    let line = json!({"record": record, "seats": ["random", "random"]}).to_string();
    assert!(line.len() > 500_000, "{}", line.len());
    let t = Instant::now();
    let (status, _, body) = replay(srv.addr, line.as_bytes());
    assert_eq!(status, 413, "{body}");
    assert!(body.contains("--max-plies"), "{body}");
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    // Many games within the ply limit whose frames together would pass the answer's limit
    // (about 1,000 × 2,000 frames): refused once the answer reaches it.
    let game = long_record(ENDLESS.replace("2000000", "2000").as_str(), 2000, 2);
    let line = json!({"record": game, "seats": ["random", "random"]}).to_string();
    let file = vec![line.as_str(); 1000].join("\n");
    assert!(file.len() < 16 << 20, "{}", file.len());
    let (status, _, body) = replay(srv.addr, file.as_bytes());
    assert_eq!(status, 413, "{body}");
    assert!(body.contains("answer"), "{body}");
    alive_under(&mut srv, 64);
    // A body over the limit: 413 as JSON, before it is read; text that is not UTF-8: 400 as JSON.
    let (status, head, body) = replay(srv.addr, &vec![b'x'; (16 << 20) + 1]);
    assert_eq!(status, 413, "{body}");
    assert!(head.contains("content-type: application/json"), "{head}");
    assert!(error_of(&serde_json::from_str(&body).unwrap()).contains("limit"));
    let (status, head, body) = replay(srv.addr, b"[Rules \"abapa\"]\n\xff\xfe C\n");
    assert_eq!(status, 400, "{body}");
    assert!(head.contains("content-type: application/json"), "{head}");
    assert!(!error_of(&serde_json::from_str(&body).unwrap()).is_empty());
    probe.check("replays");
    alive_under(&mut srv, 64);
}

#[test]
fn rules_that_make_games_unbounded_are_refused_or_capped() {
    let _one = serial();
    let srv = Server::start(&["--max-plies", "500"]);
    let new = |rules: &str, seats: Value| {
        call(
            srv.addr,
            "POST",
            "/api/games",
            Some(json!({"rules": rules, "seats": seats})),
        )
    };
    let people = json!(["human", "human"]);
    let (status, v) = new(
        "abapa:capture=200-200,cycle=ignore,max_plies=4294967295",
        people.clone(),
    );
    assert_eq!(status, 403, "{v}");
    assert!(error_of(&v).contains("--max-plies"), "{v}");
    // A spec without a ply limit is played under the server's, which the game shows.
    let (status, v) = new("abapa", people.clone());
    assert_eq!(status, 201, "{v}");
    assert_eq!(v["rules"], "abapa:max_plies=500", "{v}");
    let (status, v) = new("abapa:capture=200-200,max_plies=300", people.clone());
    assert_eq!(status, 201, "{v}");
    assert_eq!(v["rules"], "abapa:capture=200-200,max_plies=300", "{v}");
    // Relay sowing: at most 200 relays in one move (a move's cost grows with them).
    let (status, v) = new("oware3:relay_cap=65535", json!(["human", "human", "human"]));
    assert_eq!(status, 403, "{v}");
    assert!(error_of(&v).contains("relay_cap"), "{v}");
    // The playout length is no cost of its own: the move's time ends the longest playout (an
    // option's cost class, not its kind, decides its cap).
    let (status, v) = new(
        "abapa:capture=200-200,cycle=ignore,max_plies=500",
        json!([
            "mcts:sims=1,playout_plies=1000000000,move_time_ms=200",
            "human"
        ]),
    );
    assert_eq!(status, 201, "{v}");
    let (took, _) = timed_agent_move(srv.addr, v["id"].as_str().unwrap());
    assert!(took < Duration::from_secs(3), "{took:?}");
    // The limits are listed.
    let (_, v) = call(srv.addr, "GET", "/api/agents", None);
    assert_eq!(v["limits"]["plies"], 500, "{v}");
    // seed: a whole number, written 1 or 1.0 (JSON Schema's integers); 1.5 is refused.
    for (seed, want) in [
        (json!(1.0), 201),
        (json!(7), 201),
        (json!(1.5), 422),
        (json!(-1), 422),
    ] {
        let (status, v) = call(
            srv.addr,
            "POST",
            "/api/games",
            Some(json!({"seats": ["human", "random"], "seed": seed})),
        );
        assert_eq!(status, want, "seed {seed}: {v}");
    }
}

#[test]
fn every_agent_move_ends_within_the_move_time() {
    let _one = serial();
    let tables = tiny_tables("tb");
    let mut srv = Server::start(&[
        "--move-time-ms",
        "1000",
        "--max-thinking",
        "1",
        "--tablebase",
        tables.to_str().unwrap(),
    ]);
    let probe = Probe::start(srv.addr);
    let slow_rules = "abapa:capture=200-200,cycle=ignore,max_plies=2000";
    for (rules, agent) in [
        (slow_rules, "mcts:sims=100000,playout_plies=2000"),
        (
            slow_rules,
            "mcts:expand=child,sims=100000,playout_plies=2000",
        ),
        (slow_rules, "alphabeta:depth=20"),
        ("abapa", "perfect:fallback_depth=20"),
    ] {
        let id = new_game(
            srv.addr,
            [127, 0, 0, 1],
            json!({"rules": rules, "seats": [agent, agent], "seed": 3}),
        );
        let (took, v) = timed_agent_move(srv.addr, &id);
        assert!(
            took <= Duration::from_millis(1100),
            "{agent}: the move took {took:?} against a move time of 1000 ms"
        );
        assert_eq!(v["moves"].as_array().unwrap().len(), 1, "{agent}: {v}");
    }
    probe.check("agents thinking");
    alive_under(&mut srv, 1024);
    std::fs::remove_dir_all(&tables).ok();
}

/// A game whose agent thinks for the whole move time (long playouts), and its move asked on
/// another thread, which returns the move request's status and time.
fn slow_move(addr: SocketAddr) -> (String, std::thread::JoinHandle<(u16, Duration)>) {
    let id = new_game(
        addr,
        [127, 0, 0, 1],
        json!({
            "rules": "abapa:capture=200-200,cycle=ignore,max_plies=2000",
            "seats": ["mcts:sims=100000,playout_plies=2000", "human"],
            "seed": 1
        }),
    );
    let path = format!("/api/games/{id}/agent-move");
    let thinker = std::thread::spawn(move || {
        let t = Instant::now();
        let (status, _) = call(addr, "POST", &path, None);
        (status, t.elapsed())
    });
    (id, thinker)
}

#[test]
fn a_deleted_or_dropped_game_stops_its_thinking_at_once() {
    let _one = serial();
    let srv = Server::start(&[
        "--move-time-ms",
        "5000",
        "--max-thinking",
        "1",
        "--max-client-games",
        "2",
    ]);
    // Deleted.
    let (id, thinker) = slow_move(srv.addr);
    std::thread::sleep(Duration::from_millis(300));
    let (status, _) = call(srv.addr, "DELETE", &format!("/api/games/{id}"), None);
    assert_eq!(status, 204);
    let (status, took) = thinker.join().unwrap();
    assert_eq!(status, 200);
    assert!(
        took < Duration::from_millis(800),
        "the move went on {took:?} after its game was deleted at 300 ms"
    );
    // Dropped: the same client's two newer games push it out (--max-client-games 2).
    let (_, thinker) = slow_move(srv.addr);
    std::thread::sleep(Duration::from_millis(300));
    for _ in 0..2 {
        new_game(
            srv.addr,
            [127, 0, 0, 1],
            json!({"seats": ["human", "alphabeta"]}),
        );
    }
    let (status, took) = thinker.join().unwrap();
    assert_eq!(status, 200);
    assert!(
        took < Duration::from_millis(800),
        "the move went on {took:?} after its game was dropped at 300 ms"
    );
    // The two games left hold their agents' tables (16 MiB each), and nothing else.
    let (_, v) = call(srv.addr, "GET", "/api/agents", None);
    assert_eq!(v["memory_used_mb"]["games"], 32, "{v}");
    // The thinking turn is free again: another game's agent thinks at once.
    let id = new_game(
        srv.addr,
        [127, 0, 0, 2],
        json!({"seats": ["mcts:sims=200", "human"], "seed": 2}),
    );
    let (took, _) = timed_agent_move(srv.addr, &id);
    assert!(took < Duration::from_millis(1000), "{took:?}");
}

#[test]
fn tables_are_shared_across_specs_and_counted() {
    let _one = serial();
    let tables = tiny_tables("tb2");
    // The folder given through a link and with `..`: no answer names it, in either form.
    let link = tables.with_extension("link");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&tables, &link).unwrap();
    let given = link.join("..").join(link.file_name().unwrap());
    let mut srv = Server::start(&["--tablebase", given.to_str().unwrap(), "--memory-mb", "64"]);
    for n in 1..=400 {
        let rules = format!("abapa:max_plies={n}");
        new_game(
            srv.addr,
            [127, 0, 0, 1],
            json!({"rules": rules, "seats": ["human", "perfect"]}),
        );
    }
    let (_, v) = call(srv.addr, "GET", "/api/agents", None);
    // One table for the 400 specs (its memory rounded up to 1 MiB).
    assert_eq!(v["memory_used_mb"]["tables"], 1, "{v}");
    // Rules without tables: refused with a reason that names no folder.
    let (status, v) = call(
        srv.addr,
        "POST",
        "/api/games",
        Some(json!({"rules": "wari", "seats": ["human", "perfect"]})),
    );
    assert_eq!(status, 403, "{v}");
    let text = v.to_string();
    for path in [&tables, &link, &given] {
        assert!(!text.contains(path.to_str().unwrap()), "{text}");
    }
    assert!(!text.contains("awale-serve-"), "{text}");
    alive_under(&mut srv, 64);
    std::fs::remove_file(&link).ok();
    std::fs::remove_dir_all(&tables).ok();
}

#[test]
fn idle_and_slow_connections_are_closed_and_capped() {
    let _one = serial();
    let srv = Server::start(&[
        "--idle-timeout-ms",
        "1000",
        "--max-connections",
        "24",
        "--max-client-connections",
        "8",
    ]);
    let probe = Probe::start(srv.addr);
    // An idle connection, and one that sends a header byte every 200 ms: both closed.
    let t = Instant::now();
    let mut idle = connect_from([127, 0, 0, 1], srv.addr);
    let mut slow = connect_from([127, 0, 0, 1], srv.addr);
    let header = format!(
        "GET /api/presets HTTP/1.1\r\nHost: {}\r\nX-Slow: ",
        srv.addr
    );
    let mut closed_slow = None;
    for b in header.bytes().chain(std::iter::repeat(b'a')).take(40) {
        if slow.write_all(&[b]).is_err() {
            closed_slow = Some(t.elapsed());
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let mut sink = [0u8; 1024];
    let n = idle.read(&mut sink).unwrap_or(0);
    assert_eq!(n, 0, "the idle connection got an answer");
    assert!(t.elapsed() < Duration::from_secs(8), "{:?}", t.elapsed());
    let _ = slow.read(&mut sink);
    let closed_slow = closed_slow.unwrap_or(t.elapsed());
    assert!(
        closed_slow < Duration::from_secs(4),
        "the slow headers ran {closed_slow:?}"
    );
    drop((idle, slow));
    std::thread::sleep(Duration::from_millis(100));
    // One client holds its 8 connections: the 9th gets a 503 with the reason, and another
    // client still gets in.
    let held: Vec<TcpStream> = (0..8)
        .map(|_| connect_from([127, 0, 0, 1], srv.addr))
        .collect();
    std::thread::sleep(Duration::from_millis(100));
    let (status, head, body) = presets_from([127, 0, 0, 1], srv.addr);
    assert_eq!(status, 503, "{body}");
    assert!(head.contains("content-type: application/json"), "{head}");
    assert!(body.contains("--max-client-connections"), "{body}");
    let (status, _) = call_from([127, 0, 0, 2], srv.addr, "GET", "/api/presets", None);
    assert_eq!(status, 200);
    // Many clients together reach the server's cap (24). A newcomer gets in: one of the idle
    // connections of the client holding the most is closed to make room. (The probe stops
    // first: it is a client too.)
    probe.check("connections");
    let more: Vec<TcpStream> = (3..=18)
        .map(|k| connect_from([127, 0, 0, k], srv.addr))
        .collect();
    std::thread::sleep(Duration::from_millis(100));
    let (status, _, body) = presets_from([127, 0, 0, 30], srv.addr);
    assert_eq!(status, 200, "{body}");
    std::thread::sleep(Duration::from_millis(50));
    let closed = held
        .iter()
        .filter(|s| {
            // Without waiting (the idle time, 1 s, closes them all soon).
            s.set_nonblocking(true).unwrap();
            let mut reader: &TcpStream = s;
            matches!(reader.read(&mut [0u8; 64]), Ok(0))
        })
        .count();
    assert_eq!(closed, 1, "the biggest holder's connections closed");
    drop((held, more));
    // When every client holds as few as the newcomer would, nothing is closed for it: 503, not
    // silence.
    std::thread::sleep(Duration::from_millis(200));
    let each: Vec<TcpStream> = (40..64)
        .map(|k| connect_from([127, 0, 0, k], srv.addr))
        .collect();
    std::thread::sleep(Duration::from_millis(100));
    let (status, head, body) = presets_from([127, 0, 0, 30], srv.addr);
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("--max-connections"), "{body}");
    assert!(head.contains("x-content-type-options: nosniff"), "{head}");
    drop(each);
    // Once they are gone (closed, or timed out), everyone gets in again.
    std::thread::sleep(Duration::from_millis(200));
    let (status, _) = call(srv.addr, "GET", "/api/presets", None);
    assert_eq!(status, 200);
}

#[test]
fn one_client_cannot_evict_the_games_of_another() {
    let _one = serial();
    let srv = Server::start(&["--max-games", "20", "--max-client-games", "8"]);
    let new = |from: [u8; 4]| new_game(srv.addr, from, json!({"seats": ["human", "random"]}));
    let theirs: Vec<String> = (0..3).map(|_| new([127, 0, 0, 2])).collect();
    let mine: Vec<String> = (0..257).map(|_| new([127, 0, 0, 1])).collect();
    for id in &theirs {
        let (status, _) = call(srv.addr, "GET", &format!("/api/games/{id}"), None);
        assert_eq!(status, 200, "another client's game was dropped");
    }
    // The flooding client keeps its 8 newest games.
    let kept = mine
        .iter()
        .filter(|id| call(srv.addr, "GET", &format!("/api/games/{id}"), None).0 == 200)
        .count();
    assert_eq!(kept, 8);
    assert_eq!(
        call(srv.addr, "GET", &format!("/api/games/{}", mine[256]), None).0,
        200
    );
}

/// Whether `s` is still held open by the server and unanswered: nothing to read yet, and no
/// close (read without waiting).
fn held_open(s: &TcpStream) -> bool {
    s.set_nonblocking(true).unwrap();
    let mut reader: &TcpStream = s;
    let held =
        matches!(reader.read(&mut [0u8; 64]), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock);
    s.set_nonblocking(false).unwrap();
    held
}

/// The server's open sockets (its listener included), from `/proc/PID/fd`.
fn sockets_of(srv: &Server) -> usize {
    std::fs::read_dir(format!("/proc/{}/fd", srv.child.id()))
        .unwrap()
        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .filter(|l| l.to_string_lossy().starts_with("socket:"))
        .count()
}

#[test]
fn a_connection_closed_to_make_room_is_gone_before_the_newcomer_counts() {
    let _one = serial();
    // The attack: 20 connections that send their headers slowly fill
    // --max-connections 20, then 60 newcomers from other addresses do the same. Each
    // connection closed to make room must be gone at once: the server holds 20 at most.
    let srv = Server::start(&["--max-connections", "20", "--idle-timeout-ms", "20000"]);
    let listening = sockets_of(&srv);
    let slow_header = format!(
        "GET /api/presets HTTP/1.1\r\nHost: {}\r\nX-Slow: a",
        srv.addr
    );
    let open_slowly = |from: [u8; 4]| {
        let mut s = connect_from(from, srv.addr);
        s.write_all(slow_header.as_bytes()).unwrap();
        s
    };
    let mut all: Vec<TcpStream> = (0..20).map(|_| open_slowly([127, 0, 8, 1])).collect();
    std::thread::sleep(Duration::from_millis(200));
    for k in 0..60u8 {
        all.push(open_slowly([127, 0, 9, 1 + k]));
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_millis(500));
    let held = all.iter().filter(|s| held_open(s)).count();
    let served = sockets_of(&srv) - listening;
    eprintln!("{held} connections held open unanswered, {served} sockets on the server's side");
    assert!(
        held <= 20,
        "{held} connections held open at --max-connections 20"
    );
    // From the server's side once the refusals' answers are written (1 s): its listener and
    // the connections it serves, no more.
    std::thread::sleep(Duration::from_millis(1500));
    let served = sockets_of(&srv) - listening;
    eprintln!("{served} sockets on the server's side after 1.5 s");
    assert!(
        served <= 20,
        "{served} sockets open at --max-connections 20"
    );
    // Room was made: some newcomers are among the held ones.
    assert!(
        all[20..].iter().any(held_open),
        "no newcomer got in: nothing was closed to make room"
    );
    drop(all);
}

#[test]
fn engine_seats_are_refused_with_403_and_the_reason() {
    let _one = serial();
    let srv = Server::start(&[]);
    for seat in ["engine", "engine:cmd=/bin/sh"] {
        let (status, v, _) = post_game(srv.addr, json!({"seats": ["human", seat]}));
        assert_eq!(status, 403, "{seat}: {v}");
        assert!(
            error_of(&v).contains("run a program on the server's machine"),
            "{seat}: {v}"
        );
    }
}
