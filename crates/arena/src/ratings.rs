//! Ratings with uncertainty. Work in progress.
