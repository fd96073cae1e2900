//! The integration tests of `samurai-programs`, one binary with each file a module: the
//! crate and its dependencies are linked once, not once a file.

mod external;
mod protocol;
