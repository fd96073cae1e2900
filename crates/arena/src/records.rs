//! A run on disk: what was run (`run.json`), every game as it finished
//! (`games.jsonl`, one JSON record a line, in game order) and the standings
//! (`summary.json`, written by the front end). Enough to resume an interrupted run,
//! merge shards, replay any game and build a report.

use crate::agent::Fault;
use crate::code::ChoiceCode;
use crate::game::{Ending, Game, Outcome, PerSeat, Seat};
use crate::schedule::Schedule;
use crate::scoring::Scoring;
use serde::{de::DeserializeOwned, Deserialize, Serialize};
use smallvec::SmallVec;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// How much of every game a run keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RecordLevel {
    /// No per-game records, only standings.
    #[default]
    None,
    /// Results: seats, winners, scores, forfeits.
    Results,
    /// Results and every choice, so the game can be replayed.
    Full,
}

/// A forfeit, as recorded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ForfeitRecord {
    /// The seat that forfeited.
    pub seat: Seat,
    /// How many choices had been applied when it happened (for replays).
    #[serde(default)]
    pub at: u64,
    /// The entrant at that seat.
    pub entrant: usize,
    /// The reason and the program's stderr tail.
    pub fault: Fault,
}

/// What a record keeps beside forfeits: a penalty the rules applied for an illegal
/// answer, or a warning about an answer accepted leniently.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoticeRecord {
    /// The seat concerned.
    pub seat: Seat,
    /// How many choices had been applied when it happened (for replays).
    pub at: u64,
    /// The entrant at that seat.
    pub entrant: usize,
    /// `penalty` or `warning`.
    pub kind: NoticeKind,
    /// What happened.
    pub text: String,
    /// What the bot really wrote, when the game needs it to replay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<String>,
    /// A penalty's illegal answer, by its code, when the game made it public.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tried: Option<u8>,
}

/// The kind of a [`NoticeRecord`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NoticeKind {
    /// An illegal answer cost the seat an influence; the game went on.
    Penalty,
    /// An answer was accepted as the original system accepts it, not as written.
    Warning,
    /// The bot asked to stop the run after this game (a debugging aid).
    Stop,
    /// What the bot wrote to stderr while making this decision (a program's
    /// log, bounded per game; the whole of it is in the run's `logs` folder).
    Log,
}

/// One finished game. Two records are equal when they record the same game:
/// what its programs logged and how long they took ([`GameRecord::log`]) are
/// not part of it (times differ from run to run).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(bound(
    serialize = "C: Serialize + crate::code::ChoiceCode",
    deserialize = "C: serde::de::DeserializeOwned + crate::code::ChoiceCode"
))]
pub struct GameRecord<C> {
    /// The game's number in the tournament.
    pub index: u64,
    /// The seed the game was played with.
    pub seed: u64,
    /// Entrant at each seat.
    pub seats: PerSeat<usize>,
    /// How it ended.
    pub outcome: Outcome,
    /// Score of each seat.
    pub scores: PerSeat<f64>,
    /// Decisions asked of the bots.
    #[serde(default)]
    pub decisions: u64,
    /// Forfeits, in the order they happened.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forfeits: Vec<ForfeitRecord>,
    /// Penalties and warnings, in the order they happened.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<NoticeRecord>,
    /// Each seat's place (1 = won; then from the last out to the first out), when
    /// the game knows more than who won: Coup's elimination order.
    #[serde(default, skip_serializing_if = "SmallVec::is_empty")]
    pub places: PerSeat<u8>,
    /// Every choice made, in order (with [`RecordLevel::Full`]); written as one
    /// character a choice ([`crate::code`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choices: Option<crate::code::Choices<C>>,
    /// What programs wrote to stderr while deciding and how long they took
    /// (with [`RecordLevel::Full`]; `None` when no seat is a program). Not part
    /// of the game's line in `games.jsonl`, which stays the same however the run
    /// was played: kept apart in `logs/lines.jsonl` ([`LINES_FILE`], read by
    /// [`read_logs`]).
    #[serde(skip)]
    pub log: Option<Box<GameLog>>,
}

impl<C: PartialEq> PartialEq for GameRecord<C> {
    fn eq(&self, other: &Self) -> bool {
        // Spelled out so that a field added later is not left out silently.
        let GameRecord {
            index,
            seed,
            seats,
            outcome,
            scores,
            decisions,
            forfeits,
            notices,
            places,
            choices,
            log: _,
        } = self;
        *index == other.index
            && *seed == other.seed
            && *seats == other.seats
            && *outcome == other.outcome
            && *scores == other.scores
            && *decisions == other.decisions
            && *forfeits == other.forfeits
            && *notices == other.notices
            && *places == other.places
            && *choices == other.choices
    }
}

/// What the programs of one game logged and how long they took, decision by
/// decision.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GameLog {
    /// What they wrote to stderr while deciding, at the decision
    /// ([`NoticeKind::Log`]), bounded per seat.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<NoticeRecord>,
    /// How long each of their answers took.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub times: Vec<Took>,
}

/// How long a program took over one decision, as `[at, seat, microseconds,
/// at_most]`: `at` is the number of choices applied when it was asked (the
/// decision is the one whose choice comes next, as for [`NoticeRecord::at`]);
/// the time runs from the request sent to the answer read. `at_most` is set
/// when the answer was already waiting when koth came to read it (a program
/// answering many games at once, read after others): it took at most that.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Took(pub u64, pub Seat, pub u32, pub bool);

impl GameLog {
    /// The lines logged just before choice `at` was made.
    pub fn lines_at(&self, at: u64) -> impl Iterator<Item = &NoticeRecord> {
        self.lines.iter().filter(move |n| n.at == at)
    }
    /// How long `seat` took over the decision whose choice is choice `at`, and
    /// whether that is a bound ([`Took`]).
    pub fn time_at(&self, at: u64, seat: Seat) -> Option<(std::time::Duration, bool)> {
        self.times
            .iter()
            .find(|t| t.0 == at && t.1 == seat)
            .map(|t| (std::time::Duration::from_micros(t.2.into()), t.3))
    }
}

/// Where a run keeps the lines its programs logged, game by game: one JSON
/// line `{"game":K,"lines":[…]}` for each game that has some.
pub const LINES_FILE: &str = "logs/lines.jsonl";

impl<C> GameRecord<C> {
    /// The line of [`LINES_FILE`] for this game, if its programs logged or
    /// were timed.
    pub fn write_lines_line(&self, out: &mut Vec<u8>) {
        let Some(log) = self.log.as_deref() else {
            return;
        };
        if log.lines.is_empty() && log.times.is_empty() {
            return;
        }
        #[derive(Serialize)]
        struct Line<'a> {
            game: u64,
            #[serde(flatten)]
            log: &'a GameLog,
        }
        let line = Line {
            game: self.index,
            log,
        };
        serde_json::to_writer(&mut *out, &line).expect("lines serialize");
        out.push(b'\n');
    }
}

/// What a run's programs logged and how long they took ([`LINES_FILE`]), by
/// game; empty when the run kept none. A line that does not read is skipped (a
/// run cut short).
pub fn read_logs(dir: &Path) -> std::collections::BTreeMap<u64, GameLog> {
    #[derive(Deserialize)]
    struct Line {
        game: u64,
        #[serde(flatten)]
        log: GameLog,
    }
    let mut out = std::collections::BTreeMap::<u64, GameLog>::new();
    let Ok(text) = std::fs::read_to_string(dir.join(LINES_FILE)) else {
        return out;
    };
    for l in text.lines() {
        if let Ok(Line { game, log }) = serde_json::from_str::<Line>(l) {
            let kept = out.entry(game).or_default();
            kept.lines.extend(log.lines);
            kept.times.extend(log.times);
        }
    }
    out
}

impl<C: Serialize + crate::code::ChoiceCode> GameRecord<C> {
    /// Appends the record as one JSON line, newline included: the bytes
    /// `serde_json` writes, faster (records are written on the hot path of a run).
    ///
    /// ```
    /// # use koth_arena::records::GameRecord;
    /// # use koth_arena::{smallvec, Ending, Outcome, SeatSet};
    /// let r = GameRecord::<u8> {
    ///     index: 3, seed: 9, seats: smallvec![1, 0],
    ///     outcome: Outcome { winners: SeatSet(1), ending: Ending::Decided, turns: 4 },
    ///     scores: smallvec![1.0, -1.0], decisions: 5, forfeits: vec![], notices: vec![],
    ///     places: smallvec![], choices: Some(vec![0, 1, 2].into()), log: None,
    /// };
    /// let mut line = Vec::new();
    /// r.write_json_line(&mut line);
    /// assert_eq!(line, [serde_json::to_vec(&r).unwrap(), b"\n".to_vec()].concat());
    /// ```
    pub fn write_json_line(&self, out: &mut Vec<u8>) {
        let mut n = itoa::Buffer::new();
        out.extend_from_slice(b"{\"index\":");
        out.extend_from_slice(n.format(self.index).as_bytes());
        out.extend_from_slice(b",\"seed\":");
        out.extend_from_slice(n.format(self.seed).as_bytes());
        out.extend_from_slice(b",\"seats\":");
        write_ints(out, &mut n, &self.seats);
        out.extend_from_slice(b",\"outcome\":{\"winners\":");
        out.extend_from_slice(n.format(self.outcome.winners.0).as_bytes());
        out.extend_from_slice(match self.outcome.ending {
            Ending::Decided => b",\"ending\":\"decided\",\"turns\":".as_slice(),
            Ending::TurnCap => b",\"ending\":\"turn_cap\",\"turns\":",
            Ending::Adjudicated => b",\"ending\":\"adjudicated\",\"turns\":",
        });
        out.extend_from_slice(n.format(self.outcome.turns).as_bytes());
        out.extend_from_slice(b"},\"scores\":[");
        for (i, s) in self.scores.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            write_score(out, *s);
        }
        out.extend_from_slice(b"],\"decisions\":");
        out.extend_from_slice(n.format(self.decisions).as_bytes());
        // Rare, and holding free text: left to serde_json.
        if !self.forfeits.is_empty() {
            out.extend_from_slice(b",\"forfeits\":");
            serde_json::to_writer(&mut *out, &self.forfeits).expect("forfeits serialize");
        }
        if !self.notices.is_empty() {
            out.extend_from_slice(b",\"notices\":");
            serde_json::to_writer(&mut *out, &self.notices).expect("notices serialize");
        }
        if !self.places.is_empty() {
            out.extend_from_slice(b",\"places\":");
            write_ints(out, &mut n, &self.places);
        }
        if let Some(choices) = &self.choices {
            out.extend_from_slice(b",\"choices\":");
            match choices.code_bytes() {
                // Coded during play: the characters as they are.
                Some(codes) => {
                    out.push(b'"');
                    out.extend_from_slice(codes);
                    out.push(b'"');
                }
                None => serde_json::to_writer(&mut *out, choices).expect("choices serialize"),
            }
        }
        out.extend_from_slice(b"}\n");
    }
}

/// Appends a score as serde_json writes it. A run's scores take a few values (a
/// zero-sum game's winner and losers), so the worker keeps the text of the last
/// few rather than formatting every one.
#[inline]
fn write_score(out: &mut Vec<u8>, s: f64) {
    /// (bits, text length, text): the longest f64 text is 24 bytes.
    type Slot = (u64, u8, [u8; 24]);
    thread_local! {
        static KNOWN: std::cell::RefCell<([Slot; 4], usize)> =
            const { std::cell::RefCell::new(([(0, 0, [0; 24]); 4], 0)) };
    }
    KNOWN.with_borrow_mut(|(slots, next)| {
        let bits = s.to_bits();
        if let Some((_, len, text)) = slots.iter().find(|(b, len, _)| *len > 0 && *b == bits) {
            out.extend_from_slice(&text[..*len as usize]);
            return;
        }
        let at = out.len();
        // serde_json's own float formatting, so both writers agree.
        serde_json::to_writer(&mut *out, &s).expect("a number serializes");
        let len = out.len() - at;
        if len <= 24 {
            let mut text = [0; 24];
            text[..len].copy_from_slice(&out[at..]);
            slots[*next] = (bits, len as u8, text);
            *next = (*next + 1) % slots.len();
        }
    })
}

/// Appends `items` as a JSON list of integers.
fn write_ints<T: itoa::Integer + Copy + TryInto<u8>>(
    out: &mut Vec<u8>,
    n: &mut itoa::Buffer,
    items: &[T],
) {
    out.push(b'[');
    for (i, &x) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        // Seats and places are mostly one digit: spare itoa and a copy.
        match x.try_into() {
            Ok(d) if d < 10 => out.push(b'0' + d),
            _ => out.extend_from_slice(n.format(x).as_bytes()),
        }
    }
    out.push(b']');
}

/// The file describing a run.
pub const RUN_FILE: &str = "run.json";
/// The file of game records.
pub const GAMES_FILE: &str = "games.jsonl";
/// The file of the final standings.
pub const SUMMARY_FILE: &str = "summary.json";

/// What a run is: everything needed to play it again, resume it or merge it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// The game (`coup`, `samurai`).
    pub game: String,
    /// The command that made it (`coup loop`, `ppcg`, `samurai`, `run`).
    pub runner: String,
    /// The rule options, as JSON.
    pub rules: serde_json::Value,
    /// Master seed.
    pub seed: u64,
    /// Who plays whom.
    pub schedule: Schedule,
    /// How games are scored.
    pub scoring: Scoring,
    /// Entrant names, in entrant order.
    pub entrants: Vec<String>,
    /// How each entrant is played (built-in name, command...), as the front end
    /// describes it; a resumed run must describe them the same way.
    pub entrant_specs: Vec<serde_json::Value>,
    /// What each record keeps.
    pub records: RecordLevel,
    /// The games of the schedule this run plays (all of them, or a shard).
    pub range: (u64, u64),
    /// `(i, n)` when the run is shard `i` of `n` (1-based `i`).
    pub shard: Option<(u64, u64)>,
    /// The koth version that wrote it.
    pub version: String,
    /// Duplicate play ([`crate::Tournament::duplicate`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub duplicate: bool,
}

impl RunInfo {
    /// Games in the whole tournament (with duplicate play, whole deals).
    pub fn total_games(&self) -> u64 {
        self.schedule.games(self.entrants.len(), self.duplicate)
    }

    /// Whether `other` is the same tournament (same game, rules, seed, schedule,
    /// scoring, entrants), whatever part of it each plays.
    pub fn same_tournament(&self, other: &RunInfo) -> Result<(), String> {
        /// The message for a field that differs, showing both values.
        fn differ<T: PartialEq + Serialize>(what: &str, a: &T, b: &T) -> Option<String> {
            let json = |v: &T| serde_json::to_string(v).unwrap_or_else(|_| "?".into());
            (a != b).then(|| {
                format!(
                    "the runs differ in their {what}: {} against {}",
                    json(a),
                    json(b)
                )
            })
        }
        let (a, b) = (self, other);
        let first = differ("game", &a.game, &b.game)
            .or_else(|| differ("rules", &a.rules, &b.rules))
            .or_else(|| differ("seed", &a.seed, &b.seed))
            .or_else(|| differ("schedule", &a.schedule, &b.schedule))
            .or_else(|| differ("duplicate play", &a.duplicate, &b.duplicate))
            .or_else(|| differ("scoring", &a.scoring, &b.scoring))
            .or_else(|| differ("entrants", &a.entrants, &b.entrants))
            .or_else(|| differ("entrant commands", &a.entrant_specs, &b.entrant_specs));
        match first {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// A problem with a run folder.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// Reading or writing failed.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What failed (shown in the message, not chained, so it is said once).
        error: std::io::Error,
    },
    /// A file is not what koth writes.
    #[error("{path}:{line}: {message}")]
    Bad {
        /// The file.
        path: PathBuf,
        /// The line (1-based; 0 for the whole file).
        line: usize,
        /// What is wrong and what to do.
        message: String,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> RecordError + '_ {
    move |error| RecordError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// Writes a run's `run.json`, creating the folder.
pub fn write_info(dir: &Path, info: &RunInfo) -> Result<(), RecordError> {
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let path = dir.join(RUN_FILE);
    let text = serde_json::to_string_pretty(info).expect("run info serializes");
    std::fs::write(&path, text + "\n").map_err(io(&path))
}

/// Reads a run's `run.json`.
pub fn read_info(dir: &Path) -> Result<RunInfo, RecordError> {
    let path = dir.join(RUN_FILE);
    let text = std::fs::read_to_string(&path).map_err(io(&path))?;
    serde_json::from_str(&text).map_err(|e| RecordError::Bad {
        path,
        line: e.line(),
        message: format!("not a koth run description: {e}"),
    })
}

/// Reads every complete record of `games.jsonl`. A last line cut short by a crash
/// is ignored (and removed from the file when `repair` is set, so that appending
/// goes on cleanly).
pub fn read_records<C: DeserializeOwned + ChoiceCode>(
    dir: &Path,
    repair: bool,
) -> Result<Vec<GameRecord<C>>, RecordError> {
    let path = dir.join(GAMES_FILE);
    let file = match File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io(&path)(e)),
    };
    let mut reader = BufReader::new(file);
    let mut out = Vec::new();
    let mut good_bytes = 0u64;
    let mut line = String::new();
    let mut number = 0;
    loop {
        line.clear();
        let k = reader.read_line(&mut line).map_err(io(&path))?;
        if k == 0 {
            break;
        }
        number += 1;
        if !line.ends_with('\n') {
            break; // cut short: the game is played again on resume
        }
        match serde_json::from_str::<GameRecord<C>>(&line) {
            Ok(r) => out.push(r),
            Err(e) => {
                return Err(RecordError::Bad {
                    path,
                    line: number,
                    message: format!("not a game record: {e}"),
                })
            }
        }
        good_bytes += k as u64;
    }
    if repair {
        let f = OpenOptions::new()
            .write(true)
            .open(&path)
            .map_err(io(&path))?;
        f.set_len(good_bytes).map_err(io(&path))?;
    }
    Ok(out)
}

/// Checks records against their run: every game in the run's range and played once,
/// seats naming entrants that exist, winners and forfeits naming seats of the game,
/// and each score what the run's scoring gives for the recorded result. The error
/// names `games.jsonl`, the line and what is wrong.
pub fn check_records<C>(
    dir: &Path,
    info: &RunInfo,
    records: &[GameRecord<C>],
) -> Result<(), RecordError> {
    let mut seen = std::collections::HashSet::new();
    for (k, r) in records.iter().enumerate() {
        let dup = !seen.insert(r.index);
        let problem = if dup {
            Err(format!("game {} is recorded twice", r.index))
        } else {
            check_record(info, r)
        };
        if let Err(what) = problem {
            return Err(RecordError::Bad {
                path: dir.join(GAMES_FILE),
                line: k + 1,
                message: format!(
                    "{what}: the file was damaged or edited; restore it or play the run again"
                ),
            });
        }
    }
    Ok(())
}

/// One record against its run (see [`check_records`]): what is wrong, if anything.
pub fn check_record<C>(info: &RunInfo, r: &GameRecord<C>) -> Result<(), String> {
    let n = info.entrants.len();
    let (lo, hi) = info.range;
    if r.index < lo || r.index >= hi {
        return Err(format!(
            "game {} is not one of this run's games {lo}..{hi}",
            r.index
        ));
    }
    let seats = r.seats.len();
    if seats == 0 || seats > crate::MAX_SEATS {
        return Err(format!("game {} has {seats} seats", r.index));
    }
    if let Some(e) = r.seats.iter().find(|&&e| e >= n) {
        return Err(format!(
            "game {} seats entrant {e}, but the run has {n} entrants",
            r.index
        ));
    }
    if r.scores.len() != seats {
        return Err(format!(
            "game {} has {} scores for {seats} seats",
            r.index,
            r.scores.len()
        ));
    }
    if (r.outcome.winners.0 as u32) >> seats != 0 {
        return Err(format!(
            "game {} names a winner beyond its {seats} seats",
            r.index
        ));
    }
    for f in &r.forfeits {
        if f.seat >= seats || f.entrant != r.seats[f.seat] {
            return Err(format!(
                "game {} has a forfeit of seat {} (entrant {}) that is not in the game",
                r.index, f.seat, f.entrant
            ));
        }
    }
    for n in &r.notices {
        if n.seat >= seats || n.entrant != r.seats[n.seat] {
            return Err(format!(
                "game {} has a {:?} for seat {} (entrant {}) that is not in the game",
                r.index, n.kind, n.seat, n.entrant
            ));
        }
    }
    if !r.places.is_empty() {
        let bad_len = r.places.len() != seats;
        let bad_place = r.places.iter().enumerate().any(|(s, &p)| {
            p == 0
                || p as usize > seats
                || (r.outcome.winners.contains(s) != (p == 1) && !r.outcome.winners.is_empty())
        });
        if bad_len || bad_place {
            return Err(format!(
                "game {} has places {:?} that do not fit its {seats} seats and winners",
                r.index, r.places
            ));
        }
    }
    let want = info.scoring.scores(seats, &r.outcome);
    for (seat, (&got, &w)) in r.scores.iter().zip(want.iter()).enumerate() {
        if !got.is_finite() || (got - w).abs() > 1e-9 {
            return Err(format!(
                "game {}: seat {seat} is recorded with score {got}, but its result gives {w}",
                r.index
            ));
        }
    }
    Ok(())
}

/// [`read_records`], then [`check_records`] against the run's `info`.
pub fn read_checked_records<C: DeserializeOwned + ChoiceCode>(
    dir: &Path,
    info: &RunInfo,
    repair: bool,
) -> Result<Vec<GameRecord<C>>, RecordError> {
    let records = read_records(dir, repair)?;
    check_records(dir, info, &records)?;
    Ok(records)
}

/// Reads `dir/games.jsonl` one record at a time, checking each against `info`
/// (as [`check_records`] does) and handing it to `f`: memory stays flat however
/// many games the run holds. Records must be in index order, as runs write them.
/// A last line cut short is left out, as on resume. Returns the number of records.
pub fn for_each_record<C: DeserializeOwned + ChoiceCode>(
    dir: &Path,
    info: &RunInfo,
    mut f: impl FnMut(GameRecord<C>) -> Result<(), String>,
) -> Result<u64, RecordError> {
    let path = dir.join(GAMES_FILE);
    let file = match File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(io(&path)(e)),
    };
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut line = String::new();
    let mut number = 0;
    let mut last: Option<u64> = None;
    loop {
        line.clear();
        if reader.read_line(&mut line).map_err(io(&path))? == 0 || !line.ends_with('\n') {
            break;
        }
        number += 1;
        let bad = |message: String| RecordError::Bad {
            path: path.clone(),
            line: number,
            message,
        };
        let r: GameRecord<C> =
            serde_json::from_str(&line).map_err(|e| bad(format!("not a game record: {e}")))?;
        let problem = match last {
            Some(prev) if r.index == prev => Err(format!("game {} is recorded twice", r.index)),
            Some(prev) if r.index < prev => Err(format!(
                "game {} comes after game {prev}: records are not in order",
                r.index
            )),
            _ => check_record(info, &r),
        };
        problem.map_err(|what| {
            bad(format!(
                "{what}: the file was damaged or edited; restore it or play the run again"
            ))
        })?;
        last = Some(r.index);
        f(r).map_err(bad)?;
    }
    Ok(number as u64)
}

/// An observer ([`crate::Observer`]) that appends every record to `games.jsonl`
/// as it arrives and flushes after every batch, then hands progress to `inner`,
/// another observer.
pub struct RecordWriter<'a, O: ?Sized> {
    out: BufWriter<File>,
    path: PathBuf,
    /// The observer behind it.
    pub inner: &'a mut O,
    /// The first write error, if any (writing stops there).
    pub error: Option<RecordError>,
    /// Bytes written.
    pub bytes: u64,
    /// Whether records come as JSON lines from the workers
    /// ([`crate::Observer::on_json`]).
    pub(crate) fed: bool,
}

impl<'a, O: ?Sized> RecordWriter<'a, O> {
    /// Appends to `dir/games.jsonl` (created if missing).
    pub fn append(dir: &Path, inner: &'a mut O) -> Result<Self, RecordError> {
        let path = dir.join(GAMES_FILE);
        let mut f = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(io(&path))?;
        f.seek(SeekFrom::End(0)).map_err(io(&path))?;
        Ok(RecordWriter {
            out: BufWriter::with_capacity(1 << 20, f),
            path,
            inner,
            error: None,
            bytes: 0,
            fed: false,
        })
    }

    pub(crate) fn write(&mut self, bytes: &[u8]) {
        if self.error.is_none() {
            self.bytes += bytes.len() as u64;
            if let Err(e) = self.out.write_all(bytes) {
                self.error = Some(io(&self.path)(e));
            }
        }
    }

    /// Appends `bytes` to the run's [`LINES_FILE`] (rare: only programs log; a
    /// batch's lines in one write).
    pub(crate) fn write_lines(&mut self, bytes: &[u8]) {
        if bytes.is_empty() || self.error.is_some() {
            return;
        }
        let dir = self.path.parent().unwrap_or(Path::new("."));
        let path = dir.join(LINES_FILE);
        let r = std::fs::create_dir_all(dir.join("logs")).and_then(|()| {
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)?
                .write_all(bytes)
        });
        if let Err(e) = r {
            self.error = Some(io(&path)(e));
        }
    }

    /// Flushes what is buffered to the file.
    pub fn flush(&mut self) -> Result<(), RecordError> {
        self.out.flush().map_err(io(&self.path))
    }

    /// Flushes after a batch of games; the first error is kept in `error`.
    pub(crate) fn flush_batch(&mut self) {
        if self.error.is_none() {
            if let Err(e) = self.out.flush() {
                self.error = Some(io(&self.path)(e));
            }
        }
    }
}

/// Replays a fully recorded game (choices and forfeits) from its seed; the result
/// must be the recorded one. `step` sees the game after every change.
pub fn replay<G: Game>(
    rules: &G::Rules,
    record: &GameRecord<G::Choice>,
    step: impl FnMut(&G),
) -> Result<G, String> {
    replay_logged(rules, record, step, |_, _, _| {})
}

/// [`replay`], with `before` given the game, the number of the choice and the
/// choice just before each choice is applied: the game then shows the decision
/// (its seat to move, its legal choices), and the record's [`GameLog`] what was
/// logged at it and how long it took.
pub fn replay_logged<G: Game>(
    rules: &G::Rules,
    record: &GameRecord<G::Choice>,
    mut step: impl FnMut(&G),
    mut before: impl FnMut(&G, u64, G::Choice),
) -> Result<G, String> {
    let choices = record.choices.as_ref().ok_or(
        "this run kept results only: replays need records with every choice (--records full)",
    )?;
    let mut game = G::new_game(rules, record.seats.len(), record.seed);
    step(&game);
    let mut forfeits = record.forfeits.iter().peekable();
    let mut penalties = record
        .notices
        .iter()
        .filter(|n| n.kind == NoticeKind::Penalty)
        .peekable();
    for (i, c) in choices.iter().enumerate() {
        loop {
            // Penalties and forfeits at the same point happened in that order.
            if let Some(p) = penalties.next_if(|p| p.at == i as u64) {
                if !game.penalize_tried(p.seat, p.tried.and_then(G::Choice::from_code)) {
                    return Err(format!(
                        "game {}: the penalty before choice {i} does not replay",
                        record.index
                    ));
                }
            } else if let Some(f) = forfeits.next_if(|f| f.at == i as u64) {
                game.forfeit(f.seat);
            } else {
                break;
            }
            step(&game);
        }
        before(&game, i as u64, c);
        // A warning recorded after choice i came with it (the game took it while
        // the choice was made).
        for n in record.notices.iter().filter(|n| n.at == i as u64 + 1) {
            if let Some(raw) = &n.raw {
                game.replay_notice(n.seat, raw);
            }
        }
        game.apply(c)
            .map_err(|e| format!("game {}: choice {i} does not replay: {e}", record.index))?;
        step(&game);
    }
    for p in penalties {
        if !game.penalize_tried(p.seat, p.tried.and_then(G::Choice::from_code)) {
            return Err(format!(
                "game {}: the last penalty does not replay",
                record.index
            ));
        }
        step(&game);
    }
    for f in forfeits {
        game.forfeit(f.seat);
        step(&game);
    }
    if game.outcome() != Some(record.outcome) {
        return Err(format!(
            "game {}: the replay ends {:?}, the record says {:?}",
            record.index,
            game.outcome(),
            record.outcome
        ));
    }
    Ok(game)
}

/// The part `i` of `n` (1-based) of `0..total`: contiguous, disjoint, covering.
///
/// ```
/// use koth_arena::records::shard_range;
/// assert_eq!(shard_range(10, 1, 3), 0..3);
/// assert_eq!(shard_range(10, 3, 3), 6..10);
/// ```
pub fn shard_range(total: u64, i: u64, n: u64) -> std::ops::Range<u64> {
    let lo = (total as u128 * (i - 1) as u128 / n as u128) as u64;
    let hi = (total as u128 * i as u128 / n as u128) as u64;
    lo..hi
}

/// Parses `I/N` (1 ≤ I ≤ N).
pub fn parse_shard(s: &str) -> Result<(u64, u64), String> {
    let bad = || format!("--shard takes I/N with 1 ≤ I ≤ N, e.g. 2/8, not {s:?}");
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (i, n): (u64, u64) = (
        i.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if i == 0 || n == 0 || i > n {
        return Err(bad());
    }
    Ok((i, n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::SeatSet;

    proptest::proptest! {
        /// The hand-written line is byte for byte what serde_json writes, for any
        /// record: free text to escape, floats, choices with and without codes.
        #[test]
        fn the_record_writer_agrees_with_serde_json(
            index in proptest::prelude::any::<u64>(),
            seed in proptest::prelude::any::<u64>(),
            seats in proptest::collection::vec(0usize..1000, 0..8),
            winners in proptest::prelude::any::<u8>(),
            ending in 0..3u8,
            turns in proptest::prelude::any::<u32>(),
            scores in proptest::collection::vec(proptest::prop_oneof![
                proptest::prelude::any::<f64>(),
                proptest::sample::select(vec![-0.2, 1.0, 0.0, -0.0, 0.5]),
            ], 0..8),
            decisions in proptest::prelude::any::<u64>(),
            faults in proptest::collection::vec(("\\PC*", proptest::option::of("\\PC*"), proptest::prelude::any::<bool>()), 0..3),
            notes in proptest::collection::vec(("\\PC*", proptest::option::of("[a-z\"\\\\\n]*"), 0..3u8), 0..3),
            places in proptest::collection::vec(1u8..9, 0..8),
            // All coded, or some (64 and up) without a code.
            choices in proptest::option::of(proptest::prop_oneof![
                proptest::collection::vec(0u8..64, 0..300),
                proptest::collection::vec(0u8..70, 0..300),
            ]),
        ) {
            let r = GameRecord {
                index,
                seed,
                seats: seats.into(),
                outcome: Outcome {
                    winners: SeatSet(winners),
                    ending: [Ending::Decided, Ending::TurnCap, Ending::Adjudicated][ending as usize],
                    turns,
                },
                scores: scores.into(),
                decisions,
                forfeits: faults
                    .into_iter()
                    .enumerate()
                    .map(|(i, (reason, stderr_tail, illegal))| ForfeitRecord {
                        seat: i,
                        at: i as u64 * 7,
                        entrant: i + 1,
                        fault: Fault { reason, stderr_tail, illegal, tried: None, hook: None, again: None },
                    })
                    .collect(),
                notices: notes
                    .into_iter()
                    .enumerate()
                    .map(|(i, (text, raw, kind))| NoticeRecord {
                        seat: i,
                        at: 3,
                        entrant: 0,
                        kind: [NoticeKind::Penalty, NoticeKind::Warning, NoticeKind::Stop][kind as usize],
                        text,
                        raw,
                        tried: None,
                    })
                    .collect(),
                places: places.into(),
                // Pushed one by one, as during play.
                choices: choices.map(|v| v.into_iter().collect()),
                // Never in the line.
                log: Some(Box::new(GameLog {
                    lines: vec![NoticeRecord {
                        seat: 0,
                        at: 1,
                        entrant: 0,
                        kind: NoticeKind::Log,
                        text: "a line the bot logged".into(),
                        raw: None,
                        tried: None,
                    }],
                    times: vec![Took(1, 0, 1500, false)],
                })),
            };
            let mut line = Vec::new();
            r.write_json_line(&mut line);
            let mut expected = serde_json::to_vec(&r).unwrap();
            expected.push(b'\n');
            proptest::prop_assert_eq!(String::from_utf8(line.clone()).unwrap(), String::from_utf8(expected).unwrap());
            // Records read without their game (choices as numbers) too; serde_json's
            // reading of floats is not exact, so compare with its own writing.
            let generic: GameRecord<serde_json::Value> = serde_json::from_slice(&line).unwrap();
            let mut again = Vec::new();
            generic.write_json_line(&mut again);
            let mut expected = serde_json::to_vec(&generic).unwrap();
            expected.push(b'\n');
            proptest::prop_assert_eq!(String::from_utf8(again).unwrap(), String::from_utf8(expected).unwrap());
        }
    }

    #[test]
    fn choices_are_written_as_codes_and_read_in_either_form() {
        let mut r = record(vec![0, 1], 0, vec![1.0, -1.0]);
        r.choices = Some(vec![0, 1, 2, 63].into());
        let line = serde_json::to_string(&r).unwrap();
        assert!(line.contains(r#""choices":"ABC_""#), "{line}");
        assert_eq!(serde_json::from_str::<GameRecord<u8>>(&line).unwrap(), r);
        // Records written before codes existed keep a list, and still read.
        let old = line.replace(r#""ABC_""#, "[0,1,2,63]");
        assert_eq!(serde_json::from_str::<GameRecord<u8>>(&old).unwrap(), r);
        // A choice without a code keeps the whole list as a list.
        r.choices = Some(vec![0, 64].into());
        let line = serde_json::to_string(&r).unwrap();
        assert!(line.contains(r#""choices":[0,64]"#), "{line}");
        assert_eq!(serde_json::from_str::<GameRecord<u8>>(&line).unwrap(), r);
        r.choices = None;
        let line = serde_json::to_string(&r).unwrap();
        assert!(!line.contains("choices"), "{line}");
        assert_eq!(serde_json::from_str::<GameRecord<u8>>(&line).unwrap(), r);
    }

    fn record(seats: Vec<usize>, winner: usize, scores: Vec<f64>) -> GameRecord<u8> {
        GameRecord {
            index: 0,
            seed: 0,
            seats: seats.into(),
            outcome: Outcome {
                winners: SeatSet::single(winner),
                ending: Ending::Decided,
                turns: 1,
            },
            scores: scores.into(),
            decisions: 0,
            forfeits: vec![],
            notices: vec![],
            places: Default::default(),
            choices: None,
            log: None,
        }
    }

    #[test]
    fn differing_runs_name_the_values() {
        let a = RunInfo {
            game: "coup".into(),
            runner: "coup loop".into(),
            rules: serde_json::json!({}),
            seed: 3,
            schedule: Schedule::RandomTables {
                games: 10,
                table: 2,
            },
            scoring: Scoring::ZeroSum,
            entrants: vec!["a".into(), "b".into()],
            entrant_specs: Vec::new(),
            records: RecordLevel::Results,
            range: (0, 10),
            shard: None,
            version: "0".into(),
            duplicate: false,
        };
        assert_eq!(a.same_tournament(&a.clone()), Ok(()));
        let mut b = a.clone();
        b.seed = 4;
        assert_eq!(
            a.same_tournament(&b),
            Err("the runs differ in their seed: 3 against 4".into())
        );
        b = a.clone();
        b.entrants[1] = "c".into();
        assert_eq!(
            a.same_tournament(&b),
            Err(r#"the runs differ in their entrants: ["a","b"] against ["a","c"]"#.into())
        );
        // Another part of the same tournament is the same tournament.
        b = a.clone();
        b.range = (5, 10);
        assert_eq!(a.same_tournament(&b), Ok(()));
    }

    #[test]
    fn shards_cover_disjointly() {
        for total in [0u64, 1, 7, 100, 1_000_003] {
            for n in 1..=7 {
                let mut next = 0;
                for i in 1..=n {
                    let r = shard_range(total, i, n);
                    assert_eq!(r.start, next);
                    next = r.end;
                }
                assert_eq!(next, total);
            }
        }
        assert_eq!(parse_shard("2/8"), Ok((2, 8)));
        assert!(
            parse_shard("0/8").is_err() && parse_shard("9/8").is_err() && parse_shard("x").is_err()
        );
    }
}
