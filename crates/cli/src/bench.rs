//! `koth <game> bench` (`koth bench`: Coup): the game's built-in lineups through
//! koth, and through a reference engine where the game has one, what writing
//! records costs, and koth's share of an external decision, so anyone can check
//! the speed figures on their machine. Any game.

use crate::front::{BenchTable, ChoiceOf, Front, Reference};
use crate::settings;
use crate::term::count;
use anyhow::{bail, Result};
use clap::Args;
use koth_arena::records::RecordWriter;
use koth_arena::{Observer, Quiet, RecordLevel, Schedule, Tournament};
use koth_entrants::{BotEntry, BotSource};
use std::time::Duration;

/// Options of `koth bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Games koth plays at the six-player table (and for each other measurement, a
    /// quarter of it).
    #[arg(long, default_value_t = 1_000_000, value_parser = settings::at_least_one::<u64>)]
    pub games: u64,
    /// Seconds the reference engine (for Coup, the `coup` crate) plays each table
    /// (it is far slower; 0 skips it).
    #[arg(long, default_value_t = 5.0)]
    pub crate_seconds: f64,
    /// Most worker threads to measure (default: every core); scaling is shown for
    /// 1, 2, 4... up to it.
    #[arg(long, value_parser = settings::at_least_one::<usize>)]
    pub threads: Option<usize>,
    /// Games six copies of a compiled external bot play, to measure koth's share of
    /// an external decision (0 skips it).
    #[arg(long, default_value_t = 300)]
    pub external_games: u64,
}

/// A koth measurement.
#[derive(Clone, Copy, Debug)]
struct Measure {
    games: u64,
    decisions: u64,
    elapsed: Duration,
}

impl Measure {
    fn games_per_s(&self) -> f64 {
        self.games as f64 / self.elapsed.as_secs_f64()
    }
    fn decisions_per_s(&self) -> f64 {
        self.decisions as f64 / self.elapsed.as_secs_f64()
    }
}

/// `games` games of the built-ins `names` at one table, on `threads` workers,
/// keeping `records` for `observer`.
fn koth_with<F: Front>(
    names: &[&str],
    games: u64,
    threads: usize,
    records: RecordLevel,
    observer: &mut dyn Observer<ChoiceOf<F>>,
) -> Result<Measure> {
    let shown = koth_arena::dedup_names(names);
    let bots: Vec<BotEntry> = names
        .iter()
        .zip(shown)
        .map(|(b, s)| BotEntry::new(s, BotSource::Builtin(b.to_string())))
        .collect();
    let (rules, _) = F::rules(&F::Options::default(), None)?;
    let t = Tournament::<F::Game> {
        rules,
        entrants: koth_entrants::entrants::<F::Game>(&bots, &Default::default())?,
        schedule: Schedule::RandomTables {
            games,
            table: names.len(),
        },
        scoring: F::SCORING,
        seed: 2026,
        threads,
        records,
        duplicate: false,
    };
    let run = t.run(observer);
    Ok(Measure {
        games: run.played.end - run.played.start,
        decisions: run.standings.decisions,
        elapsed: run.elapsed,
    })
}

fn koth<F: Front>(names: &[&str], games: u64, threads: usize) -> Result<Measure> {
    koth_with::<F>(names, games, threads, RecordLevel::None, &mut Quiet)
}

/// This process's peak resident memory, in MiB.
fn peak_rss_mib() -> f64 {
    koth_process::usage(koth_process::Who::Process).peak_rss_kib as f64 / 1024.0
}

/// `6` as `six`, for headings.
fn number_word(n: usize) -> String {
    const WORDS: [&str; 7] = ["no", "one", "two", "three", "four", "five", "six"];
    WORDS
        .get(n)
        .map_or_else(|| n.to_string(), |w| w.to_string())
}

/// Runs `koth <game> bench`.
pub fn bench<F: Front>(a: BenchArgs) -> Result<()> {
    if a.games < 4 {
        bail!("--games must be at least 4");
    }
    let tables = F::bench_tables();
    let Some((main, rest)) = tables.split_first() else {
        bail!("koth {} has no bench tables", F::WORD);
    };
    let max = settings::threads(a.threads);
    let budget = Duration::from_secs_f64(a.crate_seconds.max(0.0));
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into());
    let reference = match main.reference {
        Some(r) => format!(", the {} {:.0} s a table", r.short, budget.as_secs_f64()),
        None => String::new(),
    };
    out!(
        "koth {} bench: {cores} cores, load {load} at the start; koth {} games a measurement (a quarter for scaling){reference}",
        env!("CARGO_PKG_VERSION"),
        count(a.games),
    );
    out!("\n{}", main.title);
    let reference = match main.reference {
        Some(r) if !budget.is_zero() => measure(r, budget)?.map(|m| (r, m)),
        _ => None,
    };
    let warm = koth::<F>(main.bots, a.games / 10, max)?;
    let rss_tenth = peak_rss_mib();
    let full = koth::<F>(main.bots, a.games, max)?;
    let rss_full = peak_rss_mib();
    out!(
        "  koth, {max} thread{}: {:>10} games/s, {:>12} decisions/s ({} games in {:.2} s)",
        if max == 1 { "" } else { "s" },
        count(full.games_per_s() as u64),
        count(full.decisions_per_s() as u64),
        count(full.games),
        full.elapsed.as_secs_f64()
    );
    let mut scaling = Vec::new();
    let mut n = 1;
    while n <= max {
        let m = koth::<F>(main.bots, a.games / 4, n)?;
        scaling.push((n, m.games_per_s()));
        n *= 2;
    }
    if scaling.last().map(|s| s.0) != Some(max) {
        let m = koth::<F>(main.bots, a.games / 4, max)?;
        scaling.push((max, m.games_per_s()));
    }
    let one = scaling[0].1;
    for (n, g) in &scaling {
        out!(
            "  koth, {n} thread{}: {:>10} games/s  ({:.2}x one thread)",
            if *n == 1 { " " } else { "s" },
            count(*g as u64),
            g / one
        );
    }
    if let Some((r, (c, played))) = reference {
        out!(
            "  {}: {:>10.0} games/s ({} games, one thread: it has no parallel mode)",
            r.name,
            c,
            count(played)
        );
        out!(
            "  ratio: {:.0}x per core (koth on 1 thread / the crate), {:.0}x on {max} threads",
            one / c,
            full.games_per_s() / c
        );
    }
    out!(
        "  1,000,000 games would take {:.1} s on {max} threads",
        1e6 / full.games_per_s()
    );
    out!(
        "  peak memory: {rss_tenth:.1} MiB after {} games, {rss_full:.1} MiB after {} more",
        count(warm.games),
        count(full.games)
    );

    records::<F>(main, (a.games / 8).max(1), max)?;
    if a.external_games > 0 {
        external::<F>(a.external_games, main.bots.len())?;
    }

    for t in rest {
        out!("\n{}", t.title);
        let m = koth::<F>(t.bots, a.games / 4, max)?;
        out!(
            "  koth, {max} thread{}: {:>10} games/s",
            if max == 1 { "" } else { "s" },
            count(m.games_per_s() as u64)
        );
        if let (Some(r), false) = (t.reference, budget.is_zero()) {
            let Some((c, played)) = measure(r, budget)? else {
                continue;
            };
            out!(
                "  {}: {c:>10.0} games/s ({} games); ratio {:.0}x",
                r.name,
                count(played),
                m.games_per_s() / c
            );
        }
    }
    Ok(())
}

/// The reference engine's rate and games played, or, when it is not there to
/// run, a line saying so and how to get it.
fn measure(r: Reference, budget: Duration) -> Result<Option<(f64, u64)>> {
    match (r.run)(budget) {
        Ok(m) => Ok(Some(m)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            out!("  {}: not measured: {e}", r.name);
            Ok(None)
        }
        Err(e) => Err(e.into()),
    }
}

/// What writing a run (`--out`) costs: the main table with no records, with
/// results and with every choice, written to a scratch folder, and full records on
/// one thread for the scaling with records on; interleaved five times and the best
/// of each kept, as the machine's noise only slows runs down (with three, a busy
/// VM's figures swung by ten points from run to run).
fn records<F: Front>(table: &BenchTable, games: u64, threads: usize) -> Result<()> {
    const ROUNDS: usize = 5;
    let dir = std::env::temp_dir().join(format!("koth-bench-{}", std::process::id()));
    // Index of the full-records run on every thread, which the one-thread run is
    // compared with.
    const FULL: usize = 2;
    let mut runs = vec![
        ("none", RecordLevel::None, threads),
        ("results", RecordLevel::Results, threads),
        ("full", RecordLevel::Full, threads),
    ];
    if threads > 1 {
        runs.push(("full, 1 thread", RecordLevel::Full, 1));
    }
    let mut best = vec![0f64; runs.len()];
    let mut bytes = vec![0u64; runs.len()];
    for _ in 0..ROUNDS {
        for (i, &(_, level, t)) in runs.iter().enumerate() {
            let m = if level == RecordLevel::None {
                koth::<F>(table.bots, games, t)?
            } else {
                let _ = std::fs::remove_dir_all(&dir);
                std::fs::create_dir_all(&dir)?;
                let mut quiet = Quiet;
                let mut w = RecordWriter::append(&dir, &mut quiet)?;
                let m = koth_with::<F>(table.bots, games, t, level, &mut w)?;
                w.flush()?;
                if let Some(e) = w.error.take() {
                    return Err(e.into());
                }
                bytes[i] = w.bytes;
                m
            };
            best[i] = best[i].max(m.games_per_s());
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    out!(
        "\nrecords ({} players, {threads} thread{}, {} games each, best of {ROUNDS}, files in {})",
        number_word(table.bots.len()),
        if threads == 1 { "" } else { "s" },
        count(games),
        std::env::temp_dir().display()
    );
    for (i, &(name, _, t)) in runs.iter().enumerate() {
        let note = if i == 0 {
            String::new()
        } else if t != threads {
            format!(
                "  (full records on {threads} threads: {:.2}x this)",
                best[FULL] / best[i]
            )
        } else {
            format!(
                "  ({:+.1}% of the time, {} bytes a game)",
                (best[0] / best[i] - 1.0) * 100.0,
                count(bytes[i] / games.max(1))
            )
        };
        out!("  {name:<14} {:>10} games/s{note}", count(best[i] as u64));
    }
    Ok(())
}

/// `koth first-legal-bot`: the smallest JSON-lines bot, compiled (it is koth itself),
/// so that `koth bench` measures koth and the pipe rather than an interpreter. With
/// `games` > 1 it says it plays that many games at once and answers every request
/// it has read in one write.
pub fn first_legal_bot(games: usize) -> Result<()> {
    use std::io::{BufRead, Write};
    let mut input = std::io::BufReader::with_capacity(1 << 16, std::io::stdin().lock());
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let ready = if games > 1 {
        format!(r#"{{"type":"ready","name":"first legal","games":{games}}}"#)
    } else {
        r#"{"type":"ready","name":"first legal"}"#.to_string()
    };
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            break;
        }
        if line.starts_with(r#"{"type":"hello""#) {
            writeln!(out, "{ready}")?;
        } else if line.starts_with(r#"{"type":"decide""#) {
            writeln!(out, r#"{{"index":0}}"#)?;
        }
        // Answers wait until every request read so far is answered.
        if input.buffer().is_empty() {
            out.flush()?;
        }
    }
    out.flush()?;
    Ok(())
}

/// User and system CPU time of this process (every thread; the bots are other
/// processes) or of this thread.
fn cpu(who: koth_process::Who) -> (Duration, Duration) {
    let u = koth_process::usage(who);
    (u.user, u.system)
}

fn cpu_since(who: koth_process::Who, (u0, s0): (Duration, Duration)) -> (Duration, Duration) {
    let (u, s) = cpu(who);
    (u - u0, s - s0)
}

/// koth's share of an external decision: six copies of the compiled first-legal bot
/// at one table on one thread, against bare round trips of the same program over
/// the same kind of pipe (same sandbox), measured one after the other.
fn external<F: Front>(games: u64, table: usize) -> Result<()> {
    use koth_arena::{Schedule, Tournament};
    use koth_entrants::{BotEntry, BotSource, Protocol};
    use koth_process::{BotProcess, Command};
    let exe = std::env::current_exe()?;
    // An empty folder of its own (a sandbox copies a bot's folder for it).
    let folder = koth_process::ScratchDir::new("first-legal-bot")?;
    let cmd = Command::new(
        [exe.display().to_string(), "first-legal-bot".to_string()],
        folder.path(),
    );
    // Six copies at one table on one thread: koth's wall and CPU time a decision.
    let play = |at_once: usize, games: u64| -> Result<_> {
        let mut cmd = cmd.clone();
        cmd.program
            .extend(["--games".to_string(), at_once.to_string()]);
        let bots: Vec<BotEntry> = (0..table)
            .map(|i| {
                BotEntry::new(
                    format!("first{i}"),
                    BotSource::Program {
                        command: cmd.program.clone(),
                        dir: cmd.cwd.clone(),
                        env: Vec::new(),
                        limits: cmd.limits.clone(),
                        sandbox: cmd.sandbox,
                        read_only: Vec::new(),
                        protocol: Protocol::Json,
                    },
                )
            })
            .collect();
        let (rules, _) = F::rules(&F::Options::default(), None)?;
        let t = Tournament::<F::Game> {
            rules,
            entrants: koth_entrants::entrants::<F::Game>(&bots, &Default::default())?,
            schedule: Schedule::RandomTables { games, table },
            scoring: F::SCORING,
            seed: 2026,
            threads: 1,
            records: RecordLevel::None,
            duplicate: false,
        };
        let c0 = cpu(koth_process::Who::Process);
        let run = t.run(&mut Quiet);
        let (user, sys) = cpu_since(koth_process::Who::Process, c0);
        let forfeits: u64 = run.standings.entrants.iter().map(|e| e.forfeits).sum();
        if forfeits > 0 {
            bail!("the compiled bot forfeited {forfeits} times: the measurement would be wrong");
        }
        Ok((run, user, sys))
    };
    let (run, koth_user, koth_sys) = play(1, games)?;
    let decisions = run.standings.decisions.max(1) as f64;
    let (many, many_user, many_sys) = play(koth_arena::MAX_TABLES, games * 10)?;
    let many_decisions = many.standings.decisions.max(1) as f64;
    // A decide line of a typical size, sent and answered the same way.
    let line = format!(
        r#"{{"type":"decide","id":1,"events":[],"decision":{{"kind":"action"}},"view":{{"pad":"{}"}},"legal":["pass"]}}"#,
        "x".repeat(400)
    );
    let mut bot = BotProcess::spawn(&cmd)?;
    let n = run.standings.decisions.clamp(1_000, 20_000);
    let timeout = Duration::from_secs(5);
    let t0 = std::time::Instant::now();
    let c0 = cpu(koth_process::Who::Thread);
    for _ in 0..n {
        bot.send_line(&line)?;
        bot.read_line(timeout, 1 << 16)?;
    }
    let (bare_user, bare_sys) = cpu_since(koth_process::Who::Thread, c0);
    let bare_wall = t0.elapsed();
    bot.kill();
    let us = |d: Duration, n: f64| d.as_secs_f64() * 1e6 / n;
    out!(
        "\nexternal decisions ({} copies of a compiled first-legal bot, 1 thread, {} games)",
        number_word(table),
        count(run.standings.games)
    );
    out!(
        "  koth:            {:>6.1} µs wall; CPU {:>5.1} µs user (koth's own work) + {:>5.1} µs system (pipes, waking the bot) a decision; {} decisions, {:.0} games/s",
        us(run.elapsed, decisions),
        us(koth_user, decisions),
        us(koth_sys, decisions),
        count(run.standings.decisions),
        run.standings.games as f64 / run.elapsed.as_secs_f64()
    );
    let n = n as f64;
    out!(
        "  bare round trip: {:>6.1} µs wall; CPU {:>5.1} µs user + {:>5.1} µs system (the same program and pipe, {} lines)",
        us(bare_wall, n),
        us(bare_user, n),
        us(bare_sys, n),
        count(n as u64)
    );
    out!(
        "  {} games at once: {:>6.1} µs wall; CPU {:>5.1} µs user + {:>5.1} µs system a decision; {} decisions, {:.0} games/s ({:.1}x one at a time)",
        koth_arena::MAX_TABLES,
        us(many.elapsed, many_decisions),
        us(many_user, many_decisions),
        us(many_sys, many_decisions),
        count(many.standings.decisions),
        many.standings.games as f64 / many.elapsed.as_secs_f64(),
        (many.standings.games as f64 / many.elapsed.as_secs_f64())
            / (run.standings.games as f64 / run.elapsed.as_secs_f64())
    );
    Ok(())
}
