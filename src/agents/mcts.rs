//! Monte-Carlo tree search: UCT with random playouts, for every preset, the multi-player game
//! included. The agent is the guided search of [`crate::search`] ([`Uct`]) with
//! [`PlayoutEvaluator`] as its evaluator: one tree for the whole project.
//!
//! Each node keeps the sum of the returns of every player (max^n): at a node, the player to
//! move picks the child that maximises *his own* mean return plus the exploration bonus
//! `c·sqrt(ln N / n)`, unvisited children first (in an order drawn from the agent's seed). A
//! simulation walks down the tree to a position not yet in it, adds it, plays one game out from
//! it with uniformly random moves, and adds the outcome to every node on the way
//! ([`Expansion::Node`]; with `expand=child`, classic MCTS's expansion, it adds a random child of
//! the new position too and plays out from there: +17.6 Elo at 1,000 simulations in abapa,
//! docs/performance.md). Outcomes are
//! [`crate::State::outcome_by_stores`]'s: +1 for the sole leader in captured seeds, 0 for a shared lead, -1 for the
//! others; a playout cut off at `playout_plies` (or by the rules' ply limit) is adjudicated the
//! same way, and a repetition (in the tree, from the game's own history on, or within a
//! playout) ends the game as the rules say. The move played is
//! the most visited child of the root (ties: the better mean return, then the lower house).
//! `move_time_ms` (and the stop signal, [`Agent::set_stop`]) is read before every simulation and
//! every [`CHECK_PLIES`](super::playout::CHECK_PLIES) plies of a playout; a playout cut by it is adjudicated like one cut off
//! at `playout_plies`. At least one simulation runs.
//!
//! ```
//! use awale::agents::{Mcts, MctsConfig, Turn};
//! use awale::{Rules, State};
//! let rules = Rules::abapa();
//! let s = State::from_parts(&rules, &[1, 0, 0, 0, 0, 2, 1, 2, 5, 0, 0, 0], &[20, 17], 0, 0).unwrap();
//! let mut mcts = Mcts::new(MctsConfig { sims: 300, ..Default::default() }, 1);
//! // House F captures 5 and reaches 25 seeds: an immediate win.
//! assert_eq!(mcts.search(&Turn::new(&rules, &s)).unwrap().best, 5);
//! ```

use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::kind::{self, AgentKind, AgentOption, Cost};
use super::playout::PlayoutEvaluator;
use super::stop::{search_limit, StopSignal};
use super::{no_move, Agent, MoveThought, Thoughts, Turn};
use crate::error::Result;
use crate::rules::Rules;
use crate::search::{check_sims, Backup, Expansion, Policy, Search, SearchSettings, Uct};
use crate::utility::Utility;

/// Settings of an [`Mcts`] search (spec `mcts:sims=2000,move_time_ms=..,c=..,playout_plies=..,expand=..,utility=..`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MctsConfig {
    /// Simulations per move (at least 1); with `move_time_ms`, whichever ends first.
    pub sims: u32,
    /// Stop after about this many milliseconds per move; 0 for no limit.
    pub move_time_ms: u64,
    /// The exploration constant (returns lie in [-1, 1]).
    pub c: f32,
    /// Most random plies in one playout before it is adjudicated by the stores.
    pub playout_plies: u32,
    /// Where a playout starts: at the new node (the default), or at a random child of it, which
    /// enters the tree too ([`Expansion`]).
    pub expansion: Expansion,
    /// What a finished game or playout is worth ([`Utility`]).
    pub utility: Utility,
}

impl Default for MctsConfig {
    fn default() -> Self {
        MctsConfig {
            sims: 1000,
            move_time_ms: 0,
            c: 1.4,
            playout_plies: 300,
            expansion: Expansion::Node,
            utility: Utility::Outcome,
        }
    }
}

/// What a search found.
#[derive(Debug, Clone, PartialEq)]
pub struct MctsResult {
    /// The move to play: the most visited child of the root.
    pub best: usize,
    /// Simulations run.
    pub sims: u32,
    /// For each legal move: `(house, visits, mean return for the player to move)`.
    pub children: Vec<(usize, u32, f32)>,
    /// Time spent.
    pub elapsed: Duration,
}

impl MctsResult {
    /// The search as [`Thoughts`]: the chosen move's mean return and every root move's visits.
    pub fn thoughts(&self) -> Thoughts {
        let value = self
            .children
            .iter()
            .find(|c| c.0 == self.best)
            .map(|c| c.2 as f64);
        Thoughts {
            summary: format!(
                "MCTS {} simulations: mean return {:+.2} for the mover",
                self.sims,
                value.unwrap_or(0.0)
            ),
            value,
            unit: "return",
            proven: None,
            depth: None,
            nodes: Some(self.sims as u64),
            moves: self
                .children
                .iter()
                .map(|&(house, visits, value)| MoveThought {
                    house,
                    visits,
                    value: Some(value),
                })
                .collect(),
        }
    }
}

/// The UCT agent. See the [module](self) documentation.
#[derive(Debug, Clone)]
pub struct Mcts {
    cfg: MctsConfig,
    name: String,
    /// Draws the order of unvisited children and the children where playouts start.
    rng: ChaCha8Rng,
    /// The tree and its evaluator, for the rules of the last move.
    guided: Option<(Rules, Search, PlayoutEvaluator)>,
    last: Option<MctsResult>,
    /// Read with the clock ([`Agent::set_stop`]).
    stop: Option<StopSignal>,
}

impl Mcts {
    /// An MCTS agent with these settings and random seed.
    pub fn new(cfg: MctsConfig, seed: u64) -> Mcts {
        let mut cfg = cfg;
        cfg.sims = cfg.sims.max(1);
        Mcts {
            name: format!("mcts:sims={}", cfg.sims),
            cfg,
            rng: ChaCha8Rng::seed_from_u64(seed),
            guided: None,
            last: None,
            stop: None,
        }
    }

    /// Sets the display name.
    pub fn with_name(mut self, name: impl Into<String>) -> Mcts {
        self.name = name.into();
        self
    }

    /// The settings.
    pub fn config(&self) -> &MctsConfig {
        &self.cfg
    }

    /// The search's settings: UCT with the agent's `c` and expansion, its utility, max^n
    /// backup.
    pub fn settings(cfg: &MctsConfig) -> SearchSettings {
        SearchSettings {
            policy: Policy::Uct(Uct {
                c: cfg.c,
                expansion: cfg.expansion,
            }),
            utility: cfg.utility,
            backup: Backup::Maxn,
        }
    }

    /// Runs the search from the turn's position.
    pub fn search(&mut self, turn: &Turn<'_>) -> Result<MctsResult> {
        let t0 = Instant::now();
        let rules = turn.rules;
        let root = *turn.state;
        let mask = root.legal_mask(rules);
        if mask == 0 {
            return Err(no_move(&self.name, &root));
        }
        if mask.count_ones() == 1 {
            let h = mask.trailing_zeros() as usize;
            return Ok(MctsResult {
                best: h,
                sims: 0,
                children: vec![(h, 0, 0.0)],
                elapsed: t0.elapsed(),
            });
        }
        let deadline =
            (self.cfg.move_time_ms > 0).then(|| t0 + Duration::from_millis(self.cfg.move_time_ms));
        let (best, sims, children) = self.guided(rules, root, turn.history, deadline);
        Ok(MctsResult {
            best,
            sims,
            children,
            elapsed: t0.elapsed(),
        })
    }

    /// The guided search with random playouts: the move the search chose (UCT's: the most
    /// visited, ties to the better mean return, then the lower house), the simulations run and
    /// the root's children by house.
    fn guided(
        &mut self,
        rules: &Rules,
        root: crate::state::State,
        history: &[crate::state::PositionKey],
        deadline: Option<Instant>,
    ) -> (usize, u32, Vec<(usize, u32, f32)>) {
        if self.guided.as_ref().is_none_or(|(r, _, _)| r != rules) {
            let seed = self.rng.random();
            self.guided = Some((
                *rules,
                Search::new(*rules, Mcts::settings(&self.cfg)),
                PlayoutEvaluator::new(*rules, self.cfg.playout_plies, seed)
                    .with_utility(self.cfg.utility),
            ));
        }
        let (_, search, playouts) = self.guided.as_mut().expect("set above");
        playouts.set_limits(deadline, self.stop.clone());
        search.set_history(history);
        search.start(root, self.cfg.sims, None);
        let limit = search_limit(deadline, self.stop.as_ref());
        search.run(playouts, &mut self.rng, limit.as_ref().map(|f| f as _));
        let r = search.result();
        let children = (0..rules.houses as usize)
            .filter(|&a| r.legal >> a & 1 == 1)
            .map(|a| (a, r.visits[a], r.q[a]))
            .collect();
        (r.action, search.simulations(), children)
    }
}

impl Agent for Mcts {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn select(&mut self, turn: &Turn<'_>) -> Result<usize> {
        let r = self.search(turn)?;
        let best = r.best;
        self.last = Some(r);
        Ok(best)
    }

    fn thoughts(&self) -> Option<Thoughts> {
        self.last.as_ref().map(MctsResult::thoughts)
    }

    fn reset(&mut self, seed: u64) {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
        self.guided = None;
        self.last = None;
    }

    fn set_stop(&mut self, stop: StopSignal) {
        self.stop = Some(stop);
    }

    /// Its tree at the whole budget of `sims` simulations (one node a simulation, two with
    /// `expand=child`).
    fn memory_bytes(&self, _rules: &Rules) -> u64 {
        (KIND.memory)(&self.cfg)
    }
}

/// The `mcts` kind: its options and its factory (see [`kind`]); its settings are a
/// [`MctsConfig`], whose `Default` gives the defaults.
pub static KIND: AgentKind<MctsConfig> = AgentKind {
    kind: "mcts",
    summary: "UCT with random playouts, per-player returns (every preset)",
    options: &[
        AgentOption {
            key: "sims",
            cost: Cost::Simulations,
            help: "simulations per move",
            set: |c, v| {
                c.sims = check_sims(kind::whole(v)?)?;
                Ok(())
            },
            show: |c| Some(c.sims.to_string()),
        },
        AgentOption {
            key: "move_time_ms",
            cost: Cost::MoveTimeMs,
            help: "the move time in milliseconds, 0 = none",
            set: |c, v| {
                c.move_time_ms = kind::whole(v)?;
                Ok(())
            },
            show: |c| Some(c.move_time_ms.to_string()),
        },
        AgentOption {
            key: "c",
            cost: Cost::Free,
            help: "exploration constant",
            set: |cfg, v| {
                let c = kind::real(v)?;
                if c < 0.0 {
                    return Err(format!("{c} is negative"));
                }
                cfg.c = c as f32;
                Ok(())
            },
            show: |c| Some(c.c.to_string()),
        },
        AgentOption {
            key: "expand",
            cost: Cost::Free,
            help: "node (a playout starts at the new node) or child (at a random child of it, which enters the tree too: classic MCTS, stronger at equal simulations)",
            set: |c, v| {
                c.expansion = v.parse()?;
                Ok(())
            },
            show: |c| Some(c.expansion.name().to_string()),
        },
        AgentOption {
            key: "playout_plies",
            cost: Cost::Free,
            help: "longest playout before adjudication by stores",
            set: |c, v| {
                c.playout_plies = kind::whole(v)?.min(u32::MAX as u64) as u32;
                Ok(())
            },
            show: |c| Some(c.playout_plies.to_string()),
        },
        AgentOption {
            key: "utility",
            cost: Cost::Free,
            help: "what a game is worth: outcome (the rules' returns), first (the share of the first place), rank or seeds",
            set: |c, v| {
                c.utility = v.parse()?;
                Ok(())
            },
            show: |c| Some(c.utility.name().to_string()),
        },
    ],
    defaults: MctsConfig::default,
    instant: false,
    memory: |cfg| Search::tree_bytes(&Mcts::settings(cfg), cfg.sims),
    shared: None,
    build: |cfg, spec, _rules, _| {
        Ok(Box::new(Mcts::new(cfg, 0).with_name(spec.display_name())))
    },
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Game;

    #[test]
    fn same_seed_same_search_in_the_three_player_game() {
        let rules = Rules::oware(3).unwrap();
        let game = Game::with_seed(rules, 3);
        let cfg = MctsConfig {
            sims: 200,
            ..Default::default()
        };
        let a = Mcts::new(cfg, 9).search(&Turn::from_game(&game)).unwrap();
        let b = Mcts::new(cfg, 9).search(&Turn::from_game(&game)).unwrap();
        assert_eq!(a.best, b.best);
        assert_eq!(a.children, b.children);
        assert_eq!(a.sims, 200);
        assert_eq!(a.children.iter().map(|c| c.1).sum::<u32>(), 200);
    }
}
