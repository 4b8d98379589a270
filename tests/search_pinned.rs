//! The search's results pinned bit for bit: every selection rule, with and without root noise,
//! through every driver (one tree, many trees, the `mcts` agent, self-play, `play_out`, the `nn`
//! agent with and without rollouts). The digests were taken before the search became policies
//! over one tree (issue 51); a change that alters any of them alters what users get, and says
//! so in the CHANGELOG with new digests.

use awale::agents::{build_agent, Turn};
use awale::az::data::{ByteWriter, ReplayBuffer};
use awale::az::network::NetworkEvaluator;
use awale::az::selfplay::{play_out, SelfPlay, SelfPlaySettings};
use awale::az::TrainConfig;
use awale::search::BatchSearch;
use awale::search::{
    Evaluation, GuidedSearchResult, LeafEvaluator, Search, SearchKind, SearchSettings,
};
use awale::{Game, Rules, State};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

mod hand_networks;
use hand_networks::SeedCounter;

/// A deterministic evaluator whose logits and values follow the board, so that priors matter.
struct BoardEvaluator(Rules);

impl LeafEvaluator for BoardEvaluator {
    fn evaluate(&mut self, states: &[State], out: &mut Vec<Evaluation>) {
        out.clear();
        let p = self.0.players as usize;
        for s in states {
            let pits = s.pits();
            let mut e = Evaluation::default();
            for (a, l) in e.logits.iter_mut().enumerate() {
                *l = (pits[a % self.0.pits()] as f32 * 0.37 + a as f32 * 0.11).sin();
            }
            let total: f32 = s.scores()[..p].iter().map(|&x| x as f32).sum::<f32>() + 1.0;
            for (q, v) in e.values.iter_mut().enumerate().take(p) {
                *v = ((s.scores()[q] as f32 * p as f32 - total) / (total + 4.0)).clamp(-1.0, 1.0);
            }
            out.push(e);
        }
    }
}

fn text(r: &GuidedSearchResult) -> String {
    let bits = |x: &[f32]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    format!(
        "{:?}|{:?}|{:?}|{}|{:?}|{}\n",
        r.visits,
        bits(&r.policy),
        bits(&r.value),
        r.action,
        bits(&r.q),
        r.legal
    )
}

fn digest(s: &str) -> String {
    awale::digest::sha256_hex(s.as_bytes())[..16].to_string()
}

fn settings(kind: SearchKind) -> SearchSettings {
    SearchSettings::of_kind(kind)
}

/// Positions reached by a few random moves in `preset`.
fn positions(preset: &str, n: usize) -> (Rules, Vec<State>) {
    let rules: Rules = preset.parse().unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut out = Vec::new();
    let mut s = State::initial(&rules, 0);
    while out.len() < n {
        if s.is_over() {
            s = State::initial(&rules, 0);
        }
        out.push(s);
        let legal: Vec<usize> = (0..16)
            .filter(|h| s.legal_mask(&rules) >> h & 1 == 1)
            .collect();
        s.apply_unchecked(&rules, legal[rng.random_range(0..legal.len())]);
        if s.is_over() {
            continue;
        }
        s.apply_unchecked(&rules, s.legal_mask(&rules).trailing_zeros() as usize);
    }
    out.retain(|s| !s.is_over());
    (rules, out)
}

fn one_tree(kind: SearchKind, preset: &str, noise: bool) -> String {
    let (rules, roots) = positions(preset, 6);
    let mut search = Search::new(rules, settings(kind));
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut eval = BoardEvaluator(rules);
    let mut evals = Vec::new();
    let mut out = String::new();
    for root in roots {
        for budget in [1, 7, 50] {
            search.start(root, budget, noise.then_some(0.8));
            while let Some(leaf) = search.next_leaf(&mut rng) {
                eval.evaluate(&[leaf], &mut evals);
                search.deliver(&evals[0], &mut rng);
            }
            out += &text(&search.result());
        }
    }
    digest(&out)
}

#[test]
fn one_tree_results_are_pinned() {
    let mut got = Vec::new();
    for kind in [SearchKind::Gumbel, SearchKind::Puct, SearchKind::Uct] {
        for preset in ["abapa", "oware3"] {
            for noise in [false, true] {
                got.push(format!(
                    "{kind:?} {preset} {noise}: {}",
                    one_tree(kind, preset, noise)
                ));
            }
        }
    }
    let want = [
        "Gumbel abapa false: 397013fb2d53fc18",
        "Gumbel abapa true: 4ca5733198cc1f86",
        "Gumbel oware3 false: c282e758d466b4b0",
        "Gumbel oware3 true: c65eb40b616f7635",
        "Puct abapa false: 70ba296700099878",
        "Puct abapa true: f43d7fddebd14178",
        "Puct oware3 false: a0dfb59bbbb28698",
        "Puct oware3 true: d9b936c9fb9256a6",
        "Uct abapa false: 328abd611cb9b361",
        "Uct abapa true: 328abd611cb9b361",
        "Uct oware3 false: e89a7fcaf48f8986",
        "Uct oware3 true: e89a7fcaf48f8986",
    ];
    assert_eq!(got, want);
}

#[test]
fn many_tree_results_are_pinned() {
    let mut got = Vec::new();
    for kind in [SearchKind::Gumbel, SearchKind::Puct, SearchKind::Uct] {
        let (rules, roots) = positions("abapa", 9);
        let mut b = BatchSearch::new(rules, settings(kind), &roots, 40, Some(1.0), 3).unwrap();
        b.run(&mut BoardEvaluator(rules), 4);
        let out: String = b.results().iter().map(text).collect();
        got.push(format!("{kind:?}: {} {}", digest(&out), b.batches()));
    }
    assert_eq!(
        got,
        [
            "Gumbel: 7f936493171dd219 93",
            "Puct: 2f40f140c5c59d88 93",
            "Uct: 6403cc31556037ef 93"
        ]
    );
}

#[test]
fn play_out_is_pinned() {
    let mut got = Vec::new();
    for kind in [SearchKind::Gumbel, SearchKind::Puct, SearchKind::Uct] {
        let rules = Rules::abapa();
        let end = play_out(
            &rules,
            settings(kind),
            &mut BoardEvaluator(rules),
            State::initial(&rules, 0),
            16,
        );
        got.push(format!("{kind:?}: {:?} {}", end.scores(), end.ply()));
    }
    assert_eq!(
        got,
        [
            "Gumbel: [25, 23, 0, 0, 0, 0] 228",
            "Puct: [27, 6, 0, 0, 0, 0] 63",
            "Uct: [26, 16, 0, 0, 0, 0] 71"
        ]
    );
}

/// The `mcts` agent's searches on fixed positions, with `extra` options: a digest.
fn mcts_digest(extra: &str) -> String {
    let mut out = String::new();
    for (preset, plies, seed, sims) in [
        ("abapa", 0, 1, 300),
        ("abapa", 24, 2, 500),
        ("oware3", 17, 4, 300),
        ("awale", 31, 5, 400),
    ] {
        let rules: Rules = preset.parse().unwrap();
        let mut g = Game::with_seed(rules, seed);
        let mut random = build_agent("random", &rules).unwrap();
        random.reset(seed);
        while g.moves().len() < plies {
            let mv = random.select(&Turn::from_game(&g)).unwrap();
            g.apply(mv).unwrap();
        }
        for spec in ["mcts:sims=SIMS", "mcts:sims=SIMS,utility=seeds,c=0.7"] {
            let spec = spec.replace("SIMS", &sims.to_string()) + extra;
            let mut a = build_agent(&spec, &rules).unwrap();
            a.reset(seed);
            let mv = a.select(&Turn::from_game(&g)).unwrap();
            let t = a.thoughts().unwrap();
            let moves: Vec<_> = t
                .moves
                .iter()
                .map(|m| (m.house, m.visits, m.value.map(f32::to_bits)))
                .collect();
            out += &format!("{mv} {:?} {moves:?}\n", t.nodes);
        }
    }
    digest(&out)
}

#[test]
fn the_mcts_agent_is_pinned() {
    // The default (`expand=node`): the digest taken before the search became policies over one
    // tree. `expand=child`, classic MCTS's expansion, is new.
    assert_eq!(mcts_digest(""), "a3e881e586f81e2f");
    assert_eq!(mcts_digest(",expand=node"), "a3e881e586f81e2f");
    assert_eq!(mcts_digest(",expand=child"), "c80bda450d81d937");
}

#[test]
fn self_play_is_pinned() {
    let mut got = Vec::new();
    for kind in ["gumbel", "puct", "uct"] {
        let rules = Rules::abapa();
        let mut cfg = TrainConfig::tiny();
        cfg.seed = 8;
        cfg.search.kind = kind.parse().unwrap();
        cfg.search.sims = 12;
        cfg.search.fast_sims = 4;
        cfg.search.full_search_prob = 0.5;
        cfg.selfplay.temperature = 1.0;
        cfg.selfplay.temperature_plies = 6;
        let settings = SelfPlaySettings::from_config(&cfg);
        let net = SeedCounter(rules);
        let mut sp = SelfPlay::with_threads(rules, settings, 8, 2);
        let mut buf = ReplayBuffer::new(10_000);
        let mut stats = Vec::new();
        for _ in 0..2 {
            stats.push(sp.run(|| NetworkEvaluator::new(&net), 50, &mut buf));
        }
        let mut w = ByteWriter::new();
        buf.encode(&rules, &mut w);
        sp.encode(&mut w);
        let s = &stats[1];
        got.push(format!(
            "{kind}: {} {} {} {}",
            digest_bytes(&w.buf),
            s.positions,
            s.moves,
            s.evaluations
        ));
    }
    assert_eq!(
        got,
        [
            "gumbel: c083cdd8d3098d4a 56 151 1208",
            "puct: 66b99c97d6a75d61 113 87 596",
            "uct: 0bc0f09fb8223cee 55 72 652"
        ]
    );
}

fn digest_bytes(b: &[u8]) -> String {
    awale::digest::sha256_hex(b)[..16].to_string()
}

#[cfg(feature = "train")]
#[test]
fn the_nn_agent_is_pinned() {
    let registry = awale::network::registry();
    let rules = Rules::abapa();
    let mut out = String::new();
    for spec in [
        "nn:baseline=abapa-v1,sims=30,search=gumbel",
        "nn:baseline=abapa-v1,sims=30,search=puct",
        "nn:baseline=abapa-v1,sims=30,search=uct",
        "nn:baseline=abapa-v1,sims=30,search=puct,rollouts=0.5",
    ] {
        let spec = spec.parse().unwrap();
        let mut a = registry.build(&spec, &rules).unwrap();
        a.reset(3);
        let mut g = Game::with_seed(rules, 3);
        let mut random = build_agent("random", &rules).unwrap();
        random.reset(4);
        while !g.is_over() && g.moves().len() < 40 {
            let turn = Turn::from_game(&g);
            let mv = if g.moves().len().is_multiple_of(2) {
                a.select(&turn).unwrap()
            } else {
                random.select(&turn).unwrap()
            };
            g.apply(mv).unwrap();
        }
        let t = a.thoughts().map(|t| t.summary);
        out += &format!("{:?} {t:?}\n", g.moves());
    }
    assert_eq!(digest(&out), "90388cb0ddb19f22");
}
