//! What `koth <game> check` reports about one bot, for any game: each kind of
//! decision it was asked, how often, how fast, and every distinct defect with the
//! game that shows it.
//!
//! A game provides the positions and the names of its decision kinds; the tally is
//! the same everywhere.
//!
//! ```
//! use koth_arena::check::CheckReport;
//! use koth_arena::Fault;
//! use std::time::Duration;
//!
//! let mut r = CheckReport::new(&["action", "block"], Duration::from_millis(500));
//! r.answered(0, Duration::from_micros(40));
//! r.fault(1, 7, &Fault::illegal_choice("illegal choice \"x\""), "turn 3".into());
//! r.fault(1, 9, &Fault::illegal_choice("illegal choice \"y\""), "turn 5".into());
//! assert!(!r.passed());
//! assert_eq!(r.findings.len(), 1); // the same defect twice
//! assert_eq!(r.findings[0].count, 2);
//! assert_eq!(r.findings[0].game, 7); // the first game that shows it
//! ```

use crate::Fault;
use std::time::Duration;

/// How one kind of decision went.
#[derive(Clone, Debug, Default)]
pub struct KindTally {
    /// The kind's name in the game's words ("block", "exchange, one card").
    pub label: &'static str,
    /// Times the bot was asked.
    pub asked: u64,
    /// Answers that were faults (illegal, garbage, crash, timeout).
    pub faults: u64,
    /// Answers slower than the report's slow limit (but in time).
    pub slow: u64,
    times: Vec<Duration>,
}

impl KindTally {
    /// The `p`-th percentile (0–100) of the answer times, if any answer was timed.
    pub fn percentile(&self, p: f64) -> Option<Duration> {
        if self.times.is_empty() {
            return None;
        }
        let mut t = self.times.clone();
        t.sort_unstable();
        let rank = ((p / 100.0) * (t.len() - 1) as f64).round() as usize;
        Some(t[rank.min(t.len() - 1)])
    }
}

/// One distinct defect: a kind of decision and a kind of fault.
#[derive(Clone, Debug)]
pub struct Finding {
    /// The decision kind's label.
    pub kind: &'static str,
    /// The first game (of the check's numbering) that shows it.
    pub game: u64,
    /// The full reason, from that first game.
    pub reason: String,
    /// The bot's last stderr lines then, if any.
    pub stderr_tail: Option<String>,
    /// The position it was asked in, as the game describes it.
    pub position: String,
    /// How many times it happened.
    pub count: u64,
}

/// The whole check.
#[derive(Clone, Debug)]
pub struct CheckReport {
    /// Games played.
    pub games: u64,
    /// One tally per decision kind, in the game's order.
    pub kinds: Vec<KindTally>,
    /// Distinct defects, in the order first seen.
    pub findings: Vec<Finding>,
    /// Answers slower than this count as slow.
    pub slow_limit: Duration,
}

impl CheckReport {
    /// An empty report for these decision kinds.
    pub fn new(labels: &[&'static str], slow_limit: Duration) -> Self {
        CheckReport {
            games: 0,
            kinds: labels
                .iter()
                .map(|&label| KindTally {
                    label,
                    ..KindTally::default()
                })
                .collect(),
            findings: Vec::new(),
            slow_limit,
        }
    }

    /// A good answer to a decision of kind `kind`, after `took`.
    pub fn answered(&mut self, kind: usize, took: Duration) {
        let k = &mut self.kinds[kind];
        k.asked += 1;
        if took > self.slow_limit {
            k.slow += 1;
        }
        k.times.push(took);
    }

    /// A decision of kind `kind` that went right and is not timed (a game's start).
    pub fn accepted(&mut self, kind: usize) {
        self.kinds[kind].asked += 1;
    }

    /// A fault answering a decision of kind `kind` in game `game` at `position`.
    pub fn fault(&mut self, kind: usize, game: u64, fault: &Fault, position: String) {
        let k = &mut self.kinds[kind];
        k.asked += 1;
        k.faults += 1;
        let label = k.label;
        let class = fault_class(&fault.reason);
        if let Some(f) = self
            .findings
            .iter_mut()
            .find(|f| f.kind == label && fault_class(&f.reason) == class)
        {
            f.count += 1;
            return;
        }
        self.findings.push(Finding {
            kind: label,
            game,
            reason: fault.reason.clone(),
            stderr_tail: fault.stderr_tail.clone(),
            position,
            count: 1,
        });
    }

    /// No defect found.
    pub fn passed(&self) -> bool {
        self.findings.is_empty()
    }

    /// Kinds the check never managed to ask.
    pub fn unreached(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.kinds.iter().filter(|k| k.asked == 0).map(|k| k.label)
    }

    /// Answers slower than the slow limit, in all.
    pub fn slow(&self) -> u64 {
        self.kinds.iter().map(|k| k.slow).sum()
    }
}

/// The leading words of a fault's reason ("illegal choice", "timeout", "crashed"),
/// which group the same defect seen with different details.
pub fn fault_class(reason: &str) -> &str {
    let end = reason
        .find(|c: char| !(c.is_alphabetic() || c == ' ' || c == '-'))
        .unwrap_or(reason.len());
    reason[..end].trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_group_details() {
        assert_eq!(
            fault_class("illegal choice \"x\": not among"),
            "illegal choice"
        );
        assert_eq!(fault_class("timeout: no answer within 5 ms"), "timeout");
        assert_eq!(fault_class("crashed (exit code 1) instead"), "crashed");
        assert_eq!(fault_class("garbage: answer is not"), "garbage");
    }

    #[test]
    fn percentiles_and_slow_answers() {
        let mut r = CheckReport::new(&["a"], Duration::from_millis(10));
        for ms in 1..=100 {
            r.answered(0, Duration::from_millis(ms));
        }
        let k = &r.kinds[0];
        assert_eq!(k.asked, 100);
        assert_eq!(k.slow, 90);
        assert_eq!(k.percentile(50.0), Some(Duration::from_millis(51)));
        assert_eq!(k.percentile(99.0), Some(Duration::from_millis(99)));
        assert_eq!(k.percentile(100.0), Some(Duration::from_millis(100)));
        assert!(r.passed());
        assert_eq!(r.slow(), 90);
        let empty = CheckReport::new(&["a", "b"], Duration::ZERO);
        assert_eq!(empty.kinds[1].percentile(50.0), None);
        assert_eq!(empty.unreached().collect::<Vec<_>>(), ["a", "b"]);
    }

    #[test]
    fn different_faults_or_kinds_are_different_findings() {
        let mut r = CheckReport::new(&["a", "b"], Duration::from_secs(1));
        r.fault(0, 1, &Fault::new("timeout: x"), String::new());
        r.fault(0, 2, &Fault::new("garbage: y"), String::new());
        r.fault(1, 3, &Fault::new("timeout: z"), String::new());
        r.fault(1, 4, &Fault::new("timeout: w"), String::new());
        assert_eq!(r.findings.len(), 3);
        assert_eq!(r.findings[2].count, 2);
        assert_eq!(r.kinds[1].faults, 2);
    }
}
