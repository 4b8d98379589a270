//! Endgame tables in self-play (`selfplay.tablebase = "DIR"`, `selfplay.tablebase_seeds = N`):
//! a self-play game that reaches a position of at most `N` seeds on the board ends there, with
//! the stores perfect play would give from it. Every training sample of the game then gets
//! the exact result as its value target, where without tables it gets the result of the
//! network's own (imperfect) endgame. `selfplay.tablebase_samples` says what the tables add to
//! the game's samples, so that the network still learns the endgames self-play no longer plays:
//! `entry` (the default), the position where the game entered the tables, its value the
//! tables' and its policy target spread evenly over their best moves; `playout`, that position
//! and the positions of perfect play from it to the end; `none`, nothing.
//!
//! [`prepare`] builds the tables a config names when they are missing (once; they are saved
//! in the folder for later runs) and [`SelfPlayTables::open`] opens them for a run.
//!
//! ```
//! use std::sync::Arc;
//! use awale::az::config::TableSamples;
//! use awale::az::selfplay_tables::SelfPlayTables;
//! use awale::tablebase::Tablebase;
//! use awale::{Rules, State};
//! let rules = Rules::abapa();
//! let table = Arc::new(Tablebase::build(&rules, 4, 1, &|_| {}).unwrap());
//! let tables = SelfPlayTables::new(table, 4, TableSamples::Entry, &rules).unwrap();
//! // South to move: 1 seed in F, North 1 in `a` and 1 in `b`; stores 23 and 22. F captures
//! // the 2 in `a`, then North cannot feed South and keeps his last seed: 25 to 23.
//! let s = State::from_parts(&rules, &[0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0], &[23, 22], 0, 0)
//!     .unwrap();
//! assert_eq!(tables.final_scores(&s).unwrap()[..2], [25, 23]);
//! let history = awale::history::History::new();
//! let rng = &mut <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(0);
//! let added = tables.extra_samples(&rules, &s, &history, rng, 1.0);
//! assert_eq!(added.len(), 1);
//! assert_eq!(added[0].1[5], 1.0); // F is the only best move
//! ```

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::Rng;

use super::config::TableSamples;
use super::{TrainConfig, TrainError, TrainResult};
use crate::history::History;
use crate::rules::{Rules, MAX_PLAYERS};
use crate::search::MAX_ACTIONS;
use crate::state::State;
use crate::tablebase::{BuildEvent, Tablebase};

/// The endgame tables of a self-play run: which positions end a game, and the samples they add.
#[derive(Clone)]
pub struct SelfPlayTables {
    table: Arc<Tablebase>,
    max_seeds: usize,
    samples: TableSamples,
    random: usize,
}

impl std::fmt::Debug for SelfPlayTables {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SelfPlayTables")
            .field("rules", &self.table.rules().to_string())
            .field("max_seeds", &self.max_seeds)
            .field("samples", &self.samples)
            .field("random", &self.random)
            .finish()
    }
}

/// Two settings are equal when they use the same opened table the same way.
impl PartialEq for SelfPlayTables {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.table, &other.table)
            && self.max_seeds == other.max_seeds
            && self.samples == other.samples
            && self.random == other.random
    }
}

impl SelfPlayTables {
    /// Games under `rules` end at positions of at most `max_seeds` seeds on the board, which
    /// `table` must cover (same rules of play, at least `max_seeds` seeds).
    pub fn new(
        table: Arc<Tablebase>,
        max_seeds: usize,
        samples: TableSamples,
        rules: &Rules,
    ) -> TrainResult<SelfPlayTables> {
        if !table.covers(rules) {
            return Err(TrainError::Config(format!(
                "selfplay.tablebase: the tables are for '{}', the run plays '{rules}'",
                table.rules()
            )));
        }
        if max_seeds > table.max_seeds() {
            return Err(TrainError::Config(format!(
                "selfplay.tablebase_seeds = {max_seeds}: the tables cover at most {} seeds",
                table.max_seeds()
            )));
        }
        Ok(SelfPlayTables {
            table,
            max_seeds,
            samples,
            random: 0,
        })
    }

    /// The same tables adding `count` positions drawn at random to each game
    /// ([`SelfPlayTables::random_samples`], `selfplay.tablebase_random`).
    pub fn with_random(mut self, count: usize) -> SelfPlayTables {
        self.random = count;
        self
    }

    /// Positions drawn at random from the tables added to each game.
    pub fn random(&self) -> usize {
        self.random
    }

    /// The tables a config names (`selfplay.tablebase`), or `None` when it names none. The
    /// tables must exist ([`prepare`] builds them).
    pub fn open(cfg: &TrainConfig) -> TrainResult<Option<SelfPlayTables>> {
        let p = &cfg.selfplay;
        if p.tablebase.is_empty() {
            return Ok(None);
        }
        let rules = cfg.rules()?;
        let table = Tablebase::open(Path::new(&p.tablebase), &rules, Some(p.tablebase_seeds))
            .map_err(|e| TrainError::Config(format!("selfplay.tablebase: {e}")))?;
        SelfPlayTables::new(
            Arc::new(table),
            p.tablebase_seeds,
            p.tablebase_samples,
            &rules,
        )
        .map(|t| Some(t.with_random(p.tablebase_random)))
    }

    /// Most seeds on the board of a position that ends a game.
    pub fn max_seeds(&self) -> usize {
        self.max_seeds
    }

    /// The samples the tables add to a game they end.
    pub fn samples(&self) -> TableSamples {
        self.samples
    }

    /// The final stores of the game from `state` under perfect play (each player's store now
    /// plus the board seeds the tables give him), or `None` when the game is over or the board
    /// holds more than [`SelfPlayTables::max_seeds`] seeds.
    pub fn final_scores(&self, state: &State) -> Option<[u8; MAX_PLAYERS]> {
        let rules = self.table.rules();
        let n = state.board_seeds(rules);
        if n as usize > self.max_seeds {
            return None;
        }
        let mover_gets = self.table.value(state)?;
        let m = state.to_move();
        let mut scores = *state.scores();
        scores[m] += mover_gets;
        scores[1 - m] += n as u8 - mover_gets;
        Some(scores)
    }

    /// The positions the tables add as samples to a game they end at `entry` (reached with
    /// `history`), with their policy targets: nothing, the entry position, or the entry position
    /// and those of perfect play from it (ties between best moves broken by `rng`; each
    /// position after the entry kept with probability `keep`). Perfect play keeps the entry's
    /// value, so every one of them has the game's exact result; a playout stops where the tables
    /// value a position by the cycle rule (its best move may not keep the value), where the rules
    /// end the game, or after 300 plies.
    pub fn extra_samples<R: Rng>(
        &self,
        rules: &Rules,
        entry: &State,
        history: &History,
        rng: &mut R,
        keep: f64,
    ) -> Vec<(State, [f32; MAX_ACTIONS])> {
        let mut out = Vec::new();
        if self.samples == TableSamples::None {
            return out;
        }
        let (mut state, mut history) = (*entry, history.clone());
        for ply in 0..300 {
            if state.is_over() {
                break;
            }
            let Ok(probe) = self.table.probe(&state) else {
                break;
            };
            let best = probe.best_moves();
            if ply == 0 || keep >= 1.0 || rng.random_bool(keep) {
                out.push((state, spread_over(&best)));
            }
            if self.samples == TableSamples::Entry || probe.cycle || best.is_empty() {
                break;
            }
            let mv = best[rng.random_range(0..best.len())];
            let info = state.apply_unchecked(rules, mv);
            history.record(rules, &mut state, &info);
        }
        out
    }

    /// `count` positions drawn at random from the tables, each with its policy target (spread
    /// evenly over the tables' best moves) and the final stores of perfect play from it: a seed
    /// count `n` from 1 to [`SelfPlayTables::max_seeds`], a board of `n` seeds (each board of
    /// the layer alike likely), player 0 to move, the other seeds split between the stores at
    /// random with neither above half the seeds in play (no winner yet). Boards where the game
    /// is already over are drawn again.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use awale::az::config::TableSamples;
    /// use awale::az::selfplay_tables::SelfPlayTables;
    /// use awale::tablebase::Tablebase;
    /// use awale::Rules;
    /// let rules = Rules::abapa();
    /// let table = Arc::new(Tablebase::build(&rules, 6, 1, &|_| {}).unwrap());
    /// let tables = SelfPlayTables::new(table, 6, TableSamples::Entry, &rules).unwrap();
    /// let rng = &mut <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(0);
    /// for (state, policy, finals) in tables.random_samples(&rules, 20, rng) {
    ///     assert!(state.board_seeds(&rules) <= 6 && !state.is_over());
    ///     assert!((policy.iter().sum::<f32>() - 1.0).abs() < 1e-6);
    ///     assert_eq!(finals[0] as u32 + finals[1] as u32, 48);
    /// }
    /// ```
    pub fn random_samples<R: Rng>(
        &self,
        rules: &Rules,
        count: usize,
        rng: &mut R,
    ) -> Vec<(State, [f32; MAX_ACTIONS], [u8; MAX_PLAYERS])> {
        let mut out = Vec::with_capacity(count);
        let total = rules.total_seeds() as usize;
        let half = total / 2;
        let pits = rules.pits();
        if self.max_seeds == 0 {
            return out;
        }
        // Bounded, in case a rule set ends nearly every board at once.
        for _ in 0..count * 8 {
            if out.len() == count {
                break;
            }
            let n = rng.random_range(1..=self.max_seeds);
            let count_n = self.table.layer_count(n);
            if count_n == 0 || n > total {
                continue;
            }
            let Some(board) = self.table.layer_board(n, rng.random_range(0..count_n)) else {
                continue;
            };
            // `n ≥ 1`, so `stored ≤ 2 · half` and the range is never empty.
            let stored = total - n;
            let mine = rng.random_range(stored.saturating_sub(half)..=stored.min(half)) as u8;
            let scores = [mine, stored as u8 - mine];
            let Ok(state) = State::from_parts(rules, &board[..pits], &scores, 0, 0) else {
                continue;
            };
            let (Some(finals), Ok(probe)) = (self.final_scores(&state), self.table.probe(&state))
            else {
                continue;
            };
            let best = probe.best_moves();
            if best.is_empty() {
                continue;
            }
            out.push((state, spread_over(&best), finals));
        }
        out
    }
}

/// A policy target spread evenly over `best` (the tables' best moves).
fn spread_over(best: &[usize]) -> [f32; MAX_ACTIONS] {
    let mut p = [0f32; MAX_ACTIONS];
    for &h in best {
        p[h] = 1.0 / best.len() as f32;
    }
    p
}

/// What [`prepare`] did.
#[derive(Debug, Clone, PartialEq)]
pub enum Prepared {
    /// The config uses no tables.
    Unused,
    /// The tables were there.
    Found,
    /// The tables were missing and were built and saved, in this wall time.
    Built(Duration),
}

/// Makes sure the tables a config names (`selfplay.tablebase`, up to
/// `selfplay.tablebase_seeds` seeds) exist: missing ones are built on `threads` threads (0: every
/// core) and saved into the folder, once, for later runs. `progress` hears of each layer.
pub fn prepare(
    cfg: &TrainConfig,
    threads: usize,
    progress: &(dyn Fn(BuildEvent) + Sync),
) -> TrainResult<Prepared> {
    let p = &cfg.selfplay;
    if p.tablebase.is_empty() {
        return Ok(Prepared::Unused);
    }
    let rules = cfg.rules()?;
    let dir = Path::new(&p.tablebase);
    if Tablebase::open(dir, &rules, Some(p.tablebase_seeds)).is_ok() {
        return Ok(Prepared::Found);
    }
    let start = Instant::now();
    let table = Tablebase::build(&rules, p.tablebase_seeds, threads, progress)?;
    table.save(dir)?;
    Ok(Prepared::Built(start.elapsed()))
}
