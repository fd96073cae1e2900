//! The battery every game must pass before it counts (as OpenSpiel does): random
//! legal play through many games, checking the rules' invariants, that every
//! decision offers a legal choice, that games end, that replaying the same
//! choices gives the same game, and that no view leaks hidden information.

use crate::game::Game;
use crate::rng::{derive_seed, Random, Rng};
use std::fmt::Write;

/// What the battery covers.
#[derive(Clone, Debug)]
pub struct Battery {
    /// Games to play.
    pub games: u64,
    /// Master seed.
    pub seed: u64,
    /// Seat counts to cycle through.
    pub seats: Vec<usize>,
    /// Check views against hidden-card permutations at one decision in this many
    /// (1 = every decision).
    pub leak_check_every: u32,
    /// Probability that a random decision is a forfeit instead of a choice.
    pub forfeit_chance: f64,
    /// A game still running after this many decisions fails the battery.
    pub max_decisions: u64,
}

/// What the battery saw.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Games played.
    pub games: u64,
    /// Decisions made.
    pub decisions: u64,
    /// View comparisons made.
    pub leak_checks: u64,
    /// Forfeits injected.
    pub forfeits: u64,
    /// Games won by exactly one seat.
    pub decided: u64,
    /// Longest game, in decisions.
    pub longest: u64,
}

/// Runs the battery on `G` with `rules`; the error names the game's seed and step.
pub fn run<G: Game>(rules: &G::Rules, battery: &Battery) -> Result<Report, String> {
    let mut report = Report::default();
    let mut legal = Vec::new();
    let mut again = Vec::new();
    for g in 0..battery.games {
        let seats = battery.seats[(g % battery.seats.len() as u64) as usize];
        let seed = derive_seed(battery.seed, g);
        let mut rng = Rng::new(seed ^ 0x00C0_FFEE);
        let mut game = G::new_game(rules, seats, seed);
        let mut replay = G::new_game(rules, seats, seed);
        let ctx = |step: u64, msg: String| {
            format!(
                "{} game {g} (seed {seed}, {seats} seats), step {step}: {msg}",
                G::NAME
            )
        };
        game.check_invariants().map_err(|m| ctx(0, m))?;
        let mut step = 0u64;
        while let Some(seat) = game.to_move() {
            step += 1;
            if step > battery.max_decisions {
                return Err(ctx(step, "the game did not end".into()));
            }
            if seat >= seats {
                return Err(ctx(
                    step,
                    format!("seat {seat} asked at a {seats}-seat table"),
                ));
            }
            legal.clear();
            game.legal_choices(&mut legal);
            if legal.is_empty() {
                return Err(ctx(step, "a decision with no legal choice".into()));
            }
            let mut dedup = legal.clone();
            dedup.sort_by_key(|c| format!("{c:?}"));
            dedup.dedup();
            if dedup.len() != legal.len() {
                return Err(ctx(step, format!("duplicate legal choices {legal:?}")));
            }
            if battery.leak_check_every > 0 && rng.below(battery.leak_check_every) == 0 {
                report.leak_checks += 1;
                check_views(&game, &mut rng, &legal, &mut again).map_err(|m| ctx(step, m))?;
            }
            if battery.forfeit_chance > 0.0 && rng.chance(battery.forfeit_chance) {
                report.forfeits += 1;
                game.forfeit(seat);
                replay.forfeit(seat);
            } else {
                let c = legal[rng.index(legal.len())];
                game.apply(c)
                    .map_err(|e| ctx(step, format!("legal choice {c:?} refused: {e}")))?;
                replay
                    .apply(c)
                    .map_err(|e| ctx(step, format!("replay refused {c:?}: {e}")))?;
            }
            report.decisions += 1;
            game.check_invariants().map_err(|m| ctx(step, m))?;
        }
        let outcome = game
            .outcome()
            .ok_or_else(|| ctx(step, "no outcome at the end".into()))?;
        if replay.outcome() != Some(outcome) {
            return Err(ctx(
                step,
                "replaying the same choices gave another result".into(),
            ));
        }
        for s in 0..seats {
            if game.observe(s) != replay.observe(s) {
                return Err(ctx(step, format!("replay differs in what seat {s} sees")));
            }
        }
        if outcome.winners.len() == 1 {
            report.decided += 1;
        }
        report.longest = report.longest.max(step);
        report.games += 1;
    }
    Ok(report)
}

/// Permutes everything each seat cannot see and checks that its view, and its
/// legal choices when it is to move, do not change.
fn check_views<G: Game>(
    game: &G,
    rng: &mut Rng,
    legal: &[G::Choice],
    again: &mut Vec<G::Choice>,
) -> Result<(), String> {
    for viewer in 0..game.seats() {
        let before = game.observe(viewer);
        for _ in 0..2 {
            let mut other = game.clone();
            other.shuffle_hidden(viewer, rng);
            other
                .check_invariants()
                .map_err(|m| format!("shuffle_hidden broke an invariant: {m}"))?;
            let after = other.observe(viewer);
            if before != after {
                let mut msg = String::new();
                let _ = write!(msg, "seat {viewer}'s view changed when hidden cards moved:\n before {before:?}\n after  {after:?}");
                return Err(msg);
            }
            if game.to_move() == Some(viewer) {
                again.clear();
                other.legal_choices(again);
                if again != legal {
                    return Err(format!("seat {viewer}'s legal choices depend on hidden cards: {legal:?} vs {again:?}"));
                }
            }
        }
    }
    Ok(())
}
