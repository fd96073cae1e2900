//! Ultimate Samurai Showdown (seed 002) for the koth arena.
//!
//! - [`State`]: the duel as a pure state machine implementing [`koth_arena::Game`];
//!   the two simultaneous moves are asked one after the other and the first stays
//!   hidden until the turn resolves ([`resolve`] holds the interaction table).
//! - [`Samurai`]: the trait for samurai written in Rust, [`builtin`] and
//!   [`BUILTIN_NAMES`] for the built-in ones, [`entrants`] and [`entrant`] to make
//!   tournament entrants.
//! - The original challenge's programs, their command line and list files,
//!   are run by `koth-samurai-programs`: this crate is the rules alone, and
//!   runs no process.
//! - [`narrate_turn`] and [`narrate_end`]: a duel in words.
//! - [`check`]: one samurai through every kind of decision, rare ones included.
#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod action;
mod bot;
mod builtin;
pub mod check;
mod narrate;
mod note;
mod rules;
pub mod solve;
mod state;
mod turn;
mod view;

pub use action::{history_string, Action};
pub use bot::{entrant, Samurai, SamuraiAgent};
pub use builtin::{
    builtin, entrants, sensei_solution, Bower, Copycat, Guardian, Predictor, RandomSamurai, Ronin,
    Sensei, Waiter, BUILTIN_ABOUT, BUILTIN_NAMES, SENSEI_HONOUR_CAP,
};
pub use narrate::{narrate_end, narrate_turn, narrate_turn_with};
pub use note::{Note, NoteSink};
pub use rules::Rules;
pub use state::{EndReason, Observation, SamuraiState, State};
pub use turn::{resolve, Standing, TurnLog};
pub use view::{honour_trail, View};
