//! The kinds of bot: a built-in, or an external program spoken to in one of the
//! protocols koth knows, with its folder, environment, limits and sandbox.

use koth_process::{Command, Limits, Sandbox};
use std::path::PathBuf;

/// Where a bot comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BotSource {
    /// A built-in bot, by name.
    Builtin(String),
    /// An external program speaking the JSON-lines protocol.
    Program {
        /// `argv`.
        command: Vec<String>,
        /// Working directory (absolute or relative to the current directory).
        dir: PathBuf,
        /// Extra environment.
        env: Vec<(String, String)>,
        /// Resource limits.
        limits: Limits,
        /// Isolation.
        sandbox: Sandbox,
        /// More paths it may read in its sandbox (`read` in a tournament file).
        read_only: Vec<PathBuf>,
        /// How it is spoken to.
        protocol: Protocol,
    },
}

/// How an external program is spoken to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Protocol {
    /// The koth JSON-lines protocol (docs/protocol.md): one process serves many games.
    #[default]
    Json,
    /// Ultimate Samurai Showdown's original command line (seed 002): one launch per
    /// turn, the answer is the first letter printed.
    SamuraiCli,
    /// The two-player Coup challenge's history file (seed 000): one launch per move,
    /// the move appended to the file. Plays under `rules = "ppcg"` only.
    Ppcg,
    /// A coup-cli bot folder (seed 004), run unchanged through koth's bundled
    /// adapter, which speaks JSON lines: `command` names the folder.
    CoupCli,
}

impl Protocol {
    /// Whether the program speaks JSON lines to koth (itself or through an adapter).
    pub fn is_json(self) -> bool {
        matches!(self, Protocol::Json | Protocol::CoupCli)
    }
}

impl Protocol {
    /// Its name in a tournament file (`protocol = "..."`).
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Json => "json",
            Protocol::SamuraiCli => "samurai-cli",
            Protocol::Ppcg => "ppcg",
            Protocol::CoupCli => "coup-cli",
        }
    }
}

impl BotSource {
    /// The process to start for an external bot (`None` for a built-in).
    pub fn command(&self) -> Option<Command> {
        let BotSource::Program {
            command,
            dir,
            env,
            limits,
            sandbox,
            read_only,
            ..
        } = self
        else {
            return None;
        };
        let mut cmd = Command::new(command.clone(), dir.clone())
            .with_limits(limits.clone())
            .with_sandbox(*sandbox);
        for (k, v) in env {
            cmd = cmd.with_env(k.clone(), v.clone());
        }
        cmd.read_only = read_only.clone();
        Some(cmd)
    }
}

/// One entrant of a tournament.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BotEntry {
    /// The name shown in the standings.
    pub name: String,
    /// What plays.
    pub source: BotSource,
    /// The line of the program list it was read from (a list of programs of an
    /// original challenge), when it was: messages name it.
    pub list_line: Option<usize>,
}

impl BotEntry {
    /// A bot named `name`, not from a program list.
    pub fn new(name: impl Into<String>, source: BotSource) -> BotEntry {
        BotEntry {
            name: name.into(),
            source,
            list_line: None,
        }
    }

    /// How the bot is played, for a run's `run.json`: `{"builtin": ...}` or the
    /// program's command, folder and protocol. A program of a seed-000 list is
    /// described by its command and folder alone, as runs of lists always were (a
    /// resumed run must describe its entrants as the first part did).
    pub fn spec_json(&self) -> serde_json::Value {
        match &self.source {
            BotSource::Builtin(n) => serde_json::json!({ "builtin": n }),
            BotSource::Program {
                command,
                dir,
                protocol: Protocol::Ppcg,
                ..
            } if self.list_line.is_some() => {
                serde_json::json!({ "command": command, "dir": dir })
            }
            BotSource::Program {
                command,
                dir,
                protocol,
                ..
            } => serde_json::json!({ "command": command, "dir": dir, "protocol": protocol.name() }),
        }
    }

    /// The external program's folder (`None` for a built-in).
    pub fn dir(&self) -> Option<&std::path::Path> {
        match &self.source {
            BotSource::Program { dir, .. } => Some(dir),
            BotSource::Builtin(_) => None,
        }
    }

    /// The program's protocol (`None` for a built-in).
    pub fn protocol(&self) -> Option<Protocol> {
        match &self.source {
            BotSource::Program { protocol, .. } => Some(*protocol),
            BotSource::Builtin(_) => None,
        }
    }
}

/// Parses a sandbox mode: `auto`, `off` or `required`.
pub fn parse_sandbox(s: &str) -> Option<Sandbox> {
    match s {
        "auto" => Some(Sandbox::Auto),
        "off" => Some(Sandbox::Off),
        "required" => Some(Sandbox::Required),
        _ => None,
    }
}
