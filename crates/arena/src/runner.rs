//! Playing games: one game with a set of agents, or a whole tournament on every core.
//!
//! Results are deterministic for any thread count: game `i` depends only on
//! (master seed, `i`), games are grouped in fixed chunks whose size depends only
//! on the number of games, and chunk results are merged in chunk order.

use crate::game::{Ending, Game, Notice, Outcome, Seat, SeatSet};
use crate::rng::GameSeeds;
use crate::schedule::Schedule;
use crate::scoring::{result_of, Result3, Scoring};
use crate::stats::Sample;
use serde::{Deserialize, Serialize};
pub use smallvec::{smallvec, SmallVec};
use std::collections::BTreeMap;
use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

/// Why a bot lost a game by misbehaving.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fault {
    /// A short reason, e.g. `timeout after 1000 ms` or `illegal choice "Tax"`.
    pub reason: String,
    /// The last lines the bot wrote to stderr, when it is a program.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr_tail: Option<String>,
    /// The answer was well formed but not legal: under a penalty rule
    /// ([`Game::penalize`]) it costs an influence instead of the game.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub illegal: bool,
    /// The illegal answer's code ([`crate::ChoiceCode`]), when it has one: a penalty
    /// rule may make the attempt public ([`Game::penalize_tried`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tried: Option<u8>,
}

impl Fault {
    /// A fault with a reason and no stderr.
    pub fn new(reason: impl Into<String>) -> Self {
        Fault {
            reason: reason.into(),
            stderr_tail: None,
            illegal: false,
            tried: None,
        }
    }

    /// A well-formed but illegal answer (see [`Fault::illegal`]).
    pub fn illegal_choice(reason: impl Into<String>) -> Self {
        Fault {
            illegal: true,
            ..Fault::new(reason)
        }
    }
}

/// Something that makes decisions for one seat: the adapter between a game and a
/// bot (in-process, external program, person). Adapters are trusted code: they
/// get the whole state and must show their bot only that seat's view.
pub trait Agent<G: Game>: Send {
    /// The names of the coming game's seats, in seat order (called before `start`;
    /// protocols pass them on so bots can tell their opponents apart).
    fn seat_names(&mut self, _names: &[&str]) {}

    /// A game begins; `seed` is this seat's own random stream for the game, for the
    /// bot's own randomness: it is independent of the deal and of the other seats'
    /// streams ([`crate::GameSeeds`]).
    fn start(&mut self, _game: &G, _seat: Seat, _seed: u64) -> Result<(), Fault> {
        Ok(())
    }
    /// Chooses one of `legal` for `seat`, the seat to move. An agent whose
    /// [`Agent::wants_legal`] is `false` may be given an empty `legal` by the
    /// tournament runner, and must then work out its choice from the game.
    fn decide(&mut self, game: &G, seat: Seat, legal: &[G::Choice]) -> Result<G::Choice, Fault>;
    /// Whether [`Agent::decide`] reads `legal` (asked once a game). An agent that
    /// works its choices out from the game says `false`, and the runner then skips
    /// listing them for it (a turn's list is a sixth of a Coup game's work).
    fn wants_legal(&self) -> bool {
        true
    }
    /// The game is over (normally or not).
    fn finish(&mut self, _game: &G, _seat: Seat) {}
    /// A stop the bot asked for with its last answer (coup-cli's "STOP" in its log):
    /// the run ends after the games under way, and the game is shown. Taken once.
    fn take_stop(&mut self) -> Option<String> {
        None
    }
    /// The lines the bot logged (a program's stderr) since the last call, for showing
    /// them as they come (`koth coup play`); `None` for bots without a log.
    fn take_log(&mut self) -> Option<String> {
        None
    }
}

/// Makes a fresh agent for one parallel slot (`slot` is the worker's number).
pub type AgentFactory<G> = Arc<dyn Fn(usize) -> Result<Box<dyn Agent<G>>, String> + Send + Sync>;

/// An agent that plays several games at once, each on its own numbered *table*
/// (0, 1, ...): a program that takes the requests of many games in one write and
/// answers them in one read, so a pipe's round trip is paid once for them all.
///
/// A worker keeps up to [`MultiAgent::tables`] games going and, on each round, asks
/// every game's pending decision ([`MultiAgent::request`]), sends the requests
/// ([`MultiAgent::flush`]), then takes the answers ([`MultiAgent::answer`]) in the
/// order it asked for them. Adapters are trusted code, as for [`Agent`].
pub trait MultiAgent<G: Game>: Send {
    /// How many games it can play at once (it may start its program to learn it).
    fn tables(&mut self) -> usize;
    /// The names of the seats of the game coming on `table`.
    fn seat_names(&mut self, _table: usize, _names: &[&str]) {}
    /// A game begins on `table` (see [`Agent::start`]).
    fn start(&mut self, table: usize, game: &G, seat: Seat, seed: u64) -> Result<(), Fault>;
    /// Asks for a choice among `legal` for `seat` of the game on `table`.
    fn request(&mut self, table: usize, game: &G, seat: Seat, legal: &[G::Choice]);
    /// Sends what was asked since the last flush.
    fn flush(&mut self);
    /// The answer to the oldest request not yet answered, which was for `table`.
    fn answer(&mut self, table: usize, legal: &[G::Choice]) -> Result<G::Choice, Fault>;
    /// The game on `table` is over.
    fn finish(&mut self, _table: usize, _game: &G, _seat: Seat) {}
    /// A stop asked with the last answer for `table` (see [`Agent::take_stop`]).
    fn take_stop(&mut self, _table: usize) -> Option<String> {
        None
    }
}

/// Makes a [`MultiAgent`] for one parallel slot (`slot` is the worker's number).
pub type MultiFactory<G> =
    Arc<dyn Fn(usize) -> Result<Box<dyn MultiAgent<G>>, String> + Send + Sync>;

/// A named entrant of a tournament.
pub struct Entrant<G: Game> {
    /// The name shown in standings (unique within a tournament).
    pub name: String,
    /// Makes the entrant's agent for a worker.
    pub factory: AgentFactory<G>,
    /// Makes an agent that plays several games at once, when the entrant has one
    /// (a program that can multiplex games): a tournament with such an entrant keeps
    /// as many games going on each worker as all of them can take.
    pub multi: Option<MultiFactory<G>>,
}

impl<G: Game> Clone for Entrant<G> {
    fn clone(&self) -> Self {
        Entrant {
            name: self.name.clone(),
            factory: self.factory.clone(),
            multi: self.multi.clone(),
        }
    }
}

impl<G: Game> Entrant<G> {
    /// An entrant from a closure building its agent.
    pub fn new<F>(name: impl Into<String>, make: F) -> Self
    where
        F: Fn(usize) -> Result<Box<dyn Agent<G>>, String> + Send + Sync + 'static,
    {
        Entrant {
            name: name.into(),
            factory: Arc::new(make),
            multi: None,
        }
    }

    /// The same entrant, also able to play several games at once through `make`.
    pub fn with_multi<F>(mut self, make: F) -> Self
    where
        F: Fn(usize) -> Result<Box<dyn MultiAgent<G>>, String> + Send + Sync + 'static,
    {
        self.multi = Some(Arc::new(make));
        self
    }
}

/// De-duplicates names the way seed 003 does: `honest`, `honest 2`, `honest 3`.
///
/// ```
/// let names = koth_arena::runner::dedup_names(&["honest", "static", "honest"]);
/// assert_eq!(names, ["honest", "static", "honest 2"]);
/// ```
pub fn dedup_names<S: AsRef<str>>(names: &[S]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(names.len());
    for n in names {
        let base = n.as_ref();
        let mut name = base.to_string();
        let mut k = 2;
        while out.contains(&name) {
            name = format!("{base} {k}");
            k += 1;
        }
        out.push(name);
    }
    out
}

/// How much of every game a run keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RecordLevel {
    /// No per-game records, only standings.
    #[default]
    None,
    /// Results: seats, winners, scores, forfeits.
    Results,
    /// Results and every choice, so the game can be replayed.
    Full,
}

/// A forfeit, as recorded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ForfeitRecord {
    /// The seat that forfeited.
    pub seat: Seat,
    /// How many choices had been applied when it happened (for replays).
    #[serde(default)]
    pub at: u64,
    /// The entrant at that seat.
    pub entrant: usize,
    /// The reason and the program's stderr tail.
    pub fault: Fault,
}

/// What a record keeps beside forfeits: a penalty the rules applied for an illegal
/// answer, or a warning about an answer accepted leniently.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoticeRecord {
    /// The seat concerned.
    pub seat: Seat,
    /// How many choices had been applied when it happened (for replays).
    pub at: u64,
    /// The entrant at that seat.
    pub entrant: usize,
    /// `penalty` or `warning`.
    pub kind: NoticeKind,
    /// What happened.
    pub text: String,
    /// What the bot really wrote, when the game needs it to replay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<String>,
    /// A penalty's illegal answer, by its code, when the game made it public.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tried: Option<u8>,
}

/// The kind of a [`NoticeRecord`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NoticeKind {
    /// An illegal answer cost the seat an influence; the game went on.
    Penalty,
    /// An answer was accepted as the original system accepts it, not as written.
    Warning,
    /// The bot asked to stop the run after this game (a debugging aid).
    Stop,
}

/// One value a seat, kept inline up to [`MAX_SEATS`](crate::MAX_SEATS) seats (a
/// record costs no allocation for them); it derefs to a slice, and serialises as a
/// JSON list.
pub type PerSeat<T> = SmallVec<[T; crate::game::MAX_SEATS]>;

/// One finished game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound(
    serialize = "C: Serialize + crate::code::ChoiceCode",
    deserialize = "C: serde::de::DeserializeOwned + crate::code::ChoiceCode"
))]
pub struct GameRecord<C> {
    /// The game's number in the tournament.
    pub index: u64,
    /// The seed the game was played with.
    pub seed: u64,
    /// Entrant at each seat.
    pub seats: PerSeat<usize>,
    /// How it ended.
    pub outcome: Outcome,
    /// Score of each seat.
    pub scores: PerSeat<f64>,
    /// Decisions asked of the bots.
    #[serde(default)]
    pub decisions: u64,
    /// Forfeits, in the order they happened.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forfeits: Vec<ForfeitRecord>,
    /// Penalties and warnings, in the order they happened.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<NoticeRecord>,
    /// Each seat's place (1 = won; then from the last out to the first out), when
    /// the game knows more than who won: Coup's elimination order.
    #[serde(default, skip_serializing_if = "SmallVec::is_empty")]
    pub places: PerSeat<u8>,
    /// Every choice made, in order (with [`RecordLevel::Full`]); written as one
    /// character a choice ([`crate::code`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choices: Option<crate::code::Choices<C>>,
}

impl<C: Serialize + crate::code::ChoiceCode> GameRecord<C> {
    /// Appends the record as one JSON line, newline included: the bytes
    /// `serde_json` writes, faster (records are written on the hot path of a run).
    ///
    /// ```
    /// # use koth_arena::runner::GameRecord;
    /// # use koth_arena::{smallvec, Ending, Outcome, SeatSet};
    /// let r = GameRecord::<u8> {
    ///     index: 3, seed: 9, seats: smallvec![1, 0],
    ///     outcome: Outcome { winners: SeatSet(1), ending: Ending::Decided, turns: 4 },
    ///     scores: smallvec![1.0, -1.0], decisions: 5, forfeits: vec![], notices: vec![],
    ///     places: smallvec![], choices: Some(vec![0, 1, 2].into()),
    /// };
    /// let mut line = Vec::new();
    /// r.write_json_line(&mut line);
    /// assert_eq!(line, [serde_json::to_vec(&r).unwrap(), b"\n".to_vec()].concat());
    /// ```
    pub fn write_json_line(&self, out: &mut Vec<u8>) {
        let mut n = itoa::Buffer::new();
        out.extend_from_slice(b"{\"index\":");
        out.extend_from_slice(n.format(self.index).as_bytes());
        out.extend_from_slice(b",\"seed\":");
        out.extend_from_slice(n.format(self.seed).as_bytes());
        out.extend_from_slice(b",\"seats\":");
        write_ints(out, &mut n, &self.seats);
        out.extend_from_slice(b",\"outcome\":{\"winners\":");
        out.extend_from_slice(n.format(self.outcome.winners.0).as_bytes());
        out.extend_from_slice(match self.outcome.ending {
            Ending::Decided => b",\"ending\":\"decided\",\"turns\":".as_slice(),
            Ending::TurnCap => b",\"ending\":\"turn_cap\",\"turns\":",
            Ending::Adjudicated => b",\"ending\":\"adjudicated\",\"turns\":",
        });
        out.extend_from_slice(n.format(self.outcome.turns).as_bytes());
        out.extend_from_slice(b"},\"scores\":[");
        for (i, s) in self.scores.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            write_score(out, *s);
        }
        out.extend_from_slice(b"],\"decisions\":");
        out.extend_from_slice(n.format(self.decisions).as_bytes());
        // Rare, and holding free text: left to serde_json.
        if !self.forfeits.is_empty() {
            out.extend_from_slice(b",\"forfeits\":");
            serde_json::to_writer(&mut *out, &self.forfeits).expect("forfeits serialize");
        }
        if !self.notices.is_empty() {
            out.extend_from_slice(b",\"notices\":");
            serde_json::to_writer(&mut *out, &self.notices).expect("notices serialize");
        }
        if !self.places.is_empty() {
            out.extend_from_slice(b",\"places\":");
            write_ints(out, &mut n, &self.places);
        }
        if let Some(choices) = &self.choices {
            out.extend_from_slice(b",\"choices\":");
            match choices.code_bytes() {
                // Coded during play: the characters as they are.
                Some(codes) => {
                    out.push(b'"');
                    out.extend_from_slice(codes);
                    out.push(b'"');
                }
                None => serde_json::to_writer(&mut *out, choices).expect("choices serialize"),
            }
        }
        out.extend_from_slice(b"}\n");
    }
}

/// Appends a score as serde_json writes it. A run's scores take a few values (a
/// zero-sum game's winner and losers), so the worker keeps the text of the last
/// few rather than formatting every one.
#[inline]
fn write_score(out: &mut Vec<u8>, s: f64) {
    /// (bits, text length, text): the longest f64 text is 24 bytes.
    type Slot = (u64, u8, [u8; 24]);
    thread_local! {
        static KNOWN: std::cell::RefCell<([Slot; 4], usize)> =
            const { std::cell::RefCell::new(([(0, 0, [0; 24]); 4], 0)) };
    }
    KNOWN.with_borrow_mut(|(slots, next)| {
        let bits = s.to_bits();
        if let Some((_, len, text)) = slots.iter().find(|(b, len, _)| *len > 0 && *b == bits) {
            out.extend_from_slice(&text[..*len as usize]);
            return;
        }
        let at = out.len();
        // serde_json's own float formatting, so both writers agree.
        serde_json::to_writer(&mut *out, &s).expect("a number serializes");
        let len = out.len() - at;
        if len <= 24 {
            let mut text = [0; 24];
            text[..len].copy_from_slice(&out[at..]);
            slots[*next] = (bits, len as u8, text);
            *next = (*next + 1) % slots.len();
        }
    })
}

/// Appends `items` as a JSON list of integers.
fn write_ints<T: itoa::Integer + Copy + TryInto<u8>>(
    out: &mut Vec<u8>,
    n: &mut itoa::Buffer,
    items: &[T],
) {
    out.push(b'[');
    for (i, &x) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        // Seats and places are mostly one digit: spare itoa and a copy.
        match x.try_into() {
            Ok(d) if d < 10 => out.push(b'0' + d),
            _ => out.extend_from_slice(n.format(x).as_bytes()),
        }
    }
    out.push(b']');
}

/// Numbers for one entrant.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EntrantStats {
    /// The entrant's name.
    pub name: String,
    /// Score per game.
    pub score: Sample,
    /// Games won alone.
    pub wins: u64,
    /// Games shared with other winners, or won by nobody.
    pub draws: u64,
    /// Games someone else won.
    pub losses: u64,
    /// Games forfeited.
    pub forfeits: u64,
    /// Illegal answers penalised (under a penalty rule).
    #[serde(default)]
    pub penalties: u64,
    /// Answers accepted leniently, with a warning.
    #[serde(default)]
    pub warnings: u64,
}

impl EntrantStats {
    /// Games played.
    pub fn games(&self) -> u64 {
        self.score.n
    }
}

/// Standings of a tournament so far.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Standings {
    /// Per entrant, in entrant order.
    pub entrants: Vec<EntrantStats>,
    /// `pair[a * n + b]`: a's score in the games where a and b sat together.
    pub pair: Vec<Sample>,
    /// Games counted.
    pub games: u64,
    /// Decisions made in those games.
    pub decisions: u64,
    /// The lowest and highest score any seat got, widened to include 0 and 1 (in
    /// units of 1/[`crate::stats::SCALE`]): the range intervals are kept within.
    #[serde(default = "default_range")]
    pub range: [i64; 2],
    /// With duplicate play: each entrant's total score per deal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deals: Option<Deals>,
}

/// Scores per deal under duplicate play: a deal is played by the same entrants
/// once in each rotation of the seats; an entrant's total over those games is one
/// observation, with the luck of the cards taken out.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Deals {
    /// Games per deal (the table size).
    pub rotations: u64,
    /// Per entrant, one observation per complete deal: its total score over the
    /// deal's rotations.
    pub totals: Vec<Sample>,
    /// Deals not yet complete: deal number → (games seen, total per entrant).
    #[serde(skip)]
    open: BTreeMap<u64, (u64, Vec<(usize, i64)>)>,
}

impl Deals {
    fn add(&mut self, deal: u64, games: u64, scores: impl IntoIterator<Item = (usize, i64)>) {
        let k = self.rotations;
        let entry = self.open.entry(deal).or_insert_with(|| (0, Vec::new()));
        entry.0 += games;
        for (e, q) in scores {
            match entry.1.iter_mut().find(|(x, _)| *x == e) {
                Some(slot) => slot.1 += q,
                None => entry.1.push((e, q)),
            }
        }
        if entry.0 >= k {
            let (_, totals) = self.open.remove(&deal).expect("just inserted");
            for (e, q) in totals {
                self.totals[e].add_quantized(q);
            }
        }
    }
}

fn default_range() -> [i64; 2] {
    [0, crate::stats::SCALE as i64]
}

impl Standings {
    /// Empty standings for entrants with these names.
    pub fn new(names: &[String]) -> Self {
        let n = names.len();
        Standings {
            entrants: names
                .iter()
                .map(|name| EntrantStats {
                    name: name.clone(),
                    ..Default::default()
                })
                .collect(),
            pair: vec![Sample::default(); n * n],
            games: 0,
            decisions: 0,
            range: default_range(),
            deals: None,
        }
    }

    /// Empty standings for a run of `schedule` (grouped by deal under duplicate play).
    pub fn for_run(names: &[String], schedule: &Schedule, duplicate: bool) -> Self {
        if duplicate {
            Standings::duplicate(names, schedule.table(names.len()))
        } else {
            Standings::new(names)
        }
    }

    /// Empty standings for a duplicate-play run with `rotations` games per deal.
    pub fn duplicate(names: &[String], rotations: usize) -> Self {
        Standings {
            deals: Some(Deals {
                rotations: rotations.max(1) as u64,
                totals: vec![Sample::default(); names.len()],
                open: BTreeMap::new(),
            }),
            ..Standings::new(names)
        }
    }

    /// Counts one game.
    pub fn add<C>(&mut self, rec: &GameRecord<C>) {
        let n = self.entrants.len();
        self.games += 1;
        self.decisions += rec.decisions;
        // Quantize each seat's score once; the pair matrix reuses it.
        let mut q = [0i64; crate::game::MAX_SEATS];
        for (seat, &score) in rec.scores.iter().enumerate().take(crate::game::MAX_SEATS) {
            q[seat] = crate::stats::quantize(score);
            self.range[0] = self.range[0].min(q[seat]);
            self.range[1] = self.range[1].max(q[seat]);
        }
        for (seat, &e) in rec.seats.iter().enumerate() {
            let st = &mut self.entrants[e];
            st.score.add_quantized(q[seat]);
            match result_of(rec.outcome.winners, seat) {
                Result3::Win => st.wins += 1,
                Result3::Draw => st.draws += 1,
                Result3::Loss => st.losses += 1,
            }
            for &other in &rec.seats {
                if other != e {
                    self.pair[e * n + other].add_quantized(q[seat]);
                }
            }
        }
        if let Some(d) = self.deals.as_mut() {
            let scores = rec.seats.iter().enumerate().map(|(s, &e)| (e, q[s]));
            d.add(rec.index / d.rotations, 1, scores);
        }
        for f in &rec.forfeits {
            self.entrants[f.entrant].forfeits += 1;
        }
        for n in &rec.notices {
            let st = &mut self.entrants[n.entrant];
            match n.kind {
                NoticeKind::Penalty => st.penalties += 1,
                NoticeKind::Warning => st.warnings += 1,
                NoticeKind::Stop => {}
            }
        }
    }

    /// Adds another partial standings of the same entrants.
    pub fn merge(&mut self, other: &Standings) {
        self.games += other.games;
        self.decisions += other.decisions;
        self.range[0] = self.range[0].min(other.range[0]);
        self.range[1] = self.range[1].max(other.range[1]);
        for (a, b) in self.entrants.iter_mut().zip(&other.entrants) {
            a.score.merge(&b.score);
            a.wins += b.wins;
            a.draws += b.draws;
            a.losses += b.losses;
            a.forfeits += b.forfeits;
            a.penalties += b.penalties;
            a.warnings += b.warnings;
        }
        for (a, b) in self.pair.iter_mut().zip(&other.pair) {
            a.merge(b);
        }
        if let (Some(a), Some(b)) = (self.deals.as_mut(), other.deals.as_ref()) {
            for (x, y) in a.totals.iter_mut().zip(&b.totals) {
                x.merge(y);
            }
            for (&deal, (games, scores)) in &b.open {
                a.add(deal, *games, scores.iter().copied());
            }
        }
    }

    /// The range scores lie in, as `(lowest, highest)`.
    pub fn score_range(&self) -> (f64, f64) {
        let scale = crate::stats::SCALE as f64;
        (self.range[0] as f64 / scale, self.range[1] as f64 / scale)
    }

    /// The 95% interval of entrant `e`'s mean score ([`Sample::interval`] within
    /// [`Standings::score_range`]).
    ///
    /// Under duplicate play with two complete deals or more, the interval is taken
    /// over the entrant's deal totals (divided by the rotations), which is what
    /// makes it narrower: games of one deal are not independent.
    pub fn interval(&self, e: usize) -> crate::stats::Interval {
        let (lo, hi) = self.score_range();
        if let Some(d) = &self.deals {
            let t = &d.totals[e];
            if t.n >= 2 {
                let k = d.rotations as f64;
                let ci = t.interval(k * lo, k * hi);
                return crate::stats::Interval {
                    low: ci.low / k,
                    high: ci.high / k,
                };
            }
        }
        self.entrants[e].score.interval(lo, hi)
    }

    /// Entrant indices, best first: by mean score per game (bots that played fewer
    /// games are not ranked down for it), then by the interval's lower bound, games
    /// played and name. Entrants without a game come last.
    pub fn ranking(&self) -> Vec<usize> {
        let lows: Vec<f64> = (0..self.entrants.len())
            .map(|e| self.interval(e).low)
            .collect();
        let mut idx: Vec<usize> = (0..self.entrants.len()).collect();
        idx.sort_by(|&a, &b| {
            let (x, y) = (&self.entrants[a], &self.entrants[b]);
            (y.games() > 0)
                .cmp(&(x.games() > 0))
                .then(y.score.mean().total_cmp(&x.score.mean()))
                .then(lows[b].total_cmp(&lows[a]))
                .then(y.games().cmp(&x.games()))
                .then(x.name.cmp(&y.name))
        });
        idx
    }
}

/// Plays one game to its end with one agent per seat and returns its record and
/// the number of decisions made. `game` must have been dealt from `seeds.deal`;
/// each agent is given its own seat's stream of `seeds` and nothing else random. Agents that fail, panic or answer an illegal
/// choice forfeit; the game goes on without them.
#[allow(clippy::too_many_arguments)] // each is one fact about the game; a struct would only rename them
pub fn play_game<G: Game>(
    game: &mut G,
    agents: &mut [&mut dyn Agent<G>],
    entrants: &[usize],
    index: u64,
    seeds: GameSeeds,
    scoring: Scoring,
    level: RecordLevel,
    legal: &mut Vec<G::Choice>,
) -> (GameRecord<G::Choice>, u64) {
    let mut sheet = Sheet::new(level);
    for (seat, agent) in agents.iter_mut().enumerate() {
        let r = catch_unwind(AssertUnwindSafe(|| {
            agent.start(game, seat, seeds.seat(seat))
        }));
        if let Some(fault) = fault_of(r) {
            sheet.forfeit_at_start(game, seat, entrants[seat], fault);
        }
    }
    // Seats whose agents read the legal list (asked once a game).
    let mut listed = [true; crate::game::MAX_SEATS];
    for (l, agent) in listed.iter_mut().zip(agents.iter()) {
        *l = agent.wants_legal();
    }
    while let Some(seat) = game.to_move() {
        legal.clear();
        let list = listed.get(seat).copied().unwrap_or(true);
        if list {
            game.legal_choices(legal);
        }
        sheet.decisions += 1;
        let agent = &mut agents[seat];
        // One unwind guard for the answer and any stop asked with it (a guard a
        // game measured no faster); the stop is kept aside so the (large) answer
        // is not moved again.
        let mut stop = None;
        let answer = catch_unwind(AssertUnwindSafe(|| {
            let a = agent.decide(game, seat, legal);
            stop = agent.take_stop();
            a
        }));
        sheet.settle(game, seat, entrants, legal, list, answer, stop);
    }
    for (seat, agent) in agents.iter_mut().enumerate() {
        let _ = catch_unwind(AssertUnwindSafe(|| agent.finish(game, seat)));
    }
    let decisions = sheet.decisions;
    (
        sheet.record(game, entrants, index, seeds.deal, scoring),
        decisions,
    )
}

/// What a game's record keeps, gathered while it is played: the decisions asked,
/// the choices applied, forfeits and notices.
struct Sheet<C> {
    level: RecordLevel,
    forfeits: Vec<ForfeitRecord>,
    notices: Vec<NoticeRecord>,
    news: Vec<Notice>,
    choices: Option<crate::code::Choices<C>>,
    decisions: u64,
    applied: u64,
}

impl<C: Copy + std::fmt::Debug + crate::ChoiceCode> Sheet<C> {
    fn new(level: RecordLevel) -> Self {
        Sheet {
            level,
            forfeits: Vec::new(),
            notices: Vec::new(),
            news: Vec::new(),
            // Played into this thread's scratch buffer; the record gets a copy of
            // its exact size (one allocation a game, a byte a choice).
            choices: (level == RecordLevel::Full)
                .then(|| crate::code::Choices::from_buffer(SCRATCH.take())),
            decisions: 0,
            applied: 0,
        }
    }

    /// A seat that could not begin the game forfeits it.
    fn forfeit_at_start<G: Game<Choice = C>>(
        &mut self,
        game: &mut G,
        seat: Seat,
        entrant: usize,
        fault: Fault,
    ) {
        game.forfeit(seat);
        self.forfeits.push(ForfeitRecord {
            seat,
            at: 0,
            entrant,
            fault,
        });
    }

    /// Applies `seat`'s answer to the pending decision, whose legal choices are
    /// `legal` (when `listed`; otherwise `legal` is scratch for the check), or the
    /// penalty or forfeit it earns; then takes the game's notices.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)] // the decision loop's state, passed inline
    fn settle<G: Game<Choice = C>>(
        &mut self,
        game: &mut G,
        seat: Seat,
        entrants: &[usize],
        legal: &mut Vec<C>,
        listed: bool,
        answer: std::thread::Result<Result<C, Fault>>,
        stop: Option<String>,
    ) {
        let applied = self.applied;
        if let Some(text) = stop {
            self.notices.push(NoticeRecord {
                seat,
                at: applied,
                entrant: entrants[seat],
                kind: NoticeKind::Stop,
                text,
                raw: None,
                tried: None,
            });
        }
        match answer {
            Ok(Ok(c))
                if (if listed {
                    game.is_legal_among(legal, c)
                } else {
                    game.is_legal(c, legal)
                }) =>
            {
                game.apply_legal(c);
                self.applied += 1;
                if let Some(v) = self.choices.as_mut() {
                    v.push(c);
                }
            }
            other => self.refuse(game, seat, entrants, other),
        }
        game.take_notices(&mut self.news);
        if self.news.is_empty() {
            return; // most decisions: skip the drain
        }
        let applied = self.applied;
        for n in self.news.drain(..) {
            match n {
                Notice::Forfeit { seat, reason } => self.forfeits.push(ForfeitRecord {
                    seat,
                    at: applied,
                    entrant: entrants[seat],
                    fault: Fault::new(reason),
                }),
                Notice::Warning { seat, text, raw } => self.notices.push(NoticeRecord {
                    seat,
                    at: applied,
                    entrant: entrants[seat],
                    kind: NoticeKind::Warning,
                    text,
                    raw,
                    tried: None,
                }),
            }
        }
    }

    /// An answer that was not a legal choice: the penalty or the forfeit it earns.
    #[cold]
    #[inline(never)]
    fn refuse<G: Game<Choice = C>>(
        &mut self,
        game: &mut G,
        seat: Seat,
        entrants: &[usize],
        answer: std::thread::Result<Result<C, Fault>>,
    ) {
        let fault = match answer {
            Ok(Ok(c)) => Fault {
                tried: c.code(),
                ..Fault::illegal_choice(format!("illegal choice {c:?}"))
            },
            Ok(Err(f)) => f,
            Err(p) => Fault::new(format!("panicked: {}", panic_message(&p))),
        };
        let at = self.applied;
        let tried = fault.tried.and_then(C::from_code);
        if fault.illegal && game.penalize_tried(seat, tried) {
            self.notices.push(NoticeRecord {
                seat,
                at,
                entrant: entrants[seat],
                kind: NoticeKind::Penalty,
                text: fault.reason,
                raw: None,
                tried: fault.tried,
            });
        } else {
            game.forfeit(seat);
            self.forfeits.push(ForfeitRecord {
                seat,
                at,
                entrant: entrants[seat],
                fault,
            });
        }
    }

    /// The record of the finished game.
    fn record<G: Game<Choice = C>>(
        self,
        game: &G,
        entrants: &[usize],
        index: u64,
        deal: u64,
        scoring: Scoring,
    ) -> GameRecord<C> {
        let seats = game.seats();
        let outcome = game.outcome().unwrap_or(Outcome {
            winners: SeatSet::EMPTY,
            ending: Ending::Adjudicated,
            turns: game.turns(),
        });
        let scores = SmallVec::from_slice(&scoring.scores(seats, &outcome)[..seats]);
        // Kept only when records are: the standings do not use them.
        let mut places = PerSeat::new();
        if self.level != RecordLevel::None {
            game.places(&mut places);
            // Win/loss says it all: not worth the bytes.
            if places.iter().all(|&p| p <= 2) && seats <= 2 {
                places.clear();
            }
        }
        GameRecord {
            index,
            seed: deal,
            seats: SmallVec::from_slice(entrants),
            outcome,
            scores,
            decisions: self.decisions,
            forfeits: self.forfeits,
            notices: self.notices,
            places,
            choices: self.choices.map(|c| {
                let (kept, buffer) = c.compact();
                if let Some(b) = buffer {
                    SCRATCH.set(b);
                }
                kept
            }),
        }
    }
}

thread_local! {
    /// The choice codes of the game a thread is playing (see [`Sheet::new`]).
    static SCRATCH: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

fn fault_of(r: std::thread::Result<Result<(), Fault>>) -> Option<Fault> {
    match r {
        Ok(Ok(())) => None,
        Ok(Err(f)) => Some(f),
        Err(p) => Some(Fault::new(format!("panicked: {}", panic_message(&p)))),
    }
}

fn panic_message(p: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".into()
    }
}

/// Everything that defines a tournament.
pub struct Tournament<G: Game> {
    /// The rule options.
    pub rules: G::Rules,
    /// The entrants, with unique names.
    pub entrants: Vec<Entrant<G>>,
    /// Who plays whom.
    pub schedule: Schedule,
    /// How games are scored.
    pub scoring: Scoring,
    /// The master seed.
    pub seed: u64,
    /// Worker threads (parallel game slots).
    pub threads: usize,
    /// What to keep of every game.
    pub records: RecordLevel,
    /// Duplicate play: each deal is played once per rotation of the seats, so every
    /// entrant at the table holds every seat's cards once and the luck of the deal
    /// cancels. Game `i` plays deal `i / k` in rotation `i % k` (`k` seats); the
    /// schedule's seating of game `i / k` is rotated. Intervals are then taken
    /// over deals ([`Standings::deals`]).
    pub duplicate: bool,
}

/// Progress of a running tournament.
#[derive(Clone, Debug)]
pub struct Progress<'a> {
    /// Games finished (merged) so far.
    pub done: u64,
    /// Games in the run.
    pub total: u64,
    /// Time since the run began.
    pub elapsed: Duration,
    /// Standings so far.
    pub standings: &'a Standings,
}

/// What a caller sees while a tournament runs, on the calling thread.
pub trait Observer<C> {
    /// A game finished; called in game order.
    fn on_record(&mut self, _record: &GameRecord<C>) {}
    /// Whether to receive [`Observer::on_record`] calls at all (asked once, when a
    /// run starts); an observer that only writes JSON lines or shows progress says
    /// `false`, and the workers then keep no records in memory for it.
    fn wants_records(&self) -> bool {
        true
    }
    /// Whether to receive each batch's records as JSON lines as well, serialised on
    /// the worker threads (asked once, when a run starts).
    fn wants_json(&self) -> bool {
        false
    }
    /// A batch's records as JSON lines, in game order, before their
    /// [`Observer::on_record`] calls; only if [`Observer::wants_json`].
    fn on_json(&mut self, _lines: &[u8]) {}
    /// Called after each batch of games.
    fn on_progress(&mut self, _progress: &Progress<'_>) {}
}

/// An observer that does nothing.
pub struct Quiet;
impl<C> Observer<C> for Quiet {
    fn wants_records(&self) -> bool {
        false
    }
}

/// A finished (or stopped) run.
#[derive(Clone, Debug)]
pub struct RunSummary {
    /// The standings.
    pub standings: Standings,
    /// The games played, as a range of indices.
    pub played: Range<u64>,
    /// Whether every game in the requested range was played.
    pub complete: bool,
    /// Wall time.
    pub elapsed: Duration,
    /// Games in which a bot asked to stop the run: game index, entrant, its words.
    pub stops: Vec<(u64, usize, String)>,
}

/// Games per chunk: depends only on the number of games, never on threads, so that
/// floating-point sums are merged in the same order on every machine.
fn chunk_size(total: u64) -> u64 {
    (total / 256).clamp(1, 512)
}

/// A batch's record list and JSON buffer, given back to their worker.
type Spare<C> = (Vec<GameRecord<C>>, Vec<u8>);

struct Chunk<C> {
    id: u64,
    /// The worker that played it.
    slot: usize,
    standings: Standings,
    records: Vec<GameRecord<C>>,
    stops: Vec<(u64, usize, String)>,
    /// The records as JSON lines, when the observer wants them.
    json: Vec<u8>,
}

impl<G: Game> Tournament<G> {
    /// Entrant names, in entrant order.
    pub fn names(&self) -> Vec<String> {
        self.entrants.iter().map(|e| e.name.clone()).collect()
    }

    /// Number of games in the whole schedule (with duplicate play, rounded up to
    /// whole deals).
    pub fn total_games(&self) -> u64 {
        self.schedule.games(self.entrants.len(), self.duplicate)
    }

    /// Empty standings of this tournament's entrants, grouped by deal under
    /// duplicate play.
    pub fn empty_standings(&self) -> Standings {
        Standings::for_run(&self.names(), &self.schedule, self.duplicate)
    }

    /// Plays every game of the schedule.
    pub fn run(&self, observer: &mut dyn Observer<G::Choice>) -> RunSummary {
        self.run_range(0..self.total_games(), observer, &AtomicBool::new(false))
    }

    /// Plays games `range` of the schedule on `threads` workers; stops early (after the
    /// games already started) when `stop` becomes true.
    pub fn run_range(
        &self,
        range: Range<u64>,
        observer: &mut dyn Observer<G::Choice>,
        stop: &AtomicBool,
    ) -> RunSummary {
        let start = Instant::now();
        let total = range.end.saturating_sub(range.start);
        let chunk = chunk_size(total);
        let chunks = total.div_ceil(chunk);
        let next = AtomicU64::new(0);
        let threads = self.threads.max(1).min(chunks.max(1) as usize);
        let (tx, rx) = mpsc::sync_channel::<Chunk<G::Choice>>(threads * 4);
        // A batch's buffers go back to the worker that filled them once the
        // observer has seen them: it drops the records there, where they were
        // allocated, and reuses the memory (a fresh JSON buffer of a few hundred kB
        // a batch, and frees on the main thread, cost page faults and contention).
        let spare: Vec<Mutex<Vec<Spare<G::Choice>>>> =
            (0..threads).map(|_| Mutex::new(Vec::new())).collect();
        let mut standings = self.empty_standings();
        let mut merged = 0u64;
        let mut stops = Vec::new();
        let json = observer.wants_json() && self.records != RecordLevel::None;
        // Records in memory, for an observer that reads them.
        let keep = observer.wants_records() && self.records != RecordLevel::None;
        // Takes the next chunk to play, unless the run is stopping or none is left.
        let claim = || -> Option<u64> {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            let id = next.fetch_add(1, Ordering::Relaxed);
            (id < chunks).then_some(id)
        };
        let bounds = |id: u64| {
            let lo = range.start + id * chunk;
            (lo, (lo + chunk).min(range.end))
        };
        // An empty batch for chunk `id`, in a worker's spare buffers when it has some.
        let open = |slot: usize, id: u64, json_len: usize| {
            let (lo, hi) = bounds(id);
            let (mut records, mut json_buf) = spare
                .get(slot)
                .and_then(|m| m.lock().ok()?.pop())
                .unwrap_or_default();
            records.clear();
            json_buf.clear();
            if keep {
                records.reserve((hi - lo) as usize);
            }
            if json {
                json_buf.reserve(json_len + json_len / 8);
            }
            Chunk {
                id,
                slot,
                standings: self.empty_standings(),
                records,
                stops: Vec::new(),
                json: json_buf,
            }
        };
        // Adds game `index`'s record to its batch (games in index order).
        let add = |part: &mut Chunk<G::Choice>, index: u64, rec: GameRecord<G::Choice>| {
            part.standings.add(&rec);
            for n in rec.notices.iter().filter(|n| n.kind == NoticeKind::Stop) {
                part.stops.push((index, n.entrant, n.text.clone()));
                stop.store(true, Ordering::Relaxed);
            }
            if json {
                rec.write_json_line(&mut part.json);
            }
            if keep {
                part.records.push(rec);
            }
        };
        let multi = self.entrants.iter().any(|e| e.multi.is_some());
        // One worker's loop: plays chunks until none is left, handing each to `sink`.
        let work = |slot: usize, sink: &mut dyn FnMut(Chunk<G::Choice>) -> bool| {
            if multi {
                return self.work_multi(slot, &claim, &bounds, &open, &add, sink);
            }
            // Under duplicate play, a set of agents per rotation (slot numbers
            // `slot * k + r`): no program sees two rotations of one deal.
            let sets = if self.duplicate {
                self.schedule.table(self.entrants.len()).max(1)
            } else {
                1
            };
            let mut agents: Vec<Vec<Option<Box<dyn Agent<G>>>>> = (0..sets)
                .map(|_| (0..self.entrants.len()).map(|_| None).collect())
                .collect();
            let mut seating = Vec::new();
            let mut legal = Vec::with_capacity(64);
            let mut game: Option<G> = None;
            // The last batch's JSON size, to size the next one's buffer once.
            let mut json_len = 0;
            while let Some(id) = claim() {
                let (lo, hi) = bounds(id);
                let mut part = open(slot, id, json_len);
                for index in lo..hi {
                    let r = (index % sets as u64) as usize;
                    let (rec, _) = self.play_index(
                        index,
                        slot * sets + r,
                        &mut agents[r],
                        &mut seating,
                        &mut legal,
                        &mut game,
                    );
                    add(&mut part, index, rec);
                }
                json_len = part.json.len();
                if !sink(part) {
                    break;
                }
            }
        };
        let mut pending: BTreeMap<u64, Chunk<G::Choice>> = BTreeMap::new();
        let mut want = 0u64;
        let mut absorb = |part: Chunk<G::Choice>| {
            pending.insert(part.id, part);
            while let Some(mut part) = pending.remove(&want) {
                standings.merge(&part.standings);
                stops.extend(part.stops.iter().cloned());
                merged += part.standings.games;
                if json {
                    observer.on_json(&part.json);
                }
                for r in &part.records {
                    observer.on_record(r);
                }
                if let Some(Ok(mut v)) = spare.get(part.slot).map(|m| m.lock()) {
                    if v.len() < 4 {
                        v.push((
                            std::mem::take(&mut part.records),
                            std::mem::take(&mut part.json),
                        ));
                    }
                }
                want += 1;
                observer.on_progress(&Progress {
                    done: merged,
                    total,
                    elapsed: start.elapsed(),
                    standings: &standings,
                });
            }
            true
        };
        std::thread::scope(|scope| {
            let work = &work;
            let mut spawned = 0;
            for slot in 0..threads {
                let tx = tx.clone();
                // A machine out of threads (a container's PID limit) gets fewer
                // workers, or none: then the games are played here.
                let worker = std::thread::Builder::new()
                    .name(format!("koth-worker-{slot}"))
                    .spawn_scoped(scope, move || work(slot, &mut |p| tx.send(p).is_ok()));
                if worker.is_err() {
                    break;
                }
                spawned += 1;
            }
            drop(tx);
            if spawned == 0 {
                work(0, &mut absorb);
            }
            for part in rx {
                absorb(part);
            }
        });
        RunSummary {
            standings,
            played: range.start..range.start + merged,
            complete: merged == total,
            elapsed: start.elapsed(),
            stops,
        }
    }

    /// Fills `seating` with the entrants of game `index`, seat by seat, and returns
    /// the game's seeds.
    fn seating_of(&self, index: u64, seating: &mut Vec<usize>) -> GameSeeds {
        let n = self.entrants.len();
        if self.duplicate {
            let k = self.schedule.table(n).max(1) as u64;
            let deal = index / k;
            self.schedule.seating(n, self.seed, deal, seating);
            seating.rotate_left((index % k) as usize);
            // The deal's chance events; the bots' own streams stay per game.
            GameSeeds::of(self.seed, index).with_deal(GameSeeds::of(self.seed, deal).deal)
        } else {
            self.schedule.seating(n, self.seed, index, seating);
            GameSeeds::of(self.seed, index)
        }
    }

    /// A worker's loop when some entrant plays several games at once: it keeps up to
    /// [`MAX_TABLES`] games going (as many as every such entrant takes), asks all
    /// their pending decisions, sends each agent its requests at once and then
    /// takes the answers. Games are independent, so each one plays as it would
    /// alone; batches are handed on, whole, as their last game ends.
    fn work_multi(
        &self,
        slot: usize,
        claim: &dyn Fn() -> Option<u64>,
        bounds: &dyn Fn(u64) -> (u64, u64),
        open: &dyn Fn(usize, u64, usize) -> Chunk<G::Choice>,
        add: &AddRecord<'_, G::Choice>,
        sink: &mut dyn FnMut(Chunk<G::Choice>) -> bool,
    ) {
        // Under duplicate play, each rotation of a deal is played at its own table,
        // by agents of that table only (a process per rotation): no program sees two
        // rotations of one deal, so none can carry a seat's cards from one into the
        // next.
        let rotations = self
            .duplicate
            .then(|| self.schedule.table(self.entrants.len()).max(1));
        let per_table = |e: &Entrant<G>, tables: usize| -> Box<dyn MultiAgent<G>> {
            Box::new(PerTable::new(e.factory.clone(), slot, tables))
        };
        let (tables, mut agents) = match rotations {
            Some(k) => (k, self.entrants.iter().map(|e| per_table(e, k)).collect()),
            None => {
                // Entrants that multiplex come first: what they take sets the tables.
                let mut tables = MAX_TABLES;
                let made: Vec<Option<Box<dyn MultiAgent<G>>>> = self
                    .entrants
                    .iter()
                    .map(|e| {
                        let make = e.multi.as_ref()?;
                        let mut agent = make(slot).unwrap_or_else(|msg| {
                            let broken: AgentFactory<G> = Arc::new(move |_| Err(msg.clone()));
                            Box::new(PerTable::new(broken, slot, 1))
                        });
                        tables = tables.min(agent.tables().max(1));
                        Some(agent)
                    })
                    .collect();
                let agents: Vec<Box<dyn MultiAgent<G>>> = made
                    .into_iter()
                    .zip(&self.entrants)
                    .map(|(m, e)| m.unwrap_or_else(|| per_table(e, tables)))
                    .collect();
                (tables, agents)
            }
        };
        // The games table `t` may take: under duplicate play, its rotation's.
        let fits = |t: usize, index: u64| rotations.is_none_or(|k| index % k as u64 == t as u64);
        let mut games: Vec<Option<G>> = (0..tables).map(|_| None).collect();
        let mut seated: Vec<Option<Seated<G::Choice>>> = (0..tables).map(|_| None).collect();
        let mut opened: Vec<OpenChunk<G::Choice>> = Vec::new();
        let mut claiming = true;
        let mut json_len = 0;
        // The tables asked this round, with the seat asked.
        let mut asked: Vec<(usize, Seat)> = Vec::with_capacity(tables);
        loop {
            // A new game at every free table, in index order.
            for t in 0..tables {
                if seated[t].is_some() {
                    continue;
                }
                let found = loop {
                    let pick = opened.iter_mut().find_map(|o| {
                        let p = (o.first..o.started.len())
                            .find(|&p| !o.started[p] && fits(t, o.lo + p as u64))?;
                        Some((o, p))
                    });
                    if let Some((o, p)) = pick {
                        o.started[p] = true;
                        while o.first < o.started.len() && o.started[o.first] {
                            o.first += 1;
                        }
                        break Some((o.lo + p as u64, o.id));
                    }
                    let claimed = if claiming { claim() } else { None };
                    match claimed {
                        Some(id) => {
                            let (lo, hi) = bounds(id);
                            opened.push(OpenChunk {
                                id,
                                lo,
                                first: 0,
                                started: vec![false; (hi - lo) as usize],
                                left: hi - lo,
                                recs: (lo..hi).map(|_| None).collect(),
                            });
                        }
                        None => {
                            claiming = false;
                            break None;
                        }
                    }
                };
                // Another table may still have games of its rotation.
                let Some((index, chunk)) = found else {
                    continue;
                };
                let mut seating = Vec::new();
                let seeds = self.seating_of(index, &mut seating);
                let game = match &mut games[t] {
                    Some(g) => {
                        g.reset(&self.rules, seating.len(), seeds.deal);
                        g
                    }
                    slot @ None => slot.insert(G::new_game(&self.rules, seating.len(), seeds.deal)),
                };
                let names: Vec<&str> = seating
                    .iter()
                    .map(|&e| self.entrants[e].name.as_str())
                    .collect();
                let mut sheet = Sheet::new(self.records);
                for (seat, &e) in seating.iter().enumerate() {
                    let agent = &mut agents[e];
                    agent.seat_names(t, &names);
                    let r = catch_unwind(AssertUnwindSafe(|| {
                        agent.start(t, game, seat, seeds.seat(seat))
                    }));
                    if let Some(fault) = fault_of(r) {
                        sheet.forfeit_at_start(game, seat, e, fault);
                    }
                }
                seated[t] = Some(Seated {
                    index,
                    chunk,
                    seating,
                    deal: seeds.deal,
                    sheet,
                    legal: Vec::new(),
                });
            }
            if seated.iter().all(Option::is_none) {
                break;
            }
            // Every game's pending decision is asked; games that are over end.
            asked.clear();
            for t in 0..tables {
                let (Some(s), Some(game)) = (seated[t].as_mut(), games[t].as_mut()) else {
                    continue;
                };
                if let Some(seat) = game.to_move() {
                    s.legal.clear();
                    game.legal_choices(&mut s.legal);
                    s.sheet.decisions += 1;
                    agents[s.seating[seat]].request(t, game, seat, &s.legal);
                    asked.push((t, seat));
                    continue;
                }
                let Some(s) = seated[t].take() else { continue };
                for (seat, &e) in s.seating.iter().enumerate() {
                    let agent = &mut agents[e];
                    let _ = catch_unwind(AssertUnwindSafe(|| agent.finish(t, game, seat)));
                }
                let rec = s
                    .sheet
                    .record(game, &s.seating, s.index, s.deal, self.scoring);
                if let Some(o) = opened.iter_mut().find(|o| o.id == s.chunk) {
                    o.recs[(s.index - o.lo) as usize] = Some(rec);
                    o.left -= 1;
                }
            }
            for agent in agents.iter_mut() {
                agent.flush();
            }
            for &(t, seat) in &asked {
                let (Some(s), Some(game)) = (seated[t].as_mut(), games[t].as_mut()) else {
                    continue;
                };
                let agent = &mut agents[s.seating[seat]];
                let mut stop = None;
                let answer = catch_unwind(AssertUnwindSafe(|| {
                    let a = agent.answer(t, &s.legal);
                    stop = agent.take_stop(t);
                    a
                }));
                // Every seat here is given the list (programs read it).
                s.sheet
                    .settle(game, seat, &s.seating, &mut s.legal, true, answer, stop);
            }
            // Batches whose games have all ended are handed on.
            while let Some(pos) = opened
                .iter()
                .position(|o| o.left == 0 && o.first == o.started.len())
            {
                let o = opened.remove(pos);
                let mut part = open(slot, o.id, json_len);
                for (k, rec) in o.recs.into_iter().enumerate() {
                    if let Some(rec) = rec {
                        add(&mut part, o.lo + k as u64, rec);
                    }
                }
                json_len = part.json.len();
                if !sink(part) {
                    return;
                }
            }
        }
        for agent in agents.iter_mut() {
            agent.flush();
        }
    }

    /// Plays game `index` of the schedule with a worker's agents. Not inlined, so
    /// the decision loop's code does not depend on what the worker does around it.
    #[inline(never)]
    fn play_index(
        &self,
        index: u64,
        slot: usize,
        agents: &mut [Option<Box<dyn Agent<G>>>],
        seating: &mut Vec<usize>,
        legal: &mut Vec<G::Choice>,
        reuse: &mut Option<G>,
    ) -> (GameRecord<G::Choice>, u64) {
        let seeds = self.seating_of(index, seating);
        let seed = seeds.deal;
        let game = match reuse {
            Some(g) => {
                g.reset(&self.rules, seating.len(), seed);
                g
            }
            None => reuse.insert(G::new_game(&self.rules, seating.len(), seed)),
        };
        for &e in seating.iter() {
            if agents[e].is_none() {
                // A factory that fails leaves a stand-in that forfeits, so the
                // failure is recorded per game instead of stopping the run.
                agents[e] = Some(match (self.entrants[e].factory)(slot) {
                    Ok(a) => a,
                    Err(msg) => Box::new(Broken(msg)),
                });
            }
        }
        let mut names = [""; crate::game::MAX_SEATS];
        for (slot, &e) in names.iter_mut().zip(seating.iter()) {
            *slot = self.entrants[e].name.as_str();
        }
        let names = &names[..seating.len().min(crate::game::MAX_SEATS)];
        // Borrow each seat's agent mutably (entrants at a table are distinct),
        // walking the agents once in entrant order: no allocation a game.
        let mut order: SmallVec<[(usize, usize); crate::game::MAX_SEATS]> = seating
            .iter()
            .enumerate()
            .map(|(seat, &e)| (e, seat))
            .collect();
        order.sort_unstable();
        let mut by_seat: SmallVec<[Option<&mut dyn Agent<G>>; crate::game::MAX_SEATS]> =
            seating.iter().map(|_| None).collect();
        let mut rest = &mut agents[..];
        let mut skipped = 0;
        for (e, seat) in order {
            let at = e
                .checked_sub(skipped)
                .expect("each entrant sits once per table");
            let (agent, tail) = std::mem::take(&mut rest)[at..]
                .split_first_mut()
                .expect("a seated entrant exists");
            by_seat[seat] = Some(agent.as_mut().expect("made above").as_mut());
            rest = tail;
            skipped = e + 1;
        }
        let mut refs: SmallVec<[&mut dyn Agent<G>; crate::game::MAX_SEATS]> = by_seat
            .into_iter()
            .map(|a| a.expect("each entrant sits once per table"))
            .collect();
        for agent in refs.iter_mut() {
            agent.seat_names(names);
        }
        play_game(
            game,
            &mut refs,
            seating,
            index,
            seeds,
            self.scoring,
            self.records,
            legal,
        )
    }
}

/// Games a worker keeps going at once, at most, when entrants play several at once.
pub const MAX_TABLES: usize = 64;

/// Adds a game's record (its index given) to its batch.
type AddRecord<'a, C> = dyn Fn(&mut Chunk<C>, u64, GameRecord<C>) + 'a;

/// An agent's answer, or the panic it raised.
type Answer<C> = std::thread::Result<Result<C, Fault>>;

/// A game under way at one of a worker's tables.
struct Seated<C> {
    index: u64,
    /// The batch it belongs to.
    chunk: u64,
    seating: Vec<usize>,
    deal: u64,
    sheet: Sheet<C>,
    /// The legal choices of its pending decision.
    legal: Vec<C>,
}

/// A batch being played by a worker that keeps several games going.
struct OpenChunk<C> {
    id: u64,
    lo: u64,
    /// Which of its games have begun, and the first that has not.
    started: Vec<bool>,
    first: usize,
    /// Games not yet ended.
    left: u64,
    /// The records of the ended games, by position in the batch.
    recs: Vec<Option<GameRecord<C>>>,
}

/// A plain agent per table: how an entrant that plays one game at a time (a
/// built-in bot) sits at the tables of a worker that keeps several going. Each
/// table's agent plays its games one after another, as on a worker of its own.
struct PerTable<G: Game> {
    factory: AgentFactory<G>,
    /// The slot number of table 0; table `t` is slot `first + t`.
    first: usize,
    agents: Vec<Option<Box<dyn Agent<G>>>>,
    answers: Vec<Option<Answer<G::Choice>>>,
    stops: Vec<Option<String>>,
}

impl<G: Game> PerTable<G> {
    fn new(factory: AgentFactory<G>, slot: usize, tables: usize) -> Self {
        PerTable {
            factory,
            first: slot * tables,
            agents: Vec::new(),
            answers: Vec::new(),
            stops: Vec::new(),
        }
    }

    /// Table `t`'s agent, made at its first use.
    fn agent(&mut self, t: usize) -> &mut Box<dyn Agent<G>> {
        if self.agents.len() <= t {
            self.agents.resize_with(t + 1, || None);
            self.answers.resize_with(t + 1, || None);
            self.stops.resize_with(t + 1, || None);
        }
        let slot = self.first + t;
        let factory = &self.factory;
        self.agents[t].get_or_insert_with(|| {
            // A factory that fails leaves a stand-in that forfeits.
            factory(slot).unwrap_or_else(|msg| Box::new(Broken(msg)))
        })
    }
}

impl<G: Game> MultiAgent<G> for PerTable<G> {
    fn tables(&mut self) -> usize {
        usize::MAX
    }
    fn seat_names(&mut self, table: usize, names: &[&str]) {
        self.agent(table).seat_names(names);
    }
    fn start(&mut self, table: usize, game: &G, seat: Seat, seed: u64) -> Result<(), Fault> {
        self.agent(table).start(game, seat, seed)
    }
    fn request(&mut self, table: usize, game: &G, seat: Seat, legal: &[G::Choice]) {
        let agent = self.agent(table);
        let mut stop = None;
        let answer = catch_unwind(AssertUnwindSafe(|| {
            let a = agent.decide(game, seat, legal);
            stop = agent.take_stop();
            a
        }));
        self.answers[table] = Some(answer);
        self.stops[table] = stop;
    }
    fn flush(&mut self) {}
    fn answer(&mut self, table: usize, _legal: &[G::Choice]) -> Result<G::Choice, Fault> {
        match self.answers.get_mut(table).and_then(Option::take) {
            Some(Ok(answer)) => answer,
            Some(Err(p)) => Err(Fault::new(format!("panicked: {}", panic_message(&p)))),
            None => Err(Fault::new("answer taken before it was asked")),
        }
    }
    fn finish(&mut self, table: usize, game: &G, seat: Seat) {
        self.agent(table).finish(game, seat);
    }
    fn take_stop(&mut self, table: usize) -> Option<String> {
        self.stops.get_mut(table).and_then(Option::take)
    }
}

/// Stands in for an agent that could not be made: forfeits at the start.
struct Broken(String);
impl<G: Game> Agent<G> for Broken {
    fn start(&mut self, _: &G, _: Seat, _: u64) -> Result<(), Fault> {
        Err(Fault::new(format!("could not start: {}", self.0)))
    }
    fn decide(&mut self, _: &G, _: Seat, _: &[G::Choice]) -> Result<G::Choice, Fault> {
        Err(Fault::new(format!("could not start: {}", self.0)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The hand-written line is byte for byte what serde_json writes, for any
        /// record: free text to escape, floats, choices with and without codes.
        #[test]
        fn the_record_writer_agrees_with_serde_json(
            index in proptest::prelude::any::<u64>(),
            seed in proptest::prelude::any::<u64>(),
            seats in proptest::collection::vec(0usize..1000, 0..8),
            winners in proptest::prelude::any::<u8>(),
            ending in 0..3u8,
            turns in proptest::prelude::any::<u32>(),
            scores in proptest::collection::vec(proptest::prop_oneof![
                proptest::prelude::any::<f64>(),
                proptest::sample::select(vec![-0.2, 1.0, 0.0, -0.0, 0.5]),
            ], 0..8),
            decisions in proptest::prelude::any::<u64>(),
            faults in proptest::collection::vec(("\\PC*", proptest::option::of("\\PC*"), proptest::prelude::any::<bool>()), 0..3),
            notes in proptest::collection::vec(("\\PC*", proptest::option::of("[a-z\"\\\\\n]*"), 0..3u8), 0..3),
            places in proptest::collection::vec(1u8..9, 0..8),
            // All coded, or some (64 and up) without a code.
            choices in proptest::option::of(proptest::prop_oneof![
                proptest::collection::vec(0u8..64, 0..300),
                proptest::collection::vec(0u8..70, 0..300),
            ]),
        ) {
            let r = GameRecord {
                index,
                seed,
                seats: seats.into(),
                outcome: Outcome {
                    winners: SeatSet(winners),
                    ending: [Ending::Decided, Ending::TurnCap, Ending::Adjudicated][ending as usize],
                    turns,
                },
                scores: scores.into(),
                decisions,
                forfeits: faults
                    .into_iter()
                    .enumerate()
                    .map(|(i, (reason, stderr_tail, illegal))| ForfeitRecord {
                        seat: i,
                        at: i as u64 * 7,
                        entrant: i + 1,
                        fault: Fault { reason, stderr_tail, illegal, tried: None },
                    })
                    .collect(),
                notices: notes
                    .into_iter()
                    .enumerate()
                    .map(|(i, (text, raw, kind))| NoticeRecord {
                        seat: i,
                        at: 3,
                        entrant: 0,
                        kind: [NoticeKind::Penalty, NoticeKind::Warning, NoticeKind::Stop][kind as usize],
                        text,
                        raw,
                        tried: None,
                    })
                    .collect(),
                places: places.into(),
                // Pushed one by one, as during play.
                choices: choices.map(|v| v.into_iter().collect()),
            };
            let mut line = Vec::new();
            r.write_json_line(&mut line);
            let mut expected = serde_json::to_vec(&r).unwrap();
            expected.push(b'\n');
            proptest::prop_assert_eq!(String::from_utf8(line.clone()).unwrap(), String::from_utf8(expected).unwrap());
            // Records read without their game (choices as numbers) too; serde_json's
            // reading of floats is not exact, so compare with its own writing.
            let generic: GameRecord<serde_json::Value> = serde_json::from_slice(&line).unwrap();
            let mut again = Vec::new();
            generic.write_json_line(&mut again);
            let mut expected = serde_json::to_vec(&generic).unwrap();
            expected.push(b'\n');
            proptest::prop_assert_eq!(String::from_utf8(again).unwrap(), String::from_utf8(expected).unwrap());
        }
    }

    #[test]
    fn choices_are_written_as_codes_and_read_in_either_form() {
        let mut r = record(vec![0, 1], 0, vec![1.0, -1.0]);
        r.choices = Some(vec![0, 1, 2, 63].into());
        let line = serde_json::to_string(&r).unwrap();
        assert!(line.contains(r#""choices":"ABC_""#), "{line}");
        assert_eq!(serde_json::from_str::<GameRecord<u8>>(&line).unwrap(), r);
        // Records written before codes existed keep a list, and still read.
        let old = line.replace(r#""ABC_""#, "[0,1,2,63]");
        assert_eq!(serde_json::from_str::<GameRecord<u8>>(&old).unwrap(), r);
        // A choice without a code keeps the whole list as a list.
        r.choices = Some(vec![0, 64].into());
        let line = serde_json::to_string(&r).unwrap();
        assert!(line.contains(r#""choices":[0,64]"#), "{line}");
        assert_eq!(serde_json::from_str::<GameRecord<u8>>(&line).unwrap(), r);
        r.choices = None;
        let line = serde_json::to_string(&r).unwrap();
        assert!(!line.contains("choices"), "{line}");
        assert_eq!(serde_json::from_str::<GameRecord<u8>>(&line).unwrap(), r);
    }

    fn record(seats: Vec<usize>, winner: usize, scores: Vec<f64>) -> GameRecord<u8> {
        GameRecord {
            index: 0,
            seed: 0,
            seats: seats.into(),
            outcome: Outcome {
                winners: SeatSet::single(winner),
                ending: Ending::Decided,
                turns: 1,
            },
            scores: scores.into(),
            decisions: 0,
            forfeits: vec![],
            notices: vec![],
            places: Default::default(),
            choices: None,
        }
    }

    #[test]
    fn ranked_by_mean_not_by_total() {
        // "many" wins 30 of 100 two-player games (+0.3 total... mean −0.4),
        // "few" wins 3 of 4 (total +2, mean +0.5): few has the better mean.
        let names = vec!["many".to_string(), "few".to_string(), "rest".to_string()];
        let mut s = Standings::new(&names);
        for i in 0..100 {
            let w = if i < 30 { 0 } else { 2 };
            let sc = if w == 0 {
                vec![1.0, -1.0]
            } else {
                vec![-1.0, 1.0]
            };
            s.add(&record(vec![0, 2], w, sc));
        }
        for i in 0..4 {
            let w = if i < 3 { 0 } else { 1 };
            let sc = if w == 0 {
                vec![1.0, -1.0]
            } else {
                vec![-1.0, 1.0]
            };
            s.add(&record(vec![1, 2], w, sc));
        }
        // Totals: many −40, few +2, rest +40 − 2 = +38; means −0.4, +0.5, +0.36.
        assert_eq!(s.ranking(), vec![1, 2, 0]);
        assert_eq!(s.score_range(), (-1.0, 1.0));
        let ci = s.interval(1);
        assert!(ci.high <= 1.0 && ci.low < 0.0, "{ci:?}");
    }

    #[test]
    fn equal_means_rank_the_surer_first_and_unplayed_last() {
        let names = vec!["a".to_string(), "b".to_string(), "idle".to_string()];
        let mut s = Standings::new(&names);
        // a and b both win every game they play: b over more games.
        s.add(&record(vec![0, 1], 0, vec![1.0, 0.0]));
        for _ in 0..5 {
            s.add(&record(vec![1, 0], 0, vec![1.0, 0.0]));
        }
        // a: 1 win, 5 losses; b: 5 wins, 1 loss.
        assert_eq!(s.ranking(), vec![1, 0, 2]);
        let mut t = Standings::new(&names);
        t.add(&record(vec![0, 1], 0, vec![1.0, 0.0]));
        for _ in 0..3 {
            t.add(&record(vec![1, 2], 0, vec![1.0, 0.0]));
        }
        // a 1/1 and b 3/4 ... a has mean 1, b 0.75, idle 0 over 3 games.
        assert_eq!(t.ranking(), vec![0, 1, 2]);
        let u = Standings::new(&names);
        assert_eq!(u.ranking(), vec![0, 1, 2]);
    }
}
