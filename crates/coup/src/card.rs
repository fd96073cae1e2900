//! The five characters of the court deck.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A character card. The deck holds three of each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[repr(u8)]
pub enum Card {
    /// Exchange; blocks Steal.
    Ambassador = 0,
    /// Assassinate.
    Assassin = 1,
    /// Steal; blocks Steal.
    Captain = 2,
    /// Blocks Assassinate.
    Contessa = 3,
    /// Tax; blocks Foreign Aid.
    Duke = 4,
}

/// Copies of each character in the deck.
pub const COPIES: usize = 3;
/// Cards in the deck.
pub const DECK_SIZE: usize = 15;

impl Card {
    /// Every character, in a fixed order.
    pub const ALL: [Card; 5] = [
        Card::Ambassador,
        Card::Assassin,
        Card::Captain,
        Card::Contessa,
        Card::Duke,
    ];

    /// The card's position in [`Card::ALL`].
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The card's name, capitalised.
    pub fn name(self) -> &'static str {
        match self {
            Card::Ambassador => "Ambassador",
            Card::Assassin => "Assassin",
            Card::Captain => "Captain",
            Card::Contessa => "Contessa",
            Card::Duke => "Duke",
        }
    }

    /// Parses a card name, case-insensitively.
    pub fn parse(s: &str) -> Option<Card> {
        Card::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(s.trim()))
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The full deck in a fixed order, before shuffling.
pub fn full_deck() -> [Card; DECK_SIZE] {
    let mut d = [Card::Ambassador; DECK_SIZE];
    for (i, c) in d.iter_mut().enumerate() {
        *c = Card::ALL[i / COPIES];
    }
    d
}
