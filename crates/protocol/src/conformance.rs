//! The wire-level leak battery: what a bot receives, byte for byte, must not depend
//! on anything it cannot see.
//!
//! For each game and each seat (the viewer), a second world is made that differs
//! only in what the viewer cannot see: another deal with the same view (found by
//! trying deal seeds), or the same game with every hidden card moved
//! ([`koth_arena::Game::shuffle_hidden`]). Both worlds keep the viewer's seed stream
//! ([`GameSeeds::with_deal`]) and are driven by the same choices. While the
//! viewer's observation is the same in both, every line [`Encoder`] builds for it
//! (`start`, each `decide`, `end`) must be the same bytes. A seed derived from the
//! deal, a field that shows the deck, or a view that names a hidden card all fail.

use crate::wire::{Encoder, WireGame};
use koth_arena::rng::{derive, derive_seed, Stream};
use koth_arena::{GameSeeds, Random, Rng, Seat};

/// What the battery covers.
#[derive(Clone, Debug)]
pub struct WireBattery {
    /// Games to play.
    pub games: u64,
    /// Master seed.
    pub seed: u64,
    /// Seat counts to cycle through.
    pub seats: Vec<usize>,
    /// Deal seeds tried per game to find another deal with the viewer's view.
    pub redeal_tries: u32,
}

/// What the battery compared.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WireReport {
    /// Pairs of worlds played.
    pub worlds: u64,
    /// Of them, pairs with two different deal seeds.
    pub redeals: u64,
    /// Lines compared byte for byte.
    pub lines: u64,
    /// Bytes compared.
    pub bytes: u64,
}

/// Runs the battery on `G` with `rules`; the error names the game, the seat, the
/// line and both versions of it.
pub fn wire_leaks<G: WireGame>(rules: &G::Rules, b: &WireBattery) -> Result<WireReport, String> {
    let mut report = WireReport::default();
    for g in 0..b.games {
        let seats = b.seats[(g % b.seats.len() as u64) as usize];
        let seeds = GameSeeds::of(b.seed, g);
        let first = G::new_game(rules, seats, seeds.deal);
        for viewer in 0..seats {
            let mut rng = Rng::new(derive(b.seed, Stream::Index, g * 64 + viewer as u64));
            // Another deal with the same view, when one is found quickly.
            let view = first.observe(viewer);
            let redeal = (1..=b.redeal_tries as u64)
                .map(|k| derive_seed(seeds.deal, k))
                .find(|&d| G::new_game(rules, seats, d).observe(viewer) == view);
            if let Some(d) = redeal {
                let other = G::new_game(rules, seats, d);
                report.redeals += 1;
                compare(
                    (first.clone(), seeds),
                    (other, seeds.with_deal(d)),
                    viewer,
                    &mut rng,
                    &mut report,
                )
                .map_err(|m| format!("{} game {g}, seat {viewer}, another deal: {m}", G::NAME))?;
            }
            let mut moved = first.clone();
            moved.shuffle_hidden(viewer, &mut rng);
            compare(
                (first.clone(), seeds),
                (moved, seeds),
                viewer,
                &mut rng,
                &mut report,
            )
            .map_err(|m| {
                format!(
                    "{} game {g}, seat {viewer}, hidden cards moved: {m}",
                    G::NAME
                )
            })?;
        }
    }
    Ok(report)
}

/// Plays two worlds side by side with the same choices and compares the viewer's lines.
fn compare<G: WireGame>(
    (mut a, seeds_a): (G, GameSeeds),
    (mut b, seeds_b): (G, GameSeeds),
    viewer: Seat,
    rng: &mut Rng,
    report: &mut WireReport,
) -> Result<(), String> {
    report.worlds += 1;
    let names: Vec<String> = (0..a.seats()).map(|s| format!("bot {s}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let (mut ea, mut eb) = (Encoder::new(), Encoder::new());
    ea.set_names(&names);
    eb.set_names(&names);
    let mut line = 0u64;
    let mut check = |line_a: Result<&str, String>, line_b: Result<&str, String>, what: &str| {
        line += 1;
        let (x, y) = (line_a?, line_b?);
        report.lines += 1;
        report.bytes += x.len() as u64;
        if x == y {
            Ok(())
        } else {
            Err(format!(
                "line {line} ({what}) differs though the seat sees the same:\n  {x}\n  {y}"
            ))
        }
    };
    check(
        ea.start(&a, viewer, seeds_a.seat(viewer)),
        eb.start(&b, viewer, seeds_b.seat(viewer)),
        "start",
    )?;
    let (mut la, mut lb) = (Vec::new(), Vec::new());
    loop {
        if a.observe(viewer) != b.observe(viewer) {
            // The seat now sees something that differs: the worlds have parted.
            return Ok(());
        }
        let (Some(sa), Some(sb)) = (a.to_move(), b.to_move()) else {
            if a.to_move().is_none() && b.to_move().is_none() {
                check(ea.end(&a, viewer), eb.end(&b, viewer), "end")?;
            }
            return Ok(());
        };
        la.clear();
        lb.clear();
        a.legal_choices(&mut la);
        b.legal_choices(&mut lb);
        if sa != sb || la != lb {
            return Ok(());
        }
        if sa == viewer {
            check(
                ea.decide(&a, viewer, &la, 1),
                eb.decide(&b, viewer, &lb, 1),
                "decide",
            )?;
        }
        let c = la[rng.index(la.len())];
        a.apply(c).map_err(|e| e.to_string())?;
        b.apply(c).map_err(|e| e.to_string())?;
    }
}
