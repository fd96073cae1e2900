//! `koth samurai`: Ultimate Samurai Showdown (seed 002).

use crate::output;
use crate::run_cmd::{print_forfeits, show_forfeit, Watch};
use crate::runs::{execute, Describe, RunOpts};
use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use koth_arena::{
    Agent, Game, GameRecord, Observer, Progress, RecordLevel, Schedule, Scoring, Tournament,
};
use koth_protocol::config::{
    self, BotEntry, BotSource, GameKind, Protocol, Timeouts, TournamentFile,
};
use koth_samurai::programs::ProgramEntry;
use koth_samurai::{
    narrate_end, narrate_turn_with, program_entrants, Action, ExternalOptions, NoteSink, Rules,
    State, BUILTIN_NAMES,
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
    /// Narrate one duel, turn by turn, with each program's stderr shown as it logs.
    Play(PlayArgs),
    /// A round robin of programs (a list file) and built-ins: the same as
    /// `koth samurai [FILE]`, in the command shape every game shares.
    Run(TournamentArgs),
    /// Put one samurai through every kind of decision (the last turn, honour 0, the
    /// Sword of the Gods...) and report what it does wrong (exit status 1 if anything).
    Check(crate::check_cmd::SamuraiCheckArgs),
    /// List the built-in samurai.
    Bots,
}

/// Options of `koth samurai play`.
#[derive(Args, Debug)]
struct PlayArgs {
    /// The first samurai (called first): a built-in's name (bower), builtin:NAME,
    /// 'cmd:python3 bots/s.py' (a program over the JSON-lines protocol, run in the
    /// folder of its file), 'samurai-cli:python3 old.py' (a program of the original
    /// challenge), NAME=KIND, NAME=human (you, at this terminal), or the name of a
    /// bot in --file.
    a: String,
    /// The second samurai, as the first.
    b: String,
    /// A tournament file whose bots A and B may name.
    #[arg(long, value_name = "FILE")]
    file: Option<PathBuf>,
    /// Time limit per answer for programs, in milliseconds (default 1000, or the file's).
    #[arg(long)]
    timeout_ms: Option<u64>,
    /// Seed of the samurai's randomness (random if left out).
    #[arg(long)]
    seed: Option<u64>,
}

/// Options of a samurai tournament.
#[derive(Args, Debug)]
struct TournamentArgs {
    /// A tournament file (FILE.toml: [tournament] game = "samurai", [[bot]] entries of
    /// any kind, see docs/samurai.md), or a list of programs of the original challenge
    /// (one a line, the name then the command; each runs in the folder of its name
    /// beside the list).
    file: Option<PathBuf>,
    /// A samurai of any kind, repeatable: NAME=builtin:bower, 'NAME=cmd:python3 s.py'
    /// (JSON lines), 'NAME=samurai-cli:python3 old.py' (the original command line).
    #[arg(long = "bot", value_name = "NAME=KIND")]
    bots: Vec<String>,
    /// Add a built-in samurai to the field (repeatable, or comma-separated).
    #[arg(long = "builtin", value_delimiter = ',')]
    builtins: Vec<String>,
    /// Matches each pair plays, alternating who is called first (default 8, or the file's).
    #[arg(long)]
    matches: Option<u64>,
    /// Time limit per answer in milliseconds: from launch for programs of the
    /// original challenge, per decision for JSON-lines programs (default 1000, or the file's).
    #[arg(long)]
    timeout_ms: Option<u64>,
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
    /// Debugging: stop at the first forfeit (after the matches under way) and show
    /// that match, the reason and the program's last stderr lines.
    #[arg(long)]
    stop_on_forfeit: bool,
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
        Some(SamuraiSub::Play(a)) => play(a),
        Some(SamuraiSub::Bots) => {
            for name in BUILTIN_NAMES {
                out!("{name}");
            }
            Ok(())
        }
        Some(SamuraiSub::Run(args)) => tournament(args),
        Some(SamuraiSub::Check(a)) => {
            if !crate::check_cmd::run_samurai(a)? {
                std::process::exit(1);
            }
            Ok(())
        }
        None => {
            if cmd.run.file.is_some() {
                output::old_name("koth samurai FILE", "koth samurai run FILE");
            }
            tournament(cmd.run)
        }
    }
}

/// The samurai a `play` argument names: a kind, a built-in, a person, or a bot of
/// the tournament file.
fn seat_of(arg: &str, file: Option<&TournamentFile>) -> Result<(BotEntry, bool)> {
    if let Some((name, "human")) = arg.split_once('=') {
        let name = name.trim();
        if !name.is_empty() {
            let entry = BotEntry {
                name: name.to_string(),
                source: BotSource::Builtin("human".into()),
            };
            return Ok((entry, true));
        }
    }
    if let Some(b) = file.and_then(|f| f.bots.iter().find(|b| b.name == arg)) {
        return Ok((b.clone(), false));
    }
    Ok((crate::check_cmd::parse_bot(GameKind::Samurai, arg)?, false))
}

fn play(a: PlayArgs) -> Result<()> {
    let file = match &a.file {
        Some(f) => Some(TournamentFile::load_for(GameKind::Samurai, f)?),
        None => None,
    };
    let (mut first, human_a) = seat_of(&a.a, file.as_ref())?;
    let (mut second, human_b) = seat_of(&a.b, file.as_ref())?;
    if human_a && human_b {
        bail!("one human seat per terminal");
    }
    let names = koth_arena::dedup_names(&[first.name.as_str(), second.name.as_str()]);
    first.name = names[0].clone();
    second.name = names[1].clone();
    let mut timeouts = Timeouts::default();
    if let Some(f) = &file {
        timeouts.decision = f.decision_timeout;
        timeouts.startup = f.startup_timeout;
    }
    if let Some(ms) = a.timeout_ms {
        timeouts.decision = Duration::from_millis(ms.max(1));
    }
    let seats = [(first, human_a), (second, human_b)];
    let programs: Vec<BotEntry> = seats
        .iter()
        .filter(|(_, h)| !h)
        .map(|(e, _)| e.clone())
        .collect();
    config::preflight_game::<State>(&programs, timeouts)?;
    let notes: NoteSink = Default::default();
    let mut agents: Vec<Box<dyn Agent<State>>> = Vec::with_capacity(2);
    for (entry, human) in &seats {
        agents.push(if *human {
            Box::new(crate::human::HumanAgent::new())
        } else {
            let made =
                config::samurai_entrants(std::slice::from_ref(entry), timeouts, None, &notes)?;
            (made[0].factory)(0).map_err(|m| anyhow::anyhow!("{m}"))?
        });
    }
    let seed = a.seed.unwrap_or_else(output::fresh_seed);
    let seeds = koth_arena::GameSeeds::of(seed, 0);
    let names = [names[0].as_str(), names[1].as_str()];
    let mut duel = State::new(&Rules::default(), seeds.deal);
    out!(
        "Ultimate Samurai Showdown, seed {seed}: {} vs {}",
        names[0],
        names[1]
    );
    for agent in agents.iter_mut() {
        agent.seat_names(&names);
    }
    let mut logged: [Option<String>; 2] = [None, None];
    let drain = |agents: &mut [Box<dyn Agent<State>>], logged: &mut [Option<String>; 2]| {
        for (s, agent) in agents.iter_mut().enumerate() {
            if let Some(text) = agent.take_log() {
                crate::coup_cmd::show_log(names[s], &text, &mut logged[s]);
            }
        }
    };
    for (s, agent) in agents.iter_mut().enumerate() {
        if let Err(f) = agent.start(&duel, s, seeds.seat(s)) {
            crate::coup_cmd::show_fault(names[s], &f, logged[s].as_deref());
            duel.forfeit(s);
        }
    }
    let mut legal = Vec::new();
    let mut shown = 0;
    let mut noted = 0;
    while let Some(seat) = duel.to_move() {
        legal.clear();
        duel.legal_choices(&mut legal);
        let answer = agents[seat].decide(&duel, seat, &legal);
        drain(&mut agents, &mut logged);
        // A program of the original challenge that misbehaves plays W: say why.
        if let Ok(n) = notes.lock() {
            for note in &n[noted..] {
                out!(
                    "{}",
                    crate::coup_cmd::paint(
                        &format!("{} plays W: {}", note.program, note.reason),
                        owo_colors::Style::new().red()
                    )
                );
            }
            noted = n.len();
        }
        match answer {
            Ok(c) if legal.contains(&c) => duel.apply(c)?,
            Ok(c) => {
                out!("{} answered an illegal move {c} and forfeits", names[seat]);
                duel.forfeit(seat);
            }
            Err(f) => {
                crate::coup_cmd::show_fault(names[seat], &f, logged[seat].as_deref());
                duel.forfeit(seat);
            }
        }
        for t in &duel.log()[shown..] {
            out!("{}", narrate_turn_with(t, names));
        }
        shown = duel.log().len();
    }
    for (s, agent) in agents.iter_mut().enumerate() {
        agent.finish(&duel, s);
    }
    if !programs.is_empty() {
        // What the programs log on `end` comes a moment later.
        std::thread::sleep(Duration::from_millis(50));
    }
    drain(&mut agents, &mut logged);
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
    watch: Watch<Action>,
}

impl Observer<Action> for Archive {
    fn on_record(&mut self, r: &GameRecord<Action>) {
        self.watch.on_record(r);
        let Some(f) = self.file.as_mut() else { return };
        // Replaying the recorded choices gives each samurai's recorded history.
        let mut duel = State::new(&self.rules, r.seed);
        for c in r.choices.iter().flatten() {
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
        self.watch.on_progress(p);
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

/// The field of a run: programs of a list file, and bots of any kind (a tournament
/// file's, `--bot`s and `--builtin`s).
struct Field {
    programs: Vec<ProgramEntry>,
    bots: Vec<BotEntry>,
    /// The tournament file, when FILE is one.
    file: Option<TournamentFile>,
}

fn field_of(a: &TournamentArgs) -> Result<Field> {
    let mut field = Field {
        programs: Vec::new(),
        bots: Vec::new(),
        file: None,
    };
    if let Some(f) = &a.file {
        output::check_not_a_typo(f, "koth samurai", &["play", "run", "check", "bots"])?;
    }
    match &a.file {
        Some(f) if f.extension().is_some_and(|e| e == "toml") => {
            let t = TournamentFile::load_for(GameKind::Samurai, f)?;
            field.bots = t.bots.clone();
            field.file = Some(t);
        }
        Some(f) => field.programs = koth_samurai::programs::load_programs(f)?,
        None => {}
    }
    for b in &a.bots {
        let mut entry = config::parse_bot_arg_for(GameKind::Samurai, b)?;
        if let BotSource::Program { sandbox, .. } = &mut entry.source {
            *sandbox = a.sandbox;
        }
        field.bots.push(entry);
    }
    let mut builtins = a.builtins.clone();
    if a.file.is_none() && a.bots.is_empty() && builtins.is_empty() {
        builtins = BUILTIN_NAMES.iter().map(|s| s.to_string()).collect();
    }
    for b in &builtins {
        if !GameKind::Samurai.has_builtin(b) {
            bail!(
                "no built-in samurai named {b:?}; the built-ins are {}",
                BUILTIN_NAMES.join(", ")
            );
        }
    }
    let taken: Vec<String> = field
        .programs
        .iter()
        .map(|p| p.name.clone())
        .chain(field.bots.iter().map(|b| b.name.clone()))
        .collect();
    // Built-ins take unique names: bower, bower 2... after the named bots.
    let all: Vec<String> = taken
        .iter()
        .cloned()
        .chain(builtins.iter().cloned())
        .collect();
    let names = koth_arena::dedup_names(&all);
    for (b, name) in builtins.iter().zip(&names[taken.len()..]) {
        field.bots.push(BotEntry {
            name: name.clone(),
            source: BotSource::Builtin(b.clone()),
        });
    }
    Ok(field)
}

fn tournament(a: TournamentArgs) -> Result<()> {
    output::check_summary_path(a.summary_json.as_deref())?;
    let Field {
        programs,
        bots,
        file,
    } = field_of(&a)?;
    let decision = a
        .timeout_ms
        .map(Duration::from_millis)
        .or(file.as_ref().map(|f| f.decision_timeout))
        .unwrap_or(Duration::from_millis(1000))
        .max(Duration::from_millis(1));
    let timeouts = Timeouts {
        decision,
        game: file.as_ref().and_then(|f| f.game_timeout),
        startup: file
            .as_ref()
            .map_or(Duration::from_secs(10), |f| f.startup_timeout),
    };
    let mut options = ExternalOptions {
        timeout: decision,
        sandbox: a.sandbox,
        ..Default::default()
    };
    let sink: NoteSink = Default::default();
    let file_seed = file.as_ref().and_then(|f| f.seed);
    let seed = a
        .run
        .resumed_seed(a.seed.or(file_seed))?
        .or(a.seed.or(file_seed))
        .unwrap_or_else(output::fresh_seed);
    let mut opts = a.run.clone();
    // A list's programs sit in folders beside it, so its run folder can too; a
    // tournament file's bots may run in its own folder, so it gets none by default.
    if let (Some(path), None, None) = (&a.file, &opts.out, &file) {
        let base = path.parent().unwrap_or(std::path::Path::new("."));
        opts.out = Some(base.join("koth-samurai-out").join(format!("seed-{seed}")));
    }
    // Every program, of either protocol and either source, as (name, folder).
    let folders: Vec<(&str, &std::path::Path)> = programs
        .iter()
        .map(|p| (p.name.as_str(), p.dir.as_path()))
        .chain(bots.iter().filter_map(|b| match &b.source {
            BotSource::Program { dir, .. } => Some((b.name.as_str(), dir.as_path())),
            BotSource::Builtin(_) => None,
        }))
        .collect();
    if let Some(out) = &opts.out {
        config::check_out_dir_of(folders.iter().copied(), out)?;
    }
    // Programs run from copies of their folders, kept with the run's files.
    let copies = match &opts.out {
        Some(out) => koth_process::Workspace::new(Some(&out.join("folders"))),
        None => koth_process::Workspace::new(None),
    }
    .map_err(|e| anyhow::anyhow!("cannot make the programs' working folders: {e}"))?;
    options.workspace = Some(copies.clone());
    // Programs of the original protocol: started once to time their start-up.
    let originals: Vec<ProgramEntry> = programs
        .iter()
        .cloned()
        .chain(bots.iter().filter_map(|b| match &b.source {
            BotSource::Program {
                command,
                dir,
                protocol: Protocol::SamuraiCli,
                ..
            } => Some(ProgramEntry {
                name: b.name.clone(),
                command: command.clone(),
                dir: dir.clone(),
                line: 0,
            }),
            _ => None,
        }))
        .collect();
    warn_slow_starts(&originals, &options)?;
    // JSON-lines programs start and greet before the first match, or nothing runs.
    config::preflight_game::<State>(&bots, timeouts)?;
    let sandboxes: Vec<(&str, koth_process::Sandbox)> = programs
        .iter()
        .map(|p| (p.name.as_str(), options.sandbox))
        .chain(bots.iter().filter_map(|b| match &b.source {
            BotSource::Program { sandbox, .. } => Some((b.name.as_str(), *sandbox)),
            BotSource::Builtin(_) => None,
        }))
        .collect();
    let external = sandboxes.len();
    let isolation = output::isolation_lines(sandboxes.iter().copied());
    if external > 0 && !a.quiet {
        eprintln!("{isolation}");
    }
    let mut field = program_entrants(&programs, &options, &sink);
    field.extend(config::samurai_entrants(
        &bots,
        timeouts,
        Some(copies),
        &sink,
    )?);
    let specs: Vec<serde_json::Value> = programs
        .iter()
        .map(|p| serde_json::json!({ "command": p.command, "dir": p.dir, "protocol": "samurai-cli" }))
        .chain(bots.iter().map(BotEntry::spec_json))
        .collect();
    let out_dir = opts.out.clone();
    let names: Vec<String> = field.iter().map(|e| e.name.clone()).collect();
    for (i, n) in names.iter().enumerate() {
        if names[..i].contains(n) {
            bail!("two samurai are named {n:?}\n  fix: give each its own name");
        }
    }
    if field.len() < 2 {
        bail!(
            "a round robin needs at least 2 samurai, got {}",
            field.len()
        );
    }
    let matches = a
        .matches
        .or(file.as_ref().and_then(|f| f.matches))
        .unwrap_or(8);
    if matches == 0 {
        bail!("--matches must be at least 1");
    }
    let threads = output::threads(a.threads.or(file.as_ref().and_then(|f| f.threads)));
    let summary_json = a
        .summary_json
        .clone()
        .or(file.as_ref().and_then(|f| f.summary_json.clone()));
    output::check_summary_path(summary_json.as_deref())?;
    let mut t = Tournament {
        rules: Rules::default(),
        entrants: field,
        schedule: Schedule::RoundRobin {
            games_per_pair: matches,
        },
        scoring: Scoring::SharedPoint,
        seed,
        threads,
        records: RecordLevel::None,
        duplicate: false,
    };
    if a.stop_on_forfeit {
        // Keep every choice, so the match can be shown.
        t.records = RecordLevel::Full;
    }
    let total = t.total_games();
    eprintln!(
        "Ultimate Samurai Showdown: {} samurai ({external} external), {matches} matches a pair, {total} matches, seed {seed}",
        t.entrants.len(),
    );
    let matches_file = match &out_dir {
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
        file: matches_file,
        names: names.clone(),
        rules: Rules::default(),
        watch: Watch::new(total, a.quiet, a.stop_on_forfeit),
    };
    let describe = Describe {
        game: "samurai",
        runner: "samurai",
        specs,
    };
    let summary = execute(&mut t, describe, &opts, &mut archive)?;
    archive.watch.bar.finish();
    if let Some(f) = archive.file.as_mut() {
        f.flush()?;
    }
    // Stop the programs before printing.
    drop(t.entrants);
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
        summary_json: summary_json.as_deref(),
        out_dir: out_dir.as_deref(),
    }
    .print(&summary)?;
    if bots.iter().any(|b| {
        matches!(
            b.source,
            BotSource::Program {
                protocol: Protocol::Json,
                ..
            }
        )
    }) {
        // JSON-lines programs forfeit a match on a crash, a time-out or garbage.
        print_forfeits(&archive.watch.forfeits, &summary.standings);
    }
    crate::run_cmd::show_stops(&summary, &opts)?;
    if let Some(rec) = &archive.watch.first_forfeit {
        show_forfeit(rec, &summary.standings, |names| {
            let names = [names[0].as_str(), names[1].as_str()];
            let mut duel = State::new(&Rules::default(), rec.seed);
            for c in rec.choices.iter().flatten() {
                let shown = duel.log().len();
                if duel.apply(c).is_err() {
                    break;
                }
                for t in &duel.log()[shown..] {
                    out!("{}", narrate_turn_with(t, names));
                }
            }
            Ok(())
        })?;
    }
    Ok(())
}
