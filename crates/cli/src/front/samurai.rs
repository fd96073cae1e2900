//! Ultimate Samurai Showdown (seed 002): a duel of simultaneous moves, its
//! original programs launched once a turn with the histories on the command line.

use super::page::{verdict, Step, Steps};
use super::{Asked, BenchTable, CheckFacts, Front, Narrator, RunEnd, RunFacts};
use crate::term::{self, paint};
use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use koth_arena::check::CheckReport;
use koth_arena::{Agent, Fault, Game, GameRecord, Observer, Progress, Schedule, Scoring, Seat};
use koth_entrants::{BotEntry, BotSource, Protocol, Setup, TournamentFile};
use koth_samurai::{narrate_end, narrate_turn_with, Action, Rules, State};
use koth_samurai_programs::programs::ProgramEntry;
use koth_samurai_programs::ExternalOptions;
use owo_colors::Style;
use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

/// Ultimate Samurai Showdown.
#[derive(Debug)]
pub struct Samurai;

/// Samurai has one set of rules: no options.
#[derive(Args, Clone, Debug, Default)]
pub struct SamuraiOptions {}

impl Front for Samurai {
    type Game = State;
    type Options = SamuraiOptions;
    const WORD: &'static str = "samurai";
    const SCORING: Scoring = Scoring::SharedPoint;
    const LIST: Option<Protocol> = Some(Protocol::SamuraiCli);
    const CHECK_GAMES: u64 = 100;
    const HIDDEN: bool = false;
    const RUNNER: &'static str = "samurai";
    const LOOP_RUNNER: &'static str = "samurai loop";

    fn builtins() -> Vec<(&'static str, &'static str)> {
        koth_samurai::BUILTIN_ABOUT.to_vec()
    }

    fn rules(_: &SamuraiOptions, _file: Option<&TournamentFile>) -> Result<(Rules, String)> {
        Ok((Rules::default(), "standard".into()))
    }

    fn recorded_rules(json: &serde_json::Value) -> Result<Rules> {
        serde_json::from_value(json.clone())
            .map_err(|e| anyhow!("run.json: these are not samurai rules: {e}"))
    }

    fn human() -> Box<dyn Agent<State>> {
        Box::new(HumanSamurai::default())
    }

    fn play_header(_rules: &str, seed: u64, names: &[String]) -> String {
        format!(
            "Ultimate Samurai Showdown, seed {seed}: {} vs {}",
            names[0], names[1]
        )
    }

    fn narrator(names: &[String], _hide: bool, _own: Option<Seat>) -> Box<dyn Narrator<State>> {
        Box::new(SamuraiNarrator {
            names: [names[0].clone(), names[1].clone()],
            shown: 0,
        })
    }

    fn page_steps(
        rules: &Rules,
        rec: &GameRecord<Action>,
        names: &[String],
    ) -> Result<Vec<Step>, String> {
        let [a, b] = match names {
            [a, b] => [a.as_str(), b.as_str()],
            _ => return Err(format!("a duel has two seats, not {}", names.len())),
        };
        let mut steps = Steps::default();
        let mut shown = 0;
        let mut over = false;
        // Per seat `health:honour`.
        let table = |g: &State| -> String {
            let (x, y) = (g.samurai(0), g.samurai(1));
            format!("{}:{} {}:{}", x.health, x.honour, y.health, y.honour)
        };
        // What the programs logged, were asked and answered before the moves
        // the next step shows.
        let logged = std::cell::RefCell::new(Vec::new());
        let log = rec.log.as_deref();
        let before = |game: &State, at: u64, c: Action| {
            let seat = game.to_move();
            let request = || {
                let mut legal = Vec::new();
                game.legal_choices(&mut legal);
                let kind = seat.map_or(2, |s| koth_samurai::check::kind_of(game, s));
                let legal = legal.iter().map(|a| a.to_char().to_string()).collect();
                (koth_samurai::check::KINDS[kind].to_string(), legal)
            };
            let answer = format!("{} ({})", c.to_char(), c.describe());
            logged.borrow_mut().extend(super::page::decision_lines(
                log, names, at, seat, request, &answer,
            ));
        };
        let end = koth_arena::records::replay_logged::<State>(
            rules,
            rec,
            |g| {
                let mut lines = Vec::new();
                if steps.steps.is_empty() {
                    let m = g.samurai(0);
                    lines.push(format!(
                        "i{a} faces {b}; each starts with {} health and {} honour.",
                        m.health, m.honour
                    ));
                }
                for t in &g.log()[shown..] {
                    lines.append(&mut logged.borrow_mut());
                    lines.push(format!("t{}", narrate_turn_with(t, [a, b])));
                }
                shown = g.log().len();
                let now_over = g.outcome().is_some();
                if !lines.is_empty() || now_over != over {
                    over = now_over;
                    steps.push(lines, table(g));
                }
            },
            before,
        )?;
        let last = narrate_end(&end, [a, b]).unwrap_or_else(|| verdict(&rec.outcome, names));
        Ok(steps.end(format!("{last}.")))
    }

    fn page_facts() -> serde_json::Map<String, serde_json::Value> {
        let mut m = serde_json::Map::new();
        m.insert("title".into(), "Ultimate Samurai Showdown".into());
        m.insert("table".into(), "samurai".into());
        m
    }

    fn schedule(asked: &Asked, entrants: usize, _rules: &Rules, place: &str) -> Result<Schedule> {
        if asked.rounds.is_some() || asked.duplicate {
            bail!("a samurai tournament is a round robin: give the matches each pair plays{place}\n  fix: --matches 8");
        }
        if asked.table_size.is_some_and(|t| t != 2) {
            bail!("a samurai duel has two seats{place}");
        }
        // Games in all (`koth samurai loop --games N`): whole rounds of every pair.
        let pairs = (entrants * entrants.saturating_sub(1) / 2).max(1) as u64;
        let matches = match (asked.matches, asked.games) {
            (Some(m), _) => m,
            (None, Some(g)) => g.div_ceil(pairs).max(1),
            (None, None) => 8,
        };
        if matches == 0 {
            bail!("--matches must be at least 1");
        }
        Ok(Schedule::RoundRobin {
            games_per_pair: matches,
        })
    }

    fn default_out(file: Option<&Path>, from_list: bool, seed: u64) -> Option<PathBuf> {
        // A list's programs sit in folders beside it, so its run folder can too; a
        // tournament file's bots may run in its own folder, so it gets none.
        let list = file.filter(|_| from_list)?;
        let base = list.parent().unwrap_or(Path::new("."));
        Some(base.join("koth-samurai-out").join(format!("seed-{seed}")))
    }

    fn empty_field() -> Result<Vec<String>> {
        Ok(koth_samurai::BUILTIN_NAMES
            .iter()
            .map(|s| s.to_string())
            .collect())
    }

    fn run_header(f: &RunFacts) -> Option<String> {
        let Schedule::RoundRobin { games_per_pair } = f.schedule else {
            return None;
        };
        Some(format!(
            "Ultimate Samurai Showdown: {} samurai ({} external), {games_per_pair} matches a pair, {} matches, seed {}",
            f.entrants,
            f.external.unwrap_or(0),
            f.games,
            f.seed
        ))
    }

    fn archive(
        out: Option<&Path>,
        names: &[String],
        rules: &Rules,
        resume: bool,
    ) -> Result<Option<Box<dyn Observer<Action>>>> {
        let Some(d) = out else { return Ok(None) };
        std::fs::create_dir_all(d).with_context(|| format!("cannot create {}", d.display()))?;
        let path = d.join("matches.txt");
        let f = std::fs::OpenOptions::new()
            .create(true)
            .append(resume)
            .write(true)
            .truncate(!resume)
            .open(&path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        Ok(Some(Box::new(Archive {
            file: std::io::BufWriter::new(f),
            names: names.to_vec(),
            rules: *rules,
        })))
    }

    fn before_standings(run: &RunEnd) {
        if !run.notes.is_empty() {
            let mut by: BTreeMap<(&str, &str), usize> = BTreeMap::new();
            for n in run.notes {
                *by.entry((&n.program, &n.reason)).or_default() += 1;
            }
            out!("answers recorded as W:");
            for ((p, why), k) in by {
                out!("  {p}: {k} × {why}");
            }
        }
        if let Some(d) = run.out {
            out!(
                "move histories of every match: {}",
                d.join("matches.txt").display()
            );
        }
    }

    fn forfeits_shown(bots: &[BotEntry]) -> bool {
        // Built-ins and the original programs never forfeit (a bad answer is W).
        bots.iter().any(|b| b.protocol() == Some(Protocol::Json))
    }

    fn warn_slow(bots: &[BotEntry], setup: &Setup) -> Result<()> {
        for b in bots {
            let BotSource::Program {
                command,
                dir,
                protocol: Protocol::SamuraiCli,
                sandbox,
                ..
            } = &b.source
            else {
                continue;
            };
            let p = ProgramEntry {
                name: b.name.clone(),
                command: command.clone(),
                dir: dir.clone(),
                line: b.list_line.unwrap_or(0),
            };
            let options = ExternalOptions {
                timeout: setup.timeouts.decision,
                sandbox: *sandbox,
                ..Default::default()
            };
            let limit = options.timeout;
            match koth_samurai_programs::startup_time(&p, &options, 3) {
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

    fn bench_tables() -> Vec<BenchTable> {
        vec![BenchTable {
            title: "two samurai (predictor, guardian)",
            bots: &["predictor", "guardian"],
            reference: None,
        }]
    }

    fn check_header(c: &CheckFacts<Self>) -> String {
        let what = match &c.entry.source {
            BotSource::Builtin(b) => format!("built-in {b}"),
            BotSource::Program {
                command, protocol, ..
            } => format!("{}, {}", command.join(" "), protocol.name()),
        };
        format!(
            "Checking {} ({what}) at Ultimate Samurai Showdown: {} duels from seed {}, {} ms an answer",
            c.entry.name,
            term::count(c.games),
            c.seed,
            c.timeout.as_millis()
        )
    }

    fn check(c: &CheckFacts<Self>, setup: &Setup, progress: &dyn Fn(u64)) -> Result<CheckReport> {
        let mut agent = agent_of(c, setup)?;
        Ok(koth_samurai::check::check(
            agent.as_mut(),
            &c.entry.name,
            &options(c),
            Some(&setup.notes),
            progress,
        ))
    }

    fn check_game(c: &CheckFacts<Self>, setup: &Setup, g: u64) -> Result<CheckReport> {
        use koth_samurai::check::{self as sc, Step};
        let mut agent = agent_of(c, setup)?;
        let opts = koth_samurai::check::CheckOptions {
            close: true,
            ..options(c)
        };
        let name = &c.entry.name;
        let cg = sc::check_game(c.seed, g);
        let names = cg.names(name);
        let names = [names[0].as_str(), names[1].as_str()];
        out!(
            "{}",
            paint(
                &format!(
                    "Check duel {g} (seed {}): {}; {name} asked {}",
                    c.seed,
                    sc::SCENARIOS[cg.scenario],
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
            name,
            &opts,
            g,
            Some(&setup.notes),
            &mut report,
            &mut |duel, step| match step {
                Step::Applied => {
                    for t in &duel.log()[shown.min(duel.log().len())..] {
                        out!("{}", narrate_turn_with(t, names));
                    }
                    shown = duel.log().len();
                    if duel.outcome().is_some() && last.is_none() {
                        last = narrate_end(duel, names);
                    }
                }
                Step::Fault(f) => term::show_fault(name, f, logged.as_deref()),
                Step::Log(text) => term::show_log(name, text, &mut logged),
            },
        );
        if let Some(end) = last {
            out!("{end}");
        }
        Ok(report)
    }
}

/// The check's options.
fn options(c: &CheckFacts<Samurai>) -> koth_samurai::check::CheckOptions {
    koth_samurai::check::CheckOptions {
        games: c.games,
        first: c.first,
        close: c.close,
        slow: c.timeout / 2,
        ..koth_samurai::check::CheckOptions::new(c.seed)
    }
}

/// The checked samurai's agent.
fn agent_of(c: &CheckFacts<Samurai>, setup: &Setup) -> Result<Box<dyn Agent<State>>> {
    let made = koth_entrants::entrants::<State>(std::slice::from_ref(c.entry), setup)?;
    (made[0].factory)(0).map_err(|m| anyhow!("{m}"))
}

/// The duel told turn by turn.
struct SamuraiNarrator {
    names: [String; 2],
    shown: usize,
}

impl Narrator<State> for SamuraiNarrator {
    fn show(&mut self, duel: &State) {
        let names = [self.names[0].as_str(), self.names[1].as_str()];
        for t in &duel.log()[self.shown..] {
            out!("{}", narrate_turn_with(t, names));
        }
        self.shown = duel.log().len();
    }
    fn note(&mut self, program: &str, reason: &str) {
        out!(
            "{}",
            paint(&format!("{program} plays W: {reason}"), Style::new().red())
        );
    }
    fn end(&mut self, duel: &State, recorded: bool) {
        let names = [self.names[0].as_str(), self.names[1].as_str()];
        if let Some(end) = narrate_end(duel, names) {
            out!("{end}{}", if recorded { " (as recorded)" } else { "" });
        }
    }
}

/// Every match's move histories in a file, as the records arrive, in order.
struct Archive {
    file: std::io::BufWriter<std::fs::File>,
    names: Vec<String>,
    rules: Rules,
}

impl Observer<Action> for Archive {
    fn on_record(&mut self, r: &GameRecord<Action>) {
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
            self.file,
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
    fn on_progress(&mut self, _p: &Progress<'_>) {
        let _ = self.file.flush();
    }
}

impl Drop for Archive {
    fn drop(&mut self) {
        let _ = self.file.flush();
    }
}

/// The position in `legal` of the samurai action a typed answer names: its letter
/// (W B G I P O, either case), its number, its name, or the unique start of its name.
pub fn parse_samurai(input: &str, legal: &[Action]) -> Result<usize, String> {
    let t = input.trim();
    let letter = t
        .chars()
        .next()
        .filter(|_| t.len() == 1)
        .and_then(|c| Action::from_char(c.to_ascii_uppercase()));
    if let Some(i) = letter.and_then(|a| legal.iter().position(|&x| x == a)) {
        return Ok(i);
    }
    let labels: Vec<String> = legal.iter().map(|a| a.describe().to_string()).collect();
    term::parse_answer(t, &labels)
}

/// The person at this terminal, in a duel: shown both samurai's health and honour
/// and the last moves, choosing a move by its letter, number or name.
#[derive(Default)]
pub struct HumanSamurai {
    names: Vec<String>,
}

impl Agent<State> for HumanSamurai {
    fn seat_names(&mut self, names: &[&str]) {
        self.names = names.iter().map(|n| n.to_string()).collect();
    }

    fn decide(&mut self, game: &State, seat: Seat, legal: &[Action]) -> Result<Action, Fault> {
        let mut out = std::io::stdout();
        let v = game.view(seat);
        let last = |h: &[Action]| {
            h.last()
                .map_or("nothing yet".to_string(), |a| a.describe().to_string())
        };
        let _ = writeln!(
            out,
            "\n  >> turn {}: you have {} health and {} honour, the enemy {} and {}; last turn you: {}, the enemy: {}",
            v.turns_played() + 1,
            v.my_health,
            v.my_honour,
            v.enemy_health,
            v.enemy_honour,
            last(v.my_history),
            last(v.enemy_history)
        );
        let menu: Vec<String> = legal
            .iter()
            .map(|a| format!("{a}) {}", a.describe()))
            .collect();
        let _ = writeln!(out, "  >> {}", menu.join("   "));
        loop {
            let _ = write!(out, "  >> choose: ");
            let _ = out.flush();
            let mut line = String::new();
            match std::io::stdin().lock().read_line(&mut line) {
                Ok(0) | Err(_) => return Err(Fault::new("the player left (end of input)")),
                Ok(_) => {}
            }
            match parse_samurai(&line, legal) {
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

    #[test]
    fn samurai_answers_by_letter_number_or_name() {
        let legal = Action::ALL;
        assert_eq!(parse_samurai("p\n", &legal), Ok(4));
        assert_eq!(parse_samurai("O", &legal), Ok(5));
        assert_eq!(parse_samurai("1", &legal), Ok(0));
        assert_eq!(parse_samurai("quick", &legal), Ok(3));
        assert_eq!(parse_samurai("overhead strike", &legal), Ok(5));
        assert!(parse_samurai("x", &legal).is_err());
        assert!(parse_samurai("7", &legal).unwrap_err().contains("1 to 6"));
        // A letter counts only among the legal moves.
        assert_eq!(parse_samurai("g", &[Action::W, Action::G]), Ok(1));
    }
}
