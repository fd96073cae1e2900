//! Ratings with uncertainty: a Weng-Lin (OpenSkill) rating per entrant, learnt
//! from the games of a run one after the other.
//!
//! Every game is a free-for-all between its seats, ranked by the places the
//! record keeps: the winners first, then the others from the last eliminated to
//! the first, so outlasting the field counts. A record without places (a
//! two-seat game, an old record) ranks winners first and everyone else second; a
//! game nobody won is then a draw between all its seats. Games are taken in index order whatever order the records
//! come in, so the ratings of a run are always the same.
//!
//! Unlike the mean score, a rating says how strong a bot is *given whom it met*:
//! beating strong bots counts more than beating weak ones. `sigma` is the
//! remaining uncertainty; `conservative = mu - 3 sigma` is a lower bound that
//! only climbs with evidence, the usual value to rank by.
//!
//! ```
//! use koth_arena::ratings::rate;
//! use koth_arena::{smallvec, Ending, GameRecord, Outcome, SeatSet};
//!
//! let names = vec!["a".to_string(), "b".to_string()];
//! let game = |index: u64| GameRecord::<u8> {
//!     index,
//!     seed: index,
//!     seats: smallvec![0, 1],
//!     outcome: Outcome { winners: SeatSet::single(0), ending: Ending::Decided, turns: 3 },
//!     scores: smallvec![1.0, -1.0],
//!     decisions: 0,
//!     forfeits: vec![],
//!     notices: vec![],
//!     places: smallvec![],
//!     choices: None,
//!     log: None,
//! };
//! let records: Vec<_> = (0..20).map(game).collect();
//! let r = rate(&names, &records);
//! assert!(r[0].mu > r[1].mu && r[0].conservative > r[1].conservative);
//! ```

use crate::records::GameRecord;
use serde::{Deserialize, Serialize};
use skillratings::weng_lin::{weng_lin_multi_team, WengLinConfig, WengLinRating};
use skillratings::MultiTeamOutcome;

/// One entrant's rating.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rating {
    /// The entrant's name.
    pub name: String,
    /// Estimated skill (starts at 25).
    pub mu: f64,
    /// Uncertainty of `mu` (starts at 25/3 and shrinks with games).
    pub sigma: f64,
    /// `mu - 3 sigma`: a skill the entrant very likely has at least.
    pub conservative: f64,
    /// Games the rating learnt from.
    pub games: u64,
}

/// The rating every entrant starts with.
pub fn initial() -> (f64, f64) {
    let r = WengLinRating::new();
    (r.rating, r.uncertainty)
}

/// The ratings of `names` (in entrant order) after the games of `records`, taken
/// in index order. Seats whose entrant index is out of range are ignored, and so
/// are games with fewer than two seats.
pub fn rate<C>(names: &[String], records: &[GameRecord<C>]) -> Vec<Rating> {
    let mut order: Vec<&GameRecord<C>> = records.iter().collect();
    order.sort_by_key(|r| r.index); // stable: equal indices keep their order
    let mut rater = Rater::new(names.len());
    for rec in order {
        rater.add(rec);
    }
    rater.ratings(names)
}

/// Ratings learnt one game at a time, for records read as a stream (in index
/// order, as a run writes them): memory does not grow with the games.
pub struct Rater {
    config: WengLinConfig,
    ratings: Vec<WengLinRating>,
    games: Vec<u64>,
    teams: Vec<[WengLinRating; 1]>,
    seats: Vec<usize>,
}

/// What a [`Rater`] has learnt, bit for bit: each entrant's `mu` and `sigma` as
/// their IEEE-754 bits, and its games. A rater made again from it rates the
/// next games exactly as the one it was taken from would.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RaterState {
    /// `[mu, sigma]` of each entrant, as `f64::to_bits`.
    pub ratings: Vec<[u64; 2]>,
    /// Games each entrant was rated on.
    pub games: Vec<u64>,
}

impl Rater {
    /// What it has learnt so far.
    pub fn state(&self) -> RaterState {
        RaterState {
            ratings: self
                .ratings
                .iter()
                .map(|r| [r.rating.to_bits(), r.uncertainty.to_bits()])
                .collect(),
            games: self.games.clone(),
        }
    }

    /// A rater that goes on from `state` (an entrant without games in it
    /// starts at the initial rating).
    pub fn from_state(state: &RaterState) -> Rater {
        let mut rater = Rater::new(state.ratings.len().max(state.games.len()));
        for (r, [mu, sigma]) in rater.ratings.iter_mut().zip(&state.ratings) {
            *r = WengLinRating {
                rating: f64::from_bits(*mu),
                uncertainty: f64::from_bits(*sigma),
            };
        }
        for (g, n) in rater.games.iter_mut().zip(&state.games) {
            *g = *n;
        }
        rater
    }

    /// Every one of `entrants` at the initial rating.
    pub fn new(entrants: usize) -> Rater {
        Rater {
            config: WengLinConfig::new(),
            ratings: vec![WengLinRating::new(); entrants],
            games: vec![0; entrants],
            teams: Vec::new(),
            seats: Vec::new(),
        }
    }

    /// Adds an entrant at the initial rating, last.
    pub fn push_entrant(&mut self) {
        self.ratings.push(WengLinRating::new());
        self.games.push(0);
    }

    /// Learns from one game.
    pub fn add<C>(&mut self, rec: &GameRecord<C>) {
        let n = self.ratings.len();
        self.teams.clear();
        self.seats.clear();
        for (seat, &e) in rec.seats.iter().enumerate() {
            // Each entrant once per game (the schedules never seat one twice).
            if e < n && !rec.seats[..seat].contains(&e) {
                self.teams.push([self.ratings[e]]);
                self.seats.push(seat);
            }
        }
        if self.teams.len() < 2 {
            return;
        }
        let winners = rec.outcome.winners;
        let input: Vec<(&[WengLinRating], MultiTeamOutcome)> = self
            .teams
            .iter()
            .zip(&self.seats)
            .map(|(t, &seat)| {
                // The recorded places (elimination order) when there are some;
                // else winners share first place and, with no winner, all draw.
                let place = match rec.places.get(seat) {
                    Some(&p) => p as usize,
                    None if winners.is_empty() || winners.contains(seat) => 1,
                    None => 2,
                };
                (&t[..], MultiTeamOutcome::new(place))
            })
            .collect();
        let updated = weng_lin_multi_team(&input, &self.config);
        for (new, &seat) in updated.iter().zip(&self.seats) {
            let e = rec.seats[seat];
            self.ratings[e] = new[0];
            self.games[e] += 1;
        }
    }

    /// The ratings so far, named (in entrant order).
    pub fn ratings(&self, names: &[String]) -> Vec<Rating> {
        names
            .iter()
            .zip(&self.ratings)
            .zip(&self.games)
            .map(|((name, r), &games)| Rating {
                name: name.clone(),
                mu: r.rating,
                sigma: r.uncertainty,
                conservative: r.rating - 3.0 * r.uncertainty,
                games,
            })
            .collect()
    }
}

/// Entrant indices, best first: by conservative rating, then mu, then name.
pub fn ranking(ratings: &[Rating]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..ratings.len()).collect();
    idx.sort_by(|&a, &b| {
        let (x, y) = (&ratings[a], &ratings[b]);
        y.conservative
            .total_cmp(&x.conservative)
            .then(y.mu.total_cmp(&x.mu))
            .then(x.name.cmp(&y.name))
    });
    idx
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Ending, Outcome, SeatSet};

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("bot{i}")).collect()
    }

    fn game(index: u64, seats: Vec<usize>, winners: SeatSet) -> GameRecord<u8> {
        let n = seats.len();
        GameRecord {
            index,
            seed: index,
            seats: seats.into(),
            outcome: Outcome {
                winners,
                ending: Ending::Decided,
                turns: 5,
            },
            scores: smallvec::smallvec![0.0; n],
            decisions: 0,
            forfeits: vec![],
            notices: vec![],
            places: Default::default(),
            choices: None,
            log: None,
        }
    }

    #[test]
    fn a_rater_made_again_from_its_state_goes_on_exactly() {
        let games = ffa(300);
        let mut whole = Rater::new(3);
        let mut first = Rater::new(3);
        for g in &games[..150] {
            whole.add(g);
            first.add(g);
        }
        // Through JSON, as a hill keeps it.
        let text = serde_json::to_string(&first.state()).unwrap();
        let mut again = Rater::from_state(&serde_json::from_str(&text).unwrap());
        assert_eq!(again.state(), first.state());
        for g in &games[150..] {
            whole.add(g);
            again.add(g);
        }
        assert_eq!(again.ratings(&names(3)), whole.ratings(&names(3)));
        // Not the same as starting over.
        let mut fresh = Rater::new(3);
        for g in &games[150..] {
            fresh.add(g);
        }
        assert_ne!(fresh.ratings(&names(3)), whole.ratings(&names(3)));
    }

    /// A three-bot free-for-all where bot 0 always wins, bot 2 never does, and
    /// bot 1 wins when bot 0 is not seated; seats rotate.
    fn ffa(games: u64) -> Vec<GameRecord<u8>> {
        (0..games)
            .map(|i| {
                let seats = match i % 3 {
                    0 => vec![0, 1, 2],
                    1 => vec![2, 0, 1],
                    _ => vec![1, 2],
                };
                let winner = if seats.contains(&0) { 0 } else { 1 };
                let seat = seats.iter().position(|&e| e == winner).unwrap();
                game(i, seats, SeatSet::single(seat))
            })
            .collect()
    }

    #[test]
    fn winners_rate_above_losers() {
        let r = rate(&names(3), &ffa(300));
        assert!(r[0].mu > r[1].mu && r[1].mu > r[2].mu, "{r:?}");
        assert!(r[0].conservative > r[2].conservative);
        assert!(r.iter().all(|x| x.sigma < initial().1));
        assert_eq!(ranking(&r), vec![0, 1, 2]);
        assert_eq!((r[0].games, r[1].games, r[2].games), (200, 300, 300));
        for x in &r {
            assert!((x.conservative - (x.mu - 3.0 * x.sigma)).abs() < 1e-12);
        }
    }

    #[test]
    fn equal_records_give_equal_ratings() {
        // Bots 0 and 1 share every win against bot 2: the same record, exactly.
        let shared: Vec<_> = (0..60)
            .map(|i| {
                let seats = [vec![0, 1, 2], vec![2, 1, 0], vec![1, 2, 0]][(i % 3) as usize].clone();
                let mut w = SeatSet::EMPTY;
                for (s, &e) in seats.iter().enumerate() {
                    if e != 2 {
                        w.insert(s);
                    }
                }
                game(i, seats, w)
            })
            .collect();
        let r = rate(&names(3), &shared);
        assert_eq!((r[0].mu, r[0].sigma), (r[1].mu, r[1].sigma), "{r:?}");
        assert!(r[0].mu > r[2].mu);
        // Two bots that win alternately end level (up to who won last).
        let alternate: Vec<_> = (0..200u64)
            .map(|i| {
                let seats = if i % 4 < 2 { vec![0, 1] } else { vec![1, 0] };
                game(i, seats, SeatSet::single((i % 2) as usize))
            })
            .collect();
        let r = rate(&names(2), &alternate);
        assert!((r[0].mu - r[1].mu).abs() < 1.0, "{r:?}");
        assert!((r[0].sigma - r[1].sigma).abs() < 1e-6, "{r:?}");
        // Draws and games nobody won move both the same way.
        let draws: Vec<_> = (0..10)
            .map(|i| game(i, vec![0, 1], SeatSet::all(2)))
            .chain((10..20).map(|i| game(i, vec![1, 0], SeatSet::EMPTY)))
            .collect();
        let r = rate(&names(2), &draws);
        assert_eq!(r[0].mu, r[1].mu);
        assert_eq!(r[0].sigma, r[1].sigma);
        assert!((r[0].mu - initial().0).abs() < 1e-9);
        assert!(r[0].sigma < initial().1);
    }

    #[test]
    fn renaming_entrants_permutes_ratings() {
        let recs = ffa(120);
        let swapped: Vec<_> = recs
            .iter()
            .map(|r| {
                let mut r = r.clone();
                for e in &mut r.seats {
                    *e = [1, 0, 2][*e];
                }
                r
            })
            .collect();
        let a = rate(&names(3), &recs);
        let b = rate(&names(3), &swapped);
        assert_eq!((a[0].mu, a[0].sigma), (b[1].mu, b[1].sigma));
        assert_eq!((a[1].mu, a[1].sigma), (b[0].mu, b[0].sigma));
    }

    #[test]
    fn deterministic_and_in_index_order() {
        let recs = ffa(90);
        let a = rate(&names(3), &recs);
        assert_eq!(a, rate(&names(3), &recs));
        let mut shuffled = recs.clone();
        shuffled.reverse();
        shuffled.swap(3, 40);
        assert_eq!(a, rate(&names(3), &shuffled));
    }

    #[test]
    fn untouched_entrants_keep_the_prior() {
        let r = rate(&names(4), &ffa(30));
        let (mu, sigma) = initial();
        assert_eq!((r[3].mu, r[3].sigma, r[3].games), (mu, sigma, 0));
        assert_eq!(r[3].name, "bot3");
        let empty: Vec<GameRecord<u8>> = Vec::new();
        assert!(rate(&names(2), &empty).iter().all(|x| x.mu == mu));
    }

    #[test]
    fn places_separate_the_last_out_from_the_first_out() {
        // Four bots; "a" always wins, "b" always goes out last, "d" first.
        let names = names(4);
        let recs: Vec<GameRecord<u8>> = (0..200)
            .map(|i| {
                let mut g = game(i, vec![0, 1, 2, 3], SeatSet::single(0));
                g.places = smallvec::smallvec![1, 2, 3, 4];
                g
            })
            .collect();
        let r = rate(&names, &recs);
        assert!(
            r[0].mu > r[1].mu && r[1].mu > r[2].mu && r[2].mu > r[3].mu,
            "{r:?}"
        );
        // Without places the three losers are rated alike.
        let flat: Vec<GameRecord<u8>> = (0..200)
            .map(|i| game(i, vec![0, 1, 2, 3], SeatSet::single(0)))
            .collect();
        let f = rate(&names, &flat);
        assert!((f[1].mu - f[3].mu).abs() < 1e-9, "{f:?}");
    }
}
