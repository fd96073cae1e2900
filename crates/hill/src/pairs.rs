//! Who aims at whom: the hill's collusion check. An author with several
//! entrants can have some feed one (never attack it, attack its rivals). Bots
//! are not told whom they play, so a feeder must recognise its partner by its
//! play, and then treats it unlike everyone else: that is what is counted.
//!
//! For each attack a program aims at one opponent of several (Coup's coup,
//! assassination and steal), the opponents it could have aimed at share one
//! expected attack. Summed by entrant pair, `aimed[a][b]` is what `a` did to
//! `b` and `base[a][b]` what aiming at random would have done. Entrants differ
//! in how much they attack and in how much they are attacked (a rich bot is a
//! target to all); both are fitted (`aimed ≈ base · α_a · β_b`, by iterative
//! proportional fitting), and what is left in a pair is its own. Honest pairs
//! have some too (one bot's way of choosing a target meets another's way of
//! playing), so a pair's log ratio of aimed to expected is judged against the
//! spread of all pairs' (measured robustly) and its own chance variation, at a
//! threshold that holds 5% over all pairs.

use crate::hill::Hill;
use crate::hill::Result;
use koth_arena::GameRecord;
use koth_entrants::BotKinds;
use std::collections::HashMap;

/// Pairs with fewer expected attacks than this are not judged.
pub const LEAST_EXPECTED: f64 = 20.0;

/// One ordered pair of entrants: how `actor` aimed at `target`.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Aim {
    /// The entrant who attacked.
    pub actor: String,
    /// The entrant it aimed at.
    pub target: String,
    /// Attacks `actor` aimed at `target`.
    pub aimed: u64,
    /// What the fitted field predicts.
    pub expected: f64,
    /// How far the pair's log ratio of aimed to expected lies from the
    /// field's pairs, in standard errors (negative: `actor` spares `target`).
    pub z: f64,
    /// Past the threshold: to look at.
    pub flagged: bool,
    /// A few games where both sat (block, number), to look at.
    pub games: Vec<(i64, u64)>,
}

/// The check over every stored game with full records.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Aims {
    /// Every pair judged, the farthest from what the field predicts first.
    pub pairs: Vec<Aim>,
    /// Games read (those of programs; built-ins' are kept as results only).
    pub games: u64,
    /// Attacks counted.
    pub attacks: u64,
    /// The spread of honest pairs' log ratios (aimed to expected), measured
    /// robustly, beyond what chance gives.
    pub spread: f64,
    /// |z| past which a pair is flagged: 5% over all pairs judged.
    pub threshold: f64,
}

impl Aims {
    /// The flagged pairs.
    pub fn flagged(&self) -> impl Iterator<Item = &Aim> {
        self.pairs.iter().filter(|a| a.flagged)
    }
}

impl<G: BotKinds> Hill<G> {
    /// Who aims at whom, over every stored game with full records (replayed
    /// from them): see the module's text.
    pub fn aims(&self) -> Result<Aims> {
        let entrants = self.store.entrants()?;
        let versions = self.store.versions()?;
        let blocks = self.store.blocks()?;
        let index: HashMap<i64, usize> = entrants
            .iter()
            .enumerate()
            .map(|(i, e)| (e.id, i))
            .collect();
        let of_version: HashMap<i64, usize> = versions
            .iter()
            .filter_map(|v| Some((v.id, *index.get(&v.entrant)?)))
            .collect();
        let n = entrants.len();
        let mut aimed = vec![vec![0u64; n]; n];
        let mut base = vec![vec![0f64; n]; n];
        // Per pair, over games: Σ o², Σ o·e, Σ e² of each game's aimed (o)
        // and random-aim (e) counts, for a variance that knows one game's
        // attacks hang together (a bot that robs one seat robs it again).
        let mut sums = vec![vec![[0f64; 3]; n]; n];
        let mut this_game: HashMap<(usize, usize), (f64, f64)> = HashMap::new();
        let mut met: HashMap<(usize, usize), Vec<(i64, u64)>> = HashMap::new();
        let mut out = Aims::default();
        let mut rules: Option<(i64, G::Rules)> = None;
        let mut failed = None;
        let mut legal = Vec::new();
        self.store.each_game(&mut |g| {
            if failed.is_some() {
                return;
            }
            let Ok(rec) = serde_json::from_str::<GameRecord<G::Choice>>(&g.record) else {
                return;
            };
            if rec.choices.is_none() {
                return;
            }
            if rules.as_ref().is_none_or(|(id, _)| *id != g.block) {
                match self.replay_rules(&blocks, g.block) {
                    Ok(r) => rules = Some((g.block, r)),
                    Err(e) => {
                        failed = Some(e);
                        return;
                    }
                }
            }
            let (_, r) = rules.as_ref().expect("readied above");
            let who: Vec<Option<usize>> =
                g.seats.iter().map(|v| of_version.get(v).copied()).collect();
            out.games += 1;
            let mut any = false;
            this_game.clear();
            // A game that does not replay is the audit's to report.
            let _ = koth_arena::records::replay_logged::<G>(
                r,
                &rec,
                |_| {},
                |game, _, choice| {
                    let (Some(seat), Some(at)) = (game.to_move(), game.aimed_at(choice)) else {
                        return;
                    };
                    let (Some(Some(a)), Some(Some(b))) = (who.get(seat), who.get(at)) else {
                        return;
                    };
                    legal.clear();
                    game.legal_choices(&mut legal);
                    let mut could: Vec<usize> =
                        legal.iter().filter_map(|&c| game.aimed_at(c)).collect();
                    could.sort_unstable();
                    could.dedup();
                    if could.len() < 2 {
                        // One opponent left: no choice of whom.
                        return;
                    }
                    aimed[*a][*b] += 1;
                    this_game.entry((*a, *b)).or_default().0 += 1.0;
                    out.attacks += 1;
                    any = true;
                    let share = 1.0 / could.len() as f64;
                    for t in could {
                        if let Some(Some(x)) = who.get(t) {
                            base[*a][*x] += share;
                            this_game.entry((*a, *x)).or_default().1 += share;
                        }
                    }
                },
            );
            for (&(a, b), &(o, e)) in &this_game {
                let s = &mut sums[a][b];
                s[0] += o * o;
                s[1] += o * e;
                s[2] += e * e;
            }
            if any {
                for (i, x) in who.iter().enumerate() {
                    for y in &who[i + 1..] {
                        if let (Some(x), Some(y)) = (x, y) {
                            let key = ((*x).min(*y), (*x).max(*y));
                            let list = met.entry(key).or_default();
                            if list.len() < 5 {
                                list.push((g.block, g.index));
                            }
                        }
                    }
                }
            }
        })?;
        if let Some(e) = failed {
            return Err(e);
        }
        let fitted = fit(&aimed, &base);
        // Each judged pair's log ratio of aimed to expected, and that ratio's
        // variance from game to game were the pair like the fit: Σ over games
        // of (o − k·e)², k the fit's factor for the pair (a cluster-robust
        // variance, by the delta method on the log).
        let mut cells = Vec::new();
        for a in 0..n {
            for b in 0..n {
                let e = fitted[a][b];
                if a != b && e >= LEAST_EXPECTED && base[a][b] > 0.0 {
                    let k = e / base[a][b];
                    let [oo, oe, ee] = sums[a][b];
                    let v = (oo - 2.0 * k * oe + k * k * ee).max(e);
                    let ratio = ((aimed[a][b] as f64 + 0.5) / (e + 0.5)).ln();
                    cells.push((a, b, ratio, v / ((e + 0.5) * (e + 0.5))));
                }
            }
        }
        // Honest pairs differ too (one bot's way of choosing a target meets
        // another's way of playing): their spread is measured robustly (the
        // median and the median absolute deviation, so that the pairs to find
        // do not hide themselves), and a pair is judged against it.
        let median = |mut v: Vec<f64>| -> f64 {
            v.sort_by(f64::total_cmp);
            match v.len() {
                0 => 0.0,
                k if k % 2 == 1 => v[k / 2],
                k => (v[k / 2 - 1] + v[k / 2]) / 2.0,
            }
        };
        let centre = median(cells.iter().map(|c| c.2).collect());
        let mad = median(cells.iter().map(|c| (c.2 - centre).abs()).collect());
        let sampling = median(cells.iter().map(|c| c.3).collect());
        let spread = ((1.4826 * mad).powi(2) - sampling).max(0.0);
        out.spread = spread.sqrt();
        out.threshold = bonferroni_z(cells.len().max(1), 0.05);
        for (a, b, ratio, var) in cells {
            let z = (ratio - centre) / (spread + var).sqrt();
            out.pairs.push(Aim {
                actor: entrants[a].name.clone(),
                target: entrants[b].name.clone(),
                aimed: aimed[a][b],
                expected: fitted[a][b],
                z,
                flagged: z.abs() > out.threshold,
                games: met.get(&(a.min(b), a.max(b))).cloned().unwrap_or_default(),
            });
        }
        out.pairs.sort_by(|x, y| y.z.abs().total_cmp(&x.z.abs()));
        Ok(out)
    }
}

/// `base` scaled by a factor per row and per column until its row and column
/// sums (off the diagonal) are `aimed`'s.
fn fit(aimed: &[Vec<u64>], base: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let n = aimed.len();
    let mut row = vec![1.0; n];
    let mut col = vec![1.0; n];
    for _ in 0..200 {
        for a in 0..n {
            let want: f64 = aimed[a].iter().map(|&x| x as f64).sum();
            let have: f64 = (0..n).map(|b| base[a][b] * col[b]).sum();
            row[a] = if have > 0.0 { want / have } else { 0.0 };
        }
        for b in 0..n {
            let want: f64 = (0..n).map(|a| aimed[a][b] as f64).sum();
            let have: f64 = (0..n).map(|a| base[a][b] * row[a]).sum();
            col[b] = if have > 0.0 { want / have } else { 0.0 };
        }
    }
    (0..n)
        .map(|a| (0..n).map(|b| base[a][b] * row[a] * col[b]).collect())
        .collect()
}

/// The |z| a normal passes with chance at most `alpha / m` (two-sided), from
/// the tail bound P(|Z| > z) ≤ 2φ(z)/z: a little above the exact quantile,
/// never below.
pub fn bonferroni_z(m: usize, alpha: f64) -> f64 {
    let target = alpha / m as f64;
    let tail = |z: f64| 2.0 * (-z * z / 2.0).exp() / (z * (2.0 * std::f64::consts::PI).sqrt());
    let (mut lo, mut hi) = (0.5, 40.0);
    for _ in 0..100 {
        let mid = (lo + hi) / 2.0;
        if tail(mid) > target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_threshold_holds_over_all_pairs() {
        // 1.96 for one pair at 5% (the bound is a little above: 2.24 at one,
        // closer as the tail thins), and it grows with the pairs.
        let one = bonferroni_z(1, 0.05);
        assert!(one > 1.96 && one < 2.3, "{one}");
        let many = bonferroni_z(110, 0.05);
        // The exact two-sided quantile at 0.05/110 is 3.50.
        assert!(many > 3.50 && many < 3.62, "{many}");
    }

    #[test]
    fn the_fit_takes_out_who_attacks_and_who_is_attacked() {
        // Three entrants; 0 attacks twice as much, 2 is attacked three times
        // as much: no pair of its own, and the fit says so exactly.
        let base = vec![
            vec![0.0, 50.0, 50.0],
            vec![50.0, 0.0, 50.0],
            vec![50.0, 50.0, 0.0],
        ];
        let rate = [[0.0, 2.0, 6.0], [1.0, 0.0, 3.0], [1.0, 1.0, 0.0]];
        let aimed: Vec<Vec<u64>> = (0..3)
            .map(|a| (0..3).map(|b| (base[a][b] * rate[a][b]) as u64).collect())
            .collect();
        let f = fit(&aimed, &base);
        for a in 0..3 {
            for b in 0..3 {
                assert!(
                    (f[a][b] - aimed[a][b] as f64).abs() < 1e-6,
                    "{a} {b}: {f:?}"
                );
            }
        }
    }
}
