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
//! **sandbox** ([`Sandbox`], [`sandbox_support`]): its own user, PID, mount, IPC, UTS and
//! network namespaces through bubblewrap (no network at all, not even loopback), a
//! seccomp filter, and a control group of its own where one can be made. What it sees
//! is built up: its folder (a private copy), the system folders and its interpreter's
//! installation read-only, a private `/tmp`, and the paths its operator lists in
//! [`Command::read_only`]; nothing its command's arguments name is shown for that.
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
//! * Without cgroups, a program that calls `setsid`/`setpgid` leaves our process group;
//!   in its sandbox it still dies with it (its PID namespace ends with the launcher).
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
//! * Linux only (`pidfd_open`, `ppoll`, seccomp, namespaces through bubblewrap).

mod bot;
mod cgroup;
mod command;
mod folder;
mod frames;
mod fsafe;
mod invoke;
pub mod launcher;
mod ns;
mod sandbox;
mod seccomp;
mod session;
mod spawn;
mod sys;
mod text;
mod tools;

pub use bot::{BotProcess, ProcessError, DEFAULT_WRITE_TIMEOUT};
pub use command::{
    shell_word, Command, Limits, Sandbox, STDERR_FILE_BYTES, STDERR_LOG_BYTES, STDERR_TAIL,
};
pub use folder::{
    absolute, copy_tree, file_name_of, shown_in_place, ScratchDir, Workspace, MAX_COPY_BYTES,
    MAX_COPY_FILES,
};
pub use fsafe::{read_beneath, write_beneath};
pub use invoke::{invoke, InvokeResult};
pub use sandbox::{sandbox_support, SandboxSupport};
pub use session::{Move, Moved, Session};
pub use spawn::passed_to_bots;
pub use sys::{usage, Exit, Usage, Who};
pub use text::{machine_error, printable};
pub use tools::operator_paths;

/// Raises this process's soft limit of open files to its hard limit (what a
/// server that starts many bots does first) and gives the limit now in force.
pub fn raise_open_files() -> u64 {
    use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
    let r = getrlimit(Resource::Nofile);
    let soft = r.current.unwrap_or(u64::MAX);
    match r.maximum {
        Some(hard) if hard > soft => {
            let raised = Rlimit {
                current: Some(hard),
                maximum: Some(hard),
            };
            if setrlimit(Resource::Nofile, raised).is_ok() {
                hard
            } else {
                soft
            }
        }
        _ => soft,
    }
}
