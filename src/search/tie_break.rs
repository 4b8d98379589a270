//! The one tie-break rule every selection rule uses: [`Best`] keeps the best-scoring action
//! seen, the first one on ties (so the lower house).

/// The best-scoring action seen so far (the first one on ties).
pub(super) struct Best {
    pub(super) action: usize,
    score: f32,
}

impl Default for Best {
    fn default() -> Self {
        Best {
            action: usize::MAX,
            score: f32::NEG_INFINITY,
        }
    }
}

impl Best {
    pub(super) fn consider(&mut self, action: usize, score: f32) {
        if self.action == usize::MAX || score > self.score {
            self.action = action;
            self.score = score;
        }
    }
}
