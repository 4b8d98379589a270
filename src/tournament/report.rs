//! The report: standings with Elo ratings, the crosstable, the likelihood of superiority, as
//! text tables and as result files.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::store::{io_err, write_file};
use super::{AgentClock, Format, GameResult, TournamentConfig};
use crate::error::{AwaleError, Result};
use crate::ratings::elo::{fit, EloConfig, EloFit, Matchups};
use crate::ratings::placing::Placings;

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

/// An agent's first places in the games of three or more players: the measure of strength
/// there, where a game has one winner and a fair share of `1 / players` wins.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FirstPlaces {
    /// The agent.
    pub name: String,
    /// Games of three or more players it played.
    pub games: u32,
    /// Games it won alone (the most seeds).
    pub won: u32,
    /// Games whose most seeds it shared with others.
    pub shared: u32,
    /// Its share of the wins: games won, plus `1 / k` of each first place shared by `k`, over
    /// games.
    pub share: f64,
    /// The share a player of equal strength gets: the mean of `1 / players` over its games.
    pub fair_share: f64,
    /// The 95% interval of `share` (Wilson score interval over `games`).
    pub lower: f64,
    /// Upper end of that interval.
    pub upper: f64,
}

impl FirstPlaces {
    /// The share of wins over the fair share (1 for a player of average strength).
    pub fn ratio(&self) -> f64 {
        if self.fair_share > 0.0 {
            self.share / self.fair_share
        } else {
            0.0
        }
    }
}

/// The first places of each of `names` in the games of three or more seats (empty when there
/// are none), in `names`' order.
///
/// ```
/// use awale::tournament::first_places;
/// // Scores by seat of two 3-player games: A wins the first, B and C share the second.
/// let games = [(vec!["A", "B", "C"], vec![20u32, 16, 12]), (vec!["B", "C", "A"], vec![18, 18, 12])];
/// let f = first_places(&["A".into(), "B".into(), "C".into()], games.iter().map(|(s, x)| (&s[..], &x[..])));
/// assert_eq!((f[0].won, f[1].shared, f[1].share), (1, 1, 0.25));
/// assert!((f[0].fair_share - 1.0 / 3.0).abs() < 1e-12);
/// ```
pub fn first_places<'a, S: AsRef<str> + 'a>(
    names: &[String],
    games: impl Iterator<Item = (&'a [S], &'a [u32])>,
) -> Vec<FirstPlaces> {
    let n = names.len();
    let (mut played, mut won, mut shared) = (vec![0u32; n], vec![0u32; n], vec![0u32; n]);
    let (mut points, mut fair) = (vec![0f64; n], vec![0f64; n]);
    let mut any = false;
    for (seats, scores) in games {
        if seats.len() < 3 {
            continue;
        }
        any = true;
        let best = scores.iter().copied().max().unwrap_or(0);
        let leaders = scores.iter().filter(|&&x| x == best).count();
        for (seat, &score) in seats.iter().zip(scores) {
            let Some(i) = names.iter().position(|x| x == seat.as_ref()) else {
                continue;
            };
            played[i] += 1;
            fair[i] += 1.0 / seats.len() as f64;
            if score == best {
                points[i] += 1.0 / leaders as f64;
                if leaders == 1 {
                    won[i] += 1;
                } else {
                    shared[i] += 1;
                }
            }
        }
    }
    if !any {
        return Vec::new();
    }
    (0..n)
        .map(|i| {
            let g = played[i].max(1) as f64;
            let share = points[i] / g;
            let (lower, upper) = wilson(share, g);
            FirstPlaces {
                name: names[i].clone(),
                games: played[i],
                won: won[i],
                shared: shared[i],
                share,
                fair_share: fair[i] / g,
                lower,
                upper,
            }
        })
        .collect()
}

/// The 95% Wilson score interval of a proportion `p` over `n` trials.
fn wilson(p: f64, n: f64) -> (f64, f64) {
    let z = 1.959_963_984_540_054;
    let d = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / d;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / d;
    ((centre - half).max(0.0), (centre + half).min(1.0))
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
    /// First places in the games of three or more players, in entry order (empty otherwise).
    #[serde(default)]
    pub first_places: Vec<FirstPlaces>,
    /// The Elo fit: of the pairwise results ([`crate::ratings::elo`]) when every game had 2 players,
    /// else the placing rating of the finishing orders ([`crate::ratings::placing`]: the same pairwise
    /// estimates, 95% intervals that count each game once).
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
    /// The run was stopped by its observer before it played every game it was to play (see
    /// [`super::TournamentObserver::should_stop`]); a later run with the same output folder
    /// resumes it. Not written to `results.json`.
    #[serde(skip)]
    pub stopped: bool,
    /// Each agent's thinking time in the games played by this run (entry order; empty for a
    /// report read back from `results.json`). Not written to `results.json`, which holds only
    /// what the seeds determine.
    #[serde(skip)]
    pub clock: Vec<AgentClock>,
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
        let mut placings = Placings::new(names.to_vec());
        let mut multi = false;
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
                    match g.result_between(a, b) {
                        x if x > 0.5 => m.add_win(ids[a], ids[b]),
                        x if x < 0.5 => m.add_win(ids[b], ids[a]),
                        _ => m.add_draw(ids[a], ids[b]),
                    }
                }
            }
            if ids.len() >= 3 {
                multi = true;
            }
            placings.add_game(&ids, &g.ranking_scores())?;
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
            // Games of 3 or more players: the placing rating (the same pairwise estimates,
            // with intervals that count each game once).
            let fitted = if multi {
                crate::ratings::placing::fit(&placings, &elo_cfg)
            } else {
                fit(&m, &elo_cfg)
            };
            match fitted {
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
            first_places: {
                let ranked: Vec<Vec<u32>> = games.iter().map(|g| g.ranking_scores()).collect();
                first_places(
                    names,
                    games
                        .iter()
                        .zip(&ranked)
                        .map(|(g, r)| (&g.seats[..], &r[..])),
                )
            },
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
            stopped: false,
            clock: Vec::new(),
        })
    }

    /// Each agent's mean thinking time per move in the games of this run, one line each (empty
    /// when this run played no game).
    pub fn clock_table(&self) -> String {
        let timed: Vec<&AgentClock> = self.clock.iter().filter(|c| c.moves > 0).collect();
        if timed.is_empty() {
            return String::new();
        }
        let w = timed.iter().map(|c| c.name.len()).max().unwrap_or(0).max(5);
        let mut out =
            String::from("\ntime per move (the games of this run; random openings not counted):\n");
        for c in timed {
            let _ = writeln!(
                out,
                "  {:<w$}  {:>9.3} ms  ({} moves)",
                c.name,
                c.ms_per_move().unwrap_or(0.0),
                c.moves
            );
        }
        out
    }

    /// The standings, the crosstable and the likelihood of superiority as text tables.
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
                "(Elo by maximum likelihood, anchor {} = {:.0}; intervals are 95%{})",
                self.agents[f.anchor],
                f.ratings[f.anchor],
                if self.first_places.is_empty() {
                    ""
                } else {
                    "; games, won, drawn and lost count each pair of players of a game: the \
                     games themselves are below"
                }
            );
        }
        if !self.first_places.is_empty() {
            let _ = writeln!(
                out,
                "\nfirst places (games of 3 or more players; a game won alone counts 1, a first \
                 place shared by k counts 1/k):"
            );
            let _ = writeln!(
                out,
                "{:>4}  {:<w$}  {:>6}  {:>5}  {:>6}  {:>6}  {:>15}  {:>10}  {:>12}",
                "rank",
                "agent",
                "games",
                "won",
                "shared",
                "share",
                "95% interval",
                "fair share",
                "× fair share"
            );
            for (r, &i) in self.rank_order().iter().enumerate() {
                let f = &self.first_places[i];
                let _ = writeln!(
                    out,
                    "{:>4}  {:<w$}  {:>6}  {:>5}  {:>6}  {:>5.1}%  {:>15}  {:>9.1}%  {:>12.2}",
                    r + 1,
                    f.name,
                    f.games,
                    f.won,
                    f.shared,
                    100.0 * f.share,
                    format!("[{:.1}, {:.1}]", 100.0 * f.lower, 100.0 * f.upper),
                    100.0 * f.fair_share,
                    f.ratio()
                );
            }
        }
        // The crosstable and the likelihood table list the agents in rank order and number them
        // `#rank`, as the standings above do.
        let order = self.rank_order();
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
        for (r, &i) in order.iter().enumerate() {
            let _ = write!(out, "{:>3}  {:<w$}", labels[r], self.agents[i]);
            for &j in &order {
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
            for (r, &i) in order.iter().enumerate() {
                let _ = write!(out, "{:>3}  {:<w$}", labels[r], self.agents[i]);
                for x in order.iter().map(|&j| los[i][j]) {
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

    /// The agents' entry indices in the order of the standings (rank 1 first); agents missing
    /// from the standings follow in entry order.
    pub fn rank_order(&self) -> Vec<usize> {
        let mut order: Vec<usize> = self
            .standings
            .iter()
            .filter_map(|s| self.agents.iter().position(|a| *a == s.name))
            .collect();
        for i in 0..self.agents.len() {
            if !order.contains(&i) {
                order.push(i);
            }
        }
        order
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
