//! `koth coup check BOT`: put one bot through every kind of decision and say what
//! it does wrong, before a long run finds out.

use crate::coup_cmd::{flush_quiet, narrate, paint, rules_named, show_fault, show_log, turns_text};
use crate::output::{self, count};
use anyhow::{anyhow, bail, Result};
use clap::Args;
use koth_arena::check::CheckReport;
use koth_arena::Agent;
use koth_coup::check::{check_game, play_check_game, CheckOptions, Step, KINDS, SCENARIOS};
use koth_coup::State;
use koth_process::shell_word;
use koth_protocol::config::{self, BotEntry, BotSource, GameKind, Timeouts, TournamentFile};
use koth_samurai::check::Step as Step2;
use owo_colors::Style;
use std::path::PathBuf;
use std::time::Duration;

/// Options of `koth coup check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The bot: a command ('python3 bots/my_bot.py', run over the JSON-lines
    /// protocol in the folder of its file), cmd:COMMAND, builtin:NAME, NAME=KIND as for --bot, or
    /// the name of a bot in --file.
    pub bot: String,
    /// A tournament file whose bot named BOT is checked (its folder, limits,
    /// sandbox and time limit).
    #[arg(long, value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Games to play (positions cycle through every table size and scenario).
    #[arg(long, default_value_t = 300)]
    pub games: u64,
    /// Seed of the positions, opponents and their randomness.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Rule set: standard, ppcg, or coupcli.
    #[arg(long, default_value = "standard")]
    pub rules: String,
    /// Time limit per decision, in milliseconds (default 1000, or the file's);
    /// answers slower than half of it are reported as slow.
    #[arg(long)]
    pub timeout_ms: Option<u64>,
    /// Narrate only check game G, turn by turn (the command each defect names).
    #[arg(long, value_name = "G")]
    pub game: Option<u64>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

/// The bot an argument names, and the time limits for it.
fn entry_of(a: &CheckArgs) -> Result<(BotEntry, Timeouts)> {
    let (entry, mut timeouts) = match &a.file {
        Some(file) => bot_of_file(GameKind::Coup, file, &a.bot)?,
        None => (parse_bot(GameKind::Coup, &a.bot)?, Timeouts::default()),
    };
    if let Some(ms) = a.timeout_ms {
        timeouts.decision = Duration::from_millis(ms);
    }
    Ok((entry, timeouts))
}

/// Bot `name` of tournament file `file`, with the file's time limits.
fn bot_of_file(game: GameKind, file: &std::path::Path, name: &str) -> Result<(BotEntry, Timeouts)> {
    let t = TournamentFile::load_for(game, file)?;
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

/// A bot named on the command line: `NAME=KIND`, `builtin:NAME`, `cmd:COMMAND`
/// (`samurai-cli:COMMAND` for Samurai), a built-in's name, or a bare command, named
/// after its program file (`python3 bots/my_bot.py` is `my_bot`).
pub(crate) fn parse_bot(game: GameKind, arg: &str) -> Result<BotEntry> {
    let arg = arg.trim();
    const KINDS: [&str; 5] = ["builtin:", "cmd:", "samurai-cli:", "ppcg:", "coup-cli:"];
    let has_kind = |s: &str| KINDS.iter().any(|k| s.starts_with(k));
    if let Some((name, kind)) = arg.split_once('=') {
        if !name.contains(char::is_whitespace) && has_kind(kind) {
            return Ok(config::parse_bot_arg_for(game, arg)?);
        }
    }
    if game.has_builtin(arg) {
        return Ok(BotEntry {
            name: arg.to_string(),
            source: BotSource::Builtin(arg.to_string()),
        });
    }
    let spec = if has_kind(arg) {
        arg.to_string()
    } else {
        format!("cmd:{arg}")
    };
    let body = spec.split_once(':').map(|x| x.1).unwrap_or_default();
    let words: Vec<&str> = body.split_whitespace().collect();
    let file = words
        .iter()
        .rev()
        .find(|w| w.contains('.') || w.contains('/'))
        .or(words.first())
        .copied()
        .unwrap_or("bot");
    let stem = std::path::Path::new(file)
        .file_stem()
        .and_then(|s| s.to_str())
        .filter(|s| !s.is_empty())
        .unwrap_or("bot");
    Ok(config::parse_bot_arg_for(game, &format!("{stem}={spec}"))?)
}

/// Runs `koth coup check`; `Ok(false)` when the bot has a defect.
pub fn run(a: CheckArgs) -> Result<bool> {
    if a.games == 0 {
        bail!("--games must be at least 1");
    }
    let rules = rules_named(&a.rules)?;
    let (entry, timeouts) = entry_of(&a)?;
    config::preflight(std::slice::from_ref(&entry), timeouts)?;
    let mut agent: Box<dyn Agent<State>> =
        (config::coup_entrants(std::slice::from_ref(&entry), timeouts, None)?[0].factory)(0)
            .map_err(|m| anyhow!("{m}"))?;
    let opts = CheckOptions {
        games: a.games,
        slow: timeouts.decision / 2,
        ..CheckOptions::new(rules, a.seed)
    };
    if let Some(g) = a.game {
        return Ok(narrate_one(agent.as_mut(), &entry.name, &opts, g));
    }
    let what = match &entry.source {
        BotSource::Builtin(b) => format!("built-in {b}"),
        BotSource::Program { command, .. } => command.join(" "),
    };
    eprintln!(
        "Checking {} ({what}) at Coup, {} rules: {} games from seed {}, {} ms a decision",
        entry.name,
        a.rules,
        count(a.games),
        a.seed,
        timeouts.decision.as_millis()
    );
    let bar = output::Bar::new(a.games, a.quiet);
    let report =
        koth_coup::check::check(agent.as_mut(), &entry.name, &opts, |n| bar.set_position(n));
    bar.finish();
    print_report(&report, &entry.name, &repro(&a));
    Ok(report.passed())
}

/// The command that narrates one check game, with the flags that shaped it.
fn repro(a: &CheckArgs) -> String {
    let mut cmd = format!("koth coup check {}", shell_word(&a.bot));
    if let Some(f) = &a.file {
        cmd += &format!(" --file {}", shell_word(&f.display().to_string()));
    }
    if a.rules != "standard" {
        cmd += &format!(" --rules {}", a.rules);
    }
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

pub(crate) fn print_report(r: &CheckReport, name: &str, repro: &str) {
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
        let line = if k.asked == 0 {
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
                    f.kind, f.reason, f.game
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
        out!("    see it: {repro} --game {}", f.game);
    }
    out!("");
    let unreached: Vec<&str> = r.unreached().collect();
    if !unreached.is_empty() {
        out!(
            "never asked in {} games: {} (try more --games or another --seed)",
            count(r.games),
            unreached.join("; ")
        );
    }
    if r.slow() > 0 {
        out!(
            "{} answers took longer than {} ms, half the time limit",
            count(r.slow()),
            r.slow_limit.as_millis()
        );
    }
    let decisions: u64 = r.kinds.iter().skip(1).map(|k| k.asked).sum();
    if r.passed() {
        out!(
            "{}",
            paint(
                &format!(
                    "{name} passed: {} games, {} decisions, no defect",
                    count(r.games),
                    count(decisions)
                ),
                Style::new().green().bold()
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

/// Narrates check game `g`; false when the bot faulted in it.
fn narrate_one(agent: &mut dyn Agent<State>, name: &str, opts: &CheckOptions, g: u64) -> bool {
    let cg = check_game(opts.rules, opts.seed, g);
    let names = cg.names(name);
    out!(
        "{}",
        paint(
            &format!(
                "Check game {g} (seed {}): {}; {name} in seat {}",
                opts.seed, SCENARIOS[cg.scenario], cg.seat
            ),
            Style::new().bold()
        )
    );
    for (s, n) in names.iter().enumerate() {
        let cards: Vec<String> = cg.state.hand(s).iter().map(|c| c.to_string()).collect();
        out!(
            "  {n} holds {} with {} coins",
            cards.join(" and "),
            cg.state.coins(s)
        );
    }
    let mut report = CheckReport::new(&KINDS, opts.slow);
    let (mut shown, mut last, mut quiet) = (0, String::new(), Vec::new());
    let mut end = None;
    let mut logged = None;
    play_check_game(agent, name, opts, g, &mut report, &mut |game, step| {
        match step {
            Step::Applied => {
                shown = narrate(game, &names, shown, false, &mut last, &mut quiet);
            }
            Step::Fault(f) => show_fault(name, f, logged.as_deref()),
            Step::Log(text) => {
                flush_quiet(&mut quiet);
                show_log(name, text, &mut logged)
            }
        }
        if game.is_over() {
            end = Some((game.outcome(), turns_text(game)));
        }
    });
    if let Some((Some(o), turns)) = end {
        let winners: Vec<&str> = o.winners.iter().map(|s| names[s].as_str()).collect();
        out!("\nWinner: {} after {turns}", winners.join(", "));
    }
    for f in &report.findings {
        out!(
            "{}",
            paint(
                &format!("✗ {}: {}", f.kind, f.reason),
                Style::new().red().bold()
            )
        );
    }
    report.passed()
}

/// Options of `koth samurai check`.
#[derive(Args, Debug)]
pub struct SamuraiCheckArgs {
    /// The samurai: a command ('python3 bots/s.py', run over the JSON-lines protocol
    /// in the folder of its file), cmd:COMMAND, samurai-cli:COMMAND (a program of the
    /// original challenge), builtin:NAME, NAME=KIND, or the name of a bot in --file.
    pub bot: String,
    /// A tournament file whose bot named BOT is checked.
    #[arg(long, value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Duels to play (positions cycle through every scenario and both seats).
    #[arg(long, default_value_t = 100)]
    pub games: u64,
    /// Seed of the positions, opponents and their randomness.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Time limit per answer, in milliseconds (default 1000, or the file's);
    /// answers slower than half of it are reported as slow.
    #[arg(long)]
    pub timeout_ms: Option<u64>,
    /// Narrate only check duel G, turn by turn (the command each defect names).
    #[arg(long, value_name = "G")]
    pub game: Option<u64>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Runs `koth samurai check`; `Ok(false)` when the samurai has a defect.
pub fn run_samurai(a: SamuraiCheckArgs) -> Result<bool> {
    use koth_samurai::check::{self as sc, CheckOptions as Opts};
    if a.games == 0 {
        bail!("--games must be at least 1");
    }
    let (entry, mut timeouts) = match &a.file {
        Some(file) => bot_of_file(GameKind::Samurai, file, &a.bot)?,
        None => (parse_bot(GameKind::Samurai, &a.bot)?, Timeouts::default()),
    };
    if let Some(ms) = a.timeout_ms {
        timeouts.decision = Duration::from_millis(ms.max(1));
    }
    if let BotSource::Program { dir, .. } = &entry.source {
        if !dir.is_dir() {
            bail!(
                "bot {:?}: its folder {} does not exist",
                entry.name,
                dir.display()
            );
        }
    }
    config::preflight_game::<koth_samurai::State>(std::slice::from_ref(&entry), timeouts)?;
    let notes: koth_samurai::NoteSink = Default::default();
    let mut agent: Box<dyn Agent<koth_samurai::State>> =
        (config::samurai_entrants(std::slice::from_ref(&entry), timeouts, None, &notes)?[0]
            .factory)(0)
        .map_err(|m| anyhow!("{m}"))?;
    let opts = Opts {
        games: a.games,
        slow: timeouts.decision / 2,
        ..Opts::new(a.seed)
    };
    let mut repro = format!("koth samurai check {}", shell_word(&a.bot));
    if let Some(f) = &a.file {
        repro += &format!(" --file {}", shell_word(&f.display().to_string()));
    }
    if let Some(ms) = a.timeout_ms {
        repro += &format!(" --timeout-ms {ms}");
    }
    repro += &format!(" --seed {}", a.seed);
    if let Some(g) = a.game {
        let cg = sc::check_game(a.seed, g);
        let names = cg.names(&entry.name);
        let names = [names[0].as_str(), names[1].as_str()];
        out!(
            "{}",
            paint(
                &format!(
                    "Check duel {g} (seed {}): {}; {} asked {}",
                    a.seed,
                    sc::SCENARIOS[cg.scenario],
                    entry.name,
                    if cg.seat == 0 { "first" } else { "second" }
                ),
                Style::new().bold()
            )
        );
        let mut report = CheckReport::new(&sc::KINDS, opts.slow);
        let mut shown = cg.state.log().len();
        let mut logged = None;
        let mut last = None;
        sc::play_check_game(
            agent.as_mut(),
            &entry.name,
            &opts,
            g,
            Some(&notes),
            &mut report,
            &mut |duel, step| match step {
                Step2::Applied => {
                    for t in &duel.log()[shown.min(duel.log().len())..] {
                        out!("{}", koth_samurai::narrate_turn_with(t, names));
                    }
                    shown = duel.log().len();
                    if koth_arena::Game::outcome(duel).is_some() && last.is_none() {
                        last = koth_samurai::narrate_end(duel, names);
                    }
                }
                Step2::Fault(f) => show_fault(&entry.name, f, logged.as_deref()),
                Step2::Log(text) => show_log(&entry.name, text, &mut logged),
            },
        );
        if let Some(end) = last {
            out!("{end}");
        }
        for f in &report.findings {
            out!(
                "{}",
                paint(
                    &format!("✗ {}: {}", f.kind, f.reason),
                    Style::new().red().bold()
                )
            );
        }
        return Ok(report.passed());
    }
    let what = match &entry.source {
        BotSource::Builtin(b) => format!("built-in {b}"),
        BotSource::Program {
            command, protocol, ..
        } => format!("{}, {}", command.join(" "), protocol.name()),
    };
    eprintln!(
        "Checking {} ({what}) at Ultimate Samurai Showdown: {} duels from seed {}, {} ms an answer",
        entry.name,
        count(a.games),
        a.seed,
        timeouts.decision.as_millis()
    );
    let bar = output::Bar::new(a.games, a.quiet);
    let report = sc::check(agent.as_mut(), &entry.name, &opts, Some(&notes), |n| {
        bar.set_position(n)
    });
    bar.finish();
    print_report(&report, &entry.name, &repro);
    Ok(report.passed())
}
