//! One control group per bot: its processes are counted, bounded and killed together.
//!
//! A bot joins its group between fork and exec, so everything it starts (even after
//! `setsid` or a double fork) stays in it. cgroup v2 is used where this process can make
//! groups there (`cgroup.kill` ends the whole group at once; `pids.max` and `memory.max`
//! where those controllers are enabled); otherwise the v1 `pids` and `memory` hierarchies
//! (hybrid machines); otherwise nothing, and [`crate::SandboxSupport`] says so.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::Limits;

/// Where this process may create bot groups.
#[derive(Debug, Default)]
pub(crate) struct Roots {
    /// cgroup v2 folder for our groups (kill, and the limits whose controller is on).
    v2: Option<PathBuf>,
    v2_pids: bool,
    v2_memory: bool,
    /// cgroup v1 folders (pids, memory hierarchies).
    v1_pids: Option<PathBuf>,
    v1_memory: Option<PathBuf>,
    /// One line for people.
    pub(crate) detail: String,
}

impl Roots {
    /// The number of processes of a bot is bounded.
    pub(crate) fn bounds_tasks(&self) -> bool {
        self.v2_pids || self.v1_pids.is_some()
    }

    /// Everything a bot starts can be found and killed, whatever it does.
    pub(crate) fn tracks(&self) -> bool {
        self.v2.is_some() || self.v1_pids.is_some()
    }
}

pub(crate) fn roots() -> &'static Roots {
    static R: OnceLock<Roots> = OnceLock::new();
    R.get_or_init(detect)
}

/// A mounted hierarchy: mount point, root inside it, fs type, super options.
struct Mount {
    point: PathBuf,
    root: String,
    fstype: String,
    options: String,
}

fn mounts() -> Vec<Mount> {
    let text = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    text.lines()
        .filter_map(|l| {
            let (pre, post) = l.split_once(" - ")?;
            let pre: Vec<&str> = pre.split(' ').collect();
            let post: Vec<&str> = post.split(' ').collect();
            Some(Mount {
                root: pre.get(3)?.to_string(),
                point: PathBuf::from(unescape(pre.get(4)?)),
                fstype: post.first()?.to_string(),
                options: post.get(2).unwrap_or(&"").to_string(),
            })
        })
        .collect()
}

/// mountinfo escapes spaces and the like as `\040`.
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 3 < b.len() && b[i + 1..i + 4].iter().all(u8::is_ascii_digit) {
            let v = (b[i + 1] - b'0') * 64 + (b[i + 2] - b'0') * 8 + (b[i + 3] - b'0');
            out.push(v);
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Our folder in a hierarchy: the mount point joined with our path relative to the
/// mount's root.
fn our_dir(m: &Mount, path: &str) -> Option<PathBuf> {
    let rel = if m.root == "/" {
        path
    } else {
        path.strip_prefix(m.root.as_str())?
    };
    Some(m.point.join(rel.trim_start_matches('/')))
}

fn writable_dir(p: &Path) -> bool {
    let Ok(c) = CString::new(p.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: NUL-terminated path.
    unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
}

/// Removes the `koth-PID` groups a koth that was killed outright left in `parent`:
/// those whose process is gone. Its bots die with it, but not at once (a sandbox
/// learns of its parent's death by a signal): a group still holding processes is
/// tried again until `deadline` (shared by every hierarchy, so that a koth starts
/// at most a fraction of a second late), then left alone (its processes may
/// belong to a koth in another PID namespace, and the kernel refuses to remove a
/// populated group anyway); the next koth sweeps it.
fn sweep_stale(parent: &Path, deadline: std::time::Instant) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    let mut left = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix("koth-"))
            .and_then(|p| p.parse::<i32>().ok())
        else {
            continue;
        };
        // SAFETY: signal 0 only asks whether the process exists.
        let gone = unsafe { libc::kill(pid, 0) } != 0
            && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
        if gone && e.file_type().is_ok_and(|t| t.is_dir()) && !remove_group_tree(&e.path()) {
            left.push(e.path());
        }
    }
    while !left.is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
        left.retain(|d| !remove_group_tree(d));
    }
}

/// Removes a run's group and its bots' groups beneath it; whether it is gone.
fn remove_group_tree(dir: &Path) -> bool {
    if let Ok(groups) = std::fs::read_dir(dir) {
        for g in groups.flatten() {
            if g.file_type().is_ok_and(|t| t.is_dir()) {
                let _ = std::fs::remove_dir(g.path());
            }
        }
    }
    std::fs::remove_dir(dir).is_ok() || !dir.exists()
}

fn detect() -> Roots {
    let mut r = Roots::default();
    let own = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let mounts = mounts();
    let base = format!("koth-{}", std::process::id());
    for line in own.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(id), Some(ctrls), Some(path)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        if id == "0" && ctrls.is_empty() {
            let Some(m) = mounts.iter().find(|m| m.fstype == "cgroup2") else {
                continue;
            };
            let Some(dir) = our_dir(m, path) else {
                continue;
            };
            if !writable_dir(&dir) {
                continue;
            }
            // Controllers can be handed to children only from a group without
            // processes of its own, or from the root; try, and keep what took.
            if path == "/" {
                let _ = std::fs::write(dir.join("cgroup.subtree_control"), "+pids +memory");
            }
            let sub =
                std::fs::read_to_string(dir.join("cgroup.subtree_control")).unwrap_or_default();
            r.v2_pids = sub.split_whitespace().any(|c| c == "pids");
            r.v2_memory = sub.split_whitespace().any(|c| c == "memory");
            r.v2 = Some(dir.join(&base));
        } else {
            for ctrl in ctrls.split(',') {
                if ctrl != "pids" && ctrl != "memory" {
                    continue;
                }
                let m = mounts
                    .iter()
                    .find(|m| m.fstype == "cgroup" && m.options.split(',').any(|o| o == ctrl));
                let Some(dir) = m.and_then(|m| our_dir(m, path)) else {
                    continue;
                };
                if writable_dir(&dir) {
                    let slot = if ctrl == "pids" {
                        &mut r.v1_pids
                    } else {
                        &mut r.v1_memory
                    };
                    *slot = Some(dir.join(&base));
                }
            }
        }
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_millis(300);
    for base in [&r.v2, &r.v1_pids, &r.v1_memory].into_iter().flatten() {
        if let Some(parent) = base.parent() {
            sweep_stale(parent, deadline);
        }
    }
    // Check by making a group, joining it from a child, and removing it.
    if r.v2.is_some() || r.v1_pids.is_some() || r.v1_memory.is_some() {
        let ok = BotCgroup::create(&Limits::none(), &r)
            .map(|g| {
                let joined = crate::sys::probe_child(|| g.enter());
                drop(g);
                joined
            })
            .unwrap_or(false);
        if !ok {
            r = Roots::default();
        }
    }
    let mut what = Vec::new();
    if r.tracks() {
        what.push("every process a bot starts is tracked and killed with it");
    }
    if r.bounds_tasks() {
        what.push("process count bounded");
    }
    if r.v2_memory || r.v1_memory.is_some() {
        what.push("memory bounded per bot");
    }
    r.detail = if what.is_empty() {
        "cgroups: NOT used (no writable cgroup hierarchy: run as root or with a delegated cgroup)"
            .to_string()
    } else {
        let v1 = r.v1_pids.is_some() || r.v1_memory.is_some();
        let kind = match (r.v2.is_some(), v1) {
            (true, true) => "v2 and v1",
            (true, false) => "v2",
            _ => "v1",
        };
        format!("cgroups ({kind}): {}", what.join(", "))
    };
    r
}

/// Files to write in a new group: (file, value); `None` leaves the default.
type Settings = Vec<(&'static str, Option<u64>)>;

/// Bot groups alive; the run's folder is removed when it drops to zero.
static LIVE: Mutex<usize> = Mutex::new(0);

/// A bot's groups (one per hierarchy). Dropping it kills what is left and removes them.
#[derive(Debug)]
pub(crate) struct BotCgroup {
    dirs: Vec<PathBuf>,
    /// `cgroup.procs` of each group, for joining in the child.
    procs: Vec<CString>,
    kill: Option<PathBuf>,
}

impl BotCgroup {
    /// Makes the groups for one bot, with its limits. `None` when there is nowhere to.
    pub(crate) fn create(limits: &Limits, r: &Roots) -> Option<BotCgroup> {
        static N: AtomicU64 = AtomicU64::new(0);
        let mut live = LIVE.lock().unwrap_or_else(|p| p.into_inner());
        let name = format!("b{}", N.fetch_add(1, Ordering::Relaxed));
        let mut plan: Vec<(PathBuf, Settings)> = Vec::new();
        let mut kill = None;
        if let Some(base) = &r.v2 {
            let pids = limits.tasks.filter(|_| r.v2_pids);
            let mem = limits.memory_bytes.filter(|_| r.v2_memory);
            let dir = base.join(&name);
            kill = Some(dir.join("cgroup.kill"));
            plan.push((dir, vec![("pids.max", pids), ("memory.max", mem)]));
        }
        // Hybrid machines: the controllers v2 lacks, from their v1 hierarchies.
        if let Some(base) = r.v1_pids.as_ref().filter(|_| !r.v2_pids) {
            plan.push((base.join(&name), vec![("pids.max", limits.tasks)]));
        }
        if let Some(base) = r.v1_memory.as_ref().filter(|_| !r.v2_memory) {
            let files = vec![("memory.limit_in_bytes", limits.memory_bytes)];
            plan.push((base.join(&name), files));
        }
        let mut dirs = Vec::new();
        let mut procs = Vec::new();
        let mut ok = !plan.is_empty();
        for (dir, files) in plan {
            if !ok {
                break;
            }
            ok = std::fs::create_dir_all(&dir).is_ok();
            if ok {
                dirs.push(dir.clone());
            }
            for (file, value) in files {
                if let Some(v) = value {
                    ok = ok && std::fs::write(dir.join(file), v.to_string()).is_ok();
                }
            }
            match CString::new(dir.join("cgroup.procs").as_os_str().as_bytes()) {
                Ok(c) => procs.push(c),
                Err(_) => ok = false,
            }
        }
        if !ok {
            for d in dirs.iter().rev() {
                let _ = std::fs::remove_dir(d);
            }
            return None;
        }
        *live += 1;
        Some(BotCgroup { dirs, procs, kill })
    }

    /// The `cgroup.procs` files to write in the child ([`enter`]).
    pub(crate) fn procs(&self) -> Vec<CString> {
        self.procs.clone()
    }

    pub(crate) fn enter(&self) -> bool {
        enter(&self.procs)
    }

    /// Processes still in the groups.
    fn members(&self) -> Vec<libc::pid_t> {
        let mut v: Vec<libc::pid_t> = self
            .dirs
            .iter()
            .filter_map(|d| std::fs::read_to_string(d.join("cgroup.procs")).ok())
            .flat_map(|t| {
                t.lines()
                    .filter_map(|l| l.trim().parse().ok())
                    .collect::<Vec<_>>()
            })
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// SIGKILLs every process in the groups.
    pub(crate) fn kill_all(&self) {
        if let Some(k) = &self.kill {
            if std::fs::write(k, "1").is_ok() {
                return;
            }
        }
        for pid in self.members() {
            if pid > 1 {
                // SAFETY: plain syscall.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
        }
    }
}

/// In the child, before exec: moves the calling process into every group.
/// Async-signal-safe (open/write/close on prepared paths).
pub(crate) fn enter(procs: &[CString]) -> bool {
    procs.iter().all(|p| {
        // SAFETY: raw syscalls on a NUL-terminated path and a static buffer.
        unsafe {
            let fd = libc::open(p.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
            if fd < 0 {
                return false;
            }
            let ok = libc::write(fd, b"0".as_ptr().cast(), 1) == 1;
            libc::close(fd);
            ok
        }
    })
}

impl Drop for BotCgroup {
    fn drop(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(1);
        for dir in self.dirs.iter().rev() {
            // The last processes are usually gone within microseconds: wait 50 µs
            // first, doubling up to 2 ms.
            let mut pause = Duration::from_micros(50);
            loop {
                if std::fs::remove_dir(dir).is_ok() || !dir.exists() {
                    break;
                }
                if Instant::now() > deadline {
                    break;
                }
                self.kill_all();
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(2));
            }
        }
        // The run's folders go when its last bot does.
        let mut live = LIVE.lock().unwrap_or_else(|p| p.into_inner());
        *live = live.saturating_sub(1);
        if *live == 0 {
            for dir in &self.dirs {
                if let Some(parent) = dir.parent() {
                    let _ = std::fs::remove_dir(parent);
                }
            }
        }
    }
}
