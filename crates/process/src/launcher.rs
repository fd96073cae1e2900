//! The launcher: koth's own small program at the start of every sandbox.
//!
//! It runs inside the sandbox as the bot's user, so nothing it does reaches
//! further than the bot could. It first copies the bot's folder (shown read-only
//! at `/.koth/src`) into the bot's private, size-bounded folder (a tmpfs at the
//! folder's own path), then either becomes the bot (`populate`: a program that
//! lives for many games) or stays as the sandbox's first process (`serve`: a
//! program launched once a move), starting each move's process with the
//! arguments, time limit and files koth sends it and answering with what the
//! process did.
//!
//! As the first process of its PID namespace, the launcher receives no signal a
//! bot sends it (the kernel delivers to a namespace's init only the signals it
//! handles, and it handles none); it is not dumpable, so no bot can trace it or
//! read its memory or descriptors, and after every move it kills every other
//! process of the sandbox, so nothing a move started lives into the next.
//!
//! A binary that starts sandboxed programs calls [`serve_if_asked`] first thing
//! in `main`; the launcher is then that binary itself, shown read-only in the
//! sandbox. `KOTH_LAUNCHER` names another (the `koth-launcher` binary of this
//! crate, for tests).

use crate::sys::Exit;
use crate::{Command, Limits, Sandbox};
use std::io::{Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The first argument that makes a binary the launcher.
pub const ARG: &str = "__koth-launcher";
/// Where the launcher is shown in a sandbox.
pub(crate) const INSIDE: &str = "/.koth/launcher";
/// Where the bot's original folder is shown, read-only, in a sandbox.
pub(crate) const SOURCE: &str = "/.koth/src";
/// The most bytes read back from a file after a move.
pub const MAX_READ_BACK: usize = 1 << 20;

static REGISTERED: AtomicBool = AtomicBool::new(false);

/// Runs the launcher and exits when this process was started as one; otherwise
/// records that this binary can serve as the launcher and returns. Call it first
/// thing in `main` of a program that runs sandboxed bots.
pub fn serve_if_asked() {
    let mut args = std::env::args_os();
    if args.nth(1).is_some_and(|a| a == ARG) {
        let rest: Vec<std::ffi::OsString> = args.collect();
        std::process::exit(main(&rest));
    }
    REGISTERED.store(true, Ordering::Relaxed);
}

/// The launcher to show in a sandbox: `KOTH_LAUNCHER`, this binary when it
/// called [`serve_if_asked`], or a `koth-launcher` beside it (or beside the
/// folder it is in: tests run from `target/debug/deps`).
pub(crate) fn path() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("KOTH_LAUNCHER") {
        return Ok(PathBuf::from(p));
    }
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    if REGISTERED.load(Ordering::Relaxed) {
        return Ok(exe);
    }
    let near = exe
        .parent()
        .into_iter()
        .flat_map(|d| [d.join("koth-launcher"), d.join("../koth-launcher")])
        .find(|p| p.is_file());
    near.ok_or_else(|| {
        "no launcher for sandboxed programs: call koth_process::launcher::serve_if_asked() first in main, or set KOTH_LAUNCHER to the koth-launcher binary".to_string()
    })
}

/// The launcher's `main`; `args` follow [`ARG`].
pub fn main(args: &[std::ffi::OsString]) -> i32 {
    let fail = |msg: String| {
        let _ = writeln!(std::io::stderr(), "koth launcher: {msg}");
        127
    };
    let (mode, rest) = match args.split_first() {
        Some((m, r)) => (m.to_string_lossy().into_owned(), r),
        None => return fail("no mode".into()),
    };
    let (Some(src), Some(dest)) = (rest.first(), rest.get(1)) else {
        return fail("usage: populate|serve SRC DEST [-- PROGRAM ARGS...]".into());
    };
    let (src, dest) = (Path::new(src), Path::new(dest));
    // Not dumpable: no bot can trace it, nor read its memory or descriptors.
    // SAFETY: prctl with integer arguments.
    unsafe {
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
    }
    if let Err(e) = copy_folder(src, dest) {
        let msg = format!("cannot copy the bot's folder: {e}");
        if mode == "serve" {
            let mut out = std::io::stdout().lock();
            let _ = write_frame(&mut out, &ready(Err(msg)));
            return 1;
        }
        return fail(msg);
    }
    match mode.as_str() {
        "populate" => {
            let program = match rest.get(2) {
                Some(dash) if dash == "--" => &rest[3..],
                _ => return fail("populate needs -- PROGRAM".into()),
            };
            exec(program, dest)
        }
        "serve" => serve(dest),
        m => fail(format!("unknown mode {m:?}")),
    }
}

/// Copies the tree at `from` into `to` (made): files, folders and symbolic links
/// as links, as they are.
fn copy_folder(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if kind.is_dir() {
            copy_folder(&src, &dst)?;
            let mode = std::fs::symlink_metadata(&src)?.permissions();
            std::fs::set_permissions(&dst, mode)?;
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&src)?, &dst)?;
        } else if kind.is_file() {
            std::fs::copy(&src, &dst).map_err(|e| {
                std::io::Error::new(
                    e.kind(),
                    if e.raw_os_error() == Some(libc::ENOSPC) {
                        "it is larger than its folder limit (folder_limit in the tournament file)"
                            .to_string()
                    } else {
                        format!("{}: {e}", src.display())
                    },
                )
            })?;
        }
        // Sockets, pipes and devices are not copied.
    }
    Ok(())
}

/// Becomes `program`, in `dest`.
fn exec(program: &[std::ffi::OsString], dest: &Path) -> i32 {
    use std::os::unix::process::CommandExt;
    let Some((first, rest)) = program.split_first() else {
        return 127;
    };
    let e = std::process::Command::new(first)
        .args(rest)
        .current_dir(dest)
        .exec();
    let _ = writeln!(
        std::io::stderr(),
        "koth launcher: cannot start {}: {e}",
        first.to_string_lossy()
    );
    127
}

/// One move: what to run and the files around it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Request {
    pub timeout: Duration,
    pub max_stdout: usize,
    pub argv: Vec<Vec<u8>>,
    /// Files to write before, relative to the folder.
    pub write: Vec<(Vec<u8>, Vec<u8>)>,
    /// A file to read back after, relative to the folder (empty: none).
    pub read_back: Vec<u8>,
}

/// What a move did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Response {
    pub exit: Exit,
    pub elapsed: Duration,
    pub first_output: Option<Duration>,
    pub stdout: Vec<u8>,
    pub truncated: bool,
    pub stderr_tail: String,
    /// The file read back, or why not.
    pub read_back: Option<Result<Vec<u8>, String>>,
}

/// The answer to the start: the folder is ready, or why not.
fn ready(r: Result<(), String>) -> Vec<u8> {
    let mut w = Vec::new();
    match r {
        Ok(()) => w.push(0),
        Err(e) => {
            w.push(1);
            put(&mut w, e.as_bytes());
        }
    }
    w
}

/// Reads the start's answer.
pub(crate) fn read_ready(frame: &[u8]) -> Result<(), String> {
    let mut r = frame;
    match take_u8(&mut r)? {
        0 => Ok(()),
        _ => Err(String::from_utf8_lossy(&take(&mut r)?).into_owned()),
    }
}

/// Serves moves on standard input and output until koth closes them.
fn serve(dest: &Path) -> i32 {
    let mut input = std::io::stdin().lock();
    let mut output = std::io::stdout().lock();
    let env: Vec<(String, String)> = std::env::vars().collect();
    if write_frame(&mut output, &ready(Ok(()))).is_err() {
        return 1;
    }
    while let Ok(Some(frame)) = read_frame(&mut input) {
        let reply = match decode_request(&frame) {
            Ok(req) => encode_response(&run(&req, dest, &env)),
            Err(e) => encode_response(&Response {
                exit: Exit::SpawnFailed(format!("bad request: {e}")),
                elapsed: Duration::ZERO,
                first_output: None,
                stdout: Vec::new(),
                truncated: false,
                stderr_tail: String::new(),
                read_back: None,
            }),
        };
        if write_frame(&mut output, &reply).is_err() {
            break;
        }
    }
    end_everything();
    0
}

/// Kills every other process of the sandbox and reaps them: nothing a move
/// started lives on.
fn end_everything() {
    // SAFETY: plain system calls; as the namespace's first process, kill(-1)
    // reaches every other process of it and not the launcher.
    unsafe {
        libc::kill(-1, libc::SIGKILL);
        loop {
            let r = libc::waitpid(-1, std::ptr::null_mut(), 0);
            if r < 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                break;
            }
        }
    }
}

/// Runs one move in `dest`.
fn run(req: &Request, dest: &Path, env: &[(String, String)]) -> Response {
    let started = std::time::Instant::now();
    let failed = |msg: String| Response {
        exit: Exit::SpawnFailed(msg),
        elapsed: started.elapsed(),
        first_output: None,
        stdout: Vec::new(),
        truncated: false,
        stderr_tail: String::new(),
        read_back: None,
    };
    for (rel, content) in &req.write {
        if let Err(e) = write_inside(dest, rel, content) {
            return failed(format!(
                "cannot write {}: {e}",
                String::from_utf8_lossy(rel)
            ));
        }
    }
    let argv: Vec<String> = req
        .argv
        .iter()
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    if argv.is_empty() {
        return failed("no program".into());
    }
    let cmd = Command {
        program: vec![argv[0].clone()],
        cwd: dest.to_path_buf(),
        env: env.to_vec(),
        // The sandbox's limits hold already; the move's process inherits them.
        limits: Limits::none(),
        sandbox: Sandbox::Off,
        read_only: Vec::new(),
        hidden: Vec::new(),
    };
    let r = crate::invoke::invoke(&cmd, &argv[1..], req.timeout, req.max_stdout);
    end_everything();
    let read_back = (!req.read_back.is_empty())
        .then(|| read_inside(dest, &req.read_back, MAX_READ_BACK).map_err(|e| e.to_string()));
    Response {
        exit: r.exit,
        elapsed: r.elapsed,
        first_output: r.first_output,
        stdout: r.stdout,
        truncated: r.stdout_truncated,
        stderr_tail: r.stderr_tail,
        read_back,
    }
}

/// `rel` inside `dir`, refused when it climbs out (`..`, an absolute path).
fn inside(dir: &Path, rel: &[u8]) -> std::io::Result<PathBuf> {
    let rel = Path::new(std::ffi::OsStr::from_bytes(rel));
    let plain = rel
        .components()
        .all(|c| matches!(c, std::path::Component::Normal(_)));
    if rel.as_os_str().is_empty() || !plain {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a plain path inside the folder",
        ));
    }
    Ok(dir.join(rel))
}

/// Writes `content` to `rel` in `dir` (folders made), never through a link.
fn write_inside(dir: &Path, rel: &[u8], content: &[u8]) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let path = inside(dir, rel)?;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&path)?;
    f.write_all(content)
}

/// Reads at most `max` bytes of `rel` in `dir`, never through a link.
fn read_inside(dir: &Path, rel: &[u8], max: usize) -> std::io::Result<Vec<u8>> {
    use std::os::unix::fs::OpenOptionsExt;
    let path = inside(dir, rel)?;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(&path)?;
    if !f.metadata()?.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "not a regular file",
        ));
    }
    let mut out = Vec::new();
    f.take(max as u64).read_to_end(&mut out)?;
    Ok(out)
}

// The frames: a length (u32, little-endian) then the payload.

pub(crate) fn write_frame(w: &mut impl Write, payload: &[u8]) -> std::io::Result<()> {
    w.write_all(&(payload.len() as u32).to_le_bytes())?;
    w.write_all(payload)?;
    w.flush()
}

/// The next frame, `None` at the end of input.
pub(crate) fn read_frame(r: &mut impl Read) -> std::io::Result<Option<Vec<u8>>> {
    let mut len = [0u8; 4];
    match r.read_exact(&mut len) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let n = u32::from_le_bytes(len) as usize;
    if n > 64 << 20 {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "frame too long",
        ));
    }
    let mut buf = vec![0u8; n];
    r.read_exact(&mut buf)?;
    Ok(Some(buf))
}

fn put(w: &mut Vec<u8>, bytes: &[u8]) {
    w.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    w.extend_from_slice(bytes);
}

fn take_u8(r: &mut &[u8]) -> Result<u8, String> {
    let (&b, rest) = r.split_first().ok_or("short frame")?;
    *r = rest;
    Ok(b)
}

fn take_u32(r: &mut &[u8]) -> Result<u32, String> {
    if r.len() < 4 {
        return Err("short frame".into());
    }
    let (a, rest) = r.split_at(4);
    *r = rest;
    Ok(u32::from_le_bytes(a.try_into().expect("4 bytes")))
}

fn take_u64(r: &mut &[u8]) -> Result<u64, String> {
    let lo = take_u32(r)? as u64;
    let hi = take_u32(r)? as u64;
    Ok(hi << 32 | lo)
}

fn take(r: &mut &[u8]) -> Result<Vec<u8>, String> {
    let n = take_u32(r)? as usize;
    if r.len() < n {
        return Err("short frame".into());
    }
    let (a, rest) = r.split_at(n);
    *r = rest;
    Ok(a.to_vec())
}

fn put_u64(w: &mut Vec<u8>, v: u64) {
    w.extend_from_slice(&(v as u32).to_le_bytes());
    w.extend_from_slice(&((v >> 32) as u32).to_le_bytes());
}

pub(crate) fn encode_request(q: &Request) -> Vec<u8> {
    let mut w = Vec::new();
    w.extend_from_slice(&(q.timeout.as_millis().min(u32::MAX as u128) as u32).to_le_bytes());
    w.extend_from_slice(&(q.max_stdout.min(u32::MAX as usize) as u32).to_le_bytes());
    w.extend_from_slice(&(q.argv.len() as u32).to_le_bytes());
    for a in &q.argv {
        put(&mut w, a);
    }
    w.extend_from_slice(&(q.write.len() as u32).to_le_bytes());
    for (p, c) in &q.write {
        put(&mut w, p);
        put(&mut w, c);
    }
    put(&mut w, &q.read_back);
    w
}

pub(crate) fn decode_request(frame: &[u8]) -> Result<Request, String> {
    let mut r = frame;
    let timeout = Duration::from_millis(take_u32(&mut r)? as u64);
    let max_stdout = take_u32(&mut r)? as usize;
    let n = take_u32(&mut r)?;
    let argv = (0..n).map(|_| take(&mut r)).collect::<Result<_, _>>()?;
    let m = take_u32(&mut r)?;
    let write = (0..m)
        .map(|_| Ok((take(&mut r)?, take(&mut r)?)))
        .collect::<Result<_, String>>()?;
    let read_back = take(&mut r)?;
    Ok(Request {
        timeout,
        max_stdout,
        argv,
        write,
        read_back,
    })
}

pub(crate) fn encode_response(p: &Response) -> Vec<u8> {
    let mut w = Vec::new();
    let (kind, value, msg) = match &p.exit {
        Exit::Code(c) => (0u8, *c, ""),
        Exit::Signal(s) => (1, *s, ""),
        Exit::TimedOut => (2, 0, ""),
        Exit::SpawnFailed(m) => (3, 0, m.as_str()),
    };
    w.push(kind);
    w.extend_from_slice(&value.to_le_bytes());
    put(&mut w, msg.as_bytes());
    put_u64(&mut w, p.elapsed.as_micros() as u64);
    put_u64(
        &mut w,
        p.first_output.map_or(u64::MAX, |d| d.as_micros() as u64),
    );
    put(&mut w, &p.stdout);
    w.push(p.truncated as u8);
    put(&mut w, p.stderr_tail.as_bytes());
    match &p.read_back {
        None => w.push(0),
        Some(Ok(b)) => {
            w.push(1);
            put(&mut w, b);
        }
        Some(Err(e)) => {
            w.push(2);
            put(&mut w, e.as_bytes());
        }
    }
    w
}

pub(crate) fn decode_response(frame: &[u8]) -> Result<Response, String> {
    let mut r = frame;
    let kind = take_u8(&mut r)?;
    let value = take_u32(&mut r)? as i32;
    let msg = String::from_utf8_lossy(&take(&mut r)?).into_owned();
    let exit = match kind {
        0 => Exit::Code(value),
        1 => Exit::Signal(value),
        2 => Exit::TimedOut,
        _ => Exit::SpawnFailed(msg),
    };
    let elapsed = Duration::from_micros(take_u64(&mut r)?);
    let first = take_u64(&mut r)?;
    let stdout = take(&mut r)?;
    let truncated = take_u8(&mut r)? != 0;
    let stderr_tail = String::from_utf8_lossy(&take(&mut r)?).into_owned();
    let read_back = match take_u8(&mut r)? {
        0 => None,
        1 => Some(Ok(take(&mut r)?)),
        _ => Some(Err(String::from_utf8_lossy(&take(&mut r)?).into_owned())),
    };
    Ok(Response {
        exit,
        elapsed,
        first_output: (first != u64::MAX).then(|| Duration::from_micros(first)),
        stdout,
        truncated,
        stderr_tail,
        read_back,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip() {
        let q = Request {
            timeout: Duration::from_millis(1500),
            max_stdout: 4096,
            argv: vec![b"python3".to_vec(), b"bot.py".to_vec(), b"".to_vec()],
            write: vec![(b".koth/h.txt".to_vec(), b"Ax\n".to_vec())],
            read_back: b".koth/h.txt".to_vec(),
        };
        assert_eq!(decode_request(&encode_request(&q)).unwrap(), q);
        for exit in [
            Exit::Code(3),
            Exit::Signal(9),
            Exit::TimedOut,
            Exit::SpawnFailed("no".into()),
        ] {
            let p = Response {
                exit,
                elapsed: Duration::from_micros(12345),
                first_output: Some(Duration::from_micros(77)),
                stdout: b"W".to_vec(),
                truncated: true,
                stderr_tail: "oops\n".into(),
                read_back: Some(Err("gone".into())),
            };
            assert_eq!(decode_response(&encode_response(&p)).unwrap(), p);
        }
        assert!(decode_response(&[0, 1]).is_err());
        assert_eq!(read_ready(&ready(Ok(()))), Ok(()));
        assert_eq!(read_ready(&ready(Err("full".into()))), Err("full".into()));
    }

    #[test]
    fn files_stay_inside_and_links_are_not_followed() {
        let d = std::env::temp_dir().join(format!("koth-launcher-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        write_inside(&d, b"a/b.txt", b"x").unwrap();
        assert_eq!(read_inside(&d, b"a/b.txt", 10).unwrap(), b"x");
        assert!(write_inside(&d, b"../out.txt", b"x").is_err());
        assert!(write_inside(&d, b"/etc/x", b"x").is_err());
        std::os::unix::fs::symlink("/etc/hostname", d.join("link")).unwrap();
        assert!(read_inside(&d, b"link", 10).is_err());
        assert!(write_inside(&d, b"link", b"x").is_err());
        std::fs::remove_dir_all(&d).unwrap();
    }
}
