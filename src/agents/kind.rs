//! How a kind of agent declares itself, once: [`AgentKind`] holds its spec name, its summary,
//! its options ([`AgentOption`]: key, help, how a spec value sets it, how its default shows) and
//! how it builds the agent. The [`Registry`](super::Registry)'s factory, option check and help
//! listing are all derived from it. The built-in kinds are declared next to their agents
//! ([`super::alphabeta::KIND`], [`super::mcts::KIND`], …).
//!
//! Defaults live in the kind's settings type (its `defaults`, usually the agent config's
//! `Default`); the listing prints them from there, so an option is written once.
//!
//! A kind also says what the tools that run other people's specs need to know (`awale serve`,
//! tournaments, the scorecard, Python), so that none of them names a kind: a spec is parsed
//! **once** into a [`Plan`] — typed settings with every default resolved, what each costed
//! option comes to ([`Demand`]), the memory its agents hold (known before one is built),
//! whether its moves are instant — and the agents are built from that plan. Whether a kind may
//! run a program or read a file follows from its options' [`Cost`] classes.
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

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use super::spec::AgentSpec;
use super::Agent;
use crate::error::Result;
use crate::rules::Rules;

/// Builds an agent: the options of the spec have been checked against the kind's known keys.
pub type AgentFactory = Arc<dyn Fn(&AgentSpec, &Rules) -> Result<Box<dyn Agent>> + Send + Sync>;

/// What the agents built from one plan share, made once per [`Plan`] by a kind that has
/// something to share ([`AgentKind::shared`]: the engine's pool of processes, killed when the
/// last agent and the plan are gone).
pub type Shared = Arc<dyn Any + Send + Sync>;

/// What the value of an option lets whoever writes the spec spend: the class a server that
/// runs other people's specs (`awale serve`) caps it by, whatever the kind and the key.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Cost {
    /// Nothing to cap: a weight, a choice, a name, a limit that only shortens the search, a
    /// length that the move's time already bounds (the `mcts` playout's).
    #[default]
    Free,
    /// Thinking time per move, in milliseconds.
    MoveTimeMs,
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

impl Cost {
    /// Whether the option's value is an amount (a whole number a server caps): time, depth,
    /// simulations, memory.
    pub fn is_amount(self) -> bool {
        matches!(
            self,
            Cost::MoveTimeMs | Cost::Depth | Cost::Simulations | Cost::MemoryMb
        )
    }
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
    /// Whether its moves cost next to nothing (`random`, `greedy`): a server lets them think
    /// without waiting for a thinking turn.
    pub instant: bool,
    /// The memory (bytes) an agent of these settings holds at most — its transposition table,
    /// its tree at its whole budget, its network — known before one is built; 0 for next to
    /// nothing. [`Agent::memory_bytes`] of the agent built never says more (a test holds it).
    pub memory: fn(&S) -> u64,
    /// What its agents share, made once per plan (`None` for kinds whose agents share nothing).
    pub shared: Option<fn() -> Shared>,
    /// Builds the agent from its settings (the spec is there for its name, its seed and errors;
    /// `shared` is the plan's, for kinds that have [`AgentKind::shared`]).
    pub build: BuildFn<S>,
}

/// How an [`AgentKind`] builds an agent from its settings, the spec, the rules and what the
/// agents of its plan share.
pub type BuildFn<S> = fn(S, &AgentSpec, &Rules, Option<&Shared>) -> Result<Box<dyn Agent>>;

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

    /// Each option's key, help, cost class and whether it has a default.
    fn option_infos(&self) -> Vec<OptionInfo> {
        let defaults = (self.defaults)();
        self.option_help()
            .into_iter()
            .zip(self.options)
            .map(|((key, help), o)| OptionInfo {
                key,
                help,
                cost: o.cost,
                has_default: (o.show)(&defaults).is_some(),
            })
            .collect()
    }
}

/// A declared kind as a registry holds it.
impl<S: Clone + Send + Sync + 'static> Kind for &'static AgentKind<S> {
    fn name(&self) -> &str {
        self.kind
    }

    fn summary(&self) -> &str {
        self.summary
    }

    fn options(&self) -> Vec<OptionInfo> {
        self.option_infos()
    }

    fn plan(&self, spec: &AgentSpec) -> Result<Plan> {
        let kind: &'static AgentKind<S> = self;
        let settings = kind.settings(spec)?;
        let demands = kind
            .options
            .iter()
            .filter(|o| o.cost != Cost::Free)
            .map(|o| {
                let value = (o.show)(&settings);
                Demand {
                    key: o.key.to_string(),
                    cost: o.cost,
                    amount: value
                        .as_deref()
                        .filter(|_| o.cost.is_amount())
                        .and_then(|v| v.parse().ok()),
                    value,
                    given: spec.get(o.key).is_some(),
                }
            })
            .collect();
        let memory_bytes = (kind.memory)(&settings);
        let shared = kind.shared.map(|make| make());
        let factory: AgentFactory = Arc::new(move |spec: &AgentSpec, rules: &Rules| {
            (kind.build)(settings.clone(), spec, rules, shared.as_ref())
        });
        Ok(Plan {
            demands,
            memory_bytes,
            instant: kind.instant,
            factory,
        })
    }
}

/// One option of a kind, as a registry lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionInfo {
    /// The key, as written in specs.
    pub key: String,
    /// One line of help, its default appended.
    pub help: String,
    /// What its value costs.
    pub cost: Cost,
    /// Whether it has a value when a spec gives none (a folder of tables by default, say).
    pub has_default: bool,
}

/// What one costed option of a spec comes to, as its kind resolved it (the spec's value, else
/// the kind's default at these settings: a baseline's simulations, say).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Demand {
    /// The option's key.
    pub key: String,
    /// Its cost class.
    pub cost: Cost,
    /// The amount, for the classes that are amounts ([`Cost::is_amount`]); `None` when the
    /// option is off.
    pub amount: Option<u64>,
    /// The value as a spec writes it; `None` when the option is off.
    pub value: Option<String>,
    /// Whether the spec gave it (else it is the kind's default).
    pub given: bool,
}

/// A spec parsed once by its kind: what it costs, and the factory of its agents (each built from
/// the same typed settings). [`super::Registry::plan`] makes one.
pub struct Plan {
    /// Each costed option, resolved.
    pub demands: Vec<Demand>,
    /// The memory one agent holds at most, in bytes, before it is built.
    pub memory_bytes: u64,
    /// Whether its moves cost next to nothing.
    pub instant: bool,
    pub(super) factory: AgentFactory,
}

impl fmt::Debug for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Plan")
            .field("demands", &self.demands)
            .field("memory_bytes", &self.memory_bytes)
            .field("instant", &self.instant)
            .finish_non_exhaustive()
    }
}

impl Plan {
    /// The resolved demand of cost class `cost`, if the kind has such an option (the first).
    pub fn demand(&self, cost: Cost) -> Option<&Demand> {
        self.demands.iter().find(|d| d.cost == cost)
    }

    /// Whether its agents use endgame tables (an option of class [`Cost::Tables`] is set).
    pub fn uses_tables(&self) -> bool {
        self.demands
            .iter()
            .any(|d| d.cost == Cost::Tables && d.value.is_some())
    }

    /// The factory of its agents (each built from the plan's settings).
    pub fn factory(&self) -> AgentFactory {
        self.factory.clone()
    }
}

/// A kind of agent as a [`super::Registry`] holds it: an [`AgentKind`] declaration, or one given
/// by its parts ([`super::Registry::register`]).
pub trait Kind: Send + Sync {
    /// The kind, as written in specs.
    fn name(&self) -> &str;
    /// One line of help.
    fn summary(&self) -> &str;
    /// Its options besides `name` and `seed`, in listing order.
    fn options(&self) -> Vec<OptionInfo>;
    /// Parses `spec` (its keys already checked) into a plan.
    fn plan(&self, spec: &AgentSpec) -> Result<Plan>;
}

/// Option keys that were renamed, old → new: a spec that still writes an old key is refused
/// with an error naming the new one (never read as the new key silently).
pub const RENAMED_OPTIONS: &[(&str, &str)] =
    &[("time_ms", "move_time_ms"), ("movetime", "move_time_ms")];

/// The key that option `old` was renamed to, if it was ([`RENAMED_OPTIONS`]).
///
/// ```
/// use awale::agents::kind::renamed_option;
/// assert_eq!(renamed_option("time_ms"), Some("move_time_ms"));
/// assert_eq!(renamed_option("depth"), None);
/// ```
pub fn renamed_option(old: &str) -> Option<&'static str> {
    RENAMED_OPTIONS
        .iter()
        .find(|(o, _)| *o == old)
        .map(|(_, new)| *new)
}

/// A spec value as a whole number.
pub fn whole(value: &str) -> std::result::Result<u64, String> {
    value
        .parse()
        .map_err(|_| format!("'{value}' is not a whole number"))
}

/// A spec value as a switch: `true` or `false`.
///
/// ```
/// use awale::agents::kind::switch;
/// assert_eq!(switch("true"), Ok(true));
/// assert!(switch("yes").unwrap_err().contains("true or false"));
/// ```
pub fn switch(value: &str) -> std::result::Result<bool, String> {
    match value {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(format!("'{value}' is not true or false")),
    }
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
