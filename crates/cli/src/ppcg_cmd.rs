//! `koth ppcg`: the two-player Coup challenge of seed 000, running the original
//! programs unchanged through the history-file protocol.

use crate::output;
use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use koth_arena::programs;
use koth_ppcg::{default_out_dir, entrants, tournament, PpcgOptions};
use koth_protocol::config::{BotEntry, TournamentFile};
use std::path::PathBuf;
use std::time::Duration;

/// `koth ppcg`: a run of the challenge, or one of its subcommands.
#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct PpcgCmd {
    #[command(subcommand)]
    sub: Option<PpcgSub>,
    #[command(flatten)]
    run: PpcgArgs,
}

#[derive(clap::Subcommand, Debug)]
enum PpcgSub {
    /// Run the programs of a list (the same as `koth ppcg LIST`, in the command shape
    /// every game shares).
    Run(PpcgArgs),
    /// Narrate one game between two bots: programs of a list, commands, built-ins.
    Play(PpcgPlayArgs),
    /// Put one program through every kind of decision, against built-in bots, and
    /// report what it does wrong (exit status 1 if anything).
    Check(PpcgCheckArgs),
    /// List the built-in bots that may join (`--builtin`).
    Bots,
}

/// Options of `koth ppcg play`.
#[derive(Args, Debug)]
pub struct PpcgPlayArgs {
    /// The first player: a program of --list by name, a command ('python3 bot.py'
    /// or ppcg:COMMAND, run in the folder of its file), cmd:COMMAND (a JSON-lines
    /// bot), a built-in (honest, builtin:honest), or NAME=human (you, at this terminal).
    pub a: String,
    /// The second player, as the first.
    pub b: String,
    /// The program list whose names A and B may be.
    #[arg(long, value_name = "LIST")]
    pub list: Option<PathBuf>,
    /// Seed of the deal (random if left out).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Time limit of one invocation, in milliseconds.
    #[arg(long, default_value_t = 10_000)]
    pub timeout_ms: u64,
    /// Forfeit anything but exactly one legal move.
    #[arg(long)]
    pub strict: bool,
}

/// Runs `koth ppcg play`.
fn play(a: PpcgPlayArgs) -> Result<()> {
    use koth_protocol::config::{self, BotSource, GameKind, Protocol};
    let list = match &a.list {
        Some(l) => programs::load(l).map_err(|e| anyhow!("{e}"))?,
        None => Vec::new(),
    };
    let timeout = Duration::from_millis(a.timeout_ms.max(1));
    let run = koth_ppcg::RunOptions {
        timeout,
        strict: a.strict,
    };
    let workspace = koth_process::Workspace::new(None)?;
    let seat = |arg: &str| -> Result<(String, Box<dyn koth_arena::Agent<koth_ppcg::PpcgGame>>)> {
        if let Some((name, "human")) = arg.split_once('=') {
            let agent = koth_ppcg::Lifted(Box::new(crate::human::HumanAgent::new()));
            return Ok((name.trim().to_string(), Box::new(agent)));
        }
        if let Some(p) = list.iter().find(|p| p.name == arg) {
            let cmd = koth_process::Command::new(p.command.clone(), koth_process::absolute(&p.dir));
            let agent = koth_ppcg::PpcgAgent::new(p.name.clone(), cmd, run.clone())
                .with_copies(workspace.clone(), 0);
            return Ok((p.name.clone(), Box::new(agent)));
        }
        let mut entry = crate::check_cmd::parse_bot(GameKind::Coup, arg)?;
        // A bare command is a program of the challenge here.
        if let BotSource::Program { protocol, .. } = &mut entry.source {
            if !arg.contains("cmd:") && !arg.contains("coup-cli:") {
                *protocol = Protocol::Ppcg;
            }
        }
        match &entry.source {
            source @ BotSource::Program {
                protocol: Protocol::Ppcg,
                ..
            } => {
                let cmd = source.command().expect("a program");
                if let Err(e) = cmd.check() {
                    bail!("{arg} cannot start: {e}");
                }
                let agent = koth_ppcg::PpcgAgent::new(entry.name.clone(), cmd, run.clone())
                    .with_copies(workspace.clone(), 0);
                Ok((entry.name.clone(), Box::new(agent)))
            }
            _ => {
                let timeouts = config::Timeouts {
                    decision: timeout,
                    ..Default::default()
                };
                config::preflight(std::slice::from_ref(&entry), timeouts)?;
                let made = config::coup_entrants(std::slice::from_ref(&entry), timeouts, None)?;
                let agent = (made[0].factory)(0).map_err(|m| anyhow!("{m}"))?;
                Ok((entry.name.clone(), Box::new(koth_ppcg::Lifted(agent))))
            }
        }
    };
    // A person sees only their own cards.
    let hide = [&a.a, &a.b].iter().any(|x| x.ends_with("=human"));
    let (na, mut pa) = seat(&a.a)?;
    let (nb, mut pb) = seat(&a.b)?;
    let names = koth_arena::dedup_names(&[na, nb]);
    let seed = a.seed.unwrap_or_else(output::fresh_seed);
    let scratch = koth_process::ScratchDir::new("ppcg-play")?;
    let mut game = koth_ppcg::PpcgGame::standalone(
        koth_coup::Rules::ppcg(),
        koth_arena::GameSeeds::of(seed, 0).deal,
        [names[0].as_str(), names[1].as_str()],
        scratch.path().to_path_buf(),
        "game",
    );
    out!(
        "Coup, the two-player challenge, seed {seed}: {} (first) vs {}",
        names[0],
        names[1]
    );
    let seeds = koth_arena::GameSeeds::of(seed, 0);
    let refs = [names[0].as_str(), names[1].as_str()];
    let mut agents: [&mut dyn koth_arena::Agent<koth_ppcg::PpcgGame>; 2] =
        [pa.as_mut(), pb.as_mut()];
    for (s, agent) in agents.iter_mut().enumerate() {
        agent.seat_names(&refs);
        if let Err(f) = agent.start(&game, s, seeds.seat(s)) {
            crate::coup_cmd::show_fault(&names[s], &f, None);
            koth_arena::Game::forfeit(&mut game, s);
        }
    }
    let (mut shown, mut last, mut quiet) = (0, String::new(), Vec::new());
    let mut logged: [Option<String>; 2] = [None, None];
    let mut legal = Vec::new();
    while let Some(s) = koth_arena::Game::to_move(&game) {
        legal.clear();
        koth_arena::Game::legal_choices(&game, &mut legal);
        let answer = agents[s].decide(&game, s, &legal);
        for (k, agent) in agents.iter_mut().enumerate() {
            if let Some(text) = agent.take_log() {
                crate::coup_cmd::flush_quiet(&mut quiet);
                crate::coup_cmd::show_log(&names[k], &text, &mut logged[k]);
            }
        }
        match answer {
            Ok(c) if legal.contains(&c) && koth_arena::Game::apply(&mut game, c).is_ok() => {}
            Ok(c) => {
                out!("{} answered an illegal choice {c:?} and forfeits", names[s]);
                koth_arena::Game::forfeit(&mut game, s);
            }
            Err(f) => {
                crate::coup_cmd::show_fault(&names[s], &f, logged[s].as_deref());
                koth_arena::Game::forfeit(&mut game, s);
            }
        }
        shown = crate::coup_cmd::narrate(game.state(), &names, shown, hide, &mut last, &mut quiet);
    }
    for (s, agent) in agents.iter_mut().enumerate() {
        agent.finish(&game, s);
    }
    crate::coup_cmd::flush_quiet(&mut quiet);
    match koth_arena::Game::outcome(&game) {
        Some(o) if o.winners.len() == 1 => {
            out!("\nWinner: {}", names[o.winners.iter().next().unwrap_or(0)])
        }
        _ => out!("\nNo winner: the invocation cap was reached"),
    }
    out!(
        "\nthe history file:\n{}",
        game.history().canonical().trim_end()
    );
    Ok(())
}

/// Options of `koth ppcg check`.
#[derive(Args, Debug)]
pub struct PpcgCheckArgs {
    /// The program's command ('python3 bots/me/bot.py'), run in the folder of its
    /// file from a scratch copy, as in a tournament.
    pub bot: String,
    /// Games to play (seats alternate, opponents vary; each move is a launch).
    #[arg(long, default_value_t = 30)]
    pub games: u64,
    /// Seed of the deals and opponents.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Time limit of one invocation, in milliseconds (answers over half of it are slow).
    #[arg(long, default_value_t = 10_000)]
    pub timeout_ms: u64,
    /// Forfeit anything but exactly one legal move (as `koth ppcg --strict`).
    #[arg(long)]
    pub strict: bool,
    /// Narrate only check game G (the command each defect names).
    #[arg(long, value_name = "G")]
    pub game: Option<u64>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Runs `koth ppcg check`; `Ok(false)` when the program has a defect.
fn check(a: PpcgCheckArgs) -> Result<bool> {
    use koth_ppcg::check::{self as pc, CheckOptions};
    use koth_protocol::config::GameKind;
    if a.games == 0 {
        bail!("--games must be at least 1");
    }
    let spec = if a.bot.starts_with("ppcg:") || a.bot.contains("=ppcg:") {
        a.bot.clone()
    } else {
        format!("ppcg:{}", a.bot)
    };
    let entry = crate::check_cmd::parse_bot(GameKind::Coup, &spec)?;
    let Some(cmd) = entry.source.command() else {
        bail!("{:?} is not a program", a.bot);
    };
    if let Err(e) = cmd.check() {
        bail!(
            "{} cannot start: {e}\n  fix: correct the command, or install its interpreter",
            a.bot
        );
    }
    let scratch = koth_process::ScratchDir::new("ppcg-check-files")?;
    let workspace = koth_process::Workspace::new(None)?;
    let timeout = Duration::from_millis(a.timeout_ms.max(1));
    let mut agent = koth_ppcg::PpcgAgent::new(
        entry.name.clone(),
        cmd,
        koth_ppcg::RunOptions {
            timeout,
            strict: a.strict,
        },
    )
    .with_copies(workspace, 0);
    let opts = CheckOptions {
        games: a.games,
        slow: timeout / 2,
        ..CheckOptions::new(a.seed)
    };
    let mut repro = format!("koth ppcg check {}", koth_process::shell_word(&a.bot));
    if a.strict {
        repro += " --strict";
    }
    if a.timeout_ms != 10_000 {
        repro += &format!(" --timeout-ms {}", a.timeout_ms);
    }
    repro += &format!(" --seed {}", a.seed);
    if let Some(g) = a.game {
        let (seat, opponent, _) = pc::check_game(a.seed, g);
        let mut names = vec![opponent.to_string(), opponent.to_string()];
        names[seat] = entry.name.clone();
        out!(
            "Check game {g} (seed {}): {} against {opponent}, {} asked {}",
            a.seed,
            entry.name,
            entry.name,
            if seat == 0 { "first" } else { "second" }
        );
        let mut report = koth_arena::check::CheckReport::new(&pc::KINDS, opts.slow);
        let (mut shown, mut last, mut quiet) = (0, String::new(), Vec::new());
        let mut end = None;
        pc::play_check_game(
            &mut agent,
            &entry.name,
            &opts,
            g,
            scratch.path(),
            &mut report,
            &mut |game, step| {
                match step {
                    pc::Step::Applied => {
                        shown = crate::coup_cmd::narrate(
                            game.state(),
                            &names,
                            shown,
                            false,
                            &mut last,
                            &mut quiet,
                        );
                    }
                    pc::Step::Fault(f) => crate::coup_cmd::show_fault(&entry.name, f, None),
                }
                if koth_arena::Game::outcome(game).is_some() {
                    end = Some(game.history().canonical().to_string());
                }
            },
        );
        if let Some(file) = end {
            out!("\nthe history file at the end:\n{}", file.trim_end());
        }
        for f in &report.findings {
            out!("✗ {}: {}", f.kind, f.reason);
        }
        return Ok(report.passed());
    }
    eprintln!(
        "Checking {} ({}) at the two-player challenge: {} games from seed {}, {} ms an invocation{}",
        entry.name,
        entry
            .source
            .command()
            .map(|c| c.program.join(" "))
            .unwrap_or_default(),
        a.games,
        a.seed,
        timeout.as_millis(),
        if a.strict { ", strict" } else { "" }
    );
    let bar = output::Bar::new(a.games, a.quiet);
    let report = pc::check(&mut agent, &entry.name, &opts, |n| bar.set_position(n))?;
    bar.finish();
    crate::check_cmd::print_report(&report, &entry.name, &repro);
    Ok(report.passed())
}

/// Runs a `koth ppcg` command.
pub fn run_cmd(cmd: PpcgCmd) -> Result<()> {
    match cmd.sub {
        Some(PpcgSub::Run(a)) => run(a),
        Some(PpcgSub::Play(a)) => play(a),
        Some(PpcgSub::Check(a)) => {
            if !check(a)? {
                std::process::exit(1);
            }
            Ok(())
        }
        Some(PpcgSub::Bots) => {
            for (name, about) in koth_coup::bots::BUILTINS {
                out!("{name:<12} {about}");
            }
            Ok(())
        }
        None => {
            if cmd.run.file.is_some() {
                output::old_name("koth ppcg LIST", "koth ppcg run LIST");
            }
            run(cmd.run)
        }
    }
}

/// Options of `koth ppcg`.
#[derive(Args, Debug)]
pub struct PpcgArgs {
    /// The program list: one `Name command...` a line, each program in the folder
    /// `<list dir>/<Name>`, which is its working directory.
    pub file: Option<PathBuf>,
    /// Rounds; in each, every program plays every other going first and second.
    #[arg(long, default_value_t = 10)]
    pub rounds: u64,
    /// Write a JSON summary of the run here.
    #[arg(long)]
    pub summary_json: Option<PathBuf>,
    /// Games played at once (default: every core). Results do not depend on it.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Master seed (random if left out; printed so the run can be repeated).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Time limit of one invocation, in milliseconds; past it the program is killed
    /// and forfeits.
    #[arg(long, default_value_t = 10_000)]
    pub timeout_ms: u64,
    /// Forfeit anything but exactly one legal move (for new contests). By default a
    /// move is accepted and credited exactly as the original arbiter reads it, and
    /// each lenient acceptance is a warning in the game's log and the leaderboard.
    #[arg(long)]
    pub strict: bool,
    /// Accepted for older scripts: reading moves as the original does is now the
    /// default.
    #[arg(long, hide = true)]
    pub compat: bool,
    /// Add a built-in bot to the field (repeatable); see `koth coup bots`.
    #[arg(long = "builtin", value_name = "NAME")]
    pub builtins: Vec<String>,
    /// Isolation of the programs: `auto` (all this machine can give), `required`
    /// (refuse to run without namespaces), `off` (trusted programs, faster starts).
    #[arg(long, value_name = "MODE", default_value = "auto", value_parser = output::parse_sandbox)]
    pub sandbox: koth_process::Sandbox,
    /// Debugging: stop at the first forfeit (after the games under way) and show
    /// that game, the reason and the program's last stderr lines.
    #[arg(long)]
    pub stop_on_forfeit: bool,
    /// No progress bar.
    #[arg(short, long)]
    pub quiet: bool,
    /// The run's folder (default: koth-ppcg-out/seed-S beside the list) holds every
    /// game's history file and readable log, the records and summary.json.
    #[command(flatten)]
    pub run: crate::runs::RunOpts,
}

/// Runs `koth ppcg`.
pub fn run(args: PpcgArgs) -> Result<()> {
    output::check_summary_path(args.summary_json.as_deref())?;
    let Some(file) = args.file.clone() else {
        bail!("koth ppcg needs the program list\n  fix: koth ppcg run examples/ppcg/players.txt (one `Name command...` a line)");
    };
    output::check_not_a_typo(&file, "koth ppcg", &["run", "bots"])?;
    let list = programs::load(&file).map_err(|e| anyhow!("{e}"))?;
    let seed = args
        .run
        .resumed_seed(args.seed)?
        .or(args.seed)
        .unwrap_or_else(output::fresh_seed);
    if args.seed.is_some() {
        output::note_chosen_seed(seed);
    }
    let mut run_opts = args.run.clone();
    let out_dir = run_opts
        .out
        .get_or_insert_with(|| default_out_dir(&file).join(format!("seed-{seed}")))
        .clone();
    koth_protocol::config::check_out_dir_of(
        list.iter().map(|p| (p.name.as_str(), p.dir.as_path())),
        &out_dir,
    )?;
    for p in &list {
        let cmd =
            koth_process::Command::new(p.command.clone(), p.dir.clone()).with_sandbox(args.sandbox);
        if let Err(e) = cmd.check() {
            bail!(
                "program {:?} (line {} of {}) cannot start: {e}\n  fix: correct its command or folder, or install its interpreter",
                p.name,
                p.line,
                file.display()
            );
        }
    }
    let threads = output::threads(args.threads);
    let mut opts = PpcgOptions::new(out_dir);
    opts.rounds = args.rounds;
    opts.timeout = Duration::from_millis(args.timeout_ms.max(1));
    opts.strict = args.strict;
    if args.compat && args.strict {
        bail!("--compat and --strict contradict each other; --compat is the default now");
    }
    opts.sandbox = args.sandbox;
    opts.seed = seed;
    opts.threads = threads;
    let field = entrants(&list, &args.builtins, &opts).map_err(|e| anyhow!(e))?;
    let t = tournament(field, &opts).map_err(|e| anyhow!(e))?;
    let mut specs: Vec<serde_json::Value> = list
        .iter()
        .map(|p| serde_json::json!({ "command": p.command, "dir": p.dir }))
        .collect();
    specs.extend(
        args.builtins
            .iter()
            .map(|b| serde_json::json!({ "builtin": b })),
    );
    let programs: Vec<(&str, koth_process::Sandbox)> = list
        .iter()
        .map(|p| (p.name.as_str(), args.sandbox))
        .collect();
    execute_and_report(
        t,
        &opts,
        specs,
        &run_opts,
        &Show {
            quiet: args.quiet,
            stop_on_forfeit: args.stop_on_forfeit,
            summary_json: args.summary_json.as_deref(),
            programs: &programs,
        },
    )
}

/// How a run of the challenge is shown.
pub(crate) struct Show<'a> {
    pub quiet: bool,
    pub stop_on_forfeit: bool,
    pub summary_json: Option<&'a std::path::Path>,
    /// The external programs and their isolation.
    pub programs: &'a [(&'a str, koth_process::Sandbox)],
}

/// Plays the challenge `t` and prints its leaderboard, standings and forfeits.
pub(crate) fn execute_and_report(
    mut t: koth_arena::Tournament<koth_ppcg::PpcgGame>,
    opts: &PpcgOptions,
    specs: Vec<serde_json::Value>,
    run_opts: &crate::runs::RunOpts,
    show: &Show,
) -> Result<()> {
    let (seed, threads) = (opts.seed, opts.threads);
    if !show.quiet && !show.programs.is_empty() {
        eprintln!("{}", output::isolation_lines(show.programs.iter().copied()));
    }
    let mut watch = crate::run_cmd::Watch::<koth_coup::Choice>::new(
        t.total_games(),
        show.quiet,
        show.stop_on_forfeit,
    );
    let describe = crate::runs::Describe {
        game: "coup-ppcg",
        runner: "ppcg",
        specs,
    };
    let summary = crate::runs::execute(&mut t, describe, run_opts, &mut watch)?;
    watch.bar.finish();

    // The seed's leaderboard: score then name, highest first.
    out!("Leaderboard");
    for &e in &summary.standings.ranking() {
        let st = &summary.standings.entrants[e];
        out!("{:5} {}", st.score.sum(), st.name);
    }
    out!("");
    out!("games (history files and logs): {}", opts.out_dir.display());
    let schedule = opts.schedule();
    output::Finish {
        game: "coup-ppcg",
        rules: &t.rules,
        schedule: &schedule,
        scoring: t.scoring,
        seed,
        threads,
        summary_json: show.summary_json,
        out_dir: run_opts.out.as_deref(),
    }
    .print(&summary)?;
    crate::run_cmd::print_forfeits(&watch.forfeits, &summary.standings);
    crate::run_cmd::show_stops(&summary, run_opts)?;
    if let Some(rec) = &watch.first_forfeit {
        crate::run_cmd::show_forfeit(rec, &summary.standings, |names| {
            if rec.choices.is_some() {
                crate::coup_cmd::narrate_record::<koth_ppcg::PpcgGame>(
                    &t.rules,
                    rec,
                    names,
                    |g| g.state(),
                )?;
            } else {
                out!("(keep every choice to see it: --records full)");
            }
            Ok(())
        })?;
        out!(
            "\nthe game's history file and readable log are in {}",
            opts.out_dir.display()
        );
    }
    Ok(())
}

/// `koth coup run FILE` with programs of the two-player challenge
/// (`protocol = "ppcg"`): a round robin of the challenge in which the file's other
/// bots (built-in or JSON-lines) play through the engine beside them. Games are
/// rounded up to whole rounds of every ordered pair.
pub(crate) fn run_file(
    a: &crate::run_cmd::RunArgs,
    file: &TournamentFile,
    bots: &[BotEntry],
) -> Result<()> {
    use koth_protocol::config::{self, BotSource, Protocol, Timeouts};
    let summary_json = a.summary_json.clone().or(file.summary_json.clone());
    output::check_summary_path(summary_json.as_deref())?;
    if file.rules != "ppcg" {
        bail!("programs of the two-player challenge play under its rules\n  fix: add rules = \"ppcg\" to [tournament], or --rules ppcg");
    }
    if a.duplicate
        || a.table_size.is_some_and(|t| t != 2)
        || file.table_size.is_some_and(|t| t != 2)
    {
        bail!("the two-player challenge is a round robin of pairs: --duplicate and table sizes other than 2 do not apply");
    }
    let seed = a
        .run
        .resumed_seed(a.seed.or(file.seed))?
        .or(a.seed.or(file.seed))
        .unwrap_or_else(output::fresh_seed);
    if a.seed.or(file.seed).is_some() {
        output::note_chosen_seed(seed);
    }
    let mut run_opts = a.run.clone();
    let base = a
        .file
        .as_deref()
        .and_then(|f| f.parent())
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    let out_dir = run_opts
        .out
        .get_or_insert_with(|| base.join("koth-ppcg-out").join(format!("seed-{seed}")))
        .clone();
    config::check_out_dir(bots, &out_dir)?;
    let timeouts = Timeouts {
        decision: file.decision_timeout,
        game: file.game_timeout,
        startup: file.startup_timeout,
    };
    for b in bots {
        if let (
            Some(cmd),
            BotSource::Program {
                protocol: Protocol::Ppcg,
                dir,
                ..
            },
        ) = (b.source.command(), &b.source)
        {
            if let Err(e) = cmd.check() {
                bail!(
                    "bot {:?} cannot start: {e}\n  fix: correct its command or `dir` ({})",
                    b.name,
                    dir.display()
                );
            }
        }
    }
    config::preflight(bots, timeouts)?;
    let n = bots.len() as u64;
    let per_round = n * (n - 1);
    let mut opts = PpcgOptions::new(out_dir.clone());
    opts.rounds = match a.games.or(file.games) {
        Some(g) => g.div_ceil(per_round).max(1),
        None => 10,
    };
    opts.timeout = file.decision_timeout;
    opts.seed = seed;
    opts.threads = output::threads(a.threads.or(file.threads));
    let workspace = koth_process::Workspace::new(Some(&out_dir.join("folders")))
        .with_context(|| format!("cannot create {}", out_dir.join("folders").display()))?;
    let mut field = Vec::new();
    for b in bots {
        field.push(match &b.source {
            source @ BotSource::Program {
                protocol: Protocol::Ppcg,
                ..
            } => koth_ppcg::program_entrant(
                &b.name,
                source.command().expect("a program"),
                &opts,
                workspace.clone(),
            ),
            _ => {
                let made = config::coup_entrants(
                    std::slice::from_ref(b),
                    timeouts,
                    Some(workspace.clone()),
                )?;
                koth_ppcg::lifted(made.into_iter().next().expect("one entrant"))
            }
        });
    }
    let t = tournament(field, &opts).map_err(|e| anyhow!(e))?;
    eprintln!(
        "Coup, the two-player challenge: {} bots, {} round{} of every ordered pair ({} games), seed {seed}",
        n,
        opts.rounds,
        if opts.rounds == 1 { "" } else { "s" },
        opts.rounds * per_round
    );
    let specs = bots.iter().map(BotEntry::spec_json).collect();
    let programs: Vec<(&str, koth_process::Sandbox)> = bots
        .iter()
        .filter_map(|b| match &b.source {
            BotSource::Program { sandbox, .. } => Some((b.name.as_str(), *sandbox)),
            BotSource::Builtin(_) => None,
        })
        .collect();
    execute_and_report(
        t,
        &opts,
        specs,
        &run_opts,
        &Show {
            quiet: a.quiet,
            stop_on_forfeit: a.stop_on_forfeit,
            summary_json: summary_json.as_deref(),
            programs: &programs,
        },
    )
}
