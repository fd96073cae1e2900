//! `koth merge` and `koth replay`: reading runs written with `--out`.

use crate::output::{self, Columns, Summary};
use anyhow::{bail, Context, Result};
use koth_arena::records::{self, RunInfo};
use koth_arena::{GameRecord, RunSummary, Scoring};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

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
    let run = RunSummary {
        standings,
        played: 0..total,
        complete: true,
        elapsed: Duration::from_secs_f64(elapsed),
        stops: Vec::new(),
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
        Columns::ZeroSum
    } else {
        Columns::Points
    };
    out!("{}", output::leaderboard(&run.standings, columns));
    out!(
        "merged {} shard{} into {} ({total} games, seed {})",
        parts.len(),
        if parts.len() == 1 { "" } else { "s" },
        out_dir.display(),
        info.seed
    );
    Ok(())
}

/// Finds game `k`'s record in a run.
fn find_record(dir: &Path, k: u64) -> Result<serde_json::Value> {
    let path = dir.join(records::GAMES_FILE);
    let f =
        std::fs::File::open(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let info = records::read_info(dir)?;
    for (number, line) in BufReader::new(f).lines().enumerate() {
        let line = line?;
        let v: serde_json::Value = match serde_json::from_str(&line) {
            Ok(v) => v,
            Err(_) => continue, // a line cut short by a crash
        };
        if v["index"].as_u64() == Some(k) {
            let checked = serde_json::from_value::<GameRecord<serde_json::Value>>(v.clone())
                .map_err(|e| e.to_string())
                .and_then(|r| records::check_record(&info, &r));
            if let Err(e) = checked {
                bail!(
                    "{}:{}: {e}: the file was damaged or edited",
                    path.display(),
                    number + 1
                );
            }
            return Ok(v);
        }
    }
    bail!("{} holds no game {k}", dir.display())
}

fn unfinished() -> anyhow::Error {
    anyhow::anyhow!("the recorded choices do not finish the game: the record was damaged or edited")
}

/// Shows game `k` of a run step by step, as play mode narrates.
pub fn replay(dir: &Path, k: u64) -> Result<()> {
    let info =
        records::read_info(dir).with_context(|| format!("{} is not a koth run", dir.display()))?;
    let raw = find_record(dir, k)?;
    let seats: Vec<usize> = serde_json::from_value(raw["seats"].clone())?;
    let names: Vec<String> = seats
        .iter()
        .map(|&e| {
            info.entrants
                .get(e)
                .cloned()
                .unwrap_or_else(|| format!("entrant {e}"))
        })
        .collect();
    out!(
        "{} game {k} of {} (seed {}): {}",
        info.game,
        dir.display(),
        raw["seed"],
        names.join(", ")
    );
    match info.game.as_str() {
        "coup" => {
            let rules: koth_coup::Rules = serde_json::from_value(info.rules.clone())?;
            let rec: GameRecord<koth_coup::Choice> = serde_json::from_value(raw)?;
            let game =
                crate::coup_cmd::narrate_record::<koth_coup::State>(&rules, &rec, &names, |g| g)?;
            let o = game.outcome().ok_or_else(unfinished)?;
            let winners: Vec<&str> = o.winners.iter().map(|s| names[s].as_str()).collect();
            out!(
                "\nWinner{}: {} after {} (as recorded)",
                if winners.len() == 1 { "" } else { "s" },
                winners.join(", "),
                crate::coup_cmd::turns_text(&game)
            );
        }
        "coup-ppcg" => {
            let rules = koth_ppcg::PpcgRules::from_json(&info.rules)
                .map_err(|e| anyhow::anyhow!("run.json: {e}"))?;
            let rec: GameRecord<koth_coup::Choice> = serde_json::from_value(raw)?;
            let game = crate::coup_cmd::narrate_record::<koth_ppcg::PpcgGame>(
                &rules,
                &rec,
                &names,
                |g| g.state(),
            )?;
            let o = koth_arena::Game::outcome(&game).ok_or_else(unfinished)?;
            let winners: Vec<&str> = o.winners.iter().map(|s| names[s].as_str()).collect();
            if winners.is_empty() {
                out!("\nNo winner: the invocation cap was reached (as recorded)");
            } else {
                out!("\nWinner: {} (as recorded)", winners.join(", "));
            }
        }
        "samurai" => {
            let rules: koth_samurai::Rules = serde_json::from_value(info.rules.clone())?;
            let rec: GameRecord<koth_samurai::Action> = serde_json::from_value(raw)?;
            let pair = [
                names[0].as_str(),
                names.get(1).map(String::as_str).unwrap_or("?"),
            ];
            let mut shown = 0;
            let duel = records::replay::<koth_samurai::State>(&rules, &rec, |g| {
                for t in &g.log()[shown..] {
                    out!("{}", koth_samurai::narrate_turn_with(t, pair));
                }
                shown = g.log().len();
            })
            .map_err(anyhow::Error::msg)?;
            if let Some(end) = koth_samurai::narrate_end(&duel, pair) {
                out!("{end} (as recorded)");
            }
        }
        other => bail!("replays of {other} runs are not supported yet"),
    }
    for f in rec_forfeits(dir, k)? {
        out!("forfeit: {f}");
    }
    Ok(())
}

fn rec_forfeits(dir: &Path, k: u64) -> Result<Vec<String>> {
    let raw = find_record(dir, k)?;
    let info = records::read_info(dir)?;
    let mut out = Vec::new();
    for f in raw["forfeits"].as_array().into_iter().flatten() {
        let e = f["entrant"].as_u64().unwrap_or(0) as usize;
        let name = info.entrants.get(e).cloned().unwrap_or_default();
        out.push(format!(
            "{name}: {}",
            f["fault"]["reason"].as_str().unwrap_or("?")
        ));
    }
    Ok(out)
}
