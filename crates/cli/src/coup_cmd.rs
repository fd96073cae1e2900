//! `koth coup play` and `koth coup loop`.

use crate::output::{self, Bar};
use crate::runs::{execute, Describe, RunOpts};
use anyhow::{bail, Result};
use clap::{Args, Subcommand};
use koth_arena::dedup_names;
use koth_arena::rng::{derive, Stream};
use koth_arena::{Agent, Entrant, GameSeeds, Random, RecordLevel, Rng, Scoring, Tournament};
use koth_coup::narrate::{describe, status, Tone};
use koth_coup::{bots, builtin_entrant, Event, Rules, State};
use owo_colors::{OwoColorize, Style};
use std::path::PathBuf;

/// Coup for 2–6 players.
#[derive(Subcommand, Debug)]
pub enum CoupCmd {
    /// Narrate one game, turn by turn.
    Play(PlayArgs),
    /// Play many games among built-in bots and rank them (zero-sum scoring).
    Loop(LoopArgs),
    /// Run a tournament file of built-in and external bots (the same as `koth run`,
    /// in the command shape every game shares).
    Run(crate::run_cmd::RunArgs),
    /// Put one bot through every kind of decision and report what it does wrong
    /// (exit status 1 if anything).
    Check(crate::check_cmd::CheckArgs),
    /// List the built-in bots.
    Bots,
}

/// Options of `koth coup play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    /// Built-in bots at the table, in seat order, comma-separated (2 to 6 seats in
    /// all; default honest,counter,bluffer,economist when no --bot is given).
    #[arg(long, value_delimiter = ',')]
    pub bots: Option<Vec<String>>,
    /// A bot of any kind, seated after --bots: NAME=builtin:honest,
    /// 'NAME=cmd:python3 bots/my_bot.py' (a program over the JSON-lines protocol, run
    /// in the folder of its file: bots/), or NAME=human (you, at this terminal,
    /// shown only your own cards). Repeatable.
    #[arg(long = "bot", value_name = "NAME=KIND")]
    pub bot: Vec<String>,
    /// A tournament file: `--bot NAME` seats its bot NAME (its folder, limits and
    /// time limit); without --bot or --bots, its bots take the seats (six at most).
    #[arg(long, value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Time limit per decision for programs, in milliseconds (default 1000, or the file's).
    #[arg(long)]
    pub timeout_ms: Option<u64>,
    /// Seed of the deal and the bots' randomness (random if left out).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Rule set: standard, ppcg, or coupcli (coup-cli's engine: 0 coins, Coup forced
    /// above 10, illegal choices penalised); default standard, or the file's.
    #[arg(long)]
    pub rules: Option<String>,
    /// Hide the players' face-down cards (show only what a player at the table sees).
    #[arg(long)]
    pub hide_cards: bool,
    /// Shuffle the seats instead of seating the bots in the order given.
    #[arg(long)]
    pub shuffle_seats: bool,
}

/// Options of `koth coup loop`.
#[derive(Args, Debug)]
pub struct LoopArgs {
    /// Games to play.
    #[arg(long, default_value_t = 100_000)]
    pub games: u64,
    /// Bots in the tournament, comma-separated; a name twice means two seats of it.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "static,honest,random,counter,bluffer,economist,challenger,skeptic"
    )]
    pub bots: Vec<String>,
    /// Master seed (random if left out; printed so the run can be repeated).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Seats per game (default: min(6, bots)); with more bots, each game seats a random draw.
    #[arg(long)]
    pub table_size: Option<usize>,
    /// Worker threads (default: every core). Results do not depend on it.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Rule set: standard, ppcg, or coupcli (coup-cli's engine: 0 coins, Coup forced above 10, illegal choices penalised).
    #[arg(long, default_value = "standard")]
    pub rules: String,
    /// Turns before a game ends with every survivor a winner.
    #[arg(long)]
    pub turn_cap: Option<u32>,
    /// Duplicate play: each deal is played once per rotation of the seats (games are
    /// rounded up to whole deals), so the luck of the cards cancels; intervals are
    /// taken over deals.
    #[arg(long)]
    pub duplicate: bool,
    /// Who plays whom: balanced (every bot the same number of games, once in every
    /// seat per round; games rounded up to whole rounds) or random (each game a
    /// random draw, as seed 003's loop mode).
    #[arg(long, value_enum, default_value_t = output::ScheduleKind::Balanced)]
    pub schedule: output::ScheduleKind,
    /// Write the leaderboard, seed, rules and timing as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub summary_json: Option<PathBuf>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    #[command(flatten)]
    pub run: RunOpts,
}

/// Runs a `koth coup` command.
pub fn run(cmd: CoupCmd) -> Result<()> {
    match cmd {
        CoupCmd::Play(a) => play(a),
        CoupCmd::Loop(a) => run_loop(a),
        CoupCmd::Run(a) => crate::run_cmd::run(a),
        CoupCmd::Check(a) => {
            if !crate::check_cmd::run(a)? {
                std::process::exit(1);
            }
            Ok(())
        }
        CoupCmd::Bots => {
            for (name, about) in bots::BUILTINS {
                out!("{name:<12} {about}");
            }
            Ok(())
        }
    }
}

pub(crate) fn rules_named(name: &str) -> Result<Rules> {
    Rules::preset(name).ok_or_else(|| {
        anyhow::anyhow!(
            "unknown rule set {name:?}: use one of {}",
            Rules::PRESETS.join(", ")
        )
    })
}

fn check_bots(names: &[String]) -> Result<()> {
    for n in names {
        if bots::builtin(n).is_none() {
            let known: Vec<&str> = bots::BUILTINS.iter().map(|b| b.0).collect();
            bail!(
                "unknown bot {n:?}: the built-in bots are {}",
                known.join(", ")
            );
        }
    }
    Ok(())
}

/// The entrants for a list of built-in bot names, de-duplicated as seed 003 does.
pub fn entrants(names: &[String]) -> Result<Vec<Entrant<State>>> {
    check_bots(names)?;
    let display = dedup_names(names);
    Ok(names
        .iter()
        .zip(display)
        .map(|(bot, shown)| builtin_entrant(bot, shown).expect("checked above"))
        .collect())
}

fn run_loop(a: LoopArgs) -> Result<()> {
    output::check_summary_path(a.summary_json.as_deref())?;
    let mut rules = rules_named(&a.rules)?;
    if let Some(cap) = a.turn_cap {
        if cap == 0 {
            bail!("--turn-cap must be at least 1");
        }
        rules.turn_cap = cap;
    }
    if a.bots.len() < 2 {
        bail!("a tournament needs at least 2 bots, got {}", a.bots.len());
    }
    let entrants = entrants(&a.bots)?;
    let max = rules.max_seats as usize;
    let table = a.table_size.unwrap_or(entrants.len().min(max));
    if table < rules.min_seats as usize || table > max {
        bail!(
            "--table-size {table} is outside {}..={} for the {} rules",
            rules.min_seats,
            max,
            a.rules
        );
    }
    if table > entrants.len() {
        bail!(
            "--table-size {table} needs at least {table} bots, got {}",
            entrants.len()
        );
    }
    let seed = a
        .run
        .resumed_seed(a.seed)?
        .or(a.seed)
        .unwrap_or_else(output::fresh_seed);
    let threads = output::threads(a.threads);
    let schedule = output::table_schedule(a.schedule, a.games, table, entrants.len(), a.duplicate);
    let mut t = Tournament {
        rules,
        entrants,
        schedule,
        scoring: Scoring::ZeroSum,
        seed,
        threads,
        records: RecordLevel::None,
        duplicate: a.duplicate,
    };
    let games = t.total_games();
    eprintln!(
        "Coup ({} rules): {} games{}, {} bots, {} per table, seed {}, {} thread{}",
        a.rules,
        games,
        rounding(a.games, games, a.duplicate, table),
        t.entrants.len(),
        table,
        seed,
        threads,
        if threads == 1 { "" } else { "s" }
    );
    let mut bar = Bar::new(games, a.quiet);
    let specs = a
        .bots
        .iter()
        .map(|b| serde_json::json!({ "builtin": b }))
        .collect();
    let summary = execute(
        &mut t,
        Describe {
            game: "coup",
            runner: "coup loop",
            specs,
        },
        &a.run,
        &mut bar,
    )?;
    bar.finish();
    output::Finish {
        game: "coup",
        rules: &t.rules,
        schedule: &t.schedule,
        scoring: t.scoring,
        seed,
        threads,
        summary_json: a.summary_json.as_deref(),
        out_dir: a.run.out.as_deref(),
    }
    .print(&summary)
}

fn play(a: PlayArgs) -> Result<()> {
    use koth_protocol::config::{self, BotEntry, BotSource, TournamentFile};
    let file = match &a.file {
        Some(f) => Some(TournamentFile::load(f)?),
        None => None,
    };
    let rules_name = a
        .rules
        .clone()
        .or(file.as_ref().map(|f| f.rules.clone()))
        .unwrap_or_else(|| "standard".into());
    let rules = rules_named(&rules_name)?;
    let from_file = a.bots.is_none() && a.bot.is_empty();
    let builtins: Vec<String> = match (&a.bots, a.bot.is_empty(), &file) {
        (Some(b), _, _) => b.clone(),
        (None, true, None) => ["honest", "counter", "bluffer", "economist"]
            .map(String::from)
            .to_vec(),
        _ => Vec::new(),
    };
    check_bots(&builtins)?;
    let mut entries: Vec<BotEntry> = dedup_names(&builtins)
        .into_iter()
        .zip(&builtins)
        .map(|(name, b)| BotEntry {
            name,
            source: BotSource::Builtin(b.clone()),
        })
        .collect();
    if let (Some(f), true) = (&file, from_file) {
        entries.extend(f.bots.iter().take(rules.max_seats as usize).cloned());
    }
    // A person at this terminal: `NAME=human`.
    let mut humans = Vec::new();
    for arg in &a.bot {
        let in_file = file
            .as_ref()
            .and_then(|f| f.bots.iter().find(|b| b.name == *arg));
        match (arg.split_once('='), in_file) {
            (_, Some(b)) => entries.push(b.clone()),
            (Some((name, "human")), _) if !name.trim().is_empty() => {
                humans.push(name.trim().to_string());
                entries.push(BotEntry {
                    name: name.trim().to_string(),
                    source: BotSource::Builtin("human".into()),
                });
            }
            (None, None) if file.is_some() => {
                let names: Vec<&str> = file
                    .iter()
                    .flat_map(|f| f.bots.iter().map(|b| b.name.as_str()))
                    .collect();
                bail!(
                    "--bot {arg:?}: the file has no bot of that name\n  fix: name one of {}",
                    names.join(", ")
                );
            }
            _ => entries.push(config::parse_bot_arg(arg)?),
        }
    }
    if humans.len() > 1 {
        bail!("one human seat per terminal, got {}", humans.join(", "));
    }
    for (i, e) in entries.iter().enumerate() {
        if entries[..i].iter().any(|o| o.name == e.name) {
            bail!("two bots are named {:?}: give each its own name", e.name);
        }
    }
    // A person sees only what their seat may see.
    let hide_cards = a.hide_cards || !humans.is_empty();
    let n = entries.len();
    if n < rules.min_seats as usize || n > rules.max_seats as usize {
        bail!(
            "the {} rules seat {} to {} players, got {n} bots",
            rules_name,
            rules.min_seats,
            rules.max_seats
        );
    }
    let mut timeouts = config::Timeouts::default();
    if let Some(f) = &file {
        timeouts.decision = f.decision_timeout;
        timeouts.startup = f.startup_timeout;
    }
    if let Some(ms) = a.timeout_ms {
        timeouts.decision = std::time::Duration::from_millis(ms.max(1));
    }
    // Every program starts and greets before the game, or the error names it.
    config::preflight(&entries, timeouts)?;
    let seed = a.seed.unwrap_or_else(output::fresh_seed);
    let seeds = GameSeeds::of(seed, 0);
    let mut order: Vec<usize> = (0..n).collect();
    if a.shuffle_seats {
        Rng::new(derive(seed, Stream::Tables, 0)).shuffle(&mut order);
    }
    let seated: Vec<BotEntry> = order.iter().map(|&i| entries[i].clone()).collect();
    let names: Vec<String> = seated.iter().map(|e| e.name.clone()).collect();
    let mut agents: Vec<Box<dyn Agent<State>>> = Vec::with_capacity(n);
    for e in &seated {
        agents.push(if humans.contains(&e.name) {
            Box::new(crate::human::HumanAgent::new())
        } else {
            let made = config::coup_entrants(std::slice::from_ref(e), timeouts, None)?;
            (made[0].factory)(0).map_err(|m| anyhow::anyhow!("{m}"))?
        });
    }
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    for agent in agents.iter_mut() {
        agent.seat_names(&refs);
    }
    let mut game = State::new(rules, n, seeds.deal);
    out!(
        "{}",
        paint(
            &format!(
                "Coup, {} rules, seed {seed}: {}",
                rules_name,
                names.join(", ")
            ),
            Style::new().bold()
        )
    );
    for (s, name) in names.iter().enumerate() {
        if !hide_cards || humans.contains(name) {
            let cards: Vec<String> = game.hand(s).iter().map(|c| c.to_string()).collect();
            out!("  {name} is dealt {}", cards.join(" and "));
        }
    }
    // The last stderr line shown live per seat, so a fault does not repeat it.
    let mut logged: Vec<Option<String>> = vec![None; n];
    let drain = |agents: &mut [Box<dyn Agent<State>>],
                 logged: &mut [Option<String>],
                 quiet: &mut Vec<String>| {
        for (s, agent) in agents.iter_mut().enumerate() {
            if let Some(text) = agent.take_log() {
                flush_quiet(quiet);
                show_log(&names[s], &text, &mut logged[s]);
            }
        }
    };
    for (s, agent) in agents.iter_mut().enumerate() {
        if let Err(f) = agent.start(&game, s, seeds.seat(s)) {
            show_fault(&names[s], &f, logged[s].as_deref());
            game.forfeit(s);
        }
    }
    let mut quiet = Vec::new();
    drain(&mut agents, &mut logged, &mut quiet);
    let mut legal = Vec::new();
    let mut last = String::new();
    let mut shown = narrate(&game, &names, 0, hide_cards, &mut last, &mut quiet);
    while let Some(seat) = game.to_move() {
        legal.clear();
        game.legal_choices(&mut legal);
        let answer = agents[seat].decide(&game, seat, &legal);
        drain(&mut agents, &mut logged, &mut quiet);
        match answer {
            Ok(c) if legal.contains(&c) => game.apply(c)?,
            Ok(c) => {
                out!(
                    "{}",
                    paint(
                        &format!(
                            "{} answered an illegal choice {c:?} and forfeits",
                            names[seat]
                        ),
                        Style::new().red()
                    )
                );
                game.forfeit(seat);
            }
            Err(f) if f.illegal && game.penalize(seat) => out!(
                "{}",
                paint(
                    &format!(
                        "{}: {}; the rules penalise it (an influence lost)",
                        names[seat], f.reason
                    ),
                    Style::new().red()
                )
            ),
            Err(f) => {
                show_fault(&names[seat], &f, logged[seat].as_deref());
                game.forfeit(seat);
            }
        }
        shown = narrate(&game, &names, shown, hide_cards, &mut last, &mut quiet);
    }
    for (s, agent) in agents.iter_mut().enumerate() {
        agent.finish(&game, s);
    }
    // What the bots log on `end` (their summaries) comes a moment later.
    if !a.bot.is_empty() || a.file.is_some() {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    drain(&mut agents, &mut logged, &mut quiet);
    let o = game.outcome().expect("the game is over");
    let winners: Vec<&str> = o.winners.iter().map(|s| names[s].as_str()).collect();
    let how = match o.ending {
        koth_arena::Ending::TurnCap => format!(
            " (turn cap of {} reached: every survivor wins)",
            rules.turn_cap
        ),
        _ => String::new(),
    };
    out!(
        "\n{} {} after {}{how}",
        paint(
            if winners.len() == 1 {
                "Winner:"
            } else {
                "Winners:"
            },
            Style::new().bold()
        ),
        paint(&winners.join(", "), Style::new().green().bold()),
        turns_text(&game)
    );
    Ok(())
}

/// A forfeit in `play`: the reason, then the program's last stderr lines, dimmed,
/// from after `shown` (the last line already shown live) when it is among them.
pub(crate) fn show_fault(name: &str, f: &koth_arena::Fault, shown: Option<&str>) {
    out!(
        "{}",
        paint(
            &format!("{name} forfeits: {}", f.reason),
            Style::new().red()
        )
    );
    if let Some(tail) = f.stderr_tail.as_deref().filter(|t| !t.trim().is_empty()) {
        let lines: Vec<&str> = tail.lines().collect();
        let fresh = shown
            .and_then(|l| lines.iter().rposition(|x| *x == l))
            .map_or(0, |i| i + 1);
        for l in &lines[fresh.max(lines.len().saturating_sub(10))..] {
            show_stderr_line(name, l);
        }
    }
}

/// One line a bot wrote to stderr, dimmed, under the narration.
pub(crate) fn show_stderr_line(name: &str, line: &str) {
    out!(
        "{}",
        paint(&format!("  {name} stderr | {line}"), Style::new().dimmed())
    );
}

/// Shows what `agent` logged since last time; keeps its last line in `last`.
pub(crate) fn show_log(name: &str, text: &str, last: &mut Option<String>) {
    for l in text.lines() {
        show_stderr_line(name, l);
        *last = Some(l.to_string());
    }
}

/// What the header says about the games: the deals of duplicate play, and that
/// the count was rounded up to whole rounds or deals.
pub(crate) fn rounding(asked: u64, games: u64, duplicate: bool, table: usize) -> String {
    let mut parts = Vec::new();
    if duplicate {
        parts.push(format!(
            "{} deals × {table} rotations",
            games / table.max(1) as u64
        ));
    }
    if games != asked {
        parts.push(format!("{asked} rounded up to whole rounds"));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join(", "))
    }
}

/// "37 turns", or "25 turns (turn 26 ended before its action)" when the game was
/// decided by a forfeit at the start of a turn: the narration headed that turn,
/// but the rules count finished turns only.
pub(crate) fn turns_text(game: &State) -> String {
    let turns = game.turns();
    let headed = game
        .log()
        .iter()
        .rev()
        .find_map(|e| match e {
            Event::Turn { number, .. } => Some(number + 1),
            _ => None,
        })
        .unwrap_or(1);
    if headed > turns {
        format!("{turns} turns (turn {headed} ended before its action)")
    } else {
        format!("{turns} turns")
    }
}

/// Replays a recorded Coup game (plain or wrapped by a protocol: `engine` finds the
/// Coup table inside) and narrates it as it goes; returns the game at its end.
pub(crate) fn narrate_record<G: koth_arena::Game<Choice = koth_coup::Choice>>(
    rules: &G::Rules,
    rec: &koth_arena::GameRecord<koth_coup::Choice>,
    names: &[String],
    engine: impl Fn(&G) -> &State,
) -> Result<G> {
    let (mut shown, mut last, mut quiet) = (0, String::new(), Vec::new());
    koth_arena::records::replay::<G>(rules, rec, |g| {
        shown = narrate(engine(g), names, shown, false, &mut last, &mut quiet);
    })
    .map_err(anyhow::Error::msg)
}

/// Prints the log from `from` on (consecutive passes folded into one line), then
/// the table's state if it changed; returns the new log length.
pub(crate) fn narrate(
    game: &State,
    names: &[String],
    from: usize,
    hide: bool,
    last_status: &mut String,
    quiet: &mut Vec<String>,
) -> usize {
    let log = game.log();
    if from == log.len() {
        return from;
    }
    let flush = flush_quiet;
    for e in &log[from..] {
        let (tone, text) = describe(e, names);
        if tone == Tone::Quiet {
            quiet.push(text);
            continue;
        }
        flush(quiet);
        let style = match tone {
            Tone::Turn => {
                out!("");
                Style::new().bold().underline()
            }
            Tone::Claim => Style::new().cyan(),
            Tone::Challenge => Style::new().yellow().bold(),
            Tone::Block => Style::new().magenta(),
            Tone::Reveal | Tone::Gain => Style::new().green(),
            Tone::Loss => Style::new().red(),
            Tone::Out => Style::new().red().bold(),
            Tone::Quiet => Style::new(),
        };
        let indent = if tone == Tone::Turn { "" } else { "  " };
        out!("{indent}{}", paint(&text, style));
    }
    if game.is_over() {
        flush(quiet);
    }
    if !quiet.is_empty() {
        return log.len();
    }
    let mut line = status(game, names);
    if !hide {
        let hands: Vec<String> = (0..game.players())
            .filter(|&s| game.is_alive(s))
            .map(|s| {
                let cards: Vec<String> = game.hand(s).iter().map(|c| c.to_string()).collect();
                format!("{}: {}", names[s], cards.join("+"))
            })
            .collect();
        line = format!("{line}\n    cards: {}", hands.join("  "));
    }
    if line != *last_status {
        out!("    {}", paint(&line, Style::new().dimmed()));
        *last_status = line;
    }
    log.len()
}

/// A choice as a person reads and types it: "Steal early", "Block with Duke".
pub(crate) fn describe_choice(c: koth_coup::Choice, names: &[String]) -> String {
    use koth_coup::Choice;
    match c {
        Choice::Act(a) => match a.target() {
            Some(t) => format!(
                "{} {}",
                a.kind(),
                names
                    .get(t)
                    .map_or_else(|| format!("seat {t}"), Clone::clone)
            ),
            None => a.kind().to_string(),
        },
        Choice::Challenge => "Challenge".into(),
        Choice::Pass => "Pass".into(),
        Choice::Block(card) => format!("Block with {card}"),
        Choice::Keep(k) => {
            let cards: Vec<String> = k.cards().iter().map(|c| c.to_string()).collect();
            format!("Keep {}", cards.join(" "))
        }
        Choice::Lose(card) => format!("Lose {card}"),
    }
}

/// Prints the passes folded so far (before anything else is shown).
pub(crate) fn flush_quiet(quiet: &mut Vec<String>) {
    if !quiet.is_empty() {
        out!("  {}", paint(&quiet.join("; "), Style::new().dimmed()));
        quiet.clear();
    }
}

/// Colours `text` when stdout is a terminal and NO_COLOR is unset.
pub(crate) fn paint(text: &str, style: Style) -> String {
    use std::io::IsTerminal;
    use std::sync::OnceLock;
    static ON: OnceLock<bool> = OnceLock::new();
    if *ON.get_or_init(|| std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none())
    {
        text.style(style).to_string()
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use koth_coup::{Action, Choice};

    #[test]
    fn a_turn_cut_short_by_a_forfeit_is_said_so() {
        let mut g = State::new(Rules::standard(), 2, 7);
        g.apply(Choice::Act(Action::Income)).unwrap();
        // Turn 2 is headed; its actor forfeits before declaring an action.
        let actor = g.to_move().unwrap();
        g.forfeit(actor);
        assert!(g.is_over());
        assert_eq!(turns_text(&g), "1 turns (turn 2 ended before its action)");
        // A game played out: the last header is the last turn counted.
        let mut g = State::new(Rules::standard(), 3, 7);
        let mut legal = Vec::new();
        while !g.is_over() {
            legal.clear();
            g.legal_choices(&mut legal);
            let c = *legal.last().unwrap();
            g.apply(c).unwrap();
        }
        assert_eq!(turns_text(&g), format!("{} turns", g.turns()));
    }
}
