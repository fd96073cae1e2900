use super::principled::honest_turn;
use super::sense::{best_keep, chance_holds, least_valuable};
use crate::action::{Action, ActionKind};
use crate::bot::{Bot, LegalActions};
use crate::card::Card;
use crate::choice::Keep;
use crate::view::View;
use koth_arena::Random;
use koth_arena::{Rng, Seat};

/// A card counter: judges every claim by the chance that the claimant holds the
/// card, given its own hand and every card face up, and challenges unlikely ones
/// when it can afford the loss. The bold variant (`skeptic`) challenges more and
/// bluffs a Duke while no Duke is face up.
#[derive(Clone, Debug)]
pub struct Counter {
    threshold: f64,
    bluff: bool,
    rng: Rng,
}

impl Counter {
    /// Challenges claims with under 20% chance of being true; never bluffs.
    pub fn careful() -> Self {
        Counter {
            threshold: 0.2,
            bluff: false,
            rng: Rng::new(0),
        }
    }
    /// Challenges claims with under 35% chance; bluffs Tax while no Duke is face up.
    pub fn bold() -> Self {
        Counter {
            threshold: 0.35,
            bluff: true,
            rng: Rng::new(0),
        }
    }

    fn worth_challenging(&self, view: &View, claimant: Seat, card: Card, against_me: bool) -> bool {
        let p = chance_holds(view, claimant, card);
        if p == 0.0 {
            return true;
        }
        let affordable = view.influence(view.me()) == 2 || against_me;
        affordable && p < self.threshold
    }
}

impl Bot for Counter {
    fn wants_legal(&self) -> bool {
        false // its on_turn reads LegalActions, which the rules can give
    }
    fn start(&mut self, _view: &View, seed: u64) {
        self.rng = Rng::new(seed);
    }

    fn on_turn(&mut self, view: &View, legal: &LegalActions) -> Action {
        let honest = honest_turn(view, legal, false);
        if self.bluff
            && matches!(
                honest,
                Action::Income | Action::ForeignAid | Action::Exchange
            )
            && legal.can(ActionKind::Tax)
            && (0..view.players()).all(|s| !view.revealed(s).contains(&Card::Duke))
            && self.rng.chance(0.6)
        {
            return Action::Tax;
        }
        honest
    }

    fn on_challenge_action(&mut self, view: &View, actor: Seat, action: Action) -> bool {
        let Some(card) = action.claim() else {
            return false;
        };
        let against_me = action.target() == Some(view.me());
        if against_me && matches!(action, Action::Assassinate(_)) && view.influence(view.me()) == 1
        {
            // One card left: a Contessa blocks; without one, a challenge is the only hope
            // unless the assassin is likely real, then a bluffed block is better.
            if view.holds(Card::Contessa) {
                return false;
            }
            return chance_holds(view, actor, card) < 0.5;
        }
        self.worth_challenging(view, actor, card, against_me)
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
        let dying = matches!(action, Action::Assassinate(t) if t == view.me())
            && view.influence(view.me()) == 1;
        if dying
            && chance_holds(view, view.me(), Card::Contessa) >= 0.0
            && view.seen(Card::Contessa) < 3
        {
            return Some(Card::Contessa);
        }
        None
    }

    fn on_challenge_block(
        &mut self,
        view: &View,
        blocker: Seat,
        card: Card,
        actor: Seat,
        _action: Action,
    ) -> bool {
        self.worth_challenging(view, blocker, card, actor == view.me())
    }

    fn on_exchange(&mut self, _view: &View, hand: &[Card], drawn: [Card; 2]) -> Keep {
        best_keep(hand, drawn)
    }

    fn on_lose_influence(&mut self, view: &View) -> Card {
        least_valuable(view)
    }
}
