use crate::action::Action;
use crate::bot::Samurai;
use crate::view::{honour_trail, View};

/// Guards when the enemy can strike and is likely to (judged by what the enemy did
/// before in the same situation: its last action and whether it held the Sword of
/// the Gods), never guarding twice in a row; bows otherwise. With the Sword of the
/// Gods it strikes an enemy that is unlikely to guard, with the counter of the
/// enemy's favourite strike.
#[derive(Clone, Copy, Debug, Default)]
pub struct Guardian;

impl Samurai for Guardian {
    fn name(&self) -> &str {
        "guardian"
    }
    fn act(&mut self, view: &View) -> Action {
        let (strike, guard) = enemy_odds(view);
        let guarded = view.my_last() == Some(Action::G);
        if view.enemy_honour > 0 && strike >= 0.3 && !guarded {
            return Action::G;
        }
        if view.my_honour >= 7 && guard < 0.5 {
            return favourite_strike(view.enemy_history)
                .and_then(Action::counter)
                .unwrap_or(Action::I);
        }
        Action::B
    }
}

/// Estimated chances that the enemy strikes and guards now, from what it did after
/// the same last action at the same side of the Sword of the Gods (honour 7), with
/// a prior of one strike in three.
fn enemy_odds(view: &View) -> (f64, f64) {
    let h = view.enemy_history;
    let Some(&last) = h.last() else {
        return (0.0, 0.0);
    };
    let before = honour_trail(h, view.enemy_honour);
    let sword_now = view.enemy_honour >= 7;
    let (mut n, mut strikes, mut guards) = (1.0, 1.0 / 3.0, 0.0);
    for t in 1..h.len() {
        if h[t - 1] == last && (before[t] >= 7) == sword_now {
            n += 1.0;
            if h[t].is_strike() {
                strikes += 1.0;
            } else if h[t] == Action::G {
                guards += 1.0;
            }
        }
    }
    (strikes / n, guards / n)
}

/// The strike the enemy used most, if any.
fn favourite_strike(history: &[Action]) -> Option<Action> {
    let mut count = [0usize; 6];
    for a in history.iter().filter(|a| a.is_strike()) {
        count[a.index()] += 1;
    }
    let best = Action::STRIKES
        .iter()
        .copied()
        .max_by_key(|a| count[a.index()])?;
    (count[best.index()] > 0).then_some(best)
}
