//! The random draws of the root noise: Gumbel (Gumbel search), Dirichlet (PUCT) and the Gamma
//! and normal samples the Dirichlet is made of.

use rand::Rng;

use super::MAX_ACTIONS;

/// A standard Gumbel sample.
pub(super) fn gumbel<R: Rng>(rng: &mut R) -> f32 {
    let u: f64 = rng.random_range(f64::MIN_POSITIVE..1.0);
    (-(-u.ln()).ln()) as f32
}

/// A standard normal sample (Box-Muller).
fn normal<R: Rng>(rng: &mut R) -> f64 {
    let u1: f64 = rng.random_range(f64::MIN_POSITIVE..1.0);
    let u2: f64 = rng.random();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

/// A Gamma(alpha, 1) sample (Marsaglia-Tsang).
fn gamma<R: Rng>(rng: &mut R, alpha: f64) -> f64 {
    if alpha < 1.0 {
        let u: f64 = rng.random_range(f64::MIN_POSITIVE..1.0);
        return gamma(rng, alpha + 1.0) * u.powf(1.0 / alpha);
    }
    let d = alpha - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x = normal(rng);
        let v = (1.0 + c * x).powi(3);
        if v <= 0.0 {
            continue;
        }
        let u: f64 = rng.random_range(f64::MIN_POSITIVE..1.0);
        if u.ln() < 0.5 * x * x + d - d * v + d * v.ln() {
            return d * v;
        }
    }
}

/// A Dirichlet(alpha) sample over the legal actions.
pub(super) fn dirichlet<R: Rng>(
    rng: &mut R,
    alpha: f32,
    legal: u16,
    h: usize,
) -> [f32; MAX_ACTIONS] {
    let mut out = [0f32; MAX_ACTIONS];
    let mut sum = 0.0;
    for a in (0..h).filter(|&a| legal >> a & 1 == 1) {
        let g = gamma(rng, alpha as f64);
        out[a] = g as f32;
        sum += g;
    }
    if sum > 0.0 {
        for x in out.iter_mut() {
            *x = (*x as f64 / sum) as f32;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn dirichlet_sums_to_one_on_legal_moves() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let d = dirichlet(&mut rng, 0.3, 0b101101, 6);
        assert!((d.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        assert_eq!((d[1], d[4]), (0.0, 0.0));
    }
}
