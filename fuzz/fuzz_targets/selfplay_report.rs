//! libFuzzer entry point; the body is in `fuzz/targets/selfplay_report.rs` (also run by `tests/fuzz_corpus.rs`).
#![no_main]

#[path = "../targets/selfplay_report.rs"]
mod target;

libfuzzer_sys::fuzz_target!(|data: &[u8]| target::run(data));
