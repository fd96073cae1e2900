//! Files in a folder a bot may write to, opened by koth without ever following a
//! link: every path is resolved beneath a handle on the folder, refusing symbolic
//! links and `..` at every step (`openat2` with `RESOLVE_BENEATH` and
//! `RESOLVE_NO_SYMLINKS`, through `rustix`). A bot that plants a link where koth
//! reads or writes gets an error, never the link's target.

use rustix::fs::{Mode, OFlags, ResolveFlags};
use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::path::{Component, Path};

const RESOLVE: ResolveFlags = ResolveFlags::BENEATH
    .union(ResolveFlags::NO_SYMLINKS)
    .union(ResolveFlags::NO_MAGICLINKS);

fn io(e: rustix::io::Errno) -> std::io::Error {
    std::io::Error::from_raw_os_error(e.raw_os_error())
}

/// A handle on `dir` itself (which must not be a link).
fn root(dir: &Path) -> std::io::Result<OwnedFd> {
    rustix::fs::open(
        dir,
        OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(io)
}

/// `rel` as a plain relative path: no `..`, no root.
fn plain(rel: &Path) -> std::io::Result<()> {
    if rel.as_os_str().is_empty() || !rel.components().all(|c| matches!(c, Component::Normal(_))) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{} is not a plain path inside the folder", rel.display()),
        ));
    }
    Ok(())
}

/// Writes `content` to `rel` beneath `dir`, making its folders, never through a link.
///
/// ```
/// let d = std::env::temp_dir().join(format!("koth-fsafe-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&d).unwrap();
/// koth_process::write_beneath(&d, "a/b.txt".as_ref(), b"x").unwrap();
/// std::os::unix::fs::symlink("/etc/hostname", d.join("link")).unwrap();
/// assert!(koth_process::read_beneath(&d, "link".as_ref(), 100).is_err());
/// assert!(koth_process::write_beneath(&d, "../out".as_ref(), b"x").is_err());
/// # std::fs::remove_dir_all(&d).ok();
/// ```
pub fn write_beneath(dir: &Path, rel: &Path, content: &[u8]) -> std::io::Result<()> {
    plain(rel)?;
    let base = root(dir)?;
    if let Some(parent) = rel.parent().filter(|p| !p.as_os_str().is_empty()) {
        let mut so_far = std::path::PathBuf::new();
        for c in parent.components() {
            so_far.push(c);
            match rustix::fs::mkdirat(&base, &so_far, Mode::from_raw_mode(0o755)) {
                Ok(()) | Err(rustix::io::Errno::EXIST) => {}
                Err(e) => return Err(io(e)),
            }
        }
    }
    let fd = rustix::fs::openat2(
        &base,
        rel,
        OFlags::WRONLY | OFlags::CREATE | OFlags::TRUNC | OFlags::CLOEXEC | OFlags::NOFOLLOW,
        Mode::from_raw_mode(0o644),
        RESOLVE,
    )
    .map_err(io)?;
    std::fs::File::from(fd).write_all(content)
}

/// Reads at most `max` bytes of the regular file `rel` beneath `dir`, never through
/// a link.
pub fn read_beneath(dir: &Path, rel: &Path, max: usize) -> std::io::Result<Vec<u8>> {
    plain(rel)?;
    let base = root(dir)?;
    let fd = rustix::fs::openat2(
        &base,
        rel,
        OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NOFOLLOW | OFlags::NONBLOCK,
        Mode::empty(),
        RESOLVE,
    )
    .map_err(io)?;
    let f = std::fs::File::from(fd);
    if !f.metadata()?.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{} is not a regular file", rel.display()),
        ));
    }
    let mut out = Vec::new();
    f.take(max as u64).read_to_end(&mut out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_anywhere_on_the_way_are_refused() {
        let d = std::env::temp_dir().join(format!("koth-fsafe-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("real")).unwrap();
        let outside = d.with_extension("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("secret"), "s").unwrap();
        // A folder link on the way, a file link at the end.
        std::os::unix::fs::symlink(&outside, d.join("dirlink")).unwrap();
        std::os::unix::fs::symlink(outside.join("secret"), d.join("filelink")).unwrap();
        assert!(read_beneath(&d, "dirlink/secret".as_ref(), 9).is_err());
        assert!(read_beneath(&d, "filelink".as_ref(), 9).is_err());
        assert!(write_beneath(&d, "dirlink/new".as_ref(), b"x").is_err());
        assert!(write_beneath(&d, "filelink".as_ref(), b"x").is_err());
        assert!(!outside.join("new").exists());
        assert_eq!(
            std::fs::read_to_string(outside.join("secret")).unwrap(),
            "s"
        );
        // Plain files work, folders are made.
        write_beneath(&d, "real/a/b".as_ref(), b"ok").unwrap();
        assert_eq!(read_beneath(&d, "real/a/b".as_ref(), 9).unwrap(), b"ok");
        assert_eq!(read_beneath(&d, "real/a/b".as_ref(), 1).unwrap(), b"o");
        // The folder itself may not be a link either.
        std::os::unix::fs::symlink(&outside, d.with_extension("rootlink")).unwrap();
        assert!(read_beneath(&d.with_extension("rootlink"), "secret".as_ref(), 9).is_err());
        for p in [&d, &outside] {
            std::fs::remove_dir_all(p).unwrap();
        }
        std::fs::remove_file(d.with_extension("rootlink")).unwrap();
    }
}
