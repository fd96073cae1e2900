//! The seeds of one game: its deal and each seat's own stream, all derived from
//! the master seed and the game's index.

use crate::game::{Seat, MAX_SEATS};
use crate::rng::{keyed, Stream};

/// The seeds of game `index` of a run: the deal and one stream per seat, all
/// independent outputs of one keyed hash of the master seed.
///
/// A bot is given its seat's stream only ([`crate::Agent::start`]); it cannot
/// compute the deal, the other seats' streams or the master seed from it.
///
/// ```
/// use koth_arena::GameSeeds;
/// let g = GameSeeds::of(2026, 0);
/// assert_ne!(g.deal, g.seat(0));
/// assert_ne!(g.seat(0), g.seat(1));
/// assert_eq!(g, GameSeeds::of(2026, 0));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameSeeds {
    /// The game's chance events ([`crate::Game::new_game`]); recorded with the game,
    /// since with the choices it replays the game.
    pub deal: u64,
    seats: [u64; MAX_SEATS],
}

impl GameSeeds {
    /// The seeds of game `index` under `master`.
    pub fn of(master: u64, index: u64) -> GameSeeds {
        let mut bytes = [0u8; 8 * (1 + MAX_SEATS)];
        keyed(master, Stream::Game, index)
            .finalize_xof()
            .fill(&mut bytes);
        let word = |i: usize| u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().expect("8"));
        GameSeeds {
            deal: word(0),
            seats: std::array::from_fn(|s| word(1 + s)),
        }
    }

    /// The same seat streams with another deal (for tests that change only what
    /// the bots cannot see).
    pub fn with_deal(self, deal: u64) -> GameSeeds {
        GameSeeds { deal, ..self }
    }

    /// The stream given to the bot in `seat`, for its own randomness.
    pub fn seat(&self, seat: Seat) -> u64 {
        self.seats[seat % MAX_SEATS]
    }
}
