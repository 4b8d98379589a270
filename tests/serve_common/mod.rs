//! What the tests of `awale serve` share (tests/serve.rs, tests/serve_limits.rs): the binary
//! started on a free port, and tiny endgame tables for it.

#![allow(dead_code)]

pub mod attack;

use std::io::{BufRead, BufReader, Read};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};

/// A running `awale serve`, killed when dropped.
pub struct Server {
    pub child: Child,
    pub addr: SocketAddr,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// `awale serve --port 0` with the `extra` flags; its address, read from its first line.
    pub fn start(extra: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_awale"))
            .args(["serve", "--port", "0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("awale serve starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .trim()
            .strip_prefix("awale serve: listening on http://")
            .unwrap_or_else(|| panic!("first line: {line:?}"));
        let addr = url.trim_end_matches('/').parse().unwrap();
        Server { child, addr }
    }

    /// The server's resident memory in MiB (read from `/proc`: Linux), asserting that it is
    /// still running.
    pub fn rss_mb(&mut self) -> u64 {
        assert!(self.child.try_wait().unwrap().is_none(), "the server died");
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let kb: u64 = status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap();
        kb / 1024
    }
}

/// Endgame tables of abapa up to 2 seeds, built by the binary into a fresh folder named after
/// `tag` and the process.
pub fn tiny_tables(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("awale-serve-{tag}-{}", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_awale"))
        .args([
            "tablebase",
            "build",
            "--max-seeds",
            "2",
            "--threads",
            "1",
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
    dir
}

/// The answer waiting on `s`, read to its end: the status (0 when there is none), the head as
/// written and the body. An interim `100 Continue` (the body was asked for) is skipped.
pub fn read_answer(s: &mut TcpStream) -> (u16, String, String) {
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out).to_string();
    let text = text
        .strip_prefix("HTTP/1.1 100 Continue\r\n\r\n")
        .unwrap_or(&text);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((text, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (status, head.to_string(), body.to_string())
}
