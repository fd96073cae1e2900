//! Building the `std::process::Command` with process group, rlimits and sandbox.

use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;

use crate::cgroup::BotCgroup;
use crate::{sandbox_support, Command, Exit, Limits, Sandbox};

/// A ready-to-spawn command.
pub(crate) struct Prepared {
    pub(crate) cmd: std::process::Command,
    /// The seccomp filters' descriptors, inherited by bwrap: kept until it runs.
    pub(crate) seccomp: Option<[OwnedFd; 3]>,
    /// The bot's control group: keep it until the bot is reaped, then drop it (which
    /// kills whatever is left).
    pub(crate) cgroup: Option<BotCgroup>,
    /// Runs under bwrap, which reports death by signal N as exit status 128 + N.
    pub(crate) wrapped: bool,
    /// `argv` as the sandbox runs it (its program resolved on `PATH`).
    pub(crate) program: Vec<String>,
}

impl Prepared {
    /// What stays with the running bot once it is spawned.
    pub(crate) fn into_guard(self) -> Guard {
        Guard::new(self.cgroup, self.wrapped)
    }
}

/// Kept with a running bot: its control group (dropped after the bot is reaped, which
/// kills what is left) and how to read its exit status.
pub(crate) struct Guard {
    cgroup: Option<BotCgroup>,
    wrapped: bool,
}

impl Guard {
    pub(crate) fn new(cgroup: Option<BotCgroup>, wrapped: bool) -> Guard {
        Guard { cgroup, wrapped }
    }

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

/// The `PATH` of a sandboxed program, after its interpreter's own folders:
/// the system's, as the sandbox shows them.
const SANDBOX_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// Whether the arena's variable `name` is passed on to the programs it starts: what
/// interpreters need to start and to print text (`PATH`, `HOME`, the locale), and
/// nothing else. A bot's own variables (`env` in a tournament file) are added to it.
pub fn passed_to_bots(name: &str) -> bool {
    matches!(
        name,
        "PATH" | "HOME" | "USER" | "LOGNAME" | "LANG" | "LANGUAGE" | "TZ" | "TERM"
    ) || name.starts_with("LC_")
}

/// The message for a sandbox this machine cannot give.
pub(crate) fn no_isolation() -> String {
    format!(
        "no isolation on this machine ({}): install bubblewrap (apt install bubblewrap), or run bots you trust with sandbox \"off\" (--sandbox off)",
        sandbox_support().detail
    )
}

/// Prepares `cmd.program ++ args`: in its sandbox, the launcher copies the folder
/// and becomes the program. All fallible and allocating work happens here, in the
/// parent; the `pre_exec` hook only makes raw system calls.
pub(crate) fn prepare(cmd: &Command, args: &[String]) -> Result<Prepared, String> {
    prepare_as(cmd, args, false)
}

/// Prepares `cmd`'s sandbox for a game of moves: the launcher copies the folder
/// and serves moves.
pub(crate) fn prepare_session(cmd: &Command) -> Result<Prepared, String> {
    prepare_as(cmd, &[], true)
}

fn prepare_as(cmd: &Command, args: &[String], serve: bool) -> Result<Prepared, String> {
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
    let bwrap = match (confine, support.bwrap.as_ref()) {
        (false, _) => None,
        (true, Some(b)) => Some(b),
        (true, None) => return Err(no_isolation()),
    };
    let cwd_abs = crate::ns::folder(cmd)
        .map_err(|e| format!("cannot resolve the folder {}: {e}", cmd.cwd.display()))?;
    if !cwd_abs.is_dir() {
        return Err(format!(
            "the bot's folder {} does not exist",
            cwd_abs.display()
        ));
    }
    let path = crate::ns::search_path(cmd);
    let not_found = |why: &str| format!("cannot start {program:?} in {}: {why}", cmd.cwd.display());
    let mut seccomp = None;
    let mut inside_path = None;
    let (mut c, argv) = match bwrap {
        Some(b) => {
            let plan = crate::tools::plan(program, &cwd_abs, &path).map_err(|e| not_found(&e))?;
            let launcher = crate::frames::path()?;
            let fds = crate::seccomp::memfds()?;
            let raw = fds.each_ref().map(|f| f.as_raw_fd());
            let mut argv = vec![plan.program.clone()];
            argv.extend(cmd.program[1..].iter().cloned());
            argv.extend(args.iter().cloned());
            let start = if serve {
                crate::ns::Start::Serve
            } else {
                crate::ns::Start::Run(&argv)
            };
            let mut c = std::process::Command::new(b);
            c.args(crate::ns::bwrap_args(
                cmd, &cwd_abs, &plan, &launcher, raw, start,
            ));
            seccomp = Some(fds);
            // The installation's own programs come first on its PATH.
            let bins: Vec<std::path::PathBuf> = plan
                .read
                .iter()
                .map(|r| r.join("bin"))
                .filter(|b| b.is_dir())
                .collect();
            if !bins.is_empty() {
                inside_path = std::env::join_paths(bins).ok();
            }
            (c, argv)
        }
        None => {
            if find_program(program, &cwd_abs, &path).is_none() {
                return Err(not_found(if program.contains('/') {
                    "no such executable file"
                } else {
                    "not found on PATH"
                }));
            }
            let mut c = std::process::Command::new(program);
            c.args(&cmd.program[1..]).args(args);
            (c, cmd.program.iter().chain(args).cloned().collect())
        }
    };
    c.current_dir(&cmd.cwd);
    // A bot sees a short allow-list of the arena's environment and its own
    // variables, never the rest (tokens, paths to the run, the operator's settings).
    c.env_clear();
    for (k, v) in std::env::vars_os() {
        if k.to_str().is_some_and(passed_to_bots) {
            c.env(k, v);
        }
    }
    if bwrap.is_some() {
        // In its sandbox, nothing of the server's account: its folder is its
        // home, it is nobody, and its PATH names the system's folders (and
        // its interpreter's), not the operator's.
        let bins = inside_path.unwrap_or_default();
        let mut path = std::ffi::OsString::new();
        if !bins.is_empty() {
            path.push(&bins);
            path.push(":");
        }
        path.push(SANDBOX_PATH);
        c.env("PATH", path);
        c.env("HOME", &cwd_abs);
        c.env("USER", "nobody");
        c.env("LOGNAME", "nobody");
    }
    for (k, v) in &cmd.env {
        c.env(k, v);
    }
    // bwrap outside and its first process inside are not the bot's: they do not
    // count against its processes.
    let mut limits = cmd.limits.clone();
    if bwrap.is_some() {
        limits.tasks = limits.tasks.map(|t| t + 2);
    }
    let cgroup = BotCgroup::create(&limits, crate::cgroup::roots());
    let (rl, nrl) = rlimits(&cmd.limits);
    let group = cgroup.as_ref().map(BotCgroup::procs);
    let inherit = seccomp
        .as_ref()
        .map(|f| f.each_ref().map(|f| f.as_raw_fd()));

    // The process that forks (the parent a child sees until koth dies).
    let arena = std::process::id() as libc::pid_t;
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
            for &(res, v) in &rl[..nrl] {
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
            // bwrap reads the seccomp filters from these: they live past exec.
            if let Some(fds) = inherit {
                for fd in fds {
                    if libc::fcntl(fd, libc::F_SETFD, 0) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
            }
            // Last, since a change of credentials clears it: the program dies with
            // the arena thread that started it, even when the arena is killed.
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // Killed between the fork and the line above, koth sent no signal:
            // its orphan must not go on to run the bot.
            if libc::getppid() != arena {
                return Err(std::io::Error::other("koth is gone"));
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
        seccomp,
        cgroup,
        wrapped: bwrap.is_some(),
        program: if serve { argv } else { Vec::new() },
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

/// Spawns `cmd` from one thread that lives as long as koth, and gives the
/// command back with the child. A program's parent-death signal follows the
/// *thread* that started it: started from a worker of one tournament, a program
/// kept for the next (the hill keeps them) would be killed when that worker ends.
/// Started from here, it dies with koth and only then.
pub(crate) fn spawn_kept(
    cmd: std::process::Command,
) -> (std::process::Command, std::io::Result<std::process::Child>) {
    use std::sync::mpsc;
    use std::sync::{Mutex, OnceLock};
    type Job = (
        std::process::Command,
        mpsc::Sender<(std::process::Command, std::io::Result<std::process::Child>)>,
    );
    static SPAWNER: OnceLock<Mutex<mpsc::Sender<Job>>> = OnceLock::new();
    let sender = SPAWNER.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<Job>();
        let started = std::thread::Builder::new()
            .name("koth-spawner".into())
            .spawn(move || {
                for (mut cmd, back) in rx {
                    let child = cmd.spawn();
                    let _ = back.send((cmd, child));
                }
            });
        if let Err(e) = started {
            // No thread to spare: every spawn then fails with the reason.
            let (dead, _) = mpsc::channel::<Job>();
            eprintln!("koth: cannot start its spawner thread: {e}");
            return Mutex::new(dead);
        }
        Mutex::new(tx)
    });
    let (back, answer) = mpsc::channel();
    let sent = sender
        .lock()
        .map_err(|_| ())
        .and_then(|s| s.send((cmd, back)).map_err(|_| ()));
    match (sent, answer.recv()) {
        (Ok(()), Ok(r)) => r,
        (_, _) => (
            std::process::Command::new("/nonexistent"),
            Err(std::io::Error::other("koth's spawner thread is gone")),
        ),
    }
}
