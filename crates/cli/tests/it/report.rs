//! `koth report`: the page is built from a real run, opened in headless Chromium,
//! and the DOM after its script ran is checked (leaderboard, heatmap, a replay
//! opened from `#game=K`), hostile bot names and stderr stay text, and a
//! screenshot is saved to `target/report-screenshot.png`.
//!
//! Needs `/usr/bin/chromium` (`.ci/run` installs it: `apt-get install -y chromium`).

// The report module itself, for the checks that need its data and for making
// reports while the `report` subcommand is not wired into main.rs yet.
#[allow(dead_code)]
#[path = "../../src/report.rs"]
mod page;

use koth_arena::records::{self, RecordWriter, RunInfo};
use koth_arena::{
    Agent, Entrant, Fault, GameRecord, Quiet, RecordLevel, Schedule, Scoring, Seat, Tournament,
};
use koth_coup::narrate::{describe, Tone};
use koth_coup::{Choice, Rules, State};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CHROMIUM: &str = "/usr/bin/chromium";

fn koth() -> Command {
    Command::new(env!("CARGO_BIN_EXE_koth"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("report-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The workspace's `target/` (or `$CARGO_TARGET_DIR`).
fn target_dir() -> PathBuf {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = match std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from) {
        Some(d) if d.is_absolute() => d,
        Some(d) => workspace.join(d), // cargo resolves a relative one against the workspace
        None => workspace.join("target"),
    };
    std::fs::create_dir_all(&dir).ok();
    dir
}

/// `koth report DIR`, as a user runs it.
fn make_report(dir: &Path) -> PathBuf {
    let out = koth().arg("report").arg(dir).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "koth report failed: {stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("report.html"), "{stdout}");
    let path = dir.join(page::REPORT_FILE);
    assert!(path.exists());
    path
}

fn chromium_or_fail() {
    assert!(
        Path::new(CHROMIUM).exists(),
        "{CHROMIUM} is missing: the report test drives a headless Chromium; \
         .ci/run installs it (apt-get install -y chromium)"
    );
}

/// Runs headless Chromium with `args` and returns its stdout (killed after 90 s).
fn chromium(profile: &Path, args: &[String]) -> String {
    let mut child = Command::new(CHROMIUM)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromium starts");
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut s).ok();
        s
    });
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "chromium failed: {status}");
            break;
        }
        if start.elapsed() > Duration::from_secs(90) {
            child.kill().ok();
            child.wait().ok();
            panic!("chromium did not finish in 90 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    reader.join().unwrap()
}

fn dump_dom(page: &Path, fragment: &str) -> String {
    let profile = scratch(&format!(
        "profile-{}",
        fragment.replace(['#', '=', '&'], "_")
    ));
    let url = format!(
        "file://{}{fragment}",
        page.canonicalize().unwrap().display()
    );
    let dom = chromium(
        &profile,
        &[
            "--virtual-time-budget=3000".into(),
            "--dump-dom".into(),
            url,
        ],
    );
    assert!(
        dom.contains("data-ready=\"1\""),
        "the page's script did not finish:\n{}",
        &dom[..dom.len().min(3000)]
    );
    dom
}

/// Text as Chromium serializes it inside an element.
fn html_text(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('\u{a0}', "&nbsp;")
}

#[test]
fn coup_report_in_chromium() {
    chromium_or_fail();
    let dir = scratch("coup");
    let status = koth()
        .args([
            "coup", "loop", "--games", "200", "--seed", "1", "-q", "--out",
        ])
        .arg(&dir)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let page = make_report(&dir);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.len() > 50_000 && html.len() < 5_000_000,
        "{}",
        html.len()
    );
    // Self-contained: nothing fetched from anywhere.
    for bad in ["http://", "https://", "<link", "@import", "src=\""] {
        let hits: Vec<_> = html.match_indices(bad).map(|(i, _)| i).collect();
        let allowed = hits
            .iter()
            .all(|&i| html[i..].starts_with("http://www.w3.org/2000/svg"));
        assert!(allowed, "the page refers to {bad}");
    }

    let info = records::read_info(&dir).unwrap();
    let recs: Vec<GameRecord<Choice>> = records::read_records(&dir, false).unwrap();
    let names = &info.entrants;
    let n = names.len();

    let dom = dump_dom(&page, "#game=3");
    // The leaderboard and the ratings: a row for every bot.
    assert_eq!(dom.matches("class=\"board-row\"").count(), n);
    assert_eq!(dom.matches("class=\"rating-row\"").count(), n);
    for name in names {
        assert!(
            dom.contains(&format!("data-bot=\"{name}\" class=\"board-row\"")),
            "{name}"
        );
    }
    // The same ranking as the terminal's and the JSON summary's: by mean score.
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    // Turn-cap endings counted as the summary counts them, and the page says
    // which ranking it stands by.
    let capped = summary["turn_capped"].as_u64().unwrap();
    let note = if capped == 0 {
        "No game ended at the turn cap".to_string()
    } else {
        format!("{capped} of 200 games (")
    };
    assert!(
        dom.contains(&format!("id=\"turn-cap-note\">{note}")),
        "{note}"
    );
    assert!(dom.contains(">turn cap</th>"));
    assert!(dom.contains(
        "id=\"rank-note\">The Leaderboard, by mean score per game, is the ranking koth stands by"
    ));
    let json_order: Vec<&str> = summary["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    let mut page_order: Vec<(usize, &str)> = names
        .iter()
        .map(|name| {
            let at = dom
                .find(&format!("data-bot=\"{name}\" class=\"board-row\""))
                .unwrap();
            (at, name.as_str())
        })
        .collect();
    page_order.sort();
    let page_order: Vec<&str> = page_order.into_iter().map(|(_, n)| n).collect();
    assert_eq!(page_order, json_order);
    let means: Vec<f64> = summary["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["mean"].as_f64().unwrap())
        .collect();
    assert!(means.windows(2).all(|w| w[0] >= w[1]), "{means:?}");
    // The heatmap: a cell for every ordered pair that met.
    let mut met = vec![false; n * n];
    for r in &recs {
        for &a in &r.seats {
            for &b in &r.seats {
                met[a * n + b] |= a != b;
            }
        }
    }
    let pairs = met.iter().filter(|&&m| m).count();
    assert!(pairs > 0);
    assert_eq!(dom.matches("class=\"hcell\"").count(), pairs);
    // The chart has a line per bot; the game list has every game.
    assert_eq!(dom.matches("class=\"series\"").count(), n);
    assert_eq!(dom.matches("class=\"game-row").count(), recs.len());

    // Game 3 opened from the fragment, with its narration.
    let rec = recs.iter().find(|r| r.index == 3).unwrap();
    let seat_names: Vec<String> = rec.seats.iter().map(|&e| names[e].clone()).collect();
    let rules: Rules = serde_json::from_value(info.rules.clone()).unwrap();
    let game = records::replay::<State>(&rules, rec, |_| {}).unwrap();
    assert!(dom.contains("<h3>Game 3</h3>"), "game 3 is not open");
    assert!(dom.contains("id=\"replay-log\""));
    assert!(dom.contains("id=\"step-label\">step 1 / "));
    assert!(dom.contains("class=\"game-row sel\" data-game=\"3\""));
    // The first narrations (passes are merged into "a, b and c let it stand").
    let mut at = 0;
    let said = game
        .log()
        .iter()
        .map(|e| describe(e, &seat_names))
        .filter(|(tone, _)| *tone != Tone::Quiet);
    for (_, text) in said.take(5) {
        let text = html_text(&text);
        let found = dom[at..]
            .find(&text)
            .unwrap_or_else(|| panic!("narration {text:?} missing or out of order"));
        at += found + text.len();
    }
    let end = html_text(&format!("Game over after {} turns", rec.outcome.turns));
    assert!(dom.contains(&end), "{end}");
    // The seat table shows every seat's coins and cards.
    assert!(dom.matches("class=\"card-chip").count() >= 2 * rec.seats.len());

    // A later step, from the fragment too.
    let dom = dump_dom(&page, "#game=3&step=5");
    assert!(dom.contains("id=\"step-label\">step 5 / "));
    assert!(dom.contains("class=\"step cur\" data-step=\"4\""));
    assert!(dom.contains("class=\"step future\" data-step=\"5\""));

    // A game without an embedded replay says so.
    let dom = dump_dom(&page, "#game=100000");
    assert!(dom.contains("Game 100000 is not in this report"));

    // Playback speed, and whose eyes: seat 1's view hides the others' cards.
    let dom = dump_dom(&page, "#game=3&view=1");
    assert!(dom.contains("id=\"speed\""));
    assert!(dom.contains("id=\"view\""));
    let hidden = dom.matches("title=\"hidden from seat 1\"").count();
    let all = dump_dom(&page, "#game=3");
    assert_eq!(all.matches("title=\"hidden from seat 1\"").count(), 0);
    assert!(hidden >= 2, "the other seats' hidden cards are not masked");

    // --replays 5: game 10 is listed, not embedded, with the command that replays it.
    let out = koth()
        .args(["report", "--replays", "5"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    let dom = dump_dom(&page, "#game=10");
    assert!(dom.contains("replay is not embedded"), "game 10 embedded?");
    assert!(
        dom.contains(&html_text(&format!(
            "koth replay {} --game 10",
            dir.display()
        ))),
        "no replay command"
    );
    assert_eq!(
        dom.matches("class=\"game-row\"").count(),
        5,
        "five replayable rows"
    );
    // --replays all: every game embedded.
    let out = koth()
        .args(["report", "--replays", "all"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    let dom = dump_dom(&page, "#game=150");
    assert!(dom.contains("id=\"replay-log\""));
    assert_eq!(dom.matches("class=\"game-row noreplay").count(), 0);
    // A bad --replays is refused with the choices.
    let out = koth()
        .args(["report", "--replays", "some"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("all, forfeits or auto"));
    make_report(&dir);

    // The screenshot.
    let shot = target_dir().join("report-screenshot.png");
    let _ = std::fs::remove_file(&shot);
    let profile = scratch("profile-shot");
    let url = format!(
        "file://{}#game=3&step=12",
        page.canonicalize().unwrap().display()
    );
    chromium(
        &profile,
        &[
            "--virtual-time-budget=3000".into(),
            format!("--screenshot={}", shot.display()),
            "--window-size=1280,2000".into(),
            url,
        ],
    );
    let png = std::fs::read(&shot).expect("the screenshot is written");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert!(png.len() > 50_000, "screenshot only {} bytes", png.len());
}

/// An agent that always fails, with a reason and stderr meant to break out.
struct Saboteur;

impl Agent<State> for Saboteur {
    fn decide(&mut self, _: &State, _: Seat, _: &[Choice]) -> Result<Choice, Fault> {
        Err(Fault {
            reason: "<img id=pwned2 src=x onerror=\"document.body.dataset.pwned=2\">".into(),
            stderr_tail: Some(
                "panic!\n</script><script>document.body.dataset.pwned=3</script><!--".into(),
            ),
            illegal: false,
            tried: None,
            hook: None,
            again: None,
        })
    }
}

#[test]
fn hostile_names_and_stderr_stay_text() {
    chromium_or_fail();
    let dir = scratch("hostile");
    let evil = "<img id=pwned src=x onerror=\"document.body.dataset.pwned=1\">";
    let closer = "</script><script>document.body.dataset.pwned=4</script>";
    let mut entrants = vec![
        koth_coup::builtin_entrant("honest", evil).unwrap(),
        koth_coup::builtin_entrant("counter", closer).unwrap(),
        koth_coup::builtin_entrant("economist", "O'Brien & \"Co\"").unwrap(),
    ];
    entrants.push(Entrant::new("saboteur", |_| {
        Ok(Box::new(Saboteur) as Box<dyn Agent<State>>)
    }));
    let t = Tournament {
        rules: Rules::standard(),
        entrants,
        schedule: Schedule::RandomTables {
            games: 40,
            table: 3,
        },
        scoring: Scoring::ZeroSum,
        seed: 5,
        threads: 1,
        records: RecordLevel::Full,
        duplicate: false,
    };
    let info = RunInfo {
        game: "coup".into(),
        runner: "test".into(),
        rules: serde_json::to_value(Rules::standard()).unwrap(),
        seed: 5,
        schedule: t.schedule,
        scoring: t.scoring,
        entrants: t.names(),
        entrant_specs: vec![serde_json::Value::Null; 4],
        records: RecordLevel::Full,
        range: (0, 40),
        shard: None,
        version: "test".into(),
        duplicate: false,
    };
    records::write_info(&dir, &info).unwrap();
    let mut quiet = Quiet;
    let mut w = RecordWriter::append(&dir, &mut quiet).unwrap();
    t.run(&mut w);
    w.flush().unwrap();
    assert!(w.error.is_none());

    let page = make_report(&dir);
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(html.matches("</script>").count(), 2, "only the page's own");
    assert!(!html.contains("<img"));

    // Open a game the saboteur forfeited.
    let recs: Vec<GameRecord<Choice>> = records::read_records(&dir, false).unwrap();
    let k = recs
        .iter()
        .find(|r| !r.forfeits.is_empty() && r.seats.contains(&0))
        .expect("a forfeit with the hostile name seated")
        .index;
    let dom = dump_dom(&page, &format!("#game={k}"));
    assert!(!dom.contains("data-pwned"), "a script from the data ran");
    assert!(
        !dom.contains("id=\"pwned"),
        "markup from the data was parsed"
    );
    // The names and the stderr are there, as text.
    assert!(dom.contains(&html_text(evil)));
    assert!(dom.contains(&html_text(closer)));
    assert!(dom.contains("O'Brien &amp; \"Co\""));
    assert!(dom.contains(&html_text("</script><script>document.body.dataset.pwned=3")));
    assert!(dom.contains("class=\"forfeit-row\""));
    assert!(dom.contains("saboteur forfeits and reveals every card"));
    // The story ends with who forfeited and why, and the bot's stderr is at hand.
    assert!(dom.contains("class=\"forfeit-box\""));
    assert!(dom.contains(" forfeited: "));
    assert!(dom.contains("its last stderr lines"));
}

#[test]
fn results_only_runs_list_games_without_replays() {
    chromium_or_fail();
    let dir = scratch("results");
    let status = koth()
        .args(["coup", "loop", "--games", "64", "--seed", "2", "-q"])
        .args(["--records", "results", "--out"])
        .arg(&dir)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let page = make_report(&dir);
    let dom = dump_dom(&page, "#game=7");
    assert!(dom.contains("kept results only"));
    assert!(dom.contains("<h3>Game 7</h3>"));
    assert!(!dom.contains("id=\"replay-log\""));
    assert_eq!(dom.matches("class=\"game-row noreplay").count(), 64);
}

#[test]
fn samurai_report_replays_duels() {
    chromium_or_fail();
    let dir = scratch("samurai");
    let status = koth()
        .args(["samurai", "--matches", "2", "--seed", "3", "-q", "--out"])
        .arg(&dir)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let page = make_report(&dir);
    let info = records::read_info(&dir).unwrap();
    let dom = dump_dom(&page, "#game=0");
    assert_eq!(
        dom.matches("class=\"board-row\"").count(),
        info.entrants.len()
    );
    assert!(dom.contains("<h3>Game 0</h3>"));
    assert!(dom.contains("each starts with"));
    assert!(dom.contains("turn 1: "));
    assert!(dom.contains("class=\"meter\""));
}

/// The two-player challenge's page draws Coup tables (coins and cards), under its
/// own title: its games are Coup games filed by another arbiter.
#[test]
fn ppcg_report_draws_coup_tables() {
    chromium_or_fail();
    let dir = scratch("ppcg");
    let status = koth()
        .args([
            "ppcg",
            "loop",
            "--bots",
            "honest,bluffer",
            "--games",
            "4",
            "--seed",
            "2",
            "-q",
            "--out",
        ])
        .arg(&dir)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let page = make_report(&dir);
    let dom = dump_dom(&page, "#game=0");
    assert!(dom.contains("Coup, the two-player challenge — tournament report"));
    assert!(dom.contains("<h3>Game 0</h3>"));
    assert!(dom.contains("class=\"card-chip"), "no Coup table drawn");
    assert!(!dom.contains("class=\"meter\""), "drawn as a duel's table");
}

/// A bot's stderr, kept in the run folder whole and in each game's record at
/// the decision where it was written: `koth replay` and the report show it at
/// that step. A process playing many games at once cannot say which game a line
/// belongs to: its lines stay in the run folder only.
#[test]
fn a_bots_lines_show_at_their_step_in_the_replay_and_the_report() {
    chromium_or_fail();
    let dir = scratch("botlog");
    let sdk = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../sdk/python/koth_bot.py");
    for (folder, run) in [("one", "run(L())"), ("many", "run(L)")] {
        let d = dir.join(folder);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::copy(&sdk, d.join("koth_bot.py")).unwrap();
        std::fs::write(
            d.join("bot.py"),
            format!(
                "from koth_bot import Bot, find, log, run\n\
                 class L(Bot):\n    name = \"{folder}\"\n\
                 \x20   def decide(self, decision, view, legal):\n\
                 \x20       log(\"{folder} thinks about\", decision[\"kind\"], \"on turn\", view[\"turn\"])\n\
                 \x20       return find(legal, \"act\", \"income\") or find(legal, \"pass\") or legal[0]\n\
                 {run}\n"
            ),
        )
        .unwrap();
    }
    let out = dir.join("run");
    let one = format!("one=cmd:python3 {}", dir.join("one/bot.py").display());
    let many = format!("many=cmd:python3 {}", dir.join("many/bot.py").display());
    let status = koth()
        .args([
            "coup",
            "run",
            "--bot",
            &one,
            "--bot",
            &many,
            "--builtin",
            "honest",
        ])
        .args(["--games", "6", "--seed", "4", "-q", "--out"])
        .arg(&out)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    // Whole, per process, in the run folder.
    let kept = |name: &str| {
        std::fs::read_dir(out.join("logs"))
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with(name))
            .map(|e| std::fs::read_to_string(e.path()).unwrap())
            .collect::<String>()
    };
    assert!(kept("one.").contains("one thinks about action on turn "));
    assert!(kept("many.").contains("many thinks about action"));
    // With the records: the one-at-a-time bot's lines, at their decisions, in
    // a file of their own (games.jsonl stays the same however the run is played).
    let recs: Vec<GameRecord<Choice>> = records::read_records(&out, false).unwrap();
    let info = records::read_info(&out).unwrap();
    let one_id = info.entrants.iter().position(|n| n == "one").unwrap();
    let many_id = info.entrants.iter().position(|n| n == "many").unwrap();
    let logs = records::read_logs(&out);
    let logged = |e: usize| {
        logs.values()
            .flat_map(|l| &l.lines)
            .filter(|n| n.kind == koth_arena::NoticeKind::Log && n.entrant == e)
            .count()
    };
    // Every answer of a program is timed, one game at a time or many; the
    // built-in bot's are not.
    let honest_id = info.entrants.iter().position(|n| n == "honest").unwrap();
    for r in &recs {
        let times = &logs[&r.index].times;
        for (seat, &e) in r.seats.iter().enumerate() {
            let n = times.iter().filter(|t| t.1 == seat).count();
            assert_eq!(
                n == 0,
                e == honest_id,
                "game {}: {e} timed {n} times",
                r.index
            );
        }
    }
    let games = std::fs::read_to_string(out.join("games.jsonl")).unwrap();
    assert!(!games.contains("thinks about"));
    assert!(logged(one_id) > 0);
    assert_eq!(logged(many_id), 0, "many games at once: not attributed");
    // `koth replay` shows them before the move they led to.
    let game = recs
        .iter()
        .find(|r| r.seats.contains(&one_id))
        .unwrap()
        .index;
    let shown = koth()
        .args(["replay"])
        .arg(&out)
        .args(["--game", &game.to_string()])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&shown.stdout);
    let at = text
        .find("  one stderr | one thinks about action on turn ")
        .expect(&text);
    let moved = text[at..].find("  one takes Income").expect(&text);
    assert!(!text[at..at + moved].contains("Turn "), "{text}");
    // The report's replay, at its step.
    let page = make_report(&out);
    let dom = dump_dom(&page, &format!("#game={game}"));
    assert!(
        dom.contains("class=\"ln botlog\">one stderr | one thinks about action on turn "),
        "no bot line in the replay"
    );
    // Each of a program's decisions: what it was asked, what it answered, how
    // long it took, after what it logged there.
    let first = dom
        .find("class=\"ln decision\">one asked: action (")
        .expect("no decision line in the replay");
    let line = &dom[first..first + dom[first..].find('<').unwrap()];
    let took = line.split(") → Income · ").nth(1).expect(line);
    let (n, unit) = took.trim_start_matches("≤ ").split_once(' ').expect(line);
    assert!(
        n.parse::<f64>().is_ok() && (unit == "µs" || unit == "ms"),
        "{line}"
    );
    let logged_at = dom.find("one stderr | one thinks about action").unwrap();
    assert!(logged_at < first);
    assert!(dom.contains("class=\"ln decision\">many asked: "), "{dom}");
    assert!(!dom.contains("class=\"ln decision\">honest asked"));
}
