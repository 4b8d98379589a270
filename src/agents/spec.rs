//! Agent specs as text (`alphabeta:depth=8`, `mcts:sims=2000`, `random`) and the [`Registry`]
//! that turns them into agents.
//!
//! A spec is `KIND[:KEY=VALUE,...]`. Every kind accepts two common options: `name=` (the display
//! name in tournaments; by default the spec itself) and `seed=` (the agent's random seed until a
//! tournament reseeds it per game). The built-in kinds and their options:
//!
//! | kind | options |
//! |------|---------|
//! | `random` | - |
//! | `greedy` | - |
//! | `alphabeta` | `depth` (6), `nodes` (0 = none), `time_ms` (0 = none), `tt_mb` (16), `eval` (`strategic` or `material`), `w_store`, `w_board`, `w_mobility`, `w_grenier`, `w_threat`, `tb` (a folder of endgame tables to probe; off by default) |
//! | `perfect` | `dir` (`tablebases`), `fallback_depth` (0: refuse positions outside the table) |
//! | `mcts` | `sims` (1000), `time_ms` (0 = none), `c` (1.4), `playout_plies` (300) |
//! | `nn` | `path` (a checkpoint of `awale train`, required), `sims` (64), `search` (`gumbel` or `puct`); cargo feature `train` |
//!
//! New kinds (trained networks: `nn:path=...`) are added with [`Registry::register`], the one
//! place where kinds are listed.
//!
//! ```
//! use awale::agents::{AgentSpec, Registry};
//! use awale::{AwaleError, Rules};
//! let spec: AgentSpec = "alphabeta:depth=4,eval=material".parse().unwrap();
//! assert_eq!(spec.kind, "alphabeta");
//! assert_eq!(spec.get("depth"), Some("4"));
//! let agent = Registry::builtin().build(&spec, &Rules::abapa()).unwrap();
//! assert_eq!(agent.name(), "alphabeta:depth=4,eval=material");
//! let err = Registry::builtin().build(&"alphabeta:dpeth=4".parse().unwrap(), &Rules::abapa());
//! assert!(matches!(err, Err(AwaleError::BadAgentSpec { .. })));
//! ```

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::alphabeta::{AlphaBeta, AlphaBetaConfig};
use super::eval::Evaluator;
use super::greedy::GreedyAgent;
use super::mcts::{Mcts, MctsConfig};
use super::perfect::PerfectAgent;
use super::random::RandomAgent;
use super::{Agent, Turn};
use crate::error::{AwaleError, Result};
use crate::rules::Rules;
use crate::tablebase::Tablebase;
use std::path::Path;

/// A parsed agent spec: a kind and its options, in the order written.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct AgentSpec {
    /// The kind of agent (`random`, `greedy`, `alphabeta`, `mcts`, or a registered one).
    pub kind: String,
    /// `KEY=VALUE` options.
    pub options: Vec<(String, String)>,
}

impl AgentSpec {
    /// A spec of `kind` without options.
    pub fn new(kind: impl Into<String>) -> AgentSpec {
        AgentSpec {
            kind: kind.into(),
            options: Vec::new(),
        }
    }

    /// The value of option `key`, if given.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.options
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The display name: the `name` option, or else the spec written without it.
    ///
    /// ```
    /// use awale::agents::AgentSpec;
    /// let s: AgentSpec = "mcts:sims=50,name=quick".parse().unwrap();
    /// assert_eq!(s.display_name(), "quick");
    /// let s: AgentSpec = "mcts:sims=50".parse().unwrap();
    /// assert_eq!(s.display_name(), "mcts:sims=50");
    /// ```
    pub fn display_name(&self) -> String {
        if let Some(n) = self.get("name") {
            return n.to_string();
        }
        let rest: Vec<String> = self
            .options
            .iter()
            .filter(|(k, _)| k != "name")
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        if rest.is_empty() {
            self.kind.clone()
        } else {
            format!("{}:{}", self.kind, rest.join(","))
        }
    }

    fn error(&self, reason: impl Into<String>) -> AwaleError {
        AwaleError::BadAgentSpec {
            spec: self.to_string(),
            reason: reason.into(),
        }
    }

    /// Option `key` as a whole number, or `default` when absent.
    pub fn u64_or(&self, key: &str, default: u64) -> Result<u64> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v
                .parse()
                .map_err(|_| self.error(format!("{key}: '{v}' is not a whole number"))),
        }
    }

    /// Option `key` as a whole number that may be negative, or `default` when absent.
    pub fn i64_or(&self, key: &str, default: i64) -> Result<i64> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v
                .parse()
                .map_err(|_| self.error(format!("{key}: '{v}' is not a whole number"))),
        }
    }

    /// Option `key` as a finite number, or `default` when absent.
    pub fn f64_or(&self, key: &str, default: f64) -> Result<f64> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => match v.parse::<f64>() {
                Ok(x) if x.is_finite() => Ok(x),
                _ => Err(self.error(format!("{key}: '{v}' is not a number"))),
            },
        }
    }
}

impl FromStr for AgentSpec {
    type Err = AwaleError;

    /// Parses `KIND[:KEY=VALUE,...]`.
    fn from_str(text: &str) -> Result<AgentSpec> {
        let text = text.trim();
        let bad = |reason: String| AwaleError::BadAgentSpec {
            spec: text.to_string(),
            reason,
        };
        let (kind, opts) = text.split_once(':').unwrap_or((text, ""));
        let kind = kind.trim();
        if kind.is_empty() {
            return Err(bad(
                "the agent kind is missing (e.g. random, greedy, alphabeta:depth=6)".into(),
            ));
        }
        if !kind
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(bad(format!(
                "'{kind}' is not an agent kind (letters, digits, '-' and '_')"
            )));
        }
        let mut options: Vec<(String, String)> = Vec::new();
        for part in opts.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| bad(format!("option '{part}' should be KEY=VALUE")))?;
            let (k, v) = (k.trim(), v.trim());
            if k.is_empty() || v.is_empty() {
                return Err(bad(format!("option '{part}' should be KEY=VALUE")));
            }
            if options.iter().any(|(key, _)| key == k) {
                return Err(bad(format!("option '{k}' is given twice")));
            }
            options.push((k.to_string(), v.to_string()));
        }
        Ok(AgentSpec {
            kind: kind.to_string(),
            options,
        })
    }
}

impl fmt::Display for AgentSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind)?;
        for (i, (k, v)) in self.options.iter().enumerate() {
            write!(f, "{}{k}={v}", if i == 0 { ':' } else { ',' })?;
        }
        Ok(())
    }
}

/// Parses a list of specs separated by commas, semicolons or spaces. A comma-separated piece
/// of the form `KEY=VALUE` (no `:` before its `=`) continues the options of the spec before it,
/// so `random,alphabeta:depth=4,nodes=5000,mcts` is three specs.
///
/// ```
/// use awale::agents::parse_agent_list;
/// let specs = parse_agent_list("random,alphabeta:depth=4,nodes=5000,mcts:sims=100").unwrap();
/// let names: Vec<String> = specs.iter().map(|s| s.to_string()).collect();
/// assert_eq!(names, ["random", "alphabeta:depth=4,nodes=5000", "mcts:sims=100"]);
/// assert!(parse_agent_list("depth=4").is_err());
/// ```
pub fn parse_agent_list(text: &str) -> Result<Vec<AgentSpec>> {
    let mut specs: Vec<String> = Vec::new();
    for word in text.split(|c: char| c == ';' || c.is_whitespace()) {
        let mut in_word = false;
        for part in word.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let continues = part.split_once('=').is_some_and(|(k, _)| !k.contains(':'));
            if continues {
                let last = specs.last_mut().filter(|_| in_word).ok_or_else(|| {
                    AwaleError::BadAgentSpec {
                        spec: part.to_string(),
                        reason: "an option must follow an agent kind, as in alphabeta:depth=4"
                            .into(),
                    }
                })?;
                last.push(if last.contains(':') { ',' } else { ':' });
                last.push_str(part);
            } else {
                specs.push(part.to_string());
                in_word = true;
            }
        }
    }
    if specs.is_empty() {
        return Err(AwaleError::BadAgentSpec {
            spec: text.to_string(),
            reason: "no agents given".into(),
        });
    }
    specs.iter().map(|s| s.parse()).collect()
}

/// Builds an agent: the options of the spec have been checked against the kind's known keys.
pub type AgentFactory = Arc<dyn Fn(&AgentSpec, &Rules) -> Result<Box<dyn Agent>> + Send + Sync>;

/// One kind of agent in a [`Registry`].
#[derive(Clone)]
pub struct RegistryEntry {
    /// The kind, as written in specs.
    pub kind: String,
    /// One line of help.
    pub summary: String,
    /// The options the kind accepts (besides `name` and `seed`), with one line of help each.
    pub options: Vec<(String, String)>,
    factory: AgentFactory,
}

impl fmt::Debug for RegistryEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RegistryEntry")
            .field("kind", &self.kind)
            .field("summary", &self.summary)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// The kinds of agents that specs may name, each with its factory. [`Registry::builtin`] has
/// `random`, `greedy`, `alphabeta` and `mcts`; [`Registry::register`] adds more.
///
/// ```
/// use std::sync::Arc;
/// use awale::agents::{Agent, RandomAgent, Registry};
/// use awale::Rules;
/// let mut registry = Registry::builtin();
/// registry.register("lucky", "a random player under another name", &[], Arc::new(|_, _| {
///     Ok(Box::new(RandomAgent::new(0)) as Box<dyn Agent>)
/// }));
/// let agent = registry.build(&"lucky:seed=3".parse().unwrap(), &Rules::abapa()).unwrap();
/// assert_eq!(agent.name(), "lucky:seed=3");
/// ```
#[derive(Debug, Clone)]
pub struct Registry {
    entries: Vec<RegistryEntry>,
}

impl Default for Registry {
    fn default() -> Self {
        Registry::builtin()
    }
}

impl Registry {
    /// An empty registry.
    pub fn empty() -> Registry {
        Registry {
            entries: Vec::new(),
        }
    }

    /// The built-in agents.
    pub fn builtin() -> Registry {
        let mut r = Registry::empty();
        r.register(
            "random",
            "a uniformly random legal move (every preset)",
            &[],
            Arc::new(|_, _| Ok(Box::new(RandomAgent::new(0)) as Box<dyn Agent>)),
        );
        r.register(
            "greedy",
            "the move with the best immediate gain, ties at random (every preset)",
            &[],
            Arc::new(|_, _| Ok(Box::new(GreedyAgent::new(0)) as Box<dyn Agent>)),
        );
        r.register(
            "alphabeta",
            "negamax alpha-beta, iterative deepening, transposition table (2-player games)",
            &[
                ("depth", "deepest iteration in plies (default 6)"),
                ("nodes", "node budget per move, 0 = none (default 0)"),
                ("time_ms", "time budget per move in ms, 0 = none (default 0)"),
                ("tt_mb", "transposition table size in MiB, 0 = off (default 16)"),
                ("eval", "strategic (stores, greniers, potential, threats) or material (default strategic)"),
                ("w_store", "weight per seed of store difference (default 100)"),
                ("w_board", "weight per seed of board-side difference"),
                ("w_mobility", "weight per non-empty house of difference"),
                ("w_grenier", "weight per grenier in reach"),
                ("w_threat", "weight per seed of the best direct threat"),
                ("tb", "folder of endgame tables to probe at positions they cover (default: none)"),
            ],
            Arc::new(build_alphabeta),
        );
        r.register(
            "perfect",
            "the endgame table's best moves, ties at random (2-player single sowing; `awale tablebase build`)",
            &[
                ("dir", "folder of the tables (default tablebases)"),
                ("fallback_depth", "alpha-beta depth outside the table, 0 = refuse (default 0)"),
            ],
            Arc::new(build_perfect),
        );
        r.register(
            "mcts",
            "UCT with random playouts, per-player returns (every preset)",
            &[
                ("sims", "simulations per move (default 1000)"),
                (
                    "time_ms",
                    "time budget per move in ms, 0 = none (default 0)",
                ),
                ("c", "exploration constant (default 1.4)"),
                (
                    "playout_plies",
                    "longest playout before adjudication by stores (default 300)",
                ),
            ],
            Arc::new(build_mcts),
        );
        r
    }

    /// Adds (or replaces) a kind of agent. `options` lists the keys it accepts besides the common
    /// `name` and `seed`, with a line of help each.
    pub fn register(
        &mut self,
        kind: &str,
        summary: &str,
        options: &[(&str, &str)],
        factory: AgentFactory,
    ) {
        let entry = RegistryEntry {
            kind: kind.to_string(),
            summary: summary.to_string(),
            options: options
                .iter()
                .map(|(k, h)| (k.to_string(), h.to_string()))
                .collect(),
            factory,
        };
        match self.entries.iter_mut().find(|e| e.kind == kind) {
            Some(e) => *e = entry,
            None => self.entries.push(entry),
        }
    }

    /// The registered kinds, in registration order.
    pub fn entries(&self) -> &[RegistryEntry] {
        &self.entries
    }

    /// The entry for `spec`'s kind, after checking its options.
    fn entry(&self, spec: &AgentSpec) -> Result<&RegistryEntry> {
        let entry = self
            .entries
            .iter()
            .find(|e| e.kind == spec.kind)
            .ok_or_else(|| {
                let known: Vec<&str> = self.entries.iter().map(|e| e.kind.as_str()).collect();
                spec.error(format!(
                    "unknown agent '{}' (known: {})",
                    spec.kind,
                    known.join(", ")
                ))
            })?;
        for (k, _) in &spec.options {
            if k != "name" && k != "seed" && !entry.options.iter().any(|(o, _)| o == k) {
                let mut known: Vec<&str> = entry.options.iter().map(|(o, _)| o.as_str()).collect();
                known.extend(["name", "seed"]);
                return Err(spec.error(format!(
                    "unknown option '{k}' for {} (known: {})",
                    spec.kind,
                    known.join(", ")
                )));
            }
        }
        Ok(entry)
    }

    /// Builds the agent a spec describes, for games under `rules`.
    pub fn build(&self, spec: &AgentSpec, rules: &Rules) -> Result<Box<dyn Agent>> {
        let factory = self.factory(spec)?;
        factory(spec, rules)
    }

    /// The complete factory for `spec` (options checked, name and seed applied), to build as many
    /// agents as needed, e.g. one per tournament game.
    pub fn factory(&self, spec: &AgentSpec) -> Result<AgentFactory> {
        let entry = self.entry(spec)?;
        let seed = spec.u64_or("seed", 0)?;
        let name = spec.display_name();
        let inner = entry.factory.clone();
        Ok(Arc::new(move |spec: &AgentSpec, rules: &Rules| {
            let mut agent = inner(spec, rules)?;
            agent.reset(seed);
            Ok(if agent.name() == name {
                agent
            } else {
                Box::new(Named {
                    name: name.clone(),
                    inner: agent,
                }) as Box<dyn Agent>
            })
        }))
    }

    /// One line per kind and option, for help texts.
    pub fn help(&self) -> String {
        let mut out = String::new();
        for e in &self.entries {
            out.push_str(&format!("  {:<10} {}\n", e.kind, e.summary));
            for (k, h) in &e.options {
                out.push_str(&format!("      {k:<14} {h}\n"));
            }
        }
        out.push_str("  every kind also takes name=NAME (display name) and seed=N\n");
        out
    }
}

/// Builds a built-in agent from its spec text, for games under `rules`.
///
/// ```
/// use awale::agents::build_agent;
/// use awale::Rules;
/// assert!(build_agent("mcts:sims=100", &Rules::oware(4).unwrap()).is_ok());
/// let err = build_agent("alphabeta", &Rules::oware(4).unwrap()).unwrap_err();
/// assert!(err.to_string().contains("2-player"));
/// ```
pub fn build_agent(spec: &str, rules: &Rules) -> Result<Box<dyn Agent>> {
    Registry::builtin().build(&spec.parse()?, rules)
}

/// An agent under another display name.
struct Named {
    name: String,
    inner: Box<dyn Agent>,
}

impl Agent for Named {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn select(&mut self, turn: &Turn<'_>) -> Result<usize> {
        self.inner.select(turn)
    }
    fn reset(&mut self, seed: u64) {
        self.inner.reset(seed)
    }
}

fn build_alphabeta(spec: &AgentSpec, rules: &Rules) -> Result<Box<dyn Agent>> {
    AlphaBeta::check_rules(rules).map_err(|e| match e {
        AwaleError::BadAgentSpec { reason, .. } => spec.error(reason),
        e => e,
    })?;
    let mut eval = match spec.get("eval") {
        None => Evaluator::default(),
        Some(name) => Evaluator::named(name).ok_or_else(|| {
            spec.error(format!(
                "eval: '{name}' is not an evaluation (strategic, material)"
            ))
        })?,
    };
    let weight = |key: &str, default: i32| -> Result<i32> {
        let w = spec.i64_or(key, default as i64)?;
        i32::try_from(w)
            .ok()
            .filter(|w| w.abs() <= 1_000_000)
            .ok_or_else(|| spec.error(format!("{key}: {w} is out of range (|w| <= 1000000)")))
    };
    eval.store = weight("w_store", eval.store)?;
    eval.board = weight("w_board", eval.board)?;
    eval.mobility = weight("w_mobility", eval.mobility)?;
    eval.grenier = weight("w_grenier", eval.grenier)?;
    eval.threat = weight("w_threat", eval.threat)?;
    let depth = spec.u64_or("depth", 6)?;
    if !(1..=64).contains(&depth) {
        return Err(spec.error(format!("depth: {depth} is not between 1 and 64")));
    }
    let tt_mb = spec.u64_or("tt_mb", 16)?;
    if tt_mb > 4096 {
        return Err(spec.error(format!("tt_mb: {tt_mb} MiB is more than 4096")));
    }
    let cfg = AlphaBetaConfig {
        depth: depth as u32,
        nodes: spec.u64_or("nodes", 0)?,
        time_ms: spec.u64_or("time_ms", 0)?,
        tt_mb: tt_mb as usize,
        eval,
    };
    let mut agent = AlphaBeta::new(cfg).with_name(spec.display_name());
    if let Some(dir) = spec.get("tb") {
        let table = Tablebase::open_shared(Path::new(dir), rules)
            .map_err(|e| spec.error(format!("tb: {e}")))?;
        agent = agent
            .with_tablebase(table, rules)
            .map_err(|e| spec.error(format!("tb: {e}")))?;
    }
    Ok(Box::new(agent))
}

fn build_perfect(spec: &AgentSpec, rules: &Rules) -> Result<Box<dyn Agent>> {
    let dir = spec.get("dir").unwrap_or(crate::tablebase::DEFAULT_DIR);
    let table =
        Tablebase::open_shared(Path::new(dir), rules).map_err(|e| spec.error(e.to_string()))?;
    let depth = spec.u64_or("fallback_depth", 0)?;
    if depth > 64 {
        return Err(spec.error(format!("fallback_depth: {depth} is more than 64")));
    }
    let agent = PerfectAgent::new(table, rules, depth as u32, spec.u64_or("seed", 0)?)
        .map_err(|e| spec.error(e.to_string()))?;
    Ok(Box::new(agent))
}

fn build_mcts(spec: &AgentSpec, _rules: &Rules) -> Result<Box<dyn Agent>> {
    let sims = spec.u64_or("sims", 1000)?;
    if sims == 0 || sims > u32::MAX as u64 {
        return Err(spec.error(format!("sims: {sims} is not between 1 and {}", u32::MAX)));
    }
    let c = spec.f64_or("c", 1.4)?;
    if c < 0.0 {
        return Err(spec.error(format!("c: {c} is negative")));
    }
    let playout_plies = spec.u64_or("playout_plies", 300)?.min(u32::MAX as u64) as u32;
    let cfg = MctsConfig {
        sims: sims as u32,
        time_ms: spec.u64_or("time_ms", 0)?,
        c: c as f32,
        playout_plies,
    };
    Ok(Box::new(Mcts::new(cfg, 0).with_name(spec.display_name())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_round_trip_and_errors_name_the_problem() {
        let s: AgentSpec = " alphabeta:depth=8 , nodes=100 ".parse().unwrap();
        assert_eq!(s.to_string(), "alphabeta:depth=8,nodes=100");
        assert_eq!(s.to_string().parse::<AgentSpec>().unwrap(), s);
        let e = "alphabeta:depth"
            .parse::<AgentSpec>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("KEY=VALUE"), "{e}");
        let e = "mcts:sims=1,sims=2"
            .parse::<AgentSpec>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("twice"), "{e}");
        let rules = Rules::abapa();
        let e = build_agent("alphabeta:depth=x", &rules)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("depth: 'x' is not a whole number"), "{e}");
        let e = build_agent("minimax", &rules).err().unwrap().to_string();
        assert!(
            e.contains("unknown agent 'minimax'") && e.contains("alphabeta"),
            "{e}"
        );
        let e = build_agent("mcts:depth=3", &rules)
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("unknown option 'depth' for mcts") && e.contains("sims"),
            "{e}"
        );
        let e = build_agent("alphabeta:eval=fancy", &rules)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("fancy"), "{e}");
        assert!(build_agent("alphabeta:depth=0", &rules).is_err());
        assert!(build_agent("mcts:sims=0", &rules).is_err());
    }
}
