//! The crate's import graph, file by file, read from the source text: every `use` and every
//! path written in the code (`crate::…`, `awale::…`, `super::…`, `self::…`, a child module's
//! name), resolved through the module tree and the re-exports (`pub use`) to the file that
//! defines what it names. `tests/architecture.rs` checks it for circles and for imports that
//! look up a layer, and draws the figures of `docs/architecture.md` from it.
//!
//! What is not an edge: a test module (`#[cfg(test)] mod …`), comments and strings (doc
//! examples included), a folder's re-exports (`pub use` in a `mod.rs` or `lib.rs`: the facade
//! through which the rest of the crate names a child, not a dependency of the folder), and a
//! file naming its own parent module (`super::Agent` in `src/agents/kind.rs`: a child module is
//! a part of its parent, which declares it). Circles are looked for among the rest: between
//! siblings, between folders, anywhere.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// A module path from the crate root (`["agents", "kind"]`).
pub type ModPath = Vec<String>;

/// The files of `src/` as modules, their imports resolved to files.
pub struct Graph {
    /// Module path → file (relative to the crate root, `src/agents/kind.rs`).
    pub modules: BTreeMap<ModPath, String>,
    /// File → the files it names (never itself).
    pub edges: BTreeMap<String, BTreeSet<String>>,
    /// File → its number of lines.
    pub lines: BTreeMap<String, usize>,
}

/// One `use` path, expanded from its tree (`a::{b, c as d}` gives two), and whether the
/// statement is `pub`.
struct UsePath {
    segments: Vec<String>,
    alias: String,
    public: bool,
}

impl Graph {
    /// Reads every `.rs` file under `root/src`.
    pub fn read(root: &Path) -> Graph {
        let mut files = Vec::new();
        files_with(&root.join("src"), root, &["rs"], &mut files);
        let mut modules = BTreeMap::new();
        for f in &files {
            if let Some(m) = module_path(f) {
                modules.insert(m, f.clone());
            }
        }
        let mut code = BTreeMap::new();
        let mut lines = BTreeMap::new();
        for f in &files {
            let text = fs::read_to_string(root.join(f)).unwrap();
            lines.insert(f.clone(), text.lines().count());
            code.insert(f.clone(), without_tests(&strip_comments_and_strings(&text)));
        }
        // Every module's `use` declarations: they are names in that module (a `pub use` for
        // everyone, a private one for the module and its children), so paths through them
        // resolve to what they import.
        let mut uses: BTreeMap<ModPath, Vec<UsePath>> = BTreeMap::new();
        let mut rest_of: BTreeMap<String, String> = BTreeMap::new();
        for (m, f) in &modules {
            let (found, rest) = use_statements(&code[f]);
            uses.insert(m.clone(), found);
            rest_of.insert(f.clone(), rest);
        }
        let mut g = Graph {
            modules,
            edges: BTreeMap::new(),
            lines,
        };
        let resolver = Resolver {
            modules: &g.modules,
            uses: &uses,
        };
        for (m, f) in &g.modules {
            let (found, rest) = (&uses[m], &rest_of[f]);
            let facade = f.ends_with("/mod.rs") || f == "src/lib.rs";
            let mut to = BTreeSet::new();
            for u in found.iter().filter(|u| !(facade && u.public)) {
                if let Some(target) = resolver.file_of(m, &u.segments) {
                    to.insert(target);
                }
            }
            for path in inline_paths(rest) {
                if let Some(target) = resolver.file_of(m, &path) {
                    to.insert(target);
                }
            }
            to.remove(f);
            // A part naming the module it is part of (its parent, or further up).
            to.retain(|t| {
                let t = g
                    .modules
                    .iter()
                    .find(|(_, file)| *file == t)
                    .map(|(m, _)| m);
                !t.is_some_and(|t| t.len() < m.len() && m[..t.len()] == t[..])
            });
            g.edges.insert(f.clone(), to);
        }
        g
    }

    /// The circles: every strongly connected set of two or more files, each sorted, and the
    /// edges inside it.
    pub fn circles(&self) -> Vec<Vec<String>> {
        // Tarjan's algorithm.
        struct T<'a> {
            g: &'a Graph,
            index: BTreeMap<&'a str, usize>,
            low: BTreeMap<&'a str, usize>,
            stack: Vec<&'a str>,
            on: BTreeSet<&'a str>,
            out: Vec<Vec<String>>,
        }
        fn strong<'a>(t: &mut T<'a>, v: &'a str) {
            let i = t.index.len();
            t.index.insert(v, i);
            t.low.insert(v, i);
            t.stack.push(v);
            t.on.insert(v);
            for w in &t.g.edges[v] {
                let w = w.as_str();
                if !t.index.contains_key(w) {
                    strong(t, w);
                    let l = t.low[w].min(t.low[v]);
                    t.low.insert(v, l);
                } else if t.on.contains(w) {
                    let l = t.index[w].min(t.low[v]);
                    t.low.insert(v, l);
                }
            }
            if t.low[v] == t.index[v] {
                let mut set = Vec::new();
                loop {
                    let w = t.stack.pop().unwrap();
                    t.on.remove(w);
                    set.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if set.len() > 1 {
                    set.sort();
                    t.out.push(set);
                }
            }
        }
        let mut t = T {
            g: self,
            index: BTreeMap::new(),
            low: BTreeMap::new(),
            stack: Vec::new(),
            on: BTreeSet::new(),
            out: Vec::new(),
        };
        for v in self.edges.keys() {
            if !t.index.contains_key(v.as_str()) {
                strong(&mut t, v);
            }
        }
        t.out.sort();
        t.out
    }

    /// The edges among the files of one circle, `a -> b` each.
    pub fn edges_within(&self, circle: &[String]) -> Vec<String> {
        let set: BTreeSet<&String> = circle.iter().collect();
        let mut out = Vec::new();
        for a in circle {
            for b in &self.edges[a] {
                if set.contains(b) {
                    out.push(format!("{a} -> {b}"));
                }
            }
        }
        out
    }
}

struct Resolver<'a> {
    modules: &'a BTreeMap<ModPath, String>,
    uses: &'a BTreeMap<ModPath, Vec<UsePath>>,
}

impl Resolver<'_> {
    /// The file that defines what `path` names, written in module `here`; `None` for another
    /// crate's path.
    fn file_of(&self, here: &ModPath, path: &[String]) -> Option<String> {
        let (start, rest) = self.start(here, path)?;
        self.walk(start, rest, 0)
    }

    /// Where a path starts: the module its first segments name, and the segments after them.
    fn start<'p>(&self, here: &ModPath, path: &'p [String]) -> Option<(ModPath, &'p [String])> {
        let first = path.first()?;
        match first.as_str() {
            "crate" | "awale" => Some((Vec::new(), &path[1..])),
            "self" => Some((here.clone(), &path[1..])),
            "super" => {
                let mut m = here.clone();
                let mut i = 0;
                while path.get(i).is_some_and(|s| s == "super") {
                    m.pop();
                    i += 1;
                }
                Some((m, &path[i..]))
            }
            _ => {
                // A child module, or a name this module imports (2018 paths).
                let mut child = here.clone();
                child.push(first.clone());
                if self.modules.contains_key(&child) || self.imported(here, first).is_some() {
                    Some((here.clone(), path))
                } else {
                    None
                }
            }
        }
    }

    /// What `name` stands for in module `m` through a `use` of it: the absolute path.
    fn imported(&self, m: &ModPath, name: &str) -> Option<ModPath> {
        let u = self.uses.get(m)?.iter().find(|u| u.alias == name)?;
        let (start, rest) = self.start(m, &u.segments)?;
        let mut abs = start;
        abs.extend(rest.iter().cloned());
        Some(abs)
    }

    fn walk(&self, mut m: ModPath, rest: &[String], depth: usize) -> Option<String> {
        for (i, s) in rest.iter().enumerate() {
            let mut child = m.clone();
            child.push(s.clone());
            if self.modules.contains_key(&child) {
                m = child;
                continue;
            }
            if depth < 16 {
                if let Some(target) = self.imported(&m, s) {
                    if target.len() >= m.len() && target[..m.len()] == m[..] && target == child {
                        break;
                    }
                    let mut next = target;
                    next.extend(rest[i + 1..].iter().cloned());
                    return self.walk(Vec::new(), &next, depth + 1);
                }
            }
            break;
        }
        self.modules.get(&m).cloned()
    }
}

/// The files under `dir` whose extension is one of `exts`, as paths relative to `root`, sorted.
pub fn files_with(dir: &Path, root: &Path, exts: &[&str], out: &mut Vec<String>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files_with(&path, root, exts, out);
        } else if path
            .extension()
            .is_some_and(|e| exts.iter().any(|x| e == *x))
        {
            let rel = path.strip_prefix(root).unwrap();
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

/// `src/a/b.rs` → `["a", "b"]`, `src/a/mod.rs` → `["a"]`, `src/lib.rs` → `[]`; `None` for the
/// binary's root and for a test module's file (`tests.rs`).
fn module_path(file: &str) -> Option<ModPath> {
    let rel = file.strip_prefix("src/")?.strip_suffix(".rs")?;
    if rel == "main" {
        return None;
    }
    if rel == "lib" {
        return Some(Vec::new());
    }
    let mut parts: Vec<String> = rel.split('/').map(str::to_string).collect();
    if parts.last().is_some_and(|p| p == "tests") {
        return None;
    }
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    Some(parts)
}

/// The text with comments, strings and character literals blanked (lines kept).
pub fn strip_comments_and_strings(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(b[i]));
                    i += 1;
                }
            }
        } else if c == 'r'
            && (next == Some('"') || next == Some('#'))
            && !b
                .get(i.wrapping_sub(1))
                .is_some_and(|p| p.is_alphanumeric() || *p == '_')
        {
            // A raw string: r"…", r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= b.len() {
                    break;
                }
                if b[j] == '"' && (0..hashes).all(|k| b.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                out.push(blank(b[j]));
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    i += 1;
                }
                if i < b.len() {
                    out.push(blank(b[i]));
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' {
            // A character literal ('a', '\n', '\u{1F600}') or a lifetime ('a).
            let close = if next == Some('\\') {
                (i + 2..(i + 12).min(b.len())).find(|&j| b[j] == '\'')
            } else if b.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match close {
                Some(j) => {
                    out.push_str("' '");
                    i = j + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The code without its test modules (`#[cfg(test)] mod name { … }`): tests may reach any
/// module to check one.
fn without_tests(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(i) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..i]);
        let after = &rest[i + "#[cfg(test)]".len()..];
        let t = after.trim_start();
        if t.starts_with("mod ") {
            match (t.find('{'), t.find(';')) {
                (Some(open), semi) if semi.is_none_or(|s| open < s) => {
                    let mut depth = 0;
                    let mut end = t.len();
                    for (k, ch) in t[open..].char_indices() {
                        match ch {
                            '{' => depth += 1,
                            '}' => {
                                depth -= 1;
                                if depth == 0 {
                                    end = open + k + 1;
                                    break;
                                }
                            }
                            _ => {}
                        }
                    }
                    rest = &t[end..];
                }
                (_, Some(semi)) => rest = &t[semi + 1..],
                _ => rest = "",
            }
        } else {
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The `use` declarations of a module's code (expanded), and the code without them.
fn use_statements(code: &str) -> (Vec<UsePath>, String) {
    let mut found = Vec::new();
    let mut rest_code = String::new();
    let mut rest = code;
    loop {
        let Some(i) = find_word(rest, "use") else {
            rest_code.push_str(rest);
            break;
        };
        let before = rest[..i].trim_end();
        let public = before.ends_with("pub") || before.ends_with(')') && before.contains("pub(");
        let statement_start = before.is_empty()
            || before.ends_with(';')
            || before.ends_with('{')
            || before.ends_with('}')
            || before.ends_with(']')
            || public;
        let Some(end) = rest[i..].find(';') else {
            rest_code.push_str(rest);
            break;
        };
        if statement_start {
            rest_code.push_str(&rest[..i]);
            let tree: String = rest[i + 3..i + end]
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect();
            let mut paths = Vec::new();
            expand(&tree, &mut Vec::new(), &mut paths);
            for (segments, alias) in paths {
                found.push(UsePath {
                    segments,
                    alias,
                    public,
                });
            }
            rest = &rest[i + end + 1..];
        } else {
            rest_code.push_str(&rest[..i + 3]);
            rest = &rest[i + 3..];
        }
    }
    (found, rest_code)
}

/// The byte index of `word` standing alone in `text`.
fn find_word(text: &str, word: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(k) = text[from..].find(word) {
        let i = from + k;
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        if !before.is_some_and(is_ident) && !after.is_some_and(is_ident) {
            return Some(i);
        }
        from = i + word.len();
    }
    None
}

/// Expands a use tree without spaces (`a::{b,c::{d,e}as f}`) into `(segments, alias)` pairs.
fn expand(tree: &str, prefix: &mut Vec<String>, out: &mut Vec<(Vec<String>, String)>) {
    let tree = tree.trim_start_matches("::");
    if let Some(open) = tree.find('{') {
        let head: Vec<String> = tree[..open]
            .split("::")
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        let close = tree.rfind('}').unwrap_or(tree.len());
        let inner = &tree[open + 1..close];
        let n = prefix.len();
        prefix.extend(head);
        let mut depth = 0;
        let mut start = 0;
        for (k, ch) in inner.char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand(&inner[start..k], prefix, out);
                    start = k + 1;
                }
                _ => {}
            }
        }
        expand(&inner[start..], prefix, out);
        prefix.truncate(n);
        return;
    }
    if tree.is_empty() {
        return;
    }
    let (path, alias) = match tree.split_once("as") {
        Some((p, a)) if !p.ends_with(':') && !a.is_empty() && a.chars().all(is_ident) => {
            (p, Some(a))
        }
        _ => (tree, None),
    };
    let mut segments = prefix.clone();
    for s in path.split("::").filter(|s| !s.is_empty()) {
        if s == "self" && !segments.is_empty() {
            continue;
        }
        if s == "*" {
            break;
        }
        segments.push(s.to_string());
    }
    let alias = alias
        .map(str::to_string)
        .or_else(|| segments.last().cloned())
        .unwrap_or_default();
    out.push((segments, alias));
}

/// The paths written in code outside `use` declarations: a run of `ident::ident::…` whose
/// first segment may be a module (`crate`, `super`, `self`, `awale` or a plain name).
fn inline_paths(code: &str) -> Vec<Vec<String>> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if is_ident(chars[i]) && (i == 0 || !(is_ident(chars[i - 1]) || chars[i - 1] == ':')) {
            let mut segments = Vec::new();
            let mut j = i;
            loop {
                let start = j;
                while j < chars.len() && is_ident(chars[j]) {
                    j += 1;
                }
                if start == j {
                    break;
                }
                segments.push(chars[start..j].iter().collect::<String>());
                if chars.get(j) == Some(&':') && chars.get(j + 1) == Some(&':') {
                    j += 2;
                } else {
                    break;
                }
            }
            if segments.len() > 1 {
                out.push(segments);
            }
            i = j.max(i + 1);
        } else {
            i += 1;
        }
    }
    out
}
