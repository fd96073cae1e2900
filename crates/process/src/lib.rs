//! External bot processes. Work in progress.
