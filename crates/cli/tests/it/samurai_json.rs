//! Samurai in the shared command shape: JSON-lines samurai on the SDKs, programs of
//! the original challenge and built-ins in one tournament file; `play` with any kind
//! (stderr in place, a person at the keyboard); `check` catching one bug per
//! decision kind; `--stop-on-forfeit`.

use crate::common;

use common::findings;
use common::koth_all as koth;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// A contestant's folder: the test samurai beside copies of the SDK files.
fn bot_folder(tag: &str) -> PathBuf {
    common::contestant_folder(
        &format!("samurai-{tag}"),
        &[
            "crates/cli/tests/buggy/buggy_samurai.py",
            "crates/cli/tests/buggy/old_samurai.sh",
            "sdk/python/koth_bot.py",
            "sdk/python/samurai_bot.py",
            "sdk/js/koth_bot.js",
            "sdk/js/samurai_bot.js",
        ],
    )
}

/// The rows of a leaderboard: (bot, games, wins, draws, losses).
fn rows(out: &str) -> Vec<(String, u64, u64, u64, u64)> {
    out.lines()
        .filter(|l| l.starts_with('│') && !l.contains(" bot "))
        .map(|l| {
            let c: Vec<&str> = l.split(['│', '┆']).map(str::trim).collect();
            let n = |i: usize| c[i].replace(',', "").parse::<u64>().unwrap();
            (c[3].to_string(), n(4), n(5), n(6), n(7))
        })
        .collect()
}

#[test]
fn a_tournament_file_mixes_every_kind_of_samurai() {
    let d = bot_folder("mix");
    let file = d.join("duel.toml");
    std::fs::write(
        &file,
        r#"[tournament]
game = "samurai"
matches = 2
seed = 11

[[bot]]
name = "py"
command = ["python3", "samurai_bot.py"]

[[bot]]
name = "js"
command = ["node", "samurai_bot.js"]

[[bot]]
name = "old"
command = ["sh", "old_samurai.sh"]
protocol = "samurai-cli"

[[bot]]
name = "bower"
builtin = "bower"
"#,
    )
    .unwrap();
    // The run's folder lies outside every bot's folder (koth refuses otherwise).
    let out_dir = d.with_extension("out");
    let args = [
        "samurai",
        "run",
        file.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
        "-q",
    ];
    let (code, out, err) = koth(&args);
    assert_eq!(code, Some(0), "{out}{err}");
    let table = rows(&out);
    let mut names: Vec<&str> = table.iter().map(|r| r.0.as_str()).collect();
    names.sort();
    assert_eq!(names, ["bower", "js", "old", "py"], "{out}");
    // A round robin of 4 with 2 matches a pair: 6 each.
    assert!(
        table.iter().all(|r| r.1 == 6 && r.2 + r.3 + r.4 == 6),
        "{out}"
    );
    // The SDK samurai play every match to its end; the old program's crashes at
    // honour 0 are W, recorded, as in the original.
    assert!(out.contains("forfeits: none"), "{out}");
    assert!(
        out.contains("old: ") && out.contains("crashed (exit status 3)"),
        "{out}"
    );
    let matches = std::fs::read_to_string(out_dir.join("matches.txt")).unwrap();
    assert_eq!(matches.matches("match ").count(), 12, "{matches}");
    // The run is one seed: the same file gives the same table (here without a
    // run folder, at one thread).
    let (_, again, _) = koth(&[
        "samurai",
        "run",
        file.to_str().unwrap(),
        "--threads",
        "1",
        "-q",
    ]);
    assert_eq!(rows(&again), table);
    // A file for the other game says which command runs it.
    let (code, _, err) = koth(&["coup", "run", file.to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("this file is for samurai, not coup") && err.contains("koth samurai run"),
        "{err}"
    );
}

#[test]
fn stop_on_forfeit_stops_at_the_first_failing_match_and_shows_it() {
    let d = bot_folder("stop");
    let bot = format!(
        "flaky=cmd:python3 {}/buggy_samurai.py crash-in-second-match",
        d.display()
    );
    let (code, out, err) = koth(&[
        "samurai",
        "run",
        "--bot",
        &bot,
        "--builtin",
        "bower,waiter,guardian",
        "--matches",
        "4",
        "--seed",
        "3",
        "--threads",
        "1",
        "--stop-on-forfeit",
        "-q",
    ]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.contains("stopped at the first forfeit: game "), "{out}");
    assert!(out.contains("flaky forfeited after "), "{out}");
    assert!(out.contains("KeyError: 'history'"), "{out}");
    assert!(out.contains("second match, turn 3: about to fail"), "{out}");
    // The match is narrated up to the crash, at turn 3.
    assert!(out.contains("turn 2: "), "{out}");
    assert!(!out.contains("\nturn 3: "), "{out}");
    // The run stopped early: fewer than the 24 matches were played.
    let played: u64 = rows(&out).iter().map(|r| r.1).sum::<u64>() / 2;
    assert!(played < 24, "{played}\n{out}");
}

#[test]
fn play_shows_each_program_s_stderr_and_the_original_protocol_s_w() {
    let d = bot_folder("play");
    let (code, out, err) = koth(&[
        "samurai",
        "play",
        &format!("cmd:python3 {}/samurai_bot.py", d.display()),
        &format!("samurai-cli:sh {}/old_samurai.sh", d.display()),
        "--seed",
        "1",
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    // The old program crashes once its honour is 0, and plays W: said in place,
    // with what it wrote to stderr.
    let w = out
        .find("old_samurai plays W: no output; crashed (exit status 3)")
        .expect(&out);
    let why = out
        .find("old_samurai stderr | honour 0: division by zero")
        .expect(&out);
    assert!(why < w, "the stderr comes before the W it explains\n{out}");
    // The JSON-lines samurai's summary, logged on `end`, is shown before the result.
    let summary = out.find("samurai_bot stderr | won after ").expect(&out);
    let result = out.find("old_samurai falls; samurai_bot wins").expect(&out);
    assert!(summary < result, "{out}");
}

#[test]
fn a_person_plays_a_samurai_from_the_keyboard() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_koth"))
        .args(["samurai", "play", "me=human", "waiter", "--seed", "1"])
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A typo, then a bow by letter, a quick draw by name, a parry by number; then the
    // person leaves.
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"x\nb\nquick\n5\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("\"x\" is not one of the choices"), "{text}");
    assert!(text.contains("turn 1: me bows, waiter waits"), "{text}");
    assert!(
        text.contains("turn 2: me quick draw, waiter waits"),
        "{text}"
    );
    assert!(text.contains("turn 3: me parry, waiter waits"), "{text}");
    assert!(text.contains("me forfeits: the player left"), "{text}");
    assert!(text.contains("waiter wins"), "{text}");
}

#[test]
fn check_catches_each_bug_at_its_decision_kind_and_passes_the_sdk_examples() {
    let d = bot_folder("check");
    let py = |bug: &str| format!("python3 {}/buggy_samurai.py {bug}", d.display());
    // (command, extra flags, decision kind, reason's start)
    let cases: Vec<(String, Vec<&str>, &str, &str)> = vec![
        (
            py("crash-at-last-turn"),
            vec![],
            "the last turn",
            "crashed (exit code 1)",
        ),
        (
            py("debug-at-honour-0"),
            vec![],
            "honour 0",
            "garbage: answer is not a JSON object: \"honour is zero",
        ),
        (
            py("lowercase-sword"),
            vec![],
            "Sword of the Gods ready",
            "illegal choice \"i\": not a samurai choice",
        ),
        (
            py("slow-when-dying"),
            vec!["--timeout-ms", "300"],
            "health 2 or less",
            "timeout: no answer within 300 ms",
        ),
        (
            format!("samurai-cli:sh {}/old_samurai.sh", d.display()),
            vec![],
            "honour 0",
            "no output; crashed (exit status 3) (played as W)",
        ),
    ];
    std::thread::scope(|s| {
        let runs: Vec<_> = cases
            .iter()
            .map(|(cmd, extra, kind, reason)| {
                s.spawn(move || {
                    let mut args = vec!["samurai", "check", cmd, "--games", "20", "-q"];
                    args.extend(extra);
                    let (code, out, err) = koth(&args);
                    assert_eq!(code, Some(1), "{cmd}: a defect fails the check\n{out}{err}");
                    let found = findings(&out);
                    assert!(
                        found.iter().any(
                            |(k, r)| k.split("; ").any(|k| k == *kind) && r.starts_with(reason)
                        ),
                        "{cmd}: expected ✗ {kind}: {reason}…\n{out}"
                    );
                    // One bug: every finding is it (a position can be of two kinds, honour 0
                    // with 2 health is counted as the rarer, so it may show twice).
                    let class = |r: &str| r.split(' ').next().unwrap().to_string();
                    assert!(
                        found.iter().all(|(_, r)| class(r) == class(reason)),
                        "{cmd}\n{out}"
                    );
                    assert!(out.contains("see it: koth samurai check '"), "{out}");
                    assert!(out.contains("    position: turn "), "{out}");
                    out
                })
            })
            .collect();
        let outs: Vec<String> = runs.into_iter().map(|r| r.join().unwrap()).collect();
        // The crash's traceback and the stdout hint come with their findings.
        assert!(
            outs[0].contains("stderr | RuntimeError: did not expect a last turn"),
            "{}",
            outs[0]
        );
        assert!(
            outs[1].contains("print debugging output to stderr"),
            "{}",
            outs[1]
        );
        assert!(
            outs[4].contains("stderr | honour 0: division by zero"),
            "{}",
            outs[4]
        );
    });
    for cmd in [
        format!("python3 {}/samurai_bot.py", d.display()),
        format!("node {}/samurai_bot.js", d.display()),
        "builtin:predictor".to_string(),
    ] {
        let (code, out, err) = koth(&["samurai", "check", &cmd, "--games", "20", "-q"]);
        assert_eq!(code, Some(0), "{cmd}\n{out}{err}");
        assert!(out.contains("passed: 20 games"), "{out}");
    }
    // The game a finding names narrates the defect.
    let (code, out, _) = koth(&["samurai", "check", &py("crash-at-last-turn"), "--game", "1"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("499 turns of waiting"), "{out}");
    assert!(out.contains("stderr | turn 500: the last one"), "{out}");
    assert!(out.contains("✗ the last turn: crashed"), "{out}");
}

#[test]
fn bad_samurai_arguments_get_clear_errors() {
    let (code, _, err) = koth(&["samurai", "run", "--bot", "x=builtin:honest"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("unknown built-in bot \"honest\"") && err.contains("bower"),
        "{err}"
    );
    let (code, _, err) = koth(&["samurai", "play", "cmd:./no-such-program", "bower"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("did not start") || err.contains("no-such-program"),
        "{err}"
    );
    for (typo, meant) in [("bot", "bots"), ("chek", "check"), ("ply", "play")] {
        let (code, _, err) = koth(&["samurai", typo]);
        assert_eq!(code, Some(2));
        assert!(
            err.contains(&format!("did you mean `koth samurai {meant}`?")),
            "{err}"
        );
    }
    let (code, _, err) = koth(&["samurai", "check", "bower", "--games", "0"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--games must be at least 1"), "{err}");
}

#[test]
fn a_json_samurai_runs_a_gauntlet() {
    let d = bot_folder("gauntlet");
    let cand = format!("py=cmd:python3 {}/samurai_bot.py", d.display());
    let (code, out, err) = koth(&[
        "gauntlet",
        "--game",
        "samurai",
        "--candidate",
        &cand,
        "--pool",
        "waiter,copycat",
        "--max-games",
        "400",
        "--batch",
        "100",
        "--seed",
        "2",
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(
        err.contains("gauntlet: py against waiter, copycat"),
        "{err}"
    );
    assert!(out.contains("verdict: better"), "{out}");
}

/// The SDK's `stop()` ends a samurai run after the matches under way and shows the
/// match it was asked in (coup-cli's STOP, for every game).
#[test]
fn a_samurai_asking_to_stop_ends_the_run_and_its_match_is_shown() {
    let d = bot_folder("stopper");
    let out = d.with_extension("out");
    let _ = std::fs::remove_dir_all(&out);
    let bot = format!(
        "asker=cmd:python3 {}/buggy_samurai.py stops-at-turn-5",
        d.display()
    );
    let (code, stdout, err) = koth(&[
        "samurai",
        "run",
        "--bot",
        &bot,
        "--builtin",
        "bower,waiter,guardian",
        "--matches",
        "4",
        "--seed",
        "2",
        "--threads",
        "1",
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(code, Some(0), "{stdout}{err}");
    assert!(
        stdout.contains("stopped: asker asked to stop in game 0: odd position at turn 5"),
        "{stdout}"
    );
    // The match is replayed from the record.
    assert!(stdout.contains("turn 5: "), "{stdout}");
    let played: u64 = rows(&stdout).iter().map(|r| r.1).sum::<u64>() / 2;
    assert!(played < 24, "{played}\n{stdout}");
}
