//! Which entrants sit at which seats in game number `index` of a tournament.
//!
//! A pure function of (schedule, entrant count, master seed, index), so any
//! game of a run can be re-created alone: for shards, resume and replays.

use crate::rng::{derive, Random, Rng, Stream};
use serde::{Deserialize, Serialize};

/// The shape of a tournament.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Schedule {
    /// `games` games; each seats `table` entrants drawn at random, in random seat
    /// order (seed 003's loop mode).
    RandomTables {
        /// Number of games.
        games: u64,
        /// Seats per game.
        table: usize,
    },
    /// Rounds of as many games as entrants: each round puts the entrants in a random
    /// circle, and its game `j` seats the `table` entrants from position `j` on. In
    /// a round every entrant plays `table` games, once in every seat, so complete
    /// rounds give every entrant the same number of games and seats; which entrants
    /// meet varies from round to round. `games` should be a multiple of the number
    /// of entrants (the front ends round it up).
    Balanced {
        /// Number of games.
        games: u64,
        /// Seats per game.
        table: usize,
    },
    /// Two-player round robin: every pair of entrants plays `games_per_pair` games,
    /// the first seat alternating. Game `k` of every pair is played before game
    /// `k + 1` of any pair, so two consecutive `k` form a round in which every
    /// ordered pair plays once (seed 000's rounds).
    RoundRobin {
        /// Games each pair plays.
        games_per_pair: u64,
    },
    /// Entrant 0 (the candidate) plays every game, the other seats drawn at random
    /// from the rest (the pool); seat order random.
    Gauntlet {
        /// Number of games.
        games: u64,
        /// Seats per game.
        table: usize,
    },
    /// Entrants 0 and 1 (a pair to tell apart) each play every other game
    /// against the same opponents: game `2j` seats 0 and `table − 1` others
    /// drawn at random from everyone else, game `2j + 1` the same table with 1
    /// and 0 swapped. Each of the two meets a field drawn evenly from all the
    /// others (the other of the pair included). Seat order random.
    Pair {
        /// Number of games.
        games: u64,
        /// Seats per game.
        table: usize,
        /// Under duplicate play, deals `2j` and `2j + 1` (the two tables of
        /// a mirrored pair) are dealt the same cards, so that the pair's
        /// difference has the deal's luck taken out (false in blocks planned
        /// before: each deal its own cards).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        same_cards: bool,
    },
}

impl Schedule {
    /// Under duplicate play, how many deals in a row are dealt the same cards:
    /// 2 for a pair block's mirrored tables ([`Schedule::Pair`]'s
    /// `same_cards`), else 1.
    pub fn deals_alike(&self) -> u64 {
        match *self {
            Schedule::Pair {
                same_cards: true, ..
            } => 2,
            _ => 1,
        }
    }

    /// How many games the schedule holds for `entrants` entrants.
    pub fn len(&self, entrants: usize) -> u64 {
        match *self {
            Schedule::RandomTables { games, .. } | Schedule::Balanced { games, .. } => games,
            Schedule::RoundRobin { games_per_pair } => pairs(entrants) * games_per_pair,
            Schedule::Gauntlet { games, .. } | Schedule::Pair { games, .. } => games,
        }
    }

    /// Games played for `entrants` entrants: [`Schedule::len`], rounded up to whole
    /// deals under duplicate play (a deal is played once per seat).
    pub fn games(&self, entrants: usize, duplicate: bool) -> u64 {
        let len = self.len(entrants);
        if duplicate {
            let k = self.table(entrants).max(1) as u64;
            len.div_ceil(k) * k
        } else {
            len
        }
    }

    /// Whether the schedule holds no game.
    pub fn is_empty(&self, entrants: usize) -> bool {
        self.len(entrants) == 0
    }

    /// Seats per game.
    pub fn table(&self, entrants: usize) -> usize {
        match *self {
            Schedule::RandomTables { table, .. }
            | Schedule::Balanced { table, .. }
            | Schedule::Gauntlet { table, .. }
            | Schedule::Pair { table, .. } => table.min(entrants),
            Schedule::RoundRobin { .. } => 2,
        }
    }

    /// The entrants of game `index`, in seat order, written to `out`.
    pub fn seating(&self, entrants: usize, master_seed: u64, index: u64, out: &mut Vec<usize>) {
        out.clear();
        match *self {
            Schedule::RandomTables { table, .. } => {
                let mut rng = Rng::new(derive(master_seed, Stream::Tables, index));
                out.extend(0..entrants);
                // Partial Fisher–Yates: the first `table` slots are a uniform random
                // arrangement of a uniform random subset.
                let k = table.min(entrants);
                for i in 0..k {
                    let j = i + rng.index(entrants - i);
                    out.swap(i, j);
                }
                out.truncate(k);
            }
            Schedule::Balanced { table, .. } => {
                let n = entrants as u64;
                if n == 0 {
                    return;
                }
                let (round, j) = (index / n, (index % n) as usize);
                let mut rng = Rng::new(derive(master_seed, Stream::Rounds, round));
                out.extend(0..entrants);
                rng.shuffle(out);
                let k = table.min(entrants);
                out.rotate_left(j);
                out.truncate(k);
            }
            Schedule::Gauntlet { table, .. } => {
                let mut rng = Rng::new(derive(master_seed, Stream::Gauntlet, index));
                out.extend(1..entrants);
                let k = table.min(entrants).saturating_sub(1);
                for i in 0..k {
                    let j = i + rng.index(out.len() - i);
                    out.swap(i, j);
                }
                out.truncate(k);
                out.push(0);
                rng.shuffle(out);
            }
            Schedule::Pair { table, .. } => {
                // Opponents drawn for game 2j from everyone but 0 (1 included,
                // as often as the field has it); game 2j + 1 puts 1 in 0's seat
                // and 0 in 1's, if 1 sat there: each of the two meets a field
                // drawn evenly from everyone else, and the two meet the same.
                let k = table.min(entrants);
                if k == 0 {
                    return;
                }
                let mut rng = Rng::new(derive(master_seed, Stream::Pair, index / 2));
                out.extend(1..entrants);
                for i in 0..k - 1 {
                    let j = i + rng.index(out.len() - i);
                    out.swap(i, j);
                }
                out.truncate(k - 1);
                out.push(0);
                rng.shuffle(out);
                if index % 2 == 1 {
                    for e in out.iter_mut() {
                        *e = match *e {
                            0 => 1,
                            1 => 0,
                            e => e,
                        };
                    }
                }
            }
            Schedule::RoundRobin { .. } => {
                let p = pairs(entrants);
                let k = index / p;
                let (a, b) = nth_pair(entrants, index % p);
                if k.is_multiple_of(2) {
                    out.extend([a, b]);
                } else {
                    out.extend([b, a]);
                }
            }
        }
    }
}

fn pairs(n: usize) -> u64 {
    (n as u64) * (n as u64).saturating_sub(1) / 2
}

/// The `i`-th unordered pair (a < b) in lexicographic order.
fn nth_pair(n: usize, mut i: u64) -> (usize, usize) {
    for a in 0..n {
        let row = (n - a - 1) as u64;
        if i < row {
            return (a, a + 1 + i as usize);
        }
        i -= row;
    }
    unreachable!("pair index out of range")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn round_robin_plays_every_ordered_pair_once_per_round() {
        let s = Schedule::RoundRobin { games_per_pair: 4 };
        let n = 5;
        assert_eq!(s.len(n), 40);
        let mut v = Vec::new();
        // Round r = games 2r*10 .. 2r*10+20.
        for round in 0..2u64 {
            let mut seen = HashMap::new();
            for i in round * 20..round * 20 + 20 {
                s.seating(n, 1, i, &mut v);
                assert_ne!(v[0], v[1]);
                *seen.entry((v[0], v[1])).or_insert(0) += 1;
            }
            assert_eq!(seen.len(), 20);
            assert!(seen.values().all(|&c| c == 1));
        }
    }

    #[test]
    fn balanced_rounds_give_every_entrant_each_seat_once() {
        for (n, k) in [(8, 6), (7, 3), (6, 6), (5, 2)] {
            let s = Schedule::Balanced {
                games: 10 * n as u64,
                table: k,
            };
            let mut v = Vec::new();
            let mut pairs = HashMap::new();
            for round in 0..10u64 {
                // seats[e][s]: games entrant e played in seat s this round.
                let mut seats = vec![vec![0; k]; n];
                for i in round * n as u64..(round + 1) * n as u64 {
                    s.seating(n, 3, i, &mut v);
                    assert_eq!(v.len(), k);
                    let mut sorted = v.clone();
                    sorted.sort();
                    sorted.dedup();
                    assert_eq!(sorted.len(), k, "distinct entrants: {v:?}");
                    for (seat, &e) in v.iter().enumerate() {
                        seats[e][seat] += 1;
                    }
                    for &a in &v {
                        for &b in &v {
                            if a < b {
                                *pairs.entry((a, b)).or_insert(0) += 1;
                            }
                        }
                    }
                }
                assert!(
                    seats.iter().all(|e| e.iter().all(|&c| c == 1)),
                    "{n} {k}: {seats:?}"
                );
            }
            // Rounds differ, so every pair meets when tables are smaller than the field.
            assert_eq!(pairs.len(), n * (n - 1) / 2, "{n} {k}");
        }
    }

    #[test]
    fn random_tables_are_distinct_entrants_and_cover_everyone() {
        let s = Schedule::RandomTables {
            games: 1000,
            table: 6,
        };
        let mut count = [0u32; 9];
        let mut v = Vec::new();
        for i in 0..1000 {
            s.seating(9, 7, i, &mut v);
            assert_eq!(v.len(), 6);
            let mut d = v.clone();
            d.sort();
            d.dedup();
            assert_eq!(d.len(), 6);
            for &e in &v {
                count[e] += 1;
            }
        }
        // Each entrant sits in about 2/3 of the games.
        for c in count {
            assert!((600..740).contains(&c), "{count:?}");
        }
        let mut a = Vec::new();
        s.seating(9, 7, 5, &mut a);
        s.seating(9, 7, 5, &mut v);
        assert_eq!(a, v);
    }

    #[test]
    fn gauntlet_seats_the_candidate_every_game() {
        let s = Schedule::Gauntlet {
            games: 500,
            table: 2,
        };
        let mut v = Vec::new();
        let (mut first, mut seen) = (0, [0u32; 4]);
        for i in 0..500 {
            s.seating(4, 9, i, &mut v);
            assert_eq!(v.len(), 2);
            assert!(v.contains(&0));
            first += (v[0] == 0) as u32;
            seen[v[0] + v[1]] += 1;
        }
        assert!((200..300).contains(&first), "{first}");
        assert!(seen[1..].iter().all(|&c| c > 100), "{seen:?}");
    }

    #[test]
    fn a_pair_block_planned_before_deals_each_deal_its_own_cards() {
        let old: Schedule =
            serde_json::from_str(r#"{"kind":"pair","games":10,"table":3}"#).unwrap();
        assert_eq!(old.deals_alike(), 1);
        let new = Schedule::Pair {
            games: 10,
            table: 3,
            same_cards: true,
        };
        assert_eq!(new.deals_alike(), 2);
        let json = serde_json::to_string(&new).unwrap();
        assert_eq!(serde_json::from_str::<Schedule>(&json).unwrap(), new);
        assert_eq!(
            serde_json::to_string(&old).unwrap(),
            r#"{"kind":"pair","games":10,"table":3}"#,
            "an old block's schedule is written as it was"
        );
    }

    #[test]
    fn a_pair_faces_the_same_field() {
        for (n, k) in [(6, 4), (5, 2), (2, 2), (3, 3)] {
            let s = Schedule::Pair {
                games: 4000,
                table: k,
                same_cards: true,
            };
            let mut v = Vec::new();
            // met[x][e]: games of x (0 or 1) against e.
            let mut met = vec![vec![0u32; n]; 2];
            let mut first = [0u32; 2];
            for i in 0..4000 {
                s.seating(n, 11, i, &mut v);
                assert_eq!(v.len(), k.min(n));
                let mut d = v.clone();
                d.sort();
                d.dedup();
                assert_eq!(d.len(), v.len(), "{v:?}");
                let x = (i % 2) as usize;
                assert!(v.contains(&x), "{i}: {v:?}");
                first[x] += u32::from(v[0] == x);
                for &e in &v {
                    met[x][e] += u32::from(e != x);
                }
            }
            // Each meets every other entrant about as often: 2000 games at
            // k − 1 opponents drawn from n − 1.
            let expect = 2000.0 * (k - 1) as f64 / (n - 1) as f64;
            for x in 0..2 {
                for e in (0..n).filter(|&e| e != x) {
                    let m = met[x][e] as f64;
                    assert!((m - expect).abs() < 0.1 * expect + 10.0, "{n} {k}: {met:?}");
                }
            }
            assert!(
                first.iter().all(|&f| f > 2000 / k as u32 - 150),
                "{n} {k}: {first:?}"
            );
            // Games 2j and 2j + 1: one table, 0 and 1 swapped.
            let (mut a, mut b) = (Vec::new(), Vec::new());
            s.seating(n, 11, 40, &mut a);
            s.seating(n, 11, 41, &mut b);
            let swapped: Vec<usize> = a
                .iter()
                .map(|&e| match e {
                    0 => 1,
                    1 => 0,
                    e => e,
                })
                .collect();
            assert_eq!(b, swapped);
        }
    }

    #[test]
    fn full_tables_shuffle_seat_order() {
        let s = Schedule::RandomTables {
            games: 10,
            table: 6,
        };
        let mut first = [0u32; 6];
        let mut v = Vec::new();
        for i in 0..600 {
            s.seating(6, 3, i, &mut v);
            first[v[0]] += 1;
        }
        assert!(first.iter().all(|&c| c > 60), "{first:?}");
    }
}
