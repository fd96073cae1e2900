//! Programs of the two-player challenge as a bot kind of `koth coup run`
//! (`protocol = "ppcg"`): they play their history-file protocol beside built-in and
//! JSON-lines bots in one tournament file; `--stop-on-forfeit` works for the
//! challenge's own runner too.

use crate::common;

use common::koth_all as koth;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("koth-ppcg-kinds-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Copies example program `name` (folder `examples/ppcg/NAME`) into `d/NAME`.
fn program(d: &Path, name: &str, file: &str) {
    std::fs::create_dir_all(d.join(name)).unwrap();
    std::fs::copy(
        repo().join("examples/ppcg").join(name).join(file),
        d.join(name).join(file),
    )
    .unwrap();
}

#[test]
fn a_tournament_file_seats_challenge_programs_beside_json_and_built_in_bots() {
    let d = scratch("mix");
    program(&d, "Truthful", "truthful.py");
    std::fs::create_dir_all(d.join("sdk")).unwrap();
    for f in ["koth_bot.py", "example_bot.py"] {
        std::fs::copy(repo().join("sdk/python").join(f), d.join("sdk").join(f)).unwrap();
    }
    let file = d.join("t.toml");
    std::fs::write(
        &file,
        r#"[tournament]
rules = "ppcg"
games = 6
seed = 9

[[bot]]
name = "Truthful"
command = ["python3", "truthful.py"]
dir = "Truthful"
protocol = "ppcg"

[[bot]]
name = "py"
command = ["python3", "example_bot.py"]
dir = "sdk"

[[bot]]
name = "honest"
builtin = "honest"
"#,
    )
    .unwrap();
    let out = d.join("out");
    let (code, stdout, err) = koth(&[
        "coup",
        "run",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(code, Some(0), "{stdout}{err}");
    assert!(
        err.contains("3 bots, 1 round of every ordered pair (6 games)"),
        "{err}"
    );
    for name in ["Truthful", "py", "honest"] {
        assert!(
            stdout
                .lines()
                .any(|l| l.contains(&format!("┆ {name} ")) && l.contains("┆     4 ┆")),
            "{name} plays 4 games\n{stdout}"
        );
    }
    assert!(stdout.contains("forfeits: none"), "{stdout}");
    // Every game is filed as the arbiter names it, the JSON bot's too.
    let files: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".txt") && n.contains('_'))
        .collect();
    assert_eq!(files.len(), 6, "{files:?}");
    assert!(
        files.iter().any(|f| f.starts_with("Truthful_py_0_")),
        "{files:?}"
    );
    // The history file is the program's protocol: it holds the moves as written.
    let (_, replay, _) = koth(&["replay", out.to_str().unwrap(), "--game", "0"]);
    assert!(replay.contains("(as recorded)"), "{replay}");
}

#[test]
fn challenge_programs_need_the_challenge_s_rules() {
    let d = scratch("rules");
    program(&d, "Truthful", "truthful.py");
    let file = d.join("t.toml");
    std::fs::write(
        &file,
        "[[bot]]\nname = \"Truthful\"\ncommand = [\"python3\", \"truthful.py\"]\ndir = \"Truthful\"\nprotocol = \"ppcg\"\n[[bot]]\nname = \"h\"\nbuiltin = \"honest\"\n",
    )
    .unwrap();
    let (code, _, err) = koth(&["coup", "run", file.to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("t.toml:5:") && err.contains("rules = \"ppcg\""),
        "{err}"
    );
    // From the command line, --rules ppcg says it.
    let bot = format!("T=ppcg:python3 {}/Truthful/truthful.py", d.display());
    let (code, _, err) = koth(&["coup", "run", "--bot", &bot, "--bot", "h=builtin:honest"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--rules ppcg"), "{err}");
    // A challenge program cannot sit at a table of the 2-6 player game.
    let (code, _, err) = koth(&["coup", "play", "--bot", &bot, "--bots", "honest"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("two-player challenge"), "{err}");
}

#[test]
fn the_challenge_runner_stops_at_the_first_forfeit_and_shows_the_game() {
    let d = scratch("stop");
    program(&d, "Junk", "junk.py");
    program(&d, "Truthful", "truthful.py");
    std::fs::write(
        d.join("players.txt"),
        "Junk python3 junk.py\nTruthful python3 truthful.py\n",
    )
    .unwrap();
    // `koth ppcg run LIST` is `koth ppcg LIST` in the shape every game shares.
    let (code, out, err) = koth(&[
        "ppcg",
        "run",
        d.join("players.txt").to_str().unwrap(),
        "--rounds",
        "5",
        "--seed",
        "1",
        "--threads",
        "1",
        "--strict",
        "--stop-on-forfeit",
        "-q",
    ]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.contains("stopped at the first forfeit: game "), "{out}");
    assert!(out.contains("Junk forfeited after "), "{out}");
    assert!(
        out.contains("history file and readable log are in"),
        "{out}"
    );
    // Stopped early: fewer than the 10 games of 5 rounds.
    let games: u64 = out
        .lines()
        .filter(|l| l.contains("┆ Junk "))
        .map(|l| l.split('┆').nth(3).unwrap().trim().parse::<u64>().unwrap())
        .sum();
    assert!(games < 10, "{games}\n{out}");
}

#[test]
fn a_misspelt_subcommand_is_named() {
    let (code, _, err) = koth(&["ppcg", "bts"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("did you mean `koth ppcg bots`?"), "{err}");
    let (code, out, _) = koth(&["ppcg", "bots"]);
    assert_eq!(code, Some(0));
    assert!(out.contains("honest"), "{out}");
    let (code, _, err) = koth(&["ppcg"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("needs the program list"), "{err}");
}

#[test]
fn check_finds_a_challenge_program_s_defects_and_passes_a_sound_one() {
    let d = scratch("check");
    program(&d, "Junk", "junk.py");
    program(&d, "Truthful", "truthful.py");
    let junk = format!("python3 {}/Junk/junk.py", d.display());
    let (code, out, err) = koth(&["ppcg", "check", &junk, "--games", "4", "--strict", "-q"]);
    assert_eq!(code, Some(1), "{out}{err}");
    // One bug (junk before every move): one finding, listing the kinds it hit.
    let found = common::findings(&out);
    assert_eq!(found.len(), 1, "{out}");
    assert!(found[0].0.split("; ").any(|k| k == "action"), "{out}");
    assert!(found[0].1.starts_with("illegal move \"x"), "{out}");
    assert!(out.contains("the file's last line: \""), "{out}");
    assert!(
        out.contains(&format!(
            "see it: koth ppcg check '{junk}' --strict --seed 1 --game 0"
        )),
        "{out}"
    );
    // Read as the original reads it (the default), its junk passes where the
    // original accepts it.
    let (_, out, _) = koth(&["ppcg", "check", &junk, "--games", "2", "-q"]);
    assert!(!out.contains("illegal move \"x"), "{out}");
    // The game a finding names is narrated, with the history file at its end.
    let (code, out, _) = koth(&["ppcg", "check", &junk, "--strict", "--game", "0"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("Junk forfeits: illegal move \"x")
            || out.contains("junk forfeits: illegal move \"x"),
        "{out}"
    );
    let truthful = format!("python3 {}/Truthful/truthful.py", d.display());
    let (code, out, err) = koth(&[
        "ppcg",
        "check",
        &truthful,
        "--games",
        "4",
        "--accept-unreached",
        "-q",
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("truthful passed: 4 games"), "{out}");
    assert!(out.contains("reveal or end of turn"), "{out}");
}

#[test]
fn play_narrates_one_game_of_any_two_players_and_shows_the_history_file() {
    let d = scratch("play");
    program(&d, "Truthful", "truthful.py");
    std::fs::write(d.join("players.txt"), "Truthful python3 truthful.py\n").unwrap();
    let list = d.join("players.txt");
    let (code, out, err) = koth(&[
        "ppcg",
        "play",
        "Truthful",
        "honest",
        "--list",
        list.to_str().unwrap(),
        "--seed",
        "4",
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(
        out.starts_with("Coup, the two-player challenge, seed 4: Truthful (first) vs honest"),
        "{out}"
    );
    assert!(
        out.contains("\nWinner: ") || out.contains("No winner"),
        "{out}"
    );
    let file = out.split("the history file:\n").nth(1).expect(&out);
    // The file as the arbiter writes it: lines of moves.
    assert!(
        !file.trim().is_empty() && file.lines().all(|l| l.len() <= 4),
        "{file}"
    );
    // A JSON-lines bot plays the challenge too, through the engine.
    let sdk = repo().join("sdk/python/example_bot.py");
    let (code, out, err) = koth(&[
        "ppcg",
        "play",
        &format!("cmd:python3 {}", sdk.display()),
        "honest",
        "--seed",
        "4",
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("example_bot (first) vs honest"), "{out}");
}

#[test]
fn a_person_plays_the_challenge_seeing_only_their_cards() {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_koth"))
        .args(["ppcg", "play", "me=human", "honest", "--seed", "4"])
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"tax\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains(">> me: your turn. You hold Assassin and Duke"),
        "{text}"
    );
    assert!(text.contains("Steal honest"), "{text}");
    assert!(text.contains("me claims a Duke: Tax"), "{text}");
    // The other hand stays hidden.
    assert!(!text.contains("honest: Contessa"), "{text}");
    assert!(text.contains("me forfeits: the player left"), "{text}");
}

/// What a program of the challenge writes to stderr shows in `ppcg play`, where it
/// writes it (each launch is a process of its own).
#[test]
fn play_shows_a_challenge_program_s_stderr_in_place() {
    let d = scratch("talker");
    std::fs::create_dir_all(d.join("Talker")).unwrap();
    std::fs::write(
        d.join("Talker/talker.py"),
        "import sys\nlegal = sys.argv[5:]\nprint(f'thinking over {len(legal)} moves', file=sys.stderr)\nopen(sys.argv[1], 'a').write(legal[0])\n",
    )
    .unwrap();
    let prog = format!("python3 {}/Talker/talker.py", d.display());
    let (code, out, err) = koth(&["ppcg", "play", &prog, "honest", "--seed", "2"]);
    assert_eq!(code, Some(0), "{out}{err}");
    let first = out.find("talker stderr | thinking over ").expect(&out);
    let turn2 = out.find("Turn 2:").expect(&out);
    assert!(first < turn2, "shown in place, before the next turn\n{out}");
}
