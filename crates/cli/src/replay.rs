//! `koth replay DIR --game K`: one recorded game shown step by step, as `play`
//! narrates it. Any game.

use crate::front::{self, ChoiceOf, Front, Visit};
use anyhow::{anyhow, bail, Context, Result};
use koth_arena::records;
use koth_arena::{Game, GameRecord};
use std::io::{BufRead, BufReader};
use std::path::Path;

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

/// Shows game `k` of the run in `dir` step by step, as play mode narrates.
pub fn show(dir: &Path, k: u64) -> Result<()> {
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
    let told = Told {
        rules: &info.rules,
        raw,
        names,
        log: records::read_logs(dir).remove(&k),
    };
    front::visit(&info.game, told).unwrap_or_else(|| {
        Err(anyhow!(
            "replays of {} runs are not supported yet",
            info.game
        ))
    })?;
    for f in rec_forfeits(dir, k)? {
        out!("forfeit: {f}");
    }
    Ok(())
}

/// A recorded game to tell.
struct Told<'a> {
    rules: &'a serde_json::Value,
    raw: serde_json::Value,
    names: Vec<String>,
    /// What the programs logged in the game, at their decisions.
    log: Option<records::GameLog>,
}

impl Visit for Told<'_> {
    type Out = Result<()>;
    fn visit<F: Front>(self) -> Result<()> {
        let rules = F::recorded_rules(self.rules)?;
        let mut rec: GameRecord<ChoiceOf<F>> = serde_json::from_value(self.raw)?;
        rec.log = self.log.map(Box::new);
        if rec.seats.len() != self.names.len() || self.names.is_empty() {
            bail!("the record seats no one: the file was damaged or edited");
        }
        // The narrator shows the game and the bots' lines where they were
        // written; both need it, one at a time.
        let narrator = std::cell::RefCell::new(F::narrator(&self.names, false, None));
        let names = &self.names;
        let game = records::replay_logged::<F::Game>(
            &rules,
            &rec,
            |g| narrator.borrow_mut().show(g),
            |_, i, _| {
                let Some(log) = rec.log.as_deref() else {
                    return;
                };
                for n in log.lines_at(i) {
                    narrator.borrow_mut().before_log();
                    let name = names.get(n.seat).map_or("?", String::as_str);
                    for line in n.text.lines() {
                        crate::term::show_stderr_line(name, &koth_process::printable(line));
                    }
                }
            },
        )
        .map_err(anyhow::Error::msg)?;
        let mut narrator = narrator.into_inner();
        if game.outcome().is_none() {
            return Err(unfinished());
        }
        narrator.end(&game, true);
        Ok(())
    }
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
