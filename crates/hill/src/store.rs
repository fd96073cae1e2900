//! Where a hill keeps everything: its settings, entrants, their versions, the
//! event log, the blocks of games the scheduler planned and every game's record.
//! One interface ([`Store`]) so that another backend can take the place of the
//! SQLite file ([`Sqlite`]) without the scheduler or the web layer knowing.

use rusqlite::OptionalExtension;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::Path;

/// A store's failure or refusal, in words (with what was being done), and of
/// which kind: what a caller answers depends on the kind, never on the words.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct StoreError(pub String, pub Refusal);

/// The kind of a [`StoreError`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Refusal {
    /// The storage itself failed (a damaged file, a full disk).
    #[default]
    Storage,
    /// What was named is not there (an entrant, a token).
    NotFound,
    /// The token given may not do this.
    Forbidden,
    /// It cannot be done in the state things are in (an entrant there already,
    /// paused already, gone).
    Conflict,
}

impl StoreError {
    /// A failure of the storage itself.
    pub fn new(text: impl Into<String>) -> StoreError {
        StoreError(text.into(), Refusal::Storage)
    }

    /// A refusal of kind `kind`.
    pub fn refused(kind: Refusal, text: impl Into<String>) -> StoreError {
        StoreError(text.into(), kind)
    }
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        StoreError::new(format!("hill database: {e}"))
    }
}

/// A result of the store.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// The settings a hill was made with; they never change.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// The game (`coup`, `samurai`, `ppcg`).
    pub game: String,
    /// The rules preset's name.
    pub rules_name: String,
    /// The rule options, as JSON (as a run's `run.json` keeps them).
    pub rules: serde_json::Value,
    /// Seats at a table.
    pub table: usize,
    /// The master seed: every block's games derive from it.
    pub seed: u64,
    /// Games a block plays (rounded up to whole deals under duplicate play).
    pub block: u64,
    /// Games a block of built-ins only plays (0, as in hills made before it
    /// was a setting: `block`). A built-in's game takes microseconds, a
    /// program's milliseconds: blocks of the same length in games would cost
    /// built-ins a quarter of their speed at every block's start and end.
    #[serde(default)]
    pub builtin_block: u64,
    /// Games a new version plays against the field before the scheduler looks
    /// elsewhere.
    pub candidate_games: u64,
    /// Each deal played once per rotation of the seats (games that deal hidden
    /// cards).
    pub duplicate: bool,
    /// A decision's time limit for programs, in milliseconds.
    pub timeout_ms: u64,
    /// The runtimes an upload's command may start (`python3`, `node`); a
    /// program of the upload's own (`./bot`) needs none. Empty (as in hills made
    /// before it was a setting): [`crate::program::DEFAULT_RUNTIMES`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runtimes: Vec<String>,
    /// Each candidate's blocks are dealt from seeds of its own version, so that
    /// no game shown on the page deals what a later candidate will be dealt
    /// (false in hills made before: every candidate's k-th block shares a seed).
    #[serde(default)]
    pub own_candidate_seeds: bool,
    /// Blocks after the candidate games draw each deal's table from the whole
    /// field, alternating with blocks for the least settled pair (false in
    /// hills made before: two neighbours and two entrants drawn once a block).
    #[serde(default)]
    pub field_tables: bool,
    /// The longest an upload's check may take, in seconds (0, as in hills made
    /// before it was a setting: [`DEFAULT_CHECK_SECONDS`]).
    #[serde(default)]
    pub check_seconds: u64,
}

/// How long an upload's check may take when the hill does not say.
pub const DEFAULT_CHECK_SECONDS: u64 = 600;

impl Settings {
    /// The runtimes an upload may name (the hill's, or the default list).
    pub fn runtimes(&self) -> Vec<String> {
        if self.runtimes.is_empty() {
            crate::program::DEFAULT_RUNTIMES
                .iter()
                .map(|s| s.to_string())
                .collect()
        } else {
            self.runtimes.clone()
        }
    }

    /// The longest an upload's check may take.
    pub fn check_time(&self) -> std::time::Duration {
        std::time::Duration::from_secs(match self.check_seconds {
            0 => DEFAULT_CHECK_SECONDS,
            s => s,
        })
    }
}

/// Where an entrant stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Scheduled and ranked.
    Active,
    /// Ranked on its games so far, not scheduled.
    Paused,
    /// Gone: neither ranked nor scheduled; its games stay in the history.
    Removed,
}

impl Status {
    /// Its name in the database and on the page.
    pub fn name(self) -> &'static str {
        match self {
            Status::Active => "active",
            Status::Paused => "paused",
            Status::Removed => "removed",
        }
    }

    fn of(s: &str) -> Status {
        match s {
            "paused" => Status::Paused,
            "removed" => Status::Removed,
            _ => Status::Active,
        }
    }
}

/// An entrant: a name that keeps its history across versions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entrant {
    /// Its number, in the order entrants came.
    pub id: i64,
    /// Its unique name.
    pub name: String,
    /// Where it stands.
    pub status: Status,
    /// Its current version.
    pub version: i64,
    /// The author token's name that entered it from the page (`None`: the
    /// organiser, at the command line).
    #[serde(default)]
    pub owner: Option<String>,
}

/// Who asks for a change from the page: the name of their token, and whether it
/// is the organiser's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Author {
    /// The token's name.
    pub name: String,
    /// An organiser's token: every change of every entrant.
    pub admin: bool,
}

/// A token as listed (never the token itself: only its hash is kept).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenInfo {
    /// Its name.
    pub name: String,
    /// An organiser's token.
    pub admin: bool,
    /// When it was made (seconds since 1970).
    pub at: i64,
}

/// One submitted version of an entrant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Version {
    /// Its number, over the whole hill.
    pub id: i64,
    /// Whose it is.
    pub entrant: i64,
    /// 1 for the entrant's first version, then 2, 3...
    pub number: i64,
    /// How it is played: `{"builtin": NAME}`, or a program's `command`, `protocol`
    /// and `folder` (a content-hashed copy inside the hill).
    pub spec: serde_json::Value,
    /// When it was submitted (seconds since 1970).
    pub at: i64,
}

/// What changed in the field, in order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// Its number: the log's order.
    pub id: i64,
    /// When (seconds since 1970).
    pub at: i64,
    /// `add`, `update`, `remove`, `pause` or `resume`.
    pub kind: String,
    /// The entrant's name.
    pub entrant: String,
    /// The version it brought, for `add` and `update`.
    pub version: Option<i64>,
    /// Blocks planned before it: the scheduler saw it from the next one on.
    pub before_block: i64,
}

/// A block: games the scheduler planned together, among fixed versions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Block {
    /// Its number: blocks are planned and played in this order.
    pub id: i64,
    /// Why it was planned: `candidate` (a new version against the field),
    /// `field` (the whole field, a table drawn for each deal), `pair` (the two
    /// neighbours least settled, facing the same field) or, in hills made
    /// before those, `uncertain` (two neighbours and two entrants drawn once).
    pub kind: String,
    /// The versions playing, as the block's entrants (a record's seats index this).
    pub versions: Vec<i64>,
    /// Who plays whom ([`koth_arena::Schedule`], as JSON).
    pub schedule: serde_json::Value,
    /// The block's master seed.
    pub seed: u64,
    /// Games planned.
    pub games: u64,
    /// Games stored: always the first `done` of the block.
    pub done: u64,
    /// The last event the scheduler had seen when it planned the block.
    pub after_event: i64,
}

/// What the scheduler needs of the blocks planned so far: how many, and how
/// many candidate blocks each version had. A summary, not the blocks: a hill
/// that runs for weeks plans hundreds of thousands, and reading them all before
/// each block would cost more than the block.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Planned {
    /// Blocks planned.
    pub blocks: u64,
    /// Candidate blocks planned, by candidate version.
    pub candidate: HashMap<i64, u64>,
}

impl Planned {
    /// The summary of `blocks`.
    pub fn of(blocks: &[Block]) -> Planned {
        let mut p = Planned::default();
        for b in blocks {
            p.add(b);
        }
        p
    }

    /// Counts one more block.
    pub fn add(&mut self, block: &Block) {
        self.blocks += 1;
        if block.kind == "candidate" {
            if let Some(&v) = block.versions.first() {
                *self.candidate.entry(v).or_default() += 1;
            }
        }
    }
}

/// One stored game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredGame {
    /// Its block.
    pub block: i64,
    /// Its number in the block.
    pub index: u64,
    /// The version at each seat.
    pub seats: Vec<i64>,
    /// The record, as a line of a run's `games.jsonl` (seats index the block's
    /// versions).
    pub record: String,
}

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
    /// organiser at the command line): an author adds entrants (theirs), updates
    /// and removes their own; pausing, resuming and others' entrants need an
    /// organiser's token.
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
            batch.push(&g.seats, g.record.as_bytes());
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
    /// The latest `n` games a version played, newest first.
    fn recent_games(&self, version: i64, n: usize) -> Result<Vec<StoredGame>>;
    /// Games stored in all.
    fn game_count(&self) -> Result<u64>;
}

/// The seats at each table of a block of `versions` versions with this
/// schedule (two when the schedule is unreadable: the fewest, so that no block
/// that may hold a counting game is skipped).
fn seats_of(schedule: &serde_json::Value, versions: usize) -> usize {
    serde_json::from_value::<koth_arena::Schedule>(schedule.clone())
        .map_or(versions.min(2), |s| s.table(versions))
}

/// A round: the field frozen, a fixed number of games, a report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Round {
    /// Its number.
    pub id: i64,
    /// When it was played (seconds since 1970).
    pub at: i64,
    /// Games played.
    pub games: u64,
    /// Who played, with their versions' numbers: `[["honest", 1], ...]`.
    pub entrants: serde_json::Value,
    /// The leaderboard of the round, best first: `[{"name", "mean", "low", "high"}]`.
    pub standings: serde_json::Value,
}

/// A change of the field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// A new entrant with its first version.
    Add,
    /// A new version of an entrant.
    Update,
    /// The entrant leaves.
    Remove,
    /// No more games for now.
    Pause,
    /// Games again.
    Resume,
}

impl Change {
    /// Its name in the event log.
    pub fn name(self) -> &'static str {
        match self {
            Change::Add => "add",
            Change::Update => "update",
            Change::Remove => "remove",
            Change::Pause => "pause",
            Change::Resume => "resume",
        }
    }
}

/// The file of a hill's database, inside its folder.
pub const DATABASE: &str = "hill.sqlite";

/// A hill's data in one SQLite file, written ahead (WAL): readers never wait for
/// the writer, and a crash loses no committed transaction.
pub struct Sqlite {
    db: rusqlite::Connection,
}

/// The database's layout: a layout changed later gets a number and a migration.
const SCHEMA_VERSION: i64 = 2;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS settings (id INTEGER PRIMARY KEY CHECK (id = 1), json TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entrants (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, status TEXT NOT NULL, version INTEGER NOT NULL,
    owner TEXT);
CREATE TABLE IF NOT EXISTS rounds (
    id INTEGER PRIMARY KEY, at INTEGER NOT NULL, games INTEGER NOT NULL, entrants TEXT NOT NULL,
    standings TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS history (
    id INTEGER PRIMARY KEY, at INTEGER NOT NULL, games INTEGER NOT NULL, rows TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tokens (
    name TEXT PRIMARY KEY, hash TEXT NOT NULL UNIQUE, admin INTEGER NOT NULL, at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS versions (
    id INTEGER PRIMARY KEY, entrant INTEGER NOT NULL REFERENCES entrants(id),
    number INTEGER NOT NULL, spec TEXT NOT NULL, at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY, at INTEGER NOT NULL, kind TEXT NOT NULL, entrant TEXT NOT NULL,
    version INTEGER, before_block INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS blocks (
    id INTEGER PRIMARY KEY, kind TEXT NOT NULL, versions TEXT NOT NULL, schedule TEXT NOT NULL,
    seed TEXT NOT NULL, games INTEGER NOT NULL, done INTEGER NOT NULL, after_event INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS batches (
    id INTEGER PRIMARY KEY, block INTEGER NOT NULL REFERENCES blocks(id), first INTEGER NOT NULL,
    count INTEGER NOT NULL, games BLOB NOT NULL, UNIQUE (block, first));
CREATE TABLE IF NOT EXISTS kept (id INTEGER PRIMARY KEY CHECK (id = 1), json TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS blocks_open ON blocks (id) WHERE done < games;
CREATE INDEX IF NOT EXISTS blocks_candidate ON blocks (id) WHERE kind = 'candidate';
";

/// A batch of games as stored: one line a game, its seats' versions (comma-separated),
/// a space, then its record, the whole compressed (LZ4). One row a batch, not a
/// game, and a tenth of the bytes.
pub fn pack(games: &[StoredGame]) -> Vec<u8> {
    let mut batch = Batch::default();
    for g in games {
        batch.push(&g.seats, g.record.as_bytes());
    }
    batch.pack()
}

/// The games of a batch being gathered, laid out as [`pack`] lays them, before
/// they are compressed: the hill writes each game's line here as it ends, with
/// no allocation a game (a built-in game takes about ten microseconds, so every
/// one spent storing it shows).
#[derive(Clone, Debug, Default)]
pub struct Batch {
    /// Games in it.
    pub count: u64,
    text: Vec<u8>,
}

impl Batch {
    /// Adds a game: the version at each seat and its record (one JSON line,
    /// without its end of line).
    pub fn push(&mut self, seats: &[i64], record: &[u8]) {
        let mut n = itoa::Buffer::new();
        for (k, v) in seats.iter().enumerate() {
            if k > 0 {
                self.text.push(b',');
            }
            self.text.extend_from_slice(n.format(*v).as_bytes());
        }
        self.text.push(b' ');
        self.text.extend_from_slice(record);
        self.text.push(b'\n');
        self.count += 1;
    }

    /// Its games, compressed as a row of the batches holds them.
    pub fn pack(&self) -> Vec<u8> {
        lz4_flex::compress_prepend_size(&self.text)
    }

    /// Empties it, keeping its memory.
    pub fn clear(&mut self) {
        self.count = 0;
        self.text.clear();
    }
}

/// The largest batch a database may claim to hold once unpacked (a damaged
/// database is refused rather than allowed to ask for gigabytes).
const MAX_BATCH_BYTES: usize = 256 << 20;

/// The games of a row (block, first, games) of the batches.
fn unpack_row(r: &rusqlite::Row<'_>) -> Result<Vec<StoredGame>> {
    let packed = r
        .get_ref(2)?
        .as_blob()
        .map_err(|e| StoreError::new(format!("a batch of games: {e}")))?;
    unpack(r.get(0)?, r.get::<_, i64>(1)? as u64, packed)
}

/// The games of a stored batch of block `block` whose first game is `first`
/// (what [`pack`] made).
pub fn unpack(block: i64, first: u64, packed: &[u8]) -> Result<Vec<StoredGame>> {
    let bad = |why: String| StoreError::new(format!("block {block}, games from {first}: {why}"));
    let claimed = packed.get(..4).map_or(0, |b| {
        u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize
    });
    if claimed > MAX_BATCH_BYTES {
        return Err(bad(format!("claims {claimed} bytes unpacked")));
    }
    let text = lz4_flex::decompress_size_prepended(packed).map_err(|e| bad(e.to_string()))?;
    let text = String::from_utf8(text).map_err(|e| bad(e.to_string()))?;
    text.lines()
        .enumerate()
        .map(|(k, line)| {
            let (seats, record) = line
                .split_once(' ')
                .ok_or_else(|| bad(format!("game {} unreadable", first + k as u64)))?;
            Ok(StoredGame {
                block,
                index: first + k as u64,
                seats: ids(seats),
                record: record.to_string(),
            })
        })
        .collect()
}

/// Seconds since 1970, as the store keeps times (events, history, rounds).
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

fn ids(text: &str) -> Vec<i64> {
    text.split(',').filter_map(|s| s.parse().ok()).collect()
}

fn join(ids: &[i64]) -> String {
    ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",")
}

impl Sqlite {
    /// Makes a hill's database in `dir` (which must not hold one yet).
    pub fn create(dir: &Path, settings: &Settings) -> Result<Sqlite> {
        let path = dir.join(DATABASE);
        if path.exists() {
            return Err(StoreError::new(format!(
                "{} is a hill already\n  fix: pick another folder, or go on with this one",
                dir.display()
            )));
        }
        let s = Sqlite::connect(&path)?;
        let json = serde_json::to_string(settings).map_err(|e| StoreError::new(e.to_string()))?;
        s.db.execute("INSERT INTO settings (id, json) VALUES (1, ?1)", [json])?;
        Ok(s)
    }

    /// Opens the hill in `dir`.
    pub fn open(dir: &Path) -> Result<Sqlite> {
        let path = dir.join(DATABASE);
        if !path.is_file() {
            return Err(StoreError::new(format!(
                "{} is not a hill (no {DATABASE} in it)\n  fix: make one with koth hill init {}",
                dir.display(),
                dir.display()
            )));
        }
        Sqlite::connect(&path)
    }

    fn connect(path: &Path) -> Result<Sqlite> {
        let db = rusqlite::Connection::open(path)?;
        // Another koth (a `hill add` while `hill serve` runs) may hold the write
        // lock for a moment: wait for it rather than fail.
        db.busy_timeout(std::time::Duration::from_secs(30))?;
        db.pragma_update(None, "journal_mode", "WAL")?;
        // In WAL mode NORMAL loses no committed transaction to a crash of koth,
        // only possibly the last ones to a power cut.
        db.pragma_update(None, "synchronous", "NORMAL")?;
        db.pragma_update(None, "foreign_keys", "ON")?;
        let version: i64 = db.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        let fresh: i64 = db.query_row(
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'",
            [],
            |r| r.get(0),
        )?;
        if fresh > 0 && version != SCHEMA_VERSION {
            return Err(StoreError::new(format!(
                "{} has the layout of {} (this koth reads layout {SCHEMA_VERSION})\n  fix: open it with the koth that made it",
                path.display(),
                if version > SCHEMA_VERSION { "a newer koth" } else { "an older koth" }
            )));
        }
        // A hill of the current layout with all its tables and indexes is only
        // read here: opening it never waits for the write lock (a page read
        // behind a batch being stored). One that lacks some (made before a
        // table was added) gets them.
        let made: i64 = db.query_row(
            "SELECT COUNT(*) FROM sqlite_master WHERE type IN ('table', 'index') AND name NOT LIKE 'sqlite_%'",
            [],
            |r| r.get(0),
        )?;
        let wanted = SCHEMA.matches("CREATE ").count() as i64;
        if fresh == 0 || version != SCHEMA_VERSION || made < wanted {
            db.execute_batch(SCHEMA)?;
            db.pragma_update(None, "user_version", SCHEMA_VERSION)?;
        }
        Ok(Sqlite { db })
    }

    /// Opens the hill in `dir` for reading only, as the page does: such a
    /// connection never takes the write lock, so in WAL mode it reads the last
    /// committed state at once, whatever the writer is doing. A write through it
    /// fails.
    pub fn open_read(dir: &Path) -> Result<Sqlite> {
        use rusqlite::OpenFlags;
        let path = dir.join(DATABASE);
        if !path.is_file() {
            return Err(StoreError::refused(
                Refusal::NotFound,
                format!("{} is not a hill (no {DATABASE} in it)", dir.display()),
            ));
        }
        let db = rusqlite::Connection::open_with_flags(
            &path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        db.busy_timeout(std::time::Duration::from_secs(30))?;
        let version: i64 = db.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if version != SCHEMA_VERSION {
            return Err(StoreError::new(format!(
                "{} has the layout of another koth (this koth reads layout {SCHEMA_VERSION})",
                path.display()
            )));
        }
        Ok(Sqlite { db })
    }
}

/// A block's columns, in the order [`block_row`] reads them.
const BLOCK_COLUMNS: &str = "id, kind, versions, schedule, seed, games, done, after_event";

fn block_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Block> {
    let schedule: String = r.get(3)?;
    let seed: String = r.get(4)?;
    Ok(Block {
        id: r.get(0)?,
        kind: r.get(1)?,
        versions: ids(&r.get::<_, String>(2)?),
        schedule: serde_json::from_str(&schedule).unwrap_or(serde_json::Value::Null),
        seed: seed.parse().unwrap_or(0),
        games: r.get::<_, i64>(5)? as u64,
        done: r.get::<_, i64>(6)? as u64,
        after_event: r.get(7)?,
    })
}

impl Store for Sqlite {
    fn settings(&self) -> Result<Settings> {
        let json: String =
            self.db
                .query_row("SELECT json FROM settings WHERE id = 1", [], |r| r.get(0))?;
        serde_json::from_str(&json).map_err(|e| StoreError::new(format!("hill settings: {e}")))
    }

    fn entrants(&self) -> Result<Vec<Entrant>> {
        let mut q = self
            .db
            .prepare("SELECT id, name, status, version, owner FROM entrants ORDER BY id")?;
        let rows = q.query_map([], |r| {
            Ok(Entrant {
                id: r.get(0)?,
                name: r.get(1)?,
                status: Status::of(&r.get::<_, String>(2)?),
                version: r.get(3)?,
                owner: r.get(4)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    fn versions(&self) -> Result<Vec<Version>> {
        let mut q = self
            .db
            .prepare("SELECT id, entrant, number, spec, at FROM versions ORDER BY id")?;
        let rows = q.query_map([], |r| {
            let spec: String = r.get(3)?;
            Ok(Version {
                id: r.get(0)?,
                entrant: r.get(1)?,
                number: r.get(2)?,
                spec: serde_json::from_str(&spec).unwrap_or(serde_json::Value::Null),
                at: r.get(4)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    fn change(
        &mut self,
        kind: Change,
        name: &str,
        spec: Option<serde_json::Value>,
        by: Option<&Author>,
    ) -> Result<Event> {
        let tx = self
            .db
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let found: Option<(i64, String, Option<String>)> = tx
            .query_row(
                "SELECT id, status, owner FROM entrants WHERE name = ?1",
                [name],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .map(Some)
            .or_else(|e| match e {
                rusqlite::Error::QueryReturnedNoRows => Ok(None),
                e => Err(e),
            })?;
        let at = now();
        let mut version = None;
        let missing = || {
            StoreError::refused(
                Refusal::NotFound,
                format!("the hill has no entrant {name:?}\n  fix: koth hill add DIR {name} BOT"),
            )
        };
        let new_version = |tx: &rusqlite::Transaction, entrant: i64| -> Result<i64> {
            let spec = spec.as_ref().map(|s| s.to_string()).unwrap_or_default();
            let number: i64 = tx.query_row(
                "SELECT COUNT(*) + 1 FROM versions WHERE entrant = ?1",
                [entrant],
                |r| r.get(0),
            )?;
            tx.execute(
                "INSERT INTO versions (entrant, number, spec, at) VALUES (?1, ?2, ?3, ?4)",
                rusqlite::params![entrant, number, spec, at],
            )?;
            let v = tx.last_insert_rowid();
            tx.execute(
                "UPDATE entrants SET version = ?1 WHERE id = ?2",
                [v, entrant],
            )?;
            Ok(v)
        };
        // What an author's token may do: only the organiser's does everything.
        if let Some(a) = by.filter(|a| !a.admin) {
            let theirs = found
                .as_ref()
                .is_none_or(|(_, _, owner)| owner.as_deref() == Some(a.name.as_str()));
            let allowed = match kind {
                Change::Add | Change::Update | Change::Remove => theirs,
                Change::Pause | Change::Resume => false,
            };
            if !allowed {
                return Err(StoreError::refused(
                    Refusal::Forbidden,
                    format!(
                        "{}ing {name:?} needs {}",
                        kind.name().trim_end_matches('e'),
                        if theirs {
                            "the organiser's token"
                        } else {
                            "its author's token (or the organiser's)"
                        }
                    ),
                ));
            }
        }
        let owner = by.filter(|a| !a.admin).map(|a| a.name.clone());
        let found = found.map(|(id, status, _)| (id, status));
        match (kind, found) {
            (Change::Add, Some((_, status))) if status != "removed" => {
                return Err(StoreError::refused(Refusal::Conflict, format!(
                    "the hill has an entrant {name:?} already\n  fix: koth hill update DIR {name} BOT gives it a new version"
                )));
            }
            (Change::Add, Some((id, _))) => {
                // A removed entrant comes back under its name, with a new version.
                tx.execute("UPDATE entrants SET status = 'active' WHERE id = ?1", [id])?;
                version = Some(new_version(&tx, id)?);
            }
            (Change::Add, None) => {
                tx.execute(
                    "INSERT INTO entrants (name, status, version, owner) VALUES (?1, 'active', 0, ?2)",
                    rusqlite::params![name, owner],
                )?;
                let id = tx.last_insert_rowid();
                version = Some(new_version(&tx, id)?);
            }
            (_, None) => return Err(missing()),
            (_, Some((_, status))) if status == "removed" => {
                return Err(StoreError::refused(
                    Refusal::Conflict,
                    format!(
                    "{name:?} has left the hill\n  fix: koth hill add DIR {name} BOT brings it back"
                ),
                ));
            }
            (Change::Update, Some((id, _))) => version = Some(new_version(&tx, id)?),
            (Change::Remove | Change::Pause | Change::Resume, Some((id, status))) => {
                let to = match kind {
                    Change::Remove => "removed",
                    Change::Pause => "paused",
                    _ => "active",
                };
                if status == to {
                    return Err(StoreError::refused(
                        Refusal::Conflict,
                        format!("{name:?} is {to} already"),
                    ));
                }
                tx.execute(
                    "UPDATE entrants SET status = ?1 WHERE id = ?2",
                    rusqlite::params![to, id],
                )?;
            }
        }
        let before_block: i64 = tx.query_row("SELECT COUNT(*) FROM blocks", [], |r| r.get(0))?;
        tx.execute(
            "INSERT INTO events (at, kind, entrant, version, before_block) VALUES (?1, ?2, ?3, ?4, ?5)",
            rusqlite::params![at, kind.name(), name, version, before_block],
        )?;
        let id = tx.last_insert_rowid();
        tx.commit()?;
        Ok(Event {
            id,
            at,
            kind: kind.name().to_string(),
            entrant: name.to_string(),
            version,
            before_block,
        })
    }

    fn add_token(&mut self, name: &str, hash: &str, admin: bool) -> Result<()> {
        let n = self.db.execute(
            "INSERT OR IGNORE INTO tokens (name, hash, admin, at) VALUES (?1, ?2, ?3, ?4)",
            rusqlite::params![name, hash, admin, now()],
        )?;
        if n == 0 {
            return Err(StoreError::new(format!(
                "the hill has a token {name:?} already\n  fix: koth hill token remove DIR {name} first, or pick another name"
            )));
        }
        Ok(())
    }

    fn remove_token(&mut self, name: &str) -> Result<()> {
        if self
            .db
            .execute("DELETE FROM tokens WHERE name = ?1", [name])?
            == 0
        {
            return Err(StoreError::refused(
                Refusal::NotFound,
                format!("the hill has no token {name:?}"),
            ));
        }
        Ok(())
    }

    fn tokens(&self) -> Result<Vec<TokenInfo>> {
        let mut q = self
            .db
            .prepare("SELECT name, admin, at FROM tokens ORDER BY name")?;
        let rows = q.query_map([], |r| {
            Ok(TokenInfo {
                name: r.get(0)?,
                admin: r.get(1)?,
                at: r.get(2)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    fn author(&self, hash: &str) -> Result<Option<Author>> {
        let mut q = self
            .db
            .prepare("SELECT name, admin FROM tokens WHERE hash = ?1")?;
        let mut rows = q.query([hash])?;
        Ok(match rows.next()? {
            Some(r) => Some(Author {
                name: r.get(0)?,
                admin: r.get(1)?,
            }),
            None => None,
        })
    }

    fn add_round(&mut self, r: &Round) -> Result<i64> {
        self.db.execute(
            "INSERT INTO rounds (id, at, games, entrants, standings) VALUES (?1, ?2, ?3, ?4, ?5)",
            rusqlite::params![
                r.id,
                r.at,
                r.games as i64,
                r.entrants.to_string(),
                r.standings.to_string()
            ],
        )?;
        Ok(self.db.last_insert_rowid())
    }

    fn rounds(&self) -> Result<Vec<Round>> {
        let mut q = self
            .db
            .prepare("SELECT id, at, games, entrants, standings FROM rounds ORDER BY id")?;
        let rows = q.query_map([], |r| {
            let json = |i| -> rusqlite::Result<serde_json::Value> {
                Ok(serde_json::from_str(&r.get::<_, String>(i)?).unwrap_or_default())
            };
            Ok(Round {
                id: r.get(0)?,
                at: r.get(1)?,
                games: r.get::<_, i64>(2)? as u64,
                entrants: json(3)?,
                standings: json(4)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    fn next_round(&self) -> Result<i64> {
        Ok(self
            .db
            .query_row("SELECT COALESCE(MAX(id), 0) + 1 FROM rounds", [], |r| {
                r.get(0)
            })?)
    }

    fn add_history(&mut self, at: i64, games: u64, rows: &serde_json::Value) -> Result<()> {
        self.db.execute(
            "INSERT INTO history (at, games, rows) VALUES (?1, ?2, ?3)",
            rusqlite::params![at, games as i64, rows.to_string()],
        )?;
        Ok(())
    }

    fn history(&self, n: usize) -> Result<Vec<(i64, u64, serde_json::Value)>> {
        let total: i64 = self
            .db
            .query_row("SELECT COUNT(*) FROM history", [], |r| r.get(0))?;
        // Every k-th point, and the last: at most about n.
        let k = (total as usize).div_ceil(n.max(1)).max(1) as i64;
        let mut q = self.db.prepare(
            "SELECT at, games, rows FROM history WHERE (id - 1) % ?1 = 0 OR id = (SELECT MAX(id) FROM history) ORDER BY id",
        )?;
        let rows = q.query_map([k], |r| {
            Ok((
                r.get(0)?,
                r.get::<_, i64>(1)? as u64,
                serde_json::from_str(&r.get::<_, String>(2)?).unwrap_or_default(),
            ))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    fn events(&self, after: i64) -> Result<Vec<Event>> {
        let mut q = self.db.prepare(
            "SELECT id, at, kind, entrant, version, before_block FROM events WHERE id > ?1 ORDER BY id",
        )?;
        let rows = q.query_map([after], |r| {
            Ok(Event {
                id: r.get(0)?,
                at: r.get(1)?,
                kind: r.get(2)?,
                entrant: r.get(3)?,
                version: r.get(4)?,
                before_block: r.get(5)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    fn blocks(&self) -> Result<Vec<Block>> {
        let mut q = self
            .db
            .prepare(&format!("SELECT {BLOCK_COLUMNS} FROM blocks ORDER BY id"))?;
        let rows = q.query_map([], block_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    fn block(&self, id: i64) -> Result<Option<Block>> {
        let mut q = self
            .db
            .prepare_cached(&format!("SELECT {BLOCK_COLUMNS} FROM blocks WHERE id = ?1"))?;
        let block = q.query_map([id], block_row)?.next().transpose()?;
        Ok(block)
    }

    fn open_block(&self) -> Result<Option<Block>> {
        // The partial index holds only unfinished blocks: no scan of the others.
        let mut q = self.db.prepare(&format!(
            "SELECT {BLOCK_COLUMNS} FROM blocks WHERE done < games ORDER BY id LIMIT 1"
        ))?;
        let open = q.query_map([], block_row)?.next().transpose()?;
        Ok(open)
    }

    fn planned(&self) -> Result<Planned> {
        // Blocks are numbered from 1 and never deleted: the last number is their
        // count (COUNT(*) reads every row, 5 ms at 160,000 blocks).
        let blocks: i64 =
            self.db
                .query_row("SELECT COALESCE(MAX(id), 0) FROM blocks", [], |r| r.get(0))?;
        let mut planned = Planned {
            blocks: blocks as u64,
            ..Default::default()
        };
        let mut q = self
            .db
            .prepare("SELECT versions FROM blocks WHERE kind = 'candidate'")?;
        let mut rows = q.query([])?;
        while let Some(r) = rows.next()? {
            if let Some(&v) = ids(&r.get::<_, String>(0)?).first() {
                *planned.candidate.entry(v).or_default() += 1;
            }
        }
        Ok(planned)
    }

    fn plan(&mut self, block: &Block) -> Result<Block> {
        // The seed is text: SQLite's integers are signed.
        self.db.execute(
            "INSERT INTO blocks (kind, versions, schedule, seed, games, done, after_event) VALUES (?1, ?2, ?3, ?4, ?5, 0, ?6)",
            rusqlite::params![
                block.kind,
                join(&block.versions),
                block.schedule.to_string(),
                block.seed.to_string(),
                block.games as i64,
                block.after_event
            ],
        )?;
        Ok(Block {
            id: self.db.last_insert_rowid(),
            done: 0,
            ..block.clone()
        })
    }

    fn add_batch(&mut self, block: i64, first: u64, batch: &Batch) -> Result<()> {
        if batch.count == 0 {
            return Ok(());
        }
        let tx = self
            .db
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let done: i64 = tx
            .prepare_cached("SELECT done FROM blocks WHERE id = ?1")?
            .query_row([block], |r| r.get(0))?;
        if first != done as u64 {
            return Err(StoreError::new(format!(
                "game {first} of block {block} stored out of order (expected game {done} of block {block})"
            )));
        }
        // Cached statements: a hill of built-ins stores hundreds of batches a second.
        tx.prepare_cached(
            "INSERT INTO batches (block, first, count, games) VALUES (?1, ?2, ?3, ?4)",
        )?
        .execute(rusqlite::params![
            block,
            done,
            batch.count as i64,
            batch.pack()
        ])?;
        tx.prepare_cached("UPDATE blocks SET done = done + ?1 WHERE id = ?2")?
            .execute(rusqlite::params![batch.count as i64, block])?;
        tx.commit()?;
        Ok(())
    }

    fn each_batch(&self, visit: &mut dyn FnMut(i64, u64, Vec<u8>) -> bool) -> Result<()> {
        let mut q = self
            .db
            .prepare("SELECT block, first, games FROM batches ORDER BY block, first")?;
        let mut rows = q.query([])?;
        while let Some(r) = rows.next()? {
            if !visit(r.get(0)?, r.get::<_, i64>(1)? as u64, r.get(2)?) {
                break;
            }
        }
        Ok(())
    }

    fn each_batch_of(
        &self,
        keep: &dyn Fn(&[i64], usize) -> bool,
        from: (i64, u64),
        visit: &mut dyn FnMut(i64, u64, Vec<u8>) -> bool,
    ) -> Result<()> {
        // The blocks wanted, as runs of consecutive numbers: one range query
        // each, so that no other block's games are read from the disk.
        let mut runs: Vec<(i64, i64)> = Vec::new();
        {
            let mut q = self
                .db
                .prepare("SELECT id, versions, schedule FROM blocks WHERE id >= ?1 ORDER BY id")?;
            let mut rows = q.query([from.0])?;
            while let Some(r) = rows.next()? {
                let id: i64 = r.get(0)?;
                let versions = ids(r.get_ref(1)?.as_str().unwrap_or(""));
                let schedule: serde_json::Value =
                    serde_json::from_str(r.get_ref(2)?.as_str().unwrap_or(""))
                        .unwrap_or(serde_json::Value::Null);
                if !keep(&versions, seats_of(&schedule, versions.len())) {
                    continue;
                }
                match runs.last_mut() {
                    Some((_, last)) if *last + 1 == id => *last = id,
                    _ => runs.push((id, id)),
                }
            }
        }
        let mut q = self.db.prepare(
            "SELECT block, first, games FROM batches WHERE block >= ?1 AND block <= ?2
             AND (block > ?3 OR first >= ?4) ORDER BY block, first",
        )?;
        for (lo, hi) in runs {
            let mut rows = q.query([lo, hi, from.0, from.1 as i64])?;
            while let Some(r) = rows.next()? {
                if !visit(r.get(0)?, r.get::<_, i64>(1)? as u64, r.get(2)?) {
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    fn end(&self) -> Result<(i64, u64)> {
        let end = self
            .db
            .query_row(
                "SELECT block, first + count FROM batches ORDER BY block DESC, first DESC LIMIT 1",
                [],
                |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as u64)),
            )
            .optional()?;
        Ok(end.unwrap_or((0, 0)))
    }

    fn kept(&self) -> Result<Option<String>> {
        Ok(self
            .db
            .query_row("SELECT json FROM kept WHERE id = 1", [], |r| r.get(0))
            .optional()?)
    }

    fn keep(&mut self, kept: &str) -> Result<()> {
        self.db.execute(
            "INSERT OR REPLACE INTO kept (id, json) VALUES (1, ?1)",
            [kept],
        )?;
        Ok(())
    }

    fn game(&self, block: i64, index: u64) -> Result<Option<StoredGame>> {
        let mut q = self.db.prepare(
            "SELECT block, first, games FROM batches
             WHERE block = ?1 AND first <= ?2 AND first + count > ?2",
        )?;
        let mut rows = q.query(rusqlite::params![block, index as i64])?;
        let Some(r) = rows.next()? else {
            return Ok(None);
        };
        Ok(unpack_row(r)?.into_iter().find(|g| g.index == index))
    }

    fn recent_games(&self, version: i64, n: usize) -> Result<Vec<StoredGame>> {
        // The batches of the blocks the version played in, newest first.
        let mut q = self.db.prepare(
            "SELECT g.block, g.first, g.games FROM blocks b JOIN batches g ON g.block = b.id
             WHERE (',' || b.versions || ',') LIKE '%,' || ?1 || ',%'
             ORDER BY g.block DESC, g.first DESC",
        )?;
        let mut rows = q.query([version])?;
        let mut out = Vec::new();
        while out.len() < n {
            let Some(r) = rows.next()? else { break };
            let games = unpack_row(r)?;
            out.extend(
                games
                    .into_iter()
                    .rev()
                    .filter(|g| g.seats.contains(&version))
                    .take(n - out.len()),
            );
        }
        Ok(out)
    }

    fn game_count(&self) -> Result<u64> {
        let n: i64 = self
            .db
            .query_row("SELECT COALESCE(SUM(count), 0) FROM batches", [], |r| {
                r.get(0)
            })?;
        Ok(n as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(block: i64, index: u64, seats: &[i64]) -> StoredGame {
        StoredGame {
            block,
            index,
            seats: seats.to_vec(),
            record: format!("{{\"index\":{index},\"note\":\"a b\"}}"),
        }
    }

    fn hill() -> (std::path::PathBuf, Sqlite) {
        let d = std::env::temp_dir().join(format!(
            "koth-store-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        let settings = Settings {
            game: "coup".into(),
            rules_name: "standard".into(),
            rules: serde_json::Value::Null,
            table: 2,
            seed: 1,
            block: 10,
            builtin_block: 0,
            candidate_games: 10,
            duplicate: false,
            timeout_ms: 1000,
            ..Settings::default()
        };
        let s = Sqlite::create(&d, &settings).unwrap();
        (d, s)
    }

    fn block(s: &mut Sqlite, versions: &[i64]) -> i64 {
        s.plan(&Block {
            id: 0,
            kind: "uncertain".into(),
            versions: versions.to_vec(),
            schedule: serde_json::Value::Null,
            seed: 1,
            games: 10,
            done: 0,
            after_event: 0,
        })
        .unwrap()
        .id
    }

    #[test]
    fn batches_give_back_every_game_one_by_one() {
        let (d, mut s) = hill();
        let b1 = block(&mut s, &[1, 2, 3]);
        let b2 = block(&mut s, &[2, 3]);
        let first: Vec<StoredGame> = (0..4).map(|i| game(b1, i, &[1, 2])).collect();
        let second: Vec<StoredGame> = (4..10).map(|i| game(b1, i, &[3, 1])).collect();
        let other: Vec<StoredGame> = (0..3).map(|i| game(b2, i, &[2, 3])).collect();
        s.add_games(b1, &first).unwrap();
        s.add_games(b1, &second).unwrap();
        s.add_games(b2, &other).unwrap();
        assert_eq!(s.game_count().unwrap(), 13);
        let mut all = Vec::new();
        s.each_game(&mut |g| all.push(g)).unwrap();
        let expected: Vec<StoredGame> =
            first.iter().chain(&second).chain(&other).cloned().collect();
        assert_eq!(all, expected);
        // One game, from the batch that holds it; none past the stored ones.
        assert_eq!(s.game(b1, 5).unwrap(), Some(second[1].clone()));
        assert_eq!(s.game(b1, 3).unwrap(), Some(first[3].clone()));
        assert_eq!(s.game(b2, 3).unwrap(), None);
        // A version's latest games, newest first, only those it sat in.
        let recent: Vec<(i64, u64)> = s
            .recent_games(1, 8)
            .unwrap()
            .iter()
            .map(|g| (g.block, g.index))
            .collect();
        assert_eq!(recent, [9, 8, 7, 6, 5, 4, 3, 2].map(|i| (b1, i)).to_vec());
        assert_eq!(s.recent_games(3, 20).unwrap().len(), 9);
        // Out of order is refused, and nothing of it is stored.
        assert!(s.add_games(b2, &[game(b2, 5, &[2, 3])]).is_err());
        assert_eq!(s.game_count().unwrap(), 13);
        std::fs::remove_dir_all(d).ok();
    }

    #[test]
    fn the_schedulers_summary_and_the_open_block_match_the_blocks() {
        let (d, mut s) = hill();
        assert_eq!(s.planned().unwrap(), Planned::default());
        assert_eq!(s.open_block().unwrap(), None);
        let mut ids = Vec::new();
        for (kind, versions) in [
            ("candidate", vec![3, 1, 2]),
            ("uncertain", vec![1, 2, 3]),
            ("candidate", vec![3, 1, 2]),
            ("candidate", vec![4, 1, 2]),
            ("uncertain", vec![2, 4]),
        ] {
            let id = s
                .plan(&Block {
                    id: 0,
                    kind: kind.into(),
                    versions,
                    schedule: serde_json::Value::Null,
                    seed: 1,
                    games: 2,
                    done: 0,
                    after_event: 0,
                })
                .unwrap()
                .id;
            ids.push(id);
        }
        let planned = s.planned().unwrap();
        assert_eq!(planned, Planned::of(&s.blocks().unwrap()));
        assert_eq!(planned.blocks, 5);
        assert_eq!(planned.candidate, [(3, 2), (4, 1)].into_iter().collect());
        // The open block is the first not played to its end.
        let versions = |s: &Sqlite, b: i64| s.blocks().unwrap()[b as usize - 1].versions.clone();
        for &b in &ids[..2] {
            let seats = versions(&s, b);
            s.add_games(b, &[game(b, 0, &seats), game(b, 1, &seats)])
                .unwrap();
        }
        let seats = versions(&s, ids[2]);
        s.add_games(ids[2], &[game(ids[2], 0, &seats)]).unwrap();
        let open = s.open_block().unwrap().unwrap();
        assert_eq!((open.id, open.done), (ids[2], 1));
        assert_eq!(
            Some(open),
            s.blocks().unwrap().into_iter().find(|b| b.done < b.games)
        );
        std::fs::remove_dir_all(d).ok();
    }

    #[test]
    fn a_hill_of_another_layout_is_refused_with_its_fix() {
        let (d, s) = hill();
        s.db.pragma_update(None, "user_version", 1).unwrap();
        drop(s);
        let e = Sqlite::open(&d).err().unwrap().0;
        assert!(e.contains("an older koth") && e.contains("fix:"), "{e}");
        std::fs::remove_dir_all(d).ok();
    }

    /// Opening a hill of the current layout writes nothing (so it never waits
    /// for another connection's write lock); one lacking a table gets it back;
    /// a read-only connection reads and refuses to write.
    #[test]
    fn opening_a_current_hill_writes_nothing_and_a_missing_table_comes_back() {
        let (d, s) = hill();
        s.db.execute_batch("DROP TABLE kept").unwrap();
        drop(s);
        let s = Sqlite::open(&d).unwrap();
        let kept: i64 =
            s.db.query_row(
                "SELECT COUNT(*) FROM sqlite_master WHERE name = 'kept'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(kept, 1);
        s.db.execute_batch("BEGIN IMMEDIATE").unwrap();
        // Another connection holds the write lock: opening and reading do not wait.
        let other = Sqlite::open(&d).unwrap();
        other.db.busy_timeout(std::time::Duration::ZERO).unwrap();
        assert!(other.entrants().unwrap().is_empty());
        let mut read = Sqlite::open_read(&d).unwrap();
        assert!(read.settings().is_ok());
        s.db.execute_batch("ROLLBACK").unwrap();
        let e = read.add_token("x", "hash", false).unwrap_err();
        assert!(e.0.contains("readonly") || e.0.contains("read-only"), "{e}");
        std::fs::remove_dir_all(d).ok();
    }

    #[test]
    fn a_damaged_batch_is_an_error_not_a_panic_or_a_huge_allocation() {
        let packed = pack(&[game(1, 0, &[1, 2]), game(1, 1, &[2, 1])]);
        assert_eq!(unpack(1, 0, &packed).unwrap().len(), 2);
        let mut huge = packed.clone();
        huge[..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(unpack(1, 0, &huge).unwrap_err().0.contains("claims"));
        let cut = &packed[..packed.len() / 2];
        assert!(unpack(1, 0, cut).is_err());
        assert!(unpack(1, 0, &[]).is_err());
    }
}
