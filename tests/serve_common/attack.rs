//! What the attack tests of `awale serve` share (tests/serve_limits.rs, tests/serve_memory.rs):
//! requests from chosen loopback addresses, a probe of cheap requests beside each attack, the
//! memory check.

use std::io::Write;
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{read_answer, Server};

/// Memory the server may hold besides `--memory-mb` in these tests, whose attacks fill one of
/// its shares at a time (docs/play.md adds them all up: 181 MiB on two cores).
pub const RSS_MARGIN_MB: u64 = 160;

/// One test at a time.
pub static SERIAL: Mutex<()> = Mutex::new(());

pub fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// The server is running, answers, and its memory is under `--memory-mb` + [`RSS_MARGIN_MB`].
pub fn alive_under(srv: &mut Server, memory_mb: u64) {
    let rss = srv.rss_mb();
    assert!(
        rss <= memory_mb + RSS_MARGIN_MB,
        "RSS {rss} MiB over --memory-mb {memory_mb} + {RSS_MARGIN_MB}"
    );
    let (status, _) = call(srv.addr, "GET", "/api/presets", None);
    assert_eq!(status, 200, "the server answers");
}

/// A connection from loopback address `from` (127.0.0.1, 127.0.0.2…): two clients.
pub fn connect_from(from: [u8; 4], to: SocketAddr) -> TcpStream {
    use socket2::{Domain, Socket, Type};
    let s = Socket::new(Domain::IPV4, Type::STREAM, None).unwrap();
    s.bind(&SocketAddr::from((from, 0)).into()).unwrap();
    s.connect(&to.into()).unwrap();
    let s: TcpStream = s.into();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    s
}

/// One request (`Connection: close`) from `from`; the status, the head and the body.
pub fn request_from(
    from: [u8; 4],
    addr: SocketAddr,
    method: &str,
    path: &str,
    ctype: &str,
    body: &[u8],
) -> (u16, String, String) {
    let mut s = connect_from(from, addr);
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).unwrap();
    let _ = s.write_all(body);
    answer_of(&mut s)
}

/// The answer waiting on `s`: the status, the head in lower case and the body.
pub fn answer_of(s: &mut TcpStream) -> (u16, String, String) {
    let (status, head, body) = read_answer(s);
    assert!(status > 0, "no answer: {head:?}");
    (status, head.to_lowercase(), body)
}

/// `GET /api/presets` from `from` (a request of its own): the status, head and body.
pub fn presets_from(from: [u8; 4], addr: SocketAddr) -> (u16, String, String) {
    request_from(from, addr, "GET", "/api/presets", "text/plain", b"")
}

/// `POST /api/replay` of `body` (as text) from 127.0.0.1: the status, head and body.
pub fn replay(addr: SocketAddr, body: &[u8]) -> (u16, String, String) {
    request_from(
        [127, 0, 0, 1],
        addr,
        "POST",
        "/api/replay",
        "text/plain",
        body,
    )
}

/// `POST /api/games` with `body` from 127.0.0.1: the status and the answer, and how long it took.
pub fn post_game(addr: SocketAddr, body: Value) -> (u16, Value, Duration) {
    let t = Instant::now();
    let (status, v) = call(addr, "POST", "/api/games", Some(body));
    (status, v, t.elapsed())
}

pub fn call_from(
    from: [u8; 4],
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let bytes = body.map(|b| b.to_string()).unwrap_or_default();
    let (status, _, text) = request_from(
        from,
        addr,
        method,
        path,
        "application/json",
        bytes.as_bytes(),
    );
    let v = if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text:?}"))
    };
    (status, v)
}

pub fn call(addr: SocketAddr, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    call_from([127, 0, 0, 1], addr, method, path, body)
}

pub fn error_of(v: &Value) -> &str {
    v["error"]
        .as_str()
        .unwrap_or_else(|| panic!("no error in {v}"))
}

/// Cheap requests (`GET /api/presets`) in a loop beside an attack: their times, and the
/// server's peak memory meanwhile when it watches one.
pub struct Probe {
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<(Vec<Duration>, u64)>,
    started: Instant,
}

/// The resident memory of process `pid` in MiB (0 once it is gone).
fn rss_of(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|v| v.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb / 1024)
}

impl Probe {
    pub fn start(addr: SocketAddr) -> Probe {
        Probe::run(addr, None)
    }

    /// A probe that also reads the memory of `srv` before each request.
    pub fn watching(srv: &Server) -> Probe {
        Probe::run(srv.addr, Some(srv.child.id()))
    }

    fn run(addr: SocketAddr, pid: Option<u32>) -> Probe {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut times = Vec::new();
            let mut peak = 0;
            while !flag.load(Ordering::Relaxed) {
                if let Some(pid) = pid {
                    peak = peak.max(rss_of(pid));
                }
                let t = Instant::now();
                // From a client address of its own: the probe is another user.
                let (status, _) = call_from([127, 0, 0, 9], addr, "GET", "/api/presets", None);
                times.push(t.elapsed());
                assert_eq!(status, 200);
                std::thread::sleep(Duration::from_millis(5));
            }
            (times, peak)
        });
        Probe {
            stop,
            thread,
            started: Instant::now(),
        }
    }

    /// Stops the probe; its times, sorted, and the peak memory.
    fn finish(self, what: &str) -> (Vec<Duration>, u64) {
        // A few probes at least, however short the attack.
        std::thread::sleep(Duration::from_millis(100).saturating_sub(self.started.elapsed()));
        self.stop.store(true, Ordering::Relaxed);
        let (mut times, peak) = self.thread.join().expect("the probe ran");
        assert!(times.len() >= 5, "{what}: {} probes", times.len());
        times.sort();
        (times, peak)
    }

    /// Stops the probe and checks its p99.
    pub fn check(self, what: &str) {
        let (times, _) = self.finish(what);
        let p99 = times[(times.len() * 99).div_ceil(100) - 1];
        assert!(
            p99 < Duration::from_millis(50),
            "{what}: the cheap requests' p99 is {p99:?} over {} probes",
            times.len()
        );
    }

    /// Stops the probe and checks the floor of an attack: every cheap request answered within
    /// 100 ms, and the server's memory never over `memory_mb` + [`RSS_MARGIN_MB`] (read before
    /// each request).
    pub fn check_floor(self, what: &str, memory_mb: u64) -> u64 {
        let (times, peak) = self.finish(what);
        let slowest = times[times.len() - 1];
        assert!(
            slowest < Duration::from_millis(100),
            "{what}: a cheap request took {slowest:?} ({} probes)",
            times.len()
        );
        eprintln!(
            "{what}: peak memory {peak} MiB, slowest cheap request {slowest:?} of {}",
            times.len()
        );
        assert!(
            peak > 0 && peak <= memory_mb + RSS_MARGIN_MB,
            "{what}: the server's memory reached {peak} MiB against --memory-mb {memory_mb} + {RSS_MARGIN_MB}"
        );
        peak
    }
}

/// Random legal moves under `rules` from the start, `plies` of them (or to the end).
pub fn long_record(rules: &str, plies: usize, seed: u64) -> awale::notation::GameRecord {
    let rules: awale::Rules = rules.parse().unwrap();
    let mut game = awale::Game::with_seed(rules, seed);
    let mut x = seed | 1;
    while game.moves().len() < plies && !game.is_over() {
        let legal = game.legal_moves();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        game.apply(legal[(x % legal.len() as u64) as usize])
            .unwrap();
    }
    awale::notation::GameRecord::from_game(&game)
}

/// Asks the agent of game `id` to move and waits for the move (202 answers repeat the
/// request); the time from the first request to the move.
pub fn timed_agent_move(addr: SocketAddr, id: &str) -> (Duration, Value) {
    let t = Instant::now();
    loop {
        let (status, v) = call(addr, "POST", &format!("/api/games/{id}/agent-move"), None);
        match status {
            200 => return (t.elapsed(), v),
            202 => continue,
            _ => panic!("{status} {v}"),
        }
    }
}

/// A new game from client address `from`: its id (the answer must be 201).
pub fn new_game(addr: SocketAddr, from: [u8; 4], body: Value) -> String {
    let (status, v) = call_from(from, addr, "POST", "/api/games", Some(body));
    assert_eq!(status, 201, "{v}");
    v["id"].as_str().unwrap().to_string()
}
