//! Standings: each entrant's score per game with its interval, wins, draws,
//! losses and forfeits, the head-to-head means, and under duplicate play the
//! totals per deal. Built from game records, merged chunk by chunk in game order.

use crate::game::MAX_SEATS;
use crate::model::{Fit, Model};
use crate::records::{GameRecord, NoticeKind, RunInfo};
use crate::schedule::Schedule;
use crate::scoring::{result_of, Result3};
use crate::stats::Sample;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Numbers for one entrant.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EntrantStats {
    /// The entrant's name.
    pub name: String,
    /// Score per game.
    pub score: Sample,
    /// Games won alone.
    pub wins: u64,
    /// Games shared with other winners, or won by nobody.
    pub draws: u64,
    /// Games someone else won.
    pub losses: u64,
    /// Games forfeited.
    pub forfeits: u64,
    /// Illegal answers penalised (under a penalty rule).
    #[serde(default)]
    pub penalties: u64,
    /// Answers accepted leniently, with a warning.
    #[serde(default)]
    pub warnings: u64,
    /// Games of its that ended at the turn cap (counted among wins, draws and
    /// losses as the rules score them, and here).
    #[serde(default)]
    pub turn_capped: u64,
}

impl EntrantStats {
    /// Games played.
    pub fn games(&self) -> u64 {
        self.score.n
    }
}

/// Standings of a tournament so far.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Standings {
    /// Per entrant, in entrant order.
    pub entrants: Vec<EntrantStats>,
    /// `pair[a * n + b]`: a's score in the games where a and b sat together.
    pub pair: Vec<Sample>,
    /// Games counted.
    pub games: u64,
    /// Decisions made in those games.
    pub decisions: u64,
    /// Games that ended at the turn cap rather than by the rules.
    #[serde(default)]
    pub turn_capped: u64,
    /// The lowest and highest score any seat got, widened to include 0 and 1 (in
    /// units of 1/[`crate::stats::SCALE`]): the range intervals are kept within.
    #[serde(default = "default_range")]
    pub range: [i64; 2],
    /// With duplicate play: each entrant's total score per deal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deals: Option<Deals>,
    /// Every entrant met the same field, in distribution: the schedule draws
    /// each one's opponents evenly from all the others (a balanced, random or
    /// round-robin schedule). The mean scores then rank them, and the model
    /// agrees; otherwise the model's strengths do.
    #[serde(default)]
    pub even: bool,
    /// The opponent-aware model ([`crate::model`]).
    #[serde(default)]
    pub model: Model,
    /// The model's fit, made when first asked after a change.
    #[serde(skip)]
    fitted: Fitted,
}

/// A fit kept until the next game: not part of what standings are.
#[derive(Debug, Default)]
struct Fitted(std::sync::OnceLock<Option<Arc<Fit>>>);

impl Clone for Fitted {
    fn clone(&self) -> Self {
        Fitted::default()
    }
}

impl PartialEq for Fitted {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// Scores per deal under duplicate play: a deal is played by the same entrants
/// once in each rotation of the seats; an entrant's total over those games is one
/// observation, with the luck of the cards taken out.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Deals {
    /// Games per deal (the table size).
    pub rotations: u64,
    /// Per entrant, one observation per complete deal: its total score over the
    /// deal's rotations.
    pub totals: Vec<Sample>,
    /// Deals not yet complete: deal number → (games seen, total per entrant).
    #[serde(skip)]
    open: BTreeMap<u64, (u64, Vec<(usize, i64)>)>,
}

impl Deals {
    fn add(&mut self, deal: u64, games: u64, scores: impl IntoIterator<Item = (usize, i64)>) {
        let k = self.rotations;
        let entry = self.open.entry(deal).or_insert_with(|| (0, Vec::new()));
        entry.0 += games;
        for (e, q) in scores {
            match entry.1.iter_mut().find(|(x, _)| *x == e) {
                Some(slot) => slot.1 += q,
                None => entry.1.push((e, q)),
            }
        }
        if entry.0 >= k {
            let (_, totals) = self.open.remove(&deal).expect("just inserted");
            for (e, q) in totals {
                self.totals[e].add_quantized(q);
            }
        }
    }
}

fn default_range() -> [i64; 2] {
    [0, crate::stats::SCALE as i64]
}

impl Standings {
    /// Empty standings for entrants with these names.
    pub fn new(names: &[String]) -> Self {
        let n = names.len();
        Standings {
            entrants: names
                .iter()
                .map(|name| EntrantStats {
                    name: name.clone(),
                    ..Default::default()
                })
                .collect(),
            pair: vec![Sample::default(); n * n],
            games: 0,
            decisions: 0,
            turn_capped: 0,
            range: default_range(),
            deals: None,
            even: false,
            model: Model::default(),
            fitted: Fitted::default(),
        }
    }

    /// Adds an entrant with no games, last (a hill's newcomer: the games counted
    /// so far stay as they are).
    pub fn push_entrant(&mut self, name: &str) {
        self.fitted = Fitted::default();
        let n = self.entrants.len();
        let mut pair = vec![Sample::default(); (n + 1) * (n + 1)];
        for a in 0..n {
            pair[a * (n + 1)..a * (n + 1) + n].clone_from_slice(&self.pair[a * n..(a + 1) * n]);
        }
        self.pair = pair;
        self.entrants.push(EntrantStats {
            name: name.to_string(),
            ..Default::default()
        });
        if let Some(d) = self.deals.as_mut() {
            d.totals.push(Sample::default());
        }
    }

    /// Empty standings for a run of `schedule` (grouped by deal under duplicate play).
    pub fn for_run(names: &[String], schedule: &Schedule, duplicate: bool) -> Self {
        let mut s = if duplicate {
            Standings::duplicate(names, schedule.table(names.len()))
        } else {
            Standings::new(names)
        };
        s.even = !matches!(schedule, Schedule::Gauntlet { .. } | Schedule::Pair { .. });
        s
    }

    /// Empty standings for a duplicate-play run with `rotations` games per deal.
    pub fn duplicate(names: &[String], rotations: usize) -> Self {
        Standings {
            deals: Some(Deals {
                rotations: rotations.max(1) as u64,
                totals: vec![Sample::default(); names.len()],
                open: BTreeMap::new(),
            }),
            ..Standings::new(names)
        }
    }

    /// Counts one game (under duplicate play, as rotation `index % rotations`
    /// of deal `index / rotations`).
    pub fn add<C>(&mut self, rec: &GameRecord<C>) {
        let deal = self
            .deals
            .as_ref()
            .map(|d| (rec.index / d.rotations, d.rotations));
        self.add_dealt(rec, deal);
    }

    /// Counts one game, of deal `deal` (its number, and how many games make it
    /// whole), or a deal of its own when `None`. The games of one deal are one
    /// observation for the intervals.
    pub fn add_dealt<C>(&mut self, rec: &GameRecord<C>, deal: crate::model::Deal) {
        self.add_focused(rec, deal, None);
    }

    /// Counts one game, of deal `deal`, in the model at seat `only` alone when
    /// given ([`Model::add_seat`]: a game drawn to measure that seat's
    /// entrant); everything else counts every seat.
    pub fn add_focused<C>(
        &mut self,
        rec: &GameRecord<C>,
        deal: crate::model::Deal,
        only: Option<usize>,
    ) {
        self.fitted = Fitted::default();
        let n = self.entrants.len();
        self.games += 1;
        self.decisions += rec.decisions;
        let capped = rec.outcome.ending == crate::game::Ending::TurnCap;
        self.turn_capped += u64::from(capped);
        // Quantize each seat's score once; the pair matrix reuses it.
        let mut q = [0i64; MAX_SEATS];
        for (seat, &score) in rec.scores.iter().enumerate().take(MAX_SEATS) {
            q[seat] = crate::stats::quantize(score);
            self.range[0] = self.range[0].min(q[seat]);
            self.range[1] = self.range[1].max(q[seat]);
        }
        for (seat, &e) in rec.seats.iter().enumerate() {
            let st = &mut self.entrants[e];
            st.score.add_quantized(q[seat]);
            st.turn_capped += u64::from(capped);
            match result_of(rec.outcome.winners, seat) {
                Result3::Win => st.wins += 1,
                Result3::Draw => st.draws += 1,
                Result3::Loss => st.losses += 1,
            }
            for &other in &rec.seats {
                if other != e {
                    self.pair[e * n + other].add_quantized(q[seat]);
                }
            }
        }
        let k = rec.seats.len().min(MAX_SEATS);
        let shares = crate::model::shares(k, rec.outcome.winners);
        let (seats, q, shares) = (&rec.seats[..k], &q[..k], &shares[..k]);
        match only {
            Some(seat) => self.model.add_seat(seats, q, shares, seat, deal),
            None => self.model.add(seats, q, shares, deal),
        }
        if let Some(d) = self.deals.as_mut() {
            let scores = rec.seats.iter().enumerate().map(|(s, &e)| (e, q[s]));
            d.add(rec.index / d.rotations, 1, scores);
        }
        for f in &rec.forfeits {
            self.entrants[f.entrant].forfeits += 1;
        }
        for n in &rec.notices {
            let st = &mut self.entrants[n.entrant];
            match n.kind {
                NoticeKind::Penalty => st.penalties += 1,
                NoticeKind::Warning => st.warnings += 1,
                NoticeKind::Stop | NoticeKind::Log => {}
            }
        }
    }

    /// Adds another partial standings of the same entrants.
    pub fn merge(&mut self, other: &Standings) {
        self.fitted = Fitted::default();
        self.model.merge(&other.model);
        self.games += other.games;
        self.decisions += other.decisions;
        self.turn_capped += other.turn_capped;
        self.range[0] = self.range[0].min(other.range[0]);
        self.range[1] = self.range[1].max(other.range[1]);
        for (a, b) in self.entrants.iter_mut().zip(&other.entrants) {
            a.score.merge(&b.score);
            a.wins += b.wins;
            a.draws += b.draws;
            a.losses += b.losses;
            a.forfeits += b.forfeits;
            a.penalties += b.penalties;
            a.warnings += b.warnings;
            a.turn_capped += b.turn_capped;
        }
        for (a, b) in self.pair.iter_mut().zip(&other.pair) {
            a.merge(b);
        }
        if let (Some(a), Some(b)) = (self.deals.as_mut(), other.deals.as_ref()) {
            for (x, y) in a.totals.iter_mut().zip(&b.totals) {
                x.merge(y);
            }
            for (&deal, (games, scores)) in &b.open {
                a.add(deal, *games, scores.iter().copied());
            }
        }
    }

    /// The range scores lie in, as `(lowest, highest)`.
    pub fn score_range(&self) -> (f64, f64) {
        let scale = crate::stats::SCALE as f64;
        (self.range[0] as f64 / scale, self.range[1] as f64 / scale)
    }

    /// The model's fit ([`Model::fit`]), `None` when there is too little to fit.
    pub fn fit(&self) -> Option<Arc<Fit>> {
        self.fitted
            .0
            .get_or_init(|| self.model.fit(self.entrants.len()).map(Arc::new))
            .clone()
    }

    /// Entrant `e`'s strength: the mean score it would get against opponents
    /// drawn evenly from the field, from the opponent-aware model
    /// ([`crate::model`]). Its mean score when every entrant met the same field
    /// ([`Standings::balanced`]: then the two agree), or when nothing can be
    /// fitted yet.
    pub fn strength(&self, e: usize) -> f64 {
        let mean = self.entrants[e].score.mean();
        if self.even {
            return mean;
        }
        match self.fit() {
            Some(f) if !f.balanced => f.strength[e].unwrap_or(mean),
            _ => mean,
        }
    }

    /// Whether the strengths are the mean scores: the schedule drew every
    /// entrant's opponents evenly from the field ([`Standings::even`]), or
    /// every entrant played as many games and every pair met as often, or
    /// there is too little to fit.
    pub fn balanced(&self) -> bool {
        self.even || self.fit().is_none_or(|f| f.balanced)
    }

    /// Entrant `a`'s strength less `b`'s, and its standard error, from the
    /// model, never below [`crate::model::difference_floor`] (`None` on an
    /// even schedule: see [`Standings::interval`]).
    pub fn difference(&self, a: usize, b: usize) -> Option<(f64, f64)> {
        if self.even {
            return None;
        }
        let f = self.fit()?;
        let (_, se) = f.difference(a, b)?;
        // No surer than the two intervals could be (hills made before the
        // floor plan from the bare error, so that their audit holds).
        let se = if self.model.is_legacy() {
            se
        } else {
            let (lo, hi) = self.score_range();
            let (x, y) = (self.entrants[a].games(), self.entrants[b].games());
            se.max(crate::model::difference_floor(x, y, hi - lo))
        };
        Some((self.strength(a) - self.strength(b), se))
    }

    /// The 95% interval of entrant `e`'s [`Standings::strength`], within
    /// [`Standings::score_range`].
    ///
    /// On an even schedule, and before the model can be fitted, the interval
    /// of the mean score ([`Standings::mean_interval`]). Otherwise the model's,
    /// whose variance takes the games of one deal (under duplicate play) as one
    /// observation.
    pub fn interval(&self, e: usize) -> crate::stats::Interval {
        let (lo, hi) = self.score_range();
        if self.even {
            return self.mean_interval(e);
        }
        match self.fit().and_then(|f| f.se(e)) {
            Some(se) => {
                let games = self.entrants[e].games();
                crate::model::interval(self.strength(e), se, games, lo, hi)
            }
            None => self.mean_interval(e),
        }
    }

    /// The 95% interval of entrant `e`'s mean score, the model aside: under
    /// duplicate play over its deal totals, else over its games. (What hills
    /// planned before the model rank by.)
    pub fn mean_interval(&self, e: usize) -> crate::stats::Interval {
        let (lo, hi) = self.score_range();
        if let Some(d) = &self.deals {
            let t = &d.totals[e];
            if t.n >= 2 {
                let k = d.rotations as f64;
                let ci = t.interval(k * lo, k * hi);
                return crate::stats::Interval {
                    low: ci.low / k,
                    high: ci.high / k,
                };
            }
        }
        self.entrants[e].score.interval(lo, hi)
    }

    /// Entrant indices by mean score, then by [`Standings::mean_interval`]'s
    /// lower bound, games and name; entrants without a game last. (What hills
    /// planned before the model rank by.)
    pub fn mean_ranking(&self) -> Vec<usize> {
        let lows: Vec<f64> = (0..self.entrants.len())
            .map(|e| self.mean_interval(e).low)
            .collect();
        let mut idx: Vec<usize> = (0..self.entrants.len()).collect();
        idx.sort_by(|&a, &b| {
            let (x, y) = (&self.entrants[a], &self.entrants[b]);
            (y.games() > 0)
                .cmp(&(x.games() > 0))
                .then(y.score.mean().total_cmp(&x.score.mean()))
                .then(lows[b].total_cmp(&lows[a]))
                .then(y.games().cmp(&x.games()))
                .then(x.name.cmp(&y.name))
        });
        idx
    }

    /// Entrant indices, best first: by strength (bots that played fewer games
    /// are not ranked down for it), then by the interval's lower bound, games
    /// played and name. Entrants without a game come last.
    pub fn ranking(&self) -> Vec<usize> {
        let lows: Vec<f64> = (0..self.entrants.len())
            .map(|e| self.interval(e).low)
            .collect();
        let strength: Vec<f64> = (0..self.entrants.len()).map(|e| self.strength(e)).collect();
        let mut idx: Vec<usize> = (0..self.entrants.len()).collect();
        idx.sort_by(|&a, &b| {
            let (x, y) = (&self.entrants[a], &self.entrants[b]);
            (y.games() > 0)
                .cmp(&(x.games() > 0))
                .then(strength[b].total_cmp(&strength[a]))
                .then(lows[b].total_cmp(&lows[a]))
                .then(y.games().cmp(&x.games()))
                .then(x.name.cmp(&y.name))
        });
        idx
    }
}

impl RunInfo {
    /// Empty standings of the run's entrants (grouped by deal under duplicate play).
    pub fn empty_standings(&self) -> Standings {
        Standings::for_run(&self.entrants, &self.schedule, self.duplicate)
    }
}

/// Standings of a list of records.
pub fn standings_of<C>(info: &RunInfo, records: &[GameRecord<C>]) -> Standings {
    let mut s = info.empty_standings();
    for r in records {
        s.add(r);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Ending, Outcome, SeatSet};

    fn record(seats: Vec<usize>, winner: usize, scores: Vec<f64>) -> GameRecord<u8> {
        GameRecord {
            index: 0,
            seed: 0,
            seats: seats.into(),
            outcome: Outcome {
                winners: SeatSet::single(winner),
                ending: Ending::Decided,
                turns: 1,
            },
            scores: scores.into(),
            decisions: 0,
            forfeits: vec![],
            notices: vec![],
            places: Default::default(),
            choices: None,
            log: None,
        }
    }

    #[test]
    fn ranked_by_mean_not_by_total() {
        // "many" wins 30 of 100 two-player games (+0.3 total... mean −0.4),
        // "few" wins 3 of 4 (total +2, mean +0.5): few has the better mean.
        let names = vec!["many".to_string(), "few".to_string(), "rest".to_string()];
        let mut s = Standings::new(&names);
        for i in 0..100 {
            // The winning seat.
            let w = if i < 30 { 0 } else { 1 };
            let sc = if w == 0 {
                vec![1.0, -1.0]
            } else {
                vec![-1.0, 1.0]
            };
            s.add(&record(vec![0, 2], w, sc));
        }
        for i in 0..4 {
            let w = if i < 3 { 0 } else { 1 };
            let sc = if w == 0 {
                vec![1.0, -1.0]
            } else {
                vec![-1.0, 1.0]
            };
            s.add(&record(vec![1, 2], w, sc));
        }
        // Totals: many −40, few +2, rest +40 − 2 = +38; means −0.4, +0.5, +0.36.
        assert_eq!(s.ranking(), vec![1, 2, 0]);
        assert_eq!(s.score_range(), (-1.0, 1.0));
        let ci = s.interval(1);
        assert!(ci.high <= 1.0 && ci.low < 0.0, "{ci:?}");
    }

    #[test]
    fn a_gauntlet_ranks_by_strength_and_a_balanced_run_by_mean() {
        let names = vec!["a".to_string(), "b".to_string(), "c".to_string()];
        let g = Schedule::Gauntlet {
            games: 10,
            table: 2,
        };
        let b = Schedule::Balanced {
            games: 10,
            table: 2,
        };
        assert!(!Standings::for_run(&names, &g, false).even);
        assert!(Standings::for_run(&names, &b, false).even);
        assert!(Standings::for_run(&names, &b, true).balanced());
        // A gauntlet whose candidate "a" met "b" only, and "c" met "a" only
        // through "b": the strengths are not the means.
        let mut s = Standings::for_run(&names, &g, false);
        for i in 0..40 {
            let (seats, w) = if i % 2 == 0 {
                (vec![0, 1], if i % 4 == 0 { 0 } else { 1 })
            } else {
                (vec![1, 2], 0)
            };
            let sc = if w == 0 {
                vec![1.0, -1.0]
            } else {
                vec![-1.0, 1.0]
            };
            s.add(&record(seats, w, sc));
        }
        assert!(!s.balanced());
        // a: 10 wins in 20 against b; b: 10 of 20 against a and 20 of 20
        // against c; c: none. Means a 0, b +0.5, c −1.
        assert_eq!(s.ranking(), vec![1, 0, 2]);
        assert!((s.strength(0) - s.entrants[0].score.mean()).abs() > 0.01);
    }

    #[test]
    fn equal_means_rank_the_surer_first_and_unplayed_last() {
        let names = vec!["a".to_string(), "b".to_string(), "idle".to_string()];
        let mut s = Standings::new(&names);
        // a and b both win every game they play: b over more games.
        s.add(&record(vec![0, 1], 0, vec![1.0, 0.0]));
        for _ in 0..5 {
            s.add(&record(vec![1, 0], 0, vec![1.0, 0.0]));
        }
        // a: 1 win, 5 losses; b: 5 wins, 1 loss.
        assert_eq!(s.ranking(), vec![1, 0, 2]);
        let mut t = Standings::new(&names);
        t.add(&record(vec![0, 1], 0, vec![1.0, 0.0]));
        for _ in 0..3 {
            t.add(&record(vec![1, 2], 0, vec![1.0, 0.0]));
        }
        // a 1/1 and b 3/4 ... a has mean 1, b 0.75, idle 0 over 3 games.
        assert_eq!(t.ranking(), vec![0, 1, 2]);
        let u = Standings::new(&names);
        assert_eq!(u.ranking(), vec![0, 1, 2]);
    }
}
