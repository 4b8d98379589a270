//! Hand-written networks shared by the search and self-play tests (tests/az.rs,
//! tests/search_pinned.rs): no training, no burn.

use awale::az::network::Network;
use awale::batch::ObsEncoding;
use awale::Rules;

/// A hand-written network: prefers houses with many seeds (read back from the encoded input)
/// and values the mover's store lead.
pub struct SeedCounter(pub Rules);

impl Network for SeedCounter {
    fn rules(&self) -> Rules {
        self.0
    }
    fn encoding(&self) -> ObsEncoding {
        ObsEncoding::Compact
    }
    fn infer(&self, features: &[f32], batch: usize, logits: &mut Vec<f32>, values: &mut Vec<f32>) {
        let h = self.0.houses as usize;
        let dim = features.len() / batch.max(1);
        let pits = self.0.pits();
        logits.clear();
        values.clear();
        for row in features.chunks_exact(dim).take(batch) {
            // Compact rows start with the mover's houses.
            logits.extend(row[..h].iter().map(|x| 4.0 * x));
            let stores = &row[pits..pits + 2];
            values.push((stores[0] - stores[1]).clamp(-1.0, 1.0));
        }
    }
}
