//! `awale engine` against a hostile or careless referee, the binary driven through its pipes:
//! `go infinite` then `isready`, `stop`, a second `go`, `quit` or the end of the input (it
//! answers and exits, never hangs); a 30 MB line (skipped, memory bounded); bytes that are not
//! UTF-8 (answered, it goes on); errors that quote a long line with control characters (cut and
//! escaped). Every wait has a hang guard that kills the engine and fails the test.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

/// How long any answer may take before the test calls it a hang.
const GUARD: Duration = Duration::from_secs(60);

/// A running `awale engine`, its answers read on a thread of their own.
struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Engine {
    fn start(args: &[&str]) -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_awale"))
            .arg("engine")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if send.send(line).is_err() {
                    return;
                }
            }
        });
        Engine {
            stdin: child.stdin.take(),
            child,
            lines,
        }
    }

    fn send(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// The lines answered up to the first that starts with `prefix`, included.
    fn until(&self, prefix: &str) -> Vec<String> {
        let mut seen = Vec::new();
        let until = Instant::now() + GUARD;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let found = line.starts_with(prefix);
                    seen.push(line);
                    if found {
                        return seen;
                    }
                }
                Err(_) => panic!("no '{prefix}' within {GUARD:?}; answered {seen:?}"),
            }
        }
    }

    /// Closes the input (if still open) and waits for the engine to exit: its status and the
    /// lines it answered since the last [`Engine::until`].
    fn exit(&mut self) -> (ExitStatus, Vec<String>) {
        drop(self.stdin.take());
        let until = Instant::now() + GUARD;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                let rest = self.lines.iter().collect();
                return (status, rest);
            }
            assert!(
                Instant::now() < until,
                "the engine did not exit within {GUARD:?}"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// The most memory the engine has held (kB, `VmHWM`).
    fn peak_rss_kb(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        // A test that failed leaves no engine behind.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether `line` is `bestmove` and a legal-looking move (one house letter).
fn is_move(line: &str) -> bool {
    line.strip_prefix("bestmove ")
        .is_some_and(|m| m.len() == 1 && m.chars().all(|c| c.is_ascii_alphabetic()))
}

/// Issue 60, item 12: during `go infinite`, `isready` is answered, `stop` ends the search with
/// its best move, `quit` exits.
#[test]
fn go_infinite_answers_isready_then_stop_then_quit() {
    let mut engine = Engine::start(&["alphabeta:depth=40"]);
    engine.send(b"uci\nposition startpos\ngo infinite\n");
    engine.until("uciok");
    std::thread::sleep(Duration::from_millis(200));
    engine.send(b"isready\n");
    let ready = engine.until("readyok");
    assert!(
        !ready.iter().any(|l| l.starts_with("bestmove")),
        "go infinite answered before stop: {ready:?}"
    );
    let stopped = Instant::now();
    engine.send(b"stop\n");
    let answer = engine.until("bestmove");
    eprintln!("stop to bestmove: {:?}", stopped.elapsed());
    assert!(is_move(answer.last().unwrap()), "{answer:?}");
    engine.send(b"quit\n");
    let (status, rest) = engine.exit();
    assert!(status.success(), "{status:?}");
    assert!(rest.is_empty(), "{rest:?}");
}

/// Issue 60, item 12: the referee's hang, `go infinite`, `go movetime 100`, `stop`, `quit`: the
/// second `go` ends the first (its `bestmove`), then searches; `quit` exits.
#[test]
fn a_second_go_during_go_infinite_answers_both_and_quit_exits() {
    let mut engine = Engine::start(&["alphabeta:depth=40"]);
    engine.send(b"uci\nposition startpos\ngo infinite\n");
    engine.until("uciok");
    std::thread::sleep(Duration::from_millis(200));
    engine.send(b"go movetime 100\n");
    let first = engine.until("bestmove");
    let second = engine.until("bestmove");
    assert!(is_move(first.last().unwrap()), "{first:?}");
    assert!(is_move(second.last().unwrap()), "{second:?}");
    engine.send(b"stop\nquit\n");
    let (status, rest) = engine.exit();
    assert!(status.success(), "{status:?}");
    assert!(rest.is_empty(), "{rest:?}");
}

/// Issue 60, item 12: the end of the input ends `go infinite` (its `bestmove`) and the engine.
#[test]
fn the_end_of_the_input_ends_go_infinite_and_the_engine() {
    let mut engine = Engine::start(&["alphabeta:depth=40"]);
    engine.send(b"isready\nposition startpos\ngo infinite\n");
    engine.until("readyok");
    std::thread::sleep(Duration::from_millis(200));
    let closed = Instant::now();
    let (status, rest) = engine.exit();
    eprintln!("end of input to exit: {:?}", closed.elapsed());
    assert!(status.success(), "{status:?}");
    assert!(is_move(rest.last().unwrap()), "{rest:?}");
}

/// Issue 60, item 13: a 30 MB `position` line is skipped to its end without being kept (the
/// engine's peak memory stays far below the line), answered with an error, and the next
/// command is read.
#[test]
fn a_30_mb_line_is_skipped_in_bounded_memory() {
    let mut engine = Engine::start(&["greedy"]);
    engine.send(b"isready\n");
    engine.until("readyok");
    let mut line = b"position startpos moves ".to_vec();
    line.resize(30 << 20, b'A');
    line.extend_from_slice(b"\nisready\nposition startpos moves C\ngo movetime 10\n");
    let mut stdin = engine.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        stdin.write_all(&line).unwrap();
        stdin
    });
    let answer = engine.until("readyok");
    assert_eq!(
        answer,
        [
            "info string error: a line longer than 65536 bytes (skipped)",
            "readyok"
        ]
    );
    let played = engine.until("bestmove");
    assert!(is_move(played.last().unwrap()), "{played:?}");
    let peak = engine.peak_rss_kb();
    eprintln!("peak RSS after a 30 MB line: {peak} kB");
    // On main it held 1.6 GiB; the line alone is 30 MiB.
    assert!(peak < 24 * 1024, "peak RSS {peak} kB");
    engine.stdin = Some(writer.join().unwrap());
    let (status, _) = engine.exit();
    assert!(status.success(), "{status:?}");
}

/// Issue 60, item 13: a `position` longer than the rules' ply limit is refused before a move is
/// played.
#[test]
fn a_position_longer_than_the_ply_limit_is_refused() {
    let mut engine = Engine::start(&["greedy", "--rules", "abapa:max_plies=4"]);
    engine.send(b"position startpos moves CdCdC\ngo movetime 10\n");
    let answer = engine.until("bestmove");
    assert_eq!(
        answer,
        [
            "info string error: bad move notation '5 moves': a game of these rules has at most 4 plies",
            "info string error: no valid position",
            "bestmove 0000"
        ]
    );
}

/// Issue 60, item 14: a line that is not UTF-8 is answered with an error and the engine goes on
/// (on main it exited with status 2).
#[test]
fn a_line_not_utf8_is_answered_and_the_engine_goes_on() {
    let mut engine = Engine::start(&["greedy"]);
    engine.send(b"go \xff\xfe movetime\nisready\n");
    let answer = engine.until("readyok");
    assert_eq!(
        answer,
        [
            "info string error: a line that is not UTF-8 (skipped): 'go \u{fffd}\u{fffd} movetime'",
            "readyok"
        ]
    );
    engine.send(b"position startpos\ngo movetime 10\nquit\n");
    let played = engine.until("bestmove");
    assert!(is_move(played.last().unwrap()), "{played:?}");
    let (status, _) = engine.exit();
    assert!(status.success(), "{status:?}");
}

/// Issue 60, item 15: an error quotes at most 200 characters of the offending text, control
/// characters escaped, whatever the line held.
#[test]
fn errors_quote_a_short_escaped_excerpt() {
    let mut engine = Engine::start(&["greedy"]);
    let mut line = b"go movetime \x1b[2J\x07".to_vec();
    line.resize(60_000, b'9');
    line.extend_from_slice(b"\n\x1b]0;owned\x07 ");
    line.resize(140_000, b'x');
    line.extend_from_slice(b"\nisready\n");
    engine.send(&line);
    let answer = engine.until("readyok");
    assert_eq!(answer.len(), 3, "{answer:?}");
    let number = &answer[0];
    assert!(
        number.starts_with("info string error: go movetime: '\\x1b[2J\\x07999"),
        "{number}"
    );
    assert!(number.ends_with("…' is not a whole number"), "{number}");
    // The second line is over 64 KiB: skipped, not quoted.
    assert_eq!(
        answer[1],
        "info string error: a line longer than 65536 bytes (skipped)"
    );
    for l in &answer {
        assert!(l.chars().count() < 450, "{} chars", l.chars().count());
        assert!(!l.chars().any(char::is_control), "{l:?}");
    }
    engine.send(b"\x1b]0;x\x07jump\n\tisready\n");
    let answer = engine.until("readyok");
    assert_eq!(
        answer,
        [
            "info string error: unknown command '\\x1b]0;x\\x07jump'",
            "readyok"
        ]
    );
}
