//! The `mcts` agent's classic tree (`mcts:tree=classic`), as it played before the agent became
//! the guided search ([`crate::search`]) with random playouts: its own nodes; a simulation
//! walks down by UCT, expands the leaf it reaches (every child at once, in an order shuffled
//! from the agent's generator), plays out from its first child, and adds the outcome to every
//! node on the way; the repetition window starts with the game's history. Kept so that the old
//! games can be played again, and as the reference of the before/after figures in
//! docs/performance.md.

use std::time::Instant;

use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use super::playout::random_playout_until;
use super::stop::{stopped, StopSignal};
use crate::rules::{CycleRule, Rules, MAX_PLAYERS};
use crate::search::make_room;
use crate::state::{PositionKey, State};

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

/// The classic tree's nodes and buffers (reused from move to move).
#[derive(Debug, Clone, Default)]
pub(super) struct ClassicTree {
    nodes: Vec<Node>,
    /// The most nodes of the search under way ([`ClassicTree::tree_bytes`]).
    most: usize,
    keys: Vec<PositionKey>,
    order: Vec<u32>,
}

impl ClassicTree {
    /// Most nodes of a search of `sims` simulations: the root, and every child of one node a
    /// simulation.
    fn most_nodes(sims: u32, rules: &Rules) -> usize {
        (1 + u64::from(sims) * u64::from(rules.houses)).min(usize::MAX as u64) as usize
    }

    /// The most memory, in bytes, the nodes of a search of `sims` simulations hold.
    pub(super) fn tree_bytes(sims: u32, rules: &Rules) -> u64 {
        Self::most_nodes(sims, rules) as u64 * std::mem::size_of::<Node>() as u64
    }

    /// A search of `sims` simulations from `root` with exploration constant `c` and playouts of
    /// at most `playout_plies` (stopped at `deadline` or by `stop` after at least one, both also
    /// read inside the playouts): the simulations run and, per root child, `(house, visits,
    /// mean return for the mover)`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn search(
        &mut self,
        (max_sims, c, playout_plies): (u32, f32, u32),
        rng: &mut ChaCha8Rng,
        rules: &Rules,
        root: State,
        history: &[PositionKey],
        deadline: Option<Instant>,
        stop: Option<&StopSignal>,
    ) -> (u32, Vec<(usize, u32, f32)>) {
        self.nodes.clear();
        self.most = Self::most_nodes(max_sims, rules);
        make_room(&mut self.nodes, self.most);
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
        while sims < max_sims {
            if sims > 0 && (stopped(stop) || deadline.is_some_and(|d| Instant::now() >= d)) {
                break;
            }
            self.simulate((c, playout_plies), rng, rules, history, deadline, stop);
            sims += 1;
        }
        let r = &self.nodes[0];
        let me = root.to_move();
        let kids =
            &self.nodes[r.first_child as usize..(r.first_child + r.n_children as u32) as usize];
        let children = kids
            .iter()
            .map(|c| {
                (
                    c.house as usize,
                    c.visits,
                    c.value[me] / c.visits.max(1) as f32,
                )
            })
            .collect();
        (sims, children)
    }

    /// One simulation: select, expand, play out (cut at `deadline` or by `stop`), back up.
    fn simulate(
        &mut self,
        (c, playout_plies): (f32, u32),
        rng: &mut ChaCha8Rng,
        rules: &Rules,
        history: &[PositionKey],
        deadline: Option<Instant>,
        stop: Option<&StopSignal>,
    ) {
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
            node = self.select_child(node, c);
            self.enter(node, cycles);
        }
        // Expansion.
        if !self.nodes[node].state.is_over() {
            self.expand(rng, rules, node, cycles);
            let n = &self.nodes[node];
            let pick = n.first_child as usize;
            node = pick; // children are in shuffled order: the first is a random one
            self.enter(node, cycles);
        }
        // Playout.
        let start = self.nodes[node].state;
        let s = random_playout_until(
            rules,
            start,
            playout_plies,
            rng,
            &mut self.keys,
            deadline,
            stop,
        );
        let result = s.outcome_by_stores(rules);
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
    fn select_child(&self, node: usize, c_uct: f32) -> usize {
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
            let score = c.value[p] / v + c_uct * (ln / v).sqrt();
            if score > best_score {
                best_score = score;
                best = i;
            }
        }
        best
    }

    /// Creates every child of `node`, in an order shuffled with the agent's generator.
    fn expand(&mut self, rng: &mut ChaCha8Rng, rules: &Rules, node: usize, cycles: bool) {
        let s = self.nodes[node].state;
        let mask = s.legal_mask(rules);
        self.order.clear();
        self.order
            .extend((0..rules.houses as u32).filter(|h| mask & (1 << h) != 0));
        self.order.shuffle(rng);
        let first = self.nodes.len() as u32;
        let most = self.most;
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
            make_room(&mut self.nodes, most);
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
