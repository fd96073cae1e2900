//! The actions a player may take on their turn.

use crate::card::Card;
use koth_arena::Seat;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A turn's action; targeted actions name the target seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// +1 coin. Cannot be blocked or challenged.
    Income,
    /// +2 coins. Any other player may block it with a Duke.
    ForeignAid,
    /// Pay 7: the target loses an influence. Cannot be blocked or challenged.
    Coup(Seat),
    /// Claim a Duke: +3 coins.
    Tax,
    /// Claim an Assassin, pay 3: the target loses an influence. The target may block
    /// with a Contessa.
    Assassinate(Seat),
    /// Claim a Captain: take up to 2 coins from the target. The target may block with a
    /// Captain or an Ambassador.
    Steal(Seat),
    /// Claim an Ambassador: draw 2, keep as many cards as you had, return the rest.
    Exchange,
}

/// An action without its target, for tables and statistics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionKind {
    /// See [`Action::Income`].
    Income,
    /// See [`Action::ForeignAid`].
    ForeignAid,
    /// See [`Action::Coup`].
    Coup,
    /// See [`Action::Tax`].
    Tax,
    /// See [`Action::Assassinate`].
    Assassinate,
    /// See [`Action::Steal`].
    Steal,
    /// See [`Action::Exchange`].
    Exchange,
}

impl Action {
    /// The action without its target.
    pub fn kind(self) -> ActionKind {
        match self {
            Action::Income => ActionKind::Income,
            Action::ForeignAid => ActionKind::ForeignAid,
            Action::Coup(_) => ActionKind::Coup,
            Action::Tax => ActionKind::Tax,
            Action::Assassinate(_) => ActionKind::Assassinate,
            Action::Steal(_) => ActionKind::Steal,
            Action::Exchange => ActionKind::Exchange,
        }
    }

    /// The target, for targeted actions.
    pub fn target(self) -> Option<Seat> {
        match self {
            Action::Coup(t) | Action::Assassinate(t) | Action::Steal(t) => Some(t),
            _ => None,
        }
    }

    /// The character the actor claims, if any.
    pub fn claim(self) -> Option<Card> {
        match self {
            Action::Tax => Some(Card::Duke),
            Action::Assassinate(_) => Some(Card::Assassin),
            Action::Steal(_) => Some(Card::Captain),
            Action::Exchange => Some(Card::Ambassador),
            _ => None,
        }
    }

    /// Coins paid on declaring.
    pub fn cost(self) -> u8 {
        match self {
            Action::Coup(_) => 7,
            Action::Assassinate(_) => 3,
            _ => 0,
        }
    }

    /// The cards that block this action.
    pub fn blockers(self) -> &'static [Card] {
        match self {
            Action::ForeignAid => &[Card::Duke],
            Action::Assassinate(_) => &[Card::Contessa],
            Action::Steal(_) => &[Card::Captain, Card::Ambassador],
            _ => &[],
        }
    }
}

impl fmt::Display for ActionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ActionKind::Income => "Income",
            ActionKind::ForeignAid => "Foreign Aid",
            ActionKind::Coup => "Coup",
            ActionKind::Tax => "Tax",
            ActionKind::Assassinate => "Assassinate",
            ActionKind::Steal => "Steal",
            ActionKind::Exchange => "Exchange",
        })
    }
}
