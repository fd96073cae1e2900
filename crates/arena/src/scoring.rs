//! Turning an outcome into points.

use crate::game::{Outcome, SeatSet, MAX_SEATS};
use serde::{Deserialize, Serialize};

/// How a finished game is scored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scoring {
    /// Seeds 003/004: each loser scores −1/(players−1), the winners share the losers'
    /// total equally. Nobody scores when nobody wins.
    ZeroSum,
    /// One point per game, shared by the winners (a two-player draw is ½ each); nothing
    /// when nobody wins. Seeds 000 and 002.
    SharedPoint,
}

/// How one seat fared in one game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Result3 {
    /// The only winner.
    Win,
    /// A winner among several, or nobody won.
    Draw,
    /// Somebody else won.
    Loss,
}

/// Classifies `seat`'s result in a game with `winners`.
pub fn result_of(winners: SeatSet, seat: usize) -> Result3 {
    if winners.contains(seat) {
        if winners.len() == 1 {
            Result3::Win
        } else {
            Result3::Draw
        }
    } else if winners.is_empty() {
        Result3::Draw
    } else {
        Result3::Loss
    }
}

impl Scoring {
    /// Scores of seats `0..seats` for `outcome`.
    ///
    /// ```
    /// use koth_arena::{Scoring, Outcome, SeatSet, Ending};
    /// let o = Outcome { winners: SeatSet::single(2), ending: Ending::Decided, turns: 10 };
    /// let s = Scoring::ZeroSum.scores(6, &o);
    /// assert_eq!(s[2], 1.0);
    /// assert!((s[0] + 0.2).abs() < 1e-12);
    /// ```
    pub fn scores(self, seats: usize, outcome: &Outcome) -> [f64; MAX_SEATS] {
        let mut out = [0.0; MAX_SEATS];
        let w = outcome.winners.len();
        if w == 0 {
            return out;
        }
        match self {
            Scoring::ZeroSum => {
                let losers = seats - w;
                if seats < 2 {
                    return out;
                }
                let lose = -1.0 / (seats as f64 - 1.0);
                let win = (losers as f64) / (seats as f64 - 1.0) / w as f64;
                for (i, s) in out.iter_mut().enumerate().take(seats) {
                    *s = if outcome.winners.contains(i) {
                        win
                    } else {
                        lose
                    };
                }
            }
            Scoring::SharedPoint => {
                for (i, s) in out.iter_mut().enumerate().take(seats) {
                    if outcome.winners.contains(i) {
                        *s = 1.0 / w as f64;
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Ending;

    fn outcome(winners: &[usize]) -> Outcome {
        let mut s = SeatSet::EMPTY;
        for &w in winners {
            s.insert(w);
        }
        Outcome {
            winners: s,
            ending: Ending::Decided,
            turns: 1,
        }
    }

    #[test]
    fn zero_sum_is_zero_sum_for_every_table() {
        for seats in 2..=6 {
            for mask in 1u8..(1 << seats) {
                let o = Outcome {
                    winners: SeatSet(mask),
                    ending: Ending::TurnCap,
                    turns: 1,
                };
                let s = Scoring::ZeroSum.scores(seats, &o);
                let total: f64 = s.iter().sum();
                assert!(total.abs() < 1e-12, "{seats} {mask:b} {s:?}");
            }
        }
    }

    #[test]
    fn zero_sum_examples_from_seed_003() {
        let s = Scoring::ZeroSum.scores(6, &outcome(&[0]));
        assert_eq!(s[0], 1.0);
        assert!((s[5] + 0.2).abs() < 1e-12);
        // Two survivors at a 6 table share 4 losers' 0.8.
        let s = Scoring::ZeroSum.scores(6, &outcome(&[1, 4]));
        assert!((s[1] - 0.4).abs() < 1e-12 && (s[4] - 0.4).abs() < 1e-12);
        let s = Scoring::ZeroSum.scores(2, &outcome(&[1]));
        assert_eq!((s[0], s[1]), (-1.0, 1.0));
    }

    #[test]
    fn shared_point_is_one_half_zero() {
        assert_eq!(
            Scoring::SharedPoint.scores(2, &outcome(&[0]))[..2],
            [1.0, 0.0]
        );
        assert_eq!(
            Scoring::SharedPoint.scores(2, &outcome(&[0, 1]))[..2],
            [0.5, 0.5]
        );
        assert_eq!(
            Scoring::SharedPoint.scores(2, &outcome(&[]))[..2],
            [0.0, 0.0]
        );
    }

    #[test]
    fn results_classify() {
        assert_eq!(result_of(SeatSet(0b01), 0), Result3::Win);
        assert_eq!(result_of(SeatSet(0b01), 1), Result3::Loss);
        assert_eq!(result_of(SeatSet(0b11), 1), Result3::Draw);
        assert_eq!(result_of(SeatSet(0), 1), Result3::Draw);
    }
}
