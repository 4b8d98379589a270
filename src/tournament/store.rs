//! The games file and resume: `tournament.json` holds the settings that decide the games,
//! `games.jsonl` every finished game, one JSON line each, appended as soon as it ends; a later run
//! with the same settings loads it, replays every game it holds ([`super::verify`]) and plays
//! only the missing games.
//!
//! The folder is hostile ground: its files are read only when they are regular files (a FIFO
//! or a device is refused at once, never waited on) and under a size limit
//! ([`MANIFEST_LIMIT`], [`GAMES_LIMIT`]); the result files are written by temporary file and
//! rename ([`write_file`]), `games.jsonl` is appended only when it is a regular file, not a
//! link, and the folder itself is refused when it is a symbolic link.

use std::collections::HashSet;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::verify::Verifier;
use super::{Entrant, Format, GameResult, ScheduledGame, TournamentConfig};
use crate::error::{AwaleError, Result};
use crate::files;
use crate::rules::Rules;

/// The most bytes `tournament.json` may hold (settings and agent specs: a few KB in practice).
pub(super) const MANIFEST_LIMIT: u64 = 16 << 20;

/// The most bytes `games.jsonl` may hold: 1 GiB, some 700,000 games of abapa (a line is about
/// 1.5 KB); the file is read whole into memory on resume.
pub(super) const GAMES_LIMIT: u64 = 1 << 30;

/// Appends finished games to `games.jsonl` (one line each, flushed at once).
pub(super) struct GameWriter {
    out: Mutex<(BufWriter<File>, PathBuf)>,
}

impl GameWriter {
    /// Appends one game.
    pub(super) fn append(&self, game: &GameResult) -> Result<()> {
        let mut guard = self
            .out
            .lock()
            .map_err(|_| AwaleError::Tournament("a worker panicked".into()))?;
        let (w, path) = &mut *guard;
        let line = serde_json::to_string(game).map_err(|e| io_err(path, e))?;
        writeln!(w, "{line}")
            .and_then(|_| w.flush())
            .map_err(|e| io_err(path, e))
    }
}

/// Opens the output folder of `cfg` (if any) for the tournament `sched` between `entrants`
/// named `names`: checks or writes `tournament.json`, loads the games already played and opens
/// `games.jsonl` for appending. Without a folder: no games and no writer.
pub(super) fn open(
    cfg: &TournamentConfig,
    rules: &Rules,
    entrants: &[Entrant],
    names: &[String],
    sched: &[ScheduledGame],
) -> Result<(Vec<GameResult>, Option<GameWriter>)> {
    let Some(dir) = &cfg.out else {
        return Ok((Vec::new(), None));
    };
    files::user_dir(dir).map_err(|e| io_err(dir, e))?;
    let manifest = Manifest {
        rules: rules.to_string(),
        format: cfg.format.clone(),
        agents: names.to_vec(),
        specs: entrants
            .iter()
            .map(|e| e.spec().map(str::to_string))
            .collect(),
        games: cfg.run.games,
        openings: cfg.run.openings,
        seed: cfg.run.seed,
    };
    let mpath = dir.join("tournament.json");
    let jsonl = dir.join("games.jsonl");
    match files::read_regular_string(&mpath, MANIFEST_LIMIT) {
        Ok(text) => {
            let old: Manifest = serde_json::from_str(&text)
                .map_err(|e| AwaleError::Tournament(format!("{}: {e}", mpath.display())))?;
            if old != manifest {
                return Err(AwaleError::Tournament(format!(
                    "{} holds a different tournament ({}); use another output folder",
                    dir.display(),
                    manifest_difference(&old, &manifest)
                )));
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if jsonl.exists() {
                return Err(AwaleError::Tournament(format!(
                    "{} has games.jsonl but no tournament.json; use another output folder",
                    dir.display()
                )));
            }
            let text = serde_json::to_string_pretty(&manifest).map_err(|e| io_err(&mpath, e))?;
            write_file(&mpath, &(text + "\n"))?;
        }
        Err(e) => return Err(io_err(&mpath, e)),
    }
    let loaded = load_games(&jsonl)?;
    let mut verifier = Verifier::new(cfg, rules, entrants, names);
    let mut have = HashSet::new();
    let mut done = Vec::with_capacity(loaded.len());
    for (line, g) in loaded {
        let want = sched.get(g.index).ok_or_else(|| {
            AwaleError::Tournament(format!(
                "{}: game {} is not in the schedule",
                jsonl.display(),
                g.index
            ))
        })?;
        let seats: Vec<&String> = want.seats.iter().map(|&e| &names[e]).collect();
        if g.seats.iter().collect::<Vec<_>>() != seats || !have.insert(g.index) {
            return Err(AwaleError::Tournament(format!(
                "{}: game {} does not match the schedule (or appears twice)",
                jsonl.display(),
                g.index
            )));
        }
        verifier.check(&g, want).map_err(|reason| {
            AwaleError::Tournament(format!(
                "{} line {line}: game {} is refused: {reason} (delete the line to play the game \
                 again)",
                jsonl.display(),
                g.index
            ))
        })?;
        done.push(g);
    }
    let f = files::open_append(&jsonl).map_err(|e| io_err(&jsonl, e))?;
    let writer = GameWriter {
        out: Mutex::new((BufWriter::new(f), jsonl)),
    };
    Ok((done, Some(writer)))
}

/// An I/O error on `path`.
pub(super) fn io_err(path: &Path, e: impl std::fmt::Display) -> AwaleError {
    AwaleError::Io {
        path: path.display().to_string(),
        reason: e.to_string(),
    }
}

/// Writes `text` to `path` by temporary file and rename ([`files::write_replacing`]): a reader
/// sees the old file or the new one, and a link planted at `path` is replaced, not followed.
pub(super) fn write_file(path: &Path, text: &str) -> Result<()> {
    files::write_replacing(path, text.as_bytes()).map_err(|e| io_err(path, e))
}

/// The settings that decide the games; a resumed run must have the same.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Manifest {
    rules: String,
    format: Format,
    agents: Vec<String>,
    specs: Vec<Option<String>>,
    games: usize,
    openings: u32,
    seed: u64,
}

/// Loads the finished games of `games.jsonl` with their line numbers (from 1), dropping a
/// partly written last line. Anything but a regular file, or one over [`GAMES_LIMIT`], is
/// refused.
pub(super) fn load_games(path: &Path) -> Result<Vec<(usize, GameResult)>> {
    let text = match files::read_regular_string(path, GAMES_LIMIT) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_err(path, e)),
    };
    let mut games = Vec::new();
    let mut good_len = 0;
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    for (i, line) in lines.iter().enumerate() {
        let last = i + 1 == lines.len();
        let complete = line.ends_with('\n');
        if line.trim().is_empty() {
            good_len += if complete { line.len() } else { 0 };
            continue;
        }
        match (serde_json::from_str::<GameResult>(line.trim()), complete) {
            (Ok(g), true) => {
                games.push((i + 1, g));
                good_len += line.len();
            }
            _ if last => {
                // A line cut off by an interruption: drop it so that appending starts clean.
                let f = files::open_append(path).map_err(|e| io_err(path, e))?;
                f.set_len(good_len as u64).map_err(|e| io_err(path, e))?;
            }
            (r, _) => {
                return Err(AwaleError::Tournament(format!(
                    "{} line {} is not a game result: {}",
                    path.display(),
                    i + 1,
                    r.err()
                        .map_or("incomplete line".to_string(), |e| e.to_string())
                )))
            }
        }
    }
    Ok(games)
}

fn manifest_difference(old: &Manifest, new: &Manifest) -> String {
    let mut d = Vec::new();
    if old.rules != new.rules {
        d.push(format!("rules {} vs {}", old.rules, new.rules));
    }
    if old.format != new.format {
        d.push(format!("{} vs {}", old.format, new.format));
    }
    if old.agents != new.agents || old.specs != new.specs {
        d.push(format!(
            "agents {} vs {}",
            old.agents.join(","),
            new.agents.join(",")
        ));
    }
    if old.games != new.games {
        d.push(format!("games {} vs {}", old.games, new.games));
    }
    if old.openings != new.openings {
        d.push(format!("openings {} vs {}", old.openings, new.openings));
    }
    if old.seed != new.seed {
        d.push(format!("seed {} vs {}", old.seed, new.seed));
    }
    d.join("; ")
}
