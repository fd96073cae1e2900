//! Round robins among the built-in samurai: complete, deterministic for any thread
//! count, and a field whose ranking is not trivial.

use koth_arena::{
    GameRecord, Observer, Quiet, RecordLevel, Schedule, Scoring, Standings, Tournament,
};
use koth_samurai::{builtin, entrants, Action, Rules, State, BUILTIN_NAMES};

fn round_robin(threads: usize, games_per_pair: u64, seed: u64) -> Standings {
    let t = Tournament::<State> {
        rules: Rules::default(),
        entrants: entrants(&BUILTIN_NAMES).unwrap(),
        schedule: Schedule::RoundRobin { games_per_pair },
        scoring: Scoring::SharedPoint,
        seed,
        threads,
        records: RecordLevel::None,
        duplicate: false,
    };
    let run = t.run(&mut Quiet);
    assert!(run.complete);
    run.standings
}

#[test]
fn round_robin_is_complete_and_identical_for_one_and_two_threads() {
    let one = round_robin(1, 8, 2015);
    let two = round_robin(2, 8, 2015);
    let n = BUILTIN_NAMES.len() as u64;
    assert_eq!(one.games, n * (n - 1) / 2 * 8);
    assert_eq!(one, two);
    for e in &one.entrants {
        assert_eq!(e.games(), (n - 1) * 8, "{}", e.name);
        assert_eq!(e.forfeits, 0, "{}", e.name);
    }
    let total: f64 = one.entrants.iter().map(|e| e.score.sum()).sum();
    assert_eq!(
        total, one.games as f64,
        "SharedPoint gives one point per match"
    );
}

#[test]
fn the_field_is_not_trivially_ranked() {
    let s = round_robin(2, 40, 7);
    let n = s.entrants.len();
    let idx = |name: &str| s.entrants.iter().position(|e| e.name == name).unwrap();
    let pair = |a: &str, b: &str| s.pair[idx(a) * n + idx(b)].mean();
    let ranking: Vec<&str> = s
        .ranking()
        .iter()
        .map(|&i| s.entrants[i].name.as_str())
        .collect();
    eprintln!("{ranking:?}");
    // The thoughtful samurai rank above the simple ones...
    let pos = |name: &str| ranking.iter().position(|&r| r == name).unwrap();
    assert!(pos("predictor") < pos("waiter") && pos("guardian") < pos("waiter"));
    assert_eq!(
        ranking.last(),
        Some(&"random"),
        "uniform play is soon struck down"
    );
    assert!(s.entrants[idx("random")].score.sum() < 1.0);
    // ...but nobody wins everything, and the scores spread over many levels.
    for e in &s.entrants {
        assert!(e.wins < e.games(), "{} won every match", e.name);
    }
    let mut means: Vec<f64> = s.entrants.iter().map(|e| e.score.mean()).collect();
    means.sort_by(f64::total_cmp);
    let levels = means.windows(2).filter(|w| w[1] - w[0] > 0.05).count() + 1;
    assert!(levels >= 5, "scores bunch together: {means:?}");
    assert!(
        pair("predictor", "bower") > 0.5,
        "the predictor sees the bower's strike coming"
    );
    assert!(pair("bower", "waiter") == 1.0);
}

/// Counts the actions and the turn-limit draws of recorded games.
struct Count {
    actions: [u64; 6],
    games: u64,
}

impl Observer<Action> for Count {
    fn on_record(&mut self, r: &GameRecord<Action>) {
        self.games += 1;
        for a in r.choices.as_ref().unwrap() {
            self.actions[a.index()] += 1;
        }
    }
}

#[test]
fn full_records_replay_to_the_same_result() {
    let t = Tournament::<State> {
        rules: Rules::default(),
        entrants: entrants(&["predictor", "ronin", "guardian"]).unwrap(),
        schedule: Schedule::RoundRobin { games_per_pair: 4 },
        scoring: Scoring::SharedPoint,
        seed: 3,
        threads: 2,
        records: RecordLevel::Full,
        duplicate: false,
    };
    struct Replay(u64);
    impl Observer<Action> for Replay {
        fn on_record(&mut self, r: &GameRecord<Action>) {
            use koth_arena::Game;
            let mut g = State::new(&Rules::default(), r.seed);
            for c in r.choices.as_ref().unwrap() {
                g.apply(c).unwrap();
            }
            assert_eq!(g.outcome(), Some(r.outcome));
            self.0 += 1;
        }
    }
    let mut replay = Replay(0);
    t.run(&mut replay);
    assert_eq!(replay.0, 12);
    let mut count = Count {
        actions: [0; 6],
        games: 0,
    };
    t.run(&mut count);
    assert_eq!(count.games, 12);
    assert!(
        count.actions[1..].iter().all(|&c| c > 0),
        "every action but W is used: {:?}",
        count.actions
    );
}

#[test]
fn every_builtin_is_named_as_registered() {
    for name in BUILTIN_NAMES {
        assert_eq!(builtin(name).unwrap().name(), name);
    }
}
