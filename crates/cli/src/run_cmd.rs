//! `koth run [FILE.toml] [--bot NAME=builtin:honest | NAME=cmd:python3 bot.py]...`:
//! a Coup tournament among built-in bots and external programs speaking the koth
//! JSON-lines protocol (docs/protocol.md).

use crate::output::{self, Bar};
use anyhow::{bail, Result};
use clap::Args;
use koth_arena::{GameRecord, Observer, Progress, RecordLevel, Scoring, Tournament};
use koth_coup::{Choice, Rules};
use koth_protocol::config::{self, BotSource, Timeouts, TournamentFile};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Options of `koth run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// Tournament file (TOML): [tournament] settings and [[bot]] entries.
    pub file: Option<PathBuf>,
    /// A bot, repeatable: NAME=builtin:honest, 'NAME=cmd:python3 bot.py' (JSON lines,
    /// run in the folder of its file) or 'NAME=ppcg:python3 old.py' (a program of the
    /// two-player challenge, under rules ppcg); added to the file's bots.
    #[arg(long = "bot", value_name = "NAME=SPEC")]
    pub bots: Vec<String>,
    /// Games to play (overrides the file; default 1000).
    #[arg(long)]
    pub games: Option<u64>,
    /// Master seed (overrides the file; random if unset anywhere).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Rule set: standard, ppcg or coupcli (overrides the file's `rules`).
    #[arg(long)]
    pub rules: Option<String>,
    /// Seats per game (overrides the file; default min(6, bots)).
    #[arg(long)]
    pub table_size: Option<usize>,
    /// Worker threads = parallel games; each external bot runs one process per thread.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Write the leaderboard, seed, rules and timing as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub summary_json: Option<PathBuf>,
    /// Debugging: stop at the first forfeit (after the games under way) and show
    /// that game, the reason and the bot's last stderr lines.
    #[arg(long)]
    pub stop_on_forfeit: bool,
    /// Duplicate play: each deal is played once per rotation of the seats (games are
    /// rounded up to whole deals); intervals are taken over deals.
    #[arg(long)]
    pub duplicate: bool,
    /// Who plays whom: balanced (every bot the same number of games, once in every
    /// seat per round; games rounded up to whole rounds) or random (each game a
    /// random draw, as seed 003's loop mode).
    #[arg(long, value_enum, default_value_t = output::ScheduleKind::Balanced)]
    pub schedule: output::ScheduleKind,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    #[command(flatten)]
    pub run: crate::runs::RunOpts,
}

/// Forfeits per entrant: reason → count, and the first stderr tail.
#[derive(Default)]
pub(crate) struct Forfeits {
    by_entrant: BTreeMap<usize, (BTreeMap<String, u64>, Option<String>)>,
}

/// The progress bar, the forfeits, and `--stop-on-forfeit`, for any game.
pub(crate) struct Watch<C> {
    pub bar: Bar,
    pub forfeits: Forfeits,
    /// With --stop-on-forfeit: the first game (in game order) with a forfeit.
    pub first_forfeit: Option<GameRecord<C>>,
    pub stop_on_forfeit: bool,
}

impl<C> Watch<C> {
    pub fn new(games: u64, quiet: bool, stop_on_forfeit: bool) -> Self {
        Watch {
            bar: Bar::new(games, quiet),
            forfeits: Forfeits::default(),
            first_forfeit: None,
            stop_on_forfeit,
        }
    }
}

impl<C: Clone> Observer<C> for Watch<C> {
    fn on_record(&mut self, r: &GameRecord<C>) {
        if self.stop_on_forfeit && !r.forfeits.is_empty() && self.first_forfeit.is_none() {
            self.first_forfeit = Some(r.clone());
            // The run's stop flag: the games under way finish, no more start.
            output::ctrl_c_flag().store(true, std::sync::atomic::Ordering::SeqCst);
        }
        for f in &r.forfeits {
            let e = self.forfeits.by_entrant.entry(f.entrant).or_default();
            *e.0.entry(f.fault.reason.clone()).or_default() += 1;
            if e.1.is_none() {
                e.1 = f.fault.stderr_tail.clone().filter(|t| !t.trim().is_empty());
            }
        }
    }
    fn on_progress(&mut self, p: &Progress<'_>) {
        <Bar as Observer<C>>::on_progress(&mut self.bar, p);
    }
}

/// Runs `koth run`.
pub fn run(a: RunArgs) -> Result<()> {
    let mut file = match &a.file {
        Some(p) => TournamentFile::load(p)?,
        None => TournamentFile::empty(config::GameKind::Coup),
    };
    if let Some(r) = &a.rules {
        crate::coup_cmd::rules_named(r)?;
        file.rules = r.clone();
    }
    let where_ = a
        .file
        .as_ref()
        .map(|p| format!(" in {}", p.display()))
        .unwrap_or_default();
    let mut bots = file.bots.clone();
    for b in &a.bots {
        bots.push(config::parse_bot_arg(b)?);
    }
    if bots.len() < 2 {
        bail!(
            "a tournament needs at least 2 bots, got {}{where_}\n  fix: add [[bot]] entries to a tournament file or --bot NAME=builtin:honest arguments",
            bots.len()
        );
    }
    if bots.iter().any(|b| {
        matches!(
            b.source,
            BotSource::Program {
                protocol: config::Protocol::Ppcg,
                ..
            }
        )
    }) {
        return crate::ppcg_cmd::run_file(&a, &file, &bots);
    }
    let rules = Rules::preset(&file.rules).expect("checked by the file parser");
    let timeouts = Timeouts {
        decision: file.decision_timeout,
        game: file.game_timeout,
        startup: file.startup_timeout,
    };
    if let Some(out) = &a.run.out {
        config::check_out_dir(&bots, out)?;
    }
    // Each external bot plays from its own copy of its folder per parallel slot, kept
    // in the run's folder (or a scratch folder removed at the end).
    let copies = match &a.run.out {
        Some(out) => koth_process::Workspace::new(Some(&out.join("folders"))),
        None => koth_process::Workspace::new(None),
    }
    .map_err(|e| anyhow::anyhow!("cannot make the bots' working folders: {e}"))?;
    let entrants = config::coup_entrants(&bots, timeouts, Some(copies))?;
    // Every external bot starts and answers before the first game, or nothing runs.
    let at_once = config::preflight(&bots, timeouts)?.unwrap_or(1);
    let max = rules.max_seats as usize;
    let table = a
        .table_size
        .or(file.table_size)
        .unwrap_or(entrants.len().min(max));
    if table < rules.min_seats as usize || table > max {
        bail!(
            "table size {table} is outside {}..={} for the {} rules{where_}",
            rules.min_seats,
            max,
            file.rules
        );
    }
    if table > entrants.len() {
        bail!(
            "table size {table} needs at least {table} bots, got {}{where_}",
            entrants.len()
        );
    }
    let games = a.games.or(file.games).unwrap_or(1000);
    let seed = a
        .run
        .resumed_seed(a.seed.or(file.seed))?
        .or(a.seed.or(file.seed))
        .unwrap_or_else(output::fresh_seed);
    let threads = output::threads(a.threads.or(file.threads));
    let summary_json = a.summary_json.clone().or(file.summary_json.clone());
    output::check_summary_path(summary_json.as_deref())?;
    let external = bots
        .iter()
        .filter(|b| matches!(b.source, BotSource::Program { .. }))
        .count();
    if external > 0 && a.seed.or(file.seed).is_some() {
        output::note_chosen_seed(seed);
    }

    let schedule = output::table_schedule(a.schedule, games, table, entrants.len(), a.duplicate);
    let mut t = Tournament {
        rules,
        entrants,
        schedule,
        scoring: Scoring::ZeroSum,
        seed,
        threads,
        records: RecordLevel::Results,
        duplicate: a.duplicate,
    };
    let asked = games;
    let games = t.total_games();
    eprintln!(
        "Coup ({} rules): {} games{}, {} bots ({} external), {} per table, seed {}, {} thread{}",
        file.rules,
        games,
        crate::coup_cmd::rounding(asked, games, a.duplicate, table),
        t.entrants.len(),
        external,
        table,
        seed,
        threads,
        if threads == 1 { "" } else { "s" }
    );
    let isolation = crate::output::isolation_lines(bots.iter().filter_map(|b| match &b.source {
        BotSource::Program { sandbox, .. } => Some((b.name.as_str(), *sandbox)),
        BotSource::Builtin(_) => None,
    }));
    if external > 0 {
        eprintln!("{isolation}");
        eprintln!(
            "limits: {} ms per decision{}, {}",
            file.decision_timeout.as_millis(),
            file.game_timeout
                .map(|g| format!(", {} ms per game", g.as_millis()))
                .unwrap_or_default(),
            // What the runner does: see `Tournament::work_multi`.
            match at_once {
                _ if t.duplicate => {
                    "one process per external bot, rotation and thread (none sees a deal twice)"
                        .to_string()
                }
                n if n > 1 => {
                    format!("one process per external bot and thread, {n} games at once on each")
                }
                _ => "one process per external bot and thread".to_string(),
            }
        );
    }

    let mut watch = Watch::<Choice>::new(games, a.quiet, a.stop_on_forfeit);
    if a.stop_on_forfeit {
        // Keep every choice, so the game can be shown.
        t.records = RecordLevel::Full;
    }
    let specs = bots.iter().map(config::BotEntry::spec_json).collect();
    let describe = crate::runs::Describe {
        game: "coup",
        runner: "run",
        specs,
    };
    let summary = crate::runs::execute(&mut t, describe, &a.run, &mut watch)?;
    watch.bar.finish();
    let schedule = t.schedule;
    // Stop the external bots before printing.
    drop(t.entrants);

    output::Finish {
        game: "coup",
        rules: &rules,
        schedule: &schedule,
        scoring: Scoring::ZeroSum,
        seed,
        threads,
        summary_json: summary_json.as_deref(),
        out_dir: a.run.out.as_deref(),
    }
    .print(&summary)?;
    if external > 0 {
        out!("{isolation}");
    }
    print_forfeits(&watch.forfeits, &summary.standings);
    if let Some(rec) = &watch.first_forfeit {
        show_forfeit(rec, &summary.standings, |names| {
            crate::coup_cmd::narrate_record::<koth_coup::State>(&rules, rec, names, |g| g).map(drop)
        })?;
    }
    show_stops(&summary, &a.run)?;
    Ok(())
}

/// A bot that asked to stop (the SDKs' `stop()`, coup-cli's logged STOP) ended the
/// run: who, why, and its game, replayed when the run was recorded in full.
pub(crate) fn show_stops(
    summary: &koth_arena::RunSummary,
    run: &crate::runs::RunOpts,
) -> Result<()> {
    for (k, e, text) in summary.stops.iter().take(1) {
        let name = &summary.standings.entrants[*e].name;
        out!("\nstopped: {name} asked to stop in game {k}: {text}");
        match run.out.as_deref() {
            Some(dir) if run.records == crate::runs::Records::Full => {
                out!("");
                crate::records_cmd::replay(dir, *k)?;
            }
            Some(dir) => out!(
                "replay it after a run with --records full: koth replay {} --game {k}",
                dir.display()
            ),
            None => out!(
                "run with --out DIR to keep the game and see it here (koth replay DIR --game {k})"
            ),
        }
    }
    Ok(())
}

/// The forfeits of a run, by bot: reasons with counts, and the first one's stderr.
pub(crate) fn print_forfeits(forfeits: &Forfeits, standings: &koth_arena::Standings) {
    if forfeits.by_entrant.is_empty() {
        out!("forfeits: none");
    } else {
        out!("forfeits:");
        for (e, (reasons, tail)) in &forfeits.by_entrant {
            let name = &standings.entrants[*e].name;
            let total: u64 = reasons.values().sum();
            out!(
                "  {name}: {total} game{}",
                if total == 1 { "" } else { "s" }
            );
            let mut rs: Vec<(&String, &u64)> = reasons.iter().collect();
            rs.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            for (reason, n) in rs.iter().take(8) {
                out!("    {n:>6} × {reason}");
            }
            if rs.len() > 8 {
                out!("           … and {} other reasons", rs.len() - 8);
            }
            if let Some(tail) = tail {
                out!("    stderr (last lines, first forfeit):");
                let lines: Vec<&str> = tail.lines().collect();
                for l in &lines[lines.len().saturating_sub(10)..] {
                    out!("      | {l}");
                }
            }
        }
    }
}

/// `--stop-on-forfeit`: the game with the first forfeit, narrated when its choices
/// were kept, then each forfeit's reason and the bot's last stderr lines.
pub(crate) fn show_forfeit<C>(
    rec: &GameRecord<C>,
    standings: &koth_arena::Standings,
    narrate: impl FnOnce(&[String]) -> Result<()>,
) -> Result<()> {
    let names: Vec<String> = rec
        .seats
        .iter()
        .map(|&e| standings.entrants[e].name.clone())
        .collect();
    out!(
        "\nstopped at the first forfeit: game {} ({})\n",
        rec.index,
        names.join(", ")
    );
    if rec.choices.is_some() {
        narrate(&names)?;
    }
    for f in &rec.forfeits {
        out!(
            "\n{} forfeited after {} choices: {}",
            names[f.seat],
            f.at,
            f.fault.reason
        );
        match f
            .fault
            .stderr_tail
            .as_deref()
            .filter(|t| !t.trim().is_empty())
        {
            Some(tail) => {
                out!("  its stderr (last lines):");
                let lines: Vec<&str> = tail.lines().collect();
                for l in &lines[lines.len().saturating_sub(20)..] {
                    out!("  | {l}");
                }
            }
            None => out!("  (nothing on its stderr)"),
        }
    }
    Ok(())
}
