//! Time per invocation through the adapter against the bare cost of launching the
//! same trivial compiled bot.
//!
//! ```text
//! cargo run --release -p koth-ppcg --example invocation_overhead [GAMES]
//! ```
//!
//! Compiles a tiny C bot with `cc` (it appends its first legal move, or `\n`, and
//! prints the first cards after an Exchange), then:
//! * bare: launches it N times with `std::process::Command` (fork/exec/wait only);
//! * launch via `koth_process::invoke` (process group, limits, sandbox);
//! * arbiter: full games of the bot against itself through `PpcgAgent`: file writes,
//!   invocations, reads, checks, engine updates.

use koth_arena::Agent;
use koth_ppcg::{play, PpcgAgent, PpcgGame, RunOptions};
use koth_process::Command;
use std::time::{Duration, Instant};

const BOT: &str = r#"
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
    if (argc < 6) return 0;
    FILE *f = fopen(argv[1], "a");
    const char *m = argv[5];
    for (int i = 5; i < argc; i++) if (strcmp(argv[i], "I\n") == 0) m = argv[i];
    fputs(m, f);
    fclose(f);
    if (strcmp(m, "\n") == 0 && strlen(argv[4]) >= 3) {
        size_t n = strlen(argv[4]) - 2;
        fwrite(argv[4] + 2, 1, n, stdout);
    }
    return 0;
}
"#;

fn main() {
    let games: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    let dir = std::env::temp_dir().join(format!("koth-ppcg-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("bot.c"), BOT).unwrap();
    let ok = std::process::Command::new("cc")
        .args(["-O2", "-o", "bot", "bot.c"])
        .current_dir(&dir)
        .status();
    if !ok.map(|s| s.success()).unwrap_or(false) {
        eprintln!("cannot compile the bot with cc");
        std::process::exit(1);
    }
    let hist = dir.join("h.txt");
    let args = [
        hist.display().to_string(),
        "1".into(),
        "1".into(),
        "$*".into(),
        "I\n".into(),
    ];

    // Bare launches.
    let n = 300;
    let t = Instant::now();
    for _ in 0..n {
        std::fs::write(&hist, "").unwrap();
        std::process::Command::new(dir.join("bot"))
            .args(&args)
            .current_dir(&dir)
            .output()
            .unwrap();
    }
    let bare = t.elapsed() / n;

    // Launches through koth_process::invoke.
    let cmd = Command::new([dir.join("bot").display().to_string()], dir.clone());
    let t = Instant::now();
    for _ in 0..n {
        std::fs::write(&hist, "").unwrap();
        let r = koth_process::invoke(&cmd, &args, Duration::from_secs(10), 4096);
        assert!(r.success());
    }
    let invoke = t.elapsed() / n;

    // Whole games through the adapter.
    let mut invocations = 0usize;
    let t = Instant::now();
    for seed in 0..games as u64 {
        let out = dir.join("out");
        let mut g = PpcgGame::standalone(
            koth_coup::Rules::ppcg(),
            seed,
            ["a", "b"],
            out,
            &format!("g{seed}"),
        );
        let mut a = PpcgAgent::new("a", cmd.clone(), RunOptions::default());
        let mut b = PpcgAgent::new("b", cmd.clone(), RunOptions::default());
        let rec = play(&mut g, &mut a as &mut dyn Agent<PpcgGame>, &mut b);
        assert!(rec.forfeits.is_empty(), "{:?}", rec.forfeits);
        invocations += g.history().invoked();
    }
    let arbiter = t.elapsed() / invocations.max(1) as u32;
    println!("bare launch (std::process):      {:>8.3} ms", ms(bare));
    println!("launch via koth_process::invoke: {:>8.3} ms", ms(invoke));
    println!(
        "per invocation in a game:        {:>8.3} ms  ({invocations} invocations, {games} games)",
        ms(arbiter)
    );
    println!(
        "arbiter overhead vs bare launch: {:>8.3} ms",
        ms(arbiter) - ms(bare)
    );
    println!(
        "arbiter overhead vs invoke:      {:>8.3} ms",
        ms(arbiter) - ms(invoke)
    );
    std::fs::remove_dir_all(&dir).ok();
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
