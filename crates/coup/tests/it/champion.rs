//! The champion: what its beliefs infer from the public log (one test per
//! inference, and the true hand never ruled out), that it plays only legal
//! choices under every preset and table size, that its choices depend on its view
//! alone, and that its seed fixes its play. Its strength is measured by commands
//! in docs/champions.md, not here.

use koth_arena::{Random, Rng};
use koth_coup::bots::{self, Beliefs, Champion};
use koth_coup::{Action, Bot, Card, Choice, Hand, Keep, Pending, Rules, State, View};
use proptest::prelude::*;

use Card::*;

/// Plays `script` (seat, choice) in order: whoever is asked something the next
/// scripted choice does not answer passes (or gives up its first card); after
/// the script, the turn is played out the same way.
fn play(g: &mut State, script: &[(usize, Choice)]) {
    let mut next = script.iter().peekable();
    while let Some(seat) = g.to_move() {
        let choice = match next.peek() {
            Some(&&(s, c)) if s == seat && g.is_legal(c) => {
                next.next();
                c
            }
            None if matches!(g.pending(), Pending::Action { .. }) => return,
            _ => match g.pending() {
                Pending::LoseInfluence { .. } => Choice::Lose(g.hand(seat)[0]),
                Pending::Exchange { .. } => Choice::Keep(Keep::new(g.hand(seat)).unwrap()),
                _ => Choice::Pass,
            },
        };
        g.apply(choice)
            .unwrap_or_else(|e| panic!("{choice:?} by {seat}: {e:?}"));
    }
    assert!(next.next().is_none(), "the script was played");
}

/// Whether the log shows `player` revealing `card` (`replaced`: sent back).
fn shown(g: &State, player: usize, card: Card, replaced: bool) -> bool {
    let reveal = koth_coup::Event::Reveal {
        player,
        card,
        replaced,
    };
    g.log().contains(&reveal)
}

fn beliefs_of(g: &State, me: usize) -> Beliefs {
    let mut b = Beliefs::new(&View::new(g, me));
    b.update(&View::new(g, me));
    b
}

/// What the cards' counts alone say (no evidence read).
fn counts_only(g: &State, me: usize, seat: usize, card: Card) -> f64 {
    Beliefs::new(&View::new(g, me)).chance_holds(&View::new(g, me), seat, card)
}

const REST: [Card; 9] = [
    Ambassador, Ambassador, Assassin, Assassin, Captain, Contessa, Contessa, Duke, Captain,
];

fn three_seats(rules: Rules, hands: [[Card; 2]; 3]) -> State {
    let mut all: Vec<Card> = koth_coup::full_deck().to_vec();
    for h in &hands {
        for c in h {
            let i = all.iter().position(|x| x == c).unwrap();
            all.remove(i);
        }
    }
    let hands: Vec<&[Card]> = hands.iter().map(|h| &h[..]).collect();
    State::from_setup(rules, &hands, &[2, 2, 2], &all, 5).unwrap()
}

/// Seat 1 taxes with a Duke and seat 2's challenge shows it (it goes back).
fn tax_shown() -> State {
    let mut g = three_seats(
        Rules::standard(),
        [[Captain, Assassin], [Duke, Contessa], [Ambassador, Captain]],
    );
    play(
        &mut g,
        &[
            (0, Choice::Act(Action::Income)),
            (1, Choice::Act(Action::Tax)),
            (2, Choice::Challenge),
        ],
    );
    assert!(shown(&g, 1, Duke, true));
    g
}

/// The deal of [`tax_caught`]: seat 1 holds no Duke.
fn caught_hands() -> State {
    three_seats(
        Rules::standard(),
        [[Captain, Assassin], [Ambassador, Contessa], [Duke, Captain]],
    )
}

/// Seat 1 taxes without a Duke and seat 0 catches it (it gives up its Contessa).
fn tax_caught() -> State {
    let mut g = caught_hands();
    play(
        &mut g,
        &[
            (0, Choice::Act(Action::Income)),
            (1, Choice::Act(Action::Tax)),
            (2, Choice::Pass),
            (0, Choice::Challenge),
            (1, Choice::Lose(Contessa)),
        ],
    );
    g
}

#[test]
fn a_shown_card_that_stays_is_held() {
    // The coup crate's rules: a blocker who shows the card keeps it.
    let mut g = three_seats(
        Rules::coupcrate(),
        [[Captain, Assassin], [Duke, Contessa], [Ambassador, Captain]],
    );
    let _ = REST;
    play(
        &mut g,
        &[
            (0, Choice::Act(Action::ForeignAid)),
            (1, Choice::Block(Duke)),
            (0, Choice::Challenge),
        ],
    );
    assert!(shown(&g, 1, Duke, false));
    let b = beliefs_of(&g, 0);
    let v = View::new(&g, 0);
    for (h, p) in b.hands(&v, 1) {
        assert!(p == 0.0 || h.contains(Duke), "{h:?} {p}");
    }
    assert!((b.chance_holds(&v, 1, Duke) - 1.0).abs() < 1e-12);
    // A third player learns the same.
    assert!((beliefs_of(&g, 2).chance_holds(&View::new(&g, 2), 1, Duke) - 1.0).abs() < 1e-12);
}

#[test]
fn a_shown_card_that_goes_back_is_replaced_by_an_unknown_one() {
    let g = tax_shown();
    let b = beliefs_of(&g, 0);
    let v = View::new(&g, 0);
    let p = b.chance_holds(&v, 1, Duke);
    assert!(p > 0.0 && p < 1.0, "{p}");
    let without: f64 = b
        .hands(&v, 1)
        .iter()
        .filter(|(h, _)| !h.contains(Duke))
        .map(|x| x.1)
        .sum();
    assert!(without > 0.2, "hands without a Duke keep {without}");
}

#[test]
fn a_caught_bluff_rules_the_card_out() {
    let before = counts_only(&caught_hands(), 0, 1, Duke);
    let g = tax_caught();
    assert!(before > 0.3);
    let b = beliefs_of(&g, 0);
    assert_eq!(b.chance_holds(&View::new(&g, 0), 1, Duke), 0.0);
    assert_eq!(b.hands(&View::new(&g, 0), 1).len(), 5, "one card left");
}

#[test]
fn an_exchange_resets_what_was_known() {
    let mut g = three_seats(
        Rules::standard(),
        [[Captain, Assassin], [Ambassador, Contessa], [Duke, Captain]],
    );
    // Seat 1 claims a Duke (unchallenged): likelier than the counts say.
    play(
        &mut g,
        &[
            (0, Choice::Act(Action::Income)),
            (1, Choice::Act(Action::Tax)),
        ],
    );
    let claimed = beliefs_of(&g, 0).chance_holds(&View::new(&g, 0), 1, Duke);
    assert!(claimed > counts_only(&g, 0, 1, Duke) + 0.1, "{claimed}");
    // Then it exchanges: nothing is known of its hand but the counts.
    play(
        &mut g,
        &[
            (2, Choice::Act(Action::Income)),
            (0, Choice::Act(Action::Income)),
            (1, Choice::Act(Action::Exchange)),
        ],
    );
    let b = beliefs_of(&g, 0);
    let v = View::new(&g, 0);
    for c in Card::ALL {
        let (p, q) = (b.chance_holds(&v, 1, c), counts_only(&g, 0, 1, c));
        assert!((p - q).abs() < 1e-12, "{c:?}: {p} against {q}");
    }
}

#[test]
fn cards_face_up_and_in_my_hand_cut_the_possibilities() {
    // Two Dukes face up (seats 1 and 2 lost them), the third in my hand.
    let hands: [&[Card]; 3] = [&[Duke, Captain], &[Contessa], &[Assassin]];
    let deck = [
        Ambassador, Ambassador, Ambassador, Assassin, Assassin, Captain, Captain, Contessa,
        Contessa,
    ];
    let g = State::from_setup(Rules::standard(), &hands, &[2, 2, 2], &deck, 1).unwrap();
    assert_eq!(g.face_up(Duke), 2);
    let v = View::new(&g, 0);
    let b = beliefs_of(&g, 0);
    for s in [1, 2] {
        assert_eq!(b.chance_holds(&v, s, Duke), 0.0);
        assert!(b.chance_holds(&v, s, Ambassador) > 0.0);
    }
    let mut rng = Rng::new(3);
    for _ in 0..200 {
        let (hands, deck) = b.sample(&v, &mut rng);
        assert!(!hands[1].contains(Duke) && !hands[2].contains(Duke));
        assert!(!deck.contains(&Duke));
        assert_eq!(deck.len(), g.deck_size());
        assert_eq!((hands[1].len(), hands[2].len()), (1, 1));
    }
}

#[test]
fn a_target_that_lets_an_assassination_through_likely_has_no_contessa() {
    let mut g = three_seats(
        Rules::standard(),
        [[Assassin, Captain], [Ambassador, Duke], [Duke, Captain]],
    );
    g.set_coins(0, 3);
    let before = counts_only(&g, 0, 1, Contessa);
    play(
        &mut g,
        &[
            (0, Choice::Act(Action::Assassinate(1))),
            (1, Choice::Pass),
            (2, Choice::Pass),
            (1, Choice::Pass),
            (1, Choice::Lose(Ambassador)),
        ],
    );
    let after = beliefs_of(&g, 2).chance_holds(&View::new(&g, 2), 1, Contessa);
    let counts = counts_only(&g, 2, 1, Contessa);
    assert!(
        after < counts - 0.1,
        "{after} against {counts} (before: {before})"
    );
}

/// Hands as sorted card lists, to compare a seat's true hand with the beliefs'.
fn sorted(h: &[Card]) -> Vec<Card> {
    let mut v = h.to_vec();
    v.sort_by_key(|c| c.index());
    v
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// Over games of every preset and table size, played by built-ins that lie,
    /// count and play at random: at every step, every player's beliefs give each
    /// other live seat's true hand a positive chance.
    #[test]
    fn the_true_hand_keeps_a_positive_chance(seed in any::<u64>(), preset in 0usize..4, seats in 2usize..=6) {
        let rules = Rules::preset(Rules::PRESETS[preset]).unwrap();
        let mut g = State::new(rules, seats, seed);
        let names = ["bluffer", "random", "skeptic", "honest", "challenger", "economist"];
        let mut players: Vec<Box<dyn Bot>> = (0..seats).map(|s| bots::builtin(names[s]).unwrap()).collect();
        let mut rng = Rng::new(seed);
        for (s, p) in players.iter_mut().enumerate() {
            p.start(&View::new(&g, s), rng.next_u64());
        }
        let mut beliefs: Vec<Beliefs> = (0..seats).map(|s| Beliefs::new(&View::new(&g, s))).collect();
        let mut legal = Vec::new();
        let mut checked = 0;
        while let Some(seat) = g.to_move() {
            for (me, b) in beliefs.iter_mut().enumerate() {
                let v = View::new(&g, me);
                b.update(&v);
                for s in (0..seats).filter(|&s| s != me && g.influence(s) > 0) {
                    let truth = sorted(g.hand(s));
                    let p: f64 = b.hands(&v, s).iter()
                        .filter(|(h, _)| sorted(h.cards()) == truth)
                        .map(|x| x.1)
                        .sum();
                    prop_assert!(p > 0.0, "seat {me} rules out seat {s}'s {truth:?} at {:?}", g.pending());
                    checked += 1;
                }
            }
            legal.clear();
            g.legal_choices(&mut legal);
            let c = players[seat].decide(&View::new(&g, seat), &legal);
            g.apply(c).unwrap();
        }
        prop_assert!(checked > 0);
    }
}

/// The champion's answer at a position, from a fresh champion seeded `seed` that
/// watched the game from its start.
fn champion_answer(g: &State, me: usize, seed: u64, playouts: u32) -> Choice {
    let mut c = Champion::with_playouts(playouts);
    c.start(&View::new(g, me), seed);
    c.decide(&View::new(g, me), &[])
}

/// Its choice is a function of its view: moving every card it cannot see
/// (others' hands, the deck's order) changes nothing it does.
#[test]
fn the_champion_sees_only_its_view() {
    let mut positions = 0;
    let mut moved_any = 0;
    for seed in 0..40u64 {
        let seats = 2 + (seed % 5) as usize;
        let rules = Rules::preset(Rules::PRESETS[(seed % 4) as usize]).unwrap();
        let mut g = State::new(rules, seats, seed);
        let mut rng = Rng::new(seed ^ 77);
        let mut legal = Vec::new();
        let mut step = 0;
        while let Some(seat) = g.to_move() {
            legal.clear();
            g.legal_choices(&mut legal);
            if legal.len() > 1 && step % 3 == 0 && !matches!(g.pending(), Pending::Exchange { .. })
            {
                let mine = champion_answer(&g, seat, seed, 24);
                let mut moved = g.clone();
                moved.shuffle_hidden(seat, &mut Rng::new(step));
                let hidden = |w: &State| {
                    let hands: Vec<Vec<Card>> = (0..seats)
                        .filter(|&s| s != seat)
                        .map(|s| w.hand(s).to_vec())
                        .collect();
                    (hands, w.deck().to_vec())
                };
                moved_any += usize::from(hidden(&moved) != hidden(&g));
                assert_eq!(
                    champion_answer(&moved, seat, seed, 24),
                    mine,
                    "seed {seed}, step {step}"
                );
                positions += 1;
            }
            g.apply(legal[rng.index(legal.len())]).unwrap();
            step += 1;
        }
    }
    assert!(positions > 150, "{positions}");
    // The hidden cards really moved (else the comparison proves nothing).
    assert!(moved_any * 10 > positions * 9, "{moved_any} of {positions}");
}

/// Under every preset and at every table size, champions (small budgets) play
/// whole games against the built-ins without one illegal choice, and a seed
/// replays a game exactly.
#[test]
fn the_champion_plays_legally_and_its_seed_fixes_its_play() {
    let play_one = |rules: Rules, seats: usize, seed: u64| -> (Vec<koth_coup::Event>, Vec<Hand>) {
        let mut g = State::new(rules, seats, seed);
        let others = ["economist", "bluffer", "counter", "random", "skeptic"];
        let mut players: Vec<Box<dyn Bot>> = (0..seats)
            .map(|s| match s {
                0 => Box::new(Champion::with_playouts(12)) as Box<dyn Bot>,
                1 if seats > 2 => Box::new(Champion::with_playouts(40)),
                _ => bots::builtin(others[s % 5]).unwrap(),
            })
            .collect();
        for (s, p) in players.iter_mut().enumerate() {
            p.start(&View::new(&g, s), seed.wrapping_add(s as u64));
        }
        let mut legal = Vec::new();
        while let Some(seat) = g.to_move() {
            legal.clear();
            g.legal_choices(&mut legal);
            let c = players[seat].decide(&View::new(&g, seat), &legal);
            assert!(legal.contains(&c), "{c:?} not among {legal:?}");
            g.apply(c).unwrap();
        }
        let hands = (0..seats).map(|s| Hand::of(g.revealed(s))).collect();
        (g.log().to_vec(), hands)
    };
    let mut games = 0;
    for preset in Rules::PRESETS {
        let rules = Rules::preset(preset).unwrap();
        for seats in 2..=6 {
            for seed in 0..3 {
                let first = play_one(rules, seats, seed);
                if seed == 0 {
                    assert_eq!(
                        play_one(rules, seats, seed),
                        first,
                        "{preset}, {seats} seats"
                    );
                }
                games += 1;
            }
        }
    }
    assert_eq!(games, 60);
}

/// The built-in names: a default budget, milliseconds or playouts; anything else
/// is no built-in.
#[test]
fn champion_names_carry_a_budget() {
    assert!(bots::builtin("champion").is_some());
    assert!(bots::is_builtin("champion:50ms"));
    assert!(bots::is_builtin("champion:0.5ms"));
    assert!(bots::is_builtin("champion:2000"));
    for bad in [
        "champion:",
        "champion:0",
        "champion:-1ms",
        "champion:fast",
        "champion:1e9ms",
        "champion:nanms",
        "champion:2s",
        "Champion",
    ] {
        assert!(!bots::is_builtin(bad), "{bad}");
    }
    assert!(bots::CHAMPIONS
        .iter()
        .all(|(n, _)| !bots::BUILTINS.iter().any(|b| b.0 == *n)));
}

/// A player's style is learned from the facts: a claim shown true makes the
/// truthful style likelier than it was, a bluff caught all but rules it out
/// and makes the reckless one likelier; an Exchange forgets the hand, not the
/// player.
#[test]
fn a_players_style_is_learned_from_what_its_claims_turned_out_to_be() {
    let prior = bots::STYLE_PRIOR;
    // Seat 1 taxes with a Duke, and seat 2's challenge shows it.
    let g = tax_shown();
    let truthful = beliefs_of(&g, 0).style(1);
    assert!(truthful[0] > prior[0] + 0.05, "{truthful:?}");
    assert!(truthful[2] < prior[2], "{truthful:?}");
    assert!((truthful.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    // Seat 1 taxes without a Duke, and seat 0 catches it.
    let g = tax_caught();
    let caught = beliefs_of(&g, 0);
    let style = caught.style(1);
    // (From 0.4 to about 0.07: a truthful player lacks a Duke it claims only
    // 3% as often as it holds one.)
    assert!(style[0] < prior[0] / 4.0, "{style:?}");
    assert!(style[2] > prior[2], "{style:?}");
    // Reading the log again adds nothing; a claim after it still counts.
    let mut again = caught.clone();
    again.update(&View::new(&g, 0));
    assert_eq!(again.style(1), style);
    let mut g2 = g.clone();
    play(
        &mut g2,
        &[
            (2, Choice::Act(Action::Income)),
            (0, Choice::Act(Action::Income)),
            (1, Choice::Act(Action::Steal(0))),
        ],
    );
    again.update(&View::new(&g2, 0));
    let believed = again.chance_holds(&View::new(&g2, 0), 1, Captain);
    let counts = counts_only(&g2, 0, 1, Captain);
    assert!(believed > counts, "{believed} against {counts}");
    // An Exchange keeps the style.
    let mut g3 = g.clone();
    play(
        &mut g3,
        &[
            (2, Choice::Act(Action::Income)),
            (0, Choice::Act(Action::Income)),
            (1, Choice::Act(Action::Exchange)),
        ],
    );
    let mut b = caught.clone();
    b.update(&View::new(&g3, 0));
    assert_eq!(b.style(1), style);
}
