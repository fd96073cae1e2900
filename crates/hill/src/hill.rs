//! A hill: its folder, its store, and the runner that plays the blocks the
//! scheduler plans, storing each batch of games as it finishes.

use crate::board::Board;
use crate::entity::entrants_at;
pub use crate::folders::VERSIONS;
use crate::folders::{is_version_folder, keep_folder};
use crate::plan::next_block;
use crate::service::{self, check_name};
use crate::store::{
    Author, Batch, Block, BlockKind, Change, Entrant, Event, Settings, Status, Store, StoredGame,
};
use koth_arena::{
    Game, GameRecord, Observer, Progress, RecordLevel, Schedule, Scoring, Tournament,
};
use koth_entrants::{BotEntry, BotKinds, BotSource, Protocol, Setup, Timeouts};
use koth_process::Sandbox;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

pub use crate::error::HillError;

/// A result of the hill.
pub type Result<T, E = HillError> = std::result::Result<T, E>;

/// Readies a block's rules before it is played, given its entrants' names, its
/// schedule and its seed. A hill keeps every game in its database: a game that
/// files its games elsewhere (seed 000's edition) files nothing in a hill.
pub type Ready<G> = Box<
    dyn Fn(&mut <G as Game>::Rules, &[String], &Schedule, u64) -> Result<(), String> + Send + Sync,
>;

/// One hill, open.
pub struct Hill<G: BotKinds> {
    /// Its folder.
    pub dir: PathBuf,
    /// Where its data lives.
    pub store: Box<dyn Store>,
    /// What it was made with.
    pub settings: Settings,
    /// The rules its games are played under.
    pub rules: G::Rules,
    /// How its games are scored.
    pub scoring: Scoring,
    /// Worker threads.
    pub threads: usize,
    /// How its programs are isolated.
    pub sandbox: Sandbox,
    /// Rest when every active rank is settled ([`Board::settled`]): [`Hill::step`]
    /// then plays nothing until a change brings a candidate or unsettles a rank.
    pub rest_when_settled: bool,
    /// Readies a block's rules, for a game that needs it.
    pub ready: Option<Ready<G>>,
    /// Programs kept from one block to the next.
    pools: crate::pool::Pools<G>,
    /// Seconds of a worker a game took in the last block played.
    pace: Option<f64>,
    /// Games played again since the hill was opened, rather than charged to a
    /// bot: lost with a process that failed in another game, or put off while
    /// the machine could not start a process (then the workers pause, longer
    /// each time, until it clears).
    pub replays: koth_arena::Replays,
    /// The hill's player lock, once this hill plays (see [`Hill::claim_play`]).
    player: Option<std::fs::File>,
    /// Where the games stored are counted for `/metrics`, if anywhere.
    pub metrics: Option<std::sync::Arc<crate::metrics::Metrics>>,
    /// A second connection to a shared store, that renews the lease being
    /// played ([`Hill::play_lease`]).
    pub(crate) beat: Option<Box<dyn Store>>,
}

/// The file the process playing a hill holds locked (and names itself in).
pub const PLAYER_LOCK: &str = "player.lock";

impl<G: BotKinds> Hill<G> {
    /// Makes a new hill in `dir` (created if need be).
    pub fn init(dir: &Path, settings: &Settings) -> Result<()> {
        Hill::<G>::init_at(dir, settings, None)
    }

    /// Makes a new hill in `dir` whose data is kept in the PostgreSQL database
    /// at `db` (an empty one) if given, else in an SQLite file in `dir`.
    pub fn init_at(dir: &Path, settings: &Settings, db: Option<&str>) -> Result<()> {
        std::fs::create_dir_all(dir.join(VERSIONS))
            .map_err(|e| HillError::Io(format!("cannot create {}: {e}", dir.display())))?;
        crate::folders::private(dir)?;
        crate::store::create(dir, settings, db)?;
        crate::folders::private(dir)?;
        Ok(())
    }

    /// Opens the hill in `dir`, played under `rules`, scored by `scoring`.
    pub fn open(dir: &Path, rules: G::Rules, scoring: Scoring) -> Result<Hill<G>> {
        Hill::with_store(dir, crate::store::open(dir)?, rules, scoring)
    }

    /// The hill whose data is in `store`, with `dir` as its folder: a
    /// worker's is a cache of the programs' folders it fetched.
    pub fn with_store(
        dir: &Path,
        store: Box<dyn Store>,
        rules: G::Rules,
        scoring: Scoring,
    ) -> Result<Hill<G>> {
        let settings = store.settings()?;
        if settings.game != G::NAME {
            return Err(HillError::Invalid(format!(
                "{} is a hill of {}, not of {}",
                dir.display(),
                settings.game,
                G::NAME
            )));
        }
        Ok(Hill {
            // Absolute: programs run (and uploads are checked) from folders
            // of their own.
            dir: koth_process::absolute(dir),
            store,
            settings,
            rules,
            scoring,
            threads: 1,
            sandbox: Sandbox::Auto,
            rest_when_settled: false,
            ready: None,
            pools: Default::default(),
            pace: None,
            replays: koth_arena::Replays::default(),
            player: None,
            metrics: None,
            beat: None,
        })
    }

    /// Makes this the one process that plays the hill, until it is dropped
    /// ([`Hill::step`] does so first): two players would plan and store the same
    /// blocks. An error names the process already playing. The lock is the
    /// operating system's, so a player killed outright leaves none behind.
    ///
    /// ```no_run
    /// # fn f(mut hill: koth_hill::Hill<koth_coup::State>) -> koth_hill::hill::Result<()> {
    /// hill.claim_play()?; // fails while `koth hill serve` plays this hill
    /// # Ok(()) }
    /// ```
    pub fn claim_play(&mut self) -> Result<()> {
        use std::io::{Read, Seek, Write};
        use std::os::unix::fs::OpenOptionsExt;
        if self.player.is_some() {
            return Ok(());
        }
        let path = self.dir.join(PLAYER_LOCK);
        let cannot =
            |e: std::io::Error| HillError::Io(format!("cannot lock {}: {e}", path.display()));
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            // Never through a link: the file is truncated and written.
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path)
            .map_err(cannot)?;
        match file.try_lock() {
            Ok(()) => {
                let me = format!("{} {}\n", std::process::id(), crate::store::now());
                file.set_len(0)
                    .and_then(|_| file.rewind())
                    .and_then(|_| file.write_all(me.as_bytes()))
                    .map_err(cannot)?;
                self.player = Some(file);
                Ok(())
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                let mut who = String::new();
                let _ = file.take(100).read_to_string(&mut who);
                let who = match who.split_whitespace().collect::<Vec<_>>()[..] {
                    [pid, since] => match since.parse::<i64>() {
                        Ok(t) => {
                            format!("process {pid} (for {} s)", (crate::store::now() - t).max(0))
                        }
                        Err(_) => format!("process {pid}"),
                    },
                    _ => "another process".to_string(),
                };
                Err(HillError::Conflict(format!(
                    "{} is being played by {who}: one process plays a hill at a time\n  fix: stop that one first (koth hill add, update, remove, pause and resume work while it plays)",
                    self.dir.display()
                )))
            }
            Err(std::fs::TryLockError::Error(e)) => Err(cannot(e)),
        }
    }

    /// Enters `bot` as `name` (`Change::Add`) or as `name`'s new version
    /// (`Change::Update`): a program's folder is copied into the hill first, under
    /// its content hash, and the version plays from that copy ever after.
    pub fn submit(&mut self, change: Change, name: &str, bot: &BotEntry) -> Result<Event> {
        self.submit_by(change, name, bot, None)
    }

    /// [`Hill::submit`] for an author from the page (see [`Store::change`]).
    pub fn submit_by(
        &mut self,
        change: Change,
        name: &str,
        bot: &BotEntry,
        by: Option<&Author>,
    ) -> Result<Event> {
        check_name(name)?;
        let spec = self.spec_of(bot)?;
        self.enter(change, name, spec, by)
    }

    /// What the hill stores of `bot`: a built-in's name, or a program's command,
    /// protocol and folder (copied into the hill first, under its content hash).
    /// [`Hill::bot_of`] makes from it the bot every game and the check run.
    pub fn spec_of(&self, bot: &BotEntry) -> Result<serde_json::Value> {
        Ok(match &bot.source {
            BotSource::Builtin(b) => serde_json::json!({ "builtin": b }),
            BotSource::Program {
                command,
                dir,
                protocol,
                ..
            } => {
                let folder = keep_folder(&self.dir, dir)?;
                serde_json::json!({ "command": command, "protocol": protocol.name(), "folder": folder })
            }
        })
    }

    /// The spec of an uploaded program, once its command names nothing of the
    /// host (see [`crate::program::command_words`]): its folder is kept in the
    /// hill under its content hash, and the bot [`Hill::bot_of`] makes of the
    /// spec is what the upload's check and every game run.
    pub fn upload_spec(
        &self,
        command: &str,
        folder: &Path,
        protocol: Protocol,
    ) -> Result<serde_json::Value> {
        let words = crate::program::command_words(command, folder, &self.settings.runtimes())
            .map_err(|e| HillError::Invalid(e.to_string()))?;
        let kept = keep_folder(&self.dir, folder)?;
        Ok(serde_json::json!({ "command": words, "protocol": protocol.name(), "folder": kept }))
    }

    /// Enters `spec` (made by [`Hill::spec_of`] or [`Hill::upload_spec`]) as
    /// `name` or as its new version, for `by` (an author from the page) or the
    /// organiser at the command line. An author may not take a name that looks
    /// like another entrant's ([`crate::service::look_alike`]) nor enter an exact copy of
    /// another author's current version.
    pub fn enter(
        &mut self,
        change: Change,
        name: &str,
        spec: serde_json::Value,
        by: Option<&Author>,
    ) -> Result<Event> {
        self.may_enter(name, &spec, by)?;
        if self.store.shared() {
            // Workers on other machines fetch the folder from the database.
            if let Some(folder) = spec.get("folder").and_then(|f| f.as_str()) {
                if is_version_folder(folder) {
                    let tar = crate::folders::tar_folder(&self.dir.join(folder))?;
                    self.store.put_folder(&folder[VERSIONS.len() + 1..], &tar)?;
                }
            }
        }
        service::change(self.store.as_mut(), change, name, Some(spec), by)
    }

    /// Whether `by` may enter `spec` as `name` (see [`Hill::enter`]): asked
    /// before an upload's check too, so that a refusal costs no check.
    pub fn may_enter(
        &self,
        name: &str,
        spec: &serde_json::Value,
        by: Option<&Author>,
    ) -> Result<()> {
        service::may_enter(self.store.as_ref(), name, spec, by)
    }

    /// Clears what a process that played this hill and was killed may have
    /// left: uploads being checked, folders half copied, and version folders
    /// no stored version plays from (an upload whose check was cut short).
    /// Called by the player, which alone holds the hill (see
    /// [`Hill::claim_play`]); gives what it removed, in words.
    pub fn sweep(&mut self) -> Result<Vec<String>> {
        self.claim_play()?;
        let mut gone = Vec::new();
        let uploads = self.dir.join("uploads");
        if let Ok(entries) = std::fs::read_dir(&uploads) {
            for e in entries.flatten() {
                // remove_dir_all removes a link, never what it points to.
                if std::fs::remove_dir_all(e.path())
                    .or_else(|_| std::fs::remove_file(e.path()))
                    .is_ok()
                {
                    gone.push(format!("uploads/{}", e.file_name().to_string_lossy()));
                }
            }
        }
        let used: std::collections::HashSet<String> = self
            .store
            .versions()?
            .iter()
            .filter_map(|v| {
                v.spec
                    .get("folder")
                    .and_then(|f| f.as_str())
                    .map(str::to_string)
            })
            .collect();
        if let Ok(entries) = std::fs::read_dir(self.dir.join(VERSIONS)) {
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                let rel = format!("{VERSIONS}/{name}");
                let half = name.starts_with(".new-");
                if (half || is_version_folder(&rel))
                    && !used.contains(&rel)
                    && std::fs::remove_dir_all(e.path()).is_ok()
                {
                    gone.push(rel);
                }
            }
        }
        Ok(gone)
    }

    /// Removes the folder `spec` kept (an upload whose check failed) unless a
    /// stored version plays from it.
    pub fn forget_spec(&self, spec: &serde_json::Value) -> Result<()> {
        let Some(folder) = spec.get("folder").and_then(|f| f.as_str()) else {
            return Ok(());
        };
        let used = self
            .store
            .versions()?
            .iter()
            .any(|v| v.spec.get("folder").and_then(|f| f.as_str()) == Some(folder));
        if !used && is_version_folder(folder) {
            let _ = std::fs::remove_dir_all(self.dir.join(folder));
        }
        Ok(())
    }

    /// Removes, pauses or resumes `name`.
    pub fn set(&mut self, change: Change, name: &str) -> Result<Event> {
        service::change(self.store.as_mut(), change, name, None, None)
    }

    /// Makes a token called `name` (an organiser's with `admin`) and gives it,
    /// once: only its hash is kept.
    pub fn add_token(&mut self, name: &str, admin: bool) -> Result<String> {
        service::add_token(self.store.as_mut(), name, admin)
    }

    /// The bot of a stored version, named `name`: what its games and its check
    /// run (see [`spec_bot`]).
    pub fn bot_of(&self, name: &str, spec: &serde_json::Value) -> Result<BotEntry> {
        spec_bot::<G>(&self.dir, name, spec, self.sandbox)
    }

    /// The bot of every listed entrant's current version, in entrant order.
    pub fn current_bots(&self) -> Result<Vec<BotEntry>> {
        let versions = self.store.versions()?;
        self.store
            .entrants()?
            .iter()
            .filter(|e| e.status != Status::Removed)
            .map(|e| {
                let v = versions.iter().find(|v| v.id == e.version);
                self.bot_of(&e.name, &v.map(|v| v.spec.clone()).unwrap_or_default())
            })
            .collect()
    }

    /// The standings of the current field, from every stored game, and the last
    /// event they reflect.
    pub fn board(&self) -> Result<(Board, i64)> {
        let seen = self.store.events(0)?.last().map_or(0, |e| e.id);
        Ok((self.board_at(seen)?, seen))
    }

    /// The standings of the field as it stood after event `seen`, from every
    /// stored game (what the scheduler plans from: an event logged meanwhile is
    /// seen at the next block). Standings kept of the same field
    /// ([`Hill::keep_standings`]) are taken up, and only the games stored
    /// since are counted.
    pub fn board_at(&self, seen: i64) -> Result<Board> {
        let events = self.store.events(0)?;
        let versions = self.store.versions()?;
        let entrants = entrants_at(&events, &versions, seen);
        let mut board = Board::for_hill(&entrants, &versions, &self.settings);
        let from = match self.kept()? {
            Some(kept) if board.take(&kept) => kept.upto,
            _ => (0, 0),
        };
        board
            .add_stored::<G::Choice>(self.store.as_ref(), cores(), from, None)
            .map_err(HillError::Invalid)?;
        Ok(board)
    }

    /// The standings kept, if any (unreadable ones are none: they are counted
    /// again, and the audit says so).
    fn kept(&self) -> Result<Option<crate::board::Kept>> {
        Ok(self
            .store
            .kept()?
            .and_then(|k| serde_json::from_str(&k).ok()))
    }

    /// Keeps `board` in the store, so that opening the hill again counts only
    /// the games stored after this: `board` must have counted every stored
    /// game of its field (as it has between two [`Hill::step`]s).
    pub fn keep_standings(&mut self, board: &Board) -> Result<()> {
        let kept = board.kept(self.store.end()?);
        let json = serde_json::to_string(&kept)
            .map_err(|e| HillError::Io(format!("the standings cannot be kept: {e}")))?;
        self.store.keep(&json)?;
        Ok(())
    }

    /// The standings after the events `news`, logged after those `board`
    /// reflects, up to event `seen`. A newcomer joining, a pause or a resume
    /// changes no counted game, so `board` takes them as they come; an update or
    /// a removal takes games out, and the board is built again from every
    /// stored game (about 2 s a million games).
    pub fn board_after(&self, mut board: Board, news: &[Event], seen: i64) -> Result<Board> {
        let versions = self.store.versions()?;
        for ev in news.iter().filter(|e| e.id <= seen) {
            let listed = board.entrants.iter().position(|e| e.name == ev.entrant);
            let taken = match (ev.kind, listed) {
                (Change::Pause | Change::Resume, Some(i)) => {
                    board.entrants[i].status = if ev.kind == Change::Pause {
                        Status::Paused
                    } else {
                        Status::Active
                    };
                    true
                }
                (Change::Add, None) => {
                    let v = ev.version.and_then(|v| versions.iter().find(|x| x.id == v));
                    match v {
                        // Listed last only if it came last: a removed entrant
                        // that comes back keeps its place, so that case rebuilds.
                        Some(v) if board.entrants.iter().all(|e| e.id < v.entrant) => {
                            let entrant = Entrant {
                                id: v.entrant,
                                name: ev.entrant.clone(),
                                status: Status::Active,
                                version: v.id,
                                owner: None,
                            };
                            board.join(entrant, v.number);
                            true
                        }
                        _ => false,
                    }
                }
                _ => false,
            };
            if !taken {
                return self.board_at(seen);
            }
        }
        Ok(board)
    }

    /// Plays one block: the unfinished one a crash left, or else the one the
    /// scheduler plans next. Games are stored batch by batch and counted on
    /// `board`; `seen` is the last event `board` reflects. `None` when there is
    /// nothing to play (fewer than two active entrants, or, resting when
    /// settled, every rank settled and no candidate).
    pub fn step(
        &mut self,
        board: &mut Board,
        seen: i64,
        stop: &AtomicBool,
        on_games: &mut dyn FnMut(&Board, u64),
    ) -> Result<Option<Block>> {
        self.claim_play()?;
        if self.store.shared() && self.settings.window() > 1 {
            // Planned from the live standings, a block would not be the one
            // the window plans (nor the one the audit plans again).
            return Err(HillError::Invalid(
                "this hill plans within a window of blocks: play it with Hill::plan_ahead and Hill::play_lease (koth hill play, serve or work)".into(),
            ));
        }
        let versions = self.store.versions()?;
        let block = match self.store.open_block()? {
            Some(b) => b,
            None => {
                let planned = self.store.planned()?;
                let builtin = |v| is_builtin(&versions, v);
                let Some(mut plan) = next_block(&self.settings, board, &planned, &builtin) else {
                    return Ok(None);
                };
                // A candidate always plays; the rest only sharpens a settled order.
                if self.rest_when_settled && plan.kind != BlockKind::Candidate && board.settled() {
                    return Ok(None);
                }
                plan.after_event = seen;
                self.store.plan(&plan)?
            }
        };
        self.play_versions(&block, &versions, board, stop, on_games, None)?;
        Ok(Some(block))
    }

    /// Plays the games of `lease` (of `block`) and stores them at once, as its
    /// worker's: `true` if they were stored, `false` if `stop` ended them
    /// first (nothing is stored then).
    pub(crate) fn play_part(
        &mut self,
        block: &Block,
        versions: &[crate::Version],
        lease: &crate::store::Lease,
        stop: &AtomicBool,
    ) -> Result<bool> {
        // The planner counts stored games itself: this board only takes them.
        let mut scratch = Board::for_hill(&[], versions, &self.settings);
        let stored = self.play_versions(
            block,
            versions,
            &mut scratch,
            stop,
            &mut |_, _| {},
            Some(lease),
        )?;
        Ok(stored == lease.count)
    }

    /// The bots of `block`'s versions, each named after its entrant.
    fn block_bots(
        &self,
        block: &Block,
        entrants: &[Entrant],
        versions: &[crate::Version],
    ) -> Result<Vec<BotEntry>> {
        let mut bots = Vec::new();
        for v in &block.versions {
            let version = versions.iter().find(|x| x.id == *v).ok_or_else(|| {
                HillError::Invalid(format!("block {} names no known version {v}", block.id))
            })?;
            let name = entrants
                .iter()
                .find(|e| e.id == version.entrant)
                .map_or_else(|| format!("#{}", version.entrant), |e| e.name.clone());
            bots.push(self.bot_of(&name, &version.spec)?);
        }
        Ok(bots)
    }

    /// `block`'s schedule, and its rules readied.
    fn block_rules(&self, block: &Block, bots: &[BotEntry]) -> Result<(Schedule, G::Rules)> {
        let schedule: Schedule = serde_json::from_value(block.schedule.clone()).map_err(|e| {
            HillError::Invalid(format!("block {}: unreadable schedule: {e}", block.id))
        })?;
        let mut rules = self.rules.clone();
        let names: Vec<String> = bots.iter().map(|b| b.name.clone()).collect();
        if let Some(ready) = &self.ready {
            ready(&mut rules, &names, &schedule, block.seed).map_err(HillError::Invalid)?;
        }
        Ok((schedule, rules))
    }

    /// Plays games `range` of `block` again, a block of built-ins only (see
    /// [`results_only`]), with records at `level`, handing each to `visit` in
    /// game order.
    pub fn replay_block(
        &self,
        block: &Block,
        range: std::ops::Range<u64>,
        level: RecordLevel,
        visit: &mut dyn FnMut(&GameRecord<G::Choice>),
    ) -> Result<()> {
        let bots = self.block_bots(block, &self.store.entrants()?, &self.store.versions()?)?;
        if !results_only(&bots) {
            return Err(HillError::Invalid(format!(
                "block {} has programs at its tables: its games are played once, and kept whole",
                block.id
            )));
        }
        let (schedule, rules) = self.block_rules(block, &bots)?;
        let setup = Setup::default();
        let mut entrants = Vec::new();
        for b in &bots {
            entrants.push(
                G::entrant(b, &setup.for_bot(b, &bots))
                    .map_err(|e| HillError::Invalid(e.to_string()))?,
            );
        }
        let t = Tournament {
            rules,
            entrants,
            schedule,
            scoring: self.scoring,
            seed: block.seed,
            threads: self.threads,
            records: level,
            duplicate: self.settings.duplicate,
        };
        t.run_range(range, &mut Each(visit), &AtomicBool::new(false));
        Ok(())
    }

    /// A stored game with every choice: as stored, or, for a game of built-ins
    /// stored as results only, played again from its block's seed (an error if
    /// that game's results are not the stored ones).
    pub fn full_record(&self, g: &StoredGame) -> Result<GameRecord<G::Choice>> {
        let stored: GameRecord<G::Choice> = serde_json::from_str(&g.record).map_err(|e| {
            HillError::Invalid(format!(
                "block {} game {}: unreadable record: {e}",
                g.block, g.index
            ))
        })?;
        if stored.choices.is_some() {
            return Ok(stored);
        }
        let block = self.store.block(g.block)?.ok_or_else(|| {
            HillError::NotFound(format!("game {} names no block {}", g.index, g.block))
        })?;
        let mut again = None;
        self.replay_block(&block, g.index..g.index + 1, RecordLevel::Full, &mut |r| {
            again = Some(r.clone())
        })?;
        let again = again.ok_or_else(|| {
            HillError::NotFound(format!("block {} has no game {}", g.block, g.index))
        })?;
        if results_line(&again) != g.record.trim_end().as_bytes() {
            return Err(HillError::Invalid(format!(
                "block {} game {}: its stored results are not what its seed plays",
                g.block, g.index
            )));
        }
        Ok(again)
    }

    /// Plays the games of `block` not stored yet.
    pub fn play_block(
        &mut self,
        block: &Block,
        board: &mut Board,
        stop: &AtomicBool,
        on_games: &mut dyn FnMut(&Board, u64),
    ) -> Result<()> {
        self.claim_play()?;
        let versions = self.store.versions()?;
        self.play_versions(block, &versions, board, stop, on_games, None)
            .map(|_| ())
    }

    /// The tournament that plays `block`'s games: its bots (programs kept
    /// from one block to the next, sandboxed, in the hill's copies of their
    /// folders), its rules and its schedule.
    fn tournament(&mut self, block: &Block, versions: &[crate::Version]) -> Result<Tournament<G>> {
        let entrants = self.store.entrants()?;
        let bots = self.block_bots(block, &entrants, versions)?;
        let (schedule, rules) = self.block_rules(block, &bots)?;
        let copies = koth_process::Workspace::new(None)
            .map_err(|e| HillError::Io(format!("cannot make the bots' working folders: {e}")))?;
        let setup = Setup {
            timeouts: Timeouts {
                decision: Duration::from_millis(self.settings.timeout_ms.max(1)),
                ..Timeouts::default()
            },
            copies: Some(copies),
            hidden: vec![koth_process::absolute(&self.dir)],
            ..Setup::default()
        };
        // A version's programs live from block to block; those of versions that
        // left the field end here.
        let current: Vec<i64> = entrants
            .iter()
            .filter(|e| e.status == Status::Active)
            .map(|e| e.version)
            .collect();
        self.pools.retain(&current);
        // Stderr logs are kept for the versions entrants hold now (the page
        // shows no other) and those in this block: a replaced or removed
        // version's go, so an author's updates cannot fill the disk.
        let held: Vec<i64> = entrants
            .iter()
            .filter(|e| e.status != Status::Removed)
            .map(|e| e.version)
            .chain(block.versions.iter().copied())
            .collect();
        crate::folders::prune_logs(&self.dir.join("logs"), &held);
        // Whom a bot plays, it is not told (unless the organiser shows names).
        let anonymous = !self.store.contest()?.show_names;
        let mut field = Vec::new();
        for (b, v) in bots.iter().zip(&block.versions) {
            let setup = Setup {
                // What each process wrote to stderr, by version.
                logs: Some(self.dir.join("logs").join(format!("v{v}"))),
                ..setup.for_bot(b, &bots)
            };
            let make = || G::entrant(b, &setup).map_err(|e| e.0);
            // Built-ins cost nothing to make: only programs are kept.
            let mut entrant = if current.contains(v) && b.dir().is_some() {
                self.pools.entrant(*v, make).map_err(HillError::Invalid)?
            } else {
                make().map_err(HillError::Invalid)?
            };
            entrant.anonymous = anonymous;
            field.push(entrant);
        }
        Ok(Tournament {
            rules,
            entrants: field,
            schedule,
            scoring: self.scoring,
            seed: block.seed,
            threads: self.threads,
            // Built-ins play a game the same from its seed whenever asked:
            // their moves need not be kept.
            records: if results_only(&bots) {
                RecordLevel::Results
            } else {
                RecordLevel::Full
            },
            duplicate: self.settings.duplicate,
        })
    }

    /// Plays games `range` of `block` again with its bots, programs included
    /// (sandboxed as in play), and hands each record to `visit`, storing
    /// nothing: how an audit checks a worker's games on another machine.
    pub fn play_again(
        &mut self,
        block: &Block,
        range: std::ops::Range<u64>,
        visit: &mut dyn FnMut(&GameRecord<G::Choice>),
    ) -> Result<()> {
        let versions = self.store.versions()?;
        crate::folders::fetch_missing(self.store.as_ref(), &self.dir, block, &versions)?;
        let t = self.tournament(block, &versions)?;
        t.run_range(range, &mut Each(visit), &AtomicBool::new(false));
        Ok(())
    }

    /// [`Hill::play_block`], given the hill's versions (or, given a lease,
    /// its games): the games stored.
    fn play_versions(
        &mut self,
        block: &Block,
        versions: &[crate::Version],
        board: &mut Board,
        stop: &AtomicBool,
        on_games: &mut dyn FnMut(&Board, u64),
        lease: Option<&crate::store::Lease>,
    ) -> Result<u64> {
        let t = self.tournament(block, versions)?;
        board.learn(std::slice::from_ref(block));
        let range = match lease {
            Some(l) => l.first..l.first + l.count,
            None => block.done..block.games,
        };
        let mut keeper = Keeper::<G> {
            store: self.store.as_mut(),
            board,
            block,
            batch: Batch::default(),
            first: range.start,
            lease,
            json: Vec::new(),
            at: 0,
            seats: Vec::new(),
            error: None,
            stop,
            on_games,
            flushed: std::time::Instant::now(),
            metrics: self.metrics.as_deref(),
            decisions: 0,
            reasons: Vec::new(),
            paths: crate::folders::own_paths(&self.dir),
            game: std::marker::PhantomData,
        };
        let (chunk, least) = batch_sizes(self.pace, range.end - range.start, self.threads);
        let run = t.run_chunked(range.clone(), chunk, least, &mut keeper, stop);
        keeper.flush();
        if keeper.error.is_none() && keeper.first == block.games {
            if let Some(m) = &self.metrics {
                m.blocks.inc();
            }
        }
        self.replays.lost += run.replays.lost;
        self.replays.machine += run.replays.machine;
        if run.replays.last_machine.is_some() {
            self.replays.last_machine = run.replays.last_machine;
        }
        let played = run.played.end - run.played.start;
        if played > 0 {
            self.pace =
                Some(run.elapsed.as_secs_f64() * self.threads.max(1) as f64 / played as f64);
        }
        let stored = keeper.first - range.start;
        match keeper.error {
            Some(e) => Err(e),
            None => Ok(stored),
        }
    }
}

/// An observer that hands each record to a closure.
struct Each<'a, C>(&'a mut dyn FnMut(&GameRecord<C>));

impl<C> Observer<C> for Each<'_, C> {
    fn on_record(&mut self, rec: &GameRecord<C>) {
        (self.0)(rec)
    }
}

/// A batch of games is handed from a worker to the storing thread after about
/// this long: each hand-over wakes a thread (tens of microseconds in a virtual
/// machine), so a batch of built-ins holds hundreds of games, of programs a few...
const BATCH_TIME: f64 = 0.004;
/// ...and towards a block's end batches shrink, to no less than this long, so
/// that the workers end the block together.
const LEAST_BATCH_TIME: f64 = 0.0005;

/// The batch sizes of a block of `games` on `threads` workers, from `pace`
/// (a worker's seconds a game in the block before, if any): see
/// [`Tournament::run_chunked`].
fn batch_sizes(pace: Option<f64>, games: u64, threads: usize) -> (u64, u64) {
    // Every worker gets a few batches, for balance.
    let most = (games / (threads.max(1) as u64 * 4)).max(1);
    match pace {
        Some(p) if p > 0.0 => {
            let chunk = ((BATCH_TIME / p) as u64).clamp(1, most.min(512));
            (chunk, ((LEAST_BATCH_TIME / p) as u64).clamp(1, chunk))
        }
        // Not measured yet: a few dozen games, down to one.
        _ => ((games / (threads.max(1) as u64 * 32)).clamp(1, 64), 1),
    }
}

/// Stores a block's games batch by batch, as the tournament hands them over,
/// and counts each on the board as it ends.
struct Keeper<'a, G: Game> {
    store: &'a mut dyn Store,
    board: &'a mut Board,
    block: &'a Block,
    /// Games played and not stored yet, as the store will hold them...
    batch: Batch,
    /// ...from this game of the block on.
    first: u64,
    /// The lease being played, if any: its games are stored all at once, or
    /// none of them.
    lease: Option<&'a crate::store::Lease>,
    /// The hand-over's records as JSON lines, made on the workers, in game
    /// order, and where the next game's line starts.
    json: Vec<u8>,
    at: usize,
    /// The version at each seat of the game being kept.
    seats: Vec<i64>,
    error: Option<HillError>,
    stop: &'a AtomicBool,
    on_games: &'a mut dyn FnMut(&Board, u64),
    /// When the last batch was stored.
    flushed: std::time::Instant,
    /// Where the games stored are counted, if anywhere; and what the batch
    /// not stored yet adds: its decisions and its forfeits' reasons.
    metrics: Option<&'a crate::metrics::Metrics>,
    decisions: u64,
    reasons: Vec<String>,
    /// The machine's paths, taken out of the bots' stderr before it is stored.
    paths: Vec<String>,
    game: std::marker::PhantomData<G>,
}

/// Games are stored in one transaction per batch: at most this long after the
/// first of them ended (what a crash may lose, and how late the page may be)...
const FLUSH_AFTER: Duration = Duration::from_millis(200);
/// ...or once this many are waiting (fewer compress worse: 113 bytes a game at
/// 128, 97 at 512, 96 at 1024; more make longer pauses of the storing thread).
const FLUSH_GAMES: u64 = 512;

impl<G: Game> Keeper<'_, G> {
    fn flush(&mut self) {
        if self.batch.count == 0 || self.error.is_some() {
            return;
        }
        let stored = match self.lease {
            // A lease's games are stored whole: a part (its run stopped) is not.
            Some(l) if self.batch.count < l.count => return,
            Some(l) => self.store.add_leased(l, &self.batch),
            None => self.store.add_batch(self.block.id, self.first, &self.batch),
        };
        if let Err(e) = stored {
            self.error = Some(e.into());
            self.stop.store(true, Ordering::Relaxed);
            return;
        }
        self.flushed = std::time::Instant::now();
        if let Some(m) = self.metrics {
            m.games.inc_by(self.batch.count);
            m.decisions.inc_by(self.decisions);
            self.reasons.iter().for_each(|r| m.forfeit(r));
        }
        self.decisions = 0;
        self.reasons.clear();
        self.first += self.batch.count;
        (self.on_games)(self.board, self.batch.count);
        self.batch.clear();
    }
}

impl<G: Game> Observer<G::Choice> for Keeper<'_, G> {
    fn wants_json(&self) -> bool {
        true
    }

    // The board counts every game: the run's own standings would be work twice.
    fn wants_standings(&self) -> bool {
        false
    }

    fn on_json(&mut self, lines: &[u8]) {
        self.json.drain(..self.at);
        self.at = 0;
        self.json.extend_from_slice(lines);
    }

    fn on_record(&mut self, rec: &GameRecord<G::Choice>) {
        self.seats.clear();
        self.seats
            .extend(rec.seats.iter().map(|&e| self.block.versions[e]));
        let rest = &self.json[self.at..];
        match memchr::memchr(b'\n', rest) {
            Some(end) => {
                self.batch.push(&self.seats, &rest[..end]);
                self.at += end + 1;
            }
            None => {
                let mut line = Vec::new();
                rec.write_json_line(&mut line);
                self.batch.push(&self.seats, line.trim_ascii_end());
            }
        }
        if let Some(log) = rec.log.as_deref() {
            // The game's number in the block, as the store counts it.
            let index = self.first + self.batch.count - 1;
            // Most games' lines hold no path: checked without a copy.
            let dirty = |t: &str| {
                matches!(
                    crate::folders::scrub(t, &self.paths),
                    std::borrow::Cow::Owned(_)
                )
            };
            if log.lines.iter().any(|l| dirty(&l.text)) {
                let mut clean = log.clone();
                for l in &mut clean.lines {
                    l.text = crate::folders::scrub(&l.text, &self.paths).into_owned();
                }
                self.batch.push_log(index, &clean);
            } else {
                self.batch.push_log(index, log);
            }
        }
        self.batch.tally(
            &self.seats,
            &rec.scores,
            rec.forfeits.iter().map(|f| f.seat),
        );
        self.board.add_played(self.block.id, &self.seats, rec);
        if self.metrics.is_some() {
            self.decisions += rec.decisions;
            self.reasons
                .extend(rec.forfeits.iter().map(|f| f.fault.reason.clone()));
        }
    }

    fn on_progress(&mut self, _p: &Progress<'_>) {
        if self.lease.is_some() {
            return;
        }
        if self.batch.count >= FLUSH_GAMES || self.flushed.elapsed() >= FLUSH_AFTER {
            self.flush();
        }
    }
}

/// Whether a block of `bots` stores its games as results only: when every seat
/// is a built-in, a game is a pure function of its block's seed and its index,
/// so its moves are played again when asked for ([`Hill::full_record`]) rather
/// than kept (a game of built-ins takes a few microseconds; keeping its moves
/// cost the hill a third of its speed).
pub fn results_only(bots: &[BotEntry]) -> bool {
    bots.iter().all(|b| b.dir().is_none())
}

/// The threads that count stored games.
pub(crate) fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Whether version `v` of `versions` is a built-in.
pub(crate) fn is_builtin(versions: &[crate::Version], v: i64) -> bool {
    versions
        .iter()
        .any(|x| x.id == v && x.spec.get("builtin").is_some())
}

/// Block `id` of `blocks` (in order of their numbers, as the store lists them).
pub(crate) fn block_of(blocks: &[Block], id: i64) -> Option<&Block> {
    blocks
        .binary_search_by_key(&id, |b| b.id)
        .ok()
        .map(|i| &blocks[i])
}

/// A record's line as a block of built-ins stores it: without its choices.
pub(crate) fn results_line<C: Clone + serde::Serialize + koth_arena::code::ChoiceCode>(
    rec: &GameRecord<C>,
) -> Vec<u8> {
    let mut line = Vec::new();
    if rec.choices.is_some() {
        let mut bare = rec.clone();
        bare.choices = None;
        bare.write_json_line(&mut line);
    } else {
        rec.write_json_line(&mut line);
    }
    line.truncate(line.trim_ascii_end().len());
    line
}

/// The bot of a stored version `spec` of the hill in `hill`, named `name`: a
/// built-in, or a program run as [`crate::program::program_bot`] says, exactly
/// its stored words in the hill's copy of its folder.
pub fn spec_bot<G: BotKinds>(
    hill: &Path,
    name: &str,
    spec: &serde_json::Value,
    sandbox: Sandbox,
) -> Result<BotEntry> {
    if let Some(b) = spec.get("builtin").and_then(|b| b.as_str()) {
        return Ok(BotEntry::new(name, BotSource::Builtin(b.to_string())));
    }
    let bad = || {
        HillError::Invalid(format!(
            "the hill's version of {name:?} is unreadable: {spec}"
        ))
    };
    let command: Vec<String> = spec
        .get("command")
        .and_then(|c| serde_json::from_value(c.clone()).ok())
        .filter(|c: &Vec<String>| !c.is_empty())
        .ok_or_else(bad)?;
    let folder = spec
        .get("folder")
        .and_then(|f| f.as_str())
        .ok_or_else(bad)?;
    let protocol = spec
        .get("protocol")
        .and_then(|p| p.as_str())
        .map_or(Ok(Protocol::Json), |p| G::KIND.protocol(p))
        .map_err(HillError::Invalid)?;
    // Only a folder the hill made: a hash, inside its versions folder.
    if !is_version_folder(folder) {
        return Err(bad());
    }
    Ok(crate::program::program_bot(
        name,
        command,
        &hill.join(folder),
        protocol,
        sandbox,
    ))
}
