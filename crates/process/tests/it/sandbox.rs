use crate::common;

use std::net::TcpListener;
use std::time::Duration;

use common::*;
use koth_process::{invoke, sandbox_support, Exit, Sandbox};

const T: Duration = Duration::from_secs(20);

#[test]
fn report_support() {
    let s = sandbox_support();
    println!(
        "sandbox: no_network={} fs_write_confined={}: {}",
        s.no_network, s.fs_write_confined, s.detail
    );
    assert!(!s.detail.is_empty());
    // Cached.
    assert!(std::ptr::eq(s, sandbox_support()));
}

#[test]
fn network_blocked() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().unwrap().port().to_string();
    let off = py("net_connect.py").with_sandbox(Sandbox::Off);
    let r = invoke(&off, std::slice::from_ref(&port), T, 1024);
    assert_eq!(r.stdout_lossy(), "connected\n", "{}", r.stderr_tail);
    if !sandbox_support().no_network {
        println!("SKIPPED network_blocked: {}", sandbox_support().detail);
        return;
    }
    let r = invoke(&py("net_connect.py"), &[port], T, 1024);
    assert_eq!(r.exit, Exit::Code(0), "{}", r.stderr_tail);
    assert!(
        r.stdout_lossy().starts_with("failed"),
        "{}",
        r.stdout_lossy()
    );
}

#[test]
fn writes_confined_to_cwd() {
    let outside = std::env::temp_dir().join(format!("koth-sandbox-outside-{}", std::process::id()));
    let _ = std::fs::remove_file(&outside);
    let mut c = py("write_files.py");
    let dir = c.cwd.clone();
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let args = vec![
        "inside.txt".to_string(),
        "sub/nested.txt".to_string(),
        "/dev/null".to_string(),
        outside.to_string_lossy().into_owned(),
    ];
    if !sandbox_support().fs_write_confined {
        println!(
            "SKIPPED writes_confined_to_cwd: {}",
            sandbox_support().detail
        );
        return;
    }
    let r = invoke(&c, &args, T, 4096);
    assert_eq!(r.exit, Exit::Code(0), "{}", r.stderr_tail);
    let out = r.stdout_lossy();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "inside.txt ok");
    assert_eq!(lines[1], "sub/nested.txt ok");
    assert_eq!(lines[2], "/dev/null ok");
    if sandbox_support().namespaces {
        // Its /tmp is its own: the write lands there, never in the host's.
        assert!(lines[3].ends_with(" ok"), "{out}");
    } else {
        assert!(
            lines[3].ends_with(&format!("denied {}", libc::EACCES)),
            "{out}"
        );
    }
    assert!(!outside.exists());
    // It wrote into its private copy of the folder: the folder itself is untouched.
    assert!(!dir.join("inside.txt").exists());

    // Landlock alone: TMPDIR points into the bot's directory, and shell redirections
    // work there.
    c = sh("echo \"$TMPDIR\"; echo x > \"$TMPDIR/t\" && echo tmp-ok; echo y > /tmp/koth-nope-$$ || echo tmp-denied");
    let r = invoke(&c, &[], T, 4096);
    let out = r.stdout_lossy();
    if !sandbox_support().namespaces {
        assert!(
            out.contains("tmp-ok") && out.contains("tmp-denied"),
            "{out}"
        );
    }

    // Without the sandbox the same write succeeds.
    c = py("write_files.py").with_sandbox(Sandbox::Off);
    let r = invoke(&c, &[outside.to_string_lossy().into_owned()], T, 4096);
    assert!(r.stdout_lossy().ends_with(" ok\n"), "{}", r.stdout_lossy());
    assert!(outside.exists());
    let _ = std::fs::remove_file(&outside);
}

#[test]
fn required_sandbox() {
    let s = sandbox_support();
    let c = sh("echo fine").with_sandbox(Sandbox::Required);
    let r = invoke(&c, &[], T, 1024);
    if s.no_network && s.fs_write_confined {
        assert_eq!(r.exit, Exit::Code(0));
    } else {
        match r.exit {
            Exit::SpawnFailed(m) => assert!(m.contains("sandbox required"), "{m}"),
            other => panic!("{other:?}"),
        }
        println!("Required sandbox refused as expected: {}", s.detail);
    }
}

#[test]
fn sandboxed_bot_process_works() {
    let mut b = koth_process::BotProcess::spawn(&py("echo_lines.py")).expect("spawn");
    b.send_line("sandboxed").unwrap();
    assert_eq!(b.read_line(T, 100).unwrap(), "sandboxed");
}

/// A bot started in its own namespaces sees its folder and the system, nothing else.
#[test]
fn namespaces_hide_everything_but_the_bot_folder() {
    if !isolation(sandbox_support().namespaces, "namespaces") {
        return;
    }
    let secret_dir = temp_dir("secret");
    std::fs::write(secret_dir.join("run.json"), "{\"seed\": 42}").unwrap();
    let c = sh(&format!(
        "id -u; test -e {0} && echo SEES-SECRET; ls /proc | grep -c '^[0-9]'; \
         test -e /run && echo SEES-RUN; cat /etc/shadow 2>/dev/null | grep -q . && echo SEES-SHADOW; \
         chmod 777 /usr/bin/env 2>/dev/null && echo CHMOD; echo mine > own.txt && echo WROTE; \
         echo x > /tmp/t && echo TMP",
        secret_dir.join("run.json").display()
    ));
    let dir = c.cwd.clone();
    let r = invoke(&c, &[], T, 4096);
    let out = r.stdout_lossy();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.first(), Some(&"65534"), "{out} {}", r.stderr_tail);
    for bad in ["SEES-SECRET", "SEES-RUN", "SEES-SHADOW", "CHMOD"] {
        assert!(!out.contains(bad), "{bad}: {out}");
    }
    // Only its own few processes (sh, ls, grep and bwrap's init) are visible.
    let procs: usize = lines[1].trim().parse().unwrap();
    assert!(procs <= 6, "{procs} processes visible");
    assert!(out.contains("WROTE") && out.contains("TMP"), "{out}");
    // Its folder is a private copy: what it writes never reaches the host.
    assert!(!dir.join("own.txt").exists());
}

/// Unix sockets outside the folder are out of reach, and no signal reaches the arena.
#[test]
fn namespaces_block_sockets_and_signals() {
    if !isolation(sandbox_support().namespaces, "namespaces") {
        return;
    }
    let dir = temp_dir("sock");
    let path = dir.join("s.sock");
    let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
    listener.set_nonblocking(true).unwrap();
    let script = format!(
        "import socket, os, signal\n\
         s = socket.socket(socket.AF_UNIX)\n\
         try:\n    s.connect({:?}); s.send(b'hi'); print('connected')\n\
         except OSError as e:\n    print('refused', e.errno)\n\
         try:\n    os.kill({}, signal.SIGKILL); print('killed')\n\
         except OSError as e:\n    print('no kill', e.errno)\n",
        path.display().to_string(),
        std::process::id()
    );
    let c = koth_process::Command::new(["python3", "-c", &script], temp_dir("py"));
    let r = invoke(&c, &[], T, 4096);
    let out = r.stdout_lossy();
    assert!(
        out.contains("refused") && out.contains("no kill"),
        "{out} {}",
        r.stderr_tail
    );
    assert!(listener.accept().is_err(), "a connection came through");
}

/// Nothing a bot starts outlives it: not a `setsid` child, not a double fork.
#[test]
fn escaped_children_die_with_the_bot() {
    let s = sandbox_support();
    for sandbox in [Sandbox::Auto, Sandbox::Off] {
        let needed = if sandbox == Sandbox::Auto {
            (s.namespaces, "namespaces")
        } else {
            (s.cgroups, "cgroups")
        };
        if !isolation(needed.0, needed.1) {
            continue;
        }
        let marker = format!("31337.{}{}", std::process::id(), sandbox as u8);
        let c = sh(&format!(
            "setsid sleep {marker} & (setsid sh -c 'sleep {marker} &' &); sleep 0.3; echo ready; sleep 1000"
        ))
        .with_sandbox(sandbox);
        let mut b = koth_process::BotProcess::spawn(&c).expect("spawn");
        assert_eq!(b.read_line(T, 100).unwrap(), "ready");
        let sleeping = format!("^sleep {marker} ");
        assert_eq!(processes_with(&sleeping).len(), 2, "{sandbox:?}");
        b.kill();
        assert_eq!(wait_none_with(&marker), Vec::<u32>::new(), "{sandbox:?}");

        // Same for a one-shot program that leaves them behind when it exits.
        let c = sh(&format!("setsid sleep {marker} & echo done")).with_sandbox(sandbox);
        let r = invoke(&c, &[], T, 100);
        assert_eq!(r.stdout_lossy(), "done\n");
        assert_eq!(wait_none_with(&marker), Vec::<u32>::new(), "{sandbox:?}");
    }
}

/// The process count of a bot is bounded (cgroup pids), and a fork bomb leaves nothing.
#[test]
fn fork_bomb_is_bounded_by_its_cgroup() {
    if !isolation(sandbox_support().cgroups, "cgroups") {
        return;
    }
    let mut c = py("spawn_many.py").with_limits(koth_process::Limits {
        tasks: Some(40),
        ..koth_process::Limits::standard()
    });
    c.program.push("200".into());
    let marker = "spawn_many.py 200";
    let mut b = koth_process::BotProcess::spawn(&c).expect("spawn");
    let line = b.read_line(T, 1 << 16).expect("line");
    let failed: usize = line.rsplit(' ').next().unwrap().parse().unwrap();
    assert!(failed > 100, "{line}");
    // bwrap, outside and as the sandbox's first process, carries the bot's command
    // line too; it does not count against the bot's 40.
    assert!(processes_with(marker).len() <= 40 + 2);
    b.kill();
    assert_eq!(wait_none_with(marker), Vec::<u32>::new());
}

/// A program exiting through a signal inside the sandbox is reported as that signal.
#[test]
fn signal_exit_is_reported_through_the_sandbox() {
    let r = invoke(&sh("kill -SEGV $$"), &[], T, 100);
    assert_eq!(r.exit, Exit::Signal(libc::SIGSEGV), "{}", r.stderr_tail);
}

/// A file outside the program's folder is seen only where the operator lists it
/// (`read_only`), read-only, and even under /tmp (the private /tmp does not hide
/// it); named among the command's arguments alone, it is not there at all.
#[test]
fn only_listed_paths_are_shown_and_naming_one_shows_nothing() {
    if !isolation(sandbox_support().namespaces, "namespaces") {
        return;
    }
    let original = temp_dir("original");
    std::fs::write(original.join("data.txt"), "seen\n").unwrap();
    let data = original.join("data.txt").display().to_string();
    // Named, not listed: not there.
    let named = koth_process::Command::new(
        [
            "sh".to_string(),
            "-c".to_string(),
            "cat \"$0\" || echo ABSENT".to_string(),
            data.clone(),
        ],
        temp_dir("copy"),
    );
    let r = invoke(&named, &[], T, 4096);
    assert_eq!(r.stdout_lossy(), "ABSENT\n", "{}", r.stderr_tail);
    // Named with `..` and by its folder: still not there.
    let dotted = format!(
        "{}/../{}/data.txt",
        original.display(),
        original.file_name().unwrap().to_string_lossy()
    );
    let named = koth_process::Command::new(
        [
            "sh".to_string(),
            "-c".to_string(),
            "cat \"$0\" || echo ABSENT".to_string(),
            dotted,
        ],
        temp_dir("copy"),
    );
    assert_eq!(invoke(&named, &[], T, 4096).stdout_lossy(), "ABSENT\n");
    // Listed: visible, and read-only.
    let mut w = koth_process::Command::new(
        [
            "sh".to_string(),
            "-c".to_string(),
            "cat \"$0\" && echo x >> \"$0\"".to_string(),
            data,
        ],
        temp_dir("copy"),
    );
    w.read_only.push(original.clone());
    let r = invoke(&w, &[], T, 4096);
    assert_eq!(r.stdout_lossy(), "seen\n", "{}", r.stderr_tail);
    assert_ne!(r.exit, Exit::Code(0), "the write went through");
    assert_eq!(
        std::fs::read_to_string(original.join("data.txt")).unwrap(),
        "seen\n"
    );
}

/// What must stay covered is covered whatever the spelling of the path that
/// shows it: a listed folder given as `PARENT/../NAME` or through a link still
/// has its hidden file covered.
#[test]
fn hidden_paths_stay_covered_whatever_their_spelling() {
    if !isolation(sandbox_support().namespaces, "namespaces") {
        return;
    }
    let d = temp_dir("spelling");
    let shared = d.join("shared");
    std::fs::create_dir_all(&shared).unwrap();
    std::fs::write(shared.join("open.txt"), "open\n").unwrap();
    std::fs::write(shared.join("secret.txt"), "SECRET\n").unwrap();
    std::os::unix::fs::symlink(&shared, d.join("link")).unwrap();
    let name = shared.file_name().unwrap().to_string_lossy().into_owned();
    for (listed, hidden) in [
        (d.join("shared/../").join(&name), shared.join("secret.txt")),
        (d.join("link"), shared.join("secret.txt")),
        (shared.clone(), d.join("link/secret.txt")),
        (shared.clone(), d.join("shared/./../shared/secret.txt")),
    ] {
        let mut c = sh(&format!(
            "cat {0}/open.txt; cat {0}/secret.txt 2>/dev/null; cat {1}/secret.txt 2>/dev/null; echo end",
            listed.display(),
            shared.display()
        ));
        c.read_only.push(listed.clone());
        c.hidden.push(hidden.clone());
        let r = invoke(&c, &[], T, 4096);
        let out = r.stdout_lossy();
        assert!(
            out.starts_with("open\n"),
            "{listed:?}: {out} {}",
            r.stderr_tail
        );
        assert!(
            !out.contains("SECRET"),
            "{listed:?} hiding {hidden:?}: {out}"
        );
        assert!(out.ends_with("end\n"), "{out}");
    }
}

/// Two bots in two sandboxes cannot pass a bit through what the kernel shares
/// between them: the same system files (a lock on one, a watch on it), IPC
/// objects, abstract sockets. Each channel is tried twice, by a sender that
/// sets the bit and a receiver that looks for it: outside the sandbox (where
/// it passes: the test reaches what it judges) and in two sandboxes (where it
/// must not).
#[test]
fn no_channel_passes_a_bit_between_sandboxes() {
    if !isolation(sandbox_support().namespaces, "namespaces") {
        return;
    }
    // Each channel its own system file, so that no two interfere.
    let channels = [
        ("flock", "/etc/passwd"),
        ("fcntl", "/etc/group"),
        ("ofd", "/etc/hostname"),
        ("inotify", "/etc/hosts"),
        ("dnotify", "/etc/shells"),
        ("fanotify", "/etc/issue"),
        ("sysv-shm", "/etc/passwd"),
        ("sysv-msg", "/etc/passwd"),
        ("sysv-sem", "/etc/passwd"),
        ("posix-mq", "/etc/passwd"),
        ("posix-shm", "/etc/passwd"),
        ("abstract", "/etc/passwd"),
    ];
    let root = unsafe { libc::geteuid() } == 0;
    let pass = |channel: &str, file: &str, sandboxed: bool| -> (String, String) {
        let run = |role: &str| {
            let mut c = py("channel.py");
            if !sandboxed {
                c = unsandboxed(c);
            }
            let args = [role.to_string(), channel.to_string(), file.to_string()];
            let r = invoke(&c, &args, T, 4096);
            format!(
                "{}{}",
                r.stdout_lossy().trim(),
                if r.stderr_tail.is_empty() {
                    String::new()
                } else {
                    format!(" (stderr: {})", r.stderr_tail.trim())
                }
            )
        };
        std::thread::scope(|s| {
            let sender = s.spawn(|| run("send"));
            let receiver = s.spawn(|| run("receive"));
            (sender.join().unwrap(), receiver.join().unwrap())
        })
    };
    for sandboxed in [false, true] {
        let results: Vec<(&str, (String, String))> = std::thread::scope(|s| {
            let handles: Vec<_> = channels
                .iter()
                .map(|&(c, f)| (c, s.spawn(move || pass(c, f, sandboxed))))
                .collect();
            handles
                .into_iter()
                .map(|(c, h)| (c, h.join().unwrap()))
                .collect()
        });
        for (channel, (sent, received)) in results {
            eprintln!(
                "{}: {channel}: sender {sent:?}, receiver {received:?}",
                if sandboxed { "sandboxed" } else { "host" }
            );
            if sandboxed {
                assert!(
                    received.starts_with("unseen"),
                    "{channel} passed a bit between sandboxes: {received} (sender: {sent})"
                );
            } else if root || channel != "fanotify" {
                assert_eq!(
                    received, "seen",
                    "{channel} did not pass outside the sandbox (sender: {sent})"
                );
            }
        }
    }
}

/// A sandboxed program sees nothing of the server's account in its
/// environment: its folder is its home, it is nobody, and its PATH names the
/// system's folders, not the operator's (whose HOME and PATH would tell
/// another author where the hill and its tools live).
#[test]
fn a_sandboxed_program_gets_a_minimal_environment() {
    if !isolation(sandbox_support().namespaces, "namespaces") {
        return;
    }
    let script = "import os\nfor k, v in os.environ.items(): print(k + '=' + v)";
    let c = koth_process::Command::new(["python3", "-c", script], temp_dir("env"));
    let folder = c.cwd.clone();
    let r = invoke(&c, &[], T, 65536);
    let env: std::collections::BTreeMap<String, String> = r
        .stdout_lossy()
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    assert!(env.contains_key("PATH"), "{}", r.stderr_tail);
    assert_eq!(
        env.get("HOME").map(String::as_str),
        folder.to_str(),
        "{env:?}"
    );
    assert_eq!(
        env.get("USER").map(String::as_str),
        Some("nobody"),
        "{env:?}"
    );
    // Its PATH: the system's folders, after its interpreter's own (bound in
    // the sandbox for it to run, and named by sys.executable anyway).
    let path = env.get("PATH").expect("a PATH");
    let system = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    let extra = path
        .strip_suffix(system)
        .unwrap_or_else(|| panic!("{path}"));
    for dir in extra.split(':').filter(|d| !d.is_empty()) {
        assert!(
            std::path::Path::new(dir).join("python3").is_file(),
            "a folder of the server's in PATH, not the interpreter's: {path}"
        );
    }
    let host_home = std::env::var("HOME").unwrap_or_default();
    for (k, v) in env.iter().filter(|(k, _)| *k != "PATH") {
        assert!(host_home.len() <= 1 || !v.contains(&host_home), "{k}={v}");
    }
}

/// What the channel left between two sandboxes can carry: a sender that keeps
/// the CPU busy in the slots of its 1-bits and a receiver that counts its own
/// work, both sandboxed. Prints the bit error rate and the capacity
/// (1 − H(p)) / slot for slots of 100, 50 and 20 ms (the figure in
/// docs/fair-play.md). Under `KOTH_SOAK=full` only: it is a measurement of
/// the machine.
#[test]
fn the_timing_channel_left_is_measured() {
    if std::env::var_os("KOTH_SOAK").is_none_or(|v| v != "full")
        || !isolation(sandbox_support().namespaces, "namespaces")
    {
        return;
    }
    let mut best: f64 = 0.0;
    for slot in [0.1, 0.05, 0.02] {
        let n = 96;
        // A fixed pattern with as many 1s as 0s.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let bits: String = (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                if x & 1 == 1 {
                    '1'
                } else {
                    '0'
                }
            })
            .collect();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs_f64();
        let t0 = format!("{:.3}", now + 2.0);
        let run = |args: Vec<String>| {
            let r = invoke(&py("timing.py"), &args, Duration::from_secs(60), 1 << 16);
            r.stdout_lossy().trim().to_string()
        };
        let (sent, got) = std::thread::scope(|s| {
            let a = s.spawn(|| {
                run(vec![
                    "send".into(),
                    t0.clone(),
                    slot.to_string(),
                    bits.clone(),
                ])
            });
            let b = s.spawn(|| {
                run(vec![
                    "receive".into(),
                    t0.clone(),
                    slot.to_string(),
                    n.to_string(),
                ])
            });
            (a.join().unwrap(), b.join().unwrap())
        });
        assert_eq!(sent, "sent");
        let counts: Vec<u64> = got.split_whitespace().map(|c| c.parse().unwrap()).collect();
        assert_eq!(counts.len(), n, "{got}");
        let mut sorted = counts.clone();
        sorted.sort_unstable();
        let median = sorted[n / 2];
        let wrong = counts
            .iter()
            .zip(bits.chars())
            .filter(|(&c, b)| (c < median) != (*b == '1'))
            .count();
        let p = (wrong as f64 / n as f64).min(0.5);
        let h = if p <= 0.0 {
            0.0
        } else {
            -p * p.log2() - (1.0 - p) * (1.0 - p).log2()
        };
        let capacity = (1.0 - h) / slot;
        best = best.max(capacity);
        eprintln!(
            "slot {:.0} ms: {wrong} of {n} bits wrong ({:.1}%), about {capacity:.1} bits/s",
            slot * 1000.0,
            100.0 * p
        );
    }
    eprintln!(
        "the timing channel between two sandboxes: at most about {best:.1} bits/s on this machine"
    );
    assert!(best.is_finite());
}
