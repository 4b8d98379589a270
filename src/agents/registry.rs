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

use super::kind::{AgentFactory, AgentKind, Cost};
use super::spec::AgentSpec;
use super::{alphabeta, greedy, mcts, perfect, random};
use super::{Agent, StopSignal, Thoughts, Turn};
use crate::error::Result;
use crate::rules::Rules;

/// One kind of agent in a [`Registry`].
#[derive(Clone)]
pub struct RegistryEntry {
    /// The kind, as written in specs.
    pub kind: String,
    /// One line of help.
    pub summary: String,
    /// The options the kind accepts (besides `name` and `seed`), with one line of help each.
    pub options: Vec<(String, String)>,
    /// Each option's cost class (what a server caps it by).
    costs: Vec<(String, Cost)>,
    factory: AgentFactory,
    session: Option<SessionFactory>,
}

impl RegistryEntry {
    /// The cost class of the option `key` ([`Cost::Free`] for `name`, `seed` and keys the kind
    /// does not take).
    pub fn cost(&self, key: &str) -> Cost {
        self.costs
            .iter()
            .find(|(k, _)| k == key)
            .map_or(Cost::Free, |&(_, c)| c)
    }

    /// The key of its option of cost class `cost`, if it has one (the first).
    pub fn option_of_cost(&self, cost: Cost) -> Option<&str> {
        self.costs
            .iter()
            .find(|&&(_, c)| c == cost)
            .map(|(k, _)| k.as_str())
    }
}

/// Makes a fresh factory for each [`Registry::factory`] call: for kinds whose agents share
/// something that must live as long as one user of the factory, and no longer (the engine
/// processes of one tournament entrant).
pub type SessionFactory = Arc<dyn Fn() -> AgentFactory + Send + Sync>;

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
/// `random`, `greedy`, `alphabeta`, `perfect` and `mcts`; [`crate::agent_kinds::available`] adds `nn` in a
/// build with the trainer; [`Registry::register`] and [`Registry::register_kind`] add more.
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

    /// Adds (or replaces) a kind declared as an [`AgentKind`]: its options, their help and its
    /// factory all come from the declaration.
    pub fn register_kind<S>(&mut self, kind: &'static AgentKind<S>) {
        self.insert(RegistryEntry {
            kind: kind.kind.to_string(),
            summary: kind.summary.to_string(),
            options: kind.option_help(),
            costs: kind.option_costs(),
            factory: kind.factory(),
            session: None,
        });
    }

    /// Adds (or replaces) a kind of agent given by its parts. `options` lists the keys it accepts
    /// besides the common `name` and `seed`, with a line of help each (defaults included) and
    /// its cost class; the factory reads them from the spec itself. [`Registry::register_kind`] derives all of it from
    /// one declaration instead.
    pub fn register(
        &mut self,
        kind: &str,
        summary: &str,
        options: &[(&str, &str, Cost)],
        factory: AgentFactory,
    ) {
        let entry = RegistryEntry {
            kind: kind.to_string(),
            summary: summary.to_string(),
            options: options
                .iter()
                .map(|(k, h, _)| (k.to_string(), h.to_string()))
                .collect(),
            costs: options
                .iter()
                .map(|&(k, _, c)| (k.to_string(), c))
                .collect(),
            factory,
            session: None,
        };
        self.insert(entry);
    }

    /// Adds (or replaces) a kind whose every [`Registry::factory`] call gets a factory of its own
    /// from `session` (see [`SessionFactory`]); a lone [`Registry::build`] too. Its name, help
    /// and options are `kind`'s.
    pub fn register_session<S>(&mut self, kind: &'static AgentKind<S>, session: SessionFactory) {
        let fresh = session.clone();
        let factory: AgentFactory =
            Arc::new(move |spec: &AgentSpec, rules: &Rules| fresh()(spec, rules));
        self.insert(RegistryEntry {
            kind: kind.kind.to_string(),
            summary: kind.summary.to_string(),
            options: kind.option_help(),
            costs: kind.option_costs(),
            factory,
            session: Some(session),
        });
    }

    /// Removes a kind (`awale serve` removes `engine`: no client may start a program).
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
        let inner = match &entry.session {
            Some(session) => session(),
            None => entry.factory.clone(),
        };
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
        let e = build_agent("alphabeta:eval=fancy", &rules)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("fancy"), "{e}");
        assert!(build_agent("alphabeta:depth=0", &rules).is_err());
        assert!(build_agent("mcts:sims=0", &rules).is_err());
    }
}
