//! The ladder's built-ins (calculator, taxman, statistician, lawyer): each one's
//! rules, one test a rule, at two seats under the two-player challenge's rules.

use koth_coup::bots::{self, Ladder};
use koth_coup::{Action, Bot, Card, Choice, Rules, State, View};

use Card::*;

/// Two seats holding `hands` with `coins`, the rest of the cards the deck (a
/// one-card hand's lost card is the first the deck can spare, face up); seat 0
/// to act.
fn duel(hands: [&[Card]; 2], coins: [u8; 2]) -> State {
    let mut deck: Vec<Card> = koth_coup::full_deck().to_vec();
    for c in hands.iter().flat_map(|h| h.iter()) {
        let i = deck.iter().position(|x| x == c).unwrap();
        deck.remove(i);
    }
    for _ in hands.iter().filter(|h| h.len() == 1) {
        let lost = Card::ALL.into_iter().find(|c| deck.contains(c)).unwrap();
        let i = deck.iter().position(|&x| x == lost).unwrap();
        deck.remove(i);
    }
    let g = State::from_setup(Rules::ppcg(), &hands, &coins, &deck, 1).unwrap();
    assert_eq!(g.to_move(), Some(0));
    g
}

fn answer(mut bot: Ladder, g: &State, seat: usize) -> Choice {
    bot.start(&View::new(g, seat), 1);
    let mut legal = Vec::new();
    g.legal_choices(&mut legal);
    let c = bot.decide(&View::new(g, seat), &legal);
    assert!(legal.contains(&c), "{c:?} is not among {legal:?}");
    c
}

/// Seat 0 has taken `action`; seat 1 is asked.
fn after(mut g: State, action: Action) -> State {
    g.apply(Choice::Act(action)).unwrap();
    assert_eq!(g.to_move(), Some(1));
    g
}

#[test]
fn the_calculator_plays_the_fastest_truthful_plan() {
    let calc = Ladder::calculator();
    // A Duke: three coins a turn.
    let g = duel([&[Duke, Contessa], &[Captain, Ambassador]], [1, 0]);
    assert_eq!(answer(calc, &g, 0), Choice::Act(Action::Tax));
    // A Captain against two coins takes four a turn from the race: faster than Tax.
    let g = duel([&[Duke, Captain], &[Contessa, Ambassador]], [1, 2]);
    assert_eq!(answer(calc, &g, 0), Choice::Act(Action::Steal(1)));
    // Nothing to claim truthfully: Foreign Aid, never a bluffed Tax.
    let g = duel([&[Contessa, Ambassador], &[Duke, Captain]], [1, 1]);
    assert_eq!(answer(calc, &g, 0), Choice::Act(Action::ForeignAid));
    // An Assassin and three coins: the cheapest kill.
    let g = duel([&[Assassin, Ambassador], &[Duke, Captain]], [3, 1]);
    assert_eq!(answer(calc, &g, 0), Choice::Act(Action::Assassinate(1)));
    // Seven coins and no Assassin: a Coup.
    let g = duel([&[Duke, Ambassador], &[Duke, Captain]], [7, 1]);
    assert_eq!(answer(calc, &g, 0), Choice::Act(Action::Coup(1)));
}

#[test]
fn the_calculator_calls_only_what_cannot_be_true_or_would_end_it() {
    let calc = Ladder::calculator();
    // A Tax it cannot rule out: let it stand.
    let g = after(
        duel([&[Captain, Ambassador], &[Duke, Contessa]], [1, 1]),
        Action::Tax,
    );
    assert_eq!(answer(calc, &g, 1), Choice::Pass);
    // Its last card assassinated, no Contessa: the call is its only chance.
    let g = after(
        duel([&[Assassin, Ambassador], &[Duke]], [3, 1]),
        Action::Assassinate(1),
    );
    assert_eq!(answer(calc, &g, 1), Choice::Challenge);
    // With a Contessa it blocks truthfully instead.
    let g = after(
        duel([&[Assassin, Ambassador], &[Contessa]], [3, 1]),
        Action::Assassinate(1),
    );
    assert_eq!(answer(calc, &g, 1), Choice::Block(Contessa));
}

#[test]
fn the_taxman_claims_a_duke_it_may_not_hold() {
    let tax = Ladder::taxman();
    let g = duel([&[Contessa, Ambassador], &[Duke, Captain]], [1, 1]);
    assert_eq!(answer(tax, &g, 0), Choice::Act(Action::Tax));
    // And blocks Foreign Aid as a Duke without one.
    let g = after(
        duel([&[Captain, Ambassador], &[Contessa, Assassin]], [1, 1]),
        Action::ForeignAid,
    );
    assert_eq!(answer(tax, &g, 1), Choice::Block(Duke));
    // Seven coins: a Coup.
    let g = duel([&[Contessa, Ambassador], &[Duke, Captain]], [7, 1]);
    assert_eq!(answer(tax, &g, 0), Choice::Act(Action::Coup(1)));
}

#[test]
fn the_statistician_calls_what_the_unseen_cards_make_unlikely() {
    let stat = Ladder::statistician();
    // Holding a Duke, two of the thirteen unseen cards are Dukes: a Tax is
    // true 29.5% of the time, under its 30%.
    let g = after(
        duel([&[Captain, Ambassador], &[Duke, Contessa]], [1, 1]),
        Action::Tax,
    );
    assert_eq!(answer(stat, &g, 1), Choice::Challenge);
    // Without one, three of thirteen: 42%, let it stand.
    let g = after(
        duel([&[Captain, Ambassador], &[Assassin, Contessa]], [1, 1]),
        Action::Tax,
    );
    assert_eq!(answer(stat, &g, 1), Choice::Pass);
}

#[test]
fn the_lawyer_calls_every_claim_while_it_has_two_cards() {
    let law = Ladder::lawyer();
    let g = after(
        duel([&[Duke, Ambassador], &[Assassin, Contessa]], [1, 1]),
        Action::Tax,
    );
    assert_eq!(answer(law, &g, 1), Choice::Challenge);
    // With one card, a claim of a card nobody has shown stands.
    let g = after(
        duel([&[Duke, Ambassador], &[Contessa]], [1, 1]),
        Action::Tax,
    );
    assert_eq!(answer(law, &g, 1), Choice::Pass);
    // It never claims what it does not hold.
    let g = duel([&[Contessa, Ambassador], &[Duke, Captain]], [1, 1]);
    assert_eq!(answer(law, &g, 0), Choice::Act(Action::ForeignAid));
}

#[test]
fn the_ladder_is_named_and_left_out_of_the_default_field() {
    for (name, _) in bots::LADDER {
        assert!(bots::is_builtin(name), "{name}");
        assert!(bots::builtin(name).is_some() && bots::builtin_agent(name).is_some());
        assert!(!bots::BUILTINS.iter().any(|b| b.0 == name), "{name}");
    }
}
