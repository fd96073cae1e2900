//! Building the `std::process::Command` with process group, rlimits and sandbox.

use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;

use crate::sandbox::{self, NetMode, UserNsMaps};
use crate::{sandbox_support, Command, Limits, Sandbox};

/// A ready-to-spawn command. `_ruleset` must outlive the spawn (the child enforces it).
pub(crate) struct Prepared {
    pub(crate) cmd: std::process::Command,
    pub(crate) _ruleset: Option<OwnedFd>,
}

fn rlimits(l: &Limits) -> ([(libc::__rlimit_resource_t, u64); 5], usize) {
    let mut out = [(libc::RLIMIT_AS, 0u64); 5];
    let mut n = 0;
    let all = [
        (libc::RLIMIT_AS, l.memory_bytes),
        (libc::RLIMIT_CPU, l.cpu_seconds),
        (libc::RLIMIT_NOFILE, l.open_files),
        (libc::RLIMIT_NPROC, l.processes),
        (libc::RLIMIT_FSIZE, l.file_size_bytes),
    ];
    for (res, v) in all {
        if let Some(v) = v {
            out[n] = (res, v);
            n += 1;
        }
    }
    (out, n)
}

/// Whether the arena's variable `name` is passed on to the programs it starts: what
/// interpreters need to start and to print text (`PATH`, `HOME`, the locale), and
/// nothing else. A bot's own variables (`env` in a tournament file) are added to it.
pub fn passed_to_bots(name: &str) -> bool {
    matches!(
        name,
        "PATH" | "HOME" | "USER" | "LOGNAME" | "LANG" | "LANGUAGE" | "TZ" | "TERM"
    ) || name.starts_with("LC_")
}

/// Prepares `cmd.program ++ args`. All fallible and allocating work happens here, in the
/// parent; the `pre_exec` hook only makes raw system calls.
pub(crate) fn prepare(cmd: &Command, args: &[String]) -> Result<Prepared, String> {
    let Some(program) = cmd.program.first() else {
        return Err("empty program (Command::program has no argv[0])".to_string());
    };
    for (k, v) in &cmd.env {
        if k.is_empty() || k.contains('=') || k.contains('\0') || v.contains('\0') {
            return Err(format!("invalid environment variable {k:?}"));
        }
    }
    let mut c = std::process::Command::new(program);
    c.args(&cmd.program[1..]).args(args);
    c.current_dir(&cmd.cwd);
    // A bot sees a short allow-list of the arena's environment and its own
    // variables, never the rest (tokens, paths to the run, the operator's settings).
    c.env_clear();
    for (k, v) in std::env::vars_os() {
        if k.to_str().is_some_and(passed_to_bots) {
            c.env(k, v);
        }
    }
    for (k, v) in &cmd.env {
        c.env(k, v);
    }

    let (net, landlock_abi) = match cmd.sandbox {
        Sandbox::Off => (None, 0),
        Sandbox::Auto | Sandbox::Required => {
            let s = sandbox_support();
            if cmd.sandbox == Sandbox::Required && !(s.no_network && s.fs_write_confined) {
                return Err(format!(
                    "sandbox required but not available on this machine: {}",
                    s.detail
                ));
            }
            (s.net, s.landlock_abi)
        }
    };

    let userns = match net {
        Some(NetMode::UserNs) => Some(UserNsMaps::new().map_err(|e| format!("sandbox: {e}"))?),
        _ => None,
    };
    let ruleset = if landlock_abi > 0 {
        let cwd = if cmd.cwd.as_os_str().is_empty() {
            std::path::Path::new(".")
        } else {
            cmd.cwd.as_path()
        };
        let fd = sandbox::ruleset_fd(landlock_abi, &[cwd]).map_err(|e| {
            format!(
                "sandbox: cannot confine writes to {}: {e}",
                cmd.cwd.display()
            )
        })?;
        if !cmd.env.iter().any(|(k, _)| k == "TMPDIR") {
            // Temporary files can only be created beneath the bot's directory.
            c.env("TMPDIR", cwd);
        }
        Some(fd)
    } else {
        None
    };
    let ruleset_raw = ruleset.as_ref().map(|f| f.as_raw_fd());
    let privileged_net = net == Some(NetMode::Privileged);
    let (limits, nlimits) = rlimits(&cmd.limits);

    let hook = move || -> std::io::Result<()> {
        // SAFETY (whole block): only async-signal-safe raw syscalls on data prepared before
        // fork; no allocation, no locks.
        unsafe {
            if libc::setpgid(0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if privileged_net && libc::unshare(libc::CLONE_NEWNET) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if let Some(maps) = &userns {
                if !maps.enter() {
                    return Err(std::io::Error::from_raw_os_error(libc::EPERM));
                }
            }
            for &(res, v) in &limits[..nlimits] {
                let mut cur = libc::rlimit {
                    rlim_cur: 0,
                    rlim_max: 0,
                };
                let mut want = v as libc::rlim_t;
                if libc::getrlimit(res, &mut cur) == 0 && cur.rlim_max < want {
                    // Cannot raise a hard limit without privileges: keep the lower one.
                    want = cur.rlim_max;
                }
                let lim = libc::rlimit {
                    rlim_cur: want,
                    rlim_max: want,
                };
                if libc::setrlimit(res, &lim) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            if let Some(fd) = ruleset_raw {
                if !sandbox::restrict_self(fd) {
                    return Err(std::io::Error::last_os_error());
                }
            }
            // Last, since a change of credentials clears it: the program dies with
            // the arena thread that started it, even when the arena is killed.
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(())
    };
    // SAFETY: the hook is async-signal-safe (see above).
    unsafe {
        c.pre_exec(hook);
    }
    Ok(Prepared {
        cmd: c,
        _ruleset: ruleset,
    })
}

/// Human-readable spawn error.
pub(crate) fn spawn_error(cmd: &Command, e: &std::io::Error) -> String {
    let program = cmd.program.first().map(String::as_str).unwrap_or("");
    format!("cannot start {program:?} in {}: {e}", cmd.cwd.display())
}
