//! The scorecard's protocol: the file format (`scorecard/v1.toml`, compiled in), the part of
//! each rule set (anchors and their ratings, seed, openings, games, prior, yardstick), its checks
//! and its identifier.

use serde::{Deserialize, Serialize};

use crate::agents::AgentSpec;
use crate::error::{AwaleError, Result};
use crate::rules::Rules;

/// The version of the protocol compiled in.
pub const PROTOCOL_VERSION: u32 = 1;

/// The protocol's text (`scorecard/v1.toml`).
pub const PROTOCOL_TOML: &str = include_str!("../../../scorecard/v1.toml");

/// A scorecard error (the tournament kind, with its message).
pub(super) fn err(m: impl Into<String>) -> AwaleError {
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

/// ([`crate::ratings::endgame::endgame_positions`]), scored by the tables.
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
