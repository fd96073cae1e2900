//! Ultimate Samurai Showdown (seed 002). Work in progress.
