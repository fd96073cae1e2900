//! Hidden cards stay hidden (docs/fair-play.md): the wire-level leak battery, a bot
//! that attacks everything the protocol sends it, and the seeds the runner gives.

use koth_arena::rng::{derive, splitmix64, Stream};
use koth_arena::{
    Agent, Entrant, Fault, GameSeeds, Quiet, RecordLevel, Rng, Schedule, Scoring, Seat, Tournament,
};
use koth_coup::{Card, Choice, Rules, State};
use koth_protocol::conformance::{wire_leaks, WireBattery};
use koth_protocol::Encoder;
use std::sync::{Arc, Mutex};

#[test]
fn what_a_coup_bot_receives_depends_only_on_what_it_sees() {
    for (rules, seats) in [
        (Rules::standard(), vec![2, 3, 4, 5, 6]),
        (Rules::ppcg(), vec![2]),
        // coup-cli's rules also send where the table order starts (public).
        (Rules::coupcli(), vec![2, 3, 4, 5, 6]),
    ] {
        let r = wire_leaks::<State>(
            &rules,
            &WireBattery {
                games: 150,
                seed: 0x51DE_C0DE,
                seats,
                redeal_tries: 400,
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
        // The battery must really compare: many worlds, many of them re-dealt, and
        // whole stretches of play in each.
        assert!(r.worlds >= 600, "{r:?}");
        assert!(r.redeals >= 100, "{r:?}");
        assert!(r.lines >= 2 * r.worlds, "{r:?}");
    }
}

// ----- the audit's attack, and every other guess a bot can make from its bytes -----

const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;
const SEAT_MUL: u64 = 0xD1B5_4A32_D192_ED03;

/// How koth 0.1 gave a seat its seed: an invertible mix of the game's seed.
fn old_bot_seed(game: u64, seat: Seat) -> u64 {
    let mut s = game ^ (1 + seat as u64).wrapping_mul(SEAT_MUL);
    splitmix64(&mut s);
    splitmix64(&mut s)
}

fn inverse(m: u64) -> u64 {
    let mut x = m;
    for _ in 0..6 {
        x = x.wrapping_mul(2u64.wrapping_sub(m.wrapping_mul(x)));
    }
    x
}

/// Undoes SplitMix64's output function.
fn unmix(z: u64) -> u64 {
    let z = z ^ (z >> 31) ^ (z >> 62);
    let z = z.wrapping_mul(inverse(0x94D0_49BB_1331_11EB));
    let z = z ^ (z >> 27) ^ (z >> 54);
    let z = z.wrapping_mul(inverse(0xBF58_476D_1CE4_E5B9));
    z ^ (z >> 30) ^ (z >> 60)
}

/// The audit's inversion: from a seat's seed back to the game's seed.
fn invert_old(seed: u64, seat: Seat) -> u64 {
    unmix(seed).wrapping_sub(GOLDEN_GAMMA.wrapping_mul(2))
        ^ (1 + seat as u64).wrapping_mul(SEAT_MUL)
}

fn sorted(cards: &[Card]) -> Vec<Card> {
    let mut v = cards.to_vec();
    v.sort();
    v
}

/// Reads a `start` line as a bot would and guesses every opponent's hand: from
/// every deal it can think of that gives it the cards it holds; else `None`.
fn attack(line: &str, players: usize) -> Option<Vec<Vec<Card>>> {
    let msg: serde_json::Value = serde_json::from_str(line).expect("start is JSON");
    let seed = msg["seed"].as_u64().expect("seed");
    let seat = msg["seat"].as_u64().expect("seat") as usize;
    let mine: Vec<Card> = serde_json::from_value(msg["view"]["cards"].clone()).expect("cards");
    let mine = sorted(&mine);
    let mut candidates = vec![invert_old(seed, seat), seed];
    // Hand-typed master seeds, in case the run used one.
    for master in 0..24 {
        for index in 0..24 {
            candidates.push(GameSeeds::of(master, index).deal);
        }
    }
    candidates.into_iter().find_map(|deal| {
        let s = State::new(Rules::standard(), players, deal);
        (sorted(s.hand(seat)) == mine).then(|| (0..players).map(|o| sorted(s.hand(o))).collect())
    })
}

/// A guess that uses only what the seat may see: the hidden cards dealt anew.
fn fair_guess(truth: &State, viewer: Seat, rng: &mut Rng) -> Vec<Vec<Card>> {
    let mut s = truth.clone();
    s.shuffle_hidden(viewer, rng);
    (0..truth.players()).map(|o| sorted(s.hand(o))).collect()
}

#[derive(Default, Debug)]
struct Tally {
    attacked: u64,
    fair: u64,
    hands: u64,
}

impl Tally {
    fn score(&mut self, truth: &State, viewer: Seat, guess: &[Vec<Card>], fair: &[Vec<Card>]) {
        for o in (0..truth.players()).filter(|&o| o != viewer) {
            let real = sorted(truth.hand(o));
            self.hands += 1;
            self.attacked += (guess[o] == real) as u64;
            self.fair += (fair[o] == real) as u64;
        }
    }
    fn rates(&self) -> (f64, f64) {
        let n = self.hands as f64;
        (self.attacked as f64 / n, self.fair as f64 / n)
    }
}

/// A seat that attacks its `start` line, seated by the real runner.
struct Attacker {
    enc: Encoder,
    rng: Rng,
    tally: Arc<Mutex<Tally>>,
}

impl Agent<State> for Attacker {
    fn start(&mut self, game: &State, seat: Seat, seed: u64) -> Result<(), Fault> {
        let line = self
            .enc
            .start(game, seat, seed)
            .map_err(Fault::new)?
            .to_owned();
        let fair = fair_guess(game, seat, &mut self.rng);
        let guess = attack(&line, game.players()).unwrap_or_else(|| fair.clone());
        // `game` is the truth here, used only to score the guesses.
        self.tally.lock().unwrap().score(game, seat, &guess, &fair);
        Ok(())
    }
    fn decide(&mut self, _: &State, _: Seat, legal: &[Choice]) -> Result<Choice, Fault> {
        Ok(legal[0])
    }
}

#[test]
fn a_bot_that_attacks_what_it_receives_does_no_better_than_chance() {
    // The control: koth 0.1's seeding, where the audit's bot saw every card.
    let mut leaky = Tally::default();
    let mut rng = Rng::new(5);
    for index in 0..200 {
        let deal = GameSeeds::of(0x0DD_5EED, index).deal;
        let truth = State::new(Rules::standard(), 6, deal);
        let viewer = (index % 6) as Seat;
        let line = Encoder::new()
            .start(&truth, viewer, old_bot_seed(deal, viewer))
            .unwrap()
            .to_owned();
        let guess = attack(&line, 6).expect("the old seeding is invertible");
        let fair = fair_guess(&truth, viewer, &mut rng);
        leaky.score(&truth, viewer, &guess, &fair);
    }
    let (hit, _) = leaky.rates();
    assert_eq!(
        hit, 1.0,
        "the attack must work on the old seeding: {leaky:?}"
    );

    // The real runner, with a master seed as random as the default.
    let tally = Arc::new(Mutex::new(Tally::default()));
    let t2 = tally.clone();
    let mut entrants = vec![Entrant::new("attacker", move |slot| {
        Ok(Box::new(Attacker {
            enc: Encoder::new(),
            rng: Rng::new(slot as u64),
            tally: t2.clone(),
        }) as Box<dyn Agent<State>>)
    })];
    for i in 0..5 {
        entrants.push(koth_coup::builtin_entrant("honest", format!("honest {i}")).unwrap());
    }
    let master = u64::from_le_bytes(*b"\x93\x1f\xa2\x07\xc4\x5e\x88\x3b");
    Tournament {
        rules: Rules::standard(),
        entrants,
        schedule: Schedule::RandomTables {
            games: 1500,
            table: 6,
        },
        scoring: Scoring::ZeroSum,
        seed: master,
        threads: 2,
        records: RecordLevel::None,
        duplicate: false,
    }
    .run(&mut Quiet);
    let t = tally.lock().unwrap();
    let (hit, fair) = t.rates();
    assert_eq!(t.hands, 1500 * 5);
    // Exact two-card hands are guessed right by chance about 1 time in 10; the
    // attack must not beat a fair guess by more than noise (sd about 0.35 points).
    eprintln!(
        "attack {hit:.4}, fair guess {fair:.4}, over {} hands",
        t.hands
    );
    assert!(
        hit < fair + 0.02,
        "attack {hit:.4} vs fair guess {fair:.4} ({t:?})"
    );
    assert!(fair > 0.03 && fair < 0.25, "fair guess rate {fair:.4}");
}

/// Records the seed each seat is given.
struct SeedTap(Arc<Mutex<Vec<u64>>>);
impl Agent<State> for SeedTap {
    fn start(&mut self, _: &State, _: Seat, seed: u64) -> Result<(), Fault> {
        self.0.lock().unwrap().push(seed);
        Ok(())
    }
    fn decide(&mut self, _: &State, _: Seat, legal: &[Choice]) -> Result<Choice, Fault> {
        Ok(legal[0])
    }
}

#[test]
fn the_runner_gives_each_seat_its_own_stream_and_never_the_deal() {
    let got = Arc::new(Mutex::new(Vec::new()));
    let entrants: Vec<Entrant<State>> = (0..4)
        .map(|i| {
            let g = got.clone();
            Entrant::new(format!("tap {i}"), move |_| {
                Ok(Box::new(SeedTap(g.clone())) as Box<dyn Agent<State>>)
            })
        })
        .collect();
    let master = 77;
    let schedule = Schedule::RandomTables {
        games: 50,
        table: 3,
    };
    let summary = Tournament {
        rules: Rules::standard(),
        entrants,
        schedule,
        scoring: Scoring::ZeroSum,
        seed: master,
        threads: 2,
        records: RecordLevel::Results,
        duplicate: false,
    }
    .run(&mut Quiet);
    assert_eq!(summary.standings.games, 50);
    let mut got = got.lock().unwrap().clone();
    got.sort();
    let mut want = Vec::new();
    let mut deals = Vec::new();
    for i in 0..50 {
        let g = GameSeeds::of(master, i);
        want.extend((0..3).map(|s| g.seat(s)));
        deals.push(g.deal);
        // The seating stream is another branch of the tree.
        deals.push(derive(master, Stream::Tables, i));
    }
    want.sort();
    assert_eq!(got, want, "each seat gets GameSeeds::seat and nothing else");
    assert!(got.iter().all(|s| !deals.contains(s)));
}

/// Samurai moves are simultaneous: while seat 1 chooses, seat 0's move of the turn
/// is decided but must not reach seat 1 in any byte. Every line seat 1 receives is
/// compared across all six moves seat 0 could have made, at every turn of many duels.
#[test]
fn a_samurai_bot_never_receives_the_move_it_answers() {
    use koth_arena::{Game, Random};
    use koth_samurai::{Action, Rules as SamuraiRules, State as Duel};
    let mut rng = Rng::new(0x05A4_D0A1);
    let mut compared = 0u64;
    for game in 0..200u64 {
        let mut duel = Duel::new(&SamuraiRules::default(), game);
        let mut enc: Vec<Encoder> = (0..6).map(|_| Encoder::new()).collect();
        for e in &mut enc {
            e.start(&duel, 1, 5).unwrap();
        }
        let legal = Action::ALL.to_vec();
        let mut id = 0;
        while duel.to_move().is_some() {
            let mine = legal[rng.index(6)];
            let theirs = legal[rng.index(6)];
            id += 1;
            // Seat 1's decide line in six worlds that differ in seat 0's move only.
            let lines: Vec<String> = enc
                .iter_mut()
                .zip(Action::ALL)
                .map(|(e, first)| {
                    let mut world = duel.clone();
                    world.apply(first).unwrap();
                    e.decide(&world, 1, &legal, id).unwrap().to_string()
                })
                .collect();
            assert!(
                lines.iter().all(|l| *l == lines[0]),
                "game {game}: seat 1's line depends on seat 0's pending move:\n{}",
                lines.join("\n")
            );
            compared += 6;
            duel.apply(theirs).unwrap();
            duel.apply(mine).unwrap();
        }
    }
    assert!(compared > 2_000, "{compared}");
}

#[test]
fn what_a_samurai_bot_receives_depends_only_on_what_it_sees() {
    let r = wire_leaks::<koth_samurai::State>(
        &koth_samurai::Rules::default(),
        &WireBattery {
            games: 60,
            seed: 0x5A11_0000,
            seats: vec![2],
            redeal_tries: 4,
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // A duel has no deal: any other seed gives the same view, and is compared.
    assert_eq!(r.redeals, 120, "{r:?}");
    assert!(r.lines >= 2 * r.worlds, "{r:?}");
}
