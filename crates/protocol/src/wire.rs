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
    /// How many games the program plays at once (1 when left out).
    #[serde(default)]
    pub games: Option<serde_json::Value>,
    /// `false`: leave `legal` out of `decide` (the program works out its choices).
    #[serde(default)]
    pub legal: Option<serde_json::Value>,
}

/// `start`: a game begins.
#[derive(Serialize)]
struct Start<'a, R, V> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The table of a program that plays several games at once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table: Option<usize>,
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
struct Decide<'a, E, D, V, C> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The table of a program that plays several games at once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table: Option<usize>,
    /// The request's number (1, 2, ... per process); an answer may echo it.
    pub id: u64,
    pub events: E,
    pub decision: D,
    pub view: V,
    /// Left out for a program that said `"legal": false` in `ready`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub legal: Option<&'a [C]>,
}

/// `end`: the game is over.
#[derive(Serialize)]
struct End<E, V> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The table of a program that plays several games at once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table: Option<usize>,
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
    /// The `id` of the request it answers (optional; checked when present).
    #[serde(default)]
    pub id: Option<serde_json::Value>,
}

/// Builds the lines one seat receives, exactly as [`crate::JsonAgent`] sends them.
///
/// Everything in a line comes from the seat's view, the public facts of the table
/// (names, seat count, rules, a game counter) and the seat's own seed: the
/// wire-level leak battery ([`crate::conformance`]) checks that on the bytes.
#[derive(Debug, Default)]
pub struct Encoder {
    /// Games begun (the next `game_id` less one).
    pub(crate) games: u64,
    /// The table named in every line, for a program that plays several games at once.
    pub(crate) table: Option<usize>,
    /// Leaves `legal` out of `decide` (the program said `"legal": false`).
    pub(crate) omit_legal: bool,
    names: Vec<String>,
    cursor: usize,
    buf: Vec<u8>,
}

impl Encoder {
    /// A fresh encoder (no game played yet).
    pub fn new() -> Self {
        Encoder::default()
    }

    /// The seat names of the coming game.
    pub fn set_names(&mut self, names: &[&str]) {
        self.names.clear();
        self.names.extend(names.iter().map(|n| n.to_string()));
    }

    /// The `start` line of a new game (without the newline). Errors are a game's
    /// serialisation failures.
    pub fn start<G: WireGame>(&mut self, game: &G, seat: Seat, seed: u64) -> Result<&str, String> {
        self.games += 1;
        self.cursor = 0;
        let msg = Start {
            kind: "start",
            table: self.table,
            game_id: self.games,
            seat,
            players: game.seats(),
            names: &self.names,
            rules: game.wire_rules(),
            seed,
            view: game.view_json(seat),
        };
        Self::encode(&mut self.buf, &msg)
    }

    /// The `decide` line for `seat`, which is to move with `legal`.
    pub fn decide<G: WireGame>(
        &mut self,
        game: &G,
        seat: Seat,
        legal: &[G::Choice],
        id: u64,
    ) -> Result<&str, String> {
        let (events, cursor) = game.events_since(seat, self.cursor);
        let msg = Decide {
            kind: "decide",
            table: self.table,
            id,
            events,
            decision: game.decision_json(),
            view: game.view_json(seat),
            legal: (!self.omit_legal).then_some(legal),
        };
        let out = Self::encode(&mut self.buf, &msg)?;
        self.cursor = cursor;
        Ok(out)
    }

    /// The `end` line of the game.
    pub fn end<G: WireGame>(&mut self, game: &G, seat: Seat) -> Result<&str, String> {
        let outcome = game.outcome();
        let (events, _) = game.events_since(seat, self.cursor);
        let msg = End {
            kind: "end",
            table: self.table,
            events,
            winners: outcome
                .map(|o| o.winners.iter().collect())
                .unwrap_or_default(),
            ending: outcome
                .map(|o| o.ending)
                .unwrap_or(koth_arena::Ending::Adjudicated),
            turns: game.turns(),
            view: game.view_json(seat),
        };
        self.cursor = 0;
        Self::encode(&mut self.buf, &msg)
    }

    fn encode<'b>(buf: &'b mut Vec<u8>, msg: &impl Serialize) -> Result<&'b str, String> {
        buf.clear();
        serde_json::to_writer(&mut *buf, msg).map_err(|e| e.to_string())?;
        std::str::from_utf8(buf).map_err(|e| e.to_string())
    }
}
