//! The seed's interaction table, cell by cell, and the special rules of the spec.

use koth_arena::{Ending, Game, Rng, SeatSet};
use koth_samurai::{Action, EndReason, Rules, State};

/// The seed's table on a first turn from 20 health and 1 honour: for row action
/// (seat 0) against column action (seat 1), the changes
/// `[health 0, honour 0, health 1, honour 1]`, columns in the order W B G I P O.
#[rustfmt::skip]
const TABLE: [[[i32; 4]; 6]; 6] = [
    // W row
    [[0, 0, 0, 0], [0, 0, 0, 1], [0, 0, 0, 0], [-1, 0, 0, -1], [-1, 0, 0, -1], [-1, 0, 0, -1]],
    // B row
    [[0, 1, 0, 0], [0, 1, 0, 1], [0, 1, 0, 0], [-1, 1, 0, -1], [-1, 1, 0, -1], [-1, 1, 0, -1]],
    // G row
    [[0, 0, 0, 0], [0, 0, 0, 1], [0, 0, 0, 0], [0, 0, 0, -1], [0, 0, 0, -1], [0, 0, 0, -1]],
    // I row: I beats O, loses to P
    [[0, -1, -1, 0], [0, -1, -1, 1], [0, -1, 0, 0], [0, -1, 0, -1], [-1, -1, 0, -1], [0, -1, -1, -1]],
    // P row: P beats I, loses to O
    [[0, -1, -1, 0], [0, -1, -1, 1], [0, -1, 0, 0], [0, -1, -1, -1], [0, -1, 0, -1], [-1, -1, 0, -1]],
    // O row: O beats P, loses to I
    [[0, -1, -1, 0], [0, -1, -1, 1], [0, -1, 0, 0], [-1, -1, 0, -1], [0, -1, -1, -1], [0, -1, 0, -1]],
];

fn rules(health: i32, honour: i32) -> Rules {
    Rules {
        starting_health: health,
        starting_honour: honour,
        ..Rules::default()
    }
}

/// `[health 0, honour 0, health 1, honour 1]` after the last turn.
fn after(s: &State) -> [i32; 4] {
    [
        s.samurai(0).health,
        s.samurai(0).honour,
        s.samurai(1).health,
        s.samurai(1).honour,
    ]
}

fn cells() -> impl Iterator<Item = (Action, Action, [i32; 4])> {
    Action::ALL.into_iter().flat_map(|a| {
        Action::ALL
            .into_iter()
            .map(move |b| (a, b, TABLE[a.index()][b.index()]))
    })
}

#[test]
fn the_36_cells_on_a_first_turn() {
    for (a, b, d) in cells() {
        let mut s = State::new(&Rules::default(), 0);
        let log = *s.play_turn(a, b).unwrap();
        assert_eq!(
            after(&s),
            [20 + d[0], 1 + d[1], 20 + d[2], 1 + d[3]],
            "{a}{b}"
        );
        assert_eq!(log.actions, [a, b]);
        assert_eq!(log.damage, [-d[0], -d[2]], "{a}{b}");
        assert_eq!(log.honour_change, [d[1], d[3]], "{a}{b}");
        assert_eq!(log.god_sword, [false, false]);
        assert_eq!(s.outcome(), None, "{a}{b}: nobody falls on turn 1");
        assert_eq!(s.samurai(0).history, [a]);
        assert_eq!(s.samurai(1).history, [b]);
    }
}

#[test]
fn the_36_cells_after_both_guarded() {
    // After a turn of G G, a guard costs 1 honour ("if the guarding player guarded the
    // previous turn, that player loses 1 honour").
    for (a, b, d) in cells() {
        let mut s = State::new(&rules(20, 3), 0);
        s.play_turn(Action::G, Action::G).unwrap();
        assert_eq!(after(&s), [20, 3, 20, 3]);
        s.play_turn(a, b).unwrap();
        let g = |x: Action| if x == Action::G { -1 } else { 0 };
        assert_eq!(
            after(&s),
            [20 + d[0], 3 + d[1] + g(a), 20 + d[2], 3 + d[3] + g(b)],
            "{a}{b}"
        );
        assert_eq!(s.outcome(), None);
    }
}

#[test]
fn the_36_cells_with_the_sword_of_the_gods() {
    // Both at 7 honour: every landing strike does 2 damage; nothing else changes.
    for (a, b, d) in cells() {
        let mut s = State::new(&rules(20, 7), 0);
        let log = *s.play_turn(a, b).unwrap();
        assert_eq!(
            after(&s),
            [20 + 2 * d[0], 7 + d[1], 20 + 2 * d[2], 7 + d[3]],
            "{a}{b}"
        );
        assert_eq!(log.god_sword, [a.is_strike(), b.is_strike()]);
    }
}

#[test]
fn the_36_cells_at_the_edge_decide_the_duel() {
    // Both at 1 health and 0 honour: every strike brings the gods down on its striker,
    // whatever it does to the other's health; a landed strike kills.
    for (a, b, d) in cells() {
        let mut s = State::new(&rules(1, 0), 0);
        s.play_turn(a, b).unwrap();
        let [h0, o0, h1, o1] = [1 + d[0], d[1], 1 + d[2], d[3]];
        assert_eq!(after(&s), [h0, o0, h1, o1], "{a}{b}");
        let (down0, down1) = (o0 < 0, o1 < 0);
        let expected = match (down0, down1) {
            (true, true) => Some((SeatSet(0b11), EndReason::StruckDown(SeatSet(0b11)))),
            (true, false) => Some((SeatSet(0b10), EndReason::StruckDown(SeatSet(0b01)))),
            (false, true) => Some((SeatSet(0b01), EndReason::StruckDown(SeatSet(0b10)))),
            (false, false) => match (h0 <= 0, h1 <= 0) {
                (false, false) => None,
                (true, false) => Some((SeatSet(0b10), EndReason::Slain(SeatSet(0b01)))),
                (false, true) => Some((SeatSet(0b01), EndReason::Slain(SeatSet(0b10)))),
                (true, true) => unreachable!("strikes never both land"),
            },
        };
        match expected {
            None => assert_eq!(s.outcome(), None, "{a}{b}"),
            Some((winners, reason)) => {
                let o = s
                    .outcome()
                    .unwrap_or_else(|| panic!("{a}{b} should end the duel"));
                assert_eq!(
                    (o.winners, o.ending, o.turns),
                    (winners, Ending::Decided, 1),
                    "{a}{b}"
                );
                assert_eq!(s.end_reason(), Some(reason), "{a}{b}");
            }
        }
    }
    // Spot checks of the derivation above.
    let mut s = State::new(&rules(1, 0), 0);
    s.play_turn(Action::B, Action::I).unwrap();
    assert_eq!(
        s.outcome().unwrap().winners,
        SeatSet::single(0),
        "struck down beats zero health"
    );
    let mut s = State::new(&rules(1, 0), 0);
    s.play_turn(Action::G, Action::G).unwrap();
    assert_eq!(s.outcome(), None, "a first guard is free");
}

#[test]
fn sword_of_the_gods_is_judged_at_the_start_of_the_turn() {
    // Honour 7 at the start: 2 damage, even though the strike brings it to 6.
    let mut s = State::new(&rules(20, 7), 0);
    s.play_turn(Action::I, Action::W).unwrap();
    assert_eq!(after(&s), [20, 6, 18, 7]);
    // Now at 6: 1 damage.
    s.play_turn(Action::I, Action::W).unwrap();
    assert_eq!(after(&s), [20, 5, 17, 7]);

    // Honour 6: a bow reaches 7 during the turn, but the sword comes only next turn.
    let mut s = State::new(&rules(20, 6), 0);
    let log = *s.play_turn(Action::B, Action::B).unwrap();
    assert_eq!(log.after[0].honour, 7);
    s.play_turn(Action::O, Action::B).unwrap();
    assert_eq!(after(&s), [20, 6, 18, 8]);
    // The other has 8 at the start: its parry beats nothing here but lands on a bow.
    let log = *s.play_turn(Action::B, Action::P).unwrap();
    assert_eq!(log.god_sword, [false, true]);
    assert_eq!(after(&s), [18, 7, 18, 7]);

    // Honour 6 at the start of the turn: one damage, whatever happens that turn.
    let mut s = State::new(&rules(20, 6), 0);
    let log = *s.play_turn(Action::P, Action::B).unwrap();
    assert_eq!((log.god_sword, log.damage), ([false, false], [0, 1]));
}

#[test]
fn a_sword_of_the_gods_strike_beaten_by_an_ordinary_one() {
    let mut s = State::new(&Rules::default(), 0);
    for _ in 0..6 {
        s.play_turn(Action::B, Action::W).unwrap();
    }
    assert_eq!(after(&s), [20, 7, 20, 1]);
    // A god-sword parry still loses to an ordinary overhead strike (1 damage).
    s.play_turn(Action::P, Action::O).unwrap();
    assert_eq!(after(&s), [19, 6, 20, 0]);
    // Equal strikes cancel even with the sword.
    let mut s = State::new(&rules(20, 7), 0);
    s.play_turn(Action::I, Action::I).unwrap();
    assert_eq!(after(&s), [20, 6, 20, 6]);
}

#[test]
fn honour_below_zero_beats_zero_health() {
    // Seat 1 is at 0 honour and strikes the last health out of seat 0: seat 0 has 0
    // health, seat 1 is struck down: seat 0 wins.
    let mut s = State::new(&rules(1, 0), 0);
    s.play_turn(Action::W, Action::O).unwrap();
    assert_eq!(after(&s), [0, 0, 1, -1]);
    let o = s.outcome().unwrap();
    assert_eq!((o.winners, o.ending), (SeatSet::single(0), Ending::Decided));
    assert_eq!(
        s.end_reason(),
        Some(EndReason::StruckDown(SeatSet::single(1)))
    );
}

#[test]
fn both_below_zero_is_a_draw() {
    let mut s = State::new(&rules(20, 0), 0);
    s.play_turn(Action::I, Action::P).unwrap();
    assert_eq!(after(&s), [19, -1, 20, -1]);
    let o = s.outcome().unwrap();
    assert_eq!((o.winners, o.ending), (SeatSet::all(2), Ending::Decided));
    assert_eq!(s.end_reason(), Some(EndReason::StruckDown(SeatSet::all(2))));
    let scores = koth_arena::Scoring::SharedPoint.scores(2, &o);
    assert_eq!(scores[..2], [0.5, 0.5]);
}

#[test]
fn guarding_three_times_costs_two_honour() {
    let mut s = State::new(&rules(20, 3), 0);
    for expected in [3, 2, 1] {
        s.play_turn(Action::G, Action::W).unwrap();
        assert_eq!(s.samurai(0).honour, expected);
    }
    // A break resets the count.
    s.play_turn(Action::W, Action::W).unwrap();
    s.play_turn(Action::G, Action::W).unwrap();
    assert_eq!(s.samurai(0).honour, 1);
    // Guarding twice at 0 honour brings the gods down.
    let mut s = State::new(&rules(20, 0), 0);
    s.play_turn(Action::W, Action::G).unwrap();
    assert_eq!(s.outcome(), None);
    s.play_turn(Action::W, Action::G).unwrap();
    assert_eq!(s.outcome().unwrap().winners, SeatSet::single(0));
}

#[test]
fn a_strike_at_zero_honour_is_fatal() {
    let mut s = State::new(&Rules::default(), 0);
    s.play_turn(Action::I, Action::B).unwrap();
    assert_eq!(after(&s), [20, 0, 19, 2]);
    assert_eq!(s.outcome(), None);
    s.play_turn(Action::I, Action::B).unwrap();
    assert_eq!(after(&s), [20, -1, 18, 3]);
    let o = s.outcome().unwrap();
    assert_eq!((o.winners, o.turns), (SeatSet::single(1), 2));
}

#[test]
fn bowing_gains_honour_even_when_struck() {
    let mut s = State::new(&Rules::default(), 0);
    let log = *s.play_turn(Action::B, Action::O).unwrap();
    assert_eq!((log.damage, log.honour_change), ([1, 0], [1, -1]));
    assert_eq!(after(&s), [19, 2, 20, 0]);
}

#[test]
fn health_zero_loses() {
    let mut s = State::new(&rules(2, 5), 0);
    s.play_turn(Action::I, Action::W).unwrap();
    assert_eq!(s.outcome(), None);
    s.play_turn(Action::I, Action::B).unwrap();
    assert_eq!(after(&s), [2, 3, 0, 6]);
    let o = s.outcome().unwrap();
    assert_eq!((o.winners, o.ending), (SeatSet::single(0), Ending::Decided));
    assert_eq!(s.end_reason(), Some(EndReason::Slain(SeatSet::single(1))));
}

#[test]
fn five_hundred_turns_are_a_draw() {
    let mut s = State::new(&Rules::default(), 0);
    for _ in 0..499 {
        s.play_turn(Action::W, Action::B).unwrap();
    }
    assert_eq!(s.outcome(), None);
    s.play_turn(Action::B, Action::W).unwrap();
    let o = s.outcome().unwrap();
    assert_eq!(
        (o.winners, o.ending, o.turns),
        (SeatSet::all(2), Ending::TurnCap, 500)
    );
    assert_eq!(s.end_reason(), Some(EndReason::TurnLimit));
    assert_eq!(
        koth_arena::Scoring::SharedPoint.scores(2, &o)[..2],
        [0.5, 0.5]
    );
    assert!(s.play_turn(Action::W, Action::W).is_err());
    s.check_invariants().unwrap();
}

#[test]
fn a_decision_on_the_last_turn_is_not_a_draw() {
    let mut s = State::new(&rules(20, 0), 0);
    for _ in 0..499 {
        s.play_turn(Action::W, Action::W).unwrap();
    }
    s.play_turn(Action::I, Action::W).unwrap();
    let o = s.outcome().unwrap();
    assert_eq!((o.winners, o.ending), (SeatSet::single(1), Ending::Decided));
}

#[test]
fn forfeit_and_adjudication() {
    let mut s = State::new(&Rules::default(), 0);
    s.apply(Action::B).unwrap();
    s.forfeit(1);
    let o = s.outcome().unwrap();
    assert_eq!(
        (o.winners, o.ending, o.turns),
        (SeatSet::single(0), Ending::Decided, 0)
    );
    assert_eq!(s.end_reason(), Some(EndReason::Forfeit(1)));
    assert_eq!(s.to_move(), None);
    s.forfeit(0);
    assert_eq!(
        s.outcome().unwrap().winners,
        SeatSet::single(0),
        "a second forfeit changes nothing"
    );
    s.check_invariants().unwrap();

    let mut s = State::new(&Rules::default(), 0);
    s.play_turn(Action::B, Action::B).unwrap();
    s.adjudicate(SeatSet::EMPTY);
    let o = s.outcome().unwrap();
    assert_eq!(
        (o.winners, o.ending, o.turns),
        (SeatSet::EMPTY, Ending::Adjudicated, 1)
    );
}

#[test]
fn the_first_move_stays_hidden_until_the_turn_resolves() {
    let mut s = State::new(&Rules::default(), 0);
    assert_eq!(s.to_move(), Some(0));
    let seen = s.observe(1);
    s.apply(Action::O).unwrap();
    assert_eq!(s.to_move(), Some(1));
    assert_eq!(s.observe(0).my_pending, Some(Action::O));
    let mut hidden = s.observe(1);
    assert_eq!(hidden.my_pending, None);
    assert_eq!(hidden.enemy.history, seen.enemy.history);
    assert!(s.view(1).enemy_history.is_empty());
    // Replacing the hidden move changes nothing seat 1 can see.
    let mut rng = Rng::new(5);
    for _ in 0..20 {
        let mut t = s.clone();
        t.shuffle_hidden(1, &mut rng);
        assert_eq!(t.observe(1), s.observe(1));
    }
    s.apply(Action::B).unwrap();
    hidden = s.observe(1);
    assert_eq!(hidden.enemy.history, [Action::O]);
    assert_eq!(s.to_move(), Some(0));
}

#[test]
fn legal_choices_are_all_six_while_running() {
    let mut s = State::new(&Rules::default(), 0);
    let mut v = Vec::new();
    s.legal_choices(&mut v);
    assert_eq!(v, Action::ALL);
    s.forfeit(0);
    v.clear();
    s.legal_choices(&mut v);
    assert!(v.is_empty());
    assert!(s.apply(Action::W).is_err());
}

#[test]
fn rules_default_and_serialize() {
    let r = Rules::default();
    assert_eq!(
        (
            r.starting_health,
            r.starting_honour,
            r.turn_limit,
            r.god_sword_honour
        ),
        (20, 1, 500, 7)
    );
    let json = serde_json::to_string(&r).unwrap();
    assert_eq!(
        json,
        r#"{"starting_health":20,"starting_honour":1,"turn_limit":500,"god_sword_honour":7}"#
    );
    let back: Rules = serde_json::from_str(r#"{"turn_limit":100}"#).unwrap();
    assert_eq!(
        back,
        Rules {
            turn_limit: 100,
            ..Rules::default()
        }
    );
}

#[test]
fn a_custom_threshold_moves_the_sword() {
    let r = Rules {
        god_sword_honour: 3,
        ..Rules::default()
    };
    let mut s = State::new(&r, 0);
    s.play_turn(Action::B, Action::W).unwrap();
    s.play_turn(Action::B, Action::W).unwrap();
    s.play_turn(Action::I, Action::W).unwrap();
    assert_eq!(s.samurai(1).health, 18);
}
