//! Tournaments between agents: round-robin or gauntlet, paired random openings, games in
//! parallel, resumable, with a crosstable, maximum-likelihood Elo ratings and every game saved.
//!
//! **Schedule.** A *pairing* is a set of entrants who sit at one board: every pair in a 2-player
//! game, every set of `players` entrants in the multi-player game (round-robin), or only those
//! sets that include the gauntlet agent. Each pairing plays `games` games. Games come in groups
//! of `players`: one random opening (`openings` uniformly random plies from the start, the same
//! openings for every pairing) played with the seats rotated, so that every entrant of the
//! pairing plays it from every seat (seats swapped in a 2-player game).
//!
//! **Reproducibility.** Game `i` is a pure function of the tournament seed and `i`: its opening
//! and the seeds its agents are reset with derive from them, so results do not depend on the
//! number of threads or on the order in which games finish (agents with a time limit aside).
//!
//! **Resume.** With an output folder, every finished game is appended at once to
//! `games.jsonl`; a later run with the same settings loads it and plays only the missing games
//! (`tournament.json` records the settings and a run with different ones is refused).
//!
//! **Results.** A game is scored between every two of its players by their stores: more seeds
//! is a win, equal a draw (a game cut off at the ply limit is adjudicated the same way). The
//! report has the crosstable, ratings by maximum-likelihood Elo with 95% intervals ([`crate::elo`])
//! with an anchor agent fixed at a rating (by default `random` at 0, else the first entrant),
//! the likelihood-of-superiority table, and the games as replayable [`GameRecord`]s. It is
//! written as `results.json`, `ratings.csv`, `crosstable.csv`, `los.csv` and `games.csv`.
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
//! cfg.games = 4;
//! cfg.max_plies = 200;
//! let report = run(&cfg, &entrants).unwrap();
//! assert_eq!(report.games_played, 4);
//! assert_eq!(report.games.len(), 4);
//! assert!(report.table().contains("greedy"));
//! let replayed = report.games[0].record.replay().unwrap();
//! assert!(replayed.is_over());
//! ```

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;
use std::fs::{self, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::agents::{derive_seed, random_bit, Agent, AgentSpec, Registry, Turn};
use crate::elo::{fit, EloConfig, EloFit, Matchups};
use crate::error::{AwaleError, Result};
use crate::game::Game;
use crate::notation::GameRecord;
use crate::rules::Rules;
use crate::state::Status;

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
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Format::RoundRobin => write!(f, "round-robin"),
            Format::Gauntlet(g) => write!(f, "gauntlet of {g}"),
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
    /// Games per pairing (best a multiple of the number of players, so that every opening is
    /// played from every seat).
    pub games: usize,
    /// Random plies of each opening.
    pub openings: u32,
    /// Cut games off after this many plies (adjudicated by the stores); 0 keeps the rules' own
    /// limit.
    pub max_plies: u32,
    /// The tournament seed.
    pub seed: u64,
    /// Worker threads; 0 for one per core.
    pub threads: usize,
    /// The Elo anchor's name (default: `random` if it plays, else the first entrant).
    pub anchor: Option<String>,
    /// The anchor's rating.
    pub anchor_rating: f64,
    /// Virtual draws between players who met (the prior of [`crate::elo`]).
    pub prior_draws: f64,
    /// Folder for `games.jsonl` (resume) and the result files; none keeps everything in memory.
    pub out: Option<PathBuf>,
    /// Play at most this many new games in this run (the rest are left for a later run).
    pub game_limit: Option<usize>,
    /// Show a progress bar on the terminal.
    pub progress: bool,
}

impl TournamentConfig {
    /// Defaults: round-robin, 10 games per pairing, 4-ply openings, the rules' ply limit,
    /// seed 0, all cores, no output folder, no progress bar.
    pub fn new(rules: Rules) -> TournamentConfig {
        TournamentConfig {
            rules,
            format: Format::RoundRobin,
            games: 10,
            openings: 4,
            max_plies: 0,
            seed: 0,
            threads: 0,
            anchor: None,
            anchor_rating: 0.0,
            prior_draws: 1.0,
            out: None,
            game_limit: None,
            progress: false,
        }
    }

    /// The rules the games are played under (the ply limit applied).
    pub fn game_rules(&self) -> Result<Rules> {
        let mut r = self.rules;
        if self.max_plies > 0 {
            r.max_plies = self.max_plies;
        }
        r.validate()?;
        Ok(r)
    }
}

/// One game of the schedule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScheduledGame {
    /// The game's index (its seed derives from it).
    pub index: usize,
    /// The pairing it belongs to.
    pub pairing: usize,
    /// The opening it starts from.
    pub opening: usize,
    /// The entrant (index) at each seat.
    pub seats: Vec<usize>,
}

/// The games of a tournament between `entrants` entrants, in index order.
///
/// ```
/// use awale::tournament::{schedule, Format, TournamentConfig};
/// use awale::Rules;
/// let mut cfg = TournamentConfig::new(Rules::abapa());
/// cfg.games = 4;
/// let s = schedule(&cfg, &["a".into(), "b".into(), "c".into()]).unwrap();
/// assert_eq!(s.len(), 12); // 3 pairs x 4 games
/// assert_eq!((s[0].seats.clone(), s[1].seats.clone()), (vec![0, 1], vec![1, 0]));
/// assert_eq!((s[0].opening, s[1].opening, s[2].opening), (0, 0, 1));
/// cfg.format = Format::Gauntlet("c".into());
/// assert_eq!(schedule(&cfg, &["a".into(), "b".into(), "c".into()]).unwrap().len(), 8);
/// ```
pub fn schedule(cfg: &TournamentConfig, names: &[String]) -> Result<Vec<ScheduledGame>> {
    let k = cfg.rules.players as usize;
    let n = names.len();
    if n < k {
        return Err(AwaleError::Tournament(format!(
            "{n} agents cannot fill a {k}-player board"
        )));
    }
    if cfg.games == 0 {
        return Err(AwaleError::Tournament(
            "games per pairing must be at least 1".into(),
        ));
    }
    let must = match &cfg.format {
        Format::RoundRobin => None,
        Format::Gauntlet(g) => Some(names.iter().position(|x| x == g).ok_or_else(|| {
            AwaleError::Tournament(format!("the gauntlet agent '{g}' is not among the agents"))
        })?),
    };
    let pairings: Vec<Vec<usize>> = combinations(n, k)
        .into_iter()
        .filter(|c| must.is_none_or(|g| c.contains(&g)))
        .collect();
    let mut out = Vec::with_capacity(pairings.len() * cfg.games);
    for (p, combo) in pairings.iter().enumerate() {
        for j in 0..cfg.games {
            let rot = j % k;
            out.push(ScheduledGame {
                index: out.len(),
                pairing: p,
                opening: j / k,
                seats: (0..k).map(|s| combo[(s + rot) % k]).collect(),
            });
        }
    }
    Ok(out)
}

/// All `k`-subsets of `0..n`, in lexicographic order.
fn combinations(n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut c: Vec<usize> = (0..k).collect();
    if k > n {
        return out;
    }
    loop {
        out.push(c.clone());
        let mut i = k;
        loop {
            if i == 0 {
                return out;
            }
            i -= 1;
            if c[i] < n - k + i {
                break;
            }
        }
        c[i] += 1;
        for j in i + 1..k {
            c[j] = c[j - 1] + 1;
        }
    }
}

/// The start of opening `index`: a game after `plies` uniformly random moves (redrawn, up to 64
/// times, when the game ends within them).
///
/// ```
/// use awale::tournament::opening;
/// use awale::Rules;
/// let a = opening(&Rules::abapa(), 7, 3, 4);
/// assert_eq!(a.moves().len(), 4);
/// assert_eq!(a.moves(), opening(&Rules::abapa(), 7, 3, 4).moves());
/// ```
pub fn opening(rules: &Rules, seed: u64, index: usize, plies: u32) -> Game {
    let mut rng =
        ChaCha8Rng::seed_from_u64(derive_seed(derive_seed(seed, 0x6f70_656e), index as u64));
    let mut attempt = 0;
    loop {
        let mut game = Game::with_seed(*rules, rng.random());
        while !game.is_over() && game.moves().len() < plies as usize {
            let h = random_bit(&mut rng, game.legal_mask());
            game.apply_unchecked(h);
        }
        attempt += 1;
        if !game.is_over() || attempt == 64 {
            return game;
        }
    }
}

/// A finished game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameResult {
    /// The game's index in the schedule.
    pub index: usize,
    /// Its pairing.
    pub pairing: usize,
    /// Its opening.
    pub opening: usize,
    /// The entrant's name at each seat.
    pub seats: Vec<String>,
    /// Final stores, by seat.
    pub scores: Vec<u32>,
    /// Points by seat: the mean of its pairwise results (1 win, 0.5 draw, 0 loss).
    pub points: Vec<f64>,
    /// How it ended: an [`crate::EndReason`] name, or `truncated`.
    pub end: String,
    /// Plies played, the opening included.
    pub plies: usize,
    /// Plies of the random opening.
    pub opening_plies: usize,
    /// The replayable record (seat names in its tags).
    pub record: GameRecord,
}

impl GameResult {
    /// The result of a finished `game` for the scheduled game `g`.
    fn new(g: &ScheduledGame, names: &[String], game: &Game, opening_plies: usize) -> GameResult {
        let rules = game.rules();
        let k = rules.players as usize;
        let scores = game.scores();
        let points = (0..k)
            .map(|a| {
                let sum: f64 = (0..k)
                    .filter(|&b| b != a)
                    .map(|b| match scores[a].cmp(&scores[b]) {
                        std::cmp::Ordering::Greater => 1.0,
                        std::cmp::Ordering::Equal => 0.5,
                        std::cmp::Ordering::Less => 0.0,
                    })
                    .sum();
                sum / (k - 1) as f64
            })
            .collect();
        let seats: Vec<String> = g.seats.iter().map(|&e| names[e].clone()).collect();
        let mut record = GameRecord::from_game(game);
        record.tags.push(("Game".into(), g.index.to_string()));
        for (s, name) in seats.iter().enumerate() {
            record.tags.push((seat_tag(k, s), name.clone()));
        }
        GameResult {
            index: g.index,
            pairing: g.pairing,
            opening: g.opening,
            seats,
            scores,
            points,
            end: match game.status() {
                Status::Ended(r) => r.name().to_string(),
                Status::Truncated => "truncated".into(),
                Status::Ongoing => "ongoing".into(),
            },
            plies: game.moves().len(),
            opening_plies,
            record,
        }
    }
}

/// The record tag naming the player at `seat`.
fn seat_tag(players: usize, seat: usize) -> String {
    match (players, seat) {
        (2, 0) => "South".into(),
        (2, 1) => "North".into(),
        _ => format!("Player{seat}"),
    }
}

/// Plays scheduled game `g`.
fn play(
    cfg: &TournamentConfig,
    rules: &Rules,
    entrants: &[Entrant],
    names: &[String],
    g: &ScheduledGame,
) -> Result<GameResult> {
    let mut game = opening(rules, cfg.seed, g.opening, cfg.openings);
    let opening_plies = game.moves().len();
    let game_seed = derive_seed(cfg.seed, g.index as u64);
    let mut agents = Vec::with_capacity(g.seats.len());
    for (s, &e) in g.seats.iter().enumerate() {
        let mut a = entrants[e].make()?;
        a.reset(derive_seed(game_seed, s as u64));
        agents.push(a);
    }
    while !game.is_over() {
        let p = game.to_move();
        let ply = game.moves().len() + 1;
        let fail = |reason: String| AwaleError::AgentFailed {
            agent: names[g.seats[p]].clone(),
            reason: format!("game {}, ply {ply}: {reason}", g.index),
        };
        let mv = agents[p]
            .select(&Turn::from_game(&game))
            .map_err(|e| fail(e.to_string()))?;
        game.apply(mv).map_err(|e| fail(e.to_string()))?;
    }
    Ok(GameResult::new(g, names, &game, opening_plies))
}

/// One agent's line in the standings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Standing {
    /// The agent.
    pub name: String,
    /// Pairwise results counted (a multi-player game counts once per opponent).
    pub games: u32,
    /// Pairwise wins.
    pub wins: u32,
    /// Pairwise draws.
    pub draws: u32,
    /// Pairwise losses.
    pub losses: u32,
    /// Points over results (wins plus half the draws, divided by the results).
    pub score: f64,
    /// Elo rating, when the fit succeeded.
    pub elo: Option<f64>,
    /// Lower end of the 95% interval.
    pub lower: Option<f64>,
    /// Upper end of the 95% interval.
    pub upper: Option<f64>,
}

/// Everything a tournament produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TournamentReport {
    /// The rules of the games.
    pub rules: String,
    /// Round-robin or gauntlet.
    pub format: Format,
    /// The agents, in entry order.
    pub agents: Vec<String>,
    /// Games in the schedule.
    pub games_scheduled: usize,
    /// Games played so far (all runs).
    pub games_played: usize,
    /// All scheduled games are played.
    pub complete: bool,
    /// Pairwise wins and draws (the crosstable).
    pub matchups: Matchups,
    /// Agents by rating (by score when there are no ratings).
    pub standings: Vec<Standing>,
    /// The Elo fit.
    pub elo: Option<EloFit>,
    /// Why there is no Elo fit, if there is none.
    pub elo_error: Option<String>,
    /// Likelihood of superiority, `los[i][j]` for agents `i`, `j` in entry order.
    pub los: Option<Vec<Vec<Option<f64>>>>,
    /// How the games ended, with counts.
    pub end_reasons: BTreeMap<String, usize>,
    /// Mean game length in plies.
    pub mean_plies: f64,
    /// The games, by index (not written to `results.json`; they are in `games.jsonl`).
    #[serde(skip)]
    pub games: Vec<GameResult>,
}

impl TournamentReport {
    /// The report of `games` (any order) between `names`.
    pub fn compute(
        cfg: &TournamentConfig,
        names: &[String],
        scheduled: usize,
        mut games: Vec<GameResult>,
    ) -> Result<TournamentReport> {
        games.sort_by_key(|g| g.index);
        let index: BTreeMap<&str, usize> = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), i))
            .collect();
        let mut m = Matchups::new(names.to_vec());
        let mut end_reasons = BTreeMap::new();
        let mut plies = 0usize;
        for g in &games {
            let ids: Vec<usize> = g
                .seats
                .iter()
                .map(|s| {
                    index.get(s.as_str()).copied().ok_or_else(|| {
                        AwaleError::Tournament(format!(
                            "game {} has an unknown agent '{s}'",
                            g.index
                        ))
                    })
                })
                .collect::<Result<_>>()?;
            for a in 0..ids.len() {
                for b in a + 1..ids.len() {
                    match g.scores[a].cmp(&g.scores[b]) {
                        std::cmp::Ordering::Greater => m.add_win(ids[a], ids[b]),
                        std::cmp::Ordering::Less => m.add_win(ids[b], ids[a]),
                        std::cmp::Ordering::Equal => m.add_draw(ids[a], ids[b]),
                    }
                }
            }
            *end_reasons.entry(g.end.clone()).or_insert(0) += 1;
            plies += g.plies;
        }
        let anchor = match &cfg.anchor {
            Some(a) => index.get(a.as_str()).copied().ok_or_else(|| {
                AwaleError::Tournament(format!("the anchor '{a}' is not among the agents"))
            })?,
            None => index.get("random").copied().unwrap_or(0),
        };
        let elo_cfg = EloConfig {
            anchor,
            anchor_rating: cfg.anchor_rating,
            prior_draws: cfg.prior_draws,
        };
        let (elo, elo_error) = if games.is_empty() {
            (None, Some("no games played".to_string()))
        } else {
            match fit(&m, &elo_cfg) {
                Ok(f) => (Some(f), None),
                Err(e) => (None, Some(e.to_string())),
            }
        };
        let mut standings: Vec<Standing> = (0..names.len())
            .map(|i| {
                let (w, d, l) = m.record(i);
                let n = w + d + l;
                Standing {
                    name: names[i].clone(),
                    games: n,
                    wins: w,
                    draws: d,
                    losses: l,
                    score: if n == 0 {
                        0.0
                    } else {
                        (w as f64 + 0.5 * d as f64) / n as f64
                    },
                    elo: elo.as_ref().map(|f| f.ratings[i]),
                    lower: elo.as_ref().map(|f| f.lower[i]),
                    upper: elo.as_ref().map(|f| f.upper[i]),
                }
            })
            .collect();
        standings.sort_by(|a, b| {
            b.elo
                .unwrap_or(0.0)
                .total_cmp(&a.elo.unwrap_or(0.0))
                .then(b.score.total_cmp(&a.score))
        });
        Ok(TournamentReport {
            rules: cfg.game_rules()?.to_string(),
            format: cfg.format.clone(),
            agents: names.to_vec(),
            games_scheduled: scheduled,
            games_played: games.len(),
            complete: games.len() == scheduled,
            los: elo.as_ref().map(|f| f.los()),
            matchups: m,
            standings,
            elo,
            elo_error,
            end_reasons,
            mean_plies: if games.is_empty() {
                0.0
            } else {
                plies as f64 / games.len() as f64
            },
            games,
        })
    }

    /// The standings, the crosstable and the likelihood of superiority as text tables.
    #[allow(clippy::needless_range_loop)]
    pub fn table(&self) -> String {
        let mut out = String::new();
        let n = self.agents.len();
        let w = self
            .agents
            .iter()
            .map(|a| a.len())
            .max()
            .unwrap_or(4)
            .max(5);
        let _ = writeln!(
            out,
            "{} under {}: {} of {} games{}, mean length {:.1} plies",
            self.format,
            self.rules,
            self.games_played,
            self.games_scheduled,
            if self.complete { "" } else { " (incomplete)" },
            self.mean_plies
        );
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "{:>4}  {:<w$}  {:>7}  {:>17}  {:>6}  {:>5}  {:>5}  {:>5}  {:>6}",
            "rank", "agent", "elo", "95% interval", "games", "won", "drawn", "lost", "score"
        );
        for (r, s) in self.standings.iter().enumerate() {
            let (elo, ci) = match (s.elo, s.lower, s.upper) {
                (Some(e), Some(lo), Some(hi)) => (format!("{e:.0}"), format!("[{lo:.0}, {hi:.0}]")),
                _ => ("-".into(), "-".into()),
            };
            let _ = writeln!(
                out,
                "{:>4}  {:<w$}  {:>7}  {:>17}  {:>6}  {:>5}  {:>5}  {:>5}  {:>5.1}%",
                r + 1,
                s.name,
                elo,
                ci,
                s.games,
                s.wins,
                s.draws,
                s.losses,
                100.0 * s.score
            );
        }
        if let Some(e) = &self.elo_error {
            let _ = writeln!(out, "no ratings: {e}");
        } else if let Some(f) = &self.elo {
            let _ = writeln!(
                out,
                "(Elo by maximum likelihood, anchor {} = {:.0}; intervals are 95%)",
                self.agents[f.anchor], f.ratings[f.anchor]
            );
        }
        let labels: Vec<String> = (1..=n).map(|i| format!("#{i}")).collect();
        let cw = 9;
        let _ = writeln!(
            out,
            "\ncrosstable (wins-draws-losses of the row against the column):"
        );
        let _ = write!(out, "{:>3}  {:<w$}", "", "");
        for l in &labels {
            let _ = write!(out, "  {l:>cw$}");
        }
        let _ = writeln!(out);
        for i in 0..n {
            let _ = write!(out, "{:>3}  {:<w$}", labels[i], self.agents[i]);
            for j in 0..n {
                let cell = if i == j || self.matchups.games(i, j) == 0 {
                    "-".to_string()
                } else {
                    format!(
                        "{}-{}-{}",
                        self.matchups.wins[i][j],
                        self.matchups.draws[i][j],
                        self.matchups.wins[j][i]
                    )
                };
                let _ = write!(out, "  {cell:>cw$}");
            }
            let _ = writeln!(out);
        }
        if let Some(los) = &self.los {
            let _ = writeln!(
                out,
                "\nlikelihood of superiority (row stronger than column):"
            );
            let _ = write!(out, "{:>3}  {:<w$}", "", "");
            for l in &labels {
                let _ = write!(out, "  {l:>6}");
            }
            let _ = writeln!(out);
            for i in 0..n {
                let _ = write!(out, "{:>3}  {:<w$}", labels[i], self.agents[i]);
                for x in &los[i] {
                    let cell = x.map_or("-".to_string(), |p| format!("{:.3}", p));
                    let _ = write!(out, "  {cell:>6}");
                }
                let _ = writeln!(out);
            }
        }
        let ends: Vec<String> = self
            .end_reasons
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        let _ = writeln!(out, "\ngame ends: {}", ends.join(", "));
        out
    }

    /// Writes `results.json`, `ratings.csv`, `crosstable.csv`, `los.csv` and `games.csv` into
    /// `dir`.
    pub fn write(&self, dir: &Path) -> Result<()> {
        let json =
            serde_json::to_string_pretty(self).map_err(|e| io_err(&dir.join("results.json"), e))?;
        write_file(&dir.join("results.json"), &(json + "\n"))?;
        let mut csv =
            String::from("rank,agent,elo,lower95,upper95,stderr,games,wins,draws,losses,score\n");
        for (r, s) in self.standings.iter().enumerate() {
            let i = self.agents.iter().position(|a| a == &s.name).unwrap_or(0);
            let se = self.elo.as_ref().map(|f| f.stderr[i]);
            let _ = writeln!(
                csv,
                "{},{},{},{},{},{},{},{},{},{},{:.6}",
                r + 1,
                csv_field(&s.name),
                opt(s.elo),
                opt(s.lower),
                opt(s.upper),
                opt(se),
                s.games,
                s.wins,
                s.draws,
                s.losses,
                s.score
            );
        }
        write_file(&dir.join("ratings.csv"), &csv)?;
        let header: Vec<String> = self.agents.iter().map(|a| csv_field(a)).collect();
        let mut cross = format!("agent,{}\n", header.join(","));
        let mut los = cross.clone();
        for i in 0..self.agents.len() {
            let cells: Vec<String> = (0..self.agents.len())
                .map(|j| {
                    if i == j || self.matchups.games(i, j) == 0 {
                        String::new()
                    } else {
                        format!(
                            "{}-{}-{}",
                            self.matchups.wins[i][j],
                            self.matchups.draws[i][j],
                            self.matchups.wins[j][i]
                        )
                    }
                })
                .collect();
            let _ = writeln!(cross, "{},{}", csv_field(&self.agents[i]), cells.join(","));
            if let Some(l) = &self.los {
                let cells: Vec<String> = l[i]
                    .iter()
                    .map(|x| x.map_or(String::new(), |p| format!("{p:.6}")))
                    .collect();
                let _ = writeln!(los, "{},{}", csv_field(&self.agents[i]), cells.join(","));
            }
        }
        write_file(&dir.join("crosstable.csv"), &cross)?;
        write_file(&dir.join("los.csv"), &los)?;
        let k = self.games.first().map_or(2, |g| g.seats.len());
        let mut games = String::from("index,pairing,opening");
        for s in 0..k {
            let _ = write!(games, ",seat{s},score{s}");
        }
        games.push_str(",end,plies\n");
        for g in &self.games {
            let _ = write!(games, "{},{},{}", g.index, g.pairing, g.opening);
            for (name, score) in g.seats.iter().zip(&g.scores) {
                let _ = write!(games, ",{},{score}", csv_field(name));
            }
            let _ = writeln!(games, ",{},{}", g.end, g.plies);
        }
        write_file(&dir.join("games.csv"), &games)
    }
}

fn opt(x: Option<f64>) -> String {
    x.map_or(String::new(), |v| format!("{v:.2}"))
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn io_err(path: &Path, e: impl std::fmt::Display) -> AwaleError {
    AwaleError::Io {
        path: path.display().to_string(),
        reason: e.to_string(),
    }
}

fn write_file(path: &Path, text: &str) -> Result<()> {
    fs::write(path, text).map_err(|e| io_err(path, e))
}

/// The settings that decide the games; a resumed run must have the same.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Manifest {
    rules: String,
    format: Format,
    agents: Vec<String>,
    specs: Vec<Option<String>>,
    games: usize,
    openings: u32,
    seed: u64,
}

/// Loads the finished games of `games.jsonl`, dropping a partly written last line.
fn load_games(path: &Path) -> Result<Vec<GameResult>> {
    let text = match fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_err(path, e)),
    };
    let mut games = Vec::new();
    let mut good_len = 0;
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    for (i, line) in lines.iter().enumerate() {
        let last = i + 1 == lines.len();
        let complete = line.ends_with('\n');
        if line.trim().is_empty() {
            good_len += if complete { line.len() } else { 0 };
            continue;
        }
        match (serde_json::from_str::<GameResult>(line.trim()), complete) {
            (Ok(g), true) => {
                games.push(g);
                good_len += line.len();
            }
            _ if last => {
                // A line cut off by an interruption: drop it so that appending starts clean.
                let f = OpenOptions::new()
                    .write(true)
                    .open(path)
                    .map_err(|e| io_err(path, e))?;
                f.set_len(good_len as u64).map_err(|e| io_err(path, e))?;
            }
            (r, _) => {
                return Err(AwaleError::Tournament(format!(
                    "{} line {} is not a game result: {}",
                    path.display(),
                    i + 1,
                    r.err()
                        .map_or("incomplete line".to_string(), |e| e.to_string())
                )))
            }
        }
    }
    Ok(games)
}

/// Plays (or resumes) a tournament and returns its report; with an output folder, also writes
/// the result files there.
pub fn run(cfg: &TournamentConfig, entrants: &[Entrant]) -> Result<TournamentReport> {
    let rules = cfg.game_rules()?;
    let names: Vec<String> = entrants.iter().map(|e| e.name.clone()).collect();
    let mut seen = HashSet::new();
    for n in &names {
        if n.is_empty() || !seen.insert(n.as_str()) {
            return Err(AwaleError::Tournament(format!(
                "agent names must be unique and not empty; '{n}' is not (give one a name=... option)"
            )));
        }
    }
    if let Some(a) = &cfg.anchor {
        if !names.contains(a) {
            return Err(AwaleError::Tournament(format!(
                "the anchor '{a}' is not among the agents"
            )));
        }
    }
    let sched = schedule(cfg, &names)?;
    let mut done: Vec<GameResult> = Vec::new();
    let mut writer = None;
    if let Some(dir) = &cfg.out {
        fs::create_dir_all(dir).map_err(|e| io_err(dir, e))?;
        let manifest = Manifest {
            rules: rules.to_string(),
            format: cfg.format.clone(),
            agents: names.clone(),
            specs: entrants.iter().map(|e| e.spec.clone()).collect(),
            games: cfg.games,
            openings: cfg.openings,
            seed: cfg.seed,
        };
        let mpath = dir.join("tournament.json");
        let jsonl = dir.join("games.jsonl");
        match fs::read_to_string(&mpath) {
            Ok(text) => {
                let old: Manifest = serde_json::from_str(&text)
                    .map_err(|e| AwaleError::Tournament(format!("{}: {e}", mpath.display())))?;
                if old != manifest {
                    return Err(AwaleError::Tournament(format!(
                        "{} holds a different tournament ({}); use another output folder",
                        dir.display(),
                        manifest_difference(&old, &manifest)
                    )));
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if jsonl.exists() {
                    return Err(AwaleError::Tournament(format!(
                        "{} has games.jsonl but no tournament.json; use another output folder",
                        dir.display()
                    )));
                }
                let text =
                    serde_json::to_string_pretty(&manifest).map_err(|e| io_err(&mpath, e))?;
                write_file(&mpath, &(text + "\n"))?;
            }
            Err(e) => return Err(io_err(&mpath, e)),
        }
        done = load_games(&jsonl)?;
        let mut have = HashSet::new();
        for g in &done {
            let want = sched.get(g.index).ok_or_else(|| {
                AwaleError::Tournament(format!(
                    "{}: game {} is not in the schedule",
                    jsonl.display(),
                    g.index
                ))
            })?;
            let seats: Vec<&String> = want.seats.iter().map(|&e| &names[e]).collect();
            if g.seats.iter().collect::<Vec<_>>() != seats || !have.insert(g.index) {
                return Err(AwaleError::Tournament(format!(
                    "{}: game {} does not match the schedule (or appears twice)",
                    jsonl.display(),
                    g.index
                )));
            }
        }
        let f = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&jsonl)
            .map_err(|e| io_err(&jsonl, e))?;
        writer = Some((BufWriter::new(f), jsonl));
    }
    let finished: HashSet<usize> = done.iter().map(|g| g.index).collect();
    let mut pending: Vec<&ScheduledGame> = sched
        .iter()
        .filter(|g| !finished.contains(&g.index))
        .collect();
    if let Some(limit) = cfg.game_limit {
        pending.truncate(limit);
    }
    let bar = if cfg.progress {
        let b = indicatif::ProgressBar::new(sched.len() as u64);
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {pos}/{len} games, {per_sec}, eta {eta}",
        ) {
            b.set_style(style.progress_chars("=> "));
        }
        b
    } else {
        indicatif::ProgressBar::hidden()
    };
    bar.set_position(done.len() as u64);
    let writer = Mutex::new(writer);
    let work = || -> Result<Vec<GameResult>> {
        pending
            .par_iter()
            .map(|g| {
                let r = play(cfg, &rules, entrants, &names, g)?;
                if let Some((w, path)) = writer
                    .lock()
                    .map_err(|_| AwaleError::Tournament("a worker panicked".into()))?
                    .as_mut()
                {
                    let line = serde_json::to_string(&r).map_err(|e| io_err(path, e))?;
                    writeln!(w, "{line}")
                        .and_then(|_| w.flush())
                        .map_err(|e| io_err(path, e))?;
                }
                bar.inc(1);
                Ok(r)
            })
            .collect()
    };
    let new = if cfg.threads == 0 {
        work()
    } else {
        rayon::ThreadPoolBuilder::new()
            .num_threads(cfg.threads)
            .build()
            .map_err(|e| {
                AwaleError::Tournament(format!("cannot start {} threads: {e}", cfg.threads))
            })?
            .install(work)
    };
    bar.finish_and_clear();
    done.extend(new?);
    let report = TournamentReport::compute(cfg, &names, sched.len(), done)?;
    if let Some(dir) = &cfg.out {
        report.write(dir)?;
    }
    Ok(report)
}

fn manifest_difference(old: &Manifest, new: &Manifest) -> String {
    let mut d = Vec::new();
    if old.rules != new.rules {
        d.push(format!("rules {} vs {}", old.rules, new.rules));
    }
    if old.format != new.format {
        d.push(format!("{} vs {}", old.format, new.format));
    }
    if old.agents != new.agents || old.specs != new.specs {
        d.push(format!(
            "agents {} vs {}",
            old.agents.join(","),
            new.agents.join(",")
        ));
    }
    if old.games != new.games {
        d.push(format!("games {} vs {}", old.games, new.games));
    }
    if old.openings != new.openings {
        d.push(format!("openings {} vs {}", old.openings, new.openings));
    }
    if old.seed != new.seed {
        d.push(format!("seed {} vs {}", old.seed, new.seed));
    }
    d.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combinations_are_lexicographic() {
        assert_eq!(
            combinations(4, 2),
            vec![
                vec![0, 1],
                vec![0, 2],
                vec![0, 3],
                vec![1, 2],
                vec![1, 3],
                vec![2, 3]
            ]
        );
        assert_eq!(combinations(3, 3), vec![vec![0, 1, 2]]);
        assert_eq!(combinations(4, 3).len(), 4);
    }

    #[test]
    fn three_player_schedule_rotates_every_seat() {
        let mut cfg = TournamentConfig::new(Rules::oware(3).unwrap());
        cfg.games = 3;
        let s = schedule(&cfg, &["a".into(), "b".into(), "c".into(), "d".into()]).unwrap();
        assert_eq!(s.len(), 12);
        assert_eq!(s[0].seats, vec![0, 1, 2]);
        assert_eq!(s[1].seats, vec![1, 2, 0]);
        assert_eq!(s[2].seats, vec![2, 0, 1]);
        assert!(s[..3].iter().all(|g| g.opening == 0));
    }
}
