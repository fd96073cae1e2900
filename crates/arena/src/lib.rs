//! Game-agnostic pieces of the koth arena.
//!
//! A game implements [`Game`] as a pure state machine; bots are driven through
//! [`Agent`]s; a [`Tournament`] plays a [`Schedule`] of games on every core and
//! returns [`Standings`] that are identical for any thread count.
#![warn(missing_docs)]

pub mod check;
pub mod code;
pub mod conformance;
pub mod game;
pub mod programs;
pub mod ratings;
pub mod records;
pub mod rng;
pub mod runner;
pub mod schedule;
pub mod scoring;
pub mod sprt;
pub mod stats;

pub use code::{ChoiceCode, Choices};
pub use game::{Ending, Game, IllegalChoice, Notice, Outcome, Seat, SeatSet, MAX_SEATS};
pub use rng::{DealRng, GameSeeds, Random, Rng};
pub use runner::{
    play_game, smallvec, Agent, AgentFactory, Entrant, EntrantStats, Fault, GameRecord, MultiAgent,
    MultiFactory, NoticeKind, NoticeRecord, Observer, PerSeat, Progress, Quiet, RecordLevel,
    RunSummary, SmallVec, Standings, Tournament, MAX_TABLES,
};
pub use schedule::Schedule;
pub use scoring::Scoring;
pub use stats::Sample;
