//! The integration tests of `samurai`, one binary with each file a module: the
//! crate and its dependencies are linked once, not once a file.

mod conformance;
mod differential;
mod interaction_table;
mod properties;
mod sensei;
mod tournament;
