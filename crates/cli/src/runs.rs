//! The options every runner shares (`--out`, `--resume`, `--shard`, `--records`)
//! and running a tournament with them: records written as games finish, an
//! interrupted run continued, a shard played alone.

use crate::summary::Summary;
use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use koth_arena::records::{self, RecordWriter, RunInfo};
use koth_arena::{Game, Observer, RecordLevel, RunSummary, Tournament};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Where a run goes and which part of it to play.
#[derive(Args, Debug, Clone, Default)]
pub struct RunOpts {
    /// Write the run to DIR: run.json, every game in games.jsonl as it finishes, summary.json.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Continue the interrupted run in --out DIR (same results as an uninterrupted run).
    #[arg(long, requires = "out")]
    pub resume: bool,
    /// Play only part I of N of the tournament (1-based), e.g. --shard 2/8; combine with `koth merge`.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// What each game record keeps: every choice (full, for replays and reports) or results only.
    #[arg(long, value_enum, default_value_t = Records::Full)]
    pub records: Records,
}

/// Record levels on the command line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Records {
    /// Every choice: any game can be replayed.
    #[default]
    Full,
    /// Seats, result, scores and forfeits only (compact, for million-game runs).
    Results,
}

impl RunOpts {
    /// The seed of the run being resumed, if any, checked against an explicit one.
    pub fn resumed_seed(&self, explicit: Option<u64>) -> Result<Option<u64>> {
        if !self.resume {
            return Ok(None);
        }
        let Some(dir) = self.out.as_ref() else {
            bail!("--resume needs --out DIR: the run folder to continue");
        };
        if !dir.join(records::RUN_FILE).exists() {
            if has_games(dir) {
                bail!(
                    "cannot resume from {}: its {} is missing, so the games it holds cannot be continued (their seed and bots are unknown)\n  fix: restore {} from a backup, or start again in another --out",
                    dir.display(),
                    records::RUN_FILE,
                    records::RUN_FILE
                );
            }
            bail!(
                "cannot resume from {}: it holds no run (no {})\n  fix: leave out --resume to start a run there",
                dir.display(),
                records::RUN_FILE
            );
        }
        let info = records::read_info(dir)
            .with_context(|| format!("cannot resume from {}", dir.display()))?;
        if let Some(s) = explicit {
            if s != info.seed {
                bail!("--seed {s} differs from the seed {} of the run in {}: leave --seed out to resume", info.seed, dir.display());
            }
        }
        Ok(Some(info.seed))
    }
}

/// What the caller says about the run for `run.json`.
pub struct Describe<'a> {
    /// The game's name.
    pub game: &'a str,
    /// The command.
    pub runner: &'a str,
    /// How each entrant is played.
    pub specs: Vec<serde_json::Value>,
}

/// Plays `t` with `opts`: the whole schedule or a shard, resumed or fresh, recorded
/// to `--out` when given. Writes summary.json there. `inner` sees every record and
/// the progress.
pub fn execute<G: Game>(
    t: &mut Tournament<G>,
    what: Describe<'_>,
    opts: &RunOpts,
    inner: &mut dyn Observer<G::Choice>,
) -> Result<RunSummary>
where
    G::Rules: Serialize,
{
    execute_part(t, what, opts, inner, None, true)
}

/// [`execute`], playing at most `limit` more games (a gauntlet's batch: the run
/// folder holds the whole schedule, played a batch at a time, resumed between
/// batches); `announce` says so when a run is resumed.
pub fn execute_part<G: Game>(
    t: &mut Tournament<G>,
    what: Describe<'_>,
    opts: &RunOpts,
    inner: &mut dyn Observer<G::Choice>,
    limit: Option<u64>,
    announce: bool,
) -> Result<RunSummary>
where
    G::Rules: Serialize,
{
    let total = t.total_games();
    let (range, shard) = match &opts.shard {
        Some(s) => {
            let (i, n) = records::parse_shard(s).map_err(anyhow::Error::msg)?;
            (records::shard_range(total, i, n), Some((i, n)))
        }
        None => (0..total, None),
    };
    let names = t.names();
    let Some(dir) = opts.out.as_deref() else {
        let end = limit.map_or(range.end, |l| (range.start + l).min(range.end));
        let summary = t.run_range(range.start..end, inner, crate::term::ctrl_c_flag());
        return Ok(summary);
    };
    t.records = match opts.records {
        Records::Full => RecordLevel::Full,
        Records::Results => RecordLevel::Results,
    };
    let info = RunInfo {
        game: what.game.into(),
        runner: what.runner.into(),
        rules: serde_json::to_value(&t.rules)?,
        seed: t.seed,
        schedule: t.schedule,
        scoring: t.scoring,
        entrants: names.clone(),
        entrant_specs: what.specs,
        records: t.records,
        range: (range.start, range.end),
        shard,
        version: env!("CARGO_PKG_VERSION").into(),
        duplicate: t.duplicate,
    };
    let mut prior = t.empty_standings();
    let mut start = range.start;
    if opts.resume {
        let old = records::read_info(dir)?;
        old.same_tournament(&info).map_err(|e| {
            anyhow::anyhow!("{} holds another tournament ({e}): resume with the same bots and options, or use another --out", dir.display())
        })?;
        if old.range != info.range || old.records != info.records {
            bail!(
                "{} holds games {:?} with {:?} records: resume with the same --shard and --records",
                dir.display(),
                old.range,
                old.records
            );
        }
        let done: Vec<koth_arena::GameRecord<serde_json::Value>> =
            records::read_checked_records(dir, &old, true)?;
        for (k, r) in done.iter().enumerate() {
            if r.index != range.start + k as u64 {
                bail!(
                    "{}: record {} is game {}, expected {}: the file is damaged",
                    dir.display(),
                    k + 1,
                    r.index,
                    range.start + k as u64
                );
            }
        }
        prior = koth_arena::standings::standings_of(&info, &done);
        start = range.start + done.len() as u64;
        if announce {
            eprintln!(
                "resuming {}: {} of {} games already played",
                dir.display(),
                done.len(),
                range.end - range.start
            );
        }
    } else {
        if has_games(dir) {
            if !dir.join(records::RUN_FILE).exists() {
                bail!(
                    "{} holds games but no {}: they cannot be continued\n  fix: choose another --out (or restore {})",
                    dir.display(),
                    records::RUN_FILE,
                    records::RUN_FILE
                );
            }
            bail!(
                "{} already holds a run: add --resume to continue it, or choose another --out",
                dir.display()
            );
        }
        records::write_info(dir, &info)?;
    }
    let end = limit.map_or(range.end, |l| (start + l).min(range.end));
    let mut writer = RecordWriter::append(dir, inner)?;
    let mut summary = t.run_range(start..end, &mut writer, crate::term::ctrl_c_flag());
    writer.flush()?;
    if let Some(e) = writer.error.take() {
        return Err(e).context("game records could not be written");
    }
    prior.merge(&summary.standings);
    summary.standings = prior;
    summary.played = range.start..summary.played.end;
    let threads = t.threads;
    Summary::new(
        what.game,
        &t.rules,
        t.seed,
        &t.schedule,
        t.scoring,
        threads,
        &summary,
    )
    .write(&dir.join(records::SUMMARY_FILE))?;
    Ok(summary)
}

fn has_games(dir: &Path) -> bool {
    std::fs::metadata(dir.join(records::GAMES_FILE))
        .map(|m| m.len() > 0)
        .unwrap_or(false)
}
