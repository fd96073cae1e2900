//! `koth gauntlet`: a candidate plays a pool until a sequential test decides.
//! Any game.

use crate::front::{self, Front, RulesOf, Visit};
use crate::runs::{execute_part, Describe, RunOpts};
use crate::settings;
use crate::term;
use anyhow::{anyhow, bail, Result};
use clap::Args;
use koth_arena::sprt::{Sprt, Verdict};
use koth_arena::{Entrant, Game, Quiet, RecordLevel, Schedule, Standings, Tournament};
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
        let entrants = koth_entrants::entrants::<F::Game>(&bots, &setup)?;
        let (rules, _) = F::rules(&F::Options::default(), None)?;
        gauntlet::<F>(entrants, rules, test, a, seed, threads)
    }
}

fn gauntlet<F: Front>(
    entrants: Vec<Entrant<F::Game>>,
    mut rules: RulesOf<F>,
    test: Sprt,
    a: &GauntletArgs,
    seed: u64,
    threads: usize,
) -> Result<()> {
    let schedule = Schedule::Gauntlet {
        games: a.max_games,
        table: 2,
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
        records: RecordLevel::None,
        duplicate: false,
    };
    let names = t.names();
    let (lo, hi) = test.bounds();
    eprintln!(
        "gauntlet: {} against {} (two seats a game), SPRT elo0 {} elo1 {} alpha {} beta {}, bounds [{lo:.2}, {hi:.2}], seed {seed}",
        names[0],
        names[1..].join(", "),
        a.elo0,
        a.elo1,
        a.alpha,
        a.beta
    );
    let mut standings = Standings::new(&names);
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
                &mut Quiet,
                Some(a.batch.max(1)),
                first,
            )?;
            opts.resume = true;
            standings = part.standings.clone();
            part
        } else {
            let end = (done + a.batch.max(1)).min(a.max_games);
            let part = t.run_range(done..end, &mut Quiet, stop);
            standings.merge(&part.standings);
            part
        };
        first = false;
        if part.played.end == done {
            break;
        }
        done = part.played.end;
        let c = &standings.entrants[0];
        verdict = test.verdict(c.wins, c.draws, c.losses);
        eprintln!(
            "  {done:>7} games: +{} ={} -{}  LLR {:+.2}",
            c.wins,
            c.draws,
            c.losses,
            test.llr(c.wins, c.draws, c.losses)
        );
    }
    let c = &standings.entrants[0];
    let (elo, elo_lo, elo_hi) = Sprt::elo_estimate(c.wins, c.draws, c.losses);
    let llr = test.llr(c.wins, c.draws, c.losses);
    out!(
        "{} after {done} games: +{} ={} -{} (score {:.1}%), Elo {elo:+.1} [{elo_lo:+.1}, {elo_hi:+.1}], LLR {llr:+.2} in [{lo:.2}, {hi:.2}]",
        names[0],
        c.wins,
        c.draws,
        c.losses,
        100.0 * (c.wins as f64 + c.draws as f64 / 2.0) / done.max(1) as f64
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
    Ok(())
}
