//! koth against the `coup` crate 1.1.1 in the same run: the seed-003 lineup (2
//! static, 2 honest, 2 random at one 6-player table) and a two-player table.
//!
//! `cargo bench -p koth-coup --features versus --bench versus_coup_crate` (optional
//! arguments: koth games, crate seconds). `koth bench` prints the same and more
//! (scaling by thread count); both use [`koth_coup::versus`].

use koth_coup::versus::{coup_crate, crate_six, crate_two, koth, peak_rss_mib, SIX};
use std::time::Duration;

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
    let (c6, n6) = coup_crate(crate_six, budget).expect("/dev/null");
    println!("  coup crate 1.1.1 : {c6:>12.0} games/s ({n6} games, 1 thread)");
    let warm = koth(&SIX, games / 10, threads);
    let rss_tenth = peak_rss_mib();
    let full = koth(&SIX, games, threads);
    let rss_full = peak_rss_mib();
    println!(
        "  koth             : {:>12.0} games/s ({games} games in {:.2} s on {threads} threads; {:.0} games/s for the first tenth)",
        full.games_per_s(),
        full.elapsed.as_secs_f64(),
        warm.games_per_s()
    );
    println!("  ratio            : {:>12.0}x", full.games_per_s() / c6);
    println!(
        "  peak memory      : {rss_tenth:.1} MiB after {} games, {rss_full:.1} MiB after {games} more",
        games / 10
    );
    let one = koth(&SIX, games / 4, 1);
    println!("  koth, 1 thread   : {:>12.0} games/s", one.games_per_s());

    println!("two players: static, honest");
    let (c2, n2) = coup_crate(crate_two, budget).expect("/dev/null");
    println!("  coup crate 1.1.1 : {c2:>12.0} games/s ({n2} games)");
    let k2 = koth(&["static", "honest"], games, threads);
    println!("  koth             : {:>12.0} games/s", k2.games_per_s());
    println!("  ratio            : {:>12.0}x", k2.games_per_s() / c2);
}
