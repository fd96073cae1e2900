//! The PostgreSQL store's leases, one rule a test, on a real server named by
//! KOTH_TEST_POSTGRES (a user that may make databases); without it the tests
//! say so and pass, unless KOTH_REQUIRE_POSTGRES is set.

use koth_hill::store::{self, Batch, Store, StoreError};
use koth_hill::{Block, BlockKind, Lease, Settings};
use std::time::Duration;

/// A new database and a hill's folder naming it; dropped at the end.
struct Fresh {
    admin: String,
    name: String,
    dir: std::path::PathBuf,
}

impl Drop for Fresh {
    fn drop(&mut self) {
        if let Ok(mut c) = postgres::Client::connect(&self.admin, postgres::NoTls) {
            let _ = c.batch_execute(&format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                self.name
            ));
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn fresh(tag: &str, leases: u64) -> Option<(Fresh, Box<dyn Store>)> {
    let Some(admin) = std::env::var("KOTH_TEST_POSTGRES")
        .ok()
        .filter(|u| !u.is_empty())
    else {
        assert!(
            std::env::var_os("KOTH_REQUIRE_POSTGRES").is_none(),
            "KOTH_REQUIRE_POSTGRES is set, but KOTH_TEST_POSTGRES names no server"
        );
        eprintln!("skipped: no PostgreSQL server (KOTH_TEST_POSTGRES)");
        return None;
    };
    let name = format!("koth_store_{tag}_{}", std::process::id());
    let mut c = postgres::Client::connect(&admin, postgres::NoTls).unwrap();
    c.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        .unwrap();
    c.batch_execute(&format!("CREATE DATABASE {name}")).unwrap();
    let dir = std::env::temp_dir().join(format!("koth-store-pg-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let url = format!("{}/{name}", admin.rsplit_once('/').unwrap().0);
    let settings = Settings {
        game: "coup".into(),
        table: 2,
        seed: 1,
        block: 10,
        candidate_games: 10,
        timeout_ms: 1000,
        leases,
        ..Settings::default()
    };
    let s = store::create(&dir, &settings, Some(&url)).unwrap();
    Some((Fresh { admin, name, dir }, s))
}

fn block(s: &mut dyn Store, games: u64) -> Block {
    s.plan(&Block {
        id: 0,
        kind: BlockKind::Field,
        versions: vec![1, 2],
        schedule: serde_json::Value::Null,
        seed: 1,
        games,
        done: 0,
        after_event: 0,
    })
    .unwrap()
}

/// A lease's games, as a worker would store them (the batch counts their results).
fn games_of(l: &Lease) -> Batch {
    let mut b = Batch::default();
    for i in l.first..l.first + l.count {
        b.push_stored(&[1, 2], &format!("{{\"index\":{i},\"scores\":[1,-1]}}"));
    }
    b
}

const LONG: Duration = Duration::from_secs(60);

#[test]
fn a_block_is_cut_into_leases_each_claimed_once() {
    let Some((_f, mut s)) = fresh("cut", 4) else {
        return;
    };
    let b = block(s.as_mut(), 10);
    assert_eq!(b.id, 1);
    let mut held = Vec::new();
    while let Some(l) = s.claim(None, LONG).unwrap() {
        held.push((l.first, l.count));
    }
    // 10 games in 4 leases: 3, 3, 3, 1, in order, none twice.
    assert_eq!(held, vec![(0, 3), (3, 3), (6, 3), (9, 1)]);
    // Numbers have no gap.
    assert_eq!(block(s.as_mut(), 5).id, 2);
    assert_eq!(s.planned().unwrap().blocks, 2);
}

#[test]
fn a_lease_stored_is_stored_once_and_a_lost_one_is_refused() {
    let Some((_f, mut s)) = fresh("once", 2) else {
        return;
    };
    s.add_worker("a", "hash-a").unwrap();
    s.add_worker("b", "hash-b").unwrap();
    block(s.as_mut(), 4);
    // a's lease expires at once; b takes it and stores it.
    let la = s.claim(Some("a"), Duration::ZERO).unwrap().unwrap();
    std::thread::sleep(Duration::from_millis(20));
    let lb = s.claim(Some("b"), LONG).unwrap().unwrap();
    assert_eq!(
        (lb.block, lb.first),
        (la.block, la.first),
        "the expired lease goes first"
    );
    assert!(!s.renew(&la, LONG).unwrap(), "a renews a lease that is b's");
    s.add_leased(&lb, &games_of(&lb)).unwrap();
    // a, back from the dead, is refused: nothing twice.
    let e = s.add_leased(&la, &games_of(&la)).unwrap_err();
    assert!(matches!(e, StoreError::Conflict(_)), "{e:?}");
    assert!(s.add_leased(&lb, &games_of(&lb)).is_err(), "stored twice");
    assert_eq!(s.game_count().unwrap(), 2);
    // A lease is stored whole: a part is refused.
    let l2 = s.claim(Some("a"), LONG).unwrap().unwrap();
    let mut part = Batch::default();
    part.push_stored(&[1, 2], "{\"index\":2}");
    assert!(s.add_leased(&l2, &part).is_err());
    s.add_leased(&l2, &games_of(&l2)).unwrap();
    assert_eq!(s.open_block().unwrap(), None);
    assert_eq!(s.results().unwrap()[&1].games, 4);
    assert_eq!(s.worker_leases("b").unwrap(), vec![(1, 0, 2)]);
    assert_eq!(s.worker_leases("a").unwrap(), vec![(1, 2, 2)]);
}

#[test]
fn a_revoked_worker_claims_and_stores_nothing_and_an_excluded_ones_games_go_back() {
    let Some((_f, mut s)) = fresh("revoke", 2) else {
        return;
    };
    s.add_worker("a", "hash-a").unwrap();
    s.add_worker("b", "hash-b").unwrap();
    assert_eq!(s.worker("hash-a").unwrap().as_deref(), Some("a"));
    block(s.as_mut(), 4);
    let la = s.claim(Some("a"), LONG).unwrap().unwrap();
    s.add_leased(&la, &games_of(&la)).unwrap();
    let la2 = s.claim(Some("a"), LONG).unwrap().unwrap();
    s.revoke_worker("a").unwrap();
    assert_eq!(s.worker("hash-a").unwrap(), None);
    assert!(matches!(
        s.claim(Some("a"), LONG),
        Err(StoreError::Forbidden(_))
    ));
    assert!(s.add_leased(&la2, &games_of(&la2)).is_err());
    assert!(!s.renew(&la2, LONG).unwrap());
    // Its lease under way went back at once.
    let lb = s.claim(Some("b"), LONG).unwrap().unwrap();
    assert_eq!(lb.first, la2.first);
    s.add_leased(&lb, &games_of(&lb)).unwrap();
    // Excluded: its stored games are taken out, their lease open again.
    assert_eq!(s.exclude_worker("a").unwrap(), 2);
    assert_eq!(s.game_count().unwrap(), 2);
    assert_eq!(s.results().unwrap()[&1].games, 2);
    assert_eq!(s.open_block().unwrap().unwrap().done, 2);
    let again = s.claim(Some("b"), LONG).unwrap().unwrap();
    assert_eq!(again.first, la.first);
    s.add_leased(&again, &games_of(&again)).unwrap();
    assert_eq!(s.game_count().unwrap(), 4);
    let listed = s.workers().unwrap();
    assert_eq!(listed.len(), 2);
    assert!(listed[0].revoked && listed[0].games == 0);
    assert_eq!(listed[1].games, 4);
    assert!(matches!(
        s.revoke_worker("nobody"),
        Err(StoreError::NotFound(_))
    ));
}

#[test]
fn folders_and_the_layout_are_kept() {
    let Some((f, mut s)) = fresh("folders", 2) else {
        return;
    };
    s.put_folder("abc", b"tar bytes").unwrap();
    s.put_folder("abc", b"other").unwrap();
    assert_eq!(s.folder("abc").unwrap().as_deref(), Some(&b"tar bytes"[..]));
    assert_eq!(s.folder("none").unwrap(), None);
    // Opened again through its folder: the same hill, the layout taken as it is.
    let again = store::open(&f.dir).unwrap();
    assert!(again.shared());
    assert_eq!(again.settings().unwrap().leases, 2);
    // A database of a newer koth is refused with its fix.
    let url = std::fs::read_to_string(f.dir.join(store::DATABASE_URL)).unwrap();
    let mut c = postgres::Client::connect(url.trim(), postgres::NoTls).unwrap();
    c.batch_execute("UPDATE koth_layout SET version = 99")
        .unwrap();
    let e = store::open(&f.dir).err().unwrap();
    assert!(
        e.text().contains("newer koth") && e.text().contains("fix:"),
        "{e}"
    );
    // A second hill in the same database is refused.
    let other = f.dir.join("second");
    std::fs::create_dir_all(&other).unwrap();
    c.batch_execute("UPDATE koth_layout SET version = 1")
        .unwrap();
    let e = store::create(&other, &Settings::default(), Some(url.trim()))
        .err()
        .unwrap();
    assert!(
        matches!(e, StoreError::Conflict(_)) && e.text().contains("holds a hill already"),
        "{e}"
    );
}
