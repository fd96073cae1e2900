//! Seed 000 protocol. Work in progress.
