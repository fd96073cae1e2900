//! `champion`: Monte Carlo search over imagined deals drawn from what the
//! public log says, with a tree over every player's information sets
//! (multiple-observer information-set MCTS) below the decision.

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
/// on a 2-core reference machine before the tree search (which made a
/// playout about 1.4 times dearer); kept, so that a budget's name keeps
/// meaning the same playouts (docs/champions.md).
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
/// to the end in each, and keeps the choices that won most: successive halving,
/// the same imagined deals for every candidate still in. Below the candidate,
/// each player's decisions follow a tree of that player's information sets
/// (what it has seen since the decision began, its own cards included) while
/// the playout is in it: a node plays as the player's model (a built-in of the
/// player's drawn style; its own, the careful counter) until its visits open
/// other choices, chosen by UCB1. So a small budget plays like its models and
/// a bigger one searches deeper, for itself and for the others.
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
        let mut search = Search::default();
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
                        tree_playout(
                            &mut sim,
                            me,
                            models.clone(),
                            &styles,
                            play_seed,
                            cand.0,
                            &mut search,
                        )
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

/// One choice at a node of the tree: its visits and summed results.
#[derive(Clone, Copy, Debug)]
struct Arm {
    choice: Choice,
    visits: u32,
    wins: f64,
}

/// A player's information set in the tree: the choices there, in the order
/// they are opened (the model's first), and how often the node was visited.
#[derive(Debug)]
struct Node {
    arms: Vec<Arm>,
    total: u32,
}

impl Node {
    /// A node whose first choice is `first` (the model's), the others in the
    /// rules' order.
    fn new(legal: &[Choice], first: Choice) -> Node {
        let arm = |choice| Arm {
            choice,
            visits: 0,
            wins: 0.0,
        };
        let mut arms = Vec::with_capacity(legal.len());
        if legal.contains(&first) {
            arms.push(arm(first));
        }
        arms.extend(legal.iter().filter(|&&c| c != first).map(|&c| arm(c)));
        Node { arms, total: 0 }
    }

    /// The arm to follow: UCB1 among the choices opened so far (more open as
    /// the node is visited: progressive widening, so that few visits play like
    /// the model and many search every choice).
    fn select(&self) -> usize {
        let open = (1 + (f64::from(self.total) / WIDEN).sqrt() as usize).min(self.arms.len());
        let ln = f64::from(self.total.max(1)).ln();
        let mut best = (0, f64::NEG_INFINITY);
        for (i, a) in self.arms[..open].iter().enumerate() {
            let score = if a.visits == 0 {
                f64::INFINITY
            } else {
                let n = f64::from(a.visits);
                a.wins / n + EXPLORE * (ln / n).sqrt()
            };
            if score > best.1 {
                best = (i, score);
            }
        }
        best.0
    }
}

/// UCB1's exploration constant (results lie in 0..=1).
const EXPLORE: f64 = 0.7;

/// A node opens its k-th choice after WIDEN × (k − 1)² visits. Measured: 4, 12
/// and 32 play alike at two seats; at six, where many players share a tree and
/// its nodes get few visits each, 32 wins most (+0.477 a game against +0.444
/// at 4, 2,000 games).
const WIDEN: f64 = 32.0;

/// Mixes `x` into the running key `h` (splitmix64's finalizer; the keys only
/// tell information sets apart within one decision's search).
#[inline]
fn mix(h: u64, x: u64) -> u64 {
    let mut z = (h ^ x).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// What `me` sees of `choice` made at `seat`: all of it, except another
/// player's Exchange keep (only that it was made).
#[inline]
fn seen(me: Seat, seat: Seat, choice: Choice) -> u64 {
    use koth_arena::ChoiceCode;
    match choice {
        Choice::Keep(_) if seat != me => 0xff,
        c => u64::from(c.code().unwrap_or(0xfe)),
    }
}

/// The key of `me`'s information set at `sim`, after the path key `h`: its own
/// cards (and those it drew to exchange) are what the path does not show.
fn key_at(sim: &State, me: Seat, h: u64) -> u64 {
    let mut k = mix(h, 0x5eed);
    let mut cards: [u8; 4] = [0xff; 4];
    for (i, &c) in sim.hand(me).iter().enumerate().take(2) {
        cards[i] = c as u8;
    }
    cards[..2].sort_unstable();
    if let Some(d) = sim.drawn() {
        cards[2] = d[0] as u8;
        cards[3] = d[1] as u8;
        cards[2..].sort_unstable();
    }
    k = mix(k, u64::from(u32::from_le_bytes(cards)));
    k
}

type Tree = rustc_hash::FxHashMap<u64, Node>;

/// A decision's tree and the buffers its playouts reuse: the nodes a playout
/// followed (seat, key, arm) and a list of legal choices.
#[derive(Default)]
struct Search {
    tree: Tree,
    path: Vec<(Seat, u64, usize)>,
    list: Vec<Choice>,
}

/// Plays `sim` to the end as [`playout`] does, but every seat's decisions
/// follow the tree while they are in it (one new node opened a playout a
/// seat), each keyed by what that seat has seen since the search began (its
/// own cards included, so an imagined player's choices depend on its hand);
/// each seat's result is added to the nodes it followed. `styles` are the
/// imagined players' styles (a truthful one is never searched for: it plays
/// its model).
fn tree_playout(
    sim: &mut State,
    me: Seat,
    mut models: [Model; MAX_PLAYERS],
    styles: &[usize; MAX_PLAYERS],
    seed: u64,
    first: Choice,
    search: &mut Search,
) -> f64 {
    let players = sim.players();
    for (s, m) in models.iter_mut().enumerate().take(players) {
        m.start(
            &View::new(sim, s),
            seed ^ (s as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15),
        );
    }
    // Each seat's path key: what it has seen since the search began.
    let mut h: [u64; MAX_PLAYERS] = std::array::from_fn(|s| {
        let start = mix(s as u64, if s == me { 0 } else { 1 + styles[s] as u64 });
        mix(start, seen(s, me, first))
    });
    let Search { tree, path, list } = search;
    path.clear();
    let mut in_tree: [bool; MAX_PLAYERS] =
        std::array::from_fn(|s| s == me || (s < players && styles[s] != 0));
    for _ in 0..PLAYOUT_STEPS {
        let Some(seat) = sim.to_move() else { break };
        let mut choice = None;
        if in_tree[seat] {
            let key = key_at(sim, seat, h[seat]);
            if let Some(node) = tree.get_mut(&key) {
                let i = node.select();
                path.push((seat, key, i));
                choice = Some(node.arms[i].choice);
            } else {
                list.clear();
                sim.legal_choices(list);
                if list.len() > 1 {
                    // Open this one, played as the model plays it; then leave the tree.
                    let first = models[seat].decide(&View::new(sim, seat));
                    let node = Node::new(list, first);
                    path.push((seat, key, 0));
                    choice = Some(node.arms[0].choice);
                    tree.insert(key, node);
                    in_tree[seat] = false;
                }
            }
        }
        let choice = match choice {
            Some(c) => c,
            None => models[seat].decide(&View::new(sim, seat)),
        };
        let made = if sim.apply(choice).is_ok() {
            choice
        } else {
            list.clear();
            sim.legal_choices(list);
            if sim.apply(list[0]).is_err() {
                break;
            }
            list[0]
        };
        for s in 0..players {
            if in_tree[s] {
                h[s] = mix(h[s], seen(s, seat, made));
            }
        }
    }
    let outcome = sim.outcome();
    let value = |s: Seat| match &outcome {
        Some(o) if o.winners.contains(s) => 1.0 / o.winners.len() as f64,
        Some(_) => 0.0,
        None => standing(sim, s),
    };
    for &(seat, key, i) in path.iter() {
        let v = value(seat);
        let node = tree.get_mut(&key).expect("a node on the path");
        node.total += 1;
        node.arms[i].visits += 1;
        node.arms[i].wins += v;
    }
    value(me)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::action::Action;
    use crate::card::Card::*;
    use crate::choice::Keep;
    use crate::rules::Rules;

    fn three() -> State {
        let hands: [&[crate::card::Card]; 3] =
            [&[Duke, Captain], &[Assassin, Contessa], &[Ambassador, Duke]];
        let mut deck = crate::full_deck().to_vec();
        for c in hands.iter().flat_map(|h| h.iter()) {
            let i = deck.iter().position(|x| x == c).unwrap();
            deck.remove(i);
        }
        State::from_setup(Rules::standard(), &hands, &[2, 2, 2], &deck, 3).unwrap()
    }

    /// A node's key is what its player may know: moving the cards it cannot
    /// see keeps its key, changing its own cards changes it.
    #[test]
    fn a_key_holds_only_what_its_player_sees() {
        let g = three();
        for seed in 0..20 {
            let mut moved = g.clone();
            moved.shuffle_hidden(0, &mut Rng::new(seed));
            assert_eq!(key_at(&moved, 0, 9), key_at(&g, 0, 9));
        }
        let mut other = g.clone();
        let mut changed = 0;
        for seed in 0..20 {
            other.shuffle_hidden(1, &mut Rng::new(seed));
            let mut mine: Vec<_> = other.hand(0).to_vec();
            mine.sort();
            let mut was: Vec<_> = g.hand(0).to_vec();
            was.sort();
            if mine != was {
                changed += 1;
                assert_ne!(key_at(&other, 0, 9), key_at(&g, 0, 9));
            }
        }
        assert!(changed > 10, "{changed}");
        // The same cards at another seat, or after another path, are another node.
        assert_ne!(key_at(&g, 0, 9), key_at(&g, 0, 10));
    }

    /// Another player's Exchange keep is seen only as made; everything else
    /// (its claims, challenges, lost cards) as it is.
    #[test]
    fn another_players_exchange_keep_is_not_seen() {
        let a = Choice::Keep(Keep::new(&[Duke, Captain]).unwrap());
        let b = Choice::Keep(Keep::new(&[Ambassador, Contessa]).unwrap());
        assert_eq!(seen(0, 1, a), seen(0, 1, b));
        assert_ne!(seen(1, 1, a), seen(1, 1, b));
        assert_ne!(
            seen(0, 1, Choice::Lose(Duke)),
            seen(0, 1, Choice::Lose(Captain))
        );
        assert_ne!(seen(0, 1, Choice::Pass), seen(0, 1, Choice::Challenge));
    }

    /// A node plays its first choice (the model's) until its visits open the
    /// next: WIDEN × (k − 1)² visits for the k-th.
    #[test]
    fn a_node_opens_its_choices_as_it_is_visited() {
        let legal = [
            Choice::Act(Action::Income),
            Choice::Act(Action::ForeignAid),
            Choice::Act(Action::Tax),
        ];
        let mut node = Node::new(&legal, Choice::Act(Action::Tax));
        assert_eq!(node.arms[0].choice, Choice::Act(Action::Tax));
        let mut followed = Vec::new();
        for _ in 0..(4.0 * WIDEN) as u32 + 1 {
            let i = node.select();
            followed.push(i);
            node.total += 1;
            node.arms[i].visits += 1;
            node.arms[i].wins += 0.5;
        }
        let first_of = |k: usize| followed.iter().position(|&i| i == k);
        assert_eq!(first_of(0), Some(0));
        assert_eq!(first_of(1), Some(WIDEN as usize));
        assert_eq!(first_of(2), Some((4.0 * WIDEN) as usize));
    }
}
