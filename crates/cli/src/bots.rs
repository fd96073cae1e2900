//! `koth <game> bots`: the built-in bots, each with how it plays. Any game.

use crate::front::Front;

/// Lists `F`'s built-in bots.
pub fn list<F: Front>() {
    for (name, about) in F::builtins().into_iter().chain(F::champions()) {
        if about.is_empty() {
            out!("{name}");
        } else {
            out!("{name:<12} {about}");
        }
    }
}
