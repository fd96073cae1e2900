//! The `coup` crate's own engine, timed: `koth coup bench` runs it beside koth
//! (as a program of its own, since the crate is GPL-3.0 and koth is not).
//!
//! coupcrate-bench six|two SECONDS
//!
//! plays the crate's loop mode on the table for SECONDS (one thread: it has no
//! parallel mode) and prints `games N seconds S` on stderr; its own board goes to
//! stdout, which koth sends to /dev/null.
use coup::bot::BotInterface;
use coup::bots::{HonestBot, RandomBot, StaticBot};
use std::time::{Duration, Instant};

/// Makes a table's bots afresh.
type Table = fn() -> Vec<Box<dyn BotInterface>>;

fn table(name: &str) -> Option<Table> {
    match name {
        // Seed 003's lineup.
        "six" => Some(|| {
            vec![
                Box::new(StaticBot),
                Box::new(StaticBot),
                Box::new(HonestBot),
                Box::new(HonestBot),
                Box::new(RandomBot),
                Box::new(RandomBot),
            ]
        }),
        "two" => Some(|| vec![Box::new(StaticBot), Box::new(HonestBot)]),
        _ => None,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(make), Some(secs)) = (
        args.first().and_then(|t| table(t)),
        args.get(1).and_then(|s| s.parse::<f64>().ok()),
    ) else {
        eprintln!("usage: coupcrate-bench six|two SECONDS");
        std::process::exit(2);
    };
    let budget = Duration::from_secs_f64(secs.max(0.0));
    let start = Instant::now();
    let (mut games, mut batch) = (0u64, 10u64);
    while start.elapsed() < budget {
        coup::Coup::new(make()).looping(batch);
        games += batch;
        batch = (batch * 2).min(2_000);
    }
    eprintln!("games {games} seconds {}", start.elapsed().as_secs_f64());
}
