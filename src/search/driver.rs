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
    /// Nodes the search kept from the last one ([`Search::start_keeping`]).
    kept: usize,
    /// The root's simulations kept from the last search.
    kept_visits: u32,
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
            kept: 0,
            kept_visits: 0,
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

    /// The most memory, in bytes, of a search that keeps its tree from move to move
    /// ([`Search::start_keeping`]): twice a fresh one's, the kept nodes being at most a fresh
    /// tree's.
    pub fn kept_tree_bytes(settings: &SearchSettings, budget: u32) -> u64 {
        2 * Search::tree_bytes(settings, budget)
    }

    /// The most nodes of the search under way (its budget may still be raised): those it kept
    /// and those of its budget.
    fn most_nodes(&self) -> usize {
        let per_simulation = self.settings.policy.nodes_per_simulation();
        self.kept + Tree::most_nodes(self.root.budget, per_simulation)
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
        self.kept = 0;
        self.kept_visits = 0;
        self.tree.reset(root, self.most_nodes());
        self.noise = noise;
        self.pending = None;
        self.root_evaluated = false;
    }

    /// Starts a search of `budget` more simulations from `root`, keeping what the last search
    /// learnt of it (tree reuse, as Leela Zero and KataGo do between moves): when the last
    /// tree holds `root` (the position after the move it chose and the opponent's reply, say),
    /// the subtree below it becomes the tree, with its visits, and the search adds `budget`
    /// simulations to them; otherwise it starts afresh as [`Search::start`] does. Kept only
    /// by PUCT without root noise and without a repetition window (the nodes of a tree with
    /// one depend on the path to them). At most the nodes of a fresh tree of `budget` are kept
    /// (breadth first: those nearest the root; a node whose children were left out keeps its
    /// visits and value, and grows new children), so that the tree never holds more than twice
    /// a fresh one's ([`Search::kept_tree_bytes`]). Returns whether the tree was kept.
    ///
    /// ```
    /// use awale::search::{Policy, Puct, Search, SearchSettings, UniformEvaluator};
    /// use awale::{Rules, State};
    /// use rand::SeedableRng;
    ///
    /// let rules = Rules::abapa();
    /// let mut search = Search::new(rules, SearchSettings::new(Policy::Puct(Puct::default())));
    /// let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
    /// let mut s = State::initial(&rules, 0);
    /// search.start(s, 200, None);
    /// search.run(&mut UniformEvaluator, &mut rng, None);
    /// // The move chosen, then a reply: the tree below it is kept.
    /// s.apply(&rules, search.result().action).unwrap();
    /// s.apply(&rules, s.legal_moves(&rules)[0]).unwrap();
    /// assert!(search.start_keeping(s, 200));
    /// assert!(search.kept_visits() > 0);
    /// search.run(&mut UniformEvaluator, &mut rng, None);
    /// assert_eq!(search.simulations(), 200);
    /// ```
    pub fn start_keeping(&mut self, root: State, budget: u32) -> bool {
        let keeps = matches!(self.settings.policy, super::Policy::Puct(_))
            && self.history.is_none()
            && self.root_evaluated;
        let found = if keeps { self.tree.find(&root) } else { None };
        let per_simulation = self.settings.policy.nodes_per_simulation();
        let most = Tree::most_nodes(budget, per_simulation);
        let Some(idx) = found else {
            self.start(root, budget, None);
            return false;
        };
        let kept = self.tree.reroot(idx, most);
        self.root = Root {
            budget,
            ..Root::default()
        };
        self.kept = kept;
        self.kept_visits = self.tree.nodes[0].n;
        self.noise = None;
        self.pending = None;
        self.root_evaluated = true;
        if self.tree.nodes[0].legal.count_ones() <= 1 {
            self.root.budget = 0;
        }
        self.settings.policy.begin(&self.tree, &mut self.root);
        true
    }

    /// The root's simulations kept from the last search ([`Search::start_keeping`]; 0 after
    /// [`Search::start`]): the search's visits are these and [`Search::simulations`].
    pub fn kept_visits(&self) -> u32 {
        self.kept_visits
    }

    /// Forgets the tree: the next [`Search::start_keeping`] starts afresh (a new game).
    pub fn forget(&mut self) {
        self.tree.nodes.clear();
        self.root_evaluated = false;
        self.pending = None;
        self.kept = 0;
        self.kept_visits = 0;
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
    use crate::search::{Policy, Uct, UniformEvaluator, MAX_ACTIONS};
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

    /// Checks that the tree is whole: each child's parent is its parent, each expanded
    /// node's visits are its own evaluation and its children's (at least, where a kept tree
    /// left children out: `exact` false).
    fn assert_whole(search: &Search, exact: bool) {
        let nodes = &search.tree.nodes;
        assert_eq!(nodes[0].parent, NONE);
        for (i, nd) in nodes.iter().enumerate() {
            let mut below = 0;
            for &c in nd.children.iter().filter(|&&c| c != NONE) {
                assert_eq!(nodes[c as usize].parent, i as u32);
                assert!(c as usize > i, "a child before its parent");
                below += nodes[c as usize].n;
            }
            if !nd.terminal && nd.n > 0 {
                assert!(nd.n == below + 1 || !exact && nd.n > below, "node {i}");
            }
        }
    }

    fn puct() -> SearchSettings {
        SearchSettings::new(Policy::Puct(crate::search::Puct::default()))
    }

    #[test]
    fn a_kept_tree_is_the_subtree_of_the_position_reached() {
        let rules = Rules::abapa();
        let mut search = Search::new(rules, puct());
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut playouts = crate::agents::PlayoutEvaluator::new(rules, 300, 5);
        let mut s = State::initial(&rules, 0);
        for _ in 0..12 {
            search.start_keeping(s, 300);
            search.run(&mut playouts, &mut rng, None);
            assert_whole(&search, false);
            assert_eq!(search.simulations(), 300);
            let chosen = search.result().action;
            let below = search.tree.nodes[0].children[chosen];
            // The reply the search expected most: its node, visits and children are kept.
            let (n, _) = search.tree.child_stats(below);
            let reply = (0..MAX_ACTIONS).max_by_key(|&a| n[a]).unwrap();
            let old_idx = search.tree.nodes[below as usize].children[reply];
            let old = search.tree.nodes[old_idx as usize].clone();
            let (old_visits, old_q) = search.tree.child_stats(old_idx);
            s.apply(&rules, chosen).unwrap();
            s.apply(&rules, reply).unwrap();
            if s.is_over() {
                break;
            }
            assert!(search.start_keeping(s, 300));
            assert_eq!(search.kept_visits(), old.n);
            let root = &search.tree.nodes[0];
            assert_eq!(
                (root.state, root.n, root.w, root.prior),
                (old.state, old.n, old.w, old.prior)
            );
            assert_whole(&search, false);
            // Nothing searched yet: the root's children are those of the old node.
            assert_eq!(search.tree.child_stats(0), (old_visits, old_q));
            // The tree never holds more than twice a fresh one's nodes.
            let (len, _) = search.node_counts();
            assert!(len <= 2 * 301, "{len}");
        }
    }

    #[test]
    fn a_kept_tree_larger_than_a_fresh_one_keeps_the_nodes_nearest_the_root() {
        let rules = Rules::abapa();
        let mut search = Search::new(rules, puct());
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let s0 = State::initial(&rules, 0);
        search.start(s0, 2000, None);
        search.run(&mut UniformEvaluator, &mut rng, None);
        let mut s = s0;
        s.apply(&rules, search.result().action).unwrap();
        let (old_visits, old_q) = search.tree.child_stats(search.tree.find(&s).unwrap());
        // 2000 simulations' subtree, 50 kept: the root and its children, with their visits.
        assert!(search.start_keeping(s, 49));
        assert_eq!(search.node_counts().0, 50);
        assert_eq!(search.tree.child_stats(0), (old_visits, old_q));
        assert_whole(&search, false);
        search.run(&mut UniformEvaluator, &mut rng, None);
        assert_eq!(search.simulations(), 49);
        assert!(search.node_counts().0 <= 100);
        assert_whole(&search, false);
    }

    #[test]
    fn a_tree_is_kept_only_for_puct_a_known_position_and_no_repetition_window() {
        let rules = Rules::abapa();
        let s0 = State::initial(&rules, 0);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let run = |search: &mut Search, rng: &mut ChaCha8Rng| {
            search.start(s0, 200, None);
            search.run(&mut UniformEvaluator, rng, None);
            let mut s = s0;
            s.apply(&rules, search.result().action).unwrap();
            s
        };
        // PUCT keeps the child it searched.
        let mut search = Search::new(rules, puct());
        let s = run(&mut search, &mut rng);
        assert!(search.start_keeping(s, 200));
        // A position the tree does not hold, a forgotten tree: afresh.
        let mut far = s;
        for _ in 0..6 {
            let m = far.legal_moves(&rules)[0];
            far.apply(&rules, m).unwrap();
        }
        run(&mut search, &mut rng);
        assert!(!search.start_keeping(far, 200));
        assert_eq!(search.kept_visits(), 0);
        let s = run(&mut search, &mut rng);
        search.forget();
        assert!(!search.start_keeping(s, 200));
        // Gumbel, UCT and a search with a repetition window never keep it.
        for settings in [
            SearchSettings::default(),
            SearchSettings::new(Policy::Uct(Uct::default())),
        ] {
            let mut search = Search::new(rules, settings);
            let s = run(&mut search, &mut rng);
            assert!(!search.start_keeping(s, 200));
        }
        let mut search = Search::new(rules, puct());
        search.set_history(&[]);
        let s = run(&mut search, &mut rng);
        assert!(!search.start_keeping(s, 200));
    }

    #[test]
    fn a_leaf_left_waiting_by_a_stopped_search_is_not_kept() {
        let rules = Rules::abapa();
        let mut search = Search::new(rules, puct());
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let s0 = State::initial(&rules, 0);
        search.start(s0, 100, None);
        search.run(&mut UniformEvaluator, &mut rng, None);
        // Stepped by hand, stopped with a leaf waiting for its evaluation.
        search.set_budget(150);
        let waiting = search.next_leaf(&mut rng).unwrap();
        assert!(search
            .tree
            .nodes
            .iter()
            .any(|nd| nd.state == waiting && nd.n == 0));
        let a = search.result().action;
        let mut s = s0;
        s.apply(&rules, a).unwrap();
        assert!(search.start_keeping(s, 100));
        assert!(search.tree.nodes.iter().all(|nd| nd.n > 0));
        assert_whole(&search, true);
        search.run(&mut UniformEvaluator, &mut rng, None);
        assert_whole(&search, true);
    }
}
