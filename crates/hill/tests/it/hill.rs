//! The hill as a library: entrants coming, changing and going; the schedule it
//! plans; what it stores; and how close its ranking comes to a full round robin.

use koth_arena::{RecordLevel, Scoring, Tournament};
use koth_entrants::{parse_bot, GameKind, Setup};
use koth_hill::{entrants_at, Change, Hill, Settings, Status};
use std::sync::atomic::AtomicBool;

use crate::common;
use common::*;

#[test]
fn a_new_version_is_a_candidate_against_the_field_dealt_from_seeds_of_its_own() {
    for own in [true, false] {
        let d = scratch("candidate");
        let mut h = hill_of(
            &d,
            &Settings {
                own_candidate_seeds: own,
                ..settings(11, 3, 30, 60)
            },
            &["honest", "bluffer", "economist"],
        );
        play(&mut h, 400);
        add(&mut h, "late", "counter");
        play(&mut h, 60);
        let blocks = h.store.blocks().unwrap();
        let versions = h.store.versions().unwrap();
        let late = versions
            .iter()
            .find(|v| v.number == 1 && v.entrant == 4)
            .unwrap()
            .id;
        let cands: Vec<_> = blocks
            .iter()
            .filter(|b| b.kind == koth_hill::BlockKind::Candidate)
            .collect();
        // The first three were candidates in turn, then the late one: twice (60 games
        // of 30), in a gauntlet against the whole field.
        let of_late: Vec<_> = cands.iter().filter(|b| b.versions[0] == late).collect();
        assert_eq!(of_late.len(), 2, "{blocks:#?}");
        assert_eq!(of_late[0].versions.len(), 4);
        assert!(of_late[0].schedule["kind"] == "gauntlet");
        // No deal of another candidate's (all on the page) is dealt to it again;
        // a hill made before seeds of their own keeps sharing them, so its
        // audit holds.
        let first = versions[0].id;
        let of_first: Vec<_> = cands.iter().filter(|b| b.versions[0] == first).collect();
        let seeds: Vec<u64> = cands.iter().map(|b| b.seed).collect();
        if own {
            let mut unique = seeds.clone();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(unique.len(), seeds.len(), "{seeds:?}");
        } else {
            assert_eq!(of_first[0].seed, of_late[0].seed);
            assert_eq!(of_first[1].seed, of_late[1].seed);
        }
        assert_ne!(of_late[0].seed, of_late[1].seed);
        // Between the candidates, the scheduler drew tables from the field.
        assert!(blocks.iter().any(|b| b.kind == koth_hill::BlockKind::Field));
        let audit = h.audit().unwrap();
        assert!(audit.problems.is_empty(), "{:?}", audit.problems);
        assert_eq!(audit.games, h.store.game_count().unwrap());
        std::fs::remove_dir_all(&d).ok();
    }
}

/// The board of the field after event `seen`, counting every stored game one by
/// one.
fn every_game(h: &Hill<Coup>, seen: i64) -> koth_hill::Board {
    let events = h.store.events(0).unwrap();
    let versions = h.store.versions().unwrap();
    let mut every = koth_hill::Board::new(
        &entrants_at(&events, &versions, seen),
        &versions,
        h.settings.duplicate,
    );
    every.learn(&h.store.blocks().unwrap());
    h.store
        .each_game(&mut |g| {
            every.add::<koth_coup::Choice>(&g).unwrap();
        })
        .unwrap();
    every
}

/// Kept standings are taken up when the hill is opened again, and only the
/// games stored after them counted; the audit counts them again; a changed
/// field counts from the start.
#[test]
fn kept_standings_are_taken_up_and_counted_on_and_checked_by_the_audit() {
    let d = scratch("kept");
    let mut h = hill_of(
        &d,
        &settings(51, 3, 30, 30),
        &["honest", "bluffer", "economist", "counter"],
    );
    play(&mut h, 200);
    let (board, seen) = h.board().unwrap();
    h.keep_standings(&board).unwrap();
    let kept_at = h.store.end().unwrap();
    // `play` checks the live board against the board the hill opens, which
    // now starts from the kept standings.
    play(&mut h, 200);
    let every = every_game(&h, seen);
    let (opened, _) = h.board().unwrap();
    assert_eq!(
        serde_json::to_value(opened.rows()).unwrap(),
        serde_json::to_value(every.rows()).unwrap()
    );
    assert_eq!(opened.games, every.games);
    assert!(h.audit().unwrap().problems.is_empty());
    // They are what the hill starts from: changed, the board shows it, and the
    // audit finds it.
    let text = h.store.kept().unwrap().unwrap();
    let mut changed: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(changed["upto"], serde_json::json!([kept_at.0, kept_at.1]));
    changed["games"] = serde_json::json!(changed["games"].as_u64().unwrap() + 1000);
    h.store.keep(&changed.to_string()).unwrap();
    assert_eq!(h.board().unwrap().0.games, every.games + 1000);
    let problems = h.audit().unwrap().problems;
    assert!(
        problems.iter().any(|p| p.starts_with(&format!(
            "the standings kept at block {} game {}",
            kept_at.0, kept_at.1
        ))),
        "{problems:?}"
    );
    h.store.keep("not json").unwrap();
    assert_eq!(h.board().unwrap().0.games, every.games);
    assert!(h.audit().unwrap().problems[0].contains("unreadable"));
    // Kept again, then the field changes: counted from the start.
    let (board, _) = h.board().unwrap();
    h.keep_standings(&board).unwrap();
    let bot = parse_bot(GameKind::Coup, "builtin:skeptic").unwrap();
    h.submit(Change::Update, "bluffer", &bot).unwrap();
    play(&mut h, 60);
    let (opened, seen) = h.board().unwrap();
    let every = every_game(&h, seen);
    assert_eq!(
        serde_json::to_value(opened.rows()).unwrap(),
        serde_json::to_value(every.rows()).unwrap()
    );
    assert!(h.audit().unwrap().problems.is_empty());
    std::fs::remove_dir_all(&d).ok();
}

/// Counting the standings again after an update reads no block whose every
/// table holds a version that left, and gives the board that counting every
/// stored game one by one gives, to the last bit.
#[test]
fn counting_again_skips_the_blocks_of_versions_gone_and_agrees_with_every_game() {
    let d = scratch("recount");
    // The blocks of a hill made before tables were drawn from the whole field:
    // two neighbours and one more, a version gone from every table of some.
    let s = Settings {
        field_tables: false,
        ..settings(42, 3, 30, 30)
    };
    let mut h = hill_of(&d, &s, &["honest", "bluffer", "economist", "counter"]);
    play(&mut h, 300);
    let bot = parse_bot(GameKind::Coup, "builtin:skeptic").unwrap();
    h.submit(Change::Update, "counter", &bot).unwrap();
    play(&mut h, 120);
    let (board, seen) = h.board().unwrap();
    let every = every_game(&h, seen);
    let versions = h.store.versions().unwrap();
    assert_eq!(
        serde_json::to_value(board.rows()).unwrap(),
        serde_json::to_value(every.rows()).unwrap()
    );
    assert_eq!(board.games, every.games);
    // The old counter's blocks: those of three versions were skipped unread,
    // the candidates' gauntlets of four (a table of three can miss it) were read.
    let old = versions
        .iter()
        .find(|v| v.entrant == 4 && v.number == 1)
        .unwrap()
        .id;
    let current: Vec<i64> = board.entrants.iter().map(|e| e.version).collect();
    let mut read = std::collections::BTreeSet::new();
    h.store
        .each_batch_of(
            &|vs, seats| {
                let gone = vs.iter().filter(|v| !current.contains(v)).count();
                gone <= vs.len() - seats
            },
            (0, 0),
            &mut |block, _, _| {
                read.insert(block);
                true
            },
        )
        .unwrap();
    let blocks = h.store.blocks().unwrap();
    let with_old: Vec<_> = blocks
        .iter()
        .filter(|b| b.versions.contains(&old))
        .collect();
    assert!(with_old.iter().any(|b| b.versions.len() == 3));
    assert!(with_old.iter().any(|b| b.versions.len() == 4));
    for b in &with_old {
        assert_eq!(
            read.contains(&b.id),
            b.versions.len() == 4,
            "block {}",
            b.id
        );
    }
    assert!(blocks
        .iter()
        .filter(|b| !b.versions.contains(&old))
        .all(|b| read.contains(&b.id)));
    // Games of a block read for its other tables count: skipping that block
    // would have been wrong.
    let mut counted_beside_old = 0;
    h.store
        .each_game(&mut |g| {
            let b = &blocks[g.block as usize - 1];
            if b.versions.contains(&old) && g.seats.iter().all(|v| current.contains(v)) {
                counted_beside_old += 1;
            }
        })
        .unwrap();
    assert!(counted_beside_old > 0);
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn updates_pauses_and_removals_change_what_is_ranked_and_scheduled_but_keep_the_history() {
    let d = scratch("changes");
    let mut h = hill_of(
        &d,
        &settings(3, 3, 30, 30),
        &["honest", "bluffer", "economist", "counter"],
    );
    play(&mut h, 300);
    let before = h.store.game_count().unwrap();
    let bot = parse_bot(GameKind::Coup, "builtin:skeptic").unwrap();
    h.submit(Change::Update, "bluffer", &bot).unwrap();
    let (board, _) = h.board().unwrap();
    // The new version has no games yet; the others keep only the games they
    // played without bluffer's old version.
    let rows = board.rows();
    let bl = rows.iter().find(|r| r.name == "bluffer").unwrap();
    assert_eq!((bl.version, bl.games), (2, 0));
    assert!(board.games < before);
    assert_eq!(h.store.game_count().unwrap(), before, "the history stays");
    h.set(Change::Pause, "honest").unwrap();
    play(&mut h, 60);
    let blocks = h.store.blocks().unwrap();
    let honest_v = h.store.entrants().unwrap()[0].version;
    let last = blocks.last().unwrap();
    assert!(
        !last.versions.contains(&honest_v),
        "a paused entrant is not scheduled"
    );
    assert_eq!(
        h.board()
            .unwrap()
            .0
            .rows()
            .iter()
            .filter(|r| r.name == "honest")
            .count(),
        1,
        "a paused entrant stays on the board"
    );
    h.set(Change::Remove, "economist").unwrap();
    let (board, _) = h.board().unwrap();
    assert!(board.rows().iter().all(|r| r.name != "economist"));
    let gone = h.store.entrants().unwrap();
    assert_eq!(gone[2].status, Status::Removed);
    // Errors name the fix.
    let e = h.set(Change::Pause, "economist").unwrap_err().to_string();
    assert!(e.contains("has left the hill"), "{e}");
    let e = h.set(Change::Resume, "nobody").unwrap_err().to_string();
    assert!(
        e.contains("no entrant \"nobody\"") && e.contains("fix:"),
        "{e}"
    );
    let e = h
        .submit(
            Change::Add,
            "counter",
            &parse_bot(GameKind::Coup, "honest").unwrap(),
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("already"), "{e}");
    for bad in ["", "../x", ".hidden", "a b", "<script>", &"x".repeat(41)] {
        assert!(
            h.submit(
                Change::Add,
                bad,
                &parse_bot(GameKind::Coup, "honest").unwrap()
            )
            .is_err(),
            "{bad:?} was accepted as a name"
        );
    }
    // Removed entrants come back under their name with a new version.
    add(&mut h, "economist", "economist");
    assert_eq!(h.store.versions().unwrap().len(), 6);
    let audit = h.audit().unwrap();
    assert!(audit.problems.is_empty(), "{:?}", audit.problems);
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn the_audit_finds_a_tampered_game_and_a_tampered_block() {
    let d = scratch("tamper");
    let mut h = hill_of(
        &d,
        &settings(5, 3, 30, 30),
        &["honest", "bluffer", "economist"],
    );
    play(&mut h, 150);
    assert!(h.audit().unwrap().problems.is_empty());
    // A game of built-ins is kept as its results: one whose winner was changed
    // is not what its block's seed plays.
    let tampered = change_winner(&d, 1, 3);
    let problems = h.audit().unwrap().problems;
    assert!(
        problems.iter().any(|p| p.starts_with("block 1 game 3:")),
        "{problems:?}"
    );
    let e = h.full_record(&tampered).unwrap_err().to_string();
    assert!(e.contains("not what its seed plays"), "{e}");
    let db = rusqlite::Connection::open(d.join(koth_hill::store::DATABASE)).unwrap();
    // A block's seed changed by hand is not what the log plans.
    db.execute("UPDATE blocks SET seed = '12345' WHERE id = 2", [])
        .unwrap();
    let problems = h.audit().unwrap().problems;
    assert!(
        problems.iter().any(|p| p.starts_with("block 2:")),
        "{problems:?}"
    );
    // A version's results kept (what its entrant page shows) changed by hand
    // are not what its games give.
    db.execute(
        "UPDATE version_results SET forfeits = forfeits + 1 WHERE version = 1",
        [],
    )
    .unwrap();
    let problems = h.audit().unwrap().problems;
    assert!(
        problems
            .iter()
            .any(|p| p.starts_with("version 1: its results are kept as")),
        "{problems:?}"
    );
    std::fs::remove_dir_all(&d).ok();
}

/// Changes the winner of game `index` of block `block` in the database, as a
/// hand with write access could; gives the game as now stored.
fn change_winner(d: &std::path::Path, block: i64, index: u64) -> koth_hill::StoredGame {
    let db = rusqlite::Connection::open(d.join(koth_hill::store::DATABASE)).unwrap();
    let (id, first, packed): (i64, i64, Vec<u8>) = db
        .query_row(
            "SELECT id, first, games FROM batches WHERE block = ?1 AND first <= ?2 AND first + count > ?2",
            rusqlite::params![block, index as i64],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    let mut games = koth_hill::store::unpack(block, first as u64, &packed).unwrap();
    let g = games.iter_mut().find(|g| g.index == index).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&g.record).unwrap();
    let w = v["outcome"]["winners"].as_u64().unwrap();
    v["outcome"]["winners"] = serde_json::json!(if w == 1 { 2 } else { 1 });
    g.record = v.to_string();
    let changed = g.clone();
    db.execute(
        "UPDATE batches SET games = ?1 WHERE id = ?2",
        rusqlite::params![koth_hill::store::pack(&games), id],
    )
    .unwrap();
    changed
}

/// A block of built-ins keeps each game's results, not its moves; asked for
/// the moves, the hill plays the game again from the block's seed, and that
/// game is the one a plain run of the block's schedule plays.
#[test]
fn a_game_of_built_ins_is_kept_as_results_and_played_again_whole() {
    let d = scratch("results");
    let mut h = hill_of(
        &d,
        &settings(11, 3, 40, 40),
        &["honest", "bluffer", "economist"],
    );
    play(&mut h, 120);
    let mut stored = Vec::new();
    h.store.each_game(&mut |g| stored.push(g)).unwrap();
    assert!(stored.len() >= 120);
    for g in &stored {
        assert!(!g.record.contains("\"choices\""), "{}", g.record);
    }
    // The same games from a run of each block's schedule, every choice kept.
    let blocks = h.store.blocks().unwrap();
    let mut whole = std::collections::HashMap::new();
    for b in &blocks {
        let names = ["honest", "bluffer", "economist"];
        let bots: Vec<_> = b
            .versions
            .iter()
            .map(|v| {
                let name = names[*v as usize - 1];
                parse_bot(GameKind::Coup, &format!("{name}=builtin:{name}")).unwrap()
            })
            .collect();
        let t = Tournament::<Coup> {
            rules: koth_coup::Rules::standard(),
            entrants: koth_entrants::entrants::<Coup>(&bots, &Setup::default()).unwrap(),
            schedule: serde_json::from_value(b.schedule.clone()).unwrap(),
            scoring: Scoring::ZeroSum,
            seed: b.seed,
            threads: 1,
            records: RecordLevel::Full,
            duplicate: true,
        };
        struct Keep(Vec<koth_arena::GameRecord<koth_coup::Choice>>);
        impl koth_arena::Observer<koth_coup::Choice> for Keep {
            fn on_record(&mut self, r: &koth_arena::GameRecord<koth_coup::Choice>) {
                self.0.push(r.clone());
            }
        }
        let mut keep = Keep(Vec::new());
        t.run_range(0..b.done, &mut keep, &AtomicBool::new(false));
        for r in keep.0 {
            whole.insert((b.id, r.index), r);
        }
    }
    for g in stored.iter().step_by(7) {
        let full = h.full_record(g).unwrap();
        let run = &whole[&(g.block, g.index)];
        assert_eq!(
            serde_json::to_value(&full).unwrap(),
            serde_json::to_value(run).unwrap(),
            "block {} game {}",
            g.block,
            g.index
        );
        assert!(full.choices.as_ref().is_some_and(|c| !c.is_empty()));
        let end = koth_arena::records::replay::<Coup>(&koth_coup::Rules::standard(), &full, |_| {})
            .unwrap();
        assert_eq!(
            koth_arena::Game::outcome(&end).map(|o| o.winners),
            Some(full.outcome.winners)
        );
    }
    assert!(h.audit().unwrap().problems.is_empty());
    std::fs::remove_dir_all(&d).ok();
}

/// A block with a program keeps every game whole (a program is played once):
/// the audit replays those from their choices and finds one changed.
#[test]
fn a_game_with_a_program_is_kept_whole_and_a_change_to_it_found() {
    let d = scratch("whole");
    Hill::<Coup>::init(&d, &settings(12, 2, 20, 20)).unwrap();
    let mut h = open(&d);
    add(&mut h, "honest", "honest");
    let sdk =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../sdk/python/example_bot.py");
    let bot = parse_bot(GameKind::Coup, &format!("python3 {}", sdk.display())).unwrap();
    h.submit(Change::Add, "py", &bot).unwrap();
    play(&mut h, 20);
    let mut stored = Vec::new();
    h.store.each_game(&mut |g| stored.push(g)).unwrap();
    assert!(stored.iter().all(|g| g.record.contains("\"choices\"")));
    assert!(h.audit().unwrap().problems.is_empty());
    // Its moves are what is stored: nothing is played again.
    let full = h.full_record(&stored[2]).unwrap();
    assert_eq!(
        serde_json::to_value(&full).unwrap(),
        serde_json::from_str::<serde_json::Value>(&stored[2].record).unwrap()
    );
    change_winner(&d, stored[2].block, stored[2].index);
    let problems = h.audit().unwrap().problems;
    let at = format!("block {} game {}:", stored[2].block, stored[2].index);
    assert!(problems.iter().any(|p| p.starts_with(&at)), "{problems:?}");
    std::fs::remove_dir_all(&d).ok();
}

/// A block of built-ins only plays `builtin_block` games, a block with a
/// program at its tables `block`; the audit plans with the same rule, and a
/// hill made before the setting existed plans as it did.
#[test]
fn blocks_of_built_ins_only_are_as_long_as_their_setting_says() {
    let d = scratch("builtin-block");
    let mut s = settings(31, 2, 10, 20);
    s.builtin_block = 60;
    let mut h = hill_of(&d, &s, &["honest", "bluffer", "economist"]);
    play(&mut h, 400);
    let blocks = h.store.blocks().unwrap();
    let field: Vec<u64> = blocks
        .iter()
        .filter(|b| b.kind != koth_hill::BlockKind::Candidate)
        .map(|b| b.games)
        .collect();
    assert!(field.len() >= 3, "{field:?}");
    assert!(field.iter().all(|&g| g == 60), "{field:?}");
    // A candidate block stops at what the candidate still needs.
    assert!(blocks
        .iter()
        .filter(|b| b.kind == koth_hill::BlockKind::Candidate)
        .all(|b| b.games <= 20));
    assert!(h.audit().unwrap().problems.is_empty());
    // Planned again under a hill's settings without the field (read as 0: every
    // block as long as `block`), the stored blocks are not what the log plans.
    let db = rusqlite::Connection::open(d.join(koth_hill::store::DATABASE)).unwrap();
    let mut old = serde_json::to_value(&s).unwrap();
    old.as_object_mut().unwrap().remove("builtin_block");
    db.execute("UPDATE settings SET json = ?1", [old.to_string()])
        .unwrap();
    let h = open(&d);
    assert_eq!(h.settings.builtin_block, 0);
    let problems = h.audit().unwrap().problems;
    // Whole rounds of 10 (12 games for a field block) or a pair block of 10.
    let longer = problems
        .iter()
        .filter(|p| {
            p.contains("stored as 60 games of")
                && (p.contains("plans 10 games") || p.contains("plans 12 games"))
        })
        .count();
    assert_eq!(longer, field.len(), "{problems:?}");
    std::fs::remove_dir_all(&d).ok();

    // With a program in the field (at every table of three), every block is
    // `block` long.
    let d = scratch("builtin-block-program");
    let mut s = settings(32, 3, 10, 20);
    s.builtin_block = 60;
    Hill::<Coup>::init(&d, &s).unwrap();
    let mut h = open(&d);
    add(&mut h, "honest", "honest");
    add(&mut h, "bluffer", "bluffer");
    let sdk =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../sdk/python/example_bot.py");
    let bot = parse_bot(GameKind::Coup, &format!("python3 {}", sdk.display())).unwrap();
    h.submit(Change::Add, "py", &bot).unwrap();
    play(&mut h, 60);
    let blocks = h.store.blocks().unwrap();
    assert!(blocks.iter().any(|b| b.kind == koth_hill::BlockKind::Field));
    // `block` games, rounded up to whole deals (3 games) or, for a field
    // block, whole rounds (a deal for each of the 3 entrants: 9 games).
    assert!(blocks.iter().all(|b| b.games <= 18), "{blocks:?}");
    assert!(h.audit().unwrap().problems.is_empty());
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn a_program_version_plays_from_its_content_hashed_copy() {
    let d = scratch("copy");
    let src = scratch("copy-src");
    std::fs::create_dir_all(src.join("lib")).unwrap();
    std::fs::write(src.join("bot.py"), "print('hi')\n").unwrap();
    std::fs::write(src.join("lib/x.txt"), "1").unwrap();
    Hill::<Coup>::init(&d, &settings(5, 3, 30, 30)).unwrap();
    let h = open(&d);
    let a = koth_hill::keep_folder(&h.dir, &src).unwrap();
    assert!(a.starts_with("versions/"));
    assert_eq!(
        std::fs::read_to_string(d.join(&a).join("lib/x.txt")).unwrap(),
        "1"
    );
    // Same files, same copy; one byte changed, another.
    assert_eq!(koth_hill::keep_folder(&h.dir, &src).unwrap(), a);
    std::fs::write(src.join("lib/x.txt"), "2").unwrap();
    let b = koth_hill::keep_folder(&h.dir, &src).unwrap();
    assert_ne!(a, b);
    assert_eq!(
        std::fs::read_to_string(d.join(&a).join("lib/x.txt")).unwrap(),
        "1"
    );
    // A link is hashed as a link (its target's name), never followed.
    std::os::unix::fs::symlink("/etc/passwd", src.join("lib/p")).unwrap();
    let c = koth_hill::keep_folder(&h.dir, &src).unwrap();
    assert_ne!(b, c);
    assert!(std::fs::symlink_metadata(d.join(&c).join("lib/p"))
        .unwrap()
        .file_type()
        .is_symlink());
    // A stored spec naming a folder outside the hill's copies is refused.
    for folder in ["/etc", "versions/../..", "versions/", "elsewhere/abc"] {
        let spec = serde_json::json!({"command": ["python3", "bot.py"], "protocol": "json", "folder": folder});
        assert!(h.bot_of("x", &spec).is_err(), "{folder}");
    }
    std::fs::remove_dir_all(&d).ok();
    std::fs::remove_dir_all(&src).ok();
}

/// Twelve entrants arrive one at a time (two of them updated on the way); the
/// hill's final order is compared with a full balanced round robin of the final
/// versions. Four entrants are copies of others (ties in truth), so a perfect
/// order is not expected: tau >= 0.75 is (each copy pair may come either way).
#[test]
fn an_incremental_hill_of_twelve_agrees_with_a_full_round_robin() {
    let d = scratch("converge");
    Hill::<Coup>::init(&d, &settings(2026, 4, 120, 240)).unwrap();
    let mut h = open(&d);
    let field = [
        ("honest", "honest"),
        ("bluffer", "bluffer"),
        ("economist", "economist"),
        ("counter", "counter"),
        ("skeptic", "skeptic"),
        ("challenger", "challenger"),
        ("random", "random"),
        ("static", "static"),
        ("honest2", "honest"),
        ("counter2", "counter"),
        ("climber", "random"),
        ("late", "static"),
    ];
    for (i, (name, bot)) in field.iter().enumerate() {
        add(&mut h, name, bot);
        if i >= 1 {
            play(&mut h, 300);
        }
    }
    // Two entrants change: a random bot becomes a card counter, a static one
    // an economist.
    let upd = |h: &mut Hill<Coup>, name: &str, bot: &str| {
        let b = parse_bot(GameKind::Coup, &format!("builtin:{bot}")).unwrap();
        h.submit(Change::Update, name, &b).unwrap();
    };
    upd(&mut h, "climber", "skeptic");
    play(&mut h, 600);
    upd(&mut h, "late", "economist");
    play(&mut h, 12_000);
    let (board, _) = h.board().unwrap();
    let hill_order: Vec<String> = board.rows().iter().map(|r| r.name.clone()).collect();

    let finals: Vec<(&str, &str)> = field
        .iter()
        .map(|&(n, b)| match n {
            "climber" => (n, "skeptic"),
            "late" => (n, "economist"),
            _ => (n, b),
        })
        .collect();
    let full_order = balanced_order(&finals, 12 * 2000);
    let tau = kendall_tau(&hill_order, &full_order);
    eprintln!(
        "hill: {hill_order:?}\nfull: {full_order:?}\nKendall tau {tau:.3}, hill games counted {}",
        board.games
    );
    assert!(tau >= 0.75, "tau {tau:.3}");
    std::fs::remove_dir_all(&d).ok();
}

/// The board a running hill keeps across events is the one built again from
/// every stored game: exactly, when it takes a newcomer, a pause or a resume as
/// they come, and when an update or a removal makes it build again.
#[test]
fn the_board_kept_across_changes_is_the_board_built_again() {
    let d = scratch("kept-board");
    let mut h = hill_of(
        &d,
        &settings(5, 3, 60, 60),
        &["honest", "bluffer", "economist"],
    );
    play(&mut h, 300);
    let rows = |b: &koth_hill::Board| serde_json::to_value(b.rows()).unwrap();
    let (mut board, mut seen) = h.board().unwrap();
    type Edit = Box<dyn Fn(&mut Hill<Coup>)>;
    let changes: [(&str, Edit); 6] = [
        ("a newcomer", Box::new(|h| add(h, "counter", "counter"))),
        (
            "a pause",
            Box::new(|h| drop(h.set(Change::Pause, "bluffer"))),
        ),
        (
            "a resume",
            Box::new(|h| drop(h.set(Change::Resume, "bluffer"))),
        ),
        (
            "two newcomers and a pause at once",
            Box::new(|h| {
                add(h, "skeptic", "skeptic");
                add(h, "random", "random");
                h.set(Change::Pause, "honest").unwrap();
            }),
        ),
        (
            "an update",
            Box::new(|h| {
                let bot = parse_bot(GameKind::Coup, "builtin:challenger").unwrap();
                h.submit(Change::Update, "economist", &bot).unwrap();
            }),
        ),
        (
            "a removal",
            Box::new(|h| drop(h.set(Change::Remove, "counter"))),
        ),
    ];
    for (what, change) in changes {
        change(&mut h);
        let news = h.store.events(seen).unwrap();
        seen = news.last().unwrap().id;
        board = h.board_after(board, &news, seen).unwrap();
        let again = h.board_at(seen).unwrap();
        assert_eq!(rows(&board), rows(&again), "after {what}");
        assert_eq!(
            board.standings, again.standings,
            "head to head too, after {what}"
        );
        let names = |b: &koth_hill::Board| {
            b.entrants
                .iter()
                .map(|e| (e.name.clone(), e.status, e.version))
                .collect::<Vec<_>>()
        };
        assert_eq!(names(&board), names(&again), "after {what}");
        // Games go on with the kept board, as the hill plays them.
        let games = board.games;
        h.step(&mut board, seen, &AtomicBool::new(false), &mut |_, _| {})
            .unwrap();
        assert!(board.games > games, "after {what}");
        let again = h.board_at(seen).unwrap();
        assert_eq!(rows(&board), rows(&again), "after {what}");
        assert_eq!(board.standings, again.standings, "after {what}");
    }
    std::fs::remove_dir_all(&d).ok();
}

/// A damaged batch or record makes the standings an error that names it, from
/// any of the threads that read the batches, never a hang or a panic.
#[test]
fn a_damaged_batch_or_record_is_an_error_when_the_standings_are_counted() {
    let d = scratch("damaged");
    let mut h = hill_of(
        &d,
        &settings(8, 3, 30, 30),
        &["honest", "bluffer", "economist"],
    );
    play(&mut h, 400);
    let db = rusqlite::Connection::open(d.join("hill.sqlite")).unwrap();
    let batches: i64 = db
        .query_row("SELECT COUNT(*) FROM batches", [], |r| r.get(0))
        .unwrap();
    assert!(batches >= 4, "{batches} batches");
    // A record that is not one, in a late batch (read by another thread than
    // the first batch).
    let (id, block, first, packed): (i64, i64, i64, Vec<u8>) = db
        .query_row(
            "SELECT id, block, first, games FROM batches ORDER BY id DESC LIMIT 1 OFFSET 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap();
    let mut games = koth_hill::store::unpack(block, first as u64, &packed).unwrap();
    games[0].record = "{\"index\":".into();
    db.execute(
        "UPDATE batches SET games = ?1 WHERE id = ?2",
        rusqlite::params![koth_hill::store::pack(&games), id],
    )
    .unwrap();
    let e = h.board().err().unwrap().to_string();
    assert!(
        e.contains(&format!("game {first} of block {block}: unreadable record")),
        "{e}"
    );
    // Bytes that are not a batch at all.
    db.execute(
        "UPDATE batches SET games = x'0badbeef00' WHERE id = ?1",
        [id],
    )
    .unwrap();
    let e = h.board().err().unwrap().to_string();
    assert!(
        e.contains(&format!("block {block}, games from {first}")),
        "{e}"
    );
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn one_process_plays_a_hill_at_a_time_and_the_other_is_told_which() {
    let d = scratch("player");
    let mut first = hill_of(
        &d,
        &settings(3, 3, 30, 60),
        &["honest", "economist", "counter"],
    );
    play(&mut first, 60);
    let stored = first.store.game_count().unwrap();
    // A second player of the same folder is refused before it plans or stores
    // anything, and names the one playing.
    let mut second = open(&d);
    let (mut board, seen) = second.board().unwrap();
    let err = second
        .step(&mut board, seen, &AtomicBool::new(false), &mut |_, _| {})
        .unwrap_err();
    assert!(
        err.to_string().contains(&format!(
            "is being played by process {}",
            std::process::id()
        )),
        "{err}"
    );
    assert!(second.claim_play().is_err());
    assert_eq!(second.store.game_count().unwrap(), stored);
    assert!(second.store.open_block().unwrap().is_none());
    // Adding entrants is not playing: it goes on while the first plays.
    add(&mut second, "bluffer", "bluffer");
    // Once the first is gone, the second plays on from where it stopped.
    drop(first);
    play(&mut second, 60);
    assert!(second.store.game_count().unwrap() >= stored + 60);
    assert!(second.audit().unwrap().problems.is_empty());
    // The lock file is truncated and written: never through a link planted there.
    drop(second);
    let lock = d.join(koth_hill::hill::PLAYER_LOCK);
    let target = d.join("precious");
    std::fs::write(&target, "keep").unwrap();
    std::fs::remove_file(&lock).unwrap();
    std::os::unix::fs::symlink(&target, &lock).unwrap();
    let err = open(&d).claim_play().unwrap_err();
    assert!(err.to_string().contains("cannot lock"), "{err}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_hill_resting_when_settled_plays_only_for_candidates_and_unsettled_ranks() {
    let d = scratch("rest");
    Hill::<Coup>::init(&d, &settings(5, 2, 40, 400)).unwrap();
    let mut h = open(&d);
    h.rest_when_settled = true;
    add(&mut h, "honest", "honest");
    add(&mut h, "random", "random");
    let step = |h: &mut Hill<Coup>| {
        let (mut board, seen) = h.board().unwrap();
        let b = h
            .step(&mut board, seen, &AtomicBool::new(false), &mut |_, _| {})
            .unwrap();
        (b, board)
    };
    // Plays until the order stands, then rests: nothing planned, nothing stored.
    let mut blocks = 0;
    let board = loop {
        match step(&mut h) {
            (Some(_), _) => blocks += 1,
            (None, board) => break board,
        }
        assert!(blocks < 100, "never settled");
    };
    assert!(board.settled(), "{:?}", board.rows());
    // Settled long before: a candidate's games are played all the same.
    assert!(
        board.rows().iter().all(|r| r.games >= 400),
        "{:?}",
        board.rows()
    );
    assert!(blocks >= 10);
    let (stored, planned) = (h.store.game_count().unwrap(), h.store.planned().unwrap());
    assert!(step(&mut h).0.is_none());
    assert_eq!(h.store.game_count().unwrap(), stored);
    assert_eq!(h.store.planned().unwrap().blocks, planned.blocks);
    // Not resting, the same hill plays on where it is least sure.
    h.rest_when_settled = false;
    assert_eq!(step(&mut h).0.unwrap().kind, koth_hill::BlockKind::Field);
    // A newcomer is a candidate, played even on a settled hill; then the hill
    // plays until the new order stands too.
    h.rest_when_settled = true;
    add(&mut h, "challenger", "challenger");
    assert_eq!(
        step(&mut h).0.unwrap().kind,
        koth_hill::BlockKind::Candidate
    );
    let mut more = 0;
    while step(&mut h).0.is_some() {
        more += 1;
        assert!(more < 2000, "never settled again");
    }
    let (board, _) = h.board().unwrap();
    assert!(board.settled() && board.rows().len() == 3);
    // Resting changes how many blocks are played, never which: the audit plans
    // each stored block again.
    let audit = h.audit().unwrap();
    assert!(audit.problems.is_empty(), "{:?}", audit.problems);
    let _ = std::fs::remove_dir_all(&d);
}

/// After the deadline no author changes the field (add, update, remove, pause
/// or resume): an author with several entrants would pick, with the
/// standings in view, which stay for the final round. The organiser still
/// may, and each such change is announced on the page.
#[test]
fn after_the_deadline_the_field_is_the_organisers_alone() {
    use koth_hill::service;
    let d = scratch("freeze");
    let s = settings(12, 3, 60, 30);
    let mut h = hill_of(&d, &s, &["honest", "bluffer"]);
    let alice = koth_hill::Author {
        name: "alice".into(),
        admin: false,
    };
    let spec = |b: &str| serde_json::json!({ "builtin": b });
    for name in ["first", "second"] {
        service::change(
            h.store.as_mut(),
            Change::Add,
            name,
            Some(spec("economist")),
            Some(&alice),
        )
        .unwrap();
    }
    // Before the deadline she may remove her own.
    service::change(
        h.store.as_mut(),
        Change::Remove,
        "second",
        None,
        Some(&alice),
    )
    .unwrap();
    let mut c = h.store.contest().unwrap();
    c.deadline = Some(koth_hill::store::now() - 1);
    h.store.set_contest(&c).unwrap();
    let before = h.store.announcements().unwrap().len();
    for change in [
        Change::Add,
        Change::Update,
        Change::Remove,
        Change::Pause,
        Change::Resume,
    ] {
        let name = if change == Change::Add {
            "third"
        } else {
            "first"
        };
        let sp = matches!(change, Change::Add | Change::Update).then(|| spec("counter"));
        let e = service::change(h.store.as_mut(), change, name, sp, Some(&alice)).unwrap_err();
        assert_eq!(
            e.kind(),
            koth_hill::error::Kind::Forbidden,
            "{change:?}: {e}"
        );
        let text = e.to_string();
        assert!(
            text.contains("frozen") || text.contains("only the organiser"),
            "{change:?}: {text}"
        );
    }
    assert!(h
        .store
        .entrants()
        .unwrap()
        .iter()
        .any(|e| e.name == "first" && e.status == Status::Active));
    assert_eq!(
        h.store.announcements().unwrap().len(),
        before,
        "a refusal announces nothing"
    );
    // The organiser's change goes through, and is announced.
    h.set(Change::Remove, "first").unwrap();
    let said = h.store.announcements().unwrap();
    assert_eq!(said.len(), before + 1);
    assert!(
        said[0]
            .text
            .contains("After the deadline, the organiser removed \"first\""),
        "{:?}",
        said[0]
    );
    std::fs::remove_dir_all(&d).ok();
}

/// One author, one entrant by default: a second entrant (a feeder that never
/// attacks its author's main bot) is refused; an update of the first is
/// not. The organiser may allow more, and enters house bots as it likes.
#[test]
fn an_author_enters_one_entrant_unless_the_organiser_allows_more() {
    use koth_hill::service;
    let d = scratch("per-author");
    let s = settings(14, 3, 60, 30);
    let mut h = hill_of(&d, &s, &["honest", "bluffer"]);
    let alice = koth_hill::Author {
        name: "alice".into(),
        admin: false,
    };
    let spec = |b: &str| serde_json::json!({ "builtin": b });
    let enter = |h: &mut Hill<Coup>, change: Change, name: &str| {
        service::may_enter(h.store.as_ref(), name, &spec("economist"), Some(&alice)).and_then(
            |()| {
                service::change(
                    h.store.as_mut(),
                    change,
                    name,
                    Some(spec("economist")),
                    Some(&alice),
                )
            },
        )
    };
    enter(&mut h, Change::Add, "main").unwrap();
    let e = enter(&mut h, Change::Add, "feeder").unwrap_err();
    assert_eq!(e.kind(), koth_hill::Kind::Forbidden, "{e}");
    assert!(
        e.to_string()
            .contains("an author may have 1 entrant in the field, and yours is main"),
        "{e}"
    );
    enter(&mut h, Change::Update, "main").unwrap();
    // The organiser's own house bots are not an author's.
    add(&mut h, "house", "counter");
    let mut c = h.store.contest().unwrap();
    c.entrants_per_author = 3;
    h.store.set_contest(&c).unwrap();
    enter(&mut h, Change::Add, "feeder").unwrap();
    assert_eq!(
        h.store
            .entrants()
            .unwrap()
            .iter()
            .filter(|e| e.owner.as_deref() == Some("alice"))
            .count(),
        2
    );
    std::fs::remove_dir_all(&d).ok();
}
