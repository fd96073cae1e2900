//! The standings of a hill's current field: each listed entrant ranked on the
//! games its current version played against the current versions of the others,
//! by its strength from the opponent-aware model (what it would score against
//! the whole field, whomever it happened to meet), with the model's intervals,
//! the raw mean, a multi-player skill rating, head-to-head means, and a mark
//! where a rank is settled.

use crate::store::{Block, Entrant, Settings, Status, Store, StoredGame, Version};
use koth_arena::model::anytime_z;
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
    /// Deals are played once per rotation of the seats: a deal's games are one
    /// observation for the intervals.
    duplicate: bool,
    /// The two versions each `pair` block was played to tell apart: in a
    /// hill made before [`Settings::as_played`], only their seats count in
    /// the model ([`Board::learn`]).
    pairs: HashMap<i64, [i64; 2]>,
    /// Counts and fits as hills made before [`Settings::as_played`] do.
    legacy: bool,
    /// Blocks whose deals come in groups dealt the same cards (a pair
    /// block's mirrored tables): how many deals a group.
    alike: HashMap<i64, u64>,
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
    /// Strength: the mean score it would get against opponents drawn evenly
    /// from the field, from the standings' model (what it is ranked by).
    pub strength: f64,
    /// Mean score per game, over the opponents it happened to meet.
    pub mean: f64,
    /// The 95% interval of the strength.
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
    /// Its difference from each neighbour clears the hill's boundary
    /// ([`anytime_z`]): two equal bots are marked apart in at most 5% of hills,
    /// however long they run. Never before [`MIN_SETTLED_DEALS`] deals.
    pub settled: bool,
    /// Deals of the current version counted (games under one deal's
    /// rotations count once).
    pub deals: u64,
    /// How it stands against the entrant ranked just above, if any: what its
    /// ✓ rests on.
    pub above: Option<Gap>,
    /// The same against the entrant ranked just below.
    pub below: Option<Gap>,
}

/// What a ✓ between two neighbours rests on: the difference of their
/// strengths, measured from the same games (so it can be sure while their
/// own intervals overlap), and the boundary it must clear.
#[derive(Clone, Debug, Serialize)]
pub struct Gap {
    /// The neighbour's name.
    pub name: String,
    /// This entrant's strength less the neighbour's.
    pub difference: f64,
    /// The difference's standard error.
    pub se: f64,
    /// How many standard errors it must clear: the hill's anytime boundary
    /// ([`anytime_z`]), for a false-✓ rate of at most
    /// [`koth_arena::model::ALPHA`] however often the hill looks.
    pub z: f64,
    /// The difference's interval at that boundary: the pair is told apart
    /// when it leaves out 0.
    pub low: f64,
    /// See `low`.
    pub high: f64,
    /// The interval leaves out 0.
    pub apart: bool,
}

impl Gap {
    /// The gap in words: `+0.021 over bluffer, [+0.006 … +0.036] at 3.4 SE:
    /// apart`.
    pub fn describe(&self, over: &str) -> String {
        format!(
            "{:+.3} {over} {}, [{:+.3} … {:+.3}] at {:.1} SE: {}",
            self.difference,
            self.name,
            self.low,
            self.high,
            self.z,
            if self.apart { "apart" } else { "holds 0" }
        )
    }
}

impl Row {
    /// Why its rank is settled or not, in words: the gap to each neighbour
    /// (measured from the same games, it can clear 0 while the two entrants'
    /// own intervals overlap) and the deals it has.
    pub fn why(&self) -> String {
        let mut parts = Vec::new();
        if self.games > 0 && self.deals < MIN_SETTLED_DEALS {
            parts.push(format!(
                "{} of the {MIN_SETTLED_DEALS} deals a ✓ needs",
                self.deals
            ));
        }
        if let Some(g) = &self.above {
            parts.push(g.describe("against"));
        }
        if let Some(g) = &self.below {
            parts.push(g.describe("over"));
        }
        let head = if self.settled {
            "settled"
        } else {
            "not settled"
        };
        if parts.is_empty() {
            head.to_string()
        } else {
            format!("{head}: {}", parts.join("; "))
        }
    }
}

/// The fewest deals (games, without duplicate play) each of two neighbours
/// must have in the current field before their order can be marked settled:
/// a difference from a few dozen games rests on too little to check the
/// model's assumptions, whatever its error says.
pub const MIN_SETTLED_DEALS: u64 = 100;

impl Board {
    /// An empty board of the listed entrants among `entrants` (removed ones left
    /// out); `versions` numbers each version; `duplicate` says whether the
    /// hill plays each deal once per rotation of the seats.
    pub fn new(entrants: &[Entrant], versions: &[Version], duplicate: bool) -> Board {
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
            duplicate,
            pairs: HashMap::new(),
            legacy: false,
            alike: HashMap::new(),
        }
    }

    /// An empty board of a hill with `settings`: a hill made before
    /// [`Settings::as_played`] counts and fits as it did then, so that its
    /// audit plans every block again as it was planned.
    pub fn for_hill(entrants: &[Entrant], versions: &[Version], settings: &Settings) -> Board {
        let mut b = Board::new(entrants, versions, settings.duplicate);
        b.legacy = !settings.as_played;
        b.standings.model.set_legacy(b.legacy);
        b
    }

    /// Takes note of which blocks were `pair` blocks, and of which two
    /// versions: their games are counted in the model at those two seats only
    /// (the other seats' entrants were drawn to face them, more often than
    /// the field does). Every block whose games are counted must be learnt
    /// first ([`Board::add_stored`] learns them itself).
    pub fn learn(&mut self, blocks: &[Block]) {
        for b in blocks {
            if b.kind == crate::store::BlockKind::Pair && b.versions.len() >= 2 {
                self.pairs.insert(b.id, [b.versions[0], b.versions[1]]);
                let alike = serde_json::from_value::<koth_arena::Schedule>(b.schedule.clone())
                    .map_or(1, |s| s.deals_alike());
                if alike > 1 {
                    self.alike.insert(b.id, alike);
                }
            }
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
        // Kept by a koth before the model: counted again.
        let modelled = kept.standings.model.games() == kept.standings.games;
        let fits = self.games == 0
            && modelled
            && kept.field == self.field()
            && kept.standings.entrants.len() == self.entrants.len()
            && kept.rater.ratings.len() == self.entrants.len();
        if fits {
            self.standings = kept.standings.clone();
            self.standings.model.set_legacy(self.legacy);
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
        Ok(self.add_played(g.block, &g.seats, &light::<C>(g)?))
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
        type Read<C> = Result<Vec<(i64, Vec<i64>, GameRecord<C>)>, String>;
        let threads = threads.clamp(1, 16);
        self.learn(&store.blocks().map_err(|e| e.to_string())?);
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
                            .map_err(|e| e.to_string())
                            .and_then(|games| {
                                games
                                    .iter()
                                    .filter(|g| g.seats.iter().all(|v| current.contains(v)))
                                    .map(|g| Ok((g.block, g.seats.clone(), light::<C>(g)?)))
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
                    for (block, seats, rec) in read? {
                        self.add_played(block, &seats, &rec);
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
            failed = read.map_err(|e| e.to_string()).and(counted).err();
        });
        failed.map_or(Ok(()), Err)
    }

    /// Counts a game of block `block` whose seats hold versions `versions` (its
    /// record's seats index the block's entrants), if every one is current;
    /// says whether it did.
    pub fn add_played<C>(&mut self, block: i64, versions: &[i64], rec: &GameRecord<C>) -> bool {
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
        // A deal's rotations are the block's games k·j .. k·j + k − 1.
        let k = if self.duplicate {
            rec.seats.len() as u64
        } else {
            1
        };
        // A pair block's mirrored tables dealt alike are one deal: the
        // luck of the cards is common to both, and so is its error.
        let k = match self.alike.get(&block) {
            Some(&g) if self.duplicate => k * g,
            _ => k,
        };
        let deal = (k > 1).then(|| (((block as u64) << 32) | (rec.index / k), k));
        // Every seat counts: the model's design-based part takes out how often
        // a block drew a set of opponents. (Hills made before counted a pair
        // block at the first seat of the pair's, the first mover's.)
        let only = self
            .pairs
            .get(&block)
            .filter(|_| self.legacy)
            .and_then(|pair| versions.iter().position(|v| pair.contains(v)));
        self.standings.add_focused(&counted, deal, only);
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

    /// Whether every active entrant's rank is settled (its difference from each
    /// neighbour clears the boundary): more games would hardly change the order.
    /// False with fewer than two active entrants.
    pub fn settled(&self) -> bool {
        let active = Status::Active.name();
        let rows = self.rows();
        rows.iter().filter(|r| r.status == active).count() >= 2
            && rows.iter().all(|r| r.status != active || r.settled)
    }

    /// The leaderboard, best first.
    pub fn rows(&self) -> Vec<Row> {
        let s = &self.standings;
        let ranking = s.ranking();
        let ratings = self.ratings();
        let ci: Vec<_> = (0..self.entrants.len()).map(|e| s.interval(e)).collect();
        let played = |e: usize| s.entrants[e].games() > 0;
        let (lo, hi) = s.score_range();
        let rotations = if self.duplicate {
            self.standings.model.usual_table().max(1) as u64
        } else {
            1
        };
        let deals = |e: usize| s.entrants[e].games() / rotations;
        // Told apart from `o`, at a boundary no difference of zero ever clears
        // but 5% of the time, however often the hill looks.
        let gap = |e: usize, o: Option<&usize>| -> Option<Gap> {
            let &o = o?;
            if !played(o) || !played(e) {
                return None;
            }
            let (d, se) = s.difference(e, o)?;
            let z = anytime_z(se, hi - lo);
            Some(Gap {
                name: s.entrants[o].name.clone(),
                difference: d,
                se,
                z,
                low: d - z * se,
                high: d + z * se,
                apart: d.abs() > z * se,
            })
        };
        let apart = |o: Option<&usize>, g: &Option<Gap>| match o {
            Some(&o) if played(o) => {
                g.as_ref().is_some_and(|g| g.apart) && deals(o) >= MIN_SETTLED_DEALS
            }
            _ => true,
        };
        ranking
            .iter()
            .enumerate()
            .map(|(r, &e)| {
                let st = &s.entrants[e];
                let above = r.checked_sub(1).and_then(|i| ranking.get(i));
                let below = ranking.get(r + 1);
                let (up, down) = (gap(e, above), gap(e, below));
                let settled = played(e)
                    && st.games() >= 2
                    && deals(e) >= MIN_SETTLED_DEALS
                    && apart(above, &up)
                    && apart(below, &down);
                Row {
                    rank: r + 1,
                    name: st.name.clone(),
                    status: self.entrants[e].status.name(),
                    version: self.numbers[e],
                    games: st.games(),
                    strength: s.strength(e),
                    mean: st.score.mean(),
                    low: ci[e].low,
                    high: ci[e].high,
                    wins: st.wins,
                    draws: st.draws,
                    losses: st.losses,
                    forfeits: st.forfeits,
                    rating: ratings[e].conservative,
                    settled,
                    deals: deals(e),
                    above: up,
                    below: down,
                }
            })
            .collect()
    }
}
