//! The placing rating (`awale::ratings::placing`) on simulated tournaments of known strengths: games of
//! three players whose finishing orders are drawn from the Plackett–Luce model (an exponential
//! race: each player finishes at a time drawn with rate `10^(R/400)`, the first to finish
//! places first). The fit must land near the true ratings, its 95% intervals must hold them
//! about 95% of the time, and it must tell two agents apart in fewer games than the share of
//! first places does.

#![allow(clippy::needless_range_loop)] // indices name the players

use awale::ratings::elo::EloConfig;
use awale::ratings::placing::{fit, Placings};
use awale::tournament::first_places;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Stores of one simulated game between `players` of true Elo ratings `elo`: the finishing
/// order of the race, 24, 16 or 8 seeds by place; with probability `tie`, the first two tie.
fn game(rng: &mut ChaCha8Rng, elo: &[f64], players: &[usize], tie: f64) -> Vec<u32> {
    let times: Vec<f64> = players
        .iter()
        .map(|&i| {
            let rate = 10f64.powf(elo[i] / 400.0);
            -(1.0 - rng.random::<f64>()).ln() / rate
        })
        .collect();
    let mut order: Vec<usize> = (0..players.len()).collect();
    order.sort_by(|&a, &b| times[a].total_cmp(&times[b]));
    let mut scores = vec![0u32; players.len()];
    for (place, &k) in order.iter().enumerate() {
        scores[k] = 8 * (players.len() - place) as u32;
    }
    if rng.random::<f64>() < tie {
        scores[order[1]] = scores[order[0]];
    }
    scores
}

/// A simulated tournament: `games` games of 3 seats, each of the seatings of the three agents
/// `trio` in turn (every rotation, both orders).
fn tournament(
    seed: u64,
    elo: &[f64],
    games: usize,
    tie: f64,
) -> (Placings, Vec<Vec<u32>>, Vec<Vec<usize>>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let names: Vec<String> = (0..elo.len()).map(|i| format!("p{i}")).collect();
    let mut p = Placings::new(names);
    let n = elo.len();
    let mut seatings = Vec::new();
    for a in 0..n {
        for b in 0..n {
            for c in 0..n {
                if a != b && b != c && a != c {
                    seatings.push(vec![a, b, c]);
                }
            }
        }
    }
    let (mut all_scores, mut all_seats) = (Vec::new(), Vec::new());
    for g in 0..games {
        let seats = &seatings[g % seatings.len()];
        let scores = game(&mut rng, elo, seats, tie);
        p.add_game(seats, &scores).unwrap();
        all_scores.push(scores);
        all_seats.push(seats.clone());
    }
    (p, all_scores, all_seats)
}

#[test]
fn the_fit_recovers_known_strengths() {
    let elo = [0.0, 50.0, 100.0, 200.0];
    let (p, _, _) = tournament(1, &elo, 3000, 0.1);
    let f = fit(&p, &EloConfig::default()).unwrap();
    for i in 1..4 {
        let err = (f.ratings[i] - elo[i]).abs();
        assert!(
            err < 3.0 * f.stderr[i],
            "p{i}: {} for {} (±{})",
            f.ratings[i],
            elo[i],
            f.stderr[i]
        );
        assert!(
            f.stderr[i] > 5.0 && f.stderr[i] < 30.0,
            "p{i}: stderr {}",
            f.stderr[i]
        );
    }
}

#[test]
fn the_intervals_hold_the_true_ratings_about_95_percent_of_the_time() {
    let elo = [0.0, 60.0, 120.0];
    let (mut held, mut total) = (0, 0);
    for rep in 0..300 {
        let (p, _, _) = tournament(100 + rep, &elo, 300, 0.2);
        let f = fit(&p, &EloConfig::default()).unwrap();
        for i in 1..3 {
            total += 1;
            if f.lower[i] <= elo[i] && elo[i] <= f.upper[i] {
                held += 1;
            }
        }
    }
    let coverage = held as f64 / total as f64;
    assert!((0.92..=0.98).contains(&coverage), "coverage {coverage}");
}

#[test]
fn the_rating_tells_two_agents_apart_in_fewer_games_than_first_places() {
    // One agent 40 Elo above two equal ones, 600 games (the floors' count): how often each measure says it is the
    // stronger (rating interval above the others'; share of first places above the fair share).
    let elo = [0.0, 0.0, 40.0];
    let names: Vec<String> = (0..3).map(|i| format!("p{i}")).collect();
    let (mut by_rating, mut by_share) = (0, 0);
    for rep in 0..100 {
        let (p, scores, seats) = tournament(1000 + rep, &elo, 600, 0.2);
        let f = fit(&p, &EloConfig::default()).unwrap();
        if f.lower[2] > 0.0 {
            by_rating += 1;
        }
        let seat_names: Vec<Vec<&str>> = seats
            .iter()
            .map(|s| s.iter().map(|&i| names[i].as_str()).collect())
            .collect();
        let share = first_places(
            &names,
            seat_names
                .iter()
                .zip(&scores)
                .map(|(s, x)| (&s[..], &x[..])),
        );
        if share[2].lower > share[2].fair_share {
            by_share += 1;
        }
    }
    assert!(by_rating >= 75, "the rating separated {by_rating} of 100");
    assert!(
        by_rating >= by_share + 10,
        "rating {by_rating}, first places {by_share}"
    );
    eprintln!(
        "separated in 100 tournaments: by the rating {by_rating}, by first places {by_share}"
    );
}

#[test]
fn a_rating_with_no_games_is_an_error() {
    let p = Placings::new(vec!["a".into(), "b".into(), "c".into()]);
    let e = fit(&p, &EloConfig::default()).unwrap_err().to_string();
    assert!(e.contains("no games"), "{e}");
}
