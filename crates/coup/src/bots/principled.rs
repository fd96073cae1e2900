use super::sense::{best_keep, chance_holds, least_valuable, strongest};
use crate::action::{Action, ActionKind};
use crate::bot::{Bot, LegalActions};
use crate::card::Card;
use crate::choice::Keep;
use crate::view::View;
use koth_arena::Seat;

/// The bots that never bluff: they claim only cards they hold, block only when they
/// truly can, keep the most valuable cards and give up the least valuable. They
/// differ in what they challenge and in how they raise coins.
#[derive(Clone, Copy, Debug)]
pub struct Principled {
    style: Style,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Style {
    Honest,
    Economist,
    Challenger,
}

impl Principled {
    /// `honest`: challenges only claims it can prove false (every copy accounted for).
    pub const fn honest() -> Self {
        Principled {
            style: Style::Honest,
        }
    }
    /// `economist`: prefers safe Income to blockable Foreign Aid, saves for Coups, and
    /// also challenges what is aimed at it when it is very unlikely.
    pub const fn economist() -> Self {
        Principled {
            style: Style::Economist,
        }
    }
    /// `challenger`: challenges every claim while it holds two influence, and every
    /// claim aimed at it (seed 000's Challenger).
    pub const fn challenger() -> Self {
        Principled {
            style: Style::Challenger,
        }
    }

    /// Whether to challenge `claimant`'s claim of `card`; `block` when the claim is a
    /// block, `against_me` when the action targets me or is mine.
    fn challenge(
        &self,
        view: &View,
        claimant: Seat,
        card: Card,
        against_me: bool,
        block: bool,
    ) -> bool {
        match self.style {
            Style::Honest => impossible(view, claimant, card),
            Style::Economist => {
                impossible(view, claimant, card)
                    || (!block && against_me && chance_holds(view, claimant, card) < 0.1)
            }
            Style::Challenger => view.influence(view.me()) == 2 || against_me,
        }
    }
}

/// The honest turn: coup or assassinate the strongest opponent when possible, then
/// Tax with a Duke, Steal with a Captain, Exchange with an Ambassador, else Foreign
/// Aid (or Income when `foreign_aid` is false).
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

impl Bot for Principled {
    fn wants_legal(&self) -> bool {
        false // its on_turn reads LegalActions, which the rules can give
    }
    fn on_turn(&mut self, view: &View, legal: &LegalActions) -> Action {
        match self.style {
            Style::Economist => match honest_turn(view, legal, false) {
                // Keep the coins for a Coup rather than an Assassination that can be blocked.
                Action::Assassinate(_) if view.my_coins() >= 5 => Action::Income,
                a => a,
            },
            _ => honest_turn(view, legal, true),
        }
    }
    fn on_challenge_action(&mut self, view: &View, actor: Seat, action: Action) -> bool {
        action.claim().is_some_and(|c| {
            self.challenge(view, actor, c, action.target() == Some(view.me()), false)
        })
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
        actor: Seat,
        _: Action,
    ) -> bool {
        self.challenge(view, blocker, card, actor == view.me(), true)
    }
    fn on_exchange(&mut self, _view: &View, hand: &[Card], drawn: [Card; 2]) -> Keep {
        best_keep(hand, drawn)
    }
    fn on_lose_influence(&mut self, view: &View) -> Card {
        least_valuable(view)
    }
}
