//! Tracker, a contestant-style `coup` crate bot (koth_coup_crate::tracker), as a
//! koth program.
fn main() {
    koth_coup_crate::serve(koth_coup_crate::tracker::Tracker);
}
