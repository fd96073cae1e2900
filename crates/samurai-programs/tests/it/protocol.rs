//! The command line a program gets, over arbitrary duels: the four numbers on
//! the first turn, then both histories before them, each as long as the duel.

use koth_arena::Game;
use koth_samurai::{history_string, Action, Rules, State};
use koth_samurai_programs::protocol::arguments;
use proptest::prelude::*;

fn action() -> impl Strategy<Value = Action> {
    (0usize..6).prop_map(|i| Action::ALL[i])
}

proptest! {
    #[test]
    fn the_command_line_carries_both_histories_and_the_four_numbers(
        turns in prop::collection::vec((action(), action()), 0..80),
    ) {
        let mut s = State::new(&Rules::default(), 0);
        for (a, b) in turns {
            if s.outcome().is_some() {
                break;
            }
            s.play_turn(a, b).unwrap();
            for seat in 0..2 {
                let view = s.view(seat);
                let args = arguments(&view);
                prop_assert_eq!(args.len(), 6);
                prop_assert_eq!(&args[0], &history_string(view.my_history));
                prop_assert_eq!(&args[1], &history_string(view.enemy_history));
                prop_assert_eq!(args[0].len(), s.log().len());
                prop_assert_eq!(&args[2], &view.my_health.to_string());
                prop_assert_eq!(&args[5], &view.enemy_honour.to_string());
            }
        }
        if s.log().is_empty() {
            prop_assert_eq!(arguments(&s.view(0)).len(), 4);
        }
    }
}
