//! Matches between two agents (`awale match A B`): paired openings, pentanomial statistics, and
//! either a fixed number of games (Elo, its 95% interval and the likelihood of superiority) or a
//! sequential probability ratio test that stops as soon as it knows ([`crate::ratings::sprt`]).
//!
//! **Games.** A match is a [tournament](crate::tournament) of the two agents: game `2i` and
//! `2i + 1` play random opening `i` with the seats swapped, every game a pure function of the
//! seed and its index, played on every core, appended to `OUT/games.jsonl` as it ends (a killed
//! match resumes with the same command), shardable across processes (`shard`) and on Ray
//! (`awale.match(..., backend="ray")`) like any tournament.
//!
//! **Decision.** Pairs are counted in index order: the test folds pair 0, 1, 2, … as long as
//! both their games are finished, and stops at the first pair where it decides. Games that
//! other threads finished after that pair are kept in the folder but not counted, so the
//! decision, the pair where it falls and the reported counts are the same whatever the number
//! of threads, and the same for a match run whole or killed and resumed. A match that reaches
//! `games` without a decision is *inconclusive*.
//!
//! ```
//! use awale::ratings::matchplay::{run_match, MatchConfig};
//! use awale::ratings::sprt::SprtConfig;
//! use awale::tournament::Entrant;
//! use awale::Rules;
//! let rules = Rules::abapa();
//! let a = Entrant::from_spec_text("greedy", &rules).unwrap();
//! let b = Entrant::from_spec_text("random", &rules).unwrap();
//! let mut cfg = MatchConfig::new(rules);
//! cfg.run.games = 400;
//! cfg.sprt = Some(SprtConfig::new(0.0, 100.0));
//! cfg.run.max_plies = 200;
//! let report = run_match(&cfg, &a, &b).unwrap();
//! // greedy is far stronger than random: the test accepts H1 long before 400 games.
//! assert_eq!(report.verdict, "H1 accepted");
//! assert!(report.pairs < 200);
//! ```

use std::path::PathBuf;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::error::{AwaleError, Result};
use crate::ratings::sprt::{elo_estimate, Decision, EloEstimate, Pentanomial, Sprt, SprtConfig};
use crate::rules::Rules;
use crate::tournament::{
    run_observed, Entrant, GameResult, GameRunConfig, Progress, TournamentConfig,
    TournamentObserver,
};

/// Settings of a match.
#[derive(Debug, Clone)]
pub struct MatchConfig {
    /// The rules (two players).
    pub rules: Rules,
    /// How the games are played. `run.games` is the number of games at most (an even number:
    /// two per opening): with an SPRT, a match that reaches it undecided is inconclusive;
    /// without, every game is played.
    pub run: GameRunConfig,
    /// The sequential test; none plays a fixed number of games.
    pub sprt: Option<SprtConfig>,
    /// Folder for the games (resumable) and the result files.
    pub out: Option<PathBuf>,
}

impl MatchConfig {
    /// Defaults: 1,000 games at most, no SPRT, the game run's other defaults
    /// ([`GameRunConfig::new`]: 4-ply openings, the rules' ply limit, seed 0, every core), no
    /// folder.
    pub fn new(rules: Rules) -> MatchConfig {
        MatchConfig {
            rules,
            run: GameRunConfig::new(1000),
            sprt: None,
            out: None,
        }
    }

    /// The tournament that plays the games.
    fn tournament(&self) -> TournamentConfig {
        let mut t = TournamentConfig::new(self.rules);
        t.run = self.run.clone();
        t.out = self.out.clone();
        t
    }

    /// The rules of the games (the ply limit applied), checked with the other settings.
    pub fn rules_checked(&self) -> Result<Rules> {
        self.validate()?;
        self.tournament().game_rules()
    }

    /// Checks the settings.
    fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(AwaleError::Match(m));
        if self.rules.players != 2 {
            return bad(format!(
                "a match is between two agents on 2-player rules, these have {} players (use \
                 awale tournament)",
                self.rules.players
            ));
        }
        if let Err(e) = self.run.validate_paired() {
            return bad(e.to_string());
        }
        if let Some(s) = &self.sprt {
            s.validate()?;
        }
        Ok(())
    }
}

/// Where a match stands: what the progress bar shows after every counted pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatchStatus {
    /// Games finished (counted or not).
    pub games_done: usize,
    /// Games at most.
    pub games_scheduled: usize,
    /// Pairs counted (a prefix of the schedule).
    pub pairs: u64,
    /// Their pentanomial counts, the first agent's view.
    pub counts: Pentanomial,
    /// The log-likelihood ratio (with an SPRT).
    pub llr: Option<f64>,
    /// The LLR's bounds, overshoot-corrected (with an SPRT).
    pub bounds: Option<(f64, f64)>,
    /// The decision, once made.
    pub decision: Option<Decision>,
}

impl MatchStatus {
    /// One line: pairs, score, and the LLR within its bounds.
    pub fn line(&self) -> String {
        let mut s = format!("{} pairs, score {:.3}", self.pairs, self.counts.score());
        if let (Some(llr), Some((a, b))) = (self.llr, self.bounds) {
            s += &format!(", LLR {llr:.2} [{a:.2}, {b:.2}]");
        }
        if let Some(d) = self.decision {
            s += &format!(", {}", d.text());
        }
        s
    }
}

/// The pairs counted so far: the games of the schedule by index (the first agent's points) and
/// the test fed pair after pair.
struct Tally {
    first: String,
    points: Vec<Option<f64>>,
    pairs: u64,
    counts: Pentanomial,
    sprt: Option<Sprt>,
    decision: Option<Decision>,
    games_done: usize,
}

impl Tally {
    fn new(first: &str, games: usize, sprt: Option<SprtConfig>) -> Tally {
        Tally {
            first: first.to_string(),
            points: vec![None; games],
            pairs: 0,
            counts: Pentanomial::default(),
            sprt: sprt.map(Sprt::new),
            decision: None,
            games_done: 0,
        }
    }

    /// Records a game and counts the pairs it completes (up to a decision).
    fn add(&mut self, g: &GameResult) {
        let seat = g.seats.iter().position(|s| *s == self.first).unwrap_or(0);
        if let Some(p) = self.points.get_mut(g.index) {
            if p.is_none() {
                self.games_done += 1;
            }
            *p = Some(g.points[seat]);
        }
        while self.decision.is_none() {
            let i = self.pairs as usize * 2;
            let (Some(Some(x)), Some(Some(y))) = (self.points.get(i), self.points.get(i + 1))
            else {
                break;
            };
            self.counts.add_pair(x + y);
            self.pairs += 1;
            if let Some(t) = &mut self.sprt {
                self.decision = t.update(&self.counts);
            }
        }
    }

    fn status(&self) -> MatchStatus {
        MatchStatus {
            games_done: self.games_done,
            games_scheduled: self.points.len(),
            pairs: self.pairs,
            counts: self.counts,
            llr: self.sprt.as_ref().map(|t| t.llr),
            bounds: self.sprt.as_ref().map(|t| t.effective_bounds()),
            decision: self.decision,
        }
    }
}

/// The tournament observer that tallies pairs and stops at a decision.
struct Watch<'a> {
    tally: Mutex<Tally>,
    outer: &'a dyn TournamentObserver,
    status: &'a (dyn Fn(&MatchStatus) + Sync),
}

impl Watch<'_> {
    fn tally(&self) -> std::sync::MutexGuard<'_, Tally> {
        self.tally.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl TournamentObserver for Watch<'_> {
    fn resumed(&self, games: &[GameResult]) {
        let mut t = self.tally();
        for g in games {
            t.add(g);
        }
        (self.status)(&t.status());
        self.outer.resumed(games);
    }

    fn started(&self, progress: Progress) {
        self.outer.started(progress);
    }

    fn game_finished(&self, game: &GameResult, progress: Progress) {
        let mut t = self.tally();
        t.add(game);
        (self.status)(&t.status());
        drop(t);
        self.outer.game_finished(game, progress);
    }

    fn should_stop(&self) -> bool {
        self.tally().decision.is_some() || self.outer.should_stop()
    }
}

/// The result of a match.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatchReport {
    /// The two agents; statistics are the first one's.
    pub agents: [String; 2],
    /// The rules.
    pub rules: String,
    /// `"H1 accepted"`, `"H0 accepted"`, `"inconclusive"` (an SPRT that reached `games`),
    /// `"complete"` (a fixed-games match played out) or `"in progress"` (stopped or limited
    /// before the end; the same call resumes).
    pub verdict: String,
    /// Pairs counted.
    pub pairs: u64,
    /// Games counted (two per pair).
    pub games: u64,
    /// Pentanomial counts of the counted pairs (0, ½, 1, 1½, 2 points).
    pub pentanomial: Pentanomial,
    /// Game by game over the counted pairs: wins, draws, losses of the first agent.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses.
    pub losses: u64,
    /// The first agent's mean score.
    pub score: f64,
    /// Elo difference, 95% interval and LOS from the pentanomial counts.
    pub elo: EloEstimate,
    /// The test's settings, if any.
    pub sprt: Option<SprtConfig>,
    /// The final log-likelihood ratio.
    pub llr: Option<f64>,
    /// Its bounds (overshoot-corrected) at the end.
    pub bounds: Option<(f64, f64)>,
    /// Games finished in the folder (counted or not).
    pub games_played: usize,
    /// Games at most.
    pub games_scheduled: usize,
    /// The games counted, by index.
    #[serde(skip)]
    pub game_results: Vec<GameResult>,
}

impl MatchReport {
    /// The report as text.
    pub fn text(&self) -> String {
        let [a, b] = &self.agents;
        let mut s = format!(
            "{a} vs {b} ({}): {} games in {} pairs: +{} ={} -{} (score {:.1}%)\n",
            self.rules,
            self.games,
            self.pairs,
            self.wins,
            self.draws,
            self.losses,
            100.0 * self.score
        );
        s += &format!(
            "pentanomial [0, 1/2, 1, 3/2, 2]: {:?}\n",
            self.pentanomial.0
        );
        // The interval is asymmetric (logistic): written as its two ends, not as `±`.
        s += &format!(
            "Elo {:+.1} (95%: {:+.1} to {:+.1}), LOS {:.1}%\n",
            self.elo.elo,
            self.elo.low,
            self.elo.high,
            100.0 * self.elo.los
        );
        if let (Some(c), Some(llr), Some((lo, hi))) = (&self.sprt, self.llr, self.bounds) {
            s += &format!("SPRT {c}: LLR {llr:.3} [{lo:.3}, {hi:.3}]\n");
        }
        s += &format!("verdict: {}\n", self.verdict);
        s
    }
}

/// Plays (or resumes) a match between `a` and `b` and returns its report; with an output
/// folder, also writes `match.json` there (beside the tournament's files). The same as
/// [`run_match_observed`] watching nothing.
pub fn run_match(cfg: &MatchConfig, a: &Entrant, b: &Entrant) -> Result<MatchReport> {
    run_match_observed(cfg, a, b, &(), &|_| {})
}

/// [`run_match`], reporting every finished game to `observer` (which may stop the match, see
/// [`TournamentObserver`]) and the match's state after every game to `status` (the command
/// line shows the LLR and its bounds with its progress bar).
pub fn run_match_observed(
    cfg: &MatchConfig,
    a: &Entrant,
    b: &Entrant,
    observer: &dyn TournamentObserver,
    status: &(dyn Fn(&MatchStatus) + Sync),
) -> Result<MatchReport> {
    cfg.validate()?;
    let watch = Watch {
        tally: Mutex::new(Tally::new(a.name(), cfg.run.games, cfg.sprt)),
        outer: observer,
        status,
    };
    let t = run_observed(&cfg.tournament(), &[a.clone(), b.clone()], &watch)?;
    // The report is recomputed from the games in index order: the same whatever finished when.
    let mut tally = Tally::new(a.name(), cfg.run.games, cfg.sprt);
    let mut games = t.games;
    games.sort_by_key(|g| g.index);
    for g in &games {
        tally.add(g);
    }
    let counted = 2 * tally.pairs as usize;
    let game_results: Vec<GameResult> = games.into_iter().filter(|g| g.index < counted).collect();
    let (mut wins, mut draws, mut losses) = (0, 0, 0);
    for g in &game_results {
        let seat = g.seats.iter().position(|s| s == a.name()).unwrap_or(0);
        match g.points[seat] {
            p if p > 0.75 => wins += 1,
            p if p < 0.25 => losses += 1,
            _ => draws += 1,
        }
    }
    let all_pairs = (cfg.run.games / 2) as u64;
    let verdict = match (tally.decision, &cfg.sprt) {
        (Some(d), _) => d.text().to_string(),
        (None, Some(_)) if tally.pairs == all_pairs => "inconclusive".into(),
        (None, None) if tally.pairs == all_pairs => "complete".into(),
        _ => "in progress".into(),
    };
    let status = tally.status();
    let report = MatchReport {
        agents: [a.name().to_string(), b.name().to_string()],
        rules: t.rules.clone(),
        verdict,
        pairs: tally.pairs,
        games: 2 * tally.pairs,
        pentanomial: tally.counts,
        wins,
        draws,
        losses,
        score: tally.counts.score(),
        elo: elo_estimate(&tally.counts),
        sprt: cfg.sprt,
        llr: status.llr,
        bounds: status.bounds,
        games_played: t.games_played,
        games_scheduled: t.games_scheduled,
        game_results,
    };
    if let Some(dir) = &cfg.out {
        let path = dir.join("match.json");
        let text = serde_json::to_string_pretty(&report)
            .map_err(|e| AwaleError::Match(format!("{}: {e}", path.display())))?;
        crate::files::write_replacing(&path, (text + "\n").as_bytes()).map_err(|e| {
            AwaleError::Io {
                path: path.display().to_string(),
                reason: e.to_string(),
            }
        })?;
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::notation::GameRecord;

    /// A finished game `index` in which A (seat by the schedule: A sits first in even games)
    /// scores `points`.
    fn game(index: usize, points: f64) -> GameResult {
        let seats = if index.is_multiple_of(2) {
            ["A", "B"]
        } else {
            ["B", "A"]
        };
        let a = if index.is_multiple_of(2) { 0 } else { 1 };
        let mut p = vec![0.0; 2];
        p[a] = points;
        p[1 - a] = 1.0 - points;
        GameResult {
            index,
            pairing: 0,
            opening: index / 2,
            seats: seats.iter().map(|s| s.to_string()).collect(),
            scores: vec![0, 0],
            points: p,
            end: "scripted".into(),
            plies: 0,
            opening_plies: 0,
            record: GameRecord::from_game(&Game::new(Rules::abapa())),
            forfeit: None,
        }
    }

    /// A's points in game `i` of a scripted match (mostly wins: about +150 Elo).
    fn scripted(i: usize) -> f64 {
        [1.0, 0.5, 1.0, 0.0, 1.0, 1.0, 0.5, 1.0, 0.0, 1.0, 1.0, 0.5][(i * 5 + i / 3) % 12]
    }

    #[test]
    fn scripted_results_stop_at_the_same_pair_whatever_the_order_of_arrival() {
        let sprt = Some(SprtConfig::new(0.0, 100.0));
        let mut in_order = Tally::new("A", 2000, sprt);
        let mut stop_at = None;
        for i in 0..2000 {
            in_order.add(&game(i, scripted(i)));
            if in_order.decision.is_some() && stop_at.is_none() {
                stop_at = Some(i);
            }
        }
        let stop_at = stop_at.expect("the test decides");
        assert_eq!(in_order.decision, Some(Decision::AcceptH1));
        // Counting stops at the decision: later games are recorded but not counted.
        assert_eq!(in_order.pairs as usize * 2, stop_at + 1);
        assert!(in_order.pairs < 1000);

        // The same games arriving out of order (as from several threads): the same decision at
        // the same pair, with the same counts.
        let mut shuffled = Tally::new("A", 2000, sprt);
        let mut order: Vec<usize> = (0..2000).collect();
        for chunk in order.chunks_mut(7) {
            chunk.reverse();
        }
        for &i in &order {
            shuffled.add(&game(i, scripted(i)));
        }
        assert_eq!(
            (shuffled.decision, shuffled.pairs, shuffled.counts),
            (in_order.decision, in_order.pairs, in_order.counts)
        );
        // The decision is fishtest's: feeding the same pairs to a fresh test in order decides
        // exactly at the last counted pair, not before.
        let mut test = Sprt::new(SprtConfig::new(0.0, 100.0));
        let mut c = Pentanomial::default();
        for k in 0..in_order.pairs as usize {
            c.add_pair(scripted(2 * k) + scripted(2 * k + 1));
            let d = test.update(&c);
            assert_eq!(d.is_some(), k + 1 == in_order.pairs as usize, "pair {k}");
        }
    }

    #[test]
    fn a_match_is_the_same_on_one_thread_two_threads_and_resumed() {
        let rules = Rules::abapa();
        let a = Entrant::from_spec_text("alphabeta:depth=2", &rules).unwrap();
        let b = Entrant::from_spec_text("greedy", &rules).unwrap();
        let mut cfg = MatchConfig::new(rules);
        cfg.run.games = 200;
        cfg.run.max_plies = 120;
        cfg.sprt = Some(SprtConfig::new(0.0, 150.0));
        cfg.run.threads = 1;
        let one = run_match(&cfg, &a, &b).unwrap();
        cfg.run.threads = 2;
        let two = run_match(&cfg, &a, &b).unwrap();
        // Two threads may finish games past the decision: they are not counted.
        let key = |r: &MatchReport| {
            (
                r.verdict.clone(),
                r.pairs,
                r.pentanomial,
                r.llr,
                (r.wins, r.draws, r.losses),
                r.game_results
                    .iter()
                    .map(|g| g.record.to_string())
                    .collect::<Vec<_>>(),
            )
        };
        assert!(key(&one) == key(&two), "one thread and two differ");
        assert!(one.verdict.ends_with("accepted"), "{}", one.verdict);

        let dir = std::env::temp_dir().join(format!("awale-match-resume-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        cfg.out = Some(dir.clone());
        cfg.run.game_limit = Some(5);
        let mut runs = 0;
        let resumed = loop {
            let r = run_match(&cfg, &a, &b).unwrap();
            runs += 1;
            if r.verdict != "in progress" {
                break r;
            }
            assert!(runs < 200);
        };
        assert!(runs > 1);
        let _ = std::fs::remove_dir_all(&dir);
        assert!(key(&resumed) == key(&one), "resumed and whole differ");
    }

    #[test]
    fn bad_matches_are_refused_with_the_reason() {
        let rules = Rules::abapa();
        let a = Entrant::from_spec_text("greedy", &rules).unwrap();
        let b = Entrant::from_spec_text("random", &rules).unwrap();
        let mut cfg = MatchConfig::new(rules);
        cfg.run.games = 9;
        assert!(run_match(&cfg, &a, &b)
            .unwrap_err()
            .to_string()
            .contains("even"));
        cfg.run.games = 10;
        cfg.sprt = Some(SprtConfig::new(3.0, 1.0));
        assert!(run_match(&cfg, &a, &b)
            .unwrap_err()
            .to_string()
            .contains("below elo1"));
        let three: Rules = "oware3".parse().unwrap();
        let cfg = MatchConfig::new(three);
        let a3 = Entrant::from_spec_text("greedy", &three).unwrap();
        let b3 = Entrant::from_spec_text("random", &three).unwrap();
        assert!(run_match(&cfg, &a3, &b3)
            .unwrap_err()
            .to_string()
            .contains("2-player"));
    }
}
