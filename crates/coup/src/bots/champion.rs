//! `champion`: determinized Monte Carlo search over imagined deals drawn from
//! what the public log says.

use super::belief::Beliefs;
use super::bluffer::Bluffer;
use super::counter::Counter;
use super::principled::Principled;
use crate::bot::{dispatch, Bot};
use crate::choice::Choice;
use crate::state::{State, MAX_PLAYERS};
use crate::view::View;
use koth_arena::{Random, Rng, Seat};

/// Playouts a decision gets by default.
pub const DEFAULT_PLAYOUTS: u32 = 100;

/// Playouts that one millisecond of budget buys (`champion:2ms` plays
/// 2 × this many). Fixed, never measured at run time, so that play depends on
/// the seat's seed alone, on any machine; set from the playout rate measured
/// on a 2-core reference machine (`koth coup bench`-style figures in
/// docs/champions.md).
pub const PLAYOUTS_PER_MS: f64 = 180.0;

/// A decision's playouts never exceed this (`champion:100000ms` is refused).
pub const MAX_PLAYOUTS: u32 = 1_000_000;

/// The careful counter's choice counts this many standard deviations of one
/// playout's result (at most ½) better than its playouts say.
const DEFAULT_EDGE: f64 = 0.5;

/// A decision tries every legal choice when it has this many playouts for each;
/// with fewer, only what the modelled built-ins would choose.
const NARROW_BELOW: usize = 8;

/// Decisions a playout takes at most before it is judged as it stands (a whole
/// six-seat game takes about 200; longer ones are mostly stalemates, such as two
/// Captains blocking each other's Steals for ever).
const PLAYOUT_STEPS: usize = 600;

/// The bots imagined at the other seats, one drawn for each seat of each
/// imagined deal: the built-ins that play on principle, count cards or bluff.
const MODELS: usize = 5;

/// The models that play in each of the beliefs' styles ([`STYLES`]): the
/// truthful ones (honest, economist, the careful counter: they never bluff),
/// all of them, and those that bluff (the bold counter, the bluffer).
///
/// [`STYLES`]: super::belief::STYLES
const MODELS_OF_STYLE: [std::ops::Range<usize>; 3] = [0..3, 0..MODELS, 3..MODELS];

fn model(i: usize) -> Model {
    match i {
        0 => Model::Principled(Principled::honest()),
        1 => Model::Principled(Principled::economist()),
        2 => Model::Counter(Counter::careful()),
        3 => Model::Counter(Counter::bold()),
        _ => Model::Bluffer(Bluffer::default()),
    }
}

/// A built-in playing in a playout.
#[derive(Clone, Debug)]
enum Model {
    Principled(Principled),
    Counter(Counter),
    Bluffer(Bluffer),
}

impl Model {
    fn start(&mut self, view: &View, seed: u64) {
        match self {
            Model::Principled(b) => b.start(view, seed),
            Model::Counter(b) => b.start(view, seed),
            Model::Bluffer(b) => b.start(view, seed),
        }
    }
    #[inline]
    fn decide(&mut self, view: &View) -> Choice {
        // Each asks the rules for its legal actions (`wants_legal` is false).
        match self {
            Model::Principled(b) => dispatch(b, view, &[]),
            Model::Counter(b) => dispatch(b, view, &[]),
            Model::Bluffer(b) => dispatch(b, view, &[]),
        }
    }
}

/// The search bot. At each decision with a choice to make it imagines deals of
/// the hidden cards drawn from its [`Beliefs`], plays every candidate choice out
/// to the end in each (the other seats played by built-ins drawn at random, its
/// own later moves by the careful card counter), and keeps the choices that won
/// most: successive halving, the same imagined deals for every candidate still in.
///
/// ```
/// use koth_coup::{bots::{self, Champion}, BotAgent, Rules, State};
/// use koth_arena::{play_game, Agent, GameSeeds, RecordLevel, Scoring};
///
/// let seeds = GameSeeds::of(7, 0);
/// let mut game = State::new(Rules::standard(), 2, seeds.deal);
/// let mut champion = BotAgent(Champion::with_playouts(50));
/// let mut honest = BotAgent(bots::builtin("honest").unwrap());
/// let mut seats: Vec<&mut dyn Agent<State>> = vec![&mut champion, &mut honest];
/// let (record, _) = play_game(&mut game, &mut seats, &[0, 1], 0, seeds,
///     Scoring::ZeroSum, RecordLevel::None, &mut Vec::new());
/// assert_eq!(record.outcome.winners.len(), 1);
/// ```
#[derive(Clone, Debug)]
pub struct Champion {
    playouts: u32,
    rng: Rng,
    beliefs: Option<Beliefs>,
    legal: Vec<Choice>,
    /// Decisions searched and playouts played, since it was made.
    searched: (u64, u64),
}

impl Default for Champion {
    fn default() -> Self {
        Champion::with_playouts(DEFAULT_PLAYOUTS)
    }
}

impl Champion {
    /// A champion that spends `playouts` playouts on each decision (at least one
    /// per candidate).
    pub fn with_playouts(playouts: u32) -> Self {
        Champion {
            playouts: playouts.clamp(1, MAX_PLAYOUTS),
            rng: Rng::new(0),
            beliefs: None,
            legal: Vec::new(),
            searched: (0, 0),
        }
    }

    /// The champion a built-in name asks for: `champion` (the default budget),
    /// `champion:2ms` (a budget in milliseconds, as playouts at
    /// [`PLAYOUTS_PER_MS`]) or `champion:500` (playouts). `None` for anything else.
    ///
    /// ```
    /// use koth_coup::bots::Champion;
    /// assert_eq!(Champion::from_name("champion").unwrap().playouts(), 100);
    /// assert_eq!(Champion::from_name("champion:1ms").unwrap().playouts(), 180);
    /// assert_eq!(Champion::from_name("champion:500").unwrap().playouts(), 500);
    /// assert!(Champion::from_name("champion:0ms").is_none());
    /// assert!(Champion::from_name("champions").is_none());
    /// ```
    pub fn from_name(name: &str) -> Option<Champion> {
        let budget = match name.strip_prefix("champion") {
            Some("") => return Some(Champion::default()),
            Some(rest) => rest.strip_prefix(':')?,
            None => return None,
        };
        let playouts = if let Some(ms) = budget.strip_suffix("ms") {
            let ms: f64 = ms.parse().ok()?;
            if !ms.is_finite() || ms <= 0.0 {
                return None;
            }
            (ms * PLAYOUTS_PER_MS).round()
        } else {
            if budget.starts_with('+') {
                return None;
            }
            budget.parse::<u32>().ok()? as f64
        };
        (playouts >= 1.0 && playouts <= MAX_PLAYOUTS as f64)
            .then(|| Champion::with_playouts(playouts as u32))
    }

    /// Playouts per decision.
    pub fn playouts(&self) -> u32 {
        self.playouts
    }

    /// Decisions it searched (those with more than one legal choice) and
    /// playouts it played, since it was made: for measuring its cost.
    pub fn searched(&self) -> (u64, u64) {
        self.searched
    }

    /// What it now believes of the others' cards (after its last decision).
    pub fn beliefs(&self) -> Option<&Beliefs> {
        self.beliefs.as_ref()
    }

    fn search(&mut self, view: &View, legal: &[Choice]) -> Choice {
        let me = view.me();
        let beliefs = self.beliefs.as_ref().expect("updated before searching");
        let state = view.state();
        let mut cands: Vec<(Choice, f64, u32)> = Vec::new();
        // The careful counter's choice (its own model in playouts) stands unless
        // another one beats it by more than the playouts' noise.
        let default = {
            let mut m = Model::Counter(Counter::careful());
            m.start(view, self.rng.next_u64());
            m.decide(view)
        };
        if (self.playouts as usize) < NARROW_BELOW * legal.len() {
            // Too few playouts to try everything: try what the built-ins would do.
            let seed = self.rng.next_u64();
            for i in 0..MODELS {
                let mut m = model(i);
                m.start(view, seed);
                let c = m.decide(view);
                if legal.contains(&c) && !cands.iter().any(|x| x.0 == c) {
                    cands.push((c, 0.0, 0));
                }
            }
            if cands.len() == 1 {
                return cands[0].0;
            }
        }
        if cands.is_empty() {
            cands = legal.iter().map(|&c| (c, 0.0, 0)).collect();
        }
        let rounds = (usize::BITS - (cands.len() - 1).leading_zeros()).max(1) as u64;
        let mut left = u64::from(self.playouts);
        for round in 0..rounds {
            let k = cands.len() as u64;
            let this_round = left / (rounds - round);
            let deals = (this_round / k).max(1);
            for _ in 0..deals {
                let (hands, deck, styles) = beliefs.sample_styled(view, &mut self.rng);
                let deal_seed = self.rng.next_u64();
                let world = match state.imagined(me, &hands, &deck, deal_seed) {
                    Some(w) => w,
                    None => {
                        // Cannot happen for a seat deciding (sizes come from the view);
                        // a uniform guess keeps the search honest if it ever does.
                        let mut w = state.clone();
                        w.shuffle_hidden(me, &mut self.rng);
                        w
                    }
                };
                let models: [Model; MAX_PLAYERS] = std::array::from_fn(|s| {
                    if s == me {
                        Model::Counter(Counter::careful())
                    } else {
                        // A player of the style its hand was drawn in.
                        let of = &MODELS_OF_STYLE[styles[s]];
                        model(of.start + self.rng.index(of.len()))
                    }
                });
                let play_seed = self.rng.next_u64();
                for cand in cands.iter_mut() {
                    let mut sim = world.clone();
                    let value = if sim.apply(cand.0).is_ok() {
                        playout(&mut sim, me, models.clone(), play_seed)
                    } else {
                        0.0
                    };
                    cand.1 += value;
                    cand.2 += 1;
                }
                self.searched.1 += k;
                left = left.saturating_sub(k);
            }
            let score = |c: &(Choice, f64, u32)| {
                let n = f64::from(c.2.max(1));
                c.1 / n
                    + if c.0 == default {
                        DEFAULT_EDGE / n.sqrt()
                    } else {
                        0.0
                    }
            };
            cands.sort_by(|a, b| score(b).total_cmp(&score(a)));
            let keep = cands.len().div_ceil(2);
            cands.truncate(keep);
            if cands.len() == 1 {
                break;
            }
        }
        cands[0].0
    }
}

/// Plays `sim` to the end with `models` at the seats; `me`'s share of the win.
fn playout(sim: &mut State, me: Seat, mut models: [Model; MAX_PLAYERS], seed: u64) -> f64 {
    for (s, m) in models.iter_mut().enumerate().take(sim.players()) {
        m.start(
            &View::new(sim, s),
            seed ^ (s as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15),
        );
    }
    let mut legal = Vec::new();
    for _ in 0..PLAYOUT_STEPS {
        let Some(seat) = sim.to_move() else { break };
        let choice = models[seat].decide(&View::new(sim, seat));
        if sim.apply(choice).is_err() {
            legal.clear();
            sim.legal_choices(&mut legal);
            if sim.apply(legal[0]).is_err() {
                break;
            }
        }
    }
    match sim.outcome() {
        Some(o) if o.winners.contains(me) => 1.0 / o.winners.len() as f64,
        Some(_) => 0.0,
        None => standing(sim, me),
    }
}

/// An unfinished playout's worth to `me`: its share of the live players' cards
/// and coins (a card counted as 8 coins), so that a stalemate still prefers
/// the choice that leaves it richer.
fn standing(sim: &State, me: Seat) -> f64 {
    let worth = |s: Seat| (sim.influence(s) * 8) as f64 + f64::from(sim.coins(s));
    let all: f64 = (0..sim.players())
        .filter(|&s| sim.is_alive(s))
        .map(worth)
        .sum();
    if sim.is_alive(me) && all > 0.0 {
        worth(me) / all
    } else {
        0.0
    }
}

impl Bot for Champion {
    fn start(&mut self, view: &View, seed: u64) {
        self.rng = Rng::new(seed);
        self.beliefs = Some(Beliefs::new(view));
    }

    fn wants_legal(&self) -> bool {
        false // lists its choices itself, only when it has one to make
    }

    fn decide(&mut self, view: &View, legal: &[Choice]) -> Choice {
        let beliefs = self.beliefs.get_or_insert_with(|| Beliefs::new(view));
        beliefs.update(view);
        let mut list = std::mem::take(&mut self.legal);
        list.clear();
        if legal.is_empty() {
            view.state().legal_choices(&mut list);
        } else {
            list.extend_from_slice(legal);
        }
        let choice = match list.len() {
            0 => Choice::Pass,
            1 => list[0],
            _ => {
                self.searched.0 += 1;
                self.search(view, &list)
            }
        };
        self.legal = list;
        choice
    }
}
