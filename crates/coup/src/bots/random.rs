use crate::bot::Bot;
use crate::choice::Choice;
use crate::view::View;
use koth_arena::Random;
use koth_arena::Rng;

/// Chooses uniformly among the legal choices, from its seat's seed.
#[derive(Clone, Debug)]
pub struct RandomBot {
    rng: Rng,
}

impl Default for RandomBot {
    fn default() -> Self {
        RandomBot { rng: Rng::new(0) }
    }
}

impl Bot for RandomBot {
    fn start(&mut self, _view: &View, seed: u64) {
        self.rng = Rng::new(seed);
    }
    fn decide(&mut self, _view: &View, legal: &[Choice]) -> Choice {
        legal[self.rng.index(legal.len())]
    }
}
