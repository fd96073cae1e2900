//! The launcher: koth's own small program at the start of every sandbox.
//!
//! It runs inside the sandbox as the bot's user, so nothing it does reaches
//! further than the bot could. It first copies the bot's folder (shown read-only
//! at `/.koth/src`) into the bot's private, size-bounded folder (a tmpfs at the
//! folder's own path), then, as the sandbox's first process, either starts the
//! bot and waits for it (`run`: a program that lives for many games) or serves
//! moves (`serve`: a program launched once a move), starting each move's process
//! with the arguments, time limit and files koth sends it and answering with what
//! the process did. When the bot ends and its folder is to be kept, it copies the
//! folder out (to `/.koth/keep`, a folder of the run's).
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

pub use crate::frames::ARG;
use crate::frames::{
    decode_request, encode_response, read_frame, ready, write_frame, Request, Response,
    MAX_READ_BACK,
};
use crate::sys::Exit;
use crate::{Command, Limits, Sandbox};
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::time::Duration;

/// Runs the launcher and exits when this process was started as one; otherwise
/// records that this binary can serve as the launcher and returns. Call it first
/// thing in `main` of a program that runs sandboxed bots.
pub fn serve_if_asked() {
    let mut args = std::env::args_os();
    if args.nth(1).is_some_and(|a| a == ARG) {
        let rest: Vec<std::ffi::OsString> = args.collect();
        std::process::exit(main(&rest));
    }
    crate::frames::register();
}

/// The launcher's `main`; `args` follow [`ARG`]: `run SRC DEST KEEP -- PROGRAM
/// ARGS...` or `serve SRC DEST KEEP` (`KEEP` is `-`, or the folder the bot's
/// folder is copied to when it ends).
pub fn main(args: &[std::ffi::OsString]) -> i32 {
    let fail = |msg: String| {
        let _ = writeln!(std::io::stderr(), "koth launcher: {msg}");
        127
    };
    let (mode, rest) = match args.split_first() {
        Some((m, r)) => (m.to_string_lossy().into_owned(), r),
        None => return fail("no mode".into()),
    };
    let (Some(src), Some(dest), Some(keep)) = (rest.first(), rest.get(1), rest.get(2)) else {
        return fail("usage: run|serve SRC DEST KEEP [-- PROGRAM ARGS...]".into());
    };
    let (src, dest) = (Path::new(src), Path::new(dest));
    let keep = (keep != "-").then(|| Path::new(keep));
    // Not dumpable: no bot can trace it, nor read its memory or descriptors.
    // SAFETY: prctl with integer arguments.
    unsafe {
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
    }
    if let Err(e) = copy_folder(src, dest, None) {
        let msg = format!("cannot copy the bot's folder: {e}");
        if mode == "serve" {
            let mut out = std::io::stdout().lock();
            let _ = write_frame(&mut out, &ready(Err(msg)));
            return 1;
        }
        return fail(msg);
    }
    let status = match mode.as_str() {
        "run" => {
            let program = match rest.get(3) {
                Some(dash) if dash == "--" => &rest[4..],
                _ => return fail("run needs -- PROGRAM".into()),
            };
            run_program(program, dest)
        }
        "serve" => serve(dest),
        m => return fail(format!("unknown mode {m:?}")),
    };
    if let Some(k) = keep {
        // Kept on purpose: what the bot left in its folder, for people to look at.
        // Not the subfolders shown in place: they are the original, unchanged.
        let dev = std::fs::metadata(dest).map(|m| m.dev()).ok();
        let _ = copy_folder(dest, k, dev);
    }
    status
}

/// Starts `program` in `dest` on the launcher's own standard streams, waits for it
/// as the sandbox's first process (reaping what it leaves), then ends everything
/// else; returns its status as a shell would (128 + N for signal N).
fn run_program(program: &[std::ffi::OsString], dest: &Path) -> i32 {
    use std::os::unix::process::CommandExt;
    let Some((first, rest)) = program.split_first() else {
        return 127;
    };
    let child = std::process::Command::new(first)
        .args(rest)
        .current_dir(dest)
        .process_group(0)
        .spawn();
    let child = match child {
        Ok(c) => c,
        Err(e) => {
            let _ = writeln!(
                std::io::stderr(),
                "koth launcher: cannot start {}: {e}",
                first.to_string_lossy()
            );
            return 127;
        }
    };
    let pid = child.id() as libc::pid_t;
    // Its streams are the bot's: koth sees their end when the bot's end.
    // SAFETY: plain descriptor calls on descriptors 0 to 2.
    unsafe {
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
        for fd in 0..3 {
            libc::dup2(null, fd);
        }
        if null > 2 {
            libc::close(null);
        }
    }
    let mut status = 0;
    loop {
        let mut st = 0;
        // SAFETY: waitpid fills `st`.
        let r = unsafe { libc::waitpid(-1, &mut st, 0) };
        if r == pid {
            status = if libc::WIFEXITED(st) {
                libc::WEXITSTATUS(st)
            } else {
                128 + libc::WTERMSIG(st)
            };
            break;
        }
        if r < 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            break;
        }
    }
    end_everything();
    status
}

/// Copies the tree at `from` into `to` (made): files, folders and symbolic links
/// as links, as they are. A folder already at its place in `to` is a subfolder
/// koth shows read-only in place, and is left as it is; with `dev`, folders of
/// another file system than `dev` (those subfolders, copying out) are left out.
fn copy_folder(from: &Path, to: &Path, dev: Option<u64>) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        // What the path is now, not what the directory entry says: a path koth
        // hides is covered by a device node, and is left out of the copy.
        let meta = std::fs::symlink_metadata(&src)?;
        let kind = meta.file_type();
        if kind.is_dir() {
            let elsewhere = dev.is_some_and(|d| meta.dev() != d);
            if elsewhere || (dev.is_none() && std::fs::symlink_metadata(&dst).is_ok()) {
                continue;
            }
            copy_folder(&src, &dst, dev)?;
            std::fs::set_permissions(&dst, meta.permissions())?;
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
        // Sockets, pipes, devices and hidden paths are not copied.
    }
    Ok(())
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
        keep: None,
        stderr_log: None,
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

/// Writes `content` to `rel` in `dir` (folders made), never through a link: the
/// bot's folder is the bot's, and what it planted there is not followed.
fn write_inside(dir: &Path, rel: &[u8], content: &[u8]) -> std::io::Result<()> {
    crate::write_beneath(dir, Path::new(std::ffi::OsStr::from_bytes(rel)), content)
}

/// Reads at most `max` bytes of `rel` in `dir`, never through a link.
fn read_inside(dir: &Path, rel: &[u8], max: usize) -> std::io::Result<Vec<u8>> {
    crate::read_beneath(dir, Path::new(std::ffi::OsStr::from_bytes(rel)), max)
}

#[cfg(test)]
mod tests {
    use super::*;

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
