//! What an `engine:` spec says: the command, the time per move and its margin, the rules the
//! engine plays, its log, and options from an engines file (`file=engines.toml,id=aalina`).

use std::path::{Path, PathBuf};

use crate::agents::kind::{whole, AgentOption, Cost};
use crate::protocol::{printable, uci, Dialect};

/// The settings of an engine agent (`engine:cmd=PATH,move_time_ms=100`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProgramSettings {
    /// The program: a path, or a name looked up on `PATH`.
    pub cmd: Option<String>,
    /// The dialect it speaks (`protocol=uci|jsonl`, default uci).
    pub protocol: &'static dyn Dialect,
    /// Its arguments.
    pub args: Vec<String>,
    /// Milliseconds per move, sent as `go movetime N`.
    pub move_time_ms: u64,
    /// Milliseconds past the move time before the move is lost on time.
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

impl Default for ProgramSettings {
    fn default() -> ProgramSettings {
        ProgramSettings {
            cmd: None,
            protocol: &uci::Uci,
            args: Vec::new(),
            move_time_ms: 100,
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

/// The largest engines file read (bytes, 1 MiB): a bigger one, or a device, is refused before a
/// byte of it is read.
pub const MAX_ENGINES_FILE: u64 = 1 << 20;

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
pub(super) const OPTIONS: &[AgentOption<ProgramSettings>] = &[
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
        key: "protocol",
        cost: Cost::Free,
        help:
            "the protocol it speaks: uci (Aalina's UCI dialect, the default) or jsonl (JSON lines)",
        set: |s, v| {
            s.protocol = crate::protocol::dialect(v)?;
            Ok(())
        },
        show: |s| Some(s.protocol.name().to_string()),
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
        key: "move_time_ms",
        cost: Cost::MoveTimeMs,
        help: "the move time in milliseconds (sent as go movetime N)",
        set: |s, v| {
            s.move_time_ms = millis(v)?;
            Ok(())
        },
        show: |s| Some(s.move_time_ms.to_string()),
    },
    AgentOption {
        key: "margin",
        cost: Cost::MoveTimeMs,
        help: "milliseconds past the move time before the move is lost on time",
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
    protocol: Option<String>,
    move_time_ms: Option<u64>,
    margin: Option<u64>,
    init: Option<u64>,
    rules: Option<String>,
    log: Option<PathBuf>,
    #[serde(default)]
    options: toml::Table,
}

impl ProgramSettings {
    /// Fills the settings from entry `id` of `file` (options the spec gives after `id` still
    /// override it). A relative `cmd` with a `/` is taken from the file's folder.
    fn read_file(&mut self) -> Result<(), String> {
        let (Some(file), Some(id)) = (&self.file, &self.id) else {
            return Err("id needs file=ENGINES.toml before it".into());
        };
        // Never blocks on a FIFO, refuses a device and anything over MAX_ENGINES_FILE unread.
        let text = crate::files::read_regular_string(file, MAX_ENGINES_FILE)
            .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        let mut table: toml::Table = toml::from_str(&text)
            .map_err(|e| format!("{}: {}", file.display(), printable(&e.to_string())))?;
        let known: Vec<String> = table.keys().cloned().collect();
        let value = table.remove(id).ok_or_else(|| {
            format!(
                "{} has no engine '{id}' (it has: {})",
                file.display(),
                printable(&known.join(", "))
            )
        })?;
        if let Some((old, new)) = value.as_table().and_then(|t| {
            t.keys()
                .find_map(|k| crate::agents::kind::renamed_option(k).map(|new| (k, new)))
        }) {
            return Err(format!(
                "{} [{id}]: {} was renamed {new}",
                file.display(),
                printable(old)
            ));
        }
        let entry: FileEntry = value
            .try_into()
            .map_err(|e| format!("{} [{id}]: {}", file.display(), printable(&e.to_string())))?;
        let dir = file.parent().unwrap_or(Path::new("."));
        self.cmd = Some(
            if entry.cmd.contains('/') && Path::new(&entry.cmd).is_relative() {
                dir.join(&entry.cmd).display().to_string()
            } else {
                entry.cmd
            },
        );
        self.args = entry.args;
        if let Some(name) = &entry.protocol {
            self.protocol = crate::protocol::dialect(name)
                .map_err(|why| format!("{} [{id}]: {why}", file.display()))?;
        }
        for (ms, slot) in [
            (entry.move_time_ms, &mut self.move_time_ms),
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
                check_option(&k, &v)
                    .map_err(|why| format!("{} [{id}] options: {why}", file.display()))?;
                Ok((k, v))
            })
            .collect::<Result<_, String>>()?;
        Ok(())
    }
}

/// Refuses an option whose name or value could break the `setoption` line it is sent in: a line
/// end or NUL would let `Hash = "64\ngo infinite"` send a command of its own (any control
/// character but a tab is refused). A name must also be non-empty and hold no word `value`,
/// which would end it early.
pub(super) fn check_option(name: &str, value: &str) -> Result<(), String> {
    for (what, text) in [("name", name), ("value", value)] {
        if let Some(c) = text.chars().find(|&c| c.is_control() && c != '\t') {
            return Err(format!(
                "option '{}': its {what} holds the control character {} (an option is sent as \
                 one line; line ends and NUL are refused)",
                printable(name),
                printable(&c.to_string())
            ));
        }
    }
    if name.split_whitespace().next().is_none() || name.split_whitespace().any(|w| w == "value") {
        return Err(format!(
            "option '{name}': a name must be non-empty and hold no word 'value'"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::AgentSpec;

    /// A fresh folder for a test.
    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("awale-settings-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// The settings of `engine:file=FILE,id=ID`, or the error.
    fn from_file(file: &Path, id: &str) -> Result<ProgramSettings, String> {
        let mut spec = AgentSpec::new("engine");
        spec.options
            .push(("file".into(), file.display().to_string()));
        spec.options.push(("id".into(), id.into()));
        super::super::KIND
            .settings(&spec)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn options_that_would_send_a_command_of_their_own_are_refused() {
        let d = dir("inject");
        let file = d.join("engines.toml");
        for (options, why) in [
            (r#"Hash = "64\ngo infinite""#, "\\x0a"),
            (r#"Hash = "64\rgo infinite""#, "\\x0d"),
            (r#"Hash = "64\u0000""#, "\\x00"),
            (r#""Hash\nquit" = "64""#, "\\x0a"),
            (r#""Hash value 3" = "64""#, "no word 'value'"),
            (r#""" = "64""#, "non-empty"),
        ] {
            std::fs::write(
                &file,
                format!("[bot]\ncmd = \"bot\"\n[bot.options]\n{options}\n"),
            )
            .unwrap();
            let e = from_file(&file, "bot").unwrap_err();
            assert!(e.contains(why), "{options}: {e}");
            assert!(!e.contains('\n') && !e.contains('\0'), "{e:?}");
        }
        std::fs::write(
            &file,
            "[bot]\ncmd = \"bot\"\n[bot.options]\nHash = 64\n\"Book File\" = \"a b.bin\"\n",
        )
        .unwrap();
        let s = from_file(&file, "bot").unwrap();
        assert_eq!(
            s.options,
            [
                ("Book File".to_string(), "a b.bin".to_string()),
                ("Hash".to_string(), "64".to_string())
            ]
        );
        assert!(check_option("UCI_Variant", "abapa\ngo infinite").is_err());
    }

    #[test]
    fn an_engines_file_gives_the_move_time_as_move_time_ms() {
        let d = dir("renamed");
        let file = d.join("engines.toml");
        std::fs::write(&file, "[bot]\ncmd = \"bot\"\nmove_time_ms = 250\n").unwrap();
        assert_eq!(from_file(&file, "bot").unwrap().move_time_ms, 250);
        std::fs::write(&file, "[bot]\ncmd = \"bot\"\nmovetime = 250\n").unwrap();
        let e = from_file(&file, "bot").unwrap_err();
        assert!(
            e.contains("[bot]: movetime was renamed move_time_ms"),
            "{e}"
        );
    }

    #[test]
    fn an_engines_file_over_a_mebibyte_is_refused_unread() {
        let d = dir("big");
        let file = d.join("engines.toml");
        // Sparse: 300 MB that cost no disk and must not be read.
        let f = std::fs::File::create(&file).unwrap();
        f.set_len(300_000_000).unwrap();
        let e = from_file(&file, "bot").unwrap_err();
        assert!(e.contains("over the limit of 1048576 bytes"), "{e}");
        #[cfg(unix)]
        {
            let e = from_file(Path::new("/dev/zero"), "bot").unwrap_err();
            assert!(e.contains("a device"), "{e}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_for_an_engines_file_is_refused_at_once() {
        let d = dir("fifo");
        let file = d.join("engines.toml");
        let c = std::ffi::CString::new(file.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid C string; mkfifo reads it only.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        // Run aside, so that a hang fails the test instead of holding it.
        let (send, got) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = send.send(from_file(&file, "bot"));
        });
        let e = got
            .recv_timeout(std::time::Duration::from_secs(20))
            .expect("reading a FIFO hung")
            .unwrap_err();
        assert!(e.contains("a FIFO"), "{e}");
    }

    #[test]
    fn a_hostile_engines_file_is_shown_escaped() {
        let d = dir("escape");
        let file = d.join("engines.toml");
        std::fs::write(&file, "[\"\\u001b]0;pwned\\u0007\"]\ncmd = \"x\"\n").unwrap();
        let e = from_file(&file, "bot").unwrap_err();
        assert!(e.contains("\\x1b]0;pwned\\x07"), "{e}");
        assert!(!e.chars().any(|c| c.is_control()), "{e:?}");
    }
}
