//! Damaged and tampered run folders: `koth report`, `koth merge`, `koth replay` and
//! `--resume` never panic; they name the file and line, or go on with what is sound.

use crate::common;

use common::koth_code as koth;
use proptest::prelude::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A sound run of 12 full-record games (made once), as lines of games.jsonl.
fn sound_run() -> &'static (PathBuf, Vec<String>) {
    static RUN: OnceLock<(PathBuf, Vec<String>)> = OnceLock::new();
    RUN.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("koth-fuzz-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let out = dir.join("sound");
        let (code, err) = koth(&[
            "coup",
            "loop",
            "--games",
            "12",
            "--seed",
            "3",
            "--threads",
            "1",
            "-q",
            "--records",
            "full",
            "--bots",
            "honest,random,bluffer",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, Some(0), "{err}");
        let text = std::fs::read_to_string(out.join("games.jsonl")).unwrap();
        (out, text.lines().map(str::to_string).collect())
    })
}

/// One way to damage a record.
#[derive(Debug, Clone)]
enum Damage {
    SetNumber {
        field: &'static str,
        value: i64,
    },
    SetSeat {
        seat: usize,
        value: i64,
    },
    SetScore {
        seat: usize,
        value: f64,
    },
    Winners(u64),
    Forfeit {
        seat: i64,
        entrant: i64,
    },
    DropChoices(usize),
    /// A character that is no choice's code, at this position of the choices.
    BadChoice(usize),
    Duplicate,
    Delete,
    Garbage(Vec<u8>),
    Truncate(usize),
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        (
            prop::sample::select(vec!["index", "seed", "decisions"]),
            -5i64..100
        )
            .prop_map(|(field, value)| Damage::SetNumber { field, value }),
        (0usize..4, -2i64..9).prop_map(|(seat, value)| Damage::SetSeat { seat, value }),
        (0usize..4, -3.0f64..3.0).prop_map(|(seat, value)| Damage::SetScore { seat, value }),
        (0u64..300).prop_map(Damage::Winners),
        (-1i64..9, -1i64..9).prop_map(|(seat, entrant)| Damage::Forfeit { seat, entrant }),
        (0usize..200).prop_map(Damage::DropChoices),
        (0usize..200).prop_map(Damage::BadChoice),
        Just(Damage::Duplicate),
        Just(Damage::Delete),
        prop::collection::vec(any::<u8>(), 1..40).prop_map(Damage::Garbage),
        (0usize..400).prop_map(Damage::Truncate),
    ]
}

fn apply(lines: &mut Vec<String>, k: usize, d: &Damage) {
    let k = k % lines.len();
    let mut v: Value = serde_json::from_str(&lines[k]).unwrap();
    match d {
        Damage::SetNumber { field, value } => v[*field] = (*value).into(),
        Damage::SetSeat { seat, value } => {
            if let Some(s) = v["seats"].as_array_mut() {
                if let Some(x) = s.get_mut(*seat) {
                    *x = (*value).into();
                }
            }
        }
        Damage::SetScore { seat, value } => {
            if let Some(s) = v["scores"].as_array_mut() {
                if let Some(x) = s.get_mut(*seat) {
                    *x = (*value).into();
                }
            }
        }
        Damage::Winners(w) => v["outcome"]["winners"] = (*w).into(),
        Damage::Forfeit { seat, entrant } => {
            v["forfeits"] = serde_json::json!([{ "seat": seat, "at": 0, "entrant": entrant,
                "fault": { "reason": "tampered" } }]);
        }
        Damage::DropChoices(n) => {
            // Choices are a string of one-character codes.
            if let Some(c) = v["choices"].as_str() {
                let keep = c.len().saturating_sub(*n % (c.len() + 1));
                v["choices"] = c[..keep].into();
            }
        }
        Damage::BadChoice(n) => {
            if let Some(c) = v["choices"].as_str() {
                let mut c = c.to_string();
                let at = *n % c.len().max(1);
                c.replace_range(at..(at + 1).min(c.len()), "*");
                v["choices"] = c.into();
            }
        }
        Damage::Duplicate => {
            let l = lines[k].clone();
            lines.insert(k, l);
            return;
        }
        Damage::Delete => {
            lines.remove(k);
            return;
        }
        Damage::Garbage(bytes) => {
            lines[k] = String::from_utf8_lossy(bytes).replace('\n', " ");
            return;
        }
        Damage::Truncate(n) => {
            let l = &lines[k];
            let cut = (*n).min(l.len());
            let mut cut = cut;
            while !l.is_char_boundary(cut) {
                cut -= 1;
            }
            lines[k] = l[..cut].to_string();
            return;
        }
    }
    lines[k] = v.to_string();
}

fn copy_run(from: &Path, to: &Path, lines: &[String]) {
    let _ = std::fs::remove_dir_all(to);
    std::fs::create_dir_all(to).unwrap();
    std::fs::copy(from.join("run.json"), to.join("run.json")).unwrap();
    std::fs::write(to.join("games.jsonl"), lines.join("\n") + "\n").unwrap();
}

fn no_panic(what: &str, (code, err): (Option<i32>, String)) {
    assert!(
        code != Some(101) && !err.contains("panicked"),
        "{what} panicked:\n{err}"
    );
    assert!(code.is_some(), "{what} was killed by a signal:\n{err}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn damaged_runs_never_panic(k in 0usize..12, d in damage(), game in 0u64..14) {
        let (sound, lines) = sound_run();
        let mut lines = lines.clone();
        apply(&mut lines, k, &d);
        let dir = sound.parent().unwrap().join(format!("case-{k}-{game}"));
        let run = dir.join("run");
        copy_run(sound, &run, &lines);
        let r = run.to_str().unwrap();
        no_panic("report", koth(&["report", r]));
        no_panic("replay", koth(&["replay", r, "--game", &game.to_string()]));
        let merged = dir.join("merged");
        no_panic("merge", koth(&["merge", r, "--out", merged.to_str().unwrap()]));
        no_panic("resume", koth(&[
            "coup", "loop", "--games", "12", "--seed", "3", "--threads", "1", "-q",
            "--records", "full", "--bots", "honest,random,bluffer", "--out", r, "--resume",
        ]));
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Tampering that parses is caught and named: the file, the line, what is wrong.
#[test]
fn tampered_records_are_named() {
    let (sound, lines) = sound_run();
    let cases: [(Damage, &str); 6] = [
        (
            Damage::SetSeat { seat: 0, value: 7 },
            "seats entrant 7, but the run has 3 entrants",
        ),
        (
            Damage::SetScore {
                seat: 0,
                value: 2.5,
            },
            "recorded with score 2.5",
        ),
        (
            Damage::Forfeit {
                seat: 5,
                entrant: 1,
            },
            "a forfeit of seat 5",
        ),
        (
            Damage::SetNumber {
                field: "index",
                value: 40,
            },
            "game 40 is not one of this run's games 0..12",
        ),
        (Damage::Duplicate, "is recorded twice"),
        (Damage::BadChoice(3), "choice 3 has no meaning: '*'"),
    ];
    for (i, (d, want)) in cases.iter().enumerate() {
        let mut l = lines.clone();
        apply(&mut l, 4, d);
        let run = sound.parent().unwrap().join(format!("tampered-{i}"));
        copy_run(sound, &run, &l);
        let (code, err) = koth(&["report", run.to_str().unwrap()]);
        assert_eq!(code, Some(2), "{d:?}: {err}");
        assert!(
            err.contains("games.jsonl:5") || err.contains("games.jsonl:6"),
            "{d:?}: {err}"
        );
        assert!(err.contains(want), "{d:?}: {err}");
    }
}

/// Overlapping shards are refused with both folders named, never "games 1500..0".
#[test]
fn overlapping_shards_are_named() {
    let base = std::env::temp_dir().join(format!("koth-fuzz-shards-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let mut dirs = Vec::new();
    for shard in ["1/2", "1/2", "2/2"] {
        let d = base.join(format!("s{}", dirs.len()));
        let (code, err) = koth(&[
            "coup",
            "loop",
            "--games",
            "20",
            "--seed",
            "3",
            "-q",
            "--bots",
            "honest,random",
            "--shard",
            shard,
            "--out",
            d.to_str().unwrap(),
        ]);
        assert_eq!(code, Some(0), "{err}");
        dirs.push(d);
    }
    let out = base.join("merged");
    let (code, err) = koth(&[
        "merge",
        dirs[0].to_str().unwrap(),
        dirs[1].to_str().unwrap(),
        dirs[2].to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("overlaps"), "{err}");
    let _ = std::fs::remove_dir_all(&base);
}
