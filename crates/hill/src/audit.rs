//! The audit: a hill checked from its own records. Every block is planned
//! again from the event log and the games before it, every game replayed from
//! its record (a game of built-ins, kept as results, played again from its
//! block's seed), and the standings kept counted again.

use crate::board::Board;
use crate::entity::entrants_at;
use crate::hill::{block_of, cores, is_builtin, results_line, Hill, HillError, Result};
use crate::plan::next_block;
use crate::store::{Block, Entrant, Event, Status, StoredGame};
use koth_arena::{GameRecord, RecordLevel, Schedule};
use koth_entrants::BotKinds;

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
        // Each version's results counted again from its games (only the tally
        // of this batch is used, never its text).
        let mut counted = crate::store::Batch::default();
        let mut failed = None;
        self.store.each_batch(&mut |block, first, packed| {
            let mut step = || -> Result<()> {
                let games = crate::store::unpack(block, first, &packed)?;
                plans.upto(block, &mut audit)?;
                for g in games {
                    plans.add(&g)?;
                    audit.games += 1;
                    let (scores, forfeited) = crate::store::record_results(&g.record);
                    counted.tally(&g.seats, &scores, forfeited.into_iter());
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
        self.audit_version_results(&counted.results, &mut audit)?;
        Ok(audit)
    }

    /// Compares each version's results as the store keeps them (added to as
    /// batches are stored; the entrant page reads them) with its games'.
    fn audit_version_results(
        &self,
        counted: &std::collections::HashMap<i64, crate::entity::Results>,
        audit: &mut Audit,
    ) -> Result<()> {
        let kept = self.store.results()?;
        let mut ids: Vec<i64> = kept.keys().chain(counted.keys()).copied().collect();
        ids.sort_unstable();
        ids.dedup();
        for v in ids {
            let (k, c) = (
                kept.get(&v).copied().unwrap_or_default(),
                counted.get(&v).copied().unwrap_or_default(),
            );
            // Sums taken batch by batch or game by game differ in their last bits.
            let close = (k.score - c.score).abs() <= 1e-6 * (c.games.max(1) as f64);
            if k.games != c.games || k.forfeits != c.forfeits || !close {
                audit.problems.push(format!(
                    "version {v}: its results are kept as {} games, {:.3} points, {} forfeits, but its games give {}, {:.3}, {}",
                    k.games, k.score, k.forfeits, c.games, c.score, c.forfeits
                ));
            }
        }
        Ok(())
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
        let mut again = Board::for_hill(&field, versions, &self.settings);
        again
            .add_stored::<G::Choice>(self.store.as_ref(), cores(), (0, 0), Some(kept.upto))
            .map_err(HillError::Invalid)?;
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
            *rules = Some((g.block, self.replay_rules(blocks, g.block)?));
        }
        let (_, rules) = rules.as_ref().expect("readied above");
        if let Err(e) = koth_arena::records::replay::<G>(rules, &rec, |_| {}) {
            audit
                .problems
                .push(format!("block {} game {}: {e}", g.block, g.index));
        }
        Ok(())
    }

    /// The rules a game of block `block` replays under (readied for its
    /// block, as when it was played).
    pub(crate) fn replay_rules(&self, blocks: &[Block], block: i64) -> Result<G::Rules> {
        let mut r = self.rules.clone();
        if let (Some(ready), Some(b)) = (&self.ready, block_of(blocks, block)) {
            let schedule: Schedule = serde_json::from_value(b.schedule.clone()).map_err(|e| {
                HillError::Invalid(format!("block {}: unreadable schedule: {e}", b.id))
            })?;
            let names: Vec<String> = b.versions.iter().map(|v| format!("v{v}")).collect();
            ready(&mut r, &names, &schedule, b.seed).map_err(HillError::Invalid)?;
        }
        Ok(r)
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
        // Block k was planned from the games of the blocks up to k − W: those
        // before block `upto` plan up to block upto − 1 + W.
        let window = self.hill.settings.window() as i64;
        let last = upto.saturating_add(window - 1);
        while let Some(b) = self.blocks.get(self.next).filter(|b| b.id <= last) {
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
                        p.games, p.kind.name(), p.versions, p.seed
                    ))
                ));
            }
        }
        Ok(())
    }

    /// Counts a game that has passed on the board.
    fn add(&mut self, g: &StoredGame) -> Result<()> {
        if let Some((_, bd)) = &mut self.board {
            bd.add::<G::Choice>(g).map_err(HillError::Invalid)?;
        }
        Ok(())
    }

    /// The board of the field after `b`'s event, from the games of the
    /// blocks up to `b` − W, read again from the store.
    fn board_before(&self, b: &Block) -> Result<Board> {
        let last = b.id - self.hill.settings.window() as i64;
        let field = entrants_at(self.events, self.versions, b.after_event);
        let mut bd = Board::for_hill(&field, self.versions, &self.hill.settings);
        bd.learn(self.blocks);
        let mut failed = None;
        self.hill.store.each_batch(&mut |block, first, packed| {
            if block > last {
                return false;
            }
            let counted = crate::store::unpack(block, first, &packed)
                .map_err(HillError::from)
                .and_then(|games| {
                    games.iter().try_for_each(|g| {
                        bd.add::<G::Choice>(g)
                            .map(|_| ())
                            .map_err(HillError::Invalid)
                    })
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
