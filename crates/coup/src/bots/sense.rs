//! Judgement shared by the strategic bots.

use crate::card::{Card, COPIES};
use crate::choice::Keep;
use crate::view::View;
use koth_arena::Seat;

/// How much a card is worth keeping, higher is better.
pub fn card_value(card: Card) -> u8 {
    match card {
        Card::Duke => 5,
        Card::Assassin => 4,
        Card::Captain => 3,
        Card::Contessa => 2,
        Card::Ambassador => 1,
    }
}

/// The card to give up: the least valuable in hand.
pub fn least_valuable(view: &View) -> Card {
    let cards = view.my_cards();
    *cards
        .iter()
        .min_by_key(|&&c| card_value(c))
        .unwrap_or(&cards[0])
}

/// The best cards to keep after an Exchange: the most valuable, preferring two
/// different characters.
pub fn best_keep(hand: &[Card], drawn: [Card; 2]) -> Keep {
    // On the stack: a bot decides without allocating.
    let mut all = [Card::Ambassador; 4];
    let n = hand.len().min(2) + 2;
    for (slot, c) in all.iter_mut().zip(hand.iter().copied().chain(drawn)) {
        *slot = c;
    }
    let pool = &mut all[..n];
    pool.sort_by_key(|&c| std::cmp::Reverse(card_value(c)));
    if hand.len() == 1 {
        return Keep::new(&pool[..1]).expect("one card");
    }
    let first = pool[0];
    let second = pool
        .iter()
        .copied()
        .find(|&c| c != first)
        .unwrap_or(pool[1]);
    Keep::new(&[first, second]).expect("two cards")
}

/// The most dangerous live opponent: most influence, then most coins, then nearest.
pub fn strongest(view: &View) -> Option<Seat> {
    let mut best: Option<(Seat, (usize, u8))> = None;
    for s in view.opponents() {
        let key = (view.influence(s), view.coins(s));
        if best.is_none_or(|(_, k)| key > k) {
            best = Some((s, key));
        }
    }
    best.map(|(s, _)| s)
}

/// The chance that `seat` holds at least one `card`, judged from my view alone:
/// the copies I cannot see are spread at random over the cards I cannot see.
pub fn chance_holds(view: &View, seat: Seat, card: Card) -> f64 {
    let unseen = COPIES.saturating_sub(view.seen(card));
    let unknown = view.unknown_cards();
    let h = view.influence(seat);
    if unseen == 0 || h == 0 {
        return 0.0;
    }
    if unknown <= h {
        return 1.0;
    }
    // 1 - C(unknown - unseen, h) / C(unknown, h)
    let mut none = 1.0;
    for i in 0..h {
        let num = unknown.saturating_sub(unseen).saturating_sub(i) as f64;
        let den = (unknown - i) as f64;
        none *= (num / den).max(0.0);
    }
    1.0 - none
}
