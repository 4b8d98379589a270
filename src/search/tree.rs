//! The search tree (mctx's `tree.py`): one array of nodes, each a position with its statistics
//! per absolute player (the sum of every player's value over the simulations through it), its
//! children by action, the network's logits and priors, and the value it was given. Whose value
//! a node maximises is [`Backup`]'s: its mover's (max^n, negamax with two players) or the root
//! player's (paranoid).

use serde::{Deserialize, Serialize};

use crate::rules::{Rules, MAX_PLAYERS};
use crate::state::State;
use crate::utility::Utility;

use super::MAX_ACTIONS;

/// No node (a child not yet created, the root's parent).
pub(super) const NONE: u32 = u32::MAX;

/// Whose value a node of the tree maximises ([`super::SearchSettings::backup`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Backup {
    /// Every player maximises his own value (max^n; negamax with two players).
    #[default]
    Maxn,
    /// The root player maximises his value, every other player minimises it.
    Paranoid,
}

impl std::str::FromStr for Backup {
    type Err = String;
    fn from_str(s: &str) -> Result<Backup, String> {
        match s {
            "maxn" => Ok(Backup::Maxn),
            "paranoid" => Ok(Backup::Paranoid),
            _ => Err(format!("'{s}' is not a backup (maxn, paranoid)")),
        }
    }
}

/// One position of the tree.
#[derive(Debug, Clone)]
pub(super) struct Node {
    pub(super) state: State,
    pub(super) parent: u32,
    /// Simulations through the node (the root's own evaluation included).
    pub(super) n: u32,
    /// The sum of each player's value over those simulations.
    pub(super) w: [f32; MAX_PLAYERS],
    pub(super) children: [u32; MAX_ACTIONS],
    /// The network's logits, -inf at illegal actions.
    pub(super) logits: [f32; MAX_ACTIONS],
    /// The priors (root noise mixed in at a noisy PUCT root).
    pub(super) prior: [f32; MAX_ACTIONS],
    /// The value the evaluator (or the rules, at a finished game) gave the node.
    pub(super) raw_value: [f32; MAX_PLAYERS],
    pub(super) legal: u16,
    pub(super) terminal: bool,
    /// Reached by a capture (the repetition window restarts there).
    pub(super) captured: bool,
}

impl Node {
    fn new(state: State, parent: u32, rules: &Rules, utility: Utility) -> Node {
        let terminal = state.is_over();
        Node {
            state,
            parent,
            n: 0,
            w: [0.0; MAX_PLAYERS],
            children: [NONE; MAX_ACTIONS],
            logits: [0.0; MAX_ACTIONS],
            prior: [0.0; MAX_ACTIONS],
            raw_value: if terminal {
                utility.values(&state.scores()[..rules.players as usize])
            } else {
                [0.0; MAX_PLAYERS]
            },
            legal: if terminal { 0 } else { state.legal_mask(rules) },
            terminal,
            captured: false,
        }
    }

    /// The network's prior (without root noise), for the mixed value.
    pub(super) fn prior_for_mix(&self, h: usize) -> [f32; MAX_ACTIONS] {
        softmax_legal(&self.logits, self.legal, h)
    }
}

/// Room for one more element in `nodes`, a tree's node array that will hold at most `most`
/// elements: the capacity doubles as a `Vec`'s does, but not past `most` (and `most` itself
/// grows only with the tree's budget), so that the array's memory follows its bound.
fn make_room<T>(nodes: &mut Vec<T>, most: usize) {
    if nodes.len() == nodes.capacity() {
        let want = (nodes.len() * 2).max(16).min(most).max(nodes.len() + 1);
        nodes.reserve_exact(want - nodes.len());
    }
}

/// A tree of one search (reused from search to search).
#[derive(Debug, Clone)]
pub(super) struct Tree {
    pub(super) rules: Rules,
    pub(super) utility: Utility,
    backup: Backup,
    pub(super) nodes: Vec<Node>,
}

impl Tree {
    pub(super) fn new(rules: Rules, utility: Utility, backup: Backup) -> Tree {
        Tree {
            rules,
            utility,
            backup,
            nodes: Vec::new(),
        }
    }

    /// The most nodes of a tree of `budget` simulations that add `per_simulation` nodes each,
    /// and the root.
    pub(super) fn most_nodes(budget: u32, per_simulation: u32) -> usize {
        (u64::from(budget) * u64::from(per_simulation) + 1).min(usize::MAX as u64) as usize
    }

    /// The most memory, in bytes, a tree of `nodes` nodes holds.
    pub(super) fn bytes(nodes: usize) -> u64 {
        nodes as u64 * std::mem::size_of::<Node>() as u64
    }

    /// Empties the tree down to `root`, with room for `most` nodes.
    pub(super) fn reset(&mut self, root: State, most: usize) {
        self.nodes.clear();
        make_room(&mut self.nodes, most);
        self.nodes
            .push(Node::new(root, NONE, &self.rules, self.utility));
    }

    /// The node of the tree at `state` that the most simulations went through (the only one,
    /// but for transpositions), if one did: the root of a kept tree ([`Tree::reroot`]).
    pub(super) fn find(&self, state: &State) -> Option<u32> {
        let mut best: Option<(u32, u32)> = None;
        for (i, nd) in self.nodes.iter().enumerate() {
            if nd.n > 0 && !nd.terminal && nd.state == *state && best.is_none_or(|(_, n)| nd.n > n)
            {
                best = Some((i as u32, nd.n));
            }
        }
        best.map(|(i, _)| i)
    }

    /// Makes node `idx` (visited, not a finished game) the root: its subtree becomes the tree,
    /// breadth first and at most `most` nodes (those nearest the root; a node whose children
    /// were left out keeps its statistics), the nodes no simulation went through left out (a
    /// leaf that waited for its evaluation when the search stopped). Returns the nodes kept.
    pub(super) fn reroot(&mut self, idx: u32, most: usize) -> usize {
        let most = most.max(1);
        // A copied node's children are the old indices until its turn comes.
        let mut nodes: Vec<Node> = Vec::with_capacity(most.min(self.nodes.len()));
        let mut root = self.nodes[idx as usize].clone();
        root.parent = NONE;
        nodes.push(root);
        let mut i = 0;
        while i < nodes.len() {
            for a in 0..MAX_ACTIONS {
                let c = nodes[i].children[a];
                nodes[i].children[a] = NONE;
                if c != NONE && self.nodes[c as usize].n > 0 && nodes.len() < most {
                    let mut child = self.nodes[c as usize].clone();
                    child.parent = i as u32;
                    nodes[i].children[a] = nodes.len() as u32;
                    nodes.push(child);
                }
            }
            i += 1;
        }
        self.nodes = nodes;
        self.nodes.len()
    }

    /// Creates the child of `node` by action `a`, reached as `state` (by a capture when
    /// `captured`), in a tree of at most `most` nodes; returns its index.
    pub(super) fn add_child(
        &mut self,
        node: u32,
        a: usize,
        state: State,
        captured: bool,
        most: usize,
    ) -> u32 {
        let idx = self.nodes.len() as u32;
        let mut new = Node::new(state, node, &self.rules, self.utility);
        new.captured = captured;
        make_room(&mut self.nodes, most);
        self.nodes.push(new);
        self.nodes[node as usize].children[a] = idx;
        idx
    }

    /// Gives `idx` its evaluation: the values of the players in play and the logits (masked,
    /// with their softmax as the priors).
    pub(super) fn expand(&mut self, idx: u32, logits: &[f32; MAX_ACTIONS], values: &[f32]) {
        let h = self.rules.houses as usize;
        let n_players = self.rules.players as usize;
        let node = &mut self.nodes[idx as usize];
        node.raw_value = [0.0; MAX_PLAYERS];
        node.raw_value[..n_players].copy_from_slice(&values[..n_players]);
        node.logits = masked_logits(logits, node.legal, h);
        node.prior = softmax_legal(&node.logits, node.legal, h);
    }

    /// Adds `v` to every node from `idx` up to the root.
    pub(super) fn backup(&mut self, mut idx: u32, v: &[f32; MAX_PLAYERS]) {
        while idx != NONE {
            let node = &mut self.nodes[idx as usize];
            node.n += 1;
            for (w, x) in node.w.iter_mut().zip(v) {
                *w += x;
            }
            idx = node.parent;
        }
    }

    /// Whose value the node maximises, and with which sign ([`Backup`]): its mover's (max^n),
    /// or the root player's, negated where someone else moves (paranoid).
    pub(super) fn perspective(&self, nd: &Node) -> (usize, f32) {
        let mover = nd.state.to_move();
        match self.backup {
            Backup::Maxn => (mover, 1.0),
            Backup::Paranoid => {
                let root = self.nodes[0].state.to_move();
                (root, if mover == root { 1.0 } else { -1.0 })
            }
        }
    }

    /// Visits and mean values (for the node's mover, as [`Backup`] says) of a node's children.
    pub(super) fn child_stats(&self, node: u32) -> ([u32; MAX_ACTIONS], [f32; MAX_ACTIONS]) {
        let nd = &self.nodes[node as usize];
        let (player, sign) = self.perspective(nd);
        let mut n = [0u32; MAX_ACTIONS];
        let mut q = [0f32; MAX_ACTIONS];
        for a in 0..self.rules.houses as usize {
            let c = nd.children[a];
            if c != NONE && self.nodes[c as usize].n > 0 {
                let ch = &self.nodes[c as usize];
                n[a] = ch.n;
                q[a] = sign * ch.w[player] / ch.n as f32;
            }
        }
        (n, q)
    }

    /// The root's visit distribution over its actions, or its priors before any visit: the
    /// policy target of the rules that choose by visits (PUCT, UCT).
    pub(super) fn visit_policy(&self) -> [f32; MAX_ACTIONS] {
        let h = self.rules.houses as usize;
        let (n, _) = self.child_stats(0);
        let total: u32 = n[..h].iter().sum();
        if total == 0 {
            return self.nodes[0].prior;
        }
        let mut policy = [0f32; MAX_ACTIONS];
        for a in 0..h {
            policy[a] = n[a] as f32 / total as f32;
        }
        policy
    }

    /// The node's own value for the player it serves (as [`Tree::perspective`] says).
    pub(super) fn own_value(&self, nd: &Node) -> f32 {
        let (player, sign) = self.perspective(nd);
        sign * nd.raw_value[player]
    }
}

/// Logits with illegal actions at -inf.
pub(super) fn masked_logits(
    logits: &[f32; MAX_ACTIONS],
    legal: u16,
    h: usize,
) -> [f32; MAX_ACTIONS] {
    std::array::from_fn(|a| {
        if a < h && legal >> a & 1 == 1 {
            logits[a]
        } else {
            f32::NEG_INFINITY
        }
    })
}

/// Softmax over the legal actions (0 elsewhere).
///
/// ```
/// use awale::search::softmax_legal;
/// let mut logits = [0.0; 16];
/// logits[2] = 2f32.ln();
/// let p = softmax_legal(&logits, 0b101, 3);
/// assert!((p[2] - 2.0 / 3.0).abs() < 1e-6 && p[1] == 0.0);
/// ```
pub fn softmax_legal(logits: &[f32; MAX_ACTIONS], legal: u16, h: usize) -> [f32; MAX_ACTIONS] {
    let mut out = [0f32; MAX_ACTIONS];
    let max = (0..h)
        .filter(|&a| legal >> a & 1 == 1)
        .map(|a| logits[a])
        .fold(f32::NEG_INFINITY, f32::max);
    if max == f32::NEG_INFINITY {
        return out;
    }
    let mut sum = 0.0;
    for a in (0..h).filter(|&a| legal >> a & 1 == 1) {
        out[a] = (logits[a] - max).exp();
        sum += out[a];
    }
    for x in out.iter_mut() {
        *x /= sum;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_is_284_bytes() {
        // docs/play.md counts a tree's memory so.
        assert_eq!(std::mem::size_of::<Node>(), 284);
    }
}
