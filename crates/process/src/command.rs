//! What to run: a program, its folder, its environment, its [`Limits`] and its
//! [`Sandbox`] mode.

use std::path::PathBuf;

/// Bytes of stderr kept in [`InvokeResult::stderr_tail`](crate::InvokeResult::stderr_tail)
/// and by [`BotProcess::stderr_tail`](crate::BotProcess::stderr_tail).
pub const STDERR_TAIL: usize = 4096;

/// Per-process resource limits, applied with `setrlimit` (soft = hard) in the child before
/// `exec`. `None` = inherited, not limited by us. A limit above the current hard limit is
/// lowered to it (raising hard limits needs privileges).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// `RLIMIT_AS`: virtual address space. Allocation beyond it fails (Python raises
    /// `MemoryError`). Note that some runtimes reserve much more address space than they use
    /// (the JVM needs an explicit `-Xmx`, Go and Node are fine at 2 GiB).
    pub memory_bytes: Option<u64>,
    /// `RLIMIT_CPU`: CPU seconds over the process lifetime (SIGXCPU, then SIGKILL).
    pub cpu_seconds: Option<u64>,
    /// `RLIMIT_NOFILE`: highest file descriptor number + 1.
    pub open_files: Option<u64>,
    /// `RLIMIT_NPROC`: processes + threads **of the whole real uid** (not just this bot);
    /// ignored by the kernel for root and for processes with `CAP_SYS_RESOURCE`/`CAP_SYS_ADMIN`.
    /// Only useful when bots run under a dedicated user. Fork bombs are still contained by
    /// the group kill either way (unless they `setsid`).
    pub processes: Option<u64>,
    /// `RLIMIT_FSIZE`: largest file the bot may write (SIGXFSZ / `EFBIG` beyond).
    pub file_size_bytes: Option<u64>,
    /// Processes and threads of the bot together (cgroup `pids.max`), where cgroups are
    /// available ([`crate::SandboxSupport::cgroups`]); a fork bomb then fails at this count.
    pub tasks: Option<u64>,
    /// Bytes the bot's folder may hold in its sandbox (its private copy is a tmpfs of
    /// this size): a folder filled beyond it gets `ENOSPC`, and a folder larger than
    /// it cannot be started.
    pub folder_bytes: Option<u64>,
}

impl Limits {
    /// No limits at all.
    pub fn none() -> Limits {
        Limits::default()
    }

    /// Sensible defaults for a bot:
    ///
    /// | limit | value | why |
    /// |---|---|---|
    /// | memory (AS) | 2 GiB | plenty for a game bot; stops runaway allocation |
    /// | CPU | 600 s | lifetime backstop against spinning orphans; decision time is enforced by wall-clock timeouts |
    /// | open files | 512 | enough for interpreters and their imports |
    /// | processes | none | per-uid and ignored for root, see [`Limits::processes`] |
    /// | file size | 256 MiB | history/log files of a bot stay small |
    /// | tasks | 256 | processes and threads of the bot together, where cgroups are available |
    /// | folder | 256 MiB | what its folder may hold in its sandbox |
    ///
    /// Where cgroups are available, the memory limit also bounds the bot's processes
    /// together.
    pub fn standard() -> Limits {
        Limits {
            memory_bytes: Some(2 << 30),
            cpu_seconds: Some(600),
            open_files: Some(512),
            processes: None,
            file_size_bytes: Some(256 << 20),
            tasks: Some(256),
            folder_bytes: Some(256 << 20),
        }
    }
}

/// What to run.
#[derive(Clone, Debug)]
pub struct Command {
    /// `argv[0]` and fixed arguments, e.g. `["python3", "bot.py"]`. `argv[0]` is looked up
    /// in `PATH` unless it contains a `/`; a relative path like `./bot` is relative to
    /// `cwd`.
    pub program: Vec<String>,
    /// Working directory of the bot (the only place it may write when sandboxed).
    pub cwd: PathBuf,
    /// The program's own environment variables, added to the few it inherits from the
    /// arena ([`passed_to_bots`](crate::passed_to_bots): `PATH`, `HOME`, `USER`, `LOGNAME`, the locale, `TZ`,
    /// `TERM`); nothing else of the arena's environment reaches it.
    pub env: Vec<(String, String)>,
    pub limits: Limits,
    pub sandbox: Sandbox,
    /// More paths the bot may read when it runs in its own namespaces (a data set, a
    /// shared library folder); its folder, the system and the installation of the
    /// interpreter its command names are always visible. Nothing else is: a path
    /// named among the command's arguments is not shown because it is named there
    /// (give it here).
    pub read_only: Vec<PathBuf>,
    /// Paths the bot must never see, even where it may read (a tournament file beside
    /// it, the run's folder, other bots' folders): each is covered in its sandbox.
    pub hidden: Vec<PathBuf>,
    /// Where its private folder is copied when it ends, to look at (a folder of the
    /// run's, made by the caller; its old content is replaced). `None`: the folder
    /// goes with the sandbox.
    pub keep: Option<PathBuf>,
    /// A file of the run's (koth's, never the bot's) where everything the program
    /// writes to stderr is appended, control characters escaped, up to
    /// [`STDERR_LOG_BYTES`] a process. `None`: only the last 4 KiB are kept.
    pub stderr_log: Option<PathBuf>,
}

/// The most a process's stderr log keeps; a note says where it was cut.
pub const STDERR_LOG_BYTES: u64 = 1 << 20;

/// The most a stderr log file holds over all the processes that append to it
/// (a slot's processes, one after another when they crash): past it nothing more
/// is written, and a note says so.
pub const STDERR_FILE_BYTES: u64 = 8 << 20;

impl Command {
    /// `program` in `cwd`, no extra environment, [`Limits::standard`], [`Sandbox::Auto`].
    pub fn new<I, S>(program: I, cwd: impl Into<PathBuf>) -> Command
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Command {
            program: program.into_iter().map(Into::into).collect(),
            cwd: cwd.into(),
            env: Vec::new(),
            limits: Limits::standard(),
            sandbox: Sandbox::Auto,
            read_only: Vec::new(),
            hidden: Vec::new(),
            keep: None,
            stderr_log: None,
        }
    }

    /// Builder: replaces the limits.
    pub fn with_limits(mut self, limits: Limits) -> Command {
        self.limits = limits;
        self
    }

    /// Builder: sets the sandbox mode.
    pub fn with_sandbox(mut self, sandbox: Sandbox) -> Command {
        self.sandbox = sandbox;
        self
    }

    /// Builder: adds an environment variable.
    pub fn with_env(mut self, key: impl Into<String>, value: impl Into<String>) -> Command {
        self.env.push((key.into(), value.into()));
        self
    }
}

/// `s` as one shell word: quoted when it holds anything a shell would split or
/// expand, for commands shown to the user to copy.
///
/// ```
/// assert_eq!(koth_process::shell_word("a/b.py"), "a/b.py");
/// assert_eq!(koth_process::shell_word("python3 it's.py"), r"'python3 it'\''s.py'");
/// ```
pub fn shell_word(s: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+,:=@".contains(c);
    if !s.is_empty() && s.chars().all(plain) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// How much isolation to apply to a bot.
///
/// * `Auto` (default): use every mechanism [`crate::sandbox_support`] reports, silently run without
///   the ones this machine lacks (callers should tell the user, see [`crate::SandboxSupport::detail`]).
/// * `Off`: no isolation (resource limits and the process group still apply).
/// * `Required`: like `Auto`, but spawning fails with a clear message unless the bot can
///   be put in its own namespaces ([`crate::SandboxSupport::namespaces`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Sandbox {
    #[default]
    Auto,
    Off,
    Required,
}
