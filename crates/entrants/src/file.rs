//! Tournament files (`koth coup run FILE.toml`, `koth samurai run FILE.toml`):
//! `[tournament]` settings and `[[bot]]` entries, read with the file, the line and
//! the fix in every error.
//!
//! ```toml
//! [tournament]
//! games = 2000              # default 1000
//! seed = 42                 # default: 64 random bits from the OS
//! table_size = 4            # default: min(6, bots)
//! threads = 2               # default: every core
//! rules = "standard"        # or "ppcg", "coupcli", "coupcrate"
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
//! memory_mb = 512           # also cpu_seconds, open_files, processes, file_size_mb, tasks
//! folder_limit_mb = 256     # what its private folder may hold (it runs in a copy)
//! sandbox = "auto"          # "off" | "required"
//! ```
//!
//! A Samurai file says `game = "samurai"`, gives `matches` (per pair of a round
//! robin) instead of `games`, names Samurai built-ins, and may enter programs of the
//! original challenge with `protocol = "samurai-cli"` (launched once per turn with
//! the histories on the command line; `decision_timeout_ms` is then the time from
//! launch to answer, 1000 by default as in the original).

use crate::coup_cli::coup_cli_command;
use crate::error::ConfigError;
use crate::game::GameKind;
use crate::kind::{parse_sandbox, BotEntry, BotSource, Protocol};
use koth_process::{Limits, Sandbox};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;
use toml::Spanned;

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
    tasks: Option<Spanned<u64>>,
    file_size_mb: Option<u64>,
    folder_limit_mb: Option<Spanned<u64>>,
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
                                "unknown built-in bot {:?}\n  fix: {}",
                                bi.get_ref(),
                                game.builtin_fix(bi.get_ref())
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
                        if *v.get_ref() == 0 {
                            return Err(at(
                                v.span().start,
                                format!("bot {bot_name:?}: tasks = 0 leaves it no process to run in\n  fix: tasks = 64 (its processes and threads together), or leave it out for the default 256"),
                            ));
                        }
                        limits.tasks = Some(v.into_inner());
                    }
                    if let Some(v) = b.folder_limit_mb {
                        if *v.get_ref() == 0 {
                            return Err(at(
                                v.span().start,
                                format!("bot {bot_name:?}: folder_limit_mb = 0 leaves no room for its own files\n  fix: folder_limit_mb = 256, or leave it out for the default"),
                            ));
                        }
                        limits.folder_bytes = Some(v.into_inner() << 20);
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
                    // What `read` lists, and what the command names outside the
                    // folder (the operator's own words).
                    let read_only = b
                        .read
                        .iter()
                        .map(|r| base.join(r))
                        .chain(koth_process::operator_paths(&command, &dir))
                        .collect();
                    BotSource::Program {
                        command,
                        dir,
                        env: b.env.into_iter().collect(),
                        limits,
                        sandbox,
                        read_only,
                        protocol,
                    }
                }
            };
            bots_out.push(BotEntry::new(bot_name, source));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arg::{parse_bot_arg, parse_bot_arg_for};
    use crate::kind::{BotSource, Protocol};

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
        assert!(parse_bot_arg("honset").unwrap_err().0.contains("fix:"));
        assert!(parse_bot_arg("h=builtin:nope")
            .unwrap_err()
            .0
            .contains("honest"));
        assert!(parse_bot_arg("h=python3 bot.py").is_err());
    }
}
