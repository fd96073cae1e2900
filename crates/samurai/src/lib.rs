//! Ultimate Samurai Showdown (seed 002) for the koth arena.
//!
//! - [`State`]: the duel as a pure state machine implementing [`koth_arena::Game`];
//!   the two simultaneous moves are asked one after the other and the first stays
//!   hidden until the turn resolves ([`resolve`] holds the interaction table).
//! - [`Samurai`]: the trait for samurai written in Rust, [`builtin`] and
//!   [`BUILTIN_NAMES`] for the built-in ones, [`entrants`] and [`entrant`] to make
//!   tournament entrants.
//! - [`protocol`]: the original command line for external programs, and
//!   [`programs`]: the list file of a tournament of programs.
//! - [`ExternalSamurai`]: a program of the original challenge, run once per turn
//!   through `koth_process`; [`program_entrants`] makes a field of a list file.
//! - [`narrate_turn`] and [`narrate_end`]: a duel in words.
//! - [`check`]: one samurai through every kind of decision, rare ones included.
#![warn(missing_docs)]

mod action;
mod bot;
mod builtin;
pub mod check;
mod external;
mod narrate;
pub mod programs;
pub mod protocol;
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
pub use external::{
    program_entrants, startup_time, ExternalOptions, ExternalSamurai, Note, NoteSink,
};
pub use narrate::{narrate_end, narrate_turn, narrate_turn_with};
pub use rules::Rules;
pub use state::{EndReason, Observation, SamuraiState, State};
pub use turn::{resolve, Standing, TurnLog};
pub use view::{honour_trail, View};
