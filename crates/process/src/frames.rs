//! What koth and the launcher say to each other (frames: a length, then the
//! payload), and where the launcher is, outside the sandbox and in it.

use crate::sys::Exit;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The first argument that makes a binary the launcher.
pub const ARG: &str = "__koth-launcher";
/// Where the launcher is shown in a sandbox.
pub(crate) const INSIDE: &str = "/.koth/launcher";
/// Where the bot's original folder is shown, read-only, in a sandbox.
pub(crate) const SOURCE: &str = "/.koth/src";
/// Where the folder its folder is copied to when it ends is shown (kept on purpose).
pub(crate) const KEEP: &str = "/.koth/keep";
/// The most bytes read back from a file after a move.
pub const MAX_READ_BACK: usize = 1 << 20;

static REGISTERED: AtomicBool = AtomicBool::new(false);

/// Records that this binary serves as the launcher (it called
/// [`crate::launcher::serve_if_asked`]).
pub(crate) fn register() {
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
pub(crate) fn ready(r: Result<(), String>) -> Vec<u8> {
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
}
