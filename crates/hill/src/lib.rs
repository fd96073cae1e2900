//! The hill: a king-of-the-hill league that runs itself.
//!
//! A hill is one folder: a SQLite database ([`store`]) of its entrants, their
//! versions, the event log, the blocks of games the scheduler ([`plan`]) planned
//! and every game's record, beside a content-hashed copy of every submitted
//! program's folder. [`Hill::step`] plays the next block on every core and
//! stores its games batch by batch; the [`Board`] ranks the current versions;
//! [`web`] serves the live page.
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
//!     own_candidate_seeds: true, field_tables: true, ..Settings::default()
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

pub mod board;
pub mod conn;
pub mod hill;
pub mod plan;
mod pool;
pub mod program;
pub mod store;
pub mod upload;
pub mod web;

pub use board::{Board, Row};
pub use hill::{
    entrants_at, hash_folder, keep_folder, look_alike, spec_bot, token_hash, Audit, Hill,
    HillError, Ready,
};
pub use store::{
    Author, Batch, Block, Change, Entrant, Event, Refusal, Round, Settings, Sqlite, Status, Store,
    StoreError, StoredGame, TokenInfo, Version,
};
