//! The database's layouts and the steps between them. A hill made by an older
//! koth is brought to the current layout when it is opened, one step at a time,
//! each in a transaction (a step that fails leaves the hill as it was); a new
//! hill takes every step from an empty file. The steps are SQL files kept here,
//! never edited once released: a change of layout is a new file.

use super::{add_results, record_results, unpack, Batch, Result, StoreError};
use std::path::Path;

/// One step: the layout it leads to, what it does (for the message), its SQL,
/// and what its SQL cannot do (reading the compressed games), after it.
struct Step {
    to: i64,
    what: &'static str,
    sql: &'static str,
    then: Option<fn(&rusqlite::Transaction<'_>) -> Result<()>>,
}

/// Every step, in order. Layout 1 (games one row each, before batches) is
/// older than the steps: such a hill is refused with its fix.
const STEPS: &[Step] = &[
    Step {
        to: 2,
        what: "the tables of a hill",
        sql: include_str!("migrations/002_tables.sql"),
        then: None,
    },
    Step {
        to: 3,
        what: "a block's versions in a table of their own",
        sql: include_str!("migrations/003_block_versions.sql"),
        then: None,
    },
    Step {
        to: 4,
        what: "each version's results kept as its games are stored",
        sql: include_str!("migrations/004_version_results.sql"),
        then: Some(count_results),
    },
    Step {
        to: 5,
        what: "the contest: its texts and dates, announcements, the final round",
        sql: include_str!("migrations/005_contest.sql"),
        then: None,
    },
    Step {
        to: 6,
        what: "the decision logs of games with programs (stderr at each decision, times)",
        sql: include_str!("migrations/006_game_logs.sql"),
        then: None,
    },
];

/// The layout this koth reads and writes.
pub(super) const LAYOUT: i64 = 6;

/// The layout of the database `db` (0 for an empty file).
pub(super) fn layout(db: &rusqlite::Connection) -> Result<i64> {
    let version: i64 = db.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    let tables: i64 = db.query_row(
        "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'",
        [],
        |r| r.get(0),
    )?;
    Ok(if tables == 0 { 0 } else { version })
}

/// Whether a database of layout `at` can be read as it is, or what stops it.
pub(super) fn readable(at: i64, path: &Path) -> Result<bool> {
    if at > LAYOUT {
        return Err(StoreError::Invalid(format!(
            "{} has the layout of a newer koth (layout {at}; this koth reads layout {LAYOUT})\n  fix: open it with that koth, or a newer one",
            path.display()
        )));
    }
    // The first step makes the tables of an empty file: it is no migration.
    if at != 0 && at < STEPS[0].to {
        return Err(StoreError::Invalid(format!(
            "{} has layout {at}, older than any this koth can migrate (from {})\n  fix: open it with the koth that made it, or start a new hill",
            path.display(),
            STEPS[0].to
        )));
    }
    Ok(at == LAYOUT)
}

/// Brings `db` to the current layout: each step it lacks, in its own
/// transaction. Returns the steps taken, in words.
pub(super) fn run(db: &mut rusqlite::Connection, path: &Path) -> Result<Vec<String>> {
    let at = layout(db)?;
    readable(at, path)?;
    let mut taken = Vec::new();
    for step in STEPS.iter().filter(|s| s.to > at) {
        let tx = db.transaction_with_behavior(rusqlite::TransactionBehavior::Exclusive)?;
        // Another koth may have migrated it while this one waited for the lock.
        let now: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if now >= step.to {
            continue;
        }
        tx.execute_batch(step.sql).map_err(|e| {
            StoreError::Storage(format!(
                "{}: migrating to layout {} ({}) failed: {e}",
                path.display(),
                step.to,
                step.what
            ))
        })?;
        if let Some(then) = step.then {
            then(&tx)?;
        }
        tx.pragma_update(None, "user_version", step.to)?;
        tx.commit()?;
        taken.push(format!("layout {}: {}", step.to, step.what));
    }
    Ok(taken)
}

/// Layout 4's results of the games stored before it, batch by batch as the
/// hill would have kept them.
fn count_results(tx: &rusqlite::Transaction<'_>) -> Result<()> {
    let mut q = tx.prepare("SELECT block, first, games FROM batches ORDER BY block, first")?;
    let mut rows = q.query([])?;
    while let Some(r) = rows.next()? {
        let packed: Vec<u8> = r.get(2)?;
        let mut batch = Batch::default();
        for g in unpack(r.get(0)?, r.get::<_, i64>(1)? as u64, &packed)? {
            let (scores, forfeited) = record_results(&g.record);
            batch.tally(&g.seats, &scores, forfeited.into_iter());
        }
        add_results(tx, &batch.results)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_steps_lead_to_the_current_layout_in_order() {
        let tos: Vec<i64> = STEPS.iter().map(|s| s.to).collect();
        assert!(tos.windows(2).all(|w| w[1] == w[0] + 1), "{tos:?}");
        assert_eq!(*tos.last().unwrap(), LAYOUT);
    }

    #[test]
    fn a_newer_or_a_too_old_layout_is_refused_with_its_fix() {
        let p = Path::new("/h/hill.sqlite");
        let newer = readable(LAYOUT + 1, p).unwrap_err().to_string();
        assert!(
            newer.contains("newer koth") && newer.contains("fix:"),
            "{newer}"
        );
        let older = readable(1, p).unwrap_err().to_string();
        assert!(
            older.contains("older than any") && older.contains("fix:"),
            "{older}"
        );
        assert!(readable(LAYOUT, p).unwrap());
        assert!(!readable(2, p).unwrap());
        assert!(!readable(0, p).unwrap());
    }

    /// Layout 3 moves a block's versions out of a text column, seat by seat,
    /// whatever their count.
    #[test]
    fn a_blocks_versions_move_to_their_table_in_seat_order() {
        let mut db = rusqlite::Connection::open_in_memory().unwrap();
        db.execute_batch(STEPS[0].sql).unwrap();
        db.pragma_update(None, "user_version", 2).unwrap();
        for (id, versions) in [(1, "3,1,2"), (2, "12"), (3, "7,40,5,6,100,2")] {
            db.execute(
                "INSERT INTO blocks (id, kind, versions, schedule, seed, games, done, after_event)
                 VALUES (?1, 'field', ?2, 'null', '1', 10, 0, 0)",
                rusqlite::params![id, versions],
            )
            .unwrap();
        }
        let taken = run(&mut db, Path::new("mem")).unwrap();
        assert_eq!(taken.len(), STEPS.len() - 1, "{taken:?}");
        let rows: Vec<(i64, i64, i64)> = db
            .prepare("SELECT block, seat, version FROM block_versions ORDER BY block, seat")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<std::result::Result<_, _>>()
            .unwrap();
        let want = [
            (1, 0, 3),
            (1, 1, 1),
            (1, 2, 2),
            (2, 0, 12),
            (3, 0, 7),
            (3, 1, 40),
            (3, 2, 5),
            (3, 3, 6),
            (3, 4, 100),
            (3, 5, 2),
        ];
        assert_eq!(rows, want);
        assert_eq!(layout(&db).unwrap(), LAYOUT);
        // Opened again: nothing to do.
        assert!(run(&mut db, Path::new("mem")).unwrap().is_empty());
    }
}
