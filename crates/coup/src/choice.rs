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

/// Codes in records (never renumber them): 0 pass, 1 challenge, 2–5 income, foreign
/// aid, tax, exchange; 6–11 steal, 12–17 assassinate, 18–23 coup (by target seat);
/// 24–28 block and 29–33 lose (by card); 34–38 keep one card; 39–53 keep two.
impl koth_arena::ChoiceCode for Choice {
    #[inline]
    fn code(&self) -> Option<u8> {
        // Most choices are passes: a predictable test before the jump table.
        if let Choice::Pass = self {
            return Some(0);
        }
        let seat = |t: usize| (t < 6).then_some(t as u8);
        Some(match *self {
            Choice::Pass => 0,
            Choice::Challenge => 1,
            Choice::Act(a) => match a {
                Action::Income => 2,
                Action::ForeignAid => 3,
                Action::Tax => 4,
                Action::Exchange => 5,
                Action::Steal(t) => 6 + seat(t)?,
                Action::Assassinate(t) => 12 + seat(t)?,
                Action::Coup(t) => 18 + seat(t)?,
            },
            Choice::Block(c) => 24 + c as u8,
            Choice::Lose(c) => 29 + c as u8,
            Choice::Keep(k) => match *k.cards() {
                [a] => 34 + a as u8,
                [a, b] => 39 + pair_index(a as u8, b as u8),
                _ => return None,
            },
        })
    }

    fn from_code(code: u8) -> Option<Choice> {
        let card = |i: u8| Card::ALL.get(i as usize).copied();
        Some(match code {
            0 => Choice::Pass,
            1 => Choice::Challenge,
            2 => Choice::Act(Action::Income),
            3 => Choice::Act(Action::ForeignAid),
            4 => Choice::Act(Action::Tax),
            5 => Choice::Act(Action::Exchange),
            6..=11 => Choice::Act(Action::Steal((code - 6) as usize)),
            12..=17 => Choice::Act(Action::Assassinate((code - 12) as usize)),
            18..=23 => Choice::Act(Action::Coup((code - 18) as usize)),
            24..=28 => Choice::Block(card(code - 24)?),
            29..=33 => Choice::Lose(card(code - 29)?),
            34..=38 => Choice::Keep(Keep::new(&[card(code - 34)?])?),
            39..=53 => {
                let (a, b) = (0..5u8)
                    .flat_map(|a| (a..5).map(move |b| (a, b)))
                    .find(|&(a, b)| pair_index(a, b) == code - 39)?;
                Choice::Keep(Keep::new(&[card(a)?, card(b)?])?)
            }
            _ => return None,
        })
    }
}

/// The index of the sorted card pair `a <= b` among the 15 pairs, in order.
#[inline]
fn pair_index(a: u8, b: u8) -> u8 {
    // Pairs starting with a card below `a` (5 + 4 + ...), then the offset of `b`.
    const BEFORE: [u8; 5] = [0, 5, 9, 12, 14];
    BEFORE[a as usize] + (b - a)
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

#[cfg(test)]
mod tests {
    use super::*;
    use koth_arena::ChoiceCode;

    /// Every choice a six-seat game can ask for.
    fn every_choice() -> Vec<Choice> {
        let mut v = vec![Choice::Pass, Choice::Challenge];
        for a in [
            Action::Income,
            Action::ForeignAid,
            Action::Tax,
            Action::Exchange,
        ] {
            v.push(Choice::Act(a));
        }
        for t in 0..6 {
            v.push(Choice::Act(Action::Steal(t)));
            v.push(Choice::Act(Action::Assassinate(t)));
            v.push(Choice::Act(Action::Coup(t)));
        }
        for c in Card::ALL {
            v.push(Choice::Block(c));
            v.push(Choice::Lose(c));
            for d in Card::ALL {
                v.push(Choice::Keep(Keep::new(&[c, d]).unwrap()));
            }
            v.push(Choice::Keep(Keep::new(&[c]).unwrap()));
        }
        v.sort_by_key(|c| format!("{c:?}"));
        v.dedup();
        v
    }

    #[test]
    fn every_choice_has_its_own_code_and_codes_read_back() {
        let all = every_choice();
        assert_eq!(all.len(), 54);
        let mut codes: Vec<u8> = all.iter().map(|c| c.code().unwrap()).collect();
        for c in &all {
            assert_eq!(Choice::from_code(c.code().unwrap()), Some(*c), "{c:?}");
        }
        codes.sort();
        assert_eq!(codes, (0..54).collect::<Vec<u8>>());
        assert_eq!(Choice::from_code(54), None);
        // A seat beyond the table has no code: such a record keeps a list.
        assert_eq!(Choice::Act(Action::Coup(6)).code(), None);
    }
}
