#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use koth_process::{Command, Limits, Sandbox};

pub fn bot(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/bots")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// A fresh, empty directory for one test, in one folder per test process
/// (`koth-process-test-PID`). The folders of test processes that have ended are
/// removed when the first is made: a test's folder outlives it (a sandboxed bot
/// may still be leaving it), not the next run.
pub fn temp_dir(tag: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    static SWEEP: std::sync::Once = std::sync::Once::new();
    let tmp = std::env::temp_dir();
    SWEEP.call_once(|| {
        for e in std::fs::read_dir(&tmp).into_iter().flatten().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let pid = name
                .strip_prefix("koth-process-test-")
                .and_then(|rest| rest.split('-').next()?.parse::<u32>().ok());
            if pid.is_some_and(|p| p != std::process::id() && dead(p)) {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    });
    let d = tmp
        .join(format!("koth-process-test-{}", std::process::id()))
        .join(format!("{}-{tag}", N.fetch_add(1, Ordering::Relaxed)));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("create temp dir");
    d
}

/// A test program of this crate's, run from a fresh folder: the folder of test
/// programs is shown read-only, as an operator would list it (a path named among
/// the arguments is not shown for being named).
pub fn py(script: &str) -> Command {
    let mut c = Command::new(["python3".to_string(), bot(script)], temp_dir("py"));
    c.read_only
        .push(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/bots"));
    c
}

pub fn sh(script: &str) -> Command {
    Command::new(["sh", "-c", script], temp_dir("sh"))
}

pub fn unsandboxed(mut c: Command) -> Command {
    c.sandbox = Sandbox::Off;
    c.limits = Limits::standard();
    c
}

/// True once `pid` no longer exists or is a zombie (dead, waiting for init to reap it).
pub fn dead(pid: u32) -> bool {
    let stat = match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(s) => s,
        Err(_) => return true,
    };
    // state is the field after the ")" of the command name
    match stat.rfind(')') {
        Some(i) => matches!(
            stat[i + 1..].trim_start().chars().next(),
            Some('Z') | Some('X')
        ),
        None => true,
    }
}

/// Waits up to 2 s for `pid` to be dead.
pub fn wait_dead(pid: u32) -> bool {
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(2) {
        if dead(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    dead(pid)
}

pub fn is_root() -> bool {
    unsafe { libc::geteuid() == 0 }
}

/// Host processes whose command line (arguments joined by spaces) contains `marker`
/// (starts with it, after a leading `^`).
pub fn processes_with(marker: &str) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .map(|c| {
                    let line = String::from_utf8_lossy(&c).replace('\0', " ");
                    match marker.strip_prefix('^') {
                        Some(m) => line.starts_with(m),
                        None => line.contains(marker),
                    }
                })
                .unwrap_or(false)
                && !dead(*pid)
        })
        .collect()
}

/// Whether process `pid` is blocked in the kernel at a function whose name
/// holds `what` (`pipe_read`, `nanosleep`), as `/proc/PID/wchan` says.
pub fn waiting_in(pid: u32, what: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/wchan")).is_ok_and(|w| w.contains(what))
}

/// Waits up to 10 s for a live host process carrying `marker` to block in the
/// kernel at `what` (see [`waiting_in`]): a condition, not a guess at a time.
pub fn wait_waiting_in(marker: &str, what: &str) {
    let t = Instant::now();
    while !processes_with(marker)
        .into_iter()
        .any(|p| waiting_in(p, what))
    {
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "no process with {marker:?} came to wait in {what}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Waits up to 2 s for no live host process to carry `marker`; returns the survivors.
pub fn wait_none_with(marker: &str) -> Vec<u32> {
    let t = Instant::now();
    loop {
        let left = processes_with(marker);
        if left.is_empty() || t.elapsed() > Duration::from_secs(2) {
            return left;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// False (test skipped, with the reason printed) when this machine lacks `what`; fails
/// instead when `KOTH_REQUIRE_ISOLATION` is set (CI sets it: a skip must not pass there).
pub fn isolation(available: bool, what: &str) -> bool {
    if available {
        return true;
    }
    let detail = &koth_process::sandbox_support().detail;
    assert!(
        std::env::var_os("KOTH_REQUIRE_ISOLATION").is_none(),
        "{what} unavailable with KOTH_REQUIRE_ISOLATION set: {detail}"
    );
    println!("SKIPPED ({what} unavailable): {detail}");
    false
}
