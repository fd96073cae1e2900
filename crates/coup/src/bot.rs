//! The bot trait for Rust authors, and its adapter to the arena.

use crate::action::{Action, ActionKind};
use crate::card::Card;
use crate::choice::{Choice, Keep};
use crate::state::{Pending, State};
use crate::view::View;
use koth_arena::{Agent, Fault, Seat};

/// The legal actions of a turn decision.
#[derive(Clone, Copy)]
pub struct LegalActions<'a>(&'a [Choice]);

impl<'a> LegalActions<'a> {
    /// Wraps a decision's legal choices.
    pub fn new(legal: &'a [Choice]) -> Self {
        LegalActions(legal)
    }
    /// Every legal action.
    pub fn iter(&self) -> impl Iterator<Item = Action> + 'a {
        self.0.iter().filter_map(|c| match c {
            Choice::Act(a) => Some(*a),
            _ => None,
        })
    }
    /// Whether `action` is legal.
    pub fn contains(&self, action: Action) -> bool {
        self.0.contains(&Choice::Act(action))
    }
    /// Whether some action of this kind is legal (to any target).
    pub fn can(&self, kind: ActionKind) -> bool {
        self.iter().any(|a| a.kind() == kind)
    }
    /// The legal targets of a targeted kind.
    pub fn targets(&self, kind: ActionKind) -> impl Iterator<Item = Seat> + 'a {
        self.iter()
            .filter(move |a| a.kind() == kind)
            .filter_map(|a| a.target())
    }
    /// The first legal action (there is always one).
    pub fn first(&self) -> Action {
        self.iter().next().unwrap_or(Action::Income)
    }
}

/// A Coup bot written in Rust. Every method has a default, and the defaults play
/// like seed 003's `StaticBot`: Income every turn (a Coup when forced), never
/// challenge, never block, keep the same cards, lose the first card.
///
/// A bot sees only its own [`View`]; it answers with one of the legal choices, and
/// an illegal answer forfeits the game.
///
/// ```
/// use koth_coup::{Action, ActionKind, Bot, Card, LegalActions, View};
///
/// /// Taxes when it holds a Duke, blocks Foreign Aid with one, and coups when it can.
/// struct DukeBot;
///
/// impl Bot for DukeBot {
///     fn on_turn(&mut self, view: &View, legal: &LegalActions) -> Action {
///         if let Some(t) = legal.targets(ActionKind::Coup).next() {
///             return Action::Coup(t);
///         }
///         if view.holds(Card::Duke) { Action::Tax } else { Action::Income }
///     }
///     fn on_block(&mut self, view: &View, _actor: usize, _action: Action, options: &[Card]) -> Option<Card> {
///         options.iter().copied().find(|&c| view.holds(c))
///     }
/// }
/// ```
pub trait Bot: Send {
    /// A game begins; `seed` is this seat's random stream for the game.
    fn start(&mut self, _view: &View, _seed: u64) {}

    /// Answers any decision. The default calls the method for the kind of decision;
    /// override it for full control (e.g. to choose uniformly among `legal`).
    fn decide(&mut self, view: &View, legal: &[Choice]) -> Choice {
        dispatch(self, view, legal)
    }

    /// My turn: choose an action among `legal` (only Coups when I hold 10 coins).
    fn on_turn(&mut self, _view: &View, legal: &LegalActions) -> Action {
        if legal.contains(Action::Income) {
            Action::Income
        } else {
            legal.first()
        }
    }

    /// `actor` claims a card for `action`: challenge it?
    fn on_challenge_action(&mut self, _view: &View, _actor: Seat, _action: Action) -> bool {
        false
    }

    /// Block `actor`'s `action` with one of `options` (the cards that block it), or not.
    fn on_block(
        &mut self,
        _view: &View,
        _actor: Seat,
        _action: Action,
        _options: &[Card],
    ) -> Option<Card> {
        None
    }

    /// `blocker` blocks `actor`'s `action` claiming `card`: challenge the block?
    fn on_challenge_block(
        &mut self,
        _view: &View,
        _blocker: Seat,
        _card: Card,
        _actor: Seat,
        _action: Action,
    ) -> bool {
        false
    }

    /// After my Exchange: keep as many cards as `hand` holds, from `hand` and `drawn`.
    fn on_exchange(&mut self, _view: &View, hand: &[Card], _drawn: [Card; 2]) -> Keep {
        Keep::new(hand).expect("a live player holds one or two cards")
    }

    /// I must lose an influence: which card?
    fn on_lose_influence(&mut self, view: &View) -> Card {
        view.my_cards()[0]
    }

    /// The game is over.
    fn finish(&mut self, _view: &View) {}
}

/// The default [`Bot::decide`]: calls the method for the pending decision.
pub fn dispatch<B: Bot + ?Sized>(bot: &mut B, view: &View, legal: &[Choice]) -> Choice {
    match view.pending() {
        Pending::Action { .. } => Choice::Act(bot.on_turn(view, &LegalActions(legal))),
        Pending::ChallengeAction { actor, action, .. } => {
            if bot.on_challenge_action(view, actor, action) {
                return Choice::Challenge;
            }
            // Under one-answer rules the target may block here instead.
            if legal.iter().any(|c| matches!(c, Choice::Block(_))) {
                if let Some(card) = bot.on_block(view, actor, action, action.blockers()) {
                    return Choice::Block(card);
                }
            }
            Choice::Pass
        }
        Pending::Block { actor, action, .. } => {
            match bot.on_block(view, actor, action, action.blockers()) {
                Some(card) => Choice::Block(card),
                None => Choice::Pass,
            }
        }
        Pending::ChallengeBlock {
            actor,
            action,
            blocker,
            card,
            ..
        } => {
            if bot.on_challenge_block(view, blocker, card, actor, action) {
                Choice::Challenge
            } else {
                Choice::Pass
            }
        }
        Pending::Exchange { .. } => {
            let drawn = view.drawn().expect("my exchange has drawn cards");
            Choice::Keep(bot.on_exchange(view, view.my_cards(), drawn))
        }
        Pending::LoseInfluence { .. } => Choice::Lose(bot.on_lose_influence(view)),
        Pending::Over => legal.first().copied().unwrap_or(Choice::Pass),
    }
}

/// Runs a [`Bot`] as an arena [`Agent`]: shows it only its own view. Generic so that
/// a concrete bot's methods are called directly (and inlined) on the hot path;
/// `BotAgent(Box<dyn Bot>)` works too.
pub struct BotAgent<B: Bot = Box<dyn Bot>>(pub B);

impl<B: Bot + ?Sized> Bot for Box<B> {
    fn start(&mut self, view: &View, seed: u64) {
        (**self).start(view, seed)
    }
    #[inline]
    fn decide(&mut self, view: &View, legal: &[Choice]) -> Choice {
        (**self).decide(view, legal)
    }
    fn finish(&mut self, view: &View) {
        (**self).finish(view)
    }
}

impl<B: Bot> Agent<State> for BotAgent<B> {
    fn start(&mut self, game: &State, seat: Seat, seed: u64) -> Result<(), Fault> {
        self.0.start(&View::new(game, seat), seed);
        Ok(())
    }
    #[inline]
    fn decide(&mut self, game: &State, seat: Seat, legal: &[Choice]) -> Result<Choice, Fault> {
        Ok(self.0.decide(&View::new(game, seat), legal))
    }
    fn finish(&mut self, game: &State, seat: Seat) {
        self.0.finish(&View::new(game, seat));
    }
}
