//! What every runner leaves at the end: the leaderboard on the terminal, the run
//! line, and the JSON summary of the standings (`--summary-json`, a run folder's
//! summary.json).

use crate::term;
use anyhow::{Context, Result};
use koth_arena::RunSummary;
use serde::Serialize;
use std::path::Path;

/// The JSON summary of a run.
#[derive(Serialize)]
pub struct Summary<'a, R: Serialize> {
    /// The game's name.
    pub game: &'a str,
    /// The rule options.
    pub rules: &'a R,
    /// Master seed.
    pub seed: u64,
    /// The schedule.
    pub schedule: &'a koth_arena::Schedule,
    /// The scoring.
    pub scoring: koth_arena::Scoring,
    /// Duplicate play: intervals are taken over deals.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub duplicate: bool,
    /// Worker threads.
    pub threads: usize,
    /// Games played.
    pub games: u64,
    /// Whether every scheduled game was played.
    pub complete: bool,
    /// Wall time in seconds.
    pub elapsed_seconds: f64,
    /// Games per second.
    pub games_per_second: f64,
    /// What the leaderboard is ranked by: `mean` when every bot met the same
    /// field (the strengths are then the means), `strength` when they did not.
    pub ranked_by: &'static str,
    /// Leaderboard, best first.
    pub standings: Vec<term::Row>,
    /// `head_to_head[a][b]`: a's mean score in games with b (null when they never met).
    pub head_to_head: Vec<Vec<Option<f64>>>,
    /// Entrant names, in the order of `head_to_head`.
    pub entrants: Vec<String>,
    /// Games that ended at the turn cap, every survivor a winner.
    pub turn_capped: u64,
    /// Games lost with a process that failed in another game, played again
    /// (or left for a resume) and charged to no bot.
    pub replayed_lost: u64,
    /// Games put off while the machine could not start a process.
    pub replayed_machine: u64,
}

impl<'a, R: Serialize> Summary<'a, R> {
    /// The summary of a finished run.
    pub fn new(
        game: &'a str,
        rules: &'a R,
        seed: u64,
        schedule: &'a koth_arena::Schedule,
        scoring: koth_arena::Scoring,
        threads: usize,
        run: &RunSummary,
    ) -> Self {
        let s = &run.standings;
        let n = s.entrants.len();
        let head_to_head = (0..n)
            .map(|a| {
                (0..n)
                    .map(|b| (s.pair[a * n + b].n > 0).then(|| s.pair[a * n + b].mean()))
                    .collect()
            })
            .collect();
        Summary {
            game,
            rules,
            seed,
            schedule,
            scoring,
            duplicate: s.deals.is_some(),
            threads,
            games: s.games,
            complete: run.complete,
            elapsed_seconds: run.elapsed.as_secs_f64(),
            games_per_second: s.games as f64 / run.elapsed.as_secs_f64().max(1e-9),
            ranked_by: if s.balanced() { "mean" } else { "strength" },
            standings: term::rows(s),
            head_to_head,
            entrants: s.entrants.iter().map(|e| e.name.clone()).collect(),
            turn_capped: s.turn_capped,
            replayed_lost: run.replays.lost,
            replayed_machine: run.replays.machine,
        }
    }

    /// Writes the summary as pretty JSON.
    pub fn write(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self)?;
        std::fs::write(path, text + "\n")
            .with_context(|| format!("cannot write the summary to {}", path.display()))
    }
}

/// What every runner prints at the end: the leaderboard, the run line, where the
/// JSON summary and the run folder went.
pub struct Finish<'a, R: Serialize> {
    /// The game's name.
    pub game: &'a str,
    /// The rule options.
    pub rules: &'a R,
    /// The schedule.
    pub schedule: &'a koth_arena::Schedule,
    /// The scoring.
    pub scoring: koth_arena::Scoring,
    /// Master seed.
    pub seed: u64,
    /// Worker threads.
    pub threads: usize,
    /// `--summary-json`.
    pub summary_json: Option<&'a Path>,
    /// `--out`.
    pub out_dir: Option<&'a Path>,
}

impl<R: Serialize> Finish<'_, R> {
    /// Prints the standings of `run` and writes the JSON summary.
    pub fn print(&self, run: &RunSummary) -> Result<()> {
        let columns = if self.scoring == koth_arena::Scoring::ZeroSum {
            term::Columns::ZeroSum
        } else {
            term::Columns::Points
        };
        out!("{}", term::leaderboard(&run.standings, columns));
        if let Some(line) = term::turn_cap_line(&run.standings) {
            out!("{line}");
        }
        out!("{}", term::run_line(run, self.seed, self.threads));
        if let Some(path) = self.summary_json {
            Summary::new(
                self.game,
                self.rules,
                self.seed,
                self.schedule,
                self.scoring,
                self.threads,
                run,
            )
            .write(path)?;
            out!("summary written to {}", path.display());
        }
        if let Some(d) = self.out_dir {
            let d = d.display();
            out!("run recorded in {d} (koth replay {d} --game K; koth report {d})");
        }
        if !run.complete && term::SIGNALLED.load(std::sync::atomic::Ordering::SeqCst) {
            match self.out_dir {
                Some(_) => out!("interrupted: continue with\n  {}", term::resume_command()),
                None => out!("interrupted: give --out DIR next time to be able to continue a run with --resume"),
            }
        }
        Ok(())
    }
}
