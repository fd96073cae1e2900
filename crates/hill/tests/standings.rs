//! The hill's standings can be trusted: copies of one bot tie, the order is
//! the one a balanced run of the same field gives, a ✓ between two equal bots
//! is rare however often the hill looks, and whom an entrant happened to meet
//! does not rank it.

mod common;
use common::*;

use koth_arena::model::anytime_z;
use koth_hill::{Board, Change, Hill, Settings};
use std::sync::atomic::AtomicBool;

/// Whether the board tells entrants `a` and `b` apart, at the hill's boundary.
fn apart(board: &Board, a: &str, b: &str) -> bool {
    let s = &board.standings;
    let at = |n: &str| s.entrants.iter().position(|e| e.name == n).unwrap();
    let (lo, hi) = s.score_range();
    s.difference(at(a), at(b))
        .is_some_and(|(d, se)| d.abs() > anytime_z(se, hi - lo) * se)
}

/// The same, at a fixed 95% level (what a hill looking once could use).
fn apart_at_95(board: &Board, a: &str, b: &str) -> bool {
    let s = &board.standings;
    let at = |n: &str| s.entrants.iter().position(|e| e.name == n).unwrap();
    s.difference(at(a), at(b))
        .is_some_and(|(d, se)| d.abs() > 1.96 * se)
}

/// The ten built-ins of the issue, economist and honest entered twice, played
/// to 300,000 games: the copies tie (overlapping intervals, never told apart),
/// and the order is a balanced run's of the same field.
#[test]
fn copies_tie_and_the_order_is_a_balanced_runs() {
    let d = scratch("ten");
    let mut s = settings(77, 4, 1000, 240);
    s.builtin_block = 20_000;
    let field = [
        ("honest", "honest"),
        ("counter", "counter"),
        ("economist", "economist"),
        ("skeptic", "skeptic"),
        ("bluffer", "bluffer"),
        ("random", "random"),
        ("challenger", "challenger"),
        ("static", "static"),
        ("economist2", "economist"),
        ("honest2", "honest"),
    ];
    Hill::<Coup>::init(&d, &s).unwrap();
    let mut h = open(&d);
    for (name, bot) in field {
        add(&mut h, name, bot);
    }
    play(&mut h, 300_000);
    let (board, _) = h.board().unwrap();
    let rows = board.rows();
    for r in &rows {
        eprintln!(
            "{:>2}{} {:<11} {:+.3} ({:+.3} … {:+.3}) mean {:+.3}, {} games",
            r.rank,
            if r.settled { "✓" } else { " " },
            r.name,
            r.strength,
            r.low,
            r.high,
            r.mean,
            r.games
        );
    }
    for (a, b) in [("economist", "economist2"), ("honest", "honest2")] {
        let (x, y) = (
            rows.iter().find(|r| r.name == a).unwrap(),
            rows.iter().find(|r| r.name == b).unwrap(),
        );
        assert!(x.low <= y.high && y.low <= x.high, "{a} and {b} apart");
        assert!(!apart(&board, a, b), "{a} and {b} told apart");
        if x.rank.abs_diff(y.rank) == 1 {
            assert!(!x.settled && !y.settled, "a ✓ between {a} and {b}");
        }
    }
    let hill_order: Vec<String> = rows.iter().map(|r| r.name.clone()).collect();
    let full_order = balanced_order(&field, 300_000);
    let tau = kendall_tau(&hill_order, &full_order);
    eprintln!("hill: {hill_order:?}\nfull: {full_order:?}\nKendall tau {tau:.3}");
    assert!(tau >= 0.85, "tau {tau:.3}");
    std::fs::remove_dir_all(&d).ok();
}

/// Many small hills, each with two copies of one bot, looked at after every
/// block as a hill is: the copies are told apart in at most 5% of them. A
/// fixed 95% test, looked at as often, tells them apart far more often.
#[test]
fn copies_are_told_apart_in_at_most_five_percent_of_hills() {
    const HILLS: u64 = 100;
    const BLOCKS: usize = 40;
    let run = |i: u64| -> (bool, bool) {
        let d = scratch(&format!("copies-{i}"));
        let mut s = settings(1000 + i, 3, 240, 60);
        s.builtin_block = 240;
        Hill::<Coup>::init(&d, &s).unwrap();
        let mut h = open(&d);
        h.threads = 1;
        for (name, bot) in [
            ("honest", "honest"),
            ("twin", "honest"),
            ("economist", "economist"),
            ("bluffer", "bluffer"),
            ("random", "random"),
        ] {
            add(&mut h, name, bot);
        }
        let (mut board, seen) = h.board().unwrap();
        let (mut ever, mut ever95) = (false, false);
        for _ in 0..BLOCKS {
            h.step(&mut board, seen, &AtomicBool::new(false), &mut |_, _| {})
                .unwrap()
                .unwrap();
            ever |= apart(&board, "honest", "twin");
            ever95 |= apart_at_95(&board, "honest", "twin");
        }
        std::fs::remove_dir_all(&d).ok();
        (ever, ever95)
    };
    let next = std::sync::atomic::AtomicU64::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= HILLS {
                    break;
                }
                let r = run(i);
                results.lock().unwrap().push(r);
            });
        }
    });
    let results = results.into_inner().unwrap();
    let apart_ever = results.iter().filter(|r| r.0).count();
    let apart95_ever = results.iter().filter(|r| r.1).count();
    eprintln!(
        "{HILLS} hills of {BLOCKS} looks: copies told apart in {apart_ever} at the hill's boundary, \
         in {apart95_ever} at a fixed 95% level"
    );
    assert!(apart_ever as u64 * 20 <= HILLS, "{apart_ever} of {HILLS}");
    assert!(apart95_ever > apart_ever, "the boundary changed nothing");
}

/// Two copies of honest: one entered while the champion played and met it in
/// three games of four of its own (two in five in all), the other while the
/// champion was paused and never met it. Their means are far apart; their
/// strengths are not. (The model takes out how strong the opponents were; a
/// matchup of its own, a bot that beats one kind of opponent more than its
/// strength says, shows only in games against it: the hill's field blocks
/// give every entrant those.)
#[test]
fn whom_an_entrant_met_does_not_rank_it() {
    let d = scratch("met");
    let mut s = settings(31, 4, 1000, 4000);
    s.builtin_block = 4000;
    let champ = "economist";
    let mut h = hill_of(&d, &s, &[champ, "bluffer", "random", "static"]);
    play(&mut h, 1);
    add(&mut h, "met", "honest");
    play(&mut h, 1);
    h.set(Change::Pause, champ).unwrap();
    add(&mut h, "spared", "honest");
    play(&mut h, 1);
    h.set(Change::Resume, champ).unwrap();
    let (board, _) = h.board().unwrap();
    let rows = board.rows();
    let row = |n: &str| rows.iter().find(|r| r.name == n).unwrap().clone();
    let (met, spared) = (row("met"), row("spared"));
    let pair = |n: &str| {
        let s = &board.standings;
        let at = |x: &str| s.entrants.iter().position(|e| e.name == x).unwrap();
        s.pair[at(n) * s.entrants.len() + at(champ)].n as f64
    };
    eprintln!(
        "met: {:+.3} (mean {:+.3}, with economist in {:.0}% of {} games); spared: {:+.3} (mean {:+.3}, {:.0}% of {})",
        met.strength,
        met.mean,
        100.0 * pair("met") / met.games as f64,
        met.games,
        spared.strength,
        spared.mean,
        100.0 * pair("spared") / spared.games as f64,
        spared.games
    );
    assert!(pair("met") / met.games as f64 > 0.35);
    assert_eq!(pair("spared"), 0.0);
    // The means are apart: the one that met the champion looks worse.
    assert!(met.high < spared.mean - 0.02, "{met:?} {spared:?}");
    // The strengths are not.
    assert!(
        met.low <= spared.high && spared.low <= met.high,
        "{met:?} {spared:?}"
    );
    assert!(!apart(&board, "met", "spared"));
    std::fs::remove_dir_all(&d).ok();
}

/// A hill's settings with tables drawn from the field (what `koth hill init`
/// makes), and one made before, which keeps its old blocks.
#[test]
fn blocks_after_the_candidates_draw_from_the_whole_field() {
    let d = scratch("field");
    let mut s = settings(8, 3, 300, 60);
    s.builtin_block = 300;
    let mut h = hill_of(
        &d,
        &s,
        &["honest", "bluffer", "economist", "random", "counter"],
    );
    play(&mut h, 3000);
    let blocks = h.store.blocks().unwrap();
    let kinds: Vec<&str> = blocks.iter().map(|b| b.kind.name()).collect();
    assert!(
        kinds.contains(&"field") && kinds.contains(&"pair"),
        "{kinds:?}"
    );
    for b in blocks
        .iter()
        .filter(|b| b.kind == koth_hill::BlockKind::Field)
    {
        // Every active entrant, in whole rounds of the balanced schedule.
        assert_eq!(b.versions.len(), 5);
        assert_eq!(b.games % (5 * 3), 0, "{b:?}");
    }
    let audit = h.audit().unwrap();
    assert!(audit.problems.is_empty(), "{:?}", audit.problems);
    std::fs::remove_dir_all(&d).ok();

    let d = scratch("old-blocks");
    let old = Settings {
        field_tables: false,
        ..s
    };
    let mut h = hill_of(
        &d,
        &old,
        &["honest", "bluffer", "economist", "random", "counter"],
    );
    play(&mut h, 2000);
    let blocks = h.store.blocks().unwrap();
    assert!(blocks
        .iter()
        .any(|b| b.kind == koth_hill::BlockKind::Uncertain));
    assert!(blocks
        .iter()
        .all(|b| b.kind != koth_hill::BlockKind::Field && b.kind != koth_hill::BlockKind::Pair));
    let audit = h.audit().unwrap();
    assert!(audit.problems.is_empty(), "{:?}", audit.problems);
    std::fs::remove_dir_all(&d).ok();
}
