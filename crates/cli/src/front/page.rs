//! A game told as the steps of the report page's replay viewer: each step the
//! lines that tell it and the table after it.

use koth_arena::{Ending, Outcome};
use serde_json::{json, Value};

/// One step of a replay, as embedded: `[table, line, line...]`. `table` is the
/// game's state after the step as a short string (`0` when unchanged); each
/// line is a tone letter followed by the text (see `TONES` in the script).
pub type Step = Vec<Value>;

/// Collects steps, leaving out unchanged tables and folding runs of like lines
/// (Coup's "a, b and c let it stand") into one step.
#[derive(Default)]
pub struct Steps {
    /// The steps so far.
    pub steps: Vec<Step>,
    last: Option<String>,
    folded: Option<(&'static str, Vec<String>)>,
}

impl Steps {
    /// A step of `lines` after which the table is `table`.
    pub fn push(&mut self, lines: Vec<String>, table: String) {
        self.folded = None;
        let mut step = Vec::with_capacity(lines.len() + 1);
        if self.last.as_ref() == Some(&table) {
            step.push(json!(0));
        } else {
            step.push(json!(table));
            self.last = Some(table);
        }
        step.extend(lines.into_iter().map(Value::String));
        self.steps.push(step);
    }
    /// One more line of kind `kind` about `who`: it joins the previous step when
    /// that was of the same kind (and nothing else comes first), and `text` words
    /// the line for everyone folded into it.
    pub fn fold(
        &mut self,
        kind: &'static str,
        who: &str,
        table: String,
        mut first: Vec<String>,
        text: fn(&'static str, &[String]) -> String,
    ) {
        match &mut self.folded {
            Some((k, names))
                if first.is_empty() && *k == kind && self.last.as_ref() == Some(&table) =>
            {
                names.push(who.to_string());
                let line = Value::String(format!("q{}", text(kind, names)));
                if let Some(l) = self.steps.last_mut().and_then(|s| s.last_mut()) {
                    *l = line;
                }
            }
            _ => {
                let names = vec![who.to_string()];
                first.push(format!("q{}", text(kind, &names)));
                self.push(first, table);
                self.folded = Some((kind, names));
            }
        }
    }
    /// The steps, the last ending with `text`.
    pub fn end(mut self, text: String) -> Vec<Step> {
        let line = Value::String(format!("e{text}"));
        match self.steps.last_mut() {
            Some(s) => s.push(line),
            None => self.steps.push(vec![json!(0), line]),
        }
        self.steps
    }
}

/// `a`, `a and b`, `a, b and c`.
pub fn joined(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [a] => a.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// "Game over after 31 turns: economist wins."
pub fn verdict(outcome: &Outcome, names: &[String]) -> String {
    let winners: Vec<String> = outcome.winners.iter().map(|s| names[s].clone()).collect();
    let who = match winners.len() {
        0 => "nobody wins".to_string(),
        1 => format!("{} wins", winners[0]),
        // Every seat "won": a draw (a samurai duel's 500th turn, a capped game).
        n if n == names.len() => "a draw".to_string(),
        _ => format!("{} share the win", joined(&winners)),
    };
    let how = match outcome.ending {
        Ending::Decided => "",
        Ending::TurnCap => " (turn cap reached)",
        Ending::Adjudicated => " (adjudicated)",
    };
    format!("Game over after {} turns: {who}{how}.", outcome.turns)
}

/// What a bot logged at a decision, as lines of the page's replay (tone `x`):
/// shown at the top of the step that applies the choice it was making.
pub fn log_lines(names: &[String], n: &koth_arena::records::NoticeRecord) -> Vec<String> {
    let name = names.get(n.seat).map_or("?", String::as_str);
    n.text
        .lines()
        .map(|l| format!("x{name} stderr | {}", koth_process::printable(l)))
        .collect()
}

/// The lines a program's decision adds to the page's replay, before the step
/// that applies its choice: what it logged (tone `x`), then what it was asked,
/// what it answered and how long it took (tone `d`). Only programs' decisions
/// are timed, so only they get the second line.
pub fn decision_lines(
    log: Option<&koth_arena::GameLog>,
    names: &[String],
    at: u64,
    seat: Option<usize>,
    request: impl FnOnce() -> (String, Vec<String>),
    answer: &str,
) -> Vec<String> {
    let Some(log) = log else {
        return Vec::new();
    };
    let mut lines: Vec<String> = log.lines_at(at).flat_map(|n| log_lines(names, n)).collect();
    if let Some((seat, (took, at_most))) = seat.and_then(|s| Some((s, log.time_at(at, s)?))) {
        let (kind, legal) = request();
        let name = names.get(seat).map_or("?", String::as_str);
        // Short lists are worth reading whole; a turn's 16 actions are not.
        let choices = match legal.len() {
            1 => format!("1 choice: {}", legal[0]),
            n if n <= 6 => format!("{n} choices: {}", legal.join(", ")),
            n => format!("{n} choices"),
        };
        // A bound when the answer sat unread behind other programs' answers.
        let within = if at_most { "≤ " } else { "" };
        lines.push(format!(
            "d{name} asked: {kind} ({choices}) → {answer} · {within}{}",
            took_text(took)
        ));
    }
    lines
}

/// A decision's time as people read it: `840 µs`, `3.2 ms`, `1.04 s`.
pub fn took_text(t: std::time::Duration) -> String {
    let us = t.as_micros();
    if us < 1000 {
        format!("{us} µs")
    } else if us < 100_000 {
        format!("{:.1} ms", us as f64 / 1000.0)
    } else if us < 1_000_000 {
        format!("{} ms", us / 1000)
    } else {
        format!("{:.2} s", us as f64 / 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_draw_reads_as_one() {
        let names = ["waiter".to_string(), "copycat".to_string(), "x".to_string()];
        let o = |w: &[usize], seats: usize| {
            let mut set = koth_arena::SeatSet::EMPTY;
            w.iter().for_each(|&s| set.insert(s));
            (
                Outcome {
                    winners: set,
                    ending: Ending::Decided,
                    turns: 500,
                },
                names[..seats].to_vec(),
            )
        };
        let (out, n) = o(&[0, 1], 2);
        assert_eq!(verdict(&out, &n), "Game over after 500 turns: a draw.");
        let (out, n) = o(&[0, 1], 3);
        assert!(verdict(&out, &n).contains("share the win"));
        let (out, n) = o(&[2], 3);
        assert!(verdict(&out, &n).contains("x wins"));
    }

    #[test]
    fn times_read_in_their_unit() {
        use std::time::Duration;
        assert_eq!(took_text(Duration::from_micros(840)), "840 µs");
        assert_eq!(took_text(Duration::from_micros(3_240)), "3.2 ms");
        assert_eq!(took_text(Duration::from_micros(250_400)), "250 ms");
        assert_eq!(took_text(Duration::from_micros(1_040_000)), "1.04 s");
    }

    #[test]
    fn a_programs_decision_reads_with_its_request_answer_and_time() {
        use koth_arena::{GameLog, NoticeKind, NoticeRecord, Took};
        let names = ["alice".to_string(), "bob".to_string()];
        let log = GameLog {
            lines: vec![NoticeRecord {
                seat: 1,
                at: 4,
                entrant: 1,
                kind: NoticeKind::Log,
                text: "thinking".into(),
                raw: None,
                tried: None,
            }],
            times: vec![Took(4, 1, 3_240, false), Took(5, 0, 12, true)],
        };
        let req = || {
            (
                "block".to_string(),
                vec!["Pass".into(), "Block with Duke".into()],
            )
        };
        assert_eq!(
            decision_lines(Some(&log), &names, 4, Some(1), req, "Pass"),
            [
                "xbob stderr | thinking",
                "dbob asked: block (2 choices: Pass, Block with Duke) → Pass · 3.2 ms"
            ]
        );
        // A seat without a time (a built-in bot) gets no decision line.
        assert_eq!(
            decision_lines(Some(&log), &names, 4, Some(0), req, "Pass"),
            ["xbob stderr | thinking"]
        );
        assert!(decision_lines(Some(&log), &names, 3, Some(0), req, "Pass").is_empty());
        let many = || ("action".to_string(), vec!["x".to_string(); 16]);
        assert_eq!(
            decision_lines(Some(&log), &names, 5, Some(0), many, "Tax"),
            ["dalice asked: action (16 choices) → Tax · ≤ 12 µs"]
        );
        assert!(decision_lines(None, &names, 4, Some(1), req, "Pass").is_empty());
    }
}
