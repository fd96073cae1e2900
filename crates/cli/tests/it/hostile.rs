//! A hostile contestant in real tournaments (`koth run` and `koth samurai`): it tries to
//! read the tournament, the run and another bot, change another bot's files, forge
//! records, reach a socket, signal or kill other processes and leave processes behind.
//! After each run: every attack was blocked, the victim played without forfeit, no
//! process of the run is left, nothing outside the bots' folders changed.

use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn isolated() -> bool {
    let s = koth_process::sandbox_support();
    if s.namespaces && s.cgroups {
        return true;
    }
    // The hostile bot sends SIGKILL to every process it may signal: never run it
    // unconfined. CI sets KOTH_REQUIRE_ISOLATION, so there a skip fails.
    assert!(
        std::env::var_os("KOTH_REQUIRE_ISOLATION").is_none(),
        "isolation unavailable: {}",
        s.detail
    );
    println!("SKIPPED (no namespaces or cgroups here): {}", s.detail);
    false
}

struct Arena {
    dir: PathBuf,
    marker: String,
    socket: UnixListener,
    tcp: std::net::TcpListener,
    victim_file: PathBuf,
}

/// A folder with the hostile bot (and its targets) in `hostile_dir` and a victim
/// program at `victim_file`.
fn arena(tag: &str, hostile_dir: &Path, victim_file: PathBuf, out: &Path) -> Arena {
    let dir = hostile_dir.parent().unwrap().to_path_buf();
    std::fs::create_dir_all(hostile_dir).unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile/hostile.py");
    std::fs::copy(src, hostile_dir.join("hostile.py")).unwrap();
    let socket_path = dir.join("arena.sock");
    let socket = UnixListener::bind(&socket_path).unwrap();
    socket.set_nonblocking(true).unwrap();
    let tcp = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    tcp.set_nonblocking(true).unwrap();
    let marker = format!("4242.{}{}", std::process::id(), tag.len());
    let targets = serde_json::json!({
        "TARGET_TOURNAMENT": dir.join("tournament.toml"),
        "TARGET_RUN": out.join("run.json"),
        "TARGET_OUT": out,
        "TARGET_VICTIM_DIR": victim_file.parent().unwrap(),
        "TARGET_VICTIM_FILE": victim_file,
        "TARGET_SOCKET": socket_path,
        "TARGET_PORT": tcp.local_addr().unwrap().port().to_string(),
        "TARGET_ARENA_PID": std::process::id().to_string(),
        "TARGET_MARKER": marker,
    });
    std::fs::write(hostile_dir.join("targets.json"), targets.to_string()).unwrap();
    Arena {
        dir,
        marker,
        socket,
        tcp,
        victim_file,
    }
}

/// `koth ARGS --out OUT` with a secret in koth's environment; fails unless it
/// succeeds. Returns (stdout, stderr).
fn run_koth(args: &[&std::ffi::OsStr], out: &Path) -> (String, String) {
    // The bots' folders are kept, to read what the hostile one found.
    let o = Command::new(env!("CARGO_BIN_EXE_koth"))
        .args(args)
        .arg("--out")
        .arg(out)
        .arg("--keep-folders")
        .env("SECRET_TOKEN", "hunter2")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{stdout}\n{stderr}");
    (stdout, stderr)
}

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("koth-hostile-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Live host processes `sleep MARKER`.
fn sleepers(marker: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(p) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let cmdline = std::fs::read(format!("/proc/{p}/cmdline")).unwrap_or_default();
        let zombie = std::fs::read_to_string(format!("/proc/{p}/stat"))
            .map(|s| {
                s.rsplit_once(')')
                    .is_some_and(|(_, r)| r.trim_start().starts_with('Z'))
            })
            .unwrap_or(true);
        if cmdline == format!("sleep\0{marker}\0").as_bytes() && !zombie {
            out.push(p);
        }
    }
    out
}

/// Every findings.txt under `root`, concatenated.
fn findings(root: &Path) -> String {
    let mut all = String::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n == "findings.txt") {
                all.push_str(&std::fs::read_to_string(&p).unwrap());
            }
        }
    }
    all
}

/// What must hold after a run with the hostile bot.
fn check_after(a: &Arena, out: &Path, searched: &Path) {
    let f = findings(searched);
    assert!(
        f.contains("read tournament file"),
        "the attack never ran:\n{f}"
    );
    for line in f
        .lines()
        .filter(|l| l.contains(": DONE") || l.contains(": blocked"))
    {
        // Starting a child, and killing every process it can signal (inside its PID
        // namespace: only its own), are allowed; so is writing where the run folder
        // would be when that path lies in the bot's private /tmp (its own folder copy
        // is in the run folder there). Their effects are checked below.
        let ok = line.contains(": blocked")
            || line.starts_with("start a setsid child")
            || line.starts_with("kill -1")
            || line.starts_with("forge a record") && out.starts_with("/tmp");
        assert!(ok, "an attack succeeded: {line}\nall findings:\n{f}");
    }
    assert!(f.contains("secret in environment: False"), "{f}");
    assert!(f.contains("uid: 65534"), "{f}");
    for n in f
        .lines()
        .filter_map(|l| l.strip_prefix("processes visible: "))
    {
        let n: usize = n.parse().unwrap();
        assert!(n <= 4, "{n} processes visible to the bot");
    }
    // Nothing reached the sockets; nothing changed outside the folders.
    assert!(a.socket.accept().is_err(), "a unix connection came through");
    assert!(a.tcp.accept().is_err(), "a TCP connection came through");
    let mode = std::fs::metadata(&a.victim_file)
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o644, "victim's program mode changed");
    let mut games = String::new();
    if let Ok(mut file) = std::fs::File::open(out.join("games.jsonl")) {
        file.read_to_string(&mut games).unwrap();
    }
    assert!(!games.contains("FORGED"));
    // Nothing it started is left.
    let start = Instant::now();
    while !sleepers(&a.marker).is_empty() && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        sleepers(&a.marker),
        Vec::<u32>::new(),
        "processes left behind"
    );
}

#[test]
fn hostile_json_bot_in_a_coup_tournament() {
    if !isolated() {
        return;
    }
    let d = scratch("run");
    let out = d.join("out");
    let victim = d.join("victim");
    std::fs::create_dir_all(&victim).unwrap();
    let victim_file = victim.join("minimal_bot.py");
    let sdk = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../sdk/python/minimal_bot.py");
    std::fs::copy(sdk, &victim_file).unwrap();
    std::fs::set_permissions(&victim_file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let a = arena("run", &d.join("hostile"), victim_file, &out);
    std::fs::write(
        a.dir.join("tournament.toml"),
        "[tournament]\ngames = 30\nseed = 5\ntable_size = 3\n\n\
         [[bot]]\nname = \"hostile\"\ncommand = [\"python3\", \"hostile.py\", \"json\"]\ndir = \"hostile\"\n\n\
         [[bot]]\nname = \"victim\"\ncommand = [\"python3\", \"minimal_bot.py\"]\ndir = \"victim\"\n\n\
         [[bot]]\nname = \"honest\"\nbuiltin = \"honest\"\n",
    )
    .unwrap();
    let file = a.dir.join("tournament.toml");
    let (stdout, stderr) = run_koth(
        &[
            "run".as_ref(),
            file.as_os_str(),
            "--threads".as_ref(),
            "2".as_ref(),
        ],
        &out,
    );
    assert!(stdout.contains("forfeits: none"), "{stdout}");
    assert!(stderr.contains("hostile, victim: isolated"), "{stderr}");
    // It played from copies of its folder, one per slot; the original stays clean.
    assert!(!a.dir.join("hostile/findings.txt").exists());
    check_after(&a, &out, &out.join("folders"));
}

/// A tournament of `koth RUNNER LIST ARGS` between the hostile program and a victim
/// program (`victim_file` in its folder, holding `victim_text`); checks that it ran
/// with both isolated, then everything [`check_after`] checks. Returns the run folder.
fn program_tournament(
    runner: &str,
    victim_file: &str,
    victim_text: &str,
    args: &[&str],
) -> PathBuf {
    let d = scratch(runner);
    let out = d.join("out");
    let victim = d.join("Victim");
    std::fs::create_dir_all(&victim).unwrap();
    let victim_file = victim.join(victim_file);
    std::fs::write(&victim_file, victim_text).unwrap();
    std::fs::set_permissions(&victim_file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let a = arena(runner, &d.join("Hostile"), victim_file.clone(), &out);
    let list = a.dir.join("programs.txt");
    let victim_name = victim_file.file_name().unwrap().to_str().unwrap();
    std::fs::write(
        &list,
        format!("Hostile python3 hostile.py {runner}\nVictim python3 {victim_name}\n"),
    )
    .unwrap();
    std::fs::copy(&list, a.dir.join("tournament.toml")).unwrap();
    let mut all: Vec<&std::ffi::OsStr> = vec![runner.as_ref(), list.as_os_str()];
    all.extend(args.iter().map(std::ffi::OsStr::new));
    let (_, stderr) = run_koth(&all, &out);
    assert!(stderr.contains("Hostile, Victim: isolated"), "{stderr}");
    check_after(&a, &out, &out.join("folders"));
    out
}

#[test]
fn hostile_program_in_a_samurai_tournament() {
    if !isolated() {
        return;
    }
    let out = program_tournament(
        "samurai",
        "victim.py",
        "print('B')\n",
        &["--matches", "2", "--seed", "2"],
    );
    // The victim always answered (a W would mean it had no output).
    let matches = std::fs::read_to_string(out.join("matches.txt")).unwrap();
    assert!(!matches.contains("Victim: no output"), "{matches}");
}

#[test]
fn hostile_program_in_a_ppcg_tournament() {
    if !isolated() {
        return;
    }
    let src =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/ppcg/Random/random_bot.py");
    let random = std::fs::read_to_string(src).unwrap();
    program_tournament(
        "ppcg",
        "random.py",
        &random,
        &["--rounds", "1", "--seed", "3", "--threads", "2"],
    );
}
