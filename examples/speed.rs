//! Quick throughput probe: `cargo run --release --example speed [SPEC...] [-- MOVES]`.
use awale::{bench, Rules};
fn main() {
    let mut specs: Vec<String> = std::env::args().skip(1).collect();
    let mut n = 20_000_000u64;
    if let Some(p) = specs.iter().position(|s| s.parse::<u64>().is_ok()) {
        n = specs.remove(p).parse().unwrap();
    }
    if specs.is_empty() {
        specs = ["abapa", "awale", "wari", "oware4"]
            .map(String::from)
            .to_vec();
    }
    for s in specs {
        let rules: Rules = s.parse().unwrap();
        let r = bench::random_play(&rules, n, 1);
        println!(
            "{s:10} {:7.2} M moves/s  {:6.1} plies/game",
            r.moves_per_second() / 1e6,
            r.plies_per_game()
        );
    }
}
