//! Coup as an arena [`Game`].

use crate::choice::Choice;
use crate::rules::Rules;
use crate::state::State;
use crate::view::{Observation, View};
use koth_arena::{Game, IllegalChoice, Outcome, Rng, Seat, SeatSet};

impl Game for State {
    type Choice = Choice;
    type Rules = Rules;
    type Observation = Observation;
    const NAME: &'static str = "coup";

    fn seats_allowed(rules: &Rules) -> std::ops::RangeInclusive<usize> {
        rules.min_seats as usize..=rules.max_seats as usize
    }
    fn new_game(rules: &Rules, seats: usize, seed: u64) -> Self {
        State::new(*rules, seats, seed)
    }
    fn reset(&mut self, rules: &Rules, seats: usize, seed: u64) {
        State::redeal(self, *rules, seats, seed)
    }
    fn seats(&self) -> usize {
        self.players()
    }
    #[inline]
    fn to_move(&self) -> Option<Seat> {
        State::to_move(self)
    }
    fn aimed_at(&self, choice: Choice) -> Option<Seat> {
        use crate::action::Action;
        match choice {
            Choice::Act(Action::Coup(t) | Action::Assassinate(t) | Action::Steal(t)) => {
                Some(t as Seat)
            }
            _ => None,
        }
    }
    #[inline]
    fn legal_choices(&self, out: &mut Vec<Choice>) {
        State::legal_choices(self, out)
    }
    #[inline]
    fn is_legal_among(&self, legal: &[Choice], choice: Choice) -> bool {
        State::is_legal_among(self, legal, choice)
    }
    #[inline]
    fn is_legal(&self, choice: Choice, scratch: &mut Vec<Choice>) -> bool {
        State::is_legal_with(self, choice, scratch)
    }
    #[inline]
    fn apply(&mut self, choice: Choice) -> Result<(), IllegalChoice> {
        State::apply(self, choice)
    }
    #[inline]
    fn apply_legal(&mut self, choice: Choice) {
        self.apply_unchecked(choice)
    }
    fn penalize(&mut self, seat: Seat) -> bool {
        State::penalize(self, seat)
    }
    fn penalize_tried(&mut self, seat: Seat, tried: Option<Choice>) -> bool {
        State::penalize_tried(self, seat, tried)
    }

    fn forfeit(&mut self, seat: Seat) {
        State::forfeit(self, seat)
    }
    fn adjudicate(&mut self, winners: SeatSet) {
        State::adjudicate(self, winners)
    }
    fn outcome(&self) -> Option<Outcome> {
        State::outcome(self)
    }
    fn observe(&self, seat: Seat) -> Observation {
        View::new(self, seat).observation()
    }
    fn shuffle_hidden(&mut self, viewer: Seat, rng: &mut Rng) {
        State::shuffle_hidden(self, viewer, rng)
    }
    fn check_invariants(&self) -> Result<(), String> {
        State::check_invariants(self)
    }
    fn turns(&self) -> u32 {
        State::turns(self)
    }
    fn places(&self, out: &mut koth_arena::PerSeat<u8>) {
        State::places(self, out)
    }
}
