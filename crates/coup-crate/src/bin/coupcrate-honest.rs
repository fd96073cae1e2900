//! The `coup` crate's own HonestBot, unchanged, as a koth program.
fn main() {
    koth_coup_crate::serve(koth_coup_crate::coup::bots::HonestBot);
}
