//! Every bot kind made into an entrant of a game: the one place where a built-in,
//! a JSON-lines program, a program of an original challenge or a coup-cli folder
//! becomes an [`Entrant`].
//!
//! ```
//! use koth_entrants::{entrants, parse_bot_arg, Setup};
//! let bots = [
//!     parse_bot_arg("a=builtin:honest").unwrap(),
//!     parse_bot_arg("b=builtin:bluffer").unwrap(),
//! ];
//! let field = entrants::<koth_coup::State>(&bots, &Setup::default()).unwrap();
//! assert_eq!(field[1].name, "b");
//! ```

use crate::error::ConfigError;
use crate::game::{known_builtins, GameKind};
use crate::kind::{BotEntry, BotSource, Protocol};
use koth_arena::{Agent, Entrant, Game};
use koth_process::Workspace;
use koth_protocol::{json_entrant, JsonBotConfig, WireGame};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// Timeouts applied to every external bot of a run.
#[derive(Clone, Copy, Debug)]
pub struct Timeouts {
    /// Per decision (for a program launched once a move, from launch to answer).
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

/// How the programs of a run are run: their time limits, where their folders are
/// copied, where Samurai's original programs note their W answers, and how seed
/// 000's programs' moves are read.
#[derive(Clone, Default)]
pub struct Setup {
    /// Time limits.
    pub timeouts: Timeouts,
    /// With a workspace, every program runs in a copy of its folder per parallel
    /// slot (programs launched once a move: a fresh copy every game).
    pub copies: Option<Arc<Workspace>>,
    /// Where the programs of Samurai's original challenge note why an answer was
    /// recorded as W.
    pub notes: koth_samurai_programs::NoteSink,
    /// Seed 000's programs: forfeit anything but exactly one legal move (by
    /// default a move is read as the original arbiter reads it).
    pub strict: bool,
    /// Paths no program may see, even inside its own folder (the tournament file,
    /// the run's folder): covered in every sandbox.
    pub hidden: Vec<PathBuf>,
    /// A folder of the run's where each JSON-lines process's stderr is kept whole
    /// (`NAME.slot-K.log`, bounded): what the bot logged, found after the run.
    pub logs: Option<PathBuf>,
    /// How long a JSON-lines program is watched for a line printed in its `start`
    /// or `end` hook (`check` sets it; see [`JsonBotConfig::hook_grace`]).
    pub hook_grace: std::time::Duration,
}

impl Setup {
    /// The setup of bot `b` among `bots`: the paths every program is kept from, and
    /// the other bots' folders inside its own.
    pub fn for_bot(&self, b: &BotEntry, bots: &[BotEntry]) -> Setup {
        let mut s = self.clone();
        if let Some(own) = b.dir().map(koth_process::absolute) {
            for other in bots.iter().filter(|o| o.name != b.name) {
                if let Some(d) = other.dir().map(koth_process::absolute) {
                    if d != own && d.starts_with(&own) {
                        s.hidden.push(d);
                    }
                }
            }
        }
        s
    }

    /// `b`'s program, kept from what it may not see.
    pub fn command(&self, b: &BotEntry) -> Option<koth_process::Command> {
        let mut cmd = b.source.command()?;
        cmd.hidden = self.hidden.clone();
        Some(cmd)
    }
}

/// A game whose entrants koth builds from [`BotEntry`]s: which bot kinds it takes
/// and how each becomes its agent.
pub trait BotKinds: Game + Sized {
    /// The game as tournament files and `--bot` arguments know it.
    const KIND: GameKind;
    /// The game JSON-lines programs play (greeted in [`crate::preflight()`]).
    type Wire: WireGame;
    /// The entrant `bot` names.
    fn entrant(bot: &BotEntry, setup: &Setup) -> Result<Entrant<Self>, ConfigError>;
}

/// The entrants for these bots, in order. Names must be unique.
pub fn entrants<G: BotKinds>(
    bots: &[BotEntry],
    setup: &Setup,
) -> Result<Vec<Entrant<G>>, ConfigError> {
    let mut out: Vec<Entrant<G>> = Vec::with_capacity(bots.len());
    for b in bots {
        if out.iter().any(|e| e.name == b.name) {
            return Err(ConfigError(format!(
                "two bots are named {:?}\n  fix: give each bot its own name",
                b.name
            )));
        }
        out.push(G::entrant(b, &setup.for_bot(b, bots))?);
    }
    Ok(out)
}

fn json_bot<G: WireGame>(b: &BotEntry, setup: &Setup) -> Result<Entrant<G>, ConfigError> {
    let Some(cmd) = setup.command(b) else {
        return Err(ConfigError(format!("bot {:?} is not a program", b.name)));
    };
    let mut cfg = JsonBotConfig::new(cmd);
    cfg.decision_timeout = setup.timeouts.decision;
    cfg.game_timeout = setup.timeouts.game;
    cfg.startup_timeout = setup.timeouts.startup;
    cfg.copies = setup.copies.clone();
    cfg.logs = setup.logs.clone();
    cfg.hook_grace = setup.hook_grace;
    Ok(json_entrant(b.name.clone(), cfg))
}

fn other_game(b: &BotEntry, protocol: Protocol, game: &str) -> ConfigError {
    ConfigError(format!(
        "bot {:?}: protocol {} is a {game} protocol",
        b.name,
        protocol.name()
    ))
}

impl BotKinds for koth_coup::State {
    const KIND: GameKind = GameKind::Coup;
    type Wire = koth_coup::State;

    fn entrant(b: &BotEntry, setup: &Setup) -> Result<Entrant<Self>, ConfigError> {
        match &b.source {
            BotSource::Builtin(k) => koth_coup::builtin_entrant(k, b.name.clone()).ok_or_else(|| {
                ConfigError(format!(
                    "unknown built-in bot {k:?}\n  fix: use one of {}",
                    known_builtins()
                ))
            }),
            BotSource::Program {
                protocol: Protocol::Ppcg,
                ..
            } => Err(ConfigError(format!(
                "bot {:?} is a program of the two-player challenge (protocol ppcg): it plays in tournaments under rules = \"ppcg\" (koth coup run FILE, koth ppcg LIST), not here",
                b.name
            ))),
            BotSource::Program {
                protocol: p @ Protocol::SamuraiCli,
                ..
            } => Err(other_game(b, *p, "Samurai")),
            BotSource::Program { .. } => json_bot(b, setup),
        }
    }
}

impl BotKinds for koth_samurai::State {
    const KIND: GameKind = GameKind::Samurai;
    type Wire = koth_samurai::State;

    fn entrant(b: &BotEntry, setup: &Setup) -> Result<Entrant<Self>, ConfigError> {
        match &b.source {
            BotSource::Builtin(k) => {
                if koth_samurai::builtin(k).is_none() {
                    return Err(ConfigError(format!(
                        "unknown built-in samurai {k:?}\n  fix: use one of {}",
                        GameKind::Samurai.builtins()
                    )));
                }
                let k = k.clone();
                Ok(koth_samurai::entrant(b.name.clone(), move || {
                    koth_samurai::builtin(&k).expect("checked above")
                }))
            }
            BotSource::Program {
                protocol: Protocol::Json,
                ..
            } => json_bot(b, setup),
            BotSource::Program {
                protocol: p @ (Protocol::CoupCli | Protocol::Ppcg),
                ..
            } => Err(other_game(b, *p, "Coup")),
            BotSource::Program {
                protocol: Protocol::SamuraiCli,
                ..
            } => {
                let cmd = setup.command(b).expect("a program");
                let (name, copies, notes) =
                    (b.name.clone(), setup.copies.clone(), setup.notes.clone());
                let timeout = setup.timeouts.decision;
                Ok(Entrant::new(b.name.clone(), move |slot| {
                    let mut s =
                        koth_samurai_programs::ExternalSamurai::new(name.clone(), cmd.clone())
                            .with_timeout(timeout)
                            .with_note_sink(notes.clone());
                    if let Some(ws) = &copies {
                        s = s.with_copies(ws.clone(), slot);
                    }
                    Ok(Box::new(s) as Box<dyn Agent<koth_samurai::State>>)
                }))
            }
        }
    }
}

/// Seed 000's edition: its programs through the history file, and every Coup bot
/// (built-in, JSON lines, coup-cli) seated through the engine beside them.
impl BotKinds for koth_ppcg::PpcgGame {
    const KIND: GameKind = GameKind::Coup;
    type Wire = koth_coup::State;

    fn entrant(b: &BotEntry, setup: &Setup) -> Result<Entrant<Self>, ConfigError> {
        match &b.source {
            BotSource::Program {
                protocol: Protocol::Ppcg,
                ..
            } => {
                let mut command = setup.command(b).expect("a program");
                command.cwd = koth_process::absolute(&command.cwd);
                let workspace = match &setup.copies {
                    Some(w) => w.clone(),
                    None => Workspace::new(None).map_err(|e| {
                        ConfigError(format!("cannot make the programs' working folders: {e}"))
                    })?,
                };
                let mut opts = koth_ppcg::PpcgOptions::new(std::path::PathBuf::new());
                opts.timeout = setup.timeouts.decision;
                opts.strict = setup.strict;
                Ok(koth_ppcg::program_entrant(
                    &b.name, command, &opts, workspace,
                ))
            }
            _ => Ok(koth_ppcg::lifted(koth_coup::State::entrant(b, setup)?)),
        }
    }
}
