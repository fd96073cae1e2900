//! `koth`: a king-of-the-hill arena for programming games.

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

mod bench_cmd;
mod check_cmd;
mod coup_cmd;
mod gauntlet_cmd;
mod human;
mod output;
mod ppcg_cmd;
mod records_cmd;
mod report;
mod run_cmd;
mod runs;
mod samurai_cmd;

use clap::{Parser, Subcommand};

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
    Coup(coup_cmd::CoupCmd),
    /// Ultimate Samurai Showdown: play a duel, run a round robin of any samurai, check a bot.
    Samurai(Box<samurai_cmd::SamuraiCmd>),
    /// Coup, the two-player challenge edition: run seed-000 programs unchanged.
    Ppcg(Box<ppcg_cmd::PpcgCmd>),
    /// Test a candidate against a pool until a sequential test (SPRT) decides.
    Gauntlet(gauntlet_cmd::GauntletArgs),
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
    },
    /// Measure koth against the `coup` crate on this machine: games/s, decisions/s,
    /// scaling by thread count, memory, what records cost, external decisions.
    Bench(bench_cmd::BenchArgs),
    /// The compiled first-legal bot `koth bench` measures external decisions with.
    #[command(hide = true)]
    FirstLegalBot {
        /// Games at once it says it plays (`"games"` in ready).
        #[arg(long, default_value_t = 1)]
        games: usize,
    },
    /// The old name of `koth coup run` (kept for this release).
    Run(run_cmd::RunArgs),
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.cmd {
        Cmd::Coup(c) => coup_cmd::run(c),
        Cmd::Samurai(c) => samurai_cmd::run(*c),
        Cmd::Run(a) => {
            output::old_name("koth run", "koth coup run");
            run_cmd::run(a)
        }
        Cmd::Ppcg(a) => ppcg_cmd::run_cmd(*a),
        Cmd::Gauntlet(a) => gauntlet_cmd::run(a),
        Cmd::Bench(a) => bench_cmd::run(a),
        Cmd::FirstLegalBot { games } => bench_cmd::first_legal_bot(games),
        Cmd::Report { dir, replays } => report::run(&dir, replays),
        Cmd::Merge { dirs, out } => records_cmd::merge(&dirs, &out),
        Cmd::Replay { dir, game } => records_cmd::replay(&dir, game),
    };
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(2);
    }
}
