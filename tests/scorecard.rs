//! The scorecard: a fixed protocol rates an agent against pinned anchors, the same card for the
//! same deterministic agent, resumable, refusing another protocol's folder; the compiled-in
//! protocol parses for every rule set it names.

use awale::agents::Registry;
use awale::scorecard::{self, Protocol, ProtocolFile, Scorecard, ScorecardOptions};
use awale::tournament::Entrant;
use awale::Rules;

/// A tiny protocol: abapa, three built-in anchors with made-up ratings, 8 games each.
fn tiny() -> Protocol {
    ProtocolFile::parse(
        r#"
version = 1
[[rules]]
rules = "abapa"
seed = 7
openings = 4
games = 8
prior_draws = 1.0
anchors = [
  { spec = "random", rating = 0.0 },
  { spec = "greedy", rating = 300.0 },
  { spec = "alphabeta:depth=2", rating = 600.0 },
]
"#,
    )
    .unwrap()
    .rules
    .remove(0)
}

fn rate(spec: &str, p: &Protocol, opts: &ScorecardOptions) -> Scorecard {
    let agent = Entrant::from_spec_text(spec, &Rules::abapa()).unwrap();
    scorecard::run(p, agent, &Registry::builtin(), opts, &()).unwrap()
}

#[test]
fn a_card_rates_the_agent_on_the_anchors_scale() {
    let p = tiny();
    let card = rate("alphabeta:depth=1", &p, &ScorecardOptions::default());
    assert_eq!(card.games, 24);
    assert!(card.complete);
    assert_eq!(card.anchors.len(), 3);
    assert!(card.anchors.iter().all(|a| a.games == 8));
    assert!(card.lower < card.rating && card.rating < card.upper);
    // Depth 1 beats random: its rating is above random's pinned 0.
    assert!(card.rating > 0.0, "{}", card.summary());
    assert_eq!(card.protocol_id, p.id());
    assert!(card.ms_per_move.is_some());
    // Deterministic agents: the same card again.
    let again = rate("alphabeta:depth=1", &p, &ScorecardOptions::default());
    assert_same_results(&card, &again);
    let md = card.to_markdown();
    assert!(
        md.contains("alphabeta:depth=2") && md.contains(&p.id()),
        "{md}"
    );
}

#[test]
fn an_agent_named_as_an_anchor_is_rated_under_another_name() {
    let card = rate("greedy", &tiny(), &ScorecardOptions::default());
    assert_eq!(card.agent, "greedy (rated)");
    // Against itself (greedy is deterministic): every game drawn or split by the seats.
    assert!(card.anchors[1].games == 8);
}

#[test]
fn a_card_resumes_and_refuses_another_protocols_folder() {
    let dir = tempdir("resume");
    let opts = ScorecardOptions {
        out: Some(dir.clone()),
        ..Default::default()
    };
    let p = tiny();
    let card = rate("alphabeta:depth=1", &p, &opts);
    assert!(dir.join("scorecard.json").is_file() && dir.join("scorecard.md").is_file());
    let read = Scorecard::read(&dir.join("scorecard.json")).unwrap();
    assert_same_results(&read, &card);
    // Again: every game is loaded from the folder, the same card.
    let again = rate("alphabeta:depth=1", &p, &opts);
    assert_eq!(again.rating, card.rating);
    // Another protocol (other ratings) in the same folder: refused, both named.
    let mut other = p.clone();
    other.anchors[1].rating = 250.0;
    let agent = Entrant::from_spec_text("alphabeta:depth=1", &Rules::abapa()).unwrap();
    let e = scorecard::run(&other, agent, &Registry::builtin(), &opts, &())
        .unwrap_err()
        .to_string();
    assert!(e.contains(&p.id()) && e.contains(&other.id()), "{e}");
    // A card of another protocol version is refused with both versions named.
    let text = std::fs::read_to_string(dir.join("scorecard.json"))
        .unwrap()
        .replace("\"protocol_version\": 1", "\"protocol_version\": 0");
    let e = Scorecard::from_json(&text).unwrap_err().to_string();
    assert!(e.contains("version 0") && e.contains("version 1"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_protocols_and_rules_are_refused() {
    assert!(scorecard::protocol("chess")
        .unwrap_err()
        .to_string()
        .contains("abapa"));
    let bad = |text: &str| ProtocolFile::parse(text).unwrap_err().to_string();
    let base =
        "version = 1\n[[rules]]\nrules = \"abapa\"\nseed = 1\nopenings = 4\nprior_draws = 1.0\n";
    let e = bad(&format!(
        "{base}games = 3\nanchors = [{{ spec = \"random\", rating = 0.0 }}]\n"
    ));
    assert!(e.contains("multiple"), "{e}");
    let e = bad(&format!(
        "{base}games = 2\nanchors = [{{ spec = \"random\", rating = 0.0 }}, {{ spec = \"random\", rating = 1.0 }}]\n"
    ));
    assert!(e.contains("twice"), "{e}");
    let e = bad(&format!(
        "{base}games = 2\nanchors = [{{ spec = \"random\" }}]\n"
    ));
    assert!(e.contains("rating"), "{e}");
}

#[test]
fn the_compiled_in_protocol_parses_with_increasing_ratings() {
    let file = ProtocolFile::parse(scorecard::PROTOCOL_TOML).unwrap();
    assert_eq!(file.version, scorecard::PROTOCOL_VERSION);
    for p in &file.rules {
        assert_eq!(p.anchors[0].spec, "random");
        assert_eq!(p.anchors[0].rating, 0.0);
        for w in p.anchors.windows(2) {
            assert!(
                w[0].rating < w[1].rating,
                "{}: anchors not weakest first",
                p.rules
            );
        }
        // Every id differs (rules and hash).
        assert!(p.id().contains(&p.rules));
    }
}

/// The same rating and the same games against each anchor (the times per move differ).
fn assert_same_results(a: &Scorecard, b: &Scorecard) {
    assert!(
        (a.rating - b.rating).abs() < 1e-9,
        "{} {}",
        a.rating,
        b.rating
    );
    assert_eq!(a.protocol_id, b.protocol_id);
    let record = |c: &Scorecard| -> Vec<(String, u32, u32, u32, u32)> {
        c.anchors
            .iter()
            .map(|x| (x.spec.clone(), x.games, x.wins, x.draws, x.losses))
            .collect()
    };
    assert_eq!(record(a), record(b));
}

fn tempdir(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("awale-scorecard-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}
