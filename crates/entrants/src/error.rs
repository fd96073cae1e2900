//! The error every entry point returns.

/// A tournament file or `--bot` argument that cannot be used; the message names the
/// file, the line and the fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);
