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

/// A candidate's results as one score a game in [0, 1], summed: what the
/// test reads. In a duel a game's score is 1, ½ or 0; at a table of more
/// seats it is the share of its opponents the candidate finished above (a
/// tie counts half), so that a bot as strong as the field scores ½ at any
/// table size, and the games (not the pairs within one) are the samples.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Scores {
    /// Games.
    pub n: u64,
    /// Their scores summed.
    pub sum: f64,
    /// Their squares summed.
    pub sum_sq: f64,
}

impl Scores {
    /// Adds a game's score.
    pub fn add(&mut self, x: f64) {
        self.n += 1;
        self.sum += x;
        self.sum_sq += x * x;
    }

    /// The trinomial results of duels.
    pub fn of_duels(wins: u64, draws: u64, losses: u64) -> Scores {
        Scores {
            n: wins + draws + losses,
            sum: wins as f64 + draws as f64 / 2.0,
            sum_sq: wins as f64 + draws as f64 / 4.0,
        }
    }

    /// The mean score and its variance per game.
    pub fn mean_var(&self) -> (f64, f64) {
        let n = self.n.max(1) as f64;
        let s = self.sum / n;
        (s, (self.sum_sq / n - s * s).max(0.0))
    }

    /// The score of the candidate (`me`) at one game: the share of the
    /// other seats whose score is below its own, a tie counted half.
    pub fn of_game(scores: &[f64], me: usize) -> f64 {
        let others = scores.len().saturating_sub(1).max(1) as f64;
        let mine = scores[me];
        let beaten: f64 = scores
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != me)
            .map(|(_, &s)| {
                if s < mine {
                    1.0
                } else if s == mine {
                    0.5
                } else {
                    0.0
                }
            })
            .sum();
        beaten / others
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
        self.llr_of(&Scores::of_duels(wins, draws, losses))
    }

    /// The log-likelihood ratio of H1 against H0 after games of these
    /// scores (the same normal approximation, for any score in [0, 1]).
    ///
    /// ```
    /// use koth_arena::sprt::{Scores, Sprt};
    /// let t = Sprt::default();
    /// let mut s = Scores::default();
    /// // Four seats: finishing above 2 of 3 opponents in most games.
    /// for k in 0..900 { s.add([2.0 / 3.0, 1.0 / 3.0, 1.0][k % 3]); }
    /// assert!(t.llr_of(&s) > t.bounds().1);
    /// ```
    pub fn llr_of(&self, scores: &Scores) -> f64 {
        if scores.n == 0 {
            return 0.0;
        }
        let n = scores.n as f64;
        let (s, mut var) = scores.mean_var();
        // With no variance yet (all wins, say) assume the least informative one seen.
        if var < 1e-6 {
            var = 1.0 / (4.0 * n);
        }
        let (s0, s1) = (expected_score(self.elo0), expected_score(self.elo1));
        n * (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * var)
    }

    /// The verdict after these results.
    pub fn verdict(&self, wins: u64, draws: u64, losses: u64) -> Verdict {
        self.verdict_of(&Scores::of_duels(wins, draws, losses))
    }

    /// The verdict after games of these scores.
    pub fn verdict_of(&self, scores: &Scores) -> Verdict {
        let llr = self.llr_of(scores);
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
        Self::elo_of(&Scores::of_duels(wins, draws, losses))
    }

    /// The Elo difference games of these scores mean, and its 95% interval.
    pub fn elo_of(scores: &Scores) -> (f64, f64, f64) {
        if scores.n == 0 {
            return (0.0, f64::NEG_INFINITY, f64::INFINITY);
        }
        let n = scores.n as f64;
        let (s, var) = scores.mean_var();
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
    fn a_duels_scores_give_the_trinomial_test() {
        let t = Sprt::default();
        let (w, d, l) = (530, 120, 350);
        let mut s = Scores::default();
        for _ in 0..w {
            s.add(1.0);
        }
        for _ in 0..d {
            s.add(0.5);
        }
        for _ in 0..l {
            s.add(0.0);
        }
        assert!((t.llr_of(&s) - t.llr(w, d, l)).abs() < 1e-9);
        assert_eq!(Sprt::elo_of(&s), Sprt::elo_estimate(w, d, l));
    }

    #[test]
    fn a_games_score_is_the_share_of_opponents_beaten() {
        assert_eq!(Scores::of_game(&[1.0, -1.0], 0), 1.0);
        assert_eq!(Scores::of_game(&[0.0, 0.0], 1), 0.5);
        // Four seats, zero-sum: the winner beat all three; a loser tied two.
        assert_eq!(Scores::of_game(&[3.0, -1.0, -1.0, -1.0], 0), 1.0);
        assert_eq!(Scores::of_game(&[3.0, -1.0, -1.0, -1.0], 2), 1.0 / 3.0);
    }

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
