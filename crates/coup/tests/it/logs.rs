//! What a bot logs while deciding, and how long it took, is kept with the game's
//! record at that decision (apart from its line in `games.jsonl`), bounded, and
//! given back by a replay just before the choice it was making.

use koth_arena::records::{replay_logged, NoticeRecord};
use koth_arena::{
    play_game, Agent, Fault, GameSeeds, NoticeKind, RecordLevel, Scoring, Seat, LOG_BYTES,
};
use koth_coup::bots::builtin_agent;
use koth_coup::{Choice, Rules, State};

/// Plays like `honest` and logs one line per decision, naming the decision's
/// number and how many choices the game had made when it was asked.
struct Chatty {
    inner: Box<dyn Agent<State>>,
    asked: usize,
    line: Option<String>,
    pad: usize,
}

impl Agent<State> for Chatty {
    fn decide(&mut self, g: &State, seat: Seat, legal: &[Choice]) -> Result<Choice, Fault> {
        self.asked += 1;
        if self.asked == 2 {
            // A slow answer, to find among the times.
            std::thread::sleep(std::time::Duration::from_millis(3));
        }
        self.line = Some(format!(
            "decision {} after {} events{}",
            self.asked,
            g.log().len(),
            ".".repeat(self.pad)
        ));
        self.inner.decide(g, seat, legal)
    }
    fn logs(&self) -> bool {
        true
    }
    fn take_log(&mut self) -> Option<String> {
        self.line.take()
    }
}

fn game(level: RecordLevel, pad: usize) -> koth_arena::GameRecord<Choice> {
    let seeds = GameSeeds::of(5, 0);
    let mut g = State::new(Rules::standard(), 2, seeds.deal);
    let mut a = Chatty {
        inner: builtin_agent("honest").unwrap(),
        asked: 0,
        line: None,
        pad,
    };
    let mut b = builtin_agent("bluffer").unwrap();
    let mut agents: Vec<&mut dyn Agent<State>> = vec![&mut a, b.as_mut()];
    play_game(
        &mut g,
        &mut agents,
        &[0, 1],
        0,
        seeds,
        Scoring::ZeroSum,
        level,
        &mut Vec::new(),
    )
    .0
}

#[test]
fn a_bots_lines_are_kept_at_their_decision_and_replayed_before_its_choice() {
    let rec = game(RecordLevel::Full, 0);
    let log = rec.log.as_deref().expect("a logging seat leaves a log");
    let logs: Vec<&NoticeRecord> = log.lines.iter().collect();
    assert!(logs.len() > 3, "{:?}", rec.notices);
    assert!(logs
        .iter()
        .all(|n| n.seat == 0 && n.entrant == 0 && n.kind == NoticeKind::Log));
    // Not in the game's line: that stays the same however the game was played.
    let mut line = Vec::new();
    rec.write_json_line(&mut line);
    assert!(!String::from_utf8(line)
        .unwrap()
        .contains("decision 1 after"));
    for (i, n) in logs.iter().enumerate() {
        assert!(
            n.text.starts_with(&format!("decision {} after", i + 1)),
            "{}",
            n.text
        );
    }
    // The replay gives each line when the game stands as the bot saw it: the
    // events it counted are the events so far.
    let events = std::cell::Cell::new(0);
    let (mut seen, mut timed) = (0, 0);
    replay_logged::<State>(
        &Rules::standard(),
        &rec,
        |g| events.set(g.log().len()),
        |g, i, _| {
            // The game stands at the decision: its seat to move is the one timed.
            let seat = g.to_move().unwrap();
            assert_eq!(log.time_at(i, seat).is_some(), seat == 0, "choice {i}");
            timed += usize::from(seat == 0);
            for n in log.lines_at(i) {
                seen += 1;
                let at = events.get();
                assert!(
                    n.text.contains(&format!("after {at} events")),
                    "{} at {at} events",
                    n.text
                );
            }
        },
    )
    .unwrap();
    assert_eq!(seen, logs.len());
    // Every decision of the logging seat is timed, and only those.
    assert_eq!(timed, log.times.len());
    assert!(log.times.iter().all(|t| t.1 == 0));
    // Its second answer slept 3 ms: the time kept covers it.
    assert!(log.times[1].2 >= 3000, "{:?}", log.times);
    // Asked one game at a time, each time is the answer's own.
    assert!(log.times.iter().all(|t| !t.3));
    // Results-only records keep no lines and no times.
    let rec = game(RecordLevel::Results, 0);
    assert!(rec.log.is_none());
}

#[test]
fn a_flood_of_lines_is_cut_at_the_bound_with_a_note() {
    let rec = game(RecordLevel::Full, 3000);
    let logs: Vec<&NoticeRecord> = rec.log.as_deref().unwrap().lines.iter().collect();
    let kept: usize = logs.iter().map(|n| n.text.len()).sum();
    assert!(kept <= LOG_BYTES + 100, "{kept}");
    assert!(logs.len() <= koth_arena::LOG_DECISIONS);
    assert!(logs
        .last()
        .unwrap()
        .text
        .ends_with("the whole log is in the run folder's logs)"));
}
