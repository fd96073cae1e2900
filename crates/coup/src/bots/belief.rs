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
/// who does not, for a player of the usual style ([`STYLES`]).
pub const BLUFF_LIKELIHOOD: f64 = 0.3;

/// The styles a player may play in, by how often it claims (or blocks with) a
/// card it lacks relative to one it holds: almost never (a truthful player),
/// sometimes (the usual), as often (a reckless bluffer).
pub const STYLES: [f64; 3] = [0.03, BLUFF_LIKELIHOOD, 1.0];

/// How likely each of [`STYLES`] is of a player before the game shows anything.
pub const STYLE_PRIOR: [f64; 3] = [0.4, 0.4, 0.2];

/// No style is ever ruled out: each keeps at least this chance.
const STYLE_FLOOR: f64 = 1e-3;

/// What one seat's hidden hand may be, for each style it may play in: a
/// likelihood for each hand of its size, the chance of the public evidence so
/// far if it held that hand and played in that style. The cards' counts (what
/// is face up, what I hold) are not in it: they are applied when the hand is
/// sampled or asked about, so it never goes stale.
#[derive(Clone, Copy, Debug, PartialEq)]
struct SeatBelief {
    size: usize,
    /// By style, then by [`PAIRS`] index for two cards, by card index for one.
    weight: [[f64; 15]; 3],
}

impl SeatBelief {
    fn fresh(size: usize) -> Self {
        SeatBelief {
            size,
            weight: [[1.0; 15]; 3],
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

    /// Multiplies the hands holding `card` by `yes` and the others by `no`,
    /// in every style.
    fn weigh(&mut self, card: usize, yes: f64, no: f64) {
        for k in 0..STYLES.len() {
            self.weigh_style(k, card, yes, no);
        }
    }

    /// A claim of `card`: in each style, the hands without it weigh that
    /// style's bluff likelihood.
    fn claim(&mut self, card: usize) {
        for (k, &r) in STYLES.iter().enumerate() {
            self.weigh_style(k, card, 1.0, r);
        }
    }

    fn weigh_style(&mut self, k: usize, card: usize, yes: f64, no: f64) {
        for h in 0..self.hands() {
            self.weight[k][h] *= if self.contains(h, card) { yes } else { no };
        }
        self.renormalise(k);
    }

    fn renormalise(&mut self, k: usize) {
        let n = self.hands();
        let w = &mut self.weight[k];
        let max = w[..n].iter().copied().fold(0.0, f64::max);
        if max > 0.0 {
            for x in &mut w[..n] {
                *x /= max;
            }
        } else {
            // Contradicted (a model's guess was wrong, never a fact): start over.
            *w = [1.0; 15];
        }
    }

    /// The weight of the hands of style `k`, counted with the ways `pool` can
    /// form each; of those holding `card` only, if given (`halve`: a hand of
    /// two different cards counts half, the chance it shows that one).
    fn mass(&self, k: usize, pool: &[usize; 5], card: Option<usize>, halve: bool) -> f64 {
        (0..self.hands())
            .filter(|&h| card.is_none_or(|c| self.contains(h, c)))
            .map(|h| {
                let share = if halve && self.size == 2 && PAIRS[h].0 != PAIRS[h].1 {
                    0.5
                } else {
                    1.0
                };
                self.weight[k][h] * ways(pool, &hand_cards(self.size, h)) * share
            })
            .sum()
    }

    /// `card` leaves the hand (turned face up): the rest keeps its weight.
    fn lose(&mut self, card: usize) {
        match self.size {
            2 => {
                for k in 0..STYLES.len() {
                    let mut one = [0.0; 15];
                    for (o, w) in one.iter_mut().enumerate().take(5) {
                        *w = self.weight[k][pair_index(card, o)];
                    }
                    self.weight[k] = one;
                }
                self.size = 1;
                for k in 0..STYLES.len() {
                    self.renormalise(k);
                }
            }
            _ => *self = SeatBelief::fresh(0),
        }
    }

    /// `card` was shown and went back to the deck for a card drawn at random:
    /// the other card keeps its weight, the new one is anyone's.
    fn replace(&mut self, card: usize) {
        match self.size {
            2 => {
                for k in 0..STYLES.len() {
                    let mut other = [0.0; 5];
                    for (o, w) in other.iter_mut().enumerate() {
                        *w = self.weight[k][pair_index(card, o)];
                    }
                    for (h, &(a, b)) in PAIRS.iter().enumerate() {
                        self.weight[k][h] = if a == b {
                            other[a]
                        } else {
                            other[a] + other[b]
                        };
                    }
                    self.renormalise(k);
                }
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
    /// The chance of each of [`STYLES`], by seat: what the facts (cards shown,
    /// bluffs caught, cards lost) said of the hands each style expected. Kept
    /// through exchanges, which forget the hand and not the player.
    style: [[f64; 3]; MAX_PLAYERS],
    /// The cards nobody can see, as of the last update (the facts are weighed
    /// with them).
    pool: [usize; 5],
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
            style: [STYLE_PRIOR; MAX_PLAYERS],
            pool: Beliefs::unseen(view),
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
        self.pool = Beliefs::unseen(view);
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

    /// The chance that `seat` plays in each of [`STYLES`] (truthful, usual,
    /// reckless), from what the game has shown of it so far.
    pub fn style(&self, seat: Seat) -> [f64; 3] {
        self.style.get(seat).copied().unwrap_or(STYLE_PRIOR)
    }

    fn seat(&mut self, s: Seat) -> Option<&mut SeatBelief> {
        (s != self.me && s < MAX_PLAYERS).then(|| &mut self.seats[s])
    }

    /// Weighs each style of `s` by the chance it gave a fact about the hand:
    /// `card` shown (`Some(true)`), `card` ruled out (`Some(false)`), or `card`
    /// turned face up by the player's choice (`None`).
    fn weigh_styles(&mut self, s: Seat, card: usize, shown: Option<bool>) {
        if s == self.me || s >= MAX_PLAYERS || self.seats[s].size == 0 {
            return;
        }
        let b = &self.seats[s];
        let mut post = [0.0; 3];
        for (k, p) in post.iter_mut().enumerate() {
            let all = b.mass(k, &self.pool, None, false);
            let with = b.mass(k, &self.pool, Some(card), shown.is_none());
            let chance = match shown {
                Some(false) => (all - with).max(0.0),
                _ => with,
            };
            *p = if all > 0.0 {
                self.style[s][k] * chance / all
            } else {
                self.style[s][k]
            };
        }
        let total: f64 = post.iter().sum();
        if total > 0.0 {
            for p in &mut post {
                *p = (*p / total).max(STYLE_FLOOR);
            }
            let total: f64 = post.iter().sum();
            self.style[s] = post.map(|p| p / total);
        }
    }

    fn read_event(&mut self, e: Event) {
        match e {
            Event::Turn { .. } => self.action = None,
            Event::Act { actor, action } => {
                self.action = Some((actor, action));
                if let (Some(card), Some(b)) = (action.claim(), self.seat(actor)) {
                    b.claim(card.index());
                }
            }
            Event::Block { blocker, card } => {
                if let Some(b) = self.seat(blocker) {
                    b.claim(card.index());
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
                self.weigh_styles(player, card.index(), Some(true));
                if let Some(b) = self.seat(player) {
                    b.weigh(card.index(), 1.0, 0.0);
                    if replaced {
                        b.replace(card.index());
                    }
                }
            }
            Event::CaughtBluffing { player, card } => {
                self.weigh_styles(player, card.index(), Some(false));
                if let Some(b) = self.seat(player) {
                    b.weigh(card.index(), 0.0, 1.0);
                }
            }
            Event::LoseInfluence { player, card } => {
                self.weigh_styles(player, card.index(), None);
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

    /// The chance of each hand `seat` may hold: over its styles, each style's
    /// chance times the hand's chance in that style (its likelihood times the
    /// ways the unseen cards can form it); empty for a seat with no cards (or
    /// mine).
    pub fn hands(&self, view: &View, seat: Seat) -> Vec<(Hand, f64)> {
        let pool = Beliefs::unseen(view);
        let b = &self.seats[seat];
        let mut out: Vec<(Hand, f64)> = (0..b.hands())
            .map(|h| (hand_cards(b.size, h), 0.0))
            .collect();
        let mut any = false;
        for (k, &pk) in self.style[seat].iter().enumerate() {
            let z = b.mass(k, &pool, None, false);
            if z <= 0.0 {
                continue;
            }
            any = true;
            for (h, x) in out.iter_mut().enumerate() {
                x.1 += pk * b.weight[k][h] * ways(&pool, &x.0) / z;
            }
        }
        if !any {
            // Only the counts left: what the cards still allow.
            for x in &mut out {
                x.1 = ways(&pool, &x.0);
            }
        }
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
        let (hands, deck, _) = self.sample_styled(view, rng);
        (hands, deck)
    }

    /// [`Beliefs::sample`], with the style each other seat was drawn playing
    /// in (an index of [`STYLES`]; 0 for mine and seats out): the hand is drawn
    /// from that style's beliefs, so a guess is one coherent player.
    pub fn sample_styled(
        &self,
        view: &View,
        rng: &mut impl Random,
    ) -> ([Hand; MAX_PLAYERS], Vec<Card>, [usize; MAX_PLAYERS]) {
        let mut pool = Beliefs::unseen(view);
        let mut hands = [Hand::EMPTY; MAX_PLAYERS];
        let mut styles = [0; MAX_PLAYERS];
        let mut order: Vec<Seat> = (0..view.players())
            .filter(|&s| s != self.me && view.influence(s) > 0)
            .collect();
        rng.shuffle(&mut order);
        for s in order {
            let b = &self.seats[s];
            let mut x = rng.unit();
            let mut k = STYLES.len() - 1;
            for (i, &p) in self.style[s].iter().enumerate() {
                if x < p {
                    k = i;
                    break;
                }
                x -= p;
            }
            styles[s] = k;
            let n = b.hands();
            let mut w = [0.0; 15];
            let mut total = 0.0;
            for (h, slot) in w.iter_mut().enumerate().take(n) {
                let cards = hand_cards(b.size, h);
                *slot = b.weight[k][h] * ways(&pool, &cards);
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
        (hands, deck, styles)
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
