//! The house plan holds: no circle of module imports in any crate (module A
//! using module B that uses A, directly or through others), and README's Layout
//! section names every crate and every top-level module, so a reader finds the
//! room for a change from the names alone.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// The crates of the workspace: (folder name, its `src`).
fn crates() -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(root().join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("src").is_dir())
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                p.join("src"),
            )
        })
        .collect();
    out.sort();
    out
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The top-level module a file of `src` belongs to (`lib`/`main` for the root).
fn top_module(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

/// The code of a file without comments and without its `mod tests`.
fn code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => text,
    };
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The identifiers after each `crate::` in `code`, and inside `use crate::{...}`.
fn crate_paths(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // The first name of each part at the group's own depth.
            let mut depth = 0;
            let mut start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    c if start && (c.is_alphanumeric() || c == '_') => {
                        let name = ident(&group[i..]);
                        if !name.is_empty() {
                            out.insert(name);
                        }
                        start = false;
                    }
                    _ => {}
                }
            }
        } else {
            let name = ident(rest);
            if !name.is_empty() {
                out.insert(name);
            }
        }
    }
    out
}

/// Names the crate root re-exports, by the module they come from
/// (`pub use records::{GameRecord, ...}`).
fn reexports(root_code: &str) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    for stmt in root_code.split(';') {
        let Some(path) = stmt.trim().strip_prefix("pub use ") else {
            continue;
        };
        let Some((module, names)) = path.split_once("::") else {
            continue;
        };
        let names = names.trim().trim_start_matches('{').trim_end_matches('}');
        for n in names.split(',') {
            let n = n.trim();
            let n = n.rsplit("::").next().unwrap_or(n);
            let n = n.split(" as ").last().unwrap_or(n).trim();
            if !n.is_empty() {
                map.insert(n.to_string(), module.trim().to_string());
            }
        }
    }
    map
}

/// The module graph of one crate: top-level module → the modules it uses.
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let tops: BTreeSet<String> = files
        .iter()
        .map(|f| top_module(src, f))
        .filter(|m| m != "lib" && m != "main")
        .collect();
    let root_file = [src.join("lib.rs"), src.join("main.rs")]
        .into_iter()
        .find(|p| p.exists())
        .unwrap();
    let names = reexports(&code(&std::fs::read_to_string(&root_file).unwrap()));
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        let top = top_module(src, f);
        if top == "lib" || top == "main" {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap();
        let uses = g.entry(top.clone()).or_default();
        for p in crate_paths(&code(&text)) {
            let module = names.get(&p).cloned().unwrap_or(p);
            if module != top && tops.contains(&module) {
                uses.insert(module);
            }
        }
    }
    g
}

/// The circles of a graph: its strongly connected parts of two modules or more.
fn circles(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    // Two modules share a circle when each reaches the other.
    let reach = |from: &str| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.to_string()];
        while let Some(m) = stack.pop() {
            for n in g.get(&m).into_iter().flatten() {
                if seen.insert(n.clone()) {
                    stack.push(n.clone());
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&String, BTreeSet<String>> = g.keys().map(|m| (m, reach(m))).collect();
    let mut done = BTreeSet::new();
    let mut out = Vec::new();
    for m in g.keys() {
        if done.contains(m) || !reaches[m].contains(m) {
            continue;
        }
        let part: Vec<String> = g
            .keys()
            .filter(|n| reaches[m].contains(*n) && reaches[*n].contains(m))
            .cloned()
            .collect();
        done.extend(part.iter().cloned());
        out.push(part);
    }
    out
}

#[test]
fn no_crate_has_a_circle_of_module_imports() {
    let mut found = Vec::new();
    for (name, src) in crates() {
        let g = graph(&src);
        assert!(!g.is_empty(), "crate {name}: no modules read");
        for c in circles(&g) {
            let edges: Vec<String> = c
                .iter()
                .map(|m| {
                    let to: Vec<&String> = g[m].iter().filter(|n| c.contains(n)).collect();
                    format!("{m} -> {to:?}")
                })
                .collect();
            found.push(format!("crate {name}: {}", edges.join("; ")));
        }
    }
    assert!(
        found.is_empty(),
        "circles of imports:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_circle_finder_finds_circles() {
    // A graph with a circle of three and a module outside it: the test above
    // would see it.
    let g: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec!["a"]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.into_iter().map(String::from).collect()))
    .collect();
    assert_eq!(circles(&g), vec![vec!["a", "b", "c"]]);
    let uses = crate_paths("use crate::{front::{self, Front}, term};\nlet x = crate::run::go();");
    assert_eq!(
        uses.into_iter().collect::<Vec<_>>(),
        ["front", "run", "term"]
    );
    let names = reexports("pub use records::{GameRecord, RecordLevel};\npub use seeds::GameSeeds;");
    assert_eq!(names["GameRecord"], "records");
    assert_eq!(names["GameSeeds"], "seeds");
}

#[test]
fn the_layout_section_names_every_crate_and_module() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme
        .find("\n## Layout")
        .expect("README.md has a `## Layout` section");
    let section = &readme[start + 1..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |i| i + 3)];
    let mut missing = Vec::new();
    for (name, src) in crates() {
        // The crate's lines: from its own to the next top-level one.
        let head = format!("\ncrates/{name}/");
        let Some(at) = section.find(&head) else {
            missing.push(format!("crates/{name}/"));
            continue;
        };
        let block = &section[at + 1..];
        let block = &block[..block
            .find("\ncrates/")
            .or_else(|| block.find("\nsdk/"))
            .unwrap_or(block.len())];
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        let tops: BTreeSet<String> = files
            .iter()
            .map(|f| top_module(&src, f))
            .filter(|m| m != "lib" && m != "main")
            .collect();
        for m in tops {
            let as_file = format!("{m}.rs");
            let as_dir = format!("{m}/");
            if !block.contains(&as_file) && !block.contains(&as_dir) {
                missing.push(format!("crates/{name}: {m}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "README's Layout section does not name: {}",
        missing.join(", ")
    );
}
