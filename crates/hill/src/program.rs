//! What an uploaded program may be: a command that names nothing of the host.
//!
//! A hill's program runs in its own folder (the hill's content-hashed copy of
//! what its author uploaded) with the system's folders and the runtimes the
//! organiser allows, and nothing else. Its command is checked before anything
//! runs: the program is either a runtime the hill allows (`python3`, `node`),
//! looked up on the hill's `PATH` and never in the upload, or a file of the
//! upload's own (`./bot`); no word may name a path outside the folder (no
//! absolute path, no `..`). The check and every game then run exactly the words
//! stored, in the same folder and the same sandbox ([`program_bot`]).

use std::path::{Component, Path};

use koth_entrants::{BotEntry, BotSource, Protocol};
use koth_process::{Limits, Sandbox};

/// The runtimes a hill allows when its organiser named none.
pub const DEFAULT_RUNTIMES: [&str; 10] = [
    "python3", "pypy3", "node", "ruby", "perl", "php", "lua", "java", "bash", "sh",
];

/// The most words a command may have, and bytes a word.
const MAX_WORDS: usize = 64;
const MAX_WORD: usize = 1024;

/// Why a command was refused, in words for its author, with the fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct CommandRefused(pub String);

/// The words of `command`, an uploaded bot's command line, once they name
/// nothing outside `folder` (the unpacked upload) and run a runtime of
/// `runtimes` or a program of the folder's own.
///
/// ```
/// # let d = std::env::temp_dir().join(format!("koth-doc-cmd-{}", std::process::id()));
/// # std::fs::create_dir_all(&d).unwrap();
/// use koth_hill::program::command_words;
/// let py = ["python3".to_string()];
/// assert_eq!(command_words("python3 bot.py --fast", &d, &py).unwrap(), ["python3", "bot.py", "--fast"]);
/// assert!(command_words("python3 /srv/hill/hill.sqlite", &d, &py).is_err());
/// assert!(command_words("python3 ../../hill.sqlite", &d, &py).is_err());
/// assert!(command_words("perl bot.pl", &d, &py).is_err());
/// // A link in the upload that leads out of it is refused too.
/// std::os::unix::fs::symlink("/usr/bin", d.join("sub")).unwrap();
/// assert!(command_words("sub/python3 bot.py", &d, &py).is_err());
/// std::os::unix::fs::symlink("/etc/passwd", d.join("data.txt")).unwrap();
/// assert!(command_words("python3 bot.py --data=data.txt", &d, &py).is_err());
/// # std::fs::remove_dir_all(&d).ok();
/// ```
pub fn command_words(
    command: &str,
    folder: &Path,
    runtimes: &[String],
) -> Result<Vec<String>, CommandRefused> {
    let words: Vec<String> = command.split_whitespace().map(str::to_string).collect();
    let Some(program) = words.first() else {
        return Err(CommandRefused(
            "no command: say how to run the bot, such as python3 bot.py".into(),
        ));
    };
    if words.len() > MAX_WORDS || words.iter().any(|w| w.len() > MAX_WORD) {
        return Err(CommandRefused(format!(
            "a command of at most {MAX_WORDS} words of {MAX_WORD} bytes each"
        )));
    }
    for w in &words {
        if let Some(why) = outside(w) {
            return Err(CommandRefused(format!(
                "{w:?} {why}: a bot sees its own folder and nothing else\n  fix: put what it needs in its folder and name it from there (such as data/weights.bin)"
            )));
        }
    }
    // Every word that names something of the upload names it inside the
    // upload once links are resolved (a folder `sub` linked to `/usr/bin` is
    // not the upload's, whatever the words say).
    let home = std::fs::canonicalize(folder)
        .map_err(|e| CommandRefused(format!("the upload's folder cannot be read: {e}")))?;
    for w in &words {
        for part in w.split(['=', ':', ',']).filter(|p| !p.is_empty()) {
            // As far as the path exists: `up/x.py` leaves through `up`.
            let named = home.join(part);
            let real = named
                .ancestors()
                .take_while(|a| a.starts_with(&home))
                .find_map(|a| std::fs::canonicalize(a).ok());
            if let Some(real) = real {
                if !real.starts_with(&home) {
                    return Err(CommandRefused(format!(
                        "{w:?} leads out of the bot's folder through a link: a bot sees its own folder and nothing else\n  fix: upload the file itself, not a link to it"
                    )));
                }
            }
        }
    }
    if program.contains('/') {
        // A program of its own: a plain executable file of the upload.
        let rel = Path::new(program);
        let ok = std::fs::symlink_metadata(home.join(rel)).is_ok_and(|m| {
            use std::os::unix::fs::PermissionsExt;
            m.is_file() && m.permissions().mode() & 0o111 != 0
        });
        if !ok {
            return Err(CommandRefused(format!(
                "{program:?} is not an executable file of the upload\n  fix: upload it with its executable bit set (chmod +x), or run it with a runtime (such as python3 bot.py)"
            )));
        }
    } else if !runtimes.iter().any(|r| r == program) {
        return Err(CommandRefused(format!(
            "{program:?} is not a runtime this hill allows (it allows {})\n  fix: run the bot with one of them, or name a program of the upload as ./{program}",
            runtimes.join(", ")
        )));
    }
    Ok(words)
}

/// Why `word` names something outside a bot's folder, if it does: an absolute
/// path, a home (`~`), or a `..` anywhere (also after `=` or `:`, as in
/// `--data=../x` or `PYTHONPATH=a:/b`).
fn outside(word: &str) -> Option<&'static str> {
    if word.contains('\0') {
        return Some("holds a NUL byte");
    }
    for part in word.split(['=', ':', ',']) {
        if part.starts_with('/') {
            return Some("is an absolute path");
        }
        if part.starts_with('~') {
            return Some("names a home folder");
        }
        if Path::new(part)
            .components()
            .any(|c| matches!(c, Component::ParentDir))
        {
            return Some("leads out of the bot's folder with ..");
        }
    }
    None
}

/// The `PATH` a hill's programs find their runtime on: the operator's, less any
/// entry that is not absolute (a relative entry would be looked up in the bot's
/// own folder, where an upload could put a `python3` of its own).
pub fn hill_path() -> String {
    absolute_entries(&std::env::var_os("PATH").unwrap_or_default())
}

/// The entries of `path` (a `PATH`) that are absolute, joined again.
fn absolute_entries(path: &std::ffi::OsStr) -> String {
    let dirs: Vec<_> = std::env::split_paths(path)
        .filter(|d| d.is_absolute())
        .collect();
    std::env::join_paths(dirs)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The bot a hill runs for a program version: exactly `command` in `dir`, over
/// `protocol`, with the standard limits, isolated as `sandbox` says, its
/// runtime found on [`hill_path`]. The upload's check and every game use this.
pub fn program_bot(
    name: &str,
    command: Vec<String>,
    dir: &Path,
    protocol: Protocol,
    sandbox: Sandbox,
) -> BotEntry {
    BotEntry::new(
        name,
        BotSource::Program {
            command,
            dir: dir.to_path_buf(),
            env: vec![("PATH".to_string(), hill_path())],
            limits: Limits::standard(),
            sandbox,
            read_only: Vec::new(),
            protocol,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(tag: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("koth-hill-cmd-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn rt() -> Vec<String> {
        DEFAULT_RUNTIMES.iter().map(|s| s.to_string()).collect()
    }

    /// Containment is decided on canonical paths: a link of the upload that
    /// leads out of it is refused whatever the words look like; one that stays
    /// inside is the upload's.
    #[test]
    fn a_link_out_of_the_upload_is_refused_and_one_inside_is_not() {
        use std::os::unix::fs::symlink;
        let d = folder("links");
        std::fs::create_dir_all(d.join("lib")).unwrap();
        std::fs::write(d.join("lib/bot.py"), "").unwrap();
        symlink("lib/bot.py", d.join("bot.py")).unwrap();
        symlink("/usr/bin", d.join("bin")).unwrap();
        symlink("..", d.join("up")).unwrap();
        symlink("/etc/passwd", d.join("python3")).unwrap();
        assert!(
            command_words("python3 bot.py", &d, &rt()).is_err(),
            "python3 names a link out"
        );
        std::fs::remove_file(d.join("python3")).unwrap();
        assert_eq!(
            command_words("python3 bot.py", &d, &rt()).unwrap(),
            ["python3", "bot.py"]
        );
        for bad in [
            "bin/python3 bot.py",
            "python3 up/x.py",
            "python3 bot.py --lib=bin",
        ] {
            let e = command_words(bad, &d, &rt()).unwrap_err();
            assert!(
                e.0.contains("through a link") && e.0.contains("fix:"),
                "{bad}: {e}"
            );
        }
        std::fs::remove_dir_all(&d).ok();
    }

    #[test]
    fn a_command_naming_the_host_is_refused() {
        let d = folder("host");
        std::fs::write(d.join("bot.py"), "").unwrap();
        for bad in [
            "python3 spy.py /srv/hill",
            "python3 ../../hill.sqlite",
            "python3 bot.py ..",
            "python3 sub/../../x",
            "python3 bot.py --data=/etc",
            "python3 bot.py --data=../x",
            "env PYTHONPATH=/srv python3 bot.py",
            "python3 ~/x.py",
            "python3 ~root/x.py",
            "/usr/bin/python3 bot.py",
            "../python3 bot.py",
        ] {
            let e = command_words(bad, &d, &rt()).unwrap_err();
            assert!(e.0.contains("fix:"), "{bad}: {e}");
        }
        assert_eq!(
            command_words("python3 bot.py sub/data.txt -v", &d, &rt()).unwrap(),
            ["python3", "bot.py", "sub/data.txt", "-v"]
        );
    }

    #[test]
    fn the_program_is_a_runtime_allowed_or_a_file_of_the_upload() {
        let d = folder("program");
        // A file named like a runtime changes nothing: python3 is the runtime.
        std::fs::write(d.join("python3"), "#!/bin/sh\n").unwrap();
        assert_eq!(
            command_words("python3 bot.py", &d, &rt()).unwrap()[0],
            "python3"
        );
        let e = command_words("python9 bot.py", &d, &rt()).unwrap_err();
        assert!(e.0.contains("not a runtime this hill allows"), "{e}");
        assert!(command_words("node bot.js", &d, &["python3".into()]).is_err());
        // Its own program: executable, a plain file (not a link, not a folder).
        let e = command_words("./python3", &d, &rt()).unwrap_err();
        assert!(e.0.contains("executable"), "{e}");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(d.join("python3"), std::fs::Permissions::from_mode(0o755))
            .unwrap();
        assert!(command_words("./python3 bot.py", &d, &rt()).is_ok());
        std::os::unix::fs::symlink("/bin/sh", d.join("shell")).unwrap();
        assert!(command_words("./shell", &d, &rt()).is_err());
        std::fs::create_dir(d.join("dir")).unwrap();
        assert!(command_words("./dir", &d, &rt()).is_err());
        assert!(command_words("", &d, &rt()).is_err());
    }

    #[test]
    fn the_path_keeps_absolute_entries_only() {
        let given = std::ffi::OsString::from(".:/usr/bin:bin::./tools:/bin");
        assert_eq!(absolute_entries(&given), "/usr/bin:/bin");
        let p = hill_path();
        assert!(std::env::split_paths(&p).all(|d| d.is_absolute()), "{p}");
    }
}
