//! The batch format: a block's games stored together, one row of the database
//! a batch rather than one a game (a tenth of the bytes).

use super::{Result, Results, StoreError, StoredGame};
use std::collections::HashMap;

/// A batch of games as stored: one line a game, its seats' versions (comma-separated),
/// a space, then its record, the whole compressed (LZ4). One row a batch, not a
/// game, and a tenth of the bytes.
pub fn pack(games: &[StoredGame]) -> Vec<u8> {
    let mut batch = Batch::default();
    for g in games {
        batch.push(&g.seats, g.record.as_bytes());
    }
    batch.pack()
}

/// The games of a batch being gathered, laid out as [`pack`] lays them, before
/// they are compressed: the hill writes each game's line here as it ends, with
/// no allocation a game (a built-in game takes about ten microseconds, so every
/// one spent storing it shows).
#[derive(Clone, Debug, Default)]
pub struct Batch {
    /// Games in it.
    pub count: u64,
    text: Vec<u8>,
    /// What its games gave each version ([`Batch::tally`]).
    pub results: HashMap<i64, Results>,
}

impl Batch {
    /// Adds a game: the version at each seat and its record (one JSON line,
    /// without its end of line).
    pub fn push(&mut self, seats: &[i64], record: &[u8]) {
        let mut n = itoa::Buffer::new();
        for (k, v) in seats.iter().enumerate() {
            if k > 0 {
                self.text.push(b',');
            }
            self.text.extend_from_slice(n.format(*v).as_bytes());
        }
        self.text.push(b' ');
        self.text.extend_from_slice(record);
        self.text.push(b'\n');
        self.count += 1;
    }

    /// Counts a game's results: the version at each seat, each seat's score,
    /// and the seats that forfeited.
    pub fn tally(&mut self, seats: &[i64], scores: &[f64], forfeited: impl Iterator<Item = usize>) {
        for (&v, &s) in seats.iter().zip(scores) {
            let r = self.results.entry(v).or_default();
            r.games += 1;
            r.score += s;
        }
        for seat in forfeited {
            if let Some(&v) = seats.get(seat) {
                self.results.entry(v).or_default().forfeits += 1;
            }
        }
    }

    /// Adds a stored game, its results read from its record (slower than
    /// [`Batch::push`] and [`Batch::tally`] from a record in hand).
    pub fn push_stored(&mut self, seats: &[i64], record: &str) {
        self.push(seats, record.as_bytes());
        let (scores, forfeited) = record_results(record);
        self.tally(seats, &scores, forfeited.into_iter());
    }

    /// Its games, compressed as a row of the batches holds them.
    pub fn pack(&self) -> Vec<u8> {
        lz4_flex::compress_prepend_size(&self.text)
    }

    /// Empties it, keeping its memory.
    pub fn clear(&mut self) {
        self.count = 0;
        self.text.clear();
        self.results.clear();
    }
}

/// The largest batch a database may claim to hold once unpacked (a damaged
/// database is refused rather than allowed to ask for gigabytes).
const MAX_BATCH_BYTES: usize = 256 << 20;

/// The games of a stored batch of block `block` whose first game is `first`
/// (what [`pack`] made).
pub fn unpack(block: i64, first: u64, packed: &[u8]) -> Result<Vec<StoredGame>> {
    let bad = |why: String| StoreError::new(format!("block {block}, games from {first}: {why}"));
    let claimed = packed.get(..4).map_or(0, |b| {
        u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize
    });
    if claimed > MAX_BATCH_BYTES {
        return Err(bad(format!("claims {claimed} bytes unpacked")));
    }
    let text = lz4_flex::decompress_size_prepended(packed).map_err(|e| bad(e.to_string()))?;
    let text = String::from_utf8(text).map_err(|e| bad(e.to_string()))?;
    text.lines()
        .enumerate()
        .map(|(k, line)| {
            let (seats, record) = line
                .split_once(' ')
                .ok_or_else(|| bad(format!("game {} unreadable", first + k as u64)))?;
            Ok(StoredGame {
                block,
                index: first + k as u64,
                seats: ids(seats),
                record: record.to_string(),
            })
        })
        .collect()
}

/// The numbers of a comma-separated list (a batch's seats).
pub(super) fn ids(text: &str) -> Vec<i64> {
    text.split(',').filter_map(|s| s.parse().ok()).collect()
}

/// A record's scores, by seat, and the seats that forfeited (nothing of a
/// record that cannot be read: it counts no result).
pub fn record_results(record: &str) -> (Vec<f64>, Vec<usize>) {
    #[derive(serde::Deserialize)]
    struct Forfeit {
        seat: usize,
    }
    #[derive(serde::Deserialize)]
    struct Rec {
        #[serde(default)]
        scores: Vec<f64>,
        #[serde(default)]
        forfeits: Vec<Forfeit>,
    }
    serde_json::from_str::<Rec>(record).map_or_else(
        |_| (Vec::new(), Vec::new()),
        |r| (r.scores, r.forfeits.into_iter().map(|f| f.seat).collect()),
    )
}
