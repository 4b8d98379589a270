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
