//! Before the first game: every program started and greeted once, and the run's
//! folder kept out of every bot's reach.

use crate::agents::Setup;
use crate::error::ConfigError;
use crate::kind::{BotEntry, BotSource};
use koth_protocol::{JsonAgent, JsonBotConfig, WireGame};
use std::path::{Path, PathBuf};

/// Starts every external bot once and greets it, before any game: a bot whose
/// folder is missing, whose program cannot start, that needs a sandbox this machine
/// cannot give, or that does not answer `hello` stops the run here, with the bot's
/// name, the reason, its stderr and the fix. Returns how many games at once every
/// JSON-lines program said it plays (the smallest; `None` without such programs).
/// `hello` names game `G`. Programs of an original protocol are only checked for
/// their folder.
pub fn preflight<G: WireGame>(
    bots: &[BotEntry],
    setup: &Setup,
) -> Result<Option<usize>, ConfigError> {
    let timeouts = setup.timeouts;
    let mut at_once: Option<usize> = None;
    for b in bots {
        let (
            Some(cmd),
            BotSource::Program {
                dir,
                command,
                protocol,
                ..
            },
        ) = (setup.for_bot(b, bots).command(b), &b.source)
        else {
            continue;
        };
        if !dir.is_dir() {
            return Err(ConfigError(format!(
                "bot {:?}: its folder {} does not exist\n  fix: create it, or set `dir` to the bot's folder",
                b.name,
                dir.display()
            )));
        }
        if let Some(why) = too_wide(dir) {
            return Err(ConfigError(format!(
                "bot {:?}: its folder {} is {why}: a bot's folder is copied for it and all it sees of this machine\n  fix: give the bot a folder of its own (`dir` in the tournament file)",
                b.name,
                dir.display()
            )));
        }
        if let Some(missing) = crate::arg::missing_script(command, dir) {
            let folder = koth_process::absolute(dir);
            let here = if dir == Path::new(".") || dir.as_os_str().is_empty() {
                " (the current folder)"
            } else {
                ""
            };
            return Err(ConfigError(format!(
                "bot {:?}: '{}': there is no file {missing:?} in {}{here}\n  fix: give the program's path, such as '{} bots/me/{}'",
                b.name,
                command.join(" "),
                folder.display(),
                command[0],
                Path::new(&missing).file_name().unwrap_or_default().to_string_lossy()
            )));
        }
        if cmd.sandbox != koth_process::Sandbox::Off && !koth_process::sandbox_support().namespaces
        {
            return Err(ConfigError(format!(
                "bot {:?} cannot be isolated on this machine ({}), and runs only isolated\n  fix: install bubblewrap (apt install bubblewrap), or for bots you trust, --sandbox off (sandbox = \"off\" in the tournament file)",
                b.name,
                koth_process::sandbox_support().detail
            )));
        }
        if !protocol.is_json() {
            continue;
        }
        let mut cfg = JsonBotConfig::new(cmd);
        cfg.startup_timeout = timeouts.startup;
        // A greeting leaves no file behind: a sandbox gives the program a private
        // copy of its folder; without one, it starts in a scratch copy.
        let scratch = koth_process::Workspace::new(None)
            .map_err(|e| ConfigError(format!("cannot make a scratch folder: {e}")))?;
        if cfg.command.sandbox == koth_process::Sandbox::Off {
            cfg.command.cwd = scratch
                .refresh(&koth_process::absolute(dir), 0, &b.name)
                .map_err(|e| ConfigError(format!("bot {:?}: {e}", b.name)))?;
        }
        let mut agent = JsonAgent::<G>::new(std::sync::Arc::new(cfg));
        if let Err(f) = agent.greet() {
            let tail = f
                .stderr_tail
                .map(|t| format!("\n  its stderr ended with:\n{t}"))
                .unwrap_or_default();
            // The reason repeats "cannot start" once per layer; say it once.
            let mut reason = f.reason.as_str();
            while let Some(r) = reason
                .strip_prefix("cannot start: ")
                .or_else(|| reason.strip_prefix("cannot start bot: "))
            {
                reason = r;
            }
            return Err(ConfigError(format!(
                "bot {:?} did not start: {}{tail}\n  fix: run `{}` in {} by hand and answer {{\"type\":\"hello\"}} with {{\"type\":\"ready\"}}",
                b.name,
                reason,
                command.join(" "),
                dir.display()
            )));
        }
        let n = agent.games_at_once();
        at_once = Some(at_once.map_or(n, |m| m.min(n)));
    }
    Ok(at_once)
}

/// `p` with symbolic links and `..` resolved as far as it exists (the rest, not yet
/// created, appended as written).
fn resolved(p: &Path) -> PathBuf {
    let abs = koth_process::absolute(p);
    let mut base = abs.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(c) = std::fs::canonicalize(base) {
            return rest
                .iter()
                .rev()
                .fold(c, |acc: PathBuf, part| acc.join(part));
        }
        match (base.parent(), base.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                base = parent;
            }
            _ => return abs,
        }
    }
}

/// Refuses an output folder inside a folder an external bot may write to: the bot
/// could rewrite the records (or read the master seed) while the run goes on.
pub fn check_out_dir(bots: &[BotEntry], out: &Path) -> Result<(), ConfigError> {
    check_out_dir_of(
        bots.iter().filter_map(|b| match &b.source {
            BotSource::Program { dir, .. } => Some((b.name.as_str(), dir.as_path())),
            BotSource::Builtin(_) => None,
        }),
        out,
    )
}

/// [`check_out_dir`] for any runner's programs, given as (name, folder).
pub fn check_out_dir_of<'a>(
    programs: impl IntoIterator<Item = (&'a str, &'a Path)>,
    out: &Path,
) -> Result<(), ConfigError> {
    let full = resolved;
    let out_full = full(out);
    for (name, dir) in programs {
        let dir_full = full(dir);
        if out_full.starts_with(&dir_full) {
            return Err(ConfigError(format!(
                "--out {} is inside the folder of bot {name:?} ({}), which that bot may write to and read\n  fix: choose an --out outside every bot's folder, or give the bot a `dir` of its own",
                out.display(),
                dir_full.display()
            )));
        }
    }
    Ok(())
}

/// Why `dir` is no folder for a bot, if it is not: the root, the home folder or
/// one above it, a system folder.
pub fn too_wide(dir: &Path) -> Option<&'static str> {
    let full = resolved(dir);
    let home = std::env::var_os("HOME").map(PathBuf::from);
    if full == Path::new("/") {
        return Some("the whole machine (/)");
    }
    if home.as_deref().is_some_and(|h| h.starts_with(&full)) {
        return Some("the home folder, or one above it");
    }
    const SYSTEM: [&str; 10] = [
        "/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc", "/proc", "/sys", "/dev", "/boot",
    ];
    if SYSTEM.iter().any(|s| full.starts_with(s)) {
        return Some("a system folder");
    }
    None
}
