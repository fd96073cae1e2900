//! The `coup` crate's own engine playing a lineup, to compare with koth running
//! the same bots through the adapter (docs/coup-crate.md, "Agreement"):
//!
//! cargo run --release -p koth-coup-crate --example crate_loop -- 20000 static,honest,random,tracker
//!
//! It prints the crate's own board (its looping mode): each bot's total score.
use coup::bot::BotInterface;
use coup::bots::{HonestBot, RandomBot, StaticBot};
use coup::Coup;
use koth_coup_crate::tracker::Tracker;

fn main() {
    let mut args = std::env::args().skip(1);
    let rounds: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let lineup = args
        .next()
        .unwrap_or_else(|| "static,honest,random,tracker".into());
    let bots: Vec<Box<dyn BotInterface>> = lineup
        .split(',')
        .map(|b| -> Box<dyn BotInterface> {
            match b {
                "static" => Box::new(StaticBot),
                "honest" => Box::new(HonestBot),
                "random" => Box::new(RandomBot),
                "tracker" => Box::new(Tracker),
                other => panic!("no bot {other:?}: static, honest, random or tracker"),
            }
        })
        .collect();
    Coup::new(bots).looping(rounds);
}
