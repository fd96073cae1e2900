//! Persistent bots speaking a line protocol over stdin/stdout.

use std::os::fd::{AsRawFd, OwnedFd};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::spawn::{prepare, spawn_error, Guard};
use crate::sys::{self, ReadOutcome, Tail};
use crate::{Command, Exit, STDERR_TAIL};

/// Errors talking to a [`BotProcess`].
#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    /// The bot could not be started (message names the program and the reason).
    #[error("cannot start bot: {0}")]
    Spawn(String),
    /// `read_line` got no complete line in time, or `send_line` could not hand the line to
    /// a bot that stopped reading its input within the write timeout.
    #[error("bot did not respond within {0:?}")]
    Timeout(Duration),
    /// The bot wrote this many bytes without a newline, more than `max_len`.
    #[error("bot wrote a line longer than allowed ({0} bytes without newline)")]
    LineTooLong(usize),
    /// End of file: the bot exited, was killed, or closed its stdout/stdin.
    #[error("bot closed the connection (exited or closed its output)")]
    Closed,
    /// Unexpected I/O error.
    #[error("I/O error talking to bot: {0}")]
    Io(String),
    /// The machine could not start the bot: it ran out of file descriptors,
    /// memory, processes or disk ([`crate::machine_error`]). No fault of the bot's.
    #[error("the machine could not start the bot: {0}")]
    Machine(String),
}

impl ProcessError {
    /// A spawn failure, as [`ProcessError::Machine`] when the machine is to blame.
    fn spawn(message: String) -> ProcessError {
        if crate::text::machine_error(&message) {
            ProcessError::Machine(message)
        } else {
            ProcessError::Spawn(message)
        }
    }
}

/// Default time `send_line` waits for a bot that is not reading its input.
pub const DEFAULT_WRITE_TIMEOUT: Duration = Duration::from_secs(10);

/// A long-lived bot process speaking lines over stdin/stdout.
///
/// * stdout is read in the caller's thread with `ppoll` + a buffered reader (no thread hop,
///   a round trip costs three system calls of our own);
/// * stderr is drained continuously by one small helper thread into a 4 KiB tail, so a bot
///   flooding stderr never blocks;
/// * stdin is non-blocking: `send_line` gives up after [`BotProcess::write_timeout`].
///
/// The bot runs in its own process group; [`BotProcess::kill`] (also run on drop) SIGKILLs
/// the whole group and reaps the bot.
pub struct BotProcess {
    child: std::process::Child,
    pid: libc::pid_t,
    stdin: Option<OwnedFd>,
    stdout: Option<OwnedFd>,
    buf: Vec<u8>,
    /// Start of unconsumed data in `buf`.
    pos: usize,
    /// `buf[pos..scan]` is known to contain no newline.
    scan: usize,
    /// Skipping the remainder of an over-long line.
    discarding: bool,
    eof: bool,
    wbuf: Vec<u8>,
    write_timeout: Duration,
    stderr: Arc<Mutex<Tail>>,
    stderr_stop: Option<OwnedFd>,
    stderr_peek: Option<OwnedFd>,
    stderr_thread: Option<JoinHandle<()>>,
    exit: Option<Exit>,
    reaped: bool,
    guard: Option<Guard>,
    pidfd: Option<OwnedFd>,
    /// Its folder is kept when it ends: it is asked to end (its input closed) and
    /// given [`KEEP_GRACE`] before it is killed, so the launcher can copy it out.
    keep: bool,
}

/// How long a bot whose folder is kept has to end by itself once its input is
/// closed, before it is killed (and its folder goes with it).
pub const KEEP_GRACE: Duration = Duration::from_secs(3);

impl std::fmt::Debug for BotProcess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BotProcess")
            .field("pid", &self.pid)
            .field("exit", &self.exit)
            .finish_non_exhaustive()
    }
}

const READ_CHUNK: usize = 64 * 1024;

impl BotProcess {
    /// Starts the bot (process group, limits and sandbox from `cmd`).
    pub fn spawn(cmd: &Command) -> Result<BotProcess, ProcessError> {
        let mut prepared = prepare(cmd, &[]).map_err(ProcessError::spawn)?;
        let keep = cmd.keep.is_some() && prepared.wrapped;
        prepared
            .cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let (back, spawned) = crate::spawn::spawn_kept(std::mem::replace(
            &mut prepared.cmd,
            std::process::Command::new("/"),
        ));
        prepared.cmd = back;
        let mut child = spawned.map_err(|e| ProcessError::spawn(spawn_error(cmd, &e)))?;
        let guard = prepared.into_guard();
        let pid = child.id() as libc::pid_t;
        let kill_now = |child: &mut std::process::Child, msg: String| {
            sys::kill_group(pid);
            guard.kill_all();
            let _ = child.kill();
            let _ = child.wait();
            ProcessError::spawn(msg)
        };
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(kill_now(&mut child, "pipes missing".into()));
        };
        let stdin = OwnedFd::from(stdin);
        let stdout = OwnedFd::from(stdout);
        let stderr = OwnedFd::from(stderr);
        // stderr too: the reader drains it when stopping and must never block there
        // (a process that escaped the kill could still hold its write end).
        for fd in [&stdin, &stdout, &stderr] {
            if let Err(e) = sys::set_nonblocking(fd) {
                return Err(kill_now(&mut child, format!("fcntl: {e}")));
            }
        }
        let (stop_r, stop_w) = match sys::pipe() {
            Ok(p) => p,
            Err(e) => return Err(kill_now(&mut child, format!("pipe: {e}"))),
        };
        // A second handle on stderr only to ask how much is still unread.
        let stderr_peek = stderr.try_clone().ok();
        let tail = Arc::new(Mutex::new(Tail::new(STDERR_TAIL)));
        let tail2 = Arc::clone(&tail);
        // The run's log of this process's stderr: a file of koth's, opened here.
        let log = match &cmd.stderr_log {
            Some(path) => match std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
            {
                Ok(mut f) => {
                    use std::io::Write;
                    // A slot's later processes (after a crash) follow in the same file,
                    // within the file's budget: a bot that floods and crashes over
                    // and over fills it once.
                    let len = f.metadata().map_or(0, |m| m.len());
                    let budget = crate::STDERR_FILE_BYTES.saturating_sub(len);
                    if len > 0 && budget > 0 {
                        let _ = writeln!(f, "\n[koth: the next process of this slot]");
                    }
                    Some(Log {
                        file: f,
                        left: budget.min(crate::STDERR_LOG_BYTES),
                        cut_by_file: budget <= crate::STDERR_LOG_BYTES,
                    })
                }
                Err(e) => {
                    return Err(kill_now(
                        &mut child,
                        format!("cannot open {}: {e}", path.display()),
                    ))
                }
            },
            None => None,
        };
        let thread = std::thread::Builder::new()
            .name(format!("bot-{pid}-stderr"))
            .stack_size(64 * 1024)
            .spawn(move || stderr_loop(stderr, stop_r, tail2, log));
        let thread = match thread {
            Ok(t) => t,
            Err(e) => return Err(kill_now(&mut child, format!("stderr thread: {e}"))),
        };
        Ok(BotProcess {
            child,
            pid,
            stdin: Some(stdin),
            stdout: Some(stdout),
            buf: Vec::with_capacity(READ_CHUNK),
            pos: 0,
            scan: 0,
            discarding: false,
            eof: false,
            wbuf: Vec::new(),
            write_timeout: DEFAULT_WRITE_TIMEOUT,
            stderr: tail,
            stderr_stop: Some(stop_w),
            stderr_peek,
            stderr_thread: Some(thread),
            exit: None,
            reaped: false,
            pidfd: sys::pidfd_open(pid),
            guard: Some(guard),
            keep,
        })
    }

    /// Process id (also the process-group id) of the bot.
    pub fn pid(&self) -> u32 {
        self.pid as u32
    }

    /// How long `send_line` waits for a bot that does not read its input.
    pub fn write_timeout(&self) -> Duration {
        self.write_timeout
    }

    /// Sets how long `send_line` may wait for pipe space (default 10 s).
    pub fn set_write_timeout(&mut self, timeout: Duration) {
        self.write_timeout = timeout;
    }

    /// Writes `line` followed by `'\n'` (the text is sent verbatim: embedded newlines make
    /// several protocol lines). Returns [`ProcessError::Closed`] if the bot is gone and
    /// [`ProcessError::Timeout`] if it stopped reading for longer than the write timeout
    /// (part of the line may then have been written: treat the bot as broken).
    pub fn send_line(&mut self, line: &str) -> Result<(), ProcessError> {
        let mut wbuf = std::mem::take(&mut self.wbuf);
        wbuf.clear();
        wbuf.extend_from_slice(line.as_bytes());
        wbuf.push(b'\n');
        let r = self.send_bytes(&wbuf);
        self.wbuf = wbuf;
        r
    }

    /// Writes `bytes` verbatim (several protocol lines at once, each ending in
    /// `'\n'`), with the errors of [`BotProcess::send_line`].
    pub fn send_bytes(&mut self, bytes: &[u8]) -> Result<(), ProcessError> {
        let Some(fd) = &self.stdin else {
            return Err(ProcessError::Closed);
        };
        let raw = fd.as_raw_fd();
        let mut off = 0;
        let mut deadline: Option<Option<Instant>> = None;
        while off < bytes.len() {
            let rest = &bytes[off..];
            // SAFETY: valid buffer and length.
            let r = unsafe { libc::write(raw, rest.as_ptr().cast(), rest.len()) };
            if r > 0 {
                off += r as usize;
                continue;
            }
            let e = sys::last_err();
            match e.raw_os_error() {
                Some(libc::EINTR) => continue,
                Some(libc::EAGAIN) => {
                    let d = *deadline
                        .get_or_insert_with(|| Instant::now().checked_add(self.write_timeout));
                    let mut fds = [sys::pollfd(fd, libc::POLLOUT)];
                    match sys::poll_until(&mut fds, d) {
                        Ok(0) => return Err(ProcessError::Timeout(self.write_timeout)),
                        Ok(_) => {
                            if fds[0].revents & (libc::POLLERR | libc::POLLHUP) != 0
                                && fds[0].revents & libc::POLLOUT == 0
                            {
                                self.stdin = None;
                                return Err(ProcessError::Closed);
                            }
                        }
                        Err(e) => return Err(ProcessError::Io(e.to_string())),
                    }
                }
                Some(libc::EPIPE) => {
                    self.stdin = None;
                    return Err(ProcessError::Closed);
                }
                _ => return Err(ProcessError::Io(e.to_string())),
            }
        }
        Ok(())
    }

    /// Closes the bot's standard input (it sees end-of-file).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Whether output is already waiting to be read (a line buffered, or bytes
    /// in the pipe): the next [`BotProcess::read_line`] then does not wait for
    /// the program. Tells a program's answer time from the time it sat unread.
    pub fn output_waiting(&self) -> bool {
        if self.eof || self.buf[self.scan.min(self.buf.len())..].contains(&b'\n') {
            return true;
        }
        let Some(fd) = &self.stdout else {
            return true;
        };
        let mut fds = [sys::pollfd(fd, libc::POLLIN)];
        matches!(sys::poll_until(&mut fds, Some(Instant::now())), Ok(n) if n > 0)
    }

    /// Reads one line (without the trailing `"\n"` or `"\r\n"`), waiting at most `timeout`.
    ///
    /// * [`ProcessError::Timeout`]: no complete line in time (a partial line stays
    ///   buffered and is completed by a later call);
    /// * [`ProcessError::LineTooLong`]: more than `max_len` bytes before the newline; the
    ///   rest of that line is skipped by the next calls;
    /// * [`ProcessError::Closed`]: end of file and no buffered data (a final line without
    ///   newline is returned once before that).
    ///
    /// Invalid UTF-8 is replaced (lossy).
    pub fn read_line(&mut self, timeout: Duration, max_len: usize) -> Result<String, ProcessError> {
        let deadline = Instant::now().checked_add(timeout);
        loop {
            if let Some(r) = self.take_line(max_len) {
                return r;
            }
            if self.eof {
                let len = self.buf.len() - self.pos;
                if len > 0 && !self.discarding {
                    let s = line_string(&self.buf[self.pos..]);
                    self.pos = self.buf.len();
                    self.scan = self.pos;
                    return Ok(s);
                }
                return Err(ProcessError::Closed);
            }
            let Some(fd) = &self.stdout else {
                return Err(ProcessError::Closed);
            };
            let raw = fd.as_raw_fd();
            let mut fds = [sys::pollfd(fd, libc::POLLIN), sys::pollfd(fd, 0)];
            let mut n = 1;
            if let Some(p) = &self.pidfd {
                // The bot's own exit ends the wait, even if a child of it still holds
                // its output open: the reason is then "exited", not "timeout".
                fds[1] = sys::pollfd(p, libc::POLLIN);
                n = 2;
            }
            match sys::poll_until(&mut fds[..n], deadline) {
                Ok(0) => return Err(ProcessError::Timeout(timeout)),
                Ok(_) => {}
                Err(e) => return Err(ProcessError::Io(e.to_string())),
            }
            if n == 2 && fds[1].revents != 0 {
                // Take what it wrote before exiting, then treat its output as closed.
                loop {
                    let before = self.buf.len();
                    self.fill(raw)?;
                    if self.eof || self.buf.len() == before {
                        break;
                    }
                }
                self.pidfd = None;
                self.eof = true;
                continue;
            }
            self.fill(raw)?;
        }
    }

    /// Reads what is available into the buffer.
    fn fill(&mut self, raw: libc::c_int) -> Result<(), ProcessError> {
        if self.pos == self.buf.len() {
            self.buf.clear();
            self.pos = 0;
            self.scan = 0;
        } else if self.pos > 0 && self.buf.capacity() - self.buf.len() < READ_CHUNK / 4 {
            self.buf.drain(..self.pos);
            self.scan -= self.pos;
            self.pos = 0;
        }
        self.buf.reserve(READ_CHUNK);
        let len = self.buf.len();
        let spare = self.buf.capacity() - len;
        loop {
            // SAFETY: reading into the vector's reserved, uninitialised tail; only the
            // `n` bytes the kernel wrote are then exposed through `set_len`.
            let r = unsafe { libc::read(raw, self.buf.as_mut_ptr().add(len).cast(), spare) };
            if r > 0 {
                // SAFETY: `r <= spare` bytes were initialised by read(2).
                unsafe { self.buf.set_len(len + r as usize) };
                return Ok(());
            }
            if r == 0 {
                self.eof = true;
                return Ok(());
            }
            let e = sys::last_err();
            match e.raw_os_error() {
                Some(libc::EINTR) => continue,
                Some(libc::EAGAIN) => return Ok(()),
                _ => return Err(ProcessError::Io(e.to_string())),
            }
        }
    }

    /// A complete line (or over-long error) from the buffer, if there is one.
    fn take_line(&mut self, max_len: usize) -> Option<Result<String, ProcessError>> {
        loop {
            let nl = self.buf[self.scan..]
                .iter()
                .position(|&b| b == b'\n')
                .map(|i| self.scan + i);
            if self.discarding {
                match nl {
                    Some(i) => {
                        self.pos = i + 1;
                        self.scan = self.pos;
                        self.discarding = false;
                        continue;
                    }
                    None => {
                        self.pos = self.buf.len();
                        self.scan = self.pos;
                        return None;
                    }
                }
            }
            return match nl {
                Some(i) => {
                    let mut end = i;
                    if end > self.pos && self.buf[end - 1] == b'\r' {
                        end -= 1;
                    }
                    let len = end - self.pos;
                    let start = self.pos;
                    self.pos = i + 1;
                    self.scan = self.pos;
                    if len > max_len {
                        Some(Err(ProcessError::LineTooLong(len)))
                    } else {
                        Some(Ok(line_string(&self.buf[start..end])))
                    }
                }
                None => {
                    self.scan = self.buf.len();
                    let len = self.buf.len() - self.pos;
                    if len > max_len {
                        self.pos = self.buf.len();
                        self.scan = self.pos;
                        self.discarding = true;
                        Some(Err(ProcessError::LineTooLong(len)))
                    } else {
                        None
                    }
                }
            };
        }
    }

    /// Last ~4 KiB the bot wrote to stderr (lossy UTF-8), collected continuously by a
    /// helper thread (so it may lag the bot by a moment).
    pub fn stderr_tail(&self) -> String {
        match self.stderr.lock() {
            Ok(t) => t.text(),
            Err(p) => p.into_inner().text(),
        }
    }

    /// The whole lines the bot wrote to stderr after position `pos` (0 at first),
    /// moving `pos` past them: for showing a bot's log as it writes it. Lines that
    /// fell out of the ~4 KiB tail meanwhile are skipped.
    pub fn stderr_since(&self, pos: &mut u64) -> String {
        // What the bot wrote before answering may still sit in the pipe or in the
        // reader's hands: wait until the reader has stored that many more bytes.
        // Counting bytes (not "the pipe is empty") lets a bot that writes on and
        // on cost no more than what it wrote before its answer; the bound only
        // matters when the reader is starved of CPU (200 ms, far above a
        // scheduler's delay).
        if let Some(fd) = &self.stderr_peek {
            let tail = || match self.stderr.lock() {
                Ok(t) => t,
                Err(p) => p.into_inner(),
            };
            // The reader reads and stores under the tail's lock, so no byte is
            // between the pipe and the tail while it is held.
            let target = {
                let t = tail();
                t.total() + sys::unread_bytes(fd) as u64
            };
            let total = || tail().total();
            let end = std::time::Instant::now() + std::time::Duration::from_millis(200);
            while total() < target && std::time::Instant::now() < end {
                std::thread::sleep(std::time::Duration::from_micros(50));
            }
        }
        let (text, next) = match self.stderr.lock() {
            Ok(t) => t.lines_since(*pos),
            Err(p) => p.into_inner().lines_since(*pos),
        };
        *pos = next;
        text
    }

    /// The bot's exit status if it has terminated (non-blocking). Until [`kill`] the bot
    /// is not reaped, so its process group can still be killed.
    ///
    /// [`kill`]: BotProcess::kill
    pub fn exit_status(&mut self) -> Option<Exit> {
        if self.exit.is_none() && !self.reaped {
            self.exit = self.peek_exit();
        }
        self.exit.clone()
    }

    fn peek_exit(&self) -> Option<Exit> {
        let e = sys::peek_exit(self.pid)?;
        Some(match &self.guard {
            Some(g) => g.exit(e),
            None => e,
        })
    }

    /// SIGKILLs the bot's whole process group, reaps the bot and stops the stderr reader.
    /// Idempotent; also done on drop.
    pub fn kill(&mut self) {
        if !self.reaped {
            if self.exit.is_none() {
                self.exit = self.peek_exit();
            }
            if self.keep && self.exit.is_none() {
                // Asked to end, so the launcher can keep its folder.
                self.stdin = None;
                let until = Instant::now() + KEEP_GRACE;
                while self.exit.is_none() && Instant::now() < until {
                    std::thread::sleep(Duration::from_millis(5));
                    self.exit = self.peek_exit();
                }
            }
            sys::kill_group(self.pid);
            if let Some(g) = &self.guard {
                g.kill_all();
            }
            let _ = self.child.kill();
            if let Ok(st) = self.child.wait() {
                if self.exit.is_none() {
                    let e = sys::exit_from_status(st);
                    self.exit = Some(match &self.guard {
                        Some(g) => g.exit(e),
                        None => e,
                    });
                }
            }
            self.reaped = true;
            // Again, in case a group member forked while we were killing.
            sys::kill_group(self.pid);
            // Removes the control group, killing anything that escaped the group.
            self.guard = None;
            self.pidfd = None;
        }
        self.stdin = None;
        self.stdout = None;
        self.eof = true;
        self.buf.clear();
        self.pos = 0;
        self.scan = 0;
        self.stderr_stop = None;
        self.stderr_peek = None;
        if let Some(t) = self.stderr_thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for BotProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

fn line_string(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_owned(),
        Err(_) => String::from_utf8_lossy(bytes).into_owned(),
    }
}

/// A process's stderr log and what it may still take.
struct Log {
    file: std::fs::File,
    left: u64,
    /// What ends this process's share: the file's budget, not its own.
    cut_by_file: bool,
}

impl Log {
    /// Appends `bytes`, control characters escaped, until the budget is spent; then
    /// says once where it was cut.
    fn push(&mut self, bytes: &[u8]) {
        use std::io::Write;
        if self.left == 0 {
            return;
        }
        let text = crate::printable(&String::from_utf8_lossy(bytes));
        let n = (text.len() as u64).min(self.left) as usize;
        let mut cut = n;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        let _ = self.file.write_all(&text.as_bytes()[..cut]);
        self.left -= n as u64;
        if self.left == 0 || cut < text.len() {
            self.left = 0;
            let _ = if self.cut_by_file {
                writeln!(
                    self.file,
                    "\n[koth: this log is full ({} MiB): later stderr of this slot is not kept]",
                    crate::STDERR_FILE_BYTES >> 20
                )
            } else {
                writeln!(
                    self.file,
                    "\n[koth: the log of this process was cut at {} KiB]",
                    crate::STDERR_LOG_BYTES >> 10
                )
            };
        }
    }
}

fn stderr_loop(fd: OwnedFd, stop: OwnedFd, tail: Arc<Mutex<Tail>>, mut log: Option<Log>) {
    let mut buf = vec![0u8; 16 * 1024];
    // Reads and stores under the tail's lock, so `stderr_since` can count what is
    // still to come as the tail's total plus the pipe's unread bytes. The read
    // never blocks: the fd is non-blocking.
    let mut take = || {
        let r = {
            let mut t = match tail.lock() {
                Ok(t) => t,
                Err(p) => p.into_inner(),
            };
            let r = sys::read_once(&fd, &mut buf);
            if let Ok(ReadOutcome::Data(n)) = r {
                t.push(&buf[..n]);
            }
            r
        };
        if let (Ok(ReadOutcome::Data(n)), Some(l)) = (&r, log.as_mut()) {
            l.push(&buf[..*n]);
        }
        r
    };
    loop {
        let mut fds = [
            sys::pollfd(&fd, libc::POLLIN),
            sys::pollfd(&stop, libc::POLLIN),
        ];
        if sys::poll_until(&mut fds, None).is_err() {
            return;
        }
        if fds[1].revents != 0 {
            // Stopping (the bot was killed): keep what it wrote last, often the one
            // line that says why it died, then leave. Never blocks: the writers
            // are dead.
            for _ in 0..64 {
                if !matches!(take(), Ok(ReadOutcome::Data(_))) {
                    break;
                }
            }
            return;
        }
        if fds[0].revents == 0 {
            continue;
        }
        match take() {
            Ok(ReadOutcome::Data(_) | ReadOutcome::WouldBlock) => {}
            Ok(ReadOutcome::Eof) | Err(_) => return,
        }
    }
}
