//! Whole tournaments of real programs (Python, Node, shell) through the library API:
//! leaderboards, forfeit reasons, and the archive.

use crate::common;
use common::*;
use koth_arena::programs;
use koth_arena::{Quiet, Standings};
use koth_ppcg::{entrants, tournament, PpcgOptions};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

/// A list file in a fresh folder with copies of the named programs.
fn field(test: &str, lines: &[(&str, &str)]) -> PathBuf {
    let dir = temp(test);
    let mut list = String::from("# name command\n");
    for (name, cmd) in lines {
        copy_dir(&program_dir(name), &dir.join(name));
        list.push_str(&format!("{name} {cmd}\n"));
    }
    std::fs::write(dir.join("programs.txt"), list).unwrap();
    dir.join("programs.txt")
}

fn run(list: &Path, builtins: &[&str], opts: &PpcgOptions) -> Standings {
    let progs = programs::load(list).unwrap();
    let b: Vec<String> = builtins.iter().map(|s| s.to_string()).collect();
    let t = tournament(entrants(&progs, &b, opts).unwrap(), opts).unwrap();
    let s = t.run(&mut Quiet);
    assert!(s.complete);
    s.standings
}

fn stats<'a>(s: &'a Standings, name: &str) -> &'a koth_arena::EntrantStats {
    s.entrants.iter().find(|e| e.name == name).unwrap()
}

fn logs(out: &Path) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = std::fs::read_dir(out)
        .unwrap()
        .filter_map(|e| {
            let p = e.ok()?.path();
            (p.extension()? == "log").then(|| {
                (
                    p.file_stem().unwrap().to_string_lossy().into_owned(),
                    std::fs::read_to_string(&p).unwrap(),
                )
            })
        })
        .collect();
    v.sort();
    v
}

#[test]
fn well_behaved_mixed_field() {
    let list = field(
        "t-good",
        &[
            ("Random", "python3 random_bot.py"),
            ("Challenger", "python3 challenger.py"),
            ("Truthful", "python3 truthful.py"),
            ("Stateful", "python3 stateful.py"),
            ("Waiter", "node waiter.js"),
        ],
    );
    let out = list.parent().unwrap().join("out");
    let mut opts = PpcgOptions::new(out.clone());
    opts.rounds = 1;
    opts.threads = 2;
    opts.seed = 7;
    let s = run(&list, &["honest"], &opts);
    let n = 6u64;
    assert_eq!(s.games, n * (n - 1));
    for e in &s.entrants {
        assert_eq!(e.games(), 2 * (n - 1), "{}", e.name);
        assert_eq!(e.forfeits, 0, "{} forfeited", e.name);
        assert_eq!(e.score.sum(), e.wins as f64);
    }
    let total_wins: u64 = s.entrants.iter().map(|e| e.wins).sum();
    let draws: u64 = s.entrants.iter().map(|e| e.draws).sum();
    assert_eq!(total_wins + draws / 2, s.games);
    // The archive: one history file and one log per game, named like the arbiter's.
    let l = logs(&out);
    assert_eq!(l.len() as u64, s.games);
    assert!(
        out.join("Random_Challenger_0_0.txt").exists()
            || out.join("Challenger_Random_0_0.txt").exists()
    );
    for (stem, log) in &l {
        let parts: Vec<&str> = stem.split('_').collect();
        assert_eq!(parts.len(), 4, "{stem}");
        assert_eq!(parts[2], "0");
        assert!(log.contains("result: "), "{log}");
        assert!(out.join(format!("{stem}.txt")).exists());
    }
    // Every ordered pair plays once in the round.
    for a in ["Random", "Waiter", "honest"] {
        for b in ["Challenger", "Stateful", "Truthful"] {
            assert!(
                l.iter()
                    .any(|(st, _)| st.starts_with(&format!("{a}_{b}_0_"))),
                "{a} vs {b}"
            );
            assert!(
                l.iter()
                    .any(|(st, _)| st.starts_with(&format!("{b}_{a}_0_"))),
                "{b} vs {a}"
            );
        }
    }
    // The stateful program kept its memory in its own copy of its folder, made
    // afresh for every game: the original is untouched, and each slot's copy counts
    // the invocations of the last game played there.
    assert!(!list.parent().unwrap().join("Stateful/memory.txt").exists());
    let per_game: Vec<usize> = l
        .iter()
        .filter(|(st, _)| st.contains("Stateful"))
        .map(|(_, log)| log.matches("invoke Stateful").count())
        .collect();
    for slot in 0..2 {
        let copy = out.join(format!("folders/slot-{slot}/Stateful/memory.txt"));
        let mem: usize = std::fs::read_to_string(&copy)
            .unwrap_or_else(|e| panic!("{}: {e}", copy.display()))
            .trim()
            .parse()
            .unwrap();
        assert!(per_game.contains(&mem), "{mem} not in {per_game:?}");
    }
    assert!(per_game.iter().all(|&k| k > 2), "{per_game:?}");
}

fn one_misbehaver(
    name: &str,
    cmd: &str,
    timeout_ms: u64,
    strict: bool,
) -> (Standings, Vec<(String, String)>) {
    let list = field(&format!("t-bad-{name}-{strict}"), &[(name, cmd)]);
    let out = list.parent().unwrap().join("out");
    let mut opts = PpcgOptions::new(out.clone());
    opts.rounds = 1;
    opts.threads = 2;
    opts.timeout = Duration::from_millis(timeout_ms);
    opts.strict = strict;
    // A program list needs two programs; load() refuses one, so parse directly.
    let progs = programs::parse(
        &std::fs::read_to_string(&list).unwrap(),
        list.parent().unwrap(),
    )
    .unwrap();
    let b = vec!["static".to_string()];
    let t = tournament(entrants(&progs, &b, &opts).unwrap(), &opts).unwrap();
    let s = t.run(&mut Quiet).standings;
    (s, logs(&out))
}

fn check_forfeits(name: &str, cmd: &str, reason: &str) {
    check_forfeits_in(name, cmd, reason, false);
}

fn check_forfeits_in(name: &str, cmd: &str, reason: &str, strict: bool) {
    let (s, logs) = one_misbehaver(name, cmd, 1000, strict);
    assert_eq!(stats(&s, name).forfeits, 2, "{name}: {logs:?}");
    assert_eq!(stats(&s, "static").wins, 2);
    assert_eq!(logs.len(), 2);
    for (_, log) in &logs {
        assert!(log.contains(&format!("{name} forfeits: {reason}")), "{log}");
        assert!(
            log.contains(&format!("static wins: {name} forfeits: {reason}")),
            "{log}"
        );
    }
}

#[test]
fn crash_forfeits_with_stderr_tail() {
    check_forfeits("Crasher", "./crash.sh", "non-zero exit status 2");
    let (_, logs) = one_misbehaver("Crasher", "./crash.sh", 1000, false);
    assert!(
        logs[0].1.contains("| crasher: something went wrong"),
        "{}",
        logs[0].1
    );
}

#[test]
fn rewriting_the_file_forfeits() {
    check_forfeits(
        "Rewriter",
        "python3 rewrite.py",
        "changed the file other than appending",
    );
}

#[test]
fn junk_before_a_move_forfeits_under_strict() {
    check_forfeits_in("Junk", "python3 junk.py", "illegal move \"x", true);
}

#[test]
fn writing_nothing_forfeits() {
    check_forfeits("Silent", "./silent.sh", "wrote nothing");
}

#[test]
fn wrong_cards_after_an_exchange_forfeit() {
    check_forfeits("BadExchange", "python3 bad_exchange.py", "illegal exchange");
}

#[test]
fn hanging_is_killed_and_forfeits() {
    let t = std::time::Instant::now();
    check_forfeits(
        "Hanger",
        "python3 hang.py",
        "timeout after 300 ms".trim_end_matches(" 300 ms"),
    );
    assert!(t.elapsed() < Duration::from_secs(20));
}

#[test]
fn junk_is_accepted_like_the_original_by_default() {
    let (s, logs) = one_misbehaver("Junk", "python3 junk.py", 1000, false);
    // Its first moves are accepted (junk and all); it may still lose, but the first
    // invocation is no forfeit.
    for (_, log) in &logs {
        assert!(!log.contains("Junk forfeits: illegal move \"x"), "{log}");
        // The junk stays in the file, as in the original.
        let text = std::fs::read_to_string(Path::new(&history_path_of(log))).unwrap();
        assert!(text.contains('x'), "{text:?}");
    }
    assert!(stats(&s, "Junk").games() == 2);
}

fn history_path_of(log: &str) -> String {
    log.lines()
        .nth(1)
        .unwrap_or("")
        .trim_start_matches("history file: ")
        .to_string()
}

#[test]
fn draws_start_fresh_and_score_nothing() {
    // Two programs that only take Income: every game hits a tiny cap. The original
    // arbiter kept coins and cards after a draw and crashed after three draws.
    let list = field(
        "t-draw",
        &[
            ("Waiter", "node waiter.js"),
            ("Stateful", "python3 stateful.py"),
        ],
    );
    let out = list.parent().unwrap().join("out");
    let mut opts = PpcgOptions::new(out.clone());
    opts.rounds = 3;
    opts.max_invocations = 4;
    let s = run(&list, &[], &opts);
    assert_eq!(s.games, 6);
    for e in &s.entrants {
        assert_eq!(e.score.sum(), 0.0);
        assert_eq!(e.draws, 6);
    }
    for (_, log) in logs(&out) {
        assert!(
            log.contains("4 invocations without a winner: both lose"),
            "{log}"
        );
        // Every game starts with one coin each.
        assert!(log.contains("[\"1\", \"1\","), "{log}");
    }
}

#[test]
fn results_do_not_depend_on_threads() {
    let list = field(
        "t-threads",
        &[
            ("Waiter", "node waiter.js"),
            // Its moves follow a state file it keeps in its folder.
            ("Memory", "python3 memory.py"),
        ],
    );
    let mut a = PpcgOptions::new(list.parent().unwrap().join("out1"));
    a.rounds = 1;
    a.seed = 99;
    a.threads = 1;
    let mut b = a.clone();
    b.out_dir = list.parent().unwrap().join("out2");
    b.threads = 2;
    let progs = programs::parse(
        &std::fs::read_to_string(&list).unwrap(),
        list.parent().unwrap(),
    )
    .unwrap();
    let bs = vec!["honest".to_string(), "counter".to_string()];
    let sa = tournament(entrants(&progs, &bs, &a).unwrap(), &a)
        .unwrap()
        .run(&mut Quiet)
        .standings;
    let sb = tournament(entrants(&progs, &bs, &b).unwrap(), &b)
        .unwrap()
        .run(&mut Quiet)
        .standings;
    assert_eq!(sa.entrants, sb.entrants);
    assert_eq!(logs(&a.out_dir).len(), logs(&b.out_dir).len());
    for (x, y) in logs(&a.out_dir).iter().zip(logs(&b.out_dir)) {
        assert_eq!(x.0, y.0);
        let hx = std::fs::read_to_string(a.out_dir.join(format!("{}.txt", x.0))).unwrap();
        let hy = std::fs::read_to_string(b.out_dir.join(format!("{}.txt", y.0))).unwrap();
        assert_eq!(hx, hy);
    }
}
