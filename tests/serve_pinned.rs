//! `awale serve`'s answers pinned bit for bit: for every agent kind and the admission's every
//! path (caps, files by name, defaults the server adds, memory), what `POST /api/games` answers,
//! and for the games it creates, their views after a few agent moves. Taken before the agent
//! kinds declared what they cost (issue 62); a change that alters any line alters what clients
//! get, and says so in the CHANGELOG. `AWALE_BLESS=1` rewrites `tests/serve_pinned.txt`.
//! With the trainer only (`nn` is among the kinds): the build CI tests.
#![cfg(feature = "train")]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use serde_json::{json, Value};

mod serve_common;
use serve_common::{tiny_tables, Server};

fn call(addr: SocketAddr, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out).to_string();
    let status = text.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap();
    let body = text.split_once("\r\n\r\n").map_or("", |x| x.1);
    let v = serde_json::from_str(body).unwrap_or_else(|_| json!({ "text": body }));
    (status, v)
}

/// A view as a client reads it, less what differs between two runs (the game's id).
fn stable(mut v: Value) -> Value {
    if let Some(o) = v.as_object_mut() {
        o.remove("id");
    }
    v
}

/// FNV-1a of `text`: a short digest for a long view.
fn digest(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    format!("{h:016x}")
}

/// The server's answer to a new game of `seats`, and for a created game the digest of its
/// view after `moves` agent moves (each agent asked in turn; the first seat is a person when
/// it says `human`).
fn answer(addr: SocketAddr, rules: &str, seats: &[&str], moves: usize) -> String {
    let (status, v) = call(
        addr,
        "POST",
        "/api/games",
        Some(json!({"rules": rules, "seats": seats, "seed": 7})),
    );
    if status != 201 {
        return format!("{status} {}", v["error"].as_str().unwrap_or("?"));
    }
    let id = v["id"].as_str().unwrap().to_string();
    let mut views = vec![stable(v)];
    for _ in 0..moves {
        let last = views.last().unwrap();
        if last["over"].as_bool().unwrap() {
            break;
        }
        let (status, v) = if last["person_to_move"].as_bool().unwrap() {
            let house = last["legal"][0].clone();
            call(
                addr,
                "POST",
                &format!("/api/games/{id}/move"),
                Some(json!({ "house": house })),
            )
        } else {
            call(addr, "POST", &format!("/api/games/{id}/agent-move"), None)
        };
        assert_eq!(status, 200, "{seats:?}: {v}");
        views.push(stable(v));
    }
    let (_, hint) = call(addr, "GET", &format!("/api/games/{id}/hint"), None);
    views.push(stable(hint));
    call(addr, "DELETE", &format!("/api/games/{id}"), None);
    format!("201 {}", digest(&Value::Array(views).to_string()))
}

/// An exported baseline (with its play settings) in `dir`, as `abapa.safetensors`.
fn write_network(dir: &std::path::Path) {
    let core = awale::network::baseline::find("abapa")
        .unwrap()
        .core()
        .unwrap();
    awale::network::export::write_safetensors(&core, &dir.join("abapa.safetensors")).unwrap();
}

#[test]
fn the_servers_answers_are_pinned() {
    let tables = tiny_tables("pinned");
    let networks = std::env::temp_dir().join(format!("awale-pinned-nets-{}", std::process::id()));
    std::fs::create_dir_all(&networks).unwrap();
    std::fs::write(networks.join("junk.ckpt"), b"not a network at all").unwrap();
    let tables_arg = tables.to_str().unwrap().to_string();
    let networks_arg = networks.to_str().unwrap().to_string();
    let configs: Vec<(&str, Vec<&str>)> = vec![
        ("defaults", vec![]),
        (
            "small",
            vec![
                "--move-time-ms",
                "1000",
                "--max-depth",
                "7",
                "--max-sims",
                "200",
                "--max-tt-mb",
                "8",
                "--memory-mb",
                "20",
                "--tablebase",
                &tables_arg,
                "--networks",
                &networks_arg,
            ],
        ),
    ];
    let mut seats: Vec<(&str, Vec<&str>, usize)> = vec![
        ("abapa", vec!["human", "random"], 4),
        ("abapa", vec!["random", "greedy"], 6),
        ("abapa", vec!["human", "alphabeta:depth=2"], 4),
        (
            "abapa",
            vec!["alphabeta:depth=3,tt_mb=1", "mcts:sims=40"],
            4,
        ),
        ("abapa", vec!["human", "alphabeta"], 0),
        ("abapa", vec!["human", "alphabeta:depth=7,eval=material"], 0),
        ("abapa", vec!["human", "alphabeta:depth=8"], 0),
        ("abapa", vec!["human", "alphabeta:depth=x"], 0),
        ("abapa", vec!["human", "alphabeta:dpeth=2"], 0),
        ("abapa", vec!["human", "alphabeta:tt_mb=9"], 0),
        ("abapa", vec!["human", "alphabeta:tt_mb=8"], 0),
        ("abapa", vec!["alphabeta:tt_mb=8", "alphabeta:tt_mb=8"], 0),
        (
            "abapa",
            vec!["alphabeta:tt_mb=8,depth=2", "alphabeta:tt_mb=8,depth=2"],
            0,
        ),
        ("abapa", vec!["alphabeta:tt_mb=16", "random"], 0),
        ("abapa", vec!["human", "alphabeta:tt_mb=0,depth=2"], 2),
        ("abapa", vec!["human", "alphabeta:move_time_ms=0"], 0),
        (
            "abapa",
            vec!["human", "alphabeta:move_time_ms=1000,depth=2"],
            2,
        ),
        ("abapa", vec!["human", "alphabeta:move_time_ms=1001"], 0),
        ("abapa", vec!["human", "alphabeta:move_time_ms=x"], 0),
        ("abapa", vec!["human", "alphabeta:time_ms=1000"], 0),
        ("abapa", vec!["human", "alphabeta:tb=server,depth=2"], 2),
        ("abapa", vec!["human", "alphabeta:tb=/tmp"], 0),
        ("abapa", vec!["human", "mcts"], 0),
        ("abapa", vec!["human", "mcts:sims=200"], 1),
        ("abapa", vec!["human", "mcts:sims=201"], 0),
        ("abapa", vec!["human", "mcts:sims=4000000000"], 0),
        ("abapa", vec!["human", "mcts:sims=0"], 0),
        (
            "oware:players=3",
            vec!["mcts:sims=30", "random", "greedy"],
            6,
        ),
        ("abapa", vec!["human", "perfect"], 1),
        ("abapa", vec!["human", "perfect:fallback_depth=0"], 0),
        ("abapa", vec!["human", "perfect:fallback_depth=8"], 0),
        ("abapa", vec!["human", "perfect:dir=/"], 0),
        ("abapa", vec!["human", "engine:cmd=/bin/sh"], 0),
        ("abapa", vec!["human", "minimax"], 0),
        ("abapa", vec!["human", "nn:path=/etc/passwd"], 0),
        ("abapa", vec!["human", "nn:path=junk.ckpt"], 0),
        ("abapa", vec!["human", "nn:path=missing.ckpt"], 0),
        ("abapa", vec!["human", "random:seed=x"], 0),
        ("abapa", vec!["human", "random:name=Bob,seed=3"], 2),
    ];
    {
        seats.extend([
            ("abapa", vec!["human", "nn:baseline=abapa,sims=8"], 2),
            ("abapa", vec!["human", "nn:baseline=abapa-v1"], 0),
            ("abapa", vec!["human", "nn:baseline=nothing"], 0),
            (
                "abapa",
                vec!["human", "nn:baseline=abapa,sims=8,tb=server"],
                1,
            ),
            ("abapa", vec!["human", "nn:baseline=abapa-v1,sims=201"], 0),
            (
                "abapa",
                vec!["human", "nn:path=abapa.safetensors,sims=8"],
                2,
            ),
            ("abapa", vec!["human", "nn:path=abapa.safetensors"], 0),
            (
                "abapa",
                vec!["human", "nn:path=abapa.safetensors,baseline=abapa"],
                0,
            ),
            ("abapa", vec!["human", "nn:sims=8"], 0),
            ("wari", vec!["human", "nn:baseline=abapa,sims=8"], 0),
        ]);
        write_network(&networks);
    }
    let mut out = String::new();
    for (name, flags) in &configs {
        let srv = Server::start(flags);
        for (rules, seats, moves) in &seats {
            let line = answer(srv.addr, rules, seats, *moves);
            let line = line.replace(&tables_arg, "<tables>");
            out.push_str(&format!("{name} {rules} {} -> {line}\n", seats.join(" | ")));
        }
    }
    std::fs::remove_dir_all(&tables).ok();
    std::fs::remove_dir_all(&networks).ok();
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/serve_pinned.txt");
    if std::env::var_os("AWALE_BLESS").is_some() {
        std::fs::write(&file, &out).unwrap();
        return;
    }
    let pinned = std::fs::read_to_string(&file).unwrap_or_default();
    if pinned != out {
        let diff: Vec<String> = pinned
            .lines()
            .zip(out.lines())
            .filter(|(a, b)| a != b)
            .map(|(a, b)| format!("pinned: {a}\n   now: {b}"))
            .collect();
        panic!(
            "the server's answers moved ({} lines differ, {} pinned, {} now):\n{}",
            diff.len(),
            pinned.lines().count(),
            out.lines().count(),
            diff.join("\n")
        );
    }
}
