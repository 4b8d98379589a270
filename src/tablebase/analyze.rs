//! A game record against the table: for each move played in a position the table covers, the
//! value it lost against perfect play.

use super::Tablebase;
use crate::error::{AwaleError, Result};
use crate::notation::GameRecord;

/// One move of a record, inside the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnalyzedMove {
    /// The move's number in the record (0-based ply from the record's start).
    pub index: usize,
    /// The player who moved.
    pub player: usize,
    /// The house played.
    pub house: usize,
    /// Seeds on the board before the move.
    pub seeds: u8,
    /// The value of the best move (seeds of those on the board the mover could get).
    pub best_value: u8,
    /// The value of the move played.
    pub value: u8,
    /// The best moves.
    pub best_moves: Vec<usize>,
    /// True when the position's value comes from the cycle rule (see [`super::Probe::cycle`]).
    pub cycle: bool,
}

impl AnalyzedMove {
    /// Seeds lost against perfect play by this move.
    pub fn loss(&self) -> u8 {
        self.best_value - self.value
    }
}

impl Tablebase {
    /// Replays `record` and scores every move played in a position this table covers (the
    /// others are left out). Refused when the table is for other rules of play.
    ///
    /// ```
    /// use awale::notation::GameRecord;
    /// use awale::tablebase::Tablebase;
    /// use awale::Rules;
    /// let table = Tablebase::build(&Rules::abapa(), 3, 1, &|_| {}).unwrap();
    /// // South: E = 1, F = 1; North: a = 1. F makes 2 in `a`: a grand slam, no capture (abapa).
    /// let record: GameRecord = "[Rules \"abapa\"]\n[Start \"abapa 0,0,0,0,1,1/1,0,0,0,0,0 23,22 0\"]\nF\n"
    ///     .parse()
    ///     .unwrap();
    /// let moves = table.analyze(&record).unwrap();
    /// assert_eq!(moves.len(), 1);
    /// assert_eq!(moves[0].seeds, 3);
    /// ```
    pub fn analyze(&self, record: &GameRecord) -> Result<Vec<AnalyzedMove>> {
        if !self.covers(&record.rules) {
            return Err(AwaleError::Tablebase(format!(
                "the record is played under '{}'; the table was built for '{}'",
                record.rules,
                self.rules()
            )));
        }
        let game = record.replay()?;
        let mut s = record.start;
        let mut out = Vec::new();
        for (index, &house) in game.moves().iter().enumerate() {
            let house = house as usize;
            if s.board_seeds(&record.rules) as usize <= self.max_seeds() {
                let probe = self.probe(&s)?;
                let value = probe
                    .moves
                    .iter()
                    .find(|m| m.house == house)
                    .map(|m| m.value)
                    .ok_or_else(|| {
                        AwaleError::BadRecord(format!("move {}: not legal", index + 1))
                    })?;
                out.push(AnalyzedMove {
                    index,
                    player: s.to_move(),
                    house,
                    seeds: probe.seeds,
                    best_value: probe.best_value(),
                    value,
                    best_moves: probe.best_moves(),
                    cycle: probe.cycle,
                });
            }
            s.apply_unchecked(&record.rules, house);
        }
        Ok(out)
    }
}
