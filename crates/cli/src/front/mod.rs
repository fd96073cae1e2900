//! A game's front: everything the commands need to know about one game, in one
//! place. Coup ([`coup`]), Ultimate Samurai Showdown ([`samurai`]) and seed 000's
//! two-player edition of Coup ([`ppcg`]) each implement [`Front`] once; every
//! command (`play`, `run`, `check`, ...) is written once, generic over it.
//!
//! To add a game: implement its rules as a [`koth_arena::Game`], its bot kinds as
//! a [`koth_entrants::BotKinds`], then a [`Front`] in a file of this folder, and
//! list it in [`visit`] and in `main.rs`'s command tree.

pub mod coup;
pub mod page;
pub mod ppcg;
pub mod samurai;

use anyhow::Result;
use koth_arena::check::CheckReport;
use koth_arena::{Agent, Game, GameRecord, Schedule, Scoring, Seat};
use koth_entrants::{BotEntry, BotKinds, Protocol, Setup, TournamentFile};
use std::path::Path;
use std::time::Duration;

/// A game's rules.
pub type RulesOf<F> = <<F as Front>::Game as Game>::Rules;
/// A game's choice.
pub type ChoiceOf<F> = <<F as Front>::Game as Game>::Choice;

/// One game as the command line knows it: its names and words, its rules and
/// built-in bots, how its seats are taken, how it is narrated and how a bot of it
/// is checked. Names no command: the commands call it.
pub trait Front: Sized + 'static {
    /// The game's state machine.
    type Game: BotKinds;
    /// Options of the command line that shape the rules (`--rules`, `--strict`).
    type Options: clap::Args + Clone + std::fmt::Debug + Default + Send + Sync + 'static;

    /// The word of its commands: `koth coup ...`.
    const WORD: &'static str;
    /// How its games are scored.
    const SCORING: Scoring;
    /// The protocol of a program named by its bare command (`'python3 bot.py'`).
    const BARE: Protocol = Protocol::Json;
    /// The protocol of the programs of a list file, when the game takes lists
    /// (one `Name command...` a line, each program in the folder of its name).
    const LIST: Option<Protocol> = None;
    /// A decision's time limit for programs, by default, in milliseconds.
    const TIMEOUT_MS: u64 = 1000;
    /// The seats of a narrated game when none are named.
    const PLAY_SEATS: &'static [&'static str] = &[];
    /// Games a check plays by default.
    const CHECK_GAMES: u64;
    /// Whether its games deal hidden information (a seed picked by hand is then
    /// worth a warning: a bot that guesses it rebuilds every deal).
    const HIDDEN: bool = true;
    /// What the old form of `run` called its file (`koth ppcg LIST`).
    const FILE_WORD: &'static str = "FILE";
    /// Whether a run's isolation line (with the limits of its JSON-lines
    /// programs) is part of its results: printed once, at the start on
    /// stderr, or with `-q` (which shows no start) after the standings.
    /// Otherwise it is progress only, on stderr without `-q`.
    const ISOLATION_IN_RESULTS: bool = false;
    /// The command a run folder's `run.json` says made it (`run`).
    const RUNNER: &'static str = "run";
    /// The same, for a run of built-in bots (`koth <game> loop`).
    const LOOP_RUNNER: &'static str;

    /// The built-in bots, each with a line about how it plays (empty when it has none).
    fn builtins() -> Vec<(&'static str, &'static str)>;

    /// Built-ins listed by `bots` but left out of the default field: those that
    /// search (they cost far more a decision) and reference ladders.
    fn champions() -> Vec<(&'static str, &'static str)> {
        Vec::new()
    }

    /// The rules that `options` and a tournament file ask for, and their name.
    fn rules(
        options: &Self::Options,
        file: Option<&TournamentFile>,
    ) -> Result<(RulesOf<Self>, String)>;

    /// The rules a run folder's `run.json` recorded.
    fn recorded_rules(json: &serde_json::Value) -> Result<RulesOf<Self>>;

    /// The time limits, workspace and notes of `options`' programs.
    fn setup(_options: &Self::Options, setup: Setup) -> Setup {
        setup
    }

    /// The flags that repeat `options` on a command line (`--rules ppcg`), each
    /// with a space before it.
    fn flags(_options: &Self::Options) -> String {
        String::new()
    }

    /// A seat for the person at this terminal, shown only their own view.
    fn human() -> Box<dyn Agent<Self::Game>>;

    /// A fresh game for `names`, dealt from `deal`; `folder` is the game's own
    /// scratch folder, for a game that keeps files.
    fn table(rules: &RulesOf<Self>, names: &[String], deal: u64, _folder: &Path) -> Self::Game {
        Self::Game::new_game(rules, names.len(), deal)
    }

    /// The first line of a narrated game.
    fn play_header(rules: &str, seed: u64, names: &[String]) -> String;

    /// What tells a game as it is played or replayed: with `hide`, only what a
    /// player sees (the cards of seat `own`, the watcher's, are shown at the deal).
    fn narrator(names: &[String], hide: bool, own: Option<Seat>) -> Box<dyn Narrator<Self::Game>>;

    /// A recorded game as the report page's steps ([`page::Steps`]).
    fn page_steps(
        rules: &RulesOf<Self>,
        rec: &GameRecord<ChoiceOf<Self>>,
        names: &[String],
    ) -> Result<Vec<page::Step>, String>;

    /// Facts the report page draws this game's tables with.
    fn page_facts() -> serde_json::Map<String, serde_json::Value> {
        serde_json::Map::new()
    }

    /// The schedule of a run of `entrants` bots, from what the command line and
    /// the tournament file ask; `place` names the file for messages.
    fn schedule(
        asked: &Asked,
        entrants: usize,
        rules: &RulesOf<Self>,
        place: &str,
    ) -> Result<Schedule>;

    /// Readies the rules of a run played into `out` (a game that keeps files of
    /// its own puts them there).
    fn ready(
        _rules: &mut RulesOf<Self>,
        _names: &[String],
        _schedule: &Schedule,
        _seed: u64,
        _out: Option<&Path>,
    ) -> Result<()> {
        Ok(())
    }

    /// Where a run goes without `--out`, if anywhere: `file` is its tournament
    /// file or program list (`from_list`).
    fn default_out(
        _file: Option<&Path>,
        _from_list: bool,
        _seed: u64,
    ) -> Option<std::path::PathBuf> {
        None
    }

    /// The built-ins a run without any bot plays, or why it cannot be played.
    fn empty_field() -> Result<Vec<String>> {
        Ok(Vec::new())
    }

    /// The game that plays `bots` when this one cannot (Coup's tournament file of
    /// seed 000's programs is played by seed 000's edition), with the rules' name.
    fn hand_over(
        _bots: &[BotEntry],
        _options: &Self::Options,
        _file: Option<&TournamentFile>,
    ) -> Result<Option<HandOverTo>> {
        Ok(None)
    }

    /// Whether a run's forfeits are listed (a game whose bots cannot forfeit
    /// lists none).
    fn forfeits_shown(_bots: &[BotEntry]) -> bool {
        true
    }

    /// The first line of a run, on stderr.
    fn run_header(facts: &RunFacts) -> Option<String>;

    /// What the game shows of a finished run before its leaderboard.
    fn before_standings(_run: &RunEnd) {}

    /// What the game shows of a finished run after its forfeits.
    fn after_forfeit(_run: &RunEnd) {}

    /// An observer of the run's records, beside the progress bar (a file of every
    /// game in the game's own words).
    fn archive(
        _out: Option<&Path>,
        _names: &[String],
        _rules: &RulesOf<Self>,
        _resume: bool,
    ) -> Result<Option<Box<dyn koth_arena::Observer<ChoiceOf<Self>>>>> {
        Ok(None)
    }

    /// Warns about programs that start too slowly for the time limit.
    fn warn_slow(_bots: &[BotEntry], _setup: &Setup) -> Result<()> {
        Ok(())
    }

    /// The first line of a check.
    fn check_header(c: &CheckFacts<Self>) -> String;

    /// Puts the bot through every kind of decision: games `c.first` on, with one
    /// process (a fresh one each time this is called).
    fn check(c: &CheckFacts<Self>, setup: &Setup, progress: &dyn Fn(u64)) -> Result<CheckReport>;

    /// Narrates check game `g`, and what the bot did wrong in it.
    fn check_game(c: &CheckFacts<Self>, setup: &Setup, g: u64) -> Result<CheckReport>;

    /// The tables `koth <game> bench` plays, the first measured in full.
    fn bench_tables() -> Vec<BenchTable> {
        Vec::new()
    }
}

/// A table the bench plays: its bots and a reference engine that plays it too.
pub struct BenchTable {
    /// What it is, as its heading says.
    pub title: &'static str,
    /// The built-in bots at the table.
    pub bots: &'static [&'static str],
    /// Another engine playing the same table, if there is one.
    pub reference: Option<Reference>,
}

/// Another engine, measured beside koth.
#[derive(Clone, Copy)]
pub struct Reference {
    /// Its name (`coup crate 1.1.1`).
    pub name: &'static str,
    /// Its name in the first line (`coup crate`).
    pub short: &'static str,
    /// Plays the table for a budget: games/s and games played.
    pub run: fn(Duration) -> std::io::Result<(f64, u64)>,
}

/// Tells a game on the terminal as it goes.
pub trait Narrator<G> {
    /// Before the seats start: the deal, as far as the watcher may see it.
    fn opening(&mut self, _game: &G) {}
    /// After the seats started and said what they had to say.
    fn start(&mut self, _game: &G) {}
    /// After each change: what happened since the last call.
    fn show(&mut self, game: &G);
    /// Before a bot's lines are shown: what the narrator held back comes first.
    fn before_log(&mut self) {}
    /// A note about a program's answer (why it was read as it was).
    fn note(&mut self, _program: &str, _reason: &str) {}
    /// The result; `recorded` when the game is a replay of a record.
    fn end(&mut self, game: &G, recorded: bool);
}

/// What the command line and the tournament file ask of a run's schedule.
#[derive(Clone, Debug, Default)]
pub struct Asked {
    /// Games in all.
    pub games: Option<u64>,
    /// Games each pair plays (a round robin).
    pub matches: Option<u64>,
    /// Rounds of every ordered pair.
    pub rounds: Option<u64>,
    /// Seats a game.
    pub table_size: Option<usize>,
    /// Balanced rounds or random tables.
    pub kind: crate::settings::ScheduleKind,
    /// Duplicate play.
    pub duplicate: bool,
    /// The default number of games.
    pub default_games: u64,
    /// The rules' name.
    pub rules: String,
    /// How the flags are called: `--table-size` for `loop`, `table size` for `run`.
    pub table_flag: &'static str,
}

/// The game a field is handed over to.
pub struct HandOverTo {
    /// Its word (`ppcg`).
    pub game: &'static str,
    /// The rules' name the field asked for.
    pub rules: String,
}

/// What a run is, for its header line.
pub struct RunFacts<'a> {
    /// The rules' name.
    pub rules: &'a str,
    /// Games asked for, before rounding.
    pub asked: u64,
    /// The schedule.
    pub schedule: &'a Schedule,
    /// Games in the run.
    pub games: u64,
    /// Entrants.
    pub entrants: usize,
    /// External programs among them (`None`: built-ins only were asked for).
    pub external: Option<usize>,
    /// Master seed.
    pub seed: u64,
    /// Worker threads.
    pub threads: usize,
    /// Duplicate play.
    pub duplicate: bool,
    /// The bots came from a program list.
    pub from_list: bool,
}

/// A finished run, for what the game shows of it.
pub struct RunEnd<'a> {
    /// The run's folder.
    pub out: Option<&'a Path>,
    /// The standings.
    pub standings: &'a koth_arena::Standings,
    /// The notes the programs left (Samurai's originals: why an answer was W).
    pub notes: &'a [koth_samurai_programs::Note],
}

/// What a check is about.
pub struct CheckFacts<'a, F: Front> {
    /// The bot.
    pub entry: &'a BotEntry,
    /// The game's options.
    pub options: &'a F::Options,
    /// The rules' name.
    pub rules_name: &'a str,
    /// The rules.
    pub rules: &'a RulesOf<F>,
    /// Games to play.
    pub games: u64,
    /// The number of the first (0 unless one game is played again on its own).
    pub first: u64,
    /// End the program after each game and blame what it printed after its last
    /// answer (for a game played alone by a fresh process).
    pub close: bool,
    /// Seed of the positions and opponents.
    pub seed: u64,
    /// A decision's time limit.
    pub timeout: Duration,
}

/// The words of every game's commands.
/// The word of seed 000's two-player edition (`koth ppcg`), which Coup's front
/// hands its programs over to.
pub const PPCG: &str = "ppcg";

pub const WORDS: [&str; 3] = [coup::Coup::WORD, samurai::Samurai::WORD, ppcg::Ppcg::WORD];

/// Runs `V` with the front whose record name (`run.json`'s `game`) is `game`.
pub trait Visit {
    /// What it returns.
    type Out;
    /// Runs it with front `F`.
    fn visit<F: Front>(self) -> Self::Out;
}

/// The fronts, by the name their runs record (`coup`, `coup-ppcg`, `samurai`).
pub fn visit<V: Visit>(game: &str, v: V) -> Option<V::Out> {
    match game {
        g if g == <coup::Coup as Front>::Game::NAME => Some(v.visit::<coup::Coup>()),
        g if g == <ppcg::Ppcg as Front>::Game::NAME => Some(v.visit::<ppcg::Ppcg>()),
        g if g == <samurai::Samurai as Front>::Game::NAME => Some(v.visit::<samurai::Samurai>()),
        _ => None,
    }
}

/// The fronts, by the word of their commands (`coup`, `ppcg`, `samurai`).
pub fn visit_word<V: Visit>(word: &str, v: V) -> Option<V::Out> {
    match word {
        w if w == coup::Coup::WORD => Some(v.visit::<coup::Coup>()),
        w if w == ppcg::Ppcg::WORD => Some(v.visit::<ppcg::Ppcg>()),
        w if w == samurai::Samurai::WORD => Some(v.visit::<samurai::Samurai>()),
        _ => None,
    }
}

/// A reference engine that is a program of its own (`coupcrate-bench`, the
/// `coup` crate's engine, GPL-3.0 and so kept out of koth's binary): found beside
/// koth's executable or on PATH, run as `PROGRAM TABLE SECONDS` with its stdout
/// discarded; it prints `games N seconds S` on stderr.
pub fn program_reference(
    program: &str,
    table: &str,
    budget: Duration,
) -> std::io::Result<(f64, u64)> {
    use std::io::{Error, ErrorKind};
    let beside = std::env::current_exe()
        .ok()
        .and_then(|e| Some(e.parent()?.join(program)))
        .filter(|p| p.is_file());
    let path = beside.or_else(|| {
        std::env::split_paths(&std::env::var_os("PATH")?)
            .map(|d| d.join(program))
            .find(|p| p.is_file())
    });
    let Some(path) = path else {
        return Err(Error::new(
            ErrorKind::NotFound,
            format!("{program} is not built (cargo build --release -p koth-coup-crate puts it beside koth)"),
        ));
    };
    let out = std::process::Command::new(&path)
        .args([table, &budget.as_secs_f64().to_string()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .output()?;
    let text = String::from_utf8_lossy(&out.stderr);
    let mut words = text.split_whitespace();
    let parsed = match (words.next(), words.next(), words.next(), words.next()) {
        (Some("games"), Some(g), Some("seconds"), Some(s)) => {
            g.parse::<u64>().ok().zip(s.parse::<f64>().ok())
        }
        _ => None,
    };
    match parsed {
        Some((games, secs)) if out.status.success() && secs > 0.0 => {
            Ok((games as f64 / secs, games))
        }
        _ => Err(Error::other(format!(
            "{} did not report its games: {}",
            path.display(),
            text.trim()
        ))),
    }
}
