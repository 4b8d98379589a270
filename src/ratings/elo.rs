//! Maximum-likelihood Elo ratings with 95% intervals and a likelihood-of-superiority table.
//!
//! The model is Bradley–Terry on the Elo scale: player `i` scores against player `j` with
//! expectation `1 / (1 + 10^(-(R_i - R_j) / 400))`, a draw counting as half a win and half a
//! loss. The ratings maximise the likelihood of the results, one player (the *anchor*) being
//! held at a fixed rating. The intervals are `±1.96` standard errors from the inverse of the
//! observed Fisher information (the negative Hessian of the log-likelihood) at the maximum; the
//! likelihood of superiority of `i` over `j` is `Φ((R_i - R_j) / sd(R_i - R_j))` with the same
//! covariance.
//!
//! A player who won (or lost) every game would have an infinite maximum-likelihood rating. As
//! in BayesElo, a weak prior keeps every rating finite: `prior_draws` virtual draws are added
//! to every pair of players who met (1 by default; 0 turns the prior off, and the fit then
//! fails with an error when a rating is unbounded).
//!
//! ```
//! use awale::ratings::elo::{fit, EloConfig, Matchups};
//! let mut m = Matchups::new(vec!["random".into(), "greedy".into()]);
//! for _ in 0..30 { m.add_win(1, 0); }
//! for _ in 0..10 { m.add_win(0, 1); }
//! let f = fit(&m, &EloConfig::default()).unwrap();
//! assert_eq!(f.ratings[0], 0.0); // the anchor
//! // 30.5 of 41 points: about +185 Elo.
//! assert!((f.ratings[1] - 185.0).abs() < 10.0, "{}", f.ratings[1]);
//! assert!(f.lower[1] > 0.0 && f.upper[1] < 400.0);
//! assert!(f.los()[1][0].unwrap() > 0.99);
//! ```

#![allow(clippy::needless_range_loop)] // matrix code reads best with indices

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::error::{AwaleError, Result};

/// Elo points per natural-log unit of odds: `400 / ln 10`.
pub const ELO_PER_NAT: f64 = 173.717_792_761_245_4;
/// The two-sided 95% normal quantile.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Pairwise results between named players: wins and draws for each ordered pair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Matchups {
    /// The players, by index.
    pub names: Vec<String>,
    /// `wins[i][j]`: games `i` won against `j`.
    pub wins: Vec<Vec<u32>>,
    /// `draws[i][j]` (= `draws[j][i]`): games drawn between `i` and `j`.
    pub draws: Vec<Vec<u32>>,
}

impl Matchups {
    /// No results yet between these players.
    pub fn new(names: Vec<String>) -> Matchups {
        let n = names.len();
        Matchups {
            names,
            wins: vec![vec![0; n]; n],
            draws: vec![vec![0; n]; n],
        }
    }

    /// Number of players.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// True when there are no players.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Records a win of `winner` over `loser`.
    pub fn add_win(&mut self, winner: usize, loser: usize) {
        self.wins[winner][loser] += 1;
    }

    /// Records a draw between `a` and `b`.
    pub fn add_draw(&mut self, a: usize, b: usize) {
        self.draws[a][b] += 1;
        self.draws[b][a] += 1;
    }

    /// Records a result of `a` against `b`: 1 a win, 0.5 a draw, 0 a loss.
    pub fn add(&mut self, a: usize, b: usize, score: f64) {
        if score > 0.75 {
            self.add_win(a, b)
        } else if score < 0.25 {
            self.add_win(b, a)
        } else {
            self.add_draw(a, b)
        }
    }

    /// Games played between `i` and `j`.
    pub fn games(&self, i: usize, j: usize) -> u32 {
        self.wins[i][j] + self.wins[j][i] + self.draws[i][j]
    }

    /// Points of `i` against `j` (wins plus half the draws).
    pub fn points(&self, i: usize, j: usize) -> f64 {
        self.wins[i][j] as f64 + 0.5 * self.draws[i][j] as f64
    }

    /// Total `(wins, draws, losses)` of player `i`.
    pub fn record(&self, i: usize) -> (u32, u32, u32) {
        let w = self.wins[i].iter().sum();
        let d = self.draws[i].iter().sum();
        let l = (0..self.len()).map(|j| self.wins[j][i]).sum();
        (w, d, l)
    }
}

/// Settings of the fit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EloConfig {
    /// The player whose rating is held fixed.
    pub anchor: usize,
    /// The anchor's rating.
    pub anchor_rating: f64,
    /// Virtual draws added to every pair of players who met (see the module documentation).
    pub prior_draws: f64,
}

impl Default for EloConfig {
    fn default() -> Self {
        EloConfig {
            anchor: 0,
            anchor_rating: 0.0,
            prior_draws: 1.0,
        }
    }
}

/// Ratings with their uncertainty.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EloFit {
    /// The players, by index.
    pub names: Vec<String>,
    /// The anchor (its rating is fixed, its standard error 0).
    pub anchor: usize,
    /// Elo ratings.
    pub ratings: Vec<f64>,
    /// Standard errors (Elo points).
    pub stderr: Vec<f64>,
    /// Lower ends of the 95% intervals.
    pub lower: Vec<f64>,
    /// Upper ends of the 95% intervals.
    pub upper: Vec<f64>,
    /// Covariance of the ratings (Elo points squared), from the observed information.
    pub covariance: Vec<Vec<f64>>,
    /// Newton iterations used.
    pub iterations: usize,
}

impl EloFit {
    /// Likelihood of superiority: `los[i][j]` is the probability that `i` is stronger than
    /// `j` given the results (`None` on the diagonal).
    pub fn los(&self) -> Vec<Vec<Option<f64>>> {
        let n = self.ratings.len();
        (0..n)
            .map(|i| {
                (0..n)
                    .map(|j| {
                        if i == j {
                            return None;
                        }
                        let var = self.covariance[i][i] + self.covariance[j][j]
                            - 2.0 * self.covariance[i][j];
                        let d = self.ratings[i] - self.ratings[j];
                        Some(if var > 0.0 {
                            normal_cdf(d / var.sqrt())
                        } else {
                            0.5 + 0.5 * d.signum()
                        })
                    })
                    .collect()
            })
            .collect()
    }

    /// The expected score of `i` against `j` under the fitted ratings.
    pub fn expected_score(&self, i: usize, j: usize) -> f64 {
        1.0 / (1.0 + 10f64.powf(-(self.ratings[i] - self.ratings[j]) / 400.0))
    }
}

/// Fits maximum-likelihood ratings to the results. Fails when a player is not connected to the
/// anchor by games, or when a rating is unbounded (all wins or all losses without a prior).
pub fn fit(m: &Matchups, cfg: &EloConfig) -> Result<EloFit> {
    let n = m.len();
    check_config(cfg, n)?;
    connected(&m.names, cfg.anchor, |i, j| m.games(i, j) > 0)?;
    // Points with the prior.
    let mut s = vec![vec![0f64; n]; n];
    for i in 0..n {
        for j in 0..n {
            if i != j && m.games(i, j) > 0 {
                s[i][j] = m.points(i, j) + 0.5 * cfg.prior_draws;
            }
        }
    }
    let (r, inverse, iterations) = bradley_terry(&s, cfg.anchor)?;
    Ok(elo_fit(&m.names, cfg, &r, &inverse, iterations))
}

/// Refuses an anchor outside the `n` players and a prior that is not a number `>= 0`.
pub(crate) fn check_config(cfg: &EloConfig, n: usize) -> Result<()> {
    if cfg.anchor >= n {
        return Err(AwaleError::Tournament(format!(
            "the Elo anchor is player {} but there are {n} players",
            cfg.anchor
        )));
    }
    if !(cfg.prior_draws >= 0.0 && cfg.prior_draws.is_finite()) {
        return Err(AwaleError::Tournament(format!(
            "prior_draws must be a number >= 0, not {}",
            cfg.prior_draws
        )));
    }
    Ok(())
}

/// Refuses players that no chain of games (`met(i, j)`) connects to the anchor: their ratings
/// are undetermined.
pub(crate) fn connected(
    names: &[String],
    anchor: usize,
    met: impl Fn(usize, usize) -> bool,
) -> Result<()> {
    let n = names.len();
    let mut seen = vec![false; n];
    let mut queue = VecDeque::from([anchor]);
    seen[anchor] = true;
    while let Some(i) = queue.pop_front() {
        for j in 0..n {
            if !seen[j] && met(i, j) {
                seen[j] = true;
                queue.push_back(j);
            }
        }
    }
    let lost: Vec<&str> = (0..n)
        .filter(|&i| !seen[i])
        .map(|i| names[i].as_str())
        .collect();
    if !lost.is_empty() {
        return Err(AwaleError::Tournament(format!(
            "no games connect {} to the anchor {}; their ratings are undetermined",
            lost.join(", "),
            names[anchor]
        )));
    }
    Ok(())
}

/// The maximum-likelihood Bradley–Terry strengths (natural-log units, the anchor at 0) of the
/// points `s[i][j]` that `i` scored against `j` (the prior included; `s[i][j] + s[j][i]` is
/// their number of games), by Newton's method with a backtracking line search. Returns the
/// strengths, the inverse of the observed information over the players other than the anchor
/// (in their order), and the iterations.
pub(crate) fn bradley_terry(
    s: &[Vec<f64>],
    anchor: usize,
) -> Result<(Vec<f64>, Vec<Vec<f64>>, usize)> {
    let n = s.len();
    let free: Vec<usize> = (0..n).filter(|&i| i != anchor).collect();
    let k = free.len();
    let mut r = vec![0f64; n];
    let loglik = |r: &[f64]| -> f64 {
        let mut l = 0.0;
        for i in 0..n {
            for j in 0..n {
                if s[i][j] > 0.0 {
                    l -= s[i][j] * softplus(r[j] - r[i]);
                }
            }
        }
        l
    };
    // Gradient and information (negative Hessian) over the free players.
    let derivatives = |r: &[f64]| -> (Vec<f64>, Vec<Vec<f64>>) {
        let mut g = vec![0f64; n];
        let mut info = vec![vec![0f64; n]; n];
        for i in 0..n {
            for j in (i + 1)..n {
                let games = s[i][j] + s[j][i];
                if games == 0.0 {
                    continue;
                }
                let p = sigmoid(r[i] - r[j]);
                g[i] += s[i][j] - games * p;
                g[j] -= s[i][j] - games * p;
                let w = games * p * (1.0 - p);
                info[i][i] += w;
                info[j][j] += w;
                info[i][j] -= w;
                info[j][i] -= w;
            }
        }
        let g = free.iter().map(|&i| g[i]).collect();
        let info = free
            .iter()
            .map(|&i| free.iter().map(|&j| info[i][j]).collect())
            .collect();
        (g, info)
    };
    let unbounded = || {
        AwaleError::Tournament(
            "a rating is unbounded (a player won or lost every game); use a prior (prior_draws > 0)".into(),
        )
    };
    let mut iterations = 0;
    if k > 0 {
        loop {
            iterations += 1;
            let (g, info) = derivatives(&r);
            let inv = invert(&info).ok_or_else(unbounded)?;
            let step: Vec<f64> = (0..k)
                .map(|a| (0..k).map(|b| inv[a][b] * g[b]).sum())
                .collect();
            let l0 = loglik(&r);
            let mut t = 1.0;
            let mut next = r.clone();
            loop {
                for (a, &i) in free.iter().enumerate() {
                    next[i] = r[i] + t * step[a];
                }
                if loglik(&next) >= l0 - 1e-12 || t < 1e-6 {
                    break;
                }
                t *= 0.5;
            }
            let moved = step.iter().map(|x| (t * x).abs()).fold(0.0, f64::max);
            r = next;
            if moved < 1e-10 {
                break;
            }
            if iterations >= 200 || r.iter().any(|x| x.abs() > 50.0) {
                return Err(unbounded());
            }
        }
    }
    let inverse = if k > 0 {
        let (_, info) = derivatives(&r);
        invert(&info).ok_or_else(unbounded)?
    } else {
        Vec::new()
    };
    Ok((r, inverse, iterations))
}

/// The fit of strengths `r` (natural-log units) with covariance `cov` over the players other
/// than the anchor (in their order, natural-log units squared), on the Elo scale.
pub(crate) fn elo_fit(
    names: &[String],
    cfg: &EloConfig,
    r: &[f64],
    cov_free: &[Vec<f64>],
    iterations: usize,
) -> EloFit {
    let n = r.len();
    let free: Vec<usize> = (0..n).filter(|&i| i != cfg.anchor).collect();
    let mut cov = vec![vec![0f64; n]; n];
    for (a, &i) in free.iter().enumerate() {
        for (b, &j) in free.iter().enumerate() {
            cov[i][j] = cov_free[a][b] * ELO_PER_NAT * ELO_PER_NAT;
        }
    }
    let ratings: Vec<f64> = r
        .iter()
        .map(|x| cfg.anchor_rating + x * ELO_PER_NAT)
        .collect();
    let stderr: Vec<f64> = (0..n).map(|i| cov[i][i].max(0.0).sqrt()).collect();
    EloFit {
        names: names.to_vec(),
        anchor: cfg.anchor,
        lower: (0..n).map(|i| ratings[i] - Z95 * stderr[i]).collect(),
        upper: (0..n).map(|i| ratings[i] + Z95 * stderr[i]).collect(),
        ratings,
        stderr,
        covariance: cov,
        iterations,
    }
}

#[inline]
pub(crate) fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// `ln(1 + e^x)`, without overflow.
#[inline]
fn softplus(x: f64) -> f64 {
    if x > 30.0 {
        x
    } else {
        x.exp().ln_1p()
    }
}

/// One pairwise comparison between the rated player and an anchor of fixed rating, within a
/// game (`cluster`): the player scored `points` (1 win, 0.5 draw, 0 loss) against the anchor.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AnchoredResult {
    /// The anchor's fixed rating (Elo).
    pub anchor_rating: f64,
    /// The rated player's points against it.
    pub points: f64,
    /// The game it comes from: comparisons of one game (3 or more players at a table) are not
    /// independent, and the interval treats each game as one draw of its comparisons.
    pub cluster: usize,
}

/// The rating of one player against anchors whose ratings are fixed (pinned), as CCRL and
/// fishtest's normalized Elo rate an engine on a published scale: the maximum-likelihood
/// Bradley–Terry rating, with `prior_draws` virtual draws against each distinct anchor rating
/// (as [`EloConfig::prior_draws`]: every rating stays finite), and a 95% interval from the
/// variance clustered by game (the sandwich `Σ_g u_g² / I²`, `u_g` a game's score and `I` the
/// observed information; with one comparison per game it is the usual robust variance).
///
/// Returns `(rating, standard error)` in Elo.
///
/// ```
/// use awale::ratings::elo::{rate_against, AnchoredResult};
/// // 75% against an anchor at 1000, 25% against one at 1400: about 1200.
/// let mut r = Vec::new();
/// for g in 0..400 {
///     let (anchor, points) = if g < 200 { (1000.0, f64::from(u8::from(g % 4 != 0))) } else { (1400.0, f64::from(u8::from(g % 4 == 0))) };
///     r.push(AnchoredResult { anchor_rating: anchor, points, cluster: g });
/// }
/// let (rating, se) = rate_against(&r, 1.0).unwrap();
/// assert!((rating - 1200.0).abs() < 1.0, "{rating}");
/// assert!(se > 10.0 && se < 30.0, "{se}");
/// ```
pub fn rate_against(results: &[AnchoredResult], prior_draws: f64) -> Result<(f64, f64)> {
    if !(prior_draws >= 0.0 && prior_draws.is_finite()) {
        return Err(AwaleError::Tournament(format!(
            "prior_draws must be a number >= 0, not {prior_draws}"
        )));
    }
    if results.is_empty() {
        return Err(AwaleError::Tournament(
            "no games against the anchors".into(),
        ));
    }
    if results
        .iter()
        .any(|r| !r.anchor_rating.is_finite() || !(0.0..=1.0).contains(&r.points))
    {
        return Err(AwaleError::Tournament(
            "an anchored result has a rating that is not finite or points outside [0, 1]".into(),
        ));
    }
    let mut anchors: Vec<f64> = results.iter().map(|r| r.anchor_rating).collect();
    anchors.sort_by(f64::total_cmp);
    anchors.dedup();
    // The prior's virtual draws go against the anchor the player scored nearest 50% against
    // (ties: the stronger one if the player scored more than half in all, else the weaker):
    // there they barely move the estimate, yet an agent that won (or lost) every game gets a
    // finite rating just above the strongest (below the weakest) anchor, as BayesElo's prior
    // gives. Virtual draws against every anchor would pull a strong agent towards random.
    let score_against = |a: f64| {
        let (p, n) = results
            .iter()
            .filter(|r| r.anchor_rating == a)
            .fold((0.0, 0.0), |(p, n), r| (p + r.points, n + 1.0));
        p / n
    };
    let overall = results.iter().map(|r| r.points).sum::<f64>() / results.len() as f64;
    let prior_anchor = anchors
        .iter()
        .copied()
        .min_by(|&a, &b| {
            let (da, db) = (
                (score_against(a) - 0.5).abs(),
                (score_against(b) - 0.5).abs(),
            );
            da.total_cmp(&db).then(if overall > 0.5 {
                b.total_cmp(&a)
            } else {
                a.total_cmp(&b)
            })
        })
        .expect("at least one anchor");
    // Natural-log units relative to the mean anchor, for a well-conditioned start.
    let centre = anchors.iter().sum::<f64>() / anchors.len() as f64;
    let nat = |elo: f64| (elo - centre) / ELO_PER_NAT;
    let grad_info = |x: f64| -> (f64, f64) {
        let (mut g, mut info) = (0.0, 0.0);
        for r in results {
            let p = sigmoid(x - nat(r.anchor_rating));
            g += r.points - p;
            info += p * (1.0 - p);
        }
        let p = sigmoid(x - nat(prior_anchor));
        g += prior_draws * (0.5 - p);
        info += prior_draws * p * (1.0 - p);
        (g, info)
    };
    let unbounded = || {
        AwaleError::Tournament(
            "the rating is unbounded (every game won or every game lost); use a prior (prior_draws > 0)"
                .into(),
        )
    };
    let mut x = 0.0;
    for _ in 0..200 {
        let (g, info) = grad_info(x);
        if info < 1e-300 {
            return Err(unbounded());
        }
        // Newton's step, limited to 2 natural-log units (the log-likelihood is concave).
        let step = (g / info).clamp(-2.0, 2.0);
        x += step;
        if step.abs() < 1e-12 {
            break;
        }
        if x.abs() > 50.0 {
            return Err(unbounded());
        }
    }
    let (_, info) = grad_info(x);
    // The clustered (sandwich) variance: per game, the sum of its comparisons' scores.
    let mut by_game: std::collections::BTreeMap<usize, f64> = Default::default();
    for r in results {
        *by_game.entry(r.cluster).or_default() += r.points - sigmoid(x - nat(r.anchor_rating));
    }
    let meat: f64 = by_game.values().map(|u| u * u).sum();
    let var = if meat > 0.0 {
        meat / (info * info)
    } else {
        1.0 / info
    };
    Ok((centre + x * ELO_PER_NAT, var.sqrt() * ELO_PER_NAT))
}

/// The inverse of a symmetric positive-definite matrix, by Gauss–Jordan elimination with
/// partial pivoting; `None` when it is (numerically) singular.
fn invert(a: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    let scale = a
        .iter()
        .flatten()
        .fold(0f64, |m, x| m.max(x.abs()))
        .max(1e-300);
    let mut m: Vec<Vec<f64>> = a
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let mut r = row.clone();
            r.extend((0..n).map(|j| f64::from(u8::from(i == j))));
            r
        })
        .collect();
    for col in 0..n {
        let piv = (col..n).max_by(|&x, &y| m[x][col].abs().total_cmp(&m[y][col].abs()))?;
        if m[piv][col].abs() < 1e-12 * scale {
            return None;
        }
        m.swap(col, piv);
        let d = m[col][col];
        for x in m[col].iter_mut() {
            *x /= d;
        }
        for row in 0..n {
            if row != col {
                let f = m[row][col];
                if f != 0.0 {
                    for c in 0..2 * n {
                        m[row][c] -= f * m[col][c];
                    }
                }
            }
        }
    }
    Some(m.into_iter().map(|r| r[n..].to_vec()).collect())
}

/// The standard normal distribution function Φ (absolute error below 1e-7).
///
/// ```
/// use awale::ratings::elo::normal_cdf;
/// assert!((normal_cdf(0.0) - 0.5).abs() < 1e-7);
/// assert!((normal_cdf(1.959964) - 0.975).abs() < 1e-6);
/// ```
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// The complementary error function (Numerical Recipes' Chebyshev fit, relative error
/// below 1.2e-7).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let ans = t
        * (-z * z - 1.265_512_23
            + t * (1.000_023_68
                + t * (0.374_091_96
                    + t * (0.096_784_18
                        + t * (-0.186_288_06
                            + t * (0.278_868_07
                                + t * (-1.135_203_98
                                    + t * (1.488_515_87
                                        + t * (-0.822_152_23 + t * 0.170_872_77)))))))))
            .exp();
    if x >= 0.0 {
        ans
    } else {
        2.0 - ans
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_of_a_small_matrix() {
        let a = vec![vec![4.0, -1.0], vec![-1.0, 3.0]];
        let inv = invert(&a).unwrap();
        assert!((inv[0][0] - 3.0 / 11.0).abs() < 1e-12);
        assert!((inv[0][1] - 1.0 / 11.0).abs() < 1e-12);
        assert!(invert(&[vec![1.0, 1.0], vec![1.0, 1.0]]).is_none());
    }

    #[test]
    fn two_players_match_the_closed_form() {
        // With two players the MLE is the logit of the score fraction.
        let mut m = Matchups::new(vec!["a".into(), "b".into()]);
        for _ in 0..12 {
            m.add_win(0, 1);
        }
        for _ in 0..4 {
            m.add_draw(0, 1);
        }
        for _ in 0..4 {
            m.add_win(1, 0);
        }
        let f = fit(
            &m,
            &EloConfig {
                anchor: 1,
                anchor_rating: 1000.0,
                prior_draws: 0.0,
            },
        )
        .unwrap();
        let p: f64 = 14.0 / 20.0;
        let want = 1000.0 + ELO_PER_NAT * (p / (1.0 - p)).ln();
        assert!((f.ratings[0] - want).abs() < 1e-6);
        // Var of the logit: 1 / (n p (1-p)).
        let se = ELO_PER_NAT / (20.0 * p * (1.0 - p)).sqrt();
        assert!((f.stderr[0] - se).abs() < 1e-6);
        assert_eq!(f.stderr[1], 0.0);
        assert!((f.expected_score(0, 1) - p).abs() < 1e-9);
    }

    #[test]
    fn unbounded_and_disconnected_are_errors() {
        let mut m = Matchups::new(vec!["a".into(), "b".into(), "c".into()]);
        m.add_win(0, 1);
        let no_prior = EloConfig {
            prior_draws: 0.0,
            ..Default::default()
        };
        let e = fit(&m, &no_prior).unwrap_err().to_string();
        assert!(e.contains("c") && e.contains("connect"), "{e}");
        m.add_win(2, 1);
        assert!(fit(&m, &no_prior)
            .unwrap_err()
            .to_string()
            .contains("unbounded"));
        assert!(fit(&m, &EloConfig::default()).is_ok());
    }
}
