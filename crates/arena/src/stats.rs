//! Running sums for means and 95% confidence intervals.

use serde::{Deserialize, Serialize};

/// Scores are kept as exact multiples of `1 / SCALE`: every score the arena's
/// scorings give at tables of up to 8 seats is one (−1/(n−1), L/((n−1)·W), 1/W), so
/// sums do not depend on the order games are added in. That makes standings
/// bit-identical for any thread count, after a resume, and across merged shards.
pub const SCALE: i128 = 420 * 840;

/// `x` in units of 1/[`SCALE`], rounded.
#[inline]
pub fn quantize(x: f64) -> i64 {
    (x * SCALE as f64).round() as i64
}

/// Count, sum and sum of squares of a sample of scores, merged exactly in any order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// Number of observations.
    pub n: u64,
    /// Sum in units of 1/SCALE.
    #[serde(with = "i128_text")]
    exact_sum: i128,
    /// Sum of squares in units of 1/SCALE².
    #[serde(with = "i128_text")]
    exact_sq: i128,
}

impl Sample {
    /// Adds one observation (rounded to a multiple of 1/[`SCALE`]).
    #[inline]
    pub fn add(&mut self, x: f64) {
        self.add_quantized(quantize(x));
    }

    /// Adds one observation already in units of 1/[`SCALE`] (see [`quantize`]).
    #[inline]
    pub fn add_quantized(&mut self, q: i64) {
        self.n += 1;
        self.exact_sum += q as i128;
        self.exact_sq += (q as i128) * (q as i128);
    }

    /// Adds another sample's observations.
    pub fn merge(&mut self, other: &Sample) {
        self.n += other.n;
        self.exact_sum += other.exact_sum;
        self.exact_sq += other.exact_sq;
    }

    /// The sum of the observations.
    pub fn sum(&self) -> f64 {
        self.exact_sum as f64 / SCALE as f64
    }

    /// The sum of their squares.
    pub fn sum_sq(&self) -> f64 {
        self.exact_sq as f64 / (SCALE * SCALE) as f64
    }

    /// The mean, 0 when empty.
    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum() / self.n as f64
        }
    }

    /// The sample standard deviation (n − 1), 0 with fewer than two observations.
    pub fn std_dev(&self) -> f64 {
        if self.n < 2 {
            return 0.0;
        }
        // n·Σq² − (Σq)² exactly, then scaled: no cancellation error.
        let n = self.n as i128;
        let num = n * self.exact_sq - self.exact_sum * self.exact_sum;
        let var = num as f64 / (SCALE * SCALE) as f64 / (self.n as f64 * (self.n as f64 - 1.0));
        var.max(0.0).sqrt()
    }

    /// Half-width of the normal-approximation 95% interval of the mean.
    ///
    /// ```
    /// use koth_arena::stats::Sample;
    /// let mut s = Sample::default();
    /// for x in [1.0, -1.0, 1.0, -1.0] { s.add(x); }
    /// assert_eq!(s.mean(), 0.0);
    /// assert!((s.ci95() - 1.959963984540054 * (4.0f64 / 3.0).sqrt() / 2.0).abs() < 1e-12);
    /// ```
    pub fn ci95(&self) -> f64 {
        if self.n < 2 {
            return f64::INFINITY;
        }
        Z95 * self.std_dev() / (self.n as f64).sqrt()
    }
}

/// z for a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// A 95% interval, not necessarily centred on the estimate.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// Lower bound.
    pub low: f64,
    /// Upper bound.
    pub high: f64,
}

impl Interval {
    /// The larger distance from `x` to a bound: what a `x ± h` display shows.
    pub fn half_width(&self, x: f64) -> f64 {
        (x - self.low).max(self.high - x).max(0.0)
    }
}

impl Sample {
    /// A 95% interval of the mean for scores that lie in `[lo, hi]`, that stays
    /// honest at the extremes.
    ///
    /// The normal interval collapses to zero width when every score is the same
    /// (24 wins in 24 games read `1.0000 ± 0.0000`). This adds z²/2 pseudo-games at
    /// each bound before taking the normal interval, and clips it to `[lo, hi]`:
    /// for win/loss data (scores 0 or 1) it is exactly the Agresti–Coull interval;
    /// with many games it is the usual one.
    ///
    /// ```
    /// use koth_arena::stats::Sample;
    /// let mut s = Sample::default();
    /// for _ in 0..24 { s.add(1.0); }
    /// let ci = s.interval(0.0, 1.0);
    /// assert_eq!(ci.high, 1.0);
    /// assert!(ci.low > 0.8 && ci.low < 0.9, "{ci:?}");
    /// ```
    pub fn interval(&self, lo: f64, hi: f64) -> Interval {
        let (lo, hi) = (lo.min(hi), hi.max(lo));
        let k = Z95 * Z95 / 2.0;
        let n = self.n as f64 + 2.0 * k;
        let mean = (self.sum() + k * (lo + hi)) / n;
        let sq = (self.sum_sq() + k * (lo * lo + hi * hi)) / n;
        let var = (sq - mean * mean).max(0.0);
        let h = Z95 * (var / n).sqrt();
        Interval {
            low: (mean - h).max(lo),
            high: (mean + h).min(hi),
        }
    }
}

/// The Wilson score 95% interval of a proportion `k / n` (`[0, 1]` when `n` is 0).
///
/// ```
/// let ci = koth_arena::stats::wilson(24, 24);
/// assert_eq!(ci.high, 1.0);
/// assert!((ci.low - 24.0 / (24.0 + 1.96f64.powi(2))).abs() < 1e-3); // n / (n + z²) at k = n
/// ```
pub fn wilson(k: u64, n: u64) -> Interval {
    if n == 0 {
        return Interval {
            low: 0.0,
            high: 1.0,
        };
    }
    let (k, n) = (k as f64, n as f64);
    let p = k / n;
    let z2 = Z95 * Z95;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let h = Z95 / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    Interval {
        low: (centre - h).max(0.0),
        // At k = n the upper bound is exactly 1; rounding would put it a hair under.
        high: if k == n { 1.0 } else { (centre + h).min(1.0) },
    }
}

/// i128 as a decimal string: JSON readers lose precision on big numbers.
mod i128_text {
    use serde::{Deserialize, Deserializer, Serializer};
    pub fn serialize<S: Serializer>(v: &i128, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&v.to_string())
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<i128, D::Error> {
        let t = String::deserialize(d)?;
        t.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_and_interval() {
        let mut s = Sample::default();
        for x in [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0] {
            s.add(x);
        }
        assert_eq!(s.mean(), 5.0);
        assert!((s.std_dev() - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
        let mut a = Sample::default();
        let mut b = Sample::default();
        for x in [2.0, 4.0, 4.0, 4.0] {
            a.add(x);
        }
        for x in [5.0, 5.0, 7.0, 9.0] {
            b.add(x);
        }
        a.merge(&b);
        assert_eq!(a, s);
        let json = serde_json::to_string(&a).unwrap();
        assert_eq!(serde_json::from_str::<Sample>(&json).unwrap(), a);
        assert!(Sample::default().ci95().is_infinite());
    }

    #[test]
    fn sums_do_not_depend_on_order() {
        let xs: Vec<f64> = (0..1000)
            .map(|i| [-0.2, 1.0, -1.0 / 3.0, 0.4, 0.5, -1.0 / 7.0][i % 6])
            .collect();
        let mut fwd = Sample::default();
        xs.iter().for_each(|&x| fwd.add(x));
        let mut back = Sample::default();
        xs.iter().rev().for_each(|&x| back.add(x));
        assert_eq!(fwd, back);
        let mut parts = Sample::default();
        for chunk in xs.chunks(37) {
            let mut p = Sample::default();
            chunk.iter().for_each(|&x| p.add(x));
            parts.merge(&p);
        }
        assert_eq!(parts, fwd);
    }

    #[test]
    fn intervals_at_the_extremes_keep_their_width() {
        // All wins: the normal interval is 0 wide; this one is not, and stays in range.
        let mut all = Sample::default();
        (0..24).for_each(|_| all.add(1.0));
        assert_eq!(all.ci95(), 0.0);
        let ci = all.interval(0.0, 1.0);
        assert!(ci.high == 1.0 && ci.low < 0.9 && ci.low > 0.8, "{ci:?}");
        // Win/loss data: Agresti–Coull, centred at (x + z²/2) / (n + z²).
        let mut s = Sample::default();
        (0..30).for_each(|i| s.add(if i < 9 { 1.0 } else { 0.0 }));
        let ci = s.interval(0.0, 1.0);
        let n = 30.0 + Z95 * Z95;
        let p = (9.0 + Z95 * Z95 / 2.0) / n;
        let h = Z95 * (p * (1.0 - p) / n).sqrt();
        assert!((ci.low - (p - h)).abs() < 1e-9 && (ci.high - (p + h)).abs() < 1e-9);
        // Zero-sum scores at six seats: −0.2 or +1.
        let mut z = Sample::default();
        (0..10).for_each(|_| z.add(-0.2));
        let ci = z.interval(-0.2, 1.0);
        assert_eq!(ci.low, -0.2);
        assert!(ci.high > -0.1, "{ci:?}");
        // Many games: the usual interval.
        let mut big = Sample::default();
        (0..100_000).for_each(|i| big.add(if i % 3 == 0 { 1.0 } else { 0.0 }));
        let ci = big.interval(0.0, 1.0);
        let m = big.mean();
        assert!((ci.half_width(m) - big.ci95()).abs() < 0.01 * big.ci95());
    }

    #[test]
    fn wilson_matches_the_textbook() {
        // Wilson (1927) via Newcombe (1998), table I: 81/263 → 0.2553–0.3662.
        let ci = wilson(81, 263);
        assert!(
            (ci.low - 0.2553).abs() < 1e-4 && (ci.high - 0.3662).abs() < 1e-4,
            "{ci:?}"
        );
        let ci = wilson(0, 10);
        assert_eq!(ci.low, 0.0);
        assert!((ci.high - 0.2775).abs() < 1e-4, "{ci:?}");
        assert_eq!(
            wilson(0, 0),
            Interval {
                low: 0.0,
                high: 1.0
            }
        );
    }
}
