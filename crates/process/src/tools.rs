//! What a sandboxed program may read beyond its folder and the system: the
//! interpreter or binary its command names, resolved exactly on the operator's
//! `PATH` (a version manager's shim followed to the real interpreter), and that
//! installation's own folder (`~/.pyenv/versions/3.11.7`, a virtualenv), never a
//! parent folder of a `PATH` entry (`~/.cargo`, `~/.local`, `/srv/arena`).

use std::collections::HashMap;
use std::ffi::OsStr;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

/// System folders a program sees read-only (what interpreters and libraries need).
/// `/opt`, `/home`, `/root`, `/srv`, `/tmp`, `/run`, `/var`, `/mnt` and `/media` are
/// left out: bots, tournaments and runs live there.
pub(crate) const SYSTEM: [&str; 8] = [
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc",
];

/// Files and folders under the home folder that hold credentials: never visible,
/// even inside a folder that is.
pub(crate) const CREDENTIALS: [&str; 17] = [
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".npmrc",
    ".pypirc",
    ".netrc",
    ".git-credentials",
    ".ssh",
    ".gnupg",
    ".docker",
    ".aws",
    ".azure",
    ".kube",
    ".config/gcloud",
    ".config/gh",
    ".config/hub",
    ".terraform.d",
    ".password-store",
];

/// Folders whose whole tree is never an interpreter's installation, though a tool
/// sits in their `bin`: they hold other tools, registries and credentials.
const TOO_WIDE: [&str; 6] = [".local", ".cargo", ".rustup", ".npm", ".config", ".cache"];

/// Whether `p` lies in the system folders every program sees.
pub(crate) fn under_system(p: &Path) -> bool {
    SYSTEM.iter().any(|s| p.starts_with(s))
}

/// How a program is started in its sandbox and what it reads there.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Plan {
    /// `argv[0]` to run: the resolved path of a program named on `PATH`.
    pub program: String,
    /// Files and folders it may read beyond its folder and the system.
    pub read: Vec<PathBuf>,
}

fn executable(p: &Path) -> bool {
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Whether `p` is a script (`#!`): a launcher, whose installation is not its own.
fn script(p: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 2];
    std::fs::File::open(p)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| &head == b"#!")
}

/// The home folder of the operator.
fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .filter(|h| h.is_absolute() && h != Path::new("/"))
}

/// The installation a program at `p` belongs to: the folder above its `bin` when
/// that folder is an installation (it has a `lib`, or is a virtualenv) and is not
/// too wide, else the file alone. Nothing for a program of the system.
fn installation(p: &Path, out: &mut Vec<PathBuf>) {
    let real = p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    for candidate in [p.to_path_buf(), real] {
        if under_system(&candidate) || out.iter().any(|o| candidate.starts_with(o)) {
            continue;
        }
        let prefix = candidate
            .parent()
            .filter(|d| matches!(d.file_name().and_then(OsStr::to_str), Some("bin" | "sbin")))
            .and_then(Path::parent)
            .filter(|pre| installation_root(pre));
        out.push(prefix.map_or(candidate.clone(), Path::to_path_buf));
    }
}

/// Whether `pre` is an interpreter's installation that may be shown whole.
fn installation_root(pre: &Path) -> bool {
    if pre == Path::new("/") || under_system(pre) {
        return false;
    }
    if let Some(h) = home() {
        if pre == h || TOO_WIDE.iter().any(|w| pre == h.join(w)) || h.starts_with(pre) {
            return false;
        }
    }
    pre.join("lib").is_dir() || pre.join("pyvenv.cfg").is_file()
}

/// The real program behind a version manager's shim (`~/.pyenv/shims/python3`):
/// the manager's own `which`, asked from `/` with the operator's settings only.
fn shim_target(shim: &Path, name: &str) -> Option<PathBuf> {
    let shims = shim.parent()?;
    if shims.file_name()? != "shims" {
        return None;
    }
    let root = shims.parent()?;
    let tool = root.file_name()?.to_str()?.trim_start_matches('.');
    if tool.is_empty() || !tool.chars().all(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    let manager = [root.join("libexec").join(tool), root.join("bin").join(tool)]
        .into_iter()
        .find(|p| executable(p))?;
    // The operator's own tool, run here (not a bot's), with its settings only.
    let mut child = std::process::Command::new(&manager)
        .args(["which", name])
        .current_dir("/")
        .env_clear()
        .envs(std::env::vars_os().filter(|(k, _)| k == "PATH" || k == "HOME"))
        .env(format!("{}_ROOT", tool.to_ascii_uppercase()), root)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if std::time::Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(5))
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    };
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take()?, &mut out).ok()?;
    let found = PathBuf::from(out.trim());
    (status.success() && found.is_absolute() && executable(&found)).then_some(found)
}

/// The plan of a program whose `argv[0]` is `program`, started in `cwd` with
/// `path` as its `PATH`.
pub(crate) fn plan(program: &str, cwd: &Path, path: &OsStr) -> Result<Plan, String> {
    /// Plans by (program, folder, PATH).
    type Plans = HashMap<(String, PathBuf, std::ffi::OsString), Plan>;
    static CACHE: Mutex<Option<Plans>> = Mutex::new(None);
    let key = (program.to_string(), cwd.to_path_buf(), path.to_os_string());
    if let Some(p) = CACHE
        .lock()
        .ok()
        .and_then(|c| c.as_ref().and_then(|m| m.get(&key).cloned()))
    {
        return Ok(p);
    }
    let plan = resolve(program, cwd, path)?;
    if let Ok(mut c) = CACHE.lock() {
        c.get_or_insert_with(HashMap::new).insert(key, plan.clone());
    }
    Ok(plan)
}

fn resolve(program: &str, cwd: &Path, path: &OsStr) -> Result<Plan, String> {
    let mut read = Vec::new();
    if program.contains('/') {
        let full = cwd.join(program);
        if !executable(&full) {
            return Err("no such executable file".into());
        }
        if !full.starts_with(cwd) {
            installation(&full, &mut read);
        }
        return Ok(Plan {
            program: program.to_string(),
            read,
        });
    }
    for dir in std::env::split_paths(path) {
        let dir = if dir.is_absolute() {
            dir
        } else {
            cwd.join(dir)
        };
        let candidate = dir.join(program);
        if !executable(&candidate) {
            continue;
        }
        if dir.starts_with(cwd) {
            // A program of its own folder.
            return Ok(Plan {
                program: candidate.display().to_string(),
                read,
            });
        }
        if under_system(&candidate) {
            return Ok(Plan {
                program: candidate.display().to_string(),
                read,
            });
        }
        let target = if script(&candidate) {
            // A launcher: follow a version manager's shim to its interpreter, or
            // look further along PATH.
            match shim_target(&candidate, program) {
                Some(t) => t,
                None => continue,
            }
        } else {
            candidate
        };
        if !under_system(&target) {
            installation(&target, &mut read);
        }
        return Ok(Plan {
            program: target.display().to_string(),
            read,
        });
    }
    Err("not found on PATH".into())
}

/// What an operator's command line names outside the program's folder `cwd`,
/// for the operator to list in [`crate::Command::read_only`] (a sandbox shows
/// no path for being named in a command): the script an interpreter runs (the
/// first argument that is a file) with its folder, as an interpreter's
/// installation is shown (it may import its neighbours); any other file alone;
/// never a folder named as such (list it in `read`). Real paths, read-only.
/// Only for commands an operator wrote (a tournament file, a list, `--bot`):
/// a hill's uploads may name nothing outside their folder at all.
///
/// ```
/// let d = std::env::temp_dir().join(format!("koth-doc-named-{}", std::process::id()));
/// std::fs::create_dir_all(d.join("bot")).unwrap();
/// std::fs::create_dir_all(d.join("lib")).unwrap();
/// std::fs::write(d.join("lib/run.py"), "").unwrap();
/// std::fs::write(d.join("weights.bin"), "").unwrap();
/// let words: Vec<String> = ["python3", "lib/run.py", "weights.bin", "lib"]
///     .iter().map(|w| d.join(w).display().to_string()).collect();
/// let mut cmd = vec!["python3".to_string()];
/// cmd.extend(words[1..].iter().cloned());
/// let real = d.canonicalize().unwrap();
/// assert_eq!(
///     koth_process::operator_paths(&cmd, &d.join("bot")),
///     [real.join("lib"), real.join("weights.bin")]
/// );
/// # std::fs::remove_dir_all(&d).ok();
/// ```
pub fn operator_paths(program: &[String], cwd: &Path) -> Vec<PathBuf> {
    let cwd = std::fs::canonicalize(crate::absolute(cwd)).unwrap_or_else(|_| cwd.to_path_buf());
    let mut out: Vec<PathBuf> = Vec::new();
    let mut script_seen = false;
    for w in program.iter().skip(1) {
        let p = Path::new(w);
        let Ok(real) = std::fs::canonicalize(cwd.join(p)) else {
            continue;
        };
        if !real.is_file() {
            continue;
        }
        let script = !script_seen;
        script_seen = true;
        if !p.is_absolute() || real.starts_with(&cwd) || under_system(&real) {
            continue;
        }
        let shown = match real.parent() {
            Some(d) if script && d != Path::new("/") && !under_system(d) => d.to_path_buf(),
            _ => real,
        };
        if !out.iter().any(|o| shown.starts_with(o)) {
            out.push(shown);
        }
    }
    out
}

/// The credential files and folders under the home folder that exist and lie in
/// one of `shown` (real paths, see `ns::canonical`): each must be covered. Both
/// sides are compared as real paths, so a home reached through a link, or a
/// folder shown as `$HOME/../USER`, is still found.
pub(crate) fn credentials_in(shown: &[PathBuf]) -> Vec<PathBuf> {
    let Some(h) = home().and_then(|h| std::fs::canonicalize(h).ok()) else {
        return Vec::new();
    };
    CREDENTIALS
        .iter()
        .map(|c| h.join(c))
        .filter(|c| std::fs::symlink_metadata(c).is_ok())
        // Under what is shown, or holding it (a folder shown inside `~/.ssh`).
        .filter(|c| shown.iter().any(|s| c.starts_with(s) || s.starts_with(c)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("koth-tools-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn exe(p: &Path, text: &str) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn a_system_program_needs_nothing_more() {
        let p = plan("sh", Path::new("/tmp"), OsStr::new("/usr/bin:/bin")).unwrap();
        assert!(p.program.ends_with("/sh"), "{p:?}");
        assert!(p.read.is_empty(), "{p:?}");
    }

    #[test]
    fn an_installation_is_shown_whole_and_a_bin_beside_runs_is_not() {
        let d = scratch("install");
        // An interpreter's installation: its bin and lib.
        exe(&d.join("py/bin/python9"), "\x7fELF");
        std::fs::create_dir_all(d.join("py/lib/python9")).unwrap();
        // A bin folder beside the runs: the arena's own folder is not an installation.
        exe(&d.join("arena/bin/tool"), "\x7fELF");
        std::fs::create_dir_all(d.join("arena/runs/seed-1")).unwrap();
        let path = std::env::join_paths([d.join("arena/bin"), d.join("py/bin")]).unwrap();
        let cwd = d.join("bot");
        std::fs::create_dir_all(&cwd).unwrap();
        let py = plan("python9", &cwd, &path).unwrap();
        assert_eq!(py.read, [d.join("py")]);
        let tool = plan("tool", &cwd, &path).unwrap();
        assert_eq!(tool.read, [d.join("arena/bin/tool")]);
        assert_eq!(tool.program, d.join("arena/bin/tool").display().to_string());
        // A program of the bot's own folder needs nothing more.
        exe(&cwd.join("bot"), "\x7fELF");
        assert!(plan("./bot", &cwd, &path).unwrap().read.is_empty());
        assert!(plan("missing", &cwd, &path).is_err());
    }

    #[test]
    fn a_launcher_script_is_not_followed_into_its_tree() {
        let d = scratch("shim");
        // A script that is not a known version manager's shim: the next program of
        // that name on PATH is taken.
        exe(
            &d.join("wrappers/bin/sh"),
            "#!/bin/sh\nexec /bin/sh \"$@\"\n",
        );
        std::fs::create_dir_all(d.join("wrappers/lib")).unwrap();
        let path = std::env::join_paths([d.join("wrappers/bin"), PathBuf::from("/bin")]).unwrap();
        let cwd = d.join("bot");
        std::fs::create_dir_all(&cwd).unwrap();
        let p = plan("sh", &cwd, &path).unwrap();
        assert_eq!(p.program, "/bin/sh");
        assert!(p.read.is_empty(), "{p:?}");
    }
}
