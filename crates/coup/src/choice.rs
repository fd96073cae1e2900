//! Answers to decisions.

use crate::action::Action;
use crate::card::Card;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The cards kept after an Exchange: one or two cards, in the order the player gave
/// them (the order of their hand afterwards), compared as a multiset.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(into = "Vec<Card>", try_from = "Vec<Card>")]
pub struct Keep {
    cards: [Card; 2],
    len: u8,
}

impl Keep {
    /// Keep these cards (one or two), sorted: the order of the hand afterwards does
    /// not matter to the caller. Keeps of the same cards are equal in any order.
    ///
    /// ```
    /// use koth_coup::{Card, Keep};
    /// assert_eq!(Keep::new(&[Card::Duke, Card::Captain]), Keep::new(&[Card::Captain, Card::Duke]));
    /// ```
    pub fn new(cards: &[Card]) -> Option<Keep> {
        let k = Keep::in_order(cards)?;
        Some(Keep {
            cards: k.sorted(),
            ..k
        })
    }

    /// Keep these cards (one or two) in this order: the hand holds them so
    /// afterwards (coup-cli's bots lose "their first card", so the order counts).
    ///
    /// ```
    /// use koth_coup::{Card, Keep};
    /// let k = Keep::in_order(&[Card::Duke, Card::Captain]).unwrap();
    /// assert_eq!(k.cards(), [Card::Duke, Card::Captain]);
    /// assert_eq!(k, Keep::new(&[Card::Captain, Card::Duke]).unwrap());
    /// ```
    pub fn in_order(cards: &[Card]) -> Option<Keep> {
        match *cards {
            [a] => Some(Keep {
                cards: [a, a],
                len: 1,
            }),
            [a, b] => Some(Keep {
                cards: [a, b],
                len: 2,
            }),
            _ => None,
        }
    }

    /// The kept cards, in the order kept.
    pub fn cards(&self) -> &[Card] {
        &self.cards[..self.len as usize]
    }

    #[inline]
    fn sorted(&self) -> [Card; 2] {
        let [a, b] = self.cards;
        if a <= b {
            [a, b]
        } else {
            [b, a]
        }
    }
}

impl PartialEq for Keep {
    #[inline]
    fn eq(&self, other: &Keep) -> bool {
        self.len == other.len && self.sorted() == other.sorted()
    }
}

impl Eq for Keep {}

impl std::hash::Hash for Keep {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.len.hash(h);
        self.sorted().hash(h);
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
        Keep::in_order(&v).ok_or_else(|| format!("keep one or two cards, not {}", v.len()))
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
/// 24–28 block and 29–33 lose (by card); 34–38 keep one card; 39–53 keep two
/// (sorted, or the same card twice); 54–63 keep two different cards, the higher first.
impl koth_arena::ChoiceCode for Choice {
    #[inline]
    fn code(&self) -> Option<u8> {
        // Most choices are passes: a predictable test before the jump table.
        if let Choice::Pass = self {
            return Some(0);
        }
        Some(match *self {
            Choice::Pass => 0,
            Choice::Challenge => 1,
            Choice::Act(a) => {
                // Branch-free: a base by kind (a table lookup) plus the target.
                const BASE: [u8; 7] = [2, 3, 18, 4, 12, 6, 5];
                let t = a.target().unwrap_or(0);
                if t >= 6 {
                    return None;
                }
                BASE[a.kind() as usize] + t as u8
            }
            Choice::Block(c) => 24 + c as u8,
            Choice::Lose(c) => 29 + c as u8,
            Choice::Keep(k) => match *k.cards() {
                [a] => 34 + a as u8,
                [a, b] if a <= b => 39 + pair_index(a as u8, b as u8),
                [a, b] => 54 + distinct_index(b as u8, a as u8),
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
            54..=63 => {
                let (a, b) = (0..5u8)
                    .flat_map(|a| (a + 1..5).map(move |b| (a, b)))
                    .find(|&(a, b)| distinct_index(a, b) == code - 54)?;
                Choice::Keep(Keep::in_order(&[card(b)?, card(a)?])?)
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

/// The index of the pair of different cards `a < b` among the 10 such pairs, in order.
#[inline]
fn distinct_index(a: u8, b: u8) -> u8 {
    const BEFORE: [u8; 4] = [0, 4, 7, 9];
    BEFORE[a as usize] + (b - a - 1)
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
                v.push(Choice::Keep(Keep::in_order(&[c, d]).unwrap()));
            }
            v.push(Choice::Keep(Keep::new(&[c]).unwrap()));
        }
        v.sort_by_key(|c| format!("{c:?}"));
        v.dedup_by_key(|c| format!("{c:?}"));
        v
    }

    #[test]
    fn every_choice_has_its_own_code_and_codes_read_back() {
        // Keeps of two different cards come in both orders: the order is the hand's.
        let all = every_choice();
        assert_eq!(all.len(), 64);
        let mut codes: Vec<u8> = all.iter().map(|c| c.code().unwrap()).collect();
        for c in &all {
            let back = Choice::from_code(c.code().unwrap());
            assert_eq!(format!("{back:?}"), format!("{:?}", Some(*c)));
        }
        codes.sort();
        assert_eq!(codes, (0..64).collect::<Vec<u8>>());
        assert_eq!(Choice::from_code(64), None);
        // A seat beyond the table has no code: such a record keeps a list.
        assert_eq!(Choice::Act(Action::Coup(6)).code(), None);
    }

    #[test]
    fn a_keep_keeps_its_order_and_equals_the_same_cards_in_any_order() {
        use Card::*;
        let k = Keep::in_order(&[Duke, Contessa]).unwrap();
        assert_eq!(k.cards(), [Duke, Contessa]);
        assert_eq!(
            Keep::new(&[Duke, Contessa]).unwrap().cards(),
            [Contessa, Duke]
        );
        assert_eq!(k, Keep::new(&[Contessa, Duke]).unwrap());
        assert_ne!(k, Keep::in_order(&[Duke, Duke]).unwrap());
        assert_ne!(Keep::in_order(&[Duke]), Keep::in_order(&[Duke, Duke]));
        let hash = |k: &Keep| {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            k.hash(&mut h);
            h.finish()
        };
        assert_eq!(hash(&k), hash(&Keep::new(&[Contessa, Duke]).unwrap()));
        // JSON keeps the order given, both ways.
        let j: Keep = serde_json::from_str(r#"["duke","contessa"]"#).unwrap();
        assert_eq!(j.cards(), [Duke, Contessa]);
        assert_eq!(serde_json::to_string(&j).unwrap(), r#"["duke","contessa"]"#);
        // The two orders have two codes.
        let (a, b) = (
            Choice::Keep(k),
            Choice::Keep(Keep::new(&[Duke, Contessa]).unwrap()),
        );
        assert_ne!(a.code(), b.code());
    }
}
