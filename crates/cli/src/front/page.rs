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
}
