//! Copies of a program's folder, so that a probe or a parallel game never touches
//! the files the program keeps for itself.

use std::io;
use std::path::{Path, PathBuf};

/// The most a program's folder may hold to be copied: a folder this big is more
/// likely a whole project (or the current directory) than a bot.
pub const MAX_COPY_FILES: u64 = 20_000;
/// See [`MAX_COPY_FILES`].
pub const MAX_COPY_BYTES: u64 = 512 << 20;

/// Copies the tree at `from` into `to` (created): files with their permissions,
/// folders, and symbolic links as links. `to` must not be inside `from`, and the
/// tree must hold at most [`MAX_COPY_FILES`] files and [`MAX_COPY_BYTES`] bytes.
///
/// ```
/// let src = std::env::temp_dir().join(format!("koth-doc-src-{}", std::process::id()));
/// std::fs::create_dir_all(src.join("sub")).unwrap();
/// std::fs::write(src.join("sub/state.txt"), "3").unwrap();
/// let dst = src.with_extension("copy");
/// koth_process::copy_tree(&src, &dst).unwrap();
/// assert_eq!(std::fs::read_to_string(dst.join("sub/state.txt")).unwrap(), "3");
/// # std::fs::remove_dir_all(&src).ok(); std::fs::remove_dir_all(&dst).ok();
/// ```
pub fn copy_tree(from: &Path, to: &Path) -> io::Result<()> {
    if to.starts_with(from) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("cannot copy {} into itself", from.display()),
        ));
    }
    copy_within(from, to, &mut (0, 0))
}

fn copy_within(from: &Path, to: &Path, used: &mut (u64, u64)) -> io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        used.0 += 1;
        if kind.is_dir() {
            copy_within(&src, &dst, used)?;
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&src)?, &dst)?;
        } else {
            used.1 += std::fs::copy(&src, &dst)?;
        }
        if used.0 > MAX_COPY_FILES || used.1 > MAX_COPY_BYTES {
            return Err(io::Error::other(format!(
                "more than {MAX_COPY_FILES} files or {} MiB: give the program a folder of its own",
                MAX_COPY_BYTES >> 20
            )));
        }
    }
    Ok(())
}

/// The subfolders of a sandboxed program's folder shown read-only in place
/// rather than copied into its private folder: none when the folder fits (at
/// most [`MAX_COPY_FILES`] entries and half of `limit` bytes, the other half
/// left for what it writes); else its largest top-level folders (a
/// `node_modules`, a virtual environment) until the rest fits. Counted without
/// following a link, and at most ten times the file limit per folder.
///
/// ```
/// let d = std::env::temp_dir().join(format!("koth-doc-inplace-{}", std::process::id()));
/// std::fs::create_dir_all(d.join("node_modules")).unwrap();
/// for i in 0..30_000 {
///     std::fs::write(d.join("node_modules").join(i.to_string()), "").unwrap();
/// }
/// std::fs::write(d.join("bot.js"), "").unwrap();
/// assert_eq!(koth_process::shown_in_place(&d, Some(256 << 20)), [std::path::PathBuf::from("node_modules")]);
/// # std::fs::remove_dir_all(&d).ok();
/// ```
pub fn shown_in_place(folder: &Path, limit: Option<u64>) -> Vec<PathBuf> {
    let max_bytes = limit.map_or(MAX_COPY_BYTES, |b| b / 2);
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let (mut files, mut bytes) = (0u64, 0u64);
    let mut dirs: Vec<(u64, u64, PathBuf)> = Vec::new();
    for e in entries.flatten() {
        let Ok(kind) = e.file_type() else { continue };
        if kind.is_dir() {
            let mut t = (0, 0);
            tally(&e.path(), &mut t);
            files += t.0 + 1;
            bytes += t.1;
            dirs.push((t.0, t.1, PathBuf::from(e.file_name())));
        } else {
            files += 1;
            bytes += e.metadata().map_or(0, |m| m.len());
        }
    }
    // The largest first, by entries then bytes, until the rest fits.
    dirs.sort_by_key(|d| std::cmp::Reverse((d.0, d.1)));
    let mut shown = Vec::new();
    for (f, b, name) in dirs {
        if files <= MAX_COPY_FILES && bytes <= max_bytes {
            break;
        }
        files -= f + 1;
        bytes -= b;
        shown.push(name);
    }
    shown
}

/// Adds the entries and bytes under `dir` to `t`, links not followed, stopping
/// at ten times [`MAX_COPY_FILES`].
fn tally(dir: &Path, t: &mut (u64, u64)) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        if t.0 > 10 * MAX_COPY_FILES {
            return;
        }
        t.0 += 1;
        match e.file_type() {
            Ok(k) if k.is_dir() => tally(&e.path(), t),
            Ok(_) => t.1 += e.metadata().map_or(0, |m| m.len()),
            Err(_) => {}
        }
    }
}

/// `p` made absolute against the current folder, with `.` and `..` taken out
/// by the words (`bots/x/..` is `bots`), as a tournament file's `dir = ".."`
/// means; `p` itself when the current folder is unknown. Paths compared with
/// one another (a hidden file inside a bot's folder) must be made so alike.
///
/// ```
/// use std::path::Path;
/// assert_eq!(koth_process::absolute(Path::new("/a/b/../c/./d")), Path::new("/a/c/d"));
/// ```
pub fn absolute(p: &Path) -> std::path::PathBuf {
    let Ok(abs) = std::path::absolute(p) else {
        return p.to_path_buf();
    };
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// A scratch folder, removed with everything in it when dropped.
#[derive(Debug)]
pub struct ScratchDir(PathBuf);

impl ScratchDir {
    /// A new empty folder under the system's temporary folder, named after `label`.
    pub fn new(label: &str) -> io::Result<ScratchDir> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let clean: String = label
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .take(40)
            .collect();
        let tmp = std::env::temp_dir();
        let names = std::iter::repeat_with(|| {
            let mut salt = [0u8; 8];
            getrandom::fill(&mut salt).map_err(|e| io::Error::other(e.to_string()))?;
            Ok(tmp.join(format!(
                "koth-{clean}-{}-{}-{:016x}",
                std::process::id(),
                NEXT.fetch_add(1, Ordering::Relaxed),
                u64::from_le_bytes(salt)
            )))
        });
        Ok(ScratchDir(create_first_free(names.take(64))?))
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

/// Creates the first of `names` that does not exist yet and gives it. The
/// temporary folder is shared with every user of the machine: a name someone
/// else made first (a folder, or a link to one) is never used, as
/// `create_dir_all` would.
fn create_first_free(names: impl Iterator<Item = io::Result<PathBuf>>) -> io::Result<PathBuf> {
    for name in names {
        let name = name?;
        match std::fs::create_dir(&name) {
            Ok(()) => return Ok(name),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        "no free name for a scratch folder in the temporary folder",
    ))
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Where the working copies of programs' folders live: one folder per program and
/// parallel game slot, so two games never share a file and a program never writes
/// into the folder it was entered from.
///
/// One-shot programs (a process per move) get a fresh copy at the start of every
/// game ([`Workspace::refresh`]), so a game sees the same files whichever slot or
/// thread plays it; long-lived programs get one copy per slot when they start.
///
/// ```
/// use koth_process::Workspace;
/// let src = std::env::temp_dir().join(format!("koth-doc-bot-{}", std::process::id()));
/// std::fs::create_dir_all(&src).unwrap();
/// std::fs::write(src.join("state.txt"), "0").unwrap();
/// let ws = Workspace::new(None).unwrap();
/// let dir = ws.refresh(&src, 1, "my bot").unwrap();
/// assert_eq!(std::fs::read_to_string(dir.join("state.txt")).unwrap(), "0");
/// # std::fs::remove_dir_all(&src).ok();
/// ```
#[derive(Debug)]
pub struct Workspace {
    root: PathBuf,
    _scratch: Option<ScratchDir>,
    /// Sandboxed programs' private folders are copied here when they end, to look
    /// at (see [`Workspace::kept`]).
    keep: bool,
}

impl Workspace {
    /// Copies under `root` (kept after the run, to look at), or under a scratch
    /// folder removed when the workspace is dropped.
    pub fn new(root: Option<&Path>) -> io::Result<std::sync::Arc<Workspace>> {
        let (root, scratch) = match root {
            Some(r) => {
                std::fs::create_dir_all(r)?;
                (r.to_path_buf(), None)
            }
            None => {
                let s = ScratchDir::new("folders")?;
                (s.path().to_path_buf(), Some(s))
            }
        };
        Ok(std::sync::Arc::new(Workspace {
            root,
            _scratch: scratch,
            keep: false,
        }))
    }

    /// A workspace under `root` (kept after the run) where sandboxed programs' private
    /// folders are kept too: each is copied to its slot's folder when it ends.
    pub fn kept(root: &Path) -> io::Result<std::sync::Arc<Workspace>> {
        std::fs::create_dir_all(root)?;
        Ok(std::sync::Arc::new(Workspace {
            root: root.to_path_buf(),
            _scratch: None,
            keep: true,
        }))
    }

    /// Where a sandboxed program `name` of `slot` keeps its folder when it ends: an
    /// empty folder, when this workspace keeps them.
    pub fn keep_dir(&self, slot: usize, name: &str) -> Result<Option<PathBuf>, String> {
        if !self.keep {
            return Ok(None);
        }
        let dir = self.slot_dir(slot, name);
        if dir.exists() {
            std::fs::remove_dir_all(&dir)
                .map_err(|e| format!("cannot clear {}: {e}", dir.display()))?;
        }
        std::fs::create_dir_all(&dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
        Ok(Some(dir))
    }

    /// The folder of program `name` in `slot` (not created).
    pub fn slot_dir(&self, slot: usize, name: &str) -> PathBuf {
        self.root
            .join(format!("slot-{slot}"))
            .join(file_name_of(name))
    }

    /// Makes the folder of `name` in `slot` a fresh copy of `original` and returns
    /// it. The error names both folders.
    pub fn refresh(&self, original: &Path, slot: usize, name: &str) -> Result<PathBuf, String> {
        let dir = self.slot_dir(slot, name);
        if dir.exists() {
            std::fs::remove_dir_all(&dir)
                .map_err(|e| format!("cannot clear {}: {e}", dir.display()))?;
        }
        copy_tree(original, &dir).map_err(|e| {
            format!(
                "cannot copy {} to {}: {e}",
                original.display(),
                dir.display()
            )
        })?;
        Ok(dir)
    }
}

/// A bot's name as a plain file name of the run's folder: letters, digits, `-`, `_`
/// and `.` kept, anything else `_`, never hidden, never empty.
///
/// ```
/// assert_eq!(koth_process::file_name_of("../my bot"), "_my_bot");
/// ```
pub fn file_name_of(name: &str) -> String {
    let clean: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let clean = clean.trim_start_matches('.');
    if clean.is_empty() {
        "_".to_string()
    } else {
        clean.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scratch_folder_never_takes_a_name_someone_made_first() {
        let base = std::env::temp_dir().join(format!("koth-planted-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(base.join("elsewhere")).unwrap();
        let names: Vec<PathBuf> = (0..4).map(|k| base.join(format!("scratch-{k}"))).collect();
        // A link planted at the first name, a folder at the second.
        std::os::unix::fs::symlink(base.join("elsewhere"), &names[0]).unwrap();
        std::fs::create_dir(&names[1]).unwrap();
        let got = super::create_first_free(names.iter().cloned().map(Ok)).unwrap();
        assert_eq!(got, names[2]);
        assert!(std::fs::symlink_metadata(&got).unwrap().is_dir());
        // Every name taken: an error, not a folder someone else owns.
        let e = super::create_first_free(names[..3].iter().cloned().map(Ok)).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::AlreadyExists);
        // Fresh scratch folders: real folders, each its own, gone when dropped.
        let (a, b) = (ScratchDir::new("x").unwrap(), ScratchDir::new("x").unwrap());
        assert_ne!(a.path(), b.path());
        assert!(std::fs::symlink_metadata(a.path()).unwrap().is_dir());
        let gone = a.path().to_path_buf();
        drop(a);
        assert!(!gone.exists());
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn copies_files_links_and_folders_and_refuses_itself() {
        let s = ScratchDir::new("copy test").unwrap();
        let src = s.path().join("src");
        std::fs::create_dir_all(src.join("a/b")).unwrap();
        std::fs::write(src.join("a/b/f"), "x").unwrap();
        std::os::unix::fs::symlink("a/b/f", src.join("link")).unwrap();
        let dst = s.path().join("dst");
        copy_tree(&src, &dst).unwrap();
        assert_eq!(std::fs::read_to_string(dst.join("a/b/f")).unwrap(), "x");
        assert_eq!(std::fs::read_to_string(dst.join("link")).unwrap(), "x");
        assert!(std::fs::symlink_metadata(dst.join("link"))
            .unwrap()
            .file_type()
            .is_symlink());
        assert!(copy_tree(&src, &src.join("inner")).is_err());
        let path = s.path().to_path_buf();
        drop(s);
        assert!(!path.exists());
    }

    #[test]
    fn a_workspace_refreshes_copies_per_slot() {
        let s = ScratchDir::new("ws test").unwrap();
        let src = s.path().join("bot");
        std::fs::create_dir_all(&src).unwrap();
        std::fs::write(src.join("state.txt"), "0").unwrap();
        let ws = Workspace::new(Some(&s.path().join("work"))).unwrap();
        let a = ws.refresh(&src, 0, "../evil name").unwrap();
        let b = ws.refresh(&src, 1, "../evil name").unwrap();
        assert_ne!(a, b);
        assert!(a.starts_with(s.path().join("work")), "{a:?}");
        std::fs::write(a.join("state.txt"), "5").unwrap();
        std::fs::write(a.join("extra"), "x").unwrap();
        assert_eq!(std::fs::read_to_string(b.join("state.txt")).unwrap(), "0");
        let again = ws.refresh(&src, 0, "../evil name").unwrap();
        assert_eq!(again, a);
        assert_eq!(std::fs::read_to_string(a.join("state.txt")).unwrap(), "0");
        assert!(!a.join("extra").exists());
        assert_eq!(std::fs::read_to_string(src.join("state.txt")).unwrap(), "0");
        let gone = Workspace::new(None).unwrap();
        let root = gone.slot_dir(0, "x");
        gone.refresh(&src, 0, "x").unwrap();
        assert!(root.exists());
        drop(gone);
        assert!(!root.exists());
    }
}
