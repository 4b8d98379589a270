//! Fuzz target `batch_snapshot`: the batch snapshot restore (`BatchSnapshot` from JSON, then
//! `Batch::restore`).
//!
//! A snapshot that reads is restored into a one-thread batch of its rules and size (at most 64
//! boards); the restore either refuses it with a typed error (and changes nothing) or succeeds,
//! after which the batch snapshots back to the same value and steps without panicking.

use awale::batch::{Batch, BatchConfig, BatchSnapshot, StepBuffers};

/// Most boards a fuzzed snapshot may ask for.
const MAX_BOARDS: usize = 64;

/// Checks one input (see the module docs); panics on a violated property.
pub fn run(data: &[u8]) {
    let Ok(snap) = serde_json::from_slice::<BatchSnapshot>(data) else {
        return;
    };
    let n = snap.num_boards();
    if n == 0 || n > MAX_BOARDS {
        return;
    }
    let Ok(mut batch) = Batch::new(BatchConfig::new(*snap.rules(), n).with_threads(1)) else {
        return;
    };
    let before = batch.snapshot();
    if batch.restore(&snap).is_err() {
        assert_eq!(
            batch.snapshot(),
            before,
            "a refused restore changed the batch"
        );
        return;
    }
    assert_eq!(batch.snapshot(), snap, "restore then snapshot differs");
    let mut buf = StepBuffers::<f32>::for_batch(&batch);
    for _ in 0..4 {
        let rules = *batch.rules();
        let actions: Vec<u32> = batch
            .states()
            .iter()
            .map(|s| s.legal_mask(&rules).trailing_zeros() % 16)
            .collect();
        let _ = batch.step(&actions, &mut buf.output());
        for s in batch.states() {
            assert!(s.fits(&rules), "a step broke a position");
        }
    }
}
