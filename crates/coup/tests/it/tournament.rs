//! Tournaments of built-in bots: determinism across thread counts, zero-sum
//! totals, and a field in which ranking is not trivial.

use crate::common;

use common::tournament;
use koth_arena::{RecordLevel, Schedule, Scoring, Standings, Tournament};
use koth_coup::{bots, builtin_entrant, Rules, State};

fn all_builtins() -> Vec<&'static str> {
    bots::BUILTINS.iter().map(|b| b.0).collect()
}

#[test]
fn same_seed_same_results_for_one_and_two_threads() {
    let names = all_builtins();
    let one = tournament(&names, 20_000, 6, 42, 1).run(&mut koth_arena::Quiet);
    let two = tournament(&names, 20_000, 6, 42, 2).run(&mut koth_arena::Quiet);
    let four = tournament(&names, 20_000, 6, 42, 4).run(&mut koth_arena::Quiet);
    assert!(one.complete && two.complete);
    assert_eq!(one.standings, two.standings, "bit-identical standings");
    assert_eq!(one.standings, four.standings);
    let other = tournament(&names, 20_000, 6, 43, 2).run(&mut koth_arena::Quiet);
    assert_ne!(one.standings, other.standings, "the seed matters");
}

#[test]
fn scores_are_zero_sum_and_seats_add_up() {
    let names = all_builtins();
    let r = tournament(&names, 10_000, 6, 7, 2).run(&mut koth_arena::Quiet);
    let s: &Standings = &r.standings;
    let total: f64 = s.entrants.iter().map(|e| e.score.sum()).sum();
    assert!(total.abs() < 1e-6, "{total}");
    let seats: u64 = s.entrants.iter().map(|e| e.games()).sum();
    assert_eq!(seats, 60_000, "six seats a game");
    for e in &s.entrants {
        assert_eq!(e.wins + e.draws + e.losses, e.games(), "{}", e.name);
        assert_eq!(e.forfeits, 0, "built-in bots never forfeit: {}", e.name);
    }
}

#[test]
fn duplicate_names_are_two_seats() {
    let r = tournament(&["honest", "honest", "random"], 3_000, 3, 1, 2).run(&mut koth_arena::Quiet);
    let names: Vec<&str> = r
        .standings
        .entrants
        .iter()
        .map(|e| e.name.as_str())
        .collect();
    assert_eq!(names, ["honest", "honest 2", "random"]);
    assert!(r.standings.entrants.iter().all(|e| e.games() == 3_000));
}

#[test]
fn the_built_in_field_is_not_trivially_ranked() {
    // Strategy matters (random is last, the card-playing bots beat static), and no
    // bot dominates every other: each strategic bot wins a real share of games.
    let names = all_builtins();
    let r = tournament(&names, 40_000, 6, 2026, 2).run(&mut koth_arena::Quiet);
    let s = &r.standings;
    let by = |n: &str| s.entrants.iter().find(|e| e.name == n).unwrap();
    let rank = s.ranking();
    let last = &s.entrants[*rank.last().unwrap()].name;
    assert_eq!(last, "random");
    for strong in ["honest", "counter", "economist", "skeptic"] {
        assert!(
            by(strong).score.mean() > by("static").score.mean(),
            "{strong} beats static"
        );
        let win_rate = by(strong).wins as f64 / by(strong).games() as f64;
        assert!((0.08..0.6).contains(&win_rate), "{strong} wins {win_rate}");
    }
    // The top two are separated by less than a tenth of a point per game: close race.
    let top = s.entrants[rank[0]].score.mean();
    let second = s.entrants[rank[1]].score.mean();
    assert!(top - second < 0.1, "{top} vs {second}");
}

#[test]
fn head_to_head_is_symmetric_in_counts() {
    let names = all_builtins();
    let r = tournament(&names, 5_000, 4, 3, 2).run(&mut koth_arena::Quiet);
    let s = &r.standings;
    let n = names.len();
    for a in 0..n {
        for b in 0..n {
            assert_eq!(s.pair[a * n + b].n, s.pair[b * n + a].n);
        }
    }
}

#[test]
fn built_in_play_is_pinned() {
    // Wins of each built-in in 3,000 games with seed 11. A change here means the
    // rules, the PRNG, the seating or a built-in bot changed behaviour: if that was
    // meant, say so in the commit and update the numbers.
    let names = all_builtins();
    let r = tournament(&names, 3_000, 6, 11, 2).run(&mut koth_arena::Quiet);
    let wins = |n: &str| {
        r.standings
            .entrants
            .iter()
            .find(|e| e.name == n)
            .unwrap()
            .wins
    };
    let got: Vec<(&str, u64)> = [
        "economist",
        "counter",
        "honest",
        "skeptic",
        "challenger",
        "bluffer",
        "static",
        "random",
    ]
    .into_iter()
    .map(|n| (n, wins(n)))
    .collect();
    assert_eq!(
        got,
        [
            ("economist", 798),
            ("counter", 771),
            ("honest", 675),
            ("skeptic", 475),
            ("challenger", 115),
            ("bluffer", 90),
            ("static", 36),
            ("random", 2)
        ]
    );
}

#[test]
fn misbehaving_rust_bots_forfeit_and_the_run_goes_on() {
    use koth_arena::{Agent, Entrant, GameRecord, Observer};
    use koth_coup::{Bot, BotAgent, Choice, View};
    struct Panicker;
    impl Bot for Panicker {
        fn decide(&mut self, view: &View, legal: &[Choice]) -> Choice {
            if view.turns() > 3 {
                panic!("bot bug");
            }
            legal[0]
        }
    }
    struct Cheater;
    impl Bot for Cheater {
        fn decide(&mut self, _view: &View, _legal: &[Choice]) -> Choice {
            Choice::Act(koth_coup::Action::Tax) // even when it is not its turn
        }
    }
    struct Forfeits(Vec<(String, String)>, Vec<String>);
    impl Observer<Choice> for Forfeits {
        fn on_record(&mut self, r: &GameRecord<Choice>) {
            for f in &r.forfeits {
                self.0
                    .push((self.1[f.entrant].clone(), f.fault.reason.clone()));
            }
        }
    }
    let mut entrants = vec![
        Entrant::new("panicker", |_| {
            Ok(Box::new(BotAgent(Panicker)) as Box<dyn Agent<State>>)
        }),
        Entrant::new("cheater", |_| {
            Ok(Box::new(BotAgent(Cheater)) as Box<dyn Agent<State>>)
        }),
    ];
    entrants.push(builtin_entrant("honest", "honest").unwrap());
    let t = Tournament {
        rules: Rules::standard(),
        entrants,
        schedule: Schedule::RandomTables {
            games: 200,
            table: 3,
        },
        scoring: Scoring::ZeroSum,
        seed: 4,
        threads: 2,
        records: RecordLevel::Results,
        duplicate: false,
    };
    // Keep the panic messages of the bots out of the test output.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut seen = Forfeits(Vec::new(), t.names());
    let run = t.run(&mut seen);
    std::panic::set_hook(hook);
    assert!(run.complete);
    let s = &run.standings;
    assert_eq!(s.games, 200);
    assert_eq!(s.entrants[2].forfeits, 0);
    assert!(s.entrants[0].forfeits > 0 && s.entrants[1].forfeits > 0);
    assert!(
        seen.0
            .iter()
            .any(|(n, r)| n == "panicker" && r.contains("panicked: bot bug")),
        "{:?}",
        &seen.0[..3]
    );
    assert!(seen
        .0
        .iter()
        .any(|(n, r)| n == "cheater" && r.contains("illegal choice")));
    assert_eq!(
        s.entrants[2].wins, 200,
        "honest wins every game its opponents forfeit"
    );
}

/// Records every game's seating and deal.
struct Seen(Vec<(u64, u64, Vec<usize>, Vec<u8>)>);
impl koth_arena::Observer<koth_coup::Choice> for Seen {
    fn on_record(&mut self, r: &koth_arena::GameRecord<koth_coup::Choice>) {
        // The first influences each seat held: the deal as the seats saw it.
        let g = State::new(Rules::standard(), r.seats.len(), r.seed);
        let hands = (0..r.seats.len())
            .flat_map(|s| {
                g.hand(s)
                    .iter()
                    .map(|c| c.index() as u8)
                    .collect::<Vec<_>>()
            })
            .collect();
        self.0.push((r.index, r.seed, r.seats.to_vec(), hands));
    }
}

#[test]
fn duplicate_play_deals_every_hand_to_every_bot() {
    let names = all_builtins();
    let mut t = tournament(&names, 100, 4, 9, 2);
    t.duplicate = true;
    t.records = RecordLevel::Results;
    let mut seen = Seen(Vec::new());
    let run = t.run(&mut seen);
    assert_eq!(run.standings.games, 100);
    for deal in seen.0.chunks(4) {
        // One deal, four rotations: same cards in the same seats, the bots moved on.
        assert!(deal.iter().all(|g| g.1 == deal[0].1 && g.3 == deal[0].3));
        for (r, g) in deal.iter().enumerate() {
            let mut want = deal[0].2.clone();
            want.rotate_left(r);
            assert_eq!(g.2, want, "game {}", g.0);
        }
    }
    // Deals differ from one another.
    assert_ne!(seen.0[0].3, seen.0[4].3);
    // Every deal complete: 25 observations per seated bot, as many as its games / 4.
    let d = run.standings.deals.as_ref().unwrap();
    for (e, st) in run.standings.entrants.iter().enumerate() {
        assert_eq!(d.totals[e].n * 4, st.games(), "{}", st.name);
    }
    // Same results for any thread count.
    let mut one = tournament(&names, 100, 4, 9, 1);
    one.duplicate = true;
    assert_eq!(one.run(&mut koth_arena::Quiet).standings, run.standings);
}

#[test]
fn duplicate_play_narrows_two_player_intervals() {
    // The luck of the deal dominates a two-player game: taking it out narrows the
    // interval of the same number of games (0.6× here; see docs/runs.md).
    let names = ["economist", "honest"];
    let plain = tournament(&names, 6000, 2, 1, 2).run(&mut koth_arena::Quiet);
    let mut t = tournament(&names, 6000, 2, 1, 2);
    t.duplicate = true;
    let dup = t.run(&mut koth_arena::Quiet);
    let width = |s: &Standings| {
        let ci = s.interval(0);
        ci.high - ci.low
    };
    let ratio = width(&dup.standings) / width(&plain.standings);
    assert!(ratio < 0.75, "duplicate/plain interval width {ratio:.2}");
}

/// A [`koth_arena::MultiAgent`] in Rust: a built-in bot per table whose answers are
/// held until asked for, checking that the runner asks in order.
struct Batched {
    bot: &'static str,
    tables: usize,
    agents: Vec<Option<Box<dyn koth_arena::Agent<State>>>>,
    queue: std::collections::VecDeque<(usize, koth_coup::Choice)>,
    flushed: usize,
    /// Panics when answering this table's 7th request (a bug in an adapter).
    panic_at: Option<usize>,
    asked: Vec<u32>,
}

impl Batched {
    fn entrant(
        bot: &'static str,
        tables: usize,
        panic_at: Option<usize>,
    ) -> koth_arena::Entrant<State> {
        builtin_entrant(bot, bot).unwrap().with_multi(move |_| {
            Ok(Box::new(Batched {
                bot,
                tables,
                agents: (0..koth_arena::MAX_TABLES).map(|_| None).collect(),
                queue: Default::default(),
                flushed: 0,
                panic_at,
                asked: vec![0; koth_arena::MAX_TABLES],
            }) as Box<dyn koth_arena::MultiAgent<State>>)
        })
    }
}

impl koth_arena::MultiAgent<State> for Batched {
    fn tables(&mut self) -> usize {
        self.tables
    }
    fn start(
        &mut self,
        t: usize,
        game: &State,
        seat: usize,
        seed: u64,
    ) -> Result<(), koth_arena::Fault> {
        assert!(t < self.tables, "table {t} of {}", self.tables);
        let agent = bots::builtin_agent(self.bot).unwrap();
        self.asked[t] = 0;
        self.agents[t].insert(agent).start(game, seat, seed)
    }
    fn request(&mut self, t: usize, game: &State, seat: usize, legal: &[koth_coup::Choice]) {
        let c = self.agents[t]
            .as_mut()
            .unwrap()
            .decide(game, seat, legal)
            .unwrap();
        self.queue.push_back((t, c));
    }
    fn flush(&mut self) {
        self.flushed = self.queue.len();
    }
    fn answer(
        &mut self,
        t: usize,
        _: &[koth_coup::Choice],
    ) -> Result<koth_coup::Choice, koth_arena::Fault> {
        assert!(self.flushed > 0, "answer before flush");
        self.flushed -= 1;
        let (asked, c) = self.queue.pop_front().expect("a request");
        assert_eq!(asked, t, "answers are taken in the order asked");
        self.asked[t] += 1;
        if self.panic_at == Some(t) && self.asked[t] == 7 {
            panic!("adapter bug at table {t}");
        }
        Ok(c)
    }
}

#[derive(Default)]
struct Records(Vec<koth_arena::GameRecord<koth_coup::Choice>>);
impl koth_arena::Observer<koth_coup::Choice> for Records {
    fn on_record(&mut self, r: &koth_arena::GameRecord<koth_coup::Choice>) {
        self.0.push(r.clone());
    }
}

fn run_full(
    entrants: Vec<koth_arena::Entrant<State>>,
    threads: usize,
) -> Vec<koth_arena::GameRecord<koth_coup::Choice>> {
    let t = Tournament {
        rules: Rules::standard(),
        entrants,
        schedule: Schedule::RandomTables {
            games: 3_000,
            table: 4,
        },
        scoring: Scoring::ZeroSum,
        seed: 11,
        threads,
        records: RecordLevel::Full,
        duplicate: false,
    };
    let mut r = Records::default();
    assert!(t.run(&mut r).complete);
    r.0
}

#[test]
fn entrants_playing_many_games_at_once_play_each_game_as_alone() {
    let plain = || -> Vec<_> {
        ["honest", "random", "counter", "bluffer", "skeptic"]
            .iter()
            .map(|b| builtin_entrant(b, *b).unwrap())
            .collect()
    };
    let sequential = run_full(plain(), 2);
    // Two entrants take 5 and 7 games at once (so 5 tables a worker); the others
    // sit at those tables with an agent per table.
    let batched = || {
        let mut e = plain();
        e[0] = Batched::entrant("honest", 7, None);
        e[3] = Batched::entrant("bluffer", 5, None);
        e
    };
    for threads in [1, 2, 3] {
        let many = run_full(batched(), threads);
        assert_eq!(many.len(), sequential.len());
        assert!(many == sequential, "{threads} threads: the games differ");
    }
}

/// Under duplicate play with an entrant that plays many games at once, the
/// workers share their open batches (the last games of a range go to whichever
/// table is free). A run stopped part-way still keeps exactly its first games,
/// in order, and playing the rest afterwards gives the uninterrupted run's games.
#[test]
fn a_stopped_duplicate_run_with_tables_keeps_its_first_games_and_resumes_to_the_same() {
    use std::sync::atomic::{AtomicBool, Ordering};
    /// Keeps the records; stops the run once it has seen `after`.
    struct StopAfter<'a> {
        recs: Vec<koth_arena::GameRecord<koth_coup::Choice>>,
        after: usize,
        stop: &'a AtomicBool,
    }
    impl koth_arena::Observer<koth_coup::Choice> for StopAfter<'_> {
        fn on_record(&mut self, r: &koth_arena::GameRecord<koth_coup::Choice>) {
            self.recs.push(r.clone());
            if self.recs.len() >= self.after {
                self.stop.store(true, Ordering::Relaxed);
            }
        }
    }
    let make = |threads| Tournament {
        rules: Rules::standard(),
        entrants: vec![
            Batched::entrant("honest", 6, None),
            builtin_entrant("random", "random").unwrap(),
            builtin_entrant("counter", "counter").unwrap(),
            builtin_entrant("bluffer", "bluffer").unwrap(),
        ],
        schedule: Schedule::RandomTables {
            games: 2_000,
            table: 4,
        },
        scoring: Scoring::ZeroSum,
        seed: 5,
        threads,
        records: RecordLevel::Full,
        duplicate: true,
    };
    let mut whole = Records::default();
    assert!(make(1).run(&mut whole).complete);
    for threads in [2, 3] {
        let t = make(threads);
        let total = t.total_games();
        let stop = AtomicBool::new(false);
        let mut first = StopAfter {
            recs: Vec::new(),
            after: 300,
            stop: &stop,
        };
        let part = t.run_range(0..total, &mut first, &stop);
        assert!(!part.complete, "{threads} threads");
        let n = part.played.end;
        assert_eq!(part.played.start, 0);
        assert!((300..total).contains(&n), "{n} games of {total}");
        assert_eq!(first.recs.len() as u64, n, "every game counted was seen");
        let mut rest = Records::default();
        let tail = t.run_range(n..total, &mut rest, &AtomicBool::new(false));
        assert!(tail.complete);
        let mut all = first.recs;
        all.extend(rest.0);
        assert!(all == whole.0, "{threads} threads: the games differ");
    }
}

#[test]
fn a_panic_in_an_agent_playing_many_games_forfeits_that_game_only() {
    let entrants = vec![
        Batched::entrant("honest", 4, Some(2)),
        builtin_entrant("random", "random").unwrap(),
        builtin_entrant("counter", "counter").unwrap(),
        builtin_entrant("skeptic", "skeptic").unwrap(),
    ];
    let recs = run_full(entrants, 2);
    let forfeits: Vec<_> = recs.iter().flat_map(|r| &r.forfeits).collect();
    assert!(!forfeits.is_empty());
    for f in &forfeits {
        assert_eq!(f.entrant, 0);
        assert!(
            f.fault.reason.contains("panicked: adapter bug at table 2"),
            "{:?}",
            f.fault
        );
    }
    // Only games at table 2 (of 4) that got that far: well under half the bot's.
    let seated = recs.iter().filter(|r| r.seats.contains(&0)).count();
    assert!(
        forfeits.len() * 2 < seated,
        "{} of {seated}",
        forfeits.len()
    );
    assert!(recs.iter().all(|r| !r.outcome.winners.is_empty()));
}

/// Under duplicate play no agent (for a program: no process) sees two rotations of
/// one deal, so a bot that remembers cannot carry a seat's cards from one rotation
/// into the next.
#[test]
fn duplicate_play_never_shows_an_agent_two_rotations_of_a_deal() {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex};
    type Seen = Arc<Mutex<HashMap<usize, Vec<String>>>>;
    type Times = Arc<Mutex<Vec<(String, std::time::Instant, std::time::Instant)>>>;
    /// Plays like honest and notes, per agent, the whole state each game starts
    /// from (the deal, identical in every rotation), and when each game ran.
    struct Spy {
        id: usize,
        seen: Seen,
        times: Times,
        current: Option<(String, std::time::Instant)>,
        inner: Box<dyn koth_arena::Agent<State>>,
    }
    impl koth_arena::Agent<State> for Spy {
        fn start(&mut self, g: &State, seat: usize, seed: u64) -> Result<(), koth_arena::Fault> {
            self.seen
                .lock()
                .unwrap()
                .entry(self.id)
                .or_default()
                .push(format!("{g:?}"));
            self.current = Some((format!("{g:?}"), std::time::Instant::now()));
            self.inner.start(g, seat, seed)
        }
        fn finish(&mut self, _g: &State, _seat: usize) {
            if let Some((deal, began)) = self.current.take() {
                self.times
                    .lock()
                    .unwrap()
                    .push((deal, began, std::time::Instant::now()));
            }
        }
        fn decide(
            &mut self,
            g: &State,
            seat: usize,
            legal: &[koth_coup::Choice],
        ) -> Result<koth_coup::Choice, koth_arena::Fault> {
            self.inner.decide(g, seat, legal)
        }
    }
    let seen: Seen = Default::default();
    let times: Times = Default::default();
    let made = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let spy = |name: &str| {
        let (seen, times, made) = (seen.clone(), times.clone(), made.clone());
        koth_arena::Entrant::new(name, move |_| {
            let id = made.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let inner = bots::builtin_agent("honest").unwrap();
            Ok(Box::new(Spy {
                id,
                seen: seen.clone(),
                times: times.clone(),
                current: None,
                inner,
            }) as Box<dyn koth_arena::Agent<State>>)
        })
    };
    // Plain entrants, then with one that plays many games at once (the tables'
    // path); then a pair block whose two mirrored deals share their cards (six
    // games a hand of cards: the spy, an opponent of the pair, in each).
    for (threads, many, pair) in [
        (1, false, false),
        (2, false, false),
        (1, true, false),
        (2, true, false),
        (1, false, true),
        (2, true, true),
    ] {
        seen.lock().unwrap().clear();
        times.lock().unwrap().clear();
        let mut t = tournament(&["random", "counter"], 600, 3, 5, threads);
        if many {
            t.entrants[1] = Batched::entrant("counter", 8, None);
        }
        if pair {
            t.schedule = koth_arena::Schedule::Pair {
                games: 600,
                table: 3,
                same_cards: true,
            };
        }
        t.entrants.push(spy("spy"));
        t.duplicate = true;
        let run = t.run(&mut koth_arena::Quiet);
        assert!(run.complete);
        let seen = seen.lock().unwrap();
        let mut all: Vec<&String> = seen.values().flatten().collect();
        assert_eq!(all.len(), 600, "the spy sits in every game");
        all.sort();
        all.dedup();
        let alike = if pair { 6 } else { 3 };
        assert_eq!(
            all.len(),
            600 / alike,
            "each hand of cards is played {alike} times"
        );
        for (id, deals) in seen.iter() {
            let mut d = deals.clone();
            d.sort();
            d.dedup();
            assert_eq!(d.len(), deals.len(), "agent {id} saw a deal twice");
        }
        if many {
            // Where programs play (the tables' path), no two games of one
            // deal are under way at once: two processes holding different
            // seats of it never run side by side.
            let mut times = times.lock().unwrap().clone();
            assert_eq!(times.len(), 600);
            times.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
            for w in times.windows(2) {
                if w[0].0 == w[1].0 {
                    assert!(w[0].2 <= w[1].1, "two games of one deal ran at once");
                }
            }
        }
    }
}

/// Counts the records it is given; says whether it wants them.
struct Reader {
    wants: bool,
    seen: u64,
}

impl koth_arena::Observer<koth_coup::Choice> for Reader {
    fn on_record(&mut self, _r: &koth_arena::GameRecord<koth_coup::Choice>) {
        self.seen += 1;
    }
    fn wants_records(&self) -> bool {
        self.wants
    }
}

#[test]
fn records_are_kept_in_memory_only_for_observers_that_read_them() {
    let names = ["static", "honest", "random"];
    let mut lines = Vec::new();
    for wants in [true, false] {
        let dir =
            std::env::temp_dir().join(format!("koth-wants-records-{}-{wants}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut t = tournament(&names, 3_000, 3, 11, 2);
        t.records = RecordLevel::Full;
        let mut reader = Reader { wants, seen: 0 };
        let mut w = koth_arena::records::RecordWriter::append(&dir, &mut reader).unwrap();
        let r = t.run(&mut w);
        w.flush().unwrap();
        assert!(r.complete);
        drop(w);
        assert_eq!(reader.seen, if wants { 3_000 } else { 0 }, "wants {wants}");
        lines.push(std::fs::read_to_string(dir.join("games.jsonl")).unwrap());
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert_eq!(lines[0].lines().count(), 3_000);
    assert_eq!(lines[0], lines[1], "the file is the same either way");
}

/// An observer that counts every game itself (the hill's board) asks the run
/// for no standings: it still sees every game, and the run still says which
/// games it played.
#[test]
fn an_observer_that_keeps_its_own_standings_gets_every_game_and_none_counted_twice() {
    struct Own {
        seen: u64,
        tally: bool,
    }
    impl koth_arena::Observer<koth_coup::Choice> for Own {
        fn on_record(&mut self, _r: &koth_arena::GameRecord<koth_coup::Choice>) {
            self.seen += 1;
        }
        fn wants_standings(&self) -> bool {
            self.tally
        }
    }
    let names = ["static", "honest", "random"];
    for tally in [true, false] {
        let mut t = tournament(&names, 3_000, 3, 12, 2);
        t.records = RecordLevel::Results;
        let mut own = Own { seen: 0, tally };
        let stop = std::sync::atomic::AtomicBool::new(false);
        let r = t.run_chunked(100..2_100, 7, 1, &mut own, &stop);
        assert!(r.complete);
        assert_eq!(r.played, 100..2_100);
        assert_eq!(own.seen, 2_000);
        let counted: u64 = r.standings.entrants.iter().map(|e| e.games()).sum();
        assert_eq!(counted, if tally { 6_000 } else { 0 }, "tally {tally}");
    }
}

/// A bot that says it reads no list is given none, and its answers are still
/// checked against the rules: an illegal one forfeits as it would with a list.
#[test]
fn a_bot_that_reads_no_list_gets_none_and_is_still_checked() {
    use koth_arena::{Agent, Entrant, GameRecord, Observer};
    use koth_coup::{dispatch, Action, Bot, BotAgent, Choice, View};
    /// Asserts it gets no list; coups itself once it can (never legal).
    struct NoList;
    impl Bot for NoList {
        fn decide(&mut self, view: &View, legal: &[Choice]) -> Choice {
            assert!(
                legal.is_empty(),
                "a list was made for a bot that reads none"
            );
            if view.my_coins() >= 7 {
                return Choice::Act(Action::Coup(view.me()));
            }
            dispatch(self, view, legal)
        }
        fn wants_legal(&self) -> bool {
            false
        }
    }
    struct Reasons(Vec<String>);
    impl Observer<Choice> for Reasons {
        fn on_record(&mut self, r: &GameRecord<Choice>) {
            self.0
                .extend(r.forfeits.iter().map(|f| f.fault.reason.clone()));
        }
    }
    let mut t = tournament(&["honest", "static"], 300, 3, 21, 2);
    t.entrants.push(Entrant::new("nolist", |_| {
        Ok(Box::new(BotAgent(NoList)) as Box<dyn Agent<State>>)
    }));
    t.records = RecordLevel::Results;
    let mut seen = Reasons(Vec::new());
    let run = t.run(&mut seen);
    assert!(run.complete);
    // Only its self-coups forfeit: the list was never made, nothing panicked.
    assert!(!seen.0.is_empty(), "the illegal self-coup was accepted");
    for r in &seen.0 {
        assert!(r.contains("illegal choice") && r.contains("Coup"), "{r}");
    }
    let nolist = run
        .standings
        .entrants
        .iter()
        .find(|e| e.name == "nolist")
        .unwrap();
    assert_eq!(nolist.forfeits as usize, seen.0.len(), "only it forfeits");
}
