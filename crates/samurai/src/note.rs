//! What a program of the original challenge got wrong: the challenge recorded
//! such a turn as W, and so does koth, noting why. The notes are data about the
//! duel; the program runner (`koth-samurai-programs`) writes them and the check
//! ([`crate::check`]) reads them.

use koth_arena::Seat;
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex};

/// Why a program's turn was recorded as W (or otherwise noteworthy).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Note {
    /// The program's name.
    pub program: String,
    /// The seed of the match (the game's seed in a tournament record).
    pub game_seed: u64,
    /// The program's seat.
    pub seat: Seat,
    /// The turn, from 1.
    pub turn: u32,
    /// What went wrong, e.g. `no answer within 1000 ms`.
    pub reason: String,
    /// The last lines the program wrote to stderr, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr_tail: Option<String>,
}

/// Where the notes of every program of a tournament are collected, in the order
/// they happen (across worker threads).
pub type NoteSink = Arc<Mutex<Vec<Note>>>;
