//! The env spec, in one declaration: [`OPTIONS`], the option table of the Python `Batch` and
//! environments (key, kind, defaults, the API flavours that take it, help, parser and printer),
//! and [`EnvConfig`], what it sets: the batch's [`BatchConfig`] and the settings only the Python
//! layer uses (the observations' element type, the environments' rendering, copying and
//! observation layout), with the spaces they give ([`EnvConfig::spaces`]: the observation spec
//! of `crate::batch::ObsSpec`, the action spec). The Python `Batch` keywords and pickles,
//! `awale._core.env_options()`, `env_spaces()`, `awale.EnvSpec`, the environments' keywords,
//! docs and Gymnasium spaces are derived from here (their Python side is `src/python/env_options.rs`:
//! the binding converts types, this table decides).
//! A new option is one entry here plus its behaviour (and, for a `Batch` keyword, its typed line
//! in `python/awale/_core.pyi`, which `tests/python/test_options.py` checks).

use std::fmt;

use crate::agents::{opponent_from_spec, Registry};
use crate::batch::{ActionSpec, BatchConfig, ObsDtype, ObsSpec, Opening, MAX_BOARDS, MAX_THREADS};
use crate::error::{AwaleError, Result};

/// How the Python environments lay out an observation: the encoding alone (`array`, the mask
/// is in `info`) or `{"observation", "action_mask"}` (`dict`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum ObsMode {
    /// The encoding alone.
    #[default]
    Array,
    /// A dict of the encoding and the action mask.
    Dict,
}

/// Everything the option table ([`OPTIONS`]) sets: the batch's configuration and the settings
/// of the Python layer around it (the observations' element type, and the environments'
/// rendering, copying and observation layout, which the engine itself does not use).
#[derive(Debug, Clone)]
pub struct EnvConfig {
    /// The batch.
    pub batch: BatchConfig,
    /// The observations' element type.
    pub obs_dtype: ObsDtype,
    /// The environments' render mode (`None`: no rendering).
    pub render_mode: Option<String>,
    /// Whether the environments return fresh arrays (else views of the batch's buffers).
    pub copy: bool,
    /// The environments' observation layout.
    pub obs_mode: ObsMode,
}

impl Default for EnvConfig {
    /// Every option at its table default (`Batch`'s).
    fn default() -> Self {
        EnvConfig {
            batch: BatchConfig::default(),
            obs_dtype: ObsDtype::Float32,
            render_mode: None,
            copy: true,
            obs_mode: ObsMode::Array,
        }
    }
}

impl EnvConfig {
    /// Checks the batch ([`BatchConfig::validate`]) and the settings across it (the spaces
    /// exist: scaled observations need `float32`, [`crate::batch::ObsScale::check_dtype`]).
    pub fn validate(&self) -> Result<()> {
        self.batch.validate()?;
        self.spaces().map(|_| ())
    }

    /// One board's observation and action spaces under these options: the spec the Python
    /// spaces are built from (`awale._core.env_spaces`, `Batch.spaces`).
    pub fn spaces(&self) -> Result<(ObsSpec, ActionSpec)> {
        Ok((
            self.batch.obs_spec(self.obs_dtype)?,
            ActionSpec::new(&self.batch.rules),
        ))
    }

    /// Sets option `key` from its text form (as [`OptionDef::print`] writes it); opponent
    /// specs are read with `registry`'s agent kinds. The Python side reads values through
    /// the binding's `env_options::read_options`; `set` and `get` are the text round trip the tests
    /// check.
    #[cfg(test)]
    pub fn set(&mut self, key: &str, text: &str, registry: &Registry) -> Result<()> {
        let opt = find_option(key).ok_or_else(|| unknown_option(key))?;
        (opt.parse)(self, text, registry)
    }

    /// Option `key` in its text form.
    #[cfg(test)]
    pub fn get(&self, key: &str) -> Result<String> {
        let opt = find_option(key).ok_or_else(|| unknown_option(key))?;
        Ok((opt.print)(self))
    }
}

#[cfg(test)]
fn unknown_option(key: &str) -> AwaleError {
    let known: Vec<&str> = OPTIONS.iter().map(|o| o.key).collect();
    AwaleError::BadBatchInput(format!(
        "unknown option '{key}' (known: {})",
        known.join(", ")
    ))
}

/// What kind of value an option takes: how the Python layer reads and writes one, and how the
/// generated docs and stubs name its type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionKind {
    /// A rules spec (`abapa`, `oware:players=3`); from Python also a `Rules`.
    Rules,
    /// An integer in `min..=max`.
    Int {
        /// Smallest value.
        min: i64,
        /// Largest value.
        max: i64,
    },
    /// A 64-bit seed, 0 to 2**64-1.
    Seed,
    /// A string (the entry's `choices` list the values when they are a closed set).
    Str,
    /// A string or nothing (`none` in text, `None` in Python).
    OptStr,
    /// A flag (`true`/`false`; Python's truth value).
    Bool,
    /// Random opening plies: `n`, or `min..max` (from Python an int or a `(min, max)` pair).
    Opening,
    /// An opponent: a name, an agent spec or a league `league:a|b` (from Python also a list of
    /// those, or a callable `(State) -> house`).
    Opponent,
    /// An observation element type, `float32` or `uint8` (from Python also a NumPy dtype).
    Dtype,
}

impl OptionKind {
    /// The kind's name, as `awale._core.env_options()` reports it.
    pub fn name(self) -> &'static str {
        match self {
            OptionKind::Rules => "rules",
            OptionKind::Int { .. } => "int",
            OptionKind::Seed => "seed",
            OptionKind::Str => "str",
            OptionKind::OptStr => "optional_str",
            OptionKind::Bool => "bool",
            OptionKind::Opening => "opening",
            OptionKind::Opponent => "opponent",
            OptionKind::Dtype => "dtype",
        }
    }
}

/// The API flavours that take options, as [`OptionDef::flavours`] names them: the Python
/// `Batch`, `AwaleEnv`, `AwaleVectorEnv`, the SB3 `VecEnv`, the PettingZoo AEC env and
/// RLlib's `MultiAgentEnv` config keys.
pub const FLAVOURS: [&str; 6] = ["batch", "env", "vector", "sb3", "pettingzoo", "rllib"];

/// One option of the batch and the environments: the one place that says its name, type,
/// default, where it is taken, how its text is read and written, and what it does. The Python
/// `Batch` keywords and pickles, `awale.EnvSpec`'s fields and the environments' keywords all
/// come from [`OPTIONS`].
#[derive(Clone, Copy)]
pub struct OptionDef {
    /// The keyword.
    pub key: &'static str,
    /// Its kind of value.
    pub kind: OptionKind,
    /// The default (`Batch`'s), as `print` writes it.
    pub default: &'static str,
    /// The environments' default where it differs from `default`.
    pub env_default: Option<&'static str>,
    /// The accepted values when they are a closed set (for docs and type hints).
    pub choices: &'static [&'static str],
    /// The API flavours that take it (names from [`FLAVOURS`]).
    pub flavours: &'static [&'static str],
    /// One line for the docs.
    pub help: &'static str,
    /// Reads the text form into the configuration (errors name the option).
    pub parse: fn(&mut EnvConfig, &str, &Registry) -> Result<()>,
    /// Writes the configuration's value as text (`parse` reads it back).
    pub print: fn(&EnvConfig) -> String,
}

impl fmt::Debug for OptionDef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OptionDef")
            .field("key", &self.key)
            .field("kind", &self.kind)
            .field("default", &self.default)
            .field("flavours", &self.flavours)
            .finish()
    }
}

impl OptionDef {
    /// The default of `flavour` (`"batch"` or an environment).
    pub fn default_for(&self, flavour: &str) -> &'static str {
        match self.env_default {
            Some(d) if flavour != "batch" => d,
            _ => self.default,
        }
    }

    /// Whether `flavour` takes this option; the pseudo-flavour `"spec"` (`awale.EnvSpec`)
    /// takes every option that an environment takes.
    pub fn takes(&self, flavour: &str) -> bool {
        match flavour {
            "spec" => self.flavours.iter().any(|f| *f != "batch"),
            _ => self.flavours.contains(&flavour),
        }
    }
}

/// The option of that key.
pub fn find_option(key: &str) -> Option<&'static OptionDef> {
    OPTIONS.iter().find(|o| o.key == key)
}

fn bad_opt(m: String) -> AwaleError {
    AwaleError::BadBatchInput(m)
}

fn int_opt(key: &str, text: &str, min: i64, max: i64) -> Result<i64> {
    match text.trim().parse::<i64>() {
        Ok(v) if (min..=max).contains(&v) => Ok(v),
        _ => Err(bad_opt(format!("{key} must be {min} to {max}, got {text}"))),
    }
}

fn choice_opt<'a>(key: &str, text: &str, choices: &[&'a str]) -> Result<&'a str> {
    choices.iter().copied().find(|c| *c == text).ok_or_else(|| {
        bad_opt(format!(
            "{key} must be one of {}, got '{text}'",
            choices.join(", ")
        ))
    })
}

/// The options that shape one board's spaces ([`EnvConfig::spaces`]), in table order: what
/// `awale._core.env_spaces()` takes.
pub const SPACE_OPTIONS: [&str; 4] = ["rules", "obs", "obs_dtype", "obs_scale"];

const ALL: &[&str] = &FLAVOURS;
const GYM: &[&str] = &["batch", "env", "vector", "sb3"];
const MAX_BOARDS_I: i64 = MAX_BOARDS as i64;
const MAX_THREADS_I: i64 = MAX_THREADS as i64;

/// The option table: every option of the Python `Batch` and environments, in one place (the
/// pattern of [`crate::presets`](mod@crate::presets)). Rules come first: the opponent is read
/// against them. The order of the non-batch entries is that of `awale.EnvSpec`'s fields.
///
/// Adding an option is one entry here plus its behaviour (a [`EnvConfig`] field and what reads
/// it); the Python `Batch` keyword, its pickling, `awale.EnvSpec`, the environments' keywords and
/// docs follow from the entry.
pub static OPTIONS: &[OptionDef] = &[
    OptionDef {
        key: "rules",
        kind: OptionKind::Rules,
        default: "abapa",
        env_default: None,
        choices: &[],
        flavours: ALL,
        help:
            "the rules: a preset spec ('abapa', 'oware:players=3', 'wari:max_plies=300') or a Rules",
        parse: |c, s, _| {
            c.batch.rules = s.parse()?;
            Ok(())
        },
        print: |c| c.batch.rules.to_string(),
    },
    OptionDef {
        key: "num_boards",
        kind: OptionKind::Int {
            min: 1,
            max: MAX_BOARDS_I,
        },
        default: "1",
        env_default: None,
        choices: &[],
        flavours: &["batch"],
        help: "the number of boards",
        parse: |c, s, _| {
            c.batch.num_boards = int_opt("num_boards", s, 1, MAX_BOARDS_I)? as usize;
            Ok(())
        },
        print: |c| c.batch.num_boards.to_string(),
    },
    OptionDef {
        key: "opponent",
        kind: OptionKind::Opponent,
        default: "self",
        env_default: Some("random"),
        choices: &[],
        flavours: GYM,
        help: "who plays the other seats: 'self' (self-play: the caller plays every seat and each \
               step's reward is the mover's), 'random', 'capture' (the largest capture), 'greedy' \
               (the tournament's greedy agent), an agent spec ('alphabeta:depth=2', \
               'mcts:sims=200'), a list of those (a league: one member drawn per episode), or a \
               callable (State) -> house (not picklable)",
        parse: |c, s, reg| {
            c.batch.opponent = opponent_from_spec(s, &c.batch.rules, reg)?;
            Ok(())
        },
        print: |c| c.batch.opponent.name().to_string(),
    },
    OptionDef {
        key: "learner_seat",
        kind: OptionKind::Int { min: 0, max: 255 },
        default: "0",
        env_default: None,
        choices: &[],
        flavours: GYM,
        help: "the caller's seat against an opponent (0-based)",
        parse: |c, s, _| {
            c.batch.learner_seat = int_opt("learner_seat", s, 0, 255)? as u8;
            Ok(())
        },
        print: |c| c.batch.learner_seat.to_string(),
    },
    OptionDef {
        key: "obs",
        kind: OptionKind::Str,
        default: "compact",
        env_default: None,
        choices: &[],
        flavours: ALL,
        help: "the observation encoding: 'compact' (raw seed counts), 'onehot[:L]' or \
               'thermometer[:L]'",
        parse: |c, s, _| {
            c.batch.obs = s.parse()?;
            Ok(())
        },
        print: |c| c.batch.obs.to_string(),
    },
    OptionDef {
        key: "obs_dtype",
        kind: OptionKind::Dtype,
        default: "float32",
        env_default: None,
        choices: &["float32", "uint8"],
        flavours: &["batch", "env", "vector", "pettingzoo"],
        help: "the observations' element type: 'float32' or 'uint8'",
        parse: |c, s, _| {
            c.obs_dtype = s.parse()?;
            Ok(())
        },
        print: |c| c.obs_dtype.name().to_string(),
    },
    OptionDef {
        key: "opening",
        kind: OptionKind::Opening,
        default: "0",
        env_default: None,
        choices: &[],
        flavours: GYM,
        help: "random plies at each reset, for diversity: a number, or a (min, max) pair",
        parse: |c, s, _| {
            let max = u32::MAX as i64;
            c.batch.opening = match s.split_once("..") {
                Some((lo, hi)) => Opening::between(
                    int_opt("opening min plies", lo, 0, max)? as u32,
                    int_opt("opening max plies", hi, 0, max)? as u32,
                ),
                None => Opening::plies(int_opt("opening", s, 0, max)? as u32),
            };
            Ok(())
        },
        print: |c| {
            let o = c.batch.opening;
            if o.min_plies == o.max_plies {
                o.min_plies.to_string()
            } else {
                format!("{}..{}", o.min_plies, o.max_plies)
            }
        },
    },
    OptionDef {
        key: "illegal",
        kind: OptionKind::Str,
        default: "error",
        env_default: None,
        choices: &["error", "loss"],
        flavours: &["batch", "env", "vector", "sb3", "rllib"],
        help: "what an illegal action does: 'error' (raise IllegalActionError) or 'loss' (the \
               offender loses at once)",
        parse: |c, s, _| {
            c.batch.illegal = s.parse()?;
            Ok(())
        },
        print: |c| c.batch.illegal.to_string(),
    },
    OptionDef {
        key: "render_mode",
        kind: OptionKind::OptStr,
        default: "none",
        env_default: None,
        choices: &["human", "ansi", "rgb_array"],
        flavours: &["env", "vector", "pettingzoo"],
        help: "None, 'ansi' (render() returns text), 'human' (prints it) or 'rgb_array' (a \
               picture; not in PettingZoo)",
        parse: |c, s, _| {
            c.render_mode = match s {
                "none" => None,
                _ => Some(choice_opt("render_mode", s, &["human", "ansi", "rgb_array"])?.into()),
            };
            Ok(())
        },
        print: |c| c.render_mode.clone().unwrap_or_else(|| "none".into()),
    },
    OptionDef {
        key: "copy",
        kind: OptionKind::Bool,
        default: "true",
        env_default: None,
        choices: &[],
        flavours: &["env", "vector"],
        help: "return fresh arrays (else views of buffers that the next step overwrites)",
        parse: |c, s, _| {
            c.copy = match s {
                "true" => true,
                "false" => false,
                _ => return Err(bad_opt(format!("copy must be true or false, got '{s}'"))),
            };
            Ok(())
        },
        print: |c| c.copy.to_string(),
    },
    OptionDef {
        key: "obs_mode",
        kind: OptionKind::Str,
        default: "array",
        env_default: None,
        choices: &["array", "dict"],
        flavours: &["env", "vector"],
        help: "'array' (the encoding; the mask is in info['action_mask']) or 'dict' \
               ({'observation', 'action_mask'}, as RLlib's and TorchRL's masked models read)",
        parse: |c, s, _| {
            c.obs_mode = match choice_opt("obs_mode", s, &["array", "dict"])? {
                "dict" => ObsMode::Dict,
                _ => ObsMode::Array,
            };
            Ok(())
        },
        print: |c| {
            match c.obs_mode {
                ObsMode::Array => "array",
                ObsMode::Dict => "dict",
            }
            .to_string()
        },
    },
    OptionDef {
        key: "threads",
        kind: OptionKind::Int {
            min: 0,
            max: MAX_THREADS_I,
        },
        default: "1",
        env_default: Some("0"),
        choices: &[],
        flavours: &["batch", "vector", "sb3"],
        help: "worker threads, the calling thread included (0: one per core); outputs never \
               depend on it. Each thread takes at least 256 boards",
        parse: |c, s, _| {
            c.batch.threads = int_opt("threads", s, 0, MAX_THREADS_I)? as usize;
            Ok(())
        },
        print: |c| c.batch.threads.to_string(),
    },
    OptionDef {
        key: "reset_mode",
        kind: OptionKind::Str,
        default: "next_step",
        env_default: None,
        choices: &["next_step", "same_step", "disabled"],
        flavours: &["batch"],
        help: "when ended episodes restart: 'next_step', 'same_step' or 'disabled' (Gymnasium's \
               autoreset modes)",
        parse: |c, s, _| {
            c.batch.reset_mode = s.parse()?;
            Ok(())
        },
        print: |c| c.batch.reset_mode.name().to_string(),
    },
    OptionDef {
        key: "seed",
        kind: OptionKind::Seed,
        default: "0",
        env_default: None,
        choices: &[],
        flavours: &["batch"],
        help: "the master seed: board i draws from its own stream i of it",
        parse: |c, s, _| {
            c.batch.seed = s.trim().parse().map_err(|_| {
                bad_opt(format!(
                    "seed must be an integer from 0 to 2**64-1, got {s}"
                ))
            })?;
            Ok(())
        },
        print: |c| c.batch.seed.to_string(),
    },
    OptionDef {
        key: "obs_scale",
        kind: OptionKind::Str,
        default: "raw",
        env_default: None,
        choices: &["raw", "network"],
        flavours: ALL,
        help: "'raw' (seed counts and 0/1 slots as the encoding writes them) or 'network' (times \
               the trainer's input scales: what a trained network of this encoding takes, as \
               awale.Network.encode writes it; float32 only)",
        parse: |c, s, _| {
            c.batch.obs_scale = s.parse()?;
            Ok(())
        },
        print: |c| c.batch.obs_scale.to_string(),
    },
];

#[cfg(test)]
mod option_tests {
    use super::*;

    #[test]
    fn keys_are_unique_and_flavours_known() {
        for (i, o) in OPTIONS.iter().enumerate() {
            assert!(
                OPTIONS[..i].iter().all(|p| p.key != o.key),
                "{} twice",
                o.key
            );
            assert!(!o.flavours.is_empty(), "{} has no flavour", o.key);
            for f in o.flavours {
                assert!(FLAVOURS.contains(f), "{}: unknown flavour {f}", o.key);
            }
        }
        assert_eq!(
            OPTIONS[0].key, "rules",
            "rules first: the opponent is read against them"
        );
    }

    #[test]
    fn defaults_are_the_configs_and_print_back() {
        let reg = Registry::builtin();
        let fresh = EnvConfig::default();
        for o in OPTIONS {
            assert_eq!((o.print)(&fresh), o.default, "{}: default", o.key);
            for flavour in FLAVOURS {
                let mut c = EnvConfig::default();
                (o.parse)(&mut c, o.default_for(flavour), &reg).unwrap();
                assert_eq!((o.print)(&c), o.default_for(flavour), "{}", o.key);
            }
        }
    }

    #[test]
    fn every_option_round_trips_a_non_default_value() {
        let reg = Registry::builtin();
        let values = [
            ("rules", "oware3"),
            ("num_boards", "7"),
            ("opponent", "league:random|capture"),
            ("learner_seat", "2"),
            ("obs", "onehot:8"),
            ("obs_dtype", "uint8"),
            ("opening", "2..5"),
            ("illegal", "loss"),
            ("render_mode", "ansi"),
            ("copy", "false"),
            ("obs_mode", "dict"),
            ("threads", "3"),
            ("reset_mode", "same_step"),
            ("seed", "18446744073709551615"),
            ("obs_scale", "network"),
        ];
        assert_eq!(values.len(), OPTIONS.len());
        let mut c = EnvConfig::default();
        for (k, v) in values {
            assert_ne!(find_option(k).unwrap().default, v, "{k}");
            c.set(k, v, &reg).unwrap();
        }
        c.batch.validate().unwrap();
        // Scaled observations are fractions: uint8 is refused across the options.
        assert!(c.validate().unwrap_err().to_string().contains("float32"));
        c.set("obs_dtype", "float32", &reg).unwrap();
        c.validate().unwrap();
        c.set("obs_dtype", "uint8", &reg).unwrap();
        let mut again = EnvConfig::default();
        for o in OPTIONS {
            again.set(o.key, &c.get(o.key).unwrap(), &reg).unwrap();
        }
        for (k, v) in values {
            assert_eq!(again.get(k).unwrap(), v, "{k}");
        }
    }

    #[test]
    fn options_set_get_and_give_the_spaces() {
        let reg = Registry::builtin();
        let mut cfg = EnvConfig::default();
        cfg.set("opening", "2..5", &reg).unwrap();
        assert_eq!(cfg.get("opening").unwrap(), "2..5");
        assert_eq!(cfg.get("seed").unwrap(), "0");
        cfg.set("opponent", "alphabeta:depth=2", &reg).unwrap();
        assert!(cfg.set("colour", "red", &reg).is_err());
        let (obs, act) = cfg.spaces().unwrap();
        assert_eq!((obs.dim(), obs.dtype, act.n), (16, ObsDtype::Float32, 6));
        for key in SPACE_OPTIONS {
            assert!(find_option(key).is_some(), "{key}");
        }
    }

    #[test]
    fn bad_values_name_the_option() {
        let reg = Registry::builtin();
        let mut c = EnvConfig::default();
        for (k, v, words) in [
            ("num_boards", "0", "num_boards"),
            ("threads", "999", "threads"),
            ("obs_mode", "tuple", "obs_mode must be one of array, dict"),
            ("reset_mode", "sometimes", "reset mode"),
            ("illegal", "maybe", "illegal"),
            ("opening", "x..2", "opening"),
            ("obs_dtype", "int16", "dtype"),
            ("seed", "-1", "seed"),
            ("obs_scale", "unit", "obs_scale must be 'raw' or 'network'"),
            ("nope", "1", "unknown option 'nope'"),
        ] {
            let e = c.set(k, v, &reg).unwrap_err().to_string();
            assert!(e.contains(words), "{k}={v}: {e}");
        }
    }
}
