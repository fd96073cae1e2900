//! Samurai that are external programs speaking the original command-line protocol:
//! launched once per turn, recorded as W whenever they misbehave.

use crate::programs::ProgramEntry;
use crate::protocol::{arguments, read_output, BadOutput};
use koth_arena::{Agent, Entrant, Fault, Seat};
use koth_process::{Command, Exit, InvokeResult, Limits, Sandbox, Workspace};
use koth_samurai::Action;
use koth_samurai::{Note, NoteSink, State};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// How external programs are run.
#[derive(Clone, Debug)]
pub struct ExternalOptions {
    /// Time from launch to exit for one answer (the original's 1000 ms).
    pub timeout: Duration,
    /// Bytes of output read; a program writing more is recorded as W.
    pub max_stdout: usize,
    /// Resource limits.
    pub limits: Limits,
    /// Isolation.
    pub sandbox: Sandbox,
    /// Where programs run from: a fresh copy of each program's folder per match and
    /// parallel slot ([`Workspace`]). `None` in [`program_entrants`] means a scratch
    /// workspace removed after the run.
    pub workspace: Option<Arc<Workspace>>,
}

impl Default for ExternalOptions {
    fn default() -> Self {
        ExternalOptions {
            timeout: Duration::from_millis(1000),
            max_stdout: 64 * 1024,
            limits: Limits::standard(),
            sandbox: Sandbox::Auto,
            workspace: None,
        }
    }
}

/// An external program as an arena [`Agent`]: each turn it is launched with
/// `MY_HISTORY ENEMY_HISTORY MY_HEALTH ENEMY_HEALTH MY_HONOUR ENEMY_HONOUR` (only
/// the four numbers on the first turn) and the first non-white-space character it
/// prints within the time limit is its action, whether or not it has exited by then
/// and whatever its exit status. No output within the limit, a first character that
/// is not one of W B G I P O, and a program that cannot start are recorded as W, with
/// a [`Note`] of why; a program never forfeits and never stalls the match.
pub struct ExternalSamurai {
    name: String,
    command: Command,
    timeout: Duration,
    max_stdout: usize,
    game_seed: u64,
    notes: Vec<Note>,
    sink: Option<NoteSink>,
    /// The original folder, the workspace and the slot, when the program runs from
    /// copies.
    copies: Option<(PathBuf, Arc<Workspace>, usize)>,
    /// What the last launch wrote to stderr, not yet taken.
    log: Option<String>,
    /// The program's place for the current match: its sandbox (or, without one, a
    /// fresh copy of its folder), or why it could not start.
    session: Option<Result<koth_process::Session, String>>,
}

impl ExternalSamurai {
    /// Runs `command` (its program, arguments, folder, limits and sandbox), named `name`.
    pub fn new(name: impl Into<String>, command: Command) -> Self {
        let defaults = ExternalOptions::default();
        ExternalSamurai {
            name: name.into(),
            command,
            timeout: defaults.timeout,
            max_stdout: defaults.max_stdout,
            game_seed: 0,
            notes: Vec::new(),
            sink: None,
            copies: None,
            log: None,
            session: None,
        }
    }

    /// Runs the program from a fresh copy of its folder in `workspace` for every
    /// match, as `slot`'s copy: state files never collide and every match starts
    /// from the same files, whatever the thread count.
    pub fn with_copies(mut self, workspace: Arc<Workspace>, slot: usize) -> Self {
        let original = koth_process::absolute(&self.command.cwd);
        self.copies = Some((original, workspace, slot));
        self
    }

    /// A program of a list file, run in its folder with `options`.
    pub fn from_program(program: &ProgramEntry, options: &ExternalOptions) -> Self {
        let mut command = Command::new(program.command.clone(), program.dir.clone())
            .with_limits(options.limits.clone())
            .with_sandbox(options.sandbox);
        // What its line names outside its folder (the operator's list).
        command.read_only = koth_process::operator_paths(&program.command, &program.dir);
        ExternalSamurai::new(program.name.clone(), command)
            .with_timeout(options.timeout)
            .with_max_stdout(options.max_stdout)
    }

    /// Sets the time limit per answer, from launch.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sets the most output read per answer.
    pub fn with_max_stdout(mut self, bytes: usize) -> Self {
        self.max_stdout = bytes;
        self
    }

    /// Also sends every note to `sink`.
    pub fn with_note_sink(mut self, sink: NoteSink) -> Self {
        self.sink = Some(sink);
        self
    }

    /// The program's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The notes of the current (or last) match, oldest first.
    pub fn notes(&self) -> &[Note] {
        &self.notes
    }

    /// Asks the program once; `Err` holds why the answer is recorded as W, and the
    /// program's stderr tail.
    ///
    /// What the program printed within the limit is its answer, whatever happens
    /// after: it may go on running until the limit (it is then killed with all it
    /// started), exit with any status or die of a signal (specs/samurai.md).
    fn ask(&mut self, args: &[String]) -> Result<Action, (String, String)> {
        if self.session.is_none() {
            // Asked outside a match (`startup_time`): a place of its own.
            self.session = Some(koth_process::Session::start(&self.command, None));
        }
        let r = match self.session.as_mut() {
            Some(Ok(s)) => {
                s.run(&koth_process::Move {
                    args,
                    timeout: self.timeout,
                    max_stdout: self.max_stdout,
                    ..Default::default()
                })
                .result
            }
            Some(Err(e)) => return Err((format!("could not start: {e}"), String::new())),
            None => unreachable!("made above"),
        };
        let judged = Self::judge(&r, self.timeout, self.max_stdout);
        match judged {
            Ok(a) => {
                self.log = Some(r.stderr_tail).filter(|t| !t.trim().is_empty());
                Ok(a)
            }
            Err(why) => Err((why, r.stderr_tail)),
        }
    }

    /// The answer in an invocation's output, or why there is none.
    fn judge(r: &InvokeResult, timeout: Duration, max_stdout: usize) -> Result<Action, String> {
        if let Exit::SpawnFailed(msg) = &r.exit {
            return Err(format!("could not start: {msg}"));
        }
        let bad = match read_output(&r.stdout) {
            Ok(action) => return Ok(action),
            Err(bad) => bad,
        };
        let ended = match &r.exit {
            Exit::TimedOut if bad == BadOutput::Empty => {
                return Err(format!("no answer within {} ms", timeout.as_millis()))
            }
            Exit::TimedOut => format!("still running after {} ms", timeout.as_millis()),
            Exit::Signal(sig) => format!("crashed (killed by signal {sig})"),
            Exit::Code(code) if *code != 0 => format!("crashed (exit status {code})"),
            Exit::Code(_) if r.stdout_truncated => format!("wrote more than {max_stdout} bytes"),
            Exit::Code(_) | Exit::SpawnFailed(_) => return Err(bad.to_string()),
        };
        Err(format!("{bad}; {ended}"))
    }
}

impl ExternalSamurai {
    fn record(&mut self, seat: Seat, turn: u32, reason: String, stderr: String) {
        let note = Note {
            program: self.name.clone(),
            game_seed: self.game_seed,
            seat,
            turn,
            reason,
            stderr_tail: (!stderr.trim().is_empty()).then_some(stderr),
        };
        if let Some(sink) = &self.sink {
            if let Ok(mut v) = sink.lock() {
                v.push(note.clone());
            }
        }
        self.notes.push(note);
    }
}

impl Agent<State> for ExternalSamurai {
    fn start(&mut self, game: &State, _seat: Seat, _seed: u64) -> Result<(), Fault> {
        self.game_seed = game.seed();
        self.notes.clear();
        // One place for the whole match: a sandbox the program is launched in at
        // every turn (or a fresh copy of its folder, without a sandbox). One that
        // cannot start answers W at every turn, with the reason.
        self.session = None;
        let mut cmd = self.command.clone();
        let copies = self.copies.as_ref().map(|(original, ws, slot)| {
            cmd.cwd = original.clone();
            (ws, *slot, self.name.as_str())
        });
        self.session = Some(koth_process::Session::start(&cmd, copies));
        Ok(())
    }

    fn finish(&mut self, _game: &State, _seat: Seat) {
        // The sandbox ends with everything in it.
        self.session = None;
    }

    fn decide(&mut self, game: &State, seat: Seat, _legal: &[Action]) -> Result<Action, Fault> {
        let view = game.view(seat);
        match self.ask(&arguments(&view)) {
            Ok(action) => Ok(action),
            // The machine could not start it (file descriptors, memory): no
            // W of the bot's, but a game to play again once it can.
            Err((reason, _)) if koth_process::machine_error(&reason) => Err(Fault::machine(reason)),
            Err((reason, stderr)) => {
                self.record(seat, view.turns_played() as u32 + 1, reason, stderr.clone());
                self.log = Some(stderr).filter(|t| !t.trim().is_empty());
                Ok(Action::W)
            }
        }
    }

    /// What the last launch wrote to stderr (each launch is a fresh process).
    fn logs(&self) -> bool {
        true
    }

    fn take_log(&mut self) -> Option<String> {
        self.log.take()
    }
}

/// Tournament entrants for the programs of a list file, all sending their notes to
/// `sink`.
pub fn program_entrants(
    programs: &[ProgramEntry],
    options: &ExternalOptions,
    sink: &NoteSink,
) -> Vec<Entrant<State>> {
    let workspace = options
        .workspace
        .clone()
        .or_else(|| Workspace::new(None).ok());
    programs
        .iter()
        .map(|p| {
            let (p, options, sink) = (p.clone(), options.clone(), sink.clone());
            let ws = workspace.clone();
            Entrant::new(p.name.clone(), move |slot| {
                let mut s =
                    ExternalSamurai::from_program(&p, &options).with_note_sink(sink.clone());
                if let Some(ws) = &ws {
                    s = s.with_copies(ws.clone(), slot);
                }
                Ok(Box::new(s) as Box<dyn Agent<State>>)
            })
        })
        .collect()
}

/// How long `program` takes to answer a first turn on this machine: the median,
/// over `runs` launches, of the time from launch to its first output (or its exit).
///
/// The launches run in a place of the program's own, as in a match (its sandbox
/// with a private copy of its folder, or a scratch copy), so state files the program
/// keeps are not touched. The time limit counts from launch, start-up included: a
/// program that needs most of it to start misses it under load.
pub fn startup_time(
    program: &ProgramEntry,
    options: &ExternalOptions,
    runs: usize,
) -> Result<Duration, String> {
    let mut command = Command::new(program.command.clone(), program.dir.clone())
        .with_limits(options.limits.clone())
        .with_sandbox(options.sandbox);
    command.read_only = koth_process::operator_paths(&program.command, &program.dir);
    // Its place for a match, as in a tournament: a sandbox (or a scratch copy).
    let mut session = koth_process::Session::start(&command, None)?;
    let duel = State::new(&koth_samurai::Rules::default(), 0);
    let args = arguments(&duel.view(0));
    let mut times: Vec<Duration> = Vec::with_capacity(runs.max(1));
    for _ in 0..runs.max(1) {
        let r = session
            .run(&koth_process::Move {
                args: &args,
                timeout: options.timeout,
                max_stdout: options.max_stdout,
                ..Default::default()
            })
            .result;
        if let Exit::SpawnFailed(msg) = r.exit {
            return Err(format!("could not start: {msg}"));
        }
        times.push(r.first_output.unwrap_or(r.elapsed));
    }
    times.sort();
    Ok(times[times.len() / 2])
}
