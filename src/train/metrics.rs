//! What an iteration did ([`IterationStats`]), what an evaluation found ([`EvalReport`]) and
//! the history of them a checkpoint keeps ([`Extra`]), and the TensorBoard scalars the run logs
//! of each ([`super::logging`] writes them).

use super::logging::Logger;
use super::loss::LossStats;
use crate::az::checkpoint::Counters;
use crate::az::selfplay::SelfPlayStats;
use serde::{Deserialize, Serialize};

/// What one iteration did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct IterationStats {
    /// The iteration number (1-based).
    pub iteration: u64,
    /// Self-play counts.
    pub selfplay: SelfPlayStats,
    /// Seconds of self-play.
    pub selfplay_secs: f64,
    /// Seconds of gradient steps.
    pub train_secs: f64,
    /// Mean losses (none when the buffer was too small to train).
    pub losses: Option<LossStats>,
    /// Samples in the replay buffer.
    pub buffer: usize,
}

impl IterationStats {
    /// The TensorBoard scalars of the iteration, by tag (`counters`: the run's, after it).
    pub fn scalars(&self, counters: &Counters) -> Vec<(&'static str, f64)> {
        let sp = &self.selfplay;
        let secs = self.selfplay_secs.max(1e-9);
        let mut scalars = vec![
            ("selfplay/games_per_sec", sp.games as f64 / secs),
            ("selfplay/positions_per_sec", sp.positions as f64 / secs),
            ("selfplay/moves_per_sec", sp.moves as f64 / secs),
            ("selfplay/evals_per_sec", sp.evaluations as f64 / secs),
            (
                "selfplay/mean_batch",
                sp.evaluations as f64 / sp.batches.max(1) as f64,
            ),
            (
                "selfplay/mean_game_plies",
                sp.plies as f64 / sp.games.max(1) as f64,
            ),
            (
                "selfplay/first_player_win_rate",
                sp.first_player_wins as f64 / sp.games.max(1) as f64,
            ),
            (
                "selfplay/draw_rate",
                sp.draws as f64 / sp.games.max(1) as f64,
            ),
            ("selfplay/total_games", counters.games as f64),
            ("replay/size", self.buffer as f64),
        ];
        if sp.tablebase_ends > 0 {
            scalars.push((
                "selfplay/tablebase_end_rate",
                sp.tablebase_ends as f64 / sp.games.max(1) as f64,
            ));
        }
        if let Some(l) = &self.losses {
            scalars.extend(l.scalars());
            scalars.push(("train/steps", counters.train_steps as f64));
        }
        scalars
    }

    /// The progress bar's message after the iteration (`min_replay`: the samples training waits
    /// for).
    pub fn progress(&self, min_replay: usize) -> String {
        let sp = &self.selfplay;
        match &self.losses {
            Some(l) => format!(
                "loss {:.3} (p {:.3} v {:.3})  {:.0} pos/s  batch {}",
                l.loss,
                l.policy,
                l.value,
                sp.positions as f64 / self.selfplay_secs.max(1e-9),
                sp.max_batch
            ),
            None => format!("filling replay {}/{}", self.buffer, min_replay),
        }
    }
}

/// Logs the scalars of an evaluation.
pub(super) fn log_eval(log: &mut Logger, r: &EvalReport) {
    let mut tags: Vec<(String, f64)> = r
        .results
        .iter()
        .map(|(n, s, ..)| (format!("eval/score_vs_{n}"), *s))
        .collect();
    if let Some(e) = r.elo {
        tags.push(("eval/elo".into(), e));
    }
    if let Some(e) = &r.endgame {
        tags.push(("eval/endgame_optimal".into(), e.optimal_share));
        tags.push(("eval/endgame_seeds_lost".into(), e.mean_loss));
        tags.push(("eval/endgame_result_kept".into(), e.result_share));
    }
    let refs: Vec<(&str, f64)> = tags.iter().map(|(t, v)| (t.as_str(), *v)).collect();
    log.scalars(r.iteration, &refs);
}

/// Notes kept in checkpoints: the evaluation history (the Elo curve).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Extra {
    /// Every evaluation so far.
    pub evals: Vec<EvalReport>,
    /// The opponents' reference ratings.
    pub calibration: Option<Vec<(String, f64)>>,
}

/// One evaluation of the network against the built-in agents.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EvalReport {
    /// Iteration evaluated.
    pub iteration: u64,
    /// Games per opponent.
    pub games: usize,
    /// Per opponent: (name, score of the network in [0, 1], wins, draws, losses).
    pub results: Vec<(String, f64, u32, u32, u32)>,
    /// The network's Elo against the opponents' reference ratings (none when an opponent has no
    /// reference rating, e.g. the final opponents outside the calibration).
    pub elo: Option<f64>,
    /// Seconds the evaluation took.
    pub secs: f64,
    /// The endgame accuracy (`eval.endgame_tables`), when measured.
    #[serde(default)]
    pub endgame: Option<EndgameEval>,
}

/// The network's endgame accuracy against the tables ([`crate::ratings::endgame`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct EndgameEval {
    /// Positions scored.
    pub positions: usize,
    /// Most seeds on their boards (the tables' limit).
    pub max_seeds: usize,
    /// Share of optimal moves (0 to 1).
    pub optimal_share: f64,
    /// Mean seeds lost per move against perfect play.
    pub mean_loss: f64,
    /// Share of moves that keep the game's result (0 to 1).
    #[serde(default)]
    pub result_share: f64,
}

impl EvalReport {
    /// A table of the results.
    pub fn table(&self) -> String {
        let elo = match self.elo {
            Some(e) => format!(", Elo {e:.0}"),
            None => String::new(),
        };
        let mut s = format!(
            "evaluation at iteration {} ({} games per opponent{elo}):\n",
            self.iteration, self.games
        );
        for (name, score, w, d, l) in &self.results {
            s.push_str(&format!(
                "  vs {name:<24} score {:>5.1}%  (+{w} ={d} -{l})\n",
                100.0 * score
            ));
        }
        if let Some(e) = &self.endgame {
            s.push_str(&format!(
                "  endgame (<= {} seeds, {} positions): {:.1}% optimal, {:.3} seeds lost per move, \
                 {:.1}% keep the result\n",
                e.max_seeds,
                e.positions,
                100.0 * e.optimal_share,
                e.mean_loss,
                100.0 * e.result_share
            ));
        }
        s
    }
}
