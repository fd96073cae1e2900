//! What one player can infer about the others' hidden cards from the public log.

use crate::action::Action;
use crate::card::{Card, COPIES};
use crate::event::Event;
use crate::hand::Hand;
use crate::state::MAX_PLAYERS;
use crate::view::View;
use koth_arena::{Random, Seat};

/// The 15 two-card hands (`i <= j`, card indices).
const PAIRS: [(usize, usize); 15] = {
    let mut out = [(0, 0); 15];
    let mut k = 0;
    let mut i = 0;
    while i < 5 {
        let mut j = i;
        while j < 5 {
            out[k] = (i, j);
            k += 1;
            j += 1;
        }
        i += 1;
    }
    out
};

fn pair_index(a: usize, b: usize) -> usize {
    let (i, j) = if a <= b { (a, b) } else { (b, a) };
    PAIRS.iter().position(|&p| p == (i, j)).expect("a pair")
}

/// How much likelier a claim is from a player who holds the card than from one
/// who does not: a bluff is this likely (relative) per claim.
pub const BLUFF_LIKELIHOOD: f64 = 0.3;

/// What one seat's hidden hand may be: a likelihood for each hand of its size,
/// the chance of the public evidence so far if it held that hand. The cards'
/// counts (what is face up, what I hold) are not in it: they are applied when
/// the hand is sampled or asked about, so it never goes stale.
#[derive(Clone, Copy, Debug, PartialEq)]
struct SeatBelief {
    size: usize,
    /// By [`PAIRS`] index for two cards, by card index for one.
    weight: [f64; 15],
}

impl SeatBelief {
    fn fresh(size: usize) -> Self {
        SeatBelief {
            size,
            weight: [1.0; 15],
        }
    }

    fn hands(&self) -> usize {
        match self.size {
            2 => 15,
            1 => 5,
            _ => 0,
        }
    }

    fn contains(&self, hand: usize, card: usize) -> bool {
        match self.size {
            2 => PAIRS[hand].0 == card || PAIRS[hand].1 == card,
            1 => hand == card,
            _ => false,
        }
    }

    /// Multiplies the hands holding `card` by `yes` and the others by `no`.
    fn weigh(&mut self, card: usize, yes: f64, no: f64) {
        for h in 0..self.hands() {
            self.weight[h] *= if self.contains(h, card) { yes } else { no };
        }
        self.renormalise();
    }

    fn renormalise(&mut self) {
        let n = self.hands();
        let max = self.weight[..n].iter().copied().fold(0.0, f64::max);
        if max > 0.0 {
            for w in &mut self.weight[..n] {
                *w /= max;
            }
        } else {
            // Contradicted (a model's guess was wrong, never a fact): start over.
            self.weight = [1.0; 15];
        }
    }

    /// `card` leaves the hand (turned face up): the rest keeps its weight.
    fn lose(&mut self, card: usize) {
        match self.size {
            2 => {
                let mut one = [0.0; 15];
                for (o, w) in one.iter_mut().enumerate().take(5) {
                    *w = self.weight[pair_index(card, o)];
                }
                self.weight = one;
                self.size = 1;
                self.renormalise();
            }
            _ => *self = SeatBelief::fresh(0),
        }
    }

    /// `card` was shown and went back to the deck for a card drawn at random:
    /// the other card keeps its weight, the new one is anyone's.
    fn replace(&mut self, card: usize) {
        match self.size {
            2 => {
                let mut other = [0.0; 5];
                for (o, w) in other.iter_mut().enumerate() {
                    *w = self.weight[pair_index(card, o)];
                }
                for (h, &(a, b)) in PAIRS.iter().enumerate() {
                    self.weight[h] = if a == b {
                        other[a]
                    } else {
                        other[a] + other[b]
                    };
                }
                self.renormalise();
            }
            _ => *self = SeatBelief::fresh(self.size),
        }
    }
}

/// One player's beliefs about every other seat's face-down cards, read from the
/// public log as it grows: a shown card is held (and, if it went back to the
/// deck, replaced by an unknown one), a caught bluff is not held, an Exchange
/// resets what was known, claims make their card likelier and declined blocks
/// make the blocking cards less likely. Cards face up and in my hand limit what
/// anyone else can hold.
///
/// ```
/// use koth_coup::{bots::Beliefs, Card, Rules, State, View};
/// let game = State::new(Rules::standard(), 3, 7);
/// let mut beliefs = Beliefs::new(&View::new(&game, 0));
/// beliefs.update(&View::new(&game, 0));
/// let p = beliefs.chance_holds(&View::new(&game, 0), 1, Card::Duke);
/// assert!(p > 0.0 && p < 1.0);
/// ```
#[derive(Clone, Debug)]
pub struct Beliefs {
    me: Seat,
    seats: [SeatBelief; MAX_PLAYERS],
    /// Log events read so far.
    read: usize,
    /// The action of the turn being read, for its blocks.
    action: Option<(Seat, Action)>,
}

impl Beliefs {
    /// Knowing nothing yet, as `view`'s player at a game's start.
    pub fn new(view: &View) -> Self {
        let mut seats = [SeatBelief::fresh(0); MAX_PLAYERS];
        for (s, b) in seats.iter_mut().enumerate().take(view.players()) {
            *b = SeatBelief::fresh(2);
            if s == view.me() {
                b.size = 0;
            }
        }
        Beliefs {
            me: view.me(),
            seats,
            read: 0,
            action: None,
        }
    }

    /// Reads the log events that `view` adds since the last call.
    pub fn update(&mut self, view: &View) {
        let log = view.log();
        if log.len() < self.read {
            *self = Beliefs::new(view); // another game
        }
        for &e in &log[self.read..] {
            self.read_event(e);
        }
        self.read = log.len();
        // Sizes follow the view (a forfeit or anything unread).
        for s in 0..view.players() {
            if s != self.me && self.seats[s].size != view.influence(s) {
                self.seats[s] = SeatBelief::fresh(view.influence(s));
            }
        }
    }

    fn seat(&mut self, s: Seat) -> Option<&mut SeatBelief> {
        (s != self.me && s < MAX_PLAYERS).then(|| &mut self.seats[s])
    }

    fn read_event(&mut self, e: Event) {
        match e {
            Event::Turn { .. } => self.action = None,
            Event::Act { actor, action } => {
                self.action = Some((actor, action));
                if let (Some(card), Some(b)) = (action.claim(), self.seat(actor)) {
                    b.weigh(card.index(), 1.0, BLUFF_LIKELIHOOD);
                }
            }
            Event::Block { blocker, card } => {
                if let Some(b) = self.seat(blocker) {
                    b.weigh(card.index(), 1.0, BLUFF_LIKELIHOOD);
                }
            }
            Event::NoBlock { player } => {
                let Some((_, action)) = self.action else {
                    return;
                };
                // A target that lets an Assassinate or a Steal through likely has
                // nothing to stop it; Foreign Aid's blockers pass more lightly.
                let targeted = action.target() == Some(player);
                let keep = match action {
                    Action::Assassinate(_) if targeted => 0.25,
                    Action::Steal(_) if targeted => 0.5,
                    Action::ForeignAid => 0.7,
                    _ => 1.0,
                };
                if let Some(b) = self.seat(player) {
                    for &c in action.blockers() {
                        b.weigh(c.index(), keep, 1.0);
                    }
                }
            }
            Event::Reveal {
                player,
                card,
                replaced,
            } => {
                if let Some(b) = self.seat(player) {
                    b.weigh(card.index(), 1.0, 0.0);
                    if replaced {
                        b.replace(card.index());
                    }
                }
            }
            Event::CaughtBluffing { player, card } => {
                if let Some(b) = self.seat(player) {
                    b.weigh(card.index(), 0.0, 1.0);
                }
            }
            Event::LoseInfluence { player, card } => {
                if let Some(b) = self.seat(player) {
                    b.lose(card.index());
                }
            }
            Event::Exchanged { player } => {
                if let Some(b) = self.seat(player) {
                    *b = SeatBelief::fresh(b.size);
                }
            }
            Event::Forfeit { player } | Event::Eliminated { player } => {
                if let Some(b) = self.seat(player) {
                    *b = SeatBelief::fresh(0);
                }
            }
            Event::NoChallenge { .. }
            | Event::Challenge { .. }
            | Event::Penalty { .. }
            | Event::Gain { .. }
            | Event::Steal { .. }
            | Event::Refund { .. }
            | Event::Blocked { .. } => {}
        }
    }

    /// Copies of each card nobody can see from `view`: in other hands or the deck.
    pub fn unseen(view: &View) -> [usize; 5] {
        let mut pool = [COPIES; 5];
        for c in Card::ALL {
            pool[c.index()] = COPIES.saturating_sub(view.seen(c));
        }
        if let Some(drawn) = view.drawn() {
            for c in drawn {
                pool[c.index()] = pool[c.index()].saturating_sub(1);
            }
        }
        pool
    }

    /// The chance of each hand `seat` may hold: its likelihood times the ways the
    /// unseen cards can form it; empty for a seat with no cards (or mine).
    pub fn hands(&self, view: &View, seat: Seat) -> Vec<(Hand, f64)> {
        let pool = Beliefs::unseen(view);
        let b = &self.seats[seat];
        let mut out: Vec<(Hand, f64)> = (0..b.hands())
            .map(|h| {
                let cards = hand_cards(b.size, h);
                let w = b.weight[h] * ways(&pool, &cards);
                (cards, w)
            })
            .collect();
        let total: f64 = out.iter().map(|x| x.1).sum();
        if total > 0.0 {
            for x in &mut out {
                x.1 /= total;
            }
        }
        out
    }

    /// The chance that `seat` holds at least one `card`.
    pub fn chance_holds(&self, view: &View, seat: Seat, card: Card) -> f64 {
        self.hands(view, seat)
            .iter()
            .filter(|(h, _)| h.contains(card))
            .map(|x| x.1)
            .sum()
    }

    /// A guess at every hidden card, drawn from these beliefs: a hand for each
    /// other seat (mine stays empty) and the deck's cards in random order.
    pub fn sample(&self, view: &View, rng: &mut impl Random) -> ([Hand; MAX_PLAYERS], Vec<Card>) {
        let mut pool = Beliefs::unseen(view);
        let mut hands = [Hand::EMPTY; MAX_PLAYERS];
        let mut order: Vec<Seat> = (0..view.players())
            .filter(|&s| s != self.me && view.influence(s) > 0)
            .collect();
        rng.shuffle(&mut order);
        for s in order {
            let b = &self.seats[s];
            let n = b.hands();
            let mut w = [0.0; 15];
            let mut total = 0.0;
            for (h, slot) in w.iter_mut().enumerate().take(n) {
                let cards = hand_cards(b.size, h);
                *slot = b.weight[h] * ways(&pool, &cards);
                total += *slot;
            }
            if total <= 0.0 {
                // Only the counts left: what the cards still allow.
                for (h, slot) in w.iter_mut().enumerate().take(n) {
                    *slot = ways(&pool, &hand_cards(b.size, h));
                    total += *slot;
                }
            }
            let mut x = rng.unit() * total;
            let mut pick = n.saturating_sub(1);
            for (h, &wh) in w.iter().enumerate().take(n) {
                if x < wh {
                    pick = h;
                    break;
                }
                x -= wh;
            }
            for &c in hand_cards(b.size, pick).cards() {
                pool[c.index()] = pool[c.index()].saturating_sub(1);
                hands[s].push(c);
            }
        }
        let mut deck: Vec<Card> = Card::ALL
            .iter()
            .flat_map(|&c| std::iter::repeat_n(c, pool[c.index()]))
            .collect();
        rng.shuffle(&mut deck);
        (hands, deck)
    }
}

fn hand_cards(size: usize, h: usize) -> Hand {
    match size {
        2 => Hand::of(&[Card::ALL[PAIRS[h].0], Card::ALL[PAIRS[h].1]]),
        1 => Hand::of(&[Card::ALL[h]]),
        _ => Hand::EMPTY,
    }
}

/// Ways to take `cards` from `pool` (a product of binomials).
fn ways(pool: &[usize; 5], hand: &Hand) -> f64 {
    let mut need = [0usize; 5];
    for c in hand.cards() {
        need[c.index()] += 1;
    }
    let mut w = 1.0;
    for c in 0..5 {
        w *= match (pool[c], need[c]) {
            (_, 0) => 1.0,
            (p, 1) => p as f64,
            (p, 2) => (p * p.saturating_sub(1)) as f64 / 2.0,
            _ => 0.0,
        };
    }
    w
}
