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

/// The preset table: every named rule set (a part of the rules: a [`Rules`] names its preset).
pub mod presets;

pub use presets::{find_preset, presets, Preset, PresetDef, PRESET_SPECS};

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
        match presets::family_member("oware", players) {
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
        let def = find_option(key).ok_or_else(|| AwaleError::BadOption {
            option: format!("{key}={value}"),
            reason: format!("unknown option '{key}' (known: {})", OPTION_KEYS.join(", ")),
        })?;
        (def.set)(self, value).map_err(|reason| AwaleError::BadOption {
            option: format!("{key}={value}"),
            reason,
        })
    }

    /// The options of this rule set as `(key, value)` spec pairs, in the order of
    /// [`RULES_OPTIONS`].
    pub fn options(&self) -> Vec<(&'static str, String)> {
        RULES_OPTIONS
            .iter()
            .map(|def| (def.key, (def.get)(self)))
            .collect()
    }

    /// The base name of this rule set: the preset table's entry for its family and player count
    /// (`oware3` for owaré with 3 players), or the preset's own spec.
    pub fn base_name(&self) -> String {
        self.base_preset().spec.to_string()
    }

    /// The entry of the preset table these rules are written against: the member of the
    /// preset's family with this player count, or the preset itself.
    fn base_preset(&self) -> &'static presets::PresetDef {
        let def = self.preset.def();
        if (def.build)().players == self.players {
            return def;
        }
        presets::family_member(def.family, self.players).unwrap_or(def)
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

/// One option of a rules spec (`KEY=VALUE` after the preset): its key, what it means, the values
/// it takes, and how it is written to and read from [`Rules`].
///
/// [`RULES_OPTIONS`] lists them all; [`Rules::set_option`], [`Rules::options`], [`OPTION_KEYS`]
/// and the `awale rules` listing are derived from it. Adding an option is a field of [`Rules`],
/// one entry of the table, and the engine code that reads the field.
#[derive(Clone, Copy)]
pub struct RulesOption {
    /// The key, as written in specs (`"grand_slam"`).
    pub key: &'static str,
    /// What the option means, one line (shown by `awale rules`).
    pub help: &'static str,
    /// The values it accepts, e.g. `"single|relay"` or `"0-255"` (`N` stands for a number).
    pub values: &'static str,
    /// Writes a spec value to the rules; the error is the reason, without the option.
    pub set: fn(&mut Rules, &str) -> std::result::Result<(), String>,
    /// The rules' value as a spec writes it (what [`RulesOption::set`] reads back).
    pub get: fn(&Rules) -> String,
}

impl fmt::Debug for RulesOption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RulesOption")
            .field("key", &self.key)
            .field("values", &self.values)
            .finish_non_exhaustive()
    }
}

/// The definition of rules option `key`, if there is one.
pub fn find_option(key: &str) -> Option<&'static RulesOption> {
    RULES_OPTIONS.iter().find(|def| def.key == key)
}

/// A whole number no larger than `max`.
fn number(value: &str, max: u64) -> std::result::Result<u64, String> {
    let n: u64 = value
        .parse()
        .map_err(|_| format!("'{value}' is not a whole number"))?;
    if n > max {
        return Err(format!("{n} is above the largest allowed value {max}"));
    }
    Ok(n)
}

/// A yes/no value.
fn flag(value: &str) -> std::result::Result<bool, String> {
    match value {
        "true" | "yes" | "on" | "1" => Ok(true),
        "false" | "no" | "off" | "0" => Ok(false),
        _ => Err("expected true or false".into()),
    }
}

/// The value named `value` among `choices`; the error lists the names.
fn choose<T: Copy>(value: &str, choices: &[(&str, T)]) -> std::result::Result<T, String> {
    if let Some(&(_, v)) = choices.iter().find(|(name, _)| *name == value) {
        return Ok(v);
    }
    let names: Vec<&str> = choices.iter().map(|(name, _)| *name).collect();
    let (last, rest) = names.split_last().expect("choices are not empty");
    Err(format!("expected {} or {last}", rest.join(", ")))
}

/// The name of `value` among `choices`.
fn name_of<T: PartialEq>(value: T, choices: &[(&'static str, T)]) -> String {
    choices
        .iter()
        .find(|(_, v)| *v == value)
        .map_or("?", |(name, _)| name)
        .to_string()
}

const SOWINGS: &[(&str, Sowing)] = &[("single", Sowing::Single), ("relay", Sowing::Relay)];
const GRAND_SLAMS: &[(&str, GrandSlam)] = &[
    ("no_capture", GrandSlam::NoCapture),
    ("forbidden", GrandSlam::Forbidden),
    ("capture_all", GrandSlam::CaptureAll),
];
const FEEDINGS: &[(&str, Feeding)] = &[
    ("required", Feeding::Required),
    ("optional", Feeding::Optional),
];
const CYCLES: &[(&str, CycleRule)] = &[
    ("each_takes_own", CycleRule::EachTakesOwn),
    ("split", CycleRule::Split),
    ("ignore", CycleRule::Ignore),
];

/// Every rules option, in the order specs and listings write them.
pub static RULES_OPTIONS: &[RulesOption] = &[
    RulesOption {
        key: "players",
        help: "number of players (owaré: 2, 3, 4 or 6; sets the houses too)",
        values: "2-6",
        set: |r, v| {
            r.players = number(v, MAX_PLAYERS as u64)? as u8;
            Ok(())
        },
        get: |r| r.players.to_string(),
    },
    RulesOption {
        key: "houses",
        help: "houses (holes) per player",
        values: "1-16",
        set: |r, v| {
            r.houses = number(v, MAX_PITS as u64)? as u8;
            Ok(())
        },
        get: |r| r.houses.to_string(),
    },
    RulesOption {
        key: "seeds",
        help: "seeds per house at the start",
        values: "1-255",
        set: |r, v| {
            r.seeds = number(v, 255)? as u8;
            Ok(())
        },
        get: |r| r.seeds.to_string(),
    },
    RulesOption {
        key: "sowing",
        help: "single (one sowing, backward captures) or relay (sow on from the landing hole)",
        values: "single|relay",
        set: |r, v| {
            r.sowing = choose(v, SOWINGS)?;
            Ok(())
        },
        get: |r| name_of(r.sowing, SOWINGS),
    },
    RulesOption {
        key: "skip_origin",
        help: "a lap of 12+ seeds skips the house it started from",
        values: "true|false",
        set: |r, v| {
            r.skip_origin = flag(v)?;
            Ok(())
        },
        get: |r| r.skip_origin.to_string(),
    },
    RulesOption {
        key: "capture",
        help: "counts that capture, MIN-MAX (after the last seed lands)",
        values: "MIN-MAX",
        set: |r, v| {
            let (lo, hi) = v.split_once('-').unwrap_or((v, v));
            let bad = |_| "expected MIN-MAX, e.g. 2-3".to_string();
            r.capture_min = lo.parse().map_err(bad)?;
            r.capture_max = hi.parse().map_err(bad)?;
            Ok(())
        },
        get: |r| format!("{}-{}", r.capture_min, r.capture_max),
    },
    RulesOption {
        key: "grand_slam",
        help: "a move taking all the opponent's seeds: no_capture, forbidden or capture_all",
        values: "no_capture|forbidden|capture_all",
        set: |r, v| {
            r.grand_slam = choose(v, GRAND_SLAMS)?;
            Ok(())
        },
        get: |r| name_of(r.grand_slam, GRAND_SLAMS),
    },
    RulesOption {
        key: "feeding",
        help: "required: must give seeds to an empty opponent if possible; or optional",
        values: "required|optional",
        set: |r, v| {
            r.feeding = choose(v, FEEDINGS)?;
            Ok(())
        },
        get: |r| name_of(r.feeding, FEEDINGS),
    },
    RulesOption {
        key: "starvation",
        help: "who takes the board when a player is starved: feeder, starved, starved_unless_N",
        values: "feeder|starved|starved_unless_N",
        set: |r, v| {
            r.starvation = match v {
                "feeder" => Starvation::FeederTakesAll,
                "starved" => Starvation::StarvedTakesAll,
                v => match v.strip_prefix("starved_unless_") {
                    Some(n) => Starvation::StarvedUnlessFew(n.parse().map_err(|_| {
                        "expected starved_unless_N, e.g. starved_unless_3".to_string()
                    })?),
                    None => return Err("expected feeder, starved or starved_unless_N".into()),
                },
            };
            Ok(())
        },
        get: |r| match r.starvation {
            Starvation::FeederTakesAll => "feeder".to_string(),
            Starvation::StarvedTakesAll => "starved".to_string(),
            Starvation::StarvedUnlessFew(n) => format!("starved_unless_{n}"),
        },
    },
    RulesOption {
        key: "cycle",
        help: "on a repeated position: each_takes_own, split, or ignore (needs max_plies)",
        values: "each_takes_own|split|ignore",
        set: |r, v| {
            r.cycle = choose(v, CYCLES)?;
            Ok(())
        },
        get: |r| name_of(r.cycle, CYCLES),
    },
    RulesOption {
        key: "cycle_if_seeded",
        help: "a repeated position ends the game only if every player has a seed on his side",
        values: "true|false",
        set: |r, v| {
            r.cycle_needs_seeds = flag(v)?;
            Ok(())
        },
        get: |r| r.cycle_needs_seeds.to_string(),
    },
    RulesOption {
        key: "indetermination",
        help: "end when at most N seeds remain and no capture is possible (0 = off)",
        values: "0-12",
        set: |r, v| {
            r.indetermination = number(v, 12)? as u8;
            Ok(())
        },
        get: |r| r.indetermination.to_string(),
    },
    RulesOption {
        key: "win",
        help: "score that wins at once (none = play to the end)",
        values: "N|none",
        set: |r, v| {
            r.win_threshold = if v == "none" {
                0
            } else {
                number(v, 255)? as u8
            };
            Ok(())
        },
        get: |r| match r.win_threshold {
            0 => "none".to_string(),
            n => n.to_string(),
        },
    },
    RulesOption {
        key: "sweep_on_end",
        help: "at every end, remaining seeds go to their row's owner",
        values: "true|false",
        set: |r, v| {
            r.sweep_on_end = flag(v)?;
            Ok(())
        },
        get: |r| r.sweep_on_end.to_string(),
    },
    RulesOption {
        key: "max_plies",
        help: "truncate the game after this many plies (0 = no limit)",
        values: "N",
        set: |r, v| {
            r.max_plies = number(v, u32::MAX as u64)? as u32;
            Ok(())
        },
        get: |r| r.max_plies.to_string(),
    },
    RulesOption {
        key: "relay_cap",
        help: "most relays in one move (relay sowing)",
        values: "1-65535",
        set: |r, v| {
            r.relay_cap = number(v, u16::MAX as u64)? as u16;
            Ok(())
        },
        get: |r| r.relay_cap.to_string(),
    },
    RulesOption {
        key: "out_of_turn",
        help: "a hole brought to the capture count mid-sowing is taken by its owner",
        values: "true|false",
        set: |r, v| {
            r.out_of_turn_capture = flag(v)?;
            Ok(())
        },
        get: |r| r.out_of_turn_capture.to_string(),
    },
    RulesOption {
        key: "end_seeds",
        help: "relay game ends when this many seeds or fewer remain after a capture",
        values: "0-255",
        set: |r, v| {
            r.end_seeds = number(v, 255)? as u8;
            Ok(())
        },
        get: |r| r.end_seeds.to_string(),
    },
    RulesOption {
        key: "first",
        help: "who moves first: a player number, or random (drawn from the game's seed)",
        values: "0-5|random",
        set: |r, v| {
            r.first_player = if v == "random" {
                FirstPlayer::Random
            } else {
                FirstPlayer::Fixed(number(v, MAX_PLAYERS as u64 - 1)? as u8)
            };
            Ok(())
        },
        get: |r| match r.first_player {
            FirstPlayer::Fixed(p) => p.to_string(),
            FirstPlayer::Random => "random".into(),
        },
    },
];

/// The option keys accepted in a rules spec, in table order (derived from [`RULES_OPTIONS`]).
pub const OPTION_KEYS: [&str; RULES_OPTIONS.len()] = {
    let mut out = [""; RULES_OPTIONS.len()];
    let mut i = 0;
    while i < out.len() {
        out[i] = RULES_OPTIONS[i].key;
        i += 1;
    }
    out
};

fn base_rules(name: &str) -> Result<Rules> {
    presets::find_preset(name)
        .map(|def| def.rules())
        .ok_or_else(|| presets::unknown_preset(name))
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
        let counts = presets::family_players(family);
        if counts.len() > 1 {
            for &(part, _, v) in pairs.iter().filter(|p| p.1 == "players") {
                let n: u8 = v.parse().map_err(|_| AwaleError::BadOption {
                    option: part.to_string(),
                    reason: format!("'{v}' is not a whole number"),
                })?;
                let member = presets::family_member(family, n).ok_or_else(|| {
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
