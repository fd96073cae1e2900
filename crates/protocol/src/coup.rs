//! Coup over the wire.

use crate::wire::WireGame;
use koth_arena::Seat;
use koth_coup::{Action, Card, Event, Pending, Rules, State, View};
use serde::Serialize;

/// A pending Coup decision as sent to a bot.
///
/// `kind` is one of `action`, `challenge_action`, `block`, `challenge_block`,
/// `exchange`, `lose_influence`; the other fields are present when they apply.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct CoupDecision {
    /// The kind of decision.
    pub kind: &'static str,
    /// Whose turn it is (the player who declared the action).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actor: Option<Seat>,
    /// The action declared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<Action>,
    /// The card the actor claims (`challenge_action`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claim: Option<Card>,
    /// Cards that would block the action (`block`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blockers: Option<&'static [Card]>,
    /// Who blocked (`challenge_block`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blocker: Option<Seat>,
    /// The card the blocker claims (`challenge_block`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub card: Option<Card>,
}

impl CoupDecision {
    fn new(kind: &'static str) -> Self {
        CoupDecision {
            kind,
            actor: None,
            action: None,
            claim: None,
            blockers: None,
            blocker: None,
            card: None,
        }
    }

    /// The decision for a pending state.
    pub fn of(p: Pending) -> Self {
        match p {
            Pending::Action { actor } => CoupDecision {
                actor: Some(actor),
                ..Self::new("action")
            },
            Pending::ChallengeAction { actor, action, .. } => CoupDecision {
                actor: Some(actor),
                action: Some(action),
                claim: action.claim(),
                ..Self::new("challenge_action")
            },
            Pending::Block { actor, action, .. } => CoupDecision {
                actor: Some(actor),
                action: Some(action),
                blockers: Some(action.blockers()),
                ..Self::new("block")
            },
            Pending::ChallengeBlock {
                actor,
                action,
                blocker,
                card,
                ..
            } => CoupDecision {
                actor: Some(actor),
                action: Some(action),
                blocker: Some(blocker),
                card: Some(card),
                ..Self::new("challenge_block")
            },
            Pending::Exchange { actor } => CoupDecision {
                actor: Some(actor),
                ..Self::new("exchange")
            },
            Pending::LoseInfluence { .. } => Self::new("lose_influence"),
            Pending::Over => Self::new("over"),
        }
    }
}

/// What one Coup seat sees, as sent to its bot.
#[derive(Clone, Debug, Serialize)]
pub struct CoupView<'a> {
    /// My seat.
    pub seat: Seat,
    /// Seats at the table.
    pub players: usize,
    /// My face-down cards.
    pub cards: &'a [Card],
    /// The two cards drawn in my pending Exchange.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drawn: Option<[Card; 2]>,
    /// Coins per seat.
    pub coins: PerSeat<'a, u8>,
    /// Face-down card count per seat.
    pub influence: PerSeat<'a, usize>,
    /// Face-up (lost) cards per seat.
    pub revealed: PerSeat<'a, &'a [Card]>,
    /// Whether each seat is still in.
    pub alive: PerSeat<'a, bool>,
    /// Cards in the deck.
    pub deck_size: usize,
    /// Turns completed.
    pub turn: u32,
}

impl<'a> CoupView<'a> {
    /// The view of `seat`.
    pub fn of(state: &'a State, seat: Seat) -> Self {
        let v = View::new(state, seat);
        CoupView {
            seat,
            players: v.players(),
            cards: v.my_cards(),
            drawn: v.drawn(),
            coins: PerSeat {
                state,
                f: |st, s| st.coins(s),
            },
            influence: PerSeat {
                state,
                f: |st, s| st.influence(s),
            },
            revealed: PerSeat {
                state,
                f: |st, s| st.revealed(s),
            },
            alive: PerSeat {
                state,
                f: |st, s| st.is_alive(s),
            },
            deck_size: v.deck_size(),
            turn: v.turns(),
        }
    }
}

/// The rules as `start` sends them: the rule options and, under rules that ask in
/// table order (coupcli), the seat this game's table order starts at.
#[derive(Serialize)]
struct WireRules<'a> {
    #[serde(flatten)]
    rules: &'a Rules,
    #[serde(skip_serializing_if = "Option::is_none")]
    table_start: Option<Seat>,
}

impl WireGame for State {
    fn wire_rules(&self) -> impl Serialize + '_ {
        WireRules {
            rules: self.rules(),
            table_start: self.table_start(),
        }
    }
    fn decision_json(&self) -> impl Serialize + '_ {
        CoupDecision::of(self.pending())
    }
    fn view_json(&self, seat: Seat) -> impl Serialize + '_ {
        CoupView::of(self, seat)
    }
    fn events_since(&self, _seat: Seat, cursor: usize) -> (impl Serialize + '_, usize) {
        let log: &[Event] = self.log();
        let from = cursor.min(log.len());
        (&log[from..], log.len())
    }
}

/// One public value per seat, serialized as an array without allocating.
#[derive(Clone, Copy)]
pub struct PerSeat<'a, T> {
    state: &'a State,
    f: fn(&'a State, Seat) -> T,
}

impl<T: std::fmt::Debug> std::fmt::Debug for PerSeat<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries((0..self.state.players()).map(|s| (self.f)(self.state, s)))
            .finish()
    }
}

impl<T: Serialize> Serialize for PerSeat<'_, T> {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        ser.collect_seq((0..self.state.players()).map(|s| (self.f)(self.state, s)))
    }
}

#[cfg(test)]
mod tests {
    use crate::Encoder;
    use koth_coup::{Rules, State};

    #[test]
    fn start_says_where_the_table_order_starts_under_rules_that_ask_in_it() {
        let mut starts = std::collections::BTreeSet::new();
        for seed in 0..40 {
            let g = State::new(Rules::coupcli(), 3, seed);
            let t = g.table_start().unwrap();
            starts.insert(t);
            let mut e = Encoder::new();
            let line = e.start(&g, 1, 9).unwrap().to_string();
            let v: serde_json::Value = serde_json::from_str(&line).unwrap();
            assert_eq!(v["rules"]["table_start"], t, "{line}");
            assert_eq!(v["rules"]["preset"], "coupcli", "{line}");
        }
        // Drawn per game.
        assert_eq!(starts.len(), 3);
        let g = State::new(Rules::standard(), 3, 1);
        let line = Encoder::new().start(&g, 0, 9).unwrap().to_string();
        assert!(!line.contains("table_start"), "{line}");
    }
}
