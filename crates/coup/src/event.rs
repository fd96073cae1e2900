//! The public log: everything every player sees happen.

use crate::action::Action;
use crate::card::Card;
use koth_arena::Seat;
use serde::{Deserialize, Serialize};

/// One public event. Hidden information (cards in hand, cards drawn in an Exchange,
/// the card a revealed one is replaced with) never appears here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// A turn begins.
    Turn {
        /// The player whose turn it is.
        actor: Seat,
        /// The turn's number, from 0.
        number: u32,
    },
    /// The actor declares an action (coins for Coup and Assassinate are paid now).
    Act {
        /// Who acts.
        actor: Seat,
        /// What they do.
        action: Action,
    },
    /// A player lets a claim stand.
    NoChallenge {
        /// Who passed.
        player: Seat,
    },
    /// A player declines to block.
    NoBlock {
        /// Who passed.
        player: Seat,
    },
    /// A player challenges a claim.
    Challenge {
        /// Who challenges.
        challenger: Seat,
        /// Whose claim.
        claimant: Seat,
        /// The card claimed.
        card: Card,
    },
    /// A challenged player shows the claimed card: the challenge fails. The card
    /// goes back to the deck and is replaced (unless the rules keep it).
    Reveal {
        /// Who shows the card.
        player: Seat,
        /// The card shown.
        card: Card,
        /// Whether it was returned to the deck and replaced.
        replaced: bool,
    },
    /// A challenged player cannot show the card: the challenge succeeds.
    CaughtBluffing {
        /// Who was bluffing.
        player: Seat,
        /// The card they claimed.
        card: Card,
    },
    /// A player blocks the action, claiming a card.
    Block {
        /// Who blocks.
        blocker: Seat,
        /// The card claimed.
        card: Card,
    },
    /// A player loses an influence: the card is turned face up for good.
    LoseInfluence {
        /// Who loses it.
        player: Seat,
        /// The card.
        card: Card,
    },
    /// An illegal choice cost a player an influence (under the penalty rule); the
    /// loss follows as its own event, and the turn or answer counts as a pass.
    Penalty {
        /// Who is penalised.
        player: Seat,
        /// The action it tried, when its illegal answer was an action on its turn
        /// (on a seat at the table): made public, as coup-cli's history shows it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        action: Option<Action>,
    },
    /// A player has no influence left.
    Eliminated {
        /// Who is out.
        player: Seat,
    },
    /// A player forfeits (misbehaved): all their influence is revealed.
    Forfeit {
        /// Who forfeits.
        player: Seat,
    },
    /// Coins from the treasury (Income, Foreign Aid, Tax).
    Gain {
        /// Who gains.
        player: Seat,
        /// How many.
        coins: u8,
    },
    /// A Steal takes effect.
    Steal {
        /// The thief.
        thief: Seat,
        /// The victim.
        victim: Seat,
        /// Coins taken.
        coins: u8,
    },
    /// Assassinate coins come back after a successful challenge.
    Refund {
        /// Who is refunded.
        player: Seat,
        /// How many.
        coins: u8,
    },
    /// A block stands: the action is stopped.
    Blocked {
        /// Who blocked.
        blocker: Seat,
    },
    /// An Exchange takes effect (the cards stay secret).
    Exchanged {
        /// Who exchanged.
        player: Seat,
    },
}
