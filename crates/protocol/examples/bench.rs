//! Engine cost per external decision, and games/s of external bots.
//!
//! ```text
//! cargo build --release -p koth-protocol --examples
//! target/release/examples/bench [BOT_PROGRAM...]   # default: the external_bot example
//! ```
//! Plays six-seat games among six copies of the bot on one thread and reports the
//! arena's own CPU time per decision (from /proc/self/stat, bots excluded) and games/s.
use koth_arena::{Entrant, Quiet, RecordLevel, Schedule, Scoring, Tournament};
use koth_coup::{Rules, State};
use koth_process::Command;
use koth_protocol::{json_entrant, JsonBotConfig};
use std::time::Instant;

fn cpu_ticks() -> u64 {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let rest = s.rsplit_once(')').map(|x| x.1).unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    // Fields 14 and 15 (utime, stime) are at 11 and 12 after the ")".
    f.get(11).and_then(|x| x.parse::<u64>().ok()).unwrap_or(0)
        + f.get(12).and_then(|x| x.parse::<u64>().ok()).unwrap_or(0)
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let threads: usize = std::env::var("THREADS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(1);
    let games: u64 = std::env::var("GAMES")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(2000);
    if args.is_empty() {
        let exe = std::env::current_exe().unwrap();
        args.push(
            exe.with_file_name("external_bot")
                .to_string_lossy()
                .into_owned(),
        );
    }
    let cwd = std::env::current_dir().unwrap();
    let entrants: Vec<Entrant<State>> = (0..6)
        .map(|i| {
            json_entrant(
                format!("bot{i}"),
                JsonBotConfig::new(Command::new(args.clone(), cwd.clone())),
            )
        })
        .collect();
    let t = Tournament {
        rules: Rules::standard(),
        entrants,
        schedule: Schedule::RandomTables { games, table: 6 },
        scoring: Scoring::ZeroSum,
        seed: 1,
        threads,
        records: RecordLevel::None,
        duplicate: false,
    };
    let c0 = cpu_ticks();
    let t0 = Instant::now();
    let s = t.run(&mut Quiet);
    let wall = t0.elapsed().as_secs_f64();
    let cpu = (cpu_ticks() - c0) as f64 / 100.0;
    let d = s.standings.decisions as f64;
    let forfeits: u64 = s.standings.entrants.iter().map(|e| e.forfeits).sum();
    println!(
        "{} games, {} decisions in {:.2} s on {} thread(s): {:.0} games/s, {:.1} µs wall/decision, {:.2} µs arena CPU/decision, {} forfeits",
        s.standings.games, d, wall, threads, s.standings.games as f64 / wall, wall * 1e6 / d, cpu * 1e6 / d, forfeits
    );
}
