//! Rule points of the international ("abapa", World Oware Federation) rules, from the document
//! `000_*`, each on a hand-made position. Also the rule options layered on the preset
//! (grand slam, cycle, win threshold, board size, skipping the origin) and OpenSpiel's sweep.
//!
//! South (player 0) owns pits 0..6 (houses A..F), North (player 1) pits 6..12 (a..f).

mod common;

use awale::{AwaleError, EndReason, Game, GrandSlam, Rules, Status};
use common::{assert_illegal, board, game, play, pos, rules, scores};

// « Chaque mouvement consiste à prendre toutes les graines d'un des trous placés dans sa propre
// rangée et de semer toutes les graines dans les trous qui suivent. L'ensemencement consiste à
// distribuer les graines sur les autres trous (y compris les trous adverses), une par une, dans
// le sens inverse des aiguilles d'une montre, en commençant par le premier trou à côté de celui
// où les graines ont été placées. »
#[test]
fn sowing_is_counter_clockwise_one_seed_per_hole_into_the_opponent_row() {
    let r = Rules::abapa();
    let mut g = Game::new(r);
    // « La partie commence avec les 48 graines réparties de manière égale dans les 12 trous
    // (4 graines dans chaque trou). »
    assert_eq!(board(&r, g.state()), vec![4; 12]);
    assert_eq!(g.to_move(), 0);
    assert_eq!(g.legal_mask(), 0b111111);

    // South C (house 2): its 4 seeds go to D, E, F and North's a.
    let info = g.apply(2).unwrap();
    assert_eq!(info.captured, 0);
    assert_eq!(board(&r, g.state()), [4, 4, 0, 5, 5, 5, 5, 4, 4, 4, 4, 4]);
    // « Les mouvements sont effectués alternativement par les deux joueurs. »
    assert_eq!(g.to_move(), 1);

    // North f (house 5, pit 11): sowing goes on round the board into South's A, B, C, D.
    g.apply(5).unwrap();
    assert_eq!(board(&r, g.state()), [5, 5, 1, 6, 5, 5, 5, 4, 4, 4, 4, 0]);
    assert_eq!(g.to_move(), 0);
    assert_eq!(g.scores(), vec![0, 0]);
}

// « Si le nombre de graines à semer est assez grand (12 graines), il est possible de faire plus
// d'un tour sur l'ensemble du plateau. Dans ce cas, le trou de départ est laissé vide, la 12ème
// graine est placée dans le même trou que celui où la première graine a été placée, et ainsi de
// suite. »
#[test]
fn twelve_seeds_skip_the_origin_and_the_twelfth_lands_where_the_first_did() {
    let r = Rules::abapa();
    let mut s = pos(&r, &[12, 0, 0, 0, 0, 0, 6, 6, 6, 6, 6, 6], &[0, 0], 0);
    let info = s.apply(&r, 0).unwrap();
    // One seed in each of the 11 other holes, the 12th in B again; A stays empty.
    assert_eq!(board(&r, &s), [0, 2, 1, 1, 1, 1, 7, 7, 7, 7, 7, 7]);
    assert_eq!(info.captured, 0);
    assert_eq!(s.to_move(), 1);
}

// « Si plus de 11 graines sont semées, le trou d'origine est dépassée. » — and a lap that ends in
// the opponent's row captures like any other move.
#[test]
fn twelve_seed_move_that_ends_in_the_opponent_row_captures() {
    let r = Rules::abapa();
    // F holds 12: a lap into a..f, A..E, then the 12th seed into a again (a had 1: now 3).
    let mut s = pos(&r, &[0, 0, 0, 0, 0, 12, 1, 5, 5, 5, 5, 5], &[5, 5], 0);
    let info = s.apply(&r, 5).unwrap();
    assert_eq!(info.captured, 3);
    assert_eq!(board(&r, &s), [1, 1, 1, 1, 1, 0, 0, 6, 6, 6, 6, 6]);
    assert_eq!(scores(&r, &s), [8, 5]);
}

// The origin is skipped on every lap: 23 seeds make two laps of 11 and the 23rd seed skips the
// origin a second time.
#[test]
fn twenty_three_seeds_skip_the_origin_twice() {
    let r = Rules::abapa();
    let mut s = pos(&r, &[23, 0, 0, 0, 0, 0, 5, 5, 5, 5, 5, 0], &[0, 0], 0);
    let info = s.apply(&r, 0).unwrap();
    assert_eq!(board(&r, &s), [0, 3, 2, 2, 2, 2, 7, 7, 7, 7, 7, 2]);
    // f now holds 2, but the last seed fell in South's own B: nothing is taken.
    assert_eq!(info.captured, 0);
    assert_eq!(scores(&r, &s), [0, 0]);
}

#[test]
fn twenty_two_seeds_make_two_full_laps_ending_just_before_the_origin() {
    let r = Rules::abapa();
    let mut s = pos(&r, &[0, 0, 0, 0, 0, 22, 2, 2, 2, 2, 2, 16], &[0, 0], 0);
    let info = s.apply(&r, 5).unwrap();
    // Every other hole gets two seeds, F none; the last seed is in E (own row): no capture,
    // although the whole of North's a..e now holds 4.
    assert_eq!(board(&r, &s), [2, 2, 2, 2, 2, 0, 4, 4, 4, 4, 4, 18]);
    assert_eq!(info.captured, 0);
    assert_eq!(s.to_move(), 1);
}

// « lorsque la dernière graine placée lors d'un déplacement est laissée dans un trou de
// l'adversaire, et que ce trou contient deux ou trois graines (y compris les graines semées), le
// joueur qui a semé les graines ramasse celles de son adversaire et les maintient hors du
// plateau. »
#[test]
fn last_seed_making_two_or_three_in_an_opponent_hole_captures() {
    let r = Rules::abapa();
    // South E holds 2: F and North's a get one each. `before` is what a held.
    for (before, taken) in [(0u8, 0u8), (1, 2), (2, 3), (3, 0), (5, 0)] {
        let mut s = pos(
            &r,
            &[0, 0, 0, 0, 2, 0, before, 4, 4, 4, 4, 4],
            &[10, 16 - before],
            0,
        );
        let info = s.apply(&r, 4).unwrap();
        assert_eq!(info.captured, taken, "a held {before}");
        assert!(!info.grand_slam);
        let a_after = if taken > 0 { 0 } else { before + 1 };
        assert_eq!(board(&r, &s), [0, 0, 0, 0, 0, 1, a_after, 4, 4, 4, 4, 4]);
        assert_eq!(scores(&r, &s), [10 + taken, 16 - before]);
    }
}

// « Après avoir effectué la capture, si le trou précédent (précédent dans le sens de
// l'ensemencement) a également deux ou trois graines et appartient à l'adversaire, ces graines
// sont également capturées ; les captures sont répétées jusqu'à ce que le trou précédent ait une
// ou plus de trois graines, ou appartienne au joueur qui a effectué la semence des graines. »
#[test]
fn capture_chains_backwards_and_stops_at_the_movers_own_row() {
    let r = Rules::abapa();
    // South D (6 seeds) sows E, F, a, b, c, d; a..d become 2, 3, 2, 3 and F becomes 2.
    let mut s = pos(&r, &[0, 0, 0, 6, 0, 1, 1, 2, 1, 2, 4, 4], &[13, 14], 0);
    let info = s.apply(&r, 3).unwrap();
    assert_eq!(info.captured, 3 + 2 + 3 + 2);
    // The chain went d, c, b, a and stopped at South's own F, which holds 2 but is not taken.
    assert_eq!(board(&r, &s), [0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 4, 4]);
    assert_eq!(scores(&r, &s), [23, 14]);
}

#[test]
fn capture_chain_stops_at_a_hole_with_one_seed() {
    let r = Rules::abapa();
    // a..d become 2, 1, 2, 3: d and c are taken, b (1) stops the chain, a (2) stays.
    let mut s = pos(&r, &[0, 0, 0, 6, 0, 1, 1, 0, 1, 2, 4, 4], &[14, 15], 0);
    let info = s.apply(&r, 3).unwrap();
    assert_eq!(info.captured, 5);
    assert_eq!(board(&r, &s), [0, 0, 0, 0, 1, 2, 2, 1, 0, 0, 4, 4]);
}

#[test]
fn capture_chain_stops_at_a_hole_with_more_than_three_seeds() {
    let r = Rules::abapa();
    // a..d become 2, 4, 2, 3: d and c are taken, b (4) stops the chain, a (2) stays.
    let mut s = pos(&r, &[0, 0, 0, 6, 0, 1, 1, 3, 1, 2, 4, 4], &[12, 14], 0);
    let info = s.apply(&r, 3).unwrap();
    assert_eq!(info.captured, 5);
    assert_eq!(board(&r, &s), [0, 0, 0, 0, 1, 2, 2, 4, 0, 0, 4, 4]);
}

// Captures happen only « dans un trou de l'adversaire ».
#[test]
fn no_capture_in_the_movers_own_row() {
    let r = Rules::abapa();
    // South A (2 seeds) ends in its own C, which becomes 2.
    let mut s = pos(&r, &[2, 0, 1, 0, 0, 0, 4, 4, 4, 4, 4, 4], &[10, 11], 0);
    let info = s.apply(&r, 0).unwrap();
    assert_eq!(info.captured, 0);
    assert_eq!(board(&r, &s), [0, 1, 2, 0, 0, 0, 4, 4, 4, 4, 4, 4]);
    assert_eq!(scores(&r, &s), [10, 11]);

    // The same for North: a (2 seeds) ends in its own c, which becomes 3.
    let mut s = pos(&r, &[4, 4, 4, 4, 4, 4, 2, 0, 2, 0, 0, 0], &[10, 10], 1);
    let info = s.apply(&r, 0).unwrap();
    assert_eq!(info.captured, 0);
    assert_eq!(board(&r, &s), [4, 4, 4, 4, 4, 4, 0, 1, 3, 0, 0, 0]);

    // And North capturing in South's row works the same way: f (1 seed) makes A 2.
    let mut s = pos(&r, &[1, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 1], &[3, 3], 1);
    let info = s.apply(&r, 5).unwrap();
    assert_eq!(info.captured, 2);
    assert_eq!(scores(&r, &s), [3, 5]);
    assert_eq!(s.pits()[0], 0);
}

// « Cependant, si un coup permet de capturer toutes les graines d'un adversaire, les graines ne
// sont pas capturées et sont laissées sur le plateau, car cela empêcherait l'adversaire de
// continuer la partie. »
#[test]
fn grand_slam_is_played_but_captures_nothing() {
    let r = Rules::abapa();
    assert_eq!(r.grand_slam, GrandSlam::NoCapture);
    // North holds only a=1, b=2; South F (2) makes them 2 and 3: every North seed.
    let s0 = pos(&r, &[4, 0, 0, 0, 0, 2, 1, 2, 0, 0, 0, 0], &[20, 19], 0);
    assert_eq!(
        s0.legal_mask(&r),
        0b100001,
        "the grand slam is a legal move"
    );
    let mut s = s0;
    let info = s.apply(&r, 5).unwrap();
    assert!(info.grand_slam);
    assert_eq!(info.captured, 0);
    assert_eq!(board(&r, &s), [4, 0, 0, 0, 0, 0, 2, 3, 0, 0, 0, 0]);
    assert_eq!(scores(&r, &s), [20, 19]);
    assert_eq!(s.status(), Status::Ongoing);
    assert_eq!(s.to_move(), 1);

    // With one more North seed in f the same move takes a and b normally.
    let mut s = pos(&r, &[4, 0, 0, 0, 0, 2, 1, 2, 0, 0, 0, 1], &[20, 18], 0);
    let info = s.apply(&r, 5).unwrap();
    assert!(!info.grand_slam);
    assert_eq!(info.captured, 5);
    assert_eq!(scores(&r, &s), [25, 18]);
}

// « Si les trous de l'adversaire sont tous vides, le joueur actuel doit faire un mouvement qui
// donne des graines à l'adversaire. »
#[test]
fn feeding_obligation_only_feeding_moves_are_legal() {
    let r = Rules::abapa();
    // North is empty. A (5) and B (1) stay in South's row; E (2) and F (1) reach North.
    let s = pos(&r, &[5, 1, 0, 0, 2, 1, 0, 0, 0, 0, 0, 0], &[20, 19], 0);
    assert_eq!(s.status(), Status::Ongoing);
    assert_eq!(s.legal_mask(&r), 0b110000);
    assert_eq!(s.legal_moves(&r), vec![4, 5]);

    // A non-feeding move is refused with the typed error and changes nothing.
    for house in [0, 1] {
        let err = assert_illegal(&r, &s, house);
        assert!(err.to_string().contains("does not feed"), "{err}");
    }
    // Empty and non-existent houses are refused too.
    let err = assert_illegal(&r, &s, 2);
    assert!(err.to_string().contains("empty"), "{err}");
    let err = assert_illegal(&r, &s, 6);
    assert!(err.to_string().contains("no such house"), "{err}");

    // The same through Game: the game is untouched and no move is recorded.
    let mut g = Game::from_state(r, s);
    assert!(matches!(g.apply(0), Err(AwaleError::IllegalMove { .. })));
    assert_eq!(*g.state(), s);
    assert!(g.moves().is_empty());

    // A feeding move is played.
    let mut t = s;
    t.apply(&r, 4).unwrap();
    assert_eq!(board(&r, &t), [5, 1, 0, 0, 0, 2, 1, 0, 0, 0, 0, 0]);
    assert_eq!(t.to_move(), 1);
    assert_eq!(t.status(), Status::Ongoing);
}

// « Si un tel mouvement n'est pas possible, le joueur actuel capture toutes les graines de son
// propre territoire, mettant ainsi fin à la partie. »
#[test]
fn no_feeding_move_the_mover_takes_his_own_row_and_the_game_ends() {
    let r = Rules::abapa();
    // South to move, North empty, and A (1), B (1), C (1) cannot reach North.
    let s = pos(&r, &[1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0], &[22, 23], 0);
    assert_eq!(s.status(), Status::Ended(EndReason::CannotFeed));
    assert_eq!(scores(&r, &s), [25, 23]);
    assert_eq!(s.board_seeds(&r), 0);
    assert_eq!(s.legal_mask(&r), 0);

    // Reached by a move: North plays its last seed (f) into South's A.
    let mut g = game(&r, &[0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1], &[22, 23], 1);
    assert_eq!(g.status(), Status::Ongoing);
    let info = g.apply(5).unwrap();
    assert_eq!(info.captured, 0);
    assert_eq!(g.status(), Status::Ended(EndReason::CannotFeed));
    assert_eq!(g.scores(), vec![25, 23]);
    assert_eq!(g.returns()[..2], [1.0, -1.0]);
    assert!(matches!(g.apply(0), Err(AwaleError::GameOver(_))));
}

// « Si un joueur capture plus de la moitié des graines (25 ou plus), l'adversaire ne peut plus
// gagner et le jeu se termine. »
#[test]
fn reaching_twenty_five_ends_the_game() {
    let r = Rules::abapa();
    assert_eq!(r.win_threshold, 25);
    // South E (2) makes North's a 2: South goes from 23 to 25.
    let mut s = pos(&r, &[0, 0, 0, 0, 2, 0, 1, 4, 4, 4, 4, 4], &[23, 2], 0);
    let info = s.apply(&r, 4).unwrap();
    assert_eq!(info.captured, 2);
    assert_eq!(s.status(), Status::Ended(EndReason::Threshold));
    assert_eq!(scores(&r, &s), [25, 2]);
    // The seeds still on the board stay there (no sweep in these rules).
    assert_eq!(board(&r, &s), [0, 0, 0, 0, 0, 1, 0, 4, 4, 4, 4, 4]);
    assert_eq!(s.legal_mask(&r), 0);
    assert_eq!(s.winners(&r), vec![0]);
    assert_eq!(s.returns(&r)[..2], [1.0, -1.0]);
    let mut t = s;
    assert!(matches!(t.apply(&r, 0), Err(AwaleError::GameOver(_))));
    assert_eq!(t, s);

    // 24 is not enough.
    let mut s = pos(&r, &[0, 0, 0, 0, 2, 0, 1, 4, 4, 4, 4, 4], &[22, 3], 0);
    s.apply(&r, 4).unwrap();
    assert_eq!(scores(&r, &s), [24, 3]);
    assert_eq!(s.status(), Status::Ongoing);

    // North reaching 25 wins for North.
    let mut s = pos(&r, &[1, 4, 4, 4, 4, 4, 0, 0, 0, 0, 0, 1], &[3, 23], 1);
    s.apply(&r, 5).unwrap();
    assert_eq!(s.status(), Status::Ended(EndReason::Threshold));
    assert_eq!(s.returns(&r)[..2], [-1.0, 1.0]);
}

// OpenSpiel's variant of the same rules sweeps the seeds left on the board to their owners.
#[test]
fn openspiel_sweeps_the_board_to_the_row_owners_at_the_end() {
    let r = Rules::openspiel();
    let mut s = pos(&r, &[0, 0, 0, 0, 2, 0, 1, 4, 4, 4, 4, 4], &[23, 2], 0);
    s.apply(&r, 4).unwrap();
    assert_eq!(s.status(), Status::Ended(EndReason::Threshold));
    assert_eq!(s.board_seeds(&r), 0);
    assert_eq!(scores(&r, &s), [25 + 1, 2 + 20]);
}

/// Two seeds chasing each other round the board: South F=1 and North f=1, South to move. Every
/// position has exactly one legal move (after South's F, North must feed with f), no seed ever
/// lands on another, and after 12 plies the start position is back.
const CHASE_2: [u8; 12] = [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1];
const CHASE_2_MOVES: [usize; 12] = [5, 5, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4];

/// Five seeds going round without ever meeting; the start position (South 4 seeds on his side,
/// North 1, South to move) comes back after 12 plies.
const CHASE_5: [u8; 12] = [1, 0, 1, 0, 1, 1, 0, 0, 0, 1, 0, 0];
const CHASE_5_MOVES: [usize; 12] = [2, 3, 5, 4, 4, 0, 0, 1, 1, 2, 3, 5];

// « Si un cycle infini de déplacements se produit (supposé lorsque le même plateau se reproduit)
// et que les deux joueurs ont au moins 1 graine à leur côté, toutes les graines restantes sont
// partagées entre les joueurs. Chaque joueur reçoit les graines qui se trouvent dans ses trous. »
#[test]
fn repeated_position_ends_the_game_each_takes_his_own_row() {
    let r = Rules::abapa();
    let mut g = game(&r, &CHASE_2, &[23, 23], 0);
    for (i, &m) in CHASE_2_MOVES.iter().enumerate() {
        assert_eq!(g.status(), Status::Ongoing, "before ply {i}");
        assert_eq!(g.legal_moves(), vec![m], "the chase is forced at ply {i}");
        let info = g.apply(m).unwrap();
        assert_eq!(info.any_captured, 0);
    }
    assert_eq!(g.status(), Status::Ended(EndReason::Repetition));
    assert_eq!(g.state().board_seeds(&r), 0);
    // Each took the single seed in his own row: 24-24 is a draw.
    assert_eq!(g.scores(), vec![24, 24]);
    assert_eq!(g.state().winners(&r), vec![0, 1]);
    assert_eq!(g.returns()[..2], [0.0, 0.0]);

    // With an uneven split of the board, each still takes exactly his own row.
    let mut g = game(&r, &CHASE_5, &[21, 22], 0);
    play(&mut g, &CHASE_5_MOVES[..11]);
    assert_eq!(g.status(), Status::Ongoing);
    play(&mut g, &CHASE_5_MOVES[11..]);
    assert_eq!(g.status(), Status::Ended(EndReason::Repetition));
    assert_eq!(g.scores(), vec![21 + 4, 22 + 1]);
    assert_eq!(g.returns()[..2], [1.0, -1.0]);
}

#[test]
fn cycle_option_split_shares_the_board_odd_seed_to_the_fuller_side() {
    let r = rules("abapa:cycle=split");
    let mut g = game(&r, &CHASE_5, &[21, 22], 0);
    play(&mut g, &CHASE_5_MOVES);
    assert_eq!(g.status(), Status::Ended(EndReason::Repetition));
    // 5 seeds: 3 to South (4 on his side), 2 to North.
    assert_eq!(g.scores(), vec![24, 24]);

    // Directly on a position: the odd seed goes to the side holding more, whoever is to move.
    let mut s = pos(&r, &[1, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0], &[22, 23], 0);
    s.end_by_repetition(&r);
    assert_eq!(s.status(), Status::Ended(EndReason::Repetition));
    assert_eq!(scores(&r, &s), [23, 25]);
    let mut s = pos(&r, &[1, 0, 0, 0, 2, 0, 0, 2, 0, 0, 0, 0], &[21, 22], 1);
    s.end_by_repetition(&r);
    assert_eq!(scores(&r, &s), [24, 24]);
    assert_eq!(s.board_seeds(&r), 0);
}

#[test]
fn cycle_option_ignore_plays_on_until_the_ply_limit() {
    let r = rules("abapa:cycle=ignore,max_plies=30");
    let mut g = game(&r, &CHASE_2, &[23, 23], 0);
    for _ in 0..2 {
        play(&mut g, &CHASE_2_MOVES);
        assert_eq!(g.status(), Status::Ongoing);
    }
    play(&mut g, &CHASE_2_MOVES[..6]);
    assert_eq!(g.state().ply(), 30);
    assert_eq!(g.status(), Status::Truncated);
    assert_eq!(g.legal_mask(), 0);
    assert_eq!(g.returns(), [0.0; awale::MAX_PLAYERS]);
    assert!(matches!(g.apply(0), Err(AwaleError::GameOver(_))));
    // Without a ply limit an ignored cycle could go on forever: such rules are refused.
    assert!("abapa:cycle=ignore".parse::<Rules>().is_err());
}

#[test]
fn cycle_option_each_takes_own_on_wari() {
    let r = rules("wari:cycle=each_takes_own");
    let mut g = game(&r, &CHASE_5, &[21, 22], 0);
    play(&mut g, &CHASE_5_MOVES);
    assert_eq!(g.status(), Status::Ended(EndReason::Repetition));
    assert_eq!(g.scores(), vec![25, 23]);
}

/// South F (2) would take all of North's seeds (a=1, b=2 become 2, 3).
const SLAM: [u8; 12] = [4, 0, 0, 0, 0, 2, 1, 2, 0, 0, 0, 0];

#[test]
fn grand_slam_options() {
    // no_capture: played, nothing taken.
    let r = rules("abapa:grand_slam=no_capture");
    let mut s = pos(&r, &SLAM, &[16, 23], 0);
    let info = s.apply(&r, 5).unwrap();
    assert!(info.grand_slam && info.captured == 0);
    assert_eq!(s.status(), Status::Ongoing);

    // forbidden: refused while another move exists.
    let r = rules("abapa:grand_slam=forbidden");
    let s = pos(&r, &SLAM, &[16, 23], 0);
    assert_eq!(s.legal_mask(&r), 0b000001);
    let err = assert_illegal(&r, &s, 5);
    assert!(err.to_string().contains("grand slam"), "{err}");

    // capture_all: everything is taken; North, left without seeds, is starved and the feeder
    // (South) takes the rest of the board.
    let r = rules("abapa:grand_slam=capture_all");
    let mut s = pos(&r, &SLAM, &[16, 23], 0);
    let info = s.apply(&r, 5).unwrap();
    assert!(info.grand_slam);
    assert_eq!(info.captured, 5);
    assert_eq!(s.status(), Status::Ended(EndReason::Starvation));
    assert_eq!(scores(&r, &s), [16 + 5 + 4, 23]);
    assert_eq!(s.board_seeds(&r), 0);
}

#[test]
fn win_none_plays_past_twenty_five() {
    let r = rules("abapa:win=none");
    assert_eq!(r.win_threshold, 0);
    let mut s = pos(&r, &[0, 0, 0, 0, 2, 0, 1, 4, 4, 4, 4, 4], &[23, 2], 0);
    s.apply(&r, 4).unwrap();
    assert_eq!(scores(&r, &s), [25, 2]);
    assert_eq!(s.status(), Status::Ongoing);
    assert_eq!(s.to_move(), 1);
}

#[test]
fn smaller_board_houses_4_seeds_3() {
    // 4 houses x 2 players x 3 seeds = 24 seeds: the default threshold of 25 is refused.
    assert!("abapa:houses=4,seeds=3".parse::<Rules>().is_err());
    let r = rules("abapa:houses=4,seeds=3,win=13");
    assert_eq!(r.pits(), 8);
    assert_eq!(r.total_seeds(), 24);
    let mut g = Game::new(r);
    assert_eq!(board(&r, g.state()), vec![3; 8]);
    assert_eq!(g.legal_mask(), 0b1111);
    // South D (pit 3) sows into North's first three holes (pits 4, 5, 6).
    g.apply(3).unwrap();
    assert_eq!(board(&r, g.state()), [3, 3, 3, 0, 4, 4, 4, 3]);
    assert_eq!(g.to_move(), 1);

    // A lap on an 8-pit board: 8 seeds go round the 7 other holes, the 8th skips A.
    let mut s = pos(&r, &[8, 0, 0, 0, 1, 1, 1, 1], &[6, 6], 0);
    s.apply(&r, 0).unwrap();
    assert_eq!(board(&r, &s), [0, 2, 1, 1, 2, 2, 2, 2]);

    // Capture in the smaller North row (pits 4..8): D (2 seeds) sows a and b, making them 2, 3.
    let mut s = pos(&r, &[0, 0, 0, 2, 1, 2, 0, 1], &[9, 9], 0);
    let info = s.apply(&r, 3).unwrap();
    assert_eq!(info.captured, 5);
    assert_eq!(board(&r, &s), [0, 0, 0, 0, 0, 0, 0, 1]);

    // Feeding with 4 houses: house i reaches North with at least 4 - i seeds.
    let s = pos(&r, &[3, 3, 1, 0, 0, 0, 0, 0], &[9, 8], 0);
    assert_eq!(s.legal_mask(&r), 0b0010);
    let s = pos(&r, &[1, 1, 1, 0, 0, 0, 0, 0], &[10, 11], 0);
    assert_eq!(s.status(), Status::Ended(EndReason::CannotFeed));
    assert_eq!(scores(&r, &s), [13, 11]);
}

#[test]
fn skip_origin_false_puts_the_twelfth_seed_in_the_origin() {
    let r = rules("abapa:skip_origin=false");
    assert!(!r.skip_origin);
    let mut s = pos(&r, &[12, 0, 0, 0, 0, 0, 6, 6, 6, 6, 6, 6], &[0, 0], 0);
    let info = s.apply(&r, 0).unwrap();
    assert_eq!(board(&r, &s), [1, 1, 1, 1, 1, 1, 7, 7, 7, 7, 7, 7]);
    assert_eq!(info.captured, 0);
    // 13 seeds: the 13th lands in B, as the 12th does when the origin is skipped.
    let mut s = pos(&r, &[13, 0, 0, 0, 0, 0, 6, 6, 6, 6, 6, 5], &[0, 0], 0);
    s.apply(&r, 0).unwrap();
    assert_eq!(board(&r, &s), [1, 2, 1, 1, 1, 1, 7, 7, 7, 7, 7, 6]);
}

#[test]
fn ply_limit_truncates_instead_of_failing() {
    let r = rules("abapa:max_plies=5");
    let mut g = Game::new(r);
    while !g.is_over() {
        let m = g.legal_moves()[0];
        g.apply(m).unwrap();
    }
    assert_eq!(g.status(), Status::Truncated);
    assert_eq!(g.state().ply(), 5);
    assert_eq!(g.returns(), [0.0; awale::MAX_PLAYERS]);
    assert!(g.state().winners(&r).is_empty());
}

// « Si un cycle infini de déplacements se produit (supposé lorsque le même plateau se reproduit)
// et que les deux joueurs ont au moins 1 graine à leur côté, toutes les graines restantes sont
// partagées entre les joueurs. Chaque joueur reçoit les graines qui se trouvent dans ses trous. »
#[test]
fn a_repetition_with_an_empty_row_does_not_end_the_game() {
    // The example of issue 17: `abapa 0,0,0,0,0,0/1,0,0,0,0,1 23,23 1`, moves
    // `f A a B b C c D d E e F`. The two seeds chase each other round the board and the start
    // position comes back, South's row empty.
    let start = [0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
    let moves = [5, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5];
    let r = Rules::abapa();
    assert!(r.cycle_needs_seeds);
    let mut g = game(&r, &start, &[23, 23], 1);
    play(&mut g, &moves);
    assert_eq!(g.state().key(), pos(&r, &start, &[23, 23], 1).key());
    assert!(!g.state().repetition_ends(&r));
    assert_eq!(
        g.status(),
        Status::Ongoing,
        "South has no seed: no cycle end"
    );
    // North must feed (f); the position after the first move comes back, a seed on each side:
    // now the cycle rule applies and each takes the seed of his row.
    assert_eq!(g.legal_moves(), vec![5]);
    g.apply(5).unwrap();
    assert_eq!(g.status(), Status::Ended(EndReason::Repetition));
    assert_eq!(g.scores(), vec![24, 24]);
    assert_eq!(g.returns()[..2], [0.0, 0.0]);

    // The old rule, and OpenSpiel's: every repetition ends the game, here 23-25.
    for spec in ["abapa:cycle_if_seeded=false", "openspiel"] {
        let r = rules(spec);
        assert!(!r.cycle_needs_seeds);
        let mut g = game(&r, &start, &[23, 23], 1);
        play(&mut g, &moves);
        assert_eq!(g.status(), Status::Ended(EndReason::Repetition), "{spec}");
        assert_eq!(g.scores(), vec![23, 25], "{spec}");
    }

    // Directly on a position: nothing happens while a row is empty.
    let mut s = pos(&r, &start, &[23, 23], 1);
    s.end_by_repetition(&r);
    assert_eq!(s.status(), Status::Ongoing);
    assert_eq!(s.board_seeds(&r), 2);
}

#[test]
fn cycle_if_seeded_is_an_option() {
    assert!(
        Rules::awale().cycle_needs_seeds,
        "awale plays abapa's cycle rule"
    );
    assert!(!Rules::wari().cycle_needs_seeds);
    assert!(!Rules::openspiel().cycle_needs_seeds);
    assert!(!rules("oware4").cycle_needs_seeds);
    let r = rules("abapa:cycle_if_seeded=false");
    assert_eq!(r.to_string(), "abapa:cycle_if_seeded=false");
    assert_eq!(r.to_string().parse::<Rules>().unwrap(), r);
    assert!("abapa:cycle_if_seeded=maybe".parse::<Rules>().is_err());
    // Relay sowing could cycle for ever with a row empty at every repetition: a ply limit is
    // needed there.
    let e = "oware4:cycle_if_seeded=true".parse::<Rules>().unwrap_err();
    assert!(e.to_string().contains("max_plies"), "{e}");
    assert!("oware4:cycle_if_seeded=true,max_plies=500"
        .parse::<Rules>()
        .is_ok());
}
