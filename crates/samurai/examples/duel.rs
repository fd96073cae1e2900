//! One narrated duel between two built-in samurai.
//!
//! `cargo run -p koth-samurai --example duel -- predictor guardian [seed]`

use koth_arena::rng::derive_seed;
use koth_arena::Game;
use koth_samurai::{builtin, narrate_end, narrate_turn_with, Rules, State, BUILTIN_NAMES};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let names = [
        args.first().map_or("predictor", String::as_str),
        args.get(1).map_or("guardian", String::as_str),
    ];
    let seed: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let mut samurai = Vec::new();
    for (seat, name) in names.iter().enumerate() {
        let Some(mut s) = builtin(name) else {
            eprintln!(
                "no built-in samurai named {name:?}; the built-ins are {}",
                BUILTIN_NAMES.join(", ")
            );
            std::process::exit(2);
        };
        s.start(derive_seed(seed, 1 + seat as u64));
        samurai.push(s);
    }
    let mut duel = State::new(&Rules::default(), seed);
    while duel.outcome().is_none() {
        let first = samurai[0].act(&duel.view(0));
        let second = samurai[1].act(&duel.view(1));
        let log = *duel.play_turn(first, second).expect("the duel is running");
        println!("{}", narrate_turn_with(&log, names));
    }
    println!("{}", narrate_end(&duel, names).expect("the duel is over"));
}
