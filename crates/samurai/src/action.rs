//! The six actions a samurai can take in a turn.

use serde::{Deserialize, Serialize};
use std::fmt;

/// One samurai's action for one turn, written as in the original protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Action {
    /// Wait: does nothing (and is the default for a program that misbehaves).
    W,
    /// Bow: +1 honour, even if struck the same turn.
    B,
    /// Guard: blocks every strike; costs 1 honour if the samurai guarded the turn before.
    G,
    /// Quick draw: a strike that beats the overhead strike and loses to the parry.
    I,
    /// Parry: a strike that beats the quick draw and loses to the overhead strike.
    P,
    /// Overhead strike: a strike that beats the parry and loses to the quick draw.
    O,
}

impl Action {
    /// All six actions, in the order W B G I P O.
    pub const ALL: [Action; 6] = [
        Action::W,
        Action::B,
        Action::G,
        Action::I,
        Action::P,
        Action::O,
    ];

    /// The three strikes.
    pub const STRIKES: [Action; 3] = [Action::I, Action::P, Action::O];

    /// The action written as `c` (upper case only), if any.
    ///
    /// ```
    /// use koth_samurai::Action;
    /// assert_eq!(Action::from_char('P'), Some(Action::P));
    /// assert_eq!(Action::from_char('p'), None);
    /// ```
    pub fn from_char(c: char) -> Option<Action> {
        Some(match c {
            'W' => Action::W,
            'B' => Action::B,
            'G' => Action::G,
            'I' => Action::I,
            'P' => Action::P,
            'O' => Action::O,
            _ => return None,
        })
    }

    /// The letter of the action.
    pub fn to_char(self) -> char {
        match self {
            Action::W => 'W',
            Action::B => 'B',
            Action::G => 'G',
            Action::I => 'I',
            Action::P => 'P',
            Action::O => 'O',
        }
    }

    /// The action's name in words (`quick draw`).
    pub fn describe(self) -> &'static str {
        match self {
            Action::W => "waits",
            Action::B => "bows",
            Action::G => "guards",
            Action::I => "quick draw",
            Action::P => "parry",
            Action::O => "overhead strike",
        }
    }

    /// Whether the action is a strike (I, P or O).
    #[inline]
    pub fn is_strike(self) -> bool {
        matches!(self, Action::I | Action::P | Action::O)
    }

    /// Whether this strike beats `other` when strike meets strike: I beats O, O beats
    /// P, P beats I. False for anything that is not a strike against a strike.
    #[inline]
    pub fn beats(self, other: Action) -> bool {
        matches!(
            (self, other),
            (Action::I, Action::O) | (Action::O, Action::P) | (Action::P, Action::I)
        )
    }

    /// The strike that beats `self`, when `self` is a strike.
    ///
    /// ```
    /// use koth_samurai::Action;
    /// assert_eq!(Action::I.counter(), Some(Action::P));
    /// assert_eq!(Action::B.counter(), None);
    /// ```
    pub fn counter(self) -> Option<Action> {
        match self {
            Action::I => Some(Action::P),
            Action::P => Some(Action::O),
            Action::O => Some(Action::I),
            _ => None,
        }
    }

    /// The action's index in [`Action::ALL`].
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_char())
    }
}

/// A history written as letters (`WWBP`).
pub fn history_string(history: &[Action]) -> String {
    history.iter().map(|a| a.to_char()).collect()
}

/// In records, an action's code is its index in [`Action::ALL`].
impl koth_arena::ChoiceCode for Action {
    fn code(&self) -> Option<u8> {
        Some(self.index() as u8)
    }
    fn from_code(code: u8) -> Option<Action> {
        Action::ALL.get(code as usize).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_codes_round_trip() {
        use koth_arena::ChoiceCode;
        for a in Action::ALL {
            assert_eq!(Action::from_code(a.code().unwrap()), Some(a));
        }
        assert_eq!(Action::from_code(6), None);
    }

    #[test]
    fn letters_round_trip() {
        for a in Action::ALL {
            assert_eq!(Action::from_char(a.to_char()), Some(a));
            assert_eq!(Action::ALL[a.index()], a);
        }
        for c in "wbgipoXZ 1".chars() {
            assert_eq!(Action::from_char(c), None);
        }
    }

    #[test]
    fn strikes_form_a_cycle() {
        for a in Action::STRIKES {
            let c = a.counter().unwrap();
            assert!(c.beats(a) && !a.beats(c) && !a.beats(a));
        }
        assert!(!Action::I.beats(Action::W));
    }
}
