//! `koth samurai check`: one samurai against built-in opponents in many duels,
//! some started from positions chosen to reach the rare decisions (the 500th turn,
//! honour at 0, the Sword of the Gods, one hit from death), with every defect
//! reported once with the duel that shows it.
//!
//! Works for any [`Agent`]: a Rust samurai checks itself in a unit test the same way
//! the CLI checks a program.
//!
//! ```
//! use koth_samurai::check::{check, CheckOptions};
//! use koth_samurai::{builtin, SamuraiAgent};
//!
//! let mut bot = SamuraiAgent::new(builtin("bower").unwrap());
//! let opts = CheckOptions { games: 10, ..CheckOptions::new(3) };
//! let report = check(&mut bot, "bower", &opts, None, |_| {});
//! assert!(report.passed());
//! assert!(report.kinds.iter().find(|k| k.label == "the last turn").unwrap().asked > 0);
//! ```

use crate::{builtin, Action, NoteSink, Rules, SamuraiAgent, State};
use koth_arena::check::CheckReport;
use koth_arena::rng::{derive, Stream};
use koth_arena::{Agent, Fault, Game, GameSeeds, Random, Rng, Seat};
use std::time::{Duration, Instant};

/// The decision kinds a check tells apart, in report order.
pub const KINDS: [&str; 9] = [
    "start of a match",
    "first turn",
    "a turn",
    "after a guard",
    "honour 0",
    "Sword of the Gods ready",
    "health 2 or less",
    "the last turn",
    "end of a match",
];

/// The starting positions a check cycles through.
pub const SCENARIOS: [&str; 6] = [
    "a fresh duel",
    "499 turns of waiting: the last turn comes",
    "both bowed to honour 8: the Sword of the Gods",
    "the bot struck into a guard: honour 0",
    "the bot took 19 hits: health 1",
    "the bot guarded last turn",
];

/// The built-in samurai a check draws opponents from.
pub const OPPONENTS: [&str; 7] = [
    "random",
    "ronin",
    "predictor",
    "copycat",
    "guardian",
    "bower",
    "waiter",
];

/// How to check.
#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// Duels to play.
    pub games: u64,
    /// The number of the first (0 unless one duel is played again on its own).
    pub first: u64,
    /// Seed of the positions, seats, opponents and their randomness.
    pub seed: u64,
    /// Answers slower than this count as slow.
    pub slow: Duration,
    /// End the bot's program after each game, and blame what it printed after its
    /// last answer on the game's end (for one game played alone: the process
    /// is gone after it).
    pub close: bool,
}

impl CheckOptions {
    /// 100 duels, answers over 0.5 s slow.
    pub fn new(seed: u64) -> Self {
        CheckOptions {
            games: 100,
            first: 0,
            seed,
            slow: Duration::from_millis(500),
            close: false,
        }
    }
}

/// One duel of a check.
#[derive(Clone, Debug)]
pub struct CheckGame {
    /// The position it starts from.
    pub state: State,
    /// The checked samurai's seat (0 is asked first each turn).
    pub seat: Seat,
    /// The built-in opponent.
    pub opponent: &'static str,
    /// Which of [`SCENARIOS`] it is.
    pub scenario: usize,
    /// The seats' seeds.
    pub seeds: GameSeeds,
}

impl CheckGame {
    /// The seats' names, the checked samurai's being `bot`.
    pub fn names(&self, bot: &str) -> [String; 2] {
        let raw = if self.seat == 0 {
            [bot, self.opponent]
        } else {
            [self.opponent, bot]
        };
        let n = koth_arena::dedup_names(&raw);
        [n[0].clone(), n[1].clone()]
    }
}

/// Duel `game` of a check with this seed: the same for every bot and every run, so
/// `koth samurai check BOT --seed S --game G` replays exactly what the check showed.
pub fn check_game(seed: u64, game: u64) -> CheckGame {
    let mut rng = Rng::new(derive(seed, Stream::Check, game));
    let scenario = (game % SCENARIOS.len() as u64) as usize;
    let seat = ((game / SCENARIOS.len() as u64) % 2) as usize;
    let opponent = OPPONENTS[rng.index(OPPONENTS.len())];
    let seeds = GameSeeds::of(derive(seed, Stream::Check, game), 0);
    let rules = Rules::default();
    let mut state = State::new(&rules, seeds.deal);
    // Scripted turns as (the bot's move, the opponent's move).
    let script: Vec<(Action, Action)> = match scenario {
        1 => vec![(Action::W, Action::W); rules.turn_limit as usize - 1],
        2 => vec![(Action::B, Action::B); 7],
        3 => vec![(Action::I, Action::G)],
        4 => [(Action::W, Action::B), (Action::W, Action::I)].repeat(19),
        5 => vec![(Action::B, Action::W), (Action::G, Action::W)],
        _ => Vec::new(),
    };
    for (mine, theirs) in script {
        let turn = if seat == 0 {
            (mine, theirs)
        } else {
            (theirs, mine)
        };
        state
            .play_turn(turn.0, turn.1)
            .expect("a scripted turn is legal");
    }
    CheckGame {
        state,
        seat,
        opponent,
        scenario,
        seeds,
    }
}

/// The kind (an index into [`KINDS`]) of the decision `seat` is asked now: the
/// rarest that applies.
pub fn kind_of(game: &State, seat: Seat) -> usize {
    let me = game.samurai(seat);
    let turn = game.log().len() as u32 + 1;
    if turn >= game.rules().turn_limit {
        7
    } else if me.health <= 2 {
        6
    } else if me.honour >= game.rules().god_sword_honour {
        5
    } else if me.honour == 0 {
        4
    } else if me.history.last() == Some(&Action::G) {
        3
    } else if turn == 1 {
        1
    } else {
        2
    }
}

/// The position in words, for a finding.
pub fn describe_position(game: &State, seat: Seat) -> String {
    let side = |s: Seat| {
        let x = game.samurai(s);
        let h = crate::history_string(&x.history);
        let shown = if h.len() > 12 {
            format!("…{}", &h[h.len() - 12..])
        } else if h.is_empty() {
            "-".to_string()
        } else {
            h
        };
        format!("{} health, {} honour, history {shown}", x.health, x.honour)
    };
    format!(
        "turn {}, asked {}; you: {}; the enemy: {}",
        game.log().len() + 1,
        if seat == 0 { "first" } else { "second" },
        side(seat),
        side(1 - seat)
    )
}

/// Plays `opts.games` check duels with `bot`, calling `progress` after each. With
/// `notes` (where a program of the original challenge records the answers it made
/// W), each such note is a defect too.
pub fn check(
    bot: &mut dyn Agent<State>,
    name: &str,
    opts: &CheckOptions,
    notes: Option<&NoteSink>,
    mut progress: impl FnMut(u64),
) -> CheckReport {
    let mut report = CheckReport::new(&KINDS, opts.slow);
    for g in opts.first..opts.first + opts.games {
        play_check_game(bot, name, opts, g, notes, &mut report, &mut |_, _| {});
        report.games += 1;
        progress(g + 1 - opts.first);
    }
    report
}

/// A step of a check duel, for narration.
#[derive(Debug)]
pub enum Step<'a> {
    /// A move was applied.
    Applied,
    /// The checked samurai's answer was a fault (or, for a program of the original
    /// challenge, recorded as W).
    Fault(&'a Fault),
    /// The checked samurai logged these lines (a program's stderr) while deciding.
    Log(&'a str),
}

/// Plays check duel `g`, adding what the bot did to `report`; `watch` sees the
/// state after every step.
pub fn play_check_game(
    bot: &mut dyn Agent<State>,
    name: &str,
    opts: &CheckOptions,
    g: u64,
    notes: Option<&NoteSink>,
    report: &mut CheckReport,
    watch: &mut dyn FnMut(&State, Step),
) {
    let cg = check_game(opts.seed, g);
    let names = cg.names(name);
    let names = [names[0].as_str(), names[1].as_str()];
    let me = cg.seat;
    let them = 1 - me;
    let mut other = builtin(cg.opponent).map(SamuraiAgent::new);
    let mut game = cg.state;
    let noted = |notes: Option<&NoteSink>| notes.and_then(|n| n.lock().ok().map(|v| v.len()));
    bot.seat_names(&names);
    if let Err(f) = bot.start(&game, me, cg.seeds.seat(me)) {
        report.fault(0, g, &f, "the start of the match".to_string());
        watch(&game, Step::Fault(&f));
        game.forfeit(me);
    } else {
        report.accepted(0);
    }
    if let Some(o) = other.as_mut() {
        o.seat_names(&names);
        let _ = o.start(&game, them, cg.seeds.seat(them));
    }
    watch(&game, Step::Applied);
    let mut legal = Vec::new();
    while let Some(seat) = game.to_move() {
        legal.clear();
        game.legal_choices(&mut legal);
        if seat != me {
            let choice = other
                .as_mut()
                .and_then(|o| o.decide(&game, seat, &legal).ok())
                .unwrap_or(Action::W);
            if game.apply(choice).is_err() {
                game.forfeit(seat);
            }
            watch(&game, Step::Applied);
            continue;
        }
        let kind = kind_of(&game, me);
        let position = describe_position(&game, me);
        let before = noted(notes);
        let t0 = Instant::now();
        let answer = bot.decide(&game, me, &legal);
        let took = t0.elapsed();
        if let Some(text) = bot.take_log() {
            watch(&game, Step::Log(&text));
        }
        // A program of the original challenge never faults: what it got wrong is
        // in its notes, and it plays W.
        let recorded = match (notes, before) {
            (Some(n), Some(from)) => n
                .lock()
                .map(|v| v[from.min(v.len())..].to_vec())
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        for note in &recorded {
            let mut f = Fault::new(format!("{} (played as W)", note.reason));
            f.stderr_tail = note.stderr_tail.clone();
            report.fault(kind, g, &f, position.clone());
            watch(&game, Step::Fault(&f));
        }
        let fault = match answer {
            Ok(c) if legal.contains(&c) && game.apply(c).is_ok() => {
                if recorded.is_empty() {
                    report.answered(kind, took);
                }
                watch(&game, Step::Applied);
                continue;
            }
            Ok(c) => Fault::illegal_choice(format!("illegal move {c}: not among the legal moves")),
            Err(f) => f,
        };
        report.fault(kind, g, &fault, position);
        watch(&game, Step::Fault(&fault));
        game.forfeit(me);
        watch(&game, Step::Applied);
    }
    bot.finish(&game, me);
    report.accepted(KINDS.len() - 1);
    if opts.close {
        if let Some(f) = bot.close() {
            report.fault_after_game(g, &f, false);
            watch(&game, Step::Fault(&f));
        }
    }
    if let Some(o) = other.as_mut() {
        o.finish(&game, them);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_duels_are_fixed_by_seed_and_reach_their_scenario() {
        for g in 0..20 {
            let (a, b) = (check_game(5, g), check_game(5, g));
            assert_eq!((a.seat, a.opponent), (b.seat, b.opponent));
            assert_eq!(a.state, b.state);
            a.state.check_invariants().unwrap();
            assert!(a.state.outcome().is_none(), "game {g}");
            let me = a.state.samurai(a.seat);
            let kind = kind_of(&a.state, a.seat);
            match a.scenario {
                0 => assert_eq!(kind, 1),
                1 => assert_eq!(kind, 7),
                2 => assert_eq!((me.honour, kind), (8, 5)),
                3 => assert_eq!((me.honour, kind), (0, 4)),
                4 => assert_eq!((me.health, kind), (1, 6)),
                5 => assert_eq!(kind, 3),
                _ => unreachable!(),
            }
        }
        let seats: std::collections::BTreeSet<Seat> =
            (0..10).map(|g| check_game(1, g).seat).collect();
        assert_eq!(seats.len(), 2);
    }

    #[test]
    fn every_kind_is_reached_by_a_random_samurai() {
        let mut bot = SamuraiAgent::new(builtin("random").unwrap());
        let r = check(&mut bot, "random", &CheckOptions::new(2), None, |_| {});
        assert!(r.passed());
        for k in &r.kinds {
            assert!(k.asked > 0, "{} never asked", k.label);
        }
    }

    /// Faults at exactly one kind, told from its view as a bot would.
    struct WrongAt(usize);
    impl Agent<State> for WrongAt {
        fn decide(&mut self, game: &State, seat: Seat, _: &[Action]) -> Result<Action, Fault> {
            let view = game.view(seat);
            let honour = view.my_honour;
            let kind = match () {
                _ if view.turns_played() + 1 >= 500 => 7,
                _ if view.my_health <= 2 => 6,
                _ if honour >= 7 => 5,
                _ if honour == 0 => 4,
                _ if view.my_last() == Some(Action::G) => 3,
                _ if view.turns_played() == 0 => 1,
                _ => 2,
            };
            if kind == self.0 {
                return Err(Fault::new(format!("wrong at kind {}", self.0)));
            }
            Ok(match view.turns_played() % 3 {
                1 => Action::G,
                2 if view.affordable(Action::I) => Action::I,
                _ => Action::B,
            })
        }
    }

    #[test]
    fn a_defect_is_found_at_its_kind_and_the_duel_named_shows_it() {
        // Every decision: not the start or the end, which ask nothing.
        for (k, label) in KINDS.iter().enumerate().take(KINDS.len() - 1).skip(1) {
            let mut bot = WrongAt(k);
            let opts = CheckOptions::new(4);
            let r = check(&mut bot, "wrong", &opts, None, |_| {});
            assert!(!r.passed(), "kind {k}");
            let kinds: Vec<&str> = r.findings.iter().map(|f| f.kind).collect();
            assert_eq!(kinds, [*label], "kind {k}");
            let first = r.findings[0].game;
            let mut again = CheckReport::new(&KINDS, opts.slow);
            let mut bot = WrongAt(k);
            play_check_game(
                &mut bot,
                "wrong",
                &opts,
                first,
                None,
                &mut again,
                &mut |_, _| {},
            );
            assert_eq!(again.findings.len(), 1, "kind {k}: game {first} replays it");
        }
    }
}
