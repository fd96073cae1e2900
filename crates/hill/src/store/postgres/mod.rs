//! The PostgreSQL backend of [`Store`]: one database that the hill's own
//! process (the page, the scheduler) and any number of workers on other
//! machines share. Blocks are cut into leases that workers claim with
//! `FOR UPDATE SKIP LOCKED` and store in one transaction each: a worker that
//! dies loses only its lease, which expires by the database's clock.

use super::batch::{ids, unpack};
use super::*;
use std::cell::RefCell;
use std::collections::HashMap;
use std::io::Write;

/// The file in a hill's folder that names its PostgreSQL database (readable by
/// the organiser only: the address may hold a password).
pub const DATABASE_URL: &str = "database.url";

/// The layout this koth reads and writes, and the steps to it (SQL files kept
/// here, never edited once released: a change of layout is a new file).
const LAYOUT: i32 = 1;
const STEPS: &[(i32, &str)] = &[(1, include_str!("migrations/001_hill.sql"))];

/// Whether the folder `dir` names a PostgreSQL database.
pub(crate) fn names_one(dir: &Path) -> bool {
    std::fs::symlink_metadata(dir.join(DATABASE_URL)).is_ok_and(|m| m.is_file())
}

/// A hill's data in a PostgreSQL database.
pub struct Postgres {
    db: RefCell<::postgres::Client>,
    url: String,
    /// The bytes of decision logs kept, once counted, and the most the hill keeps.
    logs: Option<(u64, u64)>,
    /// The hill's settings, read once (they never change).
    settings: RefCell<Option<Settings>>,
}

impl From<::postgres::Error> for StoreError {
    fn from(e: ::postgres::Error) -> Self {
        StoreError::Storage(format!("hill database (PostgreSQL): {}", pg_text(&e)))
    }
}

/// What PostgreSQL said, in full ("db error" alone says nothing).
fn pg_text(e: &::postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("{}: {}", db.severity(), db.message()),
        None => match std::error::Error::source(e) {
            Some(why) => format!("{e}: {why}"),
            None => e.to_string(),
        },
    }
}

/// `url` with its password left out, to be said in a message.
fn shown(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => {
            let user = &url[s + 3..at];
            match user.find(':') {
                Some(c) => format!("{}{}:***{}", &url[..s + 3], &user[..c], &url[at..]),
                None => url.to_string(),
            }
        }
        // A key=value string: its password's value left out.
        _ => url
            .split_whitespace()
            .map(|kv| match kv.split_once('=') {
                Some((k, _)) if k.eq_ignore_ascii_case("password") => format!("{k}=***"),
                _ => kv.to_string(),
            })
            .collect::<Vec<_>>()
            .join(" "),
    }
}

impl Postgres {
    /// Connects to the database at `url` and brings it to the current layout.
    pub fn connect(url: &str) -> Result<Postgres> {
        let mut db = ::postgres::Client::connect(url, ::postgres::NoTls).map_err(|e| {
            StoreError::Storage(format!(
                "cannot reach the hill's PostgreSQL at {}: {}\n  fix: check the address (postgres://USER:PASSWORD@HOST:PORT/DATABASE), that the server runs and lets this machine in",
                shown(url),
                pg_text(&e)
            ))
        })?;
        migrate(&mut db, url)?;
        Ok(Postgres {
            db: RefCell::new(db),
            url: url.to_string(),
            logs: None,
            settings: RefCell::new(None),
        })
    }

    /// Makes a hill's database at `url` (which must hold none yet) and names
    /// it in the folder `dir`.
    pub fn create(dir: &Path, url: &str, settings: &Settings) -> Result<Postgres> {
        if dir.join(super::DATABASE).exists() || names_one(dir) {
            return Err(StoreError::Conflict(format!(
                "{} is a hill already\n  fix: pick another folder, or go on with this one",
                dir.display()
            )));
        }
        let s = Postgres::connect(url)?;
        let json = serde_json::to_string(settings).map_err(|e| StoreError::new(e.to_string()))?;
        let n = s.db.borrow_mut().execute(
            "INSERT INTO settings (id, json) VALUES (1, $1) ON CONFLICT (id) DO NOTHING",
            &[&json],
        )?;
        if n == 0 {
            return Err(StoreError::Conflict(format!(
                "the database at {} holds a hill already\n  fix: name an empty database (createdb NAME), or open the hill whose folder names this one",
                shown(url)
            )));
        }
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(dir.join(DATABASE_URL))
            .map_err(|e| StoreError::new(format!("cannot write {DATABASE_URL}: {e}")))?;
        f.write_all(format!("{url}\n").as_bytes())
            .map_err(|e| StoreError::new(format!("cannot write {DATABASE_URL}: {e}")))?;
        Ok(s)
    }

    /// Opens the hill whose folder `dir` names its database.
    pub fn open(dir: &Path) -> Result<Postgres> {
        use std::io::Read;
        use std::os::unix::fs::OpenOptionsExt;
        let path = dir.join(DATABASE_URL);
        let mut text = String::new();
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path)
            .and_then(|f| f.take(4096).read_to_string(&mut text))
            .map_err(|e| StoreError::NotFound(format!("cannot read {}: {e}", path.display())))?;
        let s = Postgres::connect(text.trim())?;
        s.settings()?;
        Ok(s)
    }

    fn q(&self) -> std::cell::RefMut<'_, ::postgres::Client> {
        self.db.borrow_mut()
    }

    /// Counts `added` more bytes of decision logs and, past the hill's cap,
    /// removes the oldest rows until a tenth of the cap is free.
    fn keep_logs(&mut self, added: u64) -> Result<()> {
        let (kept, cap) = match self.logs {
            Some((kept, cap)) => (kept + added, cap),
            None => {
                let kept: i64 = self
                    .q()
                    .query_one(
                        "SELECT COALESCE(SUM(length(logs)), 0)::BIGINT FROM game_logs",
                        &[],
                    )?
                    .get(0);
                (kept as u64, self.settings()?.log_bytes())
            }
        };
        self.logs = Some((kept, cap));
        if kept <= cap {
            return Ok(());
        }
        let keep = (cap - cap / 10) as i64;
        self.q().execute(
            "DELETE FROM game_logs WHERE id IN (
                 SELECT id FROM (SELECT id, SUM(length(logs)) OVER (ORDER BY id DESC) AS newer
                                 FROM game_logs) n
                 WHERE newer > $1)",
            &[&keep],
        )?;
        let kept: i64 = self
            .q()
            .query_one(
                "SELECT COALESCE(SUM(length(logs)), 0)::BIGINT FROM game_logs",
                &[],
            )?
            .get(0);
        self.logs = Some((kept as u64, cap));
        Ok(())
    }

    /// Stores `batch` at game `first` of `block` in transaction `tx`, as
    /// `worker`'s; gives the bytes of decision logs it kept.
    fn put_batch(
        tx: &mut ::postgres::Transaction<'_>,
        block: i64,
        first: u64,
        batch: &Batch,
        worker: Option<&str>,
    ) -> Result<u64> {
        let count = batch.count as i64;
        let first = first as i64;
        tx.execute(
            "INSERT INTO batches (block, first, count, games, worker) VALUES ($1, $2, $3, $4, $5)",
            &[&block, &first, &count, &batch.pack(), &worker],
        )?;
        tx.execute(
            "UPDATE blocks SET done = done + $1 WHERE id = $2",
            &[&count, &block],
        )?;
        add_results(tx, &batch.results, 1.0)?;
        Ok(match batch.pack_logs() {
            Some(packed) => {
                tx.execute(
                    "INSERT INTO game_logs (block, first, count, logs) VALUES ($1, $2, $3, $4)",
                    &[&block, &first, &count, &packed],
                )?;
                packed.len() as u64
            }
            None => 0,
        })
    }
}

/// Adds (`sign` 1) or takes out (−1) what a batch gave each version.
fn add_results(
    tx: &mut ::postgres::Transaction<'_>,
    results: &HashMap<i64, Results>,
    sign: f64,
) -> Result<()> {
    let mut keys: Vec<&i64> = results.keys().collect();
    // One order for every transaction: two workers never wait on each other in a circle.
    keys.sort_unstable();
    for v in keys {
        let r = &results[v];
        let (games, forfeits) = (
            r.games as i64 * sign as i64,
            r.forfeits as i64 * sign as i64,
        );
        tx.execute(
            "INSERT INTO version_results (version, games, score, forfeits) VALUES ($1, $2, $3, $4)
             ON CONFLICT (version) DO UPDATE SET games = version_results.games + excluded.games,
             score = version_results.score + excluded.score,
             forfeits = version_results.forfeits + excluded.forfeits",
            &[v, &games, &(r.score * sign), &forfeits],
        )?;
    }
    Ok(())
}

/// Brings the database to the current layout, one step a transaction, while
/// no other koth does (an advisory lock).
fn migrate(db: &mut ::postgres::Client, url: &str) -> Result<()> {
    // PostgreSQL's notices ("already exists, skipping") are not the hill's news.
    db.batch_execute("SET client_min_messages TO warning")?;
    let mut tx = db.transaction()?;
    tx.batch_execute(
        "SELECT pg_advisory_xact_lock(7040531);
         CREATE TABLE IF NOT EXISTS koth_layout (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)",
    )?;
    let now: i32 = tx
        .query_opt("SELECT version FROM koth_layout WHERE id = 1", &[])?
        .map_or(0, |r| r.get(0));
    if now > LAYOUT {
        return Err(StoreError::Invalid(format!(
            "the hill's database at {} has layout {now}, made by a newer koth (this one reads {LAYOUT})\n  fix: use that koth, or a newer one",
            shown(url)
        )));
    }
    for (to, sql) in STEPS.iter().filter(|(to, _)| *to > now) {
        tx.batch_execute(sql)?;
        tx.execute(
            "INSERT INTO koth_layout (id, version) VALUES (1, $1)
             ON CONFLICT (id) DO UPDATE SET version = excluded.version",
            &[to],
        )?;
    }
    tx.commit()?;
    Ok(())
}

fn parse_kind<T>(s: &str, parse: fn(&str) -> Option<T>, what: &str) -> Result<T> {
    parse(s).ok_or_else(|| {
        StoreError::Invalid(format!(
            "hill database: a value no koth writes: {what} {s:?}"
        ))
    })
}

/// A block's columns, in the order [`block_row`] reads them.
const BLOCK_COLUMNS: &str = "id, kind, (SELECT string_agg(version::TEXT, ',' ORDER BY seat)
    FROM block_versions WHERE block = blocks.id), schedule, seed, games, done, after_event";

fn block_row(r: &::postgres::Row) -> Result<Block> {
    let id: i64 = r.get(0);
    let kind: String = r.get(1);
    let versions: Option<String> = r.get(2);
    let schedule: String = r.get(3);
    let seed: String = r.get(4);
    let bad = |what: String| StoreError::Invalid(format!("hill database: {what}"));
    Ok(Block {
        id,
        kind: parse_kind(&kind, BlockKind::parse, "a block of kind")?,
        versions: versions.as_deref().map(ids).unwrap_or_default(),
        schedule: serde_json::from_str(&schedule)
            .map_err(|e| bad(format!("block {id}: its schedule {schedule:?}: {e}")))?,
        seed: seed
            .parse()
            .map_err(|e| bad(format!("block {id}: its seed {seed:?}: {e}")))?,
        games: r.get::<_, i64>(5) as u64,
        done: r.get::<_, i64>(6) as u64,
        after_event: r.get(7),
    })
}

fn event_row(r: &::postgres::Row) -> Result<Event> {
    Ok(Event {
        id: r.get(0),
        at: r.get(1),
        kind: parse_kind(r.get(2), Change::parse, "an event of kind")?,
        entrant: r.get(3),
        version: r.get(4),
        before_block: r.get(5),
    })
}

use std::os::unix::fs::OpenOptionsExt;

impl Store for Postgres {
    fn settings(&self) -> Result<Settings> {
        if let Some(s) = self.settings.borrow().as_ref() {
            return Ok(s.clone());
        }
        let row = self
            .q()
            .query_opt("SELECT json FROM settings WHERE id = 1", &[])?
            .ok_or_else(|| {
                StoreError::NotFound(format!(
                    "the database at {} holds no hill\n  fix: koth hill init DIR --db {} makes one",
                    shown(&self.url),
                    shown(&self.url)
                ))
            })?;
        let json: String = row.get(0);
        let s: Settings = serde_json::from_str(&json)
            .map_err(|e| StoreError::new(format!("hill settings: {e}")))?;
        *self.settings.borrow_mut() = Some(s.clone());
        Ok(s)
    }

    fn entrants(&self) -> Result<Vec<Entrant>> {
        self.q()
            .query(
                "SELECT id, name, status, version, owner FROM entrants ORDER BY id",
                &[],
            )?
            .iter()
            .map(|r| {
                Ok(Entrant {
                    id: r.get(0),
                    name: r.get(1),
                    status: parse_kind(r.get(2), Status::parse, "an entrant whose status is")?,
                    version: r.get(3),
                    owner: r.get(4),
                })
            })
            .collect()
    }

    fn versions(&self) -> Result<Vec<Version>> {
        Ok(self
            .q()
            .query(
                "SELECT id, entrant, number, spec, at FROM versions ORDER BY id",
                &[],
            )?
            .iter()
            .map(|r| Version {
                id: r.get(0),
                entrant: r.get(1),
                number: r.get(2),
                spec: serde_json::from_str(r.get(3)).unwrap_or(serde_json::Value::Null),
                at: r.get(4),
            })
            .collect())
    }

    fn change(
        &mut self,
        kind: Change,
        name: &str,
        spec: Option<serde_json::Value>,
        by: Option<&Author>,
    ) -> Result<Event> {
        let mut db = self.q();
        let mut tx = db.transaction()?;
        // One change at a time: the event log's order is the changes' order.
        tx.batch_execute("LOCK TABLE entrants IN EXCLUSIVE MODE")?;
        let found: Option<(i64, Status)> =
            match tx.query_opt("SELECT id, status FROM entrants WHERE name = $1", &[&name])? {
                Some(r) => Some((
                    r.get(0),
                    parse_kind(r.get(1), Status::parse, "an entrant whose status is")?,
                )),
                None => None,
            };
        let at = now();
        let mut version = None;
        let spec_text = spec.as_ref().map(|s| s.to_string()).unwrap_or_default();
        let new_version = |tx: &mut ::postgres::Transaction<'_>, entrant: i64| -> Result<i64> {
            let number: i64 = tx
                .query_one(
                    "SELECT COUNT(*) + 1 FROM versions WHERE entrant = $1",
                    &[&entrant],
                )?
                .get(0);
            let v: i64 = tx
                .query_one(
                    "INSERT INTO versions (entrant, number, spec, at) VALUES ($1, $2, $3, $4) RETURNING id",
                    &[&entrant, &number, &spec_text, &at],
                )?
                .get(0);
            tx.execute(
                "UPDATE entrants SET version = $1 WHERE id = $2",
                &[&v, &entrant],
            )?;
            Ok(v)
        };
        let owner = by.filter(|a| !a.admin).map(|a| a.name.clone());
        match step_of(kind, name, found)? {
            Step::Return(id) => {
                tx.execute(
                    "UPDATE entrants SET status = 'active' WHERE id = $1",
                    &[&id],
                )?;
                version = Some(new_version(&mut tx, id)?);
            }
            Step::Insert => {
                let id: i64 = tx
                    .query_one(
                        "INSERT INTO entrants (name, status, version, owner) VALUES ($1, 'active', 0, $2) RETURNING id",
                        &[&name, &owner],
                    )?
                    .get(0);
                version = Some(new_version(&mut tx, id)?);
            }
            Step::NewVersion(id) => version = Some(new_version(&mut tx, id)?),
            Step::SetStatus(id, to) => {
                tx.execute(
                    "UPDATE entrants SET status = $1 WHERE id = $2",
                    &[&to.name(), &id],
                )?;
            }
        }
        let before_block: i64 = tx
            .query_one("SELECT COALESCE(MAX(id), 0) FROM blocks", &[])?
            .get(0);
        let id: i64 = tx
            .query_one(
                "INSERT INTO events (at, kind, entrant, version, before_block) VALUES ($1, $2, $3, $4, $5) RETURNING id",
                &[&at, &kind.name(), &name, &version, &before_block],
            )?
            .get(0);
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
        let n = self.q().execute(
            "INSERT INTO tokens (name, hash, admin, at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
            &[&name, &hash, &admin, &now()],
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
            .q()
            .execute("DELETE FROM tokens WHERE name = $1", &[&name])?
            == 0
        {
            return Err(StoreError::NotFound(format!(
                "the hill has no token {name:?}"
            )));
        }
        Ok(())
    }

    fn tokens(&self) -> Result<Vec<TokenInfo>> {
        Ok(self
            .q()
            .query("SELECT name, admin, at FROM tokens ORDER BY name", &[])?
            .iter()
            .map(|r| TokenInfo {
                name: r.get(0),
                admin: r.get(1),
                at: r.get(2),
            })
            .collect())
    }

    fn author(&self, hash: &str) -> Result<Option<Author>> {
        Ok(self
            .q()
            .query_opt("SELECT name, admin FROM tokens WHERE hash = $1", &[&hash])?
            .map(|r| Author {
                name: r.get(0),
                admin: r.get(1),
            }))
    }

    fn add_round(&mut self, r: &Round) -> Result<i64> {
        self.q().execute(
            "INSERT INTO rounds (id, at, games, entrants, standings, beacon) VALUES ($1, $2, $3, $4, $5, $6)",
            &[
                &r.id,
                &r.at,
                &(r.games as i64),
                &r.entrants.to_string(),
                &r.standings.to_string(),
                &r.beacon,
            ],
        )?;
        Ok(r.id)
    }

    fn rounds(&self) -> Result<Vec<Round>> {
        Ok(self
            .q()
            .query(
                "SELECT id, at, games, entrants, standings, beacon FROM rounds ORDER BY id",
                &[],
            )?
            .iter()
            .map(|r| Round {
                id: r.get(0),
                at: r.get(1),
                games: r.get::<_, i64>(2) as u64,
                entrants: serde_json::from_str(r.get(3)).unwrap_or_default(),
                standings: serde_json::from_str(r.get(4)).unwrap_or_default(),
                beacon: r.get(5),
            })
            .collect())
    }

    fn next_round(&self) -> Result<i64> {
        Ok(self
            .q()
            .query_one("SELECT COALESCE(MAX(id), 0) + 1 FROM rounds", &[])?
            .get(0))
    }

    fn contest(&self) -> Result<Contest> {
        match self
            .q()
            .query_opt("SELECT body FROM contest WHERE id = 1", &[])?
        {
            None => Ok(Contest::default()),
            Some(r) => serde_json::from_str(r.get(0))
                .map_err(|e| StoreError::Invalid(format!("the contest's row is damaged: {e}"))),
        }
    }

    fn set_contest(&mut self, contest: &Contest) -> Result<()> {
        let body = serde_json::to_string(contest).map_err(|e| StoreError::new(e.to_string()))?;
        self.q().execute(
            "INSERT INTO contest (id, body) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET body = $1",
            &[&body],
        )?;
        Ok(())
    }

    fn announce(&mut self, text: &str) -> Result<Announcement> {
        let at = now();
        let id: i64 = self
            .q()
            .query_one(
                "INSERT INTO announcements (at, text) VALUES ($1, $2) RETURNING id",
                &[&at, &text],
            )?
            .get(0);
        Ok(Announcement {
            id,
            at,
            text: text.to_string(),
        })
    }

    fn unannounce(&mut self, id: i64) -> Result<()> {
        if self
            .q()
            .execute("DELETE FROM announcements WHERE id = $1", &[&id])?
            == 0
        {
            return Err(StoreError::NotFound(format!(
                "no announcement {id}\n  fix: koth hill announce DIR --list shows them"
            )));
        }
        Ok(())
    }

    fn announcements(&self) -> Result<Vec<Announcement>> {
        Ok(self
            .q()
            .query(
                "SELECT id, at, text FROM announcements ORDER BY id DESC",
                &[],
            )?
            .iter()
            .map(|r| Announcement {
                id: r.get(0),
                at: r.get(1),
                text: r.get(2),
            })
            .collect())
    }

    fn add_history(&mut self, at: i64, games: u64, rows: &serde_json::Value) -> Result<()> {
        self.q().execute(
            "INSERT INTO history (at, games, rows) VALUES ($1, $2, $3)",
            &[&at, &(games as i64), &rows.to_string()],
        )?;
        Ok(())
    }

    fn history(&self, n: usize) -> Result<Vec<(i64, u64, serde_json::Value)>> {
        let total: i64 = self
            .q()
            .query_one("SELECT COUNT(*) FROM history", &[])?
            .get(0);
        let k = (total as usize).div_ceil(n.max(1)).max(1) as i64;
        Ok(self
            .q()
            .query(
                "SELECT at, games, rows FROM history
                 WHERE (id - 1) % $1 = 0 OR id = (SELECT MAX(id) FROM history) ORDER BY id",
                &[&k],
            )?
            .iter()
            .map(|r| {
                (
                    r.get(0),
                    r.get::<_, i64>(1) as u64,
                    serde_json::from_str(r.get(2)).unwrap_or_default(),
                )
            })
            .collect())
    }

    fn events(&self, after: i64) -> Result<Vec<Event>> {
        self.q()
            .query(
                "SELECT id, at, kind, entrant, version, before_block FROM events WHERE id > $1 ORDER BY id",
                &[&after],
            )?
            .iter()
            .map(event_row)
            .collect()
    }

    fn blocks(&self) -> Result<Vec<Block>> {
        self.q()
            .query(
                &format!("SELECT {BLOCK_COLUMNS} FROM blocks ORDER BY id"),
                &[],
            )?
            .iter()
            .map(block_row)
            .collect()
    }

    fn block(&self, id: i64) -> Result<Option<Block>> {
        self.q()
            .query_opt(
                &format!("SELECT {BLOCK_COLUMNS} FROM blocks WHERE id = $1"),
                &[&id],
            )?
            .as_ref()
            .map(block_row)
            .transpose()
    }

    fn open_block(&self) -> Result<Option<Block>> {
        self.q()
            .query_opt(
                &format!(
                    "SELECT {BLOCK_COLUMNS} FROM blocks WHERE done < games ORDER BY id LIMIT 1"
                ),
                &[],
            )?
            .as_ref()
            .map(block_row)
            .transpose()
    }

    fn planned(&self) -> Result<Planned> {
        let blocks: i64 = self
            .q()
            .query_one("SELECT COALESCE(MAX(id), 0) FROM blocks", &[])?
            .get(0);
        let mut planned = Planned {
            blocks: blocks as u64,
            ..Default::default()
        };
        for r in self.q().query(
            "SELECT v.version, b.id, b.games FROM blocks b
             JOIN block_versions v ON v.block = b.id AND v.seat = 0
             WHERE b.kind = 'candidate' ORDER BY b.id",
            &[],
        )? {
            let v: i64 = r.get(0);
            *planned.candidate.entry(v).or_default() += 1;
            planned
                .candidate_blocks
                .entry(v)
                .or_default()
                .push((r.get(1), r.get::<_, i64>(2) as u64));
        }
        Ok(planned)
    }

    fn plan(&mut self, block: &Block) -> Result<Block> {
        let leases = self.settings()?.leases();
        let mut db = self.q();
        let mut tx = db.transaction()?;
        // Numbers with no gap: one planner at a time takes the next.
        tx.batch_execute("LOCK TABLE blocks IN EXCLUSIVE MODE")?;
        let id: i64 = tx
            .query_one("SELECT COALESCE(MAX(id), 0) + 1 FROM blocks", &[])?
            .get(0);
        tx.execute(
            "INSERT INTO blocks (id, kind, schedule, seed, games, done, after_event) VALUES ($1, $2, $3, $4, $5, 0, $6)",
            &[
                &id,
                &block.kind.name(),
                &block.schedule.to_string(),
                &block.seed.to_string(),
                &(block.games as i64),
                &block.after_event,
            ],
        )?;
        for (seat, v) in block.versions.iter().enumerate() {
            tx.execute(
                "INSERT INTO block_versions (block, seat, version) VALUES ($1, $2, $3)",
                &[&id, &(seat as i32), v],
            )?;
        }
        // The block's games cut into leases of (nearly) equal length.
        let per = block.games.div_ceil(leases).max(1);
        let mut first = 0;
        while first < block.games {
            let count = per.min(block.games - first);
            tx.execute(
                "INSERT INTO leases (block, first, count) VALUES ($1, $2, $3)",
                &[&id, &(first as i64), &(count as i64)],
            )?;
            first += count;
        }
        tx.commit()?;
        Ok(Block {
            id,
            done: 0,
            ..block.clone()
        })
    }

    fn add_batch(&mut self, block: i64, first: u64, batch: &Batch) -> Result<()> {
        // The hill's own process storing in order (a round, a test): the
        // games must be the first not stored, and no lease may hold them.
        if batch.count == 0 {
            return Ok(());
        }
        let logged = {
            let mut db = self.q();
            let mut tx = db.transaction()?;
            let done: i64 = tx
                .query_one(
                    "SELECT done FROM blocks WHERE id = $1 FOR UPDATE",
                    &[&block],
                )?
                .get(0);
            if first != done as u64 {
                return Err(StoreError::new(format!(
                    "game {first} of block {block} stored out of order (expected game {done} of block {block})"
                )));
            }
            let logged = Postgres::put_batch(&mut tx, block, first, batch, None)?;
            // Leases whose games are all stored now are done.
            tx.execute(
                "UPDATE leases SET done = true WHERE block = $1 AND first + count <= $2 AND NOT done",
                &[&block, &(done + batch.count as i64)],
            )?;
            tx.commit()?;
            logged
        };
        if logged > 0 {
            self.keep_logs(logged)?;
        }
        Ok(())
    }

    fn results(&self) -> Result<HashMap<i64, Results>> {
        Ok(self
            .q()
            .query(
                "SELECT version, games, score, forfeits FROM version_results",
                &[],
            )?
            .iter()
            .map(|r| {
                (
                    r.get(0),
                    Results {
                        games: r.get::<_, i64>(1) as u64,
                        score: r.get(2),
                        forfeits: r.get::<_, i64>(3) as u64,
                    },
                )
            })
            .collect())
    }

    fn each_batch(&self, visit: &mut dyn FnMut(i64, u64, Vec<u8>) -> bool) -> Result<()> {
        self.each_batch_of(&|_, _| true, (0, 0), visit)
    }

    fn each_batch_of(
        &self,
        keep: &dyn Fn(&[i64], usize) -> bool,
        from: (i64, u64),
        visit: &mut dyn FnMut(i64, u64, Vec<u8>) -> bool,
    ) -> Result<()> {
        let wanted: std::collections::HashSet<i64> = self
            .q()
            .query(
                &format!("SELECT {BLOCK_COLUMNS} FROM blocks WHERE id >= $1 ORDER BY id"),
                &[&from.0],
            )?
            .iter()
            .map(block_row)
            .collect::<Result<Vec<_>>>()?
            .into_iter()
            .filter(|b| keep(&b.versions, seats_of(&b.schedule, b.versions.len())))
            .map(|b| b.id)
            .collect();
        // Read a page at a time (a hill's games need not fit in memory), and
        // visited with the connection free: a visitor may ask the store more.
        const PAGE: usize = 64;
        let mut after: Option<(i64, i64)> = None;
        loop {
            let (op, at) = match after {
                None => (">=", (from.0, from.1 as i64)),
                Some(a) => (">", a),
            };
            let rows = self.q().query(
                &format!(
                    "SELECT block, first, games FROM batches WHERE (block, first) {op} ($1, $2)
                     ORDER BY block, first LIMIT {PAGE}"
                ),
                &[&at.0, &at.1],
            )?;
            for r in &rows {
                let (block, first): (i64, i64) = (r.get(0), r.get(1));
                after = Some((block, first));
                if wanted.contains(&block) && !visit(block, first as u64, r.get(2)) {
                    return Ok(());
                }
            }
            if rows.len() < PAGE {
                return Ok(());
            }
        }
    }

    fn end(&self) -> Result<(i64, u64)> {
        Ok(self
            .q()
            .query_opt(
                "SELECT block, first + count FROM batches ORDER BY block DESC, first DESC LIMIT 1",
                &[],
            )?
            .map_or((0, 0), |r| (r.get(0), r.get::<_, i64>(1) as u64)))
    }

    fn kept(&self) -> Result<Option<String>> {
        Ok(self
            .q()
            .query_opt("SELECT json FROM kept WHERE id = 1", &[])?
            .map(|r| r.get(0)))
    }

    fn keep(&mut self, kept: &str) -> Result<()> {
        self.q().execute(
            "INSERT INTO kept (id, json) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET json = $1",
            &[&kept],
        )?;
        Ok(())
    }

    fn game(&self, block: i64, index: u64) -> Result<Option<StoredGame>> {
        let index = index as i64;
        let Some(r) = self.q().query_opt(
            "SELECT block, first, games FROM batches WHERE block = $1 AND first <= $2 AND first + count > $2",
            &[&block, &index],
        )?
        else {
            return Ok(None);
        };
        let packed: Vec<u8> = r.get(2);
        Ok(unpack(r.get(0), r.get::<_, i64>(1) as u64, &packed)?
            .into_iter()
            .find(|g| g.index == index as u64))
    }

    fn game_log(&self, block: i64, index: u64) -> Result<Option<koth_arena::GameLog>> {
        let r = self.q().query_opt(
            "SELECT logs FROM game_logs WHERE block = $1 AND first <= $2 AND first + count > $2",
            &[&block, &(index as i64)],
        )?;
        match r {
            Some(r) => super::batch::unpack_log(block, index, r.get(0)),
            None => Ok(None),
        }
    }

    fn recent_games(&self, version: i64, n: usize) -> Result<Vec<StoredGame>> {
        let rows = self.q().query(
            "SELECT g.block, g.first, g.games FROM block_versions v JOIN batches g ON g.block = v.block
             WHERE v.version = $1 ORDER BY g.block DESC, g.first DESC LIMIT 64",
            &[&version],
        )?;
        let mut out = Vec::new();
        for r in &rows {
            if out.len() >= n {
                break;
            }
            let packed: Vec<u8> = r.get(2);
            let games = unpack(r.get(0), r.get::<_, i64>(1) as u64, &packed)?;
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
            .q()
            .query_one("SELECT COALESCE(SUM(count), 0)::BIGINT FROM batches", &[])?
            .get(0);
        Ok(n as u64)
    }

    fn backup(&self, _to: &Path) -> Result<()> {
        // A copy naming the same database would be no backup at all.
        Err(StoreError::Invalid(format!(
            "this hill's data is in PostgreSQL ({}), which copies it itself\n  fix: pg_dump the database (pg_dump -Fc DBNAME > hill.dump), and copy the hill's folder (versions/, rounds/) beside it",
            shown(&self.url)
        )))
    }

    fn shared(&self) -> bool {
        true
    }

    fn connect_again(&self) -> Result<Box<dyn Store>> {
        Ok(Box::new(Postgres::connect(&self.url)?))
    }

    fn claim(&mut self, worker: Option<&str>, lease: std::time::Duration) -> Result<Option<Lease>> {
        let secs = lease.as_secs_f64();
        let mut db = self.q();
        let mut tx = db.transaction()?;
        if let Some(w) = worker {
            let ok = tx.execute(
                "UPDATE workers SET seen = $2 WHERE name = $1 AND NOT revoked",
                &[&w, &now()],
            )?;
            if ok == 0 {
                return Err(StoreError::Forbidden(format!(
                    "worker {w:?} is revoked or unknown: it may play no more games for this hill\n  fix: the organiser makes a new token (koth hill worker add DIR NAME)"
                )));
            }
        }
        let row = tx.query_opt(
            "UPDATE leases SET worker = $1, expires = clock_timestamp() + make_interval(secs => $2)
             WHERE (block, first) = (SELECT block, first FROM leases
                 WHERE NOT done AND (expires IS NULL OR expires < clock_timestamp())
                 ORDER BY block, first LIMIT 1 FOR UPDATE SKIP LOCKED)
             RETURNING block, first, count",
            &[&worker, &secs],
        )?;
        tx.commit()?;
        Ok(row.map(|r| Lease {
            block: r.get(0),
            first: r.get::<_, i64>(1) as u64,
            count: r.get::<_, i64>(2) as u64,
            worker: worker.map(str::to_string),
        }))
    }

    fn renew(&mut self, lease: &Lease, lease_time: std::time::Duration) -> Result<bool> {
        let n = self.q().execute(
            "UPDATE leases SET expires = clock_timestamp() + make_interval(secs => $4)
             WHERE block = $1 AND first = $2 AND worker IS NOT DISTINCT FROM $3 AND NOT done
             AND ($3::TEXT IS NULL OR EXISTS (SELECT 1 FROM workers WHERE name = $3 AND NOT revoked))",
            &[
                &lease.block,
                &(lease.first as i64),
                &lease.worker,
                &lease_time.as_secs_f64(),
            ],
        )?;
        Ok(n == 1)
    }

    fn release(&mut self, lease: &Lease) -> Result<()> {
        self.q().execute(
            "UPDATE leases SET expires = NULL, worker = NULL
             WHERE block = $1 AND first = $2 AND worker IS NOT DISTINCT FROM $3 AND NOT done",
            &[&lease.block, &(lease.first as i64), &lease.worker],
        )?;
        Ok(())
    }

    fn add_leased(&mut self, lease: &Lease, batch: &Batch) -> Result<()> {
        if batch.count != lease.count {
            return Err(StoreError::new(format!(
                "the lease of block {} from game {} holds {} games, not {}",
                lease.block, lease.first, lease.count, batch.count
            )));
        }
        let logged = {
            let mut db = self.q();
            let mut tx = db.transaction()?;
            let row = tx.query_opt(
                "SELECT worker, done FROM leases WHERE block = $1 AND first = $2 FOR UPDATE",
                &[&lease.block, &(lease.first as i64)],
            )?;
            let lost = || {
                StoreError::Conflict(format!(
                    "the lease of block {} from game {} is no longer {}'s (it expired and another took it, or it is stored): its games are not stored twice",
                    lease.block,
                    lease.first,
                    lease.worker.as_deref().unwrap_or("the hill")
                ))
            };
            match row {
                Some(r)
                    if !r.get::<_, bool>(1) && r.get::<_, Option<String>>(0) == lease.worker => {}
                _ => return Err(lost()),
            }
            if let Some(w) = &lease.worker {
                let ok = tx.execute(
                    "UPDATE workers SET seen = $2 WHERE name = $1 AND NOT revoked",
                    &[w, &now()],
                )?;
                if ok == 0 {
                    return Err(StoreError::Forbidden(format!(
                        "worker {w:?} is revoked: its games are not stored"
                    )));
                }
            }
            let logged = Postgres::put_batch(
                &mut tx,
                lease.block,
                lease.first,
                batch,
                lease.worker.as_deref(),
            )?;
            tx.execute(
                "UPDATE leases SET done = true WHERE block = $1 AND first = $2",
                &[&lease.block, &(lease.first as i64)],
            )?;
            tx.commit()?;
            logged
        };
        if logged > 0 {
            self.keep_logs(logged)?;
        }
        Ok(())
    }

    fn add_worker(&mut self, name: &str, hash: &str) -> Result<()> {
        let n = self.q().execute(
            "INSERT INTO workers (name, hash, at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
            &[&name, &hash, &now()],
        )?;
        if n == 0 {
            return Err(StoreError::Conflict(format!(
                "the hill has a worker {name:?} already\n  fix: pick another name"
            )));
        }
        Ok(())
    }

    fn worker(&self, hash: &str) -> Result<Option<String>> {
        Ok(self
            .q()
            .query_opt(
                "SELECT name FROM workers WHERE hash = $1 AND NOT revoked",
                &[&hash],
            )?
            .map(|r| r.get(0)))
    }

    fn workers(&self) -> Result<Vec<WorkerInfo>> {
        Ok(self
            .q()
            .query(
                "SELECT w.name, w.at, w.revoked, w.seen,
                        (SELECT COALESCE(SUM(count), 0)::BIGINT FROM batches b WHERE b.worker = w.name)
                 FROM workers w ORDER BY w.name",
                &[],
            )?
            .iter()
            .map(|r| WorkerInfo {
                name: r.get(0),
                at: r.get(1),
                revoked: r.get(2),
                seen: r.get(3),
                games: r.get::<_, i64>(4) as u64,
            })
            .collect())
    }

    fn revoke_worker(&mut self, name: &str) -> Result<()> {
        let mut db = self.q();
        let mut tx = db.transaction()?;
        if tx.execute(
            "UPDATE workers SET revoked = true WHERE name = $1",
            &[&name],
        )? == 0
        {
            return Err(StoreError::NotFound(format!(
                "the hill has no worker {name:?}\n  fix: koth hill worker list DIR shows them"
            )));
        }
        // Its leases under way go back at once.
        tx.execute(
            "UPDATE leases SET worker = NULL, expires = NULL WHERE worker = $1 AND NOT done",
            &[&name],
        )?;
        tx.commit()?;
        Ok(())
    }

    fn exclude_worker(&mut self, name: &str) -> Result<u64> {
        self.revoke_worker(name)?;
        let mut db = self.q();
        let mut tx = db.transaction()?;
        let rows = tx.query(
            "SELECT block, first, count, games FROM batches WHERE worker = $1 ORDER BY block, first FOR UPDATE",
            &[&name],
        )?;
        let mut taken = 0;
        for r in &rows {
            let (block, first, count): (i64, i64, i64) = (r.get(0), r.get(1), r.get(2));
            let packed: Vec<u8> = r.get(3);
            let mut batch = Batch::default();
            for g in unpack(block, first as u64, &packed)? {
                let (scores, forfeited) = record_results(&g.record);
                batch.tally(&g.seats, &scores, forfeited.into_iter());
            }
            add_results(&mut tx, &batch.results, -1.0)?;
            tx.execute(
                "DELETE FROM batches WHERE block = $1 AND first = $2",
                &[&block, &first],
            )?;
            tx.execute(
                "DELETE FROM game_logs WHERE block = $1 AND first = $2",
                &[&block, &first],
            )?;
            tx.execute(
                "UPDATE blocks SET done = done - $2 WHERE id = $1",
                &[&block, &count],
            )?;
            tx.execute(
                "UPDATE leases SET done = false, worker = NULL, expires = NULL WHERE block = $1 AND first = $2",
                &[&block, &first],
            )?;
            taken += count as u64;
        }
        // The standings kept counted those games: counted again when next opened.
        tx.execute("DELETE FROM kept", &[])?;
        tx.commit()?;
        Ok(taken)
    }

    fn worker_leases(&self, name: &str) -> Result<Vec<(i64, u64, u64)>> {
        Ok(self
            .q()
            .query(
                "SELECT block, first, count FROM batches WHERE worker = $1 ORDER BY block, first",
                &[&name],
            )?
            .iter()
            .map(|r| {
                (
                    r.get(0),
                    r.get::<_, i64>(1) as u64,
                    r.get::<_, i64>(2) as u64,
                )
            })
            .collect())
    }

    fn put_folder(&mut self, hash: &str, tar: &[u8]) -> Result<()> {
        self.q().execute(
            "INSERT INTO folders (hash, tar) VALUES ($1, $2) ON CONFLICT (hash) DO NOTHING",
            &[&hash, &tar],
        )?;
        Ok(())
    }

    fn folder(&self, hash: &str) -> Result<Option<Vec<u8>>> {
        Ok(self
            .q()
            .query_opt("SELECT tar FROM folders WHERE hash = $1", &[&hash])?
            .map(|r| r.get(0)))
    }
}

#[cfg(test)]
mod tests {
    use super::shown;

    #[test]
    fn an_address_is_said_without_its_password() {
        assert_eq!(
            shown("postgres://koth:secret@db:5432/hill"),
            "postgres://koth:***@db:5432/hill"
        );
        assert_eq!(shown("postgres://koth@db/hill"), "postgres://koth@db/hill");
        assert_eq!(shown("host=/run/postgresql"), "host=/run/postgresql");
        assert_eq!(
            shown("host=db user=koth password=secret dbname=hill"),
            "host=db user=koth password=*** dbname=hill"
        );
    }
}
