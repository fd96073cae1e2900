//! A run's settings as the command line and tournament files give them: its seed,
//! its threads, its schedule, the sandbox mode, where its summary goes. Names no
//! game and no command.

use anyhow::{Context, Result};
use std::path::Path;

/// 64 bits from the operating system's random source, for runs without `--seed`:
/// a bot cannot guess it, so it cannot rebuild the deals (docs/fair-play.md).
pub fn fresh_seed() -> u64 {
    let mut bytes = [0u8; 8];
    if let Err(e) = getrandom::fill(&mut bytes) {
        // No entropy source at all (a broken container): the clock is the best left,
        // and the user must know the seed is guessable.
        eprintln!("warning: the system's random source failed ({e}); the seed comes from the clock and can be guessed");
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        return koth_arena::rng::derive_seed(t.as_nanos() as u64, std::process::id() as u64);
    }
    u64::from_le_bytes(bytes)
}

/// Says, once, that a hand-picked seed is guessable by the external programs of a
/// hidden-information game (the default seed is not).
pub fn note_chosen_seed(seed: u64) {
    eprintln!(
        "note: seed {seed} was chosen by hand: a bot that guesses it can rebuild every deal. \
For a contest, leave the seed out (koth draws 64 random bits) and publish it after the run."
    );
}

/// Worker threads: `requested`, or every core.
pub fn threads(requested: Option<usize>) -> usize {
    requested.filter(|&t| t > 0).unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    })
}

/// `--sandbox auto|off|required`, for clap.
pub fn parse_sandbox(s: &str) -> Result<koth_process::Sandbox, String> {
    koth_entrants::parse_sandbox(s)
        .ok_or_else(|| format!("unknown sandbox mode {s:?}: use auto, off or required"))
}

/// Fails now, before any game, if the summary could not be written at the end.
pub fn check_summary_path(path: Option<&Path>) -> Result<()> {
    let Some(path) = path else { return Ok(()) };
    let existed = path.exists();
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| {
            format!(
                "cannot write the summary to {}\n  fix: choose a --summary-json path in a folder that exists and is writable",
                path.display()
            )
        })?;
    if !existed {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}

/// `--schedule` of the Coup runners.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ScheduleKind {
    /// Rounds in which every bot plays the same number of games, once in every seat
    /// (games rounded up to whole rounds).
    #[default]
    Balanced,
    /// Each game seats a random draw of bots in random order (seed 003's loop mode).
    Random,
}

/// The schedule of `games` games at tables of `table` among `entrants` bots:
/// balanced schedules play whole rounds (`entrants` games; with duplicate play,
/// `entrants` deals of `table` games).
pub fn table_schedule(
    kind: ScheduleKind,
    games: u64,
    table: usize,
    entrants: usize,
    duplicate: bool,
) -> koth_arena::Schedule {
    let k = if duplicate { table.max(1) as u64 } else { 1 };
    match kind {
        ScheduleKind::Balanced => {
            let n = entrants.max(1) as u64;
            // Deals are the schedule's games under duplicate play.
            let deals = games.div_ceil(k).div_ceil(n) * n;
            koth_arena::Schedule::Balanced {
                games: deals * k,
                table,
            }
        }
        ScheduleKind::Random => koth_arena::Schedule::RandomTables { games, table },
    }
}

/// A missing FILE argument that looks like a misspelt subcommand (`koth samurai
/// bot`): the error says which command was meant.
pub fn check_not_a_typo(
    file: &std::path::Path,
    command: &str,
    subcommands: &[&str],
) -> anyhow::Result<()> {
    let word = file.to_string_lossy();
    if file.exists() || word.contains(['/', '.']) {
        return Ok(());
    }
    let near = subcommands
        .iter()
        .filter(|s| strsim::levenshtein(s, &word) <= 2 || s.starts_with(word.as_ref()))
        .min_by_key(|s| strsim::levenshtein(s, &word));
    match near {
        Some(s) => anyhow::bail!(
            "{word}: no such file, and not a subcommand\n  fix: did you mean `{command} {s}`?"
        ),
        None => Ok(()),
    }
}

/// A count that must be at least 1 (`--games`, `--threads`, `--matches`...), for clap.
pub fn at_least_one<T>(s: &str) -> Result<T, String>
where
    T: std::str::FromStr + PartialEq + From<u8>,
    T::Err: std::fmt::Display,
{
    match s.parse::<T>() {
        Ok(n) if n == T::from(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}
