//! The [`Registry`]: the kinds of agents that specs may name, and the factories that build them.
//!
//! A spec names a kind and its options (`alphabeta:depth=8`, see [`super::spec`]). Every kind
//! accepts two common options: `name=` (the display name in tournaments; by default the spec
//! itself) and `seed=` (the agent's random seed until a tournament reseeds it per game). The
//! built-in kinds (`random`, `greedy`, `alphabeta`, `perfect`, `mcts`) are declared next to their
//! agents as [`AgentKind`]s, which give the options, their defaults and their help; the listing
//! ([`Registry::help`], printed by `awale tournament --help`) is derived from them.
//! [`crate::agent_kinds::available`] adds `nn` (a trained network) in a build with the `train` feature;
//! [`Registry::register`] adds any other kind.
//!
//! ```
//! use awale::agents::{AgentSpec, Registry};
//! use awale::{AwaleError, Rules};
//! let spec: AgentSpec = "alphabeta:depth=4,eval=material".parse().unwrap();
//! let agent = Registry::builtin().build(&spec, &Rules::abapa()).unwrap();
//! assert_eq!(agent.name(), "alphabeta:depth=4,eval=material");
//! let err = Registry::builtin().build(&"alphabeta:dpeth=4".parse().unwrap(), &Rules::abapa());
//! assert!(matches!(err, Err(AwaleError::BadAgentSpec { .. })));
//! assert!(Registry::builtin().help().contains("deepest iteration in plies (default 6)"));
//! ```

use std::fmt;
use std::sync::Arc;

use super::kind::{AgentFactory, AgentKind, Cost, Demand, Kind, OptionInfo, Plan};
use super::spec::AgentSpec;
use super::{alphabeta, greedy, mcts, perfect, random};
use super::{Agent, StopSignal, Thoughts, Turn};
use crate::error::Result;
use crate::rules::Rules;

/// One kind of agent in a [`Registry`]: its listing, and the kind that plans its specs.
#[derive(Clone)]
pub struct RegistryEntry {
    /// The kind, as written in specs.
    pub kind: String,
    /// One line of help.
    pub summary: String,
    /// The options the kind accepts (besides `name` and `seed`), with one line of help each.
    pub options: Vec<(String, String)>,
    infos: Vec<OptionInfo>,
    inner: Arc<dyn Kind>,
}

impl RegistryEntry {
    fn new(inner: Arc<dyn Kind>) -> RegistryEntry {
        let infos = inner.options();
        RegistryEntry {
            kind: inner.name().to_string(),
            summary: inner.summary().to_string(),
            options: infos
                .iter()
                .map(|o| (o.key.clone(), o.help.clone()))
                .collect(),
            infos,
            inner,
        }
    }

    /// The cost class of the option `key` ([`Cost::Free`] for `name`, `seed` and keys the kind
    /// does not take).
    pub fn cost(&self, key: &str) -> Cost {
        self.info(key).map_or(Cost::Free, |o| o.cost)
    }

    /// The option `key` as the kind lists it.
    pub fn info(&self, key: &str) -> Option<&OptionInfo> {
        self.infos.iter().find(|o| o.key == key)
    }

    /// Its options with their cost classes and defaults.
    pub fn option_infos(&self) -> &[OptionInfo] {
        &self.infos
    }

    /// Whether a spec of this kind may run a program, or read or write a file, of the machine
    /// (it has an option of class [`Cost::Machine`]): `engine`. A server offers no such kind.
    pub fn runs_programs(&self) -> bool {
        self.infos.iter().any(|o| o.cost == Cost::Machine)
    }
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

/// A kind given by its parts ([`Registry::register`]): options listed as text, a factory that
/// reads them from the spec itself, nothing declared of its memory.
struct PartsKind {
    kind: String,
    summary: String,
    options: Vec<OptionInfo>,
    factory: AgentFactory,
}

impl Kind for PartsKind {
    fn name(&self) -> &str {
        &self.kind
    }

    fn summary(&self) -> &str {
        &self.summary
    }

    fn options(&self) -> Vec<OptionInfo> {
        self.options.clone()
    }

    fn plan(&self, spec: &AgentSpec) -> Result<Plan> {
        let demands = self
            .options
            .iter()
            .filter(|o| o.cost != Cost::Free)
            .map(|o| {
                let value = spec.get(&o.key).map(str::to_string);
                Ok(Demand {
                    key: o.key.clone(),
                    cost: o.cost,
                    amount: match &value {
                        Some(v) if o.cost.is_amount() => Some(
                            super::kind::whole(v)
                                .map_err(|reason| spec.error(format!("{}: {reason}", o.key)))?,
                        ),
                        _ => None,
                    },
                    given: value.is_some(),
                    value,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Plan {
            demands,
            memory_bytes: 0,
            instant: false,
            factory: self.factory.clone(),
        })
    }
}

/// The kinds of agents that specs may name, each with its factory. [`Registry::builtin`] has
/// `random`, `greedy`, `alphabeta`, `perfect` and `mcts`; [`crate::agent_kinds::available`] adds `nn` in a
/// build with the trainer and `engine`; [`Registry::register_kind`] and [`Registry::register`]
/// add more.
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

    /// The built-in agents, in listing order.
    pub fn builtin() -> Registry {
        let mut r = Registry::empty();
        r.register_kind(&random::KIND);
        r.register_kind(&greedy::KIND);
        r.register_kind(&alphabeta::KIND);
        r.register_kind(&perfect::KIND);
        r.register_kind(&mcts::KIND);
        r
    }

    /// Adds (or replaces) a kind declared as an [`AgentKind`]: its options, their help, its
    /// costs and its factory all come from the declaration. Every kind of the crate (built-in,
    /// `nn`, `engine`) is added this way.
    pub fn register_kind<S: Clone + Send + Sync + 'static>(&mut self, kind: &'static AgentKind<S>) {
        self.insert(RegistryEntry::new(Arc::new(kind)));
    }

    /// Adds (or replaces) a kind of agent given by its parts (a Python anchor of a ladder).
    /// `options` lists the keys it accepts besides the common `name` and `seed`, with a line of
    /// help each (defaults included) and its cost class; the factory reads them from the spec
    /// itself. Its agents are taken to hold no memory. [`Registry::register_kind`] derives all of
    /// it from one declaration instead.
    pub fn register(
        &mut self,
        kind: &str,
        summary: &str,
        options: &[(&str, &str, Cost)],
        factory: AgentFactory,
    ) {
        self.insert(RegistryEntry::new(Arc::new(PartsKind {
            kind: kind.to_string(),
            summary: summary.to_string(),
            options: options
                .iter()
                .map(|&(k, h, cost)| OptionInfo {
                    key: k.to_string(),
                    help: h.to_string(),
                    cost,
                    has_default: false,
                })
                .collect(),
            factory,
        })));
    }

    /// Removes a kind.
    pub fn remove(&mut self, kind: &str) {
        self.entries.retain(|e| e.kind != kind);
    }

    fn insert(&mut self, entry: RegistryEntry) {
        match self.entries.iter_mut().find(|e| e.kind == entry.kind) {
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
            let knows = |key: &str| entry.options.iter().any(|(o, _)| o == key);
            if k != "name" && k != "seed" && !knows(k) {
                if let Some(new) = super::kind::renamed_option(k).filter(|new| knows(new)) {
                    return Err(spec.error(format!(
                        "unknown option '{k}' for {}: it was renamed '{new}'",
                        spec.kind
                    )));
                }
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

    /// The spec's kind, its options checked against the kind's (an unknown kind or option is
    /// an error naming the known ones).
    pub fn kind_of(&self, spec: &AgentSpec) -> Result<&RegistryEntry> {
        self.entry(spec)
    }

    /// What `spec` asks for as written, before its kind parses it: each given option of an
    /// amount class ([`Cost::is_amount`]) with its amount (a value that is no whole number is an
    /// error). A server caps these first, whatever the kind would say of the value.
    pub fn given(&self, spec: &AgentSpec) -> Result<Vec<Demand>> {
        let entry = self.entry(spec)?;
        entry
            .infos
            .iter()
            .filter(|o| o.cost.is_amount())
            .filter_map(|o| spec.get(&o.key).map(|v| (o, v)))
            .map(|(o, v)| {
                let amount = super::kind::whole(v)
                    .map_err(|reason| spec.error(format!("{}: {reason}", o.key)))?;
                Ok(Demand {
                    key: o.key.clone(),
                    cost: o.cost,
                    amount: Some(amount),
                    value: Some(v.to_string()),
                    given: true,
                })
            })
            .collect()
    }

    /// The spec parsed once by its kind ([`Plan`]: typed settings with every default resolved,
    /// what it costs, its memory), with the name and seed applied by its factory.
    ///
    /// ```
    /// use awale::agents::{Cost, Registry};
    /// let plan = Registry::builtin().plan(&"alphabeta:depth=4,tt_mb=2".parse().unwrap()).unwrap();
    /// assert_eq!(plan.demand(Cost::Depth).unwrap().amount, Some(4));
    /// assert_eq!(plan.demand(Cost::MoveTimeMs).unwrap().amount, Some(0)); // the default: none
    /// assert_eq!(plan.memory_bytes, 2 << 20);
    /// assert!(!plan.instant);
    /// ```
    pub fn plan(&self, spec: &AgentSpec) -> Result<Plan> {
        let entry = self.entry(spec)?;
        let seed = spec.u64_or("seed", 0)?;
        let mut plan = entry.inner.plan(spec)?;
        let name = spec.display_name();
        let inner = plan.factory.clone();
        plan.factory = Arc::new(move |spec: &AgentSpec, rules: &Rules| {
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
        });
        Ok(plan)
    }

    /// Builds the agent a spec describes, for games under `rules`.
    pub fn build(&self, spec: &AgentSpec, rules: &Rules) -> Result<Box<dyn Agent>> {
        let factory = self.factory(spec)?;
        factory(spec, rules)
    }

    /// The complete factory for `spec` (the spec parsed once, name and seed applied), to build
    /// as many agents as needed, e.g. one per tournament game.
    pub fn factory(&self, spec: &AgentSpec) -> Result<AgentFactory> {
        Ok(self.plan(spec)?.factory())
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
    fn thoughts(&self) -> Option<Thoughts> {
        self.inner.thoughts()
    }
    fn set_stop(&mut self, stop: StopSignal) {
        self.inner.set_stop(stop)
    }
    fn set_depth_limit(&mut self, depth: Option<u32>) -> bool {
        self.inner.set_depth_limit(depth)
    }
    fn memory_bytes(&self, rules: &Rules) -> u64 {
        self.inner.memory_bytes(rules)
    }
    fn forfeits(&self) -> bool {
        self.inner.forfeits()
    }
    fn log_to(&mut self, dir: &std::path::Path) {
        self.inner.log_to(dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_errors_name_the_problem() {
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
        // A renamed key is refused with its new name, for every kind that has the new one.
        for (spec, old) in [
            ("alphabeta:time_ms=100", "time_ms"),
            ("mcts:time_ms=100", "time_ms"),
            ("perfect:time_ms=100", "time_ms"),
            ("alphabeta:movetime=100", "movetime"),
        ] {
            let e = build_agent(spec, &rules).err().unwrap().to_string();
            assert!(
                e.contains(&format!("unknown option '{old}'"))
                    && e.contains("it was renamed 'move_time_ms'"),
                "{spec}: {e}"
            );
        }
        // A kind without the new key: the plain refusal, its known keys listed.
        let e = build_agent("greedy:time_ms=100", &rules)
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("unknown option 'time_ms' for greedy") && !e.contains("renamed"),
            "{e}"
        );
        assert!(build_agent("alphabeta:move_time_ms=100,depth=2", &rules).is_ok());
        let e = build_agent("alphabeta:eval=fancy", &rules)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("fancy"), "{e}");
        assert!(build_agent("alphabeta:depth=0", &rules).is_err());
        assert!(build_agent("mcts:sims=0", &rules).is_err());
    }
}
