//! Resolving one turn: both actions meet, health and honour change.

use crate::action::Action;
use crate::rules::Rules;
use serde::{Deserialize, Serialize};

/// One samurai's health and honour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Standing {
    /// Health: 0 or less is death.
    pub health: i32,
    /// Honour: below 0 the gods strike the samurai down.
    pub honour: i32,
}

/// What happened in one resolved turn, for narration and replays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TurnLog {
    /// The turn's number, from 1.
    pub turn: u32,
    /// Each seat's recorded action.
    pub actions: [Action; 2],
    /// Whether each seat struck with the Sword of the Gods (honour at or above the
    /// threshold at the start of the turn, and a strike).
    pub god_sword: [bool; 2],
    /// Damage each seat took.
    pub damage: [i32; 2],
    /// Each seat's change of honour.
    pub honour_change: [i32; 2],
    /// Each seat's health and honour after the turn.
    pub after: [Standing; 2],
}

/// Resolves one turn: `before` is each seat's health and honour at the start of the
/// turn, `previous` each seat's recorded action the turn before (none on turn 1).
///
/// ```
/// use koth_samurai::{resolve, Action, Rules, Standing};
/// let s = Standing { health: 20, honour: 1 };
/// let log = resolve(&Rules::default(), 1, [Action::I, Action::B], [s, s], [None, None]);
/// assert_eq!(log.after[1], Standing { health: 19, honour: 2 });
/// assert_eq!(log.after[0], Standing { health: 20, honour: 0 });
/// ```
pub fn resolve(
    rules: &Rules,
    turn: u32,
    actions: [Action; 2],
    before: [Standing; 2],
    previous: [Option<Action>; 2],
) -> TurnLog {
    let mut honour_change = [0i32; 2];
    let mut damage = [0i32; 2];
    let mut god_sword = [false; 2];
    for s in 0..2 {
        let a = actions[s];
        honour_change[s] = match a {
            Action::W => 0,
            Action::B => 1,
            Action::G if previous[s] == Some(Action::G) => -1,
            Action::G => 0,
            Action::I | Action::P | Action::O => -1,
        };
        god_sword[s] = a.is_strike() && before[s].honour >= rules.god_sword_honour;
    }
    for s in 0..2 {
        let (mine, theirs) = (actions[s], actions[1 - s]);
        if !mine.is_strike() {
            continue;
        }
        let lands = match theirs {
            Action::W | Action::B => true,
            Action::G => false,
            strike => mine.beats(strike),
        };
        if lands {
            damage[1 - s] += if god_sword[s] { 2 } else { 1 };
        }
    }
    let after = [0, 1].map(|s| Standing {
        health: before[s].health - damage[s],
        honour: before[s].honour + honour_change[s],
    });
    TurnLog {
        turn,
        actions,
        god_sword,
        damage,
        honour_change,
        after,
    }
}
