//! The seed's example lines, driven through the adapter with scripted programs:
//! the history text, coins, cards and the exact argument vectors of every invocation.

use crate::common;
use common::*;
use koth_arena::Game;
use koth_coup::Card::*;
use koth_ppcg::RunOptions;

fn text_is(t: &'static str) -> impl Fn(&koth_ppcg::PpcgGame) -> bool {
    move |g| g.history().file_text() == t && g.history().owed().is_none()
}

#[test]
fn income() {
    let dir = temp("g-income");
    let mut g = game(
        setup(&[Duke, Captain], &[Contessa, Assassin], [1, 1], &[], 1),
        &dir,
        "income",
    );
    let mut a = scripted(&dir, "a", r#"["I\n"]"#, RunOptions::default());
    let mut b = scripted(&dir, "b", r#"[]"#, RunOptions::default());
    assert!(drive(&mut g, &mut [&mut a, &mut b], text_is("I\n")).is_none());
    assert_eq!(g.state().coins(0), 2);
    assert_eq!(args(&a), [v(&["1", "1", "$*", "I\n", "F", "E", "S", "T"])]);
    assert!(args(&b).is_empty());
}

#[test]
fn foreign_aid_passed() {
    let dir = temp("g-fp");
    let mut g = game(
        setup(&[Duke, Captain], &[Contessa, Assassin], [1, 1], &[], 1),
        &dir,
        "fp",
    );
    let mut a = scripted(&dir, "a", r#"["F", "\n"]"#, RunOptions::default());
    let mut b = scripted(&dir, "b", r#"["p"]"#, RunOptions::default());
    assert!(drive(&mut g, &mut [&mut a, &mut b], text_is("Fp\n")).is_none());
    assert_eq!((g.state().coins(0), g.state().coins(1)), (3, 1));
    // The arbiter adds the 2 coins only after the actor's newline.
    assert_eq!(
        args(&a),
        [
            v(&["1", "1", "$*", "I\n", "F", "E", "S", "T"]),
            v(&["1", "1", "$*", "\n"])
        ]
    );
    assert_eq!(args(&b), [v(&["1", "1", "!^", "d", "p"])]);
    assert_eq!(g.history().coins(), [3, 1]);
}

#[test]
fn coup() {
    let dir = temp("g-coup");
    let mut g = game(
        setup(&[Duke, Captain], &[Contessa, Assassin], [6, 1], &[], 1),
        &dir,
        "coup",
    );
    let mut a = scripted(&dir, "a", r#"["I\n", "C", "\n"]"#, RunOptions::default());
    let mut b = scripted(&dir, "b", r#"["I\n", "="]"#, RunOptions::default());
    assert!(drive(&mut g, &mut [&mut a, &mut b], text_is("I\nI\nC=\n")).is_none());
    assert_eq!((g.state().coins(0), g.state().coins(1)), (0, 2));
    assert_eq!(g.state().hand(1), [Assassin]);
    // The victim sees the Coup's 7 coins still there; the actor's newline sees them gone.
    assert_eq!(args(&b)[1], v(&["7", "2", "!^", "=", "'"]));
    assert_eq!(
        args(&a)[1],
        v(&["2", "7", "$*", "I\n", "F", "E", "T", "A", "C", "S"])
    );
    assert_eq!(args(&a)[2], v(&["2", "0", "$*", "\n"]));
}

#[test]
fn exchange_challenged_keeps_the_ambassador() {
    let dir = temp("g-exch");
    // Drawn cards: Duke then Contessa.
    let mut g = game(
        setup(
            &[Ambassador, Captain],
            &[Captain, Assassin],
            [1, 1],
            &[Duke, Contessa],
            1,
        ),
        &dir,
        "exch",
    );
    let mut a = scripted(
        &dir,
        "a",
        r#"["E", "~", ["\n", " $~\n"]]"#,
        RunOptions::default(),
    );
    let mut b = scripted(&dir, "b", r#"["q", "<"]"#, RunOptions::default());
    assert!(drive(&mut g, &mut [&mut a, &mut b], text_is("Eq~<\n")).is_none());
    assert_eq!(
        args(&b),
        [
            v(&["1", "1", "*^", "p", "q"]),
            v(&["1", "1", "*^", "<", "'"])
        ]
    );
    assert_eq!(
        args(&a),
        [
            v(&["1", "1", "~*", "I\n", "F", "E", "S", "T"]),
            v(&["1", "1", "~*", "~"]),
            v(&["1", "1", "$!~*", "\n"])
        ]
    );
    let mut hand = g.state().hand(0).to_vec();
    hand.sort();
    assert_eq!(hand, [Ambassador, Duke]);
    // The arbiter keeps the order printed.
    assert_eq!(g.history().hand(0), [Duke, Ambassador]);
    assert_eq!(g.state().hand(1), [Assassin]);
    g.write_archive().unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.join("exch.txt")).unwrap(),
        "Eq~<\n"
    );
}

#[test]
fn tax_bluff_caught() {
    let dir = temp("g-tax");
    let mut g = game(
        setup(&[Assassin, Captain], &[Duke, Duke], [1, 1], &[], 1),
        &dir,
        "tax",
    );
    let mut a = scripted(&dir, "a", r#"["T", "'\n"]"#, RunOptions::default());
    let mut b = scripted(&dir, "b", r#"["q"]"#, RunOptions::default());
    assert!(drive(&mut g, &mut [&mut a, &mut b], text_is("Tq'\n")).is_none());
    assert_eq!(args(&a)[1], v(&["1", "1", "^*", "'\n", "<\n"]));
    assert_eq!(g.state().hand(0), [Captain]);
    assert_eq!(g.state().coins(0), 1);
}

#[test]
fn assassinate_blocked_block_challenged() {
    let dir = temp("g-asq");
    let mut g = game(
        setup(&[Assassin, Captain], &[Contessa, Duke], [2, 1], &[], 1),
        &dir,
        "asq",
    );
    let mut a = scripted(
        &dir,
        "a",
        r#"["I\n", "A", "q", "'\n"]"#,
        RunOptions::default(),
    );
    let mut b = scripted(&dir, "b", r#"["I\n", "s", "!"]"#, RunOptions::default());
    assert!(drive(&mut g, &mut [&mut a, &mut b], text_is("I\nI\nAsq!'\n")).is_none());
    // The arbiter takes the 3 coins only when the actor gives up its card.
    assert_eq!(args(&b)[1], v(&["3", "2", "!$", "s", "q", "=", "0"]));
    assert_eq!(args(&a)[2], v(&["2", "3", "^*", "q", "\n"]));
    assert_eq!(args(&b)[2], v(&["3", "2", "!$", "!"]));
    assert_eq!(args(&a)[3], v(&["2", "3", "^*", "'\n", "<\n"]));
    assert_eq!(g.state().coins(0), 0);
    assert_eq!(g.history().coins(), [0, 2]);
    // The revealed Contessa was replaced: the arbiter puts the new card last.
    assert_eq!(g.history().hand(1)[0], Duke);
    assert_eq!(g.history().hand(1).len(), 2);
}

#[test]
fn steal_challenged() {
    let dir = temp("g-sq");
    let mut g = game(
        setup(&[Captain, Contessa], &[Duke, Assassin], [1, 1], &[], 1),
        &dir,
        "sq",
    );
    let mut a = scripted(&dir, "a", r#"["S", "*", "\n"]"#, RunOptions::default());
    let mut b = scripted(&dir, "b", r#"["q", "0"]"#, RunOptions::default());
    assert!(drive(&mut g, &mut [&mut a, &mut b], text_is("Sq*0\n")).is_none());
    assert_eq!(
        args(&b),
        [
            v(&["1", "1", "$^", "a", "c", "p", "q"]),
            v(&["1", "1", "$^", "0", "'"])
        ]
    );
    assert_eq!(args(&a)[1], v(&["1", "1", "*!", "*"]));
    // The Captain went back and a card was drawn for it: the arbiter puts it last.
    let new = koth_ppcg::protocol::reveal_char(g.history().hand(0)[1]);
    assert_eq!(args(&a)[2], v(&["1", "1", &format!("!{new}"), "\n"]));
    assert_eq!((g.state().coins(0), g.state().coins(1)), (2, 0));
}

#[test]
fn steal_passed() {
    let dir = temp("g-sp");
    let mut g = game(
        setup(&[Duke, Contessa], &[Duke, Assassin], [1, 1], &[], 1),
        &dir,
        "sp",
    );
    let mut a = scripted(&dir, "a", r#"["S", "\n"]"#, RunOptions::default());
    let mut b = scripted(&dir, "b", r#"["p"]"#, RunOptions::default());
    assert!(drive(&mut g, &mut [&mut a, &mut b], text_is("Sp\n")).is_none());
    assert_eq!(args(&a)[1], v(&["1", "1", "$!", "\n"]));
    assert_eq!((g.state().coins(0), g.state().coins(1)), (2, 0));
}

#[test]
fn assassinate_let_through_is_pass_then_lose() {
    let dir = temp("g-aeq");
    let mut g = game(
        setup(&[Assassin, Captain], &[Contessa, Duke], [2, 1], &[], 1),
        &dir,
        "aeq",
    );
    let mut a = scripted(&dir, "a", r#"["I\n", "A", "\n"]"#, RunOptions::default());
    let mut b = scripted(&dir, "b", r#"["I\n", "="]"#, RunOptions::default());
    assert!(drive(&mut g, &mut [&mut a, &mut b], text_is("I\nI\nA=\n")).is_none());
    assert_eq!(
        args(&b).len(),
        2,
        "one invocation answers both engine decisions"
    );
    assert_eq!(g.state().hand(1), [Duke]);
    assert_eq!(args(&a)[2], v(&["2", "0", "^*", "\n"]));
}

#[test]
fn failed_challenge_of_assassinate_loses_at_once() {
    let dir = temp("g-aq");
    let mut g = game(
        setup(&[Assassin, Captain], &[Contessa, Duke], [2, 1], &[], 1),
        &dir,
        "aq",
    );
    let mut a = scripted(&dir, "a", r#"["I\n", "A", "^"]"#, RunOptions::default());
    let mut b = scripted(&dir, "b", r#"["I\n", "q", "0"]"#, RunOptions::default());
    assert!(drive(&mut g, &mut [&mut a, &mut b], |_| false).is_none());
    assert_eq!(g.history().file_text(), "I\nI\nAq^0");
    let o = g.outcome().unwrap();
    assert_eq!(o.winners, koth_arena::SeatSet::single(0));
    assert_eq!(args(&b)[2], v(&["3", "2", "!$", "=", "0"]));
    let log = std::fs::read_to_string(dir.join("aq.log")).unwrap();
    assert!(log.contains("p1 wins by eliminating"), "{log}");
    assert_eq!(
        std::fs::read_to_string(dir.join("aq.txt")).unwrap(),
        "I\nI\nAq^0"
    );
}

#[test]
fn caught_contessa_bluff_loses_at_once() {
    let dir = temp("g-asqx");
    let mut g = game(
        setup(&[Assassin, Captain], &[Ambassador, Duke], [2, 1], &[], 1),
        &dir,
        "asqx",
    );
    let mut a = scripted(&dir, "a", r#"["I\n", "A", "q"]"#, RunOptions::default());
    let mut b = scripted(&dir, "b", r#"["I\n", "s", "_"]"#, RunOptions::default());
    assert!(drive(&mut g, &mut [&mut a, &mut b], |_| false).is_none());
    assert_eq!(g.history().file_text(), "I\nI\nAsq_");
    assert_eq!(g.outcome().unwrap().winners, koth_arena::SeatSet::single(0));
}

#[test]
fn foreign_aid_block_challenged_and_caught() {
    let dir = temp("g-fdq");
    let mut g = game(
        setup(
            &[Captain, Contessa],
            &[Ambassador, Assassin],
            [1, 1],
            &[],
            1,
        ),
        &dir,
        "fdq",
    );
    let mut a = scripted(&dir, "a", r#"["F", "q", "\n"]"#, RunOptions::default());
    let mut b = scripted(&dir, "b", r#"["d", "_"]"#, RunOptions::default());
    assert!(drive(&mut g, &mut [&mut a, &mut b], text_is("Fdq_\n")).is_none());
    assert_eq!(args(&a)[1], v(&["1", "1", "*!", "q", "\n"]));
    assert_eq!(args(&b)[1], v(&["1", "1", "~^", "_", "'"]));
    assert_eq!(g.state().coins(0), 3);
}
