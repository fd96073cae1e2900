//! The integration tests of `protocol`, one binary with each file a module: the
//! crate and its dependencies are linked once, not once a file. (`machine.rs`
//! keeps a binary of its own: it lowers the whole process's open-files limit.)

#[path = "../common/mod.rs"]
mod common;

mod external_bots;
mod fair_play;
mod transcript;
