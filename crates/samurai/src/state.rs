//! The duel as a pure state machine implementing [`koth_arena::Game`].
//!
//! Moves are simultaneous; the state asks seat 0, keeps its answer hidden, asks
//! seat 1, then resolves the turn. Nobody sees a move before the turn resolves.

use crate::action::Action;
use crate::rules::Rules;
use crate::turn::{resolve, Standing, TurnLog};
use crate::view::View;
use koth_arena::Random;
use koth_arena::{Ending, Game, IllegalChoice, Outcome, Rng, Seat, SeatSet};
use serde::{Deserialize, Serialize};

/// One samurai in a duel: health, honour and recorded actions.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SamuraiState {
    /// Health: 0 or less is death.
    pub health: i32,
    /// Honour: below 0 the gods strike the samurai down.
    pub honour: i32,
    /// Recorded actions, oldest first.
    pub history: Vec<Action>,
}

impl SamuraiState {
    /// Health and honour.
    pub fn standing(&self) -> Standing {
        Standing {
            health: self.health,
            honour: self.honour,
        }
    }
}

/// Why a duel ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// These seats' honour fell below 0 and the gods struck them down.
    StruckDown(SeatSet),
    /// These seats' health fell to 0 or below (nobody was struck down).
    Slain(SeatSet),
    /// The turn limit passed with both alive: a draw.
    TurnLimit,
    /// This seat forfeited (a crash or an error of its adapter).
    Forfeit(Seat),
    /// Ended from outside the rules.
    Adjudicated,
}

/// Everything one seat may see, owned and comparable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Observation {
    /// The viewing seat.
    pub seat: Seat,
    /// The viewer's samurai.
    pub me: SamuraiState,
    /// The other samurai.
    pub enemy: SamuraiState,
    /// The viewer's own undisclosed action this turn, if it already chose.
    pub my_pending: Option<Action>,
    /// The seat to move.
    pub to_move: Option<Seat>,
    /// The result, once over.
    pub outcome: Option<Outcome>,
    /// Why it ended, once over.
    pub end: Option<EndReason>,
}

/// One duel between two samurai.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    rules: Rules,
    seed: u64,
    samurai: [SamuraiState; 2],
    pending: Option<Action>,
    log: Vec<TurnLog>,
    outcome: Option<Outcome>,
    end: Option<EndReason>,
}

impl State {
    /// A fresh duel under `rules`; `seed` is only recorded (the duel has no chance).
    pub fn new(rules: &Rules, seed: u64) -> Self {
        let fresh = SamuraiState {
            health: rules.starting_health,
            honour: rules.starting_honour,
            history: Vec::with_capacity(64),
        };
        State {
            rules: *rules,
            seed,
            samurai: [fresh.clone(), fresh],
            pending: None,
            log: Vec::with_capacity(64),
            outcome: None,
            end: None,
        }
    }

    /// The rules of this duel.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The seed the duel was created with (the game's seed in a tournament).
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Seat `seat`'s samurai.
    pub fn samurai(&self, seat: Seat) -> &SamuraiState {
        &self.samurai[seat]
    }

    /// Every resolved turn, oldest first.
    pub fn log(&self) -> &[TurnLog] {
        &self.log
    }

    /// Why the duel ended, once it has.
    pub fn end_reason(&self) -> Option<EndReason> {
        self.end
    }

    /// What `seat`'s samurai sees before choosing: never the enemy's pending move.
    pub fn view(&self, seat: Seat) -> View<'_> {
        let (me, enemy) = (&self.samurai[seat], &self.samurai[1 - seat]);
        View {
            my_history: &me.history,
            enemy_history: &enemy.history,
            my_health: me.health,
            enemy_health: enemy.health,
            my_honour: me.honour,
            enemy_honour: enemy.honour,
        }
    }

    /// Plays one whole turn (both choices); for tests and scripted duels.
    pub fn play_turn(&mut self, first: Action, second: Action) -> Result<&TurnLog, IllegalChoice> {
        if self.pending.is_some() {
            return Err(IllegalChoice("a turn is half chosen".into()));
        }
        self.apply(first)?;
        self.apply(second)?;
        Ok(self.log.last().expect("a turn was resolved"))
    }

    fn finish(&mut self, winners: SeatSet, ending: Ending, reason: EndReason) {
        self.pending = None;
        self.outcome = Some(Outcome {
            winners,
            ending,
            turns: self.log.len() as u32,
        });
        self.end = Some(reason);
    }

    fn other(seats: SeatSet) -> SeatSet {
        SeatSet(!seats.0 & 0b11)
    }

    /// Applies the end-of-turn checks of the rules.
    fn judge(&mut self) {
        let mut down = SeatSet::EMPTY;
        let mut dead = SeatSet::EMPTY;
        for s in 0..2 {
            if self.samurai[s].honour < 0 {
                down.insert(s);
            }
            if self.samurai[s].health <= 0 {
                dead.insert(s);
            }
        }
        if !down.is_empty() {
            // Struck down by the gods takes priority over health; both struck down
            // leaves both seats as winners: a draw.
            let winners = if down.len() == 2 {
                SeatSet::all(2)
            } else {
                Self::other(down)
            };
            self.finish(winners, Ending::Decided, EndReason::StruckDown(down));
        } else if !dead.is_empty() {
            let winners = if dead.len() == 2 {
                SeatSet::all(2)
            } else {
                Self::other(dead)
            };
            self.finish(winners, Ending::Decided, EndReason::Slain(dead));
        } else if self.log.len() as u32 >= self.rules.turn_limit {
            self.finish(SeatSet::all(2), Ending::TurnCap, EndReason::TurnLimit);
        }
    }
}

impl Game for State {
    type Choice = Action;
    type Rules = Rules;
    type Observation = Observation;

    const NAME: &'static str = "samurai";

    fn seats_allowed(_rules: &Rules) -> std::ops::RangeInclusive<usize> {
        2..=2
    }

    /// A duel; panics unless `seats` is 2 (check [`Game::seats_allowed`] first).
    fn new_game(rules: &Rules, seats: usize, seed: u64) -> Self {
        assert_eq!(seats, 2, "a samurai duel has exactly two seats");
        State::new(rules, seed)
    }

    fn seats(&self) -> usize {
        2
    }

    fn to_move(&self) -> Option<Seat> {
        if self.outcome.is_some() {
            None
        } else if self.pending.is_none() {
            Some(0)
        } else {
            Some(1)
        }
    }

    fn legal_choices(&self, out: &mut Vec<Action>) {
        if self.outcome.is_none() {
            out.extend_from_slice(&Action::ALL);
        }
    }

    fn apply(&mut self, choice: Action) -> Result<(), IllegalChoice> {
        if self.outcome.is_some() {
            return Err(IllegalChoice(format!("{choice} after the duel ended")));
        }
        let Some(first) = self.pending.take() else {
            self.pending = Some(choice);
            return Ok(());
        };
        let actions = [first, choice];
        let before = [self.samurai[0].standing(), self.samurai[1].standing()];
        let previous = [
            self.samurai[0].history.last().copied(),
            self.samurai[1].history.last().copied(),
        ];
        let log = resolve(
            &self.rules,
            self.log.len() as u32 + 1,
            actions,
            before,
            previous,
        );
        for (s, sam) in self.samurai.iter_mut().enumerate() {
            sam.health = log.after[s].health;
            sam.honour = log.after[s].honour;
            sam.history.push(actions[s]);
        }
        self.log.push(log);
        self.judge();
        Ok(())
    }

    fn forfeit(&mut self, seat: Seat) {
        if self.outcome.is_none() && seat < 2 {
            self.finish(
                SeatSet::single(1 - seat),
                Ending::Decided,
                EndReason::Forfeit(seat),
            );
        }
    }

    fn adjudicate(&mut self, winners: SeatSet) {
        if self.outcome.is_none() {
            self.finish(winners, Ending::Adjudicated, EndReason::Adjudicated);
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    fn observe(&self, seat: Seat) -> Observation {
        Observation {
            seat,
            me: self.samurai[seat].clone(),
            enemy: self.samurai[1 - seat].clone(),
            // Only seat 0 ever has a pending move, and it may see its own.
            my_pending: if seat == 0 { self.pending } else { None },
            to_move: self.to_move(),
            outcome: self.outcome,
            end: self.end,
        }
    }

    fn shuffle_hidden(&mut self, viewer: Seat, rng: &mut Rng) {
        if viewer == 1 && self.pending.is_some() {
            self.pending = Some(Action::ALL[rng.index(Action::ALL.len())]);
        }
    }

    fn check_invariants(&self) -> Result<(), String> {
        let turns = self.log.len();
        for (s, sam) in self.samurai.iter().enumerate() {
            if sam.history.len() != turns {
                return Err(format!(
                    "seat {s} has {} recorded actions after {turns} turns",
                    sam.history.len()
                ));
            }
            let expect = match self.log.last() {
                Some(l) => l.after[s],
                None => Standing {
                    health: self.rules.starting_health,
                    honour: self.rules.starting_honour,
                },
            };
            if sam.standing() != expect {
                return Err(format!(
                    "seat {s} is at {:?}, the log says {expect:?}",
                    sam.standing()
                ));
            }
        }
        for (i, l) in self.log.iter().enumerate() {
            if l.turn as usize != i + 1
                || l.actions != [self.samurai[0].history[i], self.samurai[1].history[i]]
            {
                return Err(format!("log entry {i} does not match the histories"));
            }
        }
        if turns as u32 > self.rules.turn_limit {
            return Err(format!(
                "{turns} turns played, the limit is {}",
                self.rules.turn_limit
            ));
        }
        match self.outcome {
            Some(o) => {
                if self.pending.is_some() {
                    return Err("a pending move after the end".into());
                }
                if o.turns as usize != turns || self.end.is_none() {
                    return Err(format!(
                        "outcome {o:?} does not match {turns} turns / {:?}",
                        self.end
                    ));
                }
            }
            None => {
                if self.end.is_some() {
                    return Err("an end reason without an outcome".into());
                }
                if self.samurai.iter().any(|s| s.honour < 0 || s.health <= 0)
                    || turns as u32 >= self.rules.turn_limit
                {
                    return Err("the duel should have ended".into());
                }
            }
        }
        Ok(())
    }

    fn turns(&self) -> u32 {
        self.log.len() as u32
    }
}
