//! Fuzz target `selfplay_report`: what a distributed run's learner reads from its workers
//! (`awale::az::remote`, no burn): self-play reports and games in progress.
//!
//! Byte 0 picks what the rest of the input is:
//! - bit 0 clear: a report ([`PartReport::decode`], then [`join_reports`] over two workers);
//! - bit 0 set: a worker's games in progress ([`join_games`]);
//! - bit 1 set: the rest follows a valid header (magic and the config's digest), so that the
//!   fuzzer reaches the shard ranges, counts and samples instead of stopping at the digest.
//!
//! A refused input must give a typed error and leave the learner's games as they were; an
//! accepted report must encode back to the same bytes, hold samples whose positions fit the
//! rules, and count as many positions as samples; accepted games must play on.

use awale::az::data::{ByteWriter, ReplayBuffer};
use awale::az::remote::{config_digest, join_games, join_reports, PartReport};
use awale::az::selfplay::{SelfPlay, SelfPlaySettings};
use awale::az::TrainConfig;
use awale::search::UniformEvaluator;

/// A small valid config of 2 shards (the one the learner reads under).
pub fn config() -> TrainConfig {
    let mut cfg = TrainConfig::tiny();
    cfg.selfplay.concurrent_games = 4;
    cfg.selfplay.threads = 2;
    cfg.search.sims = 4;
    cfg.search.fast_sims = 2;
    cfg
}

/// A fresh self-play set of [`config`] (the learner's).
pub fn learner_games(cfg: &TrainConfig) -> SelfPlay {
    SelfPlay::with_threads(
        cfg.rules().expect("valid rules"),
        SelfPlaySettings::from_config(cfg),
        4,
        2,
    )
}

/// Checks one input (see the module docs); panics on a violated property.
pub fn run(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let cfg = config();
    let rules = cfg.rules().expect("valid rules");
    let games = mode & 1 == 1;
    let bytes = if mode & 2 == 2 {
        let mut w = ByteWriter::new();
        w.bytes_raw(if games { b"AWSPGAM2" } else { b"AWSPREP1" });
        w.u64(config_digest(&cfg));
        w.bytes_raw(rest);
        w.buf
    } else {
        rest.to_vec()
    };
    if games {
        let mut sp = learner_games(&cfg);
        let mut before = ByteWriter::new();
        sp.encode(&mut before);
        match join_games(&cfg, &mut sp, std::slice::from_ref(&bytes)) {
            Err(_) => {
                let mut after = ByteWriter::new();
                sp.encode(&mut after);
                assert!(after.buf == before.buf, "a refused join changed the games");
            }
            Ok(()) => {
                let mut buf = ReplayBuffer::new(64);
                sp.run(|| UniformEvaluator, 1, &mut buf);
            }
        }
        return;
    }
    let Ok(report) = PartReport::decode(&cfg, &bytes) else {
        return;
    };
    assert!(
        report.encode(&cfg) == bytes,
        "a report does not encode back to the same bytes"
    );
    assert_eq!(report.stats.positions as usize, report.samples.len());
    for s in &report.samples {
        assert!(
            s.state.fits(&rules),
            "a sample's position does not fit the rules"
        );
    }
    // As one worker's report of a whole iteration: accepted only when it covers both shards.
    let whole = join_reports(&cfg, report.version, std::slice::from_ref(&bytes));
    assert_eq!(whole.is_ok(), report.shards == (0..2) && report.total == 2);
}

/// Real messages of [`config`]'s two workers (a report and the games of each), for the seed
/// corpus and the tests.
#[allow(dead_code)]
pub fn samples() -> Vec<Vec<u8>> {
    use awale::az::remote::SelfPlayPart;
    let cfg = config();
    let mut out = Vec::new();
    for (mode, range) in [(0u8, 0..1), (0, 1..2), (0, 0..2)] {
        let mut part = SelfPlayPart::new(&cfg, range).expect("a valid part");
        let mut report = vec![mode];
        report.extend(part.play(|| UniformEvaluator, 7, 12));
        out.push(report);
        let mut games = vec![1u8];
        games.extend(part.games());
        out.push(games);
    }
    out
}
