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
}

impl GameResult {
    /// The result of a finished `game` for the scheduled game `g`.
    pub(super) fn new(
        g: &ScheduledGame,
        names: &[String],
        game: &Game,
        opening_plies: usize,
    ) -> GameResult {
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
