//! Any agent as the opponent of a batch or an environment: `opponent="alphabeta:depth=2"`,
//! `"mcts:sims=200"`, `"perfect:fallback_depth=6"`, `"nn:path=…"` (with `awale::network::registry()`).
//!
//! The batch asks its [`OpponentPolicy`] for a move from any of its worker threads. [`AgentPolicy`]
//! keeps one agent per thread (built on first use), resets it with a seed drawn from the board's
//! own random stream before every move, and shows it the position without history: a move
//! depends only on the position and the board's stream, so a batch stays reproducible whatever
//! its thread count.
//!
//! ```
//! use awale::agents::{opponent_from_spec, Registry};
//! use awale::batch::{Batch, BatchConfig};
//! use awale::Rules;
//! let rules = Rules::abapa();
//! let opponent = opponent_from_spec("alphabeta:depth=2", &rules, &Registry::builtin()).unwrap();
//! assert_eq!(opponent.name(), "alphabeta:depth=2");
//! assert_eq!(opponent_from_spec("greedy", &rules, &Registry::builtin()).unwrap().name(), "greedy");
//! let e = opponent_from_spec("alphazero", &rules, &Registry::builtin()).unwrap_err();
//! assert!(e.to_string().contains("unknown opponent 'alphazero'"));
//! ```

use std::cell::RefCell;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::kind::AgentFactory;
use super::registry::Registry;
use super::spec::AgentSpec;
use super::{Agent, Turn};
use crate::batch::{League, Opponent, OpponentPolicy};
use crate::error::{AwaleError, Result};
use crate::rules::Rules;
use crate::state::State;

/// An agent spec playing the opponent seats of a batch (see the [module](self) docs).
pub struct AgentPolicy {
    name: String,
    spec: AgentSpec,
    factory: AgentFactory,
    id: u64,
    /// Alive while the policy is: the threads' agents of a dropped policy are freed.
    alive: Arc<()>,
}

impl fmt::Debug for AgentPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "AgentPolicy({})", self.name)
    }
}

/// One thread's agent of a policy: the policy's id, its liveness, the agent.
type ThreadAgent = (u64, Weak<()>, Box<dyn Agent>);

thread_local! {
    /// Each thread's agents.
    static AGENTS: RefCell<Vec<ThreadAgent>> = const { RefCell::new(Vec::new()) };
}

impl AgentPolicy {
    /// The agent of `spec` (built from `registry`) as an opponent under `rules`. The agent is
    /// built once here to check the spec. `perfect` needs `fallback_depth`: every game passes
    /// positions outside the table. An `alphabeta` without `tt_mb` gets a 1 MiB table (it is
    /// cleared before every move).
    pub fn new(spec: &AgentSpec, rules: &Rules, registry: &Registry) -> Result<AgentPolicy> {
        let mut spec = spec.clone();
        if spec.kind == "perfect" && spec.u64_or("fallback_depth", 0)? == 0 {
            return Err(AwaleError::BadAgentSpec {
                spec: spec.to_string(),
                reason: "as an opponent, perfect needs fallback_depth=N (alpha-beta outside the \
                         table): games pass positions with more seeds than any table"
                    .into(),
            });
        }
        // The spec as written (with its `name=`, if any): a batch snapshot or pickle names its
        // opponent by it and builds the same one back.
        let name = spec.to_string();
        if spec.kind == "alphabeta" && spec.get("tt_mb").is_none() {
            spec.options.push(("tt_mb".into(), "1".into()));
        }
        let factory = registry.factory(&spec)?;
        factory(&spec, rules)?;
        static NEXT: AtomicU64 = AtomicU64::new(0);
        Ok(AgentPolicy {
            name,
            spec,
            factory,
            id: NEXT.fetch_add(1, Ordering::Relaxed),
            alive: Arc::new(()),
        })
    }
}

impl OpponentPolicy for AgentPolicy {
    fn name(&self) -> &str {
        &self.name
    }

    fn choose(&self, rules: &Rules, state: &State, legal: u16, rng: &mut ChaCha8Rng) -> usize {
        let seed: u64 = rng.random();
        AGENTS.with(|agents| {
            let mut agents = agents.borrow_mut();
            let k = match agents.iter().position(|a| a.0 == self.id) {
                Some(k) => k,
                None => {
                    agents.retain(|a| a.1.strong_count() > 0);
                    // Built once already in `new` with the same spec and rules.
                    let Ok(agent) = (self.factory)(&self.spec, rules) else {
                        return legal.trailing_zeros() as usize;
                    };
                    agents.push((self.id, Arc::downgrade(&self.alive), agent));
                    agents.len() - 1
                }
            };
            let agent = &mut agents[k].2;
            agent.reset(seed);
            // An agent that fails on a legal position (none of the built-in ones does once
            // built) gives way to the lowest legal house, which the batch would also play for
            // an illegal choice.
            agent
                .select(&Turn::new(rules, state))
                .unwrap_or(legal.trailing_zeros() as usize)
        })
    }
}

/// The opponent named by `text`: a built-in batch opponent (`self`, `random`, `capture`,
/// `greedy`), any agent spec of `registry` ([`AgentPolicy`]), or a league of them,
/// `league:MEMBER|MEMBER|…` (one member drawn per episode; [`crate::batch::League`]).
///
/// ```
/// use awale::agents::{opponent_from_spec, Registry};
/// let rules = awale::Rules::abapa();
/// let o = opponent_from_spec("league:random|alphabeta:depth=2", &rules, &Registry::builtin()).unwrap();
/// assert_eq!(o.league_size(), 2);
/// assert!(opponent_from_spec("league:", &rules, &Registry::builtin()).is_err());
/// ```
pub fn opponent_from_spec(text: &str, rules: &Rules, registry: &Registry) -> Result<Opponent> {
    if let Some(list) = text.trim().strip_prefix("league:") {
        let members = list
            .split('|')
            .map(|m| {
                if m.trim().is_empty() {
                    return Err(AwaleError::BadBatchInput(format!(
                        "opponent '{text}': an empty league member"
                    )));
                }
                opponent_from_spec(m, rules, registry)
            })
            .collect::<Result<Vec<_>>>()?;
        let league = League::new(members).map_err(|e| unknown(text, e))?;
        return Ok(Opponent::League(Arc::new(league)));
    }
    if let Ok(o) = text.parse::<Opponent>() {
        return Ok(o);
    }
    let spec: AgentSpec = text.parse().map_err(|e| unknown(text, e))?;
    if registry.entries().iter().all(|e| e.kind != spec.kind) {
        let known: Vec<&str> = registry.entries().iter().map(|e| e.kind.as_str()).collect();
        return Err(AwaleError::BadBatchInput(format!(
            "unknown opponent '{text}' (known: {}, or an agent spec: {})",
            Opponent::NAMES.join(", "),
            known.join(", ")
        )));
    }
    let policy = AgentPolicy::new(&spec, rules, registry).map_err(|e| unknown(text, e))?;
    Ok(Opponent::Policy(Arc::new(policy)))
}

fn unknown(text: &str, e: AwaleError) -> AwaleError {
    AwaleError::BadBatchInput(format!("opponent '{text}': {e}"))
}
