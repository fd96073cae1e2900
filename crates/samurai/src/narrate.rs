//! Turning a duel into sentences, for a terminal.

use crate::action::Action;
use crate::state::{EndReason, State};
use crate::turn::TurnLog;
use koth_arena::Game;

/// One turn in words, with the samurai called `first` and `second`.
///
/// ```
/// use koth_samurai::{narrate_turn, Action, Rules, State};
/// let mut duel = State::new(&Rules::default(), 0);
/// let log = *duel.play_turn(Action::I, Action::P).unwrap();
/// assert_eq!(
///     narrate_turn(&log),
///     "turn 1: first quick draw, second parry: the parry beats the quick draw, first takes 1 damage; \
///      first 19 health 0 honour, second 20 health 0 honour"
/// );
/// ```
pub fn narrate_turn(log: &TurnLog) -> String {
    narrate_turn_with(log, ["first", "second"])
}

/// One turn in words, with the samurai called by `names` (seat order).
pub fn narrate_turn_with(log: &TurnLog, names: [&str; 2]) -> String {
    let [a, b] = log.actions;
    let act = |s: usize| {
        let action = log.actions[s];
        if action.is_strike() && log.god_sword[s] {
            format!(
                "{} {} with the Sword of the Gods",
                names[s],
                action.describe()
            )
        } else {
            format!("{} {}", names[s], action.describe())
        }
    };
    let mut events: Vec<String> = Vec::new();
    if a.is_strike() && b.is_strike() {
        if a == b {
            events.push("the strikes cancel".into());
        } else {
            let (w, l) = if a.beats(b) { (a, b) } else { (b, a) };
            events.push(format!("the {} beats the {}", w.describe(), l.describe()));
        }
    } else {
        for s in 0..2 {
            if log.actions[s].is_strike() && log.actions[1 - s] == Action::G {
                events.push(format!("{} blocks", names[1 - s]));
            }
        }
    }
    for (s, name) in names.iter().enumerate() {
        if log.damage[s] > 0 {
            events.push(format!("{name} takes {} damage", log.damage[s]));
        }
        if log.actions[s] == Action::G && log.honour_change[s] < 0 {
            events.push(format!("{name} guarded twice and loses 1 honour"));
        }
    }
    let mut out = format!("turn {}: {}, {}", log.turn, act(0), act(1));
    if !events.is_empty() {
        out.push_str(": ");
        out.push_str(&events.join(", "));
    }
    out.push_str(&format!(
        "; {} {} health {} honour, {} {} health {} honour",
        names[0],
        log.after[0].health,
        log.after[0].honour,
        names[1],
        log.after[1].health,
        log.after[1].honour
    ));
    out
}

/// How the duel ended, in words (`None` while it runs).
///
/// ```
/// use koth_samurai::{narrate_end, Action, Rules, State};
/// let mut duel = State::new(&Rules::default(), 0);
/// duel.play_turn(Action::I, Action::B).unwrap();
/// duel.play_turn(Action::I, Action::B).unwrap();
/// assert_eq!(narrate_end(&duel, ["Ann", "Bo"]).unwrap(), "Ann is struck down by the gods; Bo wins");
/// ```
pub fn narrate_end(state: &State, names: [&str; 2]) -> Option<String> {
    let outcome = state.outcome()?;
    let verdict = match outcome.winners.len() {
        1 => format!("{} wins", names[outcome.winners.iter().next().unwrap_or(0)]),
        _ => "a draw".to_string(),
    };
    let both = format!("{} and {}", names[0], names[1]);
    let who = |set: koth_arena::SeatSet| {
        if set.len() == 2 {
            both.clone()
        } else {
            names[set.iter().next().unwrap_or(0)].to_string()
        }
    };
    Some(match state.end_reason()? {
        EndReason::StruckDown(s) => {
            let verb = if s.len() == 2 { "are" } else { "is" };
            format!("{} {verb} struck down by the gods; {verdict}", who(s))
        }
        EndReason::Slain(s) => {
            let verb = if s.len() == 2 { "fall" } else { "falls" };
            format!("{} {verb}; {verdict}", who(s))
        }
        EndReason::TurnLimit => format!(
            "{} turns pass and the gods grow bored; {verdict}",
            outcome.turns
        ),
        EndReason::Forfeit(s) => format!("{} forfeits; {verdict}", names[s]),
        EndReason::Adjudicated => format!("adjudicated; {verdict}"),
    })
}
