//! The hill's standings can be trusted: copies of one bot tie, the order is
//! the one a balanced run of the same field gives, a ✓ between two equal bots
//! is rare however often the hill looks, and whom an entrant happened to meet
//! does not rank it.

use crate::common;
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
    let hills = hills();
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
                if i >= hills {
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
        "{hills} hills of {BLOCKS} looks: copies told apart in {apart_ever} at the hill's boundary, \
         in {apart95_ever} at a fixed 95% level"
    );
    assert!(apart_ever as u64 * 20 <= hills, "{apart_ever} of {hills}");
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

/// A field of a scenario: who plays, at how many seats, under which rules,
/// and which entrants are copies of one bot (that must tie).
struct Scenario {
    table: usize,
    rules: &'static str,
    field: &'static [(&'static str, &'static str)],
    /// Games before the late entrant joins, and the late entrant.
    late: Option<(u64, (&'static str, &'static str))>,
    /// Games stored in all.
    games: u64,
    copies: &'static [(&'static str, &'static str)],
}

/// Near-ties with a first mover's edge: taxman claims a Duke every turn, and
/// three copies of it sit among bots it is close to.
const LADDER_COPIES: &[(&str, &str)] = &[
    ("calculator", "calculator"),
    ("taxman", "taxman"),
    ("statistician", "statistician"),
    ("lawyer", "lawyer"),
    ("honest", "honest"),
    ("economist", "economist"),
    ("taxman2", "taxman"),
    ("taxman3", "taxman"),
];
const TAXMEN: &[(&str, &str)] = &[
    ("taxman", "taxman2"),
    ("taxman", "taxman3"),
    ("taxman2", "taxman3"),
];
const DEFAULTS: &[(&str, &str)] = &[
    ("honest", "honest"),
    ("counter", "counter"),
    ("economist", "economist"),
    ("skeptic", "skeptic"),
    ("bluffer", "bluffer"),
    ("random", "random"),
    ("challenger", "challenger"),
    ("static", "static"),
];

/// What one hill of a scenario ends with: the copies' pairs told apart (a
/// ✓ on or between them: their difference clears the hill's boundary with
/// both past the fewest deals), and the order.
struct Ended {
    false_pairs: usize,
    order: Vec<String>,
    z: Vec<f64>,
}

fn play_scenario(sc: &Scenario, seed: u64, as_played: bool) -> Ended {
    let rules = koth_coup::Rules::preset(sc.rules).unwrap();
    let d = scratch(&format!("scenario-{seed}-{}-{as_played}", sc.table));
    // About a dozen blocks a hill.
    let block = (sc.games / 12).max(600);
    let mut s = settings(seed, sc.table, block, 240);
    s.builtin_block = block;
    s.rules_name = sc.rules.into();
    s.rules = serde_json::to_value(rules).unwrap();
    s.as_played = as_played;
    Hill::<Coup>::init(&d, &s).unwrap();
    let mut h = Hill::<Coup>::open(&d, rules, koth_arena::Scoring::ZeroSum).unwrap();
    h.threads = 1;
    for (name, bot) in sc.field {
        add(&mut h, name, bot);
    }
    let run = |h: &mut Hill<Coup>, games: u64| {
        let start = h.store.game_count().unwrap();
        let (mut board, seen) = h.board().unwrap();
        while h.store.game_count().unwrap() - start < games {
            h.step(&mut board, seen, &AtomicBool::new(false), &mut |_, _| {})
                .unwrap()
                .unwrap();
        }
    };
    match sc.late {
        Some((before, (name, bot))) => {
            run(&mut h, before);
            add(&mut h, name, bot);
            run(&mut h, sc.games - before);
        }
        None => run(&mut h, sc.games),
    }
    let (board, _) = h.board().unwrap();
    let rows = board.rows();
    let deals = |n: &str| rows.iter().find(|r| r.name == n).unwrap().deals;
    let s = &board.standings;
    let at = |n: &str| s.entrants.iter().position(|e| e.name == n).unwrap();
    let mut z = Vec::new();
    let mut false_pairs = 0;
    for &(a, b) in sc.copies {
        let (d, se) = s.difference(at(a), at(b)).unwrap();
        z.push(d / se);
        let min = koth_hill::board::MIN_SETTLED_DEALS;
        if apart(&board, a, b) && deals(a) >= min && deals(b) >= min {
            false_pairs += 1;
        }
    }
    std::fs::remove_dir_all(&d).ok();
    Ended {
        false_pairs,
        order: rows.iter().map(|r| r.name.clone()).collect(),
        z,
    }
}

/// Plays `hills` hills of a scenario on two threads; prints and returns the
/// hills with a false ✓ and the copies' differences in standard errors.
fn scenario(label: &str, sc: &Scenario, hills: u64, as_played: bool) -> (usize, usize, Vec<f64>) {
    let next = std::sync::atomic::AtomicU64::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= hills {
                    break;
                }
                let r = play_scenario(sc, 5000 + i, as_played);
                results.lock().unwrap().push(r);
            });
        }
    });
    let results = results.into_inner().unwrap();
    let hills_false = results.iter().filter(|r| r.false_pairs > 0).count();
    let pairs_false: usize = results.iter().map(|r| r.false_pairs).sum();
    let z: Vec<f64> = results.iter().flat_map(|r| r.z.clone()).collect();
    let mean = z.iter().sum::<f64>() / z.len() as f64;
    let rms = (z.iter().map(|x| x * x).sum::<f64>() / z.len() as f64).sqrt();
    eprintln!(
        "{label} ({}): {hills} hills of {} games: a false ✓ in {hills_false} hills, {pairs_false} of {} pairs; copies' z mean {mean:+.2}, RMS {rms:.2}; first hill's order {:?}",
        if as_played { "as played" } else { "model alone" },
        sc.games,
        z.len(),
        results[0].order,
    );
    (hills_false, pairs_false, z)
}

/// Hills a rate is measured over: 40 (each a fixed seed, so a run passes or
/// fails the same way every time), 100 under `KOTH_SOAK` (CI).
fn hills() -> u64 {
    if soak() {
        100
    } else {
        40
    }
}

/// Runs a scenario's hills (of `games` games, or 250,000 when
/// `KOTH_SOAK=full`, as the issue that found these measured) and asserts
/// that copies are told apart in at most 5% of them. Under `KOTH_SOAK=full` the
/// model alone (how hills made before count) is run too, and must do worse:
/// the scenario has teeth.
fn copies_tie(label: &str, mut sc: Scenario) {
    if full_soak() {
        if let Some((before, late)) = sc.late {
            sc.late = Some((before * 250_000 / sc.games, late));
        }
        sc.games = 250_000;
    }
    let hills = hills();
    let (hills_false, _, z) = scenario(label, &sc, hills, true);
    assert!(
        hills_false as u64 * 20 <= hills,
        "{label}: a false ✓ in {hills_false} of {hills} hills"
    );
    // The copies' differences in standard errors: centred, with the spread
    // the errors say (the ✓ is only as good as they are).
    let mean = z.iter().sum::<f64>() / z.len() as f64;
    let rms = (z.iter().map(|x| x * x).sum::<f64>() / z.len() as f64).sqrt();
    assert!(
        mean.abs() < 4.0 / (z.len() as f64).sqrt() + 0.1,
        "{label}: copies' z mean {mean}"
    );
    assert!(rms < 1.35, "{label}: copies' z RMS {rms}");
    if full_soak() {
        let (old_false, _, _) = scenario(label, &sc, hills, false);
        assert!(
            old_false > hills_false,
            "{label}: the model alone did as well"
        );
    }
}

/// Three copies of taxman (it claims a Duke every turn; its first mover
/// wins most) among near-ties, at four seats.
#[test]
fn copies_with_a_first_movers_edge_tie_at_four_seats() {
    copies_tie(
        "taxmen, four seats",
        Scenario {
            table: 4,
            rules: "standard",
            field: LADDER_COPIES,
            late: None,
            games: 12_000,
            copies: TAXMEN,
        },
    );
}

/// The same at two seats under the challenge's rules, where the first mover
/// of taxman against taxman wins every game.
#[test]
fn copies_with_a_first_movers_edge_tie_at_two_seats() {
    copies_tie(
        "taxmen, two seats, ppcg",
        Scenario {
            table: 2,
            rules: "ppcg",
            field: LADDER_COPIES,
            late: None,
            games: 12_000,
            copies: TAXMEN,
        },
    );
}

/// A twin of economist joins a field that has played: the incumbents'
/// strengths are against the field as it is now, and the twins tie.
#[test]
fn a_twin_that_joins_late_ties() {
    copies_tie(
        "economist2 joins at half",
        Scenario {
            table: 4,
            rules: "standard",
            field: DEFAULTS,
            late: Some((6_000, ("economist2", "economist"))),
            games: 12_000,
            copies: &[("economist", "economist2")],
        },
    );
}

/// Every built-in of the default field and the ladder twice, and one more:
/// 25 entrants at six seats, C(24, 5) = 42,504 sets of opponents each, far
/// more than a hill's games cover. Twelve pairs of copies tie.
#[test]
fn copies_tie_in_a_field_of_twenty_five_at_six_seats() {
    copies_tie(
        "25 entrants, six seats",
        Scenario {
            table: 6,
            rules: "standard",
            field: TWENTY_FIVE,
            late: None,
            games: 15_000,
            copies: TWINS,
        },
    );
}

const TWENTY_FIVE: &[(&str, &str)] = &[
    ("honest", "honest"),
    ("counter", "counter"),
    ("economist", "economist"),
    ("skeptic", "skeptic"),
    ("bluffer", "bluffer"),
    ("random", "random"),
    ("challenger", "challenger"),
    ("static", "static"),
    ("calculator", "calculator"),
    ("taxman", "taxman"),
    ("statistician", "statistician"),
    ("lawyer", "lawyer"),
    ("honest2", "honest"),
    ("counter2", "counter"),
    ("economist2", "economist"),
    ("skeptic2", "skeptic"),
    ("bluffer2", "bluffer"),
    ("random2", "random"),
    ("challenger2", "challenger"),
    ("static2", "static"),
    ("calculator2", "calculator"),
    ("taxman2", "taxman"),
    ("statistician2", "statistician"),
    ("lawyer2", "lawyer"),
    ("honest3", "honest"),
];
const TWINS: &[(&str, &str)] = &[
    ("honest", "honest2"),
    ("counter", "counter2"),
    ("economist", "economist2"),
    ("skeptic", "skeptic2"),
    ("bluffer", "bluffer2"),
    ("random", "random2"),
    ("challenger", "challenger2"),
    ("static", "static2"),
    ("calculator", "calculator2"),
    ("taxman", "taxman2"),
    ("statistician", "statistician2"),
    ("lawyer", "lawyer2"),
];
