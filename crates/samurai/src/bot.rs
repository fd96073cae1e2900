//! The trait samurai authors implement, and its adapter to the arena.

use crate::action::Action;
use crate::state::State;
use crate::view::View;
use koth_arena::{Agent, Entrant, Fault, Seat};

/// A samurai written in Rust: given what the original protocol would give a program
/// (both histories, both healths, both honours), choose an action.
///
/// A complete samurai that bows to the Sword of the Gods, then strikes whenever the
/// enemy is not guarding, playing a short round robin against two built-ins:
///
/// ```
/// use koth_arena::{Quiet, RecordLevel, Schedule, Scoring, Tournament};
/// use koth_samurai::{entrant, entrants, Action, Rules, Samurai, View};
///
/// struct Patient;
///
/// impl Samurai for Patient {
///     fn name(&self) -> &str {
///         "patient"
///     }
///     fn act(&mut self, view: &View) -> Action {
///         let enemy_guarded = view.enemy_last() == Some(Action::G);
///         if view.my_honour >= 7 && !enemy_guarded {
///             Action::I
///         } else if view.enemy_last().is_some_and(|a| a.is_strike()) && view.my_last() != Some(Action::G) {
///             Action::G
///         } else {
///             Action::B
///         }
///     }
/// }
///
/// let mut field = entrants(&["waiter", "bower"]).unwrap();
/// field.push(entrant("patient", || Box::new(Patient)));
/// let t = Tournament {
///     rules: Rules::default(),
///     entrants: field,
///     schedule: Schedule::RoundRobin { games_per_pair: 2 },
///     scoring: Scoring::SharedPoint,
///     seed: 1,
///     threads: 1,
///     records: RecordLevel::None,
///     duplicate: false,
/// };
/// let standings = t.run(&mut Quiet).standings;
/// assert_eq!(standings.games, 6);
/// // The patient samurai beats the waiter twice.
/// assert!(standings.entrants[2].wins >= 2);
/// ```
pub trait Samurai: Send {
    /// The samurai's name, for standings.
    fn name(&self) -> &str;

    /// A match begins; `seed` is this samurai's own random stream for the match
    /// (feed it to [`koth_arena::Rng::new`]).
    fn start(&mut self, _seed: u64) {}

    /// Chooses this turn's action.
    fn act(&mut self, view: &View) -> Action;
}

/// Drives a [`Samurai`] as an arena [`Agent`].
pub struct SamuraiAgent {
    samurai: Box<dyn Samurai>,
}

impl SamuraiAgent {
    /// Wraps a samurai.
    pub fn new(samurai: Box<dyn Samurai>) -> Self {
        SamuraiAgent { samurai }
    }

    /// The wrapped samurai.
    pub fn samurai(&self) -> &dyn Samurai {
        &*self.samurai
    }
}

impl Agent<State> for SamuraiAgent {
    fn start(&mut self, _game: &State, _seat: Seat, seed: u64) -> Result<(), Fault> {
        self.samurai.start(seed);
        Ok(())
    }

    fn decide(&mut self, game: &State, seat: Seat, _legal: &[Action]) -> Result<Action, Fault> {
        Ok(self.samurai.act(&game.view(seat)))
    }
}

/// A tournament entrant playing the samurai `make` builds (one per worker thread).
pub fn entrant<F>(name: impl Into<String>, make: F) -> Entrant<State>
where
    F: Fn() -> Box<dyn Samurai> + Send + Sync + 'static,
{
    Entrant::new(name, move |_slot| {
        Ok(Box::new(SamuraiAgent::new(make())) as Box<dyn Agent<State>>)
    })
}
