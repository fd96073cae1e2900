use super::sense::{best_keep, least_valuable, strongest};
use crate::action::{Action, ActionKind};
use crate::bot::{Bot, LegalActions};
use crate::card::Card;
use crate::choice::Keep;
use crate::view::View;
use koth_arena::Seat;

/// Claims only cards it holds and blocks when it truly can; challenges only claims
/// it can prove false (every copy accounted for).
#[derive(Clone, Copy, Debug, Default)]
pub struct Honest;

/// The honest turn: shared by the bots that never bluff.
pub(crate) fn honest_turn(view: &View, legal: &LegalActions, foreign_aid: bool) -> Action {
    let coins = view.my_coins();
    if coins >= 7 || (coins >= 3 && view.holds(Card::Assassin)) {
        if let Some(t) = strongest(view) {
            if legal.contains(Action::Coup(t)) {
                return Action::Coup(t);
            }
            if view.holds(Card::Assassin) && legal.contains(Action::Assassinate(t)) {
                return Action::Assassinate(t);
            }
        }
        if let Some(t) = legal.targets(ActionKind::Coup).next() {
            return Action::Coup(t);
        }
    }
    if view.holds(Card::Duke) {
        return Action::Tax;
    }
    if view.holds(Card::Captain) {
        let richest = legal
            .targets(ActionKind::Steal)
            .max_by_key(|&s| view.coins(s));
        if let Some(t) = richest.filter(|&t| view.coins(t) >= 2) {
            return Action::Steal(t);
        }
    }
    if view.holds(Card::Ambassador) && !view.holds(Card::Contessa) {
        return Action::Exchange;
    }
    if foreign_aid {
        Action::ForeignAid
    } else {
        Action::Income
    }
}

/// Whether a claim is impossible: all three copies are in my hand or face up.
pub(crate) fn impossible(view: &View, seat: Seat, card: Card) -> bool {
    view.seen(card) >= crate::card::COPIES || view.influence(seat) == 0
}

impl Bot for Honest {
    fn on_turn(&mut self, view: &View, legal: &LegalActions) -> Action {
        honest_turn(view, legal, true)
    }
    fn on_challenge_action(&mut self, view: &View, actor: Seat, action: Action) -> bool {
        action.claim().is_some_and(|c| impossible(view, actor, c))
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
