//! What koth shows on a terminal, for every game and every command: the live
//! progress bar and standings, leaderboard tables, numbers at a glance, colours,
//! a bot's faults and stderr lines, the forfeits of a run, the isolation line,
//! Ctrl-C, and a person's typed answers. Names no game and no command.

use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell, CellAlignment, ContentArrangement, Table};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use koth_arena::{GameRecord, Observer, Progress, RunSummary, Standings};
use owo_colors::{OwoColorize, Style};
use serde::Serialize;
use std::collections::BTreeMap;
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
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
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
    /// Its games that ended at the turn cap (also counted as the rules score them).
    pub turn_capped: u64,
    /// Strength: the mean score it would get against opponents drawn evenly
    /// from the field, whomever it met ([`Standings::strength`]): what the
    /// ranking is by. The mean score when every bot met the same field.
    pub strength: f64,
    /// Mean score per game, over the games it played.
    pub mean: f64,
    /// The larger distance from the strength to a bound of its 95% interval
    /// (the interval need not be centred: see `low`, `high`).
    pub ci95: f64,
    /// Lower bound of the 95% interval of the strength.
    pub low: f64,
    /// Upper bound of the 95% interval of the strength.
    pub high: f64,
    /// Wins alone per game.
    pub win_rate: f64,
    /// Lower bound of the Wilson 95% interval of the win rate.
    pub win_low: f64,
    /// Upper bound of the Wilson 95% interval of the win rate.
    pub win_high: f64,
    /// Total score.
    pub total: f64,
}

/// The leaderboard rows, best first (by strength, [`Standings::ranking`]).
pub fn rows(s: &Standings) -> Vec<Row> {
    s.ranking()
        .into_iter()
        .enumerate()
        .map(|(i, e)| {
            let st = &s.entrants[e];
            let games = st.games();
            let strength = s.strength(e);
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
                turn_capped: st.turn_capped,
                strength,
                mean: st.score.mean(),
                ci95: ci.half_width(strength),
                low: ci.low,
                high: ci.high,
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
        .map(|r| r.high - r.low)
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
    let below = r.strength - r.low;
    let above = (r.high - r.strength).max(0.0);
    if below.min(above) * 1.25 >= below.max(above) {
        format!("{:+.d$} ± {:.d$}", r.strength, below.max(above))
    } else {
        format!("{:+.d$} -{below:.d$}/+{above:.d$}", r.strength)
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
    // The means get a column of their own only where they read differently
    // from the strengths: where the bots met different fields.
    let apart = rows
        .iter()
        .any(|r| r.games > 0 && format!("{:.d$}", r.mean) != format!("{:.d$}", r.strength));
    if apart {
        extra.insert(0, ("mean", |_| 0));
    }
    let cell = |r: &Row, h: &str, f: Count| {
        if h == "mean" {
            right(format!("{:+.d$}", r.mean))
        } else {
            right(f(r).to_string())
        }
    };
    let (score, points) = if apart {
        ("strength ± 95%", "strength ± 95%")
    } else {
        ("mean ± 95%", "points/game ± 95%")
    };
    match columns {
        Columns::ZeroSum => {
            let mut header = vec!["#", "bot", "games", "wins", "win %", score, "total"];
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
                row.extend(extra.iter().map(|&(h, f)| cell(r, h, f)));
                t.add_row(row);
            }
        }
        Columns::Points => {
            let mut header = vec!["#", "score", "bot", "games", "wins", "draws", "losses"];
            header.extend(extra.iter().map(|(h, _)| *h));
            header.push(points);
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
                row.extend(extra.iter().map(|&(h, f)| cell(r, h, f)));
                let mut text = mean_text(r, d);
                if let Some(t) = text.strip_prefix('+') {
                    text = t.to_string();
                }
                row.push(right(text));
                t.add_row(row);
            }
        }
    }
    let mut text = t.to_string();
    if apart {
        text.push_str(
            "\nstrength: the mean score against opponents drawn evenly from the field, \
             whomever each bot met (the bots met different fields; mean: over its own games)",
        );
    }
    text
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

static STOP_FLAG: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether Ctrl-C (or SIGTERM, SIGHUP) stopped the run: it then exits with 130.
pub static SIGNALLED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The command line as typed, quoted for a shell, with `--resume` added: how to
/// continue an interrupted run.
pub fn resume_command() -> String {
    let mut words: Vec<String> = std::env::args()
        .map(|a| koth_process::shell_word(&a))
        .collect();
    if !words.iter().any(|w| w == "--resume") {
        words.push("--resume".into());
    }
    words.join(" ")
}

/// The exit status of a command that finished its work but found what it stops
/// for (`--stop-on-forfeit` at a forfeit): 0 until something sets it.
pub static EXIT_STATUS: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

/// A stop flag raised by Ctrl-C: the run finishes the games under way and reports.
pub fn ctrl_c_flag() -> &'static std::sync::atomic::AtomicBool {
    use std::sync::atomic::Ordering;
    use std::sync::OnceLock;
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        let _ = ctrlc::set_handler(|| {
            SIGNALLED.store(true, Ordering::SeqCst);
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

/// What isolation each external bot gets on this machine, and exactly what it sees:
/// one line per bot (`isolation:` then `  name: ...`), identical bots' lines grouped.
pub fn isolation_lines<'a>(
    bots: impl IntoIterator<Item = (&'a str, koth_process::Command)>,
) -> String {
    let s = koth_process::sandbox_support();
    let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
    for (name, cmd) in bots {
        let d = s.describe_command(&cmd);
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

/// Says on stderr that a command has a new name (the old one works for this release).
pub fn old_name(old: &str, new: &str) {
    eprintln!("note: `{old}` is now `{new}`; the old name works until the next release");
}

/// A forfeit in `play`: the reason, then the program's last stderr lines, dimmed,
/// from after `shown` (the last line already shown live) when it is among them.
pub fn show_fault(name: &str, f: &koth_arena::Fault, shown: Option<&str>) {
    out!(
        "{}",
        paint(
            &match f.hook {
                // Made after its last answer: nothing is left to forfeit.
                Some(koth_arena::Hook::End) => {
                    format!("{name}, told the game ended: {}", f.reason)
                }
                _ => format!("{name} forfeits: {}", f.reason),
            },
            Style::new().red()
        )
    );
    if let Some(tail) = f.stderr_tail.as_deref().filter(|t| !t.trim().is_empty()) {
        let lines: Vec<&str> = tail.lines().collect();
        let fresh = shown
            .and_then(|l| lines.iter().rposition(|x| *x == l))
            .map_or(0, |i| i + 1);
        for l in &lines[fresh.max(lines.len().saturating_sub(10))..] {
            show_stderr_line(name, l);
        }
    }
}

/// One line a bot wrote to stderr, dimmed, under the narration.
pub fn show_stderr_line(name: &str, line: &str) {
    out!(
        "{}",
        paint(&format!("  {name} stderr | {line}"), Style::new().dimmed())
    );
}

/// Shows what `agent` logged since last time; keeps its last line in `last`.
pub fn show_log(name: &str, text: &str, last: &mut Option<String>) {
    for l in text.lines() {
        show_stderr_line(name, l);
        *last = Some(l.to_string());
    }
}

/// Prints the lines folded so far (a narration's passes), before anything else is
/// shown.
pub fn flush_quiet(quiet: &mut Vec<String>) {
    if !quiet.is_empty() {
        out!("  {}", paint(&quiet.join("; "), Style::new().dimmed()));
        quiet.clear();
    }
}

/// Colours `text` when stdout is a terminal and NO_COLOR is unset.
pub fn paint(text: &str, style: Style) -> String {
    use std::io::IsTerminal;
    use std::sync::OnceLock;
    static ON: OnceLock<bool> = OnceLock::new();
    if *ON.get_or_init(|| std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none())
    {
        text.style(style).to_string()
    } else {
        text.to_string()
    }
}

/// What a line of narration tells, which sets its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mood {
    /// A new turn (bold, underlined, after a blank line).
    Heading,
    /// A claim of a card or an action.
    Claim,
    /// A challenge.
    Challenge,
    /// A block.
    Block,
    /// Something gained or shown.
    Good,
    /// Something lost.
    Bad,
    /// A player out of the game.
    Out,
    /// A line of little weight (dimmed).
    Quiet,
}

/// The style of a line of narration.
pub fn mood_style(mood: Mood) -> Style {
    match mood {
        Mood::Heading => Style::new().bold().underline(),
        Mood::Claim => Style::new().cyan(),
        Mood::Challenge => Style::new().yellow().bold(),
        Mood::Block => Style::new().magenta(),
        Mood::Good => Style::new().green(),
        Mood::Bad => Style::new().red(),
        Mood::Out => Style::new().red().bold(),
        Mood::Quiet => Style::new().dimmed(),
    }
}

/// How many games ended at the turn cap, and whose, when any did: such a game is
/// scored as the rules score an unfinished one, which the table alone hides.
pub fn turn_cap_line(s: &koth_arena::Standings) -> Option<String> {
    if s.turn_capped == 0 {
        return None;
    }
    let mut most: Vec<&koth_arena::EntrantStats> =
        s.entrants.iter().filter(|e| e.turn_capped > 0).collect();
    most.sort_by(|a, b| b.turn_capped.cmp(&a.turn_capped).then(a.name.cmp(&b.name)));
    let names: Vec<String> = most
        .iter()
        .take(4)
        .map(|e| format!("{} {}", e.name, count(e.turn_capped)))
        .collect();
    let more = if most.len() > 4 { ", …" } else { "" };
    Some(format!(
        "turn cap: {} of {} games ({:.1}%) ended at the turn cap, not by play (by bot: {}{more})",
        count(s.turn_capped),
        count(s.games),
        100.0 * s.turn_capped as f64 / s.games.max(1) as f64,
        names.join(", ")
    ))
}

/// The games played again rather than charged to a bot, in a line (`None`
/// when there were none).
pub fn replays_line(r: &koth_arena::Replays) -> Option<String> {
    let mut parts = Vec::new();
    if r.lost > 0 {
        parts.push(format!(
            "{} lost with a process that failed in another game (that game is charged; these are played again, or left for a resume when the run stops)",
            count(r.lost)
        ));
    }
    if r.machine > 0 {
        parts.push(format!(
            "{} put off while the machine could not start a process (last: {})",
            count(r.machine),
            r.last_machine.as_deref().unwrap_or("?")
        ));
    }
    (!parts.is_empty()).then(|| format!("charged to no bot: {}", parts.join("; ")))
}

/// Forfeits per entrant: reason → count, and the first stderr tail.
#[derive(Default)]
pub struct Forfeits {
    /// Entrant → (reason → count, the first stderr tail).
    pub by_entrant: BTreeMap<usize, (BTreeMap<String, u64>, Option<String>)>,
}

/// The forfeits of a run, by bot: reasons with counts, and the first one's stderr.
pub fn print_forfeits(forfeits: &Forfeits, standings: &koth_arena::Standings) {
    if forfeits.by_entrant.is_empty() {
        out!("forfeits: none");
    } else {
        out!("forfeits:");
        for (e, (reasons, tail)) in &forfeits.by_entrant {
            let name = &standings.entrants[*e].name;
            let total: u64 = reasons.values().sum();
            out!(
                "  {name}: {total} game{}",
                if total == 1 { "" } else { "s" }
            );
            let mut rs: Vec<(&String, &u64)> = reasons.iter().collect();
            rs.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            for (reason, n) in rs.iter().take(8) {
                out!("    {n:>6} × {reason}");
            }
            if rs.len() > 8 {
                out!("           … and {} other reasons", rs.len() - 8);
            }
            if let Some(tail) = tail {
                out!("    stderr (last lines, first forfeit):");
                let lines: Vec<&str> = tail.lines().collect();
                for l in &lines[lines.len().saturating_sub(10)..] {
                    out!("      | {l}");
                }
            }
        }
    }
}

/// Lower case, single spaces, without the filler words a label may carry.
fn normal(s: &str) -> String {
    s.to_lowercase()
        .split_whitespace()
        .filter(|w| !matches!(*w, "with" | "from" | "against" | "seat"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The choice a typed answer names: its number (from 1), its label, or the start
/// of exactly one label ("inc", "steal early", "block duke").
pub fn parse_answer(input: &str, labels: &[String]) -> Result<usize, String> {
    let input = input.trim();
    let t = normal(input);
    if t.is_empty() {
        return Err("type a number or a choice".into());
    }
    if let Ok(n) = t.parse::<usize>() {
        return if (1..=labels.len()).contains(&n) {
            Ok(n - 1)
        } else {
            Err(format!("choose 1 to {}", labels.len()))
        };
    }
    let norm: Vec<String> = labels.iter().map(|l| normal(l)).collect();
    if let Some(i) = norm.iter().position(|l| *l == t) {
        return Ok(i);
    }
    let starts: Vec<usize> = (0..norm.len())
        .filter(|&i| norm[i].starts_with(&t))
        .collect();
    match starts[..] {
        [i] => Ok(i),
        [] => Err(format!("{input:?} is not one of the choices")),
        _ => Err(format!(
            "{input:?} could be {}",
            starts
                .iter()
                .map(|&i| labels[i].as_str())
                .collect::<Vec<_>>()
                .join(" or ")
        )),
    }
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
                log: None,
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
        r.low = r.strength - 0.01;
        r.high = r.strength + 0.0101;
        assert!(
            mean_text(&r, 4).contains(" ± 0.0101"),
            "{}",
            mean_text(&r, 4)
        );
        r.high = r.strength;
        assert!(
            mean_text(&r, 4).contains(" -0.0100/+0.0000"),
            "{}",
            mean_text(&r, 4)
        );
    }

    #[test]
    fn answers_by_number_label_or_unique_start() {
        let labels: Vec<String> = [
            "Income",
            "Foreign Aid",
            "Steal from early",
            "Steal from eve",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(parse_answer("1\n", &labels), Ok(0));
        assert_eq!(parse_answer(" foreign  AID ", &labels), Ok(1));
        assert_eq!(parse_answer("inc", &labels), Ok(0));
        assert_eq!(parse_answer("steal early", &labels), Ok(2));
        assert!(parse_answer("steal e", &labels).unwrap_err().contains("or"));
        assert!(parse_answer("5", &labels).unwrap_err().contains("1 to 4"));
        assert_eq!(
            parse_answer("tax\n", &labels).unwrap_err(),
            "\"tax\" is not one of the choices"
        );
        assert!(parse_answer("", &labels).is_err());
    }
}
