//! The ladder: built-ins that play like the leading entries of the two-player
//! challenge as its page describes them (a time-to-win calculator, a taxman, a
//! statistician, a lawyer), for fast loops; `examples/ppcg` holds the same
//! players as programs of that challenge's protocol.

use super::principled::honest_turn;
use super::sense::{best_keep, chance_holds, least_valuable, strongest};
use crate::action::{Action, ActionKind};
use crate::bot::{Bot, LegalActions};
use crate::card::{Card, COPIES};
use crate::choice::Keep;
use crate::event::Event;
use crate::view::View;
use koth_arena::Seat;

/// One of the ladder's players; see [`Ladder::calculator`] and the others.
#[derive(Clone, Copy, Debug)]
pub struct Ladder {
    style: Style,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Style {
    Calculator,
    Taxman,
    Statistician,
    Lawyer,
}

impl Ladder {
    /// `calculator`: for each way of earning coins it can use truthfully, counts
    /// the turns it needs to take every card its target has left, and plays the
    /// fastest; claims and blocks only with cards it holds, but for a forced lie
    /// (a Contessa when its last card is assassinated); calls a claim only when
    /// it cannot be true or letting it stand loses the game.
    pub const fn calculator() -> Self {
        Ladder {
            style: Style::Calculator,
        }
    }
    /// `taxman`: claims a Duke every turn, held or not, coups when it can,
    /// blocks Foreign Aid as a Duke; calls only impossible claims.
    pub const fn taxman() -> Self {
        Ladder {
            style: Style::Taxman,
        }
    }
    /// `statistician`: plays only what it holds, and calls a claim when the
    /// chance the claimant holds the card (the copies it cannot see spread over
    /// the cards it cannot see) is under 30%, or under 50% when the claim costs
    /// it (aimed at it, or a block of its action), while it has two cards.
    pub const fn statistician() -> Self {
        Ladder {
            style: Style::Statistician,
        }
    }
    /// `lawyer`: plays only what it holds and calls every claim while it has two
    /// cards; with one, a claim of a card it holds or has seen face up, or an
    /// Assassinate that would end it (no Contessa to block with). The program
    /// `examples/ppcg/Lawyer` also calls an Assassinate it could block.
    pub const fn lawyer() -> Self {
        Ladder {
            style: Style::Lawyer,
        }
    }

    fn calculator_turn(view: &View, legal: &LegalActions) -> Action {
        let me = view.me();
        let target = strongest(view);
        let assassin = view.holds(Card::Assassin)
            && !blocked_before(view, ActionKind::Assassinate, Card::Contessa);
        if let Some(t) = target {
            if assassin && legal.contains(Action::Assassinate(t)) {
                return Action::Assassinate(t);
            }
            if legal.contains(Action::Coup(t)) {
                return Action::Coup(t);
            }
        }
        if let Some(t) = legal.targets(ActionKind::Coup).next() {
            return Action::Coup(t);
        }
        let kills = target.map_or(1, |t| view.influence(t)) as u32;
        let cost = if assassin { 3 } else { 7 };
        let coins = u32::from(view.coins(me));
        let turns = |rate: u32| (kills * cost).saturating_sub(coins).div_ceil(rate) + kills;
        // (turns, tie-break, action): Tax, then Steal, then Foreign Aid, then Income.
        let mut best = (turns(1), 3u8, Action::Income);
        let mut consider = |plan: (u32, u8, Action)| {
            if (plan.0, plan.1) < (best.0, best.1) {
                best = plan;
            }
        };
        if legal.can(ActionKind::ForeignAid)
            && !blocked_before(view, ActionKind::ForeignAid, Card::Duke)
        {
            consider((turns(2), 2, Action::ForeignAid));
        }
        if view.holds(Card::Duke) && legal.can(ActionKind::Tax) {
            consider((turns(3), 0, Action::Tax));
        }
        if view.holds(Card::Captain)
            && !blocked_before(view, ActionKind::Steal, Card::Captain)
            && !blocked_before(view, ActionKind::Steal, Card::Ambassador)
        {
            let richest = legal
                .targets(ActionKind::Steal)
                .max_by_key(|&s| view.coins(s));
            if let Some(t) = richest.filter(|&t| view.coins(t) >= 1) {
                let taken = u32::from(view.coins(t).min(2));
                consider((turns(2 * taken), 1, Action::Steal(t)));
            }
        }
        best.2
    }

    /// The honest turn without Exchanges (the challenge's entries never
    /// exchanged): Foreign Aid in their place, for the statistician only when
    /// a Duke block is unlikely.
    fn truthful_turn(&self, view: &View, legal: &LegalActions) -> Action {
        let aid = match self.style {
            Style::Statistician => view
                .opponents()
                .all(|s| chance_holds(view, s, Card::Duke) < 0.4),
            _ => true,
        } && legal.can(ActionKind::ForeignAid);
        match honest_turn(view, legal, aid) {
            Action::Exchange if aid => Action::ForeignAid,
            Action::Exchange => Action::Income,
            a => a,
        }
    }

    /// Whether to call `claimant`'s claim of `card`; `costly` when letting it
    /// stand costs this player (aimed at it, or a block of its action).
    fn calls(&self, view: &View, claimant: Seat, card: Card, costly: bool) -> bool {
        let me = view.me();
        let impossible = view.seen(card) >= COPIES;
        match self.style {
            Style::Calculator | Style::Taxman => impossible,
            Style::Statistician => {
                let p = chance_holds(view, claimant, card);
                p == 0.0 || (view.influence(me) == 2 && p < if costly { 0.5 } else { 0.3 })
            }
            Style::Lawyer => view.influence(me) == 2 || view.seen(card) >= 1,
        }
    }
}

/// Whether an action of `kind` by this player was ever blocked with `card`.
fn blocked_before(view: &View, kind: ActionKind, card: Card) -> bool {
    let me = view.me();
    let mut mine = false;
    for e in view.log() {
        match *e {
            Event::Act { actor, action } => mine = actor == me && action.kind() == kind,
            Event::Block { card: c, .. } if mine && c == card => return true,
            _ => {}
        }
    }
    false
}

impl Bot for Ladder {
    fn wants_legal(&self) -> bool {
        false // its on_turn reads LegalActions, which the rules can give
    }

    fn on_turn(&mut self, view: &View, legal: &LegalActions) -> Action {
        match self.style {
            Style::Calculator => Ladder::calculator_turn(view, legal),
            Style::Taxman => {
                if let Some(t) = strongest(view).filter(|&t| legal.contains(Action::Coup(t))) {
                    return Action::Coup(t);
                }
                if let Some(t) = legal.targets(ActionKind::Coup).next() {
                    return Action::Coup(t);
                }
                if legal.can(ActionKind::Tax) {
                    Action::Tax
                } else {
                    Action::Income
                }
            }
            _ => self.truthful_turn(view, legal),
        }
    }

    fn on_challenge_action(&mut self, view: &View, actor: Seat, action: Action) -> bool {
        let Some(card) = action.claim() else {
            return false;
        };
        let me = view.me();
        let against_me = action.target() == Some(me);
        let dying = against_me
            && matches!(action, Action::Assassinate(_))
            && view.influence(me) == 1
            && !view.holds(Card::Contessa);
        match self.style {
            // Letting it stand loses the game.
            Style::Calculator | Style::Lawyer if dying => true,
            _ => self.calls(view, actor, card, against_me),
        }
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
        let me = view.me();
        let dying = matches!(action, Action::Assassinate(t) if t == me) && view.influence(me) == 1;
        let lie = match self.style {
            Style::Calculator | Style::Taxman | Style::Statistician => dying,
            Style::Lawyer => false,
        };
        if lie && options.contains(&Card::Contessa) {
            return Some(Card::Contessa);
        }
        if self.style == Style::Taxman
            && matches!(action, Action::ForeignAid)
            && options.contains(&Card::Duke)
        {
            return Some(Card::Duke);
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
        self.calls(view, blocker, card, actor == view.me())
    }

    fn on_exchange(&mut self, _view: &View, hand: &[Card], drawn: [Card; 2]) -> Keep {
        best_keep(hand, drawn)
    }

    fn on_lose_influence(&mut self, view: &View) -> Card {
        if self.style == Style::Taxman {
            // It keeps the Duke it claims, then what blocks the others' attacks.
            let keep = |c: Card| match c {
                Card::Duke => 5,
                Card::Contessa => 4,
                Card::Captain => 3,
                Card::Ambassador => 2,
                Card::Assassin => 1,
            };
            let cards = view.my_cards();
            return *cards.iter().min_by_key(|&&c| keep(c)).unwrap_or(&cards[0]);
        }
        least_valuable(view)
    }
}
