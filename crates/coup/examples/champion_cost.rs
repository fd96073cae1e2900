//! What `champion` costs at each budget, on one thread: searched decisions and
//! playouts per second, and six-seat games per second with one champion at the
//! table (the other seats: economist, counter, honest, skeptic, bluffer).
//!
//! `cargo run --release -p koth-coup --example champion_cost [SECONDS]`

use koth_arena::{play_game, Agent, GameSeeds, RecordLevel, Scoring};
use koth_coup::bots::{self, Champion};
use koth_coup::{BotAgent, Rules, State};
use std::time::{Duration, Instant};

fn main() {
    let seconds: f64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(3.0);
    println!("one thread, standard rules, 6 seats; about {seconds} s a budget");
    for name in [
        "champion:0.2ms",
        "champion:1ms",
        "champion",
        "champion:5ms",
        "champion:50ms",
    ] {
        let mut champ = BotAgent(Champion::from_name(name).expect("a budget"));
        let mut others: Vec<BotAgent> = ["economist", "counter", "honest", "skeptic", "bluffer"]
            .iter()
            .map(|n| BotAgent(bots::builtin(n).expect("a built-in")))
            .collect();
        let start = Instant::now();
        let mut games = 0u64;
        let mut wins = 0u64;
        let mut mine = Duration::ZERO;
        while start.elapsed().as_secs_f64() < seconds {
            let seeds = GameSeeds::of(99, games);
            let mut game = State::new(Rules::standard(), 6, seeds.deal);
            // The champion's seat moves round the table.
            let at = (games % 6) as usize;
            let mut seats: Vec<&mut dyn Agent<State>> = Vec::new();
            let mut rest = others.iter_mut();
            let mut timed = Timed(&mut champ, &mut mine);
            let mut timed = Some(&mut timed as &mut dyn Agent<State>);
            for s in 0..6 {
                if s == at {
                    seats.push(timed.take().expect("one champion"));
                } else {
                    seats.push(rest.next().expect("five others"));
                }
            }
            let order: Vec<usize> = (0..6).collect();
            let (record, _) = play_game(
                &mut game,
                &mut seats,
                &order,
                0,
                seeds,
                Scoring::ZeroSum,
                RecordLevel::None,
                &mut Vec::new(),
            );
            wins += u64::from(record.outcome.winners.contains(at));
            games += 1;
        }
        let all = start.elapsed().as_secs_f64();
        let (decisions, playouts) = champ.0.searched();
        let t = mine.as_secs_f64();
        println!(
            "{name:>15}: {:>5} playouts a decision: {:>8.0} decisions/s ({:>7.1} µs each), {:>9.0} playouts/s; {:>6.1} games/s at the table (won {:.0}% of {games})",
            champ.0.playouts(),
            decisions as f64 / t,
            t / decisions as f64 * 1e6,
            playouts as f64 / t,
            games as f64 / all,
            100.0 * wins as f64 / games as f64,
        );
    }
}

/// An agent whose decisions are timed.
struct Timed<'a>(&'a mut BotAgent<Champion>, &'a mut Duration);

impl Agent<State> for Timed<'_> {
    fn start(&mut self, game: &State, seat: usize, seed: u64) -> Result<(), koth_arena::Fault> {
        self.0.start(game, seat, seed)
    }
    fn decide(
        &mut self,
        game: &State,
        seat: usize,
        legal: &[koth_coup::Choice],
    ) -> Result<koth_coup::Choice, koth_arena::Fault> {
        let t = Instant::now();
        let c = self.0.decide(game, seat, legal);
        *self.1 += t.elapsed();
        c
    }
    fn wants_legal(&self) -> bool {
        self.0.wants_legal()
    }
    fn finish(&mut self, game: &State, seat: usize) {
        self.0.finish(game, seat)
    }
}
