//! libFuzzer entry point; the body is in `fuzz/targets/checkpoint_records.rs` (also run by
//! `tests/fuzz_corpus.rs` with the `train` feature). Build with `--features train`.
#![no_main]

#[path = "../targets/checkpoint_records.rs"]
mod target;

libfuzzer_sys::fuzz_target!(|data: &[u8]| target::run(data));
