//! A tournament: a schedule of games played on every core, each worker keeping
//! one game going (or, with entrants that play several at once, up to
//! [`MAX_TABLES`]), records handed to an [`Observer`] in game order, and
//! [`Standings`] identical for any thread count.
//!
//! Results are deterministic for any thread count: game `i` depends only on
//! (master seed, `i`), games are grouped in fixed chunks whose size depends only
//! on the number of games, and chunk results are merged in chunk order.

use crate::agent::{Agent, AgentFactory, Entrant, Fault, MultiAgent};
use crate::code::ChoiceCode;
use crate::game::{Game, Seat, MAX_SEATS};
use crate::play::{fault_of, play_game, Sheet};
use crate::records::{GameRecord, NoticeKind, RecordLevel, RecordWriter};
use crate::schedule::Schedule;
use crate::scoring::Scoring;
use crate::seeds::GameSeeds;
use crate::standings::Standings;
use serde::Serialize;
use smallvec::SmallVec;
use std::collections::BTreeMap;
use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

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
    /// With [`Observer::on_json`]: what the batch's programs logged, game by game
    /// (lines of [`crate::records::LINES_FILE`]), when they logged anything.
    fn on_lines(&mut self, _lines: &[u8]) {}
    /// Called after each batch of games.
    fn on_progress(&mut self, _progress: &Progress<'_>) {}
    /// Whether the run stops as soon as a game ends with a forfeit (asked once, when
    /// a run starts): the workers start no game after it, though the batch that holds
    /// it reaches [`Observer::on_record`] only when its games under way have ended.
    fn stops_on_forfeit(&self) -> bool {
        false
    }
    /// Whether the run keeps standings of its own (asked once, when a run
    /// starts): an observer that counts every game itself says `false`, and
    /// [`RunSummary::standings`] and [`Progress::standings`] stay empty.
    fn wants_standings(&self) -> bool {
        true
    }
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
    /// Games played again rather than charged to a bot.
    pub replays: Replays,
}

/// Games played again from their start, the same deal, rather than charged to
/// a bot ([`crate::Again`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Replays {
    /// Lost with a process that failed in another game it played at once.
    pub lost: u64,
    /// The machine could not start a process (file descriptors, memory,
    /// processes, disk): played again after a pause.
    pub machine: u64,
    /// The last such failure of the machine, as reported.
    pub last_machine: Option<String>,
}

/// Why game `rec` is to be played again, if it is: the first forfeit that was
/// no bot's doing in it.
fn again_of<C>(rec: &GameRecord<C>) -> Option<&Fault> {
    rec.forfeits
        .iter()
        .map(|f| &f.fault)
        .find(|f| f.again.is_some())
}

/// Counts a game to play again; says whether the machine was to blame.
fn count_again(replays: &Mutex<Replays>, fault: &Fault) -> bool {
    let machine = fault.again == Some(crate::Again::Machine);
    if let Ok(mut r) = replays.lock() {
        if machine {
            r.machine += 1;
            r.last_machine = Some(fault.reason.clone());
        } else {
            r.lost += 1;
        }
    }
    machine
}

/// Pauses a worker whose machine failed in `trouble` rounds in a row: 50 ms,
/// doubling to 5 s, until it clears (or the run stops).
fn pause(trouble: &mut u32, stop: &AtomicBool) {
    let wait = Duration::from_millis(50u64 << (*trouble).min(7)).min(Duration::from_secs(5));
    *trouble += 1;
    let end = Instant::now() + wait;
    while Instant::now() < end && !stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(10).min(end - Instant::now()));
    }
}

/// Games per chunk: depends only on the number of games, never on threads, so that
/// floating-point sums are merged in the same order on every machine.
fn chunk_size(total: u64) -> u64 {
    (total / 256).clamp(1, 512)
}

/// Where each batch of `total` games starts, and `total` last: batches of
/// `chunk`, then smaller and smaller ones towards the end, down to `least`, so
/// that the workers finish together instead of one playing a whole last batch
/// alone (the hill ends a block every few seconds). Depends on its arguments
/// only.
fn chunk_starts(total: u64, chunk: u64, least: u64) -> Vec<u64> {
    let mut starts = vec![0];
    let mut at = 0;
    while at < total {
        let size = chunk
            .min(((total - at) / 16).max(least.max(1)))
            .min(total - at);
        at += size;
        starts.push(at);
    }
    starts
}

/// A batch's record list and JSON buffer, given back to their worker.
type Spare<C> = (Vec<GameRecord<C>>, Vec<u8>);

struct Chunk<C> {
    id: u64,
    /// The worker that played it.
    slot: usize,
    standings: Standings,
    /// Games played in it.
    games: u64,
    records: Vec<GameRecord<C>>,
    stops: Vec<(u64, usize, String)>,
    /// The records as JSON lines, when the observer wants them.
    json: Vec<u8>,
    /// What their programs logged, as lines of the run's lines file.
    lines: Vec<u8>,
    /// Every game of the batch was played (a stop cuts a batch short: its games
    /// after the last one played are left for a resumed run).
    complete: bool,
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
        let total = range.end.saturating_sub(range.start);
        self.run_chunked(range, chunk_size(total), 1, observer, stop)
    }

    /// [`Tournament::run_range`] in batches of `chunk` games, shrinking towards
    /// the end to no fewer than `least`: a caller that keeps its own standings
    /// (the hill) may take batches sized to how long its games take, for fewer
    /// hand-overs between threads. The records are the same whatever the
    /// batches; the floating-point sums of the returned standings are merged
    /// batch by batch, so they match another run's only with the same batches.
    pub fn run_chunked(
        &self,
        range: Range<u64>,
        chunk: u64,
        least: u64,
        observer: &mut dyn Observer<G::Choice>,
        stop: &AtomicBool,
    ) -> RunSummary {
        let start = Instant::now();
        let total = range.end.saturating_sub(range.start);
        let starts = chunk_starts(total, chunk.max(1), least);
        let chunks = starts.len() as u64 - 1;
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
        let replays = Mutex::new(Replays::default());
        let json = observer.wants_json() && self.records != RecordLevel::None;
        // Records in memory, for an observer that reads them.
        let keep = observer.wants_records() && self.records != RecordLevel::None;
        let stop_on_forfeit = observer.stops_on_forfeit();
        let tally = observer.wants_standings();
        // Takes the next chunk to play, unless the run is stopping or none is left.
        let claim = || -> Option<u64> {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            let id = next.fetch_add(1, Ordering::Relaxed);
            (id < chunks).then_some(id)
        };
        let bounds = |id: u64| {
            (
                range.start + starts[id as usize],
                range.start + starts[id as usize + 1],
            )
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
                games: 0,
                records,
                stops: Vec::new(),
                json: json_buf,
                lines: Vec::new(),
                complete: true,
            }
        };
        // Adds game `index`'s record to its batch (games in index order).
        let add = |part: &mut Chunk<G::Choice>, index: u64, rec: GameRecord<G::Choice>| {
            if tally {
                part.standings.add(&rec);
            }
            part.games += 1;
            for n in rec.notices.iter().filter(|n| n.kind == NoticeKind::Stop) {
                part.stops.push((index, n.entrant, n.text.clone()));
                stop.store(true, Ordering::Relaxed);
            }
            if stop_on_forfeit && !rec.forfeits.is_empty() {
                stop.store(true, Ordering::Relaxed);
            }
            if json {
                rec.write_json_line(&mut part.json);
                rec.write_lines_line(&mut part.lines);
            }
            if keep {
                part.records.push(rec);
            }
        };
        let multi = self.entrants.iter().any(|e| e.multi.is_some());
        // The batches open among the workers that keep several games going.
        let pool = Mutex::new(Pool {
            opened: Vec::new(),
            deals: BTreeMap::new(),
            running: BTreeMap::new(),
            per_deal: None,
            claiming: true,
            active: 0,
        });
        // One worker's loop: plays chunks until none is left, handing each to `sink`.
        let work = |slot: usize, sink: &mut dyn FnMut(Chunk<G::Choice>) -> bool| {
            if multi {
                let batches = Batches {
                    claim: &claim,
                    bounds: &bounds,
                    open: &open,
                    add: &add,
                    pool: &pool,
                    replays: &replays,
                    stop_on_forfeit,
                };
                return self.work_multi(slot, &batches, sink, stop);
            }
            // Under duplicate play, a set of agents per rotation (slot numbers
            // `slot * k + r`): no program sees two rotations of one deal.
            let sets = self.rotations().unwrap_or(1);
            let mut agents: Vec<Vec<Option<Box<dyn Agent<G>>>>> = (0..sets)
                .map(|_| (0..self.entrants.len()).map(|_| None).collect())
                .collect();
            let mut seating = Vec::new();
            let mut legal = Vec::with_capacity(64);
            let mut game: Option<G> = None;
            // The last batch's JSON size, to size the next one's buffer once.
            let mut json_len = 0;
            // The machine's failures in a row.
            let mut trouble = 0;
            while let Some(id) = claim() {
                let (lo, hi) = bounds(id);
                let mut part = open(slot, id, json_len);
                let mut index = lo;
                while index < hi {
                    // Stopping: the game under way ended; the rest waits for a resume.
                    if stop.load(Ordering::Relaxed) {
                        part.complete = false;
                        break;
                    }
                    let r = (index % sets as u64) as usize;
                    let (rec, _) = self.play_index(
                        index,
                        slot * sets + r,
                        &mut agents[r],
                        &mut seating,
                        &mut legal,
                        &mut game,
                    );
                    if let Some(f) = again_of(&rec) {
                        // No bot's doing: the same game again.
                        if count_again(&replays, f) {
                            pause(&mut trouble, stop);
                        }
                        continue;
                    }
                    trouble = 0;
                    add(&mut part, index, rec);
                    index += 1;
                }
                json_len = part.json.len();
                if !sink(part) {
                    break;
                }
            }
        };
        let mut pending: BTreeMap<u64, Chunk<G::Choice>> = BTreeMap::new();
        let mut want = 0u64;
        // After a batch cut short, nothing more is counted: the games merged stay
        // the first ones of the range, with none missing.
        let mut halted = false;
        let mut absorb = |part: Chunk<G::Choice>| {
            pending.insert(part.id, part);
            while let Some(mut part) = pending.remove(&want).filter(|_| !halted) {
                halted = !part.complete;
                standings.merge(&part.standings);
                stops.extend(part.stops.iter().cloned());
                merged += part.games;
                if json {
                    observer.on_json(&part.json);
                    if !part.lines.is_empty() {
                        observer.on_lines(&part.lines);
                    }
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
            replays: replays.into_inner().unwrap_or_else(|e| e.into_inner()),
        }
    }

    /// Under duplicate play, the games dealt the same cards (a deal's
    /// rotations, times [`Schedule::deals_alike`]): each is played by agents
    /// of its own, so no program sees the same cards twice.
    fn rotations(&self) -> Option<usize> {
        self.duplicate.then(|| {
            self.schedule.table(self.entrants.len()).max(1) * self.schedule.deals_alike() as usize
        })
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
            // The deal's chance events (a pair block's two mirrored deals
            // share them); the bots' own streams stay per game.
            let alike = self.schedule.deals_alike();
            let cards = deal / alike * alike;
            GameSeeds::of(self.seed, index).with_deal(GameSeeds::of(self.seed, cards).deal)
        } else {
            self.schedule.seating(n, self.seed, index, seating);
            GameSeeds::of(self.seed, index)
        }
    }

    /// A worker's loop when some entrant plays several games at once: it keeps up to
    /// [`MAX_TABLES`] games going (as many as every such entrant takes), asks all
    /// their pending decisions, sends each agent its requests at once and then
    /// takes the answers. Games are independent, so each one plays as it would
    /// alone. The open batches are the workers' [`Pool`] (see [`Pool::pick`]
    /// for which game a free table takes), and whoever ends a batch's last game
    /// hands the batch on, whole.
    fn work_multi(
        &self,
        slot: usize,
        batches: &Batches<'_, G::Choice>,
        sink: &mut dyn FnMut(Chunk<G::Choice>) -> bool,
        stop: &AtomicBool,
    ) {
        let Batches {
            claim,
            bounds,
            open,
            add,
            pool,
            replays,
            stop_on_forfeit,
        } = *batches;
        let lock = || pool.lock().unwrap_or_else(|e| e.into_inner());
        lock().active += 1;
        // Under duplicate play, each rotation of a deal is played at its own table,
        // by agents of that table only (a process per rotation): no program sees two
        // rotations of one deal, so none can carry a seat's cards from one into the
        // next.
        let rotations = self.rotations();
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
        // Which entrants' programs log: only they are asked for lines.
        let logging: Vec<bool> = agents.iter_mut().map(|a| a.logs()).collect();
        let mut games: Vec<Option<G>> = (0..tables).map(|_| None).collect();
        let mut seated: Vec<Option<Seated<G::Choice>>> = (0..tables).map(|_| None).collect();
        let mut json_len = 0;
        // The games ended this round: batch, index, record.
        let mut ended: Vec<(u64, u64, GameRecord<G::Choice>)> = Vec::new();
        let mut done: Vec<OpenChunk<G::Choice>> = Vec::new();
        // The tables asked this round, with the seat asked.
        let mut asked: Vec<(usize, Seat)> = Vec::with_capacity(tables);
        // Games to play again at each table (index, batch): lost with a process
        // that failed in another game, or not started for the machine's trouble.
        // (and whether the machine was to blame).
        let mut again: Vec<Option<(u64, u64, bool)>> = vec![None; tables];
        let mut trouble = 0;
        loop {
            // A new game at every free table, in index order (none once stopping:
            // the games under way end, the rest waits for a resume).
            let stopping = stop.load(Ordering::Relaxed);
            // A game could not start for the machine's trouble.
            let mut starved = false;
            // Stopping, no game starts but those lost with a process: they
            // were under way, and their batch needs them.
            let replayed =
                |a: &Option<(u64, u64, bool)>| a.is_some_and(|(_, _, m)| !stopping || !m);
            for t in 0..tables {
                if seated[t].is_some() || (stopping && !replayed(&again[t])) {
                    continue;
                }
                let found = match again[t].take() {
                    Some((index, chunk, _)) => Some((index, chunk)),
                    None => lock().pick(slot, t, tables, rotations, claim, bounds),
                };
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
                let names: SmallVec<[&str; MAX_SEATS]> = seating
                    .iter()
                    .enumerate()
                    .map(|(seat, &e)| crate::agent::told_name(&self.entrants[e], seat))
                    .collect();
                let mut sheet = Sheet::new(self.records);
                let mut abandon = None;
                for (seat, &e) in seating.iter().enumerate() {
                    let agent = &mut agents[e];
                    agent.seat_names(t, &names);
                    agent.numbered(t, index);
                    let r = catch_unwind(AssertUnwindSafe(|| {
                        agent.start(t, game, seat, seeds.seat(seat))
                    }));
                    match fault_of(r) {
                        Some(fault) if fault.again.is_some() => abandon = Some(fault),
                        Some(fault) => sheet.forfeit_at_start(game, seat, e, fault),
                        None => {}
                    }
                }
                if let Some(fault) = abandon {
                    // A process the machine could not start: the game is not
                    // played now, but again once it can be.
                    for (seat, &e) in seating.iter().enumerate() {
                        let agent = &mut agents[e];
                        let _ = catch_unwind(AssertUnwindSafe(|| agent.finish(t, game, seat)));
                    }
                    let machine = count_again(replays, &fault);
                    starved |= machine;
                    again[t] = Some((index, chunk, machine));
                    continue;
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
            if starved {
                pause(&mut trouble, stop);
            }
            if seated.iter().all(Option::is_none) && !again.iter().any(replayed) {
                break;
            }
            // Every game's pending decision is asked; games that are over end.
            asked.clear();
            // A game of this round could not start for the machine's trouble.
            let mut machine = false;
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
                if let Some(f) = again_of(&rec) {
                    // No bot's doing: the same game again at this table (left
                    // for a resume if the run is stopping).
                    let by_machine = count_again(replays, f);
                    machine |= by_machine;
                    again[t] = Some((s.index, s.chunk, by_machine));
                    continue;
                }
                if stop_on_forfeit && !rec.forfeits.is_empty() {
                    // At once: no game starts after it, and none is played again.
                    stop.store(true, Ordering::Relaxed);
                }
                ended.push((s.chunk, s.index, rec));
            }
            if machine {
                pause(&mut trouble, stop);
            } else if !ended.is_empty() {
                trouble = 0;
            }
            if !ended.is_empty() {
                lock().end(&mut ended, &mut done);
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
                let e = s.seating[seat];
                if logging[e] {
                    if let Some((time, at_most)) = agent.took(t) {
                        s.sheet.took(seat, time, at_most);
                    }
                    if let Some(text) = agent.take_log(t) {
                        s.sheet.log(seat, e, text);
                    }
                }
                // Every seat here is given the list (programs read it).
                s.sheet
                    .settle(game, seat, &s.seating, &mut s.legal, true, answer, stop);
            }
            // Batches whose games have all ended are handed on.
            for o in done.drain(..) {
                let mut part = open(slot, o.id, json_len);
                for (k, rec) in o.recs.into_iter().enumerate() {
                    if let Some(rec) = rec {
                        add(&mut part, o.lo + k as u64, rec);
                    }
                }
                json_len = part.json.len();
                if !sink(part) {
                    let mut pool = lock();
                    pool.claiming = false;
                    pool.active -= 1;
                    return;
                }
            }
        }
        for agent in agents.iter_mut() {
            agent.flush();
        }
        // Stopped: the last worker to leave hands on, of the first batch left
        // open, the games played from its start on, cut short (later ones are
        // left for a resume).
        let mut opened = {
            let mut pool = lock();
            pool.active -= 1;
            if pool.active > 0 {
                return;
            }
            std::mem::take(&mut pool.opened)
        };
        opened.sort_by_key(|o| o.id);
        if let Some(o) = opened.into_iter().next() {
            let mut part = open(slot, o.id, json_len);
            part.complete = false;
            for (k, rec) in o.recs.into_iter().enumerate() {
                match rec {
                    Some(rec) => add(&mut part, o.lo + k as u64, rec),
                    None => break,
                }
            }
            sink(part);
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
        let mut names = [""; MAX_SEATS];
        for (seat, (slot, &e)) in names.iter_mut().zip(seating.iter()).enumerate() {
            *slot = crate::agent::told_name(&self.entrants[e], seat);
        }
        let names = &names[..seating.len().min(MAX_SEATS)];
        // Borrow each seat's agent mutably (entrants at a table are distinct),
        // walking the agents once in entrant order: no allocation a game.
        let mut order: SmallVec<[(usize, usize); MAX_SEATS]> = seating
            .iter()
            .enumerate()
            .map(|(seat, &e)| (e, seat))
            .collect();
        order.sort_unstable();
        let mut by_seat: SmallVec<[Option<&mut dyn Agent<G>>; MAX_SEATS]> =
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
        let mut refs: SmallVec<[&mut dyn Agent<G>; MAX_SEATS]> = by_seat
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
type AddRecord<'a, C> = dyn Fn(&mut Chunk<C>, u64, GameRecord<C>) + Sync + 'a;

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

/// What a worker that keeps several games going is given to take and hand on
/// batches with: [`Tournament::run_chunked`]'s closures and the shared pool.
struct Batches<'a, C> {
    claim: &'a (dyn Fn() -> Option<u64> + Sync),
    bounds: &'a (dyn Fn(u64) -> (u64, u64) + Sync),
    open: &'a (dyn Fn(usize, u64, usize) -> Chunk<C> + Sync),
    add: &'a AddRecord<'a, C>,
    pool: &'a Mutex<Pool<C>>,
    replays: &'a Mutex<Replays>,
    /// The run stops at the first game with a forfeit.
    stop_on_forfeit: bool,
}

impl<C> Clone for Batches<'_, C> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<C> Copy for Batches<'_, C> {}

/// The batches open among the workers that keep several games going, shared so
/// that the last games of a range go to whichever table is free (with batches
/// kept per worker, a block's last games left up to half the tables idle).
struct Pool<C> {
    /// In the order claimed.
    opened: Vec<OpenChunk<C>>,
    /// Under duplicate play, the tables (worker × tables + table) that began a
    /// game of each deal whose rotations have not all begun: a table plays at
    /// most one rotation of a deal, so no program sees a deal twice.
    deals: BTreeMap<u64, SmallVec<[usize; MAX_SEATS]>>,
    /// Under duplicate play, the deals one of whose games is being played,
    /// with how many, and the games a deal holds: no second rotation of a
    /// deal begins while one is under way, so two processes that hold
    /// different seats of one deal are never running at once (time is the
    /// one channel two sandboxes keep).
    running: BTreeMap<u64, usize>,
    /// The games of a deal, once known.
    per_deal: Option<u64>,
    /// Batches may still be claimed.
    claiming: bool,
    /// Workers in the loop: the last to leave hands on what a stop cut short.
    active: usize,
}

impl<C> Pool<C> {
    /// The game table `t` of worker `slot` (of `tables` each) plays next, with
    /// its batch, marked begun; claims batches as needed. Under duplicate play
    /// (`rotations` a deal) a table never plays two rotations of one deal.
    ///
    /// It takes from its worker's own batches the first game of its rotation,
    /// so a worker's tables play a deal's rotations side by side: a program,
    /// seated once per deal, is then asked at one table at a time (tables out
    /// of step cost the programs about 15% more CPU a decision on two cores,
    /// as their processes crowd each other). Once no batch is left to claim, it
    /// takes any game it may play from any worker's batches, so that the
    /// range's last games are shared out rather than left to one worker.
    fn pick(
        &mut self,
        slot: usize,
        t: usize,
        tables: usize,
        rotations: Option<usize>,
        claim: &dyn Fn() -> Option<u64>,
        bounds: &dyn Fn(u64) -> (u64, u64),
    ) -> Option<(u64, u64)> {
        let table = slot * tables + t;
        let own = |o: &OpenChunk<C>, index: u64| {
            o.owner == slot && rotations.is_none_or(|k| index % k as u64 == t as u64)
        };
        while self.claiming {
            if let Some(found) = self.take(table, rotations, own) {
                return Some(found);
            }
            // A table that ran ahead waits rather than claim more while games
            // of the others' rotations pile up here.
            let waiting: usize = self
                .opened
                .iter()
                .filter(|o| o.owner == slot)
                .map(|o| o.started[o.first..].iter().filter(|s| !**s).count())
                .sum();
            if waiting >= 2 * tables {
                return None;
            }
            let Some(id) = claim() else {
                self.claiming = false;
                break;
            };
            let (lo, hi) = bounds(id);
            self.opened.push(OpenChunk {
                id,
                owner: slot,
                lo,
                first: 0,
                started: vec![false; (hi - lo) as usize],
                left: hi - lo,
                recs: (lo..hi).map(|_| None).collect(),
            });
        }
        self.take(table, rotations, own)
            .or_else(|| self.take(table, rotations, |_, _| true))
    }

    /// Marks begun the first game not begun that `wanted` accepts and that
    /// `table` may play (under duplicate play: of a deal it has not played).
    fn take(
        &mut self,
        table: usize,
        rotations: Option<usize>,
        wanted: impl Fn(&OpenChunk<C>, u64) -> bool,
    ) -> Option<(u64, u64)> {
        let Pool {
            opened,
            deals,
            running,
            per_deal,
            ..
        } = self;
        if let Some(k) = rotations {
            *per_deal = Some(k as u64);
        }
        for o in opened.iter_mut() {
            let free = (o.first..o.started.len()).find(|&p| {
                let index = o.lo + p as u64;
                !o.started[p]
                    && wanted(o, index)
                    && rotations.is_none_or(|k| {
                        let deal = index / k as u64;
                        !running.contains_key(&deal)
                            && deals.get(&deal).is_none_or(|by| !by.contains(&table))
                    })
            });
            let Some(p) = free else { continue };
            o.started[p] = true;
            while o.first < o.started.len() && o.started[o.first] {
                o.first += 1;
            }
            let index = o.lo + p as u64;
            if let Some(k) = rotations {
                let deal = index / k as u64;
                *running.entry(deal).or_default() += 1;
                let by = deals.entry(deal).or_default();
                by.push(table);
                if by.len() >= k {
                    deals.remove(&deal);
                }
            }
            return Some((index, o.id));
        }
        None
    }

    /// Files the `ended` games' records in their batches, and moves the
    /// batches whose games have all ended to `done`.
    fn end(&mut self, ended: &mut Vec<(u64, u64, GameRecord<C>)>, done: &mut Vec<OpenChunk<C>>) {
        for (chunk, index, rec) in ended.drain(..) {
            if let Some(k) = self.per_deal {
                let deal = index / k;
                if let Some(n) = self.running.get_mut(&deal) {
                    *n -= 1;
                    if *n == 0 {
                        self.running.remove(&deal);
                    }
                }
            }
            if let Some(o) = self.opened.iter_mut().find(|o| o.id == chunk) {
                o.recs[(index - o.lo) as usize] = Some(rec);
                o.left -= 1;
            }
        }
        while let Some(pos) = self
            .opened
            .iter()
            .position(|o| o.left == 0 && o.first == o.started.len())
        {
            done.push(self.opened.remove(pos));
        }
    }
}

/// A batch being played by the workers that keep several games going.
struct OpenChunk<C> {
    id: u64,
    /// The worker that claimed it.
    owner: usize,
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
    logs: Vec<Option<String>>,
    took: Vec<Option<std::time::Duration>>,
}

impl<G: Game> PerTable<G> {
    fn new(factory: AgentFactory<G>, slot: usize, tables: usize) -> Self {
        PerTable {
            factory,
            first: slot * tables,
            agents: Vec::new(),
            answers: Vec::new(),
            stops: Vec::new(),
            logs: Vec::new(),
            took: Vec::new(),
        }
    }

    /// Table `t`'s agent, made at its first use.
    fn agent(&mut self, t: usize) -> &mut Box<dyn Agent<G>> {
        if self.agents.len() <= t {
            self.agents.resize_with(t + 1, || None);
            self.answers.resize_with(t + 1, || None);
            self.stops.resize_with(t + 1, || None);
            self.logs.resize_with(t + 1, || None);
            self.took.resize_with(t + 1, || None);
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
        let logging = agent.logs();
        let (mut stop, mut log) = (None, None);
        let asked = logging.then(std::time::Instant::now);
        let answer = catch_unwind(AssertUnwindSafe(|| {
            let a = agent.decide(game, seat, legal);
            stop = agent.take_stop();
            if logging {
                log = agent.take_log();
            }
            a
        }));
        self.answers[table] = Some(answer);
        self.stops[table] = stop;
        self.logs[table] = log;
        self.took[table] = asked.map(|t0| t0.elapsed());
    }
    fn flush(&mut self) {}
    fn answer(&mut self, table: usize, _legal: &[G::Choice]) -> Result<G::Choice, Fault> {
        match self.answers.get_mut(table).and_then(Option::take) {
            Some(Ok(answer)) => answer,
            Some(Err(p)) => Err(Fault::panicked(&p)),
            None => Err(Fault::new("answer taken before it was asked")),
        }
    }
    fn finish(&mut self, table: usize, game: &G, seat: Seat) {
        self.agent(table).finish(game, seat);
    }
    fn take_stop(&mut self, table: usize) -> Option<String> {
        self.stops.get_mut(table).and_then(Option::take)
    }
    fn take_log(&mut self, table: usize) -> Option<String> {
        self.logs.get_mut(table).and_then(Option::take)
    }
    fn took(&mut self, table: usize) -> Option<(std::time::Duration, bool)> {
        let t = self.took.get_mut(table).and_then(Option::take)?;
        Some((t, false))
    }
    fn logs(&mut self) -> bool {
        self.agent(0).logs()
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

impl<C: Serialize + ChoiceCode, O: Observer<C> + ?Sized> Observer<C> for RecordWriter<'_, O> {
    fn wants_json(&self) -> bool {
        true
    }
    fn wants_records(&self) -> bool {
        // Lines come from the workers; records only for a reader behind.
        self.inner.wants_records()
    }
    fn on_json(&mut self, lines: &[u8]) {
        self.fed = true;
        self.write(lines);
    }
    fn on_lines(&mut self, lines: &[u8]) {
        self.write_lines(lines);
    }
    fn on_record(&mut self, record: &GameRecord<C>) {
        // Driven by hand rather than by a tournament: serialise here.
        if !self.fed {
            let mut line = Vec::with_capacity(512);
            record.write_json_line(&mut line);
            self.write(&line);
            line.clear();
            record.write_lines_line(&mut line);
            self.write_lines(&line);
        }
        self.inner.on_record(record);
    }
    fn on_progress(&mut self, progress: &Progress<'_>) {
        self.flush_batch();
        self.inner.on_progress(progress);
    }
}

#[cfg(test)]
mod tests {
    use super::{chunk_starts, Pool};
    use std::collections::BTreeMap;

    /// A game of `index` ended, for [`Pool::end`].
    fn ended(index: u64) -> Vec<(u64, u64, crate::GameRecord<u8>)> {
        vec![(
            0,
            index,
            crate::GameRecord {
                index,
                seed: 0,
                seats: crate::PerSeat::new(),
                outcome: crate::game::Outcome {
                    winners: crate::game::SeatSet::default(),
                    ending: crate::game::Ending::Decided,
                    turns: 0,
                },
                scores: crate::PerSeat::new(),
                decisions: 0,
                forfeits: Vec::new(),
                notices: Vec::new(),
                places: crate::PerSeat::new(),
                choices: None,
                log: None,
            },
        )]
    }

    /// Under duplicate play (four rotations a deal) each table takes its own
    /// rotation from its worker's batches, but never while another rotation
    /// of that deal is under way (two processes that hold different seats of
    /// one deal never run at once); once nothing is left to claim, a free
    /// table of any worker takes what is not begun, but never a second
    /// rotation of a deal it has played.
    #[test]
    fn the_last_games_are_shared_out_and_no_table_plays_a_deal_twice() {
        let claimed = std::cell::Cell::new(0u64);
        // One batch of two deals: games 0-3 are deal 0, 4-7 deal 1.
        let claim = || {
            let id = claimed.get();
            claimed.set(id + 1);
            (id < 1).then_some(id)
        };
        let bounds = |_| (0, 8);
        let mut pool = Pool::<u8> {
            opened: Vec::new(),
            deals: BTreeMap::new(),
            running: BTreeMap::new(),
            per_deal: None,
            claiming: true,
            active: 0,
        };
        let mut done = Vec::new();
        macro_rules! pick {
            ($slot:expr, $t:expr) => {
                pool.pick($slot, $t, 4, Some(4), &claim, &bounds)
            };
        }
        macro_rules! end {
            ($index:expr) => {
                pool.end(&mut ended($index), &mut done)
            };
        }
        // Worker 0 claims the batch; table 0 takes deal 0, table 1 its
        // rotation of deal 1 (deal 0's is under way); table 2 has none free.
        assert_eq!(pick!(0, 0), Some((0, 0)));
        assert_eq!(pick!(0, 1), Some((5, 0)));
        assert_eq!(pick!(0, 2), None, "both deals under way");
        // Deal 0's game ends: its next rotation may begin.
        end!(0);
        assert_eq!(pick!(0, 2), Some((2, 0)));
        // Worker 1's table 0 finds deal 0 under way at table 2, deal 1 at
        // table 1: nothing; once deal 1's game ends, it takes deal 1's first.
        assert_eq!(pick!(1, 0), None);
        end!(5);
        assert_eq!(pick!(1, 0), Some((4, 0)));
        // Worker 0's table 0 played deal 0, and deal 1 is under way.
        assert_eq!(pick!(0, 0), None);
        end!(2);
        end!(4);
        // Games 1, 3 (deal 0) and 6, 7 (deal 1) are left: one of each at a time.
        assert_eq!(pick!(1, 1), Some((1, 0)));
        assert_eq!(pick!(0, 3), Some((7, 0)));
        assert_eq!(pick!(1, 3), None, "deals 0 and 1 both under way");
        end!(1);
        end!(7);
        assert_eq!(pick!(1, 3), Some((3, 0)));
        assert_eq!(pick!(0, 2), Some((6, 0)));
        end!(3);
        end!(6);
        assert_eq!(pick!(0, 0), None, "every game has begun");
        assert_eq!(claimed.get(), 2, "a claim came back empty, and none after");
        assert_eq!(done.len(), 1, "the batch is done");
        assert!(pool.running.is_empty());
    }

    #[test]
    fn batches_cover_every_game_once_and_shrink_towards_the_end() {
        assert_eq!(chunk_starts(0, 15, 1), vec![0]);
        for (total, chunk, least) in [
            (1, 1, 1),
            (1000, 15, 1),
            (1472, 23, 1),
            (100_000, 64, 1),
            (7, 512, 1),
            (1000, 125, 12),
            (1003, 200, 40),
            (10, 4, 9),
        ] {
            let s = chunk_starts(total, chunk, least);
            assert_eq!((s[0], *s.last().unwrap()), (0, total));
            let sizes: Vec<u64> = s.windows(2).map(|w| w[1] - w[0]).collect();
            assert!(sizes.iter().all(|&n| (1..=chunk).contains(&n)), "{sizes:?}");
            // Never larger than the one before; at least `least` (or `chunk`)
            // but for the last, which is one game when `least` is.
            assert!(sizes.windows(2).all(|w| w[1] <= w[0]), "{sizes:?}");
            let floor = least.min(chunk);
            assert!(
                sizes[..sizes.len() - 1].iter().all(|&n| n >= floor),
                "{sizes:?}"
            );
            if least == 1 {
                assert_eq!(*sizes.last().unwrap(), 1);
            }
        }
        // Whole batches while far from the end.
        let s = chunk_starts(1000, 15, 1);
        assert_eq!(&s[..4], &[0, 15, 30, 45]);
        // Half as many batches when the least is a dozen games: 44, not 90.
        assert_eq!(chunk_starts(1000, 125, 12).len(), 44);
        assert_eq!(chunk_starts(1000, 125, 1).len(), 90);
    }
}
