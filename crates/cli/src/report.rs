//! `koth report DIR`: one self-contained HTML page about a run folder.
//!
//! The page (`DIR/report.html`) holds the leaderboard with 95% intervals, the
//! Weng-Lin ratings, the head-to-head heatmap, how the standings evolved over the
//! games, the forfeits with their reasons, and a game browser with step-by-step
//! replays. Everything is computed here in Rust from `run.json` and
//! `games.jsonl`; the page's script only draws the JSON embedded in it. No
//! network: the CSS and the script are inline, and there are no fonts or images
//! to fetch.
//!
//! Bot names and stderr come from users: the data goes into a
//! `<script type="application/json">` with every `<`, `>` and `&` escaped, and
//! the script only ever puts text into the page with `textContent`.

use anyhow::{Context, Result};
use koth_arena::records::{self, RunInfo};
use koth_arena::{ratings, Game, GameRecord};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The report's file name inside the run folder.
pub const REPORT_FILE: &str = "report.html";
/// Games embedded with a replay from the start of the run.
pub const REPLAYS_FIRST: usize = 300;
/// Forfeited games embedded with a replay beyond the first ones.
pub const REPLAYS_FORFEITED: usize = 200;
/// The first games stop being embedded once their replays reach this many bytes
/// (but at least [`REPLAYS_MIN`] are); forfeited games may add half as much again.
pub const REPLAY_BYTES: usize = 2_000_000;
/// Games always embedded with a replay (when there are that many).
pub const REPLAYS_MIN: usize = 50;
/// Games listed in the game browser (plus every forfeited one, up to
/// [`REPLAYS_FORFEITED`]).
pub const LIST_MAX: usize = 5000;
/// Forfeits listed in the table.
pub const FORFEITS_MAX: usize = 1000;
/// Points of the standings-over-time chart.
pub const CURVE_POINTS: usize = 100;
/// The file in a gauntlet's run folder that keeps its test and verdict
/// (`koth gauntlet --out` writes it; the report shows it).
pub const GAUNTLET_FILE: &str = "gauntlet.json";
/// Characters of a stderr tail kept (its end).
const STDERR_MAX: usize = 4000;

const TEMPLATE: &str = include_str!("report/page.html");
const CSS: &str = include_str!("report/report.css");
const JS: &str = include_str!("report/report.js");

/// `koth report DIR`: writes `DIR/report.html` from the page's `data` and says where.
pub fn run(dir: &Path, data: &Value) -> Result<()> {
    let path = write(dir, data)?;
    let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    let _ = writeln!(
        std::io::stdout(),
        "report written to {} ({:.1} MB); open it in a browser (add #game=K to open game K)",
        path.display(),
        size as f64 / 1e6
    );
    Ok(())
}

/// Writes `DIR/report.html` and returns its path.
pub fn write(dir: &Path, data: &Value) -> Result<PathBuf> {
    let html = assemble(data);
    let path = dir.join(REPORT_FILE);
    std::fs::write(&path, html)
        .with_context(|| format!("cannot write the report to {}", path.display()))?;
    Ok(path)
}

/// The run in `dir`, for its page: what `run.json` says, with the error naming
/// the folder.
pub fn run_info(dir: &Path) -> Result<RunInfo> {
    // (The error already names the file: no context chain, to say it once.)
    records::read_info(dir)
        .map_err(|e| anyhow::anyhow!("{e}: {} is not a koth run folder", dir.display()))
}

/// One step of a replay on the page: `[table, line, line...]`.
pub type Step = Vec<Value>;

/// The page: the template with the style, the script and the data put in
/// (the game viewer's, shared with the hill's page, before the report's own).
pub fn assemble(data: &Value) -> String {
    let json = embed_json(data);
    let css = format!("{}\n{CSS}", koth_hill::web::VIEWER_CSS);
    let js = format!("{}\n{JS}", koth_hill::web::VIEWER_JS);
    let mut out = String::with_capacity(TEMPLATE.len() + css.len() + js.len() + json.len());
    // Split once on each placeholder: nothing inserted is scanned again.
    let mut rest = TEMPLATE;
    for (mark, text) in [
        ("/*CSS*/", css.as_str()),
        ("/*DATA*/", &json),
        ("/*JS*/", &js),
    ] {
        let (head, tail) = rest.split_once(mark).expect("the template has every mark");
        out.push_str(head);
        out.push_str(text);
        rest = tail;
    }
    out.push_str(rest);
    out
}

/// JSON safe inside a `<script>` element: `<`, `>` and `&` (only ever inside
/// strings) are written as `\u003c`, `\u003e`, `\u0026`, so no `</script>`,
/// `<!--` or entity can appear; U+2028/U+2029 are escaped too.
pub fn embed_json(data: &Value) -> String {
    let text = serde_json::to_string(data).expect("values serialize");
    let mut out = String::with_capacity(text.len() + text.len() / 50);
    for c in text.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// Rounds for the page (4 decimals is plenty for any score).
fn r4(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

fn tail(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        s.to_string()
    } else {
        let cut: String = s.chars().skip(n - max).collect();
        format!("…{cut}")
    }
}

/// Which games the report embeds a replay of (`--replays`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Replays {
    /// The first games up to [`REPLAYS_FIRST`] or [`REPLAY_BYTES`], then up to
    /// [`REPLAYS_FORFEITED`] later games with a forfeit.
    Auto,
    /// The first N games.
    First(u64),
    /// Every game (a big page for a big run).
    All,
    /// Every game with a forfeit.
    Forfeits,
}

impl std::str::FromStr for Replays {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(Replays::Auto),
            "all" => Ok(Replays::All),
            "forfeits" => Ok(Replays::Forfeits),
            n => n.parse().map(Replays::First).map_err(|_| {
                format!("--replays {n:?}: give a number of games, all, forfeits or auto")
            }),
        }
    }
}

/// Complete records in `dir/games.jsonl`: its complete lines.
fn count_records(dir: &Path) -> Result<u64> {
    use std::io::Read as _;
    let path = dir.join(records::GAMES_FILE);
    let mut f = match std::fs::File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let mut buf = vec![0u8; 1 << 20];
    let mut lines = 0u64;
    loop {
        let k = f
            .read(&mut buf)
            .with_context(|| format!("cannot read {}", path.display()))?;
        if k == 0 {
            return Ok(lines);
        }
        lines += buf[..k].iter().filter(|&&b| b == b'\n').count() as u64;
    }
}

/// The page data of a run, reading its records once, one at a time: memory grows
/// with what the page embeds (replays, listed games), not with the run.
/// `public` leaves out what the bots wrote to stderr (forfeits' tails and the
/// lines logged at their steps).
pub fn build<G: Game>(
    info: &RunInfo,
    dir: &Path,
    want: Replays,
    public: bool,
    replay_one: impl Fn(&GameRecord<G::Choice>, &[String]) -> Result<Vec<Step>, String>,
) -> Result<Value> {
    let names = &info.entrants;
    let n = names.len();
    let total = count_records(dir)? as usize;
    let full = info.records == koth_arena::RecordLevel::Full;

    let mut standings = info.empty_standings();
    let mut rater = ratings::Rater::new(n);
    // Standings over time: the cumulative mean score of each entrant.
    let points: BTreeSet<usize> = (1..=CURVE_POINTS)
        .map(|j| (total * j).div_ceil(CURVE_POINTS))
        .filter(|&k| k > 0)
        .collect();
    let mut cum = vec![(0.0f64, 0u64); n];
    let mut xs = Vec::with_capacity(points.len());
    let mut ys: Vec<Vec<Value>> = vec![Vec::with_capacity(points.len()); n];
    let mut forfeits: Vec<Value> = Vec::new();
    let mut all_forfeits = 0usize;
    let mut replays: BTreeMap<String, Value> = BTreeMap::new();
    let mut list: Vec<Value> = Vec::new();
    let (mut bytes, mut failed, mut first, mut later, mut listed_later) =
        (0usize, 0usize, 0usize, 0usize, 0usize);
    let mut first_done = false;
    let mut k = 0usize;
    let mut seen = 0usize;
    // What the programs logged, shown in the replays at their steps.
    let mut logged = if public {
        Default::default()
    } else {
        records::read_logs(dir)
    };
    records::for_each_record::<G::Choice>(dir, info, |mut r| {
        seen += 1;
        r.log = logged.remove(&r.index).map(Box::new);
        if public {
            for f in &mut r.forfeits {
                f.fault.stderr_tail = None;
            }
        }
        if r.seats.iter().any(|&e| e >= n) {
            return Err(format!(
                "game {} seats an entrant that run.json does not name",
                r.index
            ));
        }
        standings.add(&r);
        rater.add(&r);
        for (seat, &e) in r.seats.iter().enumerate() {
            cum[e].0 += r.scores.get(seat).copied().unwrap_or(0.0);
            cum[e].1 += 1;
        }
        if points.contains(&(k + 1)) {
            xs.push(k + 1);
            for (e, &(s, c)) in cum.iter().enumerate() {
                ys[e].push(if c > 0 {
                    json!(r4(s / c as f64))
                } else {
                    Value::Null
                });
            }
        }
        all_forfeits += r.forfeits.len();
        for f in &r.forfeits {
            if forfeits.len() < FORFEITS_MAX {
                forfeits.push(json!({
                    "game": r.index,
                    "entrant": f.entrant,
                    "seat": f.seat,
                    "at": f.at,
                    "reason": f.fault.reason,
                    "stderr": f.fault.stderr_tail.as_deref().map(|s| tail(s, STDERR_MAX)),
                }));
            }
        }
        let forfeited = !r.forfeits.is_empty();
        // Whether this game's replay is embedded.
        let replay = full
            && match want {
                Replays::All => true,
                Replays::Forfeits => forfeited,
                Replays::First(m) => (k as u64) < m,
                Replays::Auto => {
                    if !first_done && k < REPLAYS_FIRST && (k < REPLAYS_MIN || bytes < REPLAY_BYTES)
                    {
                        first += 1;
                        true
                    } else {
                        first_done = true;
                        let more = forfeited
                            && later < REPLAYS_FORFEITED
                            && bytes < REPLAY_BYTES + REPLAY_BYTES / 2;
                        later += more as usize;
                        more
                    }
                }
            };
        if replay {
            let seat_names: Vec<String> = r.seats.iter().map(|&e| names[e].clone()).collect();
            let mut v = match replay_one(&r, &seat_names) {
                Ok(steps) => json!({ "steps": steps }),
                Err(e) => {
                    failed += 1;
                    json!({ "error": e })
                }
            };
            if forfeited {
                v["forfeits"] = r
                    .forfeits
                    .iter()
                    .map(|f| {
                        json!({
                            "seat": f.seat,
                            "at": f.at,
                            "reason": f.fault.reason,
                            "stderr": f.fault.stderr_tail.as_deref().map(|s| tail(s, STDERR_MAX)),
                        })
                    })
                    .collect();
            }
            bytes += serde_json::to_string(&v).map(|t| t.len()).unwrap_or(0);
            replays.insert(r.index.to_string(), v);
        }
        // Listed: the first games, every replayed one and later forfeits.
        let listed = k < LIST_MAX
            || replay
            || (forfeited && listed_later < REPLAYS_FORFEITED && {
                listed_later += 1;
                true
            });
        if listed {
            let mut row = json!({
                "i": r.index,
                "s": r.seats,
                "w": r.outcome.winners.0,
                "t": r.outcome.turns,
            });
            if forfeited {
                row["f"] = json!(r.forfeits.iter().map(|f| f.seat).collect::<Vec<_>>());
            }
            if replay {
                row["r"] = json!(1);
            }
            list.push(row);
        }
        k += 1;
        Ok(())
    })?;
    let total = seen;
    let replayed = replays.len();

    let leaderboard: Vec<Value> = standings
        .ranking()
        .into_iter()
        .enumerate()
        .map(|(i, e)| {
            let st = &standings.entrants[e];
            let games = st.games();
            let ci = standings.interval(e);
            let win = koth_arena::stats::wilson(st.wins, games);
            json!({
                "rank": i + 1,
                "entrant": e,
                "name": st.name,
                "games": games,
                "wins": st.wins,
                "draws": st.draws,
                "losses": st.losses,
                "forfeits": st.forfeits,
                "turn_capped": st.turn_capped,
                "strength": r4(standings.strength(e)),
                "mean": r4(st.score.mean()),
                "low": r4(ci.low),
                "high": r4(ci.high),
                "win_low": r4(win.low),
                "win_high": r4(win.high),
                "total": r4(st.score.sum()),
            })
        })
        .collect();

    // Ratings, best first.
    let rated = rater.ratings(names);
    let ratings: Vec<Value> = ratings::ranking(&rated)
        .into_iter()
        .enumerate()
        .map(|(i, e)| {
            let r = &rated[e];
            json!({
                "rank": i + 1,
                "entrant": e,
                "name": r.name,
                "mu": r4(r.mu),
                "sigma": r4(r.sigma),
                "conservative": r4(r.conservative),
                "games": r.games,
            })
        })
        .collect();

    // Head to head.
    let h2h: Vec<Vec<Value>> = (0..n)
        .map(|a| {
            (0..n)
                .map(|b| {
                    let p = &standings.pair[a * n + b];
                    if a != b && p.n > 0 {
                        json!([r4(p.mean()), p.n])
                    } else {
                        Value::Null
                    }
                })
                .collect()
        })
        .collect();
    let (sum, count) = standings
        .entrants
        .iter()
        .fold((0.0, 0u64), |(s, c), e| (s + e.score.sum(), c + e.score.n));
    let neutral = if count > 0 { sum / count as f64 } else { 0.0 };

    // A public report (a hill's round) names no path of the server: its
    // folder as the hill holds it (`rounds/N`), not where the hill lives.
    let shown_dir = if public {
        let last: Vec<String> = dir
            .components()
            .rev()
            .take(2)
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        last.into_iter().rev().collect::<Vec<_>>().join("/")
    } else {
        dir.display().to_string()
    };
    let replay_cmd = format!(
        "koth replay {} --game ",
        koth_process::shell_word(&shown_dir)
    );
    let list_note = if list.len() < total {
        format!(
            "The list shows {} of the {} games: the first {}, every replayed one and up to {} \
             later games with a forfeit. Any game K replays in the terminal with `{replay_cmd}K`.",
            list.len(),
            total,
            total.min(LIST_MAX),
            REPLAYS_FORFEITED
        )
    } else {
        String::new()
    };
    let replay_note = if total == 0 {
        "The run has no games yet.".to_string()
    } else if !full {
        "This run kept results only (--records results): the games are listed but cannot be \
         replayed. Run with --records full (the default) to get step-by-step replays."
            .to_string()
    } else {
        let mut s =
            format!("Step-by-step replays are embedded for {replayed} of the {total} games");
        match want {
            Replays::Auto => {
                s.push_str(&format!(": the first {first}"));
                if later > 0 {
                    s.push_str(&format!(" and {later} later games with a forfeit"));
                }
                s.push_str(&format!(
                    ". To keep the page small, replays stop after {REPLAYS_FIRST} games or about {} MB \
                     (plus up to {REPLAYS_FORFEITED} later games with a forfeit); \
                     `koth report --replays N|all|forfeits` embeds others.",
                    REPLAY_BYTES / 1_000_000
                ));
            }
            Replays::First(m) => s.push_str(&format!(" (--replays {m}: the first {m}).")),
            Replays::All => s.push_str(" (--replays all)."),
            Replays::Forfeits => s.push_str(" (--replays forfeits: every game with a forfeit)."),
        }
        s.push_str(&format!(
            " Any other game K replays in the terminal with `{replay_cmd}K`."
        ));
        if failed > 0 {
            s.push_str(&format!(
                " {failed} of them did not replay (written by another version of koth?)."
            ));
        }
        s
    };

    // A gauntlet's test and verdict, as it kept them in its folder.
    let gauntlet: Value = std::fs::read(dir.join(GAUNTLET_FILE))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or(Value::Null);
    Ok(json!({
        "gauntlet": gauntlet,
        "game": info.game,
        "runner": info.runner,
        "seed": info.seed.to_string(),
        "version": info.version,
        "records": info.records,
        "scoring": info.scoring,
        "schedule": info.schedule,
        "rules": info.rules,
        "range": [info.range.0, info.range.1],
        "shard": info.shard,
        "games": total,
        "decisions": standings.decisions,
        "turn_capped": standings.turn_capped,
        "entrants": names,
        "leaderboard": leaderboard,
        "ratings": ratings,
        "h2h": h2h,
        "neutral": r4(neutral),
        "curve": { "x": xs, "y": ys },
        "forfeits": forfeits,
        "forfeits_total": all_forfeits,
        "list": list,
        "list_note": list_note,
        "replays": replays,
        "replay_note": replay_note,
        "replay_cmd": replay_cmd,
        "generator": format!("koth {}", env!("CARGO_PKG_VERSION")),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_json_cannot_close_the_script() {
        let v = json!({"name": "</script><script>alert(1)</script><!-- & \u{2028}"});
        let s = embed_json(&v);
        assert!(!s.contains('<') && !s.contains('>') && !s.contains('&'));
        assert!(!s.contains('\u{2028}'));
        let back: Value = serde_json::from_str(&s).unwrap();
        assert_eq!(back, v);
        let page = assemble(&v);
        assert_eq!(page.matches("</script>").count(), 2, "only the page's own");
    }

    #[test]
    fn tails_keep_the_end() {
        assert_eq!(tail("abcdef", 3), "…def");
        assert_eq!(tail("abc", 3), "abc");
    }
}
