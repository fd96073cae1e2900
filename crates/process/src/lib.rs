//! Hardened runtime for untrusted external bot programs (game-agnostic).
//!
//! Two ways to run a bot:
//!
//! * [`invoke`]: one-shot, a program launched once per decision with arguments, whose
//!   standard output (capped) and exit status are collected under a wall-clock timeout;
//! * [`BotProcess`]: a long-lived process speaking a line protocol over stdin/stdout.
//!
//! Every bot runs in its own **process group** (killed as a whole with SIGKILL on timeout,
//! on [`BotProcess::kill`] and on drop), under **resource limits** ([`Limits`], applied
//! with `setrlimit` between fork and exec) and, when the machine supports it, a
//! **sandbox** ([`Sandbox`], [`sandbox_support`]): a fresh network namespace (no network at
//! all, not even loopback) and a landlock ruleset that allows reading and executing
//! anything but writing only beneath the bot's working directory and to `/dev/null`
//! (`TMPDIR` is pointed at the working directory unless the command sets it).
//!
//! Standard error is always drained (a flood never blocks the bot) and its last 4 KiB are
//! kept for diagnostics. Nothing here panics on bad input or misbehaving programs.
//!
//! ```no_run
//! use std::time::Duration;
//! use koth_process::{invoke, sandbox_support, BotProcess, Command, Exit};
//!
//! println!("sandbox: {}", sandbox_support().detail);
//!
//! // One-shot.
//! let cmd = Command::new(["python3", "bot.py"], "bots/alice");
//! let r = invoke(&cmd, &["history".to_string()], Duration::from_secs(1), 4096);
//! match r.exit {
//!     Exit::Code(0) => println!("move: {}", r.stdout_lossy().trim()),
//!     other => eprintln!("bot failed: {other:?}\n{}", r.stderr_tail),
//! }
//!
//! // Persistent.
//! let mut bot = BotProcess::spawn(&Command::new(["./bot"], "bots/bob"))?;
//! bot.send_line(r#"{"type":"start"}"#)?;
//! let reply = bot.read_line(Duration::from_millis(500), 64 * 1024)?;
//! println!("{reply} / stderr: {}", bot.stderr_tail());
//! bot.kill();
//! # Ok::<(), koth_process::ProcessError>(())
//! ```
//!
//! # Caveats
//!
//! * A program that calls `setsid`/`setpgid` leaves our process group and survives the group
//!   kill (it is still confined by its limits and sandbox). Real containment of such a bot
//!   needs cgroups or a PID namespace, which this crate does not use.
//! * `RLIMIT_NPROC` counts all processes *and threads* of the real user id, the arena's own
//!   included, and is not enforced at all for root (or with `CAP_SYS_RESOURCE`): it is only
//!   meaningful when bots run under a dedicated user. [`Limits::standard`] leaves it unset.
//! * `RLIMIT_CPU` is per process and cumulative: a persistent bot accumulates CPU time over
//!   all the games it plays. Per-decision time is enforced by the wall-clock timeouts.
//! * Cost: a persistent-bot round trip costs ~7 µs of the caller's CPU (three system
//!   calls; plain blocking std pipes cost ~5.7 µs on the same machine). A one-shot
//!   [`invoke`] costs ~0.2 ms more than a bare `std::process::Command::status()` (the
//!   `pre_exec` hook forces `fork` instead of `vfork`), plus ~0.5–1 ms with the sandbox
//!   (creating a network namespace per process). Run `examples/roundtrip.rs` to measure.
//! * `send_line` to a dead bot returns [`ProcessError::Closed`] because Rust programs ignore
//!   `SIGPIPE`; a host that restores the default `SIGPIPE` disposition would be killed.
//! * Each [`BotProcess`] has one small helper thread draining stderr.
//! * Linux only (raw `landlock`, `pidfd_open`, `ppoll`, `unshare` system calls).

mod bot;
mod cgroup;
mod folder;
mod invoke;
mod ns;
mod sandbox;
mod spawn;
mod sys;

use std::path::PathBuf;

pub use bot::{BotProcess, ProcessError, DEFAULT_WRITE_TIMEOUT};
pub use folder::{absolute, copy_tree, ScratchDir, Workspace};
pub use invoke::{invoke, Exit, InvokeResult};
pub use sandbox::{sandbox_support, Sandbox, SandboxSupport};
pub use spawn::passed_to_bots;

/// Bytes of stderr kept by [`InvokeResult::stderr_tail`] and [`BotProcess::stderr_tail`].
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
    /// available ([`SandboxSupport::cgroups`]); a fork bomb then fails at this count.
    pub tasks: Option<u64>,
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
    /// arena ([`passed_to_bots`]: `PATH`, `HOME`, `USER`, `LOGNAME`, the locale, `TZ`,
    /// `TERM`); nothing else of the arena's environment reaches it.
    pub env: Vec<(String, String)>,
    pub limits: Limits,
    pub sandbox: Sandbox,
    /// More paths the bot may read when it runs in its own namespaces (a data set, a
    /// shared library folder); its folder, the system and the tools on `PATH` are
    /// always visible, as are absolute paths named in `program`.
    pub read_only: Vec<PathBuf>,
}

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

    /// Whether this command can be started here (its folder exists, its program is
    /// found, the sandbox it requires can be had), without starting it. The message
    /// names the program and the reason.
    ///
    /// ```
    /// let c = koth_process::Command::new(["no-such-interpreter", "bot.py"], ".");
    /// assert!(c.check().unwrap_err().contains("not found on PATH"));
    /// ```
    pub fn check(&self) -> Result<(), String> {
        spawn::prepare(self, &[]).map(drop)
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
