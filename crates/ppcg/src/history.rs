//! The history file as the original arbiter would have written it, rebuilt from the
//! engine's public log, with the arbiter's own bookkeeping beside it: its coin
//! counts (it pays for Coup and Assassinate late) and its order of each hand.

use crate::protocol::{block_char, give_up_char, reveal_char};
use koth_arena::Seat;
use koth_coup::{Action, Card, Event, State};

/// One move: what one invocation of a program appends to the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Move {
    /// The seat that writes it.
    pub seat: Seat,
    /// The move (one legal move of the arbiter's list).
    pub text: String,
    /// Written by the program but with no engine decision of its own (a reveal, the
    /// newline that ends a turn): the program is still invoked for it.
    pub owed: bool,
    /// The arbiter's coin counts just before the move, by seat.
    pub coins: [i32; 2],
    /// The mover's cards just before the move, in the arbiter's order.
    pub hand: Vec<Card>,
}

/// The arbiter's history of one game.
#[derive(Clone, Debug, Default)]
pub struct History {
    moves: Vec<Move>,
    /// The text of each move as it is in the file (the move itself, or, under the
    /// default lenient reading, with the junk the program wrote before it).
    raw: Vec<String>,
    canon: String,
    file: String,
    line_start: usize,
    actor: Seat,
    log_pos: usize,
    hands: [Vec<Card>; 2],
    coins: [i32; 2],
    lost_in_line: [bool; 2],
    stopped: bool,
    /// Moves whose invocation has happened.
    invoked: usize,
    /// Moves whose effects the arbiter's books hold (read from their raw text).
    settled: usize,
    /// The raw text of the settled moves.
    settled_text: String,
    /// The first move of the current line.
    line_first: usize,
    /// A player who gave up a card on a line the arbiter reads as "two cards in one
    /// turn" (`A`, then `q` or `s`, four characters): it loses at once.
    two_cards: Option<Seat>,
}

impl History {
    /// The history of a game about to start.
    pub fn new(state: &State) -> History {
        let mut h = History {
            hands: [state.hand(0).to_vec(), state.hand(1).to_vec()],
            coins: [state.coins(0) as i32, state.coins(1) as i32],
            ..Default::default()
        };
        h.log_pos = 0;
        h
    }

    /// Every move so far.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }
    /// The file's text.
    pub fn file_text(&self) -> &str {
        &self.file
    }
    /// The file's text without junk (the same unless the lenient reading let junk in).
    pub fn canonical(&self) -> &str {
        &self.canon
    }
    /// The file's text before move `i`.
    pub fn file_before(&self, i: usize) -> String {
        self.raw[..i].concat()
    }
    /// What was written for move `i` (the move itself unless junk came with it).
    pub fn raw(&self, i: usize) -> &str {
        &self.raw[i]
    }
    /// The canonical text before move `i`.
    pub fn canonical_before(&self, i: usize) -> String {
        self.moves[..i].iter().map(|m| m.text.as_str()).collect()
    }
    /// The current line (canonical).
    pub fn line(&self) -> &str {
        &self.canon[self.line_start..]
    }
    /// The arbiter's coins now.
    pub fn coins(&self) -> [i32; 2] {
        self.coins
    }
    /// `seat`'s cards now, in the arbiter's order.
    pub fn hand(&self, seat: Seat) -> &[Card] {
        &self.hands[seat]
    }
    /// The seat whose turn the current line is.
    pub fn actor(&self) -> Seat {
        self.actor
    }
    /// Whether `seat` gave up a card on the current line while it was not its turn.
    pub fn lost_in_line(&self, seat: Seat) -> bool {
        self.lost_in_line[seat]
    }
    /// Invocations made so far.
    pub fn invoked(&self) -> usize {
        self.invoked
    }
    /// Moves whose effects are in the books.
    pub fn settled(&self) -> usize {
        self.settled
    }
    /// The raw text of the settled moves (what the file holds once they are written).
    pub fn settled_text(&self) -> &str {
        &self.settled_text
    }
    /// The player the arbiter's two-cards-in-one-turn rule has just put out, if any.
    pub fn two_cards(&self) -> Option<Seat> {
        self.two_cards
    }
    /// The last move of the current line whose raw text is not the move itself
    /// (junk the original accepted), among the invoked ones.
    pub fn junk_in_line(&self) -> Option<usize> {
        (self.line_first..self.invoked.min(self.raw.len()))
            .rev()
            .find(|&i| self.raw[i] != self.moves[i].text)
    }
    /// Applies the arbiter's side effects of every invoked move not yet settled,
    /// reading each move's line from the raw text as the original does.
    pub fn settle(&mut self) {
        while self.settled < self.invoked.min(self.moves.len()) {
            let i = self.settled;
            self.settled += 1;
            self.moves[i].coins = self.coins;
            self.settled_text.push_str(&self.raw[i]);
            let seat = self.moves[i].seat;
            let text = self.moves[i].text.clone();
            let line = crate::protocol::last_line(&self.settled_text)
                .unwrap_or("")
                .to_string();
            self.ledger(seat, &text, &line);
        }
    }

    /// The first move rendered but not yet invoked (a reveal or newline owed by a program).
    pub fn owed(&self) -> Option<(usize, &Move)> {
        self.moves.get(self.invoked).map(|m| (self.invoked, m))
    }
    /// The owed move has been invoked.
    pub fn confirm_owed(&mut self) {
        debug_assert!(self.invoked < self.moves.len());
        self.invoked += 1;
    }
    /// Replaces the file text of move `i` by what the program really wrote (junk kept
    /// under the lenient reading).
    pub fn set_raw(&mut self, i: usize, raw: String) {
        if i < self.raw.len() {
            self.raw[i] = raw;
            self.file = self.raw.concat();
        }
    }
    /// Sets `seat`'s hand order (after an Exchange, the order the program printed).
    pub fn set_hand_order(&mut self, seat: Seat, cards: Vec<Card>) {
        self.hands[seat] = cards;
    }

    fn push(&mut self, seat: Seat, text: String, owed: bool) {
        let m = Move {
            seat,
            text: text.clone(),
            owed,
            coins: self.coins,
            hand: self.hands[seat].clone(),
        };
        if !owed {
            debug_assert_eq!(
                self.invoked,
                self.moves.len(),
                "a decided move while another is owed"
            );
            self.invoked = self.moves.len() + 1;
        }
        self.moves.push(m);
        self.raw.push(text.clone());
        self.canon.push_str(&text);
        self.file.push_str(&text);
    }

    /// The arbiter's side effects of `text` (the move it was taken as) whose line now
    /// reads `line` in the file (`play_game` and `determine_turn_effects`).
    fn ledger(&mut self, seat: Seat, text: &str, line: &str) {
        let other = 1 - seat;
        let line: Vec<char> = line.chars().collect();
        let at = |k: usize| line.len().checked_sub(k).map(|i| line[i]);
        let t: Vec<char> = text.chars().collect();
        self.two_cards = None;
        if text == "I\n" {
            self.coins[seat] += 1;
        } else if t.len() == 2 {
            if at(3) == Some('!') {
                self.coins[seat] -= 3;
            }
        } else if t.len() == 1 && "_'<=0".contains(t[0]) {
            match line.first() {
                Some('C') => self.coins[other] -= 7,
                Some('A') => self.coins[other] -= 3,
                _ => {}
            }
            if line.first() == Some(&'A')
                && line.get(1).is_some_and(|c| "qs".contains(*c))
                && line.len() == 4
            {
                self.two_cards = Some(seat);
            }
        } else if text == "\n" {
            let last = at(2).unwrap_or(' ');
            if "p_'<=0".contains(last) {
                match line.first() {
                    Some('F') => self.coins[seat] += 2,
                    Some('T') => self.coins[seat] += 3,
                    Some('S') => {
                        let k = if self.coins[other] == 1 { 1 } else { 2 };
                        self.coins[seat] += k;
                        self.coins[other] -= k;
                    }
                    _ => {}
                }
            } else if last == 's' {
                self.coins[seat] -= 3;
            }
        }
    }

    fn line_ended(&self) -> bool {
        self.canon.is_empty() || self.canon.ends_with('\n')
    }

    /// Renders the log events the engine added since the last call. `before` is each
    /// seat's hand (engine order) before the step that added them.
    pub fn update(&mut self, state: &State, before: &[Vec<Card>; 2]) {
        let log = state.log();
        while self.log_pos < log.len() {
            let ev = log[self.log_pos];
            self.log_pos += 1;
            if self.stopped {
                continue;
            }
            self.event(ev, state, before);
        }
    }

    fn current_action(&self) -> Option<char> {
        self.canon[self.line_start..].chars().next()
    }

    fn event(&mut self, ev: Event, state: &State, before: &[Vec<Card>; 2]) {
        match ev {
            Event::Turn { actor, number } => {
                if number > 0 && !self.line_ended() {
                    self.push(self.actor, "\n".into(), true);
                }
                self.actor = actor;
                self.line_start = self.canon.len();
                self.line_first = self.moves.len();
                self.lost_in_line = [false; 2];
            }
            Event::Act { actor, action } => {
                let text = match action {
                    Action::Income => "I\n",
                    Action::ForeignAid => "F",
                    Action::Coup(_) => "C",
                    Action::Tax => "T",
                    Action::Assassinate(_) => "A",
                    Action::Steal(_) => "S",
                    Action::Exchange => "E",
                };
                self.push(actor, text.into(), false);
            }
            Event::NoChallenge { player } => {
                if player == self.actor {
                    self.push(player, "\n".into(), false);
                } else if self.current_action() != Some('A') {
                    self.push(player, "p".into(), false);
                }
                // Letting an Assassinate through is written as the card given up.
            }
            Event::NoBlock { player } => self.push(player, "p".into(), false),
            Event::Challenge { challenger, .. } => self.push(challenger, "q".into(), false),
            Event::Reveal {
                player,
                card,
                replaced,
            } => {
                self.push(player, reveal_char(card).to_string(), true);
                if replaced {
                    let i = before[player].iter().position(|&c| c == card);
                    let new = i.and_then(|i| state.hand(player).get(i).copied());
                    let h = &mut self.hands[player];
                    if let Some(j) = h.iter().position(|&c| c == card) {
                        h.remove(j);
                    }
                    if let Some(new) = new {
                        h.push(new);
                    }
                }
            }
            Event::Block { blocker, card } => {
                self.push(blocker, block_char(card).to_string(), false)
            }
            Event::LoseInfluence { player, card } => {
                let suppressed = player != self.actor && self.lost_in_line[player];
                if !suppressed {
                    let mut text = give_up_char(card).to_string();
                    if player == self.actor {
                        text.push('\n');
                    } else {
                        self.lost_in_line[player] = true;
                    }
                    self.push(player, text, false);
                }
                let h = &mut self.hands[player];
                if let Some(j) = h.iter().position(|&c| c == card) {
                    h.remove(j);
                }
            }
            Event::Exchanged { player } => {
                self.push(player, "\n".into(), false);
                let engine = state.hand(player);
                let mut sorted_mine = self.hands[player].clone();
                sorted_mine.sort();
                let mut sorted_engine = engine.to_vec();
                sorted_engine.sort();
                if sorted_mine != sorted_engine {
                    self.hands[player] = engine.to_vec();
                }
            }
            Event::Forfeit { .. } => self.stopped = true,
            _ => {}
        }
    }

    /// Checks that the arbiter's books agree with the engine: same cards in hand, and
    /// the same coins whenever a line is complete.
    pub fn check(&self, state: &State) -> Result<(), String> {
        if self.stopped {
            return Ok(());
        }
        for seat in 0..2 {
            let mut a = self.hands[seat].clone();
            a.sort();
            let mut b = state.hand(seat).to_vec();
            b.sort();
            if a != b && !state.is_over() {
                return Err(format!("seat {seat}: arbiter cards {a:?}, engine {b:?}"));
            }
            if self.line_ended()
                && self.invoked == self.moves.len()
                && self.settled == self.invoked
                && !state.is_over()
                && self.coins[seat] != state.coins(seat) as i32
            {
                return Err(format!(
                    "seat {seat}: arbiter coins {}, engine {}",
                    self.coins[seat],
                    state.coins(seat)
                ));
            }
        }
        Ok(())
    }
}
