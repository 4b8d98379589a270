//! The scorecard: an agent's rating on a published, fixed scale, comparable between runs,
//! machines and papers (as CCRL's lists or fishtest's normalized Elo are for chess engines).
//!
//! A *protocol* fixes everything that decides the number: for each rule set, the anchor agents
//! and their ratings (computed once, by a large round-robin among the anchors, and stored with
//! the protocol; `random` is 0 on every scale), the seed, the random openings, the games against
//! each anchor and the prior. [`run`] plays the agent against every anchor (a gauntlet: paired
//! openings, each played from every seat; resumable), then fits the agent's rating with the
//! anchors' ratings pinned ([`crate::elo::rate_against`]) and a 95% interval. Beside it: the
//! agent's score against each anchor, its time per move, and, where the tables are given, its
//! endgame accuracy on the fixed yardstick ([`crate::endgame`]). With 3 or more players the
//! agent sits at tables of anchors and the comparisons are its placings (Plackett–Luce's
//! pairwise composite likelihood, as [`crate::placing`]), the interval clustered by game.
//!
//! The protocol of this version is the file `scorecard/v1.toml`, compiled in; its
//! identifier (`v1/abapa/<hash>`) names the version, the rule set and the SHA-256 of that rule
//! set's part, and every scorecard records it. A scorecard written under another protocol
//! version is refused with both versions named.
//!
//! ```
//! use awale::scorecard::{protocol, PROTOCOL_VERSION};
//! let p = protocol("abapa").unwrap();
//! assert_eq!(p.rules, "abapa");
//! assert!(p.id().starts_with(&format!("v{PROTOCOL_VERSION}/abapa/")));
//! assert_eq!(p.anchors[0].spec, "random");
//! assert_eq!(p.anchors[0].rating, 0.0);
//! assert!(protocol("chess").is_err());
//! ```

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::agents::{AgentSpec, Registry};
use crate::elo::{rate_against, AnchoredResult, Z95};
use crate::endgame::{endgame_accuracy, endgame_positions};
use crate::error::{AwaleError, Result};
use crate::rules::Rules;
use crate::tablebase::Tablebase;
use crate::tournament::{
    run_observed, Entrant, Format, GameResult, TournamentConfig, TournamentObserver,
};

/// The version of the protocol compiled in.
pub const PROTOCOL_VERSION: u32 = 1;

/// The protocol's text (`scorecard/v1.toml`).
pub const PROTOCOL_TOML: &str = include_str!("../scorecard/v1.toml");

/// The `format` field of a scorecard file.
pub const FORMAT: &str = "awale-scorecard";

/// The most bytes a scorecard file (or a protocol file) may hold: 1 MiB (a card is about 2 KB).
pub const CARD_LIMIT: u64 = 1 << 20;

fn err(m: impl Into<String>) -> AwaleError {
    AwaleError::Tournament(m.into())
}

/// A protocol file: its version and one part per rule set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProtocolFile {
    /// The protocol version.
    pub version: u32,
    /// One part per rule set.
    pub rules: Vec<Protocol>,
}

/// The protocol of one rule set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Protocol {
    /// The protocol version (filled from the file).
    #[serde(default)]
    pub version: u32,
    /// The rule set (a preset name or a rules spec).
    pub rules: String,
    /// The seed of the openings and of the agents' resets.
    pub seed: u64,
    /// Random plies of each opening.
    pub openings: u32,
    /// Games against each anchor (a multiple of the players: each opening from every seat).
    pub games: usize,
    /// Virtual draws against each anchor (the fit's prior, as in `awale tournament`).
    pub prior_draws: f64,
    /// The anchors and their fixed ratings, weakest first.
    pub anchors: Vec<Anchor>,
    /// The endgame yardstick (2-player rule sets with endgame tables).
    #[serde(default)]
    pub yardstick: Option<Yardstick>,
}

/// An anchor: an agent spec and its fixed rating on the protocol's scale.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Anchor {
    /// The agent spec.
    pub spec: String,
    /// Its rating.
    pub rating: f64,
    /// Its 95% half-width from the calibration (information; the scorecard holds it fixed).
    #[serde(default)]
    pub calibration_halfwidth: f64,
}

/// The endgame yardstick: positions of at most `max_seeds` seeds, drawn with `seed`
/// ([`endgame_positions`]), scored by the tables.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Yardstick {
    /// Most seeds on the board.
    pub max_seeds: usize,
    /// Positions.
    pub positions: usize,
    /// Their seed.
    pub seed: u64,
}

impl ProtocolFile {
    /// Parses a protocol file (TOML) and checks every part.
    pub fn parse(text: &str) -> Result<ProtocolFile> {
        let mut f: ProtocolFile =
            toml::from_str(text).map_err(|e| err(format!("scorecard protocol: {e}")))?;
        for p in &mut f.rules {
            p.version = f.version;
            p.check()?;
        }
        Ok(f)
    }
}

impl ProtocolFile {
    /// The part of `rules`; an unknown rule set is an error that lists the file's.
    pub fn part(self, rules: &str) -> Result<Protocol> {
        let names: Vec<String> = self.rules.iter().map(|p| p.rules.clone()).collect();
        let version = self.version;
        self.rules
            .into_iter()
            .find(|p| p.rules == rules.trim())
            .ok_or_else(|| {
                err(format!(
                    "the scorecard protocol v{version} has no part for '{rules}': it rates {}",
                    names.join(", ")
                ))
            })
    }
}

impl Protocol {
    /// Checks that the protocol can be run: its rules parse, games are a positive multiple of
    /// the seats, anchors are named once each.
    pub fn check(&self) -> Result<()> {
        let rules: Rules = self.rules.parse()?;
        let k = rules.players as usize;
        if self.games == 0 || !self.games.is_multiple_of(k) {
            return Err(err(format!(
                "scorecard protocol {}: games = {} is not a positive multiple of the {k} seats",
                self.rules, self.games
            )));
        }
        if self.anchors.len() < k - 1 {
            return Err(err(format!(
                "scorecard protocol {}: {} anchors cannot fill a table of {k}",
                self.rules,
                self.anchors.len()
            )));
        }
        if !(self.prior_draws >= 0.0 && self.prior_draws.is_finite()) {
            return Err(err("scorecard protocol: prior_draws must be >= 0"));
        }
        let mut names = std::collections::HashSet::new();
        for a in &self.anchors {
            let spec: AgentSpec = a.spec.parse()?;
            if !names.insert(spec.display_name()) || !a.rating.is_finite() {
                return Err(err(format!(
                    "scorecard protocol {}: anchor {} is named twice or has no finite rating",
                    self.rules, a.spec
                )));
            }
        }
        Ok(())
    }

    /// The SHA-256 of this part of the protocol (its canonical JSON), hex.
    pub fn sha256(&self) -> String {
        let text = serde_json::to_string(self).expect("a protocol serialises");
        crate::digest::sha256_hex(text.as_bytes())
    }

    /// The identifier printed and recorded with every scorecard: `v1/abapa/1a2b3c4d5e6f`.
    pub fn id(&self) -> String {
        format!("v{}/{}/{}", self.version, self.rules, &self.sha256()[..12])
    }
}

/// The protocol of `rules` (a preset name, e.g. `abapa`) in the compiled-in version; an unknown
/// rule set is an error that lists the known ones.
pub fn protocol(rules: &str) -> Result<Protocol> {
    ProtocolFile::parse(PROTOCOL_TOML)?.part(rules)
}

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
    /// The protocol's identifier ([`Protocol::id`]).
    pub protocol_id: String,
    /// The SHA-256 of the protocol's part ([`Protocol::sha256`]).
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

    /// The card as Markdown (what `scorecard.md` holds).
    pub fn to_markdown(&self) -> String {
        let mut s = format!(
            "# Scorecard: {}\n\n**{:.0} Elo** [{:.0}, {:.0}] (95%) on the {} scale of protocol `{}`{}\n\n",
            self.agent,
            self.rating,
            self.lower,
            self.upper,
            self.rules,
            self.protocol_id,
            if self.complete {
                String::new()
            } else {
                format!(
                    " — **partial**: {} of {} games (run it again to finish)",
                    self.games, self.games_scheduled
                )
            }
        );
        if let Some(ms) = self.ms_per_move {
            s += &format!("Time per move: {ms:.2} ms. ");
        }
        if let Some(e) = &self.endgame {
            s += &format!(
                "Endgame yardstick (≤ {} seeds, {} positions): {:.1}% optimal moves, {:.3} seeds lost per move.",
                e.max_seeds,
                e.positions,
                100.0 * e.optimal_share,
                e.mean_loss
            );
        }
        s += "\n\n| anchor | rating | games | won | drawn | lost | score | anchor ms/move |\n|---|---|---|---|---|---|---|---|\n";
        for a in &self.anchors {
            s += &format!(
                "| `{}` | {:.0} | {} | {} | {} | {} | {:.1}% | {} |\n",
                a.spec,
                a.rating,
                a.games,
                a.wins,
                a.draws,
                a.losses,
                100.0 * a.score,
                a.ms_per_move.map_or("–".into(), |m| format!("{m:.2}"))
            );
        }
        s
    }

    /// One line: rating, interval, protocol.
    pub fn summary(&self) -> String {
        format!(
            "{}: {:.0} [{:.0}, {:.0}] Elo on scorecard {}{}",
            self.agent,
            self.rating,
            self.lower,
            self.upper,
            self.protocol_id,
            if self.complete { "" } else { " (partial)" }
        )
    }
}

/// How to run a scorecard.
#[derive(Debug, Clone, Default)]
pub struct ScorecardOptions {
    /// A folder for `scorecard.json`, `scorecard.md` and the games (`games/`, for resuming).
    pub out: Option<PathBuf>,
    /// Game threads (0: one per core).
    pub threads: usize,
    /// Endgame tables for the yardstick (2-player rule sets); none skips it.
    pub tables: Option<PathBuf>,
}

/// Rates `agent` with `protocol`: the gauntlet against the anchors (built by `registry`), the
/// rating with the anchors pinned, the time per move, and the yardstick where the tables are
/// given. With an output folder the games are kept there and a second call resumes; a
/// scorecard of another protocol version or part found there is refused.
pub fn run(
    protocol: &Protocol,
    agent: Entrant,
    registry: &Registry,
    opts: &ScorecardOptions,
    observer: &dyn TournamentObserver,
) -> Result<Scorecard> {
    protocol.check()?;
    let rules: Rules = protocol.rules.parse()?;
    // A card already in the folder: the same protocol's (else refused); its times per move stand
    // for the games it timed, which a resumed run loads without timing them again.
    let mut previous: Option<Scorecard> = None;
    if let Some(dir) = &opts.out {
        // The card's folder (the user's: a link to a folder is followed), and the games under
        // it, never through a link.
        crate::files::user_dir(dir).map_err(|e| err(format!("{}: {e}", dir.display())))?;
        let games = dir.join("games");
        crate::files::real_dir(&games).map_err(|e| err(format!("{}: {e}", games.display())))?;
        let old = dir.join("scorecard.json");
        if std::fs::symlink_metadata(&old).is_ok() {
            let card = Scorecard::read(&old)?;
            if card.protocol_sha256 != protocol.sha256() {
                return Err(err(format!(
                    "{} was made with protocol {}, not {}: give another folder",
                    old.display(),
                    card.protocol_id,
                    protocol.id()
                )));
            }
            previous = Some(card);
        }
    }
    let mut entrants = Vec::with_capacity(protocol.anchors.len() + 1);
    for a in &protocol.anchors {
        let spec: AgentSpec = a.spec.parse()?;
        let e = Entrant::from_spec(registry, &spec, &rules).map_err(|e| {
            err(format!(
                "the anchor {} cannot be built in this build: {e}",
                a.spec
            ))
        })?;
        entrants.push(e);
    }
    let mut name = agent.name().to_string();
    if entrants.iter().any(|e| e.name() == name) {
        name = format!("{name} (rated)");
    }
    let agent = agent.renamed(name.clone());
    let spec = agent.spec().map(str::to_string);
    entrants.push(agent.clone());

    let mut cfg = TournamentConfig::new(rules);
    cfg.format = Format::Gauntlet(name.clone());
    cfg.run.games = protocol.games;
    cfg.run.openings = protocol.openings;
    cfg.run.seed = protocol.seed;
    cfg.run.threads = opts.threads;
    cfg.anchor = Some(entrants[0].name().to_string());
    cfg.prior_draws = protocol.prior_draws;
    cfg.out = opts.out.as_ref().map(|d| d.join("games"));
    let report = run_observed(&cfg, &entrants, observer)?;

    let mut results = Vec::new();
    let mut scores: Vec<AnchorScore> = protocol
        .anchors
        .iter()
        .map(|a| AnchorScore {
            spec: a.spec.clone(),
            rating: a.rating,
            games: 0,
            wins: 0,
            draws: 0,
            losses: 0,
            score: 0.0,
            ms_per_move: None,
        })
        .collect();
    for g in &report.games {
        add_comparisons(g, &name, &entrants, protocol, &mut scores, &mut results);
    }
    let timed = |name: &str| {
        report
            .clock
            .iter()
            .find(|c| c.name == name)
            .and_then(|c| c.ms_per_move())
    };
    for (i, (a, e)) in scores.iter_mut().zip(&entrants).enumerate() {
        a.score = (f64::from(a.wins) + 0.5 * f64::from(a.draws)) / f64::from(a.games.max(1));
        a.ms_per_move = timed(e.name()).or_else(|| {
            previous
                .as_ref()
                .and_then(|p| p.anchors.get(i))
                .and_then(|x| x.ms_per_move)
        });
    }
    let (rating, stderr) = if results.is_empty() {
        (f64::NAN, f64::NAN)
    } else {
        rate_against(&results, protocol.prior_draws)?
    };
    let endgame = match (&opts.tables, &protocol.yardstick) {
        (Some(dir), Some(y)) if rules.players == 2 => {
            let table = Tablebase::open(dir, &rules, Some(y.max_seeds))
                .map_err(|e| err(format!("the yardstick's tables: {e}")))?;
            let positions = endgame_positions(&rules, y.max_seeds, y.positions, y.seed)?;
            let mut a = agent.make()?;
            let score = endgame_accuracy(&table, &rules, &positions, a.as_mut())?;
            Some(EndgameCard {
                max_seeds: y.max_seeds,
                positions: score.positions,
                optimal_share: score.optimal_share(),
                mean_loss: score.mean_loss(),
            })
        }
        _ => None,
    };
    let card = Scorecard {
        format: FORMAT.into(),
        protocol_version: protocol.version,
        protocol_id: protocol.id(),
        protocol_sha256: protocol.sha256(),
        rules: protocol.rules.clone(),
        agent: name.clone(),
        spec,
        rating,
        lower: rating - Z95 * stderr,
        upper: rating + Z95 * stderr,
        stderr,
        games: report.games_played,
        games_scheduled: report.games_scheduled,
        complete: report.complete && !report.stopped,
        ms_per_move: timed(&name).or_else(|| previous.as_ref().and_then(|p| p.ms_per_move)),
        anchors: scores,
        endgame,
    };
    if let Some(dir) = &opts.out {
        write(dir, &card)?;
    }
    Ok(card)
}

/// The comparisons of game `g` between the rated agent and each anchor at its table.
fn add_comparisons(
    g: &GameResult,
    name: &str,
    entrants: &[Entrant],
    protocol: &Protocol,
    scores: &mut [AnchorScore],
    out: &mut Vec<AnchoredResult>,
) {
    let Some(me) = g.seats.iter().position(|s| s == name) else {
        return;
    };
    for (seat, other) in g.seats.iter().enumerate() {
        if seat == me {
            continue;
        }
        let Some(a) = entrants.iter().position(|e| e.name() == other) else {
            continue;
        };
        if a >= protocol.anchors.len() {
            continue;
        }
        let points = g.result_between(me, seat);
        match points {
            x if x > 0.5 => scores[a].wins += 1,
            x if x < 0.5 => scores[a].losses += 1,
            _ => scores[a].draws += 1,
        }
        scores[a].games += 1;
        out.push(AnchoredResult {
            anchor_rating: protocol.anchors[a].rating,
            points,
            cluster: g.index,
        });
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

/// The anchors' ratings, computed: with 2 players each anchor against the next three (`games`
/// per pair; the anchors are listed weakest first), with more a round-robin of tables, the protocol's
/// openings and a seed derived from its own, rated with the first anchor at 0. This is how the
/// protocol's ratings were made (`awale scorecard --calibrate`); the returned protocol carries
/// the new ratings and their 95% half-widths.
pub fn calibrate(
    protocol: &Protocol,
    registry: &Registry,
    games: usize,
    threads: usize,
    out: Option<PathBuf>,
    observer: &dyn TournamentObserver,
) -> Result<Protocol> {
    protocol.check()?;
    let rules: Rules = protocol.rules.parse()?;
    let entrants = protocol
        .anchors
        .iter()
        .map(|a| Entrant::from_spec(registry, &a.spec.parse()?, &rules))
        .collect::<Result<Vec<_>>>()?;
    let mut cfg = TournamentConfig::new(rules);
    if rules.players == 2 {
        // Each anchor with the next three above it: the pairs that inform (random against the
        // strongest anchor teaches nothing), and enough of them that an anchor's rating rests
        // on most of the anchors its card would meet.
        let names: Vec<String> = entrants.iter().map(|e| e.name().to_string()).collect();
        let pairs = (0..names.len())
            .flat_map(|i| (i + 1..names.len().min(i + 4)).map(move |j| (i, j)))
            .map(|(i, j)| (names[i].clone(), names[j].clone()))
            .collect();
        cfg.format = Format::Pairings(pairs);
    }
    cfg.run.games = games;
    cfg.run.openings = protocol.openings;
    cfg.run.seed = protocol.seed ^ 0xca11_b4a7e;
    cfg.run.threads = threads;
    cfg.anchor = Some(entrants[0].name().to_string());
    cfg.prior_draws = protocol.prior_draws;
    cfg.out = out;
    let report = run_observed(&cfg, &entrants, observer)?;
    let fit = report.elo.ok_or_else(|| {
        err(format!(
            "the calibration could not rate the anchors: {}",
            report.elo_error.unwrap_or_default()
        ))
    })?;
    let mut p = protocol.clone();
    for (a, e) in p.anchors.iter_mut().zip(&entrants) {
        let i = fit
            .names
            .iter()
            .position(|n| n == e.name())
            .expect("every anchor is rated");
        a.rating = (fit.ratings[i] * 10.0).round() / 10.0;
        a.calibration_halfwidth = ((fit.upper[i] - fit.ratings[i]) * 10.0).round() / 10.0;
    }
    Ok(p)
}
