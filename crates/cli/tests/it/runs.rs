//! Runs on disk: a real process killed mid-run and resumed, shards merged, games
//! replayed, for Coup and Samurai, in-process and external bots.

use crate::common;
use common::koth;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("koth-runs-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

/// Starts a long run, waits for some games on disk, sends `signal`, and returns
/// how many games were on disk after it died.
fn interrupt(dir: &Path, signal: i32) -> usize {
    interrupt_seen(dir, signal).0
}

/// As [`interrupt`], with koth's exit code and what it printed.
fn interrupt_seen(dir: &Path, signal: i32) -> (usize, Option<i32>, String) {
    let child = Command::new(env!("CARGO_BIN_EXE_koth"))
        .args([
            "coup",
            "loop",
            "--games",
            "40000",
            "--seed",
            "21",
            "-q",
            "--threads",
            "2",
            "--out",
            dir.to_str().unwrap(),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while lines(&dir.join("games.jsonl")) < 2_000 {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no games written"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    unsafe { libc::kill(child.id() as i32, signal) };
    let out = child.wait_with_output().unwrap();
    (
        lines(&dir.join("games.jsonl")),
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn reference() -> serde_json::Value {
    static ONCE: std::sync::OnceLock<serde_json::Value> = std::sync::OnceLock::new();
    ONCE.get_or_init(|| {
        let d = tmp("reference");
        let (ok, _, err) = koth(&[
            "coup",
            "loop",
            "--games",
            "40000",
            "--seed",
            "21",
            "-q",
            "--out",
            d.to_str().unwrap(),
        ]);
        assert!(ok, "{err}");
        let v = json(&d.join("summary.json"));
        std::fs::remove_dir_all(&d).ok();
        v
    })
    .clone()
}

#[test]
fn a_killed_run_resumes_to_the_uninterrupted_results() {
    let d = tmp("killed");
    let on_disk = interrupt(&d, libc::SIGKILL);
    assert!(on_disk < 40_000, "the run was killed before the end");
    let (ok, _, err) = koth(&[
        "coup",
        "loop",
        "--games",
        "40000",
        "-q",
        "--out",
        d.to_str().unwrap(),
        "--resume",
    ]);
    assert!(ok, "{err}");
    assert!(err.contains("resuming"), "{err}");
    assert_eq!(lines(&d.join("games.jsonl")), 40_000);
    let resumed = json(&d.join("summary.json"));
    let whole = reference();
    assert_eq!(resumed["standings"], whole["standings"]);
    assert_eq!(resumed["head_to_head"], whole["head_to_head"]);
    assert_eq!(resumed["seed"], 21, "the seed comes from the run folder");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn ctrl_c_stops_cleanly_and_resumes() {
    let d = tmp("interrupted");
    let (on_disk, code, out) = interrupt_seen(&d, libc::SIGINT);
    // As a shell reports an interrupted command, with the way to continue.
    assert_eq!(code, Some(130), "{out}");
    let resume = out
        .lines()
        .skip_while(|l| !l.starts_with("interrupted: continue with"))
        .nth(1)
        .unwrap_or_default();
    assert!(
        resume.contains("coup loop --games 40000 --seed 21") && resume.ends_with(" --resume"),
        "{out}"
    );
    let partial = json(&d.join("summary.json"));
    assert_eq!(partial["complete"], false);
    assert_eq!(
        partial["games"].as_u64().unwrap() as usize,
        on_disk,
        "every game played was flushed"
    );
    let (ok, _, err) = koth(&[
        "coup",
        "loop",
        "--games",
        "40000",
        "-q",
        "--out",
        d.to_str().unwrap(),
        "--resume",
    ]);
    assert!(ok, "{err}");
    assert_eq!(
        json(&d.join("summary.json"))["standings"],
        reference()["standings"]
    );
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn sigterm_and_sighup_stop_like_ctrl_c() {
    // What Kubernetes, Slurm and a closed terminal send.
    for sig in [libc::SIGTERM, libc::SIGHUP] {
        let d = tmp(&format!("signal-{sig}"));
        let on_disk = interrupt(&d, sig);
        let partial = json(&d.join("summary.json"));
        assert_eq!(partial["complete"], false, "signal {sig}");
        assert_eq!(partial["games"].as_u64().unwrap() as usize, on_disk);
        std::fs::remove_dir_all(&d).ok();
    }
}

#[test]
fn a_run_folder_is_not_overwritten_and_resume_checks_the_options() {
    let d = tmp("guard");
    let ds = d.to_str().unwrap();
    assert!(koth(&["coup", "loop", "--games", "50", "--seed", "1", "-q", "--out", ds]).0);
    let (ok, _, err) = koth(&[
        "coup", "loop", "--games", "50", "--seed", "1", "-q", "--out", ds,
    ]);
    assert!(!ok && err.contains("--resume"), "{err}");
    let (ok, _, err) = koth(&[
        "coup",
        "loop",
        "--games",
        "50",
        "--bots",
        "honest,random",
        "-q",
        "--out",
        ds,
        "--resume",
    ]);
    assert!(!ok && err.contains("another tournament"), "{err}");
    let (ok, _, err) = koth(&[
        "coup", "loop", "--games", "50", "--seed", "2", "-q", "--out", ds, "--resume",
    ]);
    assert!(!ok && err.contains("seed"), "{err}");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn three_shards_merge_into_one_run() {
    let base = tmp("shards");
    let mut parts = Vec::new();
    for i in 1..=3 {
        let d = base.join(format!("part{i}"));
        let shard = format!("{i}/3");
        let (ok, _, err) = koth(&[
            "coup",
            "loop",
            "--games",
            "9000",
            "--seed",
            "5",
            "-q",
            "--shard",
            &shard,
            "--out",
            d.to_str().unwrap(),
        ]);
        assert!(ok, "{err}");
        parts.push(d);
    }
    let whole = base.join("whole");
    assert!(
        koth(&[
            "coup",
            "loop",
            "--games",
            "9000",
            "--seed",
            "5",
            "-q",
            "--out",
            whole.to_str().unwrap()
        ])
        .0
    );
    let merged = base.join("merged");
    // Incomplete sets are refused.
    let (ok, _, err) = koth(&[
        "merge",
        parts[0].to_str().unwrap(),
        parts[2].to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]);
    assert!(!ok && err.contains("missing"), "{err}");
    let mut args = vec!["merge"];
    let names: Vec<String> = parts
        .iter()
        .rev()
        .map(|p| p.to_str().unwrap().to_string())
        .collect();
    args.extend(names.iter().map(String::as_str));
    args.extend(["--out", merged.to_str().unwrap()]);
    let (ok, out, err) = koth(&args);
    assert!(ok, "{err}");
    assert!(out.contains("merged 3 shards"));
    assert_eq!(
        std::fs::read(merged.join("games.jsonl")).unwrap(),
        std::fs::read(whole.join("games.jsonl")).unwrap()
    );
    assert_eq!(
        json(&merged.join("summary.json"))["standings"],
        json(&whole.join("summary.json"))["standings"]
    );
    std::fs::remove_dir_all(&base).ok();
}

#[test]
fn replaying_a_recorded_coup_game_reproduces_it() {
    let d = tmp("replay-coup");
    assert!(
        koth(&[
            "coup",
            "loop",
            "--games",
            "40",
            "--seed",
            "2",
            "-q",
            "--out",
            d.to_str().unwrap()
        ])
        .0
    );
    for k in [0, 17, 39] {
        let (ok, out, err) = koth(&["replay", d.to_str().unwrap(), "--game", &k.to_string()]);
        assert!(ok, "{err}");
        assert!(
            out.contains("Turn 1:") && out.contains("(as recorded)"),
            "{out}"
        );
    }
    let (ok, _, err) = koth(&["replay", d.to_str().unwrap(), "--game", "40"]);
    assert!(!ok && err.contains("no game 40"), "{err}");
    // Results-only runs say why they cannot be replayed.
    let c = tmp("replay-compact");
    assert!(
        koth(&[
            "coup",
            "loop",
            "--games",
            "5",
            "--seed",
            "2",
            "-q",
            "--records",
            "results",
            "--out",
            c.to_str().unwrap()
        ])
        .0
    );
    let (ok, _, err) = koth(&["replay", c.to_str().unwrap(), "--game", "1"]);
    assert!(!ok && err.contains("results only"), "{err}");
    std::fs::remove_dir_all(&d).ok();
    std::fs::remove_dir_all(&c).ok();
}

/// Runs recorded before choices were codes hold JSON lists: they still replay and
/// report the same, and the codes are what the choices were.
#[test]
fn runs_with_choices_as_json_lists_still_replay() {
    let d = tmp("old-format");
    let run = d.to_str().unwrap();
    assert!(koth(&["coup", "loop", "--games", "12", "--seed", "4", "-q", "--out", run]).0);
    let games = d.join("games.jsonl");
    let coded = std::fs::read_to_string(&games).unwrap();
    let before: Vec<String> = [3, 11]
        .iter()
        .map(|k| koth(&["replay", run, "--game", &k.to_string()]).1)
        .collect();
    let mut old = String::new();
    for line in coded.lines() {
        let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
        let codes = v["choices"]
            .as_str()
            .expect("choices are codes")
            .to_string();
        let list: Vec<koth_coup::Choice> = koth_arena::code::decode(&codes).unwrap();
        v["choices"] = serde_json::to_value(&list).unwrap();
        old.push_str(&v.to_string());
        old.push('\n');
    }
    assert!(old.contains(r#""choices":[{"act":"#), "{old}");
    std::fs::write(&games, old).unwrap();
    for (k, want) in [3, 11].iter().zip(&before) {
        let (ok, out, err) = koth(&["replay", run, "--game", &k.to_string()]);
        assert!(ok, "{err}");
        assert_eq!(&out, want);
    }
    let (ok, _, err) = koth(&["report", run]);
    assert!(ok, "{err}");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn replaying_games_with_external_bots() {
    // Samurai: an external program (shell) against a built-in.
    let d = tmp("replay-samurai");
    std::fs::create_dir_all(d.join("Bower")).unwrap();
    std::fs::write(
        d.join("Bower/b.sh"),
        "#!/bin/sh\nif [ \"$#\" -ge 6 ] && [ \"$5\" -ge 7 ]; then echo I; else echo B; fi\n",
    )
    .unwrap();
    std::fs::write(d.join("list.txt"), "Bower sh b.sh\n").unwrap();
    let run = d.join("run");
    let (ok, _, err) = koth(&[
        "samurai",
        d.join("list.txt").to_str().unwrap(),
        "--builtin",
        "guardian",
        "--matches",
        "2",
        "--seed",
        "1",
        "-q",
        "--out",
        run.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let (ok, out, err) = koth(&["replay", run.to_str().unwrap(), "--game", "1"]);
    assert!(ok, "{err}");
    assert!(
        out.contains("turn 1:") && out.contains("(as recorded)"),
        "{out}"
    );
    // Coup: a Python bot over the JSON-lines protocol.
    let sdk = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../sdk/python/example_bot.py");
    let run2 = d.join("run2");
    let bot = format!("py=cmd:python3 {}", sdk.display());
    let (ok, _, err) = koth(&[
        "run",
        "--bot",
        &bot,
        "--bot",
        "h=builtin:honest",
        "--games",
        "6",
        "--seed",
        "3",
        "-q",
        "--out",
        run2.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let (ok, out, err) = koth(&["replay", run2.to_str().unwrap(), "--game", "5"]);
    assert!(ok, "{err}");
    assert!(out.contains("(as recorded)"), "{out}");
    std::fs::remove_dir_all(&d).ok();
}

/// The processes whose parent is `pid`.
/// Live host processes whose program name starts with `argv0` and whose command line
/// mentions `marker`
/// (a bot in its own PID namespace has another pid inside, so it is found this way).
fn processes(argv0: &str, marker: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(p) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(format!("/proc/{p}/cmdline")) else {
            continue;
        };
        let line = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        let first = line.split(' ').next().unwrap_or("");
        let name = first.rsplit('/').next().unwrap_or("");
        if name.starts_with(argv0) && line.contains(marker) && alive(p) {
            out.push(p);
        }
    }
    out
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            let state = s
                .rsplit_once(')')
                .map(|(_, r)| r.trim_start())
                .unwrap_or("");
            !state.starts_with('Z')
        })
        .unwrap_or(false)
}

/// Runs a tournament with a bot that greets, then ignores everything; sends the
/// arena `signals` (a pause between them) once the bots play, and checks that no
/// bot process, nor any sandbox around one, outlives the arena.
fn bots_die_with_the_arena(tag: &str, signals: &[i32]) {
    // A bot that greets, then ignores its input: a closed pipe does not end it.
    let top = tmp(&format!("orphans-{tag}"));
    let d = top.join("bot");
    std::fs::create_dir_all(&d).unwrap();
    let out = top.join("out");
    // Named for the test: the bot runs as `python3 stubborn-TAG.py` in its folder.
    let bot = d.join(format!("stubborn-{tag}.py"));
    // It notes its pid in its folder (its copy of the arena's current one) once
    // greeted, then sleeps through everything.
    std::fs::write(
        &bot,
        "import os, sys, time\nsys.stdin.readline()\nprint('{\"type\": \"ready\"}', flush=True)\n\
         open('greeted-%d' % os.getpid(), 'w').close()\ntime.sleep(600)\n",
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_koth"))
        .args([
            "run",
            "--bot",
            &format!("me=cmd:python3 {}", bot.display()),
            "--bot",
            "h=builtin:honest",
            "--games",
            "1000",
            "--threads",
            "2",
            "-q",
            "--out",
            out.to_str().unwrap(),
        ])
        .current_dir(&d)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let script = format!("stubborn-{tag}.py");
    let start = Instant::now();
    // One running per worker (their folders are private: the greeting is not seen
    // from here; the processes and where each waits are).
    loop {
        // Greeted: asleep after answering (before, each waits on its pipe).
        let asleep = processes("python3", &script)
            .into_iter()
            .filter(|p| {
                std::fs::read_to_string(format!("/proc/{p}/wchan"))
                    .is_ok_and(|w| w.contains("nanosleep"))
            })
            .count();
        if asleep >= 2 {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "no bot was greeted"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    for &sig in signals {
        unsafe { libc::kill(child.id() as i32, sig) };
        std::thread::sleep(Duration::from_millis(100));
    }
    // Games under way finish (the bot forfeits each on its time limit), then koth
    // stops.
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "{tag}: koth did not stop"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let start = Instant::now();
    loop {
        // The bots, and any sandbox process around them.
        let left: Vec<u32> = ["python3", "bwrap"]
            .iter()
            .flat_map(|p| processes(p, &script))
            .collect();
        if left.is_empty() {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{tag}: processes {left:?} outlived the arena"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::fs::remove_dir_all(&top).ok();
}

#[test]
fn bots_die_with_a_killed_arena() {
    // SIGKILL: no handler runs, nothing is cleaned up by the arena itself.
    bots_die_with_the_arena("kill", &[libc::SIGKILL]);
}

#[test]
fn bots_die_with_an_arena_stopped_by_a_signal() {
    bots_die_with_the_arena("term", &[libc::SIGTERM]);
    bots_die_with_the_arena("hup", &[libc::SIGHUP]);
    // A second Ctrl-C stops at once.
    bots_die_with_the_arena("int-twice", &[libc::SIGINT, libc::SIGINT]);
}

/// A machine with no thread to spare (a container's PID limit, here a control group
/// that allows one task): the run plays its games on the main thread.
#[test]
fn runs_where_no_thread_can_be_created() {
    let s = koth_process::sandbox_support();
    if !s.cgroups {
        assert!(
            std::env::var_os("KOTH_REQUIRE_ISOLATION").is_none(),
            "{}",
            s.detail
        );
        println!("SKIPPED (no cgroups): {}", s.detail);
        return;
    }
    let d = tmp("one-task");
    std::fs::create_dir_all(&d).unwrap();
    let cmd = koth_process::Command::new(
        [
            env!("CARGO_BIN_EXE_koth"),
            "coup",
            "loop",
            "--games",
            "304",
            "--threads",
            "4",
            "--seed",
            "1",
            "-q",
        ],
        &d,
    )
    .with_sandbox(koth_process::Sandbox::Off)
    .with_limits(koth_process::Limits {
        tasks: Some(1),
        ..koth_process::Limits::standard()
    });
    let r = koth_process::invoke(&cmd, &[], Duration::from_secs(60), 1 << 20);
    assert_eq!(r.exit, koth_process::Exit::Code(0), "{}", r.stderr_tail);
    assert!(
        r.stdout_lossy().contains("304 games in"),
        "{}",
        r.stdout_lossy()
    );
    std::fs::remove_dir_all(&d).ok();
}

/// A run folder that lost its run.json: each command says what to do, and neither
/// sends the user to the other.
#[test]
fn resume_advice_without_run_json() {
    let d = tmp("no-run-json");
    let out = d.join("run");
    let o = out.to_str().unwrap();
    let koth = |extra: &[&str]| {
        let mut args = vec![
            "coup", "loop", "--games", "30", "--seed", "1", "-q", "--out", o,
        ];
        args.extend_from_slice(extra);
        let r = Command::new(env!("CARGO_BIN_EXE_koth"))
            .args(&args)
            .output()
            .unwrap();
        (
            r.status.success(),
            String::from_utf8_lossy(&r.stderr).into_owned(),
        )
    };
    let (ok, err) = koth(&["--resume"]);
    assert!(
        !ok && err.contains("it holds no run") && err.contains("leave out --resume"),
        "{err}"
    );
    assert!(koth(&[]).0);
    std::fs::remove_file(out.join("run.json")).unwrap();
    let (ok, err) = koth(&["--resume"]);
    assert!(
        !ok && err.contains("run.json is missing") && !err.contains("add --resume"),
        "{err}"
    );
    let (ok, err) = koth(&[]);
    assert!(
        !ok && err.contains("no run.json") && !err.contains("add --resume"),
        "{err}"
    );
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn a_duplicate_run_cut_mid_deal_resumes_and_merges_to_the_same_standings() {
    let base = tmp("duplicate");
    let run = |dir: &Path, extra: &[&str]| {
        let mut args = vec![
            "coup",
            "loop",
            "--games",
            "3001",
            "--seed",
            "8",
            "-q",
            "--duplicate",
            "--bots",
            "honest,static,economist",
            "--summary-json",
        ];
        let summary = dir.with_extension("json");
        args.push(summary.to_str().unwrap());
        args.extend(["--out", dir.to_str().unwrap()]);
        args.extend(extra);
        let (ok, out, err) = koth(&args);
        assert!(ok, "{err}");
        (out, err)
    };
    let whole = base.join("whole");
    std::fs::create_dir_all(&base).unwrap();
    let (out, err) = run(&whole, &[]);
    // 3001 games are 1001 deals of 3 rotations, rounded up to whole rounds of 3 deals.
    assert!(
        err.contains("3006 games (1002 deals × 3 rotations, 3001 rounded up to whole rounds)"),
        "{err}"
    );
    let reference = json(&whole.with_extension("json"));
    assert_eq!(reference["duplicate"], true);
    assert_eq!(reference["games"], 3006);
    assert!(out.contains("mean ± 95%"), "{out}");
    // Cut the record file in the middle of a deal, then resume.
    let cut = base.join("cut");
    run(&cut, &[]);
    let text = std::fs::read_to_string(cut.join("games.jsonl")).unwrap();
    let kept: Vec<&str> = text.lines().take(1000).collect(); // deal 333, rotation 1
    std::fs::write(cut.join("games.jsonl"), kept.join("\n") + "\n").unwrap();
    run(&cut, &["--resume"]);
    let resumed = json(&cut.with_extension("json"));
    assert_eq!(resumed["standings"], reference["standings"]);
    // Shards split deals too; merged, they give the same standings.
    let mut parts = Vec::new();
    for i in 1..=2 {
        let d = base.join(format!("part{i}"));
        run(&d, &["--shard", &format!("{i}/2")]);
        parts.push(d.to_str().unwrap().to_string());
    }
    let merged = base.join("merged");
    let (ok, out, err) = koth(&[
        "merge",
        &parts[0],
        &parts[1],
        "--out",
        merged.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("mean ± 95%"), "{out}");
    assert_eq!(
        json(&merged.join("summary.json"))["standings"],
        reference["standings"]
    );
    std::fs::remove_dir_all(&base).ok();
}

/// `koth gauntlet --out DIR` keeps every game; an interrupted gauntlet resumed with
/// --resume ends exactly as one that was never interrupted.
#[test]
fn a_gauntlet_is_recorded_and_resumes_to_the_same_verdict() {
    let dir = std::env::temp_dir().join(format!("koth-gauntlet-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.join("g");
    let args = |extra: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = [
            "gauntlet",
            "--candidate",
            "counter",
            "--pool",
            "honest,bluffer",
            "--max-games",
            "600",
            "--batch",
            "100",
            "--seed",
            "8",
            "--threads",
            "2",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    let run = |extra: &[&str]| {
        let a = args(extra);
        let refs: Vec<&str> = a.iter().map(String::as_str).collect();
        let (ok, stdout, stderr) = common::koth(&refs);
        assert!(ok, "{stdout}{stderr}");
        stdout
    };
    let plain = run(&[]);
    // The same verdict, and where the run went.
    let said = format!(
        "run recorded in {} (koth report {} draws it, with the verdict)\n",
        out.display(),
        out.display()
    );
    let recorded = run(&["--out", out.to_str().unwrap()]);
    assert_eq!(recorded, format!("{plain}{said}"));
    let games = std::fs::read_to_string(out.join("games.jsonl")).unwrap();
    let n = games.lines().count();
    assert!(n >= 100 && n.is_multiple_of(100) || n == 600, "{n}");
    // Cut the run short, as an interruption would, and resume it.
    let kept: String = games
        .lines()
        .take(n / 2)
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(out.join("games.jsonl"), kept).unwrap();
    let resumed = run(&["--out", out.to_str().unwrap(), "--resume"]);
    assert_eq!(resumed, format!("{plain}{said}"));
    assert_eq!(
        std::fs::read_to_string(out.join("games.jsonl"))
            .unwrap()
            .lines()
            .count(),
        n
    );
    // The recorded games replay.
    let (ok, replay, _) = common::koth(&["replay", out.to_str().unwrap(), "--game", "0"]);
    assert!(ok && replay.contains("(as recorded)"), "{replay}");
}

#[test]
fn merged_shards_keep_what_their_programs_logged_and_how_long_they_took() {
    let base = tmp("shard-logs");
    std::fs::create_dir_all(base.join("bot")).unwrap();
    let sdk = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../sdk/python/koth_bot.py");
    std::fs::copy(&sdk, base.join("bot/koth_bot.py")).unwrap();
    std::fs::write(
        base.join("bot/bot.py"),
        "from koth_bot import Bot, find, log, run\n\
         class L(Bot):\n    name = \"talker\"\n\
         \x20   def decide(self, decision, view, legal):\n\
         \x20       log(\"turn\", view[\"turn\"], decision[\"kind\"])\n\
         \x20       return find(legal, \"act\", \"income\") or find(legal, \"pass\") or legal[0]\n\
         run(L())\n",
    )
    .unwrap();
    let bot = format!("talker=cmd:python3 {}", base.join("bot/bot.py").display());
    let play = |out: &Path, shard: Option<&str>| {
        let mut args = vec![
            "coup",
            "run",
            "--bot",
            &bot,
            "--builtin",
            "honest",
            "--games",
            "6",
            "--seed",
            "4",
            "-q",
            "--out",
        ];
        args.push(out.to_str().unwrap());
        if let Some(s) = shard {
            args.extend(["--shard", s]);
        }
        let (ok, _, err) = koth(&args);
        assert!(ok, "{err}");
    };
    let (p1, p2, whole, merged) = (
        base.join("p1"),
        base.join("p2"),
        base.join("whole"),
        base.join("merged"),
    );
    play(&p1, Some("1/2"));
    play(&p2, Some("2/2"));
    play(&whole, None);
    let (ok, _, err) = koth(&[
        "merge",
        p1.to_str().unwrap(),
        p2.to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    // The same lines at the same decisions as one machine's run, and a time
    // for each of the program's decisions (times differ from run to run).
    let (a, b) = (
        koth_arena::records::read_logs(&merged),
        koth_arena::records::read_logs(&whole),
    );
    assert_eq!(a.len(), 6);
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (k, log) in &a {
        assert_eq!(log.lines, b[k].lines, "game {k}");
        let at = |l: &koth_arena::GameLog| l.times.iter().map(|t| (t.0, t.1)).collect::<Vec<_>>();
        assert_eq!(at(log), at(&b[k]), "game {k}");
        assert!(!log.times.is_empty());
    }
    // Each process's whole stderr, named for its shard.
    let names: Vec<String> = std::fs::read_dir(merged.join("logs"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    for s in ["shard-1.talker", "shard-2.talker"] {
        // One file a process; a slot that played no game may have logged nothing.
        let text: String = names
            .iter()
            .filter(|n| n.starts_with(s))
            .map(|f| std::fs::read_to_string(merged.join("logs").join(f)).unwrap())
            .collect();
        assert!(text.contains("turn "), "{s}: {names:?}");
    }
    std::fs::remove_dir_all(&base).ok();
}
