//! Tournaments between agents: round-robin or gauntlet, paired random openings, games in
//! parallel, resumable, with a crosstable, maximum-likelihood Elo ratings and every game saved.
//!
//! **Schedule.** A *pairing* is a set of entrants who sit at one board: every pair in a 2-player
//! game, every set of `players` entrants in the multi-player game (round-robin), or only those
//! sets that include the gauntlet agent. Each pairing plays `games` games. Games come in groups:
//! one random opening (`openings` uniformly random plies from the start, the same openings for
//! every pairing) played with the seats rotated, so that every entrant of the pairing plays it
//! from every seat (seats swapped in a 2-player game: groups of 2). With 3 or more players the
//! group also rotates the reversed order (groups of `2 × players`), so that each entrant sits
//! right after each other one as often as right before him: in relay-sown owaré the next player
//! receives the mover's seeds, and a fixed order favours whoever sits after the weakest.
//!
//! **Reproducibility.** Game `i` is a pure function of the tournament seed and `i`: its opening
//! and the seeds its agents are reset with derive from them, so results do not depend on the
//! number of threads or on the order in which games finish (agents with a time limit aside).
//!
//! **Resume.** With an output folder, every finished game is appended at once to
//! `games.jsonl`; a later run with the same settings loads it and plays only the missing games
//! (`tournament.json` records the settings and a run with different ones is refused). Every
//! game loaded is replayed from its record under the run's rules, from its scheduled opening,
//! and its stated stores, points, plies and end (a forfeit included) must be what the replay
//! gives; a line that does not hold is refused with its line, index and reason. The folder's
//! files are read only when they are regular files (a FIFO is refused, never waited on), the
//! result files are written by temporary file and rename, and no symbolic link in the folder
//! (at a result, at `games.jsonl`, the folder itself) is written through.
//!
//! **Results.** A game is scored between every two of its players by their stores: more seeds
//! is a win, equal a draw (a game cut off at the ply limit is adjudicated the same way). The
//! report has the crosstable, ratings by maximum-likelihood Elo with 95% intervals ([`crate::ratings::elo`])
//! with an anchor agent fixed at a rating (by default `random` at 0, else the first entrant),
//! the likelihood-of-superiority table, and the games as replayable
//! [`GameRecord`](crate::notation::GameRecord)s. It is written as `results.json`, `ratings.csv`, `crosstable.csv`, `los.csv` and `games.csv`.
//!
//! ```
//! use awale::tournament::{run, Entrant, TournamentConfig};
//! use awale::Rules;
//! let rules = Rules::abapa();
//! let entrants = vec![
//!     Entrant::from_spec_text("random", &rules).unwrap(),
//!     Entrant::from_spec_text("greedy", &rules).unwrap(),
//! ];
//! let mut cfg = TournamentConfig::new(rules);
//! cfg.run.games = 4;
//! cfg.run.max_plies = 200;
//! let report = run(&cfg, &entrants).unwrap();
//! assert_eq!(report.games_played, 4);
//! assert_eq!(report.games.len(), 4);
//! assert!(report.table().contains("greedy"));
//! let replayed = report.games[0].record.replay().unwrap();
//! assert!(replayed.is_over());
//! ```
//!
//! **Progress and stop.** [`run_observed`] reports every finished game to a
//! [`TournamentObserver`], which may also stop the run: finished games are kept (and saved), and
//! the same call resumes it. The command line draws its progress bar with one, the Python binding
//! reports progress and handles Ctrl-C with one, the trainer's evaluation too.
//!
//! **Failures.** An agent that is a program in another process (`engine:`,
//! [`Agent::forfeits`]) and fails — crashes, hangs past its
//! time, answers an illegal move — loses that game by forfeit ([`GameResult::forfeit`], end
//! `forfeit`), and the run goes on. When other agents fail, the run stops with the error of the
//! failing game with the lowest index, whatever the number of threads.
//!
//! The module is split by job: the game run's settings ([`GameRunConfig`], shared with
//! matches, ladders and the trainer's evaluation), [`schedule`](fn@schedule) (pairings, seats, openings), the
//! store (`tournament.json`, `games.jsonl`, resume), the report ([`TournamentReport`]: tables and
//! result files) and the runner ([`run`], [`run_observed`] with a [`TournamentObserver`] that
//! sees every finished game and may stop the run).

use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::agents::{Agent, AgentSpec, Registry};
use crate::error::{AwaleError, Result};
use crate::rules::Rules;

mod clock;
mod game_result;
mod game_run;
mod progress_bar;
mod report;
mod run;
mod schedule;
mod store;
mod verify;

pub use clock::AgentClock;
pub use game_result::{Forfeit, GameResult};
pub use game_run::{GameRunConfig, GameRunError};
pub use progress_bar::ProgressBar;
pub use report::{first_places, FirstPlaces, Standing, TournamentReport};
pub use run::{run, run_observed, Progress, TournamentObserver};
pub use schedule::{opening, schedule, ScheduledGame};

/// Builds a fresh agent for one game.
pub type EntrantFactory = Arc<dyn Fn() -> Result<Box<dyn Agent>> + Send + Sync>;

/// A tournament participant: a name and a way to build a fresh agent for each game (games run
/// in parallel, each with its own agents).
#[derive(Clone)]
pub struct Entrant {
    name: String,
    spec: Option<String>,
    factory: EntrantFactory,
}

impl std::fmt::Debug for Entrant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entrant")
            .field("name", &self.name)
            .field("spec", &self.spec)
            .finish_non_exhaustive()
    }
}

impl Entrant {
    /// An entrant named `name` whose agents `factory` builds (e.g. a wrapped Python callable).
    ///
    /// ```
    /// use awale::agents::{Agent, RandomAgent};
    /// use awale::tournament::Entrant;
    /// let e = Entrant::new("mine", || Ok(Box::new(RandomAgent::new(0)) as Box<dyn Agent>));
    /// assert_eq!(e.name(), "mine");
    /// assert!(e.make().is_ok());
    /// ```
    pub fn new(
        name: impl Into<String>,
        factory: impl Fn() -> Result<Box<dyn Agent>> + Send + Sync + 'static,
    ) -> Entrant {
        Entrant {
            name: name.into(),
            spec: None,
            factory: Arc::new(factory),
        }
    }

    /// An entrant from a spec, built by `registry` for games under `rules`. One agent is built
    /// at once, so a bad spec fails here.
    pub fn from_spec(registry: &Registry, spec: &AgentSpec, rules: &Rules) -> Result<Entrant> {
        let factory = registry.factory(spec)?;
        factory(spec, rules)?;
        let (spec2, rules) = (spec.clone(), *rules);
        Ok(Entrant {
            name: spec.display_name(),
            spec: Some(spec.to_string()),
            factory: Arc::new(move || factory(&spec2, &rules)),
        })
    }

    /// An entrant from spec text, with the built-in agents.
    pub fn from_spec_text(spec: &str, rules: &Rules) -> Result<Entrant> {
        Entrant::from_spec(&Registry::builtin(), &spec.parse()?, rules)
    }

    /// The same entrant under another display name.
    ///
    /// ```
    /// use awale::tournament::Entrant;
    /// let e = Entrant::from_spec_text("greedy", &awale::Rules::abapa()).unwrap();
    /// assert_eq!(e.renamed("mine").name(), "mine");
    /// ```
    pub fn renamed(self, name: impl Into<String>) -> Entrant {
        Entrant {
            name: name.into(),
            ..self
        }
    }

    /// The display name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The spec the entrant was built from, if any.
    pub fn spec(&self) -> Option<&str> {
        self.spec.as_deref()
    }

    /// A fresh agent.
    pub fn make(&self) -> Result<Box<dyn Agent>> {
        (self.factory)()
    }

    /// The same entrant (name and spec) whose agents are passed through `wrap` as they are built
    /// (e.g. to watch or interrupt them from the Python bindings).
    pub fn map_agents(
        self,
        wrap: impl Fn(Box<dyn Agent>) -> Box<dyn Agent> + Send + Sync + 'static,
    ) -> Entrant {
        let inner = self.factory;
        Entrant {
            factory: Arc::new(move || inner().map(&wrap)),
            ..self
        }
    }
}

/// Who plays whom.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Format {
    /// Every set of entrants that fills a board.
    RoundRobin,
    /// Only the sets that include the named entrant.
    Gauntlet(String),
    /// Only these pairs of entrants (by name, in this order; 2-player rules), e.g. the
    /// neighbours and anchors of a rating ladder.
    Pairings(Vec<(String, String)>),
    /// Only these tables of entrants, each filling one board (by name; any number of
    /// players), e.g. the neighbours and anchors of a rating ladder of owaré for 3.
    Tables(Vec<Vec<String>>),
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Format::RoundRobin => write!(f, "round-robin"),
            Format::Gauntlet(g) => write!(f, "gauntlet of {g}"),
            Format::Pairings(p) => write!(f, "{} chosen pairings", p.len()),
            Format::Tables(t) => write!(f, "{} chosen tables", t.len()),
        }
    }
}

/// Settings of a tournament.
#[derive(Debug, Clone)]
pub struct TournamentConfig {
    /// The rules of every game.
    pub rules: Rules,
    /// Round-robin or gauntlet.
    pub format: Format,
    /// How the games are played: games per pairing, openings, ply limit, seed, threads, limit,
    /// shard.
    pub run: GameRunConfig,
    /// The Elo anchor's name (default: `random` if it plays, else the first entrant).
    pub anchor: Option<String>,
    /// The anchor's rating.
    pub anchor_rating: f64,
    /// Virtual draws between players who met (the prior of [`crate::ratings::elo`]).
    pub prior_draws: f64,
    /// Folder for `games.jsonl` (resume) and the result files; none keeps everything in memory.
    pub out: Option<PathBuf>,
}

impl TournamentConfig {
    /// Defaults: round-robin, the game run's defaults ([`GameRunConfig::default`]: 10 games per
    /// pairing, 4-ply openings, the rules' ply limit, seed 0, all cores), no output folder.
    pub fn new(rules: Rules) -> TournamentConfig {
        TournamentConfig {
            rules,
            format: Format::RoundRobin,
            run: GameRunConfig::default(),
            anchor: None,
            anchor_rating: 0.0,
            prior_draws: 1.0,
            out: None,
        }
    }

    /// The rules the games are played under (the ply limit applied), checked with the game
    /// run's settings.
    pub fn game_rules(&self) -> Result<Rules> {
        self.run.validate().map_err(AwaleError::from)?;
        self.run.rules(&self.rules)
    }
}

impl From<GameRunError> for AwaleError {
    /// A tournament's error.
    fn from(e: GameRunError) -> AwaleError {
        AwaleError::Tournament(e.to_string())
    }
}
