//! `docs/architecture.md` stays true to the code: every source file of the crate (`src/**/*.rs`,
//! `src/**/*.html`) is named in it by its path (a folder's `mod.rs` by the folder's path), and
//! every `src/…` path it names exists.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

fn source_files(dir: &Path, out: &mut Vec<String>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            source_files(&path, out);
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("rs") | Some("html")
        ) {
            let rel = path.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap();
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

/// The `src/…` paths a text names (a path ends at a character that cannot be in one).
fn named_paths(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(i) = rest.find("src/") {
        let before = rest[..i].chars().next_back();
        let tail = &rest[i..];
        let end = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || "_/.-".contains(c)))
            .unwrap_or(tail.len());
        let path = tail[..end].trim_end_matches('.');
        // `python/awale/…` and other trees are not this crate's `src/`.
        if !matches!(before, Some(c) if c.is_ascii_alphanumeric() || c == '/' || c == '_') {
            out.insert(path.to_string());
        }
        rest = &tail[end.max(4)..];
    }
    out
}

#[test]
fn the_architecture_doc_names_every_source_file_and_only_files_that_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = fs::read_to_string(root.join("docs/architecture.md")).unwrap();
    let named = named_paths(&doc);
    let mut files = Vec::new();
    source_files(&root.join("src"), &mut files);
    assert!(files.len() > 50, "{files:?}");

    let missing: Vec<&String> = files
        .iter()
        .filter(|f| {
            let as_folder = f.strip_suffix("/mod.rs").map(|folder| format!("{folder}/"));
            !named.contains(*f) && !as_folder.is_some_and(|d| named.contains(&d))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "docs/architecture.md does not name these source files (add each to its folder's row): {missing:?}"
    );

    let stale: Vec<&String> = named
        .iter()
        .filter(|p| p.len() > 4 && !root.join(p).exists())
        .collect();
    assert!(
        stale.is_empty(),
        "docs/architecture.md names paths that do not exist: {stale:?}"
    );
}

/// The layer of a top-level module: a module may name modules of its own layer or below only.
/// The engine's files are re-exported at the root, so `crate::rules` is the engine too.
fn layer(module: &str) -> Option<u8> {
    Some(match module {
        "engine" | "board_index" | "choice" | "error" | "game" | "history" | "notation"
        | "perft" | "presets" | "rules" | "state" => 0,
        "batch" => 1,
        "tablebase" => 2,
        "agents" | "elo" | "search" | "sprt" => 3,
        "endgame" | "tournament" | "matchplay" | "bench" => 4,
        "az" => 5,
        "train" => 6,
        "cli" | "python" => 7,
        _ => return None,
    })
}

/// The code of a source file without comments and without its test module (tests may reach
/// higher layers to check a lower one).
fn code_of(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The top-level modules a text names as `crate::m::` or `awale::m::`.
fn named_modules(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for prefix in ["crate::", "awale::"] {
        let mut rest = code;
        while let Some(i) = rest.find(prefix) {
            let tail = &rest[i + prefix.len()..];
            let end = tail
                .find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'))
                .unwrap_or(tail.len());
            if end > 0 && tail[end..].starts_with("::") {
                out.insert(tail[..end].to_string());
            }
            rest = &tail[end..];
        }
    }
    out
}

/// The top-level module a source file belongs to (`src/engine/rules/presets.rs` → `rules`): a
/// child module is a part of its parent, whatever path names it (`crate::presets` is the
/// re-exported `rules::presets`).
fn module_of(file: &str) -> String {
    let rel = file.strip_prefix("src/").unwrap();
    let rel = rel.strip_prefix("engine/").unwrap_or(rel);
    canonical(rel.split(['/', '.']).next().unwrap()).to_string()
}

/// The module that owns a name re-exported at the root.
fn canonical(module: &str) -> &str {
    match module {
        "presets" => "rules",
        other => other,
    }
}

#[test]
fn layers_only_look_down_and_the_engine_has_no_import_cycle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    source_files(&root.join("src"), &mut files);
    let mut upward = Vec::new();
    let mut engine_edges: Vec<(String, String)> = Vec::new();
    for file in files
        .iter()
        .filter(|f| f.ends_with(".rs") && !f.ends_with("/tests.rs"))
    {
        let module = module_of(file);
        let Some(own) = layer(&module) else { continue };
        let code = code_of(&fs::read_to_string(root.join(file)).unwrap());
        for named in named_modules(&code) {
            let named = canonical(&named).to_string();
            let Some(theirs) = layer(&named) else {
                continue;
            };
            if theirs > own {
                upward.push(format!("{file} names {named}"));
            }
            if own == 0 && theirs == 0 && named != module && named != "engine" {
                engine_edges.push((module.clone(), named));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "imports that look up a layer: {upward:#?}"
    );

    // Depth-first search for a cycle among the engine's files.
    engine_edges.sort();
    engine_edges.dedup();
    let nodes: BTreeSet<&str> = engine_edges.iter().map(|(a, _)| a.as_str()).collect();
    fn visit<'a>(
        node: &'a str,
        edges: &'a [(String, String)],
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|&n| n == node) {
            let mut cycle: Vec<String> = path[i..].iter().map(|s| s.to_string()).collect();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node);
        for (_, to) in edges.iter().filter(|(from, _)| from == node) {
            if let Some(c) = visit(to, edges, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(node);
        None
    }
    let mut done = BTreeSet::new();
    for node in nodes {
        let cycle = visit(node, &engine_edges, &mut Vec::new(), &mut done);
        assert!(cycle.is_none(), "an import cycle in the engine: {cycle:?}");
    }
}
