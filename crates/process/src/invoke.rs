//! One-shot invocations.

use std::os::fd::OwnedFd;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::spawn::{prepare, spawn_error};
use crate::sys::{self, Exit, ReadOutcome, Tail};
use crate::{Command, STDERR_TAIL};

/// After the leader exits (or is killed) we kill its group and give the pipe readers this
/// long to see end-of-file (a process that escaped the group may keep a pipe open).
const GRACE: Duration = Duration::from_millis(100);

/// Result of [`invoke`].
#[derive(Clone, Debug)]
pub struct InvokeResult {
    pub exit: Exit,
    /// At most `max_stdout` bytes of standard output.
    pub stdout: Vec<u8>,
    /// The program wrote more than `max_stdout` bytes (the rest was read and discarded).
    pub stdout_truncated: bool,
    /// Last ~4 KiB of standard error, lossy UTF-8.
    pub stderr_tail: String,
    /// Wall-clock time from just before spawning to the end of the call.
    pub elapsed: Duration,
    /// Time from just before spawning to the first byte read from standard output.
    pub first_output: Option<Duration>,
}

impl InvokeResult {
    /// `exit == Exit::Code(0)`.
    pub fn success(&self) -> bool {
        self.exit == Exit::Code(0)
    }

    /// Standard output as (lossy) UTF-8.
    pub fn stdout_lossy(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
}

/// Runs `cmd.program ++ args` once, stdin from `/dev/null`, with a wall-clock `timeout`
/// measured from launch.
///
/// On timeout the whole process group is SIGKILLed and the result is [`Exit::TimedOut`].
/// When the main process exits, the rest of its group (background children) is SIGKILLed
/// too, and output they had already written is still collected. Never hangs (beyond
/// `timeout` plus a ~100 ms grace period) and never panics, whatever the program does:
/// endless output without newline (kept up to `max_stdout`, the rest drained and
/// discarded), stderr floods (last 4 KiB kept), forked children holding the pipes open.
pub fn invoke(
    cmd: &Command,
    args: &[String],
    timeout: Duration,
    max_stdout: usize,
) -> InvokeResult {
    let start = Instant::now();
    let fail = |msg: String| InvokeResult {
        exit: Exit::SpawnFailed(msg),
        stdout: Vec::new(),
        stdout_truncated: false,
        stderr_tail: String::new(),
        elapsed: start.elapsed(),
        first_output: None,
    };
    let mut prepared = match prepare(cmd, args) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    prepared
        .cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = match prepared.cmd.spawn() {
        Ok(c) => c,
        Err(e) => return fail(spawn_error(cmd, &e)),
    };
    let guard = prepared.into_guard();
    let pid = child.id() as libc::pid_t;
    let out: Option<OwnedFd> = child.stdout.take().map(OwnedFd::from);
    let err: Option<OwnedFd> = child.stderr.take().map(OwnedFd::from);
    for fd in out.iter().chain(err.iter()) {
        let _ = sys::set_nonblocking(fd);
    }
    let pidfd = sys::pidfd_open(pid);
    let deadline = start.checked_add(timeout);

    let mut out_fd = out;
    let mut err_fd = err;
    let mut stdout = Vec::new();
    let mut truncated = false;
    let mut tail = Tail::new(STDERR_TAIL);
    let mut exit: Option<Exit> = None;
    let mut timed_out = false;
    let mut grace: Option<Instant> = None;
    let mut scratch = vec![0u8; 64 * 1024];
    let mut first_output = None;

    loop {
        if exit.is_none() {
            if let Some(e) = sys::peek_exit(pid) {
                // Leader is a zombie: its pgid is still reserved, kill the stragglers.
                sys::kill_group(pid);
                guard.kill_all();
                let _ = child.wait();
                exit = Some(guard.exit(e));
                grace = Some(Instant::now() + GRACE);
            }
        }
        if exit.is_some() && out_fd.is_none() && err_fd.is_none() {
            break;
        }
        let now = Instant::now();
        let limit = grace.or(deadline);
        if limit.is_some_and(|l| now >= l) {
            if exit.is_none() {
                timed_out = true;
                sys::kill_group(pid);
                guard.kill_all();
                let _ = child.kill();
                exit = Some(match child.wait() {
                    Ok(st) => sys::exit_from_status(st),
                    Err(_) => Exit::Signal(libc::SIGKILL),
                });
                grace = Some(Instant::now() + GRACE);
                continue;
            }
            break;
        }

        let mut fds = [sys::pollfd(&0, 0); 3];
        let mut n = 0;
        let mut idx_out = usize::MAX;
        let mut idx_err = usize::MAX;
        if let Some(fd) = &out_fd {
            fds[n] = sys::pollfd(fd, libc::POLLIN);
            idx_out = n;
            n += 1;
        }
        if let Some(fd) = &err_fd {
            fds[n] = sys::pollfd(fd, libc::POLLIN);
            idx_err = n;
            n += 1;
        }
        let mut poll_limit = limit;
        if exit.is_none() {
            match &pidfd {
                Some(p) => {
                    fds[n] = sys::pollfd(p, libc::POLLIN);
                    n += 1;
                }
                None => {
                    // No pidfd: check for exit every 2 ms.
                    let tick = now + Duration::from_millis(2);
                    poll_limit = Some(poll_limit.map_or(tick, |l| l.min(tick)));
                }
            }
        }
        if sys::poll_until(&mut fds[..n], poll_limit).is_err() {
            // Should not happen; avoid spinning.
            std::thread::sleep(Duration::from_millis(1));
            continue;
        }
        if idx_out != usize::MAX && fds[idx_out].revents != 0 {
            if let Some(fd) = &out_fd {
                match sys::read_once(fd, &mut scratch) {
                    Ok(ReadOutcome::Data(k)) => {
                        first_output.get_or_insert_with(|| start.elapsed());
                        let room = max_stdout.saturating_sub(stdout.len());
                        if k > room {
                            truncated = true;
                        }
                        stdout.extend_from_slice(&scratch[..k.min(room)]);
                    }
                    Ok(ReadOutcome::WouldBlock) => {}
                    Ok(ReadOutcome::Eof) | Err(_) => out_fd = None,
                }
            }
        }
        if idx_err != usize::MAX && fds[idx_err].revents != 0 {
            if let Some(fd) = &err_fd {
                match sys::read_once(fd, &mut scratch) {
                    Ok(ReadOutcome::Data(k)) => tail.push(&scratch[..k]),
                    Ok(ReadOutcome::WouldBlock) => {}
                    Ok(ReadOutcome::Eof) | Err(_) => err_fd = None,
                }
            }
        }
    }

    drop(guard);
    InvokeResult {
        exit: if timed_out {
            Exit::TimedOut
        } else {
            exit.unwrap_or(Exit::Signal(libc::SIGKILL))
        },
        stdout,
        stdout_truncated: truncated,
        stderr_tail: tail.text(),
        elapsed: start.elapsed(),
        first_output,
    }
}
