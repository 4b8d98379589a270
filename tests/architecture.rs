//! `docs/architecture.md` stays true to the code: every source file of the crate (`src/**/*.rs`,
//! `src/**/*.html`) is named in it by its path (a folder's `mod.rs` by the folder's path), and
//! every `src/…` path it names exists.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

mod architecture_graph;
use architecture_graph::Graph;

/// Every source file of `src/` (Rust and the page), relative to the crate root.
fn source_files(dir: &Path, out: &mut Vec<String>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    architecture_graph::files_with(dir, root, &["rs", "html"], out);
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
/// The engine's files are re-exported at the root, so `crate::rules` is the engine too. The
/// ratings' files (`src/ratings/`) sit on the layers of what they use: the fits below the
/// tournaments, the runs that rate beside them, the training runs' ratings beside `az`.
fn layer(module: &str) -> Option<u8> {
    Some(match module {
        "engine" | "board_index" | "choice" | "error" | "game" | "history" | "notation"
        | "perft" | "presets" | "rules" | "state" | "utility" | "digest" | "files" => 0,
        "batch" | "tablebase" => 1,
        "agents" | "elo" | "placing" | "protocol" | "search" | "sprt" => 2,
        "endgame" | "tournament" | "matchplay" | "bench" | "scorecard" | "env_spec" => 3,
        "az" | "calibration" | "ladder" => 4,
        "network" => 5,
        "train" => 6,
        "cli" | "python" | "agent_kinds" | "serve" => 7,
        _ => return None,
    })
}

/// The module that owns a name re-exported at the root.
fn canonical(module: &str) -> &str {
    match module {
        "presets" => "rules",
        other => other,
    }
}

#[test]
fn layers_only_look_down() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let graph = Graph::read(root);
    let layer_of = |file: &str| -> Option<u8> {
        let rel = file.strip_prefix("src/")?;
        let rel = rel
            .strip_prefix("engine/")
            .or_else(|| rel.strip_prefix("ratings/"))
            .unwrap_or(rel);
        layer(canonical(rel.split(['/', '.']).next()?))
    };
    let mut upward = Vec::new();
    for (from, targets) in &graph.edges {
        let Some(own) = layer_of(from) else { continue };
        for to in targets {
            if layer_of(to).is_some_and(|theirs| theirs > own) {
                upward.push(format!("{from} -> {to}"));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "imports that look up a layer: {upward:#?}"
    );
    assert!(graph.edges.values().map(BTreeSet::len).sum::<usize>() > 300);
}

/// No file imports, through any chain, a file that imports it: in every folder, `super::`
/// paths and a folder's own helpers included (a folder's re-exports are its facade, not an
/// import).
#[test]
fn no_import_circles_anywhere() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let graph = Graph::read(root);
    let circles: Vec<String> = graph
        .circles()
        .iter()
        .map(|c| format!("{c:?}:\n    {}", graph.edges_within(c).join("\n    ")))
        .collect();
    assert!(
        circles.is_empty(),
        "{} import circles (open each by moving the shared item to the file that owns it):\n{}",
        circles.len(),
        circles.join("\n")
    );
}

/// The graph reader itself, on known code: a circle is found, a test module and comments are
/// not read, re-exports resolve to their file.
#[test]
fn the_import_reader_sees_what_the_compiler_sees() {
    use architecture_graph::strip_comments_and_strings;
    let code = strip_comments_and_strings(
        "// use crate::a;\nlet s = \"crate::b::c\"; let c = '\"'; /* super::x */ fn f<'a>() {}",
    );
    assert!(!code.contains("crate::a") && !code.contains("crate::b") && !code.contains("super"));
    assert!(code.contains("fn f<'a>()"), "{code}");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let graph = Graph::read(root);
    let from = |f: &str| &graph.edges[f];
    // `use super::spec::AgentSpec` in kind.rs; `crate::rules::Rules` is the engine's file.
    assert!(from("src/agents/kind.rs").contains("src/agents/spec.rs"));
    assert!(from("src/agents/kind.rs").contains("src/engine/rules/mod.rs"));
    // The registry names `AgentFactory` through the agents' facade (`pub use kind::…`).
    assert!(from("src/agents/registry.rs").contains("src/agents/kind.rs"));
    // A facade is not an edge: `src/lib.rs` declares and re-exports, it imports nothing.
    assert!(from("src/lib.rs").is_empty(), "{:?}", from("src/lib.rs"));
}

const FIGURES_BEGIN: &str = "<!-- figures: begin -->";
const FIGURES_END: &str = "<!-- figures: end -->";

/// The figures of docs/architecture.md, drawn from the code: files and lines per folder, the
/// longest files, the import edges and circles.
fn figures(graph: &Graph) -> String {
    let mut folders: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for (file, lines) in &graph.lines {
        let rel = file.strip_prefix("src/").unwrap();
        let folder = match rel.split_once('/') {
            Some((dir, _)) => format!("src/{dir}/"),
            None => "src/ (root files)".to_string(),
        };
        let e = folders.entry(folder).or_default();
        e.0 += 1;
        e.1 += lines;
    }
    let mut out = String::new();
    out.push_str(&format!("{FIGURES_BEGIN}\n"));
    out.push_str(
        "Drawn from the code by `tests/architecture.rs` (`AWALE_BLESS=1 cargo test --test \
         architecture` rewrites them; the test fails when a file or a circle comes or goes, or a \
         number is more than 10% off).\n\n",
    );
    out.push_str("| folder | files | lines |\n| --- | ---: | ---: |\n");
    let (mut files, mut lines) = (0, 0);
    for (folder, (n, l)) in &folders {
        out.push_str(&format!("| `{folder}` | {n} | {l} |\n"));
        files += n;
        lines += l;
    }
    out.push_str(&format!("| all of `src/` | {files} | {lines} |\n\n"));
    let edges: usize = graph.edges.values().map(BTreeSet::len).sum();
    out.push_str(&format!(
        "Imports between files: {edges}; import circles: {}.\n\n",
        graph.circles().len()
    ));
    let mut longest: Vec<(&String, &usize)> = graph.lines.iter().collect();
    longest.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    out.push_str("The longest files:\n\n| file | lines |\n| --- | ---: |\n");
    for (file, n) in longest.iter().take(6) {
        out.push_str(&format!("| `{file}` | {n} |\n"));
    }
    out.push_str(FIGURES_END);
    out
}

#[test]
fn the_architecture_figures_are_those_of_the_code() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fresh = figures(&Graph::read(root));
    check_block(
        &root.join("docs/architecture.md"),
        FIGURES_BEGIN,
        FIGURES_END,
        &fresh,
        true,
    );
}

const FILES_BEGIN: &str = "<!-- files: begin -->";
const FILES_END: &str = "<!-- files: end -->";

/// The sections of "What each file owns", from the bottom layer up.
const SECTIONS: [&str; 16] = [
    "src/engine/",
    "src/batch/",
    "src/tablebase/",
    "src/agents/",
    "src/protocol/",
    "src/search/",
    "src/",
    "src/tournament/",
    "src/ratings/",
    "src/ratings/scorecard/",
    "src/az/",
    "src/network/",
    "src/train/",
    "src/cli/",
    "src/serve/",
    "src/python/",
];

/// The files of `src/` that are not Rust (compiled in with `include_str!`), and what each is.
const ASSETS: [(&str, &str); 4] = [
    (
        "src/serve/openapi.json",
        "The OpenAPI 3.1 document of the JSON API (`GET /api/openapi.json`), compiled into the binary.",
    ),
    (
        "src/serve/page.html",
        "The page of `awale serve` (an SVG board, no outside resources), compiled into the binary.",
    ),
    (
        "src/serve/page.js",
        "The page's script (a file of its own: the Content-Security-Policy allows no inline code).",
    ),
    ("src/serve/page.css", "The page's style (a file of its own, as the script)."),
];

/// The first paragraph of a file's module docs (`//!`), links written as plain code, cut at
/// about 200 characters.
fn module_summary(text: &str) -> String {
    let mut words = Vec::new();
    for line in text.lines() {
        let Some(doc) = line.trim_start().strip_prefix("//!") else {
            break;
        };
        let doc = doc.trim();
        if doc.is_empty() || doc.starts_with("```") {
            break;
        }
        words.push(doc.to_string());
    }
    let mut s = words.join(" ");
    // [`x`](url) and [text](url) → `x`, text; [`x`] → `x`.
    let mut out = String::new();
    let mut rest = s.as_str();
    while let Some(i) = rest.find('[') {
        out.push_str(&rest[..i]);
        let tail = &rest[i + 1..];
        match tail.find(']') {
            Some(j) => {
                out.push_str(&tail[..j]);
                let after = &tail[j + 1..];
                rest = match after
                    .strip_prefix('(')
                    .and_then(|a| a.find(')').map(|k| &a[k + 1..]))
                {
                    Some(r) => r,
                    None => after,
                };
            }
            None => {
                out.push('[');
                rest = tail;
            }
        }
    }
    out.push_str(rest);
    s = out.replace('|', "\\|");
    if s.chars().count() > 200 {
        let cut: String = s.chars().take(200).collect();
        let cut = cut.rsplit_once(' ').map_or(cut.as_str(), |(a, _)| a);
        s = format!("{} …", cut.trim_end_matches([',', ';', ':']));
    }
    s
}

/// The tables of "What each file owns", one per section, drawn from the files' module docs.
fn file_tables(root: &Path) -> String {
    let mut files = Vec::new();
    source_files(&root.join("src"), &mut files);
    for (asset, _) in ASSETS {
        if !files.iter().any(|f| f == asset) {
            files.push(asset.to_string());
        }
    }
    let section_of = |file: &str| -> &'static str {
        SECTIONS
            .iter()
            .filter(|s| {
                file.starts_with(*s) && (**s != "src/" || !file["src/".len()..].contains('/'))
            })
            .max_by_key(|s| s.len())
            .copied()
            .unwrap()
    };
    let mut out = format!(
        "{FILES_BEGIN}\n(Drawn from each file's module docs by `tests/architecture.rs`: \
         `AWALE_BLESS=1 cargo test --test architecture` rewrites them.)\n"
    );
    for section in SECTIONS {
        let title = if section == "src/" {
            "`src/` (the crate root)".to_string()
        } else {
            format!("`{section}`")
        };
        out.push_str(&format!(
            "\n### {title}\n\n| file | what it holds |\n| --- | --- |\n"
        ));
        let mut rows: Vec<&String> = files.iter().filter(|f| section_of(f) == section).collect();
        rows.sort();
        for f in rows {
            let what = match ASSETS.iter().find(|(a, _)| a == f) {
                Some((_, what)) => what.to_string(),
                None => module_summary(&fs::read_to_string(root.join(f)).unwrap()),
            };
            assert!(!what.is_empty(), "{f} has no module docs (`//!`)");
            out.push_str(&format!("| `{f}` | {what} |\n"));
        }
    }
    out.push_str(FILES_END);
    out
}

/// Whether two texts have the same words, their numbers (`1,213`, `37369`) within 10% of each
/// other.
fn numbers_within_10_percent(a: &str, b: &str) -> bool {
    let words = |t: &str| -> Vec<String> { t.split_whitespace().map(str::to_string).collect() };
    let (wa, wb) = (words(a), words(b));
    let number = |w: &str| -> Option<f64> {
        let digits: String = w.chars().filter(|c| *c != ',').collect();
        digits.parse::<f64>().ok()
    };
    wa.len() == wb.len()
        && wa
            .iter()
            .zip(&wb)
            .all(|(x, y)| match (number(x), number(y)) {
                (Some(p), Some(q)) => {
                    (p - q).abs() <= 0.1 * q.abs().max(1.0) && (p == 0.0) == (q == 0.0)
                }
                _ => x == y,
            })
}

/// Checks (or with `AWALE_BLESS` rewrites) the block of `doc` between two markers.
///
/// With `close_enough`, a block whose words are those of the fresh one and whose numbers are
/// within 10% of them passes (line counts move with every edit; files, names and circles may
/// not); `AWALE_BLESS` still writes the exact figures.
fn check_block(path: &Path, begin: &str, end: &str, fresh: &str, close_enough: bool) {
    let doc = fs::read_to_string(path).unwrap();
    let (Some(a), Some(b)) = (doc.find(begin), doc.find(end)) else {
        panic!("{} has no {begin} … {end} block", path.display());
    };
    let current = &doc[a..b + end.len()];
    let bless = std::env::var_os("AWALE_BLESS").is_some();
    if current == fresh || (!bless && close_enough && numbers_within_10_percent(current, fresh)) {
        return;
    }
    if std::env::var_os("AWALE_BLESS").is_some() {
        fs::write(path, doc.replace(current, fresh)).unwrap();
        return;
    }
    panic!(
        "{}'s block {begin} is stale: run `AWALE_BLESS=1 cargo test --test architecture` and \
         commit the page. Fresh:\n{fresh}",
        path.display()
    );
}

#[test]
fn the_file_tables_are_the_module_docs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    check_block(
        &root.join("docs/architecture.md"),
        FILES_BEGIN,
        FILES_END,
        &file_tables(root),
        false,
    );
}

/// `awale serve` knows agents only by what their kinds declare (`Plan`, `RegistryEntry`): its
/// code (its tests aside) writes no agent kind as a spec. The examples it lists come from
/// `awale::agent_kinds::EXAMPLES`.
#[test]
fn the_server_names_no_agent_kind() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let kinds = [
        "random",
        "greedy",
        "alphabeta",
        "perfect",
        "mcts",
        "nn",
        "engine",
    ];
    let mut found = Vec::new();
    for entry in std::fs::read_dir(root.join("src/serve")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap();
        for (n, line) in code.lines().enumerate() {
            let line = line.trim_start();
            if line.starts_with("//") {
                continue;
            }
            for kind in kinds {
                // A string literal that is a spec of the kind (an escaped quote inside a help
                // text is an example for people, not a spec the code acts on).
                for quoted in [format!("\"{kind}\""), format!("\"{kind}:")] {
                    let named = line
                        .match_indices(&quoted)
                        .any(|(i, _)| i == 0 || line.as_bytes()[i - 1] != b'\\');
                    if named {
                        found.push(format!("{}:{}: {line}", path.display(), n + 1));
                    }
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "src/serve/ names agent kinds:\n{}",
        found.join("\n")
    );
}
