//! A trained network at play: batched evaluation for searches through [`NetEvaluator`] (over
//! a [`NetCore`]), and
//! [`NnAgent`], an [`Agent`] that searches with the network (`nn:path=run/checkpoint.ckpt,sims=64`).
//!
//! ```no_run
//! use awale::tournament::Entrant;
//! use awale::Rules;
//! // `nn` is added to the built-in agents by `awale::network::registry()` (or `register_agents`).
//! let rules = Rules::abapa();
//! let e = Entrant::from_spec(&awale::network::registry(), &"nn:path=runs/abapa/checkpoint.ckpt,sims=64".parse().unwrap(), &rules).unwrap();
//! ```

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

pub use super::model::load_model;
use super::net_core::{NetCore, PlayDefaults};
use crate::agents::kind::{self, AgentKind, AgentOption};
use crate::agents::{
    no_move, search_limit, Agent, MoveThought, PlayoutEvaluator, StopSignal, Thoughts, Turn,
};
use crate::agents::{AgentSpec, Cost, Registry};
use crate::az::network::NetworkEvaluator;
use crate::az::TrainResult;
use crate::error::{AwaleError, Result};
use crate::rules::Rules;
use crate::search::{check_sims, Backup, Mix, Policy, Search, SearchKind, SearchSettings};
use crate::state::State;
use crate::tablebase::Tablebase;

/// A [`crate::az::LeafEvaluator`] over a [`NetCore`] (one network call per batch).
pub type NetEvaluator<'a> = NetworkEvaluator<'a, NetCore>;

/// A network that plays: a search of `sims` simulations guided by it, no noise, the search's
/// best move (spec `nn:path=FILE,sims=N,search=gumbel|puct[,move_time_ms=MS][,tb=DIR][,rollouts=λ]`). With
/// endgame tables ([`NnAgent::with_tablebase`]), it plays the tables' best moves (ties at
/// random) wherever they cover the position, as `perfect` does, and searches elsewhere. With
/// `move_time_ms` ([`NnAgent::with_move_time_ms`]) or a stop signal ([`Agent::set_stop`]), read before
/// every simulation, the search ends early (after one simulation at least) with the move it
/// prefers so far.
#[derive(Debug)]
pub struct NnAgent {
    core: Arc<NetCore>,
    name: String,
    sims: u32,
    search: Search,
    rng: ChaCha8Rng,
    /// The last move's search and the mover, for [`Agent::thoughts`].
    last: Option<(crate::search::GuidedSearchResult, usize)>,
    /// Endgame tables probed at the root.
    tablebase: Option<Arc<Tablebase>>,
    /// The move time in milliseconds, 0 for none.
    move_time_ms: u64,
    /// Read with the clock ([`Agent::set_stop`]).
    stop: Option<StopSignal>,
    /// AlphaGo's leaf evaluation: the weight λ of one random playout's result in each leaf's
    /// value, and the playouts ([`NnAgent::with_rollouts`]).
    rollouts: Option<(f32, PlayoutEvaluator)>,
    /// Keeps the search tree from move to move ([`NnAgent::with_reuse_tree`]).
    reuse_tree: bool,
}

impl NnAgent {
    /// An agent over `core` searching `sims` simulations per move with `settings`.
    pub fn new(
        core: Arc<NetCore>,
        name: impl Into<String>,
        sims: u32,
        settings: SearchSettings,
    ) -> NnAgent {
        let rules = core.rules;
        NnAgent {
            core,
            name: name.into(),
            sims,
            search: Search::new(rules, settings),
            rng: ChaCha8Rng::seed_from_u64(0),
            last: None,
            tablebase: None,
            move_time_ms: 0,
            stop: None,
            rollouts: None,
            reuse_tree: false,
        }
    }

    /// Keeps the search tree from move to move: each search starts from what the last one
    /// learnt of the position (the subtree below the move it chose and the reply), and adds
    /// `sims` simulations to it ([`Search::start_keeping`]); the time a move stays that of
    /// `sims` simulations. PUCT only ([`NnAgent::new`]'s settings); a new game
    /// ([`Agent::reset`]) starts afresh.
    pub fn with_reuse_tree(mut self, reuse: bool) -> NnAgent {
        self.reuse_tree = reuse;
        self
    }

    /// Values each leaf as AlphaGo did: `(1 - λ)·v + λ·z`, `v` the network's values and `z`
    /// the result of one random playout from the leaf (scored by the network's
    /// [`crate::Utility`], at most 300 plies then adjudicated by the stores). λ = 0 is the
    /// network alone (the default); λ = 1 the playouts alone, with the network's policy as
    /// the priors.
    pub fn with_rollouts(mut self, lambda: f32) -> NnAgent {
        self.rollouts = (lambda > 0.0).then(|| {
            let rules = self.core.rules;
            let utility = self.search.settings().utility;
            (
                lambda,
                PlayoutEvaluator::new(rules, 300, 0).with_utility(utility),
            )
        });
        self
    }

    /// Ends each move's search after about `move_time_ms` milliseconds (at least one simulation
    /// runs); 0, the default, for no limit but `sims`.
    pub fn with_move_time_ms(mut self, move_time_ms: u64) -> NnAgent {
        self.move_time_ms = move_time_ms;
        self
    }

    /// Plays the best moves of `table` at every position it covers. Refused when the table
    /// was built for other rules of play than the network's.
    pub fn with_tablebase(mut self, table: Arc<Tablebase>) -> Result<NnAgent> {
        if !table.covers(&self.core.rules) {
            return Err(AwaleError::Tablebase(format!(
                "the table was built for '{}', not for '{}'",
                table.rules(),
                self.core.rules
            )));
        }
        self.tablebase = Some(table);
        Ok(self)
    }

    /// The search's policy and value for a position (for analysis), within the agent's
    /// `move_time_ms` and stop signal.
    pub fn analyse(&mut self, state: &State) -> crate::search::GuidedSearchResult {
        let deadline = (self.move_time_ms > 0)
            .then(|| Instant::now() + Duration::from_millis(self.move_time_ms));
        let limit = search_limit(deadline, self.stop.as_ref());
        let limit = limit.as_ref().map(|f| f as _);
        let mut net = NetworkEvaluator::new(self.core.dense());
        if self.reuse_tree {
            self.search.start_keeping(*state, self.sims);
        } else {
            self.search.start(*state, self.sims, None);
        }
        match &mut self.rollouts {
            Some((lambda, playouts)) => {
                let mut mixed = Mix::new(&mut net, playouts, *lambda);
                self.search.run(&mut mixed, &mut self.rng, limit)
            }
            None => self.search.run(&mut net, &mut self.rng, limit),
        };
        self.search.result()
    }
}

impl Agent for NnAgent {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn select(&mut self, turn: &Turn<'_>) -> Result<usize> {
        if turn.state.is_over() {
            return Err(no_move(&self.name, turn.state));
        }
        if *turn.rules != self.core.rules && turn.rules.base_name() != self.core.rules.base_name() {
            return Err(AwaleError::AgentFailed {
                agent: self.name.clone(),
                reason: format!(
                    "the network was trained for {} and cannot play {}",
                    self.core.rules, turn.rules
                ),
            });
        }
        let legal = turn.state.legal_mask(turn.rules);
        if legal.count_ones() == 1 {
            return Ok(legal.trailing_zeros() as usize);
        }
        if let Some(table) = &self.tablebase {
            if turn.state.board_seeds(turn.rules) as usize <= table.max_seeds() {
                let best = table.probe(turn.state)?.best_moves();
                let mask = best.iter().fold(0u16, |m, &h| m | 1 << h);
                self.last = None;
                return Ok(crate::agents::random_bit(&mut self.rng, mask));
            }
        }
        let r = self.analyse(turn.state);
        let action = r.action;
        self.last = Some((r, turn.state.to_move()));
        Ok(action)
    }

    fn thoughts(&self) -> Option<Thoughts> {
        let (r, mover) = self.last.as_ref()?;
        let value = r.value[*mover] as f64;
        // The simulations the last search ran (fewer than `sims` when its time ran out).
        let sims = self.search.simulations();
        let kept = match self.search.kept_visits() {
            0 => String::new(),
            k => format!(" (and {k} kept from the last move)"),
        };
        Some(Thoughts {
            summary: format!(
                "network search, {sims} simulations{kept}: value {value:+.2} for the mover"
            ),
            value: Some(value),
            unit: "return",
            nodes: Some(sims as u64),
            moves: (0..crate::search::MAX_ACTIONS)
                .filter(|&h| r.legal >> h & 1 == 1)
                .map(|house| MoveThought {
                    house,
                    visits: r.visits[house],
                    // The mean return for the mover of the simulations through it, as MCTS
                    // gives it; none for a move the search did not visit.
                    value: (r.visits[house] > 0).then_some(r.q[house]),
                })
                .collect(),
            ..Default::default()
        })
    }

    fn reset(&mut self, seed: u64) {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
        if let Some((_, playouts)) = &mut self.rollouts {
            playouts.reseed(crate::agents::derive_seed(seed, 0x9a11));
        }
        self.last = None;
        self.search.forget();
    }

    fn set_stop(&mut self, stop: StopSignal) {
        self.stop = Some(stop);
    }

    /// Its network (shared with the other agents of the same file, counted whole here) and
    /// its tree at the whole budget of `sims` simulations.
    fn memory_bytes(&self, _rules: &Rules) -> u64 {
        self.core.memory_bytes() + tree_bytes(self.search.settings(), self.sims, self.reuse_tree)
    }
}

/// The most memory of the agent's tree: a fresh tree of `sims`, twice that when it is kept
/// from move to move.
fn tree_bytes(settings: &SearchSettings, sims: u32, reuse_tree: bool) -> u64 {
    if reuse_tree {
        Search::kept_tree_bytes(settings, sims)
    } else {
        Search::tree_bytes(settings, sims)
    }
}

/// The built-in agents and the `nn` kind: the registry of the CLI (and of every tool built with
/// the `train` feature).
pub fn registry() -> Registry {
    let mut r = Registry::builtin();
    register_agents(&mut r);
    r
}

/// Adds the `nn` kind ([`KIND`]) to `registry`.
pub fn register_agents(registry: &mut Registry) {
    registry.register_kind(&KIND);
}

/// What an `nn` spec sets, every default resolved: the network (read once, by `path=` or
/// `baseline=`) and, where the spec says nothing, its play settings (a baseline's, an exported
/// baseline's) and its training config's search.
#[derive(Clone, Default)]
pub struct NnSettings {
    /// The network, and the option that named it (`path=FILE`, `baseline=NAME`).
    pub network: Option<(Arc<NetCore>, String)>,
    /// Simulations per move.
    pub sims: u32,
    /// The search (`search=`; default the network's play settings).
    pub search: Option<SearchKind>,
    /// Whose value each node maximises with 3+ players (default the training config's).
    pub backup: Option<Backup>,
    /// PUCT's exploration constant (default the training config's).
    pub c_puct: Option<f64>,
    /// The move time in milliseconds, 0 for none.
    pub move_time_ms: u64,
    /// Folder of endgame tables.
    pub tb: Option<String>,
    /// λ of AlphaGo's rollouts.
    pub rollouts: f64,
    /// Keeps the tree from move to move (`reuse_tree=`; default the network's play settings,
    /// where it searches with PUCT).
    pub reuse_tree: Option<bool>,
}

impl std::fmt::Debug for NnSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NnSettings")
            .field("network", &self.network.as_ref().map(|(_, by)| by))
            .field("sims", &self.sims)
            .field("search", &self.search)
            .field("move_time_ms", &self.move_time_ms)
            .finish_non_exhaustive()
    }
}

impl NnSettings {
    fn defaults() -> NnSettings {
        NnSettings {
            sims: PlayDefaults::DEFAULT_SIMS,
            ..Default::default()
        }
    }

    /// Takes `core` as the network, its play settings as the defaults of `sims` and `search`
    /// (the options after `path` and `baseline` then replace them).
    fn set_network(&mut self, core: Arc<NetCore>, by: String) -> std::result::Result<(), String> {
        if self.network.is_some() {
            return Err("give path=FILE or baseline=NAME, not both".into());
        }
        let play = core.play();
        self.sims = play.sims;
        self.search = Some(play.search);
        self.backup = Some(core.config.search.backup);
        self.c_puct = Some(f64::from(core.config.search.c_puct));
        self.network = Some((core, by));
        Ok(())
    }

    /// The search settings of its network's training config, with the spec's kind, backup and
    /// exploration constant.
    fn search_settings(&self, core: &NetCore) -> SearchSettings {
        let search = &core.config.search;
        let mut settings = search.settings_of(self.search.unwrap_or(core.play().search));
        if let Some(b) = self.backup {
            settings.backup = b;
        }
        if let (Policy::Puct(p), Some(c)) = (&mut settings.policy, self.c_puct) {
            p.c_puct = c as f32;
        }
        settings
    }

    /// Whether the agent keeps its tree: the spec's `reuse_tree`, else the network's play
    /// settings' where the search is PUCT. An error for `reuse_tree=true` with another search.
    fn reuse_tree(&self, core: &NetCore) -> std::result::Result<bool, String> {
        let kind = self.search_settings(core).kind();
        match self.reuse_tree {
            Some(true) if kind != SearchKind::Puct => {
                Err(format!("reuse_tree=true needs search=puct, not {kind}"))
            }
            Some(reuse) => Ok(reuse),
            None => Ok(core.play().reuse_tree && kind == SearchKind::Puct),
        }
    }
}

/// The `nn` kind: `nn:path=FILE` or `nn:baseline=NAME` (a network shipped with the crate,
/// [`super::baseline`]), `[,sims=N][,search=gumbel|puct|uct]`... Networks are loaded once per
/// path and shared by the agents built from them; the spec's plan reads the network (so that
/// its defaults and its memory are known before an agent is built).
pub static KIND: AgentKind<NnSettings> = AgentKind {
    kind: "nn",
    summary: "a trained network with its search (cargo feature train)",
    options: &[
        AgentOption {
            key: "baseline",
            cost: Cost::Free,
            help: "a network shipped with awale, by name: abapa (its latest version) or abapa-v1, ... (`awale baseline list`; this or path)",
            set: |s, v| {
                let core = super::baseline::find(v)
                    .and_then(|b| b.core())
                    .map_err(|e| e.to_string())?;
                s.set_network(core, format!("baseline={v}"))
            },
            show: |s| {
                s.network
                    .as_ref()
                    .and_then(|(_, by)| by.strip_prefix("baseline=").map(str::to_string))
            },
        },
        AgentOption {
            key: "path",
            cost: Cost::NetworkFile,
            help: "network file: a checkpoint of `awale train`, a generation or safetensors (this or baseline)",
            set: |s, v| {
                // Checked before the file is read (the baseline's option comes first).
                if s.network.is_some() {
                    return Err("give path=FILE or baseline=NAME, not both".into());
                }
                let core = cached_core(Path::new(v)).map_err(|e| e.to_string())?;
                s.set_network(core, format!("path={v}"))
            },
            show: |s| {
                s.network
                    .as_ref()
                    .and_then(|(_, by)| by.strip_prefix("path=").map(str::to_string))
            },
        },
        AgentOption {
            key: "sims",
            cost: Cost::Simulations,
            help: "search simulations per move; a network's play settings (a baseline's, an exported baseline's) replace the default",
            set: |s, v| {
                s.sims = check_sims(kind::whole(v)?)?;
                Ok(())
            },
            show: |s| Some(s.sims.to_string()),
        },
        AgentOption {
            key: "search",
            cost: Cost::Free,
            help: "gumbel, puct or uct; none: the network's play settings (a baseline's, an exported baseline's), else its training config's play_kind, else its kind",
            set: |s, v| {
                s.search = Some(v.parse::<SearchKind>()?);
                Ok(())
            },
            show: |s| s.search.map(|k| k.to_string()),
        },
        AgentOption {
            key: "backup",
            cost: Cost::Free,
            help: "maxn or paranoid: whose value each node maximises with 3+ players; none: the training config's",
            set: |s, v| {
                s.backup = Some(v.parse()?);
                Ok(())
            },
            show: |s| {
                s.backup.map(|b| match b {
                    Backup::Maxn => "maxn".to_string(),
                    Backup::Paranoid => "paranoid".to_string(),
                })
            },
        },
        AgentOption {
            key: "c_puct",
            cost: Cost::Free,
            help: "PUCT's exploration constant; none: the training config's",
            set: |s, v| {
                let c = kind::real(v)?;
                if c < 0.0 {
                    return Err(format!("{c} is negative"));
                }
                s.c_puct = Some(c);
                Ok(())
            },
            show: |s| s.c_puct.map(|c| c.to_string()),
        },
        AgentOption {
            key: "move_time_ms",
            cost: Cost::MoveTimeMs,
            help: "the move time in milliseconds, at least one simulation, 0 = none",
            set: |s, v| {
                s.move_time_ms = kind::whole(v)?;
                Ok(())
            },
            show: |s| Some(s.move_time_ms.to_string()),
        },
        AgentOption {
            key: "tb",
            cost: Cost::Tables,
            help: "folder of endgame tables: their best moves where they cover the position",
            set: |s, v| {
                s.tb = Some(v.to_string());
                Ok(())
            },
            show: |s| s.tb.clone(),
        },
        AgentOption {
            key: "rollouts",
            cost: Cost::Free,
            help: "λ in [0, 1]: each leaf's value is (1-λ)·network + λ·one random playout, as AlphaGo (0: the network alone)",
            set: |s, v| {
                let lambda = kind::real(v)?;
                if !(0.0..=1.0).contains(&lambda) {
                    return Err(format!("{lambda} is not in [0, 1]"));
                }
                s.rollouts = lambda;
                Ok(())
            },
            show: |s| Some(s.rollouts.to_string()),
        },
        AgentOption {
            key: "reuse_tree",
            cost: Cost::Free,
            help: "true or false: keep the search tree from move to move (each move adds sims simulations to what the last search learnt of the position; search=puct); none: the network's play settings",
            set: |s, v| {
                s.reuse_tree = Some(kind::switch(v)?);
                Ok(())
            },
            show: |s| s.reuse_tree.map(|r| r.to_string()),
        },
    ],
    defaults: NnSettings::defaults,
    instant: false,
    // Its network (counted whole, though shared by the agents of one file) and its tree at the
    // whole budget: what [`NnAgent`]'s `memory_bytes` says.
    memory: |s| {
        s.network.as_ref().map_or(0, |(core, _)| {
            let reuse = s.reuse_tree(core).unwrap_or(false);
            core.memory_bytes() + tree_bytes(&s.search_settings(core), s.sims, reuse)
        })
    },
    shared: None,
    build: |s, spec, rules, _| build_nn(s, spec, rules),
};

fn build_nn(s: NnSettings, spec: &AgentSpec, rules: &Rules) -> Result<Box<dyn Agent>> {
    let bad = |reason: String| AwaleError::BadAgentSpec {
        spec: spec.to_string(),
        reason,
    };
    let Some((core, _)) = &s.network else {
        return Err(bad(
            "nn needs path=FILE (a network file of awale train) or baseline=NAME (a shipped network: `awale baseline list`)".into(),
        ));
    };
    if !core.plays(rules) {
        return Err(bad(format!(
            "the network was trained for {} and cannot play {rules}",
            core.rules
        )));
    }
    let settings = s.search_settings(core);
    let reuse_tree = s.reuse_tree(core).map_err(bad)?;
    let mut agent = NnAgent::new(core.clone(), spec.display_name(), s.sims, settings)
        .with_reuse_tree(reuse_tree)
        .with_move_time_ms(s.move_time_ms)
        .with_rollouts(s.rollouts as f32);
    if let Some(dir) = &s.tb {
        let table =
            Tablebase::open_shared(Path::new(dir), rules).map_err(|e| bad(format!("tb: {e}")))?;
        agent = agent
            .with_tablebase(table)
            .map_err(|e| bad(format!("tb: {e}")))?;
    }
    Ok(Box::new(agent))
}

/// Networks loaded so far: for each path, its last version (the file's modification time)
/// while some agent plays it, and the [`RECENT`] networks loaded last (for the next agent).
/// A rewritten file (a training run's `checkpoint.ckpt`) replaces its old version, which lives
/// on only in the agents that play it: memory follows the agents alive, not the versions seen.
fn cached_core(path: &Path) -> TrainResult<Arc<NetCore>> {
    use std::collections::{HashMap, VecDeque};
    use std::sync::{Mutex, Weak};
    use std::time::SystemTime;
    #[derive(Default)]
    struct Cache {
        by_path: HashMap<std::path::PathBuf, (Option<SystemTime>, Weak<NetCore>)>,
        recent: VecDeque<Arc<NetCore>>,
    }
    static CACHE: std::sync::OnceLock<Mutex<Cache>> = std::sync::OnceLock::new();
    let modified = std::fs::metadata(path).and_then(|m| m.modified()).ok();
    let cache = CACHE.get_or_init(Default::default);
    let lock = || cache.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((m, weak)) = lock().by_path.get(path) {
        if *m == modified {
            if let Some(core) = weak.upgrade() {
                return Ok(core);
            }
        }
    }
    // Loaded outside the lock: a slow file does not hold up the other networks.
    let core = Arc::new(NetCore::load(path)?);
    let mut c = lock();
    c.by_path.retain(|_, (_, w)| w.strong_count() > 0);
    c.by_path
        .insert(path.to_path_buf(), (modified, Arc::downgrade(&core)));
    c.recent.retain(|r| !Arc::ptr_eq(r, &core));
    c.recent.push_front(core.clone());
    c.recent.truncate(RECENT);
    Ok(core)
}

/// Networks kept loaded for the next agent after their agents are gone.
const RECENT: usize = 2;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rewritten_network_file_does_not_keep_its_old_versions() {
        let dir = std::env::temp_dir().join(format!("awale-netcache-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let weights = super::super::baseline::find("abapa").unwrap().weights;
        let file = dir.join("net.safetensors");
        let write = |version: u64| {
            std::fs::write(&file, weights).unwrap();
            let f = std::fs::File::options().write(true).open(&file).unwrap();
            f.set_modified(std::time::UNIX_EPOCH + Duration::from_secs(1_000_000 + version))
                .unwrap();
        };
        write(0);
        let first = cached_core(&file).unwrap();
        assert!(Arc::ptr_eq(&first, &cached_core(&file).unwrap()));
        let old = Arc::downgrade(&first);
        drop(first);
        // Rewritten, as training rewrites its checkpoint: the new version is read, and the old
        // one lives on only while something plays it.
        for version in 1..=4 {
            write(version);
            let core = cached_core(&file).unwrap();
            assert!(core.memory_bytes() > 0);
        }
        assert_eq!(old.strong_count(), 0, "an old version is still held");
        std::fs::remove_dir_all(&dir).ok();
    }
}
