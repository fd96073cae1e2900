//! Namespaces through bubblewrap (`bwrap`), the sandbox Flatpak uses.
//!
//! We run `bwrap` rather than setting up namespaces and mounts ourselves: it is small,
//! packaged by every distribution, widely reviewed, and keeps the mount choreography
//! (and its security bugs) out of a multi-threaded arena's `pre_exec` hook.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::Command;

/// System folders a program sees read-only (what interpreters and libraries need).
/// `/opt`, `/home`, `/root`, `/srv`, `/tmp`, `/run`, `/var`, `/mnt` and `/media` are
/// left out: bots, tournaments and runs live there.
const SYSTEM: [&str; 8] = [
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc",
];

/// Files of `/etc` replaced by an empty file (secrets readable by the uid that owns them,
/// which the bot's namespace uid maps to).
const MASKED_FILES: [&str; 4] = [
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/shadow-",
    "/etc/gshadow-",
];

/// Folders of `/etc` replaced by an empty one.
const MASKED_DIRS: [&str; 3] = ["/etc/ssh", "/etc/ssl/private", "/etc/sudoers.d"];

/// Size of the private `/tmp` (a tmpfs, counted against the machine's memory).
pub(crate) const TMP_BYTES: u64 = 64 << 20;

/// The user and group a bot runs as inside its namespace (`nobody`).
pub(crate) const INSIDE_ID: u32 = 65534;

/// The `bwrap` to use: `$KOTH_BWRAP` (`off` disables it), else the first on `PATH`.
pub(crate) fn find_bwrap() -> Result<PathBuf, String> {
    if let Some(v) = std::env::var_os("KOTH_BWRAP") {
        if v == "off" {
            return Err("disabled by KOTH_BWRAP=off".into());
        }
        return Ok(PathBuf::from(v));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join("bwrap"))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            "bubblewrap (bwrap) not found on PATH: install it (Debian/Ubuntu: apt install bubblewrap; Fedora: dnf install bubblewrap)".into()
        })
}

/// Installation folders of the tools on `path` that lie outside the system folders:
/// `~/.pyenv` for `~/.pyenv/shims`, `/opt/node` for `/opt/node/bin`. A shim or a
/// launcher needs its whole installation, not only its `bin` folder. Never the home
/// folder itself or `/`.
pub(crate) fn tool_roots(path: &std::ffi::OsStr) -> Vec<PathBuf> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let mut roots: Vec<PathBuf> = Vec::new();
    for entry in std::env::split_paths(path) {
        if !entry.is_absolute() || !entry.is_dir() || under_system(&entry) {
            continue;
        }
        let Ok(entry) = entry.canonicalize() else {
            continue;
        };
        if under_system(&entry) {
            continue;
        }
        let name = entry.file_name().map(|n| n.as_bytes().to_vec());
        let mut root = entry.clone();
        if matches!(name.as_deref(), Some(b"bin" | b"sbin" | b"shims")) {
            if let Some(parent) = entry.parent() {
                let too_wide = parent == Path::new("/") || home.as_deref() == Some(parent);
                if !too_wide {
                    root = parent.to_path_buf();
                }
            }
        }
        roots.push(root);
    }
    roots.sort();
    roots.dedup();
    // Drop folders inside another root (~/.pyenv/plugins/x inside ~/.pyenv).
    let all = roots.clone();
    roots.retain(|r| !all.iter().any(|o| o != r && r.starts_with(o)));
    roots
}

fn under_system(p: &Path) -> bool {
    SYSTEM.iter().any(|s| p.starts_with(s))
}

/// Operator-given paths in a command line (`python3 /srv/bots/x/bot.py`) that the bot
/// must be able to read: absolute paths that exist, outside what it sees anyway.
fn named_paths(cmd: &Command) -> Vec<PathBuf> {
    cmd.program
        .iter()
        .map(Path::new)
        .filter(|p| p.is_absolute() && p.exists() && !under_system(p))
        // A script's folder too: it may import its neighbours.
        .map(|p| match p.parent() {
            Some(d) if p.is_file() && d != Path::new("/") => d.to_path_buf(),
            _ => p.to_path_buf(),
        })
        .collect()
}

/// The `bwrap` arguments (before `--` and the program) that run `cmd` in `cwd`
/// (absolute): its own namespaces, the system and `read_only` paths read-only, `cwd`
/// read-write, a private `/tmp`, `/proc` and `/dev`, nothing else.
pub(crate) fn bwrap_args(cmd: &Command, cwd: &Path, tools: &[PathBuf]) -> Vec<OsString> {
    let mut a: Vec<OsString> = Vec::with_capacity(64);
    let mut push = |parts: &[&std::ffi::OsStr]| a.extend(parts.iter().map(|p| p.to_os_string()));
    let id = INSIDE_ID.to_string();
    push(&[
        "--unshare-all".as_ref(),
        "--unshare-user".as_ref(),
        "--disable-userns".as_ref(),
        "--die-with-parent".as_ref(),
        "--new-session".as_ref(),
        "--cap-drop".as_ref(),
        "ALL".as_ref(),
        "--uid".as_ref(),
        id.as_ref(),
        "--gid".as_ref(),
        id.as_ref(),
        "--hostname".as_ref(),
        "koth".as_ref(),
    ]);
    for s in SYSTEM {
        let p = Path::new(s);
        match std::fs::symlink_metadata(p) {
            Ok(m) if m.file_type().is_symlink() => {
                if let Ok(target) = std::fs::read_link(p) {
                    push(&["--symlink".as_ref(), target.as_os_str(), p.as_os_str()]);
                }
            }
            Ok(_) => push(&["--ro-bind".as_ref(), p.as_os_str(), p.as_os_str()]),
            Err(_) => {}
        }
    }
    // The private /tmp first: paths under /tmp bound below stay visible on it.
    let tmp = TMP_BYTES.to_string();
    push(&[
        "--size".as_ref(),
        tmp.as_ref(),
        "--tmpfs".as_ref(),
        "/tmp".as_ref(),
    ]);
    let extra = cmd.read_only.iter().cloned().chain(named_paths(cmd));
    for p in tools.iter().cloned().chain(extra) {
        push(&["--ro-bind-try".as_ref(), p.as_os_str(), p.as_os_str()]);
    }
    for f in MASKED_FILES {
        if Path::new(f).exists() {
            push(&["--ro-bind".as_ref(), "/dev/null".as_ref(), f.as_ref()]);
        }
    }
    for d in MASKED_DIRS {
        if Path::new(d).is_dir() {
            push(&[
                "--tmpfs".as_ref(),
                d.as_ref(),
                "--remount-ro".as_ref(),
                d.as_ref(),
            ]);
        }
    }
    push(&[
        "--proc".as_ref(),
        "/proc".as_ref(),
        "--dev".as_ref(),
        "/dev".as_ref(),
        "--bind".as_ref(),
        cwd.as_os_str(),
        cwd.as_os_str(),
        "--chdir".as_ref(),
        cwd.as_os_str(),
        // The folders bwrap made for its mount points stay empty and read-only.
        "--remount-ro".as_ref(),
        "/".as_ref(),
        "--".as_ref(),
    ]);
    a
}

/// Runs `true` through `bwrap` with the arguments every bot gets; `Err` says why not.
pub(crate) fn probe(bwrap: &Path, tools: &[PathBuf]) -> Result<(), String> {
    let dir = std::env::temp_dir();
    let cmd = Command::new(["true"], &dir);
    let out = std::process::Command::new(bwrap)
        .args(bwrap_args(&cmd, &dir, tools))
        .arg("true")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", bwrap.display()))?;
    if out.status.success() {
        Ok(())
    } else {
        let err = String::from_utf8_lossy(&out.stderr);
        Err(format!(
            "{} refused ({}): {}",
            bwrap.display(),
            out.status,
            err.trim()
        ))
    }
}
