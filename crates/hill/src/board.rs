//! The standings of a hill's current field: each listed entrant ranked on the
//! games its current version played against the current versions of the others
//! (the only games whose means can be compared), with the tournament's intervals,
//! a multi-player skill rating beside them, head-to-head means, and a mark where
//! a rank is settled.

use crate::store::{Entrant, Status, StoredGame, Version};
use koth_arena::ratings::{Rater, Rating};
use koth_arena::records::{ForfeitRecord, NoticeRecord};
use koth_arena::{ChoiceCode, GameRecord, Outcome, PerSeat, Standings};
use serde::de::DeserializeOwned;
use serde::Serialize;
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
        // Everything but the choices, which the standings do not need.
        let l: Light = serde_json::from_str(&g.record).map_err(|e| {
            format!(
                "game {} of block {}: unreadable record: {e}",
                g.index, g.block
            )
        })?;
        let mut rec = GameRecord::<C> {
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
        };
        self.add_record(g, &mut rec);
        Ok(true)
    }

    /// [`Board::add`] with the record already read: its seats are turned from the
    /// block's entrants into the board's.
    pub fn add_record<C>(&mut self, g: &StoredGame, rec: &mut GameRecord<C>) {
        let Some(slots) = g
            .seats
            .iter()
            .map(|v| self.slot.get(v).copied())
            .collect::<Option<Vec<usize>>>()
        else {
            return;
        };
        for (seat, e) in rec.seats.iter_mut().enumerate() {
            *e = slots[seat];
        }
        for f in &mut rec.forfeits {
            f.entrant = slots.get(f.seat).copied().unwrap_or(0);
        }
        for n in &mut rec.notices {
            n.entrant = slots.get(n.seat).copied().unwrap_or(0);
        }
        // Deals are not grouped here: a hill's games come from many blocks.
        self.standings.add(rec);
        self.rater.add(rec);
        self.games += 1;
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
