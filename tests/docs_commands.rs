//! Every `awale` command line that the documentation shows parses with the real command line.
//!
//! The test reads README.md, python/README.md and docs/*.md, takes the shell code blocks (fenced
//! with no language, `sh`, `bash`, `shell` or `console`), joins continued lines, splits each line
//! as a shell would (quotes, backslashes, comments, `|`, `&&`, `;`, redirections), and keeps
//! the commands that run the binary:
//!
//! - `awale …`, `$ awale …`, `./target/release/awale …` (any path ending in `/awale`);
//! - `cargo run [flags] -- …` (the part after `--`);
//! - `python -m awale …` (or `python3`, or any path ending in `/python`).
//!
//! Each is parsed by clap with `awale::cli::Cli`, as the binary parses it; `--help` and
//! `--version` count as parsing. A failure names the file and line. Subcommands behind a cargo
//! feature this build lacks (`train`, `serve`) are counted as skipped.
//!
//! Placeholders: a shell variable or substitution (`$t`, `$((t-1))`, `$(ls …)`) stands for `1`.
//! That is the only substitution; write runnable examples rather than `FILE` or `<command>`.
#![cfg(feature = "cli")]

use std::path::{Path, PathBuf};

use clap::error::ErrorKind;
use clap::Parser;

/// A shell token: a word (quotes removed) or an operator (`|`, `&&`, `;`, `>`, `(` …).
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Word(String),
    Op(String),
}

/// What a variable or a substitution (`$x`, `${x}`, `$(…)`, `$((…))`) stands for.
const VARIABLE: &str = "1";

/// Splits one (already joined) shell line into words and operators; a `#` that starts a word
/// starts a comment. Errors on an unclosed quote.
fn split_shell(line: &str) -> Result<Vec<Tok>, String> {
    let mut toks = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                if in_word {
                    toks.push(Tok::Word(std::mem::take(&mut cur)));
                    in_word = false;
                }
            }
            '#' if !in_word => break,
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(ch) => cur.push(ch),
                        None => return Err("unclosed '".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(ch @ ('"' | '\\' | '$' | '`')) => cur.push(ch),
                            Some(ch) => {
                                cur.push('\\');
                                cur.push(ch);
                            }
                            None => return Err("unclosed \"".into()),
                        },
                        Some('$') => substitute(&mut chars, &mut cur)?,
                        Some(ch) => cur.push(ch),
                        None => return Err("unclosed \"".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(ch) = chars.next() {
                    cur.push(ch);
                }
            }
            '$' => {
                in_word = true;
                substitute(&mut chars, &mut cur)?;
            }
            '|' | '&' | ';' | '<' | '>' | '(' | ')' => {
                if in_word {
                    // `2>` and `2>&1`: the digits are a file descriptor, not a word.
                    let fd = (c == '<' || c == '>') && cur.chars().all(|d| d.is_ascii_digit());
                    let word = std::mem::take(&mut cur);
                    if !fd {
                        toks.push(Tok::Word(word));
                    }
                    in_word = false;
                }
                let mut op = c.to_string();
                while let Some(&n) = chars.peek() {
                    let joins = matches!(
                        (c, n),
                        ('|', '|') | ('&', '&') | ('>', '>') | ('>', '&') | ('<', '<') | ('&', '>')
                    );
                    if !joins {
                        break;
                    }
                    op.push(n);
                    chars.next();
                }
                toks.push(Tok::Op(op));
            }
            _ => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        toks.push(Tok::Word(cur));
    }
    Ok(toks)
}

/// After a `$`: consumes a variable name, `{…}`, `(…)` or `((…))` and writes [`VARIABLE`]; a
/// `$` followed by nothing of these is a literal `$` (the prompt of `$ awale …`).
fn substitute(
    chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
    cur: &mut String,
) -> Result<(), String> {
    match chars.peek().copied() {
        Some('(') | Some('{') => {
            let (open, close) = if chars.peek() == Some(&'(') {
                ('(', ')')
            } else {
                ('{', '}')
            };
            let mut depth = 0usize;
            loop {
                match chars.next() {
                    Some(ch) if ch == open => depth += 1,
                    Some(ch) if ch == close => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    Some(_) => {}
                    None => return Err(format!("unclosed ${open}")),
                }
            }
            cur.push_str(VARIABLE);
        }
        Some(ch) if ch.is_ascii_alphanumeric() || ch == '_' || ch == '@' || ch == '*' => {
            while matches!(chars.peek(), Some(ch) if ch.is_ascii_alphanumeric() || *ch == '_') {
                chars.next();
            }
            if matches!(chars.peek(), Some('@') | Some('*')) {
                chars.next();
            }
            cur.push_str(VARIABLE);
        }
        _ => cur.push('$'),
    }
    Ok(())
}

/// Splits the tokens into simple commands (at `|`, `||`, `&&`, `;`, `&`, parentheses), each a
/// list of words, with redirections and their targets removed.
fn simple_commands(toks: &[Tok]) -> Vec<Vec<String>> {
    let mut out = vec![Vec::new()];
    let mut skip_target = false;
    for t in toks {
        match t {
            Tok::Word(_) if skip_target => skip_target = false,
            Tok::Word(w) => out.last_mut().unwrap().push(w.clone()),
            Tok::Op(op) if op.starts_with('>') || op.starts_with('<') || op == "&>" => {
                skip_target = true
            }
            Tok::Op(_) => out.push(Vec::new()),
        }
    }
    out.retain(|c| !c.is_empty());
    out
}

/// The arguments given to the `awale` binary by a simple command, if it runs it.
fn awale_args(words: &[String]) -> Option<Vec<String>> {
    let mut i = 0;
    // Words that only wrap a command: shell keywords, `VAR=value`, `env`, `time`, `taskset -c L`.
    while i < words.len() {
        let w = words[i].as_str();
        let assignment = w.split_once('=').is_some_and(|(name, _)| {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit())
        });
        if matches!(
            w,
            "$" | "do" | "then" | "else" | "time" | "env" | "exec" | "sudo" | "!"
        ) || assignment
        {
            i += 1;
        } else if w == "taskset" {
            i += 1;
            while i < words.len() && words[i].starts_with('-') {
                i += 1;
            }
            i += 1; // the CPU list
        } else {
            break;
        }
    }
    let words = words.get(i..)?;
    let first = words.first()?.as_str();
    let base = first.rsplit('/').next().unwrap_or(first);
    if base == "awale" {
        return Some(words[1..].to_vec());
    }
    if first == "cargo" && words.get(1).map(String::as_str) == Some("run") {
        let dashes = words.iter().position(|w| w == "--");
        return Some(dashes.map_or(Vec::new(), |k| words[k + 1..].to_vec()));
    }
    if (base.starts_with("python"))
        && words.get(1).map(String::as_str) == Some("-m")
        && words.get(2).map(String::as_str) == Some("awale")
    {
        return Some(words[3..].to_vec());
    }
    None
}

/// A command line found in a document.
#[derive(Debug)]
struct Found {
    file: String,
    line: usize,
    text: String,
    args: Vec<String>,
}

/// The `awale` commands of one document's shell code blocks.
fn commands_in(file: &str, text: &str) -> Result<Vec<Found>, String> {
    let mut found = Vec::new();
    let mut fence: Option<(String, bool)> = None; // (the fence's backticks, a shell block)
    let mut pending: Option<(usize, String)> = None; // a line continued with `\`
    for (k, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            let ticks: String = trimmed.chars().take_while(|&c| c == '`').collect();
            match &fence {
                None => {
                    let lang = trimmed[ticks.len()..].trim();
                    let lang = lang.split([' ', ',', '{']).next().unwrap_or("");
                    let shell = matches!(lang, "" | "sh" | "bash" | "shell" | "console" | "zsh");
                    fence = Some((ticks, shell));
                }
                Some((open, _)) if trimmed.trim_end() == open.as_str() => fence = None,
                Some(_) => {}
            }
            pending = None;
            continue;
        }
        let Some((_, true)) = &fence else { continue };
        let (start, mut joined) = pending.take().unwrap_or((k + 1, String::new()));
        // A `\` at the end continues the line (not one inside a comment).
        let code_end = line.trim_end();
        if let Some(head) = code_end.strip_suffix('\\') {
            if !head.contains(" #") {
                joined.push_str(head);
                joined.push(' ');
                pending = Some((start, joined));
                continue;
            }
        }
        joined.push_str(line);
        let toks = split_shell(&joined).map_err(|e| format!("{file}:{start}: {e}: {joined}"))?;
        for words in simple_commands(&toks) {
            if let Some(args) = awale_args(&words) {
                found.push(Found {
                    file: file.to_string(),
                    line: start,
                    text: joined.trim().to_string(),
                    args,
                });
            }
        }
    }
    Ok(found)
}

/// README.md, python/README.md and every docs/*.md, relative to the crate.
fn documents() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/ exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    let mut files = vec![root.join("README.md"), root.join("python/README.md")];
    files.extend(docs);
    files
}

/// Subcommands that exist only with a cargo feature, and whether this build has it.
fn feature_missing(args: &[String]) -> Option<&'static str> {
    let sub = args.iter().find(|a| !a.starts_with('-'))?;
    match sub.as_str() {
        "train" | "ladder" if !cfg!(feature = "train") => Some("train"),
        "serve" if !cfg!(feature = "serve") => Some("serve"),
        _ => None,
    }
}

#[test]
fn every_documented_command_parses() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    let mut errors = Vec::new();
    for path in documents() {
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.strip_prefix(root).unwrap().display().to_string();
        match commands_in(&name, &text) {
            Ok(f) => found.extend(f),
            Err(e) => errors.push(e),
        }
    }
    let (mut checked, mut skipped) = (0, 0);
    for f in &found {
        if let Some(feature) = feature_missing(&f.args) {
            eprintln!(
                "skipped (needs feature `{feature}`): {}:{}: {}",
                f.file, f.line, f.text
            );
            skipped += 1;
            continue;
        }
        checked += 1;
        let argv = std::iter::once("awale".to_string()).chain(f.args.iter().cloned());
        match awale::cli::Cli::try_parse_from(argv) {
            Ok(_) => {}
            Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {}
            Err(e) => {
                let msg = e.to_string();
                let first = msg.lines().next().unwrap_or("").to_string();
                errors.push(format!("{}:{}: {}\n    {first}", f.file, f.line, f.text));
            }
        }
    }
    eprintln!(
        "{} documented commands: {checked} parsed with the command line, {skipped} skipped",
        found.len()
    );
    assert!(
        errors.is_empty(),
        "documented commands that do not parse:\n{}",
        errors.join("\n")
    );
    assert!(
        checked >= 20,
        "only {checked} documented commands found; is the extraction broken?"
    );
}

#[test]
fn the_splitter_reads_shell_lines() {
    let words = |line: &str| -> Vec<Vec<String>> { simple_commands(&split_shell(line).unwrap()) };
    assert_eq!(
        words(r#"$ awale show "abapa 0,0,0,0,0,2/1,2,5,0,0,0 20,18 0"  # a board"#),
        [[
            "$",
            "awale",
            "show",
            "abapa 0,0,0,0,0,2/1,2,5,0,0,0 20,18 0"
        ]]
    );
    assert_eq!(
        words("cp a 'b c' && cat x/*.jsonl > all/games.jsonl 2>&1 | tee log"),
        vec![
            vec!["cp", "a", "b c"],
            vec!["cat", "x/*.jsonl"],
            vec!["tee", "log"]
        ]
    );
    assert_eq!(
        words("taskset -c 0-$((t-1)) ./target/release/awale bench --threads $t"),
        [[
            "taskset",
            "-c",
            "0-1",
            "./target/release/awale",
            "bench",
            "--threads",
            "1"
        ]]
    );
    let args = |line: &str| awale_args(&words(line)[0]);
    assert_eq!(
        args("cargo run --release --features train -- train --fresh"),
        Some(vec!["train".to_string(), "--fresh".to_string()])
    );
    assert_eq!(
        args("python -m awale rules abapa"),
        Some(vec!["rules".to_string(), "abapa".to_string()])
    );
    assert_eq!(
        args("AWALE_X=1 taskset -c 0 awale rules"),
        Some(vec!["rules".to_string()])
    );
    assert_eq!(args("pip install awale"), None);
    assert!(split_shell("awale show 'abapa").is_err());
}

/// The README is a newcomer's entry: what awale is, the two commands, an example of each kind of
/// use and links; reference and history live in docs/ and the CHANGELOG.
#[test]
fn the_readme_stays_short() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines < 200,
        "README.md has {lines} lines: move reference to docs/ and history to the CHANGELOG"
    );
}

/// Modules of the engine that the crate re-exports at its root (`awale::notation`, …).
const ENGINE_MODULES: &[&str] = &[
    "board_index",
    "choice",
    "error",
    "game",
    "history",
    "notation",
    "perft",
    "presets",
    "rules",
    "state",
    "utility",
];

/// The file of module `path` (`["az", "selfplay"]`), if the crate has that module.
fn module_file(root: &Path, path: &[&str]) -> Option<PathBuf> {
    let mut parts: Vec<&str> = path.to_vec();
    if ENGINE_MODULES.contains(&parts[0]) {
        parts.insert(0, "engine");
    }
    let base = root.join("src").join(parts.join("/"));
    [base.with_extension("rs"), base.join("mod.rs")]
        .into_iter()
        .find(|f| f.is_file())
}

/// Whether the module text `src` defines `name` (a test function or module included) or
/// re-exports it.
fn defines(src: &str, name: &str) -> bool {
    let word = |text: &str| {
        text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|w| w == name)
    };
    const KINDS: [&str; 9] = [
        "fn",
        "struct",
        "enum",
        "trait",
        "type",
        "const",
        "static",
        "mod",
        "macro_rules!",
    ];
    let item = src.lines().any(|line| {
        let l = line.trim_start();
        KINDS.iter().any(|kind| {
            l.split_once(&format!("{kind} {name}"))
                .is_some_and(|(before, rest)| {
                    (before.is_empty() || before.ends_with(' '))
                        && !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_')
                })
        })
    });
    // `pub use path::{A, B};` over one line or several: the last segment of each.
    let reexport = src.split("pub use ").skip(1).any(|tail| {
        let stmt = tail.split(';').next().unwrap_or("");
        stmt.split(['{', '}', ',']).any(|p| {
            let p = p.trim();
            let last = p.rsplit(" as ").next().unwrap_or(p);
            word(last.rsplit("::").next().unwrap_or(last))
        })
    });
    item || reexport
}

/// Every path into this crate that the docs name in code spans (`az::selfplay::SelfPlay`,
/// `awale::search::Search`) exists: each module in it is a module of the crate and the first
/// item after them is defined (or re-exported) there. A renamed or deleted module or item
/// leaves no stale name behind in the docs (the CHANGELOG, which is history, is not read).
#[test]
fn the_docs_name_only_modules_and_items_the_crate_has() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = documents();
    let mut stale = Vec::new();
    let mut checked = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            for (k, span) in line.split('`').enumerate() {
                if k % 2 == 0 {
                    continue;
                }
                for token in span.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')) {
                    let token = token
                        .strip_prefix("awale::")
                        .or_else(|| token.strip_prefix("crate::"))
                        .unwrap_or(token);
                    let segs: Vec<&str> = token.split("::").collect();
                    if segs.len() < 2
                        || segs.iter().any(|s| s.is_empty())
                        || module_file(root, &segs[..1]).is_none()
                    {
                        continue;
                    }
                    checked += 1;
                    let mut depth = 1;
                    while depth < segs.len() && module_file(root, &segs[..=depth]).is_some() {
                        depth += 1;
                    }
                    if depth == segs.len() {
                        continue;
                    }
                    let module = module_file(root, &segs[..depth]).unwrap();
                    if !defines(&std::fs::read_to_string(&module).unwrap(), segs[depth]) {
                        stale.push(format!(
                            "{}:{}: `{token}`: {} is not in {}",
                            file.strip_prefix(root).unwrap().display(),
                            n + 1,
                            segs[depth],
                            module.strip_prefix(root).unwrap().display()
                        ));
                    }
                }
            }
        }
    }
    assert!(checked > 20, "only {checked} paths found in the docs");
    assert!(
        stale.is_empty(),
        "the docs name what the code no longer has:\n{}",
        stale.join("\n")
    );
}

/// The anchors of a Markdown page's headings, as GitHub writes them (lower case, punctuation
/// dropped, spaces as `-`, a repeated heading suffixed `-1`, `-2`…).
fn anchors(page: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut fenced = false;
    for line in page.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        }
        let Some(text) = line.strip_prefix('#') else {
            continue;
        };
        if fenced || !text.trim_start_matches('#').starts_with(' ') {
            continue;
        }
        let slug: String = text
            .trim_start_matches('#')
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let seen = out
            .iter()
            .filter(|a| {
                **a == slug
                    || a.strip_prefix(&format!("{slug}-"))
                        .is_some_and(|n| n.parse::<u32>().is_ok())
            })
            .count();
        out.push(if seen == 0 {
            slug
        } else {
            format!("{slug}-{seen}")
        });
    }
    out
}

/// Every link of the docs to a file of this repository leads to one, and to a heading of it
/// when it names one (links to the repository on GitHub included; other sites are not fetched).
#[test]
fn the_docs_links_lead_somewhere() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pages = documents();
    pages.push(root.join("training/README.md"));
    let mut broken = Vec::new();
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        for (i, _) in text.match_indices("](") {
            let rest = &text[i + 2..];
            let Some(link) = rest
                .split(')')
                .next()
                .filter(|l| !l.contains(char::is_whitespace))
            else {
                continue;
            };
            let (base, link) = match link.split_once("awale-rl/awale/blob/main/") {
                Some((_, tail)) => (root, tail),
                None if link.contains("://") || link.starts_with("mailto:") => continue,
                None => (page.parent().unwrap(), link),
            };
            let (path, anchor) = link.split_once('#').unwrap_or((link, ""));
            let target = if path.is_empty() {
                page.clone()
            } else {
                base.join(path)
            };
            let name = page.strip_prefix(root).unwrap().display().to_string();
            if !target.exists() {
                broken.push(format!("{name}: {link}: no such file"));
            } else if !anchor.is_empty()
                && target.extension().is_some_and(|x| x == "md")
                && !anchors(&std::fs::read_to_string(&target).unwrap())
                    .iter()
                    .any(|a| a == anchor)
            {
                broken.push(format!("{name}: {link}: no such heading"));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}
