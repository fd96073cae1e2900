//! The integration tests of `hill`, one binary with each file a module: the
//! crate and its dependencies are linked once, not once a file.

#[path = "../common/mod.rs"]
mod common;

mod hill;
mod migrate;
mod postgres;
mod standings;
mod upload;
