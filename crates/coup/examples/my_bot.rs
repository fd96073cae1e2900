//! A complete Rust bot playing a tournament against the built-ins.
//!
//! `cargo run --release -p koth-coup --example my_bot`

use koth_arena::{Agent, Entrant, Quiet, RecordLevel, Schedule, Scoring, Tournament};
use koth_coup::{
    builtin_entrant, Action, ActionKind, Bot, BotAgent, Card, LegalActions, Rules, State, View,
};

/// Taxes when it holds a Duke, blocks with any card it holds, coups when it can.
struct DukeBot;

impl Bot for DukeBot {
    fn on_turn(&mut self, view: &View, legal: &LegalActions) -> Action {
        if let Some(t) = legal.targets(ActionKind::Coup).next() {
            return Action::Coup(t);
        }
        if view.holds(Card::Duke) {
            Action::Tax
        } else {
            Action::Income
        }
    }
    fn on_block(
        &mut self,
        view: &View,
        _actor: usize,
        _action: Action,
        options: &[Card],
    ) -> Option<Card> {
        options.iter().copied().find(|&c| view.holds(c))
    }
}

fn main() {
    let mut entrants = vec![Entrant::new("dukebot", |_slot| {
        Ok(Box::new(BotAgent(DukeBot)) as Box<dyn Agent<State>>)
    })];
    for name in ["static", "honest", "random", "counter", "bluffer"] {
        entrants.push(builtin_entrant(name, name).expect("a built-in bot"));
    }
    let t = Tournament {
        rules: Rules::standard(),
        entrants,
        schedule: Schedule::RandomTables {
            games: 50_000,
            table: 6,
        },
        scoring: Scoring::ZeroSum,
        seed: 1,
        threads: 2,
        records: RecordLevel::None,
        duplicate: false,
    };
    let run = t.run(&mut Quiet);
    for i in run.standings.ranking() {
        let e = &run.standings.entrants[i];
        println!(
            "{:<10} {:+.4} ± {:.4} per game, {} wins in {} games",
            e.name,
            e.score.mean(),
            e.score.ci95(),
            e.wins,
            e.games()
        );
    }
}
