use crate::action::Action;
use crate::bot::Samurai;
use crate::rules::Rules;
use crate::solve::{Position, Solution, ACTIONS};
use crate::view::View;
use koth_arena::Random;
use koth_arena::Rng;
use std::sync::OnceLock;

/// Honour above this counts as this in sensei's solution: seven for the Sword
/// of the Gods and a reserve of spending above it that duels seldom exceed.
pub const SENSEI_HONOUR_CAP: i32 = 16;

/// The seed's duel solved once per process, for every sensei.
pub fn sensei_solution() -> &'static Solution {
    static SOLVED: OnceLock<Solution> = OnceLock::new();
    SOLVED.get_or_init(|| Solution::solve(&Rules::default(), SENSEI_HONOUR_CAP))
}

/// Plays the duel's equilibrium: at every position, the mix of actions no
/// opponent can turn to its advantage (see [`crate::solve`]), drawn from its
/// seat's random stream. No samurai can expect to beat it; every one that is
/// not itself an equilibrium loses to it on average.
#[derive(Clone, Debug)]
pub struct Sensei {
    rng: Rng,
}

impl Default for Sensei {
    fn default() -> Self {
        Sensei { rng: Rng::new(0) }
    }
}

impl Sensei {
    /// The position a view shows, as the solution keys it.
    pub fn position(view: &View) -> Position {
        Position {
            health: [view.my_health, view.enemy_health],
            honour: [view.my_honour, view.enemy_honour],
            guarded: [
                view.my_last() == Some(Action::G),
                view.enemy_last() == Some(Action::G),
            ],
        }
    }
}

impl Samurai for Sensei {
    fn name(&self) -> &str {
        "sensei"
    }
    fn start(&mut self, seed: u64) {
        self.rng = Rng::new(seed);
        // The solving (once a process) belongs to the start, not to a turn's answer.
        sensei_solution();
    }
    fn act(&mut self, view: &View) -> Action {
        let mix = sensei_solution().strategy(&Self::position(view));
        let mut x = self.rng.unit();
        for (a, w) in ACTIONS.iter().zip(mix) {
            if x < w {
                return *a;
            }
            x -= w;
        }
        // Rounding left a sliver: the likeliest action.
        let best = (0..5).fold(0, |b, i| if mix[i] > mix[b] { i } else { b });
        ACTIONS[best]
    }
}
