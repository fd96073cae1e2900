//! Isolation: network namespaces and landlock, detected once per process.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::OnceLock;

use crate::command::Sandbox;
use crate::sys::{last_err, probe_child};

/// What isolation this machine can give. Obtained from [`sandbox_support`].
#[derive(Debug)]
pub struct SandboxSupport {
    /// Bots run in their own user, PID, mount, IPC, UTS and network namespaces (through
    /// bubblewrap), as `nobody`: they see their own folder read-write, the system folders
    /// and the installations of the tools on `PATH` read-only, a private `/tmp`, and
    /// nothing else: no other bot, no run folder, no other process.
    pub namespaces: bool,
    /// Every process a bot starts is kept in a control group of its own, killed with it
    /// (even after `setsid` or a double fork), with its process count bounded
    /// ([`crate::Limits::tasks`]).
    pub cgroups: bool,
    /// Bots can be put in a fresh network namespace (no interfaces but a down loopback):
    /// no TCP/UDP at all, not even to 127.0.0.1.
    pub no_network: bool,
    /// Bots may write (create, delete, truncate, rename into...) only beneath their
    /// working directory: through their mount namespace, or else landlock.
    pub fs_write_confined: bool,
    /// Human-readable explanation, suitable for printing verbatim.
    pub detail: String,
    /// Landlock ABI version (0 if unavailable).
    pub landlock_abi: u32,
    pub(crate) net: Option<NetMode>,
    pub(crate) bwrap: Option<std::path::PathBuf>,
    pub(crate) tools: Vec<std::path::PathBuf>,
}

impl SandboxSupport {
    /// What a bot run with `mode` gets on this machine, and what it lacks, in one line
    /// for the operator (`koth run` prints it per bot).
    pub fn describe(&self, mode: Sandbox) -> String {
        let cg = if self.cgroups {
            "; its processes tracked and bounded (cgroups)"
        } else {
            "; NOT in a cgroup (processes that setsid may outlive it)"
        };
        match mode {
            Sandbox::Off => format!("NOT isolated (sandbox = \"off\"): network, every file and every process of the user are open to it{cg}"),
            _ if self.namespaces => format!("isolated: own namespaces (user, PID, mount, IPC, network), sees only its folder{cg}"),
            _ => {
                let mut missing = vec!["namespaces (it can see other processes and read every file: install bubblewrap)"];
                if !self.no_network {
                    missing.push("network isolation");
                }
                if !self.fs_write_confined {
                    missing.push("write confinement");
                }
                format!("partly isolated: missing {}{cg}", missing.join(", "))
            }
        }
    }
}

/// How a child gets its own network namespace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NetMode {
    /// We have CAP_SYS_ADMIN: `unshare(CLONE_NEWNET)`.
    Privileged,
    /// Unprivileged: `unshare(CLONE_NEWUSER | CLONE_NEWNET)` and map our own uid/gid.
    UserNs,
}

/// Checks (once, then cached) which isolation mechanisms work on this machine.
///
/// The checks fork a short-lived child that only performs raw system calls, so they are
/// safe in a multi-threaded program.
pub fn sandbox_support() -> &'static SandboxSupport {
    static SUPPORT: OnceLock<SandboxSupport> = OnceLock::new();
    SUPPORT.get_or_init(detect)
}

fn detect() -> SandboxSupport {
    let mut notes = Vec::new();

    // Namespaces (bubblewrap).
    let tools = crate::ns::tool_roots(&std::env::var_os("PATH").unwrap_or_default());
    let bwrap = match crate::ns::find_bwrap().and_then(|b| crate::ns::probe(&b, &tools).map(|_| b))
    {
        Ok(b) => {
            notes.push(format!(
                "namespaces: own user/PID/mount/IPC/network namespaces via {} (bots see their folder, the system and {} tool folder{} read-only)",
                b.display(),
                tools.len(),
                if tools.len() == 1 { "" } else { "s" }
            ));
            Some(b)
        }
        Err(e) => {
            notes.push(format!("namespaces: NOT used ({e})"));
            None
        }
    };
    let cgroups = crate::cgroup::roots();
    notes.push(cgroups.detail.clone());

    // Network namespace.
    let net = if probe_child(|| unsafe { libc::unshare(libc::CLONE_NEWNET) } == 0) {
        notes.push("network: isolated (privileged network namespace)".to_string());
        Some(NetMode::Privileged)
    } else {
        match UserNsMaps::new() {
            Ok(maps) if probe_child(|| maps.enter()) => {
                notes.push("network: isolated (unprivileged user + network namespace)".to_string());
                Some(NetMode::UserNs)
            }
            _ => {
                notes.push(
                    "network: NOT isolated (cannot create a network namespace: needs root/CAP_SYS_ADMIN or unprivileged user namespaces)"
                        .to_string(),
                );
                None
            }
        }
    };

    // Landlock.
    let abi = landlock_abi();
    let mut fs_ok = false;
    if abi == 0 {
        notes.push(
            "filesystem: writes NOT confined (landlock unavailable: kernel < 5.13 or not enabled in the LSM list)"
                .to_string(),
        );
    } else {
        match ruleset_fd(abi, &[]) {
            Ok(fd) => {
                let raw = fd.as_raw_fd();
                if probe_child(|| restrict_self(raw)) {
                    fs_ok = true;
                    notes.push(format!(
                        "filesystem: writes confined to the bot's directory (landlock ABI v{abi})"
                    ));
                } else {
                    notes.push(format!(
                        "filesystem: writes NOT confined (landlock ABI v{abi} reported but restrict_self failed)"
                    ));
                }
            }
            Err(e) => notes.push(format!(
                "filesystem: writes NOT confined (landlock ruleset creation failed: {e})"
            )),
        }
    }

    SandboxSupport {
        namespaces: bwrap.is_some(),
        cgroups: cgroups.tracks(),
        no_network: net.is_some() || bwrap.is_some(),
        fs_write_confined: fs_ok || bwrap.is_some(),
        detail: notes.join("; "),
        landlock_abi: if fs_ok { abi } else { 0 },
        net,
        bwrap,
        tools,
    }
}

/// Everything needed to enter an unprivileged user+network namespace, prepared before fork.
#[derive(Debug)]
pub(crate) struct UserNsMaps {
    setgroups_path: CString,
    uid_map_path: CString,
    gid_map_path: CString,
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
}

impl UserNsMaps {
    pub(crate) fn new() -> io::Result<UserNsMaps> {
        // SAFETY: trivial getters.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        let c =
            |s: &str| CString::new(s).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e));
        Ok(UserNsMaps {
            setgroups_path: c("/proc/self/setgroups")?,
            uid_map_path: c("/proc/self/uid_map")?,
            gid_map_path: c("/proc/self/gid_map")?,
            uid_map: format!("{uid} {uid} 1\n").into_bytes(),
            gid_map: format!("{gid} {gid} 1\n").into_bytes(),
        })
    }

    /// In the (single-threaded) child: unshare and map our ids. Async-signal-safe.
    pub(crate) fn enter(&self) -> bool {
        // SAFETY: raw syscalls on prepared, NUL-terminated buffers.
        unsafe {
            if libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNET) != 0 {
                return false;
            }
            write_file(&self.setgroups_path, b"deny")
                && write_file(&self.uid_map_path, &self.uid_map)
                && write_file(&self.gid_map_path, &self.gid_map)
        }
    }
}

unsafe fn write_file(path: &CString, data: &[u8]) -> bool {
    let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
    if fd < 0 {
        // setgroups does not exist on very old kernels; the maps are what matter.
        return false;
    }
    let n = libc::write(fd, data.as_ptr().cast(), data.len());
    libc::close(fd);
    n == data.len() as isize
}

// ---- landlock ----

const CREATE_RULESET_VERSION: u32 = 1;
const RULE_PATH_BENEATH: libc::c_int = 1;

const FS_EXECUTE: u64 = 1 << 0;
const FS_WRITE_FILE: u64 = 1 << 1;
const FS_READ_FILE: u64 = 1 << 2;
const FS_READ_DIR: u64 = 1 << 3;
const FS_REMOVE_DIR: u64 = 1 << 4;
const FS_REMOVE_FILE: u64 = 1 << 5;
const FS_MAKE_CHAR: u64 = 1 << 6;
const FS_MAKE_DIR: u64 = 1 << 7;
const FS_MAKE_REG: u64 = 1 << 8;
const FS_MAKE_SOCK: u64 = 1 << 9;
const FS_MAKE_FIFO: u64 = 1 << 10;
const FS_MAKE_BLOCK: u64 = 1 << 11;
const FS_MAKE_SYM: u64 = 1 << 12;
const FS_REFER: u64 = 1 << 13; // ABI 2
const FS_TRUNCATE: u64 = 1 << 14; // ABI 3

#[repr(C)]
struct RulesetAttr {
    handled_access_fs: u64,
}

#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

fn landlock_abi() -> u32 {
    // SAFETY: documented query form: NULL attr, size 0, VERSION flag.
    let r = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<RulesetAttr>(),
            0usize,
            CREATE_RULESET_VERSION,
        )
    };
    if r < 0 {
        0
    } else {
        r as u32
    }
}

/// The write-type rights we handle (and therefore deny outside the allowed paths).
/// Read and execute rights are deliberately not handled: they stay allowed everywhere.
fn handled_rights(abi: u32) -> u64 {
    let mut r = FS_WRITE_FILE
        | FS_REMOVE_DIR
        | FS_REMOVE_FILE
        | FS_MAKE_CHAR
        | FS_MAKE_DIR
        | FS_MAKE_REG
        | FS_MAKE_SOCK
        | FS_MAKE_FIFO
        | FS_MAKE_BLOCK
        | FS_MAKE_SYM;
    if abi >= 2 {
        r |= FS_REFER;
    }
    if abi >= 3 {
        r |= FS_TRUNCATE;
    }
    debug_assert_eq!(r & (FS_EXECUTE | FS_READ_FILE | FS_READ_DIR), 0);
    r
}

/// Creates a landlock ruleset (close-on-exec fd) that allows all handled rights beneath
/// each directory in `dirs` and file writes to `/dev/null`.
pub(crate) fn ruleset_fd(abi: u32, dirs: &[&Path]) -> io::Result<OwnedFd> {
    let handled = handled_rights(abi);
    let attr = RulesetAttr {
        handled_access_fs: handled,
    };
    // SAFETY: valid attr pointer and its size.
    let r = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            &attr as *const RulesetAttr,
            std::mem::size_of::<RulesetAttr>(),
            0u32,
        )
    };
    if r < 0 {
        return Err(last_err());
    }
    // SAFETY: fresh descriptor from the kernel (landlock rulesets are O_CLOEXEC).
    let ruleset = unsafe { OwnedFd::from_raw_fd(r as RawFd) };
    for dir in dirs {
        add_path_rule(&ruleset, dir, handled).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("landlock rule for {}: {e}", dir.display()),
            )
        })?;
    }
    let file_rights = FS_WRITE_FILE | (handled & FS_TRUNCATE);
    add_path_rule(&ruleset, Path::new("/dev/null"), file_rights)
        .map_err(|e| io::Error::new(e.kind(), format!("landlock rule for /dev/null: {e}")))?;
    Ok(ruleset)
}

fn add_path_rule(ruleset: &OwnedFd, path: &Path, rights: u64) -> io::Result<()> {
    let c = CString::new(path.as_os_str().as_bytes())
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    // SAFETY: NUL-terminated path.
    let fd = unsafe { libc::open(c.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(last_err());
    }
    // SAFETY: fresh descriptor.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let attr = PathBeneathAttr {
        allowed_access: rights,
        parent_fd: fd.as_raw_fd(),
    };
    // SAFETY: valid rule pointer of the documented layout.
    let r = unsafe {
        libc::syscall(
            libc::SYS_landlock_add_rule,
            ruleset.as_raw_fd(),
            RULE_PATH_BENEATH,
            &attr as *const PathBeneathAttr,
            0u32,
        )
    };
    if r < 0 {
        return Err(last_err());
    }
    Ok(())
}

/// In the child: `no_new_privs` + enforce the ruleset. Async-signal-safe.
pub(crate) fn restrict_self(ruleset: RawFd) -> bool {
    // SAFETY: raw syscalls with integer arguments.
    unsafe {
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
            return false;
        }
        libc::syscall(libc::SYS_landlock_restrict_self, ruleset, 0u32) == 0
    }
}
