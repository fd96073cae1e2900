//! What the protocol's test binaries share.

use koth_arena::{GameRecord, Observer};
use koth_coup::Choice;

/// Keeps every record of a run, in order.
#[derive(Default)]
pub struct Collect(pub Vec<GameRecord<Choice>>);

impl Observer<Choice> for Collect {
    fn on_record(&mut self, r: &GameRecord<Choice>) {
        self.0.push(r.clone());
    }
}
