//! `koth samurai`: Ultimate Samurai Showdown (seed 002).

use crate::output::{self, Bar};
use crate::runs::{execute, Describe, RunOpts};
use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use koth_arena::{
    Agent, Game, GameRecord, Observer, Progress, RecordLevel, Schedule, Scoring, Tournament,
};
use koth_samurai::{
    builtin, entrants, narrate_end, narrate_turn_with, program_entrants, Action, ExternalOptions,
    NoteSink, Rules, SamuraiAgent, State, BUILTIN_NAMES,
};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

/// Ultimate Samurai Showdown: a round robin of programs and built-in samurai.
#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct SamuraiCmd {
    #[command(subcommand)]
    sub: Option<SamuraiSub>,
    #[command(flatten)]
    run: TournamentArgs,
}

#[derive(Subcommand, Debug)]
enum SamuraiSub {
    /// Narrate one duel between two built-in samurai, turn by turn.
    Play {
        /// The first samurai (called first).
        a: String,
        /// The second samurai.
        b: String,
        /// Seed of the samurai's randomness (random if left out).
        #[arg(long)]
        seed: Option<u64>,
    },
    /// A round robin of programs (a list file) and built-ins: the same as
    /// `koth samurai [FILE]`, in the command shape every game shares.
    Run(TournamentArgs),
    /// List the built-in samurai.
    Bots,
}

/// Options of a samurai tournament.
#[derive(Args, Debug)]
struct TournamentArgs {
    /// The list of programs: one a line, the name then the command; each program runs
    /// in the folder of its name beside the list.
    file: Option<PathBuf>,
    /// Add a built-in samurai to the field (repeatable, or comma-separated).
    #[arg(long = "builtin", value_delimiter = ',')]
    builtins: Vec<String>,
    /// Matches each pair plays, alternating who is called first.
    #[arg(long, default_value_t = 8)]
    matches: u64,
    /// Time limit per answer, from launch, in milliseconds.
    #[arg(long, default_value_t = 1000)]
    timeout_ms: u64,
    /// Worker threads (default: every core).
    #[arg(long)]
    threads: Option<usize>,
    /// Master seed (random if left out).
    #[arg(long)]
    seed: Option<u64>,
    /// Write the leaderboard as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    summary_json: Option<PathBuf>,
    /// Isolation of the programs: `auto` (all this machine can give), `required`
    /// (refuse to run without namespaces), `off` (trusted programs, faster starts).
    #[arg(long, value_name = "MODE", default_value = "auto", value_parser = output::parse_sandbox)]
    sandbox: koth_process::Sandbox,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
    /// The run's folder (default with a list: koth-samurai-out/seed-S beside it) holds every
    /// match's record, matches.txt with the move histories, and summary.json.
    #[command(flatten)]
    run: RunOpts,
}

/// Runs `koth samurai`.
pub fn run(cmd: SamuraiCmd) -> Result<()> {
    match cmd.sub {
        Some(SamuraiSub::Play { a, b, seed }) => play(&a, &b, seed),
        Some(SamuraiSub::Bots) => {
            for name in BUILTIN_NAMES {
                out!("{name}");
            }
            Ok(())
        }
        Some(SamuraiSub::Run(args)) => tournament(args),
        None => tournament(cmd.run),
    }
}

fn play(a: &str, b: &str, seed: Option<u64>) -> Result<()> {
    let seed = seed.unwrap_or_else(output::fresh_seed);
    let make = |n: &str| {
        builtin(n).ok_or_else(|| {
            anyhow::anyhow!(
                "no built-in samurai {n:?}: the built-ins are {}",
                BUILTIN_NAMES.join(", ")
            )
        })
    };
    let mut agents = [SamuraiAgent::new(make(a)?), SamuraiAgent::new(make(b)?)];
    let names = koth_arena::runner::dedup_names(&[a, b]);
    let names = [names[0].as_str(), names[1].as_str()];
    let seeds = koth_arena::GameSeeds::of(seed, 0);
    let mut duel = State::new(&Rules::default(), seeds.deal);
    out!(
        "Ultimate Samurai Showdown, seed {seed}: {} vs {}",
        names[0],
        names[1]
    );
    for (s, agent) in agents.iter_mut().enumerate() {
        agent.start(&duel, s, seeds.seat(s)).ok();
    }
    let mut legal = Vec::new();
    let mut shown = 0;
    while let Some(seat) = duel.to_move() {
        legal.clear();
        duel.legal_choices(&mut legal);
        match agents[seat].decide(&duel, seat, &legal) {
            Ok(c) if legal.contains(&c) => duel.apply(c)?,
            _ => duel.forfeit(seat),
        }
        for t in &duel.log()[shown..] {
            out!("{}", narrate_turn_with(t, names));
        }
        shown = duel.log().len();
    }
    if let Some(end) = narrate_end(&duel, names) {
        out!("{end}");
    }
    Ok(())
}

/// Collects each match's histories into a file as the records arrive, in order.
struct Archive {
    file: Option<std::io::BufWriter<std::fs::File>>,
    names: Vec<String>,
    rules: Rules,
    bar: Bar,
}

impl Observer<Action> for Archive {
    fn on_record(&mut self, r: &GameRecord<Action>) {
        let Some(f) = self.file.as_mut() else { return };
        // Replaying the recorded choices gives each samurai's recorded history.
        let mut duel = State::new(&self.rules, r.seed);
        for &c in r.choices.iter().flatten() {
            if duel.apply(c).is_err() {
                break;
            }
        }
        let h = |s: usize| {
            duel.samurai(s)
                .history
                .iter()
                .map(|a| a.to_char())
                .collect::<String>()
        };
        let result = match r.outcome.winners.len() {
            1 => format!(
                "{} wins",
                self.names[r.seats[r.outcome.winners.iter().next().unwrap_or(0)]]
            ),
            _ => "draw".into(),
        };
        let _ = writeln!(
            f,
            "match {} seed {}: {} vs {}: {} after {} turns\n  {:<20} {}\n  {:<20} {}",
            r.index,
            r.seed,
            self.names[r.seats[0]],
            self.names[r.seats[1]],
            result,
            r.outcome.turns,
            self.names[r.seats[0]],
            h(0),
            self.names[r.seats[1]],
            h(1)
        );
    }
    fn on_progress(&mut self, p: &Progress<'_>) {
        <Bar as Observer<Action>>::on_progress(&mut self.bar, p);
    }
}

/// Start-up counts against the time limit: says which programs use a large share
/// of it on this machine before any match is played.
fn warn_slow_starts(
    programs: &[koth_samurai::programs::ProgramEntry],
    options: &ExternalOptions,
) -> Result<()> {
    let limit = options.timeout;
    for p in programs {
        let cmd = koth_process::Command::new(p.command.clone(), p.dir.clone())
            .with_sandbox(options.sandbox);
        if let Err(e) = cmd.check() {
            bail!(
                "program {:?} (line {} of the list) cannot start: {e}\n  fix: correct its command or folder, or install its interpreter",
                p.name,
                p.line
            );
        }
        match koth_samurai::startup_time(p, options, 3) {
            Ok(t) if t * 4 > limit => eprintln!(
                "warning: {} takes {} ms to answer a first turn on this machine ({}% of the {} ms limit, median of 3); \
under load it may miss the limit and play W: raise --timeout-ms",
                p.name,
                t.as_millis(),
                t.as_millis() * 100 / limit.as_millis().max(1),
                limit.as_millis()
            ),
            Ok(_) => {}
            Err(e) => eprintln!("warning: {}: {e}", p.name),
        }
    }
    Ok(())
}

fn tournament(a: TournamentArgs) -> Result<()> {
    output::check_summary_path(a.summary_json.as_deref())?;
    let mut options = ExternalOptions {
        timeout: Duration::from_millis(a.timeout_ms.max(1)),
        sandbox: a.sandbox,
        ..Default::default()
    };
    let sink: NoteSink = Default::default();
    let mut field = Vec::new();
    let mut specs = Vec::new();
    let seed = a
        .run
        .resumed_seed(a.seed)?
        .or(a.seed)
        .unwrap_or_else(output::fresh_seed);
    let mut opts = a.run.clone();
    if let Some(file) = &a.file {
        let programs = koth_samurai::programs::load_programs(file)?;
        if opts.out.is_none() {
            let base = file.parent().unwrap_or(std::path::Path::new("."));
            opts.out = Some(base.join("koth-samurai-out").join(format!("seed-{seed}")));
        }
        if let Some(out) = &opts.out {
            koth_protocol::config::check_out_dir_of(
                programs.iter().map(|p| (p.name.as_str(), p.dir.as_path())),
                out,
            )?;
            // Programs run from copies of their folders, kept with the run's files.
            let folders = out.join("folders");
            options.workspace = Some(
                koth_process::Workspace::new(Some(&folders))
                    .with_context(|| format!("cannot create {}", folders.display()))?,
            );
        }
        warn_slow_starts(&programs, &options)?;
        if !a.quiet {
            eprintln!(
                "{}",
                output::isolation_lines(
                    programs.iter().map(|p| (p.name.as_str(), options.sandbox))
                )
            );
        }
        field.extend(program_entrants(&programs, &options, &sink));
        specs.extend(
            programs
                .iter()
                .map(|p| serde_json::json!({ "command": p.command, "dir": p.dir })),
        );
    }
    let mut builtins = a.builtins.clone();
    if a.file.is_none() && builtins.is_empty() {
        builtins = BUILTIN_NAMES.iter().map(|s| s.to_string()).collect();
    }
    if !builtins.is_empty() {
        field.extend(entrants(&builtins).map_err(anyhow::Error::msg)?);
        specs.extend(builtins.iter().map(|b| serde_json::json!({ "builtin": b })));
    }
    let out_dir = opts.out.clone();
    let names =
        koth_arena::runner::dedup_names(&field.iter().map(|e| e.name.clone()).collect::<Vec<_>>());
    for (e, n) in field.iter_mut().zip(&names) {
        e.name = n.clone();
    }
    if field.len() < 2 {
        bail!(
            "a round robin needs at least 2 samurai, got {}",
            field.len()
        );
    }
    if a.matches == 0 {
        bail!("--matches must be at least 1");
    }
    let threads = output::threads(a.threads);
    let mut t = Tournament {
        rules: Rules::default(),
        entrants: field,
        schedule: Schedule::RoundRobin {
            games_per_pair: a.matches,
        },
        scoring: Scoring::SharedPoint,
        seed,
        threads,
        records: RecordLevel::None,
        duplicate: false,
    };
    let total = t.total_games();
    eprintln!(
        "Ultimate Samurai Showdown: {} samurai, {} matches a pair, {total} matches, seed {seed}",
        t.entrants.len(),
        a.matches
    );
    let file = match &out_dir {
        Some(d) => {
            std::fs::create_dir_all(d).with_context(|| format!("cannot create {}", d.display()))?;
            let path = d.join("matches.txt");
            let f = std::fs::OpenOptions::new()
                .create(true)
                .append(opts.resume)
                .write(true)
                .truncate(!opts.resume)
                .open(&path)
                .with_context(|| format!("cannot write {}", path.display()))?;
            Some(std::io::BufWriter::new(f))
        }
        None => None,
    };
    let mut archive = Archive {
        file,
        names: names.clone(),
        rules: Rules::default(),
        bar: Bar::new(total, a.quiet),
    };
    let describe = Describe {
        game: "samurai",
        runner: "samurai",
        specs,
    };
    let summary = execute(&mut t, describe, &opts, &mut archive)?;
    archive.bar.finish();
    if let Some(f) = archive.file.as_mut() {
        f.flush()?;
    }
    let notes = sink.lock().map(|n| n.clone()).unwrap_or_default();
    if !notes.is_empty() {
        let mut by: BTreeMap<(String, String), usize> = BTreeMap::new();
        for n in &notes {
            *by.entry((n.program.clone(), n.reason.clone())).or_default() += 1;
        }
        out!("answers recorded as W:");
        for ((p, why), k) in by {
            out!("  {p}: {k} × {why}");
        }
    }
    if let Some(d) = &out_dir {
        out!(
            "move histories of every match: {}",
            d.join("matches.txt").display()
        );
    }
    output::Finish {
        game: "samurai",
        rules: &t.rules,
        schedule: &t.schedule,
        scoring: t.scoring,
        seed,
        threads,
        summary_json: a.summary_json.as_deref(),
        out_dir: out_dir.as_deref(),
    }
    .print(&summary)
}
