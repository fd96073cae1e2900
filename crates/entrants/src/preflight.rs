//! Before the first game: every program started and greeted once, and the run's
//! folder kept out of every bot's reach.

use crate::agents::Timeouts;
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
    timeouts: Timeouts,
) -> Result<Option<usize>, ConfigError> {
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
        ) = (b.source.command(), &b.source)
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
