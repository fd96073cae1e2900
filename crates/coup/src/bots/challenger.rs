use super::honest::honest_turn;
use super::sense::{best_keep, least_valuable};
use crate::action::Action;
use crate::bot::{Bot, LegalActions};
use crate::card::Card;
use crate::choice::Keep;
use crate::view::View;
use koth_arena::Seat;

/// Challenges every claim while it holds two influence, and every claim aimed at
/// it; otherwise plays honestly.
#[derive(Clone, Copy, Debug, Default)]
pub struct Challenger;

impl Challenger {
    fn eager(view: &View, against_me: bool) -> bool {
        view.influence(view.me()) == 2 || against_me
    }
}

impl Bot for Challenger {
    fn on_turn(&mut self, view: &View, legal: &LegalActions) -> Action {
        honest_turn(view, legal, true)
    }
    fn on_challenge_action(&mut self, view: &View, _actor: Seat, action: Action) -> bool {
        Self::eager(view, action.target() == Some(view.me()))
    }
    fn on_block(
        &mut self,
        view: &View,
        _actor: Seat,
        _action: Action,
        options: &[Card],
    ) -> Option<Card> {
        options.iter().copied().find(|&c| view.holds(c))
    }
    fn on_challenge_block(
        &mut self,
        view: &View,
        _blocker: Seat,
        _card: Card,
        actor: Seat,
        _: Action,
    ) -> bool {
        Self::eager(view, actor == view.me())
    }
    fn on_exchange(&mut self, _view: &View, hand: &[Card], drawn: [Card; 2]) -> Keep {
        best_keep(hand, drawn)
    }
    fn on_lose_influence(&mut self, view: &View) -> Card {
        least_valuable(view)
    }
}
