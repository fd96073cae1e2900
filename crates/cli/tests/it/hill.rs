//! `koth hill` as an organiser uses it: a hill made, entrants coming, changing and
//! going, games played and audited, a crash in the middle, and the live page
//! watched in a real browser.

use crate::common;

use common::http::{http_get, post_form, post_urlencoded, status_and_body, tar_of};
use common::{contestant_folder, fails, koth_all, ok, sandbox, slow_bot};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn scratch(label: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("koth-hilltest-{label}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn db(dir: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open(dir.join("hill.sqlite")).unwrap()
}

/// `koth hill init` of a Coup hill with this seed and, when given, block size
/// (of built-ins too),
/// candidate games and table size; what it printed.
fn init_coup(
    dir: &str,
    seed: u64,
    block: Option<u64>,
    candidates: Option<u64>,
    table: Option<usize>,
) -> String {
    let mut args = vec![
        "hill".to_string(),
        "init".into(),
        dir.into(),
        "--game".into(),
        "coup".into(),
        "--seed".into(),
        seed.to_string(),
    ];
    for (flag, n) in [
        ("--block", block),
        ("--builtin-block", block),
        ("--candidate-games", candidates),
        ("--table-size", table.map(|t| t as u64)),
    ] {
        if let Some(n) = n {
            args.extend([flag.to_string(), n.to_string()]);
        }
    }
    ok(&args.iter().map(String::as_str).collect::<Vec<_>>())
}

fn game_count(dir: &Path) -> i64 {
    db(dir)
        .query_row("SELECT COALESCE(SUM(count), 0) FROM batches", [], |r| {
            r.get(0)
        })
        .unwrap_or(0)
}

/// Every stored game, read through the hill's own store.
fn games(dir: &Path) -> Vec<koth_hill::StoredGame> {
    let mut all = Vec::new();
    koth_hill::store::open_read(dir)
        .unwrap()
        .each_game(&mut |g| all.push(g))
        .unwrap();
    all
}

/// Games whose record holds a forfeit.
fn forfeited_games(dir: &Path) -> usize {
    games(dir)
        .iter()
        .filter(|g| g.record.contains("\"forfeits\""))
        .count()
}

/// Every stored game and block, as text, for comparing two hills (games one by
/// one: a restart may store them in other batches).
fn contents(dir: &Path) -> (Vec<String>, Vec<String>) {
    (
        games(dir)
            .iter()
            .map(|g| format!("{} {} {:?} {}", g.block, g.index, g.seats, g.record))
            .collect(),
        koth_hill::store::open_read(dir)
            .unwrap()
            .blocks()
            .unwrap()
            .iter()
            .map(|b| {
                let (id, kind, versions, schedule) = (b.id, b.kind, &b.versions, &b.schedule);
                format!(
                    "{id} {kind} {versions:?} {schedule} {} {} {}",
                    b.seed, b.games, b.done
                )
            })
            .collect(),
    )
}

#[test]
fn a_hill_from_the_command_line() {
    let d = scratch("cli");
    let h = d.to_str().unwrap();
    let out = init_coup(h, 4, Some(30), Some(60), Some(3));
    assert!(
        out.contains("a hill of coup (standard rules, 3 seats a table)"),
        "{out}"
    );
    for b in ["honest", "bluffer", "economist"] {
        let out = ok(&["hill", "add", h, b, &format!("builtin:{b}")]);
        assert!(
            out.contains(&format!("{b} entered the hill: version 1")),
            "{out}"
        );
    }
    let out = ok(&["hill", "play", h, "--games", "200", "-q"]);
    assert!(out.contains("│ 1"), "{out}");
    for b in ["honest", "bluffer", "economist"] {
        assert!(out.contains(b), "{out}");
    }
    let stored = game_count(&d);
    assert!((200..230).contains(&stored), "{stored}");
    let out = ok(&["hill", "update", h, "bluffer", "skeptic"]);
    assert!(out.contains("bluffer updated: version 2"), "{out}");
    let out = ok(&["hill", "status", h]);
    assert!(
        out.contains(&format!(
            "{stored} games stored, 0 of them among the current versions"
        )),
        "{out}"
    );
    ok(&["hill", "play", h, "--games", "100", "-q"]);
    // What each rank rests on, entrant by entrant: its gaps to its neighbours.
    let out = ok(&["hill", "status", h, "--verbose"]);
    let lines: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("not settled") || l.contains(": settled"))
        .collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(
        lines
            .iter()
            .all(|l| l.contains(" SE: ") && l.contains(" … ")),
        "{out}"
    );
    assert!(out.contains("deals a ✓ needs"), "{out}");
    let out = ok(&["hill", "audit", h]);
    assert!(out.contains("games replayed: all as stored"), "{out}");

    // Every stored game as a JSON line, oldest first, naming each seat's entrant
    // and version; the record is the stored one.
    let stored = games(&d);
    let text = ok(&["hill", "games", h]);
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), stored.len());
    for ((line, g), raw) in lines.iter().zip(&stored).zip(text.lines()) {
        assert_eq!(line["block"], g.block, "{line}");
        assert_eq!(line["game"], g.index, "{line}");
        assert_eq!(line["version_ids"], serde_json::json!(g.seats), "{line}");
        // The keys in a reader's order, and the record byte for byte as stored.
        assert!(raw.starts_with(r#"{"block":"#), "{raw}");
        assert!(
            raw.ends_with(&format!(r#","record":{}}}"#, g.record)),
            "{raw}"
        );
    }
    // bluffer's first version is version 2 of the hill, its second version 4:
    // bluffer's versions 1 and 2.
    let names = |l: &serde_json::Value| -> Vec<String> {
        serde_json::from_value(l["entrants"].clone()).unwrap()
    };
    let numbers = |l: &serde_json::Value, key: &str| -> Vec<i64> {
        serde_json::from_value(l[key].clone()).unwrap()
    };
    assert_eq!(names(&lines[0]).len(), 3);
    let mut seen = [0, 0];
    for l in &lines {
        for (seat, id) in numbers(l, "version_ids").into_iter().enumerate() {
            let number = numbers(l, "versions")[seat];
            match id {
                2 | 4 => {
                    assert_eq!(names(l)[seat], "bluffer", "{l}");
                    assert_eq!(number, if id == 2 { 1 } else { 2 }, "{l}");
                    seen[(id / 4) as usize] += 1;
                }
                _ => assert_eq!(number, 1, "{l}"),
            }
        }
    }
    assert!(seen[0] > 0 && seen[1] > 0, "{seen:?}");
    ok(&["hill", "pause", h, "honest"]);
    let out = ok(&["hill", "status", h]);
    assert!(out.contains("honest (paused)"), "{out}");
    ok(&["hill", "remove", h, "economist"]);
    // Two entrants left, one paused: nothing to play, said so.
    let e = fails(&["hill", "play", h, "--games", "10"]);
    assert!(e.contains("a hill needs two active entrants"), "{e}");

    // Only one entrant's games, to a file: economist is gone, so the games after
    // a newcomer entered are not its.
    ok(&["hill", "add", h, "random", "builtin:random"]);
    ok(&["hill", "resume", h, "honest"]);
    ok(&["hill", "play", h, "--games", "60", "-q"]);
    let lines: Vec<serde_json::Value> = ok(&["hill", "games", h])
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let file = d.join("economist.jsonl");
    ok(&[
        "hill",
        "games",
        h,
        "--entrant",
        "economist",
        "--out",
        file.to_str().unwrap(),
    ]);
    let mine = std::fs::read_to_string(&file).unwrap();
    let expected = lines
        .iter()
        .filter(|l| names(l).contains(&"economist".to_string()))
        .count();
    assert!(expected > 0 && expected < lines.len(), "{expected}");
    assert_eq!(mine.lines().count(), expected);
    let e = fails(&["hill", "games", h, "--entrant", "nobody"]);
    assert!(
        e.contains("no entrant \"nobody\"") && e.contains("fix: one of honest, bluffer, economist"),
        "{e}"
    );

    // Bad input: named, with the fix.
    let e = fails(&["hill", "init", h, "--game", "coup"]);
    assert!(e.contains("is a hill already"), "{e}");
    let e = fails(&["hill", "init", &format!("{h}-x"), "--game", "chess"]);
    assert!(
        e.contains("unknown game \"chess\"") && e.contains("fix:"),
        "{e}"
    );
    let x = format!("{h}-x");
    let init_fails = |extra: &[&str]| fails(&[&["hill", "init", x.as_str()], extra].concat());
    let e = init_fails(&["--game", "coup", "--table-size", "9"]);
    assert!(e.contains("--table-size 9"), "{e}");
    let e = init_fails(&["--game", "samurai", "--rules", "ppcg"]);
    assert!(e.contains("samurai has no rules presets"), "{e}");
    let e = init_fails(&["--game", "coup", "--keep-logs", "0"]);
    assert!(
        e.contains("--keep-logs 0") && e.contains("fix: --keep-logs 1"),
        "{e}"
    );
    assert!(!Path::new(&format!("{h}-x")).exists());
    let e = fails(&["hill", "status", &format!("{h}-nothing")]);
    assert!(
        e.contains("is not a hill") && e.contains("koth hill init"),
        "{e}"
    );
    let e = fails(&["hill", "add", h, "../up", "builtin:honest"]);
    assert!(e.contains("cannot name an entrant"), "{e}");
    let e = fails(&["hill", "add", h, "x", "builtin:honset"]);
    assert!(e.contains("honest"), "{e}");
    let e = fails(&["hill", "update", h, "nobody", "honest"]);
    assert!(e.contains("no entrant \"nobody\""), "{e}");
    let e = fails(&["hill", "play", h, "--games", "0"]);
    assert!(e.contains("--games must be at least 1"), "{e}");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn a_program_enters_only_if_it_passes_its_check_and_plays_from_its_copy() {
    let d = scratch("entry");
    let h = d.to_str().unwrap();
    let bots = contestant_folder(
        "hill-entry",
        &[
            "crates/cli/tests/buggy/buggy_bot.py",
            "sdk/python/koth_bot.py",
            "sdk/python/example_bot.py",
        ],
    );
    init_coup(h, 9, Some(20), Some(40), None);
    ok(&["hill", "add", h, "honest", "honest"]);
    let buggy = format!("python3 {}/buggy_bot.py keeps-three", bots.display());
    let e = fails(&[
        "hill",
        "add",
        h,
        "buggy",
        &buggy,
        "--check-games",
        "60",
        "--sandbox",
        sandbox(),
    ]);
    assert!(
        e.contains("did not enter the hill") && e.contains("exchange"),
        "{e}"
    );
    let out = ok(&["hill", "status", h]);
    assert!(!out.contains("buggy"), "{out}");
    let good = format!("python3 {}/buggy_bot.py none", bots.display());
    let out = ok(&[
        "hill",
        "add",
        h,
        "good",
        &good,
        "--check-games",
        "30",
        "--sandbox",
        sandbox(),
    ]);
    assert!(out.contains("its folder copied into the hill"), "{out}");
    // The original changes after submission: the hill plays its copy.
    std::fs::write(bots.join("buggy_bot.py"), "raise SystemExit(3)\n").unwrap();
    let out = ok(&[
        "hill",
        "play",
        h,
        "--games",
        "40",
        "-q",
        "--sandbox",
        sandbox(),
    ]);
    assert!(out.lines().any(|l| l.contains("good")), "{out}");
    assert_eq!(forfeited_games(&d), 0, "{out}");
    // A backup holds the program's kept folder: the copy plays it, with the
    // original gone, and audits clean.
    let copy = scratch("program-backup");
    ok(&["hill", "backup", h, copy.to_str().unwrap()]);
    let listing = |dir: &Path| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir.join("versions"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    assert_eq!(listing(&copy), listing(&d));
    assert!(!listing(&copy).is_empty());
    std::fs::remove_dir_all(&d).ok();
    let c = copy.to_str().unwrap();
    ok(&[
        "hill",
        "play",
        c,
        "--games",
        "40",
        "-q",
        "--sandbox",
        sandbox(),
    ]);
    assert_eq!(forfeited_games(&copy), 0);
    assert!(ok(&["hill", "audit", c]).contains("all as stored"));
    std::fs::remove_dir_all(&copy).ok();
    std::fs::remove_dir_all(&bots).ok();
}

/// `koth hill play` killed with SIGKILL in the middle of a block, then started
/// again, stores exactly the games an uninterrupted hill with the same events
/// stores: none lost, none twice.
#[test]
fn kill_9_in_the_middle_and_a_restart_equal_an_uninterrupted_hill() {
    let bot = slow_bot("hill-kill", 3);
    let cmd = format!("python3 {}/slow.py", bot.display());
    let make = |label: &str| {
        let d = scratch(label);
        let h = d.to_str().unwrap().to_string();
        init_coup(&h, 77, Some(24), Some(48), Some(3));
        ok(&["hill", "add", &h, "honest", "honest"]);
        ok(&[
            "hill",
            "add",
            &h,
            "slow",
            &cmd,
            "--check-games",
            "10",
            "--sandbox",
            sandbox(),
        ]);
        ok(&["hill", "add", &h, "bluffer", "bluffer"]);
        d
    };
    let whole = make("whole");
    ok(&[
        "hill",
        "play",
        whole.to_str().unwrap(),
        "--games",
        "150",
        "-q",
        "--sandbox",
        sandbox(),
    ]);

    let cut = make("cut");
    let h = cut.to_str().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_koth"))
        .args([
            "hill",
            "play",
            h,
            "--games",
            "150",
            "-q",
            "--sandbox",
            sandbox(),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    // Killed once some games are stored and a block is under way.
    loop {
        let n = game_count(&cut);
        if n >= 30 && n % 24 != 0 {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no games stored"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "it finished before the kill"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    // A second player is refused while the first plays, and stores nothing.
    let refused = fails(&["hill", "play", h, "--games", "10", "-q"]);
    assert!(
        refused.contains(&format!("is being played by process {}", child.id())),
        "{refused}"
    );
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
    child.wait().unwrap();
    let at_kill = game_count(&cut);
    let (_, blocks) = contents(&cut);
    assert!(
        blocks.iter().any(|b| {
            let w: Vec<&str> = b.split(' ').collect();
            w[w.len() - 1] != w[w.len() - 2]
        }),
        "no block was cut short: {blocks:?}"
    );
    let rest = (150 - at_kill).max(1).to_string();
    ok(&[
        "hill",
        "play",
        h,
        "--games",
        &rest,
        "-q",
        "--sandbox",
        sandbox(),
    ]);
    assert_eq!(contents(&cut), contents(&whole));
    // The same standings, the restarted hill's from what it kept before the kill
    // and the games after.
    assert_eq!(
        ok(&["hill", "status", h]),
        ok(&["hill", "status", whole.to_str().unwrap()])
    );
    let out = ok(&["hill", "audit", h]);
    assert!(out.contains("all as stored"), "{out}");
    std::fs::remove_dir_all(&whole).ok();
    std::fs::remove_dir_all(&cut).ok();
    std::fs::remove_dir_all(&bot).ok();
}

/// The page in a real browser: the leaderboard changes as games end, without a
/// reload, and an entrant's page and a game open from it.
#[test]
fn the_page_shows_the_leaderboard_change_as_games_end() {
    assert!(
        Path::new("/usr/bin/chromium").exists(),
        "/usr/bin/chromium is missing: .ci/run installs it (apt-get install -y chromium)"
    );
    let bot = slow_bot("hill-page", 20);
    let d = scratch("page");
    let h = d.to_str().unwrap();
    init_coup(h, 3, Some(10), Some(20), Some(2));
    ok(&["hill", "add", h, "honest", "honest"]);
    let cmd = format!("python3 {}/slow.py", bot.display());
    ok(&[
        "hill",
        "add",
        h,
        "slow",
        &cmd,
        "--check-games",
        "5",
        "--sandbox",
        sandbox(),
    ]);
    ok(&[
        "hill",
        "config",
        h,
        "--title",
        "Spring Coup",
        "--deadline",
        &from_now(3 * 86400 + 3600),
    ]);
    ok(&["hill", "announce", h, "The **first** round is on Friday."]);
    let (mut serve, addr) = serve(h, &["--sandbox", sandbox()]);
    let url = format!("http://{addr}/");

    // The page runs only its own files: no inline script or style is allowed,
    // and it has none (the browser below would show nothing if it needed one).
    let page = http_get(&addr, "/").to_ascii_lowercase();
    let csp = page
        .lines()
        .find_map(|l| l.strip_prefix("content-security-policy: "))
        .unwrap_or_default()
        .to_string();
    assert!(
        csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"),
        "{csp}"
    );
    assert!(page.contains("<script src=\"page.js\"></script>") && !page.contains("<style"));
    // The game viewer is the run reports' own, served as a file of its own.
    assert!(page.contains("<script src=\"viewer.js\"></script>"));
    assert!(http_get(&addr, "/page.js").starts_with("HTTP/1.1 200"));
    let viewer = http_get(&addr, "/viewer.js");
    assert!(viewer.starts_with("HTTP/1.1 200") && viewer.contains(koth_hill::web::VIEWER_JS));
    assert!(http_get(&addr, "/page.css").starts_with("HTTP/1.1 200"));
    let profile = scratch("page-profile");
    let mut b = common::cdp::Browser::open(&url, &profile);
    b.wait_for(
        "Number(document.body.dataset.updates || 0) >= 4",
        Duration::from_secs(60),
    );
    let seen =
        b.eval("[...document.querySelectorAll('#updates li')].map(li => Number(li.dataset.games))");
    let counts: Vec<u64> = seen
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert!(counts.windows(2).all(|w| w[0] <= w[1]), "{counts:?}");
    assert!(
        counts.last() > counts.first(),
        "the board never changed: {counts:?}"
    );
    let rows =
        b.eval("[...document.querySelectorAll('#board tbody tr')].map(tr => tr.dataset.name)");
    let mut names: Vec<String> = serde_json::from_value(rows).unwrap();
    names.sort();
    assert_eq!(names, ["honest", "slow"]);
    // The contest's header: its title, the countdown to its deadline, its
    // announcement with its Markdown made HTML.
    b.wait_for(
        "document.getElementById('title').textContent === 'Spring Coup'",
        Duration::from_secs(20),
    );
    assert_eq!(b.eval("document.title"), "Spring Coup");
    let phase = b.eval("document.getElementById('phase').textContent");
    assert!(
        phase.as_str().unwrap().starts_with("deadline in 3 d 0"),
        "{phase}"
    );
    assert_eq!(
        b.eval("document.querySelector('#announcements li strong').textContent"),
        "first"
    );
    assert_eq!(
        b.eval("document.querySelector('#upload button').disabled"),
        false
    );
    // The standings over time: axes with values, a legend, a line a name;
    // head to head with its counts.
    b.wait_for(
        "document.querySelectorAll('#history-axes text.y-tick').length >= 2 && document.querySelectorAll('#history-axes text.x-tick').length >= 1",
        Duration::from_secs(60),
    );
    let ticks = b.eval(
        "[...document.querySelectorAll('#history-axes text.y-tick')].map(t => t.textContent)",
    );
    assert!(
        ticks
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t.as_str().unwrap().parse::<f64>().is_ok()),
        "{ticks}"
    );
    let legend = b.eval(
        "[...document.querySelectorAll('#history-legend span')].map(s => s.dataset.name).sort()",
    );
    assert_eq!(legend, serde_json::json!(["honest", "slow"]));
    assert_eq!(
        b.eval("document.querySelectorAll('#history polyline').length"),
        2
    );
    let counts = b.eval("[...document.querySelectorAll('#h2h td small')].map(s => s.textContent)");
    assert_eq!(counts.as_array().unwrap().len(), 2, "{counts}");
    assert!(counts[0].as_str().unwrap().starts_with('('), "{counts}");
    // The shown count is the stored count of a moment ago: the page is live.
    let shown = b.eval("Number(document.querySelector('#updates li:last-child').dataset.games)");
    assert!(shown.as_i64().unwrap() <= game_count(&d));
    let lates =
        b.eval("[...document.querySelectorAll('#updates li')].map(li => Number(li.dataset.late))");
    eprintln!("update delays (ms): {lates}");
    // An entrant's page, then one of its games, from clicks.
    b.eval("document.querySelector('#board tbody tr[data-name=slow]').click()");
    b.wait_for(
        "!document.getElementById('entrant').hidden && document.querySelector('#entrant a.game') !== null",
        Duration::from_secs(20),
    );
    // Its address, who entered it and how it runs.
    assert_eq!(b.eval("location.hash"), "#entrant=slow");
    let facts = b.eval("document.getElementById('entrant-facts').textContent");
    assert!(
        facts
            .as_str()
            .unwrap()
            .starts_with("entered by the organiser · runs python3 ")
            && facts.as_str().unwrap().contains("slow.py"),
        "{facts}"
    );
    // What its rank rests on: the gap to its neighbour, with its interval,
    // on the entrant's page and in the rank's tooltip.
    let why = b.eval("document.getElementById('rank-why').textContent");
    let why = why.as_str().unwrap();
    assert!(
        why.contains("against honest") || why.contains("over honest"),
        "{why}"
    );
    assert!(
        why.contains("at the hill's boundary") && why.contains("deals"),
        "{why}"
    );
    let tip = b.eval("document.querySelector('#board tbody tr[data-name=slow] td').title");
    let tip = tip.as_str().unwrap();
    assert!(
        tip.starts_with("settled") || tip.starts_with("not settled"),
        "{tip}"
    );
    assert!(tip.contains("honest"), "{tip}");
    let versions =
        b.eval("[...document.querySelectorAll('#versions tr')].map(tr => tr.textContent)");
    let versions: Vec<String> = serde_json::from_value(versions).unwrap();
    assert_eq!(versions.len(), 2, "{versions:?}");
    assert!(versions[1].starts_with("v1"), "{versions:?}");
    b.eval("document.querySelector('#entrant a.game').click()");
    b.wait_for(
        "!document.getElementById('game').hidden && document.getElementById('replay-log').textContent.length > 0",
        Duration::from_secs(20),
    );
    let text = b.eval("document.getElementById('replay-log').textContent");
    assert!(text.as_str().unwrap().contains("slow"), "{text}");
    // The game's address opens it again, at its first step.
    let link = b.eval("location.hash");
    let link = link.as_str().unwrap().to_string();
    assert!(link.starts_with("#game="), "{link}");
    let steps = b.eval("Number(document.getElementById('step-slider').max) + 1");
    let steps = steps.as_u64().unwrap();
    assert!(steps > 6, "{steps} steps");
    b.eval("location.hash = ''; document.getElementById('game').hidden = true; true");
    b.eval(&format!("location.hash = '{link}'; true"));
    b.wait_for(
        &format!("!document.getElementById('game').hidden && document.getElementById('step-label').textContent.trim() === 'step 1 / {steps}'"),
        Duration::from_secs(20),
    );
    // The arrow keys and the slider step through it; the current step's lines
    // are marked in the story.
    b.eval("document.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight' })); true");
    let at = b.eval("document.getElementById('step-label').textContent.trim()");
    assert_eq!(at, format!("step 2 / {steps}").as_str());
    let cur = b.eval("[...document.querySelectorAll('#replay-log .step')].findIndex(n => n.classList.contains('cur'))");
    assert_eq!(cur, 1);
    b.eval("(() => { const s = document.getElementById('step-slider'); s.value = '3'; s.dispatchEvent(new Event('input')); return true; })()");
    let at = b.eval("document.getElementById('step-label').textContent.trim()");
    assert_eq!(at, format!("step 4 / {steps}").as_str());
    // Play goes on by itself.
    b.eval("document.getElementById('btn-play').click(); true");
    b.wait_for(
        "!/^step [1-4] \\//.test(document.getElementById('step-label').textContent.trim())",
        Duration::from_secs(20),
    );
    b.eval("document.getElementById('btn-play').click(); true");
    // Every card at the start; then only what the first seat sees: the other
    // seat's hidden cards become question marks.
    b.eval("document.getElementById('btn-first').click()");
    let cards = "[...document.querySelectorAll('#seat-table .cards')].map(td => [...td.querySelectorAll('.card-chip.hid')].map(c => c.textContent))";
    let all = b.eval(cards);
    let all: Vec<Vec<String>> = serde_json::from_value(all).unwrap();
    assert_eq!(all.len(), 2, "{all:?}");
    assert!(
        all.iter()
            .all(|c| c.len() == 2 && c.iter().all(|x| x != "?")),
        "{all:?}"
    );
    b.eval("(() => { const v = document.getElementById('view'); v.value = '0'; v.dispatchEvent(new Event('change')); return true; })()");
    let seen: Vec<Vec<String>> = serde_json::from_value(b.eval(cards)).unwrap();
    assert_eq!(seen[0], all[0], "seat 1 sees its own cards");
    assert_eq!(seen[1], ["?", "?"], "seat 1 does not see seat 2's");
    drop(b);
    serve.kill().ok();
    serve.wait().ok();
    std::fs::remove_dir_all(&d).ok();
    std::fs::remove_dir_all(&profile).ok();
    std::fs::remove_dir_all(&bot).ok();
}

/// A tar of `files` (name, contents), written by hand so that a test can write
/// what no honest tool would.
/// A hill of Coup with one built-in, small blocks, and an author's token `alice`:
/// its folder, and the token.
fn hill_for_uploads(label: &str) -> (PathBuf, String) {
    let d = scratch(label);
    let h = d.to_str().unwrap();
    init_coup(h, 8, Some(20), Some(20), None);
    ok(&["hill", "add", h, "honest", "honest"]);
    let alice = ok(&["hill", "token", "add", h, "alice"]).trim().to_string();
    (d, alice)
}

/// The SDK's example bot as a contestant uploads it: its folder as a tar.
fn example_bot_tar() -> Vec<u8> {
    let sdk = |f: &str| std::fs::read(common::repo().join("sdk/python").join(f)).unwrap();
    tar_of(&[
        ("example_bot.py", b'0', &sdk("example_bot.py"), ""),
        ("koth_bot.py", b'0', &sdk("koth_bot.py"), ""),
    ])
}

/// `koth hill serve` on a free port: the process and the page's address.
fn serve(dir: &str, extra: &[&str]) -> (common::Reaped, String) {
    let (child, addr, _) = serve_with(dir, extra, &[]);
    (child, addr)
}

/// [`serve`] with `env` added, and what it said before its address.
fn serve_with(dir: &str, extra: &[&str], env: &[(&str, &str)]) -> (common::Reaped, String, String) {
    let (child, addr, said, _) = serve_logged(dir, extra, env);
    (child, addr, said)
}

/// [`serve_with`], and what it says on stderr after its address as it comes.
fn serve_logged(
    dir: &str,
    extra: &[&str],
    env: &[(&str, &str)],
) -> (
    common::Reaped,
    String,
    String,
    std::sync::Arc<std::sync::Mutex<String>>,
) {
    let mut serve = Command::new(env!("CARGO_BIN_EXE_koth"))
        .args([
            "hill",
            "serve",
            dir,
            "--listen",
            "127.0.0.1:0",
            "--threads",
            "1",
        ])
        .args(extra)
        .envs(env.iter().copied())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = std::io::BufReader::new(serve.stderr.take().unwrap());
    let (mut addr, mut said) = (None, String::new());
    for _ in 0..5 {
        let mut line = String::new();
        std::io::BufRead::read_line(&mut err, &mut line).unwrap();
        said += &line;
        if let Some(a) = line
            .split_whitespace()
            .find_map(|w| w.strip_prefix("http://"))
        {
            addr = Some(a.trim_end_matches('/').to_string());
            break;
        }
    }
    let log = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let sink = log.clone();
    std::thread::spawn(move || {
        let mut line = String::new();
        while std::io::BufRead::read_line(&mut err, &mut line).unwrap_or(0) > 0 {
            sink.lock().unwrap().push_str(&line);
            line.clear();
        }
    });
    (
        common::Reaped(serve),
        addr.expect("serve printed its address"),
        said,
        log,
    )
}

/// Uploads as strangers send them: each refused with its reason, nothing
/// entered; a good one enters under its author, who alone may change it.
#[test]
fn uploads_need_a_token_and_hostile_ones_are_refused_with_a_reason() {
    let (d, alice) = hill_for_uploads("uploads");
    let h = d.to_str().unwrap();
    let bob = ok(&["hill", "token", "add", h, "bob"]).trim().to_string();
    let org = ok(&["hill", "token", "add", h, "org", "--admin"])
        .trim()
        .to_string();
    let listed = ok(&["hill", "token", "list", h]);
    assert_eq!(listed, "alice\nbob\norg (organiser)\n");
    // Only hashes are kept.
    let raw = std::fs::read(d.join("hill.sqlite")).unwrap();
    assert!(!raw.windows(alice.len()).any(|w| w == alice.as_bytes()));
    let (mut server, addr) = serve(h, &["--sandbox", sandbox()]);

    let good = example_bot_tar();
    let bot = std::fs::read(common::repo().join("sdk/python/example_bot.py")).unwrap();
    let form = |token: &str, name: &str| {
        vec![
            ("token", token.to_string()),
            ("name", name.to_string()),
            ("command", "python3 example_bot.py".to_string()),
        ]
    };
    let post = |fields: Vec<(&str, String)>, archive: &[u8]| {
        let f: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
        post_form(&addr, "/api/submit", &f, Some(archive))
    };
    let (code, body) = post(form("", "pyex"), &good);
    assert_eq!(code, 401, "{body}");
    assert!(body.contains("no token"), "{body}");
    let (code, body) = post(form("0123456789abcdef", "pyex"), &good);
    assert_eq!(
        (code, body.as_str()),
        (401, "unknown token: check it, or ask the organiser for one")
    );
    let hostile: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "traversal",
            tar_of(&[("../../escape.py", b'0', b"x", "")]),
            "leads out of the bot's folder",
        ),
        (
            "absolute",
            tar_of(&[("/tmp/escape.py", b'0', b"x", "")]),
            "leads out of the bot's folder",
        ),
        (
            "link",
            tar_of(&[("example_bot.py", b'2', b"", "/etc/passwd")]),
            "is a link",
        ),
        (
            "hard link",
            tar_of(&[("k", b'1', b"", "/etc/shadow")]),
            "is a link",
        ),
        ("not an archive", bot.clone(), "not a tar, tar.gz or zip"),
    ];
    for (what, archive, says) in &hostile {
        let (code, body) = post(form(&alice, "evil"), archive);
        assert_eq!(code, 422, "{what}: {body}");
        assert!(body.contains(says), "{what}: {body}");
    }
    let many: Vec<(String, u8, &[u8], &str)> = (0..2001)
        .map(|i| (format!("f{i}"), b'0', &b"x"[..], ""))
        .collect();
    let many: Vec<(&str, u8, &[u8], &str)> = many
        .iter()
        .map(|(n, k, b, l)| (n.as_str(), *k, *b, *l))
        .collect();
    let (code, body) = post(form(&alice, "evil"), &tar_of(&many));
    assert_eq!(code, 422, "{body}");
    assert!(body.contains("more than 2000 files"), "{body}");
    let huge = vec![b'x'; 17 << 20];
    let (code, body) = post(form(&alice, "evil"), &tar_of(&[("big", b'0', &huge, "")]));
    assert_eq!(code, 413, "{body}");
    // A bot that fails its check: the check's report, and it does not enter.
    let broken = tar_of(&[("example_bot.py", b'0', b"import sys\nsys.exit(3)\n", "")]);
    let (code, body) = post(form(&alice, "broken"), &broken);
    assert_eq!(code, 422, "{body}");
    assert!(body.contains("did not enter the hill"), "{body}");
    assert!(
        !d.join("uploads").read_dir().unwrap().any(|_| true),
        "an upload was left behind"
    );
    // Nothing of the above entered; nothing was written outside the hill.
    assert!(!Path::new("/tmp/escape.py").exists());
    let status = ok(&["hill", "status", h]);
    assert!(
        !status.contains("evil") && !status.contains("broken"),
        "{status}"
    );

    // A good upload enters under alice; bob may not update or remove it.
    let (code, body) = post(form(&alice, "pyex"), &good);
    assert_eq!(code, 200, "{body}");
    assert!(body.contains("pyex entered the hill: version 1"), "{body}");
    // The report reads as in a terminal: the check's header, its table, its
    // verdict.
    let at = |s: &str| body.find(s).unwrap_or_else(|| panic!("{s} in {body}"));
    assert!(
        at("Checking pyex") < at("decision ") && at("decision ") < at("pyex passed"),
        "{body}"
    );
    let mut upd = form(&bob, "pyex");
    upd.push(("change", "update".into()));
    let (code, body) = post(upd, &good);
    assert_eq!(code, 403, "{body}");
    assert!(body.contains("another author's entrant"), "{body}");
    let (code, body) = post_urlencoded(&addr, "/api/entrant/pyex/remove", &bob);
    assert_eq!(code, 403, "{body}");
    let (code, body) = post_urlencoded(&addr, "/api/entrant/pyex/pause", &alice);
    assert_eq!(code, 403, "{body}");
    assert!(body.contains("organiser's token"), "{body}");
    let (code, body) = post_urlencoded(&addr, "/api/entrant/pyex/pause", &org);
    assert_eq!((code, body.as_str()), (200, "pyex: pause"));
    let mut upd = form(&alice, "pyex");
    upd.push(("change", "update".into()));
    let (code, body) = post(upd, &good);
    assert_eq!(code, 200, "{body}");
    assert!(body.contains("version 2"), "{body}");
    let page = http_get(&addr, "/api/entrant/pyex");
    let body = page.split_once("\r\n\r\n").unwrap().1;
    let e: serde_json::Value = serde_json::from_str(body).unwrap();
    assert_eq!(e["versions"].as_array().unwrap().len(), 2, "{e}");
    assert_eq!(e["results"][1]["version"], 2, "{e}");
    let (code, _) = post_urlencoded(&addr, "/api/entrant/pyex/remove", &alice);
    assert_eq!(code, 200);
    // Ten checks in ten minutes at most per author; an upload refused before
    // its check (bob's refused above, these archives) is not one of them.
    for _ in 0..3 {
        let (code, body) = post(form(&bob, "spam"), b"not an archive");
        assert_eq!(code, 422, "{body}");
    }
    for _ in 0..10 {
        let (code, body) = post(form(&bob, "spam"), &broken);
        assert_eq!(code, 422, "{body}");
        assert!(body.contains("did not enter the hill"), "{body}");
    }
    let (code, body) = post(form(&bob, "spam"), &broken);
    assert_eq!(code, 429, "{body}");
    assert!(
        body.contains("too many uploads checked: 10 in the last 10 minutes"),
        "{body}"
    );
    // A revoked token is refused.
    ok(&["hill", "token", "remove", h, "alice"]);
    let (code, _) = post(form(&alice, "again"), &good);
    assert_eq!(code, 401);
    server.kill().ok();
    server.wait().ok();
    std::fs::remove_dir_all(&d).ok();
}

/// The form on the page, in a browser: with an author's token the bot is
/// checked and enters; without one it is refused.
#[test]
fn a_bot_uploaded_through_the_pages_form_enters_with_a_token_only() {
    let (d, alice) = hill_for_uploads("form");
    let h = d.to_str().unwrap();
    let (mut server, addr) = serve(h, &["--sandbox", sandbox()]);
    let file = d.join("mybot.tar");
    std::fs::write(&file, example_bot_tar()).unwrap();
    let profile = scratch("form-profile");
    let mut b = common::cdp::Browser::open(&format!("http://{addr}/"), &profile);
    // The page's own script (a file of its own) has loaded and run.
    b.wait_for(
        "document.readyState === 'complete' && typeof el === 'function' && document.querySelector('#upload') !== null",
        Duration::from_secs(20),
    );
    let doc = b.call("DOM.getDocument", serde_json::json!({}), true);
    let root = doc["root"]["nodeId"].clone();
    let input = b.call(
        "DOM.querySelector",
        serde_json::json!({ "nodeId": root, "selector": "#upload input[name=archive]" }),
        true,
    );
    b.call(
        "DOM.setFileInputFiles",
        serde_json::json!({ "files": [file.display().to_string()], "nodeId": input["nodeId"] }),
        true,
    );
    let fill = |token: &str| {
        format!(
            "(() => {{ const f = document.getElementById('upload');
               f.token.value = {token:?}; f.name.value = 'formbot'; f.command.value = 'python3 example_bot.py';
               document.getElementById('upload-report').dataset.status = '';
               f.requestSubmit(); return true; }})()"
        )
    };
    // The browser's own check: a required field left empty is not sent (the
    // form is invalid, so its submit event never fires).
    assert_eq!(
        b.eval("(() => { const f = document.getElementById('upload'); f.token.value = ''; return f.checkValidity(); })()"),
        false
    );
    b.eval(&fill(""));
    assert_eq!(
        b.eval("document.getElementById('upload-report').dataset.status"),
        ""
    );
    b.eval(&fill("not-a-token"));
    b.wait_for(
        "document.getElementById('upload-report').dataset.status === '401'",
        Duration::from_secs(30),
    );
    let text = b.eval("document.getElementById('upload-report').textContent");
    assert!(text.as_str().unwrap().contains("unknown token"), "{text}");
    b.eval(&fill(&alice));
    b.wait_for(
        "document.getElementById('upload-report').dataset.status === '200'",
        Duration::from_secs(240),
    );
    let text = b.eval("document.getElementById('upload-report').textContent");
    assert!(
        text.as_str()
            .unwrap()
            .contains("formbot entered the hill: version 1"),
        "{text}"
    );
    // It shows up on the live leaderboard.
    b.wait_for(
        "document.querySelector('#board tr[data-name=formbot]') !== null",
        Duration::from_secs(30),
    );
    drop(b);
    server.kill().ok();
    server.wait().ok();
    std::fs::remove_dir_all(&d).ok();
    std::fs::remove_dir_all(&profile).ok();
}

/// A round: the current versions frozen, a fixed number of games played as a
/// run folder with its report, listed on the page.
#[test]
fn a_round_is_a_run_of_the_current_versions_with_its_report() {
    let d = scratch("round");
    let h = d.to_str().unwrap();
    init_coup(h, 12, None, None, Some(3));
    for b in ["honest", "bluffer", "economist", "counter"] {
        ok(&["hill", "add", h, b, b]);
    }
    ok(&["hill", "update", h, "counter", "skeptic"]);
    ok(&["hill", "pause", h, "economist"]);
    let out = ok(&["hill", "round", h, "--games", "300", "-q"]);
    // Balanced and duplicate: rounded up to whole rounds of deals.
    let games: u64 = out
        .split("round 1: ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{out}"));
    assert!((300..320).contains(&games), "{out}");
    let run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("rounds/1/run.json")).unwrap()).unwrap();
    // The active entrants only, counter as its current version.
    assert_eq!(
        run["entrants"],
        serde_json::json!(["honest", "bluffer", "counter"])
    );
    assert_eq!(
        run["entrant_specs"][2],
        serde_json::json!({ "builtin": "skeptic" })
    );
    assert!(d.join("rounds/1/report.html").is_file());
    // The round's games are not the hill's: the live standings are untouched.
    assert_eq!(game_count(&d), 0);
    // Serving for as long as the test asks (with `--games 1` it stopped after its
    // first batch, and a request could find it gone).
    let (mut server, addr) = serve(h, &[]);
    let rounds = http_get(&addr, "/api/rounds");
    assert!(
        rounds.contains("\"id\":1") && rounds.contains(&format!("\"games\":{games}")),
        "{rounds}"
    );
    let page = http_get(&addr, "/rounds/1");
    assert!(page.contains("<html"), "{}", &page[..page.len().min(300)]);
    assert!(http_get(&addr, "/rounds/2").contains("no report of round 2"));
    server.kill().ok();
    server.wait().ok();
    // Fewer than two active: said so.
    ok(&["hill", "pause", h, "bluffer"]);
    ok(&["hill", "pause", h, "counter"]);
    let e = fails(&["hill", "round", h, "--games", "10"]);
    assert!(e.contains("a round needs two active entrants"), "{e}");
    std::fs::remove_dir_all(&d).ok();
}

/// A game of built-ins is stored as its results; the page shows it whole,
/// played again from its block's seed, and says so when the stored results are
/// not what that seed plays.
#[test]
fn the_page_plays_a_game_of_built_ins_again_from_its_seed() {
    let d = scratch("page-results");
    let h = d.to_str().unwrap();
    init_coup(h, 21, Some(30), Some(30), Some(3));
    for b in ["honest", "bluffer", "economist"] {
        ok(&["hill", "add", h, b, &format!("builtin:{b}")]);
    }
    ok(&["hill", "play", h, "--games", "60", "-q"]);
    // Nothing to play while the page is up: the stored games stay as they are.
    ok(&["hill", "pause", h, "honest"]);
    ok(&["hill", "pause", h, "bluffer"]);
    let stored = games(&d);
    let g = &stored[5];
    assert!(!g.record.contains("\"choices\""), "{}", g.record);
    let (mut serve, addr) = serve(h, &[]);
    // The page's process plays the hill: no second player while it is up.
    let refused = fails(&["hill", "play", h, "--games", "30", "-q"]);
    assert!(
        refused.contains(&format!("is being played by process {}", serve.id())),
        "{refused}"
    );
    let path = format!("/api/game/{}/{}", g.block, g.index);
    let (code, body) = status_and_body(&http_get(&addr, &path));
    assert_eq!(code, 200, "{body}");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    let choices = v["record"]["choices"].as_str().unwrap_or_default();
    assert!(!choices.is_empty(), "{body}");
    let kept: serde_json::Value = serde_json::from_str(&g.record).unwrap();
    for k in ["seed", "seats", "outcome", "scores", "decisions"] {
        assert_eq!(v["record"][k], kept[k], "{k}: {body}");
    }
    // The viewer's steps, from the seating to the end.
    let steps = v["steps"]["steps"].as_array().unwrap();
    assert!(steps.len() > 2, "{body}");
    assert!(
        steps.last().unwrap().to_string().contains("Game over"),
        "{body}"
    );

    // The stored winner changed by hand: the page says what is wrong.
    let conn = db(&d);
    let (id, first, packed): (i64, i64, Vec<u8>) = conn
        .query_row(
            "SELECT id, first, games FROM batches WHERE block = ?1 AND first <= ?2 AND first + count > ?2",
            rusqlite::params![g.block, g.index as i64],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    let mut batch = koth_hill::store::unpack(g.block, first as u64, &packed).unwrap();
    let t = batch.iter_mut().find(|x| x.index == g.index).unwrap();
    let mut rec: serde_json::Value = serde_json::from_str(&t.record).unwrap();
    rec["scores"] = serde_json::json!([1.0, 1.0, 1.0]);
    t.record = rec.to_string();
    conn.execute(
        "UPDATE batches SET games = ?1 WHERE id = ?2",
        rusqlite::params![koth_hill::store::pack(&batch), id],
    )
    .unwrap();
    let (code, body) = status_and_body(&http_get(&addr, &path));
    assert_eq!(code, 200, "{body}");
    assert!(body.contains("not what its seed plays"), "{body}");
    serve.kill().ok();
    serve.wait().ok();
    std::fs::remove_dir_all(&d).ok();
}

/// A program started for one block serves the next ones: its processes are
/// started once per parallel table, not once per block, and none dies between
/// blocks (a program dies with the thread that started it, so koth starts them
/// from one that lives as long as it does).
#[test]
fn a_programs_processes_serve_block_after_block() {
    let bot = contestant_folder("hill-kept", &[]);
    std::fs::write(
        bot.join("kept.py"),
        "import json, sys\nprint('started', file=sys.stderr, flush=True)\nfor line in sys.stdin:\n    m = json.loads(line)\n    if m['type'] == 'hello':\n        print(json.dumps({'type': 'ready'}), flush=True)\n    elif m['type'] == 'decide':\n        print(json.dumps({'index': 0}), flush=True)\n",
    )
    .unwrap();
    let d = scratch("kept");
    let h = d.to_str().unwrap();
    init_coup(h, 2, Some(20), Some(20), Some(2));
    ok(&["hill", "add", h, "honest", "honest"]);
    let cmd = format!("python3 {}/kept.py", bot.display());
    ok(&[
        "hill",
        "add",
        h,
        "kept",
        &cmd,
        "--check-games",
        "5",
        "--sandbox",
        sandbox(),
    ]);
    ok(&[
        "hill",
        "play",
        h,
        "--games",
        "300",
        "-q",
        "--threads",
        "2",
        "--sandbox",
        sandbox(),
    ]);
    let blocks: i64 = db(&d)
        .query_row("SELECT COUNT(*) FROM blocks", [], |r| r.get(0))
        .unwrap();
    assert!(blocks >= 15, "{blocks} blocks");
    assert_eq!(forfeited_games(&d), 0);
    // Every process said "started" once, in its log.
    let mut started = 0;
    for v in std::fs::read_dir(d.join("logs")).unwrap() {
        for f in std::fs::read_dir(v.unwrap().path()).unwrap() {
            started += std::fs::read_to_string(f.unwrap().path())
                .unwrap()
                .matches("started")
                .count();
        }
    }
    // Two workers, two tables each under duplicate play: four processes at most.
    assert!(
        (1..=4).contains(&started),
        "{started} processes for {blocks} blocks"
    );
    // An update replaces the version: once the next block starts, only the
    // stderr logs of versions entrants hold are kept.
    let logs = |d: &std::path::Path| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(d.join("logs"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let before = logs(&d);
    assert_eq!(before.len(), 1, "{before:?}");
    let mut text = std::fs::read_to_string(bot.join("kept.py")).unwrap();
    text.push_str("# version 2\n");
    std::fs::write(bot.join("kept.py"), text).unwrap();
    ok(&["hill", "update", h, "kept", &cmd, "--sandbox", sandbox()]);
    ok(&[
        "hill",
        "play",
        h,
        "--games",
        "60",
        "-q",
        "--sandbox",
        sandbox(),
    ]);
    let after = logs(&d);
    assert_eq!(after.len(), 1, "{after:?}");
    assert_ne!(after, before, "the replaced version's logs are gone");
    std::fs::remove_dir_all(&d).ok();
    std::fs::remove_dir_all(&bot).ok();
}

/// Where programs cannot be isolated, the page takes no uploads (and says why)
/// unless the organiser trusts every entrant with `--sandbox off`.
#[test]
fn without_isolation_the_page_takes_no_uploads_unless_told_to_trust() {
    let (d, alice) = hill_for_uploads("noiso");
    let h = d.to_str().unwrap();
    let start = |extra: &[&str]| serve_with(h, extra, &[("KOTH_BWRAP", "off")]);
    let good = example_bot_tar();
    let fields = [
        ("token", alice.as_str()),
        ("name", "pyex"),
        ("command", "python3 example_bot.py"),
    ];
    let (mut serve, addr, said) = start(&[]);
    assert!(
        said.contains("this hill takes no uploads") && said.contains("--sandbox off"),
        "{said}"
    );
    let (code, body) = post_form(&addr, "/api/submit", &fields, Some(&good));
    assert_eq!(code, 503, "{body}");
    assert!(body.contains("cannot isolate programs"), "{body}");
    serve.kill().ok();
    serve.wait().ok();
    let (mut serve, addr, said) = start(&["--sandbox", "off"]);
    assert!(!said.contains("takes no uploads"), "{said}");
    let (code, body) = post_form(&addr, "/api/submit", &fields, Some(&good));
    assert_eq!(code, 200, "{body}");
    serve.kill().ok();
    serve.wait().ok();
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn play_rests_when_every_rank_is_settled_if_asked() {
    let d = scratch("rest");
    let h = d.to_str().unwrap();
    init_coup(h, 5, Some(40), Some(80), Some(2));
    ok(&["hill", "add", h, "honest", "builtin:honest"]);
    ok(&["hill", "add", h, "random", "builtin:random"]);
    let (code, out, err) = koth_all(&[
        "hill",
        "play",
        h,
        "--games",
        "1000000",
        "--rest-when-settled",
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(err.contains("every rank is settled: resting"), "{err}");
    assert!(out.contains("1 ✓") && out.contains("2 ✓"), "{out}");
    let stored = game_count(&d);
    assert!((80..1000).contains(&stored), "{stored}");
    // Again: nothing to play, said so, and not an error.
    let (code, _, err) = koth_all(&["hill", "play", h, "--rest-when-settled"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("0 games") && err.contains("resting"), "{err}");
    assert_eq!(game_count(&d), stored);
    // Without it, the hill plays on.
    ok(&["hill", "play", h, "--games", "100", "-q"]);
    assert!(game_count(&d) >= stored + 100);
    std::fs::remove_dir_all(&d).ok();
}

/// The time `secs` from now, as `koth hill config` takes it.
fn from_now(secs: i64) -> String {
    koth_hill::contest::show_time(koth_hill::store::now() + secs)
}

/// A contest as an organiser runs it: its title, texts and dates set and
/// shown, an announcement, uploads closed at the deadline (the organiser's
/// still enter), a final round drawn from a beacon and shown as the result,
/// a backup taken while it is served, and no games after the end.
#[test]
fn a_contest_is_announced_frozen_and_decided_by_its_final_round() {
    let d = scratch("contest");
    let h = d.to_str().unwrap();
    init_coup(h, 31, Some(100), Some(100), Some(3));
    ok(&["hill", "add", h, "honest", "honest"]);
    ok(&["hill", "add", h, "bluffer", "bluffer"]);
    let alice = ok(&["hill", "token", "add", h, "alice"]).trim().to_string();
    let desc = d.join("desc.md");
    std::fs::write(&desc, "# Winter Coup\n\nWrite a **Coup** bot.\n\n<script>alert(1)</script><img src=x onerror=alert(2)>\n").unwrap();
    let rules = d.join("rules.md");
    std::fs::write(&rules, "1. One entrant per author.\n").unwrap();
    let out = ok(&[
        "hill",
        "config",
        h,
        "--title",
        "Winter Coup",
        "--description",
        desc.to_str().unwrap(),
        "--rules",
        rules.to_str().unwrap(),
        "--start",
        "2026-01-01T00:00:00Z",
        "--deadline",
        &from_now(3600),
        "--end",
        &from_now(7200),
        "--beacon-source",
        "the lottery's draw of 2026-11-28",
    ]);
    assert!(out.contains("title:       Winter Coup\n"), "{out}");
    assert!(
        out.contains("beacon:      the lottery's draw of 2026-11-28\n"),
        "{out}"
    );
    assert!(out.contains("now:         uploads open until"), "{out}");
    // Bad dates: the file of the fix, never a half-set contest.
    let e = fails(&["hill", "config", h, "--deadline", &from_now(9000)]);
    assert!(
        e.contains("the deadline") && e.contains("would come after the end"),
        "{e}"
    );
    let e = fails(&["hill", "config", h, "--end", "friday"]);
    assert!(
        e.contains("--end \"friday\" is not a moment")
            && e.contains("fix: write it as 2026-12-01T18:00:00Z"),
        "{e}"
    );
    let e = fails(&["hill", "config", h, "--rules", "/no/such.md"]);
    assert!(e.contains("--rules /no/such.md: cannot read it"), "{e}");
    let out = ok(&[
        "hill",
        "announce",
        h,
        "Welcome: the **deadline** is in an hour.",
    ]);
    assert!(out.starts_with("announcement 1 posted at "), "{out}");
    assert!(ok(&["hill", "announce", h, "--list"]).starts_with("1 · "));
    let (code, _, err) = koth_all(&["hill", "announce", h, "--remove", "7"]);
    assert_eq!(code, Some(3), "{err}");

    let (mut server, addr) = serve(h, &[]);
    let contest = || -> serde_json::Value {
        let r = http_get(&addr, "/api/contest");
        serde_json::from_str(r.split_once("\r\n\r\n").unwrap().1).unwrap()
    };
    let c = contest();
    assert_eq!(c["title"], "Winter Coup");
    assert_eq!(c["phase"], "open");
    let html = c["description_html"].as_str().unwrap();
    assert!(
        html.contains("<h1>Winter Coup</h1>") && html.contains("<strong>Coup</strong>"),
        "{html}"
    );
    assert!(
        !html.contains("<script") && !html.contains("onerror"),
        "{html}"
    );
    assert!(c["rules_html"]
        .as_str()
        .unwrap()
        .contains("<li>One entrant per author.</li>"));
    assert_eq!(c["announcements"][0]["id"], 1);
    assert!(c["announcements"][0]["html"]
        .as_str()
        .unwrap()
        .contains("<strong>deadline</strong>"));
    // Before the deadline an author's upload is taken (this one is then refused
    // for its archive, which shows it got past the dates).
    let form = [
        ("token", alice.as_str()),
        ("name", "late"),
        ("command", "python3 bot.py"),
    ];
    let (code, body) = post_form(&addr, "/api/submit", &form, Some(b"not an archive"));
    assert_eq!(code, 422, "{body}");
    assert!(body.contains("not a tar"), "{body}");
    // The deadline passes: the field is frozen for authors, not the organiser.
    ok(&["hill", "config", h, "--deadline", &from_now(-1)]);
    assert_eq!(contest()["phase"], "frozen");
    let (code, body) = post_form(&addr, "/api/submit", &form, Some(b"not an archive"));
    assert_eq!(code, 403, "{body}");
    assert!(
        body.contains("no uploads now: the field is frozen: uploads closed at"),
        "{body}"
    );
    ok(&["hill", "add", h, "economist", "economist"]);
    // The beacon's source stays what the page said before the deadline.
    let e = fails(&["hill", "config", h, "--beacon-source", "another draw"]);
    assert!(
        e.contains("the beacon's source is fixed before the deadline"),
        "{e}"
    );
    // The final round needs its beacon, and comes after the deadline only.
    let e = fails(&["hill", "round", h, "--final", "--games", "30"]);
    assert!(e.contains("--beacon"), "{e}");
    let out = ok(&[
        "hill",
        "round",
        h,
        "--games",
        "60",
        "--final",
        "--beacon",
        "lottery 2026-11-28: 4 8 15 16 23 42",
        "-q",
    ]);
    assert!(out.contains("round 1: "), "{out}");
    let c = contest();
    assert_eq!(c["final_round"]["id"], 1, "{c}");
    assert_eq!(
        c["final_round"]["beacon"],
        "lottery 2026-11-28: 4 8 15 16 23 42"
    );
    assert_eq!(c["beacon_source"], "the lottery's draw of 2026-11-28");
    assert_eq!(
        c["final_round"]["beacon_normal"],
        "lottery 2026 11 28 4 8 15 16 23 42"
    );
    // One final round: another spelling of the beacon is refused, not a second draw.
    let e = fails(&[
        "hill",
        "round",
        h,
        "--games",
        "60",
        "--final",
        "--beacon",
        "Lottery 2026-11-28:  4 8 15 16 23 42",
    ]);
    assert!(
        e.contains("the final round was played already: round 1"),
        "{e}"
    );
    assert!(e.contains("--void-final 1"), "{e}");
    // Voided (the page says so), the final is played again: any spelling of
    // the same beacon draws the same deals, so the same standings.
    let out = ok(&[
        "hill",
        "round",
        h,
        "--void-final",
        "1",
        "--reason",
        "a bot crashed for the machine",
    ]);
    assert!(out.contains("final round 1 voided"), "{out}");
    ok(&[
        "hill",
        "round",
        h,
        "--games",
        "60",
        "--final",
        "--beacon",
        "LOTTERY 2026 11 28 -- 4 8 15 16 23 42",
        "-q",
    ]);
    let c = contest();
    assert_eq!(c["final_round"]["id"], 2, "{c}");
    assert_eq!(c["voided_finals"][0]["round"], 1, "{c}");
    assert_eq!(
        c["voided_finals"][0]["reason"],
        "a bot crashed for the machine"
    );
    let rounds: serde_json::Value = {
        let r = http_get(&addr, "/api/rounds");
        serde_json::from_str(r.split_once("\r\n\r\n").unwrap().1).unwrap()
    };
    let standings = |n: usize| {
        rounds
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == n)
            .unwrap()["standings"]
            .clone()
    };
    assert_eq!(
        standings(1),
        standings(2),
        "another spelling drew other deals"
    );
    assert!(
        c["announcements"][0]["html"]
            .as_str()
            .unwrap()
            .contains("voided the final round (round 1)"),
        "{c}"
    );
    let report = std::fs::read_to_string(d.join("rounds/1/report.html")).unwrap();
    assert!(
        report.contains("Winter Coup: the final round (round 1)"),
        "the report's heading"
    );
    // No path of the server's in what the public reads: the report names
    // its round's folder as the hill holds it.
    assert!(!report.contains(h), "the hill's path in a round's report");
    assert!(
        report.contains("koth replay rounds/1 --game "),
        "the replay command"
    );
    let live = http_get(&addr, "/rounds/1");
    assert!(!live.contains(h), "the hill's path in the live report");
    assert!(
        report.contains("seeds drawn from the beacon"),
        "the report's subtitle"
    );
    // A backup taken while the hill is served is a hill that passes its audit.
    let copy = scratch("contest-backup");
    let out = ok(&["hill", "backup", h, copy.to_str().unwrap()]);
    assert!(
        out.contains("copied into") && out.contains("koth hill audit"),
        "{out}"
    );
    let audit = ok(&["hill", "audit", copy.to_str().unwrap()]);
    assert!(audit.contains("all as stored"), "{audit}");
    assert!(copy.join("rounds/1/report.html").is_file());
    // The announcements came along: the organiser's entry after the
    // deadline and the void were announced by the hill itself.
    let said = ok(&["hill", "announce", copy.to_str().unwrap(), "--list"]);
    assert!(
        said.starts_with("3 · ") && said.contains("voided the final round"),
        "{said}"
    );
    assert!(
        said.contains("After the deadline, the organiser entered \"economist\""),
        "{said}"
    );
    let (code, _, err) = koth_all(&["hill", "backup", h, copy.to_str().unwrap()]);
    assert_eq!(code, Some(5), "a backup over a folder that is there: {err}");
    // The page exported as static files: the page in its static mode, the
    // contest with its result, the board, an entrant and its games, the
    // round's report; never over a folder that is there.
    let site = scratch("contest-export");
    let out = ok(&["hill", "export", h, site.to_str().unwrap()]);
    assert!(out.contains("3 entrants' pages"), "{out}");
    let read = |rel: &str| std::fs::read_to_string(site.join(rel)).unwrap();
    assert!(read("index.html").contains("<html lang=\"en\" data-static=\"1\">"));
    let c: serde_json::Value = serde_json::from_str(&read("api/contest.json")).unwrap();
    assert_eq!(
        (c["title"].as_str(), c["final_round"]["id"].as_i64()),
        (Some("Winter Coup"), Some(2))
    );
    let board: serde_json::Value = serde_json::from_str(&read("api/board.json")).unwrap();
    assert_eq!(board["rows"].as_array().unwrap().len(), 3);
    assert_eq!(board["candidate_games"], 100);
    let honest: serde_json::Value = serde_json::from_str(&read("api/entrant/honest.json")).unwrap();
    let g = &honest["recent"][0];
    let game: serde_json::Value = serde_json::from_str(&read(&format!(
        "api/game/{}/{}.json",
        g["block"], g["index"]
    )))
    .unwrap();
    assert!(
        game["steps"]["steps"]
            .as_array()
            .is_some_and(|s| !s.is_empty()),
        "{game}"
    );
    assert!(read("rounds/1/report.html").contains("Winter Coup: the final round"));
    // Nothing of the export names the server's paths.
    let mut files = vec![site.clone()];
    while let Some(p) = files.pop() {
        if p.is_dir() {
            files.extend(std::fs::read_dir(&p).unwrap().flatten().map(|e| e.path()));
        } else {
            let text = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
            assert!(!text.contains(h), "{} names the hill's path", p.display());
        }
    }
    let (code, _, _) = koth_all(&["hill", "export", h, site.to_str().unwrap()]);
    assert_eq!(code, Some(5));
    std::fs::remove_dir_all(&site).ok();
    // The end: no more games.
    ok(&["hill", "config", h, "--end", &from_now(-1)]);
    assert_eq!(contest()["phase"], "ended");
    let stored = game_count(&d);
    std::thread::sleep(Duration::from_secs(3));
    let later = game_count(&d);
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(game_count(&d), later, "games after the end");
    assert!(stored > 0);
    server.kill().ok();
    server.wait().ok();
    let e = fails(&["hill", "play", h, "--games", "10"]);
    assert!(
        e.contains("the contest ended at") && e.contains("--end none"),
        "{e}"
    );
    std::fs::remove_dir_all(&d).ok();
    std::fs::remove_dir_all(&copy).ok();
}

/// Every refusal of the API is JSON with its status, and the statuses a
/// client acts on: 401 with `WWW-Authenticate`, 413 with the limit, 415 for
/// no form, 429 with `Retry-After`; uploads refused before they are unpacked
/// do not count toward the limit; `/metrics` counts them; the log is JSON
/// lines when asked.
#[test]
fn the_api_answers_every_refusal_with_its_status_as_json() {
    let (d, alice) = hill_for_uploads("manners");
    let h = d.to_str().unwrap();
    ok(&["hill", "add", h, "bluffer", "bluffer"]);
    let (mut server, addr, _, log) = serve_logged(h, &["--log-format", "json"], &[]);
    let json_of = |resp: &str| -> serde_json::Value {
        assert_eq!(
            common::http::header_of(resp, "content-type").as_deref(),
            Some("application/json"),
            "{resp}"
        );
        serde_json::from_str(resp.split_once("\r\n\r\n").unwrap().1).unwrap()
    };
    let status = |resp: &str| status_and_body(resp).0;
    // No form at all.
    let r = common::http::send(
        &addr,
        "POST",
        "/api/submit",
        &["Content-Type: text/plain"],
        b"hello",
    );
    assert_eq!(status(&r), 415, "{r}");
    assert!(
        json_of(&r)["error"]
            .as_str()
            .unwrap()
            .contains("multipart/form-data"),
        "{r}"
    );
    // No token: 401, and how to send one.
    let (boundary, body) = common::http::multipart(&[("name", "x")], Some(b"x"));
    let ct = format!("Content-Type: multipart/form-data; boundary={boundary}");
    let r = common::http::send(&addr, "POST", "/api/submit", &[&ct], &body);
    assert_eq!(status(&r), 401, "{r}");
    assert_eq!(
        common::http::header_of(&r, "www-authenticate").as_deref(),
        Some("Bearer")
    );
    assert_eq!(json_of(&r)["status"], 401);
    // Too big: 413 with the limit.
    let (boundary, body) = common::http::multipart(
        &[
            ("token", &alice),
            ("name", "big"),
            ("command", "python3 b.py"),
        ],
        Some(&vec![b'x'; 17 << 20]),
    );
    let ct = format!("Content-Type: multipart/form-data; boundary={boundary}");
    let r = common::http::send(&addr, "POST", "/api/submit", &[&ct], &body);
    assert_eq!(status(&r), 413, "{r}");
    let v = json_of(&r);
    assert_eq!(v["limit_bytes"], 16 << 20, "{v}");
    assert!(v["error"].as_str().unwrap().contains("16 MiB"), "{v}");
    // Refused before unpacking (a name no entrant may have): never counted.
    let form = |name: &str| {
        vec![
            ("token", alice.clone()),
            ("name", name.to_string()),
            ("command", "python3 bot.py".to_string()),
        ]
    };
    let post = |f: Vec<(&str, String)>| {
        let f: Vec<(&str, &str)> = f.iter().map(|(k, v)| (*k, v.as_str())).collect();
        post_form(&addr, "/api/submit", &f, Some(b"not an archive"))
    };
    for _ in 0..70 {
        let (code, body) = post(form("../up"));
        assert_eq!(code, 422, "{body}");
    }
    // Unpacked ones count: 60 in ten minutes, then 429 with when to come back.
    for i in 0..60 {
        let (code, body) = post(form("spam"));
        assert_eq!(code, 422, "upload {i}: {body}");
    }
    let (boundary, body) = common::http::multipart(
        &[
            ("token", &alice),
            ("name", "spam"),
            ("command", "python3 bot.py"),
        ],
        Some(b"not an archive"),
    );
    let ct = format!("Content-Type: multipart/form-data; boundary={boundary}");
    let r = common::http::send(&addr, "POST", "/api/submit", &[&ct], &body);
    assert_eq!(status(&r), 429, "{r}");
    let wait: u64 = common::http::header_of(&r, "retry-after")
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=600).contains(&wait), "{r}");
    assert_eq!(json_of(&r)["retry_after_s"], wait);
    assert!(json_of(&r)["error"]
        .as_str()
        .unwrap()
        .contains("too many uploads: 60 in the last 10 minutes"));
    // Other refusals: each its status, as JSON.
    let r = common::http::send(
        &addr,
        "POST",
        "/api/entrant/honest/pause",
        &["Content-Type: application/json"],
        b"{}",
    );
    assert_eq!(status(&r), 401, "{r}");
    let r = http_get(&addr, "/api/entrant/nobody");
    assert_eq!(
        (status(&r), json_of(&r)["status"].clone()),
        (404, serde_json::json!(404))
    );
    let r = http_get(&addr, "/api/game/999999999/0");
    assert_eq!(status(&r), 404, "{r}");
    // What /metrics counted.
    let m = http_get(&addr, "/metrics");
    assert!(m.contains("application/openmetrics-text"), "{m}");
    for line in [
        "koth_hill_uploads_total{outcome=\"throttled\"} 1",
        "koth_hill_uploads_total{outcome=\"rejected\"} 133",
        "koth_hill_checks_waiting 0",
    ] {
        assert!(m.lines().any(|l| l == line), "{line} in\n{m}");
    }
    let games_line = |m: &str| -> u64 {
        m.lines()
            .find_map(|l| l.strip_prefix("koth_hill_games_total "))
            .unwrap()
            .parse()
            .unwrap()
    };
    let t = Instant::now();
    while games_line(&http_get(&addr, "/metrics")) == 0 {
        assert!(t.elapsed() < Duration::from_secs(60), "no games counted");
        std::thread::sleep(Duration::from_millis(200));
    }
    server.kill().ok();
    server.wait().ok();
    std::thread::sleep(Duration::from_millis(200));
    // The log: one JSON object a line, with a line per upload and refusal.
    let log = log.lock().unwrap().clone();
    let lines: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert!(
        lines
            .iter()
            .any(|l| l["message"] == "upload received" && l["author"] == "alice"),
        "{log}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l["message"] == "upload not entered" && l["outcome"] == "throttled"),
        "{log}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l["message"] == "refused" && l["status"] == 401),
        "{log}"
    );
    assert!(
        lines
            .iter()
            .all(|l| l["level"].is_string() && l["timestamp"].is_string()),
        "{log}"
    );
    std::fs::remove_dir_all(&d).ok();
}

/// The service recipes in deploy/ run `koth` with words it takes: the
/// systemd unit's `ExecStart` and the container image's `CMD`, each run on a
/// hill of the test's (its folder and address swapped in, `--games` added so
/// that it ends) until it has served its page and played.
#[test]
fn the_service_recipes_run_commands_koth_takes() {
    let d = scratch("recipes");
    let h = d.to_str().unwrap();
    init_coup(h, 5, Some(50), Some(50), Some(2));
    ok(&["hill", "add", h, "honest", "honest"]);
    ok(&["hill", "add", h, "bluffer", "bluffer"]);
    let unit = std::fs::read_to_string(common::repo().join("deploy/koth-hill.service")).unwrap();
    let exec = unit
        .lines()
        .find_map(|l| l.strip_prefix("ExecStart=/usr/local/bin/koth "))
        .expect("the unit starts koth");
    let image = std::fs::read_to_string(common::repo().join("deploy/Containerfile")).unwrap();
    let cmd: Vec<String> = serde_json::from_str(
        image
            .lines()
            .find_map(|l| l.strip_prefix("CMD "))
            .expect("the image's CMD"),
    )
    .unwrap();
    assert!(
        image.contains("ENTRYPOINT [\"/usr/local/bin/koth\"]"),
        "{image}"
    );
    for (recipe, words) in [
        (
            "the systemd unit",
            exec.split_whitespace()
                .map(str::to_string)
                .collect::<Vec<_>>(),
        ),
        ("the container image", cmd),
    ] {
        let words: Vec<String> = words
            .into_iter()
            .map(|w| match w.as_str() {
                "/var/lib/koth/hill" | "/hill" => h.to_string(),
                "127.0.0.1:8080" | "0.0.0.0:8080" => "127.0.0.1:0".to_string(),
                _ => w,
            })
            .collect();
        assert!(words.iter().any(|w| w == h), "{recipe}: {words:?}");
        let mut args: Vec<&str> = words.iter().map(String::as_str).collect();
        args.extend(["--games", "100", "--threads", "1"]);
        let (code, _, err) = koth_all(&args);
        assert_eq!(code, Some(0), "{recipe}: koth {args:?}\n{err}");
        assert!(
            err.contains("the hill's page: http://127.0.0.1:"),
            "{recipe}: {err}"
        );
        // Its log is JSON lines after the address.
        let log: Vec<serde_json::Value> = err
            .lines()
            .filter(|l| !l.starts_with("the hill's page: "))
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{recipe}: {e}: {l}")))
            .collect();
        assert!(
            log.iter().any(|l| l["message"] == "block played"),
            "{recipe}: {err}"
        );
    }
    std::fs::remove_dir_all(&d).ok();
}

/// A report's bot names stay whole at the widths people read it at (they were
/// broken mid-word, "cha/mpio/n", at 1400 and 1920 pixels): each name's text
/// is laid out on one line, in every table of the report.
#[test]
fn a_reports_names_never_break_mid_word() {
    assert!(
        Path::new("/usr/bin/chromium").exists(),
        "/usr/bin/chromium is missing: .ci/run installs it (apt-get install -y chromium)"
    );
    let d = scratch("report-names");
    let out = d.join("run");
    ok(&[
        "coup",
        "run",
        "--builtin",
        "champion,honest,bluffer,counter,economist,skeptic",
        "--games",
        "60",
        "--seed",
        "3",
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    ok(&["report", out.to_str().unwrap()]);
    let profile = scratch("report-names-profile");
    let url = format!("file://{}", out.join("report.html").display());
    let mut b = common::cdp::Browser::open(&url, &profile);
    for width in [1400, 1920, 1100] {
        b.call(
            "Emulation.setDeviceMetricsOverride",
            serde_json::json!({ "width": width, "height": 1000, "deviceScaleFactor": 1, "mobile": false }),
            true,
        );
        b.wait_for(
            "document.body.dataset.ready === '1'",
            Duration::from_secs(20),
        );
        // Each name's text node: on one line when the range of its text has
        // one box.
        let broken = b.eval(
            "[...document.querySelectorAll('.name')].filter(td => td.offsetParent !== null).flatMap(td => [...td.childNodes].filter(c => c.nodeType === 3 && c.textContent.trim())).filter(t => { const r = document.createRange(); r.selectNodeContents(t); return r.getClientRects().length > 1; }).map(t => t.textContent)",
        );
        let shown = b.eval(
            "[...document.querySelectorAll('.name')].filter(td => td.offsetParent !== null).length",
        );
        assert!(shown.as_u64().unwrap() >= 6, "{shown}");
        assert_eq!(broken, serde_json::json!([]), "names broken at {width} px");
    }
    drop(b);
    std::fs::remove_dir_all(&d).ok();
    std::fs::remove_dir_all(&profile).ok();
}

/// A hill's folder holds its master seed, its tokens' hashes and every
/// entrant's code: it and its backups are its owner's alone, whatever the
/// umask (a shared machine's other users read nothing of it).
#[test]
fn a_hills_data_is_its_owners_alone_whatever_the_umask() {
    use std::os::unix::fs::PermissionsExt;
    let d = scratch("modes");
    let copy = scratch("modes-backup");
    let koth = env!("CARGO_BIN_EXE_koth");
    let sh = |cmd: String| {
        let out = std::process::Command::new("sh")
            .args(["-c", &format!("umask 000 && {cmd}")])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{cmd}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    sh(format!(
        "{koth} hill init {} --game coup --seed 4",
        d.display()
    ));
    sh(format!(
        "{koth} hill add {} honest builtin:honest",
        d.display()
    ));
    sh(format!(
        "{koth} hill backup {} {}",
        d.display(),
        copy.display()
    ));
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    for dir in [&d, &copy] {
        assert_eq!(mode(dir), 0o700, "{}", dir.display());
        assert_eq!(mode(&dir.join("hill.sqlite")), 0o600, "{}", dir.display());
    }
    std::fs::remove_dir_all(&d).ok();
    std::fs::remove_dir_all(&copy).ok();
}

/// In a hill's games a bot is not told whom it plays: every seat is `seat1`,
/// `seat2`, ..., so that an author's feeders cannot tell its main bot from a
/// rival by name, unless the organiser shows names. A bot that sees a name
/// answers nonsense (and forfeits): none does by default, every game does
/// once names are shown.
#[test]
fn a_hills_bots_are_not_told_whom_they_play() {
    let bot = contestant_folder("hill-names", &[]);
    std::fs::write(
        bot.join("names.py"),
        "import json, sys\nnamed = False\nfor line in sys.stdin:\n    m = json.loads(line)\n    if m['type'] == 'hello':\n        print(json.dumps({'type': 'ready'}), flush=True)\n    elif m['type'] == 'start':\n        names = m.get('names', [])\n        # (The check's opponents are other built-ins: economist plays only in the hill.)\n        named = 'economist' in names\n    elif m['type'] == 'decide':\n        print('nonsense' if named else json.dumps({'index': 0}), flush=True)\n",
    )
    .unwrap();
    let d = scratch("names");
    let h = d.to_str().unwrap();
    // Three entrants at tables of three: economist sits at every game.
    init_coup(h, 5, Some(20), Some(20), Some(3));
    ok(&["hill", "add", h, "honest", "honest"]);
    ok(&["hill", "add", h, "economist", "economist"]);
    let cmd = format!("python3 {}/names.py", bot.display());
    ok(&[
        "hill",
        "add",
        h,
        "asker",
        &cmd,
        "--check-games",
        "5",
        "--sandbox",
        sandbox(),
    ]);
    let play = || {
        ok(&[
            "hill",
            "play",
            h,
            "--games",
            "20",
            "-q",
            "--sandbox",
            sandbox(),
        ])
    };
    play();
    assert_eq!(forfeited_games(&d), 0, "a name was told");
    let out = ok(&["hill", "config", h, "--show-names", "true"]);
    assert!(out.contains("names:       shown to the bots"), "{out}");
    play();
    assert!(forfeited_games(&d) > 0, "names shown, yet none told");
    std::fs::remove_dir_all(&d).ok();
}
