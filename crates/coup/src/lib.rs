//! Coup. Work in progress.
