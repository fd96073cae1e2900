//! Coup, the two-player challenge edition (seed 000): its programs run unchanged
//! through the history file, every game filed with its history and readable log.

use super::coup::{page_facts, HumanAgent, Teller};
use super::page::Step;
use super::{Asked, CheckFacts, Front, Narrator, RunEnd, RunFacts};
use crate::term;
use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use koth_arena::check::CheckReport;
use koth_arena::{Agent, Game, GameRecord, Schedule, Scoring, Seat};
use koth_coup::Choice;
use koth_entrants::{BotSource, Protocol, Setup, TournamentFile};
use koth_ppcg::{Field, Lifted, PpcgGame, PpcgRules};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Seed 000's two-player Coup.
#[derive(Debug)]
pub struct Ppcg;

/// The options of seed 000's edition.
#[derive(Args, Clone, Debug, Default)]
pub struct PpcgOptions {
    /// Forfeit anything but exactly one legal move (for new contests). By default a
    /// move is accepted and credited exactly as the original arbiter reads it, and
    /// each lenient acceptance is a warning in the game's log and the leaderboard.
    #[arg(long)]
    pub strict: bool,
    /// Accepted for older scripts: reading moves as the original does is now the
    /// default.
    #[arg(long, hide = true)]
    pub compat: bool,
}

impl Front for Ppcg {
    type Game = PpcgGame;
    type Options = PpcgOptions;
    const WORD: &'static str = super::PPCG;
    const SCORING: Scoring = Scoring::SharedPoint;
    const BARE: Protocol = Protocol::Ppcg;
    const LIST: Option<Protocol> = Some(Protocol::Ppcg);
    const TIMEOUT_MS: u64 = 10_000;
    const CHECK_GAMES: u64 = 30;
    const RUNNER: &'static str = "ppcg";
    const FILE_WORD: &'static str = "LIST";
    const LOOP_RUNNER: &'static str = "ppcg loop";

    fn builtins() -> Vec<(&'static str, &'static str)> {
        koth_coup::bots::BUILTINS.to_vec()
    }

    fn champions() -> Vec<(&'static str, &'static str)> {
        koth_coup::bots::reserve().collect()
    }

    fn rules(options: &PpcgOptions, file: Option<&TournamentFile>) -> Result<(PpcgRules, String)> {
        if options.compat && options.strict {
            bail!("--compat and --strict contradict each other; --compat is the default now");
        }
        if file.is_some_and(|f| f.rules != "ppcg") {
            bail!("programs of the two-player challenge play under its rules\n  fix: add rules = \"ppcg\" to [tournament], or --rules ppcg");
        }
        let rules = PpcgRules {
            strict: options.strict,
            ..PpcgRules::default()
        };
        Ok((rules, "ppcg".into()))
    }

    fn recorded_rules(json: &serde_json::Value) -> Result<PpcgRules> {
        PpcgRules::from_json(json).map_err(|e| anyhow!("run.json: {e}"))
    }

    fn setup(options: &PpcgOptions, setup: Setup) -> Setup {
        Setup {
            strict: options.strict,
            ..setup
        }
    }

    fn flags(options: &PpcgOptions) -> String {
        if options.strict {
            " --strict".into()
        } else {
            String::new()
        }
    }

    fn human() -> Box<dyn Agent<PpcgGame>> {
        Box::new(Lifted(Box::new(HumanAgent::default())))
    }

    fn table(rules: &PpcgRules, names: &[String], deal: u64, folder: &Path) -> PpcgGame {
        let pair = [
            names[0].as_str(),
            names.get(1).map_or("second", String::as_str),
        ];
        PpcgGame::standalone(rules.coup, deal, pair, folder.to_path_buf(), "game")
    }

    fn play_header(_rules: &str, seed: u64, names: &[String]) -> String {
        format!(
            "Coup, the two-player challenge, seed {seed}: {} (first) vs {}",
            names[0], names[1]
        )
    }

    fn narrator(names: &[String], hide: bool, _own: Option<Seat>) -> Box<dyn Narrator<PpcgGame>> {
        Box::new(PpcgNarrator {
            teller: Teller::new(names, hide),
            names: names.to_vec(),
        })
    }

    fn page_steps(
        rules: &PpcgRules,
        rec: &GameRecord<Choice>,
        names: &[String],
    ) -> Result<Vec<Step>, String> {
        super::coup::page_steps::<PpcgGame>(rules, rec, names, |g| g.state())
    }

    fn page_facts() -> serde_json::Map<String, serde_json::Value> {
        page_facts("Coup, the two-player challenge")
    }

    fn schedule(
        asked: &Asked,
        entrants: usize,
        _rules: &PpcgRules,
        _place: &str,
    ) -> Result<Schedule> {
        if asked.duplicate || asked.table_size.is_some_and(|t| t != 2) {
            bail!("the two-player challenge is a round robin of pairs: --duplicate and table sizes other than 2 do not apply");
        }
        if asked.matches.is_some() {
            bail!(
                "the two-player challenge is played in rounds of every ordered pair: use --rounds"
            );
        }
        let n = entrants.max(2) as u64;
        let rounds = match (asked.rounds, asked.games) {
            (Some(r), _) => r,
            (None, Some(g)) => g.div_ceil(n * (n - 1)).max(1),
            (None, None) => 10,
        };
        if rounds == 0 {
            bail!("--rounds must be at least 1");
        }
        Ok(Schedule::RoundRobin {
            games_per_pair: 2 * rounds,
        })
    }

    fn ready(
        rules: &mut PpcgRules,
        names: &[String],
        schedule: &Schedule,
        seed: u64,
        out: Option<&Path>,
    ) -> Result<()> {
        // Without a folder (a hill, which keeps every game in its database) no
        // game is filed.
        let Some(out) = out else {
            rules.field = Some(Arc::new(
                Field::new(names.to_vec(), *schedule, seed, PathBuf::new()).unarchived(),
            ));
            return Ok(());
        };
        std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
        let out = std::fs::canonicalize(out)?;
        rules.field = Some(Arc::new(Field::new(names.to_vec(), *schedule, seed, out)));
        Ok(())
    }

    fn default_out(file: Option<&Path>, _from_list: bool, seed: u64) -> Option<PathBuf> {
        // Every game's files go beside the list (or the tournament file).
        let base = file
            .and_then(Path::parent)
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        Some(base.join("koth-ppcg-out").join(format!("seed-{seed}")))
    }

    fn empty_field() -> Result<Vec<String>> {
        bail!("koth ppcg needs the program list\n  fix: koth ppcg run examples/ppcg/players.txt (one `Name command...` a line)")
    }

    fn run_header(f: &RunFacts) -> Option<String> {
        if f.from_list {
            return None;
        }
        let Schedule::RoundRobin { games_per_pair } = f.schedule else {
            return None;
        };
        let rounds = games_per_pair / 2;
        Some(format!(
            "Coup, the two-player challenge: {} bots, {rounds} round{} of every ordered pair ({} games), seed {}",
            f.entrants,
            if rounds == 1 { "" } else { "s" },
            f.games,
            f.seed
        ))
    }

    fn before_standings(run: &RunEnd) {
        // The seed's leaderboard: score then name, highest first.
        out!("Leaderboard");
        for &e in &run.standings.ranking() {
            let st = &run.standings.entrants[e];
            out!("{:5} {}", st.score.sum(), st.name);
        }
        out!("");
        if let Some(d) = run.out {
            out!("games (history files and logs): {}", d.display());
        }
    }

    fn after_forfeit(run: &RunEnd) {
        if let Some(d) = run.out {
            out!(
                "\nthe game's history file and readable log are in {}",
                d.display()
            );
        }
    }

    fn check_header(c: &CheckFacts<Self>) -> String {
        let what = match &c.entry.source {
            BotSource::Builtin(b) => format!("built-in {b}"),
            BotSource::Program { command, .. } => command.join(" "),
        };
        format!(
            "Checking {} ({what}) at the two-player challenge: {} games from seed {}, {} ms an invocation{}",
            c.entry.name,
            c.games,
            c.seed,
            c.timeout.as_millis(),
            if c.options.strict { ", strict" } else { "" }
        )
    }

    fn check(c: &CheckFacts<Self>, setup: &Setup, progress: &dyn Fn(u64)) -> Result<CheckReport> {
        let mut agent = agent_of(c, setup)?;
        let opts = options(c);
        Ok(koth_ppcg::check::check(
            agent.as_mut(),
            &c.entry.name,
            &opts,
            progress,
        )?)
    }

    fn check_game(c: &CheckFacts<Self>, setup: &Setup, g: u64) -> Result<CheckReport> {
        use koth_ppcg::check as pc;
        let mut agent = agent_of(c, setup)?;
        let opts = options(c);
        let name = &c.entry.name;
        let scratch = koth_process::ScratchDir::new("ppcg-check-files")?;
        let cg = pc::check_game(c.seed, g);
        let seat = cg.seat;
        let opponent = cg.opponents[1 - seat];
        let mut names = vec![opponent.to_string(), opponent.to_string()];
        names[seat] = name.clone();
        out!(
            "Check game {g} (seed {}): {}; {name} against {opponent}, {name} asked {}",
            c.seed,
            cg.about(),
            if seat == 0 { "first" } else { "second" }
        );
        if let Some(d) = cg.directed {
            out!(
                "  (moves up to the decision under test, {}, are played for their players; {name} reads them in its history file)",
                pc::KINDS[d.target]
            );
        }
        let mut report = pc::new_report(&opts);
        let mut teller = Teller::new(&names, false);
        let mut end = None;
        pc::play_check_game(
            agent.as_mut(),
            name,
            &opts,
            g,
            scratch.path(),
            &mut report,
            &mut |game, step| {
                match step {
                    pc::Step::Applied => teller.show(game.state()),
                    pc::Step::Fault(f) => term::show_fault(name, f, None),
                }
                if game.outcome().is_some() {
                    end = Some(game.history().canonical().to_string());
                }
            },
        );
        if let Some(file) = end {
            out!("\nthe history file at the end:\n{}", file.trim_end());
        }
        Ok(report)
    }
}

/// The check's options.
fn options(c: &CheckFacts<Ppcg>) -> koth_ppcg::check::CheckOptions {
    koth_ppcg::check::CheckOptions {
        games: c.games,
        first: c.first,
        slow: c.timeout / 2,
        ..koth_ppcg::check::CheckOptions::new(c.seed)
    }
}

/// The checked bot's agent.
fn agent_of(c: &CheckFacts<Ppcg>, setup: &Setup) -> Result<Box<dyn Agent<PpcgGame>>> {
    let made = koth_entrants::entrants::<PpcgGame>(std::slice::from_ref(c.entry), setup)?;
    (made[0].factory)(0).map_err(|m| anyhow!("{m}"))
}

/// The edition's narrator: the Coup table's log, then who won and the history file.
struct PpcgNarrator {
    teller: Teller,
    names: Vec<String>,
}

impl Narrator<PpcgGame> for PpcgNarrator {
    fn show(&mut self, game: &PpcgGame) {
        self.teller.show(game.state());
    }
    fn before_log(&mut self) {
        self.teller.flush();
    }
    fn end(&mut self, game: &PpcgGame, recorded: bool) {
        self.teller.flush();
        let winners: Vec<&str> = game
            .outcome()
            .map(|o| o.winners.iter().map(|s| self.names[s].as_str()).collect())
            .unwrap_or_default();
        let said = if recorded { " (as recorded)" } else { "" };
        match winners[..] {
            [w] => out!("\nWinner: {w}{said}"),
            _ => out!("\nNo winner: the invocation cap was reached{said}"),
        }
        if !recorded {
            out!(
                "\nthe history file:\n{}",
                game.history().canonical().trim_end()
            );
        }
    }
}
