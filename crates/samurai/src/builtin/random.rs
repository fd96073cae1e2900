use crate::action::Action;
use crate::bot::Samurai;
use crate::view::View;
use koth_arena::Random;
use koth_arena::Rng;

/// Chooses uniformly among the six actions from its seat's random stream (and so
/// is soon struck down by the gods).
#[derive(Clone, Debug)]
pub struct RandomSamurai {
    rng: Rng,
}

impl Default for RandomSamurai {
    fn default() -> Self {
        RandomSamurai { rng: Rng::new(0) }
    }
}

impl Samurai for RandomSamurai {
    fn name(&self) -> &str {
        "random"
    }
    fn start(&mut self, seed: u64) {
        self.rng = Rng::new(seed);
    }
    fn act(&mut self, _view: &View) -> Action {
        Action::ALL[self.rng.index(Action::ALL.len())]
    }
}
