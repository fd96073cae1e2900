//! A bot written the way a contestant writes one for the `coup` crate: it reads
//! the history and the discard pile, remembers who claimed what, targets by name,
//! and calls a bluff when the cards it can see rule the claim out.
use coup::bot::{BotInterface, Context, OtherBot};
use coup::{Action, Card, History};

/// The contestant-style bot (see the module).
pub struct Tracker;

/// How many copies of `card` this bot can see: its hand and the discard pile.
fn visible(context: &Context, card: Card) -> usize {
    context
        .cards
        .iter()
        .chain(&context.discard_pile)
        .filter(|&&c| c == card)
        .count()
}

/// Whether `name` has blocked a steal before (it claims a Captain or Ambassador).
fn blocks_steals(context: &Context, name: &str) -> bool {
    context
        .history
        .iter()
        .any(|h| matches!(h, History::CounterStealing { by, .. } if by == name))
}

/// Whether anyone has claimed a Duke (tax, or a block of foreign aid).
fn duke_seen(context: &Context) -> bool {
    context.history.iter().any(|h| {
        matches!(h, History::ActionTax { by } | History::CounterForeignAid { by, .. } if *by != context.name)
    })
}

fn others(context: &Context) -> impl Iterator<Item = &OtherBot> {
    context
        .playing_bots
        .iter()
        .filter(move |b| b.name != context.name)
}

/// The most dangerous opponent: most cards, then most coins.
fn strongest(context: &Context) -> String {
    others(context)
        .max_by_key(|b| (b.cards, b.coins))
        .map(|b| b.name.clone())
        .unwrap_or_default()
}

const WORTH: [Card; 5] = [
    Card::Duke,
    Card::Captain,
    Card::Assassin,
    Card::Contessa,
    Card::Ambassador,
];

fn worth(card: &Card) -> usize {
    WORTH.iter().position(|c| c == card).unwrap_or(5)
}

impl BotInterface for Tracker {
    fn get_name(&self) -> String {
        String::from("Tracker")
    }

    fn on_turn(&self, context: &Context) -> Action {
        if context.coins >= 7 {
            return Action::Coup(strongest(context));
        }
        if context.cards.contains(&Card::Assassin) && context.coins >= 3 {
            return Action::Assassination(strongest(context));
        }
        if context.cards.contains(&Card::Duke) {
            return Action::Tax;
        }
        if context.cards.contains(&Card::Captain) {
            let rich = others(context)
                .filter(|b| b.coins >= 2 && !blocks_steals(context, &b.name))
                .max_by_key(|b| b.coins);
            if let Some(b) = rich {
                return Action::Stealing(b.name.clone());
            }
        }
        if duke_seen(context) {
            Action::Income
        } else {
            Action::ForeignAid
        }
    }

    fn on_auto_coup(&self, context: &Context) -> String {
        strongest(context)
    }

    fn on_challenge_action_round(&self, action: &Action, _by: String, context: &Context) -> bool {
        let card = match action {
            Action::Assassination(_) => Card::Assassin,
            Action::Swapping => Card::Ambassador,
            Action::Stealing(_) => Card::Captain,
            Action::Tax => Card::Duke,
            _ => return false,
        };
        // All three copies in sight: the claim is a bluff.
        visible(context, card) == 3
    }

    fn on_counter(&self, action: &Action, _by: String, context: &Context) -> bool {
        match action {
            Action::Assassination(_) => {
                // On its last card, a Contessa bluff is all it has left.
                context.cards.contains(&Card::Contessa) || context.cards.len() == 1
            }
            Action::Stealing(_) => {
                context.cards.contains(&Card::Captain) || context.cards.contains(&Card::Ambassador)
            }
            Action::ForeignAid => context.cards.contains(&Card::Duke),
            _ => false,
        }
    }

    fn on_challenge_counter_round(&self, action: &Action, _by: String, context: &Context) -> bool {
        match action {
            Action::Assassination(_) => visible(context, Card::Contessa) == 3,
            Action::ForeignAid => visible(context, Card::Duke) == 3,
            Action::Stealing(_) => {
                visible(context, Card::Captain) == 3 && visible(context, Card::Ambassador) == 3
            }
            _ => false,
        }
    }

    fn on_swapping_cards(&self, new_cards: [Card; 2], context: &Context) -> [Card; 2] {
        let mut all = context.cards.clone();
        all.extend(new_cards);
        all.sort_by_key(worth);
        [all[all.len() - 1], all[all.len() - 2]]
    }

    fn on_card_loss(&self, context: &Context) -> Card {
        *context
            .cards
            .iter()
            .max_by_key(|c| worth(c))
            .expect("a card to lose")
    }
}
