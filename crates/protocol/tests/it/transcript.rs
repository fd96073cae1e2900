//! The transcripts in docs/protocol.md come from real runs: this test replays them
//! (fixed seeds; the Python SDK example bot against the built-in honest bot at Coup,
//! the SDK samurai against the built-in bower) and compares.
//! `KOTH_BLESS=1 cargo test -p koth-protocol --test it transcript::` rewrites them.

use koth_arena::{play_game, Agent, GameSeeds, RecordLevel, Scoring};
use koth_coup::{bots, BotAgent, Rules, State};
use koth_process::Command;
use koth_protocol::{JsonAgent, JsonBotConfig};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

const SEED: u64 = 11;
const BEGIN: &str = "<!-- transcript:begin -->\n```text\n";
const END: &str = "```\n<!-- transcript:end -->";
const SAMURAI_BEGIN: &str = "<!-- samurai-transcript:begin -->\n```text\n";
const SAMURAI_END: &str = "```\n<!-- samurai-transcript:end -->";

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

/// The SDK samurai in seat 1 (asked second) against bower, for three turns; the
/// duel is then ended from outside, so the `end` line shows too.
fn samurai_transcript() -> String {
    use koth_arena::Game;
    use koth_samurai::{builtin, Rules as SamuraiRules, SamuraiAgent, State as Duel};
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let sdk = root.join("../../sdk/python");
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut cfg = JsonBotConfig::new(Command::new(["python3", "samurai_bot.py"], sdk));
    cfg.transcript = Some(log.clone());
    let mut ext = JsonAgent::<Duel>::new(Arc::new(cfg));
    let mut bower = SamuraiAgent::new(builtin("bower").unwrap());
    let seeds = GameSeeds::of(SEED, 0);
    let mut duel = Duel::new(&SamuraiRules::default(), seeds.deal);
    ext.seat_names(&["bower", "counterstrike"]);
    bower.start(&duel, 0, seeds.seat(0)).unwrap();
    ext.start(&duel, 1, seeds.seat(1)).unwrap();
    let mut legal = Vec::new();
    while duel.log().len() < 3 {
        legal.clear();
        duel.legal_choices(&mut legal);
        let seat = duel.to_move().unwrap();
        let agent: &mut dyn Agent<Duel> = if seat == 0 { &mut bower } else { &mut ext };
        let c = agent.decide(&duel, seat, &legal).unwrap();
        duel.apply(c).unwrap();
    }
    duel.adjudicate(koth_arena::SeatSet::all(2));
    ext.finish(&duel, 1);
    let lines = log.lock().unwrap().clone();
    lines.join("\n") + "\n"
}

/// Compares (or with KOTH_BLESS, rewrites) the block between two markers.
fn compare(begin: &str, end: &str, fresh: String) {
    let doc_path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/protocol.md");
    let doc = std::fs::read_to_string(&doc_path).expect("docs/protocol.md");
    let start = doc.find(begin).expect("transcript begin marker") + begin.len();
    let end = start + doc[start..].find(end).expect("transcript end marker");
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

#[test]
fn doc_transcript_matches_a_fresh_run() {
    compare(BEGIN, END, fresh_transcript());
}

#[test]
fn doc_samurai_transcript_matches_a_fresh_run() {
    compare(SAMURAI_BEGIN, SAMURAI_END, samurai_transcript());
}
