//! The integration tests of `coup-crate`, one binary with each file a module: the
//! crate and its dependencies are linked once, not once a file.

mod serve;
mod template;
