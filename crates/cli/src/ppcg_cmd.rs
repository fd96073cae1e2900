//! `koth ppcg`: the two-player Coup challenge of seed 000, running the original
//! programs unchanged through the history-file protocol.

use crate::output::{self, Bar};
use anyhow::{anyhow, bail, Result};
use clap::Args;
use koth_arena::programs;
use koth_ppcg::{default_out_dir, entrants, tournament, PpcgOptions};
use std::path::PathBuf;
use std::time::Duration;

/// Options of `koth ppcg`.
#[derive(Args, Debug)]
pub struct PpcgArgs {
    /// The program list: one `Name command...` a line, each program in the folder
    /// `<list dir>/<Name>`, which is its working directory.
    pub file: PathBuf,
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
    let list = programs::load(&args.file).map_err(|e| anyhow!("{e}"))?;
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
        .get_or_insert_with(|| default_out_dir(&args.file).join(format!("seed-{seed}")))
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
                args.file.display()
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
    let mut t = tournament(field, &opts).map_err(|e| anyhow!(e))?;
    if !args.quiet {
        eprintln!(
            "{}",
            output::isolation_lines(
                list.iter()
                    .map(|p| (p.name.as_str(), koth_process::Sandbox::Auto))
            )
        );
    }
    let mut bar = Bar::new(t.total_games(), args.quiet);
    let mut specs: Vec<serde_json::Value> = list
        .iter()
        .map(|p| serde_json::json!({ "command": p.command, "dir": p.dir }))
        .collect();
    specs.extend(
        args.builtins
            .iter()
            .map(|b| serde_json::json!({ "builtin": b })),
    );
    let describe = crate::runs::Describe {
        game: "coup-ppcg",
        runner: "ppcg",
        specs,
    };
    let summary = crate::runs::execute(&mut t, describe, &run_opts, &mut bar)?;
    bar.finish();

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
        summary_json: args.summary_json.as_deref(),
        out_dir: run_opts.out.as_deref(),
    }
    .print(&summary)?;
    Ok(())
}
