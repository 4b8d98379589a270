//! Sequential halving at the root of the Gumbel search (mctx's `seq_halving.py`): which visit
//! count each root simulation targets, so that the considered actions are halved phase by phase.

/// The visit count each root simulation of sequential halving targets (mctx's
/// `get_sequence_of_considered_visits`): `m` actions considered, `n` simulations. Simulation `k`
/// visits the best-scoring action whose visit count equals entry `k`.
///
/// ```
/// use awale::search::considered_visit_sequence;
/// assert_eq!(considered_visit_sequence(4, 8), [0, 0, 0, 0, 1, 1, 2, 2]);
/// assert_eq!(considered_visit_sequence(1, 3), [0, 1, 2]);
/// ```
pub fn considered_visit_sequence(m: usize, n: usize) -> Vec<u32> {
    (0..n).map(|k| considered_visit(m, n, k)).collect()
}

/// Entry `k` of [`considered_visit_sequence`]`(m, n)`, without the list (a search of `n`
/// simulations costs no memory in `n` for it): each phase of sequential halving visits every
/// considered action the same number of times, so the entry follows from the phases' lengths.
///
/// ```
/// use awale::search::{considered_visit, considered_visit_sequence};
/// let seq = considered_visit_sequence(6, 100);
/// assert!((0..100).all(|k| considered_visit(6, 100, k) == seq[k]));
/// ```
pub fn considered_visit(m: usize, n: usize, k: usize) -> u32 {
    if m <= 1 {
        return k as u32;
    }
    let log2max = (m as f64).log2().ceil() as usize;
    let (mut considered, mut start, mut visits) = (m, 0usize, 0usize);
    loop {
        let extra = (n / (log2max * considered)).max(1);
        let len = extra * considered;
        if k < start + len {
            return (visits + (k - start) / considered) as u32;
        }
        start += len;
        visits += extra;
        considered = (considered / 2).max(2);
    }
}

/// The list [`considered_visit_sequence`] was built as (mctx's own loop), kept to test
/// [`considered_visit`] against.
#[cfg(test)]
fn considered_visit_list(m: usize, n: usize) -> Vec<u32> {
    if m <= 1 {
        return (0..n as u32).collect();
    }
    let log2max = (m as f64).log2().ceil() as usize;
    let mut seq = Vec::with_capacity(n);
    let mut visits = vec![0u32; m];
    let mut considered = m;
    while seq.len() < n {
        let extra = (n / (log2max * considered)).max(1);
        for _ in 0..extra {
            seq.extend_from_slice(&visits[..considered]);
            for v in visits.iter_mut().take(considered) {
                *v += 1;
            }
        }
        considered = (considered / 2).max(2);
    }
    seq.truncate(n);
    seq
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_considered_visit_is_the_list_s() {
        for m in 1..=16 {
            for n in [0, 1, 2, 3, 7, 8, 31, 32, 64, 100, 257] {
                assert_eq!(
                    considered_visit_sequence(m, n),
                    considered_visit_list(m, n),
                    "{m} {n}"
                );
            }
        }
    }

    #[test]
    fn considered_visits_match_mctx() {
        // mctx: get_sequence_of_considered_visits(16, 32)
        let s = considered_visit_sequence(16, 32);
        assert_eq!(&s[..16], &(0..16).map(|_| 0).collect::<Vec<u32>>()[..]);
        assert_eq!(&s[16..24], &[1; 8]);
        assert_eq!(&s[24..28], &[2; 4]);
        assert_eq!(&s[28..], &[3; 4]);
    }
}
