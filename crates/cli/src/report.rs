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

use anyhow::{bail, Context, Result};
use koth_arena::records::{self, RunInfo};
use koth_arena::{ratings, Ending, Game, GameRecord, Outcome, Standings};
use serde::Serialize;
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
/// Games listed in the game browser (plus every forfeited one, up to
/// [`REPLAYS_FORFEITED`]).
pub const LIST_MAX: usize = 5000;
/// Forfeits listed in the table.
pub const FORFEITS_MAX: usize = 1000;
/// Points of the standings-over-time chart.
pub const CURVE_POINTS: usize = 100;
/// Characters of a stderr tail kept (its end).
const STDERR_MAX: usize = 4000;

const TEMPLATE: &str = include_str!("report/page.html");
const CSS: &str = include_str!("report/report.css");
const JS: &str = include_str!("report/report.js");

/// `koth report DIR`: writes `DIR/report.html` and says where.
pub fn run(dir: &Path) -> Result<()> {
    let path = write(dir)?;
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
pub fn write(dir: &Path) -> Result<PathBuf> {
    let html = render(dir)?;
    let path = dir.join(REPORT_FILE);
    std::fs::write(&path, html)
        .with_context(|| format!("cannot write the report to {}", path.display()))?;
    Ok(path)
}

/// The report page of the run in `dir`.
pub fn render(dir: &Path) -> Result<String> {
    let data = page_data(dir)?;
    Ok(assemble(&data))
}

/// The data the page draws, as embedded in it.
pub fn page_data(dir: &Path) -> Result<Value> {
    let info = records::read_info(dir)
        .with_context(|| format!("{} is not a koth run folder", dir.display()))?;
    match info.game.as_str() {
        "coup" => {
            let rules: koth_coup::Rules = serde_json::from_value(info.rules.clone())
                .context("run.json: these are not Coup rules")?;
            let recs = records::read_records(dir, false)?;
            build::<koth_coup::State>(&info, &recs, |r, names| coup_replay(&rules, r, names))
        }
        "samurai" => {
            let rules: koth_samurai::Rules = serde_json::from_value(info.rules.clone())
                .context("run.json: these are not samurai rules")?;
            let recs = records::read_records(dir, false)?;
            build::<koth_samurai::State>(&info, &recs, |r, names| samurai_replay(&rules, r, names))
        }
        other => bail!("cannot report on {other:?} runs: koth reports Coup and samurai runs"),
    }
}

/// The page: the template with the style, the script and the data put in.
pub fn assemble(data: &Value) -> String {
    let json = embed_json(data);
    let mut out = String::with_capacity(TEMPLATE.len() + CSS.len() + JS.len() + json.len());
    // Split once on each placeholder: nothing inserted is scanned again.
    let mut rest = TEMPLATE;
    for (mark, text) in [("/*CSS*/", CSS), ("/*DATA*/", &json), ("/*JS*/", JS)] {
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

/// One step of a replay: what happened, and the table after it.
#[derive(Serialize)]
struct Step {
    /// Lines of narration: `[tone, text]`.
    l: Vec<[String; 2]>,
    /// Per seat, the game's state after the step; left out when unchanged.
    #[serde(skip_serializing_if = "Option::is_none")]
    s: Option<Vec<Value>>,
}

/// Collects steps, leaving out unchanged tables.
#[derive(Default)]
struct Steps {
    steps: Vec<Step>,
    last: Option<Vec<Value>>,
}

impl Steps {
    fn push(&mut self, lines: Vec<[String; 2]>, seats: Vec<Value>) {
        let s = if self.last.as_ref() == Some(&seats) {
            None
        } else {
            self.last = Some(seats.clone());
            Some(seats)
        };
        self.steps.push(Step { l: lines, s });
    }
    fn end(mut self, line: String) -> Vec<Step> {
        match self.steps.last_mut() {
            Some(s) => s.l.push(["end".into(), line]),
            None => self.steps.push(Step {
                l: vec![["end".into(), line]],
                s: None,
            }),
        }
        self.steps
    }
}

fn line(tone: &str, text: String) -> [String; 2] {
    [tone.to_string(), text]
}

fn joined(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [a] => a.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// "Game over after 31 turns: economist wins."
fn verdict(outcome: &Outcome, names: &[String]) -> String {
    let winners: Vec<String> = outcome.winners.iter().map(|s| names[s].clone()).collect();
    let who = match winners.len() {
        0 => "nobody wins".to_string(),
        1 => format!("{} wins", winners[0]),
        _ => format!("{} share the win", joined(&winners)),
    };
    let how = match outcome.ending {
        Ending::Decided => "",
        Ending::TurnCap => " (turn cap reached)",
        Ending::Adjudicated => " (adjudicated)",
    };
    format!("Game over after {} turns: {who}{how}.", outcome.turns)
}

fn coup_replay(
    rules: &koth_coup::Rules,
    rec: &GameRecord<koth_coup::Choice>,
    names: &[String],
) -> Result<Vec<Step>, String> {
    use koth_coup::narrate::describe;
    let mut steps = Steps::default();
    let mut shown = 0;
    let table = |g: &koth_coup::State| -> Vec<Value> {
        (0..g.players())
            .map(|s| {
                let idx = |cards: &[koth_coup::Card]| -> Vec<usize> {
                    cards.iter().map(|c| c.index()).collect()
                };
                json!([g.coins(s), idx(g.hand(s)), idx(g.revealed(s))])
            })
            .collect()
    };
    records::replay::<koth_coup::State>(rules, rec, |g| {
        let mut lines = Vec::new();
        if steps.steps.is_empty() {
            lines.push(line(
                "info",
                format!(
                    "{} players sit down: {}. Each holds two hidden cards.",
                    names.len(),
                    joined(names)
                ),
            ));
        }
        for e in &g.log()[shown..] {
            let (tone, text) = describe(e, names);
            lines.push(line(&format!("{tone:?}").to_lowercase(), text));
        }
        shown = g.log().len();
        if !lines.is_empty() {
            steps.push(lines, table(g));
        }
    })?;
    Ok(steps.end(verdict(&rec.outcome, names)))
}

fn samurai_replay(
    rules: &koth_samurai::Rules,
    rec: &GameRecord<koth_samurai::Action>,
    names: &[String],
) -> Result<Vec<Step>, String> {
    use koth_samurai::{narrate_end, narrate_turn_with};
    let [a, b] = match names {
        [a, b] => [a.as_str(), b.as_str()],
        _ => return Err(format!("a duel has two seats, not {}", names.len())),
    };
    let mut steps = Steps::default();
    let mut shown = 0;
    let mut over = false;
    let table = |g: &koth_samurai::State| -> Vec<Value> {
        (0..2)
            .map(|s| {
                let m = g.samurai(s);
                json!([m.health, m.honour])
            })
            .collect()
    };
    let end = records::replay::<koth_samurai::State>(rules, rec, |g| {
        let mut lines = Vec::new();
        if steps.steps.is_empty() {
            let m = g.samurai(0);
            lines.push(line(
                "info",
                format!(
                    "{a} faces {b}; each starts with {} health and {} honour.",
                    m.health, m.honour
                ),
            ));
        }
        for t in &g.log()[shown..] {
            lines.push(line("turn", narrate_turn_with(t, [a, b])));
        }
        shown = g.log().len();
        let now_over = g.outcome().is_some();
        if !lines.is_empty() || now_over != over {
            over = now_over;
            steps.push(lines, table(g));
        }
    })?;
    let last = narrate_end(&end, [a, b]).unwrap_or_else(|| verdict(&rec.outcome, names));
    Ok(steps.end(format!("{last}.")))
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

fn build<G: Game>(
    info: &RunInfo,
    recs: &[GameRecord<G::Choice>],
    replay_one: impl Fn(&GameRecord<G::Choice>, &[String]) -> Result<Vec<Step>, String>,
) -> Result<Value> {
    let names = &info.entrants;
    let n = names.len();
    let mut order: Vec<&GameRecord<G::Choice>> = recs.iter().collect();
    order.sort_by_key(|r| r.index);
    if let Some(r) = order.iter().find(|r| r.seats.iter().any(|&e| e >= n)) {
        bail!(
            "game {} seats an entrant that run.json does not name",
            r.index
        );
    }

    // Leaderboard.
    let mut standings = Standings::new(names);
    for r in &order {
        standings.add(r);
    }
    let leaderboard: Vec<Value> = standings
        .ranking()
        .into_iter()
        .enumerate()
        .map(|(i, e)| {
            let st = &standings.entrants[e];
            let games = st.games();
            json!({
                "rank": i + 1,
                "entrant": e,
                "name": st.name,
                "games": games,
                "wins": st.wins,
                "draws": st.draws,
                "losses": st.losses,
                "forfeits": st.forfeits,
                "mean": r4(st.score.mean()),
                "ci95": r4(if games >= 2 { st.score.ci95() } else { 0.0 }),
                "total": r4(st.score.sum),
            })
        })
        .collect();

    // Ratings, best first.
    let rated = ratings::rate(names, recs);
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
        .fold((0.0, 0u64), |(s, c), e| (s + e.score.sum, c + e.score.n));
    let neutral = if count > 0 { sum / count as f64 } else { 0.0 };

    // Standings over time: the cumulative mean score of each entrant.
    let total = order.len();
    let points: BTreeSet<usize> = (1..=CURVE_POINTS)
        .map(|j| (total * j).div_ceil(CURVE_POINTS))
        .filter(|&k| k > 0)
        .collect();
    let mut cum = vec![(0.0f64, 0u64); n];
    let mut xs = Vec::with_capacity(points.len());
    let mut ys: Vec<Vec<Value>> = vec![Vec::with_capacity(points.len()); n];
    for (k, r) in order.iter().enumerate() {
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
    }

    // Forfeits.
    let all_forfeits = order.iter().map(|r| r.forfeits.len()).sum::<usize>();
    let forfeits: Vec<Value> = order
        .iter()
        .flat_map(|r| r.forfeits.iter().map(move |f| (r, f)))
        .take(FORFEITS_MAX)
        .map(|(r, f)| {
            json!({
                "game": r.index,
                "entrant": f.entrant,
                "seat": f.seat,
                "at": f.at,
                "reason": f.fault.reason,
                "stderr": f.fault.stderr_tail.as_deref().map(|s| tail(s, STDERR_MAX)),
            })
        })
        .collect();

    // Which games are listed and which replayed.
    let full = order.iter().all(|r| r.choices.is_some());
    let forfeited: Vec<usize> = (0..total)
        .filter(|&k| !order[k].forfeits.is_empty())
        .collect();
    let mut replayed: BTreeSet<usize> = BTreeSet::new();
    let mut listed: BTreeSet<usize> = (0..total.min(LIST_MAX)).collect();
    let extra_forfeited: Vec<usize> = forfeited
        .iter()
        .copied()
        .filter(|&k| k >= REPLAYS_FIRST)
        .take(REPLAYS_FORFEITED)
        .collect();
    listed.extend(&extra_forfeited);
    if full {
        replayed.extend(0..total.min(REPLAYS_FIRST));
        replayed.extend(&extra_forfeited);
    }
    let list: Vec<Value> = listed
        .iter()
        .map(|&k| {
            let r = order[k];
            let mut row = json!({
                "i": r.index,
                "s": r.seats,
                "w": r.outcome.winners.0,
                "t": r.outcome.turns,
                "sc": r.scores.iter().map(|&x| r4(x)).collect::<Vec<_>>(),
            });
            if !r.forfeits.is_empty() {
                row["f"] = json!(r.forfeits.iter().map(|f| f.seat).collect::<Vec<_>>());
            }
            if replayed.contains(&k) {
                row["r"] = json!(1);
            }
            row
        })
        .collect();
    let mut replays = BTreeMap::new();
    let mut failed = 0;
    for &k in &replayed {
        let r = order[k];
        let seat_names: Vec<String> = r.seats.iter().map(|&e| names[e].clone()).collect();
        let v = match replay_one(r, &seat_names) {
            Ok(steps) => json!({ "steps": steps }),
            Err(e) => {
                failed += 1;
                json!({ "error": e })
            }
        };
        replays.insert(r.index.to_string(), v);
    }

    let list_note = if listed.len() < total {
        format!(
            "The list shows {} of the {} games: the first {} and up to {} later games with a forfeit.",
            listed.len(),
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
        let mut s = format!(
            "Step-by-step replays are embedded for {} of the {} games: the first {}",
            replayed.len(),
            total,
            total.min(REPLAYS_FIRST)
        );
        if !extra_forfeited.is_empty() {
            s.push_str(&format!(
                " and {} later games with a forfeit",
                extra_forfeited.len()
            ));
        }
        s.push_str(", to keep the page small.");
        if failed > 0 {
            s.push_str(&format!(
                " {failed} of them did not replay (written by another version of koth?)."
            ));
        }
        s
    };

    Ok(json!({
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
        "cards": koth_coup::Card::ALL.iter().map(|c| c.name()).collect::<Vec<_>>(),
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
