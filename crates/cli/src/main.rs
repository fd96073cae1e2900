//! `koth`: a king-of-the-hill arena for programming games.
//!
//! The binary is three kinds of room:
//! * `front/`: one file a game (Coup, Samurai, seed 000's edition of Coup), each
//!   implementing [`front::Front`]: its words, rules, built-ins, narration, check;
//! * one file a command (`play`, `run`, `check`, `bots`, `replay`, `report`,
//!   `gauntlet`, `hill`, `merge`, `bench`), each written once for any game;
//! * what the commands share and that names no game: `term` (the terminal),
//!   `settings` (seeds, threads, schedules), `summary` (standings as JSON) and
//!   `runs` (run folders: `--out`, `--resume`, `--shard`, `--records`).

#![forbid(unsafe_code)]
/// `println!` that ends the program quietly when stdout is closed (`koth ... | head`);
/// SIGPIPE stays ignored so that a bot closing its pipe never kills the arena.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if writeln!(std::io::stdout(), $($arg)*).is_err() {
            std::process::exit(0);
        }
    }};
}

mod bench;
mod bots;
mod check;
mod front;
mod gauntlet;
mod hill;
mod hillcore;
mod merge;
mod play;
mod replay;
mod report;
mod run;
mod runs;
mod settings;
mod summary;
mod term;
mod work;

use clap::{Args, Parser, Subcommand};
use front::coup::Coup;
use front::ppcg::Ppcg;
use front::samurai::Samurai;
use front::Front;

/// Run bots against each other under exact rules, fast, fairly and reproducibly.
#[derive(Parser, Debug)]
#[command(name = "koth", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Coup for 2–6 players: play one narrated game, or loop many and rank the bots.
    #[command(subcommand)]
    Coup(Box<Verb<Coup>>),
    /// Ultimate Samurai Showdown: play a duel, run a round robin of any samurai, check a bot.
    Samurai(Box<GameCmd<Samurai>>),
    /// Coup, the two-player challenge edition: run seed-000 programs unchanged.
    Ppcg(Box<GameCmd<Ppcg>>),
    /// Test a candidate against a pool until a sequential test (SPRT) decides.
    Gauntlet(gauntlet::GauntletArgs),
    /// A king-of-the-hill league in a folder: entrants join, update and leave
    /// while it plays, on a live web page.
    #[command(subcommand)]
    Hill(hill::HillCmd),
    /// Combine the shards of one tournament (`--shard I/N` runs) into one run.
    Merge {
        /// The shard folders.
        #[arg(required = true)]
        dirs: Vec<std::path::PathBuf>,
        /// Where the merged run goes.
        #[arg(long)]
        out: std::path::PathBuf,
    },
    /// Show one recorded game step by step.
    Replay {
        /// A run folder (written with --out).
        dir: std::path::PathBuf,
        /// The game's index.
        #[arg(long)]
        game: u64,
    },
    /// Write DIR/report.html: standings, ratings, head to head, forfeits and game replays in one page.
    Report {
        /// A run folder (written with --out).
        dir: std::path::PathBuf,
        /// Which games get a step-by-step replay in the page: N (the first N), all,
        /// forfeits (every game with a forfeit), or auto (the first few hundred and
        /// later forfeits, within a few MB). Any other game replays with `koth replay`.
        #[arg(long, default_value = "auto", value_name = "N|all|forfeits|auto")]
        replays: report::Replays,
        /// For publishing: leave out what the bots wrote to stderr (a hill's
        /// rounds are reported so; their authors read it on the hill's page).
        #[arg(long)]
        public: bool,
        /// The page's heading (default: the game's name and "tournament
        /// report"), such as "Round 3 of the Spring Coup".
        #[arg(long)]
        title: Option<String>,
        /// A line under the heading, such as the versions that played.
        #[arg(long)]
        subtitle: Option<String>,
    },
    /// Measure koth against the `coup` crate on this machine: games/s, decisions/s,
    /// scaling by thread count, memory, what records cost, external decisions.
    Bench(bench::BenchArgs),
    /// The compiled first-legal bot `koth bench` measures external decisions with.
    #[command(hide = true)]
    FirstLegalBot {
        /// Games at once it says it plays (`"games"` in ready).
        #[arg(long, default_value_t = 1)]
        games: usize,
    },
    /// The old name of `koth coup run` (kept for this release).
    Run(Box<run::RunArgs<Coup>>),
}

/// The commands every game has.
#[derive(Subcommand, Debug)]
enum Verb<F: Front> {
    /// Narrate one game, turn by turn, with each program's stderr shown as it logs.
    Play(play::PlayArgs<F>),
    /// Play many games among built-in bots and rank them.
    Loop(run::LoopArgs<F>),
    /// Run a tournament of bots of any kind: a tournament file, a program list of
    /// the game's original challenge, --bot and --builtin.
    Run(run::RunArgs<F>),
    /// Put one bot through every kind of decision and report what it does wrong
    /// (exit status 1 if anything).
    Check(check::CheckArgs<F>),
    /// List the built-in bots.
    Bots,
    /// Measure koth on this machine: games/s, scaling by thread count, memory,
    /// what records cost, external decisions.
    Bench(bench::BenchArgs),
}

/// A game whose tournament runs without a command word (`koth samurai FILE`).
#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
struct GameCmd<F: Front> {
    #[command(subcommand)]
    sub: Option<Verb<F>>,
    #[command(flatten)]
    run: run::RunArgs<F>,
}

/// Runs a command of game `F`.
fn verb<F: Front>(v: Verb<F>) -> anyhow::Result<()> {
    match v {
        Verb::Play(a) => play::play(a),
        Verb::Loop(a) => run::run_loop(a),
        Verb::Run(a) => run::run(a),
        Verb::Check(a) => {
            let status = check::check(a)?.status();
            if status != 0 {
                std::process::exit(status);
            }
            Ok(())
        }
        Verb::Bots => {
            bots::list::<F>();
            Ok(())
        }
        Verb::Bench(a) => bench::bench::<F>(a),
    }
}

/// Runs `koth <game> [FILE]`: a command, or the old form of `run`.
fn game<F: Front>(c: GameCmd<F>) -> anyhow::Result<()> {
    match c.sub {
        Some(v) => verb(v),
        None => {
            if c.run.file.is_some() {
                term::old_name(
                    &format!("koth {} {}", F::WORD, F::FILE_WORD),
                    &format!("koth {} run {}", F::WORD, F::FILE_WORD),
                );
            }
            run::run(c.run)
        }
    }
}

/// `koth report DIR`: the page of a run, made with the front of its game.
fn report_page(
    dir: &std::path::Path,
    want: report::Replays,
    public: bool,
    title: Option<String>,
    subtitle: Option<String>,
) -> anyhow::Result<()> {
    let info = report::run_info(dir)?;
    let page = Page {
        info: &info,
        dir,
        want,
        public,
    };
    let data = front::visit(&info.game, page).unwrap_or_else(|| {
        Err(anyhow::anyhow!(
            "cannot report on {:?} runs: koth reports Coup, Coup ppcg and samurai runs",
            info.game
        ))
    })?;
    let mut data = data;
    if let serde_json::Value::Object(m) = &mut data {
        if let Some(t) = title {
            m.insert("heading".into(), t.into());
        }
        if let Some(t) = subtitle {
            m.insert("subheading".into(), t.into());
        }
    }
    report::run(dir, &data)
}

/// A run's page, told by the front of its game.
struct Page<'a> {
    info: &'a koth_arena::records::RunInfo,
    dir: &'a std::path::Path,
    want: report::Replays,
    public: bool,
}

impl front::Visit for Page<'_> {
    type Out = anyhow::Result<serde_json::Value>;
    fn visit<F: Front>(self) -> Self::Out {
        let rules = F::recorded_rules(&self.info.rules)?;
        let mut data =
            report::build::<F::Game>(self.info, self.dir, self.want, self.public, |r, names| {
                F::page_steps(&rules, r, names)
            })?;
        if let serde_json::Value::Object(m) = &mut data {
            m.extend(F::page_facts());
        }
        Ok(data)
    }
}

/// The exit status of an error: a hill's refusal or failure says its kind
/// (3 not found, 4 forbidden, 5 conflict, 6 invalid, 7 the storage or the
/// machine); any other error is 2.
fn exit_code(e: &anyhow::Error) -> i32 {
    let kind = e.chain().find_map(|c| {
        c.downcast_ref::<koth_hill::HillError>()
            .map(|h| h.kind())
            .or_else(|| c.downcast_ref::<koth_hill::StoreError>().map(|s| s.kind()))
    });
    kind.map_or(2, koth_hill::Kind::exit_code)
}

fn main() {
    // Inside a sandbox, koth is the launcher of the bot's processes.
    koth_process::launcher::serve_if_asked();
    let cli = Cli::parse();
    let result = match cli.cmd {
        Cmd::Coup(v) => verb(*v),
        Cmd::Samurai(c) => game(*c),
        Cmd::Ppcg(c) => game(*c),
        Cmd::Run(a) => {
            term::old_name("koth run", "koth coup run");
            run::run(*a)
        }
        Cmd::Gauntlet(a) => gauntlet::run(a),
        Cmd::Hill(c) => hill::run(c),
        Cmd::Bench(a) => bench::bench::<Coup>(a),
        Cmd::FirstLegalBot { games } => bench::first_legal_bot(games),
        Cmd::Report {
            dir,
            replays,
            public,
            title,
            subtitle,
        } => report_page(&dir, replays, public, title, subtitle),
        Cmd::Merge { dirs, out } => merge::merge(&dirs, &out),
        Cmd::Replay { dir, game } => replay::show(&dir, game),
    };
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(exit_code(&e));
    }
    let status = term::EXIT_STATUS.load(std::sync::atomic::Ordering::SeqCst);
    if status != 0 {
        std::process::exit(status);
    }
    // Stopped by Ctrl-C, SIGTERM or SIGHUP: as a shell reports an interrupted command.
    if term::SIGNALLED.load(std::sync::atomic::Ordering::SeqCst) {
        std::process::exit(130);
    }
}
