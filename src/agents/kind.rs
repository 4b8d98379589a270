//! How a kind of agent declares itself, once: [`AgentKind`] holds its spec name, its summary,
//! its options ([`AgentOption`]: key, help, how a spec value sets it, how its default shows) and
//! how it builds the agent. The [`Registry`](super::Registry)'s factory, option check and help
//! listing are all derived from it. The built-in kinds are declared next to their agents
//! ([`super::alphabeta::KIND`], [`super::mcts::KIND`], …).
//!
//! Defaults live in the kind's settings type (its `defaults`, usually the agent config's
//! `Default`); the listing prints them from there, so an option is written once.
//!
//! ```
//! use awale::agents::{mcts, AgentSpec};
//! let spec: AgentSpec = "mcts:sims=50".parse().unwrap();
//! let settings = mcts::KIND.settings(&spec).unwrap();
//! assert_eq!(settings.sims, 50);
//! assert_eq!(settings.playout_plies, 300); // the default
//! let help = mcts::KIND.option_help();
//! assert_eq!(help[0], ("sims".to_string(), "simulations per move (default 1000)".to_string()));
//! ```

use std::fmt;
use std::sync::Arc;

use super::spec::AgentSpec;
use super::Agent;
use crate::error::Result;
use crate::rules::Rules;

/// Builds an agent: the options of the spec have been checked against the kind's known keys.
pub type AgentFactory = Arc<dyn Fn(&AgentSpec, &Rules) -> Result<Box<dyn Agent>> + Send + Sync>;

/// What the value of an option lets whoever writes the spec spend: the class a server that
/// runs other people's specs (`awale serve`) caps it by, whatever the kind and the key.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Cost {
    /// Nothing to cap: a weight, a choice, a name, a limit that only shortens the search, a
    /// length that the move's time already bounds (the `mcts` playout's).
    #[default]
    Free,
    /// Thinking time per move, in milliseconds.
    TimeMs,
    /// Search depth, in plies.
    Depth,
    /// Simulations per move (a tree of as many nodes).
    Simulations,
    /// Memory, in MiB.
    MemoryMb,
    /// A network file, by path.
    NetworkFile,
    /// A folder of endgame tables.
    Tables,
    /// A program to run, or a file to read or write, on the machine.
    Machine,
}

/// One option of an agent kind, for settings of type `S`.
pub struct AgentOption<S> {
    /// The key, as written in specs (`"depth"`).
    pub key: &'static str,
    /// What it does, one line, without its default (the listing appends it).
    pub help: &'static str,
    /// What its value costs ([`Cost`]).
    pub cost: Cost,
    /// Writes a spec value to the settings; the error is the reason (the caller adds the spec
    /// and the key: `depth: 'x' is not a whole number`).
    pub set: fn(&mut S, &str) -> std::result::Result<(), String>,
    /// The value as a spec writes it, to show the default; `None` when it is off by default.
    pub show: fn(&S) -> Option<String>,
}

impl<S> fmt::Debug for AgentOption<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentOption")
            .field("key", &self.key)
            .field("help", &self.help)
            .finish_non_exhaustive()
    }
}

/// A kind of agent: the one declaration its registry entry is derived from.
pub struct AgentKind<S: 'static> {
    /// The kind, as written in specs (`"alphabeta"`).
    pub kind: &'static str,
    /// One line of help.
    pub summary: &'static str,
    /// The options it accepts besides the common `name` and `seed`, in listing order; a spec's
    /// options are applied in this order whatever the order they are written in.
    pub options: &'static [AgentOption<S>],
    /// The settings of a spec without options: every default.
    pub defaults: fn() -> S,
    /// Builds the agent from its settings (the spec is there for its name, its seed and errors).
    pub build: fn(S, &AgentSpec, &Rules) -> Result<Box<dyn Agent>>,
}

impl<S> fmt::Debug for AgentKind<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentKind")
            .field("kind", &self.kind)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl<S> AgentKind<S> {
    /// The settings `spec` asks for: the defaults with each given option set on them. Keys the
    /// kind does not know are left to the registry (which refuses them first).
    pub fn settings(&self, spec: &AgentSpec) -> Result<S> {
        let mut settings = (self.defaults)();
        for option in self.options {
            if let Some(value) = spec.get(option.key) {
                (option.set)(&mut settings, value)
                    .map_err(|reason| spec.error(format!("{}: {reason}", option.key)))?;
            }
        }
        Ok(settings)
    }

    /// Each option's key and help line, its default appended (`(default 6)`, `(default: none)`).
    pub fn option_help(&self) -> Vec<(String, String)> {
        let defaults = (self.defaults)();
        self.options
            .iter()
            .map(|o| {
                let default = match (o.show)(&defaults) {
                    Some(v) => format!("(default {v})"),
                    None => "(default: none)".to_string(),
                };
                (o.key.to_string(), format!("{} {default}", o.help))
            })
            .collect()
    }

    /// Each option's key and cost class.
    pub fn option_costs(&self) -> Vec<(String, Cost)> {
        self.options
            .iter()
            .map(|o| (o.key.to_string(), o.cost))
            .collect()
    }

    /// The factory of agents of this kind: settings from the spec, then the agent.
    pub fn factory(&'static self) -> AgentFactory {
        Arc::new(move |spec: &AgentSpec, rules: &Rules| {
            let settings = self.settings(spec)?;
            (self.build)(settings, spec, rules)
        })
    }
}

/// A spec value as a whole number.
pub fn whole(value: &str) -> std::result::Result<u64, String> {
    value
        .parse()
        .map_err(|_| format!("'{value}' is not a whole number"))
}

/// A spec value as a whole number that may be negative.
pub fn signed(value: &str) -> std::result::Result<i64, String> {
    value
        .parse()
        .map_err(|_| format!("'{value}' is not a whole number"))
}

/// A spec value as a finite number.
pub fn real(value: &str) -> std::result::Result<f64, String> {
    match value.parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x),
        _ => Err(format!("'{value}' is not a number")),
    }
}
