//! The batch format: a block's games stored together, one row of the database
//! a batch rather than one a game (a tenth of the bytes).

use super::{Result, Results, StoreError, StoredGame};
use koth_arena::GameLog;
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
    /// Its games' decision logs ([`Batch::push_log`]), one JSON line a game
    /// that has one, and how many.
    logs: Vec<u8>,
    /// Games in it with a log.
    pub logged: u64,
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

    /// Adds the decision log of game `index` of the block (what its programs
    /// wrote to stderr at each decision and how long each took), if it has
    /// one: kept beside the games, not in their records, which stay the same
    /// however the games were played. One JSON line a game,
    /// `{"game":K,"t":[…],"lines":[…]}`: its times as three numbers each (the
    /// choices applied since the time before, the seat doubled plus one if the
    /// time is a bound, the microseconds), two fifths of the bytes of
    /// [`Took`]'s arrays, before compression and after.
    ///
    /// [`Took`]: koth_arena::Took
    pub fn push_log(&mut self, index: u64, log: &GameLog) {
        if log.lines.is_empty() && log.times.is_empty() {
            return;
        }
        let mut n = itoa::Buffer::new();
        self.logs.extend_from_slice(b"{\"game\":");
        self.logs.extend_from_slice(n.format(index).as_bytes());
        self.logs.extend_from_slice(b",\"t\":[");
        let mut last = 0;
        for (k, t) in log.times.iter().enumerate() {
            if k > 0 {
                self.logs.push(b',');
            }
            // Times are kept in the order asked: `at` never goes down.
            self.logs
                .extend_from_slice(n.format(t.0.saturating_sub(last)).as_bytes());
            last = t.0;
            self.logs.push(b',');
            self.logs
                .extend_from_slice(n.format(t.1 * 2 + usize::from(t.3)).as_bytes());
            self.logs.push(b',');
            self.logs.extend_from_slice(n.format(t.2).as_bytes());
        }
        self.logs.push(b']');
        if !log.lines.is_empty() {
            self.logs.extend_from_slice(b",\"lines\":");
            serde_json::to_writer(&mut self.logs, &log.lines).expect("a log serializes");
        }
        self.logs.extend_from_slice(b"}\n");
        self.logged += 1;
    }

    /// Its games' decision logs, compressed as a row of the logs holds them
    /// (`None` when no game of it has one): zlib at its fastest level, not LZ4
    /// as the games, for their times are numbers LZ4 hardly shrinks. A game of
    /// the SDK's Python bot against a built-in takes 570 bytes so, against
    /// 1,560 with LZ4 and [`Took`]'s arrays (and 870 with zlib's default level,
    /// ten times slower).
    ///
    /// [`Took`]: koth_arena::Took
    pub fn pack_logs(&self) -> Option<Vec<u8>> {
        use std::io::Write;
        if self.logged == 0 {
            return None;
        }
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        z.write_all(&self.logs).expect("writing to memory");
        Some(z.finish().expect("writing to memory"))
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
        self.logs.clear();
        self.logged = 0;
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

/// The decision log of game `index` in a stored row of logs of block `block`
/// (what [`Batch::pack_logs`] made), if it has one.
pub fn unpack_log(block: i64, index: u64, packed: &[u8]) -> Result<Option<GameLog>> {
    use std::io::Read;
    let bad =
        |why: String| StoreError::new(format!("block {block}, the logs of game {index}: {why}"));
    let mut text = Vec::new();
    flate2::read::ZlibDecoder::new(packed)
        .take(MAX_BATCH_BYTES as u64 + 1)
        .read_to_end(&mut text)
        .map_err(|e| bad(e.to_string()))?;
    if text.len() > MAX_BATCH_BYTES {
        return Err(bad(format!("more than {MAX_BATCH_BYTES} bytes unpacked")));
    }
    #[derive(serde::Deserialize)]
    struct Line {
        game: u64,
        #[serde(default)]
        t: Vec<u64>,
        #[serde(default)]
        lines: Vec<koth_arena::NoticeRecord>,
    }
    for line in text.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let l: Line = serde_json::from_slice(line).map_err(|e| bad(e.to_string()))?;
        if l.game != index {
            continue;
        }
        if !l.t.len().is_multiple_of(3) {
            return Err(bad(format!("{} numbers of times, not threes", l.t.len())));
        }
        let mut at = 0u64;
        let times =
            l.t.chunks_exact(3)
                .map(|c| {
                    at += c[0];
                    koth_arena::Took(
                        at,
                        (c[1] / 2) as usize,
                        u32::try_from(c[2]).unwrap_or(u32::MAX),
                        c[1] % 2 == 1,
                    )
                })
                .collect();
        return Ok(Some(GameLog {
            lines: l.lines,
            times,
        }));
    }
    Ok(None)
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
