//! Ultimate Samurai Showdown over the wire.
//!
//! The duel is simultaneous: seat 0 is asked first and its move stays hidden until
//! seat 1 has answered and the turn resolves, so nothing a seat receives depends on
//! the other seat's move of the current turn.

use crate::wire::WireGame;
use koth_arena::Seat;
use koth_samurai::{Action, SamuraiState, State, TurnLog};
use serde::{Serialize, Serializer};

/// The pending samurai decision: always `{"kind": "turn", "turn": N}` (N from 1).
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
pub struct SamuraiDecision {
    /// Always `turn`.
    pub kind: &'static str,
    /// The turn being chosen, from 1.
    pub turn: u32,
}

/// One samurai as a bot sees it: health, honour and recorded actions.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct SamuraiSide<'a> {
    /// Health (0 or less is death).
    pub health: i32,
    /// Honour (below 0 the gods strike the samurai down).
    pub honour: i32,
    /// Recorded actions, oldest first, as the original protocol writes them (`"BGI"`).
    #[serde(serialize_with = "letters")]
    pub history: &'a [Action],
}

fn letters<S: Serializer>(h: &&[Action], ser: S) -> Result<S::Ok, S::Error> {
    struct Letters<'a>(&'a [Action]);
    impl std::fmt::Display for Letters<'_> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            self.0
                .iter()
                .try_for_each(|a| std::fmt::Write::write_char(f, a.to_char()))
        }
    }
    ser.collect_str(&Letters(h))
}

impl<'a> SamuraiSide<'a> {
    fn of(s: &'a SamuraiState) -> Self {
        SamuraiSide {
            health: s.health,
            honour: s.honour,
            history: &s.history,
        }
    }
}

/// What one samurai seat sees, as sent to its bot: the same facts the original
/// command line gives (both histories, healths and honours), plus the seat and turn.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct SamuraiView<'a> {
    /// My seat (0 is asked first each turn; that changes nothing in the rules).
    pub seat: Seat,
    /// Turns resolved so far.
    pub turn: u32,
    /// My samurai.
    pub me: SamuraiSide<'a>,
    /// The enemy.
    pub enemy: SamuraiSide<'a>,
}

impl<'a> SamuraiView<'a> {
    /// The view of `seat`.
    pub fn of(state: &'a State, seat: Seat) -> Self {
        SamuraiView {
            seat,
            turn: state.log().len() as u32,
            me: SamuraiSide::of(state.samurai(seat)),
            enemy: SamuraiSide::of(state.samurai(1 - seat)),
        }
    }
}

impl WireGame for State {
    fn wire_rules(&self) -> impl Serialize + '_ {
        self.rules()
    }
    fn decision_json(&self) -> impl Serialize + '_ {
        SamuraiDecision {
            kind: "turn",
            turn: self.log().len() as u32 + 1,
        }
    }
    fn view_json(&self, seat: Seat) -> impl Serialize + '_ {
        SamuraiView::of(self, seat)
    }
    /// Resolved turns only: both moves of a turn become visible together.
    fn events_since(&self, _seat: Seat, cursor: usize) -> (impl Serialize + '_, usize) {
        let log: &[TurnLog] = self.log();
        let from = cursor.min(log.len());
        (&log[from..], log.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::Encoder;
    use koth_arena::Game;
    use koth_samurai::Rules;

    #[test]
    fn lines_of_a_turn() {
        let mut duel = State::new(&Rules::default(), 9);
        let mut enc = [Encoder::new(), Encoder::new()];
        let start = enc[1].start(&duel, 1, 77).unwrap().to_string();
        assert_eq!(
            start,
            r#"{"type":"start","game_id":1,"seat":1,"players":2,"rules":{"starting_health":20,"starting_honour":1,"turn_limit":500,"god_sword_honour":7},"seed":77,"view":{"seat":1,"turn":0,"me":{"health":20,"honour":1,"history":""},"enemy":{"health":20,"honour":1,"history":""}}}"#
        );
        let mut legal = Vec::new();
        duel.legal_choices(&mut legal);
        duel.apply(Action::I).unwrap();
        // Seat 1 is asked while seat 0's quick draw is pending: nothing shows it.
        let d = enc[1].decide(&duel, 1, &legal, 1).unwrap().to_string();
        assert_eq!(
            d,
            r#"{"type":"decide","id":1,"events":[],"decision":{"kind":"turn","turn":1},"view":{"seat":1,"turn":0,"me":{"health":20,"honour":1,"history":""},"enemy":{"health":20,"honour":1,"history":""}},"legal":["W","B","G","I","P","O"]}"#
        );
        duel.apply(Action::B).unwrap();
        let d = enc[1].decide(&duel, 1, &legal, 2).unwrap().to_string();
        assert!(
            d.contains(r#""events":[{"turn":1,"actions":["I","B"],"god_sword":[false,false],"damage":[0,1],"honour_change":[-1,1],"after":[{"health":20,"honour":0},{"health":19,"honour":2}]}]"#),
            "{d}"
        );
        assert!(
            d.contains(r#""me":{"health":19,"honour":2,"history":"B"},"enemy":{"health":20,"honour":0,"history":"I"}"#),
            "{d}"
        );
        // Each event is sent once.
        let d = enc[1].decide(&duel, 1, &legal, 3).unwrap().to_string();
        assert!(d.contains(r#""events":[]"#), "{d}");
    }
}
