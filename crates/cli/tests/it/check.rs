//! `koth coup check`: deliberately buggy bots (Python and JavaScript, one bug per
//! decision kind, built on copies of the SDK as contestants' bots are) are each
//! caught at their decision kind; the SDK examples pass.

use crate::common;

use common::findings;
use common::koth_all as koth;
use common::repo;
use std::path::PathBuf;

/// A contestant's folder: the buggy bots beside copies of the SDK files.
fn bot_folder(tag: &str) -> PathBuf {
    common::contestant_folder(
        &format!("check-{tag}"),
        &[
            "crates/cli/tests/buggy/buggy_bot.py",
            "crates/cli/tests/buggy/buggy_bot.js",
            "sdk/python/koth_bot.py",
            "sdk/python/example_bot.py",
            "sdk/js/koth_bot.js",
        ],
    )
}

/// The game number of the first defect's "see it" command.
fn see_it_game(out: &str) -> String {
    let see = out
        .lines()
        .find_map(|l| l.trim().strip_prefix("see it: koth "))
        .expect("a command to see the defect");
    see.rsplit(' ').next().unwrap().to_string()
}

#[test]
fn each_buggy_bot_is_caught_at_its_decision_kind() {
    let d = bot_folder("bugs");
    // (program, bug, games, decision kind, reason's start)
    let cases: &[(&str, &str, &str, &str, &str)] = &[
        (
            "python3",
            "assassinate-broke",
            "60",
            "action",
            "illegal choice {\"act\":{\"assassinate\"",
        ),
        (
            "python3",
            "ignores-forced-coup",
            "60",
            "action, forced coup",
            "illegal choice {\"act\":\"income\"}",
        ),
        (
            "python3",
            "prints-debug",
            "30",
            "challenge an action",
            "garbage: answer is not a JSON object: \"thinking about",
        ),
        (
            "python3",
            "blocks-with-contessa",
            "60",
            "block",
            "illegal choice {\"block\":\"contessa\"}",
        ),
        (
            "python3",
            "crash-after-reveal",
            "100",
            "block after a lost challenge",
            "crashed (exit code 1)",
        ),
        (
            "python3",
            "keeps-three",
            "60",
            "exchange, two cards",
            "illegal choice {\"keep\":[",
        ),
        (
            "python3",
            "keeps-two-with-one-influence",
            "150",
            "exchange, one card",
            "illegal choice {\"keep\":[",
        ),
        (
            "python3",
            "loses-duke",
            "60",
            "lose influence, two cards",
            "illegal choice {\"lose\":",
        ),
        (
            "python3",
            "loses-second-card",
            "60",
            "lose influence, last card",
            "crashed (exit code 1)",
        ),
        (
            "node",
            "throws-on-exchange",
            "40",
            "exchange, two cards",
            "crashed (exit code 1)",
        ),
    ];
    std::thread::scope(|s| {
        let runs: Vec<_> = cases
            .iter()
            .map(|&(prog, bug, games, kind, reason)| {
                let ext = if prog == "node" { "js" } else { "py" };
                let cmd = format!("{prog} {}/buggy_bot.{ext} {bug}", d.display());
                s.spawn(move || {
                    let (code, out, err) =
                        koth(&["coup", "check", &cmd, "--games", games, "--seed", "1", "-q"]);
                    assert_eq!(code, Some(1), "{bug}: a defect fails the check\n{out}{err}");
                    let found = findings(&out);
                    // One bug is one finding, listing every kind it hit.
                    assert!(
                        found
                            .iter()
                            .any(|(k, r)| k.split("; ").any(|k| k == kind)
                                && r.starts_with(reason)),
                        "{bug}: expected ✗ {kind}: {reason}…\n{out}"
                    );
                    if prog == "python3" {
                        // The bug sits at one kind: nothing else is blamed.
                        assert_eq!(found.len(), 1, "{bug}\n{out}");
                    }
                    assert!(out.contains("buggy_bot failed: "), "{out}");
                    assert!(
                        out.contains(&format!("see it: koth coup check '{cmd}' --seed 1 --game ")),
                        "{out}"
                    );
                    assert!(out.contains("    position: turn "), "{out}");
                    (bug, out)
                })
            })
            .collect();
        for r in runs {
            let (bug, out) = r.join().unwrap();
            match bug {
                // The crash's traceback is shown with the finding.
                "loses-second-card" => assert!(out.contains("stderr | IndexError"), "{out}"),
                "throws-on-exchange" => assert!(out.contains("TypeError"), "{out}"),
                // A debugging print is told where it belongs.
                "prints-debug" => {
                    assert!(out.contains("print debugging output to stderr"), "{out}")
                }
                _ => {}
            }
        }
    });
}

#[test]
fn stdout_pollution_and_slow_answers_in_javascript_and_python() {
    let d = bot_folder("io");
    let js = format!("node {}/buggy_bot.js console-log", d.display());
    let (code, out, _) = koth(&["coup", "check", &js, "--games", "30", "-q"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        findings(&out)
            .iter()
            .any(|(k, r)| k.split("; ").any(|k| k == "block")
                && r.contains("\"blockers:")
                && r.contains("to stderr")),
        "{out}"
    );
    // Sleeps 2 s when asked to challenge a block: a timeout at that kind only.
    let py = format!("python3 {}/buggy_bot.py slow-challenge", d.display());
    let (code, out, _) = koth(&[
        "coup",
        "check",
        &py,
        "--games",
        "8",
        "--timeout-ms",
        "150",
        "-q",
    ]);
    assert_eq!(code, Some(1), "{out}");
    let found = findings(&out);
    assert_eq!(found.len(), 1, "{out}");
    assert_eq!(found[0].0, "challenge a block");
    assert!(
        found[0].1.starts_with("timeout: no answer within 150 ms"),
        "{out}"
    );
    assert!(out.contains("--timeout-ms 150 --seed 1 --game "), "{out}");
}

#[test]
fn sdk_examples_and_builtins_pass_and_every_kind_is_asked() {
    let r = repo();
    for bot in [
        format!("python3 {}/sdk/python/example_bot.py", r.display()),
        format!("node {}/sdk/js/example_bot.js", r.display()),
        "builtin:random".to_string(),
    ] {
        let (code, out, err) = koth(&["coup", "check", &bot, "--games", "200", "-q"]);
        assert_eq!(code, Some(0), "{bot}\n{out}{err}");
        assert!(findings(&out).is_empty(), "{out}");
        assert!(out.contains(" passed: 200 games, "), "{out}");
        if bot == "builtin:random" {
            assert!(!out.contains("never asked"), "{out}");
        }
        // The table: a row per kind with its count, and timings.
        assert!(
            out.lines().any(|l| l.starts_with("exchange, one card")),
            "{out}"
        );
        assert!(out.contains(" µs"), "{out}");
    }
}

#[test]
fn the_game_a_defect_names_replays_it_with_the_stderr() {
    let d = bot_folder("replay");
    let cmd = format!("python3 {}/buggy_bot.py loses-second-card", d.display());
    let (_, out, _) = koth(&["coup", "check", &cmd, "--games", "20", "-q"]);
    let game = &see_it_game(&out);
    let (code, story, _) = koth(&["coup", "check", &cmd, "--seed", "1", "--game", game]);
    assert_eq!(code, Some(1), "{story}");
    assert!(
        story.starts_with(&format!("Check game {game} (seed 1): ")),
        "{story}"
    );
    assert!(story.contains("Turn 1: "), "{story}");
    assert!(
        story.contains("buggy_bot forfeits: crashed (exit code 1)"),
        "{story}"
    );
    assert!(story.contains("buggy_bot stderr | IndexError"), "{story}");
    assert!(
        story.contains("✗ lose influence, last card: crashed"),
        "{story}"
    );
}

#[test]
fn bad_bots_and_files_are_clear_errors() {
    let (code, _, err) = koth(&["coup", "check", "builtin:nobody"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("unknown built-in bot \"nobody\"") && err.contains("honest"),
        "{err}"
    );
    let (code, _, err) = koth(&["coup", "check", "/no/such/program"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("did not start"), "{err}");
    let file = repo().join("examples/coup-tournament.toml");
    let (code, _, err) = koth(&["coup", "check", "nobody", "--file", file.to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("has no bot named \"nobody\"") && err.contains("my-python-bot"),
        "{err}"
    );
    // A bot of a tournament file, checked with the file's folder and limits.
    let (code, out, err) = koth(&[
        "coup",
        "check",
        "my-js-bot",
        "--file",
        file.to_str().unwrap(),
        "--games",
        "20",
        "-q",
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("my-js-bot passed: 20 games"), "{out}");
    let (code, _, err) = koth(&["coup", "check", "builtin:honest", "--games", "0"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--games must be at least 1"), "{err}");
}

/// A cautious contestant's folder: the bot beside a copy of the SDK.
fn cautious_folder(tag: &str) -> PathBuf {
    common::contestant_folder(
        &format!("check-cautious-{tag}"),
        &[
            "crates/cli/tests/buggy/cautious_bot.py",
            "sdk/python/koth_bot.py",
        ],
    )
}

/// Bugs at decisions the bot's own play never leads to (it never exchanges,
/// bluffs, challenges or blocks): each found at exactly its kind, under the
/// standard rules and the two-player challenge's.
#[test]
fn a_bug_where_the_bot_never_goes_is_found_at_its_kind() {
    let d = cautious_folder("kinds");
    let cases: &[(&str, &str, &str)] = &[
        ("forced-coup", "action, forced coup", "standard"),
        ("challenge-action", "challenge an action", "standard"),
        ("block", "block", "standard"),
        (
            "block-after-lost-challenge",
            "block after a lost challenge",
            "standard",
        ),
        ("challenge-block", "challenge a block", "standard"),
        ("exchange-two", "exchange, two cards", "standard"),
        ("exchange-one", "exchange, one card", "standard"),
        ("lose-two", "lose influence, two cards", "standard"),
        ("lose-last", "lose influence, last card", "standard"),
        ("exchange-one", "exchange, one card", "ppcg"),
        ("challenge-block", "challenge a block", "ppcg"),
    ];
    std::thread::scope(|s| {
        for &(bug, kind, rules) in cases {
            let cmd = format!("python3 {}/cautious_bot.py {bug}", d.display());
            s.spawn(move || {
                let (code, out, err) = koth(&[
                    "coup", "check", &cmd, "--rules", rules, "--games", "120", "-q",
                ]);
                assert_eq!(code, Some(1), "{bug}\n{out}{err}");
                let found = findings(&out);
                assert_eq!(found.len(), 1, "{bug}: one bug, one finding\n{out}");
                assert_eq!(found[0].0, kind, "{bug}\n{out}");
                assert!(found[0].1.starts_with("crashed (exit code 1)"), "{out}");
                assert!(
                    out.contains("    reproduced: a fresh process shows it again"),
                    "{out}"
                );
            });
        }
    });
    // Without the bug it passes, every kind asked.
    let cmd = format!("python3 {}/cautious_bot.py none", d.display());
    let (code, out, _) = koth(&["coup", "check", &cmd, "--games", "120", "-q"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(!out.contains("never asked"), "{out}");
}

#[test]
fn output_in_a_start_or_end_hook_is_found_at_that_hook() {
    let d = cautious_folder("hooks");
    for (bug, kind, printed) in [
        ("start", "start of a game", "new game, seat"),
        ("end", "end of a game", "game over"),
    ] {
        let cmd = format!("python3 {}/cautious_bot.py {bug}", d.display());
        let (code, out, _) = koth(&["coup", "check", &cmd, "--games", "40", "-q"]);
        assert_eq!(code, Some(1), "{out}");
        let found = findings(&out);
        assert_eq!(found.len(), 1, "{bug}\n{out}");
        assert_eq!(found[0].0, kind, "{out}");
        assert!(
            found[0]
                .1
                .starts_with(&format!("wrote outside any answer: printed \"{printed}"))
                && found[0].1.contains(&format!("in its {bug} hook")),
            "{out}"
        );
        assert!(out.contains("    reproduced: "), "{out}");
        // The game it names shows it, with a fresh process.
        let game = &see_it_game(&out);
        let (code, story, _) = koth(&["coup", "check", &cmd, "--game", game]);
        assert_eq!(code, Some(1), "{story}");
        assert!(
            story.contains(&format!("✗ {kind}: wrote outside any answer")),
            "{story}"
        );
    }
}

#[test]
fn a_crash_counted_across_games_is_one_finding_that_does_not_reproduce_alone() {
    let d = cautious_folder("every50");
    let cmd = format!("python3 {}/cautious_bot.py every-50", d.display());
    let (code, out, _) = koth(&["coup", "check", &cmd, "--games", "60", "-q"]);
    assert_eq!(code, Some(1), "{out}");
    let found = findings(&out);
    assert_eq!(found.len(), 1, "one bug, one finding\n{out}");
    assert!(
        found[0].0.contains("; "),
        "it lists the kinds it hit: {out}"
    );
    assert!(
        out.contains("    not reproduced: a fresh process plays game ")
            && out.contains("depends on earlier games"),
        "{out}"
    );
    let game = &see_it_game(&out);
    let (code, story, _) = koth(&["coup", "check", &cmd, "--game", game]);
    assert_eq!(code, Some(0), "{story}");
    assert!(
        story.contains(&format!(
            "no defect in check game {game}, played by a fresh process"
        )),
        "{story}"
    );
}

#[test]
fn a_kind_never_asked_fails_with_its_own_status_unless_accepted() {
    // Ten games cannot reach every position.
    let (code, out, _) = koth(&["coup", "check", "builtin:static", "--games", "10", "-q"]);
    assert_eq!(code, Some(3), "{out}");
    assert!(out.contains("never asked in 10 games: "), "{out}");
    assert!(out.contains("static not judged: no defect"), "{out}");
    let (code, out, _) = koth(&[
        "coup",
        "check",
        "builtin:static",
        "--games",
        "10",
        "--accept-unreached",
        "-q",
    ]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("static passed: 10 games"), "{out}");
    // Under the challenge's rules a block after a lost challenge cannot come.
    let (code, out, _) = koth(&["coup", "check", "builtin:static", "--rules", "ppcg", "-q"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("block after a lost challenge")
                && l.ends_with("not in these rules")),
        "{out}"
    );
}
