//! A game in progress: rules, the current [`State`], the repetition [`History`] and the moves
//! played. This is the API most users want; [`State`] is the lower-level engine.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::error::{AwaleError, Result};
use crate::history::History;
use crate::rules::{Rules, MAX_PLAYERS};
use crate::state::{MoveInfo, State, Status};

/// A game: rules, position, history for cycles, and the list of moves played.
///
/// ```
/// use awale::{Game, Rules, Status};
/// let mut game = Game::new(Rules::abapa());
/// while !game.is_over() {
///     let mv = game.legal_moves()[0];
///     game.apply(mv).unwrap();
/// }
/// assert!(matches!(game.status(), Status::Ended(_)));
/// let scores = game.scores();
/// assert_eq!(scores.iter().sum::<u32>() + game.state().board_seeds(game.rules()), 48);
/// ```
#[derive(Debug, Clone)]
pub struct Game {
    rules: Rules,
    start: State,
    state: State,
    history: History,
    moves: Vec<u8>,
}

impl Game {
    /// A new game from the start position (a random first player, if the rules draw one, is
    /// drawn from seed 0; see [`Game::with_seed`]).
    pub fn new(rules: Rules) -> Game {
        Game::with_seed(rules, 0)
    }

    /// A new game whose random first player (rules with [`crate::FirstPlayer::Random`]) is drawn from
    /// `seed` with ChaCha8.
    pub fn with_seed(rules: Rules, seed: u64) -> Game {
        let first = rules.first_player.pick(rules.players as usize, |n| {
            ChaCha8Rng::seed_from_u64(seed).random_range(0..n)
        });
        Game::from_state(rules, State::initial(&rules, first))
    }

    /// A game that starts from a given position.
    pub fn from_state(rules: Rules, start: State) -> Game {
        let mut history = History::with_capacity(64);
        history.reset(&start);
        Game {
            rules,
            start,
            state: start,
            history,
            moves: Vec::new(),
        }
    }

    /// The rules.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The current position.
    pub fn state(&self) -> &State {
        &self.state
    }

    /// The position the game started from.
    pub fn start(&self) -> &State {
        &self.start
    }

    /// The positions seen since the last capture (for repetition-aware agents).
    pub fn history(&self) -> &History {
        &self.history
    }

    /// Moves played so far (house indices of the mover's row).
    pub fn moves(&self) -> &[u8] {
        &self.moves
    }

    /// The player to move.
    pub fn to_move(&self) -> usize {
        self.state.to_move()
    }

    /// The game's status.
    pub fn status(&self) -> Status {
        self.state.status()
    }

    /// True once the game ended or was truncated.
    pub fn is_over(&self) -> bool {
        self.state.is_over()
    }

    /// Scores of each player.
    pub fn scores(&self) -> Vec<u32> {
        self.state.scores()[..self.rules.players as usize]
            .iter()
            .map(|&x| x as u32)
            .collect()
    }

    /// Legal moves as a bit mask (bit `h` = house `h`).
    pub fn legal_mask(&self) -> u16 {
        self.state.legal_mask(&self.rules)
    }

    /// Legal moves as house indices.
    pub fn legal_moves(&self) -> Vec<usize> {
        self.state.legal_moves(&self.rules)
    }

    /// Plays house `house` of the player to move; an illegal move is refused with a typed error
    /// and leaves the game unchanged.
    pub fn apply(&mut self, house: usize) -> Result<MoveInfo> {
        let mut info = self.state.apply(&self.rules, house)?;
        self.after_move(house, &mut info);
        Ok(info)
    }

    /// Plays a move known to be legal, without checking it.
    #[inline]
    pub fn apply_unchecked(&mut self, house: usize) -> MoveInfo {
        let mut info = self.state.apply_unchecked(&self.rules, house);
        self.after_move(house, &mut info);
        info
    }

    #[inline]
    fn after_move(&mut self, house: usize, info: &mut MoveInfo) {
        self.moves.push(house as u8);
        self.history.record(&self.rules, &mut self.state, info);
    }

    /// Returns per player once the game has ended (see [`State::returns`]).
    pub fn returns(&self) -> [f32; MAX_PLAYERS] {
        self.state.returns(&self.rules)
    }

    /// Replays `moves` from the start position of `rules`; the first illegal move is reported
    /// with its index.
    pub fn replay(rules: Rules, start: State, moves: &[usize]) -> Result<Game> {
        let mut g = Game::from_state(rules, start);
        for (i, &m) in moves.iter().enumerate() {
            g.apply(m)
                .map_err(|e| AwaleError::BadRecord(format!("move {} ({}): {e}", i + 1, m)))?;
        }
        Ok(g)
    }

    /// The game taken back to the last turn of a person (`is_person(seat)`), for an undo
    /// (`awale play`'s `undo`, the server's `POST /api/games/{id}/undo`): the moves since it
    /// and that move itself are dropped. Returns the shorter game and the plies taken back, or
    /// `None` when no person has moved yet.
    ///
    /// ```
    /// use awale::{Game, Rules};
    /// let mut g = Game::new(Rules::abapa());
    /// for h in [2, 3, 1] {
    ///     g.apply(h).unwrap();
    /// }
    /// // South (seat 0) is the person: its last move was the third ply.
    /// let (back, plies) = g.taken_back(|seat| seat == 0).unwrap().unwrap();
    /// assert_eq!((back.moves(), plies), (&[2u8, 3][..], 1));
    /// assert!(g.taken_back(|_| false).unwrap().is_none());
    /// ```
    pub fn taken_back(&self, is_person: impl Fn(usize) -> bool) -> Result<Option<(Game, usize)>> {
        let moves: Vec<usize> = self.moves.iter().map(|&m| m as usize).collect();
        let mut s = self.start;
        let mut last = None;
        for (i, &h) in moves.iter().enumerate() {
            if is_person(s.to_move()) {
                last = Some(i);
            }
            s.apply_unchecked(&self.rules, h);
        }
        match last {
            None => Ok(None),
            Some(i) => Ok(Some((
                Game::replay(self.rules, self.start, &moves[..i])?,
                moves.len() - i,
            ))),
        }
    }
}
