//! `koth merge`: the shards of one tournament (`--shard I/N` runs) combined into
//! the run one machine would have made. Any game.

use crate::summary::Summary;
use crate::term;
use anyhow::{bail, Context, Result};
use koth_arena::records::{self, RunInfo};
use koth_arena::{GameRecord, RunSummary, Scoring};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The shards' `logs` folders as one: what programs logged at their decisions
/// and how long they took (`lines.jsonl`, whose game numbers are the run's
/// already) in game order, and each process's whole stderr, named for its shard.
fn merge_logs(parts: &[(PathBuf, RunInfo)], out_dir: &Path) -> Result<()> {
    let logs = out_dir.join("logs");
    let mut lines: Option<BufWriter<std::fs::File>> = None;
    for (k, (d, _)) in parts.iter().enumerate() {
        let Ok(entries) = std::fs::read_dir(d.join("logs")) else {
            continue;
        };
        std::fs::create_dir_all(&logs)
            .with_context(|| format!("cannot create {}", logs.display()))?;
        let mut names: Vec<_> = entries.flatten().collect();
        names.sort_by_key(|e| e.file_name());
        for e in names {
            // koth wrote these; only its regular files are copied.
            if !e.file_type().is_ok_and(|t| t.is_file()) {
                continue;
            }
            let name = e.file_name().to_string_lossy().into_owned();
            if Path::new(&name) == Path::new(records::LINES_FILE).file_name().unwrap() {
                let w = match &mut lines {
                    Some(w) => w,
                    None => lines.insert(BufWriter::new(std::fs::File::create(
                        out_dir.join(records::LINES_FILE),
                    )?)),
                };
                let text = std::fs::read(e.path())?;
                w.write_all(&text)?;
                if !text.is_empty() && !text.ends_with(b"\n") {
                    w.write_all(b"\n")?;
                }
            } else {
                let to = logs.join(format!("shard-{}.{name}", k + 1));
                std::fs::copy(e.path(), &to).with_context(|| {
                    format!("cannot copy {} to {}", e.path().display(), to.display())
                })?;
            }
        }
    }
    if let Some(mut w) = lines {
        w.flush()?;
    }
    Ok(())
}

/// Combines shard runs of one tournament into the run one machine would have made.
pub fn merge(dirs: &[PathBuf], out_dir: &Path) -> Result<()> {
    if dirs.is_empty() {
        bail!("name the shard folders to merge");
    }
    let mut parts: Vec<(PathBuf, RunInfo)> = Vec::new();
    for d in dirs {
        let info =
            records::read_info(d).with_context(|| format!("{} is not a koth run", d.display()))?;
        if let Some((_, first)) = parts.first() {
            first
                .same_tournament(&info)
                .map_err(|e| anyhow::anyhow!("{} and {}: {e}", dirs[0].display(), d.display()))?;
            if first.records != info.records {
                bail!(
                    "{} keeps {:?} records, {} keeps {:?}",
                    dirs[0].display(),
                    first.records,
                    d.display(),
                    info.records
                );
            }
        }
        parts.push((d.clone(), info));
    }
    parts.sort_by_key(|(_, i)| i.range.0);
    let first = parts[0].1.clone();
    let total = first.total_games();
    let mut next = 0;
    for (k, (d, info)) in parts.iter().enumerate() {
        if info.range.0 < next {
            bail!(
                "{} (games {}..{}) overlaps {} (games up to {next}): merge each shard once",
                d.display(),
                info.range.0,
                info.range.1,
                parts[k - 1].0.display()
            );
        }
        if info.range.0 != next {
            bail!(
                "games {}..{} are missing (the next folder, {}, starts at {}): merge every shard",
                next,
                info.range.0,
                d.display(),
                info.range.0
            );
        }
        next = info.range.1;
    }
    if next != total {
        bail!("games {next}..{total} are missing: merge every shard");
    }
    if out_dir.join(records::GAMES_FILE).exists() {
        bail!(
            "{} already holds a run: choose another --out",
            out_dir.display()
        );
    }
    let mut info = first.clone();
    info.range = (0, total);
    info.shard = None;
    records::write_info(out_dir, &info)?;
    let mut writer = BufWriter::new(std::fs::File::create(out_dir.join(records::GAMES_FILE))?);
    let mut standings = info.empty_standings();
    let mut elapsed = 0.0;
    for (d, part) in &parts {
        let recs: Vec<GameRecord<serde_json::Value>> =
            records::read_checked_records(d, part, false)?;
        let want = part.range.1 - part.range.0;
        if recs.len() as u64 != want {
            bail!(
                "{} has {} of its {want} games: finish it with --resume before merging",
                d.display(),
                recs.len()
            );
        }
        for r in &recs {
            standings.add(r);
        }
        // Copy the lines as written, so the merged file is byte for byte one run's.
        let text = std::fs::read_to_string(d.join(records::GAMES_FILE))?;
        for line in text.lines().take(recs.len()) {
            writer.write_all(line.as_bytes())?;
            writer.write_all(b"\n")?;
        }
        if let Ok(text) = std::fs::read_to_string(d.join(records::SUMMARY_FILE)) {
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) {
                elapsed += v["elapsed_seconds"].as_f64().unwrap_or(0.0);
            }
        }
    }
    writer.flush()?;
    merge_logs(&parts, out_dir)?;
    let run = RunSummary {
        standings,
        played: 0..total,
        complete: true,
        elapsed: Duration::from_secs_f64(elapsed),
        stops: Vec::new(),
        replays: Default::default(),
    };
    Summary::new(
        &info.game,
        &info.rules,
        info.seed,
        &info.schedule,
        info.scoring,
        0,
        &run,
    )
    .write(&out_dir.join(records::SUMMARY_FILE))?;
    let columns = if info.scoring == Scoring::ZeroSum {
        term::Columns::ZeroSum
    } else {
        term::Columns::Points
    };
    out!("{}", term::leaderboard(&run.standings, columns));
    out!(
        "merged {} shard{} into {} ({total} games, seed {})",
        parts.len(),
        if parts.len() == 1 { "" } else { "s" },
        out_dir.display(),
        info.seed
    );
    Ok(())
}
