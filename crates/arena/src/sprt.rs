//! The sequential probability ratio test chess testers use (fishtest, fastchess):
//! is a candidate better than its opponents by at least `elo1`, or not better
//! than `elo0`? Games are added until the log-likelihood ratio leaves the bounds.

use serde::{Deserialize, Serialize};

/// An SPRT: hypotheses in Elo and error rates.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sprt {
    /// H0: the candidate's advantage is at most this (Elo).
    pub elo0: f64,
    /// H1: the candidate's advantage is at least this (Elo).
    pub elo1: f64,
    /// Chance of accepting H1 when H0 holds.
    pub alpha: f64,
    /// Chance of accepting H0 when H1 holds.
    pub beta: f64,
}

/// What the test says so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// H1 accepted: better by at least `elo1`.
    Better,
    /// H0 accepted: not better than `elo0`.
    NotBetter,
    /// More games needed.
    Undecided,
}

impl Default for Sprt {
    fn default() -> Self {
        Sprt {
            elo0: 0.0,
            elo1: 20.0,
            alpha: 0.05,
            beta: 0.05,
        }
    }
}

/// Expected score of a player `elo` points stronger.
pub fn expected_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

impl Sprt {
    /// The LLR bounds: (accept H0 at or below, accept H1 at or above).
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The log-likelihood ratio of H1 against H0 after `wins`, `draws`, `losses` (the
    /// normal approximation of the generalised SPRT).
    ///
    /// ```
    /// use koth_arena::sprt::Sprt;
    /// let t = Sprt::default();
    /// assert!(t.llr(600, 0, 400) > t.bounds().1);
    /// assert!(t.llr(500, 0, 500) < 0.0);
    /// ```
    pub fn llr(&self, wins: u64, draws: u64, losses: u64) -> f64 {
        let n = (wins + draws + losses) as f64;
        if n == 0.0 {
            return 0.0;
        }
        let (w, d, l) = (wins as f64 / n, draws as f64 / n, losses as f64 / n);
        let s = w + d / 2.0;
        let mut var = w * (1.0 - s).powi(2) + d * (0.5 - s).powi(2) + l * s.powi(2);
        // With no variance yet (all wins, say) assume the least informative one seen.
        if var < 1e-6 {
            var = 1.0 / (4.0 * n);
        }
        let (s0, s1) = (expected_score(self.elo0), expected_score(self.elo1));
        n * (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * var)
    }

    /// The verdict after these results.
    pub fn verdict(&self, wins: u64, draws: u64, losses: u64) -> Verdict {
        let llr = self.llr(wins, draws, losses);
        let (lo, hi) = self.bounds();
        if llr >= hi {
            Verdict::Better
        } else if llr <= lo {
            Verdict::NotBetter
        } else {
            Verdict::Undecided
        }
    }

    /// The Elo difference a score fraction means, and its 95% interval, from the
    /// trinomial results.
    pub fn elo_estimate(wins: u64, draws: u64, losses: u64) -> (f64, f64, f64) {
        let n = (wins + draws + losses) as f64;
        if n == 0.0 {
            return (0.0, f64::NEG_INFINITY, f64::INFINITY);
        }
        let (w, d, l) = (wins as f64 / n, draws as f64 / n, losses as f64 / n);
        let s = w + d / 2.0;
        let var = w * (1.0 - s).powi(2) + d * (0.5 - s).powi(2) + l * s.powi(2);
        let half = 1.96 * (var / n).sqrt();
        let elo = |p: f64| {
            let p = p.clamp(1e-6, 1.0 - 1e-6);
            -400.0 * (1.0 / p - 1.0).log10()
        };
        (elo(s), elo(s - half), elo(s + half))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clearly_better_candidate_is_accepted() {
        let t = Sprt::default();
        assert_eq!(t.verdict(700, 0, 300), Verdict::Better);
        assert_eq!(t.verdict(300, 0, 700), Verdict::NotBetter);
        assert_eq!(
            t.verdict(500, 0, 500),
            Verdict::Undecided,
            "1000 equal games are not yet enough"
        );
        assert_eq!(t.verdict(1500, 0, 1500), Verdict::NotBetter, "3000 are");
        assert_eq!(t.verdict(5, 0, 5), Verdict::Undecided);
    }

    #[test]
    fn bounds_follow_the_error_rates() {
        let (lo, hi) = Sprt::default().bounds();
        assert!((lo - (0.05f64 / 0.95).ln()).abs() < 1e-12);
        assert!((hi - (0.95f64 / 0.05).ln()).abs() < 1e-12);
    }

    #[test]
    fn elo_estimates() {
        let (e, lo, hi) = Sprt::elo_estimate(500, 0, 500);
        assert!(e.abs() < 1e-9 && lo < 0.0 && hi > 0.0);
        let (e, _, _) = Sprt::elo_estimate(76, 0, 24);
        assert!((e - 200.0).abs() < 5.0, "{e}");
    }
}
