//! Building the `std::process::Command` with process group, rlimits and sandbox.

use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;

use crate::cgroup::BotCgroup;
use crate::sandbox::{self, NetMode, UserNsMaps};
use crate::{sandbox_support, Command, Exit, Limits, Sandbox};

/// A ready-to-spawn command. `_ruleset` must outlive the spawn (the child enforces it).
pub(crate) struct Prepared {
    pub(crate) cmd: std::process::Command,
    pub(crate) _ruleset: Option<OwnedFd>,
    /// The bot's control group: keep it until the bot is reaped, then drop it (which
    /// kills whatever is left).
    pub(crate) cgroup: Option<BotCgroup>,
    /// Runs under bwrap, which reports death by signal N as exit status 128 + N.
    pub(crate) wrapped: bool,
}

impl Prepared {
    /// What stays with the running bot once it is spawned.
    pub(crate) fn into_guard(self) -> Guard {
        Guard {
            cgroup: self.cgroup,
            wrapped: self.wrapped,
        }
    }
}

/// Kept with a running bot: its control group (dropped after the bot is reaped, which
/// kills what is left) and how to read its exit status.
pub(crate) struct Guard {
    cgroup: Option<BotCgroup>,
    wrapped: bool,
}

impl Guard {
    /// The bot's own exit, seen through bwrap.
    pub(crate) fn exit(&self, e: Exit) -> Exit {
        match e {
            Exit::Code(c) if self.wrapped && (129..=128 + 64).contains(&c) => Exit::Signal(c - 128),
            e => e,
        }
    }

    /// SIGKILLs every process of the bot's control group, if it has one.
    pub(crate) fn kill_all(&self) {
        if let Some(g) = &self.cgroup {
            g.kill_all();
        }
    }
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
    let support = sandbox_support();
    let confine = cmd.sandbox != Sandbox::Off;
    if cmd.sandbox == Sandbox::Required && !support.namespaces {
        return Err(format!(
            "sandbox required but not available on this machine: {}",
            support.detail
        ));
    }
    let bwrap = support.bwrap.as_ref().filter(|_| confine);
    let cwd_abs = if cmd.cwd.as_os_str().is_empty() {
        std::env::current_dir()
    } else {
        std::path::absolute(&cmd.cwd)
    }
    .map_err(|e| format!("cannot resolve the folder {}: {e}", cmd.cwd.display()))?;
    if !cwd_abs.is_dir() {
        return Err(format!(
            "the bot's folder {} does not exist",
            cwd_abs.display()
        ));
    }
    // Inside bwrap a missing program would only show as an exit status: find it here.
    let path = cmd
        .env
        .iter()
        .rev()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| std::ffi::OsString::from(v))
        .or_else(|| std::env::var_os("PATH"))
        .unwrap_or_default();
    if find_program(program, &cwd_abs, &path).is_none() {
        return Err(format!(
            "cannot start {program:?} in {}: {}",
            cmd.cwd.display(),
            if program.contains('/') {
                "no such executable file"
            } else {
                "not found on PATH"
            }
        ));
    }
    let mut c = match bwrap {
        Some(b) => {
            let mut c = std::process::Command::new(b);
            c.args(crate::ns::bwrap_args(cmd, &cwd_abs, &support.tools));
            c.arg(program);
            c
        }
        None => std::process::Command::new(program),
    };
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
    let cgroup = BotCgroup::create(&cmd.limits, crate::cgroup::roots());

    // Without namespaces: a network namespace and landlock, where they work.
    let (net, landlock_abi) = if confine && bwrap.is_none() {
        (support.net, support.landlock_abi)
    } else {
        (None, 0)
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
    let group = cgroup.as_ref().map(BotCgroup::procs);

    let hook = move || -> std::io::Result<()> {
        // SAFETY (whole block): only async-signal-safe raw syscalls on data prepared before
        // fork; no allocation, no locks.
        unsafe {
            if libc::setpgid(0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if let Some(g) = &group {
                if !crate::cgroup::enter(g) {
                    return Err(std::io::Error::last_os_error());
                }
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
        cgroup,
        wrapped: bwrap.is_some(),
    })
}

/// Where `program` is, as `execvp` would find it from `cwd`: a path if it has a `/`,
/// else the first executable file of that name on `path`.
fn find_program(
    program: &str,
    cwd: &std::path::Path,
    path: &std::ffi::OsStr,
) -> Option<std::path::PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let executable = |p: &std::path::Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.contains('/') {
        let p = cwd.join(program);
        return executable(&p).then_some(p);
    }
    std::env::split_paths(path)
        .map(|d| if d.is_absolute() { d } else { cwd.join(d) }.join(program))
        .find(|p| executable(p))
}

/// Human-readable spawn error.
pub(crate) fn spawn_error(cmd: &Command, e: &std::io::Error) -> String {
    let program = cmd.program.first().map(String::as_str).unwrap_or("");
    format!("cannot start {program:?} in {}: {e}", cmd.cwd.display())
}

impl Command {
    /// Whether this command can be started here (its folder exists, its program is
    /// found, the sandbox it requires can be had), without starting it. The message
    /// names the program and the reason.
    ///
    /// ```
    /// let c = koth_process::Command::new(["no-such-interpreter", "bot.py"], ".");
    /// assert!(c.check().unwrap_err().contains("not found on PATH"));
    /// ```
    pub fn check(&self) -> Result<(), String> {
        prepare(self, &[]).map(drop)
    }
}
