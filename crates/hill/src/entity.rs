//! The hill's entities: what a hill holds (settings, entrants, versions,
//! events, blocks, games, rounds, tokens) and the enums that name their states,
//! with no storage in them. The store keeps them; the service's rules and the
//! scheduler work on them.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The settings a hill was made with; they never change.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// The game (`coup`, `samurai`, `ppcg`).
    pub game: String,
    /// The rules preset's name.
    pub rules_name: String,
    /// The rule options, as JSON (as a run's `run.json` keeps them).
    pub rules: serde_json::Value,
    /// Seats at a table.
    pub table: usize,
    /// The master seed: every block's games derive from it.
    pub seed: u64,
    /// Games a block plays (rounded up to whole deals under duplicate play).
    pub block: u64,
    /// Games a block of built-ins only plays (0, as in hills made before it
    /// was a setting: `block`). A built-in's game takes microseconds, a
    /// program's milliseconds: blocks of the same length in games would cost
    /// built-ins a quarter of their speed at every block's start and end.
    #[serde(default)]
    pub builtin_block: u64,
    /// Games a new version plays against the field before the scheduler looks
    /// elsewhere.
    pub candidate_games: u64,
    /// Each deal played once per rotation of the seats (games that deal hidden
    /// cards).
    pub duplicate: bool,
    /// A decision's time limit for programs, in milliseconds.
    pub timeout_ms: u64,
    /// The runtimes an upload's command may start (`python3`, `node`); a
    /// program of the upload's own (`./bot`) needs none. Empty (as in hills made
    /// before it was a setting): [`crate::program::DEFAULT_RUNTIMES`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runtimes: Vec<String>,
    /// Each candidate's blocks are dealt from seeds of its own version, so that
    /// no game shown on the page deals what a later candidate will be dealt
    /// (false in hills made before: every candidate's k-th block shares a seed).
    #[serde(default)]
    pub own_candidate_seeds: bool,
    /// Blocks after the candidate games draw each deal's table from the whole
    /// field, alternating with blocks for the least settled pair (false in
    /// hills made before: two neighbours and two entrants drawn once a block).
    #[serde(default)]
    pub field_tables: bool,
    /// Standings as the current field's post-stratified means: every seat of
    /// every block counted, strengths exact at any size of field, the model
    /// filling in only what was never played (false in hills made before:
    /// the model alone, a pair block counted at one seat a game).
    #[serde(default)]
    pub as_played: bool,
    /// The longest an upload's check may take, in seconds (0, as in hills made
    /// before it was a setting: [`DEFAULT_CHECK_SECONDS`]).
    #[serde(default)]
    pub check_seconds: u64,
    /// The most the hill keeps of its games' decision logs (what programs
    /// wrote to stderr at each decision, how long each took), compressed, in
    /// MiB; the oldest go first (0, as in hills made before it was a setting:
    /// [`DEFAULT_LOG_MIB`]).
    #[serde(default)]
    pub log_mib: u64,
    /// The planning window W of a hill played by workers: block k is planned
    /// from the standings after block k − W, so that W blocks can be played at
    /// once and the schedule stays a function of the event log and the games
    /// (0 or 1, as in every hill played by one process: after the block before).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub window: u64,
    /// The leases a block is cut into on a hill played by workers: each is a
    /// run of the block's games one worker plays and stores at once (0: 8).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub leases: u64,
    /// How long a worker's lease lasts without news from it, in seconds; a
    /// worker renews it while it plays (0: 60).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub lease_seconds: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// How much of its games' decision logs a hill keeps when it does not say, in
/// MiB: about 470,000 games of a Python bot that logs nothing against a
/// built-in (570 bytes a game: its decisions' times); fewer of bots that log.
pub const DEFAULT_LOG_MIB: u64 = 256;

/// How long an upload's check may take when the hill does not say.
pub const DEFAULT_CHECK_SECONDS: u64 = 600;

impl Settings {
    /// The most bytes of decision logs the hill keeps ([`Settings::log_mib`]).
    pub fn log_bytes(&self) -> u64 {
        let mib = if self.log_mib == 0 {
            DEFAULT_LOG_MIB
        } else {
            self.log_mib
        };
        mib << 20
    }

    /// The runtimes an upload may name (the hill's, or the default list).
    pub fn runtimes(&self) -> Vec<String> {
        if self.runtimes.is_empty() {
            crate::program::DEFAULT_RUNTIMES
                .iter()
                .map(|s| s.to_string())
                .collect()
        } else {
            self.runtimes.clone()
        }
    }

    /// The planning window ([`Settings::window`]): at least 1.
    pub fn window(&self) -> u64 {
        self.window.max(1)
    }

    /// The leases a block is cut into ([`Settings::leases`]).
    pub fn leases(&self) -> u64 {
        if self.leases == 0 {
            8
        } else {
            self.leases
        }
    }

    /// How long a lease lasts without news from its worker.
    pub fn lease_time(&self) -> std::time::Duration {
        std::time::Duration::from_secs(match self.lease_seconds {
            0 => 60,
            s => s,
        })
    }

    /// The longest an upload's check may take.
    pub fn check_time(&self) -> std::time::Duration {
        std::time::Duration::from_secs(match self.check_seconds {
            0 => DEFAULT_CHECK_SECONDS,
            s => s,
        })
    }
}

/// Where an entrant stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Scheduled and ranked.
    Active,
    /// Ranked on its games so far, not scheduled.
    Paused,
    /// Gone: neither ranked nor scheduled; its games stay in the history.
    Removed,
}

impl Status {
    /// Its name in the database and on the page.
    pub fn name(self) -> &'static str {
        match self {
            Status::Active => "active",
            Status::Paused => "paused",
            Status::Removed => "removed",
        }
    }

    /// The status named `s` (as [`Status::name`] writes it); anything else is
    /// not a status, and a store that holds it is damaged.
    pub fn parse(s: &str) -> Option<Status> {
        [Status::Active, Status::Paused, Status::Removed]
            .into_iter()
            .find(|k| k.name() == s)
    }
}

/// An entrant: a name that keeps its history across versions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entrant {
    /// Its number, in the order entrants came.
    pub id: i64,
    /// Its unique name.
    pub name: String,
    /// Where it stands.
    pub status: Status,
    /// Its current version.
    pub version: i64,
    /// The author token's name that entered it from the page (`None`: the
    /// organiser, at the command line).
    #[serde(default)]
    pub owner: Option<String>,
}

/// Who asks for a change from the page: the name of their token, and whether it
/// is the organiser's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Author {
    /// The token's name.
    pub name: String,
    /// An organiser's token: every change of every entrant.
    pub admin: bool,
}

/// A token as listed (never the token itself: only its hash is kept).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenInfo {
    /// Its name.
    pub name: String,
    /// An organiser's token.
    pub admin: bool,
    /// When it was made (seconds since 1970).
    pub at: i64,
}

/// One submitted version of an entrant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Version {
    /// Its number, over the whole hill.
    pub id: i64,
    /// Whose it is.
    pub entrant: i64,
    /// 1 for the entrant's first version, then 2, 3...
    pub number: i64,
    /// How it is played: `{"builtin": NAME}`, or a program's `command`, `protocol`
    /// and `folder` (a content-hashed copy inside the hill).
    pub spec: serde_json::Value,
    /// When it was submitted (seconds since 1970).
    pub at: i64,
}

/// What changed in the field, in order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// Its number: the log's order.
    pub id: i64,
    /// When (seconds since 1970).
    pub at: i64,
    /// What changed.
    pub kind: Change,
    /// The entrant's name.
    pub entrant: String,
    /// The version it brought, for `add` and `update`.
    pub version: Option<i64>,
    /// Blocks planned before it: the scheduler saw it from the next one on.
    pub before_block: i64,
}

/// A block: games the scheduler planned together, among fixed versions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Block {
    /// Its number: blocks are planned and played in this order.
    pub id: i64,
    /// Why it was planned.
    pub kind: BlockKind,
    /// The versions playing, as the block's entrants (a record's seats index this).
    pub versions: Vec<i64>,
    /// Who plays whom ([`koth_arena::Schedule`], as JSON).
    pub schedule: serde_json::Value,
    /// The block's master seed.
    pub seed: u64,
    /// Games planned.
    pub games: u64,
    /// Games stored: always the first `done` of the block.
    pub done: u64,
    /// The last event the scheduler had seen when it planned the block.
    pub after_event: i64,
}

/// Why a block was planned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BlockKind {
    /// A new version against the field, until it has its candidate games.
    Candidate,
    /// The whole field, a table drawn for each deal.
    Field,
    /// The two neighbours least settled, facing the same field.
    Pair,
    /// In hills made before field and pair blocks: two neighbours and two
    /// entrants drawn once.
    Uncertain,
}

impl BlockKind {
    /// Its name in the database and on the page.
    pub fn name(self) -> &'static str {
        match self {
            BlockKind::Candidate => "candidate",
            BlockKind::Field => "field",
            BlockKind::Pair => "pair",
            BlockKind::Uncertain => "uncertain",
        }
    }

    /// The kind named `s`, if it is one.
    pub fn parse(s: &str) -> Option<BlockKind> {
        [
            BlockKind::Candidate,
            BlockKind::Field,
            BlockKind::Pair,
            BlockKind::Uncertain,
        ]
        .into_iter()
        .find(|k| k.name() == s)
    }
}

/// What the scheduler needs of the blocks planned so far: how many, and how
/// many candidate blocks each version had. A summary, not the blocks: a hill
/// that runs for weeks plans hundreds of thousands, and reading them all before
/// each block would cost more than the block.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Planned {
    /// Blocks planned.
    pub blocks: u64,
    /// Candidate blocks planned, by candidate version.
    pub candidate: HashMap<i64, u64>,
    /// Each candidate's blocks: their numbers and games (a hill played within
    /// a window of blocks counts those not yet on the standings it plans from).
    pub candidate_blocks: HashMap<i64, Vec<(i64, u64)>>,
}

impl Planned {
    /// The summary of `blocks`.
    pub fn of(blocks: &[Block]) -> Planned {
        let mut p = Planned::default();
        for b in blocks {
            p.add(b);
        }
        p
    }

    /// Counts one more block.
    pub fn add(&mut self, block: &Block) {
        self.blocks += 1;
        if block.kind == BlockKind::Candidate {
            if let Some(&v) = block.versions.first() {
                *self.candidate.entry(v).or_default() += 1;
                self.candidate_blocks
                    .entry(v)
                    .or_default()
                    .push((block.id, block.games));
            }
        }
    }
}

/// A run of a block's games one worker holds for a while: it plays them and
/// stores them at once, or loses the lease when it expires (another worker
/// then takes it). A lease's games are stored once: never lost, never twice.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lease {
    /// Its block.
    pub block: i64,
    /// The block's first game it holds...
    pub first: u64,
    /// ...and how many.
    pub count: u64,
    /// The worker holding it (`None`: the hill's own process).
    pub worker: Option<String>,
}

/// A worker as listed (never its token: only the hash is kept).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkerInfo {
    /// Its name.
    pub name: String,
    /// When its token was made (seconds since 1970).
    pub at: i64,
    /// Its token no longer works.
    pub revoked: bool,
    /// Games it stored (its excluded games are gone).
    pub games: u64,
    /// When it last claimed or stored a lease (seconds since 1970).
    pub seen: Option<i64>,
}

/// One stored game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredGame {
    /// Its block.
    pub block: i64,
    /// Its number in the block.
    pub index: u64,
    /// The version at each seat.
    pub seats: Vec<i64>,
    /// The record, as a line of a run's `games.jsonl` (seats index the block's
    /// versions).
    pub record: String,
}

/// What a version's stored games gave it, whoever it met: kept as games are
/// stored, so that an entrant's page reads them rather than its games.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Results {
    /// Games it played.
    pub games: u64,
    /// Its scores, summed.
    pub score: f64,
    /// Games it forfeited.
    pub forfeits: u64,
}

impl Results {
    /// Its mean score (0 before any game).
    pub fn mean(&self) -> f64 {
        if self.games == 0 {
            0.0
        } else {
            self.score / self.games as f64
        }
    }
}

/// What the organiser says of a contest, shown at the top of the page: all of
/// it may change while the hill runs (its game and rules may not).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Contest {
    /// Its title ("" before the organiser gives one: the page says "koth hill").
    #[serde(default)]
    pub title: String,
    /// What it is, in Markdown.
    #[serde(default)]
    pub description: String,
    /// Its rules, in Markdown (what may be entered, how it is judged).
    #[serde(default)]
    pub rules: String,
    /// When authors' uploads open (seconds since 1970; none: open now).
    #[serde(default)]
    pub start: Option<i64>,
    /// The submission deadline: after it the field is frozen (no author's
    /// upload enters), and the final round decides.
    #[serde(default)]
    pub deadline: Option<i64>,
    /// When the contest ends: no more games after it; the page stays.
    #[serde(default)]
    pub end: Option<i64>,
    /// Where and when the text the final round's seed is drawn from will be
    /// published (a lottery's draw of a given day, a block's hash at a given
    /// height): fixed before the deadline, shown on the page, so that the
    /// organiser cannot pick among texts once the standings are known.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub beacon: String,
    /// Final rounds the organiser voided, with why: the page shows them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub voided: Vec<Voided>,
    /// How many entrants one author's token may have in the field at once
    /// (0: one). More lets an author enter feeders that serve its main bot;
    /// house bots are the organiser's, entered with its own token or at the
    /// command line.
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub entrants_per_author: u32,
    /// Bots are told their opponents' names (false: each seat is only
    /// `seat1`, `seat2`, ..., so that no bot can tell a friend from a rival).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub show_names: bool,
}

fn is_zero_u32(n: &u32) -> bool {
    *n == 0
}

impl Contest {
    /// How many entrants one author may have in the field at once.
    pub fn per_author(&self) -> u32 {
        self.entrants_per_author.max(1)
    }
}

/// A final round the organiser voided.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Voided {
    /// The round's number.
    pub round: i64,
    /// When it was voided (seconds since 1970).
    pub at: i64,
    /// Why, in the organiser's words.
    pub reason: String,
}

/// Where a contest stands at a moment, in the order they come.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// Before its start: the page is up, no author's upload enters yet.
    Soon,
    /// Uploads open.
    Open,
    /// After the deadline: uploads closed, games go on until the end.
    Frozen,
    /// After the end: no more games.
    Ended,
}

impl Contest {
    /// Where it stands at `now` (seconds since 1970).
    pub fn phase(&self, now: i64) -> Phase {
        if self.end.is_some_and(|t| now >= t) {
            Phase::Ended
        } else if self.deadline.is_some_and(|t| now >= t) {
            Phase::Frozen
        } else if self.start.is_some_and(|t| now < t) {
            Phase::Soon
        } else {
            Phase::Open
        }
    }
}

/// A line the organiser posted on the page.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Announcement {
    /// Its number, in order.
    pub id: i64,
    /// When it was posted (seconds since 1970).
    pub at: i64,
    /// What it says, in Markdown.
    pub text: String,
}

/// A round: the field frozen, a fixed number of games, a report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Round {
    /// Its number.
    pub id: i64,
    /// When it was played (seconds since 1970).
    pub at: i64,
    /// Games played.
    pub games: u64,
    /// Who played, with their versions' numbers: `[["honest", 1], ...]`.
    pub entrants: serde_json::Value,
    /// The leaderboard of the round, best first: `[{"name", "mean", "low", "high"}]`.
    pub standings: serde_json::Value,
    /// The contest's final round: the text published after the deadline
    /// that its seed was drawn from (none: an ordinary round).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beacon: Option<String>,
}

/// A change of the field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    /// A new entrant with its first version.
    Add,
    /// A new version of an entrant.
    Update,
    /// The entrant leaves.
    Remove,
    /// No more games for now.
    Pause,
    /// Games again.
    Resume,
}

impl Change {
    /// Its name in the event log.
    pub fn name(self) -> &'static str {
        match self {
            Change::Add => "add",
            Change::Update => "update",
            Change::Remove => "remove",
            Change::Pause => "pause",
            Change::Resume => "resume",
        }
    }
}

impl Change {
    /// The change named `s` (as [`Change::name`] writes it), if it is one.
    pub fn parse(s: &str) -> Option<Change> {
        [
            Change::Add,
            Change::Update,
            Change::Remove,
            Change::Pause,
            Change::Resume,
        ]
        .into_iter()
        .find(|k| k.name() == s)
    }
}

/// Seconds since 1970, as the store keeps times (events, history, rounds).
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// The field as it stood after event `upto`, from the event log.
pub fn entrants_at(events: &[Event], versions: &[Version], upto: i64) -> Vec<Entrant> {
    let mut out: Vec<Entrant> = Vec::new();
    for ev in events.iter().filter(|e| e.id <= upto) {
        let at = out.iter().position(|e| e.name == ev.entrant);
        match (ev.kind, at) {
            (Change::Add | Change::Update, at) => {
                let Some(v) = ev.version.and_then(|v| versions.iter().find(|x| x.id == v)) else {
                    continue;
                };
                match at {
                    Some(i) => {
                        out[i].version = v.id;
                        out[i].status = Status::Active;
                    }
                    None => out.push(Entrant {
                        id: v.entrant,
                        name: ev.entrant.clone(),
                        status: Status::Active,
                        version: v.id,
                        owner: None,
                    }),
                }
            }
            (kind, Some(i)) => {
                out[i].status = match kind {
                    Change::Remove => Status::Removed,
                    Change::Pause => Status::Paused,
                    _ => Status::Active,
                }
            }
            _ => {}
        }
    }
    out.sort_by_key(|e| e.id);
    out
}

/// Each enum the store keeps shows as its name.
macro_rules! shown_by_name {
    ($($t:ty),*) => {$(
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    )*};
}
shown_by_name!(BlockKind, Change, Status);
