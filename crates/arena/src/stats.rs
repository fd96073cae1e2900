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
        1.959_963_984_540_054 * self.std_dev() / (self.n as f64).sqrt()
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
}
