//! The transcript in docs/protocol.md comes from a real run: this test replays it
//! (fixed seed, the Python SDK example bot against the built-in honest bot) and
//! compares. `KOTH_BLESS=1 cargo test -p koth-protocol --test transcript` rewrites it.

use koth_arena::{play_game, Agent, GameSeeds, RecordLevel, Scoring};
use koth_coup::{bots, BotAgent, Rules, State};
use koth_process::Command;
use koth_protocol::{JsonAgent, JsonBotConfig};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

const SEED: u64 = 11;
const BEGIN: &str = "<!-- transcript:begin -->\n```text\n";
const END: &str = "```\n<!-- transcript:end -->";

fn fresh_transcript() -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let sdk = root.join("../../sdk/python");
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut cfg = JsonBotConfig::new(Command::new(["python3", "example_bot.py"], sdk));
    cfg.transcript = Some(log.clone());
    let mut ext = JsonAgent::<State>::new(Arc::new(cfg));
    let mut honest = BotAgent(bots::builtin("honest").unwrap());
    let seeds = GameSeeds::of(SEED, 0);
    let mut game = State::new(Rules::standard(), 2, seeds.deal);
    let mut seats: Vec<&mut dyn Agent<State>> = vec![&mut ext, &mut honest];
    let (rec, _) = play_game(
        &mut game,
        &mut seats,
        &[0, 1],
        0,
        seeds,
        Scoring::ZeroSum,
        RecordLevel::Results,
        &mut Vec::new(),
    );
    assert!(rec.forfeits.is_empty(), "{:?}", rec.forfeits);
    let lines = log.lock().unwrap().clone();
    lines.join("\n") + "\n"
}

#[test]
fn doc_transcript_matches_a_fresh_run() {
    let doc_path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/protocol.md");
    let doc = std::fs::read_to_string(&doc_path).expect("docs/protocol.md");
    let start = doc.find(BEGIN).expect("transcript begin marker") + BEGIN.len();
    let end = start + doc[start..].find(END).expect("transcript end marker");
    let fresh = fresh_transcript();
    if doc[start..end] != fresh {
        if std::env::var_os("KOTH_BLESS").is_some() {
            let new = format!("{}{}{}", &doc[..start], fresh, &doc[end..]);
            std::fs::write(&doc_path, new).unwrap();
            return;
        }
        panic!(
            "docs/protocol.md's transcript differs from a fresh run; rerun with KOTH_BLESS=1 to update.\nfresh:\n{fresh}"
        );
    }
}
