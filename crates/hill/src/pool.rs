//! Programs kept between blocks: a version's JSON-lines processes, started for
//! one block, serve the next ones (a sandboxed program's start costs as much as
//! many games). A process that failed restarts by itself at its next game, as in
//! any run; the pool of a version that left the field is dropped, and with it
//! its processes.

use koth_arena::{Agent, Entrant, Fault, Game, MultiAgent, Seat};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

type Idle<G> = Arc<Mutex<Vec<Box<dyn MultiAgent<G>>>>>;
type IdleOne<G> = Arc<Mutex<Vec<Box<dyn Agent<G>>>>>;

/// A version's entrant as first built, and its idle agents of both kinds (a
/// worker under duplicate play runs one single-game agent a table).
type Kept2<G> = (Entrant<G>, Idle<G>, IdleOne<G>);

/// The kept processes of every version that has some.
pub struct Pools<G: Game> {
    by_version: HashMap<i64, Kept2<G>>,
}

impl<G: Game> Default for Pools<G> {
    fn default() -> Self {
        Pools {
            by_version: HashMap::new(),
        }
    }
}

impl<G: Game> Pools<G> {
    /// The entrant of `version` for a block: `make` builds it the first time; a
    /// program's processes then come from (and go back to) the version's pool.
    pub fn entrant(
        &mut self,
        version: i64,
        make: impl FnOnce() -> Result<Entrant<G>, String>,
    ) -> Result<Entrant<G>, String> {
        if let std::collections::hash_map::Entry::Vacant(slot) = self.by_version.entry(version) {
            slot.insert((make()?, Default::default(), Default::default()));
        }
        let (e, idle, idle_one) = &self.by_version[&version];
        let mut kept = e.clone();
        let (single, home) = (e.factory.clone(), idle_one.clone());
        kept.factory = Arc::new(move |slot| {
            let agent = match home.lock().ok().and_then(|mut v| v.pop()) {
                Some(a) => a,
                None => single(slot)?,
            };
            Ok(Box::new(KeptOne {
                inner: Some(agent),
                home: home.clone(),
            }) as Box<dyn Agent<G>>)
        });
        let Some(multi) = e.multi.clone() else {
            return Ok(kept);
        };
        let idle = idle.clone();
        kept.multi = Some(Arc::new(move |slot| {
            let agent = match idle.lock().ok().and_then(|mut v| v.pop()) {
                Some(a) => a,
                None => multi(slot)?,
            };
            Ok(Box::new(Kept {
                inner: Some(agent),
                home: idle.clone(),
            }) as Box<dyn MultiAgent<G>>)
        }));
        Ok(kept)
    }

    /// Drops the pools of versions not in `keep` (their processes end).
    pub fn retain(&mut self, keep: &[i64]) {
        self.by_version.retain(|v, _| keep.contains(v));
    }
}

/// A kept agent, lent to one worker of one block and given back when dropped.
struct Kept<G: Game> {
    inner: Option<Box<dyn MultiAgent<G>>>,
    home: Idle<G>,
}

impl<G: Game> Kept<G> {
    fn a(&mut self) -> &mut dyn MultiAgent<G> {
        self.inner.as_deref_mut().expect("lent until dropped")
    }
}

impl<G: Game> Drop for Kept<G> {
    fn drop(&mut self) {
        if let (Some(a), Ok(mut idle)) = (self.inner.take(), self.home.lock()) {
            idle.push(a);
        }
    }
}

impl<G: Game> MultiAgent<G> for Kept<G> {
    fn tables(&mut self) -> usize {
        self.a().tables()
    }
    fn seat_names(&mut self, table: usize, names: &[&str]) {
        self.a().seat_names(table, names)
    }
    fn numbered(&mut self, table: usize, index: u64) {
        self.a().numbered(table, index)
    }
    fn start(&mut self, table: usize, game: &G, seat: Seat, seed: u64) -> Result<(), Fault> {
        self.a().start(table, game, seat, seed)
    }
    fn request(&mut self, table: usize, game: &G, seat: Seat, legal: &[G::Choice]) {
        self.a().request(table, game, seat, legal)
    }
    fn flush(&mut self) {
        self.a().flush()
    }
    fn answer(&mut self, table: usize, legal: &[G::Choice]) -> Result<G::Choice, Fault> {
        self.a().answer(table, legal)
    }
    fn finish(&mut self, table: usize, game: &G, seat: Seat) {
        self.a().finish(table, game, seat)
    }
    fn take_stop(&mut self, table: usize) -> Option<String> {
        self.a().take_stop(table)
    }
    fn logs(&mut self) -> bool {
        self.a().logs()
    }
    fn take_log(&mut self, table: usize) -> Option<String> {
        self.a().take_log(table)
    }
    fn took(&mut self, table: usize) -> Option<(std::time::Duration, bool)> {
        self.a().took(table)
    }
}

/// A kept single-game agent (see [`Kept`]).
struct KeptOne<G: Game> {
    inner: Option<Box<dyn Agent<G>>>,
    home: IdleOne<G>,
}

impl<G: Game> KeptOne<G> {
    fn a(&self) -> &dyn Agent<G> {
        self.inner.as_deref().expect("lent until dropped")
    }
    fn m(&mut self) -> &mut dyn Agent<G> {
        self.inner.as_deref_mut().expect("lent until dropped")
    }
}

impl<G: Game> Drop for KeptOne<G> {
    fn drop(&mut self) {
        if let (Some(a), Ok(mut idle)) = (self.inner.take(), self.home.lock()) {
            idle.push(a);
        }
    }
}

impl<G: Game> Agent<G> for KeptOne<G> {
    fn seat_names(&mut self, names: &[&str]) {
        self.m().seat_names(names)
    }
    fn start(&mut self, game: &G, seat: Seat, seed: u64) -> Result<(), Fault> {
        self.m().start(game, seat, seed)
    }
    fn decide(&mut self, game: &G, seat: Seat, legal: &[G::Choice]) -> Result<G::Choice, Fault> {
        self.m().decide(game, seat, legal)
    }
    fn wants_legal(&self) -> bool {
        self.a().wants_legal()
    }
    fn logs(&self) -> bool {
        self.a().logs()
    }
    fn finish(&mut self, game: &G, seat: Seat) {
        self.m().finish(game, seat)
    }
    fn take_stop(&mut self) -> Option<String> {
        self.m().take_stop()
    }
    fn take_log(&mut self) -> Option<String> {
        self.m().take_log()
    }
    fn close(&mut self) -> Option<Fault> {
        self.m().close()
    }
}
