//! A scorecard as data: the card's fields, its JSON file (read with its format and protocol
//! version checked, written beside its Markdown).

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::protocol::{err, PROTOCOL_VERSION};
use crate::error::Result;

/// The `format` field of a scorecard file.
pub const FORMAT: &str = "awale-scorecard";

/// The most bytes a scorecard file (or a protocol file) may hold: 1 MiB (a card is about 2 KB).
pub const CARD_LIMIT: u64 = 1 << 20;

/// The agent's result against one anchor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnchorScore {
    /// The anchor's spec.
    pub spec: String,
    /// Its fixed rating.
    pub rating: f64,
    /// Pairwise comparisons with it (games, with 2 players).
    pub games: u32,
    /// Won, drawn and lost (placings above, equal, below with 3+ players).
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// Losses.
    pub losses: u32,
    /// The agent's score against it (0 to 1).
    pub score: f64,
    /// The anchor's time per move in these games, ms.
    pub ms_per_move: Option<f64>,
}

/// The endgame yardstick's result.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EndgameCard {
    /// Positions of at most this many seeds.
    pub max_seeds: usize,
    /// Positions scored.
    pub positions: usize,
    /// Share of optimal moves (0 to 1).
    pub optimal_share: f64,
    /// Mean seeds lost per move against perfect play.
    pub mean_loss: f64,
}

/// A scorecard: the agent's rating on the protocol's scale, with how it was obtained.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scorecard {
    /// Always [`FORMAT`].
    pub format: String,
    /// The protocol version.
    pub protocol_version: u32,
    /// The protocol's identifier ([`Protocol::id`](super::Protocol::id)).
    pub protocol_id: String,
    /// The SHA-256 of the protocol's part ([`Protocol::sha256`](super::Protocol::sha256)).
    pub protocol_sha256: String,
    /// The rule set.
    pub rules: String,
    /// The rated agent's name.
    pub agent: String,
    /// Its spec, when it was given by one.
    pub spec: Option<String>,
    /// Its rating.
    pub rating: f64,
    /// The lower end of the 95% interval.
    pub lower: f64,
    /// The upper end.
    pub upper: f64,
    /// The standard error (Elo).
    pub stderr: f64,
    /// Games played (of the protocol's).
    pub games: usize,
    /// Games the protocol plays.
    pub games_scheduled: usize,
    /// Whether every game was played (an interrupted run writes a partial card: run it again).
    pub complete: bool,
    /// The agent's time per move, ms.
    pub ms_per_move: Option<f64>,
    /// Its result against each anchor.
    pub anchors: Vec<AnchorScore>,
    /// The endgame yardstick, where the tables were given.
    pub endgame: Option<EndgameCard>,
}

impl Scorecard {
    /// Reads a scorecard file, refusing one of another format or protocol version, anything
    /// but a regular file (a FIFO is refused at once, not waited on) and a file over
    /// [`CARD_LIMIT`] bytes.
    pub fn read(path: &Path) -> Result<Scorecard> {
        let text = crate::files::read_regular_string(path, CARD_LIMIT)
            .map_err(|e| err(format!("{}: {e}", path.display())))?;
        Scorecard::from_json(&text).map_err(|e| err(format!("{}: {e}", path.display())))
    }

    /// Parses a scorecard (JSON), refusing one of another format or protocol version.
    pub fn from_json(text: &str) -> Result<Scorecard> {
        let v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| err(format!("not a scorecard: {e}")))?;
        if v.get("format").and_then(|f| f.as_str()) != Some(FORMAT) {
            return Err(err("not a scorecard (no \"format\": \"awale-scorecard\")"));
        }
        let version = v.get("protocol_version").and_then(|x| x.as_u64());
        if version != Some(u64::from(PROTOCOL_VERSION)) {
            return Err(err(format!(
                "a scorecard of protocol version {}, and this awale rates with version {PROTOCOL_VERSION}: ratings of two versions are on different scales",
                version.map_or("(none)".into(), |x| x.to_string())
            )));
        }
        serde_json::from_value(v).map_err(|e| err(format!("not a scorecard: {e}")))
    }
}

/// Writes `scorecard.json` and `scorecard.md` into `dir` (created if missing; a link to a folder
/// is followed, as the user's `--out`), each by temporary file and rename: a link planted at
/// either path is replaced, its target untouched.
pub fn write(dir: &Path, card: &Scorecard) -> Result<()> {
    crate::files::user_dir(dir).map_err(|e| err(format!("{}: {e}", dir.display())))?;
    let json = serde_json::to_string_pretty(card).expect("a scorecard serialises");
    for (file, text) in [
        ("scorecard.json", json + "\n"),
        ("scorecard.md", card.to_markdown()),
    ] {
        let p = dir.join(file);
        crate::files::write_replacing(&p, text.as_bytes())
            .map_err(|e| err(format!("{}: {e}", p.display())))?;
    }
    Ok(())
}
