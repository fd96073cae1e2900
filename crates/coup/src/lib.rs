//! Coup for 2–6 players: the rules as a pure state machine ([`State`]), what each
//! player may see ([`View`]), the two rule sets ([`Rules::standard`],
//! [`Rules::ppcg`]), the [`Bot`] trait for Rust authors and the built-in bots.
//!
//! ```
//! use koth_coup::{bots, BotAgent, Rules, State};
//! use koth_arena::{play_game, Agent, GameSeeds, RecordLevel, Scoring};
//!
//! let seeds = GameSeeds::of(7, 0); // master seed 7, game 0
//! let mut game = State::new(Rules::standard(), 3, seeds.deal);
//! let mut a = BotAgent(bots::builtin("honest").unwrap());
//! let mut b = BotAgent(bots::builtin("counter").unwrap());
//! let mut c = BotAgent(bots::builtin("random").unwrap());
//! let mut seats: Vec<&mut dyn Agent<State>> = vec![&mut a, &mut b, &mut c];
//! let (record, _) = play_game(&mut game, &mut seats, &[0, 1, 2], 0, seeds, Scoring::ZeroSum, RecordLevel::None, &mut Vec::new());
//! assert_eq!(record.outcome.winners.len(), 1);
//! ```
#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod action;
mod bot;
pub mod bots;
mod card;
pub mod check;
mod choice;
mod event;
mod game;
mod hand;
pub mod narrate;
mod rules;
mod state;
#[cfg(feature = "versus")]
pub mod versus;
mod view;

pub use action::{Action, ActionKind};
pub use bot::{dispatch, Bot, BotAgent, LegalActions};
pub use card::{full_deck, Card, COPIES, DECK_SIZE};
pub use choice::{Choice, Keep};
pub use event::Event;
pub use hand::Hand;
pub use rules::{IllegalPolicy, Preset, Rules};
pub use state::{Pending, State, MAX_PLAYERS};
pub use view::{Observation, View};

use koth_arena::Entrant;

/// An arena entrant playing a built-in bot under `display` name, or `None` for an
/// unknown bot name.
pub fn builtin_entrant(bot: &str, display: impl Into<String>) -> Option<Entrant<State>> {
    bots::builtin(bot)?;
    let bot = bot.to_string();
    Some(Entrant::new(display, move |_slot| {
        bots::builtin_agent(&bot).ok_or_else(|| format!("no built-in bot {bot}"))
    }))
}

#[cfg(test)]
mod size_tests {
    #[test]
    fn hot_types_stay_small() {
        // Choices and events are copied on every decision: keep them a few words.
        assert!(
            std::mem::size_of::<crate::Choice>() <= 16,
            "{}",
            std::mem::size_of::<crate::Choice>()
        );
        assert!(
            std::mem::size_of::<crate::Event>() <= 32,
            "{}",
            std::mem::size_of::<crate::Event>()
        );
    }
}
