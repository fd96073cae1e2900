//! The system calls a sandboxed bot may not make, as seccomp filters given to
//! bubblewrap (`--add-seccomp-fd`), built with `seccompiler` (rust-vmm's, the one
//! Firecracker uses).
//!
//! Denied with `EPERM`: tracing and reading other processes (`ptrace`,
//! `process_vm_readv`/`writev`, `kcmp`), kernel keyrings (`keyctl`, `add_key`,
//! `request_key`), `bpf`, `perf_event_open`, `userfaultfd`, every mount call
//! (`mount`, `umount2`, `pivot_root`, `move_mount`, `open_tree`, `fsopen`,
//! `fsmount`, `fsconfig`, `fspick`, `mount_setattr`), namespaces (`unshare`,
//! `setns`, and `clone` asked for a new namespace), `chroot`, kernel modules,
//! `kexec`, `reboot`, swap, `acct`, `quotactl`, `syslog`, `io_uring`, file
//! handles (`name_to_handle_at`, `open_by_handle_at`), the clock and I/O ports.
//! `clone3` answers `ENOSYS`, so that the C library falls back to `clone`, whose
//! flags the filter can read.
//!
//! Channels between sandboxes through the kernel's shared objects are shut:
//! every sandbox binds the same system files, so a lock on one, or a watch on
//! it, would pass bits between two bots. `flock` and the `fcntl`s that take a
//! lock succeed and do nothing; asking another's lock (`F_GETLK`,
//! `F_OFD_GETLK`), dnotify (`F_NOTIFY`), leases, inotify and fanotify are
//! denied. (SysV and POSIX IPC and abstract sockets are private to each
//! sandbox's IPC and network namespaces.)

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule,
};
use std::collections::BTreeMap;

/// The system calls denied outright, by name (for the docs and the tests) and number.
pub(crate) fn denied() -> Vec<(&'static str, i64)> {
    let mut v = vec![
        ("ptrace", libc::SYS_ptrace),
        ("process_vm_readv", libc::SYS_process_vm_readv),
        ("process_vm_writev", libc::SYS_process_vm_writev),
        ("kcmp", libc::SYS_kcmp),
        ("keyctl", libc::SYS_keyctl),
        ("add_key", libc::SYS_add_key),
        ("request_key", libc::SYS_request_key),
        ("bpf", libc::SYS_bpf),
        ("perf_event_open", libc::SYS_perf_event_open),
        ("userfaultfd", libc::SYS_userfaultfd),
        ("mount", libc::SYS_mount),
        ("umount2", libc::SYS_umount2),
        ("pivot_root", libc::SYS_pivot_root),
        ("move_mount", libc::SYS_move_mount),
        ("open_tree", libc::SYS_open_tree),
        ("fsopen", libc::SYS_fsopen),
        ("fsmount", libc::SYS_fsmount),
        ("fsconfig", libc::SYS_fsconfig),
        ("fspick", libc::SYS_fspick),
        ("mount_setattr", libc::SYS_mount_setattr),
        ("unshare", libc::SYS_unshare),
        ("setns", libc::SYS_setns),
        ("chroot", libc::SYS_chroot),
        ("init_module", libc::SYS_init_module),
        ("finit_module", libc::SYS_finit_module),
        ("delete_module", libc::SYS_delete_module),
        ("kexec_load", libc::SYS_kexec_load),
        ("kexec_file_load", libc::SYS_kexec_file_load),
        ("reboot", libc::SYS_reboot),
        ("swapon", libc::SYS_swapon),
        ("swapoff", libc::SYS_swapoff),
        ("acct", libc::SYS_acct),
        ("quotactl", libc::SYS_quotactl),
        ("syslog", libc::SYS_syslog),
        ("io_uring_setup", libc::SYS_io_uring_setup),
        ("io_uring_enter", libc::SYS_io_uring_enter),
        ("io_uring_register", libc::SYS_io_uring_register),
        ("name_to_handle_at", libc::SYS_name_to_handle_at),
        ("open_by_handle_at", libc::SYS_open_by_handle_at),
        ("settimeofday", libc::SYS_settimeofday),
        ("clock_settime", libc::SYS_clock_settime),
        ("clock_adjtime", libc::SYS_clock_adjtime),
        ("adjtimex", libc::SYS_adjtimex),
        ("lookup_dcookie", libc::SYS_lookup_dcookie),
        ("vhangup", libc::SYS_vhangup),
    ];
    #[cfg(target_arch = "x86_64")]
    v.extend([
        ("iopl", libc::SYS_iopl),
        ("ioperm", libc::SYS_ioperm),
        ("uselib", libc::SYS_uselib),
        ("inotify_init", libc::SYS_inotify_init),
    ]);
    // Watches on files other sandboxes see too (the system folders are the
    // same inodes in every sandbox): another process's open or read would
    // show as an event, a channel between two bots.
    v.extend([
        ("inotify_init1", libc::SYS_inotify_init1),
        ("inotify_add_watch", libc::SYS_inotify_add_watch),
        ("fanotify_init", libc::SYS_fanotify_init),
        ("fanotify_mark", libc::SYS_fanotify_mark),
    ]);
    v
}

/// The `fcntl` commands denied (`EPERM`): asking which lock another process
/// holds (`F_GETLK`, `F_OFD_GETLK`), watching a folder (`F_NOTIFY`: dnotify)
/// and leases (`F_SETLEASE`): each would show a bot what a process in another
/// sandbox does with a file both see.
pub(crate) const FCNTL_DENIED: [(&str, u64); 4] = [
    ("F_GETLK", libc::F_GETLK as u64),
    ("F_OFD_GETLK", libc::F_OFD_GETLK as u64),
    ("F_NOTIFY", libc::F_NOTIFY as u64),
    ("F_SETLEASE", libc::F_SETLEASE as u64),
];

/// The `fcntl` commands that take a lock, made to succeed without taking it,
/// as `flock` is: a lock on a shared file (every sandbox sees the same
/// `/usr` and `/etc`) is a bit another sandbox can read; a lock a bot takes
/// on its own files is only ever asked by itself, so a no-op breaks nothing a
/// single program relies on.
pub(crate) const FCNTL_NO_OP: [(&str, u64); 4] = [
    ("F_SETLK", libc::F_SETLK as u64),
    ("F_SETLKW", libc::F_SETLKW as u64),
    ("F_OFD_SETLK", libc::F_OFD_SETLK as u64),
    ("F_OFD_SETLKW", libc::F_OFD_SETLKW as u64),
];

/// Rules matching `fcntl` with one of `cmds` as its command.
fn fcntl_rules(cmds: &[(&str, u64)]) -> Result<Vec<SeccompRule>, String> {
    cmds.iter()
        .map(|&(_, c)| {
            SeccompCondition::new(1, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, c)
                .and_then(|c| SeccompRule::new(vec![c]))
                .map_err(|e| format!("seccomp: {e}"))
        })
        .collect()
}

/// The flags of `clone` that ask for a new namespace.
const NAMESPACE_FLAGS: [u64; 7] = [
    libc::CLONE_NEWNS as u64,
    libc::CLONE_NEWUSER as u64,
    libc::CLONE_NEWPID as u64,
    libc::CLONE_NEWNET as u64,
    libc::CLONE_NEWUTS as u64,
    libc::CLONE_NEWIPC as u64,
    libc::CLONE_NEWCGROUP as u64,
];

fn arch() -> Result<seccompiler::TargetArch, String> {
    std::env::consts::ARCH
        .try_into()
        .map_err(|e| format!("seccomp: unsupported architecture: {e:?}"))
}

/// The filters, as the bytes bubblewrap reads from a descriptor: the main one
/// (`EPERM`), `clone3`'s (`ENOSYS`) and the locks' (success, nothing done).
pub(crate) fn programs() -> Result<[Vec<u8>; 3], String> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = denied()
        .into_iter()
        .map(|(_, nr)| (nr, Vec::new()))
        .collect();
    // `clone` with any namespace flag: one rule a flag (rules of a call are ORed).
    let clone_rules = NAMESPACE_FLAGS
        .iter()
        .map(|&f| {
            SeccompCondition::new(0, SeccompCmpArgLen::Qword, SeccompCmpOp::MaskedEq(f), f)
                .and_then(|c| SeccompRule::new(vec![c]))
                .map_err(|e| format!("seccomp: {e}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    rules.insert(libc::SYS_clone, clone_rules);
    rules.insert(libc::SYS_fcntl, fcntl_rules(&FCNTL_DENIED)?);
    let main = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch()?,
    )
    .map_err(|e| format!("seccomp: {e}"))?;
    let clone3 = SeccompFilter::new(
        [(libc::SYS_clone3, Vec::new())].into_iter().collect(),
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        arch()?,
    )
    .map_err(|e| format!("seccomp: {e}"))?;
    // Locks: `flock` and the locking `fcntl`s succeed and do nothing.
    let locks = SeccompFilter::new(
        [
            (libc::SYS_flock, Vec::new()),
            (libc::SYS_fcntl, fcntl_rules(&FCNTL_NO_OP)?),
        ]
        .into_iter()
        .collect(),
        SeccompAction::Allow,
        SeccompAction::Errno(0),
        arch()?,
    )
    .map_err(|e| format!("seccomp: {e}"))?;
    let bytes = |f: SeccompFilter| -> Result<Vec<u8>, String> {
        let prog: BpfProgram = f.try_into().map_err(|e| format!("seccomp: {e}"))?;
        let mut out = Vec::with_capacity(prog.len() * 8);
        for ins in prog {
            out.extend_from_slice(&ins.code.to_ne_bytes());
            out.push(ins.jt);
            out.push(ins.jf);
            out.extend_from_slice(&ins.k.to_ne_bytes());
        }
        Ok(out)
    };
    Ok([bytes(main)?, bytes(clone3)?, bytes(locks)?])
}

/// The filters' bytes, built once.
pub(crate) fn cached() -> Result<&'static [Vec<u8>; 3], String> {
    static P: std::sync::OnceLock<Result<[Vec<u8>; 3], String>> = std::sync::OnceLock::new();
    P.get_or_init(programs).as_ref().map_err(Clone::clone)
}

/// The descriptors bubblewrap reads every filter from ([`memfd`]).
pub(crate) fn memfds() -> Result<[std::os::fd::OwnedFd; 3], String> {
    let [a, b, c] = cached()?;
    let one = |p: &Vec<u8>| memfd(p).map_err(|e| format!("seccomp: {e}"));
    Ok([one(a)?, one(b)?, one(c)?])
}

/// A descriptor bubblewrap reads a filter from: a memory file holding it, at its
/// start, close-on-exec (the child that runs bwrap clears that, so no other
/// program ever inherits it).
pub(crate) fn memfd(bytes: &[u8]) -> std::io::Result<std::os::fd::OwnedFd> {
    use std::io::{Seek, Write};
    use std::os::fd::{FromRawFd, OwnedFd};
    // SAFETY: a NUL-terminated name; memfd_create returns a fresh descriptor.
    let fd = unsafe { libc::memfd_create(c"koth-seccomp".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: the kernel just returned this descriptor to us.
    let owned = unsafe { OwnedFd::from_raw_fd(fd) };
    let mut f = std::fs::File::from(owned);
    f.write_all(bytes)?;
    f.rewind()?;
    Ok(OwnedFd::from(f))
}
