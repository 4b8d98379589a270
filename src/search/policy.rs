//! The selection rules as one type (mctx's `policies.py` over one `search`): [`Policy`] is a
//! [`Puct`], a [`Gumbel`] or a [`Uct`], each with its own settings, root noise, selection and
//! final choice; [`super::Search`] walks the tree and asks the policy at every node.

use rand::Rng;
use serde::{Deserialize, Serialize};

use super::gumbel::Gumbel;
use super::puct::Puct;
use super::result::GuidedSearchResult;
use super::root::Root;
use super::tree::Tree;
use super::uct::Uct;
use super::MAX_ACTIONS;

/// The name of a selection rule (the config's `search.kind`, the `nn` agent's `search=`).
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

impl SearchKind {
    /// Its name, as a spec or a config writes it (`gumbel`, `puct`, `uct`).
    pub fn name(self) -> &'static str {
        match self {
            SearchKind::Gumbel => "gumbel",
            SearchKind::Puct => "puct",
            SearchKind::Uct => "uct",
        }
    }
}

impl std::fmt::Display for SearchKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}

/// A selection rule with its settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Policy {
    /// Gumbel root search with sequential halving ([`Gumbel`]).
    Gumbel(Gumbel),
    /// PUCT with Dirichlet root noise ([`Puct`]).
    Puct(Puct),
    /// UCB1 without priors ([`Uct`]).
    Uct(Uct),
}

impl Default for Policy {
    fn default() -> Self {
        Policy::of_kind(SearchKind::default())
    }
}

impl Policy {
    /// The policy of `kind` with its default settings.
    pub fn of_kind(kind: SearchKind) -> Policy {
        match kind {
            SearchKind::Gumbel => Policy::Gumbel(Gumbel::default()),
            SearchKind::Puct => Policy::Puct(Puct::default()),
            SearchKind::Uct => Policy::Uct(Uct::default()),
        }
    }

    /// Its kind.
    pub fn kind(&self) -> SearchKind {
        match self {
            Policy::Gumbel(_) => SearchKind::Gumbel,
            Policy::Puct(_) => SearchKind::Puct,
            Policy::Uct(_) => SearchKind::Uct,
        }
    }

    /// True when its choices depend on the simulation budget (Gumbel's visit schedule): a search
    /// against a clock then keeps its whole budget instead of raising it one simulation at a
    /// time.
    pub fn follows_budget(&self) -> bool {
        matches!(self, Policy::Gumbel(_))
    }

    /// The root noise of a self-play search at `temperature`, `full` for a full search (a
    /// training sample): PUCT's Dirichlet noise on full searches, Gumbel's noise scaled by the
    /// temperature while it is above 0, none for UCT.
    pub fn self_play_noise(&self, full: bool, temperature: f32) -> Option<f32> {
        match self {
            Policy::Puct(_) => full.then_some(1.0),
            Policy::Gumbel(_) => (temperature > 0.0).then_some(temperature),
            Policy::Uct(_) => None,
        }
    }

    /// The move self-play plays after a search at `temperature`: Gumbel's chosen action (its
    /// noise already drew it), otherwise an action drawn with probability proportional to
    /// `visits^(1/temperature)` (the chosen action at temperature 0 or without visits).
    pub fn self_play_move<R: Rng>(
        &self,
        r: &GuidedSearchResult,
        houses: usize,
        temperature: f32,
        rng: &mut R,
    ) -> usize {
        if matches!(self, Policy::Gumbel(_))
            || temperature <= 0.0
            || r.visits.iter().all(|&v| v == 0)
        {
            return r.action;
        }
        let w: Vec<f64> = (0..houses)
            .map(|a| (r.visits[a] as f64).powf(1.0 / temperature as f64))
            .collect();
        let total: f64 = w.iter().sum();
        let mut x = rng.random_range(0.0..total);
        let mut pick = r.action;
        for (a, &wa) in w.iter().enumerate() {
            if wa > 0.0 && x < wa {
                pick = a;
                break;
            }
            x -= wa;
        }
        pick
    }

    /// The most nodes a simulation adds to the tree: 2 for UCT with [`super::Expansion::Child`],
    /// else 1.
    pub fn nodes_per_simulation(&self) -> u32 {
        match self {
            Policy::Uct(u) if u.expansion == super::Expansion::Child => 2,
            _ => 1,
        }
    }

    /// The child of a new node (its `legal` actions) where a simulation is evaluated instead of
    /// the node ([`super::Expansion::Child`]).
    pub(super) fn evaluation_child<R: Rng>(&self, legal: u16, rng: &mut R) -> Option<usize> {
        match self {
            Policy::Uct(u) => u.evaluation_child(legal, rng),
            _ => None,
        }
    }

    /// Applies the root noise of strength `scale` once the root is evaluated.
    pub(super) fn add_root_noise<R: Rng>(
        &self,
        tree: &mut Tree,
        scale: f32,
        root: &mut Root,
        rng: &mut R,
    ) {
        match self {
            Policy::Puct(p) => p.add_root_noise(tree, rng),
            Policy::Gumbel(g) => g.add_root_noise(tree, scale, root, rng),
            Policy::Uct(_) => {}
        }
    }

    /// Prepares the root once evaluated (Gumbel: the actions it considers).
    pub(super) fn begin(&self, tree: &Tree, root: &mut Root) {
        if let Policy::Gumbel(g) = self {
            root.considered = g.considered(tree.nodes[0].legal);
        }
    }

    /// The action to search from `node`.
    pub(super) fn select<R: Rng>(&self, tree: &Tree, node: u32, root: &Root, rng: &mut R) -> usize {
        match self {
            Policy::Puct(p) => p.select(tree, node),
            Policy::Gumbel(g) => g.select(tree, node, root),
            Policy::Uct(u) => u.select(tree, node, rng),
        }
    }

    /// The policy target and the chosen action of a finished search.
    pub(super) fn result(&self, tree: &Tree, root: &Root) -> ([f32; MAX_ACTIONS], usize) {
        match self {
            Policy::Puct(_) => Puct::result(tree),
            Policy::Gumbel(g) => g.result(tree, root),
            Policy::Uct(_) => Uct::result(tree),
        }
    }
}
