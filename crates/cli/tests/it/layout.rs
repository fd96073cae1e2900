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

/// The module a file of `src` is: its path's parts (`front/coup.rs` is
/// `front::coup`, `store/mod.rs` is `store`, `lib.rs` the root, no part).
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The parts of the path that starts `rest` (`a::b::C`), up to a group, a
/// generic or anything that is not a name.
fn path_parts(rest: &str) -> (Vec<String>, usize) {
    let mut parts = Vec::new();
    let mut at = 0;
    loop {
        let id: String = rest[at..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if id.is_empty() {
            break;
        }
        at += id.len();
        parts.push(id);
        if rest[at..].starts_with("::") && !rest[at + 2..].starts_with('{') {
            at += 2;
            continue;
        }
        if rest[at..].starts_with("::{") {
            at += 2;
        }
        break;
    }
    (parts, at)
}

/// Every path `code` names from `crate::`, `super::` or `self::`, inline or in
/// a `use` (each part of a `{...}` group its own path, its prefix included),
/// the leading keyword kept as its first part.
fn paths(code: &str) -> Vec<Vec<String>> {
    let bytes = code.as_bytes();
    let boundary = |i: usize| {
        i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || b"_:".contains(&bytes[i - 1]))
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < code.len() {
        let keyword = ["crate::", "super::", "self::"]
            .into_iter()
            .find(|k| code[i..].starts_with(k) && boundary(i));
        let Some(k) = keyword else {
            i += code[i..].chars().next().map_or(1, char::len_utf8);
            continue;
        };
        let mut prefix = vec![k.trim_end_matches(':').to_string()];
        let (parts, len) = path_parts(&code[i + k.len()..]);
        prefix.extend(parts);
        let mut j = i + k.len() + len;
        if code[i + k.len()..].starts_with('{') {
            j = i + k.len();
        }
        if code[j..].starts_with('{') {
            // Each part of the group at its own depth, with the prefix.
            let group = &code[j + 1..];
            let mut depth = 0;
            let mut part_start = true;
            for (n, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => part_start = true,
                    c if part_start && depth == 0 && (c.is_alphanumeric() || c == '_') => {
                        let mut p = prefix.clone();
                        p.extend(path_parts(&group[n..]).0);
                        out.push(p);
                        part_start = false;
                    }
                    _ => {}
                }
            }
        } else {
            out.push(prefix);
        }
        i = j.max(i + k.len());
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

/// The module graph of a crate whose files are `files` (path under `src`,
/// code): each module (`a::b`) → the modules it names. A parent's use of its
/// descendant and a child's of its ancestor are left out: a parent declares
/// its children and a child uses its parent's items, which is the tree, not a
/// circle.
fn graph_of(files: &[(PathBuf, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new("");
    let modules: BTreeSet<Vec<String>> = files.iter().map(|(f, _)| module_of(src, f)).collect();
    let root_code = files
        .iter()
        .find(|(f, _)| module_of(src, f).is_empty())
        .map(|(_, c)| code(c))
        .unwrap_or_default();
    let names = reexports(&root_code);
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (f, text) in files {
        let me = module_of(src, f);
        if me.is_empty() {
            continue;
        }
        let uses = g.entry(me.join("::")).or_default();
        for p in paths(&code(text)) {
            // The keywords resolved: a path from the root.
            let mut at: Vec<String> = Vec::new();
            let mut parts = p.into_iter().peekable();
            match parts.next().as_deref() {
                Some("crate") => {}
                Some("self") => at = me.clone(),
                Some("super") => {
                    at = me.clone();
                    at.pop();
                    while parts.peek().map(String::as_str) == Some("super") {
                        parts.next();
                        at.pop();
                    }
                }
                _ => continue,
            }
            at.extend(parts);
            // A name the root re-exports stands for its module.
            if !at.is_empty() && !modules.contains(&at[..1]) {
                if let Some(m) = names.get(&at[0]) {
                    at = vec![m.clone()];
                }
            }
            // The longest prefix that is a module.
            let target = (1..=at.len())
                .rev()
                .map(|n| at[..n].to_vec())
                .find(|m| modules.contains(m));
            let Some(target) = target else { continue };
            if !(target.starts_with(&me) || me.starts_with(&target)) {
                uses.insert(target.join("::"));
            }
        }
    }
    g
}

/// The module graph of one crate's `src`.
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let files: Vec<(PathBuf, String)> = files
        .iter()
        .map(|f| {
            (
                f.strip_prefix(src).unwrap().to_path_buf(),
                std::fs::read_to_string(f).unwrap(),
            )
        })
        .collect();
    graph_of(&files)
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
    let uses: Vec<String> =
        paths("use crate::{front::{self, Front}, term};\nlet x = crate::run::go();")
            .into_iter()
            .map(|p| p.join("::"))
            .collect();
    assert_eq!(uses, ["crate::front", "crate::term", "crate::run::go"]);
    let names = reexports("pub use records::{GameRecord, RecordLevel};\npub use seeds::GameSeeds;");
    assert_eq!(names["GameRecord"], "records");
    assert_eq!(names["GameSeeds"], "seeds");
}

/// A circle of two sibling modules that name each other inline through
/// `super::` (no `use` line) is found, and so is one through `crate::` paths in
/// a `use` group; a child using its parent's items is no circle.
#[test]
fn a_circle_of_inline_paths_is_found() {
    let file = |p: &str, c: &str| (PathBuf::from(p), c.to_string());
    let crate_with = |ppcg: &str| {
        vec![
            file("main.rs", "mod front;\nmod term;"),
            file(
                "front/mod.rs",
                "mod coup;\nmod ppcg;\npub trait Front {}\nfn f() { coup::go(); }",
            ),
            file(
                "front/coup.rs",
                "use super::{Front, page::x};\nfn g() { let w = super::ppcg::Ppcg::WORD; }",
            ),
            file("front/ppcg.rs", ppcg),
            file("term.rs", "use crate::{front::Front};"),
        ]
    };
    // The injected circle: ppcg names coup inline, coup names ppcg inline.
    let g = graph_of(&crate_with("fn h() { super::coup::page_steps(); }"));
    assert_eq!(circles(&g), vec![vec!["front::coup", "front::ppcg"]]);
    // Without it: coup → ppcg only, and no circle.
    let g = graph_of(&crate_with(
        "use super::Front;\nfn h() { crate::term::x(); }",
    ));
    assert!(circles(&g).is_empty(), "{g:?}");
    assert!(g["front::coup"].contains("front::ppcg"));
    assert!(g["front::ppcg"].contains("term"));
    assert!(
        !g["front::coup"].contains("front"),
        "a child's use of its parent is no edge"
    );
    // Through crate:: in a use group, across top modules.
    let g = graph_of(&[
        file("lib.rs", "mod a;\nmod b;"),
        file("a.rs", "use crate::{b::{self, X}};"),
        file("b.rs", "fn f() -> crate::a::Y { todo!() }"),
    ]);
    assert_eq!(circles(&g), vec![vec!["a", "b"]]);
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
