//! A run on disk: what was run (`run.json`), every game as it finished
//! (`games.jsonl`, one JSON record a line, in game order) and the standings
//! (`summary.json`, written by the front end). Enough to resume an interrupted run,
//! merge shards, replay any game and build a report.

use crate::code::ChoiceCode;
use crate::game::Game;
use crate::runner::{GameRecord, Observer, Progress, RecordLevel, Standings};
use crate::schedule::Schedule;
use crate::scoring::Scoring;
use serde::{de::DeserializeOwned, Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

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

    /// Empty standings of the run's entrants (grouped by deal under duplicate play).
    pub fn empty_standings(&self) -> Standings {
        Standings::for_run(&self.entrants, &self.schedule, self.duplicate)
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

/// Standings of a list of records.
pub fn standings_of<C>(info: &RunInfo, records: &[GameRecord<C>]) -> Standings {
    let mut s = info.empty_standings();
    for r in records {
        s.add(r);
    }
    s
}

/// An [`Observer`] that appends every record to `games.jsonl` as it arrives and
/// flushes after every batch, then hands progress to another observer.
pub struct RecordWriter<'a, C> {
    out: BufWriter<File>,
    path: PathBuf,
    inner: &'a mut dyn Observer<C>,
    /// The first write error, if any (writing stops there).
    pub error: Option<RecordError>,
    /// Bytes written.
    pub bytes: u64,
    /// Whether records come as JSON lines from the workers ([`Observer::on_json`]).
    fed: bool,
}

impl<'a, C> RecordWriter<'a, C> {
    /// Appends to `dir/games.jsonl` (created if missing).
    pub fn append(dir: &Path, inner: &'a mut dyn Observer<C>) -> Result<Self, RecordError> {
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

    fn write(&mut self, bytes: &[u8]) {
        if self.error.is_none() {
            self.bytes += bytes.len() as u64;
            if let Err(e) = self.out.write_all(bytes) {
                self.error = Some(io(&self.path)(e));
            }
        }
    }

    /// Flushes what is buffered to the file.
    pub fn flush(&mut self) -> Result<(), RecordError> {
        self.out.flush().map_err(io(&self.path))
    }
}

impl<C: Serialize + ChoiceCode> Observer<C> for RecordWriter<'_, C> {
    fn wants_json(&self) -> bool {
        true
    }
    fn wants_records(&self) -> bool {
        // Lines come from the workers; records only for a reader behind.
        self.inner.wants_records()
    }
    fn on_json(&mut self, lines: &[u8]) {
        self.fed = true;
        self.write(lines);
    }
    fn on_record(&mut self, record: &GameRecord<C>) {
        // Driven by hand rather than by a tournament: serialise here.
        if !self.fed {
            let mut line = Vec::with_capacity(512);
            record.write_json_line(&mut line);
            self.write(&line);
        }
        self.inner.on_record(record);
    }
    fn on_progress(&mut self, progress: &Progress<'_>) {
        if self.error.is_none() {
            if let Err(e) = self.out.flush() {
                self.error = Some(io(&self.path)(e));
            }
        }
        self.inner.on_progress(progress);
    }
}

/// Replays a fully recorded game (choices and forfeits) from its seed; the result
/// must be the recorded one. `step` sees the game after every change.
pub fn replay<G: Game>(
    rules: &G::Rules,
    record: &GameRecord<G::Choice>,
    mut step: impl FnMut(&G),
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
        .filter(|n| n.kind == crate::runner::NoticeKind::Penalty)
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
