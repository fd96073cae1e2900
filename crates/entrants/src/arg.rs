//! Bots named on the command line: `--bot NAME=KIND` and bare names or commands.

use crate::coup_cli::coup_cli_command;
use crate::error::ConfigError;
use crate::game::GameKind;
use crate::kind::{BotEntry, BotSource, Protocol};
use koth_process::{Limits, Sandbox};
use std::path::{Path, PathBuf};

/// Parses a Coup `--bot` argument: `NAME=builtin:honest` or `NAME=cmd:python3 bot.py`
/// (the command is split on whitespace and runs in the folder of the program file it
/// names, or in the current folder).
pub fn parse_bot_arg(arg: &str) -> Result<BotEntry, ConfigError> {
    parse_bot_arg_for(GameKind::Coup, arg)
}

/// [`parse_bot_arg`] for `game`. A Samurai bot may also be
/// `NAME=samurai-cli:./challenger`, a program of the original challenge; a Coup bot
/// `NAME=ppcg:python3 bot.py`, a program of the two-player challenge, or
/// `NAME=coup-cli:path/to/bots/myBot`, a coup-cli bot folder (run from the folder two
/// levels up, a coup-cli checkout's root).
///
/// ```
/// use koth_entrants::{parse_bot_arg_for, BotSource, GameKind, Protocol};
/// let b = parse_bot_arg_for(GameKind::Samurai, "old=samurai-cli:python3 waiter.py").unwrap();
/// assert!(matches!(b.source, BotSource::Program { protocol: Protocol::SamuraiCli, .. }));
/// assert!(parse_bot_arg_for(GameKind::Samurai, "x=builtin:honest").is_err());
/// ```
pub fn parse_bot_arg_for(game: GameKind, arg: &str) -> Result<BotEntry, ConfigError> {
    let example = match game {
        GameKind::Coup => "honest",
        GameKind::Samurai => "bower",
    };
    let usage = format!(
        "\n  fix: write --bot NAME=builtin:{example} or --bot 'NAME=cmd:python3 bot.py'{}",
        if game == GameKind::Samurai {
            " (a program of the original challenge: 'NAME=samurai-cli:python3 bot.py')"
        } else {
            ""
        }
    );
    // A bare built-in (`honest`, `builtin:honest`) names itself.
    let bare = arg.trim();
    let bare = bare.strip_prefix("builtin:").unwrap_or(bare);
    if !arg.contains('=') && game.has_builtin(bare) {
        return Ok(BotEntry::new(bare, BotSource::Builtin(bare.to_string())));
    }
    let Some((name, spec)) = arg.split_once('=') else {
        return Err(ConfigError(format!("--bot {arg:?} has no NAME={usage}")));
    };
    let name = name.trim();
    if name.is_empty() {
        return Err(ConfigError(format!(
            "--bot {arg:?} has an empty name{usage}"
        )));
    }
    let program = |c: &str, protocol: Protocol| {
        let mut command: Vec<String> = c.split_whitespace().map(str::to_string).collect();
        if command.is_empty() {
            return Err(ConfigError(format!(
                "--bot {arg:?} has an empty command{usage}"
            )));
        }
        let dir = program_folder(&mut command);
        Ok(BotSource::Program {
            // What the command names outside its folder (the operator's words).
            read_only: koth_process::operator_paths(&command, &dir),
            command,
            dir,
            env: Vec::new(),
            limits: Limits::standard(),
            sandbox: Sandbox::Auto,
            protocol,
        })
    };
    let source = if let Some(b) = spec.strip_prefix("builtin:") {
        let b = b.trim();
        if !game.has_builtin(b) {
            return Err(ConfigError(format!(
                "--bot {arg:?}: unknown built-in bot {b:?}\n  fix: {}",
                game.builtin_fix(b)
            )));
        }
        BotSource::Builtin(b.to_string())
    } else if let Some(c) = spec.strip_prefix("cmd:") {
        program(c, Protocol::Json)?
    } else if let Some(c) = spec
        .strip_prefix("samurai-cli:")
        .filter(|_| game == GameKind::Samurai)
    {
        program(c, Protocol::SamuraiCli)?
    } else if let Some(c) = spec
        .strip_prefix("ppcg:")
        .filter(|_| game == GameKind::Coup)
    {
        program(c, Protocol::Ppcg)?
    } else if let Some(folder) = spec
        .strip_prefix("coup-cli:")
        .filter(|_| game == GameKind::Coup)
    {
        // The bot's folder runs from its parent's parent (a coup-cli checkout's root,
        // whose `bots/` ALLBOTS() reads), or the current folder.
        let folder = Path::new(folder.trim());
        let root = folder
            .parent()
            .and_then(Path::parent)
            .filter(|p| !p.as_os_str().is_empty())
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        let rel = folder.strip_prefix(&root).unwrap_or(folder);
        let command = coup_cli_command(&rel.display().to_string())?;
        BotSource::Program {
            // koth's adapter and its helpers.
            read_only: koth_process::operator_paths(&command, &root),
            command,
            dir: root,
            env: Vec::new(),
            limits: Limits::standard(),
            sandbox: Sandbox::Auto,
            protocol: Protocol::CoupCli,
        }
    } else {
        return Err(ConfigError(format!(
            "--bot {arg:?}: expected builtin:NAME or cmd:COMMAND after '='{usage}"
        )));
    };
    Ok(BotEntry::new(name, source))
}

/// The folder a `cmd:` bot runs in: that of its program file. An interpreter's
/// argument naming a file is the program (`python3 bots/me/bot.py` and
/// `/usr/bin/python3 bots/me/bot.py` both run `bot.py` in `bots/me`, as a tournament
/// file's `dir` would; the interpreter's own folder is never the bot's); else the
/// program itself when named by path (`bots/me/run` runs `./run` in `bots/me`); else
/// the current folder. The word is made relative to the folder.
fn program_folder(command: &mut [String]) -> PathBuf {
    let script = command
        .iter()
        .enumerate()
        .skip(1)
        .find(|(_, w)| Path::new(w.as_str()).is_file())
        .map(|(i, _)| i);
    if let Some(i) = script {
        let p = PathBuf::from(&command[i]);
        let dir = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if let Some(file) = p.file_name() {
            command[i] = file.to_string_lossy().into_owned();
        }
        // An interpreter named by a relative path must still be found from there.
        if command[0].contains('/') && !command[0].starts_with('/') {
            if let Ok(abs) = std::path::absolute(&command[0]) {
                command[0] = abs.to_string_lossy().into_owned();
            }
        }
        return dir;
    }
    let p = Path::new(command.first().map(String::as_str).unwrap_or_default());
    if let (Some(parent), Some(file)) = (p.parent(), p.file_name()) {
        // A tool from a folder on PATH (`/usr/bin/python3 -c ...`) is no bot's home.
        let path = std::env::var_os("PATH").unwrap_or_default();
        let tool = std::env::split_paths(&path).any(|d| d == parent);
        if !parent.as_os_str().is_empty() && p.is_file() && !tool {
            let dir = parent.to_path_buf();
            // A program run by path needs its `./`.
            let file = format!("./{}", file.to_string_lossy());
            command[0] = file;
            return dir;
        }
    }
    PathBuf::from(".")
}

/// The first argument after the program that names a script by its extension
/// (`waiter.js`, `bots/me/bot.py`) and is not a file in `dir`, the program's
/// folder: given from the wrong folder, the bot would start in the current one,
/// and fail there or copy all of it.
pub(crate) fn missing_script(command: &[String], dir: &Path) -> Option<String> {
    const SCRIPTS: [&str; 14] = [
        "py", "js", "mjs", "cjs", "ts", "rb", "pl", "php", "lua", "sh", "jar", "r", "jl", "exs",
    ];
    command
        .iter()
        .skip(1)
        .filter(|w| !w.starts_with('-'))
        .find(|w| {
            Path::new(w.as_str())
                .extension()
                .is_some_and(|e| SCRIPTS.contains(&e.to_string_lossy().to_lowercase().as_str()))
        })
        .filter(|w| !dir.join(w.as_str()).exists())
        .cloned()
}

/// A bot named on the command line: `NAME=KIND`, `builtin:NAME`, `cmd:COMMAND`
/// (`samurai-cli:COMMAND` for Samurai), a built-in's name, or a bare command, named
/// after its program file (`python3 bots/my_bot.py` is `my_bot`).
///
/// ```
/// use koth_entrants::{parse_bot, BotSource, GameKind};
/// assert_eq!(parse_bot(GameKind::Coup, "honest").unwrap().source, BotSource::Builtin("honest".into()));
/// assert_eq!(parse_bot(GameKind::Coup, "python3 bots/my_bot.py").unwrap().name, "my_bot");
/// ```
pub fn parse_bot(game: GameKind, arg: &str) -> Result<BotEntry, ConfigError> {
    let arg = arg.trim();
    const KINDS: [&str; 5] = ["builtin:", "cmd:", "samurai-cli:", "ppcg:", "coup-cli:"];
    let has_kind = |s: &str| KINDS.iter().any(|k| s.starts_with(k));
    if let Some((name, kind)) = arg.split_once('=') {
        if !name.contains(char::is_whitespace) && has_kind(kind) {
            return parse_bot_arg_for(game, arg);
        }
    }
    if game.has_builtin(arg) {
        return Ok(BotEntry::new(arg, BotSource::Builtin(arg.to_string())));
    }
    if let Some(e) = unknown_word(game, arg) {
        return Err(e);
    }
    let spec = if has_kind(arg) {
        arg.to_string()
    } else {
        format!("cmd:{arg}")
    };
    let body = spec.split_once(':').map(|x| x.1).unwrap_or_default();
    let words: Vec<&str> = body.split_whitespace().collect();
    let file = words
        .iter()
        .rev()
        .find(|w| w.contains('.') || w.contains('/'))
        .or(words.first())
        .copied()
        .unwrap_or("bot");
    let stem = Path::new(file)
        .file_stem()
        .and_then(|s| s.to_str())
        .filter(|s| !s.is_empty())
        .unwrap_or("bot");
    parse_bot_arg_for(game, &format!("{stem}={spec}"))
}

/// A single word that is neither a built-in bot nor a program on `PATH`: most
/// often a mistyped built-in, said before any folder is copied or game played.
fn unknown_word(game: GameKind, arg: &str) -> Option<ConfigError> {
    let plain = !arg.is_empty()
        && arg
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '_');
    if !plain || on_path(arg) {
        return None;
    }
    let builtins = game.builtins();
    let hint = match game.near_builtin(arg) {
        Some(b) => format!("did you mean {b}? "),
        None => String::new(),
    };
    Some(ConfigError(format!(
        "unknown {} bot {arg:?}: not a built-in bot, nor a program on PATH\n  fix: {hint}the built-in bots are {builtins}; a program is given by its command, such as 'python3 bot.py' or ./bot",
        game.name()
    )))
}

/// Whether `word` names an executable file in a folder of `PATH`.
fn on_path(word: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path).any(|d| {
        std::fs::metadata(d.join(word))
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    })
}

/// The programs of a list of an original challenge (one `Name command...` a line,
/// each program in the folder `<list dir>/<Name>`), as bots speaking `protocol`,
/// with the standard limits and `sandbox`.
pub fn load_list(
    path: &Path,
    protocol: Protocol,
    sandbox: Sandbox,
) -> Result<Vec<BotEntry>, ConfigError> {
    let list = koth_arena::programs::load(path).map_err(|e| ConfigError(e.to_string()))?;
    Ok(list
        .into_iter()
        .map(|p| BotEntry {
            name: p.name,
            source: BotSource::Program {
                // What its line names outside its folder (the operator's list).
                read_only: koth_process::operator_paths(&p.command, &p.dir),
                command: p.command,
                dir: p.dir,
                env: Vec::new(),
                limits: Limits::standard(),
                sandbox,
                protocol,
            },
            list_line: Some(p.line),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_built_in_names_itself_and_anything_else_needs_a_name() {
        for arg in ["honest", "builtin:honest", " honest "] {
            let b = parse_bot_arg(arg).unwrap();
            assert_eq!(b.name, "honest");
            assert!(matches!(b.source, BotSource::Builtin(ref k) if k == "honest"));
        }
        let b = parse_bot_arg_for(GameKind::Samurai, "sensei").unwrap();
        assert_eq!(b.name, "sensei");
        // Not a built-in of this game, a typo, or a command: NAME= is needed.
        for (game, arg) in [
            (GameKind::Samurai, "honest"),
            (GameKind::Coup, "honset"),
            (GameKind::Coup, "cmd:python3 bot.py"),
        ] {
            let e = parse_bot_arg_for(game, arg).unwrap_err();
            assert!(e.0.contains("has no NAME="), "{}", e.0);
        }
    }

    /// A folder with `bots/me/bot.py` and an executable `bots/me/run`, as the
    /// current folder for `f`.
    fn in_scratch(f: impl FnOnce(&Path)) {
        let d = std::env::temp_dir().join(format!("koth-arg-{}", std::process::id()));
        std::fs::create_dir_all(d.join("bots/me")).unwrap();
        std::fs::write(d.join("bots/me/bot.py"), "print('B')\n").unwrap();
        std::fs::write(d.join("bots/me/run"), "#!/bin/sh\n").unwrap();
        f(&d);
        std::fs::remove_dir_all(&d).ok();
    }

    fn folder_of(words: &[&str]) -> (PathBuf, Vec<String>) {
        let mut c: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        let d = program_folder(&mut c);
        (d, c)
    }

    #[test]
    fn a_programs_folder_is_its_files_never_its_interpreters() {
        in_scratch(|d| {
            let bot = d.join("bots/me/bot.py");
            let bot = bot.to_str().unwrap();
            // An interpreter by absolute path: the script's folder, the interpreter
            // kept as it is.
            let (dir, c) = folder_of(&["/usr/bin/python3", bot]);
            assert_eq!(dir, d.join("bots/me"));
            assert_eq!(c, ["/usr/bin/python3", "bot.py"]);
            let (dir, c) = folder_of(&["python3", "-u", bot]);
            assert_eq!(dir, d.join("bots/me"));
            assert_eq!(c, ["python3", "-u", "bot.py"]);
            // A program by path: its own folder.
            let run = d.join("bots/me/run");
            let (dir, c) = folder_of(&[run.to_str().unwrap()]);
            assert_eq!(dir, d.join("bots/me"));
            assert_eq!(c, ["./run"]);
            // An interpreter with no file named: the current folder.
            let (dir, c) = folder_of(&["/usr/bin/python3", "-c", "print(1)"]);
            assert_eq!(dir, PathBuf::from("."));
            assert_eq!(c[0], "/usr/bin/python3");
        });
    }
}
