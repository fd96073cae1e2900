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
    /// The rules never ask it (not counted as unreached).
    pub impossible: bool,
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

/// One distinct defect. An illegal choice is one per decision kind; a fault that
/// ends the process (a crash, a timeout, garbage) is one per kind of fault and
/// error line, whatever decisions it hit: one bug, one finding.
#[derive(Clone, Debug)]
pub struct Finding {
    /// The decision kind's label where it was first seen.
    pub kind: &'static str,
    /// Every decision kind it hit, first seen first.
    pub kinds: Vec<&'static str>,
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
    /// Seen at least once in a game the bot played from the first move itself
    /// (not only in positions made to ask it, whose earlier moves were played
    /// for it).
    pub natural: bool,
    /// Whether a fresh process playing its first game alone shows it again: set
    /// by whoever re-ran it (`koth <game> check` does).
    pub reproduced: Option<bool>,
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
    /// Games in which the bot made at least one fault.
    pub faulted_games: u64,
    last_faulted: Option<u64>,
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
            faulted_games: 0,
            last_faulted: None,
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

    /// A fault answering a decision of kind `kind` in game `game` at `position`,
    /// in a game the bot played from the first move.
    pub fn fault(&mut self, kind: usize, game: u64, fault: &Fault, position: String) {
        self.fault_in(kind, game, fault, position, false)
    }

    /// [`CheckReport::fault`], saying whether the game's position was made to
    /// ask the decision (`directed`: earlier moves were played for the bot). A
    /// fault made in a hook ([`Fault::hook`]) is counted at that hook, the first
    /// kind for a game's start and the last for its end, and in the game it
    /// belongs to: a line printed when a game ended is read in the next one.
    pub fn fault_in(
        &mut self,
        kind: usize,
        game: u64,
        fault: &Fault,
        position: String,
        directed: bool,
    ) {
        let last = self.kinds.len() - 1;
        let (kind, game, position) = match fault.hook {
            Some(crate::Hook::End) if game > 0 => (
                last,
                game - 1,
                format!(
                    "when told game {} ended (read in game {game}: {position})",
                    game - 1
                ),
            ),
            Some(crate::Hook::End) => (last, game, position),
            Some(crate::Hook::Start) => (
                0,
                game,
                format!("when told game {game} starts (read at its first answer: {position})"),
            ),
            None => (kind, game, position),
        };
        self.record(kind, game, fault, position, directed);
    }

    /// What the bot printed after its last answer of game `game`, when its
    /// program was closed: a fault of the game's end (the last kind).
    pub fn fault_after_game(&mut self, game: u64, fault: &Fault, directed: bool) {
        let at = "after its last answer, when told the game ended".to_string();
        self.record(self.kinds.len() - 1, game, fault, at, directed);
    }

    fn record(&mut self, kind: usize, game: u64, fault: &Fault, position: String, directed: bool) {
        let k = &mut self.kinds[kind];
        // A hook's fault is found at a decision, already counted there.
        if fault.hook.is_none() {
            k.asked += 1;
        }
        k.faults += 1;
        let label = k.label;
        if self.last_faulted != Some(game) {
            self.last_faulted = Some(game);
            self.faulted_games += 1;
        }
        let class = fault_class(&fault.reason);
        let line = error_line(fault.stderr_tail.as_deref());
        let same = |f: &Finding| {
            fault_class(&f.reason) == class
                && if fault.illegal {
                    f.kind == label
                } else {
                    error_line(f.stderr_tail.as_deref()) == line
                }
        };
        if let Some(f) = self.findings.iter_mut().find(|f| same(f)) {
            f.count += 1;
            f.natural |= !directed;
            if !f.kinds.contains(&label) {
                f.kinds.push(label);
            }
            return;
        }
        self.findings.push(Finding {
            kind: label,
            kinds: vec![label],
            game,
            reason: fault.reason.clone(),
            stderr_tail: fault.stderr_tail.clone(),
            position,
            count: 1,
            natural: !directed,
            reproduced: None,
        });
    }

    /// Marks decision kind `kind` as one the rules never ask.
    pub fn rule_out(&mut self, kind: usize) {
        self.kinds[kind].impossible = true;
    }

    /// No defect found.
    pub fn passed(&self) -> bool {
        self.findings.is_empty()
    }

    /// Kinds the check never managed to ask.
    pub fn unreached(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.kinds
            .iter()
            .filter(|k| k.asked == 0 && !k.impossible)
            .map(|k| k.label)
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

/// The line of a program's stderr that names its error (the last one naming an
/// error, an exception or a panic), which tells one crash from another.
pub fn error_line(stderr: Option<&str>) -> Option<&str> {
    let error = |l: &&str| l.contains("Error") || l.contains("Exception") || l.contains("panicked");
    stderr?.lines().rev().find(error).map(str::trim)
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
    fn different_faults_or_illegal_kinds_are_different_findings() {
        let mut r = CheckReport::new(&["a", "b"], Duration::from_secs(1));
        r.fault(0, 1, &Fault::new("timeout: x"), String::new());
        r.fault(0, 2, &Fault::new("garbage: y"), String::new());
        r.fault(
            1,
            3,
            &Fault::illegal_choice("illegal choice: z"),
            String::new(),
        );
        r.fault(
            0,
            3,
            &Fault::illegal_choice("illegal choice: w"),
            String::new(),
        );
        r.fault(
            1,
            4,
            &Fault::illegal_choice("illegal choice: v"),
            String::new(),
        );
        assert_eq!(r.findings.len(), 4);
        assert_eq!(r.findings[2].count, 2);
        assert_eq!(r.kinds[1].faults, 2);
        assert_eq!(r.faulted_games, 4);
    }

    #[test]
    fn one_crash_hitting_many_kinds_is_one_finding_listing_them() {
        let crash = |line: &str| Fault {
            stderr_tail: Some(format!("Traceback\n  File \"b.py\"\n{line}\n")),
            ..Fault::new("crashed (exit code 1)")
        };
        let mut r = CheckReport::new(&["a", "b", "c"], Duration::from_secs(1));
        r.fault(1, 50, &crash("RuntimeError: 50th"), String::new());
        r.fault(2, 100, &crash("RuntimeError: 50th"), String::new());
        r.fault(1, 150, &crash("RuntimeError: 50th"), String::new());
        r.fault(0, 151, &crash("KeyError: 'x'"), String::new());
        assert_eq!(r.findings.len(), 2, "{:?}", r.findings);
        assert_eq!(r.findings[0].kinds, ["b", "c"]);
        assert_eq!(r.findings[0].count, 3);
        assert_eq!(r.findings[0].game, 50);
        assert_eq!(r.findings[1].kinds, ["a"]);
    }

    #[test]
    fn a_fault_made_in_a_hook_counts_at_the_hook_in_its_own_game() {
        let mut r = CheckReport::new(&["start", "act", "end"], Duration::from_secs(1));
        let hooked = |hook| Fault {
            hook: Some(hook),
            ..Fault::new("wrote outside any answer: x")
        };
        // Printed when game 4 ended, read at an answer of game 5.
        r.fault(1, 5, &hooked(crate::Hook::End), "turn 1".into());
        assert_eq!((r.findings[0].kind, r.findings[0].game), ("end", 4));
        assert!(r.findings[0]
            .position
            .starts_with("when told game 4 ended (read in game 5: turn 1"));
        // Printed when game 7 started.
        r.fault(1, 7, &hooked(crate::Hook::Start), "turn 1".into());
        assert_eq!(r.findings[0].kinds, ["end", "start"]);
        // The decision that read it was not asked for it.
        assert_eq!(r.kinds[1].asked, 0);
        assert_eq!(
            (r.kinds[0].faults, r.kinds[1].faults, r.kinds[2].faults),
            (1, 0, 1)
        );
        // Printed after the last answer of game 9, when the program was closed.
        r.fault_after_game(9, &Fault::new("wrote a line nobody asked for: y"), false);
        assert_eq!((r.findings[1].kind, r.findings[1].game), ("end", 9));
    }

    #[test]
    fn kinds_the_rules_never_ask_are_not_unreached() {
        let mut r = CheckReport::new(&["a", "b"], Duration::from_secs(1));
        r.rule_out(1);
        assert_eq!(r.unreached().collect::<Vec<_>>(), ["a"]);
    }
}
