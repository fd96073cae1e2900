//! [`JsonAgent`]: an external program playing over the JSON-lines protocol.

use crate::wire::{Encoder, Hello, Ready, Reply, WireGame, PROTOCOL_VERSION};
use koth_arena::{Agent, Entrant, Fault, Hook, MultiAgent, Seat};
use koth_process::{BotProcess, Command, Exit, ProcessError};
use std::collections::VecDeque;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How to run one external bot and how patient to be with it.
#[derive(Clone, Debug)]
pub struct JsonBotConfig {
    /// The program, its working directory, environment, limits and sandbox.
    pub command: Command,
    /// Longest wait for one answer (default 1 s).
    pub decision_timeout: Duration,
    /// Longest total time spent waiting for this bot's answers in one game (default: none).
    pub game_timeout: Option<Duration>,
    /// Longest wait for `ready` after `hello`, i.e. for the program to start (default 10 s).
    pub startup_timeout: Duration,
    /// Longest answer line in bytes (default 1 MiB).
    pub max_line: usize,
    /// When set, every line sent (`> ...`) and received (`< ...`) is appended here
    /// (for debugging and for the transcript in `docs/protocol.md`).
    pub transcript: Option<Arc<Mutex<Vec<String>>>>,
    /// When set, each parallel slot's process of a program without a sandbox runs in
    /// its own copy of the program's folder, made here when the slot starts: files a
    /// bot keeps never collide between slots and its original folder is never
    /// written. (A sandboxed process always gets a private copy of its own.)
    pub copies: Option<Arc<koth_process::Workspace>>,
    /// When set, a folder where each slot's processes append their whole stderr
    /// (`NAME.slot-K.log`, control characters escaped, bounded per process).
    pub logs: Option<std::path::PathBuf>,
    /// How long to watch for a line printed in a `start` or `end` hook before the
    /// next request is sent (default none). `check` waits a little, so that a line
    /// printed there is found at its hook and not at the next decision.
    pub hook_grace: Duration,
}

impl JsonBotConfig {
    /// The defaults for `command`: 1 s per decision, no game limit, 10 s to start, 1 MiB lines.
    pub fn new(command: Command) -> Self {
        JsonBotConfig {
            command,
            decision_timeout: Duration::from_secs(1),
            game_timeout: None,
            startup_timeout: Duration::from_secs(10),
            max_line: 1 << 20,
            transcript: None,
            copies: None,
            logs: None,
            hook_grace: Duration::ZERO,
        }
    }
}

/// An arena entrant played by an external program: each parallel slot gets its own
/// process (started at its first game, restarted after a fault), in its own copy of
/// the program's folder when [`JsonBotConfig::copies`] is set. The process sees
/// `KOTH_SLOT` set to the slot number, and `KOTH_RESTART` to the number of processes
/// of that slot started before it (0, then 1 after a crash...). A program that says in `ready` that it plays
/// several games at once (`"games": n`) is given that many on its one process.
pub fn json_entrant<G: WireGame>(name: impl Into<String>, config: JsonBotConfig) -> Entrant<G> {
    let config = Arc::new(config);
    let name = name.into();
    let label = name.clone();
    let for_slot = move |slot: usize| -> Result<Arc<JsonBotConfig>, String> {
        let mut cfg = (*config).clone();
        match (&cfg.copies, cfg.command.sandbox) {
            (Some(ws), koth_process::Sandbox::Off) => {
                let original = koth_process::absolute(&cfg.command.cwd);
                cfg.command.cwd = ws.refresh(&original, slot, &label)?;
            }
            (Some(ws), _) => cfg.command.keep = ws.keep_dir(slot, &label)?,
            (None, _) => {}
        }
        if let Some(dir) = &cfg.logs {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
            let file = koth_process::file_name_of(&label);
            cfg.command.stderr_log = Some(dir.join(format!("{file}.slot-{slot}.log")));
        }
        cfg.command = cfg.command.with_env("KOTH_SLOT", slot.to_string());
        Ok(Arc::new(cfg))
    };
    let for_slot = Arc::new(for_slot);
    let single = for_slot.clone();
    Entrant::new(name, move |slot| {
        Ok(Box::new(JsonAgent::<G>::new(single(slot)?)) as Box<dyn Agent<G>>)
    })
    .with_multi(move |slot| {
        Ok(Box::new(JsonMux::<G>::new(for_slot(slot)?)) as Box<dyn MultiAgent<G>>)
    })
}

/// An [`Agent`] that runs an external program speaking protocol version 1, one
/// game at a time.
///
/// The process is started lazily at the first game, serves every following game, and
/// is killed on any fault (the seat forfeits with the reason and the program's stderr
/// tail); the next game starts a fresh one.
pub struct JsonAgent<G>(JsonMux<G>);

impl<G> std::fmt::Debug for JsonAgent<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonAgent")
            .field("program", &self.0.cfg.command.program)
            .field("running", &self.0.proc.is_some())
            .field("games", &self.0.games)
            .finish_non_exhaustive()
    }
}

impl<G: WireGame> JsonAgent<G> {
    /// An agent for this configuration (nothing is started yet).
    pub fn new(cfg: Arc<JsonBotConfig>) -> Self {
        JsonAgent(JsonMux::new(cfg))
    }

    /// The name the program announced in `ready`, if it is running and gave one.
    pub fn bot_name(&self) -> Option<&str> {
        self.0.bot_name.as_deref()
    }

    /// Starts the program (unless it is running) and greets it: `hello`, then its
    /// `ready`. A tournament does this for every bot before the first game, so a
    /// bot that cannot start stops the run at once instead of forfeiting every game.
    pub fn greet(&mut self) -> Result<(), Fault> {
        self.0.ensure_running()
    }

    /// How many games at once the running program said it plays (1 unless it said
    /// more in `ready`).
    pub fn games_at_once(&self) -> usize {
        self.0.announced
    }

    /// The process id of the running program.
    pub fn pid(&self) -> Option<u32> {
        self.0.proc.as_ref().map(|p| p.pid())
    }
}

impl<G: WireGame> Agent<G> for JsonAgent<G> {
    fn seat_names(&mut self, names: &[&str]) {
        self.0.seat_names(0, names);
    }

    fn start(&mut self, game: &G, seat: Seat, seed: u64) -> Result<(), Fault> {
        MultiAgent::start(&mut self.0, 0, game, seat, seed)?;
        self.0.flush();
        match &self.0.proc {
            Some(_) => Ok(()),
            None => Err(self.0.stale(0)),
        }
    }

    fn decide(&mut self, game: &G, seat: Seat, legal: &[G::Choice]) -> Result<G::Choice, Fault> {
        self.0.request(0, game, seat, legal);
        self.0.flush();
        self.0.answer(0, legal)
    }

    fn take_stop(&mut self) -> Option<String> {
        MultiAgent::take_stop(&mut self.0, 0)
    }

    fn logs(&self) -> bool {
        true
    }

    fn take_log(&mut self) -> Option<String> {
        let p = self.0.proc.as_ref()?;
        Some(p.stderr_since(&mut self.0.log_pos)).filter(|s| !s.is_empty())
    }

    fn finish(&mut self, game: &G, seat: Seat) {
        MultiAgent::finish(&mut self.0, 0, game, seat);
        self.0.flush();
    }

    fn close(&mut self) -> Option<Fault> {
        let m = &mut self.0;
        let p = m.proc.as_mut()?;
        // Told its input is over, an SDK's loop ends and the program exits,
        // flushing what it printed and had not yet sent.
        p.close_stdin();
        let mut lines = Vec::new();
        while lines.len() < 4 {
            match p.read_line(Duration::from_secs(1), m.cfg.max_line) {
                Ok(l) => lines.push(l),
                Err(_) => break,
            }
        }
        if lines.is_empty() {
            if let Some(mut p) = m.proc.take() {
                p.kill();
            }
            return None;
        }
        let (reason, hook) = if m.hooks.is_empty() {
            let shown: Vec<String> = lines.iter().take(3).map(|l| snippet(l)).collect();
            (
                format!(
                    "wrote a line nobody asked for: {} after its last answer (answer each decide exactly once; log to stderr)",
                    shown.join(", ")
                ),
                None,
            )
        } else {
            let hooks = m.hooks.clone();
            hook_fault(&hooks, &lines, true)
        };
        Some(m.fail_at(reason, hook))
    }
}

/// A [`MultiAgent`] that runs an external program speaking protocol version 1: one
/// process plays as many games at once as it said in `ready` (`"games": n`, 1 when
/// left out). Every line of such a program names its game's `table`; the requests
/// of a round go in one write and the program answers them in the order asked.
///
/// A fault that kills the process (a crash, a time-out, garbage) costs the game
/// it happened in; the other games it was playing are lost with it
/// ([`koth_arena::Again::Lost`]) and played again from their start with a fresh
/// process. An illegal answer, or any answer that names its request's `id`
/// however wrong it is otherwise, costs only its own game, and the process
/// plays on.
pub struct JsonMux<G> {
    cfg: Arc<JsonBotConfig>,
    proc: Option<BotProcess>,
    /// The name the bot gave in `ready`.
    bot_name: Option<String>,
    /// Games at once the running program said it plays.
    announced: usize,
    /// The running program said `"legal": false`: its requests leave `legal` out.
    omit_legal: bool,
    /// Counts the processes started: a game belongs to the one it began with.
    generation: u64,
    /// `decide` requests sent to the current process (the last one's `id`).
    requests: u64,
    /// Games begun by the current process.
    games: u64,
    tables: Vec<TableState>,
    /// Lines to send at the next flush, and how many of them are requests.
    out: Vec<u8>,
    queued: usize,
    /// When the last requests were sent.
    sent_at: Option<Instant>,
    /// Requests sent and not yet answered, oldest first.
    outstanding: VecDeque<Asked>,
    /// The table whose answer is being read: a process that dies then died there.
    reading: Option<usize>,
    /// How much of the current process's stderr `take_log` has given.
    log_pos: u64,
    /// `start` and `end` lines queued since the last request: a line the program
    /// prints in those hooks comes before the next answer.
    hooks: Vec<HookSent>,
    /// Hooks whose output may come before the next line is sent: no request
    /// sent after them yet, and not watched silent.
    watch: Vec<HookSent>,
    /// The last hook number given, the last sent, the last before the latest
    /// request, and the last up to which the hooks were watched silent.
    hook_seq: u64,
    hooks_sent: u64,
    asked_after: u64,
    checked: u64,
    /// Times in a row each hook (start, end) was watched and printed nothing: a
    /// hook silent three times is not waited for again by this process.
    quiet: [u32; 2],
    _game: PhantomData<fn() -> G>,
}

/// A `start` or `end` line sent: its hook and its game's number, if known.
#[derive(Clone, Copy, Debug)]
struct HookSent {
    hook: Hook,
    game: Option<u64>,
    seq: u64,
}

impl HookSent {
    fn words(&self) -> String {
        let (hook, at) = match self.hook {
            Hook::Start => ("start", "start"),
            Hook::End => ("end", "end"),
        };
        match self.game {
            Some(g) => format!("its {hook} hook (the {at} of game {g})"),
            None => format!("its {hook} hook (the {at} of a game)"),
        }
    }
}

/// The fault of lines printed outside any answer, after `hooks` were sent:
/// printed in one of them, or (`only_hooks` false) perhaps while deciding, as
/// the lines came just before an answer and nobody waited to tell them apart.
fn hook_fault(hooks: &[HookSent], lines: &[String], only_hooks: bool) -> (String, Option<Hook>) {
    let mut kinds: Vec<Hook> = hooks.iter().map(|h| h.hook).collect();
    kinds.sort_by_key(|h| *h as usize);
    kinds.dedup();
    let place = match hooks {
        [h] => h.words(),
        [a, .., b] if kinds.len() == 1 => format!("{} to {}", a.words(), b.words()),
        _ => hooks
            .iter()
            .map(HookSent::words)
            .collect::<Vec<_>>()
            .join(" or "),
    };
    let shown: Vec<String> = lines.iter().take(3).map(|l| snippet(l)).collect();
    let shown = shown.join(", ");
    if !only_hooks {
        return (
            format!(
                "wrote outside any answer: printed {shown} to stdout just before its answer, in {place} or while deciding (stdout carries answers only: log to stderr)"
            ),
            None,
        );
    }
    let hook = match kinds.as_slice() {
        [one] => Some(*one),
        _ => None,
    };
    (
        format!(
            "wrote outside any answer: printed {shown} to stdout in {place} (stdout carries answers only: log to stderr)"
        ),
        hook,
    )
}

/// One table's game, as a [`JsonMux`] sees it.
#[derive(Default)]
struct TableState {
    /// Builds every line of the table's game.
    enc: Encoder,
    /// Time spent waiting for answers in this game.
    used: Duration,
    /// How long the last answer read took since its request was sent, and
    /// whether it was already waiting when read (then it took at most that).
    took: Option<(Duration, bool)>,
    /// The process the game began with.
    generation: u64,
    /// A stop the bot asked for with its last answer, not yet taken.
    stop: Option<String>,
    /// What ended the process the game began with.
    lost: Option<Fault>,
    /// The game's number in its run, when the tournament gave it.
    index: Option<u64>,
}

/// A request sent (or refused before sending).
struct Asked {
    table: usize,
    id: u64,
    generation: u64,
    early: Option<Fault>,
    /// The `start` and `end` lines sent since the request before it.
    after: Vec<HookSent>,
}

impl<G: WireGame> JsonMux<G> {
    /// An agent for this configuration (nothing is started yet).
    pub fn new(cfg: Arc<JsonBotConfig>) -> Self {
        JsonMux {
            cfg,
            proc: None,
            bot_name: None,
            announced: 1,
            omit_legal: false,
            generation: 0,
            requests: 0,
            games: 0,
            tables: Vec::new(),
            out: Vec::with_capacity(4096),
            queued: 0,
            sent_at: None,
            outstanding: VecDeque::new(),
            reading: None,
            log_pos: 0,
            hooks: Vec::new(),
            watch: Vec::new(),
            hook_seq: 0,
            hooks_sent: 0,
            asked_after: 0,
            checked: 0,
            quiet: [0; 2],
            _game: PhantomData,
        }
    }

    fn table(&mut self, t: usize) -> &mut TableState {
        if self.tables.len() <= t {
            self.tables.resize_with(t + 1, TableState::default);
        }
        &mut self.tables[t]
    }

    /// Kills the program (if running) and turns `reason` into a fault with its
    /// stderr tail; the games it was playing get the same fault.
    fn fail(&mut self, reason: String) -> Fault {
        self.fail_at(reason, None)
    }

    /// [`JsonMux::fail`] for a fault made in a hook.
    fn fail_at(&mut self, reason: String, hook: Option<Hook>) -> Fault {
        self.hooks.clear();
        self.watch.clear();
        let Some(mut p) = self.proc.take() else {
            return Fault {
                hook,
                ..Fault::new(reason)
            };
        };
        // Killing stops the stderr reader after it has read what the bot wrote
        // last (the reason it died, often), so the tail is taken after.
        p.kill();
        let tail = shared_stream(p.stderr_tail(), self.announced);
        self.bot_name = None;
        let reason = if self.announced > 1 {
            format!(
                "{reason} (while playing up to {} games at once)",
                self.announced
            )
        } else {
            reason
        };
        // The game it failed in: the one being read, or else the one asked
        // longest ago, or else the first under way. That game is charged; the
        // others under way were lost with the process, and are played again.
        let generation = self.generation;
        let cause = self
            .reading
            .or_else(|| {
                self.outstanding
                    .iter()
                    .find(|a| a.generation == generation)
                    .map(|a| a.table)
            })
            .or_else(|| self.tables.iter().position(|t| t.generation == generation));
        let died_in = match cause.and_then(|t| self.tables.get(t)?.index) {
            Some(i) => format!("game {i}"),
            None => "another game".to_string(),
        };
        let lost = Fault::lost(format!(
            "{}{died_in}: {reason}",
            koth_arena::LOST_WITH_PROCESS
        ));
        let fault = Fault {
            stderr_tail: (!tail.is_empty()).then_some(tail),
            hook,
            ..Fault::new(reason)
        };
        for (t, ts) in self.tables.iter_mut().enumerate() {
            if ts.generation == generation {
                ts.lost = Some(if cause == Some(t) {
                    fault.clone()
                } else {
                    lost.clone()
                });
            }
        }
        fault
    }

    /// A `start` or `end` line was queued for table `table`'s game.
    fn hooked(&mut self, hook: Hook, table: usize) {
        self.hook_seq += 1;
        let h = HookSent {
            hook,
            game: self.tables[table].index,
            seq: self.hook_seq,
        };
        self.hooks.push(h);
        self.watch.push(h);
    }

    /// The fault of table `t`'s game, whose process is gone.
    fn stale(&self, t: usize) -> Fault {
        self.tables
            .get(t)
            .and_then(|ts| ts.lost.clone())
            .unwrap_or_else(|| Fault::new("not running (failed earlier)"))
    }

    /// A fault for an I/O error, naming how the program ended when it did.
    fn io_fault(&mut self, e: ProcessError, waiting_for: &str, timeout: Duration) -> Fault {
        let reason = match e {
            ProcessError::Timeout(_) => {
                format!("timeout: no {waiting_for} within {} ms", timeout.as_millis())
            }
            ProcessError::LineTooLong(n) => format!(
                "line too long: wrote more than {} bytes without a newline ({n} so far) instead of {waiting_for}",
                self.cfg.max_line
            ),
            ProcessError::Closed => {
                let exit = self.proc.as_mut().and_then(|p| wait_exit(p, Duration::from_millis(200)));
                match exit {
                    Some(Exit::Code(0)) => format!("exited early (exit code 0) instead of {waiting_for}"),
                    Some(Exit::Code(c)) => format!("crashed (exit code {c}) instead of {waiting_for}"),
                    Some(Exit::Signal(s)) => format!("crashed (killed by signal {s}) instead of {waiting_for}"),
                    _ => format!("closed its input or output instead of {waiting_for}"),
                }
            }
            ProcessError::Spawn(m) | ProcessError::Machine(m) => format!("cannot start: {m}"),
            ProcessError::Io(m) => format!("I/O error: {m}"),
        };
        self.fail(reason)
    }

    fn read(&mut self, timeout: Duration) -> Result<String, ProcessError> {
        let r = match self.proc.as_mut() {
            Some(p) => p.read_line(timeout, self.cfg.max_line),
            None => Err(ProcessError::Closed),
        };
        if let (Some(t), Ok(line)) = (&self.cfg.transcript, &r) {
            if let Ok(mut t) = t.lock() {
                t.push(format!("< {line}"));
            }
        }
        r
    }

    /// Starts the program and greets it, unless it is already running.
    fn ensure_running(&mut self) -> Result<(), Fault> {
        if self.proc.is_some() {
            return Ok(());
        }
        // KOTH_RESTART: how many processes of this slot came before this one (its
        // folder is a fresh private copy every time: this is how it knows).
        let cmd = self
            .cfg
            .command
            .clone()
            .with_env("KOTH_RESTART", self.generation.to_string());
        let mut p = BotProcess::spawn(&cmd).map_err(|e| match e {
            // Out of file descriptors, memory or processes: the machine's
            // trouble, and the game is played again once it clears.
            ProcessError::Machine(m) => Fault::machine(format!("cannot start: {m}")),
            e => Fault::new(format!("cannot start: {e}")),
        })?;
        p.set_write_timeout(self.cfg.decision_timeout.max(Duration::from_millis(100)));
        self.proc = Some(p);
        self.generation += 1;
        self.requests = 0;
        self.games = 0;
        self.announced = 1;
        self.omit_legal = false;
        self.log_pos = 0;
        self.hooks.clear();
        self.watch.clear();
        self.quiet = [0; 2];
        self.out.clear();
        self.queued = 0;
        let hello = Hello {
            kind: "hello",
            protocol: PROTOCOL_VERSION,
            game: G::NAME,
        };
        let t = self.cfg.startup_timeout;
        let line = serde_json::to_string(&hello).map_err(|e| e.to_string());
        queue(
            &mut self.out,
            &self.cfg,
            line.as_deref().map_err(Clone::clone),
        )?;
        let sent = match self.proc.as_mut() {
            Some(p) => p.send_bytes(&self.out),
            None => Err(ProcessError::Closed),
        };
        self.out.clear();
        if let Err(e) = sent {
            return Err(self.io_fault(e, "answer to hello", t));
        }
        let line = match self.read(t) {
            Ok(l) => l,
            Err(e) => return Err(self.io_fault(e, "answer to hello", t)),
        };
        match serde_json::from_str::<Ready>(&line) {
            Ok(r) if r.kind == "ready" => {
                let games = match &r.games {
                    None => Some(1),
                    Some(v) => v.as_u64().filter(|&n| n >= 1),
                };
                let Some(games) = games else {
                    return Err(self.fail(format!(
                        "garbage: \"games\" in ready must be a whole number from 1, got {}",
                        snippet(&r.games.map(|v| v.to_string()).unwrap_or_default())
                    )));
                };
                let omit_legal = match &r.legal {
                    None | Some(serde_json::Value::Bool(true)) => false,
                    Some(serde_json::Value::Bool(false)) => true,
                    Some(v) => {
                        return Err(self.fail(format!(
                            "garbage: \"legal\" in ready must be true or false, got {}",
                            snippet(&v.to_string())
                        )))
                    }
                };
                self.announced = (games as usize).min(koth_arena::MAX_TABLES);
                self.omit_legal = omit_legal;
                self.bot_name = r.name;
                Ok(())
            }
            _ => Err(self.fail(format!(
                "garbage: expected {{\"type\":\"ready\"}} in answer to hello, got {}",
                snippet(&line)
            ))),
        }
    }
}

impl<G: WireGame> MultiAgent<G> for JsonMux<G> {
    fn tables(&mut self) -> usize {
        match self.ensure_running() {
            Ok(()) => self.announced,
            // It will forfeit its games; the others need not wait for it.
            Err(_) => usize::MAX,
        }
    }

    fn numbered(&mut self, table: usize, index: u64) {
        self.table(table).index = Some(index);
    }

    fn seat_names(&mut self, table: usize, names: &[&str]) {
        self.table(table).enc.set_names(names);
    }

    fn start(&mut self, table: usize, game: &G, seat: Seat, seed: u64) -> Result<(), Fault> {
        self.reading = None;
        self.ensure_running()?;
        if table >= self.announced {
            // Only a program restarted with a smaller number gets here.
            return Err(Fault::new(format!(
                "said it plays {} games at once, but game {} of those under way was asked (its earlier process said more)",
                self.announced,
                table + 1
            )));
        }
        self.games += 1;
        let (games, generation, multi) = (self.games, self.generation, self.announced > 1);
        let omit_legal = self.omit_legal;
        let ts = self.table(table);
        ts.enc.omit_legal = omit_legal;
        ts.used = Duration::ZERO;
        ts.stop = None;
        ts.lost = None;
        ts.generation = generation;
        ts.enc.games = games - 1;
        ts.enc.table = multi.then_some(table);
        let line = self.tables[table].enc.start(game, seat, seed);
        queue(&mut self.out, &self.cfg, line)?;
        self.hooked(Hook::Start, table);
        Ok(())
    }

    fn request(&mut self, table: usize, game: &G, seat: Seat, legal: &[G::Choice]) {
        self.reading = None;
        let generation = self.generation;
        if self.proc.is_none() || self.table(table).generation != generation {
            let early = Some(self.stale(table));
            self.outstanding.push_back(Asked {
                table,
                id: 0,
                generation,
                early,
                after: Vec::new(),
            });
            return;
        }
        self.requests += 1;
        let id = self.requests;
        self.asked_after = self.hook_seq;
        let line = self.tables[table].enc.decide(game, seat, legal, id);
        let early = queue(&mut self.out, &self.cfg, line).err();
        if early.is_none() {
            self.queued += 1;
        }
        self.outstanding.push_back(Asked {
            table,
            id,
            generation,
            early,
            after: std::mem::take(&mut self.hooks),
        });
    }

    fn flush(&mut self) {
        self.reading = None;
        if self.out.is_empty() {
            return;
        }
        // Sent, so what the program printed there may be waiting.
        let sent = self.hooks_sent;
        let unchecked: Vec<HookSent> = self
            .watch
            .iter()
            .filter(|h| h.seq <= sent)
            .copied()
            .collect();
        let Some(p) = self.proc.as_mut() else {
            self.out.clear();
            self.queued = 0;
            return;
        };
        // A line written when nothing was asked would be read as the next answer.
        // `check` waits a little after `start` and `end` lines (the SDKs flush
        // what their hooks print): a line then is the hook's, and one after is
        // the decision's.
        let watched = unchecked.iter().any(|h| self.quiet[h.hook as usize] < 3);
        let grace = if watched {
            self.cfg.hook_grace
        } else {
            Duration::ZERO
        };
        if let Ok(line) = p.read_line(grace, self.cfg.max_line) {
            let asked = self.requests + 1 - self.queued as u64;
            self.out.clear();
            self.queued = 0;
            if unchecked.is_empty() {
                self.fail(format!(
                    "answered twice (or wrote a line nobody asked for): {} came before request {asked} was sent (answer each decide exactly once; log to stderr)",
                    snippet(&line),
                ));
            } else {
                let (reason, hook) = hook_fault(&unchecked, &[line], true);
                self.fail_at(reason, hook);
            }
            return;
        }
        if !grace.is_zero() {
            // Silent in the hooks sent: what comes next is not theirs.
            for h in &unchecked {
                self.checked = h.seq;
                self.quiet[h.hook as usize] += 1;
            }
            self.watch.retain(|h| h.seq > sent);
        }
        let requests = self.queued > 0;
        // Each request of the batch has the decision time to be read.
        let per = self.cfg.decision_timeout.max(Duration::from_millis(100));
        p.set_write_timeout(per.saturating_mul(self.queued.max(1) as u32));
        self.sent_at = Some(Instant::now());
        let sent = p.send_bytes(&self.out);
        self.out.clear();
        self.queued = 0;
        self.hooks_sent = self.hook_seq;
        if requests {
            // What they printed comes before an answer now, and is read there.
            let asked_after = self.asked_after;
            self.watch.retain(|h| h.seq > asked_after);
        }
        if let Err(e) = sent {
            self.io_fault(e, "reading of its input", per);
        }
    }

    fn answer(&mut self, table: usize, legal: &[G::Choice]) -> Result<G::Choice, Fault> {
        // Until the next start, request or flush: a failure now is this game's.
        self.reading = Some(table);
        let Some(asked) = self.outstanding.pop_front() else {
            return Err(Fault::new("answer taken before it was asked"));
        };
        debug_assert_eq!(asked.table, table, "answers are taken in the order asked");
        if let Some(f) = asked.early {
            return Err(f);
        }
        if self.proc.is_none() || asked.generation != self.generation {
            return Err(self.stale(table));
        }
        let mut timeout = self.cfg.decision_timeout;
        let mut game_limited = false;
        if let Some(g) = self.cfg.game_timeout {
            let left = g.saturating_sub(self.table(table).used);
            if left < timeout {
                timeout = left;
                game_limited = true;
            }
        }
        let waiting = self.proc.as_ref().is_none_or(|p| p.output_waiting());
        let t0 = Instant::now();
        let r = self.read(timeout);
        let waited = t0.elapsed();
        let since = self.sent_at.map_or(waited, |s| s.elapsed());
        let ts = self.table(table);
        ts.used += waited;
        ts.took = Some((since, waiting));
        let line = match r {
            Ok(l) => l,
            Err(ProcessError::Timeout(_)) if game_limited => {
                let g = self.cfg.game_timeout.unwrap_or_default();
                return Err(self.fail(format!(
                    "timeout: game time limit of {} ms used up",
                    g.as_millis()
                )));
            }
            Err(e) => return Err(self.io_fault(e, "answer", timeout)),
        };
        if line.contains("\"stop\"") {
            // A debugging aid, rare: read it apart from the answer.
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(&line) {
                if let Some(t) = v.get("stop").filter(|t| !t.is_null() && *t != false) {
                    let text = t
                        .as_str()
                        .map(str::to_string)
                        .unwrap_or_else(|| t.to_string());
                    self.table(table).stop = Some(koth_process::printable(&clip(&text)));
                }
            }
        }
        let reply = parse_reply::<G>(&line, legal, asked.id);
        let after: Vec<HookSent> = asked
            .after
            .iter()
            .filter(|h| h.seq > self.checked && self.quiet[h.hook as usize] < 3)
            .copied()
            .collect();
        if let (Err(Refusal(_, false, _)), false) = (&reply, after.is_empty()) {
            // Perhaps printed in a hook sent before the request: the answer then
            // follows. If it does, the fault is the hook's.
            let mut stray = vec![line];
            // Within the decision's time, and a second at most in all.
            let end = Instant::now()
                + timeout
                    .saturating_sub(t0.elapsed())
                    .min(Duration::from_secs(1));
            while stray.len() <= 8 {
                let wait = end.saturating_duration_since(Instant::now());
                let Ok(next) = self.read(wait) else { break };
                if parse_reply::<G>(&next, legal, asked.id).is_ok() {
                    let (reason, hook) = hook_fault(&after, &stray, false);
                    return Err(self.fail_at(reason, hook));
                }
                stray.push(next);
            }
            let first = stray.swap_remove(0);
            if let Err(Refusal(reason, ..)) = parse_reply::<G>(&first, legal, asked.id) {
                return Err(self.fail(reason));
            }
        }
        match reply {
            Ok(c) => Ok(c),
            // The program answered in step: it stays for the rest of the game when
            // the rules penalise the answer, and for the next game if they forfeit it.
            Err(Refusal(reason, true, tried)) => {
                let tail = self
                    .proc
                    .as_mut()
                    .map(|p| shared_stream(p.stderr_tail(), self.announced))
                    .unwrap_or_default();
                Err(Fault {
                    stderr_tail: (!tail.is_empty()).then_some(tail),
                    tried,
                    ..Fault::illegal_choice(reason)
                })
            }
            Err(Refusal(reason, false, _)) => Err(self.fail(reason)),
        }
    }

    fn finish(&mut self, table: usize, game: &G, seat: Seat) {
        let generation = self.generation;
        if self.proc.is_none() || self.table(table).generation != generation {
            return;
        }
        let line = self.tables[table].enc.end(game, seat);
        let r = queue(&mut self.out, &self.cfg, line);
        if r.is_ok() {
            self.hooked(Hook::End, table);
        }
        if r.is_err() {
            // It will be restarted for the next game; the fault shows there if it recurs.
            if let Some(mut p) = self.proc.take() {
                p.kill();
            }
        }
    }

    fn take_stop(&mut self, table: usize) -> Option<String> {
        self.tables.get_mut(table).and_then(|t| t.stop.take())
    }

    fn logs(&mut self) -> bool {
        true
    }

    fn took(&mut self, table: usize) -> Option<(Duration, bool)> {
        self.tables.get_mut(table).and_then(|t| t.took.take())
    }

    fn take_log(&mut self, _table: usize) -> Option<String> {
        // A process playing many games at once logs for all of them in one
        // stream: its lines stay in the run's logs folder, not in one game.
        if self.announced > 1 {
            return None;
        }
        let p = self.proc.as_ref()?;
        Some(p.stderr_since(&mut self.log_pos)).filter(|s| !s.is_empty())
    }
}

/// Queues one line in `out` for the next flush (and the transcript, when kept). A
/// free function, so a table's encoder can build the line while `out` is borrowed.
fn queue(out: &mut Vec<u8>, cfg: &JsonBotConfig, line: Result<&str, String>) -> Result<(), Fault> {
    let line = line.map_err(|e| Fault::new(format!("I/O error: {e}")))?;
    if let Some(t) = &cfg.transcript {
        if let Ok(mut t) = t.lock() {
            t.push(format!("> {line}"));
        }
    }
    out.extend_from_slice(line.as_bytes());
    out.push(b'\n');
    Ok(())
}

/// A stderr tail as shown with a fault: a process that plays many games at
/// once writes one stream for all of them, and the tail says so first.
fn shared_stream(tail: String, at_once: usize) -> String {
    if at_once > 1 && !tail.trim().is_empty() {
        format!("[one stream for the up to {at_once} games this process played at once: lines may be other games']\n{tail}")
    } else {
        tail
    }
}

/// Polls for the program's exit for up to `wait`.
fn wait_exit(p: &mut BotProcess, wait: Duration) -> Option<Exit> {
    let end = Instant::now() + wait;
    loop {
        if let Some(e) = p.exit_status() {
            return Some(e);
        }
        if Instant::now() >= end {
            return None;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// The first 100 characters of a text.
fn clip(line: &str) -> String {
    let mut s: String = line.chars().take(100).collect();
    if s.len() < line.len() {
        s.push('…');
    }
    s
}

/// The first 100 characters of a line, quoted, for messages.
fn snippet(line: &str) -> String {
    format!("{:?}", clip(line))
}

/// Why an answer was refused: the reason, whether the answer was well formed but
/// illegal (penalised rather than forfeited under a penalty rule), and that choice's
/// code (a penalty may make the attempt public).
struct Refusal(String, bool, Option<u8>);

impl From<String> for Refusal {
    fn from(reason: String) -> Self {
        Refusal(reason, false, None)
    }
}

/// Reads an answer to `decide`.
fn parse_reply<G: WireGame>(
    line: &str,
    legal: &[G::Choice],
    id: u64,
) -> Result<G::Choice, Refusal> {
    // Fast path: a well-formed answer, decoded without building a JSON tree.
    #[derive(serde::Deserialize)]
    #[serde(bound = "C: serde::de::DeserializeOwned")]
    struct Fast<C> {
        #[serde(default)]
        choice: Option<C>,
        #[serde(default)]
        index: Option<usize>,
        #[serde(default)]
        id: Option<u64>,
    }
    let in_step = |echo: Option<u64>| echo.is_none_or(|e| e == id);
    match serde_json::from_str::<Fast<G::Choice>>(line) {
        Ok(Fast {
            choice: Some(c),
            id: echo,
            ..
        }) if legal.contains(&c) && in_step(echo) => return Ok(c),
        Ok(Fast {
            choice: None,
            index: Some(i),
            id: echo,
        }) if i < legal.len() && in_step(echo) => return Ok(legal[i]),
        _ => {}
    }
    let reply: Reply = serde_json::from_str(line).map_err(|_| {
        // Most often a debugging print: say where it belongs.
        let hint = if line.trim_start().starts_with('{') {
            ""
        } else {
            " (stdout carries the answers only: print debugging output to stderr)"
        };
        format!(
            "garbage: answer is not a JSON object: {}{hint}",
            snippet(line)
        )
    })?;
    if let Some(echo) = &reply.id {
        if echo.as_u64() != Some(id) {
            return Err(format!(
                "out of step: the answer is for request {echo}, but request {id} was asked (a stale or repeated line)"
            )
            .into());
        }
    }
    if let Some(v) = reply.choice {
        let text = v.to_string();
        // Well formed and in step, but no choice of the game: as illegal as any
        // other choice it may not make, and it costs only its own game.
        let c: G::Choice = serde_json::from_value(v).map_err(|_| {
            Refusal(
                format!("illegal choice {}: not a {} choice", clip(&text), G::NAME),
                true,
                None,
            )
        })?;
        return if legal.contains(&c) {
            Ok(c)
        } else {
            Err(Refusal(
                format!(
                    "illegal choice {}: not among the {} legal choices",
                    clip(&text),
                    legal.len()
                ),
                true,
                koth_arena::ChoiceCode::code(&c),
            ))
        };
    }
    if let Some(v) = reply.index {
        return match v.as_u64() {
            Some(i) if (i as usize) < legal.len() => Ok(legal[i as usize]),
            _ => Err(Refusal(
                format!("illegal choice: index {v} is not in 0..{}", legal.len()),
                true,
                None,
            )),
        };
    }
    // An object that names its request is in step, whatever else is wrong
    // with it: it costs its own game only, and the process plays on.
    let in_step = reply.id.is_some();
    Err(Refusal(
        format!(
            "garbage: answer has neither \"choice\" nor \"index\": {}",
            snippet(line)
        ),
        in_step,
        None,
    ))
}
