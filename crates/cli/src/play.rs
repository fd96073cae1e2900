//! `koth <game> play`: one game narrated as it is played, with each program's
//! stderr shown as it logs, and a seat for the person at the terminal. Any game.

use crate::front::Front;
use crate::settings;
use crate::term::{self, paint};
use anyhow::{anyhow, bail, Result};
use clap::Args;
use koth_arena::rng::{derive, Stream};
use koth_arena::{Agent, ChoiceCode, Game, GameSeeds, Random, Rng};
use koth_entrants::{BotEntry, BotKinds, BotSource, Protocol, Setup, Timeouts, TournamentFile};
use owo_colors::Style;
use std::path::PathBuf;
use std::time::Duration;

/// Options of `koth <game> play`.
#[derive(Args, Debug)]
pub struct PlayArgs<F: Front> {
    /// The seats, in order: a built-in's name, builtin:NAME, a command ('python3
    /// bots/b.py', run in the folder of its file; for the two-player challenge a
    /// program of it), cmd:COMMAND (JSON lines), a kind of the game
    /// ('samurai-cli:python3 old.py', 'coup-cli:bots/x', 'ppcg:python3 old.py'),
    /// NAME=KIND, NAME=human (you, at this terminal, shown only your own view), or
    /// the name of a bot in --file.
    pub seats: Vec<String>,
    /// Built-in bots at the table, seated before the others, comma-separated
    /// (default for Coup: honest,counter,bluffer,economist when no seat is named).
    #[arg(long, value_delimiter = ',')]
    pub bots: Option<Vec<String>>,
    /// A seat of any kind, seated after --bots, as a SEAT: NAME=builtin:honest,
    /// 'NAME=cmd:python3 bots/my_bot.py', NAME=human, or a bot of --file. Repeatable.
    #[arg(long = "bot", value_name = "NAME=KIND")]
    pub bot: Vec<String>,
    /// A tournament file whose bots the seats may name (their folders, limits and
    /// time limit); with no seat named, its bots take the seats. For a game with
    /// program lists, a list whose programs the seats may name.
    #[arg(long, value_name = "FILE", alias = "list")]
    pub file: Option<PathBuf>,
    #[command(flatten)]
    pub options: F::Options,
    /// Time limit per decision for programs, in milliseconds (default 1000, or the
    /// file's; 10000 a launch for the two-player challenge).
    #[arg(long)]
    pub timeout_ms: Option<u64>,
    /// Seed of the deal and the bots' randomness (random if left out).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Isolation of the programs: `auto` (their own namespaces, or refuse to start
    /// where this machine has none), `off` (trusted programs: no sandbox).
    #[arg(long, value_name = "MODE", value_parser = crate::settings::parse_sandbox)]
    pub sandbox: Option<koth_process::Sandbox>,
    /// Hide the players' hidden cards (show only what a player at the table sees).
    #[arg(long)]
    pub hide_cards: bool,
    /// Shuffle the seats instead of seating the bots in the order given.
    #[arg(long)]
    pub shuffle_seats: bool,
}

/// A seat: its bot, or the person at this terminal.
struct Seat {
    entry: BotEntry,
    human: bool,
}

/// The seat an argument names: a person, a bot of the file, or any bot.
fn seat_of<F: Front>(arg: &str, known: &[BotEntry], file: bool) -> Result<Seat> {
    if let Some((name, "human")) = arg.split_once('=') {
        let name = name.trim();
        if !name.is_empty() {
            let entry = BotEntry::new(name, BotSource::Builtin("human".into()));
            return Ok(Seat { entry, human: true });
        }
    }
    if let Some(b) = known.iter().find(|b| b.name == arg) {
        return Ok(Seat {
            entry: b.clone(),
            human: false,
        });
    }
    if file && !arg.contains(['=', ' ', '/', '.', ':']) && !F::Game::KIND.has_builtin(arg) {
        let names: Vec<&str> = known.iter().map(|b| b.name.as_str()).collect();
        bail!(
            "--bot {arg:?}: the file has no bot of that name\n  fix: name one of {}",
            names.join(", ")
        );
    }
    let mut entry = koth_entrants::parse_bot(F::Game::KIND, arg)?;
    bare::<F>(&mut entry, arg);
    Ok(Seat {
        entry,
        human: false,
    })
}

/// A program named by its bare command speaks the game's own protocol.
pub fn bare<F: Front>(entry: &mut BotEntry, arg: &str) {
    if let BotSource::Program { protocol, .. } = &mut entry.source {
        let kinds = ["cmd:", "coup-cli:", "samurai-cli:", "ppcg:"];
        if *protocol == Protocol::Json && !kinds.iter().any(|k| arg.contains(k)) {
            *protocol = F::BARE;
        }
    }
}

/// Runs `koth <game> play`.
pub fn play<F: Front>(a: PlayArgs<F>) -> Result<()> {
    let list = a
        .file
        .as_deref()
        .zip(F::LIST)
        .filter(|(f, _)| f.extension().is_none_or(|e| e != "toml"));
    let file = match (&a.file, list) {
        (Some(f), None) => Some(TournamentFile::load_for(F::Game::KIND, f)?),
        _ => None,
    };
    let known: Vec<BotEntry> = match (list, &file) {
        (Some((path, protocol)), _) => {
            koth_entrants::load_list(path, protocol, koth_process::Sandbox::Auto)?
        }
        (None, Some(f)) => f.bots.clone(),
        (None, None) => Vec::new(),
    };
    let (rules, rules_name) = F::rules(&a.options, file.as_ref())?;
    let named = a.bots.is_some() || !a.bot.is_empty() || !a.seats.is_empty();
    let builtins: Vec<String> = match &a.bots {
        Some(b) => b.clone(),
        None if !named && file.is_none() => F::PLAY_SEATS.iter().map(|s| s.to_string()).collect(),
        None => Vec::new(),
    };
    for b in &builtins {
        if !F::Game::KIND.has_builtin(b) {
            bail!(
                "unknown bot {b:?}: not a built-in bot\n  fix: {}",
                F::Game::KIND.builtin_fix(b)
            );
        }
    }
    let range = F::Game::seats_allowed(&rules);
    let mut seats: Vec<Seat> = builtins
        .iter()
        .map(|b| Seat {
            entry: BotEntry::new(b.clone(), BotSource::Builtin(b.clone())),
            human: false,
        })
        .collect();
    for arg in &a.seats {
        seats.push(seat_of::<F>(arg, &known, false)?);
    }
    // Built-ins and seats named by position take unique names: honest, honest 2.
    let unique = koth_arena::dedup_names(
        &seats
            .iter()
            .map(|s| s.entry.name.clone())
            .collect::<Vec<_>>(),
    );
    for (s, n) in seats.iter_mut().zip(unique) {
        s.entry.name = n;
    }
    if !named && file.is_some() {
        seats.extend(known.iter().take(*range.end()).map(|b| Seat {
            entry: b.clone(),
            human: false,
        }));
    }
    for arg in &a.bot {
        seats.push(seat_of::<F>(arg, &known, file.is_some())?);
    }
    let humans: Vec<&str> = seats
        .iter()
        .filter(|s| s.human)
        .map(|s| s.entry.name.as_str())
        .collect();
    if humans.len() > 1 {
        bail!("one human seat per terminal, got {}", humans.join(", "));
    }
    for (i, s) in seats.iter().enumerate() {
        if seats[..i].iter().any(|o| o.entry.name == s.entry.name) {
            bail!(
                "two bots are named {:?}: give each its own name",
                s.entry.name
            );
        }
    }
    let n = seats.len();
    if !range.contains(&n) {
        if range.start() == range.end() {
            bail!(
                "a game of {} seats {} players, got {n}\n  fix: name them: koth {} play A B",
                F::WORD,
                range.start(),
                F::WORD
            );
        }
        bail!(
            "the {rules_name} rules seat {} to {} players, got {n} bots",
            range.start(),
            range.end()
        );
    }
    let mut timeouts = Timeouts {
        decision: Duration::from_millis(F::TIMEOUT_MS),
        ..Timeouts::default()
    };
    if let Some(f) = &file {
        timeouts.decision = f.decision_timeout;
        timeouts.startup = f.startup_timeout;
    }
    if let Some(ms) = a.timeout_ms {
        timeouts.decision = Duration::from_millis(ms.max(1));
    }
    if let Some(mode) = a.sandbox {
        for s in &mut seats {
            if let BotSource::Program { sandbox, .. } = &mut s.entry.source {
                *sandbox = mode;
            }
        }
    }
    let programs: Vec<BotEntry> = seats
        .iter()
        .filter(|s| !s.human)
        .map(|s| s.entry.clone())
        .collect();
    for b in &programs {
        if let (Some(cmd), Some(p)) = (b.source.command(), b.protocol()) {
            if !p.is_json() {
                if let Err(e) = cmd.check() {
                    bail!("{} cannot start: {e}", b.name);
                }
            }
        }
    }
    // Programs play from a private copy of their folder, as in a run: in their
    // sandbox at the folder's own path (what they print names their files), or
    // without one, in a scratch copy. None sees the tournament file.
    let copies = koth_process::Workspace::new(None)
        .map_err(|e| anyhow!("cannot make the bots' working folders: {e}"))?;
    let setup = F::setup(
        &a.options,
        Setup {
            timeouts,
            copies: Some(copies),
            hidden: a.file.iter().map(|f| koth_process::absolute(f)).collect(),
            ..Setup::default()
        },
    );
    // Every program starts and greets before the game, or the error names it.
    koth_entrants::preflight::<<F::Game as BotKinds>::Wire>(&programs, &setup)?;
    let seed = a.seed.unwrap_or_else(settings::fresh_seed);
    let seeds = GameSeeds::of(seed, 0);
    let mut order: Vec<usize> = (0..n).collect();
    if a.shuffle_seats {
        Rng::new(derive(seed, Stream::Tables, 0)).shuffle(&mut order);
    }
    let seats: Vec<&Seat> = order.iter().map(|&i| &seats[i]).collect();
    let names: Vec<String> = seats.iter().map(|s| s.entry.name.clone()).collect();
    let mut agents: Vec<Box<dyn Agent<F::Game>>> = Vec::with_capacity(n);
    for s in &seats {
        agents.push(if s.human {
            F::human()
        } else {
            let made = koth_entrants::entrants::<F::Game>(std::slice::from_ref(&s.entry), &setup)?;
            (made[0].factory)(0).map_err(|m| anyhow!("{m}"))?
        });
    }
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    for agent in agents.iter_mut() {
        agent.seat_names(&refs);
    }
    let scratch = koth_process::ScratchDir::new(&format!("{}-play", F::WORD))?;
    let mut game = F::table(&rules, &names, seeds.deal, scratch.path());
    // A person sees only what their seat may see.
    let own = seats.iter().position(|s| s.human);
    let hide = a.hide_cards || own.is_some();
    let mut narrator = F::narrator(&names, hide, own);
    out!("{}", F::play_header(&rules_name, seed, &names));
    narrator.opening(&game);
    // The last stderr line shown live per seat, so a fault does not repeat it.
    let mut logged: Vec<Option<String>> = vec![None; n];
    let mut noted = 0;
    let mut drain = |agents: &mut [Box<dyn Agent<F::Game>>],
                     logged: &mut [Option<String>],
                     narrator: &mut Box<dyn crate::front::Narrator<F::Game>>| {
        for (s, agent) in agents.iter_mut().enumerate() {
            if let Some(text) = agent.take_log() {
                narrator.before_log();
                term::show_log(&names[s], &text, &mut logged[s]);
            }
        }
        // A program of an original protocol whose answer was read as another says why.
        if let Ok(notes) = setup.notes.lock() {
            for note in &notes[noted..] {
                narrator.note(&note.program, &note.reason);
            }
            noted = notes.len();
        }
    };
    for (s, agent) in agents.iter_mut().enumerate() {
        if let Err(f) = agent.start(&game, s, seeds.seat(s)) {
            term::show_fault(&names[s], &f, logged[s].as_deref());
            game.forfeit(s);
        }
    }
    drain(&mut agents, &mut logged, &mut narrator);
    narrator.start(&game);
    let mut legal = Vec::new();
    while let Some(seat) = game.to_move() {
        legal.clear();
        game.legal_choices(&mut legal);
        let answer = agents[seat].decide(&game, seat, &legal);
        drain(&mut agents, &mut logged, &mut narrator);
        match answer {
            Ok(c) if legal.contains(&c) => game.apply(c).map_err(|e| anyhow!("{e}"))?,
            Ok(c) => {
                out!(
                    "{}",
                    paint(
                        &format!(
                            "{} answered an illegal choice {c:?} and forfeits",
                            names[seat]
                        ),
                        Style::new().red()
                    )
                );
                game.forfeit(seat);
            }
            Err(f)
                if f.illegal
                    && game.penalize_tried(seat, f.tried.and_then(ChoiceCode::from_code)) =>
            {
                out!(
                    "{}",
                    paint(
                        &format!(
                            "{}: {}; the rules penalise it (an influence lost)",
                            names[seat], f.reason
                        ),
                        Style::new().red()
                    )
                )
            }
            Err(f) => {
                term::show_fault(&names[seat], &f, logged[seat].as_deref());
                game.forfeit(seat);
            }
        }
        narrator.show(&game);
    }
    for (s, agent) in agents.iter_mut().enumerate() {
        agent.finish(&game, s);
    }
    // What the programs log on `end` (their summaries) comes a moment later.
    if !programs.iter().all(|b| b.dir().is_none()) {
        std::thread::sleep(Duration::from_millis(50));
    }
    drain(&mut agents, &mut logged, &mut narrator);
    narrator.end(&game, false);
    Ok(())
}
