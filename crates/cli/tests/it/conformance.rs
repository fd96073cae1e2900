//! The arena's conformance battery (random legal play with forfeits, every
//! invariant, replays from the record, and every view checked for what it must
//! not show) over every game koth plays and every preset of its rules: the list
//! comes from each game's own crate, so a preset added there is covered here.
//! Each crate runs a longer battery of its main preset beside its rules.

use koth_arena::conformance::{run, Battery, Report};
use koth_arena::Game;

/// A battery of `games` games at every table size `G` allows under `rules`.
fn battery<G: Game>(rules: &G::Rules, games: u64, seed: u64) -> Result<Report, String> {
    let b = Battery {
        games,
        seed,
        seats: G::seats_allowed(rules).collect(),
        leak_check_every: 2,
        forfeit_chance: 0.003,
        max_decisions: 50_000,
    };
    let r = run::<G>(rules, &b)?;
    assert_eq!(r.games, games);
    assert!(r.leak_checks >= r.decisions / 3, "{r:?}");
    Ok(r)
}

#[test]
fn every_coup_preset_passes_the_battery() {
    let mut failed = Vec::new();
    for (k, name) in koth_coup::Rules::PRESETS.iter().enumerate() {
        let rules = koth_coup::Rules::preset(name).unwrap();
        if let Err(e) = battery::<koth_coup::State>(&rules, 4_000, 500 + k as u64) {
            failed.push(format!("{name}: {e}"));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// Seed 000's two-player edition, as its arbiter reads moves (lenient) and
/// strictly: the history-file game over the `ppcg` preset.
#[test]
fn seed_000s_game_passes_the_battery_lenient_and_strict() {
    for strict in [false, true] {
        let rules = koth_ppcg::PpcgRules {
            strict,
            ..koth_ppcg::PpcgRules::default()
        };
        let r = battery::<koth_ppcg::PpcgGame>(&rules, 4_000, 600 + strict as u64)
            .unwrap_or_else(|e| panic!("strict {strict}: {e}"));
        assert!(r.forfeits > 0, "{r:?}");
    }
}

#[test]
fn the_samurai_duel_passes_the_battery() {
    let r = battery::<koth_samurai::State>(&koth_samurai::Rules::default(), 4_000, 700).unwrap();
    assert!(r.decided > 3_000, "{r:?}");
}
