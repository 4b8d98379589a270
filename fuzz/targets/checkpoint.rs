//! Fuzz target `checkpoint`: the trainer's checkpoint decoder (`awale::az::checkpoint`, no burn)
//! and the decoders of what a checkpoint carries (replay buffer, self-play games in progress).
//!
//! Byte 0 picks what the rest of the input is:
//! - even: a whole checkpoint file (magic, version, fingerprint, payload, CRC) as read from disk;
//! - odd: the payload after a valid config, framed with the right fingerprint and checksum, so
//!   that the fuzzer reaches the counters, records, replay buffer and self-play decoders
//!   instead of stopping at the checksum.
//!
//! A refused input must give a typed error; an accepted checkpoint must write back to bytes
//! that read back equal, and its replay buffer and self-play state must decode or be refused,
//! and a decoded self-play set must play on.

use awale::az::checkpoint::{Checkpoint, MAGIC, VERSION};
use awale::az::data::{ByteReader, ByteWriter, ReplayBuffer};
use awale::az::selfplay::{SelfPlay, SelfPlaySettings};
use awale::az::TrainConfig;
use awale::search::UniformEvaluator;

/// A small valid config (the one framed payloads start with).
pub fn config() -> TrainConfig {
    let mut cfg = TrainConfig::tiny();
    cfg.selfplay.concurrent_games = 4;
    cfg.search.sims = 4;
    cfg.search.fast_sims = 2;
    cfg
}

/// `payload` framed as a checkpoint file of `cfg` (right fingerprint, right checksum).
pub fn frame(cfg: &TrainConfig, payload: &[u8]) -> Vec<u8> {
    let mut p = ByteWriter::new();
    p.bytes(cfg.to_toml().as_bytes());
    p.bytes_raw(payload);
    let mut out = ByteWriter::new();
    out.bytes_raw(MAGIC);
    out.u32(VERSION);
    out.u64(cfg.fingerprint());
    out.bytes(&p.buf);
    let crc = awale::az::checkpoint::crc32(&out.buf);
    out.u32(crc);
    out.buf
}

/// Checks one input (see the module docs); panics on a violated property.
pub fn run(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let bytes = if mode % 2 == 0 {
        rest.to_vec()
    } else {
        frame(&config(), rest)
    };
    let Ok(ck) = Checkpoint::from_bytes(&bytes) else {
        return;
    };
    let bytes = ck.to_bytes();
    let again = Checkpoint::from_bytes(&bytes).expect("a written checkpoint reads back");
    // Compared as bytes: a config may hold NaN (valid TOML), which is never equal to itself.
    assert!(
        again.to_bytes() == bytes,
        "a checkpoint does not write back to the same bytes"
    );
    assert!(ck.check_config(&ck.config).is_ok());
    let cfg = &ck.config;
    let Ok(rules) = cfg.rules() else {
        return;
    };
    if cfg.validate().is_err() {
        return;
    }
    if let Ok(buffer) = ReplayBuffer::decode(&rules, &mut ByteReader::new(&ck.replay)) {
        for i in 0..buffer.len() {
            assert!(buffer.get(i).state.fits(&rules));
        }
    }
    // Keep the self-play check cheap: small configs only.
    let games = cfg.selfplay.concurrent_games;
    let sims = cfg.search.sims.max(cfg.search.fast_sims);
    let plies = cfg.rules().map_or(0, |r| r.max_plies);
    if games > 16 || sims > 16 || cfg.search.full_search_prob < 0.1 || plies == 0 || plies > 400 {
        return;
    }
    let mut sp = SelfPlay::with_threads(rules, SelfPlaySettings::from_config(cfg), games, 1);
    if sp.decode(&mut ByteReader::new(&ck.selfplay)).is_ok() && sp.threads() <= 4 {
        let mut w = ByteWriter::new();
        sp.encode(&mut w);
        let mut back = SelfPlay::with_threads(rules, SelfPlaySettings::from_config(cfg), games, 1);
        back.decode(&mut ByteReader::new(&w.buf))
            .expect("an encoded self-play set decodes");
        let mut buf = ReplayBuffer::new(64);
        sp.run(|| UniformEvaluator, 1, &mut buf);
    }
}

/// A real checkpoint of [`config`] with a replay buffer and games in progress on 2 threads
/// (no network: the records are placeholder bytes), for the seed corpus and the tests.
#[allow(dead_code)]
pub fn sample_checkpoint() -> Checkpoint {
    use awale::az::checkpoint::{Counters, RngState};
    let cfg = config();
    let rules = cfg.rules().expect("valid rules");
    let mut sp = SelfPlay::with_threads(rules, SelfPlaySettings::from_config(&cfg), 4, 2);
    let mut buffer = ReplayBuffer::new(32);
    let stats = sp.run(|| UniformEvaluator, 8, &mut buffer);
    let mut replay = ByteWriter::new();
    buffer.encode(&rules, &mut replay);
    let mut selfplay = ByteWriter::new();
    sp.encode(&mut selfplay);
    Checkpoint {
        config: cfg,
        counters: Counters {
            iteration: 1,
            train_steps: 0,
            games: stats.games,
            positions: stats.positions,
            moves: stats.moves,
            elapsed: 0.5,
        },
        rng: RngState {
            seed: [3; 32],
            stream: 0,
            word_pos: 17,
        },
        model: b"model record".to_vec(),
        optimizer: Vec::new(),
        replay: replay.buf,
        selfplay: selfplay.buf,
        extra: "{}".into(),
    }
}

/// The payload of `ck` after its config (what a framed input, byte 0 odd, carries).
#[allow(dead_code)]
pub fn payload_after_config(ck: &Checkpoint) -> Vec<u8> {
    let bytes = ck.to_bytes();
    let mut r = ByteReader::new(&bytes[8..]);
    r.u32().expect("version");
    r.u64().expect("fingerprint");
    let mut p = ByteReader::new(r.bytes().expect("payload"));
    p.bytes().expect("config");
    let rest = p.remaining();
    p.bytes_raw(rest).expect("the rest").to_vec()
}
