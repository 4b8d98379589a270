//! Property tests: random games from the start (random first player, random legal moves) and
//! random positions, for every preset and several option variants. After every move:
//!
//! - seeds are conserved (board + stores = the rules' total);
//! - the legal mask is nonzero exactly while the game goes on, and every house outside it is
//!   refused with an error that leaves the state (and the game) unchanged;
//! - single sowing agrees with a straightforward seed-by-seed reference (sowing, skipping the
//!   origin, backward captures, grand slams, feeding, forbidden grand slams): in particular the
//!   origin is left empty and the mover's own row never loses seeds except the origin;
//! - relay sowing stays within the relay cap, captures only 4 at a time (uncaptured seeds and
//!   every store stay multiples of 4) and hands the turn to the next player who has seeds;
//! - every game ends or is truncated within `max_plies`, and replaying its moves from the start
//!   reaches the identical state.

mod common;

use awale::{EndReason, Feeding, Game, GrandSlam, MoveInfo, Rules, Sowing, State, Status};
use common::total;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Rule sets exercised: every preset (owaré for 2, 3, 4 and 6 players) and option variants.
/// Each has a ply limit so that every game is finite even when cycles are ignored.
const SPECS: &[&str] = &[
    "abapa:max_plies=300",
    "awale:max_plies=300",
    "wari:max_plies=300",
    "openspiel:max_plies=300",
    "oware2:max_plies=300",
    "oware3:max_plies=300",
    "oware4:max_plies=300",
    "oware6:max_plies=300",
    "abapa:grand_slam=capture_all,max_plies=250",
    "abapa:grand_slam=forbidden,win=none,max_plies=250",
    "abapa:skip_origin=false,max_plies=250",
    "abapa:houses=4,seeds=3,win=13,max_plies=250",
    "abapa:seeds=8,max_plies=250",
    "abapa:feeding=optional,starvation=starved_unless_5,max_plies=250",
    "awale:cycle=ignore,max_plies=200",
    "wari:starvation=starved,cycle=each_takes_own,max_plies=250",
    "wari:houses=5,seeds=5,cycle=ignore,max_plies=200",
    "oware:players=4,out_of_turn=false,max_plies=250",
    "oware:players=3,relay_cap=5,max_plies=250",
    "oware:players=6,first=1,max_plies=250",
];

fn spec_rules(i: usize) -> Rules {
    SPECS[i].parse().unwrap()
}

/// Owaré-like relay rules where every capture is exactly 4 seeds out of a multiple of 4.
fn fours(r: &Rules) -> bool {
    r.sowing == Sowing::Relay
        && r.capture_min == 4
        && r.capture_max == 4
        && r.total_seeds().is_multiple_of(4)
        && r.end_seeds.is_multiple_of(4)
}

/// Sows house `house` of the player to move seed by seed: the board after sowing and the last
/// pit sown.
fn reference_sow(r: &Rules, s: &State, house: usize) -> (Vec<u8>, usize) {
    let n = r.pits();
    let origin = s.to_move() * r.houses as usize + house;
    let mut pits = s.pits()[..n].to_vec();
    let mut hand = pits[origin];
    pits[origin] = 0;
    let mut p = origin;
    while hand > 0 {
        p = (p + 1) % n;
        if r.skip_origin && p == origin {
            continue;
        }
        pits[p] += 1;
        hand -= 1;
    }
    (pits, p)
}

/// Reference single sowing, seed by seed: the board after sowing and capturing (before any end
/// of game), the seeds captured and whether the move is a grand slam.
fn reference_single(r: &Rules, s: &State, house: usize) -> (Vec<u8>, u8, bool) {
    let h = r.houses as usize;
    let (mut pits, p) = reference_sow(r, s, house);
    let victim = 1 - s.to_move();
    if p / h != victim {
        return (pits, 0, false);
    }
    let lo = victim * h;
    let mut taken = 0u32;
    let mut run = Vec::new();
    let mut i = p;
    while i >= lo && (r.capture_min..=r.capture_max).contains(&pits[i]) {
        taken += pits[i] as u32;
        run.push(i);
        if i == lo {
            break;
        }
        i -= 1;
    }
    let row: u32 = pits[lo..lo + h].iter().map(|&x| x as u32).sum();
    let slam = taken > 0 && taken == row;
    if taken == 0 || (slam && r.grand_slam != GrandSlam::CaptureAll) {
        return (pits, 0, slam);
    }
    for i in run {
        pits[i] = 0;
    }
    (pits, taken as u8, slam)
}

/// Reference legal mask, from the rules' wording.
fn reference_mask(r: &Rules, s: &State) -> u16 {
    if s.status() != Status::Ongoing {
        return 0;
    }
    let h = r.houses as usize;
    let me = s.to_move();
    let mut mask: u16 = (0..h)
        .filter(|&i| s.pits()[me * h + i] > 0)
        .fold(0, |m, i| m | 1 << i);
    if r.sowing == Sowing::Relay {
        return mask;
    }
    let opp = 1 - me;
    // A feeding move is one whose sowing gives the empty opponent seeds (under
    // grand_slam=capture_all it may take them back at once).
    if r.feeding == Feeding::Required && s.row_seeds(r, opp) == 0 {
        for i in 0..h {
            let (pits, _) = reference_sow(r, s, i);
            if pits[opp * h..(opp + 1) * h].iter().all(|&x| x == 0) {
                mask &= !(1 << i);
            }
        }
    }
    if r.grand_slam == GrandSlam::Forbidden {
        let ok = (0..h)
            .filter(|&i| mask & (1 << i) != 0 && !reference_single(r, s, i).2)
            .fold(0u16, |m, i| m | 1 << i);
        if ok != 0 {
            mask = ok;
        }
    }
    mask
}

/// Checks a position on its own: conservation, mask, multiples of 4, returns.
fn check_state(r: &Rules, s: &State) {
    let n = r.players as usize;
    assert_eq!(total(r, s), r.total_seeds(), "seeds conserved: {s:?}");
    let mask = s.legal_mask(r);
    assert_eq!(
        mask != 0,
        s.status() == Status::Ongoing,
        "mask {mask:b} vs {:?}",
        s.status()
    );
    assert_eq!(
        mask >> r.houses,
        0,
        "mask names a house that does not exist"
    );
    assert_eq!(mask, reference_mask(r, s), "{r}: legal mask of {s:?}");
    for h in 0..r.houses as usize {
        if mask & (1 << h) != 0 {
            assert!(s.pits()[s.to_move() * r.houses as usize + h] > 0);
        }
    }
    // (A repetition sweeps each row to its owner, whatever its count: only then may a store
    // stop being a multiple of 4.)
    if fours(r) && s.status() != Status::Ended(EndReason::Repetition) {
        assert_eq!(s.board_seeds(r) % 4, 0, "uncaptured seeds: {s:?}");
        for p in 0..n {
            assert_eq!(s.scores()[p] % 4, 0, "store of {p}: {s:?}");
        }
    }
    let ret = s.returns(r);
    match s.status() {
        Status::Ongoing => assert_eq!(ret, [0.0; awale::MAX_PLAYERS]),
        Status::Truncated => {
            assert_eq!(ret, [0.0; awale::MAX_PLAYERS]);
            assert!(s.winners(r).is_empty());
        }
        Status::Ended(_) => {
            let w = s.winners(r);
            assert!(!w.is_empty());
            let best = s.scores()[..n].iter().max().copied().unwrap();
            for (p, (&score, &got)) in s.scores().iter().zip(&ret).take(n).enumerate() {
                assert_eq!(w.contains(&p), score == best);
                let expect = match (w.contains(&p), w.len()) {
                    (false, _) => -1.0,
                    (true, 1) => 1.0,
                    (true, _) => 0.0,
                };
                assert_eq!(got, expect);
            }
            // Players beyond the rules' count get nothing.
            assert!(ret[n..].iter().all(|&x| x == 0.0));
            if n == 2 {
                assert_eq!(ret[0], -ret[1]);
            }
        }
    }
}

/// Every house outside the legal mask (and a few that do not exist) is refused without
/// touching the state.
fn check_refusals(r: &Rules, s: &State) {
    let mask = s.legal_mask(r);
    for h in 0..r.houses as usize + 2 {
        if h < 16 && mask & (1 << h) != 0 {
            continue;
        }
        let mut t = *s;
        assert!(
            t.apply(r, h).is_err(),
            "house {h} outside mask {mask:b} was played"
        );
        assert_eq!(t, *s, "a refused move changed the state");
    }
}

/// Checks one move: `before` --house--> `after` with `info`.
fn check_move(r: &Rules, before: &State, house: usize, after: &State, info: &MoveInfo) {
    let h = r.houses as usize;
    let n = r.pits();
    let mover = before.to_move();
    let origin = mover * h + house;
    let sown = before.pits()[origin] as usize;
    assert_eq!(after.ply(), before.ply() + 1);
    assert!(info.captured <= info.any_captured);
    let gained = after.scores()[mover] - before.scores()[mover];
    assert!(
        gained >= info.captured,
        "mover's store grew by less than his capture"
    );

    match r.sowing {
        Sowing::Single => {
            assert_eq!(info.relays, 0);
            assert!(!info.relay_capped);
            assert_eq!(info.captured, info.any_captured);
            let (pits, captured, slam) = reference_single(r, before, house);
            assert_eq!(info.grand_slam, slam, "grand slam flag");
            assert_eq!(info.captured, captured, "captured seeds");
            // The origin is empty after the move: with fewer seeds than pits it gives all away,
            // and a longer sowing skips it on every lap.
            if r.skip_origin || sown < n {
                assert_eq!(
                    after.pits()[origin],
                    0,
                    "origin not empty after {sown} seeds"
                );
            }
            let swept = match after.status() {
                Status::Ongoing | Status::Truncated => false,
                Status::Ended(EndReason::Threshold) => r.sweep_on_end,
                Status::Ended(_) => true,
            };
            if swept {
                assert_eq!(after.board_seeds(r), 0, "an end sweeps the board");
            } else {
                assert_eq!(&after.pits()[..n], &pits[..], "board after sowing {house}");
                // No capture on the mover's side: his row loses only the origin's seeds.
                for k in mover * h..(mover + 1) * h {
                    if k != origin {
                        assert!(
                            after.pits()[k] >= before.pits()[k],
                            "pit {k} of the mover lost seeds"
                        );
                    }
                }
                if !r.skip_origin && sown >= n {
                    assert_eq!(after.pits()[origin] as usize, sown / n);
                }
                assert_eq!(
                    before.board_seeds(r) - after.board_seeds(r),
                    info.captured as u32,
                    "seeds left the board only by capture"
                );
                assert_eq!(gained, info.captured);
            }
            if after.status() == Status::Ongoing {
                assert_eq!(after.to_move(), 1 - mover);
            }
        }
        Sowing::Relay => {
            assert!(!info.grand_slam);
            assert!(info.relays <= r.relay_cap);
            if info.relay_capped {
                assert_eq!(info.relays, r.relay_cap);
            }
            if fours(r) {
                assert_eq!(info.any_captured % 4, 0);
            }
            let gained_all: u32 = (0..r.players as usize)
                .map(|p| (after.scores()[p] - before.scores()[p]) as u32)
                .sum();
            assert!(gained_all >= info.any_captured as u32);
            match after.status() {
                Status::Ongoing | Status::Truncated => {
                    assert_eq!(gained_all, info.any_captured as u32);
                    assert_eq!(
                        before.board_seeds(r) - after.board_seeds(r),
                        info.any_captured as u32
                    );
                }
                Status::Ended(EndReason::SeedsExhausted) => {
                    assert!(
                        info.any_captured > 0,
                        "a relay game ends only after a capture"
                    );
                    assert_eq!(after.board_seeds(r), 0);
                }
                Status::Ended(EndReason::Repetition) => {
                    // Found by the game's history; a capture makes every older position
                    // unreachable, so no repetition can follow one.
                    assert_eq!(info.any_captured, 0);
                    assert_eq!(after.board_seeds(r), 0);
                }
                Status::Ended(reason) => panic!("a relay game ended by {reason:?}"),
            }
            if after.status() == Status::Ongoing {
                // The turn goes to the next player in order who has seeds.
                let k = r.players as usize;
                let next = after.to_move();
                assert!(after.row_seeds(r, next) > 0);
                let mut p = (mover + 1) % k;
                while p != next {
                    assert_eq!(
                        after.row_seeds(r, p),
                        0,
                        "player {p} was skipped with seeds"
                    );
                    p = (p + 1) % k;
                }
            }
        }
    }
}

/// Plays a random game from the start, checking everything after every move; returns the game.
fn random_game(r: Rules, game_seed: u64, move_seed: u64) -> Game {
    let mut g = Game::with_seed(r, game_seed);
    let mut rng = ChaCha8Rng::seed_from_u64(move_seed);
    assert!(r.max_plies > 0);
    for _ in 0..=r.max_plies {
        let s = *g.state();
        check_state(&r, &s);
        check_refusals(&r, &s);
        if g.is_over() {
            break;
        }
        // A refused move leaves the game itself unchanged too (history and move list).
        let mask = g.legal_mask();
        if let Some(bad) = (0..r.houses as usize).find(|&h| mask & (1 << h) == 0) {
            let moves = g.moves().len();
            assert!(g.apply(bad).is_err());
            assert_eq!(*g.state(), s);
            assert_eq!(g.moves().len(), moves);
        }
        let legal = g.legal_moves();
        let m = legal[rng.random_range(0..legal.len())];
        let info = g.apply(m).unwrap();
        check_move(&r, &s, m, g.state(), &info);
    }
    assert!(g.is_over(), "{r}: not over after max_plies");
    assert!(g.state().ply() <= r.max_plies);
    if g.status() == Status::Truncated {
        assert_eq!(g.state().ply(), r.max_plies);
    }
    g
}

/// Replaying the move list from the start is deterministic and reaches the identical state.
fn check_replay(g: &Game) {
    let moves: Vec<usize> = g.moves().iter().map(|&m| m as usize).collect();
    let a = Game::replay(*g.rules(), *g.start(), &moves).expect("replay");
    let b = Game::replay(*g.rules(), *g.start(), &moves).expect("replay");
    assert_eq!(a.state(), g.state());
    assert_eq!(b.state(), a.state());
    assert_eq!(a.moves(), g.moves());
}

#[test]
fn every_rule_set_plays_random_games_to_the_end() {
    for i in 0..SPECS.len() {
        let r = spec_rules(i);
        for seed in 0..4u64 {
            let g = random_game(r, seed, seed * 7919 + i as u64);
            check_replay(&g);
        }
    }
}

/// A random position of `r` (2-player single sowing or relay): seeds scattered over the board,
/// sometimes one big pile in the mover's row, the rest in the stores.
fn random_position(r: &Rules, seed: u64) -> Option<State> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = r.pits();
    let k = r.players as usize;
    let h = r.houses as usize;
    let total = r.total_seeds();
    let mover = rng.random_range(0..k);
    let mut pits = vec![0u8; n];
    let unit = if fours(r) { 4 } else { 1 };
    let on_board = rng.random_range(0..=total / unit) * unit;
    let mut left = on_board;
    if rng.random_bool(0.4) && left > 0 {
        let pile = rng.random_range(1..=left.min(40));
        pits[mover * h + rng.random_range(0..h)] += pile as u8;
        left -= pile;
    }
    // Favour a few holes so that 1-3 seed holes and empty holes both occur.
    let hot: Vec<usize> = (0..rng.random_range(1..=n))
        .map(|_| rng.random_range(0..n))
        .collect();
    for _ in 0..left {
        pits[hot[rng.random_range(0..hot.len())]] += 1;
    }
    let mut scores = vec![0u8; k];
    let mut rest = total - on_board;
    while rest > 0 {
        let p = rng.random_range(0..k);
        scores[p] += unit as u8;
        rest -= unit;
    }
    State::from_parts(r, &pits, &scores, mover, 0).ok()
}

fn check_random_position(r: &Rules, seed: u64) {
    let Some(s) = random_position(r, seed) else {
        panic!("random position refused");
    };
    check_state(r, &s);
    check_refusals(r, &s);
    for m in s.legal_moves(r) {
        let mut t = s;
        let info = t.apply(r, m).unwrap();
        check_move(r, &s, m, &t, &info);
        check_state(r, &t);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_games_keep_every_invariant(
        i in 0..SPECS.len(),
        game_seed in any::<u64>(),
        move_seed in any::<u64>(),
    ) {
        let g = random_game(spec_rules(i), game_seed, move_seed);
        check_replay(&g);
    }

    #[test]
    fn random_positions_keep_every_invariant(i in 0..SPECS.len(), seed in any::<u64>()) {
        let r = spec_rules(i);
        check_random_position(&r, seed);
    }
}

#[test]
fn random_positions_of_every_rule_set() {
    for i in 0..SPECS.len() {
        let r = spec_rules(i);
        for seed in 0..64u64 {
            check_random_position(&r, seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ i as u64);
        }
    }
}

#[test]
fn long_sowings_of_twelve_and_more_leave_the_origin_empty() {
    // Every pile size from 1 to 40 in every house of the mover, on a sparse board.
    let r: Rules = "abapa:win=none".parse().unwrap();
    for house in 0..6 {
        for pile in 1..=40u8 {
            let mut pits = [0u8; 12];
            pits[house] = pile;
            pits[6 + (house + 3) % 6] += 1;
            let stores = [(47 - pile) / 2, 47 - pile - (47 - pile) / 2];
            let Ok(s) = State::from_parts(&r, &pits, &stores, 0, 0) else {
                continue;
            };
            if s.is_over() {
                continue;
            }
            let mut t = s;
            if let Ok(info) = t.apply(&r, house) {
                check_move(&r, &s, house, &t, &info);
                assert_eq!(t.pits()[house], 0, "{pile} seeds from house {house}");
            }
        }
    }
}
