//! `awale serve`'s memory whatever clients do: each reproduction of the issue "The server's
//! memory bounded" (search trees kept between moves, replay answers held by slow readers,
//! replay bodies sent but never finished, a FIFO or an oversized table in `--tablebase`,
//! networks rewritten on disk, the framework's own refusals, positions past the ply limit) run
//! against the binary with a probe beside it: the server's memory never over `--memory-mb` +
//! [`RSS_MARGIN_MB`] and every cheap request (`GET /api/presets`) answered within 100 ms
//! throughout.
//!
//! The tests run one at a time (they measure time and memory), each in a few seconds. Linux
//! only: the memory is read from `/proc`.
#![cfg(target_os = "linux")]

use std::io::Write;
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

mod serve_common;
use serve_common::attack::*;
use serve_common::{tiny_tables, Server};

/// The head of an answer is JSON with the security headers.
fn assert_json_with_headers(head: &str, body: &str) {
    assert!(head.contains("content-type: application/json"), "{head}");
    assert!(head.contains("x-content-type-options: nosniff"), "{head}");
    assert!(head.contains("content-security-policy:"), "{head}");
    let v: Value = serde_json::from_str(body).unwrap_or_else(|_| panic!("not JSON: {body:?}"));
    assert!(!error_of(&v).is_empty(), "{v}");
}

#[test]
fn search_trees_count_against_the_memory_budget() {
    let _one = serial();
    let mut srv = Server::start(&[
        "--memory-mb",
        "256",
        "--move-time-ms",
        "1000",
        "--max-thinking",
        "2",
    ]);
    let probe = Probe::watching(&srv);
    // The games: a tree of 100,000 simulations kept after one move (about 27 MiB
    // each with one node a simulation, 54 MiB with two), from 8 addresses; 24 of them would hold
    // over 1 GB.
    let mut ids = Vec::new();
    for k in 0..24u8 {
        let tree = if k % 3 == 2 { "expand=child," } else { "" };
        let spec = format!("mcts:{tree}sims=100000,playout_plies=1");
        let id = new_game(
            srv.addr,
            [127, 0, 1, 1 + k % 8],
            json!({"rules": "abapa", "seats": [spec, "human"], "seed": k}),
        );
        timed_agent_move(srv.addr, &id);
        ids.push(id);
    }
    let (_, v) = call(srv.addr, "GET", "/api/agents", None);
    let held = v["memory_used_mb"]["games"].as_u64().unwrap();
    assert!(held > 0 && held <= 256, "{v}");
    // Each game counts its tree at its whole budget: about 9 of them fit in 256 MiB.
    let alive: Vec<&String> = ids
        .iter()
        .filter(|id| call(srv.addr, "GET", &format!("/api/games/{id}"), None).0 == 200)
        .collect();
    assert!(
        (4..=12).contains(&alive.len()),
        "{} games alive",
        alive.len()
    );
    // Deleting them gives their memory back.
    for id in alive {
        assert_eq!(
            call(srv.addr, "DELETE", &format!("/api/games/{id}"), None).0,
            204
        );
    }
    let (_, v) = call(srv.addr, "GET", "/api/agents", None);
    assert_eq!(v["memory_used_mb"]["games"], 0, "{v}");
    probe.check_floor("search trees", 256);
    alive_under(&mut srv, 256);
}

/// A `games.jsonl` body of `games` games of 2,000 plies each (about 8.6 KB a game).
fn long_replay_body(games: usize) -> String {
    let game = long_record("abapa:capture=200-200,cycle=ignore,max_plies=2000", 2000, 2);
    let line = json!({"record": game, "seats": ["random", "random"]}).to_string();
    vec![line.as_str(); games].join("\n")
}

/// Sends `body` to `/api/replay` from `from` and returns the connection, unread.
fn send_replay(from: [u8; 4], srv: &Server, body: &[u8]) -> TcpStream {
    let mut s = connect_from(from, srv.addr);
    let head = format!(
        "POST /api/replay HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\r\n",
        srv.addr,
        body.len()
    );
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(body).unwrap();
    s
}

#[test]
fn replay_answers_held_by_slow_readers_are_bounded() {
    let _one = serial();
    let mut srv = Server::start(&[
        "--memory-mb",
        "64",
        "--max-thinking",
        "2",
        "--idle-timeout-ms",
        "8000",
    ]);
    let probe = Probe::watching(&srv);
    // The body: 168 games of 2,000 plies (1.45 MB) ask for a 33.5 MB answer, just
    // under its 32 MiB cap; 16 readers that do not read hold their answers (the write timeout
    // fires only without progress; a slow reader makes some).
    let body = long_replay_body(168);
    let mut readers: Vec<TcpStream> = (0..16u8)
        .map(|k| send_replay([127, 0, 2, 1 + k % 2], &srv, body.as_bytes()))
        .collect();
    std::thread::sleep(Duration::from_secs(4));
    let peak = probe.check_floor("replay answers held by readers that do not read", 64);
    let (mut whole, mut busy) = (0, 0);
    for s in &mut readers {
        let (status, head, text) = answer_of(s);
        match status {
            200 => {
                whole += 1;
                let v: Value = serde_json::from_str(&text).expect("the whole answer");
                assert_eq!(v["games"].as_array().unwrap().len(), 168);
            }
            503 => {
                busy += 1;
                assert_json_with_headers(&head, &text);
                assert!(text.contains("replay answers"), "{text}");
            }
            _ => panic!("{status} {text}"),
        }
    }
    // Two whole answers at once at most (64 MiB for all readers), the others asked again later.
    assert!(
        (1..=2).contains(&whole),
        "{whole} whole answers, {busy} refused"
    );
    eprintln!("peak {peak} MiB, {whole} answers, {busy} refused");
    alive_under(&mut srv, 64);
}

#[test]
fn replay_bodies_are_counted_and_follow_the_idle_timeout() {
    let _one = serial();
    let mut srv = Server::start(&["--memory-mb", "64", "--idle-timeout-ms", "1000"]);
    let probe = Probe::watching(&srv);
    // The bodies: 24 connections each sending 16 MiB less its last byte (24 × 16 MiB
    // would be held). Each sender on a thread of its own: a refused one is not read further.
    let body = Arc::new(vec![b' '; (16 << 20) - 1]);
    let senders: Vec<_> = (0..24u8)
        .map(|k| {
            let body = body.clone();
            let addr = srv.addr;
            std::thread::spawn(move || {
                let mut s = connect_from([127, 0, 3, 1 + k % 3], addr);
                let head = format!(
                    "POST /api/replay HTTP/1.1\r\nHost: {addr}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\r\n",
                    16 << 20
                );
                let t = Instant::now();
                let _ = s.write_all(head.as_bytes());
                let _ = s.write_all(&body);
                let (status, head, text) = answer_of(&mut s);
                (status, head, text, t.elapsed())
            })
        })
        .collect();
    let answers: Vec<_> = senders.into_iter().map(|t| t.join().unwrap()).collect();
    let mut stalled = 0;
    for (status, head, text, took) in &answers {
        assert_json_with_headers(head, text);
        match status {
            // Counted and read, then dropped once it paused over the idle time.
            408 => {
                stalled += 1;
                assert!(text.contains("--idle-timeout-ms"), "{text}");
                assert!(*took < Duration::from_secs(5), "{took:?}");
            }
            // Over the bodies' budget: refused before it is read.
            503 => assert!(text.contains("replay bodies"), "{text}"),
            _ => panic!("{status} {text}"),
        }
    }
    assert!((1..=2).contains(&stalled), "{stalled} bodies read");
    probe.check_floor("replay bodies never finished", 64);
    // A chunked body that sends a byte every 1.5 s against an idle time of 1 s, and a body
    // announced with `Expect: 100-continue` that never comes: 408 within the idle time.
    for (head, pause) in [
        (
            "POST /api/games HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{\r\n",
            Some(b"1\r\n \r\n".as_slice()),
        ),
        (
            "POST /api/games HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: 20\r\nExpect: 100-continue\r\n\r\n",
            None,
        ),
    ] {
        let mut s = connect_from([127, 0, 0, 1], srv.addr);
        let t = Instant::now();
        s.write_all(head.replace("{addr}", &srv.addr.to_string()).as_bytes())
            .unwrap();
        if let Some(more) = pause {
            std::thread::sleep(Duration::from_millis(1500));
            let _ = s.write_all(more);
        }
        let (status, head, text) = answer_of(&mut s);
        assert_eq!(status, 408, "{text}");
        assert_json_with_headers(&head, &text);
        assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    }
    alive_under(&mut srv, 64);
}

#[test]
fn a_fifo_or_an_oversized_table_holds_up_nothing() {
    let _one = serial();
    let tables = tiny_tables("fifo");
    // Layer 1 of the abapa table becomes a FIFO with no writer: opening it would wait forever.
    let layer = std::fs::read_dir(&tables)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with("-01.awtb"))
        .expect("layer 1");
    std::fs::remove_file(&layer).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(&layer)
        .status()
        .unwrap();
    assert!(made.success());
    let srv = Server::start(&["--tablebase", tables.to_str().unwrap(), "--memory-mb", "16"]);
    let probe = Probe::watching(&srv);
    for _ in 0..3 {
        let perfect = json!({"rules": "abapa", "seats": ["human", "perfect"]});
        let (status, v, took) = post_game(srv.addr, perfect);
        assert_eq!(status, 403, "{v}");
        assert!(took < Duration::from_millis(500), "{took:?}");
    }
    for rules in ["wari", "abapa"] {
        let (status, v, _) = post_game(
            srv.addr,
            json!({"rules": rules, "seats": ["human", "human"]}),
        );
        assert_eq!(status, 201, "{v}");
    }
    probe.check_floor("a FIFO in --tablebase", 16);
    drop(srv);
    // A table that does not fit --memory-mb is refused from its files' sizes, unread: layers
    // 0 to 16 of 1 GiB each on disk (sparse), under 16 MiB.
    std::fs::remove_file(&layer).unwrap();
    let stem = layer
        .to_string_lossy()
        .trim_end_matches("-01.awtb")
        .to_string();
    for n in 1..=16 {
        let f = std::fs::File::create(format!("{stem}-{n:02}.awtb")).unwrap();
        f.set_len(1 << 30).unwrap();
    }
    let mut srv = Server::start(&["--tablebase", tables.to_str().unwrap(), "--memory-mb", "16"]);
    let probe = Probe::watching(&srv);
    for rules in ["abapa", "abapa:max_plies=300"] {
        let perfect = json!({"rules": rules, "seats": ["human", "perfect"]});
        let (status, v, took) = post_game(srv.addr, perfect);
        assert_eq!(status, 403, "{v}");
        assert!(error_of(&v).contains("--memory-mb"), "{v}");
        assert!(took < Duration::from_millis(500), "{took:?}");
    }
    let (_, v) = call(srv.addr, "GET", "/api/agents", None);
    assert_eq!(v["memory_used_mb"]["tables"], 0, "{v}");
    probe.check_floor("a table over --memory-mb", 16);
    alive_under(&mut srv, 16);
    std::fs::remove_dir_all(&tables).ok();
}

#[test]
fn clients_filling_the_connections_do_not_shut_others_out() {
    let _one = serial();
    let mut srv = Server::start(&["--idle-timeout-ms", "8000"]);
    // The flood: 8 addresses each holding its 32 connections, the server's 256 in all.
    let flood: Vec<TcpStream> = (0..256)
        .map(|k| connect_from([127, 0, 4, 1 + (k % 8) as u8], srv.addr))
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    // Another client gets in, each time: an idle connection of the flood makes room.
    let probe = Probe::watching(&srv);
    std::thread::sleep(Duration::from_millis(500));
    probe.check_floor("256 connections held by 8 addresses", 1024);
    let (status, v) = call_from([127, 0, 0, 1], srv.addr, "GET", "/api/presets", None);
    assert_eq!(status, 200, "{v}");
    drop(flood);
    alive_under(&mut srv, 1024);
}

#[test]
fn the_frameworks_refusals_are_json_with_the_security_headers() {
    let _one = serial();
    let srv = Server::start(&[]);
    let addr = srv.addr;
    let send = |raw: &[u8]| {
        let mut s = connect_from([127, 0, 0, 1], addr);
        let _ = s.write_all(raw);
        answer_of(&mut s)
    };
    let many: String = (0..1000).map(|k| format!("X-H{k}: a\r\n")).collect();
    let big = format!("X-Big: {}\r\n", "a".repeat(1 << 20));
    let long_path = format!("/{}", "a".repeat(300_000));
    for (what, raw, want) in [
        (
            "1,000 headers",
            format!("GET /api/presets HTTP/1.1\r\nHost: {addr}\r\n{many}\r\n"),
            &[431][..],
        ),
        (
            "a 1 MiB header",
            format!("GET /api/presets HTTP/1.1\r\nHost: {addr}\r\n{big}\r\n"),
            &[431],
        ),
        (
            "a 300 k path",
            format!("GET {long_path} HTTP/1.1\r\nHost: {addr}\r\n\r\n"),
            &[414, 431],
        ),
        (
            "two Content-Lengths",
            format!("POST /api/games HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{{}}"),
            &[400],
        ),
        (
            "no HTTP at all",
            "\x16\x03\x01 hello\r\n\r\n".to_string(),
            &[400],
        ),
    ] {
        let (status, head, body) = send(raw.as_bytes());
        assert!(want.contains(&status), "{what}: {status} {head}");
        assert_json_with_headers(&head, &body);
    }
}

#[test]
fn positions_and_replays_under_the_caps_of_games() {
    let _one = serial();
    let srv = Server::start(&[]);
    let new = |position: &str| {
        let (status, v, _) = post_game(
            srv.addr,
            json!({"position": position, "seats": ["human", "human"]}),
        );
        (status, v)
    };
    let board = "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0,0 0";
    for (ply, want) in [
        ("4294967295", 400),
        ("2000", 400),
        ("5000", 400),
        ("1999", 201),
    ] {
        let (status, v) = new(&format!("{board} {ply}"));
        assert_eq!(status, want, "ply {ply}: {v}");
    }
    // A record under rules a game of this server may not have: refused as game creation is.
    let rules: awale::Rules = "oware2:relay_cap=255".parse().unwrap();
    let mut game = awale::Game::new(rules);
    game.apply(game.legal_moves()[0]).unwrap();
    let record = awale::notation::GameRecord::from_game(&game).to_string();
    let (status, _, body) = replay(srv.addr, record.as_bytes());
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("relay_cap"), "{body}");
}

#[cfg(feature = "train")]
#[test]
fn a_networks_memory_and_tree_are_counted() {
    let _one = serial();
    let srv = Server::start(&["--max-sims", "200000"]);
    let id = new_game(
        srv.addr,
        [127, 0, 0, 1],
        json!({"seats": ["nn:baseline=abapa,sims=100000", "human"]}),
    );
    let (_, v) = call(srv.addr, "GET", "/api/agents", None);
    let held = v["memory_used_mb"]["games"].as_u64().unwrap();
    let settings = awale::search::SearchSettings::default();
    // The shipped abapa network keeps its tree from move to move: twice a fresh tree counted.
    let tree = awale::search::Search::kept_tree_bytes(&settings, 100_000) >> 20;
    assert!(
        held > tree,
        "{held} MiB held, a kept tree of {tree} MiB: {v}"
    );
    assert_eq!(
        call(srv.addr, "DELETE", &format!("/api/games/{id}"), None).0,
        204
    );
}

#[test]
fn headers_over_64_kib_get_431() {
    let _one = serial();
    let srv = Server::start(&[]);
    // The header: 100,000 bytes, one header, well under hyper's read buffer.
    for size in [70_000, 100_000] {
        let mut s = connect_from([127, 0, 0, 1], srv.addr);
        let raw = format!(
            "GET /api/presets HTTP/1.1\r\nHost: {}\r\nX-Big: {}\r\nConnection: close\r\n\r\n",
            srv.addr,
            "a".repeat(size)
        );
        let _ = s.write_all(raw.as_bytes());
        let (status, head, body) = answer_of(&mut s);
        assert_eq!(status, 431, "a {size}-byte header: {head}");
        assert_json_with_headers(&head, &body);
    }
    // Just under the limit is served.
    let mut s = connect_from([127, 0, 0, 1], srv.addr);
    let raw = format!(
        "GET /api/presets HTTP/1.1\r\nHost: {}\r\nX-Big: {}\r\nConnection: close\r\n\r\n",
        srv.addr,
        "a".repeat(60_000)
    );
    s.write_all(raw.as_bytes()).unwrap();
    assert_eq!(answer_of(&mut s).0, 200);
}

#[test]
fn a_request_then_a_half_close_is_answered() {
    let _one = serial();
    let srv = Server::start(&[]);
    let mut s = connect_from([127, 0, 0, 1], srv.addr);
    let raw = format!("GET /api/presets HTTP/1.1\r\nHost: {}\r\n\r\n", srv.addr);
    s.write_all(raw.as_bytes()).unwrap();
    s.shutdown(std::net::Shutdown::Write).unwrap();
    let (status, head, body) = answer_of(&mut s);
    assert_eq!(status, 200, "{head}");
    assert!(body.contains("abapa"), "{body}");
}

#[test]
fn http2_with_prior_knowledge_gets_goaway_http_1_1_required() {
    let _one = serial();
    let srv = Server::start(&[]);
    let mut s = connect_from([127, 0, 0, 1], srv.addr);
    // The HTTP/2 preface, then the client's (empty) SETTINGS frame, then no more.
    s.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n").unwrap();
    s.write_all(&[0, 0, 0, 4, 0, 0, 0, 0, 0]).unwrap();
    s.shutdown(std::net::Shutdown::Write).unwrap();
    let mut out = Vec::new();
    let _ = std::io::Read::read_to_end(&mut s, &mut out);
    // The server's SETTINGS frame (empty), then GOAWAY on stream 0: last stream 0, error
    // HTTP_1_1_REQUIRED (0xd), with a reason.
    assert!(out.len() >= 26, "{out:?}");
    assert_eq!(&out[..9], &[0, 0, 0, 4, 0, 0, 0, 0, 0], "{out:?}");
    let goaway = &out[9..];
    let len = u32::from_be_bytes([0, goaway[0], goaway[1], goaway[2]]) as usize;
    assert_eq!(goaway[3], 7, "a GOAWAY frame: {out:?}");
    assert_eq!(&goaway[5..9], &[0, 0, 0, 0], "on stream 0");
    assert_eq!(&goaway[9..13], &[0, 0, 0, 0], "last stream 0");
    assert_eq!(&goaway[13..17], &[0, 0, 0, 0xd], "HTTP_1_1_REQUIRED");
    assert_eq!(goaway.len(), 9 + len, "{out:?}");
    let reason = String::from_utf8_lossy(&goaway[17..]);
    assert!(reason.contains("HTTP/1.1"), "{reason}");
}

#[test]
fn one_client_holds_at_most_its_share_of_the_replay_answers() {
    let _one = serial();
    let mut srv = Server::start(&[
        "--memory-mb",
        "64",
        "--max-thinking",
        "2",
        "--idle-timeout-ms",
        "8000",
    ]);
    // The attack: two readers from one address that do not read, each asking for an
    // answer near the 32 MiB cap, hold the whole budget (64 MiB); every other client's replay
    // was then a 503 for the idle time.
    let body = long_replay_body(168);
    let mut first = send_replay([127, 0, 10, 1], &srv, body.as_bytes());
    let mut status_line = [0u8; 12];
    std::io::Read::read_exact(&mut first, &mut status_line).unwrap();
    assert_eq!(&status_line, b"HTTP/1.1 200", "the first reader's answer");
    let mut second = send_replay([127, 0, 10, 1], &srv, body.as_bytes());
    let (status, head, text) = answer_of(&mut second);
    assert_eq!(status, 503, "a second whole answer for one client: {head}");
    assert_json_with_headers(&head, &text);
    assert!(text.contains("this client"), "{text}");
    // Another client's replay, of the same size, is served while the first reader holds its
    // answer.
    let (status, _, text) = request_from(
        [127, 0, 10, 2],
        srv.addr,
        "POST",
        "/api/replay",
        "text/plain",
        body.as_bytes(),
    );
    assert_eq!(status, 200, "{}", &text[..text.len().min(300)]);
    drop(first);
    alive_under(&mut srv, 64);
}
