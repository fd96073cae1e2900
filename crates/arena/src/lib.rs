//! Game-agnostic pieces of the koth arena.
//!
//! A game implements [`Game`] as a pure state machine; bots are driven through
//! [`Agent`]s; a [`Tournament`] plays a [`Schedule`] of games on every core and
//! returns [`Standings`] that are identical for any thread count.
#![warn(missing_docs)]
#![forbid(unsafe_code)]

pub mod agent;
pub mod check;
pub mod code;
pub mod conformance;
pub mod game;
pub mod model;
pub mod play;
pub mod programs;
pub mod ratings;
pub mod records;
pub mod rng;
pub mod schedule;
pub mod scoring;
pub mod seeds;
pub mod sprt;
pub mod standings;
pub mod stats;
pub mod tournament;

pub use agent::{
    dedup_names, Again, Agent, AgentFactory, Entrant, Fault, Hook, MultiAgent, MultiFactory,
    LOST_WITH_PROCESS,
};
pub use code::{ChoiceCode, Choices};
pub use game::{Ending, Game, IllegalChoice, Notice, Outcome, PerSeat, Seat, SeatSet, MAX_SEATS};
pub use play::{play_game, LOG_BYTES, LOG_DECISIONS, TIMED_DECISIONS};
pub use records::{
    ForfeitRecord, GameLog, GameRecord, NoticeKind, NoticeRecord, RecordLevel, Took,
};
pub use rng::{DealRng, Random, Rng};
pub use schedule::Schedule;
pub use scoring::Scoring;
pub use seeds::GameSeeds;
pub use smallvec::{smallvec, SmallVec};
pub use standings::{EntrantStats, Standings};
pub use stats::Sample;
pub use tournament::{Observer, Progress, Quiet, Replays, RunSummary, Tournament, MAX_TABLES};
