//! AlphaZero's PUCT: `Q(a) + c·P(a)·√N / (1 + N(a))`, with Dirichlet noise mixed into the root
//! priors when asked; unvisited children take the parent's mean value. The policy target is
//! the root's visit distribution, the chosen action the most visited (ties: the higher prior,
//! then the lower house).

use rand::Rng;

use super::samplers::dirichlet;
use super::tie_break::Best;
use super::tree::Tree;
use super::MAX_ACTIONS;

/// The PUCT policy's settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Puct {
    /// The exploration constant.
    pub c_puct: f32,
    /// Dirichlet concentration of the root noise.
    pub dirichlet_alpha: f32,
    /// Weight of the Dirichlet noise in the root priors.
    pub dirichlet_fraction: f32,
}

impl Default for Puct {
    fn default() -> Self {
        Puct {
            c_puct: 1.5,
            dirichlet_alpha: 0.5,
            dirichlet_fraction: 0.25,
        }
    }
}

impl Puct {
    /// Mixes Dirichlet noise into the root's priors.
    pub(super) fn add_root_noise<R: Rng>(&self, tree: &mut Tree, rng: &mut R) {
        let h = tree.rules.houses as usize;
        let root = &mut tree.nodes[0];
        let noise = dirichlet(rng, self.dirichlet_alpha, root.legal, h);
        let f = self.dirichlet_fraction;
        for (p, n) in root.prior.iter_mut().zip(noise).take(h) {
            *p = (1.0 - f) * *p + f * n;
        }
    }

    /// The action to search from `node`.
    pub(super) fn select(&self, tree: &Tree, node: u32) -> usize {
        let nd = &tree.nodes[node as usize];
        let h = tree.rules.houses as usize;
        let (n, q) = tree.child_stats(node);
        let (player, sign) = tree.perspective(nd);
        let fpu = sign * nd.w[player] / nd.n.max(1) as f32;
        let sqrt_n = (nd.n.max(1) as f32).sqrt();
        let mut best = Best::default();
        for a in (0..h).filter(|&a| nd.legal >> a & 1 == 1) {
            let qa = if n[a] > 0 { q[a] } else { fpu };
            best.consider(
                a,
                qa + self.c_puct * nd.prior[a] * sqrt_n / (1.0 + n[a] as f32),
            );
        }
        best.action
    }

    /// The policy target (the visits; the priors before any visit) and the most visited action.
    pub(super) fn result(tree: &Tree) -> ([f32; MAX_ACTIONS], usize) {
        let h = tree.rules.houses as usize;
        let root = &tree.nodes[0];
        let legal = root.legal;
        let (n, _) = tree.child_stats(0);
        let policy = tree.visit_policy();
        let mut action = legal.trailing_zeros() as usize;
        let mut best = 0;
        for a in (0..h).filter(|&a| legal >> a & 1 == 1) {
            if n[a] > best || (n[a] == best && root.prior[a] > root.prior[action]) {
                best = n[a];
                action = a;
            }
        }
        (policy, action)
    }
}
