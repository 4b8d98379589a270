//! Many searches stepped together: one [`Search`] tree per root position, their leaves gathered
//! into batches of a size the caller chooses, so that an evaluator outside Rust (a Python
//! callable, a PyTorch network on a GPU) is called once per batch, as OpenSpiel's MCTS with an
//! evaluator, LightZero's C++ trees with batched Python networks, and mctx's search as a
//! function of a model function do.
//!
//! [`BatchSearch::gather`] walks the trees to their next leaves (at most one pending leaf per
//! tree, at most `max_batch` in all, the trees taken in turn from where the last batch stopped);
//! [`BatchSearch::deliver`] hands the evaluations back. Each tree draws from its own generator,
//! seeded from the run seed and the tree's index, and sees only its own evaluations, so with a
//! deterministic evaluator the results do not depend on the batch size or on the order of the
//! calls. [`BatchSearch::run`] drives it all with a [`LeafEvaluator`].
//!
//! ```
//! use awale::az::batch_search::BatchSearch;
//! use awale::search::{SearchSettings, UniformEvaluator};
//! use awale::{Rules, State};
//!
//! let rules = Rules::abapa();
//! let roots = vec![State::initial(&rules, 0), State::initial(&rules, 1)];
//! let mut search = BatchSearch::new(rules, SearchSettings::default(), &roots, 32, false, 1.0, 7)
//!     .unwrap();
//! search.run(&mut UniformEvaluator, 64);
//! let results = search.results();
//! assert_eq!(results.len(), 2);
//! assert_eq!(results[0].visits.iter().sum::<u32>(), 32);
//! ```

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::agents::derive_seed;
use crate::error::{AwaleError, Result};
use crate::notation::format_position;
use crate::rules::Rules;
use crate::search::{Evaluation, GuidedSearchResult, LeafEvaluator, Search, SearchSettings};
use crate::state::State;

/// The searches of many root positions, stepped together (see the [module docs](self)).
#[derive(Debug, Clone)]
pub struct BatchSearch {
    searches: Vec<Search>,
    rngs: Vec<ChaCha8Rng>,
    done: Vec<bool>,
    remaining: usize,
    cursor: usize,
    leaves: Vec<State>,
    owners: Vec<usize>,
    evaluations: u64,
    batches: u64,
}

impl BatchSearch {
    /// Searches of `sims` simulations from each of `roots` under `rules` with `settings`.
    /// `noise` turns on the root noise (Dirichlet for PUCT; Gumbel noise scaled by
    /// `gumbel_scale` for Gumbel, 0 meaning none); tree `i` draws from a generator seeded by
    /// `seed` and `i`.
    ///
    /// # Errors
    /// A root whose game is over, or rules with more houses than the search supports.
    pub fn new(
        rules: Rules,
        settings: SearchSettings,
        roots: &[State],
        sims: u32,
        noise: bool,
        gumbel_scale: f32,
        seed: u64,
    ) -> Result<BatchSearch> {
        if rules.houses as usize > crate::search::MAX_ACTIONS {
            return Err(AwaleError::BadBatchInput(format!(
                "{} houses per player is more than the search's {}",
                rules.houses,
                crate::search::MAX_ACTIONS
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
                s.start(root, sims, noise, gumbel_scale);
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
            cursor: 0,
            leaves: Vec::new(),
            owners: Vec::new(),
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

    /// The next batch of leaves to evaluate, at most `max_batch` (at least 1) of them, one per
    /// tree, the trees taken in turn; empty once every search is complete. Leaves gathered and
    /// not yet delivered are returned again.
    pub fn gather(&mut self, max_batch: usize) -> &[State] {
        if !self.leaves.is_empty() {
            return &self.leaves;
        }
        let n = self.searches.len();
        let max_batch = max_batch.max(1);
        let mut visited = 0;
        while visited < n && self.leaves.len() < max_batch && self.remaining > 0 {
            let i = self.cursor;
            self.cursor = (self.cursor + 1) % n;
            visited += 1;
            if self.done[i] {
                continue;
            }
            match self.searches[i].next_leaf(&mut self.rngs[i]) {
                Some(leaf) => {
                    self.leaves.push(leaf);
                    self.owners.push(i);
                }
                None => {
                    self.done[i] = true;
                    self.remaining -= 1;
                }
            }
        }
        &self.leaves
    }

    /// Delivers the evaluations of the leaves of the last [`BatchSearch::gather`], in order.
    ///
    /// # Panics
    /// If `evals` does not hold one evaluation per gathered leaf.
    pub fn deliver(&mut self, evals: &[Evaluation]) {
        assert_eq!(
            evals.len(),
            self.owners.len(),
            "one evaluation per gathered leaf"
        );
        for (e, &i) in evals.iter().zip(&self.owners) {
            self.searches[i].deliver(e, &mut self.rngs[i]);
        }
        self.evaluations += self.owners.len() as u64;
        self.batches += u64::from(!self.owners.is_empty());
        self.leaves.clear();
        self.owners.clear();
    }

    /// Runs every search to the end with `evaluator`, in batches of at most `max_batch` leaves;
    /// stops early (the searches incomplete) if the evaluator says it has stopped.
    pub fn run(&mut self, evaluator: &mut dyn LeafEvaluator, max_batch: usize) {
        let mut evals = Vec::new();
        loop {
            let leaves = self.gather(max_batch);
            if leaves.is_empty() {
                break;
            }
            evaluator.evaluate(leaves, &mut evals);
            if evaluator.stopped() {
                self.leaves.clear();
                self.owners.clear();
                break;
            }
            self.deliver(&evals);
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::UniformEvaluator;

    fn roots(rules: &Rules, n: usize) -> Vec<State> {
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
            let mut b = BatchSearch::new(rules, settings, &roots, 24, true, 1.0, 3).unwrap();
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
        let err = BatchSearch::new(rules, SearchSettings::default(), &[s], 8, false, 1.0, 0);
        assert!(err.unwrap_err().to_string().contains("position 0"));
    }
}
