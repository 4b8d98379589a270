//! What a client may ask of `awale serve`: the caps on every costly agent option, and the only
//! files a client can name (a network by its name in `--networks`, the server's own tables).
//! Agent specs come from the request; this module checks them before any agent is built, so
//! that no request chooses the server's resources or reads its file system.

use std::path::{Path, PathBuf};

use awale::agents::{AgentSpec, Cost, RegistryEntry};
use awale::{Rules, Sowing};

use super::error::{ApiError, ApiResult};

/// The value a client writes for a table option (`tb=server`, `perfect:dir=server`): the
/// server's `--tablebase` folder. Any other value is refused.
pub(super) const SERVER_TABLES: &str = "server";

/// The transposition table (MiB) an `alphabeta` spec allocates without `tt_mb`: the agent's
/// own default.
fn agent_tt_mb() -> u64 {
    awale::agents::AlphaBetaSettings::default().tt_mb as u64
}

/// The operator's limits (the `--max-*` flags of `awale serve`).
#[derive(Debug, Clone)]
pub struct Limits {
    /// Longest move in milliseconds (`--move-time-ms`): `time_ms` above it, or 0 (no limit), is
    /// refused; agents that take `time_ms` get it when their spec has none.
    pub time_ms: u64,
    /// Deepest search (`alphabeta:depth`, `perfect:fallback_depth`).
    pub depth: u64,
    /// Most simulations per move (`mcts:sims`, `nn:sims`).
    pub sims: u64,
    /// Largest transposition table of one agent, in MiB (`alphabeta:tt_mb`).
    pub tt_mb: u64,
    /// Memory the live games' agents (transposition tables, search trees, networks) and the
    /// open tables may hold together, in MiB; the least recently used games are dropped to stay
    /// under it.
    pub memory_mb: u64,
    /// Agents (and hints) thinking at once; more answer 503.
    pub thinking: usize,
    /// Longest game in plies (`--max-plies`): every game ends there at the latest (the rules
    /// option `max_plies`), every replayed game has at most this many moves.
    pub plies: u32,
    /// Games one client address keeps at once (`--max-client-games`): its own least recently
    /// used game goes beyond it, never another client's.
    pub client_games: usize,
}

/// The limits' defaults, which the `--max-*` flags of `awale serve` show too.
pub(super) const DEFAULT_TIME_MS: u64 = 5000;
pub(super) const DEFAULT_DEPTH: u64 = 20;
pub(super) const DEFAULT_SIMS: u64 = 100_000;
pub(super) const DEFAULT_TT_MB: u64 = 64;
pub(super) const DEFAULT_MEMORY_MB: u64 = 1024;
pub(super) const DEFAULT_PLIES: u32 = 2000;
pub(super) const DEFAULT_CLIENT_GAMES: usize = 32;
/// Largest JSON request body (a game record for `/api/replay` may be larger).
pub(super) const BODY_LIMIT: usize = 64 * 1024;
/// Largest `/api/replay` body: a tournament file of a few thousand games.
pub(super) const REPLAY_LIMIT: usize = 16 * 1024 * 1024;
/// Bytes of replay bodies (past the first [`BODY_LIMIT`] of each) the server holds at once, for
/// every client together: two whole bodies.
pub(super) const REPLAY_BODIES: usize = 2 * REPLAY_LIMIT;
/// Bytes of replay bodies one client address holds at once: one whole body (half of
/// [`REPLAY_BODIES`]), so that one client's senders never spend the others' share.
pub(super) const REPLAY_CLIENT_BODIES: usize = REPLAY_LIMIT;
/// Largest `/api/replay` answer (its JSON): a replay that would write more is refused with 413.
pub(super) const REPLAY_ANSWER: usize = 32 * 1024 * 1024;
/// Bytes of replay answers the server holds at once, for every client together (written, or
/// being sent to a reader however slow): two whole answers.
pub(super) const REPLAY_ANSWERS: usize = 2 * REPLAY_ANSWER;
/// Bytes of replay answers one client address holds at once: one whole answer (half of
/// [`REPLAY_ANSWERS`]): its slow readers never hold what every other client's replays need.
pub(super) const REPLAY_CLIENT_ANSWERS: usize = REPLAY_ANSWER;
/// The most relay sowings in one move a rules spec may ask for (`relay_cap`; the relay
/// presets use 200): a move's cost grows with it.
pub(super) const MAX_RELAY_CAP: u16 = 200;

/// One thinking turn per core (the default of `--max-thinking`).
pub(super) fn default_thinking() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            time_ms: DEFAULT_TIME_MS,
            depth: DEFAULT_DEPTH,
            sims: DEFAULT_SIMS,
            tt_mb: DEFAULT_TT_MB,
            memory_mb: DEFAULT_MEMORY_MB,
            thinking: default_thinking(),
            plies: DEFAULT_PLIES,
            client_games: DEFAULT_CLIENT_GAMES,
        }
    }
}

/// Kinds whose move costs next to nothing: they think without a `--max-thinking` permit, so
/// that they never wait behind the costly ones.
pub(super) const INSTANT_KINDS: &[&str] = &["random", "greedy"];

/// Limits and the folders clients may name files in.
#[derive(Debug, Clone, Default)]
pub struct Admission {
    /// The caps.
    pub limits: Limits,
    /// `--networks DIR`: `nn:path=NAME` names a file directly in it.
    pub networks: Option<PathBuf>,
    /// `--tablebase DIR`: the tables of `tb=server` and of `perfect`.
    pub tablebase: Option<PathBuf>,
}

/// A spec a client may run, the memory its agent holds (MiB), and the spec to build it from.
pub(super) struct Admitted {
    pub(super) spec: AgentSpec,
    pub(super) memory_mb: u64,
}

/// A 403 with its reason for an `engine` spec: an engine is a program run on the server's
/// machine, and no client may name one (docs/play.md, the threat model).
pub(super) fn refuse_engine(spec: &AgentSpec) -> ApiResult<()> {
    if spec.kind == "engine" {
        return Err(ApiError::forbidden(
            "engine agents run a program on the server's machine: a client may not name one",
        ));
    }
    Ok(())
}

impl Admission {
    /// Checks a client's `spec` of the kind `entry` against the admission rules and returns the
    /// spec to build: each option capped by its cost class ([`Cost`], declared with the option,
    /// whatever the kind), the server's move time added where the kind has a time option and the
    /// spec sets none, files resolved in the operator's folders. The error says which option and
    /// why, and nothing about the server's files.
    pub(super) fn admit(&self, spec: &AgentSpec, entry: &RegistryEntry) -> ApiResult<Admitted> {
        refuse_engine(spec)?;
        let mut out = AgentSpec::new(spec.kind.clone());
        let lim = &self.limits;
        for (key, value) in &spec.options {
            let number = || -> ApiResult<u64> {
                value
                    .parse::<u64>()
                    .map_err(|_| ApiError::bad(format!("{key}: '{value}' is not a whole number")))
            };
            let cap = |n: u64, max: u64, flag: &str| -> ApiResult<()> {
                if n > max {
                    return Err(ApiError::forbidden(format!(
                        "{key}={n} is over this server's limit of {max} (the operator raises it with {flag})"
                    )));
                }
                Ok(())
            };
            let value = match entry.cost(key) {
                Cost::TimeMs => {
                    let n = number()?;
                    if n == 0 {
                        return Err(ApiError::forbidden(format!(
                            "{key}=0 (no limit) is not allowed here: at most {} ms (--move-time-ms)",
                            lim.time_ms
                        )));
                    }
                    cap(n, lim.time_ms, "--move-time-ms")?;
                    value.clone()
                }
                Cost::Depth => {
                    cap(number()?, lim.depth, "--max-depth")?;
                    value.clone()
                }
                Cost::Simulations => {
                    cap(number()?, lim.sims, "--max-sims")?;
                    value.clone()
                }
                Cost::MemoryMb => {
                    cap(number()?, lim.tt_mb, "--max-tt-mb")?;
                    value.clone()
                }
                Cost::NetworkFile => self.network(value)?,
                Cost::Tables => self.tables(key, value)?,
                Cost::Machine => {
                    return Err(ApiError::forbidden(format!(
                        "{key} names a program or a file of the server's machine: a client may not set it"
                    )))
                }
                Cost::Free if (spec.kind.as_str(), key.as_str()) == ("nn", "baseline") => {
                    baseline_default_sims(value)
                        .map(|_| value.clone())
                        .map_err(ApiError::bad)?
                }
                Cost::Free => value.clone(),
            };
            out.options.push((key.clone(), value));
        }
        // A baseline searches its manifest's simulations unless the spec says, and a network
        // file those of its play settings (an exported baseline): checked against the cap like
        // a given `sims`, and written out so that the agent is built as checked.
        if spec.kind == "nn" && out.get("sims").is_none() {
            let given = match (out.get("baseline"), out.get("path")) {
                (Some(name), _) => Some((
                    format!("baseline={name}"),
                    baseline_default_sims(name).map_err(ApiError::bad)?,
                )),
                (None, Some(file)) => file_default_sims(Path::new(file))
                    .map_err(|e| ApiError::bad(self.scrub(&e)))?
                    .map(|sims| (format!("path={}", spec.get("path").unwrap_or(file)), sims)),
                (None, None) => None,
            };
            if let Some((what, sims)) = given {
                if sims > lim.sims {
                    return Err(ApiError::forbidden(format!(
                        "{what} searches {sims} simulations by default, over this server's limit of {} (give sims=N, or the operator raises --max-sims)",
                        lim.sims
                    )));
                }
                out.options.push(("sims".into(), sims.to_string()));
            }
        }
        if let Some(time) = entry.option_of_cost(Cost::TimeMs) {
            if out.get(time).is_none() {
                out.options.push((time.into(), lim.time_ms.to_string()));
            }
        }
        if spec.kind == "perfect" && out.get("dir").is_none() {
            let dir = self.tables("dir", SERVER_TABLES)?;
            out.options.push(("dir".into(), dir));
        }
        let memory_mb = match spec.kind.as_str() {
            "alphabeta" => out
                .get("tt_mb")
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(agent_tt_mb),
            "perfect" => agent_tt_mb(),
            _ => 0,
        };
        if memory_mb > lim.memory_mb {
            return Err(ApiError::forbidden(format!(
                "the agent needs {memory_mb} MiB, more than this server's {} MiB for all games (--memory-mb)",
                lim.memory_mb
            )));
        }
        Ok(Admitted {
            spec: out,
            memory_mb,
        })
    }

    /// The rules a game of this server is played under: `rules` with the server's ply limit
    /// where it sets none (`max_plies=0`), refused (403) where it asks for more than the
    /// server's limits (`max_plies` over `--max-plies`, `relay_cap` over [`MAX_RELAY_CAP`]; the
    /// engine itself allows at most 255 seeds): every game, and every move of it, stays
    /// bounded whatever its capture and cycle rules.
    pub(super) fn admit_rules(&self, rules: Rules) -> ApiResult<Rules> {
        let lim = &self.limits;
        let mut rules = rules;
        if rules.max_plies > lim.plies {
            return Err(ApiError::forbidden(format!(
                "max_plies={} is over this server's limit of {} plies a game (the operator raises it with --max-plies)",
                rules.max_plies, lim.plies
            )));
        }
        if rules.max_plies == 0 {
            rules.max_plies = lim.plies;
        }
        if rules.sowing == Sowing::Relay && rules.relay_cap > MAX_RELAY_CAP {
            return Err(ApiError::forbidden(format!(
                "relay_cap={} is over this server's limit of {MAX_RELAY_CAP}",
                rules.relay_cap
            )));
        }
        Ok(rules)
    }

    /// The file of network `name` in `--networks`.
    fn network(&self, name: &str) -> ApiResult<String> {
        let Some(dir) = &self.networks else {
            return Err(ApiError::forbidden(
                "this server offers no networks (the operator starts it with --networks DIR)",
            ));
        };
        if !is_plain_name(name) {
            return Err(ApiError::forbidden(format!(
                "path: '{name}' is not a network name: a client names a network listed by GET /api/agents, not a path"
            )));
        }
        let file = dir.join(name);
        if !is_network_file(&file) {
            return Err(ApiError::bad(format!(
                "path: no network named '{name}' (GET /api/agents lists them)"
            )));
        }
        Ok(file.display().to_string())
    }

    /// The server's table folder for a table option (`tb=server`, `dir=server`).
    fn tables(&self, key: &str, value: &str) -> ApiResult<String> {
        if value != SERVER_TABLES {
            return Err(ApiError::forbidden(format!(
                "{key}: clients cannot name folders; write {key}={SERVER_TABLES} for this server's endgame tables"
            )));
        }
        match &self.tablebase {
            Some(dir) => Ok(dir.display().to_string()),
            None => Err(ApiError::forbidden(
                "this server has no endgame tables (the operator starts it with --tablebase DIR)",
            )),
        }
    }

    /// `text` with the operator's folders written as `<networks>` and `<tablebase>`: what a
    /// client reads about the server's files.
    pub(super) fn scrub(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (dir, name) in [
            (&self.networks, "<networks>"),
            (&self.tablebase, "<tablebase>"),
        ] {
            if let Some(dir) = dir {
                out = out.replace(&dir.display().to_string(), name);
            }
        }
        out
    }

    /// The networks clients may name: the files directly in `--networks` (sorted).
    pub(super) fn network_names(&self) -> Vec<String> {
        let Some(dir) = &self.networks else {
            return Vec::new();
        };
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .take(MAX_LISTED)
            .filter(|e| is_network_file(&e.path()))
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| is_plain_name(n))
            .collect();
        names.sort();
        names
    }
}

/// Entries of `--networks` looked at, at most, to list its networks.
const MAX_LISTED: usize = 4096;

/// Whether `path` is a network file: a checkpoint (`awale train`) or a network in
/// safetensors (`awale network export`, `awale.torch.save`), told by its first bytes (the
/// other files of a run folder, `config.toml`, `metrics.jsonl`…, are not networks).
fn is_network_file(path: &Path) -> bool {
    use std::io::Read;
    if !path.is_file() {
        return false;
    }
    let mut head = [0u8; 9];
    let read = std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut head));
    read.is_ok() && (&head[..8] == awale::az::checkpoint::MAGIC || head[8] == b'{')
}

/// A file name with no folder in it: letters, digits, `.`, `_`, `-`, not starting with `.`.
fn is_plain_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 255
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// `dir` as an absolute path without links or `..` (checked at start, so an operator's typo
/// fails early): the form every path the server builds in it takes, and the one scrubbed
/// from answers.
pub(super) fn check_folder(flag: &str, dir: &Path) -> Result<PathBuf, String> {
    match dir.canonicalize() {
        Ok(d) if d.is_dir() => Ok(d),
        _ => Err(format!("{flag} {}: not a folder", dir.display())),
    }
}

/// The default simulations of the shipped baseline `name` (an unknown name: the reason, which
/// lists the names).
#[cfg(feature = "train")]
fn baseline_default_sims(name: &str) -> Result<u64, String> {
    awale::train::baseline::find(name)
        .map(|b| u64::from(b.manifest.play.sims))
        .map_err(|e| format!("baseline: {e}"))
}

/// The default simulations a network file says it plays with (its play settings: an exported
/// baseline), None when it says nothing (the `nn` agent's own default then).
#[cfg(feature = "train")]
fn file_default_sims(file: &Path) -> Result<Option<u64>, String> {
    awale::train::export::play_of_file(file)
        .map(|p| p.map(|p| u64::from(p.sims)))
        .map_err(|e| format!("path: {e}"))
}

/// Without the trainer there are no `nn` agents (and no network files to read).
#[cfg(not(feature = "train"))]
fn file_default_sims(_file: &Path) -> Result<Option<u64>, String> {
    Ok(None)
}

/// Without the trainer there are no `nn` agents, and so no baselines.
#[cfg(not(feature = "train"))]
fn baseline_default_sims(name: &str) -> Result<u64, String> {
    Err(format!(
        "baseline={name}: this server has no nn agents (built without the trainer)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn admission() -> Admission {
        Admission::default()
    }

    /// Admits `text` as the server does, with every kind of this build (`engine` included:
    /// the server removes it from its registry, and admission refuses it anyway).
    fn admit(p: &Admission, text: &str) -> ApiResult<Admitted> {
        let spec: AgentSpec = text.parse().unwrap();
        let registry = awale::agent_kinds::available();
        let entry = registry.entries().iter().find(|e| e.kind == spec.kind);
        p.admit(&spec, entry.expect("a kind of this build"))
    }

    #[test]
    fn caps_refuse_costly_options_and_pass_the_rest() {
        let p = admission();
        for bad in [
            "alphabeta:depth=64",
            "alphabeta:tt_mb=4096",
            "alphabeta:time_ms=0",
            "mcts:time_ms=60000",
            "mcts:sims=4000000000",
            "perfect:fallback_depth=40",
            "engine:cmd=/bin/sh",
        ] {
            let e = admit(&p, bad)
                .err()
                .unwrap_or_else(|| panic!("{bad} admitted"));
            assert_eq!(e.0.as_u16(), 403, "{bad}: {}", e.1);
        }
        let a = admit(&p, "alphabeta:depth=8,tt_mb=32").unwrap();
        assert_eq!(a.spec.get("time_ms"), Some("5000"));
        assert_eq!(a.memory_mb, 32);
        assert_eq!(admit(&p, "alphabeta").unwrap().memory_mb, 16);
        assert_eq!(admit(&p, "mcts:sims=2000").unwrap().memory_mb, 0);
        assert!(admit(&p, "alphabeta:depth=x").is_err());
    }

    #[test]
    fn files_only_by_name_in_the_operator_folders() {
        let dir = std::env::temp_dir().join(format!("awale-admission-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("net.ckpt"), b"AWALECKP and the rest").unwrap();
        std::fs::write(dir.join("config.toml"), b"[search]\nsims = 8\n").unwrap();
        let mut p = admission();
        for text in [
            "nn:path=/etc/passwd",
            "nn:path=net.ckpt",
            "perfect",
            "alphabeta:tb=/tmp",
        ] {
            assert_eq!(admit(&p, text).err().unwrap().0.as_u16(), 403, "{text}");
        }
        p.networks = Some(dir.clone());
        p.tablebase = Some(dir.clone());
        assert_eq!(p.network_names(), vec!["net.ckpt".to_string()]);
        for text in [
            "nn:path=../net.ckpt",
            "nn:path=.hidden",
            "alphabeta:tb=/tmp",
            "perfect:dir=x",
        ] {
            assert_eq!(admit(&p, text).err().unwrap().0.as_u16(), 403, "{text}");
        }
        // A file of the folder that is no network is no network name either.
        assert_eq!(
            admit(&p, "nn:path=config.toml").err().unwrap().0.as_u16(),
            400
        );
        let missing = admit(&p, "nn:path=other.ckpt").err().unwrap();
        assert_eq!(missing.0.as_u16(), 400);
        assert!(
            !missing.1.contains(&dir.display().to_string()),
            "{}",
            missing.1
        );
        let a = admit(&p, "nn:path=net.ckpt,tb=server").unwrap();
        assert_eq!(
            a.spec.get("path"),
            Some(dir.join("net.ckpt").to_str().unwrap())
        );
        assert_eq!(a.spec.get("tb"), Some(dir.to_str().unwrap()));
        assert_eq!(admit(&p, "perfect").unwrap().spec.get("dir"), dir.to_str());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// An exported baseline's file searches its play settings' simulations by default: capped
    /// as a baseline is, and written out so that the agent is built as checked.
    #[cfg(feature = "train")]
    #[test]
    fn a_network_files_default_simulations_are_capped() {
        let dir = std::env::temp_dir().join(format!("awale-admission-play-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let core = awale::train::baseline::find("abapa")
            .unwrap()
            .core()
            .unwrap();
        let sims = core.play().sims;
        awale::train::export::write_safetensors(&core, &dir.join("abapa.safetensors")).unwrap();
        let mut p = admission();
        p.networks = Some(dir.clone());
        let a = admit(&p, "nn:path=abapa.safetensors").unwrap();
        assert_eq!(a.spec.get("sims"), Some(sims.to_string().as_str()));
        assert_eq!(
            admit(&p, "nn:path=abapa.safetensors,sims=3")
                .unwrap()
                .spec
                .get("sims"),
            Some("3")
        );
        p.limits.sims = u64::from(sims) - 1;
        let e = admit(&p, "nn:path=abapa.safetensors").err().unwrap();
        assert_eq!(e.0.as_u16(), 403);
        assert!(
            e.1.contains(&format!(
                "path=abapa.safetensors searches {sims} simulations"
            )) && !e.1.contains(&dir.display().to_string()),
            "{}",
            e.1
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
