//! [`Search`]: one tree searched with one [`super::Policy`] (mctx's `search.py`). It is a state
//! machine: [`Search::next_leaf`] walks the tree to the next position that needs the evaluator
//! (or returns `None` when the search is complete), and [`Search::deliver`] expands that leaf
//! with its [`Evaluation`] and backs its value up; [`Search::run`] drives both with a
//! [`LeafEvaluator`], under a clock or a stop signal when asked. Many trees are stepped
//! together by [`super::BatchSearch`] and [`super::Rounds`].

use rand::Rng;

use super::evaluator::{Evaluation, LeafEvaluator};
use super::result::GuidedSearchResult;
use super::root::Root;
use super::settings::SearchSettings;
use super::tree::{Tree, NONE};
use crate::rules::{CycleRule, Rules, MAX_PLAYERS};
use crate::state::{PositionKey, State};

/// One game's search tree (reused from move to move; see the [module docs](crate::search)).
#[derive(Debug, Clone)]
pub struct Search {
    settings: SearchSettings,
    tree: Tree,
    root: Root,
    /// The root noise's strength, when on.
    noise: Option<f32>,
    pending: Option<u32>,
    root_evaluated: bool,
    /// With [`Search::set_history`]: the game's repetition window before the root.
    history: Option<Vec<PositionKey>>,
    /// The repetition window of the simulation in progress.
    path: Vec<PositionKey>,
    /// [`Search::run`]'s evaluations.
    evals: Vec<Evaluation>,
}

impl Search {
    /// An idle search for games under `rules`.
    pub fn new(rules: Rules, settings: SearchSettings) -> Search {
        Search {
            settings,
            tree: Tree::new(rules, settings.utility, settings.backup),
            root: Root::default(),
            noise: None,
            pending: None,
            root_evaluated: false,
            history: None,
            path: Vec::new(),
            evals: Vec::new(),
        }
    }

    /// The settings.
    pub fn settings(&self) -> &SearchSettings {
        &self.settings
    }

    /// The most memory, in bytes, the nodes of a search of `budget` simulations with `settings`
    /// hold: the root, and one node a simulation (two with [`super::Expansion::Child`]); the
    /// node array grows as a `Vec` does, but never past the budget's nodes.
    ///
    /// ```
    /// use awale::search::{Search, SearchSettings};
    /// let s = SearchSettings::default();
    /// assert_eq!(Search::tree_bytes(&s, 999), 10 * Search::tree_bytes(&s, 99));
    /// ```
    pub fn tree_bytes(settings: &SearchSettings, budget: u32) -> u64 {
        let per_simulation = settings.policy.nodes_per_simulation();
        Tree::bytes(Tree::most_nodes(budget, per_simulation))
    }

    /// The most nodes of the search under way (its budget may still be raised).
    fn most_nodes(&self) -> usize {
        let per_simulation = self.settings.policy.nodes_per_simulation();
        Tree::most_nodes(self.root.budget, per_simulation)
    }

    /// Starts a search of `budget` simulations from `root` (a position where the game goes on).
    /// `noise` turns on the policy's root noise at that strength: PUCT's Dirichlet noise (at
    /// its `dirichlet_fraction`, whatever the strength), Gumbel's noise times the strength;
    /// UCT has none.
    pub fn start(&mut self, root: State, budget: u32, noise: Option<f32>) {
        debug_assert!(!root.is_over());
        self.root = Root {
            budget,
            ..Root::default()
        };
        self.tree.reset(root, self.most_nodes());
        self.noise = noise;
        self.pending = None;
        self.root_evaluated = false;
    }

    /// Detects repetitions inside the tree from now on (until [`Search::clear_history`]): a
    /// position that repeats one since the last capture on its path, or in `window` (the game's
    /// positions before the root since its last capture, as [`crate::History`] keeps them),
    /// ends its game there as the rules' cycle rule says, as in the game itself. Without it the
    /// tree knows no repetition (self-play and the `nn` agent search so).
    pub fn set_history(&mut self, window: &[PositionKey]) {
        let h = self.history.get_or_insert_with(Vec::new);
        h.clear();
        h.extend_from_slice(window);
    }

    /// Stops detecting repetitions inside the tree.
    pub fn clear_history(&mut self) {
        self.history = None;
    }

    /// Sets the simulation budget of the search under way: raised, the search goes on; lowered
    /// to the simulations done, [`Search::next_leaf`] returns `None`. Raising it by one before
    /// each [`Search::next_leaf`] runs one simulation per call, so that a caller with a clock
    /// reads it before every simulation, those that end in a finished game inside the tree
    /// included (a solved endgame makes nothing but those). For policies whose choices do not
    /// depend on the budget ([`super::Policy::follows_budget`]). A root with a single legal action
    /// keeps its budget of 0.
    pub fn set_budget(&mut self, budget: u32) {
        if self.root_evaluated && self.tree.nodes[0].legal.count_ones() <= 1 {
            return;
        }
        self.root.budget = budget;
    }

    /// Simulations done.
    pub fn simulations(&self) -> u32 {
        self.root.spent
    }

    /// True once the search has spent its budget (or has nothing to decide).
    pub fn is_done(&self) -> bool {
        self.root_evaluated && self.pending.is_none() && self.root.spent >= self.root.budget
    }

    /// The next position to evaluate, or `None` when the search is complete. Simulations that
    /// end in a finished game are backed up here without the evaluator.
    pub fn next_leaf<R: Rng>(&mut self, rng: &mut R) -> Option<State> {
        let nodes = &self.tree.nodes;
        if let Some(p) = self.pending {
            return Some(nodes[p as usize].state);
        }
        if nodes.is_empty() {
            return None;
        }
        if !self.root_evaluated {
            self.pending = Some(0);
            return Some(nodes[0].state);
        }
        let rules = self.tree.rules;
        let cycles = self.history.is_some() && rules.cycle != CycleRule::Ignore;
        // Bounded: each turn of the loop completes a simulation or returns a leaf.
        while self.root.spent < self.root.budget {
            let mut node = 0u32;
            if cycles {
                self.path.clear();
                self.path
                    .extend_from_slice(self.history.as_deref().unwrap_or_default());
                let k = self.tree.nodes[0].state.key();
                if self.path.last() != Some(&k) {
                    self.path.push(k);
                }
            }
            loop {
                let a = self
                    .settings
                    .policy
                    .select(&self.tree, node, &self.root, rng);
                let child = self.tree.nodes[node as usize].children[a];
                if child == NONE {
                    let mut idx = self.add_child(node, a, cycles);
                    let new = &self.tree.nodes[idx as usize];
                    let policy = self.settings.policy;
                    if !new.terminal {
                        if let Some(b) = policy.evaluation_child(new.legal, rng) {
                            if cycles {
                                self.enter(idx);
                            }
                            idx = self.add_child(idx, b, cycles);
                        }
                    }
                    let new = &self.tree.nodes[idx as usize];
                    if new.terminal {
                        let v = new.raw_value;
                        self.tree.backup(idx, &v);
                        self.root.spent += 1;
                        break;
                    }
                    self.pending = Some(idx);
                    return Some(new.state);
                }
                if self.tree.nodes[child as usize].terminal {
                    let v = self.tree.nodes[child as usize].raw_value;
                    self.tree.backup(child, &v);
                    self.root.spent += 1;
                    break;
                }
                if cycles {
                    self.enter(child);
                }
                node = child;
            }
        }
        None
    }

    /// Creates the child of `node` by action `a`; under a cycle rule (`cycles`) a position that
    /// repeats one of the simulation's window without a capture ends its game there.
    fn add_child(&mut self, node: u32, a: usize, cycles: bool) -> u32 {
        let rules = self.tree.rules;
        let mut s = self.tree.nodes[node as usize].state;
        let info = s.apply_unchecked(&rules, a);
        let captured = info.any_captured > 0;
        if cycles && !captured && !s.is_over() && self.path.contains(&s.key()) {
            s.end_by_repetition(&rules);
        }
        let most = self.most_nodes();
        self.tree.add_child(node, a, s, captured, most)
    }

    /// Adds entering `node` to the simulation's repetition window (restarted by a capture).
    fn enter(&mut self, node: u32) {
        let nd = &self.tree.nodes[node as usize];
        if nd.captured {
            self.path.clear();
        }
        self.path.push(nd.state.key());
    }

    /// Expands the pending leaf with its evaluation and backs the value up.
    pub fn deliver<R: Rng>(&mut self, eval: &Evaluation, rng: &mut R) {
        let Some(idx) = self.pending.take() else {
            return;
        };
        self.tree.expand(idx, &eval.logits, &eval.values);
        let values = self.tree.nodes[idx as usize].raw_value;
        if idx != 0 {
            self.tree.backup(idx, &values);
            self.root.spent += 1;
            return;
        }
        self.root_evaluated = true;
        let root = &mut self.tree.nodes[0];
        root.n = 1;
        root.w = values;
        if root.legal.count_ones() <= 1 {
            self.root.budget = 0;
        }
        let policy = self.settings.policy;
        if let Some(scale) = self.noise {
            policy.add_root_noise(&mut self.tree, scale, &mut self.root, rng);
        }
        policy.begin(&self.tree, &mut self.root);
    }

    /// Runs the search started by [`Search::start`] to its end with `evaluator`, one leaf at a
    /// time: the one driver of a single tree (the `mcts` and `nn` agents, `play_out`). With
    /// `limit` (a clock or a stop signal, true once reached), it is read before every simulation
    /// after the first, those that end in a finished game inside the tree included, and the
    /// search ends there; a policy that does not follow the budget (PUCT, UCT) then runs one
    /// simulation per step, so that the tree is the one the whole budget would have grown so
    /// far. Also ends, incomplete, once the evaluator says it has stopped. Returns the
    /// simulations done.
    pub fn run<R: Rng>(
        &mut self,
        evaluator: &mut dyn LeafEvaluator,
        rng: &mut R,
        limit: Option<&dyn Fn() -> bool>,
    ) -> u32 {
        let full = self.root.budget;
        let step = limit.is_some() && !self.settings.policy.follows_budget();
        loop {
            let done = self.root.spent;
            if done > 0 && limit.is_some_and(|reached| reached()) {
                break;
            }
            if step {
                self.set_budget((done + 1).min(full));
            }
            let Some(leaf) = self.next_leaf(rng) else {
                // A step that ended in a finished game: the search goes on while it moves.
                let now = self.root.spent;
                if step && now > done && now < full {
                    continue;
                }
                break;
            };
            evaluator.evaluate(&[leaf], &mut self.evals);
            if evaluator.stopped() {
                break;
            }
            let e = self.evals[0];
            self.deliver(&e, rng);
        }
        self.root.spent
    }

    /// The result of the finished search.
    pub fn result(&self) -> GuidedSearchResult {
        let root = &self.tree.nodes[0];
        let (visits, q) = self.tree.child_stats(0);
        let mut value = [0f32; MAX_PLAYERS];
        for (v, w) in value.iter_mut().zip(root.w) {
            *v = w / root.n.max(1) as f32;
        }
        let (policy, action) = self.settings.policy.result(&self.tree, &self.root);
        GuidedSearchResult {
            visits,
            policy,
            value,
            action,
            q,
            legal: root.legal,
        }
    }

    /// Nodes in the tree and the capacity its array holds (for tests of its memory).
    #[cfg(test)]
    pub(super) fn node_counts(&self) -> (usize, usize) {
        (self.tree.nodes.len(), self.tree.nodes.capacity())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{Policy, Uct, UniformEvaluator};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn a_tree_holds_at_most_its_budgets_nodes() {
        let rules = Rules::abapa();
        let settings = SearchSettings::new(Policy::Uct(Uct::default()));
        let mut search = Search::new(rules, settings);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut largest = 0;
        for budget in [1, 100, 5000, 20] {
            largest = budget.max(largest);
            search.start(State::initial(&rules, 0), budget, None);
            search.run(&mut UniformEvaluator, &mut rng, None);
            let (len, capacity) = search.node_counts();
            assert!(len <= budget as usize + 1);
            // The array kept from the largest budget so far, never more.
            let held = (capacity * std::mem::size_of::<super::super::tree::Node>()) as u64;
            assert!(
                held <= Search::tree_bytes(&settings, largest),
                "{budget}: {held}"
            );
        }
    }
}
