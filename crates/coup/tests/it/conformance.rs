//! The arena's conformance battery on Coup: random games across table sizes
//! 2–6 and every rule set (the standard rules 200,000 of them under
//! `KOTH_SOAK`, as CI runs it; 40,000 without).

use crate::common::soak;
use koth_arena::conformance::{run, Battery};
use koth_coup::{Rules, State};

#[test]
fn standard_rules_pass_the_battery() {
    let games = if soak() { 200_000 } else { 40_000 };
    let battery = Battery {
        games,
        seed: 2026,
        seats: vec![2, 3, 4, 5, 6],
        leak_check_every: 16,
        forfeit_chance: 0.002,
        max_decisions: 50_000,
    };
    let r = run::<State>(&Rules::standard(), &battery).unwrap();
    assert_eq!(r.games, games);
    assert!(r.leak_checks > games / 2, "{r:?}");
    assert!(r.forfeits > games / 200, "{r:?}");
    assert!(
        r.decided > games / 20 * 19,
        "most random games end with one winner: {r:?}"
    );
}

#[test]
fn ppcg_rules_pass_the_battery() {
    let battery = Battery {
        games: 20_000,
        seed: 7,
        seats: vec![2],
        leak_check_every: 4,
        forfeit_chance: 0.002,
        max_decisions: 50_000,
    };
    let r = run::<State>(&Rules::ppcg(), &battery).unwrap();
    assert_eq!(r.games, 20_000);
}

#[test]
fn coupcli_rules_pass_the_battery() {
    let battery = Battery {
        games: 20_000,
        seed: 8,
        seats: vec![2, 3, 4, 5, 6],
        leak_check_every: 4,
        forfeit_chance: 0.002,
        max_decisions: 50_000,
    };
    let r = run::<State>(&Rules::coupcli(), &battery).unwrap();
    assert_eq!(r.games, 20_000);
}

#[test]
fn every_view_is_checked_in_a_short_run() {
    let battery = Battery {
        games: 2_000,
        seed: 99,
        seats: vec![2, 3, 4, 5, 6],
        leak_check_every: 1,
        forfeit_chance: 0.01,
        max_decisions: 50_000,
    };
    let r = run::<State>(&Rules::standard(), &battery).unwrap();
    assert_eq!(
        r.leak_checks, r.decisions,
        "one check per decision (forfeits included)"
    );
}

#[test]
fn the_battery_catches_a_leaky_view() {
    // A game whose observation exposes an opponent's hand must fail the leak check:
    // the check is real. Wrap State with a leaky observe.
    use koth_arena::{Game, IllegalChoice, Outcome, Rng, Seat, SeatSet};
    #[derive(Clone, Debug)]
    struct Leaky(State);
    impl Game for Leaky {
        type Choice = koth_coup::Choice;
        type Rules = Rules;
        type Observation = (koth_coup::Observation, Vec<koth_coup::Card>);
        const NAME: &'static str = "leaky";
        fn seats_allowed(r: &Rules) -> std::ops::RangeInclusive<usize> {
            State::seats_allowed(r)
        }
        fn new_game(r: &Rules, s: usize, seed: u64) -> Self {
            Leaky(State::new(*r, s, seed))
        }
        fn seats(&self) -> usize {
            self.0.players()
        }
        fn to_move(&self) -> Option<Seat> {
            self.0.to_move()
        }
        fn legal_choices(&self, out: &mut Vec<Self::Choice>) {
            self.0.legal_choices(out)
        }
        fn apply(&mut self, c: Self::Choice) -> Result<(), IllegalChoice> {
            self.0.apply(c)
        }
        fn forfeit(&mut self, s: Seat) {
            self.0.forfeit(s)
        }
        fn adjudicate(&mut self, w: SeatSet) {
            self.0.adjudicate(w)
        }
        fn outcome(&self) -> Option<Outcome> {
            self.0.outcome()
        }
        fn observe(&self, s: Seat) -> Self::Observation {
            let next = (s + 1) % self.0.players();
            (Game::observe(&self.0, s), self.0.hand(next).to_vec())
        }
        fn shuffle_hidden(&mut self, v: Seat, rng: &mut Rng) {
            self.0.shuffle_hidden(v, rng)
        }
        fn check_invariants(&self) -> Result<(), String> {
            self.0.check_invariants()
        }
        fn turns(&self) -> u32 {
            self.0.turns()
        }
    }
    let battery = Battery {
        games: 50,
        seed: 1,
        seats: vec![3],
        leak_check_every: 1,
        forfeit_chance: 0.0,
        max_decisions: 50_000,
    };
    let err = run::<Leaky>(&Rules::standard(), &battery).unwrap_err();
    assert!(err.contains("view changed"), "{err}");
}
