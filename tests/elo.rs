//! The Elo fit: recovery of known ratings from synthetic results, intervals, anchor, LOS.

#![allow(clippy::needless_range_loop)]

use awale::ratings::elo::{fit, EloConfig, Matchups};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Synthetic results: every pair plays `games` games; the expected score follows the Elo
/// formula, with draws (a share of the games that shrinks as the gap grows).
fn synthetic(ratings: &[f64], games: u32, pairs: &[(usize, usize)], seed: u64) -> Matchups {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let names = (0..ratings.len()).map(|i| format!("p{i}")).collect();
    let mut m = Matchups::new(names);
    for &(i, j) in pairs {
        let e = 1.0 / (1.0 + 10f64.powf(-(ratings[i] - ratings[j]) / 400.0));
        let draw = 0.4 * e.min(1.0 - e);
        let win = e - draw / 2.0;
        for _ in 0..games {
            let x: f64 = rng.random();
            if x < win {
                m.add_win(i, j);
            } else if x < win + draw {
                m.add_draw(i, j);
            } else {
                m.add_win(j, i);
            }
        }
    }
    m
}

fn all_pairs(n: usize) -> Vec<(usize, usize)> {
    (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .collect()
}

const TRUE: [f64; 4] = [0.0, 150.0, 300.0, 500.0];

#[test]
fn fit_recovers_known_ratings_within_their_intervals() {
    let m = synthetic(&TRUE, 400, &all_pairs(4), 11);
    let f = fit(&m, &EloConfig::default()).unwrap();
    assert_eq!(f.ratings[0], 0.0);
    assert_eq!(f.stderr[0], 0.0);
    for i in 1..4 {
        assert!(
            f.lower[i] <= TRUE[i] && TRUE[i] <= f.upper[i],
            "player {i}: true {} not in [{:.1}, {:.1}] (fit {:.1})",
            TRUE[i],
            f.lower[i],
            f.upper[i],
            f.ratings[i]
        );
        assert!(
            f.upper[i] - f.lower[i] < 120.0,
            "intervals should be tight with 1200 games each"
        );
    }
}

#[test]
fn intervals_cover_the_truth_about_95_percent_of_the_time() {
    // 60 replicates x 3 free ratings. Draws make the half-win model conservative, so coverage
    // should be at least nominal; 85% leaves room for sampling noise (exact for these seeds).
    let mut covered = 0;
    let mut total = 0;
    for rep in 0..60 {
        let m = synthetic(&TRUE, 100, &all_pairs(4), 1000 + rep);
        let f = fit(&m, &EloConfig::default()).unwrap();
        for i in 1..4 {
            total += 1;
            covered += usize::from(f.lower[i] <= TRUE[i] && TRUE[i] <= f.upper[i]);
        }
    }
    let rate = covered as f64 / total as f64;
    assert!(rate >= 0.85, "coverage {rate:.3}");
}

#[test]
fn a_gauntlet_star_is_enough_and_the_anchor_only_shifts() {
    // Only games against player 2: the others are rated through it.
    let pairs = [(0, 2), (1, 2), (3, 2)];
    let m = synthetic(&TRUE, 300, &pairs, 5);
    let a = fit(&m, &EloConfig::default()).unwrap();
    for i in 1..4 {
        assert!(
            a.lower[i] <= TRUE[i] && TRUE[i] <= a.upper[i],
            "player {i}: {a:?}"
        );
    }
    let b = fit(
        &m,
        &EloConfig {
            anchor: 2,
            anchor_rating: 1500.0,
            prior_draws: 1.0,
        },
    )
    .unwrap();
    let shift = b.ratings[2] - a.ratings[2];
    for i in 0..4 {
        assert!((b.ratings[i] - a.ratings[i] - shift).abs() < 1e-6);
    }
    assert_eq!(b.ratings[2], 1500.0);
    // The likelihood of superiority does not depend on the anchor, and is complementary.
    let (la, lb) = (a.los(), b.los());
    for i in 0..4 {
        assert!(la[i][i].is_none());
        for j in 0..4 {
            if i != j {
                assert!((la[i][j].unwrap() + la[j][i].unwrap() - 1.0).abs() < 1e-9);
                assert!((la[i][j].unwrap() - lb[i][j].unwrap()).abs() < 1e-6);
            }
        }
    }
    assert!(la[3][0].unwrap() > 0.999);
}

#[test]
fn a_perfect_score_stays_finite_with_the_prior() {
    let mut m = Matchups::new(vec!["random".into(), "strong".into()]);
    for _ in 0..20 {
        m.add_win(1, 0);
    }
    let f = fit(&m, &EloConfig::default()).unwrap();
    // 20.5 of 21 points.
    let want = 400.0 * (20.5f64 / 0.5).log10();
    assert!(
        (f.ratings[1] - want).abs() < 1e-6,
        "{} vs {want}",
        f.ratings[1]
    );
    assert!(f.lower[1] > 0.0);
    let no_prior = EloConfig {
        prior_draws: 0.0,
        ..Default::default()
    };
    assert!(fit(&m, &no_prior).is_err());
}
