//! A hill made by the previous koth (layout 2: a block's versions in a text
//! column) is opened, migrated and audited clean, and plays on.
//!
//! The fixture in `fixtures/layout2` was made by koth at commit 6182133 with:
//! `koth hill init H --game coup --seed 5 --block 60 --builtin-block 120
//! --candidate-games 30`, four built-ins and a Python program
//! (`sdk/python/example_bot.py`) added, `koth hill play H --games 200`,
//! `koth hill update H counter builtin:skeptic`, `koth hill pause H bluffer`,
//! `koth hill play H --games 200`, `koth hill token add H alice`; its audit
//! then read "11 blocks planned again, 460 games replayed: all as stored".

use crate::common;

use common::{open, play, scratch};
use koth_hill::{BlockKind, Change, Hill, Status};
use std::collections::HashMap;
use std::path::Path;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// Each version's results counted from every stored game, and as the store
/// keeps them: the same games, forfeits and (to rounding) scores.
fn assert_results_kept(h: &Hill<common::Coup>) {
    let mut counted: HashMap<i64, (u64, f64, u64)> = HashMap::new();
    h.store
        .each_game(&mut |g| {
            let (scores, forfeited) = koth_hill::store::record_results(&g.record);
            for (v, s) in g.seats.iter().zip(&scores) {
                let c = counted.entry(*v).or_default();
                c.0 += 1;
                c.1 += s;
            }
            for seat in forfeited {
                counted.entry(g.seats[seat]).or_default().2 += 1;
            }
        })
        .unwrap();
    let kept = h.store.results().unwrap();
    assert_eq!(kept.len(), counted.len());
    for (v, (games, score, forfeits)) in counted {
        let k = kept[&v];
        assert_eq!((k.games, k.forfeits), (games, forfeits), "version {v}");
        assert!(
            (k.score - score).abs() < 1e-6,
            "version {v}: {} vs {score}",
            k.score
        );
    }
}

fn layout(dir: &Path) -> i64 {
    let db = rusqlite::Connection::open(dir.join(koth_hill::store::DATABASE)).unwrap();
    db.query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn a_hill_of_the_previous_layout_is_migrated_and_audits_clean() {
    let d = scratch("layout2");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/layout2"),
        &d,
    );
    assert_eq!(layout(&d), 2);
    // Reading it first: a read-only store migrates it through a writer once.
    let read = koth_hill::store::open_read(&d).unwrap();
    assert_eq!(read.game_count().unwrap(), 460);
    drop(read);
    assert_eq!(layout(&d), 6);
    let mut h = open(&d);
    // Every block kept its versions, seat by seat, and its kind.
    let blocks = h.store.blocks().unwrap();
    assert_eq!(blocks.len(), 11);
    assert_eq!(blocks[0].kind, BlockKind::Candidate);
    assert_eq!(blocks[0].versions, [1, 2, 3, 4, 5]);
    assert_eq!(blocks[5].kind, BlockKind::Pair);
    assert_eq!(blocks[5].versions, [3, 5, 4, 1, 2]);
    assert_eq!(blocks[10].versions, [5, 1, 3, 6]);
    let kinds: Vec<Change> = h.store.events(0).unwrap().iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        [
            Change::Add,
            Change::Add,
            Change::Add,
            Change::Add,
            Change::Add,
            Change::Update,
            Change::Pause
        ]
    );
    let bluffer = h
        .store
        .entrants()
        .unwrap()
        .into_iter()
        .find(|e| e.name == "bluffer");
    assert_eq!(bluffer.unwrap().status, Status::Paused);
    assert_eq!(h.store.tokens().unwrap()[0].name, "alice");
    // Layout 5: no contest said yet, no announcement, and the contest's
    // tables take what the organiser says.
    assert_eq!(h.store.contest().unwrap(), koth_hill::Contest::default());
    assert!(h.store.announcements().unwrap().is_empty());
    let c = koth_hill::Contest {
        title: "Migrated".into(),
        deadline: Some(100),
        ..Default::default()
    };
    h.store.set_contest(&c).unwrap();
    assert_eq!(h.store.contest().unwrap(), c);
    let a = h.store.announce("hello").unwrap();
    assert_eq!(h.store.announcements().unwrap(), [a]);
    // The program's latest games are found through the new table.
    let py = h
        .store
        .versions()
        .unwrap()
        .into_iter()
        .find(|v| v.spec.get("command").is_some());
    let py = py.unwrap().id;
    let recent = h.store.recent_games(py, 10).unwrap();
    assert_eq!(recent.len(), 10);
    // Layout 6: games stored before have no decision log.
    assert!(recent
        .iter()
        .all(|g| h.store.game_log(g.block, g.index).unwrap().is_none()));
    // Each version's results, counted from the games stored before.
    assert_results_kept(&h);
    let audit = h.audit().unwrap();
    assert!(audit.problems.is_empty(), "{:?}", audit.problems);
    assert_eq!((audit.blocks, audit.games), (11, 460));
    // It plays on, and the audit still holds.
    play(&mut h, 100);
    let audit = h.audit().unwrap();
    assert!(audit.problems.is_empty(), "{:?}", audit.problems);
    assert!(audit.games >= 560);
    // And kept as the new games were stored; the program's new games have
    // their decisions' times.
    assert_results_kept(&h);
    let newest = &h.store.recent_games(py, 1).unwrap()[0];
    let log = h.store.game_log(newest.block, newest.index).unwrap();
    assert!(log.is_some_and(|l| !l.times.is_empty()), "{newest:?}");
    std::fs::remove_dir_all(&d).ok();
}
