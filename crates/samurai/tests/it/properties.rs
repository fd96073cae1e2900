//! Properties over arbitrary duels: invariants hold, a seat's history implies
//! the honours it is given, and every turn obeys the table's bounds.

use koth_arena::Game;
use koth_samurai::{honour_trail, Action, Rules, State};
use proptest::prelude::*;

fn action() -> impl Strategy<Value = Action> {
    (0usize..6).prop_map(|i| Action::ALL[i])
}

proptest! {
    #[test]
    fn arbitrary_duels_keep_their_invariants(
        turns in prop::collection::vec((action(), action()), 0..80),
        honour in 0i32..12,
    ) {
        let rules = Rules { starting_honour: honour, starting_health: 6, ..Rules::default() };
        let mut s = State::new(&rules, 0);
        for (a, b) in turns {
            if s.outcome().is_some() {
                prop_assert!(s.play_turn(a, b).is_err());
                break;
            }
            let log = *s.play_turn(a, b).unwrap();
            s.check_invariants().map_err(TestCaseError::fail)?;
            for seat in 0..2 {
                // A turn moves honour by at most one and health by at most two.
                prop_assert!(log.honour_change[seat].abs() <= 1);
                prop_assert!((0..=2).contains(&log.damage[seat]));
                // Damage only ever reaches someone who did not guard.
                if log.actions[seat] == Action::G {
                    prop_assert_eq!(log.damage[seat], 0);
                }
                // The histories imply the honours the protocol passes.
                let view = s.view(seat);
                let trail = honour_trail(view.my_history, view.my_honour);
                prop_assert_eq!(trail[0], honour);
                for (t, l) in s.log().iter().enumerate() {
                    prop_assert_eq!(trail[t + 1], l.after[seat].honour);
                }
            }
        }
    }
}
