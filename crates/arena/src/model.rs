//! Strength that accounts for opponents: a model of who wins a table, fitted
//! to every game, with intervals that respect how the games were drawn.
//!
//! A mean score ranks bots only when they met the same field. When they did not
//! (a gauntlet, a hill, a shard, a merged run) a bot that met the champion often
//! looks weaker than one that met it rarely. The model takes that out. Each bot
//! has a strength `β`; at a table `T`, bot `i` wins with probability
//! `e^β_i / Σ_{j∈T} e^β_j` (Bradley–Terry at two seats, the first place of
//! Plackett–Luce at more: what BayesElo and Ordo fit to chess games whose
//! pairings are unbalanced). Shared wins count as shares. The `β` are the
//! maximum-likelihood ones (summing to zero, with a faint prior that keeps a bot
//! that never won finite).
//!
//! A bot is reported by the mean score it would get against opponents drawn
//! evenly from the whole field, at the table size played: its expected win
//! share there, in score units (both scorings are a fixed line of the win
//! share). On a balanced schedule (every bot the same games, every set of
//! opponents as often) that is exactly its mean score.
//!
//! The intervals are cluster-robust (a sandwich variance, carried to the
//! reported scores by the delta method): the games of one deal, played once per
//! rotation of the seats under duplicate play, are one cluster, as their results
//! are not independent. Games of separate deals are independent given who sat
//! at the table.
//!
//! Everything the fit needs is kept as exact integer sums per table (the set of
//! entrants that sat at it), so a model merged from parts in any order is the
//! same bit for bit.

use crate::game::MAX_SEATS;
use crate::stats::{Interval, SCALE, Z95};
use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The entrants of a table, sorted, unused slots `u16::MAX`; the member
/// counted alone, or `u8::MAX` for every seat.
type Key = ([u16; MAX_SEATS], u8);

/// What the fit keeps of every game played at one table: of every seat, or
/// of one member's seat only (`focus`, its place among `members`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct TableSums {
    /// The table's entrants, sorted.
    members: Vec<u16>,
    /// Only this member's seat is counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    focus: Option<u8>,
    /// Games played there.
    games: u64,
    /// Per member counted, the sum over games of its win share (1 alone, 1/w
    /// among w winners, 1/k each when nobody won), in units of 1/[`SCALE`].
    y: Vec<i128>,
    /// Per member counted, the sum over deals of (games of the deal) × (the
    /// deal's `y`).
    q: Vec<i128>,
    /// The sum over deals of (games of the deal)².
    w: u128,
    /// Deals complete.
    #[serde(default)]
    deals: u64,
    /// The sum over deals of the deal's `y yᵀ`, upper triangle row by row.
    outer: Vec<i128>,
}

impl TableSums {
    fn new(members: &[u16], focus: Option<u8>) -> TableSums {
        let m = if focus.is_some() { 1 } else { members.len() };
        TableSums {
            members: members.to_vec(),
            focus,
            y: vec![0; m],
            q: vec![0; m],
            outer: vec![0; m * (m + 1) / 2],
            ..TableSums::default()
        }
    }

    fn key(&self) -> Key {
        (key_of(&self.members), self.focus.map_or(u8::MAX, |f| f))
    }
}

/// A deal whose rotations are not all counted yet.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Open {
    key: Vec<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    focus: Option<u8>,
    /// Games of every table of the deal.
    games: u64,
    of: u64,
    /// The first table's total.
    y: Vec<i128>,
    /// The deal's other tables, every seat counted (a pair block deals the
    /// same cards to the pair's two tables).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    more: Vec<Part>,
}

/// One table of a deal played at several.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Part {
    key: Vec<u16>,
    games: u64,
    y: Vec<i128>,
}

/// Of a deal played at two tables `a` and `b` (every seat counted), the sums
/// over such deals that the covariance of their results needs: `yy` the
/// products of their totals (a's member by b's, row by row), `ny` Σ n_a·y_b,
/// `yn` Σ y_a·n_b, `nn` Σ n_a·n_b.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Cross {
    a: Vec<u16>,
    b: Vec<u16>,
    yy: Vec<i128>,
    ny: Vec<i128>,
    yn: Vec<i128>,
    nn: u128,
}

/// The model's sums: add games with [`Model::add`], read it with [`Model::fit`].
///
/// ```
/// use koth_arena::model::{shares, Model};
/// use koth_arena::stats::quantize;
/// use koth_arena::SeatSet;
/// // Two-seat games, zero-sum: 0 beats 1 three times in four, 1 beats 2 as often.
/// let mut m = Model::default();
/// for (i, (a, b)) in [(0, 1), (1, 2)].iter().cycle().take(400).enumerate() {
///     let first_wins = i % 8 >= 2;
///     let seats = [*a, *b];
///     let winner = if first_wins { 0 } else { 1 };
///     let scores = [winner, 1 - winner].map(|w| quantize(if w == 0 { 1.0 } else { -1.0 }));
///     m.add(&seats, &scores, &shares(2, SeatSet::single(winner))[..2], None);
/// }
/// let fit = m.fit(3).unwrap();
/// let s: Vec<f64> = fit.strength.iter().map(|x| x.unwrap()).collect();
/// // 0 never met 2, and is still ranked above it and above 1.
/// assert!(s[0] > s[1] && s[1] > s[2]);
/// let (d, se) = fit.difference(0, 2).unwrap();
/// assert!(d > 4.0 * se);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Model {
    #[serde(with = "tables")]
    tables: BTreeMap<Key, TableSums>,
    /// Deals not complete, by deal number.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    open: BTreeMap<u64, Open>,
    /// Deals complete: the clusters of the variance.
    clusters: u64,
    /// Seats counted (a seat's score in every game), for the level.
    seats: u64,
    /// Their scores' sum, quantized.
    total: i128,
    /// Per table size, how a score follows the win share: Σ (k·score − table
    /// total)(k·share − 1) and Σ (k·share − 1)² over seats, quantized.
    #[serde(default)]
    link: BTreeMap<u8, [i128; 2]>,
    /// Deals played at two tables at once: their covariance sums, by the
    /// two tables' members (the smaller key first).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    cross: Vec<Cross>,
    /// Fit as koth did before the design-based correction and exact field
    /// shares (hills made then keep it, so that their audit still holds).
    #[serde(skip)]
    legacy: Legacy,
}

/// Whether a model fits as koth did before: how it is read, not what it
/// holds (two models of the same games are equal whichever way they fit).
#[derive(Clone, Copy, Debug, Default)]
struct Legacy(bool);

impl PartialEq for Legacy {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// Tables as a list (JSON keys must be strings).
mod tables {
    use super::{Key, TableSums};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::collections::BTreeMap;
    pub fn serialize<S: Serializer>(t: &BTreeMap<Key, TableSums>, s: S) -> Result<S::Ok, S::Error> {
        let list: Vec<&TableSums> = t.values().collect();
        list.serialize(s)
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<BTreeMap<Key, TableSums>, D::Error> {
        let list = Vec::<TableSums>::deserialize(d)?;
        let mut t = BTreeMap::new();
        for ts in list {
            let k = ts.members.len();
            let m = if ts.focus.is_some() { 1 } else { k };
            if k > super::MAX_SEATS
                || ts.focus.is_some_and(|f| f as usize >= k)
                || ts.y.len() != m
                || ts.q.len() != m
                || ts.outer.len() != m * (m + 1) / 2
            {
                return Err(serde::de::Error::custom(
                    "a table of the model is malformed",
                ));
            }
            t.insert(ts.key(), ts);
        }
        Ok(t)
    }
}

fn key_of(members: &[u16]) -> [u16; MAX_SEATS] {
    let mut k = [u16::MAX; MAX_SEATS];
    k[..members.len()].copy_from_slice(members);
    k
}

/// Each seat's win share in units of 1/[`SCALE`]: 1 for the only winner, 1/w
/// for each of w winners, 0 for the others, 1/k each when nobody won.
pub fn shares(seats: usize, winners: crate::game::SeatSet) -> [i64; MAX_SEATS] {
    let mut out = [0; MAX_SEATS];
    let w = winners.len();
    for (s, x) in out.iter_mut().enumerate().take(seats.min(MAX_SEATS)) {
        *x = if w == 0 {
            (SCALE / seats.max(1) as i128) as i64
        } else if winners.contains(s) {
            (SCALE / w as i128) as i64
        } else {
            0
        };
    }
    out
}

/// A deal: its number and how many games (rotations) make it whole. Games that
/// are each their own deal pass `None`.
pub type Deal = Option<(u64, u64)>;

impl Model {
    /// Counts a game: the entrant at each seat, each seat's score and its win
    /// share ([`shares`]), in units of 1/[`SCALE`]. A game that seats one
    /// entrant twice is not counted.
    pub fn add(&mut self, seats: &[usize], scores: &[i64], shares: &[i64], deal: Deal) {
        self.add_at(seats, scores, shares, None, deal);
    }

    /// Counts seat `seat`'s result only: a game played to measure that seat's
    /// entrant, whose opponents were drawn for it (they met it more often than
    /// the field does, and their own results would measure that too).
    pub fn add_seat(
        &mut self,
        seats: &[usize],
        scores: &[i64],
        shares: &[i64],
        seat: usize,
        deal: Deal,
    ) {
        if seat < seats.len() {
            self.add_at(seats, scores, shares, Some(seat), deal);
        }
    }

    fn add_at(
        &mut self,
        seats: &[usize],
        scores: &[i64],
        shares: &[i64],
        only: Option<usize>,
        deal: Deal,
    ) {
        let k = seats.len();
        if !(2..=MAX_SEATS).contains(&k) || scores.len() != k || shares.len() != k {
            return;
        }
        // Members sorted, and each seat's place among them.
        let mut order: [(u16, usize); MAX_SEATS] = [(u16::MAX, 0); MAX_SEATS];
        for (s, &e) in seats.iter().enumerate() {
            let Ok(e) = u16::try_from(e) else { return };
            if e == u16::MAX {
                return;
            }
            order[s] = (e, s);
        }
        order[..k].sort_unstable();
        if order[..k].windows(2).any(|w| w[0].0 == w[1].0) {
            return;
        }
        let total: i128 = scores.iter().map(|&q| q as i128).sum();
        let mut members = [u16::MAX; MAX_SEATS];
        let mut y = [0i128; MAX_SEATS];
        let mut focus = None;
        let link = self.link.entry(k as u8).or_insert([0, 0]);
        for (m, &(e, s)) in order[..k].iter().enumerate() {
            members[m] = e;
            y[m] = shares[s] as i128;
            let h = k as i128 * shares[s] as i128 - SCALE;
            link[0] += (k as i128 * scores[s] as i128 - total) * h;
            link[1] += h * h;
            if only == Some(s) {
                focus = Some(m as u8);
            }
        }
        let y = match focus {
            Some(f) => &y[f as usize..f as usize + 1],
            None => &y[..k],
        };
        self.seats += k as u64;
        self.total += total;
        let key = (members, focus.unwrap_or(u8::MAX));
        let ts = self
            .tables
            .entry(key)
            .or_insert_with(|| TableSums::new(&members[..k], focus));
        ts.games += 1;
        for (a, b) in ts.y.iter_mut().zip(y) {
            *a += b;
        }
        match deal {
            Some((id, of)) if of > 1 => self.add_to_deal(id, of, &key, 1, y),
            _ => self.close(&key, 1, y),
        }
    }

    fn add_to_deal(&mut self, id: u64, of: u64, key: &Key, games: u64, y: &[i128]) {
        let members: Vec<u16> = key
            .0
            .iter()
            .copied()
            .take_while(|&m| m != u16::MAX)
            .collect();
        let focus = (key.1 != u8::MAX).then_some(key.1);
        let open = self.open.entry(id).or_insert_with(|| Open {
            key: members.clone(),
            focus,
            games: 0,
            of,
            y: vec![0; y.len()],
            more: Vec::new(),
        });
        if open.key == members && open.focus == focus {
            for (a, b) in open.y.iter_mut().zip(y) {
                *a += b;
            }
        } else if open.focus.is_none() && focus.is_none() {
            // A deal dealt at more than one table: one cluster all the same.
            match open.more.iter_mut().find(|p| p.key == members) {
                Some(p) => {
                    p.games += games;
                    for (a, b) in p.y.iter_mut().zip(y) {
                        *a += b;
                    }
                }
                None => open.more.push(Part {
                    key: members,
                    games,
                    y: y.to_vec(),
                }),
            }
        } else {
            // A seat counted alone is its own deal.
            self.close(key, games, y);
            return;
        }
        open.games += games;
        if open.games >= open.of {
            let done = self.open.remove(&id).expect("just updated");
            self.close_open(done);
        }
    }

    /// A whole deal, at one table or more.
    fn close_open(&mut self, done: Open) {
        let key = (key_of(&done.key), done.focus.unwrap_or(u8::MAX));
        let first = done.games - done.more.iter().map(|p| p.games).sum::<u64>();
        if done.more.is_empty() {
            self.close(&key, first, &done.y);
            return;
        }
        let mut parts = vec![(done.key, first, done.y)];
        parts.extend(done.more.into_iter().map(|p| (p.key, p.games, p.y)));
        for (members, games, y) in &parts {
            self.close_table(&(key_of(members), u8::MAX), *games, y);
        }
        for x in 0..parts.len() {
            for z in x + 1..parts.len() {
                let (a, b) = if parts[x].0 < parts[z].0 {
                    (&parts[x], &parts[z])
                } else {
                    (&parts[z], &parts[x])
                };
                self.add_cross(a, b);
            }
        }
        self.clusters += 1;
    }

    /// Adds a deal's two tables' products to their [`Cross`] sums.
    fn add_cross(&mut self, a: &(Vec<u16>, u64, Vec<i128>), b: &(Vec<u16>, u64, Vec<i128>)) {
        let at = match self
            .cross
            .binary_search_by(|c| (&c.a, &c.b).cmp(&(&a.0, &b.0)))
        {
            Ok(i) => i,
            Err(i) => {
                self.cross.insert(
                    i,
                    Cross {
                        a: a.0.clone(),
                        b: b.0.clone(),
                        yy: vec![0; a.2.len() * b.2.len()],
                        ny: vec![0; b.2.len()],
                        yn: vec![0; a.2.len()],
                        nn: 0,
                    },
                );
                i
            }
        };
        let c = &mut self.cross[at];
        let (na, nb) = (a.1 as i128, b.1 as i128);
        for (x, ya) in a.2.iter().enumerate() {
            for (z, yb) in b.2.iter().enumerate() {
                c.yy[x * b.2.len() + z] += ya * yb;
            }
            c.yn[x] += ya * nb;
        }
        for (z, yb) in b.2.iter().enumerate() {
            c.ny[z] += na * yb;
        }
        c.nn += (a.1 as u128) * (b.1 as u128);
    }

    /// A whole deal of `games` games at table `key`, with total `y`.
    fn close(&mut self, key: &Key, games: u64, y: &[i128]) {
        if self.close_table(key, games, y) {
            self.clusters += 1;
        }
    }

    /// A deal's games at table `key` into the table's sums; whether the table
    /// is known.
    fn close_table(&mut self, key: &Key, games: u64, y: &[i128]) -> bool {
        let Some(ts) = self.tables.get_mut(key) else {
            return false;
        };
        let k = y.len();
        let g = games as i128;
        for (q, v) in ts.q.iter_mut().zip(y) {
            *q += g * v;
        }
        ts.w += (games as u128) * (games as u128);
        ts.deals += 1;
        let mut at = 0;
        for a in 0..k {
            for b in a..k {
                ts.outer[at] += y[a] * y[b];
                at += 1;
            }
        }
        true
    }

    /// Adds another part's games (of the same entrants): the result does not
    /// depend on the order parts are merged in.
    pub fn merge(&mut self, other: &Model) {
        self.seats += other.seats;
        self.total += other.total;
        self.clusters += other.clusters;
        for (k, l) in &other.link {
            let mine = self.link.entry(*k).or_insert([0, 0]);
            mine[0] += l[0];
            mine[1] += l[1];
        }
        for (key, o) in &other.tables {
            let ts = self
                .tables
                .entry(*key)
                .or_insert_with(|| TableSums::new(&o.members, o.focus));
            ts.games += o.games;
            ts.w += o.w;
            ts.deals += o.deals;
            for (a, b) in ts.y.iter_mut().zip(&o.y) {
                *a += b;
            }
            for (a, b) in ts.q.iter_mut().zip(&o.q) {
                *a += b;
            }
            for (a, b) in ts.outer.iter_mut().zip(&o.outer) {
                *a += b;
            }
        }
        for c in &other.cross {
            let a = (c.a.clone(), 0, vec![0; c.yn.len()]);
            let b = (c.b.clone(), 0, vec![0; c.ny.len()]);
            // An entry of zeros in the right place, then the sums added.
            self.add_cross(&a, &b);
            let i = self
                .cross
                .binary_search_by(|x| (&x.a, &x.b).cmp(&(&c.a, &c.b)))
                .expect("just added");
            let mine = &mut self.cross[i];
            for (x, y) in mine.yy.iter_mut().zip(&c.yy) {
                *x += y;
            }
            for (x, y) in mine.ny.iter_mut().zip(&c.ny) {
                *x += y;
            }
            for (x, y) in mine.yn.iter_mut().zip(&c.yn) {
                *x += y;
            }
            mine.nn += c.nn;
        }
        for (&id, open) in &other.open {
            let key = (key_of(&open.key), open.focus.unwrap_or(u8::MAX));
            let first = open.games - open.more.iter().map(|p| p.games).sum::<u64>();
            self.add_to_deal(id, open.of, &key, first, &open.y);
            for p in &open.more {
                self.add_to_deal(id, open.of, &(key_of(&p.key), u8::MAX), p.games, &p.y);
            }
        }
    }

    /// Fits as koth did before the design-based part and exact field shares
    /// (what a hill made then plans from, so that its audit holds): not kept
    /// with the sums, so whoever keeps a model says it again.
    pub fn set_legacy(&mut self, legacy: bool) {
        self.legacy = Legacy(legacy);
    }

    /// Whether it fits as koth did before ([`Model::set_legacy`]).
    pub fn is_legacy(&self) -> bool {
        self.legacy.0
    }

    /// Games counted.
    pub fn games(&self) -> u64 {
        self.tables.values().map(|t| t.games).sum()
    }

    /// The fit over `n` entrants. Entrants without a game get no strength; with
    /// fewer than two entrants played, fewer than two deals, or a field split in
    /// parts that never met, nothing is fitted (`None`).
    pub fn fit(&self, n: usize) -> Option<Fit> {
        // The entrants that played, numbered densely.
        let mut dense = vec![usize::MAX; n];
        let mut games = vec![0u64; n];
        for ts in self.tables.values() {
            for &m in &ts.members {
                let m = m as usize;
                if m >= n {
                    return None;
                }
                games[m] += ts.games;
            }
        }
        let played: Vec<usize> = (0..n).filter(|&e| games[e] > 0).collect();
        for (i, &e) in played.iter().enumerate() {
            dense[e] = i;
        }
        let f = played.len();
        let g = self.clusters.saturating_sub(self.focus_deals()) as f64;
        if f < 2 || g < 2.0 || !self.joined(&dense, f) {
            return None;
        }
        let scale = SCALE as f64;
        // The tables of every seat counted: members (dense), games, win shares.
        let tables: Vec<(Vec<usize>, &TableSums)> = self
            .tables
            .values()
            .filter(|t| t.focus.is_none())
            .map(|t| (t.members.iter().map(|&m| dense[m as usize]).collect(), t))
            .collect();
        let beta = maximum_likelihood(f, &tables)?;
        // Fisher information (the bread) and the deals' scores (the meat).
        let mut info = DMatrix::<f64>::identity(f, f) * PRIOR;
        let mut meat = DMatrix::<f64>::zeros(f, f);
        let mut pair = DMatrix::<f64>::zeros(f, f);
        for (idx, ts) in &tables {
            let p = win_chances(&beta, idx);
            let n_t = ts.games as f64;
            let k = idx.len();
            let mut at = 0;
            for x in 0..k {
                for z in 0..k {
                    let d = if x == z { p[x] } else { 0.0 };
                    info[(idx[x], idx[z])] += n_t * (d - p[x] * p[z]);
                    pair[(idx[x], idx[z])] += n_t * (f64::from(u8::from(x == z)) - 1.0 / k as f64);
                }
                let q = ts.q.iter().map(|&v| v as f64 / scale).collect::<Vec<_>>();
                for z in x..k {
                    let outer = ts.outer[at] as f64 / (scale * scale);
                    at += 1;
                    let v = outer - q[x] * p[z] - p[x] * q[z] + ts.w as f64 * p[x] * p[z];
                    meat[(idx[x], idx[z])] += v;
                    if x != z {
                        meat[(idx[z], idx[x])] += v;
                    }
                }
            }
        }
        // Deals played at two tables: the covariance of the two tables'
        // results, in the meat.
        let at_table: BTreeMap<&[u16], usize> = tables
            .iter()
            .enumerate()
            .map(|(i, (_, t))| (t.members.as_slice(), i))
            .collect();
        let mut crosses = Vec::new();
        for c in &self.cross {
            let (Some(&ta), Some(&tb)) =
                (at_table.get(c.a.as_slice()), at_table.get(c.b.as_slice()))
            else {
                continue;
            };
            let (ia, ib) = (&tables[ta].0, &tables[tb].0);
            let (pa, pb) = (win_chances(&beta, ia), win_chances(&beta, ib));
            let kb = ib.len();
            let mut m = vec![0.0; ia.len() * kb];
            for x in 0..ia.len() {
                for z in 0..kb {
                    let v = c.yy[x * kb + z] as f64 / (scale * scale)
                        - pb[z] * c.yn[x] as f64 / scale
                        - pa[x] * c.ny[z] as f64 / scale
                        + pa[x] * pb[z] * c.nn as f64;
                    m[x * kb + z] = v;
                    meat[(ia[x], ib[z])] += v;
                    meat[(ib[z], ia[x])] += v;
                }
            }
            crosses.push((ta, tb, m));
        }
        let balanced = {
            let d = pair[(0, 0)];
            let o = pair[(0, 1)];
            let tol = 1e-9 * d.abs().max(1.0);
            (0..f).all(|i| (0..f).all(|j| (pair[(i, j)] - if i == j { d } else { o }).abs() <= tol))
        };
        let bread = bordered_inverse(&info)?;
        meat *= g / (g - 1.0);
        let cov_beta = &bread * &meat * bread.transpose();
        // Reported at the table size most games were played at.
        let k = self.usual_table().clamp(2, f);
        let a = self.slope(k);
        let level = self.total as f64 / scale / self.seats.max(1) as f64;
        let mut strength = vec![None; n];
        let cov = if self.legacy.0 {
            let (share, jac) = sampled_field_shares(&beta, k);
            for (i, &e) in played.iter().enumerate() {
                strength[e] = Some(level + a * (share[i] - 1.0 / k as f64));
            }
            let jac = jac * a;
            &jac * cov_beta * jac.transpose()
        } else {
            let (share, jac) = field_shares(&beta, k);
            let ps = post_stratified(&beta, &tables, &crosses, k, jac, &bread, a, g / (g - 1.0));
            for (i, &e) in played.iter().enumerate() {
                strength[e] = Some(level + a * (share[i] + ps.correction[i] - 1.0 / k as f64));
            }
            ps.cov(&meat)
        };
        let mut cov = cov;
        // Games drawn for one entrant against opponents drawn evenly from the
        // field: its mean score there, less the tables' means, is its strength
        // less the level, whatever the opponents' strengths are. Weighed with
        // the model's estimate by their variances.
        let mut focused = false;
        for (e, (m, v)) in self.focused(n) {
            let i = dense[e];
            if i == usize::MAX || v <= 0.0 {
                continue;
            }
            focused = true;
            let (sm, vm) = (strength[e].unwrap_or(level), cov[(i, i)]);
            let w = if vm > 0.0 {
                (1.0 / vm) / (1.0 / vm + 1.0 / v)
            } else {
                1.0
            };
            strength[e] = Some(w * sm + (1.0 - w) * (level + m));
            for j in 0..f {
                if j != i {
                    cov[(i, j)] *= w;
                    cov[(j, i)] *= w;
                }
            }
            cov[(i, i)] = w * w * vm + (1.0 - w) * (1.0 - w) * v;
        }
        Some(Fit {
            strength,
            dense,
            cov,
            balanced: balanced && !focused,
        })
    }

    /// Whether the `f` entrants played (numbered by `dense`) are one field:
    /// every two linked by tables counted at every seat. Parts that never met
    /// cannot be compared.
    fn joined(&self, dense: &[usize], f: usize) -> bool {
        let mut parent: Vec<usize> = (0..f).collect();
        fn root(parent: &mut [usize], mut x: usize) -> usize {
            while parent[x] != x {
                parent[x] = parent[parent[x]];
                x = parent[x];
            }
            x
        }
        for t in self.tables.values().filter(|t| t.focus.is_none()) {
            let first = root(&mut parent, dense[t.members[0] as usize]);
            for &m in &t.members[1..] {
                let r = root(&mut parent, dense[m as usize]);
                parent[r] = first;
            }
        }
        let top = root(&mut parent, 0);
        (0..f).all(|x| root(&mut parent, x) == top)
    }

    /// The table size most games counted at every seat were played at.
    pub fn usual_table(&self) -> usize {
        let mut by: BTreeMap<usize, u64> = BTreeMap::new();
        for t in self.tables.values().filter(|t| t.focus.is_none()) {
            *by.entry(t.members.len()).or_default() += t.games;
        }
        by.into_iter()
            .max_by_key(|&(k, n)| (n, k))
            .map_or(2, |(k, _)| k)
    }

    /// Score per unit of win share above 1/k at tables of `k` (k/(k−1) for
    /// zero-sum scores, 1 for a shared point), from the games themselves.
    fn slope(&self, k: usize) -> f64 {
        match self.link.get(&(k as u8)) {
            Some(&[sh, hh]) if hh != 0 => sh as f64 / hh as f64,
            _ => 1.0,
        }
    }
}

/// The prior's weight: as if each bot had played a thousandth of a game
/// against a bot of strength 0. Keeps a bot that never won (or never lost)
/// finite, and moves nothing else measurably.
const PRIOR: f64 = 1e-3;

/// Each member's chance to win at a table of `idx`, for strengths `beta`.
fn win_chances(beta: &nalgebra::DVector<f64>, idx: &[usize]) -> Vec<f64> {
    let top = idx
        .iter()
        .map(|&i| beta[i])
        .fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = idx.iter().map(|&i| (beta[i] - top).exp()).collect();
    let sum: f64 = e.iter().sum();
    e.iter().map(|x| x / sum).collect()
}

/// The inverse of `[m 1; 1ᵀ 0]`, top-left block: solves `m x = v` with
/// Σx = 0 for v summing to zero. `None` when singular (a split field).
fn bordered_inverse(m: &DMatrix<f64>) -> Option<DMatrix<f64>> {
    let f = m.nrows();
    let mut border = DMatrix::<f64>::zeros(f + 1, f + 1);
    border.view_mut((0, 0), (f, f)).copy_from(m);
    for i in 0..f {
        border[(i, f)] = 1.0;
        border[(f, i)] = 1.0;
    }
    let inverse = border.lu().try_inverse()?;
    let h = inverse.view((0, 0), (f, f)).into_owned();
    h.iter().all(|x| x.is_finite()).then_some(h)
}

/// The maximum-likelihood strengths (Newton's method, Σβ = 0).
fn maximum_likelihood(
    f: usize,
    tables: &[(Vec<usize>, &TableSums)],
) -> Option<nalgebra::DVector<f64>> {
    let scale = SCALE as f64;
    let mut beta = nalgebra::DVector::<f64>::zeros(f);
    let loglik = |beta: &nalgebra::DVector<f64>| -> f64 {
        let mut ll = -0.5 * PRIOR * beta.norm_squared();
        for (idx, ts) in tables {
            let p = win_chances(beta, idx);
            for (x, &w) in ts.y.iter().enumerate() {
                ll += w as f64 / scale * p[x].max(1e-300).ln();
            }
        }
        ll
    };
    let mut ll = loglik(&beta);
    for _ in 0..100 {
        let mut grad = -&beta * PRIOR;
        let mut info = DMatrix::<f64>::identity(f, f) * PRIOR;
        for (idx, ts) in tables {
            let p = win_chances(&beta, idx);
            let n_t = ts.games as f64;
            for x in 0..idx.len() {
                grad[idx[x]] += ts.y[x] as f64 / scale - n_t * p[x];
                for z in 0..idx.len() {
                    let d = if x == z { p[x] } else { 0.0 };
                    info[(idx[x], idx[z])] += n_t * (d - p[x] * p[z]);
                }
            }
        }
        let step = bordered_inverse(&info)? * grad;
        let mut t = 1.0;
        loop {
            let next = &beta + &step * t;
            let l = loglik(&next);
            if l >= ll - 1e-12 * ll.abs() || t < 1e-6 {
                beta = next;
                ll = l;
                break;
            }
            t /= 2.0;
        }
        if step.amax() * t < 1e-10 {
            break;
        }
    }
    beta.iter().all(|x| x.is_finite()).then_some(beta)
}

/// Each entrant's expected win share against `k − 1` opponents drawn evenly
/// from the others, and its derivatives by every strength (`jac[(i, j)]` is
/// ∂share_i/∂β_j), exact at any size of field.
///
/// With `w = e^β`, `w_i / (w_i + W_S) = ∫₀^∞ w_i e^{−t w_i} Π_{j∈S} e^{−t w_j} dt`,
/// and the mean of the product over every set `S` of `k − 1` others is the
/// elementary symmetric polynomial `e_{k−1}` of the `e^{−t w_j}` over
/// `C(f − 1, k − 1)`. The integral is taken by the trapezoid rule in `s =
/// ln t`: there every set's integrand is one bump of the same shape, shifted,
/// so a fixed step is exact to about 1e−12 however far apart the strengths
/// are (Gauss–Laguerre, in `t`, loses digits once the rates differ much from 1).
fn field_shares(beta: &nalgebra::DVector<f64>, k: usize) -> (Vec<f64>, DMatrix<f64>) {
    let f = beta.len();
    let k = k.clamp(2, f.max(2));
    let mut share = vec![0.0; f];
    let mut jac = DMatrix::<f64>::zeros(f, f);
    if f < 2 {
        return (share, jac);
    }
    let m = k - 1;
    let top = beta.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let w: Vec<f64> = beta.iter().map(|b| (b - top).exp()).collect();
    let sets = binomial_f64(f - 1, m);
    // Elementary symmetric polynomials of the others' z, up to degree m, of
    // every prefix and every suffix (to leave one out).
    let mut pre = vec![0.0; f * (m + 1)];
    let mut suf = vec![0.0; (f + 1) * (m + 1)];
    let mut z = vec![0.0; f - 1];
    let mut others = vec![0usize; f - 1];
    let mut ow = vec![0.0; f - 1];
    for i in 0..f {
        for (o, j) in (0..f).filter(|&j| j != i).enumerate() {
            others[o] = j;
            ow[o] = w[j];
        }
        let mut sorted = ow.clone();
        sorted.sort_by(|a, b| b.total_cmp(a));
        let most = w[i] + sorted[..m].iter().sum::<f64>();
        let least = w[i] + sorted[f - 1 - m..].iter().sum::<f64>();
        // Every bump lies between these, with tails below e^-26 outside.
        let (lo, hi) = (-most.ln() - 27.0, -least.ln() + 4.0);
        let nodes = ((hi - lo) / QUADRATURE_STEP).ceil().max(1.0) as usize;
        let h = (hi - lo) / nodes as f64;
        let mut acc = 0.0;
        let mut row = vec![0.0; f - 1];
        for node in 0..=nodes {
            let t = (lo + node as f64 * h).exp();
            for (zj, &wj) in z.iter_mut().zip(&ow) {
                *zj = (-t * wj).exp();
            }
            // pre[a][r]: e_r of z[..a]; suf[a][r]: e_r of z[a..].
            let n1 = f - 1;
            pre[..m + 1].fill(0.0);
            pre[0] = 1.0;
            for a in 0..n1 {
                let (done, next) = pre.split_at_mut((a + 1) * (m + 1));
                let prev = &done[a * (m + 1)..];
                next[0] = 1.0;
                for r in 1..=m {
                    next[r] = prev[r] + z[a] * prev[r - 1];
                }
            }
            suf[n1 * (m + 1)..(n1 + 1) * (m + 1)].fill(0.0);
            suf[n1 * (m + 1)] = 1.0;
            for a in (0..n1).rev() {
                let (head, tail) = suf.split_at_mut((a + 1) * (m + 1));
                let next = &tail[..m + 1];
                let cur = &mut head[a * (m + 1)..];
                cur[0] = 1.0;
                for r in 1..=m {
                    cur[r] = next[r] + z[a] * next[r - 1];
                }
            }
            let all = pre[n1 * (m + 1) + m];
            // The trapezoid's weight, with dt = t ds.
            let base = h * w[i] * t * (-t * w[i]).exp();
            acc += base * all;
            for a in 0..n1 {
                // e_{m−1} of every z but z[a].
                let mut loo = 0.0;
                for r in 0..m {
                    loo += pre[a * (m + 1) + r] * suf[(a + 1) * (m + 1) + (m - 1 - r)];
                }
                row[a] -= base * t * ow[a] * z[a] * loo;
            }
        }
        share[i] = acc / sets;
        let mut own = 0.0;
        for (a, &j) in others.iter().enumerate() {
            jac[(i, j)] = row[a] / sets;
            own -= row[a] / sets;
        }
        // Shares do not move when every strength moves alike.
        jac[(i, i)] = own;
    }
    (share, jac)
}

/// The step of [`field_shares`]' quadrature, in `ln t`.
const QUADRATURE_STEP: f64 = 0.25;

/// n choose r, as a float.
fn binomial_f64(n: usize, r: usize) -> f64 {
    let mut c = 1.0;
    for x in 0..r.min(n) {
        c = c * (n - x) as f64 / (x as f64 + 1.0);
    }
    c
}

/// The design-based part of the strengths: at every set of opponents the
/// games observed, an entrant's mean win share there less what the model
/// says, weighted by the chance of that set in an even draw from the field.
///
/// Added to the model's field share, it makes the strength the post-
/// stratified mean over the sets observed, with the model filling in only
/// the sets never observed. So a field the model does not fit (a bot that
/// beats one kind of opponent more than its strength says, a copy that joins
/// late) moves no strength away from what the entrant scores against the
/// current field, whenever its games have covered the field's sets; and how
/// often a block drew a set (a pair block draws the pair together often)
/// changes nothing but the variance.
struct PostStratified {
    /// Per entrant (dense), the correction in win-share units.
    correction: Vec<f64>,
    /// slope × (∂strength/∂β, less the observed sets') × bread.
    a: DMatrix<f64>,
    /// Cross terms of the model's and the direct part's variance.
    h: DMatrix<f64>,
    /// The direct part's own variance.
    dd: DMatrix<f64>,
}

impl PostStratified {
    /// The strengths' covariance, given the model's meat.
    fn cov(&self, meat: &DMatrix<f64>) -> DMatrix<f64> {
        let ah = &self.a * &self.h;
        &self.a * meat * self.a.transpose() + &ah + ah.transpose() + &self.dd
    }
}

/// See [`PostStratified`]: `jac` is the field shares' Jacobian, `slope`
/// the score per unit of win share, `factor` the small-sample factor of the
/// meat.
#[allow(clippy::too_many_arguments)]
fn post_stratified(
    beta: &nalgebra::DVector<f64>,
    tables: &[(Vec<usize>, &TableSums)],
    crosses: &[(usize, usize, Vec<f64>)],
    k: usize,
    jac: DMatrix<f64>,
    bread: &DMatrix<f64>,
    slope: f64,
    factor: f64,
) -> PostStratified {
    let f = beta.len();
    let scale = SCALE as f64;
    let chance = 1.0 / binomial_f64(f - 1, k - 1);
    let mut correction = vec![0.0; f];
    let mut g = jac;
    let mut h = DMatrix::<f64>::zeros(f, f);
    let mut dd = DMatrix::<f64>::zeros(f, f);
    for (idx, ts) in tables.iter().filter(|(idx, _)| idx.len() == k) {
        let p = win_chances(beta, idx);
        let n_t = ts.games as f64;
        if n_t == 0.0 {
            continue;
        }
        // Each member's weight per unit of win share summed over the games.
        let d = chance / n_t;
        for x in 0..k {
            correction[idx[x]] += d * (ts.y[x] as f64 / scale) - chance * p[x];
            for z in 0..k {
                let dp = p[x] * (f64::from(u8::from(x == z)) - p[z]);
                g[(idx[x], idx[z])] -= chance * dp;
            }
        }
        // The table's meat, M[x][z] = Σ over deals of r_x r_z.
        let q: Vec<f64> = ts.q.iter().map(|&v| v as f64 / scale).collect();
        let mut meat = [[0.0; MAX_SEATS]; MAX_SEATS];
        let mut at = 0;
        for x in 0..k {
            for z in x..k {
                let outer = ts.outer[at] as f64 / (scale * scale);
                at += 1;
                let v = outer - q[x] * p[z] - p[x] * q[z] + ts.w as f64 * p[x] * p[z];
                meat[x][z] = v;
                meat[z][x] = v;
            }
        }
        let dd_t = slope * d * factor.sqrt();
        for x in 0..k {
            for z in 0..k {
                // Column z: the direct part of member z's strength.
                h[(idx[x], idx[z])] += meat[x][z] * slope * d * factor;
                dd[(idx[x], idx[z])] += dd_t * dd_t * meat[x][z];
            }
        }
    }
    // A deal at two tables: each table's direct part against the other's
    // results (members of one deal sit at both: the pair's opponents).
    let direct = |t: usize| {
        let (idx, ts) = &tables[t];
        if idx.len() == k && ts.games > 0 {
            slope * chance / ts.games as f64
        } else {
            0.0
        }
    };
    for (ta, tb, m) in crosses {
        let (ia, ib) = (&tables[*ta].0, &tables[*tb].0);
        let (da, db) = (direct(*ta), direct(*tb));
        let kb = ib.len();
        for x in 0..ia.len() {
            for z in 0..kb {
                let v = m[x * kb + z] * factor;
                h[(ia[x], ib[z])] += v * db;
                h[(ib[z], ia[x])] += v * da;
                dd[(ia[x], ib[z])] += v * da * db;
                dd[(ib[z], ia[x])] += v * da * db;
            }
        }
    }
    PostStratified {
        correction,
        a: g * bread * slope,
        h,
        dd,
    }
}

/// What hills made before [`field_shares`] use (their audit plans from it):
/// each entrant's expected win share against `k − 1` opponents drawn evenly
/// from the others, and its derivatives by every strength: every set of
/// opponents when there are at most 20,000, else 20,000 drawn (from a fixed
/// seed: the same fit every time).
fn sampled_field_shares(beta: &nalgebra::DVector<f64>, k: usize) -> (Vec<f64>, DMatrix<f64>) {
    let f = beta.len();
    let k = k.clamp(2, f);
    let mut share = vec![0.0; f];
    let mut jac = DMatrix::<f64>::zeros(f, f);
    let others: Vec<usize> = (0..f).collect();
    let sets = binomial(f - 1, k - 1);
    let mut rng = crate::rng::Rng::new(0x6b6f_7468_6669_7421);
    for i in 0..f {
        let rest: Vec<usize> = others.iter().copied().filter(|&j| j != i).collect();
        let mut add = |opp: &[usize]| {
            let mut idx = vec![i];
            idx.extend_from_slice(opp);
            let p = win_chances(beta, &idx);
            share[i] += p[0];
            for (x, &j) in idx.iter().enumerate() {
                let d = if x == 0 { p[0] } else { 0.0 };
                jac[(i, j)] += d - p[0] * p[x];
            }
        };
        let count = if sets <= 20_000 {
            let mut pick: Vec<usize> = (0..k - 1).collect();
            let mut opp = vec![0; k - 1];
            loop {
                for (o, &p) in opp.iter_mut().zip(&pick) {
                    *o = rest[p];
                }
                add(&opp);
                // The next combination, in lexicographic order.
                let mut x = k - 1;
                while x > 0 && pick[x - 1] == rest.len() - (k - 1) + (x - 1) {
                    x -= 1;
                }
                if x == 0 {
                    break;
                }
                pick[x - 1] += 1;
                for y in x..k - 1 {
                    pick[y] = pick[y - 1] + 1;
                }
            }
            sets as f64
        } else {
            let mut pool = rest.clone();
            for _ in 0..20_000 {
                for x in 0..k - 1 {
                    let y = x + crate::rng::Random::index(&mut rng, pool.len() - x);
                    pool.swap(x, y);
                }
                add(&pool[..k - 1]);
            }
            20_000.0
        };
        share[i] /= count;
        for j in 0..f {
            jac[(i, j)] /= count;
        }
    }
    (share, jac)
}

/// n choose r, saturating.
fn binomial(n: usize, r: usize) -> u64 {
    let mut c: u64 = 1;
    for x in 0..r.min(n) {
        c = c.saturating_mul((n - x) as u64) / (x as u64 + 1);
    }
    c
}

impl Model {
    /// Deals of games that count one seat.
    fn focus_deals(&self) -> u64 {
        self.tables
            .values()
            .filter(|t| t.focus.is_some())
            .map(|t| t.deals)
            .sum()
    }

    /// Per entrant with games counted at its seat alone: the mean of its
    /// score less the table's mean over those games, and that mean's variance
    /// (over their deals).
    fn focused(&self, n: usize) -> Vec<(usize, (f64, f64))> {
        let scale = SCALE as f64;
        // Per entrant: games, Σ s', deals, Σ Y²/k², Σ n·Y/k, Σ n².
        let mut acc: BTreeMap<usize, [f64; 6]> = BTreeMap::new();
        for ts in self.tables.values() {
            let Some(f) = ts.focus else { continue };
            let e = ts.members[f as usize] as usize;
            if e >= n {
                continue;
            }
            // Score above the table's mean = slope × (share − 1/k).
            let k = ts.members.len();
            let (slope, base) = (self.slope(k), 1.0 / k as f64);
            let a = acc.entry(e).or_insert([0.0; 6]);
            let n_t = ts.games as f64;
            let share = ts.y[0] as f64 / scale;
            let q = ts.q[0] as f64 / scale;
            let outer = ts.outer[0] as f64 / (scale * scale);
            a[0] += n_t;
            a[1] += slope * (share - base * n_t);
            a[2] += ts.deals as f64;
            // Σ over deals of (slope (Y − n/k))², Σ n·slope (Y − n/k), Σ n².
            a[3] += slope * slope * (outer - 2.0 * base * q + base * base * ts.w as f64);
            a[4] += slope * (q - base * ts.w as f64);
            a[5] += ts.w as f64;
        }
        acc.into_iter()
            .filter(|(_, a)| a[0] > 0.0 && a[2] >= 2.0)
            .map(|(e, a)| {
                let mu = a[1] / a[0];
                let ss = (a[3] - 2.0 * mu * a[4] + mu * mu * a[5]).max(0.0);
                let v = ss / (a[0] * a[0]) * a[2] / (a[2] - 1.0);
                (e, (mu, v))
            })
            .collect()
    }
}

/// A fitted model: each entrant's strength (the mean score it would get against
/// opponents drawn evenly from the field) and their covariance.
#[derive(Clone, Debug)]
pub struct Fit {
    /// Per entrant, its strength; `None` for an entrant without a game.
    pub strength: Vec<Option<f64>>,
    dense: Vec<usize>,
    cov: DMatrix<f64>,
    /// Every entrant played as many games and every pair met as often: the
    /// strengths are then the mean scores.
    pub balanced: bool,
}

impl Fit {
    /// The standard error of entrant `e`'s strength.
    pub fn se(&self, e: usize) -> Option<f64> {
        let i = *self.dense.get(e).filter(|&&i| i != usize::MAX)?;
        Some(self.cov[(i, i)].max(0.0).sqrt())
    }

    /// Entrant `a`'s strength less entrant `b`'s, and its standard error.
    pub fn difference(&self, a: usize, b: usize) -> Option<(f64, f64)> {
        let i = *self.dense.get(a).filter(|&&i| i != usize::MAX)?;
        let j = *self.dense.get(b).filter(|&&j| j != usize::MAX)?;
        let d = self.strength[a]? - self.strength[b]?;
        let v = self.cov[(i, i)] + self.cov[(j, j)] - 2.0 * self.cov[(i, j)];
        Some((d, v.max(0.0).sqrt()))
    }
}

/// The 95% interval of a strength `x` with standard error `se` from `games`
/// games, with scores in `[lo, hi]`: never narrower than an interval of `games`
/// games that all scored alike would be (the sandwich reads those as certain),
/// and kept within the range.
pub fn interval(x: f64, se: f64, games: u64, lo: f64, hi: f64) -> Interval {
    let z2 = Z95 * Z95;
    let floor = (hi - lo) * z2 / (std::f64::consts::SQRT_2 * (games as f64 + z2));
    let h = (Z95 * se).max(floor);
    Interval {
        low: (x - h).max(lo),
        high: (x + h).min(hi),
    }
}

/// The least standard error of a difference between two entrants with `a`
/// and `b` games, scores in a range of width `range`: the floor of
/// [`interval`] for each, combined, so that a difference is never surer than
/// the two intervals it is made of could be.
pub fn difference_floor(a: u64, b: u64, range: f64) -> f64 {
    let z2 = Z95 * Z95;
    let one = |n: u64| range * Z95 / (std::f64::consts::SQRT_2 * (n as f64 + z2));
    (one(a).powi(2) + one(b).powi(2)).sqrt()
}

/// The false-settled rate a hill allows: the chance that two equal bots are
/// ever told apart, however often it looks.
pub const ALPHA: f64 = 0.05;

/// How many standard errors a difference must clear to be settled when the
/// standings are looked at again and again (a hill looks after every block).
///
/// A fixed 95% test looked at after every block is bound to pass at some look,
/// even for two copies of one bot. This is the normal-mixture boundary of
/// Robbins, a confidence sequence: the chance that a difference of zero ever
/// clears it, at any look, is at most [`ALPHA`] (for normal estimates). It is
/// tightest when the standard error is near a hundredth of the score range
/// `range`, and grows slowly (as `√log`) beyond.
pub fn anytime_z(se: f64, range: f64) -> f64 {
    if se <= 0.0 || range <= 0.0 {
        return f64::INFINITY;
    }
    let rho = (100.0 / range).powi(2);
    let r = rho * se * se;
    ((1.0 + r) * ((1.0 + 1.0 / r) / (ALPHA * ALPHA)).ln()).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::SeatSet;
    use crate::rng::{Random, Rng};
    use crate::stats::quantize;

    /// One simulated game: the winner drawn by the model's chances for
    /// strengths `beta`, zero-sum scores. Its scores and shares, quantized.
    fn game(rng: &mut Rng, beta: &[f64], seats: &[usize]) -> (Vec<i64>, Vec<i64>) {
        game_with(rng, &|e, _| beta[e].exp(), seats)
    }

    /// The mean of `d` and its sample variance.
    fn mean_var(d: &[f64]) -> (f64, f64) {
        let mean = d.iter().sum::<f64>() / d.len() as f64;
        let var = d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (d.len() - 1) as f64;
        (mean, var)
    }

    fn means(played: &[(Vec<usize>, Vec<i64>)], n: usize) -> Vec<f64> {
        let mut sum = vec![0.0; n];
        let mut count = vec![0.0; n];
        for (seats, q) in played {
            for (s, &e) in seats.iter().enumerate() {
                sum[e] += q[s] as f64 / SCALE as f64;
                count[e] += 1.0;
            }
        }
        sum.iter().zip(&count).map(|(s, c)| s / c).collect()
    }

    #[test]
    fn a_balanced_round_robin_gives_the_means() {
        let beta = [0.8, 0.2, 0.0, -1.0];
        let mut rng = Rng::new(5);
        let mut m = Model::default();
        let mut played = Vec::new();
        for _ in 0..50 {
            for a in 0..4 {
                for b in 0..4 {
                    if a != b {
                        let seats = vec![a, b];
                        let (q, sh) = game(&mut rng, &beta, &seats);
                        m.add(&seats, &q, &sh, None);
                        played.push((seats, q));
                    }
                }
            }
        }
        let fit = m.fit(4).unwrap();
        assert!(fit.balanced);
        for (e, mean) in means(&played, 4).into_iter().enumerate() {
            let x = fit.strength[e].unwrap();
            assert!((x - mean).abs() < 1e-4, "{e}: {x} against {mean}");
        }
    }

    #[test]
    fn opponents_met_are_taken_out() {
        // 0 is the champion. 1 and 2 are equal; 1 meets 0 in most games, 2
        // almost never. Their means differ by far more than their intervals;
        // their strengths do not.
        let beta = [1.5, 0.0, 0.0, -0.5, -0.5, -0.5];
        let mut rng = Rng::new(9);
        let mut m = Model::default();
        let mut played = Vec::new();
        for i in 0..20_000 {
            let w = 3 + rng.index(3);
            let w2 = 3 + (w - 3 + 1 + rng.index(2)) % 3;
            let seats = match i % 50 {
                0 => vec![2, 0, w],
                1 => vec![1, w, w2],
                _ if i % 2 == 0 => vec![1, 0, w],
                _ => vec![2, w, w2],
            };
            let (q, sh) = game(&mut rng, &beta, &seats);
            m.add(&seats, &q, &sh, None);
            played.push((seats, q));
        }
        let mean = means(&played, 6);
        let fit = m.fit(6).unwrap();
        assert!(!fit.balanced);
        let s = |e: usize| fit.strength[e].unwrap();
        assert!(mean[2] - mean[1] > 0.2, "means {mean:?}");
        let (d, se) = fit.difference(1, 2).unwrap();
        assert!(d.abs() < 3.0 * se, "{d} ± {se}");
        assert!(s(0) > s(1) && s(1) > s(3), "{:?}", fit.strength);
    }

    #[test]
    fn merged_in_any_order_is_the_same() {
        let beta = [0.5, 0.0, -0.3, -0.3, 0.1];
        let mut rng = Rng::new(3);
        let mut whole = Model::default();
        let mut parts = [Model::default(), Model::default(), Model::default()];
        let mut table: Vec<usize> = Vec::new();
        for i in 0..3000u64 {
            // Deals of three rotations, at one table.
            let deal = i / 3;
            if i % 3 == 0 {
                table = (0..5).collect();
                rng.shuffle(&mut table);
                table.truncate(3);
            }
            let mut seats = table.clone();
            seats.rotate_left((i % 3) as usize);
            let (q, sh) = game(&mut rng, &beta, &seats);
            whole.add(&seats, &q, &sh, Some((deal, 3)));
            parts[(i % 3) as usize].add(&seats, &q, &sh, Some((deal, 3)));
        }
        let mut a = parts[2].clone();
        a.merge(&parts[0]);
        a.merge(&parts[1]);
        assert_eq!(a, whole);
        let json = serde_json::to_string(&whole).unwrap();
        assert_eq!(serde_json::from_str::<Model>(&json).unwrap(), whole);
    }

    #[test]
    fn no_fit_without_two_deals_or_a_joined_field() {
        let win = |s: usize| shares(2, SeatSet::single(s))[..2].to_vec();
        let one = quantize(1.0);
        let mut m = Model::default();
        assert!(m.fit(2).is_none());
        m.add(&[0, 1], &[one, -one], &win(0), None);
        assert!(m.fit(2).is_none());
        m.add(&[1, 0], &[one, -one], &win(0), None);
        assert!(m.fit(2).is_some());
        // 2 and 3 never met 0 or 1.
        m.add(&[2, 3], &[one, -one], &win(0), None);
        m.add(&[3, 2], &[-one, one], &win(1), None);
        assert!(m.fit(4).is_none());
        // One entrant twice at a table is not counted.
        let before = m.clone();
        m.add(&[0, 0], &[one, -one], &win(0), None);
        assert_eq!(m, before);
    }

    #[test]
    fn the_standard_errors_match_the_spread_of_estimates() {
        // The same unbalanced design played 300 times over: the spread of the
        // estimated differences is what the sandwich says, to within 15%.
        let beta = [0.6, 0.0, 0.0, -0.3, -0.3];
        let mut rng = Rng::new(21);
        let (mut d, mut se2) = (Vec::new(), 0.0);
        for _ in 0..300 {
            let mut m = Model::default();
            for i in 0..900u64 {
                let deal = i / 3;
                let table = if deal % 3 == 0 { [1, 0, 3] } else { [2, 3, 4] };
                let mut seats = table.to_vec();
                seats.rotate_left((i % 3) as usize);
                let (q, sh) = game(&mut rng, &beta, &seats);
                m.add(&seats, &q, &sh, Some((deal, 3)));
            }
            let (x, se) = m.fit(5).unwrap().difference(1, 2).unwrap();
            d.push(x);
            se2 += se * se / 300.0;
        }
        let (mean, var) = mean_var(&d);
        let ratio = (var / se2).sqrt();
        assert!((0.85..1.15).contains(&ratio), "spread / se = {ratio}");
        assert!(mean.abs() < 3.0 * (var / 300.0).sqrt(), "biased: {mean}");
    }

    #[test]
    fn a_seat_counted_alone_measures_its_entrant_only() {
        // Field games among all five, and games drawn for 0 alone in which 4
        // beats 0 far more often than their strengths say (an interaction).
        // Counted at 0's seat only, those games move no one else's strength.
        let beta = [0.4, 0.2, 0.0, -0.2, -0.4];
        let mut rng = Rng::new(17);
        let (mut field, mut both) = (Model::default(), Model::default());
        for _ in 0..6000 {
            let mut seats: Vec<usize> = (0..5).collect();
            rng.shuffle(&mut seats);
            seats.truncate(3);
            let (q, sh) = game(&mut rng, &beta, &seats);
            field.add(&seats, &q, &sh, None);
            both.add(&seats, &q, &sh, None);
        }
        let mut feeds = beta;
        feeds[4] = 1.5;
        for _ in 0..6000 {
            let mut others: Vec<usize> = (1..5).collect();
            rng.shuffle(&mut others);
            let seats = vec![0, others[0], others[1]];
            let (q, sh) = game(&mut rng, &feeds, &seats);
            both.add_seat(&seats, &q, &sh, 0, None);
        }
        let (f, b) = (field.fit(5).unwrap(), both.fit(5).unwrap());
        for e in 1..5 {
            let (x, y) = (f.strength[e].unwrap(), b.strength[e].unwrap());
            assert!((x - y).abs() < 1e-9, "{e}: {x} {y}");
        }
        // 0's own games count for it: a narrower interval, and a lower
        // strength, as 0 scores less against a field in which 4 feeds on it.
        assert!(b.se(0).unwrap() < f.se(0).unwrap());
        let lower = f.strength[0].unwrap() - b.strength[0].unwrap();
        assert!(lower > 0.05, "{lower}");
    }

    #[test]
    fn exact_field_shares_match_enumeration() {
        let mut rng = Rng::new(41);
        for (f, spread) in [(3, 1.0), (5, 3.0), (8, 0.2), (9, 6.0), (12, 2.0), (12, 8.0)] {
            let beta = nalgebra::DVector::from_iterator(
                f,
                (0..f).map(|_| (rng.index(2_000_001) as f64 / 1e6 - 1.0) * spread),
            );
            for k in 2..=f.min(6) {
                // At most 462 sets: the sampled function enumerates them all.
                let (want, want_jac) = sampled_field_shares(&beta, k);
                let (got, got_jac) = field_shares(&beta, k);
                for i in 0..f {
                    assert!((want[i] - got[i]).abs() < 1e-9, "f {f} k {k} share {i}");
                    for j in 0..f {
                        let (a, b) = (want_jac[(i, j)], got_jac[(i, j)]);
                        assert!((a - b).abs() < 1e-9, "f {f} k {k} ∂{i}/∂{j}: {a} {b}");
                    }
                }
                // Shares of a table sum to one: averaged over the field, 1/k.
                let mean = got.iter().sum::<f64>() / f as f64;
                assert!((mean - 1.0 / k as f64).abs() < 1e-9, "f {f} k {k}: {mean}");
            }
        }
        // Too many sets to enumerate (C(59, 5) ≈ 5 million): the same answer
        // as a finite difference of the shares themselves.
        let beta = nalgebra::DVector::from_iterator(60, (0..60).map(|i| (i as f64 - 30.0) / 10.0));
        let (s0, jac) = field_shares(&beta, 6);
        let mean = s0.iter().sum::<f64>() / 60.0;
        assert!((mean - 1.0 / 6.0).abs() < 1e-9, "{mean}");
        for j in [0, 17, 59] {
            let mut up = beta.clone();
            up[j] += 1e-5;
            let (s1, _) = field_shares(&up, 6);
            for i in [0, 17, 30, 59] {
                let fd = (s1[i] - s0[i]) / 1e-5;
                assert!(
                    (fd - jac[(i, j)]).abs() < 1e-5,
                    "∂{i}/∂{j}: {fd} {}",
                    jac[(i, j)]
                );
            }
        }
    }

    /// A game whose winner is drawn with weights `e^(β + interaction)`: a
    /// field the model does not fit.
    fn game_with(
        rng: &mut Rng,
        weight: &dyn Fn(usize, &[usize]) -> f64,
        seats: &[usize],
    ) -> (Vec<i64>, Vec<i64>) {
        let k = seats.len();
        let w: Vec<f64> = seats.iter().map(|&e| weight(e, seats)).collect();
        let winner = winner_of(&w, rng.index(1_000_000) as f64 / 1e6);
        let scores = (0..k)
            .map(|s| {
                quantize(if s == winner {
                    1.0
                } else {
                    -1.0 / (k as f64 - 1.0)
                })
            })
            .collect();
        (scores, shares(k, SeatSet::single(winner))[..k].to_vec())
    }

    /// Entrants 1 and 2 are copies; 4 beats 0 far more than their strengths
    /// say. A third of the games are 1 with 0 and 4 (as a pair block draws a
    /// pair together), the rest drawn evenly from the field. The model alone reads the copies
    /// apart; with the design-based part they tie, and the one with 4 and 0
    /// scores what it scores against the field.
    #[test]
    fn a_field_the_model_does_not_fit_is_measured_as_played() {
        let beta: [f64; 6] = [0.3, 0.0, 0.0, -0.2, 0.1, -0.3];
        let weight = |e: usize, seats: &[usize]| {
            let boost = if e == 4 && seats.contains(&0) {
                2.5
            } else {
                0.0
            };
            (beta[e] + boost).exp()
        };
        // The truth: win chance against every set of two others, evenly.
        let truth = |i: usize| {
            let others: Vec<usize> = (0..6).filter(|&j| j != i).collect();
            let mut sum = 0.0;
            let mut sets = 0.0;
            for a in 0..others.len() {
                for b in a + 1..others.len() {
                    let seats = [i, others[a], others[b]];
                    let w: Vec<f64> = seats.iter().map(|&e| weight(e, &seats)).collect();
                    sum += w[0] / w.iter().sum::<f64>();
                    sets += 1.0;
                }
            }
            (3.0 * sum / sets - 1.0) / 2.0
        };
        let mut rng = Rng::new(77);
        let mut m = Model::default();
        for i in 0..60_000u64 {
            let mut seats: Vec<usize> = match i % 6 {
                0 | 1 => vec![1, 0, 4],
                _ => {
                    // Three of the six drawn evenly (a field block).
                    let mut s: Vec<usize> = (0..6).collect();
                    rng.shuffle(&mut s);
                    s.truncate(3);
                    s
                }
            };
            rng.shuffle(&mut seats);
            let (q, sh) = game_with(&mut rng, &weight, &seats);
            m.add(&seats, &q, &sh, None);
        }
        let fit = m.fit(6).unwrap();
        let (d, se) = fit.difference(1, 2).unwrap();
        let mut legacy = m.clone();
        legacy.set_legacy(true);
        let old = legacy.fit(6).unwrap();
        let (d_old, se_old) = old.difference(1, 2).unwrap();
        eprintln!("copies 1 − 2: {d:+.4} ± {se:.4}; the model alone: {d_old:+.4} ± {se_old:.4}");
        assert!(d.abs() < 3.0 * se, "{d} ± {se}");
        assert!(
            d_old.abs() > 5.0 * se_old,
            "the field fits the model: {d_old} ± {se_old}"
        );
        for e in 0..6 {
            let (x, t, sd) = (fit.strength[e].unwrap(), truth(e), fit.se(e).unwrap());
            assert!(
                (x - t).abs() < 3.5 * sd,
                "{e}: {x:+.4} against {t:+.4} ± {sd:.4}"
            );
        }
    }

    #[test]
    fn the_design_based_errors_match_the_spread_of_estimates() {
        // The same unbalanced, misfit design played 300 times over.
        let beta: [f64; 5] = [0.4, 0.0, 0.0, -0.3, 0.2];
        let weight = |e: usize, seats: &[usize]| {
            let boost = if e == 3 && seats.contains(&0) {
                1.5
            } else {
                0.0
            };
            (beta[e] + boost).exp()
        };
        let mut rng = Rng::new(23);
        let (mut d, mut se2) = (Vec::new(), 0.0);
        for _ in 0..300 {
            let mut m = Model::default();
            for i in 0..1200u64 {
                let deal = i / 3;
                let table = match deal % 4 {
                    0 => [1, 0, 3],
                    1 => [2, 1, 4],
                    2 => [0, 2, 4],
                    _ => [3, 4, 2],
                };
                let mut seats = table.to_vec();
                seats.rotate_left((i % 3) as usize);
                let (q, sh) = game_with(&mut rng, &weight, &seats);
                m.add(&seats, &q, &sh, Some((deal, 3)));
            }
            let (x, se) = m.fit(5).unwrap().difference(1, 2).unwrap();
            d.push(x);
            se2 += se * se / 300.0;
        }
        let (_, var) = mean_var(&d);
        let ratio = (var / se2).sqrt();
        assert!((0.85..1.15).contains(&ratio), "spread / se = {ratio}");
    }

    /// The winner of a table with win weights `w`, from a uniform `u`.
    fn winner_of(w: &[f64], u: f64) -> usize {
        let mut x = u * w.iter().sum::<f64>();
        for (s, &v) in w.iter().enumerate() {
            if x < v {
                return s;
            }
            x -= v;
        }
        w.len() - 1
    }

    /// A pair block: 0 and 1 each meet the same two opponents (the other of
    /// the pair among them as often as the field has it), on the same deal
    /// (one uniform draw decides both tables, as the same cards would), or on
    /// deals of their own. Played 300 times each way: the paired
    /// difference varies less, and the errors the fit gives (the deal one
    /// cluster across both tables) match the spread both ways.
    #[test]
    fn a_pair_block_uses_its_pairing() {
        let beta: [f64; 5] = [0.1, 0.0, 0.3, -0.2, -0.1];
        let w = |seats: &[usize]| seats.iter().map(|&e| beta[e].exp()).collect::<Vec<f64>>();
        let mut rng = Rng::new(61);
        let mut spread = |paired: bool| {
            let (mut d, mut se2) = (Vec::new(), 0.0);
            for _ in 0..300 {
                let mut m = Model::default();
                // Field games, so that everyone is linked and measured.
                for i in 0..300u64 {
                    let mut seats: Vec<usize> = (0..5).collect();
                    rng.shuffle(&mut seats);
                    seats.truncate(3);
                    let win = winner_of(&w(&seats), rng.index(1_000_000) as f64 / 1e6);
                    let q: Vec<i64> = (0..3)
                        .map(|s| quantize(if s == win { 1.0 } else { -0.5 }))
                        .collect();
                    m.add(
                        &seats,
                        &q,
                        &shares(3, SeatSet::single(win))[..3],
                        Some((1 << 40 | i, 1)),
                    );
                }
                for j in 0..600u64 {
                    // As the pair schedule draws: two of everyone but 0 (1
                    // included), then the same table with 0 and 1 swapped.
                    let mut others = [1usize, 2, 3, 4];
                    rng.shuffle(&mut others);
                    let u = rng.index(1_000_000) as f64 / 1e6;
                    for t in 0..2usize {
                        let swap = |e: usize| match (t, e) {
                            (1, 0) => 1,
                            (1, 1) => 0,
                            _ => e,
                        };
                        let seats = [swap(0), swap(others[0]), swap(others[1])];
                        let u = if paired || t == 0 {
                            u
                        } else {
                            rng.index(1_000_000) as f64 / 1e6
                        };
                        let win = winner_of(&w(&seats), u);
                        let q: Vec<i64> = (0..3)
                            .map(|s| quantize(if s == win { 1.0 } else { -0.5 }))
                            .collect();
                        let deal = if paired {
                            Some((j, 2))
                        } else {
                            Some((j * 2 + t as u64, 1))
                        };
                        m.add(&seats, &q, &shares(3, SeatSet::single(win))[..3], deal);
                    }
                }
                let (x, se) = m.fit(5).unwrap().difference(0, 1).unwrap();
                d.push(x);
                se2 += se * se / 300.0;
            }
            let (_, var) = mean_var(&d);
            (var, se2)
        };
        let (paired, paired_se2) = spread(true);
        let (apart, apart_se2) = spread(false);
        eprintln!(
            "variance of 0 − 1: paired {paired:.3e} (fit says {paired_se2:.3e}), unpaired {apart:.3e} (fit says {apart_se2:.3e})"
        );
        assert!(
            paired < 0.8 * apart,
            "pairing saved nothing: {paired} against {apart}"
        );
        for (var, se2) in [(paired, paired_se2), (apart, apart_se2)] {
            let ratio = (var / se2).sqrt();
            assert!((0.85..1.15).contains(&ratio), "spread / se = {ratio}");
        }
    }

    #[test]
    fn the_anytime_boundary_is_wider_than_a_fixed_one() {
        for se in [0.001, 0.003, 0.01, 0.05] {
            let z = anytime_z(se, 1.0);
            assert!(z > Z95 && z < 13.0, "{se}: {z}");
        }
        assert!(anytime_z(0.0, 1.0).is_infinite());
    }
}
