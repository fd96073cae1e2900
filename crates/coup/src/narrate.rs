//! Plain-language narration of the public log, for play mode and replays.

use crate::action::Action;
use crate::event::Event;
use crate::state::State;

/// What kind of line a narration is, so a terminal can colour it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    /// A turn begins.
    Turn,
    /// An action declared.
    Claim,
    /// A challenge.
    Challenge,
    /// A block.
    Block,
    /// A truthful card shown.
    Reveal,
    /// A bluff caught, an influence lost.
    Loss,
    /// Coins gained.
    Gain,
    /// A player out of the game.
    Out,
    /// Anything else (passes).
    Quiet,
}

fn action_text(a: Action, names: &[String]) -> String {
    match a {
        Action::Income => "takes Income".into(),
        Action::ForeignAid => "takes Foreign Aid".into(),
        Action::Coup(t) => format!("launches a Coup against {} (pays 7)", names[t]),
        Action::Tax => "claims a Duke: Tax".into(),
        Action::Assassinate(t) => format!("claims an Assassin: Assassinate {} (pays 3)", names[t]),
        Action::Steal(t) => format!("claims a Captain: Steal from {}", names[t]),
        Action::Exchange => "claims an Ambassador: Exchange".into(),
    }
}

/// [`describe`] under `rules`: an Assassinate paid only when it takes place
/// ([`crate::Rules::assassination_paid_when_done`]) says so.
pub fn describe_under(event: &Event, names: &[String], rules: &crate::Rules) -> (Tone, String) {
    let (tone, mut text) = describe(event, names);
    if let Event::Act {
        action: Action::Assassinate(_),
        ..
    } = event
    {
        if rules.assassination_paid_when_done {
            text = text.replace("(pays 3)", "(3 coins if it takes place)");
        }
    }
    (tone, text)
}

/// One event as a sentence, with its tone; `names` are the seats' names.
pub fn describe(event: &Event, names: &[String]) -> (Tone, String) {
    match *event {
        Event::Turn { actor, number } => {
            (Tone::Turn, format!("Turn {}: {}", number + 1, names[actor]))
        }
        Event::Act { actor, action } => (
            Tone::Claim,
            format!("{} {}", names[actor], action_text(action, names)),
        ),
        Event::NoChallenge { player } => (Tone::Quiet, format!("{} lets it stand", names[player])),
        Event::NoBlock { player } => (Tone::Quiet, format!("{} does not block", names[player])),
        Event::Challenge {
            challenger,
            claimant,
            card,
        } => (
            Tone::Challenge,
            format!(
                "{} challenges {}'s {}",
                names[challenger], names[claimant], card
            ),
        ),
        Event::Reveal {
            player,
            card,
            replaced,
        } => (
            Tone::Reveal,
            if replaced {
                format!(
                    "{} shows {}: the challenge fails; the card is shuffled back and replaced",
                    names[player],
                    article(card)
                )
            } else {
                format!(
                    "{} shows {}: the challenge fails; the card is kept",
                    names[player],
                    article(card)
                )
            },
        ),
        Event::CaughtBluffing { player, card } => (
            Tone::Loss,
            format!("{} has no {}: caught bluffing", names[player], card),
        ),
        Event::Block { blocker, card } => (
            Tone::Block,
            format!("{} blocks, claiming {}", names[blocker], article(card)),
        ),
        Event::LoseInfluence { player, card } => (
            Tone::Loss,
            format!(
                "{} loses an influence: turns up {}",
                names[player],
                article(card)
            ),
        ),
        Event::Penalty { player, action } => (
            Tone::Loss,
            match action {
                Some(a) => format!(
                    "{} tried an illegal {}: penalised, loses an influence; the turn counts as a pass",
                    names[player],
                    match a.target() {
                        Some(t) => format!("{} on {}", a.kind(), names[t]),
                        None => a.kind().to_string(),
                    }
                ),
                None => format!(
                    "{} answered an illegal choice: penalised, loses an influence; the answer counts as a pass",
                    names[player]
                ),
            },
        ),
        Event::Eliminated { player } => {
            (Tone::Out, format!("{} is out of the game", names[player]))
        }
        Event::Forfeit { player } => (
            Tone::Out,
            format!("{} forfeits and reveals every card", names[player]),
        ),
        Event::Gain { player, coins } => (
            Tone::Gain,
            format!("{} gains {} coin{}", names[player], coins, plural(coins)),
        ),
        Event::Steal {
            thief,
            victim,
            coins,
        } => (
            Tone::Gain,
            format!(
                "{} steals {} coin{} from {}",
                names[thief],
                coins,
                plural(coins),
                names[victim]
            ),
        ),
        Event::Refund { player, coins } => (
            Tone::Gain,
            format!("{} gets back {} coins", names[player], coins),
        ),
        Event::Blocked { blocker } => (
            Tone::Block,
            format!("{}'s block stands: the action is stopped", names[blocker]),
        ),
        Event::Exchanged { player } => (
            Tone::Quiet,
            format!("{} exchanges cards with the deck", names[player]),
        ),
    }
}

fn plural(n: u8) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Everyone's coins and influence, e.g. `alice 3c ●● | bob 5c ●○ [Duke]`.
pub fn status(state: &State, names: &[String]) -> String {
    let mut parts = Vec::with_capacity(state.players());
    for (s, name) in names.iter().enumerate().take(state.players()) {
        let inf = state.influence(s);
        let mut p = format!(
            "{} {}c {}{}",
            name,
            state.coins(s),
            "●".repeat(inf),
            "○".repeat(2 - inf)
        );
        if !state.revealed(s).is_empty() {
            let up: Vec<String> = state.revealed(s).iter().map(|c| c.to_string()).collect();
            p.push_str(&format!(" [{}]", up.join(", ")));
        }
        parts.push(p);
    }
    parts.join(" | ")
}

/// "a Duke", "an Assassin".
pub fn article(card: crate::card::Card) -> String {
    match card {
        crate::card::Card::Ambassador | crate::card::Card::Assassin => format!("an {card}"),
        _ => format!("a {card}"),
    }
}
