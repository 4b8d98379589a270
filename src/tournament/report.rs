//! The report: standings with Elo ratings, the crosstable, the likelihood of superiority, as
//! text tables and as result files.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::store::{io_err, write_file};
use super::{Format, GameResult, TournamentConfig};
use crate::elo::{fit, EloConfig, EloFit, Matchups};
use crate::error::{AwaleError, Result};

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
    /// The run was stopped by its observer before it played every game it was to play (see
    /// [`super::TournamentObserver::should_stop`]); a later run with the same output folder
    /// resumes it. Not written to `results.json`.
    #[serde(skip)]
    pub stopped: bool,
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
            stopped: false,
        })
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
                "(Elo by maximum likelihood, anchor {} = {:.0}; intervals are 95%)",
                self.agents[f.anchor], f.ratings[f.anchor]
            );
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
