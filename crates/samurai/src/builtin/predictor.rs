use crate::action::Action;
use crate::bot::Samurai;
use crate::rules::Rules;
use crate::turn::{resolve, Standing, TurnLog};
use crate::view::{honour_trail, View};
use koth_arena::Random;
use koth_arena::Rng;

/// Predicts the enemy's next action with a decaying n-gram model of the histories
/// (contexts: the enemy's last two actions and mine, backing off to shorter ones),
/// then plays the action with the best expected outcome one turn ahead, scored by
/// the real rules: health difference, honour (its Sword of the Gods included) and
/// never an action that would bring the gods down on it.
#[derive(Clone, Debug)]
pub struct Predictor {
    rng: Rng,
    rules: Rules,
}

impl Default for Predictor {
    fn default() -> Self {
        Predictor {
            rng: Rng::new(0),
            rules: Rules::default(),
        }
    }
}

/// How much older observations count: each turn back multiplies by this.
const DECAY: f64 = 0.93;

impl Predictor {
    /// The predicted distribution of the enemy's next action, indexed by [`Action::index`].
    pub fn predict(view: &View) -> [f64; 6] {
        let (me, en) = (view.my_history, view.enemy_history);
        let n = en.len();
        // Counts per context order: 0 = none, 1 = enemy's last, 2 = enemy's last and
        // mine, 3 = enemy's last two and mine.
        let mut counts = [[0.0f64; 6]; 4];
        // Whether each samurai held the Sword of the Gods before each turn: many
        // samurai play differently when either side has it.
        let my_sword = honour_trail(me, view.my_honour);
        let en_sword = honour_trail(en, view.enemy_honour);
        let key = |t: usize| -> [Option<(usize, usize, usize)>; 4] {
            // Context of the action at index t (what came before it).
            let swords = usize::from(my_sword[t] >= 7) * 2 + usize::from(en_sword[t] >= 7);
            let e1 = t.checked_sub(1).map(|i| en[i].index());
            let m1 = t.checked_sub(1).map(|i| me[i].index());
            let e2 = t.checked_sub(2).map(|i| en[i].index());
            [
                Some((swords, 0, 0)),
                e1.map(|e| (e, swords, 0)),
                e1.zip(m1).map(|(e, m)| (e, m, swords)),
                e1.zip(m1).zip(e2).map(|((e, m), f)| (e, m, f * 4 + swords)),
            ]
        };
        let now = key(n);
        let mut weight = 1.0;
        for t in (0..n).rev() {
            let k = key(t);
            for order in 0..4 {
                if k[order].is_some() && k[order] == now[order] {
                    counts[order][en[t].index()] += weight;
                }
            }
            weight *= DECAY;
        }
        let mut p = [0.05f64; 6];
        // The first turns: most samurai bow or wait.
        if n == 0 {
            p[Action::B.index()] += 0.5;
            p[Action::W.index()] += 0.1;
        }
        for (order, c) in counts.iter().enumerate() {
            let total: f64 = c.iter().sum();
            if total > 0.0 {
                let trust = total / (total + 1.0) * (1 << order) as f64;
                for i in 0..6 {
                    p[i] += trust * c[i] / total;
                }
            }
        }
        let sum: f64 = p.iter().sum();
        p.map(|x| x / sum)
    }

    /// How good `log`'s result is for `me` (0 or 1), one turn ahead.
    fn value(log: &TurnLog, me: usize) -> f64 {
        let (a, b) = (log.after[me], log.after[1 - me]);
        let (my_down, en_down) = (a.honour < 0, b.honour < 0);
        if my_down || en_down {
            return match (my_down, en_down) {
                (true, true) => 0.0,
                (true, false) => -1000.0,
                _ => 1000.0,
            };
        }
        let (my_dead, en_dead) = (a.health <= 0, b.health <= 0);
        if my_dead || en_dead {
            return match (my_dead, en_dead) {
                (true, true) => 0.0,
                (true, false) => -1000.0,
                _ => 1000.0,
            };
        }
        10.0 * (a.health - b.health) as f64 + honour_value(a.honour) - honour_value(b.honour)
    }
}

fn honour_value(h: i32) -> f64 {
    let h = h as f64;
    3.0 * h.min(8.0) + if h >= 7.0 { 5.0 } else { 0.0 } + 0.5 * (h - 8.0).max(0.0)
}

impl Samurai for Predictor {
    fn name(&self) -> &str {
        "predictor"
    }
    fn start(&mut self, seed: u64) {
        self.rng = Rng::new(seed);
    }
    fn act(&mut self, view: &View) -> Action {
        let p = Self::predict(view);
        let before = [
            Standing {
                health: view.my_health,
                honour: view.my_honour,
            },
            Standing {
                health: view.enemy_health,
                honour: view.enemy_honour,
            },
        ];
        let previous = [view.my_last(), view.enemy_last()];
        let mut best = (f64::NEG_INFINITY, Action::B);
        for mine in Action::ALL {
            let mut ev = 0.0;
            for theirs in Action::ALL {
                let log = resolve(&self.rules, 0, [mine, theirs], before, previous);
                ev += p[theirs.index()] * Self::value(&log, 0);
            }
            // A little noise breaks ties without a fixed preference.
            ev += self.rng.unit() * 0.01;
            if ev > best.0 {
                best = (ev, mine);
            }
        }
        best.1
    }
}
