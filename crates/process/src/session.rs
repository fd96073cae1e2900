//! A program launched once a move, for one game: one sandbox for the whole game,
//! in which the launcher starts each move's process (instead of a new sandbox a
//! move), or, for a trusted program (`Sandbox::Off`), a private copy of its folder
//! on this machine.

use crate::frames::{self as launcher, Request};
use crate::spawn::{prepare_session, Guard};
use crate::sys::{self, Exit, ReadOutcome};
use crate::{Command, InvokeResult, Sandbox, ScratchDir, Workspace};
use std::io::Write;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a sandbox may take to start and copy its program's folder.
pub const START_TIMEOUT: Duration = Duration::from_secs(60);
/// What the launcher may take beyond a move's own time limit to answer (the
/// process killed, the files read back) before the sandbox counts as broken.
const SLACK: Duration = Duration::from_secs(10);

/// One move: the arguments after the command's own, its time limit, its output
/// bound, files to write in the folder first and one to read back after.
#[derive(Clone, Debug, Default)]
pub struct Move<'a> {
    /// Arguments after the command's own.
    pub args: &'a [String],
    /// Time from launch to exit.
    pub timeout: Duration,
    /// Bytes of standard output kept.
    pub max_stdout: usize,
    /// Files to write first, relative to the folder (never through a link).
    pub write: Vec<(&'a Path, &'a [u8])>,
    /// A file to read back after, relative to the folder (never through a link).
    pub read_back: Option<&'a Path>,
}

/// What a move did, and the file read back (or why not).
#[derive(Clone, Debug)]
pub struct Moved {
    /// The process's exit, output and times.
    pub result: InvokeResult,
    /// The file asked back, or why it could not be read.
    pub read_back: Option<Result<Vec<u8>, String>>,
}

/// A program's place for one game.
///
/// ```no_run
/// use koth_process::{Command, Move, Session};
/// use std::time::Duration;
/// let cmd = Command::new(["python3", "bot.py"], "bots/alice");
/// let mut game = Session::start(&cmd, None).unwrap();
/// let moved = game.run(&Move {
///     args: &["history".to_string()],
///     timeout: Duration::from_secs(1),
///     max_stdout: 4096,
///     ..Move::default()
/// });
/// println!("{}", moved.result.stdout_lossy());
/// ```
pub struct Session {
    inner: Inner,
    /// The folder as the program sees it.
    folder: PathBuf,
}

enum Inner {
    Sandboxed(Box<Sandboxed>),
    Host(Box<(Command, Option<ScratchDir>)>),
}

struct Sandboxed {
    child: std::process::Child,
    input: Option<std::process::ChildStdin>,
    output: OwnedFd,
    buffer: Vec<u8>,
    guard: Guard,
    /// `argv` of every move, before its own arguments.
    program: Vec<String>,
    /// Why the sandbox no longer serves, once it does not.
    broken: Option<String>,
    /// Its folder is kept: at the end the launcher is given time to copy it out.
    keep: bool,
    _seccomp: Option<[OwnedFd; 3]>,
}

impl Session {
    /// Starts `cmd`'s place for a game: its sandbox, with a private copy of its
    /// folder, or without a sandbox a fresh copy of its folder in `copies` (a
    /// workspace, a slot and a name), or in a scratch folder.
    pub fn start(
        cmd: &Command,
        copies: Option<(&Arc<Workspace>, usize, &str)>,
    ) -> Result<Session, String> {
        if cmd.sandbox == Sandbox::Off {
            let original = crate::absolute(&cmd.cwd);
            let (dir, scratch) = match copies {
                Some((ws, slot, name)) => (ws.refresh(&original, slot, name)?, None),
                None => {
                    let s = ScratchDir::new("session").map_err(|e| e.to_string())?;
                    let dir = s.path().join("folder");
                    crate::copy_tree(&original, &dir)
                        .map_err(|e| format!("cannot copy {}: {e}", original.display()))?;
                    (dir, Some(s))
                }
            };
            let mut cmd = cmd.clone();
            cmd.cwd = dir.clone();
            return Ok(Session {
                inner: Inner::Host(Box::new((cmd, scratch))),
                folder: dir,
            });
        }
        let folder = crate::ns::folder(cmd)
            .map_err(|e| format!("cannot resolve the folder {}: {e}", cmd.cwd.display()))?;
        let mut cmd = cmd.clone();
        if let Some((ws, slot, name)) = copies {
            cmd.keep = ws.keep_dir(slot, name)?;
        }
        let cmd = &cmd;
        let prepared = prepare_session(cmd)?;
        let program = prepared.program.clone();
        let mut c = prepared.cmd;
        c.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = c.spawn().map_err(|e| crate::spawn::spawn_error(cmd, &e))?;
        let guard = Guard::new(prepared.cgroup, true);
        let input = child.stdin.take().ok_or("no pipe to the sandbox")?;
        let output: OwnedFd = child
            .stdout
            .take()
            .ok_or("no pipe from the sandbox")?
            .into();
        let _ = sys::set_nonblocking(&output);
        let mut s = Sandboxed {
            child,
            input: Some(input),
            output,
            buffer: Vec::new(),
            guard,
            program,
            broken: None,
            keep: cmd.keep.is_some(),
            _seccomp: prepared.seccomp,
        };
        let ready = s.frame(Instant::now() + START_TIMEOUT);
        match ready.and_then(|f| launcher::read_ready(&f)) {
            Ok(()) => Ok(Session {
                inner: Inner::Sandboxed(Box::new(s)),
                folder,
            }),
            Err(e) => Err(format!("its sandbox did not start: {e}")),
        }
    }

    /// The program's folder, as it sees it (paths given to it start here).
    pub fn folder(&self) -> &Path {
        &self.folder
    }

    /// Runs one move.
    pub fn run(&mut self, m: &Move) -> Moved {
        match &mut self.inner {
            Inner::Host(host) => {
                let cmd = &host.0;
                for (rel, content) in &m.write {
                    if let Err(e) = crate::write_beneath(&cmd.cwd, rel, content) {
                        return failed(format!("cannot write {}: {e}", rel.display()));
                    }
                }
                let result = crate::invoke(cmd, m.args, m.timeout, m.max_stdout);
                let read_back = m.read_back.map(|rel| {
                    crate::read_beneath(&cmd.cwd, rel, launcher::MAX_READ_BACK)
                        .map_err(|e| e.to_string())
                });
                Moved { result, read_back }
            }
            Inner::Sandboxed(s) => s.run(m),
        }
    }
}

fn failed(msg: String) -> Moved {
    Moved {
        result: InvokeResult {
            exit: Exit::SpawnFailed(msg),
            stdout: Vec::new(),
            stdout_truncated: false,
            stderr_tail: String::new(),
            elapsed: Duration::ZERO,
            first_output: None,
        },
        read_back: None,
    }
}

impl Sandboxed {
    /// The next frame from the launcher, waiting until `deadline`.
    fn frame(&mut self, deadline: Instant) -> Result<Vec<u8>, String> {
        let mut scratch = [0u8; 64 * 1024];
        loop {
            if self.buffer.len() >= 4 {
                let n = u32::from_le_bytes(self.buffer[..4].try_into().expect("4")) as usize;
                if self.buffer.len() >= 4 + n {
                    let frame = self.buffer[4..4 + n].to_vec();
                    self.buffer.drain(..4 + n);
                    return Ok(frame);
                }
            }
            let mut fds = [sys::pollfd(&self.output, libc::POLLIN)];
            match sys::poll_until(&mut fds, Some(deadline)) {
                Ok(0) => return Err("the sandbox stopped answering".into()),
                Ok(_) => {}
                Err(e) => return Err(format!("cannot read from the sandbox: {e}")),
            }
            match sys::read_once(&self.output, &mut scratch) {
                Ok(ReadOutcome::Data(k)) => self.buffer.extend_from_slice(&scratch[..k]),
                Ok(ReadOutcome::WouldBlock) => {}
                Ok(ReadOutcome::Eof) | Err(_) => return Err("the sandbox ended".into()),
            }
        }
    }

    fn run(&mut self, m: &Move) -> Moved {
        if let Some(why) = &self.broken {
            return failed(why.clone());
        }
        let argv: Vec<Vec<u8>> = self
            .program
            .iter()
            .chain(m.args)
            .map(|a| a.as_bytes().to_vec())
            .collect();
        let bytes = |p: &Path| p.as_os_str().as_encoded_bytes().to_vec();
        let req = Request {
            timeout: m.timeout,
            max_stdout: m.max_stdout,
            argv,
            write: m
                .write
                .iter()
                .map(|(p, c)| (bytes(p), c.to_vec()))
                .collect(),
            read_back: m.read_back.map(bytes).unwrap_or_default(),
        };
        let sent = match self.input.as_mut() {
            Some(input) => launcher::write_frame(input, &launcher::encode_request(&req))
                .and_then(|()| input.flush()),
            None => Err(std::io::Error::other("the sandbox is closed")),
        };
        let answer = match sent {
            Ok(()) => self
                .frame(Instant::now() + m.timeout + SLACK)
                .and_then(|f| launcher::decode_response(&f)),
            Err(e) => Err(format!("cannot write to the sandbox: {e}")),
        };
        match answer {
            Ok(r) => Moved {
                result: InvokeResult {
                    exit: r.exit,
                    stdout: r.stdout,
                    stdout_truncated: r.truncated,
                    stderr_tail: r.stderr_tail,
                    elapsed: r.elapsed,
                    first_output: r.first_output,
                },
                read_back: r.read_back,
            },
            Err(e) => {
                self.stop();
                self.broken = Some(e.clone());
                failed(e)
            }
        }
    }

    /// Ends the sandbox and everything in it.
    fn stop(&mut self) {
        sys::kill_group(self.child.id() as libc::pid_t);
        self.guard.kill_all();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Sandboxed {
    fn drop(&mut self) {
        // Its input closed, the launcher ends the sandbox (keeping its folder when
        // asked) by itself; what it has not done in time is done here.
        self.input = None;
        if self.keep && self.broken.is_none() {
            let until = Instant::now() + crate::bot::KEEP_GRACE;
            while Instant::now() < until && matches!(self.child.try_wait(), Ok(None)) {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        self.stop();
    }
}
