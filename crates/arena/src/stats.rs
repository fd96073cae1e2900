//! Running sums for means and 95% confidence intervals.

use serde::{Deserialize, Serialize};

/// Count, sum and sum of squares of a sample; merges exactly in a fixed order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// Number of observations.
    pub n: u64,
    /// Sum of observations.
    pub sum: f64,
    /// Sum of squared observations.
    pub sum_sq: f64,
}

impl Sample {
    /// Adds one observation.
    #[inline]
    pub fn add(&mut self, x: f64) {
        self.n += 1;
        self.sum += x;
        self.sum_sq += x * x;
    }

    /// Adds another sample's observations.
    pub fn merge(&mut self, other: &Sample) {
        self.n += other.n;
        self.sum += other.sum;
        self.sum_sq += other.sum_sq;
    }

    /// The mean, 0 when empty.
    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum / self.n as f64
        }
    }

    /// The sample standard deviation (n − 1), 0 with fewer than two observations.
    pub fn std_dev(&self) -> f64 {
        if self.n < 2 {
            return 0.0;
        }
        let n = self.n as f64;
        let var = (self.sum_sq - self.sum * self.sum / n) / (n - 1.0);
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
        assert!(Sample::default().ci95().is_infinite());
    }
}
