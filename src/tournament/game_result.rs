//! A finished game of a tournament ([`GameResult`]): its seats, stores, points, how it ended
//! and its replayable record; what the run reports, the store writes and the report rates.

use serde::{Deserialize, Serialize};

use super::schedule::ScheduledGame;
use crate::game::Game;
use crate::notation::GameRecord;
use crate::state::Status;

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
    /// Set when a seat lost by forfeit: its agent (a program in another process) crashed,
    /// hung past its time or answered an illegal move. The game ends there, unfinished on the
    /// board; the forfeiting seat loses to every other, whatever the stores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forfeit: Option<Forfeit>,
}

/// How a game was lost by forfeit ([`GameResult::forfeit`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Forfeit {
    /// The seat that lost.
    pub seat: usize,
    /// Why, as the agent's error says (`lost on time: …`, `answered a bad move: …`).
    pub reason: String,
}

impl GameResult {
    /// The result of `game` for the scheduled game `g`, lost by `forfeit`'s seat where given.
    pub(super) fn ended(
        g: &ScheduledGame,
        names: &[String],
        game: &Game,
        opening_plies: usize,
        forfeit: Option<Forfeit>,
    ) -> GameResult {
        let rules = game.rules();
        let k = rules.players as usize;
        let scores = game.scores();
        let loser = forfeit.as_ref().map(|f| f.seat);
        let points = (0..k)
            .map(|a| {
                let sum: f64 = (0..k)
                    .filter(|&b| b != a)
                    .map(|b| outcome(&scores, loser, a, b))
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
        if let Some(f) = &forfeit {
            record.tags.push((
                "Termination".into(),
                format!("{} forfeits: {}", seat_tag(k, f.seat), f.reason),
            ));
        }
        GameResult {
            index: g.index,
            pairing: g.pairing,
            opening: g.opening,
            seats,
            scores,
            points,
            end: match (&forfeit, game.status()) {
                (Some(_), _) => "forfeit".into(),
                (None, Status::Ended(r)) => r.name().to_string(),
                (None, Status::Truncated) => "truncated".into(),
                (None, Status::Ongoing) => "ongoing".into(),
            },
            plies: game.moves().len(),
            opening_plies,
            record,
            forfeit,
        }
    }

    /// The result of seat `a` against seat `b`: 1 a win, 0.5 a draw, 0 a loss — by the stores,
    /// unless one of them forfeited.
    ///
    /// ```
    /// # use awale::tournament::{run, Entrant, TournamentConfig};
    /// # let rules = awale::Rules::abapa();
    /// # let e = ["greedy", "random"].map(|s| Entrant::from_spec_text(s, &rules).unwrap());
    /// # let mut cfg = TournamentConfig::new(rules);
    /// # cfg.run.games = 2;
    /// let g = &run(&cfg, &e).unwrap().games[0];
    /// assert_eq!(g.result_between(0, 1) + g.result_between(1, 0), 1.0);
    /// assert_eq!(g.result_between(0, 1), g.points[0]); // two players: the seat's points
    /// ```
    pub fn result_between(&self, a: usize, b: usize) -> f64 {
        outcome(&self.scores, self.forfeit.as_ref().map(|f| f.seat), a, b)
    }

    /// The stores as a ranking: a forfeiting seat below every other (its store counted as
    /// nothing), the others by their stores. For placings and first places.
    pub fn ranking_scores(&self) -> Vec<u32> {
        let loser = self.forfeit.as_ref().map(|f| f.seat);
        self.scores
            .iter()
            .enumerate()
            .map(|(s, &x)| if Some(s) == loser { 0 } else { x + 1 })
            .collect()
    }
}

/// Seat `a`'s result against seat `b` (1, 0.5, 0) by `scores`, a forfeit by `loser` first.
fn outcome(scores: &[u32], loser: Option<usize>, a: usize, b: usize) -> f64 {
    if loser == Some(a) {
        return 0.0;
    }
    if loser == Some(b) {
        return 1.0;
    }
    match scores[a].cmp(&scores[b]) {
        std::cmp::Ordering::Greater => 1.0,
        std::cmp::Ordering::Equal => 0.5,
        std::cmp::Ordering::Less => 0.0,
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
