//! Monte-Carlo tree search: UCT with random playouts, for every preset, the multi-player game
//! included.
//!
//! Each node keeps the sum of the returns of every player (max^n): at a node, the player to
//! move picks the child that maximises *his own* mean return plus the exploration bonus
//! `c·sqrt(ln N / n)`. A simulation walks down the tree, expands the leaf it reaches (all its
//! children at once, in an order shuffled from the agent's seed), plays one child out with
//! uniformly random moves, and adds the outcome to every node on the way. Outcomes are
//! [`outcome`]'s: +1 for the sole leader in captured seeds, 0 for a shared lead, -1 for the
//! others; a playout cut off at `playout_plies` (or by the rules' ply limit) is adjudicated the
//! same way. Repetitions end the game as in [`crate::History`]. The move played is the most
//! visited child of the root.
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

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::eval::outcome;
use super::kind::{self, AgentKind, AgentOption};
use super::{no_move, random_bit, Agent, MoveThought, Thoughts, Turn};
use crate::error::Result;
use crate::rules::{CycleRule, Rules, MAX_PLAYERS};
use crate::state::{PositionKey, State};

/// Settings of an [`Mcts`] search (spec `mcts:sims=2000,time_ms=..,c=..,playout_plies=..`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MctsConfig {
    /// Simulations per move (at least 1); with `time_ms`, whichever ends first.
    pub sims: u32,
    /// Stop after about this many milliseconds per move; 0 for no limit.
    pub time_ms: u64,
    /// The exploration constant (returns lie in [-1, 1]).
    pub c: f32,
    /// Most random plies in one playout before it is adjudicated by the stores.
    pub playout_plies: u32,
}

impl Default for MctsConfig {
    fn default() -> Self {
        MctsConfig {
            sims: 1000,
            time_ms: 0,
            c: 1.4,
            playout_plies: 300,
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

#[derive(Debug, Clone, Copy)]
struct Node {
    state: State,
    parent: u32,
    first_child: u32,
    n_children: u8,
    expanded: bool,
    house: u8,
    captured: bool,
    visits: u32,
    value: [f32; MAX_PLAYERS],
}

/// The UCT agent. See the [module](self) documentation.
#[derive(Debug, Clone)]
pub struct Mcts {
    cfg: MctsConfig,
    name: String,
    rng: ChaCha8Rng,
    nodes: Vec<Node>,
    keys: Vec<PositionKey>,
    order: Vec<u32>,
    last: Option<MctsResult>,
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
            nodes: Vec::new(),
            keys: Vec::with_capacity(256),
            order: Vec::with_capacity(64),
            last: None,
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
        let deadline = (self.cfg.time_ms > 0).then(|| t0 + Duration::from_millis(self.cfg.time_ms));
        self.nodes.clear();
        self.nodes.push(Node {
            state: root,
            parent: u32::MAX,
            first_child: 0,
            n_children: 0,
            expanded: false,
            house: 0,
            captured: false,
            visits: 0,
            value: [0.0; MAX_PLAYERS],
        });
        let mut sims = 0;
        while sims < self.cfg.sims {
            if sims % 64 == 0 && sims > 0 && deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            self.simulate(rules, turn.history);
            sims += 1;
        }
        let r = &self.nodes[0];
        let me = root.to_move();
        let kids =
            &self.nodes[r.first_child as usize..(r.first_child + r.n_children as u32) as usize];
        let mut children: Vec<(usize, u32, f32)> = kids
            .iter()
            .map(|c| {
                (
                    c.house as usize,
                    c.visits,
                    c.value[me] / c.visits.max(1) as f32,
                )
            })
            .collect();
        children.sort_by_key(|c| c.0);
        let best = children
            .iter()
            .max_by(|a, b| a.1.cmp(&b.1).then(a.2.total_cmp(&b.2)).then(b.0.cmp(&a.0)))
            .map(|c| c.0)
            .unwrap_or(mask.trailing_zeros() as usize);
        Ok(MctsResult {
            best,
            sims,
            children,
            elapsed: t0.elapsed(),
        })
    }

    /// One simulation: select, expand, play out, back up.
    fn simulate(&mut self, rules: &Rules, history: &[PositionKey]) {
        let cycles = rules.cycle != CycleRule::Ignore;
        self.keys.clear();
        if cycles {
            self.keys.extend_from_slice(history);
            let k = self.nodes[0].state.key();
            if self.keys.last() != Some(&k) {
                self.keys.push(k);
            }
        }
        let mut node = 0usize;
        // Selection.
        while self.nodes[node].expanded && self.nodes[node].n_children > 0 {
            node = self.select_child(node);
            self.enter(node, cycles);
        }
        // Expansion.
        if !self.nodes[node].state.is_over() {
            self.expand(rules, node, cycles);
            let n = &self.nodes[node];
            let pick = n.first_child as usize;
            node = pick; // children are in shuffled order: the first is a random one
            self.enter(node, cycles);
        }
        // Playout.
        let mut s = self.nodes[node].state;
        let mut plies = 0;
        while !s.is_over() && plies < self.cfg.playout_plies {
            let h = random_bit(&mut self.rng, s.legal_mask(rules));
            let info = s.apply_unchecked(rules, h);
            plies += 1;
            if cycles && !s.is_over() {
                if info.any_captured > 0 {
                    self.keys.clear();
                } else if self.keys.contains(&s.key()) && s.repetition_ends(rules) {
                    s.end_by_repetition(rules);
                    break;
                }
                self.keys.push(s.key());
            }
        }
        let result = outcome(rules, &s);
        // Backup.
        let mut i = node as u32;
        while i != u32::MAX {
            let n = &mut self.nodes[i as usize];
            n.visits += 1;
            for (v, r) in n.value.iter_mut().zip(result.iter()) {
                *v += r;
            }
            i = n.parent;
        }
    }

    /// Records entering `node` in the repetition window.
    #[inline]
    fn enter(&mut self, node: usize, cycles: bool) {
        if cycles {
            let n = &self.nodes[node];
            if n.captured {
                self.keys.clear();
            }
            self.keys.push(n.state.key());
        }
    }

    /// The child of `node` with the best UCT score for the player to move there.
    fn select_child(&self, node: usize) -> usize {
        let n = &self.nodes[node];
        let p = n.state.to_move();
        let ln = (n.visits.max(1) as f32).ln();
        let mut best = n.first_child as usize;
        let mut best_score = f32::NEG_INFINITY;
        for i in n.first_child as usize..(n.first_child + n.n_children as u32) as usize {
            let c = &self.nodes[i];
            if c.visits == 0 {
                return i;
            }
            let v = c.visits as f32;
            let score = c.value[p] / v + self.cfg.c * (ln / v).sqrt();
            if score > best_score {
                best_score = score;
                best = i;
            }
        }
        best
    }

    /// Creates every child of `node`, in an order shuffled with the agent's generator.
    fn expand(&mut self, rules: &Rules, node: usize, cycles: bool) {
        let s = self.nodes[node].state;
        let mask = s.legal_mask(rules);
        self.order.clear();
        self.order
            .extend((0..rules.houses as u32).filter(|h| mask & (1 << h) != 0));
        self.order.shuffle(&mut self.rng);
        let first = self.nodes.len() as u32;
        for k in 0..self.order.len() {
            let h = self.order[k] as usize;
            let mut child = s;
            let info = child.apply_unchecked(rules, h);
            if cycles
                && info.any_captured == 0
                && !child.is_over()
                && self.keys.contains(&child.key())
            {
                child.end_by_repetition(rules);
            }
            self.nodes.push(Node {
                state: child,
                parent: node as u32,
                first_child: 0,
                n_children: 0,
                expanded: false,
                house: h as u8,
                captured: info.any_captured > 0,
                visits: 0,
                value: [0.0; MAX_PLAYERS],
            });
        }
        let n = &mut self.nodes[node];
        n.expanded = true;
        n.first_child = first;
        n.n_children = self.order.len() as u8;
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
        self.nodes.clear();
        self.last = None;
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
            help: "simulations per move",
            set: |c, v| {
                let sims = kind::whole(v)?;
                if sims == 0 || sims > u32::MAX as u64 {
                    return Err(format!("{sims} is not between 1 and {}", u32::MAX));
                }
                c.sims = sims as u32;
                Ok(())
            },
            show: |c| Some(c.sims.to_string()),
        },
        AgentOption {
            key: "time_ms",
            help: "time budget per move in ms, 0 = none",
            set: |c, v| {
                c.time_ms = kind::whole(v)?;
                Ok(())
            },
            show: |c| Some(c.time_ms.to_string()),
        },
        AgentOption {
            key: "c",
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
            key: "playout_plies",
            help: "longest playout before adjudication by stores",
            set: |c, v| {
                c.playout_plies = kind::whole(v)?.min(u32::MAX as u64) as u32;
                Ok(())
            },
            show: |c| Some(c.playout_plies.to_string()),
        },
    ],
    defaults: MctsConfig::default,
    build: |cfg, spec, _rules| Ok(Box::new(Mcts::new(cfg, 0).with_name(spec.display_name()))),
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
