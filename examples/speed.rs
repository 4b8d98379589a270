use awale::*;
use rand::{Rng, SeedableRng};
fn main() {
    let rules: Rules = std::env::args().nth(1).unwrap_or("abapa".into()).parse().unwrap();
    let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
    let t = std::time::Instant::now();
    let mut moves = 0u64; let mut games = 0;
    while moves < 20_000_000 {
        let mut g = Game::new(rules);
        while !g.is_over() {
            let m = g.legal_mask();
            let n = m.count_ones();
            let k = rng.random_range(0..n);
            let mut mm = m; for _ in 0..k { mm &= mm - 1; }
            g.apply_unchecked(mm.trailing_zeros() as usize);
            moves += 1;
        }
        games += 1;
    }
    let dt = t.elapsed().as_secs_f64();
    println!("{} moves/s, {:.1} plies/game", moves as f64 / dt, moves as f64 / games as f64);
}
