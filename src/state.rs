//! The engine: a position as a flat, `Copy` struct and the pure transition functions that every
//! other part of the crate (games, batches, agents, bindings) goes through.
//!
//! Pits are numbered 0.. in sowing (counter-clockwise) order; player `p` owns pits
//! `p*houses .. (p+1)*houses`. A move is a house index `0..houses` in the mover's own row
//! (house 0 is `A`, the first pit of the row in sowing order).
//!
//! ```
//! use awale::{Rules, State};
//! let rules = Rules::abapa();
//! let mut s = State::initial(&rules, 0);
//! assert_eq!(s.legal_mask(&rules), 0b111111);
//! s.apply(&rules, 2).unwrap(); // C: sow 4 seeds from house C into D, E, F, a
//! assert_eq!(&s.pits()[..12], &[4, 4, 0, 5, 5, 5, 5, 4, 4, 4, 4, 4]);
//! assert_eq!(s.to_move(), 1);
//! ```

use serde::{Deserialize, Serialize};

use crate::error::{AwaleError, Result};
use crate::rules::{
    CycleRule, Feeding, FirstPlayer, GrandSlam, Rules, Sowing, Starvation, MAX_PITS, MAX_PLAYERS,
};

/// Why a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EndReason {
    /// A player reached the win threshold (25 of 48).
    Threshold,
    /// The player to move had to feed an empty opponent and could not.
    CannotFeed,
    /// The player to move had no seeds (famine / starvation).
    Starvation,
    /// No capture can ever happen again (`001`'s end "by indetermination").
    Indetermination,
    /// A position repeated (a cycle).
    Repetition,
    /// Relay game: few enough seeds were left after a capture (`002`).
    SeedsExhausted,
}

impl EndReason {
    /// A short lowercase name.
    pub fn name(self) -> &'static str {
        match self {
            EndReason::Threshold => "threshold",
            EndReason::CannotFeed => "cannot-feed",
            EndReason::Starvation => "starvation",
            EndReason::Indetermination => "indetermination",
            EndReason::Repetition => "repetition",
            EndReason::SeedsExhausted => "seeds-exhausted",
        }
    }
}

/// Whether a game goes on, has ended, or was cut off by the ply limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Status {
    /// The game goes on.
    Ongoing,
    /// The game ended by the rules.
    Ended(EndReason),
    /// The game reached `max_plies` (a truncation, not an end by the rules).
    Truncated,
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Status::Ongoing => write!(f, "ongoing"),
            Status::Ended(r) => write!(f, "ended by {}", r.name()),
            Status::Truncated => write!(f, "truncated at the ply limit"),
        }
    }
}

/// What one move did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MoveInfo {
    /// Seeds the mover captured.
    pub captured: u8,
    /// Seeds captured by anyone during the move (out-of-turn captures included).
    pub any_captured: u8,
    /// The move was a grand slam (would have taken every opponent seed).
    pub grand_slam: bool,
    /// Relay sowing: how many relays the move made.
    pub relays: u16,
    /// Relay sowing: the move stopped at the relay cap.
    pub relay_capped: bool,
}

/// An exact key for repetition detection: the board and the player to move.
pub type PositionKey = (u128, u8);

/// A position: pits, stores, player to move, ply count and status. Small and `Copy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct State {
    pits: [u8; MAX_PITS],
    scores: [u8; MAX_PLAYERS],
    to_move: u8,
    last_capturer: u8,
    ply: u32,
    status: Status,
}

const NO_CAPTURER: u8 = u8::MAX;

impl State {
    /// The start position with `first` to move (`first` is used only when the rules draw the
    /// first player at random; otherwise the rules' fixed first player moves).
    pub fn initial(rules: &Rules, first: usize) -> State {
        let mut pits = [0u8; MAX_PITS];
        pits[..rules.pits()].fill(rules.seeds);
        let to_move = match rules.first_player {
            FirstPlayer::Fixed(p) => p,
            FirstPlayer::Random => (first % rules.players as usize) as u8,
        };
        let mut s = State {
            pits,
            scores: [0; MAX_PLAYERS],
            to_move,
            last_capturer: NO_CAPTURER,
            ply: 0,
            status: Status::Ongoing,
        };
        s.begin_turn(rules);
        s
    }

    /// A position from its parts, checked: pits and scores must fit the rules and add up to the
    /// rules' seed total. The status is computed as at the start of a turn.
    pub fn from_parts(
        rules: &Rules,
        pits: &[u8],
        scores: &[u8],
        to_move: usize,
        ply: u32,
    ) -> std::result::Result<State, String> {
        if pits.len() != rules.pits() {
            return Err(format!("expected {} pits, got {}", rules.pits(), pits.len()));
        }
        if scores.len() != rules.players as usize {
            return Err(format!("expected {} scores, got {}", rules.players, scores.len()));
        }
        if to_move >= rules.players as usize {
            return Err(format!("player {to_move} does not exist in a {}-player game", rules.players));
        }
        let total: u32 = pits.iter().chain(scores).map(|&x| x as u32).sum();
        if total != rules.total_seeds() {
            return Err(format!(
                "pits and stores hold {total} seeds but these rules play with {}",
                rules.total_seeds()
            ));
        }
        let mut s = State {
            pits: [0; MAX_PITS],
            scores: [0; MAX_PLAYERS],
            to_move: to_move as u8,
            last_capturer: NO_CAPTURER,
            ply,
            status: Status::Ongoing,
        };
        s.pits[..pits.len()].copy_from_slice(pits);
        s.scores[..scores.len()].copy_from_slice(scores);
        s.begin_turn(rules);
        Ok(s)
    }

    /// Seeds in each pit (only the first `rules.pits()` entries are used).
    #[inline]
    pub fn pits(&self) -> &[u8; MAX_PITS] {
        &self.pits
    }

    /// Each player's store (captured seeds); only the first `rules.players` are used.
    #[inline]
    pub fn scores(&self) -> &[u8; MAX_PLAYERS] {
        &self.scores
    }

    /// The player to move (0-based).
    #[inline]
    pub fn to_move(&self) -> usize {
        self.to_move as usize
    }

    /// Plies (moves) played so far.
    #[inline]
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// Whether the game goes on, ended, or was truncated.
    #[inline]
    pub fn status(&self) -> Status {
        self.status
    }

    /// True once the game ended by the rules or was truncated.
    #[inline]
    pub fn is_over(&self) -> bool {
        self.status != Status::Ongoing
    }

    /// Seeds still on the board.
    #[inline]
    pub fn board_seeds(&self, rules: &Rules) -> u32 {
        self.pits[..rules.pits()].iter().map(|&x| x as u32).sum()
    }

    /// Seeds on `player`'s side.
    #[inline]
    pub fn row_seeds(&self, rules: &Rules, player: usize) -> u32 {
        let h = rules.houses as usize;
        self.pits[player * h..(player + 1) * h].iter().map(|&x| x as u32).sum()
    }

    /// The key used to detect repeated positions.
    #[inline]
    pub fn key(&self) -> PositionKey {
        (u128::from_le_bytes(self.pits), self.to_move)
    }

    /// Legal moves as a bit mask: bit `h` is set when house `h` of the mover may be played.
    /// Zero when the game is over.
    pub fn legal_mask(&self, rules: &Rules) -> u16 {
        if self.status != Status::Ongoing {
            return 0;
        }
        let h = rules.houses as usize;
        let base = self.to_move as usize * h;
        let mut mask = 0u16;
        for i in 0..h {
            if self.pits[base + i] > 0 {
                mask |= 1 << i;
            }
        }
        if rules.sowing == Sowing::Relay {
            return mask;
        }
        if rules.feeding == Feeding::Required && self.row_seeds(rules, 1 - self.to_move as usize) == 0 {
            let mut feeding = 0u16;
            for i in 0..h {
                if self.pits[base + i] as usize >= h - i {
                    feeding |= 1 << i;
                }
            }
            mask = feeding;
        }
        if rules.grand_slam == GrandSlam::Forbidden && mask != 0 {
            let mut ok = 0u16;
            for i in 0..h {
                if mask & (1 << i) != 0 {
                    let mut probe = *self;
                    let last = probe.sow_single(rules, base + i);
                    if !probe.capture_run(rules, last).1 {
                        ok |= 1 << i;
                    }
                }
            }
            if ok != 0 {
                mask = ok;
            }
        }
        mask
    }

    /// Legal moves as a list of house indices.
    pub fn legal_moves(&self, rules: &Rules) -> Vec<usize> {
        let m = self.legal_mask(rules);
        (0..rules.houses as usize).filter(|i| m & (1 << i) != 0).collect()
    }

    /// Plays house `house` of the player to move, or says why it cannot be played (the state is
    /// then unchanged).
    pub fn apply(&mut self, rules: &Rules, house: usize) -> Result<MoveInfo> {
        if let Status::Ended(r) = self.status {
            return Err(AwaleError::GameOver(format!("ended by {}", r.name())));
        }
        if self.status == Status::Truncated {
            return Err(AwaleError::GameOver("truncated at the ply limit".into()));
        }
        let player = self.to_move as usize;
        let reason = if house >= rules.houses as usize {
            Some("no such house")
        } else if self.pits[player * rules.houses as usize + house] == 0 {
            Some("the house is empty")
        } else if self.legal_mask(rules) & (1 << house) == 0 {
            Some(if rules.grand_slam == GrandSlam::Forbidden
                && self.row_seeds(rules, 1 - player) > 0
            {
                "a grand slam is forbidden while another move exists"
            } else {
                "the opponent has no seeds and this move does not feed him"
            })
        } else {
            None
        };
        if let Some(reason) = reason {
            return Err(AwaleError::IllegalMove {
                player,
                house,
                reason,
            });
        }
        Ok(self.apply_unchecked(rules, house))
    }

    /// Plays a move known to be legal (see [`State::legal_mask`]). Playing an illegal move here
    /// leaves a valid but meaningless position; use [`State::apply`] for checked play.
    #[inline]
    pub fn apply_unchecked(&mut self, rules: &Rules, house: usize) -> MoveInfo {
        let origin = self.to_move as usize * rules.houses as usize + house;
        let info = match rules.sowing {
            Sowing::Single => self.play_single(rules, origin),
            Sowing::Relay => self.play_relay(rules, origin),
        };
        self.ply += 1;
        if self.status == Status::Ongoing {
            self.to_move = ((self.to_move as usize + 1) % rules.players as usize) as u8;
            self.begin_turn(rules);
        }
        info
    }

    /// Sows the seeds of `origin` (single sowing) and returns the last pit sown.
    #[inline]
    fn sow_single(&mut self, rules: &Rules, origin: usize) -> usize {
        let n = rules.pits();
        let seeds = self.pits[origin] as usize;
        self.pits[origin] = 0;
        let ring = if rules.skip_origin { n - 1 } else { n };
        let (laps, rem) = (seeds / ring, seeds % ring);
        if laps > 0 {
            for p in self.pits[..n].iter_mut() {
                *p += laps as u8;
            }
            if rules.skip_origin {
                self.pits[origin] = 0;
            }
        }
        let mut p = origin;
        for _ in 0..rem {
            p += 1;
            if p == n {
                p = 0;
            }
            self.pits[p] += 1;
        }
        if rem == 0 {
            // The last seed went into the pit just before the origin (skipping) or the origin.
            p = if rules.skip_origin { (origin + n - 1) % n } else { origin };
        }
        p
    }

    /// The backward capture run ending at `last`: (seeds it would take, is it a grand slam).
    #[inline]
    fn capture_run(&self, rules: &Rules, last: usize) -> (u8, bool) {
        let h = rules.houses as usize;
        let victim = last / h;
        if victim == self.to_move as usize {
            return (0, false);
        }
        let lo = victim * h;
        let (min, max) = (rules.capture_min, rules.capture_max);
        let mut taken = 0u32;
        let mut i = last;
        loop {
            let c = self.pits[i];
            if c < min || c > max {
                break;
            }
            taken += c as u32;
            if i == lo {
                break;
            }
            i -= 1;
        }
        if taken == 0 {
            return (0, false);
        }
        let row: u32 = self.pits[lo..lo + h].iter().map(|&x| x as u32).sum();
        (taken as u8, taken == row)
    }

    fn play_single(&mut self, rules: &Rules, origin: usize) -> MoveInfo {
        let last = self.sow_single(rules, origin);
        let (taken, slam) = self.capture_run(rules, last);
        let mut info = MoveInfo {
            grand_slam: slam,
            ..MoveInfo::default()
        };
        if taken == 0 || (slam && rules.grand_slam != GrandSlam::CaptureAll) {
            return info;
        }
        let lo = (last / rules.houses as usize) * rules.houses as usize;
        let mut i = last;
        loop {
            let c = self.pits[i];
            if c < rules.capture_min || c > rules.capture_max {
                break;
            }
            self.pits[i] = 0;
            if i == lo {
                break;
            }
            i -= 1;
        }
        self.scores[self.to_move as usize] += taken;
        info.captured = taken;
        info.any_captured = taken;
        info
    }

    fn play_relay(&mut self, rules: &Rules, origin: usize) -> MoveInfo {
        let n = rules.pits();
        let h = rules.houses as usize;
        let mover = self.to_move as usize;
        let (min, max) = (rules.capture_min, rules.capture_max);
        let mut info = MoveInfo::default();
        let mut start = origin;
        let mut pos = origin;
        let mut hand = self.pits[origin] as u32;
        self.pits[origin] = 0;
        loop {
            while hand > 0 {
                pos = if pos + 1 == n { 0 } else { pos + 1 };
                if rules.skip_origin && pos == start {
                    pos = if pos + 1 == n { 0 } else { pos + 1 };
                }
                self.pits[pos] += 1;
                hand -= 1;
                let c = self.pits[pos];
                if hand > 0 && rules.out_of_turn_capture && c >= min && c <= max {
                    let owner = pos / h;
                    self.pits[pos] = 0;
                    self.scores[owner] += c;
                    info.any_captured += c;
                    if owner == mover {
                        info.captured += c;
                    }
                    self.last_capturer = owner as u8;
                    if self.relay_end_check(rules, hand) {
                        return info;
                    }
                }
            }
            let c = self.pits[pos];
            if c == 1 {
                return info;
            }
            if c >= min && c <= max {
                self.pits[pos] = 0;
                self.scores[mover] += c;
                info.captured += c;
                info.any_captured += c;
                self.last_capturer = mover as u8;
                self.relay_end_check(rules, 0);
                return info;
            }
            if info.relays >= rules.relay_cap {
                info.relay_capped = true;
                return info;
            }
            info.relays += 1;
            hand = c as u32;
            self.pits[pos] = 0;
            start = pos;
        }
    }

    /// After a relay capture: ends the game when `end_seeds` or fewer seeds remain in play
    /// (board plus `hand`), giving them to the last capturer. Returns true if it ended.
    fn relay_end_check(&mut self, rules: &Rules, hand: u32) -> bool {
        let left = self.board_seeds(rules) + hand;
        if left > rules.end_seeds as u32 {
            return false;
        }
        self.pits[..rules.pits()].fill(0);
        self.scores[self.last_capturer as usize] += left as u8;
        self.status = Status::Ended(EndReason::SeedsExhausted);
        true
    }

    /// Checks the ends that are decided at the start of a turn, and skips players who cannot
    /// move in the relay game.
    fn begin_turn(&mut self, rules: &Rules) {
        if self.status != Status::Ongoing {
            return;
        }
        match rules.sowing {
            Sowing::Single => self.begin_turn_single(rules),
            Sowing::Relay => {
                if self.board_seeds(rules) == 0 {
                    self.status = Status::Ended(EndReason::SeedsExhausted);
                    return;
                }
                // A player whose holes are all empty passes.
                while self.row_seeds(rules, self.to_move as usize) == 0 {
                    self.to_move = ((self.to_move as usize + 1) % rules.players as usize) as u8;
                }
            }
        }
        if self.status == Status::Ongoing && rules.max_plies > 0 && self.ply >= rules.max_plies {
            self.status = Status::Truncated;
        }
    }

    fn begin_turn_single(&mut self, rules: &Rules) {
        let me = self.to_move as usize;
        let other = 1 - me;
        if rules.win_threshold > 0
            && (self.scores[0] >= rules.win_threshold || self.scores[1] >= rules.win_threshold)
        {
            return self.end(rules, EndReason::Threshold);
        }
        let mine = self.row_seeds(rules, me);
        if mine == 0 {
            self.starve(rules, other, me);
            return self.end(rules, EndReason::Starvation);
        }
        if rules.feeding == Feeding::Required && self.row_seeds(rules, other) == 0 {
            let h = rules.houses as usize;
            let can_feed = (0..h).any(|i| self.pits[me * h + i] as usize >= h - i);
            if !can_feed {
                self.starve(rules, me, other);
                return self.end(rules, EndReason::CannotFeed);
            }
        }
        if rules.indetermination > 0
            && self.board_seeds(rules) <= rules.indetermination as u32
            && !self.capture_reachable(rules)
        {
            self.each_takes_own(rules);
            self.end(rules, EndReason::Indetermination);
        }
    }

    fn end(&mut self, rules: &Rules, reason: EndReason) {
        self.status = Status::Ended(reason);
        if rules.sweep_on_end {
            self.each_takes_own(rules);
        }
    }

    /// Gives every seed on the board to the owner of its row.
    fn each_takes_own(&mut self, rules: &Rules) {
        let h = rules.houses as usize;
        for p in 0..rules.pits() {
            self.scores[p / h] += self.pits[p];
            self.pits[p] = 0;
        }
    }

    /// Resolves a starvation: `feeder` holds the seeds, `starved` has none.
    fn starve(&mut self, rules: &Rules, feeder: usize, starved: usize) {
        let left = self.board_seeds(rules) as u8;
        self.pits[..rules.pits()].fill(0);
        match rules.starvation {
            Starvation::FeederTakesAll => self.scores[feeder] += left,
            Starvation::StarvedTakesAll => self.scores[starved] += left,
            Starvation::StarvedUnlessFew(few) => {
                if left <= few {
                    self.scores[feeder] += left.div_ceil(2);
                    self.scores[starved] += left / 2;
                } else {
                    self.scores[starved] += left;
                }
            }
        }
    }

    /// Ends the game because its position repeated, applying the rules' cycle rule. Does nothing
    /// under [`CycleRule::Ignore`].
    pub fn end_by_repetition(&mut self, rules: &Rules) {
        match rules.cycle {
            CycleRule::Ignore => return,
            CycleRule::EachTakesOwn => self.each_takes_own(rules),
            CycleRule::Split => {
                let n = rules.players as usize;
                let left = self.board_seeds(rules) as usize;
                let mut order: Vec<usize> = (0..n).map(|k| (self.to_move as usize + k) % n).collect();
                order.sort_by_key(|&p| std::cmp::Reverse(self.row_seeds(rules, p)));
                self.pits[..rules.pits()].fill(0);
                for (k, &p) in order.iter().enumerate() {
                    self.scores[p] += (left / n + usize::from(k < left % n)) as u8;
                }
            }
        }
        self.status = Status::Ended(EndReason::Repetition);
    }

    /// Exact search: can any sequence of legal moves from here lead to a capture? Used for the
    /// end by indetermination, only with few seeds on the board.
    pub fn capture_reachable(&self, rules: &Rules) -> bool {
        let probe_rules = Rules {
            indetermination: 0,
            win_threshold: 0,
            max_plies: 0,
            sweep_on_end: false,
            ..*rules
        };
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![*self];
        seen.insert(self.key());
        while let Some(s) = stack.pop() {
            let mask = s.legal_mask(&probe_rules);
            for i in 0..rules.houses as usize {
                if mask & (1 << i) == 0 {
                    continue;
                }
                let mut next = s;
                let info = next.apply_unchecked(&probe_rules, i);
                if info.any_captured > 0 {
                    return true;
                }
                if next.status == Status::Ongoing && seen.insert(next.key()) {
                    stack.push(next);
                }
            }
        }
        false
    }

    /// The player(s) with the highest score, once the game ended by the rules.
    pub fn winners(&self, rules: &Rules) -> Vec<usize> {
        if !matches!(self.status, Status::Ended(_)) {
            return Vec::new();
        }
        let n = rules.players as usize;
        let best = *self.scores[..n].iter().max().unwrap_or(&0);
        (0..n).filter(|&p| self.scores[p] == best).collect()
    }

    /// Final returns per player: +1 for a sole winner, -1 for everyone not among the winners,
    /// 0 for players tied for first. All zero while the game goes on or when it was truncated.
    pub fn returns(&self, rules: &Rules) -> [f32; MAX_PLAYERS] {
        let mut r = [0f32; MAX_PLAYERS];
        let w = self.winners(rules);
        if w.is_empty() {
            return r;
        }
        for (p, x) in r.iter_mut().enumerate().take(rules.players as usize) {
            *x = if !w.contains(&p) {
                -1.0
            } else if w.len() == 1 {
                1.0
            } else {
                0.0
            };
        }
        r
    }

    /// Marks the game truncated (used by callers that impose their own limit).
    pub fn truncate(&mut self) {
        if self.status == Status::Ongoing {
            self.status = Status::Truncated;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(rules: &Rules, pits: &[u8], scores: &[u8], to_move: usize) -> State {
        State::from_parts(rules, pits, scores, to_move, 0).unwrap()
    }

    #[test]
    fn sowing_skips_origin_on_laps() {
        let r = Rules::abapa();
        let mut pits = [0u8; 12];
        pits[0] = 12;
        pits[6] = 36;
        let mut s = pos(&r, &pits, &[0, 0], 0);
        s.apply(&r, 0).unwrap();
        // 12 seeds: one in each of the 11 other pits, the 12th in pit 1.
        assert_eq!(s.pits()[0], 0);
        assert_eq!(s.pits()[1], 2);
        assert_eq!(s.pits()[6], 37);
    }

    #[test]
    fn capture_chain_and_grand_slam() {
        let r = Rules::abapa();
        // South F (pit 5) has 2 seeds, lands in b (pit 7); a=1, b=2 become 2 and 3: capture 5.
        let pits = [0, 0, 0, 0, 0, 2, 1, 2, 5, 0, 0, 0];
        let mut s = pos(&r, &pits, &[20, 18], 0);
        let info = s.apply(&r, 5).unwrap();
        assert_eq!(info.captured, 5);
        assert_eq!(s.scores()[0], 25);
        // The same with c empty would take everything: a grand slam captures nothing.
        let pits = [1, 0, 0, 0, 0, 2, 1, 2, 0, 0, 0, 0];
        let mut s = pos(&r, &pits, &[20, 22], 0);
        let info = s.apply(&r, 5).unwrap();
        assert!(info.grand_slam);
        assert_eq!(info.captured, 0);
        assert_eq!(&s.pits()[6..8], &[2, 3]);
    }
}
