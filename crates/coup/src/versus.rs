//! koth against the `coup` crate 1.1.1 (seeds 003's engine) in one process: the
//! measurements behind the `versus_coup_crate` benchmark. Enabled by the `versus`
//! feature, which links the GPL-3.0 crate; koth's binary does not enable it
//! (`koth coup bench` runs the crate as `coupcrate-bench`, a program of its own).

use crate::Choice;
use crate::{builtin_entrant, Rules, State};
use koth_arena::{Observer, Quiet, RecordLevel, Schedule, Scoring, Tournament};
use std::time::{Duration, Instant};

/// Seed 003's lineup: two static, two honest, two random bots at one table.
pub const SIX: [&str; 6] = ["static", "static", "honest", "honest", "random", "random"];

/// A koth measurement.
#[derive(Clone, Copy, Debug)]
pub struct Measure {
    /// Games played.
    pub games: u64,
    /// Decisions taken.
    pub decisions: u64,
    /// Wall time.
    pub elapsed: Duration,
}

impl Measure {
    /// Games a second.
    pub fn games_per_s(&self) -> f64 {
        self.games as f64 / self.elapsed.as_secs_f64()
    }
    /// Decisions a second.
    pub fn decisions_per_s(&self) -> f64 {
        self.decisions as f64 / self.elapsed.as_secs_f64()
    }
}

/// `games` games of the built-ins `names` at one table, on `threads` workers.
pub fn koth(names: &[&str], games: u64, threads: usize) -> Measure {
    koth_with(names, games, threads, RecordLevel::None, &mut Quiet)
}

/// [`koth`], keeping `records` and handing them to `observer` (e.g. a
/// [`koth_arena::records::RecordWriter`], to measure what writing a run costs).
pub fn koth_with(
    names: &[&str],
    games: u64,
    threads: usize,
    records: RecordLevel,
    observer: &mut dyn Observer<Choice>,
) -> Measure {
    let shown = koth_arena::dedup_names(names);
    let t = Tournament::<State> {
        rules: Rules::standard(),
        entrants: names
            .iter()
            .zip(shown)
            .map(|(b, s)| builtin_entrant(b, s).expect("a built-in"))
            .collect(),
        schedule: Schedule::RandomTables {
            games,
            table: names.len(),
        },
        scoring: Scoring::ZeroSum,
        seed: 2026,
        threads,
        records,
        duplicate: false,
    };
    let run = t.run(observer);
    Measure {
        games: run.played.end - run.played.start,
        decisions: run.standings.decisions,
        elapsed: run.elapsed,
    }
}

/// A table of the crate's bots.
pub type CrateTable = fn() -> Vec<Box<dyn coup::bot::BotInterface>>;

/// The crate's seed-003 lineup.
pub fn crate_six() -> Vec<Box<dyn coup::bot::BotInterface>> {
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

/// The crate's two-player table: static against honest.
pub fn crate_two() -> Vec<Box<dyn coup::bot::BotInterface>> {
    use coup::bots::{HonestBot, StaticBot};
    vec![Box::new(StaticBot), Box::new(HonestBot)]
}

/// The crate's own loop mode for `budget` (one thread: it has no parallel mode), its
/// score board, which it prints after every game, sent to /dev/null: games/s and
/// games played.
pub fn coup_crate(make: CrateTable, budget: Duration) -> std::io::Result<(f64, u64)> {
    let devnull = std::fs::OpenOptions::new().write(true).open("/dev/null")?;
    std::io::Write::flush(&mut std::io::stdout())?;
    // stdout is restored before returning.
    let saved = rustix::io::dup(std::io::stdout())?;
    rustix::stdio::dup2_stdout(&devnull)?;
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
    std::io::Write::flush(&mut std::io::stdout())?;
    rustix::stdio::dup2_stdout(&saved)?;
    Ok((games as f64 / secs, games))
}

/// This process's peak resident memory, in MiB.
pub fn peak_rss_mib() -> f64 {
    koth_process::usage(koth_process::Who::Process).peak_rss_kib as f64 / 1024.0
}
