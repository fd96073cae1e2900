//! The integration tests of `process`, one binary with each file a module: the
//! crate and its dependencies are linked once, not once a file.

#[path = "../common/mod.rs"]
mod common;

mod bot;
mod invoke;
mod limits;
mod sandbox;
