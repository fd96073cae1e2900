//! One hill, many machines: on a hill whose store is shared (PostgreSQL), the
//! hill's own process plans blocks ([`Planner`], [`Hill::plan_ahead`]) and any
//! number of workers, there or on other machines, claim their leases, play
//! them sandboxed and store them ([`Hill::play_lease`]).
//!
//! The schedule stays a function of the event log and the games: block k is
//! planned from the standings after block k − W (W, the planning window, is a
//! setting of the hill), counted from the stored games in their order, never
//! in the order workers happened to finish. So W blocks can be under way at
//! once, and `audit` plans every block again as it does for one process.
//!
//! ```no_run
//! use koth_hill::Hill;
//! use std::sync::atomic::AtomicBool;
//! # fn main() -> koth_hill::hill::Result<()> {
//! let dir = std::path::Path::new("/srv/hill"); // made by `koth hill init --db postgres://...`
//! let mut hill = Hill::<koth_coup::State>::open(dir, koth_coup::Rules::standard(),
//!     koth_arena::Scoring::ZeroSum)?;
//! let mut planner = hill.planner()?;
//! let stop = AtomicBool::new(false);
//! loop {
//!     hill.plan_ahead(&mut planner, true)?; // every block the window allows
//!     match hill.play_lease(None, &stop)? {
//!         Some((lease, games)) => println!("block {}: {games} games stored", lease.block),
//!         None => break, // no lease free: the workers hold the rest, or all is played
//!     }
//! }
//! println!("{} games counted", planner.board.games);
//! # Ok(()) }
//! ```

use crate::board::Board;
use crate::entity::entrants_at;
use crate::hill::{is_builtin, Hill, HillError, Result};
use crate::plan::next_block;
use crate::store::{BlockKind, Lease};
use koth_entrants::BotKinds;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The planner's standings: the field after event `seen`, counted from the
/// stored games of every block up to `upto`, all of them complete.
pub struct Planner {
    /// The standings the next block is planned from (and the page shows).
    pub board: Board,
    /// The last block counted on `board` (0: none).
    pub upto: i64,
    /// The last event `board` reflects.
    pub seen: i64,
}

impl<G: BotKinds> Hill<G> {
    /// The standings of the field after event `seen`, from the stored games
    /// of blocks up to `upto` (standings kept at or before that point are
    /// taken up).
    pub fn board_through(&self, seen: i64, upto: i64) -> Result<Board> {
        let events = self.store.events(0)?;
        let versions = self.store.versions()?;
        let entrants = entrants_at(&events, &versions, seen);
        let mut board = Board::for_hill(&entrants, &versions, &self.settings);
        let end = (upto + 1, 0);
        let from = match self
            .store
            .kept()?
            .and_then(|k| serde_json::from_str::<crate::board::Kept>(&k).ok())
        {
            Some(kept) if kept.upto <= end && board.take(&kept) => kept.upto,
            _ => {
                board = Board::for_hill(&entrants, &versions, &self.settings);
                (0, 0)
            }
        };
        board
            .add_stored::<G::Choice>(self.store.as_ref(), crate::hill::cores(), from, Some(end))
            .map_err(HillError::Invalid)?;
        Ok(board)
    }

    /// The planner of this hill as it stands: its standings are those the
    /// next block is planned from, or as near to them as the blocks stored
    /// so far allow.
    pub fn planner(&self) -> Result<Planner> {
        let seen = self.store.events(0)?.last().map_or(0, |e| e.id);
        let planned = self.store.planned()?.blocks as i64;
        let need = planned + 1 - self.settings.window() as i64;
        let complete = self.store.open_block()?.map_or(planned, |b| b.id - 1);
        let upto = need.min(complete).max(0);
        Ok(Planner {
            board: self.board_through(seen, upto)?,
            upto,
            seen,
        })
    }

    /// Plans every block the planning window allows now (none when `plan` is
    /// false: then the standings only take up the blocks complete, as far as
    /// they go), and gives them. Block k is planned once the
    /// standings hold every game of block k − W, and from those standings.
    pub fn plan_ahead(&mut self, p: &mut Planner, plan: bool) -> Result<Vec<crate::store::Block>> {
        let window = self.settings.window() as i64;
        let mut planned = self.store.planned()?;
        let news = self.store.events(p.seen)?;
        if let Some(last) = news.last() {
            p.seen = last.id;
            p.board = self.board_through(p.seen, p.upto)?;
        }
        let need = |planned: u64| (planned as i64 + 1 - window).max(0);
        if plan && p.upto > need(planned.blocks) {
            // Counted past the window (after a pause in planning): back to it.
            p.upto = need(planned.blocks);
            p.board = self.board_through(p.seen, p.upto)?;
        }
        let versions = self.store.versions()?;
        let mut made = Vec::new();
        loop {
            if plan && p.upto == need(planned.blocks) {
                let builtin = |v| is_builtin(&versions, v);
                let Some(mut block) = next_block(&self.settings, &p.board, &planned, &builtin)
                else {
                    break;
                };
                if self.rest_when_settled && block.kind != BlockKind::Candidate && p.board.settled()
                {
                    break;
                }
                block.after_event = p.seen;
                let block = self.store.plan(&block)?;
                planned.add(&block);
                made.push(block);
                continue;
            }
            let next = p.upto + 1;
            match self.store.block(next)? {
                Some(b) if b.done == b.games => {
                    p.board
                        .add_stored::<G::Choice>(
                            self.store.as_ref(),
                            crate::hill::cores(),
                            (next, 0),
                            Some((next + 1, 0)),
                        )
                        .map_err(HillError::Invalid)?;
                    p.upto = next;
                }
                _ => break,
            }
        }
        Ok(made)
    }

    /// Keeps the planner's standings, so that opening the hill again counts
    /// only the games of the blocks after them.
    pub fn keep_planner(&mut self, p: &Planner) -> Result<()> {
        let kept = p.board.kept((p.upto + 1, 0));
        let json = serde_json::to_string(&kept)
            .map_err(|e| HillError::Io(format!("the standings cannot be kept: {e}")))?;
        self.store.keep(&json)?;
        Ok(())
    }

    /// Claims a lease as `worker` (`None`: the hill's own process), plays its
    /// games on every thread and stores them at once. `None` when no lease is
    /// free; the lease and the games stored otherwise (none if the lease was
    /// lost meanwhile or `stop` was set: it is then given back or expires).
    pub fn play_lease(
        &mut self,
        worker: Option<&str>,
        stop: &AtomicBool,
    ) -> Result<Option<(Lease, u64)>> {
        let time = self.settings.lease_time();
        let Some(lease) = self.store.claim(worker, time)? else {
            return Ok(None);
        };
        let block = self
            .store
            .block(lease.block)?
            .ok_or_else(|| HillError::Invalid(format!("a lease names no block {}", lease.block)))?;
        let versions = self.store.versions()?;
        if let Err(e) =
            crate::folders::fetch_missing(self.store.as_ref(), &self.dir, &block, &versions)
        {
            let _ = self.store.release(&lease);
            return Err(e);
        }
        // The heartbeat's own connection, kept from lease to lease.
        let mut beat = match self.beat.take() {
            Some(b) => b,
            None => self.store.connect_again()?,
        };
        let halt = AtomicBool::new(false);
        let lost = AtomicBool::new(false);
        let (done, wait) = std::sync::mpsc::channel::<()>();
        let played = std::thread::scope(|s| {
            let (halt, lost, lease) = (&halt, &lost, &lease);
            let heart = s.spawn(move || {
                // The lease is renewed at a third of its time, and a lease
                // lost (expired and taken, a revoked worker) stops the games
                // at once. Wakes when the games end (the sender dropped).
                let mut renewed = std::time::Instant::now();
                while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
                    wait.recv_timeout(Duration::from_millis(100))
                {
                    if stop.load(Ordering::Relaxed) {
                        halt.store(true, Ordering::Relaxed);
                    }
                    if renewed.elapsed() >= time / 3 {
                        renewed = std::time::Instant::now();
                        if !beat.renew(lease, time).unwrap_or(true) {
                            lost.store(true, Ordering::Relaxed);
                            halt.store(true, Ordering::Relaxed);
                        }
                    }
                }
                beat
            });
            let r = self.play_part(&block, &versions, lease, halt);
            drop(done);
            (r, heart.join())
        });
        let played = match played {
            (r, Ok(beat)) => {
                self.beat = Some(beat);
                r
            }
            (r, Err(_)) => r,
        };
        match played {
            Ok(true) => {}
            Ok(false) => {
                if !lost.load(Ordering::Relaxed) {
                    let _ = self.store.release(&lease);
                }
                return Ok(Some((lease, 0)));
            }
            // Lost while its games were stored: another worker has them.
            Err(HillError::Store(crate::StoreError::Conflict(_))) => {
                return Ok(Some((lease, 0)));
            }
            Err(e) => {
                let _ = self.store.release(&lease);
                return Err(e);
            }
        }
        let count = lease.count;
        Ok(Some((lease, count)))
    }

    /// Plays `n` of worker `worker`'s stored games again on this machine,
    /// spread evenly over all it stored from a start drawn at random (so no
    /// worker knows which of its games will be checked), and compares each
    /// record with the stored one: a worker that stored games other than the
    /// ones its leases deal has problems here.
    pub fn audit_sample(&mut self, worker: &str, n: u64) -> Result<crate::Audit> {
        let leases = self.store.worker_leases(worker)?;
        let total: u64 = leases.iter().map(|l| l.2).sum();
        let mut audit = crate::Audit::default();
        if total == 0 || n == 0 {
            return Ok(audit);
        }
        let step = (total / n).max(1);
        let mut bytes = [0u8; 8];
        getrandom::fill(&mut bytes).map_err(|e| HillError::Io(format!("no randomness: {e}")))?;
        let start = u64::from_le_bytes(bytes) % step;
        let picks: Vec<(i64, u64)> = leases
            .iter()
            .flat_map(|&(block, first, count)| (first..first + count).map(move |i| (block, i)))
            .skip(start as usize)
            .step_by(step as usize)
            .take(n as usize)
            .collect();
        for (block, index) in picks {
            let (Some(g), Some(b)) = (self.store.game(block, index)?, self.store.block(block)?)
            else {
                audit
                    .problems
                    .push(format!("block {block} game {index}: not stored"));
                continue;
            };
            let mut again = None;
            self.play_again(&b, index..index + 1, &mut |r| {
                let mut line = Vec::new();
                r.write_json_line(&mut line);
                again = Some(String::from_utf8_lossy(line.trim_ascii_end()).into_owned());
            })?;
            audit.games += 1;
            match again {
                Some(line) if line == g.record.trim_end() => {}
                Some(line) => audit.problems.push(format!(
                    "block {block} game {index}, stored by {worker}: played again here, it differs\n  stored: {}\n  here:   {line}",
                    g.record.trim_end()
                )),
                None => audit.problems.push(format!(
                    "block {block} game {index}, stored by {worker}: could not be played again"
                )),
            }
        }
        Ok(audit)
    }
}
