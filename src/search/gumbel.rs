//! The Gumbel root search with sequential halving (Danihelka et al. 2022, "Policy improvement
//! by planning with Gumbel", as in DeepMind's `mctx`): Gumbel noise `g` is added to the root
//! logits, the top `m` actions by `g + logits` are searched with sequential halving on
//! `g + logits + σ(q̂)` ([`super::seq_halving`]), and the chosen action is the survivor.
//! Interior nodes pick `argmax π'(a) - N(a) / (1 + ΣN)`. The policy target is the improved
//! policy `π' = softmax(logits + σ(q̂))` ([`gumbel_improved_policy`]), where `q̂` completes the
//! Q-values of unvisited actions with the mixed value `v_mix`, rescaled to [0, 1] by min-max
//! over the legal actions, and `σ(q̂) = (c_visit + max N) · c_scale · q̂` (mctx's
//! `qtransforms.py`).

use rand::Rng;

use super::root::Root;
use super::samplers::gumbel;
use super::seq_halving::considered_visit;
use super::tie_break::Best;
use super::tree::{masked_logits, softmax_legal, Tree};
use super::MAX_ACTIONS;

/// The Gumbel policy's settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gumbel {
    /// The most actions considered at the root (`m`, at least 1).
    pub actions: u32,
    /// `c_visit` of σ.
    pub c_visit: f32,
    /// `c_scale` of σ.
    pub c_scale: f32,
}

impl Default for Gumbel {
    fn default() -> Self {
        Gumbel {
            actions: 6,
            c_visit: 50.0,
            c_scale: 0.1,
        }
    }
}

impl Gumbel {
    /// Draws the root's Gumbel noise, `scale` times a standard Gumbel sample per legal action.
    pub(super) fn add_root_noise<R: Rng>(
        &self,
        tree: &Tree,
        scale: f32,
        root: &mut Root,
        rng: &mut R,
    ) {
        let h = tree.rules.houses as usize;
        let legal = tree.nodes[0].legal;
        for a in 0..h {
            if legal >> a & 1 == 1 {
                root.noise[a] = scale * gumbel(rng);
            }
        }
    }

    /// The actions sequential halving considers: `m`, at most the legal ones.
    pub(super) fn considered(&self, legal: u16) -> usize {
        (self.actions as usize).min(legal.count_ones() as usize)
    }

    /// σ(q̂) at `node`.
    fn sigma(&self, tree: &Tree, node: u32) -> [f32; MAX_ACTIONS] {
        let nd = &tree.nodes[node as usize];
        let (n, q) = tree.child_stats(node);
        let h = tree.rules.houses as usize;
        completed_sigma(
            &nd.prior_for_mix(h),
            nd.legal,
            &q[..h],
            &n[..h],
            tree.own_value(nd),
            self.c_visit,
            self.c_scale,
        )
    }

    /// The action to search from `node`: sequential halving at the root, the improved policy's
    /// deficit below it.
    pub(super) fn select(&self, tree: &Tree, node: u32, root: &Root) -> usize {
        let nd = &tree.nodes[node as usize];
        let h = tree.rules.houses as usize;
        let legal = nd.legal;
        let (n, _) = tree.child_stats(node);
        let sigma = self.sigma(tree, node);
        let mut best = Best::default();
        if node == 0 {
            let target = if root.spent < root.budget {
                considered_visit(root.considered, root.budget as usize, root.spent as usize)
            } else {
                u32::MAX
            };
            for a in (0..h).filter(|&a| legal >> a & 1 == 1 && n[a] == target) {
                best.consider(a, root.noise[a] + nd.logits[a] + sigma[a]);
            }
            if best.action == usize::MAX {
                // Past the schedule: the least visited of the best.
                let min_n = (0..h).filter(|&a| legal >> a & 1 == 1).map(|a| n[a]).min();
                for a in (0..h).filter(|&a| legal >> a & 1 == 1 && Some(n[a]) == min_n) {
                    best.consider(a, root.noise[a] + nd.logits[a] + sigma[a]);
                }
            }
        } else {
            let improved =
                softmax_legal(&std::array::from_fn(|a| nd.logits[a] + sigma[a]), legal, h);
            let total: u32 = n[..h].iter().sum();
            for a in (0..h).filter(|&a| legal >> a & 1 == 1) {
                best.consider(a, improved[a] - n[a] as f32 / (1.0 + total as f32));
            }
        }
        best.action
    }

    /// The policy target (the improved policy) and the chosen action (the survivor: the best
    /// `g + logits + σ` among the most visited).
    pub(super) fn result(&self, tree: &Tree, root: &Root) -> ([f32; MAX_ACTIONS], usize) {
        let h = tree.rules.houses as usize;
        let nd = &tree.nodes[0];
        let legal = nd.legal;
        let (n, _) = tree.child_stats(0);
        let sigma = self.sigma(tree, 0);
        let policy = softmax_legal(&std::array::from_fn(|a| nd.logits[a] + sigma[a]), legal, h);
        let max_n = (0..h)
            .filter(|&a| legal >> a & 1 == 1)
            .map(|a| n[a])
            .max()
            .unwrap_or(0);
        let mut action = legal.trailing_zeros() as usize;
        let mut best = f32::NEG_INFINITY;
        for a in (0..h).filter(|&a| legal >> a & 1 == 1 && n[a] == max_n) {
            let s = root.noise[a] + nd.logits[a] + sigma[a];
            if s > best {
                best = s;
                action = a;
            }
        }
        (policy, action)
    }
}

/// σ(q̂) of the Gumbel search for one node: `prior` the network's policy, `q` and `visits` its
/// children's mean values (for the node's mover) and visits by action, `raw_value` the network's
/// value of the node for its mover. Unvisited legal actions get the mixed value
/// `v_mix = (raw_value + ΣN · Σ_visited π(a) q(a) / Σ_visited π(a)) / (1 + ΣN)`; the completed
/// values are rescaled by min-max over the legal actions, then `σ = (c_visit + max N) · c_scale · q̂`.
pub fn completed_sigma(
    prior: &[f32; MAX_ACTIONS],
    legal: u16,
    q: &[f32],
    visits: &[u32],
    raw_value: f32,
    c_visit: f32,
    c_scale: f32,
) -> [f32; MAX_ACTIONS] {
    let h = q.len();
    let is_legal = |a: usize| legal >> a & 1 == 1;
    let total: u32 = visits.iter().sum();
    let (mut pq, mut p) = (0f32, 0f32);
    for a in (0..h).filter(|&a| is_legal(a) && visits[a] > 0) {
        pq += prior[a] * q[a];
        p += prior[a];
    }
    let v_mix = if total == 0 || p <= 0.0 {
        raw_value
    } else {
        (raw_value + total as f32 * pq / p) / (1.0 + total as f32)
    };
    let mut cq = [0f32; MAX_ACTIONS];
    let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
    for a in (0..h).filter(|&a| is_legal(a)) {
        cq[a] = if visits[a] > 0 { q[a] } else { v_mix };
        lo = lo.min(cq[a]);
        hi = hi.max(cq[a]);
    }
    let max_n = visits.iter().copied().max().unwrap_or(0) as f32;
    let scale = (c_visit + max_n) * c_scale;
    let mut out = [0f32; MAX_ACTIONS];
    for a in (0..h).filter(|&a| is_legal(a)) {
        out[a] = scale * (cq[a] - lo) / (hi - lo).max(1e-8);
    }
    out
}

/// The Gumbel search's improved policy `softmax(logits + σ(q̂))` over the legal actions (see
/// [`completed_sigma`]).
///
/// ```
/// use awale::search::gumbel_improved_policy;
/// // Two actions, equal logits, only action 0 visited once with q = 1, network value 0:
/// // v_mix = (0 + 1·1)/2 = 0.5 completes action 1; min-max gives q̂ = (1, 0);
/// // σ = (50 + 1)·0.1·q̂ = (5.1, 0); π' = softmax(5.1, 0).
/// let p = gumbel_improved_policy(&[0.0, 0.0], 0b11, &[1.0, 0.0], &[1, 0], 0.0, 50.0, 0.1);
/// let want = 1.0 / (1.0 + (-5.1f32).exp());
/// assert!((p[0] - want).abs() < 1e-6 && (p[1] - (1.0 - want)).abs() < 1e-6);
/// ```
pub fn gumbel_improved_policy(
    logits: &[f32],
    legal: u16,
    q: &[f32],
    visits: &[u32],
    raw_value: f32,
    c_visit: f32,
    c_scale: f32,
) -> Vec<f32> {
    let h = logits.len();
    let mut l = [f32::NEG_INFINITY; MAX_ACTIONS];
    l[..h].copy_from_slice(logits);
    let l = masked_logits(&l, legal, h);
    let prior = softmax_legal(&l, legal, h);
    let sigma = completed_sigma(&prior, legal, q, visits, raw_value, c_visit, c_scale);
    let p = softmax_legal(&std::array::from_fn(|a| l[a] + sigma[a]), legal, h);
    p[..h].to_vec()
}
