//! What one fit of the standings' model costs, as the hill makes one before
//! each block: fields of 8 entrants at four seats, 25 and 60 at six, each with
//! 250,000 games at tables drawn at random (every set of opponents a hill
//! meets), as played (the design-based part and exact field shares) and as
//! hills made before fit (the model alone, shares from a sample of sets).
//!
//! `cargo bench -p koth-arena --bench model_fit`

use criterion::{criterion_group, criterion_main, Criterion};
use koth_arena::model::{shares, Model};
use koth_arena::rng::{Random, Rng};
use koth_arena::stats::quantize;
use koth_arena::SeatSet;

fn field(f: usize, k: usize, games: u64) -> Model {
    let beta: Vec<f64> = (0..f)
        .map(|e| (e as f64 - f as f64 / 2.0) / f as f64)
        .collect();
    let mut rng = Rng::new(7);
    let mut m = Model::default();
    let mut all: Vec<usize> = (0..f).collect();
    for i in 0..games / k as u64 {
        rng.shuffle(&mut all);
        let table = &all[..k];
        for r in 0..k {
            let mut seats = table.to_vec();
            seats.rotate_left(r);
            let w: Vec<f64> = seats.iter().map(|&e| beta[e].exp()).collect();
            let mut x = rng.index(1_000_000) as f64 / 1e6 * w.iter().sum::<f64>();
            let mut win = k - 1;
            for (s, &v) in w.iter().enumerate() {
                if x < v {
                    win = s;
                    break;
                }
                x -= v;
            }
            let q: Vec<i64> = (0..k)
                .map(|s| {
                    quantize(if s == win {
                        1.0
                    } else {
                        -1.0 / (k as f64 - 1.0)
                    })
                })
                .collect();
            m.add(
                &seats,
                &q,
                &shares(k, SeatSet::single(win))[..k],
                Some((i, k as u64)),
            );
        }
    }
    m
}

fn fits(c: &mut Criterion) {
    let mut g = c.benchmark_group("fit");
    g.sample_size(10);
    for (f, k) in [(8, 4), (25, 6), (60, 6)] {
        let m = field(f, k, 250_000);
        let mut old = m.clone();
        old.set_legacy(true);
        g.bench_function(format!("{f} entrants, {k} seats, as played"), |b| {
            b.iter(|| m.fit(f).unwrap())
        });
        g.bench_function(
            format!("{f} entrants, {k} seats, the model alone (before)"),
            |b| b.iter(|| old.fit(f).unwrap()),
        );
    }
    g.finish();
}

criterion_group!(benches, fits);
criterion_main!(benches);
