//! Tournament files (`koth coup run FILE.toml`, `koth samurai run FILE.toml`) and
//! `--bot` arguments.
//!
//! ```toml
//! [tournament]
//! games = 2000              # default 1000
//! seed = 42                 # default: 64 random bits from the OS
//! table_size = 4            # default: min(6, bots)
//! threads = 2               # default: every core
//! rules = "standard"        # or "ppcg", "coupcli"
//! decision_timeout_ms = 1000
//! game_timeout_ms = 20000   # default: none
//! startup_timeout_ms = 10000
//! summary_json = "summary.json"   # relative to this file
//!
//! [[bot]]
//! name = "honest"
//! builtin = "honest"
//!
//! [[bot]]
//! name = "mine"
//! command = ["python3", "bot.py"]
//! dir = "bots/mine"         # working directory, relative to this file (default: its folder)
//! env = { LEVEL = "3" }
//! memory_mb = 512           # also cpu_seconds, open_files, processes, file_size_mb
//! sandbox = "auto"          # "off" | "required"
//! ```
//!
//! A Samurai file says `game = "samurai"`, gives `matches` (per pair of a round
//! robin) instead of `games`, names Samurai built-ins, and may enter programs of the
//! original challenge with `protocol = "samurai-cli"` (launched once per turn with
//! the histories on the command line; `decision_timeout_ms` is then the time from
//! launch to answer, 1000 by default as in the original).

use crate::agent::{json_entrant, JsonBotConfig};
use koth_arena::Entrant;
use koth_coup::{bots, builtin_entrant, Rules, State};
use koth_process::{Command, Limits, Sandbox};
use koth_samurai::NoteSink;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;
use toml::Spanned;

/// A tournament file or `--bot` argument that cannot be used; the message names the
/// file, the line and the fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);

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

const ADAPTER_FILES: [(&str, &str); 3] = [
    (
        "adapter.js",
        include_str!("../../../sdk/coup-cli/adapter.js"),
    ),
    (
        "constants.js",
        include_str!("../../../sdk/coup-cli/constants.js"),
    ),
    ("helper.js", include_str!("../../../sdk/coup-cli/helper.js")),
];

/// The path of koth's coup-cli adapter (`sdk/coup-cli/adapter.js`, built into the
/// binary), written with its two helper files into the user's cache folder
/// (`$XDG_CACHE_HOME` or `~/.cache`, `koth/coup-cli-<version>`) and checked byte for
/// byte on every call, so a changed or stale copy is rewritten.
pub fn coup_cli_adapter() -> Result<PathBuf, ConfigError> {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    let dir = cache
        .join("koth")
        .join(format!("coup-cli-{}", env!("CARGO_PKG_VERSION")));
    let fail = |e: std::io::Error| {
        ConfigError(format!(
            "cannot write koth's coup-cli adapter to {}: {e}\n  fix: set XDG_CACHE_HOME to a writable folder",
            dir.display()
        ))
    };
    std::fs::create_dir_all(&dir).map_err(fail)?;
    for (name, text) in ADAPTER_FILES {
        let path = dir.join(name);
        if std::fs::read(&path).ok().as_deref() != Some(text.as_bytes()) {
            // Written aside then renamed: a run reading it meanwhile sees a whole file.
            let tmp = dir.join(format!(".{name}.{}", std::process::id()));
            std::fs::write(&tmp, text).map_err(fail)?;
            std::fs::rename(&tmp, &path).map_err(fail)?;
        }
    }
    Ok(dir.join("adapter.js"))
}

/// The command that runs coup-cli bot folder `folder` (relative to the working
/// folder) through the bundled adapter.
fn coup_cli_command(folder: &str) -> Result<Vec<String>, ConfigError> {
    let adapter = coup_cli_adapter()?;
    Ok(vec![
        "node".to_string(),
        adapter.display().to_string(),
        folder.to_string(),
    ])
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

/// The game a tournament file or `--bot` argument is for: it decides which built-ins,
/// rule sets and protocols are known.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GameKind {
    /// Coup, 2 to 6 players.
    #[default]
    Coup,
    /// Ultimate Samurai Showdown, a duel.
    Samurai,
}

impl GameKind {
    /// The game's name (`game = "..."` in a tournament file, and the CLI's word).
    pub fn name(self) -> &'static str {
        match self {
            GameKind::Coup => "coup",
            GameKind::Samurai => "samurai",
        }
    }

    fn of_name(s: &str) -> Option<GameKind> {
        match s {
            "coup" => Some(GameKind::Coup),
            "samurai" => Some(GameKind::Samurai),
            _ => None,
        }
    }

    /// Whether `name` is one of the game's built-in bots.
    pub fn has_builtin(self, name: &str) -> bool {
        match self {
            GameKind::Coup => bots::builtin(name).is_some(),
            GameKind::Samurai => koth_samurai::BUILTIN_NAMES.contains(&name),
        }
    }

    /// The built-in bots, comma-separated (for messages).
    pub fn builtins(self) -> String {
        match self {
            GameKind::Coup => known_builtins(),
            GameKind::Samurai => koth_samurai::BUILTIN_NAMES.join(", "),
        }
    }

    fn presets(self) -> &'static [&'static str] {
        match self {
            GameKind::Coup => &Rules::PRESETS,
            GameKind::Samurai => &["standard"],
        }
    }

    fn protocols(self) -> &'static [Protocol] {
        match self {
            GameKind::Coup => &[Protocol::Json, Protocol::Ppcg, Protocol::CoupCli],
            GameKind::Samurai => &[Protocol::Json, Protocol::SamuraiCli],
        }
    }

    fn protocol(self, s: &str) -> Result<Protocol, String> {
        self.protocols()
            .iter()
            .copied()
            .find(|p| p.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = self.protocols().iter().map(|p| p.name()).collect();
                format!(
                    "unknown protocol {s:?} for {}\n  fix: use one of {}",
                    self.name(),
                    names.join(", ")
                )
            })
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
}

impl BotEntry {
    /// How the bot is played, for a run's `run.json`: `{"builtin": ...}` or the
    /// program's command, folder and protocol.
    pub fn spec_json(&self) -> serde_json::Value {
        match &self.source {
            BotSource::Builtin(n) => serde_json::json!({ "builtin": n }),
            BotSource::Program {
                command,
                dir,
                protocol,
                ..
            } => serde_json::json!({ "command": command, "dir": dir, "protocol": protocol.name() }),
        }
    }
}

/// A parsed tournament file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TournamentFile {
    /// The game it is for.
    pub game: GameKind,
    /// Games to play (Coup).
    pub games: Option<u64>,
    /// Matches per pair of a round robin (Samurai).
    pub matches: Option<u64>,
    /// Master seed.
    pub seed: Option<u64>,
    /// Seats per game.
    pub table_size: Option<usize>,
    /// Worker threads.
    pub threads: Option<usize>,
    /// Rule set name (`standard`, `ppcg`, `coupcli` for Coup; `standard` for Samurai), checked.
    pub rules: String,
    /// Per-decision time limit.
    pub decision_timeout: Duration,
    /// Per-game time limit for each external bot.
    pub game_timeout: Option<Duration>,
    /// Time for a program to start and answer `hello`.
    pub startup_timeout: Duration,
    /// Where to write the JSON summary (resolved against the file's folder).
    pub summary_json: Option<PathBuf>,
    /// The bots, in file order.
    pub bots: Vec<BotEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    #[serde(default)]
    tournament: Option<Spanned<RawTournament>>,
    #[serde(default)]
    bot: Vec<Spanned<RawBot>>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawTournament {
    game: Option<Spanned<String>>,
    games: Option<Spanned<u64>>,
    matches: Option<Spanned<u64>>,
    seed: Option<u64>,
    table_size: Option<usize>,
    threads: Option<usize>,
    rules: Option<Spanned<String>>,
    decision_timeout_ms: Option<Spanned<u64>>,
    game_timeout_ms: Option<u64>,
    startup_timeout_ms: Option<u64>,
    summary_json: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBot {
    name: Spanned<String>,
    builtin: Option<Spanned<String>>,
    command: Option<Spanned<Vec<String>>>,
    protocol: Option<Spanned<String>>,
    dir: Option<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    memory_mb: Option<u64>,
    cpu_seconds: Option<u64>,
    open_files: Option<u64>,
    processes: Option<u64>,
    tasks: Option<u64>,
    file_size_mb: Option<u64>,
    sandbox: Option<Spanned<String>>,
    #[serde(default)]
    read: Vec<String>,
}

fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

fn known_builtins() -> String {
    bots::BUILTINS
        .iter()
        .map(|b| b.0)
        .collect::<Vec<_>>()
        .join(", ")
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

impl TournamentFile {
    /// An empty file for `game`: default settings, no bots.
    pub fn empty(game: GameKind) -> TournamentFile {
        TournamentFile {
            game,
            games: None,
            matches: None,
            seed: None,
            table_size: None,
            threads: None,
            rules: "standard".into(),
            decision_timeout: Duration::from_secs(1),
            game_timeout: None,
            startup_timeout: Duration::from_secs(10),
            summary_json: None,
            bots: Vec::new(),
        }
    }

    /// Reads and checks a Coup tournament file.
    pub fn load(path: &Path) -> Result<TournamentFile, ConfigError> {
        Self::load_for(GameKind::Coup, path)
    }

    /// Reads and checks a tournament file for `game`.
    pub fn load_for(game: GameKind, path: &Path) -> Result<TournamentFile, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            ConfigError(format!(
                "cannot read the tournament file {}: {e}",
                path.display()
            ))
        })?;
        let base = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        Self::parse_for(game, &text, &path.display().to_string(), &base)
    }

    /// Parses the text of a Coup tournament file called `name` (for messages) whose
    /// relative paths are relative to `base`.
    pub fn parse(text: &str, name: &str, base: &Path) -> Result<TournamentFile, ConfigError> {
        Self::parse_for(GameKind::Coup, text, name, base)
    }

    /// [`TournamentFile::parse`] for `game`: a file naming another game in
    /// `game = "..."` is refused with the command to use.
    pub fn parse_for(
        game: GameKind,
        text: &str,
        name: &str,
        base: &Path,
    ) -> Result<TournamentFile, ConfigError> {
        let at = |offset: usize, msg: String| {
            ConfigError(format!("{name}:{}: {msg}", line_of(text, offset)))
        };
        let raw: Raw = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| line_of(text, s.start)).unwrap_or(1);
            let msg = e.message().trim().to_string();
            let fix = if msg.contains("unknown field") {
                "\n  fix: check the spelling; see docs/protocol.md for the fields of [tournament] and [[bot]]"
            } else if msg.contains("missing field `name`") {
                "\n  fix: give every [[bot]] a name = \"...\""
            } else {
                ""
            };
            ConfigError(format!("{name}:{line}: {msg}{fix}"))
        })?;
        let t = raw.tournament.map(Spanned::into_inner).unwrap_or_default();
        if let Some(g) = &t.game {
            match GameKind::of_name(g.get_ref()) {
                Some(k) if k == game => {}
                Some(k) => {
                    return Err(at(
                        g.span().start,
                        format!(
                            "this file is for {}, not {}\n  fix: run it with koth {} run {name}",
                            k.name(),
                            game.name(),
                            k.name()
                        ),
                    ))
                }
                None => {
                    return Err(at(
                        g.span().start,
                        format!(
                            "unknown game {:?}\n  fix: use game = \"coup\" or game = \"samurai\"",
                            g.get_ref()
                        ),
                    ))
                }
            }
        }
        match (game, &t.games, &t.matches) {
            (GameKind::Samurai, Some(g), _) => {
                return Err(at(
                    g.span().start,
                    "a samurai tournament is a round robin: give the matches each pair plays\n  fix: matches = 8".into(),
                ))
            }
            (GameKind::Coup, _, Some(m)) => {
                return Err(at(
                    m.span().start,
                    "`matches` is for samurai round robins\n  fix: give the games to play, e.g. games = 1000".into(),
                ))
            }
            _ => {}
        }
        let rules = match t.rules {
            None => "standard".to_string(),
            Some(r) => {
                if !game.presets().contains(&r.get_ref().as_str()) {
                    return Err(at(
                        r.span().start,
                        format!(
                            "unknown rule set {:?}\n  fix: use one of {}",
                            r.get_ref(),
                            game.presets().join(", ")
                        ),
                    ));
                }
                r.into_inner()
            }
        };
        let decision_timeout = match t.decision_timeout_ms {
            None => Duration::from_secs(1),
            Some(d) if *d.get_ref() == 0 => return Err(at(
                d.span().start,
                "decision_timeout_ms must be at least 1\n  fix: e.g. decision_timeout_ms = 1000"
                    .into(),
            )),
            Some(d) => Duration::from_millis(*d.get_ref()),
        };
        let mut bots_out = Vec::new();
        for b in raw.bot {
            let line = b.span().start;
            let b = b.into_inner();
            let bot_name = b.name.get_ref().trim().to_string();
            if bot_name.is_empty() {
                return Err(at(
                    b.name.span().start,
                    "a bot's name is empty\n  fix: name = \"my bot\"".into(),
                ));
            }
            if bots_out.iter().any(|x: &BotEntry| x.name == bot_name) {
                return Err(at(
                    b.name.span().start,
                    format!(
                        "two bots are named {bot_name:?}\n  fix: give each [[bot]] its own name"
                    ),
                ));
            }
            let source = match (b.builtin, b.command) {
                (Some(_), Some(c)) => {
                    return Err(at(
                        c.span().start,
                        format!("bot {bot_name:?} has both `builtin` and `command`\n  fix: keep one of them"),
                    ))
                }
                (None, None) => {
                    return Err(at(
                        line,
                        format!(
                            "bot {bot_name:?} has neither `builtin` nor `command`\n  fix: add builtin = \"{}\" (one of {}) or command = [\"python3\", \"bot.py\"]",
                            game.builtins().split(", ").next().unwrap_or_default(),
                            game.builtins()
                        ),
                    ))
                }
                (Some(bi), None) => {
                    if !game.has_builtin(bi.get_ref()) {
                        return Err(at(
                            bi.span().start,
                            format!(
                                "unknown built-in bot {:?}\n  fix: use one of {}",
                                bi.get_ref(),
                                game.builtins()
                            ),
                        ));
                    }
                    if let Some(p) = &b.protocol {
                        return Err(at(
                            p.span().start,
                            format!("bot {bot_name:?} is a built-in: it has no `protocol`\n  fix: remove the protocol line"),
                        ));
                    }
                    BotSource::Builtin(bi.into_inner())
                }
                (None, Some(c)) => {
                    if c.get_ref().is_empty() || c.get_ref()[0].trim().is_empty() {
                        return Err(at(
                            c.span().start,
                            format!("bot {bot_name:?} has an empty command\n  fix: command = [\"python3\", \"bot.py\"]"),
                        ));
                    }
                    let sandbox = match &b.sandbox {
                        None => Sandbox::Auto,
                        Some(s) => parse_sandbox(s.get_ref()).ok_or_else(|| {
                            at(
                                s.span().start,
                                format!("unknown sandbox mode {:?}\n  fix: use \"auto\", \"off\" or \"required\"", s.get_ref()),
                            )
                        })?,
                    };
                    let mut limits = Limits::standard();
                    if let Some(m) = b.memory_mb {
                        limits.memory_bytes = Some(m << 20);
                    }
                    if let Some(v) = b.cpu_seconds {
                        limits.cpu_seconds = Some(v);
                    }
                    if let Some(v) = b.open_files {
                        limits.open_files = Some(v);
                    }
                    if let Some(v) = b.processes {
                        limits.processes = Some(v);
                    }
                    if let Some(v) = b.tasks {
                        limits.tasks = Some(v);
                    }
                    if let Some(v) = b.file_size_mb {
                        limits.file_size_bytes = Some(v << 20);
                    }
                    let dir = match &b.dir {
                        Some(d) => base.join(d),
                        None => base.to_path_buf(),
                    };
                    let protocol = match &b.protocol {
                        None => Protocol::Json,
                        Some(p) => game
                            .protocol(p.get_ref())
                            .map_err(|m| at(p.span().start, m))?,
                    };
                    let mut command = c.into_inner();
                    if protocol == Protocol::CoupCli {
                        if command.len() != 1 {
                            return Err(at(
                                b.protocol.as_ref().map_or(line, |p| p.span().start),
                                format!("bot {bot_name:?}: a coup-cli bot's `command` names its folder, and only that\n  fix: command = [\"bots/myBot\"] (the folder holding index.js, relative to `dir`)"),
                            ));
                        }
                        command = coup_cli_command(&command[0])?;
                    }
                    if protocol == Protocol::Ppcg && rules != "ppcg" {
                        return Err(at(
                            b.protocol.as_ref().map_or(line, |p| p.span().start),
                            format!("bot {bot_name:?} is a program of the two-player challenge, which plays under its rules\n  fix: add rules = \"ppcg\" to [tournament]"),
                        ));
                    }
                    BotSource::Program {
                        command,
                        dir,
                        env: b.env.into_iter().collect(),
                        limits,
                        sandbox,
                        read_only: b.read.iter().map(|r| base.join(r)).collect(),
                        protocol,
                    }
                }
            };
            bots_out.push(BotEntry {
                name: bot_name,
                source,
            });
        }
        Ok(TournamentFile {
            game,
            games: t.games.map(Spanned::into_inner),
            matches: t.matches.map(Spanned::into_inner),
            seed: t.seed,
            table_size: t.table_size,
            threads: t.threads,
            rules,
            decision_timeout,
            game_timeout: t.game_timeout_ms.map(Duration::from_millis),
            startup_timeout: Duration::from_millis(t.startup_timeout_ms.unwrap_or(10_000)),
            summary_json: t.summary_json.map(|p| base.join(p)),
            bots: bots_out,
        })
    }
}

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
/// use koth_protocol::config::{parse_bot_arg_for, BotSource, GameKind, Protocol};
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
            command,
            dir,
            env: Vec::new(),
            limits: Limits::standard(),
            sandbox: Sandbox::Auto,
            read_only: Vec::new(),
            protocol,
        })
    };
    let source = if let Some(b) = spec.strip_prefix("builtin:") {
        let b = b.trim();
        if !game.has_builtin(b) {
            return Err(ConfigError(format!(
                "--bot {arg:?}: unknown built-in bot {b:?}\n  fix: use one of {}",
                game.builtins()
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
        BotSource::Program {
            command: coup_cli_command(&rel.display().to_string())?,
            dir: root,
            env: Vec::new(),
            limits: Limits::standard(),
            sandbox: Sandbox::Auto,
            read_only: Vec::new(),
            protocol: Protocol::CoupCli,
        }
    } else {
        return Err(ConfigError(format!(
            "--bot {arg:?}: expected builtin:NAME or cmd:COMMAND after '='{usage}"
        )));
    };
    Ok(BotEntry {
        name: name.to_string(),
        source,
    })
}

/// The folder a `cmd:` bot runs in: that of the first word naming a file in
/// another folder (`python3 bots/me/bot.py` runs `python3 bot.py` in `bots/me`, as
/// a tournament file's `dir` would), else the current folder. The word is made
/// relative to the folder.
fn program_folder(command: &mut [String]) -> PathBuf {
    for (i, w) in command.iter_mut().enumerate() {
        let p = Path::new(w.as_str());
        let (Some(parent), Some(file)) = (p.parent(), p.file_name()) else {
            continue;
        };
        if parent.as_os_str().is_empty() || !p.is_file() {
            continue;
        }
        let dir = parent.to_path_buf();
        let file = file.to_string_lossy().into_owned();
        // A program run by path needs its `./`; an interpreter's argument does not.
        *w = if i == 0 { format!("./{file}") } else { file };
        return dir;
    }
    PathBuf::from(".")
}

/// Timeouts applied to every external bot of a run.
#[derive(Clone, Copy, Debug)]
pub struct Timeouts {
    /// Per decision.
    pub decision: Duration,
    /// Per game, summed over the bot's decisions.
    pub game: Option<Duration>,
    /// To start and answer `hello`.
    pub startup: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            decision: Duration::from_secs(1),
            game: None,
            startup: Duration::from_secs(10),
        }
    }
}

/// Starts every external bot once and greets it, before any game: a bot whose
/// folder is missing, whose program cannot start, that needs a sandbox this machine
/// cannot give, or that does not answer `hello` stops the run here, with the bot's
/// name, the reason, its stderr and the fix. Returns how many games at once every
/// JSON-lines program said it plays (the smallest; `None` without such programs).
pub fn preflight(bots: &[BotEntry], timeouts: Timeouts) -> Result<Option<usize>, ConfigError> {
    preflight_game::<State>(bots, timeouts)
}

/// [`preflight`] for the bots of game `G` (`hello` names the game). Programs of an
/// original protocol are only checked for their folder.
pub fn preflight_game<G: crate::WireGame>(
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
        // Started in a scratch copy of its folder: a greeting leaves no file behind.
        let scratch = koth_process::Workspace::new(None)
            .map_err(|e| ConfigError(format!("cannot make a scratch folder: {e}")))?;
        cfg.command.cwd = scratch
            .refresh(&koth_process::absolute(dir), 0, &b.name)
            .map_err(|e| ConfigError(format!("bot {:?}: {e}", b.name)))?;
        let mut agent = crate::JsonAgent::<G>::new(std::sync::Arc::new(cfg));
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

/// The Coup entrants for these bots. Names must be unique. With `copies`, every
/// external bot runs in a copy of its folder per parallel slot.
pub fn coup_entrants(
    bots_in: &[BotEntry],
    timeouts: Timeouts,
    copies: Option<std::sync::Arc<koth_process::Workspace>>,
) -> Result<Vec<Entrant<State>>, ConfigError> {
    let mut out: Vec<Entrant<State>> = Vec::new();
    for b in bots_in {
        if out.iter().any(|e| e.name == b.name) {
            return Err(ConfigError(format!(
                "two bots are named {:?}\n  fix: give each bot its own name",
                b.name
            )));
        }
        out.push(match &b.source {
            BotSource::Builtin(k) => builtin_entrant(k, b.name.clone()).ok_or_else(|| {
                ConfigError(format!(
                    "unknown built-in bot {k:?}\n  fix: use one of {}",
                    known_builtins()
                ))
            })?,
            BotSource::Program {
                protocol: Protocol::Ppcg,
                ..
            } => {
                return Err(ConfigError(format!(
                    "bot {:?} is a program of the two-player challenge (protocol ppcg): it plays in tournaments under rules = \"ppcg\" (koth coup run FILE, koth ppcg LIST), not here",
                    b.name
                )))
            }
            source @ BotSource::Program { .. } => json_bot(b, source, timeouts, &copies)?,
        });
    }
    Ok(out)
}

fn json_bot<G: crate::WireGame>(
    b: &BotEntry,
    source: &BotSource,
    timeouts: Timeouts,
    copies: &Option<std::sync::Arc<koth_process::Workspace>>,
) -> Result<Entrant<G>, ConfigError> {
    let Some(cmd) = source.command() else {
        return Err(ConfigError(format!("bot {:?} is not a program", b.name)));
    };
    let mut cfg = JsonBotConfig::new(cmd);
    cfg.decision_timeout = timeouts.decision;
    cfg.game_timeout = timeouts.game;
    cfg.startup_timeout = timeouts.startup;
    cfg.copies = copies.clone();
    Ok(json_entrant(b.name.clone(), cfg))
}

/// The Samurai entrants for these bots: built-ins, JSON-lines programs and programs
/// of the original challenge (`protocol = "samurai-cli"`, whose answers recorded as W
/// go to `notes`; `timeouts.decision` is their time from launch to answer). Names
/// must be unique. With `copies`, every program runs in a copy of its folder per
/// parallel slot (the original-protocol ones from a fresh copy every match).
pub fn samurai_entrants(
    bots_in: &[BotEntry],
    timeouts: Timeouts,
    copies: Option<std::sync::Arc<koth_process::Workspace>>,
    notes: &NoteSink,
) -> Result<Vec<Entrant<koth_samurai::State>>, ConfigError> {
    let mut out: Vec<Entrant<koth_samurai::State>> = Vec::new();
    for b in bots_in {
        if out.iter().any(|e| e.name == b.name) {
            return Err(ConfigError(format!(
                "two bots are named {:?}\n  fix: give each bot its own name",
                b.name
            )));
        }
        out.push(match &b.source {
            BotSource::Builtin(k) => {
                if koth_samurai::builtin(k).is_none() {
                    return Err(ConfigError(format!(
                        "unknown built-in samurai {k:?}\n  fix: use one of {}",
                        GameKind::Samurai.builtins()
                    )));
                }
                let k = k.clone();
                koth_samurai::entrant(b.name.clone(), move || {
                    koth_samurai::builtin(&k).expect("checked above")
                })
            }
            source @ BotSource::Program {
                protocol: Protocol::Json,
                ..
            } => json_bot(b, source, timeouts, &copies)?,
            BotSource::Program {
                protocol: Protocol::CoupCli,
                ..
            } => {
                return Err(ConfigError(format!(
                    "bot {:?}: protocol coup-cli is a Coup protocol",
                    b.name
                )))
            }
            BotSource::Program {
                protocol: Protocol::Ppcg,
                ..
            } => {
                return Err(ConfigError(format!(
                    "bot {:?}: protocol ppcg is a Coup protocol",
                    b.name
                )))
            }
            source @ BotSource::Program {
                protocol: Protocol::SamuraiCli,
                ..
            } => {
                let Some(cmd) = source.command() else {
                    continue;
                };
                let (name, copies, notes) = (b.name.clone(), copies.clone(), notes.clone());
                Entrant::new(b.name.clone(), move |slot| {
                    let mut s = koth_samurai::ExternalSamurai::new(name.clone(), cmd.clone())
                        .with_timeout(timeouts.decision)
                        .with_note_sink(notes.clone());
                    if let Some(ws) = &copies {
                        s = s.with_copies(ws.clone(), slot);
                    }
                    Ok(Box::new(s) as Box<dyn koth_arena::Agent<koth_samurai::State>>)
                })
            }
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<TournamentFile, ConfigError> {
        TournamentFile::parse(text, "t.toml", Path::new("/base"))
    }

    #[test]
    fn full_file() {
        let f = parse(
            r#"
[tournament]
games = 50
seed = 7
table_size = 3
rules = "ppcg"
decision_timeout_ms = 200
game_timeout_ms = 5000
summary_json = "out.json"

[[bot]]
name = "h"
builtin = "honest"

[[bot]]
name = "py"
command = ["python3", "bot.py"]
dir = "bots/py"
env = { A = "1" }
memory_mb = 256
processes = 10
tasks = 20
sandbox = "off"
read = ["data"]
"#,
        )
        .unwrap();
        assert_eq!(f.games, Some(50));
        assert_eq!(f.rules, "ppcg");
        assert_eq!(f.decision_timeout, Duration::from_millis(200));
        assert_eq!(f.game_timeout, Some(Duration::from_secs(5)));
        assert_eq!(f.summary_json, Some(PathBuf::from("/base/out.json")));
        assert_eq!(f.bots[0].source, BotSource::Builtin("honest".into()));
        match &f.bots[1].source {
            BotSource::Program {
                command,
                dir,
                env,
                limits,
                sandbox,
                read_only,
                protocol,
            } => {
                assert_eq!(*protocol, Protocol::Json);
                assert_eq!(command, &["python3", "bot.py"]);
                assert_eq!(limits.tasks, Some(20));
                assert_eq!(read_only, &[PathBuf::from("/base/data")]);
                assert_eq!(dir, Path::new("/base/bots/py"));
                assert_eq!(env, &[("A".to_string(), "1".to_string())]);
                assert_eq!(limits.memory_bytes, Some(256 << 20));
                assert_eq!(limits.processes, Some(10));
                assert_eq!(*sandbox, Sandbox::Off);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn errors_name_line_and_fix() {
        let e = parse("[[bot]]\nname = \"a\"\nbuiltin = \"honset\"\n")
            .unwrap_err()
            .0;
        assert!(
            e.starts_with("t.toml:3: unknown built-in bot \"honset\""),
            "{e}"
        );
        assert!(e.contains("honest, random"), "{e}");

        let e = parse("[[bot]]\nname = \"a\"\nbuiltin = \"honest\"\n[[bot]]\nname = \"b\"\nbuiltin = \"honest\"\ncommand = [\"x\"]\n")
            .unwrap_err()
            .0;
        assert!(e.starts_with("t.toml:7: bot \"b\" has both"), "{e}");

        let e = parse("[[bot]]\nname = \"a\"\n").unwrap_err().0;
        assert!(e.starts_with("t.toml:1: bot \"a\" has neither"), "{e}");

        let e = parse("[tournament]\ngames = 5\nrulez = \"x\"\n")
            .unwrap_err()
            .0;
        assert!(
            e.starts_with("t.toml:3:") && e.contains("unknown field") && e.contains("fix:"),
            "{e}"
        );

        let e = parse("[tournament]\nrules = \"fancy\"\n").unwrap_err().0;
        assert!(
            e.starts_with("t.toml:2: unknown rule set") && e.contains("standard, ppcg"),
            "{e}"
        );

        let e = parse("[[bot]]\nname = \"a\"\ncommand = [\"x\"]\nsandbox = \"yes\"\n")
            .unwrap_err()
            .0;
        assert!(e.starts_with("t.toml:4: unknown sandbox mode"), "{e}");

        let e = parse("[[bot]]\nname = \"a\"\nbuiltin = \"honest\"\n[[bot]]\nname = \"a\"\nbuiltin = \"random\"\n")
            .unwrap_err()
            .0;
        assert!(e.starts_with("t.toml:5: two bots are named"), "{e}");

        let e = parse("[tournament\n").unwrap_err().0;
        assert!(e.starts_with("t.toml:1:"), "{e}");
    }

    #[test]
    fn samurai_files() {
        let parse =
            |t: &str| TournamentFile::parse_for(GameKind::Samurai, t, "s.toml", Path::new("/b"));
        let f = parse(
            "[tournament]\ngame = \"samurai\"\nmatches = 4\n[[bot]]\nname = \"b\"\nbuiltin = \"bower\"\n[[bot]]\nname = \"old\"\ncommand = [\"./old\"]\nprotocol = \"samurai-cli\"\n[[bot]]\nname = \"new\"\ncommand = [\"python3\", \"s.py\"]\n",
        )
        .unwrap();
        assert_eq!(
            (f.game, f.matches, f.games),
            (GameKind::Samurai, Some(4), None)
        );
        let protocols: Vec<Option<Protocol>> = f
            .bots
            .iter()
            .map(|b| match &b.source {
                BotSource::Program { protocol, .. } => Some(*protocol),
                BotSource::Builtin(_) => None,
            })
            .collect();
        assert_eq!(
            protocols,
            [None, Some(Protocol::SamuraiCli), Some(Protocol::Json)]
        );

        let e = parse("[[bot]]\nname = \"a\"\nbuiltin = \"honest\"\n")
            .unwrap_err()
            .0;
        assert!(
            e.starts_with("s.toml:3: unknown built-in bot \"honest\"") && e.contains("bower"),
            "{e}"
        );
        let e = parse("[tournament]\ngames = 5\n").unwrap_err().0;
        assert!(
            e.starts_with("s.toml:2:") && e.contains("matches = 8"),
            "{e}"
        );
        let e = parse("[tournament]\nrules = \"ppcg\"\n").unwrap_err().0;
        assert!(e.starts_with("s.toml:2: unknown rule set"), "{e}");
        let e = parse("[[bot]]\nname = \"a\"\ncommand = [\"x\"]\nprotocol = \"ppcg\"\n")
            .unwrap_err()
            .0;
        assert!(
            e.starts_with("s.toml:4: unknown protocol \"ppcg\"") && e.contains("samurai-cli"),
            "{e}"
        );
        let e = parse("[[bot]]\nname = \"a\"\nbuiltin = \"bower\"\nprotocol = \"json\"\n")
            .unwrap_err()
            .0;
        assert!(e.starts_with("s.toml:4:") && e.contains("built-in"), "{e}");

        // A file for one game run by the other game's command says which to use.
        let e = TournamentFile::parse(
            "[tournament]\ngame = \"samurai\"\n",
            "s.toml",
            Path::new("/b"),
        )
        .unwrap_err()
        .0;
        assert!(e.contains("koth samurai run s.toml"), "{e}");
        let e = parse("[tournament]\ngame = \"chess\"\n").unwrap_err().0;
        assert!(e.starts_with("s.toml:2: unknown game"), "{e}");
        // Coup knows neither matches nor the samurai protocol.
        let e = TournamentFile::parse("[tournament]\nmatches = 3\n", "c.toml", Path::new("/b"))
            .unwrap_err()
            .0;
        assert!(
            e.starts_with("c.toml:2:") && e.contains("games = 1000"),
            "{e}"
        );
        let e = TournamentFile::parse(
            "[[bot]]\nname = \"a\"\ncommand = [\"x\"]\nprotocol = \"samurai-cli\"\n",
            "c.toml",
            Path::new("/b"),
        )
        .unwrap_err()
        .0;
        assert!(e.starts_with("c.toml:4: unknown protocol"), "{e}");
    }

    #[test]
    fn samurai_bot_args() {
        let g = GameKind::Samurai;
        assert_eq!(
            parse_bot_arg_for(g, "b=builtin:bower").unwrap().source,
            BotSource::Builtin("bower".into())
        );
        match parse_bot_arg_for(g, "p=cmd:node s.js").unwrap().source {
            BotSource::Program { protocol, .. } => assert_eq!(protocol, Protocol::Json),
            other => panic!("{other:?}"),
        }
        let e = parse_bot_arg_for(g, "b=builtin:honest").unwrap_err().0;
        assert!(e.contains("bower"), "{e}");
        // The original protocol is a samurai kind only.
        assert!(parse_bot_arg("p=samurai-cli:./p").is_err());
        let e = parse_bot_arg_for(g, "p").unwrap_err().0;
        assert!(e.contains("samurai-cli:"), "{e}");
    }

    #[test]
    fn bot_args() {
        assert_eq!(
            parse_bot_arg("h=builtin:honest").unwrap().source,
            BotSource::Builtin("honest".into())
        );
        match parse_bot_arg("p=cmd:python3 bot.py --fast").unwrap().source {
            BotSource::Program { command, .. } => {
                assert_eq!(command, ["python3", "bot.py", "--fast"])
            }
            other => panic!("{other:?}"),
        }
        assert!(parse_bot_arg("honest").unwrap_err().0.contains("fix:"));
        assert!(parse_bot_arg("h=builtin:nope")
            .unwrap_err()
            .0
            .contains("honest"));
        assert!(parse_bot_arg("h=python3 bot.py").is_err());
    }
}
