//! Golden deals: the cards dealt for a master seed and game number are part of the
//! reproducibility contract (a published run must replay on every version and
//! machine). The expected hands were computed by `reference/deal.py`, an
//! independent implementation of docs/fair-play.md (BLAKE3 seed tree, ChaCha12,
//! Lemire draw, Fisher–Yates from the back, cards drawn from the top).

use koth_arena::GameSeeds;
use koth_coup::{Card, Rules, State};

fn hands(master: u64, index: u64) -> (u64, Vec<Vec<Card>>) {
    let seeds = GameSeeds::of(master, index);
    let state = State::new(Rules::standard(), 6, seeds.deal);
    (seeds.deal, (0..6).map(|s| state.hand(s).to_vec()).collect())
}

fn card(name: &str) -> Card {
    Card::ALL
        .into_iter()
        .find(|c| format!("{c:?}") == name)
        .unwrap_or_else(|| panic!("no card {name}"))
}

#[test]
fn deals_are_pinned() {
    let golden: [(u64, u64, u64, [[&str; 2]; 6]); 6] = [
        (
            0,
            0,
            8134223408527674038,
            [
                ["Ambassador", "Duke"],
                ["Duke", "Captain"],
                ["Assassin", "Assassin"],
                ["Captain", "Ambassador"],
                ["Duke", "Captain"],
                ["Contessa", "Ambassador"],
            ],
        ),
        (
            0,
            1,
            16694843347381716754,
            [
                ["Captain", "Duke"],
                ["Contessa", "Ambassador"],
                ["Duke", "Contessa"],
                ["Contessa", "Assassin"],
                ["Ambassador", "Ambassador"],
                ["Assassin", "Duke"],
            ],
        ),
        (
            2026,
            0,
            7470939971886990575,
            [
                ["Captain", "Captain"],
                ["Contessa", "Duke"],
                ["Ambassador", "Assassin"],
                ["Assassin", "Ambassador"],
                ["Duke", "Captain"],
                ["Contessa", "Contessa"],
            ],
        ),
        (
            2026,
            1,
            14417004012659988222,
            [
                ["Ambassador", "Captain"],
                ["Ambassador", "Assassin"],
                ["Duke", "Contessa"],
                ["Captain", "Ambassador"],
                ["Captain", "Assassin"],
                ["Contessa", "Contessa"],
            ],
        ),
        (
            u64::MAX,
            0,
            9403363478704211114,
            [
                ["Assassin", "Duke"],
                ["Assassin", "Contessa"],
                ["Contessa", "Ambassador"],
                ["Assassin", "Duke"],
                ["Captain", "Captain"],
                ["Captain", "Contessa"],
            ],
        ),
        (
            u64::MAX,
            1,
            12416087453593778023,
            [
                ["Duke", "Contessa"],
                ["Assassin", "Contessa"],
                ["Ambassador", "Captain"],
                ["Ambassador", "Duke"],
                ["Contessa", "Captain"],
                ["Assassin", "Assassin"],
            ],
        ),
    ];
    for (master, index, deal, expected) in golden {
        let (got_deal, got) = hands(master, index);
        assert_eq!(
            got_deal, deal,
            "deal seed of game {index} of master {master}"
        );
        let expected: Vec<Vec<Card>> = expected
            .iter()
            .map(|h| h.iter().map(|n| card(n)).collect())
            .collect();
        assert_eq!(got, expected, "hands of game {index} of master {master}");
    }
}
