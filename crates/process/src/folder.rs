//! Copies of a program's folder, so that a probe or a parallel game never touches
//! the files the program keeps for itself.

use std::io;
use std::path::{Path, PathBuf};

/// Copies the tree at `from` into `to` (created): files with their permissions,
/// folders, and symbolic links as links. `to` must not be inside `from`.
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
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if kind.is_dir() {
            copy_tree(&src, &dst)?;
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&src)?, &dst)?;
        } else {
            std::fs::copy(&src, &dst)?;
        }
    }
    Ok(())
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
        let path = std::env::temp_dir().join(format!(
            "koth-{clean}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&path)?;
        Ok(ScratchDir(path))
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
