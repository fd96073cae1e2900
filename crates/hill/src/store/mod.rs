//! Where a hill keeps everything: its settings, entrants, their versions, the
//! event log, the blocks of games the scheduler planned and every game's record.
//! One interface ([`Store`]) so that another backend can take the place of the
//! SQLite file ([`Sqlite`]) without the scheduler or the web layer knowing.

use std::collections::HashMap;
use std::path::Path;

pub use crate::entity::*;

mod batch;
mod postgres;
mod sqlite;

pub use batch::{pack, record_results, unpack, unpack_log, Batch};
pub use postgres::{Postgres, DATABASE_URL};
pub use sqlite::{Sqlite, DATABASE};

/// What a store that is not shared answers to a worker's call.
fn no_workers() -> StoreError {
    StoreError::Invalid(
        "this hill keeps its data in SQLite, which one process plays: workers need a hill on PostgreSQL\n  fix: koth hill init DIR --db postgres://... makes one".into(),
    )
}

/// A store's failure or refusal, in words (with what was being done and, where
/// there is one, the fix). What a caller answers (an HTTP status, an exit code)
/// depends on the variant, never on the words.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// What was named is not there (an entrant, a token, a hill).
    #[error("{0}")]
    NotFound(String),
    /// The token given may not do this.
    #[error("{0}")]
    Forbidden(String),
    /// It cannot be done in the state things are in (an entrant there already,
    /// paused already, gone; a hill there already).
    #[error("{0}")]
    Conflict(String),
    /// The database holds what this koth cannot read (another layout, a value
    /// no koth writes).
    #[error("{0}")]
    Invalid(String),
    /// The storage itself failed (a damaged file, a full disk, a lock).
    #[error("{0}")]
    Storage(String),
}

impl StoreError {
    /// A failure of the storage itself.
    pub fn new(text: impl Into<String>) -> StoreError {
        StoreError::Storage(text.into())
    }

    /// Its words.
    pub fn text(&self) -> &str {
        match self {
            StoreError::NotFound(t)
            | StoreError::Forbidden(t)
            | StoreError::Conflict(t)
            | StoreError::Invalid(t)
            | StoreError::Storage(t) => t,
        }
    }
}

/// What a change of the field does, given the entrant found under its name
/// (its id and status, if any): the rule every backend follows.
pub(crate) enum Step {
    /// A new entrant, with its first version.
    Insert,
    /// A removed entrant comes back under its name, active, with a new version.
    Return(i64),
    /// A new version of this entrant.
    NewVersion(i64),
    /// This entrant's status becomes this.
    SetStatus(i64, Status),
}

/// The step of change `kind` to entrant `name`, or why it cannot be made.
pub(crate) fn step_of(kind: Change, name: &str, found: Option<(i64, Status)>) -> Result<Step> {
    match (kind, found) {
        (Change::Add, Some((_, status))) if status != Status::Removed => {
            Err(StoreError::Conflict(format!(
                "the hill has an entrant {name:?} already\n  fix: koth hill update DIR {name} BOT gives it a new version"
            )))
        }
        (Change::Add, Some((id, _))) => Ok(Step::Return(id)),
        (Change::Add, None) => Ok(Step::Insert),
        (_, None) => Err(StoreError::NotFound(format!(
            "the hill has no entrant {name:?}\n  fix: koth hill add DIR {name} BOT"
        ))),
        (_, Some((_, Status::Removed))) => Err(StoreError::Conflict(format!(
            "{name:?} has left the hill\n  fix: koth hill add DIR {name} BOT brings it back"
        ))),
        (Change::Update, Some((id, _))) => Ok(Step::NewVersion(id)),
        (Change::Remove | Change::Pause | Change::Resume, Some((id, status))) => {
            let to = match kind {
                Change::Remove => Status::Removed,
                Change::Pause => Status::Paused,
                _ => Status::Active,
            };
            if status == to {
                return Err(StoreError::Conflict(format!(
                    "{name:?} is {} already",
                    to.name()
                )));
            }
            Ok(Step::SetStatus(id, to))
        }
    }
}

/// A result of the store.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// Where a hill's data lives. Every method is one transaction: a crash leaves
/// either all of a call or none of it.
pub trait Store: Send {
    /// The hill's settings.
    fn settings(&self) -> Result<Settings>;
    /// Every entrant, removed ones included, in the order they came.
    fn entrants(&self) -> Result<Vec<Entrant>>;
    /// Every version, oldest first.
    fn versions(&self) -> Result<Vec<Version>>;
    /// Applies a change of the field and logs it. `spec` is the new version's,
    /// for `add` and `update`. `by` is who asks from the page (`None`: the
    /// organiser at the command line): a new entrant is its author's. Who may
    /// do what is the service's rule ([`crate::service::permit`]), asked before;
    /// the store refuses only what the state forbids (an entrant there already,
    /// one gone, one paused already).
    fn change(
        &mut self,
        kind: Change,
        name: &str,
        spec: Option<serde_json::Value>,
        by: Option<&Author>,
    ) -> Result<Event>;
    /// Keeps a token's hash under `name`.
    fn add_token(&mut self, name: &str, hash: &str, admin: bool) -> Result<()>;
    /// Forgets the token called `name`.
    fn remove_token(&mut self, name: &str) -> Result<()>;
    /// Every token, by name.
    fn tokens(&self) -> Result<Vec<TokenInfo>>;
    /// Whose token has this hash.
    fn author(&self, hash: &str) -> Result<Option<Author>>;
    /// Keeps a round that was played (its number is given to it here).
    fn add_round(&mut self, round: &Round) -> Result<i64>;
    /// The rounds, in order.
    fn rounds(&self) -> Result<Vec<Round>>;
    /// The number the next round will have.
    fn next_round(&self) -> Result<i64>;
    /// The contest around the hill (all empty until the organiser says).
    fn contest(&self) -> Result<Contest>;
    /// Replaces the contest's texts and dates.
    fn set_contest(&mut self, contest: &Contest) -> Result<()>;
    /// Posts an announcement now; gives it.
    fn announce(&mut self, text: &str) -> Result<Announcement>;
    /// Takes announcement `id` down.
    fn unannounce(&mut self, id: i64) -> Result<()>;
    /// The announcements, newest first.
    fn announcements(&self) -> Result<Vec<Announcement>>;
    /// Keeps a point of the standings' history: when, how many games stored, and
    /// each ranked entrant's mean and interval.
    fn add_history(&mut self, at: i64, games: u64, rows: &serde_json::Value) -> Result<()>;
    /// The standings' history, oldest first, at most `n` points (evenly thinned).
    fn history(&self, n: usize) -> Result<Vec<(i64, u64, serde_json::Value)>>;
    /// The event log after event `after`.
    fn events(&self, after: i64) -> Result<Vec<Event>>;
    /// Every block, in order.
    fn blocks(&self) -> Result<Vec<Block>>;
    /// Block `id`, if it was planned.
    fn block(&self, id: i64) -> Result<Option<Block>> {
        Ok(self.blocks()?.into_iter().find(|b| b.id == id))
    }
    /// The first block not played to its end, if any (what a crash left).
    fn open_block(&self) -> Result<Option<Block>> {
        Ok(self.blocks()?.into_iter().find(|b| b.done < b.games))
    }
    /// What the scheduler needs of the blocks planned so far.
    fn planned(&self) -> Result<Planned> {
        Ok(Planned::of(&self.blocks()?))
    }
    /// Plans a block: stores it with `done = 0` and gives it its number.
    fn plan(&mut self, block: &Block) -> Result<Block>;
    /// Stores the next games of block `block` (they follow the ones stored).
    fn add_games(&mut self, block: i64, games: &[StoredGame]) -> Result<()> {
        let Some(first) = games.first() else {
            return Ok(());
        };
        let mut batch = Batch::default();
        for (k, g) in games.iter().enumerate() {
            let expected = first.index + k as u64;
            if g.block != block || g.index != expected {
                return Err(StoreError::new(format!(
                    "game {} of block {} stored out of order (expected game {expected} of block {block})",
                    g.index, g.block
                )));
            }
            batch.push_stored(&g.seats, &g.record);
        }
        self.add_batch(block, first.index, &batch)
    }
    /// Stores `batch`: the next games of block `block`, from game `first` on
    /// (which must be the first not stored).
    fn add_batch(&mut self, block: i64, first: u64, batch: &Batch) -> Result<()>;
    /// Visits every stored batch in order, packed as [`pack`] packs it: its
    /// block, its first game and its bytes. Stops when `visit` says `false`.
    fn each_batch(&self, visit: &mut dyn FnMut(i64, u64, Vec<u8>) -> bool) -> Result<()>;
    /// Visits, in order, the stored batches from point `from` (a block, a game
    /// of it) on, of the blocks `keep` accepts, given a block's versions and the
    /// seats at each of its tables; the batches of the other blocks are not read
    /// (counting the standings again after an update skips the history of the
    /// versions that left).
    fn each_batch_of(
        &self,
        keep: &dyn Fn(&[i64], usize) -> bool,
        from: (i64, u64),
        visit: &mut dyn FnMut(i64, u64, Vec<u8>) -> bool,
    ) -> Result<()> {
        let wanted: std::collections::HashSet<i64> = self
            .blocks()?
            .iter()
            .filter(|b| keep(&b.versions, seats_of(&b.schedule, b.versions.len())))
            .map(|b| b.id)
            .collect();
        self.each_batch(&mut |block, first, packed| {
            (block, first) < from || !wanted.contains(&block) || visit(block, first, packed)
        })
    }
    /// Where the next game stored will be: after the last stored batch's last
    /// game (`(0, 0)` when none is stored).
    fn end(&self) -> Result<(i64, u64)>;
    /// The standings kept, as [`keep`](Store::keep) stored them, if any.
    fn kept(&self) -> Result<Option<String>>;
    /// Keeps the standings (replacing those kept before).
    fn keep(&mut self, kept: &str) -> Result<()>;
    /// Visits every stored game, in order.
    fn each_game(&self, visit: &mut dyn FnMut(StoredGame)) -> Result<()> {
        let mut bad = None;
        self.each_batch(
            &mut |block, first, packed| match unpack(block, first, &packed) {
                Ok(games) => {
                    games.into_iter().for_each(&mut *visit);
                    true
                }
                Err(e) => {
                    bad = Some(e);
                    false
                }
            },
        )?;
        bad.map_or(Ok(()), Err)
    }
    /// One game.
    fn game(&self, block: i64, index: u64) -> Result<Option<StoredGame>>;
    /// What the programs of one game wrote to stderr at each decision and how
    /// long each decision took, if the hill still keeps it (games of programs
    /// only; the oldest go past the hill's cap, [`Settings::log_mib`]).
    fn game_log(&self, block: i64, index: u64) -> Result<Option<koth_arena::GameLog>>;
    /// The latest `n` games a version played, newest first.
    fn recent_games(&self, version: i64, n: usize) -> Result<Vec<StoredGame>>;
    /// Games stored in all.
    fn game_count(&self) -> Result<u64>;
    /// Copies the database, consistent at one moment, into the folder `to`
    /// (as a hill's folder holds it), while others read and write it.
    fn backup(&self, to: &Path) -> Result<()>;
    /// What each version's stored games gave it (kept as batches are stored;
    /// a version with no game is absent).
    fn results(&self) -> Result<HashMap<i64, Results>>;

    // Workers: a store that many processes share (PostgreSQL) cuts each block
    // into leases that workers claim, play and store; SQLite refuses these.

    /// Whether blocks are played through leases by any number of workers.
    fn shared(&self) -> bool {
        false
    }
    /// Another connection to the same database (for a worker's heartbeat).
    fn connect_again(&self) -> Result<Box<dyn Store>> {
        Err(no_workers())
    }
    /// Takes the first lease no one holds (never held, or expired) for
    /// `worker` (`None`: the hill's own process), until `lease` from now. A
    /// revoked worker is refused.
    fn claim(
        &mut self,
        _worker: Option<&str>,
        _lease: std::time::Duration,
    ) -> Result<Option<Lease>> {
        Err(no_workers())
    }
    /// Extends `lease` until `lease_time` from now; `false` if it is no longer
    /// its worker's (expired and taken, or its worker revoked).
    fn renew(&mut self, _lease: &Lease, _lease_time: std::time::Duration) -> Result<bool> {
        Err(no_workers())
    }
    /// Gives `lease` up unplayed: another worker may take it at once.
    fn release(&mut self, _lease: &Lease) -> Result<()> {
        Err(no_workers())
    }
    /// Stores the games of `lease`, all of them in one transaction, as its
    /// worker's; refused (and nothing stored) if the lease is no longer its
    /// worker's or its games are stored already.
    fn add_leased(&mut self, _lease: &Lease, _batch: &Batch) -> Result<()> {
        Err(no_workers())
    }
    /// Keeps a worker's token hash under `name`.
    fn add_worker(&mut self, _name: &str, _hash: &str) -> Result<()> {
        Err(no_workers())
    }
    /// The worker whose (unrevoked) token has this hash.
    fn worker(&self, _hash: &str) -> Result<Option<String>> {
        Err(no_workers())
    }
    /// Every worker, by name.
    fn workers(&self) -> Result<Vec<WorkerInfo>> {
        Ok(Vec::new())
    }
    /// Revokes worker `name`'s token: it claims and stores nothing more.
    fn revoke_worker(&mut self, _name: &str) -> Result<()> {
        Err(no_workers())
    }
    /// Revokes worker `name` and takes out every game it stored: their
    /// leases are played again by the others. Gives the games taken out.
    fn exclude_worker(&mut self, _name: &str) -> Result<u64> {
        Err(no_workers())
    }
    /// The leases worker `name` stored, in order: (block, first game, count).
    fn worker_leases(&self, _name: &str) -> Result<Vec<(i64, u64, u64)>> {
        Err(no_workers())
    }
    /// Keeps a program's folder as a tar under its content hash, for workers
    /// on other machines.
    fn put_folder(&mut self, _hash: &str, _tar: &[u8]) -> Result<()> {
        Err(no_workers())
    }
    /// The tar of the folder with this content hash, if kept.
    fn folder(&self, _hash: &str) -> Result<Option<Vec<u8>>> {
        Err(no_workers())
    }
}

/// The seats at each table of a block of `versions` versions with this
/// schedule (two when the schedule is unreadable: the fewest, so that no block
/// that may hold a counting game is skipped).
pub(crate) fn seats_of(schedule: &serde_json::Value, versions: usize) -> usize {
    serde_json::from_value::<koth_arena::Schedule>(schedule.clone())
        .map_or(versions.min(2), |s| s.table(versions))
}

// Where a hill's data is kept: the one place that knows the backends. Every
// layer above the store (the hill, the page, the command line) opens its store
// through these and sees only the `Store` trait.

/// Makes the store of a new hill in `dir`: an SQLite file, or, given a
/// PostgreSQL address, a database there (named in `dir`'s [`DATABASE_URL`]).
pub fn create(dir: &Path, settings: &Settings, db: Option<&str>) -> Result<Box<dyn Store>> {
    Ok(match db {
        None => Box::new(Sqlite::create(dir, settings)?),
        Some(url) => Box::new(Postgres::create(dir, url, settings)?),
    })
}

/// Opens the hill in `dir` to read and write (a hill of an older layout is
/// migrated first).
pub fn open(dir: &Path) -> Result<Box<dyn Store>> {
    if postgres::names_one(dir) {
        return Ok(Box::new(Postgres::open(dir)?));
    }
    Ok(Box::new(Sqlite::open(dir)?))
}

/// Opens the hill in `dir` to read only: such a store never waits for the
/// writer (a page read behind a batch being stored), and a write through it
/// fails.
pub fn open_read(dir: &Path) -> Result<Box<dyn Store>> {
    if postgres::names_one(dir) {
        return Ok(Box::new(Postgres::open(dir)?));
    }
    Ok(Box::new(Sqlite::open_read(dir)?))
}
