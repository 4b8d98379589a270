#!/usr/bin/env bash
# Builds the cargo-fuzz targets of fuzz/ (libFuzzer + AddressSanitizer) and runs each for a few
# seconds from its kept corpus; any crash fails the script. Long fuzzing is done by hand (see
# docs/reliability.md). The stable toolchain builds them with RUSTC_BOOTSTRAP=1 (cargo fuzz
# needs nightly's -Zsanitizer; the stable toolchain ships the ASan runtime).
#
# Environment: FUZZ_SECONDS (default 10) per target; CARGO_TARGET_DIR (default
# fuzz/target); FUZZ_TARGETS (default: every target); FUZZ_SEED (default 1): libFuzzer's seed,
# fixed so that a run explores the same inputs each time (CI does not fail at random on a bug
# it happened to reach; finding new ones is the job of the long runs of docs/reliability.md).
# The targets that need the `train` feature (burn's records: checkpoint_records) are left out:
# burn under AddressSanitizer takes too long for CI; their kept corpus is replayed by
# `cargo test --features train --test fuzz_corpus`, and they are fuzzed by hand with
# `cargo fuzz run -s none --features train checkpoint_records`.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
seconds=${FUZZ_SECONDS:-10}
export RUSTC_BOOTSTRAP=1
if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "== installing cargo-fuzz"
    cargo install cargo-fuzz --locked
fi
target_dir=${CARGO_TARGET_DIR:-$PWD/fuzz/target}
cd fuzz
echo "== building the fuzz targets ($(($(date +%s) - start)) s)"
cargo fuzz build --target-dir "$target_dir"
targets=${FUZZ_TARGETS:-$(cargo fuzz list | grep -vx checkpoint_records)}
# A scratch copy of each corpus, so that a smoke run does not grow the kept one.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for t in $targets; do
    mkdir -p "$scratch/$t"
    cp -r "corpus/$t/." "$scratch/$t/" 2>/dev/null || true
    cp -r "regressions/$t/." "$scratch/$t/" 2>/dev/null || true
    echo "== fuzzing $t for ${seconds} s ($(($(date +%s) - start)) s)"
    if ! cargo fuzz run --target-dir "$target_dir" "$t" "$scratch/$t" -- \
        -max_total_time="$seconds" -seed="${FUZZ_SEED:-1}" -print_final_stats=1 -rss_limit_mb=2048 \
        >"$scratch/$t.log" 2>&1; then
        tail -n 60 "$scratch/$t.log"
        echo "== $t FAILED: the crash input is under fuzz/artifacts/$t/"
        exit 1
    fi
    grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units)" "$scratch/$t.log" || true
done
echo "== fuzz smoke done in $(($(date +%s) - start)) s"
