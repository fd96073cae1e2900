//! The bot trait for Rust authors, and its adapter to the arena.

use crate::action::{Action, ActionKind};
use crate::card::Card;
use crate::choice::{Choice, Keep};
use crate::state::{Pending, State};
use crate::view::View;
use koth_arena::{Agent, Fault, Seat};

/// The legal actions of a turn decision: from the decision's list, or (for a bot
/// that says [`Bot::wants_legal`] `false`) from the rules, in the same order.
#[derive(Clone, Copy)]
pub struct LegalActions<'a>(Source<'a>);

#[derive(Clone, Copy)]
enum Source<'a> {
    List(&'a [Choice]),
    Rules(&'a State),
}

impl<'a> LegalActions<'a> {
    /// Wraps a decision's legal choices.
    pub fn new(legal: &'a [Choice]) -> Self {
        LegalActions(Source::List(legal))
    }
    /// The legal actions of `state`'s pending turn, worked out from the rules.
    pub(crate) fn of(state: &'a State) -> Self {
        LegalActions(Source::Rules(state))
    }
    /// Every legal action.
    pub fn iter(&self) -> impl Iterator<Item = Action> + 'a {
        let (list, rules): (&'a [Choice], Option<&'a State>) = match self.0 {
            Source::List(l) => (l, None),
            Source::Rules(s) => (&[], Some(s)),
        };
        let listed = list.iter().filter_map(|c| match c {
            Choice::Act(a) => Some(*a),
            _ => None,
        });
        let ruled = rules
            .into_iter()
            .flat_map(|s| s.candidate_actions().filter(move |&a| s.action_legal(a)));
        listed.chain(ruled)
    }
    /// Whether `action` is legal.
    pub fn contains(&self, action: Action) -> bool {
        match self.0 {
            Source::List(l) => l.contains(&Choice::Act(action)),
            Source::Rules(s) => s.action_legal(action),
        }
    }
    /// Whether some action of this kind is legal (to any target).
    pub fn can(&self, kind: ActionKind) -> bool {
        match kind {
            ActionKind::Income => self.contains(Action::Income),
            ActionKind::ForeignAid => self.contains(Action::ForeignAid),
            ActionKind::Tax => self.contains(Action::Tax),
            ActionKind::Exchange => self.contains(Action::Exchange),
            ActionKind::Coup | ActionKind::Steal | ActionKind::Assassinate => {
                self.targets(kind).next().is_some()
            }
        }
    }
    /// The legal targets of a targeted kind.
    pub fn targets(&self, kind: ActionKind) -> impl Iterator<Item = Seat> + 'a {
        let (list, rules): (&'a [Choice], Option<&'a State>) = match self.0 {
            Source::List(l) => (l, None),
            Source::Rules(s) => (&[], Some(s)),
        };
        let listed = list
            .iter()
            .filter_map(|c| match c {
                Choice::Act(a) => Some(*a),
                _ => None,
            })
            .filter(move |a| a.kind() == kind)
            .filter_map(|a| a.target());
        // From the rules: only this kind's actions, target by target.
        let ruled = rules.into_iter().flat_map(move |s| s.targets(kind));
        listed.chain(ruled)
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

    /// Whether [`Bot::decide`] reads its `legal` list. A bot that keeps the default
    /// `decide` (the `on_…` methods) may say `false`: the arena then skips listing
    /// the choices for it, and `on_turn` gets its [`LegalActions`] from the rules.
    /// A bot that overrides `decide` and reads `legal` must keep `true`.
    fn wants_legal(&self) -> bool {
        true
    }
}

/// The default [`Bot::decide`]: calls the method for the pending decision.
pub fn dispatch<B: Bot + ?Sized>(bot: &mut B, view: &View, legal: &[Choice]) -> Choice {
    // An empty list: the arena left it out (`wants_legal`), so ask the rules.
    let listed = !legal.is_empty();
    match view.pending() {
        Pending::Action { .. } => {
            let actions = if listed {
                LegalActions::new(legal)
            } else {
                LegalActions::of(view.state())
            };
            Choice::Act(bot.on_turn(view, &actions))
        }
        Pending::ChallengeAction { actor, action, .. } => {
            if bot.on_challenge_action(view, actor, action) {
                return Choice::Challenge;
            }
            // Under one-answer rules the target may block here instead.
            let may_block = if listed {
                legal.iter().any(|c| matches!(c, Choice::Block(_)))
            } else {
                view.state().may_block_in_challenge_round(view.me())
            };
            if may_block {
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
    fn wants_legal(&self) -> bool {
        (**self).wants_legal()
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
    fn wants_legal(&self) -> bool {
        self.0.wants_legal()
    }
    fn finish(&mut self, game: &State, seat: Seat) {
        self.0.finish(&View::new(game, seat));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rules;
    use koth_arena::ChoiceCode;

    /// A bot given no list (`wants_legal` false) sees the same legal actions, in
    /// the same order, as one given the list: over random games under every preset.
    #[test]
    fn legal_actions_from_the_rules_match_the_list() {
        let kinds = [
            ActionKind::Income,
            ActionKind::ForeignAid,
            ActionKind::Coup,
            ActionKind::Tax,
            ActionKind::Assassinate,
            ActionKind::Steal,
            ActionKind::Exchange,
        ];
        let actions: Vec<Action> = (0..64)
            .filter_map(Choice::from_code)
            .filter_map(|c| match c {
                Choice::Act(a) => Some(a),
                _ => None,
            })
            .chain([Action::Coup(6), Action::Steal(9)])
            .collect();
        let mut turns = 0;
        let mut blocks = 0;
        for rules in [Rules::standard(), Rules::ppcg(), Rules::coupcli()] {
            for seats in 2..=6 {
                for seed in 0..60u64 {
                    let mut g = State::new(rules, seats, seed);
                    let mut pick = seed;
                    while let Some(seat) = g.to_move() {
                        let mut list = Vec::new();
                        g.legal_choices(&mut list);
                        if let Pending::Action { .. } = g.pending() {
                            let (from_list, from_rules) =
                                (LegalActions::new(&list), LegalActions::of(&g));
                            let a: Vec<Action> = from_list.iter().collect();
                            assert_eq!(a, from_rules.iter().collect::<Vec<_>>());
                            assert_eq!(from_list.first(), from_rules.first());
                            for &x in &actions {
                                assert_eq!(from_list.contains(x), from_rules.contains(x), "{x:?}");
                            }
                            for k in kinds {
                                assert_eq!(from_list.can(k), from_rules.can(k));
                                assert!(from_list.targets(k).eq(from_rules.targets(k)));
                            }
                            turns += 1;
                        }
                        if let Pending::ChallengeAction { .. } = g.pending() {
                            let listed = list.iter().any(|c| matches!(c, Choice::Block(_)));
                            assert_eq!(listed, g.may_block_in_challenge_round(seat));
                            blocks += usize::from(listed);
                        }
                        pick = pick
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        g.apply(list[(pick >> 33) as usize % list.len()]).unwrap();
                    }
                }
            }
        }
        assert!(turns > 5_000, "{turns}");
        assert!(blocks > 50, "one-answer rules were reached: {blocks}");
    }
}
