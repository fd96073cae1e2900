//! What a samurai sees when it chooses: exactly what the original protocol gives.

use crate::action::Action;

/// One samurai's view of the duel before it acts: both recorded histories, both
/// healths and both honours. Nothing else (not the enemy's pending move, not the rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct View<'a> {
    /// My recorded actions, oldest first.
    pub my_history: &'a [Action],
    /// The enemy's recorded actions, oldest first.
    pub enemy_history: &'a [Action],
    /// My health.
    pub my_health: i32,
    /// The enemy's health.
    pub enemy_health: i32,
    /// My honour.
    pub my_honour: i32,
    /// The enemy's honour.
    pub enemy_honour: i32,
}

impl View<'_> {
    /// Turns played so far (0 on the first turn).
    pub fn turns_played(&self) -> usize {
        self.my_history.len()
    }

    /// Whether this is the first turn (the protocol then leaves the histories out).
    pub fn is_first_turn(&self) -> bool {
        self.my_history.is_empty()
    }

    /// My action the turn before, if any.
    pub fn my_last(&self) -> Option<Action> {
        self.my_history.last().copied()
    }

    /// The enemy's action the turn before, if any.
    pub fn enemy_last(&self) -> Option<Action> {
        self.enemy_history.last().copied()
    }

    /// What `action` would cost me in honour this turn (a strike 1, a second guard in
    /// a row 1, a bow −1).
    pub fn honour_cost(&self, action: Action) -> i32 {
        match action {
            Action::W => 0,
            Action::B => -1,
            Action::G if self.my_last() == Some(Action::G) => 1,
            Action::G => 0,
            _ => 1,
        }
    }

    /// Whether `action` keeps my honour at 0 or more (so the gods spare me).
    pub fn affordable(&self, action: Action) -> bool {
        self.my_honour - self.honour_cost(action) >= 0
    }
}

/// A samurai's honour before each of its recorded actions, and now (the last
/// element), rebuilt backwards from `history` and its honour now: what the
/// protocol's histories imply.
///
/// ```
/// use koth_samurai::{honour_trail, Action::*};
/// assert_eq!(honour_trail(&[B, G, G, I], 0), [1, 2, 2, 1, 0]);
/// ```
pub fn honour_trail(history: &[Action], honour_now: i32) -> Vec<i32> {
    let mut out = vec![0i32; history.len() + 1];
    let mut honour = honour_now;
    out[history.len()] = honour;
    for t in (0..history.len()).rev() {
        honour += match history[t] {
            Action::W => 0,
            Action::B => -1,
            Action::G if t > 0 && history[t - 1] == Action::G => 1,
            Action::G => 0,
            _ => 1,
        };
        out[t] = honour;
    }
    out
}
