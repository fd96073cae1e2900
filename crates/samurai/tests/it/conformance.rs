//! The arena's battery: random legal play, invariants, replays, and views that do not
//! leak the pending move.

use koth_arena::conformance::{run, Battery};
use koth_samurai::{Rules, State};

#[test]
fn samurai_passes_the_battery() {
    let report = run::<State>(
        &Rules::default(),
        &Battery {
            games: 50_000,
            seed: 0x5A3_0002,
            seats: vec![2],
            leak_check_every: 4,
            forfeit_chance: 0.001,
            max_decisions: 2_000,
        },
    )
    .unwrap();
    assert_eq!(report.games, 50_000);
    assert!(report.leak_checks > 10_000, "{report:?}");
    assert!(report.forfeits > 0, "{report:?}");
    assert!(
        report.decided > 40_000,
        "random samurai are soon struck down: {report:?}"
    );
}

#[test]
fn long_duels_pass_the_battery_too() {
    // Plenty of honour: random play then reaches the turn limit now and then.
    let rules = Rules {
        starting_honour: 400,
        starting_health: 400,
        turn_limit: 300,
        ..Rules::default()
    };
    let report = run::<State>(
        &rules,
        &Battery {
            games: 300,
            seed: 9,
            seats: vec![2],
            leak_check_every: 1,
            forfeit_chance: 0.0,
            max_decisions: 2_000,
        },
    )
    .unwrap();
    assert_eq!(report.longest, 600, "{report:?}");
    assert!(report.decided < report.games, "{report:?}");
}
