//! The integration tests of `cli`, one binary with each file a module: the
//! crate and its dependencies are linked once, not once a file.

#[path = "../common/mod.rs"]
mod common;

mod attacks;
mod check;
mod cli;
mod cluster;
mod conformance;
mod deploy;
mod docs;
mod hill;
mod hill_attacks;
mod hostile;
mod layout;
mod ppcg_kinds;
mod records_fuzz;
mod report;
mod runs;
mod samurai_json;
mod unchanged;
mod workers;
