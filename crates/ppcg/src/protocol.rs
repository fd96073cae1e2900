//! The history-file protocol of seed 000 as pure code: the characters, the
//! arbiter's `get_legal_actions` byte for byte, and the Exchange answer.

use koth_coup::Card;

/// The character that reveals `card` (`~^*!$`).
pub fn reveal_char(card: Card) -> char {
    match card {
        Card::Ambassador => '~',
        Card::Assassin => '^',
        Card::Captain => '*',
        Card::Contessa => '!',
        Card::Duke => '$',
    }
}

/// The character that gives `card` up (`_'<=0`).
pub fn give_up_char(card: Card) -> char {
    match card {
        Card::Ambassador => '_',
        Card::Assassin => '\'',
        Card::Captain => '<',
        Card::Contessa => '=',
        Card::Duke => '0',
    }
}

/// The card of a reveal character.
pub fn card_of_reveal(c: char) -> Option<Card> {
    Card::ALL.into_iter().find(|&k| reveal_char(k) == c)
}

/// The card of a give-up character.
pub fn card_of_give_up(c: char) -> Option<Card> {
    Card::ALL.into_iter().find(|&k| give_up_char(k) == c)
}

/// The lowercase letter of a block claiming `card` (`d`, `a`, `c`, `s`).
pub fn block_char(card: Card) -> char {
    match card {
        Card::Duke => 'd',
        Card::Ambassador => 'a',
        Card::Captain => 'c',
        Card::Contessa => 's',
        Card::Assassin => '?',
    }
}

/// Give-up characters.
pub const GIVE_UP: &str = "_'<=0";
/// Reveal characters.
pub const REVEAL: &str = "~^*!$";

/// The arbiter's `actions_dict`: the card (as a give-up character) a claim needs.
fn needed(c: char) -> Option<char> {
    Some(match c {
        'E' => '_',
        'T' => '0',
        'A' => '\'',
        'S' => '<',
        'd' => '0',
        'a' => '_',
        'c' => '<',
        's' => '=',
        _ => return None,
    })
}

/// One player as the arbiter sees them: coins and cards in the arbiter's order.
#[derive(Clone, Copy, Debug)]
pub struct Side<'a> {
    /// Coins.
    pub coins: i32,
    /// Cards, in the order the arbiter keeps them.
    pub cards: &'a [Card],
}

/// The arbiter's last line of a history file: what `readlines()[-1]` gives, or `None`
/// for an empty file.
pub fn last_line(text: &str) -> Option<&str> {
    if text.is_empty() {
        return None;
    }
    let body = text.strip_suffix('\n').unwrap_or(text);
    let start = body.rfind('\n').map_or(0, |i| i + 1);
    Some(&text[start..])
}

/// The first-turn list: `['I\n'] + list("FEST")`.
pub fn first_turn() -> Vec<String> {
    ["I\n", "F", "E", "S", "T"]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

/// The legal moves the arbiter passes for a file holding `text`, exactly as its
/// `play_game`/`get_legal_actions` build them (same strings, same order). `None`
/// where the arbiter would crash or report "file ended in invalid character".
///
/// ```
/// use koth_ppcg::protocol::{legal_moves, Side};
/// use koth_coup::Card;
/// let me = Side { coins: 1, cards: &[Card::Duke, Card::Captain] };
/// let opp = Side { coins: 1, cards: &[] };
/// assert_eq!(legal_moves("", &me, &opp).unwrap(), ["I\n", "F", "E", "S", "T"]);
/// assert_eq!(legal_moves("Tq", &me, &opp).unwrap(), ["$"]);
/// ```
pub fn legal_moves(text: &str, me: &Side, opp: &Side) -> Option<Vec<String>> {
    let Some(line) = last_line(text) else {
        return Some(first_turn());
    };
    let h: Vec<char> = line.chars().collect();
    let c = *h.last()?;
    let from_end = |k: usize| h.len().checked_sub(k).map(|i| h[i]);
    let cards = || {
        me.cards
            .iter()
            .map(|&k| give_up_char(k).to_string())
            .collect::<Vec<_>>()
    };
    let cards_nl = || {
        me.cards
            .iter()
            .map(|&k| format!("{}\n", give_up_char(k)))
            .collect::<Vec<_>>()
    };
    let list = |s: &str| s.chars().map(|c| c.to_string()).collect::<Vec<_>>();
    Some(match c {
        '\n' => {
            if me.coins >= 10 {
                return Some(vec!["C".into()]);
            }
            let mut ret = vec!["I\n".to_string()];
            ret.extend(list("FET"));
            if me.coins >= 3 {
                ret.push("A".into());
            }
            if me.coins >= 7 {
                ret.push("C".into());
            }
            if opp.coins > 0 {
                ret.push("S".into());
            }
            ret
        }
        'F' => list("dp"),
        'C' => cards(),
        '~' | '^' | '*' | '!' | '$' => {
            if "acds".contains(from_end(3)?) {
                cards_nl()
            } else {
                cards()
            }
        }
        'E' | 'T' => list("pq"),
        'A' => {
            let mut v = list("sq");
            v.extend(cards());
            v
        }
        'S' => list("acpq"),
        'a' | 'c' | 'd' | 's' => vec!["q".into(), "\n".into()],
        'p' | '_' | '\'' | '<' | '=' | '0' => vec!["\n".into()],
        'q' => {
            let challenged = from_end(2)?;
            let need = needed(challenged)?;
            if me.cards.iter().any(|&k| give_up_char(k) == need) {
                let card = card_of_give_up(need)?;
                return Some(vec![reveal_char(card).to_string()]);
            }
            if "acds".contains(challenged) {
                cards()
            } else {
                cards_nl()
            }
        }
        _ => return None,
    })
}

/// The CARDS argument: the drawn cards (after a successful Exchange) then the hand.
pub fn cards_arg(drawn: Option<[Card; 2]>, hand: &[Card]) -> String {
    drawn
        .iter()
        .flatten()
        .chain(hand)
        .map(|&k| reveal_char(k))
        .collect()
}

/// Whether the arbiter hands the drawn cards over on this invocation: the last line
/// is an Exchange that went through and awaits the actor's newline.
pub fn exchange_due(text: &str) -> bool {
    let line = match last_line(text) {
        Some(l) => l,
        None => return false,
    };
    let h: Vec<char> = line.chars().collect();
    let last = *h.last().unwrap_or(&'\n');
    last != '\n' && h[0] == 'E' && h.len().is_multiple_of(2) && "p_'<=0".contains(last)
}

/// Whether `determine_turn_effects` credits an Exchange on this finished line: the
/// line starts with `E` and its second-to-last character is `p` or a give-up.
pub fn exchange_credited(line: &str) -> bool {
    let h: Vec<char> = line.chars().collect();
    h.first() == Some(&'E') && h.len() >= 2 && "p_'<=0".contains(h[h.len() - 2])
}

/// Checks an Exchange answer as the arbiter does (`output.strip()` must be a
/// permutation of `keep` characters of CARDS) and returns the kept cards in the
/// order printed.
pub fn parse_exchange(stdout: &str, cards: &str, keep: usize) -> Result<Vec<Card>, String> {
    let out =
        stdout.trim_matches(|c: char| matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c'));
    let mut pool: Vec<char> = cards.chars().collect();
    let chars: Vec<char> = out.chars().collect();
    if chars.len() != keep {
        return Err(format!(
            "printed {out:?} after an Exchange: must keep {keep} of {cards:?}"
        ));
    }
    let mut kept = Vec::with_capacity(keep);
    for c in chars {
        match pool.iter().position(|&p| p == c) {
            Some(i) => {
                pool.remove(i);
                kept.push(card_of_reveal(c).ok_or_else(|| format!("{c:?} is not a card"))?);
            }
            None => {
                return Err(format!(
                    "printed {out:?} after an Exchange: not cards from {cards:?}"
                ))
            }
        }
    }
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;
    use Card::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn turn_start_lists() {
        let me = Side {
            coins: 7,
            cards: &[Duke],
        };
        let poor = Side {
            coins: 0,
            cards: &[],
        };
        assert_eq!(
            legal_moves("I\n", &me, &poor).unwrap(),
            s(&["I\n", "F", "E", "T", "A", "C"])
        );
        let rich = Side {
            coins: 1,
            cards: &[],
        };
        assert_eq!(
            legal_moves("I\n", &me, &rich).unwrap(),
            s(&["I\n", "F", "E", "T", "A", "C", "S"])
        );
        let ten = Side {
            coins: 10,
            cards: &[Duke],
        };
        assert_eq!(legal_moves("I\nI\n", &ten, &rich).unwrap(), s(&["C"]));
        assert_eq!(
            legal_moves("", &ten, &poor).unwrap(),
            s(&["I\n", "F", "E", "S", "T"])
        );
    }

    #[test]
    fn answers() {
        let me = Side {
            coins: 1,
            cards: &[Captain, Duke],
        };
        let o = Side {
            coins: 1,
            cards: &[],
        };
        assert_eq!(legal_moves("F", &me, &o).unwrap(), s(&["d", "p"]));
        assert_eq!(legal_moves("C", &me, &o).unwrap(), s(&["<", "0"]));
        assert_eq!(legal_moves("A", &me, &o).unwrap(), s(&["s", "q", "<", "0"]));
        assert_eq!(legal_moves("S", &me, &o).unwrap(), s(&["a", "c", "p", "q"]));
        assert_eq!(legal_moves("Sc", &me, &o).unwrap(), s(&["q", "\n"]));
        assert_eq!(legal_moves("Fp", &me, &o).unwrap(), s(&["\n"]));
        assert_eq!(legal_moves("Tq", &me, &o).unwrap(), s(&["$"]));
        assert_eq!(legal_moves("Eq", &me, &o).unwrap(), s(&["<\n", "0\n"]));
        assert_eq!(legal_moves("Scq", &me, &o).unwrap(), s(&["*"]));
        assert_eq!(legal_moves("Saq", &me, &o).unwrap(), s(&["<", "0"]));
        assert_eq!(legal_moves("Tq$", &me, &o).unwrap(), s(&["<", "0"]));
        assert_eq!(legal_moves("Asq!", &me, &o).unwrap(), s(&["<\n", "0\n"]));
        assert_eq!(legal_moves("I\nX", &me, &o), None);
    }

    #[test]
    fn exchange_parsing() {
        assert_eq!(
            parse_exchange(" $* \n", "~$*!", 2).unwrap(),
            vec![Duke, Captain]
        );
        assert!(parse_exchange("$$", "~$*!", 2).is_err());
        assert!(parse_exchange("$", "~$*!", 2).is_err());
        assert_eq!(parse_exchange("~", "~$*", 1).unwrap(), vec![Ambassador]);
        assert!(exchange_due("Ep"));
        assert!(exchange_due("I\nEq~<"));
        assert!(!exchange_due("Eq"));
        assert!(!exchange_due("Tp"));
    }
}
