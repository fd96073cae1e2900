//! Rule options and the two presets.

use serde::{Deserialize, Serialize};

/// The named rule sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Preset {
    /// [`Rules::standard`].
    Standard,
    /// [`Rules::ppcg`].
    Ppcg,
    /// [`Rules::coupcli`].
    Coupcli,
    /// [`Rules::coupcrate`].
    Coupcrate,
}

/// What an illegal but well-formed choice costs (specs/coup.md, "Illegal choices").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IllegalPolicy {
    /// The bot forfeits the game.
    #[default]
    Forfeit,
    /// The bot loses an influence of its choice and its turn or answer counts as a
    /// pass (seeds 003 and 004); the game goes on.
    Penalty,
}

/// The options that fix a variant of Coup.
///
/// ```
/// use koth_coup::Rules;
/// let r = Rules::preset("ppcg").unwrap();
/// assert_eq!(r.starting_coins, 1);
/// assert!(!r.challenge_and_block);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rules {
    /// The preset these options started from, for records.
    pub preset: Preset,
    /// Coins each player starts with.
    pub starting_coins: u8,
    /// The official two-player variant gives the first player this many instead.
    pub first_player_coins: Option<u8>,
    /// Whether a player may challenge an action and then also block it (standard);
    /// if not, a player answers an action once: challenge, block or pass (ppcg).
    pub challenge_and_block: bool,
    /// Whether a revealed Ambassador that wins a challenged Exchange stays in hand
    /// (ppcg) instead of going back to the deck for a replacement.
    pub exchange_keeps_revealed_ambassador: bool,
    /// Coins at the start of a turn that force a Coup.
    pub forced_coup_coins: u8,
    /// Turns after which the game ends with every survivor a winner.
    pub turn_cap: u32,
    /// Fewest seats.
    pub min_seats: u8,
    /// Most seats.
    pub max_seats: u8,
    /// What an illegal but well-formed choice costs.
    #[serde(default)]
    pub illegal: IllegalPolicy,
    /// Whether a player with no coins may be the target of a Steal (which then takes
    /// nothing), as in coup-cli.
    #[serde(default)]
    pub steal_from_empty: bool,
    /// Whether an Assassinate stopped by a successful challenge gives its 3 coins
    /// back (the published game); coup-cli keeps them.
    #[serde(default = "yes")]
    pub refund_failed_assassination: bool,
    /// Whether challengers and Foreign Aid blockers are asked in table order from a
    /// seat drawn with the deal (coup-cli asks its players in one fixed order, whoever
    /// acts) instead of from the claimant's left.
    #[serde(default)]
    pub ask_in_table_order: bool,
    /// Whether a truthful claimant's replacement is drawn before the revealed card
    /// goes back (draw, return, shuffle), as seed 000's arbiter does, instead of
    /// after (return, shuffle, draw). It changes how often the same card comes back.
    #[serde(default)]
    pub replace_before_return: bool,
    /// Whether an Assassinate's 3 coins are paid only when it takes place (the
    /// `coup` crate), instead of on declaring it: one that is blocked or caught
    /// costs nothing.
    #[serde(default)]
    pub assassination_paid_when_done: bool,
    /// Whether a blocker who shows the card of a challenged block keeps it (the
    /// `coup` crate), instead of returning it for a replacement.
    #[serde(default)]
    pub blocker_keeps_shown_card: bool,
    /// Whether a Steal's block stands against a challenge when the blocker holds
    /// either blocking card, Captain or Ambassador, whichever it named (the `coup`
    /// crate's counters name no card).
    #[serde(default)]
    pub steal_block_either_card: bool,
}

fn yes() -> bool {
    true
}

impl Rules {
    /// The published game, as seeds 003 and 004 play it: 2–6 players, 2 coins each.
    pub const fn standard() -> Rules {
        Rules {
            preset: Preset::Standard,
            starting_coins: 2,
            first_player_coins: None,
            challenge_and_block: true,
            exchange_keeps_revealed_ambassador: false,
            forced_coup_coins: 10,
            turn_cap: 1000,
            min_seats: 2,
            max_seats: 6,
            illegal: IllegalPolicy::Forfeit,
            steal_from_empty: false,
            refund_failed_assassination: true,
            ask_in_table_order: false,
            replace_before_return: false,
            assassination_paid_when_done: false,
            blocker_keeps_shown_card: false,
            steal_block_either_card: false,
        }
    }

    /// The two-player challenge of seed 000: 1 coin each, one answer per action, a
    /// revealed Ambassador kept in a challenged Exchange, a revealed card's
    /// replacement drawn before the card goes back.
    pub const fn ppcg() -> Rules {
        Rules {
            preset: Preset::Ppcg,
            starting_coins: 1,
            first_player_coins: None,
            challenge_and_block: false,
            exchange_keeps_revealed_ambassador: true,
            forced_coup_coins: 10,
            turn_cap: 1000,
            min_seats: 2,
            max_seats: 2,
            illegal: IllegalPolicy::Forfeit,
            steal_from_empty: false,
            refund_failed_assassination: true,
            ask_in_table_order: false,
            replace_before_return: true,
            assassination_paid_when_done: false,
            blocker_keeps_shown_card: false,
            steal_block_either_card: false,
        }
    }

    /// coup-cli's engine (seed 004), so its contests can be re-run: players start
    /// with 0 coins, a Coup is forced only above 10 coins, an illegal choice costs an
    /// influence instead of the game, a player with no coins may be stolen from, a
    /// failed Assassinate keeps its coins, and challengers are asked in one table
    /// order. Its rule choices only, not its crashes or information leaks;
    /// [`Rules::standard`] stays the correct game.
    ///
    /// ```
    /// use koth_coup::{IllegalPolicy, Rules};
    /// let r = Rules::preset("coupcli").unwrap();
    /// assert_eq!((r.starting_coins, r.forced_coup_coins), (0, 11));
    /// assert_eq!(r.illegal, IllegalPolicy::Penalty);
    /// ```
    pub const fn coupcli() -> Rules {
        Rules {
            preset: Preset::Coupcli,
            starting_coins: 0,
            forced_coup_coins: 11,
            illegal: IllegalPolicy::Penalty,
            steal_from_empty: true,
            refund_failed_assassination: false,
            ask_in_table_order: true,
            ..Rules::standard()
        }
    }

    /// The `coup` crate's engine (seed 003), so its bots meet the game they were
    /// written for: an illegal but well-formed choice (an action it cannot afford,
    /// a target that is not there, a card it does not hold) costs an influence of
    /// the bot's choice instead of the game, a player with no coins may be stolen
    /// from, an Assassinate is paid only when it takes place, a blocker who shows
    /// its card keeps it, and a Steal's block stands on either Captain or
    /// Ambassador. Its rule choices only, not its defects (see docs/coup-crate.md).
    ///
    /// ```
    /// use koth_coup::{IllegalPolicy, Rules};
    /// let r = Rules::preset("coupcrate").unwrap();
    /// assert_eq!((r.starting_coins, r.forced_coup_coins), (2, 10));
    /// assert!(r.assassination_paid_when_done && r.blocker_keeps_shown_card);
    /// assert_eq!(r.illegal, IllegalPolicy::Penalty);
    /// ```
    pub const fn coupcrate() -> Rules {
        Rules {
            preset: Preset::Coupcrate,
            illegal: IllegalPolicy::Penalty,
            steal_from_empty: true,
            assassination_paid_when_done: true,
            blocker_keeps_shown_card: true,
            steal_block_either_card: true,
            ..Rules::standard()
        }
    }

    /// A preset by name: `standard`, `ppcg`, `coupcli` or `coupcrate`.
    pub fn preset(name: &str) -> Option<Rules> {
        match name {
            "standard" => Some(Rules::standard()),
            "ppcg" => Some(Rules::ppcg()),
            "coupcli" => Some(Rules::coupcli()),
            "coupcrate" => Some(Rules::coupcrate()),
            _ => None,
        }
    }

    /// The preset names.
    pub const PRESETS: [&'static str; 4] = ["standard", "ppcg", "coupcli", "coupcrate"];
}

impl Default for Rules {
    fn default() -> Self {
        Rules::standard()
    }
}
