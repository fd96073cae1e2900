//! Random play through the wrapped engine: the arbiter's books (coins, hand order)
//! agree with the engine, every move rendered is one the arbiter's
//! `get_legal_actions` would have offered, and owed moves are the only legal one.

use koth_arena::Random;
use koth_arena::{Game, Rng};
use koth_ppcg::protocol::{legal_moves, Side};
use koth_ppcg::{PpcgGame, PpcgRules};

#[test]
fn random_games_match_the_arbiter() {
    let rules = PpcgRules::default();
    let mut legal = Vec::new();
    let mut capped = 0;
    for seed in 0..3000u64 {
        let mut g = PpcgGame::new_game(&rules, 2, seed);
        let mut rng = Rng::new(seed ^ 0xABCD);
        while g.to_move().is_some() {
            legal.clear();
            g.legal_choices(&mut legal);
            let c = legal[rng.index(legal.len())];
            g.apply(c).unwrap();
            g.check_invariants()
                .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{:?}", g.history().file_text()));
        }
        capped += g.capped() as u32;
        let h = g.history();
        assert!(h.invoked() <= 200);
        for (i, m) in h.moves().iter().enumerate() {
            let before = h.canonical_before(i);
            let l = legal_moves(
                &before,
                &Side {
                    coins: m.coins[m.seat],
                    cards: &m.hand,
                },
                &Side {
                    coins: m.coins[1 - m.seat],
                    cards: &[],
                },
            )
            .unwrap_or_else(|| panic!("seed {seed}: no legal list after {before:?}"));
            assert!(
                l.contains(&m.text),
                "seed {seed} move {i}: {:?} not in {l:?} after {before:?}",
                m.text
            );
            if m.owed {
                assert_eq!(
                    l,
                    std::slice::from_ref(&m.text),
                    "seed {seed}: owed move not forced"
                );
            }
        }
        let o = g.outcome().unwrap();
        if !g.capped() {
            assert_eq!(o.winners.len(), 1);
        }
    }
    let _ = capped;
}

#[test]
fn the_replacement_is_drawn_before_the_revealed_card_goes_back() {
    use koth_coup::{Action, Card::*, Choice, Rules, State};
    // All three Dukes are in hands: as the original arbiter does (draw, then return
    // and shuffle), a revealed Duke never comes straight back, and the replacement
    // is the deck's top card (the last listed), whatever the seed.
    let deck = [
        Ambassador, Ambassador, Ambassador, Assassin, Assassin, Assassin, Captain, Captain,
        Contessa, Contessa, Contessa,
    ];
    for seed in 0..200 {
        let s = State::from_setup(
            Rules::ppcg(),
            &[&[Duke, Captain], &[Duke, Duke]],
            &[1, 1],
            &deck,
            seed,
        )
        .unwrap();
        let meta = koth_ppcg::GameMeta {
            names: ["a".into(), "b".into()],
            stem: "x".into(),
            out_dir: std::env::temp_dir(),
            archive: false,
            index: 0,
        };
        let mut g = PpcgGame::from_state(s, 200, meta);
        g.apply(Choice::Act(Action::Tax)).unwrap();
        g.apply(Choice::Challenge).unwrap();
        let hand = g.state().hand(0);
        assert!(!hand.contains(&Duke), "seed {seed}: {hand:?}");
        assert!(
            hand.contains(&Contessa) && hand.contains(&Captain),
            "seed {seed}: {hand:?}"
        );
    }
}

#[test]
fn invocation_cap_means_both_lose() {
    let rules = PpcgRules {
        max_invocations: 7,
        ..PpcgRules::default()
    };
    let mut g = PpcgGame::new_game(&rules, 2, 5);
    let mut legal = Vec::new();
    while g.to_move().is_some() {
        legal.clear();
        g.legal_choices(&mut legal);
        // Income whenever possible, never challenge or block.
        let c = legal
            .iter()
            .copied()
            .find(|c| *c == koth_coup::Choice::Act(koth_coup::Action::Income))
            .unwrap_or(legal[0]);
        g.apply(c).unwrap();
    }
    assert!(g.capped());
    assert_eq!(g.history().invoked(), 7);
    let o = g.outcome().unwrap();
    assert!(o.winners.is_empty());
    assert_eq!(o.ending, koth_arena::Ending::Adjudicated);
}
