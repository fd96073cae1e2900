//! Agents of [`PpcgGame`]: [`PpcgAgent`] runs an external program through the
//! history-file protocol; [`Lifted`] seats any `Agent<State>` (built-in and Rust bots).

use crate::game::PpcgGame;
use crate::protocol::{self, card_of_give_up};
use koth_arena::{Agent, Fault, Game, Seat};
use koth_coup::{Action, Card, Choice, Keep, Pending, State};
use koth_process::{Command, Exit, InvokeResult, Move, Session};
use std::path::PathBuf;
use std::time::Duration;

/// How programs are run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Time limit of one invocation.
    pub timeout: Duration,
    /// Forfeit anything but exactly one legal move. By default a move is accepted as
    /// the original arbiter accepts it (`endswith` on the file's last line: junk
    /// before a legal move, or `I\n` where `\n` is legal; one or two characters
    /// appended), with a warning, and credited as the original reads the line.
    pub strict: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            timeout: Duration::from_secs(10),
            strict: false,
        }
    }
}

/// What one invocation was given and did (kept for tests and the log).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invocation {
    /// The arguments after the command: file, coins, coins, cards, legal moves.
    pub args: Vec<String>,
    /// What the program appended.
    pub appended: String,
    /// The move it was taken as.
    pub played: String,
}

/// Plays one seat for an external program, invoking it exactly as the original
/// arbiter does.
pub struct PpcgAgent {
    name: String,
    command: Command,
    opts: RunOptions,
    /// The second engine decision of a move that answers two (an Assassinate let
    /// through with a card given up: pass, then lose that card).
    buffered: Option<Choice>,
    /// Every invocation of the current game.
    pub invocations: Vec<Invocation>,
    /// The program's place for the current game: its sandbox (or, without one, a
    /// fresh copy of its folder), or why it could not start.
    session: Option<Result<Session, String>>,
    /// Where a program without a sandbox runs from: a fresh copy of its folder
    /// every game.
    copies: Option<Copies>,
    /// What the last launches wrote to stderr, not yet taken (for `koth ppcg play`).
    log: String,
}

/// A program's working copies: its original folder, the workspace and the slot.
#[derive(Clone, Debug)]
struct Copies {
    original: PathBuf,
    workspace: std::sync::Arc<koth_process::Workspace>,
    slot: usize,
}

/// Where the history file is in the program's folder (its name is the game's).
fn history_in_folder(game: &PpcgGame) -> PathBuf {
    PathBuf::from(".koth-ppcg").join(format!("{}.txt", game.meta().stem))
}

impl PpcgAgent {
    /// An agent running `command` (its `cwd` is the program's folder).
    pub fn new(name: impl Into<String>, command: Command, opts: RunOptions) -> PpcgAgent {
        PpcgAgent {
            name: name.into(),
            command,
            opts,
            buffered: None,
            invocations: Vec::new(),
            session: None,
            copies: None,
            log: String::new(),
        }
    }

    /// Runs the program from a fresh copy of its folder (`command.cwd`) in
    /// `workspace` at the start of every game, as `slot`'s copy: state files it
    /// keeps never collide with another game's and every game starts from the same
    /// files, whatever the thread count.
    pub fn with_copies(
        mut self,
        workspace: std::sync::Arc<koth_process::Workspace>,
        slot: usize,
    ) -> Self {
        self.copies = Some(Copies {
            original: koth_process::absolute(&self.command.cwd),
            workspace,
            slot,
        });
        self
    }

    fn fault(
        &self,
        game: &PpcgGame,
        seat: Seat,
        reason: String,
        r: Option<&InvokeResult>,
    ) -> Fault {
        let tail = r.map(|r| r.stderr_tail.clone()).filter(|t| !t.is_empty());
        let mut line = format!("     {} forfeits: {reason}", self.name);
        if let Some(t) = &tail {
            line.push_str("\n     stderr tail:\n");
            for l in t.lines() {
                line.push_str("       | ");
                line.push_str(l);
                line.push('\n');
            }
        }
        game.note(line);
        game.notes().faults[seat] = Some(reason.clone());
        Fault {
            stderr_tail: tail,
            ..Fault::new(reason)
        }
    }

    /// Runs the program once with the file holding `before`; returns the move it
    /// made and its stdout.
    #[allow(clippy::too_many_arguments)]
    fn run(
        &mut self,
        game: &PpcgGame,
        seat: Seat,
        before: &str,
        legal: &[String],
        coins: [i32; 2],
        cards: &str,
    ) -> Result<(String, String, String), Fault> {
        let session = match self.session.as_mut() {
            Some(Ok(s)) => s,
            Some(Err(e)) => {
                let reason = format!("could not start: {e}");
                return Err(self.fault(game, seat, reason, None));
            }
            None => {
                return Err(self.fault(game, seat, "internal: the game did not start".into(), None))
            }
        };
        // The history file lives in the program's folder, which only it writes; koth
        // reaches it through the launcher in the sandbox (or, without one, never
        // following a link), and reads back whatever is there after the move.
        let rel = history_in_folder(game);
        let mut args = vec![
            session.folder().join(&rel).display().to_string(),
            coins[1 - seat].to_string(),
            coins[seat].to_string(),
            cards.to_string(),
        ];
        args.extend(legal.iter().cloned());
        let moved = session.run(&Move {
            args: &args,
            timeout: self.opts.timeout,
            max_stdout: 4096,
            write: vec![(rel.as_path(), before.as_bytes())],
            read_back: Some(rel.as_path()),
        });
        let r = moved.result;
        // Kept until taken, and only the latest few KiB (nobody may ask in a run).
        if !r.stderr_tail.trim().is_empty() {
            if self.log.len() > 8192 {
                self.log.clear();
            }
            self.log.push_str(r.stderr_tail.trim_end());
            self.log.push('\n');
        }
        game.note(format!(
            "     invoke {} {:?} ({} ms)",
            self.name,
            &args[1..],
            r.elapsed.as_millis()
        ));
        match &r.exit {
            Exit::Code(0) => {}
            Exit::Code(c) => {
                return Err(self.fault(game, seat, format!("non-zero exit status {c}"), Some(&r)))
            }
            Exit::Signal(s) => {
                return Err(self.fault(game, seat, format!("killed by signal {s}"), Some(&r)))
            }
            Exit::TimedOut => {
                return Err(self.fault(
                    game,
                    seat,
                    format!("timeout after {} ms", self.opts.timeout.as_millis()),
                    Some(&r),
                ))
            }
            // The machine could not start it: a game to play again, not a fault.
            Exit::SpawnFailed(m) if koth_process::machine_error(m) => {
                return Err(Fault::machine(format!("could not start: {m}")))
            }
            Exit::SpawnFailed(m) => {
                return Err(self.fault(game, seat, format!("could not start: {m}"), Some(&r)))
            }
        }
        let after = match moved.read_back {
            Some(Ok(b)) => String::from_utf8_lossy(&b).into_owned(),
            Some(Err(e)) => {
                return Err(self.fault(
                    game,
                    seat,
                    format!("the history file is gone: {e}"),
                    Some(&r),
                ))
            }
            None => {
                return Err(self.fault(
                    game,
                    seat,
                    "internal: no history read back".into(),
                    Some(&r),
                ))
            }
        };
        let stdout = r.stdout_lossy();
        let (appended, played) = if !(self.opts.strict || game.strict()) {
            // play_game: the old text must be the new one minus one or two characters
            // (bytes, as in its Python 2), then the first legal move the file's last
            // line ends with.
            let grew = after.len().wrapping_sub(before.len());
            if !after.starts_with(before) || !(1..=2).contains(&grew) {
                if let Some(extra) = after.strip_prefix(before) {
                    game.notes().final_text = Some(after.clone());
                    let what = if extra.is_empty() {
                        "wrote nothing to the history file".to_string()
                    } else {
                        format!("appended {extra:?}: one move is one or two characters")
                    };
                    return Err(self.fault(game, seat, what, Some(&r)));
                }
                game.notes().final_text = Some(after.clone());
                return Err(self.fault(
                    game,
                    seat,
                    format!(
                        "changed the file other than appending (old ends {:?}, new ends {:?})",
                        tail(before),
                        tail(&after)
                    ),
                    Some(&r),
                ));
            }
            let appended = after[before.len()..].to_string();
            let last = protocol::last_line(&after).unwrap_or("");
            match legal.iter().find(|m| last.ends_with(m.as_str())) {
                Some(m) => {
                    if appended != *m {
                        let text = format!(
                            "wrote {appended:?} where {m:?} is the move: accepted as the original arbiter accepts it"
                        );
                        game.note(format!("     warning: {} {text}", self.name));
                        game.notes().warnings.push((seat, text, appended.clone()));
                    }
                    (appended, m.clone())
                }
                None => {
                    game.notes().final_text = Some(after.clone());
                    return Err(self.fault(
                        game,
                        seat,
                        format!("illegal move, last line {last:?} (legal: {legal:?})"),
                        Some(&r),
                    ));
                }
            }
        } else {
            let Some(appended) = after.strip_prefix(before) else {
                game.notes().final_text = Some(after.clone());
                return Err(self.fault(
                    game,
                    seat,
                    format!(
                        "changed the file other than appending (old ends {:?}, new ends {:?})",
                        tail(before),
                        tail(&after)
                    ),
                    Some(&r),
                ));
            };
            if appended.is_empty() {
                return Err(self.fault(
                    game,
                    seat,
                    "wrote nothing to the history file".into(),
                    Some(&r),
                ));
            }
            if !legal.iter().any(|m| m == appended) {
                game.notes().final_text = Some(after.clone());
                return Err(self.fault(
                    game,
                    seat,
                    format!("illegal move {appended:?} (legal: {legal:?}; --strict takes exactly one legal move)"),
                    Some(&r),
                ));
            }
            (appended.to_string(), appended.to_string())
        };
        self.invocations.push(Invocation {
            args: args[1..].to_vec(),
            appended: appended.clone(),
            played: played.clone(),
        });
        Ok((appended, played, stdout))
    }
}

fn tail(s: &str) -> String {
    let k = s.chars().count();
    s.chars().skip(k.saturating_sub(20)).collect()
}

/// The engine choice (and a second, buffered one) a move stands for.
pub fn choice_of(mv: &str, pending: Pending, state: &State) -> Option<(Choice, Option<Choice>)> {
    let one = |c| Some((c, None));
    let first = mv.chars().next()?;
    match pending {
        Pending::Action { actor } => {
            let opp = state.opponents(actor).next()?;
            one(Choice::Act(match mv {
                "I\n" => Action::Income,
                "F" => Action::ForeignAid,
                "E" => Action::Exchange,
                "T" => Action::Tax,
                "S" => Action::Steal(opp),
                "A" => Action::Assassinate(opp),
                "C" => Action::Coup(opp),
                _ => return None,
            }))
        }
        Pending::ChallengeAction { .. } => match mv {
            "p" => one(Choice::Pass),
            "q" => one(Choice::Challenge),
            "s" => one(Choice::Block(Card::Contessa)),
            "a" => one(Choice::Block(Card::Ambassador)),
            "c" => one(Choice::Block(Card::Captain)),
            _ if mv.len() == 1 => Some((Choice::Pass, Some(Choice::Lose(card_of_give_up(first)?)))),
            _ => None,
        },
        Pending::Block { .. } => match mv {
            "d" => one(Choice::Block(Card::Duke)),
            "p" => one(Choice::Pass),
            _ => None,
        },
        Pending::ChallengeBlock { .. } => match mv {
            "\n" => one(Choice::Pass),
            "q" => one(Choice::Challenge),
            _ => None,
        },
        Pending::LoseInfluence { .. } => one(Choice::Lose(card_of_give_up(first)?)),
        Pending::Exchange { .. } | Pending::Over => None,
    }
}

impl Agent<PpcgGame> for PpcgAgent {
    fn logs(&self) -> bool {
        true
    }

    /// What the program's launches wrote to stderr since the last call.
    fn take_log(&mut self) -> Option<String> {
        (!self.log.is_empty()).then(|| std::mem::take(&mut self.log))
    }

    fn start(&mut self, _game: &PpcgGame, _seat: Seat, _seed: u64) -> Result<(), Fault> {
        self.log.clear();
        self.buffered = None;
        self.invocations.clear();
        // One place for the whole game: a sandbox the program is launched in at
        // every move (or a fresh copy of its folder, without a sandbox).
        self.session = None;
        let copies = self
            .copies
            .as_ref()
            .map(|c| (&c.workspace, c.slot, self.name.as_str()));
        let mut cmd = self.command.clone();
        if let Some(c) = &self.copies {
            cmd.cwd = c.original.clone();
        }
        self.session = Some(Session::start(&cmd, copies));
        Ok(())
    }

    fn decide(&mut self, game: &PpcgGame, seat: Seat, legal: &[Choice]) -> Result<Choice, Fault> {
        if let Some(c) = self.buffered.take() {
            if legal.contains(&c) {
                return Ok(c);
            }
            return Err(self.fault(
                game,
                seat,
                format!("internal: buffered {c:?} is not legal"),
                None,
            ));
        }
        let Some(call) = game.next_call().filter(|c| c.seat == seat) else {
            return Err(self.fault(game, seat, "internal: not this seat's call".into(), None));
        };
        // The arbiter's list, read from the file as it is (koth has checked that junk
        // in it does not change the list).
        let Some(legal_moves) = call.legal(&call.raw) else {
            return Err(self.fault(
                game,
                seat,
                format!("internal: no legal moves after {:?}", tail(&call.raw)),
                None,
            ));
        };
        // A move the arbiter asks for that the engine does not: a reveal, or the
        // newline that ends a turn. There is exactly one legal move.
        if let Some((i, m)) = game.history().owed() {
            debug_assert_eq!(
                call.legal(&call.canonical).unwrap_or_default(),
                std::slice::from_ref(&m.text),
                "owed move must be the only legal one"
            );
            let cards = protocol::cards_arg(None, &call.hand);
            let (appended, _, _) =
                self.run(game, seat, &call.raw, &legal_moves, call.coins, &cards)?;
            if appended != m.text {
                game.notes().raw.push((i, appended));
            }
            return Ok(Choice::Pass);
        }
        let state = game.state();
        let exchanging = matches!(state.pending(), Pending::Exchange { actor } if actor == seat);
        // The arbiter hands over the drawn cards only when the raw line says the
        // Exchange went through.
        let drawn = state
            .drawn()
            .filter(|_| exchanging && protocol::exchange_due(&call.raw));
        let cards = protocol::cards_arg(drawn, &call.hand);
        let (appended, played, stdout) =
            self.run(game, seat, &call.raw, &legal_moves, call.coins, &cards)?;
        if appended != played {
            game.notes().raw.push((call.index, appended.clone()));
        }
        if exchanging {
            let hand = &call.hand;
            let line = format!("{}{}", call.raw, appended);
            let line = protocol::last_line(&line).unwrap_or("").to_string();
            if !protocol::exchange_credited(&line) {
                // The original credits no Exchange on this line: the hand stays.
                game.note(format!(
                    "     the original credits no Exchange on {line:?}: {} keeps its cards",
                    self.name
                ));
                let keep = Keep::new(hand)
                    .ok_or_else(|| self.fault(game, seat, "internal: hand".into(), None))?;
                return Ok(Choice::Keep(keep));
            }
            let kept = protocol::parse_exchange(&stdout, &cards, hand.len())
                .map_err(|e| self.fault(game, seat, format!("illegal exchange: {e}"), None))?;
            let keep = Keep::new(&kept)
                .ok_or_else(|| self.fault(game, seat, "illegal exchange".into(), None))?;
            game.notes().exchange_order = Some((seat, kept));
            game.note(format!(
                "     {} keeps {:?} of {:?}",
                self.name,
                stdout.trim(),
                cards
            ));
            return Ok(Choice::Keep(keep));
        }
        let Some((choice, second)) = choice_of(&played, state.pending(), state) else {
            return Err(self.fault(
                game,
                seat,
                format!(
                    "internal: move {played:?} does not answer {:?}",
                    state.pending()
                ),
                None,
            ));
        };
        if !legal.contains(&choice) {
            return Err(self.fault(
                game,
                seat,
                format!("move {played:?} ({choice}) is not legal here"),
                None,
            ));
        }
        self.buffered = second;
        Ok(choice)
    }

    fn finish(&mut self, game: &PpcgGame, _seat: Seat) {
        // The sandbox ends with everything in it.
        self.session = None;
        let _ = game.write_archive();
    }
}

/// Seats an `Agent<State>` (a built-in or Rust bot) in a [`PpcgGame`]: it sees its
/// own [`koth_coup::View`] of the engine state, exactly as in any Coup game, and the
/// arbiter's extra invocations (reveals, end-of-turn newlines) are answered for it.
pub struct Lifted(pub Box<dyn Agent<State>>);

impl Agent<PpcgGame> for Lifted {
    fn seat_names(&mut self, names: &[&str]) {
        self.0.seat_names(names);
    }
    fn start(&mut self, game: &PpcgGame, seat: Seat, seed: u64) -> Result<(), Fault> {
        self.0.start(game.state(), seat, seed)
    }
    fn take_log(&mut self) -> Option<String> {
        self.0.take_log()
    }
    fn logs(&self) -> bool {
        self.0.logs()
    }
    fn take_stop(&mut self) -> Option<String> {
        self.0.take_stop()
    }
    fn decide(&mut self, game: &PpcgGame, seat: Seat, legal: &[Choice]) -> Result<Choice, Fault> {
        if game.history().owed().is_some() {
            return Ok(Choice::Pass);
        }
        let c = self.0.decide(game.state(), seat, legal);
        match &c {
            Ok(ch) if !legal.contains(ch) => {
                let reason = format!("illegal choice {ch:?}");
                game.notes().faults[seat] = Some(reason.clone());
                Err(Fault::new(reason))
            }
            Err(f) => {
                game.notes().faults[seat] = Some(f.reason.clone());
                c
            }
            _ => c,
        }
    }
    fn finish(&mut self, game: &PpcgGame, seat: Seat) {
        self.0.finish(game.state(), seat);
        let _ = game.write_archive();
    }
}

/// Runs one game to its end with two agents (for tests and single games).
pub fn play(
    game: &mut PpcgGame,
    a: &mut dyn Agent<PpcgGame>,
    b: &mut dyn Agent<PpcgGame>,
) -> koth_arena::GameRecord<Choice> {
    let mut seats: Vec<&mut dyn Agent<PpcgGame>> = vec![a, b];
    let (rec, _) = koth_arena::play_game(
        game,
        &mut seats,
        &[0, 1],
        0,
        koth_arena::GameSeeds::of(0, 0),
        koth_arena::Scoring::SharedPoint,
        koth_arena::RecordLevel::Full,
        &mut Vec::new(),
    );
    let _ = game.outcome();
    rec
}
