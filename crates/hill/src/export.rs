//! A hill's games as JSON lines, as `koth hill games` writes them and an
//! entrant's author downloads them from the page.

use crate::error::HillError;
use crate::store::{Entrant, Store, StoredGame, Version};

/// One game's line, its keys in this order: its block, its number in the
/// block, each seat's entrant, version (1, 2...) and the hill's id of that
/// version, and its record as a run's games.jsonl holds it.
#[derive(serde::Serialize)]
pub struct GameLine<'a> {
    /// Its block.
    pub block: i64,
    /// Its number in the block.
    pub game: u64,
    /// Each seat's entrant.
    pub entrants: Vec<&'a str>,
    /// Each seat's version's number among its entrant's.
    pub versions: Vec<i64>,
    /// Each seat's version's id in the hill.
    pub version_ids: &'a [i64],
    /// The record, key for key as stored.
    pub record: &'a serde_json::value::RawValue,
}

/// Names the seats of stored games, from every entrant and version read once.
pub struct Seats {
    /// Every entrant, removed ones included.
    pub entrants: Vec<Entrant>,
    /// Every version.
    pub versions: Vec<Version>,
}

impl Seats {
    /// Reads them from `store`.
    pub fn of(store: &dyn Store) -> Result<Seats, HillError> {
        Ok(Seats {
            entrants: store.entrants()?,
            versions: store.versions()?,
        })
    }

    /// The entrant called `name`, or the error that lists the names.
    pub fn entrant(&self, name: &str) -> Result<&Entrant, HillError> {
        self.entrants
            .iter()
            .find(|e| e.name == name)
            .ok_or_else(|| {
                let names: Vec<&str> = self.entrants.iter().map(|e| e.name.as_str()).collect();
                HillError::NotFound(format!(
                    "no entrant {name:?}\n  fix: one of {}",
                    names.join(", ")
                ))
            })
    }

    /// Version `v`'s entrant (its id and name) and its number.
    pub fn of_version(&self, v: i64) -> (Option<i64>, &str, i64) {
        let version = self.versions.iter().find(|x| x.id == v);
        let entrant = version
            .map(|x| x.entrant)
            .and_then(|id| self.entrants.iter().find(|e| e.id == id));
        (
            entrant.map(|e| e.id),
            entrant.map_or("?", |e| e.name.as_str()),
            version.map_or(0, |x| x.number),
        )
    }

    /// Version `v`'s entrant, if the hill has it.
    pub fn entrant_of(&self, v: i64) -> Option<&Entrant> {
        let id = self.of_version(v).0?;
        self.entrants.iter().find(|e| e.id == id)
    }

    /// The names of a game's seats, by version (`honest v2`).
    pub fn names(&self, seats: &[i64]) -> Vec<String> {
        seats
            .iter()
            .map(|&v| {
                let (_, name, number) = self.of_version(v);
                format!("{name} v{number}")
            })
            .collect()
    }

    /// The versions of the entrant `id`, oldest first.
    pub fn versions_of(&self, id: i64) -> impl Iterator<Item = &Version> {
        self.versions.iter().filter(move |v| v.entrant == id)
    }

    /// Whether entrant `id` sat at game `g`.
    pub fn played(&self, g: &StoredGame, id: i64) -> bool {
        g.seats.iter().any(|&v| self.of_version(v).0 == Some(id))
    }

    /// `g`'s line, its record as given (`record`: the stored one, or one
    /// with what the reader may not see taken out).
    pub fn line<'a>(
        &'a self,
        g: &'a StoredGame,
        record: &'a serde_json::value::RawValue,
    ) -> GameLine<'a> {
        let seats: Vec<_> = g.seats.iter().map(|&v| self.of_version(v)).collect();
        GameLine {
            block: g.block,
            game: g.index,
            entrants: seats.iter().map(|s| s.1).collect(),
            versions: seats.iter().map(|s| s.2).collect(),
            version_ids: &g.seats,
            record,
        }
    }
}
