use super::principled::impossible;
use super::sense::{least_valuable, strongest};
use crate::action::{Action, ActionKind};
use crate::bot::{Bot, LegalActions};
use crate::card::Card;
use crate::view::View;
use koth_arena::Random;
use koth_arena::{Rng, Seat};

/// An aggressive liar: taxes, steals and assassinates whatever it holds, and blocks
/// anything aimed at it.
#[derive(Clone, Debug)]
pub struct Bluffer {
    rng: Rng,
}

impl Default for Bluffer {
    fn default() -> Self {
        Bluffer { rng: Rng::new(0) }
    }
}

impl Bot for Bluffer {
    fn wants_legal(&self) -> bool {
        false // its on_turn reads LegalActions, which the rules can give
    }
    fn start(&mut self, _view: &View, seed: u64) {
        self.rng = Rng::new(seed);
    }

    fn on_turn(&mut self, view: &View, legal: &LegalActions) -> Action {
        let target = strongest(view);
        if let Some(t) = target {
            if legal.contains(Action::Coup(t)) {
                return Action::Coup(t);
            }
            if legal.contains(Action::Assassinate(t)) {
                return Action::Assassinate(t);
            }
        }
        if let Some(t) = legal.targets(ActionKind::Coup).next() {
            return Action::Coup(t);
        }
        let richest = legal
            .targets(ActionKind::Steal)
            .max_by_key(|&s| view.coins(s));
        if let Some(t) = richest.filter(|&t| view.coins(t) >= 2) {
            if self.rng.chance(0.3) {
                return Action::Steal(t);
            }
        }
        Action::Tax
    }

    fn on_challenge_action(&mut self, view: &View, actor: Seat, action: Action) -> bool {
        action.claim().is_some_and(|c| impossible(view, actor, c))
    }

    fn on_block(
        &mut self,
        view: &View,
        _actor: Seat,
        action: Action,
        options: &[Card],
    ) -> Option<Card> {
        if let Some(c) = options.iter().copied().find(|&c| view.holds(c)) {
            return Some(c);
        }
        match action {
            Action::ForeignAid => self.rng.chance(0.5).then_some(Card::Duke),
            _ => options.first().copied(),
        }
    }

    fn on_challenge_block(
        &mut self,
        view: &View,
        blocker: Seat,
        card: Card,
        _: Seat,
        _: Action,
    ) -> bool {
        impossible(view, blocker, card)
    }

    fn on_lose_influence(&mut self, view: &View) -> Card {
        least_valuable(view)
    }
}
