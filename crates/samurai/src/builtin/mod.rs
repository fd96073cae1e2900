//! The built-in samurai, and a registry of them by name.

mod bower;
mod copycat;
mod guardian;
mod predictor;
mod random;
mod ronin;
mod waiter;

pub use bower::Bower;
pub use copycat::Copycat;
pub use guardian::Guardian;
pub use predictor::Predictor;
pub use random::RandomSamurai;
pub use ronin::Ronin;
pub use waiter::Waiter;

use crate::bot::{entrant, Samurai};
use crate::state::State;
use koth_arena::dedup_names;
use koth_arena::Entrant;

/// The names [`builtin`] knows, weakest idea first.
pub const BUILTIN_NAMES: [&str; 7] = [
    "waiter",
    "bower",
    "copycat",
    "random",
    "guardian",
    "ronin",
    "predictor",
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
