//! libFuzzer entry point; the body is in `fuzz/targets/checkpoint.rs` (also run by `tests/fuzz_corpus.rs`).
#![no_main]

#[path = "../targets/checkpoint.rs"]
mod target;

libfuzzer_sys::fuzz_target!(|data: &[u8]| target::run(data));
