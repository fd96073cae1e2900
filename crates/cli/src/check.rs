//! `koth <game> check BOT`: put one bot through every kind of decision and say
//! what it does wrong, before a long run finds out. Any game.

use crate::front::{CheckFacts, Front};
use crate::term::{self, count, paint};
use anyhow::{anyhow, Result};
use clap::Args;
use koth_arena::check::CheckReport;
use koth_entrants::{BotEntry, BotKinds, BotSource, Setup, Timeouts, TournamentFile};
use koth_process::shell_word;
use owo_colors::Style;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Options of `koth <game> check`.
#[derive(Args, Debug)]
pub struct CheckArgs<F: Front> {
    /// The bot: a command ('python3 bots/my_bot.py', run in the folder of its file
    /// over the JSON-lines protocol, or for the two-player challenge as a program
    /// of it), cmd:COMMAND, builtin:NAME, NAME=KIND as for --bot, or the name of a
    /// bot in --file.
    pub bot: String,
    /// A tournament file whose bot named BOT is checked (its folder, limits,
    /// sandbox and time limit).
    #[arg(long, value_name = "FILE")]
    pub file: Option<PathBuf>,
    #[command(flatten)]
    pub options: F::Options,
    /// Games to play (positions cycle through the game's scenarios and seats;
    /// default 300 for Coup, 100 for Samurai, 30 for the two-player challenge).
    #[arg(long)]
    pub games: Option<u64>,
    /// Seed of the positions, opponents and their randomness.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Isolation of the program: `auto` (its own namespaces, or refuse to start
    /// where this machine has none), `off` (a trusted program: no sandbox).
    #[arg(long, value_name = "MODE", value_parser = crate::settings::parse_sandbox)]
    pub sandbox: Option<koth_process::Sandbox>,
    /// Time limit per decision, in milliseconds (default 1000, or the file's;
    /// 10000 a launch for the two-player challenge); answers slower than half of it
    /// are reported as slow.
    #[arg(long)]
    pub timeout_ms: Option<u64>,
    /// Narrate only check game G, turn by turn (the command each defect names).
    #[arg(long, value_name = "G")]
    pub game: Option<u64>,
    /// Pass even if some kind of decision was never asked (by default that fails
    /// with exit status 3: the check could not judge it).
    #[arg(long)]
    pub accept_unreached: bool,
    /// The name the report gives the bot (a hill's check gives the entrant's).
    #[arg(long, hide = true)]
    pub name: Option<String>,
    /// The hill in DIR runs BOT, a version as it stores it (JSON): checked
    /// exactly as the hill's games run it, the hill's folder out of its sight.
    #[arg(long, hide = true, value_name = "DIR")]
    pub hill: Option<PathBuf>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Bot `name` of tournament file `file`, with the file's time limits.
fn bot_of_file<F: Front>(file: &Path, name: &str) -> Result<(BotEntry, Timeouts)> {
    let t = TournamentFile::load_for(F::Game::KIND, file)?;
    let timeouts = Timeouts {
        decision: t.decision_timeout,
        startup: t.startup_timeout,
        ..Timeouts::default()
    };
    let names: Vec<&str> = t.bots.iter().map(|b| b.name.as_str()).collect();
    let entry = t
        .bots
        .iter()
        .find(|b| b.name == name)
        .cloned()
        .ok_or_else(|| {
            anyhow!(
                "{} has no bot named {name:?}\n  fix: name one of {}",
                file.display(),
                names.join(", ")
            )
        })?;
    Ok((entry, timeouts))
}

/// How a check ended, as its exit status says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No defect, every decision asked (exit 0).
    Passed,
    /// At least one defect (exit 1).
    Failed,
    /// No defect, but some kind of decision was never asked (exit 3).
    Unreached,
}

impl Verdict {
    /// The process's exit status.
    pub fn status(self) -> i32 {
        match self {
            Verdict::Passed => 0,
            Verdict::Failed => 1,
            Verdict::Unreached => 3,
        }
    }
}

/// Runs `koth <game> check`.
pub fn check<F: Front>(a: CheckArgs<F>) -> Result<Verdict> {
    let games = a.games.unwrap_or(F::CHECK_GAMES);
    if games == 0 {
        anyhow::bail!("--games must be at least 1");
    }
    let (rules, rules_name) = F::rules(&a.options, None)?;
    let (entry, mut timeouts) = match (&a.hill, &a.file) {
        (Some(hill), _) => {
            let spec: serde_json::Value = serde_json::from_str(&a.bot)
                .map_err(|e| anyhow!("--hill takes a version as the hill stores it: {e}"))?;
            let name = a.name.as_deref().unwrap_or("upload");
            let e =
                koth_hill::spec_bot::<F::Game>(hill, name, &spec, a.sandbox.unwrap_or_default())?;
            let t = Timeouts {
                decision: Duration::from_millis(F::TIMEOUT_MS),
                ..Timeouts::default()
            };
            (e, t)
        }
        (None, Some(file)) => bot_of_file::<F>(file, &a.bot)?,
        (None, None) => {
            let mut e = koth_entrants::parse_bot(F::Game::KIND, &a.bot)?;
            crate::play::bare::<F>(&mut e, &a.bot);
            let t = Timeouts {
                decision: Duration::from_millis(F::TIMEOUT_MS),
                ..Timeouts::default()
            };
            (e, t)
        }
    };
    if let Some(ms) = a.timeout_ms {
        timeouts.decision = Duration::from_millis(ms.max(1));
    }
    let mut entry = entry;
    if let Some(name) = &a.name {
        entry.name = name.clone();
    }
    if let (BotSource::Program { sandbox, .. }, Some(mode)) = (&mut entry.source, a.sandbox) {
        *sandbox = mode;
    }
    if let (Some(cmd), Some(p)) = (entry.source.command(), entry.protocol()) {
        if !p.is_json() {
            if let Err(e) = cmd.check() {
                anyhow::bail!(
                    "{} cannot start: {e}\n  fix: correct the command, or install its interpreter",
                    a.bot
                );
            }
        }
    }
    // The bot plays from a private copy of its folder, as in a run: in its sandbox
    // at the folder's own path (what it prints names its files), or without one, in
    // a scratch copy. It does not see the tournament file.
    let copies = koth_process::Workspace::new(None)
        .map_err(|e| anyhow!("cannot make the bot's working folder: {e}"))?;
    let setup = F::setup(
        &a.options,
        Setup {
            timeouts,
            copies: Some(copies),
            hidden: a
                .file
                .iter()
                .chain(&a.hill)
                .map(|f| koth_process::absolute(f))
                .collect(),
            // A line printed in a start or end hook is found there.
            hook_grace: Duration::from_millis(30),
            ..Setup::default()
        },
    );
    koth_entrants::preflight::<<F::Game as BotKinds>::Wire>(std::slice::from_ref(&entry), &setup)?;
    let facts = CheckFacts::<F> {
        entry: &entry,
        options: &a.options,
        rules_name: &rules_name,
        rules: &rules,
        games,
        first: 0,
        close: false,
        seed: a.seed,
        timeout: timeouts.decision,
    };
    if let Some(g) = a.game {
        let report = F::check_game(&facts, &setup, g)?;
        for f in &report.findings {
            out!(
                "{}",
                paint(
                    &format!("✗ {}: {}", f.kind, f.reason),
                    Style::new().red().bold()
                )
            );
        }
        if report.passed() {
            out!(
                "{}",
                paint(
                    &format!(
                        "no defect in check game {g}, played by a fresh process of {}",
                        entry.name
                    ),
                    Style::new().green()
                )
            );
        }
        return Ok(if report.passed() {
            Verdict::Passed
        } else {
            Verdict::Failed
        });
    }
    eprintln!("{}", F::check_header(&facts));
    let bar = term::Bar::new(games, a.quiet);
    let mut report = F::check(&facts, &setup, &|n| bar.set_position(n))?;
    bar.finish();
    // Each finding's game again, by a fresh process: what "see it" will show.
    for f in report.findings.iter_mut().take(RECHECKS) {
        let alone = CheckFacts {
            first: f.game,
            games: 1,
            close: true,
            ..facts
        };
        let again = F::check(&alone, &setup, &|_| {})?;
        let class = koth_arena::check::fault_class(&f.reason);
        f.reproduced = Some(
            again
                .findings
                .iter()
                .any(|g| koth_arena::check::fault_class(&g.reason) == class),
        );
    }
    print_report(&report, &entry.name, &repro(&a), a.accept_unreached);
    Ok(if !report.passed() {
        Verdict::Failed
    } else if report.unreached().next().is_some() && !a.accept_unreached {
        Verdict::Unreached
    } else {
        Verdict::Passed
    })
}

/// Findings whose game a check plays again to see if it reproduces.
const RECHECKS: usize = 12;

/// The command that narrates one check game, with the flags that shaped it.
fn repro<F: Front>(a: &CheckArgs<F>) -> String {
    // A hill's version: its command, as its author runs it in its folder.
    let bot = match (&a.hill, serde_json::from_str::<serde_json::Value>(&a.bot)) {
        (Some(_), Ok(spec)) => spec["command"]
            .as_array()
            .map(|w| {
                w.iter()
                    .filter_map(|x| x.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_default(),
        _ => a.bot.clone(),
    };
    let mut cmd = format!("koth {} check {}", F::WORD, shell_word(&bot));
    if let Some(f) = &a.file {
        cmd += &format!(" --file {}", shell_word(&f.display().to_string()));
    }
    cmd += &F::flags(&a.options);
    if let Some(ms) = a.timeout_ms {
        cmd += &format!(" --timeout-ms {ms}");
    }
    cmd + &format!(" --seed {}", a.seed)
}

fn micros(d: Option<Duration>) -> String {
    match d {
        None => "-".to_string(),
        Some(d) if d < Duration::from_micros(10) => {
            format!("{:.1} µs", d.as_nanos() as f64 / 1000.0)
        }
        Some(d) if d < Duration::from_millis(10) => format!("{} µs", d.as_micros()),
        Some(d) => format!("{} ms", d.as_millis()),
    }
}

/// A check's report: each decision kind with how often it was asked, its faults
/// and times, then each defect with where it happened and how to see it.
fn print_report(r: &CheckReport, name: &str, repro: &str, accept: bool) {
    out!(
        "{:<29} {:>7} {:>6} {:>9} {:>9}",
        "decision",
        "asked",
        "faults",
        "p50",
        "p99"
    );
    for (i, k) in r.kinds.iter().enumerate() {
        let (p50, p99) = if i == 0 {
            ("-".to_string(), "-".to_string())
        } else {
            (micros(k.percentile(50.0)), micros(k.percentile(99.0)))
        };
        let line = if k.impossible {
            format!("{:<29} {:>7} {:>6}   not in these rules", k.label, "-", "-")
        } else if k.asked == 0 {
            format!("{:<29} {:>7} {:>6}   never asked", k.label, 0, "-")
        } else {
            format!(
                "{:<29} {:>7} {:>6} {p50:>9} {p99:>9}",
                k.label,
                count(k.asked),
                count(k.faults)
            )
        };
        let style = if k.faults > 0 {
            Style::new().red()
        } else {
            Style::new()
        };
        out!("{}", paint(&line, style));
    }
    for f in &r.findings {
        out!("");
        let times = if f.count == 1 {
            "once".to_string()
        } else {
            format!("{} times", count(f.count))
        };
        out!(
            "{}",
            paint(
                &format!(
                    "✗ {}: {} ({times}, first in game {})",
                    f.kinds.join("; "),
                    f.reason,
                    f.game
                ),
                Style::new().red().bold()
            )
        );
        out!("    position: {}", f.position);
        if let Some(tail) = f.stderr_tail.as_deref().filter(|t| !t.trim().is_empty()) {
            for l in stderr_excerpt(tail) {
                out!(
                    "{}",
                    paint(&format!("    stderr | {l}"), Style::new().dimmed())
                );
            }
        }
        if !f.natural {
            out!(
                "    seen only in positions made to ask it, whose earlier moves were played for the bot: a bot that never makes those moves is never asked this in a real game"
            );
        }
        out!("    see it: {repro} --game {}", f.game);
        match f.reproduced {
            Some(true) => out!("    reproduced: a fresh process shows it again in game {}", f.game),
            Some(false) => out!(
                "{}",
                paint(
                    &format!(
                        "    not reproduced: a fresh process plays game {} without it, so it depends on earlier games (what the process kept or counted from them); the run above shows it",
                        f.game
                    ),
                    Style::new().yellow()
                )
            ),
            None => {}
        }
    }
    out!("");
    let unreached: Vec<&str> = r.unreached().collect();
    if !unreached.is_empty() {
        let why = if r.faulted_games >= r.games {
            "the bot lost every game to a fault before they came: fix the defects above and check again".to_string()
        } else {
            "koth could not bring them about: try more --games or another --seed".to_string()
        };
        let line = format!(
            "never asked in {} games: {} ({why})",
            count(r.games),
            unreached.join("; ")
        );
        let style = if accept {
            Style::new().yellow()
        } else {
            Style::new().red().bold()
        };
        out!("{}", paint(&line, style));
    }
    if r.slow() > 0 {
        out!(
            "{} answers took longer than {} ms, half the time limit",
            count(r.slow()),
            r.slow_limit.as_millis()
        );
    }
    let decisions: u64 = r.kinds.iter().skip(1).map(|k| k.asked).sum();
    if r.passed() && (unreached.is_empty() || accept) {
        out!(
            "{}",
            paint(
                &format!(
                    "{name} passed: {} games, {} decisions, no defect{}",
                    count(r.games),
                    count(decisions),
                    if unreached.is_empty() {
                        ""
                    } else {
                        " (some decisions never asked)"
                    }
                ),
                Style::new().green().bold()
            )
        );
    } else if r.passed() {
        out!(
            "{}",
            paint(
                &format!(
                    "{name} not judged: no defect in {} games ({} decisions), but {} kind{} of decision never asked (--accept-unreached passes it anyway)",
                    count(r.games),
                    count(decisions),
                    unreached.len(),
                    if unreached.len() == 1 { "" } else { "s" },
                ),
                Style::new().red().bold()
            )
        );
    } else {
        let n = r.findings.len();
        out!(
            "{}",
            paint(
                &format!(
                    "{name} failed: {n} defect{} in {} games ({} decisions)",
                    if n == 1 { "" } else { "s" },
                    count(r.games),
                    count(decisions)
                ),
                Style::new().red().bold()
            )
        );
    }
}

/// The end of a bot's stderr worth showing: the last 8 lines, reaching back (up
/// to 20) to the last line naming an error, which a stack trace puts well above.
fn stderr_excerpt(tail: &str) -> Vec<&str> {
    let lines: Vec<&str> = tail.lines().collect();
    let error = |l: &&str| l.contains("Error") || l.contains("Exception") || l.contains("panicked");
    let mut from = lines.len().saturating_sub(8);
    if let Some(i) = lines.iter().rposition(error) {
        from = from.min(i.max(lines.len().saturating_sub(20)));
    }
    lines[from..].to_vec()
}
