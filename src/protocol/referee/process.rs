//! One engine process: started in its own process group and as the subreaper of its own
//! descendants (so that killing it kills whatever it started, see [`super::tree`]), killed with
//! the thread that started it (`PR_SET_PDEATHSIG` on Linux: no engine outlives a killed
//! referee), its output read line by line on a thread of its own with a bounded line length and
//! a bounded queue, its stderr appended to a log file of at most [`MAX_LOG`] bytes and its last
//! lines kept for error messages.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The longest line an engine may write (bytes); a longer one is a fault.
pub const MAX_LINE: usize = 64 * 1024;
/// The most lines an engine may write while it answers one request (a `go`, the handshake);
/// more is a fault ("floods its output").
pub const MAX_LINES: usize = 100_000;
/// How much of an engine's stderr is kept for error messages (bytes).
const STDERR_TAIL: usize = 2048;
/// The most an engine's stderr log file grows to (bytes, 16 MiB): what the engine writes past
/// it is dropped, after one note line ([`LOG_FULL`]). Its last lines are still kept for
/// messages.
pub const MAX_LOG: u64 = 16 * 1024 * 1024;
/// The line written once when a log reaches [`MAX_LOG`].
pub const LOG_FULL: &str =
    "\n[awale: this log reached 16 MiB; the rest of the engine's stderr is dropped]\n";

/// A line of an engine's output, or how its output ended.
enum Line {
    Text(String),
    TooLong,
    Closed,
}

/// The length of a line read with its end: without its "\n" or "\r\n" (a line cut short by
/// the reader's limit has no "\n" and counts whole).
fn line_length(buf: &[u8]) -> usize {
    match buf {
        [rest @ .., b'\r', b'\n'] | [rest @ .., b'\n'] => rest.len(),
        _ => buf.len(),
    }
}

/// A running engine.
pub(super) struct Process {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Line>,
    stderr_tail: Arc<Mutex<VecDeque<u8>>>,
    log: Arc<Log>,
    /// Set when its stderr ended (everything it wrote there is in the tail).
    stderr_done: Arc<std::sync::atomic::AtomicBool>,
    /// Killed and reaped: its pid may belong to another process now.
    reaped: bool,
    /// The command, for messages.
    pub(super) command: String,
    /// The line that asks it to quit, in its dialect.
    quit_line: String,
}

impl Process {
    /// Starts `cmd args…`, its stderr appended to `log` when given; `quit_line` asks it to quit
    /// (its dialect's `quit`).
    pub(super) fn start(
        cmd: &str,
        args: &[String],
        log: Option<&Path>,
        quit_line: String,
    ) -> Result<Process, String> {
        // The log first: a path that cannot be one (a FIFO, a link) starts nothing.
        let log_file = match log {
            Some(path) => Some(LogFile::open(path)?),
            None => None,
        };
        let mut command = Command::new(cmd);
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            command.process_group(0);
            #[cfg(target_os = "linux")]
            // SAFETY: `prctl` is async-signal-safe and touches nothing of the parent's.
            unsafe {
                command.pre_exec(|| {
                    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                    super::tree::subreaper_in_child();
                    Ok(())
                });
            }
        }
        let shown = std::iter::once(cmd.to_string())
            .chain(args.iter().cloned())
            .collect::<Vec<_>>()
            .join(" ");
        // An engines file gives the command: printed in errors, so escaped.
        let shown = crate::protocol::printable(&shown).into_owned();
        let mut child = {
            // Started and registered under the sweep's lock: never taken for an orphan.
            let mut programs = super::tree::lock();
            let child = command
                .spawn()
                .map_err(|e| format!("cannot start '{shown}': {e}"))?;
            if let Ok(pid) = i32::try_from(child.id()) {
                super::tree::register(&mut programs, pid);
            }
            child
        };
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let stderr = child.stderr.take().ok_or("no stderr")?;
        let (send, lines) = sync_channel(1024);
        let spawned = std::thread::Builder::new()
            .name("awale-engine-out".into())
            .spawn(move || {
                let mut reader = BufReader::new(stdout);
                loop {
                    let mut buf = Vec::new();
                    // A line of MAX_LINE bytes, its "\n" or "\r\n" not counted, is taken.
                    let line = match (&mut reader)
                        .take(MAX_LINE as u64 + 2)
                        .read_until(b'\n', &mut buf)
                    {
                        Ok(0) | Err(_) => Line::Closed,
                        Ok(_) if line_length(&buf) > MAX_LINE => Line::TooLong,
                        Ok(_) => Line::Text(String::from_utf8_lossy(&buf).trim_end().to_string()),
                    };
                    let end = !matches!(line, Line::Text(_));
                    if send.send(line).is_err() || end {
                        return;
                    }
                }
            });
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let log_file = Arc::new(Mutex::new(log_file));
        let (tail, to_log) = (stderr_tail.clone(), log_file.clone());
        let stderr_done = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let done = stderr_done.clone();
        let spawned_err = std::thread::Builder::new()
            .name("awale-engine-err".into())
            .spawn(move || {
                copy_stderr(stderr, &to_log, &tail);
                done.store(true, std::sync::atomic::Ordering::SeqCst);
            });
        let mut process = Process {
            child,
            stdin,
            lines,
            stderr_tail,
            log: log_file,
            stderr_done,
            reaped: false,
            command: shown,
            quit_line,
        };
        if let Err(e) = spawned.and(spawned_err) {
            process.kill();
            return Err(format!("cannot start a reader thread: {e}"));
        }
        Ok(process)
    }

    /// Appends its stderr to `path` from now on (the file and its folder are created).
    pub(super) fn set_log(&mut self, path: &Path) -> Result<(), String> {
        let mut log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        if log.as_ref().is_some_and(|l| l.path == path) {
            return Ok(());
        }
        *log = Some(LogFile::open(path)?);
        Ok(())
    }

    /// Sends one line.
    pub(super) fn send(&mut self, line: &str) -> Result<(), String> {
        let stdin = self.stdin.as_mut().ok_or("its input is closed")?;
        writeln!(stdin, "{line}")
            .and_then(|_| stdin.flush())
            .map_err(|e| format!("closed its input ({e}){}", self.exit_note()))
    }

    /// Reads lines until `done` accepts one (returns it), by `deadline`; `seen` is called on
    /// every line read before. A fault names what went wrong: `timeout` says the deadline passed.
    pub(super) fn read_until(
        &mut self,
        deadline: Instant,
        mut done: impl FnMut(&str) -> bool,
        mut seen: impl FnMut(&str),
    ) -> Result<String, ReadFault> {
        for _ in 0..MAX_LINES {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => return Err(ReadFault::Timeout),
                Err(RecvTimeoutError::Disconnected) => Line::Closed,
            };
            let text = self.check(line).map_err(ReadFault::Broken)?;
            if done(&text) {
                return Ok(text);
            }
            seen(&text);
        }
        Err(ReadFault::Broken(format!(
            "wrote more than {MAX_LINES} lines without answering (floods its output)"
        )))
    }

    fn check(&mut self, line: Line) -> Result<String, String> {
        match line {
            Line::Text(t) => Ok(t),
            Line::TooLong => Err(format!("wrote a line longer than {MAX_LINE} bytes")),
            Line::Closed => {
                // Give a crashing engine a moment to be reaped, for its exit status, and its
                // last words on stderr to be read.
                let until = Instant::now() + Duration::from_millis(200);
                while Instant::now() < until {
                    let exited = matches!(self.child.try_wait(), Ok(Some(_)));
                    if exited && self.stderr_done.load(std::sync::atomic::Ordering::SeqCst) {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(2));
                }
                Err(format!("closed its output{}", self.exit_note()))
            }
        }
    }

    /// ` (exited with status 3; stderr: …)`, what is known of how it ended.
    fn exit_note(&mut self) -> String {
        let mut notes = Vec::new();
        if let Ok(Some(status)) = self.child.try_wait() {
            notes.push(format!("{status}"));
        }
        let tail = self.stderr_tail();
        if !tail.is_empty() {
            notes.push(format!("stderr: {tail}"));
        }
        if notes.is_empty() {
            String::new()
        } else {
            format!(" ({})", notes.join("; "))
        }
    }

    /// The last lines of its stderr, on one line, escaped ([`crate::protocol::printable`]): it is
    /// printed in errors, and an engine's stderr may hold terminal escape sequences.
    pub(super) fn stderr_tail(&self) -> String {
        let tail = self.stderr_tail.lock().unwrap_or_else(|e| e.into_inner());
        let bytes: Vec<u8> = tail.iter().copied().collect();
        let words = String::from_utf8_lossy(&bytes)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        crate::protocol::printable(&words).into_owned()
    }

    /// Whether it still runs.
    pub(super) fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Kills what it started (while it still holds it: once it exits, its orphans leave its
    /// tree), asks it to quit (its quit line, then up to `grace`), then kills its whole process group
    /// and reaps it.
    pub(super) fn quit(mut self, grace: Duration) {
        if let Ok(pid) = i32::try_from(self.child.id()) {
            super::tree::kill_tree(pid);
        }
        let quit = std::mem::take(&mut self.quit_line);
        let _ = self.send(&quit);
        self.stdin = None;
        let until = Instant::now() + grace;
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        // What it started while it was asked to quit, if it still runs (`kill` does it).
        self.kill();
    }

    /// Kills it at once with everything it started — its descendants (while it still holds
    /// them), its process group — and reaps it; in a subreaper, also what engines left behind
    /// when they exited (see [`super::tree`]).
    pub(super) fn kill(&mut self) {
        if self.reaped {
            self.stdin = None;
            return;
        }
        self.reaped = true;
        let pid = i32::try_from(self.child.id()).ok();
        if let Some(pid) = pid {
            // Its input still open: an engine that exits at the end of its input (most do)
            // would let its tree go before it is walked.
            super::tree::kill_tree(pid);
        }
        self.stdin = None;
        if let Some(pid) = pid {
            #[cfg(unix)]
            // SAFETY: a plain system call; the group is the engine's own (`process_group(0)`).
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
        let _ = self.child.kill();
        let mut programs = super::tree::lock();
        let _ = self.child.wait();
        if let Some(pid) = pid {
            super::tree::forget(&mut programs, pid);
        }
        super::tree::sweep_orphans(&programs);
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill();
    }
}

/// What went wrong while waiting for a line.
pub(super) enum ReadFault {
    /// The deadline passed.
    Timeout,
    /// The engine's output ended, or broke the limits.
    Broken(String),
}

/// An engine's stderr log: appended to, up to [`MAX_LOG`] bytes.
struct LogFile {
    path: PathBuf,
    file: std::fs::File,
    /// Reached [`MAX_LOG`]: nothing more is written.
    full: bool,
}

impl LogFile {
    /// Opens `path` to append (its folder created): a FIFO, a device, a folder or a symbolic
    /// link there is refused at once ([`crate::files::open_append`]), never waited on or
    /// followed.
    fn open(path: &Path) -> Result<LogFile, String> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        let file = crate::files::open_append(path)
            .map_err(|e| format!("cannot open the engine log {}: {e}", path.display()))?;
        Ok(LogFile {
            path: path.to_path_buf(),
            file,
            full: false,
        })
    }

    /// Appends `bytes`, cut at [`MAX_LOG`] (the file's size, whoever wrote it: the processes
    /// of one engine share its log), with [`LOG_FULL`] after the cut.
    fn append(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        if self.full {
            return Ok(());
        }
        let len = self.file.metadata()?.len();
        let room = MAX_LOG.saturating_sub(len);
        // Strictly under: a file reaches the cap only by the cut below, with its note.
        if (bytes.len() as u64) < room {
            return self.file.write_all(bytes);
        }
        self.full = true;
        if room == 0 {
            // Full before this process wrote: the note is there already.
            return Ok(());
        }
        self.file.write_all(&bytes[..room as usize])?;
        self.file.write_all(LOG_FULL.as_bytes())
    }
}

type Log = Mutex<Option<LogFile>>;

fn copy_stderr(mut stderr: impl Read, log: &Log, tail: &Mutex<VecDeque<u8>>) {
    let mut buf = [0u8; 4096];
    while let Ok(n) = stderr.read(&mut buf) {
        if n == 0 {
            return;
        }
        {
            let mut log = log.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(f) = log.as_mut() {
                if f.append(&buf[..n]).is_err() {
                    *log = None;
                }
            }
        }
        let mut t = tail.lock().unwrap_or_else(|e| e.into_inner());
        t.extend(&buf[..n]);
        let excess = t.len().saturating_sub(STDERR_TAIL);
        t.drain(..excess);
    }
}

/// The log file of an engine in a run folder: `engines/NAME.stderr.log`, the name made safe for
/// a file name.
pub fn log_path(dir: &Path, name: &str) -> PathBuf {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .take(80)
        .collect();
    dir.join("engines").join(format!("{safe}.stderr.log"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_measured_without_its_end() {
        assert_eq!(line_length(b"bestmove A\n"), 10);
        assert_eq!(line_length(b"bestmove A\r\n"), 10);
        assert_eq!(line_length(b"bestmove A"), 10);
        let exact = [vec![b'x'; MAX_LINE], b"\n".to_vec()].concat();
        assert_eq!(line_length(&exact), MAX_LINE);
        let cut = vec![b'x'; MAX_LINE + 2];
        assert!(line_length(&cut) > MAX_LINE);
    }

    fn log_in(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("awale-log-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d.join("engines").join("bot.stderr.log")
    }

    #[test]
    fn a_log_is_cut_at_its_cap_with_one_note() {
        let path = log_in("cap");
        let mut log = LogFile::open(&path).unwrap();
        log.file.set_len(MAX_LOG - 100).unwrap();
        log.append(&[b'a'; 60]).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), MAX_LOG - 40);
        // Exactly the room left: cut there (a file reaches the cap only with its note).
        log.append(&[b'b'; 40]).unwrap();
        log.append(&[b'c'; 4096]).unwrap();
        let full = MAX_LOG + LOG_FULL.len() as u64;
        assert_eq!(std::fs::metadata(&path).unwrap().len(), full);
        // Another process of the same engine adds nothing to a full log, not even a note.
        let mut other = LogFile::open(&path).unwrap();
        other.append(b"more").unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), full);
        let bytes = std::fs::read(&path).unwrap();
        assert!(bytes.ends_with(LOG_FULL.as_bytes()));
        assert_eq!(bytes[MAX_LOG as usize - 41..MAX_LOG as usize - 39], *b"ab");
    }

    #[cfg(unix)]
    #[test]
    fn a_cut_log_of_a_real_engine_keeps_its_tail_for_messages() {
        let path = log_in("engine");
        // 17 MiB on stderr, then a last word.
        let script = "head -c 17825792 /dev/zero >&2; echo last-word >&2";
        let mut p = Process::start(
            "sh",
            &["-c".into(), script.into()],
            Some(&path),
            "quit".into(),
        )
        .expect("sh starts");
        let until = Instant::now() + Duration::from_secs(60);
        while !p.stderr_done.load(std::sync::atomic::Ordering::SeqCst) {
            assert!(Instant::now() < until, "stderr never ended");
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(
            std::fs::metadata(&path).unwrap().len(),
            MAX_LOG + LOG_FULL.len() as u64
        );
        assert!(
            p.stderr_tail().ends_with("last-word"),
            "{}",
            p.stderr_tail()
        );
        p.kill();
    }
}
