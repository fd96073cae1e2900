//! The illegal-choice policy (specs/coup.md, "Illegal choices: forfeit or penalty")
//! and the `coupcli` preset.

use koth_arena::{play_game, Agent, Fault, GameSeeds, NoticeKind, RecordLevel, Scoring, Seat};
use koth_coup::Card::*;
use koth_coup::{Action, Card, Choice, Event, IllegalPolicy, Pending, Rules, State};

fn table(rules: Rules, hands: &[&[Card]], coins: &[u8]) -> State {
    let mut count = [3usize; 5];
    for h in hands {
        for c in *h {
            count[c.index()] -= 1;
        }
    }
    let mut deck = Vec::new();
    for c in Card::ALL {
        for _ in 0..count[c.index()] {
            deck.push(c);
        }
    }
    State::from_setup(rules, hands, coins, &deck, 1).unwrap()
}

fn penalty_rules() -> Rules {
    Rules {
        illegal: IllegalPolicy::Penalty,
        ..Rules::standard()
    }
}

#[test]
fn coupcli_preset() {
    let r = Rules::preset("coupcli").unwrap();
    assert_eq!(r.starting_coins, 0);
    assert_eq!(r.forced_coup_coins, 11);
    assert_eq!(r.illegal, IllegalPolicy::Penalty);
    assert!(r.challenge_and_block);
    let g = State::new(r, 4, 3);
    assert!((0..4).all(|s| g.coins(s) == 0));
    // Ten coins do not force a Coup there; eleven do.
    let mut legal = Vec::new();
    let ten = table(r, &[&[Duke, Duke], &[Captain, Captain]], &[10, 0]);
    ten.legal_choices(&mut legal);
    assert!(legal.contains(&Choice::Act(Action::Income)));
    legal.clear();
    let eleven = table(r, &[&[Duke, Duke], &[Captain, Captain]], &[11, 0]);
    eleven.legal_choices(&mut legal);
    assert!(legal
        .iter()
        .all(|c| matches!(c, Choice::Act(Action::Coup(_)))));
    assert_eq!(Rules::standard().illegal, IllegalPolicy::Forfeit);
}

#[test]
fn forfeit_policy_does_not_penalise() {
    let mut g = table(
        Rules::standard(),
        &[&[Duke, Duke], &[Captain, Captain]],
        &[2, 2],
    );
    assert!(!g.penalize(0));
    assert_eq!(g.pending(), Pending::Action { actor: 0 });
}

#[test]
fn only_the_seat_to_move_is_penalised() {
    let mut g = table(
        penalty_rules(),
        &[&[Duke, Duke], &[Captain, Captain]],
        &[2, 2],
    );
    assert!(!g.penalize(1));
    assert!(g.log().iter().all(|e| !matches!(e, Event::Penalty { .. })));
}

#[test]
fn a_penalised_turn_costs_a_card_and_passes() {
    let mut g = table(
        penalty_rules(),
        &[&[Duke, Assassin], &[Captain, Captain]],
        &[2, 2],
    );
    assert!(g.penalize(0));
    assert_eq!(g.pending(), Pending::LoseInfluence { player: 0 });
    g.apply(Choice::Lose(Assassin)).unwrap();
    assert_eq!(g.hand(0), [Duke]);
    assert_eq!(g.coins(0), 2);
    assert_eq!(g.pending(), Pending::Action { actor: 1 });
    assert_eq!(g.turns(), 1);
    assert!(g.log().contains(&Event::Penalty {
        player: 0,
        action: None
    }));
}

#[test]
fn a_penalty_shows_the_action_tried_on_a_turn_only() {
    // On its turn: the action tried (at the table) is public.
    let mut g = table(
        penalty_rules(),
        &[&[Duke, Assassin], &[Captain, Captain]],
        &[2, 2],
    );
    assert!(g.penalize_tried(0, Some(Choice::Act(Action::Assassinate(1)))));
    assert_eq!(
        g.log().last(),
        Some(&Event::Penalty {
            player: 0,
            action: Some(Action::Assassinate(1))
        })
    );
    // A target beyond the table is nobody's business: no action.
    let mut g = table(
        penalty_rules(),
        &[&[Duke, Assassin], &[Captain, Captain]],
        &[2, 2],
    );
    assert!(g.penalize_tried(0, Some(Choice::Act(Action::Coup(5)))));
    assert_eq!(
        g.log().last(),
        Some(&Event::Penalty {
            player: 0,
            action: None
        })
    );
    // Outside a turn (an illegal block, here) nothing is shown.
    let mut g = table(
        penalty_rules(),
        &[&[Duke, Assassin], &[Captain, Captain]],
        &[2, 2],
    );
    g.apply(Choice::Act(Action::ForeignAid)).unwrap();
    assert_eq!(g.to_move(), Some(1));
    assert!(g.penalize_tried(1, Some(Choice::Act(Action::Tax))));
    assert!(g.log().contains(&Event::Penalty {
        player: 1,
        action: None
    }));
}

#[test]
fn a_penalised_challenge_answer_counts_as_a_pass() {
    let mut g = table(
        penalty_rules(),
        &[&[Duke, Duke], &[Captain, Captain], &[Contessa, Contessa]],
        &[2, 2, 2],
    );
    g.apply(Choice::Act(Action::Tax)).unwrap();
    assert!(matches!(
        g.pending(),
        Pending::ChallengeAction { asker: 1, .. }
    ));
    assert!(g.penalize(1));
    g.apply(Choice::Lose(Captain)).unwrap();
    // Seat 1's answer was a pass: seat 2 is asked next, then the Tax goes through.
    assert!(matches!(
        g.pending(),
        Pending::ChallengeAction { asker: 2, .. }
    ));
    g.apply(Choice::Pass).unwrap();
    assert_eq!(g.coins(0), 5);
    assert_eq!(g.hand(1), [Captain]);
}

#[test]
fn a_penalised_block_answer_counts_as_no_block() {
    let mut g = table(
        penalty_rules(),
        &[&[Duke, Duke], &[Captain, Captain]],
        &[2, 2],
    );
    g.apply(Choice::Act(Action::ForeignAid)).unwrap();
    assert!(matches!(g.pending(), Pending::Block { asker: 1, .. }));
    assert!(g.penalize(1));
    g.apply(Choice::Lose(Captain)).unwrap();
    assert_eq!(g.coins(0), 4);
    assert_eq!(g.pending(), Pending::Action { actor: 1 });
}

#[test]
fn a_penalised_block_challenge_answer_lets_the_block_stand() {
    let mut g = table(
        penalty_rules(),
        &[&[Duke, Duke], &[Captain, Captain]],
        &[2, 2],
    );
    g.apply(Choice::Act(Action::ForeignAid)).unwrap();
    g.apply(Choice::Block(Duke)).unwrap();
    assert!(matches!(
        g.pending(),
        Pending::ChallengeBlock { asker: 0, .. }
    ));
    assert!(g.penalize(0));
    g.apply(Choice::Lose(Duke)).unwrap();
    assert_eq!(g.coins(0), 2, "the block stands");
    assert_eq!(g.pending(), Pending::Action { actor: 1 });
}

#[test]
fn a_penalised_exchange_keeps_the_hand_and_returns_the_draw() {
    let mut g = table(
        penalty_rules(),
        &[&[Ambassador, Duke], &[Captain, Captain]],
        &[2, 2],
    );
    g.apply(Choice::Act(Action::Exchange)).unwrap();
    g.apply(Choice::Pass).unwrap();
    assert_eq!(g.pending(), Pending::Exchange { actor: 0 });
    assert!(g.penalize(0));
    assert_eq!(g.deck_size(), 11);
    g.apply(Choice::Lose(Duke)).unwrap();
    assert_eq!(g.hand(0), [Ambassador]);
    assert_eq!(g.pending(), Pending::Action { actor: 1 });
    g.check_invariants().unwrap();
}

#[test]
fn an_illegal_card_to_lose_gives_up_the_first() {
    let mut g = table(
        penalty_rules(),
        &[&[Duke, Duke], &[Captain, Assassin]],
        &[7, 2],
    );
    g.apply(Choice::Act(Action::Coup(1))).unwrap();
    assert_eq!(g.pending(), Pending::LoseInfluence { player: 1 });
    assert!(g.penalize(1));
    assert_eq!(g.hand(1), [Assassin]);
    assert_eq!(g.pending(), Pending::Action { actor: 1 });
}

#[test]
fn a_penalty_can_eliminate() {
    let mut g = table(
        penalty_rules(),
        &[&[Duke, Contessa], &[Captain, Assassin]],
        &[2, 2],
    );
    assert!(g.penalize(0));
    g.apply(Choice::Lose(Contessa)).unwrap();
    g.apply(Choice::Act(Action::Income)).unwrap();
    assert!(g.penalize(0));
    g.apply(Choice::Lose(Duke)).unwrap();
    assert!(g.is_over());
    assert_eq!(g.outcome().unwrap().winners.iter().collect::<Vec<_>>(), [1]);
}

/// Coups whoever it can, and with no coins answers an illegal Coup anyway.
struct Reckless;

impl Agent<State> for Reckless {
    fn decide(&mut self, g: &State, seat: Seat, legal: &[Choice]) -> Result<Choice, Fault> {
        if let Pending::Action { .. } = g.pending() {
            let target = (seat + 1) % g.players();
            return Ok(Choice::Act(Action::Coup(target)));
        }
        Ok(legal[0])
    }
}

/// Passes, takes Income, loses its first card.
struct Calm;

impl Agent<State> for Calm {
    fn decide(&mut self, g: &State, _: Seat, legal: &[Choice]) -> Result<Choice, Fault> {
        if let Pending::Action { .. } = g.pending() {
            return Ok(Choice::Act(Action::Income));
        }
        Ok(legal[0])
    }
}

fn one_game(rules: Rules) -> koth_arena::GameRecord<Choice> {
    let mut g = State::new(rules, 2, GameSeeds::of(11, 0).deal);
    let (mut a, mut b) = (Reckless, Calm);
    let mut agents: Vec<&mut dyn Agent<State>> = vec![&mut a, &mut b];
    play_game(
        &mut g,
        &mut agents,
        &[0, 1],
        0,
        GameSeeds::of(11, 0),
        Scoring::ZeroSum,
        RecordLevel::Full,
        &mut Vec::new(),
    )
    .0
}

#[test]
fn the_arena_penalises_under_coupcli_and_forfeits_under_standard() {
    let rec = one_game(Rules::coupcli());
    let penalties: Vec<_> = rec
        .notices
        .iter()
        .filter(|n| n.kind == NoticeKind::Penalty)
        .collect();
    // The reckless bot has 0 coins: its first Coup is illegal, so is its second,
    // and the second penalty takes its last card.
    assert_eq!(penalties.len(), 2, "{:?}", rec.notices);
    assert!(penalties.iter().all(|n| n.seat == 0));
    assert!(rec.forfeits.is_empty());
    assert_eq!(rec.outcome.winners.iter().collect::<Vec<_>>(), [1]);
    // The Coup it tried is kept, and the record replays, penalties included, with
    // the tried Coup public in each (as coup-cli's history shows it).
    let coup = Choice::Act(Action::Coup(1));
    assert!(penalties
        .iter()
        .all(|n| n.tried == koth_arena::ChoiceCode::code(&coup)));
    let g: State = koth_arena::records::replay(&Rules::coupcli(), &rec, |_| {}).unwrap();
    let shown: Vec<_> = g
        .log()
        .iter()
        .filter(|e| matches!(e, Event::Penalty { .. }))
        .collect();
    assert_eq!(
        shown,
        [&Event::Penalty {
            player: 0,
            action: Some(Action::Coup(1))
        }; 2]
    );

    let rec = one_game(Rules::standard());
    assert!(rec.notices.is_empty());
    assert_eq!(rec.forfeits.len(), 1);
    assert!(rec.forfeits[0].fault.reason.contains("illegal choice"));
}

#[test]
fn coupcli_lets_a_player_with_no_coins_be_stolen_from() {
    let mut legal = Vec::new();
    let g = table(
        Rules::coupcli(),
        &[&[Captain, Duke], &[Contessa, Assassin]],
        &[0, 0],
    );
    g.legal_choices(&mut legal);
    assert!(legal.contains(&Choice::Act(Action::Steal(1))));
    legal.clear();
    let g = table(
        Rules::standard(),
        &[&[Captain, Duke], &[Contessa, Assassin]],
        &[0, 0],
    );
    g.legal_choices(&mut legal);
    assert!(!legal.contains(&Choice::Act(Action::Steal(1))));
}

#[test]
fn coupcli_keeps_the_coins_of_a_failed_assassination() {
    for (rules, coins) in [(Rules::coupcli(), 0), (Rules::standard(), 3)] {
        let mut g = table(rules, &[&[Captain, Duke], &[Contessa, Assassin]], &[3, 0]);
        g.apply(Choice::Act(Action::Assassinate(1))).unwrap();
        g.apply(Choice::Challenge).unwrap();
        g.apply(Choice::Lose(Captain)).unwrap();
        assert_eq!(g.coins(0), coins, "{:?}", rules.preset);
    }
}

/// The seats asked, in order, when every player lets `actor`'s Tax stand.
fn askers(g: &mut State, actor: Seat) -> Vec<Seat> {
    assert_eq!(g.pending(), Pending::Action { actor });
    g.apply(Choice::Act(Action::Tax)).unwrap();
    let mut out = Vec::new();
    while let Pending::ChallengeAction { asker, .. } = g.pending() {
        out.push(asker);
        g.apply(Choice::Pass).unwrap();
    }
    out
}

#[test]
fn coupcli_asks_in_one_table_order_whoever_acts() {
    let mut starts = std::collections::BTreeSet::new();
    for seed in 0..40 {
        let mut g = State::new(Rules::coupcli(), 4, seed);
        let first = askers(&mut g, 0);
        let second = askers(&mut g, 1);
        // Both follow one cyclic order of the table, starting at some seat t,
        // without the claimant.
        let rotation = |t: Seat, c: Seat| {
            (0..4)
                .map(|k| (t + k) % 4)
                .filter(|&s| s != c)
                .collect::<Vec<_>>()
        };
        let t = (0..4)
            .find(|&t| rotation(t, 0) == first && rotation(t, 1) == second)
            .unwrap_or_else(|| panic!("seed {seed}: {first:?} then {second:?}"));
        starts.insert(t);
    }
    assert!(
        starts.len() > 1,
        "the table order starts at a seat drawn with the deal"
    );
    // Standard rules ask from the claimant's left.
    let mut g = State::new(Rules::standard(), 4, 1);
    assert_eq!(askers(&mut g, 0), [1, 2, 3]);
    assert_eq!(askers(&mut g, 1), [2, 3, 0]);
}
