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

/// The end by indetermination: can a capture still happen? (the search behind
/// [`State::capture_reachable`]).
mod indetermination;

use crate::error::{AwaleError, Result};
use crate::rules::{
    CycleRule, Feeding, GrandSlam, Rules, Sowing, Starvation, MAX_PITS, MAX_PLAYERS,
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

/// The outcome rule, the one definition of the crate: for the stores `scores` (one per player),
/// +1 for a sole leader, 0 for players tied for the lead, -1 for the others; entries past
/// `scores.len()` are 0. [`State::returns`], the agents' and the trainer's exact outcomes and
/// the batch's returns all call it.
///
/// ```
/// use awale::outcome_from_scores;
/// assert_eq!(&outcome_from_scores(&[25, 23])[..2], &[1.0, -1.0]);
/// assert_eq!(&outcome_from_scores(&[10, 10, 4])[..3], &[0.0, 0.0, -1.0]);
/// ```
#[inline]
pub fn outcome_from_scores(scores: &[u8]) -> [f32; MAX_PLAYERS] {
    let mut r = [0f32; MAX_PLAYERS];
    let best = scores.iter().copied().max().unwrap_or(0);
    let leaders = scores.iter().filter(|&&s| s == best).count();
    for (x, &s) in r.iter_mut().zip(scores) {
        *x = if s < best {
            -1.0
        } else if leaders == 1 {
            1.0
        } else {
            0.0
        };
    }
    r
}

/// An exact key for repetition detection: the board and the player to move.
pub type PositionKey = (u128, u8);

/// A position: pits, stores, player to move, ply count and status. Small and `Copy`.
/// Serializable (for batch snapshots); a deserialized state is not checked against any rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct State {
    pits: [u8; MAX_PITS],
    scores: [u8; MAX_PLAYERS],
    to_move: u8,
    last_capturer: u8,
    ply: u32,
    status: Status,
}

const NO_CAPTURER: u8 = u8::MAX;

/// 0x01 in each of the 16 bytes of a word of pits.
const ONES: u128 = u128::from_le_bytes([1; MAX_PITS]);

/// `LOW_BYTES[k]`: every bit of bytes `0..k` of a word of pits (a table: 128-bit shifts by a
/// variable amount cost several instructions).
const LOW_BYTES: [u128; MAX_PITS + 1] = {
    let mut t = [0u128; MAX_PITS + 1];
    let mut k = 1;
    while k <= MAX_PITS {
        t[k] = u128::MAX >> (8 * (MAX_PITS - k));
        k += 1;
    }
    t
};

/// Every bit of bytes `lo..hi` (`lo <= hi <= 16`).
#[inline(always)]
fn byte_range(lo: usize, hi: usize) -> u128 {
    LOW_BYTES[hi] & !LOW_BYTES[lo]
}

/// The bytes of the board's pits.
#[inline(always)]
fn board_mask(rules: &Rules) -> u128 {
    LOW_BYTES[rules.pits()]
}

/// The bytes of `player`'s row.
#[inline(always)]
fn row_mask(rules: &Rules, player: usize) -> u128 {
    let h = rules.houses as usize;
    byte_range(player * h, (player + 1) * h)
}

/// Sum of the 16 bytes of `x`, exact when the sum is at most 255 (always the case for pits: the
/// rules cap the seeds in play at 255, so no partial sum carries).
#[inline(always)]
fn byte_sum(x: u128) -> u32 {
    let s = (x as u64).wrapping_add((x >> 64) as u64);
    (s.wrapping_mul(0x0101_0101_0101_0101) >> 56) as u32
}

impl State {
    /// The start position with `first` to move (`first` is used only when the rules draw the
    /// first player at random; otherwise the rules' fixed first player moves).
    pub fn initial(rules: &Rules, first: usize) -> State {
        let mut pits = [0u8; MAX_PITS];
        pits[..rules.pits()].fill(rules.seeds);
        let to_move = rules
            .first_player
            .pick(rules.players as usize, |n| first % n) as u8;
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
            return Err(format!(
                "expected {} pits, got {}",
                rules.pits(),
                pits.len()
            ));
        }
        if scores.len() != rules.players as usize {
            return Err(format!(
                "expected {} scores, got {}",
                rules.players,
                scores.len()
            ));
        }
        if to_move >= rules.players as usize {
            return Err(format!(
                "player {to_move} does not exist in a {}-player game",
                rules.players
            ));
        }
        if ply == u32::MAX {
            return Err(format!(
                "ply {ply} leaves no room for another move (at most {})",
                u32::MAX - 1
            ));
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

    /// Whether this position can belong to a game under `rules`: its pits and stores hold the
    /// rules' seed total, the pits and stores past the rules' board are empty, and the player
    /// to move exists. A deserialized state should be checked before it is played.
    ///
    /// ```
    /// use awale::{Rules, State};
    /// let abapa = Rules::abapa();
    /// let three: Rules = "abapa:seeds=3".parse().unwrap();
    /// assert!(State::initial(&abapa, 0).fits(&abapa));
    /// assert!(!State::initial(&abapa, 0).fits(&three)); // 48 seeds where 36 are played
    /// ```
    pub fn fits(&self, rules: &Rules) -> bool {
        let n = rules.pits();
        let p = rules.players as usize;
        let seeds: u32 = self.pits[..n]
            .iter()
            .chain(&self.scores[..p])
            .map(|&x| u32::from(x))
            .sum();
        let unused =
            self.pits[n..].iter().any(|&x| x != 0) || self.scores[p..].iter().any(|&x| x != 0);
        seeds == rules.total_seeds() && !unused && self.to_move() < p
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
        byte_sum(self.bits() & board_mask(rules))
    }

    /// Seeds on `player`'s side.
    #[inline]
    pub fn row_seeds(&self, rules: &Rules, player: usize) -> u32 {
        byte_sum(self.bits() & row_mask(rules, player))
    }

    /// The pits as one 128-bit word, pit `i` in byte `i` (little-endian), for word-at-a-time
    /// ("SWAR") arithmetic: a valid position never holds more than 255 seeds in all (the rules
    /// cap the total), so bytewise sums never carry into the next pit.
    #[inline(always)]
    fn bits(&self) -> u128 {
        u128::from_le_bytes(self.pits)
    }

    /// Bit `i` set when pit `i` holds `low..=high` seeds (all 16 pits; `low <= high`).
    #[inline(always)]
    fn pits_in_range(&self, low: u8, high: u8) -> u16 {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{
                __m128i, _mm_cmpeq_epi8, _mm_min_epu8, _mm_movemask_epi8, _mm_set1_epi8,
                _mm_sub_epi8,
            };
            // SAFETY: as in `nonempty_pits`. `c - low` wraps below `low`, so one unsigned
            // comparison with `high - low` tests both bounds.
            let m = unsafe {
                let v = std::arch::x86_64::_mm_loadu_si128(self.pits.as_ptr() as *const __m128i);
                let x = _mm_sub_epi8(v, _mm_set1_epi8(low as i8));
                _mm_movemask_epi8(_mm_cmpeq_epi8(
                    _mm_min_epu8(x, _mm_set1_epi8(high.wrapping_sub(low) as i8)),
                    x,
                ))
            };
            m as u16
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let mut m = 0u16;
            for (i, &c) in self.pits.iter().enumerate() {
                m |= u16::from(c >= low && c <= high) << i;
            }
            m
        }
    }

    /// Bit `i` set when pit `i` holds seeds (all 16 pits).
    #[inline(always)]
    fn nonempty_pits(&self) -> u16 {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{
                __m128i, _mm_cmpeq_epi8, _mm_movemask_epi8, _mm_setzero_si128,
            };
            // SAFETY: SSE2 is part of the x86_64 baseline, and `pits` is 16 readable bytes (the
            // load is unaligned).
            let empty = unsafe {
                let v = std::arch::x86_64::_mm_loadu_si128(self.pits.as_ptr() as *const __m128i);
                _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128()))
            };
            !(empty as u16)
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let mut m = 0u16;
            for (i, &c) in self.pits.iter().enumerate() {
                m |= u16::from(c != 0) << i;
            }
            m
        }
    }

    /// The key used to detect repeated positions.
    #[inline]
    pub fn key(&self) -> PositionKey {
        (u128::from_le_bytes(self.pits), self.to_move)
    }

    /// Legal moves as a bit mask: bit `h` is set when house `h` of the mover may be played.
    /// Zero when the game is over.
    #[inline]
    pub fn legal_mask(&self, rules: &Rules) -> u16 {
        if self.status != Status::Ongoing {
            return 0;
        }
        let h = rules.houses as usize;
        let row = (1u16 << h) - 1;
        let nonempty = self.nonempty_pits();
        let mask = (nonempty >> (self.to_move as usize * h)) & row;
        if rules.sowing == Sowing::Relay {
            return mask;
        }
        let starved = (nonempty >> ((1 - self.to_move as usize) * h)) & row == 0;
        if (starved && rules.feeding == Feeding::Required)
            || rules.grand_slam == GrandSlam::Forbidden
        {
            return self.restricted_mask(rules, mask, starved);
        }
        mask
    }

    /// The rarer part of [`State::legal_mask`] (single sowing): the feeding obligation when the
    /// opponent is `starved`, and forbidden grand slams. `mask` holds the non-empty houses.
    #[inline(never)]
    fn restricted_mask(&self, rules: &Rules, mut mask: u16, starved: bool) -> u16 {
        let h = rules.houses as usize;
        let base = self.to_move as usize * h;
        if rules.feeding == Feeding::Required && starved {
            let mut feeding = 0u16;
            for i in 0..h {
                if self.pits[base + i] as usize >= h - i {
                    feeding |= 1 << i;
                }
            }
            mask = feeding;
        }
        if rules.grand_slam == GrandSlam::Forbidden && mask != 0 {
            let slams = self.grand_slams(rules, mask);
            // Forbidden unless every move is one.
            if slams != mask {
                mask &= !slams;
            }
        }
        mask
    }

    /// Which moves of `mask` (single sowing) are grand slams, i.e. capture every seed of the
    /// opponent's row.
    ///
    /// A move of `s` seeds from house `i` that does not lap the board sows one seed into each
    /// of the opponent's pits `0..=j`, `j = s + i - houses`, and ends in pit `j`. It then
    /// takes them all exactly when each of those pits reaches the capture range and every pit
    /// after `j` is empty; so the grand slams are the moves with `lo <= j < t`, where `t`
    /// counts the opponent's first pits one seed short of the range and `lo` is his last
    /// non-empty pit. Moves that lap the board are played out on a copy.
    #[inline]
    fn grand_slams(&self, rules: &Rules, mask: u16) -> u16 {
        let h = rules.houses as usize;
        let base = self.to_move as usize * h;
        let other = (1 - self.to_move as usize) * h;
        let ring = if rules.skip_origin { 2 * h - 1 } else { 2 * h };
        let (low, high) = (
            rules.capture_min.saturating_sub(1),
            rules.capture_max.saturating_sub(1),
        );
        let row = (1u16 << h) - 1;
        let short = (self.pits_in_range(low, high) >> other) & row;
        let nonempty = (self.nonempty_pits() >> other) & row;
        let t = (!short).trailing_zeros() as usize;
        let lo = (16 - nonempty.leading_zeros() as usize).saturating_sub(1);
        // Moves that lap the board are rare: played out, unless one of the opponent's pits
        // already holds `capture_max` (a lap adds at least one seed to each).
        let lapping = (self.pits_in_range(ring as u8, u8::MAX) >> base) & mask;
        let full = (self.pits_in_range(rules.capture_max, u8::MAX) >> other) & row;
        let mut slams = 0u16;
        let mut moves = if full == 0 { lapping } else { 0 };
        while moves != 0 {
            let i = moves.trailing_zeros() as usize;
            moves &= moves - 1;
            let mut probe = *self;
            let last = probe.sow_single(rules, base + i);
            slams |= u16::from(probe.capture_run(rules, last).1) << i;
        }
        // The others: usually `t <= lo` (the opponent's row is not shaped for a grand slam).
        if t > lo {
            let mut moves = mask & !lapping;
            while moves != 0 {
                let i = moves.trailing_zeros() as usize;
                moves &= moves - 1;
                let s = self.pits[base + i] as usize;
                slams |= u16::from(s + i >= h + lo && s + i < h + t) << i;
            }
        }
        slams
    }

    /// Legal moves as a list of house indices.
    pub fn legal_moves(&self, rules: &Rules) -> Vec<usize> {
        let m = self.legal_mask(rules);
        (0..rules.houses as usize)
            .filter(|i| m & (1 << i) != 0)
            .collect()
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
            Some(
                if rules.grand_slam == GrandSlam::Forbidden && self.row_seeds(rules, 1 - player) > 0
                {
                    "a grand slam is forbidden while another move exists"
                } else {
                    "the opponent has no seeds and this move does not feed him"
                },
            )
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
            let next = self.to_move + 1;
            self.to_move = if next >= rules.players { 0 } else { next };
            self.begin_turn(rules);
        }
        info
    }

    /// Sows the seeds of `origin` (single sowing) and returns the last pit sown.
    #[inline]
    fn sow_single(&mut self, rules: &Rules, origin: usize) -> usize {
        let n = rules.pits();
        let seeds = self.pits[origin] as usize;
        // Emptying the origin in a register, not in memory: a byte store followed by the wide
        // load of the whole board would stall the load until the store is written back.
        let mut bits = self.bits() & !byte_range(origin, origin + 1);
        let ring = if rules.skip_origin { n - 1 } else { n };
        let (laps, rem) = if seeds < ring {
            (0, seeds)
        } else {
            (seeds / ring, seeds % ring)
        };
        if laps > 0 {
            bits += laps as u128 * (ONES & LOW_BYTES[n]);
            if rules.skip_origin {
                bits &= !byte_range(origin, origin + 1);
            }
        }
        // The other `rem` seeds go one each into the pits after the origin, wrapping from the last
        // pit to pit 0; as `rem < ring` they never reach the origin again. Bytes never carry.
        let first = rem.min(n - 1 - origin);
        bits += ONES & (byte_range(origin + 1, origin + 1 + first) | LOW_BYTES[rem - first]);
        self.pits = bits.to_le_bytes();
        if rem == 0 {
            // The last seed went into the pit just before the origin (skipping) or the origin.
            if !rules.skip_origin {
                origin
            } else if origin == 0 {
                n - 1
            } else {
                origin - 1
            }
        } else {
            // Without a branch: wrapping or not is as unpredictable as the board.
            let last = origin + rem;
            last - n * usize::from(last >= n)
        }
    }

    /// The player who owns pit `pit` (a compare instead of a division in 2-player games).
    #[inline(always)]
    fn owner_of(rules: &Rules, pit: usize) -> usize {
        let h = rules.houses as usize;
        if rules.players == 2 {
            usize::from(pit >= h)
        } else {
            pit / h
        }
    }

    /// The backward capture run ending at `last`: (seeds it would take, is it a grand slam).
    #[inline]
    fn capture_run(&self, rules: &Rules, last: usize) -> (u8, bool) {
        let h = rules.houses as usize;
        let victim = Self::owner_of(rules, last);
        let (min, max) = (rules.capture_min, rules.capture_max);
        // Most moves capture nothing: one branch (`|`, not `||`) decides it, as both tests are
        // unpredictable.
        if (victim == self.to_move as usize) | !(min..=max).contains(&self.pits[last]) {
            return (0, false);
        }
        let lo = victim * h;
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
        (taken as u8, taken == self.row_seeds(rules, victim))
    }

    #[inline]
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
        let lo = Self::owner_of(rules, last) * rules.houses as usize;
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
    #[inline]
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
                let h = rules.houses as usize;
                let row = (1u16 << h) - 1;
                let nonempty = self.nonempty_pits();
                while (nonempty >> (self.to_move as usize * h)) & row == 0 {
                    let next = self.to_move + 1;
                    self.to_move = if next >= rules.players { 0 } else { next };
                }
            }
        }
        if self.status == Status::Ongoing && rules.max_plies > 0 && self.ply >= rules.max_plies {
            self.status = Status::Truncated;
        }
    }

    #[inline]
    fn begin_turn_single(&mut self, rules: &Rules) {
        let me = self.to_move as usize;
        let other = 1 - me;
        if rules.win_threshold > 0
            && (self.scores[0] >= rules.win_threshold || self.scores[1] >= rules.win_threshold)
        {
            return self.end(rules, EndReason::Threshold);
        }
        let h = rules.houses as usize;
        let row = (1u16 << h) - 1;
        let nonempty = self.nonempty_pits();
        if (nonempty >> (me * h)) & row == 0 {
            return self.end_starved(rules, other, me, EndReason::Starvation);
        }
        if rules.feeding == Feeding::Required
            && (nonempty >> (other * h)) & row == 0
            && !(0..h).any(|i| self.pits[me * h + i] as usize >= h - i)
        {
            return self.end_starved(rules, me, other, EndReason::CannotFeed);
        }
        if rules.indetermination > 0 && self.board_seeds(rules) <= rules.indetermination as u32 {
            self.check_indetermination(rules);
        }
    }

    /// Ends the game by starvation of `starved` (see [`State::starve`]).
    #[cold]
    #[inline(never)]
    fn end_starved(&mut self, rules: &Rules, feeder: usize, starved: usize, reason: EndReason) {
        self.starve(rules, feeder, starved);
        self.end(rules, reason);
    }

    /// Ends the game by indetermination when no capture can ever happen again.
    #[inline(never)]
    fn check_indetermination(&mut self, rules: &Rules) {
        if !self.capture_reachable(rules) {
            self.each_takes_own(rules);
            self.end(rules, EndReason::Indetermination);
        }
    }

    #[cold]
    #[inline(never)]
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

    /// Whether this position, once it repeats, ends the game under `rules`: never under
    /// [`CycleRule::Ignore`]; with [`Rules::cycle_needs_seeds`], only when every player has at
    /// least one seed on his side (`000`: « Si un cycle infini de déplacements se produit … et
    /// que les deux joueurs ont au moins 1 graine à leur côté »); otherwise always. Every
    /// repetition check of the crate (the game's history, the batch, the searches) asks this.
    ///
    /// ```
    /// use awale::{Rules, State};
    /// let abapa = Rules::abapa();
    /// let s = State::from_parts(&abapa, &[0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], &[23, 23], 1, 0)
    ///     .unwrap();
    /// assert!(!s.repetition_ends(&abapa)); // South's row is empty: play goes on
    /// assert!(s.repetition_ends(&Rules::openspiel()));
    /// ```
    #[inline]
    pub fn repetition_ends(&self, rules: &Rules) -> bool {
        if rules.cycle == CycleRule::Ignore {
            return false;
        }
        if !rules.cycle_needs_seeds {
            return true;
        }
        let h = rules.houses as usize;
        let row = (1u16 << h) - 1;
        let nonempty = self.nonempty_pits();
        (0..rules.players as usize).all(|p| (nonempty >> (p * h)) & row != 0)
    }

    /// Ends the game because its position repeated, applying the rules' cycle rule. Does nothing
    /// when a repetition of this position does not end the game ([`State::repetition_ends`]).
    pub fn end_by_repetition(&mut self, rules: &Rules) {
        if !self.repetition_ends(rules) {
            return;
        }
        match rules.cycle {
            CycleRule::Ignore => return,
            CycleRule::EachTakesOwn => self.each_takes_own(rules),
            CycleRule::Split => {
                let n = rules.players as usize;
                let left = self.board_seeds(rules) as usize;
                // A fixed array (and the allocation-free small-slice sort): no allocation.
                let mut order = [0usize; MAX_PLAYERS];
                for (k, o) in order[..n].iter_mut().enumerate() {
                    *o = (self.to_move as usize + k) % n;
                }
                order[..n].sort_by_key(|&p| std::cmp::Reverse(self.row_seeds(rules, p)));
                self.pits[..rules.pits()].fill(0);
                for (k, &p) in order[..n].iter().enumerate() {
                    self.scores[p] += (left / n + usize::from(k < left % n)) as u8;
                }
            }
        }
        self.status = Status::Ended(EndReason::Repetition);
    }

    /// Exact search: can any sequence of legal moves from here lead to a capture? Used for the
    /// end by indetermination, only with few seeds on the board.
    ///
    /// The search lives in its own module (`src/engine/state/indetermination.rs`, a part of the
    /// state's rule of the end). For single sowing with at
    /// most `rules.indetermination` seeds on the board, the answer is looked up in a table of
    /// every such position, built on first use and shared by all threads (`awale`, limit 12: a
    /// table of the 587,860 positions of up to 9 seeds, the search above); the table is keyed only by the rules of play and the seed
    /// limit, and at most four are kept. When the positions under the limit are more than 2^20
    /// the table covers the largest seed count that fits. Otherwise (more seeds, relay sowing)
    /// it is a depth-first walk of the positions reachable without a capture, with per-thread
    /// buffers reused from call to call (no allocation once warm) and a per-thread memo of
    /// answers (direct-mapped, 16,384 positions) kept while the rules of play stay the same.
    pub fn capture_reachable(&self, rules: &Rules) -> bool {
        indetermination::capture_reachable(self, rules)
    }

    /// A position of the capture search (`indetermination`): `pits`, `to_move`, empty
    /// stores, ply 0, with the ends of the start of a turn checked under `rules`.
    pub(crate) fn search_position(rules: &Rules, pits: [u8; MAX_PITS], to_move: usize) -> State {
        let mut s = State {
            pits,
            scores: [0; MAX_PLAYERS],
            to_move: to_move as u8,
            last_capturer: NO_CAPTURER,
            ply: 0,
            status: Status::Ongoing,
        };
        s.begin_turn(rules);
        s
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

    /// Final returns per player ([`outcome_from_scores`] of the stores once the game ended by
    /// the rules): +1 for a sole winner, -1 for everyone not among the winners, 0 for players
    /// tied for first. All zero while the game goes on or when it was truncated.
    pub fn returns(&self, rules: &Rules) -> [f32; MAX_PLAYERS] {
        if !matches!(self.status, Status::Ended(_)) {
            return [0f32; MAX_PLAYERS];
        }
        outcome_from_scores(&self.scores[..rules.players as usize])
    }

    /// The result by the stores as they stand, whether or not the game has ended
    /// ([`outcome_from_scores`]): a finished game's [`State::returns`], and for one cut off by
    /// a ply limit (a playout, a search's horizon) its adjudication by the seeds captured.
    ///
    /// ```
    /// use awale::{Rules, State};
    /// let rules = Rules::abapa();
    /// let pits = [4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 0]; // 44 seeds on the board, 4 captured
    /// let s = State::from_parts(&rules, &pits, &[3, 1], 0, 0).unwrap();
    /// assert_eq!(&s.outcome_by_stores(&rules)[..2], &[1.0, -1.0]);
    /// assert_eq!(&s.returns(&rules)[..2], &[0.0, 0.0]); // the game goes on
    /// ```
    pub fn outcome_by_stores(&self, rules: &Rules) -> [f32; MAX_PLAYERS] {
        outcome_from_scores(&self.scores[..rules.players as usize])
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

/// The fast paths above against the straightforward code they replace, on random positions.
#[cfg(test)]
mod fast_path_tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Rule sets that exercise every branch of the fast paths.
    fn rule_sets() -> Vec<Rules> {
        [
            "abapa",
            "awale",
            "wari",
            "awale:skip_origin=false",
            "awale:capture=1-4",
            "awale:houses=4,seeds=6",
            "awale:houses=8,seeds=3",
            "abapa:grand_slam=capture_all",
            "oware2",
            "oware3",
            "oware4",
            "oware6",
        ]
        .iter()
        .map(|s| s.parse().unwrap())
        .collect()
    }

    /// A random position of `rules` (any status), with at most `most` seeds on the board.
    fn random_state(rules: &Rules, rng: &mut ChaCha8Rng, most: u32) -> State {
        let n = rules.pits();
        let total = rules.total_seeds();
        let on_board = rng.random_range(0..=most.min(total));
        let mut pits = vec![0u8; n];
        for _ in 0..on_board {
            pits[rng.random_range(0..n)] += 1;
        }
        let mut scores = vec![0u8; rules.players as usize];
        scores[0] = (total - on_board) as u8;
        let to_move = rng.random_range(0..rules.players as usize);
        State::from_parts(rules, &pits, &scores, to_move, 0).unwrap()
    }

    /// The sowing as first written: one seed at a time.
    fn naive_sow(s: &mut State, rules: &Rules, origin: usize) -> usize {
        let n = rules.pits();
        let seeds = s.pits[origin] as usize;
        s.pits[origin] = 0;
        let ring = if rules.skip_origin { n - 1 } else { n };
        let (laps, rem) = (seeds / ring, seeds % ring);
        for p in s.pits[..n].iter_mut() {
            *p += laps as u8;
        }
        if laps > 0 && rules.skip_origin {
            s.pits[origin] = 0;
        }
        let mut p = origin;
        for _ in 0..rem {
            p = (p + 1) % n;
            s.pits[p] += 1;
        }
        if rem == 0 {
            p = if rules.skip_origin {
                (origin + n - 1) % n
            } else {
                origin
            };
        }
        p
    }

    /// The exact search as first written: a `HashSet` and `legal_mask` at every node.
    fn naive_capture_reachable(s: &State, rules: &Rules) -> bool {
        let probe = Rules {
            indetermination: 0,
            win_threshold: 0,
            max_plies: 0,
            sweep_on_end: false,
            ..*rules
        };
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![*s];
        seen.insert(s.key());
        while let Some(s) = stack.pop() {
            let mask = s.legal_mask(&probe);
            for i in 0..rules.houses as usize {
                if mask & (1 << i) != 0 {
                    let mut next = s;
                    if next.apply_unchecked(&probe, i).any_captured > 0 {
                        return true;
                    }
                    if next.status == Status::Ongoing && seen.insert(next.key()) {
                        stack.push(next);
                    }
                }
            }
        }
        false
    }

    #[test]
    fn sums_masks_and_sowing_match_naive_code() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for rules in rule_sets() {
            let (n, h) = (rules.pits(), rules.houses as usize);
            for _ in 0..3000 {
                let s = random_state(&rules, &mut rng, rules.total_seeds());
                let board: u32 = s.pits[..n].iter().map(|&c| c as u32).sum();
                assert_eq!(s.board_seeds(&rules), board);
                for p in 0..rules.players as usize {
                    let row: u32 = s.pits[p * h..(p + 1) * h].iter().map(|&c| c as u32).sum();
                    assert_eq!(s.row_seeds(&rules, p), row);
                }
                let (low, high) = (rng.random_range(0..5u8), rng.random_range(4..9u8));
                for i in 0..MAX_PITS {
                    let c = s.pits[i];
                    assert_eq!(s.nonempty_pits() >> i & 1 == 1, c != 0);
                    assert_eq!(
                        s.pits_in_range(low, high) >> i & 1 == 1,
                        (low..=high).contains(&c)
                    );
                }
                for origin in (0..n).filter(|&o| s.pits[o] > 0) {
                    let (mut fast, mut slow) = (s, s);
                    let last = fast.sow_single(&rules, origin);
                    assert_eq!(last, naive_sow(&mut slow, &rules, origin), "{s:?} {origin}");
                    assert_eq!(fast.pits, slow.pits, "{s:?} {origin}");
                }
            }
        }
    }

    #[test]
    fn grand_slam_test_matches_playing_the_move() {
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        let mut found = 0;
        for rules in rule_sets()
            .into_iter()
            .filter(|r| r.sowing == Sowing::Single)
        {
            let h = rules.houses as usize;
            for k in 0..20_000 {
                // Mostly sparse boards, where grand slams happen.
                let most = if k % 4 == 0 { rules.total_seeds() } else { 12 };
                let s = random_state(&rules, &mut rng, most);
                if s.to_move > 1 {
                    continue;
                }
                let base = s.to_move as usize * h;
                let mask = (s.nonempty_pits() >> base) & ((1 << h) - 1);
                let mut expected = 0u16;
                for i in (0..h).filter(|&i| mask & (1 << i) != 0) {
                    let mut probe = s;
                    let last = naive_sow(&mut probe, &rules, base + i);
                    expected |= u16::from(probe.capture_run(&rules, last).1) << i;
                }
                assert_eq!(s.grand_slams(&rules, mask), expected, "{rules} {s:?}");
                found += expected.count_ones();
            }
        }
        assert!(found > 1000, "too few grand slams tried: {found}");
    }

    #[test]
    fn capture_search_matches_naive_search() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let mut answers = [0; 2];
        // The first three have a table; the last has too many positions for one (plain search
        // with the memo).
        for spec in [
            "awale",
            "awale:skip_origin=false,indetermination=5",
            "abapa:indetermination=4,capture=1-2",
            "awale:indetermination=10",
        ] {
            let rules: Rules = spec.parse().unwrap();
            // Positions set up without the end by indetermination (nor the threshold: the
            // stores hold most seeds), so that they are ongoing.
            let setup = Rules {
                indetermination: 0,
                win_threshold: 0,
                ..rules
            };
            for _ in 0..4000 {
                let s = random_state(&setup, &mut rng, rules.indetermination as u32 + 1);
                if s.is_over() {
                    continue;
                }
                let answer = s.capture_reachable(&rules);
                assert_eq!(answer, naive_capture_reachable(&s, &rules), "{spec} {s:?}");
                answers[usize::from(answer)] += 1;
            }
        }
        assert!(answers[0] > 500 && answers[1] > 500, "{answers:?}");
    }
}
