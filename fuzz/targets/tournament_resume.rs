//! Fuzz target `tournament_resume`: the tournament resume file (`games.jsonl`), loaded through
//! the public entry point `awale::tournament::run` with an output folder.
//!
//! The input is the content of `games.jsonl` in a folder that already holds the manifest
//! (`tournament.json`) of a 2-agent, 4-game round robin; the run plays no new game
//! (`game_limit = 0`) and must either refuse the file with a typed error or build a report.
//! To re-point this target at another loader, change only [`resume`].

use std::path::PathBuf;

use awale::tournament::{run as run_tournament, Entrant, TournamentConfig, TournamentReport};
use awale::Rules;

/// The tournament whose folder the input is resumed into.
fn config(dir: PathBuf) -> TournamentConfig {
    let mut cfg = TournamentConfig::new(Rules::abapa());
    cfg.run.games = 2;
    cfg.run.openings = 2;
    cfg.run.max_plies = 60;
    cfg.run.seed = 7;
    cfg.run.threads = 1;
    cfg.out = Some(dir);
    cfg
}

/// The entrants of that tournament.
fn entrants() -> Vec<Entrant> {
    let rules = Rules::abapa();
    ["random", "greedy"]
        .iter()
        .map(|s| Entrant::from_spec_text(s, &rules).expect("entrant"))
        .collect()
}

/// A scratch folder for this process, thread and target (tests replay the corpus and the
/// hand-made inputs on concurrent threads of one process).
fn scratch() -> PathBuf {
    std::env::temp_dir().join(format!(
        "awale-fuzz-resume-{}-{}",
        std::process::id(),
        thread_tag()
    ))
}

/// The current thread's id as a file-name part.
fn thread_tag() -> String {
    format!("{:?}", std::thread::current().id())
        .chars()
        .filter(char::is_ascii_digit)
        .collect()
}

/// Loads `jsonl` as the games file of the tournament and returns what the run makes of it.
pub fn resume(jsonl: &[u8]) -> awale::Result<TournamentReport> {
    let dir = scratch();
    let _ = std::fs::create_dir_all(&dir);
    let mut cfg = config(dir.clone());
    if !dir.join("tournament.json").exists() {
        // First call: write the manifest (no games played).
        let _ = std::fs::remove_file(dir.join("games.jsonl"));
        cfg.run.game_limit = Some(0);
        run_tournament(&cfg, &entrants()).expect("an empty tournament runs");
    }
    std::fs::write(dir.join("games.jsonl"), jsonl).expect("scratch folder is writable");
    cfg.run.game_limit = Some(0);
    run_tournament(&cfg, &entrants())
}

/// Checks one input (see the module docs); panics on a violated property.
pub fn run(data: &[u8]) {
    if let Ok(report) = resume(data) {
        assert!(report.games_played <= report.games_scheduled);
        assert_eq!(report.games.len(), report.games_played);
        let _ = report.table();
    }
}

/// A complete `games.jsonl` of the tournament (for the seed corpus; used by the tests only).
#[allow(dead_code)]
pub fn complete_games_file() -> String {
    let dir = std::env::temp_dir().join(format!(
        "awale-fuzz-seed-{}-{}",
        std::process::id(),
        thread_tag()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let cfg = config(dir.clone());
    run_tournament(&cfg, &entrants()).expect("the tournament runs");
    let text = std::fs::read_to_string(dir.join("games.jsonl")).expect("games.jsonl");
    let _ = std::fs::remove_dir_all(&dir);
    text
}
