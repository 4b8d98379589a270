//! `engine:`: an agent that is a program in another process, spoken to in a dialect of
//! [`crate::protocol`] (`protocol=uci`, Aalina's UCI, the default; `protocol=jsonl`, JSON
//! lines), through [`Dialect`] only. It plays wherever an agent spec is accepted — tournaments,
//! matches, ladders, the scorecard, `awale play`, Python — except `awale serve`, which never runs
//! a program a client names.
//!
//! **The engine is a program that fails.** Every way it can go wrong — it does not start, never
//! answers `uci` or `isready`, crashes, closes its output, hangs past its time, floods its output,
//! writes an over-long line, answers an unparsable or illegal move — is an error of its
//! [`Agent::select`] naming what happened, and [`Agent::forfeits`] is true: a tournament records
//! the game as lost by forfeit (on time, for a move past `move_time_ms + margin`) and plays on.
//! After a fault the process is killed; the next game starts a new one.
//!
//! **Processes.** The agents built from one spec share a pool: each game thread keeps one process
//! per seat between games (`ucinewgame` starts the next), so a tournament starts each engine once
//! per thread, not once per game. A process is started in its own process group and as the
//! subreaper of its own descendants, killed with all it started when the pool goes (the entrant of
//! a tournament, a Python `Agent`), and killed by the kernel if the thread that started it dies
//! (`PR_SET_PDEATHSIG`): no engine outlives its referee. What remains possible (a crashed
//! engine's orphans outside the `awale` binary, a SIGKILLed referee's grandchildren) is in
//! `src/protocol/referee/tree.rs` and docs/engines.md.
//!
//! **Stale answers.** Before every `go` the referee sends `isready` and reads up to `readyok`: a
//! `bestmove` there (a second answer, one before `go`) is a fault, never the next move.
//!
//! **Rules.** The messages carry 2-player boards of 6 houses. An engine says which rule sets it
//! plays in a combo option (`UCI_Variant` in UCI, [`Dialect::variant_option`]; it is set before
//! the first game); one that lists none
//! plays `rules=` (default abapa, Aalina's). Building the agent for other rules is refused, before
//! any game: the first agent of a pool starts its engine and checks it.
//!
//! ```no_run
//! use awale::agents::{Agent, Turn};
//! use awale::{Game, Rules};
//! let registry = awale::agent_kinds::available();
//! let spec = "engine:cmd=/opt/aalina/aalina,move_time_ms=100".parse().unwrap();
//! let mut aalina = registry.build(&spec, &Rules::abapa()).unwrap();
//! let game = Game::new(Rules::abapa());
//! let house = aalina.select(&Turn::from_game(&game)).unwrap();
//! ```

mod process;
mod settings;
mod tree;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

pub use process::{log_path, LOG_FULL, MAX_LINE, MAX_LINES, MAX_LOG};
pub use settings::{ProgramSettings, MAX_ENGINES_FILE};
pub use tree::become_subreaper;

use self::process::{Process, ReadFault};
use crate::agents::kind::{AgentKind, Shared};
use crate::agents::registry::Registry;
use crate::agents::{no_move, Agent, AgentSpec, Thoughts, Turn};
use crate::error::{AwaleError, Result};
use crate::protocol::message::{excerpt, printable, QUOTED_CHARS};
use crate::protocol::{position, Command, Dialect, Go, Info, Reply, Start};
use crate::rules::Rules;
use crate::state::State;

/// The kind `engine`: its options and help. The agents of one plan (one tournament entrant, one
/// Python `Agent`) share a pool of processes, killed when the plan and its agents are gone.
pub static KIND: AgentKind<ProgramSettings> = AgentKind {
    kind: "engine",
    summary: "a program in another process, over UCI or JSON lines (docs/engines.md)",
    options: settings::OPTIONS,
    defaults: ProgramSettings::default,
    instant: false,
    // The program's memory is its own process's, not this one's.
    memory: |_| 0,
    shared: Some(|| Arc::new(Pool::default()) as Shared),
    build: |settings, spec, rules, shared| {
        let pool = shared
            .cloned()
            .and_then(|s| s.downcast::<Pool>().ok())
            .unwrap_or_default();
        ProgramAgent::build(settings, spec, rules, pool).map(|a| Box::new(a) as Box<dyn Agent>)
    },
};

/// Adds `engine` to `registry`: each factory the registry makes for an `engine:` spec (one per
/// tournament entrant) has its own pool of processes, killed when the factory goes.
pub fn register(registry: &mut Registry) {
    registry.register_kind(&KIND);
}

/// The idle processes of one spec, by the thread that started them; killed when it goes.
#[derive(Default)]
struct Pool {
    idle: Mutex<Vec<(ThreadId, Process)>>,
    /// Whether a first process passed the handshake (later builds start theirs lazily).
    checked: Mutex<bool>,
}

impl Pool {
    fn take(&self) -> Option<Process> {
        let me = std::thread::current().id();
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        let i = idle.iter().position(|(t, _)| *t == me)?;
        Some(idle.swap_remove(i).1)
    }

    fn give(&self, process: Process) {
        let me = std::thread::current().id();
        self.idle
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((me, process));
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        let idle = std::mem::take(self.idle.get_mut().unwrap_or_else(|e| e.into_inner()));
        // Quit them side by side: each may take its grace time.
        std::thread::scope(|s| {
            for (_, p) in idle {
                s.spawn(move || p.quit(Duration::from_millis(200)));
            }
        });
    }
}

/// The game as the engine was last told it: where it started and the moves since.
struct Line {
    start: State,
    moves: Vec<String>,
    /// The position after the engine's own last move.
    after_mine: State,
}

/// A program in another process as an agent (see the [module docs](self)).
pub struct ProgramAgent {
    settings: ProgramSettings,
    rules: Rules,
    name: String,
    pool: Arc<Pool>,
    process: Option<Process>,
    new_game: bool,
    line: Option<Line>,
    thoughts: Option<Thoughts>,
    log: Option<PathBuf>,
}

impl ProgramAgent {
    fn build(
        settings: ProgramSettings,
        spec: &AgentSpec,
        rules: &Rules,
        pool: Arc<Pool>,
    ) -> Result<ProgramAgent> {
        if settings.cmd.is_none() {
            return Err(spec.error("engine needs cmd=PROGRAM (or file=ENGINES.toml,id=NAME)"));
        }
        if let Some(reason) = position::unfit_rules(rules) {
            return Err(spec.error(reason));
        }
        let mut agent = ProgramAgent {
            log: settings.log.clone(),
            settings,
            rules: *rules,
            name: spec.display_name(),
            pool,
            process: None,
            new_game: true,
            line: None,
            thoughts: None,
        };
        let pool = agent.pool.clone();
        let mut checked = pool.checked.lock().unwrap_or_else(|e| e.into_inner());
        if !*checked {
            // The first agent of a pool starts its engine now: a program that cannot play these
            // rules, or cannot start, is refused before any game.
            agent.connect().map_err(|reason| spec.error(reason))?;
            *checked = true;
        }
        drop(checked);
        Ok(agent)
    }

    fn fail(&self, reason: impl Into<String>) -> AwaleError {
        AwaleError::AgentFailed {
            agent: self.name.clone(),
            reason: reason.into(),
        }
    }

    /// A process for this thread: one from the pool, or a new one after its handshake.
    fn connect(&mut self) -> std::result::Result<(), String> {
        if self.process.is_some() {
            return Ok(());
        }
        while let Some(mut p) = self.pool.take() {
            if p.alive() {
                if let Some(log) = &self.log {
                    p.set_log(log)?;
                }
                self.process = Some(p);
                return Ok(());
            }
        }
        let cmd = self.settings.cmd.clone().unwrap_or_default();
        let quit = self.settings.protocol.write_command(&Command::Quit);
        let mut p = Process::start(&cmd, &self.settings.args, self.log.as_deref(), quit)?;
        handshake(&mut p, &self.settings, &self.rules)?;
        self.process = Some(p);
        Ok(())
    }

    /// The position command for `state`: the moves since the engine's last move when `state`
    /// follows from it by one move of the opponent, else a FEN.
    fn position(&mut self, state: &State) -> Command {
        let rules = self.rules;
        let follows = self.line.as_ref().and_then(|line| {
            let before = &line.after_mine;
            before.legal_moves(&rules).into_iter().find(|&h| {
                let mut s = *before;
                s.apply(&rules, h).is_ok() && same_position(&s, state)
            })
        });
        match (follows, self.line.as_mut()) {
            (Some(h), Some(line)) => {
                line.moves
                    .push(position::write_move(&rules, &line.after_mine, h))
            }
            _ => {
                self.line = Some(Line {
                    start: *state,
                    moves: Vec::new(),
                    after_mine: *state,
                })
            }
        }
        let line = self.line.as_ref().expect("set above");
        let start = if same_position(&line.start, &State::initial(&rules, 0)) {
            Start::StartPos
        } else {
            Start::Fen(position::format_fen(&rules, &line.start))
        };
        Command::Position {
            start,
            moves: line.moves.clone(),
            legal: Some(position::legal_moves(&rules, state)),
        }
    }

    /// Asks the engine for its move in `state`; a fault kills the process. The position (after
    /// `ucinewgame` at a new game) is followed by `isready`, and `go` waits for `readyok`: what
    /// the engine wrote before is read and dropped, and a `bestmove` among it (a second answer
    /// to the last `go`, or one before this `go`) is a fault, never taken as this move.
    fn ask(&mut self, state: &State) -> std::result::Result<String, String> {
        self.connect()?;
        let dialect = self.settings.protocol;
        let position = self.position(state);
        let move_time_ms = self.settings.move_time_ms;
        let go = Command::Go(Go {
            movetime: Some(move_time_ms),
            ..Go::default()
        });
        let init = Duration::from_millis(self.settings.init_ms);
        let p = self.process.as_mut().ok_or("no process")?;
        if self.new_game {
            send(p, dialect, &Command::NewGame)?;
        }
        send(p, dialect, &position)?;
        ready(p, dialect, init)?;
        self.new_game = false;
        send(p, dialect, &go)?;
        let deadline =
            Instant::now() + Duration::from_millis(move_time_ms + self.settings.margin_ms);
        // The last line with a depth or a score, and the last `string …` (either line).
        let mut info = Info::default();
        let mut text: Option<String> = None;
        let answer = p.read_until(
            deadline,
            |l| {
                matches!(
                    dialect.parse_reply(l),
                    Ok(Some(Reply::BestMove(_))) | Err(_)
                )
            },
            |l| {
                if let Ok(Some(Reply::Info(i))) = dialect.parse_reply(l) {
                    if i.string.is_some() {
                        text.clone_from(&i.string);
                    }
                    if i.depth.is_some() || i.score_cp.is_some() {
                        info = i;
                    }
                }
            },
        );
        self.thoughts = thoughts(&info, text.as_deref());
        match answer {
            Ok(line) => match dialect.parse_reply(&line) {
                Ok(Some(Reply::BestMove(mv))) => Ok(mv),
                Err(reason) => Err(format!("wrote a line that is {reason}")),
                _ => Err(format!("unexpected answer '{}'", printable(&line))),
            },
            Err(ReadFault::Timeout) => Err(format!(
                "lost on time: no bestmove within {move_time_ms} + {} ms",
                self.settings.margin_ms
            )),
            Err(ReadFault::Broken(reason)) => Err(reason),
        }
    }
}

/// Whether two states are the same position (houses, stores, mover), whatever their ply.
fn same_position(a: &State, b: &State) -> bool {
    a.pits() == b.pits() && a.scores() == b.scores() && a.to_move() == b.to_move()
}

/// Sends `command` as its dialect writes it.
fn send(
    p: &mut Process,
    dialect: &dyn Dialect,
    command: &Command,
) -> std::result::Result<(), String> {
    p.send(&dialect.write_command(command))
}

/// `uci` … `uciok`, the rules checked and set, the file's options set, `isready` … `readyok`.
/// A line the dialect forbids (JSON lines: one that is not a reply) is a fault.
fn handshake(
    p: &mut Process,
    settings: &ProgramSettings,
    rules: &Rules,
) -> std::result::Result<(), String> {
    let dialect = settings.protocol;
    let init = Duration::from_millis(settings.init_ms);
    send(p, dialect, &Command::Uci)?;
    let mut variants: Option<Vec<String>> = None;
    let hello = dialect.write_command(&Command::Uci);
    let ok = dialect.write_reply(&Reply::UciOk);
    let last = p
        .read_until(
            Instant::now() + init,
            |l| matches!(dialect.parse_reply(l), Ok(Some(Reply::UciOk)) | Err(_)),
            |l| {
                if let Ok(Some(Reply::Option { name, vars, .. })) = dialect.parse_reply(l) {
                    if name == dialect.variant_option() {
                        variants = Some(vars);
                    }
                }
            },
        )
        .map_err(|f| match f {
            ReadFault::Timeout => format!("'{}' did not answer {hello} within {init:?}", p.command),
            ReadFault::Broken(r) => format!("'{}' {r} before {ok}", p.command),
        })?;
    if let Err(reason) = dialect.parse_reply(&last) {
        return Err(format!(
            "'{}' wrote a line that is {reason} before {ok}",
            p.command
        ));
    }
    let declared = variants.clone().unwrap_or_else(|| {
        vec![settings
            .rules
            .clone()
            .unwrap_or_else(|| crate::protocol::message::DEFAULT_VARIANT.to_string())]
    });
    let fits = |name: &String| {
        name.parse::<Rules>().is_ok_and(|v| {
            let mut game = *rules;
            game.max_plies = v.max_plies;
            game == v
        })
    };
    let Some(variant) = declared.iter().find(|v| fits(v)).cloned() else {
        return Err(format!(
            "'{}' plays {} but the game's rules are '{rules}'{}",
            p.command,
            printable(&declared.join(", ")),
            if variants.is_none() {
                format!(
                    " (it lists no {} option; rules= says what it plays)",
                    dialect.variant_option()
                )
            } else {
                String::new()
            }
        ));
    };
    if variants.is_some() {
        set_option(p, dialect, dialect.variant_option(), &variant)?;
    }
    for (name, value) in &settings.options {
        set_option(p, dialect, name, value)?;
    }
    ready(p, dialect, init)
}

/// Sends `setoption name NAME value VALUE`, refused when the name or value would break the line
/// (a line end or NUL in it would send a command of its own; [`settings::check_option`]).
fn set_option(
    p: &mut Process,
    dialect: &dyn Dialect,
    name: &str,
    value: &str,
) -> std::result::Result<(), String> {
    settings::check_option(name, value)?;
    send(
        p,
        dialect,
        &Command::SetOption {
            name: name.into(),
            value: Some(value.into()),
        },
    )
}

/// `isready`, then waits for `readyok`, dropping the lines before it; a `bestmove` among them
/// is a fault ([`unasked`]): no move was asked for. So is a line the dialect forbids.
fn ready(
    p: &mut Process,
    dialect: &dyn Dialect,
    within: Duration,
) -> std::result::Result<(), String> {
    send(p, dialect, &Command::IsReady)?;
    let ok = dialect.write_reply(&Reply::ReadyOk);
    let line = p
        .read_until(
            Instant::now() + within,
            |l| {
                matches!(
                    dialect.parse_reply(l),
                    Ok(Some(Reply::ReadyOk | Reply::BestMove(_))) | Err(_)
                )
            },
            |_| {},
        )
        .map_err(|f| match f {
            ReadFault::Timeout => format!(
                "did not answer {} within {within:?}",
                dialect.write_command(&Command::IsReady)
            ),
            ReadFault::Broken(r) => format!("{r} before {ok}"),
        })?;
    match dialect.parse_reply(&line) {
        Ok(Some(Reply::BestMove(_))) => Err(unasked(&line)),
        Err(reason) => Err(format!("wrote a line that is {reason} before {ok}")),
        _ => Ok(()),
    }
}

/// The fault of a `bestmove` that answers no `go`.
fn unasked(line: &str) -> String {
    format!(
        "wrote '{}' when no move was asked for (a second answer to a go, or one before go)",
        excerpt(line, QUOTED_CHARS)
    )
}

/// What the engine said while it searched, as [`Thoughts`]: `info`, its last line with a depth
/// or a score, and `text`, its last `info string …` (escaped and cut as an answer quotes text:
/// it goes to a terminal, a web page). None when it said neither.
fn thoughts(info: &Info, text: Option<&str>) -> Option<Thoughts> {
    let text = text.map(str::trim).filter(|t| !t.is_empty());
    if info.depth.is_none() && info.score_cp.is_none() && text.is_none() {
        return None;
    }
    let value = info.score_cp.map(|cp| cp as f64 / 100.0);
    let mut summary = String::from("engine");
    if let Some(d) = info.depth {
        summary.push_str(&format!(" depth {d}"));
    }
    if let Some(v) = value {
        summary.push_str(&format!(": {v:+.2} seeds for the mover"));
    }
    if let Some(n) = info.nodes {
        summary.push_str(&format!(", {n} nodes"));
    }
    if let Some(t) = text {
        let t = excerpt(t, QUOTED_CHARS);
        let sep = if summary == "engine" { ":" } else { ";" };
        summary.push_str(&format!("{sep} {t}"));
    }
    Some(Thoughts {
        summary,
        value,
        unit: "seeds",
        depth: info.depth,
        nodes: info.nodes,
        ..Thoughts::default()
    })
}

impl Agent for ProgramAgent {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn select(&mut self, turn: &Turn<'_>) -> Result<usize> {
        let state = turn.state;
        if state.is_over() {
            return Err(no_move(&self.name, state));
        }
        let answer = match self.ask(state) {
            Ok(mv) => mv,
            Err(reason) => {
                if let Some(mut p) = self.process.take() {
                    p.kill();
                }
                self.new_game = true;
                self.line = None;
                return Err(self.fail(reason));
            }
        };
        let rules = self.rules;
        if answer.is_empty() || answer == "0000" {
            return Err(self.fail(format!(
                "answered bestmove {answer} (no move) where {} can be played",
                position::legal_text(&rules, state)
            )));
        }
        let house = position::read_move(&rules, state, &answer).map_err(|e| {
            let e = printable(&e.to_string()).into_owned();
            self.fail(format!("answered a bad move: {e}"))
        })?;
        let mut after = *state;
        after.apply(&rules, house)?;
        if let Some(line) = self.line.as_mut() {
            line.moves.push(answer);
            line.after_mine = after;
        }
        Ok(house)
    }

    fn reset(&mut self, _seed: u64) {
        self.new_game = true;
        self.line = None;
        self.thoughts = None;
    }

    fn thoughts(&self) -> Option<Thoughts> {
        self.thoughts.clone()
    }

    fn forfeits(&self) -> bool {
        true
    }

    fn log_to(&mut self, dir: &Path) {
        if self.settings.log.is_none() {
            let path = log_path(dir, &self.name);
            if let Some(p) = self.process.as_mut() {
                let _ = p.set_log(&path);
            }
            self.log = Some(path);
        }
    }
}

impl Drop for ProgramAgent {
    fn drop(&mut self) {
        if let Some(p) = self.process.take() {
            self.pool.give(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(line: &str) -> Info {
        match crate::protocol::uci::Uci.parse_reply(line) {
            Ok(Some(Reply::Info(i))) => i,
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn thoughts_hold_the_last_numbers_and_the_last_text() {
        let none = Info::default();
        assert_eq!(thoughts(&none, None), None);
        assert_eq!(thoughts(&none, Some("  ")), None);
        let t = thoughts(&none, Some("hello")).unwrap();
        assert_eq!((t.summary.as_str(), t.value), ("engine: hello", None));
        let i = info("info depth 3 score cp 125 nodes 40");
        let t = thoughts(&i, Some("book move")).unwrap();
        assert_eq!(
            t.summary,
            "engine depth 3: +1.25 seeds for the mover, 40 nodes; book move"
        );
        assert_eq!((t.value, t.depth, t.nodes), (Some(1.25), Some(3), Some(40)));
        // What reaches a terminal or a page is escaped and cut.
        let t = thoughts(&none, Some(&format!("\u{1b}[2J{}", "x".repeat(500)))).unwrap();
        assert!(t.summary.starts_with("engine: \\x1b[2J") && t.summary.ends_with('…'));
        assert!(t.summary.chars().count() < 230, "{}", t.summary);
    }
}
