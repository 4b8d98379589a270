//! The perfect agent: plays the endgame table's best moves (ties broken at random by its
//! seed). Outside the table it refuses with a clear error, or hands the turn to alpha-beta when
//! given a fallback depth (within `move_time_ms` when given one, and stopped by its stop signal).

use std::path::Path;
use std::sync::Arc;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::alphabeta::{AlphaBeta, AlphaBetaSettings};
use super::kind::{self, AgentKind, AgentOption, Cost};
use super::{random_bit, Agent, StopSignal, Thoughts, Turn};
use crate::error::{AwaleError, Result};
use crate::rules::Rules;
use crate::tablebase::Tablebase;

/// Plays perfectly wherever its table covers the position.
///
/// ```
/// use std::sync::Arc;
/// use awale::agents::{Agent, PerfectAgent, Turn};
/// use awale::tablebase::Tablebase;
/// use awale::{Rules, State};
/// let rules = Rules::abapa();
/// let table = Arc::new(Tablebase::build(&rules, 4, 1, &|_| {}).unwrap());
/// let mut agent = PerfectAgent::new(table.clone(), &rules, 0, 1).unwrap();
/// let s = State::from_parts(&rules, &[0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0], &[22, 22], 0, 0)
///     .unwrap();
/// let best = table.probe(&s).unwrap().best_moves();
/// assert!(best.contains(&agent.select(&Turn::new(&rules, &s)).unwrap()));
/// let start = State::initial(&rules, 0);
/// assert!(agent.select(&Turn::new(&rules, &start)).is_err()); // 48 seeds: outside the table
/// ```
#[derive(Debug, Clone)]
pub struct PerfectAgent {
    table: Arc<Tablebase>,
    rng: ChaCha8Rng,
    fallback: Option<AlphaBeta>,
    /// The table's verdict on the last position it covered, `None` after a fallback search.
    last: Option<Thoughts>,
}

impl PerfectAgent {
    /// A perfect agent on `table` for games under `rules`, seeded with `seed`; outside the table
    /// it searches with alpha-beta to `fallback_depth` plies (probing the table at its leaves),
    /// or refuses when `fallback_depth` is 0.
    pub fn new(
        table: Arc<Tablebase>,
        rules: &Rules,
        fallback_depth: u32,
        seed: u64,
    ) -> Result<PerfectAgent> {
        let fallback = if fallback_depth == 0 {
            None
        } else {
            Some(
                AlphaBeta::new(AlphaBetaSettings {
                    depth: fallback_depth,
                    ..Default::default()
                })
                .with_tablebase(table.clone(), rules)?,
            )
        };
        if !table.covers(rules) {
            return Err(AwaleError::Tablebase(format!(
                "the table was built for '{}', not for '{rules}'",
                table.rules()
            )));
        }
        Ok(PerfectAgent {
            table,
            rng: ChaCha8Rng::seed_from_u64(seed),
            fallback,
            last: None,
        })
    }

    /// Limits each fallback search to about `move_time_ms` milliseconds (0, the default: no limit
    /// but its depth). The table's moves take no search.
    pub fn with_fallback_move_time_ms(mut self, move_time_ms: u64) -> PerfectAgent {
        if let Some(ab) = &mut self.fallback {
            ab.set_move_time_ms(move_time_ms);
        }
        self
    }
}

impl Agent for PerfectAgent {
    fn name(&self) -> String {
        "perfect".into()
    }

    fn select(&mut self, turn: &Turn<'_>) -> Result<usize> {
        let seeds = turn.state.board_seeds(turn.rules) as usize;
        if seeds <= self.table.max_seeds() {
            let probe = self.table.probe(turn.state)?;
            let mask = probe
                .best_moves()
                .iter()
                .fold(0u16, |m, &house| m | 1 << house);
            let value = probe.best_value();
            self.last = Some(Thoughts {
                summary: format!(
                    "endgame table: {value} of the {} seeds on the board for the mover{}",
                    probe.seeds,
                    if probe.cycle {
                        " (by the cycle rule)"
                    } else {
                        ""
                    }
                ),
                value: Some(value as f64),
                unit: "seeds of the board",
                ..Default::default()
            });
            return Ok(random_bit(&mut self.rng, mask));
        }
        self.last = None;
        match &mut self.fallback {
            Some(ab) => ab.select(turn),
            None => Err(AwaleError::AgentFailed {
                agent: self.name(),
                reason: format!(
                    "the board holds {seeds} seeds and the table covers at most {}; give \
                     fallback_depth=N to search with alpha-beta outside it",
                    self.table.max_seeds()
                ),
            }),
        }
    }

    fn thoughts(&self) -> Option<Thoughts> {
        match (&self.last, &self.fallback) {
            (Some(t), _) => Some(t.clone()),
            (None, Some(ab)) => ab.thoughts(),
            (None, None) => None,
        }
    }

    fn reset(&mut self, seed: u64) {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
        self.last = None;
        if let Some(ab) = &mut self.fallback {
            ab.reset(seed);
        }
    }

    fn set_stop(&mut self, stop: StopSignal) {
        if let Some(ab) = &mut self.fallback {
            ab.set_stop(stop);
        }
    }

    /// Limits its fallback search (the tables' answers are exact at any depth).
    fn set_depth_limit(&mut self, depth: Option<u32>) -> bool {
        self.fallback
            .as_mut()
            .is_some_and(|ab| ab.set_depth_limit(depth))
    }

    /// Its fallback search's transposition table (the endgame table is shared, not counted).
    fn memory_bytes(&self, rules: &Rules) -> u64 {
        self.fallback
            .as_ref()
            .map_or(0, |ab| ab.memory_bytes(rules))
    }
}

/// What a `perfect` spec sets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PerfectSettings {
    /// Folder of the tables (`dir=`; default [`crate::tablebase::DEFAULT_DIR`]).
    pub dir: String,
    /// Alpha-beta depth outside the table, 0 = refuse such positions (`fallback_depth=`).
    pub fallback_depth: u32,
    /// The fallback search's move time in milliseconds, 0 = none (`move_time_ms=`).
    pub move_time_ms: u64,
}

impl Default for PerfectSettings {
    fn default() -> Self {
        PerfectSettings {
            dir: crate::tablebase::DEFAULT_DIR.to_string(),
            fallback_depth: 0,
            move_time_ms: 0,
        }
    }
}

/// The `perfect` kind: its options and its factory (see [`kind`]).
pub static KIND: AgentKind<PerfectSettings> = AgentKind {
    kind: "perfect",
    summary: "the endgame table's best moves, ties at random (2-player single sowing; `awale tablebase build`)",
    options: &[
        AgentOption {
            key: "dir",
            cost: Cost::Tables,
            help: "folder of the tables",
            set: |s, v| {
                s.dir = v.to_string();
                Ok(())
            },
            show: |s| Some(s.dir.clone()),
        },
        AgentOption {
            key: "fallback_depth",
            cost: Cost::Depth,
            help: "alpha-beta depth outside the table, 0 = refuse",
            set: |s, v| {
                let depth = kind::whole(v)?;
                if depth > 64 {
                    return Err(format!("{depth} is more than 64"));
                }
                s.fallback_depth = depth as u32;
                Ok(())
            },
            show: |s| Some(s.fallback_depth.to_string()),
        },
        AgentOption {
            key: "move_time_ms",
            cost: Cost::MoveTimeMs,
            help: "the move time of the fallback search in milliseconds, 0 = none",
            set: |s, v| {
                s.move_time_ms = kind::whole(v)?;
                Ok(())
            },
            show: |s| Some(s.move_time_ms.to_string()),
        },
    ],
    defaults: PerfectSettings::default,
    instant: false,
    // Its fallback search's table (the endgame table is the server's, counted apart).
    memory: |s| {
        if s.fallback_depth == 0 {
            0
        } else {
            AlphaBeta::memory_of(&AlphaBetaSettings::default())
                .max((AlphaBetaSettings::default().tt_mb as u64) << 20)
        }
    },
    shared: None,
    build: |settings, spec, rules, _| {
        let table = Tablebase::open_shared(Path::new(&settings.dir), rules)
            .map_err(|e| spec.error(e.to_string()))?;
        let agent = PerfectAgent::new(table, rules, settings.fallback_depth, spec.u64_or("seed", 0)?)
            .map_err(|e| spec.error(e.to_string()))?
            .with_fallback_move_time_ms(settings.move_time_ms);
        Ok(Box::new(agent))
    },
};
