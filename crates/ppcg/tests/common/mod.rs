#![allow(dead_code)]
use koth_arena::{Agent, Game};
use koth_coup::{Card, Rules, State};
use koth_ppcg::{GameMeta, PpcgAgent, PpcgGame, RunOptions, MAX_INVOCATIONS};
use koth_process::Command;
use std::path::{Path, PathBuf};

pub fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn programs_dir() -> PathBuf {
    crate_dir().join("tests/programs")
}

/// The folder of program `name`: the examples' field (examples/ppcg) or the
/// test-only programs (tests/programs).
pub fn program_dir(name: &str) -> PathBuf {
    let example = crate_dir().join("../../examples/ppcg").join(name);
    if example.is_dir() {
        example
    } else {
        programs_dir().join(name)
    }
}

/// A fresh, empty temporary folder.
pub fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("koth-ppcg-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A deal: hands, coins, and the cards drawn next (first drawn first).
pub fn setup(h0: &[Card], h1: &[Card], coins: [u8; 2], next: &[Card], seed: u64) -> State {
    let mut count = [3usize; 5];
    for &c in h0.iter().chain(h1).chain(next) {
        count[c.index()] -= 1;
    }
    let mut deck: Vec<Card> = Vec::new();
    for c in Card::ALL {
        for _ in 0..count[c.index()] {
            deck.push(c);
        }
    }
    deck.extend(next.iter().rev());
    State::from_setup(Rules::ppcg(), &[h0, h1], &coins, &deck, seed).unwrap()
}

pub fn game(state: State, dir: &Path, stem: &str) -> PpcgGame {
    let meta = GameMeta {
        names: ["p1".into(), "p2".into()],
        stem: stem.into(),
        out_dir: dir.to_path_buf(),
        archive: true,
        index: 0,
    };
    PpcgGame::from_state(state, MAX_INVOCATIONS, meta)
}

/// A scripted program in `dir/<name>` playing `script` (JSON array).
pub fn scripted(dir: &Path, name: &str, script: &str, opts: RunOptions) -> PpcgAgent {
    let d = dir.join(name);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("script.json"), script).unwrap();
    let py = programs_dir().join("Scripted/script.py");
    // The script lives outside the folder it plays from: listed, as an
    // operator lists what a bot may read.
    let mut cmd = Command::new(["python3".to_string(), py.display().to_string()], d);
    cmd.read_only.push(programs_dir().join("Scripted"));
    PpcgAgent::new(name, cmd, opts)
}

/// Drives the game until `stop` holds, the game ends, or a fault; returns the fault.
pub fn drive(
    g: &mut PpcgGame,
    agents: &mut [&mut dyn Agent<PpcgGame>],
    stop: impl Fn(&PpcgGame) -> bool,
) -> Option<(usize, koth_arena::Fault)> {
    for (seat, a) in agents.iter_mut().enumerate() {
        a.start(g, seat, 0).unwrap();
    }
    let mut legal = Vec::new();
    let mut fault = None;
    while let Some(seat) = g.to_move() {
        if stop(g) {
            break;
        }
        legal.clear();
        g.legal_choices(&mut legal);
        match agents[seat].decide(g, seat, &legal) {
            Ok(c) => g.apply(c).unwrap(),
            Err(f) => {
                g.forfeit(seat);
                fault = Some((seat, f));
                break;
            }
        }
        g.check_invariants().unwrap();
    }
    for (seat, a) in agents.iter_mut().enumerate() {
        if g.to_move().is_none() {
            a.finish(g, seat);
        }
    }
    fault
}

pub fn args(a: &PpcgAgent) -> Vec<Vec<String>> {
    a.invocations.iter().map(|i| i.args.clone()).collect()
}

pub fn v(x: &[&str]) -> Vec<String> {
    x.iter().map(|s| s.to_string()).collect()
}
