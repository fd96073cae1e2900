//! Namespaces through bubblewrap (`bwrap`), the sandbox Flatpak uses.
//!
//! We run `bwrap` rather than setting up namespaces and mounts ourselves: it is small,
//! packaged by every distribution, widely reviewed, and keeps the mount choreography
//! (and its security bugs) out of a multi-threaded arena's `pre_exec` hook.
//!
//! What a sandboxed bot sees is built up, never the host minus a list: the system
//! folders (`SYSTEM`) read-only with their secrets covered; a private `/tmp`; the
//! installation of the interpreter its command names and any path the operator
//! named for it (`read` in a tournament file, [`Command::read_only`]), read-only;
//! and its own folder, as a private copy in a tmpfs of bounded size at the folder's
//! own path. Nothing else: a path its command's arguments name is not mounted
//! because they name it. Where what it may read holds what it must not see (a
//! credential under the home folder, the run or hill folder under a system
//! folder), that is covered, compared by real paths (links followed, no `..`), so
//! no spelling of a path gets round it. Nothing it writes reaches the host.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::frames as launcher;
use crate::tools::{self, Plan, SYSTEM};
use crate::Command;

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

/// The folder a command runs in, absolute.
pub(crate) fn folder(cmd: &Command) -> std::io::Result<PathBuf> {
    if cmd.cwd.as_os_str().is_empty() {
        std::env::current_dir()
    } else {
        Ok(crate::absolute(&cmd.cwd))
    }
}

/// The `PATH` a command's program is looked up on.
pub(crate) fn search_path(cmd: &Command) -> std::ffi::OsString {
    cmd.env
        .iter()
        .rev()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| std::ffi::OsString::from(v))
        .or_else(|| std::env::var_os("PATH"))
        .unwrap_or_default()
}

/// What a sandboxed `cmd` may read beyond its folder and the system.
pub(crate) fn shown(cmd: &Command) -> Vec<PathBuf> {
    let Ok(cwd) = folder(cmd) else {
        return Vec::new();
    };
    let plan = cmd
        .program
        .first()
        .and_then(|p| tools::plan(p, &cwd, &search_path(cmd)).ok())
        .unwrap_or_default();
    let mut out: Vec<PathBuf> = plan.read;
    out.extend(cmd.read_only.iter().cloned());
    // As they are bound: real paths, and only those that exist.
    out.iter().filter_map(|p| canonical(p)).collect()
}

/// `p` as the kernel resolves it: absolute, every link followed, no `.` or `..`;
/// `None` when it does not exist. Used only on paths the operator gave (what a
/// bot may read, what it must not see), never on a path inside a bot's folder.
pub(crate) fn canonical(p: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(crate::absolute(p)).ok()
}

/// How the sandbox starts.
pub(crate) enum Start<'a> {
    /// The launcher copies the folder, then starts `program ++ args` and waits for
    /// it (a program that lives for many games).
    Run(&'a [String]),
    /// The launcher copies the folder, then serves moves as the namespace's first
    /// process.
    Serve,
}

/// Covers `p` (a file with an empty file, a folder with an empty read-only one).
fn mask(a: &mut Vec<OsString>, p: &Path) {
    let dir = std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir());
    if dir {
        a.extend(["--tmpfs".into(), p.into(), "--remount-ro".into(), p.into()]);
    } else {
        a.extend(["--ro-bind".into(), "/dev/null".into(), p.into()]);
    }
}

/// The `bwrap` arguments that run `cmd` in its sandbox, as `start` says: its own
/// namespaces, the seccomp filters on descriptors `seccomp`, what `plan` and the
/// command show read-only, its folder `cwd` (absolute) as a private tmpfs copy.
pub(crate) fn bwrap_args(
    cmd: &Command,
    cwd: &Path,
    plan: &Plan,
    launcher_path: &Path,
    seccomp: [i32; 3],
    start: Start,
) -> Vec<OsString> {
    let mut a: Vec<OsString> = Vec::with_capacity(96);
    let id = INSIDE_ID.to_string();
    for s in [
        "--unshare-all",
        "--unshare-user",
        "--disable-userns",
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
        "--uid",
        &id,
        "--gid",
        &id,
        "--hostname",
        "koth",
    ] {
        a.push(s.into());
    }
    // The launcher is the sandbox's first process: no signal of the bot reaches it.
    a.push("--as-pid-1".into());
    for s in SYSTEM {
        let p = Path::new(s);
        match std::fs::symlink_metadata(p) {
            Ok(m) if m.file_type().is_symlink() => {
                if let Ok(target) = std::fs::read_link(p) {
                    a.extend(["--symlink".into(), target.into(), p.into()]);
                }
            }
            Ok(_) => a.extend(["--ro-bind".into(), p.into(), p.into()]),
            Err(_) => {}
        }
    }
    // The private /tmp first: paths under /tmp bound below stay visible on it.
    a.extend([
        "--size".into(),
        TMP_BYTES.to_string().into(),
        "--tmpfs".into(),
        "/tmp".into(),
    ]);
    // What it may read beyond the system, each bound at its real path (and, when
    // it was given by another spelling, reached from that one by a link), so that
    // what must stay covered below is compared with real paths only.
    let mut shown: Vec<PathBuf> = Vec::new();
    for p in plan.read.iter().chain(&cmd.read_only) {
        let Some(real) = canonical(p) else { continue };
        a.extend(["--ro-bind".into(), real.clone().into(), real.clone().into()]);
        let given = crate::absolute(p);
        if given != real && !tools::under_system(&given) {
            a.extend(["--symlink".into(), real.clone().into(), given.into()]);
        }
        shown.push(real);
    }
    a.extend([
        "--ro-bind".into(),
        launcher_path.into(),
        launcher::INSIDE.into(),
        "--ro-bind".into(),
        cwd.into(),
        launcher::SOURCE.into(),
    ]);
    if let Some(k) = &cmd.keep {
        a.extend(["--bind".into(), k.into(), launcher::KEEP.into()]);
    }
    // What it must never see: credentials under what it reads, and the paths the
    // caller hides (the run folder, the tournament file, other bots), wherever
    // they would show.
    for c in tools::credentials_in(&shown) {
        mask(&mut a, &c);
    }
    let real_cwd = canonical(cwd).unwrap_or_else(|| cwd.to_path_buf());
    for h in &cmd.hidden {
        let Some(h) = canonical(h) else { continue };
        if let Ok(rel) = h.strip_prefix(&real_cwd) {
            if !rel.as_os_str().is_empty() {
                mask(&mut a, &Path::new(launcher::SOURCE).join(rel));
            }
        }
        if shown.iter().any(|s| h.starts_with(s)) || tools::under_system(&h) {
            mask(&mut a, &h);
        }
    }
    for f in MASKED_FILES {
        if Path::new(f).exists() {
            a.extend(["--ro-bind".into(), "/dev/null".into(), f.into()]);
        }
    }
    for d in MASKED_DIRS {
        if Path::new(d).is_dir() {
            a.extend(["--tmpfs".into(), d.into(), "--remount-ro".into(), d.into()]);
        }
    }
    a.extend([
        "--proc".into(),
        "/proc".into(),
        "--dev".into(),
        "/dev".into(),
    ]);
    // Its folder: a private tmpfs at the folder's own path, bounded in size.
    if let Some(b) = cmd.limits.folder_bytes {
        a.extend(["--size".into(), b.to_string().into()]);
    }
    a.extend(["--tmpfs".into(), cwd.into(), "--chdir".into(), cwd.into()]);
    // A folder too big to copy: its largest subfolders read-only in place (the
    // launcher copies the rest), with what it may not see covered there too.
    for rel in crate::shown_in_place(cwd, cmd.limits.folder_bytes) {
        let p = cwd.join(rel);
        a.extend(["--ro-bind".into(), p.clone().into(), p.clone().into()]);
        let real = canonical(&p).unwrap_or_else(|| p.clone());
        for h in cmd.hidden.iter().filter_map(|h| canonical(h)) {
            if let Ok(rel) = h.strip_prefix(&real) {
                mask(&mut a, &p.join(rel));
            }
        }
    }
    for fd in seccomp {
        a.extend(["--add-seccomp-fd".into(), fd.to_string().into()]);
    }
    // The folders bwrap made for its mount points stay empty and read-only.
    a.extend([
        "--remount-ro".into(),
        "/".into(),
        "--".into(),
        launcher::INSIDE.into(),
        launcher::ARG.into(),
    ]);
    let keep: OsString = if cmd.keep.is_some() {
        launcher::KEEP.into()
    } else {
        "-".into()
    };
    match start {
        Start::Run(program) => {
            a.extend([
                "run".into(),
                launcher::SOURCE.into(),
                cwd.into(),
                keep,
                "--".into(),
            ]);
            a.extend(program.iter().map(OsString::from));
        }
        Start::Serve => a.extend(["serve".into(), launcher::SOURCE.into(), cwd.into(), keep]),
    }
    a
}

/// Runs `true` through `bwrap` in the namespaces and under the seccomp filter every
/// bot gets; `Err` says why not.
pub(crate) fn probe(bwrap: &Path) -> Result<(), String> {
    use std::os::fd::AsRawFd;
    use std::os::unix::process::CommandExt;
    let fds = crate::seccomp::memfds()?;
    let raw = fds.each_ref().map(|f| f.as_raw_fd());
    let mut c = std::process::Command::new(bwrap);
    c.args([
        "--unshare-all",
        "--unshare-user",
        "--disable-userns",
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
    ]);
    for s in SYSTEM {
        let p = Path::new(s);
        match std::fs::symlink_metadata(p) {
            Ok(m) if m.file_type().is_symlink() => {
                if let Ok(target) = std::fs::read_link(p) {
                    c.arg("--symlink").arg(target).arg(p);
                }
            }
            Ok(_) => {
                c.arg("--ro-bind").arg(p).arg(p);
            }
            Err(_) => {}
        }
    }
    c.args([
        "--size", "1048576", "--tmpfs", "/tmp", "--proc", "/proc", "--dev", "/dev",
    ]);
    for fd in raw {
        c.arg("--add-seccomp-fd").arg(fd.to_string());
    }
    c.args(["--", "true"]);
    // SAFETY: fcntl on descriptors we own, in the child before exec.
    unsafe {
        c.pre_exec(move || {
            for fd in raw {
                if libc::fcntl(fd, libc::F_SETFD, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    let out = c
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", bwrap.display()))?;
    drop(fds);
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
