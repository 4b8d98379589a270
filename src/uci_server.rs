//! Any agent as an engine: [`serve`] speaks the UCI dialect of [`crate::uci`] on a reader and
//! a writer (`awale engine SPEC` gives it stdin and stdout), so that Aualé, Aalina's match tools,
//! another referee — or this project's own `engine:` agent — can play it.
//!
//! The agent thinks on a thread of its own while commands go on being read: `isready` is
//! answered at once, `stop` and `quit` (and the end of the input) end the search (its best move
//! so far, as when its clock runs out), `go movetime N` stops it after N ms
//! ([`crate::agents::StopSignal`]); any other command waits for the search's `bestmove` (Aalina
//! drops them), so that commands piped in at once are played in order. `ucinewgame` resets the
//! agent with the server's seed, so that the same games give the same moves. Bad commands are
//! answered `info string error: …` and change nothing; after a bad `position`, `go` answers
//! `bestmove 0000` until a good one comes.
//!
//! ```
//! use awale::uci_server::serve;
//! use awale::agents::build_agent;
//! use awale::Rules;
//! let input = "uci\nisready\nposition startpos moves Cd\ngo movetime 50\nquit\n";
//! let mut out = Vec::new();
//! serve(&|rules| build_agent("alphabeta:depth=2", rules), Rules::abapa(), 0, input.as_bytes(), &mut out).unwrap();
//! let out = String::from_utf8(out).unwrap();
//! assert!(out.contains("uciok") && out.contains("readyok"));
//! assert!(out.lines().last().unwrap().starts_with("bestmove "));
//! ```

use std::io::{BufRead, Write};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::sync::Mutex;
use std::thread::{Scope, ScopedJoinHandle};
use std::time::Duration;

use crate::agents::{Agent, StopSignal, Turn};
use crate::error::{AwaleError, Result};
use crate::game::Game;
use crate::presets::PRESET_SPECS;
use crate::rules::Rules;
use crate::uci::{self, Command, Info, Start};

/// Builds the served agent for a rule set.
pub type MakeAgent<'a> = &'a (dyn Fn(&Rules) -> Result<Box<dyn Agent>> + Sync);

type Out<W> = Mutex<W>;

fn say<W: Write>(out: &Out<W>, line: &str) -> Result<()> {
    let mut w = out.lock().unwrap_or_else(|e| e.into_inner());
    writeln!(w, "{line}")
        .and_then(|_| w.flush())
        .map_err(|e| AwaleError::Io {
            path: "the referee's pipe".into(),
            reason: e.to_string(),
        })
}

/// A search in progress: its thread gives the agent back.
struct Search<'s> {
    stop: StopSignal,
    thread: ScopedJoinHandle<'s, Box<dyn Agent>>,
}

/// The server's state between commands.
struct Engine<'a, 's, 'env, W: Write + Send> {
    scope: &'s Scope<'s, 'env>,
    make: MakeAgent<'a>,
    rules: Rules,
    seed: u64,
    agent: Option<Box<dyn Agent>>,
    /// The position to think on; `None` after a bad `position`.
    game: Option<Game>,
    search: Option<Search<'s>>,
    out: &'env Out<W>,
}

/// Serves the agent `make` builds, under `rules` until the referee sets `UCI_Variant`, reading
/// commands from `input` and answering on `output`, until `quit` or the end of the input.
pub fn serve<W: Write + Send>(
    make: MakeAgent<'_>,
    rules: Rules,
    seed: u64,
    input: impl BufRead,
    output: W,
) -> Result<()> {
    if let Some(reason) = uci::unfit_rules(&rules) {
        return Err(AwaleError::InvalidRules(reason));
    }
    let mut agent = make(&rules)?;
    agent.reset(seed);
    let out = Mutex::new(output);
    std::thread::scope(|scope| {
        let mut engine = Engine {
            scope,
            make,
            rules,
            seed,
            agent: Some(agent),
            game: Some(Game::new(rules)),
            search: None,
            out: &out,
        };
        let read = engine.read(input);
        engine.stop_search();
        read
    })
}

impl<'s, 'env, W: Write + Send> Engine<'_, 's, 'env, W> {
    /// Reads and handles commands until `quit` or the end of the input.
    fn read(&mut self, input: impl BufRead) -> Result<()> {
        for line in input.lines() {
            let line = line.map_err(|e| AwaleError::Io {
                path: "the referee's pipe".into(),
                reason: e.to_string(),
            })?;
            if line.trim().is_empty() {
                continue;
            }
            match Command::parse(&line) {
                Ok(Command::Quit) => break,
                Ok(command) => self.handle(command)?,
                Err(reason) => say(self.out, &format!("info string error: {reason}"))?,
            }
        }
        Ok(())
    }

    fn handle(&mut self, command: Command) -> Result<()> {
        match command {
            Command::Uci => {
                let name = self.agent_name();
                say(self.out, &format!("id name awale {name}"))?;
                say(self.out, "id author the awale authors")?;
                let vars: String = PRESET_SPECS
                    .iter()
                    .filter(|s| {
                        s.parse::<Rules>()
                            .is_ok_and(|r| uci::unfit_rules(&r).is_none())
                    })
                    .map(|s| format!(" var {s}"))
                    .collect();
                say(
                    self.out,
                    &format!(
                        "option name {} type combo default {}{vars}",
                        uci::VARIANT_OPTION,
                        self.rules
                    ),
                )?;
                say(self.out, "uciok")
            }
            Command::IsReady => say(self.out, "readyok"),
            Command::NewGame => {
                self.finish_search();
                if let Some(a) = self.agent.as_mut() {
                    a.reset(self.seed);
                }
                self.game = Some(Game::new(self.rules));
                Ok(())
            }
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref()),
            Command::Position { start, moves } => {
                self.finish_search();
                self.game = match self.position(&start, &moves) {
                    Ok(game) => Some(game),
                    Err(e) => {
                        say(self.out, &format!("info string error: {e}"))?;
                        None
                    }
                };
                Ok(())
            }
            Command::Go(go) => self.go(&go),
            Command::Stop => {
                self.stop_search();
                Ok(())
            }
            Command::Quit => Ok(()),
        }
    }

    fn agent_name(&mut self) -> String {
        self.finish_search();
        self.agent.as_ref().map_or(String::new(), |a| a.name())
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<()> {
        if name != uci::VARIANT_OPTION {
            return say(
                self.out,
                &format!("info string error: unknown option '{name}'"),
            );
        }
        let rules = match value.unwrap_or("").parse::<Rules>() {
            Ok(r) => match uci::unfit_rules(&r) {
                None => r,
                Some(reason) => return say(self.out, &format!("info string error: {reason}")),
            },
            Err(e) => return say(self.out, &format!("info string error: {e}")),
        };
        self.finish_search();
        match (self.make)(&rules) {
            Ok(mut agent) => {
                agent.reset(self.seed);
                self.agent = Some(agent);
                self.rules = rules;
                self.game = Some(Game::new(rules));
                Ok(())
            }
            Err(e) => say(self.out, &format!("info string error: {e}")),
        }
    }

    fn position(&self, start: &Start, moves: &[String]) -> Result<Game> {
        let state = match start {
            Start::StartPos => Game::new(self.rules).state().to_owned(),
            Start::Fen(fen) => uci::parse_fen(&self.rules, fen)?,
        };
        let mut game = Game::from_state(self.rules, state);
        for mv in moves {
            if game.is_over() {
                return Err(AwaleError::BadMoveNotation {
                    text: mv.clone(),
                    reason: "the game is over before this move".into(),
                });
            }
            let house = uci::read_move(&self.rules, game.state(), mv)?;
            game.apply(house)?;
        }
        Ok(game)
    }

    fn go(&mut self, go: &uci::Go) -> Result<()> {
        self.finish_search();
        let Some(game) = self.game.clone().filter(|g| !g.is_over()) else {
            if self.game.is_none() {
                say(self.out, "info string error: no valid position")?;
            }
            return say(self.out, "bestmove 0000");
        };
        let Some(mut agent) = self.agent.take() else {
            return say(self.out, "bestmove 0000");
        };
        let stop = StopSignal::new();
        agent.set_stop(stop.clone());
        let budget = go.budget_ms(game.to_move());
        let (done, ended) = channel::<()>();
        if budget == Some(0) {
            stop.stop();
        } else if let Some(ms) = budget {
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
        let thread = self.scope.spawn(move || {
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
                        let _ = say(out, &info.to_string());
                    }
                    format!("bestmove {}", uci::write_move(&rules, game.state(), house))
                }
                Err(e) => {
                    let _ = say(out, &format!("info string error: {e}"));
                    "bestmove 0000".to_string()
                }
            };
            let _ = say(out, &answer);
            agent
        });
        self.search = Some(Search { stop, thread });
        Ok(())
    }

    /// Stops the search in progress, if any, and takes the agent back.
    fn stop_search(&mut self) {
        if let Some(search) = &self.search {
            search.stop.stop();
        }
        self.finish_search();
    }

    /// Waits for the search in progress, if any, to answer, and takes the agent back.
    fn finish_search(&mut self) {
        if let Some(search) = self.search.take() {
            match search.thread.join() {
                Ok(agent) => self.agent = Some(agent),
                Err(_) => {
                    // The agent panicked: build a new one.
                    if let Ok(mut agent) = (self.make)(&self.rules) {
                        agent.reset(self.seed);
                        self.agent = Some(agent);
                    }
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
            &|r| build_agent(spec, r),
            Rules::abapa(),
            0,
            input.as_bytes(),
            &mut out,
        )
        .unwrap();
        String::from_utf8(out).unwrap()
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
