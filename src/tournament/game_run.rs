//! How the games of a run between agents are played: the settings a tournament, a match
//! ([`crate::ratings::matchplay`]), a rating ladder and the trainer's evaluation share, with their
//! defaults and their checks in one place. The command line fills them from its shared flags
//! (`--openings`, `--max-plies`, `--seed`, `--threads`, `--limit`, `--shard`), the Python
//! binding from the same keywords.

use crate::error::Result;
use crate::rules::Rules;

/// A game-run setting that cannot work, found by [`GameRunConfig::validate`] (and
/// [`GameRunConfig::validate_paired`]); tournaments report it as
/// [`AwaleError::Tournament`](crate::AwaleError::Tournament), matches as
/// [`AwaleError::Match`](crate::AwaleError::Match), ladders as a configuration error, with
/// this message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GameRunError {
    /// No games at all.
    #[error("games per pairing must be at least 1")]
    NoGames,
    /// Paired games (each opening from both seats) need an even number.
    #[error(
        "games must be an even number of at least 2 (each opening is played from both seats), \
         got {0}"
    )]
    OddGames(usize),
    /// A shard `k` of `n` outside `0 ≤ k < n`.
    #[error("shard {k} of {n}: k must be 0 to n-1 and n at least 1")]
    BadShard {
        /// The shard asked for.
        k: usize,
        /// The number of shards.
        n: usize,
    },
}

/// How the games of a run are played: how many, from which openings, cut off where, with which
/// seed, on how many threads, and which part of them this run plays. A
/// [`TournamentConfig`](super::TournamentConfig),
/// [`MatchConfig`](crate::ratings::matchplay::MatchConfig) and the trainer's ladder and evaluation hold
/// one as their `run`.
///
/// ```
/// use awale::tournament::{GameRunConfig, GameRunError};
/// let mut run = GameRunConfig::new(20);
/// assert_eq!((run.openings, run.max_plies, run.seed, run.threads), (4, 0, 0, 0));
/// run.validate().unwrap();
/// run.shard = Some((4, 4));
/// assert_eq!(run.validate(), Err(GameRunError::BadShard { k: 4, n: 4 }));
/// run.shard = None;
/// run.games = 7;
/// assert!(run.validate().is_ok());
/// assert_eq!(run.validate_paired(), Err(GameRunError::OddGames(7)));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameRunConfig {
    /// Games per pairing (at most, for a match with a sequential test). Best a multiple of the
    /// number of players, so that every opening is played from every seat; even where games
    /// are paired.
    pub games: usize,
    /// Random plies of each opening.
    pub openings: u32,
    /// Cut games off after this many plies (adjudicated by the stores); 0 keeps the rules' own
    /// limit.
    pub max_plies: u32,
    /// The seed: game `i` is a pure function of it and `i`.
    pub seed: u64,
    /// Worker threads; 0 for one per core, 1 to play on the calling thread.
    pub threads: usize,
    /// Play at most this many new games in this run (the rest are left for a later run).
    pub game_limit: Option<usize>,
    /// `(k, n)`: play only the games whose schedule index is `k` modulo `n` (shard `k` of
    /// `n`), e.g. one shard per machine; their `games.jsonl` files, joined in one folder,
    /// resume into the whole run (`backend="ray"` in Python does that).
    pub shard: Option<(usize, usize)>,
}

impl GameRunConfig {
    /// `games` games per pairing; the other defaults: 4-ply openings, the rules' ply limit,
    /// seed 0, one thread per core, every game, no shard.
    pub fn new(games: usize) -> GameRunConfig {
        GameRunConfig {
            games,
            openings: 4,
            max_plies: 0,
            seed: 0,
            threads: 0,
            game_limit: None,
            shard: None,
        }
    }

    /// Checks the settings: at least one game, a shard `k` of `n` with `k < n`.
    pub fn validate(&self) -> std::result::Result<(), GameRunError> {
        if self.games == 0 {
            return Err(GameRunError::NoGames);
        }
        if let Some((k, n)) = self.shard {
            if n == 0 || k >= n {
                return Err(GameRunError::BadShard { k, n });
            }
        }
        Ok(())
    }

    /// [`validate`](Self::validate) for paired games (each opening from both seats: matches,
    /// ladders): an even number of games, at least 2.
    pub fn validate_paired(&self) -> std::result::Result<(), GameRunError> {
        if self.games < 2 || !self.games.is_multiple_of(2) {
            return Err(GameRunError::OddGames(self.games));
        }
        self.validate()
    }

    /// `rules` with the ply limit applied, checked.
    pub fn rules(&self, rules: &Rules) -> Result<Rules> {
        let mut r = *rules;
        if self.max_plies > 0 {
            r.max_plies = self.max_plies;
        }
        r.validate()?;
        Ok(r)
    }
}

impl Default for GameRunConfig {
    /// A tournament's defaults: 10 games per pairing (see [`GameRunConfig::new`]).
    fn default() -> GameRunConfig {
        GameRunConfig::new(10)
    }
}
