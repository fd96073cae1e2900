//! `koth coup check`: one bot against built-in opponents in many positions chosen
//! to reach every kind of decision, rare ones included (an Exchange with one card
//! left, a forced Coup, a block asked after a challenge was lost, the last card to
//! lose), with every defect reported once with the game that shows it.
//!
//! Works for any [`Agent`]: a Rust bot checks itself in a unit test the same way
//! the CLI checks a program.
//!
//! ```
//! use koth_coup::check::{check, CheckOptions};
//! use koth_coup::{bots, Rules};
//!
//! let mut bot = bots::builtin_agent("honest").unwrap();
//! let opts = CheckOptions { games: 40, ..CheckOptions::new(Rules::standard(), 7) };
//! let report = check(bot.as_mut(), "honest", &opts, |_| {});
//! assert!(report.passed());
//! assert!(report.kinds.iter().find(|k| k.label == "action").unwrap().asked > 0);
//! ```

use crate::{bots, Card, Choice, Pending, Rules, State};
use koth_arena::check::CheckReport;
use koth_arena::rng::{derive, Stream};
use koth_arena::{Agent, Fault, GameSeeds, Random, Rng, Seat};
use std::time::{Duration, Instant};

/// The decision kinds a check tells apart, in report order.
pub const KINDS: [&str; 11] = [
    "start of a game",
    "action",
    "action, forced coup",
    "challenge an action",
    "block",
    "block after a lost challenge",
    "challenge a block",
    "exchange, two cards",
    "exchange, one card",
    "lose influence, two cards",
    "lose influence, last card",
];

/// The starting positions a check cycles through.
pub const SCENARIOS: [&str; 4] = [
    "a fresh deal",
    "the bot has one influence left",
    "the bot must Coup",
    "every opponent has 7 coins",
];

/// The built-in bots a check draws opponents from: random players reach the rare
/// branches, the others challenge, block and bluff as real opponents do.
pub const OPPONENTS: [&str; 7] = [
    "random",
    "random",
    "challenger",
    "bluffer",
    "honest",
    "skeptic",
    "counter",
];

/// How to check.
#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// The rules.
    pub rules: Rules,
    /// Games to play.
    pub games: u64,
    /// Seed of the positions, seats, opponents and their randomness.
    pub seed: u64,
    /// Answers slower than this count as slow.
    pub slow: Duration,
}

impl CheckOptions {
    /// 300 games, answers over 0.5 s slow.
    pub fn new(rules: Rules, seed: u64) -> Self {
        CheckOptions {
            rules,
            games: 300,
            seed,
            slow: Duration::from_millis(500),
        }
    }
}

/// One game of a check: its position, the bot's seat and its opponents.
#[derive(Clone, Debug)]
pub struct CheckGame {
    /// The position the game starts from.
    pub state: State,
    /// The checked bot's seat.
    pub seat: Seat,
    /// The built-in bot in every seat (the checked bot's seat holds `""`).
    pub opponents: Vec<&'static str>,
    /// Which of [`SCENARIOS`] it is.
    pub scenario: usize,
    /// The seats' seeds.
    pub seeds: GameSeeds,
}

impl CheckGame {
    /// The seats' names, the checked bot's being `bot` (built-ins that sit twice
    /// are told apart as `random`, `random 2`).
    pub fn names(&self, bot: &str) -> Vec<String> {
        let raw: Vec<&str> = self
            .opponents
            .iter()
            .enumerate()
            .map(|(s, &o)| if s == self.seat { bot } else { o })
            .collect();
        koth_arena::dedup_names(&raw)
    }
}

/// Game `game` of a check with this seed: the same for every bot and every run, so
/// `koth coup check BOT --seed S --game G` replays exactly what the check showed.
pub fn check_game(rules: Rules, seed: u64, game: u64) -> CheckGame {
    let mut rng = Rng::new(derive(seed, Stream::Check, game));
    let scenario = (game % SCENARIOS.len() as u64) as usize;
    let span = (rules.max_seats - rules.min_seats + 1) as u64;
    let players = rules.min_seats as usize + ((game / SCENARIOS.len() as u64) % span) as usize;
    let seat = rng.index(players);
    let opponents = (0..players)
        .map(|s| {
            if s == seat {
                ""
            } else {
                OPPONENTS[rng.index(OPPONENTS.len())]
            }
        })
        .collect();
    let seeds = GameSeeds::of(derive(seed, Stream::Check, game), 0);
    let dealt = State::new(rules, players, seeds.deal);
    let mut hands: Vec<Vec<Card>> = (0..players).map(|s| dealt.hand(s).to_vec()).collect();
    let mut coins: Vec<u8> = (0..players).map(|s| dealt.coins(s)).collect();
    let deck = dealt.deck().to_vec();
    match scenario {
        1 => {
            // The card set aside goes face up, as a lost influence would.
            hands[seat].truncate(1);
        }
        2 => coins[seat] = rules.forced_coup_coins.max(7),
        3 => {
            for (s, c) in coins.iter_mut().enumerate() {
                if s != seat {
                    *c = 7;
                }
            }
        }
        _ => {}
    }
    let refs: Vec<&[Card]> = hands.iter().map(Vec::as_slice).collect();
    let state = if scenario == 0 {
        dealt
    } else {
        // Same deal, changed hands or coins: from_setup keeps the deck's order.
        State::from_setup(rules, &refs, &coins, &deck, seeds.deal)
            .unwrap_or_else(|_| State::new(rules, players, seeds.deal))
    };
    CheckGame {
        state,
        seat,
        opponents,
        scenario,
        seeds,
    }
}

/// The kind (an index into [`KINDS`]) of the decision `seat` is asked now.
pub fn kind_of(game: &State, seat: Seat) -> usize {
    match game.pending() {
        Pending::Action { .. } => {
            if game.coins(seat) >= game.rules().forced_coup_coins {
                2
            } else {
                1
            }
        }
        Pending::ChallengeAction { .. } => 3,
        Pending::Block { .. } => {
            if lost_challenge_this_turn(game) {
                5
            } else {
                4
            }
        }
        Pending::ChallengeBlock { .. } => 6,
        Pending::Exchange { .. } => {
            if game.influence(seat) >= 2 {
                7
            } else {
                8
            }
        }
        Pending::LoseInfluence { .. } => {
            if game.influence(seat) >= 2 {
                9
            } else {
                10
            }
        }
        Pending::Over => 0,
    }
}

/// Whether a challenge failed (the claimant showed the card) earlier this turn.
fn lost_challenge_this_turn(game: &State) -> bool {
    game.log()
        .iter()
        .rev()
        .take_while(|e| !matches!(e, crate::Event::Turn { .. }))
        .any(|e| matches!(e, crate::Event::Reveal { .. }))
}

/// What the bot saw when it was asked: its seat, coins and cards, the question
/// and the legal answers.
pub fn describe_position(game: &State, seat: Seat, legal: &[Choice]) -> String {
    let cards: Vec<String> = game.hand(seat).iter().map(|c| c.to_string()).collect();
    let asked = match game.pending() {
        Pending::Action { .. } => "its action".to_string(),
        Pending::ChallengeAction { actor, action, .. } => {
            format!(
                "whether to challenge seat {actor}'s {}",
                Choice::Act(action)
            )
        }
        Pending::Block { actor, action, .. } => {
            format!("whether to block seat {actor}'s {}", Choice::Act(action))
        }
        Pending::ChallengeBlock { blocker, card, .. } => {
            format!("whether to challenge seat {blocker}'s block with {card}")
        }
        Pending::Exchange { .. } => match game.drawn() {
            Some([a, b]) => format!("which cards to keep after drawing {a} and {b}"),
            None => "which cards to keep".to_string(),
        },
        Pending::LoseInfluence { .. } => "which influence to lose".to_string(),
        Pending::Over => "nothing (the game is over)".to_string(),
    };
    let legal: Vec<String> = legal.iter().map(|c| c.to_string()).collect();
    format!(
        "turn {}, seat {seat} of {} with {} coins and {}; asked {asked}; legal: {}",
        game.turns() + 1,
        game.players(),
        game.coins(seat),
        if cards.is_empty() {
            "no cards".to_string()
        } else {
            cards.join(", ")
        },
        legal.join(" | ")
    )
}

/// Plays `opts.games` check games with `bot` in one seat, calling `progress` after
/// each, and reports what it was asked and what it got wrong.
pub fn check(
    bot: &mut dyn Agent<State>,
    name: &str,
    opts: &CheckOptions,
    mut progress: impl FnMut(u64),
) -> CheckReport {
    let mut report = CheckReport::new(&KINDS, opts.slow);
    for g in 0..opts.games {
        play_check_game(bot, name, opts, g, &mut report, &mut |_, _| {});
        report.games += 1;
        progress(g + 1);
    }
    report
}

/// A step of a check game, for narration.
#[derive(Debug)]
pub enum Step<'a> {
    /// A choice was applied.
    Applied,
    /// The checked bot's answer was a fault.
    Fault(&'a Fault),
    /// The checked bot logged these lines (a program's stderr) while deciding.
    Log(&'a str),
}

/// Plays check game `g`, adding what the bot did to `report`; `watch` sees the state
/// after every step (the narrated `--game G` uses it).
pub fn play_check_game(
    bot: &mut dyn Agent<State>,
    name: &str,
    opts: &CheckOptions,
    g: u64,
    report: &mut CheckReport,
    watch: &mut dyn FnMut(&State, Step),
) {
    let cg = check_game(opts.rules, opts.seed, g);
    let names = cg.names(name);
    let me = cg.seat;
    let mut others: Vec<Option<Box<dyn Agent<State>>>> = cg
        .opponents
        .iter()
        .map(|&o| bots::builtin_agent(o))
        .collect();
    let mut game = cg.state;
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    bot.seat_names(&names);
    if let Err(f) = bot.start(&game, me, cg.seeds.seat(me)) {
        report.fault(0, g, &f, "the start of the game".to_string());
        watch(&game, Step::Fault(&f));
        game.forfeit(me);
    } else {
        report.accepted(0);
    }
    for (s, o) in others.iter_mut().enumerate() {
        if let Some(o) = o {
            o.seat_names(&names);
            // Built-in bots start without fail.
            let _ = o.start(&game, s, cg.seeds.seat(s));
        }
    }
    watch(&game, Step::Applied);
    let mut legal = Vec::new();
    while let Some(seat) = game.to_move() {
        legal.clear();
        game.legal_choices(&mut legal);
        if seat != me {
            let choice = others[seat]
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
        let kind = kind_of(&game, me);
        let t0 = Instant::now();
        let answer = bot.decide(&game, me, &legal);
        let took = t0.elapsed();
        if let Some(text) = bot.take_log() {
            watch(&game, Step::Log(&text));
        }
        let fault = match answer {
            Ok(c) if legal.contains(&c) && game.apply(c).is_ok() => {
                report.answered(kind, took);
                watch(&game, Step::Applied);
                continue;
            }
            Ok(c) => {
                Fault::illegal_choice(format!("illegal choice {c}: not among the legal choices"))
            }
            Err(f) => f,
        };
        report.fault(kind, g, &fault, describe_position(&game, me, &legal));
        watch(&game, Step::Fault(&fault));
        if !(fault.illegal && game.penalize(me)) {
            game.forfeit(me);
        }
        watch(&game, Step::Applied);
    }
    bot.finish(&game, me);
    for (s, o) in others.iter_mut().enumerate() {
        if let Some(o) = o {
            o.finish(&game, s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Action, Keep};

    #[test]
    fn check_games_are_fixed_by_seed_and_vary_in_size_and_scenario() {
        let r = Rules::standard();
        let a = check_game(r, 5, 17);
        let b = check_game(r, 5, 17);
        assert_eq!(a.seat, b.seat);
        assert_eq!(a.opponents, b.opponents);
        assert_eq!(a.state.hand(a.seat), b.state.hand(b.seat));
        let sizes: std::collections::BTreeSet<usize> = (0..40)
            .map(|g| check_game(r, 5, g).state.players())
            .collect();
        assert_eq!(sizes.into_iter().collect::<Vec<_>>(), [2, 3, 4, 5, 6]);
        for g in 0..40 {
            let c = check_game(r, 5, g);
            c.state.check_invariants().unwrap();
            match c.scenario {
                1 => assert_eq!(c.state.influence(c.seat), 1),
                2 => assert_eq!(c.state.coins(c.seat), 10),
                3 => assert!(c.state.opponents(c.seat).all(|s| c.state.coins(s) == 7)),
                _ => assert_eq!(c.state.influence(c.seat), 2),
            }
        }
    }

    #[test]
    fn every_kind_is_reached_by_a_random_bot() {
        let mut bot = bots::builtin_agent("random").unwrap();
        let opts = CheckOptions::new(Rules::standard(), 11);
        let r = check(bot.as_mut(), "random", &opts, |_| {});
        assert!(r.passed(), "{:?}", r.findings);
        let unreached: Vec<_> = r.unreached().collect();
        assert!(unreached.is_empty(), "never asked: {unreached:?}");
    }

    /// Answers like `inner`, except an illegal choice whenever asked `kind`.
    struct WrongAt<A> {
        inner: A,
        kind: usize,
    }

    impl<A: Agent<State>> Agent<State> for WrongAt<A> {
        fn start(&mut self, g: &State, s: Seat, seed: u64) -> Result<(), Fault> {
            self.inner.start(g, s, seed)
        }
        fn decide(&mut self, g: &State, s: Seat, legal: &[Choice]) -> Result<Choice, Fault> {
            if kind_of(g, s) == self.kind {
                let wrong = [
                    Choice::Act(Action::Tax),
                    Choice::Block(Card::Duke),
                    Choice::Keep(Keep::new(&[Card::Duke, Card::Duke]).unwrap()),
                    Choice::Lose(Card::Contessa),
                    Choice::Challenge,
                ];
                if let Some(w) = wrong.into_iter().find(|w| !legal.contains(w)) {
                    return Ok(w);
                }
            }
            self.inner.decide(g, s, legal)
        }
    }

    #[test]
    fn a_defect_at_each_kind_is_found_there_and_only_there() {
        for (kind, label) in KINDS.iter().enumerate().skip(1) {
            let mut bot = WrongAt {
                inner: crate::BotAgent(bots::RandomBot::default()),
                kind,
            };
            let opts = CheckOptions::new(Rules::standard(), 3);
            let r = check(&mut bot, "wrong", &opts, |_| {});
            assert_eq!(r.findings.len(), 1, "{label}: {:?}", r.findings);
            let f = &r.findings[0];
            assert_eq!(f.kind, *label);
            assert!(f.reason.starts_with("illegal choice"), "{}", f.reason);
            assert!(f.position.contains("legal:"), "{}", f.position);
            // The game it names shows it again.
            let mut again = CheckReport::new(&KINDS, opts.slow);
            play_check_game(&mut bot, "wrong", &opts, f.game, &mut again, &mut |_, _| {});
            assert_eq!(again.findings.len(), 1, "{label}");
        }
    }
}
