//! The SQLite backend of [`Store`]: one file in the hill's folder, written
//! ahead (WAL) so that readers never wait for the writer.

mod migrate;

use super::batch::{ids, unpack};
use super::*;
use rusqlite::OptionalExtension;
use std::collections::HashMap;

/// The file of a hill's database, inside its folder.
pub const DATABASE: &str = "hill.sqlite";

/// A hill's data in one SQLite file, written ahead (WAL): readers never wait for
/// the writer, and a crash loses no committed transaction.
pub struct Sqlite {
    db: rusqlite::Connection,
    /// The bytes of decision logs kept, once counted (by the one process that
    /// plays: [`Store::add_batch`]), and the most the hill keeps.
    logs: Option<(u64, u64)>,
}

/// The games of a row (block, first, games) of the batches.
fn unpack_row(r: &rusqlite::Row<'_>) -> Result<Vec<StoredGame>> {
    let packed = r
        .get_ref(2)?
        .as_blob()
        .map_err(|e| StoreError::new(format!("a batch of games: {e}")))?;
    unpack(r.get(0)?, r.get::<_, i64>(1)? as u64, packed)
}

impl Sqlite {
    /// Makes a hill's database in `dir` (which must not hold one yet).
    pub fn create(dir: &Path, settings: &Settings) -> Result<Sqlite> {
        let path = dir.join(DATABASE);
        if path.exists() {
            return Err(StoreError::Conflict(format!(
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
            return Err(StoreError::NotFound(format!(
                "{} is not a hill (no {DATABASE} in it)\n  fix: make one with koth hill init {}",
                dir.display(),
                dir.display()
            )));
        }
        Sqlite::connect(&path)
    }

    fn connect(path: &Path) -> Result<Sqlite> {
        let mut db = rusqlite::Connection::open(path)?;
        // Another koth (a `hill add` while `hill serve` runs) may hold the write
        // lock for a moment: wait for it rather than fail.
        db.busy_timeout(std::time::Duration::from_secs(30))?;
        // In WAL mode NORMAL loses no committed transaction to a crash of koth,
        // only possibly the last ones to a power cut.
        db.pragma_update(None, "synchronous", "NORMAL")?;
        db.pragma_update(None, "foreign_keys", "ON")?;
        // A hill of the current layout is only read here: opening it never
        // waits for the write lock. An older one is migrated first.
        if !migrate::readable(migrate::layout(&db)?, path)? {
            let mode: String = db.query_row("PRAGMA journal_mode", [], |r| r.get(0))?;
            if mode != "wal" {
                db.pragma_update(None, "journal_mode", "WAL")?;
            }
            migrate::run(&mut db, path)?;
        }
        Ok(Sqlite { db, logs: None })
    }

    /// Opens the hill in `dir` for reading only, as the page does: such a
    /// connection never takes the write lock, so in WAL mode it reads the last
    /// committed state at once, whatever the writer is doing. A write through it
    /// fails.
    pub fn open_read(dir: &Path) -> Result<Sqlite> {
        use rusqlite::OpenFlags;
        let path = dir.join(DATABASE);
        if !path.is_file() {
            return Err(StoreError::NotFound(format!(
                "{} is not a hill (no {DATABASE} in it)",
                dir.display()
            )));
        }
        let db = rusqlite::Connection::open_with_flags(
            &path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        db.busy_timeout(std::time::Duration::from_secs(30))?;
        if !migrate::readable(migrate::layout(&db)?, &path)? {
            // An older layout: migrated once through a writing connection.
            drop(db);
            Sqlite::open(dir)?;
            return Sqlite::open_read(dir);
        }
        Ok(Sqlite { db, logs: None })
    }
}

/// A block's columns, in the order [`block_row`] reads them: its versions
/// gathered from their table, seat by seat.
const BLOCK_COLUMNS: &str = "id, kind, (SELECT group_concat(version, ',' ORDER BY seat)
    FROM block_versions WHERE block = blocks.id), schedule, seed, games, done, after_event";

/// A value no koth writes, read from column `col`: the database is damaged.
fn damaged(col: usize, why: String) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(col, rusqlite::types::Type::Text, why.into())
}

fn block_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Block> {
    let versions: Option<String> = r.get(2)?;
    let schedule: String = r.get(3)?;
    let seed: String = r.get(4)?;
    let id: i64 = r.get(0)?;
    Ok(Block {
        id,
        kind: r.get(1)?,
        versions: versions.as_deref().map(ids).unwrap_or_default(),
        schedule: serde_json::from_str(&schedule)
            .map_err(|e| damaged(3, format!("block {id}: its schedule {schedule:?}: {e}")))?,
        seed: seed
            .parse()
            .map_err(|e| damaged(4, format!("block {id}: its seed {seed:?}: {e}")))?,
        games: r.get::<_, i64>(5)? as u64,
        done: r.get::<_, i64>(6)? as u64,
        after_event: r.get(7)?,
    })
}

/// Adds what a batch gave each version to the versions' results.
fn add_results(
    tx: &rusqlite::Transaction<'_>,
    results: &HashMap<i64, Results>,
) -> rusqlite::Result<()> {
    let mut q = tx.prepare_cached(
        "INSERT INTO version_results (version, games, score, forfeits) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (version) DO UPDATE SET games = games + excluded.games,
         score = score + excluded.score, forfeits = forfeits + excluded.forfeits",
    )?;
    for (v, r) in results {
        q.execute(rusqlite::params![
            v,
            r.games as i64,
            r.score,
            r.forfeits as i64
        ])?;
    }
    Ok(())
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        match e {
            rusqlite::Error::FromSqlConversionFailure(_, _, why) => {
                StoreError::Invalid(format!("hill database: a value no koth writes: {why}"))
            }
            e => StoreError::Storage(format!("hill database: {e}")),
        }
    }
}

/// The kinds the database keeps as their names.
macro_rules! named_column {
    ($t:ty, $what:literal) => {
        impl rusqlite::types::ToSql for $t {
            fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
                Ok(self.name().into())
            }
        }
        impl rusqlite::types::FromSql for $t {
            fn column_result(
                v: rusqlite::types::ValueRef<'_>,
            ) -> rusqlite::types::FromSqlResult<Self> {
                let s = v.as_str()?;
                <$t>::parse(s).ok_or_else(|| {
                    rusqlite::types::FromSqlError::Other(format!("{} {s:?}", $what).into())
                })
            }
        }
    };
}
named_column!(BlockKind, "a block of kind");
named_column!(Change, "an event of kind");
named_column!(Status, "an entrant whose status is");

impl Sqlite {
    /// Counts `added` more bytes of decision logs and, past the hill's cap,
    /// removes the oldest rows until a tenth of the cap is free (so that
    /// removing is rare, not a query a batch).
    fn keep_logs(&mut self, added: u64) -> Result<()> {
        let (kept, cap) = match self.logs {
            Some((kept, cap)) => (kept + added, cap),
            None => {
                let kept: i64 = self.db.query_row(
                    "SELECT COALESCE(SUM(length(logs)), 0) FROM game_logs",
                    [],
                    |r| r.get(0),
                )?;
                (kept as u64, self.settings()?.log_bytes())
            }
        };
        self.logs = Some((kept, cap));
        if kept <= cap {
            return Ok(());
        }
        let keep = (cap - cap / 10) as i64;
        // The newest rows whose bytes, newest first, stay within `keep`.
        self.db.execute(
            "DELETE FROM game_logs WHERE id IN (
                 SELECT id FROM (SELECT id, SUM(length(logs)) OVER (ORDER BY id DESC) AS newer
                                 FROM game_logs)
                 WHERE newer > ?1)",
            [keep],
        )?;
        let kept: i64 = self.db.query_row(
            "SELECT COALESCE(SUM(length(logs)), 0) FROM game_logs",
            [],
            |r| r.get(0),
        )?;
        self.logs = Some((kept as u64, cap));
        Ok(())
    }
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
                status: r.get(2)?,
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
        let found: Option<(i64, Status)> = tx
            .query_row(
                "SELECT id, status FROM entrants WHERE name = ?1",
                [name],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map(Some)
            .or_else(|e| match e {
                rusqlite::Error::QueryReturnedNoRows => Ok(None),
                e => Err(e),
            })?;
        let at = now();
        let mut version = None;
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
        let owner = by.filter(|a| !a.admin).map(|a| a.name.clone());

        match step_of(kind, name, found)? {
            Step::Return(id) => {
                tx.execute("UPDATE entrants SET status = 'active' WHERE id = ?1", [id])?;
                version = Some(new_version(&tx, id)?);
            }
            Step::Insert => {
                tx.execute(
                    "INSERT INTO entrants (name, status, version, owner) VALUES (?1, 'active', 0, ?2)",
                    rusqlite::params![name, owner],
                )?;
                let id = tx.last_insert_rowid();
                version = Some(new_version(&tx, id)?);
            }
            Step::NewVersion(id) => version = Some(new_version(&tx, id)?),
            Step::SetStatus(id, to) => {
                tx.execute(
                    "UPDATE entrants SET status = ?1 WHERE id = ?2",
                    rusqlite::params![to, id],
                )?;
            }
        }
        let before_block: i64 = tx.query_row("SELECT COUNT(*) FROM blocks", [], |r| r.get(0))?;
        tx.execute(
            "INSERT INTO events (at, kind, entrant, version, before_block) VALUES (?1, ?2, ?3, ?4, ?5)",
            rusqlite::params![at, kind, name, version, before_block],
        )?;
        let id = tx.last_insert_rowid();
        tx.commit()?;
        Ok(Event {
            id,
            at,
            kind,
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
            return Err(StoreError::Conflict(format!(
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
            return Err(StoreError::NotFound(format!(
                "the hill has no token {name:?}"
            )));
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
            "INSERT INTO rounds (id, at, games, entrants, standings, beacon) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            rusqlite::params![
                r.id,
                r.at,
                r.games as i64,
                r.entrants.to_string(),
                r.standings.to_string(),
                r.beacon,
            ],
        )?;
        Ok(self.db.last_insert_rowid())
    }

    fn rounds(&self) -> Result<Vec<Round>> {
        let mut q = self
            .db
            .prepare("SELECT id, at, games, entrants, standings, beacon FROM rounds ORDER BY id")?;
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
                beacon: r.get(5)?,
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

    fn backup(&self, to: &Path) -> Result<()> {
        let path = to.join(DATABASE);
        let mut copy = rusqlite::Connection::open(&path)?;
        // A step of pages at a time: the writer waits at most a step's length.
        rusqlite::backup::Backup::new(&self.db, &mut copy)?.run_to_completion(
            256,
            std::time::Duration::from_millis(5),
            None,
        )?;
        Ok(())
    }

    fn contest(&self) -> Result<Contest> {
        let body: Option<String> = self
            .db
            .query_row("SELECT body FROM contest WHERE id = 1", [], |r| r.get(0))
            .optional()?;
        match body {
            None => Ok(Contest::default()),
            Some(b) => serde_json::from_str(&b)
                .map_err(|e| StoreError::Invalid(format!("the contest's row is damaged: {e}"))),
        }
    }

    fn set_contest(&mut self, contest: &Contest) -> Result<()> {
        let body = serde_json::to_string(contest).map_err(|e| StoreError::new(e.to_string()))?;
        self.db.execute(
            "INSERT INTO contest (id, body) VALUES (1, ?1) ON CONFLICT (id) DO UPDATE SET body = ?1",
            [body],
        )?;
        Ok(())
    }

    fn announce(&mut self, text: &str) -> Result<Announcement> {
        let at = now();
        self.db.execute(
            "INSERT INTO announcements (at, text) VALUES (?1, ?2)",
            rusqlite::params![at, text],
        )?;
        Ok(Announcement {
            id: self.db.last_insert_rowid(),
            at,
            text: text.to_string(),
        })
    }

    fn unannounce(&mut self, id: i64) -> Result<()> {
        if self
            .db
            .execute("DELETE FROM announcements WHERE id = ?1", [id])?
            == 0
        {
            return Err(StoreError::NotFound(format!(
                "no announcement {id}\n  fix: koth hill announce DIR --list shows them"
            )));
        }
        Ok(())
    }

    fn announcements(&self) -> Result<Vec<Announcement>> {
        let mut q = self
            .db
            .prepare("SELECT id, at, text FROM announcements ORDER BY id DESC")?;
        let rows = q.query_map([], |r| {
            Ok(Announcement {
                id: r.get(0)?,
                at: r.get(1)?,
                text: r.get(2)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
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
        // A candidate block's candidate sits first.
        let mut q = self.db.prepare(
            "SELECT v.version, b.id, b.games FROM blocks b
             JOIN block_versions v ON v.block = b.id AND v.seat = 0
             WHERE b.kind = 'candidate' ORDER BY b.id",
        )?;
        let mut rows = q.query([])?;
        while let Some(r) = rows.next()? {
            let v: i64 = r.get(0)?;
            *planned.candidate.entry(v).or_default() += 1;
            planned
                .candidate_blocks
                .entry(v)
                .or_default()
                .push((r.get(1)?, r.get::<_, i64>(2)? as u64));
        }
        Ok(planned)
    }

    fn plan(&mut self, block: &Block) -> Result<Block> {
        let tx = self.db.transaction()?;
        // The seed is text: SQLite's integers are signed.
        tx.execute(
            "INSERT INTO blocks (kind, schedule, seed, games, done, after_event) VALUES (?1, ?2, ?3, ?4, 0, ?5)",
            rusqlite::params![
                block.kind,
                block.schedule.to_string(),
                block.seed.to_string(),
                block.games as i64,
                block.after_event
            ],
        )?;
        let id = tx.last_insert_rowid();
        {
            let mut q = tx.prepare_cached(
                "INSERT INTO block_versions (block, seat, version) VALUES (?1, ?2, ?3)",
            )?;
            for (seat, v) in block.versions.iter().enumerate() {
                q.execute(rusqlite::params![id, seat as i64, v])?;
            }
        }
        tx.commit()?;
        Ok(Block {
            id,
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
        add_results(&tx, &batch.results)?;
        let logged = match batch.pack_logs() {
            Some(packed) => {
                tx.prepare_cached(
                    "INSERT INTO game_logs (block, first, count, logs) VALUES (?1, ?2, ?3, ?4)",
                )?
                .execute(rusqlite::params![
                    block,
                    done,
                    batch.count as i64,
                    packed
                ])?;
                packed.len() as u64
            }
            None => 0,
        };
        tx.commit()?;
        if logged > 0 {
            self.keep_logs(logged)?;
        }
        Ok(())
    }

    fn results(&self) -> Result<HashMap<i64, Results>> {
        let mut q = self
            .db
            .prepare("SELECT version, games, score, forfeits FROM version_results")?;
        let rows = q.query_map([], |r| {
            Ok((
                r.get(0)?,
                Results {
                    games: r.get::<_, i64>(1)? as u64,
                    score: r.get(2)?,
                    forfeits: r.get::<_, i64>(3)? as u64,
                },
            ))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
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
            let mut q = self.db.prepare(&format!(
                "SELECT {BLOCK_COLUMNS} FROM blocks WHERE id >= ?1 ORDER BY id"
            ))?;
            for b in q.query_map([from.0], block_row)? {
                let b = b?;
                if !keep(&b.versions, seats_of(&b.schedule, b.versions.len())) {
                    continue;
                }
                match runs.last_mut() {
                    Some((_, last)) if *last + 1 == b.id => *last = b.id,
                    _ => runs.push((b.id, b.id)),
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

    fn game_log(&self, block: i64, index: u64) -> Result<Option<koth_arena::GameLog>> {
        let packed: Option<Vec<u8>> = self
            .db
            .query_row(
                "SELECT logs FROM game_logs WHERE block = ?1 AND first <= ?2 AND first + count > ?2",
                rusqlite::params![block, index as i64],
                |r| r.get(0),
            )
            .optional()?;
        match packed {
            Some(p) => super::batch::unpack_log(block, index, &p),
            None => Ok(None),
        }
    }

    fn recent_games(&self, version: i64, n: usize) -> Result<Vec<StoredGame>> {
        // The batches of the blocks the version played in, newest first.
        let mut q = self.db.prepare(
            "SELECT g.block, g.first, g.games FROM block_versions v JOIN batches g ON g.block = v.block
             WHERE v.version = ?1 ORDER BY g.block DESC, g.first DESC",
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
            kind: BlockKind::Uncertain,
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

    /// A log of `bytes` bytes that do not compress (hex of a hash chain).
    fn noisy_log(seed: u64, bytes: usize) -> koth_arena::GameLog {
        let mut text = String::new();
        let mut h = blake3::hash(&seed.to_le_bytes());
        while text.len() < bytes {
            text.push_str(&h.to_hex());
            h = blake3::hash(h.as_bytes());
        }
        koth_arena::GameLog {
            lines: vec![koth_arena::NoticeRecord {
                seat: 1,
                at: 3,
                entrant: 1,
                kind: koth_arena::NoticeKind::Log,
                text,
                raw: None,
                tried: None,
            }],
            times: vec![
                koth_arena::Took(3, 1, 250, false),
                koth_arena::Took(5, 0, 90, true),
            ],
        }
    }

    #[test]
    fn decision_logs_are_found_by_game_and_the_oldest_go_past_the_cap() {
        let (d, mut s) = hill();
        // A cap of 1 MiB, and batches of two games, the second logged with
        // 100 kB that do not compress: about ten batches fit.
        let mut settings = s.settings().unwrap();
        settings.log_mib = 1;
        s.db.execute(
            "UPDATE settings SET json = ?1",
            [serde_json::to_string(&settings).unwrap()],
        )
        .unwrap();
        let b = block(&mut s, &[1, 2]);
        let mut done = 0;
        s.db.execute("UPDATE blocks SET games = 100 WHERE id = ?1", [b])
            .unwrap();
        for k in 0..30u64 {
            let mut batch = Batch::default();
            for i in [done, done + 1] {
                let g = game(b, i, &[1, 2]);
                batch.push_stored(&g.seats, &g.record);
            }
            batch.push_log(done + 1, &noisy_log(k, 100_000));
            s.add_batch(b, done, &batch).unwrap();
            done += 2;
        }
        // The newest is kept whole and found by its game, not its neighbour.
        let found =
            |s: &Sqlite, g: u64, k: u64| s.game_log(b, g).unwrap() == Some(noisy_log(k, 100_000));
        assert!(found(&s, 59, 29));
        assert_eq!(s.game_log(b, 58).unwrap(), None);
        // The oldest are gone, their games kept; the newest stay, every one,
        // within the cap and no further under it than a tenth and a row.
        assert_eq!(s.game_log(b, 1).unwrap(), None);
        assert!(s.game(b, 1).unwrap().is_some());
        let (rows, bytes, oldest): (i64, i64, i64) =
            s.db.query_row(
                "SELECT COUNT(*), SUM(length(logs)), MIN(first) FROM game_logs",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap();
        assert!(bytes <= 1 << 20, "{bytes} bytes kept");
        let row = bytes / rows;
        assert!(bytes >= (1 << 20) * 9 / 10 - row, "{bytes} bytes kept");
        assert_eq!(rows, (60 - oldest) / 2);
        for k in (oldest as u64 / 2)..30 {
            assert!(found(&s, 2 * k + 1, k), "game {}", 2 * k + 1);
        }
        assert!(!found(&s, oldest as u64 - 1, oldest as u64 / 2 - 1));
        // Opened again, it counts what it keeps from the database.
        drop(s);
        let mut s = Sqlite::open(&d).unwrap();
        let mut batch = Batch::default();
        let g = game(b, done, &[1, 2]);
        batch.push_stored(&g.seats, &g.record);
        batch.push_log(done, &noisy_log(99, 100_000));
        s.add_batch(b, done, &batch).unwrap();
        let bytes: i64 =
            s.db.query_row("SELECT SUM(length(logs)) FROM game_logs", [], |r| r.get(0))
                .unwrap();
        assert!(bytes <= 1 << 20, "{bytes} bytes kept");
        assert!(s.game_log(b, done).unwrap() == Some(noisy_log(99, 100_000)));
        std::fs::remove_dir_all(d).ok();
    }

    #[test]
    fn the_schedulers_summary_and_the_open_block_match_the_blocks() {
        let (d, mut s) = hill();
        assert_eq!(s.planned().unwrap(), Planned::default());
        assert_eq!(s.open_block().unwrap(), None);
        let mut ids = Vec::new();
        for (kind, versions) in [
            (BlockKind::Candidate, vec![3, 1, 2]),
            (BlockKind::Uncertain, vec![1, 2, 3]),
            (BlockKind::Candidate, vec![3, 1, 2]),
            (BlockKind::Candidate, vec![4, 1, 2]),
            (BlockKind::Uncertain, vec![2, 4]),
        ] {
            let id = s
                .plan(&Block {
                    id: 0,
                    kind,
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
    fn a_hill_of_a_layout_too_old_or_too_new_is_refused_with_its_fix() {
        let (d, s) = hill();
        s.db.pragma_update(None, "user_version", 1).unwrap();
        drop(s);
        let e = Sqlite::open(&d).err().unwrap();
        assert!(matches!(e, StoreError::Invalid(_)), "{e:?}");
        assert!(
            e.text().contains("older than any") && e.text().contains("fix:"),
            "{e}"
        );
        let s = rusqlite::Connection::open(d.join(DATABASE)).unwrap();
        s.pragma_update(None, "user_version", 99).unwrap();
        drop(s);
        let e = Sqlite::open_read(&d).err().unwrap().to_string();
        assert!(e.contains("a newer koth") && e.contains("fix:"), "{e}");
        std::fs::remove_dir_all(d).ok();
    }

    /// Opening a hill of the current layout writes nothing, so it never waits
    /// for another connection's write lock; a read-only connection reads and
    /// refuses to write.
    #[test]
    fn opening_a_current_hill_writes_nothing() {
        let (d, s) = hill();
        s.db.execute_batch("BEGIN IMMEDIATE").unwrap();
        // Another connection holds the write lock: opening and reading do not wait.
        let other = Sqlite::open(&d).unwrap();
        other.db.busy_timeout(std::time::Duration::ZERO).unwrap();
        assert!(other.entrants().unwrap().is_empty());
        let mut read = Sqlite::open_read(&d).unwrap();
        assert!(read.settings().is_ok());
        s.db.execute_batch("ROLLBACK").unwrap();
        let e = read.add_token("x", "hash", false).unwrap_err().to_string();
        assert!(e.contains("readonly") || e.contains("read-only"), "{e}");
        std::fs::remove_dir_all(d).ok();
    }

    /// A value no koth writes (a damaged file, a hand edit) is an error that
    /// says where, never a default.
    #[test]
    fn a_corrupt_seed_schedule_kind_or_status_is_an_error_not_a_default() {
        let (d, mut s) = hill();
        let b = block(&mut s, &[1, 2]);
        for (sql, what) in [
            ("UPDATE blocks SET seed = 'x7'", "seed"),
            ("UPDATE blocks SET schedule = '{oops'", "schedule"),
            ("UPDATE blocks SET kind = 'lucky'", "lucky"),
        ] {
            let saved = s.block(b).unwrap().unwrap();
            s.db.execute_batch(sql).unwrap();
            let e = s.blocks().unwrap_err();
            assert!(matches!(e, StoreError::Invalid(_)), "{e:?}");
            assert!(e.text().contains(what), "{e}");
            s.db.execute(
                "UPDATE blocks SET seed = ?1, schedule = ?2, kind = ?3",
                rusqlite::params![
                    saved.seed.to_string(),
                    saved.schedule.to_string(),
                    saved.kind
                ],
            )
            .unwrap();
            assert_eq!(s.blocks().unwrap(), vec![saved]);
        }
        s.db.execute_batch(
            "INSERT INTO entrants (name, status, version) VALUES ('a', 'sleeping', 0)",
        )
        .unwrap();
        assert!(s.entrants().unwrap_err().text().contains("sleeping"));
        std::fs::remove_dir_all(d).ok();
    }

    #[test]
    fn a_damaged_batch_is_an_error_not_a_panic_or_a_huge_allocation() {
        let packed = pack(&[game(1, 0, &[1, 2]), game(1, 1, &[2, 1])]);
        assert_eq!(unpack(1, 0, &packed).unwrap().len(), 2);
        let mut huge = packed.clone();
        huge[..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(unpack(1, 0, &huge).unwrap_err().text().contains("claims"));
        let cut = &packed[..packed.len() / 2];
        assert!(unpack(1, 0, cut).is_err());
        assert!(unpack(1, 0, &[]).is_err());
    }
}
