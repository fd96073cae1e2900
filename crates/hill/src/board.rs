//! The standings of a hill's current field: each listed entrant ranked on the
//! games its current version played against the current versions of the others
//! (the only games whose means can be compared), with the tournament's intervals,
//! a multi-player skill rating beside them, head-to-head means, and a mark where
//! a rank is settled.

use crate::store::{Entrant, Status, Store, StoredGame, Version};
use koth_arena::ratings::{Rater, RaterState, Rating};
use koth_arena::records::{ForfeitRecord, NoticeRecord};
use koth_arena::{ChoiceCode, GameRecord, Outcome, PerSeat, Standings};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// A stored record without its choices.
#[derive(serde::Deserialize)]
struct Light {
    index: u64,
    seed: u64,
    seats: PerSeat<usize>,
    outcome: Outcome,
    scores: PerSeat<f64>,
    #[serde(default)]
    decisions: u64,
    #[serde(default)]
    forfeits: Vec<ForfeitRecord>,
    #[serde(default)]
    notices: Vec<NoticeRecord>,
    #[serde(default)]
    places: PerSeat<u8>,
}

/// A stored game's record without its choices (all the standings need).
fn light<C: ChoiceCode + DeserializeOwned>(g: &StoredGame) -> Result<GameRecord<C>, String> {
    let l: Light = serde_json::from_str(&g.record).map_err(|e| {
        format!(
            "game {} of block {}: unreadable record: {e}",
            g.index, g.block
        )
    })?;
    Ok(GameRecord {
        index: l.index,
        seed: l.seed,
        seats: l.seats,
        outcome: l.outcome,
        scores: l.scores,
        decisions: l.decisions,
        forfeits: l.forfeits,
        notices: l.notices,
        places: l.places,
        choices: None,
        log: None,
    })
}

/// The current field's standings, kept up to date game by game.
pub struct Board {
    /// The listed entrants (active and paused), in the order they came.
    pub entrants: Vec<Entrant>,
    /// Listed entrant of each current version.
    slot: HashMap<i64, usize>,
    /// Each listed entrant's current version's number.
    numbers: Vec<i64>,
    /// Means, intervals, head-to-head.
    pub standings: Standings,
    rater: Rater,
    /// Games counted.
    pub games: u64,
}

/// The standings of a field counted up to a point of the store, kept in it so
/// that opening a hill counts only the games stored since ([`Hill::board_at`]).
///
/// [`Hill::board_at`]: crate::Hill::board_at
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Kept {
    /// The listed entrants' names and current versions, in order: the field
    /// they count.
    pub field: Vec<(String, i64)>,
    /// Every stored game before this point (block, game of the block) is counted.
    pub upto: (i64, u64),
    /// Means, intervals, head-to-head.
    pub standings: Standings,
    /// The ratings, bit for bit.
    pub rater: RaterState,
    /// Games counted.
    pub games: u64,
}

/// Where in the store a game is: its block and its number in the block.
pub type Point = (i64, u64);

/// One row of the leaderboard, as the page and `koth hill status` show it.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// 1 for the best.
    pub rank: usize,
    /// The entrant's name.
    pub name: String,
    /// `active` or `paused`.
    pub status: &'static str,
    /// Its current version's number.
    pub version: i64,
    /// Games of the current version counted.
    pub games: u64,
    /// Mean score per game.
    pub mean: f64,
    /// The 95% interval of the mean.
    pub low: f64,
    /// See `low`.
    pub high: f64,
    /// Games won alone, shared, lost, forfeited.
    pub wins: u64,
    /// See `wins`.
    pub draws: u64,
    /// See `wins`.
    pub losses: u64,
    /// See `wins`.
    pub forfeits: u64,
    /// The skill rating's `mu - 3 sigma`.
    pub rating: f64,
    /// Its interval clears both neighbours': the rank will not change with more
    /// games of the same field (at 95% each).
    pub settled: bool,
}

impl Board {
    /// An empty board of the listed entrants among `entrants` (removed ones left
    /// out); `versions` numbers each version.
    pub fn new(entrants: &[Entrant], versions: &[Version]) -> Board {
        let listed: Vec<Entrant> = entrants
            .iter()
            .filter(|e| e.status != Status::Removed)
            .cloned()
            .collect();
        let names: Vec<String> = listed.iter().map(|e| e.name.clone()).collect();
        let number = |v: i64| versions.iter().find(|x| x.id == v).map_or(0, |x| x.number);
        Board {
            numbers: listed.iter().map(|e| number(e.version)).collect(),
            slot: listed
                .iter()
                .enumerate()
                .map(|(i, e)| (e.version, i))
                .collect(),
            standings: Standings::new(&names),
            rater: Rater::new(listed.len()),
            entrants: listed,
            games: 0,
        }
    }

    /// Lists `entrant` (with no games yet, its current version numbered
    /// `number`) after the others, as [`Board::new`] would list an entrant that
    /// came after them.
    pub fn join(&mut self, entrant: Entrant, number: i64) {
        self.slot.insert(entrant.version, self.entrants.len());
        self.numbers.push(number);
        self.standings.push_entrant(&entrant.name);
        self.rater.push_entrant();
        self.entrants.push(entrant);
    }

    /// The listed entrants' names and current versions, in order.
    pub fn field(&self) -> Vec<(String, i64)> {
        self.entrants
            .iter()
            .map(|e| (e.name.clone(), e.version))
            .collect()
    }

    /// What it has counted, to be kept: it must have counted every stored game
    /// before `upto` and none after.
    pub fn kept(&self, upto: Point) -> Kept {
        Kept {
            field: self.field(),
            upto,
            standings: self.standings.clone(),
            rater: self.rater.state(),
            games: self.games,
        }
    }

    /// Takes up `kept` if this board has counted nothing and lists the field
    /// `kept` counted; says whether it did.
    pub fn take(&mut self, kept: &Kept) -> bool {
        let fits = self.games == 0
            && kept.field == self.field()
            && kept.standings.entrants.len() == self.entrants.len()
            && kept.rater.ratings.len() == self.entrants.len();
        if fits {
            self.standings = kept.standings.clone();
            self.rater = Rater::from_state(&kept.rater);
            self.games = kept.games;
        }
        fits
    }

    /// Whether every seat of a game is a current version of a listed entrant.
    pub fn counts(&self, g: &StoredGame) -> bool {
        g.seats.iter().all(|v| self.slot.contains_key(v))
    }

    /// Counts a stored game if it is one of the current field's. Its record is
    /// read only then. An unreadable record is an error naming the game.
    pub fn add<C: ChoiceCode + DeserializeOwned>(
        &mut self,
        g: &StoredGame,
    ) -> Result<bool, String> {
        if !self.counts(g) {
            return Ok(false);
        }
        Ok(self.add_played(&g.seats, &light::<C>(g)?))
    }

    /// Counts every game of `store` from point `from` on (up to `upto`, if
    /// given) that is one of the current field's, in order: `threads` threads
    /// unpack and read the batches, this one counts them (the counting is
    /// sequential: each game moves the ratings). Blocks that cannot hold such a
    /// game (more of their versions gone than seats to spare) are skipped
    /// unread.
    pub fn add_stored<C>(
        &mut self,
        store: &dyn Store,
        threads: usize,
        from: Point,
        upto: Option<Point>,
    ) -> Result<(), String>
    where
        C: ChoiceCode + DeserializeOwned + Send,
    {
        type Read<C> = Result<Vec<(Vec<i64>, GameRecord<C>)>, String>;
        let threads = threads.clamp(1, 16);
        let current: std::collections::HashSet<i64> = self.slot.keys().copied().collect();
        let mut failed = None;
        std::thread::scope(|scope| {
            let mut to_readers = Vec::new();
            let mut from_readers = Vec::new();
            for _ in 0..threads {
                let (tx, rx) = std::sync::mpsc::sync_channel::<(i64, u64, Vec<u8>)>(4);
                let (back, out) = std::sync::mpsc::sync_channel::<Read<C>>(4);
                let current = &current;
                scope.spawn(move || {
                    for (block, first, packed) in rx {
                        let read = crate::store::unpack(block, first, &packed)
                            .map_err(|e| e.0)
                            .and_then(|games| {
                                games
                                    .iter()
                                    .filter(|g| g.seats.iter().all(|v| current.contains(v)))
                                    .map(|g| Ok((g.seats.clone(), light::<C>(g)?)))
                                    .collect()
                            });
                        let bad = read.is_err();
                        if back.send(read).is_err() || bad {
                            break;
                        }
                    }
                });
                to_readers.push(tx);
                from_readers.push(out);
            }
            // The counter takes the batches back in the order they were handed out.
            let counter = scope.spawn(move || {
                let mut k = 0;
                loop {
                    let Ok(read) = from_readers[k % threads].recv() else {
                        return Ok(());
                    };
                    for (seats, rec) in read? {
                        self.add_played(&seats, &rec);
                    }
                    k += 1;
                }
            });
            // A block none of whose tables can be all current versions holds no
            // game that counts: its games are not read at all.
            let could_count = |versions: &[i64], seats: usize| {
                let gone = versions.iter().filter(|v| !current.contains(v)).count();
                gone <= versions.len().saturating_sub(seats)
            };
            let mut k = 0;
            let read = store.each_batch_of(&could_count, from, &mut |block, first, packed| {
                if upto.is_some_and(|u| (block, first) >= u) {
                    return false;
                }
                k += 1;
                to_readers[(k - 1) % threads]
                    .send((block, first, packed))
                    .is_ok()
            });
            drop(to_readers);
            let counted: Result<(), String> = counter.join().unwrap_or_else(|_| {
                Err("the standings could not be counted (a thread panicked)".into())
            });
            failed = read.map_err(|e| e.0).and(counted).err();
        });
        failed.map_or(Ok(()), Err)
    }

    /// Counts a game whose seats hold versions `versions` (its record's seats
    /// index the block's entrants), if every one is current; says whether it did.
    pub fn add_played<C>(&mut self, versions: &[i64], rec: &GameRecord<C>) -> bool {
        let mut slots = koth_arena::PerSeat::<usize>::new();
        for v in versions {
            match self.slot.get(v) {
                Some(&s) => slots.push(s),
                None => return false,
            }
        }
        let at = |seat: usize| slots.get(seat).copied().unwrap_or(0);
        // The record as the board's entrants played it, without its choices.
        let counted = GameRecord::<C> {
            seats: slots.clone(),
            forfeits: rec
                .forfeits
                .iter()
                .map(|f| ForfeitRecord {
                    entrant: at(f.seat),
                    ..f.clone()
                })
                .collect(),
            notices: rec
                .notices
                .iter()
                .map(|n| NoticeRecord {
                    entrant: at(n.seat),
                    ..n.clone()
                })
                .collect(),
            places: rec.places.clone(),
            scores: rec.scores.clone(),
            choices: None,
            log: None,
            ..*rec
        };
        // Deals are not grouped here: a hill's games come from many blocks.
        self.standings.add(&counted);
        self.rater.add(&counted);
        self.games += 1;
        true
    }

    /// Games counted for each listed entrant, by version.
    pub fn games_of(&self, version: i64) -> u64 {
        self.slot
            .get(&version)
            .map_or(0, |&i| self.standings.entrants[i].games())
    }

    /// The ratings, in entrant order.
    pub fn ratings(&self) -> Vec<Rating> {
        let names: Vec<String> = self.entrants.iter().map(|e| e.name.clone()).collect();
        self.rater.ratings(&names)
    }

    /// Whether every active entrant's rank is settled (its interval clears its
    /// neighbours'): more games of the same field would hardly change the order.
    /// False with fewer than two active entrants.
    pub fn settled(&self) -> bool {
        let active = Status::Active.name();
        let rows = self.rows();
        rows.iter().filter(|r| r.status == active).count() >= 2
            && rows.iter().all(|r| r.status != active || r.settled)
    }

    /// The leaderboard, best first.
    pub fn rows(&self) -> Vec<Row> {
        let ranking = self.standings.ranking();
        let ratings = self.ratings();
        let ci: Vec<_> = (0..self.entrants.len())
            .map(|e| self.standings.interval(e))
            .collect();
        let played = |e: usize| self.standings.entrants[e].games() > 0;
        ranking
            .iter()
            .enumerate()
            .map(|(r, &e)| {
                let st = &self.standings.entrants[e];
                let clear = |o: Option<&usize>| match o {
                    Some(&o) if played(o) => ci[o].high < ci[e].low || ci[o].low > ci[e].high,
                    _ => true,
                };
                let above = r.checked_sub(1).and_then(|i| ranking.get(i));
                let below = ranking.get(r + 1);
                Row {
                    rank: r + 1,
                    name: st.name.clone(),
                    status: self.entrants[e].status.name(),
                    version: self.numbers[e],
                    games: st.games(),
                    mean: st.score.mean(),
                    low: ci[e].low,
                    high: ci[e].high,
                    wins: st.wins,
                    draws: st.draws,
                    losses: st.losses,
                    forfeits: st.forfeits,
                    rating: ratings[e].conservative,
                    settled: played(e) && st.games() >= 2 && clear(above) && clear(below),
                }
            })
            .collect()
    }
}
