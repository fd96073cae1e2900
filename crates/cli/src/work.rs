//! `koth hill work` and `koth hill worker`: a hill on PostgreSQL played by
//! workers on any number of machines. The hill's own process (`play`,
//! `serve`) plans blocks within the planning window; each worker claims a
//! lease of games, plays it sandboxed and stores it; the organiser gives each
//! worker a token, revokes it, or excludes its games, and `audit --sample`
//! plays a worker's games again here.

use crate::front::{self, Front};
use crate::hillcore::{open, print_audit, say, start_log, stop_flag, Workers, HISTORY_EVERY};
use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use koth_hill::store::{self, Postgres, Store};
use koth_hill::{Board, Hill, HillError, StoreError};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// `koth hill work`.
#[derive(Args, Debug)]
pub struct WorkArgs {
    /// The hill's database: postgres://USER:PASSWORD@HOST:PORT/NAME (or the
    /// environment's KOTH_HILL_DB).
    #[arg(long, value_name = "URL", env = "KOTH_HILL_DB", hide_env_values = true)]
    pub db: String,
    /// This worker's token, from `koth hill worker add` (or the environment's
    /// KOTH_WORKER_TOKEN: a command line is visible to every user of the
    /// machine).
    #[arg(long, env = "KOTH_WORKER_TOKEN", hide_env_values = true)]
    pub token: String,
    #[command(flatten)]
    pub workers: Workers,
    /// Where the programs' folders fetched from the database are kept
    /// (default: a new private folder, removed at the end).
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
    /// Stop after storing this many games (default: never).
    #[arg(long)]
    pub games: Option<u64>,
    /// Stop once no lease has been free for this many seconds (default: wait
    /// for ever).
    #[arg(long, value_name = "SECONDS")]
    pub idle_exit: Option<u64>,
    /// How the log on stderr is written: text or json.
    #[arg(long, value_name = "FORMAT", default_value = "text", value_parser = ["text", "json"])]
    pub log_format: String,
}

/// `koth hill worker ...`.
#[derive(Subcommand, Debug)]
pub enum WorkerCmd {
    /// Make a worker's token and print it (only its hash is kept).
    Add {
        /// The hill's folder.
        dir: PathBuf,
        /// The worker's name (letters, digits, '-', '_', '.').
        name: String,
    },
    /// List the workers: games stored, last seen, revoked.
    List {
        /// The hill's folder.
        dir: PathBuf,
    },
    /// Revoke a worker's token: it claims and stores nothing more (its
    /// leases under way go back at once).
    Revoke {
        /// The hill's folder.
        dir: PathBuf,
        /// Its name.
        name: String,
    },
    /// Revoke a worker and take out every game it stored: their leases are
    /// played again by the other workers.
    Exclude {
        /// The hill's folder.
        dir: PathBuf,
        /// Its name.
        name: String,
    },
}

impl WorkerCmd {
    /// The hill's folder it names.
    pub fn dir(&self) -> &PathBuf {
        match self {
            WorkerCmd::Add { dir, .. }
            | WorkerCmd::List { dir }
            | WorkerCmd::Revoke { dir, .. }
            | WorkerCmd::Exclude { dir, .. } => dir,
        }
    }
}

/// Runs `koth hill worker ...`.
pub fn worker_cmd<F: Front>(w: WorkerCmd) -> Result<()> {
    let mut store = store::open(w.dir())?;
    match w {
        WorkerCmd::Add { name, .. } => {
            let token = koth_hill::service::add_worker(store.as_mut(), &name)?;
            out!("{token}");
            eprintln!(
                "the token of worker {name:?}: give it to that machine now, it is not shown again\n  there: KOTH_WORKER_TOKEN=TOKEN koth hill work --db postgres://..."
            );
        }
        WorkerCmd::List { .. } => {
            let now = koth_hill::store::now();
            for i in store.workers()? {
                out!(
                    "{}: {} games stored, {}{}",
                    i.name,
                    i.games,
                    i.seen.map_or("never seen".to_string(), |t| format!(
                        "last seen {} s ago",
                        (now - t).max(0)
                    )),
                    if i.revoked { ", revoked" } else { "" }
                );
            }
        }
        WorkerCmd::Revoke { name, .. } => {
            store.revoke_worker(&name)?;
            out!("worker {name:?} revoked: it claims and stores nothing more");
        }
        WorkerCmd::Exclude { name, .. } => {
            let n = store.exclude_worker(&name)?;
            out!("worker {name:?} revoked and its {n} games taken out: the other workers play them again");
        }
    }
    Ok(())
}

/// `koth hill audit --sample N --worker NAME`.
pub fn audit_sample<F: Front>(dir: &Path, worker: &str, n: u64) -> Result<()> {
    let mut hill = open::<F>(dir)?;
    let report = hill.audit_sample(worker, n)?;
    let what = format!(
        "{} of {worker}'s games played again on this machine",
        report.games
    );
    print_audit(&report, &what, "differ");
    Ok(())
}

/// Runs `koth hill work`: the hill's game is read from its database.
pub fn work(a: WorkArgs) -> Result<()> {
    let store = Postgres::connect(&a.db)?;
    let game = store.settings()?.game;
    front::visit(&game, Work(a, store))
        .unwrap_or_else(|| bail!("the hill's game {game:?} is one this koth does not know"))
}

struct Work(WorkArgs, Postgres);

impl front::Visit for Work {
    type Out = Result<()>;
    fn visit<F: Front>(self) -> Result<()> {
        let Work(a, store) = self;
        start_log(&a.log_format);
        let name = koth_hill::service::worker_of(&store, &a.token)?;
        let (cache, made) = match &a.cache {
            Some(d) => {
                // Every entrant's code is in it: the worker's user's alone.
                use std::os::unix::fs::PermissionsExt;
                std::fs::create_dir_all(d)
                    .and_then(|()| {
                        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o700))
                    })
                    .with_context(|| format!("--cache {}: cannot make it private", d.display()))?;
                (d.clone(), false)
            }
            None => (private_folder()?, true),
        };
        let settings = store.settings()?;
        let rules = F::recorded_rules(&settings.rules)?;
        let mut hill = Hill::<F::Game>::with_store(&cache, Box::new(store), rules, F::SCORING)?;
        hill.ready = Some(Box::new(|rules, names, schedule, seed| {
            F::ready(rules, names, schedule, seed, None).map_err(|e| format!("{e:#}"))
        }));
        a.workers.apply(&mut hill);
        let stop = stop_flag();
        tracing::info!(worker = %name, game = F::WORD, threads = hill.threads, "working");
        let r = work_loop(&mut hill, &a, &name, &stop);
        if made {
            let _ = std::fs::remove_dir_all(&cache);
        }
        r
    }
}

/// Claims, plays and stores leases until told to stop.
fn work_loop<G: koth_entrants::BotKinds>(
    hill: &mut Hill<G>,
    a: &WorkArgs,
    name: &str,
    stop: &AtomicBool,
) -> Result<()> {
    let mut stored = 0u64;
    let mut idle_since = std::time::Instant::now();
    while !stop.load(Ordering::Relaxed) && a.games.is_none_or(|g| stored < g) {
        let began = std::time::Instant::now();
        match hill.play_lease(Some(name), stop) {
            Ok(Some((lease, n))) => {
                stored += n;
                idle_since = std::time::Instant::now();
                if n == lease.count {
                    tracing::info!(
                        block = lease.block,
                        first = lease.first,
                        games = n,
                        seconds = began.elapsed().as_secs_f64(),
                        "lease played"
                    );
                } else if !stop.load(Ordering::Relaxed) {
                    say(true, &format!("the lease of block {} from game {} was lost (it expired, or this worker was revoked): another worker plays it", lease.block, lease.first));
                }
            }
            Ok(None) => {
                if a.idle_exit
                    .is_some_and(|s| idle_since.elapsed().as_secs() >= s)
                {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(250));
            }
            Err(HillError::Store(StoreError::Forbidden(why)) | HillError::Unauthorized(why)) => {
                bail!(why)
            }
            Err(HillError::Store(StoreError::Storage(why))) => {
                // The database went away: again once it answers.
                say(true, &format!("{why}: trying again in 2 s"));
                std::thread::sleep(std::time::Duration::from_secs(2));
                if let Ok(s) = hill.store.connect_again() {
                    hill.store = s;
                }
            }
            Err(e) => return Err(e).context("the worker stops"),
        }
    }
    tracing::info!(worker = %name, games = stored, "worker stopped");
    Ok(())
}

/// A new folder only this user can enter, for a worker's copies of the
/// programs' folders: a folder others could write would let them put a
/// program in a version's place.
fn private_folder() -> Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("no randomness: {e}"))?;
    let dir = std::env::temp_dir().join(format!("koth-worker-{:016x}", u64::from_le_bytes(bytes)));
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&dir)
        .with_context(|| format!("cannot make {}", dir.display()))?;
    Ok(dir)
}

/// `play` and `serve` on a hill on PostgreSQL: plans blocks as the planning
/// window allows and plays leases here too (unless `plan_only`), until
/// `limit` more games are stored (in whole blocks) or `stop`.
pub fn keep_playing_shared<F: Front>(
    hill: &mut Hill<F::Game>,
    stop: &AtomicBool,
    limit: Option<u64>,
    on_games: &mut dyn FnMut(&Board, u64),
    idle: &dyn Fn() -> bool,
    plan_only: bool,
) -> Result<Board> {
    let mut planner = hill.planner()?;
    let start = hill.store.game_count()?;
    let mut stored = start;
    let mut planned = 0u64;
    on_games(&planner.board, stored);
    let mut noted: Option<std::time::Instant> = None;
    let mut counted = planner.upto;
    while !stop.load(Ordering::Relaxed) {
        let seen = planner.seen;
        let may_plan = limit.is_none_or(|l| planned < l)
            && hill.store.contest()?.phase(koth_hill::store::now()) != koth_hill::Phase::Ended;
        let made = hill.plan_ahead(&mut planner, may_plan)?;
        if planner.seen != seen {
            for ev in hill.store.events(seen)? {
                tracing::info!(entrant = %ev.entrant, change = %ev.kind, "field changed");
            }
        }
        for b in &made {
            planned += b.games;
            tracing::info!(block = b.id, kind = %b.kind, games = b.games, "block planned");
        }
        let mut worked = false;
        if !plan_only {
            if let Some((lease, n)) = hill.play_lease(None, stop)? {
                worked = n > 0;
                tracing::debug!(
                    block = lease.block,
                    first = lease.first,
                    games = n,
                    "lease played"
                );
            }
        }
        // The count of stored games reads every batch's row: only when it is shown.
        let due = noted.is_none_or(|t| t.elapsed() >= HISTORY_EVERY) && planner.board.games > 0;
        if planner.upto != counted || worked || due {
            stored = hill.store.game_count()?;
        }
        if planner.upto != counted || worked {
            counted = planner.upto;
            on_games(&planner.board, stored);
        }
        if due {
            hill.store.add_history(
                koth_hill::store::now(),
                stored,
                &koth_hill::web::history_point(&planner.board),
            )?;
            hill.keep_planner(&planner)?;
            noted = Some(std::time::Instant::now());
        }
        let open = hill.store.open_block()?.is_some();
        if !may_plan && !open && limit.is_some() {
            break;
        }
        if !worked {
            if !open && made.is_empty() && !idle() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }
    // The standings take up every block complete, past the window.
    hill.plan_ahead(&mut planner, false)?;
    hill.keep_planner(&planner)?;
    on_games(&planner.board, hill.store.game_count()?);
    Ok(planner.board)
}
