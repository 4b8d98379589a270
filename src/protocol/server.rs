//! Any agent as an engine: [`serve`] speaks a dialect of [`crate::protocol`] (UCI, Aalina's, or
//! JSON lines), through [`Dialect`] only, on a reader and a writer (`awale engine [--protocol
//! NAME] SPEC` gives it stdin and stdout), so that Aualé, Aalina's match tools, another referee —
//! or this project's own `engine:` agent — can play it. The commands below are named as UCI
//! writes them; every dialect has the same.
//!
//! Input is read on a thread of its own, always, a line at a time: a line longer than
//! [`MAX_LINE`] bytes is skipped to its end without being kept, a line that is not UTF-8 is
//! skipped; each is answered `info string error: …`. The agent thinks on another thread:
//!
//! - `isready` is answered at once, even during a search;
//! - `stop` ends the search in progress (its best move so far, as when its clock runs out) and
//!   every search that commands still waiting for it will start (each plays at once);
//! - `quit` and the end of the input do what `stop` does, then the server exits once the
//!   waiting commands are answered;
//! - `go movetime N` (or a clock) stops the search after N ms, `go depth N` limits an agent that
//!   searches by depth to N plies ([`Agent::set_depth_limit`]; the spec's depth stays the
//!   ceiling; others say `info string` that they ignore it), `go infinite` searches until told;
//! - any other command (`position`, `go`, `ucinewgame`, `setoption`, `uci`) that comes during a
//!   search waits for its `bestmove`, so that commands piped in at once are played in order —
//!   except during `go infinite`, which such a command ends first, as `stop` would (so a second
//!   `go` answers the first's `bestmove`, then searches); at most [`MAX_WAITING`] bytes of
//!   commands wait, more are dropped with an error.
//!
//! `ucinewgame` resets the agent with the server's seed, so that the same games give the same
//! moves. Bad commands are answered `info string error: …` (an `info` whose string is
//! `error: …`, quoting at most 200 characters of the command, control characters escaped:
//! [`excerpt`]) and change nothing;
//! after a bad `position`, `go` answers `bestmove 0000` until a good one comes.
//!
//! ```
//! use awale::protocol::{server::serve, uci::Uci};
//! use awale::agents::build_agent;
//! use awale::Rules;
//! let input = "uci\nisready\nposition startpos moves Cd\ngo movetime 50\nquit\n";
//! let mut out = Vec::new();
//! serve(&Uci, &|rules| build_agent("alphabeta:depth=2", rules), Rules::abapa(), 0, input.as_bytes(), &mut out).unwrap();
//! let out = String::from_utf8(out).unwrap();
//! assert!(out.contains("uciok") && out.contains("readyok"));
//! assert!(out.lines().last().unwrap().starts_with("bestmove "));
//! ```

use std::collections::VecDeque;
use std::io::{self, BufRead, Write};
use std::sync::mpsc::{channel, sync_channel, Receiver, RecvTimeoutError, SyncSender};
use std::sync::Mutex;
use std::thread::{Scope, ScopedJoinHandle};
use std::time::Duration;

use crate::agents::{Agent, StopSignal, Turn};
use crate::error::{AwaleError, Result};
use crate::game::Game;
use crate::presets::PRESET_SPECS;
use crate::protocol::message::{excerpt, QUOTED_CHARS};
use crate::protocol::position;
use crate::protocol::{Command, Dialect, Go, Info, Reply, Start};
use crate::rules::Rules;

/// The longest command line read, in bytes, its `\n` or `\r\n` not counted (the referee's own
/// bound on an engine's lines): a longer one is skipped to its end without being kept.
pub const MAX_LINE: usize = crate::protocol::referee::MAX_LINE;

/// The most bytes of commands kept waiting for a search's `bestmove` (each counted with
/// `WAITING_OVERHEAD`, 64 bytes); a command beyond is dropped with an error.
pub const MAX_WAITING: usize = 1 << 20;

/// What one waiting command costs besides its text (its queue entry and allocation).
const WAITING_OVERHEAD: usize = 64;

/// The longest answer line written, in characters: an error is cut there.
const MAX_ANSWER_CHARS: usize = 400;

/// How many lines the reader reads ahead of the server before it waits.
const READ_AHEAD: usize = 64;

/// Builds the served agent for a rule set.
pub type MakeAgent<'a> = &'a (dyn Fn(&Rules) -> Result<Box<dyn Agent>> + Sync);

/// The output and the dialect its replies are written in.
struct Out<W> {
    writer: Mutex<W>,
    dialect: &'static dyn Dialect,
}

/// Writes `reply` as the dialect does, one line, flushed.
fn say<W: Write>(out: &Out<W>, reply: &Reply) -> Result<()> {
    let line = out.dialect.write_reply(reply);
    let mut w = out.writer.lock().unwrap_or_else(|e| e.into_inner());
    writeln!(w, "{line}")
        .and_then(|_| w.flush())
        .map_err(|e| AwaleError::Io {
            path: "the referee's pipe".into(),
            reason: e.to_string(),
        })
}

/// Answers `info string error: REASON`, the reason cut to one short printable line.
fn say_error<W: Write>(out: &Out<W>, reason: &str) -> Result<()> {
    say_text(out, format!("error: {}", excerpt(reason, MAX_ANSWER_CHARS)))
}

/// Answers `info string TEXT`.
fn say_text<W: Write>(out: &Out<W>, text: String) -> Result<()> {
    say(
        out,
        &Reply::Info(Info {
            string: Some(text),
            ..Info::default()
        }),
    )
}

/// Answers `bestmove MOVE` (`0000`: no move).
fn say_move<W: Write>(out: &Out<W>, mv: String) -> Result<()> {
    say(out, &Reply::BestMove(mv))
}

/// What the server is told: a line read, or how reading ended, or that the search answered.
enum Event {
    /// A line, without its end.
    Line(String),
    /// A line longer than [`MAX_LINE`], skipped.
    TooLong,
    /// A line that is not UTF-8, skipped (as read with replacement characters, for the error).
    NotUtf8(String),
    /// The end of the input, or the reason reading failed.
    End(Option<String>),
    /// The search in progress wrote its `bestmove` (or panicked).
    Answered,
}

/// How [`read_bounded`] ended a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bounded {
    /// A line of at most the limit, in the buffer.
    Line,
    /// A longer line, read to its end and dropped (the buffer holds nothing of it).
    TooLong,
    /// The end of the input, before any byte of a line.
    End,
}

/// Reads one line into `line` (emptied first), without its `\n` or `\r\n`, keeping at most
/// `max` bytes of it: a longer line is read to its end and thrown away as it comes, so that
/// what a line costs in memory is bounded whatever its length.
fn read_bounded(input: &mut impl BufRead, max: usize, line: &mut Vec<u8>) -> io::Result<Bounded> {
    line.clear();
    let mut too_long = false;
    let mut any = false;
    loop {
        let chunk = match input.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            break;
        }
        any = true;
        let newline = chunk.iter().position(|&b| b == b'\n');
        let part = &chunk[..newline.unwrap_or(chunk.len())];
        // One byte over the limit is kept, for a "\r" before the "\n".
        if !too_long && line.len() + part.len() <= max + 1 {
            line.extend_from_slice(part);
        } else if !too_long {
            too_long = true;
            *line = Vec::new();
        }
        let used = newline.map_or(chunk.len(), |i| i + 1);
        input.consume(used);
        if newline.is_some() {
            break;
        }
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    Ok(if too_long || line.len() > max {
        line.clear();
        Bounded::TooLong
    } else if any {
        Bounded::Line
    } else {
        Bounded::End
    })
}

/// The reader thread: hands every line of `input` to the server, until its end or the server
/// is gone.
fn read_lines(mut input: impl BufRead, events: SyncSender<Event>) {
    let mut buf = Vec::new();
    loop {
        let event = match read_bounded(&mut input, MAX_LINE, &mut buf) {
            Ok(Bounded::Line) => match std::str::from_utf8(&buf) {
                Ok(text) => Event::Line(text.to_owned()),
                Err(_) => Event::NotUtf8(String::from_utf8_lossy(&buf).into_owned()),
            },
            Ok(Bounded::TooLong) => Event::TooLong,
            Ok(Bounded::End) => Event::End(None),
            Err(e) => Event::End(Some(e.to_string())),
        };
        let end = matches!(event, Event::End(_));
        if events.send(event).is_err() || end {
            return;
        }
    }
}

/// Tells the server that a search answered when it is dropped: at the end of the search's
/// thread, or as it unwinds from a panic.
struct Answered(SyncSender<Event>);

impl Drop for Answered {
    fn drop(&mut self) {
        let _ = self.0.send(Event::Answered);
    }
}

/// A search in progress: its thread gives the agent back.
struct SearchThread<'s> {
    stop: StopSignal,
    /// `go infinite`: the next command other than `isready` ends it.
    infinite: bool,
    thread: ScopedJoinHandle<'s, Box<dyn Agent>>,
}

/// A command that came during a search, played after its `bestmove`.
struct Waiting {
    line: String,
    /// A `stop` or `quit` came after it: a search it starts stops at once.
    stopped: bool,
}

/// The server's state between commands.
struct Server<'a, 's, 'env, W: Write + Send> {
    scope: &'s Scope<'s, 'env>,
    make: MakeAgent<'a>,
    rules: Rules,
    seed: u64,
    agent: Option<Box<dyn Agent>>,
    /// The position to think on; `None` after a bad `position`.
    game: Option<Game>,
    search: Option<SearchThread<'s>>,
    /// Commands that came during the search, in order.
    waiting: VecDeque<Waiting>,
    /// Their bytes, counted as [`MAX_WAITING`] says.
    waiting_bytes: usize,
    /// `quit` or the end of the input came: every search stops at once, input is ignored.
    quitting: bool,
    /// Why reading failed, if it did.
    read_error: Option<String>,
    /// For the searches' [`Answered`].
    events: SyncSender<Event>,
    out: &'env Out<W>,
}

/// Serves the agent `make` builds in `dialect`, under `rules` until the referee sets the variant
/// option (`UCI_Variant`), reading commands from `input` (on a thread of its own) and answering
/// on `output`, until `quit` or the end of the input. After `quit`, that thread stays blocked on
/// `input` until a line or its end comes (a process that exits ends it).
pub fn serve<W: Write + Send>(
    dialect: &'static dyn Dialect,
    make: MakeAgent<'_>,
    rules: Rules,
    seed: u64,
    input: impl BufRead + Send + 'static,
    output: W,
) -> Result<()> {
    if let Some(reason) = position::unfit_rules(&rules) {
        return Err(AwaleError::InvalidRules(reason));
    }
    let mut agent = make(&rules)?;
    agent.reset(seed);
    let (events, inbox) = sync_channel(READ_AHEAD);
    let lines = events.clone();
    std::thread::Builder::new()
        .name("awale-uci-input".into())
        .spawn(move || read_lines(input, lines))
        .map_err(|e| AwaleError::Io {
            path: "the referee's pipe".into(),
            reason: format!("cannot start a reader thread: {e}"),
        })?;
    let out = Out {
        writer: Mutex::new(output),
        dialect,
    };
    std::thread::scope(|scope| {
        let mut server = Server {
            scope,
            make,
            rules,
            seed,
            agent: Some(agent),
            game: Some(Game::new(rules)),
            search: None,
            waiting: VecDeque::new(),
            waiting_bytes: 0,
            quitting: false,
            read_error: None,
            events,
            out: &out,
        };
        let run = server.run(&inbox);
        server.shut_down(&inbox);
        run?;
        match server.read_error.take() {
            Some(reason) => Err(AwaleError::Io {
                path: "the referee's pipe".into(),
                reason,
            }),
            None => Ok(()),
        }
    })
}

impl<'s, 'env, W: Write + Send> Server<'_, 's, 'env, W> {
    /// Handles what comes until `quit` or the end of the input, and what waits after them.
    fn run(&mut self, inbox: &Receiver<Event>) -> Result<()> {
        while !(self.quitting && self.search.is_none() && self.waiting.is_empty()) {
            // The server holds a sender: the channel cannot close while it waits.
            let Ok(event) = inbox.recv() else {
                return Ok(());
            };
            match event {
                Event::Answered => {
                    self.take_back();
                    self.play_waiting()?;
                }
                _ if self.quitting => {}
                Event::Line(line) => self.line(line)?,
                Event::TooLong => say_error(
                    self.out,
                    &format!("a line longer than {MAX_LINE} bytes (skipped)"),
                )?,
                Event::NotUtf8(text) => say_error(
                    self.out,
                    &format!(
                        "a line that is not UTF-8 (skipped): '{}'",
                        excerpt(&text, QUOTED_CHARS)
                    ),
                )?,
                Event::End(error) => {
                    self.read_error = error;
                    self.quit();
                }
            }
        }
        Ok(())
    }

    /// Stops everything and waits for the search in progress, if any (after an error).
    fn shut_down(&mut self, inbox: &Receiver<Event>) {
        self.quit();
        self.waiting.clear();
        while self.search.is_some() {
            match inbox.recv() {
                Ok(Event::Answered) | Err(_) => self.take_back(),
                Ok(_) => {}
            }
        }
    }

    /// One line read: `isready`, `stop` and `quit` act at once; other commands wait while a
    /// search runs.
    fn line(&mut self, line: String) -> Result<()> {
        if line.trim().is_empty() {
            return Ok(());
        }
        let command = match self.out.dialect.parse_command(&line) {
            Ok(command) => command,
            Err(reason) => return say_error(self.out, &reason),
        };
        match command {
            Command::IsReady => say(self.out, &Reply::ReadyOk),
            Command::Stop => {
                self.stop();
                Ok(())
            }
            Command::Quit => {
                self.quit();
                Ok(())
            }
            _ if self.search.is_some() => self.wait(line),
            command => self.handle(command, false),
        }
    }

    /// Keeps a command for after the search's `bestmove` (ending a `go infinite` first).
    fn wait(&mut self, line: String) -> Result<()> {
        if let Some(search) = self.search.as_ref().filter(|s| s.infinite) {
            search.stop.stop();
        }
        let cost = line.len() + WAITING_OVERHEAD;
        if self.waiting_bytes + cost > MAX_WAITING {
            return say_error(
                self.out,
                &format!(
                    "more than {MAX_WAITING} bytes of commands wait for the search to end: '{}' dropped",
                    excerpt(&line, 40)
                ),
            );
        }
        self.waiting_bytes += cost;
        self.waiting.push_back(Waiting {
            line,
            stopped: false,
        });
        Ok(())
    }

    /// Plays the waiting commands in order, until one starts a search.
    fn play_waiting(&mut self) -> Result<()> {
        while self.search.is_none() {
            let Some(next) = self.waiting.pop_front() else {
                break;
            };
            self.waiting_bytes -= next.line.len() + WAITING_OVERHEAD;
            match self.out.dialect.parse_command(&next.line) {
                Ok(command) => self.handle(command, next.stopped)?,
                Err(reason) => say_error(self.out, &reason)?,
            }
        }
        Ok(())
    }

    /// `stop`: ends the search in progress and every search the waiting commands start.
    fn stop(&mut self) {
        if let Some(search) = &self.search {
            search.stop.stop();
        }
        for waiting in &mut self.waiting {
            waiting.stopped = true;
        }
    }

    /// `quit` or the end of the input: `stop`, then exit once the waiting commands are played.
    fn quit(&mut self) {
        self.stop();
        self.quitting = true;
    }

    /// Handles a command while no search runs; a `go` starts one (stopped at once if `stopped`).
    fn handle(&mut self, command: Command, stopped: bool) -> Result<()> {
        match command {
            Command::Uci => {
                let name = self.agent.as_ref().map_or(String::new(), |a| a.name());
                for (key, value) in [
                    ("name", format!("awale {name}")),
                    ("author", "the awale authors".to_string()),
                ] {
                    let key = key.to_string();
                    say(self.out, &Reply::Id { key, value })?;
                }
                let vars = PRESET_SPECS
                    .iter()
                    .filter(|s| {
                        s.parse::<Rules>()
                            .is_ok_and(|r| position::unfit_rules(&r).is_none())
                    })
                    .map(|s| s.to_string())
                    .collect();
                say(
                    self.out,
                    &Reply::Option {
                        name: self.out.dialect.variant_option().to_string(),
                        kind: "combo".into(),
                        default: Some(self.rules.to_string()),
                        vars,
                    },
                )?;
                say(self.out, &Reply::UciOk)
            }
            Command::IsReady => say(self.out, &Reply::ReadyOk),
            Command::NewGame => {
                if let Some(a) = self.agent.as_mut() {
                    a.reset(self.seed);
                }
                self.game = Some(Game::new(self.rules));
                Ok(())
            }
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref()),
            Command::Position { start, moves, .. } => {
                self.game = match self.position(&start, &moves) {
                    Ok(game) => Some(game),
                    Err(e) => {
                        say_error(self.out, &e.to_string())?;
                        None
                    }
                };
                Ok(())
            }
            Command::Go(go) => self.go(&go, stopped),
            Command::Stop | Command::Quit => Ok(()),
        }
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<()> {
        if name != self.out.dialect.variant_option() {
            return say_error(
                self.out,
                &format!("unknown option '{}'", excerpt(name, QUOTED_CHARS)),
            );
        }
        let rules = match value.unwrap_or("").parse::<Rules>() {
            Ok(r) => match position::unfit_rules(&r) {
                None => r,
                Some(reason) => return say_error(self.out, &reason),
            },
            Err(e) => return say_error(self.out, &e.to_string()),
        };
        match (self.make)(&rules) {
            Ok(mut agent) => {
                agent.reset(self.seed);
                self.agent = Some(agent);
                self.rules = rules;
                self.game = Some(Game::new(rules));
                Ok(())
            }
            Err(e) => say_error(self.out, &e.to_string()),
        }
    }

    /// The most moves a `position` may list: the rules' ply limit, else what a line can hold.
    fn most_moves(&self) -> usize {
        match self.rules.max_plies {
            0 => MAX_LINE,
            plies => plies as usize,
        }
    }

    fn position(&self, start: &Start, moves: &[String]) -> Result<Game> {
        let most = self.most_moves();
        if moves.len() > most {
            return Err(AwaleError::BadMoveNotation {
                text: format!("{} moves", moves.len()),
                reason: format!("a game of these rules has at most {most} plies"),
            });
        }
        let state = match start {
            Start::StartPos => Game::new(self.rules).state().to_owned(),
            Start::Fen(fen) => position::parse_fen(&self.rules, fen)?,
        };
        let mut game = Game::from_state(self.rules, state);
        for mv in moves {
            if game.is_over() {
                return Err(AwaleError::BadMoveNotation {
                    text: mv.clone(),
                    reason: "the game is over before this move".into(),
                });
            }
            let house = position::read_move(&self.rules, game.state(), mv)?;
            game.apply(house)?;
        }
        Ok(game)
    }

    /// Starts a search on the current position, on a thread of its own.
    fn go(&mut self, go: &Go, stopped: bool) -> Result<()> {
        let Some(game) = self.game.clone().filter(|g| !g.is_over()) else {
            if self.game.is_none() {
                say_error(self.out, "no valid position")?;
            }
            return say_move(self.out, "0000".into());
        };
        let Some(mut agent) = self.agent.take() else {
            return say_move(self.out, "0000".into());
        };
        let stop = StopSignal::new();
        agent.set_stop(stop.clone());
        if !agent.set_depth_limit(go.depth) {
            if let Some(depth) = go.depth {
                let name = agent.name();
                say_text(
                    self.out,
                    format!("{name} has no depth: go depth {depth} ignored"),
                )?;
            }
        }
        let move_time_ms = go.move_time_ms(game.to_move());
        let (done, ended) = channel::<()>();
        if stopped || self.quitting || move_time_ms == Some(0) {
            stop.stop();
        } else if let Some(ms) = move_time_ms {
            let stop = stop.clone();
            self.scope.spawn(move || {
                if let Err(RecvTimeoutError::Timeout) =
                    ended.recv_timeout(Duration::from_millis(ms))
                {
                    stop.stop();
                }
            });
        }
        let out = self.out;
        let answered = Answered(self.events.clone());
        let thread = self.scope.spawn(move || {
            let _answered = answered;
            let result = agent.select(&Turn::from_game(&game));
            drop(done);
            let rules = *game.rules();
            let answer = match result {
                Ok(house) => {
                    if let Some(t) = agent.thoughts() {
                        let info = Info {
                            depth: t.depth,
                            score_cp: t
                                .value
                                .filter(|_| t.unit.starts_with("seeds"))
                                .map(|v| (v * 100.0).round() as i64),
                            nodes: t.nodes,
                            pv: Vec::new(),
                            string: Some(t.summary.clone()),
                        };
                        let _ = say(out, &Reply::Info(info));
                    }
                    position::write_move(&rules, game.state(), house)
                }
                Err(e) => {
                    let _ = say_error(out, &e.to_string());
                    "0000".to_string()
                }
            };
            let _ = say_move(out, answer);
            agent
        });
        self.search = Some(SearchThread {
            stop,
            infinite: go.infinite,
            thread,
        });
        Ok(())
    }

    /// Takes the agent back from the search that answered (a new one if it panicked).
    fn take_back(&mut self) {
        let Some(search) = self.search.take() else {
            return;
        };
        match search.thread.join() {
            Ok(agent) => self.agent = Some(agent),
            Err(_) => {
                if let Ok(mut agent) = (self.make)(&self.rules) {
                    agent.reset(self.seed);
                    self.agent = Some(agent);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::build_agent;

    fn run(spec: &str, input: &str) -> String {
        let mut out = Vec::new();
        serve(
            &crate::protocol::uci::Uci,
            &|r| build_agent(spec, r),
            Rules::abapa(),
            0,
            std::io::Cursor::new(input.as_bytes().to_vec()),
            &mut out,
        )
        .unwrap();
        String::from_utf8(out).unwrap()
    }

    /// Reads every line of `input` with [`read_bounded`] at `max` bytes.
    fn bounded_lines(input: &[u8], max: usize) -> Vec<(Bounded, Vec<u8>)> {
        // A small buffer, so that lines span several reads.
        let mut input = std::io::BufReader::with_capacity(3, input);
        let mut found = Vec::new();
        let mut line = Vec::new();
        loop {
            let how = read_bounded(&mut input, max, &mut line).unwrap();
            if how == Bounded::End {
                return found;
            }
            found.push((how, line.clone()));
        }
    }

    #[test]
    fn a_line_over_the_limit_is_skipped_to_its_end_and_the_next_is_read() {
        let input = b"abcd\r\nabcde\nabcdefghij\r\nab\n\nabcd";
        let lines = bounded_lines(input, 4);
        let expected: Vec<(Bounded, &[u8])> = vec![
            (Bounded::Line, b"abcd"),
            (Bounded::TooLong, b""),
            (Bounded::TooLong, b""),
            (Bounded::Line, b"ab"),
            (Bounded::Line, b""),
            (Bounded::Line, b"abcd"),
        ];
        let lines: Vec<(Bounded, &[u8])> = lines.iter().map(|(b, l)| (*b, &l[..])).collect();
        assert_eq!(lines, expected);
    }

    /// A server on pipes, on a thread of its own, driven a line at a time.
    struct Session {
        input: Option<std::io::PipeWriter>,
        lines: std::sync::mpsc::Receiver<String>,
        server: Option<std::thread::JoinHandle<Result<()>>>,
    }

    impl Session {
        fn start(spec: &'static str) -> Session {
            let (input, to_server) = std::io::pipe().map(|(r, w)| (w, r)).unwrap();
            let (from_server, output) = std::io::pipe().unwrap();
            let server = std::thread::spawn(move || {
                serve(
                    &crate::protocol::uci::Uci,
                    &|r| build_agent(spec, r),
                    Rules::abapa(),
                    0,
                    std::io::BufReader::new(to_server),
                    output,
                )
            });
            let (send, lines) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                for line in std::io::BufReader::new(from_server).lines() {
                    let Ok(line) = line else { return };
                    if send.send(line).is_err() {
                        return;
                    }
                }
            });
            Session {
                input: Some(input),
                lines,
                server: Some(server),
            }
        }

        fn send(&mut self, text: &str) {
            self.input
                .as_mut()
                .unwrap()
                .write_all(text.as_bytes())
                .unwrap();
        }

        /// The lines answered up to the first that starts with `prefix` (a hang guard of 60 s).
        fn until(&self, prefix: &str) -> Vec<String> {
            let mut seen = Vec::new();
            loop {
                match self.lines.recv_timeout(Duration::from_secs(60)) {
                    Ok(line) => {
                        let found = line.starts_with(prefix);
                        seen.push(line);
                        if found {
                            return seen;
                        }
                    }
                    Err(_) => panic!("no '{prefix}' after {seen:?}"),
                }
            }
        }

        /// Closes the input and waits for the server to end.
        fn close(mut self) -> Result<()> {
            drop(self.input.take());
            self.server.take().unwrap().join().unwrap()
        }
    }

    #[test]
    fn go_depth_limits_a_search_by_depth_and_is_named_ignored_elsewhere() {
        let mut ab = Session::start("alphabeta:depth=30");
        ab.send("position startpos\ngo depth 3\n");
        let first = ab.until("bestmove");
        ab.send("position startpos moves C\ngo depth 2\n");
        let second = ab.until("bestmove");
        assert!(first[0].starts_with("info depth 3 "), "{first:?}");
        assert!(second[0].starts_with("info depth 2 "), "{second:?}");
        ab.close().unwrap();
        let mut greedy = Session::start("greedy");
        greedy.send("position startpos\ngo depth 3\n");
        let answer = greedy.until("bestmove");
        assert_eq!(
            answer[0],
            "info string greedy has no depth: go depth 3 ignored"
        );
        greedy.close().unwrap();
    }

    #[test]
    fn a_second_go_during_go_infinite_answers_the_first_then_searches() {
        let mut s = Session::start("alphabeta:depth=40");
        s.send("position startpos\ngo infinite\nisready\n");
        s.until("readyok");
        s.send("go movetime 50\n");
        let first = s.until("bestmove");
        let second = s.until("bestmove");
        assert!(first.last().unwrap().len() > "bestmove ".len(), "{first:?}");
        assert!(
            second.last().unwrap().len() > "bestmove ".len(),
            "{second:?}"
        );
        s.send("go infinite\nstop\n");
        s.until("bestmove");
        s.close().unwrap();
    }

    #[test]
    fn bad_commands_are_answered_and_change_nothing() {
        let out = run(
            "greedy",
            "jump\nposition fen 1-2-3\ngo movetime 10\nposition startpos moves CC\ngo movetime 10\n\
             setoption name Hash value 3\nsetoption name UCI_Variant value oware3\n",
        );
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines[0].contains("unknown command 'jump'"), "{out}");
        assert!(
            lines[1].contains("error") && lines[1].contains("fields"),
            "{out}"
        );
        assert!(lines.contains(&"bestmove 0000"), "{out}");
        assert!(
            out.contains("a house of South but North is to move"),
            "{out}"
        );
        assert!(out.contains("unknown option 'Hash'"), "{out}");
        assert!(out.contains("2 players"), "{out}");
    }

    #[test]
    fn json_lines_are_served_through_the_same_server() {
        let mut out = Vec::new();
        let input = "{\"cmd\":\"hello\"}\n{\"cmd\":\"setoption\",\"name\":\"variant\",\"value\":\"wari\"}\n\
                     go movetime 5\n{\"cmd\":\"position\",\"start\":\"startpos\",\"moves\":[\"C\"]}\n\
                     {\"cmd\":\"go\",\"movetime\":5}\n";
        serve(
            &crate::protocol::jsonl::JsonLines,
            &|r| build_agent("greedy", r),
            Rules::abapa(),
            0,
            std::io::Cursor::new(input.as_bytes().to_vec()),
            &mut out,
        )
        .unwrap();
        let out = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], r#"{"reply":"id","name":"awale greedy"}"#, "{out}");
        assert!(lines[2].starts_with(r#"{"reply":"option","name":"variant","type":"combo","default":"abapa","vars":["abapa""#), "{out}");
        assert_eq!(lines[3], r#"{"reply":"hellook"}"#);
        assert!(
            lines[4].starts_with(r#"{"reply":"info","string":"error: not a command ("#)
                && lines[4].ends_with(": 'go movetime 5'\"}"),
            "{out}"
        );
        // North's house d after C: a legal move of wari's North.
        let last = lines.last().unwrap();
        assert!(
            last.starts_with(r#"{"reply":"bestmove","move":""#)
                && last.chars().nth(28).unwrap().is_ascii_lowercase(),
            "{out}"
        );
    }

    #[test]
    fn the_variant_switches_the_rules() {
        let out = run(
            "greedy",
            "uci\nsetoption name UCI_Variant value wari\nposition startpos\ngo movetime 5\n",
        );
        assert!(
            out.contains("var wari") && out.contains("default abapa"),
            "{out}"
        );
        assert!(
            out.trim_end()
                .lines()
                .last()
                .unwrap()
                .starts_with("bestmove "),
            "{out}"
        );
    }
}
