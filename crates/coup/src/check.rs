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

use crate::{bots, Action, Card, Choice, Pending, Rules, State};
use koth_arena::check::CheckReport;
use koth_arena::rng::{derive, Stream};
use koth_arena::{Agent, Fault, GameSeeds, Random, Rng, Seat};
use std::time::{Duration, Instant};

/// The decision kinds a check tells apart, in report order.
pub const KINDS: [&str; 12] = [
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
    "end of a game",
];

/// The open starting positions a check cycles through: from these the game is
/// played for real from the first move.
pub const SCENARIOS: [&str; 4] = [
    "a fresh deal",
    "the bot has one influence left",
    "the bot must Coup",
    "every opponent has 7 coins",
];

/// An action a directed position has someone take: the bot's targets the
/// opponent it plays against, the opponent's targets the bot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Move {
    /// Foreign Aid.
    ForeignAid,
    /// Tax (claims a Duke).
    Tax,
    /// Exchange (claims an Ambassador).
    Exchange,
    /// Steal (claims a Captain).
    Steal,
    /// Assassinate (claims an Assassin).
    Assassinate,
}

impl Move {
    fn action(self, target: Seat) -> Action {
        match self {
            Move::ForeignAid => Action::ForeignAid,
            Move::Tax => Action::Tax,
            Move::Exchange => Action::Exchange,
            Move::Steal => Action::Steal(target),
            Move::Assassinate => Action::Assassinate(target),
        }
    }
}

/// A position built to ask the bot one decision that its own play might never
/// lead to (an Exchange it never chooses, its last card lost to a bluff it never
/// makes). The moves up to that decision, the bot's own included, are played for
/// their players and reach the bot as events, as if it had made them; from the
/// decision under test on, everyone plays for real.
#[derive(Clone, Copy, Debug)]
pub struct Directed {
    /// What happens, in the report's words.
    pub about: &'static str,
    /// The decision kind it asks (an index into [`KINDS`]).
    pub target: usize,
    /// A card the bot holds.
    pub bot_holds: Option<Card>,
    /// A card the bot does not hold (its claim is a bluff).
    pub bot_lacks: Option<Card>,
    /// The bot has one influence left.
    pub bot_one: bool,
    /// A card the opponent holds.
    pub opp_holds: Option<Card>,
    /// The bot's first action.
    pub bot_acts: Option<Move>,
    /// The opponent's first action.
    pub opp_acts: Option<Move>,
    /// The bot challenges the opponent's claim.
    pub bot_challenges: bool,
    /// The opponent challenges the bot's claim.
    pub opp_challenges: bool,
    /// The opponent blocks the bot's action with this card.
    pub opp_blocks: Option<Card>,
}

const fn directed(about: &'static str, target: usize) -> Directed {
    Directed {
        about,
        target,
        bot_holds: None,
        bot_lacks: None,
        bot_one: false,
        opp_holds: None,
        bot_acts: None,
        opp_acts: None,
        bot_challenges: false,
        opp_challenges: false,
        opp_blocks: None,
    }
}

/// The directed positions, after the open [`SCENARIOS`] in a check's cycle.
pub const DIRECTED: [Directed; 15] = [
    Directed {
        bot_holds: Some(Card::Ambassador),
        bot_acts: Some(Move::Exchange),
        ..directed("the bot exchanges", 7)
    },
    Directed {
        bot_holds: Some(Card::Ambassador),
        bot_one: true,
        bot_acts: Some(Move::Exchange),
        ..directed("the bot exchanges with one influence left", 8)
    },
    Directed {
        bot_lacks: Some(Card::Duke),
        bot_acts: Some(Move::Tax),
        opp_challenges: true,
        ..directed("the bot's bluffed Tax is challenged", 9)
    },
    Directed {
        bot_lacks: Some(Card::Duke),
        bot_one: true,
        bot_acts: Some(Move::Tax),
        opp_challenges: true,
        ..directed(
            "the bot's bluffed Tax is challenged with one influence left",
            10,
        )
    },
    Directed {
        opp_acts: Some(Move::Tax),
        ..directed("an opponent claims Tax", 3)
    },
    Directed {
        opp_acts: Some(Move::Exchange),
        ..directed("an opponent claims Exchange", 3)
    },
    Directed {
        opp_acts: Some(Move::Steal),
        ..directed("an opponent steals from the bot", 3)
    },
    Directed {
        opp_acts: Some(Move::Assassinate),
        ..directed("an opponent assassinates the bot", 3)
    },
    Directed {
        opp_acts: Some(Move::ForeignAid),
        ..directed("an opponent takes Foreign Aid", 4)
    },
    Directed {
        opp_acts: Some(Move::Steal),
        ..directed("an opponent steals from the bot, unchallenged", 4)
    },
    Directed {
        opp_acts: Some(Move::Assassinate),
        ..directed("an opponent assassinates the bot, unchallenged", 4)
    },
    Directed {
        opp_holds: Some(Card::Captain),
        opp_acts: Some(Move::Steal),
        bot_challenges: true,
        ..directed("the bot challenges a true Steal and loses", 5)
    },
    Directed {
        bot_acts: Some(Move::ForeignAid),
        opp_blocks: Some(Card::Duke),
        ..directed("the bot's Foreign Aid is blocked by a Duke", 6)
    },
    Directed {
        bot_acts: Some(Move::Steal),
        opp_blocks: Some(Card::Ambassador),
        ..directed("the bot's Steal is blocked by an Ambassador", 6)
    },
    Directed {
        bot_acts: Some(Move::Assassinate),
        opp_blocks: Some(Card::Contessa),
        ..directed("the bot's Assassinate is blocked by a Contessa", 6)
    },
];

/// How many positions a check cycles through: the open ones, then the directed.
pub const POSITIONS: usize = SCENARIOS.len() + DIRECTED.len();

/// Which kinds of decision can come up at all under `rules` (a block after a lost
/// challenge needs rules where one may challenge and then block).
pub fn possible_kinds(rules: &Rules) -> [bool; KINDS.len()] {
    let mut k = [true; KINDS.len()];
    k[5] = rules.challenge_and_block;
    k
}

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
    /// The number of the first (0 unless one game is played again on its own).
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
    /// 300 games, answers over 0.5 s slow.
    pub fn new(rules: Rules, seed: u64) -> Self {
        CheckOptions {
            rules,
            games: 300,
            first: 0,
            seed,
            slow: Duration::from_millis(500),
            close: false,
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
    /// Which position it is: an index into [`SCENARIOS`], then into [`DIRECTED`].
    pub scenario: usize,
    /// The directed position, if it is one.
    pub directed: Option<&'static Directed>,
    /// The opponent a directed position plays against (the seat after the bot's).
    pub opponent: Seat,
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

    /// The position in words.
    pub fn about(&self) -> &'static str {
        match self.directed {
            Some(d) => d.about,
            None => SCENARIOS[self.scenario],
        }
    }
}

/// Game `game` of a check with this seed: the same for every bot and every run, so
/// `koth coup check BOT --seed S --game G` replays exactly what the check showed.
/// Positions cycle through [`SCENARIOS`] and [`DIRECTED`], table sizes through
/// the rules' range, one step each full cycle.
pub fn check_game(rules: Rules, seed: u64, game: u64) -> CheckGame {
    let mut rng = Rng::new(derive(seed, Stream::Check, game));
    let scenario = (game % POSITIONS as u64) as usize;
    let span = (rules.max_seats - rules.min_seats + 1) as u64;
    let players = rules.min_seats as usize + ((game / POSITIONS as u64) % span) as usize;
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
    let mut deck = dealt.deck().to_vec();
    let opp = (seat + 1) % players;
    let directed = DIRECTED.get(scenario.wrapping_sub(SCENARIOS.len()));
    match (scenario, directed) {
        // The card set aside goes face up, as a lost influence would.
        (1, _) => hands[seat].truncate(1),
        (2, _) => coins[seat] = rules.forced_coup_coins.max(7),
        (3, _) => {
            for (s, c) in coins.iter_mut().enumerate() {
                if s != seat {
                    *c = 7;
                }
            }
        }
        (_, Some(d)) => {
            if let Some(c) = d.bot_holds {
                give(&mut hands, &mut deck, seat, c, &[]);
            }
            if let Some(c) = d.bot_lacks {
                for card in hands[seat].iter_mut().filter(|h| **h == c) {
                    if let Some(other) = deck.iter_mut().find(|d| **d != c) {
                        std::mem::swap(card, other);
                    }
                }
            }
            if d.bot_one {
                // Keep the card that matters; the other goes face up.
                if d.bot_holds.is_some_and(|c| hands[seat][1] == c) {
                    hands[seat].swap(0, 1);
                }
                hands[seat].truncate(1);
            }
            if let Some(c) = d.opp_holds {
                give(&mut hands, &mut deck, opp, c, &[seat]);
            }
            // Coins enough for what is taken: 3 to assassinate, 1 to steal.
            let need = |m: Option<Move>, of: Move, n: u8| if m == Some(of) { n } else { 0 };
            coins[seat] = coins[seat]
                .max(need(d.bot_acts, Move::Assassinate, 3))
                .max(need(d.opp_acts, Move::Steal, 1));
            coins[opp] = coins[opp]
                .max(need(d.opp_acts, Move::Assassinate, 3))
                .max(need(d.bot_acts, Move::Steal, 1));
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
        directed,
        opponent: opp,
        seeds,
    }
}

/// Puts `card` in `seat`'s hand (its first card), swapped with a copy from the
/// deck or, failing that, from a seat not in `keep`.
fn give(hands: &mut [Vec<Card>], deck: &mut [Card], seat: Seat, card: Card, keep: &[Seat]) {
    if hands[seat].contains(&card) {
        return;
    }
    if let Some(i) = deck.iter().position(|&d| d == card) {
        std::mem::swap(&mut hands[seat][0], &mut deck[i]);
        return;
    }
    for s in (0..hands.len()).filter(|s| *s != seat && !keep.contains(s)) {
        if let Some(i) = hands[s].iter().position(|&d| d == card) {
            let mine = hands[seat][0];
            hands[seat][0] = card;
            hands[s][i] = mine;
            return;
        }
    }
}

/// Plays a directed position's moves up to the decision under test: any game
/// built on Coup's state (the two-player challenge's too) uses it to reach the
/// same decisions.
#[derive(Clone, Debug)]
pub struct Script {
    d: &'static Directed,
    me: Seat,
    opp: Seat,
    /// The position's key action has been taken.
    acted: bool,
    done: bool,
}

impl Script {
    /// Whether the decision under test was reached (or can no longer be): from
    /// here on everyone plays for real.
    pub fn done(&self) -> bool {
        self.done
    }

    /// The script of check game `cg`, if its position is directed.
    pub fn of(cg: &CheckGame) -> Option<Script> {
        cg.directed.map(|d| Script {
            d,
            me: cg.seat,
            opp: cg.opponent,
            acted: false,
            done: false,
        })
    }

    /// The choice played for `seat` now, or `None` when `seat` decides for real
    /// (the script ends when the bot reaches the decision under test, or when
    /// the turn of the key action is over).
    pub fn play(&mut self, game: &State, seat: Seat, legal: &[Choice]) -> Option<Choice> {
        if self.done {
            return None;
        }
        let d = self.d;
        let has = |c: Choice| legal.contains(&c).then_some(c);
        let pass = || has(Choice::Pass);
        match game.pending() {
            Pending::Action { .. } if self.acted => {
                self.done = true;
                None
            }
            Pending::Action { actor } => {
                let key = if actor == self.me {
                    d.bot_acts.map(|m| m.action(self.opp))
                } else if actor == self.opp {
                    d.opp_acts.map(|m| m.action(self.me))
                } else {
                    None
                };
                match key.and_then(|a| has(Choice::Act(a))) {
                    Some(c) => {
                        self.acted = true;
                        Some(c)
                    }
                    None if game.coins(actor) >= game.rules().forced_coup_coins => None,
                    None => has(Choice::Act(Action::Income)),
                }
            }
            _ if seat == self.me && kind_of(game, seat) == d.target => {
                self.done = true;
                None
            }
            Pending::ChallengeAction { .. } if seat == self.me => {
                // Under one-answer rules the block is asked here: the decision under test.
                if d.target == 4 && legal.iter().any(|c| matches!(c, Choice::Block(_))) {
                    self.done = true;
                    return None;
                }
                if d.bot_challenges {
                    has(Choice::Challenge)
                } else {
                    pass()
                }
            }
            Pending::ChallengeAction { .. } if seat == self.opp => {
                if d.opp_challenges {
                    has(Choice::Challenge)
                } else if let Some(c) = d.opp_blocks {
                    has(Choice::Block(c)).or_else(pass)
                } else {
                    pass()
                }
            }
            Pending::Block { .. } if seat == self.opp => match d.opp_blocks {
                Some(c) => has(Choice::Block(c)),
                None => pass(),
            },
            Pending::ChallengeAction { .. }
            | Pending::Block { .. }
            | Pending::ChallengeBlock { .. } => pass(),
            // Cards kept and lost are the players' own choices.
            Pending::Exchange { .. } | Pending::LoseInfluence { .. } | Pending::Over => None,
        }
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
    for (k, possible) in possible_kinds(&opts.rules).into_iter().enumerate() {
        if !possible {
            report.rule_out(k);
        }
    }
    for g in opts.first..opts.first + opts.games {
        play_check_game(bot, name, opts, g, &mut report, &mut |_, _| {});
        report.games += 1;
        progress(g + 1 - opts.first);
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
    let mut script = Script::of(&cg);
    let mut game = cg.state;
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    bot.seat_names(&names);
    if let Err(f) = bot.start(&game, me, cg.seeds.seat(me)) {
        let at = "the start of the game".to_string();
        report.fault_in(0, g, &f, at, cg.directed.is_some());
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
        if let Some(c) = script.as_mut().and_then(|s| s.play(&game, seat, &legal)) {
            if game.apply(c).is_err() {
                game.forfeit(seat);
            }
            watch(&game, Step::Applied);
            continue;
        }
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
        report.fault_in(
            kind,
            g,
            &fault,
            describe_position(&game, me, &legal),
            cg.directed.is_some(),
        );
        watch(&game, Step::Fault(&fault));
        if !(fault.illegal && game.penalize(me)) {
            game.forfeit(me);
        }
        watch(&game, Step::Applied);
    }
    bot.finish(&game, me);
    report.accepted(KINDS.len() - 1);
    if opts.close {
        if let Some(f) = bot.close() {
            report.fault_after_game(g, &f, cg.directed.is_some());
            watch(&game, Step::Fault(&f));
        }
    }
    for (s, o) in others.iter_mut().enumerate() {
        if let Some(o) = o {
            o.finish(&game, s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Keep;

    #[test]
    fn check_games_are_fixed_by_seed_and_vary_in_size_and_scenario() {
        let r = Rules::standard();
        let a = check_game(r, 5, 17);
        let b = check_game(r, 5, 17);
        assert_eq!(a.seat, b.seat);
        assert_eq!(a.opponents, b.opponents);
        assert_eq!(a.state.hand(a.seat), b.state.hand(b.seat));
        let cycle = (POSITIONS * 5) as u64;
        let sizes: std::collections::BTreeSet<usize> = (0..cycle)
            .map(|g| check_game(r, 5, g).state.players())
            .collect();
        assert_eq!(sizes.into_iter().collect::<Vec<_>>(), [2, 3, 4, 5, 6]);
        for g in 0..cycle {
            let c = check_game(r, 5, g);
            c.state.check_invariants().unwrap();
            let (me, hand) = (c.seat, c.state.hand(c.seat));
            match (c.scenario, c.directed) {
                (1, _) => assert_eq!(c.state.influence(me), 1),
                (2, _) => assert_eq!(c.state.coins(me), 10),
                (3, _) => assert!(c.state.opponents(me).all(|s| c.state.coins(s) == 7)),
                (_, Some(d)) => {
                    assert_eq!(c.state.influence(me), if d.bot_one { 1 } else { 2 });
                    if let Some(card) = d.bot_holds {
                        assert!(hand.contains(&card), "{}: {hand:?}", d.about);
                    }
                    if let Some(card) = d.bot_lacks {
                        assert!(!hand.contains(&card), "{}: {hand:?}", d.about);
                    }
                    if let Some(card) = d.opp_holds {
                        assert!(c.state.hand(c.opponent).contains(&card), "{}", d.about);
                    }
                    assert_ne!(c.opponent, me);
                }
                _ => assert_eq!(c.state.influence(me), 2),
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

    /// A bot that never chooses what leads to its bug (static: Income, no
    /// challenge, no block, no bluff) is still asked every decision, by the
    /// directed positions, under every preset.
    #[test]
    fn a_bot_that_never_goes_there_is_asked_every_kind_and_caught_there() {
        for preset in Rules::PRESETS {
            let rules = Rules::preset(preset).unwrap();
            let possible = possible_kinds(&rules);
            // Every decision: not the start or the end, which ask nothing.
            for (kind, label) in KINDS.iter().enumerate().take(KINDS.len() - 1).skip(1) {
                if !possible[kind] {
                    continue;
                }
                let mut bot = WrongAt {
                    inner: crate::BotAgent(bots::Static),
                    kind,
                };
                let opts = CheckOptions::new(rules, 5);
                let r = check(&mut bot, "static", &opts, |_| {});
                assert_eq!(r.findings.len(), 1, "{preset} {label}: {:?}", r.findings);
                assert_eq!(r.findings[0].kind, *label, "{preset}");
            }
            let mut bot = bots::builtin_agent("static").unwrap();
            let r = check(bot.as_mut(), "static", &CheckOptions::new(rules, 5), |_| {});
            assert!(r.passed(), "{preset}: {:?}", r.findings);
            let unreached: Vec<_> = r.unreached().collect();
            assert!(unreached.is_empty(), "{preset}: never asked {unreached:?}");
        }
    }

    #[test]
    fn a_block_after_a_lost_challenge_is_ruled_out_where_one_answers_once() {
        assert!(possible_kinds(&Rules::standard())[5]);
        assert!(!possible_kinds(&Rules::ppcg())[5]);
        let mut bot = bots::builtin_agent("random").unwrap();
        let r = check(
            bot.as_mut(),
            "random",
            &CheckOptions::new(Rules::ppcg(), 2),
            |_| {},
        );
        assert!(r.kinds[5].impossible);
        assert_eq!(r.unreached().count(), 0);
    }

    #[test]
    fn a_defect_at_each_kind_is_found_there_and_only_there() {
        // Every decision: not the start or the end, which ask nothing.
        for (kind, label) in KINDS.iter().enumerate().take(KINDS.len() - 1).skip(1) {
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
