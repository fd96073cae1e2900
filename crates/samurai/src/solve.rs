//! The duel solved: the value of every position and an equilibrium strategy for
//! it, by backward induction over health and value iteration over honour, with a
//! zero-sum matrix game solved exactly (simplex) at every position.
//!
//! A position is what both samurai know before a turn: both healths, both
//! honours, and whether each guarded the turn before (a second guard in a row
//! costs honour). Nothing else matters to the future: the turns already played
//! only count towards the turn limit, which this model leaves out (a duel that
//! never ends is a draw, as one that reaches the limit is).
//!
//! Two simplifications, both on the safe side for the solved strategy:
//! - W is left out: B is the same exposure plus one honour, and more honour is
//!   never worse (the samurai with more can do all the one with less can, and
//!   strikes harder sooner), so W never does better than B.
//! - Honour above `cap` counts as `cap`. A samurai that plays as if it had less
//!   honour than it has can never be struck down sooner or strike softer for it,
//!   so the strategy still earns at least the value it was solved for.
//!
//! ```
//! use koth_samurai::solve::{Position, Solution};
//! use koth_samurai::Rules;
//! // A short duel (4 health) solves in a moment; the seed's (20) in about a second.
//! let rules = Rules { starting_health: 4, ..Rules::default() };
//! let s = Solution::solve(&rules, 10);
//! // The duel is symmetric: worth nothing to either side from the start.
//! assert!(s.value(&Position::start(&rules)).abs() < 1e-9);
//! ```

use crate::action::Action;
use crate::rules::Rules;
use crate::turn::{resolve, Standing};

/// The actions the solution mixes over (W is never better than B).
pub const ACTIONS: [Action; 5] = [Action::B, Action::G, Action::I, Action::P, Action::O];

/// What both samurai know before a turn, seen from "me".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// Health, mine then the enemy's.
    pub health: [i32; 2],
    /// Honour, mine then the enemy's.
    pub honour: [i32; 2],
    /// Whether each guarded the turn before, mine then the enemy's.
    pub guarded: [bool; 2],
}

impl Position {
    /// The first turn of a duel under `rules`.
    pub fn start(rules: &Rules) -> Position {
        Position {
            health: [rules.starting_health; 2],
            honour: [rules.starting_honour; 2],
            guarded: [false; 2],
        }
    }

    /// The same position seen from the enemy.
    pub fn swapped(&self) -> Position {
        Position {
            health: [self.health[1], self.health[0]],
            honour: [self.honour[1], self.honour[0]],
            guarded: [self.guarded[1], self.guarded[0]],
        }
    }
}

/// Where a turn leads: an end (its value to me: 1 a win, 0 a draw, -1 a loss) or
/// another position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Next {
    /// The duel ended.
    End(f64),
    /// The duel goes on from here.
    At(Position),
}

/// Plays one turn from `p` with my action `mine` and the enemy's `theirs`, as the
/// engine does.
pub fn next(rules: &Rules, p: &Position, mine: Action, theirs: Action) -> Next {
    let before = [0, 1].map(|s| Standing {
        health: p.health[s],
        honour: p.honour[s],
    });
    let previous = p
        .guarded
        .map(|g| Some(if g { Action::G } else { Action::B }));
    let log = resolve(rules, 1, [mine, theirs], before, previous);
    let down = log.after.map(|s| s.honour < 0);
    let dead = log.after.map(|s| s.health <= 0);
    let end = |lost: [bool; 2]| match lost {
        [true, true] => Some(0.0),
        [true, false] => Some(-1.0),
        [false, true] => Some(1.0),
        [false, false] => None,
    };
    if let Some(v) = end(down).or_else(|| end(dead)) {
        return Next::End(v);
    }
    Next::At(Position {
        health: [log.after[0].health, log.after[1].health],
        honour: [log.after[0].honour, log.after[1].honour],
        guarded: [mine == Action::G, theirs == Action::G],
    })
}

/// Every position's value and an equilibrium strategy, for one set of rules.
pub struct Solution {
    rules: Rules,
    cap: i32,
    health: i32,
    value: Vec<f64>,
    policy: Vec<[f64; 5]>,
}

/// What a result one turn later is worth against the same result now. Below 1,
/// so that a won position is won soon: with 1, bowing for ever at a won
/// position is as good as winning, and a strategy read from such values can
/// fail to finish. Close to 1, so that values are nearly the undiscounted ones
/// (0.9999 to the 500th, the turn limit, is 0.95); it also makes value
/// iteration a contraction.
pub const DISCOUNT: f64 = 0.9999;
/// How close two sweeps of value iteration must come before a level is solved.
const TOLERANCE: f64 = 1e-9;
/// Sweeps at most per level (levels settle in a few dozen).
const SWEEPS: usize = 30000;

impl Solution {
    /// Solves the duel under `rules`, honour counted up to `cap` (at least the
    /// Sword of the Gods' threshold).
    pub fn solve(rules: &Rules, cap: i32) -> Solution {
        let cap = cap.max(rules.god_sword_honour).max(rules.starting_honour);
        let health = rules.starting_health.max(1);
        let n = (health * health * (cap + 1) * (cap + 1) * 4) as usize;
        let mut s = Solution {
            rules: *rules,
            cap,
            health,
            value: vec![0.0; n],
            policy: vec![[0.0; 5]; n],
        };
        // Damage lowers a health, so levels of equal healths come after every
        // level they can lead to; inside one, honour moves both ways.
        // A level and its mirror (healths swapped) lead to none of each other:
        // the mirror's values are the level's, negated (the duel is symmetric).
        for total in 2..=2 * health {
            for mine in 1..=health {
                let theirs = total - mine;
                if (1..=health).contains(&theirs) && mine >= theirs {
                    s.solve_level([mine, theirs]);
                    if mine > theirs {
                        s.mirror_level([mine, theirs]);
                    }
                }
            }
        }
        s
    }

    /// Fills the mirror of a solved level: values by symmetry, and each
    /// position's strategy from the game those values make.
    fn mirror_level(&mut self, health: [i32; 2]) {
        let level = self.level([health[1], health[0]]);
        for p in &level {
            let k = self.index(p);
            self.value[k] = -self.value[self.index(&p.swapped())];
        }
        let slots: Vec<usize> = level.iter().map(|p| self.index(p)).collect();
        let moves = self.moves(&level);
        for (k, &slot) in slots.iter().enumerate() {
            let m = moves[k].map(|row| std::array::from_fn(|j| row[j].worth(&self.value)));
            self.policy[slot] = matrix_game(&m).1;
        }
    }

    fn level(&self, health: [i32; 2]) -> Vec<Position> {
        let mut out = Vec::new();
        for a in 0..=self.cap {
            for b in 0..=self.cap {
                for g in 0..4 {
                    out.push(Position {
                        health,
                        honour: [a, b],
                        guarded: [g & 2 != 0, g & 1 != 0],
                    });
                }
            }
        }
        out
    }

    /// Where each pair of actions leads from each position of a level: my
    /// [`ACTIONS`] by the enemy's, then W (the enemy's sixth column).
    fn moves(&self, level: &[Position]) -> Vec<[[Step; 6]; 5]> {
        let theirs = [
            ACTIONS[0],
            ACTIONS[1],
            ACTIONS[2],
            ACTIONS[3],
            ACTIONS[4],
            Action::W,
        ];
        level
            .iter()
            .map(|p| {
                ACTIONS.map(|a| {
                    theirs.map(|b| match next(&self.rules, p, a, b) {
                        Next::End(v) => Step::End(v),
                        Next::At(q) => Step::At(self.index(&q)),
                    })
                })
            })
            .collect()
    }

    fn solve_level(&mut self, health: [i32; 2]) {
        let level = self.level(health);
        let slots: Vec<usize> = level.iter().map(|p| self.index(p)).collect();
        let moves = self.moves(&level);
        let game = |values: &[f64], k: usize| -> [[f64; 5]; 5] {
            moves[k].map(|row| std::array::from_fn(|j| row[j].worth(values)))
        };
        for _ in 0..SWEEPS {
            let mut change: f64 = 0.0;
            for (k, &slot) in slots.iter().enumerate() {
                let (v, _) = matrix_game(&game(&self.value, k));
                change = change.max((v - self.value[slot]).abs());
                self.value[slot] = v;
            }
            if change < TOLERANCE {
                break;
            }
        }
        // The strategies from the values as they ended, each optimal in the
        // game those values make.
        for (k, &slot) in slots.iter().enumerate() {
            self.policy[slot] = matrix_game(&game(&self.value, k)).1;
        }
    }

    /// The value to me of my `a` against their `b` at `p`, with `values` for
    /// the positions that follow.
    fn after(&self, p: &Position, a: Action, b: Action, values: &[f64]) -> f64 {
        match next(&self.rules, p, a, b) {
            Next::End(v) => v,
            Next::At(q) => DISCOUNT * values[self.index(&q)],
        }
    }

    /// The slot of `p` (honour counted up to the cap, health clamped to the
    /// solved range).
    fn index(&self, p: &Position) -> usize {
        let h = |x: i32| (x.clamp(1, self.health) - 1) as usize;
        let o = |x: i32| x.clamp(0, self.cap) as usize;
        let (hs, os) = (self.health as usize, (self.cap + 1) as usize);
        let g = (p.guarded[0] as usize) * 2 + p.guarded[1] as usize;
        (((h(p.health[0]) * hs + h(p.health[1])) * os + o(p.honour[0])) * os + o(p.honour[1])) * 4
            + g
    }

    /// The rules it was solved for.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Honour above this counts as this.
    pub fn cap(&self) -> i32 {
        self.cap
    }

    /// What `p` is worth to me with both playing the equilibrium: the chance I
    /// win less the chance I lose.
    pub fn value(&self, p: &Position) -> f64 {
        self.value[self.index(p)]
    }

    /// How likely I play each of [`ACTIONS`] at `p`.
    pub fn strategy(&self, p: &Position) -> [f64; 5] {
        self.policy[self.index(p)]
    }

    /// The least my strategy at `p` earns, one turn deep, against any enemy action
    /// (W included), with the solution's values after: at a solved position
    /// this is its value.
    pub fn guarantee(&self, p: &Position) -> f64 {
        let mix = self.strategy(p);
        Action::ALL
            .iter()
            .map(|&b| {
                ACTIONS
                    .iter()
                    .zip(mix)
                    .map(|(&a, w)| w * self.after(p, a, b, &self.value))
                    .sum::<f64>()
            })
            .fold(f64::INFINITY, f64::min)
    }

    /// The enemy's best reply to this strategy, computed exactly over every
    /// position (W included among its actions): the least each position is
    /// then worth to me. At an equilibrium it equals [`Solution::value`].
    pub fn against_best_reply(&self) -> Vec<(Position, f64)> {
        let mut worst = vec![0.0; self.value.len()];
        let mut out = Vec::new();
        for total in 2..=2 * self.health {
            for mine in 1..=self.health {
                let theirs = total - mine;
                if !(1..=self.health).contains(&theirs) {
                    continue;
                }
                let level = self.level([mine, theirs]);
                let slots: Vec<usize> = level.iter().map(|p| self.index(p)).collect();
                let moves = self.moves(&level);
                for _ in 0..SWEEPS {
                    let mut change: f64 = 0.0;
                    for (k, &slot) in slots.iter().enumerate() {
                        let mix = self.policy[slot];
                        let v = (0..6)
                            .map(|j| {
                                (0..5)
                                    .map(|i| mix[i] * moves[k][i][j].worth(&worst))
                                    .sum::<f64>()
                            })
                            .fold(f64::INFINITY, f64::min);
                        change = change.max((v - worst[slot]).abs());
                        worst[slot] = v;
                    }
                    if change < TOLERANCE {
                        break;
                    }
                }
                out.extend(level.iter().zip(&slots).map(|(p, &slot)| (*p, worst[slot])));
            }
        }
        out
    }
}

/// Where a pair of actions leads, as the solver keeps it.
#[derive(Clone, Copy)]
enum Step {
    /// The duel ends, worth this to me.
    End(f64),
    /// The position in this slot follows.
    At(usize),
}

impl Step {
    /// Its worth to me, with `values` for the positions that follow (a turn
    /// later, so discounted).
    fn worth(self, values: &[f64]) -> f64 {
        match self {
            Step::End(v) => v,
            Step::At(k) => DISCOUNT * values[k],
        }
    }
}

/// Solves the zero-sum matrix game `m` (the row player's payoffs, row player
/// maximising): its value and an optimal mix of rows. Rows and columns that
/// another dominates are dropped first (this game repeats them often: three
/// strikes that all land on a bow), then the simplex method solves what is
/// left, on the column player's linear program, whose duals are the row
/// player's mix.
///
/// ```
/// use koth_samurai::solve::matrix_game;
/// // Matching pennies in the first two rows and columns; the other rows are
/// // worse for the row player, the other columns worse for the column player.
/// let mut m = [[-2.0; 5]; 5];
/// for i in 0..2 {
///     for j in 0..5 {
///         m[i][j] = if j >= 2 { 2.0 } else if i == j { 1.0 } else { -1.0 };
///     }
/// }
/// let (v, mix) = matrix_game(&m);
/// assert!(v.abs() < 1e-12);
/// assert!((mix[0] - 0.5).abs() < 1e-12 && (mix[1] - 0.5).abs() < 1e-12);
/// ```
pub fn matrix_game(m: &[[f64; 5]; 5]) -> (f64, [f64; 5]) {
    let mut rows: Vec<usize> = (0..5).collect();
    let mut cols: Vec<usize> = (0..5).collect();
    // Dominated rows (never better for the row player) and columns (never
    // better for the column player) go, until none is; an equal one keeps the
    // first. The value stays, and an optimal mix of what is left is optimal.
    loop {
        let before = rows.len() + cols.len();
        let dominated_row = |i: usize, rows: &[usize]| {
            rows.iter().any(|&k| {
                k != i
                    && cols.iter().all(|&j| m[k][j] >= m[i][j])
                    && (cols.iter().any(|&j| m[k][j] > m[i][j]) || k < i)
            })
        };
        if let Some(pos) = (0..rows.len()).find(|&x| dominated_row(rows[x], &rows)) {
            rows.remove(pos);
        }
        let dominated_col = |j: usize, cols: &[usize]| {
            cols.iter().any(|&l| {
                l != j
                    && rows.iter().all(|&i| m[i][l] <= m[i][j])
                    && (rows.iter().any(|&i| m[i][l] < m[i][j]) || l < j)
            })
        };
        if let Some(pos) = (0..cols.len()).find(|&x| dominated_col(cols[x], &cols)) {
            cols.remove(pos);
        }
        if rows.len() + cols.len() == before {
            break;
        }
    }
    let mut mix = [0.0; 5];
    if rows.len() == 1 {
        let v = cols
            .iter()
            .map(|&j| m[rows[0]][j])
            .fold(f64::INFINITY, f64::min);
        mix[rows[0]] = 1.0;
        return (v, mix);
    }
    let (p, q) = simplex(m, &rows, &cols);
    for (k, &i) in rows.iter().enumerate() {
        mix[i] = p[k];
    }
    let mut answer = [0.0; 5];
    for (k, &j) in cols.iter().enumerate() {
        answer[j] = q[k];
    }
    // Certified: what the row mix guarantees and what the column mix concedes
    // meet (the value lies between). Near-ties can leave the simplex short of
    // the optimum (its pivots are then rounding noise); the slow, sure way
    // takes over.
    let (low, high) = (guarantee(m, &mix), concession(m, &answer));
    if high - low <= CERTAIN {
        return (low, mix);
    }
    let mix = best_mix(m);
    (guarantee(m, &mix), mix)
}

/// How far apart a row mix's guarantee and a column mix's concession may be
/// for the pair to count as optimal.
const CERTAIN: f64 = 1e-9;

/// The least the row mix `p` earns against any column.
fn guarantee(m: &[[f64; 5]; 5], p: &[f64; 5]) -> f64 {
    (0..5)
        .map(|j| (0..5).map(|i| p[i] * m[i][j]).sum::<f64>())
        .fold(f64::INFINITY, f64::min)
}

/// The most any row earns against the column mix `q`.
fn concession(m: &[[f64; 5]; 5], q: &[f64; 5]) -> f64 {
    (0..5)
        .map(|i| (0..5).map(|j| q[j] * m[i][j]).sum::<f64>())
        .fold(f64::NEG_INFINITY, f64::max)
}

/// The row mix with the best guarantee, by trying every square support: an
/// optimal mix is a vertex, where k rows exactly equalise k columns.
fn best_mix(m: &[[f64; 5]; 5]) -> [f64; 5] {
    let mut best = ([0.0; 5], f64::NEG_INFINITY);
    for rows in 1u32..32 {
        let k = rows.count_ones() as usize;
        for cols in (1u32..32).filter(|c| c.count_ones() as usize == k) {
            let r: Vec<usize> = (0..5).filter(|i| rows & (1 << i) != 0).collect();
            let c: Vec<usize> = (0..5).filter(|j| cols & (1 << j) != 0).collect();
            // Unknowns p_r then v: sum_i p_i m[i][j] - v = 0 for j in c, sum p = 1.
            let n = k + 1;
            let mut a = vec![vec![0.0; n + 1]; n];
            for (e, &j) in c.iter().enumerate() {
                for (x, &i) in r.iter().enumerate() {
                    a[e][x] = m[i][j];
                }
                a[e][k] = -1.0;
            }
            a[k][..k].fill(1.0);
            a[k][n] = 1.0;
            let Some(sol) = gauss(a) else { continue };
            if sol[..k].iter().any(|&x| x < -1e-12) {
                continue;
            }
            let mut p = [0.0; 5];
            let sum: f64 = sol[..k].iter().map(|x| x.max(0.0)).sum();
            for (x, &i) in r.iter().enumerate() {
                p[i] = sol[x].max(0.0) / sum;
            }
            let g = guarantee(m, &p);
            if g > best.1 {
                best = (p, g);
            }
        }
    }
    best.0
}

/// Solves the square system `a` (each row its coefficients, then the constant)
/// by elimination with partial pivoting, or `None` when it is singular.
fn gauss(mut a: Vec<Vec<f64>>) -> Option<Vec<f64>> {
    let n = a.len();
    for col in 0..n {
        let piv = (col..n).max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))?;
        if a[piv][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, piv);
        let pivot_row = a[col].clone();
        for (row, line) in a.iter_mut().enumerate() {
            if row != col {
                let f = line[col] / pivot_row[col];
                for (x, p) in line.iter_mut().zip(&pivot_row).skip(col) {
                    *x -= f * p;
                }
            }
        }
    }
    Some((0..n).map(|i| a[i][n] / a[i][i]).collect())
}

/// The simplex method on the game `m` cut to `rows` and `cols`: the row
/// player's mix over `rows` and the column player's over `cols`.
fn simplex(m: &[[f64; 5]; 5], rows: &[usize], cols: &[usize]) -> (Vec<f64>, Vec<f64>) {
    let (r, c) = (rows.len(), cols.len());
    // Payoffs made positive, so the value is too.
    let low = rows
        .iter()
        .flat_map(|&i| cols.iter().map(move |&j| m[i][j]))
        .fold(f64::INFINITY, f64::min);
    let shift = 1.0 - low;
    // Tableau of: maximise sum y subject to (m + shift) y <= 1, y >= 0; columns
    // are y then the slacks, then the right-hand side; the last row is the
    // objective.
    let w = c + r + 1;
    let mut t = vec![0.0; (r + 1) * w];
    for (a, &i) in rows.iter().enumerate() {
        for (b, &j) in cols.iter().enumerate() {
            t[a * w + b] = m[i][j] + shift;
        }
        t[a * w + c + a] = 1.0;
        t[a * w + c + r] = 1.0;
    }
    for b in 0..c {
        t[r * w + b] = -1.0;
    }
    let mut basis: Vec<usize> = (0..r).map(|a| c + a).collect();
    // Reduced costs above -EPS count as optimal; a pivot must be above PIVOT (a
    // tinier one blows rounding up into an infeasible tableau).
    const EPS: f64 = 1e-12;
    const PIVOT: f64 = 1e-9;
    // The leaving row for column `enter`, if one has a usable pivot.
    let leaving = |t: &[f64], basis: &[usize], enter: usize| {
        let mut leave: Option<(usize, f64)> = None;
        for a in 0..r {
            let x = t[a * w + enter];
            if x > PIVOT {
                let ratio = t[a * w + c + r] / x;
                let better = match leave {
                    None => true,
                    Some((l, lr)) => ratio < lr - EPS || (ratio <= lr + EPS && basis[a] < basis[l]),
                };
                if better {
                    leave = Some((a, ratio));
                }
            }
        }
        leave.map(|(l, _)| l)
    };
    // Bland's rule (the first improving column) never cycles; a column whose
    // pivots are all rounding noise is passed over.
    while let Some((enter, l)) = (0..c + r)
        .filter(|&b| t[r * w + b] < -EPS)
        .find_map(|b| leaving(&t, &basis, b).map(|l| (b, l)))
    {
        let pivot = t[l * w + enter];
        for b in 0..w {
            t[l * w + b] /= pivot;
        }
        for a in 0..=r {
            let f = t[a * w + enter];
            if a != l && f != 0.0 {
                for b in 0..w {
                    t[a * w + b] -= f * t[l * w + b];
                }
            }
        }
        basis[l] = enter;
    }
    let normal = |mut x: Vec<f64>| {
        let sum: f64 = x.iter().sum();
        if sum > 0.0 {
            x.iter_mut().for_each(|v| *v /= sum);
        }
        x
    };
    let rows_mix = normal((0..r).map(|a| t[r * w + c + a].max(0.0)).collect());
    let mut y = vec![0.0; c];
    for (a, &b) in basis.iter().enumerate() {
        if b < c {
            y[b] = t[a * w + c + r].max(0.0);
        }
    }
    (rows_mix, normal(y))
}
