use crate::action::Action;
use crate::bot::Samurai;
use crate::view::View;

/// Repeats the enemy's last action (bows on the first turn), but bows instead of a
/// move that would bring its own honour below zero.
#[derive(Clone, Copy, Debug, Default)]
pub struct Copycat;

impl Samurai for Copycat {
    fn name(&self) -> &str {
        "copycat"
    }
    fn act(&mut self, view: &View) -> Action {
        match view.enemy_last() {
            Some(a) if view.affordable(a) => a,
            _ => Action::B,
        }
    }
}
