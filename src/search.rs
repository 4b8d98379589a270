//! Monte-Carlo tree search guided by a network, one tree per game, built so that the leaves of
//! many games are evaluated in one batch.
//!
//! A [`Search`] is a state machine: [`Search::next_leaf`] walks the tree to the next position
//! that needs the network (or returns `None` when the search is complete), and
//! [`Search::deliver`] expands that leaf with the network's [`Evaluation`] and backs its value
//! up. Self-play asks every game for its next leaf, evaluates all of them in one batch, and
//! delivers the results: the network always sees a batch as large as the number of games.
//!
//! Values are kept per *absolute* player in [-1, 1] (the max^n generalisation): a node's
//! statistics hold the sum of each player's value over the simulations through it, and a node
//! chooses among its children by the value of *its* player to move. In a 2-player game this is
//! ordinary negamax. Finished games (ended by the rules, or cut off at the ply limit and
//! adjudicated by the stores) are scored exactly by the settings' [`Utility`] (by default the
//! rules' returns: +1 for a sole leader, 0 for a shared lead, -1 for the others). Repetitions inside the tree are detected only when the caller gives the
//! game's repetition window ([`Search::set_history`]; the `mcts` agent does); otherwise only the
//! game's own history knows them.
//!
//! Three selection rules:
//!
//! - [`SearchKind::Puct`]: AlphaZero's PUCT, `Q(a) + c·P(a)·√N / (1 + N(a))`, with Dirichlet noise
//!   mixed into the root priors when asked; unvisited children take the parent's mean value.
//!   The policy target is the root's visit distribution.
//! - [`SearchKind::Gumbel`]: Gumbel root search with sequential halving (Danihelka et al. 2022,
//!   "Policy improvement by planning with Gumbel", as in DeepMind's `mctx`): Gumbel noise `g` is
//!   added to the root logits, the top `m` actions by `g + logits` are searched with sequential
//!   halving on `g + logits + σ(q̂)`, and the chosen action is the survivor. Interior nodes pick
//!   `argmax π'(a) - N(a) / (1 + ΣN)`. The policy target is the improved policy
//!   `π' = softmax(logits + σ(q̂))` ([`gumbel_improved_policy`]), where `q̂` completes the Q-values
//!   of unvisited actions with the mixed value `v_mix`, rescaled to [0, 1] by min-max over the
//!   legal actions, and `σ(q̂) = (c_visit + max N) · c_scale · q̂`.
//! - [`SearchKind::Uct`]: UCB1 at every node, `Q(a) + c_uct·√(ln N / N(a))`, unvisited actions
//!   first (in a random order drawn from the search's generator); priors are ignored. With
//!   [`crate::agents::PlayoutEvaluator`] (the value of one random playout per leaf) it is plain
//!   MCTS, the `mcts` agent. The chosen action is the most visited (ties: the better mean
//!   value, then the lower house), the policy target the visit distribution.
//!
//! The search is a plain function of (root, evaluator, simulations) in the spirit of mctx: the
//! same tree serves self-play, the `nn` agent, the `mcts` agent and Python (`awale.search`).

use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::rules::{CycleRule, Rules, MAX_PLAYERS};
use crate::state::{PositionKey, State};
use crate::utility::Utility;

/// The most houses per player a network and search support.
pub const MAX_ACTIONS: usize = 16;

const NONE: u32 = u32::MAX;

/// The selection rule.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SearchKind {
    /// Gumbel root search with sequential halving.
    #[default]
    Gumbel,
    /// PUCT with Dirichlet root noise.
    Puct,
    /// UCB1 without priors (plain MCTS with a playout evaluator).
    Uct,
}

impl std::str::FromStr for SearchKind {
    type Err = String;
    fn from_str(s: &str) -> Result<SearchKind, String> {
        match s {
            "gumbel" => Ok(SearchKind::Gumbel),
            "puct" => Ok(SearchKind::Puct),
            "uct" => Ok(SearchKind::Uct),
            _ => Err(format!("'{s}' is not a search kind (gumbel, puct, uct)")),
        }
    }
}

/// The constants of a search (made from the config's `[search]` section by
/// [`SearchSettings::from_config`], in `config.rs`, which also gives its [`Default`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SearchSettings {
    /// The root algorithm.
    pub kind: SearchKind,
    /// PUCT exploration constant.
    pub c_puct: f32,
    /// Dirichlet concentration (PUCT root noise).
    pub dirichlet_alpha: f32,
    /// Weight of the Dirichlet noise.
    pub dirichlet_fraction: f32,
    /// Gumbel: the most actions considered at the root.
    pub gumbel_actions: u32,
    /// Gumbel: `c_visit` of σ.
    pub c_visit: f32,
    /// Gumbel: `c_scale` of σ.
    pub c_scale: f32,
    /// UCT exploration constant (values lie in [-1, 1]).
    pub c_uct: f32,
    /// What a finished or cut-off game in the tree is worth to each player
    /// ([`Utility`]; the evaluator's values should mean the same).
    pub utility: Utility,
    /// Whose value each node maximises: its own mover's (max^n, the default) or, with three
    /// or more players, the root player's for him and its opposite for everyone else
    /// (*paranoid*: the others play against him). The same with two players.
    pub backup: Backup,
}

/// Whose value a node of the tree maximises ([`SearchSettings::backup`]).
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

/// What the network says about a position: policy logits over the mover's houses and the value
/// of every player (absolute seats, in [-1, 1]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Evaluation {
    /// Policy logits by house (entries past the rules' houses are ignored).
    pub logits: [f32; MAX_ACTIONS],
    /// Expected result of each player (absolute seat).
    pub values: [f32; MAX_PLAYERS],
}

impl Default for Evaluation {
    fn default() -> Self {
        Evaluation {
            logits: [0.0; MAX_ACTIONS],
            values: [0.0; MAX_PLAYERS],
        }
    }
}

/// Evaluates the leaves of searches in batches: what guides a [`Search`] (a network through
/// [`crate::az::network::NetworkEvaluator`], or [`UniformEvaluator`]).
pub trait LeafEvaluator {
    /// Writes one evaluation per state into `out` (cleared first).
    fn evaluate(&mut self, states: &[State], out: &mut Vec<Evaluation>);

    /// True once the evaluator has failed or been interrupted (a Python callable that raised,
    /// Ctrl-C): the loops that drive searches stop at their next round. The evaluations it
    /// wrote since are not to be used.
    fn stopped(&self) -> bool {
        false
    }
}

/// The uniform evaluator: equal logits, every value 0 (plain MCTS with exact terminal values).
#[derive(Debug, Clone, Copy, Default)]
pub struct UniformEvaluator;

impl LeafEvaluator for UniformEvaluator {
    fn evaluate(&mut self, states: &[State], out: &mut Vec<Evaluation>) {
        out.clear();
        out.resize(states.len(), Evaluation::default());
    }
}

#[derive(Debug, Clone)]
struct Node {
    state: State,
    parent: u32,
    n: u32,
    w: [f32; MAX_PLAYERS],
    children: [u32; MAX_ACTIONS],
    logits: [f32; MAX_ACTIONS],
    prior: [f32; MAX_ACTIONS],
    raw_value: [f32; MAX_PLAYERS],
    legal: u16,
    expanded: bool,
    terminal: bool,
    /// Reached by a capture (the repetition window restarts there).
    captured: bool,
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
            expanded: terminal,
            terminal,
            captured: false,
        }
    }
}

/// Room for one more element in `nodes`, a tree's node array that will hold at most `most`
/// elements: the capacity doubles as a `Vec`'s does, but not past `most` (and `most` itself
/// grows only with the tree's budget), so that the array's memory follows its bound.
pub(crate) fn make_room<T>(nodes: &mut Vec<T>, most: usize) {
    if nodes.len() == nodes.capacity() {
        let want = (nodes.len() * 2).max(16).min(most).max(nodes.len() + 1);
        nodes.reserve_exact(want - nodes.len());
    }
}

/// The outcome of a finished search guided by a [`LeafEvaluator`] ([`Search::result`]; not to be
/// confused with the alpha-beta agent's `SearchResult` or the plain MCTS agent's `MctsResult`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GuidedSearchResult {
    /// Visits of each root action.
    pub visits: [u32; MAX_ACTIONS],
    /// The policy target: the improved policy (Gumbel) or the visit distribution (PUCT).
    pub policy: [f32; MAX_ACTIONS],
    /// The root's mean value for every player (absolute seats).
    pub value: [f32; MAX_PLAYERS],
    /// The action the search chose: the sequential-halving survivor (Gumbel), the most visited
    /// action (PUCT, UCT).
    pub action: usize,
    /// The mean value of each root action for the player to move at the root (0 where
    /// unvisited).
    pub q: [f32; MAX_ACTIONS],
    /// The legal actions at the root.
    pub legal: u16,
}

/// One game's search tree (reused from move to move; see the [module docs](self)).
#[derive(Debug, Clone)]
pub struct Search {
    rules: Rules,
    settings: SearchSettings,
    nodes: Vec<Node>,
    budget: u32,
    sims: u32,
    noise: bool,
    gumbel: [f32; MAX_ACTIONS],
    gumbel_scale: f32,
    /// Gumbel: the actions considered at the root (`m`).
    considered: usize,
    pending: Option<u32>,
    root_evaluated: bool,
    /// With [`Search::set_history`]: the game's repetition window before the root.
    history: Option<Vec<PositionKey>>,
    /// The repetition window of the simulation in progress.
    path: Vec<PositionKey>,
}

impl Search {
    /// An idle search for games under `rules`.
    pub fn new(rules: Rules, settings: SearchSettings) -> Search {
        Search {
            rules,
            settings,
            nodes: Vec::new(),
            budget: 0,
            sims: 0,
            noise: false,
            gumbel: [0.0; MAX_ACTIONS],
            gumbel_scale: 0.0,
            considered: 0,
            pending: None,
            root_evaluated: false,
            history: None,
            path: Vec::new(),
        }
    }

    /// The settings.
    pub fn settings(&self) -> &SearchSettings {
        &self.settings
    }

    /// The most memory, in bytes, the nodes of a search of `budget` simulations hold: one node
    /// a simulation and the root (the node array grows as a `Vec` does, but never past the
    /// budget's nodes).
    ///
    /// ```
    /// use awale::search::Search;
    /// assert_eq!(Search::tree_bytes(999), 10 * Search::tree_bytes(99));
    /// ```
    pub fn tree_bytes(budget: u32) -> u64 {
        (u64::from(budget) + 1) * std::mem::size_of::<Node>() as u64
    }

    /// Starts a search of `budget` simulations from `root` (a position where the game goes on).
    /// `noise` turns on the root noise (Dirichlet for PUCT; Gumbel noise for Gumbel, scaled by
    /// `gumbel_scale`, 0 meaning none).
    pub fn start(&mut self, root: State, budget: u32, noise: bool, gumbel_scale: f32) {
        debug_assert!(!root.is_over());
        self.nodes.clear();
        make_room(&mut self.nodes, budget as usize + 1);
        self.nodes
            .push(Node::new(root, NONE, &self.rules, self.settings.utility));
        self.budget = budget;
        self.sims = 0;
        self.noise = noise;
        self.gumbel = [0.0; MAX_ACTIONS];
        self.gumbel_scale = gumbel_scale;
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
    /// included (a solved endgame makes nothing but those). For PUCT and UCT, whose choices do
    /// not depend on the budget; Gumbel's visit schedule follows it. A root with a single legal
    /// action keeps its budget of 0.
    pub fn set_budget(&mut self, budget: u32) {
        if self.root_evaluated && self.nodes[0].legal.count_ones() <= 1 {
            return;
        }
        self.budget = budget;
    }

    /// Simulations done.
    pub fn simulations(&self) -> u32 {
        self.sims
    }

    /// True once the search has spent its budget (or has nothing to decide).
    pub fn is_done(&self) -> bool {
        self.root_evaluated && self.pending.is_none() && self.sims >= self.budget
    }

    /// The next position to evaluate, or `None` when the search is complete. Simulations that
    /// end in a finished game are backed up here without the network.
    pub fn next_leaf<R: Rng>(&mut self, rng: &mut R) -> Option<State> {
        if let Some(p) = self.pending {
            return Some(self.nodes[p as usize].state);
        }
        if self.nodes.is_empty() {
            return None;
        }
        if !self.root_evaluated {
            self.pending = Some(0);
            return Some(self.nodes[0].state);
        }
        let cycles = self.history.is_some() && self.rules.cycle != CycleRule::Ignore;
        // Bounded: each turn of the loop completes a simulation or returns a leaf.
        while self.sims < self.budget {
            let mut node = 0u32;
            if cycles {
                self.path.clear();
                self.path
                    .extend_from_slice(self.history.as_deref().unwrap_or_default());
                let k = self.nodes[0].state.key();
                if self.path.last() != Some(&k) {
                    self.path.push(k);
                }
            }
            loop {
                let a = if self.settings.kind == SearchKind::Uct {
                    self.select_uct(node, rng)
                } else {
                    self.select(node)
                };
                let child = self.nodes[node as usize].children[a];
                if child == NONE {
                    let mut s = self.nodes[node as usize].state;
                    let info = s.apply_unchecked(&self.rules, a);
                    let captured = info.any_captured > 0;
                    if cycles && !captured && !s.is_over() && self.path.contains(&s.key()) {
                        s.end_by_repetition(&self.rules);
                    }
                    let idx = self.nodes.len() as u32;
                    let mut new = Node::new(s, node, &self.rules, self.settings.utility);
                    new.captured = captured;
                    make_room(&mut self.nodes, self.budget as usize + 1);
                    self.nodes.push(new);
                    self.nodes[node as usize].children[a] = idx;
                    if self.nodes[idx as usize].terminal {
                        let v = self.nodes[idx as usize].raw_value;
                        self.backup(idx, &v);
                        self.sims += 1;
                        break;
                    }
                    self.pending = Some(idx);
                    return Some(s);
                }
                if self.nodes[child as usize].terminal {
                    let v = self.nodes[child as usize].raw_value;
                    self.backup(child, &v);
                    self.sims += 1;
                    break;
                }
                if cycles {
                    if self.nodes[child as usize].captured {
                        self.path.clear();
                    }
                    self.path.push(self.nodes[child as usize].state.key());
                }
                node = child;
            }
        }
        None
    }

    /// Expands the pending leaf with its evaluation and backs the value up.
    pub fn deliver<R: Rng>(&mut self, eval: &Evaluation, rng: &mut R) {
        let Some(idx) = self.pending.take() else {
            return;
        };
        let h = self.rules.houses as usize;
        let n_players = self.rules.players as usize;
        let node = &mut self.nodes[idx as usize];
        let mut values = [0f32; MAX_PLAYERS];
        values[..n_players].copy_from_slice(&eval.values[..n_players]);
        node.raw_value = values;
        node.logits = masked_logits(&eval.logits, node.legal, h);
        node.prior = softmax_legal(&node.logits, node.legal, h);
        node.expanded = true;
        if idx == 0 {
            self.root_evaluated = true;
            let legal = node.legal;
            node.n = 1;
            node.w = values;
            if legal.count_ones() <= 1 {
                self.budget = 0;
            }
            if self.noise {
                match self.settings.kind {
                    SearchKind::Puct => {
                        let noise = dirichlet(rng, self.settings.dirichlet_alpha, legal, h);
                        let f = self.settings.dirichlet_fraction;
                        for (p, n) in node.prior.iter_mut().zip(noise).take(h) {
                            *p = (1.0 - f) * *p + f * n;
                        }
                    }
                    SearchKind::Gumbel => {
                        for a in 0..h {
                            if legal >> a & 1 == 1 {
                                self.gumbel[a] = self.gumbel_scale * gumbel(rng);
                            }
                        }
                    }
                    SearchKind::Uct => {}
                }
            }
            if self.settings.kind == SearchKind::Gumbel {
                let m = (self.settings.gumbel_actions as usize).min(legal.count_ones() as usize);
                self.considered = m;
            }
        } else {
            self.backup(idx, &values);
            self.sims += 1;
        }
    }

    fn backup(&mut self, mut idx: u32, v: &[f32; MAX_PLAYERS]) {
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
    fn perspective(&self, nd: &Node) -> (usize, f32) {
        let mover = nd.state.to_move();
        match self.settings.backup {
            Backup::Maxn => (mover, 1.0),
            Backup::Paranoid => {
                let root = self.nodes[0].state.to_move();
                (root, if mover == root { 1.0 } else { -1.0 })
            }
        }
    }

    /// Visits and mean values (for the node's mover, as [`Backup`] says) of a node's children.
    fn child_stats(&self, node: u32) -> ([u32; MAX_ACTIONS], [f32; MAX_ACTIONS]) {
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

    fn sigma_completed(&self, node: u32) -> [f32; MAX_ACTIONS] {
        let nd = &self.nodes[node as usize];
        let (n, q) = self.child_stats(node);
        let h = self.rules.houses as usize;
        let (player, sign) = self.perspective(nd);
        completed_sigma(
            &nd.prior_for_mix(h),
            nd.legal,
            &q[..h],
            &n[..h],
            sign * nd.raw_value[player],
            self.settings.c_visit,
            self.settings.c_scale,
        )
    }

    /// UCB1 at `node`: an unvisited legal action drawn at random, else the best
    /// `q + c_uct·√(ln N / n)` for the node's mover.
    fn select_uct<R: Rng>(&self, node: u32, rng: &mut R) -> usize {
        let nd = &self.nodes[node as usize];
        let h = self.rules.houses as usize;
        let (n, q) = self.child_stats(node);
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
            best.consider(a, q[a] + self.settings.c_uct * (ln / n[a] as f32).sqrt());
        }
        best.action
    }

    fn select(&self, node: u32) -> usize {
        let nd = &self.nodes[node as usize];
        let h = self.rules.houses as usize;
        let legal = nd.legal;
        let (n, q) = self.child_stats(node);
        let mut best = Best::default();
        match self.settings.kind {
            SearchKind::Puct => {
                let (player, sign) = self.perspective(nd);
                let fpu = sign * nd.w[player] / nd.n.max(1) as f32;
                let sqrt_n = (nd.n.max(1) as f32).sqrt();
                for a in (0..h).filter(|&a| legal >> a & 1 == 1) {
                    let qa = if n[a] > 0 { q[a] } else { fpu };
                    best.consider(
                        a,
                        qa + self.settings.c_puct * nd.prior[a] * sqrt_n / (1.0 + n[a] as f32),
                    );
                }
            }
            SearchKind::Gumbel if node == 0 => {
                let sigma = self.sigma_completed(node);
                let target = if self.sims < self.budget {
                    considered_visit(self.considered, self.budget as usize, self.sims as usize)
                } else {
                    u32::MAX
                };
                for a in (0..h).filter(|&a| legal >> a & 1 == 1 && n[a] == target) {
                    best.consider(a, self.gumbel[a] + nd.logits[a] + sigma[a]);
                }
                if best.action == usize::MAX {
                    // Past the schedule: the least visited of the best.
                    let min_n = (0..h).filter(|&a| legal >> a & 1 == 1).map(|a| n[a]).min();
                    for a in (0..h).filter(|&a| legal >> a & 1 == 1 && Some(n[a]) == min_n) {
                        best.consider(a, self.gumbel[a] + nd.logits[a] + sigma[a]);
                    }
                }
            }
            SearchKind::Uct => unreachable!("UCT selects with select_uct"),
            SearchKind::Gumbel => {
                let sigma = self.sigma_completed(node);
                let improved =
                    softmax_legal(&std::array::from_fn(|a| nd.logits[a] + sigma[a]), legal, h);
                let total: u32 = n[..h].iter().sum();
                for a in (0..h).filter(|&a| legal >> a & 1 == 1) {
                    best.consider(a, improved[a] - n[a] as f32 / (1.0 + total as f32));
                }
            }
        }
        best.action
    }

    /// The result of the finished search.
    pub fn result(&self) -> GuidedSearchResult {
        let h = self.rules.houses as usize;
        let root = &self.nodes[0];
        let legal = root.legal;
        let (n, q) = self.child_stats(0);
        let mut value = [0f32; MAX_PLAYERS];
        for (v, w) in value.iter_mut().zip(root.w) {
            *v = w / root.n.max(1) as f32;
        }
        let mut policy = [0f32; MAX_ACTIONS];
        let mut action = legal.trailing_zeros() as usize;
        match self.settings.kind {
            SearchKind::Puct => {
                let total: u32 = n[..h].iter().sum();
                if total == 0 {
                    policy = root.prior;
                } else {
                    for a in 0..h {
                        policy[a] = n[a] as f32 / total as f32;
                    }
                }
                let mut best = 0;
                for a in (0..h).filter(|&a| legal >> a & 1 == 1) {
                    if n[a] > best || (n[a] == best && root.prior[a] > root.prior[action]) {
                        best = n[a];
                        action = a;
                    }
                }
            }
            SearchKind::Uct => {
                let total: u32 = n[..h].iter().sum();
                for a in 0..h {
                    policy[a] = n[a] as f32 / total.max(1) as f32;
                }
                if total == 0 {
                    policy = root.prior;
                }
                let mut best: Option<(u32, f32)> = None;
                for a in (0..h).filter(|&a| legal >> a & 1 == 1) {
                    if best.is_none_or(|(bn, bq)| n[a] > bn || (n[a] == bn && q[a] > bq)) {
                        best = Some((n[a], q[a]));
                        action = a;
                    }
                }
            }
            SearchKind::Gumbel => {
                let sigma = self.sigma_completed(0);
                policy = softmax_legal(
                    &std::array::from_fn(|a| root.logits[a] + sigma[a]),
                    legal,
                    h,
                );
                let max_n = (0..h)
                    .filter(|&a| legal >> a & 1 == 1)
                    .map(|a| n[a])
                    .max()
                    .unwrap_or(0);
                let mut best = f32::NEG_INFINITY;
                for a in (0..h).filter(|&a| legal >> a & 1 == 1 && n[a] == max_n) {
                    let s = self.gumbel[a] + root.logits[a] + sigma[a];
                    if s > best {
                        best = s;
                        action = a;
                    }
                }
            }
        }
        GuidedSearchResult {
            visits: n,
            policy,
            value,
            action,
            q,
            legal,
        }
    }
}

/// The best-scoring action seen so far (the first one on ties).
struct Best {
    action: usize,
    score: f32,
}

impl Default for Best {
    fn default() -> Self {
        Best {
            action: usize::MAX,
            score: f32::NEG_INFINITY,
        }
    }
}

impl Best {
    fn consider(&mut self, action: usize, score: f32) {
        if self.action == usize::MAX || score > self.score {
            self.action = action;
            self.score = score;
        }
    }
}

impl Node {
    /// The network's prior (without root noise), for the mixed value.
    fn prior_for_mix(&self, h: usize) -> [f32; MAX_ACTIONS] {
        softmax_legal(&self.logits, self.legal, h)
    }
}

/// Logits with illegal actions at -inf.
fn masked_logits(logits: &[f32; MAX_ACTIONS], legal: u16, h: usize) -> [f32; MAX_ACTIONS] {
    std::array::from_fn(|a| {
        if a < h && legal >> a & 1 == 1 {
            logits[a]
        } else {
            f32::NEG_INFINITY
        }
    })
}

/// Softmax over the legal actions (0 elsewhere).
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

/// σ(q̂) of the Gumbel search for one node: `prior` the network's policy, `q` and `visits` its
/// children's mean values (for the node's mover) and visits by action, `raw_value` the network's
/// value of the node for its mover. Unvisited legal actions get the mixed value
/// `v_mix = (raw_value + ΣN · Σ_visited π(a) q(a) / Σ_visited π(a)) / (1 + ΣN)`; the completed
/// values are rescaled by min-max over the legal actions, then `σ = (c_visit + max N) · c_scale · q̂`.
pub fn completed_sigma(
    prior: &[f32; MAX_ACTIONS],
    legal: u16,
    q: &[f32],
    visits: &[u32],
    raw_value: f32,
    c_visit: f32,
    c_scale: f32,
) -> [f32; MAX_ACTIONS] {
    let h = q.len();
    let is_legal = |a: usize| legal >> a & 1 == 1;
    let total: u32 = visits.iter().sum();
    let (mut pq, mut p) = (0f32, 0f32);
    for a in (0..h).filter(|&a| is_legal(a) && visits[a] > 0) {
        pq += prior[a] * q[a];
        p += prior[a];
    }
    let v_mix = if total == 0 || p <= 0.0 {
        raw_value
    } else {
        (raw_value + total as f32 * pq / p) / (1.0 + total as f32)
    };
    let mut cq = [0f32; MAX_ACTIONS];
    let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
    for a in (0..h).filter(|&a| is_legal(a)) {
        cq[a] = if visits[a] > 0 { q[a] } else { v_mix };
        lo = lo.min(cq[a]);
        hi = hi.max(cq[a]);
    }
    let max_n = visits.iter().copied().max().unwrap_or(0) as f32;
    let scale = (c_visit + max_n) * c_scale;
    let mut out = [0f32; MAX_ACTIONS];
    for a in (0..h).filter(|&a| is_legal(a)) {
        out[a] = scale * (cq[a] - lo) / (hi - lo).max(1e-8);
    }
    out
}

/// The Gumbel search's improved policy `softmax(logits + σ(q̂))` over the legal actions (see
/// [`completed_sigma`]).
///
/// ```
/// use awale::search::gumbel_improved_policy;
/// // Two actions, equal logits, only action 0 visited once with q = 1, network value 0:
/// // v_mix = (0 + 1·1)/2 = 0.5 completes action 1; min-max gives q̂ = (1, 0);
/// // σ = (50 + 1)·0.1·q̂ = (5.1, 0); π' = softmax(5.1, 0).
/// let p = gumbel_improved_policy(&[0.0, 0.0], 0b11, &[1.0, 0.0], &[1, 0], 0.0, 50.0, 0.1);
/// let want = 1.0 / (1.0 + (-5.1f32).exp());
/// assert!((p[0] - want).abs() < 1e-6 && (p[1] - (1.0 - want)).abs() < 1e-6);
/// ```
pub fn gumbel_improved_policy(
    logits: &[f32],
    legal: u16,
    q: &[f32],
    visits: &[u32],
    raw_value: f32,
    c_visit: f32,
    c_scale: f32,
) -> Vec<f32> {
    let h = logits.len();
    let mut l = [f32::NEG_INFINITY; MAX_ACTIONS];
    l[..h].copy_from_slice(logits);
    let l = masked_logits(&l, legal, h);
    let prior = softmax_legal(&l, legal, h);
    let sigma = completed_sigma(&prior, legal, q, visits, raw_value, c_visit, c_scale);
    let p = softmax_legal(&std::array::from_fn(|a| l[a] + sigma[a]), legal, h);
    p[..h].to_vec()
}

/// The visit count each root simulation of sequential halving targets (mctx's
/// `get_sequence_of_considered_visits`): `m` actions considered, `n` simulations. Simulation `k`
/// visits the best-scoring action whose visit count equals entry `k`.
///
/// ```
/// use awale::search::considered_visit_sequence;
/// assert_eq!(considered_visit_sequence(4, 8), [0, 0, 0, 0, 1, 1, 2, 2]);
/// assert_eq!(considered_visit_sequence(1, 3), [0, 1, 2]);
/// ```
pub fn considered_visit_sequence(m: usize, n: usize) -> Vec<u32> {
    (0..n).map(|k| considered_visit(m, n, k)).collect()
}

/// Entry `k` of [`considered_visit_sequence`]`(m, n)`, without the list (a search of `n`
/// simulations costs no memory in `n` for it): each phase of sequential halving visits every
/// considered action the same number of times, so the entry follows from the phases' lengths.
///
/// ```
/// use awale::search::{considered_visit, considered_visit_sequence};
/// let seq = considered_visit_sequence(6, 100);
/// assert!((0..100).all(|k| considered_visit(6, 100, k) == seq[k]));
/// ```
pub fn considered_visit(m: usize, n: usize, k: usize) -> u32 {
    if m <= 1 {
        return k as u32;
    }
    let log2max = (m as f64).log2().ceil() as usize;
    let (mut considered, mut start, mut visits) = (m, 0usize, 0usize);
    loop {
        let extra = (n / (log2max * considered)).max(1);
        let len = extra * considered;
        if k < start + len {
            return (visits + (k - start) / considered) as u32;
        }
        start += len;
        visits += extra;
        considered = (considered / 2).max(2);
    }
}

/// The list [`considered_visit_sequence`] was built as (mctx's own loop), kept to test
/// [`considered_visit`] against.
#[cfg(test)]
fn considered_visit_list(m: usize, n: usize) -> Vec<u32> {
    if m <= 1 {
        return (0..n as u32).collect();
    }
    let log2max = (m as f64).log2().ceil() as usize;
    let mut seq = Vec::with_capacity(n);
    let mut visits = vec![0u32; m];
    let mut considered = m;
    while seq.len() < n {
        let extra = (n / (log2max * considered)).max(1);
        for _ in 0..extra {
            seq.extend_from_slice(&visits[..considered]);
            for v in visits.iter_mut().take(considered) {
                *v += 1;
            }
        }
        considered = (considered / 2).max(2);
    }
    seq.truncate(n);
    seq
}

/// A standard Gumbel sample.
fn gumbel<R: Rng>(rng: &mut R) -> f32 {
    let u: f64 = rng.random_range(f64::MIN_POSITIVE..1.0);
    (-(-u.ln()).ln()) as f32
}

/// A standard normal sample (Box-Muller).
fn normal<R: Rng>(rng: &mut R) -> f64 {
    let u1: f64 = rng.random_range(f64::MIN_POSITIVE..1.0);
    let u2: f64 = rng.random();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

/// A Gamma(alpha, 1) sample (Marsaglia-Tsang).
fn gamma<R: Rng>(rng: &mut R, alpha: f64) -> f64 {
    if alpha < 1.0 {
        let u: f64 = rng.random_range(f64::MIN_POSITIVE..1.0);
        return gamma(rng, alpha + 1.0) * u.powf(1.0 / alpha);
    }
    let d = alpha - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x = normal(rng);
        let v = (1.0 + c * x).powi(3);
        if v <= 0.0 {
            continue;
        }
        let u: f64 = rng.random_range(f64::MIN_POSITIVE..1.0);
        if u.ln() < 0.5 * x * x + d - d * v + d * v.ln() {
            return d * v;
        }
    }
}

/// A Dirichlet(alpha) sample over the legal actions.
fn dirichlet<R: Rng>(rng: &mut R, alpha: f32, legal: u16, h: usize) -> [f32; MAX_ACTIONS] {
    let mut out = [0f32; MAX_ACTIONS];
    let mut sum = 0.0;
    for a in (0..h).filter(|&a| legal >> a & 1 == 1) {
        let g = gamma(rng, alpha as f64);
        out[a] = g as f32;
        sum += g;
    }
    if sum > 0.0 {
        for x in out.iter_mut() {
            *x = (*x as f64 / sum) as f32;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn a_tree_holds_at_most_its_budgets_nodes() {
        let rules = Rules::abapa();
        let settings = crate::agents::Mcts::settings(1.4, crate::utility::Utility::Outcome);
        let mut search = Search::new(rules, settings);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut evals = Vec::new();
        let mut largest = 0;
        for budget in [1, 100, 5000, 20] {
            largest = budget.max(largest);
            search.start(State::initial(&rules, 0), budget, false, 0.0);
            while let Some(leaf) = search.next_leaf(&mut rng) {
                UniformEvaluator.evaluate(&[leaf], &mut evals);
                search.deliver(&evals[0], &mut rng);
            }
            assert!(search.nodes.len() <= budget as usize + 1);
            // The array kept from the largest budget so far, never more.
            let held = (search.nodes.capacity() * std::mem::size_of::<Node>()) as u64;
            assert!(held <= Search::tree_bytes(largest), "{budget}: {held}");
        }
    }

    #[test]
    fn each_considered_visit_is_the_list_s() {
        for m in 1..=16 {
            for n in [0, 1, 2, 3, 7, 8, 31, 32, 64, 100, 257] {
                assert_eq!(
                    considered_visit_sequence(m, n),
                    considered_visit_list(m, n),
                    "{m} {n}"
                );
            }
        }
    }

    #[test]
    fn considered_visits_match_mctx() {
        // mctx: get_sequence_of_considered_visits(16, 32)
        let s = considered_visit_sequence(16, 32);
        assert_eq!(&s[..16], &(0..16).map(|_| 0).collect::<Vec<u32>>()[..]);
        assert_eq!(&s[16..24], &[1; 8]);
        assert_eq!(&s[24..28], &[2; 4]);
        assert_eq!(&s[28..], &[3; 4]);
    }

    #[test]
    fn dirichlet_sums_to_one_on_legal_moves() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let d = dirichlet(&mut rng, 0.3, 0b101101, 6);
        assert!((d.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        assert_eq!((d[1], d[4]), (0.0, 0.0));
    }
}
