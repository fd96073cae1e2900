use crate::action::Action;
use crate::bot::Samurai;
use crate::view::View;

/// Always waits, like the seed's example entry "The Waiter".
#[derive(Clone, Copy, Debug, Default)]
pub struct Waiter;

impl Samurai for Waiter {
    fn name(&self) -> &str {
        "waiter"
    }
    fn act(&mut self, _view: &View) -> Action {
        Action::W
    }
}
