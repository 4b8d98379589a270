//! Rule points of the common Awalé rules of document `001_*`: sowing with laps, captures, the
//! feeding obligation, the forbidden grand slam, the end by famine and by indetermination.
//!
//! South (player 0) owns pits 0..6 (houses A..F), North (player 1) pits 6..12 (a..f).

mod common;

use awale::{EndReason, Game, GrandSlam, Rules, Status};
use common::{assert_illegal, board, game, play, pos, rules, scores};

// « Cependant, si le nombre de graines ramène le joueur à la case départ du coup après un tour
// complet (plus de 11 billes) il saute cette case en ne posant aucune graine dedans et continue
// sa répartition dans les cases suivantes. Il peut aussi arriver, plus rarement, que le joueur
// effectue plus de deux tours avec ses graines (s'il en a plus de 22) ; il saute alors à nouveau
// sa case de départ. »
#[test]
fn laps_skip_the_starting_hole_every_time() {
    let r = Rules::awale();
    // 23 seeds from North's c (pit 8): two laps of the 11 other holes, then d again.
    let mut s = pos(&r, &[3, 3, 3, 3, 3, 3, 1, 1, 23, 0, 1, 1], &[1, 2], 1);
    let info = s.apply(&r, 2).unwrap();
    assert_eq!(board(&r, &s), [5, 5, 5, 5, 5, 5, 3, 3, 0, 3, 3, 3]);
    assert_eq!(info.captured, 0, "the last seed is in North's own d");

    // 12 seeds from F: the 12th seed skips F and lands in a, which the first seed reached.
    let mut s = pos(&r, &[0, 1, 1, 1, 1, 12, 0, 4, 4, 4, 4, 4], &[6, 6], 0);
    let info = s.apply(&r, 5).unwrap();
    assert_eq!(board(&r, &s), [1, 2, 2, 2, 2, 0, 0, 5, 5, 5, 5, 5]);
    // a received two seeds (0 -> 2): captured.
    assert_eq!(info.captured, 2);
}

// « Le joueur prend des graines lorsque la dernière case où il pose une graine : - est une case
// du camp adverse. - contient 2 ou 3 graines en comptant la nouvelle (elle contenait 1 ou 2
// graines avant). Le joueur prend alors les graines de cette case (2 ou 3), puis il prend
// également les graines de la case précédente si celle-ci répond aux mêmes conditions [...] Dès
// que la case antérieure n'y répond plus, (elle est dans son propre camp ou elle ne contient ni 2
// ni 3 graines) sa prise s'arrête. »
#[test]
fn captures_of_two_or_three_chain_backwards() {
    let r = Rules::awale();
    // South C (5) sows D, E, F, a, b: a 2->3 and b 1->2 are taken; F (own, 2) is not.
    let mut s = pos(&r, &[0, 0, 5, 0, 0, 1, 2, 1, 4, 4, 4, 4], &[11, 12], 0);
    let info = s.apply(&r, 2).unwrap();
    assert_eq!(info.captured, 5);
    assert_eq!(board(&r, &s), [0, 0, 0, 1, 1, 2, 0, 0, 4, 4, 4, 4]);
    assert_eq!(scores(&r, &s), [16, 12]);
}

// « Lorsqu'un joueur n'a plus de graines dans son camp, son adversaire est obligé de jouer un
// coup qui lui en apporte au moins une. »
#[test]
fn feeding_obligation() {
    let r = Rules::awale();
    // North empty: only B (5 seeds, reaches a) and F feed; A (3) and D (1) do not.
    let s = pos(&r, &[3, 5, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0], &[19, 19], 0);
    assert_eq!(s.legal_moves(&r), vec![1, 5]);
    assert_illegal(&r, &s, 0);
    assert_illegal(&r, &s, 3);
}

// « Par ailleurs, il est interdit de jouer un coup qui ôte, par des prises, toutes les graines
// du camp adverse. Si un joueur joue un tel coup ou si un joueur se trouve dans la position de
// n'avoir qu'un tel coup à jouer, alors le coup est joué mais aucune prise n'est effectuée. »
#[test]
fn grand_slam_is_forbidden_while_another_move_exists() {
    let r = Rules::awale();
    assert_eq!(r.grand_slam, GrandSlam::Forbidden);
    // North holds only a=1, b=2; South F (2) would take both. A and C are other moves.
    let s = pos(&r, &[1, 0, 3, 0, 0, 2, 1, 2, 0, 0, 0, 0], &[20, 19], 0);
    assert_eq!(s.legal_mask(&r), 0b000101);
    let err = assert_illegal(&r, &s, 5);
    assert!(err.to_string().contains("grand slam"), "{err}");
    // Under the international rules the same move is legal (and captures nothing).
    assert_eq!(s.legal_mask(&Rules::abapa()), 0b100101);
}

#[test]
fn grand_slam_when_it_is_the_only_move_is_played_without_capture() {
    let r = Rules::awale();
    // Both E (3: F, a, b) and F (2: a, b) would take a=1, b=2, all of North's seeds.
    let s = pos(&r, &[0, 0, 0, 0, 3, 2, 1, 2, 0, 0, 0, 0], &[20, 20], 0);
    assert_eq!(s.legal_mask(&r), 0b110000);
    let mut t = s;
    let info = t.apply(&r, 5).unwrap();
    assert!(info.grand_slam);
    assert_eq!(info.captured, 0);
    assert_eq!(board(&r, &t), [0, 0, 0, 0, 3, 0, 2, 3, 0, 0, 0, 0]);
    assert_eq!(scores(&r, &t), [20, 20]);
    assert_eq!(t.status(), Status::Ongoing);
    let mut t = s;
    let info = t.apply(&r, 4).unwrap();
    assert!(info.grand_slam && info.captured == 0);
}

// « La partie s'achève : - lorsqu'un joueur n'a plus de graines dans son camp alors que c'est à
// lui de jouer. Dans ce cas, son adversaire gagne toutes les graines restantes. C'est la fin
// « par famine ». »
#[test]
fn famine_the_opponent_takes_all_remaining_seeds() {
    let r = Rules::awale();
    // South to move with an empty row.
    let s = pos(&r, &[0, 0, 0, 0, 0, 0, 1, 2, 3, 0, 0, 0], &[20, 22], 0);
    assert_eq!(s.status(), Status::Ended(EndReason::Starvation));
    assert_eq!(scores(&r, &s), [20, 28]);
    assert_eq!(s.board_seeds(&r), 0);
    assert_eq!(s.legal_mask(&r), 0);
    assert_eq!(s.returns(&r)[..2], [-1.0, 1.0]);

    // North to move with an empty row (more than 6 seeds left: no indetermination search).
    let s = pos(&r, &[1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0], &[19, 19], 1);
    assert_eq!(s.status(), Status::Ended(EndReason::Starvation));
    assert_eq!(scores(&r, &s), [29, 19]);
}

#[test]
fn famine_reached_by_a_capture_all_grand_slam() {
    let r = rules("awale:grand_slam=capture_all");
    // South F takes a and b, all of North's seeds; North is then to move with nothing.
    let mut g = game(&r, &[4, 0, 0, 0, 0, 2, 1, 2, 0, 0, 0, 0], &[16, 23], 0);
    let info = g.apply(5).unwrap();
    assert!(info.grand_slam);
    assert_eq!(info.captured, 5);
    assert_eq!(g.status(), Status::Ended(EndReason::Starvation));
    assert_eq!(g.scores(), vec![16 + 5 + 4, 23]);
    assert_eq!(g.returns()[..2], [1.0, -1.0]);
}

// « Lorsqu'il reste trop peu de graines pour qu'aucune prise ne soit désormais possible (en
// pratique 2 ou 3). Chaque joueur récupère la ou les graines restantes de son camp. C'est la fin
// « par indétermination ». »
#[test]
fn indetermination_when_no_capture_can_ever_happen() {
    let r = Rules::awale();
    // Two seeds chasing each other (South F, North f): the only line of play goes round the
    // board with no seed ever landing on the other; no capture is possible.
    let pits = [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1];
    let s = pos(&r, &pits, &[23, 23], 0);
    assert_eq!(s.status(), Status::Ended(EndReason::Indetermination));
    assert_eq!(scores(&r, &s), [24, 24]);
    assert_eq!(s.board_seeds(&r), 0);
    assert_eq!(s.returns(&r)[..2], [0.0, 0.0]);
    // Without the indetermination rule the same position is simply played on.
    let s = pos(&Rules::abapa(), &pits, &[23, 23], 0);
    assert_eq!(s.status(), Status::Ongoing);
}

#[test]
fn indetermination_reached_after_a_capture() {
    let r = Rules::awale();
    // South F (1) makes a=2: captured. Only North's f (1 seed) is left; it can never capture.
    let mut g = game(&r, &[0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1], &[22, 23], 0);
    assert_eq!(g.status(), Status::Ongoing);
    let info = g.apply(5).unwrap();
    assert_eq!(info.captured, 2);
    assert_eq!(g.status(), Status::Ended(EndReason::Indetermination));
    assert_eq!(g.scores(), vec![24, 24]);
}

#[test]
fn no_indetermination_while_a_capture_is_still_reachable() {
    let r = Rules::awale();
    // Three seeds: South A and D, North e; North to move. No capture is possible at once, but
    // after North e->f, South D->E, North f->A makes A 2 and takes it.
    let mut g = game(&r, &[1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0], &[22, 23], 1);
    assert_eq!(g.status(), Status::Ongoing);
    play(&mut g, &[4]);
    assert_eq!(
        g.status(),
        Status::Ongoing,
        "South could still blunder into a capture"
    );
    play(&mut g, &[3]);
    assert_eq!(g.status(), Status::Ongoing);
    let info = g.apply(5).unwrap();
    assert_eq!(info.captured, 2);
    assert_eq!(g.scores()[1], 25);

    // An immediate capture: South F makes a 2 (f keeps North from a grand slam).
    let s = pos(&r, &[0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1], &[22, 23], 0);
    assert_eq!(s.status(), Status::Ongoing);
}

#[test]
fn indetermination_is_a_setting() {
    // Off: the two chasing seeds play on (and the repetition rule ends the chase instead).
    let r = rules("awale:indetermination=0");
    let mut g = game(&r, &[0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1], &[23, 23], 0);
    assert_eq!(g.status(), Status::Ongoing);
    play(&mut g, &[5, 5, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4]);
    assert_eq!(g.status(), Status::Ended(EndReason::Repetition));
    assert_eq!(g.scores(), vec![24, 24]);

    // The default limit is 12 seeds on the board: with more, no search is made.
    assert_eq!(Rules::awale().indetermination, 12);
    assert!("awale:indetermination=13".parse::<Rules>().is_err());
}

#[test]
fn twenty_five_ends_the_game() {
    let r = Rules::awale();
    let mut s = pos(&r, &[0, 0, 0, 0, 2, 0, 1, 4, 4, 4, 4, 4], &[23, 2], 0);
    s.apply(&r, 4).unwrap();
    assert_eq!(s.status(), Status::Ended(EndReason::Threshold));
    assert_eq!(s.winners(&r), vec![0]);
}

#[test]
fn ply_limit_truncates() {
    let r = rules("awale:max_plies=9");
    let mut g = Game::new(r);
    while !g.is_over() {
        let m = *g.legal_moves().last().unwrap();
        g.apply(m).unwrap();
    }
    assert_eq!(g.status(), Status::Truncated);
    assert_eq!(g.state().ply(), 9);
}

// « Lorsqu'il reste trop peu de graines pour qu'aucune prise ne soit désormais possible [...]
// Chaque joueur récupère la ou les graines restantes de son camp. C'est la fin « par
// indétermination ». »
#[test]
fn indetermination_with_eight_seeds() {
    // The example of issue 17: `awale 0,0,0,0,0,2/2,0,2,2,0,0 23,17 0`. No capture can ever
    // happen again: the game ends at once and each takes his row, 25-23 to South.
    let pits = [0, 0, 0, 0, 0, 2, 2, 0, 2, 2, 0, 0];
    let r = Rules::awale();
    let s = pos(&r, &pits, &[23, 17], 0);
    assert_eq!(s.status(), Status::Ended(EndReason::Indetermination));
    assert_eq!(scores(&r, &s), [25, 23]);
    assert_eq!(s.returns(&r)[..2], [1.0, -1.0]);
    // The old limit of 6 seeds (an option) does not look at 8 seeds: play goes on.
    let old = rules("awale:indetermination=6");
    let s = pos(&old, &pits, &[23, 17], 0);
    assert_eq!(s.status(), Status::Ongoing);
    assert!(!s.capture_reachable(&old), "the search itself knows");
}

#[test]
fn indetermination_with_nine_seeds_and_beyond_the_default_limit() {
    // Nine seeds (a position met in random play, less North's e): South's only seeds are in F,
    // and no line of play ever brings a last seed onto a hole of 1 or 2.
    let r = Rules::awale();
    let s = pos(&r, &[0, 0, 0, 0, 0, 4, 2, 1, 2, 0, 0, 0], &[21, 18], 0);
    assert_eq!(s.status(), Status::Ended(EndReason::Indetermination));
    assert_eq!(scores(&r, &s), [25, 23]);
    // Positions met in random play with 10 and 11 seeds: the default limit (12) ends them by the
    // exact search (no table above 9 seeds); the old limit of 9 (an option) plays on.
    let r = rules("awale:indetermination=9");
    for (pits, sc, to_move) in [
        ([0, 0, 0, 0, 0, 4, 2, 1, 2, 0, 1, 0], [21, 17], 0),
        ([0, 0, 0, 0, 0, 5, 3, 2, 1, 0, 0, 0], [16, 21], 1),
    ] {
        let s = pos(&r, &pits, &sc, to_move);
        assert_eq!(s.status(), Status::Ongoing);
        assert!(!s.capture_reachable(&r));
        let wide = Rules::awale();
        let s = pos(&wide, &pits, &sc, to_move);
        assert_eq!(s.status(), Status::Ended(EndReason::Indetermination));
        let south: u8 = pits[..6].iter().sum();
        assert_eq!(
            scores(&wide, &s),
            [sc[0] + south, sc[1] + (pits.iter().sum::<u8>() - south)]
        );
    }
    // A capture still reachable with 9 seeds: the game goes on.
    let r = Rules::awale();
    let s = pos(&r, &[0, 0, 0, 0, 1, 4, 2, 1, 1, 0, 0, 0], &[21, 18], 0);
    assert!(s.capture_reachable(&r));
    assert_eq!(s.status(), Status::Ongoing);
}
