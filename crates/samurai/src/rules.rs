//! The rule options of a duel.

use serde::{Deserialize, Serialize};

/// The numbers that fix a variant of the duel. [`Rules::default`] is the seed's game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Rules {
    /// Health each samurai starts with (20).
    pub starting_health: i32,
    /// Honour each samurai starts with (1).
    pub starting_honour: i32,
    /// Turns after which an undecided match is a draw (500).
    pub turn_limit: u32,
    /// Honour at the start of a turn from which strikes use the Sword of the Gods (7).
    pub god_sword_honour: i32,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            starting_health: 20,
            starting_honour: 1,
            turn_limit: 500,
            god_sword_honour: 7,
        }
    }
}
