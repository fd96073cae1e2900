//! Bots written for the [`coup`] crate run in koth unchanged.
//!
//! A `coup` crate bot implements [`coup::bot::BotInterface`]. [`serve`] makes it a
//! program that speaks koth's JSON-lines protocol, so every koth command runs it
//! like any other program bot (sandboxed, timed, checked):
//!
//! ```no_run
//! // src/main.rs of a crate that depends on koth-coup-crate
//! use koth_coup_crate::coup::bots::HonestBot;
//!
//! fn main() {
//!     koth_coup_crate::serve(HonestBot);
//! }
//! ```
//!
//! Then `cargo build --release` and `koth coup run --bot 'honest=cmd:./target/release/my-bot'`.
//!
//! Each call gets the crate's [`Context`], built from what koth tells the seat
//! and nothing else: its name and cards, its coins, the players still in (with
//! their coins and card counts), the cards lost so far, the history of the game
//! in the crate's [`History`] events, and the running score of the games this
//! process played. Names are koth's seat names, made unique as the crate makes
//! them ("Bob", "Bob 2"); targets are named back to seats the same way.
//!
//! The calls are the crate's: `on_turn` on the bot's turn, `on_auto_coup` when
//! the only moves left are coups, `on_challenge_action_round`,
//! `on_counter` (a block: with the card the bot holds among those that block,
//! else the first of them), `on_challenge_counter_round` (`by` is the
//! blocker, as in the crate), `on_swapping_cards` (with the two cards drawn; the
//! bot keeps its hand and the drawn cards minus the two it gives back) and
//! `on_card_loss`. An answer koth cannot take (a target no one has, a card not
//! held, cards to give back that were not there) is sent as an answer that is
//! not a choice of the game: koth then judges it illegal under its rules.

#![forbid(unsafe_code)]
use coup::bot::{BotInterface, Context, OtherBot};
use coup::{Action, Card, History, Score};
use serde_json::{json, Value};
use std::io::{self, BufRead, Write};

pub use coup;

pub mod tracker;

/// Serves `bot` on standard input and output until koth closes the input. A
/// line that cannot be read ends the program with a message on stderr.
pub fn serve<B: BotInterface>(bot: B) {
    let stdin = io::stdin().lock();
    let stdout = io::stdout().lock();
    if let Err(e) = serve_on(&bot, stdin, stdout) {
        eprintln!("koth-coup-crate: {e}");
        std::process::exit(1);
    }
}

/// [`serve`] on any input and output: one answer line for each request line.
pub fn serve_on<B: BotInterface + ?Sized>(
    bot: &B,
    input: impl BufRead,
    mut output: impl Write,
) -> io::Result<()> {
    let mut adapter = Adapter::new(bot);
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let msg: Value = serde_json::from_str(&line)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("{e}: {line}")))?;
        if let Some(answer) = adapter.handle(&msg) {
            writeln!(output, "{answer}")?;
            output.flush()?;
        }
    }
    Ok(())
}

/// The game one process is playing, as the crate's bot sees it.
struct Table {
    seat: usize,
    names: Vec<String>,
    history: Vec<History>,
    discard: Vec<Card>,
    /// The action of the turn under way and who blocked it, to tell a
    /// challenge of the action from a challenge of the block.
    actor: Option<usize>,
    action: Option<Value>,
    blocker: Option<usize>,
}

/// Turns koth's messages into calls of a `coup` crate bot and its answers into
/// koth's choices, one message at a time.
pub struct Adapter<'b, B: BotInterface + ?Sized> {
    bot: &'b B,
    table: Option<Table>,
    score: Score,
}

impl<'b, B: BotInterface + ?Sized> Adapter<'b, B> {
    /// An adapter for `bot`, before `hello`.
    pub fn new(bot: &'b B) -> Self {
        Adapter {
            bot,
            table: None,
            score: Vec::new(),
        }
    }

    /// Takes one message; returns the line to answer with, if it asks one.
    pub fn handle(&mut self, msg: &Value) -> Option<Value> {
        match msg["type"].as_str()? {
            "hello" => Some(json!({"type": "ready", "name": self.bot.get_name()})),
            "start" => {
                self.start(msg);
                None
            }
            "decide" => {
                self.events(&msg["events"]);
                let choice = self.decide(&msg["decision"], &msg["view"], &msg["legal"]);
                let mut answer = json!({ "choice": choice });
                if let Some(id) = msg.get("id") {
                    answer["id"] = id.clone();
                }
                Some(answer)
            }
            "end" => {
                self.events(&msg["events"]);
                self.end(msg);
                None
            }
            _ => None,
        }
    }

    fn start(&mut self, msg: &Value) {
        let players = msg["players"].as_u64().unwrap_or(0) as usize;
        let given: Vec<String> = match msg["names"].as_array() {
            Some(names) => names
                .iter()
                .map(|n| n.as_str().unwrap_or("").to_string())
                .collect(),
            None => (1..=players).map(|s| format!("seat {s}")).collect(),
        };
        let names = unique_names(&given);
        for n in &names {
            if !self.score.iter().any(|(name, _)| name == n) {
                self.score.push((n.clone(), 0.0));
            }
        }
        self.table = Some(Table {
            seat: msg["seat"].as_u64().unwrap_or(0) as usize,
            names,
            history: Vec::new(),
            discard: Vec::new(),
            actor: None,
            action: None,
            blocker: None,
        });
    }

    /// The crate's running score: each game's winners share +1, its losers -1.
    fn end(&mut self, msg: &Value) {
        let Some(t) = self.table.take() else { return };
        let winners: Vec<&str> = msg["winners"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|w| t.names.get(w.as_u64()? as usize).map(String::as_str))
            .collect();
        let losers = t.names.len() - winners.len();
        if winners.is_empty() || losers == 0 {
            return;
        }
        for (name, score) in self.score.iter_mut() {
            if !t.names.contains(name) {
                continue;
            }
            if winners.contains(&name.as_str()) {
                *score += 1.0 / winners.len() as f64;
            } else {
                *score -= 1.0 / losers as f64;
            }
        }
    }

    /// The public events since the last message, as the crate's history.
    fn events(&mut self, events: &Value) {
        let Some(t) = self.table.as_mut() else { return };
        for e in events.as_array().into_iter().flatten() {
            let seat = |k: &str| e[k].as_u64().map(|s| s as usize);
            let name =
                |s: Option<usize>| s.and_then(|s| t.names.get(s).cloned()).unwrap_or_default();
            match e["event"].as_str().unwrap_or("") {
                "turn" => {
                    t.actor = None;
                    t.action = None;
                    t.blocker = None;
                }
                "act" => {
                    let (by, action) = (seat("actor"), e["action"].clone());
                    let target = name(action_target(&action));
                    let by_name = name(by);
                    if let Some(h) = action_history(&action, by_name, target) {
                        t.history.push(h);
                    }
                    t.actor = by;
                    t.action = Some(action);
                }
                "block" => {
                    let blocker = seat("blocker");
                    let (by, target) = (name(blocker), name(t.actor));
                    let h = match t.action.as_ref().and_then(Value::as_object) {
                        Some(a) if a.contains_key("assassinate") => {
                            Some(History::CounterAssassination { by, target })
                        }
                        Some(a) if a.contains_key("steal") => {
                            Some(History::CounterStealing { by, target })
                        }
                        _ if t.action.as_ref().and_then(Value::as_str) == Some("foreign_aid") => {
                            Some(History::CounterForeignAid { by, target })
                        }
                        _ => None,
                    };
                    t.history.extend(h);
                    t.blocker = blocker;
                }
                "challenge" => {
                    let claimant = seat("claimant");
                    let (by, target) = (name(seat("challenger")), name(claimant));
                    let card = card_of(&e["card"]);
                    let h = if claimant.is_some() && claimant == t.blocker {
                        match card {
                            Some(Card::Contessa) => {
                                Some(History::CounterChallengeContessa { by, target })
                            }
                            Some(Card::Duke) => Some(History::CounterChallengeDuke { by, target }),
                            Some(Card::Captain | Card::Ambassador) => {
                                Some(History::CounterChallengeCaptainAmbassedor { by, target })
                            }
                            _ => None,
                        }
                    } else {
                        match card {
                            Some(Card::Assassin) => Some(History::ChallengeAssassin { by, target }),
                            Some(Card::Ambassador) => {
                                Some(History::ChallengeAmbassador { by, target })
                            }
                            Some(Card::Captain) => Some(History::ChallengeCaptain { by, target }),
                            Some(Card::Duke) => Some(History::ChallengeDuke { by, target }),
                            _ => None,
                        }
                    };
                    t.history.extend(h);
                }
                "lose_influence" => t.discard.extend(card_of(&e["card"])),
                _ => {}
            }
        }
    }

    /// The crate's context for the seat, from its view.
    fn context(&self, view: &Value) -> Context {
        let t = self.table.as_ref().expect("a decision comes within a game");
        let num = |k: &str, s: usize| view[k][s].as_u64().unwrap_or(0);
        let playing_bots = (0..t.names.len())
            .filter(|&s| view["alive"][s].as_bool().unwrap_or(false) && num("influence", s) > 0)
            .map(|s| OtherBot {
                name: t.names[s].clone(),
                coins: num("coins", s) as u8,
                cards: num("influence", s) as u8,
            })
            .collect();
        // Cards lost in the order they were lost; any revealed otherwise (a
        // forfeit) after them.
        let mut discard = t.discard.clone();
        let mut seen = discard.clone();
        for s in 0..t.names.len() {
            for c in view["revealed"][s].as_array().into_iter().flatten() {
                if let Some(c) = card_of(c) {
                    match seen.iter().position(|&x| x == c) {
                        Some(i) => {
                            seen.swap_remove(i);
                        }
                        None => discard.push(c),
                    }
                }
            }
        }
        Context {
            name: t.names.get(t.seat).cloned().unwrap_or_default(),
            cards: cards_of(&view["cards"]),
            coins: num("coins", t.seat) as u8,
            playing_bots,
            discard_pile: discard,
            history: t.history.clone(),
            score: self.score.clone(),
        }
    }

    fn decide(&mut self, decision: &Value, view: &Value, legal: &Value) -> Value {
        let ctx = self.context(view);
        let t = self.table.as_ref().expect("a decision comes within a game");
        let name = |k: &str| {
            decision[k]
                .as_u64()
                .and_then(|s| t.names.get(s as usize).cloned())
                .unwrap_or_default()
        };
        let action = || crate_action(&decision["action"], &t.names);
        let yes_no = |b: bool| json!(if b { "challenge" } else { "pass" });
        match decision["kind"].as_str().unwrap_or("") {
            "action" => {
                let forced = legal.as_array().is_some_and(|l| {
                    !l.is_empty() && l.iter().all(|c| c["act"].get("coup").is_some())
                });
                let act = if forced {
                    Action::Coup(self.bot.on_auto_coup(&ctx))
                } else {
                    self.bot.on_turn(&ctx)
                };
                json!({ "act": koth_action(&act, &t.names) })
            }
            "challenge_action" => yes_no(self.bot.on_challenge_action_round(
                &action(),
                name("actor"),
                &ctx,
            )),
            "block" => {
                if !self.bot.on_counter(&action(), name("actor"), &ctx) {
                    return json!("pass");
                }
                let blockers = cards_of(&decision["blockers"]);
                let card = blockers
                    .iter()
                    .find(|c| ctx.cards.contains(c))
                    .or(blockers.first())
                    .copied()
                    .unwrap_or(Card::Duke);
                json!({ "block": card_name(card) })
            }
            "challenge_block" => yes_no(self.bot.on_challenge_counter_round(
                &action(),
                name("blocker"),
                &ctx,
            )),
            "exchange" => {
                let drawn = cards_of(&view["drawn"]);
                let [a, b] = drawn[..] else {
                    return json!({ "keep": [] });
                };
                let back = self.bot.on_swapping_cards([a, b], &ctx);
                let mut pool = ctx.cards.clone();
                pool.extend([a, b]);
                for c in back {
                    match pool.iter().position(|&x| x == c) {
                        Some(i) => {
                            pool.remove(i);
                        }
                        // Not there to give back: no choice of the game.
                        None => return json!({ "keep": [] }),
                    }
                }
                json!({ "keep": pool.into_iter().map(card_name).collect::<Vec<_>>() })
            }
            "lose_influence" => json!({ "lose": card_name(self.bot.on_card_loss(&ctx)) }),
            _ => legal.get(0).cloned().unwrap_or(json!("pass")),
        }
    }
}

/// Names made unique as the crate makes them: the second "Bob" is "Bob 2".
pub fn unique_names(names: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(names.len());
    for base in names {
        let mut name = base.clone();
        let mut suffix = 2;
        while out.contains(&name) {
            name = format!("{base} {suffix}");
            suffix += 1;
        }
        out.push(name);
    }
    out
}

fn card_of(v: &Value) -> Option<Card> {
    Some(match v.as_str()? {
        "ambassador" => Card::Ambassador,
        "assassin" => Card::Assassin,
        "captain" => Card::Captain,
        "contessa" => Card::Contessa,
        "duke" => Card::Duke,
        _ => return None,
    })
}

fn cards_of(v: &Value) -> Vec<Card> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(card_of)
        .collect()
}

fn card_name(c: Card) -> &'static str {
    match c {
        Card::Ambassador => "ambassador",
        Card::Assassin => "assassin",
        Card::Captain => "captain",
        Card::Contessa => "contessa",
        Card::Duke => "duke",
    }
}

/// The target seat of a koth action (`{"steal": 2}`).
fn action_target(action: &Value) -> Option<usize> {
    let (_, t) = action.as_object()?.iter().next()?;
    t.as_u64().map(|t| t as usize)
}

/// A koth action as the crate's.
fn crate_action(action: &Value, names: &[String]) -> Action {
    let target = || {
        action_target(action)
            .and_then(|t| names.get(t).cloned())
            .unwrap_or_default()
    };
    match action.as_str() {
        Some("income") => Action::Income,
        Some("foreign_aid") => Action::ForeignAid,
        Some("tax") => Action::Tax,
        Some("exchange") => Action::Swapping,
        _ => match action
            .as_object()
            .and_then(|o| o.keys().next())
            .map(String::as_str)
        {
            Some("coup") => Action::Coup(target()),
            Some("assassinate") => Action::Assassination(target()),
            Some("steal") => Action::Stealing(target()),
            _ => Action::Income,
        },
    }
}

/// The crate's history entry of a koth action.
fn action_history(action: &Value, by: String, target: String) -> Option<History> {
    Some(match crate_action(action, &[]) {
        Action::Income => History::ActionIncome { by },
        Action::ForeignAid => History::ActionForeignAid { by },
        Action::Tax => History::ActionTax { by },
        Action::Swapping => History::ActionSwapping { by },
        Action::Coup(_) => History::ActionCoup { by, target },
        Action::Assassination(_) => History::ActionAssassination { by, target },
        Action::Stealing(_) => History::ActionStealing { by, target },
    })
}

/// The crate's action as koth's; a target no one at the table has becomes a
/// seat number no one sits at (koth judges it illegal).
fn koth_action(action: &Action, names: &[String]) -> Value {
    let seat = |n: &String| names.iter().position(|x| x == n).unwrap_or(names.len());
    match action {
        Action::Income => json!("income"),
        Action::ForeignAid => json!("foreign_aid"),
        Action::Tax => json!("tax"),
        Action::Swapping => json!("exchange"),
        Action::Coup(n) => json!({ "coup": seat(n) }),
        Action::Assassination(n) => json!({ "assassinate": seat(n) }),
        Action::Stealing(n) => json!({ "steal": seat(n) }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_made_unique_as_the_crate_makes_them() {
        let n = |v: &[&str]| unique_names(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(
            n(&["Bob", "Bob", "Ann", "Bob"]),
            ["Bob", "Bob 2", "Ann", "Bob 3"]
        );
        // A name that is already "Bob 2" is kept; the next Bob skips it.
        assert_eq!(n(&["Bob", "Bob 2", "Bob"]), ["Bob", "Bob 2", "Bob 3"]);
    }

    #[test]
    fn actions_go_both_ways() {
        let names: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
        for (koth, crate_) in [
            (json!("income"), Action::Income),
            (json!("foreign_aid"), Action::ForeignAid),
            (json!("tax"), Action::Tax),
            (json!("exchange"), Action::Swapping),
            (json!({"coup": 2}), Action::Coup("c".into())),
            (json!({"assassinate": 0}), Action::Assassination("a".into())),
            (json!({"steal": 1}), Action::Stealing("b".into())),
        ] {
            assert_eq!(crate_action(&koth, &names), crate_);
            assert_eq!(koth_action(&crate_, &names), koth);
        }
        // A name no one has is a seat no one sits at.
        assert_eq!(
            koth_action(&Action::Stealing("zed".into()), &names),
            json!({"steal": 3})
        );
    }
}
