//! `awale serve`: the JSON API through real HTTP requests to the binary (`--port 0`), every
//! route, bad input, concurrent games, an agent slower than the time limit, and replays.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

mod serve_common;
use serve_common::{read_answer, tiny_tables, Server};

/// One HTTP/1.1 request (`Connection: close`); the status and the body.
fn raw(addr: SocketAddr, method: &str, path: &str, ctype: &str, body: &[u8]) -> (u16, String) {
    let host = addr.to_string();
    raw_with(
        addr,
        method,
        path,
        &[("Host", &host), ("Content-Type", ctype)],
        body,
    )
}

/// One HTTP/1.1 request with the given headers (`Host` included); the status and the body.
fn raw_with(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut head = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    s.write_all(head.as_bytes()).unwrap();
    // A server may answer (413) before it has read the whole body and close: ignore that.
    let _ = s.write_all(body);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out).to_string();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no status in {text:?}"));
    let body = text.split_once("\r\n\r\n").map_or("", |x| x.1).to_string();
    (status, body)
}

/// One GET; the status, the head (header names in lower case) and the body.
fn raw_head(addr: SocketAddr, method: &str, path: &str) -> (u16, String, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    read_answer(&mut s)
}

fn call(srv: &Server, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let bytes = body.map(|b| b.to_string()).unwrap_or_default();
    let (status, text) = raw(srv.addr, method, path, "application/json", bytes.as_bytes());
    let v = if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap_or_else(|_| json!({ "text": text }))
    };
    (status, v)
}

fn error_of(v: &Value) -> &str {
    v["error"]
        .as_str()
        .unwrap_or_else(|| panic!("no error in {v}"))
}

fn new_game(srv: &Server, body: Value) -> (String, Value) {
    let (status, v) = call(srv, "POST", "/api/games", Some(body));
    assert_eq!(status, 201, "{v}");
    (v["id"].as_str().unwrap().to_string(), v)
}

/// Plays `id` to the end: the person plays their first legal house, agents move through
/// `agent-move` (waiting while they think). Returns the final view.
fn play_out(srv: &Server, id: &str) -> Value {
    let mut v = call(srv, "GET", &format!("/api/games/{id}"), None).1;
    for _ in 0..1000 {
        if v["over"].as_bool().unwrap() {
            return v;
        }
        let (status, next) = if v["person_to_move"].as_bool().unwrap() {
            let house = v["legal"][0].clone();
            call(
                srv,
                "POST",
                &format!("/api/games/{id}/move"),
                Some(json!({ "house": house })),
            )
        } else {
            call(srv, "POST", &format!("/api/games/{id}/agent-move"), None)
        };
        assert!(status == 200 || status == 202, "{status} {next}");
        v = next;
        while v["thinking"].as_bool().unwrap() {
            std::thread::sleep(Duration::from_millis(50));
            v = call(srv, "GET", &format!("/api/games/{id}"), None).1;
        }
    }
    panic!("game {id} did not end: {v}");
}

#[test]
fn the_page_presets_and_agents_are_served() {
    let srv = Server::start(&[]);
    let (status, page) = raw(srv.addr, "GET", "/", "text/plain", b"");
    assert_eq!(status, 200);
    assert!(page.contains("<svg id=\"board\""), "{page}");
    for external in [
        "src=\"http",
        "href=\"http",
        "url(http",
        "@import",
        "src=\"//",
    ] {
        assert!(
            !page.contains(external),
            "no external resources: {external}"
        );
    }
    // No inline code (the Content-Security-Policy allows none): the script and the style
    // come from this server.
    for inline in [
        "<script>",
        "<style",
        " style=",
        " onclick=",
        " onload=",
        "javascript:",
    ] {
        assert!(!page.contains(inline), "inline code: {inline}");
    }
    assert!(page.contains("<script src=\"/page.js\">"), "{page}");
    assert!(page.contains("href=\"/page.css\""), "{page}");
    for (path, ctype, needle) in [
        ("/page.js", "text/javascript", "function "),
        ("/page.css", "text/css", "body {"),
    ] {
        let (status, head, body) = raw_head(srv.addr, "GET", path);
        assert_eq!(status, 200, "{path}");
        assert!(
            head.contains(&format!("content-type: {ctype}")),
            "{path}: {head}"
        );
        assert!(body.contains(needle), "{path}");
    }
    // Security headers on the page and on every answer, errors included.
    for path in ["/", "/api/presets", "/api/nothing"] {
        let (_, head, _) = raw_head(srv.addr, "GET", path);
        for h in [
            "content-security-policy: default-src 'none'; script-src 'self'; style-src 'self';",
            "frame-ancestors 'none'",
            "x-frame-options: DENY",
            "x-content-type-options: nosniff",
            "referrer-policy: no-referrer",
        ] {
            assert!(head.contains(h), "{path}: no {h} in {head}");
        }
    }
    let (status, v) = call(&srv, "GET", "/api/presets", None);
    assert_eq!(status, 200);
    let names: Vec<&str> = v["presets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"abapa") && names.contains(&"oware6"),
        "{names:?}"
    );
    let (status, v) = call(&srv, "GET", "/api/agents", None);
    assert_eq!(status, 200);
    let kinds: Vec<&str> = v["kinds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["kind"].as_str().unwrap())
        .collect();
    for k in ["random", "greedy", "alphabeta", "mcts", "perfect"] {
        assert!(kinds.contains(&k), "{kinds:?}");
    }
}

#[test]
fn a_person_plays_alphabeta_to_the_end_with_undo_and_hint() {
    let srv = Server::start(&[]);
    let (id, v) = new_game(
        &srv,
        json!({"rules": "abapa", "seats": ["human", "alphabeta:depth=2"], "seed": 3}),
    );
    assert_eq!(v["pits"], json!([4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4]));
    assert_eq!(v["legal"], json!([0, 1, 2, 3, 4, 5]));
    assert!(v["person_to_move"].as_bool().unwrap());
    // A successful answer carries no `error` key (error answers alone have one).
    assert!(v.get("error").is_none(), "{v}");
    // Undo before any move is refused; a move in notation; the agent answers with thoughts.
    let (status, e) = call(&srv, "POST", &format!("/api/games/{id}/undo"), None);
    assert_eq!(status, 409, "{e}");
    let (status, v) = call(
        &srv,
        "POST",
        &format!("/api/games/{id}/move"),
        Some(json!({"house": "C"})),
    );
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["pits"], json!([4, 4, 0, 5, 5, 5, 5, 4, 4, 4, 4, 4]));
    assert_eq!(v["last"]["label"], "C");
    let (status, v) = call(&srv, "POST", &format!("/api/games/{id}/agent-move"), None);
    assert_eq!(status, 200, "{v}");
    let t = &v["last"]["thoughts"];
    assert_eq!(t["depth"], 2, "{v}");
    assert!(
        t["summary"]
            .as_str()
            .unwrap()
            .starts_with("alpha-beta depth 2"),
        "{t}"
    );
    assert_eq!(v["moves"].as_array().unwrap().len(), 2);
    assert!(v.get("error").is_none(), "{v}");
    // The hint: alpha-beta depth 8's move, legal.
    let (status, h) = call(&srv, "GET", &format!("/api/games/{id}/hint"), None);
    assert_eq!(status, 200, "{h}");
    assert!(v["legal"].as_array().unwrap().contains(&h["house"]), "{h}");
    assert_eq!(h["thoughts"]["depth"], 8);
    // Undo takes back the agent's reply and the person's move.
    let (status, v) = call(&srv, "POST", &format!("/api/games/{id}/undo"), None);
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["moves"], json!([]));
    let end = play_out(&srv, &id);
    assert!(end["over"].as_bool().unwrap());
    let stores: u64 = end["stores"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_u64().unwrap())
        .sum();
    let board: u64 = end["pits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_u64().unwrap())
        .sum();
    assert_eq!(stores + board, 48, "{end}");
    assert!(end["legal"].as_array().unwrap().is_empty());
    // Nothing moves in a finished game.
    let (status, e) = call(
        &srv,
        "POST",
        &format!("/api/games/{id}/move"),
        Some(json!({"house": 0})),
    );
    assert_eq!(status, 409, "{e}");
    assert!(error_of(&e).contains("over"), "{e}");
    let (status, _) = call(&srv, "POST", &format!("/api/games/{id}/agent-move"), None);
    assert_eq!(status, 409);
    let (status, _) = call(&srv, "DELETE", &format!("/api/games/{id}"), None);
    assert_eq!(status, 204);
    let (status, _) = call(&srv, "GET", &format!("/api/games/{id}"), None);
    assert_eq!(status, 404);
}

#[test]
fn bad_input_gets_a_4xx_with_the_reason_and_the_server_stays_up() {
    let srv = Server::start(&[]);
    let cases: Vec<(Value, u16, &str)> = vec![
        (
            json!({"rules": "nope", "seats": ["human", "random"]}),
            400,
            "unknown rules preset",
        ),
        (
            json!({"rules": "abapa", "seats": ["human"]}),
            400,
            "1 entries for a 2-player game",
        ),
        (
            json!({"rules": "abapa", "seats": ["human", "wizard"]}),
            400,
            "seat 1",
        ),
        (
            json!({"rules": "abapa", "seats": ["human", "alphabeta:depth=x"]}),
            400,
            "seat 1",
        ),
        (
            json!({"rules": "oware:players=3", "seats": ["human", "random", "alphabeta:depth=2"]}),
            400,
            "2-player games",
        ),
        (
            json!({"rules": "oware:players=3", "seats": ["human", "random", "mcts:sims=10"]}),
            201,
            "",
        ),
        (
            json!({"position": "abapa 4,4/4", "seats": ["human", "random"]}),
            400,
            "position",
        ),
        (
            json!({"rules": "abapa", "seats": ["human", "random"], "colour": 1}),
            422,
            "unknown field",
        ),
        (
            json!({"rules": 5, "seats": ["human", "random"]}),
            422,
            "invalid type",
        ),
    ];
    for (body, want, reason) in cases {
        let (status, v) = call(&srv, "POST", "/api/games", Some(body.clone()));
        assert_eq!(status, want, "{body} -> {v}");
        if want >= 400 {
            assert!(error_of(&v).contains(reason), "{body} -> {v}");
        }
    }
    let (id, _) = new_game(
        &srv,
        json!({"rules": "abapa", "seats": ["human", "random"], "seed": 1}),
    );
    let mv = format!("/api/games/{id}/move");
    for (body, want, reason) in [
        (json!({"house": 6}), 400, "out of range"),
        (json!({"house": -1}), 400, "out of range"),
        (json!({"house": "z"}), 400, ""),
        (json!({"house": [1]}), 400, "must be a number"),
        (json!({}), 422, "missing field"),
    ] {
        let (status, v) = call(&srv, "POST", &mv, Some(body.clone()));
        assert_eq!(status, want, "{body} -> {v}");
        assert!(error_of(&v).contains(reason), "{body} -> {v}");
    }
    // Malformed JSON, the wrong content type, a huge body.
    let (status, text) = raw(srv.addr, "POST", &mv, "application/json", b"{\"house\": ");
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("bad JSON body"), "{text}");
    let (status, text) = raw(srv.addr, "POST", &mv, "text/plain", b"{\"house\": 1}");
    assert_eq!(status, 415, "{text}");
    let huge = vec![b' '; 1 << 20];
    let (status, _) = raw(srv.addr, "POST", &mv, "application/json", &huge);
    assert_eq!(status, 413);
    // The agent's turn is not the person's, and the other way round.
    let (status, v) = call(&srv, "POST", &format!("/api/games/{id}/agent-move"), None);
    assert_eq!(status, 409, "{v}");
    let (status, v) = call(&srv, "POST", &mv, Some(json!({"house": 0})));
    assert_eq!(status, 200, "{v}");
    let (status, v) = call(&srv, "POST", &mv, Some(json!({"house": 0})));
    assert_eq!(status, 409, "{v}");
    assert!(error_of(&v).contains("agent-move"), "{v}");
    // An illegal move: South's house A is empty.
    let (id2, _) = new_game(
        &srv,
        json!({"position": "abapa 0,5,4,4,4,4/4,4,4,4,4,4 3,0 0", "seats": ["human", "random"]}),
    );
    let (status, v) = call(
        &srv,
        "POST",
        &format!("/api/games/{id2}/move"),
        Some(json!({"house": 0})),
    );
    assert_eq!(status, 422, "{v}");
    assert!(error_of(&v).contains("legal:"), "{v}");
    // The move named as the page names moves, not as a 0-based house.
    assert!(error_of(&v).starts_with("A is not possible: "), "{v}");
    // Unknown games, ids and routes; a wrong method: each with its reason.
    assert_eq!(call(&srv, "GET", "/api/games/999999", None).0, 404);
    assert_eq!(call(&srv, "GET", "/api/games/abc", None).0, 404);
    assert_eq!(call(&srv, "GET", "/api/nothing", None).0, 404);
    for (method, path) in [("DELETE", "/api/presets"), ("PUT", "/api/games")] {
        let (status, v) = call(&srv, method, path, None);
        assert_eq!(status, 405, "{method} {path}");
        assert!(error_of(&v).contains("method"), "{v}");
    }
    // Still serving.
    assert_eq!(call(&srv, "GET", "/api/presets", None).0, 200);
}

#[test]
fn concurrent_games_are_independent() {
    let srv = Server::start(&[]);
    let finals: Vec<Value> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..6)
            .map(|k| {
                let srv = &srv;
                scope.spawn(move || {
                    let seats = if k % 2 == 0 {
                        json!(["greedy", "random"])
                    } else {
                        json!(["random", "mcts:sims=50", "greedy"])
                    };
                    let rules = if k % 2 == 0 {
                        "abapa"
                    } else {
                        "oware:players=3"
                    };
                    let (id, _) = new_game(srv, json!({"rules": rules, "seats": seats, "seed": k}));
                    play_out(srv, &id)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (k, v) in finals.iter().enumerate() {
        assert!(v["over"].as_bool().unwrap(), "{v}");
        assert_eq!(v["players"], if k % 2 == 0 { 2 } else { 3 });
    }
    // The same seeds give the same games.
    let (id, _) = new_game(
        &srv,
        json!({"rules": "abapa", "seats": ["greedy", "random"], "seed": 0}),
    );
    assert_eq!(play_out(&srv, &id)["moves"], finals[0]["moves"]);
}

/// A folder with the endgame tables of abapa up to 2 seeds (built in milliseconds).

#[test]
fn a_slow_agent_does_not_block_the_server() {
    // `perfect` outside its tables falls back on alpha-beta: at depth 30 from the start it
    // thinks for the whole move time (the server gives it `move_time_ms`), while other requests are
    // served; asking again while it thinks answers 202 at once, undo 409.
    let tables = tiny_tables("slow");
    let srv = Server::start(&[
        "--move-time-ms",
        "1500",
        "--max-depth",
        "30",
        "--tablebase",
        tables.to_str().unwrap(),
    ]);
    let (id, _) = new_game(
        &srv,
        json!({"rules": "abapa", "seats": ["perfect:fallback_depth=30", "random"], "seed": 1}),
    );
    let addr = srv.addr;
    let path = format!("/api/games/{id}/agent-move");
    let t0 = Instant::now();
    let thinker = std::thread::spawn(move || raw(addr, "POST", &path, "application/json", b"").0);
    std::thread::sleep(Duration::from_millis(300));
    let t1 = Instant::now();
    assert_eq!(call(&srv, "GET", "/api/presets", None).0, 200);
    assert!(
        t1.elapsed() < Duration::from_secs(1),
        "another request waited"
    );
    let (status, v) = call(&srv, "GET", &format!("/api/games/{id}"), None);
    assert_eq!(status, 200);
    assert!(v["thinking"].as_bool().unwrap(), "{v}");
    let (status, v) = call(&srv, "POST", &format!("/api/games/{id}/agent-move"), None);
    assert_eq!(status, 202, "asking again while it thinks: {v}");
    let (status, v) = call(&srv, "POST", &format!("/api/games/{id}/undo"), None);
    assert_eq!(status, 409, "{v}");
    // The move ends at the move time: the search is cut and plays its best so far.
    assert_eq!(thinker.join().unwrap(), 200);
    let took = t0.elapsed();
    assert!(took < Duration::from_millis(2500), "{took:?}");
    let (_, v) = call(&srv, "GET", &format!("/api/games/{id}"), None);
    assert_eq!(v["moves"].as_array().unwrap().len(), 1, "{v}");
    std::fs::remove_dir_all(&tables).ok();
}

#[test]
fn clients_cannot_choose_the_servers_resources() {
    let tables = tiny_tables("limits");
    let srv = Server::start(&[
        "--move-time-ms",
        "1000",
        "--max-thinking",
        "1",
        "--memory-mb",
        "40",
        "--tablebase",
        tables.to_str().unwrap(),
        "--max-depth",
        "30",
    ]);
    let seats = |agent: &str| json!({"rules": "abapa", "seats": ["human", agent]});
    // Every costly option over its cap: 403 with the option and the flag that raises it.
    for (agent, reason) in [
        ("alphabeta:move_time_ms=0", "move_time_ms=0"),
        ("alphabeta:move_time_ms=60000", "--move-time-ms"),
        ("mcts:move_time_ms=0", "move_time_ms=0"),
        ("alphabeta:depth=31", "--max-depth"),
        ("perfect:fallback_depth=64", "--max-depth"),
        ("mcts:sims=4000000000", "--max-sims"),
        ("alphabeta:tt_mb=4096", "--max-tt-mb"),
        ("alphabeta:tt_mb=64", "--memory-mb"),
    ] {
        let (status, v) = call(&srv, "POST", "/api/games", Some(seats(agent)));
        assert_eq!(status, 403, "{agent} -> {v}");
        assert!(error_of(&v).contains(reason), "{agent} -> {v}");
    }
    // Files: only by name in the operator's folders, and errors say nothing of the others.
    for (agent, reason) in [
        ("nn:path=/etc/passwd", "no networks"),
        ("alphabeta:tb=/etc", "cannot name folders"),
        ("perfect:dir=/", "cannot name folders"),
        ("alphabeta:tb=server,depth=2", ""),
    ] {
        let (status, v) = call(&srv, "POST", "/api/games", Some(seats(agent)));
        if reason.is_empty() {
            assert_eq!(status, 201, "{agent} -> {v}");
        } else {
            assert_eq!(status, 403, "{agent} -> {v}");
            assert!(error_of(&v).contains(reason), "{agent} -> {v}");
            assert!(!error_of(&v).contains("exist"), "{agent} -> {v}");
        }
    }
    // Memory: two seats of 32 MiB do not fit in 40; a second game of 32 MiB drops the first.
    let (status, v) = call(
        &srv,
        "POST",
        "/api/games",
        Some(json!({"rules": "abapa", "seats": ["alphabeta:tt_mb=32", "alphabeta:tt_mb=32"]})),
    );
    assert_eq!(status, 403, "{v}");
    assert!(error_of(&v).contains("--memory-mb"), "{v}");
    let (first, _) = new_game(&srv, seats("alphabeta:tt_mb=32,depth=2"));
    assert_eq!(
        call(&srv, "GET", &format!("/api/games/{first}"), None).0,
        200
    );
    let (cheap, _) = new_game(&srv, seats("random"));
    let (second, _) = new_game(&srv, seats("alphabeta:tt_mb=32,depth=2"));
    assert_eq!(
        call(&srv, "GET", &format!("/api/games/{first}"), None).0,
        404
    );
    // A game that holds no memory is not dropped to make room, however old.
    assert_eq!(
        call(&srv, "GET", &format!("/api/games/{cheap}"), None).0,
        200
    );
    assert_eq!(
        call(&srv, "GET", &format!("/api/games/{second}"), None).0,
        200
    );
    // Ids: 128 random bits, no sequence to guess.
    assert_eq!(first.len(), 32, "{first}");
    assert!(first.chars().all(|c| c.is_ascii_hexdigit()));
    assert_ne!(first, second);
    // Thinking: with --max-thinking 1, agents queue for the one turn; one that waits longer
    // than the move time gets 503. Two slow moves hold the turn for two move times.
    let slow: Vec<String> = (0..2)
        .map(|k| {
            new_game(
                &srv,
                json!({"rules": "abapa", "seats": ["perfect:fallback_depth=30", "human"], "seed": k}),
            )
            .0
        })
        .collect();
    let thinkers: Vec<_> = slow
        .iter()
        .map(|id| {
            let (addr, path) = (srv.addr, format!("/api/games/{id}/agent-move"));
            let t = std::thread::spawn(move || raw(addr, "POST", &path, "application/json", b"").0);
            std::thread::sleep(Duration::from_millis(100));
            t
        })
        .collect();
    // (An agent with no table: a third game holding 16 MiB would push the first slow one
    // out of --memory-mb 40, which stops its thinking and frees the turn.)
    let (other, _) = new_game(
        &srv,
        json!({"rules": "abapa", "seats": ["mcts:sims=50", "human"]}),
    );
    let (status, v) = call(
        &srv,
        "POST",
        &format!("/api/games/{other}/agent-move"),
        None,
    );
    assert_eq!(status, 503, "{v}");
    assert!(error_of(&v).contains("--max-thinking"), "{v}");
    // Instant agents (random, greedy) take no permit: they never wait behind costly ones.
    let (instant, _) = new_game(
        &srv,
        json!({"rules": "abapa", "seats": ["random", "human"]}),
    );
    let (status, v) = call(
        &srv,
        "POST",
        &format!("/api/games/{instant}/agent-move"),
        None,
    );
    assert_eq!(status, 200, "{v}");
    for t in thinkers {
        assert_eq!(t.join().unwrap(), 200);
    }
    // The limits are public.
    let (_, v) = call(&srv, "GET", "/api/agents", None);
    assert_eq!(v["limits"]["thinking"], 1, "{v}");
    assert_eq!(v["limits"]["move_time_ms"], 1000, "{v}");
    assert_eq!(v["tablebase"], true, "{v}");
    std::fs::remove_dir_all(&tables).ok();
}

#[test]
fn networks_only_by_name_from_the_operators_folder() {
    let dir = std::env::temp_dir().join(format!("awale-serve-nets-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A checkpoint's first bytes and then nonsense: listed (it looks like a network) and
    // refused when loaded; the run folder's other files are not networks.
    std::fs::write(dir.join("broken.ckpt"), b"AWALECKP but not a checkpoint").unwrap();
    std::fs::write(dir.join("config.toml"), b"[search]\n").unwrap();
    std::fs::write(dir.join("metrics.jsonl"), b"{}\n").unwrap();
    let srv = Server::start(&["--networks", dir.to_str().unwrap()]);
    let (_, v) = call(&srv, "GET", "/api/agents", None);
    assert_eq!(v["networks"], json!(["broken.ckpt"]), "{v}");
    let seats = |agent: &str| json!({"rules": "abapa", "seats": ["human", agent]});
    for (agent, status, reason) in [
        ("nn:path=../broken.ckpt", 403, "not a network name"),
        ("nn:path=/etc/passwd", 403, "not a network name"),
        (
            "nn:path=missing.ckpt",
            400,
            "no network named 'missing.ckpt'",
        ),
        ("nn:path=config.toml", 400, "no network named 'config.toml'"),
        ("nn:path=broken.ckpt", 400, "seat 1"),
    ] {
        // The policy's checks come first; then a build without the `train` feature has no
        // `nn` kind, and one with it cannot read the file: 400 either way.
        let (got, v) = call(&srv, "POST", "/api/games", Some(seats(agent)));
        assert_eq!(got, status, "{agent} -> {v}");
        assert!(error_of(&v).contains(reason), "{agent} -> {v}");
        assert!(
            !error_of(&v).contains(dir.to_str().unwrap()),
            "{agent}: the reply names the server's folder: {v}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn host_origin_and_token_are_checked() {
    let srv = Server::start(&[]);
    let host = srv.addr.to_string();
    let get = |headers: &[(&str, &str)]| raw_with(srv.addr, "GET", "/api/presets", headers, b"").0;
    assert_eq!(get(&[("Host", &host)]), 200);
    assert_eq!(
        get(&[("Host", &format!("localhost:{}", srv.addr.port()))]),
        200
    );
    // DNS rebinding: a page of evil.example whose name now points here.
    let (status, text) = raw_with(srv.addr, "GET", "/", &[("Host", "evil.example")], b"");
    assert_eq!(status, 403, "{text}");
    assert!(text.contains("--allow-host"), "{text}");
    // Another site's page calling the API.
    let evil = [("Host", host.as_str()), ("Origin", "http://evil.example")];
    let (status, text) = raw_with(srv.addr, "POST", "/api/games", &evil, b"{}");
    assert_eq!(status, 403, "{text}");
    assert!(text.contains("cross-origin"), "{text}");
    let own = format!("http://{host}");
    assert_eq!(get(&[("Host", &host), ("Origin", &own)]), 200);
    drop(srv);

    let srv = Server::start(&["--allow-host", "awale.lan"]);
    let get = |headers: &[(&str, &str)]| raw_with(srv.addr, "GET", "/api/presets", headers, b"").0;
    assert_eq!(get(&[("Host", "awale.lan:8080")]), 200);
    assert_eq!(get(&[("Host", "evil.example")]), 403);
    drop(srv);

    // A token: every request needs it (header, cookie, or the page's ?token=).
    let token = "0123456789abcdef0123";
    let srv = Server::start(&["--token", token]);
    let host = srv.addr.to_string();
    let (status, text) = raw_with(srv.addr, "GET", "/api/presets", &[("Host", &host)], b"");
    assert_eq!(status, 401, "{text}");
    assert!(text.contains("token"), "{text}");
    let bearer = format!("Bearer {token}");
    let ok = raw_with(
        srv.addr,
        "GET",
        "/api/presets",
        &[("Host", &host), ("Authorization", &bearer)],
        b"",
    );
    assert_eq!(ok.0, 200);
    let wrong = raw_with(
        srv.addr,
        "GET",
        "/api/presets",
        &[
            ("Host", &host),
            ("Authorization", "Bearer 0123456789abcdef0124"),
        ],
        b"",
    );
    assert_eq!(wrong.0, 401);
    // The page opened with ?token= sets a cookie that the page's requests then carry.
    let mut s = TcpStream::connect(srv.addr).unwrap();
    write!(
        s,
        "GET /?token={token} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut page = String::new();
    s.read_to_string(&mut page).unwrap();
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    let cookie = page
        .lines()
        .find_map(|l| l.strip_prefix("set-cookie: "))
        .unwrap_or_else(|| panic!("no cookie: {page}"));
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );
    let pair = cookie.split(';').next().unwrap();
    let ok = raw_with(
        srv.addr,
        "GET",
        "/api/presets",
        &[("Host", &host), ("Cookie", pair)],
        b"",
    );
    assert_eq!(ok.0, 200);
    drop(srv);

    // A short token, and a token with --no-auth, are refused at start.
    for args in [
        &["--token", "short"][..],
        &["--token", token, "--no-auth"][..],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_awale"))
            .args(["serve", "--port", "0"])
            .args(args)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{args:?}");
    }
}

#[test]
fn records_and_tournament_files_replay_move_by_move() {
    let srv = Server::start(&[]);
    // A game record in text, as `awale play --record` writes it.
    let record = "[Rules \"abapa\"]\nC f A c\n";
    let (status, v) = raw(
        srv.addr,
        "POST",
        "/api/replay",
        "text/plain",
        record.as_bytes(),
    );
    assert_eq!(status, 200, "{v}");
    let v: Value = serde_json::from_str(&v).unwrap();
    let frames = v["games"][0]["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 5);
    assert_eq!(frames[1]["move"], "C");
    assert_eq!(
        frames[1]["pits"],
        json!([4, 4, 0, 5, 5, 5, 5, 4, 4, 4, 4, 4])
    );
    // A tournament's games.jsonl.
    let dir = std::env::temp_dir().join(format!("awale-serve-replay-{}", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_awale"))
        .args([
            "tournament",
            "--agents",
            "random,greedy",
            "--games",
            "4",
            "--seed",
            "2",
            "--no-progress",
            "--out",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let jsonl = std::fs::read_to_string(dir.join("games.jsonl")).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    let (status, text) = raw(
        srv.addr,
        "POST",
        "/api/replay",
        "text/plain",
        jsonl.as_bytes(),
    );
    assert_eq!(status, 200, "{text}");
    let v: Value = serde_json::from_str(&text).unwrap();
    let games = v["games"].as_array().unwrap();
    assert_eq!(games.len(), jsonl.lines().count());
    for (g, line) in games.iter().zip(jsonl.lines()) {
        let line: Value = serde_json::from_str(line).unwrap();
        let frames = g["frames"].as_array().unwrap();
        assert_eq!(frames.len(), line["plies"].as_u64().unwrap() as usize + 1);
        assert_eq!(g["seats"], line["seats"]);
        let last = frames.last().unwrap();
        assert_eq!(last["stores"], line["scores"], "{g}");
    }
    // Bad records: 4xx with the reason.
    for (body, reason) in [
        ("", "empty"),
        ("[Rules \"abapa\"]\nC C C C\n", ""),
        ("{\"record\": 5}", "not a game record"),
        ("{not json", "line 1"),
    ] {
        let (status, text) = raw(
            srv.addr,
            "POST",
            "/api/replay",
            "text/plain",
            body.as_bytes(),
        );
        assert_eq!(status, 400, "{body:?} -> {text}");
        assert!(text.contains(reason), "{body:?} -> {text}");
    }
}

#[test]
fn the_openapi_document_lists_exactly_the_routes_served() {
    let srv = Server::start(&[]);
    let (status, doc) = call(&srv, "GET", "/api/openapi.json", None);
    assert_eq!(status, 200, "{doc}");
    assert_eq!(doc["openapi"], "3.1.0");
    let (id, _) = new_game(
        &srv,
        json!({"rules": "abapa", "seats": ["human", "random"], "seed": 1}),
    );
    let paths = doc["paths"].as_object().unwrap();
    let mut operations = Vec::new();
    for (path, item) in paths {
        for (method, op) in item.as_object().unwrap() {
            if method == "parameters" {
                continue;
            }
            assert!(op["responses"].is_object(), "{method} {path}: no responses");
            operations.push((method.to_uppercase(), path.replace("{id}", &id)));
        }
    }
    // Every documented operation is served: an answer other than the fallback's 404 "no such
    // route" and a 405 (DELETE last, so that the game lives until then).
    operations.sort_by_key(|(m, _)| m == "DELETE");
    for (method, path) in &operations {
        let body = match (method.as_str(), path.as_str()) {
            ("POST", "/api/games") => Some(json!({"seats": ["human", "random"]})),
            ("POST", p) if p.ends_with("/move") => Some(json!({"house": 0})),
            _ => None,
        };
        let (status, v) = if path == "/api/replay" {
            let (s, t) = raw(
                srv.addr,
                "POST",
                path,
                "text/plain",
                b"[Rules \"abapa\"]\nC\n",
            );
            (s, serde_json::from_str(&t).unwrap_or(Value::Null))
        } else {
            call(&srv, method, path, body)
        };
        assert_ne!(status, 405, "{method} {path}: {v}");
        assert!(
            !(status == 404
                && v["error"]
                    .as_str()
                    .is_some_and(|e| e.contains("no such route"))),
            "{method} {path} is documented but not served"
        );
        assert!(status < 500, "{method} {path}: {status} {v}");
    }
    // And the routes the server has are the documented ones (the list the router is built
    // with, seen from outside: a route that is not documented answers the fallback).
    for (method, path) in [
        ("GET", "/api/games"),
        ("POST", "/api/presets"),
        ("GET", "/api/nothing"),
    ] {
        let documented = paths
            .get(path)
            .and_then(|p| p.get(method.to_lowercase()))
            .is_some();
        assert!(!documented, "{method} {path}");
        let (status, _) = call(&srv, method, path, None);
        assert!(status == 404 || status == 405, "{method} {path}: {status}");
    }
    assert_eq!(operations.len(), 14, "{operations:?}");
}
