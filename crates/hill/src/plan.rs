//! The scheduler: which block of games the hill plays next, from its settings, its
//! current standings and the blocks before. A pure function of those, so the
//! whole hill can be planned again from its database and audited.
//!
//! 1. A current version with fewer than `candidate_games` games against the
//!    current field is a candidate: it plays a gauntlet against the other active
//!    entrants. Its blocks are dealt from seeds of its own version (see
//!    `candidate_seed`): a deal shown on the page is never dealt again.
//! 2. Otherwise blocks alternate between two kinds:
//!    - a `field` block: every active entrant, each deal's table drawn from the
//!      whole field in whole rounds ([`Schedule::Balanced`]): every entrant the
//!      same number of games, in every seat, against a fresh draw of opponents;
//!    - a `pair` block: the two neighbours in the ranking whose difference is
//!      least settled (smallest against its boundary), facing the same field
//!      ([`Schedule::Pair`]): at every table together with opponents drawn per
//!      game from the rest (at tables of two, each against the same opponent
//!      drawn per two games).
//!
//!    Neither gives an entrant a field others do not get: the pair's two share
//!    theirs, and every other block draws from the whole field. The standings'
//!    model takes out what remains (whom the pair's opponents met).
//!
//! Hills made before tables were drawn from the field (`field_tables` false)
//! keep their old second step, so that their audit still holds: the two
//! neighbours by mean score whose intervals overlap most, with the rest of a
//! table drawn once for the block.
//!
//! A block plays `block` games, or `builtin_block` when every version at its
//! tables is a built-in.

use crate::board::Board;
pub use crate::store::Planned;
use crate::store::{Block, BlockKind, Settings, Status};
use koth_arena::model::anytime_z;
use koth_arena::rng::derive_seed;
use koth_arena::{Random, Rng, Schedule};

/// Seed streams of the hill's blocks.
const CANDIDATE: u64 = 1;
const UNCERTAIN: u64 = 2;
const FIELD: u64 = 3;

/// The next block to play, or `None` when fewer than two entrants are active.
/// `planned` summarises the blocks planned so far; `builtin` says which
/// versions are built-ins (a block of built-ins only plays
/// [`Settings::builtin_block`] games).
pub fn next_block(
    settings: &Settings,
    board: &Board,
    planned: &Planned,
    builtin: &dyn Fn(i64) -> bool,
) -> Option<Block> {
    let active: Vec<usize> = (0..board.entrants.len())
        .filter(|&e| board.entrants[e].status == Status::Active)
        .collect();
    if active.len() < 2 {
        return None;
    }
    let table = settings.table.clamp(2, active.len());
    let version = |e: usize| board.entrants[e].version;
    let block_games = |schedule: &Schedule, n: usize| schedule.games(n, settings.duplicate);
    // Games a block of `versions` plays.
    let size = |versions: &[i64]| match settings.builtin_block {
        n if n > 0 && versions.iter().all(|&v| builtin(v)) => n,
        _ => settings.block,
    };
    // Blocks up to this one are on `board` (all of them, but within a window
    // of blocks: a candidate's later blocks are planned, not counted yet).
    let counted = planned.blocks as i64 + 1 - settings.window() as i64;
    let coming = |v: i64| -> u64 {
        planned.candidate_blocks.get(&v).map_or(0, |bs| {
            bs.iter()
                .filter(|&&(b, _)| b > counted)
                .map(|&(_, g)| g)
                .sum()
        })
    };
    let needs = |v: i64| {
        settings
            .candidate_games
            .saturating_sub(board.games_of(v) + coming(v))
    };
    if let Some(&cand) = active.iter().find(|&&e| needs(version(e)) > 0) {
        let v = version(cand);
        let k = planned.candidate.get(&v).copied().unwrap_or(0);
        let mut versions = vec![v];
        versions.extend(active.iter().filter(|&&e| e != cand).map(|&e| version(e)));
        // What the candidate still needs, up to a block.
        let games = size(&versions).min(needs(v)).max(1);
        let schedule = if versions.len() == 2 {
            Schedule::RoundRobin {
                games_per_pair: games,
            }
        } else {
            Schedule::Gauntlet { games, table }
        };
        return Some(block(
            BlockKind::Candidate,
            versions,
            schedule,
            candidate_seed(settings, v, k),
            block_games,
        ));
    }
    if !settings.field_tables {
        return Some(uncertain(
            settings,
            board,
            planned,
            &active,
            table,
            size,
            block_games,
        ));
    }
    let seed = derive_seed(derive_seed(settings.seed, FIELD), planned.blocks);
    let ranking: Vec<usize> = board
        .standings
        .ranking()
        .into_iter()
        .filter(|e| active.contains(e))
        .collect();
    if planned.blocks.is_multiple_of(2) || active.len() <= table {
        // The whole field, each deal's table drawn from it.
        let versions: Vec<i64> = ranking.iter().map(|&e| version(e)).collect();
        let n = versions.len() as u64;
        let per_deal = if settings.duplicate { table as u64 } else { 1 };
        // Whole rounds: every entrant the same number of games in every seat.
        let round = n * per_deal;
        let games = size(&versions).div_ceil(round).max(1) * round;
        let schedule = Schedule::Balanced { games, table };
        return Some(block(
            BlockKind::Field,
            versions,
            schedule,
            seed,
            block_games,
        ));
    }
    // The neighbours least settled: the smallest difference for its boundary.
    let (lo, hi) = board.standings.score_range();
    let margin = |a: usize, b: usize| match board.standings.difference(a, b) {
        Some((d, se)) if se > 0.0 => d.abs() / (anytime_z(se, hi - lo) * se),
        _ => 0.0,
    };
    let mut best = (f64::INFINITY, 0);
    for r in 0..ranking.len() - 1 {
        let m = margin(ranking[r], ranking[r + 1]);
        if m < best.0 {
            best = (m, r);
        }
    }
    let (a, b) = (ranking[best.1], ranking[best.1 + 1]);
    let mut versions = vec![version(a), version(b)];
    versions.extend(
        ranking
            .iter()
            .filter(|&&e| e != a && e != b)
            .map(|&e| version(e)),
    );
    let games = size(&versions);
    let schedule = Schedule::Pair {
        games,
        table,
        // The pair's two tables dealt alike (hills made before deal each its own).
        same_cards: settings.as_played,
    };
    Some(block(
        BlockKind::Pair,
        versions,
        schedule,
        seed,
        block_games,
    ))
}

/// What hills made before [`Settings::field_tables`] play after the candidate
/// games: the two neighbours (by mean score) whose intervals overlap most, with
/// the rest of a table drawn once for the whole block.
fn uncertain(
    settings: &Settings,
    board: &Board,
    planned: &Planned,
    active: &[usize],
    table: usize,
    size: impl Fn(&[i64]) -> u64,
    block_games: impl Fn(&Schedule, usize) -> u64,
) -> Block {
    let version = |e: usize| board.entrants[e].version;
    let ranking: Vec<usize> = board
        .standings
        .mean_ranking()
        .into_iter()
        .filter(|e| active.contains(e))
        .collect();
    let ci: Vec<_> = ranking
        .iter()
        .map(|&e| board.standings.mean_interval(e))
        .collect();
    let mut best = (f64::NEG_INFINITY, 0);
    for r in 0..ranking.len() - 1 {
        // Overlap of the two intervals (negative: the gap between them).
        let closeness = ci[r].high.min(ci[r + 1].high) - ci[r].low.max(ci[r + 1].low);
        if closeness > best.0 {
            best = (closeness, r);
        }
    }
    let (a, b) = (ranking[best.1], ranking[best.1 + 1]);
    let seed = derive_seed(derive_seed(settings.seed, UNCERTAIN), planned.blocks);
    let mut versions = vec![version(a), version(b)];
    let mut rest: Vec<usize> = active
        .iter()
        .copied()
        .filter(|&e| e != a && e != b)
        .collect();
    let mut rng = Rng::new(seed);
    for _ in 2..table {
        let i = rng.index(rest.len());
        versions.push(version(rest.swap_remove(i)));
    }
    let games = size(&versions);
    let schedule = if table == 2 {
        Schedule::RoundRobin {
            games_per_pair: games,
        }
    } else {
        Schedule::Balanced {
            games: games.div_ceil(table as u64) * table as u64,
            table,
        }
    };
    block(BlockKind::Uncertain, versions, schedule, seed, block_games)
}

/// The seed of version `v`'s `k`-th candidate block. Of its own version: a
/// candidate's games are on the page as soon as they are played, hidden cards
/// and all, and a later candidate dealt the same would know its opponents'
/// hands before it sat down. Luck is still cancelled within the block, where
/// each deal is played once per rotation of the seats. (Hills made before
/// this share one seed per `k`; they keep it, so their audit still holds.)
fn candidate_seed(settings: &Settings, v: i64, k: u64) -> u64 {
    let stream = derive_seed(settings.seed, CANDIDATE);
    if settings.own_candidate_seeds {
        derive_seed(derive_seed(stream, v as u64), k)
    } else {
        derive_seed(stream, k)
    }
}

fn block(
    kind: BlockKind,
    versions: Vec<i64>,
    schedule: Schedule,
    seed: u64,
    games: impl Fn(&Schedule, usize) -> u64,
) -> Block {
    Block {
        id: 0,
        kind,
        games: games(&schedule, versions.len()),
        versions,
        schedule: serde_json::to_value(schedule).unwrap_or_default(),
        seed,
        done: 0,
        after_event: 0,
    }
}
