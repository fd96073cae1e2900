//! The built-in bots, and helpers for writing strategies.

mod belief;
mod bluffer;
mod champion;
mod counter;
mod ladder;
mod principled;
mod random;
mod sense;

pub use belief::{Beliefs, BLUFF_LIKELIHOOD, STYLES, STYLE_PRIOR};
pub use bluffer::Bluffer;
pub use champion::{Champion, DEFAULT_PLAYOUTS, MAX_PLAYOUTS, PLAYOUTS_PER_MS};
pub use counter::Counter;
pub use ladder::Ladder;
pub use principled::Principled;
pub use random::RandomBot;
pub use sense::{best_keep, card_value, chance_holds, least_valuable, strongest};

use crate::bot::Bot;

/// Income every turn, never challenges or blocks (seed 003's `StaticBot`): the
/// trait's defaults.
#[derive(Clone, Copy, Debug, Default)]
pub struct Static;
impl Bot for Static {
    fn wants_legal(&self) -> bool {
        false // the default methods ask the rules
    }
}

/// The built-in bots: name and a one-line description.
pub const BUILTINS: [(&str, &str); 8] = [
    (
        "static",
        "Income every turn; never challenges or blocks (seed 003's StaticBot)",
    ),
    (
        "honest",
        "claims only cards it holds, blocks when it truly can",
    ),
    ("random", "uniform over the legal choices"),
    (
        "counter",
        "card counter: challenges claims its hand and the revealed cards make unlikely",
    ),
    (
        "bluffer",
        "aggressive liar: taxes, assassinates and blocks whatever it holds",
    ),
    (
        "economist",
        "cautious: never bluffs, builds coins and coups",
    ),
    (
        "challenger",
        "challenges every claim while it can afford to (seed 000's Challenger)",
    ),
    (
        "skeptic",
        "card counter that bluffs a Duke when few are left to catch it",
    ),
];

/// The reference opponents: built-ins that search, left out of the default field
/// (they cost far more a decision). `champion:2ms` or `champion:500` names a
/// budget ([`Champion::from_name`]).
pub const CHAMPIONS: [(&str, &str); 1] = [(
    "champion",
    "searches: imagines the hidden cards from the public log and searches every player's choices over them (champion:2ms, champion:500 for a budget)",
)];

/// The ladder: built-ins that play like the leading entries of the two-player
/// challenge, left out of the default field (a field to measure against, not
/// a crowd to play in).
pub const LADDER: [(&str, &str); 4] = [
    (
        "calculator",
        "time-to-win calculator: plays the fastest truthful way to take every card; lies only when forced",
    ),
    (
        "taxman",
        "claims a Duke every turn, held or not; coups when it can",
    ),
    (
        "statistician",
        "never bluffs; calls claims the unseen cards make unlikely",
    ),
    (
        "lawyer",
        "never bluffs; calls every claim while it has two cards",
    ),
];

/// The built-ins left out of the default field: the champions, then the ladder.
pub fn reserve() -> impl Iterator<Item = (&'static str, &'static str)> {
    CHAMPIONS.into_iter().chain(LADDER)
}

/// Every built-in's name, the default field's first (for "known: …" lists).
pub fn names() -> impl Iterator<Item = &'static str> {
    BUILTINS.into_iter().chain(reserve()).map(|b| b.0)
}

/// Whether `name` names a built-in bot, a champion's budget included.
pub fn is_builtin(name: &str) -> bool {
    BUILTINS.iter().chain(&LADDER).any(|b| b.0 == name) || Champion::from_name(name).is_some()
}

/// A built-in bot by name, as an arena agent whose bot type is known to the
/// compiler (faster than `BotAgent(builtin(name))`).
pub fn builtin_agent(name: &str) -> Option<Box<dyn koth_arena::Agent<crate::State>>> {
    use crate::bot::BotAgent;
    Some(match name {
        "static" => Box::new(BotAgent(Static)),
        "honest" => Box::new(BotAgent(Principled::honest())),
        "random" => Box::new(BotAgent(RandomBot::default())),
        "counter" => Box::new(BotAgent(Counter::careful())),
        "bluffer" => Box::new(BotAgent(Bluffer::default())),
        "economist" => Box::new(BotAgent(Principled::economist())),
        "challenger" => Box::new(BotAgent(Principled::challenger())),
        "skeptic" => Box::new(BotAgent(Counter::bold())),
        "calculator" => Box::new(BotAgent(Ladder::calculator())),
        "taxman" => Box::new(BotAgent(Ladder::taxman())),
        "statistician" => Box::new(BotAgent(Ladder::statistician())),
        "lawyer" => Box::new(BotAgent(Ladder::lawyer())),
        _ => Box::new(BotAgent(Champion::from_name(name)?)),
    })
}

/// A new built-in bot by name.
///
/// ```
/// assert!(koth_coup::bots::builtin("honest").is_some());
/// assert!(koth_coup::bots::builtin("nobody").is_none());
/// ```
pub fn builtin(name: &str) -> Option<Box<dyn Bot>> {
    Some(match name {
        "static" => Box::new(Static),
        "honest" => Box::new(Principled::honest()),
        "random" => Box::new(RandomBot::default()),
        "counter" => Box::new(Counter::careful()),
        "bluffer" => Box::new(Bluffer::default()),
        "economist" => Box::new(Principled::economist()),
        "challenger" => Box::new(Principled::challenger()),
        "skeptic" => Box::new(Counter::bold()),
        "calculator" => Box::new(Ladder::calculator()),
        "taxman" => Box::new(Ladder::taxman()),
        "statistician" => Box::new(Ladder::statistician()),
        "lawyer" => Box::new(Ladder::lawyer()),
        _ => Box::new(Champion::from_name(name)?),
    })
}
