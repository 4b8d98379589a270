//! UCB1 at every node, `Q(a) + c·√(ln N / N(a))`, unvisited actions first (in a random order
//! drawn from the search's generator); priors are ignored. With
//! [`crate::agents::PlayoutEvaluator`] (the value of one random playout per leaf) it is plain
//! MCTS, the `mcts` agent. The chosen action is the most visited (ties: the better mean value,
//! then the lower house), the policy target the visit distribution.

use rand::Rng;

use super::tie_break::Best;
use super::tree::Tree;
use super::MAX_ACTIONS;

/// The UCT policy's settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Uct {
    /// The exploration constant (values lie in [-1, 1]).
    pub c: f32,
    /// Where a simulation that leaves the tree is evaluated.
    pub expansion: Expansion,
}

impl Default for Uct {
    fn default() -> Self {
        Uct {
            c: 1.4,
            expansion: Expansion::Node,
        }
    }
}

/// Where a simulation that leaves the tree is evaluated ([`Uct::expansion`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Expansion {
    /// At the new node: the tree grows by one node a simulation, and the evaluator sees the
    /// position the tree reached (the `nn` agent's `search=uct`, the `mcts` agent's default).
    #[default]
    Node,
    /// At a random child of the new node, which enters the tree with it (two nodes a
    /// simulation): classic MCTS's expansion, in which the first move of every playout becomes
    /// a node of the tree and keeps its statistics (`mcts:expand=child`). With random playouts
    /// it is worth +17.6 Elo [+3.7, +31.5] over `Node` at 1,000 simulations in abapa (an SPRT,
    /// docs/performance.md).
    Child,
}

impl Expansion {
    /// `node` or `child`.
    pub fn name(self) -> &'static str {
        match self {
            Expansion::Node => "node",
            Expansion::Child => "child",
        }
    }
}

impl std::str::FromStr for Expansion {
    type Err = String;
    fn from_str(s: &str) -> Result<Expansion, String> {
        match s {
            "node" => Ok(Expansion::Node),
            "child" => Ok(Expansion::Child),
            _ => Err(format!("'{s}' is not an expansion (node, child)")),
        }
    }
}

impl Uct {
    /// With [`Expansion::Child`], the random child of a new node (its `legal` actions) where the
    /// simulation is evaluated instead.
    pub(super) fn evaluation_child<R: Rng>(&self, legal: u16, rng: &mut R) -> Option<usize> {
        if self.expansion != Expansion::Child || legal == 0 {
            return None;
        }
        let k = rng.random_range(0..legal.count_ones());
        (0..MAX_ACTIONS)
            .filter(|&a| legal >> a & 1 == 1)
            .nth(k as usize)
    }

    /// An unvisited legal action of `node` drawn at random, else the best
    /// `q + c·√(ln N / n)` for the node's mover.
    pub(super) fn select<R: Rng>(&self, tree: &Tree, node: u32, rng: &mut R) -> usize {
        let nd = &tree.nodes[node as usize];
        let h = tree.rules.houses as usize;
        let (n, q) = tree.child_stats(node);
        let unvisited = (0..h)
            .filter(|&a| nd.legal >> a & 1 == 1 && n[a] == 0)
            .fold(0u16, |m, a| m | 1 << a);
        if unvisited != 0 {
            let k = rng.random_range(0..unvisited.count_ones());
            return (0..h)
                .filter(|&a| unvisited >> a & 1 == 1)
                .nth(k as usize)
                .expect("k below the count");
        }
        let ln = (nd.n.max(1) as f32).ln();
        let mut best = Best::default();
        for a in (0..h).filter(|&a| nd.legal >> a & 1 == 1) {
            best.consider(a, q[a] + self.c * (ln / n[a] as f32).sqrt());
        }
        best.action
    }

    /// The policy target (the visits; the priors before any visit) and the most visited action.
    pub(super) fn result(tree: &Tree) -> ([f32; MAX_ACTIONS], usize) {
        let h = tree.rules.houses as usize;
        let root = &tree.nodes[0];
        let legal = root.legal;
        let (n, q) = tree.child_stats(0);
        let policy = tree.visit_policy();
        let mut action = legal.trailing_zeros() as usize;
        let mut best: Option<(u32, f32)> = None;
        for a in (0..h).filter(|&a| legal >> a & 1 == 1) {
            if best.is_none_or(|(bn, bq)| n[a] > bn || (n[a] == bn && q[a] > bq)) {
                best = Some((n[a], q[a]));
                action = a;
            }
        }
        (policy, action)
    }
}
