//! A complete Rust samurai playing a short round robin against the built-ins.
//!
//! `cargo run -p koth-samurai --example my_samurai --release [games_per_pair]`

use koth_arena::{Quiet, RecordLevel, Schedule, Scoring, Tournament};
use koth_samurai::{entrant, entrants, Action, Rules, Samurai, View, BUILTIN_NAMES};

/// Bows while the enemy cannot strike without dishonour, guards a striker (never
/// twice in a row), and with the Sword of the Gods answers the enemy's favourite
/// strike with the one that beats it.
struct Sensei;

impl Samurai for Sensei {
    fn name(&self) -> &str {
        "sensei"
    }

    fn act(&mut self, view: &View) -> Action {
        if view.enemy_honour == 0 {
            return Action::B;
        }
        let enemy_struck = view.enemy_last().is_some_and(Action::is_strike);
        if enemy_struck && view.my_last() != Some(Action::G) {
            return Action::G;
        }
        if view.my_honour >= 7 && view.enemy_last() != Some(Action::G) {
            let mut count = [0; 6];
            for a in view.enemy_history {
                count[a.index()] += 1;
            }
            let favourite = Action::STRIKES
                .into_iter()
                .max_by_key(|a| count[a.index()])
                .unwrap_or(Action::I);
            return favourite.counter().unwrap_or(Action::I);
        }
        Action::B
    }
}

fn main() {
    let games_per_pair = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(8);
    let mut field = entrants(&BUILTIN_NAMES).expect("built-in names");
    field.push(entrant("sensei", || Box::new(Sensei)));
    let tournament = Tournament {
        rules: Rules::default(),
        entrants: field,
        schedule: Schedule::RoundRobin { games_per_pair },
        scoring: Scoring::SharedPoint,
        seed: 2015,
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        records: RecordLevel::None,
        duplicate: false,
    };
    let run = tournament.run(&mut Quiet);
    let s = &run.standings;
    println!(
        "{} matches in {:.2} s ({:.0} matches/s)\n",
        s.games,
        run.elapsed.as_secs_f64(),
        s.games as f64 / run.elapsed.as_secs_f64().max(1e-9)
    );
    println!(
        "{:>7}  {:<10} {:>5} {:>5} {:>5}  {:>12}",
        "score", "samurai", "won", "drawn", "lost", "mean ± 95%"
    );
    for i in s.ranking() {
        let e = &s.entrants[i];
        println!(
            "{:>7.1}  {:<10} {:>5} {:>5} {:>5}  {:>5.3} ± {:.3}",
            e.score.sum(),
            e.name,
            e.wins,
            e.draws,
            e.losses,
            e.score.mean(),
            e.score.ci95()
        );
    }
    if std::env::var_os("PAIRS").is_some() {
        let n = s.entrants.len();
        print!("\n{:<10}", "");
        for e in &s.entrants {
            print!(" {:>9}", e.name);
        }
        println!();
        for a in 0..n {
            print!("{:<10}", s.entrants[a].name);
            for b in 0..n {
                let p = &s.pair[a * n + b];
                if p.n == 0 {
                    print!(" {:>9}", "-");
                } else {
                    print!(" {:>9.2}", p.mean());
                }
            }
            println!();
        }
    }
}
