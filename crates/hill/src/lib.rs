//! The hill: a king-of-the-hill league that runs itself.
//!
//! A hill is one folder: a database ([`store`]) of its entrants, their
//! versions, the event log, the blocks of games the scheduler ([`plan`]) planned
//! and every game's record, beside a content-hashed copy of every submitted
//! program's folder ([`folders`]). [`Hill::step`] plays the next block on every
//! core and stores its games batch by batch; the [`Board`] ranks the current
//! versions; [`web`] serves the live page; [`audit`] checks it all again.
//!
//! The layers, from the bottom: [`entity`] (what a hill holds, no storage),
//! [`store`] (where it is kept: one trait, a folder of backends, the layouts
//! and their migrations), [`service`] (every rule: who may change what, names,
//! tokens), then the hill's runner ([`hill`]), the page ([`web`]) and the
//! command line, which only call down. Errors are [`HillError`] and
//! [`StoreError`], whose variant, never their words, decides an HTTP status or
//! an exit status.
//!
//! ```
//! use koth_hill::{Change, Hill, Settings};
//! use koth_entrants::{parse_bot, GameKind};
//! use std::sync::atomic::AtomicBool;
//! let dir = std::env::temp_dir().join(format!("koth-doc-hill-{}", std::process::id()));
//! let settings = Settings {
//!     game: "coup".into(), rules_name: "standard".into(), rules: serde_json::Value::Null,
//!     table: 3, seed: 7, block: 30, builtin_block: 30,
//!     candidate_games: 60, duplicate: true, timeout_ms: 1000,
//!     own_candidate_seeds: true, field_tables: true, as_played: true,
//!     ..Settings::default()
//! };
//! Hill::<koth_coup::State>::init(&dir, &settings).unwrap();
//! let mut hill = Hill::<koth_coup::State>::open(&dir, koth_coup::Rules::standard(),
//!     koth_arena::Scoring::ZeroSum).unwrap();
//! for b in ["honest", "bluffer", "economist"] {
//!     hill.submit(Change::Add, b, &parse_bot(GameKind::Coup, b).unwrap()).unwrap();
//! }
//! let (mut board, seen) = hill.board().unwrap();
//! while board.games < 200 {
//!     hill.step(&mut board, seen, &AtomicBool::new(false), &mut |_, _| {}).unwrap();
//! }
//! assert_eq!(board.rows().len(), 3);
//! # std::fs::remove_dir_all(&dir).ok();
//! ```

#![forbid(unsafe_code)]
pub mod audit;
pub mod board;
pub mod conn;
pub mod contest;
pub mod entity;
pub mod error;
pub mod export;
pub mod folders;
pub mod hill;
pub mod metrics;
pub mod pairs;
pub mod plan;
mod pool;
pub mod program;
pub mod service;
pub mod site;
pub mod store;
pub mod upload;
pub mod web;
pub mod work;

pub use audit::Audit;
pub use board::{Board, Gap, Row, MIN_SETTLED_DEALS};
pub use entity::{
    entrants_at, Announcement, Author, Block, BlockKind, Change, Contest, Entrant, Event, Lease,
    Phase, Round, Settings, Status, StoredGame, TokenInfo, Version, Voided, WorkerInfo,
};
pub use error::{HillError, Kind};
pub use folders::{hash_folder, keep_folder};
pub use hill::{spec_bot, Hill, Ready};
pub use service::{look_alike, token_hash};
pub use store::{Batch, Store, StoreError};
