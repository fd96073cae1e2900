// Your `coup` crate bot (any type implementing coup::bot::BotInterface) here;
// the crate's own HonestBot stands in for it.
use koth_coup_crate::coup::bots::HonestBot;

fn main() {
    koth_coup_crate::serve(HonestBot);
}
