//! The preset table: every named rule set, in one place.
//!
//! Each entry of [`BUILTIN_PRESETS`] is one spec a user can write (`abapa`, `oware3`, …) with its
//! aliases, its family (the name that takes `players=N`), a title for generated identifiers (the
//! Gymnasium ids `awale/Abapa-v0`, the PettingZoo modules `abapa_v0`), a summary, the source
//! document and the rules themselves. Everything that lists presets iterates this table: the
//! spec parser, the unknown-preset error, `awale rules`, the Python module's preset list, the
//! Gymnasium registrations and the PettingZoo modules.
//!
//! Adding a preset is one entry (plus its tests); a program or a test can also add one at run
//! time with [`register_preset`], and it then parses, prints and lists like a built-in one.
//!
//! [`BUILTIN_PRESETS`]: crate::rules::presets::BUILTIN_PRESETS
//! [`register_preset`]: crate::rules::presets::register_preset
//!
//! ```
//! use awale::presets::{find_preset, presets};
//! let wari = find_preset("wari").unwrap();
//! assert_eq!(wari.title, "Wari");
//! assert_eq!(wari.rules().to_string(), "wari");
//! assert!(presets().iter().any(|p| p.spec == "oware3"));
//! ```

use std::fmt;
use std::sync::RwLock;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::Rules;
use crate::error::{AwaleError, Result};

/// One named rule set of the preset table.
#[derive(Debug, Clone, Copy)]
pub struct PresetDef {
    /// The spec that names it (`"abapa"`, `"oware3"`): lowercase letters, digits, `_` and `-`.
    pub spec: &'static str,
    /// Other names the spec parser accepts for it (`"international"`, `"oware"`).
    pub aliases: &'static [&'static str],
    /// The family name: presets of one family differ only by their player count, and the
    /// family's name followed by `players=N` picks the member (`oware:players=3` is `oware3`).
    pub family: &'static str,
    /// A title for generated identifiers (`"Abapa"`, `"Oware3"`): Gymnasium ids, class names.
    pub title: &'static str,
    /// A one-line description of the rules and their source.
    pub summary: &'static str,
    /// The source document in `shared/seeds/` (`"000"` … `"003"`), or `""` for none.
    pub document: &'static str,
    /// Builds the rules (the table stamps the preset itself on the result, see [`PresetDef::rules`]).
    pub build: fn() -> Rules,
}

impl PresetDef {
    /// The preset's rules, marked as coming from this preset.
    pub fn rules(&'static self) -> Rules {
        Rules {
            preset: Preset(self),
            ..(self.build)()
        }
    }

    /// Whether `name` names this preset (its spec or an alias).
    pub fn is_named(&self, name: &str) -> bool {
        self.spec == name || self.aliases.contains(&name)
    }
}

/// The built-in presets, in display order.
pub static BUILTIN_PRESETS: [PresetDef; 8] = [
    PresetDef {
        spec: "abapa",
        aliases: &["oware-abapa", "international"],
        family: "abapa",
        title: "Abapa",
        summary: "international rules (World Oware Federation, doc 000): grand slam captures nothing, must feed, cannot feed -> mover takes own row, repetition -> each takes own row, 25 wins",
        document: "000",
        build: Rules::abapa,
    },
    PresetDef {
        spec: "awale",
        aliases: &["awele"],
        family: "awale",
        title: "Awale",
        summary: "common Awale (doc 001): as abapa, grand slam forbidden unless the only move, famine, end by indetermination",
        document: "001",
        build: Rules::awale,
    },
    PresetDef {
        spec: "wari",
        aliases: &[],
        family: "wari",
        title: "Wari",
        summary: "Wari (doc 003): feeding optional; a starved player harvests all unless the feeder holds <= 3 (then shared); chasing seeds are split",
        document: "003",
        build: Rules::wari,
    },
    PresetDef {
        spec: "openspiel",
        aliases: &[],
        family: "openspiel",
        title: "OpenSpiel",
        summary: "abapa as OpenSpiel's 'oware' plays it: at every end the remaining seeds go to their row's owner",
        document: "000",
        build: Rules::openspiel,
    },
    PresetDef {
        spec: "oware2",
        aliases: &["oware"],
        family: "oware",
        title: "Oware2",
        summary: "multi-player Owaré (doc 002) for 2: relay sowing, capture of a hole brought to 4, owner's out-of-turn captures, ends at <= 4 seeds",
        document: "002",
        build: || super::oware_rules(2),
    },
    PresetDef {
        spec: "oware3",
        aliases: &[],
        family: "oware",
        title: "Oware3",
        summary: "multi-player Owaré (doc 002) for 3 players on 3 x 4 houses",
        document: "002",
        build: || super::oware_rules(3),
    },
    PresetDef {
        spec: "oware4",
        aliases: &[],
        family: "oware",
        title: "Oware4",
        summary: "multi-player Owaré (doc 002) for 4 players on 4 x 3 houses",
        document: "002",
        build: || super::oware_rules(4),
    },
    PresetDef {
        spec: "oware6",
        aliases: &[],
        family: "oware",
        title: "Oware6",
        summary: "multi-player Owaré (doc 002) for 6 players on 6 x 2 houses",
        document: "002",
        build: || super::oware_rules(6),
    },
];

/// The spec of every built-in preset, in display order (derived from [`BUILTIN_PRESETS`]).
pub const PRESET_SPECS: [&str; BUILTIN_PRESETS.len()] = {
    let mut out = [""; BUILTIN_PRESETS.len()];
    let mut i = 0;
    while i < out.len() {
        out[i] = BUILTIN_PRESETS[i].spec;
        i += 1;
    }
    out
};

/// Presets added at run time by [`register_preset`].
static REGISTERED: RwLock<Vec<&'static PresetDef>> = RwLock::new(Vec::new());

/// Every preset: the built-in ones in display order, then those registered at run time.
pub fn presets() -> Vec<&'static PresetDef> {
    let mut all: Vec<&'static PresetDef> = BUILTIN_PRESETS.iter().collect();
    all.extend(REGISTERED.read().unwrap_or_else(|e| e.into_inner()).iter());
    all
}

/// The preset named `name` (its spec or an alias).
pub fn find_preset(name: &str) -> Option<&'static PresetDef> {
    presets().into_iter().find(|p| p.is_named(name))
}

/// The member of `family` for `players` players, if the table has one.
pub fn family_member(family: &str, players: u8) -> Option<&'static PresetDef> {
    presets()
        .into_iter()
        .find(|p| p.family == family && (p.build)().players == players)
}

/// The player counts the members of `family` are played by, in table order.
pub fn family_players(family: &str) -> Vec<u8> {
    presets()
        .into_iter()
        .filter(|p| p.family == family)
        .map(|p| (p.build)().players)
        .collect()
}

/// The error for a preset name that is not in the table; it lists the names that are.
pub fn unknown_preset(name: &str) -> AwaleError {
    AwaleError::UnknownPreset {
        name: name.to_string(),
        known: preset_names().join(", "),
    }
}

/// Every name the spec parser accepts, specs and aliases, in table order (for messages).
pub fn preset_names() -> Vec<&'static str> {
    let mut names = Vec::new();
    for p in presets() {
        names.push(p.spec);
        names.extend_from_slice(p.aliases);
    }
    names
}

/// Adds a preset to the table for the rest of the process; it then parses, prints, lists and
/// round-trips like a built-in one. Refused when a name is taken, a name is not a plain
/// identifier, or the rules do not validate.
///
/// ```
/// use awale::presets::{register_preset, PresetDef};
/// use awale::Rules;
/// register_preset(PresetDef {
///     spec: "abapa_doc_example",
///     aliases: &[],
///     family: "abapa_doc_example",
///     title: "AbapaDocExample",
///     summary: "a copy of abapa",
///     document: "000",
///     build: Rules::abapa,
/// })
/// .unwrap();
/// let rules: Rules = "abapa_doc_example:max_plies=300".parse().unwrap();
/// assert_eq!(rules.to_string(), "abapa_doc_example:max_plies=300");
/// ```
pub fn register_preset(def: PresetDef) -> Result<&'static PresetDef> {
    let plain = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
    };
    for name in std::iter::once(def.spec).chain(def.aliases.iter().copied()) {
        if !plain(name) {
            return Err(AwaleError::InvalidRules(format!(
                "preset name '{name}' must be lowercase letters, digits, '_' or '-'"
            )));
        }
    }
    (def.build)().validate()?;
    let mut registered = REGISTERED.write().unwrap_or_else(|e| e.into_inner());
    let taken: Vec<&str> = BUILTIN_PRESETS
        .iter()
        .chain(registered.iter().copied())
        .flat_map(|p| std::iter::once(p.spec).chain(p.aliases.iter().copied()))
        .collect();
    if let Some(name) = std::iter::once(def.spec)
        .chain(def.aliases.iter().copied())
        .find(|n| taken.contains(n))
    {
        return Err(AwaleError::InvalidRules(format!(
            "preset name '{name}' is already taken"
        )));
    }
    let leaked: &'static PresetDef = Box::leak(Box::new(def));
    registered.push(leaked);
    Ok(leaked)
}

/// The preset a [`Rules`] value starts from: a handle on its entry of the preset table.
///
/// Two handles are equal when they name the same spec. It serialises as the spec (`"oware3"`);
/// deserialising also accepts the names written by earlier versions (`"Abapa"`, `"Oware"`).
#[derive(Clone, Copy)]
pub struct Preset(pub(crate) &'static PresetDef);

impl Preset {
    /// International rules of the World Oware Federation (`000_*`).
    pub const ABAPA: Preset = Preset(&BUILTIN_PRESETS[0]);
    /// The common Awalé rule set with famine and indetermination (`001_*`).
    pub const AWALE: Preset = Preset(&BUILTIN_PRESETS[1]);
    /// Wari (`003_*`).
    pub const WARI: Preset = Preset(&BUILTIN_PRESETS[2]);
    /// Abapa as OpenSpiel's `oware` plays it.
    pub const OPENSPIEL: Preset = Preset(&BUILTIN_PRESETS[3]);

    /// The multi-player Owaré preset for `players` players (2, 3, 4 or 6).
    pub fn oware(players: u8) -> Option<Preset> {
        match players {
            2 => Some(Preset(&BUILTIN_PRESETS[4])),
            3 => Some(Preset(&BUILTIN_PRESETS[5])),
            4 => Some(Preset(&BUILTIN_PRESETS[6])),
            6 => Some(Preset(&BUILTIN_PRESETS[7])),
            _ => None,
        }
    }

    /// The family name (`"abapa"`, `"oware"` for every owaré player count).
    pub fn name(self) -> &'static str {
        self.0.family
    }

    /// The spec of the entry (`"abapa"`, `"oware3"`).
    pub fn spec(self) -> &'static str {
        self.0.spec
    }

    /// The entry of the preset table.
    pub fn def(self) -> &'static PresetDef {
        self.0
    }

    /// A one-line description of the preset and its source.
    pub fn summary(self) -> &'static str {
        self.0.summary
    }
}

impl PartialEq for Preset {
    fn eq(&self, other: &Preset) -> bool {
        self.0.spec == other.0.spec
    }
}

impl Eq for Preset {}

impl std::hash::Hash for Preset {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.spec.hash(state)
    }
}

impl fmt::Debug for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Preset({})", self.0.spec)
    }
}

impl Serialize for Preset {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.0.spec)
    }
}

impl<'de> Deserialize<'de> for Preset {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Preset, D::Error> {
        let name = String::deserialize(d)?;
        // Earlier versions wrote the enum variant's name.
        let legacy = match name.as_str() {
            "Abapa" => "abapa",
            "Awale" => "awale",
            "Wari" => "wari",
            "OpenSpiel" => "openspiel",
            "Oware" => "oware2",
            other => other,
        };
        find_preset(legacy)
            .map(Preset)
            .ok_or_else(|| serde::de::Error::custom(unknown_preset(&name)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_builds_valid_rules_with_its_own_name() {
        for p in presets() {
            let rules = p.rules();
            rules.validate().unwrap();
            assert_eq!(rules.preset.spec(), p.spec);
            assert_eq!(rules.to_string(), p.spec, "{} prints as its spec", p.spec);
            assert_eq!(p.spec.parse::<Rules>().unwrap(), rules);
            for alias in p.aliases {
                assert_eq!(alias.parse::<Rules>().unwrap(), rules, "alias {alias}");
            }
        }
    }

    #[test]
    fn names_are_unique() {
        let names = preset_names();
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len(), "{names:?}");
    }

    #[test]
    fn families_pick_their_members() {
        assert_eq!(family_players("oware"), vec![2, 3, 4, 6]);
        assert_eq!(family_member("oware", 4).unwrap().spec, "oware4");
        assert!(family_member("oware", 5).is_none());
        assert_eq!(Preset::oware(6).unwrap().spec(), "oware6");
    }

    #[test]
    fn serde_writes_the_spec_and_reads_old_names() {
        let json = serde_json::to_string(&Preset::oware(3).unwrap()).unwrap();
        assert_eq!(json, "\"oware3\"");
        let old: Preset = serde_json::from_str("\"OpenSpiel\"").unwrap();
        assert_eq!(old, Preset::OPENSPIEL);
        assert!(serde_json::from_str::<Preset>("\"chess\"").is_err());
    }

    #[test]
    fn registration_refuses_taken_and_bad_names() {
        let copy = |spec: &'static str| PresetDef {
            spec,
            aliases: &[],
            family: spec,
            title: "Copy",
            summary: "a copy",
            document: "",
            build: Rules::abapa,
        };
        assert!(register_preset(copy("wari")).is_err());
        assert!(register_preset(copy("Bad Name")).is_err());
        let bad = PresetDef {
            build: || Rules {
                seeds: 0,
                ..Rules::abapa()
            },
            ..copy("zero_seeds")
        };
        assert!(register_preset(bad).is_err());
    }
}
