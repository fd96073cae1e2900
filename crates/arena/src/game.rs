//! The contract between a game's rules and everything that drives them.

use crate::rng::Rng;
use serde::{de::DeserializeOwned, Serialize};
use smallvec::SmallVec;
use std::fmt::Debug;
use std::hash::Hash;

/// A seat at the table: 0 is the first to act.
pub type Seat = usize;

/// The most seats any game in the arena has.
pub const MAX_SEATS: usize = 8;

/// One value a seat, kept inline up to [`MAX_SEATS`] seats (a
/// record costs no allocation for them); it derefs to a slice, and serialises as a
/// JSON list.
pub type PerSeat<T> = SmallVec<[T; MAX_SEATS]>;

/// Something a game rules on by itself while it runs, kept in the game's record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    /// `seat` forfeits for `reason` (seen by the game, not by the seat's agent).
    Forfeit {
        /// Who forfeits.
        seat: Seat,
        /// Why.
        reason: String,
    },
    /// `seat` did something accepted but worth a warning.
    Warning {
        /// Who.
        seat: Seat,
        /// What.
        text: String,
        /// What the bot really wrote, when the game needs it to replay the choice
        /// (given back through [`Game::replay_notice`]).
        raw: Option<String>,
    },
}

/// A set of seats as a bit mask (bit `i` is seat `i`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct SeatSet(pub u8);

impl SeatSet {
    /// The empty set.
    pub const EMPTY: SeatSet = SeatSet(0);
    /// Seats `0..n`.
    pub fn all(n: usize) -> Self {
        SeatSet(((1u16 << n) - 1) as u8)
    }
    /// Just `seat`.
    pub fn single(seat: Seat) -> Self {
        SeatSet(1 << seat)
    }
    /// Whether `seat` is in the set.
    #[inline]
    pub fn contains(self, seat: Seat) -> bool {
        self.0 & (1 << seat) != 0
    }
    /// Adds `seat`.
    #[inline]
    pub fn insert(&mut self, seat: Seat) {
        self.0 |= 1 << seat;
    }
    /// Removes `seat`.
    #[inline]
    pub fn remove(&mut self, seat: Seat) {
        self.0 &= !(1 << seat);
    }
    /// How many seats are in the set.
    #[inline]
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }
    /// Whether the set is empty.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// The seats, lowest first.
    pub fn iter(self) -> impl Iterator<Item = Seat> {
        (0..8).filter(move |&i| self.contains(i))
    }
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    /// The rules decided it (last player standing, a samurai struck down...).
    Decided,
    /// The turn cap was reached; the winners are whoever the rules say survive it.
    TurnCap,
    /// Ended from outside the rules (a runner's limit, an arbiter's decision).
    Adjudicated,
}

/// The result of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
pub struct Outcome {
    /// The seats that won; several for a shared win or a draw, none when all lose.
    pub winners: SeatSet,
    /// How the game ended.
    pub ending: Ending,
    /// Turns played.
    pub turns: u32,
}

/// A choice that is not among the legal ones, or made when no decision is pending.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("illegal choice: {0}")]
pub struct IllegalChoice(pub String);

/// A game's rules as a pure state machine: no I/O, no bots, no clock.
///
/// Sequential decisions only: a simultaneous-move game asks its players one
/// after the other and keeps earlier answers hidden until all are in.
pub trait Game: Clone + Send + Debug + 'static {
    /// One answer to one decision.
    type Choice: Copy
        + Eq
        + Hash
        + Debug
        + Send
        + Sync
        + Serialize
        + DeserializeOwned
        + crate::code::ChoiceCode
        + 'static;
    /// The rule options that fix a variant of the game.
    type Rules: Clone + Debug + Send + Sync + Serialize + 'static;
    /// Everything one seat may see, owned and comparable (for the leak tests).
    type Observation: Eq + Debug;

    /// The game's short name (`coup`, `samurai`).
    const NAME: &'static str;

    /// Seat counts the rules allow.
    fn seats_allowed(rules: &Self::Rules) -> std::ops::RangeInclusive<usize>;

    /// A new game for `seats` players whose chance events all follow `seed`.
    fn new_game(rules: &Self::Rules, seats: usize, seed: u64) -> Self;

    /// Turns this state into `new_game(rules, seats, seed)`; games may override it to
    /// reuse memory between the games a worker plays.
    fn reset(&mut self, rules: &Self::Rules, seats: usize, seed: u64) {
        *self = Self::new_game(rules, seats, seed);
    }

    /// How many seats the game has.
    fn seats(&self) -> usize;

    /// The seat whose decision is pending, or `None` once the game is over.
    fn to_move(&self) -> Option<Seat>;

    /// Appends the legal choices of the pending decision to `out` (never empty while a
    /// decision is pending).
    fn legal_choices(&self, out: &mut Vec<Self::Choice>);

    /// Whether `choice` is among `legal`, the pending decision's legal choices; games
    /// may answer from the rules without the scan (it runs on every decision).
    #[inline]
    fn is_legal_among(&self, legal: &[Self::Choice], choice: Self::Choice) -> bool {
        legal.contains(&choice)
    }

    /// Whether `choice` is legal for the pending decision, without a list made
    /// beforehand (for agents that do not read one); `scratch` may be used. Games
    /// may answer from the rules; the default lists the choices into `scratch`.
    fn is_legal(&self, choice: Self::Choice, scratch: &mut Vec<Self::Choice>) -> bool {
        scratch.clear();
        self.legal_choices(scratch);
        scratch.contains(&choice)
    }

    /// Applies the pending seat's choice.
    fn apply(&mut self, choice: Self::Choice) -> Result<(), IllegalChoice>;

    /// Applies a choice the caller has just taken from [`Game::legal_choices`]; games
    /// may skip re-checking it. The default checks anyway.
    #[inline]
    fn apply_legal(&mut self, choice: Self::Choice) {
        if let Err(e) = self.apply(choice) {
            panic!("a choice from legal_choices was refused: {e}");
        }
    }

    /// The pending seat forfeits the game (a crash, a time-out, an illegal answer).
    fn forfeit(&mut self, seat: Seat);

    /// The pending seat answered a well-formed but illegal choice. Under a rule
    /// option that penalises such answers instead of forfeiting them (seeds 003 and
    /// 004), the game applies its penalty and returns `true`; the default, and games
    /// without such an option, return `false` and the seat forfeits. What the penalty
    /// does may not depend on the choice (see [`Game::penalize_tried`]).
    fn penalize(&mut self, _seat: Seat) -> bool {
        false
    }

    /// [`Game::penalize`], told the illegal answer when it is a well-formed choice:
    /// the game may make the attempt public (coup-cli shows an attempted action in
    /// its history). It must not depend on it otherwise; records keep it for replays.
    fn penalize_tried(&mut self, seat: Seat, _tried: Option<Self::Choice>) -> bool {
        self.penalize(seat)
    }

    /// Moves what the game ruled on by itself since the last call (a forfeit it
    /// declared, a lenient acceptance worth a warning) into `out`, for the record.
    fn take_notices(&mut self, _out: &mut Vec<Notice>) {}

    /// In a replay, gives back the `raw` text of a warning that came with the choice
    /// about to be applied, so the game reads that choice as it did when it was made.
    fn replay_notice(&mut self, _seat: Seat, _raw: &str) {}

    /// Ends a running game from outside the rules, with the given winners.
    fn adjudicate(&mut self, winners: SeatSet);

    /// The result, once the game is over.
    fn outcome(&self) -> Option<Outcome>;

    /// What `seat` may see now.
    fn observe(&self, seat: Seat) -> Self::Observation;

    /// Reorders everything `viewer` cannot see (others' hidden cards, the deck,
    /// undisclosed simultaneous moves) at random: `observe(viewer)` must not change.
    fn shuffle_hidden(&mut self, viewer: Seat, rng: &mut Rng);

    /// Checks the rules' invariants (conservation of cards, no negative coins...).
    fn check_invariants(&self) -> Result<(), String>;

    /// Turns played so far.
    fn turns(&self) -> u32;

    /// The seat `choice` acts against, when it is an attack the mover aims at
    /// one opponent of several (Coup's coup, assassination and steal): what the
    /// hill's collusion check counts. The default: none (a game without aimed
    /// moves, or of two seats, where aiming says nothing).
    fn aimed_at(&self, _choice: Self::Choice) -> Option<Seat> {
        None
    }

    /// Once the game is over, each seat's place: 1 for the winners, then the others
    /// from the last to go out to the first (seats out together share a place).
    /// The default knows only winners and losers (all losers second; everyone
    /// first when nobody won); games with an elimination order say it.
    fn places(&self, out: &mut PerSeat<u8>) {
        out.clear();
        let Some(o) = self.outcome() else { return };
        out.extend((0..self.seats()).map(|s| {
            if o.winners.is_empty() || o.winners.contains(s) {
                1
            } else {
                2
            }
        }));
    }
}
