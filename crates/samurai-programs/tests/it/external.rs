//! External samurai: real programs (Python, JavaScript, shell) speaking the original
//! command-line protocol, and misbehaving programs, each turn of which is recorded as W.

use koth_arena::{Agent, Game, Quiet, RecordLevel, Schedule, Scoring, Seat, Tournament};
use koth_process::{Command, Limits, Sandbox};
use koth_samurai::{builtin, Action, Rules, SamuraiAgent, State};
use koth_samurai_programs::programs::parse_programs;
use koth_samurai_programs::{program_entrants, ExternalOptions, ExternalSamurai, Note, NoteSink};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn bots() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/bots")
}

/// The Python interpreter itself (not a version manager's shim, which costs ~80 ms a launch).
fn python() -> String {
    static PYTHON: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PYTHON
        .get_or_init(|| {
            std::process::Command::new("python3")
                .args(["-c", "import sys; print(sys.executable)"])
                .output()
                .ok()
                .and_then(|o| String::from_utf8(o.stdout).ok())
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| "python3".into())
        })
        .clone()
}

fn program(name: &str, argv: &[&str]) -> ExternalSamurai {
    let py = python();
    let argv: Vec<&str> = argv
        .iter()
        .map(|&a| if a == "python3" { py.as_str() } else { a })
        .collect();
    ExternalSamurai::new(name, Command::new(argv, bots())).with_timeout(Duration::from_millis(2000))
}

fn have(tool: &str) -> bool {
    std::process::Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Plays one match to its end; returns the final state.
fn duel(rules: &Rules, a: &mut dyn Agent<State>, b: &mut dyn Agent<State>, seed: u64) -> State {
    let mut g = State::new(rules, seed);
    let mut agents: [&mut dyn Agent<State>; 2] = [a, b];
    for (seat, agent) in agents.iter_mut().enumerate() {
        agent.start(&g, seat, seed + seat as u64).unwrap();
    }
    while let Some(seat) = g.to_move() {
        let c = agents[seat].decide(&g, seat, &Action::ALL).unwrap();
        g.apply(c).unwrap();
    }
    g
}

fn builtin_agent(name: &str) -> SamuraiAgent {
    SamuraiAgent::new(builtin(name).unwrap())
}

#[test]
fn a_python_samurai_gets_the_protocol_right_for_a_whole_match() {
    let mut py = program("checker", &["python3", "protocol_check.py"]);
    let mut enemy = builtin_agent("ronin");
    let start = Instant::now();
    let g = duel(&Rules::default(), &mut py, &mut enemy, 11);
    let turns = g.turns();
    eprintln!(
        "python checker vs ronin: {turns} turns in {:.0} ms ({:.1} ms per launch)",
        start.elapsed().as_secs_f64() * 1e3,
        start.elapsed().as_secs_f64() * 1e3 / turns as f64
    );
    assert!(turns > 3);
    for (sandbox, argv) in [
        (Sandbox::Off, [python(), "protocol_check.py".into()]),
        (Sandbox::Auto, [python(), "protocol_check.py".into()]),
        (Sandbox::Auto, ["sh".into(), "lower.sh".into()]),
    ] {
        let mut bare = ExternalSamurai::new(
            "timed",
            Command::new(argv.clone(), bots()).with_sandbox(sandbox),
        );
        let start = Instant::now();
        let g = duel(
            &Rules {
                turn_limit: 20,
                ..Rules::default()
            },
            &mut bare,
            &mut builtin_agent("waiter"),
            1,
        );
        eprintln!(
            "{argv:?}, sandbox {sandbox:?}: {:.1} ms per launch",
            start.elapsed().as_secs_f64() * 1e3 / g.turns() as f64
        );
    }
    assert_eq!(py.notes(), &[] as &[Note], "every answer was read");
    assert!(
        !g.samurai(0).history.contains(&Action::W),
        "the checker never had to say W"
    );
    assert!(g.samurai(0).history.contains(&Action::B));
    // The same samurai as seat 1.
    let mut enemy = builtin_agent("guardian");
    let g = duel(
        &Rules {
            turn_limit: 30,
            ..Rules::default()
        },
        &mut enemy,
        &mut py,
        12,
    );
    assert!(py.notes().is_empty(), "{:?}", py.notes());
    assert!(!g.samurai(1).history.contains(&Action::W));
}

#[test]
fn a_javascript_bower_plays_like_the_builtin_bower() {
    if !have("node") {
        // CI sets KOTH_REQUIRE_RUNTIMES: there a missing runtime fails.
        assert!(
            std::env::var_os("KOTH_REQUIRE_RUNTIMES").is_none(),
            "node is needed and KOTH_REQUIRE_RUNTIMES is set"
        );
        eprintln!("SKIPPED: node not found");
        return;
    }
    for enemy in ["copycat", "guardian", "predictor"] {
        let mut js = program("bower.js", &["node", "bower.js"]);
        let ext = duel(&Rules::default(), &mut js, &mut builtin_agent(enemy), 5);
        let int = duel(
            &Rules::default(),
            &mut builtin_agent("bower"),
            &mut builtin_agent(enemy),
            5,
        );
        assert!(js.notes().is_empty(), "{:?}", js.notes());
        assert_eq!(
            ext.samurai(0).history,
            int.samurai(0).history,
            "against {enemy}"
        );
        assert_eq!(ext.outcome(), int.outcome(), "against {enemy}");
    }
}

#[test]
fn a_shell_copycat_copies() {
    let mut sh = program("copycat.sh", &["sh", "copycat.sh"]);
    let g = duel(
        &Rules {
            turn_limit: 12,
            ..Rules::default()
        },
        &mut builtin_agent("guardian"),
        &mut sh,
        1,
    );
    assert!(sh.notes().is_empty(), "{:?}", sh.notes());
    let (mine, theirs) = (&g.samurai(1).history, &g.samurai(0).history);
    assert_eq!(mine[0], Action::B);
    for t in 1..mine.len() {
        let honour_before = koth_samurai::honour_trail(mine, g.samurai(1).honour)[t];
        let expected = if honour_before <= 0 {
            Action::B
        } else {
            theirs[t - 1]
        };
        assert_eq!(mine[t], expected, "turn {}", t + 1);
    }
}

/// A duel of `turns` turns between `bot` in `seat` and the built-in waiter.
fn against_waiter(bot: &mut ExternalSamurai, seat: Seat, turns: u32, seed: u64) -> State {
    let rules = Rules {
        turn_limit: turns,
        ..Rules::default()
    };
    let mut waiter = builtin_agent("waiter");
    if seat == 0 {
        duel(&rules, bot, &mut waiter, seed)
    } else {
        duel(&rules, &mut waiter, bot, seed)
    }
}

/// Plays `turns` turns of `bot` against the waiter and checks every turn is W with a
/// note whose reason contains `why`.
fn recorded_as_w(mut bot: ExternalSamurai, turns: u32, why: &str) -> Vec<Note> {
    let sink: NoteSink = Arc::new(Mutex::new(Vec::new()));
    bot = bot.with_note_sink(sink.clone());
    for seat in [0, 1] {
        let g = against_waiter(&mut bot, seat, turns, 77);
        assert_eq!(
            g.samurai(seat).history,
            vec![Action::W; turns as usize],
            "{}",
            bot.name()
        );
        assert_eq!(bot.notes().len(), turns as usize, "{}", bot.name());
        for (t, n) in bot.notes().iter().enumerate() {
            assert!(
                n.reason.contains(why),
                "{}: {:?} should say {why:?}",
                bot.name(),
                n.reason
            );
            assert_eq!(
                (n.turn, n.seat, n.game_seed, n.program.as_str()),
                (t as u32 + 1, seat as Seat, 77, bot.name())
            );
        }
    }
    let all = sink.lock().unwrap().clone();
    assert_eq!(all.len(), 2 * turns as usize, "the sink saw both matches");
    all
}

#[test]
fn no_output_is_w() {
    recorded_as_w(program("silent", &["python3", "silent.py"]), 2, "no output");
}

#[test]
fn garbage_is_w() {
    recorded_as_w(program("garbage", &["sh", "garbage.sh"]), 2, "\"h\"");
}

#[test]
fn lower_case_is_w() {
    recorded_as_w(program("lower", &["sh", "lower.sh"]), 2, "\"b\"");
}

/// Plays `turns` turns of `bot` against the waiter in each seat and checks that every
/// turn is the answer the program printed, with no note.
fn answers_count(mut bot: ExternalSamurai, turns: u32, expected: Action) {
    for seat in [0, 1] {
        let g = against_waiter(&mut bot, seat, turns, 78);
        assert_eq!(
            g.samurai(seat).history,
            vec![expected; turns as usize],
            "{}: {:?}",
            bot.name(),
            bot.notes()
        );
        assert!(bot.notes().is_empty(), "{}: {:?}", bot.name(), bot.notes());
    }
}

#[test]
fn an_answer_then_a_non_zero_exit_counts() {
    answers_count(program("crash", &["python3", "crash.py"]), 2, Action::B);
}

#[test]
fn a_crash_before_answering_is_w() {
    let notes = recorded_as_w(
        program("crash_silent", &["python3", "crash_silent.py"]),
        2,
        "no output; crashed (exit status 3)",
    );
    assert!(
        notes[0]
            .stderr_tail
            .as_deref()
            .unwrap_or("")
            .contains("about to fail"),
        "{notes:?}"
    );
}

#[test]
fn an_answer_then_a_signal_counts() {
    answers_count(program("segfault", &["sh", "segfault.sh"]), 2, Action::B);
}

#[test]
fn a_signal_before_answering_is_w() {
    recorded_as_w(
        program("segfault_silent", &["sh", "segfault_silent.sh"]),
        2,
        "no output; crashed (killed by signal 11)",
    );
}

#[test]
fn an_answer_from_a_program_that_lingers_counts_and_does_not_stall() {
    let bot = program("linger", &["python3", "linger.py"]).with_timeout(Duration::from_millis(400));
    let start = Instant::now();
    answers_count(bot, 2, Action::B);
    // Four launches, each killed at the limit with everything it started.
    assert!(
        start.elapsed() < Duration::from_millis(4 * 400 + 1500),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn sleeping_past_the_limit_is_w_and_does_not_stall() {
    let bot = program("sleepy", &["sh", "sleepy.sh"]).with_timeout(Duration::from_millis(300));
    let start = Instant::now();
    recorded_as_w(bot, 2, "no answer within 300 ms");
    // Four launches of 300 ms each, plus a little.
    assert!(
        start.elapsed() < Duration::from_millis(4 * 300 + 1500),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn a_flood_that_starts_with_an_answer_counts() {
    answers_count(
        program("flood", &["python3", "flood.py"]).with_max_stdout(4096),
        2,
        Action::B,
    );
}

#[test]
fn a_flood_of_garbage_is_w() {
    recorded_as_w(
        program("flood_garbage", &["python3", "flood_garbage.py"]).with_max_stdout(4096),
        2,
        "wrote more than 4096 bytes",
    );
}

#[test]
fn a_program_that_cannot_start_is_w() {
    recorded_as_w(
        program("missing", &["./no-such-samurai"]),
        2,
        "could not start",
    );
}

#[test]
fn a_tournament_of_a_list_file() {
    let dir = std::env::temp_dir().join(format!("koth-samurai-list-{}", std::process::id()));
    for name in ["Checker", "The Silent One", "Copycat"] {
        std::fs::create_dir_all(dir.join(name)).unwrap();
    }
    let b = bots();
    let py = python();
    let text = format!(
        "# a small field\nChecker {py} {}\n\"The Silent One\" {py} {}\nCopycat sh {}\n",
        b.join("protocol_check.py").display(),
        b.join("silent.py").display(),
        b.join("copycat.sh").display()
    );
    let file = dir.join("players.txt");
    std::fs::write(&file, &text).unwrap();
    let programs = koth_samurai_programs::programs::load_programs(&file).unwrap();
    assert_eq!(programs, parse_programs(&text, &file).unwrap());
    let sink: NoteSink = Arc::new(Mutex::new(Vec::new()));
    let options = ExternalOptions {
        limits: Limits::standard(),
        sandbox: Sandbox::Auto,
        ..ExternalOptions::default()
    };
    let t = Tournament {
        rules: Rules {
            turn_limit: 40,
            ..Rules::default()
        },
        entrants: program_entrants(&programs, &options, &sink),
        schedule: Schedule::RoundRobin { games_per_pair: 2 },
        scoring: Scoring::SharedPoint,
        seed: 1,
        threads: 2,
        records: RecordLevel::Results,
        duplicate: false,
    };
    let start = Instant::now();
    let run = t.run(&mut Quiet);
    let s = &run.standings;
    eprintln!(
        "list-file tournament: {} matches, {} decisions in {:.2} s ({:.1} ms per launch on 2 threads)",
        s.games,
        s.decisions,
        start.elapsed().as_secs_f64(),
        start.elapsed().as_secs_f64() * 1e3 / s.decisions as f64
    );
    assert!(run.complete);
    assert_eq!(s.games, 6);
    let notes = sink.lock().unwrap();
    assert!(!notes.is_empty());
    assert!(
        notes
            .iter()
            .all(|n| n.program == "The Silent One" && n.reason == "no output"),
        "{notes:?}"
    );
    assert!(s.entrants.iter().all(|e| e.forfeits == 0));
    std::fs::remove_dir_all(&dir).unwrap();
}
