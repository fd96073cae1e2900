//! [`PpcgGame`]: Coup under [`Rules::ppcg`] as the original arbiter runs it: every
//! invocation of a program is one decision, in the arbiter's order, and 200
//! invocations without a winner end the game with both players losing.

use crate::history::History;
use koth_arena::{Game, IllegalChoice, Outcome, Rng, Seat, SeatSet};
use koth_coup::{Card, Choice, Observation, Pending, Rules, State};
use serde::Serialize;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// The arbiter's invocation cap.
pub const MAX_INVOCATIONS: u32 = 200;

/// Rule options of [`PpcgGame`].
#[derive(Clone, Debug, Serialize)]
pub struct PpcgRules {
    /// The engine's rules (normally [`Rules::ppcg`]).
    pub coup: Rules,
    /// Invocations without a winner after which both players lose.
    pub max_invocations: u32,
    /// Forfeit anything but exactly one legal move (`--strict`); by default a move is
    /// accepted and credited as the original arbiter reads it (coup-ppcg.md).
    pub strict: bool,
    /// Names and file names of the games of a tournament (not part of the rules).
    #[serde(skip)]
    pub field: Option<Arc<Field>>,
}

impl PpcgRules {
    /// The rules as a run's `run.json` keeps them (without the tournament's field).
    pub fn from_json(v: &serde_json::Value) -> Result<PpcgRules, String> {
        let coup: Rules = serde_json::from_value(v["coup"].clone())
            .map_err(|e| format!("these are not ppcg rules: {e}"))?;
        let max = v["max_invocations"]
            .as_u64()
            .ok_or("these are not ppcg rules: no max_invocations")?;
        Ok(PpcgRules {
            coup,
            max_invocations: max as u32,
            // Runs recorded before lenient play was the default were strict.
            strict: v["strict"].as_bool().unwrap_or(true),
            field: None,
        })
    }
}

impl Default for PpcgRules {
    fn default() -> Self {
        PpcgRules {
            coup: Rules::ppcg(),
            max_invocations: MAX_INVOCATIONS,
            strict: false,
            field: None,
        }
    }
}

/// What a game needs to know about the tournament it belongs to: who sits where,
/// which round it is, and where its files go.
#[derive(Debug)]
pub struct Field {
    names: Vec<String>,
    schedule: koth_arena::Schedule,
    master_seed: u64,
    out_dir: PathBuf,
    archive: bool,
    index_of_seed: HashMap<u64, u64>,
}

impl Field {
    /// The field of a round robin of `names` with `master_seed`, archiving into `out_dir`.
    pub fn new(
        names: Vec<String>,
        schedule: koth_arena::Schedule,
        master_seed: u64,
        out_dir: PathBuf,
    ) -> Field {
        let total = schedule.len(names.len());
        let index_of_seed = (0..total)
            .map(|i| (koth_arena::GameSeeds::of(master_seed, i).deal, i))
            .collect();
        Field {
            names,
            schedule,
            master_seed,
            out_dir,
            archive: true,
            index_of_seed,
        }
    }

    /// The same field, its games filed nowhere (a hill keeps them in its
    /// database: two files a game would be millions of files a day).
    pub fn unarchived(mut self) -> Field {
        self.archive = false;
        self
    }

    fn meta(&self, seed: u64) -> Option<GameMeta> {
        let &index = self.index_of_seed.get(&seed)?;
        let n = self.names.len();
        let mut seats = Vec::new();
        self.schedule
            .seating(n, self.master_seed, index, &mut seats);
        let per_round = (n * (n - 1)) as u64;
        let round = index / per_round;
        // The arbiter numbers a round's games in `itertools.permutations` order of
        // the list: (0,1), (0,2), ..., (1,0), (1,2), ...
        let (a, b) = (seats[0], seats[1]);
        let game = a * (n - 1) + if b < a { b } else { b - 1 };
        let names = [self.names[a].clone(), self.names[b].clone()];
        let stem = format!("{}_{}_{}_{}", names[0], names[1], round, game);
        Some(GameMeta {
            names,
            stem,
            out_dir: self.out_dir.clone(),
            archive: self.archive,
            index,
        })
    }
}

/// Who plays a game and where its files are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameMeta {
    /// Names by seat.
    pub names: [String; 2],
    /// File name without extension: `<p1>_<p2>_<round>_<game>` as the arbiter names it.
    pub stem: String,
    /// The output folder.
    pub out_dir: PathBuf,
    /// Whether the game's files are written there.
    pub archive: bool,
    /// The game's number in the tournament.
    pub index: u64,
}

impl GameMeta {
    /// The history file in the output folder.
    pub fn history_path(&self) -> PathBuf {
        self.out_dir.join(format!("{}.txt", self.stem))
    }
    /// The readable log in the output folder.
    pub fn log_path(&self) -> PathBuf {
        self.out_dir.join(format!("{}.log", self.stem))
    }
}

/// What the agents tell the game while they decide (the game is shared by both seats'
/// agents, which only get `&PpcgGame`).
#[derive(Clone, Debug, Default)]
pub struct Notes {
    /// Readable log lines, in order.
    pub transcript: Vec<String>,
    /// Text really written for a move (junk kept by the lenient reading), by move index.
    pub raw: Vec<(usize, String)>,
    /// The order in which a program printed the cards it keeps after its Exchange.
    pub exchange_order: Option<(Seat, Vec<Card>)>,
    /// Forfeit reasons, by seat.
    pub faults: [Option<String>; 2],
    /// Forfeits the game itself declared, not yet in the record.
    pub declared: Vec<(Seat, String)>,
    /// Lenient acceptances, not yet in the record: seat, text, what was written.
    pub warnings: Vec<(Seat, String, String)>,
    /// The file as the last program left it, when the game ended on what it wrote.
    pub final_text: Option<String>,
    /// The archive has been written.
    pub archived: bool,
}

/// What the arbiter passes on the next invocation.
#[derive(Clone, Debug)]
pub struct NextCall {
    /// Who is invoked.
    pub seat: Seat,
    /// The move's index.
    pub index: usize,
    /// The file as it is (with any junk the original accepted).
    pub raw: String,
    /// The file as koth reads it (each move alone).
    pub canonical: String,
    /// The arbiter's coins, by seat.
    pub coins: [i32; 2],
    /// The mover's cards, in the arbiter's order.
    pub hand: Vec<Card>,
}

impl NextCall {
    /// The legal moves the original would pass, read from `text`.
    pub fn legal(&self, text: &str) -> Option<Vec<String>> {
        crate::protocol::legal_moves(
            text,
            &crate::protocol::Side {
                coins: self.coins[self.seat],
                cards: &self.hand,
            },
            &crate::protocol::Side {
                coins: self.coins[1 - self.seat],
                cards: &[],
            },
        )
    }
}

/// One game of the challenge.
#[derive(Debug)]
pub struct PpcgGame {
    state: State,
    history: History,
    max_invocations: u32,
    strict: bool,
    capped: bool,
    meta: GameMeta,
    notes: Mutex<Notes>,
}

impl Clone for PpcgGame {
    fn clone(&self) -> Self {
        PpcgGame {
            state: self.state.clone(),
            history: self.history.clone(),
            max_invocations: self.max_invocations,
            strict: self.strict,
            capped: self.capped,
            meta: self.meta.clone(),
            notes: Mutex::new(self.notes().clone()),
        }
    }
}

impl PpcgGame {
    /// Wraps a fresh engine state (e.g. from [`State::from_setup`]).
    pub fn from_state(state: State, max_invocations: u32, meta: GameMeta) -> PpcgGame {
        let mut g = PpcgGame {
            history: History::new(&state),
            state,
            max_invocations,
            strict: false,
            capped: false,
            meta,
            notes: Mutex::new(Notes::default()),
        };
        let before = [g.state.hand(0).to_vec(), g.state.hand(1).to_vec()];
        g.history.update(&g.state, &before);
        g
    }

    /// A game outside a tournament, filed under `out_dir` as `stem`.
    pub fn standalone(
        rules: Rules,
        seed: u64,
        names: [&str; 2],
        out_dir: PathBuf,
        stem: &str,
    ) -> PpcgGame {
        let meta = GameMeta {
            names: names.map(str::to_string),
            stem: stem.to_string(),
            out_dir,
            archive: true,
            index: 0,
        };
        PpcgGame::from_state(State::new(rules, 2, seed), MAX_INVOCATIONS, meta)
    }

    /// Whether only exact moves are accepted (`--strict`).
    pub fn strict(&self) -> bool {
        self.strict
    }

    /// The next invocation: who, the file's raw and canonical text before it, and
    /// the arbiter's coins and the mover's cards (in its order) for its arguments.
    pub fn next_call(&self) -> Option<NextCall> {
        let seat = Game::to_move(self)?;
        let h = &self.history;
        let i = h.invoked();
        let (canonical, hand) = match h.owed() {
            Some((i, m)) => (h.canonical_before(i), m.hand.clone()),
            None => (h.canonical().to_string(), h.hand(seat).to_vec()),
        };
        Some(NextCall {
            seat,
            index: i,
            raw: h.file_before(i.min(h.moves().len())),
            canonical,
            coins: h.coins(),
            hand,
        })
    }

    /// The engine state.
    pub fn state(&self) -> &State {
        &self.state
    }
    /// The history as the arbiter would have written it.
    pub fn history(&self) -> &History {
        &self.history
    }
    /// Names and files.
    pub fn meta(&self) -> &GameMeta {
        &self.meta
    }
    /// Whether the invocation cap ended the game.
    pub fn capped(&self) -> bool {
        self.capped
    }
    /// The notes agents leave (locked).
    pub fn notes(&self) -> std::sync::MutexGuard<'_, Notes> {
        self.notes.lock().unwrap_or_else(|e| e.into_inner())
    }
    /// Adds a line to the readable log.
    pub fn note(&self, line: impl Into<String>) {
        self.notes().transcript.push(line.into());
    }

    fn hands(&self) -> [Vec<Card>; 2] {
        [self.state.hand(0).to_vec(), self.state.hand(1).to_vec()]
    }

    fn after_step(&mut self, before: &[Vec<Card>; 2]) {
        let first_settled = self.history.settled();
        self.history.update(&self.state, before);
        self.take_raw();
        self.history.settle();
        // The target of an Assassinate who gave up a card on a line the arbiter reads
        // as "A, q or s, four characters" has lost the game at once (two cards in one
        // turn): the engine's second loss is taken without asking. Junk in the line
        // hides the rule from the original, which then spares the target.
        loop {
            match self.state.pending() {
                Pending::LoseInfluence { player }
                    if player != self.history.actor()
                        && self.history.lost_in_line(player)
                        && self.history.line().starts_with('A') =>
                {
                    let before = self.hands();
                    if self.history.two_cards() == Some(player) {
                        let card = self.state.hand(player)[0];
                        self.state
                            .apply(Choice::Lose(card))
                            .expect("forced loss is legal");
                    } else {
                        self.state.skip_loss();
                        self.note("     the original spares the target: junk in the line hides its two-cards rule");
                    }
                    self.history.update(&self.state, &before);
                    self.history.settle();
                }
                _ => break,
            }
        }
        self.reconcile_coins();
        if !self.strict {
            self.check_followable();
        }
        let mut notes = self.notes.lock().unwrap_or_else(|e| e.into_inner());
        let n = self.history.settled();
        for i in first_settled..n {
            let m = &self.history.moves()[i];
            let raw = self.history.raw(i);
            let mut s = format!(
                "#{:<3} {:<12} {:<4}",
                i + 1,
                self.meta.names[m.seat],
                format!("{:?}", m.text)
            );
            if raw != m.text {
                s.push_str(&format!(" (wrote {raw:?})"));
            }
            if m.owed {
                s.push_str(" (owed)");
            }
            notes.transcript.push(s);
        }
        if n > first_settled {
            notes.transcript.push(format!("     {}", self.status()));
        }
        drop(notes);
        if !self.state.is_over() && self.history.invoked() >= self.max_invocations as usize {
            self.capped = true;
            self.note(format!(
                "{} invocations without a winner: both lose",
                self.max_invocations
            ));
            self.state.adjudicate(SeatSet::EMPTY);
        }
    }

    /// Moves the text programs really wrote into the history.
    fn take_raw(&mut self) {
        let mut notes = self.notes.lock().unwrap_or_else(|e| e.into_inner());
        let n = self.history.moves().len();
        let mut keep = Vec::new();
        for (i, raw) in notes.raw.drain(..) {
            if i < n {
                self.history.set_raw(i, raw);
            } else {
                keep.push((i, raw));
            }
        }
        notes.raw = keep;
        if let Some((seat, order)) = notes.exchange_order.take() {
            let mut a = order.clone();
            a.sort();
            let mut b = self.state.hand(seat).to_vec();
            b.sort();
            if a == b {
                self.history.set_hand_order(seat, order);
            }
        }
    }

    /// At the end of a line the engine's coins are the arbiter's: junk the original
    /// accepted can change what it credits (its effects are read from the line's
    /// first and second-to-last characters).
    fn reconcile_coins(&mut self) {
        let h = &self.history;
        if self.state.is_over()
            || !h.canonical().ends_with('\n')
            || h.invoked() != h.moves().len()
            || h.settled() != h.invoked()
        {
            return;
        }
        for seat in 0..2 {
            let books = h.coins()[seat].clamp(0, u8::MAX as i32) as u8;
            if books != self.state.coins(seat) {
                self.state.set_coins(seat, books);
            }
        }
    }

    /// The original reads the next invocation's legal moves from the raw line; if
    /// junk it accepted makes them differ from the moves koth's reading gives (another
    /// claim challenged, a give-up with or without its newline, a crash of the
    /// original), the two part ways: the junk's writer forfeits, with the reason.
    fn check_followable(&mut self) {
        if self.state.is_over() || self.history.file_text() == self.history.canonical() {
            return;
        }
        let Some(next) = self.next_call() else { return };
        let raw = next.legal(&next.raw);
        let canonical = next.legal(&next.canonical);
        if raw == canonical {
            return;
        }
        let Some(j) = self.history.junk_in_line() else {
            return;
        };
        let writer = self.history.moves()[j].seat;
        let line = crate::protocol::last_line(&next.raw)
            .unwrap_or("")
            .to_string();
        let reason = match raw {
            None => format!(
                "wrote junk the original arbiter accepts, but the line {line:?} then stops it (\"file ended in invalid character\" or a crash); write the move alone"
            ),
            Some(r) => format!(
                "wrote junk the original arbiter accepts, but it then reads the line {line:?} differently (it would offer {r:?} where the moves mean {:?}); koth cannot follow the original here: write the move alone",
                canonical.unwrap_or_default()
            ),
        };
        let before = self.hands();
        self.state.forfeit(writer);
        self.history.update(&self.state, &before);
        self.note(format!(
            "     {} forfeits: {reason}",
            self.meta.names[writer]
        ));
        let mut notes = self.notes();
        notes.faults[writer] = Some(reason.clone());
        notes.declared.push((writer, reason));
    }

    /// Coins and cards of both players, as the arbiter counts them.
    pub fn status(&self) -> String {
        let c = self.history.coins();
        let cards = |s: Seat| -> String {
            self.history
                .hand(s)
                .iter()
                .map(|&k| crate::protocol::reveal_char(k))
                .collect()
        };
        format!(
            "{}: {} coins, cards {:?} | {}: {} coins, cards {:?}",
            self.meta.names[0],
            c[0],
            cards(0),
            self.meta.names[1],
            c[1],
            cards(1)
        )
    }

    /// Writes the history file and the readable log to the output folder (once).
    pub fn write_archive(&self) -> std::io::Result<()> {
        let mut notes = self.notes();
        if notes.archived || !self.meta.archive {
            return Ok(());
        }
        notes.archived = true;
        std::fs::create_dir_all(&self.meta.out_dir)?;
        let text = notes
            .final_text
            .clone()
            .unwrap_or_else(|| self.history.settled_text().to_string());
        std::fs::write(self.meta.history_path(), text)?;
        let mut log = String::new();
        log.push_str(&format!(
            "{} (first) vs {} (second)\n",
            self.meta.names[0], self.meta.names[1]
        ));
        log.push_str(&format!(
            "history file: {}\n\n",
            self.meta.history_path().display()
        ));
        for l in &notes.transcript {
            log.push_str(l);
            log.push('\n');
        }
        log.push('\n');
        log.push_str(&self.ending(&notes));
        log.push('\n');
        std::fs::write(self.meta.log_path(), log)
    }

    fn ending(&self, notes: &Notes) -> String {
        let names = &self.meta.names;
        let Some(o) = self.state.outcome() else {
            return "the game did not finish".into();
        };
        if self.capped {
            return format!(
                "result: no winner, {} invocations without a winner: both lose",
                self.max_invocations
            );
        }
        let mut s = String::from("result: ");
        match o.winners.iter().next() {
            Some(w) if o.winners.len() == 1 => {
                let l = 1 - w;
                match &notes.faults[l] {
                    Some(reason) => s.push_str(&format!(
                        "{} wins: {} forfeits: {}",
                        names[w], names[l], reason
                    )),
                    None if self
                        .state
                        .log()
                        .iter()
                        .any(|e| matches!(e, koth_coup::Event::Forfeit { .. })) =>
                    {
                        s.push_str(&format!("{} wins: {} forfeits", names[w], names[l]))
                    }
                    None => s.push_str(&format!(
                        "{} wins by eliminating both opponent cards",
                        names[w]
                    )),
                }
            }
            _ => s.push_str("no winner"),
        }
        s
    }
}

impl Game for PpcgGame {
    type Choice = Choice;
    type Rules = PpcgRules;
    type Observation = Observation;
    const NAME: &'static str = "coup-ppcg";

    fn seats_allowed(_rules: &PpcgRules) -> std::ops::RangeInclusive<usize> {
        2..=2
    }

    fn new_game(rules: &PpcgRules, _seats: usize, seed: u64) -> Self {
        let meta = rules
            .field
            .as_ref()
            .and_then(|f| f.meta(seed))
            .unwrap_or_else(|| GameMeta {
                names: ["first".into(), "second".into()],
                stem: format!("game_{seed:016x}"),
                // No field, no folder: such a game is filed nowhere (never in a
                // shared temporary folder, where anyone may have planted a link).
                out_dir: PathBuf::new(),
                archive: false,
                index: 0,
            });
        let mut g =
            PpcgGame::from_state(State::new(rules.coup, 2, seed), rules.max_invocations, meta);
        g.strict = rules.strict;
        g
    }

    fn seats(&self) -> usize {
        2
    }

    fn to_move(&self) -> Option<Seat> {
        if self.state.is_over() {
            return None;
        }
        match self.history.owed() {
            Some((_, m)) => Some(m.seat),
            None => self.state.to_move(),
        }
    }

    fn legal_choices(&self, out: &mut Vec<Choice>) {
        if self.state.is_over() {
            return;
        }
        if self.history.owed().is_some() {
            out.push(Choice::Pass);
        } else {
            self.state.legal_choices(out);
        }
    }

    fn apply(&mut self, choice: Choice) -> Result<(), IllegalChoice> {
        if self.state.is_over() {
            return Err(IllegalChoice("the game is over".into()));
        }
        if self.history.owed().is_some() {
            if choice != Choice::Pass {
                return Err(IllegalChoice(format!(
                    "{choice:?}: an owed move is confirmed with Pass"
                )));
            }
            self.history.confirm_owed();
            let before = self.hands();
            self.after_step(&before);
            return Ok(());
        }
        let before = self.hands();
        self.state.apply(choice)?;
        self.after_step(&before);
        Ok(())
    }

    fn forfeit(&mut self, seat: Seat) {
        let before = self.hands();
        self.state.forfeit(seat);
        self.history.update(&self.state, &before);
    }

    fn adjudicate(&mut self, winners: SeatSet) {
        self.state.adjudicate(winners)
    }

    fn take_notices(&mut self, out: &mut Vec<koth_arena::Notice>) {
        let mut notes = self.notes();
        for (seat, reason) in notes.declared.drain(..) {
            out.push(koth_arena::Notice::Forfeit { seat, reason });
        }
        for (seat, text, raw) in notes.warnings.drain(..) {
            out.push(koth_arena::Notice::Warning {
                seat,
                text,
                raw: Some(raw),
            });
        }
    }

    fn replay_notice(&mut self, _seat: Seat, raw: &str) {
        // The next move is the one this text was written for.
        let i = self.history.invoked();
        self.notes().raw.push((i, raw.to_string()));
    }

    fn outcome(&self) -> Option<Outcome> {
        self.state.outcome()
    }

    fn observe(&self, seat: Seat) -> Observation {
        Game::observe(&self.state, seat)
    }

    fn shuffle_hidden(&mut self, viewer: Seat, rng: &mut Rng) {
        self.state.shuffle_hidden(viewer, rng);
        for s in (0..2).filter(|&s| s != viewer) {
            self.history.set_hand_order(s, self.state.hand(s).to_vec());
        }
    }

    fn check_invariants(&self) -> Result<(), String> {
        self.state.check_invariants()?;
        self.history.check(&self.state)
    }

    fn turns(&self) -> u32 {
        self.state.turns()
    }

    fn places(&self, out: &mut koth_arena::PerSeat<u8>) {
        self.state.places(out)
    }
}
