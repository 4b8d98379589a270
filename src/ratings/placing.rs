//! Ratings from the finishing orders of games of three or more players, with 95% intervals.
//!
//! **Model.** Plackett–Luce on the Elo scale: a game's finishing order is drawn as if each
//! player `i` had a strength `w_i = 10^(R_i / 400)`, the first place going to `i` with
//! probability `w_i / Σ w`, the second place among the others likewise, and so on. Under this
//! model the chance that `i` finishes above `j`, whoever else sits at the board, is
//! `w_i / (w_i + w_j)`: the Elo expectation. So each game is decomposed into its pairs (the
//! decomposition that multi-player Elo systems use: `P(P-1)/2` pairwise results, a tie in
//! seeds half a win each), and the ratings maximise the *composite* likelihood of all pairs,
//! which estimates the Plackett–Luce strengths consistently.
//!
//! **Intervals.** The pairs of one game are not independent results (one player's good game is
//! a good game against everyone at the board), so the inverse information of the pairs would
//! misstate the uncertainty. The covariance is the sandwich `H⁻¹ M H⁻¹` of composite likelihood
//! (Varin, Reid and Firth 2011): `H` the information of the pairs, `M` the sum over *games* of
//! the outer product of each game's score (its pairs' gradient together). Intervals are
//! `±1.96` standard errors, one player (the anchor) held fixed, as in [`crate::ratings::elo`]; the
//! same weak prior (`prior_draws` virtual draws between every two players who met) keeps an
//! all-wins rating finite. `tests/placing.rs` checks the fit on simulated Plackett–Luce
//! tournaments of known strengths: the estimates land near them and the intervals hold the
//! true values about 95% of the time.
//!
//! Beside the share of first places, the rating uses every place of every game: two agents
//! are told apart in fewer games.
//!
//! ```
//! use awale::ratings::elo::EloConfig;
//! use awale::ratings::placing::{fit, Placings};
//! let mut p = Placings::new(vec!["a".into(), "b".into(), "c".into()]);
//! for _ in 0..20 {
//!     p.add_game(&[0, 1, 2], &[24, 16, 8]).unwrap(); // a first, b second, c third
//!     p.add_game(&[1, 2, 0], &[20, 20, 8]).unwrap(); // b and c share the first place
//! }
//! let f = fit(&p, &EloConfig::default()).unwrap();
//! assert_eq!(f.ratings[0], 0.0); // the anchor
//! assert!(f.ratings[1] > 0.0 && f.ratings[2] < f.ratings[1]);
//! assert!(f.lower[1] < f.ratings[1] && f.ratings[1] < f.upper[1]);
//! ```

#![allow(clippy::needless_range_loop)] // matrix code reads best with indices

use crate::error::{AwaleError, Result};
use crate::ratings::elo::{
    bradley_terry, check_config, connected, elo_fit, sigmoid, EloConfig, EloFit,
};

/// The finishing orders of games between named players: each game's players (by index) and
/// their final scores (the stores; more is better, equal is a tie).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placings {
    /// The players, by index.
    pub names: Vec<String>,
    /// Each game's players and scores.
    pub games: Vec<Vec<(usize, u32)>>,
}

impl Placings {
    /// No games yet between these players.
    pub fn new(names: Vec<String>) -> Placings {
        Placings {
            names,
            games: Vec::new(),
        }
    }

    /// Adds a game: `players[k]` scored `scores[k]`. Fails on a game of fewer than two players,
    /// on lengths that differ, on an unknown player or on one who sits twice.
    pub fn add_game(&mut self, players: &[usize], scores: &[u32]) -> Result<()> {
        let bad = |m: String| Err(AwaleError::Tournament(m));
        if players.len() != scores.len() {
            return bad(format!(
                "a game has {} players but {} scores",
                players.len(),
                scores.len()
            ));
        }
        if players.len() < 2 {
            return bad(format!(
                "a game needs at least 2 players to be placed, not {}",
                players.len()
            ));
        }
        for (k, &i) in players.iter().enumerate() {
            if i >= self.names.len() {
                return bad(format!(
                    "player {i} is not among the {} players",
                    self.names.len()
                ));
            }
            if players[..k].contains(&i) {
                return bad(format!("{} sits twice at one board", self.names[i]));
            }
        }
        self.games.push(
            players
                .iter()
                .copied()
                .zip(scores.iter().copied())
                .collect(),
        );
        Ok(())
    }

    /// The number of players.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// No players.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// Each pair of a game with the first one's result: 1 above, 0.5 tied, 0 below.
fn pairs(game: &[(usize, u32)]) -> impl Iterator<Item = (usize, usize, f64)> + '_ {
    (0..game.len()).flat_map(move |a| {
        (a + 1..game.len()).map(move |b| {
            let (i, si) = game[a];
            let (j, sj) = game[b];
            let y = match si.cmp(&sj) {
                std::cmp::Ordering::Greater => 1.0,
                std::cmp::Ordering::Equal => 0.5,
                std::cmp::Ordering::Less => 0.0,
            };
            (i, j, y)
        })
    })
}

/// Fits the ratings of the [module](self) documentation: composite-likelihood Plackett–Luce
/// strengths on the Elo scale, with game-clustered (sandwich) 95% intervals. Fails with no
/// games, when a player is not connected to the anchor by games, or when a rating is unbounded
/// (a player above or below everyone in every game, without a prior).
pub fn fit(p: &Placings, cfg: &EloConfig) -> Result<EloFit> {
    let n = p.len();
    if p.games.is_empty() {
        return Err(AwaleError::Tournament(
            "no games to rate: a placing rating needs games".into(),
        ));
    }
    check_config(cfg, n)?;
    // Points of each player against each other, the prior's virtual draws included.
    let mut met = vec![vec![false; n]; n];
    let mut s = vec![vec![0f64; n]; n];
    for g in &p.games {
        for (i, j, y) in pairs(g) {
            s[i][j] += y;
            s[j][i] += 1.0 - y;
            met[i][j] = true;
            met[j][i] = true;
        }
    }
    connected(&p.names, cfg.anchor, |i, j| met[i][j])?;
    for i in 0..n {
        for j in 0..n {
            if met[i][j] {
                s[i][j] += 0.5 * cfg.prior_draws;
            }
        }
    }
    let (r, inverse, iterations) = bradley_terry(&s, cfg.anchor)?;
    // The sandwich: H⁻¹ (Σ_games s_g s_gᵀ) H⁻¹, s_g a game's score over the free players.
    let k = inverse.len();
    let slot: Vec<Option<usize>> = (0..n)
        .map(|i| (i != cfg.anchor).then(|| i - usize::from(i > cfg.anchor)))
        .collect();
    let mut meat = vec![vec![0f64; k]; k];
    let mut score = vec![0f64; k];
    for g in &p.games {
        score.iter_mut().for_each(|x| *x = 0.0);
        for (i, j, y) in pairs(g) {
            let e = y - sigmoid(r[i] - r[j]);
            if let Some(a) = slot[i] {
                score[a] += e;
            }
            if let Some(b) = slot[j] {
                score[b] -= e;
            }
        }
        for a in 0..k {
            for b in 0..k {
                meat[a][b] += score[a] * score[b];
            }
        }
    }
    let left: Vec<Vec<f64>> = (0..k)
        .map(|a| {
            (0..k)
                .map(|c| (0..k).map(|b| inverse[a][b] * meat[b][c]).sum())
                .collect()
        })
        .collect();
    let cov: Vec<Vec<f64>> = (0..k)
        .map(|a| {
            (0..k)
                .map(|b| (0..k).map(|c| left[a][c] * inverse[c][b]).sum())
                .collect()
        })
        .collect();
    Ok(elo_fit(&p.names, cfg, &r, &cov, iterations))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_input_is_refused() {
        let mut p = Placings::new(vec!["a".into(), "b".into(), "c".into()]);
        assert!(fit(&p, &EloConfig::default())
            .unwrap_err()
            .to_string()
            .contains("no games"));
        assert!(p
            .add_game(&[0], &[3])
            .unwrap_err()
            .to_string()
            .contains("at least 2"));
        assert!(p
            .add_game(&[0, 1], &[3])
            .unwrap_err()
            .to_string()
            .contains("2 players but 1"));
        assert!(p
            .add_game(&[0, 3], &[3, 4])
            .unwrap_err()
            .to_string()
            .contains("not among"));
        assert!(p
            .add_game(&[0, 0], &[3, 4])
            .unwrap_err()
            .to_string()
            .contains("sits twice"));
        p.add_game(&[0, 1], &[3, 4]).unwrap();
        let e = fit(&p, &EloConfig::default()).unwrap_err().to_string();
        assert!(e.contains("no games connect c"), "{e}");
        let cfg = EloConfig {
            prior_draws: 0.0,
            ..EloConfig::default()
        };
        let mut q = Placings::new(vec!["a".into(), "b".into()]);
        q.add_game(&[0, 1], &[3, 4]).unwrap();
        assert!(fit(&q, &cfg).unwrap_err().to_string().contains("unbounded"));
    }

    #[test]
    fn two_players_give_the_pairwise_elo_estimates() {
        // With two players per game every game is one pair: the estimates are Elo's.
        let mut p = Placings::new(vec!["a".into(), "b".into()]);
        let mut m = crate::ratings::elo::Matchups::new(vec!["a".into(), "b".into()]);
        for k in 0..40 {
            let (sa, sb) = if k % 4 == 0 { (20, 28) } else { (28, 20) };
            p.add_game(&[0, 1], &[sa, sb]).unwrap();
            m.add(0, 1, if sa > sb { 1.0 } else { 0.0 });
        }
        let a = fit(&p, &EloConfig::default()).unwrap();
        let b = crate::ratings::elo::fit(&m, &EloConfig::default()).unwrap();
        assert!((a.ratings[1] - b.ratings[1]).abs() < 1e-6);
    }
}
