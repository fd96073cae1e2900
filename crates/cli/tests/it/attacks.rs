//! A contestant's attacks on the arena that once worked, each as a real run of
//! the `koth` binary: links planted where koth reads and writes, tools on PATH
//! beside the runs, credentials in the home folder, escapes in stderr, a folder
//! filled, the launcher signalled and traced, children and files left for the
//! next move or game, a machine without isolation, and tournament files that ask
//! for no processes or the whole machine as a bot's folder.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common;
use common::{koth_all, koth_env, repo};

fn isolated() -> bool {
    let s = koth_process::sandbox_support();
    if s.namespaces {
        return true;
    }
    assert!(
        std::env::var_os("KOTH_REQUIRE_ISOLATION").is_none(),
        "isolation unavailable: {}",
        s.detail
    );
    println!("SKIPPED (no namespaces here): {}", s.detail);
    false
}

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("koth-attacks-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn koth(args: &[&str]) -> (Option<i32>, String, String) {
    koth_all(args)
}

/// Every file's bytes under `root` (links not followed), concatenated.
fn everything_under(root: &Path) -> Vec<u8> {
    let mut all = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let t = e.file_type().unwrap();
            if t.is_dir() {
                stack.push(e.path());
            } else if t.is_file() {
                all.extend(std::fs::read(e.path()).unwrap_or_default());
            }
        }
    }
    all
}

fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// A seed-000 list of `Attacker` (its folder made by `make`) against Truthful.
fn ppcg_field(d: &Path, attacker: &str, make: impl Fn(&Path)) -> PathBuf {
    let a = d.join("Attacker");
    std::fs::create_dir_all(&a).unwrap();
    make(&a);
    let t = d.join("Truthful");
    std::fs::create_dir_all(&t).unwrap();
    std::fs::copy(
        repo().join("examples/ppcg/Truthful/truthful.py"),
        t.join("truthful.py"),
    )
    .unwrap();
    let list = d.join("list.txt");
    std::fs::write(
        &list,
        format!("Attacker {attacker}\nTruthful python3 truthful.py\n"),
    )
    .unwrap();
    list
}

#[test]
fn a_history_file_swapped_for_a_link_is_never_followed() {
    if !isolated() {
        return;
    }
    let d = scratch("swap");
    let secret = d.join("secret.txt");
    std::fs::write(&secret, "TOPSECRET-1\n").unwrap();
    let list = ppcg_field(&d, "python3 swap.py", |a| {
        std::fs::write(
            a.join("swap.py"),
            format!(
                "import os, sys\npath = sys.argv[1]\nos.remove(path)\nos.symlink({:?}, path)\n",
                secret.display().to_string()
            ),
        )
        .unwrap();
    });
    for sandbox in ["auto", "off"] {
        let out = d.join(format!("out-{sandbox}"));
        let (code, stdout, stderr) = koth(&[
            "ppcg",
            "run",
            list.to_str().unwrap(),
            "--rounds",
            "1",
            "--seed",
            "1",
            "-q",
            "--sandbox",
            sandbox,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, Some(0), "{stdout}{stderr}");
        // The program forfeits (its history file is gone); koth read nothing
        // through the link: not in its output, not in any file of the run.
        assert!(
            stdout.contains("history file is gone"),
            "{sandbox}: {stdout}"
        );
        assert!(!stdout.contains("TOPSECRET") && !stderr.contains("TOPSECRET"));
        assert!(!contains(&everything_under(&out), "TOPSECRET"), "{sandbox}");
    }
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "TOPSECRET-1\n");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn links_a_folder_ships_are_never_followed() {
    if !isolated() {
        return;
    }
    let d = scratch("ship");
    let target = d.join("target");
    std::fs::create_dir_all(&target).unwrap();
    std::fs::write(target.join("victim.txt"), "UNTOUCHED\n").unwrap();
    let truthful = repo().join("examples/ppcg/Truthful/truthful.py");
    // A first run learns the games' file names.
    let list = ppcg_field(&d, "python3 truthful.py", |a| {
        std::fs::copy(&truthful, a.join("truthful.py")).unwrap();
    });
    let first = d.join("first");
    let (code, out, err) = koth(&[
        "ppcg",
        "run",
        list.to_str().unwrap(),
        "--rounds",
        "1",
        "--seed",
        "4",
        "-q",
        "--out",
        first.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    let stems: Vec<String> = std::fs::read_dir(&first)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".txt") && n.contains("Attacker"))
        .collect();
    assert!(!stems.is_empty());
    for (how, sandbox) in [
        ("file", "auto"),
        ("file", "off"),
        ("folder", "auto"),
        ("folder", "off"),
    ] {
        let ship = d.join("Attacker/.koth-ppcg");
        let _ = std::fs::remove_dir_all(&ship);
        let _ = std::fs::remove_file(&ship);
        if how == "file" {
            // Its history files, shipped as links to a file elsewhere.
            std::fs::create_dir_all(&ship).unwrap();
            for s in &stems {
                std::os::unix::fs::symlink(target.join("victim.txt"), ship.join(s)).unwrap();
            }
        } else {
            // Its history folder, shipped as a link to a folder elsewhere.
            std::os::unix::fs::symlink(&target, &ship).unwrap();
        }
        let out = d.join(format!("out-{how}-{sandbox}"));
        let (code, stdout, stderr) = koth(&[
            "ppcg",
            "run",
            list.to_str().unwrap(),
            "--rounds",
            "1",
            "--seed",
            "4",
            "-q",
            "--sandbox",
            sandbox,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, Some(0), "{how} {sandbox}: {stdout}{stderr}");
        // Nothing was written through the links: the target holds what it held.
        let names: Vec<String> = std::fs::read_dir(&target)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["victim.txt"], "{how} {sandbox}");
        assert_eq!(
            std::fs::read_to_string(target.join("victim.txt")).unwrap(),
            "UNTOUCHED\n",
            "{how} {sandbox}"
        );
    }
    std::fs::remove_dir_all(&d).ok();
}

/// A JSON-lines bot that crashes, saying what it saw, when it can read any of the
/// paths in `KOTH_TEST_PATHS` (or list a folder among them); else plays honestly.
const SPY: &str = r#"
import json, os, sys
def seen():
    out = []
    for p in os.environ.get("KOTH_TEST_PATHS", "").split(":"):
        try:
            if os.path.isdir(p):
                out.append("%s: %s" % (p, os.listdir(p)))
            else:
                out.append("%s: %r" % (p, open(p).read(60)))
        except OSError:
            pass
    return out
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "spy"}), flush=True)
    elif m["type"] == "start":
        s = seen()
        if s:
            print("SAW " + " | ".join(s), file=sys.stderr, flush=True)
            sys.exit(7)
        # What it must see (so that the test reached what it judges).
        for p in filter(None, os.environ.get("KOTH_TEST_MUST", "").split(":")):
            if not os.path.exists(p):
                print("MISSING " + p, file=sys.stderr, flush=True)
                sys.exit(8)
    elif m["type"] == "decide":
        print(json.dumps({"index": 0}), flush=True)
"#;

#[test]
fn tools_beside_the_runs_and_credentials_stay_out_of_sight() {
    if !isolated() {
        return;
    }
    let d = scratch("sight");
    // A bin folder beside the runs, on PATH, with a program in it; the run's folder
    // and another bot's folder beside it.
    let bin = d.join("arena/bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::copy("/bin/true", bin.join("arena-tool")).unwrap();
    std::fs::set_permissions(
        bin.join("arena-tool"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    std::fs::create_dir_all(d.join("arena/lib")).unwrap();
    let out = d.join("arena/runs/seed-1");
    // A home with rustup's usual PATH and a registry token, and the usual dot files.
    let home = d.join("home");
    std::fs::create_dir_all(home.join(".cargo/bin")).unwrap();
    std::fs::write(home.join(".cargo/credentials.toml"), "token = \"SECRET\"\n").unwrap();
    std::fs::write(home.join(".npmrc"), "//registry/:_authToken=SECRET\n").unwrap();
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::write(home.join(".ssh/id_ed25519"), "SECRET\n").unwrap();
    let spy = d.join("bots/spy");
    std::fs::create_dir_all(&spy).unwrap();
    std::fs::write(spy.join("spy.py"), SPY).unwrap();
    let watched = [
        out.join("run.json"),
        d.join("arena/runs"),
        d.join("arena"),
        home.join(".cargo/credentials.toml"),
        home.join(".cargo"),
        home.join(".npmrc"),
        home.join(".ssh/id_ed25519"),
        d.join("tournament.toml"),
    ];
    let paths: Vec<String> = watched.iter().map(|p| p.display().to_string()).collect();
    std::fs::write(
        d.join("tournament.toml"),
        format!(
            "[tournament]\ngames = 6\nseed = 1\n\n[[bot]]\nname = \"spy\"\ncommand = [\"python3\", \"spy.py\"]\ndir = \"bots/spy\"\nenv = {{ KOTH_TEST_PATHS = {:?} }}\n\n[[bot]]\nname = \"honest\"\nbuiltin = \"honest\"\n",
            paths.join(":")
        ),
    )
    .unwrap();
    let path = format!(
        "{}:{}:{}",
        bin.display(),
        home.join(".cargo/bin").display(),
        std::env::var("PATH").unwrap()
    );
    let (code, stdout, stderr) = koth_env(
        &[
            "coup",
            "run",
            d.join("tournament.toml").to_str().unwrap(),
            "-q",
            "--out",
            out.to_str().unwrap(),
        ],
        &[
            ("PATH", path),
            ("HOME", home.display().to_string()),
            ("XDG_CACHE_HOME", d.join("cache").display().to_string()),
        ],
    );
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("forfeits: none"), "{stdout}");
    // The isolation line says what it sees beyond its folder: nothing of the arena
    // or the home folder. It is said once (with -q, in the results).
    let all = format!("{stdout}{stderr}");
    assert_eq!(all.matches("isolation:").count(), 1, "{all}");
    let line = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("spy:"))
        .unwrap_or("");
    assert!(
        line.contains("isolated") && !line.contains(&d.display().to_string()),
        "{line}"
    );
    std::fs::remove_dir_all(&d).ok();
}

/// A bot whose command names credentials and the run's folder, by plain and
/// by dotted spellings, sees none of them; a home folder its organiser lists for
/// it as `HOME/../NAME` still has its credentials covered.
#[test]
fn paths_a_command_names_are_not_shown_and_credentials_stay_covered_by_any_spelling() {
    if !isolated() {
        return;
    }
    let d = scratch("spelling");
    let home = d.join("home");
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::write(home.join(".ssh/id_rsa"), "SECRET\n").unwrap();
    std::fs::create_dir_all(home.join(".aws")).unwrap();
    std::fs::write(home.join(".aws/credentials"), "SECRET\n").unwrap();
    std::fs::write(home.join("notes.txt"), "open\n").unwrap();
    let out = d.join("runs/seed-1");
    let spy = d.join("bots/spy");
    std::fs::create_dir_all(&spy).unwrap();
    std::fs::write(spy.join("spy.py"), SPY).unwrap();
    let dotted = d.join("home/..").join("home");
    let watched = [
        home.join(".ssh/id_rsa"),
        dotted.join(".ssh/id_rsa"),
        dotted.join(".aws/credentials"),
        home.join(".aws/credentials"),
        d.join("runs"),
        d.join("runs/../runs/seed-1"),
        d.join("tournament.toml"),
    ];
    let paths: Vec<String> = watched.iter().map(|p| p.display().to_string()).collect();
    std::fs::write(
        d.join("tournament.toml"),
        format!(
            "[tournament]\ngames = 6\nseed = 1\n\n[[bot]]\nname = \"spy\"\ncommand = [\"python3\", \"spy.py\", {:?}, {:?}, {:?}]\ndir = \"bots/spy\"\nread = [{:?}]\nenv = {{ KOTH_TEST_PATHS = {:?}, KOTH_TEST_MUST = {:?} }}\n\n[[bot]]\nname = \"honest\"\nbuiltin = \"honest\"\n",
            dotted.join(".ssh/id_rsa").display().to_string(),
            d.join("runs/../runs").display().to_string(),
            d.display().to_string(),
            format!("{}/../home", home.display()),
            paths.join(":"),
            home.join("notes.txt").display().to_string()
        ),
    )
    .unwrap();
    let (code, stdout, stderr) = koth_env(
        &[
            "coup",
            "run",
            d.join("tournament.toml").to_str().unwrap(),
            "-q",
            "--out",
            out.to_str().unwrap(),
        ],
        &[("HOME", home.display().to_string())],
    );
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("forfeits: none"), "{stdout}{stderr}");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn a_tournament_file_beside_its_bots_is_not_in_their_folders() {
    if !isolated() {
        return;
    }
    // `dir = "."`: the bot's folder is the one holding the tournament file, whose
    // seed would rebuild every deal; the bot looks for it by both names.
    let d = scratch("beside");
    std::fs::write(d.join("spy.py"), SPY).unwrap();
    let file = d.join("tournament.toml");
    std::fs::write(
        &file,
        format!(
            "[tournament]\ngames = 4\nseed = 1\n\n[[bot]]\nname = \"spy\"\ncommand = [\"python3\", \"spy.py\"]\ndir = \".\"\nenv = {{ KOTH_TEST_PATHS = \"tournament.toml:{}\" }}\n\n[[bot]]\nname = \"honest\"\nbuiltin = \"honest\"\n",
            file.display()
        ),
    )
    .unwrap();
    let (code, stdout, stderr) = koth(&["coup", "run", file.to_str().unwrap(), "-q"]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("forfeits: none"), "{stdout}{stderr}");
    std::fs::remove_dir_all(&d).ok();
}

/// A JSON-lines bot whose stderr tries to drive the operator's terminal.
const ESCAPES: &str = r#"
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({"type": "ready"}), flush=True)
    elif m["type"] == "decide":
        sys.stderr.write("\x1b]0;owned\x07\x1b[2J\x1b]52;c;aGk=\x07evil\u202egnp.exe\n")
        sys.stderr.flush()
        sys.exit(5)
"#;

#[test]
fn escapes_in_a_bots_text_never_reach_the_terminal_raw() {
    if !isolated() {
        return;
    }
    let d = scratch("esc");
    std::fs::write(d.join("esc.py"), ESCAPES).unwrap();
    let bot = format!("e=cmd:python3 {}", d.join("esc.py").display());
    for args in [
        vec![
            "coup",
            "run",
            "--bot",
            &bot,
            "--bot",
            "h=builtin:honest",
            "--games",
            "4",
            "-q",
        ],
        vec![
            "coup", "play", "--bots", "honest", "--bot", &bot, "--seed", "1",
        ],
    ] {
        let (_, stdout, stderr) = koth(&args);
        for text in [&stdout, &stderr] {
            assert!(
                !text.contains('\x1b') && !text.contains('\x07'),
                "{args:?}: {text:?}"
            );
            assert!(!text.contains('\u{202e}'), "{args:?}");
        }
        assert!(
            stdout.contains("\\x1b]52;c;aGk=\\x07"),
            "{args:?}: {stdout}"
        );
    }
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn a_bots_folder_is_bounded_and_private() {
    if !isolated() {
        return;
    }
    let d = scratch("fill");
    let bot = d.join("filler");
    std::fs::create_dir_all(&bot).unwrap();
    // Writes 600 MB into its folder when its first game starts, then plays.
    std::fs::write(
        bot.join("fill.py"),
        r#"
import json, os, sys
written = 0
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({"type": "ready"}), flush=True)
    elif m["type"] == "start" and written == 0:
        try:
            with open("big.bin", "wb") as f:
                for _ in range(600):
                    f.write(b"x" * (1 << 20))
                    f.flush()
                    written += 1
        except OSError as e:
            print("stopped at %d MB: %s" % (written, e), file=sys.stderr, flush=True)
    elif m["type"] == "decide":
        print(json.dumps({"index": 0}), flush=True)
"#,
    )
    .unwrap();
    std::fs::write(
        d.join("t.toml"),
        "[tournament]\ngames = 4\nseed = 1\n\n[[bot]]\nname = \"filler\"\ncommand = [\"python3\", \"fill.py\"]\ndir = \"filler\"\nfolder_limit_mb = 16\n\n[[bot]]\nname = \"honest\"\nbuiltin = \"honest\"\n",
    )
    .unwrap();
    let out = d.join("out");
    let (code, stdout, stderr) = koth(&[
        "coup",
        "run",
        d.join("t.toml").to_str().unwrap(),
        "-q",
        "--threads",
        "1",
        "--out",
        out.to_str().unwrap(),
        "--keep-folders",
    ]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("forfeits: none"), "{stdout}");
    // It filled its private folder to its limit and no further; the original
    // folder never saw a byte; the kept copy is as bounded.
    assert!(!bot.join("big.bin").exists());
    let kept = out.join("folders/slot-0/filler/big.bin");
    let size = std::fs::metadata(&kept).map(|m| m.len()).unwrap_or(0);
    assert!(size > 0 && size <= 16 << 20, "{size} bytes kept");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn the_launcher_outlives_every_attack_and_nothing_lives_into_the_next_move() {
    if !isolated() {
        return;
    }
    let d = scratch("launcher");
    let a = d.join("Attacker");
    std::fs::create_dir_all(&a).unwrap();
    // Each turn: is the child it left last turn still alive, or its /tmp file from
    // another match there? It then traces and kills the launcher (pid 1) and
    // everything it can see, after answering: O says it found something.
    std::fs::write(
        a.join("attack.py"),
        r#"
import ctypes, os, signal, subprocess, sys
first = len(sys.argv) == 5
bad = []
if first and os.path.exists("/tmp/koth-state"):
    bad.append("tmp survived")
open("/tmp/koth-state", "w").write("x")
try:
    pid = int(open("/tmp/koth-child").read())
    if pid != os.getpid() and b"sleep" in open("/proc/%d/cmdline" % pid, "rb").read():
        bad.append("child alive")
except (OSError, ValueError):
    pass
child = subprocess.Popen(["sleep", "1000"], start_new_session=True)
open("/tmp/koth-child", "w").write(str(child.pid))
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.restype = ctypes.c_long
if libc.ptrace(16, 1, None, None) == 0:
    bad.append("traced the launcher")
try:
    os.kill(1, signal.SIGKILL)
except OSError:
    pass
print("O" if bad else "B", flush=True)
if bad:
    print(bad, file=sys.stderr, flush=True)
os.kill(-1, signal.SIGKILL)
"#,
    )
    .unwrap();
    let list = d.join("list.txt");
    std::fs::write(&list, "Attacker python3 attack.py\n").unwrap();
    // A process of the arena's user outside the sandbox, which kill(-1) must miss.
    let mut outside = Command::new("sleep").arg("1000").spawn().unwrap();
    let out = d.join("out");
    let (code, stdout, stderr) = koth(&[
        "samurai",
        "run",
        list.to_str().unwrap(),
        // bower ends a duel in 25 turns (copycat drew 500 against this
        // attacker, 1,000 launches that reached nothing more).
        "--builtin",
        "bower",
        "--matches",
        "2",
        "--seed",
        "1",
        "--threads",
        "1",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(
        outside.try_wait().unwrap().is_none(),
        "kill(-1) reached the host"
    );
    outside.kill().unwrap();
    // Every turn it answered (no W: the launcher served every move) and found
    // nothing (no O).
    assert!(!stdout.contains("answers recorded as W"), "{stdout}");
    let matches = std::fs::read_to_string(out.join("matches.txt")).unwrap();
    let histories: Vec<&str> = matches
        .lines()
        .filter(|l| l.trim_start().starts_with("Attacker"))
        .map(|l| l.split_whitespace().nth(1).unwrap_or(""))
        .collect();
    assert_eq!(histories.len(), 2, "{matches}");
    for h in histories {
        assert!(!h.is_empty() && h.chars().all(|c| c == 'B'), "{matches}");
    }
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn without_isolation_external_bots_do_not_start_unless_trusted() {
    let bot = format!(
        "p=cmd:python3 {}",
        repo().join("sdk/python/example_bot.py").display()
    );
    let off = [("KOTH_BWRAP", "off".to_string())];
    let args = [
        "coup",
        "run",
        "--bot",
        &bot,
        "--bot",
        "h=builtin:honest",
        "--games",
        "2",
        "-q",
    ];
    let (code, stdout, stderr) = koth_env(&args, &off);
    assert_eq!(code, Some(2), "{stdout}{stderr}");
    assert!(
        stderr.contains("install bubblewrap") && stderr.contains("--sandbox off"),
        "{stderr}"
    );
    assert!(!stdout.contains("games in"), "a game was played: {stdout}");
    // Trusted on purpose, it runs.
    let mut trusted = args.to_vec();
    trusted.extend(["--sandbox", "off"]);
    let (code, stdout, stderr) = koth_env(&trusted, &off);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("NOT isolated"), "{stdout}");
    // Built-in bots need nothing.
    let (code, _, stderr) = koth_env(&["coup", "loop", "--games", "10", "-q"], &off);
    assert_eq!(code, Some(0), "{stderr}");
}

#[test]
fn tournament_files_asking_for_no_process_or_the_whole_machine_are_refused() {
    let d = scratch("files");
    let bots = "[[bot]]\nname = \"h\"\nbuiltin = \"honest\"\n";
    std::fs::create_dir_all(d.join("b")).unwrap();
    std::fs::write(
        d.join("tasks.toml"),
        format!("{bots}\n[[bot]]\nname = \"p\"\ncommand = [\"python3\", \"x.py\"]\ndir = \"b\"\ntasks = 0\n"),
    )
    .unwrap();
    let (code, _, err) = koth(&["coup", "run", d.join("tasks.toml").to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("tasks.toml:9:") && err.contains("tasks = 0") && err.contains("fix:"),
        "{err}"
    );
    // `dir` climbing to the root: refused before any copy.
    let up = "../".repeat(d.components().count() + 2);
    std::fs::write(
        d.join("root.toml"),
        format!(
            "{bots}\n[[bot]]\nname = \"p\"\ncommand = [\"python3\", \"x.py\"]\ndir = \"{up}\"\n"
        ),
    )
    .unwrap();
    let (code, _, err) = koth(&["coup", "run", d.join("root.toml").to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("the whole machine") && err.contains("fix:"),
        "{err}"
    );
    std::fs::remove_dir_all(&d).ok();
}

/// Folders named `koth-PID` anywhere under the cgroup mounts (two levels deep
/// below a hierarchy's root, where koth makes them beside itself).
fn cgroup_dirs_of(pid: u32) -> Vec<PathBuf> {
    let name = format!("koth-{pid}");
    let mut found = Vec::new();
    let mut stack = vec![(PathBuf::from("/sys/fs/cgroup"), 0)];
    while let Some((d, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            if !e.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            if e.file_name() == name.as_str() {
                found.push(e.path());
            } else if depth < 4 {
                stack.push((e.path(), depth + 1));
            }
        }
    }
    found
}

#[test]
fn a_killed_arenas_empty_control_groups_are_swept_by_the_next() {
    if !isolated() || !koth_process::sandbox_support().cgroups {
        return;
    }
    let d = scratch("sweep");
    std::fs::create_dir_all(d.join("bot")).unwrap();
    std::fs::write(
        d.join("bot/slow.py"),
        "import json, sys, time\nfor line in sys.stdin:\n    m = json.loads(line)\n    if m['type'] == 'hello':\n        print(json.dumps({'type': 'ready'}), flush=True)\n    elif m['type'] == 'decide':\n        time.sleep(0.01)\n        print(json.dumps({'index': 0}), flush=True)\n",
    )
    .unwrap();
    let bot = format!("slow=cmd:python3 {}", d.join("bot/slow.py").display());
    let mut child = Command::new(env!("CARGO_BIN_EXE_koth"))
        .args(["coup", "run", "--bot", &bot, "--bot", "h=builtin:honest"])
        .args(["--games", "100000", "-q", "--out"])
        .arg(d.join("out"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while cgroup_dirs_of(child.id()).is_empty() {
        assert!(start.elapsed().as_secs() < 30, "no control group made");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
    child.wait().unwrap();
    // Its bots die with it (their sandboxes end with their parent: a moment
    // after it); their groups stay, empty, until a koth sweeps them: the next one
    // here (or one a test beside this one starts).
    // A group is empty when its subtree holds no live process: `populated 0`
    // in cgroup.events (cleared at exit; cgroup.procs can still list a dead
    // bot until the machine's init reaps it, slow under load).
    let empty = |dirs: &[std::path::PathBuf]| {
        dirs.iter().all(|d| {
            std::fs::read_to_string(d.join("cgroup.events"))
                .map_or(true, |e| e.lines().any(|l| l == "populated 0"))
        })
    };
    let start = std::time::Instant::now();
    while !empty(&cgroup_dirs_of(child.id())) {
        assert!(
            start.elapsed().as_secs() < 60,
            "the killed koth's bots live on"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let stale = cgroup_dirs_of(child.id());
    let (code, out, err) = koth(&[
        "coup",
        "run",
        "--bot",
        &bot,
        "--bot",
        "h=builtin:honest",
        "--games",
        "2",
        "-q",
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(cgroup_dirs_of(child.id()).is_empty(), "left: {stale:?}");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn a_folder_of_50000_files_runs_and_is_checked_and_its_original_stays_untouched() {
    if !isolated() {
        return;
    }
    let d = scratch("big");
    let bot = d.join("big");
    let venv = bot.join("venv/lib");
    std::fs::create_dir_all(&venv).unwrap();
    for i in 0..50_000 {
        std::fs::write(venv.join(format!("m{i}.py")), "x = 1\n").unwrap();
    }
    std::fs::copy(
        repo().join("sdk/python/koth_bot.py"),
        bot.join("koth_bot.py"),
    )
    .unwrap();
    // Writes beside itself and into its big subfolder, and looks for the
    // tournament file kept there.
    std::fs::write(
        bot.join("bot.py"),
        r#"
import os
from koth_bot import Bot, find, log, run

class Big(Bot):
    name = "big"
    def start(self, msg):
        with open("notes.txt", "a") as f:
            f.write("a game\n")
        try:
            open("venv/lib/m0.py", "w").write("changed")
        except OSError as e:
            log("venv: %s" % e.strerror)
        try:
            open("venv/t.toml").read()
            log("saw the tournament file")
        except OSError:
            pass
        log("files in venv/lib: %d" % len(os.listdir("venv/lib")))
    def decide(self, decision, view, legal):
        return find(legal, "act", "income") or find(legal, "pass") or legal[0]

run(Big())
"#,
    )
    .unwrap();
    let file = bot.join("venv/t.toml");
    std::fs::write(
        &file,
        "[tournament]\ngames = 6\nseed = 1\n\n[[bot]]\nname = \"big\"\ncommand = [\"python3\", \"bot.py\"]\ndir = \"..\"\n\n[[bot]]\nname = \"honest\"\nbuiltin = \"honest\"\n",
    )
    .unwrap();
    let (code, out, err) = koth(&[
        "coup",
        "check",
        "big",
        "--file",
        file.to_str().unwrap(),
        "--games",
        "40",
        "-q",
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("big passed: 40 games"), "{out}");
    let run = d.join("out");
    let (code, out, err) = koth(&[
        "coup",
        "run",
        file.to_str().unwrap(),
        "-q",
        "--threads",
        "1",
        "--out",
        run.to_str().unwrap(),
        "--keep-folders",
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("forfeits: none"), "{out}");
    assert!(
        out.contains("but for venv, too big to copy and shown read-only in place"),
        "{out}"
    );
    // It read its 50,000 files, could not write them, never saw the file.
    let log = std::fs::read_to_string(run.join("logs/big.slot-0.log")).unwrap();
    assert!(log.contains("files in venv/lib: 50000"), "{log}");
    assert!(log.contains("venv: Read-only file system"), "{log}");
    assert!(!log.contains("saw the tournament file"), "{log}");
    // The original folder is as it was; the kept one holds what it wrote.
    assert!(!bot.join("notes.txt").exists());
    assert_eq!(
        std::fs::read_to_string(venv.join("m0.py")).unwrap(),
        "x = 1\n"
    );
    let kept = run.join("folders/slot-0/big");
    assert!(kept.join("notes.txt").exists());
    assert!(
        !kept.join("venv").exists(),
        "the original subfolder is not copied out"
    );
    std::fs::remove_dir_all(&d).ok();
}

/// `dir = ".."` from a tournament file kept inside its bot's folder: the bot
/// runs in that folder (before, its sandbox could not enter `sub/..`) and the
/// file stays out of its sight.
#[test]
fn a_folder_named_with_dot_dot_runs_and_hides_the_file_inside_it() {
    if !isolated() {
        return;
    }
    let d = scratch("dotdot");
    let bot = d.join("b");
    std::fs::create_dir_all(bot.join("sub")).unwrap();
    std::fs::copy(
        repo().join("sdk/python/koth_bot.py"),
        bot.join("koth_bot.py"),
    )
    .unwrap();
    std::fs::write(
        bot.join("bot.py"),
        r#"
from koth_bot import Bot, find, log, run
class B(Bot):
    name = "b"
    def start(self, msg):
        try:
            open("sub/t.toml").read()
            log("saw the tournament file")
        except OSError:
            log("no tournament file")
    def decide(self, decision, view, legal):
        return find(legal, "pass") or legal[0]
run(B())
"#,
    )
    .unwrap();
    let file = bot.join("sub/t.toml");
    std::fs::write(
        &file,
        "[tournament]\ngames = 2\nseed = 1\n\n[[bot]]\nname = \"b\"\ncommand = [\"python3\", \"bot.py\"]\ndir = \"..\"\n\n[[bot]]\nname = \"honest\"\nbuiltin = \"honest\"\n",
    )
    .unwrap();
    let run = d.join("out");
    let (code, out, err) = koth(&[
        "coup",
        "run",
        file.to_str().unwrap(),
        "-q",
        "--threads",
        "1",
        "--out",
        run.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    let log = std::fs::read_to_string(run.join("logs/b.slot-0.log")).unwrap();
    assert!(log.contains("no tournament file"), "{log}");
    assert!(!log.contains("saw the tournament file"), "{log}");
    std::fs::remove_dir_all(&d).ok();
}
