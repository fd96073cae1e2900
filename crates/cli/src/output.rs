//! What every runner prints: the live progress bar, the leaderboard and the JSON
//! summary. Game-agnostic.

use anyhow::{Context, Result};
use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell, CellAlignment, ContentArrangement, Table};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use koth_arena::{GameRecord, Observer, Progress, RunSummary, Standings};
use serde::Serialize;
use std::path::Path;
use std::time::Duration;

/// Whether a progress bar is drawing on the terminal (then the bar, not the
/// Ctrl-C handler, says that the run is stopping, so the bar cannot overwrite it).
static BAR_DRAWING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// How many bots the live standings under the bar show.
const LIVE_ROWS: usize = 5;

/// A progress bar on stderr with games/s and ETA, and under it the live standings
/// of the best bots (mean ± 95%), refreshed four times a second; 80 columns wide.
pub struct Bar {
    bar: ProgressBar,
    last_msg: Duration,
}

impl Bar {
    /// A bar for `total` games; hidden when stderr is not a terminal or `quiet`.
    pub fn new(total: u64, quiet: bool) -> Bar {
        let target = ProgressDrawTarget::stderr_with_hz(8);
        let drawing = !quiet && !target.is_hidden();
        let bar = ProgressBar::with_draw_target(Some(total), target);
        if !drawing {
            bar.set_draw_target(ProgressDrawTarget::hidden());
        }
        BAR_DRAWING.store(drawing, std::sync::atomic::Ordering::Relaxed);
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner:.green} {elapsed_precise} {bar:24.cyan/blue} {pos}/{len} {rate} ETA {eta}{msg}",
            )
            .expect("valid template")
            .with_key("pos", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = w.write_str(&count(s.pos()));
            })
            .with_key("len", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = w.write_str(&count(s.len().unwrap_or(0)));
            })
            .with_key("rate", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{}/s", rate(s.per_sec()));
            })
            .progress_chars("█▉▊▋▌▍▎▏ "),
        );
        Bar {
            bar,
            last_msg: Duration::ZERO,
        }
    }

    /// Moves the bar to `done`.
    pub fn set_position(&self, done: u64) {
        self.bar.set_position(done);
    }

    /// Clears the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
        BAR_DRAWING.store(false, std::sync::atomic::Ordering::Relaxed);
    }
}

impl<C> Observer<C> for Bar {
    fn on_record(&mut self, _r: &GameRecord<C>) {}
    fn wants_records(&self) -> bool {
        false
    }
    fn on_progress(&mut self, p: &Progress<'_>) {
        self.bar.set_length(p.total);
        self.bar.set_position(p.done);
        if p.elapsed >= self.last_msg + Duration::from_millis(250) {
            self.last_msg = p.elapsed;
            let mut msg = live_standings(p.standings, LIVE_ROWS);
            if ctrl_c_flag_raised() {
                msg.push_str(
                    "\nstopping: finishing the games under way (Ctrl-C again to quit now)",
                );
            }
            self.bar.set_message(msg);
        }
    }
}

/// The best `top` bots so far, one line each (rank, name, games, mean ± 95%), for
/// the live view; fits 80 columns.
pub fn live_standings(s: &Standings, top: usize) -> String {
    let rows = rows(s);
    let d = decimals(&rows);
    let mut out = String::new();
    for r in rows.iter().take(top) {
        let name: String = if r.name.chars().count() > 22 {
            r.name.chars().take(21).chain(['…']).collect()
        } else {
            r.name.clone()
        };
        out.push_str(&format!(
            "\n {:>3} {:<22} {:>9} games {:>18} {:>5.1}% wins",
            r.rank,
            name,
            count(r.games),
            mean_text(r, d),
            100.0 * r.win_rate,
        ));
    }
    if rows.len() > top {
        out.push_str(&format!("\n      … and {} more", rows.len() - top));
    }
    out
}

fn ctrl_c_flag_raised() -> bool {
    STOP_FLAG.load(std::sync::atomic::Ordering::Relaxed)
}

/// `1234567` as `1,234,567`.
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A rate with three significant figures at most and a unit: `61.6k`, `27.1M`, `842`.
pub fn rate(x: f64) -> String {
    let (v, unit) = if x >= 1e9 {
        (x / 1e9, "G")
    } else if x >= 1e6 {
        (x / 1e6, "M")
    } else if x >= 1e4 {
        (x / 1e3, "k")
    } else {
        (x, "")
    };
    if unit.is_empty() {
        if x >= 100.0 {
            count(x.round() as u64)
        } else {
            format!("{x:.1}")
        }
    } else if v >= 100.0 {
        format!("{v:.0}{unit}")
    } else {
        format!("{v:.1}{unit}")
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
    /// Mean score per game: what the ranking is by.
    pub mean: f64,
    /// The larger distance from the mean to a bound of its 95% interval (the
    /// interval need not be centred on the mean: see `mean_low`, `mean_high`).
    pub ci95: f64,
    /// Lower bound of the 95% interval of the mean score.
    pub mean_low: f64,
    /// Upper bound of the 95% interval of the mean score.
    pub mean_high: f64,
    /// Wins alone per game.
    pub win_rate: f64,
    /// Lower bound of the Wilson 95% interval of the win rate.
    pub win_low: f64,
    /// Upper bound of the Wilson 95% interval of the win rate.
    pub win_high: f64,
    /// Total score.
    pub total: f64,
}

/// The leaderboard rows, best first (by mean score, [`Standings::ranking`]).
pub fn rows(s: &Standings) -> Vec<Row> {
    s.ranking()
        .into_iter()
        .enumerate()
        .map(|(i, e)| {
            let st = &s.entrants[e];
            let games = st.games();
            let mean = st.score.mean();
            let ci = s.interval(e);
            let win = koth_arena::stats::wilson(st.wins, games);
            Row {
                rank: i + 1,
                name: st.name.clone(),
                games,
                wins: st.wins,
                draws: st.draws,
                losses: st.losses,
                forfeits: st.forfeits,
                penalties: st.penalties,
                warnings: st.warnings,
                mean,
                ci95: ci.half_width(mean),
                mean_low: ci.low,
                mean_high: ci.high,
                win_rate: if games == 0 {
                    0.0
                } else {
                    st.wins as f64 / games as f64
                },
                win_low: win.low,
                win_high: win.high,
                total: st.score.sum(),
            }
        })
        .collect()
}

/// Decimals that give the narrowest interval of a table two significant digits
/// (between 2 and 4), so a long run shows `+0.2395 ± 0.0041` and a short one
/// `+0.54 ± 0.21`.
pub fn decimals(rows: &[Row]) -> usize {
    let h = rows
        .iter()
        .filter(|r| r.games > 0)
        .map(|r| r.mean_high - r.mean_low)
        .fold(f64::INFINITY, f64::min)
        / 2.0;
    if !h.is_finite() || h <= 0.0 {
        return 4;
    }
    (1.0 - h.log10().floor()).clamp(2.0, 4.0) as usize
}

/// `+0.2395 ± 0.0041`, or `+1.00 -0.14/+0.00` when the interval is lopsided (its
/// two sides differ by more than a quarter: at the edge of the score range), at
/// `d` decimals.
pub fn mean_text(r: &Row, d: usize) -> String {
    if r.games == 0 {
        return "-".into();
    }
    let below = r.mean - r.mean_low;
    let above = (r.mean_high - r.mean).max(0.0);
    if below.min(above) * 1.25 >= below.max(above) {
        format!("{:+.d$} ± {:.d$}", r.mean, below.max(above))
    } else {
        format!("{:+.d$} -{below:.d$}/+{above:.d$}", r.mean)
    }
}

/// Which columns a leaderboard shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Columns {
    /// Rank, bot, games, wins, win %, mean ± 95%, total (zero-sum games).
    ZeroSum,
    /// Score first as the seeds print it, then wins, draws, losses.
    Points,
}

/// The leaderboard as a table, ranked by mean score. Forfeits, penalties and
/// warnings get a column only in runs that had some, so a plain run fits 80
/// columns.
pub fn leaderboard(s: &Standings, columns: Columns) -> String {
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled);
    let right = |x: String| Cell::new(x).set_alignment(CellAlignment::Right);
    type Count = fn(&Row) -> u64;
    let mut extra: Vec<(&str, Count)> = Vec::new();
    if s.entrants.iter().any(|e| e.forfeits > 0) {
        extra.push(("forfeits", |r| r.forfeits));
    }
    if s.entrants.iter().any(|e| e.penalties > 0) {
        extra.push(("penalties", |r| r.penalties));
    }
    if s.entrants.iter().any(|e| e.warnings > 0) {
        extra.push(("warnings", |r| r.warnings));
    }
    let rows = rows(s);
    let d = decimals(&rows);
    match columns {
        Columns::ZeroSum => {
            let mut header = vec!["#", "bot", "games", "wins", "win %", "mean ± 95%", "total"];
            header.extend(extra.iter().map(|(h, _)| *h));
            t.set_header(header);
            for r in &rows {
                let mut row = vec![
                    right(r.rank.to_string()),
                    Cell::new(&r.name),
                    right(r.games.to_string()),
                    right(r.wins.to_string()),
                    right(format!("{:.1}", 100.0 * r.win_rate)),
                    right(mean_text(r, d)),
                    right(format!("{:+.1}", r.total)),
                ];
                row.extend(extra.iter().map(|(_, f)| right(f(r).to_string())));
                t.add_row(row);
            }
        }
        Columns::Points => {
            let mut header = vec!["#", "score", "bot", "games", "wins", "draws", "losses"];
            header.extend(extra.iter().map(|(h, _)| *h));
            header.push("points/game ± 95%");
            t.set_header(header);
            for r in &rows {
                let mut row = vec![
                    right(r.rank.to_string()),
                    right(format!("{:.1}", r.total)),
                    Cell::new(&r.name),
                    right(r.games.to_string()),
                    right(r.wins.to_string()),
                    right(r.draws.to_string()),
                    right(r.losses.to_string()),
                ];
                row.extend(extra.iter().map(|(_, f)| right(f(r).to_string())));
                let mut text = mean_text(r, d);
                if let Some(t) = text.strip_prefix('+') {
                    text = t.to_string();
                }
                row.push(right(text));
                t.add_row(row);
            }
        }
    }
    t.to_string()
}

/// One line about the run: games, time, rate, seed.
pub fn run_line(summary: &RunSummary, seed: u64, threads: usize) -> String {
    let secs = summary.elapsed.as_secs_f64().max(1e-9);
    let games = summary.standings.games;
    format!(
        "{} games in {:.2} s ({} games/s, {} decisions/s) on {} thread{}, seed {}{}",
        count(games),
        secs,
        rate(games as f64 / secs),
        rate(summary.standings.decisions as f64 / secs),
        threads,
        if threads == 1 { "" } else { "s" },
        seed,
        if summary.complete {
            ""
        } else {
            "\nstopped early: partial results"
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
    /// Duplicate play: intervals are taken over deals.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub duplicate: bool,
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
            duplicate: s.deals.is_some(),
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

static STOP_FLAG: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// A stop flag raised by Ctrl-C: the run finishes the games under way and reports.
pub fn ctrl_c_flag() -> &'static std::sync::atomic::AtomicBool {
    use std::sync::atomic::Ordering;
    use std::sync::OnceLock;
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        let _ = ctrlc::set_handler(|| {
            if STOP_FLAG.swap(true, Ordering::SeqCst) {
                // A second Ctrl-C: leave at once.
                std::process::exit(130);
            }
            // A drawing bar shows it itself; printed here it would be drawn over.
            if !BAR_DRAWING.load(Ordering::Relaxed) {
                eprintln!("\nstopping: finishing the games under way (Ctrl-C again to quit now)");
            }
        });
    });
    &STOP_FLAG
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

/// `--schedule` of the Coup runners.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ScheduleKind {
    /// Rounds in which every bot plays the same number of games, once in every seat
    /// (games rounded up to whole rounds).
    #[default]
    Balanced,
    /// Each game seats a random draw of bots in random order (seed 003's loop mode).
    Random,
}

/// The schedule of `games` games at tables of `table` among `entrants` bots:
/// balanced schedules play whole rounds (`entrants` games; with duplicate play,
/// `entrants` deals of `table` games).
pub fn table_schedule(
    kind: ScheduleKind,
    games: u64,
    table: usize,
    entrants: usize,
    duplicate: bool,
) -> koth_arena::Schedule {
    let k = if duplicate { table.max(1) as u64 } else { 1 };
    match kind {
        ScheduleKind::Balanced => {
            let n = entrants.max(1) as u64;
            // Deals are the schedule's games under duplicate play.
            let deals = games.div_ceil(k).div_ceil(n) * n;
            koth_arena::Schedule::Balanced {
                games: deals * k,
                table,
            }
        }
        ScheduleKind::Random => koth_arena::Schedule::RandomTables { games, table },
    }
}

/// A missing FILE argument that looks like a misspelt subcommand (`koth samurai
/// bot`): the error says which command was meant.
pub fn check_not_a_typo(
    file: &std::path::Path,
    command: &str,
    subcommands: &[&str],
) -> anyhow::Result<()> {
    let word = file.to_string_lossy();
    if file.exists() || word.contains(['/', '.']) {
        return Ok(());
    }
    let near = subcommands
        .iter()
        .filter(|s| strsim::levenshtein(s, &word) <= 2 || s.starts_with(word.as_ref()))
        .min_by_key(|s| strsim::levenshtein(s, &word));
    match near {
        Some(s) => anyhow::bail!(
            "{word}: no such file, and not a subcommand\n  fix: did you mean `{command} {s}`?"
        ),
        None => Ok(()),
    }
}

/// Says on stderr that a command has a new name (the old one works for this release).
pub fn old_name(old: &str, new: &str) {
    eprintln!("note: `{old}` is now `{new}`; the old name works until the next release");
}

#[cfg(test)]
mod tests {
    use super::*;
    use koth_arena::{Ending, Outcome, SeatSet};

    fn standings(names: &[&str], games: u64) -> Standings {
        let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        let mut s = Standings::new(&names);
        for i in 0..games {
            let n = names.len();
            let w = (i as usize * 7 + i as usize / 3) % n;
            let seats = (0..n).collect();
            let scores = (0..n)
                .map(|x| if x == w { 1.0 } else { -1.0 / (n as f64 - 1.0) })
                .collect();
            s.add(&GameRecord::<u8> {
                index: i,
                seed: 0,
                seats,
                outcome: Outcome {
                    winners: SeatSet::single(w),
                    ending: Ending::Decided,
                    turns: 9,
                },
                scores,
                decisions: 40,
                forfeits: vec![],
                notices: vec![],
                places: Default::default(),
                choices: None,
            });
        }
        s
    }

    #[test]
    fn numbers_read_at_a_glance() {
        assert_eq!(count(0), "0");
        assert_eq!(count(999), "999");
        assert_eq!(count(1000), "1,000");
        assert_eq!(count(1234567), "1,234,567");
        assert_eq!(rate(61626.4792), "61.6k");
        assert_eq!(rate(144962.0), "145k");
        assert_eq!(rate(27137227.0), "27.1M");
        assert_eq!(rate(842.4), "842");
        assert_eq!(rate(0.7), "0.7");
    }

    #[test]
    fn the_live_view_and_the_table_fit_80_columns() {
        let long = "a-bot-with-a-very-long-name-indeed-more-than-24";
        let s = standings(
            &[
                "economist",
                "counter",
                long,
                "honest",
                "skeptic",
                "random",
                "x",
            ],
            50_000,
        );
        let live = live_standings(&s, LIVE_ROWS);
        let lines: Vec<&str> = live.lines().filter(|l| !l.is_empty()).collect();
        assert_eq!(lines.len(), LIVE_ROWS + 1, "{live}");
        for l in &lines {
            assert!(
                l.chars().count() <= 80,
                "{} columns: {l}",
                l.chars().count()
            );
        }
        assert!(live.contains("… and 2 more"), "{live}");
        assert!(live.contains("50,000 games"), "{live}");
        let table = leaderboard(
            &standings(
                &[
                    "economist",
                    "counter",
                    "honest",
                    "skeptic",
                    "challenger",
                    "bluffer",
                    "static",
                    "random",
                ],
                100_000,
            ),
            Columns::ZeroSum,
        );
        for l in table.lines() {
            assert!(
                l.chars().count() <= 80,
                "{} columns: {l}",
                l.chars().count()
            );
        }
    }

    #[test]
    fn decimals_follow_the_narrowest_interval() {
        let wide = rows(&standings(&["a", "b"], 30));
        let narrow = rows(&standings(&["a", "b"], 100_000));
        assert_eq!(decimals(&wide), 2);
        assert_eq!(decimals(&narrow), 4);
        // A lopsided interval says so; a symmetric one is ± h.
        let mut r = narrow[0].clone();
        r.mean_low = r.mean - 0.01;
        r.mean_high = r.mean + 0.0101;
        assert!(
            mean_text(&r, 4).contains(" ± 0.0101"),
            "{}",
            mean_text(&r, 4)
        );
        r.mean_high = r.mean;
        assert!(
            mean_text(&r, 4).contains(" -0.0100/+0.0000"),
            "{}",
            mean_text(&r, 4)
        );
    }
}
