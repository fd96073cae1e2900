//! The hill's copies of its programs' folders: each kept once under the hash of
//! its content (names, kinds, executable bits, contents, link targets), never
//! following a link; and the disk they live on, watched so that a full disk
//! stops play before it stops a write.

use crate::error::HillError;
use std::path::Path;

/// Where every submitted version's folder is kept, by content hash, in a hill.
pub const VERSIONS: &str = "versions";

/// A result of the folders.
pub type Result<T, E = HillError> = std::result::Result<T, E>;

/// Where a hill keeps its rounds: one folder each, by number.
pub const ROUNDS: &str = "rounds";

/// Whether `folder` is one the hill makes: `versions/` and a hash.
pub(crate) fn is_version_folder(folder: &str) -> bool {
    folder
        .strip_prefix("versions/")
        .is_some_and(|h| !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Bytes a hill keeps free on its disk: below them it plays no games (a batch
/// that cannot be written would end the block with an error).
pub const DISK_RESERVE: u64 = 512 << 20;

/// The bytes free on the disk of `dir` when they are fewer than
/// [`DISK_RESERVE`] (or the `KOTH_HILL_DISK_RESERVE_MB` this process was given,
/// for tests), else `None`; `None` too when the disk cannot be asked.
pub fn disk_low(dir: &Path) -> Option<u64> {
    let reserve = std::env::var("KOTH_HILL_DISK_RESERVE_MB")
        .ok()
        .and_then(|m| m.parse::<u64>().ok())
        .map_or(DISK_RESERVE, |m| m << 20);
    let st = rustix::fs::statvfs(dir).ok()?;
    let free = st.f_bavail.saturating_mul(st.f_frsize);
    (free < reserve).then_some(free)
}

/// Copies a program's folder into the hill under its content hash (once: a
/// version with the same files shares it) and gives its path in the hill.
/// Links are kept as links, never followed.
pub fn keep_folder(hill: &Path, dir: &Path) -> Result<String> {
    let hash = hash_folder(dir).map_err(|e| {
        HillError::Io(format!(
            "cannot read the bot's folder {}: {e}",
            dir.display()
        ))
    })?;
    let rel = format!("{VERSIONS}/{hash}");
    let target = hill.join(&rel);
    if !target.is_dir() {
        let tmp = hill
            .join(VERSIONS)
            .join(format!(".new-{hash}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        koth_process::copy_tree(dir, &tmp)
            .and_then(|()| std::fs::rename(&tmp, &target))
            .map_err(|e| {
                let _ = std::fs::remove_dir_all(&tmp);
                HillError::Io(format!(
                    "cannot copy the bot's folder {}: {e}",
                    dir.display()
                ))
            })?;
    }
    Ok(rel)
}

/// A hash of a folder's names, kinds, executable bits, contents and link targets,
/// walked in name order without following a link.
pub fn hash_folder(dir: &Path) -> std::io::Result<String> {
    use std::os::unix::fs::PermissionsExt;
    let mut h = blake3::Hasher::new();
    let mut stack = vec![(dir.to_path_buf(), String::new())];
    let mut files = 0u64;
    while let Some((path, rel)) = stack.pop() {
        let mut entries: Vec<_> = std::fs::read_dir(&path)?.collect::<std::io::Result<_>>()?;
        entries.sort_by_key(|e| e.file_name());
        // Folders are walked after their files, in reverse on the stack: the order
        // is fixed, which is all a hash needs.
        for e in entries {
            files += 1;
            if files > koth_process::MAX_COPY_FILES {
                return Err(std::io::Error::other(format!(
                    "more than {} files",
                    koth_process::MAX_COPY_FILES
                )));
            }
            let name = e.file_name().to_string_lossy().into_owned();
            let r = format!("{rel}/{name}");
            let meta = std::fs::symlink_metadata(e.path())?;
            if meta.file_type().is_symlink() {
                h.update(b"l\0");
                h.update(r.as_bytes());
                h.update(b"\0");
                h.update(std::fs::read_link(e.path())?.as_os_str().as_encoded_bytes());
            } else if meta.is_dir() {
                h.update(b"d\0");
                h.update(r.as_bytes());
                stack.push((e.path(), r));
            } else {
                h.update(if meta.permissions().mode() & 0o111 != 0 {
                    b"x\0"
                } else {
                    b"f\0"
                });
                h.update(r.as_bytes());
                h.update(b"\0");
                h.update(&meta.len().to_le_bytes());
                let mut f = std::fs::File::open(e.path())?;
                std::io::copy(&mut f, &mut h)?;
            }
            h.update(b"\n");
        }
    }
    Ok(h.finalize().to_hex()[..32].to_string())
}

/// What [`backup`] copied.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Copied {
    /// Files copied (the database counts as one).
    pub files: u64,
    /// Their bytes.
    pub bytes: u64,
}

/// Copies the hill in `dir`, while it runs, into `to` (a folder that does not
/// exist yet): its database by the store's online backup (consistent at one
/// moment), then the programs' folders and the rounds. Every kept folder is
/// named by its content and never changes, so a copy taken after the
/// database's holds every folder that copy names. Links are copied as links,
/// never followed.
pub fn backup(dir: &Path, to: &Path) -> Result<Copied> {
    if to.exists() {
        return Err(HillError::Conflict(format!(
            "{} is there already\n  fix: name a new folder: the backup is a hill of its own",
            to.display()
        )));
    }
    let io = |e: std::io::Error, what: &Path| {
        HillError::Io(format!("cannot copy {}: {e}", what.display()))
    };
    let store = crate::store::open_read(dir)?;
    std::fs::create_dir_all(to).map_err(|e| io(e, to))?;
    private(to)?;
    if let Err(e) = store.backup(to) {
        let _ = std::fs::remove_dir_all(to);
        return Err(e.into());
    }
    let mut copied = Copied {
        files: 1,
        bytes: std::fs::metadata(to.join(crate::store::DATABASE)).map_or(0, |m| m.len()),
    };
    for sub in [VERSIONS, ROUNDS] {
        let from = dir.join(sub);
        if from.is_dir() {
            copy_all(&from, &to.join(sub), &mut copied).map_err(|e| io(e, &from))?;
        } else if sub == VERSIONS {
            std::fs::create_dir_all(to.join(sub)).map_err(|e| io(e, to))?;
        }
    }
    private(to)?;
    Ok(copied)
}

/// Makes a hill's folder (or a backup of one) its owner's alone, whatever
/// the umask: the folder 0700, its database file and the file naming the
/// database 0600. It holds the master seed, the tokens' hashes and every
/// entrant's code.
pub fn private(dir: &Path) -> Result<(), HillError> {
    use std::os::unix::fs::PermissionsExt;
    let set = |p: &Path, mode: u32| {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode))
            .map_err(|e| HillError::Io(format!("cannot make {} private: {e}", p.display())))
    };
    set(dir, 0o700)?;
    for f in [crate::store::DATABASE, crate::store::DATABASE_URL] {
        let p = dir.join(f);
        if std::fs::symlink_metadata(&p).is_ok_and(|m| m.is_file()) {
            set(&p, 0o600)?;
        }
    }
    Ok(())
}

/// `from` into `to`, files and links as they are, with no limit.
fn copy_all(from: &Path, to: &Path, copied: &mut Copied) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if kind.is_dir() {
            copy_all(&src, &dst, copied)?;
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&src)?, &dst)?;
        } else if kind.is_file() {
            copied.bytes += std::fs::copy(&src, &dst)?;
            copied.files += 1;
        }
    }
    Ok(())
}

/// Makes sure every program of `block` has its folder in the hill folder `dir`,
/// fetched from the store by content hash and checked against it (a worker
/// on another machine has only what the database holds). A folder already
/// there is checked against its hash too, at every block: one changed since
/// (by anyone with access to the worker's cache) is fetched again, never
/// played.
pub(crate) fn fetch_missing(
    store: &dyn crate::store::Store,
    dir: &Path,
    block: &crate::store::Block,
    versions: &[crate::store::Version],
) -> Result<(), HillError> {
    for v in &block.versions {
        let Some(spec) = versions.iter().find(|x| x.id == *v).map(|x| &x.spec) else {
            continue;
        };
        let Some(folder) = spec.get("folder").and_then(|f| f.as_str()) else {
            continue;
        };
        if !is_version_folder(folder) {
            continue;
        }
        let hash = &folder[VERSIONS.len() + 1..];
        let there = dir.join(folder);
        if there.is_dir() {
            if hash_folder(&there).is_ok_and(|h| h == hash) {
                continue;
            }
            if store.folder(hash)?.is_none() {
                return Err(HillError::Invalid(format!(
                    "{} differs from its hash {hash}, and the database keeps no copy: refused (someone changed the program's folder)",
                    there.display()
                )));
            }
            tracing::warn!(folder = %hash, "a cached folder differs from its hash: fetched again");
            std::fs::remove_dir_all(&there)
                .map_err(|e| HillError::Io(format!("cannot replace {}: {e}", there.display())))?;
        }
        fetch_folder(store, dir, hash)?;
    }
    Ok(())
}

/// Fetches the folder with content hash `hash` from `store` into the hill
/// folder `dir` (under `versions/HASH`), unpacked as an upload is and checked
/// against its hash before it is put in place.
pub fn fetch_folder(
    store: &dyn crate::store::Store,
    dir: &Path,
    hash: &str,
) -> Result<(), HillError> {
    let tar = store.folder(hash)?.ok_or_else(|| {
        HillError::NotFound(format!(
            "the hill's database keeps no folder {hash}: a worker cannot play its version\n  fix: enter the program again (koth hill update) from the hill's own machine"
        ))
    })?;
    let versions = dir.join(VERSIONS);
    std::fs::create_dir_all(&versions)
        .map_err(|e| HillError::Io(format!("cannot make {}: {e}", versions.display())))?;
    let tmp = versions.join(format!(".fetch-{hash}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    crate::upload::unpack(&tar, &tmp, &crate::upload::Limits::default()).map_err(|e| {
        HillError::Invalid(format!("the hill's folder {hash} cannot be unpacked: {e}"))
    })?;
    let got = hash_folder(&tmp).map_err(|e| HillError::Io(e.to_string()))?;
    if got != hash {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(HillError::Invalid(format!(
            "the folder the database gave for {hash} has hash {got}: refused (the database or the transfer changed it)"
        )));
    }
    match std::fs::rename(&tmp, versions.join(hash)) {
        Ok(()) => Ok(()),
        // Another worker on this machine put it there first.
        Err(_) if versions.join(hash).is_dir() => {
            let _ = std::fs::remove_dir_all(&tmp);
            Ok(())
        }
        Err(e) => Err(HillError::Io(format!("cannot keep folder {hash}: {e}"))),
    }
}

/// The tar of a version's folder, as the store keeps it for workers: files
/// and folders, links as links (never followed).
pub fn tar_folder(dir: &Path) -> Result<Vec<u8>, HillError> {
    let mut b = tar::Builder::new(Vec::new());
    b.follow_symlinks(false);
    b.mode(tar::HeaderMode::Deterministic);
    b.append_dir_all(".", dir)
        .and_then(|()| b.into_inner())
        .map_err(|e| HillError::Io(format!("cannot pack {}: {e}", dir.display())))
}

/// Removes the stderr logs (`logs/vN`) of every version not in `keep`. Only
/// folders koth made there are touched; one that cannot be removed is left for
/// the next time.
pub fn prune_logs(logs: &Path, keep: &[i64]) {
    let Ok(entries) = std::fs::read_dir(logs) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(v) = name
            .to_str()
            .and_then(|n| n.strip_prefix('v'))
            .and_then(|n| n.parse::<i64>().ok())
        else {
            continue;
        };
        // A folder, not a link to one (remove_dir_all follows none either).
        if !keep.contains(&v) && e.file_type().is_ok_and(|t| t.is_dir()) {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// The server's own paths as a hill's folder is spelled (as given and as
/// resolved), for [`scrub`].
pub fn own_paths(hill: &Path) -> Vec<String> {
    let mut paths = vec![koth_process::absolute(hill).display().to_string()];
    if let Ok(real) = std::fs::canonicalize(hill) {
        paths.push(real.display().to_string());
    }
    paths.retain(|p| p.len() > 1);
    paths.sort_by_key(|p| std::cmp::Reverse(p.len()));
    paths.dedup();
    paths
}

/// `text` (what a bot wrote to stderr, a check's report) with the machine's
/// paths taken out before anyone else reads it: a path under the hill's folder
/// (`paths`, a server's or a worker's cache) is put relative to it, the folder
/// itself is "the hill", and koth's scratch folders under the temporary
/// folder (where bots run) are `<folder>`.
pub fn scrub<'t>(text: &'t str, paths: &[String]) -> std::borrow::Cow<'t, str> {
    // Where koth's scratch folders begin, worked out once.
    static TMP: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let tmp = TMP.get_or_init(|| std::env::temp_dir().join("koth-").display().to_string());
    if !paths.iter().any(|p| text.contains(p.as_str())) && !text.contains(tmp.as_str()) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = text.to_string();
    for p in paths {
        out = out
            .replace(&format!("{p}/"), "")
            .replace(p.as_str(), "the hill");
    }
    // A scratch folder's name runs to the next separator.
    let mut clean = String::with_capacity(out.len());
    let mut rest = out.as_str();
    while let Some(at) = rest.find(tmp.as_str()) {
        clean.push_str(&rest[..at]);
        clean.push_str("<folder>");
        let after = &rest[at + tmp.len()..];
        let end = after
            .find(|c: char| c == '/' || c.is_whitespace() || c == '"' || c == '\'')
            .unwrap_or(after.len());
        rest = &after[end..];
    }
    clean.push_str(rest);
    std::borrow::Cow::Owned(clean)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_logs_of_versions_no_entrant_holds_are_removed_and_nothing_else() {
        let d = std::env::temp_dir().join(format!("koth-prune-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        let logs = d.join("logs");
        let outside = d.join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("keep.txt"), b"x").unwrap();
        for v in ["v1", "v2", "v3"] {
            std::fs::create_dir_all(logs.join(v)).unwrap();
            std::fs::write(logs.join(v).join("slot0.txt"), vec![b'e'; 1000]).unwrap();
        }
        std::fs::write(logs.join("v7"), b"a file").unwrap();
        std::os::unix::fs::symlink(&outside, logs.join("v8")).unwrap();
        std::fs::create_dir_all(logs.join("other")).unwrap();
        prune_logs(&logs, &[2]);
        assert!(!logs.join("v1").exists() && !logs.join("v3").exists());
        assert!(logs.join("v2/slot0.txt").exists());
        assert!(logs.join("v7").exists() && logs.join("other").exists());
        assert!(outside.join("keep.txt").exists(), "a link was followed");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn the_machines_paths_are_taken_out_of_what_a_bot_wrote() {
        let hill = vec!["/srv/koth/club".to_string()];
        let tmp = std::env::temp_dir().display().to_string();
        let text = format!(
            "File \"{tmp}/koth-folders-77-3-00ff00ff00ff00ff/slot-0/bot/bot.py\", line 3\nopen /srv/koth/club/versions/v2/x: denied in /srv/koth/club"
        );
        let clean = scrub(&text, &hill);
        assert_eq!(
            clean,
            "File \"<folder>/slot-0/bot/bot.py\", line 3\nopen versions/v2/x: denied in the hill"
        );
        assert!(matches!(
            scrub("no path here", &hill),
            std::borrow::Cow::Borrowed(_)
        ));
        let paths = own_paths(Path::new("relative/hill"));
        assert!(paths.iter().all(|p| p.starts_with('/')), "{paths:?}");
    }
}
