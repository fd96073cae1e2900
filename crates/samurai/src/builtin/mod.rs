//! The built-in samurai, and a registry of them by name.

mod bower;
mod copycat;
mod guardian;
mod predictor;
mod random;
mod ronin;
mod sensei;
mod waiter;

pub use bower::Bower;
pub use copycat::Copycat;
pub use guardian::Guardian;
pub use predictor::Predictor;
pub use random::RandomSamurai;
pub use ronin::Ronin;
pub use sensei::{sensei_solution, Sensei, SENSEI_HONOUR_CAP};
pub use waiter::Waiter;

use crate::bot::{entrant, Samurai};
use crate::state::State;
use koth_arena::dedup_names;
use koth_arena::Entrant;

/// The names [`builtin`] knows, weakest idea first.
pub const BUILTIN_NAMES: [&str; 8] = [
    "waiter",
    "bower",
    "copycat",
    "random",
    "guardian",
    "ronin",
    "predictor",
    "sensei",
];

/// Each built-in samurai with one line on how it plays, in [`BUILTIN_NAMES`] order.
pub const BUILTIN_ABOUT: [(&str, &str); 8] = [
    ("waiter", "always waits (the seed's example entry)"),
    (
        "bower",
        "bows to the Sword of the Gods, then strikes with it",
    ),
    (
        "copycat",
        "repeats the enemy's last action, never spending honour it lacks",
    ),
    (
        "random",
        "uniform over the six actions (soon struck down by the gods)",
    ),
    (
        "guardian",
        "guards when the enemy is likely to strike, strikes with the sword",
    ),
    (
        "ronin",
        "a random mix of bows, guards and strikes that manages its honour",
    ),
    (
        "predictor",
        "n-gram model of the enemy, best reply one turn ahead",
    ),
    (
        "sensei",
        "the duel solved: plays the equilibrium (a reference opponent: none beats it on average)",
    ),
];

/// A fresh built-in samurai by name (`waiter`, `bower`, ...), or `None`.
///
/// ```
/// let s = koth_samurai::builtin("predictor").unwrap();
/// assert_eq!(s.name(), "predictor");
/// assert!(koth_samurai::builtin("ninja").is_none());
/// ```
pub fn builtin(name: &str) -> Option<Box<dyn Samurai>> {
    Some(match name {
        "waiter" => Box::new(Waiter),
        "bower" => Box::new(Bower),
        "copycat" => Box::new(Copycat),
        "random" => Box::new(RandomSamurai::default()),
        "guardian" => Box::new(Guardian),
        "ronin" => Box::new(Ronin::default()),
        "predictor" => Box::new(Predictor::default()),
        "sensei" => Box::new(Sensei::default()),
        _ => return None,
    })
}

/// Tournament entrants for built-in samurai by name; repeated names become `ronin`,
/// `ronin 2`, ... The error names the unknown samurai and lists the known ones.
///
/// ```
/// let field = koth_samurai::entrants(&["ronin", "ronin", "waiter"]).unwrap();
/// let names: Vec<_> = field.iter().map(|e| e.name.as_str()).collect();
/// assert_eq!(names, ["ronin", "ronin 2", "waiter"]);
/// assert!(koth_samurai::entrants(&["ninja"]).err().unwrap().contains("waiter"));
/// ```
pub fn entrants<S: AsRef<str>>(names: &[S]) -> Result<Vec<Entrant<State>>, String> {
    let shown = dedup_names(names);
    names
        .iter()
        .zip(shown)
        .map(|(name, shown)| {
            let name = name.as_ref().to_string();
            if builtin(&name).is_none() {
                return Err(format!(
                    "no built-in samurai named {name:?}; the built-ins are {}",
                    BUILTIN_NAMES.join(", ")
                ));
            }
            Ok(entrant(shown, move || {
                builtin(&name).expect("checked above")
            }))
        })
        .collect()
}
