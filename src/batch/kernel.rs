//! The per-board work of a step or reset: everything here runs inside the parallel loop, touches
//! one board and its own rows of the output buffers, and allocates nothing (the repetition
//! history only grows past its preallocated capacity in unusually long capture-free stretches,
//! and keeps that capacity afterwards).

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::config::{Opening, ResetMode};
use super::lanes::Lanes;
use super::observation::{encode, encode_compact_fixed, mask_bytes, ObsEncoding, ObsValue};
use super::opponent::{random_legal, Opponent};
use super::repetition::Log;
use crate::rules::Rules;
use crate::state::{State, Status};

/// Step code: the action is ignored (the board is reset, or its game is already over).
pub(crate) const IGNORE: u8 = 0xFE;
/// Step code: the action was illegal and counts as a loss for the player to move.
pub(crate) const LOSS: u8 = 0xFD;
/// Reset code: leave the board alone.
pub(crate) const KEEP: u8 = 0;
/// Reset code: reset the board.
pub(crate) const RESET: u8 = 1;

/// How many times a reset redraws its random opening and opponent plies when they end the game
/// before the caller's first move.
const RESET_ATTEMPTS: usize = 64;

/// Read-only settings shared by every board.
pub(crate) struct Ctx<'a> {
    pub(crate) rules: Rules,
    pub(crate) enc: ObsEncoding,
    /// Per-feature scales of the observations ([`super::ObsScale::Network`]); empty: raw.
    pub(crate) scale: &'a [f32],
    pub(crate) mode: ResetMode,
    pub(crate) opponent: &'a Opponent,
    /// `opponent.is_self_play()`, read in the hot loop.
    pub(crate) self_play: bool,
    /// The caller's seat with a policy opponent; `usize::MAX` in self-play.
    pub(crate) learner: usize,
    /// `opponent.league_size()`: members to draw from at each reset, 0 without a league.
    pub(crate) league: usize,
    pub(crate) opening: Opening,
}

impl Ctx<'_> {
    /// Writes `st`'s observation into `row`, scaled when the batch scales them.
    #[inline(always)]
    pub(crate) fn write_obs<O: ObsValue>(&self, st: &State, row: &mut [O]) {
        encode(self.enc, &self.rules, st, row);
        if !self.scale.is_empty() {
            O::scale_row(row, self.scale);
        }
    }

    /// Starts a new episode on one board: a fresh start position (random first player if the
    /// rules draw one), the random opening, then the opponent's plies until the caller's seat
    /// is to move. With a league, first draws the member that plays this episode.
    pub(crate) fn reset_board<const W: usize>(
        &self,
        st: &mut State,
        hist: &mut Log<'_, W>,
        rng: &mut ChaCha8Rng,
        member: &mut u8,
    ) {
        let r = &self.rules;
        for _ in 0..RESET_ATTEMPTS {
            if self.league > 0 {
                *member = rng.random_range(0..self.league) as u8;
            }
            let first = r
                .first_player
                .pick(r.players as usize, |n| rng.random_range(0..n));
            *st = State::initial(r, first);
            hist.reset(st);
            let o = self.opening;
            let plies = if o.min_plies == o.max_plies {
                o.max_plies
            } else {
                rng.random_range(o.min_plies..=o.max_plies)
            };
            for _ in 0..plies {
                let legal = st.legal_mask(r);
                if legal == 0 {
                    break;
                }
                let mut probe = *st;
                let info = probe.apply_unchecked(r, random_legal(legal, rng));
                // Never end the game in the opening. A repetition leaves `hist` unchanged.
                if probe.is_over() || hist.record(r, &mut probe, &info) {
                    break;
                }
                *st = probe;
            }
            self.play_opponents(st, hist, rng, *member);
            if !st.is_over() {
                return;
            }
        }
    }

    /// With a policy opponent, plays its moves until the caller's seat is to move or the game is
    /// over. Does nothing in self-play.
    #[inline(always)]
    fn play_opponents<const W: usize>(
        &self,
        st: &mut State,
        hist: &mut Log<'_, W>,
        rng: &mut ChaCha8Rng,
        member: u8,
    ) {
        if !self.self_play {
            self.opponents_reply(st, hist, rng, member);
        }
    }

    /// The loop of [`Ctx::play_opponents`], out of line.
    #[inline(never)]
    fn opponents_reply<const W: usize>(
        &self,
        st: &mut State,
        hist: &mut Log<'_, W>,
        rng: &mut ChaCha8Rng,
        member: u8,
    ) {
        while !st.is_over() && st.to_move() != self.learner {
            let legal = st.legal_mask(&self.rules);
            if legal == 0 {
                break;
            }
            let h = self
                .opponent
                .pick(&self.rules, st, legal, member as usize, rng);
            let info = st.apply_unchecked(&self.rules, h);
            hist.record(&self.rules, st, &info);
        }
    }

    /// Writes board `i`'s observation, mask and seat to move. `N` pits and `P` players are the
    /// compile-time shape of the presets' compact layout; `N = 0` means "read them from the
    /// rules".
    #[inline(always)]
    fn write_view<O: ObsValue, const N: usize, const P: usize>(
        &self,
        l: &mut Lanes<'_, O>,
        i: usize,
    ) {
        let st = &l.states[i];
        let bytes = mask_bytes(l.masks[i]);
        if N != 0 && self.enc == ObsEncoding::Compact {
            let od = N + 2 * P;
            encode_compact_fixed::<O, N, P>(st, &mut l.obs[i * od..(i + 1) * od]);
            if !self.scale.is_empty() {
                O::scale_row(&mut l.obs[i * od..(i + 1) * od], self.scale);
            }
            let h = N / if P == 0 { 1 } else { P };
            l.mask[i * h..(i + 1) * h].copy_from_slice(&bytes[..h]);
        } else {
            let od = l.obs_dim;
            self.write_obs(st, &mut l.obs[i * od..(i + 1) * od]);
            let h = l.houses;
            for (m, &b) in l.mask[i * h..(i + 1) * h].iter_mut().zip(&bytes) {
                *m = b;
            }
        }
        l.to_move[i] = st.to_move() as u8;
    }

    /// Clears board `i`'s rewards, flags and episode statistics.
    #[inline]
    fn clear_row<O: ObsValue>(l: &mut Lanes<'_, O>, i: usize) {
        let p = l.players;
        l.rewards[i * p..(i + 1) * p].fill(0.0);
        l.reward[i] = 0.0;
        l.terminated[i] = false;
        l.truncated[i] = false;
        l.episode_length[i] = 0;
        l.episode_scores[i * p..(i + 1) * p].fill(0);
    }

    /// Resets board `i` and writes its observation, mask and seat (not its rewards, flags or
    /// statistics).
    #[inline]
    fn reset_and_view<O: ObsValue, const N: usize, const P: usize, const W: usize>(
        &self,
        l: &mut Lanes<'_, O>,
        i: usize,
    ) {
        self.reset_board(
            &mut l.states[i],
            &mut l.reps.board::<W>(i),
            &mut l.rngs[i],
            &mut l.members[i],
        );
        l.lengths[i] = 0;
        l.done[i] = false;
        l.masks[i] = l.states[i].legal_mask(&self.rules);
        self.write_view::<O, N, P>(l, i);
    }

    /// Resets the boards whose code is [`RESET`].
    pub(crate) fn reset_lanes<O: ObsValue>(&self, l: Lanes<'_, O>) {
        if l.reps.width() == 2 {
            self.reset_all::<O, 2>(l)
        } else {
            self.reset_all::<O, 3>(l)
        }
    }

    /// The reset loop, for keys of `W` words.
    fn reset_all<O: ObsValue, const W: usize>(&self, mut l: Lanes<'_, O>) {
        for i in 0..l.len() {
            if l.codes[i] == RESET {
                Self::clear_row(&mut l, i);
                self.reset_and_view::<O, 0, 0, W>(&mut l, i);
            }
        }
    }

    /// Steps every board of `l` with its decoded code (a house, [`IGNORE`] or [`LOSS`]).
    pub(crate) fn step_lanes<O: ObsValue>(&self, l: Lanes<'_, O>) {
        // Rewards, flags and statistics are zero unless an episode ends: clear them in bulk.
        l.rewards.fill(0.0);
        l.terminated.fill(false);
        l.truncated.fill(false);
        l.episode_length.fill(0);
        l.episode_scores.fill(0);
        match (self.rules.pits(), self.rules.players, l.reps.width()) {
            (12, 2, 2) => self.step_all::<O, 12, 2, 2>(l),
            (12, 3, 2) => self.step_all::<O, 12, 3, 2>(l),
            (12, 4, 2) => self.step_all::<O, 12, 4, 2>(l),
            (12, 6, 2) => self.step_all::<O, 12, 6, 2>(l),
            (_, _, 2) => self.step_all::<O, 0, 0, 2>(l),
            _ => self.step_all::<O, 0, 0, 3>(l),
        }
    }

    /// The step loop, specialised for a board shape (see [`Ctx::write_view`]) and a key
    /// width.
    fn step_all<O: ObsValue, const N: usize, const P: usize, const W: usize>(
        &self,
        mut l: Lanes<'_, O>,
    ) {
        let (p, h) = (l.players, l.houses);
        let next_step = self.mode == ResetMode::NextStep;
        for i in 0..l.len() {
            l.reps.prefetch::<W>(i + PREFETCH_AHEAD);
            // The caller's seat: the learner's, or in self-play the seat about to move.
            let seat = if self.self_play {
                l.states[i].to_move()
            } else {
                self.learner
            };
            self.step_board::<O, N, P, W>(&mut l, i);
            l.reward[i] = l.rewards[i * p + seat];
            if next_step && l.done[i] {
                // The next step ignores this board's action: any house is accepted.
                l.mask[i * h..(i + 1) * h].fill(1);
            }
        }
    }

    #[inline]
    fn step_board<O: ObsValue, const N: usize, const P: usize, const W: usize>(
        &self,
        l: &mut Lanes<'_, O>,
        i: usize,
    ) {
        if l.done[i] {
            // Next-step reset: the action is ignored.
            self.reset_and_view::<O, N, P, W>(l, i);
            return;
        }
        let r = &self.rules;
        let p = l.players;
        let code = l.codes[i];
        let st = &mut l.states[i];
        if code == LOSS {
            l.lengths[i] += 1;
            l.rewards[i * p + st.to_move()] = -1.0;
            l.terminated[i] = true;
        } else {
            if code != IGNORE {
                let info = st.apply_unchecked(r, code as usize);
                let mut log = l.reps.board::<W>(i);
                log.record(r, st, &info);
                l.lengths[i] += 1;
                self.play_opponents(st, &mut log, &mut l.rngs[i], l.members[i]);
            }
            match st.status() {
                Status::Ongoing => {
                    l.masks[i] = st.legal_mask(r);
                    self.write_view::<O, N, P>(l, i);
                    return;
                }
                Status::Ended(_) => l.terminated[i] = true,
                Status::Truncated => l.truncated[i] = true,
            }
            returns_into(r, st, &mut l.rewards[i * p..(i + 1) * p]);
        }
        // The episode is over.
        l.episode_length[i] = l.lengths[i];
        l.episode_scores[i * p..(i + 1) * p].copy_from_slice(&l.states[i].scores()[..p]);
        if self.mode == ResetMode::SameStep {
            let od = l.obs_dim;
            if let Some(f) = l.final_obs.as_deref_mut() {
                self.write_obs(&l.states[i], &mut f[i * od..(i + 1) * od]);
            }
            self.reset_board(
                &mut l.states[i],
                &mut l.reps.board::<W>(i),
                &mut l.rngs[i],
                &mut l.members[i],
            );
            l.lengths[i] = 0;
            l.masks[i] = l.states[i].legal_mask(r);
        } else {
            l.done[i] = true;
            l.masks[i] = 0;
        }
        self.write_view::<O, N, P>(l, i);
    }
}

/// [`State::returns`] without allocating: +1 for a sole winner, 0 for players tied for first,
/// -1 for the others; all zero unless the game ended by the rules.
#[inline]
pub(crate) fn returns_into(rules: &Rules, st: &State, out: &mut [f32]) {
    if !matches!(st.status(), Status::Ended(_)) {
        out.fill(0.0);
        return;
    }
    let n = rules.players as usize;
    let outcome = crate::state::outcome_from_scores(&st.scores()[..n]);
    let k = out.len().min(n);
    out[..k].copy_from_slice(&outcome[..k]);
}

/// How many boards ahead the step loop prefetches a repetition history.
const PREFETCH_AHEAD: usize = 8;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::rules::MAX_PLAYERS;

    #[test]
    fn returns_match_the_engine() {
        // Every preset, and the rules options that change how games end.
        let extra = ["abapa:cycle_if_seeded=false", "awale:indetermination=6"];
        for spec in crate::rules::PRESET_SPECS.into_iter().chain(extra) {
            let rules: Rules = spec.parse().unwrap();
            for seed in 0..30u64 {
                let mut g = Game::with_seed(rules, seed);
                let mut k = seed as usize;
                while !g.is_over() {
                    let m = g.legal_moves();
                    k = k
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    g.apply(m[(k >> 33) % m.len()]).unwrap();
                }
                let mut out = [9f32; MAX_PLAYERS];
                let n = rules.players as usize;
                returns_into(&rules, g.state(), &mut out[..n]);
                assert_eq!(&out[..n], &g.returns()[..n], "{spec} seed {seed}");
                let outcome = crate::state::outcome_from_scores(&g.state().scores()[..n]);
                assert_eq!(&out[..n], &outcome[..n], "{spec} seed {seed}");
            }
        }
    }
}
