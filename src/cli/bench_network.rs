//! `awale bench network`: what one call of a network's forward pass costs, burn's (the
//! trainer's self-play and Python's `predict`) and the plain one the `nn` agent plays with
//! (`awale::network::dense`), on the same positions, for each batch size: microseconds per call,
//! positions per second and the ratio, measured side by side in one run.
//!
//! ```text
//! awale bench network --network abapa --batch 1,8,64,512
//! ```

use std::sync::Arc;
use std::time::{Duration, Instant};

use awale::az::network::{encode_batch, Network};
use awale::network::NetCore;
use clap::Args as ClapArgs;

/// Arguments of `awale bench network`.
#[derive(Debug, ClapArgs)]
pub struct NetworkArgs {
    /// The network: a shipped baseline's name (`abapa`, `abapa-v1`, ...) or a network file.
    #[arg(long, default_value = "abapa", value_name = "NAME|FILE")]
    network: String,
    /// Batch sizes (positions per call), comma-separated.
    #[arg(long, default_value = "1,8,64,512", value_delimiter = ',')]
    batch: Vec<usize>,
    /// Time spent on each measurement (each batch size, each forward), in seconds.
    #[arg(long, default_value_t = 1.0)]
    seconds: f64,
    /// Seed of the random positions.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// The largest batch measured (its positions are made and encoded up front).
const MAX_BATCH: usize = 65_536;

/// The network `text` names: a baseline, else a file.
fn load(text: &str) -> Result<Arc<NetCore>, Box<dyn std::error::Error>> {
    let path = std::path::Path::new(text);
    if path.exists() {
        return Ok(Arc::new(NetCore::load(path)?));
    }
    Ok(awale::network::baseline::find(text)?.core()?)
}

/// Calls `net` on batches of `batch` rows of `features` for about `seconds`: seconds per call.
fn time_calls(net: &dyn Network, features: &[f32], dim: usize, batch: usize, seconds: f64) -> f64 {
    let (mut logits, mut values) = (Vec::new(), Vec::new());
    let rows = features.len() / dim;
    let budget = Duration::from_secs_f64(seconds);
    let start = Instant::now();
    let mut calls = 0u64;
    let mut at = 0;
    while calls == 0 || start.elapsed() < budget {
        if at + batch > rows {
            at = 0;
        }
        net.infer(
            &features[at * dim..(at + batch) * dim],
            batch,
            &mut logits,
            &mut values,
        );
        std::hint::black_box((&logits, &values));
        at += batch;
        calls += 1;
    }
    start.elapsed().as_secs_f64() / calls as f64
}

/// Runs `awale bench network`.
pub fn run_network(a: NetworkArgs) -> Result<(), Box<dyn std::error::Error>> {
    if a.batch.is_empty() || a.batch.contains(&0) {
        return Err("--batch: give batch sizes of at least 1".into());
    }
    if let Some(&b) = a.batch.iter().find(|&&b| b > MAX_BATCH) {
        return Err(format!(
            "--batch: {b} is more than the {MAX_BATCH} positions a call measured here"
        )
        .into());
    }
    if !(a.seconds > 0.0 && a.seconds <= 600.0) {
        return Err("--seconds: give a time between 0 and 600 seconds".into());
    }
    let core = load(&a.network)?;
    let largest = *a.batch.iter().max().unwrap_or(&1);
    let states = awale::bench::random_positions(&core.rules, largest.max(1024), 80, a.seed);
    let mut features = Vec::new();
    encode_batch(
        &core.rules,
        core.encoding,
        &core.scale,
        &states,
        &mut features,
    );
    let dim = core.scale.len();
    let dense = core.dense();
    println!(
        "network {} ({} rules, {} inputs, {} parameters), one thread",
        a.network,
        core.rules,
        dim,
        core.net.param_values().len()
    );
    println!(
        "{:>6}  {:>12}  {:>12}  {:>14}  {:>14}  {:>7}",
        "batch", "burn µs/call", "plain µs/call", "burn pos/s", "plain pos/s", "ratio"
    );
    for &batch in &a.batch {
        let burn = time_calls(&*core, &features, dim, batch, a.seconds);
        let plain = time_calls(dense, &features, dim, batch, a.seconds);
        println!(
            "{batch:>6}  {:>12.1}  {:>12.1}  {:>14.0}  {:>14.0}  {:>6.2}x",
            burn * 1e6,
            plain * 1e6,
            batch as f64 / burn,
            batch as f64 / plain,
            burn / plain
        );
    }
    Ok(())
}
