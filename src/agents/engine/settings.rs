//! What an `engine:` spec says: the command, the time per move and its margin, the rules the
//! engine plays, its log, and options from an engines file (`file=engines.toml,id=aalina`).

use std::path::{Path, PathBuf};

use super::super::kind::{whole, AgentOption, Cost};

/// The settings of an engine agent (`engine:cmd=PATH,movetime=100`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineSettings {
    /// The program: a path, or a name looked up on `PATH`.
    pub cmd: Option<String>,
    /// Its arguments.
    pub args: Vec<String>,
    /// Milliseconds per move, sent as `go movetime N`.
    pub movetime_ms: u64,
    /// Milliseconds past `movetime` before the move is lost on time.
    pub margin_ms: u64,
    /// Milliseconds allowed for each answer of the handshake (`uciok`, `readyok`).
    pub init_ms: u64,
    /// The rule set the engine plays, when it lists no `UCI_Variant` option (default abapa,
    /// Aalina's).
    pub rules: Option<String>,
    /// Where its stderr goes (default: `engines/NAME.stderr.log` in the run folder, if any).
    pub log: Option<PathBuf>,
    /// An engines file (TOML) to read the entry `id` from.
    pub file: Option<PathBuf>,
    /// The entry of `file`.
    pub id: Option<String>,
    /// `setoption` lines to send after the handshake (from the engines file).
    pub options: Vec<(String, String)>,
}

impl Default for EngineSettings {
    fn default() -> EngineSettings {
        EngineSettings {
            cmd: None,
            args: Vec::new(),
            movetime_ms: 100,
            margin_ms: 1000,
            init_ms: 10_000,
            rules: None,
            log: None,
            file: None,
            id: None,
            options: Vec::new(),
        }
    }
}

/// The most milliseconds a spec may give a move, its margin or the handshake (an hour).
const MAX_MS: u64 = 3_600_000;

fn millis(value: &str) -> Result<u64, String> {
    let ms = whole(value)?;
    if ms > MAX_MS {
        return Err(format!("{ms} ms is more than an hour ({MAX_MS})"));
    }
    Ok(ms)
}

/// The options of `engine:`, in the order they are applied.
pub(super) const OPTIONS: &[AgentOption<EngineSettings>] = &[
    AgentOption {
        key: "file",
        cost: Cost::Machine,
        help: "an engines file (TOML) whose entry `id` gives the other options",
        set: |s, v| {
            s.file = Some(v.into());
            Ok(())
        },
        show: |s| s.file.as_ref().map(|p| p.display().to_string()),
    },
    AgentOption {
        key: "id",
        cost: Cost::Free,
        help: "the entry of the engines file",
        set: |s, v| {
            s.id = Some(v.into());
            s.read_file()
        },
        show: |s| s.id.clone(),
    },
    AgentOption {
        key: "cmd",
        cost: Cost::Machine,
        help: "the program to run: a path, or a name on PATH",
        set: |s, v| {
            s.cmd = Some(v.into());
            Ok(())
        },
        show: |s| s.cmd.clone(),
    },
    AgentOption {
        key: "args",
        cost: Cost::Machine,
        help: "its arguments, separated by spaces",
        set: |s, v| {
            s.args = v.split_whitespace().map(str::to_string).collect();
            Ok(())
        },
        show: |s| (!s.args.is_empty()).then(|| s.args.join(" ")),
    },
    AgentOption {
        key: "movetime",
        cost: Cost::TimeMs,
        help: "milliseconds per move (sent as go movetime N)",
        set: |s, v| {
            s.movetime_ms = millis(v)?;
            Ok(())
        },
        show: |s| Some(s.movetime_ms.to_string()),
    },
    AgentOption {
        key: "margin",
        cost: Cost::TimeMs,
        help: "milliseconds past movetime before the move is lost on time",
        set: |s, v| {
            s.margin_ms = millis(v)?;
            Ok(())
        },
        show: |s| Some(s.margin_ms.to_string()),
    },
    AgentOption {
        key: "init",
        cost: Cost::Machine,
        help: "milliseconds allowed for uciok and each readyok",
        set: |s, v| {
            s.init_ms = millis(v)?;
            Ok(())
        },
        show: |s| Some(s.init_ms.to_string()),
    },
    AgentOption {
        key: "rules",
        cost: Cost::Free,
        help: "the rule set the engine plays if it lists no UCI_Variant (abapa: Aalina's)",
        set: |s, v| {
            s.rules = Some(v.into());
            Ok(())
        },
        show: |s| s.rules.clone(),
    },
    AgentOption {
        key: "log",
        cost: Cost::Machine,
        help: "file its stderr is appended to; without it, engines/NAME.stderr.log in a run folder",
        set: |s, v| {
            s.log = Some(v.into());
            Ok(())
        },
        show: |s| s.log.as_ref().map(|p| p.display().to_string()),
    },
];

/// One entry of an engines file.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FileEntry {
    cmd: String,
    #[serde(default)]
    args: Vec<String>,
    movetime: Option<u64>,
    margin: Option<u64>,
    init: Option<u64>,
    rules: Option<String>,
    log: Option<PathBuf>,
    #[serde(default)]
    options: toml::Table,
}

impl EngineSettings {
    /// Fills the settings from entry `id` of `file` (options the spec gives after `id` still
    /// override it). A relative `cmd` with a `/` is taken from the file's folder.
    fn read_file(&mut self) -> Result<(), String> {
        let (Some(file), Some(id)) = (&self.file, &self.id) else {
            return Err("id needs file=ENGINES.toml before it".into());
        };
        let text = std::fs::read_to_string(file)
            .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        let mut table: toml::Table =
            toml::from_str(&text).map_err(|e| format!("{}: {e}", file.display()))?;
        let known: Vec<String> = table.keys().cloned().collect();
        let value = table.remove(id).ok_or_else(|| {
            format!(
                "{} has no engine '{id}' (it has: {})",
                file.display(),
                known.join(", ")
            )
        })?;
        let entry: FileEntry = value
            .try_into()
            .map_err(|e| format!("{} [{id}]: {e}", file.display()))?;
        let dir = file.parent().unwrap_or(Path::new("."));
        self.cmd = Some(
            if entry.cmd.contains('/') && Path::new(&entry.cmd).is_relative() {
                dir.join(&entry.cmd).display().to_string()
            } else {
                entry.cmd
            },
        );
        self.args = entry.args;
        for (ms, slot) in [
            (entry.movetime, &mut self.movetime_ms),
            (entry.margin, &mut self.margin_ms),
            (entry.init, &mut self.init_ms),
        ] {
            if let Some(ms) = ms {
                *slot = millis(&ms.to_string())?;
            }
        }
        self.rules = entry.rules.or(self.rules.take());
        self.log = entry.log.map(|p| dir.join(p)).or(self.log.take());
        self.options = entry
            .options
            .into_iter()
            .map(|(k, v)| {
                let v = match v {
                    toml::Value::String(s) => s,
                    other => other.to_string(),
                };
                (k, v)
            })
            .collect();
        Ok(())
    }
}
