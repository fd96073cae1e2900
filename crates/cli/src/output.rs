//! What every runner prints: the live progress bar, the leaderboard and the JSON
//! summary. Game-agnostic.

use anyhow::{Context, Result};
use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell, CellAlignment, ContentArrangement, Table};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use koth_arena::{GameRecord, Observer, Progress, RunSummary, Standings};
use serde::Serialize;
use std::path::Path;
use std::time::Duration;

/// A progress bar on stderr with games/s, ETA and the current leader.
pub struct Bar {
    bar: ProgressBar,
    last_msg: Duration,
}

impl Bar {
    /// A bar for `total` games; hidden when stderr is not a terminal or `quiet`.
    pub fn new(total: u64, quiet: bool) -> Bar {
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr_with_hz(8));
        if quiet {
            bar.set_draw_target(ProgressDrawTarget::hidden());
        }
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner:.green} [{elapsed_precise}] {bar:32.cyan/blue} {human_pos}/{human_len} games  {per_sec:.bold}  ETA {eta}  {msg}",
            )
            .expect("valid template")
            .progress_chars("█▉▊▋▌▍▎▏ "),
        );
        Bar {
            bar,
            last_msg: Duration::ZERO,
        }
    }

    /// Clears the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl<C> Observer<C> for Bar {
    fn on_record(&mut self, _r: &GameRecord<C>) {}
    fn on_progress(&mut self, p: &Progress<'_>) {
        self.bar.set_length(p.total);
        self.bar.set_position(p.done);
        if p.elapsed >= self.last_msg + Duration::from_millis(250) {
            self.last_msg = p.elapsed;
            if let Some(&lead) = p.standings.ranking().first() {
                let e = &p.standings.entrants[lead];
                self.bar
                    .set_message(format!("leader: {} ({:+.3}/game)", e.name, e.score.mean()));
            }
        }
    }
}

/// One row of a leaderboard, as printed and as written to JSON.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// 1-based rank.
    pub rank: usize,
    /// Entrant name.
    pub name: String,
    /// Games played.
    pub games: u64,
    /// Games won alone.
    pub wins: u64,
    /// Shared wins and games nobody won.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
    /// Games forfeited.
    pub forfeits: u64,
    /// Illegal answers penalised (under a penalty rule).
    pub penalties: u64,
    /// Answers accepted leniently, with a warning.
    pub warnings: u64,
    /// Mean score per game.
    pub mean: f64,
    /// Half-width of the 95% interval of the mean.
    pub ci95: f64,
    /// Total score.
    pub total: f64,
}

/// The leaderboard rows, best first.
pub fn rows(s: &Standings) -> Vec<Row> {
    s.ranking()
        .into_iter()
        .enumerate()
        .map(|(i, e)| {
            let st = &s.entrants[e];
            Row {
                rank: i + 1,
                name: st.name.clone(),
                games: st.games(),
                wins: st.wins,
                draws: st.draws,
                losses: st.losses,
                forfeits: st.forfeits,
                penalties: st.penalties,
                warnings: st.warnings,
                mean: st.score.mean(),
                ci95: if st.games() >= 2 {
                    st.score.ci95()
                } else {
                    0.0
                },
                total: st.score.sum(),
            }
        })
        .collect()
}

/// Which columns a leaderboard shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Columns {
    /// Rank, bot, games, wins, win %, mean ± 95%, total, forfeits (zero-sum games).
    ZeroSum,
    /// Score first as the seeds print it, then wins, draws, losses, forfeits.
    Points,
}

/// The leaderboard as a table.
pub fn leaderboard(s: &Standings, columns: Columns) -> String {
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic);
    let right = |x: String| Cell::new(x).set_alignment(CellAlignment::Right);
    // Penalties and lenient acceptances get a column only in runs that had some.
    type Count = fn(&Row) -> u64;
    let mut extra: Vec<(&str, Count)> = Vec::new();
    if s.entrants.iter().any(|e| e.penalties > 0) {
        extra.push(("penalties", |r| r.penalties));
    }
    if s.entrants.iter().any(|e| e.warnings > 0) {
        extra.push(("warnings", |r| r.warnings));
    }
    match columns {
        Columns::ZeroSum => {
            let mut header = vec![
                "rank",
                "bot",
                "games",
                "wins",
                "win %",
                "mean score ± 95%",
                "total score",
                "forfeits",
            ];
            header.extend(extra.iter().map(|(h, _)| *h));
            t.set_header(header);
            for r in rows(s) {
                let mut row = vec![
                    right(r.rank.to_string()),
                    Cell::new(&r.name),
                    right(r.games.to_string()),
                    right(r.wins.to_string()),
                    right(format!("{:.1}", pct(r.wins, r.games))),
                    right(format!("{:+.4} ± {:.4}", r.mean, r.ci95)),
                    right(format!("{:+.1}", r.total)),
                    right(r.forfeits.to_string()),
                ];
                row.extend(extra.iter().map(|(_, f)| right(f(&r).to_string())));
                t.add_row(row);
            }
        }
        Columns::Points => {
            let mut header = vec![
                "rank", "score", "bot", "games", "wins", "draws", "losses", "forfeits",
            ];
            header.extend(extra.iter().map(|(h, _)| *h));
            header.push("points/game ± 95%");
            t.set_header(header);
            for r in rows(s) {
                let mut row = vec![
                    right(r.rank.to_string()),
                    right(format!("{:.1}", r.total)),
                    Cell::new(&r.name),
                    right(r.games.to_string()),
                    right(r.wins.to_string()),
                    right(r.draws.to_string()),
                    right(r.losses.to_string()),
                    right(r.forfeits.to_string()),
                ];
                row.extend(extra.iter().map(|(_, f)| right(f(&r).to_string())));
                row.push(right(format!("{:.3} ± {:.3}", r.mean, r.ci95)));
                t.add_row(row);
            }
        }
    }
    t.to_string()
}

fn pct(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        100.0 * a as f64 / b as f64
    }
}

/// One line about the run: games, time, rate, seed.
pub fn run_line(summary: &RunSummary, seed: u64, threads: usize) -> String {
    let secs = summary.elapsed.as_secs_f64().max(1e-9);
    let games = summary.standings.games;
    format!(
        "{} games in {:.2} s ({:.0} games/s, {:.0} decisions/s) on {} thread{}, seed {}{}",
        games,
        secs,
        games as f64 / secs,
        summary.standings.decisions as f64 / secs,
        threads,
        if threads == 1 { "" } else { "s" },
        seed,
        if summary.complete {
            ""
        } else {
            "  (stopped early: partial results)"
        }
    )
}

/// The JSON summary of a run.
#[derive(Serialize)]
pub struct Summary<'a, R: Serialize> {
    /// The game's name.
    pub game: &'a str,
    /// The rule options.
    pub rules: &'a R,
    /// Master seed.
    pub seed: u64,
    /// The schedule.
    pub schedule: &'a koth_arena::Schedule,
    /// The scoring.
    pub scoring: koth_arena::Scoring,
    /// Worker threads.
    pub threads: usize,
    /// Games played.
    pub games: u64,
    /// Whether every scheduled game was played.
    pub complete: bool,
    /// Wall time in seconds.
    pub elapsed_seconds: f64,
    /// Games per second.
    pub games_per_second: f64,
    /// Leaderboard, best first.
    pub standings: Vec<Row>,
    /// `head_to_head[a][b]`: a's mean score in games with b (null when they never met).
    pub head_to_head: Vec<Vec<Option<f64>>>,
    /// Entrant names, in the order of `head_to_head`.
    pub entrants: Vec<String>,
}

impl<'a, R: Serialize> Summary<'a, R> {
    /// The summary of a finished run.
    pub fn new(
        game: &'a str,
        rules: &'a R,
        seed: u64,
        schedule: &'a koth_arena::Schedule,
        scoring: koth_arena::Scoring,
        threads: usize,
        run: &RunSummary,
    ) -> Self {
        let s = &run.standings;
        let n = s.entrants.len();
        let head_to_head = (0..n)
            .map(|a| {
                (0..n)
                    .map(|b| (s.pair[a * n + b].n > 0).then(|| s.pair[a * n + b].mean()))
                    .collect()
            })
            .collect();
        Summary {
            game,
            rules,
            seed,
            schedule,
            scoring,
            threads,
            games: s.games,
            complete: run.complete,
            elapsed_seconds: run.elapsed.as_secs_f64(),
            games_per_second: s.games as f64 / run.elapsed.as_secs_f64().max(1e-9),
            standings: rows(s),
            head_to_head,
            entrants: s.entrants.iter().map(|e| e.name.clone()).collect(),
        }
    }

    /// Writes the summary as pretty JSON.
    pub fn write(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self)?;
        std::fs::write(path, text + "\n")
            .with_context(|| format!("cannot write the summary to {}", path.display()))
    }
}

/// 64 bits from the operating system's random source, for runs without `--seed`:
/// a bot cannot guess it, so it cannot rebuild the deals (docs/fair-play.md).
pub fn fresh_seed() -> u64 {
    let mut bytes = [0u8; 8];
    if let Err(e) = getrandom::fill(&mut bytes) {
        // No entropy source at all (a broken container): the clock is the best left,
        // and the user must know the seed is guessable.
        eprintln!("warning: the system's random source failed ({e}); the seed comes from the clock and can be guessed");
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        return koth_arena::rng::derive_seed(t.as_nanos() as u64, std::process::id() as u64);
    }
    u64::from_le_bytes(bytes)
}

/// Says, once, that a hand-picked seed is guessable by the external programs of a
/// hidden-information game (the default seed is not).
pub fn note_chosen_seed(seed: u64) {
    eprintln!(
        "note: seed {seed} was chosen by hand: a bot that guesses it can rebuild every deal. \
For a contest, leave the seed out (koth draws 64 random bits) and publish it after the run."
    );
}

/// Worker threads: `requested`, or every core.
pub fn threads(requested: Option<usize>) -> usize {
    requested.filter(|&t| t > 0).unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    })
}

/// A stop flag raised by Ctrl-C: the run finishes the games under way and reports.
pub fn ctrl_c_flag() -> &'static std::sync::atomic::AtomicBool {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::OnceLock;
    static FLAG: AtomicBool = AtomicBool::new(false);
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        let _ = ctrlc::set_handler(|| {
            if FLAG.swap(true, Ordering::SeqCst) {
                // A second Ctrl-C: leave at once.
                std::process::exit(130);
            }
            eprintln!("\nstopping: finishing the games under way (Ctrl-C again to quit now)");
        });
    });
    &FLAG
}

/// What every runner prints at the end: the leaderboard, the run line, where the
/// JSON summary and the run folder went.
pub struct Finish<'a, R: Serialize> {
    /// The game's name.
    pub game: &'a str,
    /// The rule options.
    pub rules: &'a R,
    /// The schedule.
    pub schedule: &'a koth_arena::Schedule,
    /// The scoring.
    pub scoring: koth_arena::Scoring,
    /// Master seed.
    pub seed: u64,
    /// Worker threads.
    pub threads: usize,
    /// `--summary-json`.
    pub summary_json: Option<&'a Path>,
    /// `--out`.
    pub out_dir: Option<&'a Path>,
}

impl<R: Serialize> Finish<'_, R> {
    /// Prints the standings of `run` and writes the JSON summary.
    pub fn print(&self, run: &RunSummary) -> Result<()> {
        let columns = if self.scoring == koth_arena::Scoring::ZeroSum {
            Columns::ZeroSum
        } else {
            Columns::Points
        };
        out!("{}", leaderboard(&run.standings, columns));
        out!("{}", run_line(run, self.seed, self.threads));
        if let Some(path) = self.summary_json {
            Summary::new(
                self.game,
                self.rules,
                self.seed,
                self.schedule,
                self.scoring,
                self.threads,
                run,
            )
            .write(path)?;
            out!("summary written to {}", path.display());
        }
        if let Some(d) = self.out_dir {
            let d = d.display();
            out!("run recorded in {d} (koth replay {d} --game K; koth report {d})");
        }
        Ok(())
    }
}

/// What isolation each external bot gets on this machine, and what it lacks: one line
/// per bot (`isolation:` then `  name: ...`), identical bots' lines grouped.
pub fn isolation_lines<'a>(
    bots: impl IntoIterator<Item = (&'a str, koth_process::Sandbox)>,
) -> String {
    let s = koth_process::sandbox_support();
    let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
    for (name, mode) in bots {
        let d = s.describe(mode);
        match groups.iter_mut().find(|g| g.0 == d) {
            Some(g) => g.1.push(name),
            None => groups.push((d, vec![name])),
        }
    }
    let mut out = String::from("isolation:");
    for (d, names) in groups {
        out.push_str(&format!("\n  {}: {d}", names.join(", ")));
    }
    out
}

/// `--sandbox auto|off|required`, for clap.
pub fn parse_sandbox(s: &str) -> Result<koth_process::Sandbox, String> {
    koth_protocol::config::parse_sandbox(s)
        .ok_or_else(|| format!("unknown sandbox mode {s:?}: use auto, off or required"))
}

/// Fails now, before any game, if the summary could not be written at the end.
pub fn check_summary_path(path: Option<&Path>) -> Result<()> {
    let Some(path) = path else { return Ok(()) };
    let existed = path.exists();
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| {
            format!(
                "cannot write the summary to {}\n  fix: choose a --summary-json path in a folder that exists and is writable",
                path.display()
            )
        })?;
    if !existed {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}
