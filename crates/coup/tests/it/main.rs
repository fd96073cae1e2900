//! The integration tests of `coup`, one binary with each file a module: the
//! crate and its dependencies are linked once, not once a file.

#[path = "../common/mod.rs"]
mod common;

mod champion;
mod conformance;
mod deals;
mod ladder;
mod logs;
mod penalty;
mod rules;
mod tournament;
