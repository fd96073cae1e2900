//! What each game knows of bots: its built-ins, rule presets and protocols.

use crate::kind::Protocol;
use koth_coup::{bots, Rules};

/// The game a tournament file or `--bot` argument is for: it decides which built-ins,
/// rule sets and protocols are known.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GameKind {
    /// Coup, 2 to 6 players.
    #[default]
    Coup,
    /// Ultimate Samurai Showdown, a duel.
    Samurai,
}

impl GameKind {
    /// The game's name (`game = "..."` in a tournament file, and the CLI's word).
    pub fn name(self) -> &'static str {
        match self {
            GameKind::Coup => "coup",
            GameKind::Samurai => "samurai",
        }
    }

    /// The game named `s` in a tournament file.
    pub fn of_name(s: &str) -> Option<GameKind> {
        match s {
            "coup" => Some(GameKind::Coup),
            "samurai" => Some(GameKind::Samurai),
            _ => None,
        }
    }

    /// Whether `name` is one of the game's built-in bots.
    pub fn has_builtin(self, name: &str) -> bool {
        match self {
            GameKind::Coup => bots::builtin(name).is_some(),
            GameKind::Samurai => koth_samurai::BUILTIN_NAMES.contains(&name),
        }
    }

    /// The built-in bots, comma-separated (for messages).
    pub fn builtins(self) -> String {
        match self {
            GameKind::Coup => known_builtins(),
            GameKind::Samurai => koth_samurai::BUILTIN_NAMES.join(", "),
        }
    }

    /// The built-in bot `name` was likely meant as (a typo), if one is close.
    pub fn near_builtin(self, name: &str) -> Option<String> {
        self.builtins()
            .split(", ")
            .filter(|b| strsim::levenshtein(b, name) <= 2 || b.starts_with(name))
            .min_by_key(|b| strsim::levenshtein(b, name))
            .map(str::to_string)
    }

    /// The fix for `name`, which is no built-in bot: the one it likely meant, then
    /// all of them.
    pub fn builtin_fix(self, name: &str) -> String {
        if self == GameKind::Coup && name.starts_with("champion:") {
            return format!(
                "a champion's budget is champion:2ms (milliseconds, {} playouts each) or champion:500 (playouts, 1 to {})",
                bots::PLAYOUTS_PER_MS,
                bots::MAX_PLAYOUTS
            );
        }
        let near = self
            .near_builtin(name)
            .map(|b| format!("did you mean {b}? "))
            .unwrap_or_default();
        format!("{near}use one of {}", self.builtins())
    }

    /// Its rule presets.
    pub fn presets(self) -> &'static [&'static str] {
        match self {
            GameKind::Coup => &Rules::PRESETS,
            GameKind::Samurai => &["standard"],
        }
    }

    /// The protocols its programs may speak.
    pub fn protocols(self) -> &'static [Protocol] {
        match self {
            GameKind::Coup => &[Protocol::Json, Protocol::Ppcg, Protocol::CoupCli],
            GameKind::Samurai => &[Protocol::Json, Protocol::SamuraiCli],
        }
    }

    /// The protocol named `s`, if the game knows it.
    pub fn protocol(self, s: &str) -> Result<Protocol, String> {
        self.protocols()
            .iter()
            .copied()
            .find(|p| p.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = self.protocols().iter().map(|p| p.name()).collect();
                format!(
                    "unknown protocol {s:?} for {}\n  fix: use one of {}",
                    self.name(),
                    names.join(", ")
                )
            })
    }
}

pub(crate) fn known_builtins() -> String {
    bots::names().collect::<Vec<_>>().join(", ")
}
