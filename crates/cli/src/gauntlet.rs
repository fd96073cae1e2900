//! `koth gauntlet`: a candidate plays a pool until a sequential test decides.
//! Any game, at any table size: a game's score for the test is the share of
//! its opponents the candidate finished above.

use crate::front::{self, Front, RulesOf, Visit};
use crate::runs::{execute_part, Describe, RunOpts};
use crate::settings;
use crate::term;
use anyhow::{anyhow, bail, Result};
use clap::Args;
use koth_arena::sprt::{Scores, Sprt, Verdict};
use koth_arena::{Entrant, Game, GameRecord, Observer, RecordLevel, Schedule, Tournament};
use koth_entrants::{BotEntry, BotKinds, Setup, Timeouts};
use std::sync::atomic::Ordering;

/// Options of `koth gauntlet`.
#[derive(Args, Debug)]
pub struct GauntletArgs {
    /// The bot under test: a built-in name, NAME=builtin:X, 'NAME=cmd:python3 bot.py'
    /// (JSON lines), or another kind of the game ('NAME=samurai-cli:./old',
    /// 'NAME=coup-cli:bots/x').
    #[arg(long)]
    candidate: String,
    /// Its opponents, comma-separated, in the same forms.
    #[arg(long, value_delimiter = ',', required = true)]
    pool: Vec<String>,
    /// The game (`coup`, `samurai` or `ppcg`).
    #[arg(long, default_value = "coup", value_parser = clap::builder::PossibleValuesParser::new(front::WORDS))]
    game: String,
    /// The rules preset (Coup: standard, ppcg, coupcli, coupcrate).
    #[arg(long)]
    rules: Option<String>,
    /// Seats at a table: the candidate and this many less one drawn from the
    /// pool each game (Coup: 2 to 6; the duels: 2).
    #[arg(long, default_value_t = 2)]
    table_size: usize,
    /// H0: the candidate is at most this many Elo better.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    elo0: f64,
    /// H1: the candidate is at least this many Elo better.
    #[arg(long, default_value_t = 20.0, allow_negative_numbers = true)]
    elo1: f64,
    /// False-positive rate (accepting H1 when H0 holds).
    #[arg(long, default_value_t = 0.05)]
    alpha: f64,
    /// False-negative rate.
    #[arg(long, default_value_t = 0.05)]
    beta: f64,
    /// Stop undecided after this many games.
    #[arg(long, default_value_t = 50_000, value_parser = settings::at_least_one::<u64>)]
    max_games: u64,
    /// Games between two looks at the test.
    #[arg(long, default_value_t = 200, value_parser = settings::at_least_one::<u64>)]
    batch: u64,
    /// Master seed (random if left out).
    #[arg(long)]
    seed: Option<u64>,
    /// Worker threads (default: every core).
    #[arg(long, value_parser = settings::at_least_one::<usize>)]
    threads: Option<usize>,
    /// The run's folder (--out DIR) keeps every game for `koth replay` and
    /// `koth report`; --resume continues an interrupted gauntlet where it stopped.
    #[command(flatten)]
    run: RunOpts,
}

/// The bots `specs` name, with unique names.
fn bot_entries<F: Front>(specs: &[String]) -> Result<Vec<BotEntry>> {
    let mut bots = Vec::new();
    for s in specs {
        let mut b = koth_entrants::parse_bot(F::Game::KIND, s)?;
        crate::play::bare::<F>(&mut b, s);
        bots.push(b);
    }
    let names = koth_arena::dedup_names(&bots.iter().map(|b| b.name.clone()).collect::<Vec<_>>());
    for (b, n) in bots.iter_mut().zip(names) {
        b.name = n;
    }
    Ok(bots)
}

/// Runs `koth gauntlet`.
pub fn run(a: GauntletArgs) -> Result<()> {
    if a.elo1.partial_cmp(&a.elo0) != Some(std::cmp::Ordering::Greater) {
        bail!("--elo1 ({}) must be above --elo0 ({})", a.elo1, a.elo0);
    }
    let rate_ok = |r: f64| r > 0.0 && r < 0.5;
    if !rate_ok(a.alpha) || !rate_ok(a.beta) {
        bail!("--alpha and --beta are error rates between 0 and 0.5");
    }
    let game = a.game.clone();
    front::visit_word(&game, Gauntlet(&a)).unwrap_or_else(|| Err(anyhow!("no game {game:?}")))
}

/// A gauntlet of the game that `--game` names.
struct Gauntlet<'a>(&'a GauntletArgs);

impl Visit for Gauntlet<'_> {
    type Out = Result<()>;
    fn visit<F: Front>(self) -> Result<()> {
        let a = self.0;
        let mut specs = vec![a.candidate.clone()];
        specs.extend(a.pool.iter().cloned());
        let test = Sprt {
            elo0: a.elo0,
            elo1: a.elo1,
            alpha: a.alpha,
            beta: a.beta,
        };
        let seed = a
            .run
            .resumed_seed(a.seed)?
            .or(a.seed)
            .unwrap_or_else(settings::fresh_seed);
        let threads = settings::threads(a.threads);
        let copies = koth_process::Workspace::new(None)?;
        let setup = Setup {
            timeouts: Timeouts {
                decision: std::time::Duration::from_millis(F::TIMEOUT_MS),
                ..Timeouts::default()
            },
            copies: Some(copies),
            ..Setup::default()
        };
        let bots = bot_entries::<F>(&specs)?;
        // Every program starts and greets before the first game: a gauntlet of
        // forfeits is no verdict.
        koth_entrants::preflight::<<F::Game as BotKinds>::Wire>(&bots, &setup)?;
        let options = crate::hill::options_for::<F>(a.rules.as_deref())?;
        let (rules, rules_name) = F::rules(&options, None)?;
        let seats = <F::Game as Game>::seats_allowed(&rules);
        if !seats.contains(&a.table_size) {
            bail!(
                "--table-size {}: {} seats {} to {} players",
                a.table_size,
                F::WORD,
                seats.start(),
                seats.end()
            );
        }
        if bots.len() < a.table_size {
            bail!(
                "--table-size {} needs {} bots in the pool, not {}\n  fix: name more with --pool (a bot may be named more than once: --pool honest,honest,honest)",
                a.table_size,
                a.table_size - 1,
                bots.len() - 1
            );
        }
        let entrants = koth_entrants::entrants::<F::Game>(&bots, &setup)?;
        gauntlet::<F>(entrants, rules, &rules_name, test, a, seed, threads)
    }
}

/// Each game's score for the test, of entrant 0 (the candidate).
#[derive(Default)]
struct Tally(Scores);

impl<C> Observer<C> for Tally {
    fn on_record(&mut self, r: &GameRecord<C>) {
        self.0.add(game_score(&r.seats, &r.scores));
    }
}

/// The candidate's (entrant 0's) score at a game: the share of the other
/// seats it finished above.
fn game_score(seats: &[usize], scores: &[f64]) -> f64 {
    let me = seats.iter().position(|&e| e == 0).unwrap_or(0);
    Scores::of_game(scores, me)
}

fn gauntlet<F: Front>(
    entrants: Vec<Entrant<F::Game>>,
    mut rules: RulesOf<F>,
    rules_name: &str,
    test: Sprt,
    a: &GauntletArgs,
    seed: u64,
    threads: usize,
) -> Result<()> {
    let schedule = Schedule::Gauntlet {
        games: a.max_games,
        table: a.table_size,
    };
    let names: Vec<String> = entrants.iter().map(|e| e.name.clone()).collect();
    let out = a
        .run
        .out
        .clone()
        .or_else(|| F::default_out(None, false, seed));
    F::ready(&mut rules, &names, &schedule, seed, out.as_deref())?;
    let mut t = Tournament {
        rules,
        entrants,
        schedule,
        scoring: F::SCORING,
        seed,
        threads,
        // Each game's scores reach the test's tally.
        records: RecordLevel::Results,
        duplicate: false,
    };
    let names = t.names();
    let (lo, hi) = test.bounds();
    let seats = if a.table_size == 2 {
        "two seats a game".to_string()
    } else {
        format!(
            "{} seats a game, {} rules: a game scores the share of its opponents it finished above",
            a.table_size, rules_name
        )
    };
    eprintln!(
        "gauntlet: {} against {} ({seats}), SPRT elo0 {} elo1 {} alpha {} beta {}, bounds [{lo:.2}, {hi:.2}], seed {seed}",
        names[0],
        names[1..].join(", "),
        a.elo0,
        a.elo1,
        a.alpha,
        a.beta
    );
    let mut tally = Tally::default();
    let mut wdl = (0u64, 0u64, 0u64);
    // A resumed gauntlet counts the games its folder holds first.
    if let Some(dir) = a.run.out.as_deref().filter(|_| a.run.resume) {
        let info = koth_arena::records::read_info(dir)?;
        let done: Vec<GameRecord<serde_json::Value>> =
            koth_arena::records::read_checked_records(dir, &info, true)?;
        for r in &done {
            tally.0.add(game_score(&r.seats, &r.scores));
        }
    }
    let mut done = 0;
    let mut verdict = Verdict::Undecided;
    let stop = term::ctrl_c_flag();
    let specs: Vec<serde_json::Value> = std::iter::once(&a.candidate)
        .chain(&a.pool)
        .map(|s| serde_json::json!({ "spec": s }))
        .collect();
    let game = F::Game::NAME;
    let mut opts = a.run.clone();
    let mut first = true;
    while done < a.max_games && verdict == Verdict::Undecided && !stop.load(Ordering::Relaxed) {
        let describe = Describe {
            game,
            runner: "gauntlet",
            specs: specs.clone(),
        };
        // Recorded runs are played a batch at a time into one folder, each batch
        // resuming the last; the standings returned hold every game so far.
        let part = if opts.out.is_some() {
            let part = execute_part(
                &mut t,
                describe,
                &opts,
                &mut tally,
                Some(a.batch.max(1)),
                first,
            )?;
            opts.resume = true;
            part
        } else {
            let end = (done + a.batch.max(1)).min(a.max_games);
            t.run_range(done..end, &mut tally, stop)
        };
        first = false;
        if part.played.end == done {
            break;
        }
        done = part.played.end;
        let c = &part.standings.entrants[0];
        wdl = if opts.out.is_some() {
            (c.wins, c.draws, c.losses)
        } else {
            (wdl.0 + c.wins, wdl.1 + c.draws, wdl.2 + c.losses)
        };
        verdict = test.verdict_of(&tally.0);
        eprintln!(
            "  {done:>7} games: +{} ={} -{}  LLR {:+.2}",
            wdl.0,
            wdl.1,
            wdl.2,
            test.llr_of(&tally.0)
        );
    }
    let (elo, elo_lo, elo_hi) = Sprt::elo_of(&tally.0);
    let llr = test.llr_of(&tally.0);
    let (score, _) = tally.0.mean_var();
    out!(
        "{} after {done} games: +{} ={} -{} ({} {:.1}%), Elo {elo:+.1} [{elo_lo:+.1}, {elo_hi:+.1}], LLR {llr:+.2} in [{lo:.2}, {hi:.2}]",
        names[0],
        wdl.0,
        wdl.1,
        wdl.2,
        if a.table_size == 2 { "score" } else { "opponents beaten" },
        100.0 * score
    );
    match verdict {
        Verdict::Better => out!(
            "verdict: better: H1 (at least {:+} Elo) accepted; the chance this is a false positive is at most {:.0}%",
            a.elo1,
            100.0 * a.alpha
        ),
        Verdict::NotBetter => out!(
            "verdict: not better: H0 (at most {:+} Elo) accepted; the chance a real {:+} Elo gain was missed is at most {:.0}%",
            a.elo0,
            a.elo1,
            100.0 * a.beta
        ),
        Verdict::Undecided => out!("verdict: undecided: the game limit ({}) was reached first; raise --max-games", a.max_games),
    }
    if let Some(dir) = &opts.out {
        let kept = serde_json::json!({
            "candidate": names[0], "pool": &names[1..], "table_size": a.table_size,
            "rules": rules_name, "test": test, "bounds": [lo, hi], "games": done,
            "wins": wdl.0, "draws": wdl.1, "losses": wdl.2, "score": score,
            "llr": llr, "elo": [elo, elo_lo, elo_hi], "verdict": verdict,
            "max_games": a.max_games,
        });
        let path = dir.join(crate::report::GAUNTLET_FILE);
        std::fs::write(&path, serde_json::to_string_pretty(&kept)?)
            .map_err(|e| anyhow!("cannot write {}: {e}", path.display()))?;
        out!(
            "run recorded in {} (koth report {} draws it, with the verdict)",
            dir.display(),
            dir.display()
        );
    }
    Ok(())
}
