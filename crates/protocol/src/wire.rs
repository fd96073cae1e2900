//! The messages of protocol version 1 and what a game provides to fill them.

use koth_arena::{Game, Seat};
use serde::{Deserialize, Serialize};

/// The protocol version this crate speaks (sent in `hello`).
pub const PROTOCOL_VERSION: u32 = 1;

/// A game that can be played by external programs over the JSON-lines protocol.
///
/// Everything returned must be visible to `seat` (or to everyone): adapters are
/// trusted, bots are not.
pub trait WireGame: Game {
    /// The rule options, as sent in `start`.
    fn wire_rules(&self) -> impl Serialize + '_;
    /// The pending decision: a `kind` and its context (who acts, what is claimed...).
    fn decision_json(&self) -> impl Serialize + '_;
    /// What `seat` sees now.
    fn view_json(&self, seat: Seat) -> impl Serialize + '_;
    /// The events `seat` may see that happened since `cursor` (a position returned by
    /// an earlier call, 0 at the start of a game), and the new cursor.
    fn events_since(&self, seat: Seat, cursor: usize) -> (impl Serialize + '_, usize);
}

/// `hello`: the first line a new process receives.
#[derive(Serialize)]
pub(crate) struct Hello<'a> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub protocol: u32,
    pub game: &'a str,
}

/// The answer to `hello`.
#[derive(Deserialize, Debug)]
pub(crate) struct Ready {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub name: Option<String>,
}

/// `start`: a game begins.
#[derive(Serialize)]
pub(crate) struct Start<'a, R, V> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub game_id: u64,
    pub seat: Seat,
    pub players: usize,
    /// The seats' names (when the runner gives them).
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub names: &'a [String],
    pub rules: R,
    pub seed: u64,
    pub view: V,
}

/// `decide`: the bot must answer with one of `legal`.
#[derive(Serialize)]
pub(crate) struct Decide<'a, E, D, V, C> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub events: E,
    pub decision: D,
    pub view: V,
    pub legal: &'a [C],
}

/// `end`: the game is over.
#[derive(Serialize)]
pub(crate) struct End<E, V> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub events: E,
    pub winners: Vec<Seat>,
    pub ending: koth_arena::Ending,
    pub turns: u32,
    pub view: V,
}

/// A bot's answer to `decide`: `{"choice": ...}` (an element of `legal`) or
/// `{"index": i}` (its position in `legal`). Other fields are ignored.
#[derive(Deserialize, Debug)]
pub struct Reply {
    /// The choice, verbatim from `legal`.
    #[serde(default)]
    pub choice: Option<serde_json::Value>,
    /// The choice's index in `legal`.
    #[serde(default)]
    pub index: Option<serde_json::Value>,
}
