//! The original command-line protocol (the pure parts):
//! `COMMAND [MY_HISTORY ENEMY_HISTORY] MY_HEALTH ENEMY_HEALTH MY_HONOUR ENEMY_HONOUR`,
//! answered by one letter on stdout.

use koth_samurai::View;
use koth_samurai::{history_string, Action};
use std::fmt;

/// The arguments a program gets for `view`: on the first turn only the four numbers
/// (the histories are left out, not passed as empty strings).
///
/// ```
/// use koth_samurai::{Action, View};
/// use koth_samurai_programs::protocol::arguments;
/// let mine = [Action::B, Action::I];
/// let theirs = [Action::G, Action::W];
/// let view = View { my_history: &mine, enemy_history: &theirs, my_health: 20, enemy_health: 19, my_honour: 1, enemy_honour: 0 };
/// assert_eq!(arguments(&view), ["BI", "GW", "20", "19", "1", "0"]);
/// ```
pub fn arguments(view: &View) -> Vec<String> {
    let mut args = Vec::with_capacity(6);
    if !view.is_first_turn() {
        args.push(history_string(view.my_history));
        args.push(history_string(view.enemy_history));
    }
    args.extend(
        [
            view.my_health,
            view.enemy_health,
            view.my_honour,
            view.enemy_honour,
        ]
        .map(|n| n.to_string()),
    );
    args
}

/// Why a program's output is not an action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BadOutput {
    /// Nothing but white space.
    Empty,
    /// The first non-white-space character is not one of W B G I P O (lower case
    /// does not count).
    NotAnAction(String),
}

impl fmt::Display for BadOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BadOutput::Empty => write!(f, "no output"),
            BadOutput::NotAnAction(c) => {
                write!(f, "output starts with {c:?}, not one of W B G I P O")
            }
        }
    }
}

/// Reads a program's output: the first non-white-space character counts, upper case
/// only.
///
/// ```
/// use koth_samurai::Action;
/// use koth_samurai_programs::protocol::{read_output, BadOutput};
/// assert_eq!(read_output(b"\n  Parry!\n"), Ok(Action::P));
/// assert_eq!(read_output(b"  "), Err(BadOutput::Empty));
/// assert!(read_output(b"p").is_err());
/// ```
pub fn read_output(bytes: &[u8]) -> Result<Action, BadOutput> {
    let text = String::from_utf8_lossy(bytes);
    let Some(c) = text.chars().find(|c| !c.is_whitespace()) else {
        return Err(BadOutput::Empty);
    };
    Action::from_char(c).ok_or_else(|| BadOutput::NotAnAction(c.to_string()))
}

/// A program's action from its output, with the protocol's fallback: anything that
/// is not an action is recorded as W.
///
/// ```
/// use koth_samurai::Action;
/// use koth_samurai_programs::protocol::parse_output;
/// assert_eq!(parse_output(b"I\n"), Action::I);
/// assert_eq!(parse_output(b"garbage"), Action::W);
/// ```
pub fn parse_output(bytes: &[u8]) -> Action {
    read_output(bytes).unwrap_or(Action::W)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view<'a>(me: &'a [Action], en: &'a [Action]) -> View<'a> {
        View {
            my_history: me,
            enemy_history: en,
            my_health: 20,
            enemy_health: 18,
            my_honour: 3,
            enemy_honour: -0,
        }
    }

    #[test]
    fn first_turn_has_four_arguments() {
        assert_eq!(arguments(&view(&[], &[])), ["20", "18", "3", "0"]);
    }

    #[test]
    fn later_turns_have_six() {
        let args = arguments(&view(
            &[Action::W, Action::B, Action::B, Action::P],
            &[Action::B, Action::B, Action::B, Action::I],
        ));
        assert_eq!(args, ["WBBP", "BBBI", "20", "18", "3", "0"]);
    }

    #[test]
    fn negative_numbers_are_written_plainly() {
        let v = View {
            my_history: &[Action::O],
            enemy_history: &[Action::O],
            my_health: -1,
            enemy_health: 0,
            my_honour: -1,
            enemy_honour: 7,
        };
        assert_eq!(arguments(&v), ["O", "O", "-1", "0", "-1", "7"]);
    }

    #[test]
    fn output_rules() {
        for a in Action::ALL {
            assert_eq!(parse_output(a.to_char().to_string().as_bytes()), a);
        }
        assert_eq!(parse_output(b"Parry"), Action::P);
        assert_eq!(parse_output(b"\t\r\n O"), Action::O);
        assert_eq!(parse_output(b"BI"), Action::B);
        assert_eq!(parse_output(b""), Action::W);
        assert_eq!(read_output(b"\n\n"), Err(BadOutput::Empty));
        assert_eq!(read_output(b"i"), Err(BadOutput::NotAnAction("i".into())));
        assert_eq!(parse_output(b"x B"), Action::W);
        assert_eq!(parse_output(b"1"), Action::W);
        assert_eq!(parse_output(&[0xff, b'B']), Action::W);
        assert_eq!(
            parse_output("\u{00a0}G".as_bytes()),
            Action::G,
            "Unicode white space is white space"
        );
        assert_eq!(
            parse_output("Ｇ".as_bytes()),
            Action::W,
            "a full-width letter is not an action"
        );
    }

    #[test]
    fn reasons_read_well() {
        assert_eq!(BadOutput::Empty.to_string(), "no output");
        assert!(BadOutput::NotAnAction("p".into())
            .to_string()
            .contains("\"p\""));
    }
}
