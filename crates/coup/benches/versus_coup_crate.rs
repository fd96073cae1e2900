//! koth against the `coup` crate 1.1.1 in the same run: the seed-003 lineup (2
//! static, 2 honest, 2 random at one 6-player table) and a two-player table.
//!
//! `cargo bench -p koth-coup --bench versus_coup_crate` (optional arguments:
//! koth games, crate seconds). Prints games/s for both and the ratio, and the peak
//! memory after 10% and after 100% of koth's games (flat memory).

use koth_arena::{Quiet, RecordLevel, Schedule, Scoring, Tournament};
use koth_coup::{builtin_entrant, Rules, State};
use std::time::{Duration, Instant};

fn koth_games_per_s(names: &[&str], games: u64, threads: usize) -> (f64, Duration) {
    let shown = koth_arena::runner::dedup_names(names);
    let t = Tournament::<State> {
        rules: Rules::standard(),
        entrants: names
            .iter()
            .zip(shown)
            .map(|(b, s)| builtin_entrant(b, s).unwrap())
            .collect(),
        schedule: Schedule::RandomTables {
            games,
            table: names.len(),
        },
        scoring: Scoring::ZeroSum,
        seed: 2026,
        threads,
        records: RecordLevel::None,
        duplicate: false,
    };
    let run = t.run(&mut Quiet);
    (games as f64 / run.elapsed.as_secs_f64(), run.elapsed)
}

/// The crate's own loop mode, with its per-game score board sent to /dev/null.
fn crate_games_per_s(
    make: fn() -> Vec<Box<dyn coup::bot::BotInterface>>,
    budget: Duration,
) -> (f64, u64) {
    // Silence stdout: the crate prints its board after every game.
    let devnull = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/null")
        .unwrap();
    let saved = unsafe { libc::dup(1) };
    unsafe { libc::dup2(std::os::fd::AsRawFd::as_raw_fd(&devnull), 1) };
    let start = Instant::now();
    let mut games = 0u64;
    let mut batch = 10u64;
    while start.elapsed() < budget {
        let mut c = coup::Coup::new(make());
        c.looping(batch);
        games += batch;
        batch = (batch * 2).min(2_000);
    }
    let secs = start.elapsed().as_secs_f64();
    unsafe {
        libc::dup2(saved, 1);
        libc::close(saved);
    }
    (games as f64 / secs, games)
}

fn peak_rss_kib() -> i64 {
    let mut r: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut r) };
    r.ru_maxrss
}

fn six() -> Vec<Box<dyn coup::bot::BotInterface>> {
    use coup::bots::{HonestBot, RandomBot, StaticBot};
    vec![
        Box::new(StaticBot),
        Box::new(StaticBot),
        Box::new(HonestBot),
        Box::new(HonestBot),
        Box::new(RandomBot),
        Box::new(RandomBot),
    ]
}

fn two() -> Vec<Box<dyn coup::bot::BotInterface>> {
    use coup::bots::{HonestBot, StaticBot};
    vec![Box::new(StaticBot), Box::new(HonestBot)]
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let games: u64 = args
        .first()
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let budget = Duration::from_secs_f64(args.get(1).and_then(|a| a.parse().ok()).unwrap_or(5.0));
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);

    println!("six players: 2 static, 2 honest, 2 random");
    let (c6, n6) = crate_games_per_s(six, budget);
    println!(
        "  coup crate 1.1.1 : {c6:>12.0} games/s ({n6} games, 1 thread: it has no parallel mode)"
    );
    let (k_warm, _) = koth_games_per_s(
        &["static", "static", "honest", "honest", "random", "random"],
        games / 10,
        threads,
    );
    let rss_tenth = peak_rss_kib();
    let (k6, el) = koth_games_per_s(
        &["static", "static", "honest", "honest", "random", "random"],
        games,
        threads,
    );
    let rss_full = peak_rss_kib();
    println!("  koth             : {k6:>12.0} games/s ({games} games in {:.2} s on {threads} threads; {k_warm:.0} games/s for the first tenth)", el.as_secs_f64());
    println!("  ratio            : {:>12.0}x", k6 / c6);
    println!(
        "  peak memory      : {rss_tenth} KiB after {} games, {rss_full} KiB after {games} more",
        games / 10
    );
    let (k1, _) = koth_games_per_s(
        &["static", "static", "honest", "honest", "random", "random"],
        games / 4,
        1,
    );
    println!("  koth, 1 thread   : {k1:>12.0} games/s");

    println!("two players: static, honest");
    let (c2, n2) = crate_games_per_s(two, budget);
    println!("  coup crate 1.1.1 : {c2:>12.0} games/s ({n2} games)");
    let (k2, _) = koth_games_per_s(&["static", "honest"], games, threads);
    println!("  koth             : {k2:>12.0} games/s");
    println!("  ratio            : {:>12.0}x", k2 / c2);
}
