//! Every command shown in the README and docs/ runs as shown.
//!
//! Each ```console block is a session: lines starting with `$ ` are commands, the
//! lines after one are what it printed (stdout and stderr together). The test runs
//! every command from the repository root with the `koth` just built first on the
//! PATH (`cargo run --release --` stands for `koth`), requires it to succeed, and
//! compares its output with the block's, line for line, except lines that hold
//! times or rates. A line `...` in the shown output stands for any lines (the
//! shown lines before it must begin the output, those after it end it); a
//! command shown without output is not compared. A block whose info string is `console output-varies` (programs
//! with their own randomness, machine-dependent warnings) is run and checked for
//! success only; `console no-run` (an interactive session: Ctrl-C) is not run,
//! nor is `console measured` (a measurement of this machine, such as the full
//! `koth bench`: its figures are the machine's, and a test of its own runs it
//! small).
//!
//! Each document is a test of its own, so that they run side by side (a
//! document's blocks run in order: a later one may use what an earlier made).
//! `KOTH_BLESS_DOCS=1 cargo test -p koth --test it docs::` writes the real outputs into
//! the documents instead of comparing.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// Every document with commands, and its test: a document added to `docs/`
/// without one here fails [`every_document_is_tested`].
macro_rules! documents {
    ($($test:ident => $path:literal,)*) => {
        $(
            #[test]
            fn $test() {
                check_document($path);
            }
        )*
        const DOCUMENTS: &[&str] = &[$($path),*];
    };
}

documents! {
    readme => "README.md",
    champions => "docs/champions.md",
    coup_crate => "docs/coup-crate.md",
    fair_play => "docs/fair-play.md",
    hill => "docs/hill.md",
    ppcg => "docs/ppcg.md",
    protocol => "docs/protocol.md",
    report => "docs/report.md",
    rules => "docs/rules.md",
    runs => "docs/runs.md",
    samurai => "docs/samurai.md",
}

/// One command of a console block and the lines shown after it.
#[derive(Debug)]
struct Shown {
    /// Line number (1-based) of the `$ ` line.
    line: usize,
    command: String,
    output: Vec<String>,
}

/// A console block: its kind and its commands.
#[derive(Debug)]
struct Block {
    kind: String,
    /// Line index of the opening fence and of the closing one.
    open: usize,
    close: usize,
    commands: Vec<Shown>,
}

fn blocks(text: &str) -> Vec<Block> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(info) = lines[i].strip_prefix("```console") else {
            // Skip other fenced blocks whole, so their contents are not read as fences.
            if lines[i].starts_with("```") {
                i += 1;
                i += 1;
                while i < lines.len() && lines[i].trim_end() != "```" {
                    i += 1;
                }
            }
            i += 1;
            continue;
        };
        let open = i;
        let mut commands: Vec<Shown> = Vec::new();
        i += 1;
        while i < lines.len() && lines[i].trim_end() != "```" {
            if let Some(cmd) = lines[i].strip_prefix("$ ") {
                commands.push(Shown {
                    line: i + 1,
                    command: cmd.to_string(),
                    output: Vec::new(),
                });
            } else if let Some(c) = commands.last_mut() {
                c.output.push(lines[i].to_string());
            }
            i += 1;
        }
        out.push(Block {
            kind: info.trim().to_string(),
            open,
            close: i,
            commands,
        });
        i += 1;
    }
    out
}

/// A line whose content depends on the machine or the moment.
fn volatile(line: &str) -> bool {
    [" games in ", "games/s", " ms", "µs", "resuming ", "isolat"]
        .iter()
        .any(|p| line.contains(p))
}

/// Runs one shown command as a user would, from the repository root.
fn run(command: &str, bin: &Path) -> (bool, Vec<String>) {
    let command = command.replace("cargo run --release -- ", "koth ");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("exec 2>&1; {command}"))
        .current_dir(root())
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    (
        out.status.success(),
        text.lines().map(str::to_string).collect(),
    )
}

/// Folders the commands write to (`--out DIR` under /tmp), removed before a block
/// runs so that it runs as on a fresh machine.
fn scratch_folders(block: &Block) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for c in &block.commands {
        let words: Vec<&str> = c.command.split_whitespace().collect();
        for w in words.windows(2) {
            if w[0] == "--out" && w[1].starts_with("/tmp/") {
                dirs.push(PathBuf::from(w[1]));
            }
        }
    }
    dirs
}

/// The shown output split at its `...` line, if any: (head, tail).
fn split_shown(shown: &[String]) -> (&[String], Option<&[String]>) {
    match shown.iter().position(|l| l == "...") {
        Some(i) => (&shown[..i], Some(&shown[i + 1..])),
        None => (shown, None),
    }
}

/// The first place where `want` and `have` differ, read from the start (or from
/// the end), as a message.
fn first_difference(want: &[String], have: &[String], from_end: bool) -> Option<String> {
    let at = |v: &[String], i: usize| -> Option<String> {
        if from_end {
            v.len().checked_sub(i + 1).map(|j| v[j].clone())
        } else {
            v.get(i).cloned()
        }
    };
    (0..want.len())
        .find(|&i| at(want, i) != at(have, i))
        .map(|i| format!("\n  doc: {:?}\n  run: {:?}", at(want, i), at(have, i)))
}

/// Whether `got` is what `shown` shows (see the module comment).
fn matches(shown: &[String], got: &[String]) -> Result<(), String> {
    if shown.is_empty() {
        return Ok(());
    }
    let keep =
        |v: &[String]| -> Vec<String> { v.iter().filter(|l| !volatile(l)).cloned().collect() };
    let (head, tail) = split_shown(shown);
    let (head, have) = (keep(head), keep(got));
    if let Some(d) = first_difference(&head, &have, false) {
        return Err(d);
    }
    match tail {
        None if have.len() > head.len() => Err(format!("\n  run goes on: {:?}", have[head.len()])),
        None => Ok(()),
        Some(tail) => {
            let rest = &have[head.len()..];
            match first_difference(&keep(tail), rest, true) {
                Some(d) => Err(d),
                None => Ok(()),
            }
        }
    }
}

/// The output to write into the document: all of it, or as much of its beginning
/// and end as the document shows around its `...`.
fn blessed(shown: &[String], got: &[String]) -> Vec<String> {
    if shown.is_empty() {
        return Vec::new();
    }
    match split_shown(shown) {
        (_, None) => got.to_vec(),
        (head, Some(tail)) => {
            if got.len() <= head.len() + tail.len() {
                return got.to_vec();
            }
            let mut out = got[..head.len()].to_vec();
            out.push("...".into());
            out.extend_from_slice(&got[got.len() - tail.len()..]);
            out
        }
    }
}

/// Runs (or blesses) every command of the document at `rel` (from the
/// repository root). `KOTH_DOCS_ONLY=samurai.md,README.md` runs only those.
fn check_document(rel: &str) {
    if let Ok(only) = std::env::var("KOTH_DOCS_ONLY") {
        let name = Path::new(rel).file_name().unwrap().to_string_lossy();
        if !only.split(',').any(|o| o.trim() == name) {
            return;
        }
    }
    let bless = std::env::var_os("KOTH_BLESS_DOCS").is_some();
    // `koth` on the PATH: the binary under test.
    let bin = Path::new(env!("CARGO_BIN_EXE_koth"))
        .parent()
        .unwrap()
        .to_path_buf();
    let doc = root().join(rel);
    let mut failures = Vec::new();
    let text = std::fs::read_to_string(&doc).unwrap();
    let name = rel;
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut edits: Vec<(usize, usize, Vec<String>)> = Vec::new();
    for block in blocks(&text) {
        match block.kind.as_str() {
            "" | "output-varies" => {}
            "no-run" | "measured" => continue,
            other => panic!(
                "{name}:{}: unknown console block kind {other:?}",
                block.open + 1
            ),
        }
        for d in scratch_folders(&block) {
            let _ = std::fs::remove_dir_all(d);
        }
        let mut new_block = Vec::new();
        for shown in &block.commands {
            let (ok, got) = run(&shown.command, &bin);
            if !ok {
                failures.push(format!(
                    "{name}:{}: `{}` failed:\n{}",
                    shown.line,
                    shown.command,
                    got.join("\n")
                ));
            }
            new_block.push(format!("$ {}", shown.command));
            new_block.extend(blessed(&shown.output, &got));
            if bless || block.kind == "output-varies" {
                continue;
            }
            if let Err(what) = matches(&shown.output, &got) {
                failures.push(format!(
                    "{name}:{}: `{}` printed something else: {what}\n  (KOTH_BLESS_DOCS=1 cargo test -p koth --test it docs:: writes the real output in)",
                    shown.line, shown.command
                ));
            }
        }
        if bless {
            edits.push((block.open + 1, block.close, new_block));
        }
    }
    if bless && !edits.is_empty() {
        for (from, to, new) in edits.into_iter().rev() {
            lines.splice(from..to, new);
        }
        std::fs::write(&doc, lines.join("\n") + "\n").unwrap();
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Every document (README.md and each of docs/) has its test above, and the
/// parser finds the commands they show.
#[test]
fn every_document_is_tested() {
    let root = root();
    let mut found = vec!["README.md".to_string()];
    for e in std::fs::read_dir(root.join("docs")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|e| e == "md") {
            found.push(format!("docs/{}", p.file_name().unwrap().to_string_lossy()));
        }
    }
    found.sort();
    let mut listed: Vec<String> = DOCUMENTS.iter().map(|d| d.to_string()).collect();
    listed.sort();
    assert_eq!(found, listed, "add the document to documents! in this file");
    let commands: usize = DOCUMENTS
        .iter()
        .map(|d| {
            let text = std::fs::read_to_string(root.join(d)).unwrap();
            blocks(&text)
                .iter()
                .map(|b| b.commands.len())
                .sum::<usize>()
        })
        .sum();
    assert!(
        commands >= 15,
        "only {commands} commands found: is the parser right?"
    );
}

#[test]
fn the_parser_reads_sessions_and_skips_other_blocks() {
    let text = "intro\n```text\n```console\n```\n```console output-varies\n$ koth a\nout 1\nout 2\n$ koth b\n```\n";
    let b = blocks(text);
    assert_eq!(b.len(), 1, "{b:?}");
    assert_eq!(b[0].kind, "output-varies");
    assert_eq!(b[0].commands.len(), 2);
    assert_eq!(b[0].commands[0].output, ["out 1", "out 2"]);
    assert_eq!(b[0].commands[1].line, 9);
    assert!(volatile(
        "100,000 games in 0.69 s (145k games/s, 27.1M decisions/s)"
    ));
    assert!(!volatile("│ 1 ┆ economist ┆ 75000 │"));
    let v = |x: &[&str]| x.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(matches(&v(&["a", "...", "z"]), &v(&["a", "b", "c", "z"])).is_ok());
    assert!(matches(&v(&["a", "...", "z"]), &v(&["a", "b", "c", "y"])).is_err());
    assert!(matches(&v(&["a", "b"]), &v(&["a", "b", "c"])).is_err());
    assert!(matches(&v(&["a", "b"]), &v(&["a", "x"])).is_err());
    assert!(matches(&v(&["a", "b"]), &v(&["a"])).is_err());
    assert!(matches(&v(&[]), &v(&["anything"])).is_ok());
    assert!(matches(&v(&["a", "1 games in 2 s", "b"]), &v(&["a", "b"])).is_ok());
    assert_eq!(
        blessed(&v(&["a", "...", "z"]), &v(&["A", "B", "C", "Z"])),
        v(&["A", "...", "Z"])
    );
}

/// Every Coup event, one of each kind (a kind added to the engine fails to
/// compile here until it is listed).
fn every_coup_event() -> Vec<koth_coup::Event> {
    use koth_coup::{Action, Card, Event};
    let all = vec![
        Event::Turn {
            actor: 0,
            number: 0,
        },
        Event::Act {
            actor: 0,
            action: Action::Tax,
        },
        Event::NoChallenge { player: 1 },
        Event::NoBlock { player: 1 },
        Event::Challenge {
            challenger: 1,
            claimant: 0,
            card: Card::Duke,
        },
        Event::Reveal {
            player: 0,
            card: Card::Duke,
            replaced: true,
        },
        Event::CaughtBluffing {
            player: 0,
            card: Card::Duke,
        },
        Event::Block {
            blocker: 1,
            card: Card::Duke,
        },
        Event::LoseInfluence {
            player: 0,
            card: Card::Duke,
        },
        Event::Penalty {
            player: 0,
            action: Some(Action::Tax),
        },
        Event::Eliminated { player: 0 },
        Event::Forfeit { player: 0 },
        Event::Gain {
            player: 0,
            coins: 3,
        },
        Event::Steal {
            thief: 0,
            victim: 1,
            coins: 2,
        },
        Event::Refund {
            player: 0,
            coins: 3,
        },
        Event::Blocked { blocker: 1 },
        Event::Exchanged { player: 0 },
    ];
    for e in &all {
        match e {
            Event::Turn { .. }
            | Event::Act { .. }
            | Event::NoChallenge { .. }
            | Event::NoBlock { .. }
            | Event::Challenge { .. }
            | Event::Reveal { .. }
            | Event::CaughtBluffing { .. }
            | Event::Block { .. }
            | Event::LoseInfluence { .. }
            | Event::Penalty { .. }
            | Event::Eliminated { .. }
            | Event::Forfeit { .. }
            | Event::Gain { .. }
            | Event::Steal { .. }
            | Event::Refund { .. }
            | Event::Blocked { .. }
            | Event::Exchanged { .. } => {}
        }
    }
    all
}

/// docs/protocol.md's table of Coup events names every event a bot can be
/// sent, each with exactly the fields its JSON has.
#[test]
fn the_protocols_table_of_events_is_every_event_with_its_fields() {
    let doc = std::fs::read_to_string(root().join("docs/protocol.md")).unwrap();
    let table = doc
        .split("<!-- coup-events:begin -->")
        .nth(1)
        .and_then(|t| t.split("<!-- coup-events:end -->").next())
        .expect("the events table's markers");
    let rows: Vec<(String, Vec<String>)> = table
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let name = cells
                .get(1)?
                .strip_prefix('`')?
                .strip_suffix('`')?
                .to_string();
            let fields = cells
                .get(2)?
                .split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect();
            Some((name, fields))
        })
        .filter(|(n, _)| n != "event")
        .collect();
    let events = every_coup_event();
    assert_eq!(rows.len(), events.len(), "{rows:?}");
    for e in events {
        let v = serde_json::to_value(e).unwrap();
        let name = v["event"].as_str().unwrap();
        let mut keys: Vec<String> = v
            .as_object()
            .unwrap()
            .keys()
            .filter(|k| *k != "event")
            .cloned()
            .collect();
        keys.sort();
        let row = rows
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("no row for {name}"));
        let mut shown = row.1.clone();
        shown.sort();
        assert_eq!(shown, keys, "the fields of {name}");
    }
}
