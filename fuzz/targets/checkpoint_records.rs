//! Fuzz target `checkpoint_records` (needs the `train` feature): the two burn records a
//! checkpoint carries, decoded as `Trainer::from_checkpoint` decodes them. The `checkpoint`
//! target reaches the checkpoint's framing, config, replay buffer and self-play state; this one
//! goes through the records themselves, from real encoded records (the seed corpus).
//!
//! Byte 0 picks what the rest of the input is:
//! - even: the network's record (burnpack), loaded into a network of the tiny config's shape
//!   ([`awale::network::model::load_model`]); a network that loads must answer a forward pass;
//! - odd: the optimiser's record ([`awale::train::trainer::load_optimizer`]) for the network
//!   of the seed checkpoint (made once per process).
//!
//! A refused record must give a typed error, never a panic or an allocation the record's
//! claimed sizes ask for.

use std::sync::OnceLock;

use awale::az::TrainConfig;
use awale::network::model::load_model;
use awale::train::trainer::load_optimizer;
use awale::train::Trainer;

/// The config whose network the records are loaded into: the tiny config with one hidden
/// layer of 8 (records of a few KB, which the fuzzer mutates quickly).
pub fn config() -> TrainConfig {
    let mut cfg = TrainConfig::tiny();
    cfg.network.hidden = vec![8];
    cfg
}

/// Checks one input (see the module docs); panics on a violated property.
pub fn run(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let cfg = config();
    // The inference device: the decoders are the same on every device, and the autodiff device
    // of training keeps about 10 KB per network built for the life of the process (burn 0.22's
    // autodiff bookkeeping; docs/reliability.md), which a fuzzer's millions of networks would
    // turn into an out-of-memory report.
    let device = awale::network::inference_device();
    if mode % 2 == 0 {
        if let Ok(net) = load_model(&cfg, rest, &device) {
            let values = net.param_values();
            assert!(!values.is_empty(), "a loaded network has weights");
        }
    } else {
        static MODEL: OnceLock<Vec<u8>> = OnceLock::new();
        let model = MODEL.get_or_init(|| seeds()[0][1..].to_vec());
        let net = load_model(&cfg, model, &device).expect("the seed network loads");
        let _ = load_optimizer(&cfg, rest, &net);
    }
}

/// Real records of [`config`] after one iteration (the optimiser has moments): the seed corpus,
/// each with its mode byte.
pub fn seeds() -> Vec<Vec<u8>> {
    let mut trainer = Trainer::new(config()).expect("the tiny config trains");
    trainer.iteration().expect("one iteration");
    let ck = trainer.checkpoint(0.0).expect("a checkpoint");
    assert!(!ck.optimizer.is_empty(), "the optimiser has a state");
    let mut model = vec![0u8];
    model.extend_from_slice(&ck.model);
    let mut optim = vec![1u8];
    optim.extend_from_slice(&ck.optimizer);
    vec![model, optim]
}
