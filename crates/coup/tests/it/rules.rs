//! Golden tests: every rule case of specs/coup.md as a short scripted game.

use koth_arena::{Ending, SeatSet};
use koth_coup::Card::{self, *};
use koth_coup::{Action, Choice, Event, Keep, Pending, Rules, State};

/// A game from explicit hands, coins and deck (bottom to top).
fn setup(rules: Rules, hands: &[&[Card]], coins: &[u8], deck: &[Card]) -> State {
    State::from_setup(rules, hands, coins, deck, 1).unwrap()
}

/// The rest of the deck for `hands`: all cards not dealt.
fn rest(hands: &[&[Card]]) -> Vec<Card> {
    let mut d = koth_coup::full_deck().to_vec();
    for h in hands {
        for c in h.iter() {
            let i = d.iter().position(|x| x == c).unwrap();
            d.remove(i);
        }
    }
    d
}

fn std_game(hands: &[&[Card]], coins: &[u8]) -> State {
    setup(Rules::standard(), hands, coins, &rest(hands))
}

fn play(g: &mut State, choices: &[Choice]) {
    for (i, &c) in choices.iter().enumerate() {
        g.apply(c)
            .unwrap_or_else(|e| panic!("step {i}: {e}; pending {:?}", g.pending()));
        g.check_invariants().unwrap();
    }
}

fn legal(g: &State) -> Vec<Choice> {
    let mut v = Vec::new();
    g.legal_choices(&mut v);
    v
}

use Choice::{Block, Challenge, Lose, Pass};
fn act(a: Action) -> Choice {
    Choice::Act(a)
}

#[test]
fn failed_challenge_of_an_assassinate_costs_the_target_two_influence() {
    let mut g = std_game(&[&[Assassin, Duke], &[Captain, Contessa]], &[3, 2]);
    play(&mut g, &[act(Action::Assassinate(1)), Challenge]);
    assert!(g.log().contains(&Event::Reveal {
        player: 0,
        card: Assassin,
        replaced: true
    }));
    assert_eq!(g.pending(), Pending::LoseInfluence { player: 1 });
    play(&mut g, &[Lose(Captain)]);
    // Standard rules: the target may still block after losing the challenge.
    assert_eq!(
        g.pending(),
        Pending::Block {
            actor: 0,
            action: Action::Assassinate(1),
            asker: 1
        }
    );
    play(&mut g, &[Pass, Lose(Contessa)]);
    assert_eq!(g.influence(1), 0);
    let o = g.outcome().unwrap();
    assert_eq!(o.winners, SeatSet::single(0));
    assert_eq!(o.ending, Ending::Decided);
    assert_eq!(g.coins(0), 0, "the assassination was paid");
}

#[test]
fn a_target_may_block_after_losing_a_challenge() {
    let mut g = std_game(&[&[Assassin, Duke], &[Captain, Contessa]], &[3, 2]);
    play(
        &mut g,
        &[
            act(Action::Assassinate(1)),
            Challenge,
            Lose(Captain),
            Block(Contessa),
            Pass,
        ],
    );
    assert_eq!(g.influence(1), 1);
    assert!(g.log().contains(&Event::Blocked { blocker: 1 }));
    assert_eq!(g.coins(0), 0, "coins stay spent when blocked");
}

#[test]
fn a_caught_contessa_bluff_costs_two_influence() {
    let mut g = std_game(&[&[Assassin, Duke], &[Captain, Ambassador]], &[3, 2]);
    play(
        &mut g,
        &[
            act(Action::Assassinate(1)),
            Pass,
            Block(Contessa),
            Challenge,
        ],
    );
    assert!(g.log().contains(&Event::CaughtBluffing {
        player: 1,
        card: Contessa
    }));
    play(&mut g, &[Lose(Captain)]);
    // The block fails, the assassination goes on.
    assert_eq!(g.pending(), Pending::LoseInfluence { player: 1 });
    play(&mut g, &[Lose(Ambassador)]);
    assert_eq!(g.outcome().unwrap().winners, SeatSet::single(0));
}

#[test]
fn assassinate_coins_are_refunded_when_the_claim_is_caught() {
    let mut g = std_game(
        &[&[Captain, Duke], &[Captain, Contessa], &[Duke, Duke]],
        &[3, 2, 2],
    );
    play(&mut g, &[act(Action::Assassinate(1))]);
    assert_eq!(g.coins(0), 0, "paid on declaring");
    play(&mut g, &[Pass, Challenge]);
    assert!(g.log().contains(&Event::Refund {
        player: 0,
        coins: 3
    }));
    assert_eq!(g.coins(0), 3);
    play(&mut g, &[Lose(Captain)]);
    assert_eq!(g.influence(1), 2, "the action failed");
    assert_eq!(g.pending(), Pending::Action { actor: 1 });
}

#[test]
fn assassinate_coins_are_not_refunded_when_blocked() {
    let mut g = std_game(&[&[Assassin, Duke], &[Captain, Contessa]], &[3, 2]);
    play(
        &mut g,
        &[act(Action::Assassinate(1)), Pass, Block(Contessa), Pass],
    );
    assert_eq!(g.coins(0), 0);
    assert_eq!(g.influence(1), 2);
    assert_eq!(g.pending(), Pending::Action { actor: 1 });
}

#[test]
fn a_blocked_assassination_with_a_real_contessa_costs_the_challenger() {
    let mut g = std_game(&[&[Assassin, Duke], &[Captain, Contessa]], &[3, 2]);
    play(
        &mut g,
        &[
            act(Action::Assassinate(1)),
            Pass,
            Block(Contessa),
            Challenge,
        ],
    );
    assert!(g.log().contains(&Event::Reveal {
        player: 1,
        card: Contessa,
        replaced: true
    }));
    assert_eq!(g.pending(), Pending::LoseInfluence { player: 0 });
    play(&mut g, &[Lose(Duke)]);
    assert_eq!(g.influence(1), 2);
    assert!(g.log().contains(&Event::Blocked { blocker: 1 }));
}

#[test]
fn steal_from_a_one_coin_player_takes_one() {
    let mut g = std_game(&[&[Captain, Duke], &[Captain, Contessa]], &[2, 1]);
    play(&mut g, &[act(Action::Steal(1)), Pass, Pass]);
    assert_eq!((g.coins(0), g.coins(1)), (3, 0));
    assert!(g.log().contains(&Event::Steal {
        thief: 0,
        victim: 1,
        coins: 1
    }));
    let mut g = std_game(&[&[Captain, Duke], &[Captain, Contessa]], &[2, 5]);
    play(&mut g, &[act(Action::Steal(1)), Pass, Pass]);
    assert_eq!((g.coins(0), g.coins(1)), (4, 3));
}

#[test]
fn steal_needs_a_target_with_coins() {
    let g = std_game(&[&[Captain, Duke], &[Captain, Contessa]], &[2, 0]);
    assert!(!legal(&g).contains(&act(Action::Steal(1))));
    assert!(g.clone().apply(act(Action::Steal(1))).is_err());
}

#[test]
fn steal_can_be_blocked_with_captain_or_ambassador() {
    let g = {
        let mut g = std_game(&[&[Captain, Duke], &[Ambassador, Contessa]], &[2, 4]);
        play(&mut g, &[act(Action::Steal(1)), Pass]);
        g
    };
    assert_eq!(legal(&g), vec![Pass, Block(Captain), Block(Ambassador)]);
    let mut g2 = g.clone();
    play(&mut g2, &[Block(Ambassador), Pass]);
    assert_eq!((g2.coins(0), g2.coins(1)), (2, 4));
}

#[test]
fn a_truthful_revealed_card_returns_to_the_deck_and_is_replaced() {
    // The deck holds no Duke: the replacement can only be a Duke if the revealed one
    // went back first (return, shuffle, draw).
    let hands: [&[Card]; 2] = [&[Duke, Captain], &[Duke, Duke]];
    let deck = rest(&hands);
    assert!(!deck.contains(&Duke));
    let mut drew_duke_back = 0;
    let mut drew_other = 0;
    for seed in 0..200 {
        let mut g = State::from_setup(Rules::standard(), &hands, &[2, 2], &deck, seed).unwrap();
        play(&mut g, &[act(Action::Tax), Challenge]);
        assert_eq!(g.deck_size(), deck.len(), "returned one, drew one");
        assert_eq!(
            g.influence(0),
            2,
            "a player revealing to win keeps their influence count"
        );
        match g.hand(0).iter().filter(|&&c| c == Duke).count() {
            1 => drew_duke_back += 1,
            0 => drew_other += 1,
            n => panic!("{n} dukes"),
        }
        assert!(g.hand(0).contains(&Captain));
        play(&mut g, &[Lose(Duke)]);
        assert_eq!(g.coins(0), 5, "the action goes on");
        assert_eq!(
            g.revealed(1),
            [Duke],
            "lost cards stay face up, out of the deck"
        );
    }
    assert!(
        drew_duke_back > 0 && drew_other > 0,
        "{drew_duke_back} {drew_other}"
    );
}

#[test]
fn ppcg_draws_the_replacement_before_the_revealed_card_goes_back() {
    // Seed 000's arbiter: draw the replacement from the top of the deck, then return
    // the revealed card and shuffle. With no Duke in the deck the revealed Duke can
    // never come straight back, and the replacement is the deck's top card, whatever
    // the seed; the Duke is in the deck afterwards.
    let hands: [&[Card]; 2] = [&[Duke, Captain], &[Duke, Duke]];
    let deck = rest(&hands);
    let top = *deck.last().unwrap();
    for seed in 0..200 {
        let mut g = State::from_setup(Rules::ppcg(), &hands, &[1, 1], &deck, seed).unwrap();
        play(&mut g, &[act(Action::Tax), Challenge]);
        assert_eq!(g.deck_size(), deck.len(), "drew one, returned one");
        let mut hand = g.hand(0).to_vec();
        hand.sort();
        let mut want = vec![top, Captain];
        want.sort();
        assert_eq!(hand, want, "seed {seed}: the top card replaces the Duke");
        assert!(g.deck().contains(&Duke), "the Duke went back");
    }
    // The standard order (return, shuffle, draw) gives the Duke back sometimes.
    let back = (0..200)
        .filter(|&seed| {
            let mut g = State::from_setup(Rules::standard(), &hands, &[2, 2], &deck, seed).unwrap();
            play(&mut g, &[act(Action::Tax), Challenge]);
            g.hand(0).contains(&Duke)
        })
        .count();
    assert!(back > 0);
}

#[test]
fn forced_coup_at_ten_coins() {
    let g = std_game(
        &[&[Captain, Duke], &[Captain, Contessa], &[Duke, Assassin]],
        &[10, 2, 2],
    );
    assert_eq!(legal(&g), vec![act(Action::Coup(1)), act(Action::Coup(2))]);
    let g = std_game(&[&[Captain, Duke], &[Captain, Contessa]], &[9, 2]);
    assert!(legal(&g).contains(&act(Action::Income)));
    assert!(legal(&g).contains(&act(Action::Coup(1))));
}

#[test]
fn coup_costs_seven_and_assassinate_three() {
    let g = std_game(&[&[Captain, Duke], &[Captain, Contessa]], &[6, 2]);
    let l = legal(&g);
    assert!(!l.contains(&act(Action::Coup(1))));
    assert!(l.contains(&act(Action::Assassinate(1))));
    let g = std_game(&[&[Captain, Duke], &[Captain, Contessa]], &[2, 2]);
    assert!(!legal(&g).contains(&act(Action::Assassinate(1))));
    assert!(!g.is_legal(act(Action::Assassinate(1))));
    // At the boundaries: 3 coins assassinate, 7 coup (the list and the check agree).
    let g = std_game(&[&[Captain, Duke], &[Captain, Contessa]], &[3, 2]);
    assert!(legal(&g).contains(&act(Action::Assassinate(1))));
    assert!(g.is_legal(act(Action::Assassinate(1))));
    let g = std_game(&[&[Captain, Duke], &[Captain, Contessa]], &[7, 2]);
    assert!(legal(&g).contains(&act(Action::Coup(1))));
    assert!(g.is_legal(act(Action::Coup(1))));
    let mut g = std_game(&[&[Captain, Duke], &[Captain, Contessa]], &[7, 2]);
    play(&mut g, &[act(Action::Coup(1))]);
    assert_eq!(g.coins(0), 0);
    assert_eq!(legal(&g), vec![Lose(Captain), Lose(Contessa)]);
    play(&mut g, &[Lose(Contessa)]);
    assert_eq!(g.revealed(1), [Contessa]);
}

#[test]
fn the_hand_after_an_exchange_is_in_the_order_kept() {
    // coup-cli sets card1, card2 from the bot's answer, and its bots lose "their
    // first card": the order is part of the game. Sorted and unsorted keeps are the
    // same legal choice.
    let hands: [&[Card]; 2] = [&[Ambassador, Duke], &[Captain, Contessa]];
    for rules in [Rules::standard(), Rules::coupcli()] {
        let mut g = setup(
            rules,
            &hands,
            &[2, 2],
            &rest(&[&[Ambassador, Duke], &[Captain, Contessa]]),
        );
        play(&mut g, &[act(Action::Exchange), Pass]);
        let mut pool = g.hand(0).to_vec();
        pool.extend(g.drawn().unwrap());
        pool.sort();
        pool.dedup();
        let (lo, hi) = (pool[0], pool[pool.len() - 1]);
        assert!(lo < hi, "{pool:?}");
        let keep = Keep::in_order(&[hi, lo]).unwrap();
        assert!(legal(&g).contains(&Choice::Keep(keep)));
        play(&mut g, &[Choice::Keep(keep)]);
        assert_eq!(g.hand(0), [hi, lo]);
    }
}

#[test]
fn exchange_keeps_the_hand_size() {
    let hands: [&[Card]; 2] = [&[Ambassador, Duke], &[Captain, Contessa]];
    let mut g = std_game(&hands, &[2, 2]);
    let deck_before = g.deck_size();
    play(&mut g, &[act(Action::Exchange), Pass]);
    let drawn = g.drawn().unwrap();
    let options = legal(&g);
    assert!(options
        .iter()
        .all(|c| matches!(c, Choice::Keep(k) if k.cards().len() == 2)));
    // Four cards give at most six pairs.
    assert!(!options.is_empty() && options.len() <= 6);
    let keep = Keep::new(&[drawn[0], drawn[1]]).unwrap();
    play(&mut g, &[Choice::Keep(keep)]);
    assert_eq!(g.influence(0), 2);
    assert_eq!(g.deck_size(), deck_before);
    let mut held = g.hand(0).to_vec();
    held.sort();
    let mut want = drawn.to_vec();
    want.sort();
    assert_eq!(held, want);

    // With one influence, keep one card of three.
    let mut g = setup(
        Rules::standard(),
        &[&[Ambassador], &[Captain, Contessa]],
        &[2, 2],
        &rest(&[&[Ambassador, Duke], &[Captain, Contessa]]),
    );
    play(&mut g, &[act(Action::Exchange), Pass]);
    assert!(legal(&g)
        .iter()
        .all(|c| matches!(c, Choice::Keep(k) if k.cards().len() == 1)));
    let first = legal(&g)[0];
    play(&mut g, &[first]);
    assert_eq!(g.influence(0), 1);
}

#[test]
fn a_bad_keep_is_refused() {
    let mut g = std_game(&[&[Ambassador, Duke], &[Captain, Contessa]], &[2, 2]);
    play(&mut g, &[act(Action::Exchange), Pass]);
    let drawn = g.drawn().unwrap();
    let pool = [Ambassador, Duke, drawn[0], drawn[1]];
    let absent = Card::ALL.into_iter().find(|c| !pool.contains(c)).unwrap();
    // A card from outside hand and drawn, too few cards, or two copies of one held once.
    let twice = [Ambassador, Duke]
        .into_iter()
        .find(|c| pool.iter().filter(|&x| x == c).count() == 1)
        .unwrap();
    let bad = [
        Keep::new(&[absent, Duke]).unwrap(),
        Keep::new(&[Duke]).unwrap(),
        Keep::new(&[twice, twice]).unwrap(),
    ];
    for k in bad {
        assert!(
            g.clone().apply(Choice::Keep(k)).is_err(),
            "{k:?} must be refused"
        );
    }
}

#[test]
fn foreign_aid_may_be_blocked_by_any_player_in_seat_order() {
    let hands: [&[Card]; 4] = [
        &[Captain, Ambassador],
        &[Captain, Contessa],
        &[Duke, Assassin],
        &[Duke, Contessa],
    ];
    let mut g = std_game(&hands, &[2, 2, 2, 2]);
    play(&mut g, &[act(Action::ForeignAid)]);
    assert_eq!(
        g.pending(),
        Pending::Block {
            actor: 0,
            action: Action::ForeignAid,
            asker: 1
        }
    );
    play(&mut g, &[Pass]);
    assert_eq!(
        g.pending(),
        Pending::Block {
            actor: 0,
            action: Action::ForeignAid,
            asker: 2
        }
    );
    play(&mut g, &[Block(Duke)]);
    // Every other live player, the actor included, may challenge the block, in seat
    // order after the blocker.
    let askers: Vec<usize> = (0..3)
        .map(|_| {
            let a = match g.pending() {
                Pending::ChallengeBlock { asker, .. } => asker,
                p => panic!("{p:?}"),
            };
            play(&mut g, &[Pass]);
            a
        })
        .collect();
    assert_eq!(askers, [3, 0, 1]);
    assert!(g.log().contains(&Event::Blocked { blocker: 2 }));
    assert_eq!(g.coins(0), 2);
    assert_eq!(g.pending(), Pending::Action { actor: 1 });
}

#[test]
fn foreign_aid_unblocked_gives_two() {
    let mut g = std_game(
        &[
            &[Captain, Ambassador],
            &[Captain, Contessa],
            &[Duke, Assassin],
        ],
        &[2, 2, 2],
    );
    play(&mut g, &[act(Action::ForeignAid), Pass, Pass]);
    assert_eq!(g.coins(0), 4);
}

#[test]
fn challenges_are_asked_in_seat_order_after_the_actor() {
    let hands: [&[Card]; 4] = [
        &[Captain, Ambassador],
        &[Captain, Contessa],
        &[Duke, Assassin],
        &[Duke, Contessa],
    ];
    let mut g = std_game(&hands, &[2, 2, 2, 2]);
    play(&mut g, &[act(Action::Income), act(Action::Tax)]);
    let mut askers = Vec::new();
    while let Pending::ChallengeAction { asker, .. } = g.pending() {
        askers.push(asker);
        play(&mut g, &[Pass]);
    }
    assert_eq!(askers, [2, 3, 0]);
    assert_eq!(g.coins(1), 5);
}

#[test]
fn dead_players_are_never_asked() {
    let hands: [&[Card]; 3] = [
        &[Captain, Ambassador],
        &[Captain, Contessa],
        &[Duke, Assassin],
    ];
    let mut g = std_game(&hands, &[7, 2, 2]);
    play(&mut g, &[act(Action::Coup(1)), Lose(Captain)]);
    // Seat 1 still in with one card; coup again later. Kill seat 1 through a lost
    // challenge instead: seat 1 challenges seat 2's true Duke.
    play(
        &mut g,
        &[
            act(Action::Income),
            act(Action::Tax),
            Pass,
            Challenge,
            Lose(Contessa),
        ],
    );
    assert!(!g.is_alive(1));
    // Seat 2's tax goes on; seat 0 is the only one left to ask.
    assert_eq!(g.coins(2), 5);
    assert_eq!(g.pending(), Pending::Action { actor: 0 });
    play(&mut g, &[act(Action::Tax)]);
    assert_eq!(
        g.pending(),
        Pending::ChallengeAction {
            actor: 0,
            action: Action::Tax,
            asker: 2
        }
    );
}

#[test]
fn the_turn_cap_ends_with_every_survivor_a_winner() {
    let mut rules = Rules::standard();
    rules.turn_cap = 4;
    let hands: [&[Card]; 3] = [
        &[Captain, Ambassador],
        &[Captain, Contessa],
        &[Duke, Assassin],
    ];
    let mut g = setup(rules, &hands, &[2, 2, 2], &rest(&hands));
    play(
        &mut g,
        &[
            act(Action::Income),
            act(Action::Income),
            act(Action::Income),
        ],
    );
    assert!(!g.is_over());
    play(&mut g, &[act(Action::Income)]);
    let o = g.outcome().unwrap();
    assert_eq!(o.ending, Ending::TurnCap);
    assert_eq!(o.winners, SeatSet::all(3));
    assert_eq!(o.turns, 4);
}

#[test]
fn forfeit_reveals_everything_and_the_game_goes_on() {
    let hands: [&[Card]; 3] = [
        &[Captain, Ambassador],
        &[Captain, Contessa],
        &[Duke, Assassin],
    ];
    let mut g = std_game(&hands, &[2, 2, 2]);
    play(&mut g, &[act(Action::Tax)]);
    // Seat 1 is asked and forfeits: it is out, the round moves on to seat 2.
    g.forfeit(1);
    g.check_invariants().unwrap();
    assert_eq!(g.revealed(1), [Captain, Contessa]);
    assert_eq!(
        g.pending(),
        Pending::ChallengeAction {
            actor: 0,
            action: Action::Tax,
            asker: 2
        }
    );
    play(&mut g, &[Pass]);
    assert_eq!(g.coins(0), 5);
    assert_eq!(g.pending(), Pending::Action { actor: 2 });
    g.forfeit(2);
    assert_eq!(g.outcome().unwrap().winners, SeatSet::single(0));
}

#[test]
fn a_forfeit_before_the_first_action_counts_no_turn() {
    let hands: [&[Card]; 3] = [
        &[Captain, Ambassador],
        &[Captain, Contessa],
        &[Duke, Assassin],
    ];
    let mut g = std_game(&hands, &[2, 2, 2]);
    // Seat 0 cannot even start (a bot that failed to launch): nothing was played.
    g.forfeit(0);
    g.check_invariants().unwrap();
    assert_eq!(g.turns(), 0);
    assert_eq!(g.pending(), Pending::Action { actor: 1 });
    assert_eq!(
        g.log().last(),
        Some(&Event::Turn {
            actor: 1,
            number: 0
        })
    );
    play(&mut g, &[act(Action::Income)]);
    assert_eq!(g.turns(), 1);
    // A forfeit after declaring still ends a played turn.
    play(&mut g, &[act(Action::Tax)]);
    g.forfeit(2);
    assert_eq!(g.outcome().unwrap().turns, 2);
}

#[test]
fn the_turn_that_decides_the_game_is_counted() {
    let mut g = std_game(&[&[Captain, Duke], &[Contessa, Duke]], &[14, 2]);
    play(
        &mut g,
        &[act(Action::Coup(1)), Lose(Contessa), act(Action::Income)],
    );
    assert_eq!(g.turns(), 2);
    play(&mut g, &[act(Action::Coup(1))]);
    if !g.is_over() {
        play(&mut g, &[Lose(Duke)]);
    }
    let o = g.outcome().unwrap();
    assert_eq!(o.winners, SeatSet::single(0));
    // Three turns were played, and the log's last header says "Turn 3".
    assert_eq!(o.turns, 3);
    let last_header = g
        .log()
        .iter()
        .rev()
        .find_map(|e| match e {
            Event::Turn { number, .. } => Some(number + 1),
            _ => None,
        })
        .unwrap();
    assert_eq!(last_header, o.turns);
}

#[test]
fn answers_out_of_turn_are_refused() {
    let mut g = std_game(&[&[Captain, Duke], &[Captain, Contessa]], &[2, 2]);
    for c in [Pass, Challenge, Block(Duke), Lose(Captain)] {
        assert!(g.apply(c).is_err());
    }
    play(&mut g, &[act(Action::Tax)]);
    assert!(g.apply(act(Action::Income)).is_err());
    assert!(g.apply(Block(Duke)).is_err(), "Tax cannot be blocked");
}

// ----- the ppcg rule set -----

#[test]
fn ppcg_starts_with_one_coin_and_two_players() {
    let g = State::new(Rules::ppcg(), 2, 5);
    assert_eq!((g.coins(0), g.coins(1)), (1, 1));
    assert_eq!(g.influence(0), 2);
}

#[test]
fn ppcg_target_answers_once_challenge_or_block() {
    let hands: [&[Card]; 2] = [&[Captain, Duke], &[Ambassador, Contessa]];
    let mut g = setup(Rules::ppcg(), &hands, &[1, 3], &rest(&hands));
    play(&mut g, &[act(Action::Steal(1))]);
    assert_eq!(
        legal(&g),
        vec![Pass, Challenge, Block(Captain), Block(Ambassador)]
    );
    // Challenge and lose: no block afterwards, the steal goes through.
    play(&mut g, &[Challenge, Lose(Contessa)]);
    assert_eq!((g.coins(0), g.coins(1)), (3, 1));
    assert_eq!(g.pending(), Pending::Action { actor: 1 });
}

#[test]
fn ppcg_assassinate_target_who_challenges_and_loses_is_out() {
    let hands: [&[Card]; 2] = [&[Assassin, Duke], &[Ambassador, Contessa]];
    let mut g = setup(Rules::ppcg(), &hands, &[3, 1], &rest(&hands));
    play(&mut g, &[act(Action::Assassinate(1))]);
    assert_eq!(legal(&g), vec![Pass, Challenge, Block(Contessa)]);
    play(&mut g, &[Challenge, Lose(Ambassador), Lose(Contessa)]);
    assert_eq!(g.outcome().unwrap().winners, SeatSet::single(0));
}

#[test]
fn ppcg_keeps_a_revealed_ambassador_in_a_challenged_exchange() {
    let hands: [&[Card]; 2] = [&[Ambassador, Duke], &[Captain, Contessa]];
    let mut g = setup(Rules::ppcg(), &hands, &[1, 1], &rest(&hands));
    play(&mut g, &[act(Action::Exchange), Challenge]);
    assert!(g.log().contains(&Event::Reveal {
        player: 0,
        card: Ambassador,
        replaced: false
    }));
    assert_eq!(g.hand(0), [Ambassador, Duke]);
    play(&mut g, &[Lose(Captain)]);
    assert!(
        matches!(g.pending(), Pending::Exchange { actor: 0 }),
        "the exchange goes ahead"
    );
    // Standard rules replace it.
    let mut g = std_game(&hands, &[2, 2]);
    play(&mut g, &[act(Action::Exchange), Challenge]);
    assert!(g.log().contains(&Event::Reveal {
        player: 0,
        card: Ambassador,
        replaced: true
    }));
}

#[test]
fn first_player_coins_option() {
    let mut rules = Rules::standard();
    rules.first_player_coins = Some(1);
    let g = State::new(rules, 2, 3);
    assert_eq!((g.coins(0), g.coins(1)), (1, 2));
}

#[test]
fn targets_are_live_opponents_only() {
    let hands: [&[Card]; 3] = [
        &[Captain, Assassin],
        &[Duke, Contessa],
        &[Captain, Ambassador],
    ];
    let mut g = std_game(&hands, &[7, 3, 3]);
    // Seat 2 loses both influence (a coup, then a failed challenge).
    play(
        &mut g,
        &[
            act(Action::Coup(2)),
            Lose(Captain),
            act(Action::Income),
            act(Action::Income),
        ],
    );
    play(
        &mut g,
        &[
            act(Action::Income),
            act(Action::Tax),
            Challenge,
            Lose(Ambassador),
        ],
    );
    assert!(!g.is_alive(2));
    // Seat 0 has 1 + 2 coins... whatever it has, no action may target seat 2.
    for c in legal(&g) {
        if let Choice::Act(a) = c {
            assert_ne!(a.target(), Some(2), "{a:?} targets a player who is out");
        }
    }
    assert!(g.clone().apply(act(Action::Steal(2))).is_err());
    assert!(
        g.clone().apply(act(Action::Coup(0))).is_err(),
        "no targeting oneself"
    );
}

#[test]
fn only_the_target_may_block_steal_and_assassinate() {
    let hands: [&[Card]; 3] = [
        &[Captain, Assassin],
        &[Duke, Contessa],
        &[Captain, Ambassador],
    ];
    let mut g = std_game(&hands, &[3, 3, 3]);
    play(&mut g, &[act(Action::Steal(1)), Pass, Pass]);
    assert_eq!(
        g.pending(),
        Pending::Block {
            actor: 0,
            action: Action::Steal(1),
            asker: 1
        }
    );
    play(&mut g, &[Pass]);
    // Seat 2, who holds a Captain, is never asked: the steal happens.
    assert_eq!((g.coins(0), g.coins(1)), (5, 1));
    assert_eq!(g.pending(), Pending::Action { actor: 1 });
}

/// Walks the random games the property tests share: 40 seeds of every preset at
/// every table size, each choice picked from the legal list by a small LCG seeded
/// with the game's seed. `step` sees each decision with the next pick and may play
/// it itself (returning `true`); `end` sees each finished game.
fn walk_random_games(
    mut step: impl FnMut(&mut State, &[Choice], u64) -> bool,
    mut end: impl FnMut(&State, Rules, usize, u64),
) {
    for rules in [Rules::standard(), Rules::ppcg(), Rules::coupcli()] {
        for seats in 2..=6 {
            for seed in 0..40u64 {
                let mut g = State::new(rules, seats, seed);
                let mut pick = seed;
                while g.to_move().is_some() {
                    pick = pick
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let l = legal(&g);
                    if !step(&mut g, &l, pick) {
                        g.apply(l[(pick >> 33) as usize % l.len()]).unwrap();
                    }
                }
                end(&g, rules, seats, seed);
            }
        }
    }
}

/// The runner's legality check answers some rounds from the phase, without the
/// list: over random games under every preset and table size, it must agree with
/// the list for every choice there is.
#[test]
fn the_fast_legality_check_agrees_with_the_legal_list() {
    use koth_arena::ChoiceCode;
    // Both orders of a keep of two different cards (codes 54–63) included.
    let every: Vec<Choice> = (0..64).filter_map(Choice::from_code).collect();
    assert_eq!(every.len(), 64);
    let mut checked = 0u64;
    walk_random_games(
        |g, l, _| {
            for &c in &every {
                assert_eq!(
                    g.is_legal_among(l, c),
                    l.contains(&c),
                    "{c:?} at {:?}, legal {l:?}",
                    g.pending()
                );
                // And the check from the rules alone, for bots given no list.
                assert_eq!(
                    g.is_legal_with(c, &mut Vec::new()),
                    l.contains(&c),
                    "from the rules: {c:?} at {:?}, legal {l:?}",
                    g.pending()
                );
                checked += 1;
            }
            false
        },
        |_, _, _, _| {},
    );
    assert!(checked > 100_000, "{checked}");
}

/// Places follow the elimination order in the public log: winners first, then the
/// seats still standing, then the others from the last out to the first (some
/// games with forfeits).
#[test]
fn places_follow_the_order_of_elimination_in_the_log() {
    let mut games = 0;
    let mut forfeits = 0;
    walk_random_games(
        |g, _, pick| {
            // About one decision in 97 is a forfeit instead.
            if (pick >> 20) % 97 != 0 {
                return false;
            }
            let seat = g.to_move().unwrap();
            g.forfeit(seat);
            forfeits += 1;
            true
        },
        |g, rules, seats, seed| {
            let o = g.outcome().unwrap();
            // The reference: read the order off the log.
            let mut expected = vec![0u8; seats];
            let mut better = 0;
            for s in o.winners.iter() {
                expected[s] = 1;
            }
            better += o.winners.len() as u8;
            let standing: Vec<usize> = (0..seats)
                .filter(|&s| g.is_alive(s) && !o.winners.contains(s))
                .collect();
            for &s in &standing {
                expected[s] = better + 1;
            }
            better += standing.len() as u8;
            for e in g.log().iter().rev() {
                if let Event::Eliminated { player } = *e {
                    assert_eq!(expected[player], 0, "seat {player} out twice");
                    expected[player] = better + 1;
                    better += 1;
                }
            }
            let mut places = koth_arena::PerSeat::new();
            g.places(&mut places);
            assert_eq!(
                places[..],
                expected[..],
                "{rules:?}, {seats} seats, seed {seed}"
            );
            games += 1;
        },
    );
    assert_eq!(games, 600);
    assert!(forfeits > 50, "{forfeits}");
}

fn crate_game(hands: &[&[Card]], coins: &[u8]) -> State {
    setup(Rules::coupcrate(), hands, coins, &rest(hands))
}

#[test]
fn coupcrate_an_assassinate_is_paid_only_when_it_takes_place() {
    // Blocked: it costs nothing (standard: 3 coins, test above).
    let mut g = crate_game(&[&[Assassin, Duke], &[Captain, Contessa]], &[3, 2]);
    play(&mut g, &[act(Action::Assassinate(1))]);
    assert_eq!(g.coins(0), 3, "not paid on declaring");
    play(&mut g, &[Pass, Block(Contessa), Pass]);
    assert_eq!((g.coins(0), g.influence(1)), (3, 2));
    assert_eq!(g.pending(), Pending::Action { actor: 1 });
    // Caught bluffing: nothing paid, so nothing refunded.
    let mut g = crate_game(&[&[Captain, Duke], &[Captain, Contessa]], &[3, 2]);
    play(&mut g, &[act(Action::Assassinate(1)), Challenge]);
    assert_eq!(g.coins(0), 3);
    assert!(!g.log().iter().any(|e| matches!(e, Event::Refund { .. })));
    // Done: paid then.
    let mut g = crate_game(&[&[Assassin, Duke], &[Captain, Contessa]], &[3, 2]);
    play(&mut g, &[act(Action::Assassinate(1)), Pass, Pass]);
    assert_eq!(g.pending(), Pending::LoseInfluence { player: 1 });
    assert_eq!(g.coins(0), 0);
    // Its target fell to a lost challenge of it first: nothing takes place, and
    // nothing is paid.
    let mut g = crate_game(&[&[Assassin, Duke], &[Captain, Contessa]], &[10, 2]);
    play(
        &mut g,
        &[act(Action::Coup(1)), Lose(Contessa), act(Action::Income)],
    );
    assert_eq!(g.coins(0), 3);
    play(
        &mut g,
        &[act(Action::Assassinate(1)), Challenge, Lose(Captain)],
    );
    assert_eq!(g.coins(0), 3);
    assert_eq!(g.outcome().unwrap().winners, SeatSet::single(0));
}

#[test]
fn coupcrate_a_blocker_who_shows_its_card_keeps_it() {
    let mut g = crate_game(&[&[Assassin, Duke], &[Captain, Contessa]], &[3, 2]);
    play(
        &mut g,
        &[
            act(Action::Assassinate(1)),
            Pass,
            Block(Contessa),
            Challenge,
        ],
    );
    assert!(g.log().contains(&Event::Reveal {
        player: 1,
        card: Contessa,
        replaced: false
    }));
    play(&mut g, &[Lose(Duke)]);
    assert_eq!(g.hand(1), &[Captain, Contessa]);
    // The block stood: nothing paid.
    assert_eq!(g.coins(0), 3);
}

#[test]
fn coupcrate_a_steal_block_stands_on_either_card() {
    // Blocked "with a Captain" by a player holding an Ambassador only.
    let hands: &[&[Card]] = &[&[Captain, Duke], &[Ambassador, Contessa]];
    let steal = [act(Action::Steal(1)), Pass, Block(Captain), Challenge];
    let mut g = crate_game(hands, &[2, 2]);
    play(&mut g, &steal);
    assert!(g.log().contains(&Event::Reveal {
        player: 1,
        card: Ambassador,
        replaced: false
    }));
    assert_eq!(g.pending(), Pending::LoseInfluence { player: 0 });
    // Under the standard rules that block is a bluff.
    let mut g = std_game(hands, &[2, 2]);
    play(&mut g, &steal);
    assert!(g.log().contains(&Event::CaughtBluffing {
        player: 1,
        card: Captain
    }));
    // A Duke blocking Foreign Aid is not helped by it.
    let mut g = crate_game(&[&[Captain, Duke], &[Ambassador, Contessa]], &[2, 2]);
    play(&mut g, &[act(Action::ForeignAid), Block(Duke), Challenge]);
    assert!(g.log().contains(&Event::CaughtBluffing {
        player: 1,
        card: Duke
    }));
}

#[test]
fn coupcrate_lets_a_player_without_coins_be_stolen_from_and_penalises_illegal_choices() {
    let r = Rules::coupcrate();
    assert!(r.steal_from_empty);
    assert_eq!(r.illegal, koth_coup::IllegalPolicy::Penalty);
    let g = crate_game(&[&[Captain, Duke], &[Ambassador, Contessa]], &[2, 0]);
    assert!(legal(&g).contains(&act(Action::Steal(1))));
    let g = std_game(&[&[Captain, Duke], &[Ambassador, Contessa]], &[2, 0]);
    assert!(!legal(&g).contains(&act(Action::Steal(1))));
}

#[test]
fn coupcrate_narrates_an_assassinate_as_paid_when_it_takes_place() {
    use koth_coup::narrate::describe_under;
    let names = ["a".to_string(), "b".to_string()];
    let e = Event::Act {
        actor: 0,
        action: Action::Assassinate(1),
    };
    let (_, std) = describe_under(&e, &names, &Rules::standard());
    assert_eq!(std, "a claims an Assassin: Assassinate b (pays 3)");
    let (_, cc) = describe_under(&e, &names, &Rules::coupcrate());
    assert_eq!(
        cc,
        "a claims an Assassin: Assassinate b (3 coins if it takes place)"
    );
}
