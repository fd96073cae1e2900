//! The integration tests of `ppcg`, one binary with each file a module: the
//! crate and its dependencies are linked once, not once a file.

#[path = "../common/mod.rs"]
mod common;

mod consistency;
mod golden;
mod lenient;
mod tournament;
