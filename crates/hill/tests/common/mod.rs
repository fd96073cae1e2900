//! What the hill's tests share: a scratch folder, settings, and hills of
//! built-ins played block by block.
#![allow(dead_code)]

use koth_arena::{Quiet, RecordLevel, Schedule, Scoring, Tournament};
use koth_entrants::{parse_bot, GameKind, Setup};
use koth_hill::{Change, Hill, Settings};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

pub type Coup = koth_coup::State;

pub fn scratch(label: &str) -> PathBuf {
    // Tests run side by side in one process: a number of its own each call.
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let d = std::env::temp_dir().join(format!("koth-hill-{label}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

pub fn settings(seed: u64, table: usize, block: u64, candidate: u64) -> Settings {
    Settings {
        game: "coup".into(),
        rules_name: "standard".into(),
        rules: serde_json::to_value(koth_coup::Rules::standard()).unwrap(),
        table,
        seed,
        block,
        builtin_block: 0,
        candidate_games: candidate,
        duplicate: true,
        timeout_ms: 1000,
        own_candidate_seeds: true,
        field_tables: true,
        as_played: true,
        ..Settings::default()
    }
}

pub fn open(dir: &std::path::Path) -> Hill<Coup> {
    let mut h = Hill::<Coup>::open(dir, koth_coup::Rules::standard(), Scoring::ZeroSum).unwrap();
    h.threads = 2;
    h
}

pub fn add(h: &mut Hill<Coup>, name: &str, builtin: &str) {
    let bot = parse_bot(GameKind::Coup, &format!("builtin:{builtin}")).unwrap();
    h.submit(Change::Add, name, &bot).unwrap();
}

/// A new hill in `d` with `builtins` entered, each under its own name.
pub fn hill_of(d: &std::path::Path, settings: &Settings, builtins: &[&str]) -> Hill<Coup> {
    Hill::<Coup>::init(d, settings).unwrap();
    let mut h = open(d);
    for b in builtins {
        add(&mut h, b, b);
    }
    h
}

/// Plays whole blocks until at least `games` more are stored.
pub fn play(h: &mut Hill<Coup>, games: u64) {
    let start = h.store.game_count().unwrap();
    let (mut board, seen) = h.board().unwrap();
    while h.store.game_count().unwrap() - start < games {
        let b = h
            .step(&mut board, seen, &AtomicBool::new(false), &mut |_, _| {})
            .unwrap();
        assert!(b.is_some(), "nothing to play");
    }
    // The board counted game by game as they ended is the one the stored games
    // give, to the last bit of every mean and rating.
    let live = serde_json::to_value(board.rows()).unwrap();
    let stored = serde_json::to_value(h.board_at(seen).unwrap().rows()).unwrap();
    assert_eq!(live, stored);
}

/// Kendall's tau between two rankings of the same names.
pub fn kendall_tau(a: &[String], b: &[String]) -> f64 {
    let pos = |r: &[String], n: &String| r.iter().position(|x| x == n).unwrap() as i64;
    let (mut concordant, mut discordant) = (0i64, 0i64);
    for i in 0..a.len() {
        for j in i + 1..a.len() {
            let s = (pos(a, &a[i]) - pos(a, &a[j])) * (pos(b, &a[i]) - pos(b, &a[j]));
            if s > 0 {
                concordant += 1;
            } else {
                discordant += 1;
            }
        }
    }
    (concordant - discordant) as f64 / (concordant + discordant) as f64
}

/// The order a balanced run of `games` games at tables of four gives the field
/// `(name, built-in)`, best first (duplicate deals, seed 99).
pub fn balanced_order(field: &[(&str, &str)], games: u64) -> Vec<String> {
    let bots: Vec<_> = field
        .iter()
        .map(|(n, b)| parse_bot(GameKind::Coup, &format!("{n}=builtin:{b}")).unwrap())
        .collect();
    let t = Tournament::<Coup> {
        rules: koth_coup::Rules::standard(),
        entrants: koth_entrants::entrants::<Coup>(&bots, &Setup::default()).unwrap(),
        schedule: Schedule::Balanced { games, table: 4 },
        scoring: Scoring::ZeroSum,
        seed: 99,
        threads: 2,
        records: RecordLevel::None,
        duplicate: true,
    };
    let full = t.run(&mut Quiet).standings;
    full.ranking()
        .iter()
        .map(|&e| full.entrants[e].name.clone())
        .collect()
}

/// `KOTH_SOAK` is set (CI sets it): tests run at the sizes that settle their
/// statistics; without it, at smaller twins that reach the same code.
pub fn soak() -> bool {
    std::env::var_os("KOTH_SOAK").is_some_and(|v| !v.is_empty() && v != "0")
}

/// `KOTH_SOAK=full`: the measurements behind the docs' figures (tens of
/// minutes), on top of [`soak`].
pub fn full_soak() -> bool {
    std::env::var_os("KOTH_SOAK").is_some_and(|v| v == "full")
}
