//! `koth ppcg check`: one program of the two-player challenge against built-in
//! opponents, game after game, through the history-file protocol exactly as a
//! tournament runs it, with every kind of decision tallied (the engine's kinds, and
//! the moves only the arbiter asks for: a reveal, the newline that ends a turn) and
//! every defect reported once with the game that shows it.
//!
//! ```no_run
//! use koth_ppcg::check::{check, CheckOptions};
//! use koth_ppcg::{PpcgAgent, RunOptions};
//! use koth_process::Command;
//!
//! let mut bot = PpcgAgent::new("mine", Command::new(["python3", "bot.py"], "bots/mine"), RunOptions::default());
//! let report = check(&mut bot, "mine", &CheckOptions::new(1), |_| {}).unwrap();
//! assert!(report.passed());
//! ```

use crate::agent::Lifted;
use crate::game::PpcgGame;
use crate::game::{GameMeta, MAX_INVOCATIONS};
use koth_arena::check::CheckReport;
use koth_arena::{Agent, Fault, Game};
use koth_coup::check::{
    describe_position, kind_of, possible_kinds, CheckGame, Script, KINDS as COUP_KINDS,
};
use koth_coup::{bots, BotAgent, Rules};
use std::path::Path;
use std::time::{Duration, Instant};

/// The decision kinds a check tells apart: the engine's (those of the Coup check),
/// then the arbiter's own moves.
pub const KINDS: [&str; 13] = {
    let mut k = ["reveal or end of turn"; 13];
    let mut i = 0;
    while i < COUP_KINDS.len() {
        k[i] = COUP_KINDS[i];
        i += 1;
    }
    k
};

/// How to check.
#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// Games to play.
    pub games: u64,
    /// The number of the first (0 unless one game is played again on its own).
    pub first: u64,
    /// Seed of the deals, seats and opponents.
    pub seed: u64,
    /// Answers slower than this count as slow.
    pub slow: Duration,
}

impl CheckOptions {
    /// 100 games, answers over 5 s slow (half the default invocation limit).
    pub fn new(seed: u64) -> Self {
        CheckOptions {
            games: 100,
            first: 0,
            seed,
            slow: Duration::from_secs(5),
        }
    }
}

/// Check game `g`: the Coup check's position of that number under the
/// challenge's rules (open and directed positions alike, see
/// [`koth_coup::check::check_game`]).
pub fn check_game(seed: u64, g: u64) -> CheckGame {
    koth_coup::check::check_game(Rules::ppcg(), seed, g)
}

/// The check's report, with the kinds these rules never ask ruled out.
pub fn new_report(opts: &CheckOptions) -> CheckReport {
    let mut report = CheckReport::new(&KINDS, opts.slow);
    for (k, possible) in possible_kinds(&Rules::ppcg()).into_iter().enumerate() {
        if !possible {
            report.rule_out(k);
        }
    }
    // A program launched once a move has no end hook.
    report.rule_out(COUP_KINDS.len() - 1);
    report
}

/// Plays `opts.games` check games with `bot` (whose history files go to a scratch
/// folder), calling `progress` after each.
pub fn check(
    bot: &mut dyn Agent<PpcgGame>,
    name: &str,
    opts: &CheckOptions,
    mut progress: impl FnMut(u64),
) -> std::io::Result<CheckReport> {
    let scratch = koth_process::ScratchDir::new("ppcg-check")?;
    let mut report = new_report(opts);
    for g in opts.first..opts.first + opts.games {
        play_check_game(
            bot,
            name,
            opts,
            g,
            scratch.path(),
            &mut report,
            &mut |_, _| {},
        );
        report.games += 1;
        progress(g + 1 - opts.first);
    }
    Ok(report)
}

/// A step of a check game, for narration.
#[derive(Debug)]
pub enum Step<'a> {
    /// A choice was applied.
    Applied,
    /// The program's answer was a fault.
    Fault(&'a Fault),
}

/// Plays check game `g` with the game's files in `dir`, adding what the program did
/// to `report`; `watch` sees the game after every step.
pub fn play_check_game(
    bot: &mut dyn Agent<PpcgGame>,
    name: &str,
    opts: &CheckOptions,
    g: u64,
    dir: &Path,
    report: &mut CheckReport,
    watch: &mut dyn FnMut(&PpcgGame, Step),
) {
    let cg = check_game(opts.seed, g);
    let me = cg.seat;
    let opponent = cg.opponents[1 - me];
    let mut names = [opponent, opponent];
    names[me] = name;
    let meta = GameMeta {
        names: names.map(str::to_string),
        stem: format!("check_{g}"),
        out_dir: dir.to_path_buf(),
        archive: true,
        index: 0,
    };
    let mut script = Script::of(&cg);
    let mut game = PpcgGame::from_state(cg.state, MAX_INVOCATIONS, meta);
    let mut other = bots::builtin(opponent).map(|b| Lifted(Box::new(BotAgent(b))));
    let seeds = cg.seeds;
    bot.seat_names(&names);
    if let Err(f) = bot.start(&game, me, seeds.seat(me)) {
        report.fault(0, g, &f, "the start of the game".into());
        watch(&game, Step::Fault(&f));
        game.forfeit(me);
    } else {
        report.accepted(0);
    }
    if let Some(o) = other.as_mut() {
        let _ = o.start(&game, 1 - me, seeds.seat(1 - me));
    }
    watch(&game, Step::Applied);
    let mut legal = Vec::new();
    while let Some(seat) = game.to_move() {
        legal.clear();
        game.legal_choices(&mut legal);
        // Up to a directed position's decision: played for the players, the
        // arbiter's own moves included.
        if let Some(s) = script.as_mut().filter(|s| !s.done()) {
            let c = if game.history().owed().is_some() {
                Some(koth_coup::Choice::Pass)
            } else {
                s.play(game.state(), seat, &legal)
            };
            if let Some(c) = c {
                if game.apply(c).is_err() {
                    game.forfeit(seat);
                }
                watch(&game, Step::Applied);
                continue;
            }
        }
        if seat != me {
            let choice = other
                .as_mut()
                .and_then(|o| o.decide(&game, seat, &legal).ok())
                .filter(|c| legal.contains(c));
            match choice {
                Some(c) if game.apply(c).is_ok() => {}
                _ => game.forfeit(seat),
            }
            watch(&game, Step::Applied);
            continue;
        }
        let kind = if game.history().owed().is_some() {
            KINDS.len() - 1
        } else {
            kind_of(game.state(), me)
        };
        let mut position = describe_position(game.state(), me, &legal);
        if let Some(call) = game.next_call() {
            let last = call.raw.rsplit('\n').next().unwrap_or_default();
            position.push_str(&format!("; the file's last line: {last:?}"));
        }
        let t0 = Instant::now();
        let answer = bot.decide(&game, me, &legal);
        let took = t0.elapsed();
        let fault = match answer {
            Ok(c) if legal.contains(&c) && game.apply(c).is_ok() => {
                report.answered(kind, took);
                watch(&game, Step::Applied);
                continue;
            }
            Ok(c) => Fault::illegal_choice(format!("illegal choice {c:?}")),
            Err(f) => f,
        };
        report.fault_in(kind, g, &fault, position, cg.directed.is_some());
        watch(&game, Step::Fault(&fault));
        game.forfeit(me);
        watch(&game, Step::Applied);
    }
    bot.finish(&game, me);
    if let Some(o) = other.as_mut() {
        o.finish(&game, 1 - me);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_built_in_bot_reaches_the_arbiter_s_own_moves_and_passes() {
        let scratch = koth_process::ScratchDir::new("ppcg-check-test").unwrap();
        let mut bot = Lifted(bots::builtin_agent("random").unwrap());
        let opts = CheckOptions {
            games: 60,
            ..CheckOptions::new(3)
        };
        let mut report = new_report(&opts);
        for g in 0..opts.games {
            play_check_game(
                &mut bot,
                "random",
                &opts,
                g,
                scratch.path(),
                &mut report,
                &mut |_, _| {},
            );
        }
        assert!(report.passed(), "{:?}", report.findings);
        for k in ["action", "challenge an action", "reveal or end of turn"] {
            let t = report.kinds.iter().find(|t| t.label == k).unwrap();
            assert!(t.asked > 0, "{k} never asked");
        }
        // Both seats are played.
        let seats: std::collections::BTreeSet<koth_arena::Seat> =
            (0..opts.games).map(|g| check_game(3, g).seat).collect();
        assert_eq!(seats.len(), 2);
        assert_eq!(KINDS[..12], COUP_KINDS);
        assert_eq!(KINDS[12], "reveal or end of turn");
    }
}
