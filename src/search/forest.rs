//! Many searches stepped together, the one driver of many trees: [`Rounds`] asks the trees of a
//! [`Forest`] in turn for their next leaves and evaluates them in one batch of a size the
//! caller chooses, so that an evaluator outside Rust (a Python callable, a PyTorch network on a
//! GPU, a burn network) is called once per batch, as OpenSpiel's MCTS with an evaluator,
//! LightZero's C++ trees with batched Python networks, and mctx's search as a function of a
//! model function do. Self-play is a forest whose trees start the next move's search when one
//! ends; [`BatchSearch`] is the forest of one search per root position (Python's
//! `awale.search`).
//!
//! Each tree of a [`BatchSearch`] draws from its own generator, seeded from the run seed and the
//! tree's index, and sees only its own evaluations, so with a deterministic evaluator the
//! results do not depend on the batch size or on the order of the calls.
//!
//! ```
//! use awale::search::{BatchSearch, SearchSettings, UniformEvaluator};
//! use awale::{Rules, State};
//!
//! let rules = Rules::abapa();
//! let roots = vec![State::initial(&rules, 0), State::initial(&rules, 1)];
//! let mut search = BatchSearch::new(rules, SearchSettings::default(), &roots, 32, None, 7)
//!     .unwrap();
//! search.run(&mut UniformEvaluator, 64);
//! let results = search.results();
//! assert_eq!(results.len(), 2);
//! assert_eq!(results[0].visits.iter().sum::<u32>(), 32);
//! ```

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::{Evaluation, GuidedSearchResult, LeafEvaluator, Search, SearchSettings};
use crate::batch::derive_seed;
use crate::error::{AwaleError, Result};
use crate::notation::format_position;
use crate::rules::Rules;
use crate::state::State;

/// Trees that [`Rounds`] steps together.
pub trait Forest {
    /// How many trees.
    fn trees(&self) -> usize;
    /// The next leaf of tree `i` to evaluate, or `None` when it has none this round.
    fn next_leaf(&mut self, i: usize) -> Option<State>;
    /// Hands tree `i` the evaluation of the leaf it gave.
    fn deliver(&mut self, i: usize, evaluation: &Evaluation);
}

/// The many-tree driver: one round asks each tree at most once for a leaf, evaluates the
/// leaves in one call, and delivers them (see the [module docs](crate::search)).
#[derive(Debug, Clone, Default)]
pub struct Rounds {
    leaves: Vec<State>,
    owners: Vec<usize>,
    evals: Vec<Evaluation>,
    cursor: usize,
}

impl Rounds {
    /// One round: the trees of `forest` in turn, from where the last round stopped, each asked
    /// once, until `max_batch` (at least 1) leaves are gathered; one call of `evaluator`; the
    /// evaluations delivered, unless the evaluator has stopped. Returns the leaves evaluated
    /// (0 when no tree had one).
    pub fn round(
        &mut self,
        forest: &mut impl Forest,
        evaluator: &mut dyn LeafEvaluator,
        max_batch: usize,
    ) -> usize {
        self.leaves.clear();
        self.owners.clear();
        let n = forest.trees();
        let max_batch = max_batch.max(1);
        let mut visited = 0;
        while visited < n && self.leaves.len() < max_batch {
            let i = self.cursor;
            self.cursor = (self.cursor + 1) % n;
            visited += 1;
            if let Some(leaf) = forest.next_leaf(i) {
                self.leaves.push(leaf);
                self.owners.push(i);
            }
        }
        if self.leaves.is_empty() {
            return 0;
        }
        evaluator.evaluate(&self.leaves, &mut self.evals);
        if !evaluator.stopped() {
            for (e, &i) in self.evals.iter().zip(&self.owners) {
                forest.deliver(i, e);
            }
        }
        self.leaves.len()
    }
}

/// The searches of many root positions, stepped together (see the [module docs](crate::search)).
#[derive(Debug, Clone)]
pub struct BatchSearch {
    searches: Vec<Search>,
    rngs: Vec<ChaCha8Rng>,
    done: Vec<bool>,
    remaining: usize,
    rounds: Rounds,
    evaluations: u64,
    batches: u64,
}

impl BatchSearch {
    /// Searches of `sims` simulations from each of `roots` under `rules` with `settings`.
    /// `noise` turns on the policy's root noise at that strength ([`Search::start`]); tree `i`
    /// draws from a generator seeded by `seed` and `i`.
    ///
    /// # Errors
    /// A root whose game is over, or rules with more houses than the search supports.
    pub fn new(
        rules: Rules,
        settings: SearchSettings,
        roots: &[State],
        sims: u32,
        noise: Option<f32>,
        seed: u64,
    ) -> Result<BatchSearch> {
        if rules.houses as usize > super::MAX_ACTIONS {
            return Err(AwaleError::BadBatchInput(format!(
                "{} houses per player is more than the search's {}",
                rules.houses,
                super::MAX_ACTIONS
            )));
        }
        if let Some(i) = roots.iter().position(|s| s.is_over()) {
            return Err(AwaleError::BadBatchInput(format!(
                "position {i} ({}) is a finished game: there is nothing to search",
                format_position(&rules, &roots[i])
            )));
        }
        let searches = roots
            .iter()
            .map(|&root| {
                let mut s = Search::new(rules, settings);
                s.start(root, sims, noise);
                s
            })
            .collect();
        Ok(BatchSearch {
            searches,
            rngs: (0..roots.len() as u64)
                .map(|i| ChaCha8Rng::seed_from_u64(derive_seed(seed, i)))
                .collect(),
            done: vec![false; roots.len()],
            remaining: roots.len(),
            rounds: Rounds::default(),
            evaluations: 0,
            batches: 0,
        })
    }

    /// The number of searches.
    pub fn len(&self) -> usize {
        self.searches.len()
    }

    /// True when there are no searches.
    pub fn is_empty(&self) -> bool {
        self.searches.is_empty()
    }

    /// True once every search is complete.
    pub fn is_done(&self) -> bool {
        self.remaining == 0
    }

    /// Positions evaluated so far.
    pub fn evaluations(&self) -> u64 {
        self.evaluations
    }

    /// Batches delivered so far.
    pub fn batches(&self) -> u64 {
        self.batches
    }

    /// Runs every search to the end with `evaluator`, in batches of at most `max_batch` leaves;
    /// stops early (the searches incomplete) if the evaluator says it has stopped.
    pub fn run(&mut self, evaluator: &mut dyn LeafEvaluator, max_batch: usize) {
        let mut rounds = std::mem::take(&mut self.rounds);
        while self.remaining > 0 {
            let n = rounds.round(self, evaluator, max_batch);
            if n == 0 || evaluator.stopped() {
                break;
            }
            self.evaluations += n as u64;
            self.batches += 1;
        }
        self.rounds = rounds;
    }

    /// The result of every search, in the order of the roots.
    ///
    /// # Panics
    /// If a search is not complete.
    pub fn results(&self) -> Vec<GuidedSearchResult> {
        assert!(self.is_done(), "every search complete");
        self.searches.iter().map(Search::result).collect()
    }
}

impl Forest for BatchSearch {
    fn trees(&self) -> usize {
        self.searches.len()
    }

    fn next_leaf(&mut self, i: usize) -> Option<State> {
        if self.done[i] {
            return None;
        }
        let leaf = self.searches[i].next_leaf(&mut self.rngs[i]);
        if leaf.is_none() {
            self.done[i] = true;
            self.remaining -= 1;
        }
        leaf
    }

    fn deliver(&mut self, i: usize, evaluation: &Evaluation) {
        self.searches[i].deliver(evaluation, &mut self.rngs[i]);
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::search::UniformEvaluator;

    /// `n` positions of one game and the next (a root for each search of a test).
    pub(in crate::search) fn roots(rules: &Rules, n: usize) -> Vec<State> {
        let mut out = Vec::new();
        let mut s = State::initial(rules, 0);
        for k in 0..n {
            out.push(s);
            let legal = s.legal_mask(rules);
            let h = (0..6)
                .map(|d| (k * 7 + d) % 6)
                .find(|h| legal >> h & 1 == 1);
            s.apply_unchecked(rules, h.expect("a game that goes on has a legal move"));
            if s.is_over() {
                s = State::initial(rules, 1);
            }
        }
        out
    }

    #[test]
    fn the_batch_size_does_not_change_the_results() {
        let rules = Rules::abapa();
        let roots = roots(&rules, 9);
        let settings = SearchSettings::default();
        let results = |batch: usize| {
            let mut b = BatchSearch::new(rules, settings, &roots, 24, Some(1.0), 3).unwrap();
            b.run(&mut UniformEvaluator, batch);
            (b.results(), b.batches())
        };
        let (a, batches_a) = results(1);
        let (b, batches_b) = results(4);
        let (c, _) = results(100);
        assert_eq!(a, b);
        assert_eq!(a, c);
        assert!(batches_a > batches_b);
    }

    #[test]
    fn a_finished_game_is_refused() {
        let rules = Rules::abapa();
        let mut s = State::initial(&rules, 0);
        s.end_by_repetition(&rules);
        let err = BatchSearch::new(rules, SearchSettings::default(), &[s], 8, None, 0);
        assert!(err.unwrap_err().to_string().contains("position 0"));
    }
}
