//! A bot folder uploaded from the page, unpacked as hostile input: a tar
//! (optionally gzipped) or a zip, only plain files and folders, every path
//! inside the folder, within limits on size and file count. Nothing an archive
//! says is followed: no link is made, no existing file is opened.

use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};

/// What an upload may hold.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Bytes of all files, unpacked.
    pub bytes: u64,
    /// Files and folders.
    pub files: u64,
    /// Folders inside folders.
    pub depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            bytes: 64 << 20,
            files: 2_000,
            depth: 16,
        }
    }
}

/// Unpacks `archive` into `into`, a folder that must not exist yet (made here).
/// On refusal, the reason in words and nothing left behind.
pub fn unpack(archive: &[u8], into: &Path, limits: &Limits) -> Result<(), String> {
    std::fs::create_dir(into).map_err(|e| format!("cannot make {}: {e}", into.display()))?;
    let r = if archive.starts_with(b"PK\x03\x04") || archive.starts_with(b"PK\x05\x06") {
        unzip(archive, into, limits)
    } else if archive.starts_with(&[0x1f, 0x8b]) {
        untar(flate2::read::GzDecoder::new(archive), into, limits)
    } else if archive.len() >= 262 && &archive[257..262] == b"ustar" {
        untar(archive, into, limits)
    } else {
        Err("not a tar, tar.gz or zip archive".to_string())
    };
    if r.is_err() {
        let _ = std::fs::remove_dir_all(into);
    }
    r
}

/// What has been unpacked so far.
struct Tally<'a> {
    root: &'a Path,
    limits: &'a Limits,
    bytes: u64,
    files: u64,
}

impl Tally<'_> {
    /// The path inside the folder an archive's name stands for, or why not.
    fn place(&mut self, name: &str) -> Result<PathBuf, String> {
        self.files += 1;
        if self.files > self.limits.files {
            return Err(format!(
                "more than {} files and folders: upload the bot without what it does not need",
                self.limits.files
            ));
        }
        if name.contains('\0') || name.contains('\\') {
            return Err(format!("{name:?}: a name with a NUL byte or a backslash"));
        }
        let mut out = PathBuf::new();
        for c in Path::new(name).components() {
            match c {
                Component::Normal(p) => out.push(p),
                Component::CurDir => {}
                Component::ParentDir | Component::RootDir | Component::Prefix(_) => {
                    return Err(format!(
                        "{name:?}: a path that leads out of the bot's folder"
                    ));
                }
            }
        }
        if out.as_os_str().is_empty() {
            return Ok(self.root.to_path_buf());
        }
        if out.components().count() > self.limits.depth {
            return Err(format!(
                "{name:?}: more than {} folders deep",
                self.limits.depth
            ));
        }
        Ok(self.root.join(out))
    }

    /// Makes a folder and the ones above it (never through a link: none exist).
    fn folder(&mut self, path: &Path) -> Result<(), String> {
        std::fs::create_dir_all(path).map_err(|e| format!("cannot make a folder: {e}"))
    }

    /// Writes a new file from `from`, counting its bytes.
    fn file(&mut self, path: &Path, from: &mut dyn Read, exec: bool) -> Result<(), String> {
        use std::os::unix::fs::OpenOptionsExt;
        if let Some(parent) = path.parent() {
            self.folder(parent)?;
        }
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(if exec { 0o755 } else { 0o644 })
            .custom_flags(libc::O_NOFOLLOW)
            .open(path)
            .map_err(|e| {
                if e.kind() == std::io::ErrorKind::AlreadyExists {
                    format!("{}: named twice in the archive", self.shown(path))
                } else {
                    format!("{}: cannot write it: {e}", self.shown(path))
                }
            })?;
        let left = self.limits.bytes.saturating_sub(self.bytes);
        let n = std::io::copy(&mut from.take(left + 1), &mut f)
            .map_err(|e| format!("{}: cannot unpack it: {e}", self.shown(path)))?;
        self.bytes += n;
        if self.bytes > self.limits.bytes {
            return Err(format!(
                "more than {} unpacked: upload the bot without what it does not need",
                bytes_text(self.limits.bytes)
            ));
        }
        f.flush().map_err(|e| e.to_string())
    }

    fn shown(&self, path: &Path) -> String {
        path.strip_prefix(self.root)
            .unwrap_or(path)
            .display()
            .to_string()
    }
}

fn bytes_text(n: u64) -> String {
    if n >= 1 << 20 {
        format!("{} MiB", n >> 20)
    } else {
        format!("{n} bytes")
    }
}

fn untar(from: impl Read, into: &Path, limits: &Limits) -> Result<(), String> {
    let mut t = Tally {
        root: into,
        limits,
        bytes: 0,
        files: 0,
    };
    let mut archive = tar::Archive::new(from);
    let entries = archive
        .entries()
        .map_err(|e| format!("not a readable tar archive: {e}"))?;
    for entry in entries {
        let mut entry = entry.map_err(|e| format!("not a readable tar archive: {e}"))?;
        let name = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        let kind = entry.header().entry_type();
        let path = t.place(&name)?;
        if kind.is_dir() {
            t.folder(&path)?;
        } else if kind.is_file() {
            let exec = entry.header().mode().is_ok_and(|m| m & 0o111 != 0);
            t.file(&path, &mut entry, exec)?;
        } else if kind.is_pax_global_extensions() || kind.is_pax_local_extensions() {
            // Metadata of the archive, not a file.
        } else if kind.is_symlink() || kind.is_hard_link() {
            return Err(format!(
                "{name:?} is a link: a bot's upload holds only files and folders"
            ));
        } else {
            return Err(format!(
                "{name:?} is a special file: a bot's upload holds only files and folders"
            ));
        }
    }
    Ok(())
}

fn unzip(bytes: &[u8], into: &Path, limits: &Limits) -> Result<(), String> {
    let mut t = Tally {
        root: into,
        limits,
        bytes: 0,
        files: 0,
    };
    let mut z = zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|e| format!("not a readable zip archive: {e}"))?;
    if z.len() as u64 > limits.files {
        return Err(format!(
            "more than {} files and folders: upload the bot without what it does not need",
            limits.files
        ));
    }
    for i in 0..z.len() {
        let mut f = z
            .by_index(i)
            .map_err(|e| format!("not a readable zip archive: {e}"))?;
        let name = f.name().to_string();
        let mode = f.unix_mode().unwrap_or(0);
        // S_IFLNK, or any other kind that is not a plain file or a folder.
        let kind = mode & 0o170000;
        if kind == 0o120000 {
            return Err(format!(
                "{name:?} is a link: a bot's upload holds only files and folders"
            ));
        }
        if kind != 0 && kind != 0o100000 && kind != 0o040000 {
            return Err(format!(
                "{name:?} is a special file: a bot's upload holds only files and folders"
            ));
        }
        let path = t.place(&name)?;
        if f.is_dir() {
            t.folder(&path)?;
        } else {
            t.file(&path, &mut f, mode & 0o111 != 0)?;
        }
    }
    Ok(())
}
