use crate::action::Action;
use crate::bot::Samurai;
use crate::view::View;
use koth_arena::Random;
use koth_arena::Rng;

/// A mixed strategy with honour management: bows in safety (when the enemy cannot
/// strike without being struck down), never spends honour it does not have, and
/// otherwise mixes bows, guards and strikes at random, leaning to the strike that
/// beats the enemy's last one.
#[derive(Clone, Debug)]
pub struct Ronin {
    rng: Rng,
}

impl Default for Ronin {
    fn default() -> Self {
        Ronin { rng: Rng::new(0) }
    }
}

impl Samurai for Ronin {
    fn name(&self) -> &str {
        "ronin"
    }
    fn start(&mut self, seed: u64) {
        self.rng = Rng::new(seed);
    }
    fn act(&mut self, view: &View) -> Action {
        if view.enemy_honour == 0 {
            return Action::B;
        }
        // Weights for W B G I P O.
        let mut w = [0u32, 40, 20, 14, 13, 13];
        if view.my_honour >= 7 {
            w = [0, 15, 15, 24, 23, 23];
        }
        if let Some(c) = view.enemy_last().and_then(Action::counter) {
            w[c.index()] += 20;
        }
        if view.enemy_last() == Some(Action::G) {
            // A guard is often followed by a strike or a bow: bowing pays.
            w[Action::B.index()] += 20;
        }
        for a in Action::ALL {
            if !view.affordable(a) {
                w[a.index()] = 0;
            }
        }
        let total: u32 = w.iter().sum();
        let mut r = self.rng.below(total);
        for a in Action::ALL {
            if r < w[a.index()] {
                return a;
            }
            r -= w[a.index()];
        }
        Action::B
    }
}
