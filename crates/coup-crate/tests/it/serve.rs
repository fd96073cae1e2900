//! `coup` crate bots, unchanged, as koth programs: whole tournaments through real
//! processes, every call's context checked against the game, and nothing hidden
//! reaching a context.

use coup::bot::{BotInterface, Context};
use coup::bots::HonestBot;
use coup::{Action, Card, History};
use koth_arena::rng::Rng;
use koth_arena::{
    Entrant, Game, GameRecord, Observer, RecordLevel, Schedule, Scoring, Seat, Tournament,
};
use koth_coup::bots::builtin_agent;
use koth_coup::{builtin_entrant, Choice, Event, Rules, State};
use koth_coup_crate::Adapter;
use koth_process::Command;
use koth_protocol::{json_entrant, Encoder, JsonBotConfig};
use serde_json::{json, Value};
use std::cell::RefCell;

/// One of this crate's programs, run from a folder of its own (as a user would).
fn program(bin: &str, path: &str) -> Entrant<State> {
    let dir = std::env::temp_dir().join(format!("koth-coupcrate-{}-{bin}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join(bin);
    std::fs::copy(path, &exe).unwrap();
    let cfg = JsonBotConfig::new(Command::new(vec![exe.to_string_lossy().into_owned()], dir));
    json_entrant(bin, cfg)
}

#[derive(Default)]
struct Collect(Vec<GameRecord<Choice>>);
impl Observer<Choice> for Collect {
    fn on_record(&mut self, r: &GameRecord<Choice>) {
        self.0.push(r.clone());
    }
}

fn run(entrants: Vec<Entrant<State>>, rules: Rules, games: u64) -> Vec<GameRecord<Choice>> {
    let t = Tournament {
        rules,
        entrants,
        schedule: Schedule::RandomTables { games, table: 4 },
        scoring: Scoring::ZeroSum,
        seed: 31,
        threads: 2,
        records: RecordLevel::Full,
        duplicate: false,
    };
    let mut c = Collect::default();
    assert!(t.run(&mut c).complete);
    assert_eq!(c.0.len() as u64, games);
    c.0
}

#[test]
fn the_crates_bots_and_a_contestants_play_koth_tournaments_unchanged() {
    let entrants = vec![
        program("coupcrate-static", env!("CARGO_BIN_EXE_coupcrate-static")),
        program("coupcrate-tracker", env!("CARGO_BIN_EXE_coupcrate-tracker")),
        builtin_entrant("honest", "honest").unwrap(),
        builtin_entrant("counter", "counter").unwrap(),
        builtin_entrant("economist", "economist").unwrap(),
    ];
    let recs = run(entrants, Rules::standard(), 300);
    let mut played = [0; 2];
    for r in &recs {
        // Every answer of theirs was a legal choice: no forfeit at all.
        assert!(r.forfeits.is_empty(), "game {}: {:?}", r.index, r.forfeits);
        for (e, n) in played.iter_mut().enumerate() {
            *n += usize::from(r.seats.contains(&e));
        }
    }
    assert!(played.iter().all(|&n| n > 100), "{played:?}");
    // The tracker plays for real: it wins games.
    let won = recs
        .iter()
        .filter(|r| r.outcome.winners.iter().any(|s| r.seats[s] == 1))
        .count();
    assert!(won > 10, "tracker won {won} of {}", played[1]);
}

#[test]
fn a_crate_bot_answering_what_koth_cannot_take_loses_that_game_only() {
    // The crate's RandomBot picks any action and any target name, affordable or
    // not; koth judges those illegal under the standard rules (the crate
    // penalises them instead). The process goes on with its other games.
    let entrants = vec![
        program("coupcrate-random", env!("CARGO_BIN_EXE_coupcrate-random")),
        builtin_entrant("honest", "honest").unwrap(),
        builtin_entrant("counter", "counter").unwrap(),
        builtin_entrant("economist", "economist").unwrap(),
    ];
    let recs = run(entrants, Rules::standard(), 120);
    let forfeits: Vec<_> = recs.iter().flat_map(|r| &r.forfeits).collect();
    assert!(!forfeits.is_empty());
    for f in &forfeits {
        assert_eq!(f.entrant, 0);
        assert!(f.fault.illegal, "{:?}", f.fault);
        assert!(
            f.fault.reason.starts_with("illegal choice"),
            "{}",
            f.fault.reason
        );
    }
    // Some games it finished without an illegal answer.
    assert!(recs.iter().any(|r| r.forfeits.is_empty()));
}

/// Records every call and the context it came with, and plays as HonestBot.
#[derive(Default)]
struct Recorder {
    calls: RefCell<Vec<String>>,
    contexts: RefCell<Vec<Context>>,
}

impl Recorder {
    fn note(&self, call: String, context: &Context) {
        self.calls.borrow_mut().push(call);
        self.contexts.borrow_mut().push(context.clone());
    }
}

impl BotInterface for Recorder {
    fn get_name(&self) -> String {
        "Recorder".into()
    }
    fn on_turn(&self, context: &Context) -> Action {
        // HonestBot never exchanges; this one does when it holds an Ambassador.
        let a = if context.cards.contains(&Card::Ambassador) && context.coins < 7 {
            Action::Swapping
        } else {
            match HonestBot.on_turn(context) {
                // The crate lets it steal from a player with no coins; koth's
                // standard rules do not.
                Action::Stealing(t)
                    if context
                        .playing_bots
                        .iter()
                        .any(|b| b.name == t && b.coins == 0) =>
                {
                    Action::Income
                }
                a => a,
            }
        };
        self.note(format!("turn {a:?}"), context);
        a
    }
    fn on_auto_coup(&self, context: &Context) -> String {
        let t = HonestBot.on_auto_coup(context);
        self.note(format!("auto coup {t}"), context);
        t
    }
    fn on_challenge_action_round(&self, action: &Action, by: String, context: &Context) -> bool {
        self.note(format!("challenge {action:?} by {by}"), context);
        HonestBot.on_challenge_action_round(action, by, context)
    }
    fn on_counter(&self, action: &Action, by: String, context: &Context) -> bool {
        self.note(format!("counter {action:?} by {by}"), context);
        HonestBot.on_counter(action, by, context)
    }
    fn on_challenge_counter_round(&self, action: &Action, by: String, context: &Context) -> bool {
        self.note(format!("challenge counter {action:?} by {by}"), context);
        HonestBot.on_challenge_counter_round(action, by, context)
    }
    fn on_swapping_cards(&self, new_cards: [Card; 2], context: &Context) -> [Card; 2] {
        self.note(format!("swap {new_cards:?}"), context);
        new_cards
    }
    fn on_card_loss(&self, context: &Context) -> Card {
        self.note("card loss".into(), context);
        HonestBot.on_card_loss(context)
    }
}

fn card(c: koth_coup::Card) -> Card {
    match c {
        koth_coup::Card::Ambassador => Card::Ambassador,
        koth_coup::Card::Assassin => Card::Assassin,
        koth_coup::Card::Captain => Card::Captain,
        koth_coup::Card::Contessa => Card::Contessa,
        koth_coup::Card::Duke => Card::Duke,
    }
}

fn line(s: Result<&str, String>) -> Value {
    serde_json::from_str(s.unwrap()).unwrap()
}

/// Plays `game` with the recorder at `viewer` (through the adapter, as its
/// program would) and built-in bots elsewhere; after every call, checks the
/// context against the game itself. Returns the recorder.
fn drive(mut game: State, viewer: Seat, names: &[&str], others: &str, check: bool) -> Recorder {
    let rec = Recorder::default();
    let mut ad = Adapter::new(&rec);
    let mut enc = Encoder::new();
    enc.set_names(names);
    assert!(ad
        .handle(&json!({"type": "hello", "protocol": 1, "game": "coup"}))
        .is_some());
    ad.handle(&line(enc.start(&game, viewer, 7)));
    let mut agents: Vec<_> = (0..game.seats())
        .map(|_| builtin_agent(others).unwrap())
        .collect();
    for (s, a) in agents.iter_mut().enumerate() {
        a.start(&game, s, 100 + s as u64).unwrap();
    }
    let unique =
        koth_coup_crate::unique_names(&names.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    let (mut legal, mut id) = (Vec::new(), 0);
    while let Some(seat) = game.to_move() {
        legal.clear();
        game.legal_choices(&mut legal);
        let choice = if seat == viewer {
            id += 1;
            let calls = rec.calls.borrow().len();
            let answer = ad
                .handle(&line(enc.decide(&game, seat, &legal, id)))
                .unwrap();
            assert_eq!(answer["id"], id);
            assert_eq!(rec.calls.borrow().len(), calls + 1, "one call a decision");
            if check {
                check_context(
                    &game,
                    viewer,
                    &unique,
                    rec.contexts.borrow().last().unwrap(),
                );
            }
            serde_json::from_value::<Choice>(answer["choice"].clone()).unwrap()
        } else {
            agents[seat].decide(&game, seat, &legal).unwrap()
        };
        assert!(legal.contains(&choice), "{choice:?} not in {legal:?}");
        game.apply(choice).unwrap();
    }
    ad.handle(&line(enc.end(&game, viewer)));
    rec
}

/// The context agrees with the game: own cards and coins, the players still
/// in, every card lost, and one history entry per action, challenge and block.
fn check_context(game: &State, me: Seat, names: &[String], ctx: &Context) {
    assert_eq!(ctx.name, names[me]);
    let mine: Vec<Card> = game.hand(me).iter().map(|&c| card(c)).collect();
    assert_eq!(ctx.cards, mine);
    assert_eq!(ctx.coins, game.coins(me));
    let alive: Vec<(String, u8, u8)> = (0..game.seats())
        .filter(|&s| game.is_alive(s))
        .map(|s| (names[s].clone(), game.coins(s), game.influence(s) as u8))
        .collect();
    let seen: Vec<(String, u8, u8)> = ctx
        .playing_bots
        .iter()
        .map(|b| (b.name.clone(), b.coins, b.cards))
        .collect();
    assert_eq!(seen, alive);
    let mut lost: Vec<Card> = (0..game.seats())
        .flat_map(|s| game.revealed(s).iter().map(|&c| card(c)))
        .collect();
    let mut pile = ctx.discard_pile.clone();
    lost.sort_by_key(|c| *c as u8);
    pile.sort_by_key(|c| *c as u8);
    assert_eq!(pile, lost);
    let public = game
        .log()
        .iter()
        .filter(|e| {
            matches!(e, Event::Act { .. } | Event::Challenge { .. })
                || matches!(e, Event::Block { .. })
        })
        .count();
    assert_eq!(ctx.history.len(), public, "{:?}", ctx.history);
    for h in &ctx.history {
        let (by, target) = match h {
            History::ActionIncome { by }
            | History::ActionForeignAid { by }
            | History::ActionTax { by }
            | History::ActionSwapping { by } => (by, None),
            History::ActionCoup { by, target }
            | History::ActionAssassination { by, target }
            | History::ActionStealing { by, target }
            | History::ChallengeAssassin { by, target }
            | History::ChallengeAmbassador { by, target }
            | History::ChallengeCaptain { by, target }
            | History::ChallengeDuke { by, target }
            | History::CounterAssassination { by, target }
            | History::CounterForeignAid { by, target }
            | History::CounterStealing { by, target }
            | History::CounterChallengeContessa { by, target }
            | History::CounterChallengeDuke { by, target }
            | History::CounterChallengeCaptainAmbassedor { by, target } => (by, Some(target)),
        };
        assert!(names.contains(by), "{h:?}");
        assert!(target.is_none_or(|t| names.contains(t)), "{h:?}");
    }
}

#[test]
fn every_call_gets_the_crates_context_of_the_game_as_the_seat_sees_it() {
    let mut calls = std::collections::BTreeSet::new();
    for g in 0..200u64 {
        let seats = 2 + (g % 5) as usize;
        let names: Vec<&str> = ["Bob", "Bob", "Ann", "Bob", "Cy", "Ann"][..seats].to_vec();
        let game = State::new(Rules::standard(), seats, 1000 + g);
        let others = ["random", "bluffer", "challenger"][(g % 3) as usize];
        let rec = drive(game, (g as usize) % seats, &names, others, true);
        for c in rec.calls.borrow().iter() {
            calls.insert(c.split(' ').next().unwrap().to_string());
        }
    }
    // Every kind of call was made and checked.
    for k in ["turn", "auto", "challenge", "counter", "swap", "card"] {
        assert!(calls.contains(k), "never called: {k} ({calls:?})");
    }
}

/// Two worlds that differ only in what `viewer` cannot see, driven by the same
/// choices while the seat sees the same in both: the calls and contexts its bot
/// gets through the adapter. Returns how many calls were compared.
fn twins(a: State, b: State, viewer: Seat, names: &[&str], others: &str) -> usize {
    let (ra, rb) = (Recorder::default(), Recorder::default());
    let (mut aa, mut ab) = (Adapter::new(&ra), Adapter::new(&rb));
    let (mut ea, mut eb) = (Encoder::new(), Encoder::new());
    ea.set_names(names);
    eb.set_names(names);
    aa.handle(&line(ea.start(&a, viewer, 7)));
    ab.handle(&line(eb.start(&b, viewer, 7)));
    let (mut a, mut b) = (a, b);
    let mut agents: Vec<_> = (0..a.seats())
        .map(|_| builtin_agent(others).unwrap())
        .collect();
    for (s, ag) in agents.iter_mut().enumerate() {
        ag.start(&a, s, 100 + s as u64).unwrap();
    }
    let (mut la, mut lb, mut id) = (Vec::new(), Vec::new(), 0);
    loop {
        if a.observe(viewer) != b.observe(viewer) {
            break; // the seat now sees something that differs
        }
        let (Some(sa), Some(sb)) = (a.to_move(), b.to_move()) else {
            if a.to_move().is_none() && b.to_move().is_none() {
                aa.handle(&line(ea.end(&a, viewer)));
                ab.handle(&line(eb.end(&b, viewer)));
            }
            break;
        };
        la.clear();
        lb.clear();
        a.legal_choices(&mut la);
        b.legal_choices(&mut lb);
        if sa != sb || la != lb {
            break;
        }
        let choice = if sa == viewer {
            id += 1;
            let x = aa.handle(&line(ea.decide(&a, viewer, &la, id))).unwrap();
            let y = ab.handle(&line(eb.decide(&b, viewer, &lb, id))).unwrap();
            assert_eq!(x, y);
            serde_json::from_value::<Choice>(x["choice"].clone()).unwrap()
        } else {
            agents[sa].decide(&a, sa, &la).unwrap()
        };
        a.apply(choice).unwrap();
        b.apply(choice).unwrap();
    }
    assert_eq!(*ra.calls.borrow(), *rb.calls.borrow());
    assert_eq!(*ra.contexts.borrow(), *rb.contexts.borrow());
    let n = ra.calls.borrow().len();
    n
}

#[test]
fn nothing_a_seat_cannot_see_reaches_its_context() {
    // The worlds: every card the seat cannot see moved (others' hands, the deck).
    let mut compared = 0;
    // 60 games reach every table size, viewer and field (about 12,000
    // calls); 300 under KOTH_SOAK (about 60,000).
    let games = if std::env::var_os("KOTH_SOAK").is_some_and(|v| !v.is_empty() && v != "0") {
        300
    } else {
        60
    };
    for g in 0..games {
        let seats = 2 + (g % 5) as usize;
        let viewer = (g as usize) % seats;
        let names: Vec<&str> = ["Bob", "Ann", "Bob", "Di", "Ed", "Flo"][..seats].to_vec();
        let first = State::new(Rules::standard(), seats, 5000 + g);
        let mut moved = first.clone();
        moved.shuffle_hidden(viewer, &mut Rng::new(g));
        let others = ["random", "honest", "bluffer"][(g % 3) as usize];
        compared += twins(first, moved, viewer, &names, others);
    }
    eprintln!("{compared} calls compared");
    assert!(compared > 1000, "{compared}");
}
