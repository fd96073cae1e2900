//! A run of built-in bots allocates per batch, never per game (issue 13): counted
//! with a global allocator, so this file holds this one test (tests in one binary
//! share the counter).

mod common;

use common::tournament;
use koth_arena::RecordLevel;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations made by a run of `games` six-player games on one thread.
fn allocations(games: u64, records: RecordLevel) -> u64 {
    let names = ["static", "static", "honest", "honest", "random", "random"];
    let mut t = tournament(&names, games, 6, 5, 1);
    t.records = records;
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let r = t.run(&mut koth_arena::Quiet);
    assert!(r.complete);
    ALLOCATIONS.load(Ordering::Relaxed) - before
}

#[test]
fn games_allocate_nothing_of_their_own() {
    // Both runs have 256 batches (batches grow with the run), so whatever grows
    // with the number of games is allocated per game.
    for records in [RecordLevel::None, RecordLevel::Results] {
        let small = allocations(25_600, records);
        let large = allocations(51_200, records);
        let per_game = large.saturating_sub(small) as f64 / 25_600.0;
        assert!(
            per_game < 0.05,
            "{records:?}: {small} allocations for 25,600 games, {large} for 51,200: {per_game:.2} a game"
        );
    }
    // Full records keep each game's choices: one allocation a game for them.
    let small = allocations(25_600, RecordLevel::Full);
    let large = allocations(51_200, RecordLevel::Full);
    let per_game = large.saturating_sub(small) as f64 / 25_600.0;
    assert!(
        per_game < 1.1,
        "full records: {per_game:.2} allocations a game"
    );
}
