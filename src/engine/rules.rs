//! Rules as data: one [`Rules`] value describes a complete rule set, built from a named preset and
//! optional overrides. The engine ([`crate::State`]) reads nothing else.
//!
//! Every preset is traced to its source document, rule point by rule point, in `docs/rules.md`.
//!
//! ```
//! use awale::{Rules, GrandSlam};
//! let rules: Rules = "abapa:grand_slam=capture_all,max_plies=300".parse().unwrap();
//! assert_eq!(rules.grand_slam, GrandSlam::CaptureAll);
//! assert_eq!(rules.max_plies, 300);
//! assert_eq!(rules.to_string(), "abapa:grand_slam=capture_all,max_plies=300");
//! assert_eq!(rules.to_string().parse::<Rules>().unwrap(), rules);
//! ```

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::{AwaleError, Result};

/// Most pits a board may have (players × houses).
pub const MAX_PITS: usize = 16;
/// Most players a game may have.
pub const MAX_PLAYERS: usize = 6;

pub use crate::presets::{find_preset, presets, Preset, PresetDef, PRESET_SPECS};

/// How seeds are sown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Sowing {
    /// One sowing per move, then captures backwards through contiguous opponent holes (2 players).
    Single,
    /// Relay sowing: the landing hole is picked up and sown on unless it was empty or is captured.
    Relay,
}

/// What happens to a move that would capture every seed of the opponent ("grand slam").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GrandSlam {
    /// The move is played but captures nothing (`000`, `003`).
    NoCapture,
    /// The move is illegal unless every legal move is a grand slam; then it captures nothing (`001`).
    Forbidden,
    /// The move captures everything; the opponent is then starved.
    CaptureAll,
}

/// Whether a player must feed an opponent who has no seeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Feeding {
    /// Only moves that give the empty opponent seeds are legal, when there is one.
    Required,
    /// Any move is legal; leaving the opponent empty ends the game by starvation (`003`).
    Optional,
}

/// Who gets the seeds left on the board when a player is starved (no seeds and not fed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Starvation {
    /// The player holding the seeds (the feeder) takes them all: `000`'s "the mover captures his
    /// own row" and `001`'s famine ("the opponent wins all remaining seeds").
    FeederTakesAll,
    /// The starved player takes them all (`003` without its exception).
    StarvedTakesAll,
    /// `003`: the starved player takes them all, unless the feeder holds this many or fewer; then
    /// they are shared, the odd seed going to the feeder.
    StarvedUnlessFew(u8),
}

/// What happens when a position repeats (same board, same player to move).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CycleRule {
    /// The game ends and each player takes the seeds in his own holes (`000`).
    EachTakesOwn,
    /// The game ends and the remaining seeds are split evenly; an odd seed goes to the player
    /// with more seeds on his side, or to the player to move on a tie (`003`).
    Split,
    /// Repetitions are ignored: only `max_plies` stops the game.
    Ignore,
}

/// Who moves first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FirstPlayer {
    /// This player (0-based) always starts.
    Fixed(u8),
    /// The first player is drawn at random from the game's seed (`002`).
    Random,
}

impl FirstPlayer {
    /// The player who moves first in a game of `players`: the fixed one, or `draw(players)`
    /// (a number below `players`, from the caller's own random stream) for a random first
    /// player. The one rule every start position is made by; each caller keeps its stream.
    ///
    /// ```
    /// use awale::FirstPlayer;
    /// assert_eq!(FirstPlayer::Fixed(1).pick(3, |_| unreachable!()), 1);
    /// assert_eq!(FirstPlayer::Random.pick(3, |n| n - 1), 2);
    /// ```
    pub fn pick(self, players: usize, draw: impl FnOnce(usize) -> usize) -> usize {
        match self {
            FirstPlayer::Fixed(p) => p as usize,
            FirstPlayer::Random => draw(players),
        }
    }
}

/// A complete rule set. Build one with a preset constructor or by parsing a spec such as
/// `"oware:players=4"` or `"wari:max_plies=500"`.
///
/// ```
/// use awale::Rules;
/// let rules = Rules::oware(3).unwrap();
/// assert_eq!(rules.players, 3);
/// assert_eq!(rules.houses, 4);
/// assert_eq!(rules.to_string(), "oware3");
/// assert!("oware:players=5".parse::<Rules>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Rules {
    /// The preset this rule set starts from (for display and records).
    pub preset: Preset,
    /// Number of players (2 to 6).
    pub players: u8,
    /// Houses (holes) per player.
    pub houses: u8,
    /// Seeds per house at the start.
    pub seeds: u8,
    /// Single sowing with backward captures, or relay sowing.
    pub sowing: Sowing,
    /// Skip the hole a sowing started from when a lap passes it.
    pub skip_origin: bool,
    /// Smallest count (after the last seed) that captures.
    pub capture_min: u8,
    /// Largest count (after the last seed) that captures.
    pub capture_max: u8,
    /// Grand-slam handling (single sowing).
    pub grand_slam: GrandSlam,
    /// The feeding obligation (single sowing).
    pub feeding: Feeding,
    /// Who takes the board when a player is starved.
    pub starvation: Starvation,
    /// Repetition handling.
    pub cycle: CycleRule,
    /// A repeated position ends the game only when every player has at least one seed on his
    /// side (`000`: « et que les deux joueurs ont au moins 1 graine à leur côté »); otherwise
    /// play goes on. When false, every repeated position ends the game (OpenSpiel's rule).
    #[serde(default)]
    pub cycle_needs_seeds: bool,
    /// End "by indetermination" when at most this many seeds are on the board and no capture can
    /// ever happen again (exact search); 0 turns it off (`001`).
    pub indetermination: u8,
    /// A player who reaches this score wins at once; 0 means no threshold.
    pub win_threshold: u8,
    /// At every end, remaining seeds go to the owner of their row (OpenSpiel's behaviour).
    pub sweep_on_end: bool,
    /// Stop (truncate) the game after this many plies; 0 means no limit.
    pub max_plies: u32,
    /// Most relay sowings in one move; reaching it ends the move where it stands.
    pub relay_cap: u16,
    /// A hole brought to the capture count by a seed that is not the last is taken by its owner
    /// at once, even out of turn (`002`).
    pub out_of_turn_capture: bool,
    /// Relay sowing: the game ends when, after a capture, this many seeds or fewer remain; they
    /// go to the last capturer.
    pub end_seeds: u8,
    /// Who moves first.
    pub first_player: FirstPlayer,
}

impl Default for Rules {
    fn default() -> Self {
        Rules::abapa()
    }
}

impl Rules {
    /// International (World Oware Federation) rules, from `000_*`.
    pub fn abapa() -> Rules {
        Rules {
            preset: Preset::ABAPA,
            players: 2,
            houses: 6,
            seeds: 4,
            sowing: Sowing::Single,
            skip_origin: true,
            capture_min: 2,
            capture_max: 3,
            grand_slam: GrandSlam::NoCapture,
            feeding: Feeding::Required,
            starvation: Starvation::FeederTakesAll,
            cycle: CycleRule::EachTakesOwn,
            cycle_needs_seeds: true,
            indetermination: 0,
            win_threshold: 25,
            sweep_on_end: false,
            max_plies: 0,
            relay_cap: 1,
            out_of_turn_capture: false,
            end_seeds: 0,
            first_player: FirstPlayer::Fixed(0),
        }
    }

    /// The common Awalé rule set of `001_*`: grand slam forbidden unless the only move, famine,
    /// and the end by indetermination.
    pub fn awale() -> Rules {
        Rules {
            preset: Preset::AWALE,
            grand_slam: GrandSlam::Forbidden,
            indetermination: 12,
            ..Rules::abapa()
        }
    }

    /// Wari, from `003_*`.
    pub fn wari() -> Rules {
        Rules {
            preset: Preset::WARI,
            feeding: Feeding::Optional,
            starvation: Starvation::StarvedUnlessFew(3),
            cycle: CycleRule::Split,
            cycle_needs_seeds: false,
            ..Rules::abapa()
        }
    }

    /// Abapa as OpenSpiel's `oware` plays it: at every end the seeds left go to their row's owner.
    pub fn openspiel() -> Rules {
        Rules {
            preset: Preset::OPENSPIEL,
            sweep_on_end: true,
            cycle_needs_seeds: false,
            ..Rules::abapa()
        }
    }

    /// Multi-player Owaré of `002_*` for 2, 3, 4 or 6 players (12 holes split among them).
    pub fn oware(players: u8) -> Result<Rules> {
        match crate::presets::family_member("oware", players) {
            Some(def) if Preset::oware(players).is_some() => Ok(def.rules()),
            _ => Err(AwaleError::InvalidRules(format!(
                "owaré is played by 2, 3, 4 or 6 players, not {players}"
            ))),
        }
    }

    /// Number of pits on the board.
    #[inline]
    pub fn pits(&self) -> usize {
        self.players as usize * self.houses as usize
    }

    /// Number of seeds in play at the start.
    #[inline]
    pub fn total_seeds(&self) -> u32 {
        self.pits() as u32 * self.seeds as u32
    }

    /// The player who owns pit `pit`.
    #[inline]
    pub fn owner(&self, pit: usize) -> usize {
        pit / self.houses as usize
    }

    /// Checks that the rules can be played; every constructor and parser calls it.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(AwaleError::InvalidRules(m));
        if !(2..=MAX_PLAYERS as u8).contains(&self.players) {
            return bad(format!(
                "players must be 2 to {MAX_PLAYERS}, got {}",
                self.players
            ));
        }
        if self.houses == 0 {
            return bad("houses per player must be at least 1".into());
        }
        if self.pits() > MAX_PITS {
            return bad(format!(
                "{} players x {} houses = {} pits; at most {MAX_PITS} are supported",
                self.players,
                self.houses,
                self.pits()
            ));
        }
        if self.seeds == 0 {
            return bad("seeds per house must be at least 1".into());
        }
        if self.total_seeds() > 255 {
            return bad(format!(
                "{} pits x {} seeds = {} seeds; at most 255 are supported",
                self.pits(),
                self.seeds,
                self.total_seeds()
            ));
        }
        if self.capture_min == 0 || self.capture_min > self.capture_max {
            return bad(format!(
                "capture range {}-{} is empty or starts at 0",
                self.capture_min, self.capture_max
            ));
        }
        if self.sowing == Sowing::Single && self.players != 2 {
            return bad(
                "single sowing with backward captures is a 2-player game; use sowing=relay".into(),
            );
        }
        if self.sowing == Sowing::Relay && self.feeding == Feeding::Required {
            return bad("feeding=required applies to single sowing only".into());
        }
        if self.sowing == Sowing::Relay && self.relay_cap == 0 {
            return bad("relay_cap must be at least 1".into());
        }
        if self.win_threshold as u32 > self.total_seeds() {
            return bad(format!(
                "win threshold {} is above the {} seeds in play",
                self.win_threshold,
                self.total_seeds()
            ));
        }
        if let FirstPlayer::Fixed(p) = self.first_player {
            if p >= self.players {
                return bad(format!(
                    "first player {p} does not exist in a {}-player game",
                    self.players
                ));
            }
        }
        if self.cycle == CycleRule::Ignore && self.max_plies == 0 {
            return bad(
                "cycle=ignore needs max_plies > 0, or a cycling game would never end".into(),
            );
        }
        if self.cycle_needs_seeds
            && (self.sowing != Sowing::Single || self.houses < 2)
            && self.cycle != CycleRule::Ignore
            && self.max_plies == 0
        {
            return bad("cycle_if_seeded=true needs single sowing with at least 2 houses, or max_plies > 0, for every game to end".into());
        }
        if self.indetermination > 12 {
            return bad("indetermination search is limited to 12 seeds on the board".into());
        }
        Ok(())
    }

    /// Sets one option from its spec key and value, e.g. `("grand_slam", "forbidden")`.
    pub fn set_option(&mut self, key: &str, value: &str) -> Result<()> {
        let bad = |reason: String| AwaleError::BadOption {
            option: format!("{key}={value}"),
            reason,
        };
        let num = |max: u64| -> Result<u64> {
            let n: u64 = value
                .parse()
                .map_err(|_| bad(format!("'{value}' is not a whole number")))?;
            if n > max {
                return Err(bad(format!("{n} is above the largest allowed value {max}")));
            }
            Ok(n)
        };
        let flag = || -> Result<bool> {
            match value {
                "true" | "yes" | "on" | "1" => Ok(true),
                "false" | "no" | "off" | "0" => Ok(false),
                _ => Err(bad("expected true or false".into())),
            }
        };
        match key {
            "players" => self.players = num(MAX_PLAYERS as u64)? as u8,
            "houses" => self.houses = num(MAX_PITS as u64)? as u8,
            "seeds" => self.seeds = num(255)? as u8,
            "sowing" => {
                self.sowing = match value {
                    "single" => Sowing::Single,
                    "relay" => Sowing::Relay,
                    _ => return Err(bad("expected single or relay".into())),
                }
            }
            "skip_origin" => self.skip_origin = flag()?,
            "capture" => {
                let (lo, hi) = value.split_once('-').unwrap_or((value, value));
                let lo: u8 = lo
                    .parse()
                    .map_err(|_| bad("expected MIN-MAX, e.g. 2-3".into()))?;
                let hi: u8 = hi
                    .parse()
                    .map_err(|_| bad("expected MIN-MAX, e.g. 2-3".into()))?;
                self.capture_min = lo;
                self.capture_max = hi;
            }
            "grand_slam" => {
                self.grand_slam = match value {
                    "no_capture" => GrandSlam::NoCapture,
                    "forbidden" => GrandSlam::Forbidden,
                    "capture_all" => GrandSlam::CaptureAll,
                    _ => return Err(bad("expected no_capture, forbidden or capture_all".into())),
                }
            }
            "feeding" => {
                self.feeding = match value {
                    "required" => Feeding::Required,
                    "optional" => Feeding::Optional,
                    _ => return Err(bad("expected required or optional".into())),
                }
            }
            "starvation" => {
                self.starvation = match value {
                    "feeder" => Starvation::FeederTakesAll,
                    "starved" => Starvation::StarvedTakesAll,
                    v => match v.strip_prefix("starved_unless_") {
                        Some(n) => Starvation::StarvedUnlessFew(n.parse().map_err(|_| {
                            bad("expected starved_unless_N, e.g. starved_unless_3".into())
                        })?),
                        None => {
                            return Err(bad("expected feeder, starved or starved_unless_N".into()))
                        }
                    },
                }
            }
            "cycle" => {
                self.cycle = match value {
                    "each_takes_own" => CycleRule::EachTakesOwn,
                    "split" => CycleRule::Split,
                    "ignore" => CycleRule::Ignore,
                    _ => return Err(bad("expected each_takes_own, split or ignore".into())),
                }
            }
            "cycle_if_seeded" => self.cycle_needs_seeds = flag()?,
            "indetermination" => self.indetermination = num(12)? as u8,
            "win" => self.win_threshold = if value == "none" { 0 } else { num(255)? as u8 },
            "sweep_on_end" => self.sweep_on_end = flag()?,
            "max_plies" => self.max_plies = num(u32::MAX as u64)? as u32,
            "relay_cap" => self.relay_cap = num(u16::MAX as u64)? as u16,
            "out_of_turn" => self.out_of_turn_capture = flag()?,
            "end_seeds" => self.end_seeds = num(255)? as u8,
            "first" => {
                self.first_player = if value == "random" {
                    FirstPlayer::Random
                } else {
                    FirstPlayer::Fixed(num(MAX_PLAYERS as u64 - 1)? as u8)
                }
            }
            _ => {
                return Err(AwaleError::BadOption {
                    option: format!("{key}={value}"),
                    reason: format!("unknown option '{key}' (known: {})", OPTION_KEYS.join(", ")),
                })
            }
        }
        Ok(())
    }

    /// The options of this rule set as `(key, value)` spec pairs, in a fixed order.
    pub fn options(&self) -> Vec<(&'static str, String)> {
        let starvation = match self.starvation {
            Starvation::FeederTakesAll => "feeder".to_string(),
            Starvation::StarvedTakesAll => "starved".to_string(),
            Starvation::StarvedUnlessFew(n) => format!("starved_unless_{n}"),
        };
        vec![
            ("players", self.players.to_string()),
            ("houses", self.houses.to_string()),
            ("seeds", self.seeds.to_string()),
            (
                "sowing",
                match self.sowing {
                    Sowing::Single => "single",
                    Sowing::Relay => "relay",
                }
                .into(),
            ),
            ("skip_origin", self.skip_origin.to_string()),
            (
                "capture",
                format!("{}-{}", self.capture_min, self.capture_max),
            ),
            (
                "grand_slam",
                match self.grand_slam {
                    GrandSlam::NoCapture => "no_capture",
                    GrandSlam::Forbidden => "forbidden",
                    GrandSlam::CaptureAll => "capture_all",
                }
                .into(),
            ),
            (
                "feeding",
                match self.feeding {
                    Feeding::Required => "required",
                    Feeding::Optional => "optional",
                }
                .into(),
            ),
            ("starvation", starvation),
            (
                "cycle",
                match self.cycle {
                    CycleRule::EachTakesOwn => "each_takes_own",
                    CycleRule::Split => "split",
                    CycleRule::Ignore => "ignore",
                }
                .into(),
            ),
            ("cycle_if_seeded", self.cycle_needs_seeds.to_string()),
            ("indetermination", self.indetermination.to_string()),
            (
                "win",
                if self.win_threshold == 0 {
                    "none".into()
                } else {
                    self.win_threshold.to_string()
                },
            ),
            ("sweep_on_end", self.sweep_on_end.to_string()),
            ("max_plies", self.max_plies.to_string()),
            ("relay_cap", self.relay_cap.to_string()),
            ("out_of_turn", self.out_of_turn_capture.to_string()),
            ("end_seeds", self.end_seeds.to_string()),
            (
                "first",
                match self.first_player {
                    FirstPlayer::Fixed(p) => p.to_string(),
                    FirstPlayer::Random => "random".into(),
                },
            ),
        ]
    }

    /// The base name of this rule set: the preset table's entry for its family and player count
    /// (`oware3` for owaré with 3 players), or the preset's own spec.
    pub fn base_name(&self) -> String {
        self.base_preset().spec.to_string()
    }

    /// The entry of the preset table these rules are written against: the member of the
    /// preset's family with this player count, or the preset itself.
    fn base_preset(&self) -> &'static crate::presets::PresetDef {
        let def = self.preset.def();
        if (def.build)().players == self.players {
            return def;
        }
        crate::presets::family_member(def.family, self.players).unwrap_or(def)
    }
}

/// The rules of owaré for `players` players (2, 3, 4 or 6: the preset table's entries call it).
pub(crate) fn oware_rules(players: u8) -> Rules {
    Rules {
        preset: Preset::oware(players).unwrap_or(Preset::ABAPA),
        players,
        houses: 12 / players,
        seeds: 4,
        sowing: Sowing::Relay,
        skip_origin: true,
        capture_min: 4,
        capture_max: 4,
        grand_slam: GrandSlam::NoCapture,
        feeding: Feeding::Optional,
        starvation: Starvation::FeederTakesAll,
        cycle: CycleRule::EachTakesOwn,
        cycle_needs_seeds: false,
        indetermination: 0,
        win_threshold: 0,
        sweep_on_end: false,
        max_plies: 0,
        relay_cap: 200,
        out_of_turn_capture: true,
        end_seeds: 4,
        first_player: FirstPlayer::Random,
    }
}

/// The option keys accepted in a rules spec.
pub const OPTION_KEYS: [&str; 19] = [
    "players",
    "houses",
    "seeds",
    "sowing",
    "skip_origin",
    "capture",
    "grand_slam",
    "feeding",
    "starvation",
    "cycle",
    "cycle_if_seeded",
    "indetermination",
    "win",
    "sweep_on_end",
    "max_plies",
    "relay_cap",
    "out_of_turn",
    "end_seeds",
    "first",
];

fn base_rules(name: &str) -> Result<Rules> {
    crate::presets::find_preset(name)
        .map(|def| def.rules())
        .ok_or_else(|| crate::presets::unknown_preset(name))
}

impl FromStr for Rules {
    type Err = AwaleError;

    /// Parses `PRESET[:KEY=VALUE,...]`. For owaré, `players=N` also re-derives the houses.
    fn from_str(spec: &str) -> Result<Rules> {
        let spec = spec.trim();
        let (name, opts) = spec.split_once(':').unwrap_or((spec, ""));
        let mut rules = base_rules(name.trim())?;
        let mut pairs = Vec::new();
        for part in opts.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once('=').ok_or_else(|| AwaleError::BadOption {
                option: part.to_string(),
                reason: "expected KEY=VALUE".into(),
            })?;
            pairs.push((part, k.trim(), v.trim()));
        }
        // In a family of presets that differ by their player count (owaré), `players` picks the
        // member (houses = 12 / players): apply it first so that the other options, wherever
        // they are written, apply on top of it.
        let family = rules.preset.def().family;
        let counts = crate::presets::family_players(family);
        if counts.len() > 1 {
            for &(part, _, v) in pairs.iter().filter(|p| p.1 == "players") {
                let n: u8 = v.parse().map_err(|_| AwaleError::BadOption {
                    option: part.to_string(),
                    reason: format!("'{v}' is not a whole number"),
                })?;
                let member = crate::presets::family_member(family, n).ok_or_else(|| {
                    let list: Vec<String> = counts.iter().map(u8::to_string).collect();
                    AwaleError::BadOption {
                        option: part.to_string(),
                        reason: format!(
                            "{family} is played by {} players, not {n}",
                            list.join(", ")
                        ),
                    }
                })?;
                rules = member.rules();
            }
            pairs.retain(|p| p.1 != "players");
        }
        for (_, k, v) in pairs {
            rules.set_option(k, v)?;
        }
        rules.validate()?;
        Ok(rules)
    }
}

impl fmt::Display for Rules {
    /// Writes the shortest spec that parses back to these rules.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let def = self.base_preset();
        let name = def.spec;
        let base = def.rules();
        let diffs: Vec<String> = self
            .options()
            .into_iter()
            .zip(base.options())
            .filter(|(a, b)| a.1 != b.1)
            .map(|(a, _)| format!("{}={}", a.0, a.1))
            .collect();
        if diffs.is_empty() {
            write!(f, "{name}")
        } else {
            write!(f, "{name}:{}", diffs.join(","))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_validates_and_round_trips() {
        for name in PRESET_SPECS {
            let r: Rules = name.parse().unwrap();
            r.validate().unwrap();
            assert_eq!(r.to_string(), name);
            assert_eq!(r.total_seeds(), 48);
        }
    }

    #[test]
    fn options_round_trip() {
        let spec = "wari:houses=5,seeds=3,grand_slam=forbidden,cycle=ignore,max_plies=80,win=none";
        let r: Rules = spec.parse().unwrap();
        assert_eq!(r.houses, 5);
        assert_eq!(r.win_threshold, 0);
        assert_eq!(r.to_string().parse::<Rules>().unwrap(), r);
    }

    #[test]
    fn bad_specs_name_the_problem() {
        let e = "abapaa".parse::<Rules>().unwrap_err();
        assert!(e.to_string().contains("unknown rules preset 'abapaa'"));
        let e = "abapa:grand_slam=maybe".parse::<Rules>().unwrap_err();
        assert!(e.to_string().contains("grand_slam=maybe"));
        let e = "abapa:houses=9".parse::<Rules>().unwrap_err();
        assert!(e.to_string().contains("18 pits"));
        let e = "abapa:seeds=30".parse::<Rules>().unwrap_err();
        assert!(e.to_string().contains("360 seeds"));
        let e = "abapa:cycle=ignore".parse::<Rules>().unwrap_err();
        assert!(e.to_string().contains("max_plies"));
        let e = "abapa:colour=red".parse::<Rules>().unwrap_err();
        assert!(e.to_string().contains("unknown option 'colour'"));
        assert!("oware:players=5".parse::<Rules>().is_err());
        let r: Rules = "oware:relay_cap=50,players=3".parse().unwrap();
        assert_eq!((r.players, r.houses, r.relay_cap), (3, 4, 50));
        assert!("abapa:players=3".parse::<Rules>().is_err());
    }
}
