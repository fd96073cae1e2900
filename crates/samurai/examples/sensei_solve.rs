//! Solves the seed's duel as sensei does and prints what the solution says: how
//! long it took, the value of a few positions, sensei's first-turn mix, and how
//! far the enemy's exact best reply can push any position below its value.
//!
//!     cargo run --release -p koth-samurai --example sensei_solve [CAP]
use koth_samurai::solve::{Position, Solution, ACTIONS};
use koth_samurai::{Rules, SENSEI_HONOUR_CAP};

fn main() {
    let cap = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(SENSEI_HONOUR_CAP);
    let rules = Rules::default();
    let t = std::time::Instant::now();
    let s = Solution::solve(&rules, cap);
    println!(
        "solved with honour counted up to {cap} in {:.2} s",
        t.elapsed().as_secs_f64()
    );
    let start = Position::start(&rules);
    println!("value of the start: {:+.6}", s.value(&start));
    let mix = s.strategy(&start);
    let shown: Vec<String> = ACTIONS
        .iter()
        .zip(mix)
        .map(|(a, w)| format!("{a} {w:.3}"))
        .collect();
    println!("first turn: {}", shown.join(", "));
    for (health, honour) in [([20, 20], [7, 1]), ([20, 20], [3, 1]), ([10, 12], [3, 3])] {
        let p = Position {
            health,
            honour,
            guarded: [false; 2],
        };
        let mix: Vec<String> = s.strategy(&p).iter().map(|w| format!("{w:.2}")).collect();
        println!(
            "health {health:?} honour {honour:?}: value {:+.4}, mix (B G I P O) {}",
            s.value(&p),
            mix.join(" ")
        );
    }
    let t = std::time::Instant::now();
    let worst = s.against_best_reply();
    let gap = worst
        .iter()
        .map(|(p, w)| s.value(p) - w)
        .fold(f64::NEG_INFINITY, f64::max);
    println!(
        "exact best reply over {} positions in {:.2} s: the most it takes from a position's value is {gap:.1e}",
        worst.len(),
        t.elapsed().as_secs_f64()
    );
}
