//! What the tournament tests share.

use koth_arena::{RecordLevel, Schedule, Scoring, Tournament};
use koth_coup::{builtin_entrant, Rules, State};

/// A tournament of built-in bots at random tables, standard rules, no records.
pub fn tournament(
    names: &[&str],
    games: u64,
    table: usize,
    seed: u64,
    threads: usize,
) -> Tournament<State> {
    let shown = koth_arena::dedup_names(names);
    Tournament {
        rules: Rules::standard(),
        entrants: names
            .iter()
            .zip(shown)
            .map(|(b, s)| builtin_entrant(b, s).unwrap())
            .collect(),
        schedule: Schedule::RandomTables { games, table },
        scoring: Scoring::ZeroSum,
        seed,
        threads,
        records: RecordLevel::None,
        duplicate: false,
    }
}

/// `KOTH_SOAK` is set (CI sets it): tests run at the sizes that settle their
/// statistics; without it, at smaller twins that reach the same code.
#[allow(dead_code)] // the allocation counter's binary does not soak
pub fn soak() -> bool {
    std::env::var_os("KOTH_SOAK").is_some_and(|v| !v.is_empty() && v != "0")
}
