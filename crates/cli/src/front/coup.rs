//! Coup for 2–6 players: its rules presets, built-in bots, narration, report
//! steps, the person's seat and the check of a bot.

use super::page::{verdict, Step, Steps};
use super::{Asked, BenchTable, CheckFacts, Front, HandOverTo, Narrator, Reference, RunFacts};
use crate::settings::table_schedule;
use crate::term::{self, flush_quiet, mood_style, paint, Mood};
use anyhow::{anyhow, bail, Result};
use clap::Args;
use koth_arena::check::CheckReport;
use koth_arena::{Agent, Ending, Fault, Game, GameRecord, Schedule, Scoring, Seat};
use koth_coup::narrate::{describe, describe_under, status, Tone};
use koth_coup::{Choice, Event, Pending, Rules, State};
use koth_entrants::{BotEntry, BotSource, Protocol, Setup, TournamentFile};
use owo_colors::Style;
use std::io::{BufRead, Write};

/// Coup for 2–6 players.
#[derive(Debug)]
pub struct Coup;

/// The options that shape Coup's rules.
#[derive(Args, Clone, Debug, Default)]
pub struct CoupOptions {
    /// Rule set: standard, ppcg, coupcli (coup-cli's engine: 0 coins, Coup forced
    /// above 10, illegal choices penalised) or coupcrate (the coup crate's engine:
    /// illegal choices penalised, Assassinate paid when done); default standard,
    /// or the file's.
    #[arg(long)]
    pub rules: Option<String>,
    /// Turns before a game ends with every survivor a winner.
    #[arg(long)]
    pub turn_cap: Option<u32>,
}

/// The rule set called `name`.
pub fn rules_named(name: &str) -> Result<Rules> {
    Rules::preset(name).ok_or_else(|| {
        anyhow!(
            "unknown rule set {name:?}: use one of {}",
            Rules::PRESETS.join(", ")
        )
    })
}

impl Front for Coup {
    type Game = State;
    type Options = CoupOptions;
    const WORD: &'static str = "coup";
    const SCORING: Scoring = Scoring::ZeroSum;
    const PLAY_SEATS: &'static [&'static str] = &["honest", "counter", "bluffer", "economist"];
    const CHECK_GAMES: u64 = 300;
    const LOOP_RUNNER: &'static str = "coup loop";
    const ISOLATION_IN_RESULTS: bool = true;

    fn builtins() -> Vec<(&'static str, &'static str)> {
        koth_coup::bots::BUILTINS.to_vec()
    }

    fn champions() -> Vec<(&'static str, &'static str)> {
        koth_coup::bots::reserve().collect()
    }

    fn rules(options: &CoupOptions, file: Option<&TournamentFile>) -> Result<(Rules, String)> {
        let name = options
            .rules
            .clone()
            .or(file.map(|f| f.rules.clone()))
            .unwrap_or_else(|| "standard".into());
        let mut rules = rules_named(&name)?;
        if let Some(cap) = options.turn_cap {
            if cap == 0 {
                bail!("--turn-cap must be at least 1");
            }
            rules.turn_cap = cap;
        }
        Ok((rules, name))
    }

    fn recorded_rules(json: &serde_json::Value) -> Result<Rules> {
        serde_json::from_value(json.clone()).map_err(|e| anyhow!("these are not Coup rules: {e}"))
    }

    fn flags(options: &CoupOptions) -> String {
        let mut s = String::new();
        if let Some(r) = options.rules.as_deref().filter(|r| *r != "standard") {
            s += &format!(" --rules {r}");
        }
        if let Some(cap) = options.turn_cap {
            s += &format!(" --turn-cap {cap}");
        }
        s
    }

    fn human() -> Box<dyn Agent<State>> {
        Box::new(HumanAgent::default())
    }

    fn play_header(rules: &str, seed: u64, names: &[String]) -> String {
        paint(
            &format!("Coup, {rules} rules, seed {seed}: {}", names.join(", ")),
            Style::new().bold(),
        )
    }

    fn narrator(names: &[String], hide: bool, own: Option<Seat>) -> Box<dyn Narrator<State>> {
        Box::new(CoupNarrator {
            teller: Teller::new(names, hide),
            own,
        })
    }

    fn page_steps(
        rules: &Rules,
        rec: &GameRecord<Choice>,
        names: &[String],
    ) -> Result<Vec<Step>, String> {
        page_steps::<State>(rules, rec, names, |g| g)
    }

    fn page_facts() -> serde_json::Map<String, serde_json::Value> {
        page_facts("Coup")
    }

    fn schedule(asked: &Asked, entrants: usize, rules: &Rules, place: &str) -> Result<Schedule> {
        let max = rules.max_seats as usize;
        let table = asked.table_size.unwrap_or(entrants.min(max));
        let flag = asked.table_flag;
        if table < rules.min_seats as usize || table > max {
            bail!(
                "{flag} {table} is outside {}..={} for the {} rules{place}",
                rules.min_seats,
                max,
                asked.rules
            );
        }
        if table > entrants {
            bail!("{flag} {table} needs at least {table} bots, got {entrants}{place}");
        }
        if asked.matches.is_some() || asked.rounds.is_some() {
            bail!("Coup tournaments are given in games: use --games");
        }
        let games = asked.games.unwrap_or(asked.default_games);
        Ok(table_schedule(
            asked.kind,
            games,
            table,
            entrants,
            asked.duplicate,
        ))
    }

    fn hand_over(
        bots: &[BotEntry],
        options: &CoupOptions,
        file: Option<&TournamentFile>,
    ) -> Result<Option<HandOverTo>> {
        if !bots.iter().any(|b| b.protocol() == Some(Protocol::Ppcg)) {
            return Ok(None);
        }
        let (_, name) = Self::rules(options, file)?;
        if name != "ppcg" {
            bail!("programs of the two-player challenge play under its rules\n  fix: add rules = \"ppcg\" to [tournament], or --rules ppcg");
        }
        Ok(Some(HandOverTo {
            game: super::PPCG,
            rules: name,
        }))
    }

    fn run_header(f: &RunFacts) -> Option<String> {
        let table = f.schedule.table(f.entrants);
        let bots = match f.external {
            Some(x) => format!("{} bots ({x} external)", f.entrants),
            None => format!("{} bots", f.entrants),
        };
        Some(format!(
            "Coup ({} rules): {} games{}, {bots}, {} per table, seed {}, {} thread{}",
            f.rules,
            f.games,
            rounding(f.asked, f.games, f.duplicate, table),
            table,
            f.seed,
            f.threads,
            if f.threads == 1 { "" } else { "s" }
        ))
    }

    fn bench_tables() -> Vec<BenchTable> {
        vec![
            BenchTable {
                title: "six players (seed 003's lineup: 2 static, 2 honest, 2 random)",
                bots: &["static", "static", "honest", "honest", "random", "random"],
                reference: Some(Reference {
                    name: "coup crate 1.1.1",
                    short: "coup crate",
                    run: |budget| super::program_reference("coupcrate-bench", "six", budget),
                }),
            },
            BenchTable {
                title: "two players (static, honest)",
                bots: &["static", "honest"],
                reference: Some(Reference {
                    name: "coup crate 1.1.1",
                    short: "coup crate",
                    run: |budget| super::program_reference("coupcrate-bench", "two", budget),
                }),
            },
        ]
    }

    fn check_header(c: &CheckFacts<Self>) -> String {
        let what = match &c.entry.source {
            BotSource::Builtin(b) => format!("built-in {b}"),
            BotSource::Program { command, .. } => command.join(" "),
        };
        format!(
            "Checking {} ({what}) at Coup, {} rules: {} games from seed {}, {} ms a decision",
            c.entry.name,
            c.rules_name,
            term::count(c.games),
            c.seed,
            c.timeout.as_millis()
        )
    }

    fn check(c: &CheckFacts<Self>, setup: &Setup, progress: &dyn Fn(u64)) -> Result<CheckReport> {
        let mut agent = agent_of(c, setup)?;
        let opts = check_options(c);
        Ok(koth_coup::check::check(
            agent.as_mut(),
            &c.entry.name,
            &opts,
            progress,
        ))
    }

    fn check_game(c: &CheckFacts<Self>, setup: &Setup, g: u64) -> Result<CheckReport> {
        use koth_coup::check::{check_game, play_check_game, Step, KINDS};
        let mut agent = agent_of(c, setup)?;
        let opts = koth_coup::check::CheckOptions {
            close: true,
            ..check_options(c)
        };
        let name = &c.entry.name;
        let cg = check_game(opts.rules, opts.seed, g);
        let names = cg.names(name);
        out!(
            "{}",
            paint(
                &format!(
                    "Check game {g} (seed {}): {}; {name} in seat {}",
                    opts.seed,
                    cg.about(),
                    cg.seat
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
        if let Some(d) = cg.directed {
            out!(
                "  (moves up to the decision under test, {}, are played for their players; {name} sees them as events)",
                KINDS[d.target]
            );
        }
        let mut report = CheckReport::new(&KINDS, opts.slow);
        let mut teller = Teller::new(&names, false);
        let mut end = None;
        let mut logged = None;
        play_check_game(
            agent.as_mut(),
            name,
            &opts,
            g,
            &mut report,
            &mut |game, step| {
                match step {
                    Step::Applied => teller.show(game),
                    Step::Fault(f) => term::show_fault(name, f, logged.as_deref()),
                    Step::Log(text) => {
                        teller.flush();
                        term::show_log(name, text, &mut logged)
                    }
                }
                if game.is_over() {
                    end = Some((game.outcome(), turns_text(game)));
                }
            },
        );
        if let Some((Some(o), turns)) = end {
            let winners: Vec<&str> = o.winners.iter().map(|s| names[s].as_str()).collect();
            out!("\nWinner: {} after {turns}", winners.join(", "));
        }
        Ok(report)
    }
}

/// The check's options.
fn check_options(c: &CheckFacts<Coup>) -> koth_coup::check::CheckOptions {
    koth_coup::check::CheckOptions {
        games: c.games,
        first: c.first,
        close: c.close,
        slow: c.timeout / 2,
        ..koth_coup::check::CheckOptions::new(*c.rules, c.seed)
    }
}

/// The checked bot's agent.
fn agent_of(c: &CheckFacts<Coup>, setup: &Setup) -> Result<Box<dyn Agent<State>>> {
    let made = koth_entrants::entrants::<State>(std::slice::from_ref(c.entry), setup)?;
    (made[0].factory)(0).map_err(|m| anyhow!("{m}"))
}

/// What the header says about the games: the deals of duplicate play, and that
/// the count was rounded up to whole rounds or deals.
fn rounding(asked: u64, games: u64, duplicate: bool, table: usize) -> String {
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
pub fn turns_text(game: &State) -> String {
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

/// Tells a Coup table's log as it grows: consecutive passes folded into one line,
/// then the table's state when it changed (with every hand, unless hidden).
pub struct Teller {
    names: Vec<String>,
    hide: bool,
    shown: usize,
    last_status: String,
    quiet: Vec<String>,
}

impl Teller {
    /// A teller for these seats.
    pub fn new(names: &[String], hide: bool) -> Teller {
        Teller {
            names: names.to_vec(),
            hide,
            shown: 0,
            last_status: String::new(),
            quiet: Vec::new(),
        }
    }

    /// Prints the passes folded so far.
    pub fn flush(&mut self) {
        flush_quiet(&mut self.quiet);
    }

    /// Prints the log from where it stopped, then the table's state if it changed.
    pub fn show(&mut self, game: &State) {
        let log = game.log();
        if self.shown == log.len() {
            return;
        }
        for e in &log[self.shown..] {
            let (tone, text) = describe_under(e, &self.names, game.rules());
            if tone == Tone::Quiet {
                self.quiet.push(text);
                continue;
            }
            flush_quiet(&mut self.quiet);
            if tone == Tone::Turn {
                out!("");
            }
            let indent = if tone == Tone::Turn { "" } else { "  " };
            out!("{indent}{}", paint(&text, mood_style(mood(tone))));
        }
        self.shown = log.len();
        if game.is_over() {
            flush_quiet(&mut self.quiet);
        }
        if !self.quiet.is_empty() {
            return;
        }
        let mut line = status(game, &self.names);
        if !self.hide {
            let hands: Vec<String> = (0..game.players())
                .filter(|&s| game.is_alive(s))
                .map(|s| {
                    let cards: Vec<String> = game.hand(s).iter().map(|c| c.to_string()).collect();
                    format!("{}: {}", self.names[s], cards.join("+"))
                })
                .collect();
            line = format!("{line}\n    cards: {}", hands.join("  "));
        }
        if line != self.last_status {
            out!("    {}", paint(&line, Style::new().dimmed()));
            self.last_status = line;
        }
    }
}

/// The terminal's mood of a Coup narration tone.
fn mood(tone: Tone) -> Mood {
    match tone {
        Tone::Turn => Mood::Heading,
        Tone::Claim => Mood::Claim,
        Tone::Challenge => Mood::Challenge,
        Tone::Block => Mood::Block,
        Tone::Reveal | Tone::Gain => Mood::Good,
        Tone::Loss => Mood::Bad,
        Tone::Out => Mood::Out,
        Tone::Quiet => Mood::Quiet,
    }
}

/// Coup's narrator: the deal, the log, the winners.
struct CoupNarrator {
    teller: Teller,
    /// The seat of the person watching, whose deal is shown though cards are hidden.
    own: Option<Seat>,
}

impl Narrator<State> for CoupNarrator {
    fn opening(&mut self, game: &State) {
        for (s, name) in self.teller.names.iter().enumerate() {
            if !self.teller.hide || self.own == Some(s) {
                let cards: Vec<String> = game.hand(s).iter().map(|c| c.to_string()).collect();
                out!("  {name} is dealt {}", cards.join(" and "));
            }
        }
    }
    fn start(&mut self, game: &State) {
        self.teller.show(game);
    }
    fn show(&mut self, game: &State) {
        self.teller.show(game);
    }
    fn before_log(&mut self) {
        self.teller.flush();
    }
    fn end(&mut self, game: &State, recorded: bool) {
        let Some(o) = game.outcome() else { return };
        let names = &self.teller.names;
        let winners: Vec<&str> = o.winners.iter().map(|s| names[s].as_str()).collect();
        if recorded {
            out!(
                "\nWinner{}: {} after {} (as recorded)",
                if winners.len() == 1 { "" } else { "s" },
                winners.join(", "),
                turns_text(game)
            );
            return;
        }
        let how = match o.ending {
            Ending::TurnCap => format!(
                " (turn cap of {} reached: every survivor wins)",
                game.rules().turn_cap
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
            turns_text(game)
        );
    }
}

/// The letter of a Coup narration tone on the report page.
fn tone_letter(tone: Tone) -> char {
    match tone {
        Tone::Turn => 't',
        Tone::Claim => 'c',
        Tone::Challenge => 'h',
        Tone::Block => 'b',
        Tone::Reveal => 'r',
        Tone::Loss => 'l',
        Tone::Gain => 'g',
        Tone::Out => 'o',
        Tone::Quiet => 'q',
    }
}

/// The facts the page draws Coup tables with: the game's title, the kind of its
/// tables and the cards' names.
pub fn page_facts(title: &str) -> serde_json::Map<String, serde_json::Value> {
    let mut m = serde_json::Map::new();
    m.insert("title".into(), title.into());
    m.insert("table".into(), "coup".into());
    m.insert(
        "cards".into(),
        koth_coup::Card::ALL.iter().map(|c| c.name()).collect(),
    );
    m
}

/// Coup's table on the page: per seat `coins:hidden:face-up` (cards as digits of
/// `Card::ALL`), seats separated by spaces.
fn coup_table(g: &State) -> String {
    let digits = |cards: &[koth_coup::Card]| -> String {
        cards
            .iter()
            .map(|c| char::from(b'0' + c.index() as u8))
            .collect()
    };
    (0..g.players())
        .map(|s| {
            format!(
                "{}:{}:{}",
                g.coins(s),
                digits(g.hand(s)),
                digits(g.revealed(s))
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// How a fold of passes reads: "a, b and c let it stand".
fn passes_text(kind: &'static str, who: &[String]) -> String {
    let one = who.len() == 1;
    let verb = match (kind, one) {
        ("challenge", true) => "lets it stand",
        ("challenge", false) => "let it stand",
        (_, true) => "does not block",
        (_, false) => "do not block",
    };
    format!("{} {verb}", super::page::joined(who))
}

/// A recorded Coup game as the page's steps: the Coup table inside game `G` (the
/// game itself, or the engine a protocol wraps) told after every change.
pub fn page_steps<G: Game<Choice = Choice>>(
    rules: &G::Rules,
    rec: &GameRecord<Choice>,
    names: &[String],
    engine: impl Fn(&G) -> &State,
) -> Result<Vec<Step>, String> {
    let mut steps = Steps::default();
    let mut shown = 0;
    // A turn's header opens the step of its first decision, not the step that
    // ended the turn before.
    let mut header: Vec<String> = Vec::new();
    // What the programs logged, were asked and answered before the choice the
    // next step applies.
    let logged = std::cell::RefCell::new(Vec::new());
    let log = rec.log.as_deref();
    let before = |game: &G, at: u64, c: Choice| {
        let seat = game.to_move();
        let request = || {
            let mut legal = Vec::new();
            game.legal_choices(&mut legal);
            let kind = seat.map_or(0, |s| koth_coup::check::kind_of(engine(game), s));
            let legal = legal
                .into_iter()
                .map(|c| describe_choice(c, names))
                .collect();
            (koth_coup::check::KINDS[kind].to_string(), legal)
        };
        let answer = describe_choice(c, names);
        logged.borrow_mut().extend(super::page::decision_lines(
            log, names, at, seat, request, &answer,
        ));
    };
    koth_arena::records::replay_logged::<G>(
        rules,
        rec,
        |game| {
            let g = engine(game);
            let mut new = &g.log()[shown..];
            shown = g.log().len();
            let mut lines = std::mem::take(&mut header);
            lines.append(&mut logged.borrow_mut());
            if steps.steps.is_empty() {
                lines.push(format!(
                    "i{} players sit down: {}. Each holds two hidden cards.",
                    names.len(),
                    super::page::joined(names)
                ));
            }
            let mut next_header = Vec::new();
            if let [rest @ .., turn @ Event::Turn { .. }] = new {
                if !rest.is_empty() || !lines.is_empty() {
                    let (tone, text) = describe(turn, names);
                    next_header.push(format!("{}{text}", tone_letter(tone)));
                    new = rest;
                }
            }
            match new {
                [Event::NoChallenge { player }] => steps.fold(
                    "challenge",
                    &names[*player],
                    coup_table(g),
                    lines,
                    passes_text,
                ),
                [Event::NoBlock { player }] => {
                    steps.fold("block", &names[*player], coup_table(g), lines, passes_text)
                }
                _ => {
                    for e in new {
                        let (tone, text) = describe_under(e, names, g.rules());
                        lines.push(format!("{}{text}", tone_letter(tone)));
                    }
                    if !lines.is_empty() {
                        steps.push(lines, coup_table(g));
                    }
                }
            }
            header = next_header;
        },
        before,
    )?;
    if let Some(last) = steps.steps.last_mut() {
        last.extend(header.into_iter().map(serde_json::Value::String));
    }
    Ok(steps.end(verdict(&rec.outcome, names)))
}

/// A choice as a person reads and types it: "Steal early", "Block with Duke".
pub fn describe_choice(c: Choice, names: &[String]) -> String {
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

/// The person at this terminal, at a Coup table: shown only their own cards,
/// choosing among the legal choices by number or by name.
#[derive(Default)]
pub struct HumanAgent {
    names: Vec<String>,
}

impl Agent<State> for HumanAgent {
    fn seat_names(&mut self, names: &[&str]) {
        self.names = names.iter().map(|n| n.to_string()).collect();
    }

    fn decide(&mut self, game: &State, seat: Seat, legal: &[Choice]) -> Result<Choice, Fault> {
        let labels: Vec<String> = legal
            .iter()
            .map(|&c| describe_choice(c, &self.names))
            .collect();
        let mut out = std::io::stdout();
        let me = self.names.get(seat).map_or("you", String::as_str);
        let who = |s: Seat| self.names.get(s).cloned().unwrap_or(format!("seat {s}"));
        let act = |a| describe_choice(Choice::Act(a), &self.names);
        let question = match game.pending() {
            Pending::Action { .. } => "your turn.".to_string(),
            Pending::ChallengeAction { actor, action, .. } => {
                format!("challenge {}'s {}?", who(actor), act(action))
            }
            Pending::Block { actor, action, .. } => {
                format!("block {}'s {}?", who(actor), act(action))
            }
            Pending::ChallengeBlock { blocker, card, .. } => {
                format!("challenge {}'s block with {card}?", who(blocker))
            }
            Pending::Exchange { .. } => "which cards do you keep?".to_string(),
            Pending::LoseInfluence { .. } => "which influence do you lose?".to_string(),
            Pending::Over => String::new(),
        };
        let cards: Vec<String> = game.hand(seat).iter().map(|c| c.to_string()).collect();
        let _ = writeln!(
            out,
            "\n  >> {me}: {question} You hold {} with {} coins.",
            cards.join(" and "),
            game.coins(seat)
        );
        if let Some([a, b]) = game.drawn() {
            let _ = writeln!(out, "  >> You drew {a} and {b}.");
        }
        let menu: Vec<String> = labels
            .iter()
            .enumerate()
            .map(|(i, l)| format!("{}) {l}", i + 1))
            .collect();
        // Several lines when long, to fit 80 columns.
        let mut line = String::new();
        for item in &menu {
            if !line.is_empty() && line.len() + item.len() > 70 {
                let _ = writeln!(out, "  >> {line}");
                line.clear();
            }
            if !line.is_empty() {
                line.push_str("   ");
            }
            line.push_str(item);
        }
        let _ = writeln!(out, "  >> {line}");
        loop {
            let _ = write!(out, "  >> choose: ");
            let _ = out.flush();
            let mut line = String::new();
            match std::io::stdin().lock().read_line(&mut line) {
                Ok(0) | Err(_) => return Err(Fault::new("the player left (end of input)")),
                Ok(_) => {}
            }
            match term::parse_answer(&line, &labels) {
                Ok(i) => return Ok(legal[i]),
                Err(why) => {
                    let _ = writeln!(out, "  >> {why}");
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use koth_coup::Action;

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
