//! One hill, many machines: a hill on a real PostgreSQL server, played by
//! `koth hill work` processes as an organiser runs them (each its own
//! process, with its own token), against the same hill played by one process.
//!
//! The server is named by KOTH_TEST_POSTGRES (an address whose user may make
//! databases: postgres://koth:koth@127.0.0.1/postgres); without it these
//! tests say so and pass, unless KOTH_REQUIRE_POSTGRES is set (CI sets both).

use crate::common;

use common::{contestant_folder, fails, koth_all, ok, sandbox, slow_bot, Reaped};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The server's address, or `None` (the test then passes, saying why).
fn server() -> Option<String> {
    match std::env::var("KOTH_TEST_POSTGRES") {
        Ok(u) if !u.is_empty() => Some(u),
        _ => {
            assert!(
                std::env::var_os("KOTH_REQUIRE_POSTGRES").is_none(),
                "KOTH_REQUIRE_POSTGRES is set, but KOTH_TEST_POSTGRES names no server"
            );
            eprintln!("skipped: no PostgreSQL server (set KOTH_TEST_POSTGRES=postgres://USER:PASSWORD@HOST/postgres)");
            None
        }
    }
}

/// A database of its own on the server, dropped at the end.
struct Db {
    admin: String,
    name: String,
    url: String,
}

impl Db {
    fn new(admin: &str, tag: &str) -> Db {
        let name = format!("koth_{tag}_{}", std::process::id());
        let mut c = postgres::Client::connect(admin, postgres::NoTls).unwrap();
        c.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
            .unwrap();
        c.batch_execute(&format!("CREATE DATABASE {name}")).unwrap();
        let (base, _) = admin.rsplit_once('/').unwrap();
        Db {
            admin: admin.to_string(),
            url: format!("{base}/{name}"),
            name,
        }
    }

    fn client(&self) -> postgres::Client {
        postgres::Client::connect(&self.url, postgres::NoTls).unwrap()
    }

    /// One number from the database.
    fn number(&self, sql: &str) -> i64 {
        self.client().query_one(sql, &[]).unwrap().get(0)
    }
}

impl Drop for Db {
    fn drop(&mut self) {
        if let Ok(mut c) = postgres::Client::connect(&self.admin, postgres::NoTls) {
            let _ = c.batch_execute(&format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                self.name
            ));
        }
    }
}

fn scratch(label: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("koth-workers-{label}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// A hill in a new folder `label` (on `db` if given), with three built-ins
/// and the program `command`, run in its folder `bot`.
fn hill(label: &str, db: Option<&Db>, options: &[&str], bot: &Path, command: &str) -> PathBuf {
    let dir = scratch(label);
    let d = dir.to_str().unwrap();
    let mut args = vec![
        "hill",
        "init",
        d,
        "--game",
        "coup",
        "--seed",
        "11",
        "--block",
        "120",
        "--builtin-block",
        "240",
        "--candidate-games",
        "48",
    ];
    if let Some(db) = db {
        args.extend(["--db", db.url.as_str()]);
    }
    args.extend(options);
    ok(&args);
    for b in ["honest", "counter", "economist"] {
        ok(&["hill", "add", d, b, b]);
    }
    let command = format!("python3 {}", bot.join(command).display());
    ok(&[
        "hill",
        "add",
        d,
        "mine",
        &command,
        "--check-games",
        "8",
        "--sandbox",
        sandbox(),
    ]);
    dir
}

/// The SDK's example bot, as a contestant keeps it.
fn example_bot(tag: &str) -> PathBuf {
    contestant_folder(
        tag,
        &["sdk/python/example_bot.py", "sdk/python/koth_bot.py"],
    )
}

/// Starts `koth hill work` for the hill at `db` with `token`.
fn worker(db: &Db, token: &str, extra: &[&str]) -> Reaped {
    Reaped(
        Command::new(env!("CARGO_BIN_EXE_koth"))
            .args([
                "hill",
                "work",
                "--db",
                &db.url,
                "--threads",
                "1",
                "--sandbox",
                sandbox(),
            ])
            .args(extra)
            .env("KOTH_WORKER_TOKEN", token)
            .env("NO_COLOR", "1")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    )
}

/// Starts `koth hill play DIR --games N --plan-only`: the hill's planner,
/// waiting for workers to play what it plans.
fn planner(dir: &str, games: &str) -> Reaped {
    Reaped(
        Command::new(env!("CARGO_BIN_EXE_koth"))
            .args(["hill", "play", dir, "--games", games, "--plan-only", "-q"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    )
}

/// Runs `koth ARGS` to its end, or fails the test after `limit`.
fn run_within(args: &[&str], limit: Duration) -> (Option<i32>, String) {
    let mut child = Reaped(
        Command::new(env!("CARGO_BIN_EXE_koth"))
            .args(args)
            .env("NO_COLOR", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut out = String::new();
            use std::io::Read;
            child
                .stdout
                .take()
                .unwrap()
                .read_to_string(&mut out)
                .unwrap();
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut out)
                .unwrap();
            return (status.code(), out);
        }
        assert!(
            start.elapsed() < limit,
            "koth {args:?} still runs after {limit:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Every stored game of the hill in `dir`, as `koth hill games` prints them.
fn games(dir: &Path) -> String {
    ok(&["hill", "games", dir.to_str().unwrap()])
}

/// Every block's batches tile its games exactly: none lost, none twice.
fn tiles(db: &Db) {
    let mut c = db.client();
    for b in c
        .query("SELECT id, games, done FROM blocks ORDER BY id", &[])
        .unwrap()
    {
        let (id, games, done): (i64, i64, i64) = (b.get(0), b.get(1), b.get(2));
        assert_eq!(games, done, "block {id}");
        let mut next = 0;
        for r in c
            .query(
                "SELECT first, count FROM batches WHERE block = $1 ORDER BY first",
                &[&id],
            )
            .unwrap()
        {
            let (first, count): (i64, i64) = (r.get(0), r.get(1));
            assert_eq!(
                first, next,
                "block {id}: a gap or an overlap at game {first}"
            );
            next = first + count;
        }
        assert_eq!(next, games, "block {id}");
    }
}

#[test]
fn three_workers_store_exactly_the_games_of_one_process() {
    let Some(admin) = server() else { return };
    let (shared, single) = (Db::new(&admin, "three"), Db::new(&admin, "one"));
    let bot = example_bot("wbot-three");
    let window = ["--window", "2", "--leases", "6"];
    let a = hill("three", Some(&shared), &window, &bot, "example_bot.py");
    let b = hill("one", Some(&single), &window, &bot, "example_bot.py");
    let ad = a.to_str().unwrap();
    let tokens: Vec<String> = (1..=3)
        .map(|i| {
            ok(&["hill", "worker", "add", ad, &format!("w{i}")])
                .trim()
                .to_string()
        })
        .collect();
    let mut workers: Vec<Reaped> = tokens.iter().map(|t| worker(&shared, t, &[])).collect();
    let (code, out) = run_within(
        &["hill", "play", ad, "--games", "600", "--plan-only", "-q"],
        Duration::from_secs(300),
    );
    assert_eq!(code, Some(0), "{out}");
    for w in &mut workers {
        assert!(w.try_wait().unwrap().is_none(), "a worker stopped early");
    }
    drop(workers);
    ok(&[
        "hill",
        "play",
        b.to_str().unwrap(),
        "--games",
        "600",
        "-q",
        "--sandbox",
        sandbox(),
    ]);
    let (many, one) = (games(&a), games(&b));
    assert!(
        many.lines().count() >= 600,
        "{} games",
        many.lines().count()
    );
    assert_eq!(
        many, one,
        "three workers and one process stored different games"
    );
    tiles(&shared);
    // Within the window, no candidate is planned twice what it needs (its
    // blocks not yet counted are known to the planner).
    for r in shared
        .client()
        .query(
            "SELECT v.version, SUM(b.games)::BIGINT FROM blocks b
             JOIN block_versions v ON v.block = b.id AND v.seat = 0
             WHERE b.kind = 'candidate' GROUP BY v.version",
            &[],
        )
        .unwrap()
    {
        let (v, games): (i64, i64) = (r.get(0), r.get(1));
        assert!(
            (48..96).contains(&games),
            "version {v}: {games} candidate games"
        );
    }
    // Every game is a worker's; more than one worker played.
    assert_eq!(
        shared.number("SELECT COUNT(*) FROM batches WHERE worker IS NULL"),
        0
    );
    assert!(shared.number("SELECT COUNT(DISTINCT worker) FROM batches") >= 2);
    let listed = ok(&["hill", "worker", "list", ad]);
    let stored: u64 = listed
        .lines()
        .map(|l| {
            l.split(": ")
                .nth(1)
                .unwrap()
                .split(' ')
                .next()
                .unwrap()
                .parse::<u64>()
                .unwrap()
        })
        .sum();
    assert_eq!(stored as usize, many.lines().count(), "{listed}");
    let audit = ok(&["hill", "audit", ad]);
    assert!(audit.contains("all as stored"), "{audit}");
    // A worker's sample, played again here, agrees with what it stored.
    let sample = ok(&["hill", "audit", ad, "--sample", "12", "--worker", "w1"]);
    assert!(sample.contains("all as stored"), "{sample}");
}

#[test]
fn a_hill_on_postgres_plays_the_games_of_the_same_hill_on_sqlite() {
    let Some(admin) = server() else { return };
    let db = Db::new(&admin, "same");
    let bot = example_bot("wbot-same");
    let pg = hill("same-pg", Some(&db), &[], &bot, "example_bot.py");
    let lite = hill("same-lite", None, &[], &bot, "example_bot.py");
    for h in [&pg, &lite] {
        ok(&[
            "hill",
            "play",
            h.to_str().unwrap(),
            "--games",
            "400",
            "-q",
            "--sandbox",
            sandbox(),
        ]);
    }
    let (p, l) = (games(&pg), games(&lite));
    assert!(p.lines().count() >= 400);
    assert_eq!(p, l, "PostgreSQL and SQLite stored different games");
    assert_eq!(
        ok(&["hill", "status", pg.to_str().unwrap()]),
        ok(&["hill", "status", lite.to_str().unwrap()])
    );
    let audit = ok(&["hill", "audit", pg.to_str().unwrap()]);
    assert!(audit.contains("all as stored"), "{audit}");
    // The database's address is the organiser's alone.
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(pg.join("database.url"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(
        mode & 0o077,
        0,
        "database.url is readable by others: {mode:o}"
    );
}

#[test]
fn a_worker_killed_mid_lease_loses_only_its_lease() {
    let Some(admin) = server() else { return };
    let db = Db::new(&admin, "kill");
    let bot = slow_bot("wbot-kill", 3);
    let options = ["--leases", "4", "--lease-seconds", "2"];
    let dir = hill("kill", Some(&db), &options, &bot, "slow.py");
    let lite = hill("kill-lite", None, &[], &bot, "slow.py");
    let d = dir.to_str().unwrap();
    let ta = ok(&["hill", "worker", "add", d, "a"]).trim().to_string();
    let tb = ok(&["hill", "worker", "add", d, "b"]).trim().to_string();
    let mut planner = planner(d, "96");
    let mut a = worker(&db, &ta, &[]);
    // Worker a holds a lease it has played a while: killed outright.
    let start = Instant::now();
    let leases_of_a = |db: &Db| -> Vec<(i64, i64, i64)> {
        db.client()
            .query(
                "SELECT block, first, count FROM leases WHERE worker = 'a' AND NOT done
                 ORDER BY block, first",
                &[],
            )
            .unwrap()
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2)))
            .collect()
    };
    while leases_of_a(&db).is_empty()
        || db.number("SELECT COUNT(*) FROM batches WHERE worker = 'a'") < 1
    {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "worker a never held a lease"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    a.kill().unwrap();
    a.wait().unwrap();
    // What a held at its death (it may have finished the lease seen above
    // in the meantime, and taken another).
    let held = leases_of_a(&db);
    assert!(!held.is_empty(), "worker a died holding no lease");
    let before_b = db.number("SELECT COUNT(*) FROM batches WHERE worker = 'a'");
    let _b = worker(&db, &tb, &[]);
    assert!(ends(&mut planner, Duration::from_secs(240), "the hill"));
    // Each lease a held went to b, whole; a stored nothing after its death.
    for lease in &held {
        let who: Option<String> = db
            .client()
            .query_one(
                "SELECT worker FROM batches WHERE block = $1 AND first = $2",
                &[&lease.0, &lease.1],
            )
            .unwrap()
            .get(0);
        assert_eq!(who.as_deref(), Some("b"), "lease {lease:?}");
    }
    assert_eq!(
        db.number("SELECT COUNT(*) FROM batches WHERE worker = 'a'"),
        before_b
    );
    tiles(&db);
    // No game lost, none twice, none different: the same as one process.
    ok(&[
        "hill",
        "play",
        lite.to_str().unwrap(),
        "--games",
        "96",
        "-q",
        "--sandbox",
        sandbox(),
    ]);
    assert_eq!(games(&dir), games(&lite));
    let audit = ok(&["hill", "audit", d]);
    assert!(audit.contains("all as stored"), "{audit}");
}

#[test]
fn a_revoked_worker_is_refused_and_its_lease_goes_back() {
    let Some(admin) = server() else { return };
    let db = Db::new(&admin, "revoke");
    let bot = slow_bot("wbot-revoke", 3);
    let dir = hill("revoke", Some(&db), &["--leases", "4"], &bot, "slow.py");
    let d = dir.to_str().unwrap();
    // A revoked token is refused at once.
    let gone = ok(&["hill", "worker", "add", d, "gone"]).trim().to_string();
    ok(&["hill", "worker", "revoke", d, "gone"]);
    let (code, out) = {
        let mut w = worker(&db, &gone, &["--idle-exit", "1"]);
        let status = w.wait().unwrap();
        let mut err = String::new();
        use std::io::Read;
        w.stderr.take().unwrap().read_to_string(&mut err).unwrap();
        (status.code(), err)
    };
    assert_ne!(code, Some(0), "{out}");
    assert!(out.contains("unknown or revoked"), "{out}");
    let (code, out) = run_within(
        &["hill", "work", "--db", &db.url, "--token", "not-a-token"],
        Duration::from_secs(30),
    );
    assert_ne!(code, Some(0));
    assert!(out.contains("unknown or revoked"), "{out}");
    // Revoked while it plays: it stops, and what it held goes back.
    let token = ok(&["hill", "worker", "add", d, "w"]).trim().to_string();
    let mut planner = planner(d, "48");
    let mut w = worker(&db, &token, &[]);
    let start = Instant::now();
    while db.number("SELECT COUNT(*) FROM batches WHERE worker = 'w'") == 0 {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "w never stored a lease"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    ok(&["hill", "worker", "revoke", d, "w"]);
    assert!(!ends(&mut w, Duration::from_secs(30), "a revoked worker"));
    let mut err = String::new();
    use std::io::Read;
    w.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    assert!(err.contains("revoked"), "{err}");
    assert_eq!(
        db.number("SELECT COUNT(*) FROM leases WHERE worker = 'w' AND NOT done"),
        0,
        "a revoked worker's lease stays held"
    );
    let listed = ok(&["hill", "worker", "list", d]);
    assert!(
        listed.contains("w: ") && listed.contains("revoked"),
        "{listed}"
    );
    // Another worker finishes the hill.
    let other = ok(&["hill", "worker", "add", d, "other"])
        .trim()
        .to_string();
    let _o = worker(&db, &other, &[]);
    assert!(ends(&mut planner, Duration::from_secs(240), "the hill"));
    tiles(&db);
}

#[test]
fn a_forged_game_is_caught_by_the_sample_and_an_excluded_workers_games_are_played_again() {
    let Some(admin) = server() else { return };
    let db = Db::new(&admin, "forge");
    let bot = example_bot("wbot-forge");
    let dir = hill(
        "forge",
        Some(&db),
        &["--leases", "4"],
        &bot,
        "example_bot.py",
    );
    let d = dir.to_str().unwrap();
    let bad = ok(&["hill", "worker", "add", d, "bad"]).trim().to_string();
    let good = ok(&["hill", "worker", "add", d, "good"]).trim().to_string();
    {
        let _w = [worker(&db, &bad, &[]), worker(&db, &good, &[])];
        let (code, out) = run_within(
            &["hill", "play", d, "--games", "300", "--plan-only", "-q"],
            Duration::from_secs(300),
        );
        assert_eq!(code, Some(0), "{out}");
    }
    let honest = games(&dir);
    assert!(db.number("SELECT COUNT(*) FROM batches WHERE worker = 'bad'") > 0);
    // The bad worker's first batch says its first game took one decision more.
    let mut c = db.client();
    let r = c
        .query_one(
            "SELECT block, first, games FROM batches WHERE worker = 'bad' ORDER BY block, first LIMIT 1",
            &[],
        )
        .unwrap();
    let (block, first, packed): (i64, i64, Vec<u8>) = (r.get(0), r.get(1), r.get(2));
    let mut stored = koth_hill::store::unpack(block, first as u64, &packed).unwrap();
    let rec: serde_json::Value = serde_json::from_str(&stored[0].record).unwrap();
    let n = rec["decisions"].as_u64().unwrap();
    stored[0].record = stored[0].record.replace(
        &format!("\"decisions\":{n}"),
        &format!("\"decisions\":{}", n + 1),
    );
    c.execute(
        "UPDATE batches SET games = $3 WHERE block = $1 AND first = $2",
        &[&block, &first, &koth_hill::store::pack(&stored)],
    )
    .unwrap();
    let (code, out, _) = koth_all(&["hill", "audit", d, "--sample", "100000", "--worker", "bad"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains(&format!(
            "block {block} game {first}, stored by bad: played again here, it differs"
        )),
        "{out}"
    );
    let clean = ok(&["hill", "audit", d, "--sample", "100000", "--worker", "good"]);
    assert!(clean.contains("all as stored"), "{clean}");
    // Excluded: its games are taken out and played again by the others.
    let out = ok(&["hill", "worker", "exclude", d, "bad"]);
    assert!(out.contains("taken out"), "{out}");
    assert_eq!(
        db.number("SELECT COUNT(*) FROM batches WHERE worker = 'bad'"),
        0
    );
    let again = ok(&["hill", "worker", "add", d, "again"])
        .trim()
        .to_string();
    let mut w = worker(&db, &again, &["--idle-exit", "2"]);
    assert!(w.wait().unwrap().success());
    tiles(&db);
    assert_eq!(games(&dir), honest, "the games played again differ");
    let audit = ok(&["hill", "audit", d]);
    assert!(audit.contains("all as stored"), "{audit}");
}

#[test]
fn bad_worker_commands_say_what_is_wrong() {
    // No server needed: each is refused before one would be used.
    let dir = scratch("bad");
    let d = dir.to_str().unwrap();
    let e = fails(&["hill", "init", d, "--game", "coup", "--window", "2"]);
    assert!(e.contains("--db"), "{e}");
    let e = fails(&[
        "hill",
        "init",
        d,
        "--game",
        "coup",
        "--db",
        "postgres://nobody:pw@127.0.0.1:1/none",
    ]);
    assert!(
        e.contains("cannot reach the hill's PostgreSQL") && e.contains("fix:"),
        "{e}"
    );
    assert!(!e.contains(":pw@"), "the password is said: {e}");
    ok(&["hill", "init", d, "--game", "coup", "--seed", "3"]);
    let e = fails(&["hill", "worker", "add", d, "w1"]);
    assert!(
        e.contains("workers need a hill on PostgreSQL") && e.contains("fix:"),
        "{e}"
    );
    let e = fails(&["hill", "play", d, "--plan-only"]);
    assert!(e.contains("SQLite") && e.contains("fix:"), "{e}");
    let e = fails(&["hill", "audit", d, "--sample", "3"]);
    assert!(e.contains("--worker"), "{e}");
    let e = fails(&[
        "hill",
        "work",
        "--db",
        "postgres://nobody:pw@127.0.0.1:1/none",
        "--token",
        "x",
    ]);
    assert!(e.contains("cannot reach") && !e.contains(":pw@"), "{e}");
}

/// Waits for `child` to end by itself within `limit`; gives whether it succeeded.
fn ends(child: &mut Reaped, limit: Duration, what: &str) -> bool {
    let start = Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s.success();
        }
        assert!(start.elapsed() < limit, "{what} still runs after {limit:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_kubernetes_and_slurm_recipes_start_workers_that_play() {
    let Some(admin) = server() else { return };
    let db = Db::new(&admin, "recipes");
    let repo = common::repo();
    let koth = env!("CARGO_BIN_EXE_koth");
    let k8s = std::fs::read_to_string(repo.join("deploy/kubernetes/hill.yaml")).unwrap();
    // The init container's line makes the hill once, then leaves it be.
    let init = k8s
        .lines()
        .find_map(|l| l.trim().strip_prefix("args: [\"test -e /hill/database.url"))
        .map(|rest| format!("test -e /hill/database.url{}", rest.trim_end_matches("\"]")))
        .expect("the init container's line")
        .replace("\\\"", "\"");
    let dir = scratch("recipes");
    let d = dir.to_str().unwrap();
    let line = init
        .replace("/hill", d)
        .replace("koth hill", &format!("{koth} hill"));
    for _ in 0..2 {
        let out = Command::new("sh")
            .args(["-c", &line])
            .env("KOTH_HILL_DB", &db.url)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{line}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(dir.join("database.url").is_file());
    let settings: serde_json::Value = serde_json::from_str(
        &db.client()
            .query_one("SELECT json FROM settings", &[])
            .unwrap()
            .get::<_, String>(0),
    )
    .unwrap();
    assert_eq!(settings["window"], 4);
    for b in ["honest", "counter", "economist", "skeptic"] {
        ok(&["hill", "add", d, b, b]);
    }
    let k8s_token = ok(&["hill", "worker", "add", d, "k8s"]).trim().to_string();
    let slurm_token = ok(&["hill", "worker", "add", d, "slurm"])
        .trim()
        .to_string();
    let mut planner = planner(d, "40000");
    // The worker Deployment's container, with the secret's keys it names.
    let args = k8s
        .lines()
        .find_map(|l| l.trim().strip_prefix("args: [\"hill\", \"work\""))
        .map(|rest| format!("[\"hill\", \"work\"{rest}"))
        .expect("the worker's args");
    let args: Vec<String> = serde_json::from_str(&args).unwrap();
    for key in ["KOTH_HILL_DB", "KOTH_WORKER_TOKEN"] {
        assert!(
            k8s.contains(&format!("name: {key}\n")),
            "the worker has no {key}"
        );
    }
    let mut pod = Reaped(
        Command::new(koth)
            .args(&args)
            .args(["--idle-exit", "3", "--sandbox", sandbox()])
            .env("KOTH_HILL_DB", &db.url)
            .env("KOTH_WORKER_TOKEN", &k8s_token)
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    // The Slurm script run as one task of its array, its secrets in a file.
    let env = scratch("recipes-env");
    std::fs::write(
        &env,
        format!("KOTH_HILL_DB={}\nKOTH_WORKER_TOKEN={slurm_token}\n", db.url),
    )
    .unwrap();
    let mut task = Reaped(
        Command::new("bash")
            .arg(repo.join("deploy/slurm/koth-workers.sbatch"))
            .env("KOTH_WORKER_ENV", &env)
            .env("KOTH", koth)
            .env("SLURM_CPUS_PER_TASK", "1")
            .env("SLURM_ARRAY_TASK_ID", "0")
            .env("KOTH_IDLE_EXIT", "3")
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    assert!(ends(&mut planner, Duration::from_secs(300), "the hill"));
    assert!(ends(&mut pod, Duration::from_secs(60), "the pod's worker"));
    assert!(ends(&mut task, Duration::from_secs(60), "the Slurm task"));
    for w in ["k8s", "slurm"] {
        let n = db.number(&format!(
            "SELECT COUNT(*) FROM batches WHERE worker = '{w}'"
        ));
        assert!(n > 0, "worker {w} stored nothing");
    }
    tiles(&db);
    std::fs::remove_file(env).ok();
}

#[test]
fn a_bot_played_by_a_worker_finds_neither_the_database_nor_the_token() {
    let Some(admin) = server() else { return };
    if sandbox() == "off" {
        return;
    }
    let db = Db::new(&admin, "spy");
    // A contestant who wants the hill's secrets: the environment, the
    // folders around its own, the usual places; what it finds, it says, and
    // then forfeits on purpose.
    let bot = contestant_folder("wbot-spy", &[]);
    std::fs::write(
        bot.join("spy.py"),
        r#"import json, os, re, sys
# (KOTH_SLOT and KOTH_RESTART are koth's word to every bot: its slot, its restarts.)
found = [k for k, v in os.environ.items()
         if (k.startswith(('KOTH', 'PG')) and k not in ('KOTH_SLOT', 'KOTH_RESTART'))
         or 'TOKEN' in k or 'postgres' in v]
mine = os.path.realpath('.')
for root in ['..', '../..', '/tmp', '/root', '/home', '/var/lib/postgresql', '/proc/1/environ']:
    try:
        if os.path.isfile(root):
            if b'KOTH' in open(root, 'rb').read():
                found.append(root)
            continue
        for path, dirs, files in os.walk(root):
            if path.count('/') > 6 or os.path.realpath(path).startswith(mine):
                dirs[:] = []
                continue
            for f in dirs + files:
                # (The folders on the way to its own are named, and empty but for it.)
                here = os.path.realpath(os.path.join(path, f))
                if mine.startswith(here + '/'):
                    continue
                if f in ('database.url', 'hill.sqlite', '.koth-worker.env') or re.match(r'koth-worker-[0-9a-f]{16}$', f):
                    found.append(os.path.join(path, f))
            for f in files:
                try:
                    with open(os.path.join(path, f), 'rb') as h:
                        text = h.read(65536)
                    if b'postgres://' in text or b'KOTH_WORKER_TOKEN' in text:
                        found.append(os.path.join(path, f))
                except Exception:
                    pass
    except Exception:
        pass
for line in sys.stdin:
    m = json.loads(line)
    if m['type'] == 'hello':
        print(json.dumps({'type': 'ready'}), flush=True)
    elif m['type'] == 'decide':
        if found:
            print('found ' + ' '.join(found), file=sys.stderr, flush=True)
            print('nonsense', flush=True)
        else:
            print(json.dumps({'index': 0}), flush=True)
"#,
    )
    .unwrap();
    let dir = hill("spy", Some(&db), &[], &bot, "spy.py");
    let d = dir.to_str().unwrap();
    let token = ok(&["hill", "worker", "add", d, "w"]).trim().to_string();
    let mut w = worker(&db, &token, &["--idle-exit", "3"]);
    let (code, out) = run_within(
        &["hill", "play", d, "--games", "60", "--plan-only", "-q"],
        Duration::from_secs(300),
    );
    assert_eq!(code, Some(0), "{out}");
    assert!(ends(&mut w, Duration::from_secs(60), "the worker"));
    let spy_games = db.number(
        "SELECT games FROM version_results r JOIN versions v ON v.id = r.version
         JOIN entrants e ON e.id = v.entrant WHERE e.name = 'mine'",
    );
    assert!(spy_games > 0);
    let forfeits = db.number("SELECT COALESCE(SUM(forfeits), 0)::BIGINT FROM version_results");
    assert_eq!(forfeits, 0, "the spy found something:\n{}", games(&dir));
}

/// A worker's cache is checked by hash at every block: an entrant's file
/// edited there (by anyone with the worker machine's access) is fetched
/// again, never played, so no forfeit is stored against its entrant; and the
/// cache, holding every entrant's code, is the worker's user's alone.
#[test]
fn a_tampered_cache_is_fetched_again_never_played() {
    use std::os::unix::fs::PermissionsExt;
    let Some(admin) = server() else { return };
    let db = Db::new(&admin, "cache");
    let bot = example_bot("wbot-cache");
    let dir = hill("cache", Some(&db), &[], &bot, "example_bot.py");
    let d = dir.to_str().unwrap();
    let token = ok(&["hill", "worker", "add", d, "w"]).trim().to_string();
    let cache = scratch("cache-folder");
    let c = cache.to_str().unwrap();
    let play = |games: &str| {
        let mut w = worker(&db, &token, &["--cache", c, "--idle-exit", "3"]);
        let (code, out) = run_within(
            &["hill", "play", d, "--games", games, "--plan-only", "-q"],
            Duration::from_secs(300),
        );
        assert_eq!(code, Some(0), "{out}");
        assert!(ends(&mut w, Duration::from_secs(60), "the worker"));
    };
    play("60");
    assert_eq!(
        std::fs::metadata(&cache).unwrap().permissions().mode() & 0o777,
        0o700
    );
    // The victim's file in the cache made to crash at once.
    let versions = cache.join("versions");
    let folder = std::fs::read_dir(&versions)
        .unwrap()
        .flatten()
        .find(|e| e.path().join("example_bot.py").is_file())
        .expect("the program's folder in the cache")
        .path();
    let original = std::fs::read(folder.join("example_bot.py")).unwrap();
    std::fs::write(folder.join("example_bot.py"), "raise SystemExit(3)\n").unwrap();
    play("120");
    let forfeits = db.number("SELECT COALESCE(SUM(forfeits), 0)::BIGINT FROM version_results");
    assert_eq!(forfeits, 0, "a tampered copy was played:\n{}", games(&dir));
    assert_eq!(
        std::fs::read(folder.join("example_bot.py")).unwrap(),
        original
    );
    let audit = ok(&["hill", "audit", d]);
    assert!(audit.contains("all as stored"), "{audit}");
    std::fs::remove_dir_all(&cache).ok();
}
