//! What one player may see, and nothing more.

use crate::card::Card;
use crate::event::Event;
use crate::rules::Rules;
use crate::state::{Pending, State};
use koth_arena::Seat;

/// One player's view of a game: public information plus their own cards.
///
/// A view borrows the game, so making one costs nothing; it exposes no way to
/// reach another player's face-down cards, the deck order, or cards another
/// player drew in an Exchange.
#[derive(Clone, Copy)]
pub struct View<'a> {
    state: &'a State,
    me: Seat,
}

impl<'a> View<'a> {
    /// The view of `me`.
    pub fn new(state: &'a State, me: Seat) -> Self {
        View { state, me }
    }
    /// The whole state, for the crate's own adapters (never shown to a bot).
    pub(crate) fn state(&self) -> &'a State {
        self.state
    }
    /// My seat.
    pub fn me(&self) -> Seat {
        self.me
    }
    /// My face-down cards.
    pub fn my_cards(&self) -> &'a [Card] {
        self.state.hand(self.me)
    }
    /// My coins.
    pub fn my_coins(&self) -> u8 {
        self.state.coins(self.me)
    }
    /// Whether I hold `card`.
    pub fn holds(&self, card: Card) -> bool {
        self.my_cards().contains(&card)
    }
    /// The cards I drew in the Exchange I am deciding, if I am.
    pub fn drawn(&self) -> Option<[Card; 2]> {
        match self.state.pending() {
            Pending::Exchange { actor } if actor == self.me => self.state.drawn(),
            _ => None,
        }
    }
    /// Number of seats.
    pub fn players(&self) -> usize {
        self.state.players()
    }
    /// Coins of `seat`.
    pub fn coins(&self, seat: Seat) -> u8 {
        self.state.coins(seat)
    }
    /// Face-down cards of `seat`.
    pub fn influence(&self, seat: Seat) -> usize {
        self.state.influence(seat)
    }
    /// Face-up cards `seat` has lost.
    pub fn revealed(&self, seat: Seat) -> &'a [Card] {
        self.state.revealed(seat)
    }
    /// Whether `seat` is still in the game.
    pub fn is_alive(&self, seat: Seat) -> bool {
        self.state.is_alive(seat)
    }
    /// Live opponents, in seat order after me.
    pub fn opponents(&self) -> impl Iterator<Item = Seat> + 'a {
        self.state.opponents(self.me)
    }
    /// Cards in the deck.
    pub fn deck_size(&self) -> usize {
        self.state.deck_size()
    }
    /// The public log.
    pub fn log(&self) -> &'a [Event] {
        self.state.log()
    }
    /// The pending decision.
    pub fn pending(&self) -> Pending {
        self.state.pending()
    }
    /// Turns completed.
    pub fn turns(&self) -> u32 {
        self.state.turns()
    }
    /// Where the table's order starts, under rules that ask in table order
    /// ([`State::table_start`]).
    pub fn table_start(&self) -> Option<Seat> {
        self.state.table_start()
    }
    /// The rules in force.
    pub fn rules(&self) -> &'a Rules {
        self.state.rules()
    }
    /// Copies of `card` I can account for: in my hand or face up anywhere.
    pub fn seen(&self, card: Card) -> usize {
        let mine = self.my_cards().iter().filter(|&&c| c == card).count();
        mine + self.state.face_up(card)
    }
    /// Face-up copies of `card`, all players together.
    pub fn face_up(&self, card: Card) -> usize {
        self.state.face_up(card)
    }
    /// Cards whose identity I cannot see: other players' hands and the deck.
    pub fn unknown_cards(&self) -> usize {
        let others: usize = self.opponents().map(|s| self.influence(s)).sum();
        others + self.deck_size()
    }
    /// Everything in this view, owned.
    pub fn observation(&self) -> Observation {
        let n = self.players();
        Observation {
            me: self.me,
            my_cards: self.my_cards().to_vec(),
            drawn: self.drawn(),
            coins: (0..n).map(|s| self.coins(s)).collect(),
            influence: (0..n).map(|s| self.influence(s)).collect(),
            revealed: (0..n).map(|s| self.revealed(s).to_vec()).collect(),
            alive: (0..n).map(|s| self.is_alive(s)).collect(),
            deck_size: self.deck_size(),
            log: self.log().to_vec(),
            pending: self.pending(),
            turns: self.turns(),
            table_start: self.table_start(),
        }
    }
}

/// Everything one player may see, owned (for tests, records and protocols).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Observation {
    /// My seat.
    pub me: Seat,
    /// My face-down cards.
    pub my_cards: Vec<Card>,
    /// Cards I drew in my pending Exchange.
    pub drawn: Option<[Card; 2]>,
    /// Coins per seat.
    pub coins: Vec<u8>,
    /// Face-down card count per seat.
    pub influence: Vec<usize>,
    /// Face-up cards per seat.
    pub revealed: Vec<Vec<Card>>,
    /// Whether each seat is in.
    pub alive: Vec<bool>,
    /// Cards in the deck.
    pub deck_size: usize,
    /// The public log.
    pub log: Vec<Event>,
    /// The pending decision.
    pub pending: Pending,
    /// Turns completed.
    pub turns: u32,
    /// Where the table's order starts (rules that ask in table order).
    pub table_start: Option<Seat>,
}
