//! The recipes of `deploy/` as an organiser uses them: the container image
//! built (by `deploy/build-image.sh`, from Debian's mirror, where no registry
//! can be reached) and run as its comments say, a bot uploaded to it and
//! isolated inside it; and the Caddyfile in front of a hill, over TLS, the live
//! board's events passing through as they come.
//!
//! They need root, podman, debootstrap and caddy: without them they say so and
//! pass, unless `KOTH_REQUIRE_DEPLOY` is set (CI sets it and installs them).

use crate::common;

use common::http::{http_get, status_and_body, tar_of};
use common::koth_all;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn scratch(label: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("koth-deploy-{label}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Whether the programs `tools` are here and koth runs as root; if not, a
/// failure when CI asks for them, else a note and `false`.
fn can_run(what: &str, tools: &[&str]) -> bool {
    let missing: Vec<&str> = tools
        .iter()
        .copied()
        .filter(|t| {
            !Command::new("sh")
                .args(["-c", &format!("command -v {t}")])
                .stdout(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        })
        .collect();
    let root = sh("id -u").1.trim() == "0";
    if missing.is_empty() && root {
        return true;
    }
    let why = format!("{what} needs root and {tools:?}: missing {missing:?}, root: {root}");
    assert!(std::env::var_os("KOTH_REQUIRE_DEPLOY").is_none(), "{why}");
    eprintln!("skipped: {why}");
    false
}

/// Runs `sh -c script`: its status, stdout and stderr.
fn sh(script: &str) -> (bool, String, String) {
    let out = Command::new("sh").args(["-c", script]).output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn sh_ok(script: &str) -> String {
    let (ok, out, err) = sh(script);
    assert!(ok, "{script}\n{out}{err}");
    out
}

/// A port free on 127.0.0.1 now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Waits until `test` holds, for at most `limit`, else fails with `what`.
fn wait_until(limit: Duration, what: &dyn Fn() -> String, test: &mut dyn FnMut() -> bool) {
    let t = Instant::now();
    while !test() {
        assert!(t.elapsed() < limit, "waited {limit:?}: {}", what());
        std::thread::sleep(Duration::from_millis(300));
    }
}

/// The container engine's command: `podman`, or what
/// `KOTH_CONTAINER_ENGINE` says (CI's machines need `podman --runtime runc`:
/// their kernel mounts cgroups v1 and v2 at once, which crun refuses).
fn engine() -> String {
    std::env::var("KOTH_CONTAINER_ENGINE").unwrap_or_else(|_| "podman".into())
}

/// Flags every `run` takes on this machine (`KOTH_CONTAINER_RUN`: CI's
/// machines cannot raise a process's limits, which podman asks by default).
fn run_flags() -> String {
    std::env::var("KOTH_CONTAINER_RUN").unwrap_or_default()
}

/// Removes the test's container, volume and image, whatever happened.
struct Cleanup(String);

impl Drop for Cleanup {
    fn drop(&mut self) {
        let e = engine();
        let n = &self.0;
        sh(&format!(
            "{e} rm -f {n} >/dev/null 2>&1; {e} volume rm -f {n} >/dev/null 2>&1; {e} rmi -f {n} >/dev/null 2>&1"
        ));
    }
}

#[test]
fn the_container_image_builds_serves_a_hill_and_isolates_its_uploads() {
    if !can_run("the container test", &["podman", "debootstrap"]) {
        return;
    }
    let e = engine();
    let flags = run_flags();
    let name = format!("koth-test-{}", std::process::id());
    let _cleanup = Cleanup(name.clone());
    // Built as its comment says, with the koth under test.
    let script = common::repo().join("deploy/build-image.sh");
    let built = Command::new(&script)
        .arg(&name)
        .env("KOTH_BIN", env!("CARGO_BIN_EXE_koth"))
        .env("ENGINE", &e)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&built.stderr);
    assert!(built.status.success(), "{said}");
    assert!(said.contains(&format!("built {name}")), "{said}");
    // The image runs what the Containerfile's recipe runs.
    let inspect = sh_ok(&format!(
        "{e} image inspect {name} --format '{{{{json .Config.Entrypoint}}}} {{{{json .Config.Cmd}}}}'"
    ));
    let recipe = std::fs::read_to_string(common::repo().join("deploy/Containerfile")).unwrap();
    let cmd = recipe.lines().find_map(|l| l.strip_prefix("CMD ")).unwrap();
    let cmd: Vec<String> = serde_json::from_str(cmd).unwrap();
    let (entry, given) = inspect.trim().split_once(' ').unwrap();
    assert_eq!(entry, r#"["/usr/local/bin/koth"]"#);
    assert_eq!(serde_json::from_str::<Vec<String>>(given).unwrap(), cmd);
    // Made, filled and given a token as the recipe's comment says.
    let once = |args: &str| {
        sh_ok(&format!(
            "{e} run --rm {flags} -v {name}:/hill {name} {args}"
        ))
    };
    let made = sh(&format!(
        "{e} run --rm {flags} -v {name}:/hill {name} hill init /hill --game coup --table-size 2 --block 200 --builtin-block 2000"
    ));
    assert!(made.0 && made.1.contains("a hill of coup"), "{made:?}");
    once("hill add /hill honest honest");
    let token = once("hill token add /hill alice").trim().to_string();
    assert_eq!(token.len(), 48, "{token}");
    // Served as the recipe's comment says, on a port of the test's.
    let run = recipe
        .lines()
        .find_map(|l| l.strip_prefix("#   podman run -d "))
        .expect("the recipe's run command");
    let port = free_port();
    let run = run
        .replace("--name hill", &format!("--name {name}"))
        .replace("-p 8080:8080", &format!("-p 127.0.0.1:{port}:8080"))
        .replace("koth-hill:/hill", &format!("{name}:/hill"));
    let run = run.strip_suffix(" koth").expect("ends with the image");
    sh_ok(&format!("{e} run -d {flags} {run} {name}"));
    let addr = format!("127.0.0.1:{port}");
    let logs = || sh(&format!("{e} logs {name}")).2;
    wait_until(Duration::from_secs(60), &logs, &mut || {
        std::net::TcpStream::connect(&addr).is_ok()
            && http_get(&addr, "/api/board").contains("200 OK")
    });
    // It isolates its bots (without isolation it would take no upload): a
    // contestant's Python bot, which quits if it can see a file of the hill's
    // folder but its own (the path to its folder is there, empty), passes its
    // check inside the container and plays.
    assert!(!logs().contains("takes no uploads"), "{}", logs());
    let sdk = |f: &str| std::fs::read(common::repo().join("sdk/python").join(f)).unwrap();
    let spy = b"import os, runpy, sys\nhere = os.getcwd()\nseen = [os.path.join(d, f) for d, _, fs in os.walk('/hill') for f in fs if not os.path.join(d, f).startswith(here + '/')]\nif seen or os.path.exists('/hill/hill.sqlite'):\n    print('I can see', seen, file=sys.stderr)\n    sys.exit(3)\nrunpy.run_path('example_bot.py', run_name='__main__')\n";
    let bot = tar_of(&[
        ("spy.py", b'0', spy, ""),
        ("example_bot.py", b'0', &sdk("example_bot.py"), ""),
        ("koth_bot.py", b'0', &sdk("koth_bot.py"), ""),
    ]);
    let (code, body) = common::http::post_form(
        &addr,
        "/api/submit",
        &[
            ("token", &token),
            ("name", "mine"),
            ("command", "python3 spy.py"),
        ],
        Some(&bot),
    );
    assert_eq!(code, 200, "{body}");
    assert!(body.contains("mine entered the hill"), "{body}");
    wait_until(Duration::from_secs(120), &logs, &mut || {
        let (_, board) = status_and_body(&http_get(&addr, "/api/board"));
        let v: serde_json::Value = serde_json::from_str(&board).unwrap_or_default();
        v["rows"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|r| r["name"] == "mine" && r["games"].as_u64() > Some(0))
    });
    let (_, metrics) = status_and_body(&http_get(&addr, "/metrics"));
    assert!(metrics.contains("koth_hill_games_total"), "{metrics}");
    // Stopped with its signal, it stores what it played and ends well; its
    // log was JSON lines.
    sh_ok(&format!("{e} stop -t 30 {name}"));
    let status = sh_ok(&format!(
        "{e} inspect {name} --format '{{{{.State.ExitCode}}}}'"
    ));
    assert_eq!(status.trim(), "0", "{}", logs());
    let log = logs();
    assert!(
        log.lines()
            .filter(|l| l.starts_with('{'))
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .any(|l| l["message"] == "block played"),
        "{log}"
    );
    let audit = once("hill audit /hill");
    assert!(audit.contains("all as stored"), "{audit}");
}

/// The Caddyfile's site, for `localhost` on `port` with Caddy's own
/// certificate, in front of the page at `upstream`: the recipe's lines, its
/// name and address swapped.
fn caddyfile(port: u16, upstream: &str) -> String {
    let recipe = std::fs::read_to_string(common::repo().join("deploy/Caddyfile")).unwrap();
    assert!(recipe.contains("hill.example.org {"), "{recipe}");
    assert!(recipe.contains("reverse_proxy 127.0.0.1:8080"), "{recipe}");
    let site = recipe
        .replace(
            "hill.example.org {",
            &format!("https://localhost:{port} {{"),
        )
        .replace(
            "reverse_proxy 127.0.0.1:8080",
            &format!("reverse_proxy {upstream}"),
        );
    // No admin port, no trust store touched, nothing on ports 80 and 443.
    format!("{{\n\tadmin off\n\tskip_install_trust\n\tauto_https disable_redirects\n\tstorage file_system {}\n}}\n{site}", std::env::temp_dir().join(format!("koth-caddy-{}", std::process::id())).display())
}

#[test]
fn the_caddyfile_serves_the_page_over_tls_and_passes_the_live_board_through() {
    if !can_run("the Caddyfile test", &["caddy", "curl"]) {
        return;
    }
    let d = scratch("caddy");
    let h = d.to_str().unwrap();
    let made = koth_all(&[
        "hill",
        "init",
        h,
        "--game",
        "coup",
        "--seed",
        "4",
        "--table-size",
        "2",
        "--block",
        "100",
        "--builtin-block",
        "100",
    ]);
    assert_eq!(made.0, Some(0), "{made:?}");
    for b in ["honest", "bluffer"] {
        assert_eq!(koth_all(&["hill", "add", h, b, b]).0, Some(0));
    }
    let upstream = format!("127.0.0.1:{}", free_port());
    let mut serve = common::Reaped(
        Command::new(env!("CARGO_BIN_EXE_koth"))
            .args([
                "hill",
                "serve",
                h,
                "--listen",
                &upstream,
                "--threads",
                "1",
                "--trusted-proxy",
                "127.0.0.1",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let port = free_port();
    let config = d.join("Caddyfile");
    std::fs::write(&config, caddyfile(port, &upstream)).unwrap();
    let caddy_log = d.join("caddy.log");
    let mut caddy = common::Reaped(
        Command::new("caddy")
            .args(["run", "--adapter", "caddyfile", "--config"])
            .arg(&config)
            .env("HOME", &d)
            .env("XDG_DATA_HOME", d.join("data"))
            .env("XDG_CONFIG_HOME", d.join("config"))
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&caddy_log).unwrap())
            .spawn()
            .unwrap(),
    );
    let url = format!("https://localhost:{port}");
    let said = || std::fs::read_to_string(&caddy_log).unwrap_or_default();
    wait_until(Duration::from_secs(60), &said, &mut || {
        sh(&format!("curl -sk -o /dev/null -w '%{{http_code}}' {url}/")).1 == "200"
    });
    // The page, over TLS, compressed for a browser that asks.
    let page = sh_ok(&format!("curl -sk --compressed -D - {url}/"));
    assert!(
        page.to_ascii_lowercase().contains("content-encoding: gzip"),
        "{page}"
    );
    assert!(page.contains("<html"), "{page}");
    // /metrics is kept from the world.
    let metrics = sh(&format!(
        "curl -sk -o /dev/null -w '%{{http_code}}' {url}/metrics"
    ))
    .1;
    assert_eq!(metrics, "404");
    // The live board: events arrive as the games are stored, not when the
    // stream ends (a proxy that buffers, or compresses a stream whole, sends
    // nothing within the time).
    let stream = sh(&format!(
        "curl -sk --compressed -N --max-time 6 -H 'Accept: text/event-stream' {url}/api/live"
    ))
    .1;
    // (The last may be cut by the time limit.)
    let games: Vec<u64> = stream
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|b| serde_json::from_str::<serde_json::Value>(b).ok()?["games"].as_u64())
        .collect();
    assert!(games.len() >= 2, "{} events in 6 s: {stream}", games.len());
    assert!(
        games[games.len() - 1] > games[0],
        "the board moved on: {games:?}"
    );
    caddy.kill().ok();
    caddy.wait().ok();
    serve.kill().ok();
    serve.wait().ok();
    std::fs::remove_dir_all(&d).ok();
    std::fs::remove_dir_all(
        std::env::temp_dir().join(format!("koth-caddy-{}", std::process::id())),
    )
    .ok();
}
