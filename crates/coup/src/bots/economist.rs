use super::honest::{honest_turn, impossible};
use super::sense::{best_keep, chance_holds, least_valuable};
use crate::action::Action;
use crate::bot::{Bot, LegalActions};
use crate::card::Card;
use crate::choice::Keep;
use crate::view::View;
use koth_arena::Seat;

/// Cautious: never bluffs, prefers safe Income to blockable Foreign Aid, saves for
/// Coups, and challenges only what is aimed at it and very unlikely.
#[derive(Clone, Copy, Debug, Default)]
pub struct Economist;

impl Bot for Economist {
    fn on_turn(&mut self, view: &View, legal: &LegalActions) -> Action {
        match honest_turn(view, legal, false) {
            // Keep the coins for a Coup rather than an Assassination that can be blocked.
            Action::Assassinate(_) if view.my_coins() >= 5 => Action::Income,
            a => a,
        }
    }
    fn on_challenge_action(&mut self, view: &View, actor: Seat, action: Action) -> bool {
        let Some(card) = action.claim() else {
            return false;
        };
        impossible(view, actor, card)
            || (action.target() == Some(view.me()) && chance_holds(view, actor, card) < 0.1)
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
        blocker: Seat,
        card: Card,
        _: Seat,
        _: Action,
    ) -> bool {
        impossible(view, blocker, card)
    }
    fn on_exchange(&mut self, _view: &View, hand: &[Card], drawn: [Card; 2]) -> Keep {
        best_keep(hand, drawn)
    }
    fn on_lose_influence(&mut self, view: &View) -> Card {
        least_valuable(view)
    }
}
