//! The rules of Coup as a pure state machine (specs/coup.md).

use crate::action::{Action, ActionKind};
use crate::card::{full_deck, Card, COPIES, DECK_SIZE};
use crate::choice::{Choice, Keep};
use crate::event::Event;
use crate::hand::Hand;
use crate::rules::{IllegalPolicy, Rules};
use koth_arena::{DealRng, Ending, IllegalChoice, Outcome, Random, Rng, Seat, SeatSet};

/// The most players at a table.
pub const MAX_PLAYERS: usize = 6;

/// The decision the game is waiting for, as everyone sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pending {
    /// `actor` chooses an action.
    Action {
        /// Whose turn it is.
        actor: Seat,
    },
    /// `asker` may challenge `actor`'s claim (and, under one-answer rules, the
    /// target may block here instead).
    ChallengeAction {
        /// Who acts.
        actor: Seat,
        /// The action claimed.
        action: Action,
        /// Who is asked.
        asker: Seat,
    },
    /// `asker` may block `actor`'s action.
    Block {
        /// Who acts.
        actor: Seat,
        /// The action.
        action: Action,
        /// Who is asked.
        asker: Seat,
    },
    /// `asker` may challenge `blocker`'s claim of `card`.
    ChallengeBlock {
        /// Who acts.
        actor: Seat,
        /// The action blocked.
        action: Action,
        /// Who blocked.
        blocker: Seat,
        /// The card the blocker claims.
        card: Card,
        /// Who is asked.
        asker: Seat,
    },
    /// `actor` chooses the cards to keep after an Exchange.
    Exchange {
        /// Who exchanges.
        actor: Seat,
    },
    /// `player` chooses an influence to lose.
    LoseInfluence {
        /// Who loses one.
        player: Seat,
    },
    /// The game is over.
    Over,
}

impl Pending {
    /// The seat to decide, if any.
    pub fn seat(self) -> Option<Seat> {
        match self {
            Pending::Action { actor } | Pending::Exchange { actor } => Some(actor),
            Pending::ChallengeAction { asker, .. }
            | Pending::Block { asker, .. }
            | Pending::ChallengeBlock { asker, .. } => Some(asker),
            Pending::LoseInfluence { player } => Some(player),
            Pending::Over => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Then {
    AfterActionChallenge,
    Effect,
    BlockStands,
    EndTurn,
    /// A penalised answer counts as a pass where it was asked.
    Pass(PassAt),
}

/// Where a penalised answer counts as a pass (seats as bytes: `Phase`, copied on
/// every decision, keeps its size).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PassAt {
    ChallengeAction(u8),
    Block(u8),
    ChallengeBlock(u8),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Action,
    ChallengeAction { asker: Seat },
    Block { asker: Seat },
    ChallengeBlock { asker: Seat },
    Exchange,
    Lose { player: Seat, then: Then },
    Over,
}

/// One game of Coup.
///
/// ```
/// use koth_coup::{State, Rules, Choice, Action};
/// let mut g = State::new(Rules::standard(), 3, 42);
/// assert_eq!(g.pending(), koth_coup::Pending::Action { actor: 0 });
/// g.apply(Choice::Act(Action::Income)).unwrap();
/// assert_eq!(g.coins(0), 3);
/// ```
#[derive(Clone, Debug)]
pub struct State {
    rules: Rules,
    n: u8,
    hands: [Hand; MAX_PLAYERS],
    revealed: [Hand; MAX_PLAYERS],
    /// Face-up copies of each card, kept so card counting is O(1).
    face_up: [u8; 5],
    coins: [u8; MAX_PLAYERS],
    deck: [Card; DECK_SIZE],
    deck_len: u8,
    alive: SeatSet,
    phase: Phase,
    actor: Seat,
    action: Action,
    blocker: Seat,
    block_card: Card,
    target_answered: bool,
    drawn: [Card; 2],
    /// The first seat asked when the rules ask in table order.
    table_start: u8,
    turns: u32,
    outcome: Option<Outcome>,
    log: Vec<Event>,
    /// Seats in the order they went out (the log says it too; this spares a scan).
    out_order: [u8; MAX_PLAYERS],
    outs: u8,
    /// Cryptographic, so the cards a player sees never predict the others.
    rng: DealRng,
}

impl State {
    /// Deals a new game for `players` seats (clamped to 2..=6) from `seed`.
    pub fn new(rules: Rules, players: usize, seed: u64) -> State {
        State::new_with_log(rules, players, seed, Vec::with_capacity(256))
    }

    fn new_with_log(rules: Rules, players: usize, seed: u64, log: Vec<Event>) -> State {
        let n = players.clamp(2, MAX_PLAYERS);
        let mut rng = DealRng::new(seed);
        let mut deck = full_deck();
        rng.shuffle(&mut deck);
        let mut s = State {
            rules,
            n: n as u8,
            hands: [Hand::EMPTY; MAX_PLAYERS],
            revealed: [Hand::EMPTY; MAX_PLAYERS],
            face_up: [0; 5],
            coins: [0; MAX_PLAYERS],
            deck,
            deck_len: DECK_SIZE as u8,
            alive: SeatSet::all(n),
            phase: Phase::Action,
            actor: 0,
            action: Action::Income,
            blocker: 0,
            block_card: Card::Duke,
            target_answered: false,
            drawn: [Card::Ambassador; 2],
            table_start: 0,
            turns: 0,
            outcome: None,
            log,
            out_order: [0; MAX_PLAYERS],
            outs: 0,
            rng,
        };
        for seat in 0..n {
            for _ in 0..2 {
                let c = s.draw();
                s.hands[seat].push(c);
            }
            s.coins[seat] = rules.starting_coins;
        }
        if let Some(c) = rules.first_player_coins {
            s.coins[0] = c;
        }
        if rules.ask_in_table_order {
            // Drawn after the deal, so the other rule sets' deals are unchanged.
            s.table_start = s.rng.below(n as u32) as u8;
        }
        s.log.push(Event::Turn {
            actor: 0,
            number: 0,
        });
        s
    }

    /// A game set up by hand, for tests and puzzles: `hands[i]` are seat i's cards,
    /// `deck` is the deck from bottom to top (drawn from the end). The cards must
    /// add up to the full deck.
    ///
    /// ```
    /// use koth_coup::{Card::*, Rules, State};
    /// // Cards that cannot be the game's deck are refused, never a panic.
    /// let hands: [&[koth_coup::Card]; 2] = [&[Duke, Duke], &[Captain, Captain]];
    /// let e = State::from_setup(Rules::standard(), &hands, &[2, 2], &[Contessa; 16], 1);
    /// assert!(e.unwrap_err().contains("16 cards"));
    /// ```
    pub fn from_setup(
        rules: Rules,
        hands: &[&[Card]],
        coins: &[u8],
        deck: &[Card],
        seed: u64,
    ) -> Result<State, String> {
        let n = hands.len();
        if !(2..=MAX_PLAYERS).contains(&n) || coins.len() != n {
            return Err(format!(
                "{n} hands and {} coin counts: need 2 to 6 of each",
                coins.len()
            ));
        }
        let mut s = State::new(rules, n, seed);
        let mut count = [0usize; 5];
        for (i, h) in hands.iter().enumerate() {
            if h.is_empty() || h.len() > 2 {
                return Err(format!("seat {i} holds {} cards", h.len()));
            }
            s.hands[i] = Hand::of(h);
            s.coins[i] = coins[i];
            for &c in h.iter() {
                count[c.index()] += 1;
            }
        }
        if deck.len() > DECK_SIZE {
            return Err(format!(
                "a deck of {} cards: the game has {DECK_SIZE}",
                deck.len()
            ));
        }
        let mut deck_arr = [Card::Ambassador; DECK_SIZE];
        deck_arr[..deck.len()].copy_from_slice(deck);
        for &c in deck {
            count[c.index()] += 1;
        }
        s.deck = deck_arr;
        s.deck_len = deck.len() as u8;
        // Missing cards are the face-up losses of one-card hands, assigned in card order.
        for (seat, h) in hands.iter().enumerate() {
            if h.len() == 1 {
                let c = Card::ALL
                    .into_iter()
                    .find(|c| count[c.index()] < COPIES)
                    .ok_or("more cards than the deck holds")?;
                count[c.index()] += 1;
                s.revealed[seat].push(c);
                s.face_up[c.index()] += 1;
            }
        }
        if count.iter().any(|&k| k != COPIES) {
            return Err(format!("cards must add up to 3 of each: {count:?}"));
        }
        Ok(s)
    }

    // ----- what anyone may see -----

    /// The rule options.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }
    /// Number of seats.
    pub fn players(&self) -> usize {
        self.n as usize
    }
    /// Coins of `seat`.
    pub fn coins(&self, seat: Seat) -> u8 {
        self.coins[seat]
    }
    /// Face-down cards of `seat` (influence).
    pub fn influence(&self, seat: Seat) -> usize {
        self.hands[seat].len()
    }
    /// Face-up (lost) cards of `seat`.
    pub fn revealed(&self, seat: Seat) -> &[Card] {
        self.revealed[seat].cards()
    }
    /// Face-up copies of `card`, all players together.
    #[inline]
    pub fn face_up(&self, card: Card) -> usize {
        self.face_up[card.index()] as usize
    }
    /// Whether `seat` still has influence.
    pub fn is_alive(&self, seat: Seat) -> bool {
        self.alive.contains(seat)
    }
    /// The seats still in the game.
    pub fn alive(&self) -> SeatSet {
        self.alive
    }
    /// Cards in the deck.
    pub fn deck_size(&self) -> usize {
        self.deck_len as usize
    }
    /// Once the game is over, each seat's place: 1 for the winners, then survivors
    /// that did not win (a game adjudicated or capped), then the others from the
    /// last eliminated to the first. Empty while the game runs.
    ///
    /// ```
    /// use koth_coup::{Action, Choice, Rules, State};
    /// let mut g = State::new(Rules::standard(), 3, 1);
    /// let first = g.to_move().unwrap();
    /// g.forfeit(first);
    /// let second = g.to_move().unwrap();
    /// g.forfeit(second);
    /// let mut places = koth_arena::PerSeat::new();
    /// g.places(&mut places);
    /// assert_eq!(places[first], 3);
    /// assert_eq!(places[second], 2);
    /// assert_eq!(places.iter().filter(|&&p| p == 1).count(), 1);
    /// ```
    pub fn places(&self, out: &mut koth_arena::PerSeat<u8>) {
        out.clear();
        let Some(o) = self.outcome() else { return };
        let n = self.n as usize;
        out.resize(n, 0);
        let mut better = 0u8;
        for s in o.winners.iter() {
            out[s] = 1;
        }
        better += o.winners.len() as u8;
        let standing = SeatSet(self.alive.0 & !o.winners.0);
        for s in standing.iter() {
            out[s] = better + 1;
        }
        better += standing.len() as u8;
        for &player in self.out_order[..self.outs as usize].iter().rev() {
            let player = player as usize;
            if out[player] == 0 {
                out[player] = better + 1;
                better += 1;
            }
        }
        // Anyone left (not in the log): behind everyone placed.
        for p in out.iter_mut().filter(|p| **p == 0) {
            *p = better + 1;
        }
    }

    /// The public log.
    pub fn log(&self) -> &[Event] {
        &self.log
    }
    /// Turns completed.
    pub fn turns(&self) -> u32 {
        self.turns
    }

    /// Under rules that ask in table order (coupcli), the seat the table's order
    /// starts at: challenges and blocks are asked from there round the table, and
    /// coup-cli lists its players in that order. Drawn per game; public.
    ///
    /// ```
    /// use koth_coup::{Rules, State};
    /// assert_eq!(State::new(Rules::standard(), 3, 7).table_start(), None);
    /// assert!(State::new(Rules::coupcli(), 3, 7).table_start().unwrap() < 3);
    /// ```
    pub fn table_start(&self) -> Option<Seat> {
        self.rules
            .ask_in_table_order
            .then_some(self.table_start as Seat)
    }
    /// Whose turn it is.
    pub fn actor(&self) -> Seat {
        self.actor
    }
    /// The result, once over.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }
    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        self.phase == Phase::Over
    }

    /// The pending decision.
    pub fn pending(&self) -> Pending {
        match self.phase {
            Phase::Action => Pending::Action { actor: self.actor },
            Phase::ChallengeAction { asker } => Pending::ChallengeAction {
                actor: self.actor,
                action: self.action,
                asker,
            },
            Phase::Block { asker } => Pending::Block {
                actor: self.actor,
                action: self.action,
                asker,
            },
            Phase::ChallengeBlock { asker } => Pending::ChallengeBlock {
                actor: self.actor,
                action: self.action,
                blocker: self.blocker,
                card: self.block_card,
                asker,
            },
            Phase::Exchange => Pending::Exchange { actor: self.actor },
            Phase::Lose { player, .. } => Pending::LoseInfluence { player },
            Phase::Over => Pending::Over,
        }
    }

    /// The seat to decide, if any.
    #[inline]
    pub fn to_move(&self) -> Option<Seat> {
        match self.phase {
            Phase::Action | Phase::Exchange => Some(self.actor),
            Phase::ChallengeAction { asker }
            | Phase::Block { asker }
            | Phase::ChallengeBlock { asker } => Some(asker),
            Phase::Lose { player, .. } => Some(player),
            Phase::Over => None,
        }
    }

    // ----- hidden information: only views and trusted adapters use these -----

    /// The face-down cards of `seat`. Hidden from other players: bots get it only
    /// for their own seat, through their view.
    pub fn hand(&self, seat: Seat) -> &[Card] {
        self.hands[seat].cards()
    }

    /// The two cards drawn in the Exchange being decided (hidden from all but the actor).
    pub fn drawn(&self) -> Option<[Card; 2]> {
        (self.phase == Phase::Exchange).then_some(self.drawn)
    }

    /// The deck, bottom to top (hidden).
    pub fn deck(&self) -> &[Card] {
        &self.deck[..self.deck_len as usize]
    }

    // ----- legal choices -----

    /// Appends the legal choices of the pending decision.
    #[inline]
    pub fn legal_choices(&self, out: &mut Vec<Choice>) {
        // The yes/no rounds are most decisions: keep them small enough to inline.
        match self.phase {
            Phase::ChallengeBlock { .. } => {
                out.extend_from_slice(&[Choice::Pass, Choice::Challenge])
            }
            Phase::ChallengeAction { asker } if !self.may_block_in_challenge_round(asker) => {
                out.extend_from_slice(&[Choice::Pass, Choice::Challenge])
            }
            // Foreign Aid asks everyone: Pass or a Duke.
            Phase::Block { .. } if self.action == Action::ForeignAid => {
                out.extend_from_slice(&[Choice::Pass, Choice::Block(Card::Duke)])
            }
            _ => self.legal_choices_slow(out),
        }
    }

    /// Whether `choice` is among `legal` (this decision's legal choices): the yes/no
    /// rounds answer from the phase, the same sets [`State::legal_choices`] lists.
    #[inline]
    pub fn is_legal_among(&self, legal: &[Choice], choice: Choice) -> bool {
        self.yes_no_legal(choice)
            .unwrap_or_else(|| legal.contains(&choice))
    }

    /// Whether `choice` is legal now, from the rules (no list): the same answer as
    /// listing [`State::legal_choices`] and looking in it. `scratch` serves the
    /// rare decisions (Exchange, losing a card) that are checked from a list.
    #[inline]
    pub fn is_legal_with(&self, choice: Choice, scratch: &mut Vec<Choice>) -> bool {
        match (self.phase, choice) {
            (Phase::Action, Choice::Act(a)) => self.action_legal(a),
            (Phase::Action, _) | (Phase::Over, _) => false,
            _ => self.yes_no_legal(choice).unwrap_or_else(|| {
                scratch.clear();
                self.legal_choices_slow(scratch);
                scratch.contains(&choice)
            }),
        }
    }

    /// The yes/no rounds' answer from the phase (the sets [`State::legal_choices`]
    /// lists for them); `None` for the other decisions.
    #[inline]
    fn yes_no_legal(&self, choice: Choice) -> Option<bool> {
        match self.phase {
            Phase::ChallengeBlock { .. } => {
                Some(matches!(choice, Choice::Pass | Choice::Challenge))
            }
            Phase::ChallengeAction { asker } if !self.may_block_in_challenge_round(asker) => {
                Some(matches!(choice, Choice::Pass | Choice::Challenge))
            }
            Phase::Block { .. } if self.action == Action::ForeignAid => {
                Some(matches!(choice, Choice::Pass | Choice::Block(Card::Duke)))
            }
            _ => None,
        }
    }

    /// Whether the actor may declare `a` now (a turn's decision is pending): the
    /// rules [`State::legal_choices`] lists a turn's actions by.
    pub(crate) fn action_legal(&self, a: Action) -> bool {
        self.phase == Phase::Action && self.allows(self.actor_coins(), a)
    }

    /// The actor's coins and whether a Coup is forced: what [`State::allows`] needs.
    #[inline]
    fn actor_coins(&self) -> (u8, bool) {
        let coins = self.coins[self.actor];
        (coins, coins >= self.rules.forced_coup_coins)
    }

    /// The rule for a turn's actions, given [`State::actor_coins`]: the one rule
    /// both the list and the check without it follow.
    #[inline]
    fn allows(&self, (coins, forced): (u8, bool), a: Action) -> bool {
        let me = self.actor;
        let opponent = |t: Seat| t < self.n as usize && t != me && self.alive.contains(t);
        match a {
            Action::Income | Action::ForeignAid | Action::Tax | Action::Exchange => !forced,
            Action::Steal(t) => {
                !forced && opponent(t) && (self.coins[t] > 0 || self.rules.steal_from_empty)
            }
            Action::Assassinate(t) => !forced && opponent(t) && coins >= 3,
            Action::Coup(t) => opponent(t) && coins >= 7,
        }
    }

    /// The seats the actor may target with `kind` now, in the order
    /// [`State::legal_choices`] lists them (none for untargeted kinds).
    pub(crate) fn targets(&self, kind: ActionKind) -> impl Iterator<Item = Seat> + '_ {
        let make: Option<fn(Seat) -> Action> = match kind {
            ActionKind::Coup => Some(Action::Coup),
            ActionKind::Steal => Some(Action::Steal),
            ActionKind::Assassinate => Some(Action::Assassinate),
            _ => None,
        };
        make.into_iter().flat_map(move |make| {
            self.seats_after(self.actor)
                .filter(move |&t| self.action_legal(make(t)))
        })
    }

    /// Every action a turn might list, in the order [`State::legal_choices`] lists
    /// them (legal or not: filter with [`State::action_legal`]).
    pub(crate) fn candidate_actions(&self) -> impl Iterator<Item = Action> + '_ {
        [
            Action::Income,
            Action::ForeignAid,
            Action::Tax,
            Action::Exchange,
        ]
        .into_iter()
        .chain(
            self.seats_after(self.actor)
                .flat_map(|t| [Action::Steal(t), Action::Assassinate(t), Action::Coup(t)]),
        )
    }

    #[inline(never)]
    fn legal_choices_slow(&self, out: &mut Vec<Choice>) {
        match self.phase {
            Phase::Action => self.legal_actions(out),
            Phase::ChallengeAction { asker } => {
                out.extend_from_slice(&[Choice::Pass, Choice::Challenge]);
                if self.may_block_in_challenge_round(asker) {
                    for &c in self.action.blockers() {
                        out.push(Choice::Block(c));
                    }
                }
            }
            Phase::Block { .. } => {
                out.push(Choice::Pass);
                for &c in self.action.blockers() {
                    out.push(Choice::Block(c));
                }
            }
            Phase::ChallengeBlock { .. } => {
                out.extend_from_slice(&[Choice::Pass, Choice::Challenge])
            }
            Phase::Exchange => self.legal_keeps(out),
            Phase::Lose { player, .. } => {
                let h = self.hands[player];
                for (i, &c) in h.cards().iter().enumerate() {
                    if !h.cards()[..i].contains(&c) {
                        out.push(Choice::Lose(c));
                    }
                }
            }
            Phase::Over => {}
        }
    }

    fn legal_actions(&self, out: &mut Vec<Choice>) {
        // One rule for the list and the check without it (`action_legal`).
        // Plain loops in `candidate_actions`' order (its iterator chain costs more).
        let coins = self.actor_coins();
        let untargeted = [
            Action::Income,
            Action::ForeignAid,
            Action::Tax,
            Action::Exchange,
        ];
        for a in untargeted {
            if self.allows(coins, a) {
                out.push(Choice::Act(a));
            }
        }
        for t in self.seats_after(self.actor) {
            for a in [Action::Steal(t), Action::Assassinate(t), Action::Coup(t)] {
                if self.allows(coins, a) {
                    out.push(Choice::Act(a));
                }
            }
        }
    }

    fn legal_keeps(&self, out: &mut Vec<Choice>) {
        let h = self.hands[self.actor];
        let mut pool = [Card::Ambassador; 4];
        let k = h.len();
        pool[..k].copy_from_slice(h.cards());
        pool[k] = self.drawn[0];
        pool[k + 1] = self.drawn[1];
        let pool = &pool[..k + 2];
        let start = out.len();
        let mut push = |keep: Keep| {
            let c = Choice::Keep(keep);
            if !out[start..].contains(&c) {
                out.push(c);
            }
        };
        if k == 1 {
            for &c in pool {
                push(Keep::new(&[c]).expect("one card"));
            }
        } else {
            for i in 0..pool.len() {
                for j in i + 1..pool.len() {
                    push(Keep::new(&[pool[i], pool[j]]).expect("two cards"));
                }
            }
        }
    }

    #[inline]
    pub(crate) fn may_block_in_challenge_round(&self, asker: Seat) -> bool {
        !self.rules.challenge_and_block
            && self.action.target() == Some(asker)
            && !self.action.blockers().is_empty()
    }

    /// Live seats other than `me`, in seat order after `me`.
    pub fn opponents(&self, me: Seat) -> impl Iterator<Item = Seat> + '_ {
        self.seats_after(me)
            .filter(move |&s| self.alive.contains(s))
    }

    /// Every seat but `me`, in seat order after `me` (live or not).
    fn seats_after(&self, me: Seat) -> impl Iterator<Item = Seat> {
        // Wrapping, without a division per step.
        (me + 1..self.n as usize).chain(0..me)
    }

    /// The first player asked to challenge (or block) `claimant`'s claim.
    #[inline]
    fn first_asker(&self, claimant: Seat) -> Seat {
        if self.rules.ask_in_table_order {
            self.asker_in_table_order(0, claimant).unwrap_or(claimant)
        } else {
            self.next_live_after(claimant)
        }
    }

    /// The player asked after `asker`, or `None` when everyone but `claimant` has been.
    #[inline]
    fn next_asker(&self, asker: Seat, claimant: Seat) -> Option<Seat> {
        if self.rules.ask_in_table_order {
            let n = self.n as usize;
            let pos = (asker + n - self.table_start as usize) % n;
            self.asker_in_table_order(pos + 1, claimant)
        } else {
            let next = self.next_live_after(asker);
            (next != claimant).then_some(next)
        }
    }

    /// The first live player other than `claimant` at or after position `from` of
    /// the table order (position 0 is `table_start`). Off the hot path: only the
    /// coupcli rules ask this way.
    #[cold]
    fn asker_in_table_order(&self, from: usize, claimant: Seat) -> Option<Seat> {
        let n = self.n as usize;
        (from..n)
            .map(|k| (self.table_start as usize + k) % n)
            .find(|&t| t != claimant && self.alive.contains(t))
    }

    #[inline]
    fn next_live_after(&self, s: Seat) -> Seat {
        let n = self.n as usize;
        let mut t = s;
        for _ in 0..n {
            t += 1;
            if t == n {
                t = 0;
            }
            if self.alive.contains(t) {
                return t;
            }
        }
        s
    }

    /// Deals a new game into this state, reusing its log's memory.
    pub fn redeal(&mut self, rules: Rules, players: usize, seed: u64) {
        let mut log = std::mem::take(&mut self.log);
        log.clear();
        *self = State::new_with_log(rules, players, seed, log);
    }

    /// Whether `choice` answers the pending decision legally.
    pub fn is_legal(&self, choice: Choice) -> bool {
        // Allocates only for the decisions checked from a list.
        self.is_legal_with(choice, &mut Vec::new())
    }

    // ----- applying choices -----

    /// Applies the pending seat's choice.
    pub fn apply(&mut self, choice: Choice) -> Result<(), IllegalChoice> {
        if !self.is_legal(choice) {
            return Err(IllegalChoice(format!(
                "{choice:?} does not answer {:?}",
                self.pending()
            )));
        }
        self.apply_unchecked(choice);
        Ok(())
    }

    /// Applies a choice known to be legal (from [`State::legal_choices`]).
    pub(crate) fn apply_unchecked(&mut self, choice: Choice) {
        match (self.phase, choice) {
            (Phase::Action, Choice::Act(a)) => self.act(a),
            (Phase::ChallengeAction { asker }, Choice::Pass) => {
                self.log.push(Event::NoChallenge { player: asker });
                if self.action.target() == Some(asker) {
                    self.target_answered = true;
                }
                match self.next_asker(asker, self.actor) {
                    None => self.after_action_challenge(),
                    Some(next) => self.phase = Phase::ChallengeAction { asker: next },
                }
            }
            (Phase::ChallengeAction { asker }, Choice::Challenge) => {
                if self.action.target() == Some(asker) {
                    self.target_answered = true;
                }
                self.challenge_action(asker);
            }
            (Phase::ChallengeAction { asker }, Choice::Block(card)) => {
                self.target_answered = true;
                self.block(asker, card);
            }
            (Phase::Block { asker }, Choice::Pass) => {
                self.log.push(Event::NoBlock { player: asker });
                self.block_passed(asker);
            }
            (Phase::Block { asker }, Choice::Block(card)) => self.block(asker, card),
            (Phase::ChallengeBlock { asker }, Choice::Pass) => {
                self.log.push(Event::NoChallenge { player: asker });
                match self.next_asker(asker, self.blocker) {
                    None => self.then(Then::BlockStands),
                    Some(next) => self.phase = Phase::ChallengeBlock { asker: next },
                }
            }
            (Phase::ChallengeBlock { asker }, Choice::Challenge) => self.challenge_block(asker),
            (Phase::Exchange, Choice::Keep(k)) => self.keep(k),
            (Phase::Lose { player, then }, Choice::Lose(card)) => {
                self.lose_card(player, card, then)
            }
            _ => unreachable!("apply_unchecked given an illegal choice"),
        }
    }

    fn act(&mut self, a: Action) {
        let me = self.actor;
        self.action = a;
        self.target_answered = false;
        if !self.pays_when_done(a) {
            self.coins[me] -= a.cost();
        }
        self.log.push(Event::Act {
            actor: me,
            action: a,
        });
        match a {
            Action::Income => {
                self.gain(me, 1);
                self.end_turn();
            }
            Action::Coup(t) => self.lose(t, Then::EndTurn),
            Action::ForeignAid => {
                self.phase = Phase::Block {
                    asker: self.first_asker(me),
                }
            }
            _ => {
                self.phase = Phase::ChallengeAction {
                    asker: self.first_asker(me),
                }
            }
        }
    }

    fn gain(&mut self, seat: Seat, coins: u8) {
        self.coins[seat] += coins;
        self.log.push(Event::Gain {
            player: seat,
            coins,
        });
    }

    fn challenge_action(&mut self, challenger: Seat) {
        let claim = self.action.claim().expect("only claims are challenged");
        let actor = self.actor;
        self.log.push(Event::Challenge {
            challenger,
            claimant: actor,
            card: claim,
        });
        if self.hands[actor].contains(claim) {
            let keep =
                self.rules.exchange_keeps_revealed_ambassador && self.action == Action::Exchange;
            self.reveal(actor, claim, !keep);
            self.lose(challenger, Then::AfterActionChallenge);
        } else {
            self.log.push(Event::CaughtBluffing {
                player: actor,
                card: claim,
            });
            let refund =
                if self.rules.refund_failed_assassination && !self.pays_when_done(self.action) {
                    self.action.cost()
                } else {
                    0
                };
            if refund > 0 {
                self.coins[actor] += refund;
                self.log.push(Event::Refund {
                    player: actor,
                    coins: refund,
                });
            }
            self.lose(actor, Then::EndTurn);
        }
    }

    /// A truthful claimant shows the card; it goes back, the deck is shuffled, and a
    /// replacement is drawn (return, shuffle, draw), or under
    /// [`Rules::replace_before_return`] the replacement comes first (draw, return,
    /// shuffle).
    fn reveal(&mut self, player: Seat, card: Card, replace: bool) {
        self.log.push(Event::Reveal {
            player,
            card,
            replaced: replace,
        });
        if replace {
            let i = self.hands[player]
                .cards()
                .iter()
                .position(|&c| c == card)
                .expect("revealed card in hand");
            let new = if self.rules.replace_before_return {
                let new = self.draw();
                self.deck[self.deck_len as usize] = card;
                self.deck_len += 1;
                self.shuffle_deck();
                new
            } else {
                self.deck[self.deck_len as usize] = card;
                self.deck_len += 1;
                self.shuffle_deck();
                self.draw()
            };
            self.hands[player].set(i, new);
        }
    }

    fn after_action_challenge(&mut self) {
        match self.action {
            Action::Steal(t) | Action::Assassinate(t) => {
                if self.alive.contains(t)
                    && (self.rules.challenge_and_block || !self.target_answered)
                {
                    self.phase = Phase::Block { asker: t };
                } else {
                    self.effect();
                }
            }
            _ => self.effect(),
        }
    }

    fn block(&mut self, blocker: Seat, card: Card) {
        self.blocker = blocker;
        self.block_card = card;
        self.log.push(Event::Block { blocker, card });
        self.phase = Phase::ChallengeBlock {
            asker: self.first_asker(blocker),
        };
    }

    fn block_passed(&mut self, asker: Seat) {
        if self.action == Action::ForeignAid {
            match self.next_asker(asker, self.actor) {
                None => self.effect(),
                Some(next) => self.phase = Phase::Block { asker: next },
            }
        } else {
            self.effect();
        }
    }

    /// Whether `a`'s cost is paid when it takes place rather than on declaring it.
    fn pays_when_done(&self, a: Action) -> bool {
        self.rules.assassination_paid_when_done && matches!(a, Action::Assassinate(_))
    }

    fn challenge_block(&mut self, challenger: Seat) {
        let (blocker, card) = (self.blocker, self.block_card);
        self.log.push(Event::Challenge {
            challenger,
            claimant: blocker,
            card,
        });
        // The card that makes the block true: the one named, or under
        // `steal_block_either_card` the other card that blocks a Steal.
        let shown = if self.hands[blocker].contains(card) {
            Some(card)
        } else if self.rules.steal_block_either_card && matches!(self.action, Action::Steal(_)) {
            [Card::Captain, Card::Ambassador]
                .into_iter()
                .find(|&c| self.hands[blocker].contains(c))
        } else {
            None
        };
        if let Some(shown) = shown {
            self.reveal(blocker, shown, !self.rules.blocker_keeps_shown_card);
            self.lose(challenger, Then::BlockStands);
        } else {
            self.log.push(Event::CaughtBluffing {
                player: blocker,
                card,
            });
            self.lose(blocker, Then::Effect);
        }
    }

    fn effect(&mut self) {
        let me = self.actor;
        match self.action {
            Action::ForeignAid => {
                self.gain(me, 2);
                self.end_turn();
            }
            Action::Tax => {
                self.gain(me, 3);
                self.end_turn();
            }
            Action::Steal(t) => {
                if self.alive.contains(t) {
                    let k = self.coins[t].min(2);
                    self.coins[t] -= k;
                    self.coins[me] += k;
                    self.log.push(Event::Steal {
                        thief: me,
                        victim: t,
                        coins: k,
                    });
                }
                self.end_turn();
            }
            Action::Assassinate(t) => {
                if self.pays_when_done(self.action) {
                    if !self.alive.contains(t) {
                        // Its target fell in the challenge: nothing takes place.
                        self.end_turn();
                        return;
                    }
                    self.coins[me] -= self.action.cost();
                }
                self.lose(t, Then::EndTurn)
            }
            Action::Exchange => {
                self.drawn = [self.draw(), self.draw()];
                self.phase = Phase::Exchange;
            }
            Action::Income | Action::Coup(_) => self.end_turn(),
        }
    }

    fn keep(&mut self, k: Keep) {
        let me = self.actor;
        let mut rest: [Card; 4] = [Card::Ambassador; 4];
        let mut n = 0;
        for &c in self.hands[me].cards().iter().chain(self.drawn.iter()) {
            rest[n] = c;
            n += 1;
        }
        let mut rest_len = n;
        for &c in k.cards() {
            let i = rest[..rest_len]
                .iter()
                .position(|&x| x == c)
                .expect("kept card in pool");
            rest[i] = rest[rest_len - 1];
            rest_len -= 1;
        }
        self.hands[me] = Hand::of(k.cards());
        for &c in &rest[..rest_len] {
            self.deck[self.deck_len as usize] = c;
            self.deck_len += 1;
        }
        self.shuffle_deck();
        self.log.push(Event::Exchanged { player: me });
        self.end_turn();
    }

    /// `player` must lose an influence, then the turn goes on with `then`.
    fn lose(&mut self, player: Seat, then: Then) {
        if self.alive.contains(player) {
            self.phase = Phase::Lose { player, then };
        } else {
            self.then(then);
        }
    }

    fn lose_card(&mut self, player: Seat, card: Card, then: Then) {
        self.hands[player].remove(card);
        self.revealed[player].push(card);
        self.face_up[card.index()] += 1;
        self.log.push(Event::LoseInfluence { player, card });
        if self.hands[player].is_empty() {
            self.eliminate(player);
            if self.is_over() {
                return;
            }
        }
        self.then(then);
    }

    fn eliminate(&mut self, player: Seat) {
        self.alive.remove(player);
        self.log.push(Event::Eliminated { player });
        self.out_order[self.outs as usize] = player as u8;
        self.outs += 1;
        if self.alive.len() <= 1 {
            // The turn in which the game is decided was played if its action was
            // declared; `turns` counts finished turns only until then.
            if self.phase != Phase::Action {
                self.turns += 1;
            }
            self.finish(Ending::Decided);
        }
    }

    fn then(&mut self, then: Then) {
        if !self.alive.contains(self.actor) {
            // The actor is out (lost a challenge of their own claim, or forfeited).
            self.end_turn();
            return;
        }
        match then {
            Then::AfterActionChallenge => self.after_action_challenge(),
            Then::Effect => self.effect(),
            Then::BlockStands => {
                self.log.push(Event::Blocked {
                    blocker: self.blocker,
                });
                self.end_turn();
            }
            Then::EndTurn => self.end_turn(),
            Then::Pass(at) => {
                self.phase = match at {
                    PassAt::ChallengeAction(a) => Phase::ChallengeAction { asker: a as Seat },
                    PassAt::Block(a) => Phase::Block { asker: a as Seat },
                    PassAt::ChallengeBlock(a) => Phase::ChallengeBlock { asker: a as Seat },
                };
                self.apply_unchecked(Choice::Pass);
            }
        }
    }

    fn end_turn(&mut self) {
        if self.is_over() {
            return;
        }
        self.turns += 1;
        if self.turns >= self.rules.turn_cap {
            self.finish(Ending::TurnCap);
            return;
        }
        self.pass_turn();
    }

    /// The next live player starts a turn.
    fn pass_turn(&mut self) {
        self.actor = self.next_live_after(self.actor);
        self.phase = Phase::Action;
        self.log.push(Event::Turn {
            actor: self.actor,
            number: self.turns,
        });
    }

    fn finish(&mut self, ending: Ending) {
        self.phase = Phase::Over;
        self.outcome = Some(Outcome {
            winners: self.alive,
            ending,
            turns: self.turns,
        });
    }

    fn draw(&mut self) -> Card {
        self.deck_len -= 1;
        self.deck[self.deck_len as usize]
    }

    fn shuffle_deck(&mut self) {
        let len = self.deck_len as usize;
        self.rng.shuffle(&mut self.deck[..len]);
    }

    fn return_drawn(&mut self) {
        for c in self.drawn {
            self.deck[self.deck_len as usize] = c;
            self.deck_len += 1;
        }
        self.shuffle_deck();
        self.phase = Phase::Action;
    }

    /// Under [`IllegalPolicy::Penalty`], the pending `seat` answered an illegal choice:
    /// it loses an influence of its choice, then its turn or answer counts as a pass
    /// (an Exchange keeps its own cards). An illegal card to lose is answered for it
    /// with its first card. Returns `false`, changing nothing, under
    /// [`IllegalPolicy::Forfeit`] or when `seat` is not the one to move.
    ///
    /// ```
    /// use koth_coup::{Choice, Pending, Rules, State};
    /// let mut g = State::new(Rules::coupcli(), 3, 7);
    /// assert!(g.penalize(0));
    /// assert_eq!(g.pending(), Pending::LoseInfluence { player: 0 });
    /// let card = g.hand(0)[0];
    /// g.apply(Choice::Lose(card)).unwrap();
    /// assert_eq!(g.pending(), Pending::Action { actor: 1 });
    /// ```
    pub fn penalize(&mut self, seat: Seat) -> bool {
        self.penalize_tried(seat, None)
    }

    /// [`State::penalize`], told the illegal answer: an action tried on one's turn
    /// (on a seat at the table) is made public in the [`Event::Penalty`], as
    /// coup-cli's history shows an attempted Coup without the coins.
    ///
    /// ```
    /// use koth_coup::{Action, Choice, Event, Rules, State};
    /// let mut g = State::new(Rules::coupcli(), 3, 7);
    /// assert!(g.penalize_tried(0, Some(Choice::Act(Action::Coup(2)))));
    /// assert!(g.log().contains(&Event::Penalty { player: 0, action: Some(Action::Coup(2)) }));
    /// ```
    pub fn penalize_tried(&mut self, seat: Seat, tried: Option<Choice>) -> bool {
        if self.rules.illegal != IllegalPolicy::Penalty || self.to_move() != Some(seat) {
            return false;
        }
        let action = match (self.phase, tried) {
            (Phase::Action, Some(Choice::Act(a)))
                if a.target().is_none_or(|t| t < self.n as usize) =>
            {
                Some(a)
            }
            _ => None,
        };
        self.log.push(Event::Penalty {
            player: seat,
            action,
        });
        match self.phase {
            Phase::Action => self.lose(seat, Then::EndTurn),
            Phase::Exchange => {
                self.return_drawn();
                self.lose(seat, Then::EndTurn);
            }
            Phase::Lose { player, then } => {
                let card = self.hands[player].cards()[0];
                self.lose_card(player, card, then);
            }
            Phase::ChallengeAction { asker } => {
                self.lose(seat, Then::Pass(PassAt::ChallengeAction(asker as u8)))
            }
            Phase::Block { asker } => self.lose(seat, Then::Pass(PassAt::Block(asker as u8))),
            Phase::ChallengeBlock { asker } => {
                self.lose(seat, Then::Pass(PassAt::ChallengeBlock(asker as u8)))
            }
            Phase::Over => return false,
        }
        true
    }

    /// Sets `seat`'s coins. For adapters of another arbiter whose books differ from
    /// these rules (seed 000's original credits a turn's effect from the raw text of
    /// its line); a game under koth's own rules never needs it.
    pub fn set_coins(&mut self, seat: Seat, coins: u8) {
        if seat < self.n as usize {
            self.coins[seat] = coins;
        }
    }

    /// Drops a pending loss of influence that ends the turn (an Assassinate's), as if
    /// the action had been stopped: the turn ends. For adapters of another arbiter
    /// that spares the player (seed 000's original, when junk in the line hides its
    /// two-cards-in-one-turn rule). Returns whether there was such a loss.
    pub fn skip_loss(&mut self) -> bool {
        match self.phase {
            Phase::Lose {
                then: Then::EndTurn,
                ..
            } => {
                self.then(Then::EndTurn);
                true
            }
            _ => false,
        }
    }

    /// `seat` forfeits: all its influence is revealed and it is out; the game goes on
    /// for the others.
    pub fn forfeit(&mut self, seat: Seat) {
        if self.is_over() || seat >= self.n as usize || !self.alive.contains(seat) {
            return;
        }
        let pending = self.to_move();
        self.log.push(Event::Forfeit { player: seat });
        while let Some(&c) = self.hands[seat].cards().first() {
            self.hands[seat].remove(c);
            self.revealed[seat].push(c);
            self.face_up[c.index()] += 1;
            self.log.push(Event::LoseInfluence {
                player: seat,
                card: c,
            });
        }
        if seat == self.actor && self.phase == Phase::Exchange {
            self.return_drawn();
        }
        self.eliminate(seat);
        if self.is_over() {
            return;
        }
        if seat == self.actor {
            if let Phase::Lose { player, .. } = self.phase {
                if player != seat {
                    // Someone else is losing an influence on the forfeiter's turn; let
                    // them, the turn then ends (see `then`).
                    return;
                }
            }
            if self.phase == Phase::Action {
                // Nothing was declared: no turn was played, the next player starts one.
                self.pass_turn();
            } else {
                self.end_turn();
            }
            return;
        }
        if pending != Some(seat) {
            // Askers skip the dead, so nothing else needs fixing.
            return;
        }
        match self.phase {
            Phase::ChallengeAction { asker } => match self.next_asker(asker, self.actor) {
                None => self.after_action_challenge(),
                Some(next) => self.phase = Phase::ChallengeAction { asker: next },
            },
            Phase::Block { asker } => self.block_passed(asker),
            Phase::ChallengeBlock { asker } => {
                if asker == self.blocker {
                    self.effect();
                } else {
                    match self.next_asker(asker, self.blocker) {
                        None => self.then(Then::BlockStands),
                        Some(next) => self.phase = Phase::ChallengeBlock { asker: next },
                    }
                }
            }
            Phase::Lose { then, .. } => self.then(then),
            Phase::Action | Phase::Exchange | Phase::Over => {}
        }
    }

    /// Ends the game from outside the rules with these winners.
    pub fn adjudicate(&mut self, winners: SeatSet) {
        if self.is_over() {
            return;
        }
        if self.phase == Phase::Exchange {
            self.return_drawn();
        }
        self.phase = Phase::Over;
        self.outcome = Some(Outcome {
            winners,
            ending: Ending::Adjudicated,
            turns: self.turns,
        });
    }

    // ----- checks -----

    /// Checks the invariants: 15 cards conserved, hands and losses add up to two per
    /// player, the pending seat is alive, the outcome matches the phase.
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut count = [0usize; 5];
        let n = self.n as usize;
        for s in 0..n {
            let (h, r) = (self.hands[s], self.revealed[s]);
            if h.len() + r.len() != 2 {
                return Err(format!(
                    "seat {s} has {} in hand and {} revealed",
                    h.len(),
                    r.len()
                ));
            }
            if self.alive.contains(s) == h.is_empty() {
                return Err(format!(
                    "seat {s}: alive {} with {} cards",
                    self.alive.contains(s),
                    h.len()
                ));
            }
            for &c in h.cards().iter().chain(r.cards()) {
                count[c.index()] += 1;
            }
            if self.coins[s] > 40 {
                return Err(format!("seat {s} has {} coins (underflow?)", self.coins[s]));
            }
        }
        for &c in self.deck() {
            count[c.index()] += 1;
        }
        if self.phase == Phase::Exchange {
            for c in self.drawn {
                count[c.index()] += 1;
            }
        }
        if count.iter().any(|&k| k != COPIES) {
            return Err(format!("cards not conserved: {count:?}"));
        }
        for c in Card::ALL {
            let up: usize = (0..n).map(|s| self.revealed[s].count(c)).sum();
            if up != self.face_up(c) {
                return Err(format!(
                    "face-up count of {c} is {} but {up} are face up",
                    self.face_up(c)
                ));
            }
        }
        if self.alive.0 >> n != 0 {
            return Err("a seat beyond the table is alive".into());
        }
        match self.to_move() {
            Some(s) if !self.alive.contains(s) => return Err(format!("seat {s} is asked but out")),
            Some(_) if self.outcome.is_some() => {
                return Err("an outcome while a decision is pending".into())
            }
            None if self.outcome.is_none() => return Err("over without an outcome".into()),
            _ => {}
        }
        if !self.is_over() && !self.alive.contains(self.actor) {
            return Err(format!("the actor {} is out", self.actor));
        }
        Ok(())
    }

    /// Replaces every card `viewer` cannot see with a guess: `hands` for the other
    /// seats (each the size the seat holds), `deck` for the deck, and a new deal
    /// stream from `seed`; the log is left out (nothing reads it back). For a
    /// searching bot: the world it imagines shares nothing hidden with this one.
    /// `None` when the sizes do not fit or another player's Exchange is pending
    /// (its drawn cards are hidden too).
    pub(crate) fn imagined(
        &self,
        viewer: Seat,
        hands: &[Hand; MAX_PLAYERS],
        deck: &[Card],
        seed: u64,
    ) -> Option<State> {
        let n = self.n as usize;
        let fits = (0..n)
            .filter(|&s| s != viewer)
            .all(|s| hands[s].len() == self.hands[s].len())
            && deck.len() == self.deck_len as usize
            && !(self.phase == Phase::Exchange && self.actor != viewer);
        if !fits {
            return None;
        }
        let mut w = self.clone_without_log();
        for s in (0..n).filter(|&s| s != viewer) {
            w.hands[s] = hands[s];
        }
        w.deck[..deck.len()].copy_from_slice(deck);
        if w.phase != Phase::Exchange {
            w.drawn = [Card::Ambassador; 2]; // an old Exchange's cards
        }
        w.rng = DealRng::new(seed);
        Some(w)
    }

    fn clone_without_log(&self) -> State {
        State {
            rules: self.rules,
            n: self.n,
            hands: self.hands,
            revealed: self.revealed,
            face_up: self.face_up,
            coins: self.coins,
            deck: self.deck,
            deck_len: self.deck_len,
            alive: self.alive,
            phase: self.phase,
            actor: self.actor,
            action: self.action,
            blocker: self.blocker,
            block_card: self.block_card,
            target_answered: self.target_answered,
            drawn: self.drawn,
            table_start: self.table_start,
            turns: self.turns,
            outcome: self.outcome,
            log: Vec::new(),
            out_order: self.out_order,
            outs: self.outs,
            rng: self.rng.clone(),
        }
    }

    /// Moves every card `viewer` cannot see (others' hands, the deck, cards another
    /// player drew in an Exchange) at random, keeping hand sizes.
    pub fn shuffle_hidden(&mut self, viewer: Seat, rng: &mut Rng) {
        let mut pool = [Card::Ambassador; DECK_SIZE];
        let mut k = 0;
        let n = self.n as usize;
        let exchange_hidden = self.phase == Phase::Exchange && self.actor != viewer;
        for s in (0..n).filter(|&s| s != viewer) {
            for &c in self.hands[s].cards() {
                pool[k] = c;
                k += 1;
            }
        }
        for &c in self.deck() {
            pool[k] = c;
            k += 1;
        }
        if exchange_hidden {
            pool[k] = self.drawn[0];
            pool[k + 1] = self.drawn[1];
            k += 2;
        }
        rng.shuffle(&mut pool[..k]);
        let mut it = pool[..k].iter().copied();
        for s in (0..n).filter(|&s| s != viewer) {
            let len = self.hands[s].len();
            let mut h = Hand::EMPTY;
            for _ in 0..len {
                h.push(it.next().expect("pool holds every hidden card"));
            }
            self.hands[s] = h;
        }
        for i in 0..self.deck_len as usize {
            self.deck[i] = it.next().expect("pool holds the deck");
        }
        if exchange_hidden {
            self.drawn = [it.next().expect("drawn"), it.next().expect("drawn")];
        }
        // The future shuffles are hidden too.
        self.rng = DealRng::new(rng.next_u64());
    }
}
