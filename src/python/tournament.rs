//! `run_tournament`: a tournament between built-in agents (specs) and Python agents, the
//! engine of `awale.tournament` (see `python/awale/tournament.py`, which wraps the result);
//! `run_match`, `run_scorecard` and `run_ladder` (its anchors any agent) likewise.
//!
//! Games run on the tournament's worker threads with the GIL released; a Python agent
//! ([`super::py_agent`]) is asked with the GIL taken back for each of its moves, and one call at
//! a time unless it declares itself thread-safe (an attribute `thread_safe = True`): one that
//! releases the GIL inside (torch, an SB3 `predict`) and keeps state between calls would
//! otherwise race.
//! Built-in agents play in parallel. The calling thread waits with the GIL released too, and
//! wakes up every 100 ms to report progress and to check for Ctrl-C; both go through the
//! tournament's observer ([`TournamentObserver`]): Ctrl-C, an exception in the progress callback
//! or the callback returning `False` stop the run cleanly (finished games stay saved under `out`,
//! and the same call resumes).
//!
//! A Python agent that raises, returns something other than an int, or returns an illegal house
//! stops the tournament with an exception naming the agent, the game and the ply (that of the
//! failing game with the lowest index, whatever the number of threads): the agent's own
//! exception as the cause of a `RuntimeError`, a `TypeError`, or a `ValueError`.

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyString, PyTuple};
use serde_json::{json, Value};

use super::evaluator::{EvaluatorArg, Failure as EvalFailure};
use super::game_run::{describe, game_run_arg, run_in_background, FailKind, Shared};
use super::py_agent::{self, BadMove, Form};
use super::search::PySearchAgent;
use super::{rules_arg, type_name, value_error};
use crate::agents::{parse_agent_list, Agent, AgentSpec, Registry, Turn};
use crate::batch::ObsEncoding;
use crate::error::Result;
use crate::rules::Rules;
use crate::search::Search;
use crate::search::SearchSettings;
use crate::tournament::{
    run_observed, Entrant, Format, GameResult, TournamentConfig, TournamentReport,
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// A Python agent (see [`super::py_agent`]) playing in a tournament, a match or a scorecard.
struct PyAgent {
    name: String,
    func: Arc<Py<PyAny>>,
    form: Form,
    enc: ObsEncoding,
    shared: Arc<Shared>,
    /// Held around each call of an agent that is not declared thread-safe (one lock per
    /// agent object, shared by every agent and entrant built from it).
    serial: Option<Arc<Mutex<()>>>,
    /// What the agent's `reset(seed)` raised, reported at its next move.
    reset_error: Option<PyErr>,
}

impl Agent for PyAgent {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn select(&mut self, turn: &Turn<'_>) -> Result<usize> {
        let (rules, state) = (turn.rules, turn.state);
        let ply = state.ply() + 1;
        if let Some(e) = self.reset_error.take() {
            let reason = Python::attach(|py| format!("reset(seed) raised {}", describe(py, &e)));
            return Err(self
                .shared
                .fail(&self.name, ply, reason, FailKind::Raised(e)));
        }
        // Taken before the GIL (never the other way round), so that a caller waiting here does
        // not hold the GIL that the call in progress may need back.
        let _serial = self
            .serial
            .as_ref()
            .map(|m| m.lock().unwrap_or_else(|e| e.into_inner()));
        Python::attach(|py| {
            let ret = match py_agent::ask(self.func.bind(py), self.form, rules, state, self.enc) {
                Ok(r) => r,
                Err(e) => {
                    let reason = format!("raised {}", describe(py, &e));
                    return Err(self
                        .shared
                        .fail(&self.name, ply, reason, FailKind::Raised(e)));
                }
            };
            py_agent::house_of(&ret, rules, state).map_err(|bad| {
                let kind = match bad {
                    BadMove::Type(_) => FailKind::Type,
                    BadMove::Value(_) => FailKind::Value,
                };
                self.shared
                    .fail(&self.name, ply, bad.reason().to_string(), kind)
            })
        })
    }

    /// Calls the agent's own `reset(seed)` when it has one (an object with `select`), before
    /// each game, with the game's seed for this seat; what it raises fails the agent's next move.
    fn reset(&mut self, seed: u64) {
        if self.form != Form::Select {
            return;
        }
        let _serial = self
            .serial
            .as_ref()
            .map(|m| m.lock().unwrap_or_else(|e| e.into_inner()));
        self.reset_error = Python::attach(|py| {
            let agent = self.func.bind(py);
            match agent.getattr("reset") {
                Ok(f) if f.is_callable() => f.call1((seed,)).err(),
                _ => None,
            }
        });
    }
}

/// One agent argument, read.
enum Entry {
    Spec(AgentSpec),
    /// A Python agent: an object with `select`, a function of a state, or (deprecated) of
    /// `(observation, mask)`.
    Callable {
        name: String,
        func: Py<PyAny>,
        form: Form,
    },
    /// An `awale.SearchAgent`: the guided search with its evaluator.
    Search {
        name: String,
        agent: Py<PySearchAgent>,
    },
}

impl Entry {
    fn name(&self) -> String {
        match self {
            Entry::Spec(s) => s.display_name(),
            Entry::Callable { name, .. } | Entry::Search { name, .. } => name.clone(),
        }
    }

    /// Whether `other` describes the same agent (the same spec, or the same callable object).
    fn same(&self, other: &Entry) -> bool {
        match (self, other) {
            (Entry::Spec(a), Entry::Spec(b)) => a == b,
            (Entry::Callable { func: a, .. }, Entry::Callable { func: b, .. }) => a.is(b),
            (Entry::Search { agent: a, .. }, Entry::Search { agent: b, .. }) => a.is(b),
            _ => false,
        }
    }
}

/// Reads an agent: a spec string, an `awale.Agent` (its spec), an `awale.SearchAgent`, a Python
/// agent, or a `(name, agent)` tuple.
fn entry_arg(obj: &Bound<'_, PyAny>, what: &str, default_name: &str) -> PyResult<Entry> {
    if let Ok(s) = obj.cast::<PyString>() {
        let spec: AgentSpec = s.to_cow()?.parse().map_err(value_error)?;
        return Ok(Entry::Spec(spec));
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        if t.len() != 2 {
            return Err(PyTypeError::new_err(format!(
                "{what}: a tuple must be (name, callable), got {} items",
                t.len()
            )));
        }
        let name_obj = t.get_item(0)?;
        let name = name_obj
            .cast::<PyString>()
            .map_err(|_| {
                PyTypeError::new_err(format!(
                    "{what}: the name of a (name, callable) tuple must be a str, got {}",
                    type_name(&name_obj)
                ))
            })?
            .to_cow()?
            .into_owned();
        if name.trim().is_empty() {
            return Err(PyValueError::new_err(format!(
                "{what}: the name must not be empty"
            )));
        }
        let agent = t.get_item(1)?;
        return match entry_arg(&agent, what, &name)? {
            Entry::Spec(mut spec) => {
                spec.options.retain(|(k, _)| k != "name");
                spec.options.push(("name".into(), name));
                Ok(Entry::Spec(spec))
            }
            Entry::Callable { func, form, .. } => Ok(Entry::Callable { name, func, form }),
            Entry::Search { agent, .. } => Ok(Entry::Search { name, agent }),
        };
    }
    if let Ok(agent) = obj.cast::<super::agent::PyAgent>() {
        // Its spec: each game builds its own agent from it.
        return Ok(Entry::Spec(agent.get().spec.clone()));
    }
    if let Ok(agent) = obj.cast::<PySearchAgent>() {
        return Ok(Entry::Search {
            name: agent.get().name.clone(),
            agent: agent.clone().unbind(),
        });
    }
    if let Some(form) = py_agent::form_of(obj)? {
        return Ok(Entry::Callable {
            name: py_agent::own_name(obj).unwrap_or_else(|| default_name.to_string()),
            func: obj.clone().unbind(),
            form,
        });
    }
    Err(PyTypeError::new_err(format!(
        "{what} must be a spec string such as 'alphabeta:depth=4', an agent (an object with \
         select(state) -> house, such as awale.Agent, awale.SearchAgent or \
         awale.ObservationAgent, or a function of an awale.State returning a house), or a \
         (name, agent) tuple; got {}",
        type_name(obj)
    )))
}

/// Whether a callable declares itself thread-safe: an attribute `thread_safe` that is `True`
/// (a `thread_safe` that is not a bool is a `TypeError`).
fn declared_thread_safe(func: &Bound<'_, PyAny>, name: &str) -> PyResult<bool> {
    if !func.hasattr("thread_safe")? {
        return Ok(false);
    }
    let v = func.getattr("thread_safe")?;
    if !v.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "agent '{name}': the callable's thread_safe attribute must be True or False, got {}",
            type_name(&v)
        )));
    }
    v.is_truthy()
}

/// The one lock of the callable `func` (created on first use).
fn serial_lock(
    py: Python<'_>,
    locks: &mut Vec<(Py<PyAny>, Arc<Mutex<()>>)>,
    func: &Py<PyAny>,
) -> Arc<Mutex<()>> {
    if let Some((_, m)) = locks.iter().find(|(f, _)| f.is(func)) {
        return m.clone();
    }
    let m = Arc::new(Mutex::new(()));
    locks.push((func.clone_ref(py), m.clone()));
    m
}

/// The entrant of an agent argument.
fn entrant(
    py: Python<'_>,
    entry: &Entry,
    registry: &Registry,
    rules: &Rules,
    enc: ObsEncoding,
    shared: &Arc<Shared>,
    locks: &mut Vec<(Py<PyAny>, Arc<Mutex<()>>)>,
) -> PyResult<Entrant> {
    Ok(match entry {
        Entry::Spec(spec) => Entrant::from_spec(registry, spec, rules).map_err(value_error)?,
        Entry::Callable { name, func, form } => {
            let serial = if declared_thread_safe(func.bind(py), name)? {
                None
            } else {
                Some(serial_lock(py, locks, func))
            };
            let (name, func, sh) = (name.clone(), Arc::new(func.clone_ref(py)), shared.clone());
            let form = *form;
            Entrant::new(name.clone(), move || {
                Ok(Box::new(PyAgent {
                    name: name.clone(),
                    func: func.clone(),
                    form,
                    enc,
                    shared: sh.clone(),
                    serial: serial.clone(),
                    reset_error: None,
                }) as Box<dyn Agent>)
            })
        }
        Entry::Search { name, agent } => {
            let a = agent.get();
            let arg = Arc::new(a.evaluator(py, rules)?);
            let (settings, sims, seed) = (a.settings, a.sims, a.seed);
            let (name, sh) = (name.clone(), shared.clone());
            Entrant::new(name.clone(), move || {
                Ok(Box::new(SearchPlayer {
                    name: name.clone(),
                    settings,
                    sims,
                    seed,
                    arg: arg.clone(),
                    shared: sh.clone(),
                    stop: None,
                }) as Box<dyn Agent>)
            })
        }
    })
}

/// An `awale.SearchAgent` at play: a search of `sims` simulations from the turn's position,
/// guided by its evaluator, no noise; the search's move. A failure of a Python evaluator stops
/// the tournament as a callable's does. A stop signal ([`Agent::set_stop`]) is read before
/// every simulation: the search ends there with the move it prefers so far.
struct SearchPlayer {
    name: String,
    settings: SearchSettings,
    sims: u32,
    seed: u64,
    arg: Arc<EvaluatorArg>,
    shared: Arc<Shared>,
    stop: Option<crate::agents::StopSignal>,
}

impl Agent for SearchPlayer {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn select(&mut self, turn: &Turn<'_>) -> Result<usize> {
        let failure = EvalFailure::default();
        let mut ev = self.arg.make(turn.rules, self.seed, &failure);
        if turn.state.is_over() {
            return Err(crate::agents::no_move(&self.name, turn.state));
        }
        let mut search = Search::new(*turn.rules, self.settings);
        let mut rng = ChaCha8Rng::seed_from_u64(crate::agents::derive_seed(self.seed, 0));
        search.start(*turn.state, self.sims, None);
        let limit = crate::agents::search_limit(None, self.stop.as_ref());
        search.run(&mut *ev, &mut rng, limit.as_ref().map(|f| f as _));
        if let Some(e) = failure.take() {
            let reason = Python::attach(|py| format!("raised {}", describe(py, &e)));
            let ply = turn.state.ply() + 1;
            return Err(self
                .shared
                .fail(&self.name, ply, reason, FailKind::Raised(e)));
        }
        Ok(search.result().action)
    }

    fn reset(&mut self, _seed: u64) {}

    fn set_stop(&mut self, stop: crate::agents::StopSignal) {
        self.stop = Some(stop);
    }
}

/// One game as a dict (its record as text; `forfeit` None unless a seat lost by forfeit).
fn game_json(g: &GameResult) -> Value {
    json!({
        "index": g.index,
        "pairing": g.pairing,
        "opening": g.opening,
        "seats": g.seats,
        "scores": g.scores,
        "points": g.points,
        "end": g.end,
        "plies": g.plies,
        "opening_plies": g.opening_plies,
        "record": g.record.to_string(),
        "forfeit": g.forfeit.as_ref().map(|f| json!({"seat": f.seat, "reason": f.reason})),
    })
}

fn report_json(report: &TournamentReport, anchor_rating: f64) -> Value {
    let n = report.agents.len();
    let ratings: Vec<Value> = report
        .standings
        .iter()
        .map(|s| {
            json!({
                "name": s.name,
                "elo": s.elo,
                "low": s.lower,
                "high": s.upper,
                "games": s.games,
                "wins": s.wins,
                "draws": s.draws,
                "losses": s.losses,
                "score": s.score,
            })
        })
        .collect();
    let los = report.los.clone().unwrap_or_else(|| vec![vec![None; n]; n]);
    let games: Vec<Value> = report.games.iter().map(game_json).collect();
    json!({
        "rules": report.rules,
        "format": report.format.to_string(),
        "gauntlet": match &report.format {
            Format::Gauntlet(g) => Some(g.clone()),
            Format::RoundRobin | Format::Pairings(_) | Format::Tables(_) => None,
        },
        "names": report.agents,
        "games": report.games_played,
        "games_scheduled": report.games_scheduled,
        "complete": report.complete,
        "stopped": report.stopped,
        "ratings": ratings,
        "wins": report.matchups.wins,
        "draws": report.matchups.draws,
        "los": los,
        "anchor": report.elo.as_ref().map(|f| report.agents[f.anchor].clone()),
        "anchor_rating": anchor_rating,
        "elo_error": report.elo_error,
        "end_reasons": report.end_reasons,
        "first_places": report.first_places,
        "time_per_move": report
            .clock
            .iter()
            .filter_map(|c| Some((c.name.clone(), c.ms_per_move()?)))
            .collect::<std::collections::BTreeMap<_, _>>(),
        "mean_plies": report.mean_plies,
        "table": report.table(),
        "game_results": games,
    })
}

/// The rules and observation encoding of a tournament's or match's arguments.
fn games_args(rules: &Bound<'_, PyAny>, obs: &str) -> PyResult<(Rules, ObsEncoding)> {
    let rules = rules_arg(rules)?;
    let enc: ObsEncoding = obs.parse().map_err(value_error)?;
    enc.validate().map_err(value_error)?;
    Ok((rules, enc))
}

/// Plays a tournament (see `awale.tournament`) and returns its result as JSON text.
#[pyfunction]
#[pyo3(signature = (
    agents, *, rules, run, gauntlet, anchor, anchor_rating, out, obs, progress
))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_tournament(
    py: Python<'_>,
    agents: &Bound<'_, PyAny>,
    rules: &Bound<'_, PyAny>,
    run: &Bound<'_, PyDict>,
    gauntlet: Option<&Bound<'_, PyAny>>,
    anchor: Option<String>,
    anchor_rating: f64,
    out: Option<PathBuf>,
    obs: &str,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<String> {
    let (rules, enc) = games_args(rules, obs)?;
    let run = game_run_arg(run)?;
    if !anchor_rating.is_finite() {
        return Err(PyValueError::new_err(format!(
            "anchor_rating must be a finite number, got {anchor_rating}"
        )));
    }

    // The agents: a comma-separated spec list, or a sequence of agents.
    let mut entries: Vec<Entry> = Vec::new();
    if let Ok(s) = agents.cast::<PyString>() {
        for spec in parse_agent_list(&s.to_cow()?).map_err(value_error)? {
            entries.push(Entry::Spec(spec));
        }
    } else {
        let items: Vec<Bound<'_, PyAny>> = agents
            .try_iter()
            .map_err(|_| {
                PyTypeError::new_err(format!(
                    "agents must be a list of specs, agents or (name, agent) tuples, got {}",
                    type_name(agents)
                ))
            })?
            .collect::<PyResult<_>>()?;
        for (i, item) in items.iter().enumerate() {
            entries.push(entry_arg(
                item,
                &format!("agent {i}"),
                &format!("python_{i}"),
            )?);
        }
    }
    let format = match gauntlet {
        None => Format::RoundRobin,
        Some(g) => {
            // A plain name of a listed agent, else an agent of its own (added first if new).
            let listed = g
                .cast::<PyString>()
                .ok()
                .and_then(|s| s.to_cow().ok().map(|c| c.into_owned()))
                .filter(|s| entries.iter().any(|e| &e.name() == s));
            match listed {
                Some(name) => Format::Gauntlet(name),
                None => {
                    let entry = entry_arg(g, "gauntlet", "python_gauntlet")?;
                    let same = entries.iter().find(|e| e.same(&entry)).map(Entry::name);
                    if let Some(name) = same {
                        Format::Gauntlet(name)
                    } else {
                        let name = entry.name();
                        if entries.iter().any(|e| e.name() == name) {
                            return Err(PyValueError::new_err(format!(
                                "the gauntlet agent's name '{name}' is taken by another agent"
                            )));
                        }
                        entries.insert(0, entry);
                        Format::Gauntlet(name)
                    }
                }
            }
        }
    };

    let shared = Arc::new(Shared::default());
    let registry = crate::agent_kinds::available();
    let mut locks = Vec::new();
    let entrants = entries
        .iter()
        .map(|e| entrant(py, e, &registry, &rules, enc, &shared, &mut locks))
        .collect::<PyResult<Vec<_>>>()?;
    let mut cfg = TournamentConfig::new(rules);
    cfg.format = format;
    cfg.run = run;
    cfg.anchor = anchor;
    cfg.anchor_rating = anchor_rating;
    cfg.out = out;
    cfg.game_rules().map_err(value_error)?;

    let report = run_in_background(
        py,
        shared.clone(),
        progress,
        "tournament",
        move |observer| run_observed(&cfg, &entrants, observer),
    )?;
    if let Some(cb) = progress {
        if !report.stopped && report.games_played != shared.shown.load(Ordering::SeqCst) {
            cb.call1((report.games_played, report.games_scheduled))?;
        }
    }
    Ok(json!(report_json(&report, anchor_rating)).to_string())
}

/// Rates one agent with the scorecard protocol (see `awale.scorecard`) and returns the card as
/// JSON text.
#[pyfunction]
#[pyo3(signature = (agent, *, rules, out, threads, tables, protocol, obs, progress))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_scorecard(
    py: Python<'_>,
    agent: &Bound<'_, PyAny>,
    rules: &str,
    out: Option<PathBuf>,
    threads: usize,
    tables: Option<PathBuf>,
    protocol: Option<String>,
    obs: &str,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<String> {
    let protocol = match protocol {
        None => crate::ratings::scorecard::protocol(rules).map_err(value_error)?,
        Some(text) => crate::ratings::scorecard::ProtocolFile::parse(&text)
            .and_then(|f| f.part(rules))
            .map_err(value_error)?,
    };
    let rules: Rules = protocol.rules.parse().map_err(value_error)?;
    let enc: ObsEncoding = obs.parse().map_err(value_error)?;
    enc.validate().map_err(value_error)?;
    // A path to a network file is rated as `nn:path=FILE`.
    let entry = match agent.cast::<PyString>() {
        Ok(s) if std::path::Path::new(s.to_cow()?.as_ref()).is_file() => {
            let spec: AgentSpec = format!("nn:path={}", s.to_cow()?)
                .parse()
                .map_err(value_error)?;
            Entry::Spec(spec)
        }
        _ => entry_arg(agent, "agent", "python_agent")?,
    };
    let shared = Arc::new(Shared::default());
    let registry = crate::agent_kinds::available();
    let mut locks = Vec::new();
    let entrant = entrant(py, &entry, &registry, &rules, enc, &shared, &mut locks)?;
    let opts = crate::ratings::scorecard::ScorecardOptions {
        out,
        threads,
        tables,
    };
    let card = run_in_background(py, shared, progress, "scorecard", move |observer| {
        crate::ratings::scorecard::run(&protocol, entrant, &registry, &opts, observer)
    })?;
    serde_json::to_string(&card).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The Markdown of a scorecard given as JSON text (`awale.Scorecard.to_markdown`): the same
/// page as `scorecard.md`.
#[pyfunction]
pub(crate) fn scorecard_markdown(card: &str) -> PyResult<String> {
    let card = crate::ratings::scorecard::Scorecard::from_json(card).map_err(value_error)?;
    Ok(card.to_markdown())
}

/// Plays a match between two agents (see `awale.match`) and returns its report as JSON text.
#[pyfunction]
#[pyo3(signature = (a, b, *, rules, run, sprt, out, obs, progress))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_match(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    rules: &Bound<'_, PyAny>,
    run: &Bound<'_, PyDict>,
    sprt: Option<&str>,
    out: Option<PathBuf>,
    obs: &str,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<String> {
    use crate::ratings::matchplay::{run_match_observed, MatchConfig};
    let (rules, enc) = games_args(rules, obs)?;
    let run = game_run_arg(run)?;
    let ea = entry_arg(a, "a", "python_a")?;
    let eb = entry_arg(b, "b", "python_b")?;
    if ea.name() == eb.name() {
        return Err(PyValueError::new_err(format!(
            "both agents are named '{}'; give one a name (a (name, agent) tuple or name=...)",
            ea.name()
        )));
    }
    let shared = Arc::new(Shared::default());
    let registry = crate::agent_kinds::available();
    let mut locks = Vec::new();
    let ea = entrant(py, &ea, &registry, &rules, enc, &shared, &mut locks)?;
    let eb = entrant(py, &eb, &registry, &rules, enc, &shared, &mut locks)?;
    let mut cfg = MatchConfig::new(rules);
    cfg.run = run;
    cfg.sprt = sprt
        .map(str::parse::<crate::ratings::sprt::SprtConfig>)
        .transpose()
        .map_err(value_error)?;
    cfg.out = out;
    cfg.rules_checked().map_err(value_error)?;
    let report = run_in_background(py, shared, progress, "match", move |observer| {
        run_match_observed(&cfg, &ea, &eb, observer, &|_| {})
    })?;
    let mut v = serde_json::to_value(&report)
        .map_err(|e| PyRuntimeError::new_err(format!("the match's report: {e}")))?;
    v["game_results"] = Value::Array(report.game_results.iter().map(game_json).collect());
    Ok(v.to_string())
}

/// The ladder's anchors (`awale.ladder(anchors=[...])`): spec strings as they are, and every
/// other agent (a Python agent, an `awale.Agent`, an `awale.SearchAgent`, a `(name, agent)`
/// tuple) read as a tournament reads it; a Python agent or a search is added to `registry` as a
/// kind of its own, named by the agent's name, so that the ladder plays it by that name.
/// Returns the anchors as spec texts.
#[cfg(feature = "train")]
pub(crate) fn ladder_anchors(
    anchors: &Bound<'_, PyAny>,
    registry: &mut Registry,
    shared: &Arc<Shared>,
) -> PyResult<Vec<String>> {
    if let Ok(s) = anchors.cast::<PyString>() {
        return Ok(vec![s.to_cow()?.into_owned()]);
    }
    let locks = Arc::new(Mutex::new(Vec::new()));
    // What `entrant` builds specs with; the anchors that reach it here are not specs.
    let builtin = Arc::new(Registry::builtin());
    let mut texts = Vec::new();
    for (i, obj) in anchors.try_iter()?.enumerate() {
        let obj = obj?;
        if let Ok(s) = obj.cast::<PyString>() {
            texts.push(s.to_cow()?.into_owned());
            continue;
        }
        let entry = entry_arg(&obj, "an anchor", &format!("python_{i}"))?;
        if let Entry::Spec(spec) = &entry {
            texts.push(spec.to_string());
            continue;
        }
        let name = entry.name();
        let plain = name
            .parse::<AgentSpec>()
            .ok()
            .filter(|s| s.kind == name && s.options.is_empty() && !name.contains([',', '|', ' ']));
        if plain.is_none() {
            return Err(PyValueError::new_err(format!(
                "an anchor's name must be one plain word (letters, digits, '_' or '-'), got \
                 {name:?}: pass (name, agent)"
            )));
        }
        if registry.entries().iter().any(|e| e.kind == name) {
            return Err(PyValueError::new_err(format!(
                "an anchor is named '{name}', which is an agent kind: pass (other_name, agent)"
            )));
        }
        let (entry, shared, locks, builtin) = (
            Arc::new(entry),
            shared.clone(),
            locks.clone(),
            builtin.clone(),
        );
        let factory: crate::agents::AgentFactory =
            Arc::new(move |_spec: &AgentSpec, rules: &Rules| {
                Python::attach(|py| {
                    let mut locks = locks.lock().unwrap_or_else(|e| e.into_inner());
                    entrant(
                        py,
                        &entry,
                        &builtin,
                        rules,
                        ObsEncoding::default(),
                        &shared,
                        &mut locks,
                    )
                    .map_err(|e| crate::error::AwaleError::AgentFailed {
                        agent: entry.name(),
                        reason: describe(py, &e),
                    })
                })?
                .make()
            });
        registry.register(
            &name,
            "a Python agent (an anchor of awale.ladder)",
            &[],
            factory,
        );
        texts.push(name);
    }
    Ok(texts)
}

/// Plays (or resumes) a rating ladder of the generations of `runs` and the `anchors` (see
/// `awale.ladder`) and returns its report as JSON text.
#[pyfunction]
#[pyo3(signature = (runs, *, anchors, out, sims, run, progress))]
pub(crate) fn run_ladder(
    py: Python<'_>,
    runs: Vec<PathBuf>,
    anchors: &Bound<'_, PyAny>,
    out: PathBuf,
    sims: u32,
    run: &Bound<'_, PyDict>,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<String> {
    let run = game_run_arg(run)?;
    #[cfg(not(feature = "train"))]
    {
        let _ = (py, runs, anchors, out, sims, run, progress);
        Err(super::trainer::no_trainer())
    }
    #[cfg(feature = "train")]
    {
        use crate::ratings::ladder::{run_ladder, LadderConfig};
        let mut cfg = LadderConfig::new(runs, out);
        let shared = Arc::new(Shared::default());
        let mut registry = crate::network::registry();
        let anchors = ladder_anchors(anchors, &mut registry, &shared)?;
        cfg.anchors = anchors
            .into_iter()
            .filter(|a| !a.trim().is_empty())
            .collect();
        cfg.sims = sims;
        cfg.run = run;
        let report = run_in_background(py, shared, progress, "ladder", move |obs| {
            Ok(run_ladder(&cfg, &registry, obs))
        })?
        .map_err(super::trainer::train_error)?;
        let t = &report.tournament;
        Ok(json!({
            "entries": report.entries,
            "pairings": report.pairings,
            "games": t.games_played,
            "games_scheduled": t.games_scheduled,
            "complete": t.complete,
            "stopped": t.stopped,
            "table": report.table(),
        })
        .to_string())
    }
}
