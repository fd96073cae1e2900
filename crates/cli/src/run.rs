//! `koth <game> run`: a tournament of bots of any kind (a tournament file, a
//! program list of the game's original challenge, `--bot` and `--builtin`), and
//! `koth <game> loop`: a tournament of built-in bots. Any game.

use crate::front::{Asked, ChoiceOf, Front, RulesOf, RunEnd, RunFacts};
use crate::runs::{execute, Describe, RunOpts};
use crate::settings::{self, ScheduleKind};
use crate::summary::Finish;
use crate::term::{self, Bar, Forfeits};
use anyhow::{anyhow, bail, Result};
use clap::Args;
use koth_arena::{Game, GameRecord, Observer, Progress, RecordLevel, Tournament};
use koth_entrants::{BotEntry, BotKinds, BotSource, Setup, Timeouts, TournamentFile};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Options of `koth <game> run`.
#[derive(Args, Debug)]
pub struct RunArgs<F: Front> {
    /// A tournament file (FILE.toml: `[tournament]` settings and `[[bot]]` entries of
    /// any kind), or for a game with one, a list of programs of its original
    /// challenge (one a line, the name then the command; each runs in the folder
    /// of its name beside the list).
    pub file: Option<PathBuf>,
    /// A bot, repeatable: a built-in's name, NAME=builtin:NAME, 'NAME=cmd:python3 bot.py' (JSON lines,
    /// run in the folder of its file), or a program of an original protocol
    /// ('NAME=ppcg:python3 old.py', 'NAME=samurai-cli:./old', 'NAME=coup-cli:bots/x');
    /// added to the file's bots.
    #[arg(long = "bot", value_name = "NAME=SPEC")]
    pub bots: Vec<String>,
    /// Add a built-in bot to the field (repeatable, or comma-separated).
    #[arg(long = "builtin", value_name = "NAME", value_delimiter = ',')]
    pub builtins: Vec<String>,
    #[command(flatten)]
    pub options: F::Options,
    /// Games to play (overrides the file; default 1000).
    #[arg(long, value_parser = settings::at_least_one::<u64>)]
    pub games: Option<u64>,
    /// Games each pair plays in a round robin of pairs (Samurai: default 8, or the
    /// file's), alternating who is called first.
    #[arg(long, value_parser = settings::at_least_one::<u64>)]
    pub matches: Option<u64>,
    /// Rounds of a round robin in which every bot plays every other going first and
    /// second (the two-player challenge: default 10).
    #[arg(long, value_parser = settings::at_least_one::<u64>)]
    pub rounds: Option<u64>,
    /// Master seed (overrides the file; random if unset anywhere).
    #[arg(long)]
    pub seed: Option<u64>,
    /// The seed was derived from a secret one (a hill's round): no note that it
    /// was chosen by hand.
    #[arg(long, hide = true)]
    pub seed_derived: bool,
    /// Seats per game (overrides the file; default min(6, bots)).
    #[arg(long)]
    pub table_size: Option<usize>,
    /// Worker threads = parallel games; each external bot runs one process per thread.
    #[arg(long, value_parser = settings::at_least_one::<usize>)]
    pub threads: Option<usize>,
    /// Time limit per decision for programs, in milliseconds: from launch for
    /// programs started once a move (default the file's, or the game's: 1000, and
    /// 10000 for the two-player challenge).
    #[arg(long)]
    pub timeout_ms: Option<u64>,
    /// Isolation of the programs of a list and of --bot: `auto` or `required` (each
    /// in a sandbox of its own; where this machine cannot make one, the run does not
    /// start), `off` (programs you trust: no isolation).
    #[arg(long, value_name = "MODE", value_parser = settings::parse_sandbox)]
    pub sandbox: Option<koth_process::Sandbox>,
    /// Write the leaderboard, seed, rules and timing as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub summary_json: Option<PathBuf>,
    /// Debugging: stop at the first forfeit (after the games under way) and show
    /// that game, the reason and the bot's last stderr lines.
    #[arg(long)]
    pub stop_on_forfeit: bool,
    /// Keep each program's folder as it left it (its last game in each parallel
    /// slot), in the run folder's folders/slot-N/NAME; otherwise a program's private
    /// folder goes with it.
    #[arg(long)]
    pub keep_folders: bool,
    /// Duplicate play: each deal is played once per rotation of the seats (games are
    /// rounded up to whole deals); intervals are taken over deals.
    #[arg(long)]
    pub duplicate: bool,
    /// Who plays whom: balanced (every bot the same number of games, once in every
    /// seat per round; games rounded up to whole rounds) or random (each game a
    /// random draw, as seed 003's loop mode).
    #[arg(long, value_enum, default_value_t = ScheduleKind::Balanced)]
    pub schedule: ScheduleKind,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    #[command(flatten)]
    pub run: RunOpts,
}

/// Options of `koth <game> loop`.
#[derive(Args, Debug)]
pub struct LoopArgs<F: Front> {
    /// Games to play.
    #[arg(long, default_value_t = 100_000, value_parser = settings::at_least_one::<u64>)]
    pub games: u64,
    /// Bots in the tournament, comma-separated; a name twice means two seats of it
    /// (default: every built-in bot).
    #[arg(long, value_delimiter = ',')]
    pub bots: Option<Vec<String>>,
    #[command(flatten)]
    pub options: F::Options,
    /// Master seed (random if left out; printed so the run can be repeated).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Seats per game (default: min(6, bots)); with more bots, each game seats a random draw.
    #[arg(long)]
    pub table_size: Option<usize>,
    /// Worker threads (default: every core). Results do not depend on it.
    #[arg(long, value_parser = settings::at_least_one::<usize>)]
    pub threads: Option<usize>,
    /// Duplicate play: each deal is played once per rotation of the seats (games are
    /// rounded up to whole deals), so the luck of the cards cancels; intervals are
    /// taken over deals.
    #[arg(long)]
    pub duplicate: bool,
    /// Who plays whom: balanced (every bot the same number of games, once in every
    /// seat per round; games rounded up to whole rounds) or random (each game a
    /// random draw, as seed 003's loop mode).
    #[arg(long, value_enum, default_value_t = ScheduleKind::Balanced)]
    pub schedule: ScheduleKind,
    /// Write the leaderboard, seed, rules and timing as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub summary_json: Option<PathBuf>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    #[command(flatten)]
    pub run: RunOpts,
}

/// The commands of a game, for a file argument that looks like a misspelt one.
const VERBS: [&str; 7] = ["play", "run", "loop", "check", "bots", "bench", "gauntlet"];

/// Runs `koth <game> run`.
pub fn run<F: Front>(a: RunArgs<F>) -> Result<()> {
    let list = match &a.file {
        Some(f) => {
            settings::check_not_a_typo(f, &format!("koth {}", F::WORD), &VERBS)?;
            F::LIST.filter(|_| f.extension().is_none_or(|e| e != "toml"))
        }
        None => None,
    };
    let mut file = match (&a.file, list) {
        (Some(p), None) => Some(TournamentFile::load_for(F::Game::KIND, p)?),
        _ => None,
    };
    let place = a
        .file
        .as_ref()
        .map(|p| format!(" in {}", p.display()))
        .unwrap_or_default();
    let sandbox = a.sandbox.unwrap_or_default();
    let mut bots: Vec<BotEntry> = match (&a.file, list) {
        (Some(p), Some(protocol)) => koth_entrants::load_list(p, protocol, sandbox)?,
        _ => file.as_ref().map(|f| f.bots.clone()).unwrap_or_default(),
    };
    for b in &a.bots {
        bots.push(koth_entrants::parse_bot_arg_for(F::Game::KIND, b)?);
    }
    if let Some(mode) = a.sandbox {
        // The command line's word stands for every program of the run.
        for b in &mut bots {
            if let BotSource::Program { sandbox: s, .. } = &mut b.source {
                *s = mode;
            }
        }
    }
    let mut builtins = a.builtins.clone();
    if bots.is_empty() && builtins.is_empty() {
        builtins = F::empty_field()?;
    }
    add_builtins::<F>(&mut bots, &builtins)?;
    if let Some(word) = F::hand_over(&bots, &a.options, file.as_ref())? {
        // Another game plays this field (Coup's file of seed 000's programs).
        if let Some(f) = file.as_mut() {
            f.rules = word.rules.clone();
        }
        return crate::front::visit_word(word.game, HandOver { a: &a, file, bots })
            .unwrap_or_else(|| Err(anyhow!("no game {:?}", word.game)));
    }
    play_field::<F>(&a, &a.options, file, bots, list.is_some(), &place)
}

/// A field handed to the game that plays it.
struct HandOver<'a, G: Front> {
    a: &'a RunArgs<G>,
    file: Option<TournamentFile>,
    bots: Vec<BotEntry>,
}

impl<G: Front> crate::front::Visit for HandOver<'_, G> {
    type Out = Result<()>;
    fn visit<F: Front>(self) -> Result<()> {
        let place = self
            .a
            .file
            .as_ref()
            .map(|p| format!(" in {}", p.display()))
            .unwrap_or_default();
        let options = F::Options::default();
        play_field::<F>(self.a, &options, self.file, self.bots, false, &place)
    }
}

/// The built-ins `names` added to `bots`, named uniquely after them.
fn add_builtins<F: Front>(bots: &mut Vec<BotEntry>, names: &[String]) -> Result<()> {
    for b in names {
        if !F::Game::KIND.has_builtin(b) {
            bail!(
                "no built-in bot named {b:?}\n  fix: {}",
                F::Game::KIND.builtin_fix(b)
            );
        }
    }
    let all: Vec<String> = bots
        .iter()
        .map(|b| b.name.clone())
        .chain(names.iter().cloned())
        .collect();
    let unique = koth_arena::dedup_names(&all);
    let taken = bots.len();
    for (b, name) in names.iter().zip(&unique[taken..]) {
        bots.push(BotEntry::new(name.clone(), BotSource::Builtin(b.clone())));
    }
    Ok(())
}

/// Plays a `run`'s field under game `F`.
fn play_field<F: Front>(
    a: &RunArgs<impl Front>,
    options: &F::Options,
    file: Option<TournamentFile>,
    bots: Vec<BotEntry>,
    from_list: bool,
    place: &str,
) -> Result<()> {
    let summary_json = a
        .summary_json
        .clone()
        .or(file.as_ref().and_then(|f| f.summary_json.clone()));
    settings::check_summary_path(summary_json.as_deref())?;
    if bots.len() < 2 {
        bail!(
            "a tournament needs at least 2 bots, got {}{place}\n  fix: add [[bot]] entries to a tournament file or --bot NAME=builtin:{} arguments",
            bots.len(),
            F::PLAY_SEATS
                .first()
                .or(F::builtins().first().map(|b| &b.0))
                .copied()
                .unwrap_or("NAME")
        );
    }
    let (rules, rules_name) = F::rules(options, file.as_ref())?;
    let decision = match (a.timeout_ms, &file) {
        (Some(ms), _) => Duration::from_millis(ms.max(1)),
        (None, Some(f)) => f.decision_timeout,
        (None, None) => Duration::from_millis(F::TIMEOUT_MS),
    };
    let timeouts = Timeouts {
        decision,
        game: file.as_ref().and_then(|f| f.game_timeout),
        startup: file
            .as_ref()
            .map_or(Duration::from_secs(10), |f| f.startup_timeout),
    };
    let chosen = a.seed.or(file.as_ref().and_then(|f| f.seed));
    let seed = a
        .run
        .resumed_seed(chosen)?
        .or(chosen)
        .unwrap_or_else(settings::fresh_seed);
    let external = bots.iter().filter(|b| b.dir().is_some()).count();
    if external > 0 && chosen.is_some() && F::HIDDEN && !a.seed_derived {
        settings::note_chosen_seed(seed);
    }
    let mut opts = a.run.clone();
    if opts.out.is_none() {
        opts.out = F::default_out(a.file.as_deref(), from_list, seed);
    }
    if let Some(out) = &opts.out {
        koth_entrants::check_out_dir(&bots, out)?;
    }
    check_programs(&bots, a.file.as_deref())?;
    // Each program plays from a private copy of its folder (its sandbox's own, or
    // without one a copy per parallel slot), kept in the run's folder on purpose.
    let copies = match (a.keep_folders, &opts.out) {
        (true, Some(out)) => koth_process::Workspace::kept(&out.join("folders")),
        (true, None) => {
            bail!("--keep-folders keeps the folders in the run folder: give --out DIR")
        }
        (false, _) => koth_process::Workspace::new(None),
    }
    .map_err(|e| anyhow!("cannot make the bots' working folders: {e}"))?;
    // No program sees the tournament file, the run's folder or its summary, even
    // where they lie inside its own folder.
    let hidden: Vec<PathBuf> = a
        .file
        .iter()
        .chain(opts.out.iter())
        .chain(summary_json.iter())
        .map(|p| koth_process::absolute(p))
        .collect();
    let setup = F::setup(
        options,
        Setup {
            timeouts,
            copies: Some(copies),
            hidden,
            // What each JSON-lines process wrote to stderr, whole, beside the records.
            logs: opts.out.as_ref().map(|o| o.join("logs")),
            ..Setup::default()
        },
    );
    // Every program starts (a JSON-lines one answers) before the first game.
    let at_once = koth_entrants::preflight::<<F::Game as BotKinds>::Wire>(&bots, &setup)?;
    F::warn_slow(&bots, &setup)?;
    let entrants = koth_entrants::entrants::<F::Game>(&bots, &setup)?;
    let asked = Asked {
        games: a.games.or(file.as_ref().and_then(|f| f.games)),
        matches: a.matches.or(file.as_ref().and_then(|f| f.matches)),
        rounds: a.rounds,
        table_size: a.table_size.or(file.as_ref().and_then(|f| f.table_size)),
        kind: a.schedule,
        duplicate: a.duplicate,
        default_games: 1000,
        rules: rules_name.clone(),
        table_flag: "table size",
    };
    let schedule = F::schedule(&asked, entrants.len(), &rules, place)?;
    let threads = settings::threads(a.threads.or(file.as_ref().and_then(|f| f.threads)));
    let specs = bots.iter().map(BotEntry::spec_json).collect();
    let field = Field {
        bots: &bots,
        external: Some(external),
        at_once,
        timeouts,
        notes: setup.notes.clone(),
    };
    let show = Show {
        quiet: a.quiet,
        stop_on_forfeit: a.stop_on_forfeit,
        summary_json: summary_json.as_deref(),
        from_list,
        asked: asked.games.unwrap_or(asked.default_games),
    };
    let t = Tournament {
        rules,
        entrants,
        schedule,
        scoring: F::SCORING,
        seed,
        threads,
        records: RecordLevel::Results,
        duplicate: a.duplicate,
    };
    let describe = Describe {
        game: F::Game::NAME,
        runner: F::RUNNER,
        specs,
    };
    play::<F>(t, &rules_name, describe, &opts, &field, &show)
}

/// The commands of programs launched once a move: found and startable, or the
/// run stops here naming the program and its place.
fn check_programs(bots: &[BotEntry], file: Option<&Path>) -> Result<()> {
    for b in bots {
        let (Some(cmd), Some(protocol)) = (b.source.command(), b.protocol()) else {
            continue;
        };
        if protocol.is_json() {
            continue;
        }
        if let Err(e) = cmd.check() {
            match (b.list_line, file) {
                (Some(line), Some(f)) => bail!(
                    "program {:?} (line {line} of {}) cannot start: {e}\n  fix: correct its command or folder, or install its interpreter",
                    b.name,
                    f.display()
                ),
                _ => bail!(
                    "bot {:?} cannot start: {e}\n  fix: correct its command or `dir` ({})",
                    b.name,
                    b.dir().unwrap_or(Path::new(".")).display()
                ),
            }
        }
    }
    Ok(())
}

/// Runs `koth <game> loop`.
pub fn run_loop<F: Front>(a: LoopArgs<F>) -> Result<()> {
    settings::check_summary_path(a.summary_json.as_deref())?;
    let names: Vec<String> = match &a.bots {
        Some(b) => b.clone(),
        None => F::builtins().iter().map(|b| b.0.to_string()).collect(),
    };
    for n in &names {
        if !F::Game::KIND.has_builtin(n) {
            bail!(
                "unknown bot {n:?}: not a built-in bot\n  fix: {}",
                F::Game::KIND.builtin_fix(n)
            );
        }
    }
    if names.len() < 2 {
        bail!("a tournament needs at least 2 bots, got {}", names.len());
    }
    let (rules, rules_name) = F::rules(&a.options, None)?;
    let bots: Vec<BotEntry> = koth_arena::dedup_names(&names)
        .into_iter()
        .zip(&names)
        .map(|(shown, b)| BotEntry::new(shown, BotSource::Builtin(b.clone())))
        .collect();
    let entrants = koth_entrants::entrants::<F::Game>(&bots, &Setup::default())?;
    let asked = Asked {
        games: Some(a.games),
        table_size: a.table_size,
        kind: a.schedule,
        duplicate: a.duplicate,
        default_games: a.games,
        rules: rules_name.clone(),
        table_flag: "--table-size",
        ..Asked::default()
    };
    let schedule = F::schedule(&asked, entrants.len(), &rules, "")?;
    let seed = a
        .run
        .resumed_seed(a.seed)?
        .or(a.seed)
        .unwrap_or_else(settings::fresh_seed);
    let t = Tournament {
        rules,
        entrants,
        schedule,
        scoring: F::SCORING,
        seed,
        threads: settings::threads(a.threads),
        records: RecordLevel::None,
        duplicate: a.duplicate,
    };
    let describe = Describe {
        game: F::Game::NAME,
        runner: F::LOOP_RUNNER,
        specs: names
            .iter()
            .map(|b| serde_json::json!({ "builtin": b }))
            .collect(),
    };
    let field = Field {
        bots: &bots,
        external: None,
        at_once: None,
        timeouts: Timeouts::default(),
        notes: Default::default(),
    };
    let show = Show {
        quiet: a.quiet,
        stop_on_forfeit: false,
        summary_json: a.summary_json.as_deref(),
        from_list: false,
        asked: a.games,
    };
    let mut opts = a.run.clone();
    if opts.out.is_none() {
        // A game that files every game's own files needs a folder for them.
        opts.out = F::default_out(None, false, seed);
    }
    play::<F>(t, &rules_name, describe, &opts, &field, &show)
}

/// The bots of a run and how their programs run.
struct Field<'a> {
    bots: &'a [BotEntry],
    /// External programs among them (`None`: built-ins only were asked for).
    external: Option<usize>,
    /// Games at once every JSON-lines program said it plays.
    at_once: Option<usize>,
    timeouts: Timeouts,
    notes: koth_samurai_programs::NoteSink,
}

/// How a run is shown.
struct Show<'a> {
    quiet: bool,
    stop_on_forfeit: bool,
    summary_json: Option<&'a Path>,
    from_list: bool,
    /// Games asked for, before rounding.
    asked: u64,
}

/// Plays tournament `t` and shows it: the header, the live bar, the standings,
/// the forfeits, a stop.
fn play<F: Front>(
    mut t: Tournament<F::Game>,
    rules_name: &str,
    describe: Describe,
    opts: &RunOpts,
    field: &Field,
    show: &Show,
) -> Result<()> {
    let games = t.total_games();
    let names = t.names();
    F::ready(
        &mut t.rules,
        &names,
        &t.schedule,
        t.seed,
        opts.out.as_deref(),
    )?;
    let facts = RunFacts {
        rules: rules_name,
        asked: show.asked,
        schedule: &t.schedule,
        games,
        entrants: t.entrants.len(),
        external: field.external,
        seed: t.seed,
        threads: t.threads,
        duplicate: t.duplicate,
        from_list: show.from_list,
    };
    if let Some(h) = F::run_header(&facts) {
        eprintln!("{h}");
    }
    let external = field.external.unwrap_or(0);
    let isolation = term::isolation_lines(
        field
            .bots
            .iter()
            .filter_map(|b| Some((b.name.as_str(), b.source.command()?))),
    );
    // Shown once: at the start, or with -q (no start shown) in the results.
    let isolation_in_results = external > 0 && F::ISOLATION_IN_RESULTS && show.quiet;
    let isolation = match (field.at_once, F::ISOLATION_IN_RESULTS) {
        (Some(n), true) => format!(
            "{isolation}\n{}",
            limits_line(field.timeouts, n, t.duplicate)
        ),
        _ => isolation,
    };
    if external > 0 && !show.quiet {
        eprintln!("{isolation}");
    }
    if show.stop_on_forfeit {
        // Keep every choice, so the game can be shown.
        t.records = RecordLevel::Full;
    }
    let mut archive = F::archive(opts.out.as_deref(), &names, &t.rules, opts.resume)?;
    let mut watch = Watch::<ChoiceOf<F>> {
        bar: Bar::new(games, show.quiet),
        forfeits: Forfeits::default(),
        first_forfeit: None,
        stop_on_forfeit: show.stop_on_forfeit,
        archive: archive.as_deref_mut(),
    };
    let summary = execute(&mut t, describe, opts, &mut watch)?;
    watch.bar.finish();
    let (forfeits, first_forfeit) = (watch.forfeits, watch.first_forfeit);
    drop(archive);
    // Stop the external bots before printing.
    drop(std::mem::take(&mut t.entrants));
    let notes = field.notes.lock().map(|n| n.clone()).unwrap_or_default();
    let end = RunEnd {
        out: opts.out.as_deref(),
        standings: &summary.standings,
        notes: &notes,
    };
    F::before_standings(&end);
    Finish {
        game: F::Game::NAME,
        rules: &t.rules,
        schedule: &t.schedule,
        scoring: t.scoring,
        seed: t.seed,
        threads: t.threads,
        summary_json: show.summary_json,
        out_dir: opts.out.as_deref(),
    }
    .print(&summary)?;
    if isolation_in_results {
        out!("{isolation}");
    }
    if field.external.is_some() && F::forfeits_shown(field.bots) {
        term::print_forfeits(&forfeits, &summary.standings);
    }
    if let Some(line) = term::replays_line(&summary.replays) {
        out!("{line}");
    }
    show_stops(&summary, opts)?;
    if let Some(rec) = &first_forfeit {
        show_forfeit::<F>(&t.rules, rec, &summary.standings)?;
        F::after_forfeit(&end);
        // A bot failed: scripts and CI see it.
        term::EXIT_STATUS.store(1, std::sync::atomic::Ordering::SeqCst);
    }
    Ok(())
}

/// What the runner does with the external bots: time limits and processes.
fn limits_line(timeouts: Timeouts, at_once: usize, duplicate: bool) -> String {
    format!(
        "limits: {} ms per decision{}, {}",
        timeouts.decision.as_millis(),
        timeouts
            .game
            .map(|g| format!(", {} ms per game", g.as_millis()))
            .unwrap_or_default(),
        // What the runner does: see `Tournament::work_multi`.
        match at_once {
            _ if duplicate => {
                "one process per external bot, rotation and thread (none sees a deal twice)"
                    .to_string()
            }
            n if n > 1 => {
                format!("one process per external bot and thread, {n} games at once on each")
            }
            _ => "one process per external bot and thread".to_string(),
        }
    )
}

/// The progress bar, the forfeits, `--stop-on-forfeit` and the game's own archive.
struct Watch<'a, C> {
    bar: Bar,
    forfeits: Forfeits,
    /// With --stop-on-forfeit: the first game (in game order) with a forfeit.
    first_forfeit: Option<GameRecord<C>>,
    stop_on_forfeit: bool,
    archive: Option<&'a mut (dyn Observer<C> + 'static)>,
}

impl<C: Clone> Observer<C> for Watch<'_, C> {
    fn on_record(&mut self, r: &GameRecord<C>) {
        if self.stop_on_forfeit && !r.forfeits.is_empty() {
            // The game to show is one where a bot failed, not one lost with a
            // process that failed in another game (that game is under way, and comes).
            let own = r
                .forfeits
                .iter()
                .any(|f| lost_in(&f.fault.reason).is_none());
            let shown_own = self.first_forfeit.as_ref().is_some_and(|g| {
                g.forfeits
                    .iter()
                    .any(|f| lost_in(&f.fault.reason).is_none())
            });
            if self.first_forfeit.is_none() || (own && !shown_own) {
                self.first_forfeit = Some(r.clone());
            }
            // The run's stop flag: the games under way finish, no more start.
            term::ctrl_c_flag().store(true, std::sync::atomic::Ordering::SeqCst);
        }
        for f in &r.forfeits {
            let e = self.forfeits.by_entrant.entry(f.entrant).or_default();
            // Games lost with a process count under one reason, whichever game it
            // failed in.
            let reason = match lost_in(&f.fault.reason) {
                Some(rest) => {
                    format!("{}another game: {rest}", koth_arena::LOST_WITH_PROCESS)
                }
                None => f.fault.reason.clone(),
            };
            *e.0.entry(reason).or_default() += 1;
            if e.1.is_none() {
                e.1 = f.fault.stderr_tail.clone().filter(|t| !t.trim().is_empty());
            }
        }
        if let Some(a) = self.archive.as_mut() {
            a.on_record(r);
        }
    }
    fn stops_on_forfeit(&self) -> bool {
        self.stop_on_forfeit
    }
    fn on_progress(&mut self, p: &Progress<'_>) {
        <Bar as Observer<C>>::on_progress(&mut self.bar, p);
        if let Some(a) = self.archive.as_mut() {
            a.on_progress(p);
        }
    }
}

/// For a game lost with a process that failed in another game, what the process
/// did (the reason after the game's number).
fn lost_in(reason: &str) -> Option<&str> {
    let rest = reason.strip_prefix(koth_arena::LOST_WITH_PROCESS)?;
    rest.split_once(": ").map(|(_, what)| what)
}

/// A bot that asked to stop (the SDKs' `stop()`, coup-cli's logged STOP) ended the
/// run: who, why, and its game, replayed when the run was recorded in full.
fn show_stops(summary: &koth_arena::RunSummary, run: &RunOpts) -> Result<()> {
    for (k, e, text) in summary.stops.iter().take(1) {
        let name = &summary.standings.entrants[*e].name;
        out!("\nstopped: {name} asked to stop in game {k}: {text}");
        match run.out.as_deref() {
            Some(dir) if run.records == crate::runs::Records::Full => {
                out!("");
                crate::replay::show(dir, *k)?;
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

/// `--stop-on-forfeit`: the game with the first forfeit, narrated when its choices
/// were kept, then each forfeit's reason and the bot's last stderr lines.
fn show_forfeit<F: Front>(
    rules: &RulesOf<F>,
    rec: &GameRecord<ChoiceOf<F>>,
    standings: &koth_arena::Standings,
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
        let mut narrator = F::narrator(&names, false, None);
        koth_arena::records::replay::<F::Game>(rules, rec, |g| narrator.show(g))
            .map_err(anyhow::Error::msg)?;
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
