//! A hill: its folder, its store, and the runner that plays the blocks the
//! scheduler plans, storing each batch of games as it finishes.

use crate::board::Board;
use crate::plan::next_block;
use crate::store::{
    Author, Batch, Block, Change, Entrant, Event, Settings, Sqlite, Status, Store, StoredGame,
};
use koth_arena::{
    Game, GameRecord, Observer, Progress, RecordLevel, Schedule, Scoring, Tournament,
};
use koth_entrants::{BotEntry, BotKinds, BotSource, Protocol, Setup, Timeouts};
use koth_process::Sandbox;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// A hill's failure, in words for its organiser.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct HillError(pub String);

impl From<crate::store::StoreError> for HillError {
    fn from(e: crate::store::StoreError) -> Self {
        HillError(e.0)
    }
}

/// A result of the hill.
pub type Result<T, E = HillError> = std::result::Result<T, E>;

/// Readies a block's rules before it is played, given its entrants' names, its
/// schedule and its seed. A hill keeps every game in its database: a game that
/// files its games elsewhere (seed 000's edition) files nothing in a hill.
pub type Ready<G> = Box<
    dyn Fn(&mut <G as Game>::Rules, &[String], &Schedule, u64) -> Result<(), String> + Send + Sync,
>;

/// Where every submitted version's folder is kept, by content hash, in a hill.
pub const VERSIONS: &str = "versions";

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
}

/// The file the process playing a hill holds locked (and names itself in).
pub const PLAYER_LOCK: &str = "player.lock";

impl<G: BotKinds> Hill<G> {
    /// Makes a new hill in `dir` (created if need be).
    pub fn init(dir: &Path, settings: &Settings) -> Result<()> {
        std::fs::create_dir_all(dir.join(VERSIONS))
            .map_err(|e| HillError(format!("cannot create {}: {e}", dir.display())))?;
        Sqlite::create(dir, settings)?;
        Ok(())
    }

    /// Opens the hill in `dir`, played under `rules`, scored by `scoring`.
    pub fn open(dir: &Path, rules: G::Rules, scoring: Scoring) -> Result<Hill<G>> {
        let store = Sqlite::open(dir)?;
        let settings = store.settings()?;
        if settings.game != G::NAME {
            return Err(HillError(format!(
                "{} is a hill of {}, not of {}",
                dir.display(),
                settings.game,
                G::NAME
            )));
        }
        Ok(Hill {
            dir: dir.to_path_buf(),
            store: Box::new(store),
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
        let cannot = |e: std::io::Error| HillError(format!("cannot lock {}: {e}", path.display()));
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
                Err(HillError(format!(
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
            .map_err(|e| HillError(e.0))?;
        let kept = keep_folder(&self.dir, folder)?;
        Ok(serde_json::json!({ "command": words, "protocol": protocol.name(), "folder": kept }))
    }

    /// Enters `spec` (made by [`Hill::spec_of`] or [`Hill::upload_spec`]) as
    /// `name` or as its new version, for `by` (an author from the page) or the
    /// organiser at the command line. An author may not take a name that looks
    /// like another entrant's ([`look_alike`]) nor enter an exact copy of
    /// another author's current version.
    pub fn enter(
        &mut self,
        change: Change,
        name: &str,
        spec: serde_json::Value,
        by: Option<&Author>,
    ) -> Result<Event> {
        self.may_enter(name, &spec, by)?;
        Ok(self.store.change(change, name, Some(spec), by)?)
    }

    /// Whether `by` may enter `spec` as `name` (see [`Hill::enter`]): asked
    /// before an upload's check too, so that a refusal costs no check.
    pub fn may_enter(
        &self,
        name: &str,
        spec: &serde_json::Value,
        by: Option<&Author>,
    ) -> Result<()> {
        check_name(name)?;
        if let Some(author) = by.filter(|a| !a.admin) {
            let entrants = self.store.entrants()?;
            if let Some(other) = entrants
                .iter()
                .find(|e| e.name != name && look_alike(&e.name, name))
            {
                return Err(HillError(format!(
                    "{name:?} looks too much like {:?}, an entrant of the hill\n  fix: choose a name that is plainly your own",
                    other.name
                )));
            }
            if let Some(folder) = spec.get("folder").and_then(|f| f.as_str()) {
                let versions = self.store.versions()?;
                let copied = entrants.iter().find(|e| {
                    e.status != Status::Removed
                        && e.owner.as_deref() != Some(author.name.as_str())
                        && versions.iter().any(|v| {
                            v.id == e.version
                                && v.spec.get("folder").and_then(|f| f.as_str()) == Some(folder)
                        })
                });
                if let Some(e) = copied {
                    return Err(HillError(format!(
                        "this upload is an exact copy of {:?}'s current version, another author's\n  fix: enter a bot of your own",
                        e.name
                    )));
                }
            }
        }
        Ok(())
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
        Ok(self.store.change(change, name, None, None)?)
    }

    /// Makes a token called `name` (an organiser's with `admin`) and gives it,
    /// once: only its hash is kept.
    pub fn add_token(&mut self, name: &str, admin: bool) -> Result<String> {
        check_name(name)?;
        let mut bytes = [0u8; 24];
        getrandom::fill(&mut bytes)
            .map_err(|e| HillError(format!("no randomness for a token: {e}")))?;
        let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        self.store.add_token(name, &token_hash(&token), admin)?;
        Ok(token)
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
        let mut board = Board::new(&entrants, &versions, self.settings.duplicate);
        let from = match self.kept()? {
            Some(kept) if board.take(&kept) => kept.upto,
            _ => (0, 0),
        };
        board
            .add_stored::<G::Choice>(self.store.as_ref(), cores(), from, None)
            .map_err(HillError)?;
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
            .map_err(|e| HillError(format!("the standings cannot be kept: {e}")))?;
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
            let taken = match (ev.kind.as_str(), listed) {
                ("pause" | "resume", Some(i)) => {
                    board.entrants[i].status = if ev.kind == "pause" {
                        Status::Paused
                    } else {
                        Status::Active
                    };
                    true
                }
                ("add", None) => {
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
                if self.rest_when_settled && plan.kind != "candidate" && board.settled() {
                    return Ok(None);
                }
                plan.after_event = seen;
                self.store.plan(&plan)?
            }
        };
        self.play_versions(&block, &versions, board, stop, on_games)?;
        Ok(Some(block))
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
                HillError(format!("block {} names no known version {v}", block.id))
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
        let schedule: Schedule = serde_json::from_value(block.schedule.clone())
            .map_err(|e| HillError(format!("block {}: unreadable schedule: {e}", block.id)))?;
        let mut rules = self.rules.clone();
        let names: Vec<String> = bots.iter().map(|b| b.name.clone()).collect();
        if let Some(ready) = &self.ready {
            ready(&mut rules, &names, &schedule, block.seed).map_err(HillError)?;
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
            return Err(HillError(format!(
                "block {} has programs at its tables: its games are played once, and kept whole",
                block.id
            )));
        }
        let (schedule, rules) = self.block_rules(block, &bots)?;
        let setup = Setup::default();
        let mut entrants = Vec::new();
        for b in &bots {
            entrants.push(G::entrant(b, &setup.for_bot(b, &bots)).map_err(|e| HillError(e.0))?);
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
        struct Each<'a, C>(&'a mut dyn FnMut(&GameRecord<C>));
        impl<C> Observer<C> for Each<'_, C> {
            fn on_record(&mut self, rec: &GameRecord<C>) {
                (self.0)(rec)
            }
        }
        t.run_range(range, &mut Each(visit), &AtomicBool::new(false));
        Ok(())
    }

    /// A stored game with every choice: as stored, or, for a game of built-ins
    /// stored as results only, played again from its block's seed (an error if
    /// that game's results are not the stored ones).
    pub fn full_record(&self, g: &StoredGame) -> Result<GameRecord<G::Choice>> {
        let stored: GameRecord<G::Choice> = serde_json::from_str(&g.record).map_err(|e| {
            HillError(format!(
                "block {} game {}: unreadable record: {e}",
                g.block, g.index
            ))
        })?;
        if stored.choices.is_some() {
            return Ok(stored);
        }
        let block = self
            .store
            .block(g.block)?
            .ok_or_else(|| HillError(format!("game {} names no block {}", g.index, g.block)))?;
        let mut again = None;
        self.replay_block(&block, g.index..g.index + 1, RecordLevel::Full, &mut |r| {
            again = Some(r.clone())
        })?;
        let again =
            again.ok_or_else(|| HillError(format!("block {} has no game {}", g.block, g.index)))?;
        if results_line(&again) != g.record.trim_end().as_bytes() {
            return Err(HillError(format!(
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
        self.play_versions(block, &versions, board, stop, on_games)
    }

    /// [`Hill::play_block`], given the hill's versions.
    fn play_versions(
        &mut self,
        block: &Block,
        versions: &[crate::Version],
        board: &mut Board,
        stop: &AtomicBool,
        on_games: &mut dyn FnMut(&Board, u64),
    ) -> Result<()> {
        let entrants = self.store.entrants()?;
        let bots = self.block_bots(block, &entrants, versions)?;
        let (schedule, rules) = self.block_rules(block, &bots)?;
        let copies = koth_process::Workspace::new(None)
            .map_err(|e| HillError(format!("cannot make the bots' working folders: {e}")))?;
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
        let mut field = Vec::new();
        for (b, v) in bots.iter().zip(&block.versions) {
            let setup = Setup {
                // What each process wrote to stderr, by version.
                logs: Some(self.dir.join("logs").join(format!("v{v}"))),
                ..setup.for_bot(b, &bots)
            };
            let make = || G::entrant(b, &setup).map_err(|e| e.0);
            // Built-ins cost nothing to make: only programs are kept.
            field.push(if current.contains(v) && b.dir().is_some() {
                self.pools.entrant(*v, make).map_err(HillError)?
            } else {
                make().map_err(HillError)?
            });
        }
        let t = Tournament {
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
        };
        board.learn(std::slice::from_ref(block));
        let mut keeper = Keeper::<G> {
            store: self.store.as_mut(),
            board,
            block,
            batch: Batch::default(),
            first: block.done,
            json: Vec::new(),
            at: 0,
            seats: Vec::new(),
            error: None,
            stop,
            on_games,
            flushed: std::time::Instant::now(),
            game: std::marker::PhantomData,
        };
        let (chunk, least) = batch_sizes(self.pace, block.games, self.threads);
        let run = t.run_chunked(block.done..block.games, chunk, least, &mut keeper, stop);
        keeper.flush();
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
        match keeper.error {
            Some(e) => Err(e),
            None => Ok(()),
        }
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
        if let Err(e) = self.store.add_batch(self.block.id, self.first, &self.batch) {
            self.error = Some(e.into());
            self.stop.store(true, Ordering::Relaxed);
            return;
        }
        self.flushed = std::time::Instant::now();
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
        self.board.add_played(self.block.id, &self.seats, rec);
    }

    fn on_progress(&mut self, _p: &Progress<'_>) {
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
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Whether version `v` of `versions` is a built-in.
fn is_builtin(versions: &[crate::Version], v: i64) -> bool {
    versions
        .iter()
        .any(|x| x.id == v && x.spec.get("builtin").is_some())
}

/// Block `id` of `blocks` (in order of their numbers, as the store lists them).
fn block_of(blocks: &[Block], id: i64) -> Option<&Block> {
    blocks
        .binary_search_by_key(&id, |b| b.id)
        .ok()
        .map(|i| &blocks[i])
}

/// A record's line as a block of built-ins stores it: without its choices.
fn results_line<C: Clone + serde::Serialize + koth_arena::code::ChoiceCode>(
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
        HillError(format!(
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
        .map_err(HillError)?;
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

/// Whether `folder` is one the hill makes: `versions/` and a hash.
fn is_version_folder(folder: &str) -> bool {
    folder
        .strip_prefix("versions/")
        .is_some_and(|h| !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Whether two entrants' names would be taken for one another: the same once
/// case is folded, `-`, `_` and `.` are dropped and the letters and digits that
/// look alike are taken as one (`0` and `o`; `1`, `i` and `l`; `5` and `s`;
/// `rn` and `m`; `vv` and `w`).
///
/// ```
/// use koth_hill::hill::look_alike;
/// for name in ["Victim", "VICTIM", "victim.", "vict1m", "vic-tim", "v1ct1m"] {
///     assert!(look_alike("victim", name), "{name}");
/// }
/// assert!(!look_alike("victim", "victor"));
/// ```
pub fn look_alike(a: &str, b: &str) -> bool {
    fn skeleton(s: &str) -> String {
        let folded: String = s
            .chars()
            .filter(|c| !matches!(c, '-' | '_' | '.'))
            .map(|c| match c.to_ascii_lowercase() {
                '0' => 'o',
                '1' | 'i' | '|' => 'l',
                '5' => 's',
                c => c,
            })
            .collect();
        folded.replace("rn", "m").replace("vv", "w")
    }
    skeleton(a) == skeleton(b)
}

/// Bytes a hill keeps free on its disk: below them it plays no games (a batch
/// that cannot be written would end the block with an error).
pub const DISK_RESERVE: u64 = 512 << 20;

/// The bytes free on the disk of `dir` when they are fewer than
/// [`DISK_RESERVE`] (or the `KOTH_HILL_DISK_RESERVE_MB` this process was given,
/// for tests), else `None`; `None` too when the disk cannot be asked.
pub fn disk_low(dir: &Path) -> Option<u64> {
    let reserve = std::env::var("KOTH_HILL_DISK_RESERVE_MB")
        .ok()
        .and_then(|m| m.parse::<u64>().ok())
        .map_or(DISK_RESERVE, |m| m << 20);
    let st = rustix::fs::statvfs(dir).ok()?;
    let free = st.f_bavail.saturating_mul(st.f_frsize);
    (free < reserve).then_some(free)
}

/// How a token is kept: its BLAKE3 hash (tokens are 192 random bits, so a
/// fast hash is enough).
pub fn token_hash(token: &str) -> String {
    blake3::hash(token.trim().as_bytes()).to_hex().to_string()
}

/// An entrant's name: what a page, a file name and a terminal can all show.
pub fn check_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 40
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && !name.starts_with('.');
    if ok {
        Ok(())
    } else {
        Err(HillError(format!(
            "{name:?} cannot name an entrant\n  fix: use up to 40 letters, digits, '-', '_' or '.', not starting with '.'"
        )))
    }
}

/// Copies a program's folder into the hill under its content hash (once: a
/// version with the same files shares it) and gives its path in the hill.
/// Links are kept as links, never followed.
pub fn keep_folder(hill: &Path, dir: &Path) -> Result<String> {
    let hash = hash_folder(dir).map_err(|e| {
        HillError(format!(
            "cannot read the bot's folder {}: {e}",
            dir.display()
        ))
    })?;
    let rel = format!("{VERSIONS}/{hash}");
    let target = hill.join(&rel);
    if !target.is_dir() {
        let tmp = hill
            .join(VERSIONS)
            .join(format!(".new-{hash}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        koth_process::copy_tree(dir, &tmp)
            .and_then(|()| std::fs::rename(&tmp, &target))
            .map_err(|e| {
                let _ = std::fs::remove_dir_all(&tmp);
                HillError(format!(
                    "cannot copy the bot's folder {}: {e}",
                    dir.display()
                ))
            })?;
    }
    Ok(rel)
}

/// A hash of a folder's names, kinds, executable bits, contents and link targets,
/// walked in name order without following a link.
pub fn hash_folder(dir: &Path) -> std::io::Result<String> {
    use std::os::unix::fs::PermissionsExt;
    let mut h = blake3::Hasher::new();
    let mut stack = vec![(dir.to_path_buf(), String::new())];
    let mut files = 0u64;
    while let Some((path, rel)) = stack.pop() {
        let mut entries: Vec<_> = std::fs::read_dir(&path)?.collect::<std::io::Result<_>>()?;
        entries.sort_by_key(|e| e.file_name());
        // Folders are walked after their files, in reverse on the stack: the order
        // is fixed, which is all a hash needs.
        for e in entries {
            files += 1;
            if files > koth_process::MAX_COPY_FILES {
                return Err(std::io::Error::other(format!(
                    "more than {} files",
                    koth_process::MAX_COPY_FILES
                )));
            }
            let name = e.file_name().to_string_lossy().into_owned();
            let r = format!("{rel}/{name}");
            let meta = std::fs::symlink_metadata(e.path())?;
            if meta.file_type().is_symlink() {
                h.update(b"l\0");
                h.update(r.as_bytes());
                h.update(b"\0");
                h.update(std::fs::read_link(e.path())?.as_os_str().as_encoded_bytes());
            } else if meta.is_dir() {
                h.update(b"d\0");
                h.update(r.as_bytes());
                stack.push((e.path(), r));
            } else {
                h.update(if meta.permissions().mode() & 0o111 != 0 {
                    b"x\0"
                } else {
                    b"f\0"
                });
                h.update(r.as_bytes());
                h.update(b"\0");
                h.update(&meta.len().to_le_bytes());
                let mut f = std::fs::File::open(e.path())?;
                std::io::copy(&mut f, &mut h)?;
            }
            h.update(b"\n");
        }
    }
    Ok(h.finalize().to_hex()[..32].to_string())
}

/// What [`Hill::audit`] found.
#[derive(Clone, Debug, Default)]
pub struct Audit {
    /// Blocks planned again.
    pub blocks: u64,
    /// Games replayed.
    pub games: u64,
    /// Every difference, in words.
    pub problems: Vec<String>,
}

/// The field as it stood after event `upto`, from the event log.
pub fn entrants_at(events: &[Event], versions: &[crate::Version], upto: i64) -> Vec<Entrant> {
    let mut out: Vec<Entrant> = Vec::new();
    for ev in events.iter().filter(|e| e.id <= upto) {
        let at = out.iter().position(|e| e.name == ev.entrant);
        match (ev.kind.as_str(), at) {
            ("add" | "update", at) => {
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
                    "remove" => Status::Removed,
                    "pause" => Status::Paused,
                    _ => Status::Active,
                }
            }
            _ => {}
        }
    }
    out.sort_by_key(|e| e.id);
    out
}

impl<G: BotKinds> Hill<G> {
    /// Plans every block again from the event log and the games before it, and
    /// replays every game from its record: a hill whose database was not
    /// tampered with has no problem.
    pub fn audit(&self) -> Result<Audit> {
        let events = self.store.events(0)?;
        let versions = self.store.versions()?;
        let blocks = self.store.blocks()?;
        let mut audit = Audit::default();
        let mut plans = Plans {
            hill: self,
            events: &events,
            versions: &versions,
            blocks: &blocks,
            next: 0,
            board: None,
            planned: crate::plan::Planned::default(),
        };
        // The games stream by, batch by batch: a hill's games need not fit in
        // memory. Those of built-ins kept as results wait for the end of their
        // block, to be played again together.
        let mut again: Vec<StoredGame> = Vec::new();
        let mut rules: Option<(i64, G::Rules)> = None;
        let mut failed = None;
        self.store.each_batch(&mut |block, first, packed| {
            let mut step = || -> Result<()> {
                let games = crate::store::unpack(block, first, &packed)?;
                plans.upto(block, &mut audit)?;
                for g in games {
                    plans.add(&g)?;
                    audit.games += 1;
                    self.audit_game(&blocks, g, &mut again, &mut rules, &mut audit)?;
                }
                Ok(())
            };
            match step() {
                Ok(()) => true,
                Err(e) => {
                    failed = Some(e);
                    false
                }
            }
        })?;
        if let Some(e) = failed {
            return Err(e);
        }
        plans.upto(i64::MAX, &mut audit)?;
        if !again.is_empty() {
            self.audit_results(&blocks, &again, &mut audit);
        }
        self.audit_kept(&versions, &mut audit)?;
        Ok(audit)
    }

    /// Counts the standings kept ([`Hill::keep_standings`]) again from the
    /// stored games before their point: a hill opened takes them up.
    fn audit_kept(&self, versions: &[crate::Version], audit: &mut Audit) -> Result<()> {
        let Some(text) = self.store.kept()? else {
            return Ok(());
        };
        let Ok(kept) = serde_json::from_str::<crate::board::Kept>(&text) else {
            audit
                .problems
                .push("the standings kept are unreadable: they are counted again".into());
            return Ok(());
        };
        if kept.standings.model.games() != kept.standings.games {
            // Kept by a koth before the model: never taken up, counted again.
            return Ok(());
        }
        let field: Vec<Entrant> = kept
            .field
            .iter()
            .enumerate()
            .map(|(i, (name, version))| Entrant {
                id: i as i64 + 1,
                name: name.clone(),
                status: Status::Active,
                version: *version,
                owner: None,
            })
            .collect();
        let mut again = Board::new(&field, versions, self.settings.duplicate);
        again
            .add_stored::<G::Choice>(self.store.as_ref(), cores(), (0, 0), Some(kept.upto))
            .map_err(HillError)?;
        if again.kept(kept.upto) != kept {
            audit.problems.push(format!(
                "the standings kept at block {} game {} are not what the games stored before that give ({} games counted, {} kept)",
                kept.upto.0, kept.upto.1, again.games, kept.games
            ));
        }
        Ok(())
    }

    /// Replays game `g` from its choices under its block's rules (readied once
    /// a block, kept in `rules`), or, kept as results, keeps it in `again`
    /// until its block's games are all there.
    fn audit_game(
        &self,
        blocks: &[Block],
        g: StoredGame,
        again: &mut Vec<StoredGame>,
        rules: &mut Option<(i64, G::Rules)>,
        audit: &mut Audit,
    ) -> Result<()> {
        let rec: GameRecord<G::Choice> = match serde_json::from_str(&g.record) {
            Ok(r) => r,
            Err(e) => {
                audit.problems.push(format!(
                    "block {} game {}: unreadable record: {e}",
                    g.block, g.index
                ));
                return Ok(());
            }
        };
        if rec.choices.is_none() {
            if again.last().is_some_and(|p| p.block != g.block) {
                self.audit_results(blocks, again, audit);
                again.clear();
            }
            again.push(g);
            return Ok(());
        }
        if rules.as_ref().is_none_or(|(id, _)| *id != g.block) {
            let mut r = self.rules.clone();
            if let (Some(ready), Some(b)) = (&self.ready, block_of(blocks, g.block)) {
                let schedule: Schedule = serde_json::from_value(b.schedule.clone())
                    .map_err(|e| HillError(e.to_string()))?;
                let names: Vec<String> = b.versions.iter().map(|v| format!("v{v}")).collect();
                ready(&mut r, &names, &schedule, b.seed).map_err(HillError)?;
            }
            *rules = Some((g.block, r));
        }
        let (_, rules) = rules.as_ref().expect("readied above");
        if let Err(e) = koth_arena::records::replay::<G>(rules, &rec, |_| {}) {
            audit
                .problems
                .push(format!("block {} game {}: {e}", g.block, g.index));
        }
        Ok(())
    }

    /// Plays `games` (of one block, stored as results only) again from their
    /// block's seed and notes each whose stored results differ.
    fn audit_results(&self, blocks: &[Block], games: &[StoredGame], audit: &mut Audit) {
        let (first, last) = (&games[0], &games[games.len() - 1]);
        let Some(block) = block_of(blocks, first.block) else {
            audit.problems.push(format!(
                "block {} game {}: no such block",
                first.block, first.index
            ));
            return;
        };
        let mut k = 0;
        let mut differ = Vec::new();
        let replayed = self.replay_block(
            block,
            first.index..last.index + 1,
            RecordLevel::Results,
            &mut |r| {
                while k < games.len() && games[k].index < r.index {
                    k += 1;
                }
                if games.get(k).is_some_and(|g| g.index == r.index) {
                    if results_line(r) != games[k].record.trim_end().as_bytes() {
                        differ.push(r.index);
                    }
                    k += 1;
                }
            },
        );
        match replayed {
            Ok(()) => audit.problems.extend(differ.into_iter().map(|i| {
                format!(
                    "block {} game {i}: its stored results are not what its seed plays",
                    block.id
                )
            })),
            Err(e) => audit.problems.push(format!(
                "block {}: cannot play its games again: {e}",
                block.id
            )),
        }
    }
}

/// The audit's planning half: every block planned again from the board the
/// scheduler saw, the games streaming by in order.
struct Plans<'a, G: BotKinds> {
    hill: &'a Hill<G>,
    events: &'a [Event],
    versions: &'a [crate::Version],
    blocks: &'a [Block],
    /// The next block to plan again.
    next: usize,
    /// The board, and the event it reflects.
    board: Option<(i64, Board)>,
    planned: crate::plan::Planned,
}

impl<G: BotKinds> Plans<'_, G> {
    /// Plans again every block up to block `upto` (the games before it counted).
    fn upto(&mut self, upto: i64, audit: &mut Audit) -> Result<()> {
        while let Some(b) = self.blocks.get(self.next).filter(|b| b.id <= upto) {
            self.next += 1;
            // The board the scheduler saw: counted again when the field changed,
            // otherwise grown by the games as they pass.
            if !matches!(&self.board, Some((seen, _)) if *seen == b.after_event) {
                self.board = Some((b.after_event, self.board_before(b)?));
            }
            let (_, bd) = self.board.as_ref().expect("made above");
            let builtin = |v| is_builtin(self.versions, v);
            let again = next_block(&self.hill.settings, bd, &self.planned, &builtin);
            self.planned.add(b);
            audit.blocks += 1;
            let same = again.as_ref().is_some_and(|p| {
                p.kind == b.kind
                    && p.versions == b.versions
                    && p.schedule == b.schedule
                    && p.seed == b.seed
                    && p.games == b.games
            });
            if !same {
                audit.problems.push(format!(
                    "block {}: stored as {} games of {} of versions {:?} (seed {}), but the log plans {}",
                    b.id,
                    b.games,
                    b.kind,
                    b.versions,
                    b.seed,
                    again.map_or("nothing".to_string(), |p| format!(
                        "{} games of {} of versions {:?} (seed {})",
                        p.games, p.kind, p.versions, p.seed
                    ))
                ));
            }
        }
        Ok(())
    }

    /// Counts a game that has passed on the board.
    fn add(&mut self, g: &StoredGame) -> Result<()> {
        if let Some((_, bd)) = &mut self.board {
            bd.add::<G::Choice>(g).map_err(HillError)?;
        }
        Ok(())
    }

    /// The board of the field after `b`'s event, from the games before `b`,
    /// read again from the store.
    fn board_before(&self, b: &Block) -> Result<Board> {
        let field = entrants_at(self.events, self.versions, b.after_event);
        let mut bd = Board::new(&field, self.versions, self.hill.settings.duplicate);
        bd.learn(self.blocks);
        let mut failed = None;
        self.hill.store.each_batch(&mut |block, first, packed| {
            if block >= b.id {
                return false;
            }
            let counted = crate::store::unpack(block, first, &packed)
                .map_err(HillError::from)
                .and_then(|games| {
                    games
                        .iter()
                        .try_for_each(|g| bd.add::<G::Choice>(g).map(|_| ()).map_err(HillError))
                });
            match counted {
                Ok(()) => true,
                Err(e) => {
                    failed = Some(e);
                    false
                }
            }
        })?;
        failed.map_or(Ok(bd), Err)
    }
}
