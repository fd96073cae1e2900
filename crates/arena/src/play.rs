//! Playing one game: every seat's agent asked in turn, each answer checked and
//! applied, a fault or a panic turned into a forfeit (or a penalty, under the
//! rules that have one), and the game's record written as it goes.

use crate::agent::{Agent, Fault};
use crate::game::{Ending, Game, Notice, Outcome, PerSeat, Seat, SeatSet, MAX_SEATS};
use crate::records::{
    ForfeitRecord, GameLog, GameRecord, NoticeKind, NoticeRecord, RecordLevel, Took,
};
use crate::scoring::Scoring;
use crate::seeds::GameSeeds;
use smallvec::SmallVec;
use std::panic::{catch_unwind, AssertUnwindSafe};

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
    let mut listed = [true; MAX_SEATS];
    // And those that log (programs).
    let mut logging = [false; MAX_SEATS];
    for ((l, g), agent) in listed.iter_mut().zip(logging.iter_mut()).zip(agents.iter()) {
        *l = agent.wants_legal();
        *g = agent.logs();
    }
    // Built-in bots only (the common case): one predictable test a decision.
    let any_log = logging.iter().any(|&g| g);
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
        let answer = if any_log && logging[seat] {
            ask_program(
                &mut sheet,
                &mut **agent,
                game,
                seat,
                entrants[seat],
                legal,
                &mut stop,
            )
        } else {
            catch_unwind(AssertUnwindSafe(|| {
                let a = agent.decide(game, seat, legal);
                stop = agent.take_stop();
                a
            }))
        };
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

/// Asks a program for its choice, keeping how long it took and what it logged
/// (out of the loop, which built-in bots run at tens of millions of decisions a
/// second: a clock read is not worth their nanoseconds).
#[inline(never)]
fn ask_program<G: Game>(
    sheet: &mut Sheet<G::Choice>,
    agent: &mut dyn Agent<G>,
    game: &G,
    seat: Seat,
    entrant: usize,
    legal: &[G::Choice],
    stop: &mut Option<String>,
) -> std::thread::Result<Result<G::Choice, Fault>> {
    let t0 = std::time::Instant::now();
    let answer = catch_unwind(AssertUnwindSafe(|| {
        let a = agent.decide(game, seat, legal);
        *stop = agent.take_stop();
        a
    }));
    sheet.took(seat, t0.elapsed(), false);
    if let Some(text) = agent.take_log() {
        sheet.log(seat, entrant, text);
    }
    answer
}

/// What a game's record keeps, gathered while it is played: the decisions asked,
/// the choices applied, forfeits and notices.
pub(crate) struct Sheet<C> {
    level: RecordLevel,
    forfeits: Vec<ForfeitRecord>,
    notices: Vec<NoticeRecord>,
    news: Vec<Notice>,
    choices: Option<crate::code::Choices<C>>,
    /// What programs logged and how long they took, at their decisions.
    log: Option<Box<GameLog>>,
    pub(crate) decisions: u64,
    applied: u64,
}

/// The most of a seat's stderr a game's record keeps, at the decisions where it
/// was written; the run's `logs` folder has all of it.
pub const LOG_BYTES: usize = 8 << 10;

/// The most decisions of a seat a game's record keeps lines at.
pub const LOG_DECISIONS: usize = 256;

/// The most decisions of a game whose time its record keeps (a Samurai duel's
/// 500 turns are 1,000).
pub const TIMED_DECISIONS: usize = 4096;

impl<C: Copy + std::fmt::Debug + crate::ChoiceCode> Sheet<C> {
    pub(crate) fn new(level: RecordLevel) -> Self {
        Sheet {
            level,
            forfeits: Vec::new(),
            notices: Vec::new(),
            news: Vec::new(),
            // Played into this thread's scratch buffer; the record gets a copy of
            // its exact size (one allocation a game, a byte a choice).
            choices: (level == RecordLevel::Full)
                .then(|| crate::code::Choices::from_buffer(SCRATCH.take())),
            log: None,
            decisions: 0,
            applied: 0,
        }
    }

    /// A seat that could not begin the game forfeits it.
    pub(crate) fn forfeit_at_start<G: Game<Choice = C>>(
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
    pub(crate) fn settle<G: Game<Choice = C>>(
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

    /// Keeps `text`, what `seat` logged making the next choice, within
    /// [`LOG_BYTES`] a seat, with a note where it was cut.
    #[cold]
    pub(crate) fn log(&mut self, seat: Seat, entrant: usize, text: String) {
        if self.level != RecordLevel::Full {
            return;
        }
        let log = self.log.get_or_insert_with(Default::default);
        // Counted from what is kept (rare: only programs log), not carried
        // along every game.
        let (mut used, mut lines) = (0, 0);
        for n in log.lines.iter().filter(|n| n.seat == seat) {
            used += n.text.len();
            lines += 1;
        }
        if used >= LOG_BYTES || lines >= LOG_DECISIONS {
            return;
        }
        let mut text = text;
        if used + text.len() > LOG_BYTES {
            let mut cut = LOG_BYTES - used;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
            text.push_str("\n… (cut: the whole log is in the run folder's logs)");
        }
        log.lines.push(NoticeRecord {
            seat,
            at: self.applied,
            entrant,
            kind: NoticeKind::Log,
            text,
            raw: None,
            tried: None,
        });
    }

    /// Keeps how long `seat`, a program, took over the decision now asked (at
    /// most that, when `at_most`: see [`Took`]).
    #[cold]
    pub(crate) fn took(&mut self, seat: Seat, time: std::time::Duration, at_most: bool) {
        if self.level != RecordLevel::Full {
            return;
        }
        let log = self.log.get_or_insert_with(Default::default);
        if log.times.len() < TIMED_DECISIONS {
            let micros = u32::try_from(time.as_micros()).unwrap_or(u32::MAX);
            log.times.push(Took(self.applied, seat, micros, at_most));
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
            Err(p) => Fault::panicked(&p),
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
    pub(crate) fn record<G: Game<Choice = C>>(
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
            log: self.log,
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

pub(crate) fn fault_of(r: std::thread::Result<Result<(), Fault>>) -> Option<Fault> {
    match r {
        Ok(Ok(())) => None,
        Ok(Err(f)) => Some(f),
        Err(p) => Some(Fault::panicked(&p)),
    }
}
