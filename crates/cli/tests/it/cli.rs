//! The `koth` binary as a user runs it.

use crate::common;
use common::koth;

#[test]
fn coup_loop_prints_a_leaderboard_and_writes_json() {
    let json = std::env::temp_dir().join(format!("koth-cli-{}.json", std::process::id()));
    let (ok, out, err) = koth(&[
        "coup",
        "loop",
        "--games",
        "3000",
        "--seed",
        "5",
        "--summary-json",
        json.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    for bot in [
        "static",
        "honest",
        "random",
        "counter",
        "bluffer",
        "economist",
        "challenger",
        "skeptic",
    ] {
        assert!(out.contains(bot), "{bot} missing from\n{out}");
    }
    assert!(out.contains("mean ± 95%"));
    assert!(out.contains("3,000 games in"), "{out}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["seed"], 5);
    assert_eq!(v["games"], 3000);
    assert_eq!(v["standings"].as_array().unwrap().len(), 8);
    assert_eq!(v["rules"]["preset"], "standard");
    // The balanced schedule: 3000 games of 6 seats among 8 bots, 2250 each,
    // every bot against the same field: ranked by mean, the strengths the means.
    assert_eq!(v["ranked_by"], "mean");
    for r in v["standings"].as_array().unwrap() {
        assert_eq!(r["strength"], r["mean"], "{r}");
        assert_eq!(r["games"], 2250, "{r}");
        assert!(r["low"].as_f64().unwrap() <= r["strength"].as_f64().unwrap());
        assert!(r["win_high"].as_f64().unwrap() >= r["win_rate"].as_f64().unwrap());
    }
    let total: f64 = v["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["total"].as_f64().unwrap())
        .sum();
    assert!(total.abs() < 1e-6, "zero-sum: {total}");
    std::fs::remove_file(&json).ok();
}

#[test]
fn coup_loop_is_reproducible_across_thread_counts() {
    let a = koth(&[
        "coup",
        "loop",
        "--games",
        "2000",
        "--seed",
        "9",
        "--threads",
        "1",
        "-q",
    ])
    .1;
    let b = koth(&[
        "coup",
        "loop",
        "--games",
        "2000",
        "--seed",
        "9",
        "--threads",
        "2",
        "-q",
    ])
    .1;
    let table = |s: &str| {
        s.lines()
            .filter(|l| l.contains('┆'))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(table(&a), table(&b));
}

#[test]
fn duplicate_bots_are_numbered() {
    let (ok, out, _) = koth(&[
        "coup",
        "loop",
        "--games",
        "500",
        "--bots",
        "honest,honest,random",
        "--seed",
        "1",
    ]);
    assert!(ok);
    assert!(out.contains("honest 2"));
}

#[test]
fn bad_input_gets_a_clear_error() {
    let (ok, _, err) = koth(&["coup", "loop", "--bots", "honest,nobody"]);
    assert!(!ok);
    assert!(
        err.contains("unknown bot \"nobody\"") && err.contains("honest"),
        "{err}"
    );
    let (ok, _, err) = koth(&[
        "coup",
        "loop",
        "--bots",
        "honest,random",
        "--table-size",
        "3",
    ]);
    assert!(!ok && err.contains("--table-size 3"), "{err}");
    let (ok, _, err) = koth(&["coup", "play", "--rules", "chess"]);
    assert!(!ok && err.contains("unknown rule set"), "{err}");
    let (ok, _, err) = koth(&["coup", "play", "--bots", "honest"]);
    assert!(!ok && err.contains("2 to 6"), "{err}");
    // An unwritable summary is refused before any game, not after all of them.
    let (ok, out, err) = koth(&[
        "coup",
        "loop",
        "--games",
        "100000000",
        "--summary-json",
        "/nonexistent-folder/s.json",
    ]);
    assert!(!ok && err.contains("cannot write the summary"), "{err}");
    assert!(!out.contains("games in"), "{out}");
}

#[test]
fn a_mistyped_bot_gets_a_suggestion_and_no_games() {
    // From the repository's root, where a bare word once became a program whose
    // folder was the whole checkout.
    let root = common::repo();
    let hill = std::env::temp_dir().join(format!("koth-typo-hill-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&hill);
    let made = std::process::Command::new(env!("CARGO_BIN_EXE_koth"))
        .args(["hill", "init", "--game", "coup"])
        .arg(&hill)
        .output()
        .unwrap();
    assert!(made.status.success(), "{made:?}");
    let hill = hill.to_str().unwrap();
    let cases: [&[&str]; 12] = [
        &["coup", "run", "--builtin", "honset,random"],
        &["samurai", "run", "--builtin", "waiter,bowr"],
        &["coup", "loop", "--bots", "honset,random"],
        &[
            "coup",
            "run",
            "--bot",
            "a=builtin:honset",
            "--builtin",
            "random",
        ],
        &["ppcg", "run", "--builtin", "honset,random"],
        &["hill", "add", hill, "a", "honset"],
        &["coup", "play", "honset", "honest"],
        &["coup", "check", "honset"],
        &["samurai", "play", "bowr", "waiter"],
        &["samurai", "check", "bowr"],
        &["gauntlet", "--candidate", "honset", "--pool", "random"],
        &[
            "gauntlet",
            "--game",
            "samurai",
            "--candidate",
            "bower",
            "--pool",
            "bowr",
        ],
    ];
    for args in cases {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_koth"))
            .args(args)
            .current_dir(&root)
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        let (stdout, err) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        let meant = if args.contains(&"samurai") {
            "bower"
        } else {
            "honest"
        };
        assert!(!out.status.success(), "{args:?}");
        assert!(
            err.contains("built-in bot") && err.contains(&format!("did you mean {meant}?")),
            "{args:?}: {err}"
        );
        assert!(
            !stdout.contains("games") && !stdout.contains("verdict"),
            "{args:?}: {stdout}"
        );
    }
    std::fs::remove_dir_all(hill).ok();
}

/// A script given from the wrong folder: said at once, before any folder (the
/// whole checkout, from its root) is copied.
#[test]
fn a_script_that_is_not_there_is_named_at_once() {
    let root = common::repo();
    let cases: [&[&str]; 4] = [
        &["ppcg", "check", "node waiter.js"],
        &["coup", "check", "python3 my_bot.py"],
        &["samurai", "play", "samurai-cli:python3 old.py", "bower"],
        &[
            "coup",
            "run",
            "--bot",
            "me=cmd:python3 bots/me.py",
            "--builtin",
            "honest",
        ],
    ];
    for args in cases {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_koth"))
            .args(args)
            .current_dir(&root)
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("there is no file") && err.contains("(the current folder)"),
            "{args:?}: {err}"
        );
        assert!(
            err.contains("fix: give the program's path"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn counts_of_nothing_are_refused() {
    let cases: [&[&str]; 6] = [
        &["coup", "loop", "--games", "0"],
        &["coup", "loop", "--threads", "0"],
        &["samurai", "run", "--matches", "0"],
        &["ppcg", "run", "--rounds", "0"],
        &["coup", "bench", "--games", "0"],
        &["gauntlet", "--max-games", "0"],
    ];
    for args in cases {
        let (ok, out, err) = koth(args);
        assert!(!ok && err.contains("must be at least 1"), "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: {out}");
    }
}

#[test]
fn games_ended_by_the_turn_cap_are_counted_in_the_table_and_the_summary() {
    let d = std::env::temp_dir().join(format!("koth-turncap-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let json = d.join("s.json");
    let (ok, out, err) = koth(&[
        "coup",
        "loop",
        "--bots",
        "honest,random,economist",
        "--turn-cap",
        "20",
        "--games",
        "300",
        "--seed",
        "1",
        "--summary-json",
        json.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let capped = v["turn_capped"].as_u64().unwrap();
    assert!(capped > 0 && capped < 300, "{capped}");
    let line = out
        .lines()
        .find(|l| l.starts_with("turn cap: "))
        .unwrap_or_default();
    assert!(
        line.contains(&format!("{capped} of 300 games")),
        "{line}\n{out}"
    );
    // Each game counts once for each of its seats.
    let per_bot: u64 = v["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["turn_capped"].as_u64().unwrap())
        .sum();
    assert_eq!(per_bot, capped * 3);
    // Without a game at the cap, nothing is said.
    let (ok, out, _) = koth(&[
        "coup",
        "loop",
        "--bots",
        "challenger,skeptic",
        "--games",
        "200",
        "--seed",
        "1",
    ]);
    assert!(ok && !out.contains("turn cap:"), "{out}");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn an_interpreter_named_by_absolute_path_runs_the_program_in_its_own_folder() {
    let python = std::path::Path::new("/usr/bin/python3");
    if !python.is_file() {
        // CI sets KOTH_REQUIRE_RUNTIMES: there a missing runtime fails.
        assert!(
            std::env::var_os("KOTH_REQUIRE_RUNTIMES").is_none(),
            "/usr/bin/python3 is needed and KOTH_REQUIRE_RUNTIMES is set"
        );
        println!("SKIPPED: no /usr/bin/python3");
        return;
    }
    let d = std::env::temp_dir().join(format!("koth-abs-interp-{}", std::process::id()));
    std::fs::create_dir_all(d.join("p")).unwrap();
    // Bows for honour, then strikes; it reads a file beside it to be sure of its
    // folder (a missing file crashes it, and it would play W).
    std::fs::write(d.join("p/move.txt"), "I\n").unwrap();
    std::fs::write(
        d.join("p/p.py"),
        "import sys\na = sys.argv[1:]\nh = int(a[2] if len(a) == 4 else a[4])\nprint(open('move.txt').read().strip() if h >= 2 else 'B')\n",
    )
    .unwrap();
    let bot = format!(
        "p=samurai-cli:/usr/bin/python3 {}",
        d.join("p/p.py").display()
    );
    let out = d.join("out");
    let (ok, stdout, err) = koth(&[
        "samurai",
        "run",
        "--bot",
        &bot,
        "--builtin",
        "waiter",
        "--matches",
        "2",
        "--seed",
        "1",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{stdout}{err}");
    assert!(!stdout.contains("answers recorded as W"), "{stdout}");
    let histories = std::fs::read_to_string(out.join("matches.txt")).unwrap();
    assert!(histories.contains("p wins"), "{histories}");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn stop_on_forfeit_among_many_games_at_once_narrates_the_game_the_process_died_in() {
    let d = common::contestant_folder("crash-at-50", &["sdk/python/koth_bot.py"]);
    std::fs::write(
        d.join("crash.py"),
        // Dies at 1% of its actions (drawn from the game's seed), whichever process.
        "import os, random, sys\nfrom koth_bot import Bot, run\nclass B(Bot):\n    name = 'crashy'\n    def start(self, msg):\n        self.rng = random.Random(msg['seed'])\n    def decide(self, decision, view, legal):\n        if decision['kind'] == 'action' and self.rng.random() < 0.01:\n            print('boom at an action', file=sys.stderr, flush=True)\n            os._exit(3)\n        return self.rng.choice(legal)\nrun(B)\n",
    )
    .unwrap();
    let bot = format!("c=cmd:python3 {}", d.join("crash.py").display());
    let (code, out, err) = common::koth_all(&[
        "coup",
        "run",
        "--bot",
        &bot,
        "--builtin",
        "honest,random",
        "--games",
        "2000",
        "--seed",
        "1",
        "--threads",
        "1",
        "--stop-on-forfeit",
    ]);
    assert_eq!(code, Some(1), "{out}{err}");
    // It stops at once: no game starts after the first forfeit (before, the worker
    // played on until its batch reached the screen: 290 forfeits, several
    // crashes). The games under way then end: those lost with the process are
    // played again by a fresh one, and each game charged is one the bot crashed
    // in itself (its crash is drawn from the game's seed: played again, a game
    // crashes where it crashed), never one lost with another.
    let own: Vec<&str> = out
        .lines()
        .filter(|l| {
            l.contains(
                "× crashed (exit code 3) instead of answer (while playing up to 64 games at once)",
            )
        })
        .collect();
    assert_eq!(own.len(), 1, "{out}");
    assert!(!out.contains("lost with its process"), "{out}");
    let played: u64 = out
        .lines()
        .find(|l| l.contains(" games in "))
        .and_then(|l| l.split(' ').next()?.replace(',', "").parse().ok())
        .unwrap_or(u64::MAX);
    assert!(played <= 64 + 1, "{played}: {out}");
    assert!(out.contains("charged to no bot: "), "{out}");
    // The game narrated is the one it died in: its fault is its own, with its stderr.
    let shown = out
        .split("stopped at the first forfeit")
        .nth(1)
        .unwrap_or_default();
    let fault = shown
        .lines()
        .find(|l| l.starts_with("c forfeited after "))
        .unwrap_or_default();
    assert!(
        fault.contains("crashed (exit code 3)") && !fault.contains("lost with"),
        "{shown}"
    );
    assert!(shown.contains("boom at an action"), "{shown}");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn a_bots_stderr_is_kept_whole_in_the_run_folder_bounded_and_escaped() {
    let d = common::contestant_folder("stderr-log", &["sdk/python/koth_bot.py"]);
    // Logs a line at each decision, escapes included, and 2 MiB once.
    std::fs::write(
        d.join("talk.py"),
        "import sys\nfrom koth_bot import Bot, run\nclass B(Bot):\n    name = 'talk'\n    said = False\n    def decide(self, decision, view, legal):\n        print('deciding \\x1b[2J', decision, file=sys.stderr, flush=True)\n        if not B.said:\n            B.said = True\n            sys.stderr.write('x' * (2 << 20) + '\\n')\n        return legal[0]\nrun(B)\n",
    )
    .unwrap();
    let out = std::env::temp_dir().join(format!("koth-stderr-log-out-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let bot = format!("t=cmd:python3 {}", d.join("talk.py").display());
    let (ok, stdout, err) = koth(&[
        "coup",
        "run",
        "--bot",
        &bot,
        "--builtin",
        "honest",
        "--games",
        "20",
        "--threads",
        "1",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{stdout}{err}");
    let log = std::fs::read_to_string(out.join("logs/t.slot-0.log")).unwrap();
    assert!(
        log.starts_with("deciding \\x1b[2J "),
        "{}",
        &log[..200.min(log.len())]
    );
    assert!(!log.contains('\x1b'));
    assert!(log.ends_with("[koth: the log of this process was cut at 1024 KiB]\n"));
    assert!(log.len() as u64 <= (1 << 20) + 100, "{}", log.len());
    std::fs::remove_dir_all(&d).ok();
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn coup_play_narrates_a_whole_game() {
    let (ok, out, err) = koth(&[
        "coup",
        "play",
        "--seed",
        "11",
        "--bots",
        "honest,counter,bluffer",
    ]);
    assert!(ok, "{err}");
    assert!(out.starts_with("Coup, standard rules, seed 11: honest, counter, bluffer"));
    assert!(out.contains("Turn 1: honest"));
    assert!(out.contains("loses an influence"));
    assert!(out.contains("is out of the game"));
    let last = out.lines().last().unwrap();
    assert!(last.starts_with("Winner: "), "{last}");
    // The same seed tells the same game.
    assert_eq!(
        out,
        koth(&[
            "coup",
            "play",
            "--seed",
            "11",
            "--bots",
            "honest,counter,bluffer"
        ])
        .1
    );
}

#[test]
fn samurai_round_robin_of_builtins_and_a_duel() {
    let (ok, out, err) = koth(&["samurai", "--matches", "4", "--seed", "3", "-q"]);
    assert!(ok, "{err}");
    assert!(
        out.contains("guardian") && out.contains("points/game"),
        "{out}"
    );
    let (ok, out, _) = koth(&["samurai", "play", "bower", "waiter", "--seed", "1"]);
    assert!(ok);
    assert!(out.contains("turn 1: bower bows"), "{out}");
    let (ok, _, err) = koth(&["samurai", "play", "bower", "ghost"]);
    assert!(!ok && err.contains("ghost"), "{err}");
}

#[test]
fn samurai_runs_programs_from_a_list() {
    let dir = std::env::temp_dir().join(format!("koth-samurai-cli-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("Bower")).unwrap();
    std::fs::create_dir_all(dir.join("Garbage")).unwrap();
    std::fs::write(
        dir.join("Bower/bower.sh"),
        "#!/bin/sh\nif [ \"$#\" -ge 6 ] && [ \"$5\" -ge 7 ]; then echo I; else echo B; fi\n",
    )
    .unwrap();
    std::fs::write(dir.join("Garbage/g.sh"), "#!/bin/sh\necho zzz\n").unwrap();
    std::fs::write(dir.join("list.txt"), "Bower sh bower.sh\nGarbage sh g.sh\n").unwrap();
    let list = dir.join("list.txt");
    let (ok, out, err) = koth(&[
        "samurai",
        list.to_str().unwrap(),
        "--builtin",
        "waiter",
        "--matches",
        "2",
        "--seed",
        "1",
        "-q",
    ]);
    assert!(ok, "{err}");
    assert!(
        out.contains("Bower") && out.contains("Garbage") && out.contains("waiter"),
        "{out}"
    );
    assert!(out.contains("answers recorded as W"), "{out}");
    let matches = std::fs::read_to_string(dir.join("koth-samurai-out/seed-1/matches.txt")).unwrap();
    assert_eq!(matches.matches("match ").count(), 6, "{matches}");
    let (ok, _, err) = koth(&["samurai", dir.join("nope.txt").to_str().unwrap()]);
    assert!(!ok && err.contains("nope.txt"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn samurai_warns_about_slow_starts_and_counts_answers_of_lingering_programs() {
    let dir = std::env::temp_dir().join(format!("koth-samurai-slow-{}", std::process::id()));
    for name in ["Slow", "Linger", "Quick"] {
        std::fs::create_dir_all(dir.join(name)).unwrap();
    }
    // Needs 400 ms before it answers: half of an 800 ms limit.
    std::fs::write(dir.join("Slow/s.sh"), "#!/bin/sh\nsleep 0.4\necho G\n").unwrap();
    // Answers, keeps a state file, then lingers past the limit (it strikes, so its
    // honour runs out and its matches are short).
    std::fs::write(
        dir.join("Linger/l.sh"),
        "#!/bin/sh\necho I\necho x >> state.txt\nsleep 30\n",
    )
    .unwrap();
    std::fs::write(dir.join("Quick/q.sh"), "#!/bin/sh\necho B\nexit 3\n").unwrap();
    std::fs::write(
        dir.join("list.txt"),
        "Slow sh s.sh\nLinger sh l.sh\nQuick sh q.sh\n",
    )
    .unwrap();
    let list = dir.join("list.txt");
    let (ok, out, err) = koth(&[
        "samurai",
        list.to_str().unwrap(),
        "--matches",
        "1",
        "--seed",
        "1",
        "--timeout-ms",
        "800",
        "-q",
        "--keep-folders",
    ]);
    assert!(ok, "{err}");
    assert!(
        err.contains("warning: Slow takes") && err.contains("of the 800 ms limit"),
        "{err}"
    );
    assert!(
        !err.contains("Linger takes") && !err.contains("Quick takes"),
        "{err}"
    );
    // Nothing was recorded as W: the lingering and exit-3 programs answered in time.
    assert!(!out.contains("answers recorded as W"), "{out}");
    // Neither the trial runs nor the matches touched the program's own folder: each
    // match ran in a fresh copy, whose state file counts that match's turns (kept on
    // purpose, with --keep-folders).
    assert!(!dir.join("Linger/state.txt").exists());
    let out_dir = dir.join("koth-samurai-out/seed-1");
    let matches = std::fs::read_to_string(out_dir.join("matches.txt")).unwrap();
    let linger_turns: Vec<usize> = matches
        .lines()
        .filter(|l| l.trim_start().starts_with("Linger"))
        .map(|l| l.split_whitespace().nth(1).unwrap_or("").len())
        .collect();
    let mut copies = 0;
    for slot in 0..2 {
        let state = out_dir.join(format!("folders/slot-{slot}/Linger/state.txt"));
        if let Ok(text) = std::fs::read_to_string(&state) {
            copies += 1;
            assert!(linger_turns.contains(&text.lines().count()), "{matches}");
        }
    }
    assert!(
        copies >= 1,
        "no copy of Linger's folder in {}",
        out_dir.display()
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn gauntlet_decides_better_for_a_stronger_bot_and_not_against_itself() {
    let (ok, out, err) = koth(&[
        "gauntlet",
        "--candidate",
        "counter",
        "--pool",
        "random,static",
        "--seed",
        "1",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("verdict: better"), "{out}");
    for seed in ["1", "2"] {
        let (ok, out, err) = koth(&[
            "gauntlet",
            "--candidate",
            "honest",
            "--pool",
            "honest",
            "--seed",
            seed,
            "--max-games",
            "6000",
        ]);
        assert!(ok, "{err}");
        assert!(!out.contains("verdict: better"), "{out}");
        assert!(
            out.contains("verdict: not better") || out.contains("verdict: undecided"),
            "{out}"
        );
    }
    let (ok, out, _) = koth(&[
        "gauntlet",
        "--game",
        "samurai",
        "--candidate",
        "waiter",
        "--pool",
        "guardian",
        "--seed",
        "1",
    ]);
    assert!(ok);
    assert!(out.contains("verdict: not better"), "{out}");
    let (ok, _, err) = koth(&[
        "gauntlet",
        "--candidate",
        "honest",
        "--pool",
        "random",
        "--elo0",
        "10",
        "--elo1",
        "5",
    ]);
    assert!(!ok && err.contains("--elo1"), "{err}");
}

/// A gauntlet at a four-seat table: a stronger bot is found better, copies
/// of one bot are not (whatever the seed), the run's folder keeps the verdict
/// and its report shows it; table sizes the game or the pool cannot fill are
/// refused with the fix.
#[test]
fn a_gauntlet_at_four_seats_gives_a_verdict_that_its_report_shows() {
    let dir = std::env::temp_dir().join(format!("koth-gauntlet4-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();
    let (ok, out, err) = koth(&[
        "gauntlet",
        "--candidate",
        "bluffer",
        "--pool",
        "honest,honest,honest",
        "--table-size",
        "4",
        "--seed",
        "1",
        "--out",
        d,
    ]);
    assert!(ok, "{err}");
    assert!(err.contains("(4 seats a game, standard rules"), "{err}");
    assert!(out.contains("verdict: better"), "{out}");
    assert!(
        out.contains(&format!("run recorded in {d} (koth report {d}")),
        "{out}"
    );
    let kept: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("gauntlet.json")).unwrap()).unwrap();
    assert_eq!(kept["verdict"], "better");
    assert_eq!(kept["table_size"], 4);
    assert!(kept["llr"].as_f64().unwrap() >= kept["bounds"][1].as_f64().unwrap());
    let run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("run.json")).unwrap()).unwrap();
    assert_eq!(run["schedule"]["table"], 4, "{run}");
    let (ok, _, err) = koth(&["report", d]);
    assert!(ok, "{err}");
    let page = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(
        page.contains("\"gauntlet\":{") && page.contains("\"verdict\":\"better\""),
        "the report's data"
    );
    assert!(
        page.contains("id=\"verdict\""),
        "the report's verdict section"
    );
    for seed in ["1", "2"] {
        let (ok, out, err) = koth(&[
            "gauntlet",
            "--candidate",
            "honest",
            "--pool",
            "honest,honest,honest",
            "--table-size",
            "4",
            "--rules",
            "coupcli",
            "--seed",
            seed,
            "--max-games",
            "6000",
        ]);
        assert!(ok, "{err}");
        assert!(err.contains("coupcli rules"), "{err}");
        assert!(
            out.contains("verdict: not better") || out.contains("verdict: undecided"),
            "copies of one bot: {out}"
        );
    }
    // What no table can seat, or no pool fill: refused with the fix.
    for (args, says) in [
        (
            &[
                "--candidate",
                "honest",
                "--pool",
                "honest",
                "--table-size",
                "4",
            ][..],
            "--table-size 4 needs 3 bots in the pool, not 1",
        ),
        (
            &[
                "--candidate",
                "honest",
                "--pool",
                "honest",
                "--table-size",
                "7",
            ],
            "--table-size 7: coup seats 2 to 6 players",
        ),
        (
            &[
                "--game",
                "samurai",
                "--candidate",
                "waiter",
                "--pool",
                "guardian",
                "--rules",
                "ppcg",
            ],
            "has no rules presets",
        ),
    ] {
        let mut all = vec!["gauntlet"];
        all.extend(args);
        let (ok, _, err) = koth(&all);
        assert!(!ok && err.contains(says), "{args:?}: {err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_example_tournament_file_runs() {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/coup-tournament.toml");
    let (ok, out, err) = koth(&["run", file.to_str().unwrap(), "--games", "40", "-q"]);
    assert!(ok, "{err}");
    assert!(
        out.contains("my-python-bot") && out.contains("my-js-bot") && out.contains("honest"),
        "{out}"
    );
    assert!(out.contains("forfeits: none"), "{out}");
}

#[test]
fn ppcg_runs_original_programs_with_records_replays_and_a_report() {
    let programs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/ppcg");
    let dir = std::env::temp_dir().join(format!("koth-ppcg-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for p in ["Truthful", "Challenger"] {
        std::fs::create_dir_all(dir.join(p)).unwrap();
        for f in std::fs::read_dir(programs.join(p)).unwrap() {
            let f = f.unwrap().path();
            std::fs::copy(&f, dir.join(p).join(f.file_name().unwrap())).unwrap();
        }
    }
    let script = |p: &str| {
        std::fs::read_dir(dir.join(p))
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .file_name()
            .into_string()
            .unwrap()
    };
    std::fs::write(
        dir.join("players.txt"),
        format!(
            "Truthful python3 {}\nChallenger python3 {}\n",
            script("Truthful"),
            script("Challenger")
        ),
    )
    .unwrap();
    let list = dir.join("players.txt");
    let (ok, out, err) = koth(&[
        "ppcg",
        list.to_str().unwrap(),
        "--rounds",
        "1",
        "--seed",
        "4",
        "--builtin",
        "honest",
        "--quiet",
    ]);
    assert!(ok, "{err}");
    assert!(out.starts_with("Leaderboard\n"), "{out}");
    assert!(
        out.contains("Truthful") && out.contains("Challenger") && out.contains("honest"),
        "{out}"
    );
    let run = dir.join("koth-ppcg-out/seed-4");
    // Every ordered pair once: 6 games, each with its history file and log.
    let histories = std::fs::read_dir(&run)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "log")
        })
        .count();
    assert_eq!(histories, 6);
    let (ok, out, err) = koth(&["replay", run.to_str().unwrap(), "--game", "2"]);
    assert!(ok, "{err}");
    assert!(
        out.contains("Turn 1:") && out.contains("(as recorded)"),
        "{out}"
    );
    let (ok, out, err) = koth(&["report", run.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(out.contains("report.html"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_bot_that_cannot_start_stops_the_run_before_the_first_game() {
    let dir = std::env::temp_dir().join(format!("koth-preflight-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("bots/ok")).unwrap();
    std::fs::write(dir.join("bots/ok/bot.py"), "print('hi')\n").unwrap();
    let file = dir.join("t.toml");
    let cases = [
        (
            "[[bot]]\nname = \"lost\"\ncommand = [\"python3\", \"bot.py\"]\ndir = \"bots/nowhere\"\n",
            "bot \"lost\": its folder",
        ),
        (
            "[[bot]]\nname = \"typo\"\ncommand = [\"pyhton3\", \"bot.py\"]\ndir = \"bots/ok\"\n",
            "bot \"typo\" did not start",
        ),
        (
            "[[bot]]\nname = \"elsewhere\"\ncommand = [\"python3\", \"main.py\"]\ndir = \"bots/ok\"\n",
            "bot \"elsewhere\": 'python3 main.py': there is no file \"main.py\" in ",
        ),
        (
            "[[bot]]\nname = \"mute\"\ncommand = [\"sleep\", \"30\"]\ndir = \"bots/ok\"\n[tournament]\nstartup_timeout_ms = 300\n",
            "bot \"mute\" did not start",
        ),
    ];
    for (bot, expected) in cases {
        std::fs::write(
            &file,
            format!("{bot}\n[[bot]]\nname = \"h\"\nbuiltin = \"honest\"\n"),
        )
        .unwrap();
        let start = std::time::Instant::now();
        let (ok, out, err) = koth(&["run", file.to_str().unwrap(), "--games", "100000", "-q"]);
        assert!(!ok, "{out}");
        assert!(err.contains(expected) && err.contains("fix:"), "{err}");
        assert!(!out.contains("rank"), "no standings: {out}");
        assert!(start.elapsed() < std::time::Duration::from_secs(20));
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn an_output_folder_inside_a_bots_folder_is_refused() {
    let dir = std::env::temp_dir().join(format!("koth-out-inside-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A `cmd:` bot's folder is that of its program file.
    std::fs::copy(
        "../../sdk/python/minimal_bot.py",
        dir.join("minimal_bot.py"),
    )
    .unwrap();
    let out = dir.join("results-inside-the-bot-folder");
    let (ok, _, err) = koth(&[
        "run",
        "--bot",
        &format!("me=cmd:python3 {}", dir.join("minimal_bot.py").display()),
        "--bot",
        "h=builtin:honest",
        "--games",
        "10",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!ok);
    assert!(
        err.contains("inside the folder of bot \"me\"") && err.contains("fix:"),
        "{err}"
    );
    assert!(!out.exists());
    std::fs::remove_dir_all(&dir).ok();
}

/// Writes `DIR/NAME.py`: a JSON-lines bot that plays at random, logs each decision
/// to stderr, and dies on decision `at` with `last_words` (Python prints them to
/// stderr as it exits, status 1).
fn failing_bot(dir: &std::path::Path, name: &str, at: u32, last_words: &str) {
    let program = format!(
        "import json, random, sys\n\
         n = 0\n\
         for line in sys.stdin:\n\
         \x20   msg = json.loads(line)\n\
         \x20   if msg['type'] == 'hello':\n\
         \x20       print(json.dumps({{'type': 'ready', 'name': '{name}'}}), flush=True)\n\
         \x20   elif msg['type'] == 'decide':\n\
         \x20       n += 1\n\
         \x20       print('thinking about decision', n, file=sys.stderr, flush=True)\n\
         \x20       if n == {at}:\n\
         \x20           raise SystemExit({last_words:?})\n\
         \x20       print(json.dumps({{'choice': random.choice(msg['legal'])}}), flush=True)\n"
    );
    std::fs::write(dir.join(format!("{name}.py")), program).unwrap();
}

/// `--stop-on-forfeit`: the run stops after the first forfeit and shows that game,
/// the reason and the bot's stderr.
#[test]
fn stop_on_forfeit_shows_the_game_and_the_stderr() {
    let d = std::env::temp_dir().join(format!("koth-stop-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    // A bot that plays at random, then says why and crashes on its 40th decision.
    failing_bot(&d, "crashy", 40, "crashy: my table is corrupt, giving up");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_koth"))
        .args([
            "run",
            "--bot",
            "crashy=cmd:python3 crashy.py",
            "--bot",
            "h=builtin:honest",
            "--bot",
            "c=builtin:counter",
            "--games",
            "3000",
            "--seed",
            "4",
            "--threads",
            "1",
            "--stop-on-forfeit",
            "-q",
        ])
        .current_dir(&d)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    // It stopped at a forfeit: exit status 1, for scripts.
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        text.contains("stopped at the first forfeit: game "),
        "{text}"
    );
    assert!(text.contains("Turn 1: "), "the game is narrated:\n{text}");
    assert!(text.contains("crashy forfeited after "), "{text}");
    assert!(
        text.contains("| crashy: my table is corrupt, giving up"),
        "{text}"
    );
    assert!(text.contains("stopped early"), "{text}");
    // It stopped long before the end: one thread, the bot crashes every 40 decisions.
    let played: u64 = text
        .lines()
        .find_map(|l| {
            l.split(" games in ")
                .next()
                .filter(|_| l.contains(" games in "))
        })
        .unwrap()
        .replace(',', "")
        .parse()
        .unwrap();
    assert!(played < 3000, "{played}");
    std::fs::remove_dir_all(&d).ok();
}

/// `koth coup play` seats programs too, and shows a crashing one's stderr.
#[test]
fn coup_play_seats_programs_and_shows_their_stderr() {
    let d = std::env::temp_dir().join(format!("koth-play-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    failing_bot(&d, "early", 2, "early: cannot go on");
    let sdk =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../sdk/python/example_bot.py");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_koth"))
        .args(["coup", "play", "--seed", "5", "--bots", "honest"])
        .arg("--bot")
        .arg(format!("me=cmd:python3 {}", sdk.display()))
        .args(["--bot", "early=cmd:python3 early.py"])
        .current_dir(&d)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("seed 5: honest, me, early"), "{text}");
    assert!(text.contains("early forfeits: "), "{text}");
    assert!(
        text.contains("early stderr | thinking about decision 2"),
        "{text}"
    );
    assert!(
        text.contains("early stderr | early: cannot go on"),
        "{text}"
    );
    // What it logged before is shown live, in place, and not again with the fault.
    let live = text
        .find("early stderr | thinking about decision 1")
        .expect(&text);
    assert!(live < text.find("early forfeits: ").unwrap(), "{text}");
    assert_eq!(
        text.matches("thinking about decision 1").count(),
        1,
        "{text}"
    );
    assert!(
        text.contains("\nWinner"),
        "the game is played to its end: {text}"
    );
    // A name given twice, or a command that cannot start, is an error before the game.
    let (ok, _, err) = koth(&[
        "coup",
        "play",
        "--bots",
        "honest",
        "--bot",
        "x=cmd:no-such-program-here",
    ]);
    assert!(
        !ok && err.contains("did not start") && err.contains("fix:"),
        "{err}"
    );
    let (ok, _, err) = koth(&["coup", "play", "--bot", "solo=builtin:honest"]);
    assert!(!ok && err.contains("seat 2 to 6 players, got 1"), "{err}");
    std::fs::remove_dir_all(&d).ok();
}

/// `--bot NAME=human`: a person plays through a real terminal (tmux), by number
/// and by name, sees only their own cards, and a mistyped answer is asked again.
#[test]
fn a_human_plays_a_game_to_its_end_in_a_terminal() {
    use std::process::Command;
    let tmux = |args: &[&str]| {
        let out = Command::new("tmux")
            .args(args)
            .output()
            .expect("tmux is needed by this test (.ci/run installs it)");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let session = format!("koth-human-{}", std::process::id());
    let cmd = format!(
        "NO_COLOR=1 {} coup play --seed 3 --bots honest,counter --bot me=human; echo GAME-OVER; sleep 60",
        env!("CARGO_BIN_EXE_koth")
    );
    tmux(&[
        "new-session",
        "-d",
        "-s",
        &session,
        "-x",
        "160",
        "-y",
        "50",
        &cmd,
    ]);
    let screen = || tmux(&["capture-pane", "-p", "-t", &session, "-S", "-5000"]);
    let send = |keys: &str| {
        tmux(&["send-keys", "-t", &session, "-l", keys]);
        tmux(&["send-keys", "-t", &session, "Enter"]);
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let (mut prompts, mut typo_seen, mut named) = (0, false, false);
    let mut last = String::new();
    let text = loop {
        let text = screen();
        if text.contains("GAME-OVER") || std::time::Instant::now() > deadline {
            break text;
        }
        let tail = text.trim_end().to_string();
        if tail.ends_with(">> choose:") && tail != last {
            last = tail.clone();
            prompts += 1;
            if prompts == 1 {
                send("xyzzy");
            } else if !named && tail.contains(">> me: your turn.") {
                named = true;
                send("inc");
            } else {
                send("1");
            }
            if prompts == 2 {
                typo_seen = text.contains("\"xyzzy\" is not one of the choices");
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    tmux(&["kill-session", "-t", &session]);
    assert!(text.contains("GAME-OVER"), "the game did not end:\n{text}");
    assert!(text.contains("Winner"), "{text}");
    assert!(
        typo_seen,
        "a mistyped answer is refused and asked again:\n{text}"
    );
    assert!(named, "{text}");
    assert!(text.contains("me takes Income"), "{text}");
    assert!(prompts >= 3, "{text}");
    // Only the person's own cards are shown.
    assert!(text.contains("me is dealt "), "{text}");
    assert!(
        !text.contains("honest is dealt") && !text.contains("cards: "),
        "{text}"
    );
}

/// `koth <game> run` is the shared shape; the older names still work and agree.
#[test]
fn game_run_commands_and_their_old_names_agree() {
    let table = |out: &str| -> String {
        out.lines()
            .filter(|l| l.starts_with('│'))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let coup = "--bot h=builtin:honest --bot r=builtin:random --games 60 --seed 5 -q";
    let samurai = "--builtin bower,random --matches 4 --seed 5 -q";
    for (new, old, args) in [
        ("coup run", "run", coup),
        ("samurai run", "samurai", samurai),
    ] {
        let run = |command: &str| {
            let words: Vec<&str> = command.split(' ').chain(args.split(' ')).collect();
            let (ok, out, err) = koth(&words);
            assert!(ok, "koth {command}: {err}");
            (table(&out), err)
        };
        let ((a, new_err), (b, old_err)) = (run(new), run(old));
        assert!(!a.is_empty() && a == b, "{new}:\n{a}\n{old}:\n{b}");
        // The old name says what the new one is; the new one says nothing of it.
        assert!(!new_err.contains("is now"), "{new_err}");
        if old == "run" {
            assert!(
                old_err.contains("note: `koth run` is now `koth coup run`"),
                "{old_err}"
            );
        }
    }
}

/// `koth coup play --file FILE` seats a tournament file's bots (all of them, or
/// those named with --bot), with the file's folders and limits.
#[test]
fn coup_play_seats_the_bots_of_a_tournament_file() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let file = root.join("examples/coup-tournament.toml");
    let file = file.to_str().unwrap();
    let (ok, out, err) = koth(&["coup", "play", "--file", file, "--seed", "3"]);
    assert!(ok, "{out}{err}");
    assert!(
        out.starts_with(
            "Coup, standard rules, seed 3: my-python-bot, my-js-bot, honest, counter, bluffer"
        ),
        "{out}"
    );
    assert!(out.contains("\nWinner: "), "{out}");
    let (ok, out, err) = koth(&[
        "coup",
        "play",
        "--file",
        file,
        "--bot",
        "my-js-bot",
        "--bots",
        "honest",
        "--seed",
        "3",
    ]);
    assert!(ok, "{out}{err}");
    assert!(
        out.starts_with("Coup, standard rules, seed 3: honest, my-js-bot"),
        "{out}"
    );
    let (ok, _, err) = koth(&["coup", "play", "--file", file, "--bot", "nobody"]);
    assert!(!ok);
    assert!(
        err.contains("fix: name one of my-python-bot, my-js-bot"),
        "{err}"
    );
}

/// `koth bench` measures koth and the coup crate in one run and prints every figure
/// (the figures themselves are the machine's: only their presence is checked).
#[test]
fn bench_prints_koth_and_the_coup_crate_side_by_side() {
    let (ok, out, err) = koth(&[
        "bench",
        "--games",
        "400",
        "--crate-seconds",
        "0.2",
        "--threads",
        "2",
        "--external-games",
        "20",
    ]);
    assert!(ok, "{out}{err}");
    for needle in [
        "records (six players, 2 threads",
        "full, 1 thread",
        "(full records on 2 threads: ",
        "external decisions (six copies of a compiled first-legal bot, 1 thread, 20 games)",
        "µs user (koth's own work)",
        "bare round trip:",
        "six players (seed 003's lineup",
        "koth, 2 threads:",
        "koth, 1 thread :",
        "(1.00x one thread)",
        "coup crate 1.1.1:",
        "peak memory: ",
        "two players (static, honest)",
    ] {
        assert!(out.contains(needle), "{needle:?} missing:\n{out}");
    }
    // The crate's engine is a program of its own (GPL-3.0, not linked into
    // koth), built beside koth by the workspace: measured when it is there, and
    // said so when it is not.
    let crate_bench =
        std::path::Path::new(env!("CARGO_BIN_EXE_koth")).with_file_name("coupcrate-bench");
    if crate_bench.is_file() {
        assert!(
            out.contains("ratio: ") && out.contains("x per core"),
            "{out}"
        );
        assert!(!out.contains("not measured"), "{out}");
    } else {
        assert!(
            out.contains("not measured: coupcrate-bench is not built"),
            "{out}"
        );
    }
    // Full records keep every choice: more bytes than results, both measured.
    let bytes = |level: &str| -> u64 {
        let line = out
            .lines()
            .find(|l| l.trim_start().starts_with(level))
            .unwrap_or_else(|| panic!("no {level} line:\n{out}"));
        let before = line.split(" bytes a game").next().unwrap();
        before
            .rsplit(' ')
            .next()
            .unwrap()
            .replace(',', "")
            .parse()
            .unwrap()
    };
    assert!(
        bytes("full") > bytes("results") && bytes("results") > 50,
        "{out}"
    );
    let (ok, _, err) = koth(&["bench", "--games", "2"]);
    assert!(!ok && err.contains("--games must be at least 4"), "{err}");
}

/// Every game takes every command of the one command shape: its built-ins listed,
/// a loop of them ranked (the two-player challenge filing its games), a check.
#[test]
fn every_game_has_the_same_commands() {
    let dir = std::env::temp_dir().join(format!("koth-cli-shape-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for game in ["coup", "samurai", "ppcg"] {
        let (ok, bots, err) = koth(&[game, "bots"]);
        assert!(ok, "{game} bots: {err}");
        let names: Vec<&str> = bots
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        assert!(names.len() >= 3, "{game}: {bots}");
        let out_dir = dir.join(game);
        let pick = names[..3].join(",");
        let (ok, out, err) = koth(&[
            game,
            "loop",
            "--bots",
            &pick,
            "--games",
            "60",
            "--seed",
            "3",
            "-q",
            "--out",
            out_dir.to_str().unwrap(),
        ]);
        assert!(ok, "{game} loop: {err}");
        for n in &names[..3] {
            assert!(out.contains(n), "{game} loop lost {n}:\n{out}");
        }
        let info: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out_dir.join("run.json")).unwrap())
                .unwrap();
        assert_eq!(info["runner"], format!("{game} loop"), "{info}");
        // Four games cannot reach every decision: accepted here.
        let (code, out, err) = common::koth_all(&[
            game,
            "check",
            names[1],
            "--games",
            "4",
            "--accept-unreached",
            "-q",
        ]);
        assert_eq!(code, Some(0), "{game} check {}: {out}{err}", names[1]);
        assert!(out.contains(" passed: 4 games"), "{game}: {out}");
    }
    // The two-player challenge's loop filed every game with its history file.
    let files = std::fs::read_dir(dir.join("ppcg"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".txt")
        })
        .count();
    assert!(
        files > 0,
        "no history files in {}",
        dir.join("ppcg").display()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The champion: listed with the built-ins, named with a budget anywhere a
/// built-in is (Coup and the two-player challenge), left out of the default
/// field, and a bad budget refused with the fix.
#[test]
fn the_champion_is_a_built_in_with_a_budget() {
    for game in ["coup", "ppcg"] {
        let (ok, bots, err) = koth(&[game, "bots"]);
        assert!(ok, "{err}");
        let line = bots
            .lines()
            .find(|l| l.starts_with("champion "))
            .unwrap_or_else(|| panic!("{game} bots: {bots}"));
        assert!(line.contains("champion:2ms"), "{line}");
    }
    let (ok, out, err) = koth(&[
        "coup",
        "loop",
        "--bots",
        "champion:20,honest,economist",
        "--games",
        "30",
        "--seed",
        "3",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("champion:20"), "{out}");
    let ppcg_out = std::env::temp_dir().join(format!("koth-cli-champion-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&ppcg_out);
    let (ok, out, err) = koth(&[
        "ppcg",
        "loop",
        "--bots",
        "champion:0.1ms,honest",
        "--games",
        "20",
        "--seed",
        "3",
        "--out",
        ppcg_out.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("champion:0.1ms"), "{out}");
    let _ = std::fs::remove_dir_all(&ppcg_out);
    // The default field is the rule-based built-ins.
    let (ok, out, err) = koth(&["coup", "loop", "--games", "12", "--seed", "3"]);
    assert!(ok, "{err}");
    assert!(!out.contains("champion"), "{out}");
    let (ok, _, err) = koth(&[
        "coup",
        "run",
        "--builtin",
        "champion:0ms,honest",
        "--games",
        "2",
    ]);
    assert!(!ok);
    assert!(
        err.contains("champion:0ms") && err.contains("or champion:500 (playouts"),
        "{err}"
    );
}

/// The ladder's seed-000-style programs (docs/champions.md measures the
/// champion against them) play whole games through the history-file protocol
/// without a fault, against each other and built-ins.
#[test]
fn the_ladders_programs_play_cleanly() {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = std::env::temp_dir().join(format!("koth-ladder-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let bot = |name: &str, file: &str| {
        format!(
            "{name}=ppcg:python3 {}",
            repo.join("examples/ppcg").join(name).join(file).display()
        )
    };
    let (ok, table, err) = koth(&[
        "coup",
        "run",
        "--rules",
        "ppcg",
        "--table-size",
        "2",
        "--bot",
        &bot("Calculator", "calculator.py"),
        "--bot",
        &bot("Counter", "counter.py"),
        "--bot",
        &bot("Taxman", "taxman.py"),
        "--bot",
        &bot("Statistician", "statistician.py"),
        "--bot",
        &bot("Lawyer", "lawyer.py"),
        // Every pairing once in each seat: 6 entrants, 30 games.
        "--builtin",
        "honest",
        "--games",
        "30",
        "--seed",
        "3",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    for name in ["Calculator", "Counter", "Taxman", "Statistician", "Lawyer"] {
        assert!(table.contains(name), "{name} missing from {table}");
    }
    assert!(
        err.contains("forfeits: none") || table.contains("forfeits: none"),
        "{table}{err}"
    );
    std::fs::remove_dir_all(&out).ok();
}
