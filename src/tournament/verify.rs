//! Resume trusts no line of `games.jsonl`: each game loaded is replayed from its record under
//! the run's rules, and what the line states (pairing, opening, plies, stores, points, how it
//! ended, a forfeit) must be what the replay gives; a line that does not hold is refused with
//! the reason.
//!
//! What is checked for a game: its record is played under the run's rules, starts from its
//! scheduled opening (the same start position and opening moves, recomputed from the seed);
//! every move is legal and by the player to move; the stated stores, plies, end and points are
//! those of the replayed position. A game that ended by forfeit stopped before the game was
//! over, the forfeiting seat was the one to move, and its agent is one that can forfeit (a
//! program in another process); a game that did not was over (by the rules or the ply limit).
//! What cannot be checked is which moves the agents chose: a hand-written record of legal moves
//! passes (replaying the agents would cost as much as playing the games, and agents with a time
//! limit do not repeat themselves).

use std::collections::HashMap;

use super::game_result::GameResult;
use super::schedule::{opening, ScheduledGame};
use super::{Entrant, TournamentConfig};
use crate::game::Game;
use crate::rules::Rules;

/// Checks loaded games against their replay (see the module docs); caches the openings and
/// whether each entrant's agents can forfeit.
pub(super) struct Verifier<'a> {
    cfg: &'a TournamentConfig,
    rules: &'a Rules,
    entrants: &'a [Entrant],
    names: &'a [String],
    openings: HashMap<usize, Game>,
    can_forfeit: Vec<Option<bool>>,
}

/// Points that differ by less than this are the same (they went through decimal JSON).
const POINTS_TOLERANCE: f64 = 1e-9;

impl<'a> Verifier<'a> {
    /// A verifier for the games of the tournament `cfg` played under `rules` between
    /// `entrants` named `names`.
    pub(super) fn new(
        cfg: &'a TournamentConfig,
        rules: &'a Rules,
        entrants: &'a [Entrant],
        names: &'a [String],
    ) -> Verifier<'a> {
        Verifier {
            cfg,
            rules,
            entrants,
            names,
            openings: HashMap::new(),
            can_forfeit: vec![None; entrants.len()],
        }
    }

    /// Whether the loaded game `g`, scheduled as `want` (same index and seats), is what its
    /// record gives; the reason when it is not.
    pub(super) fn check(&mut self, g: &GameResult, want: &ScheduledGame) -> Result<(), String> {
        if (g.pairing, g.opening) != (want.pairing, want.opening) {
            return Err(format!(
                "it says pairing {} and opening {}, the schedule pairing {} and opening {}",
                g.pairing, g.opening, want.pairing, want.opening
            ));
        }
        let record = &g.record;
        if record.rules != *self.rules {
            return Err(format!(
                "its record is played under '{}', not the run's rules '{}'",
                record.rules, self.rules
            ));
        }
        self.check_opening(g, want.opening)?;
        let game = record.replay().map_err(|e| e.to_string())?;
        if let Some(f) = &g.forfeit {
            self.check_forfeit(&game, f.seat, want)?;
        } else if !game.is_over() {
            return Err(format!(
                "its {} moves leave the game unfinished, and no forfeit is recorded",
                game.moves().len()
            ));
        }
        let replayed =
            GameResult::ended(want, self.names, &game, g.opening_plies, g.forfeit.clone());
        same("plies", &g.plies, &replayed.plies)?;
        same("stores", &g.scores, &replayed.scores)?;
        same("end", &g.end, &replayed.end)?;
        let close = g.points.len() == replayed.points.len()
            && g.points
                .iter()
                .zip(&replayed.points)
                .all(|(a, b)| (a - b).abs() < POINTS_TOLERANCE);
        if !close {
            return Err(format!(
                "it says points {:?}, its moves give {:?}",
                g.points, replayed.points
            ));
        }
        Ok(())
    }

    /// The record starts from the scheduled opening: its start position and first moves.
    fn check_opening(&mut self, g: &GameResult, index: usize) -> Result<(), String> {
        let (rules, run) = (self.rules, &self.cfg.run);
        let o = self
            .openings
            .entry(index)
            .or_insert_with(|| opening(rules, run.seed, index, run.openings));
        let theirs: Vec<usize> = g.record.moves.iter().map(|m| m.house).collect();
        let ours: Vec<usize> = o.moves().iter().map(|&h| h as usize).collect();
        if g.record.start != *o.start()
            || g.opening_plies != ours.len()
            || !theirs.starts_with(&ours)
        {
            return Err(format!(
                "its record does not start with its opening {index} (the seed's {} plies)",
                ours.len()
            ));
        }
        Ok(())
    }

    /// A forfeit by `seat` at the end of `game`: the game was not over, the seat was to move,
    /// and its entrant's agents can forfeit.
    fn check_forfeit(
        &mut self,
        game: &Game,
        seat: usize,
        want: &ScheduledGame,
    ) -> Result<(), String> {
        if game.is_over() {
            return Err(format!(
                "it says seat {seat} forfeited, but its moves end the game ({})",
                game.status()
            ));
        }
        if seat != game.to_move() {
            return Err(format!(
                "it says seat {seat} forfeited, but seat {} was to move",
                game.to_move()
            ));
        }
        let e = want.seats[seat];
        if !self.forfeits(e)? {
            return Err(format!(
                "it says {} forfeited, but its agents cannot forfeit (only a program in another \
                 process can)",
                self.names[e]
            ));
        }
        Ok(())
    }

    /// Whether entrant `e`'s agents can lose by forfeit (one agent built, once per entrant).
    fn forfeits(&mut self, e: usize) -> Result<bool, String> {
        if let Some(known) = self.can_forfeit[e] {
            return Ok(known);
        }
        let agent = self.entrants[e]
            .make()
            .map_err(|err| format!("cannot build {} to check its forfeit: {err}", self.names[e]))?;
        let known = agent.forfeits();
        self.can_forfeit[e] = Some(known);
        Ok(known)
    }
}

/// `stated` equals `replayed`, else the reason naming `what`.
fn same<T: PartialEq + std::fmt::Debug>(
    what: &str,
    stated: &T,
    replayed: &T,
) -> Result<(), String> {
    if stated == replayed {
        Ok(())
    } else {
        Err(format!(
            "it says {what} {stated:?}, its moves give {replayed:?}"
        ))
    }
}
