//! The koth bot protocol, version 1: JSON lines over a bot's stdin/stdout.
//!
//! One process per bot and per parallel game slot serves many games in a row:
//!
//! ```text
//! engine → bot  {"type":"hello","protocol":1,"game":"coup"}
//! bot → engine  {"type":"ready","name":"my bot"}
//! engine → bot  {"type":"start","game_id":1,"seat":2,"players":4,"rules":{..},"seed":..,"view":{..}}
//! engine → bot  {"type":"decide","events":[..],"decision":{..},"view":{..},"legal":[..]}
//! bot → engine  {"choice": <one element of legal, verbatim>}   or   {"index": 3}
//! engine → bot  {"type":"end","events":[..],"winners":[0],"ending":"decided","turns":31,"view":{..}}
//! ```
//!
//! Only `hello` and `decide` get an answer. Unknown fields are ignored both ways. See
//! `docs/protocol.md` for the full description and a real transcript.
//!
//! * [`WireGame`]: what a game provides to be played over the wire (implemented for
//!   [`koth_coup::State`] and [`koth_samurai::State`]);
//! * [`JsonAgent`]: the arena [`Agent`](koth_arena::Agent) that runs an external
//!   program, restarting it after a fault and forfeiting it with a clear reason on
//!   crashes, time-outs, garbage, over-long lines and illegal choices;
//! * tournament files and `--bot` arguments are in `koth-entrants`.
#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod agent;
pub mod conformance;
mod coup;
mod samurai;
mod wire;

pub use agent::{json_entrant, JsonAgent, JsonBotConfig};
pub use coup::{CoupDecision, CoupView, PerSeat};
pub use samurai::{SamuraiDecision, SamuraiSide, SamuraiView};
pub use wire::{Encoder, Reply, WireGame, PROTOCOL_VERSION};
