//! The engine against an independent reading of the seed's prose (specs/samurai.md),
//! turn by turn, over thousands of matches between seeded strategies: health,
//! honour, the result and the turn count must agree at every turn.

use koth_arena::{Game, Random, Rng};
use koth_samurai::{Action, Rules, State};

/// The duel as the prose tells it, written without looking at the engine.
#[derive(Clone, Debug)]
struct Prose {
    health: [i32; 2],
    honour: [i32; 2],
    last: [Option<char>; 2],
    turns: u32,
    /// `Some(None)` a draw, `Some(Some(i))` samurai `i` won.
    result: Option<Option<usize>>,
}

fn is_strike(c: char) -> bool {
    matches!(c, 'I' | 'P' | 'O')
}

/// I beats O, O beats P, P beats I.
fn beats(a: char, b: char) -> bool {
    matches!((a, b), ('I', 'O') | ('O', 'P') | ('P', 'I'))
}

impl Prose {
    fn new() -> Self {
        Prose {
            health: [20, 20],
            honour: [1, 1],
            last: [None, None],
            turns: 0,
            result: None,
        }
    }

    fn turn(&mut self, moves: [char; 2]) {
        let sword = [self.honour[0] >= 7, self.honour[1] >= 7];
        let mut damage = [0, 0];
        let mut honour = [0, 0];
        for i in 0..2 {
            let (me, them) = (moves[i], moves[1 - i]);
            match me {
                'B' => honour[i] += 1,
                'G' if self.last[i] == Some('G') => honour[i] -= 1,
                c if is_strike(c) => honour[i] -= 1,
                _ => {}
            }
            if is_strike(me) {
                let hits = match them {
                    'W' | 'B' => true,
                    t if is_strike(t) => beats(me, t),
                    _ => false,
                };
                if hits {
                    damage[1 - i] += if sword[i] { 2 } else { 1 };
                }
            }
        }
        for i in 0..2 {
            self.health[i] -= damage[i];
            self.honour[i] += honour[i];
            self.last[i] = Some(moves[i]);
        }
        self.turns += 1;
        let down = [self.honour[0] < 0, self.honour[1] < 0];
        let dead = [self.health[0] <= 0, self.health[1] <= 0];
        self.result = match (down, dead) {
            ([true, true], _) => Some(None),
            ([true, false], _) => Some(Some(1)),
            ([false, true], _) => Some(Some(0)),
            (_, [true, true]) => Some(None),
            (_, [true, false]) => Some(Some(1)),
            (_, [false, true]) => Some(Some(0)),
            _ if self.turns >= 500 => Some(None),
            _ => None,
        };
    }
}

/// A seeded strategy of the kinds real entries use.
#[derive(Clone, Debug)]
enum Strategy {
    /// Uniform over the six moves.
    Random,
    /// Weighted moves.
    Weighted([u32; 6]),
    /// Bows until the Sword of the Gods, then strikes with one move.
    Bower(char),
    /// Repeats the enemy's last move (or opens with one).
    Copy(char),
    /// Answers the enemy's last strike with what beats it, else bows or guards.
    Counter,
    /// A fixed cycle.
    Cycle(Vec<char>),
}

const MOVES: [char; 6] = ['W', 'B', 'G', 'I', 'P', 'O'];

impl Strategy {
    fn draw(rng: &mut Rng) -> Strategy {
        let strike = ['I', 'P', 'O'][rng.index(3)];
        match rng.below(6) {
            0 => Strategy::Random,
            1 => Strategy::Weighted(std::array::from_fn(|_| rng.below(10))),
            2 => Strategy::Bower(strike),
            3 => Strategy::Copy(MOVES[rng.index(6)]),
            4 => Strategy::Counter,
            _ => Strategy::Cycle((0..1 + rng.index(6)).map(|_| MOVES[rng.index(6)]).collect()),
        }
    }

    fn play(&self, me: &Prose, seat: usize, enemy_last: Option<char>, rng: &mut Rng) -> char {
        match self {
            Strategy::Random => MOVES[rng.index(6)],
            Strategy::Weighted(w) => {
                let total: u32 = w.iter().sum::<u32>().max(1);
                let mut r = rng.below(total);
                for (i, &x) in w.iter().enumerate() {
                    if r < x {
                        return MOVES[i];
                    }
                    r -= x;
                }
                'W'
            }
            Strategy::Bower(s) => {
                if me.honour[seat] >= 7 {
                    *s
                } else {
                    'B'
                }
            }
            Strategy::Copy(open) => enemy_last.unwrap_or(*open),
            Strategy::Counter => match enemy_last {
                Some('I') => 'P',
                Some('O') => 'I',
                Some('P') => 'O',
                Some('G') if me.last[seat] != Some('G') => 'G',
                _ => 'B',
            },
            Strategy::Cycle(c) => c[me.turns as usize % c.len()],
        }
    }
}

fn action(c: char) -> Action {
    Action::from_char(c).expect("a move")
}

#[test]
fn the_engine_agrees_with_the_prose_on_every_turn_of_thousands_of_matches() {
    let mut rng = Rng::new(2026);
    let (mut decided, mut drawn, mut turns_total, mut swords) = (0, 0, 0u64, 0u64);
    for m in 0..4000 {
        let strategies = [Strategy::draw(&mut rng), Strategy::draw(&mut rng)];
        let mut prose = Prose::new();
        let mut engine = State::new(&Rules::default(), m);
        while prose.result.is_none() {
            let moves: [char; 2] =
                std::array::from_fn(|s| strategies[s].play(&prose, s, prose.last[1 - s], &mut rng));
            swords += (prose.honour[0] >= 7 || prose.honour[1] >= 7) as u64;
            prose.turn(moves);
            engine
                .play_turn(action(moves[0]), action(moves[1]))
                .unwrap_or_else(|e| panic!("match {m}, turn {}: {e}", prose.turns));
            let ctx = || {
                format!(
                    "match {m} ({strategies:?}), turn {}, moves {moves:?}",
                    prose.turns
                )
            };
            for s in 0..2 {
                let e = engine.samurai(s);
                assert_eq!(
                    (e.health, e.honour),
                    (prose.health[s], prose.honour[s]),
                    "samurai {s}: {}",
                    ctx()
                );
            }
            let outcome = engine.outcome();
            assert_eq!(outcome.is_some(), prose.result.is_some(), "{}", ctx());
            if let (Some(o), Some(r)) = (outcome, prose.result) {
                let winners: Vec<usize> = o.winners.iter().collect();
                match r {
                    Some(w) => assert_eq!(winners, [w], "{}", ctx()),
                    // A draw: both share it.
                    None => assert_eq!(winners, [0, 1], "{}", ctx()),
                }
                assert_eq!(o.turns, prose.turns, "{}", ctx());
            }
        }
        turns_total += prose.turns as u64;
        match prose.result {
            Some(Some(_)) => decided += 1,
            _ => drawn += 1,
        }
    }
    eprintln!("{decided} decided, {drawn} drawn, {turns_total} turns, {swords} with a sword");
    // The strategies must reach the rare rules, not only quick wins.
    assert!(
        decided > 1000 && drawn > 100,
        "{decided} decided, {drawn} drawn"
    );
    assert!(
        swords > 1000,
        "the Sword of the Gods was reached {swords} times"
    );
    assert!(turns_total > 100_000, "{turns_total} turns");
}
