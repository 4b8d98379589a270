//! Monte-Carlo tree search guided by an evaluator (a network, random playouts, a Python
//! callable): one tree, three selection rules as [`Policy`] values, one driver for one tree
//! ([`Search::run`]) and one for many ([`Rounds`]), in the spirit of DeepMind's `mctx`. The
//! same search serves self-play, the `nn` agent, the `mcts` agent and Python (`awale.search`).
//!
//! Values are kept per *absolute* player in [-1, 1] (the max^n generalisation): a node's
//! statistics hold the sum of each player's value over the simulations through it, and a node
//! chooses among its children by the value of *its* player to move ([`Backup`]). In a 2-player
//! game this is ordinary negamax. Finished games (ended by the rules, or cut off at the ply
//! limit and adjudicated by the stores) are scored exactly by the settings' [`crate::Utility`].
//! Repetitions inside the tree are detected only when the caller gives the game's repetition
//! window ([`Search::set_history`]; the `mcts` agent does).
//!
//! | file | what it holds |
//! |---|---|
//! | `tree.rs` | the nodes, their statistics, expansion and backup, [`Backup`] |
//! | `policy.rs` | [`Policy`] and [`SearchKind`]: the rules behind one type, self-play's move choice |
//! | `tie_break.rs` | the one tie-break rule: the first action on ties |
//! | `root.rs` | the root's state the rules read: simulations spent, budget, Gumbel's considered actions |
//! | `puct.rs`, `gumbel.rs`, `uct.rs` | each rule: its settings, noise, selection, final choice |
//! | `seq_halving.rs` | Gumbel's sequential-halving schedule |
//! | `samplers.rs` | Gumbel, Dirichlet and Gamma draws |
//! | `evaluator.rs` | [`Evaluation`], [`LeafEvaluator`], [`UniformEvaluator`], [`Mix`] |
//! | `settings.rs` | [`SearchSettings`] |
//! | `driver.rs` | [`Search`]: one tree, stepped leaf by leaf or run to the end, kept from move to move ([`Search::start_keeping`]) |
//! | `result.rs` | [`GuidedSearchResult`] |
//! | `forest.rs` | [`Rounds`] over a [`Forest`], and [`BatchSearch`] |
//! | `gather.rs` | many threads' leaves in few, large calls on evaluator threads, several batches in flight |
//!
//! ```
//! use awale::agents::PlayoutEvaluator;
//! use awale::search::{Policy, Search, SearchSettings, Uct};
//! use awale::{Rules, State};
//! use rand::SeedableRng;
//!
//! let rules = Rules::abapa();
//! // House F captures 5 and reaches 25 seeds: an immediate win.
//! let s = State::from_parts(&rules, &[1, 0, 0, 0, 0, 2, 1, 2, 5, 0, 0, 0], &[20, 17], 0, 0).unwrap();
//! let mut search = Search::new(rules, SearchSettings::new(Policy::Uct(Uct::default())));
//! let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
//! search.start(s, 300, None);
//! search.run(&mut PlayoutEvaluator::new(rules, 300, 1), &mut rng, None);
//! assert_eq!(search.result().action, 5);
//! ```

mod driver;
mod evaluator;
mod forest;
pub mod gather;
mod gumbel;
mod policy;
mod puct;
mod result;
mod root;
mod samplers;
mod seq_halving;
mod settings;
mod tie_break;
mod tree;
mod uct;

pub use driver::Search;
pub use evaluator::{Evaluation, LeafEvaluator, Mix, UniformEvaluator};
pub use forest::{BatchSearch, Forest, Rounds};
pub use gumbel::{completed_sigma, gumbel_improved_policy, Gumbel};
pub use policy::{Policy, SearchKind};
pub use puct::Puct;
pub use result::GuidedSearchResult;
pub use seq_halving::{considered_visit, considered_visit_sequence};
pub use settings::{check_sims, SearchSettings, MAX_SIMS};
pub use tree::{softmax_legal, Backup};
pub use uct::{Expansion, Uct};

/// The most houses per player a network and search support.
pub const MAX_ACTIONS: usize = 16;
