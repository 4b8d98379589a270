//! What a client may ask of `awale serve`: the caps on every costly agent option, and the only
//! files a client can name (a network by its name in `--networks`, the server's own tables).
//! Agent specs come from the request; this module checks them before any agent is built, so
//! that no request chooses the server's resources or reads its file system.

use std::path::{Path, PathBuf};

use awale::agents::{AgentSpec, Cost, Demand, Plan, Registry, RegistryEntry};
use awale::{AwaleError, Rules, Sowing};

use super::error::{ApiError, ApiResult};

/// The value a client writes for a table option (`tb=server`, `perfect:dir=server`): the
/// server's `--tablebase` folder. Any other value is refused.
pub(super) const SERVER_TABLES: &str = "server";

/// The operator's limits (the `--max-*` flags of `awale serve`).
#[derive(Debug, Clone)]
pub struct Limits {
    /// Longest move in milliseconds (`--move-time-ms`): `move_time_ms` above it, or 0 (no
    /// limit), is refused; agents that take `move_time_ms` get it when their spec has none.
    pub move_time_ms: u64,
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
pub(super) const DEFAULT_MOVE_TIME_MS: u64 = 5000;
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
            move_time_ms: DEFAULT_MOVE_TIME_MS,
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

/// A spec a client may run: the spec to build it from (files resolved, the server's defaults
/// added), its kind's plan of it, and the memory its agent holds (MiB).
pub(super) struct Admitted {
    pub(super) spec: AgentSpec,
    pub(super) plan: Plan,
    pub(super) memory_mb: u64,
}

/// The reason of a kind's error about a client's spec (without the spec, which the kind's
/// error repeats).
fn reason_of(e: AwaleError) -> String {
    match e {
        AwaleError::BadAgentSpec { reason, .. } => reason,
        e => e.to_string(),
    }
}

impl Admission {
    /// The kinds a client may name: every kind of `registry` but those that run a program or
    /// touch a file of the machine ([`RegistryEntry::runs_programs`]).
    pub(super) fn offered(registry: &Registry) -> impl Iterator<Item = &RegistryEntry> {
        registry.entries().iter().filter(|e| !e.runs_programs())
    }

    /// Checks a client's `spec` (written `text`) against the admission rules and plans it:
    /// each amount the spec gives capped by its cost class ([`Cost`], declared with the option,
    /// whatever the kind), files resolved in the operator's folders, the server's move time
    /// added where the kind has a time option and the spec sets none (and its tables where a
    /// tables option has a default), then the kind's plan of it — typed settings, every default
    /// resolved (a baseline's simulations) — capped too, and its memory given. The error says
    /// which option and why, and nothing about the server's files. No kind is named here: what a
    /// kind costs, it declares.
    pub(super) fn admit(
        &self,
        registry: &Registry,
        spec: &AgentSpec,
        text: &str,
    ) -> ApiResult<Admitted> {
        let Some(entry) = registry.entries().iter().find(|e| e.kind == spec.kind) else {
            let known: Vec<&str> = Self::offered(registry).map(|e| e.kind.as_str()).collect();
            return Err(ApiError::bad(format!(
                "unknown agent '{}' (known: {})",
                spec.kind,
                known.join(", ")
            )));
        };
        if entry.runs_programs() {
            return Err(ApiError::forbidden(format!(
                "{} agents run a program on the server's machine: a client may not name one",
                entry.kind
            )));
        }
        let kind_error =
            |e: AwaleError| ApiError::bad(format!("{text}: {}", self.scrub(&reason_of(e))));
        registry.kind_of(spec).map_err(kind_error)?;
        for demand in registry
            .given(spec)
            .map_err(|e| ApiError::bad(reason_of(e)))?
        {
            self.cap(&demand, text)?;
        }
        let lim = &self.limits;
        let mut out = AgentSpec::new(spec.kind.clone());
        for (key, value) in &spec.options {
            let value = match entry.cost(key) {
                Cost::NetworkFile => self.network(value)?,
                Cost::Tables => self.tables(key, value)?,
                Cost::Machine => {
                    return Err(ApiError::forbidden(format!(
                        "{key} names a program or a file of the server's machine: a client may not set it"
                    )))
                }
                _ => value.clone(),
            };
            out.options.push((key.clone(), value));
        }
        for option in entry.option_infos() {
            if out.get(&option.key).is_some() {
                continue;
            }
            match option.cost {
                Cost::MoveTimeMs => out
                    .options
                    .push((option.key.clone(), lim.move_time_ms.to_string())),
                Cost::Tables if option.has_default => {
                    let dir = self.tables(&option.key, SERVER_TABLES)?;
                    out.options.push((option.key.clone(), dir));
                }
                _ => {}
            }
        }
        let plan = registry.plan(&out).map_err(kind_error)?;
        for demand in &plan.demands {
            self.cap(demand, text)?;
        }
        // Its memory is checked with the other seats' (`games::admit_seats`), then reserved
        // at the game's insertion.
        Ok(Admitted {
            spec: out,
            memory_mb: plan.memory_bytes.div_ceil(1 << 20),
            plan,
        })
    }

    /// Refuses an amount over its cap (a move time of 0, no limit, too): 403 with the option
    /// and the flag that raises the cap.
    fn cap(&self, demand: &Demand, text: &str) -> ApiResult<()> {
        let lim = &self.limits;
        let Some(n) = demand.amount else {
            return Ok(());
        };
        let (max, flag) = match demand.cost {
            Cost::MoveTimeMs => (lim.move_time_ms, "--move-time-ms"),
            Cost::Depth => (lim.depth, "--max-depth"),
            Cost::Simulations => (lim.sims, "--max-sims"),
            Cost::MemoryMb => (lim.tt_mb, "--max-tt-mb"),
            _ => return Ok(()),
        };
        let key = &demand.key;
        if demand.cost == Cost::MoveTimeMs && n == 0 {
            return Err(ApiError::forbidden(format!(
                "{key}=0 (no limit) is not allowed here: at most {max} ms ({flag})"
            )));
        }
        if n <= max {
            return Ok(());
        }
        Err(ApiError::forbidden(if demand.given {
            format!("{key}={n} is over this server's limit of {max} (the operator raises it with {flag})")
        } else {
            format!("{text} gives {key}={n} by default, over this server's limit of {max} (give {key}=N, or the operator raises {flag})")
        }))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn admission() -> Admission {
        Admission::default()
    }

    /// Admits `text` as the server does, with every kind of this build (`engine` included:
    /// admission refuses it, as every kind that runs a program).
    fn admit(p: &Admission, text: &str) -> ApiResult<Admitted> {
        let spec: AgentSpec = text.parse().unwrap();
        p.admit(&awale::agent_kinds::available(), &spec, text)
    }

    #[test]
    fn caps_refuse_costly_options_and_pass_the_rest() {
        let p = admission();
        for bad in [
            "alphabeta:depth=64",
            "alphabeta:tt_mb=4096",
            "alphabeta:move_time_ms=0",
            "mcts:move_time_ms=60000",
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
        assert_eq!(a.spec.get("move_time_ms"), Some("5000"));
        assert_eq!(a.memory_mb, 32);
        assert_eq!(admit(&p, "alphabeta").unwrap().memory_mb, 16);
        // A tree's memory at its whole budget is known before the agent is built.
        let mcts = admit(&p, "mcts:sims=2000").unwrap();
        assert_eq!(mcts.memory_mb, mcts.plan.memory_bytes.div_ceil(1 << 20));
        assert!(mcts.plan.memory_bytes > 0 && !mcts.plan.instant);
        assert!(admit(&p, "random").unwrap().plan.instant);
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
        // A file of the folder named by a client is read by the kind's plan (not a network
        // here): the reason, and nothing of the folder.
        let e = admit(&p, "nn:path=net.ckpt,tb=server").err().unwrap();
        assert_eq!(e.0.as_u16(), 400, "{}", e.1);
        assert!(!e.1.contains(&dir.display().to_string()), "{}", e.1);
        let a = admit(&p, "alphabeta:tb=server").unwrap();
        assert_eq!(a.spec.get("tb"), Some(dir.to_str().unwrap()));
        assert!(a.plan.uses_tables());
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
        let core = awale::network::baseline::find("abapa")
            .unwrap()
            .core()
            .unwrap();
        let sims = core.play().sims;
        awale::network::export::write_safetensors(&core, &dir.join("abapa.safetensors")).unwrap();
        let mut p = admission();
        p.networks = Some(dir.clone());
        let sims_of = |a: Admitted| a.plan.demand(Cost::Simulations).unwrap().amount;
        let a = admit(&p, "nn:path=abapa.safetensors").unwrap();
        assert_eq!(
            a.spec.get("path"),
            Some(dir.join("abapa.safetensors").to_str().unwrap())
        );
        assert_eq!(sims_of(a), Some(u64::from(sims)));
        assert_eq!(
            sims_of(admit(&p, "nn:path=abapa.safetensors,sims=3").unwrap()),
            Some(3)
        );
        p.limits.sims = u64::from(sims) - 1;
        let e = admit(&p, "nn:path=abapa.safetensors").err().unwrap();
        assert_eq!(e.0.as_u16(), 403);
        assert!(
            e.1.contains(&format!(
                "nn:path=abapa.safetensors gives sims={sims} by default"
            )) && !e.1.contains(&dir.display().to_string()),
            "{}",
            e.1
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
