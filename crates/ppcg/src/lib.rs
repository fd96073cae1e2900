//! Coup, the two-player challenge edition (seed 000): the original programs run
//! unchanged through the history-file protocol.
//!
//! * [`protocol`]: the characters, the arbiter's legal moves, the Exchange answer;
//! * [`history`]: the history file rebuilt from the engine's log, with the arbiter's
//!   coin counts and hand order;
//! * [`PpcgGame`]: the engine wrapped so that every invocation of the arbiter is a
//!   decision, in the arbiter's order, with its 200-invocation cap;
//! * [`PpcgAgent`]: one seat played by an external program; [`Lifted`]: one seat
//!   played by a built-in or Rust bot;
//! * [`entrants`], [`tournament()`]: a mixed field, every game archived;
//! * [`check`]: one program through every kind of decision, before a contest.
#![warn(missing_docs)]
#![forbid(unsafe_code)]

pub mod agent;
pub mod check;
pub mod game;
pub mod history;
pub mod protocol;
pub mod tournament;

pub use agent::{choice_of, play, Invocation, Lifted, PpcgAgent, RunOptions};
pub use game::{Field, GameMeta, Notes, PpcgGame, PpcgRules, MAX_INVOCATIONS};
pub use history::{History, Move};
pub use tournament::{
    default_out_dir, entrants, lifted, program_entrant, rust_entrant, tournament, PpcgOptions,
};
