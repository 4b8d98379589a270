//! Rule points of Wari, document `003_*`: optional feeding, the starved player's harvest and its
//! exception, the grand slam, the 25-seed win and the split of seeds chasing each other. Also
//! the starvation and feeding options.
//!
//! South (player 0) owns pits 0..6 (houses A..F), North (player 1) pits 6..12 (a..f).

mod common;

use awale::{EndReason, Feeding, Game, Rules, Starvation, Status};
use common::{assert_illegal, board, game, play, pos, rules, scores};

// « Le joueur dont c'est le tour prends toutes les graines d'un de ses champs (trous) et les
// sèment une à une dans les champs suivants, en tournant dans le sens inverse des aiguilles d'une
// montre, mais sans en placer dans le champ d'origine. Si un joueur sème plus de douze graines,
// il repasse par son champ de départ mais n'y dépose pas de graine, il continue avec le champ
// suivant. »
#[test]
fn sowing_never_puts_a_seed_in_the_origin() {
    let r = Rules::wari();
    let mut g = Game::new(r);
    g.apply(0).unwrap();
    assert_eq!(board(&r, g.state()), [0, 5, 5, 5, 5, 4, 4, 4, 4, 4, 4, 4]);
    // 14 seeds from North's b (pit 7): one lap of the 11 other fields, then c, d, e again.
    let mut s = pos(&r, &[2, 2, 2, 2, 2, 2, 0, 14, 0, 0, 0, 0], &[11, 11], 1);
    s.apply(&r, 1).unwrap();
    assert_eq!(board(&r, &s), [3, 3, 3, 3, 3, 3, 1, 0, 2, 2, 2, 1]);
}

// « Si la dernière graine semée amène le champ à un total de deux ou trois graines, et si ce
// champ appartient à son adversaire, le joueur récolte les graines de ce champ et les placent
// devant lui. Si il a récolté et que le champ précédent obéit aux mêmes conditions, il le récolte
// également, et ainsi de suite. »
#[test]
fn harvest_of_two_or_three_and_the_preceding_fields() {
    let r = Rules::wari();
    let mut s = pos(&r, &[0, 0, 0, 6, 0, 1, 1, 2, 1, 2, 4, 4], &[13, 14], 0);
    let info = s.apply(&r, 3).unwrap();
    assert_eq!(info.captured, 10);
    assert_eq!(board(&r, &s), [0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 4, 4]);
}

// « Exception : si un joueur joue un coup qui lui ferait récolter toutes les graines des champs
// de son adversaire, il ne récolte en fait aucune graine. Il peut cependant jouer ce coup. »
#[test]
fn grand_slam_may_be_played_but_harvests_nothing() {
    let r = Rules::wari();
    let s = pos(&r, &[4, 0, 0, 0, 0, 2, 1, 2, 0, 0, 0, 0], &[20, 19], 0);
    assert_eq!(s.legal_mask(&r), 0b100001);
    let mut t = s;
    let info = t.apply(&r, 5).unwrap();
    assert!(info.grand_slam);
    assert_eq!(info.captured, 0);
    assert_eq!(board(&r, &t), [4, 0, 0, 0, 0, 0, 2, 3, 0, 0, 0, 0]);
    assert_eq!(t.status(), Status::Ongoing);
}

// « Si un des joueurs n'a plus aucune graine dans ses champs, l'autre joueur doit jouer un coup
// lui en redonnant. Si il ne le fait pas, ou ne peut le faire, le joueur affamé (sans graines)
// récolte toutes les graines présentes dans tous les champs et la partie se termine. »
#[test]
fn feeding_is_optional_and_the_starved_player_harvests_everything() {
    let r = Rules::wari();
    assert_eq!(r.feeding, Feeding::Optional);
    // North is empty; South's A and B do not feed, E and F do. All four may be played.
    let s = pos(&r, &[5, 1, 0, 0, 2, 1, 0, 0, 0, 0, 0, 0], &[20, 19], 0);
    assert_eq!(s.status(), Status::Ongoing);
    assert_eq!(s.legal_mask(&r), 0b110011);

    // South does not feed: North, starved, harvests the 9 seeds and the game ends.
    let mut t = s;
    t.apply(&r, 0).unwrap();
    assert_eq!(t.status(), Status::Ended(EndReason::Starvation));
    assert_eq!(scores(&r, &t), [20, 28]);
    assert_eq!(t.board_seeds(&r), 0);
    assert_eq!(t.returns(&r)[..2], [-1.0, 1.0]);

    // South feeds: the game goes on.
    let mut t = s;
    t.apply(&r, 4).unwrap();
    assert_eq!(t.status(), Status::Ongoing);
    assert_eq!(t.to_move(), 1);
}

#[test]
fn the_starved_player_harvests_when_he_cannot_be_fed() {
    let r = Rules::wari();
    // South's four seeds (A..D, one each) cannot reach North; the game is not over yet, South
    // plays, and North then harvests the 4 seeds (more than 3: no sharing).
    let mut s = pos(&r, &[1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0], &[22, 22], 0);
    assert_eq!(s.status(), Status::Ongoing);
    assert_eq!(s.legal_mask(&r), 0b001111);
    s.apply(&r, 0).unwrap();
    assert_eq!(s.status(), Status::Ended(EndReason::Starvation));
    assert_eq!(scores(&r, &s), [22, 26]);

    // The starved player may also be the one to move: North left South without seeds.
    let s = pos(&r, &[0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0], &[20, 23], 0);
    assert_eq!(s.status(), Status::Ended(EndReason::Starvation));
    assert_eq!(scores(&r, &s), [25, 23]);
}

// « Exception : si le joueur possédant encore des graines en a trois ou moins, on partage les
// graines restantes entre les joueurs (à l'avantage du joueur en possédant encore) et la partie
// se termine. »
#[test]
fn a_feeder_with_three_or_fewer_shares_them_odd_seed_to_himself() {
    let r = Rules::wari();
    assert_eq!(r.starvation, Starvation::StarvedUnlessFew(3));
    // 3 seeds: 2 to South (the feeder), 1 to North.
    let mut s = pos(&r, &[1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0], &[22, 23], 0);
    s.apply(&r, 0).unwrap();
    assert_eq!(s.status(), Status::Ended(EndReason::Starvation));
    assert_eq!(scores(&r, &s), [24, 24]);
    // 2 seeds: one each.
    let mut s = pos(&r, &[1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], &[23, 23], 0);
    s.apply(&r, 1).unwrap();
    assert_eq!(scores(&r, &s), [24, 24]);
    // 1 seed: it goes to the feeder.
    let mut s = pos(&r, &[0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0], &[23, 24], 0);
    s.apply(&r, 4).unwrap();
    assert_eq!(scores(&r, &s), [24, 24]);
    // The feeder is North, to move is South with nothing: North holds 3, keeps 2.
    let s = pos(&r, &[0, 0, 0, 0, 0, 0, 0, 1, 0, 2, 0, 0], &[22, 23], 0);
    assert_eq!(s.status(), Status::Ended(EndReason::Starvation));
    assert_eq!(scores(&r, &s), [23, 25]);
}

// « Lorsqu'un joueur a récolté vingt-cinq graines, la partie se termine et il l'emporte. »
#[test]
fn twenty_five_seeds_win() {
    let r = Rules::wari();
    let mut s = pos(&r, &[0, 0, 0, 0, 2, 0, 1, 4, 4, 4, 4, 4], &[23, 2], 0);
    s.apply(&r, 4).unwrap();
    assert_eq!(s.status(), Status::Ended(EndReason::Threshold));
    assert_eq!(s.returns(&r)[..2], [1.0, -1.0]);
}

// « Exception : si ce n'est pas le cas et qu'il reste un nombre réduit de graines qui se courent
// après sans s'atteindre, on les partage entre les joueurs et on termine ainsi la partie. »
#[test]
fn seeds_chasing_each_other_are_shared() {
    let r = Rules::wari();
    // Two seeds (South F, North f) go round the board without meeting; the position comes back
    // after 12 plies and the two seeds are shared.
    let mut g = game(&r, &[0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1], &[23, 23], 0);
    play(&mut g, &[5, 5, 0, 0, 1, 1, 2, 2, 3, 3, 4]);
    assert_eq!(g.status(), Status::Ongoing);
    play(&mut g, &[4]);
    assert_eq!(g.status(), Status::Ended(EndReason::Repetition));
    assert_eq!(g.scores(), vec![24, 24]);

    // Five seeds, four of them on South's side when the position repeats: shared 3 and 2 (the
    // odd seed to the side holding more), where "each takes his own row" would give 4 and 1.
    let mut g = game(&r, &[1, 0, 1, 0, 1, 1, 0, 0, 0, 1, 0, 0], &[21, 22], 0);
    play(&mut g, &[2, 3, 5, 4, 4, 0, 0, 1, 1, 2, 3, 5]);
    assert_eq!(g.status(), Status::Ended(EndReason::Repetition));
    assert_eq!(g.scores(), vec![24, 24]);
    assert_eq!(g.returns()[..2], [0.0, 0.0]);
}

/// South holds A, B, C = 1 each; North is empty; South plays A and cannot feed.
fn starve_three(spec: &str, scores0: [u8; 2]) -> Vec<u8> {
    let r = rules(spec);
    let mut s = pos(&r, &[1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0], &scores0, 0);
    s.apply(&r, 0).unwrap();
    assert_eq!(s.status(), Status::Ended(EndReason::Starvation), "{spec}");
    assert_eq!(s.board_seeds(&r), 0);
    scores(&r, &s)
}

#[test]
fn starvation_options() {
    assert_eq!(starve_three("wari", [22, 23]), [24, 24]);
    assert_eq!(starve_three("wari:starvation=starved", [22, 23]), [22, 26]);
    assert_eq!(starve_three("wari:starvation=feeder", [22, 23]), [25, 23]);
    assert_eq!(
        starve_three("wari:starvation=starved_unless_2", [22, 23]),
        [22, 26]
    );

    // starved_unless_5 with 5 seeds: shared 3 (feeder) and 2.
    let r = rules("wari:starvation=starved_unless_5");
    assert_eq!(r.starvation, Starvation::StarvedUnlessFew(5));
    let mut s = pos(&r, &[1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0], &[21, 22], 0);
    s.apply(&r, 0).unwrap();
    assert_eq!(scores(&r, &s), [24, 24]);

    // Abapa with optional feeding keeps its own starvation rule: the feeder takes all.
    let r = rules("abapa:feeding=optional");
    let mut s = pos(&r, &[5, 1, 0, 0, 2, 1, 0, 0, 0, 0, 0, 0], &[20, 19], 0);
    assert_eq!(s.legal_mask(&r), 0b110011);
    s.apply(&r, 0).unwrap();
    assert_eq!(s.status(), Status::Ended(EndReason::Starvation));
    assert_eq!(scores(&r, &s), [29, 19]);

    assert!("wari:starvation=hungry".parse::<Rules>().is_err());
}

#[test]
fn feeding_required_option_on_wari() {
    let r = rules("wari:feeding=required");
    let s = pos(&r, &[5, 1, 0, 0, 2, 1, 0, 0, 0, 0, 0, 0], &[20, 19], 0);
    assert_eq!(s.legal_mask(&r), 0b110000);
    assert_illegal(&r, &s, 0);
    // Unable to feed, the game ends at once; wari's starvation rule still decides who takes the
    // seeds (3 held by the feeder: shared, 2 to him).
    let s = pos(&r, &[1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0], &[22, 23], 0);
    assert_eq!(s.status(), Status::Ended(EndReason::CannotFeed));
    assert_eq!(scores(&r, &s), [24, 24]);
}

#[test]
fn ply_limit_truncates() {
    let r = rules("wari:max_plies=12");
    let mut g = Game::new(r);
    while !g.is_over() {
        let m = g.legal_moves()[0];
        g.apply(m).unwrap();
    }
    assert_eq!(g.status(), Status::Truncated);
    assert_eq!(g.state().ply(), 12);
    assert_eq!(g.returns(), [0.0; awale::MAX_PLAYERS]);
}
