use crate::action::Action;
use crate::bot::Samurai;
use crate::view::View;

/// Bows until its honour reaches the Sword of the Gods (7), then strikes with it:
/// the strike that beats the enemy's last strike, or a quick draw.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bower;

impl Samurai for Bower {
    fn name(&self) -> &str {
        "bower"
    }
    fn act(&mut self, view: &View) -> Action {
        if view.my_honour >= 7 {
            view.enemy_last()
                .and_then(Action::counter)
                .unwrap_or(Action::I)
        } else {
            Action::B
        }
    }
}
