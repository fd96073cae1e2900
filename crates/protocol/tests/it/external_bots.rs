//! Real processes playing real tournaments: the Python SDK bots against built-in
//! bots, and a zoo of misbehaving bots that must forfeit with the right reason
//! while every other game stays intact.

use koth_arena::{Entrant, GameRecord, RecordLevel, Schedule, Scoring, Tournament};
use koth_coup::{builtin_entrant, Choice, Rules, State};
use koth_process::{sandbox_support, Command};
use koth_protocol::{json_entrant, JsonBotConfig};
use std::path::PathBuf;
use std::time::Duration;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn sdk() -> PathBuf {
    root().join("../../sdk/python")
}

fn py(name: &str, script: PathBuf, args: &[&str]) -> JsonBotConfig {
    let script = script.canonicalize().unwrap();
    let dir = script.parent().unwrap().to_path_buf();
    let mut argv = vec!["python3".to_string(), script.to_string_lossy().into_owned()];
    argv.extend(args.iter().map(|s| s.to_string()));
    let mut cfg = JsonBotConfig::new(Command::new(argv, dir));
    cfg.decision_timeout = Duration::from_millis(400);
    let _ = name;
    cfg
}

fn zoo(mode: &str) -> JsonBotConfig {
    py(mode, root().join("tests/bots/zoo.py"), &[mode])
}

use crate::common;
use common::Collect;

/// Plays `games` games at tables of `table` among the built-ins and `extra`.
fn tournament(
    extra: Vec<Entrant<State>>,
    games: u64,
    table: usize,
) -> (koth_arena::RunSummary, Vec<GameRecord<Choice>>) {
    tournament_under(Rules::standard(), extra, games, table)
}

/// [`tournament`] under other rules.
fn tournament_under(
    rules: Rules,
    extra: Vec<Entrant<State>>,
    games: u64,
    table: usize,
) -> (koth_arena::RunSummary, Vec<GameRecord<Choice>>) {
    let mut entrants: Vec<Entrant<State>> = ["honest", "counter", "random"]
        .iter()
        .map(|b| builtin_entrant(b, *b).unwrap())
        .collect();
    entrants.extend(extra);
    let t = Tournament {
        rules,
        entrants,
        schedule: Schedule::RandomTables { games, table },
        scoring: Scoring::ZeroSum,
        seed: 2024,
        threads: 2,
        records: RecordLevel::Results,
        duplicate: false,
    };
    let mut c = Collect::default();
    let s = t.run(&mut c);
    assert!(s.complete);
    assert_eq!(c.0.len() as u64, games);
    (s, c.0)
}

/// Every game has a proper result, and only entrant `bad` ever forfeits.
fn check_intact(records: &[GameRecord<Choice>], bad: Option<usize>) {
    for r in records {
        assert!(
            !r.outcome.winners.is_empty(),
            "game {} has no winner",
            r.index
        );
        for f in &r.forfeits {
            assert_eq!(
                Some(f.entrant),
                bad,
                "game {}: unexpected forfeit {:?}",
                r.index,
                f
            );
        }
        if bad.is_none_or(|b| !r.seats.contains(&b)) {
            assert!(
                r.forfeits.is_empty(),
                "game {} without the bad bot has forfeits",
                r.index
            );
        }
    }
}

/// Runs the zoo bot `mode` (entrant 3) and returns its forfeits.
fn zoo_run(mode: &str, games: u64, cfg: JsonBotConfig) -> Vec<(u64, koth_arena::Fault)> {
    let (_, recs) = tournament(vec![json_entrant(mode, cfg)], games, 3);
    check_intact(&recs, Some(3));
    recs.iter()
        .flat_map(|r| r.forfeits.iter().map(move |f| (r.index, f.fault.clone())))
        .collect()
}

fn assert_reason(forfeits: &[(u64, koth_arena::Fault)], needle: &str) {
    assert!(!forfeits.is_empty(), "expected forfeits with {needle:?}");
    for (g, f) in forfeits {
        assert!(
            f.reason.contains(needle),
            "game {g}: reason {:?} lacks {needle:?}",
            f.reason
        );
    }
}

#[test]
fn python_sdk_bots_play_full_tournaments() {
    let (s, recs) = tournament(
        vec![
            json_entrant("example", py("example", sdk().join("example_bot.py"), &[])),
            json_entrant("minimal", py("minimal", sdk().join("minimal_bot.py"), &[])),
        ],
        120,
        4,
    );
    check_intact(&recs, None);
    let by_name = |n: &str| {
        s.standings
            .entrants
            .iter()
            .find(|e| e.name == n)
            .unwrap()
            .clone()
    };
    let (example, minimal, honest) = (by_name("example"), by_name("minimal"), by_name("honest"));
    assert!(example.games() > 50 && minimal.games() > 50);
    assert_eq!(example.forfeits + minimal.forfeits, 0);
    // The honest example beats random play; it plays like the built-in honest bot.
    assert!(
        example.score.mean() > minimal.score.mean(),
        "example {} vs minimal {}",
        example.score.mean(),
        minimal.score.mean()
    );
    assert!(example.wins > 0 && honest.wins > 0);
}

#[test]
fn crash_at_start() {
    let f = zoo_run("crash_start", 12, zoo("crash_start"));
    assert_reason(&f, "crashed (exit code 3)");
    assert!(
        f[0].1
            .stderr_tail
            .as_deref()
            .unwrap_or("")
            .contains("boom at start"),
        "{:?}",
        f[0].1
    );
}

#[test]
fn crash_mid_game() {
    let f = zoo_run("crash_mid", 12, zoo("crash_mid"));
    assert_reason(&f, "crashed (exit code 1)");
    let tail = f[0].1.stderr_tail.clone().unwrap_or_default();
    assert!(
        tail.contains("ZeroDivisionError") && tail.contains("about to fail"),
        "{tail}"
    );
}

#[test]
fn sleep_forever() {
    assert_reason(
        &zoo_run("sleep", 8, zoo("sleep")),
        "timeout: no answer within 400 ms",
    );
}

#[test]
fn never_answer() {
    assert_reason(
        &zoo_run("silent", 8, zoo("silent")),
        "timeout: no answer within 400 ms",
    );
}

#[test]
fn game_time_limit() {
    let mut cfg = zoo("sleep");
    cfg.game_timeout = Some(Duration::from_millis(150));
    assert_reason(&zoo_run("sleep", 6, cfg), "game time limit of 150 ms");
}

#[test]
fn answer_garbage() {
    assert_reason(
        &zoo_run("garbage", 10, zoo("garbage")),
        "garbage: answer is not a JSON object",
    );
}

#[test]
fn out_of_step_answers() {
    assert_reason(&zoo_run("twice", 10, zoo("twice")), "answered twice");
    assert_reason(&zoo_run("stale_id", 10, zoo("stale_id")), "out of step");
    // Echoing the id, or leaving it out, is in step.
    assert!(zoo_run("with_id", 10, zoo("with_id")).is_empty());
}

#[test]
fn answer_illegal_choice() {
    assert_reason(
        &zoo_run("illegal", 10, zoo("illegal")),
        "illegal choice {\"act\":{\"coup\":9}}",
    );
    assert_reason(
        &zoo_run("bad_index", 10, zoo("bad_index")),
        "illegal choice: index 999",
    );
}

#[test]
fn hundred_megabytes_without_newline() {
    assert_reason(&zoo_run("longline", 6, zoo("longline")), "line too long");
}

#[test]
fn stderr_flood_is_harmless() {
    let f = zoo_run("stderr_flood", 12, zoo("stderr_flood"));
    assert!(f.is_empty(), "{f:?}");
}

#[test]
fn exit_after_one_game() {
    let f = zoo_run("exit_after_one", 16, zoo("exit_after_one"));
    assert_reason(&f, "exited early (exit code 0)");
}

fn count_marked_sleepers() -> usize {
    let mut n = 0;
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(cmd) = std::fs::read(e.path().join("cmdline")) {
            if cmd == b"sleep\x00299.123\x00" {
                n += 1;
            }
        }
    }
    n
}

#[test]
fn spawn_many_processes_are_cleaned_up() {
    let f = zoo_run("spawn", 10, zoo("spawn"));
    assert!(f.is_empty(), "{f:?}");
    // The agents (and their process groups) are gone with the tournament.
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(count_marked_sleepers(), 0, "children of the bot survived");
}

#[test]
fn write_outside_its_directory() {
    let target = std::env::temp_dir().join(format!("koth-escape-{}", std::process::id()));
    let _ = std::fs::remove_file(&target);
    let mut cfg = zoo("escape");
    cfg.command = cfg
        .command
        .with_env("ESCAPE_TARGET", target.to_string_lossy());
    let f = zoo_run("escape", 6, cfg);
    assert!(f.is_empty(), "{f:?}");
    if sandbox_support().fs_write_confined {
        assert!(
            !target.exists(),
            "the sandboxed bot wrote {}",
            target.display()
        );
    } else {
        eprintln!(
            "no landlock here ({}): write confinement not checked",
            sandbox_support().detail
        );
        let _ = std::fs::remove_file(&target);
    }
}

#[test]
fn missing_program_forfeits_every_game() {
    let cfg = JsonBotConfig::new(Command::new(["./no-such-bot"], root()));
    let f = zoo_run("ghost", 6, cfg);
    assert_reason(&f, "cannot start");
}

fn node(script: PathBuf, args: &[&str]) -> JsonBotConfig {
    // Its real path: a script named through `..` is looked up inside the bot's
    // sandbox, where the folders the `..` climbs out of are not.
    let script = script.canonicalize().unwrap();
    let dir = script.parent().unwrap().to_path_buf();
    let mut argv = vec!["node".to_string(), script.to_string_lossy().into_owned()];
    argv.extend(args.iter().map(|s| s.to_string()));
    let mut cfg = JsonBotConfig::new(Command::new(argv, dir));
    cfg.decision_timeout = Duration::from_millis(1000);
    cfg
}

#[test]
fn js_sdk_and_coup_cli_adapter_play_full_tournaments() {
    let cli_bot = root().join("tests/bots/coup-cli/cliBot");
    let (s, recs) = tournament(
        vec![
            json_entrant(
                "js example",
                node(root().join("../../sdk/js/example_bot.js"), &[]),
            ),
            json_entrant("coup-cli bot", {
                let mut cfg = node(
                    root().join("../../sdk/coup-cli/adapter.js"),
                    &[cli_bot.to_str().unwrap()],
                );
                // The bot folder the adapter loads, listed: a sandbox shows no
                // path for being named in a command.
                cfg.command.read_only.push(cli_bot.clone());
                cfg
            }),
        ],
        80,
        4,
    );
    let forfeits: Vec<_> = recs.iter().flat_map(|r| r.forfeits.clone()).collect();
    assert!(forfeits.is_empty(), "{forfeits:?}");
    check_intact(&recs, None);
    for name in ["js example", "coup-cli bot"] {
        let e = s
            .standings
            .entrants
            .iter()
            .find(|e| e.name == name)
            .unwrap();
        assert!(e.games() > 30 && e.wins > 0, "{name}: {e:?}");
    }
}

#[test]
fn bots_are_told_the_seats_names() {
    let cfg = py("named", root().join("tests/bots/names_check.py"), &[]);
    let (s, recs) = tournament(vec![json_entrant("named", cfg)], 40, 3);
    check_intact(&recs, None);
    assert!(s.standings.entrants[3].games() > 0);
}

/// Under the coupcli rules a well-formed illegal answer is penalised, not forfeited,
/// and the program plays on; a malformed answer still forfeits (specs/coup.md).
#[test]
fn coupcli_penalises_illegal_answers_and_forfeits_garbage() {
    let (s, recs) = tournament_under(
        Rules::coupcli(),
        vec![json_entrant("illegal", zoo("illegal"))],
        10,
        3,
    );
    let bot = &s.standings.entrants[3];
    assert!(bot.games() > 0 && bot.penalties > 0, "{bot:?}");
    assert_eq!(bot.forfeits, 0, "{bot:?}");
    for r in &recs {
        for n in &r.notices {
            assert_eq!(n.entrant, 3, "game {}: {n:?}", r.index);
            assert!(n.text.contains("illegal choice"), "{n:?}");
        }
    }
    // A well-formed illegal action is kept (by its code) and shown to the table in
    // the penalty event, as coup-cli's history shows it; the bot checks the events
    // it gets (it answers garbage, and forfeits, if a penalty does not show its Coup).
    let (s, recs) = tournament_under(
        Rules::coupcli(),
        vec![json_entrant("broke", zoo("broke"))],
        20,
        3,
    );
    let bot = &s.standings.entrants[3];
    assert!(bot.games() > 0 && bot.penalties > 0, "{bot:?}");
    assert_eq!(bot.forfeits, 0, "{bot:?}");
    let coups: Vec<Option<u8>> = (0..3)
        .map(|t| koth_arena::ChoiceCode::code(&Choice::Act(koth_coup::Action::Coup(t))))
        .collect();
    let tried: Vec<_> = recs.iter().flat_map(|r| r.notices.iter()).collect();
    assert!(!tried.is_empty());
    assert!(tried.iter().all(|n| coups.contains(&n.tried)), "{tried:?}");
    let (s, _) = tournament_under(
        Rules::coupcli(),
        vec![json_entrant("garbage", zoo("garbage"))],
        10,
        3,
    );
    let bot = &s.standings.entrants[3];
    assert!(bot.forfeits > 0 && bot.penalties == 0, "{bot:?}");
}

/// `tests/bots/mux.py MODE` beside a copy of the Python SDK (a sandboxed bot sees
/// only its folder).
fn mux(mode: &str, at_once: Option<&str>) -> JsonBotConfig {
    let dir = std::env::temp_dir().join(format!(
        "koth-mux-{}-{}",
        std::process::id(),
        mode.replace(|c: char| !c.is_ascii_alphanumeric(), "_")
    ));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(root().join("tests/bots/mux.py"), dir.join("mux.py")).unwrap();
    std::fs::copy(sdk().join("koth_bot.py"), dir.join("koth_bot.py")).unwrap();
    let mut cfg = py(mode, dir.join("mux.py"), &[mode]);
    if let Some(n) = at_once {
        cfg.command = cfg.command.with_env("KOTH_GAMES_AT_ONCE", n);
    }
    cfg
}

/// Plays `games` games among two built-ins and `extra`, with full records.
fn full_run(extra: Vec<Entrant<State>>, games: u64, threads: usize) -> Vec<GameRecord<Choice>> {
    full_run_summary(extra, games, threads).1
}

/// [`full_run`], and the run's summary.
fn full_run_summary(
    extra: Vec<Entrant<State>>,
    games: u64,
    threads: usize,
) -> (koth_arena::RunSummary, Vec<GameRecord<Choice>>) {
    let mut entrants: Vec<Entrant<State>> = ["honest", "random"]
        .iter()
        .map(|b| builtin_entrant(b, *b).unwrap())
        .collect();
    entrants.extend(extra);
    let t = Tournament {
        rules: Rules::standard(),
        entrants,
        schedule: Schedule::RandomTables { games, table: 4 },
        scoring: Scoring::ZeroSum,
        seed: 77,
        threads,
        records: RecordLevel::Full,
        duplicate: false,
    };
    let mut c = Collect::default();
    let summary = t.run(&mut c);
    assert!(summary.complete);
    assert_eq!(c.0.len() as u64, games);
    (summary, c.0)
}

#[test]
fn programs_that_play_many_games_at_once_play_each_as_alone() {
    // Python and JavaScript SDK bots given as classes say "games": 64 in ready;
    // the same bots told to take one game at a time must play identical games.
    let js_cfg = |at_once: Option<&str>| {
        let mut cfg = node(root().join("../../sdk/js/example_bot.js"), &[]);
        if let Some(n) = at_once {
            cfg.command = cfg.command.with_env("KOTH_GAMES_AT_ONCE", n);
        }
        cfg
    };
    let js = |at_once: Option<&str>| json_entrant("js", js_cfg(at_once));
    // The bots really say so (and one at a time when told): greeted alone.
    for (cfg, want) in [
        (mux("play", None), 64),
        (mux("play", Some("1")), 1),
        (js_cfg(None), 64),
        (js_cfg(Some("1")), 1),
    ] {
        let mut agent = koth_protocol::JsonAgent::<State>::new(std::sync::Arc::new(cfg));
        agent.greet().unwrap();
        assert_eq!(agent.games_at_once(), want);
    }
    let many = full_run(
        vec![json_entrant("py", mux("play", None)), js(None)],
        300,
        2,
    );
    let one = full_run(
        vec![json_entrant("py", mux("play", Some("1"))), js(Some("1"))],
        300,
        1,
    );
    assert_eq!(many, one, "the same games, whatever the games at once");
    check_intact(&many, None);
    assert!(many
        .iter()
        .all(|r| r.choices.as_ref().is_some_and(|c| c.len() > 4)));
}

#[test]
fn a_program_playing_many_games_at_once_that_crashes_costs_the_game_it_crashed_in() {
    let (summary, recs) = full_run_summary(vec![json_entrant("crash", mux("crash", None))], 400, 2);
    let bad = 2;
    let forfeits: Vec<_> = recs
        .iter()
        .flat_map(|r| r.forfeits.iter().map(move |f| (r.index, f)))
        .collect();
    // The first process dies at its 300th decision: the game it died in
    // forfeits, with the reason and the stderr tail. The other games it was
    // playing were lost with it: they are played again from their start by a
    // fresh process, and stored whole.
    assert_eq!(forfeits.len(), 1, "{forfeits:?}");
    let (cause, f) = forfeits[0];
    assert!(
        f.fault.reason.contains("crashed (exit code 3)")
            && f.fault.reason.contains("games at once"),
        "game {cause}: {:?}",
        f.fault.reason
    );
    assert_eq!(f.entrant, bad);
    // Its stderr is one stream for every game the process played, and says so.
    assert!(f
        .fault
        .stderr_tail
        .as_deref()
        .is_some_and(|t| t.starts_with("[one stream for the up to 64 games")
            && t.contains("crashing on purpose")));
    assert!(summary.replays.lost >= 1, "{:?}", summary.replays);
    assert_eq!(summary.replays.machine, 0);
    check_intact(&recs, Some(bad));
}

/// `tests/bots/fly.py MODE`, a bot written to the protocol without the SDK,
/// playing `at_once` games at once.
fn fly(mode: &str, at_once: &str) -> Entrant<State> {
    let mut cfg = py(mode, root().join("tests/bots/fly.py"), &[mode]);
    cfg.command = cfg.command.with_env("KOTH_GAMES_AT_ONCE", at_once);
    json_entrant("fly", cfg)
}

#[test]
fn an_answer_that_names_its_request_costs_its_game_only_at_64_at_once_as_at_one() {
    // {"act": "fly", "id": N}: no answer, but it names its request. It costs
    // that game, and the process plays on in the others: the same games at 64
    // at once as at one, the same forfeits.
    let (many_run, many) = full_run_summary(vec![fly("fly", "64")], 400, 2);
    let (_, one) = full_run_summary(vec![fly("fly", "1")], 400, 1);
    let lost: Vec<_> = many
        .iter()
        .flat_map(|r| r.forfeits.iter().map(move |f| (r.index, f)))
        .collect();
    eprintln!("{} forfeits at 64 at once", lost.len());
    assert!(lost.len() >= 10, "{lost:?}");
    for (g, f) in &lost {
        assert_eq!(f.entrant, 2, "game {g}");
        assert!(
            f.fault.reason.contains("neither \"choice\" nor \"index\"")
                && !f.fault.reason.contains("games at once"),
            "game {g}: {:?}",
            f.fault.reason
        );
    }
    // The same games and forfeits, whatever the games at once (the reasons
    // quote the answer, whose id counts the process's requests).
    let shape = |r: &GameRecord<Choice>| {
        let at: Vec<_> = r
            .forfeits
            .iter()
            .map(|f| (f.seat, f.at, f.entrant))
            .collect();
        (r.index, r.outcome, r.scores.clone(), r.choices.clone(), at)
    };
    assert_eq!(many.len(), one.len());
    for (a, b) in many.iter().zip(&one) {
        assert_eq!(shape(a), shape(b), "game {}", a.index);
    }
    assert_eq!(many_run.replays, koth_arena::Replays::default());
}

#[test]
fn a_process_that_dies_costs_one_game_and_its_other_games_are_played_again_as_they_were() {
    // The first process dies in its fifth game, with up to 64 under way. That
    // game is charged; every other game is the one a bot that never dies plays.
    let (summary, crashed) = full_run_summary(vec![fly("crash", "64")], 300, 1);
    let (_, calm) = full_run_summary(vec![fly("calm", "64")], 300, 1);
    let charged: Vec<_> = crashed.iter().filter(|r| !r.forfeits.is_empty()).collect();
    assert_eq!(charged.len(), 1, "{charged:?}");
    let f = &charged[0].forfeits[0];
    assert!(
        f.fault.reason.contains("crashed (exit code 3)"),
        "{:?}",
        f.fault
    );
    assert!(f
        .fault
        .stderr_tail
        .as_deref()
        .is_some_and(|t| t.contains("crashing on purpose in game 5")));
    assert!(summary.replays.lost >= 1, "{:?}", summary.replays);
    assert_eq!(crashed.len(), calm.len());
    for (a, b) in crashed.iter().zip(&calm) {
        if a.index != charged[0].index {
            assert_eq!(a, b, "game {}", a.index);
        }
    }
}

#[test]
fn an_illegal_answer_costs_only_its_own_game_among_those_at_once() {
    // A legal-looking illegal choice, and a well-formed answer that is no choice of
    // the game at all ({"act": "fly"}): both cost their own game only.
    for mode in ["illegal", "notachoice"] {
        illegal_answers_cost_their_game(mode);
    }
}

fn illegal_answers_cost_their_game(mode: &str) {
    let recs = full_run(vec![json_entrant(mode, mux(mode, None))], 200, 2);
    let mut odd = 0;
    // The bot cheats once in the games whose seed (its own stream) is odd: those
    // forfeit, for that reason only, and the process plays on in the others.
    for r in recs.iter().filter(|r| r.seats.contains(&2)) {
        if let Some(f) = r.forfeits.iter().find(|f| f.entrant == 2) {
            odd += 1;
            assert!(
                f.fault.reason.contains("illegal choice"),
                "{mode}: {:?}",
                f.fault
            );
            assert!(
                !f.fault.reason.contains("games at once"),
                "{mode}: {:?}",
                f.fault
            );
        }
    }
    let seated = recs.iter().filter(|r| r.seats.contains(&2)).count();
    assert!(
        odd > seated / 4 && odd < seated * 3 / 4,
        "{mode}: {odd} of {seated}"
    );
    check_intact(&recs, Some(2));
}

#[test]
fn a_program_that_says_legal_false_gets_no_legal_lists_and_plays() {
    let script = root().join("tests/bots/nolegal.py");
    // The bot exits (and forfeits) if a decide line carries legal.
    let forfeits = zoo_run("nolegal", 30, py("nolegal", script.clone(), &[]));
    assert!(forfeits.is_empty(), "{forfeits:?}");
    // Saying true, or nothing, keeps legal: the same bot then exits.
    let forfeits = zoo_run("nolegal", 12, py("nolegal", script, &["true"]));
    assert_reason(&forfeits, "crashed (exit code 1)");
    let tail = forfeits[0].1.stderr_tail.clone().unwrap_or_default();
    assert!(tail.contains("carried legal"), "{tail}");
}

#[test]
fn a_bad_legal_value_in_ready_is_refused_with_the_reason() {
    let script = root().join("tests/bots/nolegal.py");
    for bad in ["0", "\"no\"", "[]"] {
        let forfeits = zoo_run("bad", 12, py("bad", script.clone(), &[bad]));
        assert_reason(&forfeits, "\"legal\" in ready must be true or false");
    }
}

#[test]
fn a_bad_games_count_in_ready_is_refused_with_the_reason() {
    for bad in ["0", "\"many\"", "-3", "2.5"] {
        let forfeits = zoo_run("bad", 12, mux(&format!("games={bad}"), None));
        assert_reason(
            &forfeits,
            "\"games\" in ready must be a whole number from 1",
        );
    }
}

/// A JS SDK bot whose every choice comes from Math.random (tests/bots/dice.js),
/// playing up to 64 games at once or one at a time.
fn dice(at_once: Option<&str>) -> Entrant<State> {
    let dir = std::env::temp_dir().join(format!("koth-dice-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(root().join("tests/bots/dice.js"), dir.join("dice.js")).unwrap();
    std::fs::copy(
        root().join("../../sdk/js/koth_bot.js"),
        dir.join("koth_bot.js"),
    )
    .unwrap();
    let mut cfg = node(dir.join("dice.js"), &[]);
    if let Some(n) = at_once {
        cfg.command = cfg.command.with_env("KOTH_GAMES_AT_ONCE", n);
    }
    json_entrant("dice", cfg)
}

#[test]
fn a_js_sdk_bot_drawing_from_math_random_replays_exactly() {
    // The SDK seeds Math.random per game from the seat's seed: the same games at 2
    // threads with 64 at once, at 1 thread one at a time, and run again.
    let many = full_run(vec![dice(None)], 200, 2);
    let one = full_run(vec![dice(Some("1"))], 200, 1);
    let again = full_run(vec![dice(None)], 200, 2);
    check_intact(&many, None);
    for (other, what) in [(&one, "one game at a time"), (&again, "a second run")] {
        if let Some((a, b)) = many.iter().zip(other.iter()).find(|(a, b)| a != b) {
            panic!("{what}: game {} differs:\n{a:?}\n{b:?}", a.index);
        }
    }
}
