//! Endgame tablebases: for every position of a 2-player, single-sowing rule set with at most
//! `N` seeds on the board, the number of those seeds the player to move gets under perfect play
//! by both sides (captures, and the seeds the rules' ending gives him).
//!
//! Built by retrograde analysis, layer by layer (a layer holds the boards of one seed count; a
//! capture only ever leads to a lower layer), multi-threaded, one byte per position, numbered
//! by a perfect index of the seed distribution ([`LayerIndex`]). Saved as one checksummed file
//! per layer and read whole into memory when opened (see `file.rs` for why not a memory map).
//!
//! What a table sets aside, and why (see `docs/rules.md`, "Tablebases"):
//! - the win threshold (25): reaching it ends the game without changing its winner, and the
//!   table counts every seed the mover can get;
//! - the history: a position inside a cycle of capture-free moves is valued as the cycle rule
//!   would end the game there, within what each side can force.
//!
//! ```
//! use awale::{Rules, State};
//! use awale::tablebase::Tablebase;
//! let rules = Rules::abapa();
//! let table = Tablebase::build(&rules, 4, 1, &|_| {}).unwrap();
//! // South to move: 1 seed in F; North: 1 in `a`, 1 in `b`. F captures the 2 in `a`, then
//! // North cannot feed South and takes his last seed.
//! let s = State::from_parts(&rules, &[0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0], &[23, 22], 0, 0)
//!     .unwrap();
//! let probe = table.probe(&s).unwrap();
//! assert_eq!(probe.value, 2);
//! assert_eq!(probe.best_moves(), vec![5]);
//! ```

mod analyze;
mod file;
mod solve;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

pub use crate::board_index::{ways, LayerIndex};
pub use analyze::AnalyzedMove;
pub use file::{MAGIC, VERSION};
pub use solve::LayerReport;

use crate::error::{AwaleError, Result};
use crate::rules::{FirstPlayer, Rules, Sowing};
use crate::state::{State, Status};
use file::Values;
use solve::{board_from, edge, position, Edge, Layers};

/// What [`Tablebase::build`] reports as it goes.
#[derive(Debug, Clone, Copy)]
pub enum BuildEvent {
    /// A layer starts: its seed count and its number of positions.
    LayerStarted {
        /// Seeds on the board.
        seeds: usize,
        /// Positions in the layer.
        positions: u64,
    },
    /// A layer is built.
    LayerDone(LayerReport),
}

/// The value of one legal move: the seeds the mover gets from here under perfect play after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveValue {
    /// The house played (0-based, in the mover's row).
    pub house: usize,
    /// Seeds (of those on the board now) the mover gets if he plays it, then both play perfectly.
    pub value: u8,
}

/// A position looked up in a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// Seeds on the board.
    pub seeds: u8,
    /// Seeds of those the mover gets under perfect play (the opponent gets the rest).
    pub value: u8,
    /// Every legal move and its value, in house order.
    pub moves: Vec<MoveValue>,
    /// True when neither player can force the game out of a cycle of capture-free moves from
    /// here and the value is what the cycle rule gives ([`Tablebase`], "history"): then the
    /// best move's value may differ from the position's. False when the value is forced: then
    /// the best moves keep it exactly.
    pub cycle: bool,
}

impl Probe {
    /// The value of the best move (equal to [`Probe::value`] unless [`Probe::cycle`]).
    pub fn best_value(&self) -> u8 {
        self.moves
            .iter()
            .map(|m| m.value)
            .max()
            .unwrap_or(self.value)
    }

    /// The moves of the best value (every optimal move), in house order.
    pub fn best_moves(&self) -> Vec<usize> {
        let best = self.best_value();
        self.moves
            .iter()
            .filter(|m| m.value == best)
            .map(|m| m.house)
            .collect()
    }

    /// Seeds lost against perfect play by playing `house` (the best move's value minus this
    /// move's), or `None` if it is not legal.
    pub fn loss(&self, house: usize) -> Option<u8> {
        let best = self.best_value();
        self.moves
            .iter()
            .find(|m| m.house == house)
            .map(|m| best - m.value)
    }
}

/// The rules a table is built for: `rules` without what a table sets aside (the win threshold,
/// the ply limit, who starts). Refuses rules a table cannot cover (relay sowing, more than 2
/// players).
pub fn table_rules(rules: &Rules) -> Result<Rules> {
    if rules.players != 2 || rules.sowing != Sowing::Single {
        return Err(AwaleError::Tablebase(format!(
            "tables cover 2-player single-sowing rules; '{rules}' has {} players and {} sowing",
            rules.players,
            match rules.sowing {
                Sowing::Single => "single",
                Sowing::Relay => "relay",
            }
        )));
    }
    let mut t = *rules;
    t.win_threshold = 0;
    t.max_plies = 0;
    t.first_player = FirstPlayer::Fixed(0);
    t.validate()?;
    Ok(t)
}

/// The stem of a table's file names: the rules' spec with the win threshold and the ply limit
/// of its preset (`abapa`, `abapa:grand_slam=capture_all`), made safe for a file name.
fn file_stem(table: &Rules) -> String {
    let base = table.preset.def().rules();
    let shown = Rules {
        win_threshold: base.win_threshold,
        max_plies: base.max_plies,
        first_player: base.first_player,
        ..*table
    };
    shown
        .to_string()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// An endgame table: a value for every position with at most [`Tablebase::max_seeds`] seeds on
/// the board.
pub struct Tablebase {
    rules: Rules,
    indexes: Vec<LayerIndex>,
    layers: Vec<Values>,
}

impl std::fmt::Debug for Tablebase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tablebase")
            .field("rules", &self.rules.to_string())
            .field("max_seeds", &self.max_seeds())
            .finish()
    }
}

/// The layers of a build in progress.
struct Building<'a> {
    indexes: &'a [LayerIndex],
    values: &'a [Vec<u8>],
}

impl Layers for Building<'_> {
    #[inline]
    fn byte(&self, seeds: usize, number: u64) -> u8 {
        self.values[seeds][number as usize]
    }
    #[inline]
    fn index(&self, seeds: usize) -> &LayerIndex {
        &self.indexes[seeds]
    }
}

impl Layers for Tablebase {
    #[inline]
    fn byte(&self, seeds: usize, number: u64) -> u8 {
        self.layers[seeds].bytes()[number as usize]
    }
    #[inline]
    fn index(&self, seeds: usize) -> &LayerIndex {
        &self.indexes[seeds]
    }
}

impl Tablebase {
    /// Builds the table of every position with at most `max_seeds` seeds on the board under
    /// `rules` (see [`table_rules`]), on `threads` threads (0: every core). `progress` hears
    /// of each layer.
    pub fn build(
        rules: &Rules,
        max_seeds: usize,
        threads: usize,
        progress: &(dyn Fn(BuildEvent) + Sync),
    ) -> Result<Tablebase> {
        Ok(Self::build_with_report(rules, max_seeds, threads, progress)?.0)
    }

    /// [`Tablebase::build`], with what each layer's build found.
    pub fn build_with_report(
        rules: &Rules,
        max_seeds: usize,
        threads: usize,
        progress: &(dyn Fn(BuildEvent) + Sync),
    ) -> Result<(Tablebase, Vec<LayerReport>)> {
        let table = table_rules(rules)?;
        if max_seeds as u32 > table.total_seeds() {
            return Err(AwaleError::Tablebase(format!(
                "--max-seeds {max_seeds} is above the {} seeds these rules play with",
                table.total_seeds()
            )));
        }
        if max_seeds > MAX_SEEDS {
            return Err(AwaleError::Tablebase(format!(
                "--max-seeds {max_seeds} is above the largest table, {MAX_SEEDS} seeds"
            )));
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| AwaleError::Tablebase(format!("cannot start {threads} threads: {e}")))?;
        let indexes: Vec<LayerIndex> = (0..=max_seeds)
            .map(|n| LayerIndex::new(table.pits(), n))
            .collect();
        let mut values: Vec<Vec<u8>> = Vec::with_capacity(max_seeds + 1);
        let mut reports = Vec::with_capacity(max_seeds + 1);
        for n in 0..=max_seeds {
            progress(BuildEvent::LayerStarted {
                seeds: n,
                positions: indexes[n].count(),
            });
            let layers = Building {
                indexes: &indexes,
                values: &values,
            };
            let (layer, report) = pool.install(|| solve::build_layer(&table, &layers, &indexes[n]));
            progress(BuildEvent::LayerDone(report));
            values.push(layer);
            reports.push(report);
        }
        let layers = values.into_iter().map(Values::owned).collect();
        Ok((
            Tablebase {
                rules: table,
                indexes,
                layers,
            },
            reports,
        ))
    }

    /// Writes one file per layer into `dir` (created if needed); returns their paths.
    pub fn save(&self, dir: &Path) -> Result<Vec<PathBuf>> {
        std::fs::create_dir_all(dir).map_err(|e| AwaleError::Io {
            path: dir.display().to_string(),
            reason: e.to_string(),
        })?;
        let stem = file_stem(&self.rules);
        let spec = self.rules.to_string();
        let mut paths = Vec::new();
        for (n, layer) in self.layers.iter().enumerate() {
            let path = file::layer_path(dir, &stem, n);
            file::write_layer(&path, &spec, n, self.rules.pits(), layer.bytes())?;
            paths.push(path);
        }
        Ok(paths)
    }

    /// Opens the table of `rules` saved in `dir`: layers `0..=max_seeds`, or with `None` every
    /// layer found from 0 up. Every file is checked (format, version, rules, size, checksum).
    pub fn open(dir: &Path, rules: &Rules, max_seeds: Option<usize>) -> Result<Tablebase> {
        let table = table_rules(rules)?;
        let stem = file_stem(&table);
        let spec = table.to_string();
        let mut indexes = Vec::new();
        let mut layers = Vec::new();
        for n in 0..=max_seeds.unwrap_or(table.total_seeds() as usize) {
            let path = file::layer_path(dir, &stem, n);
            if max_seeds.is_none() && n > 0 && !path.exists() {
                break;
            }
            if !path.exists() {
                return Err(AwaleError::Tablebase(format!(
                    "{}: missing; build it with `awale tablebase build --rules {} --max-seeds {}{}`",
                    path.display(),
                    rules.base_name(),
                    max_seeds.unwrap_or(12),
                    if dir == Path::new(DEFAULT_DIR) {
                        String::new()
                    } else {
                        format!(" --out {}", dir.display())
                    }
                )));
            }
            let index = LayerIndex::new(table.pits(), n);
            layers.push(file::read_layer(
                &path,
                &spec,
                n,
                table.pits(),
                index.count(),
            )?);
            indexes.push(index);
        }
        Ok(Tablebase {
            rules: table,
            indexes,
            layers,
        })
    }

    /// [`Tablebase::open`] with every layer found, shared: the tables of one folder and rules
    /// are opened once per process and handed out to every agent that asks.
    pub fn open_shared(dir: &Path, rules: &Rules) -> Result<Arc<Tablebase>> {
        static OPEN: Mutex<Vec<(PathBuf, Rules, Weak<Tablebase>)>> = Mutex::new(Vec::new());
        let table = table_rules(rules)?;
        let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
        let find = |open: &mut Vec<(PathBuf, Rules, Weak<Tablebase>)>| {
            open.retain(|(_, _, w)| w.strong_count() > 0);
            open.iter()
                .find(|(d, r, _)| *d == dir && *r == table)
                .and_then(|(_, _, w)| w.upgrade())
        };
        let lock = || OPEN.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = find(&mut lock()) {
            return Ok(t);
        }
        // Read outside the lock: a slow or large table holds up no one else's. Two readers of
        // the same table at once keep the first one shared.
        let t = Arc::new(Tablebase::open(&dir, rules, None)?);
        let mut open = lock();
        if let Some(first) = find(&mut open) {
            return Ok(first);
        }
        open.push((dir, table, Arc::downgrade(&t)));
        Ok(t)
    }

    /// The memory, in bytes, that [`Tablebase::open_shared`] would hold for the table of
    /// `rules` in `dir` (every layer found from 0 up; its values and indexes), told from the
    /// files' sizes without reading them: a caller with a memory budget checks it first. An
    /// error when the folder has no such table, or a layer is not a regular file.
    pub fn open_bytes(dir: &Path, rules: &Rules) -> Result<u64> {
        let table = table_rules(rules)?;
        let stem = file_stem(&table);
        let mut bytes = 0u64;
        for n in 0..=table.total_seeds() as usize {
            let path = file::layer_path(dir, &stem, n);
            if n > 0 && !path.exists() {
                break;
            }
            file::regular_size(&path)?;
            let index = LayerIndex::new(table.pits(), n);
            bytes += index.count() + index.memory_bytes() as u64;
        }
        Ok(bytes)
    }

    /// The rules the table was built for ([`table_rules`]).
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Bytes the table holds in memory: its values (one byte per board) and its indexes.
    pub fn memory_bytes(&self) -> usize {
        self.layers.iter().map(|l| l.bytes().len()).sum::<usize>()
            + self
                .indexes
                .iter()
                .map(LayerIndex::memory_bytes)
                .sum::<usize>()
    }

    /// Most seeds on the board of a position in the table.
    pub fn max_seeds(&self) -> usize {
        self.layers.len() - 1
    }

    /// Boards of `seeds` seeds in the table (0 past [`Tablebase::max_seeds`]).
    pub fn layer_count(&self, seeds: usize) -> u64 {
        self.indexes.get(seeds).map_or(0, LayerIndex::count)
    }

    /// The board numbered `number` of the boards of `seeds` seeds (the mover's row first; see
    /// [`Tablebase::layer_count`]), or `None` past the table.
    pub fn layer_board(&self, seeds: usize, number: u64) -> Option<[u8; crate::rules::MAX_PITS]> {
        let index = self.indexes.get(seeds)?;
        (number < index.count()).then(|| index.unrank(number))
    }

    /// Whether this table answers for games under `rules` (same rules of play).
    pub fn covers(&self, rules: &Rules) -> bool {
        table_rules(rules).is_ok_and(|t| t == self.rules)
    }

    /// The seeds the player to move gets under perfect play, or `None` when the game is over
    /// or the board holds more seeds than the table covers.
    #[inline]
    pub fn value(&self, state: &State) -> Option<u8> {
        if state.status() != Status::Ongoing {
            return None;
        }
        let n = state.board_seeds(&self.rules) as usize;
        if n > self.max_seeds() {
            return None;
        }
        let board = board_from(&self.rules, state, state.to_move());
        Some(self.value_of(n, self.indexes[n].rank(&board[..self.rules.pits()])))
    }

    #[inline]
    fn value_of(&self, n: usize, number: u64) -> u8 {
        Layers::value(self, n, number)
    }

    /// The value of `state` and of each of its legal moves; an error when the game is over or
    /// the board holds more seeds than the table covers.
    pub fn probe(&self, state: &State) -> Result<Probe> {
        if state.status() != Status::Ongoing {
            return Err(AwaleError::Tablebase(
                "the game is over: nothing to probe".into(),
            ));
        }
        let n = state.board_seeds(&self.rules) as usize;
        if n > self.max_seeds() {
            return Err(AwaleError::Tablebase(format!(
                "the board holds {n} seeds; this table covers positions of at most {}",
                self.max_seeds()
            )));
        }
        let board = board_from(&self.rules, state, state.to_move());
        let byte = self.byte(n, self.indexes[n].rank(&board[..self.rules.pits()]));
        let pos = position(&self.rules, &board);
        let mask = pos.legal_mask(&self.rules);
        let moves = (0..self.rules.houses as usize)
            .filter(|h| mask & (1 << h) != 0)
            .map(|house| MoveValue {
                house,
                value: match edge(&self.rules, self, &pos, house, n) {
                    Edge::Exit(v) => v,
                    Edge::Inside(c) => n as u8 - self.value_of(n, c),
                },
            })
            .collect();
        Ok(Probe {
            seeds: n as u8,
            value: byte & !solve::CYCLE_FLAG,
            moves,
            cycle: byte & solve::CYCLE_FLAG != 0,
        })
    }
}

/// Most seeds a table can cover (a value and its cycle flag share one byte).
pub const MAX_SEEDS: usize = 127;

/// Where `awale tablebase` writes and looks for tables unless told otherwise.
pub const DEFAULT_DIR: &str = "tablebases";

#[cfg(test)]
mod tests;
