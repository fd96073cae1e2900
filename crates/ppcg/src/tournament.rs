//! A whole challenge: programs from a list, built-in bots beside them, ten rounds of
//! every ordered pair, every game archived.

use crate::agent::{Lifted, PpcgAgent, RunOptions};
use crate::game::{Field, PpcgGame, PpcgRules, MAX_INVOCATIONS};
use koth_arena::dedup_names;
use koth_arena::programs::Program;
use koth_arena::{Agent, Entrant, RecordLevel, Schedule, Scoring, Tournament};
use koth_coup::{BotAgent, Rules};
use koth_process::{Command, Limits, Sandbox};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// Everything that shapes a run.
#[derive(Clone, Debug)]
pub struct PpcgOptions {
    /// Rounds; in each, every ordered pair plays once.
    pub rounds: u64,
    /// Time limit of one invocation.
    pub timeout: Duration,
    /// Forfeit anything but exactly one legal move; by default moves are accepted
    /// and credited as the original arbiter reads them.
    pub strict: bool,
    /// Where history files and logs go.
    pub out_dir: PathBuf,
    /// Master seed.
    pub seed: u64,
    /// Parallel games.
    pub threads: usize,
    /// Invocations without a winner after which both lose.
    pub max_invocations: u32,
    /// Resource limits of every program.
    pub limits: Limits,
    /// Isolation of every program.
    pub sandbox: Sandbox,
}

impl PpcgOptions {
    /// Defaults: 10 rounds, 10 s per invocation, moves read as the original reads
    /// them, 200 invocations.
    pub fn new(out_dir: PathBuf) -> PpcgOptions {
        PpcgOptions {
            rounds: 10,
            timeout: Duration::from_secs(10),
            strict: false,
            out_dir,
            seed: 0,
            threads: 1,
            max_invocations: MAX_INVOCATIONS,
            limits: Limits::standard(),
            sandbox: Sandbox::Auto,
        }
    }

    /// The schedule: every ordered pair once per round.
    pub fn schedule(&self) -> Schedule {
        Schedule::RoundRobin {
            games_per_pair: 2 * self.rounds,
        }
    }
}

/// The default output folder for a program list: `<list dir>/koth-ppcg-out`.
pub fn default_out_dir(list: &std::path::Path) -> PathBuf {
    let dir = list
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    dir.join("koth-ppcg-out")
}

/// The entrants: the programs of the list, then the built-in bots (names made unique).
pub fn entrants(
    list: &[Program],
    builtins: &[String],
    opts: &PpcgOptions,
) -> Result<Vec<Entrant<PpcgGame>>, String> {
    for b in builtins {
        if koth_coup::bots::builtin(b).is_none() {
            let known: Vec<&str> = koth_coup::bots::names().collect();
            return Err(format!(
                "no built-in bot {b:?} (known: {})",
                known.join(", ")
            ));
        }
    }
    let names: Vec<String> = list
        .iter()
        .map(|p| p.name.clone())
        .chain(builtins.iter().cloned())
        .collect();
    let names = dedup_names(&names);
    // Programs run in copies of their folders, kept beside the games' files.
    let workspace = koth_process::Workspace::kept(&opts.out_dir.join("folders")).map_err(|e| {
        format!(
            "cannot create {}: {e}",
            opts.out_dir.join("folders").display()
        )
    })?;
    let mut out = Vec::new();
    for (p, name) in list.iter().zip(&names) {
        let command = Command::new(p.command.clone(), koth_process::absolute(&p.dir))
            .with_limits(opts.limits.clone())
            .with_sandbox(opts.sandbox);
        out.push(program_entrant(name, command, opts, workspace.clone()));
    }
    for (b, name) in builtins.iter().zip(&names[list.len()..]) {
        let b = b.clone();
        out.push(Entrant::new(name.clone(), move |_slot| {
            let bot = koth_coup::bots::builtin(&b).ok_or_else(|| format!("no built-in bot {b}"))?;
            Ok(Box::new(Lifted(Box::new(BotAgent(bot)))) as Box<dyn Agent<PpcgGame>>)
        }));
    }
    Ok(out)
}

/// A program of the original challenge as an entrant, run with `command` (its
/// folder, limits and sandbox) from a fresh copy of its folder in `workspace` every
/// game, with the time limit and reading of `opts`.
pub fn program_entrant(
    name: &str,
    command: Command,
    opts: &PpcgOptions,
    workspace: Arc<koth_process::Workspace>,
) -> Entrant<PpcgGame> {
    let run = RunOptions {
        timeout: opts.timeout,
        strict: opts.strict,
    };
    let n = name.to_string();
    Entrant::new(name, move |slot| {
        Ok(Box::new(
            PpcgAgent::new(n.clone(), command.clone(), run.clone())
                .with_copies(workspace.clone(), slot),
        ) as Box<dyn Agent<PpcgGame>>)
    })
}

/// Seats any Coup entrant (built-in, Rust, or a program over the JSON-lines
/// protocol) at the challenge's table: it plays the same game through the engine.
pub fn lifted(e: Entrant<koth_coup::State>) -> Entrant<PpcgGame> {
    let make = e.factory.clone();
    Entrant::new(e.name, move |slot| {
        Ok(Box::new(Lifted(make(slot)?)) as Box<dyn Agent<PpcgGame>>)
    })
}

/// Seats any `Agent<koth_coup::State>` (e.g. a Rust bot) as an entrant.
pub fn rust_entrant<F>(name: impl Into<String>, make: F) -> Entrant<PpcgGame>
where
    F: Fn() -> Box<dyn Agent<koth_coup::State>> + Send + Sync + 'static,
{
    Entrant::new(name, move |_slot| {
        Ok(Box::new(Lifted(make())) as Box<dyn Agent<PpcgGame>>)
    })
}

/// The tournament of `entrants` (at least two) with every game filed in `opts.out_dir`.
pub fn tournament(
    entrants: Vec<Entrant<PpcgGame>>,
    opts: &PpcgOptions,
) -> Result<Tournament<PpcgGame>, String> {
    if entrants.len() < 2 {
        return Err(format!(
            "a tournament needs at least 2 entrants, not {}",
            entrants.len()
        ));
    }
    std::fs::create_dir_all(&opts.out_dir)
        .map_err(|e| format!("cannot create {}: {e}", opts.out_dir.display()))?;
    let out_dir = std::fs::canonicalize(&opts.out_dir).map_err(|e| e.to_string())?;
    let names: Vec<String> = entrants.iter().map(|e| e.name.clone()).collect();
    let schedule = opts.schedule();
    let field = Field::new(names, schedule, opts.seed, out_dir);
    Ok(Tournament {
        rules: PpcgRules {
            coup: Rules::ppcg(),
            max_invocations: opts.max_invocations,
            strict: opts.strict,
            field: Some(Arc::new(field)),
        },
        entrants,
        schedule,
        scoring: Scoring::SharedPoint,
        seed: opts.seed,
        threads: opts.threads.max(1),
        records: RecordLevel::Results,
        duplicate: false,
    })
}
