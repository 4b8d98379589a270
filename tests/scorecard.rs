//! The scorecard: a fixed protocol rates an agent against pinned anchors, the same card for the
//! same deterministic agent, resumable, refusing another protocol's folder; the compiled-in
//! protocol parses for every rule set it names.

use awale::agents::Registry;
use awale::ratings::scorecard::{self, Protocol, ProtocolFile, Scorecard, ScorecardOptions};
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

/// Issue 60, items 1 to 3: a card's folder cannot lie, hang or redirect its writes. An edited
/// game in `games/games.jsonl` is refused on resume; a FIFO at `scorecard.json` or at the
/// games file is refused at once; a link at `scorecard.json` is replaced, its target untouched;
/// a link at `games/` is refused.
#[cfg(unix)]
#[test]
fn a_cards_folder_cannot_lie_hang_or_redirect_writes() {
    use std::os::unix::fs::symlink;
    let p = tiny();
    let dir = tempdir("hostile");
    let victim = tempdir("hostile-victim");
    std::fs::create_dir_all(&victim).unwrap();
    let opts = ScorecardOptions {
        out: Some(dir.clone()),
        threads: 1,
        ..Default::default()
    };
    let attempt = |opts: &ScorecardOptions| {
        let opts = opts.clone();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let agent = Entrant::from_spec_text("random", &Rules::abapa()).unwrap();
            let r = scorecard::run(&tiny(), agent, &Registry::builtin(), &opts, &());
            let _ = tx.send(r.map_err(|e| e.to_string()));
        });
        rx.recv_timeout(std::time::Duration::from_secs(60))
            .expect("the card hung (a FIFO waited on?)")
    };
    let card = rate("random", &p, &opts);
    // The stores and points of a lost game swapped: random "won" it.
    let jsonl = dir.join("games/games.jsonl");
    let original = std::fs::read_to_string(&jsonl).unwrap();
    let mut lines: Vec<serde_json::Value> = original
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let lost = lines
        .iter()
        .position(|g| {
            let me = g["seats"]
                .as_array()
                .unwrap()
                .iter()
                .position(|s| s == "random (rated)");
            me.is_some_and(|s| g["points"][s] == 0.0)
        })
        .unwrap();
    for key in ["scores", "points"] {
        let mut v = lines[lost][key].as_array().unwrap().clone();
        v.reverse();
        lines[lost][key] = v.into();
    }
    let text: String = lines.iter().map(|g| g.to_string() + "\n").collect();
    std::fs::write(&jsonl, text).unwrap();
    let e = attempt(&opts).unwrap_err();
    assert!(
        e.contains(&format!("line {}", lost + 1)) && e.contains("refused"),
        "{e}"
    );
    std::fs::write(&jsonl, &original).unwrap();
    assert_same_results(&attempt(&opts).unwrap(), &card);
    // FIFOs: refused at once.
    for file in ["scorecard.json", "games/games.jsonl"] {
        let path = dir.join(file);
        let kept = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid C string; mkfifo only reads it.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = attempt(&opts).unwrap_err();
        assert!(e.contains("FIFO"), "{e}");
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, kept).unwrap();
    }
    // A link at scorecard.json: replaced, its target untouched.
    std::fs::copy(dir.join("scorecard.json"), victim.join("card.json")).unwrap();
    let precious = std::fs::read(victim.join("card.json")).unwrap();
    std::fs::remove_file(dir.join("scorecard.json")).unwrap();
    symlink(victim.join("card.json"), dir.join("scorecard.json")).unwrap();
    std::fs::write(victim.join("scorecard.md"), "precious").unwrap();
    std::fs::remove_file(dir.join("scorecard.md")).unwrap();
    symlink(victim.join("scorecard.md"), dir.join("scorecard.md")).unwrap();
    attempt(&opts).unwrap();
    assert_eq!(std::fs::read(victim.join("card.json")).unwrap(), precious);
    assert_eq!(
        std::fs::read_to_string(victim.join("scorecard.md")).unwrap(),
        "precious"
    );
    for file in ["scorecard.json", "scorecard.md"] {
        assert!(std::fs::symlink_metadata(dir.join(file)).unwrap().is_file());
    }
    // A link at games/: refused, nothing written in its target.
    std::fs::remove_dir_all(dir.join("games")).unwrap();
    symlink(&victim, dir.join("games")).unwrap();
    let e = attempt(&opts).unwrap_err();
    assert!(e.contains("symbolic link"), "{e}");
    assert!(!victim.join("games.jsonl").exists() && !victim.join("tournament.json").exists());
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&victim);
}
