//! Running the `koth` binary from the integration tests.
#![allow(dead_code)]

pub mod cdp;
pub mod http;

use std::process::Command;

/// Runs `koth ARGS` without colour: (success, stdout, stderr).
pub fn koth(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_koth"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// Runs `koth ARGS` without colour: (exit code, None if killed by a signal; stderr).
pub fn koth_code(args: &[&str]) -> (Option<i32>, String) {
    let (code, _, err) = koth_all(args);
    (code, err)
}

/// Runs `koth ARGS` without colour: (exit code, stdout, stderr).
pub fn koth_all(args: &[&str]) -> (Option<i32>, String, String) {
    koth_env(args, &[])
}

/// Runs `koth ARGS` without colour, with `env` added: (exit code, stdout, stderr).
pub fn koth_env(args: &[&str], env: &[(&str, String)]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_koth"))
        .args(args)
        .envs(env.iter().map(|(k, v)| (*k, v)))
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// The repository's root.
pub fn repo() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A contestant's folder in the temp dir: copies of `files` (paths from the
/// repository's root) side by side, as a bot built on the SDK is kept.
pub fn contestant_folder(tag: &str, files: &[&str]) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("koth-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    for f in files {
        let p = repo().join(f);
        std::fs::copy(&p, d.join(p.file_name().unwrap())).unwrap();
    }
    d
}

/// The defects a `check` printed (`✗ KIND: REASON` lines), as (kind, reason).
pub fn findings(stdout: &str) -> Vec<(String, String)> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("✗ "))
        .map(|l| {
            let (kind, reason) = l.split_once(": ").unwrap();
            (kind.to_string(), reason.to_string())
        })
        .collect()
}

/// A process killed and reaped when dropped: a test that fails midway (a
/// panic) leaves no server of its own running behind it.
pub struct Reaped(pub std::process::Child);

impl std::ops::Deref for Reaped {
    type Target = std::process::Child;
    fn deref(&self) -> &std::process::Child {
        &self.0
    }
}

impl std::ops::DerefMut for Reaped {
    fn deref_mut(&mut self) -> &mut std::process::Child {
        &mut self.0
    }
}

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Runs `koth ARGS`, which must succeed: its stdout.
pub fn ok(args: &[&str]) -> String {
    let (code, out, err) = koth_all(args);
    assert_eq!(code, Some(0), "koth {args:?}\n{out}{err}");
    out
}

/// Runs `koth ARGS`, which must fail: what it printed.
pub fn fails(args: &[&str]) -> String {
    let (code, out, err) = koth_all(args);
    assert_ne!(code, Some(0), "koth {args:?} succeeded:\n{out}{err}");
    format!("{out}{err}")
}

/// Isolation for programs: the sandbox where this machine has one.
pub fn sandbox() -> &'static str {
    if koth_process::sandbox_support().namespaces {
        "auto"
    } else {
        assert!(
            std::env::var_os("KOTH_REQUIRE_ISOLATION").is_none(),
            "isolation unavailable"
        );
        "off"
    }
}

/// A program that answers the first legal choice after `ms` milliseconds, written
/// as a contestant would (plain JSON lines, no SDK).
pub fn slow_bot(tag: &str, ms: u32) -> std::path::PathBuf {
    let d = contestant_folder(tag, &[]);
    std::fs::write(
        d.join("slow.py"),
        format!(
            "import json, sys, time\nfor line in sys.stdin:\n    m = json.loads(line)\n    if m['type'] == 'hello':\n        print(json.dumps({{'type': 'ready'}}), flush=True)\n    elif m['type'] == 'decide':\n        time.sleep({})\n        print(json.dumps({{'index': 0}}), flush=True)\n",
            ms as f64 / 1000.0
        ),
    )
    .unwrap();
    d
}

/// `KOTH_SOAK` is set (CI sets it): tests run at the sizes that settle their
/// statistics; without it, at smaller twins that reach the same code.
pub fn soak() -> bool {
    std::env::var_os("KOTH_SOAK").is_some_and(|v| !v.is_empty() && v != "0")
}
