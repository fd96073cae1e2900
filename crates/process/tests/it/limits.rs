use crate::common;

use std::time::{Duration, Instant};

use common::*;
use koth_process::{invoke, BotProcess, Exit, Limits};

const T: Duration = Duration::from_secs(20);

#[test]
fn memory_limit_stops_big_allocation() {
    let c = py("alloc.py").with_limits(Limits {
        memory_bytes: Some(256 << 20),
        ..Limits::none()
    });
    let r = invoke(&c, &["1024".into()], T, 1024);
    assert_ne!(r.exit, Exit::Code(0), "stdout {:?}", r.stdout_lossy());
    assert!(!r.stdout_lossy().contains("allocated"));
    // Same program without the limit succeeds (the machine has the memory).
    let c = py("alloc.py").with_limits(Limits::none());
    let r = invoke(&c, &["1024".into()], T, 1024);
    assert_eq!(r.exit, Exit::Code(0), "{}", r.stderr_tail);
    assert_eq!(r.stdout_lossy(), "allocated\n");
}

#[test]
fn standard_limits_allow_ordinary_python() {
    let r = invoke(&py("alloc.py"), &["100".into()], T, 1024);
    assert_eq!(r.exit, Exit::Code(0), "{}", r.stderr_tail);
}

#[test]
fn file_size_limit() {
    let dir = temp_dir("fsize");
    let mut c = py("write_big.py").with_limits(Limits {
        file_size_bytes: Some(1 << 20),
        ..Limits::none()
    });
    c.cwd = dir.clone();
    let r = invoke(&c, &["big".into(), (4 << 20).to_string()], T, 1024);
    assert_eq!(
        r.exit,
        Exit::Code(5),
        "{} {}",
        r.stdout_lossy(),
        r.stderr_tail
    );
    assert!(r.stdout_lossy().starts_with("efbig"));
    let len = std::fs::metadata(dir.join("big"))
        .map(|m| m.len())
        .unwrap_or(0);
    assert!(len <= 1 << 20, "{len}");
    // A program that does not ignore SIGXFSZ is killed by it.
    let mut c = sh("head -c 4000000 /dev/zero > big2").with_limits(Limits {
        file_size_bytes: Some(1 << 20),
        ..Limits::none()
    });
    c.cwd = dir;
    let r = invoke(&c, &[], T, 1024);
    assert_ne!(r.exit, Exit::Code(0));
}

#[test]
fn open_files_limit() {
    let c = py("open_files.py").with_limits(Limits {
        open_files: Some(32),
        ..Limits::none()
    });
    let r = invoke(&c, &["100".into()], T, 1024);
    assert_eq!(
        r.exit,
        Exit::Code(4),
        "{} {}",
        r.stdout_lossy(),
        r.stderr_tail
    );
    assert!(r.stdout_lossy().starts_with("emfile"));
    let c = py("open_files.py").with_limits(Limits::none());
    let r = invoke(&c, &["100".into()], T, 1024);
    assert_eq!(r.exit, Exit::Code(0));
}

#[test]
fn cpu_limit() {
    let c = sh("while :; do :; done").with_limits(Limits {
        cpu_seconds: Some(1),
        ..Limits::none()
    });
    let r = invoke(&c, &[], T, 1024);
    // SIGXCPU at the soft limit (soft == hard, so SIGKILL follows if ignored).
    assert!(
        matches!(r.exit, Exit::Signal(s) if s == libc::SIGXCPU || s == libc::SIGKILL),
        "{:?}",
        r.exit
    );
    assert!(r.elapsed < Duration::from_secs(5));
}

/// CAP_SYS_RESOURCE or CAP_SYS_ADMIN in the effective set: the kernel does not enforce
/// RLIMIT_NPROC for us.
fn nproc_not_enforced() -> bool {
    if is_root() {
        return true;
    }
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let eff = status
        .lines()
        .find_map(|l| l.strip_prefix("CapEff:"))
        .and_then(|v| u64::from_str_radix(v.trim(), 16).ok())
        .unwrap_or(0);
    eff & ((1 << 24) | (1 << 21)) != 0
}

#[test]
fn processes_limit() {
    let mut c = py("spawn_many.py").with_limits(Limits {
        processes: Some(1),
        ..Limits::none()
    });
    c.program.push("5".into());
    let mut b = BotProcess::spawn(&c).expect("spawn");
    let line = match b.read_line(T, 1 << 16) {
        Ok(l) => l,
        Err(e) => panic!("{e}: {}", b.stderr_tail()),
    };
    let failed: usize = line
        .rsplit(' ')
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    if nproc_not_enforced() {
        println!(
            "SKIPPED: RLIMIT_NPROC is not enforced for root / CAP_SYS_RESOURCE (forks failed: {failed})"
        );
    } else {
        assert!(failed > 0, "NPROC limit not enforced: {line}");
    }
}

#[test]
fn fork_bomb_is_killed_completely() {
    // Process ids read from the bot: no PID namespace here (see the sandbox tests).
    let mut c = unsandboxed(py("spawn_many.py"));
    c.program.push("60".into());
    let mut b = BotProcess::spawn(&c).expect("spawn");
    let line = b.read_line(T, 1 << 16).expect("line");
    let pids: Vec<u32> = line
        .split(' ')
        .skip(1)
        .take_while(|s| *s != "failed")
        .filter_map(|s| s.parse().ok())
        .collect();
    assert_eq!(pids.len(), 60, "{line}");
    // Collect the grandchildren too.
    let mut all = pids.clone();
    for p in &pids {
        if let Ok(ch) = std::fs::read_to_string(format!("/proc/{p}/task/{p}/children")) {
            all.extend(ch.split_whitespace().filter_map(|s| s.parse::<u32>().ok()));
        }
    }
    assert!(all.len() > 60, "grandchildren not found");
    let t = Instant::now();
    b.kill();
    let survivors: Vec<u32> = all.iter().copied().filter(|&p| !wait_dead(p)).collect();
    assert!(survivors.is_empty(), "survivors: {survivors:?}");
    println!("killed {} processes in {:?}", all.len() + 1, t.elapsed());
}

#[test]
fn fork_bomb_killed_on_invoke_timeout() {
    let dir = temp_dir("bomb");
    // Keeps forking until killed (bounded by the timeout).
    let mut c = unsandboxed(sh("echo $$ > pid; while :; do sleep 1000 & done"));
    c.cwd = dir.clone();
    let r = invoke(&c, &[], Duration::from_millis(500), 1024);
    // Where cgroups bound its process count, the shell gives up ("Cannot fork").
    let bounded = koth_process::sandbox_support().cgroups;
    assert!(
        r.exit == Exit::TimedOut || bounded && r.exit == Exit::Code(2),
        "{:?}",
        r.exit
    );
    std::thread::sleep(Duration::from_millis(100));
    // No process may remain in the group.
    let pgid: i32 = std::fs::read_to_string(dir.join("pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let mut left = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some(i) = stat.rfind(')') else { continue };
        let f: Vec<&str> = stat[i + 2..].split(' ').collect();
        if f.len() > 2 && f[2] == pgid.to_string() && f[0] != "Z" {
            left.push(pid);
        }
    }
    assert!(left.is_empty(), "left in group {pgid}: {left:?}");
}
