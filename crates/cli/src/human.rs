//! A person at the terminal as a seat (`koth coup play --bot me=human`, `koth
//! samurai play me=human bower`): shown only their own view, choosing among the
//! legal choices by number or by name.

use crate::coup_cmd::describe_choice;
use koth_arena::{Agent, Fault, Seat};
use koth_coup::{Choice, Pending, State};
use std::io::{BufRead, Write};

/// A human player reading choices from stdin.
pub struct HumanAgent {
    names: Vec<String>,
}

impl HumanAgent {
    /// A seat for the person at this terminal.
    pub fn new() -> Self {
        HumanAgent { names: Vec::new() }
    }
}

/// Lower case, single spaces, without the filler words a label may carry.
fn normal(s: &str) -> String {
    s.to_lowercase()
        .split_whitespace()
        .filter(|w| !matches!(*w, "with" | "from" | "against" | "seat"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The choice a typed answer names: its number (from 1), its label, or the start
/// of exactly one label ("inc", "steal early", "block duke").
pub fn parse_answer(input: &str, labels: &[String]) -> Result<usize, String> {
    let input = input.trim();
    let t = normal(input);
    if t.is_empty() {
        return Err("type a number or a choice".into());
    }
    if let Ok(n) = t.parse::<usize>() {
        return if (1..=labels.len()).contains(&n) {
            Ok(n - 1)
        } else {
            Err(format!("choose 1 to {}", labels.len()))
        };
    }
    let norm: Vec<String> = labels.iter().map(|l| normal(l)).collect();
    if let Some(i) = norm.iter().position(|l| *l == t) {
        return Ok(i);
    }
    let starts: Vec<usize> = (0..norm.len())
        .filter(|&i| norm[i].starts_with(&t))
        .collect();
    match starts[..] {
        [i] => Ok(i),
        [] => Err(format!("{input:?} is not one of the choices")),
        _ => Err(format!(
            "{input:?} could be {}",
            starts
                .iter()
                .map(|&i| labels[i].as_str())
                .collect::<Vec<_>>()
                .join(" or ")
        )),
    }
}

impl Agent<State> for HumanAgent {
    fn seat_names(&mut self, names: &[&str]) {
        self.names = names.iter().map(|n| n.to_string()).collect();
    }

    fn decide(&mut self, game: &State, seat: Seat, legal: &[Choice]) -> Result<Choice, Fault> {
        let labels: Vec<String> = legal
            .iter()
            .map(|&c| describe_choice(c, &self.names))
            .collect();
        let mut out = std::io::stdout();
        let me = self.names.get(seat).map_or("you", String::as_str);
        let who = |s: Seat| self.names.get(s).cloned().unwrap_or(format!("seat {s}"));
        let act = |a| describe_choice(Choice::Act(a), &self.names);
        let question = match game.pending() {
            Pending::Action { .. } => "your turn.".to_string(),
            Pending::ChallengeAction { actor, action, .. } => {
                format!("challenge {}'s {}?", who(actor), act(action))
            }
            Pending::Block { actor, action, .. } => {
                format!("block {}'s {}?", who(actor), act(action))
            }
            Pending::ChallengeBlock { blocker, card, .. } => {
                format!("challenge {}'s block with {card}?", who(blocker))
            }
            Pending::Exchange { .. } => "which cards do you keep?".to_string(),
            Pending::LoseInfluence { .. } => "which influence do you lose?".to_string(),
            Pending::Over => String::new(),
        };
        let cards: Vec<String> = game.hand(seat).iter().map(|c| c.to_string()).collect();
        let _ = writeln!(
            out,
            "\n  >> {me}: {question} You hold {} with {} coins.",
            cards.join(" and "),
            game.coins(seat)
        );
        if let Some([a, b]) = game.drawn() {
            let _ = writeln!(out, "  >> You drew {a} and {b}.");
        }
        let menu: Vec<String> = labels
            .iter()
            .enumerate()
            .map(|(i, l)| format!("{}) {l}", i + 1))
            .collect();
        // Several lines when long, to fit 80 columns.
        let mut line = String::new();
        for item in &menu {
            if !line.is_empty() && line.len() + item.len() > 70 {
                let _ = writeln!(out, "  >> {line}");
                line.clear();
            }
            if !line.is_empty() {
                line.push_str("   ");
            }
            line.push_str(item);
        }
        let _ = writeln!(out, "  >> {line}");
        loop {
            let _ = write!(out, "  >> choose: ");
            let _ = out.flush();
            let mut line = String::new();
            match std::io::stdin().lock().read_line(&mut line) {
                Ok(0) | Err(_) => return Err(Fault::new("the player left (end of input)")),
                Ok(_) => {}
            }
            match parse_answer(&line, &labels) {
                Ok(i) => return Ok(legal[i]),
                Err(why) => {
                    let _ = writeln!(out, "  >> {why}");
                }
            }
        }
    }
}

/// The position in `legal` of the samurai action a typed answer names: its letter
/// (W B G I P O, either case), its number, its name, or the unique start of its name.
pub fn parse_samurai(input: &str, legal: &[koth_samurai::Action]) -> Result<usize, String> {
    let t = input.trim();
    let letter = t
        .chars()
        .next()
        .filter(|_| t.len() == 1)
        .and_then(|c| koth_samurai::Action::from_char(c.to_ascii_uppercase()));
    if let Some(i) = letter.and_then(|a| legal.iter().position(|&x| x == a)) {
        return Ok(i);
    }
    let labels: Vec<String> = legal.iter().map(|a| a.describe().to_string()).collect();
    parse_answer(t, &labels)
}

impl Agent<koth_samurai::State> for HumanAgent {
    fn seat_names(&mut self, names: &[&str]) {
        self.names = names.iter().map(|n| n.to_string()).collect();
    }

    fn decide(
        &mut self,
        game: &koth_samurai::State,
        seat: Seat,
        legal: &[koth_samurai::Action],
    ) -> Result<koth_samurai::Action, Fault> {
        let mut out = std::io::stdout();
        let v = game.view(seat);
        let last = |h: &[koth_samurai::Action]| {
            h.last()
                .map_or("nothing yet".to_string(), |a| a.describe().to_string())
        };
        let _ = writeln!(
            out,
            "\n  >> turn {}: you have {} health and {} honour, the enemy {} and {}; last turn you: {}, the enemy: {}",
            v.turns_played() + 1,
            v.my_health,
            v.my_honour,
            v.enemy_health,
            v.enemy_honour,
            last(v.my_history),
            last(v.enemy_history)
        );
        let menu: Vec<String> = legal
            .iter()
            .map(|a| format!("{a}) {}", a.describe()))
            .collect();
        let _ = writeln!(out, "  >> {}", menu.join("   "));
        loop {
            let _ = write!(out, "  >> choose: ");
            let _ = out.flush();
            let mut line = String::new();
            match std::io::stdin().lock().read_line(&mut line) {
                Ok(0) | Err(_) => return Err(Fault::new("the player left (end of input)")),
                Ok(_) => {}
            }
            match parse_samurai(&line, legal) {
                Ok(i) => return Ok(legal[i]),
                Err(why) => {
                    let _ = writeln!(out, "  >> {why}");
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_by_number_label_or_unique_start() {
        let labels: Vec<String> = [
            "Income",
            "Foreign Aid",
            "Steal from early",
            "Steal from eve",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(parse_answer("1\n", &labels), Ok(0));
        assert_eq!(parse_answer(" foreign  AID ", &labels), Ok(1));
        assert_eq!(parse_answer("inc", &labels), Ok(0));
        assert_eq!(parse_answer("steal early", &labels), Ok(2));
        assert!(parse_answer("steal e", &labels).unwrap_err().contains("or"));
        assert!(parse_answer("5", &labels).unwrap_err().contains("1 to 4"));
        assert_eq!(
            parse_answer("tax\n", &labels).unwrap_err(),
            "\"tax\" is not one of the choices"
        );
        assert!(parse_answer("", &labels).is_err());
    }

    #[test]
    fn samurai_answers_by_letter_number_or_name() {
        use koth_samurai::Action;
        let legal = Action::ALL;
        assert_eq!(parse_samurai("p\n", &legal), Ok(4));
        assert_eq!(parse_samurai("O", &legal), Ok(5));
        assert_eq!(parse_samurai("1", &legal), Ok(0));
        assert_eq!(parse_samurai("quick", &legal), Ok(3));
        assert_eq!(parse_samurai("overhead strike", &legal), Ok(5));
        assert!(parse_samurai("x", &legal).is_err());
        assert!(parse_samurai("7", &legal).unwrap_err().contains("1 to 6"));
        // A letter counts only among the legal moves.
        assert_eq!(parse_samurai("g", &[Action::W, Action::G]), Ok(1));
    }
}
