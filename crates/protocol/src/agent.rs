//! [`JsonAgent`]: an external program playing over the JSON-lines protocol.

use crate::wire::{Encoder, Hello, Ready, Reply, WireGame, PROTOCOL_VERSION};
use koth_arena::{Agent, Entrant, Fault, Seat};
use koth_process::{BotProcess, Command, Exit, ProcessError};
use serde::Serialize;
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
    /// When set, each parallel slot's process runs in its own copy of the program's
    /// folder, made here when the slot starts: files a bot keeps never collide
    /// between slots and its original folder is never written.
    pub copies: Option<Arc<koth_process::Workspace>>,
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
        }
    }
}

/// An arena entrant played by an external program: each parallel slot gets its own
/// process (started at its first game, restarted after a fault), in its own copy of
/// the program's folder when [`JsonBotConfig::copies`] is set. The process sees
/// `KOTH_SLOT` set to the slot number.
pub fn json_entrant<G: WireGame>(name: impl Into<String>, config: JsonBotConfig) -> Entrant<G> {
    let config = Arc::new(config);
    let name = name.into();
    let label = name.clone();
    Entrant::new(name, move |slot| {
        let mut cfg = (*config).clone();
        if let Some(ws) = &cfg.copies {
            let original = koth_process::absolute(&cfg.command.cwd);
            cfg.command.cwd = ws.refresh(&original, slot, &label)?;
        }
        cfg.command = cfg.command.with_env("KOTH_SLOT", slot.to_string());
        Ok(Box::new(JsonAgent::<G>::new(Arc::new(cfg))) as Box<dyn Agent<G>>)
    })
}

/// An [`Agent`] that runs an external program speaking protocol version 1.
///
/// The process is started lazily at the first game, serves every following game, and
/// is killed on any fault (the seat forfeits with the reason and the program's stderr
/// tail); the next game starts a fresh one.
pub struct JsonAgent<G> {
    cfg: Arc<JsonBotConfig>,
    proc: Option<BotProcess>,
    /// The name the bot gave in `ready`.
    bot_name: Option<String>,
    /// `decide` requests sent to the current process (the last one's `id`).
    requests: u64,
    games: u64,
    /// Builds every line of a game.
    enc: Encoder,
    used: Duration,
    buf: Vec<u8>,
    /// A stop the bot asked for (`"stop"` in an answer), not yet taken.
    stop: Option<String>,
    /// How much of the current process's stderr `take_log` has given.
    log_pos: u64,
    _game: PhantomData<fn() -> G>,
}

impl<G> std::fmt::Debug for JsonAgent<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonAgent")
            .field("program", &self.cfg.command.program)
            .field("running", &self.proc.is_some())
            .field("games", &self.games)
            .finish_non_exhaustive()
    }
}

impl<G: WireGame> JsonAgent<G> {
    /// An agent for this configuration (nothing is started yet).
    pub fn new(cfg: Arc<JsonBotConfig>) -> Self {
        JsonAgent {
            cfg,
            proc: None,
            bot_name: None,
            requests: 0,
            games: 0,
            enc: Encoder::new(),
            used: Duration::ZERO,
            buf: Vec::with_capacity(4096),
            stop: None,
            log_pos: 0,
            _game: PhantomData,
        }
    }

    /// The name the program announced in `ready`, if it is running and gave one.
    pub fn bot_name(&self) -> Option<&str> {
        self.bot_name.as_deref()
    }

    /// Starts the program (unless it is running) and greets it: `hello`, then its
    /// `ready`. A tournament does this for every bot before the first game, so a
    /// bot that cannot start stops the run at once instead of forfeiting every game.
    pub fn greet(&mut self) -> Result<(), Fault> {
        self.ensure_running()
    }

    /// The process id of the running program.
    pub fn pid(&self) -> Option<u32> {
        self.proc.as_ref().map(|p| p.pid())
    }

    /// Kills the program (if running) and turns `reason` into a fault with its stderr tail.
    fn fail(&mut self, reason: String) -> Fault {
        let Some(mut p) = self.proc.take() else {
            return Fault::new(reason);
        };
        // Killing stops the stderr reader after it has read what the bot wrote
        // last (the reason it died, often), so the tail is taken after.
        p.kill();
        let tail = p.stderr_tail();
        self.bot_name = None;
        Fault {
            stderr_tail: (!tail.is_empty()).then_some(tail),
            ..Fault::new(reason)
        }
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
            ProcessError::Spawn(m) => format!("cannot start: {m}"),
            ProcessError::Io(m) => format!("I/O error: {m}"),
        };
        self.fail(reason)
    }

    fn send(&mut self, msg: &impl Serialize) -> Result<(), ProcessError> {
        self.buf.clear();
        serde_json::to_writer(&mut self.buf, msg).map_err(|e| ProcessError::Io(e.to_string()))?;
        let line = std::str::from_utf8(&self.buf).map_err(|e| ProcessError::Io(e.to_string()))?;
        transmit(&mut self.proc, &self.cfg, line)
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
        let mut p = BotProcess::spawn(&self.cfg.command)
            .map_err(|e| Fault::new(format!("cannot start: {e}")))?;
        p.set_write_timeout(self.cfg.decision_timeout.max(Duration::from_millis(100)));
        self.proc = Some(p);
        self.requests = 0;
        self.log_pos = 0;
        let hello = Hello {
            kind: "hello",
            protocol: PROTOCOL_VERSION,
            game: G::NAME,
        };
        let t = self.cfg.startup_timeout;
        if let Err(e) = self.send(&hello) {
            return Err(self.io_fault(e, "answer to hello", t));
        }
        let line = match self.read(t) {
            Ok(l) => l,
            Err(e) => return Err(self.io_fault(e, "answer to hello", t)),
        };
        match serde_json::from_str::<Ready>(&line) {
            Ok(r) if r.kind == "ready" => {
                self.bot_name = r.name;
                Ok(())
            }
            _ => Err(self.fail(format!(
                "garbage: expected {{\"type\":\"ready\"}} in answer to hello, got {}",
                snippet(&line)
            ))),
        }
    }

    fn decide_inner(
        &mut self,
        game: &G,
        seat: Seat,
        legal: &[G::Choice],
    ) -> Result<G::Choice, Fault> {
        if self.proc.is_none() {
            return Err(Fault::new("not running (failed earlier)"));
        }
        // A line written when nothing was asked would be read as the next answer.
        if let Some(p) = self.proc.as_mut() {
            if let Ok(line) = p.read_line(Duration::ZERO, self.cfg.max_line) {
                return Err(self.fail(format!(
                    "unsolicited output: {} was written before request {} was sent (answer each decide exactly once; log to stderr)",
                    snippet(&line),
                    self.requests + 1
                )));
            }
        }
        self.requests += 1;
        let sent = match self.enc.decide(game, seat, legal, self.requests) {
            Ok(line) => transmit(&mut self.proc, &self.cfg, line),
            Err(e) => Err(ProcessError::Io(e)),
        };
        if let Err(e) = sent {
            return Err(self.io_fault(e, "answer", self.cfg.decision_timeout));
        }
        let mut timeout = self.cfg.decision_timeout;
        let mut game_limited = false;
        if let Some(g) = self.cfg.game_timeout {
            let left = g.saturating_sub(self.used);
            if left < timeout {
                timeout = left;
                game_limited = true;
            }
        }
        let t0 = Instant::now();
        let r = self.read(timeout);
        self.used += t0.elapsed();
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
                    self.stop = Some(clip(&text));
                }
            }
        }
        match parse_reply::<G>(&line, legal, self.requests) {
            Ok(c) => Ok(c),
            // The program answered in step: it stays for the rest of the game when
            // the rules penalise the answer, and for the next game if they forfeit it.
            Err(Refusal(reason, true)) => {
                let tail = self
                    .proc
                    .as_mut()
                    .map(|p| p.stderr_tail())
                    .unwrap_or_default();
                Err(Fault {
                    stderr_tail: (!tail.is_empty()).then_some(tail),
                    ..Fault::illegal_choice(reason)
                })
            }
            Err(Refusal(reason, false)) => Err(self.fail(reason)),
        }
    }
}

/// Writes one line to the program (and the transcript, when kept).
fn transmit(
    proc: &mut Option<BotProcess>,
    cfg: &JsonBotConfig,
    line: &str,
) -> Result<(), ProcessError> {
    if let Some(t) = &cfg.transcript {
        if let Ok(mut t) = t.lock() {
            t.push(format!("> {line}"));
        }
    }
    match proc.as_mut() {
        Some(p) => p.send_line(line),
        None => Err(ProcessError::Closed),
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

/// Why an answer was refused: the reason, and whether the answer was well formed
/// but illegal (penalised rather than forfeited under a penalty rule).
struct Refusal(String, bool);

impl From<String> for Refusal {
    fn from(reason: String) -> Self {
        Refusal(reason, false)
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
        let c: G::Choice = serde_json::from_value(v)
            .map_err(|_| format!("illegal choice {}: not a {} choice", clip(&text), G::NAME))?;
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
            ))
        };
    }
    if let Some(v) = reply.index {
        return match v.as_u64() {
            Some(i) if (i as usize) < legal.len() => Ok(legal[i as usize]),
            _ => Err(Refusal(
                format!("illegal choice: index {v} is not in 0..{}", legal.len()),
                true,
            )),
        };
    }
    Err(format!(
        "garbage: answer has neither \"choice\" nor \"index\": {}",
        snippet(line)
    )
    .into())
}

impl<G: WireGame> Agent<G> for JsonAgent<G> {
    fn seat_names(&mut self, names: &[&str]) {
        self.enc.set_names(names);
    }

    fn start(&mut self, game: &G, seat: Seat, seed: u64) -> Result<(), Fault> {
        self.ensure_running()?;
        self.games += 1;
        self.used = Duration::ZERO;
        let sent = match self.enc.start(game, seat, seed) {
            Ok(line) => transmit(&mut self.proc, &self.cfg, line),
            Err(e) => Err(ProcessError::Io(e)),
        };
        if let Err(e) = sent {
            return Err(self.io_fault(e, "reading of start", self.cfg.decision_timeout));
        }
        Ok(())
    }

    fn decide(&mut self, game: &G, seat: Seat, legal: &[G::Choice]) -> Result<G::Choice, Fault> {
        self.decide_inner(game, seat, legal)
    }

    fn take_stop(&mut self) -> Option<String> {
        self.stop.take()
    }

    fn take_log(&mut self) -> Option<String> {
        let p = self.proc.as_ref()?;
        Some(p.stderr_since(&mut self.log_pos)).filter(|s| !s.is_empty())
    }

    fn finish(&mut self, game: &G, seat: Seat) {
        let sent = match self.enc.end(game, seat) {
            Ok(line) if self.proc.is_some() => transmit(&mut self.proc, &self.cfg, line),
            Ok(_) => return,
            Err(e) => Err(ProcessError::Io(e)),
        };
        if sent.is_err() {
            // It will be restarted for the next game; the fault shows there if it recurs.
            if let Some(mut p) = self.proc.take() {
                p.kill();
            }
        }
    }
}
