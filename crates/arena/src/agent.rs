//! Who plays: the [`Agent`] that makes one seat's decisions (a built-in bot, an
//! external program, a person), the [`MultiAgent`] that plays several games at
//! once, the named [`Entrant`] a tournament seats, and the [`Fault`] that costs a
//! bot its game.

use crate::game::{Game, Seat};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Why a bot lost a game by misbehaving.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fault {
    /// A short reason, e.g. `timeout after 1000 ms` or `illegal choice "Tax"`.
    pub reason: String,
    /// The last lines the bot wrote to stderr, when it is a program.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr_tail: Option<String>,
    /// The answer was well formed but not legal: under a penalty rule
    /// ([`Game::penalize`]) it costs an influence instead of the game.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub illegal: bool,
    /// The illegal answer's code ([`crate::ChoiceCode`]), when it has one: a penalty
    /// rule may make the attempt public ([`Game::penalize_tried`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tried: Option<u8>,
    /// The hook the program was in when it did wrong, when it was outside any
    /// decision (a line printed while told a game starts or ends).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hook: Option<Hook>,
    /// Not the bot's doing in this game: the game is played again from its
    /// start, the same deal, and the fault charged to no one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub again: Option<Again>,
}

/// Why a game is played again rather than charged to a bot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Again {
    /// Lost with a process that failed in another game it was playing at once:
    /// that game is charged, this one is played again with a fresh process.
    Lost,
    /// The machine or koth failed, not the bot: a process could not be started
    /// for want of file descriptors, memory, processes or disk. Played again
    /// after a pause.
    Machine,
}

/// A moment a program is told something and answers nothing: a fault there is
/// found at the next decision, but was made here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Hook {
    /// A game starts (`start`).
    Start,
    /// A game ended (`end`).
    End,
}

/// How the reason of a game lost with a process that failed in another game
/// begins (the game it failed in and what it did follow): one text, written by
/// the protocols and read by the front ends.
pub const LOST_WITH_PROCESS: &str = "lost with its process, which failed in ";

impl Fault {
    /// A fault with a reason and no stderr.
    pub fn new(reason: impl Into<String>) -> Self {
        Fault {
            reason: reason.into(),
            stderr_tail: None,
            illegal: false,
            tried: None,
            hook: None,
            again: None,
        }
    }

    /// A fault of the machine or of koth (see [`Again::Machine`]).
    pub fn machine(reason: impl Into<String>) -> Self {
        Fault {
            again: Some(Again::Machine),
            ..Fault::new(reason)
        }
    }

    /// A game lost with a process that failed in another (see [`Again::Lost`]).
    pub fn lost(reason: impl Into<String>) -> Self {
        Fault {
            again: Some(Again::Lost),
            ..Fault::new(reason)
        }
    }

    /// A well-formed but illegal answer (see [`Fault::illegal`]).
    pub fn illegal_choice(reason: impl Into<String>) -> Self {
        Fault {
            illegal: true,
            ..Fault::new(reason)
        }
    }

    /// The fault of an agent that panicked, with the panic's message.
    pub(crate) fn panicked(p: &Box<dyn std::any::Any + Send>) -> Self {
        let message = if let Some(s) = p.downcast_ref::<&str>() {
            s.to_string()
        } else if let Some(s) = p.downcast_ref::<String>() {
            s.clone()
        } else {
            "unknown panic".into()
        };
        Fault::new(format!("panicked: {message}"))
    }
}

/// Something that makes decisions for one seat: the adapter between a game and a
/// bot (in-process, external program, person). Adapters are trusted code: they
/// get the whole state and must show their bot only that seat's view.
pub trait Agent<G: Game>: Send {
    /// The names of the coming game's seats, in seat order (called before `start`;
    /// protocols pass them on so bots can tell their opponents apart).
    fn seat_names(&mut self, _names: &[&str]) {}

    /// A game begins; `seed` is this seat's own random stream for the game, for the
    /// bot's own randomness: it is independent of the deal and of the other seats'
    /// streams ([`crate::GameSeeds`]).
    fn start(&mut self, _game: &G, _seat: Seat, _seed: u64) -> Result<(), Fault> {
        Ok(())
    }
    /// Chooses one of `legal` for `seat`, the seat to move. An agent whose
    /// [`Agent::wants_legal`] is `false` may be given an empty `legal` by the
    /// tournament runner, and must then work out its choice from the game.
    fn decide(&mut self, game: &G, seat: Seat, legal: &[G::Choice]) -> Result<G::Choice, Fault>;
    /// Whether [`Agent::decide`] reads `legal` (asked once a game). An agent that
    /// works its choices out from the game says `false`, and the runner then skips
    /// listing them for it (a turn's list is a sixth of a Coup game's work).
    fn wants_legal(&self) -> bool {
        true
    }
    /// Whether [`Agent::take_log`] may give lines (asked once a game): the runner
    /// asks only those that log, sparing every other bot a call a decision.
    fn logs(&self) -> bool {
        false
    }
    /// The game is over (normally or not).
    fn finish(&mut self, _game: &G, _seat: Seat) {}
    /// A stop the bot asked for with its last answer (coup-cli's "STOP" in its log):
    /// the run ends after the games under way, and the game is shown. Taken once.
    fn take_stop(&mut self) -> Option<String> {
        None
    }
    /// The lines the bot logged (a program's stderr) since the last call, for showing
    /// them as they come (`koth coup play`); `None` for bots without a log.
    fn take_log(&mut self) -> Option<String> {
        None
    }
    /// Ends the bot's program after its last game: lines it printed after its
    /// last answer (in its `end` hook, say) are a fault, returned here. `None`
    /// for bots without a program, or a program that printed nothing more.
    fn close(&mut self) -> Option<Fault> {
        None
    }
}

/// Makes a fresh agent for one parallel slot (`slot` is the worker's number).
pub type AgentFactory<G> = Arc<dyn Fn(usize) -> Result<Box<dyn Agent<G>>, String> + Send + Sync>;

/// An agent that plays several games at once, each on its own numbered *table*
/// (0, 1, ...): a program that takes the requests of many games in one write and
/// answers them in one read, so a pipe's round trip is paid once for them all.
///
/// A worker keeps up to [`MultiAgent::tables`] games going and, on each round, asks
/// every game's pending decision ([`MultiAgent::request`]), sends the requests
/// ([`MultiAgent::flush`]), then takes the answers ([`MultiAgent::answer`]) in the
/// order it asked for them. Adapters are trusted code, as for [`Agent`].
pub trait MultiAgent<G: Game>: Send {
    /// How many games it can play at once (it may start its program to learn it).
    fn tables(&mut self) -> usize;
    /// The names of the seats of the game coming on `table`.
    fn seat_names(&mut self, _table: usize, _names: &[&str]) {}
    /// The number of the game coming on `table` in its run (records and messages
    /// name games by it: a process that dies names the game it died in).
    fn numbered(&mut self, _table: usize, _index: u64) {}
    /// A game begins on `table` (see [`Agent::start`]).
    fn start(&mut self, table: usize, game: &G, seat: Seat, seed: u64) -> Result<(), Fault>;
    /// Asks for a choice among `legal` for `seat` of the game on `table`.
    fn request(&mut self, table: usize, game: &G, seat: Seat, legal: &[G::Choice]);
    /// Sends what was asked since the last flush.
    fn flush(&mut self);
    /// The answer to the oldest request not yet answered, which was for `table`.
    fn answer(&mut self, table: usize, legal: &[G::Choice]) -> Result<G::Choice, Fault>;
    /// The game on `table` is over.
    fn finish(&mut self, _table: usize, _game: &G, _seat: Seat) {}
    /// A stop asked with the last answer for `table` (see [`Agent::take_stop`]).
    fn take_stop(&mut self, _table: usize) -> Option<String> {
        None
    }
    /// Whether [`MultiAgent::take_log`] may give lines (asked once a worker).
    fn logs(&mut self) -> bool {
        false
    }
    /// The lines the program logged while answering `table`'s last request, when
    /// they can be told to be that game's (a program playing one game at a time);
    /// the record keeps them at that decision.
    fn take_log(&mut self, _table: usize) -> Option<String> {
        None
    }
    /// How long the answer just taken for `table` took (the record keeps it
    /// when [`MultiAgent::logs`]), and whether that is only a bound (the answer
    /// was waiting, unread, for part of it); `None` when not measured.
    fn took(&mut self, _table: usize) -> Option<(std::time::Duration, bool)> {
        None
    }
}

/// Makes a [`MultiAgent`] for one parallel slot (`slot` is the worker's number).
pub type MultiFactory<G> =
    Arc<dyn Fn(usize) -> Result<Box<dyn MultiAgent<G>>, String> + Send + Sync>;

/// A named entrant of a tournament.
pub struct Entrant<G: Game> {
    /// The name shown in standings (unique within a tournament).
    pub name: String,
    /// Makes the entrant's agent for a worker.
    pub factory: AgentFactory<G>,
    /// Makes an agent that plays several games at once, when the entrant has one
    /// (a program that can multiplex games): a tournament with such an entrant keeps
    /// as many games going on each worker as all of them can take.
    pub multi: Option<MultiFactory<G>>,
    /// Its opponents are not told its name: they see it as its seat
    /// (`seat1`, `seat2`, ...), so that no bot can tell a friend from a rival
    /// by name (a hill's contest hides names unless its organiser shows them).
    pub anonymous: bool,
}

impl<G: Game> Clone for Entrant<G> {
    fn clone(&self) -> Self {
        Entrant {
            name: self.name.clone(),
            factory: self.factory.clone(),
            multi: self.multi.clone(),
            anonymous: self.anonymous,
        }
    }
}

/// What an anonymous entrant is called at each seat.
pub const SEAT_NAMES: [&str; crate::game::MAX_SEATS] = [
    "seat1", "seat2", "seat3", "seat4", "seat5", "seat6", "seat7", "seat8",
];

/// The name the bots at a table are told for the entrant at `seat`: its
/// name, or its seat's for an anonymous one.
pub fn told_name<G: Game>(entrant: &Entrant<G>, seat: usize) -> &str {
    if entrant.anonymous {
        SEAT_NAMES.get(seat).copied().unwrap_or("seat")
    } else {
        entrant.name.as_str()
    }
}

impl<G: Game> Entrant<G> {
    /// An entrant from a closure building its agent.
    pub fn new<F>(name: impl Into<String>, make: F) -> Self
    where
        F: Fn(usize) -> Result<Box<dyn Agent<G>>, String> + Send + Sync + 'static,
    {
        Entrant {
            name: name.into(),
            factory: Arc::new(make),
            multi: None,
            anonymous: false,
        }
    }

    /// The same entrant, also able to play several games at once through `make`.
    pub fn with_multi<F>(mut self, make: F) -> Self
    where
        F: Fn(usize) -> Result<Box<dyn MultiAgent<G>>, String> + Send + Sync + 'static,
    {
        self.multi = Some(Arc::new(make));
        self
    }
}

/// De-duplicates names the way seed 003 does: `honest`, `honest 2`, `honest 3`.
///
/// ```
/// let names = koth_arena::dedup_names(&["honest", "static", "honest"]);
/// assert_eq!(names, ["honest", "static", "honest 2"]);
/// ```
pub fn dedup_names<S: AsRef<str>>(names: &[S]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(names.len());
    for n in names {
        let base = n.as_ref();
        let mut name = base.to_string();
        let mut k = 2;
        while out.contains(&name) {
            name = format!("{base} {k}");
            k += 1;
        }
        out.push(name);
    }
    out
}
