//! `koth hill`: a king-of-the-hill league in a folder. `init` makes one, `add`,
//! `update`, `remove`, `pause` and `resume` change its field (while `serve`
//! runs, too), `play` plays games now, `serve` plays for ever and serves the
//! live page, `status` prints the leaderboard, `audit` checks that every block
//! follows from the event log and every game replays.

use crate::front::{self, ChoiceOf, Front, RulesOf};
pub use crate::hillcore::Workers;
use crate::hillcore::{open, print_audit, say, start_log, stop_flag, HISTORY_EVERY};
use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, Parser, Subcommand};
use koth_arena::{Game, GameRecord};
use koth_entrants::BotKinds;
use koth_hill::{store, Board, Change, Hill, Settings};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The commands of `koth hill`.
#[derive(Subcommand, Debug)]
pub enum HillCmd {
    /// Make a hill in DIR: its game, rules and table size are fixed for good.
    Init(InitArgs),
    /// Enter a bot: NAME and a bot as `koth <game> run --bot` takes it
    /// (`builtin:honest`, 'python3 bots/me/bot.py', 'samurai-cli:./bot'...).
    /// A program is checked first; its folder is copied into the hill.
    Add(SubmitArgs),
    /// A new version of an entrant: its old games stay in the history, the
    /// standings use the new version.
    Update(SubmitArgs),
    /// An entrant leaves (its games stay in the history).
    Remove(NameArgs),
    /// No more games for an entrant for now; it stays on the leaderboard.
    Pause(NameArgs),
    /// Games again for a paused entrant.
    Resume(NameArgs),
    /// Play games now: at least --games more, in whole blocks.
    Play(PlayArgs),
    /// Play for ever on every core and serve the live page.
    Serve(ServeArgs),
    /// Play a hill's games on this machine as one of its workers: claim a
    /// lease of games, play it sandboxed, store it, again (a hill on
    /// PostgreSQL; any number of workers on any number of machines).
    Work(crate::work::WorkArgs),
    /// The workers' tokens: add (prints it once), list, revoke, or exclude a
    /// worker (revoked, and every game it stored played again by the others).
    #[command(subcommand)]
    Worker(crate::work::WorkerCmd),
    /// A round: the active entrants' current versions frozen, --games games of a
    /// balanced schedule, published as a report (the live hill goes on beside).
    Round(RoundArgs),
    /// Print the leaderboard.
    Status {
        /// The hill's folder.
        dir: PathBuf,
        /// Also say, entrant by entrant, what its ✓ rests on: its difference
        /// from each neighbour, that difference's interval at the hill's
        /// boundary, and the deals it has.
        #[arg(long, short)]
        verbose: bool,
        /// Also the collusion check: who aims attacks at whom, entrant by
        /// entrant, against what the field predicts, every game with programs
        /// replayed; the pairs far from it (5% over all pairs) are flagged,
        /// with games to look at. Reads every game: slow on a big hill.
        #[arg(long)]
        pairs: bool,
    },
    /// Check the hill: every block planned again from the event log and the
    /// games before it, every game replayed from its record (a game of
    /// built-ins, kept as results, played again from its block's seed), the
    /// standings kept counted again.
    Audit {
        /// The hill's folder.
        dir: PathBuf,
        /// Instead: play N of a worker's games again on this machine (spread
        /// over all it stored, from a start drawn at random) and compare them
        /// with what it stored.
        #[arg(long, value_name = "N", requires = "worker")]
        sample: Option<u64>,
        /// The worker whose games --sample plays again.
        #[arg(long, value_name = "NAME", requires = "sample")]
        worker: Option<String>,
    },
    /// Every stored game, oldest first, as a JSON line: its block, its number in
    /// the block, each seat's entrant, version (1, 2...) and the hill's id of
    /// that version, and its record as a run's games.jsonl holds it (games of
    /// built-ins only are kept as results).
    Games(GamesArgs),
    /// Tokens for submitting from the page: an author's adds entrants and
    /// updates or removes its own; an organiser's (--admin) does everything.
    #[command(subcommand)]
    Token(TokenCmd),
    /// The contest around the hill: its title, description and rules
    /// (Markdown files) and its dates: when uploads open, the submission
    /// deadline (the freeze) and the end. With no option, prints them.
    Config(ConfigArgs),
    /// Post an announcement on the page (Markdown), list them, or take one down.
    Announce(AnnounceArgs),
    /// Write the page into a new folder as static files, to host anywhere
    /// once a contest is over: the contest, the leaderboard, the standings
    /// over time, every entrant's page as the public sees it, the games they
    /// link to step by step, the rounds' reports.
    Export {
        /// The hill's folder.
        dir: PathBuf,
        /// The new folder.
        to: PathBuf,
    },
    /// Copy the hill into a new folder, also while it is served: its database
    /// by SQLite's online backup, then its programs' folders and rounds. The
    /// copy is a hill of its own (audit it, serve it).
    Backup {
        /// The hill's folder.
        dir: PathBuf,
        /// The new folder.
        to: PathBuf,
    },
}

/// `koth hill config`.
#[derive(Args, Debug)]
pub struct ConfigArgs {
    /// The hill's folder.
    pub dir: PathBuf,
    /// The contest's title, at the top of the page.
    #[arg(long)]
    pub title: Option<String>,
    /// A Markdown file saying what the contest is.
    #[arg(long, value_name = "FILE")]
    pub description: Option<PathBuf>,
    /// A Markdown file of the contest's rules.
    #[arg(long, value_name = "FILE")]
    pub rules: Option<PathBuf>,
    /// When authors' uploads open: 2026-12-01T18:00:00Z, or none.
    #[arg(long, value_name = "TIME")]
    pub start: Option<String>,
    /// The submission deadline (the freeze): after it no author's upload
    /// enters, and `koth hill round --final` plays the final round. A time,
    /// or none.
    #[arg(long, value_name = "TIME")]
    pub deadline: Option<String>,
    /// When the contest ends: no games after it. A time, or none.
    #[arg(long, value_name = "TIME")]
    pub end: Option<String>,
    /// Where and when the final round's beacon will be published ("the
    /// EuroMillions draw of 2026-12-05, its five numbers and two stars"):
    /// fixed before the deadline and shown on the page; `round --final`
    /// needs it.
    #[arg(long, value_name = "TEXT")]
    pub beacon_source: Option<String>,
    /// How many entrants one author's token may have in the field (1 by
    /// default: an author's feeders could lift its main bot). The organiser
    /// enters house bots with its own token or here.
    #[arg(long, value_name = "N")]
    pub entrants_per_author: Option<u32>,
    /// Tell bots their opponents' names (by default each sees only seat1,
    /// seat2, ...: no bot can tell a friend from a rival).
    #[arg(long, value_name = "BOOL")]
    pub show_names: Option<bool>,
}

/// `koth hill announce`.
#[derive(Args, Debug)]
pub struct AnnounceArgs {
    /// The hill's folder.
    pub dir: PathBuf,
    /// What to announce (Markdown).
    #[arg(required_unless_present_any = ["list", "remove"])]
    pub text: Option<String>,
    /// List the announcements, newest first.
    #[arg(long, conflicts_with_all = ["text", "remove"])]
    pub list: bool,
    /// Take announcement N down.
    #[arg(long, value_name = "N", conflicts_with = "text")]
    pub remove: Option<i64>,
}

/// `koth hill token ...`.
#[derive(Subcommand, Debug)]
pub enum TokenCmd {
    /// Make a token and print it (only its hash is kept: give it to its author now).
    Add {
        /// The hill's folder.
        dir: PathBuf,
        /// Whose token it is (letters, digits, '-', '_', '.').
        name: String,
        /// The organiser's: every change of every entrant.
        #[arg(long)]
        admin: bool,
    },
    /// List the tokens (names only).
    List {
        /// The hill's folder.
        dir: PathBuf,
    },
    /// Revoke a token.
    Remove {
        /// The hill's folder.
        dir: PathBuf,
        /// Its name.
        name: String,
    },
}

/// `koth hill games`.
#[derive(Args, Debug)]
pub struct GamesArgs {
    /// The hill's folder.
    pub dir: PathBuf,
    /// Only the games this entrant (any of its versions) played.
    #[arg(long)]
    pub entrant: Option<String>,
    /// Write the lines to FILE (default: standard output).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// `koth hill init`.
#[derive(Args, Debug)]
pub struct InitArgs {
    /// The hill's folder (created).
    pub dir: PathBuf,
    /// The game: coup, samurai or ppcg (seed 000's two-player edition).
    #[arg(long)]
    pub game: String,
    /// The rules preset (Coup: standard, ppcg, coupcli, coupcrate).
    #[arg(long)]
    pub rules: Option<String>,
    /// Seats at a table (Coup: 2 to 6, default 4; the duels: 2).
    #[arg(long)]
    pub table_size: Option<usize>,
    /// The master seed every block derives from (default: a fresh one).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Games a block plays: the scheduler looks again after each (smaller is
    /// more responsive, larger keeps every core busy). A candidate's blocks
    /// stop at what it still needs.
    #[arg(long, default_value_t = 1000)]
    pub block: u64,
    /// Games a block plays when every bot at its tables is a built-in: their
    /// games take microseconds, and a block's start and end cost about
    /// 1.5 ms, so a block of 1000 would lose a quarter of the cores' time.
    #[arg(long, default_value_t = 20000)]
    pub builtin_block: u64,
    /// Games a new version plays against the field before the scheduler turns
    /// to the least certain ranks.
    #[arg(long, default_value_t = 240)]
    pub candidate_games: u64,
    /// A decision's time limit for programs, in milliseconds.
    #[arg(long, default_value_t = 1000)]
    pub timeout_ms: u64,
    /// A runtime an uploaded bot's command may start (repeat it: --runtime
    /// python3 --runtime node). Default: python3, pypy3, node, ruby, perl,
    /// php, lua, java, bash and sh. A program of the upload's own (./bot)
    /// needs none.
    #[arg(long = "runtime", value_name = "NAME")]
    pub runtimes: Vec<String>,
    /// The longest an upload's check may take, in seconds.
    #[arg(long, default_value_t = koth_hill::store::DEFAULT_CHECK_SECONDS)]
    pub check_seconds: u64,
    /// The most the hill keeps of its games' decision logs (what programs
    /// wrote to stderr at each decision, how long each took), compressed, in
    /// MiB: the oldest games' logs go first. Their results and moves stay.
    #[arg(long, value_name = "MIB", default_value_t = koth_hill::store::DEFAULT_LOG_MIB)]
    pub keep_logs: u64,
    /// Keep the hill's data in this PostgreSQL database (an empty one:
    /// postgres://USER:PASSWORD@HOST:PORT/NAME) rather than an SQLite file in
    /// DIR: then workers on other machines can play its games (koth hill work).
    #[arg(long, value_name = "URL")]
    pub db: Option<String>,
    /// The planning window W of a hill on PostgreSQL: block k is planned from
    /// the standings after block k − W, so W blocks can be under way at once
    /// (more keeps many workers busy; the schedule stays a function of the
    /// event log and the games).
    #[arg(long, value_name = "W", default_value_t = 1, requires = "db")]
    pub window: u64,
    /// The leases a block is cut into, on a hill on PostgreSQL: a worker
    /// claims one, plays its games and stores them at once.
    #[arg(long, value_name = "N", default_value_t = 8, requires = "db")]
    pub leases: u64,
    /// How long a lease lasts without news from its worker, in seconds: a
    /// worker that dies loses its lease after this, to another worker.
    #[arg(long, value_name = "SECONDS", default_value_t = 60, requires = "db")]
    pub lease_seconds: u64,
}

/// `koth hill add` and `update`.
#[derive(Args, Debug)]
pub struct SubmitArgs {
    /// The hill's folder.
    pub dir: PathBuf,
    /// The entrant's name.
    pub name: String,
    /// The bot.
    pub bot: String,
    /// Games the check before entry plays (default: the game's check).
    #[arg(long)]
    pub check_games: Option<u64>,
    /// Isolation of the check: auto or off (a trusted program).
    #[arg(long, value_name = "MODE", value_parser = crate::settings::parse_sandbox)]
    pub sandbox: Option<koth_process::Sandbox>,
}

/// A command naming an entrant.
#[derive(Args, Debug)]
pub struct NameArgs {
    /// The hill's folder.
    pub dir: PathBuf,
    /// The entrant's name.
    pub name: String,
}

/// `koth hill play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    /// The hill's folder.
    pub dir: PathBuf,
    /// Games to play at least (whole blocks).
    #[arg(long, default_value_t = 1000)]
    pub games: u64,
    /// Stop early once every active entrant's rank is settled (its interval
    /// clears its neighbours') and no candidate waits.
    #[arg(long)]
    pub rest_when_settled: bool,
    #[command(flatten)]
    pub workers: Workers,
    /// On a hill on PostgreSQL: plan the blocks and wait for the workers to
    /// play them (koth hill work), playing none here.
    #[arg(long)]
    pub plan_only: bool,
    /// No progress lines.
    #[arg(long, short)]
    pub quiet: bool,
}

/// `koth hill round`.
#[derive(Args, Debug)]
pub struct RoundArgs {
    /// The hill's folder.
    pub dir: PathBuf,
    /// Games of the round.
    #[arg(long, default_value_t = 10_000)]
    pub games: u64,
    /// The contest's final round, after its deadline: its seed is drawn from
    /// the hill's and from --beacon, and its report is the contest's result.
    #[arg(long, requires = "beacon")]
    pub r#final: bool,
    /// Text published after the deadline that no one could know before (a
    /// lottery draw, a block hash), from the source `config --beacon-source`
    /// named: the final round's seed is drawn from its normal form (its
    /// letters and digits, lower case), so no one chose its deals.
    #[arg(long, value_name = "TEXT", requires = "final")]
    pub beacon: Option<String>,
    /// Void final round N (its report stays, marked void on the page), so
    /// that another final can be played; --reason says why.
    #[arg(long, value_name = "N", conflicts_with_all = ["final", "beacon"], requires = "reason")]
    pub void_final: Option<i64>,
    /// Why the final round is voided, shown on the page.
    #[arg(long, value_name = "TEXT", requires = "void_final")]
    pub reason: Option<String>,
    #[command(flatten)]
    pub workers: Workers,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

/// `koth hill serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// The hill's folder.
    pub dir: PathBuf,
    /// Where the page is served.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: std::net::SocketAddr,
    #[command(flatten)]
    pub workers: Workers,
    /// On a hill on PostgreSQL: plan the blocks and serve the page, and let
    /// the workers play (koth hill work).
    #[arg(long)]
    pub plan_only: bool,
    /// Stop after this many more games (for scripts and tests; default: never).
    #[arg(long)]
    pub games: Option<u64>,
    /// Play nothing while every active entrant's rank is settled (its interval
    /// clears its neighbours'), until a change brings a candidate or unsettles a
    /// rank: no cores and disk spent on an order that stands.
    #[arg(long)]
    pub rest_when_settled: bool,
    /// How the log on stderr is written: text (a line per event, for people)
    /// or json (an object per line, for a log collector). RUST_LOG picks what
    /// is logged (default: info).
    #[arg(long, value_name = "FORMAT", default_value = "text", value_parser = ["text", "json"])]
    pub log_format: String,
    /// A proxy in front of the page (Caddy, nginx) whose X-Forwarded-For is
    /// believed: the clients behind it are held to the per-address share, and
    /// it is not. Its address as the hill sees it; repeat for several. No other
    /// peer's X-Forwarded-For is read.
    #[arg(long, value_name = "ADDRESS")]
    pub trusted_proxy: Vec<std::net::IpAddr>,
    /// Connections the page holds open at once (at least 16): an eighth per
    /// address, an eighth kept for authors. Default: a quarter of the
    /// descriptors this process may open, at most 1024 (the rest are the bots').
    #[arg(long, value_name = "N")]
    pub max_connections: Option<usize>,
}

/// Runs `koth hill ...`.
pub fn run(cmd: HillCmd) -> Result<()> {
    if let HillCmd::Init(a) = &cmd {
        return front::visit_word(&a.game, Init(a)).unwrap_or_else(|| {
            bail!(
                "unknown game {:?}\n  fix: --game coup, --game samurai or --game ppcg",
                a.game
            )
        });
    }
    if let HillCmd::Work(a) = cmd {
        return crate::work::work(a);
    }
    let dir = match &cmd {
        HillCmd::Init(a) => &a.dir,
        HillCmd::Work(_) => unreachable!("run above"),
        HillCmd::Worker(w) => w.dir(),
        HillCmd::Games(a) => &a.dir,
        HillCmd::Add(a) | HillCmd::Update(a) => &a.dir,
        HillCmd::Remove(a) | HillCmd::Pause(a) | HillCmd::Resume(a) => &a.dir,
        HillCmd::Play(a) => &a.dir,
        HillCmd::Round(a) => &a.dir,
        HillCmd::Serve(a) => &a.dir,
        HillCmd::Status { dir, .. } | HillCmd::Audit { dir, .. } => dir,
        HillCmd::Token(
            TokenCmd::Add { dir, .. } | TokenCmd::List { dir } | TokenCmd::Remove { dir, .. },
        ) => dir,
        HillCmd::Config(a) => &a.dir,
        HillCmd::Announce(a) => &a.dir,
        HillCmd::Backup { dir, .. } | HillCmd::Export { dir, .. } => dir,
    }
    .clone();
    let game = store::open(&dir)?.settings()?.game;
    front::visit(&game, On(cmd)).unwrap_or_else(|| {
        bail!(
            "{} is a hill of {game:?}, a game this koth does not know",
            dir.display()
        )
    })
}

/// Only a game's rule options, parsed from words.
#[derive(Parser, Debug)]
struct OptionsOnly<F: Front> {
    #[command(flatten)]
    options: F::Options,
}

/// The options of `F` that ask for rules preset `rules`.
pub(crate) fn options_for<F: Front>(rules: Option<&str>) -> Result<F::Options> {
    let mut words = vec!["koth".to_string()];
    if let Some(r) = rules {
        words.extend(["--rules".to_string(), r.to_string()]);
    }
    OptionsOnly::<F>::try_parse_from(words)
        .map(|o| o.options)
        .map_err(|_| anyhow!("{} has no rules presets: leave out --rules", F::WORD))
}

struct Init<'a>(&'a InitArgs);

impl front::Visit for Init<'_> {
    type Out = Result<()>;
    fn visit<F: Front>(self) -> Result<()> {
        let a = self.0;
        let options = options_for::<F>(a.rules.as_deref())?;
        let (rules, rules_name) = F::rules(&options, None)?;
        let seats = <F::Game as Game>::seats_allowed(&rules);
        let table = a
            .table_size
            .unwrap_or(4)
            .clamp(*seats.start(), *seats.end());
        if let Some(t) = a.table_size {
            if !seats.contains(&t) {
                bail!(
                    "--table-size {t}: {} seats {} to {} players",
                    F::WORD,
                    seats.start(),
                    seats.end()
                );
            }
        }
        if a.block == 0 || a.builtin_block == 0 || a.timeout_ms == 0 {
            bail!("--block, --builtin-block and --timeout-ms must be at least 1");
        }
        let settings = Settings {
            game: F::Game::NAME.to_string(),
            rules_name,
            rules: serde_json::to_value(&rules)?,
            table,
            seed: a.seed.unwrap_or_else(crate::settings::fresh_seed),
            block: a.block,
            builtin_block: a.builtin_block,
            candidate_games: a.candidate_games,
            duplicate: F::HIDDEN && table > 1,
            timeout_ms: a.timeout_ms,
            runtimes: a.runtimes.clone(),
            own_candidate_seeds: true,
            field_tables: true,
            as_played: true,
            check_seconds: a.check_seconds,
            log_mib: a.keep_logs,
            window: a.window,
            leases: a.leases,
            lease_seconds: a.lease_seconds,
        };
        if a.window == 0 || a.leases == 0 || a.lease_seconds == 0 {
            bail!("--window, --leases and --lease-seconds must be at least 1");
        }
        if let Some(r) = a
            .runtimes
            .iter()
            .find(|r| r.is_empty() || r.contains(['/', '\0']) || r.contains(char::is_whitespace))
        {
            bail!("--runtime {r:?}: a runtime is a program's name on PATH, such as python3 (an upload's own program is named ./bot and needs no --runtime)");
        }
        if a.check_seconds == 0 {
            bail!("--check-seconds must be at least 1");
        }
        if a.keep_logs == 0 {
            bail!("--keep-logs 0: the hill keeps at least the newest games' logs\n  fix: --keep-logs 1 keeps about 1 MiB of them");
        }
        if a.seed.is_some() && F::HIDDEN {
            eprintln!(
                "note: seed {} was chosen by hand, and every block and round of the hill derives from it: a program that guesses it can rebuild the deals. For a public hill, leave --seed out.",
                settings.seed
            );
        }
        Hill::<F::Game>::init_at(&a.dir, &settings, a.db.as_deref())?;
        out!(
            "a hill of {} ({} rules, {} seats a table) in {}\n  next: koth hill add {} NAME BOT",
            F::WORD,
            settings.rules_name,
            table,
            a.dir.display(),
            a.dir.display()
        );
        Ok(())
    }
}

struct On(HillCmd);

impl front::Visit for On {
    type Out = Result<()>;
    fn visit<F: Front>(self) -> Result<()> {
        match self.0 {
            HillCmd::Init(_) => unreachable!("made above"),
            HillCmd::Add(a) => submit::<F>(Change::Add, a),
            HillCmd::Update(a) => submit::<F>(Change::Update, a),
            HillCmd::Remove(a) => set::<F>(Change::Remove, a),
            HillCmd::Pause(a) => set::<F>(Change::Pause, a),
            HillCmd::Resume(a) => set::<F>(Change::Resume, a),
            HillCmd::Status {
                dir,
                verbose,
                pairs,
            } => {
                let hill = open::<F>(&dir)?;
                let board = hill.board()?.0;
                print_board(&board, hill.store.game_count()?);
                if verbose {
                    print_why(&board);
                }
                if pairs {
                    print_pairs(&hill.aims()?);
                }
                Ok(())
            }
            HillCmd::Play(a) => play::<F>(a),
            HillCmd::Round(a) => round::<F>(a),
            HillCmd::Serve(a) => serve::<F>(a),
            HillCmd::Audit {
                dir,
                sample: Some(n),
                worker: Some(w),
            } => crate::work::audit_sample::<F>(&dir, &w, n),
            HillCmd::Audit { dir, .. } => audit::<F>(&dir),
            HillCmd::Work(_) => unreachable!("run before"),
            HillCmd::Worker(w) => crate::work::worker_cmd::<F>(w),
            HillCmd::Token(t) => token::<F>(t),
            HillCmd::Games(a) => export_games(&a),
            HillCmd::Config(a) => config(&a),
            HillCmd::Announce(a) => announce(&a),
            HillCmd::Export { dir, to } => export::<F>(&dir, &to),
            HillCmd::Backup { dir, to } => {
                let c = koth_hill::folders::backup(&dir, &to)?;
                out!(
                    "{} copied into {}: {} files, {:.1} MB\n  check it: koth hill audit {}",
                    dir.display(),
                    to.display(),
                    c.files,
                    c.bytes as f64 / 1e6,
                    to.display()
                );
                Ok(())
            }
        }
    }
}

/// A time of `koth hill config`: RFC 3339, or `none`.
fn time_arg(flag: &str, text: &str) -> Result<Option<i64>> {
    if text == "none" {
        return Ok(None);
    }
    koth_hill::contest::parse_time(text)
        .map(Some)
        .map_err(|e| anyhow!("--{flag} {e}"))
}

/// `koth hill config`: sets what is given, then prints the contest.
fn config(a: &ConfigArgs) -> Result<()> {
    let mut store = store::open(&a.dir)?;
    let mut c = store.contest()?;
    let read = |flag: &str, path: &Path| {
        std::fs::read_to_string(path).with_context(|| {
            format!(
                "--{flag} {}: cannot read it\n  fix: name a Markdown file",
                path.display()
            )
        })
    };
    if let Some(t) = &a.title {
        c.title = t.trim().to_string();
    }
    if let Some(p) = &a.description {
        c.description = read("description", p)?;
    }
    if let Some(p) = &a.rules {
        c.rules = read("rules", p)?;
    }
    if let Some(t) = &a.start {
        c.start = time_arg("start", t)?;
    }
    if let Some(t) = &a.deadline {
        c.deadline = time_arg("deadline", t)?;
    }
    if let Some(t) = &a.end {
        c.end = time_arg("end", t)?;
    }
    if let Some(b) = &a.beacon_source {
        let now = koth_hill::store::now();
        if store.contest()?.phase(now) >= koth_hill::Phase::Frozen {
            bail!(
                "the beacon's source is fixed before the deadline, and that has passed ({})\n  fix: announce any change of it with koth hill announce; the final round draws from the source the page named",
                koth_hill::contest::phase_words(&c, now)
            );
        }
        c.beacon = b.trim().to_string();
    }
    if let Some(n) = a.entrants_per_author {
        if n == 0 {
            bail!("--entrants-per-author 0 would let no author enter\n  fix: 1 or more");
        }
        c.entrants_per_author = n;
    }
    if let Some(b) = a.show_names {
        c.show_names = b;
    }
    let order = [("start", c.start), ("deadline", c.deadline), ("end", c.end)];
    for (i, (x, tx)) in order.iter().enumerate() {
        for (y, ty) in &order[i + 1..] {
            if let (Some(tx), Some(ty)) = (tx, ty) {
                if tx > ty {
                    bail!(
                        "the {x} ({}) would come after the {y} ({})\n  fix: the start, the deadline and the end come in that order",
                        koth_hill::contest::show_time(*tx),
                        koth_hill::contest::show_time(*ty)
                    );
                }
            }
        }
    }
    store.set_contest(&c)?;
    let time = |t: Option<i64>| t.map_or("none".to_string(), koth_hill::contest::show_time);
    let first_line = |t: &str| {
        let line = t.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        if line.is_empty() {
            "none".to_string()
        } else {
            format!("{line} ({} lines)", t.lines().count())
        }
    };
    out!(
        "title:       {}\ndescription: {}\nrules:       {}\nstart:       {}\ndeadline:    {}\nend:         {}\nbeacon:      {}\nper author:  {} entrant(s)\nnames:       {}\nnow:         {}",
        if c.title.is_empty() { "none (the page says koth hill)" } else { &c.title },
        first_line(&c.description),
        first_line(&c.rules),
        time(c.start),
        time(c.deadline),
        time(c.end),
        if c.beacon.is_empty() { "none (round --final needs one)" } else { &c.beacon },
        c.per_author(),
        if c.show_names { "shown to the bots" } else { "hidden from the bots (each sees seat1, seat2, ...)" },
        koth_hill::contest::phase_words(&c, koth_hill::store::now())
    );
    Ok(())
}

/// The seed stream of final rounds (with the beacon's hash).
const FINAL_SEEDS: u64 = 999_999;

/// `koth hill round --void-final N`: the final round N is void (its report
/// stays), announced on the page; another final may then be played.
fn void_final(dir: &Path, n: i64, reason: &str) -> Result<()> {
    let mut store = store::open(dir)?;
    let mut contest = store.contest()?;
    let rounds = store.rounds()?;
    match koth_hill::contest::final_round(&contest, &rounds) {
        Some(r) if r.id == n => {}
        _ => bail!(
            "round {n} is not the contest's final round\n  fix: koth hill status shows the rounds; only the final round in force can be voided"
        ),
    }
    if reason.trim().is_empty() {
        bail!("--reason is empty\n  fix: say why the final round is void");
    }
    contest.voided.push(koth_hill::Voided {
        round: n,
        at: koth_hill::store::now(),
        reason: reason.trim().to_string(),
    });
    store.set_contest(&contest)?;
    store.announce(&format!(
        "The organiser voided the final round (round {n}): {}",
        reason.trim()
    ))?;
    out!("final round {n} voided, and announced; another final round may be played");
    Ok(())
}

/// `koth hill announce`.
fn announce(a: &AnnounceArgs) -> Result<()> {
    let mut store = store::open(&a.dir)?;
    if let Some(id) = a.remove {
        store.unannounce(id)?;
        out!("announcement {id} taken down");
    } else if a.list {
        for n in store.announcements()? {
            out!(
                "{} · {} · {}",
                n.id,
                koth_hill::contest::show_time(n.at),
                n.text
            );
        }
    } else if let Some(text) = &a.text {
        if text.trim().is_empty() {
            bail!("an empty announcement\n  fix: say something, such as koth hill announce DIR 'The deadline moves to Friday'");
        }
        let n = store.announce(text.trim())?;
        out!(
            "announcement {} posted at {}",
            n.id,
            koth_hill::contest::show_time(n.at)
        );
    }
    Ok(())
}

fn submit<F: Front>(change: Change, a: SubmitArgs) -> Result<()> {
    let mut hill = open::<F>(&a.dir)?;
    koth_hill::service::check_name(&a.name)?;
    let mut bot = koth_entrants::parse_bot(F::Game::KIND, &a.bot)?;
    crate::play::bare::<F>(&mut bot, &a.bot);
    bot.name = a.name.clone();
    // What the hill stores and runs: a program's folder copied in first, so
    // that the check plays exactly what its games will.
    let spec = hill.spec_of(&bot)?;
    hill.may_enter(&a.name, &spec, None)?;
    if bot.dir().is_some() {
        // A program enters only if it passes the check, at the hill's rules.
        let options = options_for::<F>(Some(&hill.settings.rules_name))
            .or_else(|_| options_for::<F>(None))?;
        eprintln!("checking {} before it enters the hill...", a.name);
        let verdict = crate::check::check::<F>(crate::check::CheckArgs {
            bot: spec.to_string(),
            file: None,
            options,
            games: a.check_games,
            seed: 1,
            sandbox: a.sandbox,
            timeout_ms: Some(hill.settings.timeout_ms),
            game: None,
            accept_unreached: true,
            name: Some(a.name.clone()),
            hill: Some(a.dir.clone()),
            quiet: true,
        });
        match verdict {
            Ok(v) if v.status() == 0 => {}
            Ok(_) => {
                hill.forget_spec(&spec)?;
                bail!(
                    "{} did not enter the hill: its check found what is above\n  fix: mend the bot, check it with koth {} check '{}', and submit it again",
                    a.name,
                    F::WORD,
                    a.bot
                );
            }
            Err(e) => {
                hill.forget_spec(&spec)?;
                return Err(e);
            }
        }
    }
    let ev = hill.enter(change, &a.name, spec, None)?;
    let version = hill
        .store
        .versions()?
        .into_iter()
        .find(|v| Some(v.id) == ev.version)
        .map_or(0, |v| v.number);
    out!(
        "{} {}: version {version}{}",
        a.name,
        if change == Change::Add {
            "entered the hill"
        } else {
            "updated"
        },
        match bot.dir() {
            Some(_) => " (its folder copied into the hill)",
            None => "",
        }
    );
    Ok(())
}

fn set<F: Front>(change: Change, a: NameArgs) -> Result<()> {
    let mut hill = open::<F>(&a.dir)?;
    hill.set(change, &a.name)?;
    out!("{}: {}", a.name, change.name());
    Ok(())
}

/// `koth hill games`: every stored game as a JSON line.
fn export_games(a: &GamesArgs) -> Result<()> {
    use std::io::Write as _;
    let store = store::open(&a.dir)?;
    let seats = koth_hill::export::Seats::of(store.as_ref())?;
    let only = match &a.entrant {
        Some(name) => Some(
            seats
                .entrant(name)
                .map(|e| e.id)
                .map_err(|e| anyhow::anyhow!("{}: {e}", a.dir.display()))?,
        ),
        None => None,
    };
    let sink: Box<dyn std::io::Write> = match &a.out {
        Some(path) => Box::new(
            std::fs::File::create(path)
                .with_context(|| format!("cannot write {}", path.display()))?,
        ),
        None => Box::new(std::io::stdout().lock()),
    };
    let mut out = std::io::BufWriter::new(sink);
    let mut failed: Option<anyhow::Error> = None;
    store.each_game(&mut |g| {
        if failed.is_some() || only.is_some_and(|id| !seats.played(&g, id)) {
            return;
        }
        // The record as stored, key for key (a run's games.jsonl line).
        let record: &serde_json::value::RawValue = match serde_json::from_str(&g.record) {
            Ok(r) => r,
            Err(e) => {
                failed = Some(anyhow::anyhow!(
                    "game {} of block {}: unreadable record: {e}\n  fix: koth hill audit {} says what else is damaged",
                    g.index,
                    g.block,
                    a.dir.display()
                ));
                return;
            }
        };
        // As an io::Error, so that a closed pipe is seen as one below.
        let written = serde_json::to_writer(&mut out, &seats.line(&g, record))
            .map_err(std::io::Error::from)
            .and_then(|()| out.write_all(b"\n"));
        if let Err(e) = written {
            failed = Some(e.into());
        }
    })?;
    if let Some(e) = failed.or_else(|| out.flush().err().map(Into::into)) {
        // A reader that stopped early (`| head`) is not a failure.
        if e.downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
        {
            return Ok(());
        }
        return Err(e);
    }
    Ok(())
}

/// Plays blocks until `limit` games are stored since the start (for ever
/// without one), rebuilding the board when the field changes; `idle` is called
/// when there is nothing to play, and says whether to wait for a change.
fn keep_playing<F: Front>(
    hill: &mut Hill<F::Game>,
    stop: &AtomicBool,
    limit: Option<u64>,
    on_games: &mut dyn FnMut(&Board, u64),
    idle: &dyn Fn() -> bool,
    plan_only: bool,
) -> Result<Board> {
    if hill.store.shared() {
        return crate::work::keep_playing_shared::<F>(hill, stop, limit, on_games, idle, plan_only);
    }
    if plan_only {
        bail!("--plan-only: this hill keeps its data in SQLite, which one process plays\n  fix: a hill played by workers is made with koth hill init DIR --db postgres://...");
    }
    let (mut board, mut seen) = hill.board()?;
    let start = hill.store.game_count()?;
    let mut stored = start;
    on_games(&board, stored);
    // A point of the standings' history now and then, and at every change.
    let mut noted: Option<std::time::Instant> = None;
    // The games stored when the history last took a point: a resting hill adds none.
    let mut noted_at = None;
    let mut low_disk_said = false;
    let mut ended_said = false;
    while !stop.load(Ordering::Relaxed) && limit.is_none_or(|l| stored - start < l) {
        let news = hill.store.events(seen)?;
        for ev in &news {
            tracing::info!(entrant = %ev.entrant, change = %ev.kind, "field changed");
        }
        if let Some(last) = news.last() {
            seen = last.id;
            board = hill.board_after(board, &news, seen)?;
            on_games(&board, stored);
            noted = None;
            noted_at = None;
        }
        if noted.is_none_or(|t| t.elapsed() >= HISTORY_EVERY)
            && board.games > 0
            && noted_at != Some(stored)
        {
            noted_at = Some(stored);
            hill.store.add_history(
                koth_hill::store::now(),
                stored,
                &koth_hill::web::history_point(&board),
            )?;
            // Opened again, the hill counts only the games after this.
            hill.keep_standings(&board)?;
            noted = Some(std::time::Instant::now());
        }
        // A full disk would fail a batch mid-block: wait, saying why, until
        // there is room again.
        if let Some(free) = koth_hill::folders::disk_low(&hill.dir) {
            if !low_disk_said {
                say(true, &format!(
                    "the disk of {} has {} MiB free, under the {} MiB the hill keeps free: no games until there is more (free some space; the hill goes on by itself)",
                    hill.dir.display(),
                    free >> 20,
                    koth_hill::folders::DISK_RESERVE >> 20
                ));
                low_disk_said = true;
            }
            std::thread::sleep(std::time::Duration::from_secs(2));
            continue;
        } else if low_disk_said {
            say(
                false,
                &format!(
                    "the disk of {} has room again: playing on",
                    hill.dir.display()
                ),
            );
            low_disk_said = false;
        }
        // After the contest's end the page stays and no game is played.
        let contest = hill.store.contest()?;
        if contest.phase(koth_hill::store::now()) == koth_hill::Phase::Ended {
            if !ended_said {
                say(
                    false,
                    "the contest has ended: no more games (the page stays)",
                );
                ended_said = true;
            }
            if !idle() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_secs(1));
            continue;
        }
        ended_said = false;
        let machine = hill.replays.machine;
        let began = std::time::Instant::now();
        let before = stored;
        let played = hill.step(&mut board, seen, stop, &mut |b, games| {
            stored += games;
            on_games(b, stored);
        })?;
        if let Some(b) = &played {
            tracing::info!(
                block = b.id,
                kind = %b.kind,
                games = stored - before,
                seconds = began.elapsed().as_secs_f64(),
                "block played"
            );
        }
        if hill.replays.machine > machine {
            // Charged to no bot: those games wait, and the workers pause.
            say(true, &format!(
                "the machine could not start a bot's process for {} game{} (played again when it can; {} so far): {}",
                hill.replays.machine - machine,
                if hill.replays.machine - machine == 1 { "" } else { "s" },
                hill.replays.machine,
                hill.replays.last_machine.as_deref().unwrap_or("")
            ));
        }
        if played.is_none() {
            if !idle() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(300));
        }
    }
    hill.keep_standings(&board)?;
    Ok(board)
}

fn play<F: Front>(a: PlayArgs) -> Result<()> {
    if a.games == 0 {
        bail!("--games must be at least 1");
    }
    let mut hill = open::<F>(&a.dir)?;
    hill.claim_play()?;
    let contest = hill.store.contest()?;
    if contest.phase(koth_hill::store::now()) == koth_hill::Phase::Ended {
        bail!(
            "{}: no more games\n  fix: koth hill config {} --end none (or a later time) to play on",
            koth_hill::contest::phase_words(&contest, koth_hill::store::now()),
            a.dir.display()
        );
    }
    a.workers.apply(&mut hill);
    hill.rest_when_settled = a.rest_when_settled;
    let stop = stop_flag();
    let quiet = a.quiet;
    let mut last = std::time::Instant::now();
    let start = std::time::Instant::now();
    let first = hill.store.game_count()?;
    let board = keep_playing::<F>(
        &mut hill,
        &stop,
        Some(a.games),
        &mut |b, stored| {
            if !quiet && last.elapsed().as_secs_f64() >= 1.0 {
                last = std::time::Instant::now();
                let rows = b.rows();
                let top = rows.first().map_or(String::new(), |r| {
                    format!(", first {} ({:+.3})", r.name, r.strength)
                });
                eprintln!("  {} games played{top}", stored - first);
            }
        },
        &|| false,
        a.plan_only,
    )?;
    let played = hill.store.game_count()? - first;
    let settled = hill.rest_when_settled
        && board.settled()
        && played < a.games
        && !stop.load(Ordering::Relaxed);
    if played == 0 && !settled {
        bail!(
            "nothing to play: a hill needs two active entrants\n  fix: koth hill add {} NAME BOT",
            a.dir.display()
        );
    }
    if !quiet {
        eprintln!("{played} games in {:.1} s", start.elapsed().as_secs_f64());
    }
    if settled {
        eprintln!("every rank is settled: resting (a change to the field brings more games)");
    }
    print_board(&board, hill.store.game_count()?);
    if stop.load(Ordering::Relaxed) {
        std::process::exit(130);
    }
    Ok(())
}

/// How the page shows a stored game: step by step, with its record (a game
/// of built-ins, kept as results, played again from its block's seed).
fn game_view<F: Front>(hill: &Hill<F::Game>, dir: &Path) -> koth_hill::web::GameView {
    let rules: RulesOf<F> = hill.rules.clone();
    let dir = dir.to_path_buf();
    Box::new(move |g, log, names| {
        let mut rec: GameRecord<ChoiceOf<F>> =
            serde_json::from_str(&g.record).map_err(|e| format!("unreadable record: {e}"))?;
        if rec.choices.is_none() {
            rec = open::<F>(&dir)
                .map_err(|e| format!("{e:#}"))?
                .full_record(g)
                .map_err(|e| e.to_string())?;
        }
        // Each program's decisions (request, answer, time) and what it wrote
        // then, as the run report shows them.
        rec.log = log.map(Box::new);
        let steps = F::page_steps(&rules, &rec, names)?;
        Ok(serde_json::json!({ "steps": steps, "facts": F::page_facts(), "record": rec }))
    })
}

/// `koth hill export`: the page as static files.
fn export<F: Front>(dir: &Path, to: &Path) -> Result<()> {
    let hill = open::<F>(dir)?;
    let (board, _) = hill.board()?;
    let board = koth_hill::web::board_json(&hill.settings, &board, hill.store.game_count()?);
    let view = game_view::<F>(&hill, dir);
    let done = koth_hill::site::export(dir, to, &board, Some(&view))?;
    out!(
        "the page of {} written to {}: {} entrants' pages, {} games, {} round reports\n  host the folder anywhere (a static file server); open {}/index.html through one, not from the disk",
        dir.display(),
        to.display(),
        done.entrants,
        done.games,
        done.rounds,
        to.display()
    );
    Ok(())
}

fn serve<F: Front>(mut a: ServeArgs) -> Result<()> {
    start_log(&a.log_format);
    // Checks of uploads run from other folders than this one: the hill's
    // folder as an absolute path, whatever the organiser typed.
    a.dir = koth_process::absolute(&a.dir);
    let mut hill = open::<F>(&a.dir)?;
    hill.claim_play()?;
    // What a serve killed mid-check left behind.
    let swept = hill.sweep()?;
    if !swept.is_empty() {
        say(
            false,
            &format!("cleared what a stopped serve left: {}", swept.join(", ")),
        );
    }
    a.workers.apply(&mut hill);
    hill.rest_when_settled = a.rest_when_settled;
    let metrics = Arc::new(koth_hill::metrics::Metrics::default());
    hill.metrics = Some(metrics.clone());
    let stop = stop_flag();
    let (board, _) = hill.board()?;
    let stored = hill.store.game_count()?;
    let (tx, rx) = koth_hill::web::watch::channel(Arc::new(koth_hill::web::board_json(
        &hill.settings,
        &board,
        stored,
    )));
    drop(board);
    let view = game_view::<F>(&hill, &a.dir);
    let support = koth_process::sandbox_support();
    let submit = if hill.sandbox == koth_process::Sandbox::Off || support.namespaces {
        submitter::<F>(a.dir.clone(), hill.sandbox).map_err(|e| format!("{e:#}"))
    } else {
        Err(format!(
            "this hill takes no uploads: this machine cannot isolate programs ({}); its organiser may take them anyway with --sandbox off, trusting every entrant",
            support.detail
        ))
    };
    if let Err(why) = &submit {
        say(true, why);
    }
    let site = koth_hill::web::Site {
        dir: a.dir.clone(),
        live: rx,
        view: Some(view),
        submit,
        limits: koth_hill::upload::Limits::default(),
        // Most descriptors stay the bots': the page takes a quarter at most.
        server: {
            let open_files = koth_process::raise_open_files();
            match a.max_connections {
                Some(n) => koth_hill::conn::ServerLimits::for_connections(n),
                None => koth_hill::conn::ServerLimits::for_descriptors(open_files),
            }
        },
        proxies: a.trusted_proxy.clone(),
        metrics,
    };
    let addr = koth_hill::web::serve(a.listen, site)
        .with_context(|| format!("cannot serve the page on {}", a.listen))?;
    eprintln!("the hill's page: http://{addr}/  (Ctrl-C stops)");
    tracing::info!(address = %format!("http://{addr}/"), hill = %a.dir.display(), game = F::WORD, "serving");
    let settings = hill.settings.clone();
    keep_playing::<F>(
        &mut hill,
        &stop,
        a.games,
        &mut |b, stored| {
            tx.send_replace(Arc::new(koth_hill::web::board_json(&settings, b, stored)));
        },
        &|| true,
        a.plan_only,
    )?;
    Ok(())
}

/// The collusion check, as `hill status --pairs` prints it.
fn print_pairs(a: &koth_hill::pairs::Aims) {
    out!(
        "\nwho aims at whom: {} attacks with a choice of target in {} games; a pair is flagged past |z| {:.2} (5% over {} pairs); honest pairs' spread: ×{:.2}",
        a.attacks,
        a.games,
        a.threshold,
        a.pairs.len(),
        a.spread.exp()
    );
    if a.pairs.is_empty() {
        out!(
            "  no pair has {} expected attacks yet",
            koth_hill::pairs::LEAST_EXPECTED
        );
        return;
    }
    let mut t = comfy_table::Table::new();
    t.load_preset(comfy_table::presets::NOTHING);
    t.set_header([
        "actor",
        "target",
        "aimed",
        "expected",
        "z",
        "",
        "games to look at",
    ]);
    // The flagged, then the five farthest of the rest.
    for p in a
        .flagged()
        .chain(a.pairs.iter().filter(|p| !p.flagged).take(5))
    {
        t.add_row([
            p.actor.clone(),
            p.target.clone(),
            p.aimed.to_string(),
            format!("{:.1}", p.expected),
            format!("{:+.1}", p.z),
            if !p.flagged {
                String::new()
            } else if p.z < 0.0 {
                "FLAGGED: spares it".into()
            } else {
                "FLAGGED: hunts it".into()
            },
            p.games
                .iter()
                .map(|(b, i)| format!("{b}/{i}"))
                .collect::<Vec<_>>()
                .join(" "),
        ]);
    }
    out!("{t}");
    let flagged = a.flagged().count();
    if flagged > 0 {
        out!(
            "  {flagged} pair(s) flagged: open their games on the page (/#game=BLOCK/NUMBER) before you judge; bots never learn whom they play unless the contest shows names"
        );
    }
}

fn token<F: Front>(t: TokenCmd) -> Result<()> {
    match t {
        TokenCmd::Add { dir, name, admin } => {
            let mut hill = open::<F>(&dir)?;
            let token = hill.add_token(&name, admin)?;
            out!("{token}");
            eprintln!(
                "the {} token {name:?}: give it to its owner now, it is not shown again",
                if admin { "organiser's" } else { "author's" }
            );
        }
        TokenCmd::List { dir } => {
            for t in store::open(&dir)?.tokens()? {
                out!("{}{}", t.name, if t.admin { " (organiser)" } else { "" });
            }
        }
        TokenCmd::Remove { dir, name } => {
            store::open(&dir)?.remove_token(&name)?;
            out!("token {name:?} revoked");
        }
    }
    Ok(())
}

/// Checks an uploaded bot and enters it. Its command is refused at once if it
/// names anything outside its folder or a runtime the hill does not allow; its
/// folder is then kept in the hill, and `koth <game> check --hill` (a process of
/// its own, ended with `serve` and after the hill's check time) runs exactly the
/// version the hill would store, in the sandbox of the hill's games.
fn submitter<F: Front>(
    dir: PathBuf,
    sandbox: koth_process::Sandbox,
) -> Result<koth_hill::web::Submit> {
    let exe = std::env::current_exe().context("cannot find koth's own program")?;
    let settings = store::open(&dir)?.settings()?;
    let rules_flag = options_for::<F>(Some(&settings.rules_name)).is_ok();
    Ok(Box::new(move |s: &koth_hill::web::Submission| {
        use koth_hill::web::Refused;
        let before = |why: String| Refused {
            why,
            checked: false,
        };
        let hill = open::<F>(&dir).map_err(|e| before(format!("{e:#}")))?;
        let refused = |e: String| before(format!("{e}\n{} did not enter the hill", s.name));
        hill.may_enter(&s.name, &serde_json::Value::Null, Some(&s.author))
            .map_err(|e| refused(e.to_string()))?;
        let spec = hill
            .upload_spec(&s.command, &s.folder, F::BARE)
            .map_err(|e| refused(e.to_string()))?;
        if let Err(e) = hill.may_enter(&s.name, &spec, Some(&s.author)) {
            hill.forget_spec(&spec).ok();
            return Err(refused(e.to_string()));
        }
        let mut words: Vec<String> = vec![exe.display().to_string(), F::WORD.to_string()];
        words.extend(
            [
                "check",
                &spec.to_string(),
                "--hill",
                &dir.display().to_string(),
                "-q",
                "--accept-unreached",
                "--name",
                &s.name,
                "--timeout-ms",
                &settings.timeout_ms.to_string(),
                "--sandbox",
                if sandbox == koth_process::Sandbox::Off {
                    "off"
                } else {
                    "auto"
                },
            ]
            .map(str::to_string),
        );
        if rules_flag {
            words.extend(["--rules".to_string(), settings.rules_name.clone()]);
        }
        // koth itself, trusted: it sandboxes the bot. It dies with serve.
        let mut cmd = koth_process::Command::new(words, &dir)
            .with_sandbox(koth_process::Sandbox::Off)
            .with_limits(koth_process::Limits::none())
            .with_env("NO_COLOR", "1");
        for (k, v) in std::env::vars() {
            if k.starts_with("KOTH_") {
                cmd = cmd.with_env(k, v);
            }
        }
        let limit = settings.check_time();
        let r = koth_process::invoke(&cmd, &[], limit, 1 << 20);
        // The check's header and warnings (stderr) come before its table and
        // verdict (stdout), as in a terminal.
        let mut report = r.stderr_tail.clone();
        report += &r.stdout_lossy();
        // The bot's folder as its author knows it, and no path of the server's.
        let folder = spec["folder"].as_str().unwrap_or_default();
        let path = dir.join(folder).display().to_string();
        let report = report
            .replace(&format!("its folder {path}"), "its folder")
            .replace(&path, "its folder");
        let report = koth_hill::web::scrub(&report, &dir);
        let passed = r.exit == koth_process::Exit::Code(0);
        if !passed {
            hill.forget_spec(&spec).ok();
            let why = if r.exit == koth_process::Exit::TimedOut {
                format!(
                    "\nthe check took longer than the hill allows ({} s): make the bot faster",
                    limit.as_secs()
                )
            } else {
                String::new()
            };
            return Err(Refused {
                why: format!("{report}{why}\n{} did not enter the hill: mend what the check found and upload it again", s.name),
                checked: true,
            });
        }
        let mut hill = hill;
        let ev = match hill.enter(s.change, &s.name, spec.clone(), Some(&s.author)) {
            Ok(ev) => ev,
            Err(e) => {
                hill.forget_spec(&spec).ok();
                return Err(Refused {
                    why: e.to_string(),
                    checked: true,
                });
            }
        };
        let number = hill
            .store
            .versions()
            .map_err(|e| Refused {
                why: e.to_string(),
                checked: true,
            })?
            .into_iter()
            .find(|v| Some(v.id) == ev.version)
            .map_or(0, |v| v.number);
        Ok(format!(
            "{report}\n{} entered the hill: version {number}",
            s.name
        ))
    }))
}

/// A round's tournament file, as `koth <game> run` reads it.
#[derive(serde::Serialize)]
struct RoundFile {
    tournament: RoundHead,
    bot: Vec<RoundBot>,
}

/// Its `[tournament]` table.
#[derive(serde::Serialize)]
struct RoundHead {
    decision_timeout_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    game: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rules: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    table_size: Option<usize>,
}

/// One of its `[[bot]]` tables.
#[derive(serde::Serialize)]
struct RoundBot {
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    builtin: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    command: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dir: Option<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    protocol: Option<&'static str>,
}

fn round<F: Front>(a: RoundArgs) -> Result<()> {
    if let Some(n) = a.void_final {
        return void_final(&a.dir, n, a.reason.as_deref().unwrap_or_default());
    }
    if a.games == 0 {
        bail!("--games must be at least 1");
    }
    let mut hill = open::<F>(&a.dir)?;
    if a.r#final {
        let contest = hill.store.contest()?;
        if contest.beacon.is_empty() {
            bail!(
                "the final round's beacon has no source named: the page must say, before the deadline, where and when the text is published\n  fix: koth hill config {} --beacon-source TEXT (before the deadline)",
                a.dir.display()
            );
        }
        let rounds = hill.store.rounds()?;
        if let Some(r) = koth_hill::contest::final_round(&contest, &rounds) {
            bail!(
                "the final round was played already: round {} (beacon {:?})\n  fix: koth hill round {} --void-final {} --reason TEXT first, if it must be played again (the page shows it void)",
                r.id,
                r.beacon.as_deref().unwrap_or_default(),
                a.dir.display(),
                r.id
            );
        }
    }
    let versions = hill.store.versions()?;
    let field: Vec<_> = hill
        .store
        .entrants()?
        .into_iter()
        .filter(|e| e.status == koth_hill::Status::Active)
        .collect();
    if field.len() < 2 {
        bail!(
            "a round needs two active entrants, the hill has {}\n  fix: koth hill add {} NAME BOT",
            field.len(),
            a.dir.display()
        );
    }
    let contest = hill.store.contest()?;
    let now = koth_hill::store::now();
    if a.r#final
        && !matches!(
            contest.phase(now),
            koth_hill::Phase::Frozen | koth_hill::Phase::Ended
        )
    {
        bail!(
            "the final round comes after the submission deadline, and {}\n  fix: koth hill config {} --deadline TIME, and play it once that time has passed",
            match contest.deadline {
                Some(d) => format!("that is {}", koth_hill::contest::show_time(d)),
                None => "the contest has none".into(),
            },
            a.dir.display()
        );
    }
    let n = hill.store.next_round()?;
    let rounds = a.dir.join(koth_hill::web::ROUNDS);
    let out = rounds.join(n.to_string());
    let file = rounds.join(format!("{n}.toml"));
    std::fs::create_dir_all(&rounds)?;
    // The round as a tournament file of the current versions, played by `run`.
    let mut seed = koth_arena::rng::derive_seed(hill.settings.seed, 1_000_000 + n as u64);
    if let Some(beacon) = &a.beacon {
        // A final's deals are the beacon's alone: played again after a void,
        // under any round number, it draws the same ones.
        seed = koth_arena::rng::derive_seed(hill.settings.seed, FINAL_SEEDS);
        // Drawn also from text no one knew before the deadline: neither the
        // organiser nor an author could have chosen these deals. Its normal
        // form: no spelling of it draws other deals.
        let normal = koth_hill::contest::beacon_normal_form(beacon);
        if normal.is_empty() {
            bail!("--beacon {beacon:?} holds no letter or digit\n  fix: give the text the source published");
        }
        let h = blake3::hash(normal.as_bytes());
        let word = u64::from_le_bytes(h.as_bytes()[..8].try_into().expect("8 bytes"));
        seed = koth_arena::rng::derive_seed(seed, word);
    }
    let s = &hill.settings;
    let samurai = F::Game::KIND == koth_entrants::GameKind::Samurai;
    let mut round_file = RoundFile {
        tournament: RoundHead {
            decision_timeout_ms: s.timeout_ms,
            game: samurai.then_some("samurai"),
            rules: (!samurai).then(|| s.rules_name.clone()),
            table_size: (!samurai).then_some(s.table),
        },
        bot: Vec::new(),
    };
    let mut entrants = Vec::new();
    for e in &field {
        let v = versions
            .iter()
            .find(|v| v.id == e.version)
            .context("an entrant without its version")?;
        entrants.push(serde_json::json!([e.name, v.number]));
        let mut bot = RoundBot {
            name: e.name.clone(),
            builtin: None,
            command: None,
            dir: None,
            protocol: None,
        };
        match v.spec.get("builtin").and_then(|b| b.as_str()) {
            Some(b) => bot.builtin = Some(b.to_string()),
            None => {
                let entry = hill.bot_of(&e.name, &v.spec)?;
                let koth_entrants::BotSource::Program {
                    command,
                    dir,
                    protocol,
                    ..
                } = &entry.source
                else {
                    continue;
                };
                // A coup-cli folder's command is already its adapter's: JSON lines.
                let protocol = if *protocol == koth_entrants::Protocol::CoupCli {
                    koth_entrants::Protocol::Json
                } else {
                    *protocol
                };
                bot.command = Some(command.clone());
                bot.dir = Some(koth_process::absolute(dir));
                bot.protocol = Some(protocol.name());
            }
        }
        round_file.bot.push(bot);
    }
    // Written by the serializer: a path of any characters stays one TOML string.
    let toml = format!(
        "# Round {n} of the hill (seed {seed}): the active entrants' current versions.\n{}",
        toml::to_string(&round_file).context("cannot write the round's tournament file")?
    );
    std::fs::write(&file, toml).with_context(|| format!("cannot write {}", file.display()))?;
    let exe = std::env::current_exe().context("cannot find koth's own program")?;
    let mut run = std::process::Command::new(&exe);
    run.arg(F::WORD)
        .arg("run")
        .arg(&file)
        .arg("--out")
        .arg(&out)
        .args(["--games", &a.games.to_string(), "--records", "full"])
        .args(["--seed", &seed.to_string(), "--seed-derived"])
        .args([
            "--sandbox",
            if a.workers.sandbox == Some(koth_process::Sandbox::Off) {
                "off"
            } else {
                "auto"
            },
        ]);
    if F::Game::KIND == koth_entrants::GameKind::Coup && F::HIDDEN {
        run.args(["--schedule", "balanced", "--duplicate"]);
    }
    if let Some(t) = a.workers.threads {
        run.args(["--threads", &t.to_string()]);
    }
    if a.quiet {
        run.arg("-q");
    }
    let status = run.status().context("cannot run the round")?;
    if !status.success() {
        bail!("round {n} did not finish (its run is in {})", out.display());
    }
    // Published on the hill's page: no bot's stderr (its author reads that there).
    let name = if contest.title.is_empty() {
        format!("the {} hill", F::WORD)
    } else {
        contest.title.clone()
    };
    let heading = if a.r#final {
        format!("{name}: the final round (round {n})")
    } else {
        format!("{name}: round {n}")
    };
    let played: Vec<String> = entrants
        .iter()
        .map(|e| format!("{} v{}", e[0].as_str().unwrap_or("?"), e[1]))
        .collect();
    let mut subheading = format!("the versions: {}", played.join(", "));
    if let Some(b) = &a.beacon {
        subheading +=
            &format!(" · seeds drawn from the beacon {b:?}, published after the deadline");
    }
    let report = std::process::Command::new(&exe)
        .arg("report")
        .arg(&out)
        .arg("--public")
        .args(["--title", &heading, "--subtitle", &subheading])
        .stdout(std::process::Stdio::null())
        .status()?;
    if !report.success() {
        bail!("round {n} was played but its report could not be made");
    }
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json"))?)?;
    let standings: Vec<serde_json::Value> = summary["standings"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| serde_json::json!({ "name": r["name"], "strength": r["strength"], "mean": r["mean"], "low": r["low"], "high": r["high"], "games": r["games"] }))
        .collect();
    hill.store.add_round(&koth_hill::Round {
        id: n,
        at: koth_hill::store::now(),
        games: summary["games"].as_u64().unwrap_or(a.games),
        entrants: serde_json::json!(entrants),
        standings: serde_json::json!(standings),
        beacon: a.beacon.clone(),
    })?;
    out!(
        "round {n}: {} games; its report: {}  (on the hill's page: /rounds/{n})",
        summary["games"],
        out.join("report.html").display()
    );
    Ok(())
}

fn audit<F: Front>(dir: &Path) -> Result<()> {
    let hill = open::<F>(dir)?;
    let report = hill.audit()?;
    let what = format!(
        "{} blocks planned again, {} games replayed",
        report.blocks, report.games
    );
    print_audit(&report, &what, "problems");
    Ok(())
}

/// What each rank's ✓ rests on, a line an entrant.
pub fn print_why(board: &Board) {
    out!(
        "Each ✓ rests on the difference between neighbours' strengths, from the same games: it can leave out 0 while their own intervals overlap. Its interval is drawn at the hill's boundary (z below), which two equal bots cross in at most 5% of hills however often the hill looks; a ✓ also needs {} deals of each.",
        koth_hill::MIN_SETTLED_DEALS
    );
    for r in board.rows() {
        out!(
            "{:>3}{} {}: {}",
            r.rank,
            if r.settled { " ✓" } else { "  " },
            r.name,
            r.why()
        );
    }
}

/// The leaderboard, as a table.
pub fn print_board(board: &Board, stored: u64) {
    use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell, CellAlignment, Table};
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED);
    t.set_header(vec![
        "#",
        "entrant",
        "ver",
        "games",
        "strength",
        "95% interval",
        "mean",
        "won",
        "shared",
        "lost",
        "forf",
        "rating",
    ]);
    for r in board.rows() {
        let right = |s: String| Cell::new(s).set_alignment(CellAlignment::Right);
        t.add_row(vec![
            right(format!("{}{}", r.rank, if r.settled { " ✓" } else { "" })),
            Cell::new(format!(
                "{}{}",
                r.name,
                if r.status == "paused" {
                    " (paused)"
                } else {
                    ""
                }
            )),
            right(format!("v{}", r.version)),
            right(r.games.to_string()),
            right(if r.games > 0 {
                format!("{:+.3}", r.strength)
            } else {
                "-".into()
            }),
            right(if r.games > 0 {
                format!("{:+.3} … {:+.3}", r.low, r.high)
            } else {
                String::new()
            }),
            right(if r.games > 0 {
                format!("{:+.3}", r.mean)
            } else {
                String::new()
            }),
            right(r.wins.to_string()),
            right(r.draws.to_string()),
            right(r.losses.to_string()),
            right(r.forfeits.to_string()),
            right(format!("{:.1}", r.rating)),
        ]);
    }
    out!("{t}");
    out!(
        "{} games stored, {} of them among the current versions; strength: the mean score against the whole field, whomever each met (mean: over the games it played); ✓: told apart from both neighbours, at a level that holds however often the hill looks",
        stored,
        board.games
    );
}
