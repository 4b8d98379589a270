//! libFuzzer entry point; the body is in `fuzz/targets/tablebase_file.rs` (also run by `tests/fuzz_corpus.rs`).
#![no_main]

#[path = "../targets/tablebase_file.rs"]
mod target;

libfuzzer_sys::fuzz_target!(|data: &[u8]| target::run(data));
