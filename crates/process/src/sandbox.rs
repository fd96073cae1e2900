//! What isolation this machine gives, detected once per process.
//!
//! A sandboxed bot runs in its own user, PID, mount, IPC, UTS and network
//! namespaces (through bubblewrap, see `ns.rs`), under a seccomp filter
//! (`seccomp.rs`), in a control group of its own where this process can make
//! one (`cgroup.rs`). Without namespaces a bot is not started at all unless its
//! sandbox is [`Sandbox::Off`]: partial isolation would be a line of text.

use std::sync::OnceLock;

use crate::command::{Command, Sandbox};

/// What isolation this machine can give. Obtained from [`sandbox_support`].
#[derive(Debug)]
pub struct SandboxSupport {
    /// Bots run in their own user, PID, mount, IPC, UTS and network namespaces (through
    /// bubblewrap), as `nobody`, under a seccomp filter: they see a private copy of
    /// their folder (bounded in size), the system folders and their interpreter's
    /// installation read-only, a private `/tmp`, and nothing else: no other bot, no
    /// run folder, no other process, no network.
    pub namespaces: bool,
    /// Every process a bot starts is kept in a control group of its own, killed with it
    /// (even after `setsid` or a double fork), with its process count bounded
    /// ([`crate::Limits::tasks`]).
    pub cgroups: bool,
    /// Bots have no network at all (their own network namespace), not even 127.0.0.1.
    pub no_network: bool,
    /// Bots may write only their private folder and their private `/tmp`.
    pub fs_write_confined: bool,
    /// Human-readable explanation, suitable for printing verbatim.
    pub detail: String,
    pub(crate) bwrap: Option<std::path::PathBuf>,
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
            _ if self.namespaces => format!("isolated: own namespaces (user, PID, mount, IPC, network) and a seccomp filter, sees only its folder{cg}"),
            _ => format!("refused: no isolation on this machine ({}); install bubblewrap, or give sandbox \"off\" for bots you trust", self.detail),
        }
    }

    /// What a bot run as `cmd` sees and may do on this machine, in one line: its
    /// folder, and exactly what else it may read.
    pub fn describe_command(&self, cmd: &Command) -> String {
        if cmd.sandbox == Sandbox::Off || !self.namespaces {
            return self.describe(cmd.sandbox);
        }
        let cg = if self.cgroups {
            "; its processes tracked and bounded (cgroups)"
        } else {
            "; NOT in a cgroup (processes that setsid may outlive it)"
        };
        let mut folder = match cmd.limits.folder_bytes {
            Some(b) => format!("a private copy of its folder (at most {} MiB)", b >> 20),
            None => "a private copy of its folder".to_string(),
        };
        let cwd = crate::ns::folder(cmd).unwrap_or_else(|_| cmd.cwd.clone());
        let in_place = crate::shown_in_place(&cwd, cmd.limits.folder_bytes);
        if !in_place.is_empty() {
            let names: Vec<String> = in_place.iter().map(|p| p.display().to_string()).collect();
            folder += &format!(
                " but for {}, too big to copy and shown read-only in place",
                names.join(", ")
            );
        }
        let mut extra: Vec<String> = crate::ns::shown(cmd)
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        extra.sort();
        extra.dedup();
        let read = if extra.is_empty() {
            "the system's folders read-only".to_string()
        } else {
            format!("the system's folders and {} read-only", extra.join(", "))
        };
        format!(
            "isolated: own namespaces (user, PID, mount, IPC, network) and a seccomp filter; sees {folder}, a private /tmp, {read}{cg}"
        )
    }
}

/// Checks (once, then cached) which isolation mechanisms work on this machine.
/// A check the machine could not make (out of file descriptors or memory
/// while it ran: [`crate::machine_error`]) is not its answer: it is not kept,
/// and the next call checks again (its result, small, is leaked).
pub fn sandbox_support() -> &'static SandboxSupport {
    static SUPPORT: OnceLock<SandboxSupport> = OnceLock::new();
    if let Some(s) = SUPPORT.get() {
        return s;
    }
    let found = detect();
    if crate::text::machine_error(&found.detail) {
        return Box::leak(Box::new(found));
    }
    SUPPORT.get_or_init(|| found)
}

fn detect() -> SandboxSupport {
    let mut notes = Vec::new();
    let bwrap = match crate::ns::find_bwrap().and_then(|b| crate::ns::probe(&b).map(|_| b)) {
        Ok(b) => {
            notes.push(format!(
                "namespaces: own user/PID/mount/IPC/network namespaces and a seccomp filter via {}",
                b.display()
            ));
            Some(b)
        }
        Err(e) => {
            notes.push(format!("namespaces: NOT available ({e})"));
            None
        }
    };
    let cgroups = crate::cgroup::roots();
    notes.push(cgroups.detail.clone());
    SandboxSupport {
        namespaces: bwrap.is_some(),
        cgroups: cgroups.tracks(),
        no_network: bwrap.is_some(),
        fs_write_confined: bwrap.is_some(),
        detail: notes.join("; "),
        bwrap,
    }
}
