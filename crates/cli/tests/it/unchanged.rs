//! Programs written for other systems run unchanged through `koth run`: coup-cli bot
//! folders (seed 004) from outside any coup-cli checkout, and JSON-lines bots that
//! keep state files in their folders.

use crate::common;
use common::koth;
use std::path::{Path, PathBuf};

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("koth-unchanged-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn here() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn copy(from: &Path, to: &Path) {
    koth_process::copy_tree(from, to).unwrap();
}

/// The coup-cli bots of `tests/coup-cli/bots`, copied to a folder of their own, and
/// a tournament file seating each through the adapter: named in the command, or
/// with `protocol = "coup-cli"` (the adapter built into koth).
fn coup_cli_field(name: &str, rules: &str, games: u64) -> PathBuf {
    coup_cli_field_as(name, rules, games, false)
}

fn coup_cli_field_as(name: &str, rules: &str, games: u64, by_protocol: bool) -> PathBuf {
    let d = tmp(name);
    copy(&here().join("tests/coup-cli/bots"), &d.join("field/bots"));
    let adapter = here().join("../../sdk/coup-cli/adapter.js");
    let adapter = adapter.canonicalize().unwrap();
    let mut toml =
        format!("[tournament]\ngames = {games}\nseed = 21\ntable_size = 3\nrules = \"{rules}\"\n");
    for bot in ["Namer", "Grudge", "Sloppy"] {
        toml.push_str(&if by_protocol {
            format!("\n[[bot]]\nname = \"{bot}\"\ncommand = [\"bots/{bot}\"]\nprotocol = \"coup-cli\"\ndir = \"field\"\n")
        } else {
            format!(
                "\n[[bot]]\nname = \"{bot}\"\ncommand = [\"node\", \"{}\", \"bots/{bot}\"]\ndir = \"field\"\n",
                adapter.display()
            )
        });
    }
    std::fs::write(d.join("t.toml"), toml).unwrap();
    d
}

fn summary(dir: &Path, extra: &[&str]) -> serde_json::Value {
    let file = dir.join("t.toml");
    let out = dir.join("out");
    let summary = dir.join("summary.json");
    let mut args = vec![
        "run",
        file.to_str().unwrap(),
        "-q",
        "--threads",
        "2",
        "--records",
        "results",
        "--out",
        out.to_str().unwrap(),
        "--summary-json",
        summary.to_str().unwrap(),
    ];
    args.extend(extra);
    let (ok, stdout, stderr) = koth(&args);
    assert!(ok, "{stdout}\n{stderr}");
    serde_json::from_str(&std::fs::read_to_string(summary).unwrap()).unwrap()
}

fn row<'a>(s: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    s["standings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {s}"))
}

/// What coup-cli's own loop gave for these three bots (`node src/bin.js loop -r
/// 30000`, eight runs, 240,000 games, on 2026-11-23): mean score per game.
const COUP_CLI_MEANS: [(&str, f64); 3] = [
    ("Grudge", 0.47803),
    ("Namer", -0.03908),
    ("Sloppy", -0.43895),
];

#[test]
fn coup_cli_bots_run_unchanged_and_agree_with_coup_cli() {
    let d = coup_cli_field("coupcli", "coupcli", 10_000);
    let s = summary(&d, &["--keep-folders"]);
    for (name, expected) in COUP_CLI_MEANS {
        let r = row(&s, name);
        // They read their name in the constructor, use constants.js, log with
        // console.log and print to stdout: none of it forfeits.
        assert_eq!(r["forfeits"], 0, "{name}: {r}");
        let mean = r["mean"].as_f64().unwrap();
        let ci = r["ci95"].as_f64().unwrap();
        // coup-cli's figure is from 24 times as many games: its own error is small.
        assert!(
            (mean - expected).abs() < 2.0 * ci,
            "{name}: koth {mean:+.4} ± {ci:.4}, coup-cli {expected:+.4}"
        );
    }
    // The sloppy bot's illegal actions cost it influence, as in coup-cli.
    assert!(row(&s, "Sloppy")["penalties"].as_u64().unwrap() > 500);
    assert_eq!(row(&s, "Grudge")["penalties"], 0);
    // Each slot played from its own copy of the folder (kept on purpose); the
    // original has no leftovers.
    assert!(d
        .join("out/folders/slot-0/Namer/bots/Namer/index.js")
        .exists());
    assert_eq!(std::fs::read_dir(d.join("field")).unwrap().count(), 1);
}

#[test]
fn under_standard_rules_illegal_actions_forfeit() {
    // Seated with `protocol = "coup-cli"`: koth runs its own copy of the adapter.
    let d = coup_cli_field_as("standard", "standard", 60, true);
    let s = summary(&d, &[]);
    assert!(row(&s, "Sloppy")["forfeits"].as_u64().unwrap() > 10);
    assert_eq!(row(&s, "Namer")["forfeits"], 0);
    assert_eq!(row(&s, "Grudge")["forfeits"], 0);
    assert_eq!(row(&s, "Sloppy")["penalties"], 0);
}

#[test]
fn a_json_bot_keeping_a_state_file_gets_a_folder_per_slot() {
    let d = tmp("keeper");
    copy(&here().join("tests/stateful"), &d.join("keeper"));
    std::fs::write(
        d.join("t.toml"),
        "[tournament]\ngames = 201\nseed = 3\ntable_size = 3\n\n\
         [[bot]]\nname = \"keeper\"\ncommand = [\"python3\", \"keeper.py\"]\ndir = \"keeper\"\n\n\
         [[bot]]\nname = \"honest\"\nbuiltin = \"honest\"\n\n\
         [[bot]]\nname = \"counter\"\nbuiltin = \"counter\"\n",
    )
    .unwrap();
    // Its folders are kept, to count the games in each slot's state file.
    let s = summary(&d, &["--keep-folders"]);
    // Two slots sharing one folder would overwrite each other's state.txt, and the
    // bot would forfeit.
    assert_eq!(row(&s, "keeper")["forfeits"], 0, "{s}");
    // Balanced rounds of three: every bot in every game.
    assert_eq!(row(&s, "keeper")["games"], 201);
    assert!(!d.join("keeper/state.txt").exists());
    let games: u64 = (0..2)
        .map(|slot| {
            let t = std::fs::read_to_string(
                d.join(format!("out/folders/slot-{slot}/keeper/state.txt")),
            )
            .unwrap();
            t.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap()
        })
        .sum();
    assert_eq!(games, 201, "each slot's file counts that slot's games");
}

/// A seed-000 field with a program that writes junk before its moves: the original
/// reads its lines differently (`xTp\n` credits no Tax), koth follows, and every game
/// still replays from its record to the recorded result.
#[test]
fn lenient_ppcg_games_replay() {
    let d = tmp("ppcg-replay");
    let programs = here().join("../../examples/ppcg");
    for p in ["Junk", "Truthful", "Waiter"] {
        copy(&programs.join(p), &d.join(p));
    }
    std::fs::write(
        d.join("list.txt"),
        "Junk python3 junk.py\nTruthful python3 truthful.py\nWaiter node waiter.js\n",
    )
    .unwrap();
    let out = d.join("out");
    let (ok, stdout, stderr) = koth(&[
        "ppcg",
        d.join("list.txt").to_str().unwrap(),
        "--rounds",
        "1",
        "--seed",
        "5",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{stdout}\n{stderr}");
    assert!(stdout.contains("warnings"), "{stdout}");
    let logs: String = std::fs::read_dir(&out)
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "log"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    assert!(logs.contains("(wrote \"xT\")"), "the junk is in the logs");
    for game in 0..6 {
        let (ok, stdout, stderr) =
            koth(&["replay", out.to_str().unwrap(), "--game", &game.to_string()]);
        assert!(
            ok && stdout.contains("(as recorded)"),
            "game {game}: {stdout}\n{stderr}"
        );
    }
}

/// coup-cli's debugging stop: a bot that logs "STOP" ends the run after that game,
/// and koth shows the game. The bot counts its games in a module variable, as a
/// coup-cli bot may: played one game at a time, its third game is the run's third.
#[test]
fn a_logged_stop_ends_the_run_and_shows_the_game() {
    let (stdout, summary) = stopper_run("1");
    assert!(
        stdout.contains(
            "stopped: Stopper asked to stop in game 2: STOP: Stopper wants to see this game"
        ),
        "{stdout}"
    );
    assert_eq!(summary["games"], 3, "{summary}");
}

/// The same bot with the adapter playing many games at once: each table has its
/// own instance of the bot's module, so the count runs per table, and the third
/// game at a table stops the run after the games under way.
#[test]
fn a_logged_stop_among_many_games_at_once_counts_games_per_table() {
    let (stdout, summary) = stopper_run("64");
    let games = summary["games"].as_u64().unwrap();
    // 64 tables: a table's third game comes after the 64 first games and its own
    // second, so not before game 65 (the first table to end two games).
    assert!((66..300).contains(&games), "{summary}");
    let at = stdout
        .split("stopped: Stopper asked to stop in game ")
        .nth(1)
        .and_then(|r| r.split(':').next())
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!((65..games).contains(&at), "game {at}: {stdout}");
}

/// Runs the Stopper bot (adapter told `KOTH_GAMES_AT_ONCE`) against honest; checks
/// the shown game and returns stdout and the summary.
fn stopper_run(at_once: &str) -> (String, serde_json::Value) {
    let d = tmp(&format!("stop{at_once}"));
    copy(
        &here().join("tests/coup-cli/stopper"),
        &d.join("field/bots"),
    );
    let adapter = here()
        .join("../../sdk/coup-cli/adapter.js")
        .canonicalize()
        .unwrap();
    std::fs::write(
        d.join("t.toml"),
        format!(
            "[tournament]\ngames = 300\nseed = 4\n\n\
             [[bot]]\nname = \"Stopper\"\ncommand = [\"node\", \"{}\", \"bots/Stopper\"]\ndir = \"field\"\n\
             env = {{ KOTH_GAMES_AT_ONCE = \"{at_once}\" }}\n\n\
             [[bot]]\nname = \"honest\"\nbuiltin = \"honest\"\n",
            adapter.display()
        ),
    )
    .unwrap();
    let out = d.join("out");
    let (ok, stdout, stderr) = koth(&[
        "run",
        d.join("t.toml").to_str().unwrap(),
        "-q",
        "--threads",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{stdout}\n{stderr}");
    // The game is narrated, and the run ended there.
    let shown = stdout
        .split("stopped: ")
        .nth(1)
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(
        shown.contains("Turn 1:") && shown.contains("(as recorded)"),
        "{shown}"
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    (stdout, summary)
}

/// Runs the adapter with the Probe bot on `lines`: its answers, the calls Probe
/// reported (one JSON object a call, on stderr) and the whole stderr.
fn drive_probe(lines: &[String]) -> (Vec<String>, Vec<serde_json::Value>, String) {
    use std::io::Write;
    let mut child = std::process::Command::new("node")
        .arg(here().join("../../sdk/coup-cli/adapter.js"))
        .arg(here().join("tests/coup-cli/probe/Probe"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for l in lines {
        writeln!(stdin, "{l}").unwrap();
    }
    drop(stdin);
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    let calls = err
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let replies = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    (replies, calls, err)
}

/// The adapter alone, driven line by line: the constructor gets `{ name }`, and the
/// history and parameters are coup-cli's, in its order and shape.
#[test]
fn the_adapter_passes_coup_cli_parameters_and_history() {
    let view = r#"{"seat":0,"players":3,"cards":["contessa","assassin"],"coins":[2,5,2],"influence":[2,2,1],"revealed":[[],[],["captain"]],"alive":[true,true,true],"deck_size":9,"turn":1}"#;
    let lines = [
        r#"{"type":"hello","protocol":1,"game":"coup"}"#.to_string(),
        format!(
            r#"{{"type":"start","game_id":1,"seat":0,"players":3,"names":["amy","bob","cat"],"rules":{{}},"seed":1,"view":{view}}}"#
        ),
        // bob claims Tax, cat challenges, bob shows the Duke, cat loses a Captain;
        // then amy is asked about bob's Steal from her.
        format!(
            r#"{{"type":"decide","id":1,"events":[{{"event":"turn","actor":1,"number":1}},{{"event":"act","actor":1,"action":"tax"}},{{"event":"challenge","challenger":2,"claimant":1,"card":"duke"}},{{"event":"reveal","player":1,"card":"duke","replaced":true}},{{"event":"lose_influence","player":2,"card":"captain"}},{{"event":"gain","player":1,"coins":3}},{{"event":"turn","actor":1,"number":2}},{{"event":"act","actor":1,"action":{{"steal":0}}}}],"decision":{{"kind":"challenge_action","actor":1,"action":{{"steal":0}},"claim":"captain"}},"view":{view},"legal":["pass","challenge"]}}"#
        ),
    ];
    let (replies, calls, err) = drive_probe(&lines);
    assert!(replies[0].contains("\"ready\""), "{replies:?}");
    assert_eq!(replies[1], r#"{"choice":"pass","id":1}"#);
    assert_eq!(calls[0]["method"], "constructor", "{err}");
    assert_eq!(calls[0]["options"], serde_json::json!({ "name": "amy" }));
    let c = &calls[1];
    assert_eq!(c["method"], "onChallengeActionRound");
    let p = &c["params"];
    assert_eq!(
        p["history"],
        serde_json::json!([
            { "type": "action", "action": "taking-3", "from": "bob" },
            { "type": "challenge-round", "challenger": "cat", "challengee": "bob", "action": "taking-3", "lying": false },
            { "type": "penalty", "from": "cat" },
            { "type": "lost-card", "player": "cat", "lost": "captain" },
            { "type": "unsuccessful-challenge", "action": "swap-1", "from": "bob", "card": "duke" },
            { "type": "action", "action": "stealing", "from": "bob", "to": "amy" }
        ]),
        "{err}"
    );
    assert_eq!(p["action"], "stealing");
    assert_eq!(p["byWhom"], "bob");
    assert_eq!(p["toWhom"], "amy");
    assert_eq!(p["card"], "captain");
    assert_eq!(p["myCards"], serde_json::json!(["contessa", "assassin"]));
    assert_eq!(p["myCoins"], 2);
    assert_eq!(p["discardedCards"], serde_json::json!(["captain"]));
    assert_eq!(
        p["otherPlayers"],
        serde_json::json!([{ "name": "bob", "coins": 5, "cards": 2 }, { "name": "cat", "coins": 2, "cards": 1 }])
    );
    // coup-cli passes `counterer` (undefined here) among the parameters.
    assert!(
        c["keys"]
            .as_array()
            .unwrap()
            .iter()
            .any(|k| k == "counterer"),
        "{c}"
    );
}

/// coup-cli lists its players in its table order (where koth's `rules.table_start`
/// says it begins), not from the first to move, and a hand keeps the order a bot
/// answered in `onSwappingCards` (coup-cli's bots lose "their first card"): both
/// change which player a bot picks and which card it loses.
#[test]
fn the_adapter_lists_players_in_table_order_and_keeps_the_order_answered() {
    let view = r#"{"seat":1,"players":4,"cards":["duke","contessa"],"coins":[1,2,3,4],"influence":[2,2,2,2],"revealed":[[],[],[],[]],"alive":[true,true,true,true],"deck_size":7,"turn":1}"#;
    let drawn = r#"{"seat":1,"players":4,"cards":["duke","contessa"],"drawn":["ambassador","captain"],"coins":[1,2,3,4],"influence":[2,2,2,2],"revealed":[[],[],[],[]],"alive":[true,true,true,true],"deck_size":5,"turn":1}"#;
    let lines = [
        r#"{"type":"hello","protocol":1,"game":"coup"}"#.to_string(),
        format!(
            r#"{{"type":"start","game_id":1,"seat":1,"players":4,"names":["amy","bob","cat","dan"],"rules":{{"preset":"coupcli","table_start":2}},"seed":1,"view":{view}}}"#
        ),
        format!(
            r#"{{"type":"decide","id":1,"events":[{{"event":"act","actor":0,"action":"tax"}}],"decision":{{"kind":"challenge_action","actor":0,"action":"tax","claim":"duke"}},"view":{view},"legal":["pass","challenge"]}}"#
        ),
        // cat tries a Coup without the coins (coup-cli writes the action), dan
        // answers no action at all (coup-cli's "invalid action": a penalty entry);
        // then Probe keeps its hand as it holds it: duke, then contessa (not sorted).
        format!(
            r#"{{"type":"decide","id":2,"events":[{{"event":"no_challenge","player":1}},{{"event":"gain","player":0,"coins":3}},{{"event":"turn","actor":2,"number":1}},{{"event":"penalty","player":2,"action":{{"coup":0}}}},{{"event":"lose_influence","player":2,"card":"duke"}},{{"event":"turn","actor":3,"number":2}},{{"event":"penalty","player":3}},{{"event":"lose_influence","player":3,"card":"captain"}},{{"event":"turn","actor":1,"number":3}},{{"event":"act","actor":1,"action":"exchange"}}],"decision":{{"kind":"exchange","actor":1}},"view":{drawn},"legal":[{{"keep":["contessa","duke"]}},{{"keep":["ambassador","duke"]}}]}}"#
        ),
    ];
    let (replies, calls, err) = drive_probe(&lines);
    assert!(replies[0].contains("\"ready\""), "{replies:?}");
    assert_eq!(replies[1], r#"{"choice":"pass","id":1}"#);
    assert_eq!(
        replies[2],
        r#"{"choice":{"keep":["duke","contessa"]},"id":2}"#
    );
    let names = |c: &serde_json::Value| -> Vec<String> {
        c["params"]["otherPlayers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap().to_string())
            .collect()
    };
    // The table's order is cat, dan, amy, bob; bob leaves himself out.
    assert_eq!(calls[1]["method"], "onChallengeActionRound", "{err}");
    assert_eq!(names(&calls[1]), ["cat", "dan", "amy"], "{err}");
    assert_eq!(calls[2]["method"], "onSwappingCards", "{err}");
    assert_eq!(names(&calls[2]), ["cat", "dan", "amy"], "{err}");
    assert_eq!(
        calls[2]["params"]["newCards"],
        serde_json::json!(["ambassador", "captain"])
    );
    assert_eq!(
        calls[2]["params"]["history"],
        serde_json::json!([
            { "type": "action", "action": "taking-3", "from": "amy" },
            { "type": "action", "action": "couping", "from": "cat", "to": "amy" },
            { "type": "lost-card", "player": "cat", "lost": "duke" },
            { "type": "penalty", "from": "dan" },
            { "type": "lost-card", "player": "dan", "lost": "captain" },
            { "type": "action", "action": "swapping", "from": "bob" }
        ]),
        "{err}"
    );
}

/// A coup-cli bot folder named on the command line (`coup-cli:PATH`) can be checked
/// and watched like any bot.
#[test]
fn a_coup_cli_bot_folder_is_checked_and_played_from_the_command_line() {
    let d = coup_cli_field("cli-kind", "coupcli", 1);
    let namer = d.join("field/bots/Namer");
    let spec = format!("coup-cli:{}", namer.display());
    let (ok, out, err) = koth(&["coup", "check", &spec, "--games", "20", "-q"]);
    assert!(ok, "{out}{err}");
    assert!(out.contains("Namer passed: 20 games"), "{out}");
    // Sloppy's illegal actions are found, at the action.
    let sloppy = format!("coup-cli:{}", d.join("field/bots/Sloppy").display());
    let (ok, out, _) = koth(&["coup", "check", &sloppy, "--games", "20", "-q"]);
    assert!(!ok, "{out}");
    assert!(out.contains("✗ action: "), "{out}");
    // Played at a table, its console.log lines show as its stderr.
    let (ok, out, err) = koth(&[
        "coup",
        "play",
        "--bots",
        "honest",
        "--bot",
        &format!("namer={spec}"),
        "--seed",
        "3",
    ]);
    assert!(ok, "{out}{err}");
    assert!(out.contains("namer stderr | "), "{out}");
}

/// `bench/adapter-replay.js` (which measures the adapter without a pipe) answers a
/// captured input exactly as the adapter answered it in a real run, whether it
/// hands the adapter lines or lines parsed beforehand: what it times is the
/// adapter's real work, and requiring the adapter does not make it serve stdin.
#[test]
fn the_adapter_replay_bench_gives_the_answers_of_the_run() {
    let d = coup_cli_field("replay", "coupcli", 30);
    let adapter = here()
        .join("../../sdk/coup-cli/adapter.js")
        .canonicalize()
        .unwrap();
    // Grudge plays through a tee that keeps what it read and what it answered. Each
    // line reaches its file before it is passed on (tee passes it on first: koth
    // could end the run and kill the group before the last line reached the file).
    let (input, output) = (d.join("in.txt"), d.join("out.txt"));
    let script = d.join("teed.sh");
    std::fs::write(
        &script,
        "keep() { while IFS= read -r l; do printf '%s\\n' \"$l\" >> \"$1\"; printf '%s\\n' \"$l\"; done; }\n\
         keep \"$1\" | node \"$2\" bots/Grudge | keep \"$3\"\n",
    )
    .unwrap();
    let toml = std::fs::read_to_string(d.join("t.toml")).unwrap();
    let plain = format!(
        "command = [\"node\", \"{}\", \"bots/Grudge\"]\n",
        adapter.display()
    );
    assert!(toml.contains(&plain), "{toml}");
    let teed = format!(
        "command = [\"sh\", \"{}\", \"{}\", \"{}\", \"{}\"]\nsandbox = \"off\"\n",
        script.display(),
        input.display(),
        adapter.display(),
        output.display()
    );
    std::fs::write(d.join("t.toml"), toml.replace(&plain, &teed)).unwrap();
    let (ok, stdout, stderr) = koth(&[
        "run",
        d.join("t.toml").to_str().unwrap(),
        "-q",
        "--threads",
        "1",
    ]);
    assert!(ok, "{stdout}\n{stderr}");
    let answered = std::fs::read_to_string(&output).unwrap();
    assert!(answered.lines().count() > 30 * 5, "{answered}");
    for mode in ["lines", "parsed"] {
        let o = std::process::Command::new("node")
            .arg(here().join("../../bench/adapter-replay.js"))
            .arg(&input)
            .arg("bots/Grudge")
            .arg(mode)
            .env("ANSWERS", "1")
            .current_dir(d.join("field"))
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{mode}: {err}");
        assert_eq!(
            String::from_utf8_lossy(&o.stdout),
            answered,
            "{mode}: {err}"
        );
        assert!(err.contains("µs a decision"), "{mode}: {err}");
    }
}

/// coup-cli bots draw from Math.random (Sloppy does, on every call); the adapter
/// seeds it from each seat's seed per game, so a run replays exactly: the same
/// games at 1 and 2 threads and one game at a time, and other games from another
/// seed.
#[test]
fn coup_cli_bots_using_math_random_replay_exactly() {
    let d = coup_cli_field("replay-random", "coupcli", 120);
    let one = full_records(&d, "t1", &["--threads", "1"]);
    assert_eq!(one.lines().count(), 120);
    let two = full_records(&d, "t2", &["--threads", "2"]);
    same(&one, &two, "1 thread against 2");
    let again = full_records(&d, "t2-again", &["--threads", "2"]);
    same(&one, &again, "the same run twice");
    let other = full_records(&d, "seed", &["--threads", "2", "--seed", "22"]);
    assert!(one != other, "another seed gave the same games");
    one_game_at_a_time(&d);
    let alone = full_records(&d, "one-at-a-time", &["--threads", "2"]);
    same(&one, &alone, "one game at a time");
}

/// A bot that draws from Math.random as its module loads (Moody) gets the same
/// draws whichever table's instance loads it: the games are the same with 64 at
/// once and one at a time.
#[test]
fn a_coup_cli_bot_drawing_at_load_replays_at_any_games_at_once() {
    let d = coup_cli_field("moody", "coupcli", 150);
    copy(
        &here().join("tests/coup-cli/moody/Moody"),
        &d.join("field/bots/Moody"),
    );
    let toml = std::fs::read_to_string(d.join("t.toml"))
        .unwrap()
        .replace("bots/Namer", "bots/Moody")
        .replace("name = \"Namer\"", "name = \"Moody\"");
    std::fs::write(d.join("t.toml"), toml).unwrap();
    let many = full_records(&d, "many", &["--threads", "2"]);
    assert!(many.contains("\"seats\""), "{many}");
    one_game_at_a_time(&d);
    let one = full_records(&d, "one", &["--threads", "2"]);
    same(&many, &one, "64 at once against one at a time");
}

/// Runs `dir/t.toml` with full records into `dir/out_dir` (and `extra` arguments):
/// its games.jsonl.
fn full_records(dir: &Path, out_dir: &str, extra: &[&str]) -> String {
    let file = dir.join("t.toml");
    let out = dir.join(out_dir);
    let mut args = vec![
        "run",
        file.to_str().unwrap(),
        "-q",
        "--records",
        "full",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend(extra);
    let (ok, stdout, stderr) = koth(&args);
    assert!(ok, "{stdout}\n{stderr}");
    std::fs::read_to_string(out.join("games.jsonl")).unwrap()
}

/// Has every bot of `dir/t.toml` play one game at a time (KOTH_GAMES_AT_ONCE=1).
fn one_game_at_a_time(dir: &Path) {
    let file = dir.join("t.toml");
    let toml = std::fs::read_to_string(&file).unwrap().replace(
        "dir = \"field\"\n",
        "dir = \"field\"\nenv = { KOTH_GAMES_AT_ONCE = \"1\" }\n",
    );
    std::fs::write(file, toml).unwrap();
}

/// Two records files are the same; if not, the first game that differs.
fn same(a: &str, b: &str, what: &str) {
    if let Some((x, y)) = a.lines().zip(b.lines()).find(|(x, y)| x != y) {
        panic!("{what}: games differ:\n{x}\n{y}");
    }
    assert_eq!(a.lines().count(), b.lines().count(), "{what}");
}

/// The adapter's seeded Math.random is a copy of the JS SDK's `seededRandom` (the
/// adapter sees only its own folder in the sandbox): the two copies stay the same.
#[test]
fn the_adapter_and_the_js_sdk_seed_math_random_alike() {
    let body = |file: &str| {
        let text = std::fs::read_to_string(here().join("../..").join(file)).unwrap();
        let start = text
            .find("function seededRandom(seed) {")
            .unwrap_or_else(|| panic!("{file} has no seededRandom"));
        let len = text[start..].find("\n}\n").unwrap();
        text[start..start + len].to_string()
    };
    assert_eq!(body("sdk/coup-cli/adapter.js"), body("sdk/js/koth_bot.js"));
}
