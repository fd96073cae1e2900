//! Answers to decisions.

use crate::action::Action;
use crate::card::Card;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The cards kept after an Exchange, as a sorted multiset of one or two cards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "Vec<Card>", try_from = "Vec<Card>")]
pub struct Keep {
    cards: [Card; 2],
    len: u8,
}

impl Keep {
    /// Keep these cards (one or two), in any order.
    ///
    /// ```
    /// use koth_coup::{Card, Keep};
    /// assert_eq!(Keep::new(&[Card::Duke, Card::Captain]), Keep::new(&[Card::Captain, Card::Duke]));
    /// ```
    pub fn new(cards: &[Card]) -> Option<Keep> {
        match *cards {
            [a] => Some(Keep {
                cards: [a, a],
                len: 1,
            }),
            [a, b] => Some(Keep {
                cards: if a <= b { [a, b] } else { [b, a] },
                len: 2,
            }),
            _ => None,
        }
    }

    /// The kept cards.
    pub fn cards(&self) -> &[Card] {
        &self.cards[..self.len as usize]
    }
}

impl From<Keep> for Vec<Card> {
    fn from(k: Keep) -> Vec<Card> {
        k.cards().to_vec()
    }
}

impl TryFrom<Vec<Card>> for Keep {
    type Error = String;
    fn try_from(v: Vec<Card>) -> Result<Keep, String> {
        Keep::new(&v).ok_or_else(|| format!("keep one or two cards, not {}", v.len()))
    }
}

/// One answer to one decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Choice {
    /// Take this action (on your turn).
    Act(Action),
    /// Challenge the claim just made (an action's or a block's).
    Challenge,
    /// Let it be: no challenge, no block.
    Pass,
    /// Block the action, claiming this card.
    Block(Card),
    /// After an Exchange, keep these cards.
    Keep(Keep),
    /// Lose this influence (turn it face up).
    Lose(Card),
}

impl fmt::Display for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Choice::Act(a) => match a.target() {
                Some(t) => write!(f, "{} seat {t}", a.kind()),
                None => write!(f, "{}", a.kind()),
            },
            Choice::Challenge => f.write_str("challenge"),
            Choice::Pass => f.write_str("pass"),
            Choice::Block(c) => write!(f, "block with {c}"),
            Choice::Keep(k) => {
                f.write_str("keep")?;
                for c in k.cards() {
                    write!(f, " {c}")?;
                }
                Ok(())
            }
            Choice::Lose(c) => write!(f, "lose {c}"),
        }
    }
}
