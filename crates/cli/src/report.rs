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
use koth_arena::{ratings, Ending, Game, GameRecord, Outcome};
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
/// Characters of a stderr tail kept (its end).
const STDERR_MAX: usize = 4000;

const TEMPLATE: &str = include_str!("report/page.html");
const CSS: &str = include_str!("report/report.css");
const JS: &str = include_str!("report/report.js");

/// `koth report DIR`: writes `DIR/report.html` and says where.
pub fn run(dir: &Path, want: Replays) -> Result<()> {
    let path = write(dir, want)?;
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
pub fn write(dir: &Path, want: Replays) -> Result<PathBuf> {
    let html = render(dir, want)?;
    let path = dir.join(REPORT_FILE);
    std::fs::write(&path, html)
        .with_context(|| format!("cannot write the report to {}", path.display()))?;
    Ok(path)
}

/// The report page of the run in `dir`.
pub fn render(dir: &Path, want: Replays) -> Result<String> {
    let data = page_data(dir, want)?;
    Ok(assemble(&data))
}

/// The data the page draws, as embedded in it.
pub fn page_data(dir: &Path, want: Replays) -> Result<Value> {
    // (The error already names the file: no context chain, to say it once.)
    let info = records::read_info(dir)
        .map_err(|e| anyhow::anyhow!("{e}: {} is not a koth run folder", dir.display()))?;
    match info.game.as_str() {
        "coup" => {
            let rules: koth_coup::Rules = serde_json::from_value(info.rules.clone())
                .context("run.json: these are not Coup rules")?;
            build::<koth_coup::State>(&info, dir, want, |r, names| {
                coup_replay::<koth_coup::State>(&rules, r, names, |g| g)
            })
        }
        "coup-ppcg" => {
            let rules = koth_ppcg::PpcgRules::from_json(&info.rules)
                .map_err(|e| anyhow::anyhow!("run.json: {e}"))?;
            build::<koth_ppcg::PpcgGame>(&info, dir, want, |r, names| {
                coup_replay::<koth_ppcg::PpcgGame>(&rules, r, names, |g| g.state())
            })
        }
        "samurai" => {
            let rules: koth_samurai::Rules = serde_json::from_value(info.rules.clone())
                .context("run.json: these are not samurai rules")?;
            build::<koth_samurai::State>(&info, dir, want, |r, names| {
                samurai_replay(&rules, r, names)
            })
        }
        other => {
            bail!("cannot report on {other:?} runs: koth reports Coup, Coup ppcg and samurai runs")
        }
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

/// One step of a replay, as embedded: `[table, line, line...]`. `table` is the
/// game's state after the step as a short string (`0` when unchanged); each
/// line is a tone letter followed by the text (see `TONES` in the script).
type Step = Vec<Value>;

/// A run of passes merged into one step ("a, b and c let it stand").
struct Passes {
    kind: PassKind,
    who: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum PassKind {
    Challenge,
    Block,
}

impl Passes {
    fn text(&self) -> String {
        let one = self.who.len() == 1;
        let verb = match (self.kind, one) {
            (PassKind::Challenge, true) => "lets it stand",
            (PassKind::Challenge, false) => "let it stand",
            (PassKind::Block, true) => "does not block",
            (PassKind::Block, false) => "do not block",
        };
        format!("{} {verb}", joined(&self.who))
    }
}

/// Collects steps, leaving out unchanged tables and merging runs of passes.
#[derive(Default)]
struct Steps {
    steps: Vec<Step>,
    last: Option<String>,
    passes: Option<Passes>,
}

impl Steps {
    fn push(&mut self, lines: Vec<String>, table: String) {
        self.passes = None;
        let mut step = Vec::with_capacity(lines.len() + 1);
        if self.last.as_ref() == Some(&table) {
            step.push(json!(0));
        } else {
            step.push(json!(table));
            self.last = Some(table);
        }
        step.extend(lines.into_iter().map(Value::String));
        self.steps.push(step);
    }
    /// One more pass: joins the previous step when that was a pass of the same
    /// kind (and nothing else comes first).
    fn pass(&mut self, kind: PassKind, who: &str, table: String, mut first: Vec<String>) {
        match &mut self.passes {
            Some(p) if first.is_empty() && p.kind == kind && self.last.as_ref() == Some(&table) => {
                p.who.push(who.to_string());
                let text = Value::String(format!("q{}", p.text()));
                if let Some(line) = self.steps.last_mut().and_then(|s| s.last_mut()) {
                    *line = text;
                }
            }
            _ => {
                let p = Passes {
                    kind,
                    who: vec![who.to_string()],
                };
                first.push(format!("q{}", p.text()));
                self.push(first, table);
                self.passes = Some(p);
            }
        }
    }
    fn end(mut self, text: String) -> Vec<Step> {
        let line = Value::String(format!("e{text}"));
        match self.steps.last_mut() {
            Some(s) => s.push(line),
            None => self.steps.push(vec![json!(0), line]),
        }
        self.steps
    }
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
        // Every seat "won": a draw (a samurai duel's 500th turn, a capped game).
        n if n == names.len() => "a draw".to_string(),
        _ => format!("{} share the win", joined(&winners)),
    };
    let how = match outcome.ending {
        Ending::Decided => "",
        Ending::TurnCap => " (turn cap reached)",
        Ending::Adjudicated => " (adjudicated)",
    };
    format!("Game over after {} turns: {who}{how}.", outcome.turns)
}

/// The letter of a Coup narration tone.
fn tone_letter(tone: koth_coup::narrate::Tone) -> char {
    use koth_coup::narrate::Tone;
    match tone {
        Tone::Turn => 't',
        Tone::Claim => 'c',
        Tone::Challenge => 'h',
        Tone::Block => 'b',
        Tone::Reveal => 'r',
        Tone::Loss => 'l',
        Tone::Gain => 'g',
        Tone::Out => 'o',
        Tone::Quiet => 'q',
    }
}

/// Coup's table: per seat `coins:hidden:face-up` (cards as digits of
/// `Card::ALL`), seats separated by spaces.
fn coup_table(g: &koth_coup::State) -> String {
    let digits = |cards: &[koth_coup::Card]| -> String {
        cards
            .iter()
            .map(|c| char::from(b'0' + c.index() as u8))
            .collect()
    };
    (0..g.players())
        .map(|s| {
            format!(
                "{}:{}:{}",
                g.coins(s),
                digits(g.hand(s)),
                digits(g.revealed(s))
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The Coup table inside a game: the game itself, or the engine a protocol wraps.
fn coup_replay<G: Game<Choice = koth_coup::Choice>>(
    rules: &G::Rules,
    rec: &GameRecord<koth_coup::Choice>,
    names: &[String],
    engine: impl Fn(&G) -> &koth_coup::State,
) -> Result<Vec<Step>, String> {
    use koth_coup::narrate::describe;
    use koth_coup::Event;
    let mut steps = Steps::default();
    let mut shown = 0;
    // A turn's header opens the step of its first decision, not the step that
    // ended the turn before.
    let mut header: Vec<String> = Vec::new();
    records::replay::<G>(rules, rec, |game| {
        let g = engine(game);
        let mut new = &g.log()[shown..];
        shown = g.log().len();
        let mut lines = std::mem::take(&mut header);
        if steps.steps.is_empty() {
            lines.push(format!(
                "i{} players sit down: {}. Each holds two hidden cards.",
                names.len(),
                joined(names)
            ));
        }
        let mut next_header = Vec::new();
        if let [rest @ .., turn @ Event::Turn { .. }] = new {
            if !rest.is_empty() || !lines.is_empty() {
                let (tone, text) = describe(turn, names);
                next_header.push(format!("{}{text}", tone_letter(tone)));
                new = rest;
            }
        }
        match new {
            [Event::NoChallenge { player }] => {
                steps.pass(PassKind::Challenge, &names[*player], coup_table(g), lines)
            }
            [Event::NoBlock { player }] => {
                steps.pass(PassKind::Block, &names[*player], coup_table(g), lines)
            }
            _ => {
                for e in new {
                    let (tone, text) = describe(e, names);
                    lines.push(format!("{}{text}", tone_letter(tone)));
                }
                if !lines.is_empty() {
                    steps.push(lines, coup_table(g));
                }
            }
        }
        header = next_header;
    })?;
    if let Some(last) = steps.steps.last_mut() {
        last.extend(header.into_iter().map(Value::String));
    }
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
    // Per seat `health:honour`.
    let table = |g: &koth_samurai::State| -> String {
        let (x, y) = (g.samurai(0), g.samurai(1));
        format!("{}:{} {}:{}", x.health, x.honour, y.health, y.honour)
    };
    let end = records::replay::<koth_samurai::State>(rules, rec, |g| {
        let mut lines = Vec::new();
        if steps.steps.is_empty() {
            let m = g.samurai(0);
            lines.push(format!(
                "i{a} faces {b}; each starts with {} health and {} honour.",
                m.health, m.honour
            ));
        }
        for t in &g.log()[shown..] {
            lines.push(format!("t{}", narrate_turn_with(t, [a, b])));
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
fn build<G: Game>(
    info: &RunInfo,
    dir: &Path,
    want: Replays,
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
    records::for_each_record::<G::Choice>(dir, info, |r| {
        seen += 1;
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
                "mean": r4(st.score.mean()),
                "mean_low": r4(ci.low),
                "mean_high": r4(ci.high),
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

    let replay_cmd = format!(
        "koth replay {} --game ",
        koth_process::shell_word(&dir.display().to_string())
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
        "replay_cmd": replay_cmd,
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
    fn a_draw_reads_as_one() {
        let names = ["waiter".to_string(), "copycat".to_string(), "x".to_string()];
        let o = |w: &[usize], seats: usize| {
            let mut set = koth_arena::SeatSet::EMPTY;
            w.iter().for_each(|&s| set.insert(s));
            (
                Outcome {
                    winners: set,
                    ending: Ending::Decided,
                    turns: 500,
                },
                names[..seats].to_vec(),
            )
        };
        let (out, n) = o(&[0, 1], 2);
        assert_eq!(verdict(&out, &n), "Game over after 500 turns: a draw.");
        let (out, n) = o(&[0, 1], 3);
        assert!(verdict(&out, &n).contains("share the win"));
        let (out, n) = o(&[2], 3);
        assert!(verdict(&out, &n).contains("x wins"));
    }

    #[test]
    fn tails_keep_the_end() {
        assert_eq!(tail("abcdef", 3), "…def");
        assert_eq!(tail("abc", 3), "abc");
    }
}
