//! Golden cases of the original arbiter's lenient reading, driven through the adapter
//! with scripted programs: it accepts junk before a move (`endswith` on the last
//! line) and credits a turn's effect from the line's first and second-to-last
//! characters. Each expected figure below follows from seed 000's `play_game` and
//! `determine_turn_effects`, worked by hand in the comments.

use crate::common;
use common::*;
use koth_arena::Game;
use koth_coup::Card::*;
use koth_ppcg::{PpcgGame, RunOptions};

fn settled(t: &'static str) -> impl Fn(&PpcgGame) -> bool {
    move |g| g.history().settled_text() == t && g.history().owed().is_none()
}

fn strict() -> RunOptions {
    RunOptions {
        strict: true,
        ..RunOptions::default()
    }
}

fn warnings(g: &PpcgGame) -> usize {
    g.notes().warnings.len()
}

/// `xT`, `p`, `\n`: the move is T (the line ends with it), but the line starts with
/// `x`, so the original credits no Tax.
#[test]
fn junk_before_an_action_credits_nothing() {
    let dir = temp("l-xt");
    let mut g = game(
        setup(&[Duke, Captain], &[Contessa, Assassin], [1, 1], &[], 1),
        &dir,
        "xt",
    );
    let mut a = scripted(&dir, "a", r#"["xT", "\n"]"#, RunOptions::default());
    let mut b = scripted(&dir, "b", r#"["p"]"#, RunOptions::default());
    assert!(drive(&mut g, &mut [&mut a, &mut b], settled("xTp\n")).is_none());
    assert_eq!((g.state().coins(0), g.state().coins(1)), (1, 1));
    assert_eq!(g.history().coins(), [1, 1]);
    assert_eq!(warnings(&g), 1);
    // The opponent was asked exactly what the original asks after "xT".
    assert_eq!(args(&b), [v(&["1", "1", "!^", "p", "q"])]);
}

/// The real entry's quirk: after its challenge of a block succeeds it writes a card
/// and a newline where only `\n` is legal. `Scq=<\n`: line[-2] is `<`, a give-up,
/// so the Steal is credited as usual and no card is taken.
#[test]
fn card_and_newline_after_a_won_block_challenge_plays_on() {
    let dir = temp("l-quirk");
    let mut g = game(
        setup(&[Duke, Captain], &[Contessa, Assassin], [1, 1], &[], 1),
        &dir,
        "quirk",
    );
    let mut a = scripted(&dir, "a", r#"["S", "q", "<\n"]"#, RunOptions::default());
    let mut b = scripted(&dir, "b", r#"["c", "="]"#, RunOptions::default());
    assert!(drive(&mut g, &mut [&mut a, &mut b], settled("Scq=<\n")).is_none());
    assert_eq!((g.state().coins(0), g.state().coins(1)), (2, 0));
    let mut hand = g.state().hand(0).to_vec();
    hand.sort();
    assert_eq!(hand, [Captain, Duke]);
    assert_eq!(g.state().hand(1), [Assassin]);
    assert_eq!(warnings(&g), 1);
    assert!(g
        .notes()
        .transcript
        .iter()
        .any(|l| l.contains("warning: a wrote \"<\\n\" where \"\\n\" is the move")));
}

/// The same quirk under `--strict` forfeits.
#[test]
fn the_quirk_forfeits_under_strict() {
    let dir = temp("l-quirk-strict");
    let mut g = game(
        setup(&[Duke, Captain], &[Contessa, Assassin], [1, 1], &[], 1),
        &dir,
        "quirk",
    );
    let mut a = scripted(&dir, "a", r#"["S", "q", "<\n"]"#, strict());
    let mut b = scripted(&dir, "b", r#"["c", "="]"#, strict());
    let (seat, f) = drive(&mut g, &mut [&mut a, &mut b], |_| false).expect("a forfeit");
    assert_eq!(seat, 0);
    assert!(
        f.reason.starts_with("illegal move \"<\\n\""),
        "{}",
        f.reason
    );
    // The archive keeps what the program wrote.
    g.write_archive().unwrap();
    let text = std::fs::read_to_string(dir.join("quirk.txt")).unwrap();
    assert_eq!(text, "Scq=<\n");
}

/// With a reveal character instead (`Scq=*\n`), line[-2] is `*`: no Steal.
#[test]
fn a_reveal_character_before_the_newline_credits_nothing() {
    let dir = temp("l-star");
    let mut g = game(
        setup(&[Duke, Captain], &[Contessa, Assassin], [1, 1], &[], 1),
        &dir,
        "star",
    );
    let mut a = scripted(&dir, "a", r#"["S", "q", "*\n"]"#, RunOptions::default());
    let mut b = scripted(&dir, "b", r#"["c", "="]"#, RunOptions::default());
    assert!(drive(&mut g, &mut [&mut a, &mut b], settled("Scq=*\n")).is_none());
    assert_eq!((g.state().coins(0), g.state().coins(1)), (1, 1));
    assert_eq!(g.state().hand(1), [Assassin]);
}

/// `Fd0\n`: the actor answers a Duke block with `0\n` where `q` or `\n` is legal; the
/// move is `\n` (the block stands) but line[-2] is `0`, so the original pays the
/// Foreign Aid anyway.
#[test]
fn a_give_up_character_after_a_block_credits_the_action() {
    let dir = temp("l-fd0");
    let mut g = game(
        setup(&[Duke, Captain], &[Contessa, Assassin], [1, 1], &[], 1),
        &dir,
        "fd0",
    );
    let mut a = scripted(&dir, "a", r#"["F", "0\n"]"#, RunOptions::default());
    let mut b = scripted(&dir, "b", r#"["d"]"#, RunOptions::default());
    assert!(drive(&mut g, &mut [&mut a, &mut b], settled("Fd0\n")).is_none());
    assert_eq!((g.state().coins(0), g.state().coins(1)), (3, 1));
    let mut hand = g.state().hand(0).to_vec();
    hand.sort();
    assert_eq!(hand, [Captain, Duke], "no card is given up");
}

/// `Epx\n`: the drawn cards are handed over (the old line `Ep` qualifies), but the
/// finished line's second-to-last character is `x`: no Exchange, the hand stays and
/// what the program printed is not read.
#[test]
fn junk_before_the_exchange_newline_exchanges_nothing() {
    let dir = temp("l-epx");
    let mut g = game(
        setup(
            &[Ambassador, Captain],
            &[Contessa, Assassin],
            [1, 1],
            &[Duke, Duke],
            1,
        ),
        &dir,
        "epx",
    );
    let mut a = scripted(&dir, "a", r#"["E", ["x\n", "$$"]]"#, RunOptions::default());
    let mut b = scripted(&dir, "b", r#"["p"]"#, RunOptions::default());
    assert!(drive(&mut g, &mut [&mut a, &mut b], settled("Epx\n")).is_none());
    assert_eq!(args(&a)[1], v(&["1", "1", "$$~*", "\n"]));
    let mut hand = g.state().hand(0).to_vec();
    hand.sort();
    assert_eq!(hand, [Ambassador, Captain]);
    assert_eq!(g.state().deck_size(), 11);
}

/// `Aqx^<\n`: junk before the reveal makes the line five characters long, so the
/// original's "two cards in one turn" rule does not fire: the target gives up one
/// card and survives; the actor pays 3 when the card is given up.
#[test]
fn junk_in_an_assassination_line_spares_the_target() {
    let dir = temp("l-assn");
    let mut g = game(
        setup(&[Assassin, Duke], &[Captain, Duke], [2, 0], &[Contessa], 1),
        &dir,
        "assn",
    );
    let mut a = scripted(
        &dir,
        "a",
        r#"["I\n", "A", "x^", "\n"]"#,
        RunOptions::default(),
    );
    let mut b = scripted(&dir, "b", r#"["I\n", "q", "<"]"#, RunOptions::default());
    assert!(drive(&mut g, &mut [&mut a, &mut b], settled("I\nI\nAqx^<\n")).is_none());
    assert!(!g.state().is_over());
    assert_eq!(g.state().hand(1), [Duke]);
    assert_eq!((g.state().coins(0), g.state().coins(1)), (0, 1));
    assert_eq!(g.history().coins(), [0, 1]);
}

/// The same line without junk, `Aq^<`: the target loses at once.
#[test]
fn the_clean_assassination_line_takes_both_cards() {
    let dir = temp("l-assn-clean");
    let mut g = game(
        setup(&[Assassin, Duke], &[Captain, Duke], [2, 0], &[Contessa], 1),
        &dir,
        "assn",
    );
    let mut a = scripted(&dir, "a", r#"["I\n", "A", "^"]"#, RunOptions::default());
    let mut b = scripted(&dir, "b", r#"["I\n", "q", "<"]"#, RunOptions::default());
    let f = drive(&mut g, &mut [&mut a, &mut b], |_| false);
    assert!(f.is_none(), "{f:?} {:?}", g.notes().transcript);
    assert_eq!(g.outcome().unwrap().winners.iter().collect::<Vec<_>>(), [0]);
}

/// `TSq`: junk `S` before the challenge makes the original read a challenged Steal
/// (it would ask for a Captain) where the move challenges the Tax (a Duke): koth
/// cannot follow, and the junk's writer forfeits with the reason.
#[test]
fn junk_that_changes_the_challenged_claim_forfeits_its_writer() {
    let dir = temp("l-tsq");
    let mut g = game(
        setup(&[Duke, Captain], &[Contessa, Assassin], [1, 1], &[], 1),
        &dir,
        "tsq",
    );
    let mut a = scripted(&dir, "a", r#"["T"]"#, RunOptions::default());
    let mut b = scripted(&dir, "b", r#"["Sq"]"#, RunOptions::default());
    assert!(drive(&mut g, &mut [&mut a, &mut b], |_| false).is_none());
    assert_eq!(g.outcome().unwrap().winners.iter().collect::<Vec<_>>(), [0]);
    let reason = g.notes().faults[1].clone().unwrap();
    assert!(
        reason.contains("reads the line \"TSq\" differently"),
        "{reason}"
    );
    assert_eq!(g.notes().declared.len(), 1);
    assert_eq!(args(&a).len(), 1, "the actor is not invoked again");
}

/// `Txq`: the original would look up `x` as a claim and crash; the writer forfeits.
#[test]
fn junk_that_would_crash_the_original_forfeits_its_writer() {
    let dir = temp("l-txq");
    let mut g = game(
        setup(&[Duke, Captain], &[Contessa, Assassin], [1, 1], &[], 1),
        &dir,
        "txq",
    );
    let mut a = scripted(&dir, "a", r#"["T"]"#, RunOptions::default());
    let mut b = scripted(&dir, "b", r#"["xq"]"#, RunOptions::default());
    assert!(drive(&mut g, &mut [&mut a, &mut b], |_| false).is_none());
    assert_eq!(g.outcome().unwrap().winners.iter().collect::<Vec<_>>(), [0]);
    let reason = g.notes().faults[1].clone().unwrap();
    assert!(reason.contains("then stops it"), "{reason}");
}

/// Three characters at once are more than one move; the original refuses them too.
#[test]
fn more_than_two_characters_forfeit() {
    let dir = temp("l-three");
    let mut g = game(
        setup(&[Duke, Captain], &[Contessa, Assassin], [1, 1], &[], 1),
        &dir,
        "three",
    );
    let mut a = scripted(&dir, "a", r#"["xyT"]"#, RunOptions::default());
    let mut b = scripted(&dir, "b", r#"[]"#, RunOptions::default());
    let (seat, f) = drive(&mut g, &mut [&mut a, &mut b], |_| false).expect("a forfeit");
    assert_eq!(seat, 0);
    assert!(
        f.reason.contains("one move is one or two characters"),
        "{}",
        f.reason
    );
}
