//! Up to two cards: a player's face-down influence, or their face-up losses.

use crate::card::Card;
use serde::{Deserialize, Serialize};

/// Zero, one or two cards, in the order they were received.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "Vec<Card>", try_from = "Vec<Card>")]
pub struct Hand {
    cards: [Card; 2],
    len: u8,
}

impl Hand {
    /// No cards.
    pub const EMPTY: Hand = Hand {
        cards: [Card::Ambassador; 2],
        len: 0,
    };

    /// The cards.
    #[inline]
    pub fn cards(&self) -> &[Card] {
        &self.cards[..self.len as usize]
    }

    /// How many cards.
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether there are none.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether `card` is among them.
    #[inline]
    pub fn contains(&self, card: Card) -> bool {
        self.cards().contains(&card)
    }

    /// How many copies of `card`.
    pub fn count(&self, card: Card) -> usize {
        self.cards().iter().filter(|&&c| c == card).count()
    }

    /// Adds a card; false if there were two already.
    #[inline]
    pub fn push(&mut self, card: Card) -> bool {
        if self.len >= 2 {
            return false;
        }
        self.cards[self.len as usize] = card;
        self.len += 1;
        true
    }

    /// Removes one copy of `card`; false if absent.
    #[inline]
    pub fn remove(&mut self, card: Card) -> bool {
        match self.cards().iter().position(|&c| c == card) {
            Some(i) => {
                if i == 0 && self.len == 2 {
                    self.cards[0] = self.cards[1];
                }
                self.len -= 1;
                true
            }
            None => false,
        }
    }

    /// Replaces the card at `i`.
    #[inline]
    pub(crate) fn set(&mut self, i: usize, card: Card) {
        debug_assert!(i < self.len as usize);
        self.cards[i] = card;
    }

    /// A hand of these cards (at most two).
    pub fn of(cards: &[Card]) -> Hand {
        let mut h = Hand::EMPTY;
        for &c in cards.iter().take(2) {
            h.push(c);
        }
        h
    }
}

impl std::fmt::Debug for Hand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.cards()).finish()
    }
}

impl From<Hand> for Vec<Card> {
    fn from(h: Hand) -> Vec<Card> {
        h.cards().to_vec()
    }
}

impl TryFrom<Vec<Card>> for Hand {
    type Error = String;
    fn try_from(v: Vec<Card>) -> Result<Hand, String> {
        if v.len() > 2 {
            return Err(format!("a hand holds at most 2 cards, not {}", v.len()));
        }
        Ok(Hand::of(&v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_remove_keep_order() {
        let mut h = Hand::EMPTY;
        assert!(h.push(Card::Duke));
        assert!(h.push(Card::Captain));
        assert!(!h.push(Card::Contessa));
        assert_eq!(h.cards(), [Card::Duke, Card::Captain]);
        assert!(h.remove(Card::Duke));
        assert_eq!(h.cards(), [Card::Captain]);
        assert!(!h.remove(Card::Duke));
        assert!(h.remove(Card::Captain));
        assert!(h.is_empty());
    }
}
