//! Ultimate Samurai Showdown's original programs (seed 002), run unchanged.
//!
//! The duel's rules live in `koth-samurai`, a pure crate; this one runs
//! programs written for the original challenge, as `koth-ppcg` runs Coup's:
//! - [`protocol`]: the original command line
//!   (`COMMAND [MY_HISTORY ENEMY_HISTORY] MY_HEALTH ENEMY_HEALTH MY_HONOUR ENEMY_HONOUR`,
//!   answered by one letter), its pure parts;
//! - [`programs`]: the list file of a tournament of programs;
//! - [`ExternalSamurai`]: a program run once per turn through `koth_process`,
//!   recorded as W whenever it misbehaves; [`program_entrants`] makes a field
//!   of a list file.
#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod external;
pub mod programs;
pub mod protocol;

pub use external::{program_entrants, startup_time, ExternalOptions, ExternalSamurai};
pub use koth_samurai::{Note, NoteSink};
