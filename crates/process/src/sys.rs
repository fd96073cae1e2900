//! Thin, panic-free wrappers around the raw system calls this crate uses.

use std::io;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::time::{Duration, Instant};

/// `errno` of the last failed call, as an `io::Error` (no allocation).
pub(crate) fn last_err() -> io::Error {
    io::Error::last_os_error()
}

/// Puts `fd` into non-blocking mode.
pub(crate) fn set_nonblocking(fd: impl AsFd) -> io::Result<()> {
    use rustix::fs::{fcntl_getfl, fcntl_setfl, OFlags};
    let flags = fcntl_getfl(&fd)?;
    fcntl_setfl(&fd, flags | OFlags::NONBLOCK)?;
    Ok(())
}

/// Bytes waiting to be read in a pipe (0 on error).
pub(crate) fn unread_bytes(fd: impl AsFd) -> usize {
    rustix::io::ioctl_fionread(fd).map_or(0, |n| n as usize)
}

/// A close-on-exec pipe: (read end, write end).
pub(crate) fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    Ok(rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)?)
}

/// A pidfd for `pid` (Linux 5.3+), used only to wake `poll` when the process exits.
pub(crate) fn pidfd_open(pid: libc::pid_t) -> Option<OwnedFd> {
    let pid = rustix::process::Pid::from_raw(pid)?;
    rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()).ok()
}

/// SIGKILL every process of the process group `pgid` (ignores errors: the group may be gone).
pub(crate) fn kill_group(pgid: libc::pid_t) {
    if pgid <= 1 {
        return;
    }
    if let Some(group) = rustix::process::Pid::from_raw(pgid) {
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
    }
}

/// Has `pid` (our child) terminated? Does not reap it, so its pid stays reserved and
/// its process group can still be signalled.
pub(crate) fn peek_exit(pid: libc::pid_t) -> Option<Exit> {
    // SAFETY: zeroed siginfo_t is a valid value; waitid fills it in.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        loop {
            let r = libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
            );
            if r == 0 {
                break;
            }
            match io::Error::last_os_error().raw_os_error() {
                Some(libc::EINTR) => continue,
                // Someone else reaped it (e.g. the host set SIGCHLD to SIG_IGN): it is
                // gone, with an unknown status.
                Some(libc::ECHILD) => return Some(Exit::Code(-1)),
                _ => return None,
            }
        }
        if info.si_pid() == 0 {
            return None;
        }
        let status = info.si_status();
        Some(match info.si_code {
            libc::CLD_EXITED => Exit::Code(status),
            _ => Exit::Signal(status),
        })
    }
}

/// Converts a std exit status.
pub(crate) fn exit_from_status(st: std::process::ExitStatus) -> Exit {
    use std::os::unix::process::ExitStatusExt;
    match (st.code(), st.signal()) {
        (Some(c), _) => Exit::Code(c),
        (None, Some(s)) => Exit::Signal(s),
        (None, None) => Exit::Code(-1),
    }
}

fn to_timespec(d: Duration) -> libc::timespec {
    libc::timespec {
        tv_sec: d.as_secs().min(i32::MAX as u64) as libc::time_t,
        tv_nsec: d.subsec_nanos() as libc::c_long,
    }
}

/// `ppoll` until `deadline` (None = forever). Returns the number of ready descriptors
/// (0 on timeout). Retries on EINTR.
pub(crate) fn poll_until(fds: &mut [libc::pollfd], deadline: Option<Instant>) -> io::Result<usize> {
    loop {
        let ts = deadline.map(|d| to_timespec(d.saturating_duration_since(Instant::now())));
        let tsp = ts
            .as_ref()
            .map_or(std::ptr::null(), |t| t as *const libc::timespec);
        // SAFETY: `fds` is a valid slice of pollfd; `tsp` is null or points to a live timespec.
        let r = unsafe {
            libc::ppoll(
                fds.as_mut_ptr(),
                fds.len() as libc::nfds_t,
                tsp,
                std::ptr::null(),
            )
        };
        if r >= 0 {
            return Ok(r as usize);
        }
        let e = last_err();
        if e.raw_os_error() != Some(libc::EINTR) {
            return Err(e);
        }
    }
}

pub(crate) fn pollfd(fd: &impl AsRawFd, events: libc::c_short) -> libc::pollfd {
    libc::pollfd {
        fd: fd.as_raw_fd(),
        events,
        revents: 0,
    }
}

/// Outcome of one `read`.
pub(crate) enum ReadOutcome {
    Data(usize),
    Eof,
    WouldBlock,
}

/// One `read(2)` into `buf`, retrying on EINTR. Errors other than EAGAIN are treated as EOF
/// by callers that only care whether the stream is still alive.
pub(crate) fn read_once(fd: impl AsFd, buf: &mut [u8]) -> io::Result<ReadOutcome> {
    loop {
        match rustix::io::read(&fd, &mut *buf) {
            Ok(0) => return Ok(ReadOutcome::Eof),
            Ok(n) => return Ok(ReadOutcome::Data(n)),
            Err(rustix::io::Errno::INTR) => continue,
            Err(rustix::io::Errno::AGAIN) => return Ok(ReadOutcome::WouldBlock),
            Err(e) => return Err(e.into()),
        }
    }
}

/// Whose resources [`usage`] measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Who {
    /// This process, every thread of it (not its children: bots are those).
    Process,
    /// The calling thread alone.
    Thread,
}

/// What a process or a thread has used so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// CPU time in user mode.
    pub user: Duration,
    /// CPU time in the kernel.
    pub system: Duration,
    /// The most resident memory it held at once, in KiB (the process's, even
    /// for a thread).
    pub peak_rss_kib: u64,
}

/// The resources `who` has used so far (`getrusage(2)`; zeros if it fails).
pub fn usage(who: Who) -> Usage {
    let who = match who {
        Who::Process => libc::RUSAGE_SELF,
        Who::Thread => libc::RUSAGE_THREAD,
    };
    // SAFETY: getrusage fills the struct it is given, which is valid and ours;
    // all-zero bytes are a valid rusage.
    let mut r: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(who, &mut r) } != 0 {
        return Usage::default();
    }
    let tv =
        |t: libc::timeval| Duration::new(t.tv_sec.max(0) as u64, t.tv_usec.max(0) as u32 * 1000);
    Usage {
        user: tv(r.ru_utime),
        system: tv(r.ru_stime),
        peak_rss_kib: r.ru_maxrss.max(0) as u64,
    }
}

/// Last `cap` bytes of a byte stream.
#[derive(Debug)]
pub(crate) struct Tail {
    buf: Vec<u8>,
    cap: usize,
    /// Bytes pushed since the start.
    total: u64,
}

impl Tail {
    pub(crate) fn new(cap: usize) -> Tail {
        Tail {
            buf: Vec::new(),
            cap,
            total: 0,
        }
    }

    pub(crate) fn push(&mut self, data: &[u8]) {
        self.total += data.len() as u64;
        if data.len() >= self.cap {
            self.buf.clear();
            self.buf.extend_from_slice(&data[data.len() - self.cap..]);
            return;
        }
        self.buf.extend_from_slice(data);
        if self.buf.len() > 2 * self.cap {
            let cut = self.buf.len() - self.cap;
            self.buf.drain(..cut);
        }
    }

    /// Bytes pushed since the start.
    pub(crate) fn total(&self) -> u64 {
        self.total
    }

    /// The whole lines pushed after byte `pos` that are still held (older ones
    /// are lost), and the position after the last of them.
    pub(crate) fn lines_since(&self, pos: u64) -> (String, u64) {
        let held_from = self.total - self.buf.len() as u64;
        let start = (pos.max(held_from) - held_from) as usize;
        let fresh = &self.buf[start..];
        match fresh.iter().rposition(|&b| b == b'\n') {
            Some(end) => (
                crate::printable(&String::from_utf8_lossy(&fresh[..=end])),
                held_from + (start + end + 1) as u64,
            ),
            None => (String::new(), pos.max(held_from)),
        }
    }

    /// The last bytes held, as text with its control characters escaped
    /// ([`crate::printable`]).
    pub(crate) fn text(&self) -> String {
        let start = self.buf.len().saturating_sub(self.cap);
        crate::printable(&String::from_utf8_lossy(&self.buf[start..]))
    }
}

/// How a one-shot invocation ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Exited normally with this status code.
    Code(i32),
    /// Killed by this signal (e.g. 9 after a memory/CPU limit SIGKILL, 24 = SIGXCPU,
    /// 25 = SIGXFSZ, 11 = SIGSEGV).
    Signal(i32),
    /// Did not exit within the wall-clock timeout; its whole process group was killed.
    TimedOut,
    /// Could not be started; the message names the program.
    SpawnFailed(String),
}

/// Runs `f` in a forked child and reports whether it returned true. `f` must only make raw
/// system calls (no allocation, no locks): the child of a multi-threaded parent.
pub(crate) fn probe_child(f: impl Fn() -> bool) -> bool {
    // SAFETY: the child only runs `f` (raw syscalls) and `_exit`s.
    unsafe {
        let pid = libc::fork();
        if pid < 0 {
            return false;
        }
        if pid == 0 {
            let ok = f();
            libc::_exit(if ok { 0 } else { 1 });
        }
        let mut status = 0;
        loop {
            let r = libc::waitpid(pid, &mut status, 0);
            if r == pid {
                break;
            }
            if r < 0 && io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                return false;
            }
        }
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0
    }
}

#[cfg(test)]
mod tests {
    use super::Tail;

    #[test]
    fn tail_keeps_last_bytes() {
        let mut t = Tail::new(4);
        t.push(b"ab");
        assert_eq!(t.text(), "ab");
        t.push(b"cdef");
        assert_eq!(t.text(), "cdef");
        t.push(b"g");
        assert_eq!(t.text(), "defg");
        for _ in 0..100 {
            t.push(b"xy");
        }
        assert_eq!(t.text(), "xyxy");
        t.push(b"0123456789");
        assert_eq!(t.text(), "6789");
    }

    #[test]
    fn lines_since_gives_whole_new_lines_once() {
        let mut t = Tail::new(64);
        t.push(b"one\ntw");
        let (s, p) = t.lines_since(0);
        assert_eq!(s, "one\n");
        t.push(b"o\nthree");
        let (s, p) = t.lines_since(p);
        assert_eq!(s, "two\n");
        let (s, p2) = t.lines_since(p);
        assert_eq!((s.as_str(), p2), ("", p));
        // Lines lost to the cap are skipped, not repeated.
        t.push(&[b'x'; 100]);
        t.push(b"\nlast\n");
        let (s, _) = t.lines_since(p);
        assert!(s.ends_with("x\nlast\n") && s.len() <= 128, "{s}");
    }
}
